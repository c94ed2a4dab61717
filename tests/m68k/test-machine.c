/* test-machine.c -- ELF loader errors, Linux system calls, devices, schedules and the tool.
 *
 * Everything here is built from bytes in the test (ELF headers and
 * hand-assembled 68k code, each instruction's encoding in a comment), so
 * the suite needs no cross compiler.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machine.h"
#include "m68k-tool.h"
#include "qtest.h"

static const char *tool; /* build/m68k/quamachine, from the command line */

/* ---- Helpers ----------------------------------------------------------- */

#define ELF_VADDR 0x00010000u
#define ELF_CODE_OFF 0x54u /* 52-byte header + one 32-byte program header */

static void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v) {
  put16(p, (uint16_t)(v >> 16));
  put16(p + 2, (uint16_t)v);
}

/* A static m68k executable: one PT_LOAD at ELF_VADDR holding the headers
 * and then the code (entry), with 4 KiB of bss. Returns its size. */
static size_t make_elf(uint8_t *buf, size_t cap, const uint16_t *code, size_t nwords) {
  size_t size = ELF_CODE_OFF + 2 * nwords;
  CU_ASSERT_FATAL(size <= cap);
  memset(buf, 0, size);
  memcpy(buf, "\177ELF", 4);
  buf[4] = 1;                                /* ELFCLASS32 */
  buf[5] = 2;                                /* ELFDATA2MSB */
  buf[6] = 1;                                /* EV_CURRENT */
  put16(buf + 16, 2);                        /* ET_EXEC */
  put16(buf + 18, 4);                        /* EM_68K */
  put32(buf + 20, 1);                        /* e_version */
  put32(buf + 24, ELF_VADDR + ELF_CODE_OFF); /* e_entry */
  put32(buf + 28, 52);                       /* e_phoff */
  put16(buf + 40, 52);                       /* e_ehsize */
  put16(buf + 42, 32);                       /* e_phentsize */
  put16(buf + 44, 1);                        /* e_phnum */
  uint8_t *ph = buf + 52;
  put32(ph, 1);                          /* PT_LOAD */
  put32(ph + 4, 0);                      /* p_offset */
  put32(ph + 8, ELF_VADDR);              /* p_vaddr */
  put32(ph + 12, ELF_VADDR);             /* p_paddr */
  put32(ph + 16, (uint32_t)size);        /* p_filesz */
  put32(ph + 20, (uint32_t)size + 4096); /* p_memsz */
  put32(ph + 24, 7);                     /* RWX */
  put32(ph + 28, 4);
  for (size_t i = 0; i < nwords; i++)
    put16(buf + ELF_CODE_OFF + 2 * i, code[i]);
  return size;
}

/* A Linux process for `code` on a one-CPU 68030 with 1 MiB of RAM. */
static m68k_machine_t *linux_machine(const uint16_t *code, size_t nwords, m68k_elf_t **elf_out) {
  uint8_t img[1024];
  char err[256];
  m68k_elf_t *elf = NULL;
  size_t n = make_elf(img, sizeof img, code, nwords);
  CU_ASSERT_EQUAL_FATAL(m68k_elf_open_mem(img, n, "test", &elf, err, sizeof err), M68K_OK);
  m68k_machine_config_t cfg = {M68K_MODEL_68030, 1, ELF_VADDR, 1u << 20};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL_FATAL(m68k_elf_load(m, elf), M68K_OK);
  char *argv[] = {"prog", "one", "two", NULL};
  char *envp[] = {"A=1", NULL};
  CU_ASSERT_EQUAL_FATAL(m68k_linux_setup(m, elf, "/bin/prog", 3, argv, envp), M68K_OK);
  m68k_machine_set_limit(m, 100000);
  if (elf_out != NULL)
    *elf_out = elf;
  else
    m68k_elf_close(elf);
  return m;
}

/* A freestanding machine with `code` at 0x1000, both CPUs started there. */
#define CODE 0x1000u
static m68k_machine_t *bare_machine(unsigned ncpus, const uint16_t *code, size_t nwords) {
  m68k_machine_config_t cfg = {M68K_MODEL_68030, ncpus, 0, 256u << 10};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  for (size_t i = 0; i < nwords; i++) {
    uint8_t w[2];
    put16(w, code[i]);
    CU_ASSERT_EQUAL_FATAL(m68k_machine_load(m, CODE + 2 * (uint32_t)i, w, 2), M68K_OK);
  }
  m68k_machine_start(m, CODE);
  m68k_machine_set_limit(m, 1000000);
  return m;
}

static void load_words(m68k_machine_t *m, uint32_t addr, const uint16_t *w, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t b[2];
    put16(b, w[i]);
    CU_ASSERT_EQUAL_FATAL(m68k_machine_load(m, addr + 2 * (uint32_t)i, b, 2), M68K_OK);
  }
}

static int open_mem_fails(const void *data, size_t size, char *err, size_t errlen) {
  m68k_elf_t *elf = NULL;
  int rc = m68k_elf_open_mem(data, size, "prog", &elf, err, errlen);
  CU_ASSERT_PTR_NULL(elf);
  m68k_elf_close(elf);
  return rc;
}

/* ---- ELF loader ---------------------------------------------------------- */

static const uint16_t exit42[] = {
    0x722A, /* moveq #42,d1 */
    0x7001, /* moveq #1,d0 (exit) */
    0x4E40, /* trap #0 */
};

static void elf_rejects_a_file_that_is_not_elf(void) {
  char err[256];
  const char text[] = "#!/bin/sh\necho hello, not an ELF file at all\n";
  CU_ASSERT_EQUAL(open_mem_fails(text, sizeof text, err, sizeof err), M68K_ENOTELF);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "not an ELF file"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "prog"));
}

static void elf_rejects_a_truncated_header(void) {
  uint8_t img[256];
  char err[256];
  make_elf(img, sizeof img, exit42, 3);
  CU_ASSERT_EQUAL(open_mem_fails(img, 30, err, sizeof err), M68K_ETRUNCATED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "truncated"));
}

static void elf_rejects_a_truncated_segment(void) {
  uint8_t img[256];
  char err[256];
  size_t n = make_elf(img, sizeof img, exit42, 3);
  CU_ASSERT_EQUAL(open_mem_fails(img, n - 2, err, sizeof err), M68K_ETRUNCATED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "segment 0"));
}

/* A segment may end at the address space's last address but not hold
 * its last byte: its end (low < high) must be an address. */
