/* test-explore.c -- the explorer's schedule enumeration, PCT, replay and the linearizability
 * checker.
 *
 * The enumeration is checked on programs whose instruction counts are
 * known (straight lines of NOPs) against the closed-form number of
 * interleavings with at most K preemptions, and on a racy increment
 * (load, add, store: one preemption loses an update) against a CAS loop
 * (never loses). The code is hand-assembled, each instruction's encoding
 * in a comment, so the suite needs no cross compiler.
 *
 * Then `quamachine explore` (its path is the argument) on the backend's
 * synthesised quajects: no violation in the real algorithms, at least one
 * in every seeded bug, and the printed schedule replays it.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "m68k-tool.h"
#include "qtest.h"
#ifdef QUA_M68K_BACKEND
#include "quaject68k.h"
#endif

/* ---- Fixture programs --------------------------------------------------- */

#define RAM (256u << 10)
#define CODE0 0x1000u /* CPU 0's program */
#define CODE1 0x2000u /* CPU 1's program */
#define SHARED 0x3000u

typedef struct prog {
  uint16_t words[2][64];
  size_t nwords[2];
} prog_t;

static m68k_machine_t *build_prog(void *ctx, char *err, size_t errlen) {
  const prog_t *p = ctx;
  (void)err;
  (void)errlen;
  m68k_machine_config_t cfg = {M68K_MODEL_68030, 2, 0, RAM};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  m68k_machine_start(m, CODE0);
  for (unsigned c = 0; c < 2; c++) {
    uint32_t at = c == 0 ? CODE0 : CODE1;
    uint8_t *ram = m68k_machine_ram(m, at, (uint32_t)(2 * p->nwords[c]));
    for (size_t i = 0; i < p->nwords[c]; i++) {
      ram[2 * i] = (uint8_t)(p->words[c][i] >> 8);
      ram[2 * i + 1] = (uint8_t)p->words[c][i];
    }
    m68k_set_reg(m68k_machine_cpu(m, c), M68K_REG_PC, at);
  }
  return m;
}

static void destroy_prog(void *ctx, m68k_machine_t *m) {
  (void)ctx;
  m68k_machine_destroy(m);
}

static bool judge_never(void *ctx, m68k_machine_t *m, char *why, size_t whylen) {
  (void)ctx;
  (void)why;
  (void)whylen;
  CU_ASSERT_TRUE(m68k_machine_cpu_idle(m, 0) && m68k_machine_cpu_idle(m, 1));
  return false;
}

/* A violation when the shared counter is not 2 (both CPUs added 1). */
static bool judge_counter_is_2(void *ctx, m68k_machine_t *m, char *why, size_t whylen) {
  (void)ctx;
  uint32_t v = 0;
  CU_ASSERT_TRUE(m68k_machine_read32(m, SHARED, &v));
  snprintf(why, whylen, "counter is %u", (unsigned)v);
  return v != 2;
}

/* CPU c: `nops` NOPs and STOP: nops + 1 instructions. */
static void nops_then_stop(prog_t *p, unsigned c, size_t nops) {
  size_t k = 0;
  for (size_t i = 0; i < nops; i++)
    p->words[c][k++] = 0x4E71; /* nop */
  p->words[c][k++] = 0x4E72;   /* stop #$2700 */
  p->words[c][k++] = 0x2700;
  p->nwords[c] = k;
}

static const uint16_t racy_inc[] = {
    0x2039, 0x0000, 0x3000, /* move.l $3000,d0 */
    0x5280,                 /* addq.l #1,d0 */
    0x23C0, 0x0000, 0x3000, /* move.l d0,$3000 */
    0x4E72, 0x2700,         /* stop #$2700 */
};

static const uint16_t cas_inc[] = {
    0x2039, 0x0000, 0x3000, /* move.l $3000,d0 */
    0x2200,                 /* 1: move.l d0,d1 */
    0x5281,                 /* addq.l #1,d1 */
    0x0EF9, 0x0040, 0x0000, 0x3000, /* cas.l d0,d1,$3000 */
    0x66F2,                 /* bne.s 1b */
    0x4E72, 0x2700,         /* stop #$2700 */
};

static void set_both(prog_t *p, const uint16_t *w, size_t n) {
  for (unsigned c = 0; c < 2; c++) {
    memcpy(p->words[c], w, n * sizeof *w);
    p->nwords[c] = n;
  }
}

/* ---- Closed forms --------------------------------------------------------- */

static uint64_t binom(uint64_t n, uint64_t k) {
  if (k > n)
    return 0;
  uint64_t r = 1;
  for (uint64_t i = 1; i <= k; i++)
    r = r * (n - k + i) / i;
  return r;
}

/* Interleavings of two straight-line programs of n0 and n1 instructions
 * with at most k preemptions. An interleaving is a sequence of b
 * alternating blocks; the switch after the last block of the CPU that
 * finishes first is not a preemption and every other switch is, so it
 * has b - 2 preemptions. Starting with CPU s, CPU s gets ceil(b/2)
 * blocks and the other floor(b/2); n instructions split into j non-empty
 * blocks in C(n-1, j-1) ways. */
