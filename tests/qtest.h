/* qtest.h -- the small harness every CUnit suite of qua shares. */
#ifndef QUA_QTEST_H
#define QUA_QTEST_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct qtest_case {
  const char *name;
  void (*fn)(void);
} qtest_case_t;

/* Runs the cases as one CUnit suite; exits non-zero when any fails. */
static inline int qtest_run(const char *suite, const qtest_case_t *cases) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  CU_pSuite s = CU_add_suite(suite, NULL, NULL);
  for (const qtest_case_t *c = cases; c->name != NULL; c++)
    CU_add_test(s, c->name, c->fn);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return failed == 0 ? 0 : 1;
}

static inline double qtest_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Scale for stress tests: sanitizers slow code 5-15x. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define QTEST_SANITIZED 1
#else
#define QTEST_SANITIZED 0
#endif

static inline long qtest_scale(long plain, long sanitized) {
  const char *e = getenv("QUA_STRESS_ITEMS");
  if (e != NULL && atol(e) > 0)
    return atol(e);
  return QTEST_SANITIZED ? sanitized : plain;
}

#endif
