/* bench-queue.c -- the lfq queue family against DPDK's rte_ring, Boost.Lockfree and concurrencykit's ck_ring, like for like. */

/*
 * Every ring has CAPACITY slots and sits on its own 128-byte aligned memory; every side moves the
 * same 64-bit items ((producer << 40) | sequence) with the same pinning (producers and consumers
 * alternate over CPUs 0 and 1), the same wait (bench-queue.h, qb_relax) and the same check
 * (qb_take: every item once, in each producer's order), kept in the consumer's locals. Runs of
 * the sides compared interleave (ours, anchor 1, anchor 2, ..., ours, ...); each figure is the
 * median of RUNS runs, the spread (min..max) on a '#' line. A run that loses, duplicates or
 * reorders an item ends the program with status 1.
 *
 * Note on capacity: rte_ring, ck_ring and spsc_queue keep one slot free, so they hold
 * CAPACITY - 1 items, ours and Boost's queue CAPACITY.
 *
 *   spsc   one producer, one consumer (SP-SC functions of each ring), run both ways round (the
 *          producer on CPU 0, then on CPU 1; see measure): each figure the geometric mean of the
 *          two ways' medians, each way's on a '#' line, after a line of the CPUs' speeds
 *     BENCH queue_spsc_mops, rte_ring_spsc_mops, boost_spsc_mops, ck_ring_spsc_mops
 *     BENCH queue_spsc_vs_best         ours / the best of the three (goal >= 1.0)
 *     BENCH queue_spsc_vs_best_producer_cpu0, _cpu1   the same, each way alone
 *     BENCH queue_spsc_vs_ck_ring      ours / ck_ring
 *     BENCH queue_tracked_spsc_mops    ours in tracked mode (exact edges: tput_sp/tget_sc)
 *     BENCH queue_tracked_spsc_vs_untracked
 *   mpmc   two producers and two consumers on two CPUs (MP-MC functions)
 *     BENCH queue_mpmc_contended_mops, rte_ring_mpmc_contended_mops, boost_queue_mpmc_contended_mops,
 *           ck_ring_mpmc_contended_mops
 *     BENCH queue_mpmc_contended_vs_rte_ring (goal >= 1.0)
 *     BENCH queue_tracked_mpmc_contended_mops, queue_tracked_mpmc_contended_vs_untracked
 *   mixed  two threads, each putting one item and then getting one (MP-MC functions)
 *     BENCH queue_mpmc_mixed_mops, rte_ring_mpmc_mixed_mops, boost_queue_mpmc_mixed_mops,
 *           ck_ring_mpmc_mixed_mops, queue_mpmc_mixed_vs_rte_ring
 *   burst  (both ways round, as spsc) put_n_sp/get_n_sc of 8 and of 32 against rte_ring_sp_enqueue_burst/sc_dequeue_burst
 *     BENCH queue_burst8_mops, rte_ring_burst8_mops, queue_burst8_vs_rte_ring (goal >= 1.0)
 *     BENCH queue_burst32_mops, rte_ring_burst32_mops, queue_burst32_vs_rte_ring
 *   pingpong  (both ways round) a round trip over two SP-SC rings
 *     BENCH queue_pingpong_ns, rte_ring_pingpong_ns, ck_ring_pingpong_ns,
 *           queue_pingpong_vs_best (the best anchor's time over ours)
 *
 * rte_ring runs without DPDK's EAL: rte_ring_init() on memory from aligned_alloc() needs none of
 * it (no memzone, no lcore), and the enqueue/dequeue functions are inline.
 * QUA_BENCH_ITEMS overrides the items per producer of the spsc and burst runs (the others scale).
 */

#include "lfq.h"
#include "qbench.h"
#include "bench-queue.h"

#include <ck_ring.h>
#include <rte_ring.h>

#include <math.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPACITY 4096u
#define RUNS 7
#define MAX_THREADS 4

enum ring { OURS, RTE, BOOST, CK, TRACKED, NRINGS };
static const char *const ring_name[NRINGS] = {"queue", "rte_ring", "boost", "ck_ring",
                                              "queue (tracked)"};

enum mode { SPSC, MPMC, MIXED, BURST, PINGPONG };

