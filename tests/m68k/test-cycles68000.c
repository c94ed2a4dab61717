/* test-cycles68000.c -- the 68000 model's clock counts: the MC68000 User's Manual's figures for the data-dependent instructions, exceptions and interrupts, without the single-step data. */
#include "m68k-testutil.h"

static tm_t tm;

/* Starts a 68000 at `code` with cycle counting on; d0 = d0v, d1 = d1v, a0
 * = a0v. */
static void start(const uint16_t *code, size_t n, uint32_t d0v, uint32_t d1v, uint32_t a0v)
{
  tm_init(&tm, M68K_MODEL_68000);
  tm_code(&tm, code, n);
  tm_set_d(&tm, 0, d0v);
  tm_set_d(&tm, 1, d1v);
  tm_set_a(&tm, 0, a0v);
  m68k_set_cycle_count(tm.cpu, true);
}

/* The clocks of the first instruction of `code` run with CCR = ccr. */
static uint64_t clocks_ccr(const uint16_t *code, size_t n, uint32_t d0v, uint32_t ccr)
{
  start(code, n, d0v, 0, 0x5000);
  tm_set_ccr(&tm, ccr);
  m68k_step(tm.cpu);
  uint64_t c = m68k_cycles(tm.cpu);
  tm_done(&tm);
  return c;
}

/* The clocks of the first instruction of `code`. */
static uint64_t clocks(const uint16_t *code, size_t n, uint32_t d0v, uint32_t d1v)
{
  start(code, n, d0v, d1v, 0x5000);
  m68k_step(tm.cpu);
  uint64_t c = m68k_cycles(tm.cpu);
  tm_done(&tm);
  return c;
}

/* MULU: 38 + 2 per one bit of the source; MULS: 38 + 2 per 01 or 10 pair
 * of the source with a 0 below it (Table 8-4), plus #imm's 4. */
static void multiply_costs_two_clocks_per_bit_or_pair(void)
{
  static const uint16_t mulu0[] = {0xC0FC, 0x0000};  /* mulu.w #0,d0 */
  static const uint16_t muluf[] = {0xC0FC, 0xFFFF};  /* mulu.w #$ffff,d0 */
  static const uint16_t muls5[] = {0xC1FC, 0x5555};  /* muls.w #$5555,d0 */
  static const uint16_t mulsf[] = {0xC1FC, 0xFFFF};  /* muls.w #$ffff,d0: one pair */
  CU_ASSERT_EQUAL(clocks(mulu0, 2, 7, 0), 42);
  CU_ASSERT_EQUAL(clocks(muluf, 2, 7, 0), 74);
  CU_ASSERT_EQUAL(clocks(muls5, 2, 7, 0), 74);
  CU_ASSERT_EQUAL(clocks(mulsf, 2, 7, 0), 44);
}

/* DIVU: at most 140 clocks with Dn (the manual's figure, here 136 and #imm's
 * 4 when every step takes the long path, a zero quotient); an overflowing
 * quotient stops after 10; a zero divisor traps in 38 + the EA. */
static void divide_costs_by_its_steps(void)
{
  static const uint16_t divu1[] = {0x80FC, 0x0001}; /* divu.w #1,d0 */
  static const uint16_t divu0[] = {0x80FC, 0x0000}; /* divu.w #0,d0 */
  CU_ASSERT_EQUAL(clocks(divu1, 2, 0, 0), 140);
  CU_ASSERT_EQUAL(clocks(divu1, 2, 0x10000, 0), 14);
  CU_ASSERT_EQUAL(clocks(divu0, 2, 5, 0), 42);
}

/* A register shift costs 6 (8 for a long) + 2 per bit shifted: the count in
 * Dn is taken modulo 64. */
static void shifts_cost_two_clocks_per_count(void)
{
  static const uint16_t lsl_l[] = {0xE3A8}; /* lsl.l d1,d0 */
  static const uint16_t asr_w[] = {0xE040}; /* asr.w #8,d0 */
  CU_ASSERT_EQUAL(clocks(lsl_l, 1, 0, 63), 134);
  CU_ASSERT_EQUAL(clocks(lsl_l, 1, 0, 64), 8);
  CU_ASSERT_EQUAL(clocks(lsl_l, 1, 0, 65), 10);
  CU_ASSERT_EQUAL(clocks(asr_w, 1, 0, 0), 22);
}

/* Bcc: 10 taken, 8 (byte) or 12 (word) not; DBcc: 12 when the condition
 * holds, 10 when it loops, 14 when the counter runs out (Table 8-9). */
