/* test-quad.c -- a real quad on a private socket, driven over raw sockets: methods, events,
 * credits, limits, malformed input beside a well-behaved connection, TCP tokens, SIGTERM. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

/* --- One daemon for the functional cases ---------------------------------------- */

static quad_child_t shared;

static void methods_answer_on_unix_socket(void) {
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, shared.sock), 0);
  Qua__V1__HelloRequest h = QUA__V1__HELLO_REQUEST__INIT;
  h.version = QUAP_VERSION;
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_HELLO, &h.base, &m), 0);
  if (m != NULL) {
    Qua__V1__HelloReply *hr = (Qua__V1__HelloReply *)m;
    CU_ASSERT_EQUAL(hr->version, QUAP_VERSION);
    CU_ASSERT_EQUAL(hr->max_frame, QUAP_DEFAULT_MAX_FRAME);
    CU_ASSERT(strncmp(hr->server, "quad ", 5) == 0);
    protobuf_c_message_free_unpacked(m, NULL);
  }
  Qua__V1__ListTypesRequest lt = QUA__V1__LIST_TYPES_REQUEST__INIT;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_LIST_TYPES, &lt.base, &m), 0);
  if (m != NULL) {
    Qua__V1__ListTypesReply *r = (Qua__V1__ListTypesReply *)m;
    size_t n = 0;
    while (qua_types()[n] != NULL)
      n++;
    /* and quad's own: link, then the m68k types when it has the backend */
    CU_ASSERT(r->n_types > n && strcmp(r->types[n]->name, "link") == 0);
    CU_ASSERT(r->n_types == n + 1 || r->n_types == n + 4);
    for (size_t i = n + 1; i < r->n_types; i++)
      CU_ASSERT(strncmp(r->types[i]->name, "m68k-", 5) == 0);
    bool queue = false;
    for (size_t i = 0; i < r->n_types; i++)
      if (strcmp(r->types[i]->name, "queue") == 0)
        queue = r->types[i]->n_callbacks >= 4 && r->types[i]->n_entries >= 2;
    CU_ASSERT_TRUE(queue);
    protobuf_c_message_free_unpacked(m, NULL);
  }
  int st;
  uint64_t h1 = create(&c, "counter", NULL, &st, "initial=10");
  CU_ASSERT_EQUAL(st, 0);
  CU_ASSERT_EQUAL(counter_add(&c, h1, 5), 15);
  CU_ASSERT_EQUAL(counter_add(&c, h1, (uint64_t)-20), (uint64_t)-5);
  /* Errors of the library come back with its status and message. */
  create(&c, "nosuchtype", NULL, &st, NULL);
  CU_ASSERT_EQUAL(st, QUA_ENOTYPE);
  create(&c, "queue", NULL, &st, "capacity=3");
  CU_ASSERT_EQUAL(st, QUA_ERANGE);
  CU_ASSERT_EQUAL(invoke(&c, h1, "nosuch", 0, 0, NULL), QUA_ENOENTRY);
  CU_ASSERT_EQUAL(invoke(&c, h1, "add", 0, 0, NULL), QUA_EINVAL);
  /* Describe and list. */
  Qua__V1__DescribeRequest d = QUA__V1__DESCRIBE_REQUEST__INIT;
  d.handle = h1;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_DESCRIBE, &d.base, &m), 0);
  if (m != NULL) {
    Qua__V1__QuajectInfo *qi = ((Qua__V1__DescribeReply *)m)->quaject;
    CU_ASSERT_PTR_NOT_NULL_FATAL(qi);
    CU_ASSERT_STRING_EQUAL(qi->type, "counter");
    CU_ASSERT_EQUAL(qi->handle, h1);
    CU_ASSERT_PTR_NOT_NULL(strstr(qi->state, "value=-5"));
    CU_ASSERT_EQUAL(qi->n_impls, 3);
    CU_ASSERT(qi->n_params == 2 && qi->params[0] == 10);
    protobuf_c_message_free_unpacked(m, NULL);
  }
  Qua__V1__StatsReply *s = stats(&c);
  CU_ASSERT_PTR_NOT_NULL(s);
  if (s != NULL) {
    CU_ASSERT(s->connections >= 1);
    CU_ASSERT(s->quajects >= 1);
    CU_ASSERT(s->requests >= 8);
    protobuf_c_message_free_unpacked(&s->base, NULL);
  }
  rc_close(&c);
}

