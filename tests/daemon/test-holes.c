/* test-holes.c -- quad refuses what a hostile or unlucky client sends: oversized batches,
 * batches whose reply could not be sent, tokens with junk after a NUL, big or slow frames
 * before Hello, and floods of failed Hellos (refused and logged within a budget). */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

/* The daemon's limits, as proto/README.md and quad --help document them. */
enum { BATCH_MAX = 1024, HELLO_FRAME = 4096, HELLO_FAILS = 10, HELLO_LOGGED = 3 };

/* InvokeBatch of n calls of one entry on handle h, each with one argument
 * (or none when nargs is 0). The frame status; the reply in *out. */
static int batch(rawconn_t *c, uint64_t h, const char *entry, int nargs, size_t n,
                 Qua__V1__InvokeBatchReply **out) {
  Qua__V1__InvokeRequest *calls = calloc(n, sizeof *calls);
  Qua__V1__InvokeRequest **ptrs = calloc(n, sizeof *ptrs);
  uint64_t one = 1;
  for (size_t i = 0; i < n; i++) {
    qua__v1__invoke_request__init(&calls[i]);
    calls[i].handle = h;
    calls[i].entry = (char *)entry;
    calls[i].n_args = (size_t)nargs;
    calls[i].args = &one;
    ptrs[i] = &calls[i];
  }
  Qua__V1__InvokeBatchRequest r = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
  r.n_calls = n;
  r.calls = ptrs;
  ProtobufCMessage *m = NULL;
  int st = rc_call(c, QUAP_INVOKE_BATCH, &r.base, &m);
  free(ptrs);
  free(calls);
  if (out != NULL)
    *out = (Qua__V1__InvokeBatchReply *)m;
  else if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return st;
}

static uint64_t call0(rawconn_t *c, uint64_t h, const char *entry) {
  Qua__V1__InvokeReply *rep = NULL;
  int st = invoke(c, h, entry, 0, 0, &rep);
  uint64_t v = st == 0 && rep && rep->status == 0 && rep->has_result ? rep->result : UINT64_MAX;
  if (rep != NULL)
    protobuf_c_message_free_unpacked(&rep->base, NULL);
  return v;
}

/* --- InvokeBatch ------------------------------------------------------------------ */

