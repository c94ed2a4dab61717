/* test-edges.c -- quad's limits at and one past their edge: token files, --max-frame (its
 * range, a request exactly at it and one byte over, a reply over it), --max-inflight, the
 * bindings per connection; and a Hello of the wrong version closing a TCP connection. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

/* The documented limits, stated here rather than read from the daemon. */
#define TOKEN_MAX 255 /* bytes of token, after trailing white space is dropped */

/* Starts quad with extra options; the status quad_start returns. */
static int start(quad_child_t *q, const char *const *extra) { return quad_start(q, quad_exe, extra); }

/* True when q's log has a line containing `text`. */
static bool log_has(const quad_child_t *q, const char *text) {
  FILE *f = fopen(q->log, "r");
  char line[512];
  bool found = false;
  while (f != NULL && !found && fgets(line, sizeof line, f) != NULL)
    found = strstr(line, text) != NULL;
  if (f != NULL)
    fclose(f);
  return found;
}

/* Writes `len` bytes of `bytes` to a fresh 0600 token file. */
static void write_token(char *path, size_t size, const char *bytes, size_t len) {
  snprintf(path, size, "/tmp/quad-edges-token-%ld", (long)getpid());
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fwrite(bytes, 1, len, f);
  fclose(f);
  chmod(path, 0600);
}

/* quad started on TCP with the token file; 0 when it runs (then stopped
 * after a Hello with `hello_token`, whose status is in *hello_st), else
 * quad_start's status. The log names the problem in `why` when refused. */
static int start_with_token(const char *bytes, size_t len, const char *hello_token, int *hello_st,
                            const char *why) {
  char path[96];
  write_token(path, sizeof path, bytes, len);
  quad_child_t q;
  const char *extra[] = {"--listen", "127.0.0.1:0", "--token-file", path, NULL};
  int r = start(&q, extra);
  if (r == 0) {
    rawconn_t c;
    CU_ASSERT_EQUAL(rc_connect_tcp(&c, q.port), 0);
    *hello_st = hello(&c, hello_token);
    rc_close(&c);
    CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 10000, NULL), 0);
  } else if (why != NULL) {
    if (!log_has(&q, why))
      fprintf(stderr, "\n  the log does not say \"%s\"\n", why);
    CU_ASSERT(log_has(&q, why));
  }
  if (r != 0)
    quad_discard(&q);
  unlink(path);
  return r;
}

static void token_of_255_bytes_is_the_longest(void) {
  char tok[TOKEN_MAX + 64];
  memset(tok, 'k', sizeof tok);
  int st = -1;
  char hello_tok[TOKEN_MAX + 1];
  memcpy(hello_tok, tok, TOKEN_MAX);
  hello_tok[TOKEN_MAX] = '\0';
  /* 255 bytes and a newline: accepted, and that token lets a client in. */
  char file[TOKEN_MAX + 1];
  memcpy(file, tok, TOKEN_MAX);
  file[TOKEN_MAX] = '\n';
  CU_ASSERT_EQUAL(start_with_token(file, TOKEN_MAX + 1, hello_tok, &st, NULL), 0);
  CU_ASSERT_EQUAL(st, 0);
  /* 256 bytes: refused at start, naming the limit. */
  CU_ASSERT(start_with_token(tok, TOKEN_MAX + 1, hello_tok, &st, "longer than 255 bytes") > 1000);
  /* 255 bytes, white space, then more: the token is longer than 255 bytes
   * even though its first 257 bytes end in white space. */
  char split[TOKEN_MAX + 12];
  memcpy(split, tok, TOKEN_MAX);
  memcpy(split + TOKEN_MAX, "  more-----", 11);
  CU_ASSERT(start_with_token(split, TOKEN_MAX + 11, hello_tok, &st, "longer than 255 bytes") > 1000);
}

static void empty_or_blank_token_file_is_refused(void) {
  int st;
  CU_ASSERT(start_with_token("", 0, "", &st, "is empty") > 1000);
  CU_ASSERT(start_with_token(" \n\t\r\n  ", 7, "", &st, "is empty") > 1000);
}

/* --max-frame takes 64 to 1073741824 bytes. */
static void max_frame_option_range(void) {
  static const struct {
    const char *val;
    bool ok;
  } cases[] = {{"63", false}, {"64", true}, {"1073741824", true}, {"1073741825", false}, {"0", false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    quad_child_t q;
    const char *extra[] = {"--max-frame", cases[i].val, NULL};
    int r = start(&q, extra);
    if ((r == 0) != cases[i].ok)
      fprintf(stderr, "\n  --max-frame %s: quad_start %d\n", cases[i].val, r);
    CU_ASSERT_EQUAL(r == 0, cases[i].ok);
    if (r == 0) {
      CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 10000, NULL), 0);
    } else {
      CU_ASSERT(log_has(&q, "--max-frame") && log_has(&q, "64 to 1073741824"));
      quad_discard(&q);
    }
  }
}

