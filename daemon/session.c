/* session.c -- quad's connections: accept, read and decode frames, write, pause, close.
 *
 * Design note: the session state machine (all on the loop thread).
 *
 *        accept                Hello ok                 close (EOF, error, limit,
 *   ----------> NEW ------------------------> READY     bad token, SIGTERM)
 *                |  (unix: every request is      |            |
 *                |   allowed already)            |            v
 *                +-------------------------------+------> CLOSING --(writes done or
 *                                                                    2 s)--> CLOSED
 *
 *  1. NEW: on TCP only Hello is allowed, and it must carry the token: any
 *     other request, or a wrong token, is answered EAUTH and the connection
 *     goes to CLOSING. On the unix socket the peer was authenticated by the
 *     socket's mode (0660) and every request is allowed; Hello is optional.
 *  2. READY: every method. Requests are processed in order, each to
 *     completion, on the loop thread; a response is appended to `out` and
 *     the whole batch of responses (and events) goes to the socket in one
 *     write after the read that brought the requests (note 7a).
 *  2a. Busy: a control request (Create, Destroy, Wire, ...) is handed to
 *     the worker (work.c) and the connection decodes nothing more until its
 *     reply is appended; then decoding resumes where it stopped. So one
 *     connection's requests are answered in order while others go on. A
 *     close (EOF, error, SIGTERM) that comes while busy is deferred until
 *     the reply is out: the connection leaves the open list at once and
 *     reads nothing more, and enters CLOSING when the job is done.
 *  3. In flight: a request counts from the moment it is decoded until the
 *     write carrying its response completes. At --max-inflight the session
 *     stops decoding (the undecoded bytes stay in rbuf) and stops reading
 *     the socket; the write callback resumes it. So a client that pipelines
 *     but never reads its responses is held back by TCP flow control, and
 *     the daemon holds at most max_inflight responses for it.
 *  4. Read buffering is bounded: rbuf (64 KiB) plus the decoder's one
 *     partial frame, at most --max-frame. A prefix over --max-frame is
 *     answered ETOOBIG (id 0) and closes; so does a frame that is not a
 *     Frame message (EPROTO), because the stream cannot be trusted after it.
 *  5. CLOSING: nothing more is read or dispatched. Entry detaches the
 *     connection's bindings, its handles and the unpublished objects it
 *     owns, and queues their release (unwatch, site close, destroy) as one
 *     job for the worker, which holds the connection's memory until no
 *     handler can call into it; then
 *     queued responses and events are written and the socket shut down; a
 *     timer closes it after 2 s if the peer does not read.
 *  6. CLOSED: uv_close was called; the memory goes in the close callback
 *     (after libuv cancelled any write), or with the last job holding it.
 *  7. Output is bounded in bytes, per connection and in all. A frame counts
 *     from the moment it is appended to `out` until the write carrying it
 *     completes (quad_conn_flush adds it to the daemon's total, on_write
 *     takes it away: the only two places). A connection is "held" when its
 *     bytes reach --max-conn-queued, or when the daemon's total reaches
 *     --max-queued and the connection holds at least its share: an equal
 *     share (--max-queued / open connections) or QUAD_QUEUED_RESERVE,
 *     whichever is less. So the largest holders stop first, and a
 *     connection holding little (a ping) is never held by others. A
 *     held connection dispatches no request (they wait in rbuf, then in the
 *     socket: TCP flow control holds the client back) and takes no event
 *     from its ring (the ring fills, then events are dropped and counted as
 *     in events.c note 2). Its own completed writes release it; a hold by
 *     the total is released, for every connection, once the total falls to
 *     three quarters of --max-queued. The check comes before each request,
 *     so a connection holds at most its bound plus one reply (at most
 *     --max-frame), and the daemon at most --max-queued plus, per
 *     connection, its share and one reply. Events are small and go in only
 *     below QUAD_WRITE_HIGH.
 *     Nobody is disconnected for not reading: what it costs is bounded.
 * 7a. The batch a read brought is written at once (uv_try_write) when no
 *     earlier write is queued: no request, no copy, no callback on the next
 *     turn of the loop, so a lock-step client's round trip costs one read
 *     and one write. Those bytes never count in the totals of note 7; their
 *     responses leave the in-flight count there and then. When the socket
 *     takes only part, the rest is queued by uv_write behind nothing and the
 *     whole batch counts until it completes, as in note 7; and
 *     while a write is queued every later batch queues behind it, so the
 *     order of the stream is kept. What a full write ends (held events,
 *     requests held by the bounds) goes on in the same call (conn_process),
 *     as on_write would resume it.
 *  8. Out of memory: before a request runs, `out` gets room for a small
 *     reply (QUAD_REPLY_ROOM) plus an error (QUAD_ERROR_ROOM); when that
 *     fails the request is not run and is answered ENOMEM in the error
 *     room, which each flush and each earlier request left. So a method
 *     that took effect (Create, Wire, Invoke...) is not reported failed
 *     because its small reply could not be stored. Should even an error
 *     not fit, the connection closes: a stream that lost an answer cannot
 *     be trusted. Methods whose replies can be larger reserve room for
 *     them before they take effect (InvokeBatch).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "quad-internal.h"

typedef struct quad_write {
  uv_write_t req;
  quad_conn_t *c;
  uint8_t *data;
  size_t len;
  unsigned responses;
} quad_write_t;

#define QUAD_CLOSE_GRACE_MS 2000

static void conn_process(quad_conn_t *c);
static void on_hello_timeout(uv_timer_t *t);
static void conn_update_reading(quad_conn_t *c);
static void conn_resume(quad_conn_t *c);
static void conn_dispatch(quad_conn_t *c, const Qua__V1__Frame *f);

/* --- Lifetime --------------------------------------------------------------- */

