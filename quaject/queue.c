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
 *     (or SC), the hook answers QUA_SITES_WAIT: the core re-points every
 *     site at the MP code (qua__resynth) and waits for a grace period;
 *     afterwards no thread is inside SP code, so the new caller's first
 *     call finds only MP-aware callers.
 *  3. After a site closed (and a grace period showed nobody is in it), if
 *     only one caller is left on a side, its site is re-pointed at the SP
 *     code. That caller may be mid-call in MP code; its next call runs SP
 *     code; both agree on the one layout (lfq.c), so nothing is lost.
 *  4. Transition tracking (exact notempty/notfull, lfq.c) costs one atomic
 *     read-modify-write per operation. notify=0 never tracks and refuses
 *     sites and watchers that want notempty or notfull, with
 *     QUA_ENOCALLBACK. notify=1 (the default) delivers every transition to
 *     whoever listens; with synth=off it tracks from creation (the generic
 *     code is fixed when the queue is made), while a synthesised queue
 *     tracks only while it needs to (note 6).
 *  6. The live switch (synthesised notify=1 queues). While nobody listens
 *     to notempty or notfull and the queue is SP-SC, no transition has a
 *     listener, so its sites run the untracked code and the count is
 *     head - tail. Before a site or watcher that listens opens, or a second
 *     producer or consumer, the queue switches to tracked mode while its
 *     callers keep calling:
 *     a. every site is re-pointed at the complete operations, then the
 *        ring starts counting (qua__lfq_begin_counting), and a grace period
 *        passes: no untracked operation runs any longer. In that order,
 *        because synthesised untracked code counts too once its rare path
 *        sees the ring counting: a caller that saw it then finds its site
 *        re-pointed already, so each side's operations that count come
 *        after all of its operations that do not (lfq.c, 20);
 *     b. the count is fixed from where each side began to count
 *        (qua__lfq_end_counting, lfq.c invariants 19-23), every site gets
 *        the tracked code, with the new listener folded in, and a grace
 *        period passes before the site or watcher is returned: from then
 *        on every transition is reported, exactly once.
 *     Items in flight are neither lost nor reordered: every mode runs on
 *     the one layout (lfq.c, 10). The queue stays tracked afterwards.
 *  5. Close is a control operation in two phases. The queue is closed
 *     (puts that start afterwards are refused), then a grace period lets
 *     every put that overlapped the close finish storing, and only then is
 *     the close final: gets that find the queue empty report "empty" before
 *     and QUA_ECLOSED after, and "closed" is broadcast. So no item stored by
 *     an overlapping put is left behind by a consumer that already stopped.
 *     Synthesised code does not test for a close at all (queue-templates.c):
 *     the close re-points every site at the generic code, which does, before
 *     that grace period, so a put that runs synthesised code after the close
 *     began is one that overlapped it. A tracked queue's close is exact
 *     besides (lfq.c, 18): an overlapping put lands before it or is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "lfq.h"
#include "qua-internal.h"
#include "types-internal.h"
#include "queue-stencils.h"

enum { P_CAPACITY, P_NOTIFY };

/* --- Generic callentries -------------------------------------------------------- */

/* The outcomes of a put other than a plain OK: an edge, a full queue, a
 * closed one. `full`/`ctx` is the caller's handler for "full": for generic
 * code qua__fire_site with the site (which tells the watchers too), for
 * synthesised code what it folded in (qua__invoker_handler, the same
 * people). */
static int put_slow(qua_site_t *s, int st, uint64_t x, qua_handler_fn full, void *ctx) {
  switch (st) {
  case QUA__LFQ_OK:
    return QUA_OK;
  case QUA__LFQ_EDGE:
    if (!qua__nobody_listens(s->target, QUEUE_CB_NOTEMPTY))
      qua__broadcast(s->target, QUEUE_CB_NOTEMPTY, 0);
    return QUA_OK;
  case QUA__LFQ_FULL:
    full(ctx, s->target, QUEUE_CB_FULL, x);
    return QUA_DIVERTED;
  default:
    return QUA_ECLOSED;
  }
}

