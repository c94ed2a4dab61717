/* dispatch.c -- quad's implementation of service qua.v1.Qua: objects, names, handles, methods.
 *
 * Design note: objects, handles and names (all on the loop thread).
 *
 *  1. Every quaject the daemon runs for clients is a quad_obj in the
 *     registry (registry.c); a published one also has a daemon-wide
 *     name. A connection reaches an
 *     object only through a handle (quad_ref), which it got from Create or
 *     Open: handles are per connection, counted from 1 and never reused, so
 *     another connection's handle, or one whose object is gone, is EHANDLE.
 *  2. Each handle keeps the connection's Invoke sites (one per callentry,
 *     opened on first use) and its bindings. Destroying an object, by any
 *     connection holding a handle, first detaches every connection's
 *     handle on it, then the object; one job then unbinds the bindings,
 *     closes the sites and destroys the quaject with force, in that order,
 *     so no site or watcher of the daemon dangles. Objects are found by
 *     quaject id and by name, and a connection's owned objects are on its
 *     own list, so nothing here walks every object but List.
 *  3. The creating connection owns an object; when it closes, the objects
 *     it owns are destroyed unless published. A published object whose
 *     creator is gone has no owner; Unpublish gives it to the connection
 *     that unpublished it. Owned objects count against
 *     --max-quajects-per-client.
 *  4. Requests are dispatched through the generated service descriptor:
 *     the frame's method index selects the input descriptor to unpack the
 *     body with, and protobuf-c's invoke calls our handler from
 *     QUA__V1__QUA__INIT. Every handler replies exactly once: through its
 *     closure before returning (the output message, or NULL after
 *     quad_call_t's status and message were set), or, for a method whose
 *     libqua part blocks, from the `done` of the control job it submitted
 *     (work.c; the job then owns the request message).
 *  5. Control follows the creator's identity (the peer's uid on the unix
 *     socket, the token on TCP): only a connection of that identity, or
 *     root, may Unpublish, Close or Destroy an object (EPERM otherwise);
 *     any connection may Open a published one and use it. List shows a
 *     connection the published objects and those it holds a handle on:
 *     what it can open or already reaches, nothing else.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quad-internal.h"
#include "quad-m68k.h"
#include "quad-state.h"
#include "registry.h"

struct opener;

typedef struct quad_call {
  quad_conn_t *c;
  uint64_t id;
  uint32_t method;
  int status;
  bool replied;
  bool deferred;       /* a control job answers it (work.c) */
  const struct opener *opened; /* Invoke replayed after the worker opened its sites */
  ProtobufCMessage *in; /* the unpacked request; NULL once a job took it */
  ProtobufCAllocator *alloc; /* what in came from: the dispatcher's arena, or NULL (malloc) */
  const ProtobufCBinaryData *body; /* the request as it came, before unpacking */
  char msg[192];
} quad_call_t;

/* The closure of every method: encodes the reply into the connection. */
static void reply(const ProtobufCMessage *msg, void *data) {
  quad_call_t *call = data;
  if (call->replied)
    return;
  call->replied = true;
  quad_metrics_reply(call->method, call->status < 0 || msg == NULL
                                       ? (call->status < 0 ? call->status : QUA_EPROTO)
                                       : call->status);
  if (call->status < 0 || msg == NULL)
    quad_conn_respond(call->c, call->id, call->status < 0 ? call->status : QUA_EPROTO, call->msg,
                      NULL);
  else
    quad_conn_respond(call->c, call->id, 0, NULL, msg);
}

__attribute__((format(printf, 3, 4))) static void fail(quad_call_t *call, int code,
                                                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  call->status = code;
  vsnprintf(call->msg, sizeof call->msg, fmt, ap);
  va_end(ap);
}

/* Takes the library's message when it gave one. */
static void fail_err(quad_call_t *call, int code, const qua_error_t *err) {
  call->status = code;
  if (err != NULL && err->code == code && err->msg[0] != '\0')
    snprintf(call->msg, sizeof call->msg, "%s", err->msg);
  else
    snprintf(call->msg, sizeof call->msg, "%s", qua_strerror(code));
}

#define FAIL(...)                  \
  do {                             \
    fail(call, __VA_ARGS__);       \
    closure(NULL, call);           \
    return;                        \
  } while (0)

#define FAIL_ERR(code, err)        \
  do {                             \
    fail_err(call, code, err);     \
    closure(NULL, call);           \
    return;                        \
  } while (0)

/* --- A small arena for building replies -------------------------------------- */

typedef struct arena_block {
  struct arena_block *next;
  max_align_t align[];
} arena_block_t;

typedef struct arena {
  arena_block_t *blocks;
  bool failed;
} arena_t;

static void *arena_alloc(arena_t *a, size_t n) {
  arena_block_t *b = calloc(1, sizeof *b + (n ? n : 1));
  if (b == NULL) {
    a->failed = true;
    return NULL;
  }
  b->next = a->blocks;
  a->blocks = b;
  return b->align;
}

static char *arena_strdup(arena_t *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = arena_alloc(a, n);
  if (p != NULL)
    memcpy(p, s, n);
  return p != NULL ? p : (char *)protobuf_c_empty_string;
}

static void arena_free(arena_t *a) {
  while (a->blocks != NULL) {
    arena_block_t *b = a->blocks;
    a->blocks = b->next;
    free(b);
  }
}

/* --- Objects, handles, names --------------------------------------------------- */

/* A new object for q, owned by owner (or none) and published as name (or
 * not; malloc'ed, the object's on success). NULL: out of memory, nothing taken. */
static quad_obj_t *obj_add(qua_quaject_t *q, quad_conn_t *owner, char *name) {
  quad_obj_t *o = calloc(1, sizeof *o);
  if (o == NULL)
    return NULL;
  o->q = q;
  o->id = qua_quaject_id(q);
  o->owner = owner;
  o->ident = owner != NULL ? owner->ident : QUAD_IDENT_NONE;
  o->name = name;
  if (quad_reg_add(&quad_srv->reg, o) < 0) {
    free(o);
    return NULL;
  }
  return o; /* counted in nobjs and owner->owned by the Create that made it */
}

/* Whether c may unpublish, close or destroy o: its creating connection,
 * another connection of the creator's identity, or root (note 5). */
static bool may_control(const quad_conn_t *c, const quad_obj_t *o) {
  return o->owner == c || c->ident == 0 || (c->ident != QUAD_IDENT_NONE && c->ident == o->ident);
}

/* In a method: refuses with EPERM, naming the rule, unless the caller may
 * control o. */
#define DENY_UNLESS_CONTROL(o, verb)                                                         \
  if (!may_control(call->c, (o))) {                                                          \
    char who_[32];                                                                           \
    ident_name((o)->ident, who_, sizeof who_);                                               \
    FAIL(QUA_EPERM, "quaject #%" PRIu64 " was created by %s: only that identity or root may " \
         verb " it", (o)->id, who_);                                                         \
  }

static void ident_name(int64_t ident, char *buf, size_t len) {
  if (ident == QUAD_IDENT_TOKEN)
    snprintf(buf, len, "the TCP token");
  else if (ident == QUAD_IDENT_NONE)
    snprintf(buf, len, "an unknown peer");
  else
    snprintf(buf, len, "uid %lld", (long long)ident);
}

static quad_obj_t *obj_by_name(const char *name) { return quad_reg_by_name(&quad_srv->reg, name); }

static quad_obj_t *obj_by_id(uint64_t id) { return quad_reg_by_id(&quad_srv->reg, id); }

/* --- Teardown: what a destroy, an unbind or a closing connection lets go ------------ */

/* Detached from the loop's state and waiting for the worker (work.c note
 * 3): bindings to release, handles whose Invoke sites to close, objects
 * whose quajects to destroy, in that order, so that no binding or site
 * outlives the quaject it is on. Each is chained through its `gone` (a
 * binding through next_in_ref, which detaching freed), so gathering
 * allocates nothing. */
typedef struct teardown {
  quad_job_t job;
  bool on_heap;
  uint64_t id; /* the request answered with Empty when done, for a request job */
  uint32_t method; /* and its method (for the metrics) */
  quad_binding_t *bindings; /* through next_in_ref */
  quad_ref_t *refs;         /* through gone */
  quad_obj_t *objs;         /* through gone */
} teardown_t;

/* Detaches a handle: its bindings, its place in the connection's handles
 * and in its object's list. */
static void ref_detach(quad_ref_t *r, teardown_t *td) {
  while (r->bindings != NULL) {
    quad_binding_t *b = r->bindings;
    quad_binding_detach(b);
    b->next_in_ref = td->bindings;
    td->bindings = b;
  }
  quad_ref_remove(r);
  r->gone = td->refs;
  td->refs = r;
}

/* Detaches an object: "destroyed" on every binding, every handle on it,
 * its place in the daemon's lists and counts. */
static void obj_detach(quad_obj_t *o, teardown_t *td) {
  quad_ref_t *r;
  LIST_FOREACH(r, &o->refs, obj_link)
    quad_bindings_end(r);
  while (!LIST_EMPTY(&o->refs))
    ref_detach(LIST_FIRST(&o->refs), td);
  if (o->owner != NULL)
    o->owner->owned--;
  quad_reg_remove(&quad_srv->reg, o);
  quad_srv->nobjs--;
  quad_srv->nthreads -= o->active;
  quad_link_stop(o->q); /* a link's connection ends now; its quaject goes in the work */
  o->gone = td->objs;
  td->objs = o;
}

static void obj_destroy_quaject(quad_obj_t *o) {
  qua_error_t err = {0};
  if (qua_destroy(o->q, true, &err) < 0)
    quad_log(QUAD_LOG_ERROR, "destroy #%" PRIu64 ": %s", o->id, err.msg);
}

/* The worker's part: libqua calls only. */
static void teardown_work(quad_job_t *j) {
  teardown_t *td = (teardown_t *)j;
  for (quad_binding_t *b = td->bindings; b != NULL; b = b->next_in_ref)
    quad_binding_release(b);
  for (quad_ref_t *r = td->refs; r != NULL; r = r->gone)
    for (int e = 0; e < QUA_MAX_ENTRIES; e++)
      if (r->sites[e] != NULL)
        qua_site_close(r->sites[e]);
  for (quad_obj_t *o = td->objs; o != NULL; o = o->gone)
    obj_destroy_quaject(o);
}

