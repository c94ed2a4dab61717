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
 *     per producer, not linearisability across producers. Tracked mode (12-16) is exact.
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
 * Tracked mode: linearisable, with exact EDGE, FULL and EMPTY
 * 12. The count word W (q->count) holds three numbers: S, the items counted and not yet
 *     ticketed, as a signed 38-bit field in its low bits; C, the closed bit (18), above it;
 *     and R, the position of the next ticket modulo 2^25, above that:
 *     W = R * 2^39 + C * 2^38 + S (mod 2^64). Decoding sign-extends the low 38 bits into S,
 *     takes C = bit 38 of W - S and R = (W - S) >> 39. W changes only by read-modify-writes:
 *     a tracked put of k items adds k (a CAS that fails when C is set; a counting put's is a
 *     fetch_add), a get of t items subtracts t and adds t * 2^39 (the ticket, a CAS when
 *     S >= t), close adds 2^38 once (a CAS while C is clear), plus the live switch's adds
 *     (19-23). S stays within [-2^37, 2^37) (0 .. capacity <= 2^24 in tracked mode, 15e;
 *     within 2^36 of the bias while counting, 21), so these are additions of the three
 *     numbers with no carry between them, and R's carry out of bit 63 is its wrap modulo
 *     2^25. The modification order of W is the order of the linearisation points of every
 *     tracked operation (15, 18).
 * 13. Puts count in position order: a put of p .. p+k-1 adds to S only after every position
 *     below p has been counted. Let C be the first position not yet counted; then the
 *     positions counted are exactly those below C, and S = C - R for R the full position of
 *     the next ticket (both change only at W's RMWs: a put C += k, S += k; a ticket R += t,
 *     S -= t).
 *     put_sp publishes, then counts: its previous put was its own and finished (counted),
 *     or finished before a variant switch (the switch's grace period, 10).
 *     put_mp writes its values, waits for its turn, counts, and only then publishes (seq
 *     stores); a put_mp whose count close refused (18) publishes all the same, so the
 *     next position's turn comes. Its turn has come when the slot of p - 1 shows seq - p >= 0 (as signed
 *     64-bit), read with acquire. (a) That implies p - 1 was counted. seq == p: p - 1 was
 *     published, by a put_mp, which publishes after counting, or by another put (put_sp,
 *     untracked, counting), which finished before the first put_mp began (the contract: no
 *     put_sp runs beside a put_mp; a variant switch waits for a grace period). seq > p: a
 *     later lap's position q = p - 1 + j * capacity was published, so claimed, which needs
 *     tail > q - capacity >= p - 1: p - 1 was freed, so ticketed, so counted (14). (b) The
 *     put of p - 1 has claimed it (positions below head are claimed), so it too counts and
 *     publishes, waiting only on positions below it: the lowest waiting put's turn has
 *     come, and by induction every one's does. The count of p - 1 is sequenced before its
 *     seq store (release), which p's acquire load reads (or, seq > p, the chain through
 *     tail of 8 and 14): p - 1's RMW on W happens before p's, so it precedes it in W's
 *     modification order. A put_mp waits only for puts that have claimed (never for a
 *     get), and never while it holds no claim but finds no room (15d).
 * 14. Tickets are positions. A get whose CAS takes t tickets from word w (S >= t) owns the
 *     positions R .. R+t-1, R reconstructed in full from tail: the tail it reads after the
 *     CAS is at most R (tail passes a position only when its ticket holder frees it) and
 *     above R - capacity (R < C <= head, and the put of R claimed it after reading some
 *     tail T0 > R - capacity with acquire, directly or through tail_cache (9); that read
 *     happens before the put's RMW on W (or before the grace period of a switch),
 *     which heads a release sequence of RMWs read by this CAS (acq_rel), so this thread's
 *     later read of tail returns T0 or later by coherence). R - tail < capacity <= 2^24 <
 *     2^25, so R = tail + ((R - tail) mod 2^25), qua__lfq_w_pos. S = C - R >= t gives R+t
 *     <= C: the positions are counted, so claimed; published already (put_sp) or about to
 *     be (put_mp: it counted, only its seq stores are left): the holder waits for seq ==
 *     pos + 1 (acquire), then reads val. It then frees in position order: it waits until
 *     tail == R (every earlier ticket holder freed its slots) and stores tail = R + t
 *     (release). Its acquire load of tail chains the happens-before of 8 through the
 *     plain stores of successive holders, so a producer that reads tail past R still sees
 *     every read of those slots done. Only the holder of R moves tail from R, so the wait
 *     ends and the store is safe. A ticket holder waits only for puts that have counted
 *     and for earlier ticket holders; a put waits only for puts (13): no cycle.
 * 15. Linearisation points. Let the abstract queue be the items of positions R .. C-1 in
 *     position order; its length is S. (a) A put that stores linearises at its add to W:
 *     by 13 its positions are C .. C+k-1 then, so it appends its items at the back; EDGE
 *     iff S was 0. (b) A get that takes linearises at its ticket CAS: by 14 it takes the
 *     front t items and returns them (their slots are not reused before it frees them, 3);
 *     EDGE iff S was capacity. (c) A get that reads S <= 0 returns EMPTY (CLOSED: 18) at
 *     that read. (d) A put that finds no room by positions (head - tail >= capacity) reads
 *     S; S >= capacity: FULL at that read. S < capacity there means some put is between
 *     its claim and its count or some get between its ticket and its free; neither waits
 *     on this put (13, 14), so it waits (spinning, then yielding) and tries again:
 *     returning FULL then could follow a get's EDGE from capacity in the order and lose
 *     the producer's wake-up. (e) S <= capacity: a put's claim of p needs p - tail <
 *     capacity and tail <= R, so C - R <= capacity after it counts. Hence W's history is
 *     the size history of a bounded FIFO in linearisation order, every response is the
 *     specification's, EDGE is reported once per transition, and after an EMPTY (FULL)
 *     the next successful put (get) in the order is an EDGE, so a blocking pump never
 *     misses a wake-up. Tracked mode thus trades lock-freedom for exactness: a thread may
 *     wait for another inside the few instructions of its own operation. Every variant
 *     does the same to W and to the slots, so any mix is exact, and so is a variant switch
 *     (W and the slots untouched; the grace period of 10).
 * 16. The inline fast paths (lfq.h) and the synthesised templates (queue-templates.c) are
 *     these operations with the common case unrolled, built from the same inline steps:
 *     tput_sp = push_sp, then counted; tput_mp = tpush_mp (claim, value, turn, count,
 *     publish), or, when the turn has not come, qua__lfq_tput_finish (wait, count,
 *     publish); tget = ticket, then take_ticket (its position is tail and its item is
 *     published: read, free), or qua__lfq_take1 (wait for both). Every other case calls
 *     the complete operation before it has changed anything, so they interleave as one
 *     algorithm.
 * 17. set_tracked(true) stores W = (tail mod 2^25) * 2^39 + (head - tail): exact because
 *     the caller guarantees quiescence (every claimed position published, no ticket
 *     outstanding), and it leaves every position below head published, so the first
 *     put_mp's turn (13) has come.
 *
 * Close
 * 18. close sets C in W with a CAS (while C is clear), then F_CLOSED with an RMW on flags.
 *     Untracked (and counting) mode: a put reads flags first, so one that starts after
 *     close() returned sees it and returns CLOSED. A get that finds nothing reads flags
 *     (acquire); when closed it looks once more (a put that finished before close() is
 *     visible now) and only then returns CLOSED. A put that read flags before close() may
 *     publish after a get returned CLOSED: excluding that would need an RMW or a StoreLoad
 *     fence in put_sp, the fast path. A caller that must not miss such an item lets a grace
 *     period pass after close(); after it, CLOSED is final.
 *     Tracked mode: close is exact, and linearises at its CAS on W. (a) A put's count is a
 *     CAS on W that fails when C is set: the test of C and the count are one RMW, so a put
 *     counted before the close in W's order (its item is ticketed before any get sees C) or
 *     returns CLOSED, having counted nothing. (b) A put that returns CLOSED from flags read
 *     them with acquire after close's flags RMW, which follows its CAS on W: the close's
 *     point is before. (c) A refused put leaves its positions published but never counted
 *     (put_sp has stored head; put_mp publishes so that the next turn comes, 13): S never
 *     grows again, so no ticket reaches them, and positions [C, head) are dead. Every later
 *     put is refused too (C stays set), so a closed queue only drains: nothing else reads
 *     them. A put that finds no room reads W; with C set it returns CLOSED rather than wait
 *     for room that dead positions hold (15d). (d) A get that reads S <= 0 returns CLOSED
 *     when that read shows C, EMPTY otherwise: exact at that read (15c), no second look.
 *     So the modification order of W orders every put, get and the close, and the history
 *     is a bounded FIFO's with a close at one point. Counting puts (19) count with a plain
 *     fetch_add, as their gets take by seq and not by ticket: refusing a count there would
 *     leave S off by the item a get still takes. Close and the live switch are control
 *     operations and never overlap (queue.c serialises them); a counting put still running
 *     after end_counting (22) ends within the grace period that follows it, before the
 *     queue can be closed. The lincheck suite checks tracked runs against the strict close,
 *     and only untracked ones against the documented weaker one (its racy_close).
 *
 * The live switch to tracked mode (SP-SC): W made exact without quiescence
 * 19. A live queue is never quiescent, so set_tracked's snapshot (17) cannot be taken; an
 *     untracked operation that overlaps it would leave S off by one for good. Instead the
 *     switch passes through a counting mode (F_COUNTING) in which every operation keeps W
 *     as tracked mode does but trusts it for nothing: puts add k after publishing, gets
 *     take their items as untracked gets do (no ticket) and afterwards subtract k from S
 *     and add k to R (one fetch_add of k * 2^39 - k). Only the complete operations count,
 *     and they do from the moment they see F_COUNTING; the caller moves its callers onto
 *     them BEFORE it sets the flag, so that once a side has made one operation that counts
 *     (even the rare path of a fast path that did not), its later ones all count: an
 *     operation that read the flag set happens after the move. Then the caller waits for a
 *     grace period, after which no operation that does not count is running, and every
 *     one that starts sees the flag.
 * 20. begin_counting stores W = BIAS (R = 0, S = 2^36, C as flags say) and each side's base (the first
 *     position whose operation counts) as "unknown": its index minus 2^63, a value no
 *     position reaches during a switch. The first counting put claims its position p and,
 *     before it publishes, CASes base_head from unknown to p; the first counting get
 *     likewise sets base_tail to tail before it takes. One producer and one consumer, each
 *     calling one operation at a time, and each side's counting operations come after its
 *     others (19), so every operation of a side at a position >= its base counts, and none
 *     below it does.
 * 21. While counting, S = BIAS + (H - base_head) - (T - base_tail) = BIAS + (H - T) +
 *     (base_tail - base_head) for indices H, T at a moment when no operation is between its
 *     index update and its W update. |base_tail - base_head| is at most capacity plus the
 *     items one side moved uncounted after the other began to count, within one grace
 *     period: far below 2^36 - capacity, so S stays in the field (12), never 0 nor
 *     capacity: a counting put or get reports EDGE (S was 0, S was capacity) only once S is
 *     exact, and a put that finds no room waits only in tracked mode (15d), never on a
 *     biased S.
 * 22. end_counting, after the grace period, fixes a side whose base is still unknown: it
 *     reads the index and CASes it in. That is the base by 20: no untracked operation runs
 *     any longer, and a counting one that has not yet set the base has not yet published
 *     (or taken), so the index is its position; if it set the base first, the CAS fails
 *     and its value stands. Then it adds base_tail * 2^39 + (base_head - base_tail) - BIAS
 *     to W, one fetch_add: S becomes (H - base_head) - (T - base_tail) + base_head -
 *     base_tail = H - T, the number of items, and R becomes base_tail plus the items the
 *     counting gets took, T: what set_tracked would have stored (17). Counting operations
 *     still running after it are exact ones: a put publishes, then adds (as a put_sp); a
 *     get takes, then updates W and reports EDGE iff S was capacity, so a producer that saw
 *     FULL (S == capacity, read before that update) gets its edge.
 * 23. Once the caller has moved its callers to tracked code and a grace period has passed,
 *     no counting operation runs, the one consumer's next ticket is R == T (its counting
 *     gets advanced both), every position below head is published, and W is what 17
 *     describes: 12-16 hold from then on, also for the second producer or consumer that
 *     the caller lets in only after that grace period.
 *
 * A ring left by a process that died (quad --state-dir keeps rings in file mappings)
 * 24. Every write above is a store to the ring's memory, so a process killed at any
 *     instruction leaves q and its slots as they were at that instruction (the page cache
 *     keeps a MAP_SHARED file's pages). qua__lfq_recover reads the items at positions from
 *     tail on whose slot shows seq == p + 1 (published for that lap), in position order:
 *     positions below tail were taken (3); a slot of an older lap shows another seq (2).
 *     Untracked: up to tail + capacity, so a put_sp that published but had not stored head
 *     is there, and a put_mp that had claimed but not published leaves a hole that is
 *     skipped. Tracked: up to C = R + S (12, 13), so the dead positions of puts a close
 *     refused (18c) are not; a ticket holder that had not freed its slots (14) had not
 *     returned, and its items are there. Operations in flight at the kill are thus each
 *     wholly there or wholly not: a put's item is there iff it was published (tracked: and
 *     counted), a get's item is gone iff it moved tail, which it does after reading it and
 *     before returning. The ring is read, never resumed: the caller puts the items into a
 *     new queue.
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

