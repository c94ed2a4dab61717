/* test-lifecycle.c -- clients that die mid-stream are cleaned up; quad stops gracefully on SIGTERM. */
#include "itest.h"

static quac_stats_t stats_of(quac_conn_t *c) {
  quac_stats_t s = {0};
  CU_ASSERT_EQUAL(quac_stats(c, &s), 0);
  return s;
}

/* The child: creates two unpublished quajects and a published queue, binds
 * a callback and drains the queue, says "ready" on the pipe, then drains
 * slowly until it is killed. */
static void doomed_client(const itest_daemon_t *d, int ready_fd) {
  quac_conn_t *c = NULL;
  if (quac_connect_unix(d->sock, "doomed", &c) < 0)
    _exit(2);
  uint64_t h1, h2, q, b1, b2;
  const char *params[] = {"capacity=64"};
  if (quac_create(c, "counter", NULL, 0, NULL, &h1, NULL) < 0 ||
      quac_create(c, "queue", params, 1, NULL, &h2, NULL) < 0 ||
      quac_create(c, "queue", params, 1, "doomed-q", &q, NULL) < 0 ||
      quac_bind_callback(c, h1, "threshold", &b1) < 0 ||
      quac_bind_callout(c, q, "get", 1, &b2) < 0)
    _exit(3);
  if (write(ready_fd, "r", 1) != 1)
    _exit(4);
  for (;;) {
    if (quac_poll(c, 10) < 0)
      _exit(5);
    itest_sleep_ms(20);
    quac_credit(c, b2, 1);
  }
}

