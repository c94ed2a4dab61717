/* bench-synth.c -- quaject-level synthesis figures, printed by bench-jit beside its anchors.
 *
 *   synth_wire_ns        median time to synthesise a queue's put and get for one wire, as the
 *                        library's own timer (around the copy and patch) reports it
 *   synth_wire_e2e_wait_ns  the same pair timed from outside: qua_site_open(put) and
 *                        qua_site_open(get) on a queue, end to end, grace-period waits included
 *   synth_grace_period_ns   one grace period (qua__synchronize) with nobody inside, timed
 *                        right after each pair; synth_wire_grace_periods: how many a pair waits
 *   synth_wire_e2e_ns    end to end minus those waits: each pair's time less its number of
 *                        grace periods times the grace period measured after it (the library
 *                        cannot skip the wait: it is what makes replacing code safe)
 *   synth_e2e_vs_libtcc  libtcc compiling the real template file / synth_wire_e2e_ns
 *                        (also _wait_, and _vs_cc for the build's C compiler)
 *   put_get_*_ns         a put then a get through two sites of a queue as `create queue`
 *                        makes it (notify=1: exact notempty/notfull), generic code vs
 *                        synthesised: with nobody listening the synthesised queue runs
 *                        untracked and would switch live if a listener came (queue.c,
 *                        note 6), the generic one tracks from creation, its code being
 *                        fixed then; put_get_untracked_*_ns the same for notify=0
 *   pipeline4_*_mops     a four-stage pipeline run by the graph itself: a queue filled
 *                        beforehand -> pump -> tee -> counter -> queue, the pump moving
 *                        2^20 items on its own thread; the synthesised pump calls the
 *                        source's get and the tee's code directly (the caller folded in)
 *   pipeline4_floor_mops the same work by hand on a thread of its own: C compiled ahead
 *                        of time taking batches from the source ring (as the synthesised
 *                        pump does) and adding and putting each item inline, no call per
 *                        item at all; pipeline4_synth_vs_floor says how close synthesis
 *                        comes to it (1.0: as fast)
 *   pipeline4_thread_*   tee -> counter -> queue with this thread as source and sink, each
 *                        put and get one call through a site; _floor_: the same by hand,
 *                        called through a site as qua_call_online calls (a caller that is
 *                        a thread cannot be folded in: there synthesis can at best equal
 *                        the floor)
 *   pump_move_*_mops     a pump moving 2^20 items from one queue into another on its own
 *                        thread: its step through the callouts, item by item, vs the
 *                        synthesised step, which between two queues collapses the source's
 *                        get and the sink's put into one batch move (pump-templates.c)
 *
 * Calls are made from a QSBR-online thread (qua_call_online), so the figures
 * are the callentries' own cost, not the read-side section's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-synth.h"
#include "qbench.h"
#include "qua.h"
#include "qua-internal.h" /* qua__synchronize, qua__grace_periods */
#include "lfq.h"

#define RUNS 7

/* A benchmark that loses an item has no figure: it ends the program. */
static _Noreturn void fail(const char *what) {
  fprintf(stderr, "bench-synth: %s\n", what);
  exit(1);
}

static qua_quaject_t *make(const char *type, const char *synth, const char *p0) {
  const char *p[] = {synth, p0};
  qua_quaject_t *q = NULL;
  qua_error_t err;
  if (qua_create(type, p, p0 ? 2 : 1, &q, &err) != QUA_OK) {
    fprintf(stderr, "bench-synth: %s: %s\n", type, err.msg);
    exit(1);
  }
  return q;
}

static uint64_t entry_ns(qua_quaject_t *q, const char *entry, char *impl, size_t len) {
  uint64_t ns = 0;
  qua_quaject_entry_info(q, qua_type_entry(qua_quaject_type(q), entry), impl, len, &ns);
  return ns;
}

/* Median over 201 wires of the synthesis time of one put site plus one get
 * site of a queue (each a copy and a patch into code memory). */