static bool lfq_capacity_ok(uint32_t capacity)
{
  return capacity != 0 && capacity <= QUA__LFQ_MAX_CAPACITY && (capacity & (capacity - 1)) == 0;
}

/* Initialises q on zeroed slots with both indices at start. */
static void lfq_setup(qua__lfq_t *q, uint32_t capacity, struct qua__lfq_slot *slots,
                      uint64_t start)
{
  memset(q, 0, sizeof *q);
  q->slots = slots;
  q->mask = capacity - 1;
  q->capacity = capacity;
  atomic_init(&q->flags, 0);
  atomic_init(&q->head, start);
  atomic_init(&q->tail_cache, start);
  atomic_init(&q->tail, start);
  atomic_init(&q->count, start << QUA__LFQ_W_SHIFT); /* R = start, S = 0 (invariant 12) */
  /* Zero is "not published" for the first lap from 0 (seq 0 < p + 1); otherwise mark
   * every slot as published for the lap before its first position (invariant 2). */
  if (start != 0) {
    for (uint64_t i = 0; i < capacity; i++) {
      uint64_t p = start + ((i - start) & q->mask);
      atomic_init(&slots[i].seq, p + 1 - capacity);
    }
  }
}

int qua__lfq_init_at(qua__lfq_t *q, uint32_t capacity, uint64_t start)
{
  if (!lfq_capacity_ok(capacity))
    return -EINVAL;
  /* calloc: large rings come as fresh zero pages, not touched until used. */
  struct qua__lfq_slot *slots = calloc(capacity, sizeof *slots);
  if (slots == NULL)
    return -ENOMEM;
  lfq_setup(q, capacity, slots, start);
  return 0;
}

