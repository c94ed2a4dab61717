/* quaclient.c -- libquaclient: connections, blocking calls, pipelined invokes and events.
 *
 * Design note.
 *
 * 1. One connection is one non-blocking socket, one output buffer (framed
 *    requests not yet written) and one incremental decoder (proto/frame.h).
 *    Nothing is ever framed by hand.
 * 2. Every frame that arrives is sorted at once by pump(): an EVENT goes to
 *    the event queue, a RESPONSE to the response queue (a FIFO), unless its
 *    id is one a timed-out call abandoned, which is dropped. A blocking call
 *    waits until its id is in the response queue and takes it out; a
 *    pipelined receive takes the oldest. Events are dispatched only by
 *    quac_poll(), so the program's event function never runs inside
 *    another call.
 * 3. Writing never waits without reading: while output is pending, pump()
 *    polls for both directions and sorts what arrives, so a client that
 *    pipelines more than the socket buffers hold cannot deadlock with a
 *    daemon that is blocked writing its responses.
 * 4. A connection dies on EOF, on a socket error and on undecodable input
 *    (the stream is out of step): every later call returns QUA_ECONN (or the
 *    decoding error) at once, but responses already queued are still handed
 *    out, so a refusal followed by a close (EAUTH) reads as the refusal.
 * 5. quad answers a connection's requests in order, so once the response
 *    to id X arrives, no response to an id below X is still to come: the
 *    abandoned ids below X are forgotten. At most QUAC_ABANDONED are kept;
 *    a timeout past that ends the connection (QUA_ETIMEDOUT, then every
 *    call fails), as its stream could no longer be kept in step.
 * 6. The event queue holds at most the event limit (quac_set_event_limit);
 *    events arriving past it are discarded and counted
 *    (quac_events_discarded), so a program that only makes blocking calls
 *    and never polls holds bounded memory.
 * 7. The socket stays in blocking mode and every read and write that must
 *    not wait says so (MSG_DONTWAIT). A blocking call, once its request is
 *    written, waits for the answer in recv(2) itself, bounded by the
 *    socket's receive timeout (SO_RCVTIMEO, kept equal to the call timeout),
 *    instead of poll(2) then recv(2): one system call less per round trip.
 *    The wait starts just after the call's deadline is taken, so it ends at
 *    most the time of one send past it. Any later wait of the same call
 *    (events came first, part of a frame) and every other wait polls.
 */
#include "quaclient.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"

/* Largest frame the client accepts from the daemon (lists can be long). */
#define QUAC_MAX_IN_FRAME (64u << 20)
/* Bytes read from the socket at a time. */
#define QUAC_READ_CHUNK 65536
/* Pipelined requests are written once this many bytes are buffered. */
#define QUAC_WRITE_BATCH 32768
/* Abandoned request ids (timed-out calls whose responses have not come)
 * remembered; one more timeout past it ends the connection (note 5). */
#define QUAC_ABANDONED 256
/* Events queued by default before arriving ones are discarded (note 6). */
#define QUAC_EVENTS_DEFAULT 65536

typedef struct queued_event {
  quac_event_t ev;
  char callback[QUAC_NAME_MAX + 1];
} queued_event_t;

/* A FIFO of pointers, growing by doubling. */
typedef struct fifo {
  void **items;
  size_t head, len, cap;
} fifo_t;

struct quac_conn {
  int fd;
  int timeout_ms;
  bool rcvtimeo_ok;       /* SO_RCVTIMEO is timeout_ms (note 7) */
  bool dead;
  int dead_code;          /* what calls return once dead */
  uint64_t next_id;
  quap_buf_t out;         /* framed, not yet written */
  size_t out_off;         /* bytes of out already written */
  quap_decoder_t dec;
  fifo_t responses;       /* Qua__V1__Frame * in arrival order */
  fifo_t events;          /* queued_event_t * */
  size_t async_outstanding;
  uint64_t abandoned[QUAC_ABANDONED];
  unsigned nabandoned;
  size_t event_limit;
  uint64_t events_discarded;
  quac_event_fn on_event;
  void *on_event_ctx;
  quac_server_info_t info;
  char err[256];
  uint8_t rbuf[QUAC_READ_CHUNK];
};

static _Thread_local char connect_error[256];

/* --- Errors ------------------------------------------------------------------- */

const char *quac_strerror(int err) { return qua_status_message(err); }

const char *quac_err_name(int err) { return qua_status_name(err); }

/* Sets the connection's last error (c NULL: this thread's connect error) and
 * returns code. */
