/* bench-queue.c -- throughput and round trip of the lfq queue family against concurrencykit's ck_ring. */

/*
 * Two threads pinned to CPUs 0 and 1 move ITEMS 64-bit words through one ring of CAPACITY
 * slots; the same run measures ck_ring (same capacity, same payload: a void * holding the
 * word). Each figure is the median of RUNS runs, queue and ck_ring alternating; the spread
 * (min/max) goes on a '#' line. The consumer checks every word, so nothing is optimised away.
 *
 *   BENCH queue_spsc_mops / ck_ring_spsc_mops / queue_spsc_vs_ck_ring
 *   BENCH queue_mpmc_mops / ck_ring_mpmc_mops / queue_mpmc_vs_ck_ring
 *     (one producer and one consumer calling the MP-MC functions)
 *   BENCH queue_pingpong_ns / ck_ring_pingpong_ns / queue_pingpong_vs_ck_ring
 *     (a round trip over two SP-SC rings; the ratio is ck_ring's time over ours)
 *
 * QUA_BENCH_ITEMS overrides ITEMS (and scales the round trips).
 */

#include "lfq.h"
#include "qbench.h"

#include <ck_ring.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAPACITY 4096u
#define RUNS 7

static long items = 10000000;

enum kind { QUEUE_SPSC, CK_SPSC, QUEUE_MPMC, CK_MPMC, QUEUE_PINGPONG, CK_PINGPONG };

typedef struct bench {
  enum kind kind;
  qua__lfq_t q[2];
  struct ck_ring ring[2];
  struct ck_ring_buffer *buf[2];
  pthread_barrier_t start;
  long errors;
} bench_t;

static void pin(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
    fprintf(stderr, "# could not pin to CPU %d\n", cpu);
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* The side that sends: items words into ring 0; in ping-pong, waits for each echo on ring 1. */
static void *sender(void *arg)
{
  bench_t *b = arg;
  pin(0);
  pthread_barrier_wait(&b->start);
  switch (b->kind) {
  case QUEUE_SPSC:
    for (long i = 0; i < items; i++)
      while (qua__lfq_put_sp(&b->q[0], (uint64_t)i) != QUA__LFQ_OK)
        relax();
    break;
  case QUEUE_MPMC:
    for (long i = 0; i < items; i++)
      while (qua__lfq_put_mp(&b->q[0], (uint64_t)i) != QUA__LFQ_OK)
        relax();
    break;
  case CK_SPSC:
    for (long i = 0; i < items; i++)
      while (!ck_ring_enqueue_spsc(&b->ring[0], b->buf[0], (void *)(uintptr_t)i))
        relax();
    break;
  case CK_MPMC:
    for (long i = 0; i < items; i++)
      while (!ck_ring_enqueue_mpmc(&b->ring[0], b->buf[0], (void *)(uintptr_t)i))
        relax();
    break;
  case QUEUE_PINGPONG:
    for (long i = 0; i < items; i++) {
      uint64_t x;
      qua__lfq_put_sp(&b->q[0], (uint64_t)i);
      while (qua__lfq_get_sc(&b->q[1], &x) != QUA__LFQ_OK)
        relax();
      b->errors += x != (uint64_t)i;
    }
    break;
  case CK_PINGPONG:
    for (long i = 0; i < items; i++) {
      void *x;
      ck_ring_enqueue_spsc(&b->ring[0], b->buf[0], (void *)(uintptr_t)i);
      while (!ck_ring_dequeue_spsc(&b->ring[1], b->buf[1], &x))
        relax();
      b->errors += (uintptr_t)x != (uintptr_t)i;
    }
    break;
  }
  return NULL;
}

/* The side that receives and checks; in ping-pong it echoes on ring 1. */
static void receiver(bench_t *b)
{
  long errors = 0;
  switch (b->kind) {
  case QUEUE_SPSC:
    for (long i = 0; i < items; i++) {
      uint64_t x;
      while (qua__lfq_get_sc(&b->q[0], &x) != QUA__LFQ_OK)
        relax();
      errors += x != (uint64_t)i;
    }
    break;
  case QUEUE_MPMC:
    for (long i = 0; i < items; i++) {
      uint64_t x;
      while (qua__lfq_get_mc(&b->q[0], &x) != QUA__LFQ_OK)
        relax();
      errors += x != (uint64_t)i;
    }
    break;
  case CK_SPSC:
    for (long i = 0; i < items; i++) {
      void *x;
      while (!ck_ring_dequeue_spsc(&b->ring[0], b->buf[0], &x))
        relax();
      errors += (uintptr_t)x != (uintptr_t)i;
    }
    break;
  case CK_MPMC:
    for (long i = 0; i < items; i++) {
      void *x;
      while (!ck_ring_dequeue_mpmc(&b->ring[0], b->buf[0], &x))
        relax();
      errors += (uintptr_t)x != (uintptr_t)i;
    }
    break;
  case QUEUE_PINGPONG:
    for (long i = 0; i < items; i++) {
      uint64_t x;
      while (qua__lfq_get_sc(&b->q[0], &x) != QUA__LFQ_OK)
        relax();
      qua__lfq_put_sp(&b->q[1], x);
    }
    break;
  case CK_PINGPONG:
    for (long i = 0; i < items; i++) {
      void *x;
      while (!ck_ring_dequeue_spsc(&b->ring[0], b->buf[0], &x))
        relax();
      ck_ring_enqueue_spsc(&b->ring[1], b->buf[1], x);
    }
    break;
  }
  b->errors += errors;
}

/* One run: returns seconds from the start barrier until the receiver is done. */
static double run_once(enum kind kind)
{
  bench_t *b = aligned_alloc(64, (sizeof(bench_t) + 63) / 64 * 64);
  if (b == NULL)
    abort();
  memset(b, 0, sizeof *b);
  b->kind = kind;
  for (int i = 0; i < 2; i++) {
    if (qua__lfq_init(&b->q[i], CAPACITY) != 0)
      abort();
    b->buf[i] = aligned_alloc(64, sizeof(struct ck_ring_buffer) * CAPACITY);
    if (b->buf[i] == NULL)
      abort();
    memset(b->buf[i], 0, sizeof(struct ck_ring_buffer) * CAPACITY);
    ck_ring_init(&b->ring[i], CAPACITY);
  }
  pthread_barrier_init(&b->start, NULL, 2);
  pthread_t th;
  if (pthread_create(&th, NULL, sender, b) != 0)
    abort();
  pin(1);
  pthread_barrier_wait(&b->start);
  double t0 = qbench_now();
  receiver(b);
  double t1 = qbench_now();
  pthread_join(th, NULL);
  if (b->errors != 0) {
    fprintf(stderr, "bench-queue: kind %d delivered %ld wrong words\n", kind, b->errors);
    exit(1);
  }
  pthread_barrier_destroy(&b->start);
  for (int i = 0; i < 2; i++) {
    qua__lfq_fini(&b->q[i]);
    free(b->buf[i]);
  }
  free(b);
  return t1 - t0;
}

typedef struct stats {
  double median, min, max;
} stats_t;

static stats_t summarise(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, qbench_cmp_double);
  return (stats_t){v[n / 2], v[0], v[n - 1]};
}