static void full_callback_comes_back_in_the_reply(void) {
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, shared.sock), 0);
  uint64_t q = create(&c, "queue", NULL, NULL, "capacity=2");
  Qua__V1__InvokeReply *r = NULL;
  CU_ASSERT_EQUAL(invoke(&c, q, "put", 1, 11, &r), 0);
  CU_ASSERT(r && r->status == 0 && r->n_fired == 0);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  CU_ASSERT_EQUAL(invoke(&c, q, "put", 1, 12, NULL), 0);
  CU_ASSERT_EQUAL(invoke(&c, q, "put", 1, 13, &r), 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(r->status, QUA_DIVERTED);
  CU_ASSERT_EQUAL(r->n_fired, 1);
  if (r->n_fired == 1) {
    CU_ASSERT_STRING_EQUAL(r->fired[0]->callback, "full");
    CU_ASSERT_EQUAL(r->fired[0]->arg, 13);
  }
  protobuf_c_message_free_unpacked(&r->base, NULL);
  CU_ASSERT_EQUAL(invoke(&c, q, "get", 0, 0, &r), 0);
  CU_ASSERT(r && r->has_result && r->result == 11);
  protobuf_c_message_free_unpacked(&r->base, NULL);
  /* A batch: get, get (empty fires), count. */
  Qua__V1__InvokeRequest calls[3] = {QUA__V1__INVOKE_REQUEST__INIT, QUA__V1__INVOKE_REQUEST__INIT,
                                     QUA__V1__INVOKE_REQUEST__INIT};
  Qua__V1__InvokeRequest *cp[3] = {&calls[0], &calls[1], &calls[2]};
  calls[0].handle = calls[1].handle = q;
  calls[0].entry = calls[1].entry = (char *)"get";
  calls[2].handle = 9999;
  calls[2].entry = (char *)"count";
  Qua__V1__InvokeBatchRequest b = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
  b.n_calls = 3;
  b.calls = cp;
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_INVOKE_BATCH, &b.base, &m), 0);
  Qua__V1__InvokeBatchReply *br = (Qua__V1__InvokeBatchReply *)m;
  CU_ASSERT_PTR_NOT_NULL_FATAL(br);
  CU_ASSERT_EQUAL_FATAL(br->n_replies, 3);
  CU_ASSERT(br->replies[0]->has_result && br->replies[0]->result == 12);
  CU_ASSERT_EQUAL(br->replies[1]->status, QUA_DIVERTED);
  CU_ASSERT(br->replies[1]->n_fired == 1 && strcmp(br->replies[1]->fired[0]->callback, "empty") == 0);
  CU_ASSERT_EQUAL(br->replies[2]->status, QUA_EHANDLE);
  protobuf_c_message_free_unpacked(m, NULL);
  rc_close(&c);
}

