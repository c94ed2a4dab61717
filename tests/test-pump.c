/* test-pump.c -- pumps: moving items through tiny queues without losing a wake-up. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qtest-qua.h"

typedef struct flow {
  qua_quaject_t *in, *out;
  long items;
  double deadline;
  long done;       /* items the thread completed */
  bool timed_out;
  bool order_ok;
} flow_t;

static void *producer(void *arg) {
  flow_t *f = arg;
  qtest_waiter_t w;
  qtest_waiter_init(&w);
  qua_bind_t h[] = {{"notfull", qtest_waiter_wake, &w}, {NULL, NULL, NULL}};
  qua_site_t *put;
  if (qua_site_open(f->in, "put", h, 0, &put, NULL) != QUA_OK)
    return NULL;
  for (long i = 0; i < f->items;) {
    unsigned seen = qtest_waiter_sample(&w);
    int r = qua_call(put, (uint64_t)i, 0, NULL);
    if (r == QUA_OK) {
      i++;
      f->done = i;
    } else if (!qtest_waiter_wait(&w, seen, f->deadline)) {
      f->timed_out = true;
      break;
    }
  }
  qua_site_close(put);
  return NULL;
}

static void *consumer(void *arg) {
  flow_t *f = arg;
  qtest_waiter_t w;
  qtest_waiter_init(&w);
  qua_bind_t h[] = {{"notempty", qtest_waiter_wake, &w}, {NULL, NULL, NULL}};
  qua_site_t *get;
  if (qua_site_open(f->out, "get", h, 0, &get, NULL) != QUA_OK)
    return NULL;
  f->order_ok = true;
  for (long i = 0; i < f->items;) {
    unsigned seen = qtest_waiter_sample(&w);
    uint64_t v;
    int r = qua_call(get, 0, 0, &v);
    if (r == QUA_OK) {
      if (v != (uint64_t)i)
        f->order_ok = false;
      i++;
      f->done = i;
    } else if (!qtest_waiter_wait(&w, seen, f->deadline)) {
      f->timed_out = true;
      break;
    }
  }
  qua_site_close(get);
  return NULL;
}

