/* frame.c -- qua.v1 framing: encode frames into buffers, decode them incrementally. */
#include "frame.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "qua-status.h"

/* --- Output buffer --------------------------------------------------------- */

void quap_buf_init(quap_buf_t *b) {
  b->data = NULL;
  b->len = b->cap = 0;
}

void quap_buf_fini(quap_buf_t *b) {
  free(b->data);
  quap_buf_init(b);
}

int quap_buf_reserve(quap_buf_t *b, size_t n) {
  if (n <= b->cap - b->len)
    return 0;
  if (n > SIZE_MAX / 2 - b->len)
    return QUA_ENOMEM;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < n)
    cap *= 2;
  uint8_t *p = realloc(b->data, cap);
  if (p == NULL)
    return QUA_ENOMEM;
  b->data = p;
  b->cap = cap;
  return 0;
}

uint8_t *quap_buf_take(quap_buf_t *b, size_t *len) {
  uint8_t *p = b->data;
  if (len != NULL)
    *len = b->len;
  quap_buf_init(b);
  return p;
}

/* --- Encoding ------------------------------------------------------------------ */

int64_t quap_frame_append(quap_buf_t *b, const Qua__V1__Frame *f) {
  size_t n = protobuf_c_message_get_packed_size(&f->base);
  if (n > UINT32_MAX)
    return QUA_ETOOBIG;
  int r = quap_buf_reserve(b, QUAP_HEADER + n);
  if (r < 0)
    return r;
  uint8_t *p = b->data + b->len;
  p[0] = (uint8_t)(n >> 24);
  p[1] = (uint8_t)(n >> 16);
  p[2] = (uint8_t)(n >> 8);
  p[3] = (uint8_t)n;
  size_t packed = protobuf_c_message_pack(&f->base, p + QUAP_HEADER);
  if (packed != n)
    return QUA_EPROTO; /* cannot happen for a well-formed message */
  b->len += QUAP_HEADER + n;
  return (int64_t)(QUAP_HEADER + n);
}

/* Packs msg into a fresh heap block (*out; NULL for an empty message). */
static int pack_body(const ProtobufCMessage *msg, ProtobufCBinaryData *out) {
  out->data = NULL;
  out->len = 0;
  if (msg == NULL)
    return 0;
  size_t n = protobuf_c_message_get_packed_size(msg);
  if (n == 0)
    return 0;
  out->data = malloc(n);
  if (out->data == NULL)
    return QUA_ENOMEM;
  out->len = protobuf_c_message_pack(msg, out->data);
  return 0;
}

/* Small bodies are packed on the stack: most requests and replies are a
 * few dozen bytes, and this is the hot path of every call. */
#define QUAP_STACK_BODY 512

static int64_t append_with_body(quap_buf_t *b, Qua__V1__Frame *f, const ProtobufCMessage *msg) {
  uint8_t stack[QUAP_STACK_BODY];
  size_t n = msg != NULL ? protobuf_c_message_get_packed_size(msg) : 0;
  if (n <= sizeof stack) {
    f->body.data = n ? stack : NULL;
    f->body.len = n ? protobuf_c_message_pack(msg, stack) : 0;
    return quap_frame_append(b, f);
  }
  /* Room for the frame and, at the buffer's end past it, the body packed
   * first: no allocation, so a caller that reserved 2n + 64 bytes before
   * acting cannot fail to store the reply afterwards. */
  size_t room = b->cap - b->len;
  if (room >= QUAP_HEADER + 64 && n <= (room - QUAP_HEADER - 64) / 2) {
    f->body.data = b->data + b->cap - n;
    f->body.len = protobuf_c_message_pack(msg, f->body.data);
    return quap_frame_append(b, f); /* the frame is at most n + 64 bytes: no realloc */
  }
  int r = pack_body(msg, &f->body);
  if (r < 0)
    return r;
  int64_t w = quap_frame_append(b, f);
  free(f->body.data);
  f->body.data = NULL;
  return w;
}

const ProtobufCMethodDescriptor *quap_method(unsigned i) {
  if (i >= qua__v1__qua__descriptor.n_methods)
    return NULL;
  return &qua__v1__qua__descriptor.methods[i];
}

int quap_method_index(const char *name) {
  if (name == NULL)
    return QUA_ENOMETHOD;
  const ProtobufCMethodDescriptor *m =
      protobuf_c_service_descriptor_get_method_by_name(&qua__v1__qua__descriptor, name);
  if (m == NULL)
    return QUA_ENOMETHOD;
  return (int)(m - qua__v1__qua__descriptor.methods);
}

