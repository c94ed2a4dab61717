/* test-oom.c -- out of memory in every method: each allocation of a request's dispatch fails in
 * turn (quad-faultsim), and each time the reply is a clear error, nothing is left half done, and
 * the daemon keeps serving. Leaks show in the ASan build: quad-faultsim then exits non-zero. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

/* A request id that makes allocation k of its dispatch fail (faultsim.c). */
#define FAULT_ID(serial, k) ((UINT64_C(0xFA17) << 48) | ((uint64_t)(serial) << 24) | (uint64_t)(k))
#define SWEEP_MAX 2000
#define QUAD_REPLY_ROOM_BYTES 1024 /* QUAD_REPLY_ROOM */

typedef struct env {
  quad_child_t q;
  rawconn_t c, d; /* d: another connection, for what c cannot see by itself */
  unsigned serial;
  uint64_t counter, queue; /* c's handles, kept through every sweep */
  uint64_t value;          /* the counter's value */
  uint64_t handle;         /* the sweep's own quaject, when it needs one */
  uint64_t base_quajects;  /* quajects the daemon runs between calls */
} env_t;

static env_t E;

/* 1: the log says request id's allocation failed; 0: it made fewer
 * allocations and none failed; -1: no line about it. */
static int fault_outcome(uint64_t id) {
  char want[64], line[512];
  snprintf(want, sizeof want, "faultsim: 0x%016" PRIx64 ": ", id);
  FILE *f = fopen(E.q.log, "r");
  int r = -1;
  while (f != NULL && r < 0 && fgets(line, sizeof line, f) != NULL) {
    char *p = strstr(line, want);
    if (p != NULL)
      r = strstr(p, "none failed") != NULL ? 0 : 1;
  }
  if (f != NULL)
    fclose(f);
  return r;
}

