/* quad-internal.h -- quad's private declarations: server, connections, objects, bindings.
 *
 * Threads: everything here belongs to the loop thread, except the fields
 * marked "any thread" (the event ring and the counters that callback
 * handlers touch from pumps' and clocks' threads), and what a control job's
 * worker fills in while the loop leaves it alone (work.c note 3: a pending
 * binding's watch, sites and proxy).
 */
#ifndef QUAD_INTERNAL_H
#define QUAD_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <uv.h>

#include "frame.h"
#include "qua-lfq.h"
#include "qua-impl.h"

#ifndef QUAD_VERSION
#define QUAD_VERSION "0.0.0"
#endif

/* --- Configuration (quad.c) --------------------------------------------- */

enum { QUAD_LOG_ERROR, QUAD_LOG_WARN, QUAD_LOG_INFO, QUAD_LOG_DEBUG };

#define QUAD_TOKEN_MAX 256

typedef struct quad_config {
  char *socket_path;        /* owned */
  bool socket_default;      /* the default path: create its folder */
  char *listen;             /* HOST:PORT or NULL */
  char *metrics_listen;     /* IP:PORT of the Prometheus endpoint, or NULL */
  char *state_dir;          /* --state-dir, or NULL (state.c) */
  char *token_file;
  char token[QUAD_TOKEN_MAX];
  size_t token_len;
  size_t max_frame;
  unsigned max_quajects;
  unsigned max_quajects_total; /* daemon-wide (--max-quajects) */
  unsigned max_threads;        /* active quajects (pumps, clocks), daemon-wide */
  int thread_nice;             /* clocks' threads' nice increment (qua_set_thread_nice) */
  unsigned max_inflight;
  size_t max_conn_queued; /* bytes of replies and events waiting to be written, per connection */
  size_t max_queued;      /* the same, all connections together */
  unsigned max_events;
  unsigned max_links; /* links from other quads served (link.c) */
  unsigned hello_timeout_ms; /* TCP: Hello must come within it */
  /* Unix peers allowed besides root (--allow-uid, --allow-group); with
   * neither given, the members of the socket's group. */
#define QUAD_ALLOW_MAX 32
  uint32_t allow_uids[QUAD_ALLOW_MAX], allow_gids[QUAD_ALLOW_MAX];
  unsigned n_allow_uids, n_allow_gids;
  int log_level;
} quad_config_t;

void quad_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern int quad_log_level;
/* Reads a token file (regular, not accessible to others, 1..QUAD_TOKEN_MAX-1
 * bytes, trailing white space dropped) into token (QUAD_TOKEN_MAX bytes).
 * 0, or -1 with why filled. */
int quad_read_token(const char *path, char *token, size_t *len, char *why, size_t whylen);
/* Splits "HOST:PORT" (IPv6 as "[ADDR]:PORT"; port 0..65535). 0 or -1. */
int quad_parse_hostport(const char *spec, char *host, size_t hostlen, unsigned *port);

/* --- A small map of uint64 keys (map.c) -------------------------------- */

typedef struct quad_map {
  uint64_t *keys; /* 0: empty slot */
  void **vals;
  size_t cap, len;
} quad_map_t;

void quad_map_init(quad_map_t *m);
void quad_map_fini(quad_map_t *m);
void *quad_map_get(const quad_map_t *m, uint64_t key);
/* Adds key (non-zero, not present). 0 or QUA_ENOMEM. */
int quad_map_put(quad_map_t *m, uint64_t key, void *val);
void *quad_map_del(quad_map_t *m, uint64_t key);
/* Iteration: for (size_t i = 0; i < m->cap; i++) if (m->keys && m->keys[i]) ... */

/* --- Objects, handles, bindings (registry.c, dispatch.c, events.c) ------ */

typedef struct quad_conn quad_conn_t;
typedef struct quad_obj quad_obj_t;
typedef struct quad_ref quad_ref_t;
typedef struct quad_binding quad_binding_t;