static void elf_rejects_a_segment_holding_the_last_address(void) {
  uint8_t img[256];
  char err[256];
  size_t n = make_elf(img, sizeof img, exit42, 3);
  uint32_t memsz = (uint32_t)n + 4096;
  m68k_elf_t *elf = NULL;
  put32(img + 52 + 8, UINT32_MAX - memsz); /* p_vaddr: the end at 0xffffffff */
  CU_ASSERT_EQUAL_FATAL(m68k_elf_open_mem(img, n, "prog", &elf, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(m68k_elf_high(elf), UINT32_MAX);
  CU_ASSERT(m68k_elf_low(elf) < m68k_elf_high(elf));
  m68k_elf_close(elf);
  put32(img + 52 + 8, UINT32_MAX - memsz + 1); /* the last byte held */
  CU_ASSERT_EQUAL(open_mem_fails(img, n, err, sizeof err), M68K_EELFBAD);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "segment 0 runs to the end of the address space"));
  put32(img + 52 + 8, UINT32_MAX); /* one byte there would do */
  put32(img + 52 + 16, 0);         /* p_filesz */
  put32(img + 52 + 20, 1);         /* p_memsz */
  CU_ASSERT_EQUAL(open_mem_fails(img, n, err, sizeof err), M68K_EELFBAD);
}

static void elf_rejects_the_wrong_machine(void) {
  uint8_t img[256];
  char err[256];
  size_t n = make_elf(img, sizeof img, exit42, 3);
  put16(img + 18, 2); /* EM_SPARC */
  CU_ASSERT_EQUAL(open_mem_fails(img, n, err, sizeof err), M68K_EELFMACHINE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "not an m68k ELF file"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "SPARC"));
}

static void elf_rejects_the_host_executable(void) {
  m68k_elf_t *elf = NULL;
  char err[256];
  int rc = m68k_elf_open("/proc/self/exe", &elf, err, sizeof err);
  CU_ASSERT(rc == M68K_EELFCLASS || rc == M68K_EELFDATA || rc == M68K_EELFMACHINE);
  CU_ASSERT_PTR_NULL(elf);
}

static void elf_rejects_little_endian_and_64_bit(void) {
  uint8_t img[256];
  char err[256];
  size_t n = make_elf(img, sizeof img, exit42, 3);
  img[5] = 1;
  CU_ASSERT_EQUAL(open_mem_fails(img, n, err, sizeof err), M68K_EELFDATA);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "little-endian"));
  img[5] = 2;
  img[4] = 2;
  CU_ASSERT_EQUAL(open_mem_fails(img, n, err, sizeof err), M68K_EELFCLASS);
}

static void elf_rejects_dynamic_executables(void) {
  uint8_t img[256];
  char err[256];
  size_t n = make_elf(img, sizeof img, exit42, 3);
  put16(img + 16, 3); /* ET_DYN */
  CU_ASSERT_EQUAL(open_mem_fails(img, n, err, sizeof err), M68K_EELFDYNAMIC);
  put16(img + 16, 2);
  put32(img + 52, 3); /* PT_INTERP */
  CU_ASSERT_EQUAL(open_mem_fails(img, n, err, sizeof err), M68K_EELFDYNAMIC);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "PT_INTERP"));
}

static void elf_open_of_a_missing_file_says_so(void) {
  m68k_elf_t *elf = NULL;
  char err[256];
  CU_ASSERT_EQUAL(m68k_elf_open("/nonexistent/quamachine-prog", &elf, err, sizeof err), M68K_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/quamachine-prog"));
}

static void elf_load_refuses_segments_outside_ram(void) {
  uint8_t img[256];
  char err[256];
  m68k_elf_t *elf = NULL;
  size_t n = make_elf(img, sizeof img, exit42, 3);
  CU_ASSERT_EQUAL_FATAL(m68k_elf_open_mem(img, n, "prog", &elf, err, sizeof err), M68K_OK);
  m68k_machine_config_t cfg = {M68K_MODEL_68030, 1, 0x00100000u, 1u << 20};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(m68k_elf_load(m, elf), M68K_ENOFIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(m68k_machine_message(m), "outside RAM"));
  m68k_machine_destroy(m);
  m68k_elf_close(elf);
}

static void machine_create_rejects_bad_configs(void) {
  m68k_machine_config_t overlap = {M68K_MODEL_68030, 1, 0xFFF00000u, 1u << 20};
  m68k_machine_config_t big68000 = {M68K_MODEL_68000, 1, 0, 16u << 20};
  m68k_machine_config_t three = {M68K_MODEL_68030, 3, 0, 1u << 20};
  m68k_machine_config_t unaligned = {M68K_MODEL_68030, 1, 0x1000, 1u << 20};
  CU_ASSERT_PTR_NULL(m68k_machine_create(&overlap));
  CU_ASSERT_PTR_NULL(m68k_machine_create(&big68000));
  CU_ASSERT_PTR_NULL(m68k_machine_create(&three));
  CU_ASSERT_PTR_NULL(m68k_machine_create(&unaligned));
}

/* The kernel's transparent huge page mode: 'a'lways, 'm'advise, 'n'ever,
 * 0 if it has none. */
static char thp_mode(void) {
  char line[128] = "";
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (f == NULL)
    return 0;
  char *got = fgets(line, sizeof line, f);
  fclose(f);
  const char *sel = got != NULL ? strchr(line, '[') : NULL;
  return sel != NULL ? sel[1] : 0;
}

/* /proc/self/smaps's THPeligible for the mapping holding p: 1 or 0, -1 if
 * the mapping or the field is not found. */
static int thp_eligible(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (f == NULL)
    return -1;
  char line[512];
  bool in = false;
  int v = -1;
  while (v < 0 && fgets(line, sizeof line, f) != NULL) {
    unsigned long lo, hi;
    char dash;
    if (sscanf(line, "%lx%c%lx ", &lo, &dash, &hi) == 3 && dash == '-')
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    else if (in && strncmp(line, "THPeligible:", 12) == 0)
      v = atoi(line + 12);
  }
  fclose(f);
  return v;
}

/* huge_pages advises the RAM's mapping (THPeligible in smaps); without it
 * the mapping stays as the kernel's mode has it (not eligible in madvise
 * mode). 8 MiB: room for whole, aligned 2 MiB pages. */
static void machine_huge_pages_advise_the_ram(void) {
  char mode = thp_mode();
  if (mode != 'a' && mode != 'm') {
    printf("(the kernel has no transparent huge pages: skipped) ");
    return;
  }
  for (int huge = 0; huge < 2; huge++) {
    m68k_machine_config_t cfg = {M68K_MODEL_68030, 1, 0, 8u << 20, huge};
    m68k_machine_t *m = m68k_machine_create(&cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    uint8_t *ram = m68k_machine_ram(m, 0, 8u << 20);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ram);
    if (huge || mode == 'm')
      CU_ASSERT_EQUAL(thp_eligible(ram), huge);
    m68k_machine_destroy(m);
  }
}

/* ---- Linux system calls -------------------------------------------------- */

static void linux_exit_status_passes_through(void) {
  m68k_machine_t *m = linux_machine(exit42, 3, NULL);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.code, 42);
  CU_ASSERT_EQUAL(r.clock, 3);
  m68k_machine_destroy(m);
}

