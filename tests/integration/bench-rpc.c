/* bench-rpc.c -- quad's RPC against a raw TCP echo and redis-server, each pair on the same transport with the same pipelining.
 *
 *   bench-rpc QUAD QUA rtt
 *     one call at a time (lock-step), counter.add 1 on a counter of quad:
 *     rpc_tcp_rtt_us        quad over TCP (127.0.0.1, with its token)
 *     tcp_echo_rtt_us       64-byte messages echoed over TCP by a process of its own, as
 *                           quad is, with no protocol at all and no event loop (a blocking
 *                           read, then a write): the transport's floor between two processes
 *     tcp_echo_thread_rtt_us the same echo served by a thread of this program: no switch of
 *                           address space between client and server, which quad, a daemon,
 *                           cannot have (shown beside the anchor, not the goal's anchor)
 *     rpc_call_rtt_us       quad over its unix socket
 *     rpc_tcp_vs_tcp_echo   echo time / rpc time, both TCP (goal >= 0.8)
 *     rpc_tcp_vs_tcp_echo_thread  the same against the echo thread
 *     All use one client discipline: lock-step, one write and one blocking read per trip.
 *   bench-rpc QUAD QUA throughput REDIS_SERVER
 *     CONNS connections, each a sliding window of WINDOW requests in flight (a reply received
 *     sends the next), on both sides: counter.add 1 on quad, INCR on redis (one key per
 *     connection); the replies are checked in order (each the previous value + 1):
 *     rpc_tcp_calls_per_s / redis_incr_tcp_per_s / rpc_vs_redis_same_transport (TCP, goal >= 1.0)
 *     rpc_unix_calls_per_s / redis_incr_unix_per_s / rpc_vs_redis_unix (redis `unixsocket`)
 *
 * Every figure is the median of RUNS runs of SECONDS each; the sides alternate run by run in
 * one process, against one quad and one redis-server started here. A wrong reply ends the
 * program with status 1; QUA_BENCH_SECONDS overrides SECONDS (2). Without redis the throughput mode prints the quad figures, then
 * `BENCH rpc_vs_redis_same_transport skipped <why>` and exits 77.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "itest.h"
#include "qbench.h"
#include "redis-anchor.h"

#define RUNS 5
#define ECHO_SIZE 64
#define TOKEN "bench-rpc-token"
enum { CONNS = 16, WINDOW = 16 };

static itest_daemon_t daemon_;
static unsigned quad_port;
static double seconds = 2.0; /* SECONDS */

static int die(const char *what) {
  fprintf(stderr, "bench-rpc: %s\n", what);
  itest_stop_all();
  return 1;
}

static void stats_line(const char *name, double *v, int n) {
  qbench_median(v, n); /* sorts */
  printf("# %s min %.2f max %.2f (%d interleaved runs of %.1f s)\n", name, v[0], v[n - 1], n,
         seconds);
}

/* --- Connections --------------------------------------------------------------- */

static int tcp_connect(unsigned port) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static int unix_connect(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  return fd;
}

/* quad over TCP with the token, or over its unix socket. */
static quac_conn_t *quad_connect(bool tcp) {
  quac_conn_t *c = NULL;
  int r = tcp ? quac_connect_tcp("127.0.0.1", quad_port, TOKEN, "bench-rpc", &c)
              : quac_connect_unix(daemon_.sock, "bench-rpc", &c);
  if (r < 0)
    fprintf(stderr, "bench-rpc: connect: %s\n", quac_err_name(r));
  return c;
}

/* --- Lock-step round trips ------------------------------------------------------ */

/* A listener on 127.0.0.1 (its port in *port), or -1. */
static int echo_listen(unsigned *port) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof sa;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1) < 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  *port = ntohs(sa.sin_port);
  return fd;
}

/* Accepts one connection on listener and echoes its 64-byte messages until it ends: a
 * blocking read of the whole message, then one write. Only system calls, so that a child
 * forked from this (threaded) program may run it. */
static void echo_serve(int listener) {
  int fd = accept(listener, NULL, NULL);
  close(listener);
  if (fd < 0)
    return;
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
}

static void *echo_thread_main(void *arg) {
  echo_serve((int)(intptr_t)arg);
  return NULL;
}