/* A quaject the daemon runs. */
struct quad_obj {
  qua_quaject_t *q;
  uint64_t id;
  char *name;          /* published name, or NULL */
  char *params;        /* the create parameters, packed (quad_state_params), for --state-dir */
  quad_conn_t *owner;  /* the creating connection while it lives, or NULL */
  int64_t ident;       /* the creator's identity (quad_conn.ident) */
  bool active;         /* runs a thread of its own (ops.start): counts in nthreads */
  bool dying;          /* a Destroy is checking its wires in (dispatch.c, "Destroy") */
  LIST_HEAD(, quad_ref) refs;      /* every connection's handle on it */
  TAILQ_ENTRY(quad_obj) link;      /* in the registry's objects, oldest first */
  LIST_ENTRY(quad_obj) owner_link; /* in its owner's `owns` */
  quad_obj_t *name_next;           /* registry: the next object whose name hashes alike */
  quad_obj_t *gone;                /* a teardown's chain (dispatch.c) */
};

/* The objects (registry.h has the contracts). */
typedef struct quad_reg {
  TAILQ_HEAD(quad_objs, quad_obj) objs; /* oldest first */
  quad_map_t by_id;                     /* quaject id -> quad_obj_t */
  quad_map_t by_name; /* hash of a name -> the first quad_obj_t of that hash (name_next) */
} quad_reg_t;

/* A connection's handle on an object: a capability. */
struct quad_ref {
  uint64_t handle;
  quad_conn_t *conn;
  quad_obj_t *obj;
  qua_site_t *sites[QUA_MAX_ENTRIES]; /* for Invoke, opened on first use */
  quad_binding_t *bindings;           /* this handle's bindings */
  LIST_ENTRY(quad_ref) obj_link;      /* in its object's refs */
  quad_ref_t *gone;                   /* a teardown's chain (dispatch.c) */
};

enum { QUAD_BIND_CALLBACK, QUAD_BIND_DRAIN };

/* A callback or a callout bound to a connection. */
struct quad_binding {
  uint64_t id;
  int kind;
  quad_conn_t *conn;
  quad_ref_t *ref;
  const char *name;         /* callback or callout name (the type table's string) */
  qua_watch_t *watch;       /* CALLBACK */
  qua_site_t *get_site;     /* DRAIN: the consumer site, with notempty and closed handlers */
  qua_site_t *count_site;   /* DRAIN: its queue's count (a closed queue's end), or NULL */
  _Atomic bool closed_seen; /* any thread: DRAIN: the queue broadcast "closed" */
  _Atomic bool may_hold;    /* any thread: DRAIN: no get has found the queue empty since its
                               last notempty (note 8 of events.c) */
  bool closed_sent;         /* DRAIN: the "closed" event went out; nothing follows it */
  qua_quaject_t *proxy;     /* DRAIN of a non-queue callout: the private queue it feeds */
  qua_quaject_t *q;         /* the bound quaject */
  bool wants_proxy;         /* DRAIN: of a callout, through a proxy queue */
  bool pending;             /* its Bind is on the worker: no events, not a drain yet */
  uint64_t credits;         /* DRAIN: items the client will still take */
  uint64_t seq;             /* events delivered */
  _Atomic uint64_t dropped; /* any thread: events lost to a full ring since the last one */
  quad_binding_t *next_in_ref;
  LIST_ENTRY(quad_binding) drain_link; /* in its connection's drains */
};

/* The per-connection event ring (any thread puts, the loop takes): a
 * record pool indexed through two lfqs, `free` (indices to fill) and
 * `ready` (filled, in order). Exactly `n` records exist, so the ring never
 * holds more than n events and never allocates after creation. */
typedef struct quad_evrec {
  uint64_t binding;
  uint64_t arg;
} quad_evrec_t;

typedef struct quad_ring {
  qua_lfq_t free;  /* get_mc by handlers, put_sp by the loop */
  qua_lfq_t ready; /* put_mp by handlers, get_sc by the loop */
  quad_evrec_t *rec;
  uint32_t n;
} quad_ring_t;

/* --- Connections (session.c) ------------------------------------------ */

enum quad_state { QUAD_NEW, QUAD_READY, QUAD_CLOSING, QUAD_CLOSED };

#define QUAD_RBUF 65536
#define QUAD_FIRED_MAX 16
/* Calls in one InvokeBatch, past which it is refused (ELIMIT) unrun. */
#define QUAD_BATCH_MAX 1024
/* Bytes a response frame takes besides its body (kind, id, status, the
 * body's tag and length), rounded up. */
