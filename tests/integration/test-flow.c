/* test-flow.c -- credit flow control: a slow drainer backs a queue up to its producer's full, and quad's memory stays bounded. */
#include "itest.h"

static itest_daemon_t daemon_;

typedef struct drained {
  uint64_t binding;
  uint64_t n;        /* items received */
  uint64_t next;     /* the item expected next */
  uint64_t out_of_order;
  uint64_t dropped;
} drained_t;

static void on_item(void *ctx, quac_conn_t *c, const quac_event_t *ev) {
  drained_t *d = ctx;
  if (ev->binding != d->binding)
    return;
  if (ev->arg != d->next)
    d->out_of_order++;
  d->next = ev->arg + 1;
  d->n++;
  d->dropped += ev->dropped;
}

static uint64_t queue_count(quac_conn_t *c, uint64_t h) {
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke(c, h, "count", NULL, 0, &r), 0);
  return r.result;
}

static void slow_drainer_backs_queue_up_to_full(void) {
  quac_conn_t *a = itest_connect(&daemon_), *d = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL && d != NULL);
  const char *params[] = {"capacity=16"};
  uint64_t qa;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "queue", params, 1, "flow-q", &qa, NULL), 0);
  quac_opened_t qd;
  CU_ASSERT_EQUAL_FATAL(quac_open(d, "flow-q", &qd), 0);
  drained_t got = {0};
  quac_on_event(d, on_item, &got);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callout(d, qd.handle, "get", 4, &got.binding), 0);
  /* The drainer grants 4 credits and then nothing: the queue takes 16 more
   * and the producer's puts end in "full". */
  uint64_t stored = 0, full = 0;
  for (uint64_t v = 0; v < 100; v++) {
    quac_result_t r;
    int s = quac_invoke(a, qa, "put", &stored, 1, &r);
    CU_ASSERT(s == 0 || s == QUA_DIVERTED);
    if (s == 0) {
      stored++;
    } else {
      CU_ASSERT_EQUAL(r.nfired, 1);
      CU_ASSERT_STRING_EQUAL(r.fired[0].callback, "full");
      full++;
      itest_sleep_ms(1);
    }
  }
  double end = itest_now() + 5.0;
  while (got.n < 4 && itest_now() < end)
    quac_poll(d, 100);
  CU_ASSERT_EQUAL(quac_poll(d, 200), 0); /* and not one more */
  CU_ASSERT_EQUAL(got.n, 4);
  CU_ASSERT_EQUAL(stored, 20);
  CU_ASSERT_EQUAL(full, 80);
  CU_ASSERT_EQUAL(queue_count(a, qa), 16);
  /* More credits: more items, in order, and the queue makes room. */
  CU_ASSERT_EQUAL(quac_credit(d, got.binding, 8), 0);
  end = itest_now() + 5.0;
  while (got.n < 12 && itest_now() < end)
    quac_poll(d, 100);
  CU_ASSERT_EQUAL(got.n, 12);
  CU_ASSERT_EQUAL(got.out_of_order, 0);
  CU_ASSERT_EQUAL(got.next, 12);
  CU_ASSERT_EQUAL(queue_count(a, qa), 8);
  /* Unbound, the drainer takes nothing more. */
  CU_ASSERT_EQUAL(quac_unbind(d, got.binding), 0);
  CU_ASSERT_EQUAL(quac_credit(d, got.binding, 8) < 0, 1);
  CU_ASSERT_EQUAL(quac_poll(d, 100), 0);
  CU_ASSERT_EQUAL(queue_count(a, qa), 8);
  quac_close(d);
  CU_ASSERT_EQUAL(quac_destroy(a, qa, false), 0);
  quac_close(a);
}