static void bound_callback_reaches_a_watcher(void) {
  rawconn_t a, b;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, shared.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, shared.sock), 0);
  int st;
  uint64_t qa = create(&a, "queue", "watched", &st, "capacity=4");
  CU_ASSERT_EQUAL_FATAL(st, 0);
  uint64_t qb = open_name(&b, "watched", &st);
  CU_ASSERT_EQUAL_FATAL(st, 0);
  uint64_t bd = bind_to(&b, qb, "notempty", NULL, 0, &st);
  CU_ASSERT_EQUAL(st, 0);
  uint64_t bf = bind_to(&b, qb, "full", NULL, 0, &st);
  CU_ASSERT_EQUAL(st, 0);
  bind_to(&b, qb, "nosuch", NULL, 0, &st);
  CU_ASSERT_EQUAL(st, QUA_ENOCALLBACK);
  /* a puts: the queue goes not-empty, b hears it. */
  CU_ASSERT_EQUAL(invoke(&a, qa, "put", 1, 1, NULL), 0);
  Qua__V1__Frame *ev = rc_event(&b, 3000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
  CU_ASSERT_EQUAL(ev->event->binding, bd);
  CU_ASSERT_EQUAL(ev->event->handle, qb);
  CU_ASSERT_STRING_EQUAL(ev->event->callback, "notempty");
  CU_ASSERT_EQUAL(ev->event->seq, 1);
  quap_frame_free(ev);
  /* Fill it: a's fourth... fifth put is full, and b's "full" binding hears it too. */
  for (uint64_t i = 2; i <= 5; i++)
    invoke(&a, qa, "put", 1, i, NULL);
  ev = rc_event(&b, 3000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
  CU_ASSERT_EQUAL(ev->event->binding, bf);
  CU_ASSERT_STRING_EQUAL(ev->event->callback, "full");
  CU_ASSERT_EQUAL(ev->event->arg, 5);
  quap_frame_free(ev);
  /* Destroying through b (a handle from Open) invalidates a's handle. */
  CU_ASSERT_EQUAL(destroy(&b, qb, true), 0);
  CU_ASSERT_EQUAL(invoke(&a, qa, "count", 0, 0, NULL), QUA_EHANDLE);
  CU_ASSERT_EQUAL(open_name(&a, "watched", &st), 0);
  CU_ASSERT_EQUAL(st, QUA_ENOTFOUND);
  rc_close(&a);
  rc_close(&b);
}

static void drain_takes_only_what_credits_allow(void) {
  rawconn_t p, d;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&p, shared.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&d, shared.sock), 0);
  int st;
  uint64_t q = create(&p, "queue", "drained", &st, "capacity=4");
  CU_ASSERT_EQUAL_FATAL(st, 0);
  uint64_t qd = open_name(&d, "drained", &st);
  uint64_t b = bind_to(&d, qd, NULL, "get", 2, &st);
  CU_ASSERT_EQUAL_FATAL(st, 0);
  /* Six puts: two go to the drainer, four fill the queue... */
  int full = 0;
  for (uint64_t i = 1; i <= 7; i++) {
    Qua__V1__InvokeReply *r = NULL;
    invoke(&p, q, "put", 1, 100 + i, &r);
    if (r != NULL && r->n_fired == 1 && strcmp(r->fired[0]->callback, "full") == 0)
      full++;
    if (r != NULL)
      protobuf_c_message_free_unpacked(&r->base, NULL);
    usleep(2000);
  }
  /* ...and the seventh (at least) found it full: the slow client backs up the graph. */
  CU_ASSERT(full >= 1);
  for (int i = 0; i < 2; i++) {
    Qua__V1__Frame *ev = rc_event(&d, 3000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_EQUAL(ev->event->binding, b);
    CU_ASSERT_STRING_EQUAL(ev->event->callback, "get");
    CU_ASSERT_EQUAL(ev->event->arg, 101 + (uint64_t)i);
    quap_frame_free(ev);
  }
  CU_ASSERT_PTR_NULL(rc_event(&d, 200)); /* no credit, no item */
  Qua__V1__CreditRequest cr = QUA__V1__CREDIT_REQUEST__INIT;
  cr.binding = b;
  cr.credits = 10;
  CU_ASSERT_EQUAL(rc_call(&d, QUAP_CREDIT, &cr.base, NULL), 0);
  for (int i = 0; i < 4; i++) {
    Qua__V1__Frame *ev = rc_event(&d, 3000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    CU_ASSERT_EQUAL(ev->event->arg, 103 + (uint64_t)i);
    quap_frame_free(ev);
  }
  /* Credits left: a new put arrives at once (woken by notempty). */
  CU_ASSERT_EQUAL(invoke(&p, q, "put", 1, 555, NULL), 0);
  Qua__V1__Frame *ev = rc_event(&d, 3000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
  CU_ASSERT_EQUAL(ev->event->arg, 555);
  quap_frame_free(ev);
  /* Credit on a callback binding is refused; unknown bindings too. */
  uint64_t cbb = bind_to(&d, qd, "notfull", NULL, 0, &st);
  cr.binding = cbb;
  CU_ASSERT_EQUAL(rc_call(&d, QUAP_CREDIT, &cr.base, NULL), QUA_ESTATE);
  cr.binding = 4242;
  CU_ASSERT_EQUAL(rc_call(&d, QUAP_CREDIT, &cr.base, NULL), QUA_EHANDLE);
  Qua__V1__UnbindRequest ub = QUA__V1__UNBIND_REQUEST__INIT;
  ub.binding = b;
  CU_ASSERT_EQUAL(rc_call(&d, QUAP_UNBIND, &ub.base, NULL), 0);
  CU_ASSERT_EQUAL(rc_call(&d, QUAP_UNBIND, &ub.base, NULL), QUA_EHANDLE);
  /* A counter's "out" callout, bound to the client: pass sends items. */
  uint64_t cnt = create(&d, "counter", NULL, &st, NULL);
  uint64_t ob = bind_to(&d, cnt, NULL, "out", 1, &st);
  CU_ASSERT_EQUAL(st, 0);
  CU_ASSERT_EQUAL(invoke(&d, cnt, "pass", 1, 77, NULL), 0);
  ev = rc_event(&d, 3000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
  CU_ASSERT_EQUAL(ev->event->binding, ob);
  CU_ASSERT_STRING_EQUAL(ev->event->callback, "out");
  CU_ASSERT_EQUAL(ev->event->arg, 77);
  quap_frame_free(ev);
  uint64_t pump = create(&d, "pump", NULL, &st, NULL);
  bind_to(&d, pump, NULL, "source", 1, &st);
  CU_ASSERT_EQUAL(st, QUA_ESTATE);
  CU_ASSERT_EQUAL(destroy(&d, pump, false), 0);
  CU_ASSERT_EQUAL(destroy(&p, q, true), 0);
  rc_close(&p);
  rc_close(&d);
}

static void events_past_max_events_are_counted_as_dropped(void) {
  quad_child_t q;
  const char *extra[] = {"--max-events", "4", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  uint64_t cnt = create(&c, "counter", NULL, NULL, "threshold=1");
  int st;
  uint64_t b = bind_to(&c, cnt, "threshold", NULL, 0, &st);
  CU_ASSERT_EQUAL(st, 0);
  /* Twenty crossings in one batch: one loop turn, the ring holds four. */
  Qua__V1__InvokeRequest calls[20];
  Qua__V1__InvokeRequest *cp[20];
  uint64_t up = 1, down = (uint64_t)-1;
  for (int i = 0; i < 20; i++) {
    qua__v1__invoke_request__init(&calls[i]);
    calls[i].handle = cnt;
    calls[i].entry = (char *)"add";
    calls[i].n_args = 1;
    calls[i].args = i % 2 ? &down : &up;
    cp[i] = &calls[i];
  }
  Qua__V1__InvokeBatchRequest br = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
  br.n_calls = 20;
  br.calls = cp;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_INVOKE_BATCH, &br.base, NULL), 0);
  uint64_t got = 0, dropped = 0;
  Qua__V1__Frame *ev;
  while ((ev = rc_event(&c, 300)) != NULL) {
    CU_ASSERT_EQUAL(ev->event->binding, b);
    got++;
    dropped += ev->event->dropped;
    quap_frame_free(ev);
  }
  CU_ASSERT_EQUAL(got, 4);
  /* The drops show in the next event and in Stats. */
  CU_ASSERT_EQUAL(counter_add(&c, cnt, 1), 1);
  ev = rc_event(&c, 3000);
  CU_ASSERT_PTR_NOT_NULL(ev);
  if (ev != NULL)
    dropped += ev->event->dropped;
  quap_frame_free(ev);
  CU_ASSERT_EQUAL(dropped, 16);
  Qua__V1__StatsReply *s = stats(&c);
  CU_ASSERT(s != NULL && s->events_dropped == 16 && s->events_sent == 5);
  if (s != NULL)
    protobuf_c_message_free_unpacked(&s->base, NULL);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

static void closing_connection_destroys_what_it_did_not_publish(void) {
  rawconn_t a, b;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, shared.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, shared.sock), 0);
  int st;
  uint64_t kept = create(&a, "queue", "kept", &st, NULL);
  CU_ASSERT_EQUAL(st, 0);
  uint64_t gone = create(&a, "counter", NULL, &st, NULL);
  uint64_t pump = create(&a, "pump", NULL, &st, NULL);
  CU_ASSERT_EQUAL(wire(&a, pump, "source", kept, "get"), 0);
  CU_ASSERT_EQUAL(wire(&a, pump, "source", kept, "get"), QUA_EWIRED);
  /* b watches "kept" and holds a handle on it. */
  uint64_t kb = open_name(&b, "kept", &st);
  bind_to(&b, kb, "notempty", NULL, 0, &st);
  CU_ASSERT_EQUAL(destroy(&b, kb, false), QUA_EBUSY); /* the pump's source is wired to it */
  Qua__V1__StatsReply *s = stats(&b);
  uint64_t before = s ? s->quajects : 0;
  if (s != NULL)
    protobuf_c_message_free_unpacked(&s->base, NULL);
  rc_close(&a); /* counter and pump go; "kept" stays */
  (void)gone;
  double end = rc_now() + 3;
  uint64_t now = before;
  while (rc_now() < end && now != before - 2) {
    s = stats(&b);
    now = s ? s->quajects : 0;
    if (s != NULL)
      protobuf_c_message_free_unpacked(&s->base, NULL);
    usleep(10000);
  }
  CU_ASSERT_EQUAL(now, before - 2);
  Qua__V1__InvokeReply *r = NULL;
  CU_ASSERT_EQUAL(invoke(&b, kb, "count", 0, 0, &r), 0);
  if (r != NULL)
    protobuf_c_message_free_unpacked(&r->base, NULL);
  CU_ASSERT_EQUAL(destroy(&b, kb, false), 0); /* nothing wired to it now */
  rc_close(&b);
}

/* Puts items first..last into a queue with batches of InvokeBatch. */
static void put_range(rawconn_t *c, uint64_t q, uint64_t first, uint64_t last) {
  enum { B = 100 };
  Qua__V1__InvokeRequest calls[B];
  Qua__V1__InvokeRequest *cp[B];
  uint64_t vals[B];
  for (uint64_t v = first; v <= last;) {
    size_t n = 0;
    for (; n < B && v <= last; n++, v++) {
      qua__v1__invoke_request__init(&calls[n]);
      vals[n] = v;
      calls[n].handle = q;
      calls[n].entry = (char *)"put";
      calls[n].n_args = 1;
      calls[n].args = &vals[n];
      cp[n] = &calls[n];
    }
    Qua__V1__InvokeBatchRequest br = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
    br.n_calls = n;
    br.calls = cp;
    CU_ASSERT_EQUAL(rc_call(c, QUAP_INVOKE_BATCH, &br.base, NULL), 0);
  }
}

/* Receives n drained items, granting credits `chunk` at a time; checks order. */
static uint64_t take_items(rawconn_t *d, uint64_t binding, uint64_t next, int n, int chunk) {
  Qua__V1__CreditRequest cr = QUA__V1__CREDIT_REQUEST__INIT;
  cr.binding = binding;
  for (int got = 0; got < n;) {
    cr.credits = (uint64_t)(n - got < chunk ? n - got : chunk);
    CU_ASSERT_EQUAL_FATAL(rc_call(d, QUAP_CREDIT, &cr.base, NULL), 0);
    for (uint64_t k = 0; k < cr.credits; k++, got++) {
      Qua__V1__Frame *ev = rc_event(d, 5000);
      CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
      CU_ASSERT_EQUAL(ev->event->arg, next);
      next++;
      quap_frame_free(ev);
    }
  }
  return next;
}

static void pump_backs_up_to_a_slow_drainer_and_a_new_one_resumes(void) {
  rawconn_t p, d, w;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&p, shared.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&d, shared.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&w, shared.sock), 0);
  int st;
  uint64_t src = create(&p, "queue", "bk-src", &st, "capacity=1024");
  uint64_t dst = create(&p, "queue", "bk-dst", &st, "capacity=8");
  uint64_t pump = create(&p, "pump", NULL, &st, NULL);
  CU_ASSERT_EQUAL(wire(&p, pump, "source", src, "get"), 0);
  CU_ASSERT_EQUAL(wire(&p, pump, "sink", dst, "put"), 0);
  /* A watcher hears "full" fired by the pump's thread. */
  uint64_t wq = open_name(&w, "bk-dst", &st);
  uint64_t wb = bind_to(&w, wq, "full", NULL, 0, &st);
  CU_ASSERT_EQUAL(st, 0);
  uint64_t dq = open_name(&d, "bk-dst", &st);
  uint64_t b = bind_to(&d, dq, NULL, "get", 0, &st);
  CU_ASSERT_EQUAL_FATAL(st, 0);
  put_range(&p, src, 1, 600);
  /* The drainer takes nothing yet: the pump fills dst and blocks on full. */
  Qua__V1__Frame *ev = rc_event(&w, 5000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
  CU_ASSERT_EQUAL(ev->event->binding, wb);
  CU_ASSERT_STRING_EQUAL(ev->event->callback, "full");
  quap_frame_free(ev);
  /* 300 items, in order, 37 credits at a time. */
  uint64_t next = take_items(&d, b, 1, 300, 37);
  /* The drainer goes away with no credit outstanding; a new one takes the rest. */
  rc_close(&d);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&d, shared.sock), 0);
  dq = open_name(&d, "bk-dst", &st);
  b = bind_to(&d, dq, NULL, "get", 0, &st);
  CU_ASSERT_EQUAL_FATAL(st, 0);
  next = take_items(&d, b, next, 300, 64);
  CU_ASSERT_EQUAL(next, 601);
  CU_ASSERT_PTR_NULL(rc_event(&d, 100));
  Qua__V1__InvokeReply *r = NULL;
  CU_ASSERT_EQUAL(invoke(&p, src, "count", 0, 0, &r), 0);
  CU_ASSERT(r != NULL && r->result == 0);
  if (r != NULL)
    protobuf_c_message_free_unpacked(&r->base, NULL);
  rc_close(&w);
  rc_close(&d);
  rc_close(&p); /* the pump goes; the published queues stay */
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&p, shared.sock), 0);
  CU_ASSERT_EQUAL(destroy(&p, open_name(&p, "bk-src", &st), false), 0);
  CU_ASSERT_EQUAL(destroy(&p, open_name(&p, "bk-dst", &st), false), 0);
  rc_close(&p);
}