#define QUAD_FRAME_OVERHEAD 64
/* Room for a reply and for an error made before each request runs
 * (session.c note 8). */
#define QUAD_REPLY_ROOM 1024
#define QUAD_ERROR_ROOM 256
/* Quajects in one List reply at most (it is paged: ListRequest.after_id). */
#define QUAD_LIST_PAGE 4096
/* Bytes waiting to be written, past which the loop stops moving events
 * into the output (they wait in the ring), below --max-conn-queued. */
#define QUAD_WRITE_HIGH (256u * 1024u)
/* Past --max-queued, a connection with fewer bytes than this waiting (or
 * than an equal share, if less) may still add a reply (session.c note 7). */
#define QUAD_QUEUED_RESERVE (64u * 1024u)

struct quad_conn {
  union {
    uv_handle_t h;
    uv_stream_t s;
    uv_pipe_t pipe;
    uv_tcp_t tcp;
  } u;
  uint64_t serial;
  bool tcp;
  enum quad_state state;
  char peer[96];
  char host[64];               /* TCP: the peer's address, the key of Hello rate limits */
  int64_t ident;               /* who it is: the peer's uid on the unix socket,
                                  QUAD_IDENT_TOKEN on TCP, QUAD_IDENT_NONE unknown */
  LIST_ENTRY(quad_conn) link;  /* in the server's conns */

  quap_decoder_t dec;
  uint8_t *rbuf;
  size_t rbuf_off, rbuf_len;   /* unprocessed bytes, kept while paused */
  bool reading, eof, close_after;
  uv_timer_t close_timer;
  int closing; /* handles whose close callback is still due */
  uv_shutdown_t shutdown_req;

  quap_buf_t out;              /* frames not yet handed to uv_write */
  unsigned out_responses;      /* responses among them */
  size_t write_bytes;          /* handed to uv_write, not yet written */
  unsigned out_held;           /* while > 0, `out` waits (a --state-dir write, state.c) */
  unsigned inflight;           /* requests read whose responses are not yet written */

  quad_map_t handles;          /* handle -> quad_ref_t */
  uint64_t next_handle;
  quad_map_t bindings;         /* binding id -> quad_binding_t */
  uint64_t next_binding;
  unsigned owned;              /* objects created and owned, creates in flight included */
  LIST_HEAD(, quad_obj) owns;  /* the objects it owns */
  LIST_HEAD(, quad_binding) drains;

  quad_ring_t *ring;           /* created by the first Bind */
  _Atomic bool ev_pending;     /* any thread: the ring or a drain has news */
  _Atomic bool ev_dropped;     /* any thread: a binding dropped events (events.c note 2) */

  /* Control jobs (work.c): requests of this connection on a worker (its
   * decoding waits while busy), holds that keep it allocated, and a close
   * that waits for its request job. */
  unsigned busy;
  unsigned holds;
  bool freed;          /* the socket closed while held: free at the last unhold */
  bool close_deferred; /* quad_conn_close came while busy: closes on resume */
  char close_why[96];

  /* Invoker callbacks recorded during one Invoke (loop thread only). */
  struct { int cb; uint64_t arg; } fired[QUAD_FIRED_MAX];
  int nfired;
};

/* --- Control work off the loop (work.c) -------------------------------- */

typedef struct quad_job quad_job_t;
struct quad_job {
  uv_work_t req;
  void (*work)(quad_job_t *j); /* a worker thread: libqua calls and j's own memory only */
  void (*done)(quad_job_t *j); /* the loop, after work: records, replies, frees j */
  quad_conn_t *c;              /* held while the job lives, or NULL */
  bool request;                /* the job answers one of c's requests: c is busy meanwhile */
  int lane;                    /* QUAD_LANE_* (work.c note 2) */
  quad_job_t *next;
};

/* Job lanes: each runs its jobs one at a time in submission order; lanes
 * run side by side. */
enum { QUAD_LANE_CONTROL, QUAD_LANE_DISK, QUAD_LANES };

/* Queues j behind every job submitted before it (work.c note 2). With a
 * connection, holds it; a request job also makes it busy until done. */
