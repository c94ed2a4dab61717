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

enum { CB_FULL, CB_NOTFULL, CB_EMPTY, CB_NOTEMPTY };
enum { E_WRITE, E_READ, E_PUTB, E_GETB, E_COUNT };
enum { P_CAPACITY };

typedef struct buffer {
  unsigned char *ring;
  size_t cap, mask;
  alignas(QUA__CACHELINE) _Atomic size_t used;
  alignas(QUA__CACHELINE) size_t head; /* writer's */
  alignas(QUA__CACHELINE) size_t tail; /* reader's */
} buffer_t;

/* Copies up to len bytes in; returns how many. Writer side only. */
static size_t ring_write(qua_site_t *s, const unsigned char *src, size_t len) {
  buffer_t *b = s->state;
  size_t used = atomic_load_explicit(&b->used, memory_order_acquire);
  size_t n = len < b->cap - used ? len : b->cap - used;
  if (n > 0) {
    size_t first = b->cap - b->head < n ? b->cap - b->head : n;
    memcpy(b->ring + b->head, src, first);
    memcpy(b->ring, src + first, n - first);
    b->head = (b->head + n) & b->mask;
    if (atomic_fetch_add_explicit(&b->used, n, memory_order_acq_rel) == 0)
      qua__broadcast(s->target, CB_NOTEMPTY, 0);
  }
  if (n < len)
    qua__fire(s, CB_FULL, len - n);
  return n;
}

/* Copies up to len bytes out; returns how many. Reader side only. */
static size_t ring_read(qua_site_t *s, unsigned char *dst, size_t len) {
  buffer_t *b = s->state;
  size_t used = atomic_load_explicit(&b->used, memory_order_acquire);
  size_t n = len < used ? len : used;
  if (n == 0) {
    if (len > 0)
      qua__fire(s, CB_EMPTY, 0);
    return 0;
  }
  size_t first = b->cap - b->tail < n ? b->cap - b->tail : n;
  memcpy(dst, b->ring + b->tail, first);
  memcpy(dst + first, b->ring, n - first);
  b->tail = (b->tail + n) & b->mask;
  if (atomic_fetch_sub_explicit(&b->used, n, memory_order_acq_rel) == b->cap)
    qua__broadcast(s->target, CB_NOTFULL, 0);
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
      (q->weight[E_WRITE] + q->weight[E_PUTB] > 1 || q->weight[E_READ] + q->weight[E_GETB] > 1))
    return QUA_ELIMIT; /* one writer, one reader */
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
    [E_WRITE] = {"write", 2, true, false, buffer_write, "store up to len bytes from ptr"},
    [E_READ] = {"read", 2, true, false, buffer_read, "take up to len bytes into ptr"},
    [E_PUTB] = {"putb", 1, false, true, buffer_putb, "store one byte"},
    [E_GETB] = {"getb", 0, true, true, buffer_getb, "take one byte"},
    [E_COUNT] = {"count", 0, true, true, buffer_count, "bytes in the buffer"},
};

static const qua_callback_def_t buffer_callbacks[] = {
    [CB_FULL] = {"full", QUA_CB_INVOKER, "a write found no room for some bytes (arg: how many)"},
    [CB_NOTFULL] = {"notfull", QUA_CB_BROADCAST, "a read took the buffer from full to not full"},
    [CB_EMPTY] = {"empty", QUA_CB_INVOKER, "a read found nothing"},
    [CB_NOTEMPTY] = {"notempty", QUA_CB_BROADCAST, "a write took the buffer from empty to not empty"},
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
    .ops = {.init = buffer_init, .fini = buffer_fini, .sites_changed = buffer_sites_changed,
            .describe = buffer_describe},
};
