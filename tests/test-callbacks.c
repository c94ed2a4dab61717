/* test-callbacks.c -- callbacks under concurrency: once per transition, to the right site, across close.
 *
 * A capacity-1 queue makes transitions countable: every put that stores
 * takes it from empty to not empty, every get that takes an item from
 * full to not full. So with several producers and consumers, "notempty"
 * must fire exactly once per stored item and "notfull" once per taken
 * one; "full" must reach the producer whose put found no room, once per
 * refused put, and "empty" the consumer whose get found nothing.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qtest-qua.h"

#define NSIDE 3 /* producers, and consumers */

typedef struct party {
  struct race *race;
  int id;
  _Atomic long fired;   /* this site's full (producers) or empty (consumers) */
  long refused;         /* calls that returned QUA_DIVERTED */
  long done;            /* puts stored, or gets that took an item */
  bool foreign;         /* got a callback meant for another site */
} party_t;

typedef struct race {
  qua_quaject_t *q;
  long items; /* per producer */
  _Atomic long taken;
  _Atomic long notempty, notfull;
  party_t prod[NSIDE], cons[NSIDE];
  double deadline;
} race_t;

static void count_edge(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  atomic_fetch_add_explicit((_Atomic long *)ctx, 1, memory_order_relaxed);
}

static void count_invoker(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  party_t *p = ctx;
  atomic_fetch_add_explicit(&p->fired, 1, memory_order_relaxed);
}

static void *race_put(void *arg) {
  party_t *p = arg;
  race_t *r = p->race;
  qua_bind_t h[] = {{"full", count_invoker, p}, {NULL, NULL, NULL}};
  qua_site_t *s;
  if (qua_site_open(r->q, "put", h, 0, &s, NULL) != QUA_OK)
    return NULL;
  long i = 0;
  while (i < r->items && qtest_now() < r->deadline) {
    long before = atomic_load_explicit(&p->fired, memory_order_relaxed);
    int st = qua_call(s, (uint64_t)p->id << 32 | (uint64_t)i, 0, NULL);
    long after = atomic_load_explicit(&p->fired, memory_order_relaxed);
    if (st == QUA_OK) {
      p->foreign |= after != before;
      i++;
    } else {
      p->foreign |= after != before + 1; /* exactly its own full, once */
      p->refused++;
      sched_yield();
    }
  }
  p->done = i;
  qua_site_close(s);
  return NULL;
}

static void *race_get(void *arg) {
  party_t *p = arg;
  race_t *r = p->race;
  qua_bind_t h[] = {{"empty", count_invoker, p}, {NULL, NULL, NULL}};
  qua_site_t *s;
  if (qua_site_open(r->q, "get", h, 0, &s, NULL) != QUA_OK)
    return NULL;
  while (atomic_load(&r->taken) < NSIDE * r->items && qtest_now() < r->deadline) {
    uint64_t v;
    long before = atomic_load_explicit(&p->fired, memory_order_relaxed);
    int st = qua_call(s, 0, 0, &v);
    long after = atomic_load_explicit(&p->fired, memory_order_relaxed);
    if (st == QUA_OK) {
      p->foreign |= after != before;
      p->done++;
      atomic_fetch_add(&r->taken, 1);
    } else {
      p->foreign |= after != before + 1;
      p->refused++;
      sched_yield();
    }
  }
  qua_site_close(s);
  return NULL;
}

/* Three producers and three consumers race through a capacity-1 queue;
 * watchers count the edges. */
