/* test-types.c -- counter, tee, buffer and clock, sequentially; what their storage keeps. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qtest-qua.h"

typedef struct tally {
  int n[8];
  uint64_t last[8];
} tally_t;

static void count_cb(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  tally_t *t = ctx;
  t->n[cb]++;
  t->last[cb] = arg;
}

static void counter_add_and_read(void) {
  qua_quaject_t *c = qtest_make("counter", "initial=5", NULL);
  qua_site_t *add = qtest_site(c, "add", NULL, 0), *rd = qtest_site(c, "read", NULL, 0);
  uint64_t v = 0;
  CU_ASSERT_EQUAL(qua_call(add, 3, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 8);
  CU_ASSERT_EQUAL(qua_call(add, (uint64_t)-10, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL((int64_t)v, -2);
  CU_ASSERT_EQUAL(qua_call(rd, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL((int64_t)v, -2);
  qua_site_close(add);
  qua_site_close(rd);
  qua_destroy(c, false, NULL);
}

static void counter_threshold_fires_once_per_crossing(void) {
  qua_quaject_t *c = qtest_make("counter", "threshold=10", NULL);
  tally_t t = {0};
  qua_bind_t h[] = {{"threshold", count_cb, &t}, {NULL, NULL, NULL}};
  qua_site_t *add = qtest_site(c, "add", h, 0);
  uint64_t v;
  for (int i = 0; i < 9; i++)
    qua_call(add, 1, 0, &v);
  CU_ASSERT_EQUAL(t.n[0], 0);
  qua_call(add, 1, 0, &v); /* 9 -> 10: crosses */
  CU_ASSERT_EQUAL(t.n[0], 1);
  CU_ASSERT_EQUAL(t.last[0], 10);
  qua_call(add, 5, 0, &v); /* 15: still above */
  CU_ASSERT_EQUAL(t.n[0], 1);
  qua_call(add, (uint64_t)-6, 0, &v); /* 9: crosses back */
  CU_ASSERT_EQUAL(t.n[0], 2);
  qua_call(add, 100, 0, &v); /* 109: crosses up in one add */
  CU_ASSERT_EQUAL(t.n[0], 3);
  qua_site_close(add);
  qua_destroy(c, false, NULL);
}

