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
 * (qua__lfq_set_tracked) the queue is linearisable with any number of
 * producers and consumers: FULL and EMPTY are exact, and a put returns EDGE
 * exactly when it took the queue from empty to not empty, a get exactly when
 * it took it from full to not full, in the order of the operations'
 * linearisation points. In untracked mode (the default, and the fast path)
 * they return OK instead, FULL and EMPTY are hints, and FIFO order holds per
 * producer.
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
#define QUA__LFQ_F_COUNTING 4u /* the live switch to tracked mode is under way (lfq.c, 19-23) */

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
  bool borrowed; /* slots are the caller's (qua__lfq_init_in), not freed by fini */
  char pad0[QUA__LFQ_PAD];
  /* Producers' line: the next position to claim, and a past value of tail. */
  _Atomic uint64_t head;
  _Atomic uint64_t tail_cache;
  char pad1[QUA__LFQ_PAD - 2 * sizeof(uint64_t)];
  /* Consumers' line: the next position to take. */
  _Atomic uint64_t tail;
  char pad2[QUA__LFQ_PAD - sizeof(uint64_t)];
  /* Tracked mode only: the count word, the linearisation point of every
   * operation (lfq.c, invariant 12): the items counted and not yet taken,
   * and the position of the next ticket. */
  _Atomic uint64_t count;
  /* The live switch to tracked mode (SP-SC only): the first counted
   * position of each side, or far from it while not yet known. */
  _Atomic uint64_t base_head, base_tail;
  char pad3[QUA__LFQ_PAD - 3 * sizeof(uint64_t)];
};

/* Initialises q empty, untracked and open. Returns 0, -EINVAL if capacity is
 * not a power of two in 1 .. 2^24, or -ENOMEM. */
int qua__lfq_init(qua__lfq_t *q, uint32_t capacity);

/* As qua__lfq_init, with both indices starting at start (tests use it to
 * cross the 2^64 wrap). */
int qua__lfq_init_at(qua__lfq_t *q, uint32_t capacity, uint64_t start);

/* As qua__lfq_init, on the caller's slots (capacity of them, zeroed), which
 * fini leaves alone: a ring kept in a file mapping (quad --state-dir). */
int qua__lfq_init_in(qua__lfq_t *q, uint32_t capacity, struct qua__lfq_slot *slots);

/* The items a ring left by a process that died holds, oldest first, into
 * items (room for capacity): those published at positions from tail on
 * (lfq.c, note 24). -EINVAL when q's fields are not a ring of capacity. */
int qua__lfq_recover(const qua__lfq_t *q, const struct qua__lfq_slot *slots, uint32_t capacity,
                     uint64_t *items, size_t *n);

/* Releases the slots. No operation may run on q meanwhile or afterwards. */
void qua__lfq_fini(qua__lfq_t *q);

/* Turns tracked mode on or off. The caller guarantees quiescence: no
 * operation on q runs during the call, and those before it happen before it
 * (an RCU grace period in which callers were kept out gives both). Tracked
 * operations cost one more RMW (on the count word) and may briefly wait for
 * another thread that is inside its own operation (lfq.c, invariants 13-15). */
void qua__lfq_set_tracked(qua__lfq_t *q, bool tracked);

/* The live switch from untracked to tracked mode of an SP-SC queue that
 * callers keep using (lfq.c, invariants 19-23), in two steps with a grace
 * period between them and one after:
 *
 *   begin_counting  untracked -> counting. The callers must have been
 *                   moved to the complete operations (qua__lfq_put_sp_slow,
 *                   _get_sc_slow and the batches) before, as these count
 *                   once they see the ring counting; the caller then waits
 *                   until no thread is inside an operation that began
 *                   before (a grace period).
 *   end_counting    counting -> tracked: fixes the count from the positions
 *                   where counting began. Callers may then be moved to the
 *                   tracked fast paths; once a grace period shows none runs
 *                   counting code, every edge is exact.
 *
 * Control side only, one switch at a time, at most one producer and one
 * consumer throughout. */
void qua__lfq_begin_counting(qua__lfq_t *q);
void qua__lfq_end_counting(qua__lfq_t *q);

