/* quaclient.h -- libquaclient: the C API of quad's protocol (service qua.v1.Qua).
 *
 * This is the one public header of libquaclient and reads as its manual.
 *
 * Connecting. quac_connect_unix() and quac_connect_tcp() open a connection
 * and say Hello (protocol version 1; on TCP the token, which the daemon
 * requires there). Every function returns 0 (or a documented positive value)
 * on success and a negative code from QUA_STATUS_MAP (qua-status.h) on failure; the
 * daemon's own message for the last failure is quac_last_error(conn), and
 * quac_strerror()/quac_err_name() give the table's words. A connection that
 * fails to open has no conn: quac_last_error(NULL) then gives this thread's
 * last connect failure. Codes seen only on the client side: QUA_ECONN (the
 * daemon is unreachable or went away; the connection is dead after it),
 * QUA_ETIMEDOUT (no response within the timeout, quac_set_timeout()).
 *
 * Handles. Quajects are named by per-connection handles (capabilities):
 * quac_create() returns one; quac_open() gives one for a published name.
 * A connection's unpublished quajects are destroyed when it closes; a name
 * given to quac_create() or quac_publish() keeps the quaject alive until
 * quac_destroy().
 *
 * Calls. Every method has a blocking call: it sends the request, then reads
 * frames until its response arrives, queueing the events that arrive
 * meanwhile. Events (a bound callback fired, or an item arrived on a bound
 * callout) are given to the function set with quac_on_event() from
 * quac_poll(), never from inside another call. For throughput, invokes can
 * be pipelined: quac_invoke_send() queues requests, quac_invoke_recv()
 * collects their responses in arrival order.
 *
 * Results that carry lists (types, quajects) are allocated by the library in
 * one block and freed with quac_free().
 *
 * Threads. A connection is used by one thread at a time; different
 * connections are independent and may be used from different threads.
 */
#ifndef QUACLIENT_H
#define QUACLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qua-status.h" /* the status table, QUA_STATUS_MAP; installed beside this header */

#define QUAC_API __attribute__((visibility("default")))

/* The protocol version this library speaks. */
#define QUAC_PROTOCOL_VERSION 1u
/* Callback names, type names and entry names are at most this long. */
#define QUAC_NAME_MAX 63
/* An invoke reports at most this many fired callbacks (nfired counts all). */
#define QUAC_MAX_FIRED 8
/* Arguments to one callentry. */
#define QUAC_MAX_ARGS 2

typedef struct quac_conn quac_conn_t;

/* --- Connections --------------------------------------------------------- */

/* What the daemon said in its Hello reply. */
typedef struct quac_server_info {
  uint32_t version;       /* protocol version */
  char server[64];        /* "quad 0.1.0" */
  uint64_t max_frame;     /* bytes per frame */
  uint32_t max_inflight;  /* requests in flight per connection */
  uint32_t max_quajects;  /* quajects per connection */
} quac_server_info_t;

/* Connects to the daemon's unix socket at `path` and says Hello; `client`
 * is free text for the daemon's log (may be NULL). On success *out is the
 * connection; on failure it is NULL and the code is returned: QUA_ECONN
 * when nothing listens there, or the daemon's refusal (QUA_EVERSION...). */
QUAC_API int quac_connect_unix(const char *path, const char *client, quac_conn_t **out);

/* Connects to host:port over TCP (host a numeric address or a name) and
 * says Hello with `token`; the daemon refuses a missing or wrong token with
 * QUA_EAUTH and closes the connection. */
QUAC_API int quac_connect_tcp(const char *host, unsigned port, const char *token,
                              const char *client, quac_conn_t **out);

/* Closes the connection and frees it (NULL is ignored). The daemon then
 * unbinds its callbacks and destroys its unpublished quajects. */
QUAC_API void quac_close(quac_conn_t *c);

/* The daemon's message (or the library's) for the last failed call on c,
 * or for this thread's last failed connect when c is NULL; "" when none. */
QUAC_API const char *quac_last_error(const quac_conn_t *c);

/* The Hello reply. */
QUAC_API const quac_server_info_t *quac_server_info(const quac_conn_t *c);

/* Timeout of each blocking call in milliseconds (default 30000; negative:
 * wait forever). A call that timed out leaves its request behind, and its
 * late response is dropped when it comes; 256 such calls whose responses
 * have not come are remembered, and a timeout past that ends the
 * connection (QUA_ETIMEDOUT, then every call fails). */
QUAC_API void quac_set_timeout(quac_conn_t *c, int timeout_ms);

/* The socket, for programs that wait on many connections with poll(2):
 * readable means quac_poll() or quac_invoke_recv() has something to do.
 * Calls read ahead, so check quac_pending() before waiting on the socket. */
