/* types-internal.h -- the indices of the types' members that their generic
 * code (queue.c, counter.c, tee.c) and their templates (*-templates.c)
 * share, and the state blocks the templates reach through holes. */
#ifndef QUA_TYPES_INTERNAL_H
#define QUA_TYPES_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lfq.h"

/* queue */
enum { QUEUE_CB_FULL, QUEUE_CB_NOTFULL, QUEUE_CB_EMPTY, QUEUE_CB_NOTEMPTY, QUEUE_CB_CLOSED };
enum { QUEUE_E_PUT, QUEUE_E_GET, QUEUE_E_PUT_N, QUEUE_E_GET_N, QUEUE_E_COUNT };

typedef struct queue {
  qua__lfq_t lfq;
  /* Control state, under the control lock. */
  bool mp, mc, tracked;
  /* Set once a closed queue can take no more items (see queue.c, 5). */
  _Atomic bool closed_final;
} queue_t;

/* counter */
enum { COUNTER_E_ADD, COUNTER_E_READ, COUNTER_E_PASS };
enum { COUNTER_C_OUT };
enum { COUNTER_CB_THRESHOLD };

typedef struct counter {
  _Atomic int64_t value;
  int64_t threshold;
  bool one_writer; /* control state: at most one add/pass site */
} counter_t;

/* tee */
enum { TEE_E_PUT };
#define TEE_MAX 8

typedef struct tee {
  int n;
} tee_t;

#endif