/* Closes q: puts that start after close() returns get CLOSED; gets drain the
 * items, then return CLOSED instead of EMPTY. Any thread, once or more; not
 * concurrently with set_tracked or the live switch (control operations, which
 * the caller serialises). In tracked mode close is exact: it takes effect at
 * one point, and a put that overlaps it either lands before it (and a get
 * returns its item before CLOSED) or returns CLOSED (lfq.c, 18). In untracked
 * and counting mode a put that overlaps close() may still succeed after it;
 * its item is then delivered too. */
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

/* The common cases, shared by both modes. Each does all or nothing:
 * push_* publishes v at the next position when tail_cache shows room (and,
 * mp, the claim CAS wins); pop_* takes the item at tail when it is
 * published (and, mc, the tail CAS wins). false: nothing changed. */
static inline bool qua__lfq_push_sp(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                    uint64_t cap, uint64_t v)
{
  uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
  if (QUA__LFQ_UNLIKELY(pos - atomic_load_explicit(&q->tail_cache, memory_order_acquire) >= cap))
    return false;
  struct qua__lfq_slot *s = &slots[pos & mask];
  atomic_store_explicit(&s->val, v, memory_order_relaxed);
  atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
  atomic_store_explicit(&q->head, pos + 1, memory_order_release);
  return true;
}

/* Claims the next position for a put_mp when tail_cache shows room (and the
 * CAS on head wins): true, and the position in *pos. */
static inline bool qua__lfq_claim_mp(qua__lfq_t *q, uint64_t cap, uint64_t *pos)
{
  uint64_t p = atomic_load_explicit(&q->head, memory_order_relaxed);
  /* The acquire pairs with the release that stored tail_cache (invariant 9). */
  uint64_t tc = atomic_load_explicit(&q->tail_cache, memory_order_acquire);
  if (QUA__LFQ_UNLIKELY(p - tc >= cap) ||
      !atomic_compare_exchange_strong_explicit(&q->head, &p, p + 1, memory_order_relaxed,
                                               memory_order_relaxed))
    return false;
  *pos = p;
  return true;
}

static inline bool qua__lfq_push_mp(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                    uint64_t cap, uint64_t v)
{
  uint64_t pos;
  if (!qua__lfq_claim_mp(q, cap, &pos))
    return false;
  struct qua__lfq_slot *s = &slots[pos & mask];
  atomic_store_explicit(&s->val, v, memory_order_relaxed);
  atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
  return true;
}

/* pos + 1, which the compiler must compute from pos. Having compared a
 * slot's seq equal to pos + 1, it may otherwise store the loaded seq as the
 * next tail: each get's tail would then wait for the slot load of the get
 * before it (a chain through memory of two loads per get) instead of only
 * for the tail store, which is forwarded. */
static inline uint64_t qua__lfq_next(uint64_t pos)
{
  __asm__("" : "+r"(pos));
  return pos + 1;
}

static inline bool qua__lfq_pop_sc(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                   uint64_t *v)
{
  uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
  struct qua__lfq_slot *s = &slots[pos & mask];
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&s->seq, memory_order_acquire) != pos + 1))
    return false;
  *v = atomic_load_explicit(&s->val, memory_order_relaxed);
  atomic_store_explicit(&q->tail, qua__lfq_next(pos), memory_order_release);
  return true;
}

static inline bool qua__lfq_pop_mc(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                   uint64_t *v)
{
  uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
  struct qua__lfq_slot *s = &slots[pos & mask];
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&s->seq, memory_order_acquire) != pos + 1))
    return false;
  uint64_t x = atomic_load_explicit(&s->val, memory_order_relaxed);
  /* Release: the read of val happens before a producer reuses the slot. */
  if (QUA__LFQ_UNLIKELY(!atomic_compare_exchange_strong_explicit(
          &q->tail, &pos, pos + 1, memory_order_release, memory_order_relaxed)))
    return false;
  *v = x;
  return true;
}

/* How many items a put_sp or put_n_sp can store now: the caller is q's one
 * producer, so the room only grows until it puts (tail only advances).
 * 0 when q is closed. */
