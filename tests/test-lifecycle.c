/* test-lifecycle.c -- destroy, unwire and rewire while other threads call in. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "qtest-qua.h"

typedef struct hammer {
  qua_site_t *site;
  _Atomic bool stop;
  _Atomic long ok, dead, other;
} hammer_t;

static void *hammer_main(void *arg) {
  hammer_t *h = arg;
  while (!atomic_load(&h->stop)) {
    uint64_t v;
    int r = qua_call(h->site, 1, 0, &v);
    if (r == QUA_OK)
      atomic_fetch_add(&h->ok, 1);
    else if (r == QUA_ESTATE)
      atomic_fetch_add(&h->dead, 1);
    else
      atomic_fetch_add(&h->other, 1);
  }
  return NULL;
}

/* A thread keeps calling counter.add through its site while the counter is
 * force-destroyed under it: every call either ran on the live counter or
 * got QUA_ESTATE from the stub, never touched freed memory (ASan watches). */
static void destroy_under_running_callers(void) {
  int rounds = QTEST_SANITIZED ? 20 : 100;
  for (int i = 0; i < rounds; i++) {
    qua_quaject_t *c;
    CU_ASSERT_EQUAL_FATAL(qua_create("counter", NULL, 0, &c, NULL), QUA_OK);
    hammer_t h = {0};
    CU_ASSERT_EQUAL_FATAL(qua_site_open(c, "add", NULL, 0, &h.site, NULL), QUA_OK);
    pthread_t t;
    pthread_create(&t, NULL, hammer_main, &h);
    while (atomic_load(&h.ok) < 100)
      sched_yield();
    CU_ASSERT_EQUAL(qua_destroy(c, true, NULL), QUA_OK);
    long dead0 = atomic_load(&h.dead);
    while (atomic_load(&h.dead) < dead0 + 10)
      sched_yield();
    atomic_store(&h.stop, true);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(atomic_load(&h.other), 0);
    qua_site_close(h.site);
  }
}

/* A tee's output is rewired between two counters while a thread pushes
 * through the tee: every item lands in at most one counter, and in the one
 * wired while it was pushed. The hammer is one thread, so when the main
 * thread samples its count `ok` (calls returned so far), at most one call
 * is in flight. A round wires out0 (ok was s0 just before), then unwires
 * it (ok is s3 just after; the unwire's grace period saw every call that
 * could use the wire finish): the round's counter gained at most
 * s3 - s0 + 1 items, one per call in [s0, s3]. Counting an item twice
 * breaks that bound; so does counting into the unwired counter. */
