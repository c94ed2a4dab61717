/* queue.c -- the queue quaject: 64-bit words, four variants chosen by the wiring.
 *
 * The lock-free algorithms live in lfq.h/lfq.c; this file is the type's
 * table, its generic callentries, and the variant switch.
 *
 * Variant switch (see also quaject.c, invariant 4):
 *
 *  1. The variant is a function of the open sites: more than one caller
 *     weight on put/put_n selects the multi-producer code, more than one on
 *     get/get_n the multi-consumer code. Each site's fn points at the code
 *     of the current variant.
 *  2. Before a site opens (it is linked but not yet returned to its
 *     caller), if the new set needs MP (or MC) code and the queue runs SP
 *     (or SC), every site is re-pointed at the MP code and the hook waits
 *     for a grace period: afterwards no thread is inside SP code, so the
 *     new caller's first call finds only MP-aware callers.
 *  3. After a site closed (and a grace period showed nobody is in it), if
 *     only one caller is left on a side, its site is re-pointed at the SP
 *     code. That caller may be mid-call in MP code; its next call runs SP
 *     code; both agree on the one layout (lfq.c), so nothing is lost.
 *  4. Transition tracking (exact notempty/notfull, lfq.c) costs one atomic
 *     read-modify-write per operation, and lfq can switch it only while the
 *     queue is quiescent, which a live queue never is. So it is chosen at
 *     creation: notify=1 (the default) tracks from the start and delivers
 *     every transition; notify=0 runs the untracked fast path and refuses
 *     sites and watchers that want notempty or notfull, with QUA_ENOCALLBACK.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "lfq.h"
#include "qua-internal.h"

enum { CB_FULL, CB_NOTFULL, CB_EMPTY, CB_NOTEMPTY, CB_CLOSED };
enum { E_PUT, E_GET, E_PUT_N, E_GET_N, E_COUNT, E_CLOSE };
enum { P_CAPACITY, P_NOTIFY };

typedef struct queue {
  qua__lfq_t lfq;
  /* Control state, under the control lock. */
  bool mp, mc, tracked;
  _Atomic bool closed_fired;
} queue_t;

/* --- Generic callentries -------------------------------------------------------- */

/* The rare outcomes of a put: an edge, a full queue, a closed one. */
static int put_slow(qua_site_t *s, int st, uint64_t x) {
  switch (st) {
  case QUA__LFQ_EDGE:
    qua__broadcast(s->target, CB_NOTEMPTY, 0);
    return QUA_OK;
  case QUA__LFQ_FULL:
    qua__fire(s, CB_FULL, x);
    return QUA_DIVERTED;
  default:
    return QUA_ECLOSED;
  }
}

static int get_slow(qua_site_t *s, int st) {
  switch (st) {
  case QUA__LFQ_EDGE:
    qua__broadcast(s->target, CB_NOTFULL, 0);
    return QUA_OK;
  case QUA__LFQ_EMPTY:
    qua__fire(s, CB_EMPTY, 0);
    return QUA_DIVERTED;
  default:
    return QUA_ECLOSED;
  }
}

#define QUEUE_PUT(variant)                                                          \
  static int queue_put_##variant(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) { \
    int st = qua__lfq_put_##variant(&((queue_t *)s->state)->lfq, x);                \
    return QUA__LIKELY(st == QUA__LFQ_OK) ? QUA_OK : put_slow(s, st, x);            \
  }
#define QUEUE_GET(variant)                                                          \
  static int queue_get_##variant(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) { \
    int st = qua__lfq_get_##variant(&((queue_t *)s->state)->lfq, ret);              \
    return QUA__LIKELY(st == QUA__LFQ_OK) ? QUA_OK : get_slow(s, st);               \
  }
QUEUE_PUT(sp)
QUEUE_PUT(mp)
QUEUE_GET(sc)
QUEUE_GET(mc)

/* Batches: put_n(ptr, n) stores as many of the n words at ptr as fit and
 * returns how many; "full" fires with the number not stored. get_n(ptr, n)
 * takes up to n words; "empty" fires when it took none. */