static void batch_over_the_cap_is_refused_before_any_call(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  uint64_t h = create(&c, "counter", NULL, NULL, NULL);
  CU_ASSERT_EQUAL(batch(&c, h, "add", 1, BATCH_MAX + 1, NULL), QUA_ELIMIT);
  CU_ASSERT_EQUAL(call0(&c, h, "read"), 0); /* nothing ran */
  Qua__V1__InvokeBatchReply *rep = NULL;
  CU_ASSERT_EQUAL(batch(&c, h, "add", 1, BATCH_MAX, &rep), 0);
  CU_ASSERT_EQUAL_FATAL(rep != NULL && rep->n_replies == BATCH_MAX, true);
  CU_ASSERT_EQUAL(rep->replies[BATCH_MAX - 1]->result, BATCH_MAX);
  protobuf_c_message_free_unpacked(&rep->base, NULL);
  CU_ASSERT_EQUAL(call0(&c, h, "read"), BATCH_MAX);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* With --max-frame 1024 a batch of 100 gets could not be answered: it is
 * refused and the queue keeps every item; a batch whose worst reply fits
 * runs. */
static void batch_whose_reply_could_exceed_the_frame_is_refused_unrun(void) {
  quad_child_t q;
  const char *extra[] = {"--max-frame", "1024", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  uint64_t h = create(&c, "queue", NULL, NULL, "capacity=256");
  CU_ASSERT_FATAL(h != 0);
  for (uint64_t i = 1; i <= 100; i++) {
    Qua__V1__InvokeReply *rep = NULL;
    CU_ASSERT_EQUAL(invoke(&c, h, "put", 1, i, &rep), 0);
    CU_ASSERT_EQUAL(rep != NULL ? rep->status : -1, 0);
    if (rep != NULL)
      protobuf_c_message_free_unpacked(&rep->base, NULL);
  }
  CU_ASSERT_EQUAL(batch(&c, h, "get", 0, 100, NULL), QUA_ETOOBIG);
  CU_ASSERT_EQUAL(call0(&c, h, "get"), 1); /* no item was taken */
  Qua__V1__InvokeBatchReply *rep = NULL;
  CU_ASSERT_EQUAL(batch(&c, h, "get", 0, 2, &rep), 0);
  CU_ASSERT_EQUAL_FATAL(rep != NULL && rep->n_replies == 2, true);
  CU_ASSERT_EQUAL(rep->replies[0]->result, 2);
  CU_ASSERT_EQUAL(rep->replies[1]->result, 3);
  protobuf_c_message_free_unpacked(&rep->base, NULL);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* --- TCP before Hello ------------------------------------------------------------- */

static char token_path[96];

static void tcp_quad(quad_child_t *q, const char *timeout_ms) {
  token_file(token_path, sizeof token_path, "holes", "s3cret-token");
  const char *extra[] = {"--listen", "127.0.0.1:0", "--token-file", token_path,
                         "--hello-timeout", timeout_ms, NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(q, quad_exe, extra), 0);
  CU_ASSERT_FATAL(q->port > 0);
}

/* Sends one Hello request frame whose body is given as raw protobuf bytes. */
static uint64_t send_raw_hello(rawconn_t *c, const uint8_t *body, size_t n) {
  Qua__V1__Frame f = QUA__V1__FRAME__INIT;
  f.kind = QUA__V1__FRAME__KIND__REQUEST;
  f.id = c->next_id++;
  f.method = QUAP_HELLO;
  f.body.data = (uint8_t *)body;
  f.body.len = n;
  size_t len = qua__v1__frame__get_packed_size(&f);
  uint8_t *buf = malloc(len + 4);
  buf[0] = (uint8_t)(len >> 24);
  buf[1] = (uint8_t)(len >> 16);
  buf[2] = (uint8_t)(len >> 8);
  buf[3] = (uint8_t)len;
  qua__v1__frame__pack(&f, buf + 4);
  int r = rc_write(c, buf, len + 4);
  free(buf);
  return r == 0 ? f.id : 0;
}

static int response_status(rawconn_t *c, uint64_t id) {
  Qua__V1__Frame *f = rc_response(c, id, 5000);
  if (f == NULL)
    return c->eof ? QUA_ECONN : QUA_ETIMEDOUT;
  int st = f->status;
  quap_frame_free(f);
  return st;
}

static void token_with_a_nul_and_junk_is_refused(void) {
  quad_child_t q;
  tcp_quad(&q, "5000");
  /* HelloRequest { version: 1, token: "s3cret-token" NUL "junk" } */
  static const uint8_t junk[] = {0x08, 0x01, 0x12, 17, 's', '3', 'c', 'r', 'e', 't', '-', 't',
                                 'o',  'k',  'e',  'n', 0,   'j', 'u', 'n', 'k'};
  static const uint8_t good[] = {0x08, 0x01, 0x12, 12,  's', '3', 'c', 'r',
                                 'e',  't',  '-',  't', 'o', 'k', 'e', 'n'};
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  CU_ASSERT_EQUAL(response_status(&c, send_raw_hello(&c, junk, sizeof junk)), QUA_EAUTH);
  CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
  rc_close(&c);
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  CU_ASSERT_EQUAL(response_status(&c, send_raw_hello(&c, good, sizeof good)), 0);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
  unlink(token_path);
}

/* A frame over 4096 bytes before Hello is ETOOBIG and closes; after Hello
 * the connection takes --max-frame. */
static void frame_before_hello_is_small_and_after_it_full_size(void) {
  quad_child_t q;
  tcp_quad(&q, "5000");
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  uint8_t prefix[4] = {0, 0, (HELLO_FRAME + 1) >> 8, (HELLO_FRAME + 1) & 0xff};
  rc_write(&c, prefix, 4);
  Qua__V1__Frame *f = rc_recv(&c, 3000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->status, QUA_ETOOBIG);
  CU_ASSERT_PTR_NOT_NULL(strstr(f->message, "before Hello"));
  quap_frame_free(f);
  CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
  rc_close(&c);
  /* At the limit before Hello, then far over it after. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  char *client = malloc(HELLO_FRAME * 4);
  memset(client, 'x', HELLO_FRAME * 4 - 1);
  client[HELLO_FRAME * 4 - 1] = '\0';
  Qua__V1__HelloRequest h = QUA__V1__HELLO_REQUEST__INIT;
  h.version = QUAP_VERSION;
  h.token = (char *)"s3cret-token";
  h.client = client + HELLO_FRAME * 4 - (HELLO_FRAME - 40); /* about 4,090 bytes framed */
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_HELLO, &h.base, NULL), 0);
  h.client = client;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_HELLO, &h.base, NULL), 0);
  free(client);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
  unlink(token_path);
}