static void linux_initial_stack_is_as_linux_builds_it(void) {
  m68k_elf_t *elf;
  m68k_machine_t *m = linux_machine(exit42, 3, &elf);
  m68k_cpu_t *cpu = m68k_machine_cpu(m, 0);
  uint32_t sp = m68k_get_reg(cpu, M68K_REG_A0 + 7), v, p;
  CU_ASSERT_EQUAL(m68k_get_reg(cpu, M68K_REG_SR) & 0x2000, 0); /* user mode */
  CU_ASSERT_EQUAL(m68k_get_reg(cpu, M68K_REG_PC), ELF_VADDR + ELF_CODE_OFF);
  CU_ASSERT_EQUAL(sp & 3, 0);
  CU_ASSERT_TRUE(m68k_machine_read32(m, sp, &v));
  CU_ASSERT_EQUAL(v, 3); /* argc */
  const char *want[] = {"prog", "one", "two"};
  for (uint32_t i = 0; i < 3; i++) {
    CU_ASSERT_TRUE_FATAL(m68k_machine_read32(m, sp + 4 + 4 * i, &p));
    const char *s = (const char *)m68k_machine_ram(m, p, 4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(s, want[i]);
  }
  CU_ASSERT_TRUE(m68k_machine_read32(m, sp + 16, &v));
  CU_ASSERT_EQUAL(v, 0); /* argv end */
  CU_ASSERT_TRUE(m68k_machine_read32(m, sp + 20, &p));
  CU_ASSERT_STRING_EQUAL((const char *)m68k_machine_ram(m, p, 4), "A=1");
  CU_ASSERT_TRUE(m68k_machine_read32(m, sp + 24, &v));
  CU_ASSERT_EQUAL(v, 0); /* envp end */
  uint32_t seen = 0, a = sp + 28, type, val;
  do {
    CU_ASSERT_TRUE_FATAL(m68k_machine_read32(m, a, &type));
    CU_ASSERT_TRUE_FATAL(m68k_machine_read32(m, a + 4, &val));
    a += 8;
    switch (type) {
    case 3:
      CU_ASSERT_EQUAL(val, ELF_VADDR + 52);
      seen |= 1;
      break; /* AT_PHDR */
    case 5:
      CU_ASSERT_EQUAL(val, 1);
      seen |= 2;
      break; /* AT_PHNUM */
    case 6:
      CU_ASSERT_EQUAL(val, 4096);
      seen |= 4;
      break; /* AT_PAGESZ */
    case 9:
      CU_ASSERT_EQUAL(val, m68k_elf_entry(elf));
      seen |= 8;
      break; /* AT_ENTRY */
    case 25:
      CU_ASSERT_PTR_NOT_NULL(m68k_machine_ram(m, val, 16));
      seen |= 16;
      break; /* AT_RANDOM */
    case 4:
      CU_ASSERT_EQUAL(val, 32);
      seen |= 32;
      break;                    /* AT_PHENT */
    case 16: seen |= 64; break; /* AT_HWCAP */
    default: break;
    }
  } while (type != 0 && a < sp + 4096);
  CU_ASSERT_EQUAL(seen, 127);
  m68k_elf_close(elf);
  m68k_machine_destroy(m);
}

static void linux_unsupported_syscall_names_it_and_the_pc(void) {
  static const uint16_t code[] = {
      0x7002, /* moveq #2,d0 (fork) */
      0x4E40, /* trap #0 */
  };
  m68k_machine_t *m = linux_machine(code, 2, NULL);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_FAULT);
  char want[128];
  snprintf(want, sizeof want, "unsupported system call 2 (fork) at PC 0x%08x",
           ELF_VADDR + ELF_CODE_OFF + 2);
  CU_ASSERT_STRING_EQUAL(m68k_machine_message(m), want);
  m68k_machine_destroy(m);
}

static void linux_unsupported_instruction_names_it_and_the_pc(void) {
  static const uint16_t code[] = {
      0x4E71, /* nop */
      0x4AFC, /* illegal */
  };
  m68k_machine_t *m = linux_machine(code, 2, NULL);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_FAULT);
  char want[64];
  snprintf(want, sizeof want, "at PC 0x%08x", ELF_VADDR + ELF_CODE_OFF + 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(m68k_machine_message(m), "unsupported instruction 0x4afc"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m68k_machine_message(m), want));
  m68k_machine_destroy(m);
}

static void linux_write_reaches_the_file_descriptor(void) {
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  int fd = fileno(f);
  CU_ASSERT_FATAL(fd > 2 && fd < 128);
  uint32_t msg = ELF_VADDR + ELF_CODE_OFF + 13 * 2;
  const uint16_t code[] = {
      (uint16_t)(0x7200 | fd), /* moveq #fd,d1 */
      0x243C,
      (uint16_t)(msg >> 16),
      (uint16_t)msg, /* move.l #msg,d2 */
      0x7606,        /* moveq #6,d3 */
      0x7004,        /* moveq #4,d0 (write) */
      0x4E40,        /* trap #0 */
      0x2200,        /* move.l d0,d1: exit(bytes written) */
      0x7001,        /* moveq #1,d0 */
      0x4E40,        /* trap #0 */
      0x4E71,
      0x4E71,
      0x4E71, /* nop padding */
      0x6865,
      0x6C6C,
      0x6F0A, /* "hello\n" */
  };
  m68k_machine_t *m = linux_machine(code, sizeof code / sizeof code[0], NULL);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.code, 6);
  char buf[16] = {0};
  rewind(f);
  CU_ASSERT_EQUAL(fread(buf, 1, sizeof buf, f), 6);
  CU_ASSERT_STRING_EQUAL(buf, "hello\n");
  fclose(f);
  m68k_machine_destroy(m);
}

static void linux_brk_grows_the_heap_after_the_program(void) {
  static const uint16_t code[] = {
      0x702D,                 /* moveq #45,d0 (brk) */
      0x7200,                 /* moveq #0,d1 */
      0x4E40,                 /* trap #0 */
      0x2E00,                 /* move.l d0,d7: the start */
      0x2200,                 /* move.l d0,d1 */
      0x0681, 0x0001, 0x0000, /* addi.l #0x10000,d1 */
      0x702D,                 /* moveq #45,d0 */
      0x4E40,                 /* trap #0 */
      0x2C00,                 /* move.l d0,d6: the new end */
      0x7001,                 /* moveq #1,d0 */
      0x7200,                 /* moveq #0,d1 */
      0x4E40,                 /* trap #0 */
  };
  m68k_machine_t *m = linux_machine(code, sizeof code / sizeof code[0], NULL);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL_FATAL(r.status, M68K_MACHINE_EXITED);
  m68k_cpu_t *cpu = m68k_machine_cpu(m, 0);
  uint32_t start = m68k_get_reg(cpu, M68K_REG_D0 + 7), end = m68k_get_reg(cpu, M68K_REG_D0 + 6);
  CU_ASSERT_EQUAL(start, ELF_VADDR + 0x2000); /* the bss ends in the second page */
  CU_ASSERT_EQUAL(end, start + 0x10000);
  m68k_machine_destroy(m);
}

static void linux_syscall_names_come_from_the_table(void) {
  CU_ASSERT_STRING_EQUAL(m68k_linux_syscall_name(4), "write");
  CU_ASSERT_STRING_EQUAL(m68k_linux_syscall_name(334), "set_thread_area");
  CU_ASSERT_PTR_NULL(m68k_linux_syscall_name(100000));
}

