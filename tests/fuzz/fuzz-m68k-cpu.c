/* fuzz-m68k-cpu.c -- fuzz harness: random instruction words through the 68k decoder and execution.
 *
 * Input: a flags byte (bit 0: a 68030, else a 68000; bit 1: cycle counting on; bits 4-7: 0-15
 * instructions to run after the first), the status register (2 bytes, big-endian), 32 bytes
 * of code placed at 0x1000, then D0-D7 and A0-A7 (4 bytes each, big-endian; what the input
 * does not give is 0 for data registers and an address inside RAM for address registers).
 * The CPU has 64 KiB of RAM at 0 and a bus error everywhere else; its vectors point at RTEs.
 * It disassembles the code, executes one instruction, then up to 15 more: whatever the
 * words, the host goes on (no crash, no sanitizer report) and the CPU's count is exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "m68k.h"

#define RAM_SIZE 65536u
#define CODE 0x1000u
#define CODE_BYTES 32u
#define HANDLERS 0x3000u /* vector n points at HANDLERS + 2 n: an RTE */
#define STACK 0x8000u

static uint8_t ram[RAM_SIZE];

static bool no_read8(void *ctx, uint32_t a, unsigned fc, uint8_t *v) { return false; }
static bool no_read16(void *ctx, uint32_t a, unsigned fc, uint16_t *v) { return false; }
static bool no_read32(void *ctx, uint32_t a, unsigned fc, uint32_t *v) { return false; }
static bool no_write8(void *ctx, uint32_t a, unsigned fc, uint8_t v) { return false; }
static bool no_write16(void *ctx, uint32_t a, unsigned fc, uint16_t v) { return false; }
static bool no_write32(void *ctx, uint32_t a, unsigned fc, uint32_t v) { return false; }

static void put16(uint32_t a, uint16_t v) {
  ram[a] = (uint8_t)(v >> 8);
  ram[a + 1] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3)
    return 0;
  uint8_t flags = data[0];
  uint16_t sr = (uint16_t)(data[1] << 8 | data[2]);
  data += 3;
  size -= 3;
  memset(ram, 0, sizeof ram);
  for (uint32_t v = 0; v < 256; v++) {
    put16(v * 4, 0);
    put16(v * 4 + 2, (uint16_t)(HANDLERS + 2 * v));
    put16(HANDLERS + 2 * v, 0x4E73); /* RTE */
  }
  size_t ncode = size < CODE_BYTES ? size : CODE_BYTES;
  memcpy(ram + CODE, data, ncode);
  data += ncode;
  size -= ncode;

  m68k_bus_t bus = {.ram = ram, .ram_base = 0, .ram_size = RAM_SIZE,
                    .read8 = no_read8, .read16 = no_read16, .read32 = no_read32,
                    .write8 = no_write8, .write16 = no_write16, .write32 = no_write32};
  m68k_model_t model = flags & 1 ? M68K_MODEL_68030 : M68K_MODEL_68000;
  m68k_cpu_t *cpu = m68k_create(model, &bus);
  CHECK(cpu != NULL);
  m68k_set_reg(cpu, M68K_REG_SR, 0x2700);
  m68k_set_reg(cpu, M68K_REG_ISP, STACK);
  m68k_set_reg(cpu, M68K_REG_MSP, STACK - 0x400);
  m68k_set_reg(cpu, M68K_REG_USP, STACK - 0x800);
  for (int r = 0; r < 16; r++) {
    uint32_t v = r < 8 ? 0 : 0x4000u + 0x100u * (uint32_t)(r - 8);
    if (size >= 4) {
      v = get32(data);
      data += 4;
      size -= 4;
    }
    m68k_set_reg(cpu, (m68k_reg_t)(M68K_REG_D0 + r), v); /* A7: the ISP, until SR is set */
  }
  m68k_set_reg(cpu, M68K_REG_SR, sr); /* picks the stack pointer of its mode */
  m68k_set_reg(cpu, M68K_REG_PC, CODE);
  m68k_set_cycle_count(cpu, (flags & 2) != 0);

  char text[128];
  for (uint32_t a = CODE, end = CODE + CODE_BYTES; a < end;) {
    int n = m68k_disassemble(cpu, a, text, sizeof text);
    CHECK(n >= 2 && n % 2 == 0 && strlen(text) < sizeof text);
    a += (uint32_t)n;
  }
  uint64_t before = m68k_instructions(cpu), done = 0;
  m68k_stop_t st = m68k_step(cpu);
  CHECK(st == M68K_STOP_NONE || st == M68K_STOP_STOPPED || st == M68K_STOP_HALTED);
  uint64_t more = flags >> 4;
  if (st == M68K_STOP_NONE && more > 0) {
    st = m68k_run(cpu, more, &done);
    CHECK(done <= more);
    CHECK(st != M68K_STOP_NONE || done == more);
  }
  CHECK(m68k_instructions(cpu) - before <= 1 + done);
  m68k_disassemble(cpu, m68k_get_reg(cpu, M68K_REG_PC), text, sizeof text);
  m68k_destroy(cpu);
  return 0;
}
