/* test-checker.c -- the queue linearizability checker on small hand-written histories and long ones.
 *
 * Each history is written as operations with [inv, resp] times; the cases
 * say what the checker must answer and why (a FIFO law, a real-time order,
 * FULL and EMPTY against the contents, the two-phase close, and cuts that
 * must and must not be made).
 */
#include <stdlib.h>
#include <string.h>

#include "lincheck.h"
#include "qtest.h"

#define PUT(c, v, r, i, o) {.inv = (i), .resp = (o), .value = (v), .client = (c), .kind = LIN_PUT, .result = (r)}
#define GET(c, v, r, i, o) {.inv = (i), .resp = (o), .value = (v), .client = (c), .kind = LIN_GET, .result = (r)}
#define CLOSE(c, i, o) {.inv = (i), .resp = (o), .client = (c), .kind = LIN_CLOSE, .result = LIN_OK}

static int check(uint32_t capacity, bool lax, lin_op_t *ops, size_t n, lin_report_t *rep) {
  lin_spec_t spec = {.capacity = capacity, .lax = lax};
  lin_report_t mine;
  if (rep == NULL)
    rep = &mine;
  int r = lin_check(&spec, ops, n, rep);
  if (getenv("LINCHECK_VERBOSE") != NULL || r < 0)
    fprintf(stderr, "\n  -> %d, %zu parts: %s\n", r, rep->parts, rep->why);
  return r;
}
#define CHECK(cap, ...) check((cap), false, (lin_op_t[]){__VA_ARGS__}, \
    sizeof((lin_op_t[]){__VA_ARGS__}) / sizeof(lin_op_t), NULL)
#define CHECK_LAX(cap, ...) check((cap), true, (lin_op_t[]){__VA_ARGS__}, \
    sizeof((lin_op_t[]){__VA_ARGS__}) / sizeof(lin_op_t), NULL)

static void sequential_fifo_is_linearizable(void) {
  CU_ASSERT_EQUAL(CHECK(0, PUT(0, 1, LIN_OK, 1, 2), PUT(0, 2, LIN_OK, 3, 4),
                        GET(1, 1, LIN_OK, 5, 6), GET(1, 2, LIN_OK, 7, 8),
                        GET(1, 0, LIN_EMPTY, 9, 10)), 1);
}

static void sequential_lifo_is_not(void) {
  CU_ASSERT_EQUAL(CHECK(0, PUT(0, 1, LIN_OK, 1, 2), PUT(0, 2, LIN_OK, 3, 4),
                        GET(1, 2, LIN_OK, 5, 6), GET(1, 1, LIN_OK, 7, 8)), 0);
}

static void overlapping_puts_may_come_out_either_way(void) {
  CU_ASSERT_EQUAL(CHECK(0, PUT(0, 1, LIN_OK, 1, 4), PUT(1, 2, LIN_OK, 2, 3),
                        GET(2, 2, LIN_OK, 5, 6), GET(2, 1, LIN_OK, 7, 8)), 1);
  CU_ASSERT_EQUAL(CHECK(0, PUT(0, 1, LIN_OK, 1, 4), PUT(1, 2, LIN_OK, 2, 3),
                        GET(2, 1, LIN_OK, 5, 6), GET(2, 2, LIN_OK, 7, 8)), 1);
}

static void get_overlapping_its_put_is_linearizable(void) {
  CU_ASSERT_EQUAL(CHECK(0, GET(1, 7, LIN_OK, 1, 4), PUT(0, 7, LIN_OK, 2, 3)), 1);
}

static void get_before_its_put_is_not(void) {
  CU_ASSERT_EQUAL(CHECK(0, GET(1, 7, LIN_OK, 1, 2), PUT(0, 7, LIN_OK, 3, 4)), 0);
}

static void value_taken_twice_is_not(void) {
  lin_report_t rep;
  lin_op_t h[] = {PUT(0, 7, LIN_OK, 1, 2), GET(1, 7, LIN_OK, 3, 4), GET(2, 7, LIN_OK, 3, 5)};
  CU_ASSERT_EQUAL(check(0, false, h, 3, &rep), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(rep.why, "taken already"));
}

static void value_never_put_is_not(void) {
  CU_ASSERT_EQUAL(CHECK(0, PUT(0, 7, LIN_OK, 1, 2), GET(1, 8, LIN_OK, 3, 4)), 0);
}