static int seterr(quac_conn_t *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int seterr(quac_conn_t *c, int code, const char *fmt, ...) {
  char *buf = c != NULL ? c->err : connect_error;
  size_t len = c != NULL ? sizeof c->err : sizeof connect_error;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
  return code;
}

const char *quac_last_error(const quac_conn_t *c) { return c != NULL ? c->err : connect_error; }

/* --- Small containers ---------------------------------------------------------- */

static int fifo_push(fifo_t *q, void *p) {
  if (q->len == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 16;
    void **items = malloc(cap * sizeof *items);
    if (items == NULL)
      return QUA_ENOMEM;
    for (size_t i = 0; i < q->len; i++)
      items[i] = q->items[(q->head + i) % q->cap];
    free(q->items);
    q->items = items;
    q->head = 0;
    q->cap = cap;
  }
  q->items[(q->head + q->len) % q->cap] = p;
  q->len++;
  return 0;
}

static void *fifo_pop(fifo_t *q) {
  if (q->len == 0)
    return NULL;
  void *p = q->items[q->head];
  q->head = (q->head + 1) % q->cap;
  q->len--;
  return p;
}

/* Removes and returns the response with this id, or NULL. */
static Qua__V1__Frame *fifo_take_id(fifo_t *q, uint64_t id) {
  for (size_t i = 0; i < q->len; i++) {
    Qua__V1__Frame *f = q->items[(q->head + i) % q->cap];
    if (f->id != id)
      continue;
    for (size_t k = i; k > 0; k--)
      q->items[(q->head + k) % q->cap] = q->items[(q->head + k - 1) % q->cap];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return f;
  }
  return NULL;
}

/* --- Results: one block, freed by quac_free ---------------------------------------- */

/* A result block starts with this header; the caller's pointer is past it. */
typedef struct result_hdr {
  ProtobufCMessage *keep; /* the unpacked reply whose strings the result points into */
} result_hdr_t;

#define RESULT_HDR_SIZE \
  ((sizeof(result_hdr_t) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t))

static void *result_new(size_t size, ProtobufCMessage *keep) {
  uint8_t *p = calloc(1, RESULT_HDR_SIZE + size);
  if (p == NULL)
    return NULL;
  ((result_hdr_t *)(void *)p)->keep = keep;
  return p + RESULT_HDR_SIZE;
}

void quac_free(void *result) {
  if (result == NULL)
    return;
  uint8_t *p = (uint8_t *)result - RESULT_HDR_SIZE;
  result_hdr_t *h = (result_hdr_t *)(void *)p;
  if (h->keep != NULL)
    protobuf_c_message_free_unpacked(h->keep, NULL);
  free(p);
}

/* --- Time ------------------------------------------------------------------------- */

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Absolute deadline for a timeout (-1: none). */
static int64_t deadline_of(int timeout_ms) { return timeout_ms < 0 ? -1 : now_ms() + timeout_ms; }

/* Milliseconds left before a deadline, for poll(2). */
static int left_of(int64_t deadline) {
  if (deadline < 0)
    return -1;
  int64_t left = deadline - now_ms();
  return left <= 0 ? 0 : (left > 1000000 ? 1000000 : (int)left);
}

/* --- The connection's I/O ----------------------------------------------------------- */

static int die(quac_conn_t *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int die(quac_conn_t *c, int code, const char *fmt, ...) {
  if (!c->dead) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    c->dead = true;
    c->dead_code = code;
  }
  return c->dead_code;
}

/* True when id is an abandoned request's (then forgotten); every
 * abandoned id below it is forgotten too (note 5). */
static bool is_abandoned(quac_conn_t *c, uint64_t id) {
  bool found = false;
  for (unsigned i = 0; i < c->nabandoned;) {
    if (c->abandoned[i] <= id) {
      found |= c->abandoned[i] == id;
      c->abandoned[i] = c->abandoned[--c->nabandoned];
    } else {
      i++;
    }
  }
  return found;
}

/* Sorts one decoded frame into the event or response queue (note 2). */
static int sort_frame(quac_conn_t *c, Qua__V1__Frame *f) {
  if (f->kind == QUA__V1__FRAME__KIND__EVENT && c->events.len >= c->event_limit) {
    c->events_discarded++;
    quap_frame_free(f);
    return 0;
  }
  if (f->kind == QUA__V1__FRAME__KIND__EVENT) {
    queued_event_t *q = calloc(1, sizeof *q);
    if (q == NULL) {
      quap_frame_free(f);
      return QUA_ENOMEM;
    }
    const Qua__V1__Event *e = f->event;
    if (e != NULL) {
      q->ev.binding = e->binding;
      q->ev.handle = e->handle;
      q->ev.arg = e->arg;
      q->ev.seq = e->seq;
      q->ev.dropped = e->dropped;
      snprintf(q->callback, sizeof q->callback, "%s", e->callback ? e->callback : "");
    }
    quap_frame_free(f);
    int r = fifo_push(&c->events, q);
    if (r < 0)
      free(q);
    return r;
  }
  if (f->kind != QUA__V1__FRAME__KIND__RESPONSE || is_abandoned(c, f->id)) {
    quap_frame_free(f);
    return 0;
  }
  int r = fifo_push(&c->responses, f);
  if (r < 0)
    quap_frame_free(f);
  return r;
}

/* Writes what it can of the output buffer without waiting. 0 or an error. */
static int write_some(quac_conn_t *c) {
  while (c->out_off < c->out.len) {
    ssize_t n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->out_off += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return 0;
    return die(c, QUA_ECONN, "write to quad: %s", n < 0 ? strerror(errno) : "closed");
  }
  c->out.len = c->out_off = 0;
  return 0;
}

/* Reads what has arrived and sorts the frames; with `wait`, the first read
 * waits for bytes up to the socket's receive timeout (note 7). Returns how
 * many frames arrived (0 too when that wait ended by the timeout or a
 * signal), or an error (the connection is then dead). */
static int read_some(quac_conn_t *c, bool wait) {
  int frames = 0;
  for (;;) {
    ssize_t n = recv(c->fd, c->rbuf, sizeof c->rbuf, wait ? 0 : MSG_DONTWAIT);
    if (n < 0 && errno == EINTR && !wait)
      continue;
    wait = false;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return frames;
    if (n <= 0) {
      die(c, QUA_ECONN, "quad closed the connection%s%s", n < 0 ? ": " : "",
          n < 0 ? strerror(errno) : "");
      return frames > 0 ? frames : c->dead_code;
    }
    size_t off = 0;
    while (off < (size_t)n) {
      size_t used;
      Qua__V1__Frame *f = NULL;
      int r = quap_decoder_feed(&c->dec, c->rbuf + off, (size_t)n - off, &used, &f);
      off += used;
      if (r < 0)
        return die(c, r, "undecodable input from quad: %s", quac_strerror(r));
      if (r == 1) {
        int s = sort_frame(c, f);
        if (s < 0)
          return die(c, s, "out of memory");
        frames++;
      }
    }
    if ((size_t)n < sizeof c->rbuf)
      return frames;
  }
}

/* Moves bytes both ways, waiting at most until the deadline for something
 * to arrive, or only until the output is written when `flushing` (note 3).
 * `call_wait`: the deadline is a blocking call's, just taken, so a first wait
 * with nothing left to write may be the socket's own (note 7). Returns how
 * many frames arrived (0 on timeout, when a signal interrupted the wait, or
 * when flushing is done), or an error. */
static int pump_io(quac_conn_t *c, int64_t deadline, bool flushing, bool call_wait) {
  if (c->dead)
    return c->dead_code;
  for (;; call_wait = false) {
    int r = write_some(c);
    if (r < 0)
      return r;
    if (flushing && c->out_off == c->out.len)
      return 0;
    if (call_wait && c->out_off == c->out.len && c->rcvtimeo_ok) {
      r = read_some(c, true);
      if (r != 0 || c->dead)
        return c->dead ? c->dead_code : r;
      if (deadline >= 0 && now_ms() >= deadline)
        return 0;
      continue; /* part of a frame, a timeout cut short or a signal: poll on */
    }
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (c->out_off < c->out.len)
      p.events |= POLLOUT;
    int n = poll(&p, 1, left_of(deadline));
    if (n < 0)
      return errno == EINTR ? 0 : die(c, QUA_ECONN, "poll: %s", strerror(errno));
    if (n == 0)
      return 0;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      r = read_some(c, false);
      if (r != 0)
        return r;
      if (c->dead)
        return c->dead_code;
    }
    if (!(p.revents & POLLIN) && (p.revents & (POLLHUP | POLLERR)))
      return die(c, QUA_ECONN, "quad closed the connection");
  }
}