typedef struct bench {
  alignas(128) qua__lfq_t q[2];
  alignas(128) struct ck_ring ck[2];
  struct ck_ring_buffer *ckbuf[2];
  struct rte_ring *rte[2];
  void *boost;
  enum ring ring;
  enum mode mode;
  long items;  /* per producer */
  int burst;   /* BURST: the batch */
  int threads;
  pthread_barrier_t start;
} bench_t;

typedef struct worker {
  alignas(128) bench_t *b;
  int id;
  qb_check_t check; /* copied out of the loop's locals when it ends */
  pthread_t th;
} worker_t;

/* 1 swaps the CPUs of the producer and the consumer (the one-producer, one-consumer modes). */
static int cpu_flip;

static void pin(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
    fprintf(stderr, "# could not pin to CPU %d\n", cpu);
}

/* --- The loops, written once and expanded per ring and variant ------------------------ */

/* PUT(v) is true when v went in; GET(x) is true when an item came out into x (a uint64_t). The
 * variant (SP/MP, SC/MC) is chosen outside the loops, so every loop inlines one ring's code. */
#define PRODUCE_LOOP(PUT)                                                                  \
  for (long k = 0; k < n; k++) {                                                           \
    uint64_t v = tag | (uint64_t)k;                                                        \
    unsigned spins = 0;                                                                    \
    while (!(PUT))                                                                         \
      qb_relax(&spins);                                                                    \
  }
#define CONSUME_LOOP(GET)                                                                  \
  for (long k = 0; k < n; k++) {                                                           \
    uint64_t x;                                                                            \
    unsigned spins = 0;                                                                    \
    while (!(GET))                                                                         \
      qb_relax(&spins);                                                                    \
    qb_take(&local, x);                                                                    \
  }
#define MIXED_LOOP(PUT, GET)                                                               \
  for (long k = 0; k < n; k++) {                                                           \
    uint64_t v = tag | (uint64_t)k, x;                                                     \
    unsigned spins = 0;                                                                    \
    while (!(PUT))                                                                         \
      qb_relax(&spins);                                                                    \
    spins = 0;                                                                             \
    while (!(GET))                                                                         \
      qb_relax(&spins);                                                                    \
    qb_take(&local, x);                                                                    \
  }

#define DEFINE_RING(NAME, PUT_SP, PUT_MP, GET_SC, GET_MC)                                  \
  static void NAME##_produce(bench_t *b, int r, uint64_t tag, bool multi, long n)          \
  {                                                                                        \
    if (multi) {                                                                           \
      PRODUCE_LOOP(PUT_MP)                                                                 \
    } else {                                                                               \
      PRODUCE_LOOP(PUT_SP)                                                                 \
    }                                                                                      \
  }                                                                                        \
  static void NAME##_consume(bench_t *b, int r, qb_check_t *c, bool multi, long n)         \
  {                                                                                        \
    qb_check_t local = *c;                                                                 \
    if (multi) {                                                                           \
      CONSUME_LOOP(GET_MC)                                                                 \
    } else {                                                                               \
      CONSUME_LOOP(GET_SC)                                                                 \
    }                                                                                      \
    *c = local;                                                                            \
  }                                                                                        \
  static __attribute__((unused)) void NAME##_mixed(bench_t *b, uint64_t tag, qb_check_t *c, \
                                                   long n)                                 \
  {                                                                                        \
    const int r = 0;                                                                       \
    qb_check_t local = *c;                                                                 \
    MIXED_LOOP(PUT_MP, GET_MC)                                                             \
    *c = local;                                                                            \
  }

/* A dequeue into a void *, then the word into x (a statement expression: the call is sequenced
 * before the read of p). */
#define VIA_PTR(CALL_OK) ({ void *p = NULL; bool ok_ = (CALL_OK); x = (uintptr_t)p; ok_; })

DEFINE_RING(ours, qua__lfq_put_sp(&b->q[r], v) == QUA__LFQ_OK,
            qua__lfq_put_mp(&b->q[r], v) == QUA__LFQ_OK,
            qua__lfq_get_sc(&b->q[r], &x) == QUA__LFQ_OK,
            qua__lfq_get_mc(&b->q[r], &x) == QUA__LFQ_OK)

