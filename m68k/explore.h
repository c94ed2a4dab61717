/* explore.h -- quamachine's explorer: every bounded interleaving of the two CPUs, PCT, and the
 * linearizability checker that judges each run.
 *
 * The model. Two CPUs each run a driver to completion (the driver ends
 * with STOP). A schedule says, for every instruction executed, which CPU
 * executes it; an instruction (CAS and CAS2 included) is indivisible, so
 * a schedule is exactly one interleaving of the two instruction streams.
 * A preemption is a switch away from a CPU that could have gone on; a
 * switch because the running CPU finished is not one. Exploring with
 * bound K runs every schedule with at most K preemptions (Musuvathi and
 * Qadeer's CHESS: most concurrency bugs need few preemptions, and the
 * number of schedules grows polynomially in the run length for a fixed
 * K instead of exponentially).
 *
 * How: by re-execution. Each schedule runs on a machine built afresh by
 * the target (same code, same data, same registers), stepping the CPUs
 * one instruction at a time as the schedule prefix says and then letting
 * the running CPU go on until it finishes; the explorer then backtracks
 * depth-first to the last step where the other CPU could have run within
 * the bound. Re-execution rather than snapshots: the core keeps state of
 * its own (prefetch, pending exceptions, the instruction count behind the
 * machine clock) that a snapshot would have to copy exactly, while a
 * fresh machine has nothing to forget. A run is a few hundred
 * instructions and the machine's RAM comes from mmap (only the pages a run
 * touches cost anything), so building, running and judging one schedule
 * takes some 20 to 50 microseconds (`quamachine explore`, quaject
 * synthesis included).
 *
 * Threading: one exploration is one host thread; targets must not share
 * machines between explorations.
 */
#ifndef QUA_M68K_EXPLORE_H
#define QUA_M68K_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "machine.h"

/* ---- The explorer ----------------------------------------------------- */

/* What the explorer runs. `build` makes a machine in the run's initial
 * state (both CPUs ready at their drivers) or returns NULL with a
 * sentence in err; `judge` looks at a finished run (both CPUs idle, or
 * the machine stopped: a fault counts against the code under test) and
 * returns true when it is a violation, with a description in `why` (may
 * be empty); `destroy` frees what build made. */
typedef struct m68k_explore_target {
  void *ctx;
  m68k_machine_t *(*build)(void *ctx, char *err, size_t errlen);
  bool (*judge)(void *ctx, m68k_machine_t *m, char *why, size_t whylen);
  void (*destroy)(void *ctx, m68k_machine_t *m);
} m68k_explore_target_t;

typedef struct m68k_explore_result {
  uint64_t schedules;  /* runs made (each a distinct schedule) */
  uint64_t violations; /* runs judged violations */
  uint64_t steps;      /* instructions executed over all runs */
  /* The first violating schedule (malloc'ed; NULL when none) and what
   * judge said of it. Free with m68k_explore_result_free(). */
  m68k_slice_t *first;
  size_t nfirst;
  char why[4096];
} m68k_explore_result_t;

#define M68K_EXPLORE_MAX_STEPS 1000000u /* default bound on one run's length */

typedef struct m68k_explore_options {
  unsigned preemptions; /* K: most preemptions per schedule */
  uint64_t max_steps;   /* a longer run is a violation (no progress); 0: default */
  uint64_t max_schedules; /* stop after this many (0: no bound): M68K_ETOOBIG */
} m68k_explore_options_t;

/* Runs every schedule with at most opt->preemptions preemptions, judging
 * each. Returns 0 with *res filled, or a negative M68K_E* code with a
 * sentence in err: M68K_EINVAL when build failed, M68K_ETOOBIG when the
 * schedule bound was hit (*res holds the partial counts). */
M68K_API int m68k_explore_chess(const m68k_explore_target_t *t, const m68k_explore_options_t *opt,
                       m68k_explore_result_t *res, char *err, size_t errlen);

/* Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi and
 * Nagarakatte, ASPLOS 2010): `runs` runs, each giving the two CPUs
 * random distinct priorities and choosing depth - 1 change points
 * uniformly among the steps of a first, preemption-free run; the
 * highest-priority CPU that can run runs, and at the i-th change point the
 * running CPU drops to priority i (below every initial one). A bug of
 * depth d is found by one run with probability at least 1/(2 k^(d-1)), k
 * the run length. Run r draws from a PRNG seeded with seed and r, so the
 * same seed gives the same runs. Returns as m68k_explore_chess. */
