/* buffer.c -- the buffer quaject: a byte ring with span write/read.
 *
 * One writer and one reader (a second site on either side is refused).
 *
 *  1. The writer owns `head`, the reader owns `tail`; both are private to
 *     their side (positions modulo capacity). `used` is the only shared
 *     word: the writer adds what it wrote after copying it in (release),
 *     the reader subtracts what it took after copying it out (release).
 *  2. The writer reads `used` (acquire) to find free space; it can only
 *     shrink concurrently, so the space found stays free. The reader reads
 *     `used` (acquire) to find data; it can only grow, so the data found
 *     stays there, and the acquire makes its bytes visible.
 *  3. The fetch-and-add and fetch-and-sub are the linearisation points, so
 *     each knows the exact count before it: a write that found used == 0
 *     fires "notempty", a read that found used == capacity fires "notfull",
 *     each exactly once per transition.
 */
#include <inttypes.h>
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
  size_t n = buffer_write_k(b, b->ring, b->mask, b->cap, src, len, &edge);
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
  size_t n = buffer_read_k(b, b->ring, b->mask, b->cap, dst, len, &edge);
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
  *ret = atomic_load_explicit(&((buffer_t *)s->state)->used, memory_order_relaxed);
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
  part->holes[0].value = (uint64_t)(uintptr_t)b;
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

static int buffer_init(qua_quaject_t *q, const uint64_t *p) {
  buffer_t *b = QUA__STATE(q, buffer_t);
  b->cap = p[P_CAPACITY];
  b->mask = b->cap - 1;
  b->ring = malloc(b->cap);
  return b->ring != NULL ? QUA_OK : QUA_ENOMEM;
}

static void buffer_fini(qua_quaject_t *q) { free(QUA__STATE(q, buffer_t)->ring); }

static int buffer_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const buffer_t *b = QUA__STATE(q, const buffer_t);
  return snprintf(buf, len, "count=%zu capacity=%zu", atomic_load(&b->used), b->cap);
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
            .describe = buffer_describe},
};
