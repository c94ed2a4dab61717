/* test-remote.c -- libquaclient against a real quad: callbacks reaching remote clients, handles, pipelining. */
#include "itest.h"

static itest_daemon_t daemon_;

/* Collects events for the cases. */
typedef struct seen {
  int n;
  quac_event_t ev[64];
  char cb[64][QUAC_NAME_MAX + 1];
} seen_t;

static void collect(void *ctx, quac_conn_t *c, const quac_event_t *ev) {
  seen_t *s = ctx;
  if (s->n < 64) {
    s->ev[s->n] = *ev;
    snprintf(s->cb[s->n], sizeof s->cb[s->n], "%s", ev->callback);
    s->ev[s->n].callback = s->cb[s->n];
  }
  s->n++;
}

/* Polls until `want` events were seen or 5 s passed. */
static void poll_for(quac_conn_t *c, seen_t *s, int want) {
  double end = itest_now() + 5.0;
  while (s->n < want && itest_now() < end)
    CU_ASSERT(quac_poll(c, 100) >= 0);
}

static void remote_full_reaches_putting_client(void) {
  quac_conn_t *a = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL);
  CU_ASSERT_STRING_EQUAL(quac_server_info(a)->server, "quad 0.1.0");
  CU_ASSERT_EQUAL(quac_server_info(a)->version, 1);
  const char *params[] = {"capacity=2"};
  uint64_t q;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "queue", params, 1, NULL, &q, NULL), 0);
  quac_result_t r;
  uint64_t v = 1;
  CU_ASSERT_EQUAL(quac_invoke(a, q, "put", &v, 1, &r), 0);
  CU_ASSERT_EQUAL(r.nfired, 0);
  v = 2;
  CU_ASSERT_EQUAL(quac_invoke(a, q, "put", &v, 1, &r), 0);
  v = 3;
  CU_ASSERT_EQUAL(quac_invoke(a, q, "put", &v, 1, &r), QUA_DIVERTED);
  CU_ASSERT_EQUAL(r.status, QUA_DIVERTED);
  CU_ASSERT_EQUAL_FATAL(r.nfired, 1);
  CU_ASSERT_STRING_EQUAL(r.fired[0].callback, "full");
  CU_ASSERT_EQUAL(r.fired[0].arg, 3);
  /* Bound as a callback, "full" also arrives as an event. */
  seen_t s = {0};
  quac_on_event(a, collect, &s);
  uint64_t b;
  CU_ASSERT_EQUAL(quac_bind_callback(a, q, "full", &b), 0);
  v = 4;
  CU_ASSERT_EQUAL(quac_invoke(a, q, "put", &v, 1, &r), QUA_DIVERTED);
  poll_for(a, &s, 1);
  CU_ASSERT_EQUAL_FATAL(s.n, 1);
  CU_ASSERT_STRING_EQUAL(s.ev[0].callback, "full");
  CU_ASSERT_EQUAL(s.ev[0].arg, 4);
  CU_ASSERT_EQUAL(s.ev[0].binding, b);
  CU_ASSERT_EQUAL(s.ev[0].handle, q);
  CU_ASSERT_EQUAL(s.ev[0].seq, 1);
  /* Unbound: no more events. */
  CU_ASSERT_EQUAL(quac_unbind(a, b), 0);
  CU_ASSERT_EQUAL(quac_invoke(a, q, "put", &v, 1, &r), QUA_DIVERTED);
  CU_ASSERT_EQUAL(quac_poll(a, 100), 0);
  CU_ASSERT_EQUAL(s.n, 1);
  CU_ASSERT(quac_unbind(a, b) < 0);
  quac_close(a);
}