static inline size_t qua__lfq_room_sp(qua__lfq_t *q)
{
  if (QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) & QUA__LFQ_F_CLOSED))
    return 0;
  uint64_t used = atomic_load_explicit(&q->head, memory_order_relaxed) -
                  atomic_load_explicit(&q->tail, memory_order_acquire);
  return used >= q->capacity ? 0 : (size_t)(q->capacity - used);
}

/* Untracked mode: a put returns OK, FULL or CLOSED; a get OK, EMPTY or
 * CLOSED (see above for who may call which). */
static inline int qua__lfq_put_sp_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                    uint64_t cap, uint64_t v)
{
  if ((QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) != 0)) ||
      QUA__LFQ_UNLIKELY(!qua__lfq_push_sp(q, slots, mask, cap, v)))
    return qua__lfq_put_sp_slow(q, v);
  return QUA__LFQ_OK;
}

static inline int qua__lfq_put_mp_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                    uint64_t cap, uint64_t v)
{
  if ((QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) != 0)) ||
      QUA__LFQ_UNLIKELY(!qua__lfq_push_mp(q, slots, mask, cap, v)))
    return qua__lfq_put_mp_slow(q, v);
  return QUA__LFQ_OK;
}

static inline int qua__lfq_get_sc_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                    uint64_t cap, uint64_t *v)
{
  (void)cap;
  if ((QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) &
                        (QUA__LFQ_F_TRACKED | QUA__LFQ_F_COUNTING))) ||
      QUA__LFQ_UNLIKELY(!qua__lfq_pop_sc(q, slots, mask, v)))
    return qua__lfq_get_sc_slow(q, v);
  return QUA__LFQ_OK;
}

static inline int qua__lfq_get_mc_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                    uint64_t cap, uint64_t *v)
{
  (void)cap;
  if ((QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) &
                        (QUA__LFQ_F_TRACKED | QUA__LFQ_F_COUNTING))) ||
      QUA__LFQ_UNLIKELY(!qua__lfq_pop_mc(q, slots, mask, v)))
    return qua__lfq_get_mc_slow(q, v);
  return QUA__LFQ_OK;
}

/* Tracked mode (lfq.c, invariants 12-16, 18). The count word holds S, the
 * items counted and not yet taken, in its low 38 bits (signed), the closed
 * bit C above them, and R, the position of the next ticket modulo 2^25,
 * above that: W = R * 2^39 + C * 2^38 + S. A put counts (adds to S with a
 * CAS that fails when C is set) in position order: put_sp after publishing,
 * put_mp once the put before its position has counted, and then publishes.
 * A get takes a ticket (one CAS: S - 1, R + 1) that stands for position R,
 * reads that item, and frees the slot in position order. EDGE: S was 0 for
 * a put, capacity for a get. Anything unusual (closed, no room, no ticket, a
 * lost race) goes to the complete operation before anything changed; a put
 * whose turn has not come or a ticket holder whose item is not yet
 * published or whose predecessors have not freed theirs finishes out of
 * line (qua__lfq_tput_finish, qua__lfq_take1). */
#define QUA__LFQ_W_SBITS 38
#define QUA__LFQ_W_CLOSED (UINT64_C(1) << QUA__LFQ_W_SBITS)
#define QUA__LFQ_W_SHIFT 39
#define QUA__LFQ_W_TICKET (UINT64_C(1) << QUA__LFQ_W_SHIFT)
#define QUA__LFQ_W_RMASK ((UINT64_C(1) << (64 - QUA__LFQ_W_SHIFT)) - 1)

/* S of count word w: its low 38 bits, sign-extended. */
static inline int64_t qua__lfq_w_items(uint64_t w)
{
  return (int64_t)(w << (64 - QUA__LFQ_W_SBITS)) >> (64 - QUA__LFQ_W_SBITS);
}

/* C of count word w: set by close (lfq.c, invariant 18). */
static inline bool qua__lfq_w_closed(uint64_t w)
{
  return ((w - (uint64_t)qua__lfq_w_items(w)) & QUA__LFQ_W_CLOSED) != 0;
}

/* The position of w's next ticket, given a tail t read after w, which is at
 * most that position and within capacity below it (lfq.c, invariant 14). */
