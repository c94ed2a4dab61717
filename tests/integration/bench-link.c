/* bench-link.c -- items through a link between two quads, against a local queue and redis RPUSH.
 *
 *   bench-link QUAD QUA [REDIS_SERVER REDIS_BENCHMARK]
 *     link_items_per_s        a pump moves N items from a queue on quad A through a
 *                             link (loopback TCP, token, window 1024) into a queue
 *                             on quad B; timed from wiring to the last arrival
 *     local_queue_items_per_s the same pump into a queue on A
 *     link_vs_local_queue     link / local
 *     redis_rpush_p16_per_s   redis-benchmark -t rpush -P 16 (50 connections) on a
 *                             private redis-server, loopback TCP
 *     link_vs_redis_push      link / redis (goal >= 1.0)
 *
 * Every figure is the median of RUNS runs, the anchors measured in the same
 * process and the same minute. Exits 77 (skipped) when redis is missing,
 * after printing the link figures.
 */
#include <netinet/in.h>
#include <sys/socket.h>

#include "itest.h"
#include "qbench.h"
#include "redis-anchor.h"

#define RUNS 5
#define WINDOW "window=1024"

static itest_daemon_t A, B;
static char tokdir[64], token_arg[160];
static unsigned b_port;
static long n_items;

static int die(const char *what) {
  fprintf(stderr, "bench-link: %s\n", what);
  itest_stop_all();
  return 1;
}

static uint64_t make(quac_conn_t *c, const char *type, const char *name, const char *p0,
                     const char *p1, const char *p2) {
  const char *params[3] = {p0, p1, p2};
  size_t n = p2 ? 3 : p1 ? 2 : p0 ? 1 : 0;
  uint64_t h = 0;
  if (quac_create(c, type, params, n, name, &h, NULL) < 0)
    fprintf(stderr, "bench-link: create %s: %s\n", type, quac_last_error(c));
  return h;
}

static bool fill(quac_conn_t *c, uint64_t q, long n) {
  static quac_call_t calls[1024];
  static quac_result_t res[1024];
  for (long done = 0; done < n;) {
    size_t k = n - done < 1024 ? (size_t)(n - done) : 1024;
    for (size_t i = 0; i < k; i++)
      calls[i] = (quac_call_t){.handle = q, .entry = "put", .nargs = 1, .args = {(uint64_t)(done + 1 + (long)i)}};
    if (quac_invoke_batch(c, calls, k, res) < 0)
      return false;
    done += (long)k;
  }
  return true;
}

static uint64_t count_of(quac_conn_t *c, uint64_t q) {
  quac_result_t r;
  return quac_invoke(c, q, "count", NULL, 0, &r) == 0 ? r.result : UINT64_MAX;
}

/* One run: fills a queue on A, wires a pump from it to `sink` (made by the
 * caller on A), and times until `dst` (on conn d) holds n_items. Items per
 * second, or -1. */
static double run_once(quac_conn_t *a, uint64_t sink, quac_conn_t *d, uint64_t dst) {
  char cap[32];
  snprintf(cap, sizeof cap, "capacity=%ld", n_items);
  uint64_t src = make(a, "queue", NULL, cap, NULL, NULL);
  uint64_t pump = make(a, "pump", NULL, NULL, NULL, NULL);
  if (src == 0 || pump == 0 || !fill(a, src, n_items) ||
      quac_wire(a, pump, "sink", sink, "put") < 0)
    return -1;
  double t0 = itest_now();
  if (quac_wire(a, pump, "source", src, "get") < 0)
    return -1;
  double end = t0 + 60;
  uint64_t k;
  struct timespec tick = {0, 100000}; /* polls every 0.1 ms: the local run takes ~10 ms */
  while ((k = count_of(d, dst)) < (uint64_t)n_items && itest_now() < end)
    nanosleep(&tick, NULL);
  double t = itest_now() - t0;
  quac_destroy(a, pump, true);
  quac_destroy(a, src, true);
  return k == (uint64_t)n_items ? (double)n_items / t : -1;
}