/* One run of 64-byte round trips on fd for `seconds`: microseconds per trip, or -1. */
static double echo_run(int fd) {
  char buf[ECHO_SIZE];
  memset(buf, 'q', sizeof buf);
  long n = 0;
  double t0 = itest_now(), end = t0 + seconds, t;
  do {
    for (int k = 0; k < 64; k++, n++) {
      if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
        return -1;
      size_t got = 0;
      while (got < sizeof buf) {
        ssize_t r = read(fd, buf + got, sizeof buf - got);
        if (r <= 0)
          return -1;
        got += (size_t)r;
      }
    }
  } while ((t = itest_now()) < end);
  return (t - t0) * 1e6 / (double)n;
}

/* One run of sequential counter.add 1 for `seconds`, each result checked (*value is the
 * counter's value before): microseconds per call, or -1. */
static double rpc_rtt_run(quac_conn_t *c, uint64_t h, uint64_t *value) {
  uint64_t one = 1;
  quac_result_t res;
  long n = 0;
  double t0 = itest_now(), end = t0 + seconds, t;
  do {
    for (int k = 0; k < 64; k++, n++) {
      if (quac_invoke(c, h, "add", &one, 1, &res) < 0 || !res.has_result ||
          res.result != ++*value)
        return -1;
    }
  } while ((t = itest_now()) < end);
  return (t - t0) * 1e6 / (double)n;
}

static int bench_rtt(void) {
  /* The echo process (forked before the echo thread starts), then the echo thread. */
  unsigned pport, tport;
  int pl = echo_listen(&pport), tl = echo_listen(&tport);
  if (pl < 0 || tl < 0)
    return die("cannot listen for the echo");
  pid_t echo_pid = fork();
  if (echo_pid < 0)
    return die("cannot fork the echo process");
  if (echo_pid == 0) {
    close(tl);
    echo_serve(pl);
    _exit(0);
  }
  close(pl);
  pthread_t t;
  if (pthread_create(&t, NULL, echo_thread_main, (void *)(intptr_t)tl) != 0)
    return die("cannot start the echo thread");
  int efd = tcp_connect(pport), tfd = tcp_connect(tport);
  quac_conn_t *ct = quad_connect(true), *cu = quad_connect(false);
  uint64_t ht, hu, vt = 0, vu = 0;
  if (efd < 0 || tfd < 0 || ct == NULL || cu == NULL ||
      quac_create(ct, "counter", NULL, 0, NULL, &ht, NULL) < 0 ||
      quac_create(cu, "counter", NULL, 0, NULL, &hu, NULL) < 0)
    return die("cannot connect (echo process, echo thread, quad over TCP, quad over unix)");
  double tcp[RUNS], echo[RUNS], thr[RUNS], unx[RUNS];
  double keep = seconds;
  seconds = 0.2; /* warm up */
  bool ok = rpc_rtt_run(ct, ht, &vt) > 0 && echo_run(efd) > 0 && echo_run(tfd) > 0 &&
            rpc_rtt_run(cu, hu, &vu) > 0;
  seconds = keep;
  for (int r = 0; r < RUNS && ok; r++) {
    tcp[r] = rpc_rtt_run(ct, ht, &vt);
    echo[r] = echo_run(efd);
    thr[r] = echo_run(tfd);
    unx[r] = rpc_rtt_run(cu, hu, &vu);
    ok = tcp[r] > 0 && echo[r] > 0 && thr[r] > 0 && unx[r] > 0;
  }
  close(efd);
  close(tfd);
  pthread_join(t, NULL);
  int st = 0;
  ok = waitpid(echo_pid, &st, 0) == echo_pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 && ok;
  quac_close(ct);
  quac_close(cu);
  if (!ok)
    return die("a lock-step run failed (or a counter value was wrong, or the echo process)");
  double mt = qbench_median(tcp, RUNS), me = qbench_median(echo, RUNS),
         mh = qbench_median(thr, RUNS), mu = qbench_median(unx, RUNS);
  printf("BENCH rpc_tcp_rtt_us %.2f us\n", mt);
  stats_line("rpc_tcp_rtt_us", tcp, RUNS);
  printf("BENCH tcp_echo_rtt_us %.2f us\n", me);
  stats_line("tcp_echo_rtt_us", echo, RUNS);
  printf("BENCH tcp_echo_thread_rtt_us %.2f us\n", mh);
  stats_line("tcp_echo_thread_rtt_us", thr, RUNS);
  printf("BENCH rpc_call_rtt_us %.2f us\n", mu);
  stats_line("rpc_call_rtt_us", unx, RUNS);
  printf("BENCH rpc_tcp_vs_tcp_echo %.3f ratio\n", me / mt);
  printf("BENCH rpc_tcp_vs_tcp_echo_thread %.3f ratio\n", mh / mt);
  return 0;
}

