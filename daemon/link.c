/* link.c -- the link quaject: a callentry that forwards items to a callentry published on another quad.
 *
 * Design note.
 *
 * A link is two halves. The sender is a quaject of type "link" on quad A:
 * its callentry put(x) takes items on any thread and its loop-side part, a
 * client of quad B written on libuv (never libquaclient, which blocks),
 * carries them over one connection. The peer is quad B's side of the
 * methods LinkOpen and LinkPush (dispatch.c hands them here): per link it
 * keeps the next sequence number to apply and applies items to the target,
 * the callentry `entry` of the quaject published as `remote`.
 *
 * Threads. put runs on whatever thread calls it (a pump's worker) and takes
 * no lock: it claims a credit with a CAS on `inflight`, puts the item on
 * the link's MPSC queue `outq` (an lfq, put_mp), and calls uv_async_send.
 * Everything else belongs to the loop thread: it moves items from outq into
 * the ring of unacknowledged items (assigning sequence numbers), writes
 * pushes, reads replies, releases credits and calls back notfull, up and
 * down; but for its creation and destruction (note 9). The peer side runs
 * on the peer's loop, but for the sites it opens and closes (the worker,
 * note 9); the one thing another thread does there is the target's
 * "notfull" handler (a consumer thread), which sets an atomic flag and
 * wakes the loop.
 *
 * States of the sender's connection:
 *
 *            create / backoff timer
 *   DOWN ----------------------------> CONNECTING --connected--> HELLO
 *    ^  ^                                  |                       |
 *    |  +-------- any error, EOF, ---------+                 HelloReply ok
 *    |            refused token or open                            v
 *    +-------------------------------------------- UP <--ok--- OPENING
 *                                                  (LinkOpenReply)
 *
 * Leaving UP or failing to reach it closes the connection, calls back
 * "down" (once, until the next "up"), and arms the backoff timer: 50 ms
 * doubling to 5 s, each delay drawn uniformly from its upper half (jitter),
 * reset when the link is up. Reaching UP calls back "up". A peer that
 * answers nothing for QUAD_LINK_TIMEOUT_MS while the link waits for it
 * (connecting, hello, open, or items in flight) is taken for dead the same
 * way: TCP alone does not notice a stopped peer or a vanished path.
 *
 * Sequence numbers and credits (the sender; seqs start at 1):
 *
 *  1. base <= sent <= next, and next - base + |outq| <= inflight <= window
 *     (equal but while a put is between its CAS and its lfq put). Items
 *     base..next-1 sit in the ring (capacity >= window, so it never
 *     overflows, nor does outq); base is the first item not acknowledged,
 *     sent the next one to write, next the next sequence number to assign.
 *  2. A put succeeds only after raising inflight while it is below window,
 *     so items in flight never exceed the window, end to end: the ring
 *     holds them until the peer acknowledges them, whatever the connection
 *     does.
 *  3. Acknowledgements are cumulative (the peer's next_seq) and only move
 *     base forward; the credits of the items acknowledged are returned
 *     (inflight decreases) and then, if a put found the window exhausted
 *     since the last time (`full` set), "notfull" is broadcast once. put
 *     sets `full` before re-reading inflight, the loop returns credits
 *     before clearing `full` (both sequentially consistent): so either the
 *     put sees the room, or the loop sees `full` and wakes the pump that
 *     is about to sleep (its sample came before the put: pump.c note 3).
 *  4. When a connection ends, sent goes back to base: every item not
 *     acknowledged is written again on the next connection, whose LinkOpen
 *     reply first acknowledges what the peer applied meanwhile (an ack that
 *     was lost with the connection). Items written again count as resent.
 *  5. A reply saying "full" (the target refused item next_seq) or "gap"
 *     sends sent back to base too, but only for replies to pushes written
 *     after the last rewind (request ids grow), so pushes already on the
 *     wire when the target filled cause one rewind, not one each. The
 *     sender then waits: for the peer's "notfull" event (when the target
 *     reports notfull), with a poll every second in case; or, for targets
 *     without notfull, polling with backoff from 5 ms to 500 ms. After a
 *     "full" reply, puts are refused with "full" too (remote_full), until
 *     the link resumes pushing or goes down; put sets `full` before
 *     re-reading remote_full and the loop clears remote_full before the
 *     acknowledgement that broadcasts notfull, so as in note 3 the put
 *     that heard "full" hears "notfull" once the target took an item.
 *
 * The peer (per link id, on the peer's loop):
 *
 *  6. next_seq is the next item to apply; LinkPush items below it are
 *     duplicates (dropped and counted), an item equal to it is applied and
 *     next_seq advances, and a push starting past it (a gap) applies
 *     nothing. So items are applied in sequence order, each at most once,
 *     while the peer remembers the link.
 *  7. The target's refusal (QUA_DIVERTED, "full") stops a push at that
 *     item; the reply carries next_seq (the acknowledgement of all before
 *     it) and "full". The target's "notfull" handler, opened on the link's
 *     own site, then makes the peer send a "notfull" event to the sender.
 *     The handler runs after the refusal it answers (the target only
 *     reports the transition that follows a refusal) and the loop reads its
 *     flag in a later turn than the push, so no refusal waits for a
 *     notfull that already went by.
 *  8. A link is attached to one connection at a time. LinkOpen on another
 *     connection takes it over (the old one's pushes are refused), so a
 *     half-dead connection the peer has not noticed cannot apply items out
 *     of order. A link's state outlives its connection (so a resend after
 *     a reconnect finds next_seq); the peer remembers --max-links
 *     links and forgets the least recently used detached one past that.
 *     A forgotten link that comes back starts at the sender's first
 *     unacknowledged item (LinkOpen's first_seq): what was acknowledged was
 *     applied by this quad already.
 *
 * Where the control work runs (work.c note 1: the loop never waits for
 * libqua's control lock, a grace period or a resynthesis):
 *
 *  9. A link's quaject is made and destroyed by control jobs, as every
 *     other: its init and fini run on the worker and touch no handle of
 *     the loop's. The loop starts the sender (its id, wake, timers and
 *     connection) once the daemon holds the quaject as an object
 *     (quad_link_start: Create's done, or a restore), and stops it (timers,
 *     connection) when the object leaves the daemon, before its destroy is
 *     queued (quad_link_stop, from obj_detach). The wake handle stays open
 *     until fini: a put on a pump's thread may signal it until the grace
 *     period inside qua_destroy. fini hands the link to the loop (a list
 *     under a mutex), which closes the handle after the job
 *     (quad_link_reap). On the peer, LinkOpen is a request job: prepare
 *     checks the request and takes the link's peer state on the loop, the
 *     worker opens the site, and finish attaches the link (taking it over,
 *     note 8) and answers with next_seq as it stands then; until the
 *     finish, the connection it was attached to keeps pushing. A site a
 *     peer state lets go of (taken over, its connection closing, opened
 *     for a connection that went meanwhile) closes in a job too; until that
 *     job ran the state counts it (pending) and is never forgotten, since
 *     the site's notfull handler may still run with it.
 *
 * Why nothing is applied twice or lost while the receiving quad lives: an
 * item leaves the sender's ring only when acknowledged (1, 3), which the
 * peer does only after the target accepted it (7); until then it is
 * written again after every reconnect or refusal (4, 5); and the peer
 * applies each sequence number once, in order (6, 8).
 */
