/* lfq.c -- the lock-free queue family: design note, init/fini/close and the complete operations. */

/*
 * Design note: one layout for four variants, a variant switch, and exact edges.
 *
 * Layout
 *  1. Positions are 64-bit counters; position p lives in slot p & mask. head is the next
 *     position producers claim, tail the next position consumers take, and
 *     tail <= head <= tail + capacity. Code only compares differences of positions (modulo
 *     2^64), so indices may start anywhere, even just below 2^64 (qua__lfq_init_at).
 *  2. A slot is (seq, val). The producer of position p writes val, then seq = p + 1 with
 *     release: seq == p + 1 means "the item of p is published" (the thesis's valid flag).
 *     Until then seq is p + 1 - capacity (published for the previous lap) or, at start,
 *     another value below p + 1. Consumers never write a slot.
 *  3. Every position p < tail has been taken, and its reader had finished reading val before
 *     tail passed p. So producers learn of free slots from tail alone (rigtorp-style: the
 *     producer keeps a past value of tail in tail_cache on its own line and re-reads tail only
 *     when the cache says full), and consumers learn of items from seq alone: no side reads
 *     the other side's index on its fast path. head, tail and the slots are each on their own
 *     cache lines (QUA__LFQ_PAD apart); a slot line moves producer -> consumer -> producer.
 *
 * The variants (untracked mode)
 *  4. put_sp: pos = head (only this producer writes head). Room if pos - tail_cache <
 *     capacity; otherwise reload tail (acquire) into tail_cache and test again, else FULL.
 *     Write val, store seq = pos + 1 (release), store head = pos + 1. No read-modify-write.
 *     put_mp: the same room test, then CAS head pos -> pos + 1 claims p = pos, then val and
 *     seq as put_sp. One CAS in the common case; a failed CAS means another producer claimed
 *     pos, so the system made progress (lock-free claim).
 *     Both linearise at the seq store.
 *  5. get_sc: pos = tail (only this consumer writes tail). If seq(pos) == pos + 1 (acquire),
 *     read val and store tail = pos + 1 (release); else EMPTY. No read-modify-write.
 *     get_mc: the same test and read of val, then CAS tail pos -> pos + 1 (release). The CAS
 *     validates the read: it succeeds only if tail was still pos, and while tail == pos no
 *     producer may reuse slot p (3), so the val read was p's item. One CAS in the common case.
 *     Both linearise at the seq load that found the item (get_mc: if its CAS then succeeds).
 *     As in Vyukov's queue, a get may find EMPTY at a position claimed by a put_mp that has
 *     not yet published while later positions are published; untracked mode promises FIFO
 *     per producer, not linearisability across producers. Tracked mode (12) is exact.
 *  6. Batches claim k = min(n, room) positions with one store/CAS of head and publish each
 *     slot; get_n reads the longest published prefix (up to n) and advances tail by k with
 *     one store/CAS (DPDK burst semantics: as many as fit / as many as are there).
 *
 * Memory ordering (each acquire and the release it pairs with)
 *  7. seq: the producer's release store seq = p + 1 / the consumer's acquire load that sees
 *     it. The producer's write of val is visible to the consumer's read of val.
 *  8. tail: the consumer's release store (get_sc) or release CAS (get_mc) / the producer's
 *     acquire load of tail. The consumer's read of val happens before the producer's next
 *     write of that slot (val and seq). CAS by other consumers continue the release sequence.
 *  9. tail_cache: stored with release after the acquire load of tail (8), loaded with acquire,
 *     so happens-before is transitive through it when MP producers share it. MP producers may
 *     race to store it and move it backwards; any past value of tail is a safe lower bound.
 *     The CAS on head and on tail carry no data of their own and use relaxed / release only.
 *
 * The variant switch and mixing
 * 10. At the end of every operation of every variant the state means the same thing to all
 *     variants (1-3): positions < head are claimed and published, positions < tail taken,
 *     tail_cache a past tail. The caller guarantees that no thread is inside a function of the
 *     old variant when the new one runs, and its grace period orders the old variant's writes
 *     before the new one's reads. The new variant therefore continues at the same positions:
 *     nothing in flight is lost, duplicated, or reordered per producer.
 * 11. Any mix is valid because each side relies only on the other keeping 2 and 3: every
 *     producer publishes through seq (read by get_sc and get_mc alike) and every consumer
 *     frees through tail after reading (read by put_sp and put_mp alike).
 *
 * Tracked mode: exact EDGE
 * 12. count is the item count S. A put linearises at its fetch_add of S, made after its items
 *     are published: EDGE iff S was 0. A get linearises at its decrement of S, a CAS that only
 *     decrements a positive S ("ticket"), made before it takes its items: EDGE iff S was
 *     capacity. A get that reads S == 0 returns EMPTY (CLOSED if closed); a put that finds no
 *     room and reads S == capacity returns FULL; those reads are their linearisation points.
 *     S changes only by these RMWs, so its history is the size history of a bounded queue in
 *     that linearisation order: EDGE is reported once per transition, and after an EMPTY
 *     (FULL) the next successful put (get) in that order is an EDGE, so a blocking pump never
 *     misses a wake-up. Every variant updates S the same way, so this holds under any mix and
 *     across a switch (which leaves S untouched).
 *     The inline fast paths (lfq.h, qua__lfq_tput_* and qua__lfq_tget_*) are these operations
 *     with their common case unrolled: a put that finds room by tail_cache publishes and adds
 *     to S; a get whose ticket CAS succeeds takes the slot at tail if it is published (else
 *     waits for it out of line, qua__lfq_take1). Every other case calls the complete operation
 *     before it has changed anything, so the two interleave as one algorithm.
 * 13. S agrees with the slots. Let I and D be the increments and decrements made so far, P the
 *     published positions, tail = T, head = H, and k = D - T the tickets not yet turned into
 *     taken items. Then I <= P <= H and S = I - D >= 0, hence H >= T + k: the positions a
 *     ticket holder will take are claimed, and their producers wait for nothing. A ticket
 *     holder may wait for a put_mp between its claim and its publish (never with put_sp,
 *     which publishes in position order, so P >= T + k). A put's increment never takes S above
 *     capacity (S <= H - T - k <= capacity). A put that finds no room while S < capacity waits:
 *     some producer is between its claim and its increment or some consumer between its ticket
 *     and its tail update; neither waits on it, so it finishes. Returning FULL there could
 *     follow a get's EDGE from capacity and lose the producer's wake-up. Tracked mode thus
 *     trades lock-freedom for exactness: a thread may wait (spinning, then yielding) for
 *     another thread inside the few instructions of its own operation.
 * 14. set_tracked(true) sets S = head - tail; that is exact because the caller guarantees
 *     quiescence (everything claimed is published and no ticket is outstanding).
 *
 * Close
 * 15. close sets F_CLOSED with an RMW on flags. A put reads flags first, so one that starts
 *     after close() returned sees it and returns CLOSED. A get that finds nothing reads flags
 *     (acquire); when closed it looks once more (a put that finished before close() is visible
 *     now) and only then returns CLOSED. A put that read flags before close() may publish after
 *     a get returned CLOSED: excluding that would need an RMW or a StoreLoad fence in put_sp.
 *     A caller that must not miss such an item lets a grace period pass after close(); after
 *     it, CLOSED is final.
 *
 * The live switch to tracked mode (SP-SC): count = head - tail, made exact without quiescence
 * 16. A live queue is never quiescent, so set_tracked's snapshot (14) cannot be taken; an
 *     untracked operation that overlaps it would leave S off by one for good. Instead the
 *     switch passes through a counting mode (F_COUNTING) in which every operation keeps S
 *     as tracked mode does but trusts it for nothing: puts add k after publishing, gets
 *     take their items as untracked gets do (no ticket) and subtract k afterwards. Only the
 *     complete operations count, and they do from the moment they see F_COUNTING; the
 *     caller moves its callers onto them BEFORE it sets the flag, so that once a side has
 *     made one operation that counts (even the rare path of a fast path that did not), its
 *     later ones all count: an operation that read the flag set happens after the move.
 *     Then the caller waits for a grace period, after which no operation that does not
 *     count is running, and every one that starts sees the flag.
 * 17. begin_counting stores S = BIAS (2^62) and each side's base (the first position whose
 *     operation counts) as "unknown": its index minus 2^63, a value no position reaches
 *     during a switch. The first counting put claims its position p and, before it
 *     publishes, CASes base_head from unknown to p; the first counting get likewise sets
 *     base_tail to tail before it takes. One producer and one consumer, each calling one
 *     operation at a time, and each side's counting operations come after its others (16),
 *     so every operation of a side at a position >= its base counts, and none below it
 *     does.
 * 18. end_counting, after the grace period, fixes a side whose base is still unknown: it
 *     reads the index and CASes it in. That is the base by 17: no untracked operation runs
 *     any longer, and a counting one that has not yet set the base has not yet published
 *     (or taken), so the index is its position; if it set the base first, the CAS fails
 *     and its value stands. Then S += (base_head - base_tail) - BIAS, one atomic add, so
 *     that with H and T the indices at any moment when no operation is between its index
 *     update and its count update: S = (H - base_head) - (T - base_tail) + base_head -
 *     base_tail = H - T, the number of items, which is what tracked mode's S is (14).
 * 19. While S carries the bias it is near 2^62, never 0 nor capacity: a counting put or get
 *     reports EDGE (old S == 0, old S == capacity) only once S is exact. A put that finds
 *     no room waits only in tracked mode (13), never on a biased S. After end_counting the
 *     counting operations still running are exact ones: a put publishes, then adds (as a
 *     tracked put); a get takes, then subtracts and reports EDGE iff S was capacity, so a
 *     producer that saw FULL (S == capacity, read before that subtraction) gets its edge.
 * 20. Once the caller has moved its callers to tracked code and a grace period has passed,
 *     the only consumer runs ticket-taking gets against an S that counts exactly the
 *     published items not yet ticketed (13 holds again: no ticket was outstanding while it
 *     counted, as counting gets take no tickets and the consumer is one thread).
 */