int qua__lfq_init_in(qua__lfq_t *q, uint32_t capacity, struct qua__lfq_slot *slots)
{
  if (!lfq_capacity_ok(capacity))
    return -EINVAL;
  lfq_setup(q, capacity, slots, 0);
  q->borrowed = true;
  return 0;
}

int qua__lfq_recover(const qua__lfq_t *q, const struct qua__lfq_slot *slots, uint32_t capacity,
                     uint64_t *items, size_t *n)
{
  *n = 0;
  uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
  uint32_t f = atomic_load_explicit(&q->flags, memory_order_relaxed);
  if (q->capacity != capacity || q->mask != (uint64_t)capacity - 1 || head - tail > capacity)
    return -EINVAL;
  uint64_t end = tail + capacity;
  if ((f & QUA__LFQ_F_TRACKED) && !(f & QUA__LFQ_F_COUNTING)) {
    /* Tracked: the positions counted, C = R + S (12); a refused put's are dead (18c). */
    uint64_t w = atomic_load_explicit(&q->count, memory_order_relaxed);
    int64_t items_s = qua__lfq_w_items(w);
    uint64_t c = qua__lfq_w_pos(w, tail) + (uint64_t)items_s;
    if (items_s < 0 || c - tail > capacity)
      return -EINVAL;
    end = c;
  }
  for (uint64_t p = tail; p != end; p++) {
    const struct qua__lfq_slot *s = &slots[p & (capacity - 1)];
    if (atomic_load_explicit(&s->seq, memory_order_relaxed) == p + 1)
      items[(*n)++] = atomic_load_explicit(&s->val, memory_order_relaxed);
  }
  return 0;
}