static uint64_t closed_form(uint64_t n0, uint64_t n1, unsigned k) {
  uint64_t total = 0;
  for (unsigned b = 2; b <= k + 2; b++) {
    uint64_t first = (b + 1) / 2, second = b / 2;
    total += binom(n0 - 1, first - 1) * binom(n1 - 1, second - 1); /* CPU 0 first */
    total += binom(n1 - 1, first - 1) * binom(n0 - 1, second - 1); /* CPU 1 first */
  }
  return total;
}

/* ---- Enumeration ------------------------------------------------------------ */

static void chess_counts_match_closed_form(void) {
  static const size_t lens[][2] = {{1, 1}, {3, 5}, {6, 4}, {9, 9}, {12, 2}};
  for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
    prog_t p;
    nops_then_stop(&p, 0, lens[t][0]);
    nops_then_stop(&p, 1, lens[t][1]);
    m68k_explore_target_t tg = {&p, build_prog, judge_never, destroy_prog};
    for (unsigned k = 0; k <= 4; k++) {
      m68k_explore_options_t opt = {.preemptions = k};
      m68k_explore_result_t res;
      char err[256];
      CU_ASSERT_EQUAL_FATAL(m68k_explore_chess(&tg, &opt, &res, err, sizeof err), M68K_OK);
      uint64_t want = closed_form(lens[t][0] + 1, lens[t][1] + 1, k);
      if (res.schedules != want)
        fprintf(stderr, "n0=%zu n1=%zu K=%u: %llu schedules, closed form %llu\n", lens[t][0] + 1,
                lens[t][1] + 1, k, (unsigned long long)res.schedules, (unsigned long long)want);
      CU_ASSERT_EQUAL(res.schedules, want);
      CU_ASSERT_EQUAL(res.violations, 0);
      CU_ASSERT_EQUAL(res.steps, res.schedules * (lens[t][0] + lens[t][1] + 2));
      m68k_explore_result_free(&res);
    }
  }
}

