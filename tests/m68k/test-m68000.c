/* test-m68000.c -- 68000 corners: what an address error on an odd write leaves
 * (registers, flags, the 7-word frame) for MOVE, MOVEM and CMPM, and the
 * ABCD and CHK flag rules, as MAME's microcoded 68000 shows them in the
 * SingleStepTests data. These run without that data. */
#include "m68k-testutil.h"

#define DATA 0x5000u

static tm_t tm;

static void start(const uint16_t *code, size_t n)
{
  tm_init(&tm, M68K_MODEL_68000);
  tm_code(&tm, code, n);
}

/* The 68000 group 0 frame at A7: status word, access address, IR, SR, PC. */
static void check_frame(uint32_t addr, uint16_t ir, uint32_t pc, bool write)
{
  uint32_t sp = tm_a(&tm, 7);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 3 * 4);
  CU_ASSERT_EQUAL(sp, TM_STACK - 14);
  /* IR's high bits, R/W (1 read), I/N clear, FC 5 (supervisor data) */
  CU_ASSERT_EQUAL(tm_r16(&tm, sp), (ir & 0xffe0) | (write ? 0 : 0x10) | 5);
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 2), addr);
  CU_ASSERT_EQUAL(tm_r16(&tm, sp + 6), ir);
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 10), pc);
}

static uint32_t stacked_ccr(void)
{
  return tm_r16(&tm, tm_a(&tm, 7) + 8) & 0x1f;
}

static void move_long_odd_write_from_register_to_indirect_keeps_flags(void)
{
  static const uint16_t code[] = {0x2080, 0x4e71}; /* move.l %d0,(%a0); nop */
  start(code, 2);
  tm_set_a(&tm, 0, DATA + 1);
  tm_set_d(&tm, 0, 0x12345678u);
  tm_set_ccr(&tm, TM_X | TM_N | TM_Z | TM_C);
  m68k_step(tm.cpu);
  check_frame(DATA + 1, 0x2080, TM_CODE + 4, true);
  CU_ASSERT_EQUAL(stacked_ccr(), TM_X | TM_N | TM_Z | TM_C);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0); /* nothing written */
  tm_done(&tm);
}

static void move_long_odd_write_from_memory_sets_flags_from_low_word(void)
{
  static const uint16_t code[] = {0x2091}; /* move.l (%a1),(%a0) */
  start(code, 1);
  tm_set_a(&tm, 0, DATA + 1);
  tm_set_a(&tm, 1, DATA + 0x100);
  tm_w32(&tm, DATA + 0x100, 0x80000001u);
  tm_set_ccr(&tm, TM_V | TM_C | TM_Z);
  m68k_step(tm.cpu);
  check_frame(DATA + 1, 0x2091, TM_CODE + 4, true);
  CU_ASSERT_EQUAL(stacked_ccr(), 0); /* 0x0001: not negative, not zero */
  tm_done(&tm);
}

static void move_long_odd_predecrement_faults_on_low_word_and_keeps_an(void)
{
  static const uint16_t code[] = {0x2100}; /* move.l %d0,-(%a0) */
  start(code, 1);
  tm_set_a(&tm, 0, DATA + 9);
  tm_set_d(&tm, 0, 0x80000000u);
  tm_set_ccr(&tm, TM_V | TM_C);
  m68k_step(tm.cpu);
  check_frame(DATA + 7, 0x2100, TM_CODE + 4, true);
  CU_ASSERT_EQUAL(tm_a(&tm, 0), DATA + 9);
  CU_ASSERT_EQUAL(stacked_ccr(), TM_N);
  tm_done(&tm);
}

static void move_long_odd_displacement_write_sets_n_z_from_high_word(void)
{
  static const uint16_t code[] = {0x2140, 0x0010}; /* move.l %d0,16(%a0) */
  start(code, 2);
  tm_set_a(&tm, 0, DATA + 1);
  tm_set_d(&tm, 0, 0x00008000u); /* high word zero: Z stays as it was */
  tm_set_ccr(&tm, TM_N | TM_V | TM_C);
  m68k_step(tm.cpu);
  check_frame(DATA + 17, 0x2140, TM_CODE + 4, true);
  CU_ASSERT_EQUAL(stacked_ccr(), TM_V | TM_C);
  tm_done(&tm);
}

static void move_word_odd_postincrement_write_keeps_an(void)
{
  static const uint16_t code[] = {0x30c0}; /* move.w %d0,(%a0)+ */
  start(code, 1);
  tm_set_a(&tm, 0, DATA + 1);
  tm_set_d(&tm, 0, 0x8000);
  m68k_step(tm.cpu);
  check_frame(DATA + 1, 0x30c0, TM_CODE + 4, true);
  CU_ASSERT_EQUAL(tm_a(&tm, 0), DATA + 1);
  CU_ASSERT_EQUAL(stacked_ccr(), TM_N);
  tm_done(&tm);
}

static void move_word_odd_predecrement_stacks_next_opcode_as_ir(void)
{
  static const uint16_t code[] = {0x3100, 0x4e71}; /* move.w %d0,-(%a0); nop */
  start(code, 2);
  tm_set_a(&tm, 0, DATA + 3);
  m68k_step(tm.cpu);
  check_frame(DATA + 1, 0x4e71, TM_CODE + 4, true); /* the prefetched nop */
  CU_ASSERT_EQUAL(tm_a(&tm, 0), DATA + 1);
  CU_ASSERT_EQUAL(stacked_ccr(), TM_Z);
  tm_done(&tm);
}