static void conn_free(quad_conn_t *c) {
  quap_decoder_fini(&c->dec);
  quap_buf_fini(&c->out);
  quad_map_fini(&c->handles);
  quad_map_fini(&c->bindings);
  quad_ring_free(c->ring);
  free(c->rbuf);
  free(c);
}

static void on_handle_closed(uv_handle_t *h) {
  quad_conn_t *c = h->data;
  /* libuv runs close callbacks in no promised order: the last one frees,
   * unless a control job still holds c (work.c note 4). */
  if (--c->closing > 0)
    return;
  quad_srv->nalive--;
  if (quad_srv->stopping)
    uv_async_send(&quad_srv->wake); /* re-check whether everything is done */
  if (c->holds > 0)
    c->freed = true;
  else
    conn_free(c);
}

void quad_conn_hold(quad_conn_t *c) { c->holds++; }

void quad_conn_hold_output(quad_conn_t *c) { c->out_held++; }

void quad_conn_release_output(quad_conn_t *c) {
  assert(c->out_held > 0);
  if (--c->out_held == 0)
    quad_conn_flush(c);
}

void quad_conn_unhold(quad_conn_t *c) {
  assert(c->holds > 0);
  if (--c->holds == 0 && c->freed)
    conn_free(c);
}

static void conn_uv_close(quad_conn_t *c) {
  if (c->state == QUAD_CLOSED)
    return;
  c->state = QUAD_CLOSED;
  c->closing = 2;
  uv_timer_stop(&c->close_timer);
  uv_close((uv_handle_t *)&c->close_timer, on_handle_closed);
  uv_close(&c->u.h, on_handle_closed);
}

static void on_close_timer(uv_timer_t *t) {
  quad_conn_t *c = t->data;
  quad_log(QUAD_LOG_DEBUG, "conn %llu (%s): peer did not take its last bytes; closing",
           (unsigned long long)c->serial, c->peer);
  conn_uv_close(c);
}

static void on_shutdown(uv_shutdown_t *req, int status) {
  conn_uv_close(req->data);
}

static quad_conn_t *conn_new(void) {
  quad_conn_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  c->rbuf = malloc(QUAD_RBUF);
  if (c->rbuf == NULL) {
    free(c);
    return NULL;
  }
  c->serial = ++quad_srv->next_serial;
  quad_srv->nalive++;
  c->state = QUAD_NEW;
  c->next_handle = 1;
  c->next_binding = 1;
  quap_decoder_init(&c->dec, quad_srv->cfg.max_frame);
  quap_buf_init(&c->out);
  quad_map_init(&c->handles);
  quad_map_init(&c->bindings);
  atomic_init(&c->ev_pending, false);
  c->u.h.data = c;
  c->close_timer.data = c;
  c->shutdown_req.data = c;
  return c;
}