/* --- Malformed input, beside a well-behaved connection ----------------------------- */

static void write_frame_raw(rawconn_t *c, uint32_t len, const void *body, size_t n) {
  uint8_t hdr[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
  rc_write(c, hdr, 4);
  if (n > 0)
    rc_write(c, body, n);
}

static void malformed_input_is_answered_and_others_carry_on(void) {
  witness_t w;
  witness_open(&w, shared.sock);
  witness_check(&w);

  /* Random bytes: the daemon answers an error or closes, never crashes. */
  unsigned seed = 99;
  for (int round = 0; round < 20; round++) {
    rawconn_t c;
    CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, shared.sock), 0);
    uint8_t junk[512];
    size_t n = 1 + (size_t)(rand_r(&seed) % sizeof junk);
    for (size_t i = 0; i < n; i++)
      junk[i] = (uint8_t)rand_r(&seed);
    rc_write(&c, junk, n);
    shutdown(c.fd, SHUT_WR);
    CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
    rc_close(&c);
    witness_check(&w);
  }

  /* An oversized frame: ETOOBIG, then the connection is closed. */
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, shared.sock), 0);
  write_frame_raw(&c, (2u << 20), NULL, 0);
  Qua__V1__Frame *f = rc_recv(&c, 3000);
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f != NULL)
    CU_ASSERT_EQUAL(f->status, QUA_ETOOBIG);
  quap_frame_free(f);
  CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
  rc_close(&c);
  witness_check(&w);

  /* A frame that is not a Frame: EPROTO, closed. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, shared.sock), 0);
  uint8_t bad[] = {0x0f, 0xff, 0xff};
  write_frame_raw(&c, sizeof bad, bad, sizeof bad);
  f = rc_recv(&c, 3000);
  CU_ASSERT(f != NULL && f->status == QUA_EPROTO);
  quap_frame_free(f);
  CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
  rc_close(&c);

  /* A truncated frame, then the client goes away. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, shared.sock), 0);
  write_frame_raw(&c, 100, "abc", 3);
  rc_close(&c);
  witness_check(&w);

  /* On one connection: unknown method, bad body, id 0, a response frame,
   * stale and foreign handles; each answered, the connection stays. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, shared.sock), 0);
  Qua__V1__Frame fr = QUA__V1__FRAME__INIT;
  quap_buf_t b;
  quap_buf_init(&b);
  fr.id = 77;
  fr.method = 9999;
  quap_frame_append(&b, &fr);
  uint8_t junkbody[] = {0x0a, 0x50, 0x01};
  fr.id = 78;
  fr.method = QUAP_OPEN;
  fr.body.data = junkbody;
  fr.body.len = sizeof junkbody;
  quap_frame_append(&b, &fr);
  fr.id = 0;
  fr.method = QUAP_STATS;
  fr.body.len = 0;
  quap_frame_append(&b, &fr);
  fr.id = 79;
  fr.kind = QUA__V1__FRAME__KIND__RESPONSE;
  quap_frame_append(&b, &fr);
  rc_write(&c, b.data, b.len);
  quap_buf_fini(&b);
  int want[][2] = {{77, QUA_ENOMETHOD}, {78, QUA_EPROTO}, {0, QUA_EPROTO}, {79, QUA_EPROTO}};
  for (int i = 0; i < 4; i++) {
    f = rc_recv(&c, 3000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->id, (uint64_t)want[i][0]);
    CU_ASSERT_EQUAL(f->status, want[i][1]);
    CU_ASSERT(f->message[0] != '\0');
    quap_frame_free(f);
  }
  CU_ASSERT_EQUAL(invoke(&c, w.counter, "add", 1, 1, NULL), QUA_EHANDLE); /* foreign */
  uint64_t mine = create(&c, "counter", NULL, NULL, NULL);
  CU_ASSERT_EQUAL(destroy(&c, mine, false), 0);
  CU_ASSERT_EQUAL(invoke(&c, mine, "add", 1, 1, NULL), QUA_EHANDLE); /* stale */
  CU_ASSERT_EQUAL(destroy(&c, mine, false), QUA_EHANDLE);
  uint64_t again = create(&c, "counter", NULL, NULL, NULL);
  CU_ASSERT(again > mine); /* handles are never reused */
  CU_ASSERT_EQUAL(counter_add(&c, again, 2), 2);
  rc_close(&c);
  witness_check(&w);
  rc_close(&w.c);
}

