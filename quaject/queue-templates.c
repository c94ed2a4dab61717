/* queue-templates.c -- the queue's put and get as templates with holes.
 *
 * One template per variant. The holes fold what is invariant for one site:
 * the queue's address (qt_lfq) and its ring's slots, mask and capacity
 * (qt_slots, qt_mask, qt_cap), the quaject (qt_target), and the caller's
 * handlers for "full" and "empty" (qt_full_fn/qt_full_ctx,
 * qt_empty_fn/qt_empty_ctx), so a diverted call runs the handler directly.
 * Rare outcomes call the library: an edge broadcasts, and a get on a
 * closed queue runs the generic get (qt_closed_get), which knows whether
 * the close is final. */
#include "qua.h"
#include "types-internal.h"

extern char qt_lfq[], qt_slots[], qt_mask[], qt_cap[], qt_target[], qt_full_ctx[], qt_empty_ctx[];
extern void qt_full_fn(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
extern void qt_empty_fn(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
extern int qt_closed_get(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
void qua__broadcast(qua_quaject_t *q, int cb, uint64_t arg);

#define QT_LFQ ((qua__lfq_t *)(uintptr_t)qt_lfq)
#define QT_TARGET ((qua_quaject_t *)(uintptr_t)qt_target)
/* The ring's invariants, folded in as constants. */
#define QT_K ((struct qua__lfq_slot *)(uintptr_t)qt_slots), (uint64_t)(uintptr_t)qt_mask, \
             (uint64_t)(uintptr_t)qt_cap

static inline int put_done(int st, uint64_t x) {
  if (__builtin_expect(st == QUA__LFQ_OK, 1))
    return QUA_OK;
  if (st == QUA__LFQ_FULL) {
    qt_full_fn(qt_full_ctx, QT_TARGET, QUEUE_CB_FULL, x);
    return QUA_DIVERTED;
  }
  if (st == QUA__LFQ_EDGE) {
    qua__broadcast(QT_TARGET, QUEUE_CB_NOTEMPTY, 0);
    return QUA_OK;
  }
  return QUA_ECLOSED;
}

static inline int get_done(int st, qua_site_t *s, uint64_t *ret) {
  if (__builtin_expect(st == QUA__LFQ_OK, 1))
    return QUA_OK;
  if (st == QUA__LFQ_EMPTY) {
    qt_empty_fn(qt_empty_ctx, QT_TARGET, QUEUE_CB_EMPTY, 0);
    return QUA_DIVERTED;
  }
  if (st == QUA__LFQ_EDGE) {
    qua__broadcast(QT_TARGET, QUEUE_CB_NOTFULL, 0);
    return QUA_OK;
  }
  /* Closed: whether that is final is the generic code's business. */
  return qt_closed_get(s, 0, 0, ret);
}

int qt_put_sp(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  return put_done(qua__lfq_put_sp_k(QT_LFQ, QT_K, x), x);
}

int qt_put_mp(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  return put_done(qua__lfq_put_mp_k(QT_LFQ, QT_K, x), x);
}

int qt_get_sc(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  return get_done(qua__lfq_get_sc_k(QT_LFQ, QT_K, ret), s, ret);
}

int qt_get_mc(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  return get_done(qua__lfq_get_mc_k(QT_LFQ, QT_K, ret), s, ret);
}