#include "lfq.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Waits a little for another thread to finish its operation (tracked mode only). */
static void lfq_relax(unsigned *spins)
{
  if (++*spins < 128) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    sched_yield();
  }
}

int qua__lfq_init_at(qua__lfq_t *q, uint32_t capacity, uint64_t start)
{
  if (capacity == 0 || capacity > QUA__LFQ_MAX_CAPACITY || (capacity & (capacity - 1)) != 0)
    return -EINVAL;
  /* calloc: large rings come as fresh zero pages, not touched until used. */
  struct qua__lfq_slot *slots = calloc(capacity, sizeof *slots);
  if (slots == NULL)
    return -ENOMEM;
  memset(q, 0, sizeof *q);
  q->slots = slots;
  q->mask = capacity - 1;
  q->capacity = capacity;
  atomic_init(&q->flags, 0);
  atomic_init(&q->head, start);
  atomic_init(&q->tail_cache, start);
  atomic_init(&q->tail, start);
  atomic_init(&q->count, 0);
  /* Zero is "not published" for the first lap from 0 (seq 0 < p + 1); otherwise mark
   * every slot as published for the lap before its first position (invariant 2). */
  if (start != 0) {
    for (uint64_t i = 0; i < capacity; i++) {
      uint64_t p = start + ((i - start) & q->mask);
      atomic_init(&slots[i].seq, p + 1 - capacity);
    }
  }
  return 0;
}