#include <errno.h>
#include <stdalign.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "quad-internal.h"

#define QUAD_LINK_WINDOW_MAX 65536u
#define QUAD_LINK_BATCH_MAX 8192u
#define QUAD_LINK_BACKOFF_MIN_MS 50u
#define QUAD_LINK_BACKOFF_MAX_MS 5000u
#define QUAD_LINK_RBUF 65536u
#define QUAD_LINK_RTT_SLOTS 64u
/* A peer that does not answer for this long while the link waits for it
 * (connecting, or items in flight) is taken for dead: down, reconnect. */
#define QUAD_LINK_TIMEOUT_MS 1000u
#define QUAD_LINK_WATCH_MS 250u

enum { P_PEER, P_REMOTE, P_ENTRY, P_WINDOW, P_TOKEN_FILE, P_COUNT };
enum { CB_FULL, CB_NOTFULL, CB_DOWN, CB_UP };
enum { E_PUT };

/* Request ids on the sender's connections. */
enum { ID_HELLO = 1, ID_OPEN = 2, ID_FIRST_PUSH = 3 };

typedef enum link_state { LINK_DOWN, LINK_CONNECTING, LINK_HELLO, LINK_OPENING, LINK_UP } link_state_t;


typedef struct quad_link quad_link_t;

/* The quaject's state block: what put touches (any thread). */
typedef struct link_q {
  quad_link_t *l;
  uint64_t window;
  uv_async_t *wake;
  qua_lfq_t outq;
  alignas(64) _Atomic uint64_t inflight; /* items put and not yet acknowledged */
  alignas(64) _Atomic int full;          /* a put found the window exhausted (note 3) */
  _Atomic int remote_full;               /* the target refused an item (note 5) */
} link_q_t;

/* One connection of a sender to its peer. */
typedef struct link_conn {
  union {
    uv_handle_t h;
    uv_stream_t s;
    uv_tcp_t tcp;
    uv_pipe_t pipe;
  } u;
  uv_connect_t connect;
  quad_link_t *l; /* NULL once the link let go of it */
  quap_decoder_t dec;
  uint8_t *rbuf;
  uint64_t next_id;
  uint64_t rewind_id; /* replies to pushes with smaller ids do not rewind (note 5) */
} link_conn_t;

typedef struct link_write {
  uv_write_t req;
  uint8_t *data;
} link_write_t;

/* The sender's loop-side part. It outlives its quaject until its handles
 * are closed (refs counts them, and a pending name lookup). */
struct quad_link {
  qua_quaject_t *q; /* NULL once the quaject is gone */
  link_q_t *k;
  int refs;
  uint64_t id;
  char peer[256];
  char host[256];
  unsigned port;
  bool is_unix;
  char remote[QUA_NAME_MAX + 1];
  char entry[QUA_NAME_MAX + 1];
  char token[QUAD_TOKEN_MAX];
  uint64_t window, mask;
  uint64_t *ring;
  uint64_t base, sent, next, high; /* note 1; high: past the last seq ever written */
  link_state_t state;
  bool down_announced; /* "down" was called back since the last "up" */
  bool ever_up;
  bool remote_full;
  bool notifies;
  uint64_t binding;
  unsigned attempts, poll_ms;
  size_t batch_max;
  bool started;         /* its handles exist (quad_link_start) */
  quad_link_t *reap_next; /* fini ran: its wake handle is the loop's to close (note 9) */
  uv_async_t wake;
  uv_timer_t timer;
  uv_timer_t watchdog;
  uint64_t waiting_since; /* ms: the attempt began, or items went out with none in flight */
  uint64_t last_rx;       /* ms: the peer's last bytes */
  struct addrinfo *addrs, *ai; /* a resolved name, and the address being tried */
  link_conn_t *conn;
  char reason[192];
  uint64_t items_sent, acked, resent, dups;
  double rtt_us;
  struct {
    uint64_t id, t_ns;
  } rtt[QUAD_LINK_RTT_SLOTS];
};

static uint64_t rng_state;