static void branches_cost_by_whether_they_branch(void)
{
  static const uint16_t beq_b[] = {0x6702};         /* beq.s +2 */
  static const uint16_t beq_w[] = {0x6700, 0x0002}; /* beq.w +2 */
  static const uint16_t dbra[] = {0x51C8, 0xFFFE};  /* dbra d0,* */
  static const uint16_t dbeq[] = {0x57C8, 0xFFFE};  /* dbeq d0,* */
  CU_ASSERT_EQUAL(clocks_ccr(beq_b, 1, 0, 0), 8);
  CU_ASSERT_EQUAL(clocks_ccr(beq_w, 2, 0, 0), 12);
  CU_ASSERT_EQUAL(clocks_ccr(beq_b, 1, 0, TM_Z), 10);
  CU_ASSERT_EQUAL(clocks_ccr(dbra, 2, 5, 0), 10);
  CU_ASSERT_EQUAL(clocks_ccr(dbra, 2, 0, 0), 14);
  CU_ASSERT_EQUAL(clocks_ccr(dbeq, 2, 5, TM_Z), 12);
  CU_ASSERT_EQUAL(clocks_ccr(dbeq, 2, 5, 0), 10);
}

/* MOVEM: the mode's base + 4 per word register, 8 per long one. */
static void movem_costs_per_register(void)
{
  static const uint16_t push[] = {0x48E7, 0xFFFE}; /* movem.l d0-d7/a0-a6,-(sp) */
  static const uint16_t pop[] = {0x4C98, 0x000F};  /* movem.w (a0)+,d0-d3 */
  static const uint16_t none[] = {0x4C98, 0x0000}; /* movem.w (a0)+,<none> */
  CU_ASSERT_EQUAL(clocks(push, 2, 0, 0), 8 + 15 * 8);
  CU_ASSERT_EQUAL(clocks(pop, 2, 0, 0), 12 + 4 * 4);
  CU_ASSERT_EQUAL(clocks(none, 2, 0, 0), 12);
}

/* Exceptions replace the instruction's time by their own: TRAP and
 * ILLEGAL 34; CHK 38 + EA above the bound, 40 + EA below zero, 10 + EA
 * within; a word read at an odd address 58 at the first access. */
static void exceptions_cost_their_processing(void)
{
  static const uint16_t trap[] = {0x4E40};     /* trap #0 */
  static const uint16_t illegal[] = {0x4AFC};  /* illegal */
  static const uint16_t chk[] = {0x4181};      /* chk.w d1,d0 */
  static const uint16_t odd[] = {0x3010};      /* move.w (a0),d0 */
  static const uint16_t odd16[] = {0x3028, 0x0001}; /* move.w 1(a0),d0 */
  CU_ASSERT_EQUAL(clocks(trap, 1, 0, 0), 34);
  CU_ASSERT_EQUAL(clocks(illegal, 1, 0, 0), 34);
  CU_ASSERT_EQUAL(clocks(chk, 1, 5, 10), 10);
  CU_ASSERT_EQUAL(clocks(chk, 1, 11, 10), 38);
  CU_ASSERT_EQUAL(clocks(chk, 1, 0xFFFF, 10), 40);
  start(odd, 1, 0, 0, 0x5001);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 58);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 3 * 4);
  tm_done(&tm);
  start(odd16, 2, 0, 0, 0x5000); /* the d16 word is fetched first: 4 more */
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 62);
  tm_done(&tm);
}

/* An interrupt taken between instructions costs 44, a trace exception 34,
 * added to the instructions' own; the handlers here start with ORI.B #0,D0
 * (zeroed RAM: 8 clocks), which the same step runs. */
static void interrupts_and_trace_add_their_processing(void)
{
  static const uint16_t nops[] = {0x4E71, 0x4E71}; /* nop; nop */
  start(nops, 2, 0, 0, 0);
  m68k_set_reg(tm.cpu, M68K_REG_SR, 0x2000); /* interrupts unmasked */
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 4);
  m68k_set_irq(tm.cpu, 3);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 4 + 44 + 8);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 27 * 4 + 4);
  tm_done(&tm);

  start(nops, 2, 0, 0, 0);
  m68k_set_reg(tm.cpu, M68K_REG_SR, 0xA700); /* T1: trace every instruction */
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 4);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 4 + 34 + 8);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 9 * 4 + 4);
  tm_done(&tm);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"multiply_costs_two_clocks_per_bit_or_pair", multiply_costs_two_clocks_per_bit_or_pair},
      {"divide_costs_by_its_steps", divide_costs_by_its_steps},
      {"shifts_cost_two_clocks_per_count", shifts_cost_two_clocks_per_count},
      {"branches_cost_by_whether_they_branch", branches_cost_by_whether_they_branch},
      {"movem_costs_per_register", movem_costs_per_register},
      {"exceptions_cost_their_processing", exceptions_cost_their_processing},
      {"interrupts_and_trace_add_their_processing", interrupts_and_trace_add_their_processing},
  };
  return tm_run_suite("cycles68000", cases, sizeof(cases) / sizeof(cases[0]));
}