static void chess_unbounded_enumerates_every_interleaving(void) {
  /* With K at least the number of switches possible, every interleaving:
   * C(n0 + n1, n0). */
  prog_t p;
  nops_then_stop(&p, 0, 3);
  nops_then_stop(&p, 1, 4);
  m68k_explore_target_t tg = {&p, build_prog, judge_never, destroy_prog};
  m68k_explore_options_t opt = {.preemptions = 20};
  m68k_explore_result_t res;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(m68k_explore_chess(&tg, &opt, &res, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(res.schedules, binom(4 + 5, 4));
  m68k_explore_result_free(&res);
}

static void chess_finds_lost_update_with_one_preemption(void) {
  prog_t p;
  set_both(&p, racy_inc, sizeof racy_inc / sizeof racy_inc[0]);
  m68k_explore_target_t tg = {&p, build_prog, judge_counter_is_2, destroy_prog};
  char err[256];
  m68k_explore_result_t res;
  m68k_explore_options_t opt = {.preemptions = 0};
  CU_ASSERT_EQUAL_FATAL(m68k_explore_chess(&tg, &opt, &res, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(res.schedules, 2);
  CU_ASSERT_EQUAL(res.violations, 0);
  m68k_explore_result_free(&res);

  opt.preemptions = 1;
  CU_ASSERT_EQUAL_FATAL(m68k_explore_chess(&tg, &opt, &res, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(res.schedules, closed_form(4, 4, 1));
  CU_ASSERT_TRUE(res.violations > 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res.first);
  CU_ASSERT_STRING_EQUAL(res.why, "counter is 1");

  /* The printed schedule replays to the same violation, through the
   * string form `--schedule` takes. */
  char spec[256];
  CU_ASSERT_EQUAL_FATAL(m68k_schedule_format(res.first, res.nfirst, spec, sizeof spec), M68K_OK);
  m68k_schedule_t s;
  CU_ASSERT_EQUAL_FATAL(m68k_schedule_parse(spec, &s), M68K_OK);
  bool violation = false;
  char why[128];
  CU_ASSERT_EQUAL(m68k_explore_replay(&tg, s.slices, s.nslices, &violation, why, sizeof why, err,
                                      sizeof err),
                  M68K_OK);
  CU_ASSERT_TRUE(violation);
  CU_ASSERT_STRING_EQUAL(why, "counter is 1");
  m68k_schedule_free(&s);
  m68k_explore_result_free(&res);
}

static void chess_cas_loop_never_loses(void) {
  prog_t p;
  set_both(&p, cas_inc, sizeof cas_inc / sizeof cas_inc[0]);
  m68k_explore_target_t tg = {&p, build_prog, judge_counter_is_2, destroy_prog};
  char err[256];
  m68k_explore_result_t res;
  m68k_explore_options_t opt = {.preemptions = 3};
  CU_ASSERT_EQUAL_FATAL(m68k_explore_chess(&tg, &opt, &res, err, sizeof err), M68K_OK);
  CU_ASSERT_TRUE(res.schedules > 0);
  CU_ASSERT_EQUAL(res.violations, 0);
  m68k_explore_result_free(&res);
}

static void chess_schedule_bound_stops_with_partial_counts(void) {
  prog_t p;
  nops_then_stop(&p, 0, 5);
  nops_then_stop(&p, 1, 5);
  m68k_explore_target_t tg = {&p, build_prog, judge_never, destroy_prog};
  m68k_explore_options_t opt = {.preemptions = 2, .max_schedules = 10};
  m68k_explore_result_t res;
  char err[256];
  CU_ASSERT_EQUAL(m68k_explore_chess(&tg, &opt, &res, err, sizeof err), M68K_ETOOBIG);
  CU_ASSERT_EQUAL(res.schedules, 10);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "10 schedules"));
  m68k_explore_result_free(&res);
}

static void chess_run_over_step_bound_is_no_progress(void) {
  static const uint16_t spin[] = {0x60FE}; /* bra.s * */
  prog_t p;
  memcpy(p.words[0], spin, sizeof spin);
  p.nwords[0] = 1;
  nops_then_stop(&p, 1, 1);
  m68k_explore_target_t tg = {&p, build_prog, judge_never, destroy_prog};
  m68k_explore_options_t opt = {.preemptions = 0, .max_steps = 50};
  m68k_explore_result_t res;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(m68k_explore_chess(&tg, &opt, &res, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(res.violations, res.schedules);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.why, "no progress"));
  m68k_explore_result_free(&res);
}

static void replay_rejects_a_schedule_of_another_run(void) {
  prog_t p;
  nops_then_stop(&p, 0, 2);
  nops_then_stop(&p, 1, 2);
  m68k_explore_target_t tg = {&p, build_prog, judge_never, destroy_prog};
  char err[256], why[64];
  bool v;
  m68k_slice_t too_long[] = {{0, 5}, {1, 3}};
  CU_ASSERT_EQUAL(m68k_explore_replay(&tg, too_long, 2, &v, why, sizeof why, err, sizeof err),
                  M68K_ESCHEDULE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a complete run"));
  m68k_slice_t too_short[] = {{0, 3}, {1, 2}};
  CU_ASSERT_EQUAL(m68k_explore_replay(&tg, too_short, 2, &v, why, sizeof why, err, sizeof err),
                  M68K_ESCHEDULE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "had not finished"));
  m68k_slice_t exact[] = {{1, 1}, {0, 3}, {1, 2}};
  CU_ASSERT_EQUAL(m68k_explore_replay(&tg, exact, 3, &v, why, sizeof why, err, sizeof err),
                  M68K_OK);
  CU_ASSERT_FALSE(v);
}

static void pct_is_seeded_and_finds_the_lost_update(void) {
  prog_t p;
  set_both(&p, racy_inc, sizeof racy_inc / sizeof racy_inc[0]);
  m68k_explore_target_t tg = {&p, build_prog, judge_counter_is_2, destroy_prog};
  char err[256];
  m68k_explore_result_t a, b;
  /* Depth 2: one change point among 8 steps; a run loses the update when
   * the point falls inside the first CPU's load-to-store window. */
  CU_ASSERT_EQUAL_FATAL(m68k_explore_pct(&tg, 42, 200, 2, 0, &a, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(a.schedules, 200);
  CU_ASSERT_TRUE(a.violations > 0 && a.violations < 200);
  CU_ASSERT_EQUAL_FATAL(m68k_explore_pct(&tg, 42, 200, 2, 0, &b, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(a.violations, b.violations);
  CU_ASSERT_EQUAL(a.nfirst, b.nfirst);
  CU_ASSERT_EQUAL(memcmp(a.first, b.first, a.nfirst * sizeof *a.first), 0);
  m68k_explore_result_free(&a);
  m68k_explore_result_free(&b);
  /* Depth 1 has no change point: the higher priority CPU runs to the end. */
  CU_ASSERT_EQUAL_FATAL(m68k_explore_pct(&tg, 7, 50, 1, 0, &a, err, sizeof err), M68K_OK);
  CU_ASSERT_EQUAL(a.violations, 0);
  m68k_explore_result_free(&a);
  CU_ASSERT_EQUAL(m68k_explore_pct(&tg, 7, 50, 0, 0, &a, err, sizeof err), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_explore_pct(&tg, 7, 50, 65, 0, &a, err, sizeof err), M68K_EINVAL);
}

/* ---- Linearizability ---------------------------------------------------------- */

#define INS(c, a, k, i, r) {c, M68K_LIN_INSERT, a, 0, k, i, r}
#define REM(c, v, k, i, r) {c, M68K_LIN_REMOVE, 0, v, k, i, r}
#define ADD(c, a, v, i, r) {c, M68K_LIN_ADD, a, v, true, i, r}
#define READ(c, v, i, r) {c, M68K_LIN_READ, 0, v, true, i, r}
#define N(a) (sizeof a / sizeof a[0])

static void lin_queue_fifo_and_overlap(void) {
  m68k_lin_op_t seq_ok[] = {INS(0, 1, true, 0, 10), INS(0, 2, true, 20, 30),
                            REM(1, 1, true, 40, 50), REM(1, 2, true, 60, 70)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, seq_ok, N(seq_ok), NULL), 1);
  m68k_lin_op_t seq_bad[] = {INS(0, 1, true, 0, 10), INS(0, 2, true, 20, 30),
                             REM(1, 2, true, 40, 50)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, seq_bad, N(seq_bad), NULL), 0);
  /* put(2) lies inside put(1): either order is possible. */
  m68k_lin_op_t overlap[] = {INS(0, 1, true, 0, 30), INS(1, 2, true, 10, 20),
                             REM(1, 2, true, 40, 50), REM(0, 1, true, 60, 70)};
  size_t order[4];
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, overlap, N(overlap), order), 1);
  CU_ASSERT_EQUAL(order[0], 1);
  CU_ASSERT_EQUAL(order[1], 0);
  CU_ASSERT_EQUAL(order[2], 2);
  CU_ASSERT_EQUAL(order[3], 3);
  /* Real time is respected even when the values would fit another order. */
  m68k_lin_op_t too_early[] = {REM(1, 1, true, 0, 5), INS(0, 1, true, 10, 20)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, too_early, N(too_early), NULL), 0);
}

static void lin_stack_needs_backtracking(void) {
  /* The search first linearises push(1) then push(2), finds pop() -> 1
   * impossible, and must undo both to try push(2) first. */
  m68k_lin_op_t h[] = {INS(0, 1, true, 0, 100), INS(1, 2, true, 0, 100), REM(0, 1, true, 110, 120),
                       REM(1, 2, true, 130, 140)};
  size_t order[4];
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_STACK, 0, h, N(h), order), 1);
  CU_ASSERT_EQUAL(order[0], 1);
  CU_ASSERT_EQUAL(order[1], 0);
  /* The ABA outcome: one value popped twice. */
  m68k_lin_op_t aba[] = {INS(0, 1, true, 0, 10), REM(0, 1, true, 20, 100),
                         REM(1, 1, true, 30, 40), INS(1, 2, true, 50, 60)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_STACK, 0, aba, N(aba), NULL), 0);
  /* The list is LIFO too. */
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_LIST, 0, h, N(h), NULL), 1);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_LIST, 0, aba, N(aba), NULL), 0);
}