static uint64_t rng_next(void) {
  if (rng_state == 0 && (getrandom(&rng_state, sizeof rng_state, 0) != sizeof rng_state || rng_state == 0))
    rng_state = uv_hrtime() | 1;
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void link_connect(quad_link_t *l);
static void link_kick(quad_link_t *l);

/* --- The quaject ------------------------------------------------------------------ */

/* put(x): forwards x (any thread; note 2, 3 and 5). QUA_DIVERTED with
 * "full" called back when the window is exhausted or the remote target
 * refused an item and has not taken it since. */
static int link_put(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  link_q_t *k = s->state;
  if (__builtin_expect(atomic_load_explicit(&k->remote_full, memory_order_relaxed), 0)) {
    atomic_store(&k->full, 1);
    if (atomic_load(&k->remote_full)) {
      qua_fire(s, CB_FULL, x);
      return QUA_DIVERTED;
    }
  }
  uint64_t n = atomic_load_explicit(&k->inflight, memory_order_relaxed);
  for (;;) {
    if (__builtin_expect(n >= k->window, 0)) {
      atomic_store(&k->full, 1);
      n = atomic_load(&k->inflight);
      if (n >= k->window) {
        qua_fire(s, CB_FULL, x);
        return QUA_DIVERTED;
      }
      continue;
    }
    if (atomic_compare_exchange_weak_explicit(&k->inflight, &n, n + 1, memory_order_acq_rel,
                                              memory_order_relaxed))
      break;
  }
  /* Room is certain: outq holds at most inflight <= window <= capacity items. */
  qua_lfq_put_mp(&k->outq, x);
  uv_async_send(k->wake);
  return QUA_OK;
}

static void link_unref(quad_link_t *l) {
  if (--l->refs > 0)
    return;
  free(l->ring);
  free(l);
}

static void on_link_handle_closed(uv_handle_t *h) { link_unref(h->data); }

static void on_conn_closed(uv_handle_t *h) {
  link_conn_t *c = h->data;
  quap_decoder_fini(&c->dec);
  free(c->rbuf);
  free(c);
}

/* Lets go of the link's connection (if any) and closes it. */
static void conn_drop(quad_link_t *l) {
  link_conn_t *c = l->conn;
  if (c == NULL)
    return;
  l->conn = NULL;
  c->l = NULL;
  if (!uv_is_closing(&c->u.h))
    uv_close(&c->u.h, on_conn_closed);
}

static void addrs_free(quad_link_t *l) {
  if (l->addrs != NULL)
    uv_freeaddrinfo(l->addrs);
  l->addrs = l->ai = NULL;
}

static uint64_t backoff_ms(quad_link_t *l) {
  uint64_t hi = QUAD_LINK_BACKOFF_MIN_MS;
  for (unsigned i = 0; i < l->attempts && hi < QUAD_LINK_BACKOFF_MAX_MS; i++)
    hi *= 2;
  if (hi > QUAD_LINK_BACKOFF_MAX_MS)
    hi = QUAD_LINK_BACKOFF_MAX_MS;
  return hi / 2 + rng_next() % (hi / 2 + 1); /* the upper half: equal jitter */
}

static void on_timer(uv_timer_t *t);

/* The connection failed or ended: down, resend later (note 4). */
__attribute__((format(printf, 2, 3))) static void link_fail(quad_link_t *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->reason, sizeof l->reason, fmt, ap);
  va_end(ap);
  quad_log(l->state == LINK_UP ? QUAD_LOG_WARN : QUAD_LOG_INFO, "link #%" PRIu64 " to %s: %s",
           l->q != NULL ? qua_quaject_id(l->q) : 0, l->peer, l->reason);
  conn_drop(l);
  addrs_free(l);
  l->state = LINK_DOWN;
  l->sent = l->base;
  l->remote_full = false;
  atomic_store(&l->k->remote_full, 0);
  if (!l->down_announced && l->q != NULL) {
    l->down_announced = true;
    qua_broadcast(l->q, CB_DOWN, 0);
  }
  uint64_t ms = backoff_ms(l);
  if (l->attempts < 16)
    l->attempts++;
  uv_timer_start(&l->timer, on_timer, ms, 0);
}

/* --- Writing ------------------------------------------------------------------------ */

static void on_write(uv_write_t *req, int status) {
  link_write_t *w = (link_write_t *)req;
  link_conn_t *c = req->handle->data;
  free(w->data);
  free(w);
  if (status < 0 && c->l != NULL)
    link_fail(c->l, "write: %s", uv_strerror(status));
}

/* Writes the frames in b (taken). */
static void conn_write(link_conn_t *c, quap_buf_t *b) {
  if (b->len == 0)
    return;
  link_write_t *w = malloc(sizeof *w);
  if (w == NULL) {
    link_fail(c->l, "out of memory");
    return;
  }
  size_t len;
  w->data = quap_buf_take(b, &len);
  quad_srv->bytes_out += len;
  uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)len);
  int r = uv_write(&w->req, &c->u.s, &buf, 1, on_write);
  if (r < 0) {
    free(w->data);
    free(w);
    link_fail(c->l, "write: %s", uv_strerror(r));
  }
}

/* Writes one request and moves the link to state `then`. */
static void conn_request(link_conn_t *c, uint64_t id, unsigned method, const ProtobufCMessage *m,
                         link_state_t then) {
  quap_buf_t b;
  quap_buf_init(&b);
  if (quap_request_append(&b, id, method, m) < 0) {
    quap_buf_fini(&b);
    link_fail(c->l, "out of memory");
    return;
  }
  c->l->state = then;
  conn_write(c, &b);
  quap_buf_fini(&b);
}

/* Moves put items into the ring and writes what is not yet sent (notes 1, 5). */
static void link_kick(quad_link_t *l) {
  link_q_t *k = l->k;
  if (k == NULL)
    return;
  uint64_t v[256];
  size_t got;
  while (qua_lfq_get_n_sc(&k->outq, v, sizeof v / sizeof v[0], &got) <= QUA_LFQ_EDGE && got > 0)
    for (size_t i = 0; i < got; i++)
      l->ring[l->next++ & l->mask] = v[i];
  if (l->state != LINK_UP || l->remote_full || l->sent == l->next)
    return;
  link_conn_t *c = l->conn;
  if (l->sent == l->base) /* nothing was in flight: the wait for a reply starts now */
    l->waiting_since = uv_now(quad_srv->loop);
  quap_buf_t b;
  quap_buf_init(&b);
  while (l->sent < l->next) {
    uint64_t n = l->next - l->sent;
    uint64_t at = l->sent & l->mask;
    if (n > l->window - at) /* up to the ring's end: items are contiguous */
      n = l->window - at;
    if (n > l->batch_max)
      n = l->batch_max;
    Qua__V1__LinkPushRequest req = QUA__V1__LINK_PUSH_REQUEST__INIT;
    req.link = l->id;
    req.first_seq = l->sent;
    req.items = &l->ring[at];
    req.n_items = n;
    uint64_t id = c->next_id++;
    if (quap_request_append(&b, id, QUAP_LINK_PUSH, &req.base) < 0) {
      quap_buf_fini(&b);
      link_fail(l, "out of memory");
      return;
    }
    l->rtt[id % QUAD_LINK_RTT_SLOTS].id = id;
    l->rtt[id % QUAD_LINK_RTT_SLOTS].t_ns = uv_hrtime();
    if (l->sent < l->high) {
      uint64_t again = (l->high - l->sent < n ? l->high - l->sent : n);
      l->resent += again;
    }
    l->sent += n;
    if (l->sent > l->high)
      l->high = l->sent;
    l->items_sent += n;
    quad_srv->link_items_sent += n;
  }
  conn_write(c, &b);
  quap_buf_fini(&b);
}

/* The peer applied every item before next_seq (note 3). */
static void link_ack(quad_link_t *l, uint64_t next_seq) {
  if (next_seq > l->next)
    next_seq = l->next; /* never past what was assigned */
  if (next_seq <= l->base)
    return;
  uint64_t n = next_seq - l->base;
  l->base = next_seq;
  if (l->sent < l->base)
    l->sent = l->base;
  l->acked += n;
  quad_srv->link_items_acked += n;
  atomic_fetch_sub(&l->k->inflight, n);
  if (atomic_exchange(&l->k->full, 0))
    qua_broadcast(l->q, CB_NOTFULL, 0);
}

/* Waits for room on the peer's target (note 5). */
static void link_pause(quad_link_t *l, link_conn_t *c) {
  l->remote_full = true;
  l->sent = l->base;
  c->rewind_id = c->next_id;
  uint64_t ms;
  if (l->notifies) {
    ms = 1000;
  } else {
    l->poll_ms = l->poll_ms == 0 ? 5 : l->poll_ms * 2 > 500 ? 500 : l->poll_ms * 2;
    ms = l->poll_ms;
  }
  uv_timer_start(&l->timer, on_timer, ms, 0);
}

