/* test-sigterm.c -- SIGTERM ends quad within 5 s with exit status 0 whatever runs: 1,024
 * ticking clocks, 512 pumps, connections flooding it with pipelined requests. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

/* Creates n quajects of `type` on c, pipelined; returns how many succeeded. */
static int create_many(rawconn_t *c, const char *type, const char *param, int n) {
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  char *params[1] = {(char *)param};
  r.type = (char *)type;
  r.name = (char *)"";
  r.n_params = param != NULL;
  r.params = params;
  quap_buf_t b;
  quap_buf_init(&b);
  uint64_t first = c->next_id;
  for (int i = 0; i < n; i++)
    quap_request_append(&b, c->next_id++, QUAP_CREATE, &r.base);
  CU_ASSERT_EQUAL(rc_write(c, b.data, b.len), 0);
  quap_buf_fini(&b);
  int ok = 0;
  for (uint64_t id = first; id < first + (uint64_t)n; id++) {
    Qua__V1__Frame *f = rc_response(c, id, 20000);
    if (f == NULL)
      break;
    ok += f->status == 0;
    quap_frame_free(f);
  }
  return ok;
}

/* SIGTERM; quad must be gone within 5 s with status 0. */
static void stop_within_5_s(quad_child_t *q, const char *what) {
  double took = 0;
  int st = quad_stop(q, SIGTERM, 5000, &took);
  fprintf(stderr, "\n  %s: exit %d %.3f s after SIGTERM", what, st, took);
  CU_ASSERT_EQUAL(st, 0);
  CU_ASSERT(took < 5.0);
}

/* n quajects of a type that runs a thread each, then SIGTERM. */
static void sigterm_under_threads(const char *type, const char *param, int n) {
  quad_child_t q;
  const char *extra[] = {"--log-level", "info", "--max-threads", "10000",
                         "--max-quajects-per-client", "10000", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  double t0 = rc_now();
  CU_ASSERT_EQUAL(create_many(&c, type, param, n), n);
  char what[64];
  snprintf(what, sizeof what, "%d %ss (made in %.3f s)", n, type, rc_now() - t0);
  stop_within_5_s(&q, what);
  rc_close(&c);
}

/* Before, the loop sat in pthread_join inside qua_destroy and the exit
 * deadline never fired. */
static void sigterm_under_1024_clocks_exits_within_5_s(void) {
  sigterm_under_threads("clock", "period_us=1000", 1024);
}

/* Before, 8,192 pumps took 6.0 s: their destroys ran on the loop. */
static void sigterm_under_8192_pumps_exits_within_5_s(void) {
  sigterm_under_threads("pump", NULL, 8192);
}

/* A connection that writes pipelined adds as fast as it can and never
 * reads, until the daemon goes. */
typedef struct flooder {
  rawconn_t c;
  pthread_t t;
  uint64_t handle;
  _Atomic bool stop;
  uint64_t bytes;
} flooder_t;

static void *flood(void *arg) {
  flooder_t *f = arg;
  uint64_t one = 1;
  Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
  in.handle = f->handle;
  in.entry = (char *)"add";
  in.n_args = 1;
  in.args = &one;
  quap_buf_t b;
  quap_buf_init(&b);
  for (int i = 0; i < 2000; i++)
    quap_request_append(&b, 1000 + (uint64_t)i, QUAP_INVOKE, &in.base);
  while (!atomic_load(&f->stop) && rc_write(&f->c, b.data, b.len) == 0)
    f->bytes += b.len;
  quap_buf_fini(&b);
  return NULL;
}

static void sigterm_under_a_pipelined_flood_exits_within_5_s(void) {
  quad_child_t q;
  const char *extra[] = {"--log-level", "info", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  enum { N = 8 };
  static flooder_t f[N];
  for (int i = 0; i < N; i++) {
    CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&f[i].c, q.sock), 0);
    f[i].handle = create(&f[i].c, "counter", NULL, NULL, NULL);
    atomic_store(&f[i].stop, false);
    f[i].bytes = 0;
    pthread_create(&f[i].t, NULL, flood, &f[i]);
  }
  usleep(300 * 1000);
  stop_within_5_s(&q, "pipelined flood");
  for (int i = 0; i < N; i++) {
    atomic_store(&f[i].stop, true);
    shutdown(f[i].c.fd, SHUT_RDWR);
    pthread_join(f[i].t, NULL);
    rc_close(&f[i].c);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-sigterm QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"sigterm_under_1024_clocks_exits_within_5_s", sigterm_under_1024_clocks_exits_within_5_s},
      {"sigterm_under_8192_pumps_exits_within_5_s", sigterm_under_8192_pumps_exits_within_5_s},
      {"sigterm_under_a_pipelined_flood_exits_within_5_s",
       sigterm_under_a_pipelined_flood_exits_within_5_s},
      {NULL, NULL},
  };
  return qtest_run("sigterm", cases);
}