int qua__lfq_init(qua__lfq_t *q, uint32_t capacity)
{
  return qua__lfq_init_at(q, capacity, 0);
}

void qua__lfq_fini(qua__lfq_t *q)
{
  free(q->slots);
  q->slots = NULL;
}

void qua__lfq_set_tracked(qua__lfq_t *q, bool tracked)
{
  if (tracked) {
    uint64_t n = atomic_load_explicit(&q->head, memory_order_relaxed) -
                 atomic_load_explicit(&q->tail, memory_order_relaxed);
    atomic_store_explicit(&q->count, (int64_t)n, memory_order_relaxed);
    atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_TRACKED, memory_order_release);
  } else {
    atomic_fetch_and_explicit(&q->flags, ~QUA__LFQ_F_TRACKED, memory_order_release);
  }
}

#define LFQ_BIAS (INT64_C(1) << 62)
#define LFQ_FAR (UINT64_C(1) << 63)

void qua__lfq_begin_counting(qua__lfq_t *q)
{
  atomic_store_explicit(&q->count, LFQ_BIAS, memory_order_relaxed);
  atomic_store_explicit(&q->base_head, atomic_load(&q->head) - LFQ_FAR, memory_order_relaxed);
  atomic_store_explicit(&q->base_tail, atomic_load(&q->tail) - LFQ_FAR, memory_order_relaxed);
  atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_COUNTING, memory_order_release);
}