static void link_resume(quad_link_t *l) {
  if (!l->remote_full)
    return;
  l->remote_full = false;
  atomic_store(&l->k->remote_full, 0);
  uv_timer_stop(&l->timer);
  link_kick(l);
}

static void on_timer(uv_timer_t *t) {
  quad_link_t *l = t->data;
  if (l->q == NULL)
    return;
  if (l->state == LINK_DOWN)
    link_connect(l);
  else if (l->state == LINK_UP && l->remote_full)
    link_resume(l);
}

/* Takes a silent peer for dead (QUAD_LINK_TIMEOUT_MS): while connecting,
 * or while items are in flight with no reply. A peer that is only slow
 * costs a reconnect and a resend, never an item. */
static void on_watchdog(uv_timer_t *t) {
  quad_link_t *l = t->data;
  if (l->q == NULL || l->state == LINK_DOWN)
    return;
  uint64_t now = uv_now(quad_srv->loop);
  uint64_t since = l->waiting_since > l->last_rx ? l->waiting_since : l->last_rx;
  if (l->state != LINK_UP) {
    if (now - l->waiting_since > QUAD_LINK_TIMEOUT_MS)
      link_fail(l, "no answer from %s within %u ms", l->peer, QUAD_LINK_TIMEOUT_MS);
  } else if (l->sent > l->base && now - since > QUAD_LINK_TIMEOUT_MS) {
    link_fail(l, "no reply from the peer for %u ms with %" PRIu64 " items in flight",
              QUAD_LINK_TIMEOUT_MS, l->sent - l->base);
  }
}

static void on_wake_link(uv_async_t *a) {
  quad_link_t *l = a->data;
  if (l->q != NULL)
    link_kick(l);
}

/* --- Reading ------------------------------------------------------------------------- */

static void send_open(link_conn_t *c) {
  quad_link_t *l = c->l;
  Qua__V1__LinkOpenRequest req = QUA__V1__LINK_OPEN_REQUEST__INIT;
  req.link = l->id;
  req.remote = l->remote;
  req.entry = l->entry;
  req.first_seq = l->base;
  conn_request(c, ID_OPEN, QUAP_LINK_OPEN, &req.base, LINK_OPENING);
}

static void on_response(link_conn_t *c, const Qua__V1__Frame *f) {
  quad_link_t *l = c->l;
  unsigned method = f->id == ID_HELLO ? QUAP_HELLO : f->id == ID_OPEN ? QUAP_LINK_OPEN : QUAP_LINK_PUSH;
  ProtobufCMessage *m = NULL;
  int r = quap_response_unpack(f, method, &m);
  if (r < 0) {
    const char *what = method == QUAP_HELLO ? "refused the hello" : method == QUAP_LINK_OPEN ? "refused to open" : "refused a push";
    if (r == QUA_EAUTH)
      link_fail(l, "peer refused the token: %s (%s)", f->message[0] ? f->message : qua_strerror(r),
                qua_err_name(r));
    else
      link_fail(l, "peer %s: %s (%s)", what, f->message[0] ? f->message : qua_strerror(r),
                qua_err_name(r));
    return;
  }
  if (method == QUAP_HELLO) {
    const Qua__V1__HelloReply *h = (const Qua__V1__HelloReply *)m;
    size_t fit = h->max_frame > 128 ? (size_t)(h->max_frame - 64) / 11 : 1;
    l->batch_max = fit < QUAD_LINK_BATCH_MAX ? fit : QUAD_LINK_BATCH_MAX;
    protobuf_c_message_free_unpacked(m, NULL);
    send_open(c);
    return;
  }
  if (method == QUAP_LINK_OPEN) {
    const Qua__V1__LinkOpenReply *o = (const Qua__V1__LinkOpenReply *)m;
    l->binding = o->binding;
    l->notifies = o->notifies;
    uint64_t next_seq = o->next_seq;
    protobuf_c_message_free_unpacked(m, NULL);
    if (next_seq > l->next) {
      link_fail(l, "peer expects item %" PRIu64 " but only %" PRIu64 " were sent", next_seq,
                l->next - 1);
      return;
    }
    l->state = LINK_UP;
    l->attempts = 0;
    l->poll_ms = 0;
    l->reason[0] = '\0';
    link_ack(l, next_seq);
    l->sent = l->base;
    c->rewind_id = c->next_id;
    quad_log(QUAD_LOG_INFO, "link #%" PRIu64 " to %s: up (peer expects %" PRIu64 ")",
             qua_quaject_id(l->q), l->peer, next_seq);
    l->down_announced = false;
    l->ever_up = true;
    qua_broadcast(l->q, CB_UP, 0);
    link_kick(l);
    return;
  }
  const Qua__V1__LinkPushReply *p = (const Qua__V1__LinkPushReply *)m;
  uint64_t slot = f->id % QUAD_LINK_RTT_SLOTS;
  if (l->rtt[slot].id == f->id) {
    double us = (double)(uv_hrtime() - l->rtt[slot].t_ns) / 1e3;
    l->rtt_us = l->rtt_us == 0 ? us : l->rtt_us + (us - l->rtt_us) / 8; /* moving average */
  }
  l->dups += p->duplicates;
  link_ack(l, p->next_seq);
  if ((p->full || p->gap) && f->id >= c->rewind_id) {
    link_pause(l, c);
    if (p->full) /* puts hear "full" until the target takes again (note 5) */
      atomic_store(&l->k->remote_full, 1);
  } else if (!p->full && !p->gap)
    l->poll_ms = 0;
  protobuf_c_message_free_unpacked(m, NULL);
}

static void on_event(link_conn_t *c, const Qua__V1__Frame *f) {
  quad_link_t *l = c->l;
  if (f->event != NULL && f->event->binding == l->binding && strcmp(f->event->callback, "notfull") == 0)
    link_resume(l);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  link_conn_t *c = h->data;
  buf->base = (char *)c->rbuf;
  buf->len = QUAD_LINK_RBUF;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  link_conn_t *c = s->data;
  if (nread == 0 || c->l == NULL)
    return;
  if (nread < 0) {
    link_fail(c->l, "%s", nread == UV_EOF ? "peer closed the connection" : uv_strerror((int)nread));
    return;
  }
  quad_srv->bytes_in += (uint64_t)nread;
  c->l->last_rx = uv_now(quad_srv->loop);
  size_t off = 0;
  while (off < (size_t)nread && c->l != NULL) {
    size_t used = 0;
    Qua__V1__Frame *f = NULL;
    int r = quap_decoder_feed(&c->dec, c->rbuf + off, (size_t)nread - off, &used, &f);
    off += used;
    if (r < 0) {
      link_fail(c->l, "bad frame from the peer: %s", qua_strerror(r));
      return;
    }
    if (r == 0)
      break;
    if (f->kind == QUA__V1__FRAME__KIND__RESPONSE)
      on_response(c, f);
    else if (f->kind == QUA__V1__FRAME__KIND__EVENT)
      on_event(c, f);
    quap_frame_free(f);
  }
}