/* ---- Devices ------------------------------------------------------------- */

static void device_console_and_halt_port(void) {
  static const uint16_t code[] = {
      0x13FC, 0x0048, 0xFFFF, 0xF000,         /* move.b #'H',CONSOLE */
      0x13FC, 0x0069, 0xFFFF, 0xF003,         /* move.b #'i',CONSOLE+3 */
      0x23FC, 0x0000, 0x0107, 0xFFFF, 0xF00C, /* move.l #0x107,HALT */
      0x60FE,                                 /* bra.s * */
  };
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  m68k_machine_t *m = bare_machine(1, code, sizeof code / sizeof code[0]);
  m68k_machine_set_console(m, f);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  fclose(f);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.code, 0x107);
  CU_ASSERT_EQUAL(r.clock, 3);
  CU_ASSERT_STRING_EQUAL(out, "Hi");
  free(out);
  m68k_machine_destroy(m);
}

/* Both CPUs: halt with 100 + the CPU_ID register. */
static const uint16_t halt_with_id[] = {
    0x2039, 0xFFFF, 0xF004, /* move.l CPU_ID,d0 */
    0x0680, 0x0000, 0x0064, /* addi.l #100,d0 */
    0x23C0, 0xFFFF, 0xF00C, /* move.l d0,HALT */
    0x60FE,                 /* bra.s * */
};

static void device_cpu_id_tells_the_cpus_apart(void) {
  m68k_machine_t *m = bare_machine(2, halt_with_id, 10);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.code, 100);
  CU_ASSERT_EQUAL(r.cpu, 0);
  m68k_machine_destroy(m);

  m = bare_machine(2, halt_with_id, 10);
  m68k_slice_t first1[] = {{1, 3}};
  m68k_schedule_t s = {.kind = M68K_SCHED_REPLAY, .slices = first1, .nslices = 1};
  CU_ASSERT_EQUAL(m68k_machine_set_schedule(m, &s), M68K_OK);
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.code, 101);
  CU_ASSERT_EQUAL(r.cpu, 1);
  m68k_machine_destroy(m);
}

/* The timer's handler (level 6 autovector, vector 30 at 0x78): counts
 * ticks at 0x3000, acknowledges, halts with the count at the fifth. */
#define HANDLER 0x2000u
static const uint16_t tick_handler[] = {
    0x52B9, 0x0000, 0x3000,                 /* addq.l #1,0x3000 */
    0x23FC, 0x0000, 0x0001, 0xFFFF, 0xF01C, /* move.l #1,TIMER_ACK */
    0x0CB9, 0x0000, 0x0005, 0x0000, 0x3000, /* cmpi.l #5,0x3000 */
    0x660A,                                 /* bne.s +10 (to rte) */
    0x23F9, 0x0000, 0x3000, 0xFFFF, 0xF00C, /* move.l 0x3000,HALT */
    0x4E73,                                 /* rte */
};

static m68k_machine_t *timer_machine(const uint16_t *main_code, size_t n) {
  m68k_machine_t *m = bare_machine(1, main_code, n);
  load_words(m, HANDLER, tick_handler, sizeof tick_handler / sizeof tick_handler[0]);
  CU_ASSERT_TRUE(m68k_machine_write32(m, 30 * 4, HANDLER));
  return m;
}

static void device_timer_interrupts_at_its_period(void) {
  static const uint16_t code[] = {
      0x23FC, 0x0000, 0x0032, 0xFFFF, 0xF010, /* move.l #50,TIMER_PERIOD */
      0x46FC, 0x2000,                         /* move.w #0x2000,sr */
      0x60FE,                                 /* bra.s * */
  };
  m68k_machine_result_t r1, r2;
  m68k_machine_t *m = timer_machine(code, sizeof code / sizeof code[0]);
  m68k_machine_run(m, &r1);
  CU_ASSERT_EQUAL(r1.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r1.code, 5);
  /* Five periods of 50 from the write (after the first instruction). */
  CU_ASSERT(r1.clock >= 1 + 5 * 50 && r1.clock <= 1 + 5 * 50 + 8);
  m68k_machine_destroy(m);
  m = timer_machine(code, sizeof code / sizeof code[0]);
  m68k_machine_run(m, &r2);
  CU_ASSERT_EQUAL(r2.clock, r1.clock);
  m68k_machine_destroy(m);
}

static void device_timer_wakes_a_stopped_cpu(void) {
  static const uint16_t code[] = {
      0x23FC, 0x0000, 0x03E8, 0xFFFF, 0xF010, /* move.l #1000,TIMER_PERIOD */
      0x4E72, 0x2000,                         /* stop #0x2000 */
      0x60FA,                                 /* bra.s -6 (to stop) */
  };
  m68k_machine_t *m = timer_machine(code, sizeof code / sizeof code[0]);
  m68k_machine_record(m, true);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.code, 5);
  CU_ASSERT(r.clock >= 1 + 5 * 1000 && r.clock < 1 + 5 * 1000 + 8);
  size_t n, idle = 0;
  const m68k_slice_t *s = m68k_machine_recorded(m, &n);
  for (size_t i = 0; i < n; i++)
    idle += s[i].cpu == M68K_SLICE_IDLE;
  CU_ASSERT(idle >= 5);
  m68k_machine_destroy(m);
}

static void device_ipi_interrupts_the_other_cpu(void) {
  static const uint16_t code[] = {
      0x4AB9, 0xFFFF, 0xF004,                 /* tst.l CPU_ID */
      0x660C,                                 /* bne.s +12 (to stop) */
      0x23FC, 0x0000, 0x0001, 0xFFFF, 0xF024, /* move.l #1,IPI_SEND */
      0x60FE,                                 /* bra.s * */
      0x4E72, 0x2000,                         /* stop #0x2000 */
      0x60FA,                                 /* bra.s -6 (to stop) */
  };
  static const uint16_t ipi_handler[] = {
      0x2039, 0xFFFF, 0xF004, /* move.l CPU_ID,d0 */
      0x0680, 0x0000, 0x0046, /* addi.l #70,d0 */
      0x23C0, 0xFFFF, 0xF00C, /* move.l d0,HALT */
      0x60FE,                 /* bra.s * */
  };
  m68k_machine_t *m = bare_machine(2, code, sizeof code / sizeof code[0]);
  load_words(m, HANDLER, ipi_handler, sizeof ipi_handler / sizeof ipi_handler[0]);
  CU_ASSERT_TRUE(m68k_machine_write32(m, 29 * 4, HANDLER)); /* level 5 autovector */
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.code, 71);
  CU_ASSERT_EQUAL(r.cpu, 1);
  m68k_machine_destroy(m);
}

static void machine_reports_a_deadlock(void) {
  static const uint16_t code[] = {0x4E72, 0x2700}; /* stop #0x2700 */
  m68k_machine_t *m = bare_machine(2, code, 2);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_DEADLOCK);
  m68k_machine_destroy(m);
}