static void counter_pass_counts_and_forwards(void) {
  qua_quaject_t *c = qtest_make("counter", NULL, NULL);
  qua_quaject_t *q = qtest_make("queue", "capacity=4", NULL);
  CU_ASSERT_EQUAL(qua_wire(c, "out", q, "put", NULL), QUA_OK);
  qua_site_t *pass = qtest_site(c, "pass", NULL, 0), *get = qtest_site(q, "get", NULL, 0), *rd = qtest_site(c, "read", NULL, 0);
  for (uint64_t i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(qua_call(pass, 40 + i, 0, NULL), QUA_OK);
  uint64_t v;
  qua_call(rd, 0, 0, &v);
  CU_ASSERT_EQUAL(v, 3);
  for (uint64_t i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(qua_call(get, 0, 0, &v), QUA_OK);
    CU_ASSERT_EQUAL(v, 40 + i);
  }
  qua_site_close(pass);
  qua_site_close(get);
  qua_site_close(rd);
  qua_destroy(c, false, NULL);
  qua_destroy(q, false, NULL);
}

static void tee_copies_to_every_output(void) {
  qua_quaject_t *t = qtest_make("tee", "n=3", NULL);
  qua_quaject_t *c[3];
  for (int i = 0; i < 3; i++) {
    c[i] = qtest_make("counter", NULL, NULL);
    char out[8];
    snprintf(out, sizeof out, "out%d", i);
    if (i != 1) /* out1 stays unwired: skipped */
      CU_ASSERT_EQUAL(qua_wire(t, out, c[i], "pass", NULL), QUA_OK);
  }
  qua_site_t *put = qtest_site(t, "put", NULL, 0);
  for (int k = 0; k < 7; k++)
    CU_ASSERT_EQUAL(qua_call(put, (uint64_t)k, 0, NULL), QUA_OK);
  for (int i = 0; i < 3; i++) {
    qua_site_t *rd = qtest_site(c[i], "read", NULL, 0);
    uint64_t v;
    qua_call(rd, 0, 0, &v);
    CU_ASSERT_EQUAL(v, i == 1 ? 0 : 7);
    qua_site_close(rd);
  }
  qua_site_close(put);
  CU_ASSERT_EQUAL(qua_destroy(c[0], false, NULL), QUA_EBUSY);
  CU_ASSERT_EQUAL(qua_destroy(t, false, NULL), QUA_OK); /* unwires its outputs */
  for (int i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(qua_destroy(c[i], false, NULL), QUA_OK);
}

static void tee_reports_a_full_output(void) {
  qua_quaject_t *t = qtest_make("tee", "n=2", NULL);
  qua_quaject_t *small = qtest_make("queue", "capacity=1", NULL), *big = qtest_make("queue", NULL, NULL);
  qua_wire(t, "out0", small, "put", NULL);
  qua_wire(t, "out1", big, "put", NULL);
  qua_site_t *put = qtest_site(t, "put", NULL, 0);
  CU_ASSERT_EQUAL(qua_call(put, 1, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(put, 2, 0, NULL), QUA_DIVERTED); /* small is full */
  qua_site_t *cnt = qtest_site(big, "count", NULL, 0);
  uint64_t v;
  qua_call(cnt, 0, 0, &v);
  CU_ASSERT_EQUAL(v, 2); /* the other output still got it */
  qua_site_close(cnt);
  qua_site_close(put);
  qua_destroy(t, false, NULL);
  qua_destroy(small, false, NULL);
  qua_destroy(big, false, NULL);
}

enum { B_FULL, B_NOTFULL, B_EMPTY, B_NOTEMPTY };

static void buffer_spans_wrap_and_callbacks(void) {
  qua_quaject_t *b = qtest_make("buffer", "capacity=8", NULL);
  tally_t w = {0}, r = {0};
  qua_bind_t wh[] = {{"full", count_cb, &w}, {"notfull", count_cb, &w}, {NULL, NULL, NULL}};
  qua_bind_t rh[] = {{"empty", count_cb, &r}, {"notempty", count_cb, &r}, {NULL, NULL, NULL}};
  qua_site_t *wr = qtest_site(b, "write", wh, 0), *rd = qtest_site(b, "read", rh, 0);
  char out[16];
  uint64_t n;
  CU_ASSERT_EQUAL(qua_call(rd, (uintptr_t)out, 4, &n), QUA_DIVERTED);
  CU_ASSERT_EQUAL(r.n[B_EMPTY], 1);
  CU_ASSERT_EQUAL(qua_call(wr, (uintptr_t)"abcdef", 6, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, 6);
  CU_ASSERT_EQUAL(r.n[B_NOTEMPTY], 1);
  CU_ASSERT_EQUAL(qua_call(rd, (uintptr_t)out, 4, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, 4);
  CU_ASSERT_NSTRING_EQUAL(out, "abcd", 4);
  /* wraps around the end; only 6 of 10 fit: "full" with 4 left over */
  CU_ASSERT_EQUAL(qua_call(wr, (uintptr_t)"0123456789", 10, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, 6);
  CU_ASSERT_EQUAL(w.n[B_FULL], 1);
  CU_ASSERT_EQUAL(w.last[B_FULL], 4);
  CU_ASSERT_EQUAL(r.n[B_NOTEMPTY], 1);
  CU_ASSERT_EQUAL(qua_call(wr, (uintptr_t)"x", 1, &n), QUA_DIVERTED);
  CU_ASSERT_EQUAL(qua_call(rd, (uintptr_t)out, 16, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, 8);
  CU_ASSERT_NSTRING_EQUAL(out, "ef012345", 8);
  CU_ASSERT_EQUAL(w.n[B_NOTFULL], 1);
  CU_ASSERT_EQUAL(qua_call(wr, (uintptr_t)"z", 1, &n), QUA_OK);
  CU_ASSERT_EQUAL(r.n[B_NOTEMPTY], 2);
  qua_site_close(wr);
  qua_site_close(rd);
  qua_destroy(b, false, NULL);
}

static void buffer_second_writer_refused(void) {
  qua_quaject_t *b = qtest_make("buffer", NULL, NULL);
  qua_site_t *w1 = qtest_site(b, "write", NULL, 0), *w2 = NULL;
  qua_error_t err;
  CU_ASSERT_EQUAL(qua_site_open(b, "putb", NULL, 0, &w2, &err), QUA_ELIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "one writer"));
  CU_ASSERT_PTR_NULL(w2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "buffer"));
  qua_site_t *pb = NULL;
  CU_ASSERT_EQUAL(qua_site_open(b, "write", NULL, QUA_SITE_SHARED, &pb, &err), QUA_ELIMIT);
  qua_site_close(w1);
  /* with the first writer gone, a byte writer is fine */
  qua_site_t *b1 = qtest_site(b, "putb", NULL, 0), *g = qtest_site(b, "getb", NULL, 0);
  CU_ASSERT_EQUAL(qua_call(b1, 0x41, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(b1, 0x141, 0, NULL), QUA_EINVAL);
  uint64_t v;
  CU_ASSERT_EQUAL(qua_call(g, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 0x41);
  CU_ASSERT_EQUAL(qua_call(g, 0, 0, &v), QUA_DIVERTED);
  qua_site_close(b1);
  qua_site_close(g);
  qua_destroy(b, false, NULL);
}

static void clock_ticks_its_callout(void) {
  qua_quaject_t *clk = qtest_make("clock", "period_us=1000", "count=20");
  qua_quaject_t *c = qtest_make("counter", NULL, NULL);
  CU_ASSERT_EQUAL(qua_wire(clk, "tick", c, "add", NULL), QUA_EARITY); /* add returns a value */
  CU_ASSERT_EQUAL(qua_wire(clk, "tick", c, "pass", NULL), QUA_OK);
  qua_site_t *rd = qtest_site(c, "read", NULL, 0);
  uint64_t v = 0;
  double end = qtest_now() + 10;
  while (qtest_now() < end) {
    qua_call(rd, 0, 0, &v);
    if (v == 20)
      break;
    usleep(1000);
  }
  CU_ASSERT_EQUAL(v, 20);
  /* The clock counts a tick once it is delivered. */
  while (qtest_stat(clk, "ticks=") < 20 && qtest_now() < end)
    usleep(1000);
  usleep(20000);
  qua_call(rd, 0, 0, &v);
  CU_ASSERT_EQUAL(v, 20); /* count=20: it stopped */
  CU_ASSERT_EQUAL(qtest_stat(clk, "ticks="), 20);
  qua_site_close(rd);
  CU_ASSERT_EQUAL(qua_destroy(clk, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
}

/* A clock whose tick is wired late (here after 50 periods) spends no tick
 * on nobody: count=5 delivers ticks 0..4, in order, once wired. Before, the
 * ticks of those periods were lost into the unwired callout. */
static void clock_waits_for_its_wire(void) {
  qua_quaject_t *clk = qtest_make("clock", "period_us=1000", "count=5");
  qua_quaject_t *q = qtest_make("queue", "capacity=8", NULL);
  usleep(50000);
  char d[96];
  qua_quaject_describe(clk, d, sizeof d);
  CU_ASSERT_PTR_NOT_NULL(strstr(d, "ticks=0 "));
  CU_ASSERT_EQUAL(qua_wire(clk, "tick", q, "put", NULL), QUA_OK);
  qua_site_t *get = qtest_site(q, "get", NULL, 0);
  uint64_t v, want = 0;
  double end = qtest_now() + 10;
  while (want < 5 && qtest_now() < end) {
    if (qua_call(get, 0, 0, &v) == QUA_OK) {
      CU_ASSERT_EQUAL(v, want);
      want++;
    } else {
      usleep(1000);
    }
  }
  CU_ASSERT_EQUAL(want, 5);
  usleep(20000);
  CU_ASSERT_NOT_EQUAL(qua_call(get, 0, 0, &v), QUA_OK); /* count=5: no sixth */
  qua_site_close(get);
  CU_ASSERT_EQUAL(qua_destroy(clk, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
}

static void clock_destroy_while_running(void) {
  qua_quaject_t *clk = qtest_make("clock", "period_us=3600000000", NULL);
  double t0 = qtest_now();
  CU_ASSERT_EQUAL(qua_destroy(clk, false, NULL), QUA_OK);
  CU_ASSERT(qtest_now() - t0 < 5); /* the hour-long wait was interrupted */
}

/* The buffer's largest capacity, 16 MiB (1 << 24, as documented), is
 * accepted and holds exactly that many bytes, in order; twice that is
 * refused, naming the limit. */
static void buffer_at_and_past_its_maximum_capacity(void) {
  const size_t max = (size_t)1 << 24;
  qua_error_t err = {0};
  qua_quaject_t *b = NULL;
  const char *over[] = {"capacity=33554432"};
  int rc = qua_create("buffer", over, 1, &b, &err);
  CU_ASSERT_EQUAL(rc, QUA_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "16777216"));
  b = qtest_make("buffer", "capacity=16777216");
  unsigned char *data = malloc(max + 1), *back = malloc(max + 1);
  CU_ASSERT_FATAL(data != NULL && back != NULL);
  for (size_t i = 0; i <= max; i++)
    data[i] = (unsigned char)(i * 131 + (i >> 16));
  qua_site_t *w = qtest_site(b, "write", NULL, 0), *r = qtest_site(b, "read", NULL, 0);
  uint64_t n = 0;
  CU_ASSERT_EQUAL(qua_call(w, (uint64_t)(uintptr_t)data, max + 1, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, max); /* one byte short: full */
  CU_ASSERT_EQUAL(qua_call(w, (uint64_t)(uintptr_t)data, 1, &n), QUA_DIVERTED);
  CU_ASSERT_EQUAL(qua_call(r, (uint64_t)(uintptr_t)back, max + 1, &n), QUA_OK);
  CU_ASSERT_EQUAL(n, max);
  CU_ASSERT(memcmp(data, back, max) == 0);
  free(data);
  free(back);
  qua_site_close(w);
  qua_site_close(r);
  CU_ASSERT_EQUAL(qua_destroy(b, false, NULL), QUA_OK);
}

/* --- Storage (qua_set_storage): what a recovery reads from it --------------------- */

static int maps, unmaps;

static void *test_map(void *ctx, const qua_type_t *t, size_t bytes) {
  void *p = aligned_alloc(128, (bytes + 127) / 128 * 128);
  if (p != NULL)
    memset(p, 0, bytes);
  maps++;
  return p;
}

static void test_unmap(void *ctx, void *mem, size_t bytes) {
  free(mem);
  unmaps++;
}

/* Recovers the contents of q's storage as it is now, into out (n of them). */
static int recover_now(qua_quaject_t *q, void *out, size_t *n, char *why, size_t whylen) {
  size_t bytes = 0;
  const void *mem = qua_storage(q, &bytes);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
  return qua_storage_recover(qua_quaject_type(q), mem, bytes, out, n, why, whylen);
}

/* A buffer (its bytes wrapping round the ring), a counter and a queue in
 * storage: a recovery reads exactly what each holds; a buffer whose
 * positions are impossible is refused; the storage goes back through the
 * map that gave it even after the map is unset. */
static void storage_holds_what_recovery_reads(void) {
  maps = unmaps = 0;
  qua_set_storage(&(qua_storage_t){test_map, test_unmap, NULL});
  qua_quaject_t *b = qtest_make("buffer", "capacity=8"), *c = qtest_make("counter", "initial=5");
  qua_quaject_t *q = qtest_make("queue", "capacity=4");
  qua_set_storage(NULL); /* the quajects keep theirs */
  CU_ASSERT_EQUAL(maps, 3);
  qua_site_t *w = qtest_site(b, "write", NULL, 0), *r = qtest_site(b, "read", NULL, 0);
  qua_site_t *a = qtest_site(c, "add", NULL, 0), *p = qtest_site(q, "put", NULL, 0);
  qua_site_t *g = qtest_site(q, "get", NULL, 0);
  uint64_t n = 0, v;
  unsigned char got[64];
  char why[160];
  size_t k = 0;
  CU_ASSERT_EQUAL(qua_call(w, (uint64_t)(uintptr_t)"abcdef", 6, &n), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(r, (uint64_t)(uintptr_t)got, 5, &n), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(w, (uint64_t)(uintptr_t)"ghijk", 5, &n), QUA_OK); /* wraps */
  CU_ASSERT_EQUAL(recover_now(b, got, &k, why, sizeof why), QUA_OK);
  CU_ASSERT(k == 6 && memcmp(got, "fghijk", 6) == 0);
  CU_ASSERT_EQUAL(qua_call(a, (uint64_t)-12, 0, &v), QUA_OK);
  uint64_t words[8] = {0};
  CU_ASSERT_EQUAL(recover_now(c, words, &k, why, sizeof why), QUA_OK);
  CU_ASSERT(k == 1 && (int64_t)words[0] == -7);
  for (v = 1; v <= 3; v++)
    CU_ASSERT_EQUAL(qua_call(p, v, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(g, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(g, 0, 0, &v), QUA_OK);
  for (v = 4; v <= 6; v++) /* round the ring's end */
    CU_ASSERT_EQUAL(qua_call(p, v, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(recover_now(q, words, &k, why, sizeof why), QUA_OK);
  CU_ASSERT(k == 4 && words[0] == 3 && words[1] == 4 && words[2] == 5 && words[3] == 6);
  /* The buffer's head put past tail + capacity: refused, saying why. */
  size_t bytes = 0;
  unsigned char *mem = qua_storage(b, &bytes);
  _Alignas(128) unsigned char copy[512]; /* aligned as a storage map is */
  CU_ASSERT_FATAL(bytes <= sizeof copy);
  memcpy(copy, mem, bytes);
  uint64_t head = 1000;
  memcpy(copy + 64, &head, 8); /* buffer_pos_t: head at 64 */
  CU_ASSERT_EQUAL(qua_storage_recover(qua_quaject_type(b), copy, bytes, got, &k, why, sizeof why),
                  QUA_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "positions"));
  CU_ASSERT_EQUAL(qua_storage_recover(qua_quaject_type(b), copy, bytes - 1, got, &k, why,
                                      sizeof why), QUA_EINVAL);
  CU_ASSERT_EQUAL(qua_storage_layout(qua_type_find("tee")), 0);
  qua_site_close(w);
  qua_site_close(r);
  qua_site_close(a);
  qua_site_close(p);
  qua_site_close(g);
  CU_ASSERT_EQUAL(qua_destroy(b, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(unmaps, 3);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"counter_add_and_read", counter_add_and_read},
      {"counter_threshold_fires_once_per_crossing", counter_threshold_fires_once_per_crossing},
      {"counter_pass_counts_and_forwards", counter_pass_counts_and_forwards},
      {"tee_copies_to_every_output", tee_copies_to_every_output},
      {"tee_reports_a_full_output", tee_reports_a_full_output},
      {"buffer_spans_wrap_and_callbacks", buffer_spans_wrap_and_callbacks},
      {"buffer_second_writer_refused", buffer_second_writer_refused},
      {"buffer_at_and_past_its_maximum_capacity", buffer_at_and_past_its_maximum_capacity},
      {"clock_ticks_its_callout", clock_ticks_its_callout},
      {"clock_waits_for_its_wire", clock_waits_for_its_wire},
      {"clock_destroy_while_running", clock_destroy_while_running},
      {"storage_holds_what_recovery_reads", storage_holds_what_recovery_reads},
      {NULL, NULL}};
  return qtest_run("types", cases);
}
