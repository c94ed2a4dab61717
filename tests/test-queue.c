/* test-queue.c -- the queue quaject, sequentially: every variant, every callback. */
#include <string.h>

#include "qtest.h"
#include "qua.h"

enum { FULL, NOTFULL, EMPTY, NOTEMPTY, CLOSED, NCB };

typedef struct tally {
  int n[NCB];
  uint64_t last_arg[NCB];
} tally_t;

static void count_cb(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  tally_t *t = ctx;
  t->n[cb]++;
  t->last_arg[cb] = arg;
}

typedef struct fixture {
  qua_quaject_t *q;
  qua_site_t *put, *get, *put2, *get2;
  tally_t prod, cons;
} fixture_t;

/* Opens a producer and a consumer site; `mp`/`mc` add a second site on
 * that side so the queue runs its multi-producer/consumer code. */
static void setup(fixture_t *f, unsigned cap, bool mp, bool mc) {
  memset(f, 0, sizeof *f);
  char kv[32];
  snprintf(kv, sizeof kv, "capacity=%u", cap);
  const char *p[] = {kv};
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", p, 1, &f->q, NULL), QUA_OK);
  qua_bind_t ph[] = {{"full", count_cb, &f->prod}, {"notfull", count_cb, &f->prod},
                     {"closed", count_cb, &f->prod}, {NULL, NULL, NULL}};
  qua_bind_t ch[] = {{"empty", count_cb, &f->cons}, {"notempty", count_cb, &f->cons},
                     {"closed", count_cb, &f->cons}, {NULL, NULL, NULL}};
  CU_ASSERT_EQUAL_FATAL(qua_site_open(f->q, "put", ph, 0, &f->put, NULL), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_site_open(f->q, "get", ch, 0, &f->get, NULL), QUA_OK);
  if (mp)
    CU_ASSERT_EQUAL_FATAL(qua_site_open(f->q, "put", NULL, 0, &f->put2, NULL), QUA_OK);
  if (mc)
    CU_ASSERT_EQUAL_FATAL(qua_site_open(f->q, "get", NULL, 0, &f->get2, NULL), QUA_OK);
  char impl[8];
  snprintf(impl, sizeof impl, "%s%s", mp ? "mp" : "sp", mc ? "mc" : "sc");
  CU_ASSERT_PTR_NOT_NULL(strstr(qua_quaject_entry_impl(f->q, 0), impl));
}

static void teardown(fixture_t *f) {
  qua_site_close(f->put);
  qua_site_close(f->get);
  qua_site_close(f->put2);
  qua_site_close(f->get2);
  CU_ASSERT_EQUAL(qua_destroy(f->q, false, NULL), QUA_OK);
}