static void machine_reports_an_exception_without_handler(void) {
  static const uint16_t code[] = {0x4E71, 0x4E43}; /* nop; trap #3 */
  m68k_machine_t *m = bare_machine(1, code, 2);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_FAULT);
  CU_ASSERT_EQUAL(r.code, 35);
  CU_ASSERT_PTR_NOT_NULL(strstr(m68k_machine_message(m), "TRAP #3"));
  m68k_machine_destroy(m);
}

static void machine_stops_at_the_instruction_limit(void) {
  static const uint16_t code[] = {0x60FE}; /* bra.s * */
  m68k_machine_t *m = bare_machine(2, code, 1);
  m68k_machine_set_limit(m, 12345);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_LIMIT);
  CU_ASSERT_EQUAL(r.clock, 12345);
  m68k_machine_destroy(m);
}

/* ---- Schedules ----------------------------------------------------------- */

static void schedule_specs_parse(void) {
  m68k_schedule_t s;
  CU_ASSERT_EQUAL(m68k_schedule_parse("quantum:25", &s), M68K_OK);
  CU_ASSERT_EQUAL(s.kind, M68K_SCHED_QUANTUM);
  CU_ASSERT_EQUAL(s.quantum, 25);
  CU_ASSERT_EQUAL(m68k_schedule_parse("random:99", &s), M68K_OK);
  CU_ASSERT_EQUAL(s.kind, M68K_SCHED_RANDOM);
  CU_ASSERT_EQUAL(s.seed, 99);
  CU_ASSERT_EQUAL(s.max_slice, 16);
  CU_ASSERT_EQUAL(m68k_schedule_parse("random:7:3", &s), M68K_OK);
  CU_ASSERT_EQUAL(s.max_slice, 3);
  CU_ASSERT_EQUAL(m68k_schedule_parse("quantum:0", &s), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_schedule_parse("quantum:", &s), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_schedule_parse("random:x", &s), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_schedule_parse("random:1:0", &s), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_schedule_parse("fifo", &s), M68K_EINVAL);
}

static void schedule_files_round_trip(void) {
  char path[] = "/tmp/qua-schedule-XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
  m68k_slice_t in[] = {{0, 5}, {1, 7}, {M68K_SLICE_IDLE, 300}, {0, 1}};
  CU_ASSERT_EQUAL(m68k_schedule_save(path, in, 4), M68K_OK);
  m68k_slice_t *out = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(m68k_schedule_load(path, &out, &n), M68K_OK);
  CU_ASSERT_EQUAL(n, 4);
  CU_ASSERT_EQUAL(memcmp(in, out, sizeof in), 0);
  free(out);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("quamachine-schedule 1\n0 5\n7 1\n", f); /* CPU 7 */
  fclose(f);
  CU_ASSERT_EQUAL(m68k_schedule_load(path, &out, &n), M68K_ESCHEDULE);
  f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("something else\n", f);
  fclose(f);
  CU_ASSERT_EQUAL(m68k_schedule_load(path, &out, &n), M68K_ESCHEDULE);
  unlink(path);
  CU_ASSERT_EQUAL(m68k_schedule_load(path, &out, &n), M68K_EIO);
}

static void replay_that_runs_out_stops_the_machine(void) {
  static const uint16_t code[] = {0x60FE}; /* bra.s * */
  m68k_machine_t *m = bare_machine(2, code, 1);
  m68k_slice_t s[] = {{0, 10}, {1, 10}, {0, 3}};
  m68k_schedule_t sch = {.kind = M68K_SCHED_REPLAY, .slices = s, .nslices = 3};
  CU_ASSERT_EQUAL(m68k_machine_set_schedule(m, &sch), M68K_OK);
  m68k_machine_result_t r;
  m68k_machine_run(m, &r);
  CU_ASSERT_EQUAL(r.status, M68K_MACHINE_SCHEDULE_END);
  CU_ASSERT_EQUAL(r.clock, 23);
  m68k_slice_t bad[] = {{2, 1}};
  sch.slices = bad;
  sch.nslices = 1;
  CU_ASSERT_EQUAL(m68k_machine_set_schedule(m, &sch), M68K_EINVAL);
  m68k_machine_destroy(m);
}

/* ---- The quamachine tool -------------------------------------------------- */

/* Runs quamachine with the arguments (NULL-terminated list). */
static void run_tool(tool_run_t *r, const char *a1, ...) {
  char *argv[16];
  int argc = 0;
  va_list ap;
  argv[argc++] = (char *)tool;
  va_start(ap, a1);
  for (const char *a = a1; a != NULL && argc < 15; a = va_arg(ap, const char *))
    argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  tool_runv(r, argv);
}

/* Writes bytes to a new temporary file; the caller unlinks `path`. */
static void write_temp(char *path, const void *data, size_t len) {
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_EQUAL_FATAL(write(fd, data, len), (ssize_t)len);
  close(fd);
}

static void cli_help_describes_every_command(void) {
  tool_run_t r;
  run_tool(&r, "--help", NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "run [OPTION]... PROG"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "sst [OPTION]... FILE_OR_DIR"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "smp [OPTION]... IMAGE"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Device page"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Exit status"));
}

static void cli_bad_usage_exits_2_with_a_message(void) {
  tool_run_t r;
  run_tool(&r, "run", "--cpu", "68020", "prog", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "unknown CPU '68020'"));
  run_tool(&r, "frobnicate", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "unknown command 'frobnicate'"));
  run_tool(&r, "smp", "--schedule", "fifo", "image", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "bad schedule 'fifo'"));
  run_tool(&r, "run", "--frob", "prog", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--frob"));
  run_tool(&r, "run", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no program given"));
  run_tool(&r, "run", "--jit=maybe", "prog", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--jit takes on or off, not 'maybe'"));
  run_tool(&r, "run", "--jit-threshold", "0", "prog", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "bad --jit-threshold '0'"));
  run_tool(&r, "run", "--jit-threshold", "65536", "prog", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "bad --jit-threshold '65536'"));
}

static void cli_bad_elf_exits_126_naming_the_problem(void) {
  char path[] = "/tmp/qua-notelf-XXXXXX";
  write_temp(path, "plain text\n", 11);
  tool_run_t r;
  run_tool(&r, "run", path, NULL);
  unlink(path);
  CU_ASSERT_EQUAL(r.status, 126);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "not an ELF file"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, path));
}

/* A program writing "hello\n" and exiting 33, in 8 instructions, in a new
 * temporary file at path; the caller unlinks it. */
static void write_hello(char *path) {
  uint32_t msg = ELF_VADDR + ELF_CODE_OFF + 13 * 2;
  const uint16_t code[] = {
      0x7201, /* moveq #1,d1 (stdout) */
      0x243C,        (uint16_t)(msg >> 16),
      (uint16_t)msg, /* move.l #msg,d2 */
      0x7606,        /* moveq #6,d3 */
      0x7004,        /* moveq #4,d0 (write) */
      0x4E40,        /* trap #0 */
      0x7221,        /* moveq #33,d1 */
      0x7001,        /* moveq #1,d0 (exit) */
      0x4E40,        /* trap #0 */
      0x4E71,        0x4E71,
      0x4E71, /* nop padding */
      0x6865,        0x6C6C,
      0x6F0A, /* "hello\n" */
  };
  uint8_t img[512];
  size_t n = make_elf(img, sizeof img, code, sizeof code / sizeof code[0]);
  write_temp(path, img, n);
}