static int get_slow(qua_site_t *s, int st, qua_handler_fn empty, void *ctx) {
  switch (st) {
  case QUA__LFQ_OK:
    return QUA_OK;
  case QUA__LFQ_EDGE:
    if (!qua__nobody_listens(s->target, QUEUE_CB_NOTFULL))
      qua__broadcast(s->target, QUEUE_CB_NOTFULL, 0);
    return QUA_OK;
  case QUA__LFQ_CLOSED:
    if (atomic_load_explicit(&((queue_t *)s->state)->closed_final, memory_order_acquire))
      return QUA_ECLOSED;
    /* Closing, not final: a put that overlapped the close may still land
     * (design note 5). */
    /* fall through */
  default:
    empty(ctx, s->target, QUEUE_CB_EMPTY, 0);
    return QUA_DIVERTED;
  }
}

#define QUEUE_PUT(name, op)                                                          \
  static int queue_##name(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {  \
    int st = op(((queue_t *)s->state)->lfq, x);                                   \
    return QUA__LIKELY(st == QUA__LFQ_OK) ? QUA_OK : put_slow(s, st, x, qua__fire_site, s); \
  }
#define QUEUE_GET(name, op)                                                          \
  static int queue_##name(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) { \
    int st = op(((queue_t *)s->state)->lfq, ret);                                 \
    return QUA__LIKELY(st == QUA__LFQ_OK) ? QUA_OK : get_slow(s, st, qua__fire_site, s); \
  }
/* Untracked (notify=0) and tracked (notify=1) fast paths of each variant. */
QUEUE_PUT(put_sp, qua__lfq_put_sp)
QUEUE_PUT(put_mp, qua__lfq_put_mp)
QUEUE_GET(get_sc, qua__lfq_get_sc)
QUEUE_GET(get_mc, qua__lfq_get_mc)
QUEUE_PUT(tput_sp, qua__lfq_tput_sp)
QUEUE_PUT(tput_mp, qua__lfq_tput_mp)
QUEUE_GET(tget_sc, qua__lfq_tget_sc)
QUEUE_GET(tget_mc, qua__lfq_tget_mc)

/* What synthesised put and get tail-call when their fast path meets
 * anything else (queue-templates.c): the complete operation, and its
 * outcome delivered to the handler the template folded in. A tracked put_mp
 * whose turn to count has not come (put_wait) and a tracked get that holds
 * a ticket but could not take its item at once (get_wait) finish here
 * (lfq.c, invariants 13, 14, 16). */
#define QUEUE_RARE_PUT(side)                                                             \
  static int queue_put_rare_##side(qua_site_t *s, uint64_t x, uint64_t fn, uint64_t ctx) {   \
    int st = qua__lfq_put_##side##_slow(((queue_t *)s->state)->lfq, x);                  \
    return put_slow(s, st, x, (qua_handler_fn)(uintptr_t)fn, (void *)(uintptr_t)ctx);     \
  }
#define QUEUE_RARE_GET(side)                                                               \
  static int queue_get_rare_##side(qua_site_t *s, uint64_t *ret, uint64_t fn, uint64_t ctx) { \
    int st = qua__lfq_get_##side##_slow(((queue_t *)s->state)->lfq, ret);                  \
    return get_slow(s, st, (qua_handler_fn)(uintptr_t)fn, (void *)(uintptr_t)ctx);          \
  }

/* Neither outcome is FULL or EMPTY, so no handler is needed. */
static int queue_put_wait(qua_site_t *s, uint64_t pos) {
  return put_slow(s, qua__lfq_tput_finish(((queue_t *)s->state)->lfq, pos), 0, NULL, NULL);
}

static int queue_get_wait(qua_site_t *s, uint64_t *ret, uint64_t w) {
  queue_t *qs = s->state;
  qua__lfq_take1(qs->lfq, w, ret);
  return get_slow(s, qua__lfq_w_items(w) == (int64_t)qs->lfq->capacity ? QUA__LFQ_EDGE : QUA__LFQ_OK,
                  NULL, NULL);
}
QUEUE_RARE_PUT(sp)
QUEUE_RARE_PUT(mp)

/* The counting step of the live switch (note 6a): the complete operations,
 * which count; SP-SC only. */
static int queue_put_counting(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  return put_slow(s, qua__lfq_put_sp_slow(((queue_t *)s->state)->lfq, x), x, qua__fire_site, s);
}

