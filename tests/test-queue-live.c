/* test-queue-live.c -- a notify=1 queue switching to tracked mode while a producer and a consumer keep calling it.
 *
 * A synthesised notify=1 queue runs untracked while nobody listens and
 * switches to tracked mode live when a listener comes (queue.c, note 6;
 * lfq.c, invariants 19-23). Each round, a producer and a consumer thread
 * move items through sites while the main thread adds a watcher on
 * notempty (or wires a pump as the consumer) in the middle of the flow.
 * Checked: every item arrives once and in order, and afterwards the count
 * is exact: notempty fires once for each empty-to-not-empty transition and
 * notfull once for each full-to-not-full one, which an off-by-one count
 * would break. With QUA_SYNTH=off the queue tracks from creation and the
 * same checks hold.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "qtest-qua.h"
#include "qtest.h"
#include "qua.h"

#define CAP 64

typedef struct flow {
  qua_quaject_t *q;
  long items;
  _Atomic long produced, consumed;
  _Atomic bool bad;
  bool slow_consumer; /* yields after each item: the queue runs full */
  double deadline;
} flow_t;

/* The producer (put) or the consumer (get) of f's items, one at a time,
 * retrying while the queue is full or empty; the consumer checks order. */
static void *flow_side(flow_t *f, bool put) {
  qua_site_t *s = NULL;
  if (qua_site_open(f->q, put ? "put" : "get", NULL, 0, &s, NULL) != QUA_OK) {
    atomic_store(&f->bad, true);
    return NULL;
  }
  for (long i = 0; i < f->items;) {
    uint64_t x = (uint64_t)i;
    if (qua_call(s, x, 0, &x) == QUA_OK) {
      if (!put && x != (uint64_t)i)
        atomic_store(&f->bad, true);
      i++;
      atomic_store_explicit(put ? &f->produced : &f->consumed, i, memory_order_relaxed);
      if (!put && f->slow_consumer)
        sched_yield();
    } else if (qtest_now() > f->deadline) {
      atomic_store(&f->bad, true);
      break;
    } else
      sched_yield();
  }
  qua_site_close(s);
  return NULL;
}

static void *produce(void *arg) { return flow_side(arg, true); }
static void *consume(void *arg) { return flow_side(arg, false); }

static void count_cb(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  atomic_fetch_add((_Atomic int *)ctx, 1);
}

static uint64_t queue_count(qua_quaject_t *q) {
  qua_site_t *c;
  uint64_t n = UINT64_MAX;
  qua_site_open(q, "count", NULL, 0, &c, NULL);
  qua_call(c, 0, 0, &n);
  qua_site_close(c);
  return n;
}

/* The queue is empty and tracked; notempty and notfull watchers count
 * into *ne and *nf. Each transition fires its callback exactly once. */