/* True when base is still "unknown" for a side now at position pos (17). */
static inline bool lfq_base_unknown(uint64_t base, uint64_t pos)
{
  uint64_t d = pos - base;
  return d > LFQ_FAR / 2 && d < LFQ_FAR + LFQ_FAR / 2;
}

/* Sets a side's base to pos unless it is known already (17, 18). */
static void lfq_set_base(_Atomic uint64_t *base, uint64_t pos)
{
  uint64_t b = atomic_load_explicit(base, memory_order_acquire);
  if (lfq_base_unknown(b, pos))
    atomic_compare_exchange_strong_explicit(base, &b, pos, memory_order_acq_rel,
                                            memory_order_acquire);
}

void qua__lfq_end_counting(qua__lfq_t *q)
{
  lfq_set_base(&q->base_head, atomic_load_explicit(&q->head, memory_order_acquire));
  lfq_set_base(&q->base_tail, atomic_load_explicit(&q->tail, memory_order_acquire));
  uint64_t bh = atomic_load_explicit(&q->base_head, memory_order_acquire);
  uint64_t bt = atomic_load_explicit(&q->base_tail, memory_order_acquire);
  atomic_fetch_add_explicit(&q->count, (int64_t)(bh - bt) - LFQ_BIAS, memory_order_acq_rel);
  atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_TRACKED, memory_order_release);
  atomic_fetch_and_explicit(&q->flags, ~QUA__LFQ_F_COUNTING, memory_order_release);
}

void qua__lfq_close(qua__lfq_t *q)
{
  atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_CLOSED, memory_order_seq_cst);
}

bool qua__lfq_closed(const qua__lfq_t *q)
{
  return (atomic_load_explicit(&q->flags, memory_order_acquire) & QUA__LFQ_F_CLOSED) != 0;
}

size_t qua__lfq_count(const qua__lfq_t *q)
{
  if (atomic_load_explicit(&q->flags, memory_order_acquire) & QUA__LFQ_F_TRACKED)
    return (size_t)atomic_load_explicit(&q->count, memory_order_acquire);
  /* tail first: head read later is at least that tail, so the difference is >= 0. */
  uint64_t t = atomic_load_explicit(&q->tail, memory_order_acquire);
  uint64_t h = atomic_load_explicit(&q->head, memory_order_acquire);
  uint64_t n = h - t;
  if ((int64_t)n < 0)
    return 0;
  return n > q->capacity ? q->capacity : (size_t)n;
}

uint32_t qua__lfq_capacity(const qua__lfq_t *q)
{
  return q->capacity;
}

/* Claims up to n (1 .. capacity) positions for a put: returns how many (0: no room) and the
 * first in *first. mp: by CAS on head; else the caller owns head and stores it later. */
static inline size_t lfq_claim(qua__lfq_t *q, bool mp, size_t n, uint64_t *first)
{
  const uint64_t cap = q->capacity;
  uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
  for (;;) {
    uint64_t t = atomic_load_explicit(&q->tail_cache, memory_order_acquire);
    int64_t used = (int64_t)(pos - t);
    if (used < 0 || (uint64_t)used + n > cap) {
      /* The cache says full (or our pos is older than it): ask tail (invariants 8, 9). */
      t = atomic_load_explicit(&q->tail, memory_order_acquire);
      atomic_store_explicit(&q->tail_cache, t, memory_order_release);
      used = (int64_t)(pos - t);
      if (used < 0) {
        /* Only an MP producer's pos can be older than tail: take a fresh one. */
        pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        continue;
      }
    }
    uint64_t room = (uint64_t)used >= cap ? 0 : cap - (uint64_t)used;
    size_t k = room < n ? (size_t)room : n;
    if (k == 0)
      return 0;
    if (!mp) {
      *first = pos;
      return k;
    }
    if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + k, memory_order_relaxed,
                                              memory_order_relaxed)) {
      *first = pos;
      return k;
    }
  }
}