static double synth_wire(void) {
  enum { N = 201 };
  static double t[N];
  qua_quaject_t *q = make("queue", "synth=stencil", "capacity=1024");
  char impl[64];
  int n = 0;
  for (int i = 0; i < N; i++) {
    qua_site_t *put, *get;
    qua_site_open(q, "put", NULL, 0, &put, NULL);
    qua_site_open(q, "get", NULL, 0, &get, NULL);
    uint64_t ns = entry_ns(q, "put", impl, sizeof impl);
    if (strstr(impl, "stencil") == NULL) {
      fprintf(stderr, "bench-synth: put runs %s, not a stencil\n", impl);
      return -1;
    }
    ns += entry_ns(q, "get", impl, sizeof impl);
    t[n++] = (double)ns;
    qua_site_close(put);
    qua_site_close(get);
  }
  qua_destroy(q, false, NULL);
  return qbench_median(t, n);
}

typedef struct e2e {
  double wait_ns, nowait_ns, gp_ns, gps;
} e2e_t;

/* End to end, from outside: opening a put site and a get site on a queue (closing them is not
 * timed), then one grace period alone; medians over N pairs. Not from a QSBR-online thread. */
static e2e_t synth_wire_e2e(void) {
  enum { N = 201 };
  static double wait[N], nowait[N], gp[N], gps[N];
  qua_quaject_t *q = make("queue", "synth=stencil", "capacity=1024");
  char impl[64];
  for (int i = 0; i < N; i++) {
    qua_site_t *put, *get;
    uint64_t g0 = qua__grace_periods(), t0 = qbench_now_ns();
    int r1 = qua_site_open(q, "put", NULL, 0, &put, NULL);
    int r2 = qua_site_open(q, "get", NULL, 0, &get, NULL);
    uint64_t t1 = qbench_now_ns(), g1 = qua__grace_periods();
    if (r1 != QUA_OK || r2 != QUA_OK) {
      fprintf(stderr, "bench-synth: opening the sites failed\n");
      exit(1);
    }
    entry_ns(q, "get", impl, sizeof impl);
    if (strstr(impl, "stencil") == NULL) {
      fprintf(stderr, "bench-synth: get runs %s, not a stencil\n", impl);
      exit(1);
    }
    qua_site_close(put);
    qua_site_close(get);
    uint64_t t2 = qbench_now_ns();
    qua__synchronize();
    gp[i] = (double)(qbench_now_ns() - t2);
    gps[i] = (double)(g1 - g0);
    wait[i] = (double)(t1 - t0);
    nowait[i] = wait[i] - gps[i] * gp[i];
  }
  qua_destroy(q, false, NULL);
  return (e2e_t){qbench_median(wait, N), qbench_median(nowait, N), qbench_median(gp, N),
                 qbench_median(gps, N)};
}

/* Generic and synthesised code (and, when given, a hand-written floor) are
 * timed in alternating runs, so that all see the same machine; each figure
 * is the median of its runs, and each ratio the median of the runs'
 * pairwise ratios. */
typedef struct paired {
  double generic, synth, speedup;
  double floor, synth_vs_floor; /* 0 without a floor */
} paired_t;

typedef double (*run_fn)(void *ctx); /* one timed run: higher is better */

static paired_t run_three(run_fn run, void *generic, void *synth, void *floor, int runs) {
  double g[RUNS * 2], s[RUNS * 2], f[RUNS * 2], ratio[RUNS * 2], vs_floor[RUNS * 2];
  for (int r = 0; r < runs; r++) {
    g[r] = run(generic);
    s[r] = run(synth);
    ratio[r] = s[r] / g[r];
    if (floor) {
      f[r] = run(floor);
      vs_floor[r] = s[r] / f[r];
    }
  }
  paired_t p = {qbench_median(g, runs), qbench_median(s, runs), qbench_median(ratio, runs), 0, 0};
  if (floor) {
    p.floor = qbench_median(f, runs);
    p.synth_vs_floor = qbench_median(vs_floor, runs);
  }
  return p;
}

static paired_t run_paired(run_fn run, void *generic, void *synth, int runs) {
  return run_three(run, generic, synth, NULL, runs);
}

/* Two sites of an SP-SC queue; a run is put+get pairs, in pairs per ns. */
typedef struct put_get {
  qua_quaject_t *q;
  qua_site_t *put, *get;
} put_get_t;

static void put_get_open(put_get_t *x, const char *synth, const char *notify) {
  const char *p[] = {synth, "capacity=1024", notify};
  if (qua_create("queue", p, 3, &x->q, NULL) != QUA_OK)
    exit(1);
  qua_site_open(x->q, "put", NULL, 0, &x->put, NULL);
  qua_site_open(x->q, "get", NULL, 0, &x->get, NULL);
}