static void killed_client_is_cleaned_up(void) {
  itest_daemon_t d;
  CU_ASSERT_EQUAL_FATAL(itest_start(&d, (char *)NULL), 0);
  quac_conn_t *c = itest_connect(&d);
  CU_ASSERT_FATAL(c != NULL);
  quac_stats_t s0 = stats_of(c);
  int p[2];
  CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
  pid_t child = fork();
  if (child == 0) {
    close(p[0]);
    doomed_client(&d, p[1]);
  }
  close(p[1]);
  char ch;
  CU_ASSERT_EQUAL_FATAL(read(p[0], &ch, 1), 1);
  close(p[0]);
  quac_stats_t s1 = stats_of(c);
  CU_ASSERT_EQUAL(s1.quajects, s0.quajects + 3);
  CU_ASSERT_EQUAL(s1.connections, s0.connections + 1);
  /* Mid-stream: items flowing to the child when it dies. */
  quac_opened_t q;
  CU_ASSERT_EQUAL_FATAL(quac_open(c, "doomed-q", &q), 0);
  for (uint64_t v = 0; v < 32; v++)
    CU_ASSERT_EQUAL(quac_invoke(c, q.handle, "put", &v, 1, NULL), 0);
  itest_sleep_ms(50);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  /* The daemon notices the close, unbinds the drain and destroys the two
   * unpublished quajects; the published queue stays, and nobody drains it. */
  double end = itest_now() + 5.0;
  quac_stats_t s2 = stats_of(c);
  while ((s2.quajects != s0.quajects + 1 || s2.connections != s0.connections) && itest_now() < end) {
    itest_sleep_ms(10);
    s2 = stats_of(c);
  }
  CU_ASSERT_EQUAL(s2.quajects, s0.quajects + 1);
  CU_ASSERT_EQUAL(s2.connections, s0.connections);
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke(c, q.handle, "count", NULL, 0, &r), 0);
  uint64_t left = r.result;
  CU_ASSERT_TRUE(left > 0 && left < 32);
  uint64_t v = 99;
  CU_ASSERT_EQUAL(quac_invoke(c, q.handle, "put", &v, 1, NULL), 0);
  itest_sleep_ms(50);
  CU_ASSERT_EQUAL(quac_invoke(c, q.handle, "count", NULL, 0, &r), 0);
  CU_ASSERT_EQUAL(r.result, left + 1);
  /* `qua ls` shows only the published one. */
  itest_out_t o;
  CU_ASSERT_EQUAL(itest_qua(&o, &d, "ls", (char *)NULL), 0);
  CU_ASSERT(strstr(o.out, "doomed-q") != NULL);
  int rows = 0;
  for (const char *s = o.out; *s; s++)
    rows += *s == '\n';
  CU_ASSERT_EQUAL(rows, 2); /* the header and doomed-q */
  quac_close(c);
  int st = itest_stop(&d);
  CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void sigterm_with_client_connected_exits_0_within_5s(void) {
  itest_daemon_t d;
  CU_ASSERT_EQUAL_FATAL(itest_start(&d, (char *)NULL), 0);
  quac_conn_t *c = itest_connect(&d), *w = itest_connect(&d);
  CU_ASSERT_FATAL(c != NULL && w != NULL);
  const char *params[] = {"capacity=4"};
  uint64_t h, wb;
  CU_ASSERT_EQUAL(quac_create(c, "queue", params, 1, "term-q", &h, NULL), 0);
  quac_opened_t wq;
  CU_ASSERT_EQUAL(quac_open(w, "term-q", &wq), 0);
  CU_ASSERT_EQUAL(quac_bind_callback(w, wq.handle, "notempty", &wb), 0);
  /* Requests in flight when the signal comes are answered or refused, never
   * lost: each of the 16 ids comes back exactly once, either answered (the
   * empty queue's count, 0) or refused as QUA_ESHUTDOWN. */
  enum { N_INFLIGHT = 16 };
  uint64_t one = 1, sent[N_INFLIGHT];
  bool back[N_INFLIGHT] = {false};
  for (int i = 0; i < N_INFLIGHT; i++)
    CU_ASSERT_EQUAL(quac_invoke_send(c, h, "count", NULL, 0, &sent[i]), 0);
  CU_ASSERT_EQUAL(quac_flush(c), 0);
  double t0 = itest_now();
  pid_t pid = d.pid;
  kill(pid, SIGTERM);
  int answered = 0, refused = 0;
  for (int i = 0; i < N_INFLIGHT; i++) {
    quac_result_t r;
    uint64_t id = 0;
    int s = quac_invoke_recv(c, 5000, &id, &r);
    if (s != 0) {
      fprintf(stderr, "sigterm: request %d of %d lost: %s\n", i + 1, N_INFLIGHT, quac_strerror(s));
      CU_FAIL("an in-flight request was lost on SIGTERM");
      break;
    }
    int k = 0;
    while (k < N_INFLIGHT && sent[k] != id)
      k++;
    CU_ASSERT_FATAL(k < N_INFLIGHT); /* an id we sent */
    CU_ASSERT_FALSE(back[k]);        /* and only once */
    back[k] = true;
    if (r.status == 0) {
      CU_ASSERT_EQUAL(r.result, 0);
      answered++;
    } else {
      CU_ASSERT_EQUAL(r.status, QUA_ESHUTDOWN);
      refused++;
    }
  }
  CU_ASSERT_EQUAL(answered + refused, N_INFLIGHT);
  int st = itest_wait(pid, 5.0);
  double took = itest_now() - t0;
  fprintf(stderr, "sigterm: %d of %d answered, %d refused, exit after %.3f s\n", answered,
          N_INFLIGHT, refused, took);
  CU_ASSERT_TRUE(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  CU_ASSERT_TRUE(took < 5.0);
  if (st >= 0)
    d.pid = 0;
  /* The clients see the daemon go: ECONN (or ESHUTDOWN), never a hang. */
  int s = quac_invoke(c, h, "put", &one, 1, NULL);
  CU_ASSERT(s == QUA_ECONN || s == QUA_ESHUTDOWN);
  CU_ASSERT(quac_poll(w, 1000) == QUA_ECONN || quac_poll(w, 1000) == QUA_ECONN);
  itest_out_t o;
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--socket", d.sock, "ping", (char *)NULL), 3);
  quac_close(c);
  quac_close(w);
  itest_stop(&d);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"killed_client_is_cleaned_up", killed_client_is_cleaned_up},
      {"sigterm_with_client_connected_exits_0_within_5s",
       sigterm_with_client_connected_exits_0_within_5s},
      {NULL, NULL}};
  return qtest_run("lifecycle", cases);
}