QUAC_API int quac_fd(const quac_conn_t *c);

/* Responses to pipelined invokes and events already read and queued: when
 * not 0, quac_invoke_recv() or quac_poll() has work without waiting. */
QUAC_API size_t quac_pending(const quac_conn_t *c);

/* The message and the name ("ENOTFOUND") of a status, from qua-status.h's
 * table: the same words as libqua's qua_strerror()/qua_err_name(), without
 * linking libqua. */
QUAC_API const char *quac_strerror(int err);
QUAC_API const char *quac_err_name(int err);

/* Frees a result the library allocated (NULL is ignored). */
QUAC_API void quac_free(void *result);

/* --- Types --------------------------------------------------------------- */

typedef struct quac_param_info {
  const char *name;
  uint64_t def, min, max;
  bool pow2;
  const char *help;
  bool text;     /* text of min..max characters; a quaject's value of it reads 0 */
  bool required; /* create refuses to go without it */
} quac_param_info_t;

/* A callentry, callout or callback of a type. */
typedef struct quac_member_info {
  const char *name;
  uint32_t arity;  /* entries and callouts */
  bool returns;    /* entries and callouts: they give a result word */
  bool remote;     /* entries: callable with plain words through invoke */
  bool broadcast;  /* callbacks: to every listener rather than the invoker */
  const char *help;
} quac_member_info_t;

typedef struct quac_type_info {
  const char *name;
  const char *summary;
  size_t nparams, nentries, ncallouts, ncallbacks;
  const quac_param_info_t *params;
  const quac_member_info_t *entries;
  const quac_member_info_t *callouts;
  const quac_member_info_t *callbacks;
} quac_type_info_t;

typedef struct quac_type_list {
  size_t ntypes;
  const quac_type_info_t *types;
} quac_type_list_t;

/* The daemon's quaject types. *out is freed with quac_free(). */
QUAC_API int quac_list_types(quac_conn_t *c, quac_type_list_t **out);

/* The type named `name` in a list, or NULL. */
QUAC_API const quac_type_info_t *quac_type_find(const quac_type_list_t *l, const char *name);

/* --- Quajects ------------------------------------------------------------ */

/* Creates a quaject of `type` from "key=value" parameters; when `name` is
 * not NULL it is also published under that name (and outlives the
 * connection). *handle (and *id, the daemon-wide id, when not NULL) on
 * success. */
QUAC_API int quac_create(quac_conn_t *c, const char *type, const char *const *params,
                         size_t nparams, const char *name, uint64_t *handle, uint64_t *id);

/* Destroys a quaject (and drops its published name). QUA_EBUSY while
 * others are wired to it unless `force`. */
QUAC_API int quac_destroy(quac_conn_t *c, uint64_t handle, bool force);

/* Closes a queue (the daemon's qua_queue_close): puts from then on fail
 * with QUA_ECLOSED, gets take what is left and then fail with QUA_ECLOSED,
 * and every client draining it (quac_bind_callout "get") receives the
 * items left and then one event whose callback is "closed". Closing a
 * closed queue returns 0; a quaject of another type is refused with
 * QUA_EINVAL. (quac_close() closes the connection, not a queue.) */
QUAC_API int quac_close_queue(quac_conn_t *c, uint64_t handle);

QUAC_API int quac_publish(quac_conn_t *c, uint64_t handle, const char *name);
QUAC_API int quac_unpublish(quac_conn_t *c, const char *name);

/* A handle on a published quaject. */
typedef struct quac_opened {
  uint64_t handle;
  uint64_t id;
  char type[QUAC_NAME_MAX + 1];
} quac_opened_t;

/* Opens a published name: QUA_ENOTFOUND when nothing has that name. */
QUAC_API int quac_open(quac_conn_t *c, const char *name, quac_opened_t *out);

/* Wires src's callout to dst's callentry; checked by the daemon (names,
 * arity, not already wired), nothing changes on error. */
QUAC_API int quac_wire(quac_conn_t *c, uint64_t src, const char *callout, uint64_t dst,
                       const char *entry);
QUAC_API int quac_unwire(quac_conn_t *c, uint64_t src, const char *callout);

/* --- Invoking ------------------------------------------------------------ */

typedef struct quac_fired {
  char callback[QUAC_NAME_MAX + 1];
  uint64_t arg;
} quac_fired_t;

/* The outcome of one callentry call. */
typedef struct quac_result {
  int status;        /* the callentry's: 0, QUA_DIVERTED (1) or negative */
  bool has_result;
  uint64_t result;
  size_t nfired;     /* invoker callbacks that fired (first QUAC_MAX_FIRED kept) */
  quac_fired_t fired[QUAC_MAX_FIRED];
} quac_result_t;