/* thread -> qa (2) -> pump -> qb (2) -> pump -> qc (2) -> thread */
static void pumps_through_capacity_two_lose_nothing(void) {
  long items = qtest_scale(1000000, 100000);
  qua_quaject_t *qa = qtest_make("queue", "capacity=2"), *qb = qtest_make("queue", "capacity=2"),
                *qc = qtest_make("queue", "capacity=2");
  qua_quaject_t *p1 = qtest_make("pump", NULL), *p2 = qtest_make("pump", NULL);
  CU_ASSERT_EQUAL(qua_wire(p1, "source", qa, "get", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p1, "sink", qb, "put", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p2, "source", qb, "get", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p2, "sink", qc, "put", NULL), QUA_OK);
  double t0 = qtest_now();
  flow_t prod = {.in = qa, .items = items, .deadline = t0 + 200};
  flow_t cons = {.out = qc, .items = items, .deadline = t0 + 200};
  pthread_t tp, tc;
  pthread_create(&tc, NULL, consumer, &cons);
  pthread_create(&tp, NULL, producer, &prod);
  pthread_join(tp, NULL);
  pthread_join(tc, NULL);
  double dt = qtest_now() - t0;
  if (prod.timed_out || cons.timed_out) {
    char d1[96], d2[96];
    qua_quaject_describe(p1, d1, sizeof d1);
    qua_quaject_describe(p2, d2, sizeof d2);
    fprintf(stderr, "\n  stalled (lost wake-up?): produced %ld consumed %ld of %ld; pump1 %s; pump2 %s\n",
            prod.done, cons.done, items, d1, d2);
  }
  CU_ASSERT_FALSE(prod.timed_out);
  CU_ASSERT_FALSE(cons.timed_out);
  CU_ASSERT_EQUAL(cons.done, items);
  CU_ASSERT_TRUE(cons.order_ok);
  fprintf(stderr, "\n  %ld items through two pumps in %.2f s\n", items, dt);
  CU_ASSERT_EQUAL(qua_destroy(p1, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(p2, false, NULL), QUA_OK);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
  qua_destroy(qc, false, NULL);
}

static void pump_stops_when_source_closes(void) {
  qua_quaject_t *qa = qtest_make("queue", "capacity=4"), *qb = qtest_make("queue", "capacity=64");
  qua_quaject_t *p = qtest_make("pump", NULL);
  qua_wire(p, "source", qa, "get", NULL);
  qua_wire(p, "sink", qb, "put", NULL);
  qua_site_t *put;
  qua_site_open(qa, "put", NULL, 0, &put, NULL);
  for (uint64_t i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(qua_call(put, i, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_pump_join(p, 50), QUA_ESTATE); /* still running, waiting */
  CU_ASSERT_EQUAL(qua_queue_close(qa), QUA_OK);
  CU_ASSERT_EQUAL(qua_pump_join(p, 10000), QUA_OK); /* woke, drained, stopped */
  CU_ASSERT_EQUAL(qua_call(put, 9, 0, NULL), QUA_ECLOSED);
  qua_site_t *cnt;
  qua_site_open(qb, "count", NULL, 0, &cnt, NULL);
  uint64_t n;
  qua_call(cnt, 0, 0, &n);
  CU_ASSERT_EQUAL(n, 3); /* nothing left behind */
  qua_site_close(cnt);
  qua_site_close(put);
  qua_destroy(p, false, NULL);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
}

static void pump_blocked_on_full_sink_wakes_on_close(void) {
  qua_quaject_t *qa = qtest_make("queue", "capacity=4"), *qb = qtest_make("queue", "capacity=1");
  qua_quaject_t *p = qtest_make("pump", NULL);
  qua_wire(p, "source", qa, "get", NULL);
  qua_wire(p, "sink", qb, "put", NULL);
  qua_site_t *put;
  qua_site_open(qa, "put", NULL, 0, &put, NULL);
  for (uint64_t i = 0; i < 3; i++)
    qua_call(put, i, 0, NULL);
  /* The pump moves one (the sink holds no more) and takes the next, which
   * it holds for the full sink or, closed, loses. */
  double end = qtest_now() + 10;
  while (qtest_stat(p, "moved=") < 1 && qtest_now() < end)
    usleep(1000);
  CU_ASSERT_EQUAL(qua_queue_close(qb), QUA_OK);
  CU_ASSERT_EQUAL(qua_pump_join(p, 10000), QUA_OK);
  char d[96];
  qua_quaject_describe(p, d, sizeof d);
  CU_ASSERT_PTR_NOT_NULL(strstr(d, "moved=1 "));
  CU_ASSERT_PTR_NOT_NULL(strstr(d, " lost=1 ")); /* the item it held for the closed sink */
  qua_site_close(put);
  qua_destroy(p, false, NULL);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
}

static void pump_count_limits_items(void) {
  qua_quaject_t *qa = qtest_make("queue", "capacity=64"), *qb = qtest_make("queue", "capacity=64");
  qua_quaject_t *p = qtest_make("pump", "count=10");
  qua_site_t *put;
  qua_site_open(qa, "put", NULL, 0, &put, NULL);
  for (uint64_t i = 0; i < 20; i++)
    qua_call(put, i, 0, NULL);
  /* wired after the items are there: the wire wakes it */
  qua_wire(p, "source", qa, "get", NULL);
  qua_wire(p, "sink", qb, "put", NULL);
  CU_ASSERT_EQUAL(qua_pump_join(p, 10000), QUA_OK);
  qua_site_t *c1, *c2;
  uint64_t n1, n2;
  qua_site_open(qa, "count", NULL, 0, &c1, NULL);
  qua_site_open(qb, "count", NULL, 0, &c2, NULL);
  qua_call(c1, 0, 0, &n1);
  qua_call(c2, 0, 0, &n2);
  CU_ASSERT_EQUAL(n1, 10);
  CU_ASSERT_EQUAL(n2, 10);
  qua_site_close(c1);
  qua_site_close(c2);
  qua_site_close(put);
  qua_destroy(p, false, NULL);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
}

static void pump_refuses_untracked_queue(void) {
  qua_quaject_t *q = qtest_make("queue", "notify=0"), *p = qtest_make("pump", NULL);
  qua_error_t err;
  CU_ASSERT_EQUAL(qua_wire(p, "source", q, "get", &err), QUA_ENOCALLBACK);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "notify=0")); /* says why, not "no such callback" */
  CU_ASSERT_PTR_NULL(qua_wired_to(p, 0, NULL));
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK); /* nothing was left on it */
  qua_destroy(p, false, NULL);
}