static uint64_t quajects_now(void) {
  Qua__V1__StatsReply *s = stats(&E.c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  uint64_t n = s->quajects;
  protobuf_c_message_free_unpacked(&s->base, NULL);
  return n;
}

static int simple(rawconn_t *c, unsigned method, const ProtobufCMessage *req) {
  return rc_call(c, method, req, NULL);
}

static int unbind(uint64_t binding) {
  Qua__V1__UnbindRequest u = QUA__V1__UNBIND_REQUEST__INIT;
  u.binding = binding;
  return simple(&E.c, QUAP_UNBIND, &u.base);
}

static int unwire(uint64_t src, const char *callout) {
  Qua__V1__UnwireRequest u = QUA__V1__UNWIRE_REQUEST__INIT;
  u.src = src;
  u.callout = (char *)callout;
  return simple(&E.c, QUAP_UNWIRE, &u.base);
}

/* What a refusal must leave (checked after it) and how a success is undone. */
typedef struct sweep {
  const char *what;
  unsigned method;
  void (*setup)(void);                           /* before each call, or NULL */
  void (*failed)(void);                          /* after a refusal, or NULL */
  void (*done)(const ProtobufCMessage *reply);   /* after a success, or NULL */
} sweep_t;

/* Calls the method with allocation k = 1, 2, ... failing until a call
 * makes fewer than k allocations. Each refusal must be a negative status
 * with a message, caused by the injected fault; after each call the daemon
 * runs as many quajects as before and answers. */
static void sweep(const sweep_t *s, const ProtobufCMessage *req) {
  unsigned serial = ++E.serial, k, refused = 0;
  for (k = 1; k < SWEEP_MAX; k++) {
    if (s->setup != NULL)
      s->setup();
    uint64_t id = FAULT_ID(serial, k);
    quap_buf_t b;
    quap_buf_init(&b);
    CU_ASSERT_FATAL(quap_request_append(&b, id, s->method, req) > 0);
    CU_ASSERT_EQUAL_FATAL(rc_write(&E.c, b.data, b.len), 0);
    quap_buf_fini(&b);
    Qua__V1__Frame *f = rc_response(&E.c, id, 5000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    int outcome = fault_outcome(id);
    CU_ASSERT_NOT_EQUAL(outcome, -1);
    if (f->status != 0) {
      refused++;
      if (f->status >= 0 || f->message == NULL || f->message[0] == '\0' || outcome != 1)
        printf("\n  %s, allocation %u: status %d (%s), fault %s\n", s->what, k, f->status,
               f->message ? f->message : "", outcome == 1 ? "fired" : "did not fire");
      CU_ASSERT(f->status < 0);
      CU_ASSERT(f->message != NULL && f->message[0] != '\0');
      CU_ASSERT_EQUAL(outcome, 1); /* no refusal without a fault */
      quap_frame_free(f);
      if (s->failed != NULL)
        s->failed();
    } else {
      ProtobufCMessage *m = NULL;
      CU_ASSERT_EQUAL(quap_response_unpack(f, s->method, &m), 0);
      quap_frame_free(f);
      if (s->done != NULL)
        s->done(m);
      if (m != NULL)
        protobuf_c_message_free_unpacked(m, NULL);
    }
    uint64_t n = quajects_now();
    if (n != E.base_quajects)
      printf("\n  %s, allocation %u: %" PRIu64 " quajects, not %" PRIu64, s->what, k, n,
             E.base_quajects);
    CU_ASSERT_EQUAL(n, E.base_quajects); /* nothing half made or half gone */
    if (outcome == 0)
      break;
  }
  printf("\n  %-16s %3u allocations, %3u refused", s->what, k - 1, refused);
  CU_ASSERT(k < SWEEP_MAX); /* the sweep ended: every allocation was tried */
}

/* --- Create ------------------------------------------------------------------ */

static void destroy_created(const ProtobufCMessage *m) {
  CU_ASSERT_EQUAL(destroy(&E.c, ((const Qua__V1__CreateReply *)m)->handle, true), 0);
}

/* Nobody holds the name: d cannot open it. */
static void name_free(const char *name) {
  int st = 0;
  CU_ASSERT_EQUAL(open_name(&E.d, name, &st), 0);
  CU_ASSERT_EQUAL(st, QUA_ENOTFOUND);
}

static void name_is_free(void) { name_free("oom-q"); }

static void create_fails_cleanly(void) {
  Qua__V1__CreateRequest r = QUA__V1__CREATE_REQUEST__INIT;
  r.name = (char *)"";
  r.type = (char *)"counter";
  sweep(&(sweep_t){"create counter", QUAP_CREATE, NULL, NULL, destroy_created}, &r.base);
  r.type = (char *)"pump";
  sweep(&(sweep_t){"create pump", QUAP_CREATE, NULL, NULL, destroy_created}, &r.base);
  r.type = (char *)"queue";
  r.name = (char *)"oom-q";
  sweep(&(sweep_t){"create named", QUAP_CREATE, NULL, name_is_free, destroy_created}, &r.base);
}

/* --- Names ------------------------------------------------------------------- */

static void unpublish_it(const ProtobufCMessage *m) {
  Qua__V1__UnpublishRequest u = QUA__V1__UNPUBLISH_REQUEST__INIT;
  u.name = (char *)"oom-pub";
  CU_ASSERT_EQUAL(simple(&E.c, QUAP_UNPUBLISH, &u.base), 0);
}

static void pub_is_free(void) { name_free("oom-pub"); }

static void names_fail_cleanly(void) {
  Qua__V1__PublishRequest p = QUA__V1__PUBLISH_REQUEST__INIT;
  p.handle = E.counter;
  p.name = (char *)"oom-pub";
  sweep(&(sweep_t){"publish", QUAP_PUBLISH, NULL, pub_is_free, unpublish_it}, &p.base);

  /* Open by c of a quaject d published: c has no handle on it before. */
  uint64_t h = create(&E.d, "queue", "oom-open", NULL, NULL);
  CU_ASSERT_FATAL(h != 0);
  E.base_quajects++;
  Qua__V1__OpenRequest o = QUA__V1__OPEN_REQUEST__INIT;
  o.name = (char *)"oom-open";
  /* c's handle stays after a success, so later Opens take the short
   * path: the sweep still tries every allocation of the first open. */
  sweep(&(sweep_t){"open", QUAP_OPEN, NULL, NULL, NULL}, &o.base);
}

/* --- Wires and bindings ------------------------------------------------------ */

static void unwire_out(const ProtobufCMessage *m) {
  CU_ASSERT_EQUAL(unwire(E.counter, "out"), 0);
}

/* The callout is free: a plain Wire takes it. */
static void out_is_free(void) {
  CU_ASSERT_EQUAL(wire(&E.c, E.counter, "out", E.queue, "put"), 0);
  CU_ASSERT_EQUAL(unwire(E.counter, "out"), 0);
}

static void rewire_out(const ProtobufCMessage *m) {
  CU_ASSERT_EQUAL(wire(&E.c, E.counter, "out", E.queue, "put"), 0);
}

/* Still wired after a refused Unwire. */
static void out_is_wired(void) {
  CU_ASSERT_EQUAL(wire(&E.c, E.counter, "out", E.queue, "put"), QUA_EWIRED);
}

static void unbind_it(const ProtobufCMessage *m) {
  CU_ASSERT_EQUAL(unbind(((const Qua__V1__BindReply *)m)->binding), 0);
}

static void wires_and_bindings_fail_cleanly(void) {
  Qua__V1__WireRequest w = QUA__V1__WIRE_REQUEST__INIT;
  w.src = E.counter;
  w.callout = (char *)"out";
  w.dst = E.queue;
  w.entry = (char *)"put";
  sweep(&(sweep_t){"wire", QUAP_WIRE, NULL, out_is_free, unwire_out}, &w.base);

  CU_ASSERT_EQUAL(wire(&E.c, E.counter, "out", E.queue, "put"), 0);
  Qua__V1__UnwireRequest u = QUA__V1__UNWIRE_REQUEST__INIT;
  u.src = E.counter;
  u.callout = (char *)"out";
  sweep(&(sweep_t){"unwire", QUAP_UNWIRE, NULL, out_is_wired, rewire_out}, &u.base);
  CU_ASSERT_EQUAL(unwire(E.counter, "out"), 0);

  Qua__V1__BindRequest b = QUA__V1__BIND_REQUEST__INIT;
  b.handle = E.queue;
  b.callback = (char *)"full";
  b.callout = (char *)"";
  sweep(&(sweep_t){"bind callback", QUAP_BIND, NULL, NULL, unbind_it}, &b.base);
  /* A drain of a counter's out: a private queue wired to it (events.c
   * note 6). A refusal leaves the callout free. */
  b.handle = E.counter;
  b.callback = (char *)"";
  b.callout = (char *)"out";
  b.credits = 1;
  sweep(&(sweep_t){"bind drain", QUAP_BIND, NULL, out_is_free, unbind_it}, &b.base);
}

/* --- Invoke ------------------------------------------------------------------ */

static uint64_t counter_value(void) { return counter_add(&E.c, E.counter, 0); }

static void counter_unchanged(void) { CU_ASSERT_EQUAL(counter_value(), E.value); }

static void counter_added(const ProtobufCMessage *m) {
  const Qua__V1__InvokeReply *r = (const Qua__V1__InvokeReply *)m;
  CU_ASSERT_EQUAL(r->status, 0);
  E.value++;
  CU_ASSERT_EQUAL(r->result, E.value);
  CU_ASSERT_EQUAL(counter_value(), E.value);
}

static uint64_t queue_count(void) {
  Qua__V1__InvokeReply *rep = NULL;
  CU_ASSERT_EQUAL(invoke(&E.c, E.queue, "count", 0, 0, &rep), 0);
  uint64_t n = rep != NULL && rep->has_result ? rep->result : UINT64_MAX;
  if (rep != NULL)
    protobuf_c_message_free_unpacked(&rep->base, NULL);
  return n;
}

static void queue_empty(void) { CU_ASSERT_EQUAL(queue_count(), 0); }

/* The batch ran: each call's reply says whether it was made (a call the
 * daemon had no memory for is ENOMEM, not made; the others ran). The
 * queue holds exactly the items of the calls made; take them out again. */
static void batch_ran(const ProtobufCMessage *m) {
  const Qua__V1__InvokeBatchReply *r = (const Qua__V1__InvokeBatchReply *)m;
  CU_ASSERT_EQUAL_FATAL(r->n_replies, 3);
  uint64_t made = 0;
  for (size_t i = 0; i < 3; i++) {
    CU_ASSERT(r->replies[i]->status == 0 || r->replies[i]->status == QUA_ENOMEM);
    made += r->replies[i]->status == 0;
  }
  CU_ASSERT_EQUAL(queue_count(), made);
  for (uint64_t i = 0; i < made; i++)
    CU_ASSERT_EQUAL(invoke(&E.c, E.queue, "get", 0, 0, NULL), 0);
  queue_empty();
}

static void invoke_fails_cleanly(void) {
  E.value = counter_value();
  Qua__V1__InvokeRequest r = QUA__V1__INVOKE_REQUEST__INIT;
  uint64_t one = 1;
  r.handle = E.counter;
  r.entry = (char *)"add";
  r.n_args = 1;
  r.args = &one;
  /* A refusal means the add did not happen (its reply could not be made:
   * the call must not run, or its effect must be reported). */
  sweep(&(sweep_t){"invoke", QUAP_INVOKE, NULL, counter_unchanged, counter_added}, &r.base);

  Qua__V1__InvokeRequest puts[3], *pp[3];
  uint64_t items[3] = {7, 8, 9};
  for (int i = 0; i < 3; i++) {
    puts[i] = (Qua__V1__InvokeRequest)QUA__V1__INVOKE_REQUEST__INIT;
    puts[i].handle = E.queue;
    puts[i].entry = (char *)"put";
    puts[i].n_args = 1;
    puts[i].args = &items[i];
    pp[i] = &puts[i];
  }
  Qua__V1__InvokeBatchRequest batch = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
  batch.n_calls = 3;
  batch.calls = pp;
  sweep(&(sweep_t){"invoke batch", QUAP_INVOKE_BATCH, NULL, queue_empty, batch_ran}, &batch.base);
}

/* A batch whose reply needs more than the room every request gets: its
 * room is made before the first call, so a reply that cannot be stored
 * never follows calls that ran. */
#define BIG_BATCH 300
static uint64_t big_delta = 100000; /* results of 3 bytes and more */

static void counter_added_by_batch(const ProtobufCMessage *m) {
  const Qua__V1__InvokeBatchReply *r = (const Qua__V1__InvokeBatchReply *)m;
  CU_ASSERT_EQUAL_FATAL(r->n_replies, BIG_BATCH);
  for (size_t i = 0; i < BIG_BATCH; i++) {
    CU_ASSERT(r->replies[i]->status == 0 || r->replies[i]->status == QUA_ENOMEM);
    E.value += r->replies[i]->status == 0 ? big_delta : 0;
  }
  CU_ASSERT_EQUAL(counter_value(), E.value);
}

static void big_invoke_batch_fails_cleanly(void) {
  E.value = counter_value();
  static Qua__V1__InvokeRequest adds[BIG_BATCH], *pa[BIG_BATCH];
  for (int i = 0; i < BIG_BATCH; i++) {
    adds[i] = (Qua__V1__InvokeRequest)QUA__V1__INVOKE_REQUEST__INIT;
    adds[i].handle = E.counter;
    adds[i].entry = (char *)"add";
    adds[i].n_args = 1;
    adds[i].args = &big_delta;
    pa[i] = &adds[i];
  }
  Qua__V1__InvokeBatchRequest batch = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
  batch.n_calls = BIG_BATCH;
  batch.calls = pa;
  CU_ASSERT(protobuf_c_message_get_packed_size(&batch.base) > QUAD_REPLY_ROOM_BYTES);
  sweep(&(sweep_t){"big invoke batch", QUAP_INVOKE_BATCH, NULL, counter_unchanged,
                   counter_added_by_batch},
        &batch.base);
}

/* --- Destroy and the read-only methods ---------------------------------------- */

static Qua__V1__DestroyRequest destroy_req = QUA__V1__DESTROY_REQUEST__INIT;

static void make_victim(void) {
  E.handle = create(&E.c, "queue", NULL, NULL, NULL);
  CU_ASSERT_FATAL(E.handle != 0);
  destroy_req.handle = E.handle;
  E.base_quajects++;
}

/* A refused Destroy leaves the quaject whole: it takes an item, then goes. */
static void victim_whole(void) {
  CU_ASSERT_EQUAL(invoke(&E.c, E.handle, "put", 1, 5, NULL), 0);
  CU_ASSERT_EQUAL(destroy(&E.c, E.handle, true), 0);
  E.base_quajects--;
}

static void victim_gone(const ProtobufCMessage *m) {
  E.base_quajects--;
  CU_ASSERT_EQUAL(destroy(&E.c, E.handle, true), QUA_EHANDLE);
}

static void destroy_and_reads_fail_cleanly(void) {
  destroy_req.force = true;
  sweep(&(sweep_t){"destroy", QUAP_DESTROY, make_victim, victim_whole, victim_gone},
        &destroy_req.base);
  Qua__V1__ListRequest l = QUA__V1__LIST_REQUEST__INIT;
  sweep(&(sweep_t){"list", QUAP_LIST, NULL, NULL, NULL}, &l.base);
  Qua__V1__DescribeRequest d = QUA__V1__DESCRIBE_REQUEST__INIT;
  d.handle = E.queue;
  d.name = (char *)"";
  sweep(&(sweep_t){"describe", QUAP_DESCRIBE, NULL, NULL, NULL}, &d.base);
  Qua__V1__ListTypesRequest t = QUA__V1__LIST_TYPES_REQUEST__INIT;
  sweep(&(sweep_t){"list types", QUAP_LIST_TYPES, NULL, NULL, NULL}, &t.base);
}

/* --- The suite ----------------------------------------------------------------- */

static int suite_init(void) {
  if (quad_start(&E.q, quad_exe, NULL) != 0 || rc_connect_unix(&E.c, E.q.sock) != 0 ||
      rc_connect_unix(&E.d, E.q.sock) != 0)
    return -1;
  E.counter = create(&E.c, "counter", NULL, NULL, NULL);
  E.queue = create(&E.c, "queue", NULL, NULL, "capacity=64");
  if (E.counter == 0 || E.queue == 0)
    return -1;
  E.base_quajects = 2;
  return 0;
}

/* quad-faultsim exits 0 after SIGTERM: under ASan, a leak makes it exit non-zero. */
static void daemon_exits_cleanly(void) {
  rc_close(&E.c);
  rc_close(&E.d);
  CU_ASSERT_EQUAL(quad_stop(&E.q, SIGTERM, 10000, NULL), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-oom QUAD-FAULTSIM\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  if (suite_init() != 0) {
    fprintf(stderr, "test-oom: cannot start %s\n", quad_exe);
    quad_stop(&E.q, SIGKILL, 1000, NULL);
    return 1;
  }
  static const qtest_case_t cases[] = {
      {"create_fails_cleanly", create_fails_cleanly},
      {"names_fail_cleanly", names_fail_cleanly},
      {"wires_and_bindings_fail_cleanly", wires_and_bindings_fail_cleanly},
      {"invoke_fails_cleanly", invoke_fails_cleanly},
      {"big_invoke_batch_fails_cleanly", big_invoke_batch_fails_cleanly},
      {"destroy_and_reads_fail_cleanly", destroy_and_reads_fail_cleanly},
      {"daemon_exits_cleanly", daemon_exits_cleanly},
      {NULL, NULL},
  };
  return qtest_run("oom", cases);
}
