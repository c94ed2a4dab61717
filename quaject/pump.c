/* pump.c -- the pump quaject: a thread that moves items from a source
 * callentry to a sink callentry, sleeping while there is nothing to do.
 *
 * Steps: the thread moves items in batches through its body (ops.body),
 * the step: generic code that calls through the two callouts, or a
 * stencil (pump-templates.c) that calls the wires' code directly. Between
 * batches it reports a quiescent state; so a step, and the code it calls,
 * is never running across a grace period of the control operations that
 * replace them.
 *
 * Wake-ups (why none is lost):
 *
 *  1. The pump's source callout supplies handlers for "notempty" and
 *     "closed", its sink callout for "notfull" and "closed"; each handler
 *     signals the pump's event (a futex sequence, event.c).
 *  2. The pump samples the event's sequence BEFORE each step, and before
 *     each retry of an item the sink refused. If the source diverted
 *     (empty) or the sink did (full), it sleeps only while the sequence is
 *     unchanged.
 *  3. A source that diverted with "empty" was empty at the get's
 *     linearisation point, which came after the sample; the next put that
 *     makes it non-empty is an empty-to-not-empty transition, and the queue
 *     calls "notempty" for it (exactly: a queue created with notify=0, which
 *     does not track transitions, refuses the pump's wire). That call comes
 *     after the sample, so it changes the sequence: the pump does not sleep,
 *     or is woken. The same holds for "full" and "notfull" on the sink: the
 *     item is retried after a fresh sample before the pump sleeps on it.
 *  4. Stop and (un)wiring signal the event too, so a sleeping pump sees them.
 *
 * The pump thread is a QSBR reader: online while it moves items, reporting
 * a quiescent state after every step (at most QUA_PUMP_BATCH items),
 * offline while it sleeps, so it never holds up a grace period and pays
 * nothing per call.
 */
#include <inttypes.h>
#include <pthread.h>

#include "qua-internal.h"
#include "types-internal.h"
#include "pump-stencils.h"

enum { C_SOURCE = PUMP_C_SOURCE, C_SINK = PUMP_C_SINK };
enum { P_COUNT };
#define QUA_PUMP_BATCH PUMP_HOLD_MAX

typedef struct pump {
  qua_quaject_t *self;
  pthread_t thread;
  qua__event_t ev;      /* work may be possible */
  qua__event_t done_ev; /* the thread finished by itself */
  _Atomic bool stop;
  _Atomic bool done;
  _Atomic uint64_t moved;
  _Atomic uint64_t sleeps;
  _Atomic int lost;     /* items dropped because the pump was destroyed holding them */
  uint64_t limit;
  pump_hold_t hold;     /* the pump thread's: an item the sink has not taken yet */
} pump_t;

static void pump_wake(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  qua__event_signal(&((pump_t *)ctx)->ev);
}

static void pump_sleep(pump_t *p, uint32_t seen) {
  atomic_fetch_add_explicit(&p->sleeps, 1, memory_order_relaxed);
  qua__event_wait(&p->ev, seen, -1);
}

/* The generic step (the body's reference code): as pt_step, through the
 * callouts. */
static int pump_step(qua_site_t *s, uint64_t n, uint64_t a1, uint64_t *ret) {
  pump_t *p = s->state;
  uint64_t k = 0, x;
  int r = QUA_OK;
  while (k < n) {
    r = qua_callout(p->self, C_SOURCE, 0, 0, &x);
    if (QUA__UNLIKELY(r != QUA_OK))
      break;
    r = qua_callout(p->self, C_SINK, x, 0, NULL);
    if (QUA__UNLIKELY(r != QUA_OK)) {
      p->hold.items[0] = x;
      p->hold.first = 0;
      p->hold.n = 1;
      break;
    }
    k++;
  }
  *ret = k;
  return r;
}

/* Delivers the held items in order, sleeping while the sink is full or
 * unwired; false when the pump must stop (the items not delivered are then
 * counted as lost). */
static bool pump_deliver_held(pump_t *p) {
  int r = QUA_OK;
  while (p->hold.first < p->hold.n) {
    uint32_t seen = qua__event_sample(&p->ev);
    r = qua_callout(p->self, C_SINK, p->hold.items[p->hold.first], 0, NULL);
    if (r == QUA_OK) {
      p->hold.first++;
      atomic_fetch_add_explicit(&p->moved, 1, memory_order_relaxed);
      continue;
    }
    if ((r != QUA_DIVERTED && r != QUA_ENOTWIRED) ||
        atomic_load_explicit(&p->stop, memory_order_acquire))
      break;
    pump_sleep(p, seen);
  }
  int left = (int)(p->hold.n - p->hold.first);
  p->hold.first = p->hold.n = 0;
  if (left > 0) {
    atomic_fetch_add(&p->lost, left);
    return false;
  }
  return true;
}