static void connect_tcp(quad_link_t *l, const struct sockaddr *sa);

static void on_connect(uv_connect_t *req, int status) {
  link_conn_t *c = req->data;
  quad_link_t *l = c->l;
  if (l == NULL)
    return; /* let go of meanwhile */
  if (status < 0 && l->ai != NULL && l->ai->ai_next != NULL) {
    /* The name has another address: try it now. */
    l->ai = l->ai->ai_next;
    conn_drop(l);
    l->waiting_since = uv_now(quad_srv->loop);
    connect_tcp(l, l->ai->ai_addr);
    return;
  }
  addrs_free(l);
  if (status < 0) {
    link_fail(l, "cannot connect to %s: %s", l->peer, uv_strerror(status));
    return;
  }
  if (!l->is_unix)
    uv_tcp_nodelay(&c->u.tcp, 1);
  int r = uv_read_start(&c->u.s, on_alloc, on_read);
  if (r < 0) {
    link_fail(l, "read: %s", uv_strerror(r));
    return;
  }
  Qua__V1__HelloRequest hello = QUA__V1__HELLO_REQUEST__INIT;
  hello.version = QUAP_VERSION;
  hello.token = l->token;
  hello.client = (char *)"quad link";
  conn_request(c, ID_HELLO, QUAP_HELLO, &hello.base, LINK_HELLO);
}

static link_conn_t *conn_new(quad_link_t *l) {
  link_conn_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->rbuf = malloc(QUAD_LINK_RBUF);
  if (c->rbuf == NULL) {
    free(c);
    return NULL;
  }
  c->l = l;
  c->next_id = ID_FIRST_PUSH;
  c->rewind_id = ID_FIRST_PUSH;
  c->u.h.data = c;
  c->connect.data = c;
  quap_decoder_init(&c->dec, QUAP_DEFAULT_MAX_FRAME);
  return c;
}

/* Connects over TCP to sa. */
static void connect_tcp(quad_link_t *l, const struct sockaddr *sa) {
  link_conn_t *c = conn_new(l);
  if (c == NULL) {
    link_fail(l, "out of memory");
    return;
  }
  uv_tcp_init(quad_srv->loop, &c->u.tcp);
  l->conn = c;
  int r = uv_tcp_connect(&c->connect, &c->u.tcp, sa, on_connect);
  if (r < 0)
    link_fail(l, "cannot connect to %s: %s", l->peer, uv_strerror(r));
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res) {
  quad_link_t *l = req->data;
  free(req);
  if (l->q == NULL || l->state != LINK_CONNECTING || l->conn != NULL) {
    uv_freeaddrinfo(res);
  } else if (status < 0) {
    uv_freeaddrinfo(res);
    link_fail(l, "cannot resolve %s: %s", l->host, uv_strerror(status));
  } else {
    l->addrs = l->ai = res; /* tried in turn (on_connect) */
    connect_tcp(l, res->ai_addr);
  }
  link_unref(l);
}

/* Starts a connection attempt (state CONNECTING). */
static void link_connect(quad_link_t *l) {
  l->state = LINK_CONNECTING;
  l->waiting_since = uv_now(quad_srv->loop);
  if (!l->is_unix) {
    struct sockaddr_storage ss;
    if (uv_ip4_addr(l->host, (int)l->port, (struct sockaddr_in *)&ss) != 0 &&
        uv_ip6_addr(l->host, (int)l->port, (struct sockaddr_in6 *)&ss) != 0) {
      uv_getaddrinfo_t *req = malloc(sizeof *req);
      if (req == NULL) {
        link_fail(l, "out of memory");
        return;
      }
      req->data = l;
      char port[8];
      snprintf(port, sizeof port, "%u", l->port);
      struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
      int r = uv_getaddrinfo(quad_srv->loop, req, on_resolved, l->host, port, &hints);
      if (r < 0) {
        free(req);
        link_fail(l, "cannot resolve %s: %s", l->host, uv_strerror(r));
        return;
      }
      l->refs++;
      return;
    }
    connect_tcp(l, (struct sockaddr *)&ss);
    return;
  }
  link_conn_t *c = conn_new(l);
  if (c == NULL) {
    link_fail(l, "out of memory");
    return;
  }
  uv_pipe_init(quad_srv->loop, &c->u.pipe, 0);
  l->conn = c;
  uv_pipe_connect(&c->connect, &c->u.pipe, l->host, on_connect);
}

/* --- Creation ----------------------------------------------------------------------- */

