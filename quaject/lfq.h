/* lfq.h -- bounded lock-free FIFO of 64-bit words: SP-SC, MP-SC, SP-MC and MP-MC on one layout. */
#ifndef QUA_LFQ_H
#define QUA_LFQ_H

/*
 * A qua__lfq is a ring of capacity slots (a power of two, 1 .. 2^24). Every
 * operation comes in the variants below; the suffix says who may call it
 * concurrently with itself:
 *
 *   put_sp  at most one thread at a time calls a put_sp/put_n_sp of q, and no
 *           put_mp/put_n_mp runs meanwhile;
 *   put_mp  any number of threads;
 *   get_sc  at most one thread at a time calls a get_sc/get_n_sc of q, and no
 *           get_mc/get_n_mc runs meanwhile;
 *   get_mc  any number of threads.
 *
 * The producer side and the consumer side choose their variants
 * independently (any mix is valid), and a side may change variant when no
 * thread is inside a function of its old variant (e.g. after an RCU grace
 * period): all variants share one layout, so nothing is lost, duplicated or
 * reordered per producer across the switch. lfq.c explains why (design note).
 *
 * Status: every put/get returns one of enum qua__lfq_status. In tracked mode
 * (qua__lfq_set_tracked) a put returns EDGE exactly when it took the queue
 * from empty to not empty, a get exactly when it took it from full to not
 * full, in the order of the operations' linearisation points. In untracked
 * mode (the default, and the fast path) they return OK instead.
 *
 * Batches move as many items as fit (or as are there), in one index update,
 * store the number moved in *done, and return OK/EDGE when *done > 0, else
 * FULL/EMPTY/CLOSED. A batch returns EDGE when it crossed the edge. A get_n
 * may scribble on v[*done .. n) (multi-consumer reads happen before the claim).
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QUA__LFQ_MAX_CAPACITY (UINT32_C(1) << 24)

/* Distance kept between fields written by different sides: two cache lines,
 * so that the adjacent-line prefetcher does not couple them either. */
#define QUA__LFQ_PAD 128

enum qua__lfq_status {
  QUA__LFQ_OK = 0,     /* done */
  QUA__LFQ_EDGE = 1,   /* done, and crossed the edge (put: was empty; get: was full) */
  QUA__LFQ_FULL = 2,   /* put found no room; nothing stored */
  QUA__LFQ_EMPTY = 3,  /* get found nothing */
  QUA__LFQ_CLOSED = 4, /* queue closed (get: closed and drained) */
};

/* Bits of qua__lfq.flags. */
#define QUA__LFQ_F_TRACKED 1u
#define QUA__LFQ_F_CLOSED 2u

/* One slot: seq == pos + 1 once the item of position pos is published in val. */
struct qua__lfq_slot {
  _Atomic uint64_t seq;
  _Atomic uint64_t val;
};

typedef struct qua__lfq qua__lfq_t;

struct qua__lfq {
  /* Read-mostly: set by init; flags change only by close and set_tracked. */
  struct qua__lfq_slot *slots;
  uint64_t mask;
  uint32_t capacity;
  _Atomic uint32_t flags;
  char pad0[QUA__LFQ_PAD];
  /* Producers' line: the next position to claim, and a past value of tail. */
  _Atomic uint64_t head;
  _Atomic uint64_t tail_cache;
  char pad1[QUA__LFQ_PAD - 2 * sizeof(uint64_t)];
  /* Consumers' line: the next position to take. */
  _Atomic uint64_t tail;
  char pad2[QUA__LFQ_PAD - sizeof(uint64_t)];
  /* Tracked mode only: the number of items, the linearisation point. */
  _Atomic int64_t count;
  char pad3[QUA__LFQ_PAD - sizeof(int64_t)];
};

/* Initialises q empty, untracked and open. Returns 0, -EINVAL if capacity is
 * not a power of two in 1 .. 2^24, or -ENOMEM. */
int qua__lfq_init(qua__lfq_t *q, uint32_t capacity);

/* As qua__lfq_init, with both indices starting at start (tests use it to
 * cross the 2^64 wrap). */
int qua__lfq_init_at(qua__lfq_t *q, uint32_t capacity, uint64_t start);

/* Releases the slots. No operation may run on q meanwhile or afterwards. */
void qua__lfq_fini(qua__lfq_t *q);

/* Turns tracked mode on or off. The caller guarantees quiescence: no
 * operation on q runs during the call, and those before it happen before it
 * (an RCU grace period in which callers were kept out gives both). Tracked
 * operations cost one more RMW (on the count) and may briefly wait for another
 * thread that is inside its own operation (lfq.c, invariant 13). */
void qua__lfq_set_tracked(qua__lfq_t *q, bool tracked);

/* Closes q: puts that start after close() returns get CLOSED; gets drain the
 * items, then return CLOSED instead of EMPTY. Any thread, once or more. A put
 * that overlaps close() may still succeed; its item is then delivered too. */
void qua__lfq_close(qua__lfq_t *q);
bool qua__lfq_closed(const qua__lfq_t *q);

/* A snapshot of the number of items; exact when quiescent, and in tracked
 * mode the count at some point during the call. */
size_t qua__lfq_count(const qua__lfq_t *q);
uint32_t qua__lfq_capacity(const qua__lfq_t *q);