/* The loop's part: frees what the loop allocated, answers the request. */
static void teardown_done(quad_job_t *j) {
  teardown_t *td = (teardown_t *)j;
  while (td->bindings != NULL) {
    quad_binding_t *b = td->bindings;
    td->bindings = b->next_in_ref;
    quad_binding_free(b);
  }
  while (td->refs != NULL) {
    quad_ref_t *r = td->refs;
    td->refs = r->gone;
    free(r);
  }
  bool named = false; /* a published quaject went: --state-dir's graph changed */
  while (td->objs != NULL) {
    quad_obj_t *o = td->objs;
    td->objs = o->gone;
    named |= o->name != NULL;
    free(o->name);
    free(o->params);
    free(o);
  }
  quad_link_reap(); /* the handles of links the work destroyed */
  if (j->request && named)
    quad_state_changed(j->c); /* written ahead of the answer */
  if (j->request && j->c->state < QUAD_CLOSING) {
    Qua__V1__Empty out = QUA__V1__EMPTY__INIT;
    quad_metrics_reply(td->method, 0);
    quad_conn_respond(j->c, td->id, 0, NULL, &out.base);
  }
  if (td->on_heap)
    free(td);
}

/* Hands a gathered teardown to the worker, holding `c` (NULL: none): as
 * the job answering c's request `id` of `method` when `request`. Out of
 * memory, it runs here, on the loop: slower, never lost. True when it
 * was queued (false: it ran, and answered). */
static bool teardown_queue(teardown_t *gathered, quad_conn_t *c, bool request, uint64_t id,
                           uint32_t method) {
  gathered->id = request ? id : 0;
  gathered->method = request ? method : 0;
  teardown_t *td = malloc(sizeof *td);
  if (td == NULL) {
    quad_log(QUAD_LOG_WARN, "out of memory: control work runs on the loop");
    gathered->job.c = c;
    gathered->job.request = request;
    teardown_work(&gathered->job);
    teardown_done(&gathered->job);
    return false;
  }
  *td = *gathered;
  td->on_heap = true;
  td->job.work = teardown_work;
  td->job.done = teardown_done;
  quad_job_submit(&td->job, c, request);
  return true;
}

/* The same as the job answering request `call` (NULL: none). */
static void teardown_submit(teardown_t *gathered, quad_conn_t *c, quad_call_t *call) {
  if (gathered->bindings == NULL && gathered->refs == NULL && gathered->objs == NULL &&
      call == NULL)
    return;
  bool queued = teardown_queue(gathered, c, call != NULL, call != NULL ? call->id : 0,
                               call != NULL ? call->method : 0);
  if (call != NULL) {
    call->deferred = queued;
    call->replied = !queued;
  }
}

void quad_conn_release(quad_conn_t *c) {
  quad_link_conn_closed(c);
  teardown_t td = {0};
  /* Handles first: their bindings go, so nothing calls into c any more. */
  size_t n = c->handles.len, k = 0;
  quad_ref_t **refs = n ? malloc(n * sizeof *refs) : NULL;
  if (refs != NULL) {
    for (size_t i = 0; i < c->handles.cap; i++)
      if (c->handles.keys[i] != 0)
        refs[k++] = c->handles.vals[i];
    for (size_t i = 0; i < k; i++)
      ref_detach(refs[i], &td);
    free(refs);
  } else {
    while (c->handles.len > 0)
      for (size_t i = 0; i < c->handles.cap; i++)
        if (c->handles.keys[i] != 0) {
          ref_detach(c->handles.vals[i], &td);
          break;
        }
  }
  /* Then what it owns: destroyed, or left without an owner if published. */
  while (!LIST_EMPTY(&c->owns)) {
    quad_obj_t *o = LIST_FIRST(&c->owns);
    if (o->name == NULL) {
      obj_detach(o, &td);
    } else {
      quad_reg_set_owner(o, NULL);
      c->owned--;
    }
  }
  teardown_submit(&td, c, NULL);
}

void quad_objs_destroy_all(void) {
  teardown_t td = {0};
  while (!TAILQ_EMPTY(&quad_srv->reg.objs))
    obj_detach(TAILQ_FIRST(&quad_srv->reg.objs), &td);
  teardown_work(&td.job);
  teardown_done(&td.job);
  quad_reg_fini(&quad_srv->reg);
}

/* --- Control jobs: methods whose libqua part runs on the worker --------------------- */

/* A request of Create, Wire, Unwire or Close on its way through the
 * worker: the request message (kept), the quajects it names, the outcome. */
typedef struct ctl {
  quad_job_t job;
  uint64_t id;
  uint32_t method; /* for the metrics */
  ProtobufCMessage *in;
  qua_quaject_t *q, *dst;
  quad_binding_t *b;      /* Bind */
  quad_link_open_t *lo;   /* LinkOpen */
  const qua_type_t *m68k; /* Create: an m68k type, or NULL for the host's */
  const char *params[QUA_MAX_PARAMS * 4];
  size_t nparams;
  bool active;
  int status;
  qua_error_t err;
} ctl_t;

/* Makes the job that answers `call` (the request message goes with it);
 * NULL when out of memory. */
static ctl_t *ctl_new(quad_call_t *call, void (*work)(quad_job_t *), void (*done)(quad_job_t *)) {
  ctl_t *x = calloc(1, sizeof *x);
  if (x == NULL)
    return NULL;
  x->job.work = work;
  x->job.done = done;
  x->id = call->id;
  x->method = call->method;
  return x;
}

static void ctl_submit(ctl_t *x, quad_call_t *call) {
  x->in = call->in;
  call->in = NULL; /* the job frees it */
  call->deferred = true;
  quad_job_submit(&x->job, call->c, true);
}

/* Sets the job's error (its status and message); returns code. */
__attribute__((format(printf, 3, 4))) static int ctl_err(ctl_t *x, int code, const char *fmt,
                                                         ...) {
  va_list ap;
  va_start(ap, fmt);
  x->status = code;
  x->err.code = code;
  vsnprintf(x->err.msg, sizeof x->err.msg, fmt, ap);
  va_end(ap);
  return code;
}

/* Answers the request (an error from x->status and x->err, else out) and
 * frees the job. */
static void ctl_finish(ctl_t *x, const ProtobufCMessage *out) {
  quad_conn_t *c = x->job.c;
  if (c->state < QUAD_CLOSING) {
    quad_metrics_reply(x->method, x->status < 0 ? x->status : 0);
    if (x->status < 0)
      quad_conn_respond(c, x->id, x->status,
                        x->err.msg[0] != '\0' ? x->err.msg : qua_strerror(x->status), NULL);
    else
      quad_conn_respond(c, x->id, 0, NULL, out);
  }
  protobuf_c_message_free_unpacked(x->in, NULL);
  free(x);
}

/* Wire, Unwire, Close: answered Empty when the call succeeded. */
static void ctl_done_empty(quad_job_t *j) {
  Qua__V1__Empty out = QUA__V1__EMPTY__INIT;
  ctl_finish((ctl_t *)j, &out.base);
}

/* The same for what --state-dir keeps (wires, a queue's closing): written
 * ahead of the answer. */
static void ctl_done_saved(quad_job_t *j) {
  if (((ctl_t *)j)->status >= 0)
    quad_state_changed(j->c);
  ctl_done_empty(j);
}

quad_obj_t *quad_obj_adopt(qua_quaject_t *q, char *name, char *params, int64_t ident,
                           bool active) {
  quad_obj_t *o = obj_add(q, NULL, name);
  if (o == NULL)
    return NULL;
  o->params = params;
  o->ident = ident;
  o->active = active;
  quad_srv->nobjs++; /* obj_add leaves the counting to its caller */
  quad_srv->nthreads += active;
  quad_link_start(q);
  return o;
}

bool quad_name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > QUA_NAME_MAX)
    return false;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_' || ch == '-'))
      return false;
  }
  return true;
}

#define GET_REF(var, h)                                                               \
  quad_ref_t *var = quad_map_get(&call->c->handles, (h));                             \
  if (var == NULL)                                                                    \
  FAIL(QUA_EHANDLE, "no handle %" PRIu64 " on this connection", (uint64_t)(h))

/* --- Methods ---------------------------------------------------------------------- */

/* Reads a varint at p[*i..n) into *v. false when it runs off the end. */
static bool pb_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v) {
  *v = 0;
  for (int sh = 0; sh <= 63; sh += 7) {
    if (*i >= n)
      return false;
    *v |= (uint64_t)(p[*i] & 0x7f) << sh;
    if ((p[(*i)++] & 0x80) == 0)
      return true;
  }
  return false;
}

/* The length of the last occurrence of string (length-delimited) field
 * `field` in the protobuf message body p[0..n), or 0 when it is absent;
 * SIZE_MAX when the body cannot be walked. protobuf-c hands strings over
 * NUL-terminated, which hides what follows an embedded NUL: this sees it. */
static size_t pb_field_len(const uint8_t *p, size_t n, uint32_t field) {
  size_t i = 0, len = 0;
  while (i < n) {
    uint64_t key, v;
    if (!pb_varint(p, n, &i, &key))
      return SIZE_MAX;
    switch (key & 7) {
    case 0:
      if (!pb_varint(p, n, &i, &v))
        return SIZE_MAX;
      break;
    case 2:
      if (!pb_varint(p, n, &i, &v) || v > n - i)
        return SIZE_MAX;
      if (key >> 3 == field)
        len = (size_t)v;
      i += (size_t)v;
      break;
    case 1:
      i += 8;
      break;
    case 5:
      i += 4;
      break;
    default:
      return SIZE_MAX;
    }
  }
  return i == n ? len : SIZE_MAX;
}

/* Compares the given token, glen bytes as sent (NULs included), with the
 * expected one, in time that depends only on the expected token's length. */
static bool token_equal(const char *given, size_t glen, const char *want, size_t wlen) {
  size_t gshown = strlen(given); /* bytes of `given` before any NUL */
  volatile unsigned char diff = glen != wlen;
  for (size_t i = 0; i < wlen; i++)
    diff |= (unsigned char)want[i] ^ (unsigned char)(i < gshown ? given[i] : 0);
  return diff == 0;
}

