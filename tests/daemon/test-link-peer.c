/* test-link-peer.c -- the peer side of a link, spoken by hand: in-order apply, duplicates, gaps, full, takeover. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;
static quad_child_t quad;

static void peer_applies_in_order_and_drops_duplicates(void) {
  rawconn_t c;
  CU_ASSERT_FATAL(rc_connect_unix(&c, quad.sock) == 0);
  CU_ASSERT_EQUAL_FATAL(publish_queue(&c, "lp", "capacity=16"), 0);
  Qua__V1__LinkOpenReply *o = NULL;
  CU_ASSERT_EQUAL_FATAL(link_open(&c, 0x1234, "lp", "put", 1, &o), 0);
  CU_ASSERT_EQUAL(o->next_seq, 1);
  CU_ASSERT(o->notifies);
  protobuf_c_message_free_unpacked(&o->base, NULL);
  Qua__V1__LinkPushReply rep;
  const uint64_t a[] = {10, 20, 30}, b[] = {20, 30, 40}, g[] = {70};
  CU_ASSERT_EQUAL(link_push(&c, 0x1234, 1, a, 3, &rep), 0);
  CU_ASSERT_EQUAL(rep.next_seq, 4);
  CU_ASSERT_EQUAL(rep.duplicates, 0);
  /* A resend overlapping what was applied: the overlap is dropped. */
  CU_ASSERT_EQUAL(link_push(&c, 0x1234, 2, b, 3, &rep), 0);
  CU_ASSERT_EQUAL(rep.next_seq, 5);
  CU_ASSERT_EQUAL(rep.duplicates, 2);
  /* Past the next item: nothing applied. */
  CU_ASSERT_EQUAL(link_push(&c, 0x1234, 7, g, 1, &rep), 0);
  CU_ASSERT(rep.gap);
  CU_ASSERT_EQUAL(rep.next_seq, 5);
  uint64_t item;
  for (uint64_t want = 10; want <= 40; want += 10) {
    CU_ASSERT_EQUAL(get_one(&c, "lp", &item), 0);
    CU_ASSERT_EQUAL(item, want);
  }
  CU_ASSERT_EQUAL(get_one(&c, "lp", &item), QUA_DIVERTED); /* empty */
  /* A new connection finds where the link stands. */
  rawconn_t d;
  CU_ASSERT_FATAL(rc_connect_unix(&d, quad.sock) == 0);
  CU_ASSERT_EQUAL(link_open(&d, 0x1234, "lp", "put", 1, &o), 0);
  CU_ASSERT_EQUAL(o != NULL ? o->next_seq : 0, 5);
  if (o != NULL)
    protobuf_c_message_free_unpacked(&o->base, NULL);
  /* The old connection lost the link to it. */
  CU_ASSERT_EQUAL(link_push(&c, 0x1234, 5, g, 1, &rep), QUA_ESTATE);
  CU_ASSERT_EQUAL(link_push(&d, 0x1234, 5, g, 1, &rep), 0);
  CU_ASSERT_EQUAL(rep.next_seq, 6);
  CU_ASSERT_EQUAL(get_one(&d, "lp", &item), 0);
  CU_ASSERT_EQUAL(item, 70);
  rc_close(&d);
  rc_close(&c);
}

static void peer_stops_at_full_and_says_when_there_is_room(void) {
  rawconn_t c, u;
  CU_ASSERT_FATAL(rc_connect_unix(&c, quad.sock) == 0 && rc_connect_unix(&u, quad.sock) == 0);
  CU_ASSERT_EQUAL_FATAL(publish_queue(&c, "lpf", "capacity=2"), 0);
  Qua__V1__LinkOpenReply *o = NULL;
  CU_ASSERT_EQUAL_FATAL(link_open(&c, 0x77, "lpf", "put", 1, &o), 0);
  uint64_t binding = o->binding;
  protobuf_c_message_free_unpacked(&o->base, NULL);
  Qua__V1__LinkPushReply rep;
  const uint64_t a[] = {1, 2, 3, 4};
  CU_ASSERT_EQUAL(link_push(&c, 0x77, 1, a, 4, &rep), 0);
  CU_ASSERT(rep.full);
  CU_ASSERT_EQUAL(rep.next_seq, 3);
  CU_ASSERT_PTR_NULL(rc_event(&c, 100)); /* no room yet */
  uint64_t item;
  CU_ASSERT_EQUAL(get_one(&u, "lpf", &item), 0);
  CU_ASSERT_EQUAL(item, 1);
  Qua__V1__Frame *ev = rc_event(&c, 2000);
  CU_ASSERT_FATAL(ev != NULL && ev->event != NULL);
  CU_ASSERT_EQUAL(ev->event->binding, binding);
  CU_ASSERT_STRING_EQUAL(ev->event->callback, "notfull");
  quap_frame_free(ev);
  CU_ASSERT_EQUAL(link_push(&c, 0x77, 3, a + 2, 2, &rep), 0);
  CU_ASSERT(rep.full);
  CU_ASSERT_EQUAL(rep.next_seq, 4);
  rc_close(&u);
  rc_close(&c);
}

