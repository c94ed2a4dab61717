/* queue-templates.c -- the queue's put and get as templates with holes.
 *
 * One template per variant and mode (qt_put_sp .. qt_get_mc untracked,
 * qt_tput_sp .. qt_tget_mc tracked). The holes fold what is invariant for
 * one site between two control operations:
 *
 *  - the queue's address (qt_lfq), its ring's slots, mask and capacity
 *    (qt_slots, qt_mask, qt_cap) and the quaject (qt_target);
 *  - the caller's handler for "full" (put) or "empty" (get), qt_handler_fn
 *    and qt_handler_ctx;
 *  - who listens to the edge this callentry can cross ("notempty" for put,
 *    "notfull" for get): qt_edge_mode is QUA__LISTEN_NONE, _ONE (the one
 *    listening site's handler, qt_edge_fn with qt_edge_ctx, is called
 *    directly) or _ALL (qua__broadcast walks the listeners). The listener
 *    set changes only by control operations, which resynthesise and wait
 *    for a grace period before they return (synth.c), so an edge after a
 *    listener came reaches it, and none reaches it after it left.
 *
 * The common case, the item moved, needs no stack frame; everything else
 * is a tail call: into the queue's rare path (qt_put_rare, qt_get_rare in
 * queue.c: the complete operation, its outcome delivered to the folded
 * handler; qt_put_wait, qt_get_wait: the rest of a tracked operation that
 * must wait for another thread) or into the edge's listeners. The tracked
 * templates are lfq.h's tracked fast paths step for step (lfq.c,
 * invariant 16), so they run the complete operations' algorithm. The operations run
 * without a test of the queue's flags: the mode is fixed when the queue is
 * made, and a closing queue's sites run the generic code (queue.c, design
 * note 5). A tracked put that overlaps the close finds it in the count word
 * and returns QUA_ECLOSED (lfq.c, invariant 18). */
#include "qua.h"
#include "types-internal.h"

/* Addresses are holes of unknown size, which -mcmodel=medium reaches with
 * 64-bit immediates; small numbers (a mask and capacity below 2^25, a
 * listener mode) are declared as 1-byte objects, which it reaches with
 * 32-bit immediates (R_X86_64_32/32S, range-checked when patched). */
extern char qt_lfq[], qt_slots[], qt_target[];
extern char qt_handler_fn[], qt_handler_ctx[], qt_edge_fn[], qt_edge_ctx[];
extern char qt_mask[1], qt_cap[1], qt_edge_mode[1];
extern int qt_put_rare(qua_site_t *s, uint64_t x, uint64_t fn, uint64_t ctx);
extern int qt_get_rare(qua_site_t *s, uint64_t *ret, uint64_t fn, uint64_t ctx);
extern int qt_put_wait(qua_site_t *s, uint64_t pos);
extern int qt_get_wait(qua_site_t *s, uint64_t *ret, uint64_t w);
int qua__notify_one(uint64_t fn, uint64_t ctx, qua_quaject_t *q, int cb, uint64_t arg);
int qua__notify_all(qua_quaject_t *q, int cb, uint64_t arg);

#define H(hole) ((uint64_t)(uintptr_t)(hole))
#define QT_LFQ ((qua__lfq_t *)(uintptr_t)qt_lfq)
#define QT_TARGET ((qua_quaject_t *)(uintptr_t)qt_target)
#define QT_SLOTS ((struct qua__lfq_slot *)(uintptr_t)qt_slots)

/* Nobody, one site or several listeners: the hole is compared with
 * constants, so each branch costs an immediate compare. */
static inline int edge(int cb) {
  uint64_t mode = H(qt_edge_mode);
  if (mode == QUA__LISTEN_NONE)
    return QUA_OK;
  if (mode == QUA__LISTEN_ONE)
    return qua__notify_one(H(qt_edge_fn), H(qt_edge_ctx), QT_TARGET, cb, 0);
  return qua__notify_all(QT_TARGET, cb, 0);
}

#define QT_PUT(name, push, tracked)                                              \
  int qt_##name(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {         \
    if (__builtin_expect(!push(QT_LFQ, QT_SLOTS, H(qt_mask), H(qt_cap), x), 0))  \
      return qt_put_rare(s, x, H(qt_handler_fn), H(qt_handler_ctx));             \
    if (tracked) {                                                               \
      int st = qua__lfq_counted(QT_LFQ);                                         \
      if (__builtin_expect(st != QUA__LFQ_OK, 0))                                \
        return st == QUA__LFQ_EDGE ? edge(QUEUE_CB_NOTEMPTY) : QUA_ECLOSED;      \
    }                                                                            \
    return QUA_OK;                                                               \
  }

#define QT_GET(name, pop)                                                        \
  int qt_##name(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {        \
    if (__builtin_expect(!pop(QT_LFQ, QT_SLOTS, H(qt_mask), ret), 0))            \
      return qt_get_rare(s, ret, H(qt_handler_fn), H(qt_handler_ctx));           \
    return QUA_OK;                                                               \
  }

/* Tracked put_mp: claim, value, and when the put before has counted, count
 * and publish (lfq.c, invariant 13); else the rest waits out of line. */
int qt_tput_mp(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  uint64_t pos;
  int st = qua__lfq_tpush_mp(QT_LFQ, QT_SLOTS, H(qt_mask), H(qt_cap), x, &pos);
  if (__builtin_expect(st == QUA__LFQ_OK, 1))
    return QUA_OK;
  if (st == QUA__LFQ_EDGE)
    return edge(QUEUE_CB_NOTEMPTY);
  if (st == QUA__LFQ_T_SLOW)
    return qt_put_rare(s, x, H(qt_handler_fn), H(qt_handler_ctx));
  if (st == QUA__LFQ_T_TURN)
    return qt_put_wait(s, pos);
  return QUA_ECLOSED;
}

/* Tracked get: a ticket, which is a position (lfq.c, invariant 14), then
 * its item; SC and MC alike. */
#define QT_TGET(name)                                                            \
  int qt_##name(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {        \
    uint64_t w;                                                                  \
    if (__builtin_expect(!qua__lfq_ticket(QT_LFQ, &w), 0))                       \
      return qt_get_rare(s, ret, H(qt_handler_fn), H(qt_handler_ctx));           \
    if (__builtin_expect(!qua__lfq_take_ticket(QT_LFQ, QT_SLOTS, H(qt_mask), w, ret), 0)) \
      return qt_get_wait(s, ret, w);                                             \
    if (qua__lfq_w_items(w) == (int64_t)H(qt_cap))                               \
      return edge(QUEUE_CB_NOTFULL);                                             \
    return QUA_OK;                                                               \
  }

/* stencilgen names them qt_tmpl_qt_<name>. */
QT_PUT(put_sp, qua__lfq_push_sp, 0)
QT_PUT(put_mp, qua__lfq_push_mp, 0)
QT_GET(get_sc, qua__lfq_pop_sc)
QT_GET(get_mc, qua__lfq_pop_mc)
QT_PUT(tput_sp, qua__lfq_push_sp, 1)
QT_TGET(tget_sc)
QT_TGET(tget_mc)