static void notempty_reaches_watcher(void) {
  quac_conn_t *a = itest_connect(&daemon_), *w = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL && w != NULL);
  const char *params[] = {"capacity=8"};
  uint64_t qa;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "queue", params, 1, "ne-q", &qa, NULL), 0);
  quac_opened_t qw;
  CU_ASSERT_EQUAL_FATAL(quac_open(w, "ne-q", &qw), 0);
  CU_ASSERT_STRING_EQUAL(qw.type, "queue");
  seen_t s = {0};
  quac_on_event(w, collect, &s);
  uint64_t b;
  CU_ASSERT_EQUAL_FATAL(quac_bind_callback(w, qw.handle, "notempty", &b), 0);
  uint64_t v = 41;
  CU_ASSERT_EQUAL(quac_invoke(a, qa, "put", &v, 1, NULL), 0);
  v = 42; /* not a transition: no second notempty */
  CU_ASSERT_EQUAL(quac_invoke(a, qa, "put", &v, 1, NULL), 0);
  poll_for(w, &s, 1);
  CU_ASSERT_EQUAL(quac_poll(w, 100), 0);
  CU_ASSERT_EQUAL_FATAL(s.n, 1);
  CU_ASSERT_STRING_EQUAL(s.ev[0].callback, "notempty");
  CU_ASSERT_EQUAL(s.ev[0].handle, qw.handle);
  CU_ASSERT_EQUAL(s.ev[0].binding, b);
  CU_ASSERT_EQUAL(s.ev[0].seq, 1);
  CU_ASSERT_EQUAL(s.ev[0].dropped, 0);
  /* Emptied and filled again: the second transition, seq 2. An event that
   * arrives while the watcher is in a blocking call waits for quac_poll. */
  quac_call_t gets[2] = {{.handle = qa, .entry = "get"}, {.handle = qa, .entry = "get"}};
  quac_result_t res[2];
  CU_ASSERT_EQUAL(quac_invoke_batch(a, gets, 2, res), 0);
  CU_ASSERT_EQUAL(res[0].result, 41);
  CU_ASSERT_EQUAL(res[1].result, 42);
  CU_ASSERT_EQUAL(quac_invoke(a, qa, "put", &v, 1, NULL), 0);
  itest_sleep_ms(50);
  quac_stats_t st;
  CU_ASSERT_EQUAL(quac_stats(w, &st), 0);
  CU_ASSERT_EQUAL(s.n, 1);
  CU_ASSERT_EQUAL(quac_poll(w, 0), 1);
  CU_ASSERT_EQUAL_FATAL(s.n, 2);
  CU_ASSERT_EQUAL(s.ev[1].seq, 2);
  CU_ASSERT_TRUE(st.events_sent >= 1);
  quac_close(w);
  CU_ASSERT_EQUAL(quac_destroy(a, qa, false), 0);
  quac_opened_t gone;
  CU_ASSERT_EQUAL(quac_open(a, "ne-q", &gone), QUA_ENOTFOUND);
  CU_ASSERT_STRING_NOT_EQUAL(quac_last_error(a), "");
  quac_close(a);
}

static void stale_and_foreign_handles_refused(void) {
  quac_conn_t *a = itest_connect(&daemon_), *b = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  uint64_t h;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "counter", NULL, 0, NULL, &h, NULL), 0);
  uint64_t one = 1;
  /* b never got a handle on it. */
  CU_ASSERT_EQUAL(quac_invoke(b, h, "add", &one, 1, NULL), QUA_EHANDLE);
  CU_ASSERT_EQUAL(quac_destroy(b, h, false), QUA_EHANDLE);
  quac_quaject_info_t *qi;
  CU_ASSERT_EQUAL(quac_describe(b, h, NULL, &qi), QUA_EHANDLE);
  CU_ASSERT_EQUAL(quac_invoke(a, h, "add", &one, 1, NULL), 0);
  CU_ASSERT_EQUAL(quac_destroy(a, h, false), 0);
  /* Stale: destroyed. */
  CU_ASSERT_EQUAL(quac_invoke(a, h, "add", &one, 1, NULL), QUA_EHANDLE);
  CU_ASSERT_EQUAL(quac_invoke(a, 987654321, "add", &one, 1, NULL), QUA_EHANDLE);
  CU_ASSERT_EQUAL(quac_wire(a, h, "out", h, "pass"), QUA_EHANDLE);
  /* Both connections carry on. */
  quac_stats_t st;
  CU_ASSERT_EQUAL(quac_stats(a, &st), 0);
  CU_ASSERT_EQUAL(quac_stats(b, &st), 0);
  quac_close(a);
  quac_close(b);
}

static void publish_open_unpublish(void) {
  quac_conn_t *a = itest_connect(&daemon_), *b = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  uint64_t h, id;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "counter", NULL, 0, NULL, &h, &id), 0);
  quac_opened_t o;
  CU_ASSERT_EQUAL(quac_open(b, "pub-c", &o), QUA_ENOTFOUND);
  CU_ASSERT_EQUAL(quac_publish(a, h, "pub-c"), 0);
  CU_ASSERT_EQUAL(quac_publish(a, h, "pub-c"), 0); /* again: nothing changes */
  uint64_t h2;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "counter", NULL, 0, NULL, &h2, NULL), 0);
  CU_ASSERT_EQUAL(quac_publish(a, h2, "pub-c"), QUA_EEXIST);
  CU_ASSERT(strstr(quac_last_error(a), "pub-c") != NULL);
  CU_ASSERT_EQUAL_FATAL(quac_open(b, "pub-c", &o), 0);
  CU_ASSERT_EQUAL(o.id, id);
  CU_ASSERT_STRING_EQUAL(o.type, "counter");
  uint64_t five = 5;
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke(b, o.handle, "add", &five, 1, &r), 0);
  CU_ASSERT_TRUE(r.has_result);
  CU_ASSERT_EQUAL(r.result, 5);
  quac_quaject_info_t *qi;
  CU_ASSERT_EQUAL_FATAL(quac_describe(b, 0, "pub-c", &qi), 0);
  CU_ASSERT_EQUAL(qi->id, id);
  CU_ASSERT_STRING_EQUAL(qi->type, "counter");
  CU_ASSERT_STRING_EQUAL(qi->name, "pub-c");
  CU_ASSERT(strstr(qi->state, "value=5") != NULL);
  CU_ASSERT_EQUAL(qi->nparams, 2);
  quac_free(qi);
  quac_quaject_list_t *l;
  CU_ASSERT_EQUAL_FATAL(quac_list(b, &l), 0);
  bool found = false;
  for (size_t i = 0; i < l->nquajects; i++)
    found = found || (l->quajects[i].id == id && strcmp(l->quajects[i].name, "pub-c") == 0);
  CU_ASSERT_TRUE(found);
  quac_free(l);
  CU_ASSERT_EQUAL(quac_unpublish(a, "pub-c"), 0);
  CU_ASSERT_EQUAL(quac_open(b, "pub-c", &o), QUA_ENOTFOUND);
  CU_ASSERT_EQUAL(quac_unpublish(a, "pub-c"), QUA_ENOTFOUND);
  quac_close(b);
  quac_close(a);
}

