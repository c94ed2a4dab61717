/* queue-templates.c -- the queue's put and get as templates with holes.
 *
 * One template per variant and mode (qt_put_sp .. qt_get_mc untracked,
 * qt_tput_sp .. qt_tget_mc tracked). The holes fold what is invariant for
 * one site between two control operations:
 *
 *  - the queue's address (qt_lfq), its ring's slots, mask and capacity
 *    (qt_slots, qt_mask, qt_cap) and the quaject (qt_target);
 *  - the caller's handler for "full" or "empty" (qt_full_fn/qt_full_ctx,
 *    qt_empty_fn/qt_empty_ctx), so a diverted call runs it directly;
 *  - who listens to the edge this callentry can cross ("notempty" for put,
 *    "notfull" for get): qt_edge_mode is QUA__LISTEN_NONE, QUA__LISTEN_ONE (call
 *    qt_edge_fn with qt_edge_ctx, the one listening site's handler) or
 *    QUA__LISTEN_ALL (walk the listeners, qua__broadcast). The listener set
 *    changes only by control operations, which resynthesise and wait for a
 *    grace period before they return (synth.c), so an edge that happens
 *    after a listener was added reaches it, and none reaches it after it
 *    was removed.
 *
 * Rare outcomes call the library: a get on a closed queue runs the generic
 * get (qt_closed_get), which knows whether the close is final. */
#include "qua.h"
#include "types-internal.h"

extern char qt_lfq[], qt_slots[], qt_mask[], qt_cap[], qt_target[], qt_full_ctx[], qt_empty_ctx[];
extern char qt_edge_mode[], qt_edge_ctx[];
extern void qt_full_fn(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
extern void qt_empty_fn(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
extern void qt_edge_fn(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
extern int qt_closed_get(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
void qua__broadcast(qua_quaject_t *q, int cb, uint64_t arg);

#define QT_LFQ ((qua__lfq_t *)(uintptr_t)qt_lfq)
#define QT_TARGET ((qua_quaject_t *)(uintptr_t)qt_target)
/* The ring's invariants, folded in as constants. The operations run
 * without their test of the queue's flags (check = false): the mode is
 * fixed when the queue is made, and a closing queue's sites run the
 * generic code (queue.c, design note 5). */
#define QT_K ((struct qua__lfq_slot *)(uintptr_t)qt_slots), (uint64_t)(uintptr_t)qt_mask, \
             (uint64_t)(uintptr_t)qt_cap

/* Nobody, one site or several listeners: a hole compared with constants,
 * so the branches cost an immediate compare each. */
static inline void edge(int cb) {
  uintptr_t mode = (uintptr_t)qt_edge_mode;
  if (mode == QUA__LISTEN_ONE)
    qt_edge_fn(qt_edge_ctx, QT_TARGET, cb, 0);
  else if (mode == QUA__LISTEN_ALL)
    qua__broadcast(QT_TARGET, cb, 0);
}

static inline int put_done(int st, uint64_t x) {
  if (__builtin_expect(st == QUA__LFQ_OK, 1))
    return QUA_OK;
  if (st == QUA__LFQ_EDGE) {
    edge(QUEUE_CB_NOTEMPTY);
    return QUA_OK;
  }
  if (st == QUA__LFQ_FULL) {
    qt_full_fn(qt_full_ctx, QT_TARGET, QUEUE_CB_FULL, x);
    return QUA_DIVERTED;
  }
  return QUA_ECLOSED;
}

static inline int get_done(int st, qua_site_t *s, uint64_t *ret) {
  if (__builtin_expect(st == QUA__LFQ_OK, 1))
    return QUA_OK;
  if (st == QUA__LFQ_EDGE) {
    edge(QUEUE_CB_NOTFULL);
    return QUA_OK;
  }
  if (st == QUA__LFQ_EMPTY) {
    qt_empty_fn(qt_empty_ctx, QT_TARGET, QUEUE_CB_EMPTY, 0);
    return QUA_DIVERTED;
  }
  /* Closed: whether that is final is the generic code's business. */
  return qt_closed_get(s, 0, 0, ret);
}

#define QT_PUT(name)                                                        \
  int qt_##name(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {    \
    return put_done(qua__lfq_##name##_k(QT_LFQ, QT_K, x, false), x);        \
  }
#define QT_GET(name)                                                        \
  int qt_##name(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {   \
    return get_done(qua__lfq_##name##_k(QT_LFQ, QT_K, ret, false), s, ret); \
  }
/* One template per variant and mode; stencilgen names them qt_tmpl_qt_<name>. */
QT_PUT(put_sp)
QT_PUT(put_mp)
QT_GET(get_sc)
QT_GET(get_mc)
QT_PUT(tput_sp)
QT_PUT(tput_mp)
QT_GET(tget_sc)
QT_GET(tget_mc)