void quad_job_submit(quad_job_t *j, quad_conn_t *c, bool request);
/* The same in another lane (QUAD_LANE_DISK: --state-dir's writes). */
void quad_job_submit_to(quad_job_t *j, quad_conn_t *c, bool request, int lane);
/* True when no job is queued or running. */
bool quad_jobs_idle(void);

/* --- The server (quad.c) --------------------------------------------- */

typedef struct quad_server {
  uv_loop_t *loop;
  quad_config_t cfg;
  uv_pipe_t unix_listener;
  uv_tcp_t tcp_listener;
  bool have_unix, have_tcp, unix_bound;
  bool socket_activated; /* the unix socket came from systemd: not ours to remove */
  uv_async_t stop; /* the signal thread: a stop signal came (signals.c) */
  uv_async_t wake; /* any thread: uv_async_send after putting an event */
  uv_timer_t deadline;
  bool stopping;
  uint64_t start_ms;
  uint64_t next_serial;
  LIST_HEAD(, quad_conn) conns; /* open connections (NEW and READY) */
  unsigned nalive;      /* connections whose socket is not yet closed, closing ones included */
  quad_reg_t reg;        /* the objects (registry.h) */
  unsigned nobjs;        /* objects, and creates whose job has not finished */
  unsigned nthreads; /* active objects */
  /* Statistics. */
  unsigned nconns;
  uint64_t requests, events_sent, bytes_in, bytes_out;
  _Atomic uint64_t events_dropped; /* any thread */
  uint64_t links, link_items_sent, link_items_acked;
  /* Output bounds (session.c, note 7). */
  size_t queued;       /* bytes handed to uv_write and not yet written, all connections */
  size_t queued_peak;  /* the most `queued` has been */
  bool held_by_total;  /* a connection was held back by --max-queued */
} quad_server_t;

extern quad_server_t *quad_srv;

/* quad.c: the options' defaults, as quad --help gives them (what
 * parse_options starts from; programs that embed the daemon's code, such
 * as the dispatch fuzz harness, start from them too). */
void quad_config_defaults(quad_config_t *cfg);

/* metrics.c: the Prometheus endpoint (--metrics-listen). */
int quad_metrics_listen(const char *spec); /* 0, or an exit status after a message */
void quad_metrics_close(void);
/* Counts a response of method (any value; invalid ones together) and status. */
void quad_metrics_reply(uint32_t method, int status);

/* signals.c: SIGTERM and SIGINT, taken by a thread of their own (its
 * note). At QUAD_EXIT_DEADLINE_MS after the signal the loop closes every
 * socket, written or not; at QUAD_EXIT_HARD_MS the signal thread ends the
 * process with status QUAD_EXIT_FORCED whatever the loop is doing. */
#define QUAD_EXIT_DEADLINE_MS 2500
#define QUAD_EXIT_HARD_MS 3500
#define QUAD_EXIT_FORCED 3
/* Blocks the stop signals in the calling thread and the threads it makes
 * from then on: called first in main. */
void quad_signals_block(void);
/* Starts the thread that takes the stop signals and wakes the loop
 * through `stop`. 0, or -1 after a message. */
int quad_signals_start(uv_async_t *stop);
/* The first stop signal (0 when none came yet), and the ms since it. */
int quad_signals_received(uint64_t *elapsed_ms);
/* The loop is about to close `stop`: no more uv_async_send on it. */
void quad_signals_detach(void);
/* Everything is done: the thread ends without acting. */
void quad_signals_stop(void);

/* systemd.c: notifications, socket activation, journald priorities. */
void quad_sd_init(void);
bool quad_sd_journal(void);
/* The listening unix socket systemd passed (its path into path), -1 when
 * none was passed, -2 after a message when what was passed is unusable. */
int quad_sd_listen_fd(char *path, size_t len);
void quad_sd_ready(uv_loop_t *loop);
void quad_sd_stopping(void);
void quad_sd_finish(void);

/* session.c */
void quad_on_unix_connection(uv_stream_t *server, int status);
void quad_on_tcp_connection(uv_stream_t *server, int status);
/* Closes a connection: releases its handles and bindings now, writes what
 * is queued, then closes the socket. `why` goes to the log. */