static int queue_get_counting(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  return get_slow(s, qua__lfq_get_sc_slow(((queue_t *)s->state)->lfq, ret), qua__fire_site, s);
}
QUEUE_RARE_GET(sc)
QUEUE_RARE_GET(mc)

/* Batches: put_n(ptr, n) stores as many of the n words at ptr as fit and
 * returns how many; "full" fires with the number not stored. get_n(ptr, n)
 * takes up to n words; "empty" fires when it took none. */
#define QUEUE_PUT_N(variant)                                                        \
  static int queue_put_n_##variant(qua_site_t *s, uint64_t p, uint64_t n, uint64_t *ret) { \
    size_t done = 0;                                                                \
    int st = qua__lfq_put_n_##variant(((queue_t *)s->state)->lfq,                  \
                                      (const uint64_t *)(uintptr_t)p, n, &done);    \
    *ret = done;                                                                    \
    if (st == QUA__LFQ_EDGE)                                                        \
      qua__broadcast(s->target, QUEUE_CB_NOTEMPTY, 0);                                    \
    else if (st == QUA__LFQ_CLOSED)                                                 \
      return QUA_ECLOSED;                                                           \
    if (done < n) {                                                                 \
      qua__fire(s, QUEUE_CB_FULL, n - done);                                        \
      return done == 0 ? QUA_DIVERTED : QUA_OK;                                     \
    }                                                                               \
    return QUA_OK;                                                                  \
  }
#define QUEUE_GET_N(variant)                                                        \
  static int queue_get_n_##variant(qua_site_t *s, uint64_t p, uint64_t n, uint64_t *ret) { \
    size_t done = 0;                                                                \
    int st = qua__lfq_get_n_##variant(((queue_t *)s->state)->lfq,                  \
                                      (uint64_t *)(uintptr_t)p, n, &done);          \
    *ret = done;                                                                    \
    if (st == QUA__LFQ_EDGE)                                                        \
      qua__broadcast(s->target, QUEUE_CB_NOTFULL, 0);                               \
    else if (st == QUA__LFQ_EMPTY || st == QUA__LFQ_CLOSED)                         \
      return get_slow(s, st, qua__fire_site, s);                                    \
    return QUA_OK;                                                                  \
  }
QUEUE_PUT_N(sp)
QUEUE_PUT_N(mp)
QUEUE_GET_N(sc)
QUEUE_GET_N(mc)

static int queue_count(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  *ret = qua__lfq_count(((queue_t *)s->state)->lfq);
  return QUA_OK;
}

bool qua_queue_is_closed(const qua_quaject_t *q) {
  return q != NULL && q->type == &qua__queue_type &&
         atomic_load_explicit(&QUA__STATE(q, queue_t)->closed_final, memory_order_acquire);
}

int qua_queue_close(qua_quaject_t *q) {
  if (q == NULL || q->type != &qua__queue_type)
    return QUA_EINVAL;
  queue_t *qs = QUA__STATE(q, queue_t);
  qua__ctl_lock();
  if (q->dead || atomic_load(&qs->closed_final)) {
    qua__ctl_unlock();
    return q->dead ? QUA_ESTATE : QUA_OK;
  }
  qua__lfq_close(qs->lfq);
  /* Synthesised puts do not test for a close: the sites move to the
   * generic code, which does, before the grace period. */
  qs->closing = true;
  qua__resynth(q, true); /* and puts that overlapped the close have landed */
  atomic_store_explicit(&qs->closed_final, true, memory_order_release);
  qua__broadcast_reader(q, QUEUE_CB_CLOSED, 0);
  qua__ctl_unlock();
  return QUA_OK;
}

/* --- The variant switch ----------------------------------------------------------- */

static qua_entry_fn queue_site_generic(const qua_quaject_t *q, const qua_site_t *s) {
  const queue_t *qs = QUA__STATE(q, const queue_t);
  switch (s->entry) {
  case QUEUE_E_PUT:
    if (qs->counting)
      return queue_put_counting;
    if (qs->tracked)
      return qs->mp ? queue_tput_mp : queue_tput_sp;
    return qs->mp ? queue_put_mp : queue_put_sp;
  case QUEUE_E_PUT_N:
    return qs->mp ? queue_put_n_mp : queue_put_n_sp;
  case QUEUE_E_GET:
    if (qs->counting)
      return queue_get_counting;
    if (qs->tracked)
      return qs->mc ? queue_tget_mc : queue_tget_sc;
    return qs->mc ? queue_get_mc : queue_get_sc;
  case QUEUE_E_GET_N:
    return qs->mc ? queue_get_n_mc : queue_get_n_sc;
  default:
    return q->type->entries[s->entry].generic;
  }
}

