/* demo.c -- make demo: builds two small quaject graphs and narrates what happens.
 *
 *   clock --tick--> counter (threshold=5)
 *   source queue --> pump "producer" --> queue "mid" (capacity 4) --> pump "consumer" --> sink queue
 *
 * Every callback of "mid" and the counter's threshold are watched and printed
 * as they fire, from whichever thread fires them. At the end the demo checks
 * what must have happened (exit status 1 and a line naming what did not):
 * the counter crossed 5 once, with 5, and reads 8; "mid" reported empty and
 * notempty (the consumer started first), and closed once; the sink holds
 * 100, 200, ... 1200 in order, and nothing was lost.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qua.h"

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static struct timespec t0;

static double ms_since_start(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&out_mu);
  printf("[%8.3f ms] ", ms_since_start());
  vprintf(fmt, ap);
  putchar('\n');
  fflush(stdout);
  pthread_mutex_unlock(&out_mu);
  va_end(ap);
}

/* What a watched quaject reported: how often each callback fired, and the
 * argument it fired with last. */
typedef struct tally {
  const char *label;
  int fired[QUA_MAX_CALLBACKS];
  uint64_t last[QUA_MAX_CALLBACKS];
} tally_t;

static void on_callback(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  tally_t *t = ctx;
  const qua_type_t *type = qua_quaject_type(from);
  pthread_mutex_lock(&out_mu);
  t->fired[cb]++;
  t->last[cb] = arg;
  pthread_mutex_unlock(&out_mu);
  say("%-8s %-9s (arg %" PRIu64 ")", t->label, qua_type_callback_name(type, cb), arg);
}

/* How often q's callback `name` fired, as tallied. */
static int fired(const tally_t *t, qua_quaject_t *q, const char *name) {
  return t->fired[qua_type_callback(qua_quaject_type(q), name)];
}

static int failures;

/* Reports a check that did not hold. */
static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...) {
  if (ok)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "qua-demo: wrong: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  failures++;
}

static qua_quaject_t *create(const char *type, const char *p0, const char *p1) {
  const char *p[] = {p0, p1};
  qua_quaject_t *q;
  qua_error_t err;
  if (qua_create(type, p, p1 ? 2 : p0 ? 1 : 0, &q, &err) != QUA_OK) {
    fprintf(stderr, "qua-demo: create %s: %s\n", type, err.msg);
    exit(1);
  }
  return q;
}

static void wire(qua_quaject_t *a, const char *callout, qua_quaject_t *b, const char *entry) {
  qua_error_t err;
  if (qua_wire(a, callout, b, entry, &err) != QUA_OK) {
    fprintf(stderr, "qua-demo: wire %s -> %s: %s\n", callout, entry, err.msg);
    exit(1);
  }
}

static uint64_t call0(qua_quaject_t *q, const char *entry) {
  qua_site_t *s;
  uint64_t v = 0;
  if (qua_site_open(q, entry, NULL, 0, &s, NULL) == QUA_OK) {
    qua_call(s, 0, 0, &v);
    qua_site_close(s);
  }
  return v;
}

/* Waits (at most 10 s, in steps of `step_us`) until q's callentry `entry`
 * reads at least `want`; returns what it read last. */
static uint64_t wait_for(qua_quaject_t *q, const char *entry, uint64_t want, useconds_t step_us) {
  uint64_t v = call0(q, entry);
  for (long waited = 0; v < want && waited < 10000000; waited += step_us) {
    usleep(step_us);
    v = call0(q, entry);
  }
  return v;
}

