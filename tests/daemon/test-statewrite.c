/* test-statewrite.c -- --state-dir writes on the worker: a slow disk never stalls the loop, and the
 * answer to a change still waits until the change is on disk, in the connection's order. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe; /* quad-faultsim: QUAD_FAULTSIM_FSYNC_MS slows its fsyncs */

#define FSYNC_MS 300 /* each write fsyncs a file and the folder: 600 ms */

typedef struct slow_quad {
  quad_child_t q;
  char state[64];
} slow_quad_t;

static void slow_start(slow_quad_t *s) {
  snprintf(s->state, sizeof s->state, "/tmp/quad-state-XXXXXX");
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(s->state));
  char ms[16];
  snprintf(ms, sizeof ms, "%d", FSYNC_MS);
  setenv("QUAD_FAULTSIM_FSYNC_MS", ms, 1);
  const char *extra[] = {"--state-dir", s->state, NULL};
  int r = quad_start(&s->q, quad_exe, extra);
  unsetenv("QUAD_FAULTSIM_FSYNC_MS");
  CU_ASSERT_EQUAL_FATAL(r, 0);
}

static void slow_stop(slow_quad_t *s) {
  double took;
  CU_ASSERT_EQUAL(quad_stop(&s->q, SIGTERM, 5000, &took), 0);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", s->state);
  CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Sends a Create of a published counter; its id. */
static uint64_t send_named_create(rawconn_t *c, const char *name) {
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  r.type = (char *)"counter";
  r.name = (char *)name;
  return rc_send(c, QUAP_CREATE, &r.base);
}

/* Before, the loop wrote and fsynced the state itself: another client's
 * request waited the whole write (600 ms here). */
static void a_slow_state_write_does_not_stall_the_loop(void) {
  slow_quad_t s;
  slow_start(&s);
  rawconn_t a, b;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, s.q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, s.q.sock), 0);
  uint64_t h = create(&b, "counter", NULL, NULL, NULL); /* unpublished: no write */
  CU_ASSERT_NOT_EQUAL_FATAL(h, 0);
  double t0 = rc_now();
  uint64_t id = send_named_create(&a, "slow-one");
  usleep(50 * 1000); /* the write is under way */
  double worst = 0;
  for (int i = 0; i < 5; i++) {
    double t = rc_now();
    CU_ASSERT_EQUAL(counter_add(&b, h, 1), (uint64_t)i + 1);
    if (rc_now() - t > worst)
      worst = rc_now() - t;
  }
  double b_done = rc_now() - t0;
  Qua__V1__Frame *f = rc_response(&a, id, 5000);
  double a_done = rc_now() - t0;
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f != NULL) {
    CU_ASSERT_EQUAL(f->status, 0);
    quap_frame_free(f);
  }
  fprintf(stderr, "\n  another client's 5 adds done %.0f ms after the change (worst %.1f ms); "
          "the change answered after %.0f ms", b_done * 1000, worst * 1000, a_done * 1000);
  /* The loop answered b while the disk was busy... */
  CU_ASSERT(b_done < 2 * FSYNC_MS / 1000.0 - 0.1);
  /* ...and a only once the file and the folder were synced. */
  CU_ASSERT(a_done >= 2 * FSYNC_MS / 1000.0);
  rc_close(&a);
  rc_close(&b);
  slow_stop(&s);
}

/* Pipelined behind a change, a connection's other requests are answered
 * after it, in order; the change is on disk when its answer comes. */
static void answers_behind_a_state_write_keep_their_order(void) {
  slow_quad_t s;
  slow_start(&s);
  rawconn_t a;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, s.q.sock), 0);
  uint64_t h = create(&a, "counter", NULL, NULL, NULL);
  CU_ASSERT_NOT_EQUAL_FATAL(h, 0);
  uint64_t one = 1;
  Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
  in.handle = h;
  in.entry = (char *)"add";
  in.n_args = 1;
  in.args = &one;
  uint64_t ids[4];
  ids[0] = rc_send(&a, QUAP_INVOKE, &in.base);
  ids[1] = send_named_create(&a, "ordered");
  ids[2] = rc_send(&a, QUAP_INVOKE, &in.base);
  ids[3] = send_named_create(&a, "ordered-2");
  for (int i = 0; i < 4; i++) {
    Qua__V1__Frame *f = rc_recv(&a, 5000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->id, ids[i]);
    CU_ASSERT_EQUAL(f->status, 0);
    quap_frame_free(f);
  }
  /* Both names are in the newest generation on disk. */
  char cmd[160];
  snprintf(cmd, sizeof cmd, "grep -q ordered-2 $(ls %s/state.* | tail -1)", s.state);
  CU_ASSERT_EQUAL(system(cmd), 0);
  rc_close(&a);
  slow_stop(&s);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-statewrite QUAD-FAULTSIM\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"a_slow_state_write_does_not_stall_the_loop", a_slow_state_write_does_not_stall_the_loop},
      {"answers_behind_a_state_write_keep_their_order",
       answers_behind_a_state_write_keep_their_order},
      {NULL, NULL},
  };
  return qtest_run("statewrite", cases);
}