static void put_get_close(put_get_t *x) {
  qua_site_close(x->put);
  qua_site_close(x->get);
  qua_destroy(x->q, false, NULL);
}

static double put_get_run(void *ctx) {
  put_get_t *x = ctx;
  const int n = 2000000;
  uint64_t t0 = qbench_now_ns(), sum = 0, v = 0;
  for (int i = 0; i < n; i++) {
    qua_call_online(x->put, (uint64_t)i, 0, NULL);
    qua_call_online(x->get, 0, 0, &v);
    sum += v;
  }
  double per_ns = n / (double)(qbench_now_ns() - t0);
  if (sum != (uint64_t)n * (n - 1) / 2)
    fail("put/get lost items");
  qua_thread_quiescent();
  return per_ns;
}

/* ns per put+get pair, generic and synthesised, for a queue made with `notify`. */
static paired_t put_get(const char *notify) {
  put_get_t g, s;
  put_get_open(&g, "synth=off", notify);
  put_get_open(&s, "synth=stencil", notify);
  paired_t r = run_paired(put_get_run, &g, &s, RUNS * 2);
  put_get_close(&g);
  put_get_close(&s);
  return (paired_t){1 / r.generic, 1 / r.synth, r.speedup, 0, 0};
}

/* tee(n=1) -> counter.pass -> queue (notify=0: nobody sleeps on it, so no
 * transition tracking), the source and the sink being this thread: 64 puts
 * into the tee, then 64 gets from the queue. A run is in Mops/s. */
typedef struct pipeline {
  qua_quaject_t *tee, *c, *q;
  qua_site_t *in, *out;
  char impl[64];
} pipeline_t;

static void pipeline_open(pipeline_t *x, const char *synth) {
  x->tee = make("tee", synth, "n=1");
  x->c = make("counter", synth, NULL);
  const char *qp[] = {synth, "capacity=1024", "notify=0"};
  if (qua_create("queue", qp, 3, &x->q, NULL) != QUA_OK)
    exit(1);
  qua_wire(x->tee, "out0", x->c, "pass", NULL);
  qua_wire(x->c, "out", x->q, "put", NULL);
  qua_site_open(x->tee, "put", NULL, 0, &x->in, NULL);
  qua_site_open(x->q, "get", NULL, 0, &x->out, NULL);
  qua_quaject_entry_info(x->tee, 0, x->impl, sizeof x->impl, NULL);
}

static void pipeline_close(pipeline_t *x) {
  qua_site_close(x->in);
  qua_site_close(x->out);
  qua_destroy(x->tee, false, NULL);
  qua_destroy(x->c, false, NULL);
  qua_destroy(x->q, false, NULL);
}

/* The floor: the pipeline's work written by hand, as a fair programmer who
 * knew the graph would write it in C. The tee's one output, the counter's
 * add by its one writer and the SP-SC ring's put and get, the ring at a
 * fixed address (its fields RIP-relative, its mask and capacity constants),
 * compiled ahead of time. Each put and each get is still one call through a
 * site, as qua_call_online makes it: that call is what no code behind it can
 * take away. The runs never fill or empty the ring (64 items at a time in
 * 1024); if one did, QUA_ELIMIT would end it as a lost item. */
enum { FLOOR_CAP = 1024 };
static qua__lfq_t floor_q;
static struct qua__lfq_slot floor_slots[FLOOR_CAP] __attribute__((aligned(128)));
static _Atomic uint64_t floor_count __attribute__((aligned(128)));

static __attribute__((noinline)) int floor_put(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  (void)s, (void)a1, (void)ret;
  uint64_t c = atomic_load_explicit(&floor_count, memory_order_relaxed);
  atomic_store_explicit(&floor_count, c + 1, memory_order_relaxed);
  if (__builtin_expect(!qua__lfq_push_sp(&floor_q, floor_slots, FLOOR_CAP - 1, FLOOR_CAP, x), 0))
    return qua__lfq_put_sp_slow(&floor_q, x) == QUA__LFQ_FULL ? QUA_ELIMIT : QUA_OK;
  return QUA_OK;
}

