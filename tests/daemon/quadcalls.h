/* quadcalls.h -- one-line qua.v1 calls over a rawconn for quad's tests, and a witness
 * connection that must keep getting right answers while a test misbehaves. */
#ifndef QUA_TESTS_QUADCALLS_H
#define QUA_TESTS_QUADCALLS_H

#include "qtest.h"
#include "rawconn.h"

static inline int hello(rawconn_t *c, const char *token) {
  Qua__V1__HelloRequest h = QUA__V1__HELLO_REQUEST__INIT;
  h.version = QUAP_VERSION;
  h.client = (char *)"test-quad";
  h.token = (char *)(token ? token : "");
  return rc_call(c, QUAP_HELLO, &h.base, NULL);
}

/* Creates a quaject; returns its handle (0 on error, *status set). */
static inline uint64_t create(rawconn_t *c, const char *type, const char *name, int *status,
                       const char *p0) {
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  char *params[1] = {(char *)p0};
  r.type = (char *)type;
  r.name = (char *)(name ? name : "");
  r.n_params = p0 ? 1 : 0;
  r.params = params;
  ProtobufCMessage *m = NULL;
  int st = rc_call(c, QUAP_CREATE, &r.base, &m);
  if (status != NULL)
    *status = st;
  uint64_t h = st == 0 && m ? ((Qua__V1__CreateReply *)m)->handle : 0;
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return h;
}

/* Invokes; returns the frame status, the reply in *out (caller frees). */
static inline int invoke(rawconn_t *c, uint64_t h, const char *entry, int nargs, uint64_t a0,
                  Qua__V1__InvokeReply **out) {
  Qua__V1__InvokeRequest r = QUA__V1__INVOKE_REQUEST__INIT;
  uint64_t args[1] = {a0};
  r.handle = h;
  r.entry = (char *)entry;
  r.n_args = (size_t)nargs;
  r.args = args;
  ProtobufCMessage *m = NULL;
  int st = rc_call(c, QUAP_INVOKE, &r.base, &m);
  if (out != NULL)
    *out = (Qua__V1__InvokeReply *)m;
  else if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return st;
}

/* counter.add(delta) through c; the new value, or UINT64_MAX on error. */
static inline uint64_t counter_add(rawconn_t *c, uint64_t h, uint64_t delta) {
  Qua__V1__InvokeReply *rep = NULL;
  int st = invoke(c, h, "add", 1, delta, &rep);
  uint64_t v = st == 0 && rep && rep->status == 0 && rep->has_result ? rep->result : UINT64_MAX;
  if (rep != NULL)
    protobuf_c_message_free_unpacked(&rep->base, NULL);
  return v;
}

static inline uint64_t bind_to(rawconn_t *c, uint64_t h, const char *callback, const char *callout,
                     uint64_t credits, int *status) {
  Qua__V1__BindRequest r = QUA__V1__BIND_REQUEST__INIT;
  r.handle = h;
  r.callback = (char *)(callback ? callback : "");
  r.callout = (char *)(callout ? callout : "");
  r.credits = credits;
  ProtobufCMessage *m = NULL;
  int st = rc_call(c, QUAP_BIND, &r.base, &m);
  if (status != NULL)
    *status = st;
  uint64_t b = st == 0 && m ? ((Qua__V1__BindReply *)m)->binding : 0;
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return b;
}

static inline int destroy(rawconn_t *c, uint64_t h, bool force) {
  Qua__V1__DestroyRequest r = QUA__V1__DESTROY_REQUEST__INIT;
  r.handle = h;
  r.force = force;
  return rc_call(c, QUAP_DESTROY, &r.base, NULL);
}

static inline uint64_t open_name(rawconn_t *c, const char *name, int *status) {
  Qua__V1__OpenRequest r = QUA__V1__OPEN_REQUEST__INIT;
  r.name = (char *)name;
  ProtobufCMessage *m = NULL;
  int st = rc_call(c, QUAP_OPEN, &r.base, &m);
  if (status != NULL)
    *status = st;
  uint64_t h = st == 0 && m ? ((Qua__V1__OpenReply *)m)->handle : 0;
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return h;
}

/* Waits up to timeout_ms for the response to request id of method: the
 * frame's status (QUA_ECONN without one), its message copied into msg
 * (unless NULL), its reply unpacked into *out (unless NULL; NULL when it
 * has none). */
static inline int answer_status(rawconn_t *c, uint64_t id, unsigned method, int timeout_ms,
                                  char *msg, size_t len, ProtobufCMessage **out) {
  if (out != NULL)
    *out = NULL;
  Qua__V1__Frame *f = rc_response(c, id, timeout_ms);
  if (f == NULL)
    return QUA_ECONN;
  int st = f->status;
  if (msg != NULL)
    snprintf(msg, len, "%s", f->message ? f->message : "");
  if (out != NULL && quap_response_unpack(f, method, out) < 0)
    *out = NULL;
  quap_frame_free(f);
  return st;
}

/* Sends one request and waits for its response: the frame's status
 * (QUA_ECONN without one), and its message copied into msg. */
static inline int call_status(rawconn_t *c, unsigned method, const ProtobufCMessage *req, char *msg,
                              size_t len) {
  return answer_status(c, rc_send(c, method, req), method, 5000, msg, len, NULL);
}

/* Wires src's callout to dst's callentry; returns the status. */
static inline int wire(rawconn_t *c, uint64_t src, const char *callout, uint64_t dst, const char *entry) {
  Qua__V1__WireRequest w = QUA__V1__WIRE_REQUEST__INIT;
  w.src = src;
  w.callout = (char *)callout;
  w.dst = dst;
  w.entry = (char *)entry;
  return rc_call(c, QUAP_WIRE, &w.base, NULL);
}

