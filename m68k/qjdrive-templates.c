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

/* ---- The folded loop (m68k_qj_drive's `folded`) ------------------------------
 *
 * The same loop as qd_loop, with the entries' folded forms inline
 * (quaject68k-templates.c notes F1-F6) instead of calls: m68k_qj_drive
 * chains these pieces with the two operations (and, measuring, a TRAP #13
 * piece before and after each) into one piece of code per CPU:
 *
 *   start -> top -> agent -> [trap] put [trap] -> ppost -> agent
 *                     `----> cpre -> [trap] get [trap] -> cpost -> agent
 *
 * Arrows into the next piece are fall-throughs; qd_top, qd_cons and
 * qd_agent are the entries of those pieces. Each operation's cold stubs
 * (note F5) follow ppost and cpost, which end in jumps. The operations
 * may clobber d1-d4/a0-a1, take d0 = 0 (the status OK: a producer's kind,
 * which agent has just tested, and cpre's clear) and keep a2, d6 and d5
 * (the state's address and the ring's base and bound, loaded once by
 * start), so the loop keeps its own in a3 (this CPU's control block), a4
 * (the other CPU's), a5 (the agent), a6 (agents left in this pass) and d7
 * (some agent active in this pass), and cpre leaves on the stack for cpost
 * whether every producer had finished. It is written as 68k instructions
 * because it only moves words between these registers and the control
 * blocks; each line does what qd_loop's C does. */
extern char qd_state[], qd_next[], qd_top[], qd_cons[], qd_agent[];
extern char qd_base[], qd_bound[]; /* the ring's base and bound (folded note F4) */

#define QD_PIECE(name, text)                                                   \
  void qd_f_##name(void) {                                                     \
    __asm__ volatile(text);                                                    \
    __builtin_unreachable();                                                   \
  }

/* The invariants: the control blocks, the state's address, the ring's base
 * and bound. */
QD_PIECE(start, "lea qd_ctl,%a3\n\tlea qd_other,%a4\n\tlea qd_state,%a2\n\t"
                "move.l #qd_base,%d6\n\tmove.l #qd_bound,%d5\n\tjmp qd_next")

/* A pass over the agents begins. */
QD_PIECE(top, "moveq #0,%d7\n\tlea 8(%a3),%a5\n\tmove.l (%a3),%a6\n\tjmp qd_next")

/* The next agent: none left ends the pass (no agent active: STOP); a done
 * one is skipped; a consumer goes to cpre; a producer's argument into d1,
 * then its put. */
QD_PIECE(agent, "0:\tmove.l %a6,%d0\n\tbne.s 1f\n\t"
                "tst.l %d7\n\tbeq.s 5f\n\tjmp qd_top\n"
                "5:\tstop #0x2700\n\tbra.s 5b\n"
                "1:\tsubq.l #1,%a6\n\tmove.l (%a5),%d0\n\tmoveq #2,%d1\n\tcmp.l %d1,%d0\n\t"
                "bne.s 2f\n\tlea 28(%a5),%a5\n\tbra.s 0b\n"
                "2:\tmoveq #1,%d7\n\ttst.l %d0\n\tbeq.s 3f\n\tjmp qd_cons\n"
                "3:\tmove.l 16(%a5),%d1\n\tbne.s 4f\n\tmove.l 4(%a5),%d1\n"
                "4:\tjmp qd_next")

/* After a put: refused (status not OK), again next turn; else the next
 * item, and after the last the producer is done. */
QD_PIECE(ppost, "tst.l %d0\n\tbne.s 1f\n\t"
                "move.l 8(%a5),%d0\n\tadd.l %d0,4(%a5)\n\tmove.l 4(%a5),%d0\n\t"
                "cmp.l 12(%a5),%d0\n\tbne.s 1f\n\t"
                "moveq #2,%d0\n\tmove.l %d0,(%a5)\n\tsubq.l #1,4(%a3)\n"
                "1:\tlea 28(%a5),%a5\n\tjmp qd_agent")

/* Before a get: whether every producer of both CPUs had finished, pushed
 * for cpost; the status OK in d0. */
QD_PIECE(cpre, "moveq #0,%d0\n\ttst.l 4(%a3)\n\tbne.s 1f\n\ttst.l 4(%a4)\n\tbne.s 1f\n\t"
               "moveq #1,%d0\n"
               "1:\tmove.l %d0,-(%sp)\n\tmoveq #0,%d0\n\tmoveq #0,%d1\n\tjmp qd_next")

/* After a get: a value is logged (the log full: done); nothing, when
 * every producer had finished before it (cpre's word, popped): done. */
QD_PIECE(cpost, "move.l (%sp)+,%d3\n\t"
                "tst.l %d0\n\tbne.s 2f\n\tmove.l 12(%a5),%d0\n\tbeq.s 2f\n\t"
                "move.l 20(%a5),%a0\n\tmove.l 24(%a5),%d2\n\tmove.l %d1,(%a0,%d2.l*4)\n\t"
                "addq.l #1,%d2\n\tmove.l %d2,24(%a5)\n\tcmp.l %d0,%d2\n\tbne.s 3f\n\tbra.s 4f\n"
                "2:\ttst.l %d3\n\tbeq.s 3f\n"
                "4:\tmoveq #2,%d0\n\tmove.l %d0,(%a5)\n"
                "3:\tlea 28(%a5),%a5\n\tjmp qd_agent")

/* Measuring (quaject68k-drive.c note 2): a TRAP #13 between pieces. */
QD_PIECE(trap, "trap #13\n\tjmp qd_next")