static void lin_full_and_empty_at_capacity(void) {
  m68k_lin_op_t h[] = {REM(0, 0, false, 0, 1), INS(0, 1, true, 2, 3), INS(0, 2, false, 4, 5),
                       REM(0, 1, true, 6, 7), REM(0, 0, false, 8, 9)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 1, h, N(h), NULL), 1);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_STACK, 1, h, N(h), NULL), 1);
  /* With room for two the second put cannot fail. */
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 2, h, N(h), NULL), 0);
  /* The list is unbounded: a failed insert is never right. */
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_LIST, 1, h, N(h), NULL), 0);
  /* "empty" while an overlapping put may not have happened yet is fine. */
  m68k_lin_op_t race[] = {INS(0, 1, true, 0, 10), REM(1, 0, false, 5, 8)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, race, N(race), NULL), 1);
  m68k_lin_op_t late[] = {INS(0, 1, true, 0, 4), REM(1, 0, false, 5, 8)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, late, N(late), NULL), 0);
}

static void lin_counter_lost_update(void) {
  m68k_lin_op_t ok[] = {ADD(0, 1, 1, 0, 10), ADD(1, 2, 3, 5, 15), READ(0, 3, 20, 30)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_COUNTER, 0, ok, N(ok), NULL), 1);
  m68k_lin_op_t other_order[] = {ADD(0, 1, 3, 0, 10), ADD(1, 2, 2, 5, 15), READ(0, 3, 20, 30)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_COUNTER, 0, other_order, N(other_order), NULL), 1);
  m68k_lin_op_t lost[] = {ADD(0, 1, 1, 0, 10), ADD(1, 2, 2, 5, 15), READ(0, 2, 20, 30)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_COUNTER, 0, lost, N(lost), NULL), 0);
}

static void lin_sixty_four_ops_and_not_one_more(void) {
  m68k_lin_op_t h[M68K_LIN_MAX_OPS + 1];
  for (unsigned i = 0; i < 32; i++)
    h[i] = (m68k_lin_op_t)INS(i % 2, i, true, 2 * i, 2 * i + 1);
  for (unsigned i = 0; i < 32; i++)
    h[32 + i] = (m68k_lin_op_t)REM(0, i, true, 100 + 2 * i, 101 + 2 * i);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, h, M68K_LIN_MAX_OPS, NULL), 1);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 32, h, M68K_LIN_MAX_OPS, NULL), 1);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 31, h, M68K_LIN_MAX_OPS, NULL), 0);
  h[M68K_LIN_MAX_OPS] = (m68k_lin_op_t)REM(0, 0, false, 300, 301);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, h, M68K_LIN_MAX_OPS + 1, NULL), M68K_EINVAL);
}

static void lin_memo_bounds_the_search(void) {
  /* 16 overlapping reads of 0, then a read of 5 nothing explains. Without
   * the memo the search would try 16! orders of the reads before giving
   * up; with it, each of the 2^16 sets of linearised reads once. */
  m68k_lin_op_t h[17];
  for (unsigned i = 0; i < 16; i++)
    h[i] = (m68k_lin_op_t)READ(i % 2, 0, i, 100);
  h[16] = (m68k_lin_op_t)READ(0, 5, 200, 210);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_COUNTER, 0, h, 17, NULL), 0);
  h[16].value = 0;
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_COUNTER, 0, h, 17, NULL), 1);
}