static void queue_edges_once_per_transition_capacity_one(void) {
  race_t r = {.q = qtest_make("queue", "capacity=1"), .items = qtest_scale(30000, 5000)};
  r.deadline = qtest_now() + 120;
  qua_watch_t *w1, *w2;
  CU_ASSERT_EQUAL_FATAL(qua_watch(r.q, "notempty", count_edge, &r.notempty, &w1, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_watch(r.q, "notfull", count_edge, &r.notfull, &w2, NULL), QUA_OK);
  pthread_t t[2 * NSIDE];
  for (int i = 0; i < NSIDE; i++) {
    r.prod[i] = (party_t){.race = &r, .id = i};
    r.cons[i] = (party_t){.race = &r, .id = i};
    pthread_create(&t[i], NULL, race_put, &r.prod[i]);
    pthread_create(&t[NSIDE + i], NULL, race_get, &r.cons[i]);
  }
  for (int i = 0; i < 2 * NSIDE; i++)
    pthread_join(t[i], NULL);
  qua_unwatch(w1);
  qua_unwatch(w2);
  long stored = 0, taken = 0;
  for (int i = 0; i < NSIDE; i++) {
    stored += r.prod[i].done;
    taken += r.cons[i].done;
    CU_ASSERT_FALSE(r.prod[i].foreign);
    CU_ASSERT_FALSE(r.cons[i].foreign);
    CU_ASSERT_EQUAL(atomic_load(&r.prod[i].fired), r.prod[i].refused);
    CU_ASSERT_EQUAL(atomic_load(&r.cons[i].fired), r.cons[i].refused);
  }
  fprintf(stderr, "\n  %ld stored, %ld taken; notempty %ld, notfull %ld\n", stored, taken,
          atomic_load(&r.notempty), atomic_load(&r.notfull));
  CU_ASSERT_EQUAL(taken, NSIDE * r.items);
  CU_ASSERT_EQUAL(atomic_load(&r.notempty), stored);
  CU_ASSERT_EQUAL(atomic_load(&r.notfull), taken);
  CU_ASSERT_EQUAL(qua_destroy(r.q, false, NULL), QUA_OK);
}

/* The sites of a stencil run must run stencil code while they race: one
 * producer and one consumer check theirs before the others arrive. */
static void queue_edges_run_requested_code(void) {
  qua_quaject_t *q = qtest_make("queue", "capacity=1");
  qua_site_t *p = qtest_site(q, "put", NULL, 0), *g = qtest_site(q, "get", NULL, 0);
  qtest_runs_requested_code(q, "queue", "put");
  qtest_runs_requested_code(q, "queue", "get");
  qua_site_close(p);
  qua_site_close(g);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
}

typedef struct crossing {
  qua_quaject_t *c;
  long pairs;
  _Atomic long up, down, wrong;
} crossing_t;

static void count_crossing(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  crossing_t *x = ctx;
  if (arg == 1)
    atomic_fetch_add(&x->up, 1);
  else if (arg == 0)
    atomic_fetch_add(&x->down, 1);
  else
    atomic_fetch_add(&x->wrong, 1); /* only 0 -> 1 and 1 -> 0 cross 1 */
}

static void *add_pairs(void *arg) {
  crossing_t *x = arg;
  qua_site_t *s;
  if (qua_site_open(x->c, "add", NULL, 0, &s, NULL) != QUA_OK)
    return NULL;
  uint64_t v;
  for (long i = 0; i < x->pairs; i++) {
    qua_call(s, 1, 0, &v);
    qua_call(s, (uint64_t)-1, 0, &v);
  }
  qua_site_close(s);
  return NULL;
}

/* Threads add +1 then -1 around threshold 1 (so values stay in 0..4):
 * in the linearisation order the value crosses upward (to 1) and downward
 * (to 0) alternately, starting and ending below, so "threshold" fires as
 * often up as down, each with the new value, and never for 1 -> 2. */
static void counter_threshold_crossings_under_concurrent_adds(void) {
  crossing_t x = {.c = qtest_make("counter", "threshold=1"), .pairs = qtest_scale(200000, 20000)};
  qua_watch_t *w;
  CU_ASSERT_EQUAL_FATAL(qua_watch(x.c, "threshold", count_crossing, &x, &w, NULL), QUA_OK);
  qua_site_t *probe = qtest_site(x.c, "add", NULL, 0);
  qtest_runs_requested_code(x.c, "counter", "add");
  qua_site_close(probe);
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, add_pairs, &x);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  qua_site_t *rd = qtest_site(x.c, "read", NULL, 0);
  uint64_t v = 1;
  qua_call(rd, 0, 0, &v);
  qua_site_close(rd);
  qua_unwatch(w);
  fprintf(stderr, "\n  %ld up, %ld down, %ld wrong\n", atomic_load(&x.up), atomic_load(&x.down),
          atomic_load(&x.wrong));
  CU_ASSERT_EQUAL(v, 0);
  CU_ASSERT(atomic_load(&x.up) > 0);
  CU_ASSERT_EQUAL(atomic_load(&x.up), atomic_load(&x.down));
  CU_ASSERT_EQUAL(atomic_load(&x.wrong), 0);
  CU_ASSERT_EQUAL(qua_destroy(x.c, false, NULL), QUA_OK);
}

/* --- close racing puts, gets and a pump --------------------------------- */

typedef struct closing {
  qua_quaject_t *q;
  _Atomic bool go;
  uint64_t *got[2]; /* items taken by the consumer, by producer */
  long ngot;
  _Atomic long accepted[2];
  _Atomic int after_closed; /* calls that did not see QUA_ECLOSED after one did */
} closing_t;

typedef struct closer_arg {
  closing_t *cl;
  int id;
} closer_arg_t;

static void *close_put(void *arg) {
  closer_arg_t *a = arg;
  closing_t *cl = a->cl;
  qua_site_t *s;
  if (qua_site_open(cl->q, "put", NULL, 0, &s, NULL) != QUA_OK)
    return NULL;
  while (!atomic_load(&cl->go))
    sched_yield();
  double end = qtest_now() + 30;
  while (qtest_now() < end) {
    int r = qua_call(s, (uint64_t)a->id << 32 | cl->accepted[a->id], 0, NULL);
    if (r == QUA_OK)
      cl->accepted[a->id]++;
    else if (r == QUA_ECLOSED)
      break;
  }
  if (qua_call(s, 0, 0, NULL) != QUA_ECLOSED)
    atomic_fetch_add(&cl->after_closed, 1);
  qua_site_close(s);
  return NULL;
}