/* Runs one step of up to `want` items; returns false when the pump must stop. */
static bool pump_run(pump_t *p, uint64_t want) {
  uint32_t seen = qua__event_sample(&p->ev);
  if (atomic_load_explicit(&p->stop, memory_order_acquire))
    return false;
  uint64_t k = 0;
  int r = qua__call(p->self->body, want, 0, &k);
  if (k > 0)
    atomic_fetch_add_explicit(&p->moved, k, memory_order_relaxed);
  if (r == QUA_OK)
    return true;
  if (p->hold.n > 0) /* the sink stopped the step */
    return pump_deliver_held(p);
  if (r == QUA_DIVERTED || r == QUA_ENOTWIRED) {
    pump_sleep(p, seen);
    return true;
  }
  return false; /* closed and drained, or the source went away */
}

static void *pump_main(void *arg) {
  pump_t *p = arg;
  qua_thread_online();
  for (;;) {
    uint64_t want = QUA_PUMP_BATCH;
    if (p->limit != 0) {
      uint64_t done = atomic_load_explicit(&p->moved, memory_order_relaxed);
      if (done >= p->limit)
        break;
      if (p->limit - done < want)
        want = p->limit - done;
    }
    if (!pump_run(p, want))
      break;
    qua__quiescent();
  }
  qua_thread_offline();
  atomic_store_explicit(&p->done, true, memory_order_release);
  qua__event_signal(&p->done_ev);
  return NULL;
}

/* The body: generic, or the step template with the wires' code folded in:
 * from a synthesised queue's get into a synthesised queue's put whose one
 * producer the pump is, the batch move (pt_move); from a synthesised
 * queue's get into any other wired sink, the batch drain (pt_drain); else
 * the per-item step (pt_step). A second producer on the sink, or a second
 * consumer on the source, resynthesises the body (the queue's variant
 * switch, synth.c note 4): pt_move goes back to pt_drain, and both take
 * the source's variant. */
static qua_entry_fn pump_site_generic(const qua_quaject_t *q, const qua_site_t *s) {
  return pump_step;
}

/* The holes of a batch step's source, the synthesised queue a: its ring,
 * the quaject (for its count and notfull) and its get_n. */
static void pump_source_holes(qua_synth_part_t *part, qua_quaject_t *a) {
  queue_t *qa = QUA__STATE(a, queue_t);
  qua__synth_hole(part, "pt_src_lfq", (uint64_t)(uintptr_t)qa->lfq);
  qua__synth_hole(part, "pt_src_q", (uint64_t)(uintptr_t)a);
  qua__synth_hole(part, "pt_get_n", (uint64_t)(uintptr_t)(qa->mc ? qua__lfq_get_n_mc : qua__lfq_get_n_sc));
}

static int pump_site_synth(qua_quaject_t *q, qua_site_t *s, qua_synth_part_t *part) {
  if (s->entry != QUA_ENTRY_BODY)
    return QUA_ENOENTRY;
  pump_t *p = QUA__STATE(q, pump_t);
  qua_site_t *src = atomic_load_explicit(&q->outs[C_SOURCE], memory_order_relaxed);
  qua_site_t *sink = atomic_load_explicit(&q->outs[C_SINK], memory_order_relaxed);
  if (src == NULL)
    src = &qua__unwired_site;
  if (sink == NULL)
    sink = &qua__unwired_site;
  part->tmpl = &pt_tmpl_pt_step;
  part->variant = "step";
  qua__synth_hole(part, "pt_source_site", (uint64_t)(uintptr_t)src);
  qua__synth_hole(part, "pt_source", (uint64_t)(uintptr_t)qua__site_fn(src));
  qua__synth_hole(part, "pt_sink_site", (uint64_t)(uintptr_t)sink);
  qua__synth_hole(part, "pt_sink", (uint64_t)(uintptr_t)qua__site_fn(sink));
  qua_quaject_t *a = src->target, *b = sink->target;
  if (a != NULL && b != NULL && a->type == &qua__queue_type && b->type == &qua__queue_type &&
      src->entry == QUEUE_E_GET && sink->entry == QUEUE_E_PUT && !QUA__STATE(b, queue_t)->mp &&
      a->synth == QUA_SYNTH_STENCIL && b->synth == QUA_SYNTH_STENCIL &&
      !QUA__STATE(a, queue_t)->closing && !QUA__STATE(b, queue_t)->closing) {
    part->tmpl = &pt_tmpl_pt_move;
    part->variant = "move";
    pump_source_holes(part, a);
    qua__synth_hole(part, "pt_dst_lfq", (uint64_t)(uintptr_t)QUA__STATE(b, queue_t)->lfq);
    qua__synth_hole(part, "pt_dst_q", (uint64_t)(uintptr_t)b);
    qua__synth_hole(part, "pt_put_n", (uint64_t)(uintptr_t)qua__lfq_put_n_sp);
  } else if (a != NULL && b != NULL && a->type == &qua__queue_type && src->entry == QUEUE_E_GET &&
             a->synth == QUA_SYNTH_STENCIL && !QUA__STATE(a, queue_t)->closing) {
    part->tmpl = &pt_tmpl_pt_drain;
    part->variant = "drain";
    pump_source_holes(part, a);
  }
  qua__synth_hole(part, "pt_hold", (uint64_t)(uintptr_t)&p->hold);
  return QUA_OK;
}

