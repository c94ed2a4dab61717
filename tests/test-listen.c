/* test-listen.c -- listeners come and go while a queue's edges fire on other threads.
 *
 * Synthesised put and get fold in who listens to notempty and notfull
 * (queue-templates.c); watch, unwatch, site open and close rebuild that
 * code and wait for a grace period before they return. So a listener is
 * never called once its removal has returned, and one that stays while
 * edges happen hears them. A producer and a consumer thread run a small
 * queue through empty and full all the time, while this thread adds and
 * removes watchers and listening sites; each listener's context records
 * calls that came after its removal returned.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "qtest-qua.h"

enum { LISTENERS = 400 };

typedef struct listener {
  _Atomic bool removed;
  _Atomic long calls, late;
} listener_t;

static void hear(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  listener_t *l = ctx;
  if (atomic_load_explicit(&l->removed, memory_order_acquire))
    atomic_fetch_add(&l->late, 1);
  atomic_fetch_add(&l->calls, 1);
}

/* Lets a listener stay until it heard an edge, or 50 ms. */
static void wait_heard(listener_t *l) {
  for (int t = 0; t < 500 && atomic_load(&l->calls) == 0; t++)
    usleep(100);
}

typedef struct flow {
  qua_quaject_t *q;
  long items;
  _Atomic bool stop;
  _Atomic long got;
  bool order_ok;
} flow_t;

static void *producer(void *arg) {
  flow_t *f = arg;
  qua_site_t *put = qtest_site(f->q, "put", NULL, 0);
  for (long i = 0; i < f->items && !atomic_load(&f->stop);)
    if (qua_call(put, (uint64_t)i, 0, NULL) == QUA_OK)
      i++;
    else
      sched_yield();
  qua_site_close(put);
  return NULL;
}

static void *consumer(void *arg) {
  flow_t *f = arg;
  qua_site_t *get = qtest_site(f->q, "get", NULL, 0);
  long next = 0;
  while (next < f->items && !atomic_load(&f->stop)) {
    uint64_t x;
    if (qua_call(get, 0, 0, &x) == QUA_OK) {
      f->order_ok &= x == (uint64_t)next;
      next++;
    } else {
      sched_yield();
    }
  }
  atomic_store(&f->got, next);
  qua_site_close(get);
  return NULL;
}

static void listeners_never_called_after_removal(void) {
  /* The flow runs until the listeners are done. */
  flow_t f = {.q = qtest_make("queue", "capacity=4"), .items = LONG_MAX, .order_ok = true};
  static listener_t ls[LISTENERS];
  memset(ls, 0, sizeof ls);
  pthread_t tp, tc;
  pthread_create(&tp, NULL, producer, &f);
  pthread_create(&tc, NULL, consumer, &f);
  double deadline = qtest_now() + 120;
  int n = 0;
  for (; n < LISTENERS && qtest_now() < deadline; n++) {
    listener_t *l = &ls[n];
    const char *cb = n % 4 < 2 ? "notempty" : "notfull";
    if (n % 2 == 0) {
      qua_watch_t *w;
      CU_ASSERT_EQUAL_FATAL(qua_watch(f.q, cb, hear, l, &w, NULL), QUA_OK);
      wait_heard(l);
      qua_unwatch(w);
    } else {
      qua_bind_t h[] = {{cb, hear, l}, {NULL, NULL, NULL}};
      qua_site_t *s = qtest_site(f.q, "count", h, 0);
      wait_heard(l);
      qua_site_close(s);
    }
    atomic_store_explicit(&l->removed, true, memory_order_release);
  }
  usleep(1000); /* a late call would come now */
  qtest_runs_requested_code(f.q, "queue", "put"); /* the producer's and consumer's sites are open */
  qtest_runs_requested_code(f.q, "queue", "get");
  atomic_store(&f.stop, true);
  pthread_join(tp, NULL);
  pthread_join(tc, NULL);
  long calls = 0, late = 0, heard = 0;
  for (int i = 0; i < n; i++) {
    calls += atomic_load(&ls[i].calls);
    late += atomic_load(&ls[i].late);
    heard += atomic_load(&ls[i].calls) > 0;
  }
  fprintf(stderr, "\n  %d listeners came and went; %ld of them heard %ld edges; %ld items moved\n", n,
          heard, calls, (long)atomic_load(&f.got));
  CU_ASSERT_EQUAL(late, 0);
  CU_ASSERT(heard >= n * 9 / 10); /* edges happen all the time: a listener hears one */
  CU_ASSERT_TRUE(f.order_ok);
  CU_ASSERT_EQUAL(qua_destroy(f.q, false, NULL), QUA_OK);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"listeners_never_called_after_removal", listeners_never_called_after_removal},
      {NULL, NULL},
  };
  return qtest_run("listen", cases);
}