static int pump(quac_conn_t *c, int64_t deadline) { return pump_io(c, deadline, false, false); }

/* Waits for the response to request id. Returns 0 with *out, or an error. */
static int wait_response(quac_conn_t *c, uint64_t id, Qua__V1__Frame **out) {
  int64_t deadline = deadline_of(c->timeout_ms);
  bool first = true;
  for (;;) {
    Qua__V1__Frame *f = fifo_take_id(&c->responses, id);
    if (f != NULL) {
      *out = f;
      return 0;
    }
    if (c->dead)
      return c->dead_code;
    if (deadline >= 0 && now_ms() >= deadline) {
      if (c->nabandoned == QUAC_ABANDONED)
        return die(c, QUA_ETIMEDOUT,
                   "%d calls timed out and their responses have not come: the connection "
                   "is given up",
                   QUAC_ABANDONED + 1);
      c->abandoned[c->nabandoned++] = id;
      return seterr(c, QUA_ETIMEDOUT, "no response from quad within %d ms", c->timeout_ms);
    }
    /* A failure kills the connection; the next turn still looks for the
     * response first (note 4). */
    (void)pump_io(c, deadline, false, first);
    first = false;
  }
}

/* Appends a request; returns its id or an error. */
static int64_t queue_request(quac_conn_t *c, unsigned method, const ProtobufCMessage *in) {
  if (c->dead)
    return c->dead_code;
  uint64_t id = ++c->next_id;
  int64_t r = quap_request_append(&c->out, id, method, in);
  if (r < 0)
    return seterr(c, (int)r, "cannot encode request: %s", quac_strerror((int)r));
  return (int64_t)id;
}

/* One blocking call: sends in, waits, unpacks the output into *out (when
 * out is not NULL) through alloc (NULL: malloc; free *out with
 * protobuf_c_message_free_unpacked(*out, alloc)). Returns 0 or the daemon's
 * status with its message in c->err. */
static int call_in(quac_conn_t *c, unsigned method, const ProtobufCMessage *in,
                   ProtobufCAllocator *alloc, ProtobufCMessage **out) {
  if (out != NULL)
    *out = NULL;
  int64_t id = queue_request(c, method, in);
  if (id < 0)
    return (int)id;
  Qua__V1__Frame *f = NULL;
  int r = wait_response(c, (uint64_t)id, &f);
  if (r < 0)
    return r;
  ProtobufCMessage *msg = NULL;
  r = quap_response_unpack_in(f, method, alloc, &msg);
  if (r < 0) {
    if (f->status < 0 && f->message != NULL && f->message[0] != '\0')
      seterr(c, r, "%s", f->message);
    else
      seterr(c, r, "%s", quac_strerror(r));
  } else {
    c->err[0] = '\0';
  }
  quap_frame_free(f);
  if (r < 0)
    return r;
  if (out != NULL)
    *out = msg;
  else if (msg != NULL)
    quap_message_free(msg, alloc);
  return 0;
}

static int call(quac_conn_t *c, unsigned method, const ProtobufCMessage *in, ProtobufCMessage **out) {
  return call_in(c, method, in, NULL, out);
}

/* --- Connecting ------------------------------------------------------------------------ */

static int hello(quac_conn_t *c, const char *token, const char *client) {
  Qua__V1__HelloRequest req = QUA__V1__HELLO_REQUEST__INIT;
  req.version = QUAC_PROTOCOL_VERSION;
  req.token = (char *)(token != NULL ? token : "");
  req.client = (char *)(client != NULL ? client : "libquaclient");
  ProtobufCMessage *out;
  int r = call(c, QUAP_HELLO, &req.base, &out);
  if (r < 0)
    return r;
  Qua__V1__HelloReply *rep = (Qua__V1__HelloReply *)out;
  c->info.version = rep->version;
  snprintf(c->info.server, sizeof c->info.server, "%s", rep->server ? rep->server : "");
  c->info.max_frame = rep->max_frame;
  c->info.max_inflight = rep->max_inflight;
  c->info.max_quajects = rep->max_quajects;
  protobuf_c_message_free_unpacked(out, NULL);
  return 0;
}

/* Makes the socket's receive timeout the call timeout (note 7); when it
 * cannot be set, blocking calls wait in poll(2). */
static void set_rcvtimeo(quac_conn_t *c) {
  int ms = c->timeout_ms < 0 ? 0 : c->timeout_ms; /* 0: no timeout */
  struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
  c->rcvtimeo_ok = c->timeout_ms != 0 &&
                   setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0;
}

/* Wraps a connected socket in a connection and says Hello. */
static int finish_connect(int fd, const char *where, const char *token, const char *client,
                          quac_conn_t **out) {
  quac_conn_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    close(fd);
    return seterr(NULL, QUA_ENOMEM, "out of memory");
  }
  c->fd = fd;
  c->timeout_ms = 30000;
  c->event_limit = QUAC_EVENTS_DEFAULT;
  quap_buf_init(&c->out);
  quap_decoder_init(&c->dec, QUAC_MAX_IN_FRAME);
  set_rcvtimeo(c); /* the socket is in blocking mode, as made (note 7) */
  int r = hello(c, token, client);
  if (r < 0) {
    seterr(NULL, r, "%s: %s", where, c->err[0] ? c->err : quac_strerror(r));
    quac_close(c);
    return r;
  }
  connect_error[0] = '\0';
  *out = c;
  return 0;
}

