/* test-cycles.c -- the core's MC68030 cycle estimates: on only when asked, per class, mode, branch
 * and MOVEM, and the overlap of consecutive instructions checked against the manual's examples. */
#include <inttypes.h>

#include "m68k-testutil.h"
#include "m68k-timing.h"

static tm_t tm;

/* Cycles counted for the first `steps` instructions of `code` (at TM_CODE),
 * a0 and a1 at data, a3 and a6 too. */
static uint64_t cycles_of_run(const uint16_t *code, size_t n, int steps) {
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, code, n);
  tm_set_a(&tm, 0, 0x5000);
  tm_set_a(&tm, 1, 0x5100);
  tm_set_a(&tm, 3, 0x5300);
  tm_set_a(&tm, 6, 0x5600);
  m68k_set_cycle_count(tm.cpu, true);
  uint64_t c0 = m68k_cycles(tm.cpu);
  for (int i = 0; i < steps; i++)
    m68k_step(tm.cpu);
  uint64_t c = m68k_cycles(tm.cpu) - c0;
  tm_done(&tm);
  return c;
}

/* Cycles counted for one instruction. */
static uint64_t cycles_of(const uint16_t *code, size_t n) {
  return cycles_of_run(code, n, 1);
}

/* CAS and CAS2 cost the manual's figures (11.6.16): CAS 13 when it
 * succeeds, 11 when it fails, after its calculate-immediate-EA component
 * (11.6.4 #.W,(An): 2); CAS2 24 either way (the table's maximum). Massalin's
 * thesis quotes 13 and 26: CAS's operation alone and CAS2's no-cache case. */
static void cas_and_cas2_cost_the_manuals_figures(void) {
  static const uint16_t cas_l[] = {0x0ed0, 0x0040};             /* cas.l d0,d1,(a0) */
  static const uint16_t cas2_l[] = {0x0efc, 0x8080, 0x90c1};    /* cas2.l ...,(a0):(a1) */
  CU_ASSERT_EQUAL(cycles_of(cas_l, 2), 15); /* memory and d0 both 0: it succeeds */
  CU_ASSERT_EQUAL(cycles_of(cas2_l, 3), 24);

  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, cas_l, 2);
  tm_set_a(&tm, 0, 0x5000);
  tm_set_d(&tm, 0, 1); /* memory holds 0: the compare fails */
  m68k_set_cycle_count(tm.cpu, true);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(m68k_cycles(tm.cpu), 13);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 0);
  tm_done(&tm);
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

/* Instructions and the cycles the manual gives them (`source` says how). */
typedef struct run {
  const char *what, *source;
  uint16_t code[4];
  size_t n;
  uint64_t want;
} run_t;

/* Runs the first `steps` instructions of each and compares. */
static void check_runs(const run_t *runs, size_t count, int steps) {
  for (size_t i = 0; i < count; i++) {
    uint64_t got = cycles_of_run(runs[i].code, runs[i].n, steps);
    if (got != runs[i].want)
      fprintf(stderr, "%s: %" PRIu64 " cycles, the manual's %s gives %" PRIu64 "\n", runs[i].what,
              got, runs[i].source, runs[i].want);
    CU_ASSERT_EQUAL(got, runs[i].want);
  }
}

/* Rows of m68k-cycles.tab against the MC68030 User's Manual (third
 * edition), section 11.6, instruction-cache-case column: one instruction
 * alone (nothing before it to overlap), its effective address's component
 * composed with its operation by Equation 11-2. */
static void cache_case_figures_match_the_manual(void) {
  static const run_t rows[] = {
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
      {"cas.l d0,d1,$5000.l", "11.6.16 CAS 13 + 11.6.4 ciea #.W,(xxx).L 6",
       {0x0ef9, 0x0040, 0x0000, 0x5000}, 4, 19},
  };
  check_runs(rows, sizeof rows / sizeof rows[0], 1);
}

/* Heads and tails (11.6): an instruction's head overlaps the previous
 * one's tail, by the lesser of the two (Equation 11-1). */
static void a_head_overlaps_the_previous_tail(void) {
  static const run_t runs[] = {
      {"move.l d0,(a0); add.l a1,d1", "MOVE Rn,(An) 0/1/3, ADD Rn,Dn 2/0/2: 3 + 2 - 1",
       {0x2080, 0xd289}, 2, 4},
      {"move.l d0,-(a0); moveq #1,d0", "MOVE Rn,-(An) 0/2/4, MOVEQ 2/0/2: 4 + 2 - 2",
       {0x2100, 0x7001}, 2, 4},
      {"move.l d0,-(a0); nop", "MOVE Rn,-(An) 0/2/4, NOP 0/0/2: no head, 4 + 2",
       {0x2100, 0x4e71}, 2, 6},
      {"add.l d0,(a0); bra.s", "fea (An) 1/1/3 + ADD Dn,EA 0/1/3 = 1/1/6, Bcc 6/0/6: 6 + 6 - 1",
       {0xd190, 0x6002}, 2, 11},
      {"move.l d0,(a0); move.l d0,-(a0)", "MOVE Rn,(An) 0/1/3, MOVE Rn,-(An) 0/2/4: no head",
       {0x2080, 0x2100}, 2, 7},
  };
  check_runs(runs, sizeof runs / sizeof runs[0], 2);
}