static int pump_init(qua_quaject_t *q, const uint64_t *params) {
  pump_t *p = QUA__STATE(q, pump_t);
  p->self = q;
  p->limit = params[P_COUNT];
  return QUA_OK;
}

static int pump_start(qua_quaject_t *q) {
  pump_t *p = QUA__STATE(q, pump_t);
  return pthread_create(&p->thread, NULL, pump_main, p) == 0 ? QUA_OK : QUA_ETHREAD;
}

static void pump_stop(qua_quaject_t *q) {
  pump_t *p = QUA__STATE(q, pump_t);
  atomic_store_explicit(&p->stop, true, memory_order_release);
  qua__event_signal(&p->ev);
  pthread_join(p->thread, NULL);
}

static void pump_callouts_changed(qua_quaject_t *q) { qua__event_signal(&QUA__STATE(q, pump_t)->ev); }

int qua_pump_join(qua_quaject_t *q, int timeout_ms) {
  if (q == NULL || q->type != &qua__pump_type)
    return QUA_EINVAL;
  pump_t *p = QUA__STATE(q, pump_t);
  struct timespec now, end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  int64_t end_ns = (int64_t)end.tv_sec * 1000000000 + end.tv_nsec + (int64_t)timeout_ms * 1000000;
  for (;;) {
    uint32_t seen = qua__event_sample(&p->done_ev);
    if (atomic_load_explicit(&p->done, memory_order_acquire))
      return QUA_OK;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t left = end_ns - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
    if (left <= 0)
      return QUA_ESTATE;
    qua__event_wait(&p->done_ev, seen, left);
  }
}

static int pump_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const pump_t *p = QUA__STATE(q, const pump_t);
  return snprintf(buf, len, "moved=%" PRIu64 " sleeps=%" PRIu64 " lost=%d %s",
                  atomic_load(&p->moved), atomic_load(&p->sleeps), atomic_load(&p->lost),
                  atomic_load(&p->done) ? "stopped" : "running");
}

static const qua_bind_t pump_source_handlers[] = {
    {"notempty", pump_wake, NULL}, {"closed", pump_wake, NULL}, {NULL, NULL, NULL}};
static const qua_bind_t pump_sink_handlers[] = {
    {"notfull", pump_wake, NULL}, {"closed", pump_wake, NULL}, {NULL, NULL, NULL}};

static const qua_param_def_t pump_params[] = {
    [P_COUNT] = {"count", 0, 0, UINT64_MAX, 0, "stop after moving this many items (0: never)"},
};

static const qua_callout_def_t pump_callouts[] = {
    [C_SOURCE] = {"source", 0, true, pump_source_handlers, "where items come from (a get)"},
    [C_SINK] = {"sink", 1, false, pump_sink_handlers, "where items go (a put)"},
};

const qua_type_t qua__pump_type = {
    .name = "pump",
    .summary = "a thread moving items from source to sink, asleep while blocked",
    .state_size = sizeof(pump_t),
    .params = pump_params,
    .nparams = 1,
    .callouts = pump_callouts,
    .ncallouts = 2,
    .ops = {.init = pump_init,
            .start = pump_start,
            .stop = pump_stop,
            .callouts_changed = pump_callouts_changed,
            .site_generic = pump_site_generic,
            .site_synth = pump_site_synth,
            .body = pump_step,
            .describe = pump_describe},
};