/* The complete put of up to n items (invariants 4, 6, 12, 13, 15). */
static inline int lfq_put(qua__lfq_t *q, bool mp, const uint64_t *v, size_t n, size_t *done)
{
  *done = 0;
  uint32_t f = atomic_load_explicit(&q->flags, memory_order_acquire);
  if (f & QUA__LFQ_F_CLOSED)
    return QUA__LFQ_CLOSED;
  if (n == 0)
    return QUA__LFQ_FULL;
  if (n > q->capacity)
    n = q->capacity;
  uint64_t pos;
  size_t k;
  unsigned spins = 0;
  while ((k = lfq_claim(q, mp, n, &pos)) == 0) {
    if (!(f & QUA__LFQ_F_TRACKED) || (f & QUA__LFQ_F_COUNTING) ||
        atomic_load_explicit(&q->count, memory_order_acquire) >= (int64_t)q->capacity)
      return QUA__LFQ_FULL;
    lfq_relax(&spins); /* Someone is inside an operation: invariant 13. */
  }
  if (f & QUA__LFQ_F_COUNTING)
    lfq_set_base(&q->base_head, pos); /* before publishing: invariant 17 */
  for (size_t i = 0; i < k; i++) {
    struct qua__lfq_slot *s = &q->slots[(pos + i) & q->mask];
    atomic_store_explicit(&s->val, v[i], memory_order_relaxed);
    atomic_store_explicit(&s->seq, pos + i + 1, memory_order_release);
  }
  if (!mp)
    atomic_store_explicit(&q->head, pos + k, memory_order_release);
  *done = k;
  if (f & (QUA__LFQ_F_TRACKED | QUA__LFQ_F_COUNTING)) {
    int64_t old = atomic_fetch_add_explicit(&q->count, (int64_t)k, memory_order_acq_rel);
    return old == 0 ? QUA__LFQ_EDGE : QUA__LFQ_OK;
  }
  return QUA__LFQ_OK;
}

/* Takes the longest published prefix (up to n items) at tail into v and returns its length.
 * wait: the caller holds tickets, so the items exist; wait for their publication. */
static inline size_t lfq_take(qua__lfq_t *q, bool mc, uint64_t *v, size_t n, bool wait)
{
  uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
  unsigned spins = 0;
  for (;;) {
    size_t k = 0;
    while (k < n) {
      struct qua__lfq_slot *s = &q->slots[(pos + k) & q->mask];
      if (atomic_load_explicit(&s->seq, memory_order_acquire) != pos + k + 1)
        break;
      v[k] = atomic_load_explicit(&s->val, memory_order_relaxed);
      k++;
    }
    if (k > 0) {
      if (!mc) {
        atomic_store_explicit(&q->tail, pos + k, memory_order_release);
        return k;
      }
      if (atomic_compare_exchange_strong_explicit(&q->tail, &pos, pos + k, memory_order_release,
                                                  memory_order_relaxed))
        return k;
      continue; /* Someone took pos first; the CAS loaded the new tail into pos. */
    }
    if (mc) {
      uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
      if (t != pos) {
        pos = t;
        continue;
      }
    }
    if (!wait)
      return 0;
    lfq_relax(&spins); /* A put_mp between its claim and its publish: invariant 13. */
  }
}