int quac_connect_unix(const char *path, const char *client, quac_conn_t **out) {
  *out = NULL;
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (path == NULL || strlen(path) >= sizeof sa.sun_path)
    return seterr(NULL, QUA_EINVAL, "socket path too long");
  memcpy(sa.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return seterr(NULL, QUA_ECONN, "socket: %s", strerror(errno));
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    int e = errno;
    close(fd);
    return seterr(NULL, QUA_ECONN, "%s: %s", path, strerror(e));
  }
  return finish_connect(fd, path, NULL, client, out);
}

int quac_connect_tcp(const char *host, unsigned port, const char *token, const char *client,
                     quac_conn_t **out) {
  *out = NULL;
  char service[16];
  snprintf(service, sizeof service, "%u", port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *ai = NULL;
  int g = getaddrinfo(host, service, &hints, &ai);
  if (g != 0)
    return seterr(NULL, QUA_ECONN, "%s: %s", host, gai_strerror(g));
  int fd = -1, e = 0;
  for (struct addrinfo *a = ai; a != NULL && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
      e = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(ai);
  if (fd < 0)
    return seterr(NULL, QUA_ECONN, "%s:%u: %s", host, port, strerror(e));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char where[300];
  snprintf(where, sizeof where, "%s:%u", host, port);
  return finish_connect(fd, where, token, client, out);
}

void quac_close(quac_conn_t *c) {
  if (c == NULL)
    return;
  if (c->fd >= 0)
    close(c->fd);
  quap_buf_fini(&c->out);
  quap_decoder_fini(&c->dec);
  void *p;
  while ((p = fifo_pop(&c->responses)) != NULL)
    quap_frame_free(p);
  while ((p = fifo_pop(&c->events)) != NULL)
    free(p);
  free(c->responses.items);
  free(c->events.items);
  free(c);
}

const quac_server_info_t *quac_server_info(const quac_conn_t *c) { return &c->info; }

void quac_set_timeout(quac_conn_t *c, int timeout_ms) {
  c->timeout_ms = timeout_ms;
  set_rcvtimeo(c);
}

void quac_set_event_limit(quac_conn_t *c, size_t n) { c->event_limit = n > 0 ? n : 1; }

uint64_t quac_events_discarded(const quac_conn_t *c) { return c->events_discarded; }

int quac_fd(const quac_conn_t *c) { return c->fd; }

size_t quac_pending(const quac_conn_t *c) { return c->responses.len + c->events.len; }

/* --- Types ------------------------------------------------------------------------------ */

/* A type's lists as the protocol's TypeInfo carries them (repeated fields
 * of these names) and as quac_type_info_t holds them; each field of their
 * elements by its name in the protocol and its place in the library's
 * struct. One loop copies every list, and each element whichever fields
 * its message has (a callback has no arity: it stays 0). */
typedef struct field_map {
  const char *name;
  size_t off;
  ProtobufCType type; /* STRING (a pointer into the kept reply), UINT32, UINT64 or BOOL */
} field_map_t;

#define PF(m, ty) {#m, offsetof(quac_param_info_t, m), PROTOBUF_C_TYPE_##ty}
#define MF(m, ty) {#m, offsetof(quac_member_info_t, m), PROTOBUF_C_TYPE_##ty}
static const field_map_t param_fields[] = {PF(name, STRING), PF(def, UINT64), PF(min, UINT64),
                                           PF(max, UINT64),  PF(pow2, BOOL),  PF(text, BOOL),
                                           PF(required, BOOL), PF(help, STRING), {NULL, 0, 0}};
static const field_map_t member_fields[] = {MF(name, STRING), MF(arity, UINT32),
                                            MF(returns, BOOL), MF(remote, BOOL),
                                            MF(broadcast, BOOL), MF(help, STRING), {NULL, 0, 0}};

static const struct type_list {
  const char *name; /* TypeInfo's field */
  size_t count_off, array_off, elem_size; /* in quac_type_info_t */
  const field_map_t *fields;
} type_lists[] = {
#define TL(n, f, T, fields) {#f, offsetof(quac_type_info_t, n), offsetof(quac_type_info_t, f), \
                             sizeof(T), fields}
    TL(nparams, params, quac_param_info_t, param_fields),
    TL(nentries, entries, quac_member_info_t, member_fields),
    TL(ncallouts, callouts, quac_member_info_t, member_fields),
    TL(ncallbacks, callbacks, quac_member_info_t, member_fields),
#undef TL
};
#define NTYPE_LISTS (sizeof type_lists / sizeof type_lists[0])
/* The lists' elements follow one another in one allocation. */
_Static_assert(sizeof(quac_type_info_t) % _Alignof(quac_param_info_t) == 0 &&
                   sizeof(quac_param_info_t) % _Alignof(quac_member_info_t) == 0 &&
                   sizeof(quac_member_info_t) % _Alignof(quac_param_info_t) == 0,
               "type list elements keep their alignment");

/* Copies the fields of message m that map names into dst. */
static void fields_copy(void *dst, const ProtobufCMessage *m, const field_map_t *map) {
  for (; map->name != NULL; map++) {
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field_by_name(m->descriptor, map->name);
    if (fd == NULL || fd->type != map->type || fd->label == PROTOBUF_C_LABEL_REPEATED)
      continue;
    const char *src = (const char *)m + fd->offset;
    char *to = (char *)dst + map->off;
    switch (map->type) {
    case PROTOBUF_C_TYPE_STRING: *(const char **)to = *(const char *const *)src; break;
    case PROTOBUF_C_TYPE_UINT32: *(uint32_t *)to = *(const uint32_t *)src; break;
    case PROTOBUF_C_TYPE_UINT64: *(uint64_t *)to = *(const uint64_t *)src; break;
    case PROTOBUF_C_TYPE_BOOL: *(bool *)to = *(const protobuf_c_boolean *)src != 0; break;
    default: break;
    }
  }
}

/* TypeInfo ti's list l: its messages and how many. */
static ProtobufCMessage *const *type_list_of(const Qua__V1__TypeInfo *ti,
                                             const struct type_list *l, size_t *n) {
  const ProtobufCFieldDescriptor *fd =
      protobuf_c_message_descriptor_get_field_by_name(ti->base.descriptor, l->name);
  if (fd == NULL || fd->label != PROTOBUF_C_LABEL_REPEATED || fd->type != PROTOBUF_C_TYPE_MESSAGE) {
    *n = 0;
    return NULL;
  }
  *n = *(const size_t *)((const char *)ti + fd->quantifier_offset);
  return *(ProtobufCMessage *const *const *)((const char *)ti + fd->offset);
}

int quac_list_types(quac_conn_t *c, quac_type_list_t **out) {
  *out = NULL;
  Qua__V1__ListTypesRequest req = QUA__V1__LIST_TYPES_REQUEST__INIT;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_LIST_TYPES, &req.base, &msg);
  if (r < 0)
    return r;
  Qua__V1__ListTypesReply *rep = (Qua__V1__ListTypesReply *)msg;
  size_t size = sizeof(quac_type_list_t) + rep->n_types * sizeof(quac_type_info_t);
  for (size_t i = 0; i < rep->n_types; i++)
    for (size_t k = 0; k < NTYPE_LISTS; k++) {
      size_t n;
      type_list_of(rep->types[i], &type_lists[k], &n);
      size += n * type_lists[k].elem_size;
    }
  quac_type_list_t *l = result_new(size, msg);
  if (l == NULL) {
    protobuf_c_message_free_unpacked(msg, NULL);
    return seterr(c, QUA_ENOMEM, "out of memory");
  }
  quac_type_info_t *types = (quac_type_info_t *)(l + 1);
  char *elems = (char *)(types + rep->n_types); /* every list's elements, 8-byte sized */
  l->ntypes = rep->n_types;
  l->types = types;
  for (size_t i = 0; i < rep->n_types; i++) {
    const Qua__V1__TypeInfo *ti = rep->types[i];
    quac_type_info_t *t = &types[i];
    t->name = ti->name;
    t->summary = ti->summary;
    for (size_t k = 0; k < NTYPE_LISTS; k++) {
      const struct type_list *tl = &type_lists[k];
      size_t n;
      ProtobufCMessage *const *ms = type_list_of(ti, tl, &n);
      *(size_t *)((char *)t + tl->count_off) = n;
      *(const void **)((char *)t + tl->array_off) = elems;
      for (size_t e = 0; e < n; e++, elems += tl->elem_size)
        fields_copy(elems, ms[e], tl->fields);
    }
  }
  *out = l;
  return 0;
}