/* Calls `entry` of a quaject with nargs (<= QUAC_MAX_ARGS) word arguments.
 * Returns a negative code when the request failed or the callentry returned
 * an error (then res->status says which), else res->status (0, or
 * QUA_DIVERTED when the call ended in a callback: see res->fired, e.g. a
 * put into a full queue fired "full"). `res` may be NULL. */
QUAC_API int quac_invoke(quac_conn_t *c, uint64_t handle, const char *entry,
                         const uint64_t *args, size_t nargs, quac_result_t *res);

/* One call of a batch. */
typedef struct quac_call {
  uint64_t handle;
  const char *entry;
  size_t nargs;
  uint64_t args[QUAC_MAX_ARGS];
} quac_call_t;

/* Runs n calls in one request, in order; results[i] for calls[i]. Returns
 * 0 when the request succeeded (each call's outcome is in its result), or
 * a negative code. */
QUAC_API int quac_invoke_batch(quac_conn_t *c, const quac_call_t *calls, size_t n,
                               quac_result_t *results);

/* Pipelining: queues an Invoke without waiting; *id (may be NULL) is its
 * request id. Requests are written when the buffer fills, on quac_flush()
 * and on quac_invoke_recv(). The daemon bounds requests in flight
 * (quac_server_info()->max_inflight). */
QUAC_API int quac_invoke_send(quac_conn_t *c, uint64_t handle, const char *entry,
                              const uint64_t *args, size_t nargs, uint64_t *id);
QUAC_API int quac_flush(quac_conn_t *c);

/* Collects the next response to a pipelined invoke, waiting at most
 * timeout_ms (0: only what has arrived; negative: forever). Returns 0 with
 * *id and *res filled (res->status holds the callentry's outcome, or the
 * daemon's refusal of the request), QUA_ETIMEDOUT when none came in time,
 * QUA_ESTATE when no pipelined invoke is outstanding, or another negative
 * code when the connection failed. Events arriving meanwhile are queued. */
QUAC_API int quac_invoke_recv(quac_conn_t *c, int timeout_ms, uint64_t *id, quac_result_t *res);

/* --- Events -------------------------------------------------------------- */

/* A bound callback fired, or an item arrived on a bound callout. */
typedef struct quac_event {
  uint64_t binding;   /* what quac_bind_callback()/quac_bind_callout() gave */
  uint64_t handle;    /* the quaject, as this connection names it */
  const char *callback; /* the callback's name, or the callout's for items */
  uint64_t arg;       /* the callback's argument, or the item */
  uint64_t seq;       /* per binding, from 1 */
  uint64_t dropped;   /* this binding's events lost since the last one */
} quac_event_t;

/* Called from quac_poll() for each event; `ev` is valid during the call.
 * The function may make blocking calls on c (say, quac_credit()). */
typedef void (*quac_event_fn)(void *ctx, quac_conn_t *c, const quac_event_t *ev);

/* Events read while the program makes other calls wait in a queue for
 * quac_poll(): at most n of them (default 65536; 0 counts as 1). Events
 * arriving while it is full are discarded, and counted. */
QUAC_API void quac_set_event_limit(quac_conn_t *c, size_t n);
/* How many events were discarded because the queue was full. */
QUAC_API uint64_t quac_events_discarded(const quac_conn_t *c);

/* Sets the event function (NULL: events are counted and discarded). */
QUAC_API void quac_on_event(quac_conn_t *c, quac_event_fn fn, void *ctx);

/* Dispatches queued events, then waits up to timeout_ms (0: no wait;
 * negative: forever) for more and dispatches them too, returning as soon as
 * at least one was dispatched. Returns how many were dispatched (0 on
 * timeout) or a negative code (QUA_ECONN when the daemon went away). */
QUAC_API int quac_poll(quac_conn_t *c, int timeout_ms);

/* Binds one of a quaject's callbacks to this connection: each firing
 * becomes an event. *binding names it in events and for quac_unbind(). */
QUAC_API int quac_bind_callback(quac_conn_t *c, uint64_t handle, const char *callback,
                                uint64_t *binding);

/* Binds a callout to this connection: the client becomes its target and
 * items arrive as events, at most `credits` before the client grants more
 * with quac_credit(). For a queue, callout "get" takes its consumer side
 * (what `qua drain` does): a client that grants credits slowly backs the
 * queue up to its producers' "full". When the queue is closed
 * (quac_close_queue) and its last item has been delivered, one more event
 * comes, with callback "closed" and arg 0, whether or not credits remain;
 * none follows it. */