static void lin_rejects_malformed_histories(void) {
  m68k_lin_op_t backwards[] = {INS(0, 1, true, 10, 5)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, backwards, 1, NULL), M68K_EINVAL);
  m68k_lin_op_t wrong_kind[] = {ADD(0, 1, 1, 0, 1)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_STACK, 0, wrong_kind, 1, NULL), M68K_EINVAL);
  m68k_lin_op_t wrong_kind2[] = {INS(0, 1, true, 0, 1)};
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_COUNTER, 0, wrong_kind2, 1, NULL), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_lincheck(M68K_LIN_QUEUE, 0, NULL, 0, NULL), 1);
}

static void lin_print_names_ops_results_and_times(void) {
  m68k_lin_op_t h[] = {REM(1, 0, false, 30, 40), INS(0, 7, true, 2, 12)};
  char buf[512] = {0};
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  m68k_lin_print(f, M68K_LIN_STACK, h, 2);
  fclose(f);
  const char *push = strstr(buf, "cpu0 push(7)"), *pop = strstr(buf, "cpu1 pop()");
  CU_ASSERT_PTR_NOT_NULL(push);
  CU_ASSERT_PTR_NOT_NULL(pop);
  CU_ASSERT_TRUE(push != NULL && pop != NULL && push < pop);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "[2, 12]"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "empty"));
}

/* ---- Schedule strings ------------------------------------------------------------ */

static void schedule_slices_parse_and_format(void) {
  m68k_schedule_t s;
  CU_ASSERT_EQUAL_FATAL(m68k_schedule_parse("slices:0x3,1x5,idlex40,0x7", &s), M68K_OK);
  CU_ASSERT_EQUAL(s.kind, M68K_SCHED_REPLAY);
  CU_ASSERT_EQUAL_FATAL(s.nslices, 4);
  CU_ASSERT_EQUAL(s.slices[1].cpu, 1);
  CU_ASSERT_EQUAL(s.slices[1].count, 5);
  CU_ASSERT_EQUAL(s.slices[2].cpu, M68K_SLICE_IDLE);
  CU_ASSERT_EQUAL(s.slices[2].count, 40);
  char buf[64];
  CU_ASSERT_EQUAL(m68k_schedule_format(s.slices, s.nslices, buf, sizeof buf), M68K_OK);
  CU_ASSERT_STRING_EQUAL(buf, "slices:0x3,1x5,idlex40,0x7");
  /* Exactly the room needed, and one byte less. */
  size_t need = strlen(buf) + 1;
  CU_ASSERT_EQUAL(m68k_schedule_format(s.slices, s.nslices, buf, need), M68K_OK);
  CU_ASSERT_EQUAL(m68k_schedule_format(s.slices, s.nslices, buf, need - 1), M68K_ETOOBIG);
  CU_ASSERT_EQUAL(strlen(buf), need - 2);
  m68k_schedule_free(&s);
  CU_ASSERT_PTR_NULL(s.slices);

  static const char *const bad[] = {"slices:",      "slices:0x",     "slices:x3",
                                    "slices:2x1",   "slices:0x0",    "slices:0x3,",
                                    "slices:0x3,,1x2", "slices:0x3;1x2", "slices:0x4294967295",
                                    "slices:-1x2",  "slices:idle3",  "slices:0x3 "};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CU_ASSERT_EQUAL(m68k_schedule_parse(bad[i], &s), M68K_EINVAL);
  }
  CU_ASSERT_EQUAL(m68k_schedule_parse("slices:1x4294967294", &s), M68K_OK);
  m68k_schedule_free(&s);
}

static void machine_step_sees_stop_at_once(void) {
  prog_t p;
  nops_then_stop(&p, 0, 1);
  nops_then_stop(&p, 1, 0);
  m68k_machine_t *m = build_prog(&p, NULL, 0);
  CU_ASSERT_FALSE(m68k_machine_cpu_idle(m, 0));
  CU_ASSERT_EQUAL(m68k_machine_step(m, 0, 1), 1); /* nop */
  CU_ASSERT_FALSE(m68k_machine_cpu_idle(m, 0));
  CU_ASSERT_EQUAL(m68k_machine_step(m, 0, 1), 1); /* stop */
  CU_ASSERT_TRUE(m68k_machine_cpu_idle(m, 0));
  CU_ASSERT_EQUAL(m68k_machine_step(m, 0, 1), 0);
  CU_ASSERT_EQUAL(m68k_machine_step(m, 1, 5), 1);
  CU_ASSERT_TRUE(m68k_machine_cpu_idle(m, 1));
  CU_ASSERT_EQUAL(m68k_machine_step(m, 2, 1), 0);
  CU_ASSERT_FALSE(m68k_machine_stopped(m, NULL));
  m68k_machine_destroy(m);
}

/* ---- The driver ----------------------------------------------------------------- */

static void driver_disassembles_as_documented(void) {
  static const char *const want[] = {
      "move.l (a4),(a3)+", "move.l (4,a5),d1", "movea.l (a5),a0", "addq.l #8,a5",
      "jsr (a0)",          "move.l (a4),(a3)+", "move.l d0,(a3)+", "move.l d1,(a3)+",
      "subq.l #1,d7",      "bne $1000",         "stop #$2700",     "bra $1016",
  };
  size_t n;
  const uint16_t *w = m68k__explore_driver(&n);
  prog_t p;
  memcpy(p.words[0], w, n * sizeof *w);
  p.nwords[0] = n;
  nops_then_stop(&p, 1, 0);
  m68k_machine_t *m = build_prog(&p, NULL, 0);
  uint32_t at = CODE0;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char buf[96];
    at += (uint32_t)m68k_disassemble(m68k_machine_cpu(m, 0), at, buf, sizeof buf);
    const char *expected = want[i];
    if (strcmp(buf, expected) != 0) {
      /* (fputs: gcc's -Wformat-overflow takes want[] for null under ASan) */
      fprintf(stderr, "driver instruction %zu: '%s', want '", i, buf);
      fputs(expected, stderr);
      fputs("'\n", stderr);
    }
    CU_ASSERT_STRING_EQUAL(buf, expected);
  }
  CU_ASSERT_EQUAL(at, CODE0 + 2 * n);
  m68k_machine_destroy(m);
}