static void *close_get(void *arg) {
  closing_t *cl = arg;
  qua_site_t *s;
  if (qua_site_open(cl->q, "get", NULL, 0, &s, NULL) != QUA_OK)
    return NULL;
  long cap = 1 << 21;
  uint64_t *got = malloc((size_t)cap * sizeof *got);
  while (!atomic_load(&cl->go))
    sched_yield();
  double end = qtest_now() + 30;
  while (qtest_now() < end) {
    uint64_t v;
    int r = qua_call(s, 0, 0, &v);
    if (r == QUA_OK && cl->ngot < cap)
      got[cl->ngot++] = v;
    else if (r == QUA_ECLOSED)
      break;
  }
  uint64_t v;
  if (qua_call(s, 0, 0, &v) != QUA_ECLOSED)
    atomic_fetch_add(&cl->after_closed, 1);
  cl->got[0] = got;
  qua_site_close(s);
  return NULL;
}

/* Two producers put numbered items, a consumer and a pump take them, and
 * the queue is closed under all of them. Every put that returned OK is
 * taken exactly once, by the consumer or the pump, in each producer's
 * order; everyone then sees QUA_ECLOSED for good; the pump stops by itself
 * with nothing lost. */
static void close_races_puts_gets_and_a_pump(void) {
  int rounds = QTEST_SANITIZED ? 5 : 20;
  for (int round = 0; round < rounds; round++) {
    closing_t cl = {.q = qtest_make("queue", "capacity=64")};
    qua_quaject_t *sink = qtest_make("queue", "capacity=2097152"), *p = qtest_make("pump", NULL);
    CU_ASSERT_EQUAL(qua_wire(p, "source", cl.q, "get", NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_wire(p, "sink", sink, "put", NULL), QUA_OK);
    closer_arg_t pa[2] = {{&cl, 0}, {&cl, 1}};
    pthread_t tp[2], tc;
    pthread_create(&tp[0], NULL, close_put, &pa[0]);
    pthread_create(&tp[1], NULL, close_put, &pa[1]);
    pthread_create(&tc, NULL, close_get, &cl);
    atomic_store(&cl.go, true);
    while (atomic_load(&cl.accepted[0]) == 0 || atomic_load(&cl.accepted[1]) == 0)
      sched_yield();
    usleep(500 * (useconds_t)round);
    CU_ASSERT_EQUAL(qua_queue_close(cl.q), QUA_OK);
    for (int i = 0; i < 2; i++)
      pthread_join(tp[i], NULL);
    pthread_join(tc, NULL);
    CU_ASSERT_EQUAL(qua_pump_join(p, 10000), QUA_OK);
    char d[160];
    qua_quaject_describe(p, d, sizeof d);
    CU_ASSERT_PTR_NOT_NULL(strstr(d, " lost=0 "));
    /* Check: the consumer's and the sink's items, merged per producer, are
     * 0..accepted-1 each, each seen once, each list in order. */
    long total = cl.accepted[0] + cl.accepted[1];
    unsigned char *seen[2] = {calloc((size_t)cl.accepted[0] + 1, 1),
                              calloc((size_t)cl.accepted[1] + 1, 1)};
    long dup = 0, bogus = 0, order = 0, last[2][2] = {{-1, -1}, {-1, -1}}, n = 0;
    qua_site_t *g = qtest_site(sink, "get", NULL, 0);
    for (int from = 0; from < 2; from++) {
      for (long k = 0;; k++) {
        uint64_t v;
        if (from == 0) {
          if (k >= cl.ngot)
            break;
          v = cl.got[0][k];
        } else if (qua_call(g, 0, 0, &v) != QUA_OK) {
          break;
        }
        int pr = (int)(v >> 32);
        long seq = (long)(v & 0xffffffffu);
        if (pr > 1 || seq >= cl.accepted[pr]) {
          bogus++;
          continue;
        }
        dup += seen[pr][seq];
        seen[pr][seq] = 1;
        order += seq <= last[from][pr];
        last[from][pr] = seq;
        n++;
      }
    }
    qua_site_close(g);
    if (n != total || dup || bogus || order)
      fprintf(stderr, "\n  round %d: accepted %ld, taken %ld (consumer %ld), %ld twice, %ld never put, %ld out of order\n",
              round, total, n, cl.ngot, dup, bogus, order);
    CU_ASSERT_EQUAL(n, total);
    CU_ASSERT_EQUAL(dup + bogus + order, 0);
    CU_ASSERT_EQUAL(atomic_load(&cl.after_closed), 0);
    CU_ASSERT(total > 0);
    free(seen[0]);
    free(seen[1]);
    free(cl.got[0]);
    CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_destroy(sink, false, NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_destroy(cl.q, false, NULL), QUA_OK);
  }
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"queue_edges_run_requested_code", queue_edges_run_requested_code},
      {"queue_edges_once_per_transition_capacity_one", queue_edges_once_per_transition_capacity_one},
      {"counter_threshold_crossings_under_concurrent_adds",
       counter_threshold_crossings_under_concurrent_adds},
      {"close_races_puts_gets_and_a_pump", close_races_puts_gets_and_a_pump},
      {NULL, NULL}};
  return qtest_run("callbacks", cases);
}