static inline uint64_t qua__lfq_w_pos(uint64_t w, uint64_t t)
{
  uint64_t r = (w - (uint64_t)qua__lfq_w_items(w)) >> QUA__LFQ_W_SHIFT;
  return t + ((r - t) & QUA__LFQ_W_RMASK);
}

/* Out of line: the rest of a tracked put_mp at pos whose turn had not come
 * (v already written), and the rest of a tracked get that took the ticket
 * of count word w. */
int qua__lfq_tput_finish(qua__lfq_t *q, uint64_t pos);
int qua__lfq_take1(qua__lfq_t *q, uint64_t w, uint64_t *v);

/* Counts one put: EDGE when S was 0; CLOSED, counting nothing, when C is
 * set (the put's item was written but is never ticketed: invariant 18). */
static inline int qua__lfq_counted(qua__lfq_t *q)
{
  uint64_t w = atomic_load_explicit(&q->count, memory_order_acquire);
  do {
    if (QUA__LFQ_UNLIKELY(qua__lfq_w_closed(w)))
      return QUA__LFQ_CLOSED;
  } while (QUA__LFQ_UNLIKELY(!atomic_compare_exchange_weak_explicit(
      &q->count, &w, w + 1, memory_order_acq_rel, memory_order_acquire)));
  return qua__lfq_w_items(w) == 0 ? QUA__LFQ_EDGE : QUA__LFQ_OK;
}

static inline bool qua__lfq_closed_check(qua__lfq_t *q)
{
  return QUA__LFQ_UNLIKELY(atomic_load_explicit(&q->flags, memory_order_relaxed) & QUA__LFQ_F_CLOSED);
}

/* True when every put before position pos has counted: the slot of pos - 1
 * holds the item of pos - 1 or a later one (lfq.c, invariant 13). */
static inline bool qua__lfq_turn(struct qua__lfq_slot *slots, uint64_t mask, uint64_t pos)
{
  uint64_t seq = atomic_load_explicit(&slots[(pos - 1) & mask].seq, memory_order_acquire);
  return (int64_t)(seq - pos) >= 0;
}

/* Outcomes of qua__lfq_tpush_mp besides OK and EDGE. */
#define QUA__LFQ_T_SLOW (-1) /* nothing changed: run the complete operation */
#define QUA__LFQ_T_TURN (-2) /* claimed *pos and wrote v: qua__lfq_tput_finish */

/* Tracked put_mp's common case: claims a position, writes v, and when the
 * put before has counted, counts and publishes: OK or EDGE, or CLOSED when
 * the count was refused (it publishes all the same, so that the next
 * position's turn comes: invariants 13, 18). */
static inline int qua__lfq_tpush_mp(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                    uint64_t cap, uint64_t v, uint64_t *pos)
{
  if (QUA__LFQ_UNLIKELY(!qua__lfq_claim_mp(q, cap, pos)))
    return QUA__LFQ_T_SLOW;
  struct qua__lfq_slot *s = &slots[*pos & mask];
  atomic_store_explicit(&s->val, v, memory_order_relaxed);
  if (QUA__LFQ_UNLIKELY(!qua__lfq_turn(slots, mask, *pos)))
    return QUA__LFQ_T_TURN;
  int st = qua__lfq_counted(q);
  atomic_store_explicit(&s->seq, *pos + 1, memory_order_release);
  return st;
}

static inline int qua__lfq_tput_sp_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                     uint64_t cap, uint64_t v)
{
  if (qua__lfq_closed_check(q) || QUA__LFQ_UNLIKELY(!qua__lfq_push_sp(q, slots, mask, cap, v)))
    return qua__lfq_put_sp_slow(q, v);
  return qua__lfq_counted(q);
}

static inline int qua__lfq_tput_mp_k(qua__lfq_t *q, struct qua__lfq_slot *slots, uint64_t mask,
                                     uint64_t cap, uint64_t v)
{
  uint64_t pos;
  int st;
  if (qua__lfq_closed_check(q) ||
      QUA__LFQ_UNLIKELY((st = qua__lfq_tpush_mp(q, slots, mask, cap, v, &pos)) == QUA__LFQ_T_SLOW))
    return qua__lfq_put_mp_slow(q, v);
  if (QUA__LFQ_UNLIKELY(st == QUA__LFQ_T_TURN))
    return qua__lfq_tput_finish(q, pos);
  return st;
}