/* --- The hot messages, written in one pass ------------------------------------------
 *
 * An Invoke's request (the client's hot path) and its reply without fired callbacks (the
 * daemon's) are written as protobuf-c would write them -- the same bytes: fields in number
 * order, each left out at its zero, a sint32 zigzagged, repeated numbers packed; the test
 * suite compares them -- in one pass, without protobuf-c's two walks of each of the two
 * messages (get_packed_size, then pack). */
static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

/* An Invoke's request, its frame's header first: the body's length is known only after it,
 * so the body is written past the longest header and moved down when shorter. */
static int64_t invoke_request_append(quap_buf_t *b, uint64_t id, const Qua__V1__InvokeRequest *in) {
  size_t elen = strlen(in->entry);
  enum { hmax = 11 + 2 + 5 }; /* id, method, the body's key and length */
  int e = quap_buf_reserve(b, QUAP_HEADER + hmax + 11 + 3 + elen + 3 + 10 * in->n_args);
  if (e < 0)
    return e;
  uint8_t *frame = b->data + b->len + QUAP_HEADER, *body = frame + hmax, *q = body;
  if (in->handle != 0) {
    *q++ = 1 << 3 | 0;
    q += put_varint(q, in->handle);
  }
  if (elen > 0) {
    *q++ = 2 << 3 | 2;
    q += put_varint(q, elen);
    memcpy(q, in->entry, elen);
    q += elen;
  }
  if (in->n_args > 0) { /* packed: the run's length first, so the run goes past it, then down */
    size_t run = 0;
    for (size_t i = 0; i < in->n_args; i++)
      run += varint_size(in->args[i]);
    *q++ = 3 << 3 | 2;
    q += put_varint(q, run);
    for (size_t i = 0; i < in->n_args; i++)
      q += put_varint(q, in->args[i]);
  }
  size_t bn = (size_t)(q - body), n = 0;
  uint8_t head[hmax]; /* kind REQUEST is 0: left out */
  if (id != 0) {
    head[n++] = 2 << 3 | 0;
    n += put_varint(head + n, id);
  }
  head[n++] = 3 << 3 | 0;
  head[n++] = QUAP_INVOKE;
  if (bn > 0) {
    head[n++] = 4 << 3 | 2;
    n += put_varint(head + n, bn);
  }
  memmove(frame + n, body, bn);
  memcpy(frame, head, n);
  n += bn;
  uint8_t *p = b->data + b->len;
  p[0] = (uint8_t)(n >> 24);
  p[1] = (uint8_t)(n >> 16);
  p[2] = (uint8_t)(n >> 8);
  p[3] = (uint8_t)n;
  b->len += QUAP_HEADER + n;
  return (int64_t)(QUAP_HEADER + n);
}

static int64_t invoke_reply_append(quap_buf_t *b, uint64_t id, const Qua__V1__InvokeReply *r) {
  uint8_t body[1 + 5 + 2 + 1 + 10], frame[2 + 1 + 10 + 2 + sizeof body];
  size_t bn = 0, n = 0;
  if (r->status != 0) {
    body[bn++] = 1 << 3 | 0;
    bn += put_varint(body + bn, ((uint32_t)r->status << 1) ^ (uint32_t)(r->status >> 31));
  }
  if (r->has_result) {
    body[bn++] = 2 << 3 | 0;
    body[bn++] = 1;
  }
  if (r->result != 0) {
    body[bn++] = 3 << 3 | 0;
    bn += put_varint(body + bn, r->result);
  }
  frame[n++] = 1 << 3 | 0;
  frame[n++] = QUA__V1__FRAME__KIND__RESPONSE;
  if (id != 0) {
    frame[n++] = 2 << 3 | 0;
    n += put_varint(frame + n, id);
  }
  if (bn > 0) {
    frame[n++] = 4 << 3 | 2;
    frame[n++] = (uint8_t)bn; /* under 128 */
    memcpy(frame + n, body, bn);
    n += bn;
  }
  int e = quap_buf_reserve(b, QUAP_HEADER + n);
  if (e < 0)
    return e;
  uint8_t *p = b->data + b->len;
  p[0] = p[1] = p[2] = 0;
  p[3] = (uint8_t)n;
  memcpy(p + QUAP_HEADER, frame, n);
  b->len += QUAP_HEADER + n;
  return (int64_t)(QUAP_HEADER + n);
}