static uint32_t pow2_at_least(uint64_t n) {
  uint32_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/* Parses peer=, reads token-file=. 0 or a refusal. */
static int link_parse(quad_link_t *l, const uint64_t *params) {
  const char *peer = (const char *)(uintptr_t)params[P_PEER];
  const char *remote = (const char *)(uintptr_t)params[P_REMOTE];
  const char *entry = (const char *)(uintptr_t)params[P_ENTRY];
  const char *token_file = (const char *)(uintptr_t)params[P_TOKEN_FILE];
  snprintf(l->peer, sizeof l->peer, "%s", peer);
  if (strncmp(peer, "unix:", 5) == 0) {
    l->is_unix = true;
    if (peer[5] == '\0' || strlen(peer + 5) >= sizeof(((struct sockaddr_un *)0)->sun_path))
      return qua_refuse(QUA_EBADVALUE, "peer=%s: the socket path is empty or too long", peer);
    snprintf(l->host, sizeof l->host, "%s", peer + 5);
  } else {
    const char *colon = strrchr(peer, ':');
    if (colon == NULL || colon == peer)
      return qua_refuse(QUA_EBADVALUE, "peer=%s: expected HOST:PORT or unix:PATH", peer);
    if (quad_parse_hostport(peer, l->host, sizeof l->host, &l->port) < 0 || l->port == 0)
      return qua_refuse(QUA_EBADVALUE, "peer=%s: the port '%s' is not a number from 1 to 65535",
                        peer, colon + 1);
    if (token_file == NULL)
      return qua_refuse(QUA_EINVAL, "peer=%s is TCP: it needs token-file=PATH", peer);
  }
  if (!quad_name_ok(remote))
    return qua_refuse(QUA_EBADVALUE, "remote=%s: a published name is 1 to 63 letters, digits, "
                      "'_' or '-'", remote);
  snprintf(l->remote, sizeof l->remote, "%s", remote);
  if (entry == NULL)
    entry = "put";
  if (!quad_name_ok(entry))
    return qua_refuse(QUA_EBADVALUE, "entry=%s: not a callentry name", entry);
  snprintf(l->entry, sizeof l->entry, "%s", entry);
  if (token_file != NULL) {
    size_t len;
    char why[160];
    if (quad_read_token(token_file, l->token, &len, why, sizeof why) < 0)
      return qua_refuse(QUA_EINVAL, "%s", why);
  }
  return 0;
}

/* Makes the quaject's part (on whatever thread creates it: the worker).
 * Touches no handle of the loop's: quad_link_start does that (note 9). */
static int link_init(qua_quaject_t *q, const uint64_t *params) {
  link_q_t *k = qua_quaject_state(q);
  quad_link_t *l = calloc(1, sizeof *l);
  if (l == NULL)
    return QUA_ENOMEM;
  int r = link_parse(l, params);
  if (r < 0)
    goto fail;
  k->window = params[P_WINDOW];
  l->window = pow2_at_least(k->window);
  l->mask = l->window - 1;
  l->ring = calloc(l->window, sizeof *l->ring);
  if (l->ring == NULL) {
    r = QUA_ENOMEM;
    goto fail;
  }
  if (qua_lfq_init(&k->outq, (uint32_t)l->window) < 0) {
    r = QUA_ENOMEM;
    goto fail_ring;
  }
  l->q = q;
  l->k = k;
  l->base = l->sent = l->next = l->high = 1;
  l->batch_max = QUAD_LINK_BATCH_MAX;
  k->l = l;
  k->wake = &l->wake; /* initialised by quad_link_start, before any put can run */
  atomic_init(&k->inflight, 0);
  atomic_init(&k->full, 0);
  atomic_init(&k->remote_full, 0);
  return 0;

fail_ring:
  free(l->ring);
fail:
  free(l);
  return r;
}

void quad_link_start(qua_quaject_t *q) {
  if (!quad_link_is_type(qua_quaject_type(q)))
    return;
  link_q_t *k = qua_quaject_state(q);
  quad_link_t *l = k->l;
  do
    l->id = rng_next();
  while (l->id == 0);
  uv_async_init(quad_srv->loop, &l->wake, on_wake_link);
  uv_timer_init(quad_srv->loop, &l->timer);
  uv_timer_init(quad_srv->loop, &l->watchdog);
  l->wake.data = l->timer.data = l->watchdog.data = l;
  l->refs = 3;
  l->started = true;
  uv_timer_start(&l->watchdog, on_watchdog, QUAD_LINK_WATCH_MS, QUAD_LINK_WATCH_MS);
  quad_srv->links++;
  link_connect(l);
}

void quad_link_stop(qua_quaject_t *q) {
  if (!quad_link_is_type(qua_quaject_type(q)))
    return;
  quad_link_t *l = ((link_q_t *)qua_quaject_state(q))->l;
  if (!l->started || l->q == NULL)
    return;
  l->q = NULL; /* every callback of the loop's now leaves it alone */
  l->k = NULL;
  conn_drop(l);
  addrs_free(l);
  uv_close((uv_handle_t *)&l->timer, on_link_handle_closed);
  uv_close((uv_handle_t *)&l->watchdog, on_link_handle_closed);
  quad_srv->links--;
}

/* Links whose fini ran and whose wake handle the loop is still to close
 * (note 9); any thread adds, the loop takes. */
static pthread_mutex_t reap_mu = PTHREAD_MUTEX_INITIALIZER;
static quad_link_t *reaped;

/* After a grace period (whatever thread destroys the quaject: the
 * worker): no put runs, so its wake handle may close, which the loop does
 * (quad_link_reap). A link never started has no handle: it goes now. */
static void link_fini(qua_quaject_t *q) {
  link_q_t *k = qua_quaject_state(q);
  quad_link_t *l = k->l;
  qua_lfq_fini(&k->outq);
  if (!l->started) {
    free(l->ring);
    free(l);
    return;
  }
  pthread_mutex_lock(&reap_mu);
  l->reap_next = reaped;
  reaped = l;
  pthread_mutex_unlock(&reap_mu);
}

void quad_link_reap(void) {
  pthread_mutex_lock(&reap_mu);
  quad_link_t *l = reaped;
  reaped = NULL;
  pthread_mutex_unlock(&reap_mu);
  while (l != NULL) {
    quad_link_t *next = l->reap_next;
    uv_close((uv_handle_t *)&l->wake, on_link_handle_closed);
    l = next;
  }
}

/* What show prints: up; down after a failure, while it retries (with the
 * reason); connecting before the first attempt ended. */
static const char *link_state_name(const quad_link_t *l) {
  if (l->state == LINK_UP)
    return "up";
  return l->reason[0] != '\0' ? "down" : "connecting";
}

static int link_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const link_q_t *k = qua_quaject_state((qua_quaject_t *)q);
  const quad_link_t *l = k->l;
  int n = snprintf(buf, len,
                   "peer=%s remote=%s.%s state=%s window=%" PRIu64 " inflight=%" PRIu64
                   " acked=%" PRIu64 " resent=%" PRIu64 " dups=%" PRIu64 " rtt_us=%.0f%s",
                   l->peer, l->remote, l->entry, link_state_name(l), k->window,
                   atomic_load(&((link_q_t *)k)->inflight), l->acked, l->resent, l->dups,
                   l->rtt_us, l->remote_full ? " remote=full" : "");
  if (l->reason[0] != '\0' && n >= 0 && (size_t)n < len)
    n += snprintf(buf + n, len - (size_t)n, " why=\"%s\"", l->reason);
  return n;
}

static const qua_param_def_t link_params[] = {
    [P_PEER] = {"peer", 0, 1, 255, QUA_PARAM_STRING | QUA_PARAM_REQUIRED,
                "the peer quad: HOST:PORT (TCP, needs token-file) or unix:PATH"},
    [P_REMOTE] = {"remote", 0, 1, QUA_NAME_MAX, QUA_PARAM_STRING | QUA_PARAM_REQUIRED,
                  "the name the target quaject is published under on the peer"},
    [P_ENTRY] = {"entry", 0, 1, QUA_NAME_MAX, QUA_PARAM_STRING,
                 "the target's callentry, one word in (default put)"},
    [P_WINDOW] = {"window", 1024, 1, QUAD_LINK_WINDOW_MAX, 0,
                  "items in flight (put and not yet acknowledged) at most"},
    [P_TOKEN_FILE] = {"token-file", 0, 1, 4095, QUA_PARAM_STRING,
                      "file holding the peer's token (TCP)"},
};

