/* bench-rpc.c -- quad's RPC against its anchors: a raw TCP echo (latency) and redis-server (pipelined throughput).
 *
 *   bench-rpc QUAD QUA rtt
 *     rpc_call_rtt_us   one client, sequential Invoke of counter.add (unix socket)
 *     tcp_echo_rtt_us   a thread echoing 64-byte messages on 127.0.0.1, same program
 *     rpc_vs_tcp_echo   echo / rpc (goal >= 0.8)
 *   bench-rpc QUAD QUA throughput [REDIS_SERVER REDIS_BENCHMARK]
 *     rpc_calls_per_s       50 connections, 16 pipelined invokes of counter.add in flight each
 *     redis_ping_p16_per_s  redis-benchmark -c 50 -P 16 -t ping on a private port
 *     rpc_vs_redis_p16      rpc / redis (goal >= 1.0)
 *
 * Every figure is the median of RUNS runs; the anchor runs in the same
 * process and the same minute. Exits 77 (skipped) when redis is missing,
 * after printing the RPC figure.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include "itest.h"
#include "qbench.h"
#include "redis-anchor.h"

#define RUNS 5
#define ECHO_SIZE 64

static itest_daemon_t daemon_;

static int die(const char *what) {
  fprintf(stderr, "bench-rpc: %s\n", what);
  itest_stop_all();
  return 1;
}

/* --- Latency: sequential invokes, and the TCP echo anchor ----------------------- */

static int echo_listener = -1;

static void *echo_main(void *arg) {
  (void)arg;
  int fd = accept(echo_listener, NULL, NULL);
  if (fd < 0)
    return NULL;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char buf[ECHO_SIZE];
  for (;;) {
    size_t got = 0;
    while (got < sizeof buf) {
      ssize_t n = read(fd, buf + got, sizeof buf - got);
      if (n <= 0)
        goto out;
      got += (size_t)n;
    }
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
      break;
  }
out:
  close(fd);
  return NULL;
}

/* Round trips of 64 bytes over loopback TCP: median microseconds per trip. */
static double tcp_echo_rtt_us(long n) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof sa;
  echo_listener = socket(AF_INET, SOCK_STREAM, 0);
  if (echo_listener < 0 || bind(echo_listener, (struct sockaddr *)&sa, sizeof sa) < 0 ||
      listen(echo_listener, 1) < 0 || getsockname(echo_listener, (struct sockaddr *)&sa, &len) < 0)
    return -1;
  pthread_t t;
  pthread_create(&t, NULL, echo_main, NULL);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
    return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char buf[ECHO_SIZE];
  memset(buf, 'q', sizeof buf);
  double runs[RUNS];
  for (int r = -1; r < RUNS; r++) { /* run -1 warms up */
    double t0 = itest_now();
    for (long i = 0; i < n; i++) {
      if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
        return -1;
      size_t got = 0;
      while (got < sizeof buf) {
        ssize_t k = read(fd, buf + got, sizeof buf - got);
        if (k <= 0)
          return -1;
        got += (size_t)k;
      }
    }
    if (r >= 0)
      runs[r] = (itest_now() - t0) * 1e6 / (double)n;
  }
  close(fd);
  pthread_join(t, NULL);
  close(echo_listener);
  return qbench_median(runs, RUNS);
}

static double rpc_call_rtt_us(quac_conn_t *c, long n) {
  uint64_t h;
  if (quac_create(c, "counter", NULL, 0, NULL, &h, NULL) < 0)
    return -1;
  double runs[RUNS];
  uint64_t one = 1;
  quac_result_t res;
  for (int r = -1; r < RUNS; r++) {
    double t0 = itest_now();
    for (long i = 0; i < n; i++)
      if (quac_invoke(c, h, "add", &one, 1, &res) < 0)
        return -1;
    if (r >= 0)
      runs[r] = (itest_now() - t0) * 1e6 / (double)n;
  }
  return qbench_median(runs, RUNS);
}

static int bench_rtt(void) {
  long n = qtest_scale(20000, 2000);
  quac_conn_t *c = itest_connect(&daemon_);
  if (c == NULL)
    return die("cannot connect");
  double rpc = rpc_call_rtt_us(c, n);
  quac_close(c);
  double echo = tcp_echo_rtt_us(n);
  if (rpc <= 0 || echo <= 0)
    return die("a run failed");
  printf("BENCH rpc_call_rtt_us %.2f us\n", rpc);
  printf("BENCH tcp_echo_rtt_us %.2f us\n", echo);
  printf("BENCH rpc_vs_tcp_echo %.3f ratio\n", echo / rpc);
  return 0;
}

