/* test-frame.c -- qua.v1 framing: encode/decode round trips and every decoder error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "qtest.h"
#include "qua.h"

/* Feeds the decoder `len` bytes in chunks of `step`; collects frames. */
static int feed_all(quap_decoder_t *d, const uint8_t *p, size_t len, size_t step,
                    Qua__V1__Frame **frames, int max, int *err) {
  int n = 0;
  *err = 0;
  size_t off = 0;
  while (off < len) {
    size_t chunk = len - off < step ? len - off : step;
    size_t used = 0;
    Qua__V1__Frame *f = NULL;
    int r = quap_decoder_feed(d, p + off, chunk, &used, &f);
    if (r < 0) {
      *err = r;
      return n;
    }
    off += used;
    if (r == 1) {
      if (n < max)
        frames[n++] = f;
      else
        quap_frame_free(f);
    } else {
      CU_ASSERT_EQUAL(used, chunk); /* 0: everything was taken */
    }
  }
  return n;
}

static void method_indices_match_descriptor(void) {
  CU_ASSERT_EQUAL(qua__v1__qua__descriptor.n_methods, QUAP_NMETHODS);
  CU_ASSERT_EQUAL(quap_method_index("Hello"), QUAP_HELLO);
  CU_ASSERT_EQUAL(quap_method_index("InvokeBatch"), QUAP_INVOKE_BATCH);
  CU_ASSERT_EQUAL(quap_method_index("Stats"), QUAP_STATS);
  CU_ASSERT_EQUAL(quap_method_index("Credit"), QUAP_CREDIT);
  CU_ASSERT_EQUAL(quap_method_index("Close"), QUAP_CLOSE);
  CU_ASSERT_EQUAL(quap_method_index("Nope"), QUA_ENOMETHOD);
  CU_ASSERT_PTR_NULL(quap_method(QUAP_NMETHODS));
  CU_ASSERT_PTR_EQUAL(quap_method(QUAP_INVOKE)->input, &qua__v1__invoke_request__descriptor);
}

static void request_round_trip_whole_and_bytewise(void) {
  uint64_t args[2] = {7, UINT64_MAX};
  Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
  in.handle = 3;
  in.entry = (char *)"add";
  in.n_args = 2;
  in.args = args;
  quap_buf_t b;
  quap_buf_init(&b);
  int64_t n = quap_request_append(&b, 42, QUAP_INVOKE, &in.base);
  CU_ASSERT(n > (int64_t)QUAP_HEADER);
  CU_ASSERT_EQUAL((size_t)n, b.len);
  /* A second frame right behind the first. */
  Qua__V1__StatsRequest st = QUA__V1__STATS_REQUEST__INIT;
  size_t first = b.len;
  CU_ASSERT(quap_request_append(&b, 43, QUAP_STATS, &st.base) > 0);
  CU_ASSERT(b.len > first);
  size_t steps[] = {b.len, 1, 3, 7};
  for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
    quap_decoder_t d;
    quap_decoder_init(&d, QUAP_DEFAULT_MAX_FRAME);
    Qua__V1__Frame *fr[4] = {NULL};
    int err;
    int nf = feed_all(&d, b.data, b.len, steps[s], fr, 4, &err);
    CU_ASSERT_EQUAL(err, 0);
    CU_ASSERT(nf >= 2);
    CU_ASSERT_FALSE(quap_decoder_partial(&d));
    if (nf >= 2) {
      CU_ASSERT_EQUAL(fr[0]->kind, QUA__V1__FRAME__KIND__REQUEST);
      CU_ASSERT_EQUAL(fr[0]->id, 42);
      CU_ASSERT_EQUAL(fr[0]->method, QUAP_INVOKE);
      ProtobufCMessage *m = NULL;
      CU_ASSERT_EQUAL(quap_request_unpack(fr[0], &m), 0);
      Qua__V1__InvokeRequest *got = (Qua__V1__InvokeRequest *)m;
      CU_ASSERT_EQUAL(got->handle, 3);
      CU_ASSERT_STRING_EQUAL(got->entry, "add");
      CU_ASSERT_EQUAL(got->n_args, 2);
      if (got->n_args == 2) {
        CU_ASSERT_EQUAL(got->args[0], 7);
        CU_ASSERT_EQUAL(got->args[1], UINT64_MAX);
      }
      protobuf_c_message_free_unpacked(m, NULL);
      CU_ASSERT_EQUAL(fr[1]->id, 43);
      CU_ASSERT_EQUAL(fr[1]->method, QUAP_STATS);
    }
    for (int i = 0; i < nf; i++)
      quap_frame_free(fr[i]);
    quap_decoder_fini(&d);
  }
  quap_buf_fini(&b);
}