static void empty_while_provably_nonempty_is_not(void) {
  CU_ASSERT_EQUAL(CHECK(0, PUT(0, 1, LIN_OK, 1, 2), GET(1, 0, LIN_EMPTY, 3, 4),
                        GET(1, 1, LIN_OK, 5, 6)), 0);
}

static void empty_while_put_pending_is_linearizable(void) {
  CU_ASSERT_EQUAL(CHECK(0, PUT(0, 1, LIN_OK, 1, 6), GET(1, 0, LIN_EMPTY, 2, 3),
                        GET(1, 1, LIN_OK, 4, 5)), 1);
}

static void full_at_capacity_is_linearizable(void) {
  CU_ASSERT_EQUAL(CHECK(2, PUT(0, 1, LIN_OK, 1, 2), PUT(0, 2, LIN_OK, 3, 4),
                        PUT(0, 3, LIN_FULL, 5, 6), GET(1, 1, LIN_OK, 7, 8),
                        PUT(0, 3, LIN_OK, 9, 10)), 1);
}

static void full_below_capacity_is_not(void) {
  CU_ASSERT_EQUAL(CHECK(2, PUT(0, 1, LIN_OK, 1, 2), PUT(0, 2, LIN_FULL, 3, 4)), 0);
  /* ... and a put past capacity that claims success is not either. */
  CU_ASSERT_EQUAL(CHECK(1, PUT(0, 1, LIN_OK, 1, 2), PUT(0, 2, LIN_OK, 3, 4)), 0);
}

static void lax_allows_full_and_empty_hints_only(void) {
  CU_ASSERT_EQUAL(CHECK_LAX(2, PUT(0, 1, LIN_OK, 1, 2), PUT(0, 2, LIN_FULL, 3, 4),
                            GET(1, 0, LIN_EMPTY, 5, 6), GET(1, 1, LIN_OK, 7, 8)), 1);
  /* An EMPTY marked exact (a quiet queue) is not a hint. */
  lin_op_t h[] = {PUT(0, 1, LIN_OK, 1, 2), GET(1, 0, LIN_EMPTY, 3, 4)};
  h[1].exact = true;
  CU_ASSERT_EQUAL(check(0, true, h, 2, NULL), 0);
  /* Order and real time are still checked. */
  CU_ASSERT_EQUAL(CHECK_LAX(0, PUT(0, 1, LIN_OK, 1, 2), PUT(0, 2, LIN_OK, 3, 4),
                            GET(1, 2, LIN_OK, 5, 6), GET(1, 1, LIN_OK, 7, 8)), 0);
}

static void put_after_close_is_refused(void) {
  CU_ASSERT_EQUAL(CHECK(0, CLOSE(0, 1, 2), PUT(1, 5, LIN_CLOSED, 3, 4)), 1);
  CU_ASSERT_EQUAL(CHECK(0, CLOSE(0, 1, 2), PUT(1, 5, LIN_OK, 3, 4)), 0);
  /* A put overlapping the close may land, and is then delivered. */
  CU_ASSERT_EQUAL(CHECK(0, PUT(1, 5, LIN_OK, 1, 4), CLOSE(0, 2, 3), GET(2, 5, LIN_OK, 5, 6),
                        GET(2, 0, LIN_CLOSED, 7, 8)), 1);
}

static void closed_get_only_when_drained_and_final(void) {
  CU_ASSERT_EQUAL(CHECK(0, PUT(1, 5, LIN_OK, 1, 2), CLOSE(0, 3, 4),
                        GET(2, 0, LIN_CLOSED, 5, 6)), 0);
  CU_ASSERT_EQUAL(CHECK(0, CLOSE(0, 1, 2), GET(2, 0, LIN_EMPTY, 3, 4)), 0);
  CU_ASSERT_EQUAL(CHECK(0, GET(2, 0, LIN_CLOSED, 1, 2), CLOSE(0, 3, 4)), 0);
}

static void get_reports_empty_between_the_close_steps(void) {
  /* A put refused during the close, then a get that still says "empty"
   * before the close is final (queue.c, note 5): legal in two steps. */
  CU_ASSERT_EQUAL(CHECK(0, CLOSE(0, 1, 10), PUT(1, 5, LIN_CLOSED, 2, 3),
                        GET(2, 0, LIN_EMPTY, 4, 5), GET(2, 0, LIN_CLOSED, 11, 12)), 1);
}