const quac_type_info_t *quac_type_find(const quac_type_list_t *l, const char *name) {
  for (size_t i = 0; l != NULL && name != NULL && i < l->ntypes; i++)
    if (strcmp(l->types[i].name, name) == 0)
      return &l->types[i];
  return NULL;
}

/* --- Quajects ------------------------------------------------------------------------------ */

int quac_create(quac_conn_t *c, const char *type, const char *const *params, size_t nparams,
                const char *name, uint64_t *handle, uint64_t *id) {
  Qua__V1__CreateRequest req = QUA__V1__CREATE_REQUEST__INIT;
  req.type = (char *)type;
  req.n_params = nparams;
  req.params = (char **)params;
  if (name != NULL)
    req.name = (char *)name;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_CREATE, &req.base, &msg);
  if (r < 0)
    return r;
  Qua__V1__CreateReply *rep = (Qua__V1__CreateReply *)msg;
  if (handle != NULL)
    *handle = rep->handle;
  if (id != NULL)
    *id = rep->id;
  protobuf_c_message_free_unpacked(msg, NULL);
  return 0;
}

int quac_destroy(quac_conn_t *c, uint64_t handle, bool force) {
  Qua__V1__DestroyRequest req = QUA__V1__DESTROY_REQUEST__INIT;
  req.handle = handle;
  req.force = force;
  return call(c, QUAP_DESTROY, &req.base, NULL);
}

int quac_close_queue(quac_conn_t *c, uint64_t handle) {
  Qua__V1__CloseRequest req = QUA__V1__CLOSE_REQUEST__INIT;
  req.handle = handle;
  return call(c, QUAP_CLOSE, &req.base, NULL);
}

int quac_publish(quac_conn_t *c, uint64_t handle, const char *name) {
  Qua__V1__PublishRequest req = QUA__V1__PUBLISH_REQUEST__INIT;
  req.handle = handle;
  req.name = (char *)name;
  return call(c, QUAP_PUBLISH, &req.base, NULL);
}

int quac_unpublish(quac_conn_t *c, const char *name) {
  Qua__V1__UnpublishRequest req = QUA__V1__UNPUBLISH_REQUEST__INIT;
  req.name = (char *)name;
  return call(c, QUAP_UNPUBLISH, &req.base, NULL);
}

int quac_open(quac_conn_t *c, const char *name, quac_opened_t *out) {
  Qua__V1__OpenRequest req = QUA__V1__OPEN_REQUEST__INIT;
  req.name = (char *)name;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_OPEN, &req.base, &msg);
  if (r < 0)
    return r;
  Qua__V1__OpenReply *rep = (Qua__V1__OpenReply *)msg;
  out->handle = rep->handle;
  out->id = rep->id;
  snprintf(out->type, sizeof out->type, "%s", rep->type ? rep->type : "");
  protobuf_c_message_free_unpacked(msg, NULL);
  return 0;
}

int quac_wire(quac_conn_t *c, uint64_t src, const char *callout, uint64_t dst, const char *entry) {
  Qua__V1__WireRequest req = QUA__V1__WIRE_REQUEST__INIT;
  req.src = src;
  req.callout = (char *)callout;
  req.dst = dst;
  req.entry = (char *)entry;
  return call(c, QUAP_WIRE, &req.base, NULL);
}

int quac_unwire(quac_conn_t *c, uint64_t src, const char *callout) {
  Qua__V1__UnwireRequest req = QUA__V1__UNWIRE_REQUEST__INIT;
  req.src = src;
  req.callout = (char *)callout;
  return call(c, QUAP_UNWIRE, &req.base, NULL);
}

/* --- Invoking --------------------------------------------------------------------------------- */

static void fill_invoke_request(Qua__V1__InvokeRequest *req, uint64_t handle, const char *entry,
                                const uint64_t *args, size_t nargs) {
  qua__v1__invoke_request__init(req);
  req->handle = handle;
  req->entry = (char *)entry;
  req->n_args = nargs;
  req->args = (uint64_t *)args;
}

