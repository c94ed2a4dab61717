/* fuzz-m68k-elf.c -- fuzz harness: quamachine's static ELF loader (m68k/elf.c) on any bytes.
 *
 * The input is an executable. It is opened as `quamachine run` opens one: checked
 * (m68k_elf_open_mem), and when accepted loaded into a machine whose RAM starts at its lowest
 * segment, as m68k_linux_run places it (but at most 4 MiB, so a large image is refused with
 * NOFIT rather than taking the host's memory), and given a Linux process stack
 * (m68k_linux_setup). Nothing runs: a guest's system calls are the host's. An odd-sized
 * input is loaded on a 68000 (24-bit addresses), an even-sized one on a 68030. A refusal
 * must be one of the loader's codes with a message naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "machine.h"

#define RAM_MAX (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[512] = "";
  m68k_elf_t *elf = NULL;
  int rc = m68k_elf_open_mem(data, size, "fuzz.elf", &elf, err, sizeof err);
  if (rc != M68K_OK) {
    CHECK(elf == NULL && rc < 0 && strcmp(m68k_strerror(rc), "unknown error") != 0);
    CHECK(strncmp(err, "fuzz.elf: ", 10) == 0);
    return 0;
  }
  CHECK(elf != NULL);
  m68k_model_t model = size & 1 ? M68K_MODEL_68000 : M68K_MODEL_68030;
  uint32_t mask = model == M68K_MODEL_68000 ? 0x00FFFFFFu : 0xFFFFFFFFu;
  uint32_t low = m68k_elf_low(elf), high = m68k_elf_high(elf);
  CHECK(low < high);
  uint32_t base = (low & mask) & ~0xFFFFu;
  uint32_t room = ((M68K_DEV_BASE & mask) - base) & ~0xFFFFu;
  uint32_t ram = room < RAM_MAX ? room : RAM_MAX;
  m68k_machine_config_t cfg = {.model = model, .ncpus = 1, .ram_base = base, .ram_size = ram};
  m68k_machine_t *m = ram != 0 ? m68k_machine_create(&cfg) : NULL;
  if (m != NULL) {
    rc = m68k_elf_load(m, elf);
    CHECK(rc == M68K_OK || rc == M68K_ENOFIT);
    CHECK(rc == M68K_OK || m68k_machine_message(m)[0] != '\0');
    if (rc == M68K_OK) {
      char *argv[] = {"fuzz.elf", "one", NULL}, *envp[] = {"QUA=1", NULL};
      rc = m68k_linux_setup(m, elf, "/fuzz.elf", 2, argv, envp);
      CHECK(rc == M68K_OK || rc == M68K_ETOOBIG || rc == M68K_ENOFIT);
      if (rc == M68K_OK)
        CHECK((m68k_get_reg(m68k_machine_cpu(m, 0), M68K_REG_PC) & mask) ==
              (m68k_elf_entry(elf) & mask));
    }
    m68k_machine_destroy(m);
  }
  m68k_elf_close(elf);
  return 0;
}
