/* buffer.c -- the buffer quaject: a byte ring with span write/read.
 *
 * One writer and one reader (a second site on either side is refused).
 *
 *  1. The writer owns `head`, the reader owns `tail` (buffer_pos_t): each
 *     counts the bytes its side ever moved, is stored only by that side,
 *     and indexes the ring as count & mask. `used` is the only word both
 *     sides write: the writer adds what it wrote after copying it in, the
 *     reader subtracts what it took after copying it out (both acq_rel).
 *  2. The writer reads `used` (acquire) to find free space; it can only
 *     shrink concurrently, so the space found stays free. The reader reads
 *     `used` (acquire) to find data; it can only grow, so the data found
 *     stays there, and the acquire makes its bytes visible.
 *  3. The fetch-and-add and fetch-and-sub are the linearisation points, so
 *     each knows the exact count before it: a write that found used == 0
 *     fires "notempty", a read that found used == capacity fires "notfull",
 *     each exactly once per transition.
 *
 * After a crash (quad --state-dir keeps the positions and the ring in a
 * MAP_SHARED file, qua_storage_map; the page cache keeps what a killed
 * process stored, as of the instruction it was killed at).
 *
 *  4. The order of the stores, each side's program order: a write (W1)
 *     copies its n bytes into the ring at head, (W2) stores head + n with
 *     release, (W3) adds n to used; a read (R1) copies n bytes out from
 *     tail, (R2) stores tail + n with release, (R3) subtracts n from used.
 *     The release keeps the copy before the position's store in the code
 *     the compiler emits (and is a plain store on x86-64: the hot path has
 *     no fence and no call it did not have); the read-modify-writes keep
 *     W2 and R2 before W3 and R3. Nothing else is stored.
 *  5. Recovery (buffer_recover) reads head H and tail T and returns the
 *     bytes at positions T .. H-1, oldest first; `used` is not consulted.
 *     Let Wd and Rd be the bytes of the writes and reads whose W3 and R3
 *     had run. With one writer and one reader, H is Wd or Wd + n of the
 *     write in flight past W2, and T is Rd or Rd + n of the read in flight
 *     past R2 (so Rd <= T). That write found n <= capacity - (Wd - Rd')
 *     with Rd' <= Rd <= T the reads done when it loaded used, so
 *     H - T <= capacity; that read found n <= Wd' - Rd with Wd' <= H, so
 *     T <= H. A recovery that finds otherwise refuses the file.
 *  6. Exactly a prefix of the writes minus a prefix of the reads. Every
 *     position p in T .. H-1 holds the byte the write covering p copied:
 *     that write ran W1 before the W2 that took H past p. Nothing wrote
 *     over it since: a write reaches position p + capacity only after
 *     finding it free in used, that is after the R3 of the read of p, whose
 *     R2 had taken T past p. No byte a read returned is in T .. H-1: a read
 *     returns after R3, so its bytes are below Rd <= T. So the recovered
 *     bytes are those of the writes that ran W2 (every completed write,
 *     and the one in flight wholly or not at all: its bytes are there iff
 *     it stored head) minus those of the reads that ran R2 (every
 *     completed read, and the one in flight wholly or not at all: its
 *     bytes are lost iff it stored tail, since its caller never got them).
 *     Never garbage (every byte was written by W1 of a write that
 *     stored head), never a byte twice.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qua-internal.h"
#include "types-internal.h"
#include "buffer-stencils.h"

enum { P_CAPACITY };

/* Copies up to len bytes in; returns how many, firing the callbacks. */
static size_t ring_write(qua_site_t *s, const unsigned char *src, size_t len) {
  buffer_t *b = s->state;
  bool edge;
  size_t n = buffer_write_k(b->pos, b->ring, b->mask, b->cap, src, len, &edge);
  if (edge)
    qua__broadcast(s->target, BUFFER_CB_NOTEMPTY, 0);
  if (n < len)
    qua__fire(s, BUFFER_CB_FULL, len - n);
  return n;
}

/* Copies up to len bytes out; returns how many, firing the callbacks. */
static size_t ring_read(qua_site_t *s, unsigned char *dst, size_t len) {
  buffer_t *b = s->state;
  bool edge;
  size_t n = buffer_read_k(b->pos, b->ring, b->mask, b->cap, dst, len, &edge);
  if (edge)
    qua__broadcast(s->target, BUFFER_CB_NOTFULL, 0);
  if (n == 0 && len > 0)
    qua__fire(s, BUFFER_CB_EMPTY, 0);
  return n;
}