/* --- Sliding windows: quad counter.add against redis INCR --------------------------- */

/*
 * One driver for both sides, so that the discipline is the same by construction: each of CONNS
 * connections starts with WINDOW requests; every reply received sends one more (those of one
 * read leave in one write) until `seconds` have passed, then the windows drain. The drain
 * counts too. Requests per second, or -1.
 */
typedef struct side {
  int (*fd)(void *ctx, int i);
  int (*send)(void *ctx, int i, int n);  /* n requests on connection i, written out: 0 or -1 */
  int (*recv)(void *ctx, int i);         /* the replies that have arrived (checked), or -1 */
  bool (*buffered)(void *ctx, int i);    /* replies already read, waiting to be taken */
  void *ctx;
} side_t;

static double window_run(const side_t *sd) {
  struct pollfd pfd[CONNS];
  for (int i = 0; i < CONNS; i++) {
    pfd[i] = (struct pollfd){.fd = sd->fd(sd->ctx, i), .events = POLLIN};
    if (sd->send(sd->ctx, i, WINDOW) < 0)
      return -1;
  }
  long done = 0;
  double t0 = itest_now(), end = t0 + seconds;
  bool stopping = false;
  int outstanding = CONNS * WINDOW;
  while (outstanding > 0) {
    if (!stopping && itest_now() >= end)
      stopping = true;
    /* Wait on the sockets only when nothing is buffered already. */
    bool queued = false;
    for (int i = 0; i < CONNS && !queued; i++)
      queued = sd->buffered(sd->ctx, i);
    if (!queued && poll(pfd, CONNS, 1000) < 0)
      return -1;
    for (int i = 0; i < CONNS; i++) {
      if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) && !sd->buffered(sd->ctx, i))
        continue;
      pfd[i].revents = 0;
      int got = sd->recv(sd->ctx, i);
      if (got < 0)
        return -1;
      done += got;
      outstanding -= got;
      if (!stopping && got > 0) {
        if (sd->send(sd->ctx, i, got) < 0)
          return -1;
        outstanding += got;
      }
    }
  }
  return (double)done / (itest_now() - t0);
}

/* quad: counter.add 1 on connection i's counter; value[i] is its value so far. */
typedef struct quad_side {
  quac_conn_t *c[CONNS];
  uint64_t h[CONNS], value[CONNS];
} quad_side_t;

static int quad_fd(void *ctx, int i) {
  return quac_fd(((quad_side_t *)ctx)->c[i]);
}

static int quad_send(void *ctx, int i, int n) {
  quad_side_t *q = ctx;
  uint64_t one = 1;
  for (int k = 0; k < n; k++)
    if (quac_invoke_send(q->c[i], q->h[i], "add", &one, 1, NULL) < 0)
      return -1;
  return quac_flush(q->c[i]) < 0 ? -1 : 0;
}

static int quad_recv(void *ctx, int i) {
  quad_side_t *q = ctx;
  int got = 0;
  for (;;) {
    quac_result_t res;
    uint64_t id;
    int s = quac_invoke_recv(q->c[i], 0, &id, &res);
    if (s == QUA_ETIMEDOUT || s == QUA_ESTATE)
      return got;
    if (s < 0 || res.status < 0 || !res.has_result || res.result != ++q->value[i])
      return -1;
    got++;
  }
}

static bool quad_buffered(void *ctx, int i) {
  return quac_pending(((quad_side_t *)ctx)->c[i]) > 0;
}

/* redis: INCR of connection i's own key, replies parsed as they come. */
typedef struct rconn {
  int fd;
  uint64_t value;         /* the last value received */
  uint64_t partial;       /* digits of a reply cut by a read */
  bool in_reply;
  char cmd[64];
  size_t cmd_len;
} rconn_t;