static void response_and_error_round_trip(void) {
  quap_buf_t b;
  quap_buf_init(&b);
  Qua__V1__CreateReply cr = QUA__V1__CREATE_REPLY__INIT;
  cr.handle = 9;
  cr.id = 77;
  CU_ASSERT(quap_response_append(&b, 5, 0, NULL, &cr.base) > 0);
  CU_ASSERT(quap_response_append(&b, 6, QUA_EHANDLE, "no handle 12", NULL) > 0);
  CU_ASSERT(quap_response_append(&b, 7, QUA_ELIMIT, NULL, NULL) > 0);
  quap_decoder_t d;
  quap_decoder_init(&d, 1024);
  Qua__V1__Frame *fr[3] = {NULL};
  int err;
  int nf = feed_all(&d, b.data, b.len, 5, fr, 3, &err);
  CU_ASSERT_EQUAL(nf, 3);
  if (nf == 3) {
    ProtobufCMessage *m = NULL;
    CU_ASSERT_EQUAL(fr[0]->kind, QUA__V1__FRAME__KIND__RESPONSE);
    CU_ASSERT_EQUAL(quap_response_unpack(fr[0], QUAP_CREATE, &m), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(((Qua__V1__CreateReply *)m)->handle, 9);
    CU_ASSERT_EQUAL(((Qua__V1__CreateReply *)m)->id, 77);
    protobuf_c_message_free_unpacked(m, NULL);
    CU_ASSERT_EQUAL(quap_response_unpack(fr[1], QUAP_INVOKE, &m), QUA_EHANDLE);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_STRING_EQUAL(fr[1]->message, "no handle 12");
    CU_ASSERT_STRING_EQUAL(fr[2]->message, qua_strerror(QUA_ELIMIT));
    CU_ASSERT_EQUAL(quap_response_unpack(fr[2], QUAP_NMETHODS, &m), QUA_ENOMETHOD);
  }
  for (int i = 0; i < nf; i++)
    quap_frame_free(fr[i]);
  quap_decoder_fini(&d);
  quap_buf_fini(&b);
}

static void event_round_trip(void) {
  quap_buf_t b;
  quap_buf_init(&b);
  Qua__V1__Event ev = QUA__V1__EVENT__INIT;
  ev.binding = 2;
  ev.handle = 1;
  ev.callback = (char *)"notempty";
  ev.seq = 5;
  ev.dropped = 3;
  CU_ASSERT(quap_event_append(&b, &ev) > 0);
  quap_decoder_t d;
  quap_decoder_init(&d, 1024);
  size_t used;
  Qua__V1__Frame *f = NULL;
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, b.data, b.len, &used, &f), 1);
  CU_ASSERT_EQUAL(used, b.len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->kind, QUA__V1__FRAME__KIND__EVENT);
  CU_ASSERT_EQUAL(f->id, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f->event);
  CU_ASSERT_STRING_EQUAL(f->event->callback, "notempty");
  CU_ASSERT_EQUAL(f->event->seq, 5);
  CU_ASSERT_EQUAL(f->event->dropped, 3);
  quap_frame_free(f);
  quap_decoder_fini(&d);
  quap_buf_fini(&b);
}

static void request_with_wrong_input_type_is_refused(void) {
  quap_buf_t b;
  quap_buf_init(&b);
  Qua__V1__StatsRequest st = QUA__V1__STATS_REQUEST__INIT;
  CU_ASSERT_EQUAL(quap_request_append(&b, 1, QUAP_HELLO, &st.base), QUA_EINVAL);
  CU_ASSERT_EQUAL(quap_request_append(&b, 1, 999, &st.base), QUA_ENOMETHOD);
  CU_ASSERT_EQUAL(b.len, 0);
  quap_buf_fini(&b);
}

static void oversized_prefix_is_etoobig_and_sticky(void) {
  quap_decoder_t d;
  quap_decoder_init(&d, 100);
  uint8_t hdr[4] = {0, 0, 0, 101};
  size_t used;
  Qua__V1__Frame *f = NULL;
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, hdr, 2, &used, &f), 0);
  CU_ASSERT_EQUAL(used, 2);
  CU_ASSERT_TRUE(quap_decoder_partial(&d));
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, hdr + 2, 2, &used, &f), QUA_ETOOBIG);
  CU_ASSERT_PTR_NULL(f);
  CU_ASSERT_EQUAL(d.need, 101);
  uint8_t more[4] = {0, 0, 0, 0};
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, more, 4, &used, &f), QUA_ETOOBIG);
  quap_decoder_fini(&d);
  /* The largest value of the prefix, too. */
  quap_decoder_init(&d, QUAP_DEFAULT_MAX_FRAME);
  uint8_t huge[4] = {0xff, 0xff, 0xff, 0xff};
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, huge, 4, &used, &f), QUA_ETOOBIG);
  quap_decoder_fini(&d);
}