static void daemon_memory_bounded_through_slow_drain(void) {
  const uint64_t items = (uint64_t)qtest_scale(1000000, 200000);
  const uint64_t window = 256;
  enum { BATCH = 512 };
  quac_conn_t *a = itest_connect(&daemon_), *d = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL && d != NULL);
  const char *params[] = {"capacity=1024"};
  uint64_t qa;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "queue", params, 1, "mem-q", &qa, NULL), 0);
  quac_opened_t qd;
  CU_ASSERT_EQUAL_FATAL(quac_open(d, "mem-q", &qd), 0);
  drained_t got = {0};
  quac_on_event(d, on_item, &got);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callout(d, qd.handle, "get", window, &got.binding), 0);

  static quac_call_t calls[BATCH];
  static quac_result_t res[BATCH];
  uint64_t next = 0, credited = window, full_batches = 0, rounds = 0;
  long rss0 = -1, rss_max = 0;
  double t0 = itest_now(), deadline = t0 + 120.0;
  while (got.n < items && itest_now() < deadline) {
    /* Producer: one batch of puts in order; the first "full" ends it. */
    size_t n = 0;
    for (; n < BATCH && next + n < items; n++)
      calls[n] = (quac_call_t){.handle = qa, .entry = "put", .nargs = 1, .args = {next + n}};
    if (n > 0) {
      CU_ASSERT_EQUAL_FATAL(quac_invoke_batch(a, calls, n, res), 0);
      size_t ok = 0;
      while (ok < n && res[ok].status == 0)
        ok++;
      if (ok < n) {
        CU_ASSERT_STRING_EQUAL(res[ok].fired[0].callback, "full");
        full_batches++;
      }
      next += ok;
    }
    /* Drainer, slower: takes what arrived and gives back credits for it. */
    uint64_t before = got.n;
    CU_ASSERT_FATAL(quac_poll(d, n == 0 ? 10 : 0) >= 0);
    if (got.n > before && credited < items) {
      uint64_t grant = got.n - before;
      if (credited + grant > items)
        grant = items - credited;
      CU_ASSERT_EQUAL_FATAL(quac_credit(d, got.binding, grant), 0);
      credited += grant;
    }
    if (++rounds % 64 == 0) {
      long rss = itest_vmrss_kb(daemon_.pid);
      if (rss0 < 0 && got.n >= items / 20)
        rss0 = rss;
      if (rss > rss_max)
        rss_max = rss;
    }
  }
  long rss1 = itest_vmrss_kb(daemon_.pid);
  double secs = itest_now() - t0;
  fprintf(stderr, "flow: %" PRIu64 " items in %.2f s, %" PRIu64 " batches ended full, quad VmRSS "
          "%ld kB after warm-up, %ld kB peak, %ld kB at end\n", got.n, secs, full_batches, rss0,
          rss_max, rss1);
  CU_ASSERT_EQUAL(got.n, items);
  CU_ASSERT_EQUAL(got.out_of_order, 0);
  CU_ASSERT_EQUAL(got.dropped, 0);
  CU_ASSERT_TRUE(full_batches > 0); /* the slow drainer backed the queue up to the producer */
  CU_ASSERT_TRUE(rss0 > 0);
  /* Bounded: the queue, the credits' worth of events and buffers; not items. */
  long bound_kb = QTEST_SANITIZED ? 64 * 1024 : 8 * 1024;
  CU_ASSERT_TRUE(rss_max - rss0 < bound_kb);
  CU_ASSERT_EQUAL(quac_unbind(d, got.binding), 0);
  quac_close(d);
  CU_ASSERT_EQUAL(quac_destroy(a, qa, false), 0);
  quac_close(a);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 1;
  /* ASan's quarantine would keep freed frames resident and blur the bound. */
  if (QTEST_SANITIZED) {
    char opts[512];
    const char *old = getenv("ASAN_OPTIONS");
    snprintf(opts, sizeof opts, "%s%squarantine_size_mb=4", old ? old : "", old && *old ? ":" : "");
    setenv("ASAN_OPTIONS", opts, 1);
  }
  if (itest_start(&daemon_, "--log-level", "warn", (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"slow_drainer_backs_queue_up_to_full", slow_drainer_backs_queue_up_to_full},
      {"daemon_memory_bounded_through_slow_drain", daemon_memory_bounded_through_slow_drain},
      {NULL, NULL}};
  return itest_run_and_stop(&daemon_, "flow", cases);
}