static void fifo_and_callbacks(bool mp, bool mc) {
  fixture_t f;
  setup(&f, 4, mp, mc);
  uint64_t v = 99;
  /* empty: get diverts to the consumer's "empty" */
  CU_ASSERT_EQUAL(qua_call(f.get, 0, 0, &v), QUA_DIVERTED);
  CU_ASSERT_EQUAL(f.cons.n[EMPTY], 1);
  CU_ASSERT_EQUAL(v, 99);
  /* the first put crosses empty -> not empty: "notempty" once */
  CU_ASSERT_EQUAL(qua_call(f.put, 10, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(f.cons.n[NOTEMPTY], 1);
  for (uint64_t i = 11; i < 14; i++)
    CU_ASSERT_EQUAL(qua_call(f.put, i, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(f.cons.n[NOTEMPTY], 1); /* no further transition */
  /* full: "full" to the producer with the item, not stored */
  CU_ASSERT_EQUAL(qua_call(f.put, 77, 0, NULL), QUA_DIVERTED);
  CU_ASSERT_EQUAL(f.prod.n[FULL], 1);
  CU_ASSERT_EQUAL(f.prod.last_arg[FULL], 77);
  CU_ASSERT_EQUAL(qua_call(f.put, 78, 0, NULL), QUA_DIVERTED);
  CU_ASSERT_EQUAL(f.prod.n[FULL], 2);
  /* the first get crosses full -> not full: "notfull" once */
  CU_ASSERT_EQUAL(qua_call(f.get, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 10);
  CU_ASSERT_EQUAL(f.prod.n[NOTFULL], 1);
  for (uint64_t i = 11; i < 14; i++) {
    CU_ASSERT_EQUAL(qua_call(f.get, 0, 0, &v), QUA_OK);
    CU_ASSERT_EQUAL(v, i);
  }
  CU_ASSERT_EQUAL(f.prod.n[NOTFULL], 1);
  CU_ASSERT_EQUAL(qua_call(f.get, 0, 0, &v), QUA_DIVERTED);
  CU_ASSERT_EQUAL(f.cons.n[EMPTY], 2);
  /* emptied by gets, then a put: a new transition */
  CU_ASSERT_EQUAL(qua_call(f.put, 1, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(f.cons.n[NOTEMPTY], 2);
  /* fill, drain one, refill, drain one: two full -> not full transitions */
  for (uint64_t i = 2; i <= 4; i++)
    qua_call(f.put, i, 0, NULL);
  qua_call(f.get, 0, 0, &v);
  qua_call(f.put, 5, 0, NULL);
  qua_call(f.get, 0, 0, &v);
  CU_ASSERT_EQUAL(f.prod.n[NOTFULL], 3);
  CU_ASSERT_EQUAL(f.cons.n[NOTEMPTY], 2);
  /* the callbacks went to the right sides only */
  CU_ASSERT_EQUAL(f.prod.n[EMPTY] + f.prod.n[NOTEMPTY], 0);
  CU_ASSERT_EQUAL(f.cons.n[FULL] + f.cons.n[NOTFULL], 0);
  teardown(&f);
}

static void queue_spsc_fifo_and_callbacks(void) { fifo_and_callbacks(false, false); }
static void queue_mpsc_fifo_and_callbacks(void) { fifo_and_callbacks(true, false); }
static void queue_spmc_fifo_and_callbacks(void) { fifo_and_callbacks(false, true); }
static void queue_mpmc_fifo_and_callbacks(void) { fifo_and_callbacks(true, true); }

static void queue_batches(void) {
  fixture_t f;
  setup(&f, 8, false, false);
  qua_site_t *pn, *gn;
  qua_site_close(f.put);
  f.put = NULL;
  qua_bind_t ph[] = {{"full", count_cb, &f.prod}, {"notfull", count_cb, &f.prod}, {NULL, NULL, NULL}};
  CU_ASSERT_EQUAL_FATAL(qua_site_open(f.q, "put_n", ph, 0, &pn, NULL), QUA_OK);
  qua_site_close(f.get);
  f.get = NULL;
  qua_bind_t ch[] = {{"empty", count_cb, &f.cons}, {"notempty", count_cb, &f.cons}, {NULL, NULL, NULL}};
  CU_ASSERT_EQUAL_FATAL(qua_site_open(f.q, "get_n", ch, 0, &gn, NULL), QUA_OK);
  uint64_t in[12], out[12], n = 0;
  for (int i = 0; i < 12; i++)
    in[i] = 100 + (uint64_t)i;
  CU_ASSERT_EQUAL(qua_call(pn, (uintptr_t)in, 5, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, 5);
  CU_ASSERT_EQUAL(f.cons.n[NOTEMPTY], 1);
  /* only 3 more fit: partial batch, "full" with the number left over */
  CU_ASSERT_EQUAL(qua_call(pn, (uintptr_t)(in + 5), 7, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_EQUAL(f.prod.n[FULL], 1);
  CU_ASSERT_EQUAL(f.prod.last_arg[FULL], 4);
  CU_ASSERT_EQUAL(qua_call(pn, (uintptr_t)in, 1, &n), QUA_DIVERTED);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_EQUAL(qua_call(gn, (uintptr_t)out, 12, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, 8);
  CU_ASSERT_EQUAL(f.prod.n[NOTFULL], 1);
  for (int i = 0; i < 8; i++)
    CU_ASSERT_EQUAL(out[i], 100 + (uint64_t)i);
  CU_ASSERT_EQUAL(qua_call(gn, (uintptr_t)out, 12, &n), QUA_DIVERTED);
  CU_ASSERT_EQUAL(f.cons.n[EMPTY], 1);
  qua_site_close(pn);
  qua_site_close(gn);
  teardown(&f);
}

static void queue_close_refuses_puts_drains_gets(void) {
  fixture_t f;
  setup(&f, 4, false, false);
  uint64_t v;
  qua_call(f.put, 1, 0, NULL);
  qua_call(f.put, 2, 0, NULL);
  CU_ASSERT_EQUAL(qua_queue_close(f.q), QUA_OK);
  CU_ASSERT_EQUAL(f.prod.n[CLOSED], 1);
  CU_ASSERT_EQUAL(f.cons.n[CLOSED], 1);
  CU_ASSERT_EQUAL(qua_queue_close(f.q), QUA_OK); /* once only */
  CU_ASSERT_EQUAL(f.cons.n[CLOSED], 1);
  CU_ASSERT_EQUAL(qua_call(f.put, 3, 0, NULL), QUA_ECLOSED);
  CU_ASSERT_STRING_EQUAL(qua_strerror(QUA_ECLOSED), "queue is closed");
  CU_ASSERT_EQUAL(qua_call(f.get, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 1);
  CU_ASSERT_EQUAL(qua_call(f.get, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 2);
  CU_ASSERT_EQUAL(qua_call(f.get, 0, 0, &v), QUA_ECLOSED);
  CU_ASSERT_EQUAL(f.cons.n[EMPTY], 0);
  teardown(&f);
}

static void queue_variant_follows_sites(void) {
  fixture_t f;
  setup(&f, 16, false, false);
  qua_site_t *extra;
  for (uint64_t i = 0; i < 5; i++)
    qua_call(f.put, i, 0, NULL);
  CU_ASSERT_EQUAL(qua_site_open(f.q, "put", NULL, 0, &extra, NULL), QUA_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(qua_quaject_entry_impl(f.q, 0), "mpsc"));
  for (uint64_t i = 5; i < 10; i++)
    qua_call(i % 2 ? extra : f.put, i, 0, NULL);
  qua_site_close(extra);
  CU_ASSERT_PTR_NOT_NULL(strstr(qua_quaject_entry_impl(f.q, 0), "spsc"));
  CU_ASSERT_EQUAL(qua_site_open(f.q, "get", NULL, QUA_SITE_SHARED, &extra, NULL), QUA_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(qua_quaject_entry_impl(f.q, 0), "spmc"));
  for (uint64_t i = 10; i < 12; i++)
    qua_call(f.put, i, 0, NULL);
  /* nothing lost or reordered across the switches */
  uint64_t v;
  for (uint64_t i = 0; i < 12; i++) {
    CU_ASSERT_EQUAL(qua_call(i % 3 ? extra : f.get, 0, 0, &v), QUA_OK);
    CU_ASSERT_EQUAL(v, i);
  }
  qua_site_close(extra);
  CU_ASSERT_PTR_NOT_NULL(strstr(qua_quaject_entry_impl(f.q, 0), "spsc"));
  teardown(&f);
}

static void queue_watchers_see_every_callback(void) {
  fixture_t f;
  setup(&f, 2, false, false);
  tally_t w = {0};
  qua_watch_t *w1, *w2;
  CU_ASSERT_EQUAL(qua_watch(f.q, "full", count_cb, &w, &w1, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_watch(f.q, "notempty", count_cb, &w, &w2, NULL), QUA_OK);
  qua_error_t err;
  qua_watch_t *bad = NULL;
  CU_ASSERT_EQUAL(qua_watch(f.q, "overflow", count_cb, &w, &bad, &err), QUA_ENOCALLBACK);
  qua_call(f.put, 1, 0, NULL);
  qua_call(f.put, 2, 0, NULL);
  qua_call(f.put, 3, 0, NULL);
  CU_ASSERT_EQUAL(w.n[FULL], 1);
  CU_ASSERT_EQUAL(w.last_arg[FULL], 3);
  CU_ASSERT_EQUAL(w.n[NOTEMPTY], 1);
  CU_ASSERT_EQUAL(f.prod.n[FULL], 1); /* the invoker got it too */
  qua_unwatch(w1);
  qua_call(f.put, 4, 0, NULL);
  CU_ASSERT_EQUAL(w.n[FULL], 1);
  qua_unwatch(w2);
  teardown(&f);
}

/* notify=0 queues report no transitions, so watching one is refused with a
 * message naming the callback, and nothing is left registered. */
static void queue_untracked_refuses_transition_watchers(void) {
  const char *p[] = {"notify=0"};
  qua_quaject_t *q;
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", p, 1, &q, NULL), QUA_OK);
  tally_t w = {0};
  qua_watch_t *bad = NULL, *ok = NULL;
  qua_error_t err;
  CU_ASSERT_EQUAL(qua_watch(q, "notempty", count_cb, &w, &bad, &err), QUA_ENOCALLBACK);
  CU_ASSERT_PTR_NULL(bad);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "notempty"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "notify=0"));
  CU_ASSERT_EQUAL(qua_watch(q, "notfull", count_cb, &w, &bad, &err), QUA_ENOCALLBACK);
  CU_ASSERT_EQUAL(qua_watch(q, "full", count_cb, &w, &ok, NULL), QUA_OK); /* invoker kind: fine */
  qua_site_t *put, *get;
  CU_ASSERT_EQUAL(qua_site_open(q, "put", NULL, 0, &put, NULL), QUA_OK); /* nobody listens now */
  CU_ASSERT_EQUAL(qua_site_open(q, "get", NULL, 0, &get, NULL), QUA_OK);
  qua_site_close(put);
  qua_site_close(get);
  qua_unwatch(ok);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
}

static void queue_unwired_default_is_safe(void) {
  /* A site opened with QUA_SITE_SHARED counts as many callers: MP code. */
  qua_quaject_t *q;
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", NULL, 0, &q, NULL), QUA_OK);
  qua_site_t *s;
  CU_ASSERT_EQUAL(qua_site_open(q, "put", NULL, QUA_SITE_SHARED, &s, NULL), QUA_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(qua_quaject_entry_impl(q, 0), "mp"));
  uint64_t n = 0;
  qua_site_t *cnt;
  qua_site_open(q, "count", NULL, 0, &cnt, NULL);
  qua_call(s, 1, 0, NULL);
  qua_call(cnt, 0, 0, &n);
  CU_ASSERT_EQUAL(n, 1);
  qua_site_close(s);
  qua_site_close(cnt);
  qua_destroy(q, false, NULL);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"queue_spsc_fifo_and_callbacks", queue_spsc_fifo_and_callbacks},
      {"queue_mpsc_fifo_and_callbacks", queue_mpsc_fifo_and_callbacks},
      {"queue_spmc_fifo_and_callbacks", queue_spmc_fifo_and_callbacks},
      {"queue_mpmc_fifo_and_callbacks", queue_mpmc_fifo_and_callbacks},
      {"queue_batches", queue_batches},
      {"queue_close_refuses_puts_drains_gets", queue_close_refuses_puts_drains_gets},
      {"queue_variant_follows_sites", queue_variant_follows_sites},
      {"queue_watchers_see_every_callback", queue_watchers_see_every_callback},
      {"queue_shared_site_runs_mp_code", queue_unwired_default_is_safe},
      {"queue_untracked_refuses_transition_watchers", queue_untracked_refuses_transition_watchers},
      {NULL, NULL}};
  return qtest_run("queue", cases);
}
