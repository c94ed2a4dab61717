/* bench-synth.c -- quaject-level synthesis figures, printed by bench-jit beside its anchors.
 *
 *   synth_wire_ns        median time to synthesise a queue's put and get for one wire
 *   put_get_*_ns         a put then a get through two sites of a queue as `create queue`
 *                        makes it (notify=1: exact notempty/notfull), generic code vs
 *                        synthesised; put_get_untracked_*_ns the same for notify=0
 *   pipeline4_*_mops     source -> tee -> counter -> queue -> sink on one thread
 *   pump_move_*_mops     a pump moving 2^20 items from one queue into another on its own
 *                        thread: its step through the callouts vs the step stencil that
 *                        calls the wires' code directly
 *
 * Calls are made from a QSBR-online thread (qua_call_online), so the figures
 * are the callentries' own cost, not the read-side section's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-synth.h"
#include "qua.h"

#define RUNS 7

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
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
  return median(t, n);
}

/* ns per put+get pair through two sites of an SP-SC queue. */
static double put_get(const char *synth, const char *notify) {
  const char *p[] = {synth, "capacity=1024", notify};
  qua_quaject_t *q = NULL;
  if (qua_create("queue", p, 3, &q, NULL) != QUA_OK)
    exit(1);
  qua_site_t *put, *get;
  qua_site_open(q, "put", NULL, 0, &put, NULL);
  qua_site_open(q, "get", NULL, 0, &get, NULL);
  double runs[RUNS];
  const int n = 2000000;
  for (int r = 0; r < RUNS; r++) {
    uint64_t t0 = now_ns(), sum = 0, v = 0;
    for (int i = 0; i < n; i++) {
      qua_call_online(put, (uint64_t)i, 0, NULL);
      qua_call_online(get, 0, 0, &v);
      sum += v;
    }
    runs[r] = (double)(now_ns() - t0) / n;
    if (sum != (uint64_t)n * (n - 1) / 2)
      fprintf(stderr, "bench-synth: put/get lost items\n");
    qua_thread_quiescent();
  }
  qua_site_close(put);
  qua_site_close(get);
  qua_destroy(q, false, NULL);
  return median(runs, RUNS);
}

/* Million items per second through tee(n=1) -> counter.pass -> queue
 * (notify=0: nobody sleeps on it, so no transition tracking), the
 * source and the sink being this thread: 64 puts into the tee, then 64
 * gets from the queue. */
static double pipeline4(const char *synth, char *impl, size_t len) {
  qua_quaject_t *tee = make("tee", synth, "n=1"), *c = make("counter", synth, NULL);
  const char *qp[] = {synth, "capacity=1024", "notify=0"};
  qua_quaject_t *q = NULL;
  if (qua_create("queue", qp, 3, &q, NULL) != QUA_OK)
    exit(1);
  qua_wire(tee, "out0", c, "pass", NULL);
  qua_wire(c, "out", q, "put", NULL);
  qua_site_t *in, *out;
  qua_site_open(tee, "put", NULL, 0, &in, NULL);
  qua_site_open(q, "get", NULL, 0, &out, NULL);
  qua_quaject_entry_info(tee, 0, impl, len, NULL);
  double runs[RUNS];
  const int n = 1 << 21;
  for (int r = 0; r < RUNS; r++) {
    uint64_t t0 = now_ns(), sum = 0, v;
    for (int i = 0; i < n; i += 64) {
      for (int k = 0; k < 64; k++)
        qua_call_online(in, (uint64_t)(i + k), 0, NULL);
      for (int k = 0; k < 64; k++) {
        qua_call_online(out, 0, 0, &v);
        sum += v;
      }
    }
    runs[r] = (double)n / ((double)(now_ns() - t0) / 1e3);
    if (sum != (uint64_t)n * (n - 1) / 2)
      fprintf(stderr, "bench-synth: pipeline lost items\n");
    qua_thread_quiescent();
  }
  qua_site_close(in);
  qua_site_close(out);
  qua_destroy(tee, false, NULL);
  qua_destroy(c, false, NULL);
  qua_destroy(q, false, NULL);
  return median(runs, RUNS);
}

/* Million items per second a pump moves from a queue filled beforehand into
 * one with room for all, timed from wiring its source (the pump waits for
 * it) until it has moved them all. Not from a QSBR-online thread: wiring
 * waits for grace periods. */