/* racy_close: a put that overlapped the close may land after a get saw
 * CLOSED (the untracked queues' documented close); one that started after the close
 * returned may not, and without racy_close neither may. */
static void racy_close_allows_only_overlapping_puts_late(void) {
  lin_op_t late[] = {PUT(0, 1, LIN_OK, 1, 9), CLOSE(1, 2, 3), GET(2, 0, LIN_CLOSED, 4, 5),
                     GET(2, 1, LIN_OK, 10, 11)};
  lin_op_t after[] = {CLOSE(1, 1, 2), GET(2, 0, LIN_CLOSED, 3, 4), PUT(0, 1, LIN_OK, 5, 6),
                      GET(2, 1, LIN_OK, 7, 8)};
  lin_spec_t racy = {.racy_close = true}, strict = {0};
  lin_report_t rep;
  CU_ASSERT_EQUAL(lin_check(&racy, late, 4, &rep), 1);
  CU_ASSERT_EQUAL(lin_check(&strict, late, 4, &rep), 0);
  CU_ASSERT_EQUAL(lin_check(&racy, after, 4, &rep), 0);
}

static void cuts_carry_the_queue_over(void) {
  /* One producer, a consumer behind: quiet points with items left in the
   * queue are cut, and the items carried. */
  const long N = QTEST_SANITIZED ? 4000 : 20000;
  lin_op_t *h = calloc(2 * (size_t)N, sizeof *h);
  uint64_t t = 1;
  size_t k = 0;
  for (long i = 0; i < N; i++) {
    h[k++] = (lin_op_t)PUT(0, (uint64_t)i + 100, LIN_OK, t, t + 1);
    t += 2;
    if (i >= 3) {
      h[k++] = (lin_op_t)GET(1, (uint64_t)i + 97, LIN_OK, t, t + 1);
      t += 2;
    }
  }
  lin_report_t rep;
  CU_ASSERT_EQUAL(check(0, false, h, k, &rep), 1);
  CU_ASSERT_EQUAL(rep.parts, k); /* every quiet point: one producer's items are ordered */
  fprintf(stderr, "\n  %zu ops: %zu parts, largest %zu, %zu states\n", rep.ops, rep.parts,
          rep.largest, rep.states);
  /* Swap two items deep inside: found. */
  uint64_t a = 100 + (uint64_t)N * 3 / 4, b = a + 1;
  for (size_t i = 0; i < k; i++)
    if (h[i].kind == LIN_GET && h[i].value == a)
      h[i].value = b;
    else if (h[i].kind == LIN_GET && h[i].value == b)
      h[i].value = a;
  CU_ASSERT_EQUAL(check(0, false, h, k, &rep), 0);
  free(h);
}

static void no_cut_where_overlapping_puts_stay_queued(void) {
  /* a and b overlap and are both still queued at the quiet point [5, 6):
   * the queue may hold [b, a]; cutting with [a, b] would reject this. */
  lin_report_t rep;
  lin_op_t h[] = {PUT(0, 1, LIN_OK, 1, 4), PUT(1, 2, LIN_OK, 2, 3), GET(2, 2, LIN_OK, 7, 8),
                  GET(2, 1, LIN_OK, 9, 10)};
  CU_ASSERT_EQUAL(check(0, false, h, 4, &rep), 1);
  CU_ASSERT_EQUAL(rep.parts, 2); /* [a, b, get b] [get a]: cut only where the queue is known */
}

static void long_concurrent_history_checks_fast(void) {
  /* Four clients in lock step, 200,000 operations (40,000 sanitized), overlapping in pairs:
   * producers 0 and 1 put, consumers 2 and 3 get, into a queue of 4. */
  const long ROUNDS = QTEST_SANITIZED ? 10000 : 50000;
  lin_op_t *h = calloc(4 * (size_t)ROUNDS, sizeof *h);
  uint64_t t = 1, next = 0;
  size_t k = 0;
  for (long r = 0; r < ROUNDS; r++) {
    h[k++] = (lin_op_t)PUT(0, 2 * (uint64_t)r, LIN_OK, t, t + 3);
    h[k++] = (lin_op_t)PUT(1, 2 * (uint64_t)r + 1, LIN_OK, t + 1, t + 2);
    t += 4;
    /* the puts overlapped: either order is fine; the gets overlap too. */
    h[k++] = (lin_op_t)GET(2, next + 1, LIN_OK, t, t + 3);
    h[k++] = (lin_op_t)GET(3, next, LIN_OK, t + 1, t + 2);
    next += 2;
    t += 4;
  }
  double t0 = qtest_now();
  lin_report_t rep;
  CU_ASSERT_EQUAL(check(4, false, h, k, &rep), 1);
  fprintf(stderr, "\n  %zu ops in %.2f s: %zu parts, %zu states\n", rep.ops, qtest_now() - t0,
          rep.parts, rep.states);
  free(h);
}

