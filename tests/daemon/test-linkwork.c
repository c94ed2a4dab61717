/* test-linkwork.c -- links are made, destroyed, opened and let go on the worker: behind another client's long control job, the loop answers everyone else. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe; /* quad-faultsim: a Create can hold the control lock */

#define HOLD_MS 1500
#define ITEMS 300

/* The response to id, with its time since t0 in *at; its status (QUA_ECONN without one). */
static int answered(rawconn_t *c, uint64_t id, double t0, double *at, ProtobufCMessage **out,
                    unsigned method) {
  int st = answer_status(c, id, method, 10000, NULL, 0, out);
  *at = rc_now() - t0;
  return st;
}

/* Sends the Create of a link published as name to the queue published as
 * remote on this same quad (its own socket); the request id. */
static uint64_t send_link_create(rawconn_t *c, const quad_child_t *q, const char *name,
                                 const char *remote) {
  char peer[300], rem[100];
  snprintf(peer, sizeof peer, "peer=unix:%s", q->sock);
  snprintf(rem, sizeof rem, "remote=%s", remote);
  char *params[] = {peer, rem};
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  r.type = (char *)"link";
  r.name = (char *)name;
  r.n_params = 2;
  r.params = params;
  return rc_send(c, QUAP_CREATE, &r.base);
}

/* Its answer: the link's handle, 0 on error. */
static uint64_t link_created(rawconn_t *c, uint64_t id, double t0, double *at) {
  ProtobufCMessage *m = NULL;
  uint64_t h = answered(c, id, t0, at, &m, QUAP_CREATE) == 0 && m != NULL
                   ? ((Qua__V1__CreateReply *)m)->handle
                   : 0;
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return h;
}

/* Before, a link's create, its destroy's last part, a LinkOpen and a
 * closing peer connection opened and closed sites and quajects on the
 * loop, each taking libqua's control lock: behind a 1.5 s control job the
 * whole daemon waited with them. */
