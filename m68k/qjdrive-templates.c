/* qjdrive-templates.c -- 68k producer and consumer loops that drive quajects on both CPUs.
 *
 * Compiled for the 68030 like quaject68k-templates.c (stencil prefix qd)
 * and synthesised by quaject68k.c's m68k_qj_drive, once per CPU. A CPU's
 * loop runs its agents (producers and consumers) round-robin, one call
 * each per turn, until every agent is done, then executes STOP: when both
 * CPUs have stopped the machine reports a deadlock, which is the normal
 * end of a drive.
 *
 * A producer calls `put` (or push, add, insert) with its items in order,
 * retrying an item the quaject refused (FULL) on its next turn, and is
 * done after its last item. A consumer calls `get` (pop, read, delete)
 * and logs every value it receives; it is done when its log is full, or
 * when a call found the quaject empty although every producer of both
 * CPUs had finished before the call began: nothing can arrive any more.
 * That test reads the producer counts before the call, so an item put
 * between the call and the test is never taken for the end.
 */
#include <stdint.h>

#include "quaject68k-abi.h"

/* One agent: 28 bytes. */
typedef struct qd_agent {
  uint32_t kind;   /* QD_PRODUCER, QD_CONSUMER or QD_DONE */
  uint32_t next;   /* producer: its next item (its argument unless `arg`) */
  uint32_t step;   /* producer: from one item to the next */
  uint32_t end;    /* producer: one past its last item */
  uint32_t arg;    /* producer: a fixed argument (a counter's delta), or 0 */
  uint32_t log;    /* consumer: address of its log */
  uint32_t nlog;   /* consumer: values logged so far; its log holds `end` */
} qd_agent_t;

/* A CPU's control block. */
typedef struct qd_ctl {
  uint32_t nagents;
  uint32_t left; /* producers of this CPU not yet done */
  qd_agent_t a[8];
} qd_ctl_t;

enum { QD_PRODUCER = 0, QD_CONSUMER = 1, QD_DONE = 2 };

extern char qd_ctl[], qd_other[]; /* this CPU's and the other CPU's blocks */
extern char qd_put[];             /* the producers' callentry (or its thunk) */
extern char qd_get[];             /* the consumers' */
extern char qd_entry[];           /* the thunk's entry */

/* Calls a callentry hole with the entries' register convention. */
#define CALL(hole, x) QK_CALL(hole, x)

#define CTL ((volatile qd_ctl_t *)(uintptr_t)qd_ctl)
#define OTHER ((volatile qd_ctl_t *)(uintptr_t)qd_other)

void qd_loop(void) {
  volatile qd_ctl_t *c = CTL;
  for (;;) {
    int active = 0;
    for (uint32_t i = 0; i < c->nagents; i++) {
      volatile qd_agent_t *a = &c->a[i];
      if (a->kind == QD_DONE)
        continue;
      active = 1;
      if (a->kind == QD_PRODUCER) {
        if (CALL(qd_put, a->arg != 0 ? a->arg : a->next) >> 32 != 0)
          continue; /* full: again next turn */
        if ((a->next += a->step) == a->end) {
          a->kind = QD_DONE;
          c->left--;
        }
      } else {
        int finished = c->left == 0 && OTHER->left == 0;
        uint64_t r = CALL(qd_get, 0);
        if (r >> 32 == 0 && a->end != 0) {
          ((volatile uint32_t *)(uintptr_t)a->log)[a->nlog] = (uint32_t)r;
          if (++a->nlog == a->end)
            a->kind = QD_DONE;
        } else if (finished) {
          a->kind = QD_DONE;
        }
      }
    }
    if (!active)
      break;
  }
  for (;;)
    __asm__ volatile("stop #0x2700");
}

/* A measuring thunk: TRAP #13 just before and just after the call, so
 * that the host can read the CPU's instruction and cycle counts around it
 * (m68k_qj_drive subtracts the thunk's own cost, measured on an empty
 * entry). It follows the entries' convention itself: the argument
 * arrives in d1 and goes on in d1 (nothing touches d1 before the call). */
uint64_t qd_thunk(void) {
  register uint32_t x __asm__("d1") = QK_ARG();
  register uint64_t r __asm__("d0");
  __asm__ volatile("trap #13\n\tjsr qd_entry\n\ttrap #13"
                   : "=d"(r)
                   : "d"(x)
                   : "d2", "d3", "d4", "a0", "a1", "a2", "cc", "memory");
  return r;
}

/* The empty entry the thunk's cost is measured on. */
uint64_t qd_null(void) { return 0; }
