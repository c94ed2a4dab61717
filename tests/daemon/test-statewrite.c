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

#define HOLD_MS 1500

/* Before, a change's graph read asked libqua under its control lock, on
 * the loop, where each published quaject's callouts are wired: behind a
 * 1.5 s control job, the whole daemon waited with it. */
static void a_change_behind_a_long_control_job_does_not_stall_the_loop(void) {
  slow_quad_t s;
  slow_start(&s);
  rawconn_t hold, a, ping;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&hold, s.q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, s.q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&ping, s.q.sock), 0);
  uint64_t ph = create(&ping, "counter", NULL, NULL, NULL); /* unpublished: no write */
  CU_ASSERT_FATAL(ph != 0);
  CU_ASSERT_EQUAL(counter_add(&ping, ph, 1), 1);
  /* Published quajects with callouts, wired: the graph read asks about them. */
  uint64_t pump = create(&a, "pump", "sw-pump", NULL, NULL);
  uint64_t src = create(&a, "queue", "sw-src", NULL, NULL);
  uint64_t late = create(&a, "counter", NULL, NULL, NULL);
  CU_ASSERT_FATAL(pump != 0 && src != 0 && late != 0);
  CU_ASSERT_EQUAL_FATAL(wire(&a, pump, "source", src, "get"), 0);

  double t0 = rc_now();
  send_create(&hold, HOLD_ID(HOLD_MS));
  usleep(100 * 1000); /* the worker holds the lock */
  Qua__V1__PublishRequest pr = QUA__V1__PUBLISH_REQUEST__INIT;
  pr.handle = late;
  pr.name = (char *)"sw-late";
  uint64_t pub_id = rc_send(&a, QUAP_PUBLISH, &pr.base);
  usleep(50 * 1000);
  uint64_t v = 0;
  double worst = adds_worst(&ping, ph, 5, &v);
  double adds_done = rc_now() - t0;
  CU_ASSERT_EQUAL(v, 6);
  CU_ASSERT_EQUAL(answer_status(&a, pub_id, QUAP_PUBLISH, 10000, NULL, 0, NULL), 0);
  double pub_at = rc_now() - t0;
  CU_ASSERT_EQUAL(answer_status(&hold, HOLD_ID(HOLD_MS), QUAP_CREATE, 10000, NULL, 0, NULL), 0);
  fprintf(stderr, "\n  adds beside a Publish's graph read behind a %d ms control job: worst %.1f "
          "ms, done at %.0f ms; the Publish answered at %.0f ms", HOLD_MS, worst * 1000,
          adds_done * 1000, pub_at * 1000);
  CU_ASSERT(worst < 0.5);                        /* the loop was free */
  CU_ASSERT(adds_done < HOLD_MS / 1000.0 - 0.3); /* while the job held the lock */
  /* The write has the wire: it is there after a restart. */
  rc_close(&hold);
  rc_close(&a);
  rc_close(&ping);
  double took;
  CU_ASSERT_EQUAL(quad_stop(&s.q, SIGTERM, 5000, &took), 0);
  const char *extra[] = {"--state-dir", s.state, NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&s.q, quad_exe, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, s.q.sock), 0);
  Qua__V1__DescribeRequest dr = QUA__V1__DESCRIBE_REQUEST__INIT;
  dr.name = (char *)"sw-pump";
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_DESCRIBE, &dr.base, &m), 0);
  const Qua__V1__DescribeReply *d = (const Qua__V1__DescribeReply *)m;
  bool wired = false;
  for (size_t i = 0; d != NULL && d->quaject != NULL && i < d->quaject->n_wires; i++)
    wired |= strcmp(d->quaject->wires[i]->dst_name, "sw-src") == 0;
  CU_ASSERT(wired);
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  CU_ASSERT(open_name(&c, "sw-late", NULL) != 0);
  rc_close(&c);
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
      {"a_change_behind_a_long_control_job_does_not_stall_the_loop",
       a_change_behind_a_long_control_job_does_not_stall_the_loop},
      {"answers_behind_a_state_write_keep_their_order",
       answers_behind_a_state_write_keep_their_order},
      {NULL, NULL},
  };
  return qtest_run("statewrite", cases);
}
