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

int64_t quap_request_append(quap_buf_t *b, uint64_t id, unsigned method,
                            const ProtobufCMessage *input) {
  const ProtobufCMethodDescriptor *m = quap_method(method);
  if (m == NULL)
    return QUA_ENOMETHOD;
  if (input != NULL && input->descriptor != m->input)
    return QUA_EINVAL;
  Qua__V1__Frame f = QUA__V1__FRAME__INIT;
  f.kind = QUA__V1__FRAME__KIND__REQUEST;
  f.id = id;
  f.method = method;
  return append_with_body(b, &f, input);
}

int64_t quap_response_append(quap_buf_t *b, uint64_t id, int status, const char *message,
                             const ProtobufCMessage *output) {
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
  return malloc(size);
}

static void arena_free(void *data, void *p) {
  if (!arena_has(data, p))
    free(p);
}

ProtobufCAllocator quap_arena_allocator(quap_arena_t *a) {
  return (ProtobufCAllocator){arena_alloc, arena_free, a};
}

ProtobufCAllocator *quap_stack_arena_init(quap_stack_arena_t *s) {
  s->arena = (quap_arena_t){s->space, 0, sizeof s->space};
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
  protobuf_c_message_free_unpacked(&f->base, &a);
  free(b);
}

static int unpack_frame(quap_decoder_t *d, const uint8_t *p, size_t n, Qua__V1__Frame **out) {
  if (n > SIZE_MAX - sizeof(frame_block_t) - FRAME_BLOCK_SLACK)
    return d->error = QUA_ETOOBIG;
  size_t cap = n + FRAME_BLOCK_SLACK;
  frame_block_t *b = malloc(sizeof *b + cap);
  if (b == NULL)
    return d->error = QUA_ENOMEM;
  b->arena = (quap_arena_t){b->data, 0, cap};
  ProtobufCAllocator a = quap_arena_allocator(&b->arena);
  Qua__V1__Frame *f = qua__v1__frame__unpack(&a, n, p);
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

int quap_request_unpack_in(const Qua__V1__Frame *f, ProtobufCAllocator *a, ProtobufCMessage **out) {
  *out = NULL;
  const ProtobufCMethodDescriptor *m = quap_method(f->method);
  if (m == NULL)
    return QUA_ENOMETHOD;
  ProtobufCMessage *msg = protobuf_c_message_unpack(m->input, a, f->body.len, f->body.data);
  if (msg == NULL)
    return QUA_EPROTO;
  *out = msg;
  return 0;
}

int quap_response_unpack(const Qua__V1__Frame *f, unsigned method, ProtobufCMessage **out) {
  return quap_response_unpack_in(f, method, NULL, out);
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
  ProtobufCMessage *msg = protobuf_c_message_unpack(m->output, a, f->body.len, f->body.data);
  if (msg == NULL)
    return QUA_EPROTO;
  *out = msg;
  return 0;
}