/* ---- The command ----------------------------------------------------------------- */

static const char *tool; /* build/m68k/quamachine */

/* Runs quamachine explore with the arguments (NULL-terminated). */
static void explore(tool_run_t *r, const char *a1, ...) {
  char *argv[20];
  int argc = 0;
  argv[argc++] = (char *)tool;
  argv[argc++] = "explore";
  va_list ap;
  va_start(ap, a1);
  for (const char *a = a1; a != NULL && argc < 19; a = va_arg(ap, const char *))
    argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  tool_runv(r, argv);
}

/* The counts of the last line, which must be "EXPLORE algo schedules=S
 * violations=V". */
static void last_line(const tool_run_t *r, const char *algo, unsigned long long *s,
                      unsigned long long *v) {
  const char *nl = r->out + strlen(r->out);
  CU_ASSERT_FATAL(nl > r->out && nl[-1] == '\n');
  const char *line = nl - 1;
  while (line > r->out && line[-1] != '\n')
    line--;
  char name[32];
  int used = 0;
  CU_ASSERT_EQUAL_FATAL(sscanf(line, "EXPLORE %31s schedules=%llu violations=%llu\n%n", name, s,
                               v, &used),
                        3);
  CU_ASSERT_STRING_EQUAL(name, algo);
  CU_ASSERT_EQUAL((size_t)used, strlen(line));
}

static const char *const algos[] = {"counter-cas", "stack-cas2", "queue-cas2", "list-cas2"};

/* The real algorithms, called (folded false) or with the folded forms
 * inline (--folded). */
static void real_algorithms_are_linearizable(bool folded) {
  for (size_t i = 0; i < 4; i++) {
    tool_run_t r;
    unsigned long long s, v;
    explore(&r, algos[i], folded ? "--folded" : NULL, NULL);
    if (r.status != 0)
      fprintf(stderr, "%s: %s%s", algos[i], r.out, r.err);
    CU_ASSERT_EQUAL(r.status, 0);
    last_line(&r, algos[i], &s, &v);
    CU_ASSERT_TRUE(s > 100);
    CU_ASSERT_EQUAL(v, 0);
  }
}

static void explore_real_algorithms_are_linearizable(void) { real_algorithms_are_linearizable(false); }

static void explore_folded_real_algorithms_are_linearizable(void) {
  real_algorithms_are_linearizable(true);
}

#ifdef QUA_M68K_BACKEND
/* Instructions CPU `cpu` executes running its driver alone from the start:
 * 10 driver instructions per operation besides the call (the driver
 * disassembled above), the entry's own as m68k_qj_call counts them (first
 * through RTS), and the final STOP. The calls are made in the same order
 * on a quaject wired as the tool wires it (two callers per entry). */
static uint64_t solo_length(const char *type, const char *const *entries, const uint32_t *args,
                            unsigned n, bool folded) {
  m68k_machine_config_t cfg = {M68K_MODEL_68030, 2, 0, M68K_QJ_RAM_MIN};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  m68k_machine_start(m, 0x1000);
  m68k_qj_t *q = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      m68k_qj_create(m, type, NULL, strcmp(type, "counter") == 0 ? 0 : 8, &q, err, sizeof err),
      M68K_OK);
  for (unsigned c = 0; c < 2; c++)
    for (unsigned i = 0; m68k_qj_entry_name(q, i) != NULL; i++)
      CU_ASSERT_EQUAL(m68k_qj_attach(q, m68k_qj_entry_name(q, i)), M68K_OK);
  /* Folded (m68k_qj_fold_program): the four instructions that load a2,
   * d6, d5 and d0 once, then per call three instructions before the
   * operation, three after and the JMP to the next call's code; the
   * operation's own as m68k_qj_call_folded counts them, with no JSR or
   * RTS. The final STOP, called or folded, is the 1. */
  uint64_t len = folded ? 5 : 1;
  for (unsigned i = 0; i < n; i++) {
    uint64_t insns = 0;
    int st = folded ? m68k_qj_call_folded(q, 0, entries[i], args[i], NULL, &insns, NULL)
                    : m68k_qj_call(q, 0, entries[i], args[i], NULL, &insns, NULL);
    CU_ASSERT_TRUE(st >= 0);
    len += (folded ? 7 : 10) + insns;
  }
  m68k_qj_destroy(q);
  m68k_machine_destroy(m);
  return len;
}