static inline Qua__V1__StatsReply *stats(rawconn_t *c) {
  Qua__V1__StatsRequest r = QUA__V1__STATS_REQUEST__INIT;
  ProtobufCMessage *m = NULL;
  if (rc_call(c, QUAP_STATS, &r.base, &m) != 0)
    return NULL;
  return (Qua__V1__StatsReply *)m;
}

/* A connection that must keep getting right answers meanwhile. */
typedef struct witness {
  rawconn_t c;
  uint64_t counter;
  uint64_t expect;
} witness_t;

static inline void witness_open(witness_t *w, const char *sock) {
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&w->c, sock), 0);
  CU_ASSERT_EQUAL(hello(&w->c, NULL), 0);
  w->counter = create(&w->c, "counter", NULL, NULL, NULL);
  CU_ASSERT_NOT_EQUAL(w->counter, 0);
  w->expect = 0;
}

static inline void witness_check(witness_t *w) {
  w->expect += 3;
  CU_ASSERT_EQUAL(counter_add(&w->c, w->counter, 3), w->expect);
}

/* Writes `token` to a fresh token file (mode 0600) named after tag and
 * this process, its path in path. */
static inline void token_file(char *path, size_t len, const char *tag, const char *token) {
  snprintf(path, len, "/tmp/quad-%s-token-%ld", tag, (long)getpid());
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "%s\n", token);
  fclose(f);
  chmod(path, 0600);
}

/* --- A long control job (quad-faultsim, faultsim.c) ------------------------------ */

/* A Create request id whose job holds libqua's control lock ms first. */
#define HOLD_ID(ms) ((UINT64_C(0x57A2) << 48) | (uint64_t)(ms))

/* Sends a Create of an unpublished counter with the given id, without
 * waiting for its answer. */
static inline void send_create(rawconn_t *c, uint64_t id) {
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  r.type = (char *)"counter";
  r.name = (char *)"";
  quap_buf_t b;
  quap_buf_init(&b);
  CU_ASSERT(quap_request_append(&b, id, QUAP_CREATE, &r.base) > 0);
  CU_ASSERT_EQUAL(rc_write(c, b.data, b.len), 0);
  quap_buf_fini(&b);
}

/* Another client's adds, timed: the worst latency, in seconds. */
static inline double adds_worst(rawconn_t *c, uint64_t h, int n, uint64_t *value) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double t = rc_now();
    *value = counter_add(c, h, 1);
    if (rc_now() - t > worst)
      worst = rc_now() - t;
    usleep(20 * 1000);
  }
  return worst;
}

/* --- The peer side of links, spoken by hand ------------------------------------ */

/* Creates and publishes a queue; 0 or the status. */
static inline int publish_queue(rawconn_t *c, const char *name, const char *capacity) {
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  char *params[1] = {(char *)capacity};
  r.type = (char *)"queue";
  r.name = (char *)name;
  r.n_params = 1;
  r.params = params;
  return rc_call(c, QUAP_CREATE, &r.base, NULL);
}

static inline int link_open(rawconn_t *c, uint64_t link, const char *remote, const char *entry,
                     uint64_t first_seq, Qua__V1__LinkOpenReply **out) {
  Qua__V1__LinkOpenRequest r = QUA__V1__LINK_OPEN_REQUEST__INIT;
  r.link = link;
  r.remote = (char *)remote;
  r.entry = (char *)entry;
  r.first_seq = first_seq;
  ProtobufCMessage *m = NULL;
  int st = rc_call(c, QUAP_LINK_OPEN, &r.base, &m);
  if (out != NULL)
    *out = (Qua__V1__LinkOpenReply *)m;
  else if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return st;
}

/* Pushes items first..; the reply's fields in *rep (zeroed on error). */
static inline int link_push(rawconn_t *c, uint64_t link, uint64_t first, const uint64_t *items, size_t n,
                     Qua__V1__LinkPushReply *rep) {
  Qua__V1__LinkPushRequest r = QUA__V1__LINK_PUSH_REQUEST__INIT;
  r.link = link;
  r.first_seq = first;
  r.items = (uint64_t *)items;
  r.n_items = n;
  ProtobufCMessage *m = NULL;
  int st = rc_call(c, QUAP_LINK_PUSH, &r.base, &m);
  qua__v1__link_push_reply__init(rep);
  if (m != NULL) {
    Qua__V1__LinkPushReply *p = (Qua__V1__LinkPushReply *)m;
    rep->next_seq = p->next_seq;
    rep->full = p->full;
    rep->gap = p->gap;
    rep->duplicates = p->duplicates;
    protobuf_c_message_free_unpacked(m, NULL);
  }
  return st;
}

/* Takes one item from the queue published as name; the status of get. */
static inline int get_one(rawconn_t *c, const char *name, uint64_t *item) {
  Qua__V1__OpenRequest o = QUA__V1__OPEN_REQUEST__INIT;
  o.name = (char *)name;
  ProtobufCMessage *m = NULL;
  if (rc_call(c, QUAP_OPEN, &o.base, &m) != 0 || m == NULL)
    return QUA_ENOTFOUND;
  Qua__V1__InvokeRequest r = QUA__V1__INVOKE_REQUEST__INIT;
  r.handle = ((Qua__V1__OpenReply *)m)->handle;
  protobuf_c_message_free_unpacked(m, NULL);
  r.entry = (char *)"get";
  int st = rc_call(c, QUAP_INVOKE, &r.base, &m);
  if (st == 0 && m != NULL) {
    Qua__V1__InvokeReply *ir = (Qua__V1__InvokeReply *)m;
    st = ir->status;
    *item = ir->result;
  }
  if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return st;
}

#endif /* QUA_TESTS_QUADCALLS_H */