int qua__lfq_init(qua__lfq_t *q, uint32_t capacity)
{
  return qua__lfq_init_at(q, capacity, 0);
}

void qua__lfq_fini(qua__lfq_t *q)
{
  if (!q->borrowed)
    free(q->slots);
  q->slots = NULL;
}

/* C for a count word stored afresh: set when q is closed (invariant 18). */
static uint64_t lfq_closed_bit(const qua__lfq_t *q)
{
  return qua__lfq_closed(q) ? QUA__LFQ_W_CLOSED : 0;
}

void qua__lfq_set_tracked(qua__lfq_t *q, bool tracked)
{
  if (tracked) {
    uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
    uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
    atomic_store_explicit(&q->count, (t << QUA__LFQ_W_SHIFT) + lfq_closed_bit(q) + (h - t),
                          memory_order_relaxed);
    atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_TRACKED, memory_order_release);
  } else {
    atomic_fetch_and_explicit(&q->flags, ~QUA__LFQ_F_TRACKED, memory_order_release);
  }
}

#define LFQ_BIAS (UINT64_C(1) << 36)
#define LFQ_FAR (UINT64_C(1) << 63)

void qua__lfq_begin_counting(qua__lfq_t *q)
{
  atomic_store_explicit(&q->count, LFQ_BIAS + lfq_closed_bit(q), memory_order_relaxed);
  atomic_store_explicit(&q->base_head, atomic_load(&q->head) - LFQ_FAR, memory_order_relaxed);
  atomic_store_explicit(&q->base_tail, atomic_load(&q->tail) - LFQ_FAR, memory_order_relaxed);
  atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_COUNTING, memory_order_release);
}

