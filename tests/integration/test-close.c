/* test-close.c -- the Close method: a remote drainer gets a closed queue's last items, then "closed". */
#include "itest.h"

static itest_daemon_t daemon_;

#define QUA(o, ...) itest_qua((o), &daemon_, __VA_ARGS__, (char *)NULL)
#define HAS(s, sub) (strstr((s), (sub)) != NULL)

/* What a drainer saw of one binding, in order; and a watcher of "closed". */
typedef struct seen {
  uint64_t binding, watch;
  uint64_t items[64];
  size_t nitems;
  size_t closed;            /* "closed" events of the drain binding */
  size_t after_closed;      /* events of the drain binding after its "closed" */
  size_t watched_closed;    /* "closed" events of the watch binding */
  uint64_t last_seq;
  bool seq_gap;
} seen_t;

static void on_event(void *ctx, quac_conn_t *c, const quac_event_t *ev) {
  seen_t *s = ctx;
  if (ev->binding == s->watch) {
    s->watched_closed += strcmp(ev->callback, "closed") == 0;
    return;
  }
  if (ev->binding != s->binding)
    return;
  if (ev->seq != s->last_seq + 1)
    s->seq_gap = true;
  s->last_seq = ev->seq;
  if (s->closed > 0) {
    s->after_closed++;
  } else if (strcmp(ev->callback, "closed") == 0) {
    CU_ASSERT_EQUAL(ev->arg, 0);
    s->closed++;
  } else if (s->nitems < sizeof s->items / sizeof s->items[0]) {
    CU_ASSERT_STRING_EQUAL(ev->callback, "get");
    s->items[s->nitems++] = ev->arg;
  }
}

static int put(quac_conn_t *c, uint64_t h, uint64_t v) {
  quac_result_t r;
  int s = quac_invoke(c, h, "put", &v, 1, &r);
  return s < 0 ? s : r.status;
}

static void remote_drainer_gets_items_then_closed(void) {
  quac_conn_t *p = itest_connect(&daemon_), *d = itest_connect(&daemon_);
  CU_ASSERT_FATAL(p != NULL && d != NULL);
  const char *params[] = {"capacity=8"};
  uint64_t qp;
  CU_ASSERT_EQUAL_FATAL(quac_create(p, "queue", params, 1, "close-q", &qp, NULL), 0);
  quac_opened_t qd;
  CU_ASSERT_EQUAL_FATAL(quac_open(d, "close-q", &qd), 0);
  seen_t s = {0};
  quac_on_event(d, on_event, &s);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callback(d, qd.handle, "closed", &s.watch), 0);
  /* Two credits: items 1 and 2 arrive, 3 waits in the queue. */
  CU_ASSERT_EQUAL(put(p, qp, 1), 0);
  CU_ASSERT_EQUAL(put(p, qp, 2), 0);
  CU_ASSERT_EQUAL(put(p, qp, 3), 0);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callout(d, qd.handle, "get", 2, &s.binding), 0);
  ITEST_POLL_UNTIL(d, s.nitems == 2);
  CU_ASSERT_EQUAL(s.nitems, 2);
  /* The producer puts two more and closes the queue from its own
   * connection; later puts are refused. */
  CU_ASSERT_EQUAL(put(p, qp, 4), 0);
  CU_ASSERT_EQUAL(put(p, qp, 5), 0);
  CU_ASSERT_EQUAL(quac_close_queue(p, qp), 0);
  CU_ASSERT_EQUAL(put(p, qp, 6), QUA_ECLOSED);
  /* Nothing more before credits: the items wait, and so does "closed". */
  ITEST_POLL_UNTIL(d, s.watched_closed == 1);
  CU_ASSERT_EQUAL(s.watched_closed, 1);
  CU_ASSERT_EQUAL(s.nitems, 2);
  CU_ASSERT_EQUAL(s.closed, 0);
  /* Credits: the three items left, in order, then "closed", then nothing. */
  CU_ASSERT_EQUAL(quac_credit(d, s.binding, 100), 0);
  ITEST_POLL_UNTIL(d, s.closed == 1);
  CU_ASSERT_EQUAL(s.closed, 1);
  CU_ASSERT_EQUAL_FATAL(s.nitems, 5);
  for (size_t i = 0; i < 5; i++)
    CU_ASSERT_EQUAL(s.items[i], i + 1);
  CU_ASSERT_EQUAL(s.last_seq, 6);
  CU_ASSERT(!s.seq_gap);
  /* Closing twice is fine, and sends no second "closed". */
  CU_ASSERT_EQUAL(quac_close_queue(p, qp), 0);
  CU_ASSERT_EQUAL(quac_close_queue(d, qd.handle), 0);
  CU_ASSERT_EQUAL(quac_poll(d, 200), 0);
  CU_ASSERT_EQUAL(s.closed, 1);
  CU_ASSERT_EQUAL(s.after_closed, 0);
  CU_ASSERT_EQUAL(s.watched_closed, 1);
  /* The queue is empty and closed: a get fails with ECLOSED. */
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke(p, qp, "get", NULL, 0, &r), QUA_ECLOSED);
  CU_ASSERT_EQUAL(r.status, QUA_ECLOSED);
  CU_ASSERT_EQUAL(quac_destroy(p, qp, true), 0);
  quac_close(d);
  quac_close(p);
}

