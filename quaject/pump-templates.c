/* pump-templates.c -- the pump's step as a template with holes.
 *
 * The step moves up to n items from the source to the sink. Each of its
 * two callouts is folded in as a direct call to the code its wire's site
 * runs at synthesis time (pt_source, pt_sink), with that site as the
 * argument (pt_source_site, pt_sink_site): no load of the wire, of the
 * site's code pointer, or of the unwired check per item (collapsing the
 * callout layer). Whenever a wire's site gets new code the step is rebuilt
 * in the same pass (synth.c, note 4). pt_hold is where an item the sink
 * refused is left for the pump's thread.
 *
 * pt_move is the step for a pump between two queues (a get wired to its
 * source, a put to its sink), both synthesised: the source's get and the
 * sink's put are collapsed into one body that moves a batch, the source's
 * get_n into a buffer on the stack and the sink's put_n from it (pt_get_n,
 * pt_put_n: the queues' complete batch operations for their variants, on
 * their rings pt_src_lfq, pt_dst_lfq), so a tracked queue pays one
 * read-modify-write of its count per batch instead of one per item. The
 * outcomes are the per-item step's:
 *
 *  - a batch is no larger than the room in the sink, whose one producer
 *    the pump is (a put wired to a queue that runs SP code), so only a
 *    close of the sink that overlaps the batch can leave items over: they
 *    are held, as pt_step holds its one item, and the retry through the
 *    sink's code reports the close (a batch is thus lost to a close where
 *    pt_step loses one item, counted in the pump's lost=);
 *  - the source had nothing (empty, closed, or anything unusual) or the
 *    sink no room: one item goes through both sites' own code, as pt_step
 *    moves it, which says what happens (their callbacks, their status);
 *  - an edge a batch crossed is broadcast to the queue's listeners, as the
 *    queue's put_n and get_n do (notfull on the source, notempty on the
 *    sink);
 *  - held items are retried in order by the pump's thread through the
 *    sink's own code.
 *
 * pt_drain is the step for a pump from a synthesised queue's get into any
 * other sink (a tee, a counter's pass, a buffer): the source's side is
 * pt_move's, a batch by get_n into a buffer on the stack (one read-modify-
 * write of a tracked queue's count per batch, the notfull edge broadcast),
 * and the sink's code is called directly for each item. The sink cannot say
 * how much room it has, so when it refuses an item that item and the rest
 * of the batch are held, in order, and retried by the pump's thread through
 * the sink's own code as a refused item of pt_step is: a full sink keeps up
 * to a batch waiting in the pump where pt_step keeps one, and a sink that
 * closes meanwhile loses what is held, counted in the pump's lost=. */
#include "qua.h"
#include "types-internal.h"

