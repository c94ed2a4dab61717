/* test-owner.c -- control follows the creator's identity (peer uid on the unix socket, the token
 * on TCP): others may open and use what is published, only the creator's identity or root may
 * unpublish, close or destroy it, and List shows a connection only what it may open. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

static int unpublish(rawconn_t *c, const char *name, char *msg, size_t len) {
  Qua__V1__UnpublishRequest r = QUA__V1__UNPUBLISH_REQUEST__INIT;
  r.name = (char *)name;
  return call_status(c, QUAP_UNPUBLISH, &r.base, msg, len);
}

static int close_queue(rawconn_t *c, uint64_t h) {
  Qua__V1__CloseRequest r = QUA__V1__CLOSE_REQUEST__INIT;
  r.handle = h;
  return rc_call(c, QUAP_CLOSE, &r.base, NULL);
}

/* The names and ids List shows c: how many, and whether `id` is among them. */
static size_t list_count(rawconn_t *c, uint64_t id, bool *seen) {
  Qua__V1__ListRequest r = QUA__V1__LIST_REQUEST__INIT;
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL(rc_call(c, QUAP_LIST, &r.base, &m), 0);
  Qua__V1__ListReply *l = (Qua__V1__ListReply *)m;
  size_t n = l != NULL ? l->n_quajects : 0;
  *seen = false;
  for (size_t i = 0; i < n; i++)
    *seen |= l->quajects[i]->id == id;
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return n;
}

static uint64_t id_of(rawconn_t *c, uint64_t h) {
  Qua__V1__DescribeRequest r = QUA__V1__DESCRIBE_REQUEST__INIT;
  r.handle = h;
  ProtobufCMessage *m = NULL;
  uint64_t id = 0;
  if (rc_call(c, QUAP_DESCRIBE, &r.base, &m) == 0)
    id = ((Qua__V1__DescribeReply *)m)->quaject->id;
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return id;
}

static void others_use_what_is_published_and_only_the_creator_controls_it(void) {
  char tok[96];
  token_file(tok, sizeof tok, "owner", "owner-token");
  quad_child_t q;
  const char *extra[] = {"--listen", "127.0.0.1:0", "--token-file", tok, NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t u, t, t2;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&u, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&t, q.port), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&t2, q.port), 0);
  CU_ASSERT_EQUAL(hello(&t, "owner-token"), 0);
  CU_ASSERT_EQUAL(hello(&t2, "owner-token"), 0);

  /* The unix peer's published queue and unpublished counter. */
  uint64_t uq = create(&u, "queue", "pub-q", NULL, NULL);
  uint64_t secret = create(&u, "counter", NULL, NULL, NULL);
  CU_ASSERT_FATAL(uq != 0 && secret != 0);
  uint64_t secret_id = id_of(&u, secret);
  bool seen;
  CU_ASSERT_EQUAL(list_count(&t, secret_id, &seen), 1); /* pub-q only */
  CU_ASSERT_FALSE(seen);
  CU_ASSERT_EQUAL(list_count(&u, secret_id, &seen), 2);
  CU_ASSERT_TRUE(seen);

  /* The token's holder opens and uses it, but cannot control it. */
  int st;
  uint64_t tq = open_name(&t, "pub-q", &st);
  CU_ASSERT_EQUAL_FATAL(st, 0);
  CU_ASSERT_EQUAL(invoke(&t, tq, "put", 1, 7, NULL), 0);
  char msg[256];
  CU_ASSERT_EQUAL(unpublish(&t, "pub-q", msg, sizeof msg), QUA_EPERM);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "only that identity or root may unpublish"));
  CU_ASSERT_EQUAL(close_queue(&t, tq), QUA_EPERM);
  CU_ASSERT_EQUAL(destroy(&t, tq, true), QUA_EPERM);
  CU_ASSERT_EQUAL(open_name(&t2, "pub-q", &st) != 0, true); /* still published */

  /* What the token's holder creates, another connection with the token
   * controls; the unix peer only if it is root. */
  uint64_t th = create(&t, "queue", "tok-q", NULL, NULL);
  CU_ASSERT_FATAL(th != 0);
  uint64_t uh = open_name(&u, "tok-q", &st);
  CU_ASSERT_EQUAL(st, 0);
  CU_ASSERT_EQUAL(close_queue(&u, uh), getuid() == 0 ? 0 : QUA_EPERM);
  uint64_t t2h = open_name(&t2, "tok-q", &st);
  CU_ASSERT_EQUAL(destroy(&t2, t2h, true), 0);

  /* The creator controls its own. */
  CU_ASSERT_EQUAL(unpublish(&u, "pub-q", msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(destroy(&u, uq, true), 0);
  rc_close(&t2);
  rc_close(&t);
  rc_close(&u);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
  unlink(tok);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-owner QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"others_use_what_is_published_and_only_the_creator_controls_it",
       others_use_what_is_published_and_only_the_creator_controls_it},
      {NULL, NULL},
  };
  return qtest_run("owner", cases);
}