static void cli_run_passes_stdout_and_exit_status(void) {
  char path[] = "/tmp/qua-prog-XXXXXX";
  write_hello(path);
  tool_run_t r;
  run_tool(&r, "run", path, NULL);
  CU_ASSERT_EQUAL(r.status, 33);
  CU_ASSERT_STRING_EQUAL(r.out, "hello\n");
  CU_ASSERT_STRING_EQUAL(r.err, "");
  run_tool(&r, "run", "--stats", "--mem", "2M", path, NULL);
  CU_ASSERT_EQUAL(r.status, 33);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "8 instructions"));
  /* Translated from the first run on (the highest threshold is accepted). */
  run_tool(&r, "run", "--jit=on", "--jit-threshold", "1", "--stats", path, NULL);
  CU_ASSERT_EQUAL(r.status, 33);
  CU_ASSERT_STRING_EQUAL(r.out, "hello\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "8 instructions"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "jit: 2 blocks translated (8 instructions"));
  run_tool(&r, "run", "--jit=on", "--jit-threshold", "65535", path, NULL);
  CU_ASSERT_EQUAL(r.status, 33);
  unlink(path);
}

/* The little-endian u32 and u64 at p (the jitdump is in the host's order). */
static uint32_t get32le(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t get64le(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* --jitdump DIR: DIR/jit-<pid>.dump has perf's header and one
 * JIT_CODE_LOAD record per block translated (--stats counts 2 here), each
 * named for its first instruction's address in the program, with its code;
 * the records fill the file exactly. A folder that cannot take the file is
 * an error naming it, before the program runs. */
static void cli_run_jitdump_describes_every_block(void) {
  char path[] = "/tmp/qua-prog-XXXXXX", dir[] = "/tmp/qua-jd-XXXXXX";
  write_hello(path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  tool_run_t r;
  run_tool(&r, "run", "--jit=on", "--jit-threshold", "1", "--stats", "--jitdump", dir, path,
           NULL);
  CU_ASSERT_EQUAL(r.status, 33);
  CU_ASSERT_STRING_EQUAL(r.out, "hello\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "jit: 2 blocks translated"));
  char file[4200] = "";
  DIR *dp = opendir(dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dp);
  int files = 0;
  for (struct dirent *e; (e = readdir(dp)) != NULL;)
    if (e->d_name[0] != '.') {
      files++;
      snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
    }
  closedir(dp);
  CU_ASSERT_EQUAL_FATAL(files, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(file, "/jit-"));
  static uint8_t buf[1 << 16];
  FILE *f = fopen(file, "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  CU_ASSERT_FATAL(n >= 40);
  CU_ASSERT_EQUAL(get32le(buf), 0x4A695444u); /* "JiTD" */
  CU_ASSERT_EQUAL(get32le(buf + 4), 1);       /* version */
  CU_ASSERT_EQUAL(get32le(buf + 8), 40);      /* header size */
  CU_ASSERT_EQUAL(get32le(buf + 12), 62);     /* EM_X86_64 */
  char want_file[64];
  snprintf(want_file, sizeof want_file, "/jit-%u.dump", get32le(buf + 20));
  CU_ASSERT_PTR_NOT_NULL(strstr(file, want_file));
  size_t at = 40;
  int loads = 0;
  while (at + 56 <= n) {
    const uint8_t *rec = buf + at;
    uint32_t size = get32le(rec + 4);
    CU_ASSERT_FATAL(size > 56 && at + size <= n);
    CU_ASSERT_EQUAL(get32le(rec), 0);                  /* JIT_CODE_LOAD */
    CU_ASSERT_EQUAL(get32le(rec + 16), get32le(buf + 20)); /* the pid */
    CU_ASSERT_EQUAL(get64le(rec + 24), get64le(rec + 32)); /* vma, code_addr */
    uint64_t code_size = get64le(rec + 40);
    CU_ASSERT_EQUAL(get64le(rec + 48), (uint64_t)loads); /* code_index */
    const char *name = (const char *)rec + 56;
    unsigned pc = 0;
    CU_ASSERT_EQUAL(sscanf(name, "m68k_%8x", &pc), 1);
    CU_ASSERT(pc >= ELF_VADDR + ELF_CODE_OFF && pc < ELF_VADDR + ELF_CODE_OFF + 20); /* its code */
    CU_ASSERT_EQUAL(size, 56 + strlen(name) + 1 + code_size);
    CU_ASSERT(code_size > 0);
    at += size;
    loads++;
  }
  CU_ASSERT_EQUAL(at, n);
  CU_ASSERT_EQUAL(loads, 2);
  unlink(file);
  rmdir(dir);
  run_tool(&r, "run", "--jitdump", "/nonexistent-qua-dir", path, NULL);
  CU_ASSERT_NOT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.out, "");
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "/nonexistent-qua-dir/jit-"));
  unlink(path);
}

static void cli_unsupported_syscall_exits_127_naming_it(void) {
  static const uint16_t code[] = {0x7002, 0x4E40}; /* moveq #2,d0; trap #0 (fork) */
  uint8_t img[256];
  size_t n = make_elf(img, sizeof img, code, 2);
  char path[] = "/tmp/qua-fork-XXXXXX";
  write_temp(path, img, n);
  tool_run_t r;
  run_tool(&r, "run", path, NULL);
  unlink(path);
  CU_ASSERT_EQUAL(r.status, 127);
  char want[128];
  snprintf(want, sizeof want, "quamachine: unsupported system call 2 (fork) at PC 0x%08x\n",
           ELF_VADDR + ELF_CODE_OFF + 2);
  CU_ASSERT_STRING_EQUAL(r.err, want);
}

/* Writes the image where both CPUs race to the halt port (who wins
 * depends on the schedule) to `path` and an empty file to `rec`. */
static void write_race(char *path, char *rec) {
  uint8_t img[256];
  size_t n = make_elf(img, sizeof img, halt_with_id, 10);
  write_temp(path, img, n);
  write_temp(rec, "", 0);
}

static void cli_smp_records_a_schedule_that_replays(void) {
  char path[] = "/tmp/qua-image-XXXXXX", rec[] = "/tmp/qua-rec-XXXXXX";
  write_race(path, rec);
  char spec[64];
  snprintf(spec, sizeof spec, "replay:%s", rec);
  tool_run_t r, again;
  for (int seed = 1; seed <= 40; seed++) {
    char sched[32];
    snprintf(sched, sizeof sched, "random:%d:2", seed);
    run_tool(&r, "smp", "--mem", "1M", "--schedule", sched, "--record", rec, path, NULL);
    CU_ASSERT(r.status == 100 || r.status == 101);
    run_tool(&again, "smp", "--mem", "1M", "--schedule", spec, path, NULL);
    CU_ASSERT_EQUAL(again.status, r.status);
  }
  run_tool(&r, "smp", "--mem", "1M", "--cpus", "1", "-v", path, NULL);
  CU_ASSERT_EQUAL(r.status, 100);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "wrote 100 to the halt port"));
  unlink(path);
  unlink(rec);
}

static void cli_smp_replays_inline_slices(void) {
  /* The recorded file, written inline as "slices:...", replays the same run. */
  char path[] = "/tmp/qua-image-XXXXXX", rec[] = "/tmp/qua-rec-XXXXXX";
  write_race(path, rec);
  tool_run_t r, again;
  for (int seed = 1; seed <= 20; seed++) {
    char sched[32], spec[512];
    snprintf(sched, sizeof sched, "random:%d:2", seed);
    run_tool(&r, "smp", "--mem", "1M", "--schedule", sched, "--record", rec, path, NULL);
    m68k_slice_t *s = NULL;
    size_t ns = 0;
    CU_ASSERT_EQUAL_FATAL(m68k_schedule_load(rec, &s, &ns), M68K_OK);
    CU_ASSERT_EQUAL_FATAL(m68k_schedule_format(s, ns, spec, sizeof spec), M68K_OK);
    free(s);
    run_tool(&again, "smp", "--mem", "1M", "--schedule", spec, path, NULL);
    CU_ASSERT_EQUAL(again.status, r.status);
    /* A later --schedule wins over an inline one. */
    run_tool(&again, "smp", "--mem", "1M", "--schedule", spec, "--schedule", sched, path, NULL);
    CU_ASSERT_EQUAL(again.status, r.status);
  }
  run_tool(&r, "smp", "--schedule", "slices:0x3,9x1", path, NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "bad schedule 'slices:0x3,9x1'"));
  run_tool(&r, "smp", "--mem", "1M", "--schedule", "slices:1x1", path, NULL);
  CU_ASSERT_EQUAL(r.status, 125); /* the schedule ran out */
  unlink(path);
  unlink(rec);
}