/* The complete get of up to n items (invariants 5, 6, 12, 13, 15). */
static inline int lfq_get(qua__lfq_t *q, bool mc, uint64_t *v, size_t n, size_t *done)
{
  *done = 0;
  if (n == 0)
    return QUA__LFQ_EMPTY;
  if (n > q->capacity)
    n = q->capacity;
  bool closed_seen = false;
  uint32_t f = atomic_load_explicit(&q->flags, memory_order_acquire);
  if (!(f & QUA__LFQ_F_TRACKED) || (f & QUA__LFQ_F_COUNTING)) {
    if (f & QUA__LFQ_F_COUNTING) /* one consumer: tail is its position (17) */
      lfq_set_base(&q->base_tail, atomic_load_explicit(&q->tail, memory_order_relaxed));
    for (;;) {
      size_t k = lfq_take(q, mc, v, n, false);
      if (k > 0) {
        *done = k;
        if (f & QUA__LFQ_F_COUNTING) /* invariant 19 */
          return atomic_fetch_sub_explicit(&q->count, (int64_t)k, memory_order_acq_rel) ==
                         (int64_t)q->capacity
                     ? QUA__LFQ_EDGE
                     : QUA__LFQ_OK;
        return QUA__LFQ_OK;
      }
      if (closed_seen)
        return QUA__LFQ_CLOSED;
      if (!(atomic_load_explicit(&q->flags, memory_order_acquire) & QUA__LFQ_F_CLOSED))
        return QUA__LFQ_EMPTY;
      closed_seen = true; /* Look once more: invariant 15. */
    }
  }
  int64_t s = atomic_load_explicit(&q->count, memory_order_acquire);
  int64_t take;
  for (;;) {
    if (s <= 0) {
      if (closed_seen)
        return QUA__LFQ_CLOSED;
      if (!(atomic_load_explicit(&q->flags, memory_order_acquire) & QUA__LFQ_F_CLOSED))
        return QUA__LFQ_EMPTY;
      closed_seen = true;
      s = atomic_load_explicit(&q->count, memory_order_acquire);
      continue;
    }
    take = s < (int64_t)n ? s : (int64_t)n;
    if (atomic_compare_exchange_weak_explicit(&q->count, &s, s - take, memory_order_acq_rel,
                                              memory_order_acquire))
      break;
  }
  size_t got = 0;
  while (got < (size_t)take)
    got += lfq_take(q, mc, v + got, (size_t)take - got, true);
  *done = got;
  return s == (int64_t)q->capacity ? QUA__LFQ_EDGE : QUA__LFQ_OK;
}

int qua__lfq_take1(qua__lfq_t *q, bool mc, uint64_t *v)
{
  return lfq_take(q, mc, v, 1, true) == 1 ? QUA__LFQ_OK : QUA__LFQ_EMPTY;
}

int qua__lfq_put_n_sp(qua__lfq_t *q, const uint64_t *v, size_t n, size_t *done)
{
  return lfq_put(q, false, v, n, done);
}

int qua__lfq_put_n_mp(qua__lfq_t *q, const uint64_t *v, size_t n, size_t *done)
{
  return lfq_put(q, true, v, n, done);
}

int qua__lfq_get_n_sc(qua__lfq_t *q, uint64_t *v, size_t n, size_t *done)
{
  return lfq_get(q, false, v, n, done);
}

int qua__lfq_get_n_mc(qua__lfq_t *q, uint64_t *v, size_t n, size_t *done)
{
  return lfq_get(q, true, v, n, done);
}

int qua__lfq_put_sp_slow(qua__lfq_t *q, uint64_t v)
{
  size_t done;
  return lfq_put(q, false, &v, 1, &done);
}

int qua__lfq_put_mp_slow(qua__lfq_t *q, uint64_t v)
{
  size_t done;
  return lfq_put(q, true, &v, 1, &done);
}

int qua__lfq_get_sc_slow(qua__lfq_t *q, uint64_t *v)
{
  size_t done;
  return lfq_get(q, false, v, 1, &done);
}

int qua__lfq_get_mc_slow(qua__lfq_t *q, uint64_t *v)
{
  /* get_mc reads before it claims: keep a failed read out of *v. */
  uint64_t x;
  size_t done;
  int r = lfq_get(q, true, &x, 1, &done);
  if (done > 0)
    *v = x;
  return r;
}