/* write(ptr, len): stores as many bytes as fit, returns the count; "full"
 * fires with the number not stored. */
static int buffer_write(qua_site_t *s, uint64_t p, uint64_t len, uint64_t *ret) {
  *ret = ring_write(s, (const unsigned char *)(uintptr_t)p, len);
  return *ret == len ? QUA_OK : *ret == 0 ? QUA_DIVERTED : QUA_OK;
}

/* read(ptr, len): takes up to len bytes, returns the count; "empty" fires
 * when there were none. */
static int buffer_read(qua_site_t *s, uint64_t p, uint64_t len, uint64_t *ret) {
  *ret = ring_read(s, (unsigned char *)(uintptr_t)p, len);
  return *ret == 0 && len > 0 ? QUA_DIVERTED : QUA_OK;
}

/* putb(byte) and getb(): one byte, for wiring buffers to pumps. */
static int buffer_putb(qua_site_t *s, uint64_t v, uint64_t a1, uint64_t *ret) {
  unsigned char c = (unsigned char)v;
  if (v > 0xff)
    return QUA_EINVAL;
  return ring_write(s, &c, 1) == 1 ? QUA_OK : QUA_DIVERTED;
}

static int buffer_getb(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  unsigned char c;
  if (ring_read(s, &c, 1) == 0)
    return QUA_DIVERTED;
  *ret = c;
  return QUA_OK;
}

static int buffer_count(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  *ret = atomic_load_explicit(&((buffer_t *)s->state)->pos->used, memory_order_relaxed);
  return QUA_OK;
}

static int buffer_sites_changed(qua_quaject_t *q, int entry, int phase) {
  if (phase == QUA_SITES_BEFORE_OPEN &&
      (q->weight[BUFFER_E_WRITE] + q->weight[BUFFER_E_PUTB] > 1 || q->weight[BUFFER_E_READ] + q->weight[BUFFER_E_GETB] > 1))
    return qua__refuse(QUA_ELIMIT, "a buffer has one writer site and one reader site");
  return QUA_OK;
}

/* write and read have templates (buffer-templates.c): the ring's address,
 * mask and capacity and the caller's handler for full or empty are folded
 * in. */
static int buffer_site_synth(qua_quaject_t *q, qua_site_t *s, qua_synth_part_t *part) {
  buffer_t *b = QUA__STATE(q, buffer_t);
  int cb;
  if (s->entry == BUFFER_E_WRITE) {
    part->tmpl = &bt_tmpl_bt_write;
    part->variant = "write";
    cb = BUFFER_CB_FULL;
  } else if (s->entry == BUFFER_E_READ) {
    part->tmpl = &bt_tmpl_bt_read;
    part->variant = "read";
    cb = BUFFER_CB_EMPTY;
  } else {
    return QUA_ENOENTRY;
  }
  uint64_t fn, ctx;
  qua__invoker_handler(s, cb, &fn, &ctx);
  part->holes[0].name = "bt_buf";
  part->holes[0].value = (uint64_t)(uintptr_t)b->pos;
  part->holes[1].name = "bt_ring";
  part->holes[1].value = (uint64_t)(uintptr_t)b->ring;
  part->holes[2].name = "bt_mask";
  part->holes[2].value = b->mask;
  part->holes[3].name = "bt_cap";
  part->holes[3].value = b->cap;
  part->holes[4].name = "bt_target";
  part->holes[4].value = (uint64_t)(uintptr_t)q;
  part->holes[5].name = "bt_handler_fn";
  part->holes[5].value = fn;
  part->holes[6].name = "bt_handler_ctx";
  part->holes[6].value = ctx;
  part->nholes = 7;
  return QUA_OK;
}

/* What a ring written by another build must agree on to be read (note 5). */
#define BUFFER_LAYOUT                                                                             \
  ((uint64_t)sizeof(buffer_pos_t) << 32 ^ (uint64_t)offsetof(buffer_pos_t, head) << 16 ^           \
   (uint64_t)offsetof(buffer_pos_t, tail) << 4 ^ 2)