static void frame_at_the_limit_is_accepted(void) {
  quap_buf_t b;
  quap_buf_init(&b);
  Qua__V1__Frame fr = QUA__V1__FRAME__INIT;
  uint8_t body[200];
  memset(body, 0xab, sizeof body);
  fr.id = 1;
  fr.body.data = body;
  fr.body.len = sizeof body;
  int64_t n = quap_frame_append(&b, &fr);
  CU_ASSERT(n > 0);
  quap_decoder_t d;
  quap_decoder_init(&d, (size_t)n - QUAP_HEADER);
  size_t used;
  Qua__V1__Frame *f = NULL;
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, b.data, b.len, &used, &f), 1);
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f != NULL)
    CU_ASSERT_EQUAL(f->body.len, sizeof body);
  quap_frame_free(f);
  quap_decoder_fini(&d);
  /* One byte less of limit: refused. */
  quap_decoder_init(&d, (size_t)n - QUAP_HEADER - 1);
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, b.data, b.len, &used, &f), QUA_ETOOBIG);
  quap_decoder_fini(&d);
  quap_buf_fini(&b);
}

/* A frame whose fields repeat needs more than the block its length sizes
 * (frame.c): the rest is allocated alone, the last value of each field
 * wins, and freeing the frame releases everything (the ASan build's leak
 * check sees it). */
static void frame_whose_fields_repeat_decodes_past_its_block(void) {
  static uint8_t buf[4096];
  size_t n = 4;
  buf[n++] = 0x10; /* id = 77 */
  buf[n++] = 77;
  for (int i = 0; i < 300; i++) { /* message: 300 one-byte strings, the last "q" */
    buf[n++] = 0x32;
    buf[n++] = 1;
    buf[n++] = i == 299 ? 'q' : (uint8_t)('a' + i % 26);
  }
  for (int i = 0; i < 200; i++) { /* an unknown varint field, 200 times */
    buf[n++] = 0x78;
    buf[n++] = (uint8_t)i & 0x7f;
  }
  for (int i = 0; i < 3; i++) { /* body three times, the last "xyz" */
    buf[n++] = 0x22;
    buf[n++] = 3;
    memcpy(buf + n, i == 2 ? "xyz" : "abc", 3);
    n += 3;
  }
  /* event twice: callback "first", then callback "second" and arg 7 */
  static const uint8_t ev1[] = {0x3a, 7, 0x1a, 5, 'f', 'i', 'r', 's', 't'};
  static const uint8_t ev2[] = {0x3a, 10, 0x1a, 6, 's', 'e', 'c', 'o', 'n', 'd', 0x20, 7};
  memcpy(buf + n, ev1, sizeof ev1);
  n += sizeof ev1;
  memcpy(buf + n, ev2, sizeof ev2);
  n += sizeof ev2;
  size_t len = n - 4;
  buf[0] = (uint8_t)(len >> 24);
  buf[1] = (uint8_t)(len >> 16);
  buf[2] = (uint8_t)(len >> 8);
  buf[3] = (uint8_t)len;
  for (size_t step = 1; step <= n; step = step == 1 ? n : n + 1) { /* bytewise, then whole */
    quap_decoder_t d;
    quap_decoder_init(&d, 4096);
    int err;
    Qua__V1__Frame *f[1] = {NULL};
    CU_ASSERT_EQUAL_FATAL(feed_all(&d, buf, n, step, f, 1, &err), 1);
    CU_ASSERT_EQUAL(err, 0);
    CU_ASSERT_EQUAL(f[0]->id, 77);
    CU_ASSERT_STRING_EQUAL(f[0]->message, "q");
    CU_ASSERT_EQUAL(f[0]->body.len, 3);
    CU_ASSERT_EQUAL(memcmp(f[0]->body.data, "xyz", 3), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f[0]->event);
    CU_ASSERT_STRING_EQUAL(f[0]->event->callback, "second");
    CU_ASSERT_EQUAL(f[0]->event->arg, 7);
    CU_ASSERT_EQUAL(f[0]->base.n_unknown_fields, 200);
    quap_frame_free(f[0]);
    quap_decoder_fini(&d);
  }
}

/* A reply unpacked into an arena: what fits is carved from it, the rest
 * (here most of ten fired callbacks, past 64 bytes) comes from malloc and
 * is freed by the arena's allocator. */