static void conn_link(quad_conn_t *c) {
  LIST_INSERT_HEAD(&quad_srv->conns, c, link);
  quad_srv->nconns++;
}

static void conn_unlink(quad_conn_t *c) {
  LIST_REMOVE(c, link);
  quad_srv->nconns--;
}

void quad_conn_close(quad_conn_t *c, const char *why) {
  if (c->state >= QUAD_CLOSING)
    return;
  if (!c->close_deferred) {
    conn_unlink(c);
    if (c->reading) {
      uv_read_stop(&c->u.s);
      c->reading = false;
    }
  }
  if (c->busy > 0) {
    /* A request is on a worker: its answer goes out first (resume). */
    if (!c->close_deferred)
      snprintf(c->close_why, sizeof c->close_why, "%s", why);
    c->close_deferred = true;
    return;
  }
  c->close_deferred = false;
  quad_log(QUAD_LOG_INFO, "conn %llu (%s): closing: %s", (unsigned long long)c->serial, c->peer,
           why);
  /* Events already queued go out before the bindings are released. */
  quad_events_pump(c, true);
  c->state = QUAD_CLOSING;
  quad_conn_release(c);
  quad_conn_flush(c);
  if (c->state == QUAD_CLOSED)
    return; /* the flush failed and closed it */
  uv_timer_start(&c->close_timer, on_close_timer, QUAD_CLOSE_GRACE_MS, 0);
  if (uv_shutdown(&c->shutdown_req, &c->u.s, on_shutdown) < 0)
    conn_uv_close(c);
}

/* --- Output --------------------------------------------------------------------- */

/* Whether c may add to its output with `mine` bytes of at most `limit`
 * waiting (note 7); notes a hold by the total. */
static bool conn_under_bounds(quad_conn_t *c, size_t limit) {
  size_t mine = c->write_bytes + c->out.len;
  if (c->state >= QUAD_CLOSED || mine >= limit)
    return false;
  size_t max = quad_srv->cfg.max_queued;
  size_t share = max / (quad_srv->nconns ? quad_srv->nconns : 1);
  if (share > QUAD_QUEUED_RESERVE)
    share = QUAD_QUEUED_RESERVE;
  if (quad_srv->queued + c->out.len < max || mine < share)
    return true;
  quad_srv->held_by_total = true;
  return false;
}

bool quad_conn_writable(quad_conn_t *c) {
  size_t limit = quad_srv->cfg.max_conn_queued;
  return conn_under_bounds(c, limit < QUAD_WRITE_HIGH ? limit : QUAD_WRITE_HIGH);
}

/* Whether c may dispatch another request (note 7). */
static bool conn_may_dispatch(quad_conn_t *c) {
  return conn_under_bounds(c, quad_srv->cfg.max_conn_queued);
}

/* Connections held by the total go on once it fell to 3/4 of --max-queued. */
static void conns_release_held(void) {
  if (!quad_srv->held_by_total || quad_srv->stopping ||
      quad_srv->queued > quad_srv->cfg.max_queued - quad_srv->cfg.max_queued / 4)
    return;
  quad_srv->held_by_total = false;
  for (quad_conn_t *c = LIST_FIRST(&quad_srv->conns), *next; c != NULL; c = next) {
    next = LIST_NEXT(c, link); /* processing may close c and unlink it */
    conn_resume(c);
  }
}

/* Room again: take waiting events and paused requests. */
static void conn_resume(quad_conn_t *c) {
  quad_events_pump(c, false);
  conn_process(c);
}

/* Every byte of output counts here, from flush to write completion (note 7). */
static void conn_queued_add(quad_conn_t *c, size_t n) {
  c->write_bytes += n;
  quad_srv->queued += n;
  if (quad_srv->queued > quad_srv->queued_peak)
    quad_srv->queued_peak = quad_srv->queued;
}

static void conn_queued_sub(quad_conn_t *c, size_t n) {
  c->write_bytes -= n;
  quad_srv->queued -= n;
}

