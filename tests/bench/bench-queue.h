/* bench-queue.h -- what the C and the C++ sides of bench-queue share: the item check, the wait, the Boost.Lockfree loops. */
#ifndef QUA_BENCH_QUEUE_H
#define QUA_BENCH_QUEUE_H

#include <sched.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every item is (producer << QB_PRODUCER_SHIFT) | sequence, sequence 0 .. items-1 per producer. */
#define QB_PRODUCER_SHIFT 40
#define QB_MAX_PRODUCERS 2
#define QB_SEQ_MASK ((UINT64_C(1) << QB_PRODUCER_SHIFT) - 1)

/*
 * One consumer's check, on that consumer's own stack (nothing the timed loops write is shared).
 * With one consumer, every producer's items must arrive as 0, 1, 2, ... exactly. With several,
 * each consumer must see every producer's items in increasing order (FIFO), and its bitmap
 * (one bit per item per producer, its own) records each item; after the run the bitmaps of all
 * consumers must not overlap and must cover every item (qb_bitmaps_verify in bench-queue.c).
 */
typedef struct qb_check {
  uint64_t next[QB_MAX_PRODUCERS]; /* the lowest sequence still allowed, per producer */
  uint64_t *seen[QB_MAX_PRODUCERS]; /* NULL with one consumer */
  long errors;
  long got;
} qb_check_t;

static inline void qb_take(qb_check_t *c, uint64_t x)
{
  uint64_t p = x >> QB_PRODUCER_SHIFT, s = x & QB_SEQ_MASK;
  c->got++;
  if (p >= QB_MAX_PRODUCERS || s < c->next[p]) {
    c->errors++;
    return;
  }
  if (c->seen[p] == 0) {
    c->errors += s != c->next[p];
  } else {
    uint64_t bit = UINT64_C(1) << (s & 63);
    c->errors += (c->seen[p][s >> 6] & bit) != 0;
    c->seen[p][s >> 6] |= bit;
  }
  c->next[p] = s + 1;
}

/* The wait of every side when a ring is full or empty: a pause, and every 64th time a yield (four
 * threads share two CPUs in the contended runs). */
static inline void qb_relax(unsigned *spins)
{
  if ((++*spins & 63) == 0) {
    sched_yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Boost.Lockfree, compiled as C++ (bench-queue-boost.cc). spsc: spsc_queue with a compile-time
 * capacity; mpmc: queue (Michael and Scott's, fixed-size nodes). Each loop returns when it has
 * moved n items: produce puts tag|0 .. tag|n-1, consume takes n items into c, mixed puts one and
 * then takes one, n times. */
void *qb_boost_new(int mpmc);
void qb_boost_free(void *q, int mpmc);
void qb_boost_produce(void *q, int mpmc, uint64_t tag, long n);
void qb_boost_consume(void *q, int mpmc, qb_check_t *c, long n);
void qb_boost_mixed(void *q, int mpmc, uint64_t tag, qb_check_t *c, long n);

#ifdef __cplusplus
}
#endif

#endif