static void move_memory_to_odd_absolute_long_stacks_pc_before_second_word(void)
{
  static const uint16_t code[] = {0x23d1, 0x0000, 0x5001}; /* move.l (%a1),0x5001 */
  start(code, 3);
  tm_set_a(&tm, 1, DATA + 0x100);
  tm_w32(&tm, DATA + 0x100, 0x0000ffffu);
  m68k_step(tm.cpu);
  check_frame(DATA + 1, 0x23d1, TM_CODE + 4, true);
  CU_ASSERT_EQUAL(stacked_ccr(), TM_N); /* from the low word 0xffff */
  tm_done(&tm);
}

static void movem_long_odd_predecrement_faults_at_an_minus_2(void)
{
  static const uint16_t code[] = {0x48e0, 0xc000}; /* movem.l %d0-%d1,-(%a0) */
  start(code, 2);
  tm_set_a(&tm, 0, DATA + 0x21);
  m68k_step(tm.cpu);
  check_frame(DATA + 0x1f, 0x48e0, TM_CODE + 6, true);
  CU_ASSERT_EQUAL(tm_a(&tm, 0), DATA + 0x21);
  tm_done(&tm);
}

static void cmpm_odd_source_advances_ay_by_2_odd_destination_keeps_ax(void)
{
  static const uint16_t code_l[] = {0xb388}; /* cmpm.l (%a0)+,(%a1)+ */
  start(code_l, 1);
  tm_set_a(&tm, 0, DATA + 1);
  tm_set_a(&tm, 1, DATA + 0x100);
  m68k_step(tm.cpu);
  check_frame(DATA + 1, 0xb388, TM_CODE + 4, false);
  CU_ASSERT_EQUAL(tm_a(&tm, 0), DATA + 3);
  CU_ASSERT_EQUAL(tm_a(&tm, 1), DATA + 0x100);
  tm_done(&tm);

  static const uint16_t code_w[] = {0xb348}; /* cmpm.w (%a0)+,(%a1)+ */
  start(code_w, 1);
  tm_set_a(&tm, 0, DATA);
  tm_set_a(&tm, 1, DATA + 0x101);
  m68k_step(tm.cpu);
  check_frame(DATA + 0x101, 0xb348, TM_CODE + 4, false);
  CU_ASSERT_EQUAL(tm_a(&tm, 0), DATA + 2);
  CU_ASSERT_EQUAL(tm_a(&tm, 1), DATA + 0x101);
  tm_done(&tm);
}

static void abcd_corrects_high_digit_only_above_9f(void)
{
  static const uint16_t code[] = {0xc101, 0xc101}; /* abcd %d1,%d0 (twice) */
  start(code, 2);
  tm_set_d(&tm, 0, 0x4a);
  tm_set_d(&tm, 1, 0x4a);
  tm_set_ccr(&tm, TM_X | TM_Z);
  m68k_step(tm.cpu); /* 0x95 binary, low digit corrected: 0x9b, no carry */
  CU_ASSERT_EQUAL(tm_d(&tm, 0) & 0xff, 0x9b);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N);
  tm_set_d(&tm, 0, 0x99);
  tm_set_d(&tm, 1, 0x01);
  m68k_step(tm.cpu); /* plain BCD: 99 + 1 = 00, carry */
  CU_ASSERT_EQUAL(tm_d(&tm, 0) & 0xff, 0x00);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_X | TM_C);
  tm_done(&tm);
}

static void chk_in_bounds_clears_n(void)
{
  static const uint16_t code[] = {0x4181}; /* chk.w %d1,%d0 */
  start(code, 1);
  tm_set_d(&tm, 0, 5);
  tm_set_d(&tm, 1, 10);
  tm_set_ccr(&tm, TM_X | TM_N | TM_Z | TM_V | TM_C);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_CODE + 2); /* no trap */
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_X);
  tm_done(&tm);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"move_long_odd_write_from_register_to_indirect_keeps_flags",
       move_long_odd_write_from_register_to_indirect_keeps_flags},
      {"move_long_odd_write_from_memory_sets_flags_from_low_word",
       move_long_odd_write_from_memory_sets_flags_from_low_word},
      {"move_long_odd_predecrement_faults_on_low_word_and_keeps_an",
       move_long_odd_predecrement_faults_on_low_word_and_keeps_an},
      {"move_long_odd_displacement_write_sets_n_z_from_high_word",
       move_long_odd_displacement_write_sets_n_z_from_high_word},
      {"move_word_odd_postincrement_write_keeps_an", move_word_odd_postincrement_write_keeps_an},
      {"move_word_odd_predecrement_stacks_next_opcode_as_ir",
       move_word_odd_predecrement_stacks_next_opcode_as_ir},
      {"move_memory_to_odd_absolute_long_stacks_pc_before_second_word",
       move_memory_to_odd_absolute_long_stacks_pc_before_second_word},
      {"movem_long_odd_predecrement_faults_at_an_minus_2",
       movem_long_odd_predecrement_faults_at_an_minus_2},
      {"cmpm_odd_source_advances_ay_by_2_odd_destination_keeps_ax",
       cmpm_odd_source_advances_ay_by_2_odd_destination_keeps_ax},
      {"abcd_corrects_high_digit_only_above_9f", abcd_corrects_high_digit_only_above_9f},
      {"chk_in_bounds_clears_n", chk_in_bounds_clears_n},
  };
  return tm_run_suite("m68000", cases, sizeof(cases) / sizeof(cases[0]));
}