static void reply_unpacks_into_an_arena_and_past_it(void) {
  Qua__V1__InvokeReply rep = QUA__V1__INVOKE_REPLY__INIT;
  Qua__V1__FiredCallback fc[10], *fp[10];
  char names[10][16];
  for (int i = 0; i < 10; i++) {
    qua__v1__fired_callback__init(&fc[i]);
    snprintf(names[i], sizeof names[i], "callback%d", i);
    fc[i].callback = names[i];
    fc[i].arg = (uint64_t)i * 3;
    fp[i] = &fc[i];
  }
  rep.has_result = true;
  rep.result = 42;
  rep.n_fired = 10;
  rep.fired = fp;
  quap_buf_t b;
  quap_buf_init(&b);
  CU_ASSERT(quap_response_append(&b, 5, 0, NULL, &rep.base) > 0);
  quap_decoder_t d;
  quap_decoder_init(&d, 4096);
  size_t used;
  Qua__V1__Frame *f = NULL;
  CU_ASSERT_EQUAL_FATAL(quap_decoder_feed(&d, b.data, b.len, &used, &f), 1);
  for (size_t cap = 0; cap <= 1024; cap += 64) {
    static _Alignas(16) unsigned char space[1024];
    quap_arena_t arena = {space, 0, cap, 0};
    ProtobufCAllocator a = quap_arena_allocator(&arena);
    ProtobufCMessage *m = NULL;
    CU_ASSERT_EQUAL_FATAL(quap_response_unpack_in(f, QUAP_INVOKE, &a, &m), 0);
    const Qua__V1__InvokeReply *r = (const Qua__V1__InvokeReply *)m;
    CU_ASSERT(arena.used <= cap);
    CU_ASSERT_EQUAL(r->result, 42);
    CU_ASSERT_EQUAL_FATAL(r->n_fired, 10);
    for (int i = 0; i < 10; i++) {
      CU_ASSERT_STRING_EQUAL(r->fired[i]->callback, names[i]);
      CU_ASSERT_EQUAL(r->fired[i]->arg, (uint64_t)i * 3);
    }
    /* What did not fit came from malloc, and is freed (a leak check sees a
     * skipped free); with all of it in the arena, nothing is left to free. */
    CU_ASSERT(cap > 0 || arena.spilled > 0);
    quap_message_free(m, &a);
    CU_ASSERT_EQUAL(arena.spilled, 0);
  }
  quap_frame_free(f);
  quap_decoder_fini(&d);
  quap_buf_fini(&b);
}

static void garbage_frame_is_eproto(void) {
  /* Field 1 with wire type 7 (invalid), then junk. */
  uint8_t bad[] = {0, 0, 0, 4, 0x0f, 0xff, 0xff, 0xff};
  quap_decoder_t d;
  quap_decoder_init(&d, 1024);
  size_t used;
  Qua__V1__Frame *f = NULL;
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, bad, sizeof bad, &used, &f), QUA_EPROTO);
  CU_ASSERT_PTR_NULL(f);
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, bad, sizeof bad, &used, &f), QUA_EPROTO);
  quap_decoder_fini(&d);
  /* The same split across reads. */
  quap_decoder_init(&d, 1024);
  int err;
  Qua__V1__Frame *fr[1];
  CU_ASSERT_EQUAL(feed_all(&d, bad, sizeof bad, 1, fr, 1, &err), 0);
  CU_ASSERT_EQUAL(err, QUA_EPROTO);
  quap_decoder_fini(&d);
}

static void truncated_stream_is_partial(void) {
  quap_buf_t b;
  quap_buf_init(&b);
  Qua__V1__OpenRequest o = QUA__V1__OPEN_REQUEST__INIT;
  o.name = (char *)"somequeue";
  CU_ASSERT(quap_request_append(&b, 3, QUAP_OPEN, &o.base) > 0);
  quap_decoder_t d;
  quap_decoder_init(&d, 1024);
  size_t used;
  Qua__V1__Frame *f = NULL;
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, b.data, b.len - 1, &used, &f), 0);
  CU_ASSERT_EQUAL(used, b.len - 1);
  CU_ASSERT_PTR_NULL(f);
  CU_ASSERT_TRUE(quap_decoder_partial(&d));
  /* The last byte completes it. */
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, b.data + b.len - 1, 1, &used, &f), 1);
  CU_ASSERT_PTR_NOT_NULL(f);
  CU_ASSERT_FALSE(quap_decoder_partial(&d));
  quap_frame_free(f);
  quap_decoder_fini(&d);
  quap_buf_fini(&b);
}

static void undecodable_body_is_eproto_but_frame_is_fine(void) {
  Qua__V1__Frame fr = QUA__V1__FRAME__INIT;
  uint8_t junk[] = {0x0a, 0x50, 0x01}; /* string field claiming 80 bytes, 1 present */
  fr.id = 9;
  fr.method = QUAP_OPEN;
  fr.body.data = junk;
  fr.body.len = sizeof junk;
  ProtobufCMessage *m = (ProtobufCMessage *)1;
  CU_ASSERT_EQUAL(quap_request_unpack(&fr, &m), QUA_EPROTO);
  CU_ASSERT_PTR_NULL(m);
  fr.method = 1000;
  CU_ASSERT_EQUAL(quap_request_unpack(&fr, &m), QUA_ENOMETHOD);
}

static void empty_frame_decodes_to_defaults(void) {
  uint8_t zero[4] = {0, 0, 0, 0};
  quap_decoder_t d;
  quap_decoder_init(&d, 1024);
  size_t used;
  Qua__V1__Frame *f = NULL;
  CU_ASSERT_EQUAL(quap_decoder_feed(&d, zero, 4, &used, &f), 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->id, 0);
  CU_ASSERT_EQUAL(f->kind, QUA__V1__FRAME__KIND__REQUEST);
  quap_frame_free(f);
  quap_decoder_fini(&d);
}