static void on_write(uv_write_t *req, int status) {
  quad_write_t *w = (quad_write_t *)req;
  quad_conn_t *c = w->c;
  assert(c->inflight >= w->responses); /* every response answers a request counted in flight */
  conn_queued_sub(c, w->len);
  c->inflight -= w->responses;
  free(w->data);
  free(w);
  if (c->state < QUAD_CLOSING) {
    if (status < 0)
      quad_conn_close(c, uv_strerror(status));
    else
      conn_resume(c);
  }
  conns_release_held();
}

/* Queues c's output with uv_write, but for its first `written` bytes, which
 * the socket took already; on_write completes it, and until then all of it
 * counts (note 7). */
static void conn_write_queued(quad_conn_t *c, size_t written) {
  quad_write_t *w = malloc(sizeof *w);
  if (w == NULL) {
    if (c->write_bytes > 0)
      return; /* out of memory: its completion tries again (nothing was written now) */
    quad_log(QUAD_LOG_WARN, "conn %llu (%s): out of memory: cannot write; closing",
             (unsigned long long)c->serial, c->peer);
    conn_uv_close(c);
    return;
  }
  w->c = c;
  w->data = quap_buf_take(&c->out, &w->len);
  w->responses = c->out_responses;
  c->out_responses = 0;
  quap_buf_reserve(&c->out, QUAD_REPLY_ROOM + QUAD_ERROR_ROOM); /* note 8; retried per request */
  conn_queued_add(c, w->len);
  quad_srv->bytes_out += w->len;
  uv_buf_t buf = uv_buf_init((char *)w->data + written, (unsigned)(w->len - written));
  int r = uv_write(&w->req, &c->u.s, &buf, 1, on_write);
  if (r < 0) {
    conn_queued_sub(c, w->len);
    c->inflight -= w->responses;
    free(w->data);
    free(w);
    quad_log(QUAD_LOG_DEBUG, "conn %llu: write: %s", (unsigned long long)c->serial,
             uv_strerror(r));
    if (c->state < QUAD_CLOSING)
      quad_conn_close(c, uv_strerror(r));
    else
      conn_uv_close(c);
  }
}

/* Writes c's output to the socket at once when nothing is queued before it
 * and the connection is open (note 7a). Returns true when all of it went
 * out; otherwise what is left is queued as quad_conn_flush does. */
static bool conn_write_now(quad_conn_t *c) {
  if (c->out.len == 0 || c->state == QUAD_CLOSED || c->out_held > 0)
    return false;
  size_t written = 0;
  if (c->write_bytes == 0 && c->state < QUAD_CLOSING) {
    uv_buf_t buf = uv_buf_init((char *)c->out.data, (unsigned)c->out.len);
    int n = uv_try_write(&c->u.s, &buf, 1);
    if (n > 0 && (size_t)n == c->out.len) {
      quad_srv->bytes_out += c->out.len;
      c->inflight -= c->out_responses;
      c->out_responses = 0;
      c->out.len = 0;
      if (c->out.cap > QUAD_WRITE_HIGH) { /* one large reply does not keep its room */
        quap_buf_fini(&c->out);
        quap_buf_init(&c->out);
      }
      quap_buf_reserve(&c->out, QUAD_REPLY_ROOM + QUAD_ERROR_ROOM); /* note 8 */
      return true;
    }
    if (n > 0) /* the rest waits for the socket, queued behind nothing */
      written = (size_t)n;
    /* UV_EAGAIN: full; another error shows again in uv_write's callback. */
  }
  conn_write_queued(c, written);
  return false;
}

void quad_conn_flush(quad_conn_t *c) {
  if (c->out.len == 0 || c->state == QUAD_CLOSED || c->out_held > 0)
    return;
  conn_write_queued(c, 0);
}