static void fill_result(quac_result_t *res, const Qua__V1__InvokeReply *rep) {
  res->status = rep->status;
  res->has_result = rep->has_result;
  res->result = rep->result;
  res->nfired = rep->n_fired;
  for (size_t i = 0; i < rep->n_fired && i < QUAC_MAX_FIRED; i++) {
    snprintf(res->fired[i].callback, sizeof res->fired[i].callback, "%s",
             rep->fired[i]->callback ? rep->fired[i]->callback : "");
    res->fired[i].arg = rep->fired[i]->arg;
  }
}

int quac_invoke(quac_conn_t *c, uint64_t handle, const char *entry, const uint64_t *args,
                size_t nargs, quac_result_t *res) {
  quac_result_t local;
  if (res == NULL)
    res = &local;
  memset(res, 0, offsetof(quac_result_t, fired));
  if (nargs > QUAC_MAX_ARGS)
    return seterr(c, QUA_EARITY, "at most %d arguments", QUAC_MAX_ARGS);
  Qua__V1__InvokeRequest req;
  fill_invoke_request(&req, handle, entry, args, nargs);
  /* The reply is read here and dropped: unpacked into an arena on the stack. */
  quap_stack_arena_t sa;
  ProtobufCAllocator *alloc = quap_stack_arena_init(&sa);
  ProtobufCMessage *msg;
  int r = call_in(c, QUAP_INVOKE, &req.base, alloc, &msg);
  if (r < 0) {
    res->status = r;
    return r;
  }
  fill_result(res, (Qua__V1__InvokeReply *)msg);
  quap_message_free(msg, alloc);
  if (res->status < 0)
    return seterr(c, res->status, "%s: %s", entry, quac_strerror(res->status));
  return res->status;
}

int quac_invoke_batch(quac_conn_t *c, const quac_call_t *calls, size_t n, quac_result_t *results) {
  Qua__V1__InvokeRequest *reqs = calloc(n ? n : 1, sizeof *reqs);
  Qua__V1__InvokeRequest **ptrs = calloc(n ? n : 1, sizeof *ptrs);
  int r = 0;
  if (reqs == NULL || ptrs == NULL) {
    r = seterr(c, QUA_ENOMEM, "out of memory");
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    if (calls[i].nargs > QUAC_MAX_ARGS) {
      r = seterr(c, QUA_EARITY, "call %zu: at most %d arguments", i, QUAC_MAX_ARGS);
      goto out;
    }
    fill_invoke_request(&reqs[i], calls[i].handle, calls[i].entry, calls[i].args, calls[i].nargs);
    ptrs[i] = &reqs[i];
  }
  Qua__V1__InvokeBatchRequest req = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
  req.n_calls = n;
  req.calls = ptrs;
  ProtobufCMessage *msg;
  r = call(c, QUAP_INVOKE_BATCH, &req.base, &msg);
  if (r < 0)
    goto out;
  Qua__V1__InvokeBatchReply *rep = (Qua__V1__InvokeBatchReply *)msg;
  if (rep->n_replies != n) {
    r = seterr(c, QUA_EPROTO, "batch of %zu calls answered with %zu replies", n, rep->n_replies);
  } else {
    for (size_t i = 0; i < n; i++) {
      memset(&results[i], 0, offsetof(quac_result_t, fired));
      fill_result(&results[i], rep->replies[i]);
    }
  }
  protobuf_c_message_free_unpacked(msg, NULL);
out:
  free(reqs);
  free(ptrs);
  return r;
}

int quac_invoke_send(quac_conn_t *c, uint64_t handle, const char *entry, const uint64_t *args,
                     size_t nargs, uint64_t *id) {
  if (nargs > QUAC_MAX_ARGS)
    return seterr(c, QUA_EARITY, "at most %d arguments", QUAC_MAX_ARGS);
  Qua__V1__InvokeRequest req;
  fill_invoke_request(&req, handle, entry, args, nargs);
  int64_t r = queue_request(c, QUAP_INVOKE, &req.base);
  if (r < 0)
    return (int)r;
  c->async_outstanding++;
  if (id != NULL)
    *id = (uint64_t)r;
  if (c->out.len - c->out_off >= QUAC_WRITE_BATCH)
    return write_some(c);
  return 0;
}

int quac_flush(quac_conn_t *c) {
  int64_t deadline = deadline_of(c->timeout_ms);
  while (c->out_off < c->out.len) {
    if (c->dead)
      return c->dead_code;
    int r = pump_io(c, deadline, true, false);
    if (r < 0)
      return r;
    if (deadline >= 0 && now_ms() >= deadline && c->out_off < c->out.len)
      return seterr(c, QUA_ETIMEDOUT, "quad does not read its socket");
  }
  return 0;
}

int quac_invoke_recv(quac_conn_t *c, int timeout_ms, uint64_t *id, quac_result_t *res) {
  if (c->async_outstanding == 0)
    return seterr(c, QUA_ESTATE, "no pipelined invoke is outstanding");
  int64_t deadline = deadline_of(timeout_ms);
  Qua__V1__Frame *f;
  for (;;) {
    f = fifo_pop(&c->responses);
    if (f != NULL)
      break;
    if (c->dead)
      return c->dead_code;
    int r = write_some(c);
    if (r < 0)
      return r;
    if (timeout_ms == 0) {
      r = read_some(c, false);
      if (r < 0)
        return r;
      f = fifo_pop(&c->responses);
      if (f == NULL)
        return QUA_ETIMEDOUT;
      break;
    }
    if (deadline >= 0 && now_ms() >= deadline)
      return QUA_ETIMEDOUT;
    r = pump(c, deadline);
    if (r < 0 && c->responses.len == 0)
      return r;
  }
  c->async_outstanding--;
  if (id != NULL)
    *id = f->id;
  /* The reply is read here and dropped: unpacked into an arena on the stack. */
  quap_stack_arena_t sa;
  ProtobufCAllocator *alloc = quap_stack_arena_init(&sa);
  ProtobufCMessage *msg = NULL;
  int r = quap_response_unpack_in(f, QUAP_INVOKE, alloc, &msg);
  memset(res, 0, offsetof(quac_result_t, fired));
  if (r < 0) {
    res->status = r;
    seterr(c, r, "%s", f->message && f->message[0] ? f->message : quac_strerror(r));
  } else {
    fill_result(res, (Qua__V1__InvokeReply *)msg);
    quap_message_free(msg, alloc);
  }
  quap_frame_free(f);
  return 0;
}