/* True when base is still "unknown" for a side now at position pos (20). */
static inline bool lfq_base_unknown(uint64_t base, uint64_t pos)
{
  uint64_t d = pos - base;
  return d > LFQ_FAR / 2 && d < LFQ_FAR + LFQ_FAR / 2;
}

/* Sets a side's base to pos unless it is known already (20, 22). */
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
  /* R += base_tail, S += (base_head - base_tail) - BIAS: one addition (22). */
  atomic_fetch_add_explicit(&q->count, (bt << QUA__LFQ_W_SHIFT) + (bh - bt) - LFQ_BIAS,
                            memory_order_acq_rel);
  atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_TRACKED, memory_order_release);
  atomic_fetch_and_explicit(&q->flags, ~QUA__LFQ_F_COUNTING, memory_order_release);
}

void qua__lfq_close(qua__lfq_t *q)
{
  /* C first, then the flag: a put that sees the flag is after the close's point (18b). */
  uint64_t w = atomic_load_explicit(&q->count, memory_order_acquire);
  while (!qua__lfq_w_closed(w) &&
         !atomic_compare_exchange_weak_explicit(&q->count, &w, w + QUA__LFQ_W_CLOSED,
                                                memory_order_seq_cst, memory_order_acquire)) {
  }
  atomic_fetch_or_explicit(&q->flags, QUA__LFQ_F_CLOSED, memory_order_seq_cst);
}

bool qua__lfq_closed(const qua__lfq_t *q)
{
  return (atomic_load_explicit(&q->flags, memory_order_acquire) & QUA__LFQ_F_CLOSED) != 0;
}