void quad_conn_respond(quad_conn_t *c, uint64_t id, int status, const char *msg,
                       const ProtobufCMessage *out) {
  size_t before = c->out.len;
  int64_t n = quap_response_append(&c->out, id, status, msg, out);
  if (n > 0 && (uint64_t)n - QUAP_HEADER > quad_srv->cfg.max_frame) {
    c->out.len = before;
    char text[96];
    snprintf(text, sizeof text, "response of %lld bytes is over --max-frame",
             (long long)n - QUAP_HEADER);
    n = quap_response_append(&c->out, id, QUA_ETOOBIG, text, NULL);
  }
  if (n < 0) {
    c->out.len = before;
    n = quap_response_append(&c->out, id, (int)n, NULL, NULL);
  }
  if (n < 0) {
    /* Not even the error fits (note 8): this stream lost an answer. */
    c->out.len = before;
    quad_log(QUAD_LOG_WARN, "conn %llu (%s): out of memory: request %llu cannot be answered",
             (unsigned long long)c->serial, c->peer, (unsigned long long)id);
    c->close_after = true;
    return;
  }
  c->out_responses++;
}

/* --- Input ------------------------------------------------------------------------ */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  quad_conn_t *c = h->data;
  /* Reading runs only while rbuf is empty (conn_update_reading). */
  buf->base = (char *)c->rbuf;
  buf->len = QUAD_RBUF;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  quad_conn_t *c = s->data;
  if (nread == 0 || c->state >= QUAD_CLOSING)
    return;
  if (nread < 0) {
    if (nread == UV_EOF) {
      c->eof = true;
      if (quap_decoder_partial(&c->dec))
        quad_log(QUAD_LOG_INFO, "conn %llu (%s): stream ended inside a frame",
                 (unsigned long long)c->serial, c->peer);
      quad_conn_close(c, "peer closed the connection");
    } else {
      quad_conn_close(c, uv_strerror((int)nread));
    }
    return;
  }
  quad_srv->bytes_in += (uint64_t)nread;
  c->rbuf_off = 0;
  c->rbuf_len = (size_t)nread;
  conn_process(c);
}

static void decode_error(quad_conn_t *c, int r) {
  char msg[128];
  bool before_hello = c->tcp && c->state == QUAD_NEW;
  if (r == QUA_ETOOBIG)
    snprintf(msg, sizeof msg, "frame of %lu bytes is over the limit of %zu%s",
             (unsigned long)c->dec.need, c->dec.max_frame, before_hello ? " before Hello" : "");
  else
    snprintf(msg, sizeof msg, "%s", r == QUA_EPROTO ? "frame is not a qua.v1.Frame" : qua_strerror(r));
  if (before_hello)
    quad_hello_failed(c, msg);
  else
    quad_log(QUAD_LOG_INFO, "conn %llu (%s): %s", (unsigned long long)c->serial, c->peer, msg);
  /* The response answers no request: count one in flight for it, as
   * on_write takes one away when it is written. */
  c->inflight++;
  quad_metrics_reply(UINT32_MAX, r);
  quad_conn_respond(c, 0, r, msg, NULL);
  c->close_after = true;
}

int quad_conn_reserve(quad_conn_t *c, size_t reply) {
  return quap_buf_reserve(&c->out, 2 * reply + QUAP_HEADER + 64 + QUAD_ERROR_ROOM);
}

/* Dispatches a request with room for its reply made first (note 8). */
static void conn_dispatch(quad_conn_t *c, const Qua__V1__Frame *f) {
  if (quap_buf_reserve(&c->out, QUAD_REPLY_ROOM + QUAD_ERROR_ROOM) == 0)
    quad_dispatch(c, f);
  else /* into the error room, if it is there */
    quad_conn_respond(c, f->id, QUA_ENOMEM, "out of memory: the request was not run", NULL);
}

/* Decodes and dispatches the buffered bytes until they run out, the
 * in-flight limit is reached, or the connection must close. */
static void conn_decode(quad_conn_t *c) {
  unsigned limit = quad_srv->cfg.max_inflight;
  while (c->state < QUAD_CLOSING && !c->close_after && c->busy == 0 && c->rbuf_off < c->rbuf_len &&
         c->inflight < limit && conn_may_dispatch(c)) {
    size_t used = 0;
    Qua__V1__Frame *f = NULL;
    int r = quap_decoder_feed(&c->dec, c->rbuf + c->rbuf_off, c->rbuf_len - c->rbuf_off, &used, &f);
    c->rbuf_off += used;
    if (r < 0) {
      decode_error(c, r);
      break;
    }
    if (r == 1) {
      c->inflight++;
      quad_srv->requests++;
      if (quad_faultsim_begin != NULL)
        quad_faultsim_begin(f);
      conn_dispatch(c, f);
      if (quad_faultsim_end != NULL)
        quad_faultsim_end();
      quap_frame_free(f);
    }
  }
  if (c->rbuf_off >= c->rbuf_len)
    c->rbuf_off = c->rbuf_len = 0;
}