static __attribute__((noinline)) int floor_get(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  (void)s, (void)a0, (void)a1;
  if (__builtin_expect(!qua__lfq_pop_sc(&floor_q, floor_slots, FLOOR_CAP - 1, ret), 0))
    return qua__lfq_get_sc_slow(&floor_q, ret) == QUA__LFQ_OK ? QUA_OK : QUA_ELIMIT;
  return QUA_OK;
}

/* A site as qua_call_online sees one: its first member is the code. */
static struct {
  qua_entry_fn code;
} floor_in = {floor_put}, floor_out = {floor_get};

static void pipeline_open_floor(pipeline_t *x) {
  memset(x, 0, sizeof *x);
  if (qua__lfq_init_in(&floor_q, FLOOR_CAP, floor_slots) != 0)
    fail("the floor's ring could not be made");
  x->in = (qua_site_t *)(void *)&floor_in;
  x->out = (qua_site_t *)(void *)&floor_out;
}

static double pipeline_run(void *ctx) {
  pipeline_t *x = ctx;
  const int n = 1 << 21;
  uint64_t t0 = qbench_now_ns(), sum = 0, v;
  for (int i = 0; i < n; i += 64) {
    for (int k = 0; k < 64; k++)
      qua_call_online(x->in, (uint64_t)(i + k), 0, NULL);
    for (int k = 0; k < 64; k++) {
      qua_call_online(x->out, 0, 0, &v);
      sum += v;
    }
  }
  double mops = (double)n / ((double)(qbench_now_ns() - t0) / 1e3);
  if (sum != (uint64_t)n * (n - 1) / 2)
    fail("the pipeline lost items");
  qua_thread_quiescent();
  return mops;
}

/* Moves n items in and out of q through a put_n or get_n site, 4096 at a
 * time (items: room for 4096). */
static void batch(qua_quaject_t *q, const char *entry, uint64_t *items, int n) {
  qua_site_t *s;
  qua_site_open(q, entry, NULL, 0, &s, NULL);
  for (int i = 0; i < n;) {
    if (entry[0] == 'p')
      for (int k = 0; k < 4096; k++)
        items[k] = (uint64_t)(i + k);
    uint64_t done = 0;
    qua_call(s, (uint64_t)(uintptr_t)items, 4096, &done);
    if (done == 0) {
      fprintf(stderr, "bench-synth: %s moved nothing after %d items\n", entry, i);
      exit(1);
    }
    i += (int)done;
  }
  qua_site_close(s);
}

/* A pump moving 2^20 items from a queue filled beforehand into one with
 * room for all, timed from wiring its source (the pump waits for it) until
 * it has moved them all; in Mops/s. Not from a QSBR-online thread: wiring
 * waits for grace periods. Both queues' slots are touched before the clock
 * starts (the sink's filled and emptied once): the figure is the pump's
 * step, not the kernel's first-touch page faults, which both sides would
 * otherwise share (16 MiB of slots). */
/* Touches the sink queue's n slots (fills and empties it), fills the source
 * queue with n items from buf, then wires the pump's source and times it
 * until it has moved them all; in Mops/s. The pump's sink is wired already. */
static double pump_timed(qua_quaject_t *p, qua_quaject_t *src, qua_quaject_t *sink, uint64_t *buf,
                         int n) {
  batch(sink, "put_n", buf, n);
  batch(sink, "get_n", buf, n);
  batch(src, "put_n", buf, n);
  uint64_t t0 = qbench_now_ns();
  if (qua_wire(p, "source", src, "get", NULL) != QUA_OK)
    fail("the pump's source could not be wired");
  if (qua_pump_join(p, 60000) != QUA_OK)
    fail("the pump did not finish in 60 s");
  return (double)n / ((double)(qbench_now_ns() - t0) / 1e3);
}

typedef struct pump_run {
  const char *synth;
  char impl[64];
} pump_run_t;

