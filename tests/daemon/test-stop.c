/* test-stop.c -- the exit deadline holds from outside the loop: a stalled loop, a second signal,
 * and the stop signals blocked in every thread but the one that takes them. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe; /* quad-faultsim: it can stall its loop on request */

/* A request id that makes quad-faultsim's loop sleep ms before its dispatch. */
#define STALL_ID(ms) ((UINT64_C(0x57A1) << 48) | (uint64_t)(ms))
#define QUAD_EXIT_FORCED 3

/* Sends ListTypes with the stalling id. */
static void stall_loop(rawconn_t *c, unsigned ms) {
  Qua__V1__ListTypesRequest r = QUA__V1__LIST_TYPES_REQUEST__INIT;
  quap_buf_t b;
  quap_buf_init(&b);
  CU_ASSERT(quap_request_append(&b, STALL_ID(ms), QUAP_LIST_TYPES, &r.base) > 0);
  CU_ASSERT_EQUAL(rc_write(c, b.data, b.len), 0);
  quap_buf_fini(&b);
}

/* Waits up to timeout_ms for quad to exit (killing it after); its status
 * (-1: still running) and its log in log[len]; removes its folder. */
static int wait_exit(quad_child_t *q, double t0, int timeout_ms, double *took, char *log,
                     size_t len) {
  int rc = -1;
  while (rc_now() - t0 < timeout_ms / 1000.0) {
    int st;
    if (waitpid(q->pid, &st, WNOHANG) == q->pid) {
      rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    usleep(5000);
  }
  *took = rc_now() - t0;
  if (rc == -1) {
    kill(q->pid, SIGKILL);
    waitpid(q->pid, NULL, 0);
  }
  q->pid = 0;
  log[0] = '\0';
  FILE *f = fopen(q->log, "r");
  if (f != NULL) {
    size_t n = fread(log, 1, len - 1, f);
    log[n] = '\0';
    fclose(f);
  }
  unlink(q->sock);
  unlink(q->log);
  rmdir(q->dir);
  return rc;
}

/* Before, the deadline was started by the loop's signal callback: a loop
 * stalled for 10 s saw SIGTERM after 10 s and quad outlived its 5 s. */
static void sigterm_ends_a_stalled_loop_at_the_deadline_with_status_3(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  stall_loop(&c, 10000);
  usleep(300 * 1000); /* the loop is asleep in the request's dispatch */
  double t0 = rc_now();
  kill(q.pid, SIGTERM);
  double took;
  static char log[65536];
  int st = wait_exit(&q, t0, 8000, &took, log, sizeof log);
  fprintf(stderr, "\n  stalled loop: exit %d %.3f s after SIGTERM", st, took);
  CU_ASSERT_EQUAL(st, QUAD_EXIT_FORCED);
  CU_ASSERT(took < 5.0);
  CU_ASSERT(took > 3.0); /* the deadline, not a crash */
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "SIGTERM: shutting down"));
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "exiting now with status 3"));
  CU_ASSERT_EQUAL(access(q.sock, F_OK), -1); /* the socket file is removed */
  rc_close(&c);
}

/* A second signal while the stop goes on is logged; the request the loop
 * was running is answered, and quad exits 0 once the loop is done. */
static void a_second_signal_is_logged_and_the_stop_finishes_with_0(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  stall_loop(&c, 1500);
  usleep(200 * 1000);
  double t0 = rc_now();
  kill(q.pid, SIGINT);
  usleep(100 * 1000);
  kill(q.pid, SIGTERM);
  Qua__V1__Frame *f = rc_response(&c, STALL_ID(1500), 5000);
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f != NULL) {
    CU_ASSERT_EQUAL(f->status, 0);
    quap_frame_free(f);
  }
  double took;
  static char log[65536];
  int st = wait_exit(&q, t0, 5000, &took, log, sizeof log);
  fprintf(stderr, "\n  stalled 1.5 s: exit %d %.3f s after SIGINT", st, took);
  CU_ASSERT_EQUAL(st, 0);
  CU_ASSERT(took < 3.4); /* before the exit deadline */
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "SIGINT: shutting down"));
  CU_ASSERT_PTR_NOT_NULL(strstr(log, "SIGTERM: already shutting down"));
  rc_close(&c);
}

/* Whether SIGTERM and SIGINT are in the SigBlk mask of /proc/pid/task/tid/status. */
static bool blocks_stop_signals(pid_t pid, int tid) {
  char path[96], line[256];
  snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, tid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return true; /* the thread ended meanwhile */
  unsigned long long mask = 0;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "SigBlk: %llx", &mask) == 1)
      break;
  fclose(f);
  unsigned long long want = (1ull << (SIGTERM - 1)) | (1ull << (SIGINT - 1));
  return (mask & want) == want;
}

/* Every thread blocks the stop signals, those made late (a clock's, a
 * pump's, libuv's workers) too, so only the signal thread takes them.
 * Before, none did (libuv's signal handler ran in any thread). */
static void every_thread_blocks_the_stop_signals(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  CU_ASSERT_NOT_EQUAL(create(&c, "clock", NULL, NULL, "period_us=100000"), 0);
  CU_ASSERT_NOT_EQUAL(create(&c, "pump", NULL, NULL, NULL), 0);
  int tids[256], threads = rc_threads(q.pid, tids, 256), blocking = 0;
  CU_ASSERT_FATAL(threads > 0);
  for (int i = 0; i < threads; i++)
    blocking += blocks_stop_signals(q.pid, tids[i]);
  fprintf(stderr, "\n  %d threads, %d block SIGTERM and SIGINT", threads, blocking);
  CU_ASSERT(threads >= 4); /* the loop, the signal thread, a worker, the clock, the pump */
  /* The signal thread's own mask shows them unblocked while it waits in
   * sigwait (the kernel lifts them for the wait). */
  CU_ASSERT(blocking >= threads - 1);
  rc_close(&c);
  double took;
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, &took), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-stop QUAD-FAULTSIM\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"sigterm_ends_a_stalled_loop_at_the_deadline_with_status_3",
       sigterm_ends_a_stalled_loop_at_the_deadline_with_status_3},
      {"a_second_signal_is_logged_and_the_stop_finishes_with_0",
       a_second_signal_is_logged_and_the_stop_finishes_with_0},
      {"every_thread_blocks_the_stop_signals", every_thread_blocks_the_stop_signals},
      {NULL, NULL},
  };
  return qtest_run("stop", cases);
}
