/* test-listing.c -- List, Describe and a metrics scrape wait on the worker, not the loop: while
 * another client's control job holds libqua's control lock, the loop answers everyone else. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe; /* quad-faultsim: a Create can hold the control lock */

#define HOLD_MS 1500

/* The metrics port quad printed in its log ("metrics on http://127.0.0.1:PORT"), or 0. */
static int metrics_port(const quad_child_t *q) {
  int port = 0;
  for (double end = rc_now() + 5; port == 0 && rc_now() < end; usleep(10 * 1000)) {
    FILE *f = fopen(q->log, "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
      const char *p = strstr(line, "metrics on http://127.0.0.1:");
      if (p != NULL)
        port = atoi(p + strlen("metrics on http://127.0.0.1:"));
    }
    if (f != NULL)
      fclose(f);
  }
  return port;
}

/* Reads c to its end (quad closes a scrape after the answer), at most 5 s. */
static size_t read_all(rawconn_t *c, char *buf, size_t len) {
  size_t n = 0;
  struct timeval tv = {.tv_sec = 5};
  setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (ssize_t r; n < len - 1 && (r = recv(c->fd, buf + n, len - 1 - n, 0)) > 0;)
    n += (size_t)r;
  buf[n] = '\0';
  return n;
}

/* Before, List, Describe and a scrape took the control lock on the loop:
 * behind a 1.5 s control job, the whole daemon waited with them. */
static void list_and_describe_behind_a_long_control_job_leave_the_loop_free(void) {
  quad_child_t q;
  const char *extra[] = {"--metrics-listen", "127.0.0.1:0", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  int mport = metrics_port(&q);
  CU_ASSERT_FATAL(mport > 0);
  rawconn_t a, b, p, sc;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&p, q.sock), 0);
  uint64_t mine = create(&b, "counter", "listed", NULL, NULL);
  uint64_t ph = create(&p, "counter", NULL, NULL, NULL);
  CU_ASSERT_FATAL(mine != 0 && ph != 0);
  uint64_t v = 0;
  CU_ASSERT_EQUAL(counter_add(&p, ph, 1), 1); /* its site is open: adds stay on the loop */

  double t0 = rc_now();
  send_create(&a, HOLD_ID(HOLD_MS));
  usleep(100 * 1000); /* the worker holds the lock */
  Qua__V1__ListRequest lr = QUA__V1__LIST_REQUEST__INIT;
  uint64_t list_id = rc_send(&b, QUAP_LIST, &lr.base);
  Qua__V1__DescribeRequest dr = QUA__V1__DESCRIBE_REQUEST__INIT;
  dr.name = (char *)"listed";
  uint64_t desc_id = rc_send(&b, QUAP_DESCRIBE, &dr.base);
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&sc, mport), 0);
  static const char get[] = "GET /metrics HTTP/1.0\r\n\r\n";
  CU_ASSERT_EQUAL(rc_write(&sc, get, sizeof get - 1), 0);
  usleep(50 * 1000);
  double worst = adds_worst(&p, ph, 5, &v);
  double adds_done = rc_now() - t0;
  CU_ASSERT_EQUAL(v, 6);

  Qua__V1__Frame *f = rc_response(&b, list_id, 5000);
  double list_done = rc_now() - t0;
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL(quap_response_unpack(f, QUAP_LIST, &m), 0);
  Qua__V1__ListReply *lrep = (Qua__V1__ListReply *)m;
  bool found = false;
  for (size_t i = 0; lrep != NULL && i < lrep->n_quajects; i++)
    found |= strcmp(lrep->quajects[i]->name, "listed") == 0 && lrep->quajects[i]->handle == mine;
  CU_ASSERT(found);
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  quap_frame_free(f);
  f = rc_response(&b, desc_id, 5000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  m = NULL;
  CU_ASSERT_EQUAL(quap_response_unpack(f, QUAP_DESCRIBE, &m), 0);
  Qua__V1__DescribeReply *drep = (Qua__V1__DescribeReply *)m;
  CU_ASSERT(drep != NULL && drep->quaject != NULL && drep->quaject->n_impls > 0 &&
            strstr(drep->quaject->state, "value=") != NULL);
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  quap_frame_free(f);
  static char scrape[1 << 16];
  read_all(&sc, scrape, sizeof scrape);
  double scrape_done = rc_now() - t0;
  CU_ASSERT(strstr(scrape, "200 OK") != NULL);
  CU_ASSERT(strstr(scrape, "name=\"listed\",type=\"counter\",key=\"value\"} 0") != NULL);
  rc_close(&sc);
  f = rc_response(&a, HOLD_ID(HOLD_MS), 5000);
  CU_ASSERT(f != NULL && f->status == 0);
  if (f != NULL)
    quap_frame_free(f);

  fprintf(stderr, "\n  adds beside a List behind a %d ms control job: worst %.1f ms, done at "
          "%.0f ms; the List answered at %.0f ms, the scrape at %.0f ms", HOLD_MS, worst * 1000,
          adds_done * 1000, list_done * 1000, scrape_done * 1000);
  CU_ASSERT(worst < 0.5);                          /* the loop was free */
  CU_ASSERT(adds_done < HOLD_MS / 1000.0 - 0.3);   /* while the job held the lock */
  CU_ASSERT(list_done >= HOLD_MS / 1000.0 - 0.2);  /* the List waited on the worker */
  CU_ASSERT(scrape_done >= HOLD_MS / 1000.0 - 0.2); /* and the scrape's lines too */
  rc_close(&a);
  rc_close(&b);
  rc_close(&p);
  double took;
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, &took), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-listing QUAD-FAULTSIM\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"list_and_describe_behind_a_long_control_job_leave_the_loop_free",
       list_and_describe_behind_a_long_control_job_leave_the_loop_free},
      {NULL, NULL},
  };
  return qtest_run("listing", cases);
}
