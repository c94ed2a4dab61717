/* types-internal.h -- the indices of the types' members that their generic
 * code (queue.c, counter.c, tee.c) and their templates (*-templates.c)
 * share, and the state blocks the templates reach through holes. */
#ifndef QUA_TYPES_INTERNAL_H
#define QUA_TYPES_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lfq.h"

/* Who listens to a broadcast callback, as folded into a template's
 * qXX_edge_mode hole (synth.c, qua__listeners): nobody, exactly one site
 * (whose handler the template calls directly), or more (qua__broadcast).
 * Not 0: the compiler may assume a hole's address is never null. */
enum { QUA__LISTEN_NONE = 1, QUA__LISTEN_ONE = 2, QUA__LISTEN_ALL = 3 };

/* queue */
enum { QUEUE_CB_FULL, QUEUE_CB_NOTFULL, QUEUE_CB_EMPTY, QUEUE_CB_NOTEMPTY, QUEUE_CB_CLOSED };
enum { QUEUE_E_PUT, QUEUE_E_GET, QUEUE_E_PUT_N, QUEUE_E_GET_N, QUEUE_E_COUNT };

typedef struct queue {
  /* The ring: &own, or the quaject's storage (qua_storage_map, queue.c). */
  qua__lfq_t *lfq;
  /* Control state, under the control lock. notify: made with notify=1;
   * tracked: the ring counts (queue.c, design note 4); counting: the live
   * switch to tracked mode is under way (note 6). */
  bool mp, mc, notify, tracked, counting;
  bool closing; /* close() began: sites run the generic code from now on */
  /* Set once a closed queue can take no more items (see queue.c, 5). */
  _Atomic bool closed_final;
  qua__lfq_t own;
} queue_t;

/* counter */
enum { COUNTER_E_ADD, COUNTER_E_READ, COUNTER_E_PASS };
enum { COUNTER_C_OUT };
enum { COUNTER_CB_THRESHOLD };

/* The counter's word: in its storage when it has some, in the state block
 * otherwise (counter.c, note 2). The templates' ct_counter points at it. */
typedef struct counter_word {
  _Atomic int64_t value;
} counter_word_t;

typedef struct counter {
  counter_word_t *w; /* &own, or the storage's */
  int64_t threshold;
  /* At most one add/pass site: set and cleared under the control lock,
   * with a grace period before a second writer's first call (counter.c);
   * the generic add and pass read it to skip the atomic read-modify-write. */
  _Atomic bool one_writer;
  counter_word_t own;
} counter_t;

/* A counter's value after adding delta to before: two's complement,
 * wrapping at INT64_MAX to INT64_MIN. Computed in unsigned arithmetic, so
 * it is defined behaviour, and the generic and the synthesised code
 * (counter.c, counter-templates.c) both use it and agree. */
static inline int64_t counter_wrap_add(int64_t before, uint64_t delta) {
  return (int64_t)((uint64_t)before + delta);
}

/* tee */
enum { TEE_E_PUT };
#define TEE_MAX 8

typedef struct tee {
  int n;
} tee_t;

/* buffer */
enum { BUFFER_CB_FULL, BUFFER_CB_NOTFULL, BUFFER_CB_EMPTY, BUFFER_CB_NOTEMPTY };
enum { BUFFER_E_WRITE, BUFFER_E_READ, BUFFER_E_PUTB, BUFFER_E_GETB, BUFFER_E_COUNT };

/* The buffer's positions (buffer.c, notes 1-6): at the start of its
 * storage when it has some (the byte ring follows, at BUFFER_RING_AT), in
 * the state block otherwise. head and tail count bytes ever written and
 * read (the ring index is the count & mask); each is stored only by its own
 * side, and read by the other side only in a recovery. */
typedef struct buffer_pos {
  _Alignas(64) _Atomic size_t used;
  uint64_t capacity; /* set once, before any call: recovery checks it */
  _Alignas(64) _Atomic uint64_t head; /* writer's */
  _Alignas(64) _Atomic uint64_t tail; /* reader's */
} buffer_pos_t;

#define BUFFER_RING_AT sizeof(buffer_pos_t)

typedef struct buffer {
  buffer_pos_t *pos; /* &own, or the storage's */
  unsigned char *ring;
  size_t cap, mask;
  buffer_pos_t own;
} buffer_t;

/* The byte ring's two halves (buffer.c's design note), with its invariants
 * passed in so that templates can fold them. Each copies as much as fits
 * (or as is there), returns the count, and sets *edge when it took the
 * buffer from empty to not empty (write) or from full to not full (read).
 * The order of the stores is note 4's: bytes, then the side's position
 * (release: a plain store on x86-64), then used. */
static inline size_t buffer_write_k(buffer_pos_t *b, unsigned char *ring, size_t mask, size_t cap,
                                    const unsigned char *src, size_t len, bool *edge) {
  size_t used = atomic_load_explicit(&b->used, memory_order_acquire);
  size_t n = len < cap - used ? len : cap - used;
  *edge = false;
  if (n > 0) {
    uint64_t head = atomic_load_explicit(&b->head, memory_order_relaxed);
    size_t at = (size_t)head & mask;
    size_t first = cap - at < n ? cap - at : n;
    __builtin_memcpy(ring + at, src, first);
    __builtin_memcpy(ring, src + first, n - first);
    atomic_store_explicit(&b->head, head + n, memory_order_release);
    *edge = atomic_fetch_add_explicit(&b->used, n, memory_order_acq_rel) == 0;
  }
  return n;
}

static inline size_t buffer_read_k(buffer_pos_t *b, unsigned char *ring, size_t mask, size_t cap,
                                   unsigned char *dst, size_t len, bool *edge) {
  size_t used = atomic_load_explicit(&b->used, memory_order_acquire);
  size_t n = len < used ? len : used;
  *edge = false;
  if (n > 0) {
    uint64_t tail = atomic_load_explicit(&b->tail, memory_order_relaxed);
    size_t at = (size_t)tail & mask;
    size_t first = cap - at < n ? cap - at : n;
    __builtin_memcpy(dst, ring + at, first);
    __builtin_memcpy(dst + first, ring, n - first);
    atomic_store_explicit(&b->tail, tail + n, memory_order_release);
    *edge = atomic_fetch_sub_explicit(&b->used, n, memory_order_acq_rel) == cap;
  }
  return n;
}

/* pump */
enum { PUMP_C_SOURCE, PUMP_C_SINK };

/* The most items one step of a pump moves in one batch (pump-templates.c,
 * pt_move), and so the most it can hold. */
#define PUMP_HOLD_MAX 64

/* The items a pump's step took from the source but the sink did not take,
 * items[first .. n) in source order (the pump's thread retries them, in
 * that order). Only the pump's thread touches it. */
typedef struct pump_hold {
  uint64_t items[PUMP_HOLD_MAX];
  uint32_t first, n;
} pump_hold_t;

#endif