static void random_bytes_never_crash_the_decoder(void) {
  unsigned seed = 12345;
  long rounds = qtest_scale(2000, 300);
  for (long i = 0; i < rounds; i++) {
    uint8_t buf[256];
    size_t len = (size_t)(rand_r(&seed) % sizeof buf);
    for (size_t k = 0; k < len; k++)
      buf[k] = (uint8_t)rand_r(&seed);
    if (len >= 4 && (rand_r(&seed) & 1)) { /* a plausible prefix */
      buf[0] = buf[1] = 0;
      buf[2] = 0;
      buf[3] = (uint8_t)(len - 4);
    }
    quap_decoder_t d;
    quap_decoder_init(&d, 200);
    Qua__V1__Frame *fr[64];
    int err;
    int nf = feed_all(&d, buf, len, 1 + (size_t)(rand_r(&seed) % 17), fr, 64, &err);
    CU_ASSERT(err == 0 || err == QUA_EPROTO || err == QUA_ETOOBIG);
    for (int k = 0; k < nf; k++) {
      ProtobufCMessage *m = NULL;
      if (quap_request_unpack(fr[k], &m) == 0)
        protobuf_c_message_free_unpacked(m, NULL);
      quap_frame_free(fr[k]);
    }
    quap_decoder_fini(&d);
  }
}

/* --- The one-pass InvokeRequest reader against protobuf-c ------------------------ */

static uint64_t rnd_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void) { /* xorshift64*, seeded: every run tests the same inputs */
  rnd_state ^= rnd_state >> 12;
  rnd_state ^= rnd_state << 25;
  rnd_state ^= rnd_state >> 27;
  return rnd_state * 0x2545f4914f6cdd1du;
}

/* A varint of v, now and then stretched with zero continuation bytes (still
 * valid up to ten bytes, past that not), or cut short. */
static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  if (rnd() % 16 == 0) { /* non-minimal: 1..4 more bytes */
    p[n - 1] |= 0x80;
    for (unsigned k = (unsigned)(rnd() % 4); k > 0; k--)
      p[n++] = 0x80;
    p[n++] = 0;
  }
  return n;
}

static uint64_t rnd_value(void) {
  switch (rnd() % 4) {
  case 0: return rnd() % 128;
  case 1: return rnd() % 100000;
  case 2: return ~UINT64_C(0) - rnd() % 4;
  default: return rnd();
  }
}

/* The mangling every generator below ends with: a field of any number
 * and wire type (another message's, or garbage), a byte anywhere, a
 * truncation. */
static size_t put_stray_field(uint8_t *buf) {
  buf[0] = (uint8_t)rnd();
  return 1 + put_varint(buf + 1, rnd() % 8);
}

static void flip_a_byte(uint8_t *buf, size_t n) {
  if (n > 0)
    buf[rnd() % n] = (uint8_t)rnd();
}

static size_t maybe_truncated(size_t n) {
  return n > 0 && rnd() % 8 == 0 ? rnd() % n : n;
}

/* Runs one reader against protobuf-c over 50,000 seeded inputs from gen;
 * check reads one input both ways, asserts they agree where the one-pass
 * reader took it, and says whether it did. Both paths must be taken often. */
static void agree_with_protobuf_c(const char *what, size_t (*gen)(uint8_t *, size_t),
                                  bool (*check)(int, const uint8_t *, size_t)) {
  int fast = 0, left = 0;
  for (int i = 0; i < 50000; i++) {
    uint8_t buf[2048];
    size_t len = gen(buf, sizeof buf);
    if (check(i, buf, len))
      fast++;
    else
      left++;
  }
  fprintf(stderr, "\n  %d %s read in one pass, %d left to protobuf-c\n", fast, what, left);
  CU_ASSERT(fast > 10000);
  CU_ASSERT(left > 10000);
}

/* One InvokeRequest's wire form, as a client writes it or mangled. */
static size_t random_invoke(uint8_t *buf, size_t cap) {
  size_t n = 0;
  for (int fields = (int)(rnd() % 7); fields > 0 && n + 200 < cap; fields--) {
    switch (rnd() % 8) {
    case 0:
    case 1:
      buf[n++] = 1 << 3;
      n += put_varint(buf + n, rnd_value());
      break;
    case 2:
    case 3: {
      size_t len = rnd() % 24;
      buf[n++] = 2 << 3 | 2;
      n += put_varint(buf + n, len);
      for (size_t i = 0; i < len; i++)
        buf[n++] = rnd() % 32 == 0 ? (uint8_t)rnd() : (uint8_t)('a' + rnd() % 26);
      break;
    }
    case 4:
      buf[n++] = 3 << 3;
      n += put_varint(buf + n, rnd_value());
      break;
    case 5: {
      uint8_t run[160];
      size_t len = 0;
      for (int k = (int)(rnd() % 12); k > 0; k--)
        len += put_varint(run + len, rnd_value());
      buf[n++] = 3 << 3 | 2;
      n += put_varint(buf + n, len);
      memcpy(buf + n, run, len);
      n += len;
      break;
    }
    case 6:
      n += put_stray_field(buf + n);
      break;
    default:
      flip_a_byte(buf, n);
      break;
    }
  }
  return maybe_truncated(n);
}

