/* qua-internal.h -- libqua's private declarations: the quaject block, the
 * control lock, grace periods and callback delivery used by the types. */
#ifndef QUA_INTERNAL_H
#define QUA_INTERNAL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>

#include "qua-impl.h"

#define QUA__LIKELY(x) __builtin_expect(!!(x), 1)
#define QUA__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define QUA__CACHELINE 64

typedef struct qua__watch_node qua__watch_node_t;

struct qua_watch {
  qua_quaject_t *q;
  int cb;
  qua_handler_fn fn;
  void *ctx;
  qua_watch_t *_Atomic next; /* RCU list of the quaject's watchers of cb */
};

/* The quaject block. Control fields are guarded by the control lock;
 * fields read on data paths (outs, sites lists, watchers) are published
 * with release stores and read inside read-side sections. */
struct qua_quaject {
  const qua_type_t *type;
  uint64_t id;
  uint64_t params[QUA_MAX_PARAMS];
  /* Wires from this quaject's callouts (NULL when unwired). */
  qua_site_t *_Atomic outs[QUA_MAX_CALLOUTS];
  /* Sites open on each callentry (an RCU list through site->next), and
   * how many callers they stand for (a shared site counts 2). */
  qua_site_t *_Atomic sites[QUA_MAX_ENTRIES];
  int weight[QUA_MAX_ENTRIES];
  /* Number of callouts of other quajects wired to this one. */
  int wired_in;
  qua_watch_t *_Atomic watchers[QUA_MAX_CALLBACKS];
  /* Bit cb set when some open site or watcher listens to callback cb:
   * recomputed by every control operation that changes sites or watchers
   * (qua__resynth), so the generic code tests one word where it would walk
   * the lists (qua__broadcast, qua__nobody_listens). */
  _Atomic uint32_t listened;
  bool started;
  bool dead;
  qua_synth_mode_t synth;
  qua_site_t *body;           /* the body's site (ops.body), or NULL */
  /* synth.c's upstream walk (control lock): the pass that reached this
   * quaject, its distance in wires from the changed one, and the next
   * quaject the pass reached. */
  uint64_t synth_gen;
  int synth_dist;
  qua_quaject_t *synth_next;
  /* Memory from qua_set_storage's map (qua_storage_map), or NULL; given
   * back after the type's fini. */
  void *store;
  size_t store_bytes;
  qua_storage_t store_by; /* the map that gave it (qua_set_storage may change) */
  alignas(QUA__CACHELINE) unsigned char state[];
};

#define QUA__STATE(q, type) ((type *)(void *)(q)->state)

/* The control lock serialises every control operation (create, destroy,
 * wire, unwire, site open/close, watch). Data paths never take it. */
void qua__ctl_lock(void);
void qua__ctl_unlock(void);

/* Waits for a grace period of every read-side flavour in use: afterwards
 * no thread is inside a read-side section that began before the call.
 * Not from inside a read-side section or a QSBR-online thread. */
void qua__synchronize(void);

/* The number of grace periods qua__synchronize() has waited for since the
 * process started (benchmarks use it to say how many a control operation
 * waited for). */
uint64_t qua__grace_periods(void);

/* ThreadSanitizer does not see liburcu's grace periods (membarrier and
 * futexes inside an uninstrumented library), so it would report every
 * reclamation after qua__synchronize() as a race with the readers it waited
 * for. We tell it what RCU guarantees: the end of each read-side section
 * (and each QSBR quiescent state) happens before the end of any grace
 * period that waited for it. */
#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char qua__tsan_gp;
#define QUA__TSAN_READER_DONE() __tsan_release(&qua__tsan_gp)
#define QUA__TSAN_GP_DONE() __tsan_acquire(&qua__tsan_gp)
#else
#define QUA__TSAN_READER_DONE() ((void)0)
#define QUA__TSAN_GP_DONE() ((void)0)
#endif

/* A sites_changed hook refusing a site or watcher says why: returns code,
 * and the control operation's error message carries `why`. */
int qua__refuse(int code, const char *why);

/* QSBR readers (pump and clock threads) report quiescence through these. */
void qua__quiescent(void);
/* A clock's thread begins: online (QSBR), at the nice increment of
 * qua_set_thread_nice. Ends with qua_thread_offline. */
void qua__clock_thread_begin(void);
void qua__offline(void);
void qua__online(void);

/* Re-points a site at other code; a concurrent caller runs either. */
static inline void qua__site_set_fn(qua_site_t *s, qua_entry_fn fn) {
  __atomic_store_n(&s->fn, fn, __ATOMIC_RELEASE);
}

static inline qua_entry_fn qua__site_fn(qua_site_t *s) {
  return __atomic_load_n(&s->fn, __ATOMIC_ACQUIRE);
}

/* Calls a site from inside a read-side section. */
static inline int qua__call(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  return qua__site_fn(s)(s, a0, a1, ret);
}

void qua__fire_watchers(qua_quaject_t *q, int cb, uint64_t arg);

/* Delivers an invoker-kind callback: to the handler of the site whose call
 * caused it, then to the watchers. */
static inline void qua__fire(qua_site_t *s, int cb, uint64_t arg) {
  qua_handler_fn h = s->handler[cb];
  if (h != NULL)
    h(s->handler_ctx[cb], s->target, cb, arg);
  if (atomic_load_explicit(&s->target->watchers[cb], memory_order_relaxed) != NULL)
    qua__fire_watchers(s->target, cb, arg);
}

/* Delivers a broadcast callback: to every open site that supplied a
 * handler for it, then to the watchers; nothing when nobody listens. */
void qua__broadcast(qua_quaject_t *q, int cb, uint64_t arg);

/* The generic code's "nobody listens" test: one load. A listener that came
 * (its site open or watch returned) is seen by every call that starts
 * afterwards; one that is leaving may still be seen (a walk finds nobody). */