static int redis_fd(void *ctx, int i) {
  return ((rconn_t *)ctx)[i].fd;
}

static int redis_send(void *ctx, int i, int n) {
  rconn_t *r = &((rconn_t *)ctx)[i];
  char buf[64 * WINDOW];
  size_t len = 0;
  for (int k = 0; k < n; k++) {
    memcpy(buf + len, r->cmd, r->cmd_len);
    len += r->cmd_len;
  }
  for (size_t off = 0; off < len;) {
    ssize_t w = write(r->fd, buf + off, len - off);
    if (w <= 0)
      return -1;
    off += (size_t)w;
  }
  return 0;
}

/* Reads what has arrived and parses the replies (":N\r\n", each the previous + 1). */
static int redis_recv(void *ctx, int i) {
  rconn_t *r = &((rconn_t *)ctx)[i];
  char buf[4096];
  ssize_t n = read(r->fd, buf, sizeof buf);
  if (n <= 0)
    return -1;
  int replies = 0;
  for (ssize_t k = 0; k < n; k++) {
    char ch = buf[k];
    if (!r->in_reply) {
      if (ch != ':')
        return -1;
      r->in_reply = true;
      r->partial = 0;
    } else if (ch >= '0' && ch <= '9') {
      r->partial = r->partial * 10 + (uint64_t)(ch - '0');
    } else if (ch == '\n') {
      if (r->partial != r->value + 1)
        return -1;
      r->value = r->partial;
      r->in_reply = false;
      replies++;
    } else if (ch != '\r') {
      return -1;
    }
  }
  return replies;
}

static bool redis_buffered(void *ctx, int i) {
  (void)ctx;
  (void)i;
  return false; /* redis_recv parses everything it reads */
}