#define QUEUE_PUT_N(variant)                                                        \
  static int queue_put_n_##variant(qua_site_t *s, uint64_t p, uint64_t n, uint64_t *ret) { \
    size_t done = 0;                                                                \
    int st = qua__lfq_put_n_##variant(&((queue_t *)s->state)->lfq,                  \
                                      (const uint64_t *)(uintptr_t)p, n, &done);    \
    *ret = done;                                                                    \
    if (st == QUA__LFQ_EDGE)                                                        \
      qua__broadcast(s->target, CB_NOTEMPTY, 0);                                    \
    else if (st == QUA__LFQ_CLOSED)                                                 \
      return QUA_ECLOSED;                                                           \
    if (done < n) {                                                                 \
      qua__fire(s, CB_FULL, n - done);                                              \
      return done == 0 ? QUA_DIVERTED : QUA_OK;                                     \
    }                                                                               \
    return QUA_OK;                                                                  \
  }
#define QUEUE_GET_N(variant)                                                        \
  static int queue_get_n_##variant(qua_site_t *s, uint64_t p, uint64_t n, uint64_t *ret) { \
    size_t done = 0;                                                                \
    int st = qua__lfq_get_n_##variant(&((queue_t *)s->state)->lfq,                  \
                                      (uint64_t *)(uintptr_t)p, n, &done);          \
    *ret = done;                                                                    \
    if (st == QUA__LFQ_EDGE)                                                        \
      qua__broadcast(s->target, CB_NOTFULL, 0);                                     \
    else if (st == QUA__LFQ_CLOSED)                                                 \
      return QUA_ECLOSED;                                                           \
    else if (st == QUA__LFQ_EMPTY) {                                                \
      qua__fire(s, CB_EMPTY, 0);                                                    \
      return QUA_DIVERTED;                                                          \
    }                                                                               \
    return QUA_OK;                                                                  \
  }
QUEUE_PUT_N(sp)
QUEUE_PUT_N(mp)
QUEUE_GET_N(sc)
QUEUE_GET_N(mc)

static int queue_count(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  *ret = qua__lfq_count(&((queue_t *)s->state)->lfq);
  return QUA_OK;
}

static void queue_close_fire(qua_quaject_t *q, queue_t *qs) {
  qua__lfq_close(&qs->lfq);
  if (!atomic_exchange(&qs->closed_fired, true))
    qua__broadcast(q, CB_CLOSED, 0);
}

static int queue_close(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  queue_close_fire(s->target, s->state);
  return QUA_OK;
}

int qua_queue_close(qua_quaject_t *q) {
  if (q == NULL || q->type != &qua__queue_type)
    return QUA_EINVAL;
  /* Broadcast handlers expect a read-side section. */
  qua_site_t *s;
  int r = qua_site_open(q, "close", NULL, 0, &s, NULL);
  if (r < 0)
    return r;
  r = qua_call(s, 0, 0, NULL);
  qua_site_close(s);
  return r;
}

/* --- The variant switch ----------------------------------------------------------- */

static void point_sites(qua_quaject_t *q, const queue_t *qs) {
  QUA__FOREACH_SITE(q, E_PUT, s) qua__site_set_fn(s, qs->mp ? queue_put_mp : queue_put_sp);
  QUA__FOREACH_SITE(q, E_PUT_N, s) qua__site_set_fn(s, qs->mp ? queue_put_n_mp : queue_put_n_sp);
  QUA__FOREACH_SITE(q, E_GET, s) qua__site_set_fn(s, qs->mc ? queue_get_mc : queue_get_sc);
  QUA__FOREACH_SITE(q, E_GET_N, s) qua__site_set_fn(s, qs->mc ? queue_get_n_mc : queue_get_n_sc);
}

static int queue_sites_changed(qua_quaject_t *q, int entry, int phase) {
  queue_t *qs = QUA__STATE(q, queue_t);
  bool want_mp = q->weight[E_PUT] + q->weight[E_PUT_N] > 1;
  bool want_mc = q->weight[E_GET] + q->weight[E_GET_N] > 1;

  if (phase == QUA_SITES_BEFORE_OPEN) {
    if (!qs->tracked && (qua__listened(q, CB_NOTEMPTY) || qua__listened(q, CB_NOTFULL)))
      return QUA_ENOCALLBACK; /* notify=0: no transition callbacks */
    bool wait = (want_mp && !qs->mp) || (want_mc && !qs->mc);
    qs->mp |= want_mp;
    qs->mc |= want_mc;
    point_sites(q, qs);
    if (wait)
      qua__synchronize();
  } else {
    qs->mp = want_mp;
    qs->mc = want_mc;
    point_sites(q, qs);
  }
  return QUA_OK;
}