size_t qua__lfq_count(const qua__lfq_t *q)
{
  if (atomic_load_explicit(&q->flags, memory_order_acquire) & QUA__LFQ_F_TRACKED) {
    /* S; below 0 or above capacity only for a moment of the live switch (22). */
    int64_t n = qua__lfq_w_items(atomic_load_explicit(&q->count, memory_order_acquire));
    return n < 0 ? 0 : n > (int64_t)q->capacity ? q->capacity : (size_t)n;
  }
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

/* Adds k puts to S: EDGE when S was 0 (invariant 15a). Tracked (flags f): CLOSED, adding
 * nothing, once C is set (18a); counting: always (18). */
static inline int lfq_count_put(qua__lfq_t *q, uint32_t f, size_t k)
{
  uint64_t w;
  if (f & QUA__LFQ_F_COUNTING) {
    w = atomic_fetch_add_explicit(&q->count, (uint64_t)k, memory_order_acq_rel);
  } else {
    w = atomic_load_explicit(&q->count, memory_order_acquire);
    do {
      if (qua__lfq_w_closed(w))
        return QUA__LFQ_CLOSED;
    } while (!atomic_compare_exchange_weak_explicit(&q->count, &w, w + k, memory_order_acq_rel,
                                                    memory_order_acquire));
  }
  return qua__lfq_w_items(w) == 0 ? QUA__LFQ_EDGE : QUA__LFQ_OK;
}

/* Publishes the k items written at pos (invariant 2). */
static inline void lfq_publish(qua__lfq_t *q, uint64_t pos, size_t k)
{
  for (size_t i = 0; i < k; i++)
    atomic_store_explicit(&q->slots[(pos + i) & q->mask].seq, pos + i + 1, memory_order_release);
}

/* Waits until every put before pos has counted (tracked put_mp: invariant 13). */
static void lfq_wait_turn(qua__lfq_t *q, uint64_t pos)
{
  unsigned spins = 0;
  while (!qua__lfq_turn(q->slots, q->mask, pos))
    lfq_relax(&spins);
}

/* The complete put of up to n items (invariants 4, 6, 13, 15, 18, 20). */
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
    if (!(f & QUA__LFQ_F_TRACKED) || (f & QUA__LFQ_F_COUNTING))
      return QUA__LFQ_FULL;
    uint64_t w = atomic_load_explicit(&q->count, memory_order_acquire);
    if (qua__lfq_w_closed(w))
      return QUA__LFQ_CLOSED; /* dead positions may hold the room: invariant 18c */
    if (qua__lfq_w_items(w) >= (int64_t)q->capacity)
      return QUA__LFQ_FULL;
    lfq_relax(&spins); /* Someone is inside an operation: invariant 15d. */
  }
  if (f & QUA__LFQ_F_COUNTING)
    lfq_set_base(&q->base_head, pos); /* before publishing: invariant 20 */
  for (size_t i = 0; i < k; i++)
    atomic_store_explicit(&q->slots[(pos + i) & q->mask].val, v[i], memory_order_relaxed);
  int st = QUA__LFQ_OK;
  if (mp && (f & (QUA__LFQ_F_TRACKED | QUA__LFQ_F_COUNTING))) {
    /* In position order: count, then publish, refused or not (invariants 13, 18c). */
    lfq_wait_turn(q, pos);
    st = lfq_count_put(q, f, k);
    lfq_publish(q, pos, k);
  } else {
    lfq_publish(q, pos, k);
    if (!mp)
      atomic_store_explicit(&q->head, pos + k, memory_order_release);
    if (f & (QUA__LFQ_F_TRACKED | QUA__LFQ_F_COUNTING))
      st = lfq_count_put(q, f, k);
  }
  *done = st == QUA__LFQ_CLOSED ? 0 : k;
  return st;
}

int qua__lfq_tput_finish(qua__lfq_t *q, uint64_t pos)
{
  lfq_wait_turn(q, pos);
  int st = lfq_count_put(q, QUA__LFQ_F_TRACKED, 1);
  lfq_publish(q, pos, 1);
  return st;
}

/* Untracked and counting gets: takes the longest published prefix (up to n items) at tail
 * into v and returns its length (invariant 5). */
static inline size_t lfq_take(qua__lfq_t *q, bool mc, uint64_t *v, size_t n)
{
  uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
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
    return 0;
  }
}

/* Tracked gets: takes the t items of the ticket taken from count word w into v. Waits for each
 * to be published, reads it, waits until every earlier ticket holder has freed its slots, and
 * frees (invariant 14). */