static void rewire_under_running_callers(void) {
  qua_quaject_t *tee, *a, *b;
  const char *n1[] = {"n=1"};
  CU_ASSERT_EQUAL_FATAL(qua_create("tee", n1, 1, &tee, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_create("counter", NULL, 0, &a, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_create("counter", NULL, 0, &b, NULL), QUA_OK);
  hammer_t h = {0};
  CU_ASSERT_EQUAL_FATAL(qua_site_open(tee, "put", NULL, 0, &h.site, NULL), QUA_OK);
  pthread_t t;
  pthread_create(&t, NULL, hammer_main, &h);
  int rounds = QTEST_SANITIZED ? 50 : 300;
  qua_site_t *rd[2];
  qua_site_open(a, "read", NULL, 0, &rd[0], NULL);
  qua_site_open(b, "read", NULL, 0, &rd[1], NULL);
  bool moved = true, bounded = true;
  uint64_t sum_bound[2] = {0, 0};
  for (int i = 0; i < rounds && moved && bounded; i++) {
    uint64_t before, now, after, other_before, other_after;
    qua_call(rd[i % 2], 0, 0, &before);
    qua_call(rd[1 - i % 2], 0, 0, &other_before);
    long s0 = atomic_load(&h.ok);
    CU_ASSERT_EQUAL(qua_wire(tee, "out0", i % 2 ? b : a, "pass", NULL), QUA_OK);
    if (i == 0)
      qtest_runs_requested_code(tee, "tee", "put");
    /* items flow into the newly wired counter while the caller runs */
    double end = qtest_now() + 10;
    do
      qua_call(rd[i % 2], 0, 0, &now);
    while (now == before && qtest_now() < end);
    moved = now > before;
    CU_ASSERT_EQUAL(qua_unwire(tee, "out0", NULL), QUA_OK);
    long s3 = atomic_load(&h.ok);
    qua_call(rd[i % 2], 0, 0, &after);
    qua_call(rd[1 - i % 2], 0, 0, &other_after);
    bounded = after - before <= (uint64_t)(s3 - s0 + 1) && other_after == other_before;
    if (!bounded)
      fprintf(stderr, "\n  round %d: counter gained %" PRIu64 " from %ld calls; the unwired one %" PRIu64 "\n",
              i, after - before, s3 - s0 + 1, other_after - other_before);
    sum_bound[i % 2] += (uint64_t)(s3 - s0 + 1);
  }
  CU_ASSERT_TRUE(moved);
  CU_ASSERT_TRUE(bounded);
  qua_site_close(rd[0]);
  qua_site_close(rd[1]);
  atomic_store(&h.stop, true);
  pthread_join(t, NULL);
  qua_site_t *ra, *rb;
  uint64_t va, vb;
  qua_site_open(a, "read", NULL, 0, &ra, NULL);
  qua_site_open(b, "read", NULL, 0, &rb, NULL);
  qua_call(ra, 0, 0, &va);
  qua_call(rb, 0, 0, &vb);
  /* The tee returns OK whether or not out0 was wired at the moment of the
   * call, so the counters hold at most what was pushed. */
  CU_ASSERT(va + vb <= (uint64_t)atomic_load(&h.ok));
  CU_ASSERT(va <= sum_bound[0] && vb <= sum_bound[1]);
  CU_ASSERT(va > 0 && vb > 0);
  CU_ASSERT_EQUAL(atomic_load(&h.other), 0);
  qua_site_close(ra);
  qua_site_close(rb);
  qua_site_close(h.site);
  CU_ASSERT_EQUAL(qua_destroy(tee, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(a, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(b, false, NULL), QUA_OK);
}

/* A pump runs while its sink is destroyed and recreated: the pump never
 * calls into freed memory, and every item is accounted for. Items are the
 * numbers 0, 1, 2, ... in the order the source accepted them. What a sink
 * held when destroyed went with it; the pump counts as moved each item a
 * sink took, and keeps the one a destroyed sink left it holding (not lost)
 * for the next sink. A last sink, wired once the source is drained into
 * nothing else, must receive exactly the items after the moved ones, in
 * order: moved + lost + left == accepted, with lost 0. */
static void destroy_pump_target_while_pumping(void) {
  qua_quaject_t *src, *dst, *p;
  const char *cap[] = {"capacity=1024"};
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", cap, 1, &src, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_create("pump", NULL, 0, &p, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "source", src, "get", NULL), QUA_OK);
  qua_site_t *put;
  qua_site_open(src, "put", NULL, 0, &put, NULL);
  /* Sinks smaller than what a round puts: the pump is left holding an
   * item and the source keeps some. */
  const char *small[] = {"capacity=256"};
  uint64_t accepted = 0;
  int rounds = QTEST_SANITIZED ? 10 : 40;
  for (int i = 0; i < rounds; i++) {
    CU_ASSERT_EQUAL_FATAL(qua_create("queue", small, 1, &dst, NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_wire(p, "sink", dst, "put", NULL), QUA_OK);
    if (i == 0)
      qtest_runs_requested_code_at(p, QUA_ENTRY_BODY, "pump body");
    for (int k = 0; k < 500; k++)
      if (qua_call(put, accepted, 0, NULL) == QUA_OK)
        accepted++;
    usleep(200);
    CU_ASSERT_EQUAL(qua_destroy(dst, false, NULL), QUA_EBUSY);
    CU_ASSERT_EQUAL(qua_destroy(dst, true, NULL), QUA_OK);
    CU_ASSERT_PTR_NULL(qua_wired_to(p, 1, NULL));
  }
  /* Unwired, the pump moves nothing more: at most one item waits in it. */
  uint64_t moved = qtest_stat(p, "moved=");
  CU_ASSERT_EQUAL(qtest_stat(p, "lost="), 0);
  const char *big[] = {"capacity=65536"};
  qua_quaject_t *last;
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", big, 1, &last, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "sink", last, "put", NULL), QUA_OK);
  double end = qtest_now() + 30;
  while (qtest_stat(p, "moved=") < accepted && qtest_now() < end)
    usleep(1000);
  uint64_t moved_all = qtest_stat(p, "moved="), lost = qtest_stat(p, "lost=");
  qua_site_t *get;
  qua_site_open(last, "get", NULL, 0, &get, NULL);
  uint64_t v, left = 0;
  bool in_order = true;
  while (qua_call(get, 0, 0, &v) == QUA_OK) {
    in_order &= v == moved + left;
    left++;
  }
  qua_site_close(get);
  fprintf(stderr, "\n  accepted %" PRIu64 ": moved %" PRIu64 " into destroyed sinks, lost %" PRIu64
          ", %" PRIu64 " left for the last sink\n", accepted, moved, lost, left);
  CU_ASSERT_EQUAL(moved_all, accepted);
  CU_ASSERT_EQUAL(lost, 0);
  CU_ASSERT_EQUAL(moved + lost + left, accepted);
  CU_ASSERT_TRUE(in_order);
  qua_site_close(put);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(last, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(src, false, NULL), QUA_OK);
}

typedef struct adder {
  qua_quaject_t *c;
  long n;
  _Atomic long done; /* adds completed */
} adder_t;

/* Opens its site and adds 1, n times. */
static void *adder_main(void *arg) {
  adder_t *a = arg;
  qua_site_t *s;
  if (qua_site_open(a->c, "add", NULL, 0, &s, NULL) != QUA_OK)
    return NULL;
  uint64_t v;
  for (long i = 0; i < a->n; i++) {
    qua_call(s, 1, 0, &v);
    atomic_store_explicit(&a->done, i + 1, memory_order_relaxed);
  }
  qua_site_close(s);
  return NULL;
}

/* A counter runs one-writer code (plain load and store) while it has one
 * writer site. One writer adds all along; second writers come (switching
 * the counter to the atomic code while the first is adding), add, and go
 * (switching it back), again and again: the total stays exact. Each
 * arrival is checked to have overlapped the first writer's adds. */
static void counter_writers_come_and_go(void) {
  qua_quaject_t *c;
  CU_ASSERT_EQUAL_FATAL(qua_create("counter", NULL, 0, &c, NULL), QUA_OK);
  long n = QTEST_SANITIZED ? 20000 : 200000;
  int rounds = 0, overlapped = 0;
  adder_t first = {c, QTEST_SANITIZED ? 4000000 : 40000000}, second = {c, n};
  pthread_t t1, t2;
  pthread_create(&t1, NULL, adder_main, &first);
  while (atomic_load(&first.done) == 0)
    sched_yield();
  qtest_runs_requested_code(c, "counter", "add");
  while (atomic_load(&first.done) < first.n && rounds < 200) {
    long before = atomic_load(&first.done);
    atomic_store(&second.done, 0);
    pthread_create(&t2, NULL, adder_main, &second);
    pthread_join(t2, NULL);
    rounds++;
    overlapped += atomic_load(&first.done) > before && atomic_load(&first.done) < first.n;
  }
  pthread_join(t1, NULL);
  qua_site_t *rd;
  uint64_t v = 0;
  qua_site_open(c, "read", NULL, 0, &rd, NULL);
  qua_call(rd, 0, 0, &v);
  fprintf(stderr, "\n  %d second writers, %d of them while the first added\n", rounds, overlapped);
  CU_ASSERT_EQUAL(v, (uint64_t)(first.n + n * rounds));
  CU_ASSERT(overlapped >= 8);
  qua_site_close(rd);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
}

/* A reader of where a callout is wired (qua_wired_to_id: no lock). */
typedef struct wire_reader {
  qua_quaject_t *src;
  _Atomic uint64_t lo, hi; /* ids of the targets made so far */
  _Atomic bool stop;
  _Atomic long reads, wired, bad;
} wire_reader_t;

static void *wire_reader_main(void *arg) {
  wire_reader_t *w = arg;
  while (!atomic_load(&w->stop)) {
    uint64_t lo = atomic_load(&w->lo);
    const char *entry = NULL;
    uint64_t id = qua_wired_to_id(w->src, 0, &entry);
    uint64_t hi = atomic_load(&w->hi); /* read after: covers a target wired meanwhile */
    atomic_fetch_add(&w->reads, 1);
    if (id == 0)
      continue;
    atomic_fetch_add(&w->wired, 1);
    if (id < lo || id > hi || entry == NULL || strcmp(entry, "pass") != 0)
      atomic_fetch_add(&w->bad, 1);
  }
  return NULL;
}

/* A thread keeps asking, without the control lock, where a tee's out0 is
 * wired while counters are wired to it and destroyed under it (forced,
 * which unwires them): every answer is 0 or the id of a counter made so
 * far with the entry "pass", and never read freed memory (ASan, TSan). */
static void wired_to_id_reads_while_targets_come_and_go(void) {
  const char *n1[] = {"n=1"};
  wire_reader_t w = {0};
  CU_ASSERT_EQUAL_FATAL(qua_create("tee", n1, 1, &w.src, NULL), QUA_OK);
  pthread_t t;
  pthread_create(&t, NULL, wire_reader_main, &w);
  int rounds = QTEST_SANITIZED ? 50 : 300;
  for (int i = 0; i < rounds; i++) {
    qua_quaject_t *c;
    CU_ASSERT_EQUAL_FATAL(qua_create("counter", NULL, 0, &c, NULL), QUA_OK);
    if (i == 0)
      atomic_store(&w.lo, qua_quaject_id(c));
    atomic_store(&w.hi, qua_quaject_id(c));
    CU_ASSERT_EQUAL(qua_wire(w.src, "out0", c, "pass", NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_wired_to_id(w.src, 0, NULL), qua_quaject_id(c));
    long r0 = atomic_load(&w.reads); /* the reader reads while it is wired */
    for (double end = qtest_now() + 1; atomic_load(&w.reads) < r0 + 2 && qtest_now() < end;)
      sched_yield();
    CU_ASSERT_EQUAL(qua_destroy(c, true, NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_wired_to_id(w.src, 0, NULL), 0);
  }
  atomic_store(&w.stop, true);
  pthread_join(t, NULL);
  fprintf(stderr, "\n  %ld reads, %ld of them wired", atomic_load(&w.reads),
          atomic_load(&w.wired));
  CU_ASSERT(atomic_load(&w.wired) > 0);
  CU_ASSERT_EQUAL(atomic_load(&w.bad), 0);
  /* Past the callouts: none. */
  CU_ASSERT_EQUAL(qua_wired_to_id(w.src, -1, NULL), 0);
  CU_ASSERT_EQUAL(qua_wired_to_id(w.src, 1, NULL), 0);
  CU_ASSERT_EQUAL(qua_destroy(w.src, false, NULL), QUA_OK);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"destroy_under_running_callers", destroy_under_running_callers},
      {"rewire_under_running_callers", rewire_under_running_callers},
      {"destroy_pump_target_while_pumping", destroy_pump_target_while_pumping},
      {"counter_writers_come_and_go", counter_writers_come_and_go},
      {"wired_to_id_reads_while_targets_come_and_go", wired_to_id_reads_while_targets_come_and_go},
      {NULL, NULL}};
  return qtest_run("lifecycle", cases);
}