static void cli_help_and_version_on_every_spelling(void) {
  tool_run_t r;
  const char *help[] = {"help", "--help", "-h"};
  for (size_t i = 0; i < 3; i++) {
    run_tool(&r, help[i], NULL);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Usage: quamachine"));
  }
  run_tool(&r, "--version", NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "quamachine 0."));
  run_tool(&r, "-V", NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "quamachine 0."));
  run_tool(&r, "run", "--help", NULL);
  CU_ASSERT_EQUAL(r.status, 0);
}

static void cli_sst_says_what_is_wrong_with_its_folder(void) {
  tool_run_t r;
  run_tool(&r, "sst", "/nonexistent/m68k-sst", NULL);
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "/nonexistent/m68k-sst: No such file or directory"));
  CU_ASSERT_PTR_NULL(strstr(r.out, "SST total 0/0"));
  char dir[] = "/tmp/qua-sst-XXXXXX";
  CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
  run_tool(&r, "sst", dir, NULL);
  CU_ASSERT_EQUAL(r.status, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "has no test files (*.txt.gz)"));
  CU_ASSERT_STRING_EQUAL(r.out, "");
  /* The data are the 68000's: --cpu 68030 says so first. */
  run_tool(&r, "sst", "--cpu", "68030", dir, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "68000-only"));
  rmdir(dir);
}

/* Writes an image of `code` (at ELF_VADDR) to a temporary file `path`. */
static void write_image(char *path, const uint16_t *code, size_t nwords) {
  uint8_t img[256];
  size_t n = make_elf(img, sizeof img, code, nwords);
  write_temp(path, img, n);
}

static void cli_smp_stops_at_its_limit_and_says_so(void) {
  static const uint16_t spin[] = {0x60FE}; /* bra.s * */
  char path[] = "/tmp/qua-spin-XXXXXX";
  write_image(path, spin, 1);
  tool_run_t r;
  /* No --limit: the default ends a spinning image. */
  run_tool(&r, "smp", "--mem", "1M", path, NULL);
  CU_ASSERT_EQUAL(r.status, 125);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "instruction limit reached (100000000)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "smp's default limit"));
  run_tool(&r, "smp", "--mem", "1M", "--limit", "1000", path, NULL);
  CU_ASSERT_EQUAL(r.status, 125);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "instruction limit reached (1000)"));
  CU_ASSERT_PTR_NULL(strstr(r.err, "default"));
  unlink(path);
  /* At the edge: an image that halts after 2 instructions (of one CPU). */
  static const uint16_t halt7[] = {
      0x7007,                 /* moveq #7,d0 */
      0x23C0, 0xFFFF, 0xF00C, /* move.l d0,HALT */
      0x60FE,                 /* bra.s * */
  };
  char hpath[] = "/tmp/qua-halt7-XXXXXX";
  write_image(hpath, halt7, 5);
  run_tool(&r, "smp", "--mem", "1M", "--cpus", "1", "--limit", "2", hpath, NULL);
  CU_ASSERT_EQUAL(r.status, 7);
  run_tool(&r, "smp", "--mem", "1M", "--cpus", "1", "--limit", "1", hpath, NULL);
  CU_ASSERT_EQUAL(r.status, 125);
  unlink(hpath);
}

static void cli_smp_exits_with_the_halt_values_low_byte(void) {
  const uint32_t values[] = {255, 256, 400};
  const int want[] = {255, 0, 144};
  for (size_t i = 0; i < 3; i++) {
    const uint16_t code[] = {
        0x23FC, (uint16_t)(values[i] >> 16), (uint16_t)values[i], 0xFFFF, 0xF00C, /* move.l #v,HALT */
        0x60FE, /* bra.s * */
    };
    char path[] = "/tmp/qua-haltv-XXXXXX";
    write_image(path, code, 6);
    tool_run_t r;
    run_tool(&r, "smp", "--mem", "1M", "--cpus", "1", path, NULL);
    unlink(path);
    CU_ASSERT_EQUAL(r.status, want[i]);
    char note[96];
    snprintf(note, sizeof note, "halt value %u (0x%x): exit status %d, its low byte", values[i],
             values[i], want[i]);
    if (values[i] > 255) {
      CU_ASSERT_PTR_NOT_NULL(strstr(r.err, note));
    } else {
      CU_ASSERT_STRING_EQUAL(r.err, "");
    }
  }
}

static void cli_smp_image_outside_ram_names_the_linker_script(void) {
  static const uint16_t spin[] = {0x60FE};
  char path[] = "/tmp/qua-far-XXXXXX";
  write_image(path, spin, 1);
  tool_run_t r;
  run_tool(&r, "smp", "--mem", "64K", path, NULL); /* the image is at 64K */
  unlink(path);
  CU_ASSERT_EQUAL(r.status, 126);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "lies outside RAM"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "link with -T "));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "smp.ld"));
}