/* Runs ours and the anchor alternately; figures in Mops/s (throughput) or ns (round trip). */
static void compare(const char *ours, enum kind kq, const char *anchor, enum kind kc,
                    const char *ratio, bool latency)
{
  double q[RUNS], c[RUNS];
  run_once(kq); /* warm up: page faults, frequency */
  for (int i = 0; i < RUNS; i++) {
    double tq = run_once(kq), tc = run_once(kc);
    q[i] = latency ? tq * 1e9 / (double)items : (double)items / tq / 1e6;
    c[i] = latency ? tc * 1e9 / (double)items : (double)items / tc / 1e6;
  }
  stats_t sq = summarise(q, RUNS), sc = summarise(c, RUNS);
  const char *unit = latency ? "ns" : "Mops/s";
  printf("BENCH %s %.1f %s\n", ours, sq.median, unit);
  printf("BENCH %s %.1f %s\n", anchor, sc.median, unit);
  printf("BENCH %s %.2f x\n", ratio, latency ? sc.median / sq.median : sq.median / sc.median);
  printf("# %s min %.1f max %.1f; %s min %.1f max %.1f (%d runs of %ld)\n", ours, sq.min, sq.max,
         anchor, sc.min, sc.max, RUNS, items);
  fflush(stdout);
}

int main(void)
{
  const char *e = getenv("QUA_BENCH_ITEMS");
  if (e != NULL && atol(e) > 0)
    items = atol(e);
  long throughput_items = items;
  compare("queue_spsc_mops", QUEUE_SPSC, "ck_ring_spsc_mops", CK_SPSC, "queue_spsc_vs_ck_ring",
          false);
  compare("queue_mpmc_mops", QUEUE_MPMC, "ck_ring_mpmc_mops", CK_MPMC, "queue_mpmc_vs_ck_ring",
          false);
  items = throughput_items / 10; /* a round trip costs ~10x a queued word */
  compare("queue_pingpong_ns", QUEUE_PINGPONG, "ck_ring_pingpong_ns", CK_PINGPONG,
          "queue_pingpong_vs_ck_ring", true);
  return 0;
}