static double pump_move_run(void *ctx) {
  enum { N = 1 << 20 };
  pump_run_t *x = ctx;
  static uint64_t items[4096];
  const char *qp[] = {x->synth, "capacity=1048576"};
  char count[32];
  snprintf(count, sizeof count, "count=%d", N);
  const char *pp[] = {x->synth, count};
  qua_quaject_t *a = NULL, *b = NULL, *p = NULL;
  if (qua_create("queue", qp, 2, &a, NULL) != QUA_OK || qua_create("queue", qp, 2, &b, NULL) != QUA_OK ||
      qua_create("pump", pp, 2, &p, NULL) != QUA_OK)
    exit(1);
  qua_wire(p, "sink", b, "put", NULL);
  double mops = pump_timed(p, a, b, items, N);
  qua_quaject_entry_info(p, QUA_ENTRY_BODY, x->impl, sizeof x->impl, NULL);
  qua_site_t *cnt;
  uint64_t n = 0;
  qua_site_open(b, "count", NULL, 0, &cnt, NULL);
  qua_call(cnt, 0, 0, &n);
  qua_site_close(cnt);
  if (n != N) {
    fprintf(stderr, "bench-synth: the pump moved %llu of %d items\n", (unsigned long long)n, N);
    exit(1);
  }
  qua_destroy(p, true, NULL);
  qua_destroy(a, true, NULL);
  qua_destroy(b, true, NULL);
  return mops;
}

/* The same four stages with a quaject at the head instead of this thread:
 * queue (filled beforehand) -> pump -> tee(n=1) -> counter.pass -> queue
 * (notify=0), the pump moving 2^20 items on its own thread, timed as
 * pump_move from wiring its source until it has moved them all; in Mops/s.
 * The generic step calls through the callouts item by item; the
 * synthesised step calls the source's get and the tee's put (the counter's
 * pass and the queue's put laid out behind it) directly: the caller folded
 * in, which no thread calling through a site can have. The sink queue is
 * then drained with get_n and every item checked in order, and the
 * counter must say 2^20. */
typedef struct pipeline_pumped {
  const char *synth;
  bool floor; /* the hand-written floor below instead */
  char impl[64], tee_impl[64];
} pipeline_pumped_t;

enum { PUMPED_N = 1 << 20 };

/* The floor of the pumped pipeline: two rings of the same capacity, the
 * source tracked as the pump's is (its count word updated once per batch by
 * get_n, as by the synthesised step), the counter a word with one writer,
 * the sink untracked (notify=0); a thread of its own moves the items. */
typedef struct pumped_floor {
  qua__lfq_t src, dst;
  _Atomic uint64_t count __attribute__((aligned(128)));
} pumped_floor_t;

static void *pumped_floor_main(void *arg) {
  pumped_floor_t *f = arg;
  uint64_t buf[64];
  for (size_t k = 0; k < PUMPED_N;) {
    size_t got = 0;
    qua__lfq_get_n_sc(&f->src, buf, 64, &got);
    if (got == 0)
      return NULL; /* the source ran dry: the caller sees the count short */
    struct qua__lfq_slot *slots = f->dst.slots;
    for (size_t i = 0; i < got; i++) {
      uint64_t c = atomic_load_explicit(&f->count, memory_order_relaxed);
      atomic_store_explicit(&f->count, c + 1, memory_order_relaxed);
      if (__builtin_expect(!qua__lfq_push_sp(&f->dst, slots, PUMPED_N - 1, PUMPED_N, buf[i]), 0) &&
          qua__lfq_put_sp_slow(&f->dst, buf[i]) != QUA__LFQ_OK)
        return NULL; /* full: the caller sees the count short */
    }
    k += got;
  }
  return NULL;
}