static const char *variant_name(const queue_t *qs) {
  static const char *const names[2][2] = {{"spsc", "spmc"}, {"mpsc", "mpmc"}};
  return names[qs->mp][qs->mc];
}

/* put and get have templates (queue-templates.c), one per variant and
 * mode: the queue's address and ring, the caller's handler for full or
 * empty, and the listeners of the edge the callentry can cross are folded
 * in. */
static int queue_site_synth(qua_quaject_t *q, qua_site_t *s, qua_synth_part_t *part) {
  static const jit_template_t *const put[2][2] = {{&qt_tmpl_qt_put_sp, &qt_tmpl_qt_put_mp},
                                                  {&qt_tmpl_qt_tput_sp, &qt_tmpl_qt_tput_mp}};
  static const jit_template_t *const get[2][2] = {{&qt_tmpl_qt_get_sc, &qt_tmpl_qt_get_mc},
                                                  {&qt_tmpl_qt_tget_sc, &qt_tmpl_qt_tget_mc}};
  queue_t *qs = QUA__STATE(q, queue_t);
  bool is_put = s->entry == QUEUE_E_PUT;
  if (qs->closing) {
    part->why = "closed";
    return QUA_ECLOSED;
  }
  if (qs->counting) {
    part->why = "switching to tracked";
    return QUA_ESTATE;
  }
  if (is_put)
    part->tmpl = put[qs->tracked][qs->mp];
  else if (s->entry == QUEUE_E_GET)
    part->tmpl = get[qs->tracked][qs->mc];
  else
    return QUA_ENOENTRY;
  part->variant = variant_name(qs);
  uint64_t fn, ctx, mode, efn, ectx;
  qua__invoker_handler(s, is_put ? QUEUE_CB_FULL : QUEUE_CB_EMPTY, &fn, &ctx);
  qua__listeners(q, is_put ? QUEUE_CB_NOTEMPTY : QUEUE_CB_NOTFULL, &mode, &efn, &ectx);
  qua__synth_hole(part, "qt_lfq", (uint64_t)(uintptr_t)qs->lfq);
  qua__synth_hole(part, "qt_target", (uint64_t)(uintptr_t)q);
  qua__synth_hole(part, "qt_handler_fn", fn);
  qua__synth_hole(part, "qt_handler_ctx", ctx);
  qua__synth_hole(part, "qt_edge_mode", mode);
  qua__synth_hole(part, "qt_edge_fn", efn);
  qua__synth_hole(part, "qt_edge_ctx", ectx);
  if (is_put) {
    qua__synth_hole(part, "qt_put_rare",
                    (uint64_t)(uintptr_t)(qs->mp ? queue_put_rare_mp : queue_put_rare_sp));
    qua__synth_hole(part, "qt_put_wait", (uint64_t)(uintptr_t)queue_put_wait);
  } else {
    qua__synth_hole(part, "qt_get_rare",
                    (uint64_t)(uintptr_t)(qs->mc ? queue_get_rare_mc : queue_get_rare_sc));
    qua__synth_hole(part, "qt_get_wait", (uint64_t)(uintptr_t)queue_get_wait);
  }
  qua__synth_hole(part, "qt_slots", (uint64_t)(uintptr_t)qs->lfq->slots);
  qua__synth_hole(part, "qt_mask", qs->lfq->mask);
  qua__synth_hole(part, "qt_cap", qs->lfq->capacity);
  return QUA_OK;
}

/* Note 6: whether a notify=1 queue must track now. */
static bool queue_must_track(qua_quaject_t *q, bool want_mp, bool want_mc) {
  return q->synth != QUA_SYNTH_STENCIL || want_mp || want_mc ||
         qua__listened(q, QUEUE_CB_NOTEMPTY) || qua__listened(q, QUEUE_CB_NOTFULL);
}