static inline bool qua__nobody_listens(qua_quaject_t *q, int cb) {
  return (atomic_load_explicit(&q->listened, memory_order_acquire) & (1u << cb)) == 0;
}

/* Recomputes q->listened from its sites and watchers. Control lock held;
 * qua__resynth(q) calls it, so every change of q's listeners does. */
void qua__listened_refresh(qua_quaject_t *q);

/* qua__broadcast from a thread outside any read-side section (a control
 * operation): enters one for the handlers' sake. */
void qua__broadcast_reader(qua_quaject_t *q, int cb, uint64_t arg);

/* True when some open site or watcher listens to callback cb. Control lock. */
bool qua__listened(qua_quaject_t *q, int cb);

/* Iterates the open sites of an entry (control lock held). */
#define QUA__FOREACH_SITE(q, e, s)                                              \
  for (qua_site_t *s = atomic_load_explicit(&(q)->sites[e], memory_order_relaxed); \
       s != NULL; s = s->next)

/* The callentry stub for sites whose quaject was destroyed under them. */
int qua__entry_dead(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);

/* Formats an error into err (when not NULL) and returns code. */
int qua__error(qua_error_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* --- Synthesis (synth.c) ------------------------------------------------ */

/* Re-points every site whose code may depend on q (the sites on q, and on
 * quajects whose callouts lead to q within as many wires as one site's
 * code can span) at the code the current state calls for: synthesised
 * (per site, chained along wires) or generic. Called under the control
 * lock, once after anything that changes what that code depends on (sites,
 * wires, watchers, variants, a close). Waits for a grace period when it
 * replaced code (which it then frees) or when `wait` asks for one, so that
 * on return no thread runs code of the old state. */
void qua__resynth(qua_quaject_t *q, bool wait);
/* Frees a site's synthesised code: the site is unreachable and a grace
 * period has passed. */
void qua__site_free_code(qua_site_t *s);
/* Parts one site's synthesised code may have (its chain and the chains it
 * calls). */
#define QUA__CODE_PARTS 16

/* What a site's synthesised code is made of (qua_quaject_entry_code): its
 * parts and every field patched in it, kept with the code, replaced and
 * freed with it under the control lock. One block. */
typedef struct qua__code_map {
  uint16_t machine;
  uint32_t entry, text_end, size;
  size_t nparts, nholes;
  qua_code_part_t parts[QUA__CODE_PARTS];
  qua_code_hole_t holes[];
} qua__code_map_t;

/* Parses the synth=off|stencil creation parameter. */
int qua__synth_param(const char *value, qua_synth_mode_t *mode);

/* Handlers and callentries the templates' holes point at. */
void qua__nop_handler(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
void qua__fire_site(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
int qua__entry_ok(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
int qua__entry_unwired(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
int qua__call_site(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
/* A site whose callentry returns QUA_ENOTWIRED, for unwired outputs. */
extern qua_site_t qua__unwired_site;

/* The handler (and its context) a template should call for an
 * invoker-kind callback of site s: the site's own when nobody watches,
 * qua__fire_site when watchers must hear it too, qua__nop_handler when
 * nobody listens. */
void qua__invoker_handler(qua_site_t *s, int cb, uint64_t *fn, uint64_t *ctx);

/* Who listens to broadcast-kind callback cb of q, for a template's edge
 * holes: *mode is QUA__LISTEN_NONE, QUA__LISTEN_ONE (then *fn and *ctx are
 * the one listening site's handler) or QUA__LISTEN_ALL (watchers, or more
 * than one site). Control lock held. */
void qua__listeners(qua_quaject_t *q, int cb, uint64_t *mode, uint64_t *fn, uint64_t *ctx);
/* What templates tail-call to tell them, returning QUA_OK: the one listener
 * (a handler and its context folded in as words), or all of them. */
int qua__notify_one(uint64_t fn, uint64_t ctx, qua_quaject_t *q, int cb, uint64_t arg);
int qua__notify_all(qua_quaject_t *q, int cb, uint64_t arg);

/* Gives the template hole `name` the value v. A type that names more holes
 * than a part has room for loses its template (the site runs generic, and
 * says why). */
static inline void qua__synth_hole(qua_synth_part_t *p, const char *name, uint64_t v) {
  if (p->nholes >= QUA_SYNTH_HOLES) {
    p->tmpl = NULL;
    p->why = "the type names more holes than QUA_SYNTH_HOLES";
    return;
  }
  p->holes[p->nholes].name = name;
  p->holes[p->nholes].value = v;
  p->nholes++;
}

/* The built-in types. */
extern const qua_type_t qua__queue_type;
extern const qua_type_t qua__buffer_type;
extern const qua_type_t qua__counter_type;
extern const qua_type_t qua__pump_type;
extern const qua_type_t qua__tee_type;
extern const qua_type_t qua__clock_type;

/* Futex-based wake-up word for active quajects: a waiter samples the
 * sequence, checks its condition, and sleeps only while the sequence is
 * unchanged; every wake bumps it. No wake-up is lost. */
typedef struct qua__event {
  _Atomic uint32_t seq;
  _Atomic uint32_t waiters; /* threads inside qua__event_wait */
} qua__event_t;

static inline uint32_t qua__event_sample(qua__event_t *ev) {
  return atomic_load_explicit(&ev->seq, memory_order_acquire);
}
void qua__event_signal(qua__event_t *ev);
/* Sleeps while the sequence still equals `seen`, at most timeout_ns
 * (negative: no limit). The calling QSBR thread is offline meanwhile. */
void qua__event_wait(qua__event_t *ev, uint32_t seen, int64_t timeout_ns);

#endif /* QUA_INTERNAL_H */
