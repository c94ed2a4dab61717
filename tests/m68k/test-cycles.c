/* test-cycles.c -- the core's MC68030 cycle estimates: on only when asked, per class, mode, branch
 * and MOVEM. */
#include "m68k-testutil.h"

static tm_t tm;

/* Cycles counted for one instruction (code at TM_CODE), a0 and a1 at data. */
static uint64_t cycles_of(const uint16_t *code, size_t n) {
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, code, n);
  tm_set_a(&tm, 0, 0x5000);
  tm_set_a(&tm, 1, 0x5100);
  m68k_set_cycle_count(tm.cpu, true);
  uint64_t c0 = m68k_cycles(tm.cpu);
  m68k_step(tm.cpu);
  uint64_t c = m68k_cycles(tm.cpu) - c0;
  tm_done(&tm);
  return c;
}

/* CAS 13 and CAS2 26: the figures of Massalin's thesis for the 68030. */
static void cas_and_cas2_cost_the_thesis_figures(void) {
  static const uint16_t cas_l[] = {0x0ed0, 0x0040};             /* cas.l d0,d1,(a0) */
  static const uint16_t cas2_l[] = {0x0efc, 0x8080, 0x90c1};    /* cas2.l ...,(a0):(a1) */
  CU_ASSERT_EQUAL(cycles_of(cas_l, 2), 13);
  CU_ASSERT_EQUAL(cycles_of(cas2_l, 3), 26);
}

/* Register forms cost the table's REG column; memory forms add the
 * addressing mode's fetch cost, a long immediate 2 more than a word. */
static void addressing_modes_add_their_cost(void) {
  static const uint16_t moveq[] = {0x7005};                     /* moveq #5,d0 */
  static const uint16_t move_rr[] = {0x2200};                   /* move.l d0,d1 */
  static const uint16_t move_mr[] = {0x2210};                   /* move.l (a0),d1 */
  static const uint16_t move_dr[] = {0x2228, 0x0010};           /* move.l 16(a0),d1 */
  static const uint16_t add_iw[] = {0x0640, 0x0001};            /* addi.w #1,d0 */
  static const uint16_t add_il[] = {0x0680, 0x0000, 0x0001};    /* addi.l #1,d0 */
  uint64_t rr = cycles_of(move_rr, 1);
  CU_ASSERT(cycles_of(moveq, 1) > 0);
  CU_ASSERT(cycles_of(move_mr, 1) > rr);
  CU_ASSERT(cycles_of(move_dr, 2) > cycles_of(move_mr, 1));
  CU_ASSERT_EQUAL(cycles_of(add_il, 3), cycles_of(add_iw, 2) + 2);
}

/* Bcc costs less falling through than branching; MOVEM pays per register. */
static void branches_and_movem_depend_on_what_they_do(void) {
  static const uint16_t beq[] = {0x6702}; /* beq.s +2 */
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, beq, 1);
  m68k_set_cycle_count(tm.cpu, true);
  tm_set_ccr(&tm, TM_Z);
  m68k_step(tm.cpu);
  uint64_t taken = m68k_cycles(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_CODE + 4);
  m68k_set_reg(tm.cpu, M68K_REG_PC, TM_CODE);
  tm_set_ccr(&tm, 0);
  m68k_step(tm.cpu);
  uint64_t fell = m68k_cycles(tm.cpu) - taken;
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_CODE + 2);
  CU_ASSERT(fell > 0 && fell < taken);
  tm_done(&tm);

  static const uint16_t movem2[] = {0x48e7, 0xc000}; /* movem.l d0-d1,-(sp) */
  static const uint16_t movem4[] = {0x48e7, 0xf000}; /* movem.l d0-d3,-(sp) */
  static const uint16_t move1[] = {0x2f00};          /* move.l d0,-(sp) */
  uint64_t two = cycles_of(movem2, 2), four = cycles_of(movem4, 2);
  CU_ASSERT(four > two);
  CU_ASSERT_EQUAL((four - two) % 2, 0);
  CU_ASSERT(cycles_of(move1, 1) > 0);
}

/* Off by default: nothing is counted, and the CAS counters count anyway. */
static void counting_is_off_unless_asked(void) {
  static const uint16_t cas2_l[] = {0x0efc, 0x8080, 0x90c1};
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, cas2_l, 3);
  tm_set_a(&tm, 0, 0x5000);
  tm_set_a(&tm, 1, 0x5100);
  CU_ASSERT_FALSE(m68k_cycle_counting(tm.cpu));
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 0);
  CU_ASSERT_EQUAL(m68k_cas_executed(tm.cpu, 2), 1);
  CU_ASSERT_EQUAL(m68k_cas_executed(tm.cpu, 1), 0);
  CU_ASSERT_EQUAL(m68k_cas_executed(tm.cpu, 3), 0);
  tm_done(&tm);
}

int main(void) {
  static const tm_case_t cases[] = {
      {"cas_and_cas2_cost_the_thesis_figures", cas_and_cas2_cost_the_thesis_figures},
      {"addressing_modes_add_their_cost", addressing_modes_add_their_cost},
      {"branches_and_movem_depend_on_what_they_do", branches_and_movem_depend_on_what_they_do},
      {"counting_is_off_unless_asked", counting_is_off_unless_asked},
  };
  return tm_run_suite("m68k-cycles", cases, sizeof cases / sizeof cases[0]);
}