static void svc_hello(Qua__V1__Qua_Service *svc, const Qua__V1__HelloRequest *in,
                      Qua__V1__HelloReply_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_conn_t *c = call->c;
  if (c->tcp && c->state == QUAD_NEW) {
    if (quad_hello_blocked(c, call->msg, sizeof call->msg)) {
      c->close_after = true;
      call->status = QUA_ELIMIT;
      closure(NULL, call);
      return;
    }
    size_t glen = pb_field_len(call->body->data, call->body->len, 2); /* HelloRequest.token */
    if (!token_equal(in->token, glen, quad_srv->cfg.token, quad_srv->cfg.token_len)) {
      quad_hello_failed(c, "wrong token");
      c->close_after = true;
      FAIL(QUA_EAUTH, "wrong token");
    }
  }
  if (in->version != QUAP_VERSION) {
    if (c->tcp && c->state == QUAD_NEW)
      c->close_after = true;
    FAIL(QUA_EVERSION, "quad speaks protocol version %u; the client asked for %u", QUAP_VERSION,
         in->version);
  }
  if (c->state == QUAD_NEW) {
    c->state = QUAD_READY;
    quad_hello_done(c);
    quad_log(QUAD_LOG_INFO, "conn %llu (%s): hello from \"%s\"", (unsigned long long)c->serial,
             c->peer, in->client);
  }
  Qua__V1__HelloReply out = QUA__V1__HELLO_REPLY__INIT;
  out.version = QUAP_VERSION;
  out.server = (char *)"quad " QUAD_VERSION;
  out.max_frame = quad_srv->cfg.max_frame;
  out.max_inflight = quad_srv->cfg.max_inflight;
  out.max_quajects = quad_srv->cfg.max_quajects;
  closure(&out, call);
}

/* --- Types: ListTypes from the type table ---------------------------------------------
 *
 * A type's lists (params, entries, callouts, callbacks) become TypeInfo's
 * repeated fields of the same names, one message per element. One table
 * says, for each list, where qua_type_t keeps it and, for each field of the
 * reply's element, where its value is in the type table's element; one
 * loop fills every message through protobuf-c's descriptors, by field
 * name. So no member is copied by hand, and a field the table names that
 * the protocol lacks (or types differently) fails ListTypes with its name. */

typedef enum { TV_STR, TV_INT, TV_U64, TV_BOOL, TV_FLAG, TV_BROADCAST } tv_kind_t;

typedef struct tv_field {
  const char *field; /* in the reply's element message */
  size_t off;        /* in the type table's element */
  tv_kind_t kind;
  unsigned flag;     /* TV_FLAG: which qua_param_flags bit */
} tv_field_t;

typedef struct tv_list {
  const char *field;          /* TypeInfo's repeated field */
  size_t array_off, count_off; /* in qua_type_t */
  size_t elem_size;
  tv_field_t f[8];
} tv_list_t;

#define TV(T, m, kind) {#m, offsetof(T, m), kind, 0}
#define TV_PARAM_FLAG(name, bit) {name, offsetof(qua_param_def_t, flags), TV_FLAG, bit}
#define TV_LIST(field, m, n, T) #field, offsetof(qua_type_t, m), offsetof(qua_type_t, n), sizeof(T)

static const tv_list_t type_lists[] = {
    {TV_LIST(params, params, nparams, qua_param_def_t),
     {TV(qua_param_def_t, name, TV_STR), TV(qua_param_def_t, def, TV_U64),
      TV(qua_param_def_t, min, TV_U64), TV(qua_param_def_t, max, TV_U64),
      TV_PARAM_FLAG("pow2", QUA_PARAM_POW2), TV_PARAM_FLAG("text", QUA_PARAM_STRING),
      TV_PARAM_FLAG("required", QUA_PARAM_REQUIRED), TV(qua_param_def_t, help, TV_STR)}},
    {TV_LIST(entries, entries, nentries, qua_entry_def_t),
     {TV(qua_entry_def_t, name, TV_STR), TV(qua_entry_def_t, arity, TV_INT),
      TV(qua_entry_def_t, returns, TV_BOOL), TV(qua_entry_def_t, remote, TV_BOOL),
      TV(qua_entry_def_t, help, TV_STR)}},
    {TV_LIST(callouts, callouts, ncallouts, qua_callout_def_t),
     {TV(qua_callout_def_t, name, TV_STR), TV(qua_callout_def_t, arity, TV_INT),
      TV(qua_callout_def_t, returns, TV_BOOL), TV(qua_callout_def_t, help, TV_STR)}},
    {TV_LIST(callbacks, callbacks, ncallbacks, qua_callback_def_t),
     {TV(qua_callback_def_t, name, TV_STR),
      {"broadcast", offsetof(qua_callback_def_t, kind), TV_BROADCAST, 0},
      TV(qua_callback_def_t, help, TV_STR)}},
};

/* The protobuf-c type each kind of value is stored as. */
static const ProtobufCType tv_pb_type[] = {
    [TV_STR] = PROTOBUF_C_TYPE_STRING, [TV_INT] = PROTOBUF_C_TYPE_UINT32,
    [TV_U64] = PROTOBUF_C_TYPE_UINT64, [TV_BOOL] = PROTOBUF_C_TYPE_BOOL,
    [TV_FLAG] = PROTOBUF_C_TYPE_BOOL,  [TV_BROADCAST] = PROTOBUF_C_TYPE_BOOL,
};

/* Fills message m from the type table's element e as list l says. 0, or
 * QUA_EPROTO with msg naming a field the protocol lacks. */
static int tv_fill(ProtobufCMessage *m, const tv_list_t *l, const char *e, char *msg,
                   size_t msglen) {
  for (const tv_field_t *f = l->f; f < l->f + 8 && f->field != NULL; f++) {
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field_by_name(m->descriptor, f->field);
    if (fd == NULL || fd->label == PROTOBUF_C_LABEL_REPEATED || fd->type != tv_pb_type[f->kind]) {
      snprintf(msg, msglen, "%s has no field %s of the type table's kind", m->descriptor->name,
               f->field);
      return QUA_EPROTO;
    }
    char *dst = (char *)m + fd->offset;
    const char *src = e + f->off;
    switch (f->kind) {
    case TV_STR: {
      const char *str = *(const char *const *)src;
      *(const char **)dst = str != NULL ? str : "";
      break;
    }
    case TV_INT: *(uint32_t *)dst = (uint32_t)*(const int *)src; break;
    case TV_U64: *(uint64_t *)dst = *(const uint64_t *)src; break;
    case TV_BOOL: *(protobuf_c_boolean *)dst = *(const bool *)src; break;
    case TV_FLAG: *(protobuf_c_boolean *)dst = (*(const unsigned *)src & f->flag) != 0; break;
    case TV_BROADCAST:
      *(protobuf_c_boolean *)dst = *(const qua_callback_kind_t *)src == QUA_CB_BROADCAST;
      break;
    }
  }
  return 0;
}

/* Fills ti's lists from t. 0, QUA_ENOMEM, or QUA_EPROTO with msg set. */
static int type_info(arena_t *a, const qua_type_t *t, Qua__V1__TypeInfo *ti, char *msg,
                     size_t msglen) {
  qua__v1__type_info__init(ti);
  ti->name = (char *)t->name;
  ti->summary = (char *)(t->summary ? t->summary : "");
  for (size_t i = 0; i < sizeof type_lists / sizeof type_lists[0]; i++) {
    const tv_list_t *l = &type_lists[i];
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field_by_name(&qua__v1__type_info__descriptor, l->field);
    if (fd == NULL || fd->label != PROTOBUF_C_LABEL_REPEATED ||
        fd->type != PROTOBUF_C_TYPE_MESSAGE) {
      snprintf(msg, msglen, "TypeInfo has no list %s", l->field);
      return QUA_EPROTO;
    }
    const ProtobufCMessageDescriptor *ed = fd->descriptor;
    size_t n = (size_t) * (const int *)((const char *)t + l->count_off);
    const char *elems = *(const char *const *)((const char *)t + l->array_off);
    ProtobufCMessage **ms = arena_alloc(a, n * sizeof *ms);
    if (ms == NULL)
      return QUA_ENOMEM;
    for (size_t k = 0; k < n; k++) {
      if ((ms[k] = arena_alloc(a, ed->sizeof_message)) == NULL)
        return QUA_ENOMEM;
      protobuf_c_message_init(ed, ms[k]);
      int r = tv_fill(ms[k], l, elems + k * l->elem_size, msg, msglen);
      if (r < 0)
        return r;
    }
    *(size_t *)((char *)ti + fd->quantifier_offset) = n;
    *(ProtobufCMessage ***)((char *)ti + fd->offset) = ms;
  }
  return 0;
}

static void svc_list_types(Qua__V1__Qua_Service *svc, const Qua__V1__ListTypesRequest *in,
                           Qua__V1__ListTypesReply_Closure closure, void *data) {
  quad_call_t *call = data;
  /* libqua's types (the built-in ones and quad's link), then the m68k ones. */
  const qua_type_t *const *types = qua_types(), *const *m68k = quad_m68k_types();
  size_t nhost = 0, nt;
  while (types[nhost] != NULL)
    nhost++;
  for (nt = nhost; m68k[nt - nhost] != NULL; nt++)
    ;
  arena_t a = {0};
  Qua__V1__ListTypesReply out = QUA__V1__LIST_TYPES_REPLY__INIT;
  out.types = arena_alloc(&a, nt * sizeof *out.types);
  int r = out.types != NULL ? 0 : QUA_ENOMEM;
  char why[160];
  for (size_t i = 0; r == 0 && i < nt; i++) {
    Qua__V1__TypeInfo *ti = arena_alloc(&a, sizeof *ti);
    r = ti != NULL ? type_info(&a, i < nhost ? types[i] : m68k[i - nhost], ti, why, sizeof why)
                   : QUA_ENOMEM;
    if (r == 0)
      out.types[out.n_types++] = ti;
  }
  if (r < 0) {
    arena_free(&a);
    if (r == QUA_ENOMEM)
      FAIL(QUA_ENOMEM, "out of memory listing types");
    FAIL(r, "%s", why);
  }
  closure(&out, call);
  arena_free(&a);
}

/* A quaject made by a Create that could not keep it (its name was taken
 * meanwhile, or memory ran out): destroyed by a job of its own, since a
 * destroy waits for a grace period. Out of memory, on the loop. */
typedef struct bare {
  quad_job_t job;
  qua_quaject_t *q;
} bare_t;

static void bare_work(quad_job_t *j) { qua_destroy(((bare_t *)j)->q, true, NULL); }

static void bare_done(quad_job_t *j) {
  quad_link_reap();
  free(j);
}

static void bare_destroy(qua_quaject_t *q) {
  bare_t *d = malloc(sizeof *d);
  if (d == NULL) {
    quad_log(QUAD_LOG_WARN, "out of memory: quaject #%" PRIu64 " is destroyed on the loop",
             qua_quaject_id(q));
    qua_destroy(q, true, NULL);
    return;
  }
  d->q = q;
  d->job.work = bare_work;
  d->job.done = bare_done;
  quad_job_submit(&d->job, NULL, false);
}