static int buffer_init(qua_quaject_t *q, const uint64_t *p) {
  buffer_t *b = QUA__STATE(q, buffer_t);
  b->cap = p[P_CAPACITY];
  b->mask = b->cap - 1;
  unsigned char *store = qua_storage_map(q, BUFFER_RING_AT + b->cap);
  if (store != NULL) {
    b->pos = (buffer_pos_t *)(void *)store;
    b->ring = store + BUFFER_RING_AT;
  } else {
    b->pos = &b->own;
    b->ring = malloc(b->cap);
    if (b->ring == NULL)
      return QUA_ENOMEM;
  }
  b->pos->capacity = b->cap;
  return QUA_OK;
}

static void buffer_fini(qua_quaject_t *q) {
  buffer_t *b = QUA__STATE(q, buffer_t);
  if (b->pos == &b->own)
    free(b->ring);
}

/* The bytes a dead process's buffer held (notes 5, 6). */
static int buffer_recover(const void *mem, size_t bytes, void *out, size_t *n, char *why,
                          size_t whylen) {
  const buffer_pos_t *pos = mem;
  uint64_t cap = bytes > BUFFER_RING_AT ? pos->capacity : 0;
  if (bytes <= BUFFER_RING_AT || cap != bytes - BUFFER_RING_AT || (cap & (cap - 1)) != 0) {
    snprintf(why, whylen, "%zu bytes, not the size of a buffer of the capacity it names (%" PRIu64
             ")", bytes, cap);
    return QUA_EINVAL;
  }
  uint64_t head = atomic_load_explicit(&pos->head, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&pos->tail, memory_order_relaxed);
  if (head - tail > cap) {
    snprintf(why, whylen, "its positions (head %" PRIu64 ", tail %" PRIu64 ") are not those of a "
             "buffer of capacity %" PRIu64, head, tail, cap);
    return QUA_EINVAL;
  }
  const unsigned char *ring = (const unsigned char *)mem + BUFFER_RING_AT;
  unsigned char *dst = out;
  for (uint64_t p = tail; p != head; p++)
    *dst++ = ring[p & (cap - 1)];
  *n = (size_t)(head - tail);
  return QUA_OK;
}

static int buffer_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const buffer_t *b = QUA__STATE(q, const buffer_t);
  return snprintf(buf, len, "count=%zu capacity=%zu", atomic_load(&b->pos->used), b->cap);
}

static const qua_param_def_t buffer_params[] = {
    [P_CAPACITY] = {"capacity", 4096, 1, 1u << 24, QUA_PARAM_POW2, "bytes, a power of two"},
};

static const qua_entry_def_t buffer_entries[] = {
    [BUFFER_E_WRITE] = {"write", 2, true, false, buffer_write, "store up to len bytes from ptr"},
    [BUFFER_E_READ] = {"read", 2, true, false, buffer_read, "take up to len bytes into ptr"},
    [BUFFER_E_PUTB] = {"putb", 1, false, true, buffer_putb, "store one byte"},
    [BUFFER_E_GETB] = {"getb", 0, true, true, buffer_getb, "take one byte"},
    [BUFFER_E_COUNT] = {"count", 0, true, true, buffer_count, "bytes in the buffer"},
};

static const qua_callback_def_t buffer_callbacks[] = {
    [BUFFER_CB_FULL] = {"full", QUA_CB_INVOKER, "a write found no room for some bytes (arg: how many)"},
    [BUFFER_CB_NOTFULL] = {"notfull", QUA_CB_BROADCAST, "a read took the buffer from full to not full"},
    [BUFFER_CB_EMPTY] = {"empty", QUA_CB_INVOKER, "a read found nothing"},
    [BUFFER_CB_NOTEMPTY] = {"notempty", QUA_CB_BROADCAST, "a write took the buffer from empty to not empty"},
};

const qua_type_t qua__buffer_type = {
    .name = "buffer",
    .summary = "byte ring with span write/read; one writer, one reader",
    .state_size = sizeof(buffer_t),
    .params = buffer_params,
    .nparams = 1,
    .entries = buffer_entries,
    .nentries = 5,
    .callbacks = buffer_callbacks,
    .ncallbacks = 4,
    .ops = {.init = buffer_init,
            .fini = buffer_fini,
            .sites_changed = buffer_sites_changed,
            .site_synth = buffer_site_synth,
            .describe = buffer_describe,
            .recover = buffer_recover},
    .storage_layout = BUFFER_LAYOUT,
};