static bool invoke_read_alike(int i, const uint8_t *buf, size_t len) {
  Qua__V1__InvokeRequest *pb = qua__v1__invoke_request__unpack(NULL, len, buf);
  quap_stack_arena_t sa;
  ProtobufCAllocator *a = quap_stack_arena_init(&sa);
  Qua__V1__InvokeRequest *m = NULL;
  bool fast = quap_invoke_unpack_fast(buf, len, a, &m);
  if (!fast) {
    CU_ASSERT_PTR_NULL(m);
  } else {
    CU_ASSERT_PTR_NOT_NULL_FATAL(pb); /* never reads what protobuf-c refuses */
    bool same = m->handle == pb->handle && strcmp(m->entry, pb->entry) == 0 &&
                m->n_args == pb->n_args && pb->base.n_unknown_fields == 0 &&
                (m->n_args == 0 || memcmp(m->args, pb->args, m->n_args * sizeof *m->args) == 0);
    if (!same)
      fprintf(stderr, "\n  input %d (%zu bytes) read otherwise than protobuf-c reads it\n", i, len);
    CU_ASSERT(same);
    CU_ASSERT_EQUAL(sa.arena.spilled, 0);
    quap_message_free(&m->base, a);
  }
  if (pb != NULL)
    qua__v1__invoke_request__free_unpacked(pb, NULL);
  return fast;
}

static void fast_invoke_reader_agrees_with_protobuf_c(void) {
  agree_with_protobuf_c("inputs", random_invoke, invoke_read_alike);
}

/* An Invoke's reply is written as protobuf-c writes it, byte for byte. */
static void invoke_replies_are_protobuf_c_bytes(void) {
  for (int i = 0; i < 20000; i++) {
    Qua__V1__InvokeReply rep = QUA__V1__INVOKE_REPLY__INIT;
    switch (rnd() % 4) {
    case 0: rep.status = 0; break;
    case 1: rep.status = 1; break;
    case 2: rep.status = -(int32_t)(rnd() % 40); break;
    default: rep.status = (int32_t)(uint32_t)rnd(); break;
    }
    rep.has_result = rnd() % 2;
    rep.result = rnd() % 3 == 0 ? 0 : rnd_value();
    uint64_t id = rnd() % 16 == 0 ? 0 : rnd_value();
    uint8_t body[64], want[128];
    Qua__V1__Frame f = QUA__V1__FRAME__INIT;
    f.kind = QUA__V1__FRAME__KIND__RESPONSE;
    f.id = id;
    f.body.len = qua__v1__invoke_reply__pack(&rep, body);
    f.body.data = f.body.len ? body : NULL;
    size_t n = qua__v1__frame__pack(&f, want + 4);
    want[0] = want[1] = want[2] = 0;
    want[3] = (uint8_t)n;
    quap_buf_t b;
    quap_buf_init(&b);
    CU_ASSERT_EQUAL_FATAL(quap_response_append(&b, id, 0, NULL, &rep.base), (int64_t)(n + 4));
    bool same = b.len == n + 4 && memcmp(b.data, want, n + 4) == 0;
    if (!same)
      fprintf(stderr, "\n  reply %d (status %d, result %llu, id %llu) written otherwise\n", i,
              rep.status, (unsigned long long)rep.result, (unsigned long long)id);
    CU_ASSERT(same);
    quap_buf_fini(&b);
  }
}

/* An InvokeReply's wire form, as the daemon writes it or mangled. */
static size_t random_reply(uint8_t *buf, size_t cap) {
  size_t n = 0;
  for (int fields = (int)(rnd() % 5); fields > 0 && n + 100 < cap; fields--) {
    switch (rnd() % 7) {
    case 0:
    case 1:
      buf[n++] = 1 << 3;
      n += put_varint(buf + n, rnd() % 2 ? (uint32_t)(int32_t)-(int32_t)(rnd() % 80) : rnd_value());
      break;
    case 2:
      buf[n++] = 2 << 3;
      n += put_varint(buf + n, rnd() % 4 == 0 ? rnd() % 300 : 1);
      break;
    case 3:
      buf[n++] = 3 << 3;
      n += put_varint(buf + n, rnd_value());
      break;
    case 4: { /* a fired callback */
      uint8_t fired[40];
      size_t len = 0, name = 1 + rnd() % 10;
      fired[len++] = 1 << 3 | 2;
      fired[len++] = (uint8_t)name;
      for (size_t i = 0; i < name; i++)
        fired[len++] = (uint8_t)('a' + rnd() % 26);
      fired[len++] = 2 << 3;
      len += put_varint(fired + len, rnd() % 1000);
      buf[n++] = 4 << 3 | 2;
      n += put_varint(buf + n, len);
      memcpy(buf + n, fired, len);
      n += len;
      break;
    }
    case 5:
      n += put_stray_field(buf + n);
      break;
    default:
      flip_a_byte(buf, n);
      break;
    }
  }
  return maybe_truncated(n);
}

