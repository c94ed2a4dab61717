/* frame.h -- qua.v1 framing: length-prefixed Frame messages, encoder, incremental decoder.
 *
 * Both quad and libquaclient frame through these functions; nobody writes a
 * length prefix by hand. A frame on the stream is a 4-byte big-endian length
 * N followed by N bytes: one serialised qua.v1.Frame (proto/qua.proto). A
 * request Frame carries the index of a method of service Qua (in the
 * generated descriptor, qua__v1__qua__descriptor) and that method's input
 * message in `body`; a response echoes the request id and carries the
 * method's output message, or a negative status from QUA_STATUS_MAP.
 *
 * Errors are the negative codes of include/qua-status.h (the table qua.h
 * and quaclient.h share): QUA_ETOOBIG for a length
 * over the decoder's limit, QUA_EPROTO for bytes that are not a Frame or a
 * body that is not the method's message, QUA_ENOMETHOD for a method index
 * the service does not have, QUA_ENOMEM.
 *
 * Threads: a quap_buf_t or quap_decoder_t is used by one thread at a time;
 * the functions keep no other state.
 */
#ifndef QUAP_FRAME_H
#define QUAP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "qua-status.h"
#include "qua.pb-c.h"

/* Protocol version spoken by this code (HelloRequest.version). */
#define QUAP_VERSION 1u
/* Bytes of the length prefix. */
#define QUAP_HEADER 4u
/* Default --max-frame of quad: the largest N accepted (bytes after the prefix). */
#define QUAP_DEFAULT_MAX_FRAME (1u << 20)

/* The service's method indices, checked against the generated descriptor
 * by quap_method_index() in the tests; use them or look names up. */
enum quap_method {
  QUAP_HELLO = 0,
  QUAP_LIST_TYPES,
  QUAP_CREATE,
  QUAP_DESTROY,
  QUAP_PUBLISH,
  QUAP_UNPUBLISH,
  QUAP_OPEN,
  QUAP_WIRE,
  QUAP_UNWIRE,
  QUAP_INVOKE,
  QUAP_INVOKE_BATCH,
  QUAP_BIND,
  QUAP_UNBIND,
  QUAP_CREDIT,
  QUAP_LIST,
  QUAP_DESCRIBE,
  QUAP_STATS,
  QUAP_CLOSE,
  QUAP_LINK_OPEN,
  QUAP_LINK_PUSH,
  QUAP_NMETHODS
};

/* --- Output buffer --------------------------------------------------------- */

/* A growable byte buffer that frames are appended to. */
typedef struct quap_buf {
  uint8_t *data;
  size_t len, cap;
} quap_buf_t;

/* An empty buffer; quap_buf_fini() releases it. */
void quap_buf_init(quap_buf_t *b);
void quap_buf_fini(quap_buf_t *b);
/* Makes room for n more bytes. 0 or QUA_ENOMEM. */
int quap_buf_reserve(quap_buf_t *b, size_t n);
/* Hands the bytes to the caller (free() them) and leaves b empty. */
uint8_t *quap_buf_take(quap_buf_t *b, size_t *len);

/* --- Encoding ------------------------------------------------------------------ */

/* Appends one framed Frame to b. Returns the frame's total size (prefix
 * included) or QUA_ENOMEM; QUA_ETOOBIG if the Frame is over 4 GiB - 1. On
 * error b is unchanged. */
int64_t quap_frame_append(quap_buf_t *b, const Qua__V1__Frame *f);

/* Appends a request frame: id (non-zero), method index, and the method's
 * input message (its descriptor must be the method's input: else
 * QUA_EINVAL; an unknown index is QUA_ENOMETHOD). Returns as quap_frame_append. */
int64_t quap_request_append(quap_buf_t *b, uint64_t id, unsigned method,
                            const ProtobufCMessage *input);

/* Appends a response frame for request id: status 0 with the output
 * message (may be NULL for an empty body), or a negative status with a
 * message for people (may be NULL). Returns as quap_frame_append. */
int64_t quap_response_append(quap_buf_t *b, uint64_t id, int status, const char *message,
                             const ProtobufCMessage *output);

/* Appends an event frame (kind EVENT, id 0). Returns as quap_frame_append. */
int64_t quap_event_append(quap_buf_t *b, const Qua__V1__Event *ev);

/* --- Decoding ------------------------------------------------------------------- */

/* The incremental decoder: feed it bytes as they arrive; it yields whole
 * frames. It keeps at most one partial frame (up to max_frame bytes). */
typedef struct quap_decoder {
  size_t max_frame;
  uint8_t hdr[QUAP_HEADER];
  size_t hdr_len;   /* bytes of the prefix seen */
  uint32_t need;    /* the frame's length, once the prefix is complete */
  uint8_t *body;    /* partial frame, `have` of `need` bytes */
  size_t have;
  int error;        /* sticky: once an error was returned, every call returns it */
} quap_decoder_t;

/* A decoder accepting frames of up to max_frame bytes (after the prefix). */
void quap_decoder_init(quap_decoder_t *d, size_t max_frame);
void quap_decoder_fini(quap_decoder_t *d);