/* The pump's step runs the code its mode calls for and is rebuilt as its
 * wires and their queues change under it: the sink is moved to another
 * queue and the source switches variant while items flow; every item
 * arrives exactly once, in order within each sink. */
static void pump_step_follows_rewiring_and_variants(void) {
  const long n = qtest_scale(200000, 20000);
  qua_quaject_t *qa = qtest_make("queue", "capacity=64"), *qb = qtest_make("queue", "capacity=1024"),
                *qc = qtest_make("queue", "capacity=1024"), *p = qtest_make("pump", NULL);
  CU_ASSERT_EQUAL(qua_wire(p, "source", qa, "get", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "sink", qb, "put", NULL), QUA_OK);
  char impl[96];
  CU_ASSERT_EQUAL(qua_quaject_entry_info(p, QUA_ENTRY_BODY, impl, sizeof impl, NULL), QUA_OK);
  /* Between two queues the synthesised step is the batch move (pump-templates.c). */
  const char *want = qua_synth_default() == QUA_SYNTH_STENCIL ? "stencil move" : "generic";
  CU_ASSERT_PTR_NOT_NULL(strstr(impl, want));
  qtest_runs_requested_code_at(p, QUA_ENTRY_BODY, "pump body");
  qua_site_t *put, *bget, *cget, *extra = NULL;
  CU_ASSERT_EQUAL_FATAL(qua_site_open(qa, "put", NULL, 0, &put, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_site_open(qb, "get", NULL, 0, &bget, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_site_open(qc, "get", NULL, 0, &cget, NULL), QUA_OK);
  long got = 0, last_b = -1, last_c = -1;
  int stage = 0;
  bool order_ok = true;
  unsigned char *seen = calloc((size_t)n, 1);
  double deadline = qtest_now() + 120;
  uint64_t x;
  for (long i = 0; i < n || got < n;) {
    if (stage == 0 && i == n / 4) {
      CU_ASSERT_EQUAL(qua_unwire(p, "sink", NULL), QUA_OK);
      CU_ASSERT_EQUAL(qua_wire(p, "sink", qc, "put", NULL), QUA_OK);
      stage++;
    } else if (stage == 1 && i == n / 2) {
      CU_ASSERT_EQUAL(qua_site_open(qa, "get", NULL, 0, &extra, NULL), QUA_OK); /* qa: MC */
      stage++;
    } else if (stage == 2 && i == 3 * n / 4) {
      qua_site_close(extra); /* back to SC */
      stage++;
    }
    if (i < n && qua_call(put, (uint64_t)i, 0, NULL) == QUA_OK)
      i++;
    /* Drain both sinks so that neither fills up. */
    while (qua_call(bget, 0, 0, &x) == QUA_OK) {
      order_ok &= (long)x > last_b && x < (uint64_t)n && !seen[x];
      last_b = (long)x;
      seen[x < (uint64_t)n ? x : 0] = 1;
      got++;
    }
    while (qua_call(cget, 0, 0, &x) == QUA_OK) {
      order_ok &= (long)x > last_c && x < (uint64_t)n && !seen[x];
      last_c = (long)x;
      seen[x < (uint64_t)n ? x : 0] = 1;
      got++;
    }
    if (qtest_now() > deadline) {
      fprintf(stderr, "\n  stalled: %ld of %ld arrived\n", got, n);
      break;
    }
  }
  CU_ASSERT_EQUAL(got, n);
  CU_ASSERT_TRUE(order_ok);
  CU_ASSERT(last_b >= 0 && last_c > last_b); /* both sinks were used, in that order */
  free(seen);
  qua_site_close(put);
  qua_site_close(bget);
  qua_site_close(cget);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
  qua_destroy(qc, false, NULL);
}

/* Between two synthesised queues the step moves batches, but only while the
 * pump is the sink's one producer: a second producer brings the drain back
 * (a batch from the source, the sink's put item by item, the refused rest
 * held: the sink of 8 refuses most of every batch), and its leaving the
 * batch move; items keep flowing in order. */
static void pump_move_only_into_a_one_producer_sink(void) {
  if (qua_synth_default() != QUA_SYNTH_STENCIL)
    return;
  qua_quaject_t *qa = qtest_make("queue", "capacity=256"), *qb = qtest_make("queue", "capacity=8");
  qua_quaject_t *p = qtest_make("pump", NULL);
  CU_ASSERT_EQUAL(qua_wire(p, "sink", qb, "put", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "source", qa, "get", NULL), QUA_OK);
  char impl[96];
  qua_quaject_entry_info(p, QUA_ENTRY_BODY, impl, sizeof impl, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(impl, "stencil move"));
  qua_site_t *put, *get, *other;
  CU_ASSERT_EQUAL_FATAL(qua_site_open(qa, "put", NULL, 0, &put, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_site_open(qb, "get", NULL, 0, &get, NULL), QUA_OK);
  uint64_t next = 0, x;
  bool order_ok = true;
  for (int round = 0; round < 3; round++) {
    if (round == 1) {
      CU_ASSERT_EQUAL_FATAL(qua_site_open(qb, "put", NULL, 0, &other, NULL), QUA_OK);
      qua_quaject_entry_info(p, QUA_ENTRY_BODY, impl, sizeof impl, NULL);
      CU_ASSERT_PTR_NOT_NULL(strstr(impl, "stencil drain"));
    } else if (round == 2) {
      qua_site_close(other);
      qua_quaject_entry_info(p, QUA_ENTRY_BODY, impl, sizeof impl, NULL);
      CU_ASSERT_PTR_NOT_NULL(strstr(impl, "stencil move"));
    }
    /* 200 items through a sink of 8: batches limited by its room. */
    uint64_t end = next + 200, put_i = next;
    double deadline = qtest_now() + 30;
    while (next < end && qtest_now() < deadline) {
      if (put_i < end && qua_call(put, put_i, 0, NULL) == QUA_OK)
        put_i++;
      while (qua_call(get, 0, 0, &x) == QUA_OK)
        order_ok &= x == next++;
    }
  }
  CU_ASSERT_EQUAL(next, 600);
  CU_ASSERT_TRUE(order_ok);
  /* The pump counts a step's items after they reach the sink, so the last
   * batch may be taken here before it is counted. */
  double deadline = qtest_now() + 10;
  while (qtest_stat(p, "moved=") < 600 && qtest_now() < deadline)
    usleep(1000);
  char d[96];
  qua_quaject_describe(p, d, sizeof d);
  CU_ASSERT_PTR_NOT_NULL(strstr(d, "moved=600 "));
  qua_site_close(put);
  qua_site_close(get);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
}

/* The count of a queue through a fresh site. */
static uint64_t queue_count(qua_quaject_t *q) {
  qua_site_t *c = qtest_site(q, "count", NULL, 0);
  uint64_t n = UINT64_MAX;
  CU_ASSERT_EQUAL(qua_call(c, 0, 0, &n), QUA_OK);
  qua_site_close(c);
  return n;
}

/* From a synthesised queue into a sink that is not a one-producer queue the
 * step drains batches: a sink that refuses part of a batch leaves the rest
 * held in the pump, in order, not back in the source; a close of the sink
 * loses exactly what is held, counted. moved + lost + what the source
 * still has is every item put. */
static void pump_drain_holds_the_rest_of_a_refused_batch(void) {
  if (qua_synth_default() != QUA_SYNTH_STENCIL)
    return;
  qua_quaject_t *qa = qtest_make("queue", "capacity=64"), *qb = qtest_make("queue", "capacity=4");
  qua_quaject_t *p = qtest_make("pump", NULL);
  qua_site_t *other = qtest_site(qb, "put", NULL, 0); /* qb: MP, so no batch move */
  CU_ASSERT_EQUAL(qua_wire(p, "sink", qb, "put", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "source", qa, "get", NULL), QUA_OK);
  char impl[96];
  qua_quaject_entry_info(p, QUA_ENTRY_BODY, impl, sizeof impl, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(impl, "stencil drain"));
  qua_site_t *put = qtest_site(qa, "put", NULL, 0);
  /* Put while the pump is asleep on the empty source: it wakes to a batch
   * of up to 20, of which the sink takes 4. */
  for (uint64_t i = 0; i < 20; i++)
    CU_ASSERT_EQUAL(qua_call(put, i, 0, NULL), QUA_OK);
  double end = qtest_now() + 10;
  while (qtest_stat(p, "moved=") < 4 && qtest_now() < end)
    usleep(1000);
  usleep(20000); /* the rest of its batch held, the pump asleep on the full sink */
  uint64_t left = queue_count(qa), moved = qtest_stat(p, "moved=");
  CU_ASSERT_EQUAL(moved, 4);
  CU_ASSERT(left < 16); /* some of the 16 not moved are held, not in the source */
  CU_ASSERT_EQUAL(qua_queue_close(qb), QUA_OK);
  CU_ASSERT_EQUAL(qua_pump_join(p, 10000), QUA_OK); /* woke, refused, stopped */
  uint64_t lost = qtest_stat(p, "lost=");
  CU_ASSERT_EQUAL(qtest_stat(p, "moved="), 4);
  CU_ASSERT_EQUAL(moved + lost + queue_count(qa), 20);
  CU_ASSERT(lost > 0);
  qua_site_t *get = qtest_site(qb, "get", NULL, 0);
  uint64_t v;
  for (uint64_t i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(qua_call(get, 0, 0, &v), QUA_OK);
    CU_ASSERT_EQUAL(v, i);
  }
  qua_site_close(get);
  qua_site_close(other);
  qua_site_close(put);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
}

/* A pump into a tee whose one output is a counter's pass into a queue: the
 * synthesised step drains the source in batches and calls the tee's code,
 * the counter's and the queue's laid out behind it, directly. Every item
 * arrives once and in order, and the counter counts each. */
static void pump_drains_through_tee_and_counter(void) {
  const uint64_t n = (uint64_t)qtest_scale(100000, 10000);
  qua_quaject_t *qa = qtest_make("queue", "capacity=256"), *qb = qtest_make("queue", "capacity=1024");
  qua_quaject_t *tee = qtest_make("tee", "n=1"), *c = qtest_make("counter", NULL);
  qua_quaject_t *p = qtest_make("pump", NULL);
  CU_ASSERT_EQUAL(qua_wire(tee, "out0", c, "pass", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(c, "out", qb, "put", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "sink", tee, "put", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "source", qa, "get", NULL), QUA_OK);
  char impl[96];
  qua_quaject_entry_info(p, QUA_ENTRY_BODY, impl, sizeof impl, NULL);
  const char *want = qua_synth_default() == QUA_SYNTH_STENCIL ? "stencil drain" : "generic";
  CU_ASSERT_PTR_NOT_NULL(strstr(impl, want));
  qua_site_t *put = qtest_site(qa, "put", NULL, 0), *get = qtest_site(qb, "get", NULL, 0);
  uint64_t next = 0, put_i = 0, x;
  bool order_ok = true;
  double deadline = qtest_now() + 60;
  while (next < n && qtest_now() < deadline) {
    if (put_i < n && qua_call(put, put_i, 0, NULL) == QUA_OK)
      put_i++;
    while (qua_call(get, 0, 0, &x) == QUA_OK)
      order_ok &= x == next++;
  }
  CU_ASSERT_EQUAL(next, n);
  CU_ASSERT_TRUE(order_ok);
  qua_site_t *read = qtest_site(c, "read", NULL, 0);
  CU_ASSERT_EQUAL(qua_call(read, 0, 0, &x), QUA_OK);
  CU_ASSERT_EQUAL(x, n);
  qua_site_close(read);
  qua_site_close(put);
  qua_site_close(get);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  qua_destroy(tee, false, NULL);
  qua_destroy(c, false, NULL);
  qua_destroy(qa, false, NULL);
  qua_destroy(qb, false, NULL);
}

static void pump_destroy_while_sleeping(void) {
  qua_quaject_t *q = qtest_make("queue", NULL), *q2 = qtest_make("queue", NULL), *p = qtest_make("pump", NULL);
  qua_wire(p, "source", q, "get", NULL);
  qua_wire(p, "sink", q2, "put", NULL);
  usleep(10000);
  double t0 = qtest_now();
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_EBUSY);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  CU_ASSERT(qtest_now() - t0 < 5);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q2, false, NULL), QUA_OK);
}

/* The CPU time the process used while the test thread slept `ms`: with
 * only idle pumps besides, what the pumps burnt. */
static double cpu_while_sleeping(int ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  usleep((useconds_t)ms * 1000);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

/* A pump with nothing to move sleeps, and so does one whose sink is full:
 * over 300 ms the process uses a small fraction of one CPU (a spinning or
 * yielding pump uses all of it) and neither pump goes back to sleep more
 * than a few times. */
static void pump_sleeps_while_idle(void) {
  qua_quaject_t *empty = qtest_make("queue", "capacity=4"), *out = qtest_make("queue", "capacity=4");
  qua_quaject_t *src = qtest_make("queue", "capacity=4"), *full = qtest_make("queue", "capacity=1");
  qua_quaject_t *idle = qtest_make("pump", NULL), *blocked = qtest_make("pump", NULL);
  qua_wire(idle, "source", empty, "get", NULL);
  qua_wire(idle, "sink", out, "put", NULL);
  qua_wire(blocked, "source", src, "get", NULL);
  qua_wire(blocked, "sink", full, "put", NULL);
  qua_site_t *put = qtest_site(src, "put", NULL, 0);
  for (uint64_t i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(qua_call(put, i, 0, NULL), QUA_OK);
  double end = qtest_now() + 10;
  while (qtest_stat(blocked, "moved=") < 1 && qtest_now() < end)
    usleep(1000);
  usleep(20000); /* both settle into their sleep */
  uint64_t s_idle = qtest_stat(idle, "sleeps="), s_blocked = qtest_stat(blocked, "sleeps=");
  double cpu = cpu_while_sleeping(300);
  uint64_t ds_idle = qtest_stat(idle, "sleeps=") - s_idle,
           ds_blocked = qtest_stat(blocked, "sleeps=") - s_blocked;
  fprintf(stderr, "\n  %.1f ms of CPU in 300 ms; sleeps: idle %" PRIu64 ", blocked %" PRIu64 "\n",
          cpu * 1e3, ds_idle, ds_blocked);
  CU_ASSERT(cpu < (QTEST_SANITIZED ? 0.06 : 0.03));
  CU_ASSERT(ds_idle <= 2 && ds_blocked <= 2);
  CU_ASSERT_EQUAL(qtest_stat(blocked, "moved="), 1);
  qua_site_close(put);
  CU_ASSERT_EQUAL(qua_destroy(idle, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(blocked, false, NULL), QUA_OK);
  qua_quaject_t *qs[] = {empty, out, src, full};
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(qua_destroy(qs[i], false, NULL), QUA_OK);
}

/* A pump whose full sink is destroyed under it keeps the item it was
 * holding (lost stays 0) and delivers it, in order, to the next sink. */
static void pump_keeps_held_item_when_sink_destroyed(void) {
  qua_quaject_t *src = qtest_make("queue", "capacity=4"), *s1 = qtest_make("queue", "capacity=1");
  qua_quaject_t *p = qtest_make("pump", NULL);
  qua_wire(p, "source", src, "get", NULL);
  qua_wire(p, "sink", s1, "put", NULL);
  qua_site_t *put = qtest_site(src, "put", NULL, 0);
  for (uint64_t i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(qua_call(put, i, 0, NULL), QUA_OK);
  double end = qtest_now() + 10;
  while (qtest_stat(p, "moved=") < 1 && qtest_now() < end)
    usleep(1000);
  usleep(20000); /* item 1 is held: s1 is full with item 0 */
  CU_ASSERT_EQUAL(qua_destroy(s1, true, NULL), QUA_OK);
  usleep(20000);
  CU_ASSERT_EQUAL(qtest_stat(p, "lost="), 0);
  CU_ASSERT_EQUAL(qtest_stat(p, "moved="), 1);
  qua_quaject_t *s2 = qtest_make("queue", "capacity=4");
  CU_ASSERT_EQUAL(qua_wire(p, "sink", s2, "put", NULL), QUA_OK);
  while (qtest_stat(p, "moved=") < 3 && qtest_now() < end)
    usleep(1000);
  qua_site_t *get = qtest_site(s2, "get", NULL, 0);
  uint64_t v;
  for (uint64_t i = 1; i < 3; i++) {
    CU_ASSERT_EQUAL(qua_call(get, 0, 0, &v), QUA_OK);
    CU_ASSERT_EQUAL(v, i);
  }
  CU_ASSERT_EQUAL(qtest_stat(p, "lost="), 0);
  qua_site_close(get);
  qua_site_close(put);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(s2, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(src, false, NULL), QUA_OK);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"pumps_through_capacity_two_lose_nothing", pumps_through_capacity_two_lose_nothing},
      {"pump_stops_when_source_closes", pump_stops_when_source_closes},
      {"pump_blocked_on_full_sink_wakes_on_close", pump_blocked_on_full_sink_wakes_on_close},
      {"pump_count_limits_items", pump_count_limits_items},
      {"pump_refuses_untracked_queue", pump_refuses_untracked_queue},
      {"pump_destroy_while_sleeping", pump_destroy_while_sleeping},
      {"pump_step_follows_rewiring_and_variants", pump_step_follows_rewiring_and_variants},
      {"pump_move_only_into_a_one_producer_sink", pump_move_only_into_a_one_producer_sink},
      {"pump_drain_holds_the_rest_of_a_refused_batch", pump_drain_holds_the_rest_of_a_refused_batch},
      {"pump_drains_through_tee_and_counter", pump_drains_through_tee_and_counter},
      {"pump_sleeps_while_idle", pump_sleeps_while_idle},
      {"pump_keeps_held_item_when_sink_destroyed", pump_keeps_held_item_when_sink_destroyed},
      {NULL, NULL}};
  return qtest_run("pump", cases);
}