static bool reply_read_alike(int i, const uint8_t *buf, size_t len) {
  Qua__V1__InvokeReply *pb = qua__v1__invoke_reply__unpack(NULL, len, buf);
  quap_stack_arena_t sa;
  ProtobufCAllocator *a = quap_stack_arena_init(&sa);
  Qua__V1__InvokeReply *r = NULL;
  bool fast = quap_invoke_reply_unpack_fast(buf, len, a, &r);
  if (fast) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(pb); /* never reads what protobuf-c refuses */
    bool same = r->status == pb->status && r->has_result == pb->has_result &&
                r->result == pb->result && r->n_fired == 0 && pb->n_fired == 0 &&
                pb->base.n_unknown_fields == 0;
    if (!same)
      fprintf(stderr, "\n  reply %d (%zu bytes) read otherwise than protobuf-c reads it\n", i, len);
    CU_ASSERT(same);
    quap_message_free(&r->base, a);
  }
  if (pb != NULL)
    qua__v1__invoke_reply__free_unpacked(pb, NULL);
  return fast;
}

static void fast_reply_reader_agrees_with_protobuf_c(void) {
  agree_with_protobuf_c("replies", random_reply, reply_read_alike);
}

/* One Frame's wire form: a request as a client writes it, or mangled. */
static size_t random_frame(uint8_t *buf, size_t cap) {
  size_t n = 0;
  for (int fields = (int)(rnd() % 6); fields > 0 && n + 200 < cap; fields--) {
    switch (rnd() % 9) {
    case 0:
      buf[n++] = 1 << 3;
      n += put_varint(buf + n, rnd() % 4 == 0 ? rnd() % 4 : 0);
      break;
    case 1:
    case 2:
      buf[n++] = 2 << 3;
      n += put_varint(buf + n, rnd_value());
      break;
    case 3:
      buf[n++] = 3 << 3;
      n += put_varint(buf + n, rnd() % 4 == 0 ? rnd_value() : rnd() % 20);
      break;
    case 4:
    case 5: {
      size_t len = rnd() % 40;
      buf[n++] = 4 << 3 | 2;
      n += put_varint(buf + n, len);
      for (size_t i = 0; i < len; i++)
        buf[n++] = (uint8_t)rnd();
      break;
    }
    case 6: /* status, message or another field */
      n += put_stray_field(buf + n);
      break;
    case 7:
      buf[n++] = 5 << 3;
      n += put_varint(buf + n, rnd() % 8);
      break;
    default:
      flip_a_byte(buf, n);
      break;
    }
  }
  return maybe_truncated(n);
}

static bool frame_read_alike(int i, const uint8_t *buf, size_t len) {
  Qua__V1__Frame *pb = qua__v1__frame__unpack(NULL, len, buf);
  static _Alignas(16) unsigned char space[4096];
  quap_arena_t arena = {space, 0, sizeof space, 0};
  Qua__V1__Frame *f = quap_frame_unpack_fast(buf, len, &arena);
  if (f != NULL) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(pb); /* never reads what protobuf-c refuses */
    bool same = f->kind == pb->kind && f->id == pb->id && f->method == pb->method &&
                f->status == pb->status && strcmp(f->message, pb->message) == 0 &&
                f->event == NULL && pb->event == NULL && pb->base.n_unknown_fields == 0 &&
                f->body.len == pb->body.len && (f->body.data == NULL) == (pb->body.data == NULL) &&
                (f->body.len == 0 || memcmp(f->body.data, pb->body.data, f->body.len) == 0);
    if (!same)
      fprintf(stderr, "\n  frame %d (%zu bytes) read otherwise than protobuf-c reads it\n", i, len);
    CU_ASSERT(same);
    CU_ASSERT_EQUAL(arena.spilled, 0);
  }
  if (pb != NULL)
    qua__v1__frame__free_unpacked(pb, NULL);
  return f != NULL;
}

/* An empty body arrives as (NULL, 0): each one-pass reader takes it, as protobuf-c does, for a
 * message of defaults, and does no arithmetic on the NULL (the fuzzer found NULL + 0). */
static void fast_readers_take_an_empty_body_as_null(void) {
  CU_ASSERT_TRUE(invoke_read_alike(0, NULL, 0));
  CU_ASSERT_TRUE(reply_read_alike(0, NULL, 0));
  CU_ASSERT_TRUE(frame_read_alike(0, NULL, 0));
}

static void fast_frame_reader_agrees_with_protobuf_c(void) {
  agree_with_protobuf_c("frames", random_frame, frame_read_alike);
}

/* What clients send is read in one pass, up to QUAP_FAST_ARGS arguments and
 * a printable entry, and through Invoke's path (quap_request_unpack_in). */