/* Create's worker part. */
static void create_work(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  const Qua__V1__CreateRequest *in = (const Qua__V1__CreateRequest *)x->in;
  x->status = x->m68k != NULL
                  ? qua_create_with(x->m68k, x->params, (int)x->nparams, &x->q, &x->err)
                  : qua_create(in->type, x->params, (int)x->nparams, &x->q, &x->err);
}

/* Create's loop part: the object and its handle, unless the connection
 * went or another Create took the name meanwhile. */
static void create_done(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  quad_conn_t *c = j->c;
  const Qua__V1__CreateRequest *in = (const Qua__V1__CreateRequest *)x->in;
  quad_obj_t *o = NULL;
  quad_ref_t *ref = NULL;
  if (x->status < 0)
    goto undo;
  if (in->name[0] != '\0' && obj_by_name(in->name) != NULL) {
    ctl_err(x, QUA_EEXIST, "the name '%s' is taken", in->name);
    goto drop;
  }
  if ((o = obj_add(x->q, c, NULL)) == NULL)
    goto nomem;
  o->active = x->active;
  if (in->name[0] != '\0' && quad_reg_publish(&quad_srv->reg, o, in->name) < 0)
    goto nomem;
  if (c->state >= QUAD_CLOSING) {
    ctl_err(x, QUA_ESHUTDOWN, "the connection closed"); /* nobody hears it */
    goto drop;
  }
  if ((ref = quad_ref_get(c, o)) == NULL ||
      (o->params = quad_state_params(x->params, x->nparams)) == NULL)
    goto nomem;
  if (o->name != NULL)
    quad_state_changed(c); /* written ahead of the answer */
  quad_link_start(o->q);
  quad_log(QUAD_LOG_DEBUG, "conn %llu: create %s #%" PRIu64 "%s%s", (unsigned long long)c->serial,
           in->type, o->id, o->name ? " as " : "", o->name ? o->name : "");
  Qua__V1__CreateReply out = QUA__V1__CREATE_REPLY__INIT;
  out.handle = ref->handle;
  out.id = o->id;
  ctl_finish(x, &out.base);
  return;

nomem:
  ctl_err(x, QUA_ENOMEM, "out of memory");
drop:
  if (o != NULL) {
    teardown_t td = {0};
    obj_detach(o, &td); /* gives the counts back */
    teardown_submit(&td, NULL, NULL);
    ctl_finish(x, NULL);
    return;
  }
  quad_log(QUAD_LOG_DEBUG, "create #%" PRIu64 ": %s; destroyed", qua_quaject_id(x->q),
           x->err.msg);
  bare_destroy(x->q);
undo:
  c->owned--;
  quad_srv->nobjs--;
  quad_srv->nthreads -= x->active;
  ctl_finish(x, NULL);
}

