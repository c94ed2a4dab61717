/* qtest-qua.h -- helpers for the suites that build quaject graphs. */
#ifndef QUA_QTEST_QUA_H
#define QUA_QTEST_QUA_H

#include <pthread.h>
#include <string.h>

#include "qtest.h"
#include "qua-impl.h"

/* Creates a quaject of `type` from "key=value" parameters (a NULL ends the
 * list early), or fails the case, printing why it was refused. */
#define qtest_make(type, ...) qtest_make_((type), (const char *const[]){__VA_ARGS__, NULL})

static inline qua_quaject_t *qtest_make_(const char *type, const char *const *params) {
  int n = 0;
  while (n < QUA_MAX_PARAMS + 1 && params[n] != NULL)
    n++;
  qua_quaject_t *q = NULL;
  qua_error_t err = {0};
  int r = qua_create(type, params, n, &q, &err);
  if (r != QUA_OK)
    fprintf(stderr, "\n  create %s: %s\n", type, err.msg);
  CU_ASSERT_EQUAL_FATAL(r, QUA_OK);
  return q;
}

/* What the code quajects run must say under the environment's QUA_SYNTH:
 * "stencil", "generic", or NULL when it asks for nothing in particular. */
static inline const char *qtest_requested_impl(void) {
  const char *mode = getenv("QUA_SYNTH");
  return mode == NULL                    ? NULL
         : strcmp(mode, "stencil") == 0 ? "stencil"
         : strcmp(mode, "off") == 0     ? "generic"
                                        : NULL;
}

/* Requires the code that q's callentry `entry` (an index, or QUA_ENTRY_BODY
 * for an active quaject's body; `what` names it in messages) runs for its
 * open sites to be what the environment asked for: stencil code under
 * QUA_SYNTH=stencil, generic code under QUA_SYNTH=off, so that a silent
 * fallback cannot repeat the generic run under the stencil run's name. */
static inline void qtest_runs_requested_code_at(const qua_quaject_t *q, int entry,
                                                const char *what) {
  const char *mode = getenv("QUA_SYNTH");
  const char *impl = qua_quaject_entry_impl(q, entry);
  CU_ASSERT_PTR_NOT_NULL_FATAL(impl);
  if (impl == NULL) /* (for gcc's -Wformat-overflow, which does not see the FATAL) */
    return;
  const char *want = qtest_requested_impl();
  if (want != NULL && strstr(impl, want) == NULL)
    fprintf(stderr, "\n  %s runs \"%s\" under QUA_SYNTH=%s\n", what, impl, mode);
  CU_ASSERT(want == NULL || strstr(impl, want) != NULL);
}

/* The same for q's callentry named `entry` of type `type`. */
static inline void qtest_runs_requested_code(const qua_quaject_t *q, const char *type,
                                             const char *entry) {
  int e = qua_type_entry(qua_type_find(type), entry);
  CU_ASSERT_FATAL(e >= 0);
  char what[2 * QUA_NAME_MAX + 2];
  snprintf(what, sizeof what, "%s.%s", type, entry);
  qtest_runs_requested_code_at(q, e, what);
}

/* Opens a site on q's callentry `entry`, or fails the case. */
static inline qua_site_t *qtest_site(qua_quaject_t *q, const char *entry, const qua_bind_t *h,
                                     unsigned flags) {
  qua_site_t *s = NULL;
  qua_error_t err = {0};
  int r = qua_site_open(q, entry, h, flags, &s, &err);
  if (r != QUA_OK)
    fprintf(stderr, "\n  site %s: %s\n", entry, err.msg);
  CU_ASSERT_EQUAL_FATAL(r, QUA_OK);
  return s;
}

/* One of a quaject's figures, from its description: a pump's ("moved=N
 * sleeps=N lost=N"), a clock's ("ticks=N missed=N"). */
static inline uint64_t qtest_stat(const qua_quaject_t *p, const char *key) {
  char d[160];
  qua_quaject_describe(p, d, sizeof d);
  const char *at = strstr(d, key);
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  return strtoull(at + strlen(key), NULL, 10);
}

/* A blocking caller for the test's own threads: handlers bump a sequence
 * under a mutex; the thread sleeps on a condition with a deadline. */
typedef struct qtest_waiter {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned seq;
} qtest_waiter_t;

static inline void qtest_waiter_init(qtest_waiter_t *w) {
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  w->seq = 0;
}

static inline void qtest_waiter_wake(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  qtest_waiter_t *w = ctx;
  pthread_mutex_lock(&w->mu);
  w->seq++;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

static inline unsigned qtest_waiter_sample(qtest_waiter_t *w) {
  pthread_mutex_lock(&w->mu);
  unsigned s = w->seq;
  pthread_mutex_unlock(&w->mu);
  return s;
}

/* Sleeps until the sequence moves past `seen` or the deadline (qtest_now
 * seconds); false on timeout. */
static inline bool qtest_waiter_wait(qtest_waiter_t *w, unsigned seen, double deadline) {
  pthread_mutex_lock(&w->mu);
  while (w->seq == seen && qtest_now() < deadline) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    pthread_cond_timedwait(&w->cv, &w->mu, &ts);
  }
  bool ok = w->seq != seen;
  pthread_mutex_unlock(&w->mu);
  return ok;
}

#endif
