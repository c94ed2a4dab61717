/* qbench.h -- the clock and the median every benchmark of qua uses. */
#ifndef QUA_QBENCH_H
#define QUA_QBENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Monotonic time in seconds, and in nanoseconds. */
static inline double qbench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t qbench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int qbench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v (ascending) and returns its median: v[n / 2]. */
static inline double qbench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, qbench_cmp_double);
  return v[n / 2];
}

#endif