static void check_exact_edges(qua_quaject_t *q, _Atomic int *ne, _Atomic int *nf) {
  qua_site_t *put, *get;
  uint64_t x;
  CU_ASSERT_EQUAL_FATAL(qua_site_open(q, "put", NULL, 0, &put, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_site_open(q, "get", NULL, 0, &get, NULL), QUA_OK);
  CU_ASSERT_EQUAL(queue_count(q), 0);
  for (int round = 0; round < 3; round++) {
    int e0 = atomic_load(ne), f0 = atomic_load(nf);
    CU_ASSERT_EQUAL(qua_call(put, 7, 0, NULL), QUA_OK); /* empty -> not empty */
    CU_ASSERT_EQUAL(qua_call(put, 8, 0, NULL), QUA_OK);
    CU_ASSERT_EQUAL(atomic_load(ne), e0 + 1);
    for (int i = 2; i < CAP; i++)
      CU_ASSERT_EQUAL(qua_call(put, 9, 0, NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_call(put, 9, 0, NULL), QUA_DIVERTED); /* full */
    CU_ASSERT_EQUAL(qua_call(get, 0, 0, &x), QUA_OK);          /* full -> not full */
    CU_ASSERT_EQUAL(x, 7);
    CU_ASSERT_EQUAL(atomic_load(nf), f0 + 1);
    for (int i = 1; i < CAP; i++)
      CU_ASSERT_EQUAL(qua_call(get, 0, 0, &x), QUA_OK);
    CU_ASSERT_EQUAL(qua_call(get, 0, 0, &x), QUA_DIVERTED); /* empty */
    CU_ASSERT_EQUAL(atomic_load(ne), e0 + 1);
    CU_ASSERT_EQUAL(atomic_load(nf), f0 + 1);
  }
  qua_site_close(put);
  qua_site_close(get);
}

/* Watchers come while items flow: the queue goes tracked under load. */
static void queue_goes_tracked_while_items_flow(void) {
  const long items = qtest_scale(200000, 20000);
  int mid_flow = 0, holding = 0;
  for (int round = 0; round < 8; round++) {
    qua_quaject_t *q = qtest_make("queue", "capacity=64");
    flow_t f = {.q = q, .items = items, .deadline = qtest_now() + 60, .slow_consumer = round % 2};
    pthread_t tp, tc;
    pthread_create(&tp, NULL, produce, &f);
    pthread_create(&tc, NULL, consume, &f);
    /* Some rounds while the queue runs full, some while it runs empty. */
    while (atomic_load(&f.consumed) < items / 8 * (1 + round / 2) && qtest_now() < f.deadline)
      sched_yield();
    holding += atomic_load(&f.produced) - atomic_load(&f.consumed) > 1;
    _Atomic int ne = 0, nf = 0;
    qua_watch_t *we, *wf;
    CU_ASSERT_EQUAL_FATAL(qua_watch(q, "notempty", count_cb, &ne, &we, NULL), QUA_OK);
    CU_ASSERT_EQUAL_FATAL(qua_watch(q, "notfull", count_cb, &nf, &wf, NULL), QUA_OK);
    mid_flow += atomic_load(&f.consumed) < items;
    pthread_join(tp, NULL);
    pthread_join(tc, NULL);
    CU_ASSERT_FALSE(atomic_load(&f.bad));
    CU_ASSERT_EQUAL(atomic_load(&f.consumed), items);
    check_exact_edges(q, &ne, &nf);
    qua_unwatch(we);
    qua_unwatch(wf);
    CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
  }
  CU_ASSERT(mid_flow > 0); /* the switch did happen with items in flight */
  CU_ASSERT(holding > 0);  /* and with items in the queue */
}

/* A pump wired as the consumer of a queue a producer keeps filling: its
 * wire listens to notempty, so the queue goes tracked under the producer;
 * the pump must never sleep through an item. */
static void pump_wired_to_a_live_queue_misses_nothing(void) {
  const long items = qtest_scale(200000, 20000);
  qua_quaject_t *qa = qtest_make("queue", "capacity=64"), *qb = qtest_make("queue", "capacity=1024");
  flow_t f = {.q = qa, .items = items, .deadline = qtest_now() + 60};
  qua_quaject_t *p = qtest_make("pump", NULL);
  CU_ASSERT_EQUAL(qua_wire(p, "sink", qb, "put", NULL), QUA_OK);
  pthread_t tp;
  pthread_create(&tp, NULL, produce, &f);
  while (atomic_load(&f.produced) < 32 && qtest_now() < f.deadline)
    sched_yield();
  CU_ASSERT_EQUAL(qua_wire(p, "source", qa, "get", NULL), QUA_OK);
  qua_site_t *get;
  CU_ASSERT_EQUAL_FATAL(qua_site_open(qb, "get", NULL, 0, &get, NULL), QUA_OK);
  long got = 0;
  bool order_ok = true;
  while (got < items && qtest_now() < f.deadline) {
    uint64_t x;
    if (qua_call(get, 0, 0, &x) == QUA_OK)
      order_ok &= x == (uint64_t)got++;
    else
      sched_yield();
  }
  pthread_join(tp, NULL);
  CU_ASSERT_FALSE(atomic_load(&f.bad));
  CU_ASSERT_EQUAL(got, items);
  CU_ASSERT_TRUE(order_ok);
  qua_site_close(get);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(queue_count(qa), 0);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"queue_goes_tracked_while_items_flow", queue_goes_tracked_while_items_flow},
      {"pump_wired_to_a_live_queue_misses_nothing", pump_wired_to_a_live_queue_misses_nothing},
      {NULL, NULL}};
  return qtest_run("queue-live", cases);
}