/* Through a link over loopback TCP into a queue on B. */
static double link_items_per_s(void) {
  quac_conn_t *a = itest_connect(&A), *b = itest_connect(&B);
  if (a == NULL || b == NULL)
    return -1;
  char cap[32], peer[64];
  snprintf(cap, sizeof cap, "capacity=%ld", n_items);
  snprintf(peer, sizeof peer, "peer=127.0.0.1:%u", b_port);
  double runs[RUNS];
  for (int r = -1; r < RUNS; r++) { /* run -1 warms up */
    uint64_t dst = make(b, "queue", "bench-dst", cap, NULL, NULL);
    uint64_t link = make(a, "link", NULL, peer, "remote=bench-dst", token_arg);
    double v = dst != 0 && link != 0 ? run_once(a, link, b, dst) : -1;
    if (v < 0)
      return -1;
    if (r >= 0)
      runs[r] = v;
    quac_destroy(a, link, true);
    quac_destroy(b, dst, true);
  }
  quac_close(a);
  quac_close(b);
  return qbench_median(runs, RUNS);
}

/* The same pump into a queue on A. */
static double local_items_per_s(void) {
  quac_conn_t *a = itest_connect(&A);
  if (a == NULL)
    return -1;
  char cap[32];
  snprintf(cap, sizeof cap, "capacity=%ld", n_items);
  double runs[RUNS];
  for (int r = -1; r < RUNS; r++) {
    uint64_t dst = make(a, "queue", NULL, cap, NULL, NULL);
    double v = dst != 0 ? run_once(a, dst, a, dst) : -1;
    if (v < 0)
      return -1;
    if (r >= 0)
      runs[r] = v;
    quac_destroy(a, dst, true);
  }
  quac_close(a);
  return qbench_median(runs, RUNS);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0) {
    fprintf(stderr, "usage: %s QUAD QUA [REDIS_SERVER REDIS_BENCHMARK]\n", argv[0]);
    return 2;
  }
  srand((unsigned)getpid() ^ (unsigned)time(NULL));
  n_items = QTEST_SANITIZED ? 1L << 16 : 1L << 19;
  snprintf(tokdir, sizeof tokdir, "/tmp/qua-bench-link-XXXXXX");
  if (mkdtemp(tokdir) == NULL)
    return die("mkdtemp");
  char token_path[128];
  snprintf(token_path, sizeof token_path, "%s/token", tokdir);
  int fd = open(token_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || write(fd, "bench-link-token\n", 17) != 17)
    return die("cannot write the token file");
  close(fd);
  snprintf(token_arg, sizeof token_arg, "token-file=%s", token_path);
  int rc = 1;
  for (int attempt = 0; attempt < 5 && rc != 0; attempt++) {
    b_port = 20000 + (unsigned)rand() % 40000;
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%u", b_port);
    rc = itest_start(&B, "--log-level", "warn", "--listen", listen, "--token-file", token_path,
                     (char *)NULL) < 0;
  }
  if (rc != 0 || itest_start(&A, "--log-level", "warn", (char *)NULL) < 0)
    return die("cannot start two quads");
  double link = link_items_per_s();
  double local = local_items_per_s();
  if (link <= 0 || local <= 0)
    return die("a run failed");
  printf("BENCH link_items_per_s %.0f items/s\n", link);
  printf("BENCH local_queue_items_per_s %.0f items/s\n", local);
  printf("BENCH link_vs_local_queue %.3f ratio\n", link / local);
  fflush(stdout);
  const char *server = argc > 3 ? argv[3] : NULL, *benchmark = argc > 4 ? argv[4] : NULL;
  rc = 77;
  if (redis_available(server, benchmark, "bench-link")) {
    static const char *const labels[] = {"RPUSH", NULL};
    double redis_rps =
        redis_bench_median(server, benchmark, A.dir, RUNS, 50, 16, "rpush", n_items * 2, labels);
    if (redis_rps <= 0)
      return die("redis-benchmark gave no figure (or redis-server did not start)");
    printf("BENCH redis_rpush_p16_per_s %.0f requests/s\n", redis_rps);
    printf("BENCH link_vs_redis_push %.3f ratio\n", link / redis_rps);
    rc = 0;
  }
  itest_stop(&A);
  itest_stop(&B);
  itest_rm_rf(tokdir);
  return rc;
}