/* Consumes bytes from data[0..len) and stores how many in *consumed (it
 * stops right after the first complete frame). Returns 1 with *out set to
 * the decoded Frame (free it with quap_frame_free) when a frame completed,
 * 0 when every byte was consumed and no frame is complete yet, or a sticky
 * error: QUA_ETOOBIG when a prefix announces more than max_frame bytes,
 * QUA_EPROTO when a complete frame is not a Frame message, QUA_ENOMEM. After
 * an error the stream is out of step: close the connection. */
int quap_decoder_feed(quap_decoder_t *d, const uint8_t *data, size_t len, size_t *consumed,
                      Qua__V1__Frame **out);

/* True when the decoder holds part of a frame (a truncated stream at EOF). */
int quap_decoder_partial(const quap_decoder_t *d);

void quap_frame_free(Qua__V1__Frame *f);

/* --- Methods and bodies ---------------------------------------------------- */

/* The method descriptor of index i (NULL when out of range). */
const ProtobufCMethodDescriptor *quap_method(unsigned i);
/* The index of a method by name ("Hello", "InvokeBatch"), or QUA_ENOMETHOD. */
int quap_method_index(const char *name);

/* Unpacks a request's body with the method's input descriptor into *out
 * (free with protobuf_c_message_free_unpacked). QUA_ENOMETHOD for an
 * unknown index, QUA_EPROTO for a body that does not decode. */
int quap_request_unpack(const Qua__V1__Frame *f, ProtobufCMessage **out);
/* As quap_request_unpack, allocating through a (NULL: malloc); free *out
 * with protobuf_c_message_free_unpacked(*out, a). */
int quap_request_unpack_in(const Qua__V1__Frame *f, ProtobufCAllocator *a, ProtobufCMessage **out);

/* Unpacks a response to `method` into *out (the method's output message;
 * free with protobuf_c_message_free_unpacked). Returns the frame's status
 * when it is negative (then *out is NULL), QUA_ENOMETHOD, QUA_EPROTO, or 0. */
int quap_response_unpack(const Qua__V1__Frame *f, unsigned method, ProtobufCMessage **out);

/* As quap_response_unpack, allocating through a (NULL: malloc); free *out
 * with protobuf_c_message_free_unpacked(*out, a). */
int quap_response_unpack_in(const Qua__V1__Frame *f, unsigned method, ProtobufCAllocator *a,
                            ProtobufCMessage **out);

/* An arena: protobuf-c's allocations carved from data[0 .. cap) (16-byte
 * aligned pieces, given back all at once by dropping the arena), and from
 * malloc once it is full; the allocator frees only the latter. For a
 * message unpacked and freed in one function, an arena on the stack spares
 * its mallocs. */
typedef struct quap_arena {
  unsigned char *data; /* 16-byte aligned */
  size_t used, cap;
  size_t spilled; /* blocks that did not fit, taken from malloc and not yet freed */
} quap_arena_t;

ProtobufCAllocator quap_arena_allocator(quap_arena_t *a);

/* Reads a request's or a response's Frame (kind, id, method, body, status;
 * no message, no event; len bytes at data) in
 * one pass into a, which must have room for it and a copy of its bytes:
 * the Frame, exactly what protobuf-c would build, or NULL when it leaves the
 * input to protobuf-c (see frame.c). The decoder tries it first. */
Qua__V1__Frame *quap_frame_unpack_fast(const uint8_t *data, size_t len, quap_arena_t *a);

/* Reads an InvokeRequest's wire form (len bytes at data) in one pass into
 * the arena behind a, one of ours: 1 and the message in *out, exactly what
 * protobuf-c would build; 0 when it leaves the input to protobuf-c (see
 * frame.c). quap_request_unpack_in tries it first for Invoke. */
int quap_invoke_unpack_fast(const uint8_t *data, size_t len, ProtobufCAllocator *a,
                            Qua__V1__InvokeRequest **out);

/* The same for an InvokeReply (an Invoke's response body): 1 and the reply,
 * or 0 (fired callbacks among others) to leave it to protobuf-c.
 * quap_response_unpack_in tries it first for Invoke. */
int quap_invoke_reply_unpack_fast(const uint8_t *data, size_t len, ProtobufCAllocator *a,
                                  Qua__V1__InvokeReply **out);

/* Frees what protobuf-c unpacked into msg with allocator a (NULL: the
 * heap's). With one of ours whose arena gave every block (nothing spilled
 * to malloc), there is nothing to free: the walk of the message is skipped
 * and the arena's memory goes with its owner. */
void quap_message_free(ProtobufCMessage *msg, ProtobufCAllocator *a);

/* An arena with its room and its allocator, to keep on the stack for one
 * message (an Invoke's request or reply fits with room to spare). */
#define QUAP_STACK_ARENA 512

typedef struct quap_stack_arena {
  quap_arena_t arena;
  ProtobufCAllocator alloc;
  _Alignas(16) unsigned char space[QUAP_STACK_ARENA];
} quap_stack_arena_t;

/* Empties s; returns its allocator. */
ProtobufCAllocator *quap_stack_arena_init(quap_stack_arena_t *s);

#endif /* QUAP_FRAME_H */