static void pipelined_requests_past_max_inflight_are_all_answered(void) {
  quad_child_t q;
  const char *extra[] = {"--max-inflight", "4", "--max-quajects-per-client", "3", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  uint64_t cnt = create(&c, "counter", NULL, NULL, NULL);
  /* 500 pipelined adds in one write; answered in order, with the right sums. */
  quap_buf_t b;
  quap_buf_init(&b);
  uint64_t one = 1;
  Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
  in.handle = cnt;
  in.entry = (char *)"add";
  in.n_args = 1;
  in.args = &one;
  for (uint64_t id = 1000; id < 1500; id++)
    quap_request_append(&b, id, QUAP_INVOKE, &in.base);
  rc_write(&c, b.data, b.len);
  quap_buf_fini(&b);
  int ok = 0;
  for (uint64_t id = 1000; id < 1500; id++) {
    Qua__V1__Frame *f = rc_recv(&c, 3000);
    if (f == NULL)
      break;
    ProtobufCMessage *m = NULL;
    if (f->id == id && quap_response_unpack(f, QUAP_INVOKE, &m) == 0 &&
        ((Qua__V1__InvokeReply *)m)->result == id - 999)
      ok++;
    if (m != NULL)
      protobuf_c_message_free_unpacked(m, NULL);
    quap_frame_free(f);
  }
  CU_ASSERT_EQUAL(ok, 500);
  /* The quaject limit. */
  int st;
  create(&c, "counter", NULL, &st, NULL);
  create(&c, "counter", NULL, &st, NULL);
  CU_ASSERT_EQUAL(st, 0);
  create(&c, "counter", NULL, &st, NULL);
  CU_ASSERT_EQUAL(st, QUA_ELIMIT);
  rc_close(&c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* --- TCP and tokens -------------------------------------------------------------- */

static void tcp_needs_hello_with_the_right_token(void) {
  char tok[96];
  snprintf(tok, sizeof tok, "/tmp/quad-token-%ld", (long)getpid());
  FILE *f = fopen(tok, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("s3cret-token\n", f);
  fclose(f);
  chmod(tok, 0640);
  quad_child_t q;
  const char *extra[] = {"--listen", "127.0.0.1:0", "--token-file", tok, NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  CU_ASSERT_FATAL(q.port > 0);
  witness_t w;
  witness_open(&w, q.sock);

  rawconn_t c;
  /* A request before Hello: EAUTH, closed. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  Qua__V1__StatsRequest sr = QUA__V1__STATS_REQUEST__INIT;
  CU_ASSERT_EQUAL(rc_call(&c, QUAP_STATS, &sr.base, NULL), QUA_EAUTH);
  CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
  rc_close(&c);
  witness_check(&w);
  /* A wrong token, a missing one, a prefix of the right one: EAUTH, closed. */
  const char *wrong[] = {"s3cret-tokeN", "", "s3cret", "s3cret-token-and-more"};
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
    CU_ASSERT_EQUAL(hello(&c, wrong[i]), QUA_EAUTH);
    CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
    rc_close(&c);
  }
  /* Garbage before Hello. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  rc_write(&c, "GET / HTTP/1.0\r\n\r\n", 18);
  CU_ASSERT_TRUE(rc_closed_within(&c, 3000));
  rc_close(&c);
  witness_check(&w);
  /* The right token. */
  CU_ASSERT_EQUAL_FATAL(rc_connect_tcp(&c, q.port), 0);
  CU_ASSERT_EQUAL(hello(&c, "s3cret-token"), 0);
  uint64_t h = create(&c, "counter", NULL, NULL, NULL);
  CU_ASSERT_EQUAL(counter_add(&c, h, 9), 9);
  rc_close(&c);
  witness_check(&w);
  rc_close(&w.c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
  unlink(tok);
}

static void bad_options_and_token_files_are_refused(void) {
  quad_child_t q;
  const char *bad1[] = {"--max-frame", "lots", NULL};
  CU_ASSERT_EQUAL(quad_start(&q, quad_exe, bad1), 1002);
  quad_stop(&q, SIGTERM, 100, NULL);
  const char *bad2[] = {"--listen", "127.0.0.1:0", NULL};
  CU_ASSERT_EQUAL(quad_start(&q, quad_exe, bad2), 1002);
  quad_stop(&q, SIGTERM, 100, NULL);
  char tok[96];
  snprintf(tok, sizeof tok, "/tmp/quad-token-open-%ld", (long)getpid());
  FILE *f = fopen(tok, "w");
  fputs("x\n", f);
  fclose(f);
  chmod(tok, 0644);
  const char *bad3[] = {"--listen", "127.0.0.1:0", "--token-file", tok, NULL};
  CU_ASSERT_EQUAL(quad_start(&q, quad_exe, bad3), 1002);
  quad_stop(&q, SIGTERM, 100, NULL);
  unlink(tok);
  /* A second daemon on a live socket refuses to start. */
  const char *argv[] = {quad_exe, "--socket", shared.sock, NULL};
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 2);
    execv(quad_exe, (char *const *)argv);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
  rawconn_t c;
  CU_ASSERT_EQUAL(rc_connect_unix(&c, shared.sock), 0); /* still served */
  rc_close(&c);
}

static void stale_socket_file_is_replaced(void) {
  /* A socket file nobody listens on (a crashed daemon's). */
  char dir[64] = "/tmp/quad-stale-XXXXXX";
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  char path[96];
  snprintf(path, sizeof path, "%s/quad.sock", dir);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  memcpy(sa.sun_path, path, strlen(path) + 1);
  CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  close(fd);
  const char *argv[] = {quad_exe, "--socket", path, NULL};
  pid_t pid = fork();
  if (pid == 0) {
    int nul = open("/dev/null", O_WRONLY);
    dup2(nul, 2);
    execv(quad_exe, (char *const *)argv);
    _exit(127);
  }
  rawconn_t c;
  bool up = false;
  for (int i = 0; i < 500 && !up; i++) {
    up = rc_connect_unix(&c, path) == 0;
    if (!up)
      usleep(10000);
  }
  CU_ASSERT_TRUE(up);
  if (up) {
    CU_ASSERT_EQUAL(hello(&c, NULL), 0);
    rc_close(&c);
    struct stat st;
    CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0660);
  }
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* removed at exit */
  unlink(path);
  rmdir(dir);
}

/* --- SIGTERM ---------------------------------------------------------------------------- */

static void sigterm_answers_in_flight_and_exits_zero(void) {
  quad_child_t q;
  const char *extra[] = {"--max-inflight", "1024", NULL}; /* all it reads is taken */
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c, idle, drainer;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&idle, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&drainer, q.sock), 0);
  int st;
  uint64_t cnt = create(&c, "counter", "survivor", &st, NULL);
  /* A pump moving a queue into another keeps a thread busy at exit. */
  uint64_t q1 = create(&c, "queue", "q1", &st, NULL);
  uint64_t q2 = create(&c, "queue", "q2", &st, NULL);
  uint64_t pump = create(&c, "pump", "p", &st, NULL);
  CU_ASSERT_EQUAL(wire(&c, pump, "source", q1, "get"), 0);
  CU_ASSERT_EQUAL(wire(&c, pump, "sink", q2, "put"), 0);
  uint64_t dq = open_name(&drainer, "q2", &st);
  bind_to(&drainer, dq, NULL, "get", 1000, &st);
  CU_ASSERT_EQUAL(st, 0);
  CU_ASSERT_EQUAL(invoke(&c, q1, "put", 1, 5, NULL), 0);
  Qua__V1__Frame *ev = rc_event(&drainer, 3000);
  CU_ASSERT(ev != NULL && ev->event->arg == 5);
  quap_frame_free(ev);
  /* Pipeline adds and puts into the pumped queue, then SIGTERM at once,
   * while quad is still reading, answering and pumping them. Every request
   * comes back once, in order, answered or refused as ESHUTDOWN (they are
   * in quad's socket before the signal, and all fit in --max-inflight);
   * the adds answered count up by one; the drainer gets the items the pump
   * moved, in order, none twice. */
  enum { PAIRS = 350 }; /* an add, then a put, PAIRS times */
  quap_buf_t b;
  quap_buf_init(&b);
  uint64_t one = 1, item[PAIRS];
  Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
  in.handle = cnt;
  in.entry = (char *)"add";
  in.n_args = 1;
  in.args = &one;
  Qua__V1__InvokeRequest put = QUA__V1__INVOKE_REQUEST__INIT;
  put.handle = q1;
  put.entry = (char *)"put";
  put.n_args = 1;
  for (uint64_t k = 0; k < 2 * PAIRS; k++) {
    if (k % 2 == 1) {
      item[k / 2] = 1000 + k / 2;
      put.args = &item[k / 2];
      quap_request_append(&b, 100 + k, QUAP_INVOKE, &put.base);
    } else {
      quap_request_append(&b, 100 + k, QUAP_INVOKE, &in.base);
    }
  }
  double took = 0;
  rc_write(&c, b.data, b.len);
  quap_buf_fini(&b);
  /* The signal goes while the pump is moving them: once the drainer has
   * its first item (the control work that is left to the exit leaves the
   * pump no time of its own after the signal). */
  int events = 0, out_of_order = 0;
  Qua__V1__Frame *first = rc_event(&drainer, 4000);
  CU_ASSERT_PTR_NOT_NULL(first);
  if (first != NULL) {
    out_of_order += first->event->arg != 1000;
    events++;
    quap_frame_free(first);
  }
  double t0 = rc_now();
  kill(q.pid, SIGTERM);
  int answered = 0, refused = 0, wrong = 0, put_ok = 0;
  uint64_t next_add = 1;
  for (uint64_t k = 0; k < 2 * PAIRS; k++) {
    Qua__V1__Frame *f = rc_recv(&c, 4000);
    if (f == NULL)
      break;
    put_ok += k % 2 == 1 && f->status == 0;
    ProtobufCMessage *m = NULL;
    bool is_add = k % 2 == 0;
    if (f->kind != QUA__V1__FRAME__KIND__RESPONSE || f->id != 100 + k)
      wrong++;
    else if (f->status == QUA_ESHUTDOWN)
      refused++;
    else if (quap_response_unpack(f, QUAP_INVOKE, &m) != 0)
      wrong++;
    else if (is_add && ((Qua__V1__InvokeReply *)m)->result != next_add++)
      wrong++;
    else
      answered++;
    if (m != NULL)
      protobuf_c_message_free_unpacked(m, NULL);
    quap_frame_free(f);
  }
  fprintf(stderr, "\n  at SIGTERM: %d answered, %d refused (ESHUTDOWN), %d wrong\n", answered,
          refused, wrong);
  CU_ASSERT_EQUAL(answered + refused, 2 * PAIRS);
  CU_ASSERT_EQUAL(wrong, 0);
  for (Qua__V1__Frame *e; (e = rc_event(&drainer, 4000)) != NULL; quap_frame_free(e))
    out_of_order += e->event->arg != 1000 + (uint64_t)events++;
  fprintf(stderr, "  the drainer got %d items\n", events);
  CU_ASSERT_EQUAL(out_of_order, 0);
  CU_ASSERT(events <= put_ok);
  CU_ASSERT(events > 0);
  CU_ASSERT_TRUE(rc_closed_within(&c, 5000));
  CU_ASSERT_TRUE(rc_closed_within(&idle, 5000));
  /* quad_stop sends SIGTERM again (a second one changes nothing) and waits. */
  double waited = rc_now() - t0;
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, &took), 0);
  CU_ASSERT(waited + took < 5.0);
  if (getenv("QUAD_TEST_LOG") != NULL)
    fprintf(stderr, "exit %.3f s after SIGTERM\n", waited + took);
  rc_close(&c);
  rc_close(&idle);
  rc_close(&drainer);
  /* A new connection is refused: the socket is gone. */
  CU_ASSERT_NOT_EQUAL(rc_connect_unix(&c, q.sock), 0);
}