int64_t quap_request_append(quap_buf_t *b, uint64_t id, unsigned method,
                            const ProtobufCMessage *input) {
  const ProtobufCMethodDescriptor *m = quap_method(method);
  if (m == NULL)
    return QUA_ENOMETHOD;
  if (input != NULL && input->descriptor != m->input)
    return QUA_EINVAL;
  const Qua__V1__InvokeRequest *in = (const Qua__V1__InvokeRequest *)input;
  if (method == QUAP_INVOKE && in != NULL && in->n_args <= 1024 && strlen(in->entry) <= 1024)
    return invoke_request_append(b, id, in); /* protobuf-c writes the rare large ones */
  Qua__V1__Frame f = QUA__V1__FRAME__INIT;
  f.kind = QUA__V1__FRAME__KIND__REQUEST;
  f.id = id;
  f.method = method;
  return append_with_body(b, &f, input);
}

int64_t quap_response_append(quap_buf_t *b, uint64_t id, int status, const char *message,
                             const ProtobufCMessage *output) {
  if (status == 0 && output != NULL && output->descriptor == &qua__v1__invoke_reply__descriptor &&
      ((const Qua__V1__InvokeReply *)output)->n_fired == 0)
    return invoke_reply_append(b, id, (const Qua__V1__InvokeReply *)output);
  Qua__V1__Frame f = QUA__V1__FRAME__INIT;
  f.kind = QUA__V1__FRAME__KIND__RESPONSE;
  f.id = id;
  f.status = status;
  if (status != 0) {
    f.message = (char *)(message != NULL ? message : qua_status_message(status));
    output = NULL;
  }
  return append_with_body(b, &f, output);
}

int64_t quap_event_append(quap_buf_t *b, const Qua__V1__Event *ev) {
  Qua__V1__Frame f = QUA__V1__FRAME__INIT;
  f.kind = QUA__V1__FRAME__KIND__EVENT;
  f.event = (Qua__V1__Event *)ev;
  return quap_frame_append(b, &f);
}

/* --- Decoding ------------------------------------------------------------------- */

void quap_decoder_init(quap_decoder_t *d, size_t max_frame) {
  memset(d, 0, sizeof *d);
  d->max_frame = max_frame;
}

void quap_decoder_fini(quap_decoder_t *d) {
  free(d->body);
  d->body = NULL;
  d->have = d->hdr_len = 0;
}

int quap_decoder_partial(const quap_decoder_t *d) { return d->hdr_len > 0; }

/* --- Arenas ---------------------------------------------------------------------- */

static bool arena_has(const quap_arena_t *a, const void *p) {
  return (const unsigned char *)p >= a->data && (const unsigned char *)p < a->data + a->cap;
}

static void *arena_alloc(void *data, size_t size) {
  quap_arena_t *a = data;
  size_t n = (size + 15) & ~(size_t)15;
  if (n >= size && n <= a->cap - a->used) {
    void *p = a->data + a->used;
    a->used += n;
    return p;
  }
  void *p = malloc(size);
  a->spilled += p != NULL;
  return p;
}

static void arena_free(void *data, void *p) {
  quap_arena_t *a = data;
  if (p != NULL && !arena_has(a, p)) {
    a->spilled--;
    free(p);
  }
}

void quap_message_free(ProtobufCMessage *msg, ProtobufCAllocator *a) {
  if (msg == NULL)
    return;
  if (a != NULL && a->alloc == arena_alloc && ((quap_arena_t *)a->allocator_data)->spilled == 0)
    return;
  protobuf_c_message_free_unpacked(msg, a);
}

ProtobufCAllocator quap_arena_allocator(quap_arena_t *a) {
  return (ProtobufCAllocator){arena_alloc, arena_free, a};
}

ProtobufCAllocator *quap_stack_arena_init(quap_stack_arena_t *s) {
  s->arena = (quap_arena_t){s->space, 0, sizeof s->space, 0};
  s->alloc = quap_arena_allocator(&s->arena);
  return &s->alloc;
}

/* A decoded frame and what protobuf-c allocates for it (the copy of its
 * body, its message, its event) are carved from one heap block sized from
 * the frame's length, an arena, so a frame costs one malloc and one free,
 * not two to four. protobuf-c allocates the message itself first, so the
 * frame is the start of data[], and quap_frame_free finds its block from it. */
typedef struct frame_block {
  quap_arena_t arena; /* over data[] */
  _Alignas(16) unsigned char data[];
} frame_block_t;

/* Room for the frame, an event, and the frame's length again for the body's
 * copy and the strings, with the rounding of a few allocations. */