/* --- Events ---------------------------------------------------------------------------------- */

void quac_on_event(quac_conn_t *c, quac_event_fn fn, void *ctx) {
  c->on_event = fn;
  c->on_event_ctx = ctx;
}

/* Dispatches the queued events one at a time (the function may queue more). */
static int dispatch(quac_conn_t *c) {
  int n = 0;
  queued_event_t *q;
  while ((q = fifo_pop(&c->events)) != NULL) {
    queued_event_t e = *q;
    free(q);
    e.ev.callback = e.callback;
    if (c->on_event != NULL)
      c->on_event(c->on_event_ctx, c, &e.ev);
    n++;
  }
  return n;
}

int quac_poll(quac_conn_t *c, int timeout_ms) {
  int n = dispatch(c);
  if (n > 0)
    return n;
  int64_t deadline = deadline_of(timeout_ms);
  for (;;) {
    if (c->dead)
      return c->dead_code;
    int r = pump(c, deadline);
    n = dispatch(c);
    if (n > 0)
      return n;
    if (r <= 0)
      return r; /* an error, a timeout or a signal */
    /* Only responses arrived (to pipelined requests): wait on. */
    if (deadline >= 0 && now_ms() >= deadline)
      return 0;
  }
}

int quac_bind_callback(quac_conn_t *c, uint64_t handle, const char *callback, uint64_t *binding) {
  Qua__V1__BindRequest req = QUA__V1__BIND_REQUEST__INIT;
  req.handle = handle;
  req.callback = (char *)callback;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_BIND, &req.base, &msg);
  if (r < 0)
    return r;
  if (binding != NULL)
    *binding = ((Qua__V1__BindReply *)msg)->binding;
  protobuf_c_message_free_unpacked(msg, NULL);
  return 0;
}

int quac_bind_callout(quac_conn_t *c, uint64_t handle, const char *callout, uint64_t credits,
                      uint64_t *binding) {
  Qua__V1__BindRequest req = QUA__V1__BIND_REQUEST__INIT;
  req.handle = handle;
  req.callout = (char *)callout;
  req.credits = credits;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_BIND, &req.base, &msg);
  if (r < 0)
    return r;
  if (binding != NULL)
    *binding = ((Qua__V1__BindReply *)msg)->binding;
  protobuf_c_message_free_unpacked(msg, NULL);
  return 0;
}

int quac_unbind(quac_conn_t *c, uint64_t binding) {
  Qua__V1__UnbindRequest req = QUA__V1__UNBIND_REQUEST__INIT;
  req.binding = binding;
  return call(c, QUAP_UNBIND, &req.base, NULL);
}

int quac_credit(quac_conn_t *c, uint64_t binding, uint64_t credits) {
  Qua__V1__CreditRequest req = QUA__V1__CREDIT_REQUEST__INIT;
  req.binding = binding;
  req.credits = credits;
  return call(c, QUAP_CREDIT, &req.base, NULL);
}

/* --- Listing ------------------------------------------------------------------------------- */

/* Bytes of the arrays one QuajectInfo needs beside its quac_quaject_info_t. */
static size_t quaject_extra(const Qua__V1__QuajectInfo *qi) {
  size_t n = qi->n_wires * sizeof(quac_wire_info_t) + qi->n_impls * sizeof(quac_impl_info_t) +
             qi->n_params * sizeof(uint64_t) + qi->n_bindings * sizeof(quac_binding_info_t);
  for (size_t i = 0; i < qi->n_impls; i++) {
    const Qua__V1__EntryCode *mc = qi->impls[i]->machine_code;
    if (mc != NULL)
      n += sizeof(quac_code_t) + mc->n_parts * sizeof(quac_code_part_t) +
           mc->n_holes * sizeof(quac_code_hole_t);
  }
  return n;
}

/* Fills a quac_code_t from mc, carving it from *space; returns it. */
static const quac_code_t *fill_code(const Qua__V1__EntryCode *mc, uint8_t **space) {
  quac_code_t *c = (quac_code_t *)(void *)*space;
  quac_code_part_t *p = (quac_code_part_t *)(void *)(c + 1);
  quac_code_hole_t *h = (quac_code_hole_t *)(void *)(p + mc->n_parts);
  for (size_t i = 0; i < mc->n_parts; i++)
    p[i] = (quac_code_part_t){mc->parts[i]->entry, mc->parts[i]->variant, mc->parts[i]->offset};
  for (size_t i = 0; i < mc->n_holes; i++) {
    const Qua__V1__CodeHole *x = mc->holes[i];
    h[i] = (quac_code_hole_t){x->name, x->offset, x->size, x->value, x->pcrel, x->target};
  }
  *c = (quac_code_t){mc->machine, mc->addr, mc->bytes.data, mc->bytes.len, mc->entry,
                     mc->text_end, mc->n_parts, mc->n_holes, p, h};
  *space = (uint8_t *)(h + mc->n_holes);
  return c;
}

/* Fills q from qi, carving its arrays from *space. */
static void fill_quaject(quac_quaject_info_t *q, const Qua__V1__QuajectInfo *qi, uint8_t **space) {
  q->handle = qi->handle;
  q->id = qi->id;
  q->type = qi->type;
  q->name = qi->name;
  q->state = qi->state;
  quac_wire_info_t *w = (quac_wire_info_t *)(void *)*space;
  for (size_t i = 0; i < qi->n_wires; i++) {
    w[i].callout = qi->wires[i]->callout;
    w[i].dst_id = qi->wires[i]->dst_id;
    w[i].dst_name = qi->wires[i]->dst_name;
    w[i].entry = qi->wires[i]->entry;
  }
  quac_impl_info_t *im = (quac_impl_info_t *)(void *)(w + qi->n_wires);
  for (size_t i = 0; i < qi->n_impls; i++) {
    im[i].entry = qi->impls[i]->entry;
    im[i].impl = qi->impls[i]->impl;
    im[i].synth_ns = qi->impls[i]->synth_ns;
    im[i].code = qi->impls[i]->code;
    im[i].machine_code = NULL;
  }
  quac_binding_info_t *b = (quac_binding_info_t *)(void *)(im + qi->n_impls);
  for (size_t i = 0; i < qi->n_bindings; i++) {
    b[i].member = qi->bindings[i]->member;
    b[i].callout = qi->bindings[i]->callout;
    b[i].conn = qi->bindings[i]->conn;
    b[i].peer = qi->bindings[i]->peer;
  }
  uint64_t *p = (uint64_t *)(void *)(b + qi->n_bindings);
  for (size_t i = 0; i < qi->n_params; i++)
    p[i] = qi->params[i];
  q->nwires = qi->n_wires;
  q->wires = w;
  q->nimpls = qi->n_impls;
  q->impls = im;
  q->nparams = qi->n_params;
  q->params = p;
  q->nbindings = qi->n_bindings;
  q->bindings = b;
  *space = (uint8_t *)(p + qi->n_params);
  for (size_t i = 0; i < qi->n_impls; i++)
    if (qi->impls[i]->machine_code != NULL)
      im[i].machine_code = fill_code(qi->impls[i]->machine_code, space);
}