static void svc_create(Qua__V1__Qua_Service *svc, const Qua__V1__CreateRequest *in,
                       Qua__V1__CreateReply_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_conn_t *c = call->c;
  if (c->owned >= quad_srv->cfg.max_quajects)
    FAIL(QUA_ELIMIT, "this connection owns %u quajects, the limit (--max-quajects-per-client)",
         c->owned);
  if (in->name[0] != '\0') {
    if (!quad_name_ok(in->name))
      FAIL(QUA_EINVAL, "bad name '%.64s': 1 to 63 letters, digits, '_' or '-'", in->name);
    if (obj_by_name(in->name) != NULL)
      FAIL(QUA_EEXIST, "the name '%s' is taken", in->name);
  }
  if (in->n_params > QUA_MAX_PARAMS * 4)
    FAIL(QUA_EINVAL, "%zu parameters", in->n_params);
  /* target=host (the default) or target=m68k: where the callentries run. */
  const char *params[QUA_MAX_PARAMS * 4];
  size_t nparams = 0;
  /* An m68k type by its own name ("m68k-queue") needs no target=. */
  const qua_type_t *m68k = strncmp(in->type, "m68k-", 5) == 0 ? quad_m68k_type(in->type) : NULL;
  for (size_t i = 0; i < in->n_params; i++) {
    if (strncmp(in->params[i], "target=", 7) != 0) {
      params[nparams++] = in->params[i];
      continue;
    }
    const char *target = in->params[i] + 7;
    if (strcmp(target, "m68k") == 0) {
      m68k = quad_m68k_type(in->type);
      if (m68k == NULL)
        FAIL(QUA_ENOTYPE, "no quaject type '%.64s' for target=m68k (queue, stack, counter)%s",
             in->type, quad_m68k_type("queue") == NULL ? ": this quad has no m68k backend" : "");
    } else if (strcmp(target, "host") == 0) {
      m68k = NULL;
    } else {
      FAIL(QUA_EINVAL, "%.64s: expected target=host or target=m68k", in->params[i]);
    }
  }
  /* The daemon-wide limits, before anything is made. */
  if (quad_srv->nobjs >= quad_srv->cfg.max_quajects_total)
    FAIL(QUA_ELIMIT, "the daemon runs %u quajects, the limit (--max-quajects)", quad_srv->nobjs);
  const qua_type_t *type = m68k != NULL ? m68k : qua_type_find(in->type);
  bool active = type != NULL && type->ops.start != NULL;
  if (active && quad_srv->nthreads >= quad_srv->cfg.max_threads)
    FAIL(QUA_ELIMIT, "the daemon runs %u quajects with threads of their own, the limit "
         "(--max-threads)", quad_srv->nthreads);
  ctl_t *x = ctl_new(call, create_work, create_done);
  if (x == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  x->m68k = m68k;
  memcpy(x->params, params, nparams * sizeof params[0]); /* into the request, which the job keeps */
  x->nparams = nparams;
  x->active = active;
  /* The counts are taken now (work.c note 3): creates in flight count. */
  c->owned++;
  quad_srv->nobjs++;
  quad_srv->nthreads += active;
  ctl_submit(x, call);
}

/* --- Destroy ------------------------------------------------------------------------ */

/* A Destroy without force asks libqua whether a daemon object's callout is
 * wired into the quaject (qua_wired_in, under the control lock) in a job
 * of its own, and only then detaches it and queues its teardown. From the
 * request to that job's done the object is `dying`: no Wire names it as
 * its target, nor does another Destroy, so the answer still holds when the
 * done acts on it (a Wire queued before the request ran before the job). */
typedef struct destroy_check {
  quad_job_t job;
  uint64_t id;      /* the request */
  uint32_t method;  /* and its method (for the metrics) */
  uint64_t oid;     /* the object's id: looked up again in done */
  qua_quaject_t *q;
  int n, cap;       /* wires in (-1: out of memory), and room in ids and callouts */
  uint64_t *ids;
  int *callouts;
  uint64_t ids0[16];
  int callouts0[16];
} destroy_check_t;

/* Frees the room made for the wires, if it is not the job's own. */
static void destroy_check_room_free(destroy_check_t *x) {
  if (x->ids != x->ids0) {
    free(x->ids);
    free(x->callouts);
  }
}

static void destroy_check_free(destroy_check_t *x) {
  destroy_check_room_free(x);
  free(x);
}

/* The worker: every wire into q, with room made until they fit. */
static void destroy_check_work(quad_job_t *j) {
  destroy_check_t *x = (destroy_check_t *)j;
  while ((x->n = qua_wired_in(x->q, x->ids, x->callouts, x->cap)) > x->cap) {
    int cap = x->n + 16;
    uint64_t *ids = malloc((size_t)cap * sizeof *ids);
    int *callouts = malloc((size_t)cap * sizeof *callouts);
    if (ids == NULL || callouts == NULL) {
      free(ids);
      free(callouts);
      x->n = -1;
      return;
    }
    destroy_check_room_free(x);
    x->ids = ids;
    x->callouts = callouts;
    x->cap = cap;
  }
}

/* The loop: refuses if a daemon object is wired into it, else detaches it
 * and queues its teardown, which answers. */
static void destroy_check_done(quad_job_t *j) {
  destroy_check_t *x = (destroy_check_t *)j;
  quad_conn_t *c = j->c;
  quad_obj_t *o = obj_by_id(x->oid);
  int status = 0;
  char msg[192] = "";
  if (o != NULL) { /* else it went meanwhile, with its owner's connection */
    o->dying = false;
    if (x->n < 0) {
      status = QUA_ENOMEM;
      snprintf(msg, sizeof msg, "out of memory");
    }
    for (int i = 0; status == 0 && i < x->n; i++) {
      const quad_obj_t *p = obj_by_id(x->ids[i]);
      if (p == NULL)
        continue; /* not the daemon's, or already on its way out */
      const qua_type_t *t = qua_quaject_type(p->q);
      status = QUA_EBUSY;
      snprintf(msg, sizeof msg, "%s.%s is wired to it (unwire it, or destroy with force)",
               p->name ? p->name : t->name, t->callouts[x->callouts[i]].name);
    }
    if (status == 0) {
      teardown_t td = {0};
      obj_detach(o, &td);
      teardown_queue(&td, c, true, x->id, x->method); /* answers when done */
      destroy_check_free(x);
      return;
    }
  }
  if (c->state < QUAD_CLOSING) {
    quad_metrics_reply(x->method, status);
    Qua__V1__Empty out = QUA__V1__EMPTY__INIT;
    quad_conn_respond(c, x->id, status, status < 0 ? msg : NULL, status < 0 ? NULL : &out.base);
  }
  destroy_check_free(x);
}

static void svc_destroy(Qua__V1__Qua_Service *svc, const Qua__V1__DestroyRequest *in,
                        Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  GET_REF(ref, in->handle);
  quad_obj_t *o = ref->obj;
  DENY_UNLESS_CONTROL(o, "destroy");
  if (o->dying)
    FAIL(QUA_EBUSY, "quaject #%" PRIu64 " is being destroyed", o->id);
  quad_log(QUAD_LOG_DEBUG, "conn %llu: destroy #%" PRIu64 "%s",
           (unsigned long long)call->c->serial, o->id, in->force ? " (force)" : "");
  if (!in->force) {
    destroy_check_t *x = calloc(1, sizeof *x);
    if (x == NULL)
      FAIL(QUA_ENOMEM, "out of memory");
    x->job.work = destroy_check_work;
    x->job.done = destroy_check_done;
    x->id = call->id;
    x->method = call->method;
    x->oid = o->id;
    x->q = o->q;
    x->ids = x->ids0;
    x->callouts = x->callouts0;
    x->cap = 16;
    o->dying = true;
    call->deferred = true;
    quad_job_submit(&x->job, call->c, true);
    return;
  }
  teardown_t td = {0};
  obj_detach(o, &td);
  teardown_submit(&td, call->c, call);
}

static void svc_publish(Qua__V1__Qua_Service *svc, const Qua__V1__PublishRequest *in,
                        Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  GET_REF(ref, in->handle);
  quad_obj_t *o = ref->obj;
  if (!quad_name_ok(in->name))
    FAIL(QUA_EINVAL, "bad name '%.64s': 1 to 63 letters, digits, '_' or '-'", in->name);
  quad_obj_t *other = obj_by_name(in->name);
  if (other == o) {
    Qua__V1__Empty out = QUA__V1__EMPTY__INIT;
    closure(&out, call);
    return;
  }
  if (other != NULL)
    FAIL(QUA_EEXIST, "the name '%s' is taken", in->name);
  if (o->name != NULL)
    FAIL(QUA_ESTATE, "already published as '%s'", o->name);
  if (quad_reg_publish(&quad_srv->reg, o, in->name) < 0)
    FAIL(QUA_ENOMEM, "out of memory");
  quad_state_changed(call->c);
  Qua__V1__Empty out = QUA__V1__EMPTY__INIT;
  closure(&out, call);
}

static void svc_unpublish(Qua__V1__Qua_Service *svc, const Qua__V1__UnpublishRequest *in,
                          Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_obj_t *o = obj_by_name(in->name);
  if (o == NULL)
    FAIL(QUA_ENOTFOUND, "no quaject is published as '%.64s'", in->name);
  DENY_UNLESS_CONTROL(o, "unpublish");
  quad_reg_unpublish(&quad_srv->reg, o);
  if (o->owner == NULL) {
    quad_reg_set_owner(o, call->c);
    call->c->owned++;
  }
  quad_state_changed(call->c);
  Qua__V1__Empty out = QUA__V1__EMPTY__INIT;
  closure(&out, call);
}

static void svc_open(Qua__V1__Qua_Service *svc, const Qua__V1__OpenRequest *in,
                     Qua__V1__OpenReply_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_obj_t *o = obj_by_name(in->name);
  if (o == NULL)
    FAIL(QUA_ENOTFOUND, "no quaject is published as '%.64s'", in->name);
  quad_ref_t *ref = quad_ref_get(call->c, o);
  if (ref == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  Qua__V1__OpenReply out = QUA__V1__OPEN_REPLY__INIT;
  out.handle = ref->handle;
  out.type = (char *)qua_quaject_type(o->q)->name;
  out.id = o->id;
  closure(&out, call);
}

static void wire_work(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  const Qua__V1__WireRequest *in = (const Qua__V1__WireRequest *)x->in;
  x->status = qua_wire(x->q, in->callout, x->dst, in->entry, &x->err);
}

static void svc_wire(Qua__V1__Qua_Service *svc, const Qua__V1__WireRequest *in,
                     Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  GET_REF(src, in->src);
  GET_REF(dst, in->dst);
  if (dst->obj->dying) /* its Destroy is checking that nothing is wired into it */
    FAIL(QUA_EBUSY, "quaject #%" PRIu64 " is being destroyed", dst->obj->id);
  ctl_t *x = ctl_new(call, wire_work, ctl_done_saved);
  if (x == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  x->q = src->obj->q;
  x->dst = dst->obj->q;
  ctl_submit(x, call);
}

static void unwire_work(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  const Qua__V1__UnwireRequest *in = (const Qua__V1__UnwireRequest *)x->in;
  x->status = qua_unwire(x->q, in->callout, &x->err);
}

static void svc_unwire(Qua__V1__Qua_Service *svc, const Qua__V1__UnwireRequest *in,
                       Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  GET_REF(src, in->src);
  ctl_t *x = ctl_new(call, unwire_work, ctl_done_saved);
  if (x == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  x->q = src->obj->q;
  ctl_submit(x, call);
}

/* --- Invoke ------------------------------------------------------------------------ */

/* Records an invoker callback fired during a call (loop thread: only the
 * loop calls through the connection's sites). */
static void on_fired(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  quad_conn_t *c = ctx;
  if (c->nfired < QUAD_FIRED_MAX) {
    c->fired[c->nfired].cb = cb;
    c->fired[c->nfired].arg = arg;
    c->nfired++;
  }
}

/* The number of invoker callbacks of t: what a call on it may report fired. */
static int invoker_callbacks(const qua_type_t *t) {
  int n = 0;
  for (int k = 0; k < t->ncallbacks; k++)
    n += t->callbacks[k].kind == QUA_CB_INVOKER;
  return n;
}

/* Bytes of protobuf that one varint-sized field takes at most: tag and a
 * 10-byte varint. */
#define PB_VARINT_MAX 11
/* A length-delimited field: tag and a length of up to 3 bytes (< 2 MiB). */
#define PB_LEN_MAX 4

/* The most bytes the reply to `in`, one element of an InvokeBatchReply, can
 * take: status, result, and QUAD_FIRED_MAX fired callbacks named as the
 * longest invoker callback of the handle's type. */
static size_t invoke_reply_bound(quad_conn_t *c, const Qua__V1__InvokeRequest *in) {
  size_t n = PB_LEN_MAX + 3 * PB_VARINT_MAX; /* the element, status, has_result, result */
  quad_ref_t *ref = quad_map_get(&c->handles, in->handle);
  if (ref == NULL)
    return n;
  const qua_type_t *t = qua_quaject_type(ref->obj->q);
  size_t longest = 0;
  for (int k = 0; k < t->ncallbacks; k++)
    if (t->callbacks[k].kind == QUA_CB_INVOKER && strlen(t->callbacks[k].name) > longest)
      longest = strlen(t->callbacks[k].name);
  if (invoker_callbacks(t) > 0)
    n += QUAD_FIRED_MAX * (PB_LEN_MAX + PB_LEN_MAX + longest + PB_VARINT_MAX);
  return n;
}

/* The handle and callentry a call names, checked: 0, or an error with msg set. */
static int invoke_target(quad_conn_t *c, const Qua__V1__InvokeRequest *in, quad_ref_t **refp,
                         int *ep, char *msg, size_t msglen) {
  quad_ref_t *ref = quad_map_get(&c->handles, in->handle);
  if (ref == NULL) {
    snprintf(msg, msglen, "no handle %" PRIu64 " on this connection", in->handle);
    return QUA_EHANDLE;
  }
  qua_quaject_t *q = ref->obj->q;
  const qua_type_t *t = qua_quaject_type(q);
  int e = qua_type_entry(t, in->entry);
  if (e < 0) {
    snprintf(msg, msglen, "%s has no callentry '%.64s'", t->name, in->entry);
    return QUA_ENOENTRY;
  }
  const qua_entry_def_t *ed = &t->entries[e];
  if (!ed->remote) {
    snprintf(msg, msglen, "%s.%s takes pointer arguments: not callable remotely", t->name,
             ed->name);
    return QUA_EINVAL;
  }
  if (in->n_args != (size_t)ed->arity) {
    snprintf(msg, msglen, "%s.%s takes %d argument%s, not %zu", t->name, ed->name, ed->arity,
             ed->arity == 1 ? "" : "s", in->n_args);
    return QUA_EINVAL;
  }
  *refp = ref;
  *ep = e;
  return 0;
}

/* --- Invoke sites, opened by the worker ------------------------------------------------ */

/* A connection's first call of a callentry through a handle opens the
 * handle's site for it, a control operation (it may wait for a grace
 * period). The request goes to the worker with the sites it lacks; when
 * they are open, the loop runs it as if it had just come (call->opened
 * says why a site is still missing). */
typedef struct site_want {
  quad_ref_t *ref;
  qua_quaject_t *q;
  int e;
  qua_site_t *site; /* opened */
  int status;
  char msg[160];
} site_want_t;

/* The service (defined with the methods, at the end). */
static Qua__V1__Qua_Service quad_service;

typedef struct opener {
  quad_job_t job;
  uint64_t id;
  unsigned method;
  ProtobufCMessage *in;
  int n;
  site_want_t want[];
} opener_t;

static void opener_work(quad_job_t *j) {
  opener_t *o = (opener_t *)j;
  for (int i = 0; i < o->n; i++) {
    site_want_t *w = &o->want[i];
    const qua_type_t *t = qua_quaject_type(w->q);
    qua_bind_t binds[QUA_MAX_CALLBACKS + 1];
    int nb = 0;
    for (int k = 0; k < t->ncallbacks; k++)
      if (t->callbacks[k].kind == QUA_CB_INVOKER)
        binds[nb++] = (qua_bind_t){t->callbacks[k].name, on_fired, j->c};
    binds[nb] = (qua_bind_t){NULL, NULL, NULL};
    qua_error_t err = {0};
    w->status = qua_site_open(w->q, t->entries[w->e].name, binds, 0, &w->site, &err);
    if (w->status < 0)
      snprintf(w->msg, sizeof w->msg, "%s", err.msg[0] ? err.msg : qua_strerror(w->status));
  }
}

/* Gives the handles their sites (a handle detached meanwhile still takes
 * it: the teardown queued after this job closes it), then runs the request. */
static void opener_done(quad_job_t *j) {
  opener_t *o = (opener_t *)j;
  quad_conn_t *c = j->c;
  for (int i = 0; i < o->n; i++)
    if (o->want[i].site != NULL)
      o->want[i].ref->sites[o->want[i].e] = o->want[i].site;
  if (c->state < QUAD_CLOSING) {
    quad_call_t call = {.c = c, .id = o->id, .opened = o};
    quad_service.base.invoke(&quad_service.base, o->method, o->in, reply, &call);
  }
  protobuf_c_message_free_unpacked(o->in, NULL);
  free(o);
}

/* When some of the calls need a site their handle lacks: submits the
 * request to the worker to open them (1), or 0 when none is missing, or
 * QUA_ENOMEM. */
static int sites_wanted(quad_call_t *call, unsigned method, Qua__V1__InvokeRequest *const *calls,
                        size_t ncalls) {
  if (call->opened != NULL)
    return 0; /* the replay: what is still missing failed */
  int n = 0;
  opener_t *o = NULL;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < ncalls; i++) {
      quad_ref_t *ref;
      int e;
      char msg[160];
      if (invoke_target(call->c, calls[i], &ref, &e, msg, sizeof msg) < 0 || ref->sites[e] != NULL)
        continue;
      int k = 0;
      while (o != NULL && k < o->n && !(o->want[k].ref == ref && o->want[k].e == e))
        k++;
      if (pass == 0) {
        n++; /* an upper bound: duplicates are counted */
      } else if (k == o->n) {
        o->want[o->n++] = (site_want_t){.ref = ref, .q = ref->obj->q, .e = e};
      }
    }
    if (pass == 0) {
      if (n == 0)
        return 0;
      if ((o = calloc(1, sizeof *o + (size_t)n * sizeof o->want[0])) == NULL)
        return QUA_ENOMEM;
    }
  }
  o->job.work = opener_work;
  o->job.done = opener_done;
  o->id = call->id;
  o->method = method;
  /* The job keeps the request: an Invoke unpacked into the dispatcher's
   * arena is unpacked again onto the heap. */
  if (call->alloc != NULL) {
    ProtobufCMessage *heap =
        protobuf_c_message_unpack(call->in->descriptor, NULL, call->body->len, call->body->data);
    if (heap == NULL) {
      free(o);
      return QUA_ENOMEM;
    }
    quap_message_free(call->in, call->alloc);
    call->in = heap;
    call->alloc = NULL;
  }
  o->in = call->in;
  call->in = NULL;
  call->deferred = true;
  quad_job_submit(&o->job, call->c, true);
  return 1;
}

/* Runs one call; a request-level error returns negative with msg set. */
static int invoke_one(quad_call_t *call, const Qua__V1__InvokeRequest *in,
                      Qua__V1__InvokeReply *out, arena_t *a, char *msg, size_t msglen) {
  quad_conn_t *c = call->c;
  quad_ref_t *ref;
  int e;
  int r = invoke_target(c, in, &ref, &e, msg, msglen);
  if (r < 0)
    return r;
  const qua_type_t *t = qua_quaject_type(ref->obj->q);
  const qua_entry_def_t *ed = &t->entries[e];
  if (ref->sites[e] == NULL) {
    /* The worker tried to open it (sites_wanted) and could not. */
    for (int k = 0; call->opened != NULL && k < call->opened->n; k++)
      if (call->opened->want[k].ref == ref && call->opened->want[k].e == e) {
        snprintf(msg, msglen, "%s", call->opened->want[k].msg);
        return call->opened->want[k].status;
      }
    snprintf(msg, msglen, "%s.%s has no site for this handle", t->name, ed->name);
    return QUA_ESTATE;
  }
  /* Room for the fired callbacks is taken before the call: once the call
   * ran, nothing may fail and report it as not done. */
  Qua__V1__FiredCallback **fired = NULL, *fc = NULL;
  if (invoker_callbacks(t) > 0) {
    fired = arena_alloc(a, QUAD_FIRED_MAX * sizeof *fired);
    fc = arena_alloc(a, QUAD_FIRED_MAX * sizeof *fc);
    if (fired == NULL || fc == NULL) {
      snprintf(msg, msglen, "out of memory: the call was not made");
      return QUA_ENOMEM;
    }
  }
  uint64_t a0 = in->n_args > 0 ? in->args[0] : 0, a1 = in->n_args > 1 ? in->args[1] : 0;
  uint64_t ret = 0;
  c->nfired = 0;
  r = qua_call(ref->sites[e], a0, a1, &ret);
  out->status = r;
  out->has_result = ed->returns && r == QUA_OK;
  out->result = out->has_result ? ret : 0;
  if (c->nfired > 0 && fired != NULL) {
    out->fired = fired;
    for (int i = 0; i < c->nfired; i++) {
      qua__v1__fired_callback__init(&fc[i]);
      fc[i].callback = (char *)t->callbacks[c->fired[i].cb].name;
      fc[i].arg = c->fired[i].arg;
      out->fired[i] = &fc[i];
    }
    out->n_fired = (size_t)c->nfired;
  }
  return 0;
}

static void svc_invoke(Qua__V1__Qua_Service *svc, const Qua__V1__InvokeRequest *in,
                       Qua__V1__InvokeReply_Closure closure, void *data) {
  quad_call_t *call = data;
  arena_t a = {0};
  Qua__V1__InvokeReply out = QUA__V1__INVOKE_REPLY__INIT;
  int w = sites_wanted(call, QUAP_INVOKE, (Qua__V1__InvokeRequest *const *)&in, 1);
  if (w < 0)
    FAIL(w, "out of memory: the call was not made");
  if (w > 0)
    return; /* answered when the worker opened the site */
  int r = invoke_one(call, in, &out, &a, call->msg, sizeof call->msg);
  if (r < 0) {
    arena_free(&a);
    call->status = r;
    closure(NULL, call);
    return;
  }
  closure(&out, call);
  arena_free(&a);
}

static void svc_invoke_batch(Qua__V1__Qua_Service *svc, const Qua__V1__InvokeBatchRequest *in,
                             Qua__V1__InvokeBatchReply_Closure closure, void *data) {
  quad_call_t *call = data;
  /* Both refusals come before any call runs: a batch runs whole or not at all. */
  if (in->n_calls > QUAD_BATCH_MAX)
    FAIL(QUA_ELIMIT, "a batch of %zu calls: at most %d calls per InvokeBatch", in->n_calls,
         QUAD_BATCH_MAX);
  size_t bound = QUAD_FRAME_OVERHEAD;
  for (size_t i = 0; i < in->n_calls; i++)
    bound += invoke_reply_bound(call->c, in->calls[i]);
  if (bound > quad_srv->cfg.max_frame)
    FAIL(QUA_ETOOBIG,
         "the replies of these %zu calls may take %zu bytes, over --max-frame (%zu): "
         "send fewer calls per batch; none was made",
         in->n_calls, bound, quad_srv->cfg.max_frame);
  int w = sites_wanted(call, QUAP_INVOKE_BATCH, in->calls, in->n_calls);
  if (w < 0)
    FAIL(w, "out of memory: none of the calls was made");
  if (w > 0)
    return; /* answered when the worker opened the sites */
  arena_t a = {0};
  Qua__V1__InvokeBatchReply out = QUA__V1__INVOKE_BATCH_REPLY__INIT;
  Qua__V1__InvokeReply *replies = arena_alloc(&a, in->n_calls * sizeof *replies);
  out.replies = arena_alloc(&a, in->n_calls * sizeof *out.replies);
  if (a.failed || quad_conn_reserve(call->c, bound) < 0) { /* the reply's room, before any call */
    arena_free(&a);
    FAIL(QUA_ENOMEM, "out of memory: none of the calls was made");
  }
  /* A call refused (unknown handle, entry...) gets its status in its
   * reply; the others still run. */
  for (size_t i = 0; i < in->n_calls; i++) {
    qua__v1__invoke_reply__init(&replies[i]);
    char msg[160];
    int r = invoke_one(call, in->calls[i], &replies[i], &a, msg, sizeof msg);
    if (r < 0)
      replies[i].status = r;
    out.replies[i] = &replies[i];
  }
  out.n_replies = in->n_calls;
  closure(&out, call);
  arena_free(&a);
}

/* --- Bindings ---------------------------------------------------------------------- */

static void bind_work(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  x->status = quad_bind_work(x->b, &x->err);
}

static void bind_done(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  quad_binding_t *b = x->b;
  int r = quad_bind_finish(b, x->status);
  if (r == QUA_EHANDLE && x->status >= 0)
    ctl_err(x, r, "the quaject was destroyed while it was being bound");
  if (r < 0) {
    x->status = r;
    ctl_finish(x, NULL);
    return;
  }
  quad_conn_t *c = j->c;
  Qua__V1__BindReply out = QUA__V1__BIND_REPLY__INIT;
  out.binding = b->id;
  ctl_finish(x, &out.base); /* frees x */
  /* The reply goes before the first items of a drain. */
  if (b->kind == QUAD_BIND_DRAIN && c->state < QUAD_CLOSING)
    quad_credit(b, 0);
}

static void svc_bind(Qua__V1__Qua_Service *svc, const Qua__V1__BindRequest *in,
                     Qua__V1__BindReply_Closure closure, void *data) {
  quad_call_t *call = data;
  GET_REF(ref, in->handle);
  bool has_cb = in->callback[0] != '\0', has_co = in->callout[0] != '\0';
  if (has_cb == has_co)
    FAIL(QUA_EINVAL, "name exactly one of callback and callout");
  if (call->c->bindings.len >= quad_srv->cfg.max_quajects)
    FAIL(QUA_ELIMIT, "this connection has %zu bindings, the limit", call->c->bindings.len);
  ctl_t *x = ctl_new(call, bind_work, bind_done);
  if (x == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  int r = quad_bind_prepare(call->c, ref, has_cb ? in->callback : NULL,
                            has_cb ? NULL : in->callout, in->credits, &x->b, &x->err);
  if (r < 0) {
    fail_err(call, r, &x->err);
    free(x);
    closure(NULL, call);
    return;
  }
  ctl_submit(x, call);
}

static void svc_unbind(Qua__V1__Qua_Service *svc, const Qua__V1__UnbindRequest *in,
                       Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_binding_t *b = quad_map_get(&call->c->bindings, in->binding);
  if (b == NULL)
    FAIL(QUA_EHANDLE, "no binding %" PRIu64 " on this connection", in->binding);
  teardown_t td = {0};
  quad_binding_detach(b);
  td.bindings = b;
  teardown_submit(&td, call->c, call);
}

static void svc_credit(Qua__V1__Qua_Service *svc, const Qua__V1__CreditRequest *in,
                       Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_binding_t *b = quad_map_get(&call->c->bindings, in->binding);
  if (b == NULL)
    FAIL(QUA_EHANDLE, "no binding %" PRIu64 " on this connection", in->binding);
  if (b->kind != QUAD_BIND_DRAIN)
    FAIL(QUA_ESTATE, "binding %" PRIu64 " is a callback: it takes no credits", in->binding);
  Qua__V1__Empty out = QUA__V1__EMPTY__INIT;
  closure(&out, call);
  quad_credit(b, in->credits);
}

/* --- Listings ---------------------------------------------------------------------- */

/* List and Describe read libqua's side of a quaject (its state line, which
 * the type's describe hook reads under the control lock; its wires; the
 * code each entry runs) on the worker, in the connection's order, as a
 * control job: the control lock is the worker's to wait for, so the loop
 * never waits behind another client's long control job (a join, a grace
 * period) to answer anyone. Reading under RCU without the lock instead
 * would need every type's describe hook, and the code strings resynthesis
 * rewrites, made safe against concurrent control operations. The loop
 * chooses the page (ids) at submission; the quajects are alive when the
 * job runs (work.c note 3); done fills the reply from what the loop knows
 * then (names, handles, bindings), leaving out quajects destroyed since. */
typedef struct qsnap_impl {
  const char *entry;
  char impl[sizeof((qua_site_t *)0)->impl_buf + 64];
  char *code;      /* an m68k entry disassembled (malloc'ed), or NULL */
  qua_code_t *mc;  /* its synthesised code, holes and parts (malloc'ed), or NULL */
  uint64_t synth_ns;
} qsnap_impl_t;

typedef struct qsnap {
  uint64_t id;
  qua_quaject_t *q;
  char *line; /* the state line and synth= (malloc'ed); NULL for a link */
  int nwires;
  struct { int callout; uint64_t dst_id; const char *entry; } wires[QUA_MAX_CALLOUTS];
  int nimpls;
  qsnap_impl_t *impls; /* Describe only */
} qsnap_t;

typedef struct listing {
  ctl_t x;    /* first: ctl_finish frees the whole */
  bool full;  /* Describe: impls too */
  bool more;  /* List: the page was cut at QUAD_LIST_PAGE */
  size_t n;
  qsnap_t s[];
} listing_t;

/* Worker: which code q's entry (or body) runs, its synthesis time and,
 * when synthesised, the code (for a target=m68k entry, disassembled too). */
static int snap_impl(qsnap_impl_t *im, qua_quaject_t *q, int entry, const char *name) {
  im->entry = name;
  if (entry >= 0 && quad_m68k_is(q))
    return quad_m68k_entry_info(q, entry, im->impl, sizeof im->impl, &im->code, &im->mc) < 0
               ? QUA_ENOMEM
               : 0;
  qua_quaject_entry_info(q, entry, im->impl, sizeof im->impl, &im->synth_ns);
  return qua_quaject_entry_code(q, entry, &im->mc) < 0 ? QUA_ENOMEM : 0;
}

/* q's state line into line[len], and synth= (every type's parameter, not
 * in the type's own line). A link's describe reads the loop's link state,
 * not libqua's (link.c): it runs on the loop, without the control lock. */
static const char *state_line(qua_quaject_t *q, char *line, size_t len) {
  const qua_type_t *t = qua_quaject_type(q);
  if (quad_link_is_type(t))
    t->ops.describe(q, line, len);
  else
    qua_quaject_describe(q, line, len);
  size_t n = strlen(line);
  snprintf(line + n, len - n, "%ssynth=%s", n > 0 ? " " : "",
           qua_quaject_synth(q) == QUA_SYNTH_OFF ? "off" : "stencil");
  return line;
}

/* Worker: fills sn from its quaject (libqua only). 0 or QUA_ENOMEM. */
static int snap_take(qsnap_t *sn, bool full) {
  qua_quaject_t *q = sn->q;
  const qua_type_t *t = qua_quaject_type(q);
  char line[512];
  if (!quad_link_is_type(t) && (sn->line = strdup(state_line(q, line, sizeof line))) == NULL)
    return QUA_ENOMEM; /* a link's line is taken on the loop (quaject_info) */
  for (int k = 0; k < t->ncallouts && k < QUA_MAX_CALLOUTS; k++) {
    int e = 0;
    qua_quaject_t *dst = qua_wired_to(q, k, &e);
    if (dst == NULL)
      continue;
    sn->wires[sn->nwires].callout = k;
    sn->wires[sn->nwires].dst_id = qua_quaject_id(dst);
    sn->wires[sn->nwires].entry = qua_quaject_type(dst)->entries[e].name;
    sn->nwires++;
  }
  if (!full)
    return 0;
  sn->impls = calloc((size_t)t->nentries + 1, sizeof *sn->impls); /* + a body */
  if (sn->impls == NULL)
    return QUA_ENOMEM;
  for (int e = 0; e < t->nentries; e++)
    if (snap_impl(&sn->impls[sn->nimpls++], q, e, t->entries[e].name) < 0)
      return QUA_ENOMEM;
  if (qua_quaject_body(q) != NULL && snap_impl(&sn->impls[sn->nimpls++], q, QUA_ENTRY_BODY,
                                               "(step)") < 0)
    return QUA_ENOMEM; /* a pump's step */
  return 0;
}

static void listing_work(quad_job_t *j) {
  listing_t *l = (listing_t *)j;
  for (size_t i = 0; i < l->n && l->x.status == 0; i++)
    if (snap_take(&l->s[i], l->full) < 0)
      ctl_err(&l->x, QUA_ENOMEM, "out of memory");
}

/* Loop: the listing for call, of the quajects ids[0..n) (alive), or NULL
 * when out of memory. */
static listing_t *listing_new(quad_call_t *call, bool full, size_t n, void (*done)(quad_job_t *)) {
  listing_t *l = calloc(1, sizeof *l + n * sizeof *l->s);
  if (l == NULL)
    return NULL;
  l->x.job.work = listing_work;
  l->x.job.done = done;
  l->x.id = call->id;
  l->x.method = call->method;
  l->full = full;
  return l;
}

/* Loop: answers, after freeing the snapshots, and frees l. */
static void listing_finish(listing_t *l, const ProtobufCMessage *out) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->s[i].line);
    for (int k = 0; k < l->s[i].nimpls; k++)
      free(l->s[i].impls[k].code), free(l->s[i].impls[k].mc);
    free(l->s[i].impls);
  }
  ctl_finish(&l->x, out);
}