/* Decodes and dispatches what is buffered and writes the responses. When
 * they went out at once, what waited for that room goes on here, as
 * on_write would resume it: events, then requests held back by the
 * in-flight or byte bounds (note 7a). Each turn wrote something, so the
 * loop ends when the socket is full, or nothing is left to do. */
static void conn_process(quad_conn_t *c) {
  conn_decode(c);
  while (!c->close_after && conn_write_now(c)) {
    quad_events_pump(c, false);
    conn_decode(c);
  }
  if (c->close_after) {
    quad_conn_close(c, "protocol error");
    return;
  }
  conn_update_reading(c);
}

void quad_conn_resume(quad_conn_t *c) {
  assert(c->busy > 0);
  if (--c->busy > 0 || c->state >= QUAD_CLOSING)
    return;
  if (c->close_deferred) {
    /* On SIGTERM the requests already read are answered first (note 2a). */
    if (quad_srv->stopping && c->rbuf_off < c->rbuf_len) {
      conn_process(c);
      if (c->busy > 0 || c->state >= QUAD_CLOSING)
        return;
    }
    quad_conn_close(c, c->close_why);
    return;
  }
  if (quad_srv->stopping)
    return; /* quad_conns_shutdown closes it */
  quad_events_pump(c, false); /* what waited for the reply (a Bind's events) */
  conn_process(c);
}

static void conn_update_reading(quad_conn_t *c) {
  bool want = c->state < QUAD_CLOSING && !c->close_deferred && !quad_srv->stopping && !c->eof &&
              c->rbuf_off == c->rbuf_len && c->inflight < quad_srv->cfg.max_inflight &&
              conn_may_dispatch(c);
  if (want && !c->reading) {
    if (uv_read_start(&c->u.s, on_alloc, on_read) == 0)
      c->reading = true;
  } else if (!want && c->reading) {
    uv_read_stop(&c->u.s);
    c->reading = false;
  }
}

/* --- Accept ---------------------------------------------------------------------- */

static void conn_start(quad_conn_t *c) {
  uv_timer_init(quad_srv->loop, &c->close_timer);
  conn_link(c);
  quad_log(QUAD_LOG_INFO, "conn %llu: accepted from %s", (unsigned long long)c->serial, c->peer);
  conn_update_reading(c);
}

/* A new connection on `server`: a conn whose handle is initialised by
 * `init` and accepted, or NULL (logged; a failed accept closes the conn). */
static quad_conn_t *conn_accept(uv_stream_t *server, int status,
                                void (*init)(quad_conn_t *c)) {
  if (status < 0) {
    quad_log(QUAD_LOG_WARN, "accept: %s", uv_strerror(status));
    return NULL;
  }
  quad_conn_t *c = conn_new();
  if (c == NULL) {
    quad_log(QUAD_LOG_ERROR, "accept: out of memory");
    return NULL;
  }
  init(c);
  c->u.h.data = c;
  if (uv_accept(server, &c->u.s) < 0) {
    quad_log(QUAD_LOG_WARN, "accept failed");
    uv_timer_init(quad_srv->loop, &c->close_timer);
    c->state = QUAD_CLOSING;
    conn_uv_close(c);
    return NULL;
  }
  return c;
}

static void init_pipe(quad_conn_t *c) { uv_pipe_init(quad_srv->loop, &c->u.pipe, 0); }

static void init_tcp(quad_conn_t *c) {
  uv_tcp_init(quad_srv->loop, &c->u.tcp);
  c->tcp = true;
}

/* The supplementary groups the peer on fd had when it connected
 * (SO_PEERGROUPS: the kernel's record, so no group database lookup blocks
 * the loop); their number, in *out (malloc'd, or NULL when none could be
 * read: then only the primary group counts). */
