/* qtest-qua.h -- helpers for the suites that build quaject graphs. */
#ifndef QUA_QTEST_QUA_H
#define QUA_QTEST_QUA_H

#include "qtest.h"
#include "qua.h"

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

#endif