static void cli_run_on_the_68000_explains_68020_code(void) {
  static const uint16_t code[] = {
      0x49C0, /* extb.l d0: 68020 and later */
      0x7200, /* moveq #0,d1 */
      0x7001, /* moveq #1,d0 (exit) */
      0x4E40, /* trap #0 */
  };
  char path[] = "/tmp/qua-020-XXXXXX";
  write_image(path, code, 4);
  tool_run_t r;
  run_tool(&r, "run", path, NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  run_tool(&r, "run", "--cpu", "68000", path, NULL);
  CU_ASSERT_NOT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "is not 68000 code"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "static glibc is 68020 code"));
  unlink(path);
}

/* --cycles prints the total at exit: on the 68000 the chip's clocks (MOVEQ
 * 4, DBRA 10 taken and 14 expired, TRAP 34), on the 68030 the estimate,
 * each saying which. */
static void cli_run_cycles_prints_the_total_saying_which(void) {
  static const uint16_t code[] = {
      0x7002,         /* moveq #2,d0: 4 */
      0x51C8, 0xFFFE, /* dbra d0,self: 10 + 10 + 14 */
      0x7200,         /* moveq #0,d1: 4 */
      0x7001,         /* moveq #1,d0 (exit): 4 */
      0x4E40,         /* trap #0: 34 */
  };
  char path[] = "/tmp/qua-cyc-XXXXXX";
  write_image(path, code, sizeof code / sizeof code[0]);
  tool_run_t r;
  run_tool(&r, "run", "--cpu", "68000", "--cycles", path, NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "quamachine: 80 cycles (MC68000 clocks"));
  run_tool(&r, "run", "--cycles", path, NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "cycles (MC68030 estimate"));
  run_tool(&r, "run", "--cpu", "68000", path, NULL);
  CU_ASSERT_PTR_NULL(strstr(r.err, "cycles"));
  unlink(path);
}

static void errors_come_from_one_table(void) {
  CU_ASSERT_STRING_EQUAL(m68k_strerror(M68K_ENOTELF), "not an ELF file");
  CU_ASSERT_STRING_EQUAL(m68k_err_name(M68K_ETRUNCATED), "M68K_ETRUNCATED");
  CU_ASSERT_STRING_EQUAL(m68k_err_name(0), "M68K_OK");
  CU_ASSERT_STRING_EQUAL(m68k_strerror(-1), "unknown error");
}

int main(int argc, char **argv) {
  tool = argc > 1 ? argv[1] : NULL;
  static const qtest_case_t cli_cases[] = {
      {"cli_help_describes_every_command", cli_help_describes_every_command},
      {"cli_smp_replays_inline_slices", cli_smp_replays_inline_slices},
      {"cli_bad_usage_exits_2_with_a_message", cli_bad_usage_exits_2_with_a_message},
      {"cli_bad_elf_exits_126_naming_the_problem", cli_bad_elf_exits_126_naming_the_problem},
      {"cli_run_passes_stdout_and_exit_status", cli_run_passes_stdout_and_exit_status},
      {"cli_run_jitdump_describes_every_block", cli_run_jitdump_describes_every_block},
      {"cli_unsupported_syscall_exits_127_naming_it", cli_unsupported_syscall_exits_127_naming_it},
      {"cli_smp_records_a_schedule_that_replays", cli_smp_records_a_schedule_that_replays},
      {"cli_help_and_version_on_every_spelling", cli_help_and_version_on_every_spelling},
      {"cli_sst_says_what_is_wrong_with_its_folder", cli_sst_says_what_is_wrong_with_its_folder},
      {"cli_smp_stops_at_its_limit_and_says_so", cli_smp_stops_at_its_limit_and_says_so},
      {"cli_smp_exits_with_the_halt_values_low_byte", cli_smp_exits_with_the_halt_values_low_byte},
      {"cli_smp_image_outside_ram_names_the_linker_script",
       cli_smp_image_outside_ram_names_the_linker_script},
      {"cli_run_on_the_68000_explains_68020_code", cli_run_on_the_68000_explains_68020_code},
      {"cli_run_cycles_prints_the_total_saying_which",
       cli_run_cycles_prints_the_total_saying_which},
      {NULL, NULL},
  };
  static const qtest_case_t cases[] = {
      {"elf_rejects_a_file_that_is_not_elf", elf_rejects_a_file_that_is_not_elf},
      {"elf_rejects_a_truncated_header", elf_rejects_a_truncated_header},
      {"elf_rejects_a_truncated_segment", elf_rejects_a_truncated_segment},
      {"elf_rejects_a_segment_holding_the_last_address", elf_rejects_a_segment_holding_the_last_address},
      {"elf_rejects_the_wrong_machine", elf_rejects_the_wrong_machine},
      {"elf_rejects_the_host_executable", elf_rejects_the_host_executable},
      {"elf_rejects_little_endian_and_64_bit", elf_rejects_little_endian_and_64_bit},
      {"elf_rejects_dynamic_executables", elf_rejects_dynamic_executables},
      {"elf_open_of_a_missing_file_says_so", elf_open_of_a_missing_file_says_so},
      {"elf_load_refuses_segments_outside_ram", elf_load_refuses_segments_outside_ram},
      {"machine_create_rejects_bad_configs", machine_create_rejects_bad_configs},
      {"machine_huge_pages_advise_the_ram", machine_huge_pages_advise_the_ram},
      {"linux_exit_status_passes_through", linux_exit_status_passes_through},
      {"linux_initial_stack_is_as_linux_builds_it", linux_initial_stack_is_as_linux_builds_it},
      {"linux_unsupported_syscall_names_it_and_the_pc",
       linux_unsupported_syscall_names_it_and_the_pc},
      {"linux_unsupported_instruction_names_it_and_the_pc",
       linux_unsupported_instruction_names_it_and_the_pc},
      {"linux_write_reaches_the_file_descriptor", linux_write_reaches_the_file_descriptor},
      {"linux_brk_grows_the_heap_after_the_program", linux_brk_grows_the_heap_after_the_program},
      {"linux_syscall_names_come_from_the_table", linux_syscall_names_come_from_the_table},
      {"device_console_and_halt_port", device_console_and_halt_port},
      {"device_cpu_id_tells_the_cpus_apart", device_cpu_id_tells_the_cpus_apart},
      {"device_timer_interrupts_at_its_period", device_timer_interrupts_at_its_period},
      {"device_timer_wakes_a_stopped_cpu", device_timer_wakes_a_stopped_cpu},
      {"device_ipi_interrupts_the_other_cpu", device_ipi_interrupts_the_other_cpu},
      {"machine_reports_a_deadlock", machine_reports_a_deadlock},
      {"machine_reports_an_exception_without_handler",
       machine_reports_an_exception_without_handler},
      {"machine_stops_at_the_instruction_limit", machine_stops_at_the_instruction_limit},
      {"schedule_specs_parse", schedule_specs_parse},
      {"schedule_files_round_trip", schedule_files_round_trip},
      {"replay_that_runs_out_stops_the_machine", replay_that_runs_out_stops_the_machine},
      {"errors_come_from_one_table", errors_come_from_one_table},
      {NULL, NULL},
  };
  int rc = qtest_run("m68k-machine", cases);
  if (tool != NULL)
    rc |= qtest_run("m68k-machine-cli", cli_cases);
  return rc;
}