static size_t peer_groups(int fd, uint32_t **out) {
  _Static_assert(sizeof(gid_t) == sizeof(uint32_t), "gid_t is 32 bits");
  socklen_t len = 64 * sizeof(gid_t);
  for (int tries = 0; tries < 2; tries++) {
    gid_t *g = malloc(len ? len : 1);
    if (g == NULL)
      break;
    socklen_t got = len;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &got) == 0) {
      *out = (uint32_t *)g;
      return got / sizeof(gid_t);
    }
    free(g);
    if (errno != ERANGE)
      break;
    len = got; /* the size needed */
  }
  *out = NULL;
  return 0;
}

void quad_on_unix_connection(uv_stream_t *server, int status) {
  quad_conn_t *c = conn_accept(server, status, init_pipe);
  if (c == NULL)
    return;
  uv_os_fd_t fd;
  struct ucred cred;
  socklen_t len = sizeof cred;
  c->ident = QUAD_IDENT_NONE;
  if (uv_fileno(&c->u.h, &fd) == 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
    snprintf(c->peer, sizeof c->peer, "unix pid=%ld uid=%ld gid=%ld", (long)cred.pid,
             (long)cred.uid, (long)cred.gid);
    c->ident = (int64_t)cred.uid;
    char why[192];
    uint32_t *groups = NULL;
    size_t ngroups = peer_groups(fd, &groups);
    bool ok = quad_peer_allowed(cred.uid, cred.gid, groups, ngroups, why, sizeof why);
    free(groups);
    if (!ok) {
      conn_start(c);
      c->inflight++; /* the refusal answers no request: count it (on_write) */
      quad_conn_respond(c, 0, QUA_EPERM, why, NULL);
      quad_conn_close(c, why);
      return;
    }
  } else {
    snprintf(c->peer, sizeof c->peer, "unix (no credentials)");
  }
  conn_start(c);
}

