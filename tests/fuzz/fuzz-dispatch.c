/* fuzz-dispatch.c -- fuzz harness: requests of every method through quad's sessions and dispatch.
 *
 * The real daemon code (session.c, dispatch.c, events.c, link.c, m68k.c, quad.c) serves one
 * unix socket in a private folder; each input becomes one client connection that sends a
 * pipelined run of requests, shuts its side down and reads until quad closes. Input: records
 * of one method byte (index into service Qua; one past the end is an unknown method), a
 * 2-byte big-endian body length (cut to what is left) and the body; record i is request
 * id i + 1. Whatever the bodies hold, quad must answer every request once, in order, with
 * status 0 or a code of the status table, and close; quajects left published are destroyed
 * between inputs, so inputs are independent.
 *
 * The link type is not registered here: a link connects to the peer its parameters name,
 * and a fuzzer must not make this process connect anywhere. The peer side of links
 * (LinkOpen, LinkPush) is served as in quad.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "quad-internal.h"
#include "quad-m68k.h"
#include "registry.h"

/* quad answers an input within this, or the harness reports a hang. */
#define ANSWER_MS 10000

static quad_server_t srv;
static bool verbose; /* FUZZ_QUAD_LOG set: quad's debug log and every response */
static char dir[64], sock_path[96];

static void cleanup(void) {
  unlink(sock_path);
  rmdir(dir);
}

static void setup(void) {
  quad_srv = &srv;
  quad_reg_init(&srv.reg);
  verbose = getenv("FUZZ_QUAD_LOG") != NULL;
  quad_log_level = verbose ? QUAD_LOG_DEBUG : QUAD_LOG_ERROR;
  quad_config_defaults(&srv.cfg);
  srv.cfg.max_events = 256;
  srv.cfg.max_links = 16;
  /* Small limits keep one input's memory and threads bounded (a queue may take 128 MiB). */
  srv.cfg.max_quajects = 8;
  srv.cfg.max_quajects_total = 16;
  srv.cfg.max_threads = 4;
  srv.cfg.allow_uids[srv.cfg.n_allow_uids++] = (uint32_t)getuid();
  snprintf(dir, sizeof dir, "/tmp/qua-fuzz-XXXXXX");
  CHECK(mkdtemp(dir) != NULL);
  snprintf(sock_path, sizeof sock_path, "%s/quad.sock", dir);
  srv.cfg.socket_path = sock_path;
  atexit(cleanup);
  srv.loop = uv_default_loop();
  srv.start_ms = uv_now(srv.loop);
  CHECK(uv_async_init(srv.loop, &srv.wake, quad_on_wake) == 0);
  CHECK(uv_pipe_init(srv.loop, &srv.unix_listener, 0) == 0);
  CHECK(uv_pipe_bind(&srv.unix_listener, sock_path) == 0);
  CHECK(uv_listen((uv_stream_t *)&srv.unix_listener, 16, quad_on_unix_connection) == 0);
  srv.have_unix = true;
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Turns the records into framed requests in out; returns how many. */
static uint64_t make_requests(const uint8_t *data, size_t size, quap_buf_t *out) {
  unsigned nmethods = qua__v1__qua__descriptor.n_methods;
  uint64_t n = 0;
  size_t i = 0;
  while (i < size) {
    unsigned method = data[i++] % (nmethods + 1);
    size_t len = 0;
    if (i < size)
      len = (size_t)data[i++] << 8;
    if (i < size)
      len |= data[i++];
    if (len > size - i)
      len = size - i;
    Qua__V1__Frame f = QUA__V1__FRAME__INIT;
    f.kind = QUA__V1__FRAME__KIND__REQUEST;
    f.id = ++n;
    f.method = method;
    f.body.data = (uint8_t *)(len ? data + i : NULL);
    f.body.len = len;
    CHECK(quap_frame_append(out, &f) > 0);
    i += len;
  }
  return n;
}

/* Reads quad's frames: responses must come once per request, in order. */
static void take_replies(quap_decoder_t *d, const uint8_t *p, size_t len, uint64_t *answered,
                         uint64_t nreq) {
  while (len > 0) {
    size_t used = 0;
    Qua__V1__Frame *f = NULL;
    int r = quap_decoder_feed(d, p, len, &used, &f);
    CHECK(r >= 0);
    p += used;
    len -= used;
    if (r == 0)
      continue;
    CHECK(f->kind == QUA__V1__FRAME__KIND__RESPONSE || f->kind == QUA__V1__FRAME__KIND__EVENT);
    if (f->kind == QUA__V1__FRAME__KIND__RESPONSE) {
      CHECK(*answered < nreq);
      CHECK(f->id == *answered + 1);
      CHECK(f->status <= 0);
      CHECK(f->status == 0 || strcmp(qua_status_message(f->status), "unknown error") != 0);
      ++*answered;
      if (verbose)
        fprintf(stderr, "fuzz-dispatch: response %llu: %d %s\n", (unsigned long long)f->id,
                f->status, f->message);
    }
    quap_frame_free(f);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (quad_srv == NULL)
    setup();
  quap_buf_t req;
  quap_buf_init(&req);
  uint64_t nreq = make_requests(data, size, &req), answered = 0;

  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  CHECK(fd >= 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock_path);
  CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
  quap_decoder_t dec;
  quap_decoder_init(&dec, (size_t)1 << 30);
  size_t sent = 0;
  bool shut = false, eof = false;
  uint64_t deadline = now_ms() + ANSWER_MS;
  uint8_t buf[65536];
  while (!eof) {
    if (now_ms() > deadline) {
      fprintf(stderr, "fuzz-dispatch: %llu of %llu requests answered after %d ms\n",
              (unsigned long long)answered, (unsigned long long)nreq, ANSWER_MS);
      abort();
    }
    if (sent == req.len && !shut) {
      CHECK(shutdown(fd, SHUT_WR) == 0);
      shut = true;
    }
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN | (shut ? 0 : POLLOUT)},
                          {.fd = uv_backend_fd(srv.loop), .events = POLLIN}};
    int t = uv_backend_timeout(srv.loop);
    poll(p, 2, t < 0 || t > 10 ? 10 : t);
    uv_run(srv.loop, UV_RUN_NOWAIT);
    if (!shut) {
      ssize_t w = send(fd, req.data + sent, req.len - sent, MSG_NOSIGNAL);
      CHECK(w >= 0 || errno == EAGAIN);
      if (w > 0)
        sent += (size_t)w;
    }
    ssize_t r;
    while ((r = recv(fd, buf, sizeof buf, 0)) > 0)
      take_replies(&dec, buf, (size_t)r, &answered, nreq);
    if (r == 0)
      eof = true;
    else
      CHECK(errno == EAGAIN || errno == ECONNRESET);
    if (r < 0 && errno == ECONNRESET)
      eof = true;
  }
  close(fd);
  CHECK(answered == nreq);
  CHECK(!quap_decoder_partial(&dec));
  quap_decoder_fini(&dec);
  quap_buf_fini(&req);
  /* The connection's handles close, and the worker finishes its cleanup
   * (as quad's own exit waits for, before destroying what is left); then
   * what it left published goes. */
  while (srv.nalive > 0 || !quad_jobs_idle()) {
    CHECK(now_ms() <= deadline + ANSWER_MS);
    uv_run(srv.loop, UV_RUN_NOWAIT);
  }
  quad_objs_destroy_all();
  quad_link_shutdown();
  uv_run(srv.loop, UV_RUN_NOWAIT);
  CHECK(LIST_EMPTY(&srv.conns) && srv.nobjs == 0 && srv.nthreads == 0);
  return 0;
}