#define FRAME_BLOCK_SLACK (sizeof(Qua__V1__Frame) + sizeof(Qua__V1__Event) + 128)

void quap_frame_free(Qua__V1__Frame *f) {
  if (f == NULL)
    return;
  frame_block_t *b = (frame_block_t *)(void *)((unsigned char *)f - offsetof(frame_block_t, data));
  ProtobufCAllocator a = quap_arena_allocator(&b->arena);
  quap_message_free(&f->base, &a);
  free(b);
}

/* --- The hot messages, read in one pass ------------------------------------------
 *
 * protobuf-c reads any message by walking its descriptor, twice (once to count repeated
 * fields, once to fill them) and then walks it again to free it; for a request's Frame and an
 * InvokeRequest, the daemon's hot path, that was most of the daemon's own instructions per
 * call. quap_frame_unpack_fast and quap_invoke_unpack_fast read those two directly into an arena: the same
 * message protobuf-c would build (the last value of a field wins, args accumulate over packed
 * and unpacked runs, in order), or nothing when the input is anything they do not read
 * exactly as protobuf-c would -- a
 * key of more than one byte, a field they do not know, another wire type, a varint longer
 * than its field's type, a length of more than four bytes, a Frame's kind other than
 * REQUEST, an entry byte outside printable ASCII, more than QUAP_FAST_ARGS arguments, or an
 * arena too small -- and protobuf-c reads those. The test suite holds the readers to
 * protobuf-c's results. */

#define QUAP_FAST_ARGS 32

/* One varint of at most ten bytes that fits 64 bits, at *p before end: true and its value. */
static bool fast_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    if (shift == 63 && b > 1)
      return false;
    x |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) {
      *v = x;
      return true;
    }
  }
  return false;
}

/* A uint32 as protobuf-c reads one: five bytes at most, and no bit past 32. */
static bool fast_uint32(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  const uint8_t *q = *p;
  if (!fast_varint(&q, end, v) || q - *p > 5 || *v > UINT32_MAX)
    return false;
  *p = q;
  return true;
}

static int32_t fast_unzigzag(uint64_t v) {
  return (int32_t)((uint32_t)(v >> 1) ^ (uint32_t)-(int64_t)(v & 1));
}

/* A length of at most four bytes (protobuf-c reads up to five) that the input holds after it. */
static bool fast_length(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  const uint8_t *q = *p;
  if (!fast_varint(&q, end, v) || q - *p > 4 || *v > (uint64_t)(end - q))
    return false;
  *p = q;
  return true;
}

/* The end of p[0..len): an empty body may come as NULL, and NULL + 0 is undefined in C. */
static const uint8_t *fast_end(const uint8_t *p, size_t len) {
  return len > 0 ? p + len : p;
}

Qua__V1__Frame *quap_frame_unpack_fast(const uint8_t *p, size_t len, quap_arena_t *ar) {
  const uint8_t *end = fast_end(p, len), *body = NULL;
  uint64_t id = 0, method = 0, status = 0, v;
  size_t body_len = 0;
  Qua__V1__Frame__Kind kind = QUA__V1__FRAME__KIND__REQUEST;
  while (p < end) {
    const uint8_t key = *p++;
    switch (key) {
    case 1 << 3 | 0: /* kind: a request or a response (an event has a message in it) */
      if (p == end || *p > QUA__V1__FRAME__KIND__RESPONSE)
        return NULL;
      kind = *p++;
      break;
    case 2 << 3 | 0:
      if (!fast_varint(&p, end, &id))
        return NULL;
      break;
    case 3 << 3 | 0:
      if (!fast_uint32(&p, end, &method))
        return NULL;
      break;
    case 5 << 3 | 0: /* status, a sint32 */
      if (!fast_uint32(&p, end, &status))
        return NULL;
      break;
    case 4 << 3 | 2:
      if (!fast_length(&p, end, &v))
        return NULL;
      body = p;
      body_len = (size_t)v;
      p += v;
      break;
    default:
      return NULL;
    }
  }
  if (((sizeof(Qua__V1__Frame) + 15) & ~(size_t)15) + body_len + 16 > ar->cap - ar->used)
    return NULL;
  Qua__V1__Frame *f = arena_alloc(ar, sizeof *f);
  qua__v1__frame__init(f);
  f->kind = kind;
  f->id = id;
  f->method = (uint32_t)method;
  f->status = fast_unzigzag(status);
  if (body != NULL && body_len > 0) { /* protobuf-c keeps an empty body as no data */
    f->body.data = arena_alloc(ar, body_len);
    memcpy(f->body.data, body, body_len);
    f->body.len = body_len;
  }
  return f;
}