/* Note 6a and the first half of 6b; the caller resynthesises and waits. */
static void queue_start_tracking(qua_quaject_t *q, queue_t *qs) {
  qs->counting = true;
  qua__resynth(q, false); /* first the sites move, then the ring counts */
  qua__lfq_begin_counting(qs->lfq);
  qua__synchronize();
  qua__lfq_end_counting(qs->lfq);
  qs->counting = false;
  qs->tracked = true;
}

static int queue_sites_changed(qua_quaject_t *q, int entry, int phase) {
  queue_t *qs = QUA__STATE(q, queue_t);
  bool want_mp = q->weight[QUEUE_E_PUT] + q->weight[QUEUE_E_PUT_N] > 1;
  bool want_mc = q->weight[QUEUE_E_GET] + q->weight[QUEUE_E_GET_N] > 1;

  if (phase == QUA_SITES_BEFORE_OPEN) {
    if (!qs->notify && (qua__listened(q, QUEUE_CB_NOTEMPTY) || qua__listened(q, QUEUE_CB_NOTFULL)))
      return qua__refuse(QUA_ENOCALLBACK, "a queue made with notify=0 reports no notempty or "
                                          "notfull transitions (create it with notify=1)");
    /* Still SP-SC here: the switch to tracked comes before a variant's. */
    bool wait = qs->notify && !qs->tracked && queue_must_track(q, want_mp, want_mc);
    if (wait)
      queue_start_tracking(q, qs);
    wait |= (want_mp && !qs->mp) || (want_mc && !qs->mc);
    qs->mp |= want_mp;
    qs->mc |= want_mc;
    /* Every site, and every chain that inlined this queue, moves to the
     * new variant's code (the core resynthesises) before the grace period. */
    return wait ? QUA_SITES_WAIT : QUA_OK;
  }
  qs->mp = want_mp;
  qs->mc = want_mc;
  return QUA_OK;
}

static const char *queue_entry_impl(const qua_quaject_t *q, const qua_site_t *s) {
  static const char *const names[2][2] = {{"generic spsc", "generic spmc"},
                                          {"generic mpsc", "generic mpmc"}};
  const queue_t *qs = QUA__STATE(q, const queue_t);
  return names[qs->mp][qs->mc];
}

static int queue_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const queue_t *qs = QUA__STATE(q, const queue_t);
  return snprintf(buf, len, "count=%zu capacity=%" PRIu32 " variant=%s%s%s%s",
                  qua__lfq_count(qs->lfq), qua__lfq_capacity(qs->lfq), qs->mp ? "mp" : "sp",
                  qs->mc ? "mc" : "sc", qs->notify ? " tracked" : "",
                  qua__lfq_closed(qs->lfq) ? " closed" : "");
}

/* --- Storage that outlives the process (quad --state-dir, lfq.c note 24) ------- */

/* The ring's header (the qua__lfq) and its slots, one after the other. */
#define STORE_SLOTS_AT ((sizeof(qua__lfq_t) + QUA__LFQ_PAD - 1) / QUA__LFQ_PAD * QUA__LFQ_PAD)
/* What a ring written by another build must agree on to be read. */
#define QUEUE_LAYOUT                                                                              \
  ((uint64_t)sizeof(qua__lfq_t) << 32 ^ (uint64_t)offsetof(qua__lfq_t, tail) << 20 ^              \
   (uint64_t)offsetof(qua__lfq_t, count) << 8 ^ (uint64_t)QUA__LFQ_W_SBITS << 1 ^ 1)

static size_t queue_storage_bytes(uint32_t capacity) {
  return STORE_SLOTS_AT + (size_t)capacity * sizeof(struct qua__lfq_slot);
}

static int queue_recover(const void *mem, size_t bytes, void *out, size_t *n, char *why,
                         size_t whylen) {
  const qua__lfq_t *lq = mem;
  uint32_t capacity = bytes >= sizeof *lq ? lq->capacity : 0;
  if (bytes < sizeof *lq || bytes != queue_storage_bytes(capacity)) {
    snprintf(why, whylen, "%zu bytes, not the size of a ring of the capacity it names (%" PRIu32
             ")", bytes, capacity);
    return QUA_EINVAL;
  }
  const struct qua__lfq_slot *slots =
      (const struct qua__lfq_slot *)((const char *)mem + STORE_SLOTS_AT);
  int r = qua__lfq_recover(lq, slots, capacity, out, n);
  if (r < 0)
    snprintf(why, whylen, "its indices are not those of a ring of capacity %" PRIu32, capacity);
  return r < 0 ? QUA_EINVAL : QUA_OK;
}