/* An Invoke request whose frame body (after the 4-byte prefix) is exactly
 * `body` bytes: its entry name is padded until it is. */
static void invoke_frame(quap_buf_t *b, uint64_t id, size_t body) {
  static char name[1 << 16];
  Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
  in.handle = 999999;
  for (size_t pad = body > 64 ? body - 64 : 1; pad < sizeof name; pad++) {
    memset(name, 'x', pad);
    name[pad] = '\0';
    in.entry = name;
    b->len = 0;
    quap_request_append(b, id, QUAP_INVOKE, &in.base);
    if (b->len - 4 >= body)
      break;
  }
  CU_ASSERT_EQUAL_FATAL(b->len - 4, body);
}

/* --max-frame 4096: a request of exactly 4096 bytes is read and answered
 * (an unknown handle: an error in a response with its id), the connection
 * stays; one of 4097 is answered ETOOBIG and closes it. */
static void request_at_max_frame_is_read_one_over_closes(void) {
  quad_child_t q;
  const char *extra[] = {"--max-frame", "4096", NULL};
  CU_ASSERT_EQUAL_FATAL(start(&q, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  CU_ASSERT_EQUAL(hello(&c, NULL), 0);
  quap_buf_t b;
  quap_buf_init(&b);
  invoke_frame(&b, 77, 4096);
  CU_ASSERT_EQUAL(rc_write(&c, b.data, b.len), 0);
  Qua__V1__Frame *f = rc_response(&c, 77, 5000);
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f != NULL) {
    CU_ASSERT(f->status != QUA_ETOOBIG && f->status < 0); /* no such handle */
    quap_frame_free(f);
  }
  uint64_t h = create(&c, "counter", NULL, NULL, NULL);
  CU_ASSERT_EQUAL(counter_add(&c, h, 5), 5); /* still served */
  invoke_frame(&b, 78, 4097);
  CU_ASSERT_EQUAL(rc_write(&c, b.data, b.len), 0);
  f = rc_recv(&c, 5000);
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f != NULL) {
    CU_ASSERT_EQUAL(f->status, QUA_ETOOBIG);
    quap_frame_free(f);
  }
  CU_ASSERT_TRUE(rc_closed_within(&c, 5000));
  quap_buf_fini(&b);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 10000, NULL), 0);
}

/* A reply that would be over --max-frame (ListTypes, every type's table,
 * against 1024 bytes) is answered ETOOBIG with a message naming the
 * limit; the connection stays usable. */
static void reply_over_max_frame_is_etoobig(void) {
  quad_child_t q;
  const char *extra[] = {"--max-frame", "1024", NULL};
  CU_ASSERT_EQUAL_FATAL(start(&q, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  Qua__V1__ListTypesRequest lt = QUA__V1__LIST_TYPES_REQUEST__INIT;
  uint64_t id = rc_send(&c, QUAP_LIST_TYPES, &lt.base);
  Qua__V1__Frame *f = rc_response(&c, id, 5000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->status, QUA_ETOOBIG);
  CU_ASSERT(f->message != NULL && strstr(f->message, "over --max-frame") != NULL);
  quap_frame_free(f);
  uint64_t h = create(&c, "counter", NULL, NULL, NULL);
  CU_ASSERT_EQUAL(counter_add(&c, h, 2), 2);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 10000, NULL), 0);
}

/* --max-inflight 4: a client that pipelines requests without reading the
 * responses is held back; quad stops reading it, so the client can write
 * little more than the socket buffers hold (a quad that ignored the limit
 * would read on and queue the responses in its memory). Once the client
 * reads, every request it wrote is answered, in order. */
static void client_not_reading_is_held_at_max_inflight(void) {
  quad_child_t q;
  const char *extra[] = {"--max-inflight", "4", NULL};
  CU_ASSERT_EQUAL_FATAL(start(&q, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  uint64_t h = create(&c, "counter", NULL, NULL, NULL);
  int one = 1;
  setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof one); /* smallest: responses back up */
  quap_buf_t b;
  quap_buf_init(&b);
  uint64_t delta = 1;
  Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
  in.handle = h;
  in.entry = (char *)"add";
  in.n_args = 1;
  in.args = &delta;
  uint64_t first = c.next_id;
  for (int i = 0; i < 1024; i++) /* one batch, written again and again */
    quap_request_append(&b, first + (uint64_t)i, QUAP_INVOKE, &in.base);
  size_t written = 0;
  double end = rc_now() + 3;
  while (written < (64u << 20) && rc_now() < end) {
    size_t off = written % b.len;
    ssize_t w = send(c.fd, b.data + off, b.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      written += (size_t)w;
    } else {
      struct pollfd p = {.fd = c.fd, .events = POLLOUT};
      poll(&p, 1, 50);
    }
  }
  fprintf(stderr, "\n  wrote %zu bytes (%zu requests) before quad stopped reading\n", written,
          written / (b.len / 1024));
  CU_ASSERT(written < (4u << 20));
  /* Read every answer, finishing the last batch as quad reads again. */
  size_t total = (written + b.len - 1) / b.len * b.len;
  uint64_t n = total / b.len * 1024, answered = 0, in_order = 0;
  end = rc_now() + 60;
  while (answered < n && rc_now() < end) {
    if (written < total) {
      ssize_t w = send(c.fd, b.data + written % b.len, total - written, MSG_NOSIGNAL | MSG_DONTWAIT);
      written += w > 0 ? (size_t)w : 0;
    }
    Qua__V1__Frame *f = rc_recv(&c, 10);
    if (f == NULL && c.eof)
      break;
    if (f == NULL)
      continue;
    in_order += f->id == first + answered % 1024 && f->status == 0;
    answered++;
    quap_frame_free(f);
  }
  CU_ASSERT_EQUAL(answered, n);
  CU_ASSERT_EQUAL(in_order, n);
  CU_ASSERT_EQUAL(counter_add(&c, h, 0), n); /* every add ran once */
  quap_buf_fini(&b);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 10000, NULL), 0);
}

