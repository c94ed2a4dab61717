/* record.h -- recording queue histories for the checker: one clock, one log per thread.
 *
 * Every event takes a tick of one global atomic counter, so the events of
 * all threads are totally ordered and an operation's [inv, resp] brackets
 * whatever it did (its linearisation point, if it has one). Each thread
 * appends to its own log; lin_logs_check() merges them and runs the
 * checker.
 */
#ifndef QUA_LIN_RECORD_H
#define QUA_LIN_RECORD_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lincheck.h"
#include "qtest.h"

static _Atomic uint64_t lin_clock;

static inline uint64_t lin_tick(void) { return atomic_fetch_add(&lin_clock, 1) + 1; }

typedef struct lin_log {
  lin_op_t *ops;
  size_t n, cap;
} lin_log_t;

static inline void lin_log_init(lin_log_t *l, size_t cap) {
  l->ops = malloc(cap * sizeof *l->ops);
  l->n = 0;
  l->cap = l->ops != NULL ? cap : 0;
}

static inline bool lin_log_full(const lin_log_t *l) { return l->n >= l->cap; }

/* Appends one completed operation (the log must not be full). */
static inline lin_op_t *lin_log_add(lin_log_t *l, lin_kind_t kind, lin_result_t result,
                                    uint64_t value, uint32_t client, uint64_t inv, uint64_t resp) {
  lin_op_t *op = &l->ops[l->n++];
  *op = (lin_op_t){.inv = inv, .resp = resp, .value = value, .client = client,
                   .kind = (uint8_t)kind, .result = (uint8_t)result};
  return op;
}

static inline void lin_logs_free(lin_log_t *logs, int nlogs) {
  for (int i = 0; i < nlogs; i++) {
    free(logs[i].ops);
    logs[i] = (lin_log_t){0};
  }
}

/* Merges the logs and checks the history: 1, 0 or LIN_E*.
 * Prints a summary line under `name` and, when the history is not
 * linearizable, the failing part's first operations. */
static inline int lin_logs_check(const lin_spec_t *spec, lin_log_t *logs, int nlogs,
                                 const char *name, lin_report_t *rep) {
  size_t n = 0;
  for (int i = 0; i < nlogs; i++)
    n += logs[i].n;
  lin_op_t *all = malloc((n + 1) * sizeof *all);
  if (all == NULL)
    return LIN_ENOMEM;
  size_t k = 0;
  for (int i = 0; i < nlogs; i++) {
    memcpy(all + k, logs[i].ops, logs[i].n * sizeof *all);
    k += logs[i].n;
  }
  double t0 = qtest_now();
  int r = lin_check(spec, all, n, rep);
  fprintf(stderr, "\n  %s: %zu ops, %zu parts (largest %zu), %zu states, %.3f s: %s%s%s\n", name,
          rep->ops, rep->parts, rep->largest, rep->states, qtest_now() - t0,
          r == 1 ? "linearizable" : r == 0 ? "NOT linearizable" : "undecided",
          rep->why[0] ? ": " : "", rep->why);
  if (r == 0) {
    /* The failing part up to the operation it could not place, at most
     * the last 60 (LINCHECK_VERBOSE: all), and the 20 invoked after it
     * (those it overlaps are among them). */
    size_t first = rep->bad_first, end = rep->blocker + 1;
    size_t after = n - end < 20 ? n - end : 20;
    if (getenv("LINCHECK_VERBOSE") == NULL && end - first > 60)
      first = end - 60;
    lin_print(stderr, all, first, end - first, SIZE_MAX);
    fprintf(stderr, "  after it:\n");
    lin_print(stderr, all, end, after, SIZE_MAX);
  }
  free(all);
  return r;
}

/* The cases whose names contain one of the comma-separated words of
 * `only` (all of them when only is NULL or empty), for shell loops that
 * repeat a few cases. The list returned is static: call once. */
static inline const qtest_case_t *lin_select_cases(const qtest_case_t *cases, const char *only) {
  static qtest_case_t picked[64];
  if (only == NULL || only[0] == '\0')
    return cases;
  size_t n = 0;
  for (const qtest_case_t *c = cases; c->name != NULL && n + 1 < 64; c++) {
    for (const char *w = only; *w != '\0'; w += strcspn(w, ","), w += *w == ',') {
      char word[64];
      size_t len = strcspn(w, ",");
      len = len < sizeof word - 1 ? len : sizeof word - 1;
      memcpy(word, w, len);
      word[len] = '\0';
      if (word[0] != '\0' && strstr(c->name, word) != NULL) {
        picked[n++] = *c;
        break;
      }
    }
  }
  picked[n] = (qtest_case_t){NULL, NULL};
  return picked;
}

#endif