static const qua_entry_def_t link_entries[] = {
    [E_PUT] = {"put", 1, false, true, link_put, "forward an item to the remote callentry"},
};

static const qua_callback_def_t link_callbacks[] = {
    [CB_FULL] = {"full", QUA_CB_INVOKER, "the window is exhausted (or the remote is full)"},
    [CB_NOTFULL] = {"notfull", QUA_CB_BROADCAST, "room in the window again, once after full"},
    [CB_DOWN] = {"down", QUA_CB_BROADCAST, "the connection to the peer was lost"},
    [CB_UP] = {"up", QUA_CB_BROADCAST, "the connection to the peer is (again) up"},
};

static const qua_type_t link_type = {
    .name = "link",
    .summary = "forwards items to a callentry published on another quad",
    .state_size = sizeof(link_q_t),
    .params = link_params,
    .nparams = P_COUNT,
    .entries = link_entries,
    .nentries = 1,
    .callbacks = link_callbacks,
    .ncallbacks = 4,
    .ops = {.init = link_init, .fini = link_fini, .describe = link_describe},
};

int quad_link_register(void) { return qua_type_register(&link_type, NULL); }

bool quad_link_is_type(const qua_type_t *t) { return t == &link_type; }

/* --- The peer --------------------------------------------------------------------- */

typedef struct link_peer {
  uint64_t id;
  uint64_t next_seq; /* note 6 */
  quad_conn_t *conn; /* attached to, or NULL */
  qua_site_t *site;  /* on the target, while attached */
  uint64_t binding;
  uint64_t used;     /* for forgetting the least recently used */
  unsigned pending;  /* jobs that open or close a site of it: it is not forgotten meanwhile */
  _Atomic bool room; /* any thread: the target reported notfull */
  bool reported_full;
} link_peer_t;

static quad_map_t peers;
static uint64_t peers_clock, peers_binding;
static _Atomic bool room_pending;

/* The target has room (any thread: its consumer's). */
static void on_room(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  link_peer_t *p = ctx;
  atomic_store_explicit(&p->room, true, memory_order_release);
  atomic_store_explicit(&room_pending, true, memory_order_release);
  uv_async_send(&quad_srv->wake);
}

/* Sites of detached links, closed by a control job (note 9): the peer
 * states stay (pending) until their handlers can no longer run. */
typedef struct site_close {
  quad_job_t job;
  size_t n;
  struct {
    link_peer_t *p;
    qua_site_t *site;
  } s[];
} site_close_t;

static void site_close_work(quad_job_t *j) {
  site_close_t *sc = (site_close_t *)j;
  for (size_t i = 0; i < sc->n; i++)
    qua_site_close(sc->s[i].site); /* the room handler no longer runs */
}

static void site_close_done(quad_job_t *j) {
  site_close_t *sc = (site_close_t *)j;
  for (size_t i = 0; i < sc->n; i++)
    sc->s[i].p->pending--;
  free(sc);
}

static site_close_t *site_close_new(size_t n) {
  site_close_t *sc = malloc(sizeof *sc + n * sizeof sc->s[0]);
  if (sc != NULL) {
    sc->n = 0;
    sc->job.work = site_close_work;
    sc->job.done = site_close_done;
  }
  return sc;
}

/* Adds p's site s to sc, or, when sc is NULL (out of memory, or the
 * exit), closes it here. */
static void site_add(site_close_t *sc, link_peer_t *p, qua_site_t *s) {
  if (s == NULL)
    return;
  if (sc == NULL) {
    qua_site_close(s);
    return;
  }
  sc->s[sc->n].p = p;
  sc->s[sc->n].site = s;
  sc->n++;
  p->pending++;
}

/* Hands sc to the worker (nothing to close: freed). */
static void site_close_submit(site_close_t *sc) {
  if (sc == NULL)
    return;
  if (sc->n == 0) {
    free(sc);
    return;
  }
  quad_job_submit(&sc->job, NULL, false);
}

/* Closes p's site s in a job of its own. */
static void site_close_one(link_peer_t *p, qua_site_t *s) {
  if (s == NULL)
    return;
  site_close_t *sc = site_close_new(1);
  if (sc == NULL)
    quad_log(QUAD_LOG_WARN, "out of memory: a link's site closes on the loop");
  site_add(sc, p, s);
  site_close_submit(sc);
}

/* Detaches p from its connection; its site goes into sc (site_add). */
static void peer_detach(link_peer_t *p, site_close_t *sc) {
  site_add(sc, p, p->site);
  p->site = NULL;
  p->conn = NULL;
  p->reported_full = false;
}

/* A peer state for link id: known, new, or one forgotten to make room. */
static link_peer_t *peer_get(uint64_t id, uint64_t first_seq, char *msg, size_t msglen) {
  link_peer_t *p = quad_map_get(&peers, id);
  if (p != NULL)
    return p;
  if (peers.len >= quad_srv->cfg.max_links) {
    link_peer_t *old = NULL;
    for (size_t i = 0; i < peers.cap; i++) {
      link_peer_t *q = peers.keys[i] != 0 ? peers.vals[i] : NULL;
      if (q != NULL && q->conn == NULL && q->pending == 0 && (old == NULL || q->used < old->used))
        old = q;
    }
    if (old == NULL) {
      snprintf(msg, msglen, "this quad serves %u links, the limit (--max-links), all connected",
               quad_srv->cfg.max_links);
      return NULL;
    }
    quad_map_del(&peers, old->id);
    free(old);
  }
  p = calloc(1, sizeof *p);
  if (p == NULL || quad_map_put(&peers, id, p) < 0) {
    free(p);
    snprintf(msg, msglen, "out of memory");
    return NULL;
  }
  p->id = id;
  p->next_seq = first_seq != 0 ? first_seq : 1;
  atomic_init(&p->room, false);
  return p;
}

/* A LinkOpen on its way through the worker (note 9). */
struct quad_link_open {
  link_peer_t *p;
  qua_quaject_t *q;  /* the target */
  const char *entry; /* its callentry (the type's string) */
  bool notifies;     /* it has "notfull" */
  qua_site_t *site;  /* opened by the work */
};