static int unpack_frame(quap_decoder_t *d, const uint8_t *p, size_t n, Qua__V1__Frame **out) {
  if (n > SIZE_MAX - sizeof(frame_block_t) - FRAME_BLOCK_SLACK)
    return d->error = QUA_ETOOBIG;
  size_t cap = n + FRAME_BLOCK_SLACK;
  frame_block_t *b = malloc(sizeof *b + cap);
  if (b == NULL)
    return d->error = QUA_ENOMEM;
  b->arena = (quap_arena_t){b->data, 0, cap, 0};
  ProtobufCAllocator a = quap_arena_allocator(&b->arena);
  Qua__V1__Frame *f = quap_frame_unpack_fast(p, n, &b->arena);
  if (f == NULL)
    f = qua__v1__frame__unpack(&a, n, p);
  if (f == NULL) {
    free(b);
    return d->error = QUA_EPROTO;
  }
  if ((void *)f != (void *)b->data) { /* a protobuf-c that allocates otherwise */
    protobuf_c_message_free_unpacked(&f->base, &a);
    free(b);
    return d->error = QUA_EPROTO;
  }
  *out = f;
  return 1;
}

int quap_decoder_feed(quap_decoder_t *d, const uint8_t *data, size_t len, size_t *consumed,
                      Qua__V1__Frame **out) {
  size_t used = 0;
  int r = 0;
  *out = NULL;
  if (d->error != 0) {
    r = d->error;
    goto done;
  }
  /* The prefix. */
  while (d->hdr_len < QUAP_HEADER && used < len)
    d->hdr[d->hdr_len++] = data[used++];
  if (d->hdr_len < QUAP_HEADER)
    goto done;
  if (d->have == 0 && d->body == NULL) {
    d->need = (uint32_t)d->hdr[0] << 24 | (uint32_t)d->hdr[1] << 16 | (uint32_t)d->hdr[2] << 8 |
              d->hdr[3];
    if (d->need > d->max_frame) {
      r = d->error = QUA_ETOOBIG;
      goto done;
    }
    /* The common case: the whole frame is in data; decode it in place. */
    if (len - used >= d->need) {
      r = unpack_frame(d, data + used, d->need, out);
      used += d->need;
      d->hdr_len = 0;
      goto done;
    }
    d->body = malloc(d->need ? d->need : 1);
    if (d->body == NULL) {
      r = d->error = QUA_ENOMEM;
      goto done;
    }
  }
  /* A frame split across reads. */
  size_t take = d->need - d->have;
  if (take > len - used)
    take = len - used;
  memcpy(d->body + d->have, data + used, take);
  d->have += take;
  used += take;
  if (d->have == d->need) {
    r = unpack_frame(d, d->body, d->need, out);
    free(d->body);
    d->body = NULL;
    d->have = 0;
    d->hdr_len = 0;
  }
done:
  *consumed = used;
  return r;
}

/* --- Bodies --------------------------------------------------------------------- */

int quap_request_unpack(const Qua__V1__Frame *f, ProtobufCMessage **out) {
  return quap_request_unpack_in(f, NULL, out);
}