static void sigterm_with_a_client_that_never_reads_exits_in_time(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  rawconn_t c;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c, q.sock), 0);
  int st;
  uint64_t cnt = create(&c, "counter", NULL, &st, "threshold=1");
  bind_to(&c, cnt, "threshold", NULL, 0, &st);
  /* Many requests whose answers the client never reads. */
  quap_buf_t b;
  quap_buf_init(&b);
  Qua__V1__ListTypesRequest lt = QUA__V1__LIST_TYPES_REQUEST__INIT;
  for (uint64_t id = 1; id < 3000; id++)
    quap_request_append(&b, id, QUAP_LIST_TYPES, &lt.base);
  int fl = fcntl(c.fd, F_GETFL);
  fcntl(c.fd, F_SETFL, fl | O_NONBLOCK);
  size_t off = 0;
  while (off < b.len) {
    ssize_t n = send(c.fd, b.data + off, b.len - off, MSG_NOSIGNAL);
    if (n <= 0)
      break;
    off += (size_t)n;
  }
  quap_buf_fini(&b);
  usleep(200000);
  double took = 0;
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, &took), 0);
  CU_ASSERT(took < 5.0);
  rc_close(&c);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-quad PATH-TO-QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  int r = quad_start(&shared, quad_exe, NULL);
  if (r != 0) {
    fprintf(stderr, "test-quad: cannot start %s (%d)\n", quad_exe, r);
    quad_stop(&shared, SIGKILL, 100, NULL);
    return 1;
  }
  static const qtest_case_t cases[] = {
      {"methods_answer_on_unix_socket", methods_answer_on_unix_socket},
      {"full_callback_comes_back_in_the_reply", full_callback_comes_back_in_the_reply},
      {"bound_callback_reaches_a_watcher", bound_callback_reaches_a_watcher},
      {"drain_takes_only_what_credits_allow", drain_takes_only_what_credits_allow},
      {"events_past_max_events_are_counted_as_dropped",
       events_past_max_events_are_counted_as_dropped},
      {"closing_connection_destroys_what_it_did_not_publish",
       closing_connection_destroys_what_it_did_not_publish},
      {"pump_backs_up_to_a_slow_drainer_and_a_new_one_resumes",
       pump_backs_up_to_a_slow_drainer_and_a_new_one_resumes},
      {"malformed_input_is_answered_and_others_carry_on",
       malformed_input_is_answered_and_others_carry_on},
      {"pipelined_requests_past_max_inflight_are_all_answered",
       pipelined_requests_past_max_inflight_are_all_answered},
      {"tcp_needs_hello_with_the_right_token", tcp_needs_hello_with_the_right_token},
      {"bad_options_and_token_files_are_refused", bad_options_and_token_files_are_refused},
      {"stale_socket_file_is_replaced", stale_socket_file_is_replaced},
      {"sigterm_answers_in_flight_and_exits_zero", sigterm_answers_in_flight_and_exits_zero},
      {"sigterm_with_a_client_that_never_reads_exits_in_time",
       sigterm_with_a_client_that_never_reads_exits_in_time},
      {NULL, NULL},
  };
  int failed = qtest_run("quad", cases);
  int st = quad_stop(&shared, SIGTERM, 5000, NULL);
  if (st != 0) {
    fprintf(stderr, "test-quad: the shared quad exited with %d\n", st);
    failed = 1;
  }
  return failed;
}