/* Takes a ticket: S - 1 and R + 1 in one CAS when S > 0, the word before
 * in *w; false sends the caller to the complete operation. */
static inline bool qua__lfq_ticket(qua__lfq_t *q, uint64_t *w)
{
  uint64_t n = atomic_load_explicit(&q->count, memory_order_acquire);
  *w = n;
  return QUA__LFQ_LIKELY(qua__lfq_w_items(n) > 0) &&
         atomic_compare_exchange_strong_explicit(&q->count, w, n - 1 + QUA__LFQ_W_TICKET,
                                                 memory_order_acq_rel, memory_order_acquire);
}

/* The common case after a ticket of word w: its position is tail (every get
 * before it has freed its slot) and its item is published; reads it into
 * *v and frees the slot. false: nothing changed (qua__lfq_take1 waits). */
static inline bool qua__lfq_take_ticket(qua__lfq_t *q, struct qua__lfq_slot *slots,
                                        uint64_t mask, uint64_t w, uint64_t *v)
{
  uint64_t t = atomic_load_explicit(&q->tail, memory_order_acquire);
  struct qua__lfq_slot *s = &slots[t & mask];
  if (QUA__LFQ_UNLIKELY(qua__lfq_w_pos(w, t) != t) ||
      QUA__LFQ_UNLIKELY(atomic_load_explicit(&s->seq, memory_order_acquire) != t + 1))
    return false;
  *v = atomic_load_explicit(&s->val, memory_order_relaxed);
  atomic_store_explicit(&q->tail, qua__lfq_next(t), memory_order_release);
  return true;
}

/* No flags test: a ticket is had only from a count of items, closed or not.
 * SC and MC run the same code: a ticket is a position either way. */
#define QUA__LFQ_TGET(side)                                                                    \
  static inline int qua__lfq_tget_##side##_k(qua__lfq_t *q, struct qua__lfq_slot *slots,       \
                                             uint64_t mask, uint64_t cap, uint64_t *v)         \
  {                                                                                            \
    uint64_t w;                                                                                \
    if (QUA__LFQ_UNLIKELY(!qua__lfq_ticket(q, &w)))                                            \
      return qua__lfq_get_##side##_slow(q, v);                                                 \
    if (QUA__LFQ_UNLIKELY(!qua__lfq_take_ticket(q, slots, mask, w, v)))                        \
      qua__lfq_take1(q, w, v);                                                                 \
    return qua__lfq_w_items(w) == (int64_t)cap ? QUA__LFQ_EDGE : QUA__LFQ_OK;                  \
  }
QUA__LFQ_TGET(sc)
QUA__LFQ_TGET(mc)
#undef QUA__LFQ_TGET

/* The plain forms of the operations above: the queue's invariants (slots,
 * mask, capacity) loaded from q. (The synthesised templates in
 * queue-templates.c call the push and pop steps themselves, with the
 * invariants as holes, and test only the flags their variant needs.) */
#define QUA__LFQ_PLAIN(op, V)                                                \
  static inline int qua__lfq_##op(qua__lfq_t *q, V v)                        \
  {                                                                          \
    return qua__lfq_##op##_k(q, q->slots, q->mask, q->capacity, v);          \
  }
QUA__LFQ_PLAIN(put_sp, uint64_t)
QUA__LFQ_PLAIN(put_mp, uint64_t)
QUA__LFQ_PLAIN(get_sc, uint64_t *)
QUA__LFQ_PLAIN(get_mc, uint64_t *)
QUA__LFQ_PLAIN(tput_sp, uint64_t)
QUA__LFQ_PLAIN(tput_mp, uint64_t)
QUA__LFQ_PLAIN(tget_sc, uint64_t *)
QUA__LFQ_PLAIN(tget_mc, uint64_t *)
#undef QUA__LFQ_PLAIN

#endif /* QUA_LFQ_H */
