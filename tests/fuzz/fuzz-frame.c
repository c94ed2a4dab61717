/* fuzz-frame.c -- fuzz harness: quad's frame decoder and request bodies (proto/frame.c) on any bytes.
 *
 * Input: one control byte, then the stream a client would send. The control byte's low six
 * bits + 1 are the size of the reads the stream arrives in (so frames split across reads
 * are decoded too); bit 6 chooses a small frame limit (256 bytes) instead of quad's default.
 * Every frame is handled as quad's session does (a request body is unpacked with its
 * method's input message) and, unless it carries fields protobuf-c does not know, must
 * survive a round trip: packed, decoded again, packed again, the same bytes. After an error
 * the decoder must stay in it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "frame.h"

/* Packs f, decodes the bytes in one feed, packs the result: the same bytes. */
static void round_trip(const Qua__V1__Frame *f) {
  quap_buf_t a, b;
  quap_buf_init(&a);
  quap_buf_init(&b);
  if (quap_frame_append(&a, f) < 0)
    goto out; /* out of memory */
  quap_decoder_t d;
  quap_decoder_init(&d, a.len);
  size_t used = 0;
  Qua__V1__Frame *g = NULL;
  int r = quap_decoder_feed(&d, a.data, a.len, &used, &g);
  CHECK(r == 1 && used == a.len && g != NULL);
  CHECK(quap_frame_append(&b, g) > 0);
  CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
  quap_frame_free(g);
  quap_decoder_fini(&d);
out:
  quap_buf_fini(&a);
  quap_buf_fini(&b);
}

/* Whether protobuf-c kept fields of f it does not know. It keeps them verbatim and packs
 * them again, field number 0 included, which it accepts in a key of two or more bytes but
 * refuses in the one-byte key it writes: such a frame need not survive a round trip. */
static bool has_unknown_fields(const Qua__V1__Frame *f) {
  return f->base.n_unknown_fields > 0 || (f->event != NULL && f->event->base.n_unknown_fields > 0);
}

/* What quad does with a decoded frame before dispatching it. */
static void handle(const Qua__V1__Frame *f) {
  if (f->kind == QUA__V1__FRAME__KIND__REQUEST) {
    ProtobufCMessage *in = NULL;
    int r = quap_request_unpack(f, &in);
    CHECK(r == 0 || r == QUA_ENOMETHOD || r == QUA_EPROTO);
    CHECK((r == 0) == (in != NULL));
    if (in != NULL)
      protobuf_c_message_free_unpacked(in, NULL);
  }
  if (!has_unknown_fields(f))
    round_trip(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t chunk = (size_t)(data[0] & 63) + 1;
  size_t max_frame = data[0] & 64 ? 256 : QUAP_DEFAULT_MAX_FRAME;
  data++;
  size--;
  quap_decoder_t d;
  quap_decoder_init(&d, max_frame);
  size_t off = 0;
  int error = 0;
  while (off < size && error == 0) {
    size_t n = size - off < chunk ? size - off : chunk;
    size_t done = 0;
    /* A read is consumed one frame at a time, as session.c does. */
    while (done < n) {
      size_t used = 0;
      Qua__V1__Frame *f = NULL;
      int r = quap_decoder_feed(&d, data + off + done, n - done, &used, &f);
      CHECK(used <= n - done);
      if (r < 0) {
        CHECK(r == QUA_ETOOBIG || r == QUA_EPROTO || r == QUA_ENOMEM);
        CHECK(f == NULL);
        error = r;
        break;
      }
      CHECK((r == 1) == (f != NULL));
      if (r == 1) {
        handle(f);
        quap_frame_free(f);
      } else {
        CHECK(used == n - done); /* no frame: everything was taken */
      }
      done += used;
    }
    off += n;
  }
  if (error != 0) {
    /* Sticky: the stream is out of step, every further feed says so. */
    size_t used = 1;
    Qua__V1__Frame *f = NULL;
    CHECK(quap_decoder_feed(&d, data, size, &used, &f) == error && used == 0 && f == NULL);
  }
  quap_decoder_fini(&d);
  return 0;
}