extern char pt_source_site[], pt_sink_site[], pt_hold[];
extern int pt_source(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
extern int pt_sink(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
extern char pt_src_lfq[], pt_dst_lfq[], pt_src_q[], pt_dst_q[];
extern int pt_get_n(qua__lfq_t *q, uint64_t *v, size_t n, size_t *done);
extern int pt_put_n(qua__lfq_t *q, const uint64_t *v, size_t n, size_t *done);
void qua__broadcast(qua_quaject_t *q, int cb, uint64_t arg);

/* n items refused by the sink, kept in order in the hold for the pump's
 * thread to retry. */
static inline void hold(const uint64_t *items, size_t n) {
  pump_hold_t *h = (pump_hold_t *)(uintptr_t)pt_hold;
  for (size_t i = 0; i < n; i++)
    h->items[i] = items[i];
  h->first = 0;
  h->n = (uint32_t)n;
}

/* Up to `want` items from the source into buf by its get_n, notfull
 * broadcast on the edge; returns how many it took. */
static inline size_t take(uint64_t *buf, size_t want) {
  size_t got = 0;
  if (__builtin_expect(pt_get_n((qua__lfq_t *)(uintptr_t)pt_src_lfq, buf, want, &got) ==
                           QUA__LFQ_EDGE, 0))
    qua__broadcast((qua_quaject_t *)(uintptr_t)pt_src_q, QUEUE_CB_NOTFULL, 0);
  return got;
}

/* Returns QUA_OK with *ret = n, or the status of the call that stopped the
 * step early with *ret the items moved before it; when that call was the
 * sink's, the item is in the hold. */
int pt_step(qua_site_t *s, uint64_t n, uint64_t a1, uint64_t *ret) {
  uint64_t k = 0, x;
  int r = QUA_OK;
  while (k < n) {
    r = pt_source((qua_site_t *)(uintptr_t)pt_source_site, 0, 0, &x);
    if (__builtin_expect(r != QUA_OK, 0))
      break;
    r = pt_sink((qua_site_t *)(uintptr_t)pt_sink_site, x, 0, NULL);
    if (__builtin_expect(r != QUA_OK, 0)) {
      hold(&x, 1);
      break;
    }
    k++;
  }
  *ret = k;
  return r;
}

/* Returns as pt_step. A batch is at most PUMP_HOLD_MAX items and never more
 * than the sink has room for (the pump is its one producer), so the sink
 * takes all of it unless a close overlaps the batch. */
int pt_move(qua_site_t *s, uint64_t n, uint64_t a1, uint64_t *ret) {
  qua__lfq_t *dst = (qua__lfq_t *)(uintptr_t)pt_dst_lfq;
  uint64_t buf[PUMP_HOLD_MAX];
  uint64_t k = 0;
  int r = QUA_OK;
  while (k < n) {
    size_t want = n - k < PUMP_HOLD_MAX ? (size_t)(n - k) : PUMP_HOLD_MAX, done = 0;
    size_t room = qua__lfq_room_sp(dst);
    want = room < want ? room : want;
    size_t got = want > 0 ? take(buf, want) : 0;
    if (__builtin_expect(got == 0, 0)) {
      /* Nothing in the source, or no room in the sink: one item through
       * both sites' own code, as pt_step moves it. */
      r = pt_source((qua_site_t *)(uintptr_t)pt_source_site, 0, 0, &buf[0]);
      if (r != QUA_OK)
        break;
      r = pt_sink((qua_site_t *)(uintptr_t)pt_sink_site, buf[0], 0, NULL);
      if (r != QUA_OK) {
        hold(buf, 1);
        break;
      }
      k++;
      continue;
    }
    int st = pt_put_n(dst, buf, got, &done);
    if (__builtin_expect(st == QUA__LFQ_EDGE, 0))
      qua__broadcast((qua_quaject_t *)(uintptr_t)pt_dst_q, QUEUE_CB_NOTEMPTY, 0);
    k += done;
    if (__builtin_expect(done < got, 0)) { /* the sink closed meanwhile */
      hold(buf + done, got - done);
      r = QUA_DIVERTED;
      break;
    }
  }
  *ret = k;
  return r;
}

/* Returns as pt_step; when the sink refused an item, it and the rest of its
 * batch are in the hold. */
int pt_drain(qua_site_t *s, uint64_t n, uint64_t a1, uint64_t *ret) {
  uint64_t buf[PUMP_HOLD_MAX];
  uint64_t k = 0;
  int r = QUA_OK;
  while (k < n) {
    size_t want = n - k < PUMP_HOLD_MAX ? (size_t)(n - k) : PUMP_HOLD_MAX, i = 0;
    size_t got = take(buf, want);
    if (__builtin_expect(got == 0, 0)) {
      /* Nothing in the source, or anything unusual: one item through the
       * source's own code, which says what happens. */
      r = pt_source((qua_site_t *)(uintptr_t)pt_source_site, 0, 0, &buf[0]);
      if (r != QUA_OK)
        break;
      got = 1;
    }
    for (; i < got; i++) {
      r = pt_sink((qua_site_t *)(uintptr_t)pt_sink_site, buf[i], 0, NULL);
      if (__builtin_expect(r != QUA_OK, 0))
        break;
    }
    k += i;
    if (__builtin_expect(i < got, 0)) {
      hold(buf + i, got - i);
      break;
    }
  }
  *ret = k;
  return r;
}