/* The complete operations, out of line (lfq.c). The inline functions below
 * are their fast paths and fall back to them. */
int qua__lfq_put_n_sp(qua__lfq_t *q, const uint64_t *v, size_t n, size_t *done);
int qua__lfq_put_n_mp(qua__lfq_t *q, const uint64_t *v, size_t n, size_t *done);
int qua__lfq_get_n_sc(qua__lfq_t *q, uint64_t *v, size_t n, size_t *done);
int qua__lfq_get_n_mc(qua__lfq_t *q, uint64_t *v, size_t n, size_t *done);
int qua__lfq_put_sp_slow(qua__lfq_t *q, uint64_t v);
int qua__lfq_put_mp_slow(qua__lfq_t *q, uint64_t v);
int qua__lfq_get_sc_slow(qua__lfq_t *q, uint64_t *v);
int qua__lfq_get_mc_slow(qua__lfq_t *q, uint64_t *v);

#define QUA__LFQ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define QUA__LFQ_LIKELY(x) __builtin_expect(!!(x), 1)

/* Stores v; one producer (see above). Returns OK/EDGE, FULL or CLOSED. */
static inline int qua__lfq_put_sp_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                      uint64_t cap, uint64_t v)
{
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) != 0))
    return qua__lfq_put_sp_slow(q, v);
  uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
  if (QUA__LFQ_UNLIKELY(pos - atomic_load_explicit(&q->tail_cache, memory_order_acquire) >= cap))
    return qua__lfq_put_sp_slow(q, v);
  struct qua__lfq_slot *s = &slots[pos & mask];
  atomic_store_explicit(&s->val, v, memory_order_relaxed);
  atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
  atomic_store_explicit(&q->head, pos + 1, memory_order_release);
  return QUA__LFQ_OK;
}

/* Stores v; any number of producers. Returns OK/EDGE, FULL or CLOSED. */
static inline int qua__lfq_put_mp_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                      uint64_t cap, uint64_t v)
{
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) != 0))
    return qua__lfq_put_mp_slow(q, v);
  uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
  /* The acquire pairs with the release that stored tail_cache (invariant 5). */
  uint64_t tc = atomic_load_explicit(&q->tail_cache, memory_order_acquire);
  if (QUA__LFQ_UNLIKELY(pos - tc >= cap) ||
      !atomic_compare_exchange_strong_explicit(&q->head, &pos, pos + 1, memory_order_relaxed,
                                               memory_order_relaxed))
    return qua__lfq_put_mp_slow(q, v);
  struct qua__lfq_slot *s = &slots[pos & mask];
  atomic_store_explicit(&s->val, v, memory_order_relaxed);
  atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
  return QUA__LFQ_OK;
}

/* Takes the oldest item into *v; one consumer. Returns OK/EDGE, EMPTY or CLOSED. */
static inline int qua__lfq_get_sc_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                      uint64_t cap, uint64_t *v)
{
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) &
                        QUA__LFQ_F_TRACKED))
    return qua__lfq_get_sc_slow(q, v);
  uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
  struct qua__lfq_slot *s = &slots[pos & mask];
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&s->seq, memory_order_acquire) != pos + 1))
    return qua__lfq_get_sc_slow(q, v);
  *v = atomic_load_explicit(&s->val, memory_order_relaxed);
  atomic_store_explicit(&q->tail, pos + 1, memory_order_release);
  return QUA__LFQ_OK;
}

/* Takes the oldest item into *v; any number of consumers. Returns OK/EDGE,
 * EMPTY or CLOSED. */
static inline int qua__lfq_get_mc_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                      uint64_t cap, uint64_t *v)
{
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) &
                        QUA__LFQ_F_TRACKED))
    return qua__lfq_get_mc_slow(q, v);
  uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
  struct qua__lfq_slot *s = &slots[pos & mask];
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&s->seq, memory_order_acquire) != pos + 1))
    return qua__lfq_get_mc_slow(q, v);
  uint64_t x = atomic_load_explicit(&s->val, memory_order_relaxed);
  /* Release: the read of val happens before a producer reuses the slot. */
  if (QUA__LFQ_UNLIKELY(!atomic_compare_exchange_strong_explicit(
          &q->tail, &pos, pos + 1, memory_order_release, memory_order_relaxed)))
    return qua__lfq_get_mc_slow(q, v);
  *v = x;
  return QUA__LFQ_OK;
}

/* The operations above with the queue's invariants (slots, mask, capacity)
 * passed in: the plain forms load them from q; synthesised code (the
 * templates in queue-templates.c) passes them as constants. */
static inline int qua__lfq_put_sp(qua__lfq_t *q, uint64_t v)
{
  return qua__lfq_put_sp_k(q, q->slots, q->mask, q->capacity, v);
}

static inline int qua__lfq_put_mp(qua__lfq_t *q, uint64_t v)
{
  return qua__lfq_put_mp_k(q, q->slots, q->mask, q->capacity, v);
}

static inline int qua__lfq_get_sc(qua__lfq_t *q, uint64_t *v)
{
  return qua__lfq_get_sc_k(q, q->slots, q->mask, q->capacity, v);
}

static inline int qua__lfq_get_mc(qua__lfq_t *q, uint64_t *v)
{
  return qua__lfq_get_mc_k(q, q->slots, q->mask, q->capacity, v);
}

#endif /* QUA_LFQ_H */
