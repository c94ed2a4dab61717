/* redis-anchor.h -- a private redis-server and redis-benchmark runs, the anchor of the RPC and link benchmarks. */
#ifndef QUA_REDIS_ANCHOR_H
#define QUA_REDIS_ANCHOR_H

#include <netinet/in.h>
#include <sys/socket.h>

#include "itest.h"
#include "qbench.h"

/* Starts redis-server on a free loopback port without persistence, its
 * files in dir. Returns its pid (and the port in *port_out), or -1. */
static inline pid_t redis_start(const char *server, const char *dir, unsigned *port_out) {
  for (int attempt = 0; attempt < 5; attempt++) {
    unsigned port = 20000 + (unsigned)rand() % 40000;
    char ports[16];
    snprintf(ports, sizeof ports, "%u", port);
    pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      int nul = open("/dev/null", O_RDWR);
      dup2(nul, 0);
      dup2(nul, 1);
      dup2(nul, 2);
      execl(server, server, "--port", ports, "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--daemonize", "no", "--dir", dir, (char *)NULL);
      _exit(127);
    }
    double end = itest_now() + 5.0;
    while (itest_now() < end) {
      struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      int ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
      close(fd);
      if (ok) {
        *port_out = port;
        return pid;
      }
      if (itest_wait(pid, 0) != -1)
        break; /* exited: the port was taken, try another */
      itest_sleep_ms(20);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
  return -1;
}

static inline void redis_stop(pid_t pid) {
  kill(pid, SIGTERM);
  if (itest_wait(pid, 5) == -1) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
}

/* One redis-benchmark run of test `test` (-c conns -P depth -n n): the
 * requests per second it reports for the first of the labels that
 * appears ("PING_MBULK", else "PING_INLINE"; "RPUSH"), or -1. */
static inline double redis_bench_once(const char *benchmark, unsigned port, int conns, int depth,
                                      const char *test, long n, const char *const *labels) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "'%s' -h 127.0.0.1 -p %u -c %d -P %d -t %s -n %ld -q 2>/dev/null",
           benchmark, port, conns, depth, test, n);
  FILE *p = popen(cmd, "r");
  if (p == NULL)
    return -1;
  char line[4096];
  double got[4] = {-1, -1, -1, -1};
  while (fgets(line, sizeof line, p) != NULL) {
    /* -q rewrites its progress with \r: the figure follows the last one. */
    char *s = strrchr(line, '\r');
    s = s != NULL ? s + 1 : line;
    for (int i = 0; i < 4 && labels[i] != NULL; i++) {
      size_t len = strlen(labels[i]);
      double v;
      if (strncmp(s, labels[i], len) == 0 && s[len] == ':' && sscanf(s + len + 1, "%lf", &v) == 1)
        got[i] = v;
    }
  }
  pclose(p);
  for (int i = 0; i < 4 && labels[i] != NULL; i++)
    if (got[i] > 0)
      return got[i];
  return -1;
}

/* Starts a private redis-server (files in dir), runs redis-benchmark
 * `runs` times (at most 16) and stops the server: the median requests per
 * second, or -1. */
static inline double redis_bench_median(const char *server, const char *benchmark,
                                        const char *dir, int runs, int conns, int depth,
                                        const char *test, long n, const char *const *labels) {
  unsigned port;
  pid_t redis = redis_start(server, dir, &port);
  if (redis < 0)
    return -1;
  double v[16];
  bool ok = true;
  runs = runs > 16 ? 16 : runs;
  for (int r = 0; r < runs && ok; r++)
    ok = (v[r] = redis_bench_once(benchmark, port, conns, depth, test, n, labels)) > 0;
  redis_stop(redis);
  return ok ? qbench_median(v, runs) : -1;
}

/* True when both programs exist (else says how to get them). */
static inline bool redis_available(const char *server, const char *benchmark, const char *who) {
  if (server == NULL || server[0] == '\0' || access(server, X_OK) != 0 || benchmark == NULL ||
      benchmark[0] == '\0' || access(benchmark, X_OK) != 0) {
    fprintf(stderr, "%s: redis-server or redis-benchmark missing (apt-get install "
                    "redis-server redis-tools): redis anchor skipped\n", who);
    return false;
  }
  return true;
}

#endif