void quad_conn_close(quad_conn_t *c, const char *why);
/* Hands the output buffer to the socket. */
void quad_conn_flush(quad_conn_t *c);
/* Identities besides uids (quad_conn.ident): the token's holder (TCP),
 * and a peer whose credentials could not be read. */
#define QUAD_IDENT_TOKEN (-1)
#define QUAD_IDENT_NONE (-2)

/* Whether a unix peer (uid, primary gid, supplementary groups[0..ngroups))
 * may connect; when not, why names the rule. Reads no group database, so
 * it never blocks. quad.c. */
bool quad_peer_allowed(uint32_t uid, uint32_t gid, const uint32_t *groups, size_t ngroups,
                       char *why, size_t whylen);

/* A TCP connection's frames before Hello: at most this many bytes. */
#define QUAD_HELLO_FRAME 4096
/* Failed Hellos one peer address may make in a window of
 * QUAD_HELLO_WINDOW_MS before its Hellos are refused until the window
 * ends; the first QUAD_HELLO_LOGGED failures of a window are logged. */
#define QUAD_HELLO_FAILS 10
#define QUAD_HELLO_WINDOW_MS 10000
#define QUAD_HELLO_LOGGED 3
/* True when c's peer has used up its failed Hellos (msg says until when). */
bool quad_hello_blocked(quad_conn_t *c, char *msg, size_t msglen);
/* Counts a failed Hello of c's peer and logs it, within the log budget. */
void quad_hello_failed(quad_conn_t *c, const char *why);
/* Hello succeeded: the connection takes full-size frames, and its
 * handshake timer stops. */
void quad_hello_done(quad_conn_t *c);
/* Appends a response for request id; too large responses become ETOOBIG. */
void quad_conn_respond(quad_conn_t *c, uint64_t id, int status, const char *msg,
                       const ProtobufCMessage *out);
/* Whether events may go into c's output now: under QUAD_WRITE_HIGH and
 * within the output bounds (session.c, note 7). */
bool quad_conn_writable(quad_conn_t *c);
/* Makes room in c's output for a reply body of up to `reply` bytes, so
 * that storing it cannot fail (session.c note 8). 0 or QUA_ENOMEM. */
int quad_conn_reserve(quad_conn_t *c, size_t reply);
/* A request job of c finished (work.c): decoding goes on, or the close
 * that waited for it happens. */
void quad_conn_resume(quad_conn_t *c);
/* Holds c's output back (flushes write nothing) until the matching
 * release, which flushes: an answer that must wait for the disk. */
void quad_conn_hold_output(quad_conn_t *c);
void quad_conn_release_output(quad_conn_t *c);
/* Keeps c's memory (and its event ring) until the matching unhold. */
void quad_conn_hold(quad_conn_t *c);
void quad_conn_unhold(quad_conn_t *c);
/* SIGTERM: answer what is in flight, flush events, close every connection. */
void quad_conns_shutdown(void);
/* The exit deadline: closes every socket still open, written or not. */
void quad_conns_force_close(void);

/* Allocation-failure injection around each request's dispatch: defined
 * only in the test build quad-faultsim (tests/daemon/faultsim.c), NULL
 * (weak, undefined) in quad. */
void quad_faultsim_begin(const Qua__V1__Frame *f) __attribute__((weak));
void quad_faultsim_end(void) __attribute__((weak));

/* dispatch.c */
/* Handles one decoded request frame of an open connection. */
void quad_dispatch(quad_conn_t *c, const Qua__V1__Frame *f);
/* Releases everything a closing connection holds (handles, bindings,
 * owned unpublished objects). */
void quad_conn_release(quad_conn_t *c);
/* Names: 1..63 of [A-Za-z0-9_-] ('.' separates a name from a member in the CLI). */
bool quad_name_ok(const char *s);
/* Destroys every object left (exit). */
void quad_objs_destroy_all(void);
/* Adds a quaject restored from --state-dir (state.c): published as name,
 * created by ident, no owner connection; name and params (malloc'ed) are
 * the object's from then on. NULL when out of memory (nothing taken). */
quad_obj_t *quad_obj_adopt(qua_quaject_t *q, char *name, char *params, int64_t ident,
                           bool active);