int quap_invoke_unpack_fast(const uint8_t *data, size_t len, ProtobufCAllocator *a,
                            Qua__V1__InvokeRequest **out) {
  *out = NULL;
  if (a == NULL || a->alloc != arena_alloc)
    return 0;
  quap_arena_t *ar = a->allocator_data;
  const uint8_t *p = data, *end = fast_end(data, len), *entry = NULL;
  size_t entry_len = 0, n = 0;
  uint64_t handle = 0, args[QUAP_FAST_ARGS];
  while (p < end) {
    uint64_t v;
    const uint8_t key = *p++; /* every key read here is one byte */
    switch (key) {
    case 1 << 3 | 0: /* handle */
      if (!fast_varint(&p, end, &handle))
        return 0;
      break;
    case 2 << 3 | 2: /* entry */
      if (!fast_length(&p, end, &v))
        return 0;
      for (size_t i = 0; i < v; i++)
        if (p[i] < 0x20 || p[i] > 0x7e)
          return 0;
      entry = p;
      entry_len = (size_t)v;
      p += v;
      break;
    case 3 << 3 | 0: /* one argument */
      if (n == QUAP_FAST_ARGS || !fast_varint(&p, end, &args[n++]))
        return 0;
      break;
    case 3 << 3 | 2: { /* a packed run of arguments */
      if (!fast_length(&p, end, &v))
        return 0;
      const uint8_t *run_end = p + v;
      while (p < run_end)
        if (n == QUAP_FAST_ARGS || !fast_varint(&p, run_end, &args[n++]))
          return 0;
      break;
    }
    default:
      return 0;
    }
  }
  /* Everything from the arena, or nothing: a message here is freed by dropping its arena. */
  size_t need = ((sizeof(Qua__V1__InvokeRequest) + 15) & ~(size_t)15) +
                (entry != NULL ? (entry_len + 16) & ~(size_t)15 : 0) +
                ((n * sizeof(uint64_t) + 15) & ~(size_t)15);
  if (need > ar->cap - ar->used)
    return 0;
  Qua__V1__InvokeRequest *m = arena_alloc(ar, sizeof *m);
  qua__v1__invoke_request__init(m);
  m->handle = handle;
  if (entry != NULL) {
    m->entry = arena_alloc(ar, entry_len + 1);
    memcpy(m->entry, entry, entry_len);
    m->entry[entry_len] = '\0';
  }
  if (n > 0) {
    m->args = arena_alloc(ar, n * sizeof *m->args);
    memcpy(m->args, args, n * sizeof *m->args);
    m->n_args = n;
  }
  *out = m;
  return 1;
}

int quap_request_unpack_in(const Qua__V1__Frame *f, ProtobufCAllocator *a, ProtobufCMessage **out) {
  *out = NULL;
  const ProtobufCMethodDescriptor *m = quap_method(f->method);
  if (m == NULL)
    return QUA_ENOMETHOD;
  Qua__V1__InvokeRequest *in;
  if (f->method == QUAP_INVOKE && quap_invoke_unpack_fast(f->body.data, f->body.len, a, &in)) {
    *out = &in->base;
    return 0;
  }
  ProtobufCMessage *msg = protobuf_c_message_unpack(m->input, a, f->body.len, f->body.data);
  if (msg == NULL)
    return QUA_EPROTO;
  *out = msg;
  return 0;
}

int quap_response_unpack(const Qua__V1__Frame *f, unsigned method, ProtobufCMessage **out) {
  return quap_response_unpack_in(f, method, NULL, out);
}

int quap_invoke_reply_unpack_fast(const uint8_t *p, size_t len, ProtobufCAllocator *a,
                                  Qua__V1__InvokeReply **out) {
  *out = NULL;
  if (a == NULL || a->alloc != arena_alloc)
    return 0;
  quap_arena_t *ar = a->allocator_data;
  const uint8_t *end = fast_end(p, len);
  uint64_t status = 0, result = 0;
  bool has_result = false;
  while (p < end) {
    const uint8_t key = *p++;
    switch (key) {
    case 1 << 3 | 0:
      if (!fast_uint32(&p, end, &status))
        return 0;
      break;
    case 2 << 3 | 0: /* a bool: one byte, 0 or 1 */
      if (p == end || *p > 1)
        return 0;
      has_result = *p++;
      break;
    case 3 << 3 | 0:
      if (!fast_varint(&p, end, &result))
        return 0;
      break;
    default: /* fired callbacks among them */
      return 0;
    }
  }
  if (sizeof(Qua__V1__InvokeReply) + 15 > ar->cap - ar->used)
    return 0;
  Qua__V1__InvokeReply *r = arena_alloc(ar, sizeof *r);
  qua__v1__invoke_reply__init(r);
  r->status = fast_unzigzag(status);
  r->has_result = has_result;
  r->result = result;
  *out = r;
  return 1;
}

int quap_response_unpack_in(const Qua__V1__Frame *f, unsigned method, ProtobufCAllocator *a,
                            ProtobufCMessage **out) {
  *out = NULL;
  const ProtobufCMethodDescriptor *m = quap_method(method);
  if (m == NULL)
    return QUA_ENOMETHOD;
  if (f->status < 0)
    return f->status;
  if (f->status > 0)
    return QUA_EPROTO;
  Qua__V1__InvokeReply *r;
  if (method == QUAP_INVOKE && quap_invoke_reply_unpack_fast(f->body.data, f->body.len, a, &r)) {
    *out = &r->base;
    return 0;
  }
  ProtobufCMessage *msg = protobuf_c_message_unpack(m->output, a, f->body.len, f->body.data);
  if (msg == NULL)
    return QUA_EPROTO;
  *out = msg;
  return 0;
}