/* --- Throughput: 50 connections x 16 in flight, and redis-benchmark -P 16 ---------- */

enum { CONNS = 50, DEPTH = 16 };

static double rpc_calls_per_s(double seconds) {
  quac_conn_t *c[CONNS];
  uint64_t h[CONNS];
  struct pollfd pfd[CONNS];
  for (int i = 0; i < CONNS; i++) {
    c[i] = itest_connect(&daemon_);
    if (c[i] == NULL || quac_create(c[i], "counter", NULL, 0, NULL, &h[i], NULL) < 0)
      return -1;
    pfd[i] = (struct pollfd){.fd = quac_fd(c[i]), .events = POLLIN};
  }
  uint64_t one = 1;
  double runs[RUNS];
  for (int r = -1; r < RUNS; r++) {
    for (int i = 0; i < CONNS; i++) {
      for (int k = 0; k < DEPTH; k++)
        if (quac_invoke_send(c[i], h[i], "add", &one, 1, NULL) < 0)
          return -1;
      if (quac_flush(c[i]) < 0)
        return -1;
    }
    long done = 0;
    double t0 = itest_now(), end = t0 + (r < 0 ? 0.3 : seconds);
    bool stopping = false;
    int outstanding = CONNS * DEPTH;
    while (outstanding > 0) {
      if (!stopping && itest_now() >= end)
        stopping = true;
      /* Flushing reads ahead: wait on the sockets only when nothing is queued. */
      bool queued = false;
      for (int i = 0; i < CONNS && !queued; i++)
        queued = quac_pending(c[i]) > 0;
      if (!queued && poll(pfd, CONNS, 1000) < 0)
        return -1;
      for (int i = 0; i < CONNS; i++) {
        if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) && quac_pending(c[i]) == 0)
          continue;
        pfd[i].revents = 0;
        int sent = 0;
        for (;;) {
          quac_result_t res;
          uint64_t id;
          int s = quac_invoke_recv(c[i], 0, &id, &res);
          if (s == QUA_ETIMEDOUT || s == QUA_ESTATE)
            break;
          if (s < 0 || res.status < 0)
            return -1;
          done++;
          outstanding--;
          if (!stopping) {
            if (quac_invoke_send(c[i], h[i], "add", &one, 1, NULL) < 0)
              return -1;
            outstanding++;
            sent++;
          }
        }
        if (sent > 0 && quac_flush(c[i]) < 0)
          return -1;
      }
    }
    if (r >= 0)
      runs[r] = (double)done / (itest_now() - t0);
  }
  for (int i = 0; i < CONNS; i++)
    quac_close(c[i]);
  return qbench_median(runs, RUNS);
}

static int bench_throughput(const char *redis_server, const char *redis_benchmark) {
  double seconds = QTEST_SANITIZED ? 0.5 : 1.0;
  double rpc = rpc_calls_per_s(seconds);
  if (rpc <= 0)
    return die("the rpc run failed");
  printf("BENCH rpc_calls_per_s %.0f calls/s\n", rpc);
  fflush(stdout);
  if (!redis_available(redis_server, redis_benchmark, "bench-rpc"))
    return 77;
  long n = qtest_scale(1000000, 200000);
  static const char *const labels[] = {"PING_MBULK", "PING_INLINE", NULL};
  double redis_rps = redis_bench_median(redis_server, redis_benchmark, daemon_.dir, RUNS, CONNS,
                                        DEPTH, "ping", n, labels);
  if (redis_rps <= 0)
    return die("redis-benchmark gave no figure (or redis-server did not start)");
  printf("BENCH redis_ping_p16_per_s %.0f requests/s\n", redis_rps);
  printf("BENCH rpc_vs_redis_p16 %.3f ratio\n", rpc / redis_rps);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4 || itest_init(argc, argv) < 0) {
    fprintf(stderr, "usage: %s QUAD QUA rtt|throughput [REDIS_SERVER REDIS_BENCHMARK]\n", argv[0]);
    return 2;
  }
  srand((unsigned)getpid() ^ (unsigned)time(NULL));
  if (itest_start(&daemon_, "--log-level", "warn", "--max-quajects-per-client", "64",
                  (char *)NULL) < 0)
    return die("cannot start quad");
  int rc;
  if (strcmp(argv[3], "rtt") == 0)
    rc = bench_rtt();
  else if (strcmp(argv[3], "throughput") == 0)
    rc = bench_throughput(argc > 4 ? argv[4] : NULL, argc > 5 ? argv[5] : NULL);
  else
    rc = die("the mode is rtt or throughput");
  itest_stop(&daemon_);
  return rc;
}