int main(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("usage: qua-demo\n\n"
           "Builds two small quaject graphs in this process and prints every callback\n"
           "as it fires:\n"
           "  clock -> counter (threshold 5)\n"
           "  source -> pump -> queue \"mid\" (capacity 4) -> pump -> sink\n");
    return 0;
  }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  qua_watch_t *w[8];
  int nw = 0;

  printf("qua demo: quaject graphs with callbacks\n\n");
  printf("graph 1: clock (every 20 ms, 8 ticks) --tick--> counter.pass (threshold=5)\n");
  qua_quaject_t *counter = create("counter", "threshold=5", NULL);
  static tally_t counter_tally = {.label = "counter"}, mid_tally = {.label = "mid"};
  qua_watch(counter, "threshold", on_callback, &counter_tally, &w[nw++], NULL);
  qua_quaject_t *clk = create("clock", "period_us=20000", "count=8");
  wire(clk, "tick", counter, "pass");
  wait_for(counter, "read", 8, 5000);
  say("counter  value     %" PRIu64, call0(counter, "read"));
  check(call0(counter, "read") == 8, "the counter reads %" PRIu64 ", not 8", call0(counter, "read"));
  check(fired(&counter_tally, counter, "threshold") == 1 &&
            counter_tally.last[qua_type_callback(qua_quaject_type(counter), "threshold")] == 5,
        "threshold fired %d times (once, with 5, expected)",
        fired(&counter_tally, counter, "threshold"));

  printf("\ngraph 2: source --> pump --> queue \"mid\" (capacity 4) --> pump --> sink\n");
  qua_quaject_t *source = create("queue", "capacity=64", NULL);
  qua_quaject_t *mid = create("queue", "capacity=4", NULL);
  qua_quaject_t *sink = create("queue", "capacity=64", NULL);
  const char *cbs[] = {"full", "notfull", "empty", "notempty", "closed"};
  for (int i = 0; i < 5; i++)
    qua_watch(mid, cbs[i], on_callback, &mid_tally, &w[nw++], NULL);

  qua_site_t *put;
  qua_site_open(source, "put", NULL, 0, &put, NULL);
  for (uint64_t i = 1; i <= 12; i++)
    qua_call(put, i * 100, 0, NULL);
  qua_site_close(put);
  say("source   holds     12 items; starting the consumer pump, then the producer");

  qua_quaject_t *consumer = create("pump", NULL, NULL);
  wire(consumer, "source", mid, "get");
  wire(consumer, "sink", sink, "put");
  usleep(20000); /* the consumer finds mid empty and sleeps */
  qua_quaject_t *producer = create("pump", NULL, NULL);
  wire(producer, "source", source, "get");
  wire(producer, "sink", mid, "put");

  check(wait_for(sink, "count", 12, 2000) == 12, "the sink holds %" PRIu64 " items, not 12",
        call0(sink, "count"));
  qua_queue_close(source);
  qua_pump_join(producer, 5000);
  qua_queue_close(mid);
  qua_pump_join(consumer, 5000);

  char d[128];
  qua_quaject_describe(producer, d, sizeof d);
  say("producer %s", d);
  qua_quaject_describe(consumer, d, sizeof d);
  say("consumer %s", d);
  qua_site_t *get;
  qua_site_open(sink, "get", NULL, 0, &get, NULL);
  printf("sink holds:");
  uint64_t v, n = 0;
  bool in_order = true;
  while (qua_call(get, 0, 0, &v) == QUA_OK) {
    printf(" %" PRIu64, v);
    in_order &= v == ++n * 100;
  }
  printf("\n");
  qua_site_close(get);
  check(n == 12 && in_order, "the sink must hold 100, 200, ... 1200 in order");
  check(strstr(d, "lost=0 ") != NULL, "the consumer pump lost items: %s", d);
  pthread_mutex_lock(&out_mu);
  check(fired(&mid_tally, mid, "empty") >= 1 && fired(&mid_tally, mid, "notempty") >= 1,
        "mid reported empty %d and notempty %d times (each at least once expected)",
        fired(&mid_tally, mid, "empty"), fired(&mid_tally, mid, "notempty"));
  check(fired(&mid_tally, mid, "closed") == 1, "mid reported closed %d times, not once",
        fired(&mid_tally, mid, "closed"));
  pthread_mutex_unlock(&out_mu);

  for (int i = 0; i < nw; i++)
    qua_unwatch(w[i]);
  qua_destroy(producer, false, NULL);
  qua_destroy(consumer, false, NULL);
  qua_destroy(clk, false, NULL);
  qua_destroy(counter, false, NULL);
  qua_destroy(source, false, NULL);
  qua_destroy(mid, false, NULL);
  qua_destroy(sink, false, NULL);
  printf("\ndone: every quaject destroyed\n");
  return failures == 0 ? 0 : 1;
}
