/* test-priority.c -- clocks' threads run at --thread-nice below quad's; pumps' at quad's. */
#include <sys/resource.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

/* The nice values of pid's threads into nice[] (at most max); how many. */
static int thread_nices(pid_t pid, int *nice, int max) {
  char path[96], buf[1024];
  int tids[64], nt = rc_threads(pid, tids, max < 64 ? max : 64), n = 0;
  for (int i = 0; i < nt; i++) {
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, tids[i]);
    FILE *f = fopen(path, "r");
    if (f == NULL)
      continue;
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    /* After the command's closing parenthesis: state is field 3, nice 19. */
    const char *p = strrchr(buf, ')');
    int field = 2;
    while (p != NULL && field < 19) {
      p = strchr(p + 1, ' ');
      field++;
    }
    if (p != NULL)
      nice[n++] = atoi(p + 1);
  }
  return n;
}

/* Starts quad with extra, makes a clock and a pump, and counts its
 * threads at quad's own nice and at `lower`. */
static void count_nices(const char *const *extra, int lower, int *at_base, int *at_lower,
                        int *threads) {
  int base = getpriority(PRIO_PROCESS, 0); /* quad inherits the test's */
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  CU_ASSERT_NOT_EQUAL(create(&c, "clock", NULL, NULL, "period_us=100000"), 0);
  CU_ASSERT_NOT_EQUAL(create(&c, "pump", NULL, NULL, NULL), 0);
  /* The clock's thread lowers its own priority once it runs, which may be
   * after Create's answer: read again until it has (at most 5 s). */
  int nice[64];
  for (int tries = 0; tries < 500; tries++) {
    *threads = thread_nices(q.pid, nice, 64);
    *at_base = *at_lower = 0;
    for (int i = 0; i < *threads; i++) {
      *at_base += nice[i] == base;
      *at_lower += nice[i] == lower && lower != base;
    }
    if (lower == base || *at_lower > 0)
      break;
    usleep(10000);
  }
  rc_close(&c);
  double took;
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, &took), 0);
}

static int clamp19(int n) { return n > 19 ? 19 : n; }

/* By default the clock's thread runs 19 below quad's (before, at quad's
 * priority: 1,024 clocks starved its loop); the pump's at quad's. */
static void a_clocks_thread_runs_19_below_quad(void) {
  int base = getpriority(PRIO_PROCESS, 0), at_base, at_lower, threads;
  count_nices(NULL, clamp19(base + 19), &at_base, &at_lower, &threads);
  fprintf(stderr, "\n  %d threads: %d at nice %d, %d at %d", threads, at_base, base, at_lower,
          clamp19(base + 19));
  if (base >= 19)
    return; /* nothing can be lower */
  CU_ASSERT_EQUAL(at_lower, 1);
  CU_ASSERT_EQUAL(at_base, threads - 1);
}

static void thread_nice_0_keeps_them_at_quads_priority(void) {
  const char *extra[] = {"--thread-nice", "0", NULL};
  int at_base, at_lower, threads;
  count_nices(extra, 19, &at_base, &at_lower, &threads);
  CU_ASSERT_EQUAL(at_base, threads);
}

static void thread_nice_takes_0_to_19(void) {
  const char *extra[] = {"--thread-nice", "10", NULL};
  int base = getpriority(PRIO_PROCESS, 0), at_base, at_lower, threads;
  count_nices(extra, clamp19(base + 10), &at_base, &at_lower, &threads);
  if (base < 19)
    CU_ASSERT_EQUAL(at_lower, 1);
  static const char *const bad[] = {"20", "-1", "x", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *b[] = {"--thread-nice", bad[i], NULL};
    quad_child_t q;
    CU_ASSERT_EQUAL(quad_start(&q, quad_exe, b), 1000 + 2);
    quad_stop(&q, SIGTERM, 1000, NULL);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-priority QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"a_clocks_thread_runs_19_below_quad", a_clocks_thread_runs_19_below_quad},
      {"thread_nice_0_keeps_them_at_quads_priority", thread_nice_0_keeps_them_at_quads_priority},
      {"thread_nice_takes_0_to_19", thread_nice_takes_0_to_19},
      {NULL, NULL},
  };
  return qtest_run("priority", cases);
}
