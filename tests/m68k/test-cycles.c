/* test-cycles.c -- the core's MC68030 cycle estimates: on only when asked, per class, mode, branch
 * and MOVEM. */
#include <inttypes.h>

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

/* Rows of m68k-cycles.tab against the MC68030 User's Manual (third
 * edition), section 11.6, instruction-cache-case column: the operation's
 * figure plus its effective address's, composed without overlap. */
static void cache_case_figures_match_the_manual(void) {
  static const struct {
    const char *what, *source;
    uint16_t code[4];
    size_t n;
    uint64_t want;
  } rows[] = {
      {"moveq #5,d0", "11.6.9 MOVEQ", {0x7005}, 1, 2},
      {"move.l d0,d1", "11.6.6 MOVE Rn,Dn", {0x2200}, 1, 2},
      {"move.l d0,(a0)", "11.6.6 MOVE Rn,(An)", {0x2080}, 1, 3},
      {"move.l d0,(a0)+", "11.6.6 MOVE Rn,(An)+", {0x20c0}, 1, 3},
      {"move.l d0,-(a0)", "11.6.6 MOVE Rn,-(An)", {0x2100}, 1, 4},
      {"move.l (a0),d1", "11.6.6 MOVE <ea>,Rn 2 + 11.6.1 fea (An) 3", {0x2210}, 1, 5},
      {"move.l $5000.l,d1", "11.6.6 MOVE <ea>,Rn 2 + 11.6.1 fea (xxx).L 4",
       {0x2239, 0x0000, 0x5000}, 3, 6},
      {"add.l d0,d1", "11.6.8 ADD Rn,Dn", {0xd280}, 1, 2},
      {"add.l -(a0),d1", "11.6.8 ADD <ea>,Dn 2 + 11.6.1 fea -(An) 4", {0xd2a0}, 1, 6},
      {"add.l d0,(a0)", "11.6.8 ADD Dn,<ea> 3 + 11.6.1 fea (An) 3 (the 11.3.4 example: 6)",
       {0xd190}, 1, 6},
      {"adda.l d0,a1", "11.6.8 ADDA.L Rn,An", {0xd3c0}, 1, 2},
      {"clr.l d0", "11.6.11 CLR Dn", {0x4280}, 1, 2},
      {"tst.l d0", "11.6.11 TST Dn", {0x4a80}, 1, 2},
      {"ext.l d0", "11.6.11 EXT Dn", {0x48c0}, 1, 4},
      {"nop", "11.6.16 NOP", {0x4e71}, 1, 2},
      {"rts", "11.6.16 RTS", {0x4e75}, 1, 9},
      {"link.w a6,#-8", "11.6.16 LINK.W", {0x4e56, 0xfff8}, 2, 4},
      {"unlk a6", "11.6.16 UNLK", {0x4e5e}, 1, 5},
      {"bra.s +2", "11.6.15 Bcc taken", {0x6002}, 1, 6},
      {"cas.l d0,d1,$5000.l", "thesis 13 + 11.6.4 ciea (xxx).L 6 less (An) 2",
       {0x0ef9, 0x0040, 0x0000, 0x5000}, 4, 17},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint64_t got = cycles_of(rows[i].code, rows[i].n);
    if (got != rows[i].want)
      fprintf(stderr, "%s: %" PRIu64 " cycles, the manual's %s gives %" PRIu64 "\n", rows[i].what,
              got, rows[i].source, rows[i].want);
    CU_ASSERT_EQUAL(got, rows[i].want);
  }
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
      {"cache_case_figures_match_the_manual", cache_case_figures_match_the_manual},
      {"counting_is_off_unless_asked", counting_is_off_unless_asked},
  };
  return tm_run_suite("m68k-cycles", cases, sizeof cases / sizeof cases[0]);
}