/* Loop: fills qi for o as connection c sees it, from its snapshot. */
static int quaject_info(arena_t *a, quad_conn_t *c, quad_obj_t *o, const qsnap_t *sn,
                        Qua__V1__QuajectInfo *qi) {
  const qua_type_t *t = qua_quaject_type(o->q);
  qua__v1__quaject_info__init(qi);
  quad_ref_t *ref = quad_ref_find(c, o);
  qi->handle = ref != NULL ? ref->handle : 0;
  qi->id = o->id;
  qi->type = (char *)t->name;
  qi->name = o->name != NULL ? o->name : (char *)"";
  char line[512];
  qi->state = arena_strdup(a, sn->line != NULL ? sn->line : state_line(o->q, line, sizeof line));
  qi->params = arena_alloc(a, (size_t)t->nparams * sizeof *qi->params);
  if (qi->params == NULL)
    return QUA_ENOMEM;
  for (int k = 0; k < t->nparams; k++)
    qi->params[qi->n_params++] = qua_quaject_param(o->q, k);
  qi->wires = arena_alloc(a, (size_t)sn->nwires * sizeof *qi->wires);
  if (sn->nwires > 0 && qi->wires == NULL)
    return QUA_ENOMEM;
  for (int k = 0; k < sn->nwires; k++) {
    Qua__V1__WireInfo *w = arena_alloc(a, sizeof *w);
    if (w == NULL)
      return QUA_ENOMEM;
    qua__v1__wire_info__init(w);
    const quad_obj_t *d = obj_by_id(sn->wires[k].dst_id);
    w->callout = (char *)t->callouts[sn->wires[k].callout].name;
    w->dst_id = sn->wires[k].dst_id;
    w->dst_name = d != NULL && d->name != NULL ? d->name : (char *)(d == NULL ? "(client)" : "");
    w->entry = (char *)sn->wires[k].entry;
    qi->wires[qi->n_wires++] = w;
  }
  /* Who is bound to it: every handle's bindings, in proportion to them. */
  size_t nb = 0;
  quad_ref_t *r;
  LIST_FOREACH(r, &o->refs, obj_link)
    for (quad_binding_t *b = r->bindings; b != NULL; b = b->next_in_ref)
      nb++;
  qi->bindings = nb > 0 ? arena_alloc(a, nb * sizeof *qi->bindings) : NULL;
  if (nb > 0 && qi->bindings == NULL)
    return QUA_ENOMEM;
  LIST_FOREACH(r, &o->refs, obj_link)
    for (quad_binding_t *b = r->bindings; b != NULL; b = b->next_in_ref) {
      Qua__V1__BindingInfo *bi = arena_alloc(a, sizeof *bi);
      if (bi == NULL)
        return QUA_ENOMEM;
      qua__v1__binding_info__init(bi);
      bi->member = (char *)b->name;
      bi->callout = b->kind == QUAD_BIND_DRAIN;
      bi->conn = r->conn->serial;
      bi->peer = r->conn->peer;
      qi->bindings[qi->n_bindings++] = bi;
    }
  if (sn->impls == NULL)
    return a->failed ? QUA_ENOMEM : 0;
  qi->impls = arena_alloc(a, (size_t)sn->nimpls * sizeof *qi->impls);
  if (qi->impls == NULL)
    return QUA_ENOMEM;
  for (int e = 0; e < sn->nimpls; e++) {
    Qua__V1__EntryImpl *im = arena_alloc(a, sizeof *im);
    if (im == NULL)
      return QUA_ENOMEM;
    qua__v1__entry_impl__init(im);
    im->entry = (char *)sn->impls[e].entry;
    im->impl = arena_strdup(a, sn->impls[e].impl);
    im->synth_ns = sn->impls[e].synth_ns;
    if (sn->impls[e].code != NULL)
      im->code = arena_strdup(a, sn->impls[e].code);
    const qua_code_t *mc = sn->impls[e].mc;
    if (mc != NULL) {
      void *block = arena_alloc(a, quad_code_message_size(mc));
      if (block == NULL)
        return QUA_ENOMEM;
      im->machine_code = quad_code_message(block, mc);
    }
    qi->impls[qi->n_impls++] = im;
  }
  return a->failed ? QUA_ENOMEM : 0;
}