static void types_list_matches_the_tables(void) {
  quac_conn_t *a = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL);
  quac_type_list_t *l;
  CU_ASSERT_EQUAL_FATAL(quac_list_types(a, &l), 0);
  const quac_type_info_t *q = quac_type_find(l, "queue");
  CU_ASSERT_FATAL(q != NULL);
  CU_ASSERT_EQUAL(q->nparams, 2);
  CU_ASSERT_STRING_EQUAL(q->params[0].name, "capacity");
  CU_ASSERT_TRUE(q->params[0].pow2);
  bool full = false;
  for (size_t i = 0; i < q->ncallbacks; i++)
    full = full || strcmp(q->callbacks[i].name, "full") == 0;
  CU_ASSERT_TRUE(full);
  CU_ASSERT(quac_type_find(l, "counter") != NULL);
  CU_ASSERT(quac_type_find(l, "nosuch") == NULL);
  quac_free(l);
  quac_close(a);
}

static void pipelined_invokes_all_answered(void) {
  quac_conn_t *a = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL);
  uint64_t h;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "counter", NULL, 0, NULL, &h, NULL), 0);
  enum { N = 2000 };
  static bool seen_value[N + 1];
  memset(seen_value, 0, sizeof seen_value);
  uint32_t window = quac_server_info(a)->max_inflight;
  if (window == 0 || window > 64)
    window = 64;
  uint64_t one = 1, sent = 0, got = 0, id;
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke_recv(a, 0, &id, &r), QUA_ESTATE);
  while (got < N) {
    while (sent < N && sent - got < window) {
      CU_ASSERT_EQUAL_FATAL(quac_invoke_send(a, h, "add", &one, 1, &id), 0);
      sent++;
    }
    CU_ASSERT_EQUAL_FATAL(quac_invoke_recv(a, 5000, &id, &r), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    if (r.result >= 1 && r.result <= N)
      seen_value[r.result] = true;
    got++;
  }
  int missing = 0;
  for (int i = 1; i <= N; i++)
    missing += !seen_value[i];
  CU_ASSERT_EQUAL(missing, 0);
  /* A blocking call between pipelined ones keeps both straight. */
  CU_ASSERT_EQUAL(quac_invoke_send(a, h, "add", &one, 1, &id), 0);
  quac_result_t rr;
  CU_ASSERT_EQUAL(quac_invoke(a, h, "read", NULL, 0, &rr), 0);
  CU_ASSERT_EQUAL(rr.result, N + 1);
  CU_ASSERT_EQUAL(quac_invoke_recv(a, 5000, &id, &r), 0);
  CU_ASSERT_EQUAL(r.result, N + 1);
  /* A refused pipelined request comes back with its status. */
  CU_ASSERT_EQUAL(quac_invoke_send(a, h, "nosuchentry", NULL, 0, &id), 0);
  CU_ASSERT_EQUAL(quac_invoke_recv(a, 5000, &id, &r), 0);
  CU_ASSERT_EQUAL(r.status, QUA_ENOENTRY);
  quac_close(a);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0 || itest_start(&daemon_, (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"remote_full_reaches_putting_client", remote_full_reaches_putting_client},
      {"notempty_reaches_watcher", notempty_reaches_watcher},
      {"stale_and_foreign_handles_refused", stale_and_foreign_handles_refused},
      {"publish_open_unpublish", publish_open_unpublish},
      {"types_list_matches_the_tables", types_list_matches_the_tables},
      {"pipelined_invokes_all_answered", pipelined_invokes_all_answered},
      {NULL, NULL}};
  return itest_run_and_stop(&daemon_, "remote", cases);
}
