/* lincheck.h -- linearizability of long FIFO queue histories: WGL search, memoised, on sound cuts.
 *
 * A history is a set of completed operations on one queue, each with an
 * invocation and a response time from one clock (any unit; a global atomic
 * counter is best, it orders every event). lin_check() decides whether some
 * total order of them respects real time and is a legal run of the queue
 * specification below, giving every operation the result it returned.
 *
 * The specification (quaject/queue.c, design note 5): a bounded FIFO of
 * words with a two-phase close.
 *   put(v)  closed for puts: CLOSED; else length == capacity: FULL; else OK,
 *           v appended.
 *   get()   not empty: OK, the front item taken; empty and the close final:
 *           CLOSED; empty otherwise: EMPTY.
 *   close   first closes puts, later makes the close final (two steps that
 *           each happen at some point between its invocation and response).
 * With `lax` (the untracked queues, notify=0, whose FULL and EMPTY are
 * hints: lfq.c, design note 5) FULL and EMPTY are allowed in any state that
 * is not closed, and only what moved items (and CLOSED) is checked; except
 * for operations marked exact (made while nothing else ran, as a final
 * drain: an item lost inside the queue shows there).
 *
 * With `racy_close` (the untracked queues' documented close: lfq.c, design
 * note 18; a tracked queue's close is exact) a
 * put invoked before the close responded may also succeed after the close
 * (even after a get returned CLOSED): CLOSED is promised only to puts that
 * start after close() returned. A put invoked after that must return CLOSED.
 *
 * Every put's value must be distinct (the recorders make them so); the
 * checker refuses a history that repeats one (LIN_EINVAL).
 */
#ifndef QUA_LINCHECK_H
#define QUA_LINCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum lin_kind { LIN_PUT, LIN_GET, LIN_CLOSE } lin_kind_t;
typedef enum lin_result { LIN_OK, LIN_FULL, LIN_EMPTY, LIN_CLOSED } lin_result_t;

typedef struct lin_op {
  uint64_t inv, resp; /* inv <= resp */
  uint64_t value;     /* put: the item; get OK: the item taken; else unused */
  uint32_t client;    /* who made the call (for reports) */
  uint8_t kind;       /* lin_kind_t */
  uint8_t result;     /* lin_result_t */
  bool exact;         /* FULL or EMPTY seen on a quiescent queue: exact even when lax */
} lin_op_t;

typedef struct lin_spec {
  uint32_t capacity; /* 0: unbounded */
  bool lax;          /* FULL and EMPTY are hints (see above) */
  bool racy_close;   /* a put overlapping the close may land after it (see above) */
  size_t max_states; /* memo budget per part; 0: 1 << 24 */
} lin_spec_t;

/* What lin_check found. */
typedef struct lin_report {
  size_t ops;         /* operations checked */
  size_t parts;       /* independent parts the history was cut into */
  size_t largest;     /* operations in the largest part */
  size_t states;      /* memoised configurations, all parts */
  size_t bad_first;   /* when not linearizable: the failing part, as */
  size_t bad_n;       /* indices into the history sorted by invocation */
  size_t blocker;     /* ... and the operation its deepest attempt could not place */
  char why[256];      /* when not linearizable or refused: a sentence */
} lin_report_t;

enum {
  LIN_EINVAL = -1, /* a malformed history (why says what) */
  LIN_ENOMEM = -2,
  LIN_EBUDGET = -3, /* a part needed more than max_states configurations */
};

/* Checks ops[0..n). Sorts ops by invocation (in place). Returns 1 when the
 * history is linearizable, 0 when it is not (rep->why and the failing part
 * say where), or a negative LIN_E* code. rep may be NULL. */
int lin_check(const lin_spec_t *spec, lin_op_t *ops, size_t n, lin_report_t *rep);

/* Prints ops[first..first+n) (at most max lines) for a report. */
void lin_print(FILE *out, const lin_op_t *ops, size_t first, size_t n, size_t max);

#endif