int quad_link_open_prepare(const Qua__V1__LinkOpenRequest *in, qua_quaject_t *q,
                           quad_link_open_t **out, qua_error_t *err) {
  if (in->link == 0) {
    snprintf(err->msg, sizeof err->msg, "link id 0: ids are non-zero");
    return err->code = QUA_EINVAL;
  }
  const qua_type_t *t = qua_quaject_type(q);
  int e = qua_type_entry(t, in->entry);
  if (e < 0) {
    snprintf(err->msg, sizeof err->msg, "%s (a %s) has no callentry '%.64s'", in->remote,
             t->name, in->entry);
    return err->code = QUA_ENOENTRY;
  }
  const qua_entry_def_t *ed = &t->entries[e];
  if (ed->arity != 1 || !ed->remote) {
    snprintf(err->msg, sizeof err->msg, "%s.%s takes %d argument%s: a link carries one word",
             in->remote, ed->name, ed->arity, ed->arity == 1 ? "" : "s");
    return err->code = QUA_EARITY;
  }
  quad_link_open_t *lo = calloc(1, sizeof *lo);
  if (lo == NULL) {
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return err->code = QUA_ENOMEM;
  }
  link_peer_t *p = peer_get(in->link, in->first_seq, err->msg, sizeof err->msg);
  if (p == NULL) {
    free(lo);
    return err->code = QUA_ELIMIT;
  }
  p->pending++; /* kept until finish */
  lo->p = p;
  lo->q = q;
  lo->entry = ed->name;
  lo->notifies = qua_type_callback(t, "notfull") >= 0;
  *out = lo;
  return 0;
}

int quad_link_open_work(quad_link_open_t *lo, qua_error_t *err) {
  const qua_bind_t handlers[] = {{lo->notifies ? "notfull" : NULL, on_room, lo->p},
                                 {NULL, NULL, NULL}};
  int r = qua_site_open(lo->q, lo->entry, handlers, 0, &lo->site, err);
  if (r < 0) {
    lo->site = NULL;
    if (err->msg[0] == '\0')
      snprintf(err->msg, sizeof err->msg, "%s", qua_strerror(r));
  }
  return r;
}

int quad_link_open_finish(quad_link_open_t *lo, int status, quad_conn_t *c,
                          const Qua__V1__LinkOpenRequest *in, Qua__V1__LinkOpenReply *out,
                          qua_error_t *err) {
  link_peer_t *p = lo->p;
  p->pending--;
  int r = status;
  if (r >= 0 && c->state >= QUAD_CLOSING) {
    snprintf(err->msg, sizeof err->msg, "the connection closed");
    r = err->code = QUA_ESHUTDOWN;
  }
  if (r < 0) {
    site_close_one(p, lo->site); /* opened for a connection that went */
    free(lo);
    return r;
  }
  if (p->conn != NULL)
    quad_log(QUAD_LOG_INFO, "link %016" PRIx64 ": taken over by conn %llu", p->id,
             (unsigned long long)c->serial);
  site_close_one(p, p->site); /* note 8: one connection at a time */
  atomic_store(&p->room, false); /* a late notfull of the old site */
  p->reported_full = false;
  p->site = lo->site;
  p->conn = c;
  p->binding = ++peers_binding;
  p->used = ++peers_clock;
  out->next_seq = p->next_seq;
  out->binding = p->binding;
  out->notifies = lo->notifies;
  quad_log(QUAD_LOG_INFO, "conn %llu: link %016" PRIx64 " to %s.%s open at item %" PRIu64,
           (unsigned long long)c->serial, p->id, in->remote, lo->entry, p->next_seq);
  free(lo);
  return 0;
}

int quad_link_push(quad_conn_t *c, const Qua__V1__LinkPushRequest *in, Qua__V1__LinkPushReply *out,
                   char *msg, size_t msglen) {
  link_peer_t *p = quad_map_get(&peers, in->link);
  if (p == NULL || p->conn != c) {
    snprintf(msg, msglen, "link %016" PRIx64 " is not open on this connection (LinkOpen first; "
             "another connection may have taken it over)", in->link);
    return QUA_ESTATE;
  }
  p->used = ++peers_clock;
  uint64_t seq = in->first_seq;
  if (seq > p->next_seq) {
    out->gap = true; /* note 6: nothing past a gap */
  } else {
    for (size_t i = 0; i < in->n_items; i++, seq++) {
      if (seq < p->next_seq) {
        out->duplicates++;
        continue;
      }
      uint64_t ret; /* a callentry that returns a word (counter.add) has it dropped */
      int r = qua_call(p->site, in->items[i], 0, &ret);
      if (r == QUA_DIVERTED) {
        out->full = true; /* note 7 */
        p->reported_full = true;
        break;
      }
      if (r < 0) {
        snprintf(msg, msglen, "the target refused item %" PRIu64 ": %s", seq, qua_strerror(r));
        return r;
      }
      p->next_seq++;
    }
  }
  out->next_seq = p->next_seq;
  return 0;
}

void quad_link_conn_closed(quad_conn_t *c) {
  size_t n = 0;
  for (size_t i = 0; i < peers.cap; i++) {
    link_peer_t *p = peers.keys != NULL && peers.keys[i] != 0 ? peers.vals[i] : NULL;
    n += p != NULL && p->conn == c && p->site != NULL;
  }
  site_close_t *sc = n > 0 ? site_close_new(n) : NULL;
  if (n > 0 && sc == NULL)
    quad_log(QUAD_LOG_WARN, "out of memory: a closing connection's link sites close on the loop");
  for (size_t i = 0; i < peers.cap; i++) {
    link_peer_t *p = peers.keys != NULL && peers.keys[i] != 0 ? peers.vals[i] : NULL;
    if (p != NULL && p->conn == c)
      peer_detach(p, sc);
  }
  site_close_submit(sc);
}

void quad_link_on_wake(void) {
  if (!atomic_load_explicit(&room_pending, memory_order_relaxed) ||
      !atomic_exchange_explicit(&room_pending, false, memory_order_acq_rel))
    return;
  for (size_t i = 0; i < peers.cap; i++) {
    link_peer_t *p = peers.keys[i] != 0 ? peers.vals[i] : NULL;
    if (p == NULL || !atomic_exchange_explicit(&p->room, false, memory_order_acq_rel))
      continue;
    if (!p->reported_full || p->conn == NULL || p->conn->state >= QUAD_CLOSING)
      continue;
    p->reported_full = false;
    Qua__V1__Event ev = QUA__V1__EVENT__INIT;
    ev.binding = p->binding;
    ev.callback = (char *)"notfull";
    if (quap_event_append(&p->conn->out, &ev) > 0)
      quad_srv->events_sent++;
    quad_conn_flush(p->conn);
  }
}

void quad_link_shutdown(void) {
  for (size_t i = 0; i < peers.cap; i++) {
    link_peer_t *p = peers.keys != NULL && peers.keys[i] != 0 ? peers.vals[i] : NULL;
    if (p != NULL) {
      peer_detach(p, NULL); /* the exit: no job is left (quad.c, maybe_finish) */
      free(p);
    }
  }
  quad_map_fini(&peers);
}