/* Tracked mode: a put may report EDGE (was empty), a get EDGE (was full). */
DEFINE_RING(tracked, qua__lfq_tput_sp(&b->q[r], v) <= QUA__LFQ_EDGE,
            qua__lfq_tput_mp(&b->q[r], v) <= QUA__LFQ_EDGE,
            qua__lfq_tget_sc(&b->q[r], &x) <= QUA__LFQ_EDGE,
            qua__lfq_tget_mc(&b->q[r], &x) <= QUA__LFQ_EDGE)

DEFINE_RING(rte, rte_ring_sp_enqueue(b->rte[r], (void *)(uintptr_t)v) == 0,
            rte_ring_mp_enqueue(b->rte[r], (void *)(uintptr_t)v) == 0,
            VIA_PTR(rte_ring_sc_dequeue(b->rte[r], &p) == 0),
            VIA_PTR(rte_ring_mc_dequeue(b->rte[r], &p) == 0))

DEFINE_RING(ck, ck_ring_enqueue_spsc(&b->ck[r], b->ckbuf[r], (void *)(uintptr_t)v),
            ck_ring_enqueue_mpmc(&b->ck[r], b->ckbuf[r], (void *)(uintptr_t)v),
            VIA_PTR(ck_ring_dequeue_spsc(&b->ck[r], b->ckbuf[r], &p)),
            VIA_PTR(ck_ring_dequeue_mpmc(&b->ck[r], b->ckbuf[r], &p)))

/* Batches of b->burst: the producer sends each batch until all of it went in, the consumer takes
 * up to b->burst at a time. */
static void ours_burst_produce(bench_t *b, long n)
{
  uint64_t v[32];
  for (long k = 0; k < n;) {
    const size_t m = n - k < (long)b->burst ? (size_t)(n - k) : (size_t)b->burst; /* the last may be short */
    for (size_t j = 0; j < m; j++)
      v[j] = (uint64_t)k + j;
    size_t sent = 0;
    unsigned spins = 0;
    while (sent < m) {
      size_t done = 0;
      qua__lfq_put_n_sp(&b->q[0], v + sent, m - sent, &done);
      if (done == 0)
        qb_relax(&spins);
      sent += done;
    }
    k += (long)m;
  }
}

static void ours_burst_consume(bench_t *b, qb_check_t *c, long n)
{
  qb_check_t local = *c;
  uint64_t v[32];
  unsigned spins = 0;
  for (long k = 0; k < n;) {
    size_t done = 0;
    qua__lfq_get_n_sc(&b->q[0], v, (size_t)b->burst, &done);
    if (done == 0) {
      qb_relax(&spins);
      continue;
    }
    for (size_t j = 0; j < done; j++)
      qb_take(&local, v[j]);
    k += (long)done;
  }
  *c = local;
}

static void rte_burst_produce(bench_t *b, long n)
{
  void *v[32];
  for (long k = 0; k < n;) {
    const unsigned m = n - k < (long)b->burst ? (unsigned)(n - k) : (unsigned)b->burst;
    for (unsigned j = 0; j < m; j++)
      v[j] = (void *)(uintptr_t)((uint64_t)k + j);
    unsigned sent = 0, spins = 0;
    while (sent < m) {
      unsigned done = rte_ring_sp_enqueue_burst(b->rte[0], v + sent, m - sent, NULL);
      if (done == 0)
        qb_relax(&spins);
      sent += done;
    }
    k += (long)m;
  }
}

static void rte_burst_consume(bench_t *b, qb_check_t *c, long n)
{
  qb_check_t local = *c;
  void *v[32];
  unsigned spins = 0;
  for (long k = 0; k < n;) {
    unsigned done = rte_ring_sc_dequeue_burst(b->rte[0], v, (unsigned)b->burst, NULL);
    if (done == 0) {
      qb_relax(&spins);
      continue;
    }
    for (unsigned j = 0; j < done; j++)
      qb_take(&local, (uintptr_t)v[j]);
    k += (long)done;
  }
  *c = local;
}