static void closed_comes_without_credits(void) {
  /* The drainer's credits run out on the last item: "closed" still comes. */
  quac_conn_t *p = itest_connect(&daemon_), *d = itest_connect(&daemon_);
  CU_ASSERT_FATAL(p != NULL && d != NULL);
  uint64_t qp;
  CU_ASSERT_EQUAL_FATAL(quac_create(p, "queue", NULL, 0, "close-nc", &qp, NULL), 0);
  quac_opened_t qd;
  CU_ASSERT_EQUAL_FATAL(quac_open(d, "close-nc", &qd), 0);
  seen_t s = {0};
  s.watch = UINT64_MAX;
  quac_on_event(d, on_event, &s);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callout(d, qd.handle, "get", 3, &s.binding), 0);
  for (uint64_t v = 10; v < 13; v++)
    CU_ASSERT_EQUAL(put(p, qp, v), 0);
  ITEST_POLL_UNTIL(d, s.nitems == 3);
  CU_ASSERT_EQUAL(s.nitems, 3);
  CU_ASSERT_EQUAL(quac_close_queue(p, qp), 0);
  ITEST_POLL_UNTIL(d, s.closed == 1);
  CU_ASSERT_EQUAL(s.closed, 1);
  CU_ASSERT_EQUAL(s.nitems, 3);
  CU_ASSERT_EQUAL(s.items[2], 12);
  /* A queue closed while items remain and no credits: "closed" waits
   * for the items, which wait for credits. */
  uint64_t q2;
  CU_ASSERT_EQUAL_FATAL(quac_create(p, "queue", NULL, 0, "close-nc2", &q2, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_open(d, "close-nc2", &qd), 0);
  seen_t s2 = {0};
  s2.watch = UINT64_MAX;
  quac_on_event(d, on_event, &s2);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callout(d, qd.handle, "get", 0, &s2.binding), 0);
  CU_ASSERT_EQUAL(put(p, q2, 7), 0);
  CU_ASSERT_EQUAL(quac_close_queue(p, q2), 0);
  CU_ASSERT_EQUAL(quac_poll(d, 200), 0);
  CU_ASSERT_EQUAL(s2.closed, 0);
  CU_ASSERT_EQUAL(quac_credit(d, s2.binding, 1), 0);
  ITEST_POLL_UNTIL(d, s2.closed == 1);
  CU_ASSERT_EQUAL(s2.nitems, 1);
  CU_ASSERT_EQUAL(s2.items[0], 7);
  CU_ASSERT_EQUAL(s2.closed, 1);
  quac_close(d);
  quac_close(p);
}

static void close_refuses_what_is_not_a_queue(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t h;
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", NULL, 0, NULL, &h, NULL), 0);
  CU_ASSERT_EQUAL(quac_close_queue(c, h), QUA_EINVAL);
  CU_ASSERT(HAS(quac_last_error(c), "counter"));
  CU_ASSERT(HAS(quac_last_error(c), "only a queue"));
  /* The counter still works. */
  uint64_t one = 1;
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke(c, h, "add", &one, 1, &r), 0);
  CU_ASSERT_EQUAL(quac_close_queue(c, 9999), QUA_EHANDLE);
  quac_close(c);
}

static void cli_close_ends_drain(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "help", "close"), 0);
  CU_ASSERT(HAS(o.out, "qua [OPTIONS] close NAME"));
  CU_ASSERT(HAS(o.out, "(closed)"));
  CU_ASSERT_EQUAL(QUA(&o, "--help"), 0);
  CU_ASSERT(HAS(o.out, "close NAME"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "cli-cq", "capacity=4"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "put", "cli-cq", "1", "2", "3"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "close", "cli-cq"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "closed cli-cq\n");
  CU_ASSERT_EQUAL(QUA(&o, "close", "cli-cq"), 0); /* twice: fine */
  CU_ASSERT_EQUAL(QUA(&o, "put", "cli-cq", "4"), 1);
  CU_ASSERT(HAS(o.err, "ECLOSED"));
  /* A drain of the closed queue prints what is left, then "(closed)", and
   * ends by itself. */
  CU_ASSERT_EQUAL(QUA(&o, "drain", "cli-cq"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "1\n2\n3\n(closed)\n");
  CU_ASSERT_EQUAL(QUA(&o, "--json", "drain", "cli-cq"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "{\"name\":\"cli-cq\",\"callback\":\"closed\"}\n");
  /* Not a queue: refused, the status named. */
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "cli-cc"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "close", "cli-cc"), 1);
  CU_ASSERT(HAS(o.err, "EINVAL"));
  CU_ASSERT(HAS(o.err, "only a queue"));
  CU_ASSERT_EQUAL(QUA(&o, "close", "nosuch"), 1);
  CU_ASSERT(HAS(o.err, "ENOTFOUND"));
  CU_ASSERT_EQUAL(QUA(&o, "close"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "cli-cq", "cli-cc"), 0);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 2;
  if (itest_start(&daemon_, (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"remote_drainer_gets_items_then_closed", remote_drainer_gets_items_then_closed},
      {"closed_comes_without_credits", closed_comes_without_credits},
      {"close_refuses_what_is_not_a_queue", close_refuses_what_is_not_a_queue},
      {"cli_close_ends_drain", cli_close_ends_drain},
      {NULL, NULL},
  };
  return itest_run_and_stop(&daemon_, "integration-close", cases);
}