/* A connection's bindings are limited by --max-quajects-per-client: at
 * the limit a bind is accepted, one more is refused with ELIMIT; after an
 * unbind there is room again. */
static void bindings_at_and_past_the_limit(void) {
  quad_child_t q;
  const char *extra[] = {"--max-quajects-per-client", "3", NULL};
  CU_ASSERT_EQUAL_FATAL(start(&q, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  uint64_t h = create(&c, "queue", NULL, NULL, NULL);
  CU_ASSERT_FATAL(h != 0);
  static const char *const cbs[] = {"full", "empty", "notfull", "notempty"};
  uint64_t ids[4];
  for (int i = 0; i < 3; i++) {
    ids[i] = bind_to(&c, h, cbs[i], NULL, 0, NULL);
    CU_ASSERT(ids[i] != 0);
  }
  Qua__V1__BindRequest br = QUA__V1__BIND_REQUEST__INIT;
  br.handle = h;
  br.callback = (char *)cbs[3];
  br.callout = (char *)"";
  char msg[256];
  CU_ASSERT_EQUAL(call_status(&c, QUAP_BIND, &br.base, msg, sizeof msg), QUA_ELIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "bindings"));
  Qua__V1__UnbindRequest ub = QUA__V1__UNBIND_REQUEST__INIT;
  ub.binding = ids[0];
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_UNBIND, &ub.base, NULL), 0);
  CU_ASSERT_EQUAL(call_status(&c, QUAP_BIND, &br.base, msg, sizeof msg), 0);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 10000, NULL), 0);
}

/* A Hello asking for another protocol version is answered EVERSION, and
 * the TCP connection is closed: nothing more is read from it. */
static void wrong_version_closes_a_tcp_connection(void) {
  char path[96];
  token_file(path, sizeof path, "edges-v", "v-token");
  quad_child_t q;
  const char *extra[] = {"--listen", "127.0.0.1:0", "--token-file", path, NULL};
  CU_ASSERT_EQUAL_FATAL(start(&q, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  Qua__V1__HelloRequest h = QUA__V1__HELLO_REQUEST__INIT;
  h.version = QUAP_VERSION + 1;
  h.client = (char *)"test-edges";
  h.token = (char *)"v-token";
  char msg[256];
  CU_ASSERT_EQUAL(call_status(&c, QUAP_HELLO, &h.base, msg, sizeof msg), QUA_EVERSION);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "version"));
  /* A right Hello after it is not answered: the connection is closing. */
  h.version = QUAP_VERSION;
  uint64_t id = rc_send(&c, QUAP_HELLO, &h.base);
  Qua__V1__Frame *f = rc_response(&c, id, 2000);
  CU_ASSERT_PTR_NULL(f);
  quap_frame_free(f);
  CU_ASSERT_TRUE(rc_closed_within(&c, 5000));
  rc_close(&c);
  /* The right version on a new connection is served. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  CU_ASSERT_EQUAL(hello(&c, "v-token"), 0);
  rc_close(&c);
  unlink(path);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 10000, NULL), 0);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"token_of_255_bytes_is_the_longest", token_of_255_bytes_is_the_longest},
      {"empty_or_blank_token_file_is_refused", empty_or_blank_token_file_is_refused},
      {"max_frame_option_range", max_frame_option_range},
      {"request_at_max_frame_is_read_one_over_closes", request_at_max_frame_is_read_one_over_closes},
      {"reply_over_max_frame_is_etoobig", reply_over_max_frame_is_etoobig},
      {"client_not_reading_is_held_at_max_inflight", client_not_reading_is_held_at_max_inflight},
      {"bindings_at_and_past_the_limit", bindings_at_and_past_the_limit},
      {"wrong_version_closes_a_tcp_connection", wrong_version_closes_a_tcp_connection},
      {NULL, NULL}};
  return qtest_run("daemon-edges", cases);
}
