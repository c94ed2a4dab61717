/* test-limits.c -- daemon-wide limits: quajects in all, quajects with threads of their own,
 * and List paged to what fits in a frame; each at and past its edge. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

static int create_status(rawconn_t *c, const char *type, char *msg, size_t len) {
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  r.type = (char *)type;
  r.name = (char *)"";
  return call_status(c, QUAP_CREATE, &r.base, msg, len);
}

/* A quad started with opt=val, and two connections to it. */
static void start_two(quad_child_t *q, const char *opt, const char *val, rawconn_t *a,
                      rawconn_t *b) {
  const char *extra[] = {opt, val, NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(q, quad_exe, extra), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(a, q->sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(b, q->sock), 0);
}

/* --max-quajects counts every connection's quajects. */
static void quajects_past_the_daemon_limit_are_refused(void) {
  quad_child_t q;
  rawconn_t a, b;
  start_two(&q, "--max-quajects", "3", &a, &b);
  char msg[256];
  CU_ASSERT_EQUAL(create_status(&a, "counter", msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(create_status(&a, "counter", msg, sizeof msg), 0);
  uint64_t h = create(&b, "counter", NULL, NULL, NULL);
  CU_ASSERT(h != 0); /* the third: at the limit */
  CU_ASSERT_EQUAL(create_status(&a, "counter", msg, sizeof msg), QUA_ELIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--max-quajects"));
  CU_ASSERT_EQUAL(destroy(&b, h, true), 0);
  CU_ASSERT_EQUAL(create_status(&a, "counter", msg, sizeof msg), 0);
  rc_close(&a);
  rc_close(&b);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

static void threads_past_the_daemon_limit_are_refused(void) {
  quad_child_t q;
  rawconn_t a, b;
  start_two(&q, "--max-threads", "2", &a, &b);
  char msg[256];
  CU_ASSERT_EQUAL(create_status(&a, "pump", msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(create_status(&b, "clock", msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(create_status(&a, "pump", msg, sizeof msg), QUA_ELIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--max-threads"));
  CU_ASSERT_EQUAL(create_status(&a, "counter", msg, sizeof msg), 0); /* no thread: fine */
  rc_close(&b); /* its clock goes, and with it a thread */
  usleep(200 * 1000);
  CU_ASSERT_EQUAL(create_status(&a, "clock", msg, sizeof msg), 0);
  rc_close(&a);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* 40 published quajects with --max-frame 2048: List comes in pages, each
 * within the frame, together all 40 once, in id order. */
static void list_is_paged_to_fit_the_frame(void) {
  quad_child_t q;
  const char *extra[] = {"--max-frame", "2048", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  for (int i = 0; i < 40; i++) {
    char name[32];
    snprintf(name, sizeof name, "page-%02d", i);
    CU_ASSERT(create(&c, "counter", name, NULL, NULL) != 0);
  }
  uint64_t after = 0;
  int total = 0, pages = 0;
  bool more = true;
  while (more && pages < 100) {
    Qua__V1__ListRequest r = QUA__V1__LIST_REQUEST__INIT;
    r.after_id = after;
    ProtobufCMessage *m = NULL;
    CU_ASSERT_EQUAL_FATAL(rc_call(&c, QUAP_LIST, &r.base, &m), 0);
    Qua__V1__ListReply *l = (Qua__V1__ListReply *)m;
    CU_ASSERT(l->n_quajects > 0);
    for (size_t i = 0; i < l->n_quajects; i++) {
      CU_ASSERT(l->quajects[i]->id > after);
      after = l->quajects[i]->id;
    }
    total += (int)l->n_quajects;
    more = l->more;
    pages++;
    protobuf_c_message_free_unpacked(m, NULL);
  }
  CU_ASSERT_EQUAL(total, 40);
  CU_ASSERT(pages > 1);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-limits QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"quajects_past_the_daemon_limit_are_refused", quajects_past_the_daemon_limit_are_refused},
      {"threads_past_the_daemon_limit_are_refused", threads_past_the_daemon_limit_are_refused},
      {"list_is_paged_to_fit_the_frame", list_is_paged_to_fit_the_frame},
      {NULL, NULL},
  };
  return qtest_run("limits", cases);
}