static void lfq_take_ticket(qua__lfq_t *q, uint64_t w, uint64_t *v, size_t t)
{
  uint64_t pos = qua__lfq_w_pos(w, atomic_load_explicit(&q->tail, memory_order_acquire));
  unsigned spins = 0;
  for (size_t i = 0; i < t; i++) {
    struct qua__lfq_slot *s = &q->slots[(pos + i) & q->mask];
    while (atomic_load_explicit(&s->seq, memory_order_acquire) != pos + i + 1)
      lfq_relax(&spins); /* a put_mp that counted, publishing */
    v[i] = atomic_load_explicit(&s->val, memory_order_relaxed);
  }
  while (atomic_load_explicit(&q->tail, memory_order_acquire) != pos)
    lfq_relax(&spins); /* an earlier ticket holder, freeing */
  atomic_store_explicit(&q->tail, pos + t, memory_order_release);
}

int qua__lfq_take1(qua__lfq_t *q, uint64_t w, uint64_t *v)
{
  lfq_take_ticket(q, w, v, 1);
  return QUA__LFQ_OK;
}

/* EMPTY, or CLOSED once the queue is closed and a second look found nothing either
 * (invariant 18); *closed_seen carries the first look. */
static inline int lfq_nothing(qua__lfq_t *q, bool *closed_seen)
{
  if (*closed_seen)
    return QUA__LFQ_CLOSED;
  if (!(atomic_load_explicit(&q->flags, memory_order_acquire) & QUA__LFQ_F_CLOSED))
    return QUA__LFQ_EMPTY;
  *closed_seen = true;
  return -1; /* look once more */
}

/* The complete get of up to n items (invariants 5, 6, 14, 15, 18, 19). */
static inline int lfq_get(qua__lfq_t *q, bool mc, uint64_t *v, size_t n, size_t *done)
{
  *done = 0;
  if (n == 0)
    return QUA__LFQ_EMPTY;
  if (n > q->capacity)
    n = q->capacity;
  bool closed_seen = false;
  int st;
  uint32_t f = atomic_load_explicit(&q->flags, memory_order_acquire);
  if (!(f & QUA__LFQ_F_TRACKED) || (f & QUA__LFQ_F_COUNTING)) {
    if (f & QUA__LFQ_F_COUNTING) /* one consumer: tail is its position (20) */
      lfq_set_base(&q->base_tail, atomic_load_explicit(&q->tail, memory_order_relaxed));
    for (;;) {
      size_t k = lfq_take(q, mc, v, n);
      if (k > 0) {
        *done = k;
        if (!(f & QUA__LFQ_F_COUNTING))
          return QUA__LFQ_OK;
        /* S -= k, R += k; EDGE once S is exact (invariants 19, 22). */
        uint64_t w = atomic_fetch_add_explicit(&q->count, k * QUA__LFQ_W_TICKET - k,
                                               memory_order_acq_rel);
        return qua__lfq_w_items(w) == (int64_t)q->capacity ? QUA__LFQ_EDGE : QUA__LFQ_OK;
      }
      if ((st = lfq_nothing(q, &closed_seen)) >= 0)
        return st;
    }
  }
  uint64_t w = atomic_load_explicit(&q->count, memory_order_acquire);
  size_t take;
  for (;;) {
    int64_t s = qua__lfq_w_items(w);
    if (s <= 0) /* exact at this read of W (invariants 15c, 18d) */
      return qua__lfq_w_closed(w) ? QUA__LFQ_CLOSED : QUA__LFQ_EMPTY;
    take = s < (int64_t)n ? (size_t)s : n;
    /* The ticket: S -= take, R += take (invariant 14). */
    if (atomic_compare_exchange_weak_explicit(&q->count, &w, w - take + take * QUA__LFQ_W_TICKET,
                                              memory_order_acq_rel, memory_order_acquire))
      break;
  }
  lfq_take_ticket(q, w, v, take);
  *done = take;
  return qua__lfq_w_items(w) == (int64_t)q->capacity ? QUA__LFQ_EDGE : QUA__LFQ_OK;
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