static void counts_match_the_solo_lengths(bool folded) {
  /* With no preemption there are two schedules (either CPU first). With
   * at most one, add those where CPU c runs j of the L_c instructions of
   * its solo run (1 <= j < L_c), is preempted, the other CPU runs to its
   * end and c finishes: S(K=1) = 2 + (L_0 - 1) + (L_1 - 1) = L_0 + L_1,
   * L_c computed here from the entries' own instruction counts. */
  static const struct {
    const char *algo, *type;
    const char *entries[2][2];
    uint32_t args[2][2];
  } w[] = {
      {"counter-cas", "counter", {{"add", "read"}, {"add", "read"}}, {{101, 0}, {201, 0}}},
      {"stack-cas2", "stack", {{"push", "pop"}, {"pop", "push"}}, {{101, 0}, {0, 202}}},
      {"queue-cas2", "queue", {{"put", "get"}, {"put", "get"}}, {{101, 0}, {201, 0}}},
  };
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
    uint64_t l0 = solo_length(w[i].type, w[i].entries[0], w[i].args[0], 2, folded);
    uint64_t l1 = solo_length(w[i].type, w[i].entries[1], w[i].args[1], 2, folded);
    const char *f = folded ? "--folded" : NULL;
    tool_run_t r;
    unsigned long long s, v;
    explore(&r, w[i].algo, "--preemptions", "0", f, NULL);
    last_line(&r, w[i].algo, &s, &v);
    CU_ASSERT_EQUAL(s, 2);
    explore(&r, w[i].algo, "--preemptions", "1", f, NULL);
    last_line(&r, w[i].algo, &s, &v);
    if (s != l0 + l1)
      fprintf(stderr, "%s: K=1 gives %llu schedules, L0 + L1 = %llu + %llu\n", w[i].algo, s,
              (unsigned long long)l0, (unsigned long long)l1);
    CU_ASSERT_EQUAL(s, l0 + l1);
    CU_ASSERT_EQUAL(v, 0);
  }
}

static void explore_counts_match_the_solo_lengths(void) { counts_match_the_solo_lengths(false); }

static void explore_folded_counts_match_the_solo_lengths(void) {
  counts_match_the_solo_lengths(true);
}
#endif

/* Every seeded bug is caught, called or folded (f "--folded" or NULL),
 * and its first violation replays. */
static void broken_variants_are_caught_and_replay(const char *f) {
  for (size_t i = 0; i < 4; i++) {
    tool_run_t r;
    unsigned long long s, v;
    explore(&r, algos[i], "--variant", "broken", f, NULL);
    if (r.status != 1)
      fprintf(stderr, "%s broken: %s%s", algos[i], r.out, r.err);
    CU_ASSERT_EQUAL(r.status, 1);
    last_line(&r, algos[i], &s, &v);
    CU_ASSERT_TRUE(v > 0);
    CU_ASSERT_TRUE(v < s);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "not linearizable"));
    const char *sched = strstr(r.out, "schedule: slices:");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sched);
    char spec[8192];
    CU_ASSERT_EQUAL_FATAL(sscanf(sched, "schedule: %8191s", spec), 1);
    /* The history printed for the violation, and the replay's, agree. */
    const char *hist = strstr(r.out, "not linearizable");
    char first_hist[4096];
    snprintf(first_hist, sizeof first_hist, "%.*s", (int)(strstr(hist, "EXPLORE") - hist), hist);

    tool_run_t again;
    const char *ops = strcmp(algos[i], "list-cas2") == 0 ? "3" : "2";
    explore(&again, algos[i], "--variant", "broken", "--ops", ops, "--schedule", spec, f, NULL);
    CU_ASSERT_EQUAL(again.status, 1);
    last_line(&again, algos[i], &s, &v);
    CU_ASSERT_EQUAL(s, 1);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(again.out, first_hist));
    /* And from a schedule file (replay:FILE), as smp takes it. */
    m68k_schedule_t parsed;
    CU_ASSERT_EQUAL_FATAL(m68k_schedule_parse(spec, &parsed), M68K_OK);
    char file[] = "/tmp/qua-explore-XXXXXX", arg[64];
    int fd = mkstemp(file);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_EQUAL(m68k_schedule_save(file, parsed.slices, parsed.nslices), M68K_OK);
    m68k_schedule_free(&parsed);
    snprintf(arg, sizeof arg, "replay:%s", file);
    explore(&again, algos[i], "--variant", "broken", "--ops", ops, "--schedule", arg, f, NULL);
    CU_ASSERT_EQUAL(again.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(again.out, first_hist));
    unlink(file);
    /* The same schedule is no violation for the real algorithm, or not
     * even a complete run of it (its instruction counts differ). */
    explore(&again, algos[i], "--ops", ops, "--schedule", spec, f, NULL);
    CU_ASSERT_TRUE(again.status == 0 || again.status == 125);
  }
}

static void explore_broken_variants_are_caught_and_replay(void) {
  broken_variants_are_caught_and_replay(NULL);
}

static void explore_folded_broken_variants_are_caught_and_replay(void) {
  broken_variants_are_caught_and_replay("--folded");
}