M68K_API int m68k_explore_pct(const m68k_explore_target_t *t, uint64_t seed, uint64_t runs,
                              unsigned depth, uint64_t max_steps, m68k_explore_result_t *res,
                              char *err, size_t errlen);

/* Runs one given schedule (e.g. printed by a violation) through the
 * machine's REPLAY scheduler and judges it. Returns 0 with *violation
 * set, M68K_ESCHEDULE when the schedule is not a complete run of this
 * target (with the reason in err), or M68K_EINVAL when build failed. */
M68K_API int m68k_explore_replay(const m68k_explore_target_t *t, const m68k_slice_t *s, size_t n,
                        bool *violation, char *why, size_t whylen, char *err, size_t errlen);

M68K_API void m68k_explore_result_free(m68k_explore_result_t *res);

/* ---- Linearizability -------------------------------------------------- */

/* The sequential specifications. A counter's add(x) returns the new
 * value, read() the value. The stack (LIFO, push/pop), the queue (FIFO,
 * put/get) and the list (insert at head and delete at head, hence LIFO
 * and unbounded) hold 32-bit values; an insertion into a full structure
 * and a removal from an empty one fail and change nothing. */
typedef enum m68k_lin_spec {
  M68K_LIN_COUNTER = 0,
  M68K_LIN_STACK,
  M68K_LIN_QUEUE,
  M68K_LIN_LIST,
} m68k_lin_spec_t;

typedef enum m68k_lin_kind {
  M68K_LIN_ADD = 0, /* counter add(arg) -> value */
  M68K_LIN_READ,    /* counter read() -> value */
  M68K_LIN_INSERT,  /* push, put, insert (arg); ok false when full */
  M68K_LIN_REMOVE,  /* pop, get, delete -> value; ok false when empty */
} m68k_lin_kind_t;

/* One completed operation: invoked at `inv`, responded at `resp`
 * (inv <= resp; machine clock). A precedes B when A.resp < B.inv. */
typedef struct m68k_lin_op {
  unsigned cpu; /* M68K_LIN_INIT: made before the CPUs started */
  m68k_lin_kind_t kind;
  uint32_t arg;
  uint32_t value; /* the result (ADD, READ, REMOVE when ok) */
  bool ok;        /* INSERT: stored; REMOVE: found something */
  uint64_t inv, resp;
} m68k_lin_op_t;

#define M68K_LIN_MAX_OPS 64
#define M68K_LIN_INIT 0xFFFFu

/* Checks a history with Wing and Gong's search as Lowe improved it:
 * depth-first over the minimal operations, undoing on a dead end, with a
 * memo of the (linearised set, state) pairs already explored so no
 * configuration is searched twice. capacity bounds the stack and queue
 * (0: unbounded). Returns 1 when linearizable (order, when not NULL,
 * receives a witness: the op indices in linearisation order), 0 when
 * not, M68K_EINVAL for more than M68K_LIN_MAX_OPS ops, an op of the wrong
 * kind for the spec or inv > resp, M68K_ENOMEM. */
M68K_API int m68k_lincheck(m68k_lin_spec_t spec, uint32_t capacity, const m68k_lin_op_t *ops,
                           size_t n, size_t *order);

/* Prints a history, one op a line in invocation order:
 * "  cpu0 push(1) -> ok  [12, 40]" ("init" for M68K_LIN_INIT). */
M68K_API void m68k_lin_print(FILE *out, m68k_lin_spec_t spec, const m68k_lin_op_t *ops, size_t n);

/* ---- The command ------------------------------------------------------ */

/* `quamachine explore ...` (argv[0] is "explore"); returns the exit status. */
M68K_API int m68k_explore_main(int argc, char **argv);

/* The driver both CPUs run (explore-cmd.c note 2): big-endian words to
 * load anywhere (it is position-independent). Registers in: A2 the
 * operation table ({entry, argument} longs per operation), A3 the log
 * (16 bytes per operation: invocation clock, response clock, d0, d1), A4
 * the CLOCK register, D7 the number of operations (>= 1). It ends in STOP. */
const uint16_t *m68k__explore_driver(size_t *nwords);

#endif /* QUA_M68K_EXPLORE_H */