static void malformed_histories_are_refused(void) {
  lin_report_t rep;
  lin_op_t h1[] = {PUT(0, 1, LIN_OK, 5, 4)};
  CU_ASSERT_EQUAL(check(0, false, h1, 1, &rep), LIN_EINVAL);
  lin_op_t h2[] = {PUT(0, 1, LIN_OK, 1, 2), PUT(1, 1, LIN_OK, 3, 4)};
  CU_ASSERT_EQUAL(check(0, false, h2, 2, &rep), LIN_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(rep.why, "distinct"));
  lin_op_t h3[] = {PUT(0, 1, LIN_EMPTY, 1, 2)};
  CU_ASSERT_EQUAL(check(0, false, h3, 1, &rep), LIN_EINVAL);
  CU_ASSERT_EQUAL(check(0, false, NULL, 0, &rep), 1);
}

static void budget_gives_undecided_not_a_verdict(void) {
  /* Many overlapping puts and gets: more configurations than a budget of 10. */
  lin_op_t h[16];
  for (int i = 0; i < 8; i++) {
    h[i] = (lin_op_t)PUT((uint32_t)i, (uint64_t)i, LIN_OK, 1 + (uint64_t)i, 100);
    h[8 + i] = (lin_op_t)GET(8 + (uint32_t)i, (uint64_t)(7 - i), LIN_OK, 50 + (uint64_t)i, 200);
  }
  lin_spec_t spec = {.max_states = 10};
  lin_report_t rep;
  CU_ASSERT_EQUAL(lin_check(&spec, h, 16, &rep), LIN_EBUDGET);
  CU_ASSERT_PTR_NOT_NULL(strstr(rep.why, "undecided"));
  spec.max_states = 0;
  CU_ASSERT_EQUAL(lin_check(&spec, h, 16, &rep), 1);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"sequential_fifo_is_linearizable", sequential_fifo_is_linearizable},
      {"sequential_lifo_is_not", sequential_lifo_is_not},
      {"overlapping_puts_may_come_out_either_way", overlapping_puts_may_come_out_either_way},
      {"get_overlapping_its_put_is_linearizable", get_overlapping_its_put_is_linearizable},
      {"get_before_its_put_is_not", get_before_its_put_is_not},
      {"value_taken_twice_is_not", value_taken_twice_is_not},
      {"value_never_put_is_not", value_never_put_is_not},
      {"empty_while_provably_nonempty_is_not", empty_while_provably_nonempty_is_not},
      {"empty_while_put_pending_is_linearizable", empty_while_put_pending_is_linearizable},
      {"full_at_capacity_is_linearizable", full_at_capacity_is_linearizable},
      {"full_below_capacity_is_not", full_below_capacity_is_not},
      {"lax_allows_full_and_empty_hints_only", lax_allows_full_and_empty_hints_only},
      {"put_after_close_is_refused", put_after_close_is_refused},
      {"closed_get_only_when_drained_and_final", closed_get_only_when_drained_and_final},
      {"get_reports_empty_between_the_close_steps", get_reports_empty_between_the_close_steps},
      {"racy_close_allows_only_overlapping_puts_late", racy_close_allows_only_overlapping_puts_late},
      {"cuts_carry_the_queue_over", cuts_carry_the_queue_over},
      {"no_cut_where_overlapping_puts_stay_queued", no_cut_where_overlapping_puts_stay_queued},
      {"long_concurrent_history_checks_fast", long_concurrent_history_checks_fast},
      {"malformed_histories_are_refused", malformed_histories_are_refused},
      {"budget_gives_undecided_not_a_verdict", budget_gives_undecided_not_a_verdict},
      {NULL, NULL}};
  return qtest_run("lincheck-checker", cases);
}
