/* test-lifecycle.c -- destroy, unwire and rewire while other threads call in. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "qtest.h"
#include "qua.h"

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
 * through the tee: every item lands in exactly one counter. */
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
  bool moved = true;
  for (int i = 0; i < rounds && moved; i++) {
    uint64_t before, now;
    qua_call(rd[i % 2], 0, 0, &before);
    CU_ASSERT_EQUAL(qua_wire(tee, "out0", i % 2 ? b : a, "pass", NULL), QUA_OK);
    /* items flow into the newly wired counter while the caller runs */
    double end = qtest_now() + 10;
    do
      qua_call(rd[i % 2], 0, 0, &now);
    while (now == before && qtest_now() < end);
    moved = now > before;
    CU_ASSERT_EQUAL(qua_unwire(tee, "out0", NULL), QUA_OK);
  }
  CU_ASSERT_TRUE(moved);
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
 * calls into freed memory; items it could not deliver are counted lost. */
static void destroy_pump_target_while_pumping(void) {
  qua_quaject_t *src, *dst, *p;
  const char *cap[] = {"capacity=1024"};
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", cap, 1, &src, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_create("pump", NULL, 0, &p, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p, "source", src, "get", NULL), QUA_OK);
  qua_site_t *put;
  qua_site_open(src, "put", NULL, 0, &put, NULL);
  int rounds = QTEST_SANITIZED ? 10 : 40;
  for (int i = 0; i < rounds; i++) {
    CU_ASSERT_EQUAL_FATAL(qua_create("queue", cap, 1, &dst, NULL), QUA_OK);
    CU_ASSERT_EQUAL(qua_wire(p, "sink", dst, "put", NULL), QUA_OK);
    for (uint64_t k = 0; k < 500; k++)
      qua_call(put, k, 0, NULL);
    usleep(200);
    CU_ASSERT_EQUAL(qua_destroy(dst, false, NULL), QUA_EBUSY);
    CU_ASSERT_EQUAL(qua_destroy(dst, true, NULL), QUA_OK);
    CU_ASSERT_PTR_NULL(qua_wired_to(p, 1, NULL));
  }
  qua_site_close(put);
  CU_ASSERT_EQUAL(qua_destroy(p, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(src, false, NULL), QUA_OK);
}

typedef struct adder {
  qua_quaject_t *c;
  long n;
  pthread_barrier_t go;
} adder_t;

/* Opens its site, waits for the other adder's, then both add at once. */
static void *adder_main(void *arg) {
  adder_t *a = arg;
  qua_site_t *s;
  int r = qua_site_open(a->c, "add", NULL, 0, &s, NULL);
  pthread_barrier_wait(&a->go);
  if (r != QUA_OK)
    return NULL;
  uint64_t v;
  for (long i = 0; i < a->n; i++)
    qua_call(s, 1, 0, &v);
  qua_site_close(s);
  return NULL;
}

/* A counter runs one-writer code (plain load and store) while it has one
 * writer site; writers that come and go while others add must switch it to
 * the atomic code in time: the total stays exact. */
static void counter_writers_come_and_go(void) {
  qua_quaject_t *c;
  CU_ASSERT_EQUAL_FATAL(qua_create("counter", NULL, 0, &c, NULL), QUA_OK);
  long n = QTEST_SANITIZED ? 20000 : 200000;
  int rounds = 8;
  adder_t a = {c, n};
  pthread_barrier_init(&a.go, NULL, 2);
  for (int r = 0; r < rounds; r++) {
    pthread_t t1, t2;
    pthread_create(&t1, NULL, adder_main, &a);
    pthread_create(&t2, NULL, adder_main, &a);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
  }
  qua_site_t *rd;
  uint64_t v = 0;
  qua_site_open(c, "read", NULL, 0, &rd, NULL);
  qua_call(rd, 0, 0, &v);
  CU_ASSERT_EQUAL(v, (uint64_t)(2 * n * rounds));
  qua_site_close(rd);
  pthread_barrier_destroy(&a.go);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"destroy_under_running_callers", destroy_under_running_callers},
      {"rewire_under_running_callers", rewire_under_running_callers},
      {"destroy_pump_target_while_pumping", destroy_pump_target_while_pumping},
      {"counter_writers_come_and_go", counter_writers_come_and_go},
      {NULL, NULL}};
  return qtest_run("lifecycle", cases);
}