static void list_done(quad_job_t *j) {
  listing_t *l = (listing_t *)j;
  quad_conn_t *c = j->c;
  arena_t a = {0};
  Qua__V1__ListReply out = QUA__V1__LIST_REPLY__INIT;
  out.more = l->more;
  out.quajects = arena_alloc(&a, (l->n ? l->n : 1) * sizeof *out.quajects);
  Qua__V1__QuajectInfo *qis = arena_alloc(&a, (l->n ? l->n : 1) * sizeof *qis);
  /* What fits in --max-frame; `more` when others follow. */
  size_t bytes = QUAD_FRAME_OVERHEAD;
  for (size_t i = 0; !a.failed && l->x.status == 0 && i < l->n; i++) {
    quad_obj_t *o = obj_by_id(l->s[i].id);
    if (o == NULL || o->q != l->s[i].q)
      continue; /* destroyed since the page was chosen */
    Qua__V1__QuajectInfo *qi = &qis[out.n_quajects];
    if (quaject_info(&a, c, o, &l->s[i], qi) < 0)
      break;
    bytes += qua__v1__quaject_info__get_packed_size(qi) + PB_LEN_MAX;
    if (bytes > quad_srv->cfg.max_frame) {
      out.more = true;
      break;
    }
    out.quajects[out.n_quajects++] = qi;
  }
  if (a.failed && l->x.status == 0)
    ctl_err(&l->x, QUA_ENOMEM, "out of memory");
  listing_finish(l, &out.base);
  arena_free(&a);
}