/* Ping-pong: thread 0 sends k on ring 0 and waits for its echo on ring 1; thread 1 echoes. */
#define PINGPONG(NAME)                                                                     \
  static void NAME##_ping(bench_t *b, qb_check_t *c, long n)                               \
  {                                                                                        \
    qb_check_t local = *c;                                                                 \
    for (long k = 0; k < n; k++) {                                                         \
      uint64_t x;                                                                          \
      unsigned spins = 0;                                                                  \
      NAME##_put(b, 0, (uint64_t)k);                                                       \
      while (!NAME##_get(b, 1, &x))                                                        \
        qb_relax(&spins);                                                                  \
      qb_take(&local, x);                                                                  \
    }                                                                                      \
    *c = local;                                                                            \
  }                                                                                        \
  static void NAME##_pong(bench_t *b, long n)                                              \
  {                                                                                        \
    for (long k = 0; k < n; k++) {                                                         \
      uint64_t x;                                                                          \
      unsigned spins = 0;                                                                  \
      while (!NAME##_get(b, 0, &x))                                                        \
        qb_relax(&spins);                                                                  \
      NAME##_put(b, 1, x);                                                                 \
    }                                                                                      \
  }

static inline void ours_put(bench_t *b, int r, uint64_t v) { qua__lfq_put_sp(&b->q[r], v); }
static inline bool ours_get(bench_t *b, int r, uint64_t *x)
{
  return qua__lfq_get_sc(&b->q[r], x) == QUA__LFQ_OK;
}
static inline void rte_put(bench_t *b, int r, uint64_t v)
{
  rte_ring_sp_enqueue(b->rte[r], (void *)(uintptr_t)v);
}
static inline bool rte_get(bench_t *b, int r, uint64_t *x)
{
  void *p = NULL;
  bool ok = rte_ring_sc_dequeue(b->rte[r], &p) == 0;
  *x = (uintptr_t)p;
  return ok;
}
static inline void ck_put(bench_t *b, int r, uint64_t v)
{
  ck_ring_enqueue_spsc(&b->ck[r], b->ckbuf[r], (void *)(uintptr_t)v);
}
static inline bool ck_get(bench_t *b, int r, uint64_t *x)
{
  void *p = NULL;
  bool ok = ck_ring_dequeue_spsc(&b->ck[r], b->ckbuf[r], &p);
  *x = (uintptr_t)p;
  return ok;
}
PINGPONG(ours)
PINGPONG(rte)
PINGPONG(ck)

/* --- Threads and runs --------------------------------------------------------------- */

/* Worker id: in spsc/burst/pingpong 0 produces (CPU 0) and 1 consumes (CPU 1); in mpmc 0 and 1
 * produce, 2 and 3 consume (CPUs 0, 1, 0, 1); in mixed 0 and 1 do both. */
static void *worker_main(void *arg)
{
  worker_t *w = arg;
  bench_t *b = w->b;
  pin((w->id & 1) ^ cpu_flip);
  pthread_barrier_wait(&b->start);
  bool multi = b->mode == MPMC || b->mode == MIXED;
  bool producer = b->mode == MPMC ? w->id < 2 : w->id == 0;
  uint64_t tag = (uint64_t)(w->id & 1) << QB_PRODUCER_SHIFT;
  /* In mpmc each consumer stops after n items: together they take both producers' 2n, however
   * the items fall between them. */
  long n = b->items, n_in = n;
  qb_check_t *c = &w->check;
  switch (b->mode) {
  case SPSC:
  case MPMC:
    switch (b->ring) {
    case OURS: producer ? ours_produce(b, 0, tag, multi, n) : ours_consume(b, 0, c, multi, n_in); break;
    case TRACKED:
      producer ? tracked_produce(b, 0, tag, multi, n) : tracked_consume(b, 0, c, multi, n_in);
      break;
    case RTE: producer ? rte_produce(b, 0, tag, multi, n) : rte_consume(b, 0, c, multi, n_in); break;
    case CK: producer ? ck_produce(b, 0, tag, multi, n) : ck_consume(b, 0, c, multi, n_in); break;
    case BOOST:
      producer ? qb_boost_produce(b->boost, multi, tag, n) : qb_boost_consume(b->boost, multi, c, n_in);
      break;
    default: abort();
    }
    break;
  case MIXED:
    switch (b->ring) {
    case OURS: ours_mixed(b, tag, c, n); break;
    case RTE: rte_mixed(b, tag, c, n); break;
    case CK: ck_mixed(b, tag, c, n); break;
    case BOOST: qb_boost_mixed(b->boost, 1, tag, c, n); break;
    default: abort();
    }
    break;
  case BURST:
    if (b->ring == OURS)
      producer ? ours_burst_produce(b, n) : ours_burst_consume(b, c, n);
    else
      producer ? rte_burst_produce(b, n) : rte_burst_consume(b, c, n);
    break;
  case PINGPONG:
    switch (b->ring) {
    case OURS: producer ? ours_ping(b, c, n) : ours_pong(b, n); break;
    case RTE: producer ? rte_ping(b, c, n) : rte_pong(b, n); break;
    case CK: producer ? ck_ping(b, c, n) : ck_pong(b, n); break;
    default: abort();
    }
    break;
  }
  return NULL;
}

static bool multi_consumer(enum mode m)
{
  return m == MPMC || m == MIXED;
}

/* After a multi-consumer run: the consumers' bitmaps must not overlap and must cover every item. */
static long bitmaps_verify(worker_t *w, int first, int count, long items)
{
  long errors = 0;
  size_t words = ((size_t)items + 63) / 64;
  for (int p = 0; p < QB_MAX_PRODUCERS; p++)
    for (size_t i = 0; i < words; i++) {
      uint64_t all = 0, want = i + 1 < words || items % 64 == 0
                                   ? ~UINT64_C(0)
                                   : (UINT64_C(1) << (items % 64)) - 1;
      for (int k = first; k < first + count; k++) {
        errors += (all & w[k].check.seen[p][i]) != 0;
        all |= w[k].check.seen[p][i];
      }
      errors += all != want;
    }
  return errors;
}

/* One run; returns the seconds from the start barrier until the last worker is done. */
static double run_once(enum ring ring, enum mode mode, long items, int burst)
{
  bench_t *b = aligned_alloc(128, (sizeof(bench_t) + 127) / 128 * 128);
  worker_t *w = aligned_alloc(128, sizeof(worker_t) * MAX_THREADS);
  if (b == NULL || w == NULL)
    abort();
  memset(b, 0, sizeof *b);
  memset(w, 0, sizeof(worker_t) * MAX_THREADS);
  b->ring = ring;
  b->mode = mode;
  b->items = items;
  b->burst = burst;
  b->threads = mode == MPMC ? 4 : 2;
  for (int i = 0; i < 2; i++) {
    switch (ring) {
    case OURS:
    case TRACKED:
      if (qua__lfq_init(&b->q[i], CAPACITY) != 0)
        abort();
      qua__lfq_set_tracked(&b->q[i], ring == TRACKED);
      break;
    case CK:
      b->ckbuf[i] = aligned_alloc(128, sizeof(struct ck_ring_buffer) * CAPACITY);
      if (b->ckbuf[i] == NULL)
        abort();
      memset(b->ckbuf[i], 0, sizeof(struct ck_ring_buffer) * CAPACITY);
      ck_ring_init(&b->ck[i], CAPACITY);
      break;
    case RTE: {
      ssize_t size = rte_ring_get_memsize(CAPACITY);
      b->rte[i] = size > 0 ? aligned_alloc(128, ((size_t)size + 127) / 128 * 128) : NULL;
      if (b->rte[i] == NULL || rte_ring_init(b->rte[i], i ? "qb1" : "qb0", CAPACITY, 0) != 0) {
        fprintf(stderr, "bench-queue: rte_ring_init on our own memory failed\n");
        exit(1);
      }
      break;
    }
    case BOOST:
      if (i == 0 && (b->boost = qb_boost_new(multi_consumer(mode))) == NULL)
        abort();
      break;
    default:
      abort();
    }
  }
  size_t words = ((size_t)items + 63) / 64;
  for (int k = 0; k < b->threads; k++) {
    w[k].b = b;
    w[k].id = k;
    bool consumes = mode == MPMC ? k >= 2 : mode == MIXED || k == 1 || mode == PINGPONG;
    if (consumes && multi_consumer(mode))
      for (int p = 0; p < QB_MAX_PRODUCERS; p++)
        if ((w[k].check.seen[p] = calloc(words, sizeof(uint64_t))) == NULL)
          abort();
  }
  pthread_barrier_init(&b->start, NULL, (unsigned)b->threads + 1);
  for (int k = 0; k < b->threads; k++)
    if (pthread_create(&w[k].th, NULL, worker_main, &w[k]) != 0)
      abort();
  pthread_barrier_wait(&b->start);
  double t0 = qbench_now();
  for (int k = 0; k < b->threads; k++)
    pthread_join(w[k].th, NULL);
  double t1 = qbench_now();

  /* Every item once, in each producer's order. */
  long errors = 0, got = 0;
  int first = mode == MPMC ? 2 : mode == PINGPONG ? 0 : mode == MIXED ? 0 : 1;
  int count = mode == MPMC || mode == MIXED ? 2 : 1;
  for (int k = first; k < first + count; k++) {
    errors += w[k].check.errors;
    got += w[k].check.got;
  }
  long want = mode == MPMC || mode == MIXED ? 2 * items : items;
  if (multi_consumer(mode))
    errors += bitmaps_verify(w, first, count, items);
  else
    errors += w[first].check.next[0] != (uint64_t)items;
  if (errors != 0 || got != want) {
    fprintf(stderr, "bench-queue: %s in mode %d delivered %ld items of %ld, %ld wrong\n",
            ring_name[ring], mode, got, want, errors);
    exit(1);
  }

  pthread_barrier_destroy(&b->start);
  for (int k = 0; k < b->threads; k++)
    for (int p = 0; p < QB_MAX_PRODUCERS; p++)
      free(w[k].check.seen[p]);
  for (int i = 0; i < 2; i++) {
    if (ring == OURS || ring == TRACKED)
      qua__lfq_fini(&b->q[i]);
    free(b->ckbuf[i]);
    free(b->rte[i]);
  }
  if (b->boost != NULL)
    qb_boost_free(b->boost, multi_consumer(mode));
  free(w);
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

/*
 * Runs the rings of `rings` (ours first) in turn, RUNS rounds, and prints each one's median as
 * BENCH <prefix of its name>_<what>_<unit>; returns the medians in med[]. Throughput in Mops/s
 * (items moved, all producers, per second); with latency, ns per round trip.
 *
 * With both_ways (one producer, one consumer), every round runs each ring twice, the producer
 * on CPU 0 and then on CPU 1, and a ring's figure is the geometric mean of its two medians; each
 * way's median is printed on a '#' line. Virtual CPUs are not always equal (cpu_speeds shows
 * it), and which side sits on the slower one decides which ring suffers: a ring whose producer
 * reads the consumer's index on every put loses most when the consumer is the faster side (it
 * stays at the producer's heels), a ring with larger slots when the producer is. Either way
 * alone would pick the winner; both, interleaved, are the like-for-like figure.
 */
/* The last measure()'s medians, each way (way 1 only with both_ways). */
static double way_median[2][NRINGS];

static void measure(const enum ring *rings, const char *const *names, int nr, enum mode mode,
                    long items, int burst, bool latency, bool both_ways, double *med)
{
  const int ways = both_ways ? 2 : 1;
  double v[2][NRINGS][RUNS];
  long moved = mode == MPMC || mode == MIXED ? 2 * items : items;
  for (int k = 0; k < nr; k++)
    run_once(rings[k], mode, items / 10, burst); /* warm up: page faults, frequency */
  for (int r = 0; r < RUNS; r++)
    for (int way = 0; way < ways; way++) {
      cpu_flip = way;
      for (int k = 0; k < nr; k++) {
        double t = run_once(rings[k], mode, items, burst);
        v[way][k][r] = latency ? t * 1e9 / (double)items : (double)moved / t / 1e6;
      }
    }
  cpu_flip = 0;
  for (int k = 0; k < nr; k++) {
    stats_t s[2];
    for (int way = 0; way < ways; way++)
      s[way] = summarise(v[way][k], RUNS);
    for (int way = 0; way < ways; way++)
      way_median[way][k] = s[way].median;
    med[k] = ways == 2 ? sqrt(s[0].median * s[1].median) : s[0].median;
    printf("BENCH %s %.1f %s\n", names[k], med[k], latency ? "ns" : "Mops/s");
    for (int way = 0; way < ways; way++)
      printf("# %s%s median %.1f min %.1f max %.1f (%d interleaved runs of %ld items per producer)\n",
             names[k], ways == 1 ? "" : way ? " producer on CPU 1:" : " producer on CPU 0:",
             s[way].median, s[way].min, s[way].max, RUNS, items);
  }
  fflush(stdout);
}

/* How fast each CPU runs a chain of dependent adds alone (ns per add, the median of 5): a
 * virtual CPU whose physical core is shared with another guest's thread shows here. */
static void cpu_speeds(void)
{
  printf("# CPU speeds (ns per dependent add, alone on the CPU):");
  for (int cpu = 0; cpu < 2; cpu++) {
    pin(cpu);
    double t[5];
    for (int r = 0; r < 5; r++) {
      uint64_t x = 0;
      double t0 = qbench_now();
      for (uint64_t i = 0; i < 20000000; i++)
        __asm__ volatile("add %1, %0" : "+r"(x) : "r"(i));
      t[r] = (qbench_now() - t0) / 20000000 * 1e9;
    }
    printf(" CPU %d %.3f", cpu, qbench_median(t, 5));
  }
  printf("\n");
  cpu_set_t all;
  CPU_ZERO(&all);
  CPU_SET(0, &all);
  CPU_SET(1, &all);
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
}

static void ratio(const char *name, double x)
{
  printf("BENCH %s %.2f x\n", name, x);
  fflush(stdout);
}

int main(void)
{
  long items = 10000000;
  const char *e = getenv("QUA_BENCH_ITEMS");
  if (e != NULL && atol(e) > 0)
    items = atol(e);
  double m[NRINGS];

  {
    static const enum ring rings[] = {OURS, RTE, BOOST, CK, TRACKED};
    static const char *const names[] = {"queue_spsc_mops", "rte_ring_spsc_mops",
                                        "boost_spsc_mops", "ck_ring_spsc_mops",
                                        "queue_tracked_spsc_mops"};
    cpu_speeds();
    measure(rings, names, 5, SPSC, items, 0, false, true, m);
    double best = m[1] > m[2] ? m[1] : m[2];
    best = best > m[3] ? best : m[3];
    ratio("queue_spsc_vs_best", m[0] / best);
    for (int way = 0; way < 2; way++) {
      const double *w = way_median[way];
      double b = w[1] > w[2] ? w[1] : w[2];
      b = b > w[3] ? b : w[3];
      ratio(way ? "queue_spsc_vs_best_producer_cpu1" : "queue_spsc_vs_best_producer_cpu0", w[0] / b);
    }
    ratio("queue_spsc_vs_ck_ring", m[0] / m[3]);
    ratio("queue_tracked_spsc_vs_untracked", m[4] / m[0]);
  }
  {
    static const enum ring rings[] = {OURS, RTE, BOOST, CK, TRACKED};
    static const char *const names[] = {
        "queue_mpmc_contended_mops", "rte_ring_mpmc_contended_mops",
        "boost_queue_mpmc_contended_mops", "ck_ring_mpmc_contended_mops",
        "queue_tracked_mpmc_contended_mops"};
    measure(rings, names, 5, MPMC, items / 5, 0, false, false, m);
    ratio("queue_mpmc_contended_vs_rte_ring", m[0] / m[1]);
    ratio("queue_tracked_mpmc_contended_vs_untracked", m[4] / m[0]);
  }
  {
    static const enum ring rings[] = {OURS, RTE, BOOST, CK};
    static const char *const names[] = {"queue_mpmc_mixed_mops", "rte_ring_mpmc_mixed_mops",
                                        "boost_queue_mpmc_mixed_mops", "ck_ring_mpmc_mixed_mops"};
    measure(rings, names, 4, MIXED, items / 5, 0, false, false, m);
    ratio("queue_mpmc_mixed_vs_rte_ring", m[0] / m[1]);
  }
  {
    static const enum ring rings[] = {OURS, RTE};
    static const char *const n8[] = {"queue_burst8_mops", "rte_ring_burst8_mops"};
    static const char *const n32[] = {"queue_burst32_mops", "rte_ring_burst32_mops"};
    measure(rings, n8, 2, BURST, items / 8 * 8, 8, false, true, m);
    ratio("queue_burst8_vs_rte_ring", m[0] / m[1]);
    measure(rings, n32, 2, BURST, items / 32 * 32, 32, false, true, m);
    ratio("queue_burst32_vs_rte_ring", m[0] / m[1]);
  }
  {
    static const enum ring rings[] = {OURS, RTE, CK};
    static const char *const names[] = {"queue_pingpong_ns", "rte_ring_pingpong_ns",
                                        "ck_ring_pingpong_ns"};
    measure(rings, names, 3, PINGPONG, items / 10, 0, true, true, m);
    double best = m[1] < m[2] ? m[1] : m[2];
    ratio("queue_pingpong_vs_best", best / m[0]);
  }
  return 0;
}