static int queue_init(qua_quaject_t *q, const uint64_t *p) {
  queue_t *qs = QUA__STATE(q, queue_t);
  uint32_t cap = (uint32_t)p[P_CAPACITY];
  int r = -EINVAL;
  void *store = NULL;
  qs->lfq = &qs->own;
  if (cap != 0 && cap <= QUA__LFQ_MAX_CAPACITY && (cap & (cap - 1)) == 0)
    store = qua_storage_map(q, queue_storage_bytes(cap));
  if (store != NULL) {
    qs->lfq = store;
    r = qua__lfq_init_in(qs->lfq, cap, (struct qua__lfq_slot *)((char *)store + STORE_SLOTS_AT));
  } else {
    r = qua__lfq_init(qs->lfq, cap);
  }
  if (r != 0)
    return r == -ENOMEM ? QUA_ENOMEM : QUA_EINVAL; /* the core gives the storage back */
  qs->notify = p[P_NOTIFY] != 0;
  /* Nobody listens yet, and no site is open (note 6). */
  qs->tracked = qs->notify && queue_must_track(q, false, false);
  qua__lfq_set_tracked(qs->lfq, qs->tracked); /* quiescent: nobody can call yet */
  return QUA_OK;
}

static void queue_fini(qua_quaject_t *q) { qua__lfq_fini(QUA__STATE(q, queue_t)->lfq); }

/* --- The table ----------------------------------------------------------------- */

static const qua_param_def_t queue_params[] = {
    [P_CAPACITY] = {"capacity", 1024, 1, 1u << 24, QUA_PARAM_POW2, "slots, a power of two"},
    [P_NOTIFY] = {"notify", 1, 0, 1, 0,
                  "1: exact notempty/notfull callbacks; 0: the untracked fast path without them"},
};

static const qua_entry_def_t queue_entries[] = {
    [QUEUE_E_PUT] = {"put", 1, false, true, queue_put_mp, "store a word; full when no room"},
    [QUEUE_E_GET] = {"get", 0, true, true, queue_get_mc, "take a word; empty when none"},
    [QUEUE_E_PUT_N] = {"put_n", 2, true, false, queue_put_n_mp, "store up to n words from ptr"},
    [QUEUE_E_GET_N] = {"get_n", 2, true, false, queue_get_n_mc, "take up to n words into ptr"},
    [QUEUE_E_COUNT] = {"count", 0, true, true, queue_count, "words in the queue"},
};

static const qua_callback_def_t queue_callbacks[] = {
    [QUEUE_CB_FULL] = {"full", QUA_CB_INVOKER, "put found no room; the item was not stored"},
    [QUEUE_CB_NOTFULL] = {"notfull", QUA_CB_BROADCAST, "a get took the queue from full to not full"},
    [QUEUE_CB_EMPTY] = {"empty", QUA_CB_INVOKER, "get found nothing"},
    [QUEUE_CB_NOTEMPTY] = {"notempty", QUA_CB_BROADCAST, "a put took the queue from empty to not empty"},
    [QUEUE_CB_CLOSED] = {"closed", QUA_CB_BROADCAST, "the queue was closed"},
};

const qua_type_t qua__queue_type = {
    .name = "queue",
    .summary = "bounded FIFO of 64-bit words; SP/MP x SC/MC chosen by the wiring",
    .state_size = sizeof(queue_t),
    .params = queue_params,
    .nparams = 2,
    .entries = queue_entries,
    .nentries = 5,
    .callbacks = queue_callbacks,
    .ncallbacks = 5,
    .ops = {.init = queue_init,
            .fini = queue_fini,
            .sites_changed = queue_sites_changed,
            .entry_impl = queue_entry_impl,
            .site_generic = queue_site_generic,
            .site_synth = queue_site_synth,
            .describe = queue_describe,
            .recover = queue_recover},
    .storage_layout = QUEUE_LAYOUT,
};