static double pipeline_pumped_floor(void) {
  static pumped_floor_t f;
  static uint64_t items[4096];
  if (qua__lfq_init(&f.src, PUMPED_N) != 0 || qua__lfq_init(&f.dst, PUMPED_N) != 0)
    fail("pipeline4 floor: the rings could not be made");
  qua__lfq_set_tracked(&f.src, true);
  atomic_store(&f.count, 0);
  size_t done;
  for (int i = 0; i < PUMPED_N; i += 4096) { /* the sink's slots touched, as the others' */
    qua__lfq_put_n_sp(&f.dst, items, 4096, &done);
    qua__lfq_get_n_sc(&f.dst, items, 4096, &done);
  }
  for (int i = 0; i < PUMPED_N; i += 4096) {
    for (int k = 0; k < 4096; k++)
      items[k] = (uint64_t)(i + k);
    qua__lfq_put_n_sp(&f.src, items, 4096, &done); /* QUA__LFQ_EDGE the first time */
    if (done != 4096)
      fail("pipeline4 floor: the source ring took too few items");
  }
  pthread_t t;
  uint64_t t0 = qbench_now_ns();
  if (pthread_create(&t, NULL, pumped_floor_main, &f) != 0)
    fail("pipeline4 floor: no thread");
  pthread_join(t, NULL);
  double mops = (double)PUMPED_N / ((double)(qbench_now_ns() - t0) / 1e3);
  if (atomic_load(&f.count) != PUMPED_N || qua__lfq_count(&f.dst) != PUMPED_N)
    fail("pipeline4 floor: items were lost");
  for (uint64_t i = 0; i < PUMPED_N;) {
    qua__lfq_get_n_sc(&f.dst, items, 4096, &done);
    for (size_t k = 0; k < done; k++)
      if (items[k] != i + k)
        fail("pipeline4 floor: an item was lost or out of order");
    i += done;
  }
  qua__lfq_fini(&f.src);
  qua__lfq_fini(&f.dst);
  return mops;
}

static double pipeline_pumped_run(void *ctx) {
  enum { N = PUMPED_N };
  pipeline_pumped_t *x = ctx;
  if (x->floor)
    return pipeline_pumped_floor();
  static uint64_t items[4096];
  const char *ap[] = {x->synth, "capacity=1048576"};
  const char *bp[] = {x->synth, "capacity=1048576", "notify=0"};
  char count[32];
  snprintf(count, sizeof count, "count=%d", N);
  const char *pp[] = {x->synth, count};
  qua_quaject_t *a = NULL, *b = NULL, *p = NULL;
  if (qua_create("queue", ap, 2, &a, NULL) != QUA_OK || qua_create("queue", bp, 3, &b, NULL) != QUA_OK ||
      qua_create("pump", pp, 2, &p, NULL) != QUA_OK)
    fail("pipeline4: the queues or the pump could not be made");
  qua_quaject_t *tee = make("tee", x->synth, "n=1"), *c = make("counter", x->synth, NULL);
  if (qua_wire(tee, "out0", c, "pass", NULL) != QUA_OK || qua_wire(c, "out", b, "put", NULL) != QUA_OK ||
      qua_wire(p, "sink", tee, "put", NULL) != QUA_OK)
    fail("pipeline4: wiring failed");
  double mops = pump_timed(p, a, b, items, N);
  qua_quaject_entry_info(p, QUA_ENTRY_BODY, x->impl, sizeof x->impl, NULL);
  qua_quaject_entry_info(tee, 0, x->tee_impl, sizeof x->tee_impl, NULL);
  qua_site_t *get, *value;
  uint64_t v = 0;
  qua_site_open(c, "read", NULL, 0, &value, NULL);
  qua_call(value, 0, 0, &v);
  qua_site_close(value);
  if (v != N)
    fail("pipeline4: the counter did not count every item");
  qua_site_open(b, "get_n", NULL, 0, &get, NULL);
  for (uint64_t i = 0; i < N;) {
    uint64_t done = 0;
    qua_call(get, (uint64_t)(uintptr_t)items, 4096, &done);
    for (uint64_t k = 0; k < done; k++)
      if (items[k] != i + k)
        fail("pipeline4: an item was lost or out of order");
    if (done == 0)
      fail("pipeline4: the sink queue ran dry early");
    i += done;
  }
  qua_site_close(get);
  qua_destroy(p, true, NULL);
  qua_destroy(tee, true, NULL);
  qua_destroy(c, true, NULL);
  qua_destroy(a, true, NULL);
  qua_destroy(b, true, NULL);
  return mops;
}