static int bench_throughput(const char *redis_server) {
  static quad_side_t qt, qu;
  for (int i = 0; i < CONNS; i++)
    if ((qt.c[i] = quad_connect(true)) == NULL || (qu.c[i] = quad_connect(false)) == NULL ||
        quac_create(qt.c[i], "counter", NULL, 0, NULL, &qt.h[i], NULL) < 0 ||
        quac_create(qu.c[i], "counter", NULL, 0, NULL, &qu.h[i], NULL) < 0)
      return die("cannot connect to quad or create its counters");

  bool have_redis = redis_server != NULL && redis_server[0] != '\0' &&
                    access(redis_server, X_OK) == 0;
  rconn_t rt[CONNS], ru[CONNS];
  pid_t redis = -1;
  if (have_redis) {
    char usock[sizeof daemon_.dir + 16];
    snprintf(usock, sizeof usock, "%s/redis.sock", daemon_.dir);
    unsigned rport;
    if ((redis = redis_start_unix(redis_server, daemon_.dir, usock, &rport)) < 0)
      return die("redis-server did not start");
    for (int i = 0; i < CONNS; i++) {
      rt[i] = (rconn_t){.fd = tcp_connect(rport)};
      ru[i] = (rconn_t){.fd = -1};
      for (int a = 0; a < 100 && ru[i].fd < 0; a++)
        if ((ru[i].fd = unix_connect(usock)) < 0)
          itest_sleep_ms(10);
      if (rt[i].fd < 0 || ru[i].fd < 0)
        return die("cannot connect to redis-server");
      char key[16];
      snprintf(key, sizeof key, "qb:t%02d", i);
      rt[i].cmd_len = (size_t)snprintf(rt[i].cmd, sizeof rt[i].cmd,
                                       "*2\r\n$4\r\nINCR\r\n$%zu\r\n%s\r\n", strlen(key), key);
      snprintf(key, sizeof key, "qb:u%02d", i);
      ru[i].cmd_len = (size_t)snprintf(ru[i].cmd, sizeof ru[i].cmd,
                                       "*2\r\n$4\r\nINCR\r\n$%zu\r\n%s\r\n", strlen(key), key);
    }
  }

  /* In turn: quad TCP, redis TCP, quad unix, redis unix. */
  const side_t sides[4] = {
      {quad_fd, quad_send, quad_recv, quad_buffered, &qt},
      {redis_fd, redis_send, redis_recv, redis_buffered, rt},
      {quad_fd, quad_send, quad_recv, quad_buffered, &qu},
      {redis_fd, redis_send, redis_recv, redis_buffered, ru},
  };
  double v[4][RUNS];
  double keep = seconds;
  seconds = 0.3; /* warm up */
  bool ok = true;
  for (int k = 0; k < 4; k += have_redis ? 1 : 2)
    ok = ok && window_run(&sides[k]) > 0;
  seconds = keep;
  for (int r = 0; r < RUNS && ok; r++)
    for (int k = 0; k < 4; k++) {
      v[k][r] = have_redis || !(k & 1) ? window_run(&sides[k]) : 1;
      ok = ok && v[k][r] > 0;
    }
  for (int i = 0; i < CONNS; i++) {
    quac_close(qt.c[i]);
    quac_close(qu.c[i]);
    if (have_redis) {
      close(rt[i].fd);
      close(ru[i].fd);
    }
  }
  if (redis > 0)
    redis_stop(redis);
  if (!ok)
    return die("a windowed run failed (or a reply was wrong)");
  static const char *const names[4] = {"rpc_tcp_calls_per_s", "redis_incr_tcp_per_s",
                                       "rpc_unix_calls_per_s", "redis_incr_unix_per_s"};
  double m[4];
  for (int k = 0; k < 4; k++) {
    m[k] = qbench_median(v[k], RUNS);
    if (!have_redis && (k & 1))
      continue;
    printf("BENCH %s %.0f calls/s\n", names[k], m[k]);
    printf("# %s min %.0f max %.0f (%d interleaved runs of %.1f s, %d connections x %d in "
           "flight)\n", names[k], v[k][0], v[k][RUNS - 1], RUNS, seconds, CONNS, WINDOW);
  }
  if (!have_redis) {
    for (int k = 0; k < 2; k++)
      printf("BENCH %s skipped redis-server missing (apt-get install redis-server)\n",
             k ? "rpc_vs_redis_unix" : "rpc_vs_redis_same_transport");
    return 77;
  }
  printf("BENCH rpc_vs_redis_same_transport %.3f ratio\n", m[0] / m[1]);
  printf("BENCH rpc_vs_redis_unix %.3f ratio\n", m[2] / m[3]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4 || itest_init(argc, argv) < 0) {
    fprintf(stderr, "usage: %s QUAD QUA rtt|throughput [REDIS_SERVER]\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  srand((unsigned)getpid() ^ (unsigned)time(NULL));
  if (QTEST_SANITIZED)
    seconds = 0.5;
  const char *e = getenv("QUA_BENCH_SECONDS"); /* shorter runs, for trying the program */
  if (e != NULL && atof(e) > 0)
    seconds = atof(e);
  char tokdir[] = "/tmp/qua-bench-rpc-XXXXXX", tokfile[64];
  if (mkdtemp(tokdir) == NULL)
    return die("mkdtemp");
  snprintf(tokfile, sizeof tokfile, "%s/token", tokdir);
  int tfd = open(tokfile, O_WRONLY | O_CREAT | O_TRUNC, 0600); /* quad refuses a readable token */
  FILE *f = tfd >= 0 ? fdopen(tfd, "w") : NULL;
  if (f == NULL || fprintf(f, "%s\n", TOKEN) < 0 || fclose(f) != 0)
    return die("cannot write the token file");
  int started = -1;
  for (int attempt = 0; attempt < 5 && started < 0; attempt++) {
    char listen[32];
    quad_port = 20000 + (unsigned)rand() % 40000;
    snprintf(listen, sizeof listen, "127.0.0.1:%u", quad_port);
    started = itest_start(&daemon_, "--log-level", "warn", "--max-quajects-per-client", "64",
                          "--listen", listen, "--token-file", tokfile, (char *)NULL);
  }
  if (started < 0)
    return die("cannot start quad");
  int rc;
  if (strcmp(argv[3], "rtt") == 0)
    rc = bench_rtt();
  else if (strcmp(argv[3], "throughput") == 0)
    rc = bench_throughput(argc > 4 ? argv[4] : NULL);
  else
    rc = die("the mode is rtt or throughput");
  itest_stop(&daemon_);
  unlink(tokfile);
  rmdir(tokdir);
  return rc;
}
