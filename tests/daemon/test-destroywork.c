/* test-destroywork.c -- Destroy asks libqua what is wired into its quaject on the worker: behind another client's long control job, the loop answers everyone else. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe; /* quad-faultsim: a Create can hold the control lock */

#define HOLD_MS 1500

/* Sends a Destroy without force; the request id. */
static uint64_t send_destroy(rawconn_t *c, uint64_t h) {
  Qua__V1__DestroyRequest r = QUA__V1__DESTROY_REQUEST__INIT;
  r.handle = h;
  return rc_send(c, QUAP_DESTROY, &r.base);
}

/* Its answer's status and message, with its time since t0 in *at. */
static int destroyed(rawconn_t *c, uint64_t id, double t0, double *at, char *msg, size_t len) {
  int st = answer_status(c, id, QUAP_DESTROY, 10000, msg, len, NULL);
  *at = rc_now() - t0;
  return st;
}

/* Before, Destroy's not-wired check took libqua's control lock on the
 * loop: behind a 1.5 s control job, the whole daemon waited with it. */
static void destroys_behind_a_long_control_job_leave_the_loop_free(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  rawconn_t hold, a, b, c, ping;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&hold, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&ping, q.sock), 0);
  uint64_t ph = create(&ping, "counter", NULL, NULL, NULL);
  CU_ASSERT_FATAL(ph != 0);
  CU_ASSERT_EQUAL(counter_add(&ping, ph, 1), 1); /* its site is open: adds stay on the loop */
  uint64_t wired = create(&a, "queue", NULL, NULL, NULL);
  uint64_t pump = create(&a, "pump", NULL, NULL, NULL);
  CU_ASSERT_FATAL(wired != 0 && pump != 0);
  CU_ASSERT_EQUAL_FATAL(wire(&a, pump, "source", wired, "get"), 0);
  uint64_t free_b = create(&b, "queue", "dw-free", NULL, NULL);
  uint64_t free_c = open_name(&c, "dw-free", NULL);
  uint64_t pump_c = create(&c, "pump", NULL, NULL, NULL);
  CU_ASSERT_FATAL(free_b != 0 && free_c != 0 && pump_c != 0);

  double t0 = rc_now();
  send_create(&hold, HOLD_ID(HOLD_MS));
  usleep(100 * 1000); /* the worker holds the lock */
  uint64_t busy_id = send_destroy(&a, wired);
  uint64_t free_id = send_destroy(&b, free_b);
  usleep(50 * 1000);
  /* While its check waits, the quaject takes no wire and no second Destroy. */
  double t = rc_now();
  CU_ASSERT_EQUAL(wire(&c, pump_c, "source", free_c, "get"), QUA_EBUSY);
  CU_ASSERT_EQUAL(destroy(&c, free_c, false), QUA_EBUSY);
  double refused = rc_now() - t;
  uint64_t v = 0;
  double worst = adds_worst(&ping, ph, 5, &v);
  double adds_done = rc_now() - t0;
  CU_ASSERT_EQUAL(v, 6);

  double busy_at, free_at, held_at;
  char msg[256];
  CU_ASSERT_EQUAL(destroyed(&a, busy_id, t0, &busy_at, msg, sizeof msg), QUA_EBUSY);
  CU_ASSERT(strstr(msg, "pump.source is wired to it") != NULL);
  CU_ASSERT_EQUAL(destroyed(&b, free_id, t0, &free_at, msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(destroyed(&hold, HOLD_ID(HOLD_MS), t0, &held_at, msg, sizeof msg), 0);
  fprintf(stderr, "\n  adds beside two Destroys behind a %d ms control job: worst %.1f ms, done at "
          "%.0f ms; refusals in %.1f ms; the Destroys answered at %.0f and %.0f ms", HOLD_MS,
          worst * 1000, adds_done * 1000, refused * 1000, busy_at * 1000, free_at * 1000);
  CU_ASSERT(worst < 0.5);                         /* the loop was free */
  CU_ASSERT(refused < 0.5);
  CU_ASSERT(adds_done < HOLD_MS / 1000.0 - 0.3);  /* while the job held the lock */
  CU_ASSERT(busy_at >= HOLD_MS / 1000.0 - 0.2);   /* each waited on the worker */
  CU_ASSERT(free_at >= HOLD_MS / 1000.0 - 0.2);

  /* The refused one is still there and still refuses; the other is gone. */
  Qua__V1__InvokeReply *r = NULL;
  CU_ASSERT_EQUAL(invoke(&a, wired, "count", 0, 0, &r), 0);
  if (r != NULL)
    protobuf_c_message_free_unpacked(&r->base, NULL);
  CU_ASSERT_EQUAL(destroy(&a, wired, false), QUA_EBUSY);
  CU_ASSERT_EQUAL(invoke(&c, free_c, "count", 0, 0, NULL), QUA_EHANDLE);
  int st = 0;
  open_name(&c, "dw-free", &st);
  CU_ASSERT_EQUAL(st, QUA_ENOTFOUND);
  /* Unwired, or forced, it goes. */
  CU_ASSERT_EQUAL(destroy(&a, wired, true), 0);
  CU_ASSERT_EQUAL(invoke(&a, wired, "count", 0, 0, NULL), QUA_EHANDLE);
  rc_close(&hold);
  rc_close(&a);
  rc_close(&b);
  rc_close(&c);
  rc_close(&ping);
  double took;
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, &took), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-destroywork QUAD-FAULTSIM\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"destroys_behind_a_long_control_job_leave_the_loop_free",
       destroys_behind_a_long_control_job_leave_the_loop_free},
      {NULL, NULL},
  };
  return qtest_run("destroywork", cases);
}