static void links_behind_a_long_control_job_leave_the_loop_free(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  rawconn_t hold, owner, old, peer, ping;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&hold, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&owner, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&old, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&peer, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&ping, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(publish_queue(&owner, "lw-target", "capacity=4096"), 0);
  CU_ASSERT_EQUAL_FATAL(publish_queue(&owner, "lw-hand", "capacity=16"), 0);
  uint64_t ph = create(&ping, "counter", NULL, NULL, NULL);
  CU_ASSERT_FATAL(ph != 0);
  CU_ASSERT_EQUAL(counter_add(&ping, ph, 1), 1); /* its site is open: adds stay on the loop */
  double at;
  uint64_t doomed = link_created(&old, send_link_create(&old, &q, "lw-old", "lw-target"), 0, &at);
  CU_ASSERT_FATAL(doomed != 0);

  /* Phase 1: a create, a destroy and a LinkOpen behind the held lock. */
  double t0 = rc_now();
  send_create(&hold, HOLD_ID(HOLD_MS));
  usleep(100 * 1000); /* the worker holds the lock */
  uint64_t create_id = send_link_create(&owner, &q, "lw-link", "lw-target");
  Qua__V1__DestroyRequest dr = QUA__V1__DESTROY_REQUEST__INIT;
  dr.handle = doomed;
  uint64_t destroy_id = rc_send(&old, QUAP_DESTROY, &dr.base);
  Qua__V1__LinkOpenRequest lr = QUA__V1__LINK_OPEN_REQUEST__INIT;
  lr.link = 0x11ec;
  lr.remote = (char *)"lw-hand";
  lr.entry = (char *)"put";
  lr.first_seq = 1;
  uint64_t open_id = rc_send(&peer, QUAP_LINK_OPEN, &lr.base);
  usleep(50 * 1000);
  uint64_t v = 0;
  double worst = adds_worst(&ping, ph, 5, &v);
  double adds_done = rc_now() - t0;
  CU_ASSERT_EQUAL(v, 6);

  double create_at, destroy_at, open_at, held_at;
  uint64_t link = link_created(&owner, create_id, t0, &create_at);
  CU_ASSERT_EQUAL(answered(&old, destroy_id, t0, &destroy_at, NULL, QUAP_DESTROY), 0);
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL(answered(&peer, open_id, t0, &open_at, &m, QUAP_LINK_OPEN), 0);
  CU_ASSERT(m != NULL && ((Qua__V1__LinkOpenReply *)m)->next_seq == 1);
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  CU_ASSERT_EQUAL(answered(&hold, HOLD_ID(HOLD_MS), t0, &held_at, NULL, QUAP_CREATE), 0);
  fprintf(stderr, "\n  adds beside a link's create, destroy and LinkOpen behind a %d ms control "
          "job: worst %.1f ms, done at %.0f ms; answered at %.0f, %.0f and %.0f ms", HOLD_MS,
          worst * 1000, adds_done * 1000, create_at * 1000, destroy_at * 1000, open_at * 1000);
  CU_ASSERT(worst < 0.5);                        /* the loop was free */
  CU_ASSERT(adds_done < HOLD_MS / 1000.0 - 0.3); /* while the job held the lock */
  CU_ASSERT(create_at >= HOLD_MS / 1000.0 - 0.2); /* each waited on the worker */
  CU_ASSERT(destroy_at >= HOLD_MS / 1000.0 - 0.2);
  CU_ASSERT(open_at >= HOLD_MS / 1000.0 - 0.2);
  CU_ASSERT_FATAL(link != 0);

  /* The hand-opened link works; the destroyed one is gone. */
  Qua__V1__LinkPushReply rep;
  const uint64_t hand[] = {7, 8, 9};
  CU_ASSERT_EQUAL(link_push(&peer, 0x11ec, 1, hand, 3, &rep), 0);
  CU_ASSERT_EQUAL(rep.next_seq, 4);
  uint64_t item;
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(get_one(&ping, "lw-hand", &item), 0);
    CU_ASSERT_EQUAL(item, hand[i]);
  }
  Qua__V1__StatsReply *st = stats(&ping);
  CU_ASSERT(st != NULL && st->links == 1);
  if (st != NULL)
    protobuf_c_message_free_unpacked(&st->base, NULL);

  /* Phase 2: the peer connection closes behind the held lock. */
  t0 = rc_now();
  send_create(&hold, HOLD_ID(HOLD_MS));
  usleep(100 * 1000);
  rc_close(&peer);
  usleep(50 * 1000);
  worst = adds_worst(&ping, ph, 5, &v);
  adds_done = rc_now() - t0;
  CU_ASSERT_EQUAL(v, 11);
  CU_ASSERT_EQUAL(answered(&hold, HOLD_ID(HOLD_MS), t0, &held_at, NULL, QUAP_CREATE), 0);
  fprintf(stderr, "\n  adds beside a closing link peer behind a %d ms control job: worst %.1f ms, "
          "done at %.0f ms", HOLD_MS, worst * 1000, adds_done * 1000);
  CU_ASSERT(worst < 0.5);
  CU_ASSERT(adds_done < HOLD_MS / 1000.0 - 0.3);
  /* Another connection takes the link up where it stands. */
  rawconn_t again;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&again, q.sock), 0);
  Qua__V1__LinkOpenReply *o = NULL;
  CU_ASSERT_EQUAL(link_open(&again, 0x11ec, "lw-hand", "put", 1, &o), 0);
  CU_ASSERT(o != NULL && o->next_seq == 4);
  if (o != NULL)
    protobuf_c_message_free_unpacked(&o->base, NULL);
  rc_close(&again);

  /* The link made behind the lock carries items end to end, each once, in order. */
  for (uint64_t i = 1; i <= ITEMS; i++)
    CU_ASSERT_EQUAL(invoke(&owner, link, "put", 1, 1000 + i, NULL), 0);
  uint64_t want = 1001;
  for (double end = rc_now() + 10; want <= 1000 + ITEMS && rc_now() < end;) {
    int r = get_one(&ping, "lw-target", &item);
    if (r == QUA_DIVERTED) { /* empty for now */
      usleep(5 * 1000);
      continue;
    }
    CU_ASSERT_EQUAL_FATAL(r, 0);
    CU_ASSERT_EQUAL_FATAL(item, want);
    want++;
  }
  CU_ASSERT_EQUAL(want, 1001 + ITEMS);
  usleep(300 * 1000); /* nothing more comes: no item twice */
  CU_ASSERT_EQUAL(get_one(&ping, "lw-target", &item), QUA_DIVERTED);

  CU_ASSERT_EQUAL(destroy(&owner, link, false), 0);
  st = stats(&ping);
  CU_ASSERT(st != NULL && st->links == 0);
  if (st != NULL)
    protobuf_c_message_free_unpacked(&st->base, NULL);
  rc_close(&hold);
  rc_close(&owner);
  rc_close(&old);
  rc_close(&ping);
  double took;
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, &took), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-linkwork QUAD-FAULTSIM\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"links_behind_a_long_control_job_leave_the_loop_free",
       links_behind_a_long_control_job_leave_the_loop_free},
      {NULL, NULL},
  };
  return qtest_run("linkwork", cases);
}