void quad_on_tcp_connection(uv_stream_t *server, int status) {
  quad_conn_t *c = conn_accept(server, status, init_tcp);
  if (c == NULL)
    return;
  uv_tcp_nodelay(&c->u.tcp, 1);
  struct sockaddr_storage ss;
  int len = sizeof ss;
  char host[64] = "?";
  int port = 0;
  if (uv_tcp_getpeername(&c->u.tcp, (struct sockaddr *)&ss, &len) == 0) {
    if (ss.ss_family == AF_INET) {
      uv_ip4_name((struct sockaddr_in *)&ss, host, sizeof host);
      port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    } else if (ss.ss_family == AF_INET6) {
      uv_ip6_name((struct sockaddr_in6 *)&ss, host, sizeof host);
      port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
  }
  snprintf(c->peer, sizeof c->peer, "tcp %s:%d", host, port);
  snprintf(c->host, sizeof c->host, "%s", host);
  c->ident = QUAD_IDENT_TOKEN;
  /* Until Hello: small frames, and a deadline. */
  if (c->dec.max_frame > QUAD_HELLO_FRAME)
    c->dec.max_frame = QUAD_HELLO_FRAME;
  conn_start(c);
  uv_timer_start(&c->close_timer, on_hello_timeout, quad_srv->cfg.hello_timeout_ms, 0);
}

/* --- Hello: handshake timeout and failed-Hello rate limit --------------------- */

static void on_hello_timeout(uv_timer_t *t) {
  quad_conn_t *c = t->data;
  if (c->state != QUAD_NEW)
    return;
  char why[96];
  snprintf(why, sizeof why, "no Hello within %u ms", quad_srv->cfg.hello_timeout_ms);
  quad_hello_failed(c, why);
  quad_conn_close(c, why);
}

void quad_hello_done(quad_conn_t *c) {
  c->dec.max_frame = quad_srv->cfg.max_frame;
  if (c->tcp)
    uv_timer_stop(&c->close_timer);
}

/* Failed Hellos per peer address, in a small table: a peer past the
 * table's size takes the slot whose window started longest ago. */
#define HELLO_PEERS 64

typedef struct hello_peer {
  char host[64];
  uint64_t since;    /* the window's start (uv_now) */
  unsigned fails;    /* failed Hellos in the window */
  unsigned unlogged; /* failures and refusals in the window not logged */
} hello_peer_t;

static hello_peer_t hello_peers[HELLO_PEERS];

/* c's peer's row with its window current, or NULL (none and !make). */
static hello_peer_t *hello_peer(const quad_conn_t *c, bool make) {
  hello_peer_t *p = NULL, *oldest = &hello_peers[0];
  for (int i = 0; i < HELLO_PEERS && p == NULL; i++) {
    if (strcmp(hello_peers[i].host, c->host) == 0)
      p = &hello_peers[i];
    else if (hello_peers[i].since < oldest->since)
      oldest = &hello_peers[i];
  }
  uint64_t now = uv_now(quad_srv->loop);
  if (p == NULL) {
    if (!make)
      return NULL;
    p = oldest;
    snprintf(p->host, sizeof p->host, "%s", c->host);
    p->since = now;
    p->fails = p->unlogged = 0;
  }
  if (now - p->since >= QUAD_HELLO_WINDOW_MS) {
    if (p->unlogged > 0)
      quad_log(QUAD_LOG_WARN, "%s: %u more failed or refused Hellos were not logged", p->host,
               p->unlogged);
    p->since = now;
    p->fails = p->unlogged = 0;
  }
  return p;
}

bool quad_hello_blocked(quad_conn_t *c, char *msg, size_t msglen) {
  hello_peer_t *p = hello_peer(c, false);
  if (p == NULL || p->fails < QUAD_HELLO_FAILS)
    return false;
  uint64_t left = p->since + QUAD_HELLO_WINDOW_MS - uv_now(quad_srv->loop);
  snprintf(msg, msglen, "%u failed Hellos from %s within %d s: refused for %llu ms more",
           p->fails, p->host, QUAD_HELLO_WINDOW_MS / 1000, (unsigned long long)left);
  p->unlogged++;
  return true;
}

void quad_hello_failed(quad_conn_t *c, const char *why) {
  hello_peer_t *p = hello_peer(c, true);
  p->fails++;
  if (p->fails <= QUAD_HELLO_LOGGED)
    quad_log(QUAD_LOG_WARN, "conn %llu (%s): %s%s", (unsigned long long)c->serial, c->peer, why,
             p->fails == QUAD_HELLO_LOGGED ? "; more failures from this address in the next "
                                             "10 s are counted, not logged"
                                           : "");
  else
    p->unlogged++;
}

/* --- Shutdown -------------------------------------------------------------------- */

/* Closing connections are in no list: walk the loop's handles for them. */
static void force_close_one(uv_handle_t *h, void *arg) {
  if (h->type != UV_NAMED_PIPE && h->type != UV_TCP)
    return;
  if (h == (uv_handle_t *)&quad_srv->unix_listener || h == (uv_handle_t *)&quad_srv->tcp_listener)
    return;
  quad_conn_t *c = h->data;
  if (c != NULL && (c->state == QUAD_CLOSING || (c->state < QUAD_CLOSING && c->close_deferred)))
    conn_uv_close(c);
}

void quad_conns_force_close(void) {
  quad_conns_shutdown();
  uv_walk(quad_srv->loop, force_close_one, NULL);
}

/* The stop: what c's socket already holds goes into its empty rbuf (one
 * non-blocking read, at most QUAD_RBUF), as the loop would have read it
 * had the signal come a moment later. */
static void conn_take_pending(quad_conn_t *c) {
  uv_os_fd_t fd;
  if (!c->reading || c->rbuf_off < c->rbuf_len || uv_fileno(&c->u.h, &fd) != 0)
    return;
  ssize_t n;
  do
    n = recv(fd, c->rbuf, QUAD_RBUF, MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return; /* nothing, or an EOF or error that the close reports */
  quad_srv->bytes_in += (uint64_t)n;
  c->rbuf_off = 0;
  c->rbuf_len = (size_t)n;
}

void quad_conns_shutdown(void) {
  while (!LIST_EMPTY(&quad_srv->conns)) {
    quad_conn_t *c = LIST_FIRST(&quad_srv->conns);
    /* Requests that reached quad before the stop are answered before the
     * connection closes, up to --max-inflight: what is past it was not
     * taken and gets no answer. */
    conn_take_pending(c);
    if (c->rbuf_off < c->rbuf_len)
      conn_process(c);
    if (c->state < QUAD_CLOSING)
      quad_conn_close(c, "daemon is shutting down");
  }
}