static void client_invokes_take_the_one_pass_reader(void) {
  for (int i = 0; i < 2000; i++) {
    uint64_t args[40];
    size_t nargs = rnd() % 41;
    for (size_t k = 0; k < nargs; k++)
      args[k] = rnd_value();
    char entry[24];
    size_t elen = rnd() % sizeof entry;
    for (size_t k = 0; k < elen; k++)
      entry[k] = (char)(0x20 + rnd() % 95);
    entry[elen] = '\0';
    Qua__V1__InvokeRequest in = QUA__V1__INVOKE_REQUEST__INIT;
    in.handle = rnd_value();
    in.entry = entry;
    in.n_args = nargs;
    in.args = args;
    uint8_t body[1024];
    Qua__V1__Frame f = QUA__V1__FRAME__INIT;
    f.kind = QUA__V1__FRAME__KIND__REQUEST;
    f.method = QUAP_INVOKE;
    f.body.len = qua__v1__invoke_request__pack(&in, body);
    f.body.data = body;
    quap_stack_arena_t sa;
    ProtobufCAllocator *a = quap_stack_arena_init(&sa);
    Qua__V1__InvokeRequest *m = NULL;
    CU_ASSERT_EQUAL(quap_invoke_unpack_fast(body, f.body.len, a, &m), nargs <= 32);
    ProtobufCMessage *out = NULL;
    CU_ASSERT_EQUAL_FATAL(quap_request_unpack_in(&f, a, &out), 0);
    const Qua__V1__InvokeRequest *r = (const Qua__V1__InvokeRequest *)out;
    CU_ASSERT_EQUAL(r->handle, in.handle);
    CU_ASSERT_STRING_EQUAL(r->entry, entry);
    CU_ASSERT_EQUAL_FATAL(r->n_args, nargs);
    CU_ASSERT(nargs == 0 || memcmp(r->args, args, nargs * sizeof *args) == 0);
    quap_message_free(out, a);
    CU_ASSERT_EQUAL(sa.arena.spilled, 0);
    /* Written by quap_request_append as protobuf-c writes it, byte for byte. */
    f.id = rnd() % 16 == 0 ? 0 : rnd_value();
    uint8_t want[1300];
    size_t wn = qua__v1__frame__pack(&f, want + 4);
    want[0] = (uint8_t)(wn >> 24);
    want[1] = (uint8_t)(wn >> 16);
    want[2] = (uint8_t)(wn >> 8);
    want[3] = (uint8_t)wn;
    quap_buf_t qb;
    quap_buf_init(&qb);
    CU_ASSERT_EQUAL(quap_request_append(&qb, f.id, QUAP_INVOKE, &in.base), (int64_t)(wn + 4));
    CU_ASSERT(qb.len == wn + 4 && memcmp(qb.data, want, wn + 4) == 0);
    quap_buf_fini(&qb);
    /* The Frame around it, read in one pass. */
    uint8_t frame[1200];
    size_t flen = qua__v1__frame__pack(&f, frame);
    static _Alignas(16) unsigned char space[2048];
    quap_arena_t arena = {space, 0, sizeof space, 0};
    Qua__V1__Frame *g = quap_frame_unpack_fast(frame, flen, &arena);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT(g->id == f.id && g->method == QUAP_INVOKE && g->body.len == f.body.len &&
              memcmp(g->body.data, body, f.body.len) == 0);
  }
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"method_indices_match_descriptor", method_indices_match_descriptor},
      {"request_round_trip_whole_and_bytewise", request_round_trip_whole_and_bytewise},
      {"response_and_error_round_trip", response_and_error_round_trip},
      {"event_round_trip", event_round_trip},
      {"request_with_wrong_input_type_is_refused", request_with_wrong_input_type_is_refused},
      {"oversized_prefix_is_etoobig_and_sticky", oversized_prefix_is_etoobig_and_sticky},
      {"frame_at_the_limit_is_accepted", frame_at_the_limit_is_accepted},
      {"frame_whose_fields_repeat_decodes_past_its_block",
       frame_whose_fields_repeat_decodes_past_its_block},
      {"reply_unpacks_into_an_arena_and_past_it", reply_unpacks_into_an_arena_and_past_it},
      {"garbage_frame_is_eproto", garbage_frame_is_eproto},
      {"truncated_stream_is_partial", truncated_stream_is_partial},
      {"undecodable_body_is_eproto_but_frame_is_fine", undecodable_body_is_eproto_but_frame_is_fine},
      {"empty_frame_decodes_to_defaults", empty_frame_decodes_to_defaults},
      {"random_bytes_never_crash_the_decoder", random_bytes_never_crash_the_decoder},
      {"fast_invoke_reader_agrees_with_protobuf_c", fast_invoke_reader_agrees_with_protobuf_c},
      {"client_invokes_take_the_one_pass_reader", client_invokes_take_the_one_pass_reader},
      {"fast_frame_reader_agrees_with_protobuf_c", fast_frame_reader_agrees_with_protobuf_c},
      {"fast_readers_take_an_empty_body_as_null", fast_readers_take_an_empty_body_as_null},
      {"invoke_replies_are_protobuf_c_bytes", invoke_replies_are_protobuf_c_bytes},
      {"fast_reply_reader_agrees_with_protobuf_c", fast_reply_reader_agrees_with_protobuf_c},
      {NULL, NULL},
  };
  return qtest_run("frame", cases);
}
