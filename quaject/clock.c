/* clock.c -- the clock quaject: calls its tick callout every period.
 *
 * Ticks are numbered from 0. A tick whose time has passed while the callee
 * ran is skipped, not run late in a burst, and counted in "missed". While
 * tick is unwired the clock waits for a wire (callouts_changed wakes it)
 * and then starts a full period afresh: a tick is never spent on nobody,
 * so count=N delivers N ticks however long after `create` the wire came.
 */
#include <inttypes.h>
#include <pthread.h>
#include <time.h>

#include "qua-internal.h"

enum { C_TICK };
enum { P_PERIOD_US, P_COUNT };

typedef struct qclock {
  qua_quaject_t *self;
  pthread_t thread;
  qua__event_t ev;
  _Atomic bool stop;
  _Atomic uint64_t ticks, missed;
  uint64_t period_ns, limit;
} qclock_t;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *clock_main(void *arg) {
  qclock_t *c = arg;
  qua__clock_thread_begin();
  int64_t next = now_ns() + (int64_t)c->period_ns;
  uint64_t n = 0;
  while (c->limit == 0 || n < c->limit) {
    uint32_t seen = qua__event_sample(&c->ev);
    if (atomic_load_explicit(&c->stop, memory_order_acquire))
      break;
    int64_t left = next - now_ns();
    if (left > 0) {
      qua__event_wait(&c->ev, seen, left);
      continue; /* re-check stop and the time */
    }
    int r = qua_callout(c->self, C_TICK, n, 0, NULL);
    qua__quiescent();
    if (r == QUA_ENOTWIRED &&
        atomic_load_explicit(&c->self->outs[C_TICK], memory_order_acquire) == NULL) {
      /* seen was sampled before the callout: a wire made since has
       * signalled the event, and the wait returns at once. */
      qua__event_wait(&c->ev, seen, -1);
      next = now_ns() + (int64_t)c->period_ns;
      continue;
    }
    atomic_store_explicit(&c->ticks, ++n, memory_order_relaxed);
    next += (int64_t)c->period_ns;
    int64_t late = now_ns() - next;
    if (late > 0) {
      uint64_t skip = (uint64_t)late / c->period_ns + 1;
      atomic_fetch_add_explicit(&c->missed, skip, memory_order_relaxed);
      next += (int64_t)(skip * c->period_ns);
    }
  }
  qua_thread_offline();
  return NULL;
}

static int clock_init(qua_quaject_t *q, const uint64_t *p) {
  qclock_t *c = QUA__STATE(q, qclock_t);
  c->self = q;
  c->period_ns = p[P_PERIOD_US] * 1000;
  c->limit = p[P_COUNT];
  return QUA_OK;
}

static int clock_start(qua_quaject_t *q) {
  qclock_t *c = QUA__STATE(q, qclock_t);
  return pthread_create(&c->thread, NULL, clock_main, c) == 0 ? QUA_OK : QUA_ETHREAD;
}

static void clock_stop(qua_quaject_t *q) {
  qclock_t *c = QUA__STATE(q, qclock_t);
  atomic_store_explicit(&c->stop, true, memory_order_release);
  qua__event_signal(&c->ev);
  pthread_join(c->thread, NULL);
}

static void clock_callouts_changed(qua_quaject_t *q) {
  qua__event_signal(&QUA__STATE(q, qclock_t)->ev);
}

static int clock_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const qclock_t *c = QUA__STATE(q, const qclock_t);
  return snprintf(buf, len, "ticks=%" PRIu64 " missed=%" PRIu64 " period_us=%" PRIu64,
                  atomic_load(&c->ticks), atomic_load(&c->missed), c->period_ns / 1000);
}

static const qua_param_def_t clock_params[] = {
    [P_PERIOD_US] = {"period_us", 1000, 10, 3600000000u, 0, "microseconds between ticks"},
    [P_COUNT] = {"count", 0, 0, UINT64_MAX, 0, "stop after this many ticks (0: never)"},
};

static const qua_callout_def_t clock_callouts[] = {
    [C_TICK] = {"tick", 1, false, NULL,
                "called every period with the tick number (the clock waits while unwired)"},
};

const qua_type_t qua__clock_type = {
    .name = "clock",
    .summary = "calls its tick callout every period",
    .state_size = sizeof(qclock_t),
    .params = clock_params,
    .nparams = 2,
    .callouts = clock_callouts,
    .ncallouts = 1,
    .ops = {.init = clock_init, .start = clock_start, .stop = clock_stop,
            .callouts_changed = clock_callouts_changed, .describe = clock_describe},
};