/* events.c */
/* Binding, in three steps as a control job (work.c): prepare (the loop:
 * checks the names, makes the pending binding of a callback, or of a
 * callout with `credits`), work (the worker: watches, or makes the drain's
 * proxy and get site), finish (the loop, with work's status: 0 and b runs,
 * or the binding is gone and the status says why). */
int quad_bind_prepare(quad_conn_t *c, quad_ref_t *r, const char *callback, const char *callout,
                      uint64_t credits, quad_binding_t **out, qua_error_t *err);
int quad_bind_work(quad_binding_t *b, qua_error_t *err);
int quad_bind_finish(quad_binding_t *b, int status);
/* Unbinding, in three steps (events.c note 4): detach (the loop: b leaves
 * its handle, its connection's maps and drains, and holds the connection),
 * release (a control job's worker: afterwards no handler of b runs), free
 * (the loop: drops the hold). */
void quad_binding_detach(quad_binding_t *b);
void quad_binding_release(quad_binding_t *b);
void quad_binding_free(quad_binding_t *b);
/* Sends "destroyed", the last event, on every binding of r (its quaject is
 * being destroyed), after the events already queued for them. */
void quad_bindings_end(quad_ref_t *r);
/* Adds credits to a drain and takes what they allow. */
void quad_credit(quad_binding_t *b, uint64_t credits);
/* Moves queued events and drainable items into c's output while the
 * socket keeps up (all: every queued event, ignoring the socket). */
void quad_events_pump(quad_conn_t *c, bool all);
/* The async callback: some connection has events. */
void quad_on_wake(uv_async_t *a);
void quad_ring_free(quad_ring_t *r);

/* link.c: the link type (the sender) and the peer side of LinkOpen/LinkPush. */
/* Registers the link type with libqua (once, before the loop runs). */
int quad_link_register(void);
/* True for the link type (its describe reads the loop's state, so its
 * state line is taken on the loop). */
bool quad_link_is_type(const qua_type_t *t);
/* A link's two parts (link.c note 9): libqua makes and destroys the
 * quaject on the worker; the loop starts its connection once the daemon
 * holds it as an object, and stops it before its destroy is queued. Both
 * do nothing for other types. */
void quad_link_start(qua_quaject_t *q);
void quad_link_stop(qua_quaject_t *q);
/* The loop: closes the handles of links whose fini ran (after a job that
 * destroyed quajects). */
void quad_link_reap(void);
/* LinkOpen as a control job, in three steps (link.c note 9): prepare (the
 * loop: checks the request against the target q, takes the link's peer
 * state), work (the worker: opens the site on the target), finish (the
 * loop, with work's status: attaches the link to c, taking it over from
 * another connection, and fills out; frees lo). 0, or a status with err
 * set. */
typedef struct quad_link_open quad_link_open_t;
int quad_link_open_prepare(const Qua__V1__LinkOpenRequest *in, qua_quaject_t *q,
                           quad_link_open_t **lo, qua_error_t *err);
int quad_link_open_work(quad_link_open_t *lo, qua_error_t *err);
int quad_link_open_finish(quad_link_open_t *lo, int status, quad_conn_t *c,
                          const Qua__V1__LinkOpenRequest *in, Qua__V1__LinkOpenReply *out,
                          qua_error_t *err);
int quad_link_push(quad_conn_t *c, const Qua__V1__LinkPushRequest *in, Qua__V1__LinkPushReply *out,
                   char *msg, size_t msglen);
/* The connection is closing: links attached to it are detached (their
 * sites close in a control job). */
void quad_link_conn_closed(quad_conn_t *c);
/* On the loop's wake-up: tells senders whose targets have room again. */
void quad_link_on_wake(void);
/* Exit: forgets every peer-side link state. */
void quad_link_shutdown(void);

/* --- Code (code.c) ------------------------------------------------------------ */

/* Synthesised code (qua_quaject_entry_code, quad_m68k_entry_info) as an
 * EntryCode message, its parts named "NAME.ENTRY" (or "#ID.ENTRY"), built
 * in one block of quad_code_message_size(c) bytes (max_align_t aligned)
 * that the message points into. Loop thread (it reads the names). */
size_t quad_code_message_size(const qua_code_t *c);
Qua__V1__EntryCode *quad_code_message(void *block, const qua_code_t *c);

#endif /* QUAD_INTERNAL_H */