static double pump_move(const char *synth, char *impl, size_t len) {
  enum { N = 1 << 20 };
  double runs[RUNS];
  static uint64_t items[4096];
  for (int r = 0; r < RUNS; r++) {
    const char *qp[] = {synth, "capacity=1048576"};
    char count[32];
    snprintf(count, sizeof count, "count=%d", N);
    const char *pp[] = {synth, count};
    qua_quaject_t *a = NULL, *b = NULL, *p = NULL;
    if (qua_create("queue", qp, 2, &a, NULL) != QUA_OK || qua_create("queue", qp, 2, &b, NULL) != QUA_OK ||
        qua_create("pump", pp, 2, &p, NULL) != QUA_OK)
      exit(1);
    qua_site_t *fill;
    qua_site_open(a, "put_n", NULL, 0, &fill, NULL);
    for (int i = 0; i < N;) {
      for (int k = 0; k < 4096; k++)
        items[k] = (uint64_t)(i + k);
      uint64_t done = 0;
      qua_call(fill, (uint64_t)(uintptr_t)items, 4096, &done);
      i += (int)done;
    }
    qua_site_close(fill);
    qua_wire(p, "sink", b, "put", NULL);
    uint64_t t0 = now_ns();
    qua_wire(p, "source", a, "get", NULL);
    if (qua_pump_join(p, 60000) != QUA_OK)
      fprintf(stderr, "bench-synth: the pump did not finish\n");
    runs[r] = (double)N / ((double)(now_ns() - t0) / 1e3);
    qua_quaject_entry_info(p, QUA_ENTRY_BODY, impl, len, NULL);
    qua_site_t *cnt;
    uint64_t n = 0;
    qua_site_open(b, "count", NULL, 0, &cnt, NULL);
    qua_call(cnt, 0, 0, &n);
    qua_site_close(cnt);
    if (n != N)
      fprintf(stderr, "bench-synth: the pump moved %llu of %d items\n", (unsigned long long)n, N);
    qua_destroy(p, true, NULL);
    qua_destroy(a, true, NULL);
    qua_destroy(b, true, NULL);
  }
  return median(runs, RUNS);
}

void bench_synth(double tcc_ns, double gccjit_ns) {
  double wire = synth_wire();
  if (wire <= 0)
    return;
  printf("BENCH synth_wire_ns %.0f ns\n", wire);
  if (tcc_ns > 0)
    printf("BENCH synth_vs_libtcc %.0f x\n", tcc_ns / wire);
  if (gccjit_ns > 0)
    printf("BENCH synth_vs_libgccjit %.0f x\n", gccjit_ns / wire);

  qua_thread_online();
  /* The default queue tracks transitions: each put here takes it from empty
   * to not empty, and nobody listens. The generic put looks for listeners
   * on every edge; the synthesised one was built knowing there are none. */
  double g = put_get("synth=off", "notify=1"), s = put_get("synth=stencil", "notify=1");
  double gu = put_get("synth=off", "notify=0"), su = put_get("synth=stencil", "notify=0");
  printf("BENCH put_get_generic_ns %.2f ns\n", g);
  printf("BENCH put_get_synth_ns %.2f ns\n", s);
  printf("BENCH synth_call_speedup %.2f x\n", g / s);
  printf("BENCH put_get_untracked_generic_ns %.2f ns\n", gu);
  printf("BENCH put_get_untracked_synth_ns %.2f ns\n", su);
  printf("BENCH synth_call_speedup_untracked %.2f x\n", gu / su);

  char gi[64], si[64];
  double pg = pipeline4("synth=off", gi, sizeof gi), ps = pipeline4("synth=stencil", si, sizeof si);
  printf("# pipeline4: tee.put runs \"%s\" generic, \"%s\" synthesised\n", gi, si);
  printf("BENCH pipeline4_generic_mops %.1f Mops/s\n", pg);
  printf("BENCH pipeline4_synth_mops %.1f Mops/s\n", ps);
  printf("BENCH pipeline4_speedup %.2f x\n", ps / pg);
  qua_thread_offline();

  double mg = pump_move("synth=off", gi, sizeof gi), ms = pump_move("synth=stencil", si, sizeof si);
  printf("# pump_move: the step runs \"%s\" generic, \"%s\" synthesised\n", gi, si);
  printf("BENCH pump_move_generic_mops %.1f Mops/s\n", mg);
  printf("BENCH pump_move_synth_mops %.1f Mops/s\n", ms);
  printf("BENCH pump_step_speedup %.2f x\n", ms / mg);
}