/* Asks for the pages after the first (ListRequest.after_id) while quad
 * says more follow, and moves their quajects into the first page's reply,
 * so that one unpacked message holds every string the result points into
 * (protobuf-c's default allocator is malloc's). Each page must start past
 * the last id given, so a confused server cannot loop us. */
static int list_rest(quac_conn_t *c, Qua__V1__ListReply *rep) {
  while (rep->more && rep->n_quajects > 0) {
    Qua__V1__ListRequest req = QUA__V1__LIST_REQUEST__INIT;
    req.after_id = rep->quajects[rep->n_quajects - 1]->id;
    ProtobufCMessage *msg;
    int r = call(c, QUAP_LIST, &req.base, &msg);
    if (r < 0)
      return r;
    Qua__V1__ListReply *page = (Qua__V1__ListReply *)msg;
    if (page->n_quajects > 0 && page->quajects[0]->id <= req.after_id) {
      protobuf_c_message_free_unpacked(msg, NULL);
      return seterr(c, QUA_EPROTO, "List page after id %" PRIu64 " starts at id %" PRIu64,
                    req.after_id, page->quajects[0]->id);
    }
    Qua__V1__QuajectInfo **all =
        realloc(rep->quajects, (rep->n_quajects + page->n_quajects) * sizeof *all);
    if (all == NULL) {
      protobuf_c_message_free_unpacked(msg, NULL);
      return seterr(c, QUA_ENOMEM, "out of memory");
    }
    memcpy(all + rep->n_quajects, page->quajects, page->n_quajects * sizeof *all);
    rep->quajects = all;
    rep->n_quajects += page->n_quajects;
    rep->more = page->more;
    page->n_quajects = 0; /* they belong to rep now */
    protobuf_c_message_free_unpacked(msg, NULL);
  }
  return 0;
}

int quac_list(quac_conn_t *c, quac_quaject_list_t **out) {
  *out = NULL;
  Qua__V1__ListRequest req = QUA__V1__LIST_REQUEST__INIT;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_LIST, &req.base, &msg);
  if (r < 0)
    return r;
  Qua__V1__ListReply *rep = (Qua__V1__ListReply *)msg;
  if ((r = list_rest(c, rep)) < 0) {
    protobuf_c_message_free_unpacked(msg, NULL);
    return r;
  }
  size_t size = sizeof(quac_quaject_list_t) + rep->n_quajects * sizeof(quac_quaject_info_t);
  for (size_t i = 0; i < rep->n_quajects; i++)
    size += quaject_extra(rep->quajects[i]);
  quac_quaject_list_t *l = result_new(size, msg);
  if (l == NULL) {
    protobuf_c_message_free_unpacked(msg, NULL);
    return seterr(c, QUA_ENOMEM, "out of memory");
  }
  quac_quaject_info_t *qs = (quac_quaject_info_t *)(l + 1);
  uint8_t *space = (uint8_t *)(qs + rep->n_quajects);
  for (size_t i = 0; i < rep->n_quajects; i++)
    fill_quaject(&qs[i], rep->quajects[i], &space);
  l->nquajects = rep->n_quajects;
  l->quajects = qs;
  *out = l;
  return 0;
}

int quac_describe(quac_conn_t *c, uint64_t handle, const char *name, quac_quaject_info_t **out) {
  *out = NULL;
  Qua__V1__DescribeRequest req = QUA__V1__DESCRIBE_REQUEST__INIT;
  req.handle = handle;
  if (name != NULL)
    req.name = (char *)name;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_DESCRIBE, &req.base, &msg);
  if (r < 0)
    return r;
  Qua__V1__DescribeReply *rep = (Qua__V1__DescribeReply *)msg;
  if (rep->quaject == NULL) {
    protobuf_c_message_free_unpacked(msg, NULL);
    return seterr(c, QUA_EPROTO, "describe: empty reply");
  }
  quac_quaject_info_t *q = result_new(sizeof *q + quaject_extra(rep->quaject), msg);
  if (q == NULL) {
    protobuf_c_message_free_unpacked(msg, NULL);
    return seterr(c, QUA_ENOMEM, "out of memory");
  }
  uint8_t *space = (uint8_t *)(q + 1);
  fill_quaject(q, rep->quaject, &space);
  *out = q;
  return 0;
}

int quac_stats(quac_conn_t *c, quac_stats_t *out) {
  Qua__V1__StatsRequest req = QUA__V1__STATS_REQUEST__INIT;
  ProtobufCMessage *msg;
  int r = call(c, QUAP_STATS, &req.base, &msg);
  if (r < 0)
    return r;
  Qua__V1__StatsReply *rep = (Qua__V1__StatsReply *)msg;
  out->connections = rep->connections;
  out->quajects = rep->quajects;
  out->requests = rep->requests;
  out->events_sent = rep->events_sent;
  out->events_dropped = rep->events_dropped;
  out->bytes_in = rep->bytes_in;
  out->bytes_out = rep->bytes_out;
  out->uptime_ms = rep->uptime_ms;
  out->links = rep->links;
  out->link_items_sent = rep->link_items_sent;
  out->link_items_acked = rep->link_items_acked;
  protobuf_c_message_free_unpacked(msg, NULL);
  return 0;
}