QUAC_API int quac_bind_callout(quac_conn_t *c, uint64_t handle, const char *callout,
                               uint64_t credits, uint64_t *binding);
QUAC_API int quac_unbind(quac_conn_t *c, uint64_t binding);
QUAC_API int quac_credit(quac_conn_t *c, uint64_t binding, uint64_t credits);

/* --- Listing ------------------------------------------------------------- */

typedef struct quac_wire_info {
  const char *callout;
  uint64_t dst_id;
  const char *dst_name;  /* "" when unpublished */
  const char *entry;
} quac_wire_info_t;

/* Synthesised machine code (quac_describe): the bytes a callentry runs, the
 * templates they were copied from, and every hole patched in them. */
typedef struct quac_code_part {
  const char *entry;     /* "q.put": the quaject's published name (or "#ID") and callentry */
  const char *variant;   /* the template variant ("spsc") */
  uint32_t offset;       /* of its first instruction in bytes */
} quac_code_part_t;

typedef struct quac_code_hole {
  const char *name;      /* "mask"; "(text)" or "(data)" for the code's own parts */
  uint32_t offset;       /* of the patched field in bytes */
  uint32_t size;         /* the field's width in bytes */
  uint64_t value;        /* the hole's value: a word, or an address called or read */
  bool pcrel;            /* patched PC-relative */
  const char *target;    /* a call or jump into another part: its entry ("q.put"); "" else */
} quac_code_hole_t;

typedef struct quac_code {
  uint32_t machine;      /* ELF e_machine: 62 x86-64 (EM_X86_64), 4 m68k (EM_68K) */
  uint64_t addr;         /* run address of bytes[0] */
  const uint8_t *bytes;
  size_t size;
  uint32_t entry;        /* the callentry's first instruction, offset into bytes */
  uint32_t text_end;     /* instructions before it, constant data after */
  size_t nparts, nholes;
  const quac_code_part_t *parts;  /* the callentry's own first */
  const quac_code_hole_t *holes;
} quac_code_t;

typedef struct quac_impl_info {
  const char *entry;     /* a callentry, or "(step)" for a pump's step */
  const char *impl;      /* "generic spsc", "stencil spsc", "chain stencil tee+pass 1w+spsc" */
  uint64_t synth_ns;     /* how long its latest synthesis took; 0 for generic code */
  const char *code;      /* target=m68k, quac_describe: the 68k code disassembled, one
                            "ADDRESS  INSTRUCTION" a line (an instruction holding a hole
                            annotated "  ; hole NAME=VALUE"); "" otherwise */
  const quac_code_t *machine_code; /* quac_describe: the code, when synthesised (host
                            stencil or m68k); NULL for generic code and in quac_list */
} quac_impl_info_t;

/* A connection's binding on a quaject: a callback bound, or a callout drained. */
typedef struct quac_binding_info {
  const char *member;  /* the callback's or the callout's name */
  bool callout;        /* a drained callout, else a callback */
  uint64_t conn;       /* the connection's number in quad's log */
  const char *peer;    /* "unix pid=P uid=U gid=G" or "tcp HOST:PORT" */
} quac_binding_info_t;

typedef struct quac_quaject_info {
  uint64_t handle;  /* 0 when this connection has no handle for it */
  uint64_t id;
  const char *type;
  const char *name; /* "" when unpublished */
  const char *state;
  size_t nwires, nimpls, nparams;
  const quac_wire_info_t *wires;
  const quac_impl_info_t *impls;
  const uint64_t *params;  /* in the type's parameter order */
  size_t nbindings;        /* every connection's bindings on it */
  const quac_binding_info_t *bindings;
} quac_quaject_info_t;

typedef struct quac_quaject_list {
  size_t nquajects;
  const quac_quaject_info_t *quajects;
} quac_quaject_list_t;

/* Every quaject this connection may see (all of List's pages), in
 * ascending id order. *out is freed with quac_free(). */
QUAC_API int quac_list(quac_conn_t *c, quac_quaject_list_t **out);

/* One quaject, by handle (name NULL) or by published name (handle 0).
 * *out is freed with quac_free(). */
QUAC_API int quac_describe(quac_conn_t *c, uint64_t handle, const char *name,
                           quac_quaject_info_t **out);

typedef struct quac_stats {
  uint64_t connections, quajects, requests;
  uint64_t events_sent, events_dropped;
  uint64_t bytes_in, bytes_out;
  uint64_t uptime_ms;
  uint64_t links, link_items_sent, link_items_acked; /* the daemon's link quajects */
} quac_stats_t;

QUAC_API int quac_stats(quac_conn_t *c, quac_stats_t *out);

#endif /* QUACLIENT_H */