void bench_synth(double tcc_ns, double cc_ns) {
  double wire = synth_wire();
  if (wire <= 0)
    exit(1);
  printf("BENCH synth_wire_ns %.0f ns\n", wire);
  e2e_t e = synth_wire_e2e();
  printf("BENCH synth_wire_e2e_wait_ns %.0f ns\n", e.wait_ns);
  printf("BENCH synth_grace_period_ns %.0f ns\n", e.gp_ns);
  printf("BENCH synth_wire_grace_periods %.0f\n", e.gps);
  printf("BENCH synth_wire_e2e_ns %.0f ns\n", e.nowait_ns);
  if (tcc_ns > 0) {
    printf("BENCH synth_e2e_vs_libtcc %.1f x\n", tcc_ns / e.nowait_ns);
    printf("BENCH synth_e2e_wait_vs_libtcc %.1f x\n", tcc_ns / e.wait_ns);
  } else {
    printf("BENCH synth_e2e_vs_libtcc skipped libtcc (libtcc-dev, tcc) missing or failed\n");
  }
  if (cc_ns > 0) {
    printf("BENCH synth_e2e_vs_cc %.1f x\n", cc_ns / e.nowait_ns);
    printf("BENCH synth_e2e_wait_vs_cc %.1f x\n", cc_ns / e.wait_ns);
  }

  qua_thread_online();
  /* The default queue (notify=1) reports transitions to whoever listens;
   * here nobody does. The generic code tracks every transition and skips
   * the listener walk by a flag; the synthesised code runs untracked until
   * a listener comes. */
  paired_t t = put_get("notify=1"), u = put_get("notify=0");
  printf("BENCH put_get_generic_ns %.2f ns\n", t.generic);
  printf("BENCH put_get_synth_ns %.2f ns\n", t.synth);
  printf("BENCH synth_call_speedup %.2f x\n", t.speedup);
  printf("BENCH put_get_untracked_generic_ns %.2f ns\n", u.generic);
  printf("BENCH put_get_untracked_synth_ns %.2f ns\n", u.synth);
  printf("BENCH synth_call_speedup_untracked %.2f x\n", u.speedup);

  pipeline_t pg, ps, pf;
  pipeline_open(&pg, "synth=off");
  pipeline_open(&ps, "synth=stencil");
  pipeline_open_floor(&pf);
  paired_t pl = run_three(pipeline_run, &pg, &ps, &pf, RUNS * 2);
  printf("# pipeline4_thread: tee.put runs \"%s\" generic, \"%s\" synthesised\n", pg.impl, ps.impl);
  printf("BENCH pipeline4_thread_generic_mops %.1f Mops/s\n", pl.generic);
  printf("BENCH pipeline4_thread_synth_mops %.1f Mops/s\n", pl.synth);
  printf("BENCH pipeline4_thread_speedup %.2f x\n", pl.speedup);
  printf("BENCH pipeline4_thread_floor_mops %.1f Mops/s\n", pl.floor);
  printf("BENCH pipeline4_thread_synth_vs_floor %.2f x\n", pl.synth_vs_floor);
  printf("BENCH pipeline4_thread_floor_vs_generic %.2f x\n", pl.floor / pl.generic);
  pipeline_close(&pg);
  pipeline_close(&ps);
  qua_thread_offline();

  pump_run_t mg = {.synth = "synth=off"}, ms = {.synth = "synth=stencil"};
  paired_t pm = run_paired(pump_move_run, &mg, &ms, RUNS);
  printf("# pump_move: the step runs \"%s\" generic, \"%s\" synthesised\n", mg.impl, ms.impl);
  printf("BENCH pump_move_generic_mops %.1f Mops/s\n", pm.generic);
  printf("BENCH pump_move_synth_mops %.1f Mops/s\n", pm.synth);
  printf("BENCH pump_step_speedup %.2f x\n", pm.speedup);

  pipeline_pumped_t qg = {.synth = "synth=off"}, qs = {.synth = "synth=stencil"}, qf = {.floor = true};
  paired_t pp = run_three(pipeline_pumped_run, &qg, &qs, &qf, RUNS);
  printf("# pipeline4: the pump's step runs \"%s\", the tee's put \"%s\" generic; "
         "\"%s\", \"%s\" synthesised\n", qg.impl, qg.tee_impl, qs.impl, qs.tee_impl);
  printf("BENCH pipeline4_generic_mops %.1f Mops/s\n", pp.generic);
  printf("BENCH pipeline4_synth_mops %.1f Mops/s\n", pp.synth);
  printf("BENCH pipeline4_speedup %.2f x\n", pp.speedup);
  printf("BENCH pipeline4_floor_mops %.1f Mops/s\n", pp.floor);
  printf("BENCH pipeline4_synth_vs_floor %.2f x\n", pp.synth_vs_floor);
}