static void tcp_without_hello_is_closed_after_the_timeout(void) {
  quad_child_t q;
  tcp_quad(&q, "300");
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  double t0 = rc_now();
  CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
  CU_ASSERT(rc_now() - t0 >= 0.25);
  rc_close(&c);
  /* One that says Hello in time stays. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  CU_ASSERT_EQUAL(hello(&c, "s3cret-token"), 0);
  usleep(500 * 1000);
  Qua__V1__StatsReply *s = stats(&c);
  CU_ASSERT_PTR_NOT_NULL(s);
  if (s != NULL)
    protobuf_c_message_free_unpacked(&s->base, NULL);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
  unlink(token_path);
}

static int count_lines(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  char line[512];
  int n = 0;
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    n += strstr(line, needle) != NULL;
  if (f != NULL)
    fclose(f);
  return n;
}

/* Past 10 failed Hellos from one address within 10 s, Hellos from it are
 * refused, even with the right token; only 3 failures are logged. The
 * unix socket is not affected. */
static void failed_hellos_are_rate_limited_and_logged_within_a_budget(void) {
  quad_child_t q;
  tcp_quad(&q, "5000");
  witness_t w;
  witness_open(&w, q.sock);
  rawconn_t c;
  for (int i = 0; i < HELLO_FAILS + 20; i++) {
    CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
    CU_ASSERT_EQUAL(hello(&c, "wrong"), i < HELLO_FAILS ? QUA_EAUTH : QUA_ELIMIT);
    rc_close(&c);
  }
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  Qua__V1__HelloRequest h = QUA__V1__HELLO_REQUEST__INIT;
  h.version = QUAP_VERSION;
  h.token = (char *)"s3cret-token";
  uint64_t rid = rc_send(&c, QUAP_HELLO, &h.base);
  Qua__V1__Frame *f = rc_response(&c, rid, 5000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->status, QUA_ELIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(f->message, "failed Hellos from 127.0.0.1"));
  quap_frame_free(f);
  rc_close(&c);
  witness_check(&w);
  rc_close(&w.c);
  CU_ASSERT_EQUAL(count_lines(q.log, "wrong token"), HELLO_LOGGED);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
  unlink(token_path);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-holes QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"batch_over_the_cap_is_refused_before_any_call",
       batch_over_the_cap_is_refused_before_any_call},
      {"batch_whose_reply_could_exceed_the_frame_is_refused_unrun",
       batch_whose_reply_could_exceed_the_frame_is_refused_unrun},
      {"token_with_a_nul_and_junk_is_refused", token_with_a_nul_and_junk_is_refused},
      {"frame_before_hello_is_small_and_after_it_full_size",
       frame_before_hello_is_small_and_after_it_full_size},
      {"tcp_without_hello_is_closed_after_the_timeout",
       tcp_without_hello_is_closed_after_the_timeout},
      {"failed_hellos_are_rate_limited_and_logged_within_a_budget",
       failed_hellos_are_rate_limited_and_logged_within_a_budget},
      {NULL, NULL},
  };
  return qtest_run("holes", cases);
}