/* A figure as the manual's worked example prints it. */
static m68k__timing_t printed(unsigned head, unsigned tail, unsigned cc) {
  return (m68k__timing_t){cc, head, tail};
}

/* The MC68030 User's Manual, 11.3.4, Equation 11-1's example: ADD.L A1,D1
 * (head 2, tail 0, cache case 2) then SUBA.L D1,A2 (printed 4, 0, 4), "2 +
 * [4 - min(4,0)] = 6 clocks". The rule reproduces it from the printed
 * figures; the core runs the pair in 6 with SUBA.W, whose 11.6.8 row
 * (4/0/4) the example prints (11.6.8's SUBA.L Rn,An is 2/0/2, so SUBA.L
 * runs the pair in 4). */
static void the_manuals_equation_11_1_example_comes_to_6(void) {
  unsigned tail = 0, total = 0;
  total += m68k__timing_next(&tail, printed(2, 0, 2));
  total += m68k__timing_next(&tail, printed(4, 0, 4));
  CU_ASSERT_EQUAL(total, 6);

  static const uint16_t pair_w[] = {0xd289, 0x94c1}; /* add.l a1,d1; suba.w d1,a2 */
  static const uint16_t pair_l[] = {0xd289, 0x95c1}; /* add.l a1,d1; suba.l d1,a2 */
  CU_ASSERT_EQUAL(cycles_of_run(pair_w, 2, 2), 6);
  CU_ASSERT_EQUAL(cycles_of_run(pair_l, 2, 2), 4);
}

/* 11.3.4, Equation 11-2's example, printed with each instruction's
 * effective-address component and operation and totalled "40 clock
 * periods":
 *   ADD.L -(A1),D1      fea -(An) 2/2/4,   ADD EA,Dn 0/0/2
 *   AND.L D1,([A2])     fea ([B]) 4/0/10,  AND Dn,EA 0/1/3
 *   MOVE.L (A6),(8,A1)  fea (An) 1/1/3,    MOVE EA,(d16,An) 2/0/4
 *   TAS (A3)+           cea (An)+ 0/0/2,   TAS Mem 3/0/12
 *   NEG D3              (no component),    NEG Dn 2/0/2
 * The rule reproduces the total from the printed figures. The core runs the
 * instructions whose modes its table has (all but the memory indirect
 * ([A2]), whose full-format rows it leaves out) in what the printed figures
 * give: each alone, and the last three as a run. */
static void the_manuals_equation_11_2_example_comes_to_40(void) {
  const m68k__timing_t ins[5] = {
      m68k__timing_compose(printed(2, 2, 4), false, printed(0, 0, 2)),
      m68k__timing_compose(printed(4, 0, 10), false, printed(0, 1, 3)),
      m68k__timing_compose(printed(1, 1, 3), false, printed(2, 0, 4)),
      m68k__timing_compose(printed(0, 0, 2), false, printed(3, 0, 12)),
      printed(2, 0, 2),
  };
  unsigned tail = 0, total = 0;
  for (int i = 0; i < 5; i++)
    total += m68k__timing_next(&tail, ins[i]);
  CU_ASSERT_EQUAL(total, 40);

  static const uint16_t add[] = {0xd2a1};                       /* add.l -(a1),d1 */
  static const uint16_t run[] = {0x2356, 0x0008, 0x4adb, 0x4443}; /* move.l (a6),(8,a1); tas (a3)+; neg.w d3 */
  CU_ASSERT_EQUAL(cycles_of(add, 1), ins[0].cc);
  CU_ASSERT_EQUAL(cycles_of(run, 2), ins[2].cc);
  CU_ASSERT_EQUAL(cycles_of(run + 2, 1), ins[3].cc);
  CU_ASSERT_EQUAL(cycles_of(run + 3, 1), ins[4].cc);
  unsigned tail3 = 0, total3 = 0;
  for (int i = 2; i < 5; i++)
    total3 += m68k__timing_next(&tail3, ins[i]);
  CU_ASSERT_EQUAL(cycles_of_run(run, 4, 3), total3);
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
      {"cas_and_cas2_cost_the_manuals_figures", cas_and_cas2_cost_the_manuals_figures},
      {"addressing_modes_add_their_cost", addressing_modes_add_their_cost},
      {"branches_and_movem_depend_on_what_they_do", branches_and_movem_depend_on_what_they_do},
      {"cache_case_figures_match_the_manual", cache_case_figures_match_the_manual},
      {"a_head_overlaps_the_previous_tail", a_head_overlaps_the_previous_tail},
      {"the_manuals_equation_11_1_example_comes_to_6", the_manuals_equation_11_1_example_comes_to_6},
      {"the_manuals_equation_11_2_example_comes_to_40", the_manuals_equation_11_2_example_comes_to_40},
      {"counting_is_off_unless_asked", counting_is_off_unless_asked},
  };
  return tm_run_suite("m68k-cycles", cases, sizeof cases / sizeof cases[0]);
}