static void explore_pct_is_seeded_and_catches_broken(void) {
  tool_run_t a, b;
  unsigned long long s, v, s2, v2;
  explore(&a, "queue-cas2", "--variant", "broken", "--ops", "6", "--pct", "5", "--runs", "300",
          "--depth", "2", NULL);
  last_line(&a, "queue-cas2", &s, &v);
  CU_ASSERT_EQUAL(s, 300);
  CU_ASSERT_TRUE(v > 0);
  CU_ASSERT_EQUAL(a.status, 1);
  explore(&b, "queue-cas2", "--variant", "broken", "--ops", "6", "--pct", "5", "--runs", "300",
          "--depth", "2", NULL);
  last_line(&b, "queue-cas2", &s2, &v2);
  CU_ASSERT_EQUAL(v, v2);
  CU_ASSERT_STRING_EQUAL(a.out, b.out);
  explore(&a, "queue-cas2", "--ops", "6", "--pct", "5", "--runs", "300", "--depth", "3", NULL);
  last_line(&a, "queue-cas2", &s, &v);
  CU_ASSERT_EQUAL(a.status, 0);
  CU_ASSERT_EQUAL(v, 0);
}

static void explore_bad_usage_names_the_problem(void) {
  tool_run_t r;
  explore(&r, "heap-cas", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "unknown algorithm 'heap-cas'"));
  explore(&r, "stack-cas2", "--ops", "0", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--ops takes 1 to 30, not '0'"));
  explore(&r, "stack-cas2", "--ops", "31", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  explore(&r, "stack-cas2", "--ops", "30", "--preemptions", "0", NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  explore(&r, "stack-cas2", "--schedule", "quantum:5", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "bad schedule 'quantum:5'"));
  explore(&r, "stack-cas2", "--schedule", "slices:0x1", NULL);
  CU_ASSERT_EQUAL(r.status, 125);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "not a complete run"));
  explore(&r, "stack-cas2", "--pct", "1", "--schedule", "slices:0x1", NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  /* The SP-SC queue takes one producer: two CPUs cannot both put. */
  explore(&r, "queue-cas2", "--variant", "spsc", NULL);
  CU_ASSERT_EQUAL(r.status, 125);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "cannot attach both CPUs"));
  explore(&r, "stack-cas2", "--variant", "wobbly", NULL);
  CU_ASSERT_EQUAL(r.status, 125);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "wobbly"));
  explore(&r, NULL);
  CU_ASSERT_EQUAL(r.status, 2);
  explore(&r, "--help", NULL);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "preemption"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "linearizable"));
}

int main(int argc, char **argv) {
  tool = argc > 1 ? argv[1] : NULL;
  static const qtest_case_t cases[] = {
      {"chess_counts_match_closed_form", chess_counts_match_closed_form},
      {"chess_unbounded_enumerates_every_interleaving",
       chess_unbounded_enumerates_every_interleaving},
      {"chess_finds_lost_update_with_one_preemption", chess_finds_lost_update_with_one_preemption},
      {"chess_cas_loop_never_loses", chess_cas_loop_never_loses},
      {"chess_schedule_bound_stops_with_partial_counts",
       chess_schedule_bound_stops_with_partial_counts},
      {"chess_run_over_step_bound_is_no_progress", chess_run_over_step_bound_is_no_progress},
      {"replay_rejects_a_schedule_of_another_run", replay_rejects_a_schedule_of_another_run},
      {"pct_is_seeded_and_finds_the_lost_update", pct_is_seeded_and_finds_the_lost_update},
      {"lin_queue_fifo_and_overlap", lin_queue_fifo_and_overlap},
      {"lin_stack_needs_backtracking", lin_stack_needs_backtracking},
      {"lin_full_and_empty_at_capacity", lin_full_and_empty_at_capacity},
      {"lin_counter_lost_update", lin_counter_lost_update},
      {"lin_sixty_four_ops_and_not_one_more", lin_sixty_four_ops_and_not_one_more},
      {"lin_memo_bounds_the_search", lin_memo_bounds_the_search},
      {"lin_rejects_malformed_histories", lin_rejects_malformed_histories},
      {"lin_print_names_ops_results_and_times", lin_print_names_ops_results_and_times},
      {"schedule_slices_parse_and_format", schedule_slices_parse_and_format},
      {"machine_step_sees_stop_at_once", machine_step_sees_stop_at_once},
      {"driver_disassembles_as_documented", driver_disassembles_as_documented},
      {NULL, NULL},
  };
  static const qtest_case_t tool_cases[] = {
      {"explore_real_algorithms_are_linearizable", explore_real_algorithms_are_linearizable},
      {"explore_folded_real_algorithms_are_linearizable",
       explore_folded_real_algorithms_are_linearizable},
#ifdef QUA_M68K_BACKEND
      {"explore_counts_match_the_solo_lengths", explore_counts_match_the_solo_lengths},
      {"explore_folded_counts_match_the_solo_lengths",
       explore_folded_counts_match_the_solo_lengths},
#endif
      {"explore_broken_variants_are_caught_and_replay",
       explore_broken_variants_are_caught_and_replay},
      {"explore_folded_broken_variants_are_caught_and_replay",
       explore_folded_broken_variants_are_caught_and_replay},
      {"explore_pct_is_seeded_and_catches_broken", explore_pct_is_seeded_and_catches_broken},
      {"explore_bad_usage_names_the_problem", explore_bad_usage_names_the_problem},
      {NULL, NULL},
  };
  int rc = qtest_run("m68k-explore", cases);
  if (tool != NULL)
    rc |= qtest_run("m68k-explore-tool", tool_cases);
  return rc;
}