static const char *queue_entry_impl(const qua_quaject_t *q, const qua_site_t *s) {
  const queue_t *qs = QUA__STATE(q, const queue_t);
  static const char *const names[2][2] = {{"generic spsc", "generic spmc"},
                                          {"generic mpsc", "generic mpmc"}};
  return names[qs->mp][qs->mc];
}

static int queue_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const queue_t *qs = QUA__STATE(q, const queue_t);
  return snprintf(buf, len, "count=%zu capacity=%" PRIu32 " variant=%s%s%s%s",
                  qua__lfq_count(&qs->lfq), qua__lfq_capacity(&qs->lfq), qs->mp ? "mp" : "sp",
                  qs->mc ? "mc" : "sc", qs->tracked ? " tracked" : "",
                  qua__lfq_closed(&qs->lfq) ? " closed" : "");
}

static int queue_init(qua_quaject_t *q, const uint64_t *p) {
  queue_t *qs = QUA__STATE(q, queue_t);
  int r = qua__lfq_init(&qs->lfq, (uint32_t)p[P_CAPACITY]);
  if (r != 0)
    return r == -ENOMEM ? QUA_ENOMEM : QUA_EINVAL;
  qs->tracked = p[P_NOTIFY] != 0;
  qua__lfq_set_tracked(&qs->lfq, qs->tracked); /* quiescent: nobody can call yet */
  return QUA_OK;
}

static void queue_fini(qua_quaject_t *q) { qua__lfq_fini(&QUA__STATE(q, queue_t)->lfq); }

/* --- The table ----------------------------------------------------------------- */

static const qua_param_def_t queue_params[] = {
    [P_CAPACITY] = {"capacity", 1024, 1, 1u << 24, QUA_PARAM_POW2, "slots, a power of two"},
    [P_NOTIFY] = {"notify", 1, 0, 1, 0,
                  "1: exact notempty/notfull callbacks; 0: the untracked fast path without them"},
};

static const qua_entry_def_t queue_entries[] = {
    [E_PUT] = {"put", 1, false, true, queue_put_mp, "store a word; full when no room"},
    [E_GET] = {"get", 0, true, true, queue_get_mc, "take a word; empty when none"},
    [E_PUT_N] = {"put_n", 2, true, false, queue_put_n_mp, "store up to n words from ptr"},
    [E_GET_N] = {"get_n", 2, true, false, queue_get_n_mc, "take up to n words into ptr"},
    [E_COUNT] = {"count", 0, true, true, queue_count, "words in the queue"},
    [E_CLOSE] = {"close", 0, false, true, queue_close, "refuse further puts; wake waiters"},
};

static const qua_callback_def_t queue_callbacks[] = {
    [CB_FULL] = {"full", QUA_CB_INVOKER, "put found no room; the item was not stored"},
    [CB_NOTFULL] = {"notfull", QUA_CB_BROADCAST, "a get took the queue from full to not full"},
    [CB_EMPTY] = {"empty", QUA_CB_INVOKER, "get found nothing"},
    [CB_NOTEMPTY] = {"notempty", QUA_CB_BROADCAST, "a put took the queue from empty to not empty"},
    [CB_CLOSED] = {"closed", QUA_CB_BROADCAST, "the queue was closed"},
};

const qua_type_t qua__queue_type = {
    .name = "queue",
    .summary = "bounded FIFO of 64-bit words; SP/MP x SC/MC chosen by the wiring",
    .state_size = sizeof(queue_t),
    .params = queue_params,
    .nparams = 2,
    .entries = queue_entries,
    .nentries = 6,
    .callbacks = queue_callbacks,
    .ncallbacks = 5,
    .ops = {.init = queue_init,
            .fini = queue_fini,
            .sites_changed = queue_sites_changed,
            .entry_impl = queue_entry_impl,
            .describe = queue_describe},
};
