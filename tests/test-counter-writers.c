/* test-counter-writers.c -- a counter's writers come and go while others add: no add is lost in the one-writer code or across its switch. */
#include <pthread.h>
#include <stdatomic.h>

#include "qtest-qua.h"

/* One writer thread: its own add site, adding 1 until told to stop; counts its adds. */
typedef struct writer {
  qua_site_t *site;
  _Atomic bool stop;
  long adds;
  long errors;
  pthread_t th;
} writer_t;

static void *writer_main(void *arg) {
  writer_t *w = arg;
  while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
    uint64_t v;
    for (int k = 0; k < 64; k++) {
      if (qua_call(w->site, 1, 0, &v) != QUA_OK)
        w->errors++;
      w->adds++;
    }
  }
  return NULL;
}

static void writer_start(writer_t *w, qua_quaject_t *c) {
  w->site = qtest_site(c, "add", NULL, 0);
  atomic_init(&w->stop, false);
  w->adds = w->errors = 0;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&w->th, NULL, writer_main, w), 0);
}

static void writer_stop(writer_t *w) {
  atomic_store(&w->stop, true);
  pthread_join(w->th, NULL);
  CU_ASSERT_EQUAL(w->errors, 0);
  qua_site_close(w->site);
}

static uint64_t value(qua_quaject_t *c) {
  qua_site_t *r = qtest_site(c, "read", NULL, 0);
  uint64_t v = 0;
  CU_ASSERT_EQUAL(qua_call(r, 0, 0, &v), QUA_OK);
  qua_site_close(r);
  return v;
}

static void sleep_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

/* A second writer opens while the first adds (one-writer code until then), adds alongside it,
 * and leaves while the first goes on (one-writer code again): the count is every add. */
static void second_writer_joins_and_leaves_without_losing_adds(void) {
  qua_quaject_t *c = qtest_make("counter", "initial=0");
  long rounds = qtest_scale(20, 4);
  long total = 0;
  writer_t a, b;
  writer_start(&a, c);
  qtest_runs_requested_code(c, "counter", "add");
  for (long r = 0; r < rounds; r++) {
    sleep_ms(2);
    writer_start(&b, c);
    qtest_runs_requested_code(c, "counter", "add");
    sleep_ms(5);
    writer_stop(&b);
    total += b.adds;
  }
  sleep_ms(2);
  writer_stop(&a);
  total += a.adds;
  CU_ASSERT_EQUAL(value(c), (uint64_t)total);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
}

/* Two writers from the start, a third coming and going: still every add. */
static void many_writers_never_lose_adds(void) {
  qua_quaject_t *c = qtest_make("counter", "initial=0");
  writer_t w[3];
  writer_start(&w[0], c);
  writer_start(&w[1], c);
  long total = 0;
  for (int r = 0; r < qtest_scale(10, 3); r++) {
    writer_start(&w[2], c);
    sleep_ms(3);
    writer_stop(&w[2]);
    total += w[2].adds;
  }
  writer_stop(&w[0]);
  writer_stop(&w[1]);
  total += w[0].adds + w[1].adds;
  CU_ASSERT_EQUAL(value(c), (uint64_t)total);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"second_writer_joins_and_leaves_without_losing_adds",
       second_writer_joins_and_leaves_without_losing_adds},
      {"many_writers_never_lose_adds", many_writers_never_lose_adds},
      {NULL, NULL},
  };
  return qtest_run("counter-writers", cases);
}