static void svc_list(Qua__V1__Qua_Service *svc, const Qua__V1__ListRequest *in,
                     Qua__V1__ListReply_Closure closure, void *data) {
  quad_call_t *call = data;
  /* One page: ids above after_id that this connection can open or
   * reach, oldest first, at most QUAD_LIST_PAGE of them. */
  size_t n = 0;
  quad_obj_t *o;
  TAILQ_FOREACH(o, &quad_srv->reg.objs, link) { /* oldest first */
    if (n > QUAD_LIST_PAGE)
      break;
    n += o->id > in->after_id && (o->name != NULL || quad_ref_find(call->c, o) != NULL);
  }
  listing_t *l = listing_new(call, false, n > QUAD_LIST_PAGE ? QUAD_LIST_PAGE : n, list_done);
  if (l == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  l->more = n > QUAD_LIST_PAGE;
  TAILQ_FOREACH(o, &quad_srv->reg.objs, link) {
    if (l->n == QUAD_LIST_PAGE)
      break;
    if (o->id > in->after_id && (o->name != NULL || quad_ref_find(call->c, o) != NULL)) {
      l->s[l->n].id = o->id;
      l->s[l->n++].q = o->q;
    }
  }
  ctl_submit(&l->x, call);
}

static void describe_done(quad_job_t *j) {
  listing_t *l = (listing_t *)j;
  arena_t a = {0};
  Qua__V1__QuajectInfo qi;
  Qua__V1__DescribeReply out = QUA__V1__DESCRIBE_REPLY__INIT;
  quad_obj_t *o = obj_by_id(l->s[0].id);
  if (l->x.status == 0 && (o == NULL || o->q != l->s[0].q))
    ctl_err(&l->x, QUA_ENOTFOUND, "quaject #%" PRIu64 " was destroyed", l->s[0].id);
  else if (l->x.status == 0 && quaject_info(&a, j->c, o, &l->s[0], &qi) < 0)
    ctl_err(&l->x, QUA_ENOMEM, "out of memory");
  out.quaject = &qi;
  listing_finish(l, &out.base);
  arena_free(&a);
}

static void svc_describe(Qua__V1__Qua_Service *svc, const Qua__V1__DescribeRequest *in,
                         Qua__V1__DescribeReply_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_obj_t *o;
  if (in->name[0] != '\0') {
    o = obj_by_name(in->name);
    if (o == NULL)
      FAIL(QUA_ENOTFOUND, "no quaject is published as '%.64s'", in->name);
  } else {
    GET_REF(ref, in->handle);
    o = ref->obj;
  }
  listing_t *l = listing_new(call, true, 1, describe_done);
  if (l == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  l->n = 1;
  l->s[0].id = o->id;
  l->s[0].q = o->q;
  ctl_submit(&l->x, call);
}

static void svc_stats(Qua__V1__Qua_Service *svc, const Qua__V1__StatsRequest *in,
                      Qua__V1__StatsReply_Closure closure, void *data) {
  quad_call_t *call = data;
  Qua__V1__StatsReply out = QUA__V1__STATS_REPLY__INIT;
  out.connections = quad_srv->nconns;
  out.quajects = quad_srv->nobjs;
  out.requests = quad_srv->requests;
  out.events_sent = quad_srv->events_sent;
  out.events_dropped = atomic_load_explicit(&quad_srv->events_dropped, memory_order_relaxed);
  out.bytes_in = quad_srv->bytes_in;
  out.bytes_out = quad_srv->bytes_out;
  out.uptime_ms = uv_now(quad_srv->loop) - quad_srv->start_ms;
  out.links = quad_srv->links;
  out.link_items_sent = quad_srv->link_items_sent;
  out.link_items_acked = quad_srv->link_items_acked;
  out.queued_bytes = quad_srv->queued;
  out.queued_peak = quad_srv->queued_peak;
  closure(&out, call);
}

/* --- Queues ------------------------------------------------------------------------ */

/* Close is a control operation of queues, not a callentry, so Invoke
 * cannot reach it. Any handle on the queue may close it (as for Destroy);
 * closing twice is not an error. The "closed" broadcast it makes reaches
 * every drain binding (events.c) and watcher of "closed". */
static void close_work(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  int r = qua_queue_close(x->q);
  if (r < 0)
    ctl_err(x, r, "cannot close queue #%" PRIu64 ": %s", qua_quaject_id(x->q), qua_strerror(r));
}

static void svc_close(Qua__V1__Qua_Service *svc, const Qua__V1__CloseRequest *in,
                      Qua__V1__Empty_Closure closure, void *data) {
  quad_call_t *call = data;
  GET_REF(ref, in->handle);
  quad_obj_t *o = ref->obj;
  DENY_UNLESS_CONTROL(o, "close");
  const qua_type_t *t = qua_quaject_type(o->q);
  if (t != qua_type_find("queue"))
    FAIL(QUA_EINVAL, "%s #%" PRIu64 " is a %s: only a queue can be closed",
         o->name != NULL ? o->name : "quaject", o->id, t->name);
  quad_log(QUAD_LOG_DEBUG, "conn %llu: close queue #%" PRIu64, (unsigned long long)call->c->serial,
           o->id);
  ctl_t *x = ctl_new(call, close_work, ctl_done_saved);
  if (x == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  x->q = o->q;
  ctl_submit(x, call);
}

/* --- Links (link.c has the design note) ------------------------------------------- */

static void link_open_work(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  x->status = quad_link_open_work(x->lo, &x->err);
}

static void link_open_done(quad_job_t *j) {
  ctl_t *x = (ctl_t *)j;
  Qua__V1__LinkOpenReply out = QUA__V1__LINK_OPEN_REPLY__INIT;
  x->status = quad_link_open_finish(x->lo, x->status, j->c,
                                    (const Qua__V1__LinkOpenRequest *)x->in, &out, &x->err);
  ctl_finish(x, x->status < 0 ? NULL : &out.base);
}

/* Opening the site on the target may resynthesise and wait for a grace
 * period: a job (link.c note 9). */
static void svc_link_open(Qua__V1__Qua_Service *svc, const Qua__V1__LinkOpenRequest *in,
                          Qua__V1__LinkOpenReply_Closure closure, void *data) {
  quad_call_t *call = data;
  quad_obj_t *o = obj_by_name(in->remote);
  if (o == NULL)
    FAIL(QUA_ENOTFOUND, "no quaject is published as '%.64s'", in->remote);
  ctl_t *x = ctl_new(call, link_open_work, link_open_done);
  if (x == NULL)
    FAIL(QUA_ENOMEM, "out of memory");
  int r = quad_link_open_prepare(in, o->q, &x->lo, &x->err);
  if (r < 0) {
    fail_err(call, r, &x->err);
    free(x);
    closure(NULL, call);
    return;
  }
  ctl_submit(x, call);
}

static void svc_link_push(Qua__V1__Qua_Service *svc, const Qua__V1__LinkPushRequest *in,
                          Qua__V1__LinkPushReply_Closure closure, void *data) {
  quad_call_t *call = data;
  Qua__V1__LinkPushReply out = QUA__V1__LINK_PUSH_REPLY__INIT;
  int r = quad_link_push(call->c, in, &out, call->msg, sizeof call->msg);
  if (r < 0) {
    call->status = r;
    closure(NULL, call);
    return;
  }
  closure(&out, call);
}

/* --- Dispatch ----------------------------------------------------------------------- */

static Qua__V1__Qua_Service quad_service = QUA__V1__QUA__INIT(svc_);

/* A frame refused before its method runs, counted under its method (or
 * with the invalid ones). */
static void refuse(quad_conn_t *c, const Qua__V1__Frame *f, uint64_t id, int code,
                   const char *msg) {
  quad_metrics_reply(quap_method(f->method) != NULL ? f->method : UINT32_MAX, code);
  quad_conn_respond(c, id, code, msg, NULL);
}

void quad_dispatch(quad_conn_t *c, const Qua__V1__Frame *f) {
  quad_call_t call = {.c = c, .id = f->id, .method = f->method, .body = &f->body};
  char msg[160];
  if (c->tcp && c->state == QUAD_NEW &&
      !(f->kind == QUA__V1__FRAME__KIND__REQUEST && f->method == QUAP_HELLO)) {
    quad_hello_failed(c, "request before Hello");
    refuse(c, f, f->id, QUA_EAUTH, "say Hello with the token first");
    c->close_after = true;
    return;
  }
  if (f->kind != QUA__V1__FRAME__KIND__REQUEST) {
    refuse(c, f, f->id, QUA_EPROTO, "a client sends only requests");
    return;
  }
  if (f->id == 0) {
    refuse(c, f, 0, QUA_EPROTO, "request id 0: ids are non-zero");
    return;
  }
  const ProtobufCMethodDescriptor *m = quap_method(f->method);
  if (m == NULL) {
    snprintf(msg, sizeof msg, "no method %" PRIu32 " (the service has %u)", f->method,
             qua__v1__qua__descriptor.n_methods);
    refuse(c, f, f->id, QUA_ENOMETHOD, msg);
    return;
  }
  /* An Invoke, the hot path, is unpacked into an arena on the stack (its
   * handle, entry and arguments fit); only an Invoke can go to a job that
   * keeps its request (sites_wanted), which copies it to the heap. */
  quap_stack_arena_t sa;
  if (f->method == QUAP_INVOKE)
    call.alloc = quap_stack_arena_init(&sa);
  ProtobufCMessage *in = NULL;
  if (quap_request_unpack_in(f, call.alloc, &in) < 0) {
    snprintf(msg, sizeof msg, "the body is not a %s", m->input->name);
    refuse(c, f, f->id, QUA_EPROTO, msg);
    return;
  }
  call.in = in;
  quad_service.base.invoke(&quad_service.base, f->method, in, reply, &call);
  if (!call.replied && !call.deferred) {
    fail(&call, QUA_ESTATE, "%s gave no reply", m->name);
    reply(NULL, &call);
  }
  quap_message_free(call.in, call.alloc);
}
