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

/* Requires the code that q's callentry `entry` (of type `type`) runs for its
 * open sites to be what the environment asked for: stencil code under
 * QUA_SYNTH=stencil, generic code under QUA_SYNTH=off, so that a silent
 * fallback cannot repeat the generic run under the stencil run's name. */
static inline void qtest_runs_requested_code(const qua_quaject_t *q, const char *type,
                                             const char *entry) {
  const char *mode = getenv("QUA_SYNTH");
  int e = qua_type_entry(qua_type_find(type), entry);
  CU_ASSERT_FATAL(e >= 0);
  const char *impl = qua_quaject_entry_impl(q, e);
  CU_ASSERT_PTR_NOT_NULL_FATAL(impl);
  if (impl == NULL) /* (for gcc's -Wformat-overflow, which does not see the FATAL) */
    return;
  const char *want = mode == NULL ? NULL
                     : strcmp(mode, "stencil") == 0 ? "stencil"
                     : strcmp(mode, "off") == 0     ? "generic"
                                                    : NULL;
  if (want != NULL && strstr(impl, want) == NULL)
    fprintf(stderr, "\n  %s.%s runs \"%s\" under QUA_SYNTH=%s\n", type, entry, impl, mode);
  CU_ASSERT(want == NULL || strstr(impl, want) != NULL);
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