/* A target whose callentry returns a word (a counter's add): the word is dropped. */
static void peer_applies_to_a_callentry_with_a_result(void) {
  rawconn_t c;
  CU_ASSERT_FATAL(rc_connect_unix(&c, quad.sock) == 0);
  Qua__V1__CreateRequest cr = QUA__V1__CREATE_REQUEST__INIT;
  cr.type = (char *)"counter";
  cr.name = (char *)"lpc";
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL_FATAL(rc_call(&c, QUAP_CREATE, &cr.base, &m), 0);
  uint64_t h = ((Qua__V1__CreateReply *)m)->handle;
  protobuf_c_message_free_unpacked(m, NULL);
  CU_ASSERT_EQUAL_FATAL(link_open(&c, 0x55, "lpc", "add", 1, NULL), 0);
  Qua__V1__LinkPushReply rep;
  const uint64_t a[] = {1, 2, 3, 4};
  CU_ASSERT_EQUAL(link_push(&c, 0x55, 1, a, 4, &rep), 0);
  CU_ASSERT_EQUAL(rep.next_seq, 5);
  Qua__V1__InvokeRequest r = QUA__V1__INVOKE_REQUEST__INIT;
  r.handle = h;
  r.entry = (char *)"read";
  CU_ASSERT_EQUAL_FATAL(rc_call(&c, QUAP_INVOKE, &r.base, &m), 0);
  CU_ASSERT_EQUAL(((Qua__V1__InvokeReply *)m)->result, 10);
  protobuf_c_message_free_unpacked(m, NULL);
  rc_close(&c);
}

static void link_open_and_push_refusals_name_the_problem(void) {
  rawconn_t c;
  CU_ASSERT_FATAL(rc_connect_unix(&c, quad.sock) == 0);
  CU_ASSERT_EQUAL_FATAL(publish_queue(&c, "lpr", "capacity=2"), 0);
  CU_ASSERT_EQUAL(link_open(&c, 9, "nosuch", "put", 1, NULL), QUA_ENOTFOUND);
  CU_ASSERT_EQUAL(link_open(&c, 9, "lpr", "count", 1, NULL), QUA_EARITY);
  CU_ASSERT_EQUAL(link_open(&c, 9, "lpr", "nosuch", 1, NULL), QUA_ENOENTRY);
  CU_ASSERT_EQUAL(link_open(&c, 0, "lpr", "put", 1, NULL), QUA_EINVAL);
  Qua__V1__LinkPushReply rep;
  const uint64_t a[] = {1};
  CU_ASSERT_EQUAL(link_push(&c, 9, 1, a, 1, &rep), QUA_ESTATE);
  rc_close(&c);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-link-peer PATH-TO-QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  if (quad_start(&quad, quad_exe, NULL) != 0) {
    quad_stop(&quad, SIGKILL, 100, NULL);
    return 1;
  }
  static const qtest_case_t cases[] = {
      {"peer_applies_in_order_and_drops_duplicates", peer_applies_in_order_and_drops_duplicates},
      {"peer_stops_at_full_and_says_when_there_is_room",
       peer_stops_at_full_and_says_when_there_is_room},
      {"peer_applies_to_a_callentry_with_a_result", peer_applies_to_a_callentry_with_a_result},
      {"link_open_and_push_refusals_name_the_problem", link_open_and_push_refusals_name_the_problem},
      {NULL, NULL}};
  int rc = qtest_run("link-peer", cases);
  quad_stop(&quad, SIGTERM, 5000, NULL);
  return rc;
}
