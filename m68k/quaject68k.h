/* quaject68k.h -- the m68k backend: quajects synthesised as 68030 code in a quamachine's RAM.
 *
 * This is the public header of the backend layer of the m68k/ module and
 * reads as its manual. It is a third header beside m68k.h (the CPU core)
 * and machine.h (the two-CPU machine) because it is a layer above both
 * that only some embedders use (quad's target=m68k, `quamachine quaject`,
 * `quamachine explore`); the core and the machine do not depend on it.
 *
 * A quaject here is one block of state in the machine's RAM plus its
 * callentries, each synthesised per instance by copy-and-patch from
 * templates compiled by m68k-linux-gnu-gcc -m68030 (m68k/quaject68k-templates.c,
 * whose design notes give the algorithms and their invariants): the
 * instance's addresses, ring size and which callbacks anybody listens to
 * are folded into the code. The types, after Massalin's thesis, chapter 5:
 *
 *   type     callentries        callbacks                      variants
 *   counter  add, read          -                              cas (default), broken
 *   stack    push, pop          full, empty                    cas2 (default), broken
 *   queue    put, get           full, empty, notfull, notempty auto (default), spsc,
 *                                                              mpmc, broken
 *   list     insert, delete     empty                          cas2 (default), broken
 *
 * "broken" variants are seeded bugs for the checkers: correct when run
 * alone, wrong under some interleaving of the two CPUs (the counter's add
 * without CAS, the stack with CAS instead of CAS2, a queue put that keeps
 * a stale head across a failed CAS2, a list delete with a single CAS).
 *
 * ---- Calling convention of synthesised callentries -----------------------
 *
 * Every callentry is a 68k subroutine (JSR/RTS) with a register
 * convention of its own, chosen so that the synthesised code saves no
 * register and fetches nothing from the stack:
 *
 *   - the argument arrives in d1;
 *   - the 64-bit result comes back in d0:d1, d0 = status and d1 = value
 *     (as gcc returns a uint64_t: in C, status = r >> 32, value =
 *     (uint32_t)r);
 *   - d0-d4 and a0-a2 are the callee's (clobbered); d5-d7, a3-a6 and SP
 *     are preserved.
 *
 * The templates are compiled with gcc's -fcall-used-d2 -fcall-used-d3
 * -fcall-used-d4 -fcall-used-a2 and read d1 at entry. A 68k driver loop
 * calls an entry with
 *
 *     move.l  #arg,d1
 *     jsr     ENTRY          | ENTRY = m68k_qj_entry(q, "put")
 *                            | d0 = status, d1 = value
 *
 * (from C compiled for m68k, an asm statement that loads d1, JSRs and
 * names d0-d4/a0-a2 as clobbered: qjdrive-templates.c's CALL). Entries
 * need about 64 bytes of stack; they run in user or supervisor mode and
 * never change SR's interrupt mask.
 *
 *   entry    arg              status                  value
 *   add      delta            OK                      the new count
 *   read     ignored          OK                      the count
 *   push     the item         OK, FULL (not pushed)   the item
 *   pop      ignored          OK, EMPTY               the item (0 when EMPTY)
 *   put      the item         OK, FULL (not stored)   the item
 *   get      ignored          OK, EMPTY               the item (0 when EMPTY)
 *   insert   a node address   OK                      the node
 *   delete   ignored          OK, EMPTY               the node (0 when EMPTY)
 *
 * List nodes are 8 bytes, long-aligned: the link word at +0 (the list's
 * own), a value word at +4 (the caller's). A node is on at most one list
 * at a time; m68k_qj_node() gives the nodes of the pool every list is
 * created with (capacity of them), but any RAM the caller owns will do.
 *
 * ---- Callbacks -------------------------------------------------------------
 *
 * A callback is an exceptional return (thesis 4.1): the callentry calls
 * the callback's code (JSR, the item in d1) and returns its result as the
 * entry's. "full" and
 * "empty" end an operation that did nothing (status FULL or EMPTY);
 * "notfull" (a get took the queue from full to not full) and "notempty" (a
 * put took it from empty to not empty) follow an operation that succeeded
 * (status OK), once per transition in the linearisation order. The
 * callback's code is, per instance and callback:
 *
 *   - nobody listens: a few instructions that return the status; for
 *     notfull and notempty nothing at all (the edge test is synthesised
 *     out, so a queue nobody watches pays nothing for edges);
 *   - a host handler (m68k_qj_on_callback): a stub that executes
 *     TRAP #M68K_QJ_TRAP with the callback's id in d0 and its argument
 *     (the item) in d1; the machine delivers the trap to this runtime
 *     (m68k_machine_on_exception), which calls the handler on the host
 *     while the CPU waits, then the stub returns;
 *   - 68k code (m68k_qj_set_callback_code): a 68k subroutine with the
 *     callentries' convention, called with the item in d1, whose d0:d1
 *     result becomes the entry's (it must return the status given above).
 *
 * ---- RAM layout --------------------------------------------------------------
 *
 * The runtime owns one region of each machine's RAM, its arena:
 * [ram_base + M68K_QJ_ARENA_OFFSET, + M68K_QJ_ARENA_SIZE). It holds the
 * runtime's stubs (the return stub of m68k_qj_call, callback stubs), the
 * quajects' state and their synthesised code, and per-CPU stacks for
 * m68k_qj_call (and m68k_qj_drive's loops). Everything else is the
 * embedder's: the vectors, driver code and data below the arena,
 * m68k_machine_start()'s CPU stacks at the top of RAM; only m68k_qj_drive,
 * which takes the whole machine, also writes its consumers' logs between
 * the arena and those stacks. The machine needs at least M68K_QJ_RAM_MIN
 * bytes of RAM.
 *
 * ---- Cycle estimates ---------------------------------------------------------
 *
 * m68k_qj_call counts the instructions the callentry executes (its first
 * through its RTS, callbacks included) and estimates their MC68030 cycles
 * with the core's timing model (m68k_set_cycle_count in m68k.h: the
 * MC68030 User's Manual, section 11, cache-case figures per instruction
 * class and addressing mode with each head overlapping the previous tail;
 * cache misses, wait states and bus contention are ignored).
 *
 * Threading: as the machine (machine.h): one host thread at a time.
 * Quajects are destroyed with their machine at the latest. Control
 * operations (m68k_qj_attach, _detach, _on_callback, _set_callback_code)
 * re-synthesise code and refuse with M68K_EBUSY while a CPU's PC is inside
 * the quaject's code; call them, and m68k_qj_destroy, between runs.
 */
#ifndef QUA_M68K_QUAJECT68K_H
#define QUA_M68K_QUAJECT68K_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"

/* The arena: offset from ram_base and size (see "RAM layout"). */
#define M68K_QJ_ARENA_OFFSET 0x00100000u
#define M68K_QJ_ARENA_SIZE 0x00100000u
/* Smallest machine RAM the runtime accepts: the arena, and room above it
 * for m68k_machine_start()'s two 64 KiB CPU stacks. */
#define M68K_QJ_RAM_MIN 0x00400000u

/* The TRAP number callback stubs and the call stub use (vector 32 + 14). */
#define M68K_QJ_TRAP 14

/* Largest capacity of a stack, queue or list (a queue's ring of 16384
 * slots is addressed by 16-bit byte offsets). */
#define M68K_QJ_CAPACITY_MAX 16383u

/* Statuses of a callentry (d0) and of m68k_qj_call. */
#define M68K_QJ_OK 0
#define M68K_QJ_FULL 1
#define M68K_QJ_EMPTY 2

typedef struct m68k_qj m68k_qj_t; /* one quaject instance in a machine's RAM */

/* Creates a quaject of `type` ("counter", "stack", "queue", "list") in
 * the machine's arena and synthesises its callentries. `variant` is NULL
 * for the default, "broken", or type-specific (see the table above; a
 * queue's "auto" chooses SP-SC or MP-MC code per entry from how many
 * callers are attached, "spsc" and "mpmc" pin one). `capacity` is the
 * number of items (stack, queue) or pool nodes (list), 1..
 * M68K_QJ_CAPACITY_MAX; 0 for a counter. The state starts empty (count 0).
 * Returns 0 with *out set, or a negative M68K_E* code with a sentence
 * naming the problem in err: M68K_ENOTYPE (unknown type or variant),
 * M68K_EINVAL (capacity out of range, a machine without RAM enough or not
 * a 68030), M68K_EARENA (the arena is full), M68K_ENOMEM. Nothing is
 * left allocated on failure. */
M68K_API int m68k_qj_create(m68k_machine_t *m, const char *type, const char *variant,
                            uint32_t capacity, m68k_qj_t **out, char *err, size_t errlen);

/* Frees the quaject's state and code in the arena (NULL: nothing). The
 * caller makes sure no CPU runs or will run its code. */
M68K_API void m68k_qj_destroy(m68k_qj_t *q);

/* The type and the variant it was created with ("cas2", "auto", ...). */
M68K_API const char *m68k_qj_type(const m68k_qj_t *q);
M68K_API const char *m68k_qj_variant(const m68k_qj_t *q);
M68K_API m68k_machine_t *m68k_qj_machine(const m68k_qj_t *q);

/* The names of the type's callentries and callbacks, i = 0.. until NULL. */
M68K_API const char *m68k_qj_entry_name(const m68k_qj_t *q, unsigned i);
M68K_API const char *m68k_qj_callback_name(const m68k_qj_t *q, unsigned i);

/* RAM address of the synthesised code of callentry `entry`, 0 when the
 * type has no such entry. It is fixed for the quaject's life: re-synthesis
 * (attach, detach, callbacks) rewrites the code in place, so a driver may
 * keep the address (but must not be running the code then). */
M68K_API uint32_t m68k_qj_entry(const m68k_qj_t *q, const char *entry);

/* The code of `entry`: address, length in bytes, and the name of the
 * template variant it was synthesised from ("put_mp_t", "push_cas2", ...).
 * Any pointer may be NULL. 0, or M68K_ENOTYPE for an unknown entry. */
M68K_API int m68k_qj_entry_code(const m68k_qj_t *q, const char *entry, uint32_t *addr,
                                uint32_t *len, const char **variant_name);

/* A hole patched in an entry's code (m68k_qj_entry_holes). */
typedef struct m68k_qj_hole {
  const char *name;  /* the template's hole without "qk_" ("last", "full") */
  uint32_t addr;     /* of the patched field in RAM */
  uint8_t bytes;     /* the field's width */
  bool pcrel;        /* patched PC-relative */
  uint32_t value;    /* the hole's value */
} m68k_qj_hole_t;

/* The holes patched in `entry`'s code, as it now is: up to max rows into
 * out. Returns how many there are (more than max when out was short), or
 * M68K_ENOTYPE for an unknown entry. */
M68K_API int m68k_qj_entry_holes(const m68k_qj_t *q, const char *entry, m68k_qj_hole_t *out,
                                 int max);

/* RAM address of the quaject's state (layout in quaject68k-templates.c). */
M68K_API uint32_t m68k_qj_data(const m68k_qj_t *q);

/* List nodes: the address of pool node i (i < capacity), 0 otherwise. */
M68K_API uint32_t m68k_qj_node(const m68k_qj_t *q, uint32_t i);

/* Says that one more caller (a CPU's loop, a wire) uses `entry`, or one
 * fewer. A queue in the "auto" variant runs the SP-SC code of put while at
 * most one caller is attached to put and the CAS2 MP code from the second
 * on (likewise get), re-synthesising on each change; the other types and
 * variants only count. 0; M68K_ENOTYPE; M68K_EINVAL (detach below zero);
 * M68K_EBUSY (a CPU's PC is inside the quaject's code). */
M68K_API int m68k_qj_attach(m68k_qj_t *q, const char *entry);
M68K_API int m68k_qj_detach(m68k_qj_t *q, const char *entry);
/* Callers attached to `entry` (0 for an unknown entry). */
M68K_API unsigned m68k_qj_attached(const m68k_qj_t *q, const char *entry);

/* A host handler for `callback` ("full", "empty", "notfull",
 * "notempty"): fn(ctx, callback, arg) runs on the host, in the middle of
 * the 68k call, arg being the item refused for full, 0 for the others (as
 * the host's queue passes them). fn NULL removes it.
 * Re-synthesises the entries that can raise it. 0, M68K_ENOTYPE (no such
 * callback for the type), M68K_EBUSY. A handler must not call back into
 * the machine. */
typedef void (*m68k_qj_callback_fn)(void *ctx, const char *callback, uint32_t arg);
M68K_API int m68k_qj_on_callback(m68k_qj_t *q, const char *callback, m68k_qj_callback_fn fn,
                                 void *ctx);

/* Routes `callback` to 68k code at `addr` instead (0 removes it), for
 * drivers that handle callbacks on the machine. Same results. */
M68K_API int m68k_qj_set_callback_code(m68k_qj_t *q, const char *callback, uint32_t addr);

/* Calls callentry `entry` on CPU `cpu` from the host: saves the CPU's
 * registers, pushes arg and a return address into the runtime's stub on a
 * stack of the arena, runs that CPU alone from the entry until it returns
 * (at most 100000 instructions), and restores the registers. The other
 * CPU does not run. Returns the entry's status (M68K_QJ_OK, _FULL,
 * _EMPTY) with *ret its value; or M68K_ENOTYPE (no such entry), M68K_EINVAL
 * (no such CPU), M68K_ENORETURN (did not return: a fault, a loop; the
 * machine's message says where). *insns gets the instructions executed
 * from the entry's first through its RTS (callbacks' code included),
 * *cycles their estimated MC68030 cycles; ret, insns, cycles may be NULL. */
M68K_API int m68k_qj_call(m68k_qj_t *q, unsigned cpu, const char *entry, uint32_t arg,
                          uint32_t *ret, uint64_t *insns, uint64_t *cycles);

/* ---- Folded forms ------------------------------------------------------------ */

/* Every callentry also has a folded form (quaject68k-templates.c notes
 * F1-F6): the same template synthesised to run inline in its caller's
 * code, the quaject's invariants held in the caller's registers (the
 * state's address in a2, a stack's or queue's slots' base in d6 and its
 * bound in d5) and the operation falling through into the caller's next
 * instruction, without JSR or RTS (the thesis's collapsing layers and
 * factoring invariants); its rare paths (the callbacks) are cold stubs
 * placed after the caller's code. Its form follows the entry's
 * (m68k_qj_entry_variant): the same attach, variant and listener choices.
 * A folded form takes the argument in d1 and d0 = 0, and leaves d0:d1 as
 * an entry does (d0 is changed only by a callback: the caller keeps it 0
 * while every operation succeeds); it may clobber d1-d4 and a0-a1, and
 * keeps a2, d5-d7, a3-a6 and the stack as it found them.
 *
 * m68k_qj_call_folded runs entry's folded form once on CPU `cpu` as
 * m68k_qj_call runs the called one, in a caller synthesised for it: a2,
 * d6, d5 and d0 loaded once, the folded operation, NOP, RTS (the NOP, as
 * a caller's next instruction would, keeps the operation's last write
 * from overlapping the RTS). *insns and *cycles are the
 * operation's alone: the same caller without the operation is run too
 * and its counts are subtracted. Errors as m68k_qj_call, and M68K_EARENA
 * when the arena has no room for the caller. */
M68K_API int m68k_qj_call_folded(m68k_qj_t *q, unsigned cpu, const char *entry, uint32_t arg,
                                 uint32_t *ret, uint64_t *insns, uint64_t *cycles);

/* One call of a folded program: the entry and its argument (in d1). */
typedef struct m68k_qj_fold_op {
  const char *entry;
  uint32_t arg;
} m68k_qj_fold_op_t;

/* Synthesises into q's arena a straight-line program for one CPU that
 * makes the calls ops[0..n) with each entry's folded form inline: it
 * loads a2, d6 and d5 once, then per call stores the longword at (a4) (the
 * machine's CLOCK) to (a3)+, puts the argument in d1 and 0 in d0, runs the
 * operation, and stores
 * (a4), d0 and d1 to (a3)+ (16 bytes per call); after the last call it
 * executes STOP. The caller sets a3 and a4. *addr gets the program's
 * entry. The program lives until m68k_qj_destroy and runs the forms the
 * entries ran when it was made: it is not re-synthesised when an attach
 * or a listener changes them later (make it after attaching). Returns M68K_OK,
 * M68K_ENOTYPE (no such entry), M68K_EINVAL (n is 0 or over 64, or
 * the stencils do not fit), M68K_EARENA (the arena is full); err names the
 * cause. */
M68K_API int m68k_qj_fold_program(m68k_qj_t *q, const m68k_qj_fold_op_t *ops, size_t n,
                                  uint32_t *addr, char *err, size_t errlen);

/* ---- Driving a quaject from both CPUs ---------------------------------------- */

/* m68k_qj_drive runs 68k producer and consumer loops (synthesised from
 * m68k/qjdrive-templates.c into the arena, one copy per CPU) that call the
 * quaject's two callentries: producers the first (put, push, add, insert),
 * consumers the second (get, pop, read, delete). Producer j runs on CPU
 * j % 2 and consumer j on CPU (j + 1) % 2, so that a producer and a
 * consumer, two producers, two consumers each meet on different CPUs;
 * each CPU runs its agents round-robin, one call per turn. The machine
 * runs with the schedule set on it (m68k_machine_set_schedule). A machine
 * runs one drive: the run stops it for good (machine.h). While it runs,
 * the drive holds TRAP #13's host handler (its measuring thunks trap
 * there).
 *
 * Items: producer k's i-th item is (k + 1) << 24 | i for a stack or a queue
 * (distinct, so that each is traced to its producer and position), the
 * node (k * items / producers + i) of the pool for a list, and 1 for a
 * counter (an add of 1). A producer retries an item refused (FULL) on its
 * next turn. A consumer logs what it receives (into RAM above the arena,
 * items + 64 words each) and stops when it finds the quaject empty after
 * every producer finished (a counter's consumers read until then).
 *
 * Checks: lost = items no consumer received; dup = receptions beyond the
 * first of an item (and of values no producer put); reordered = receptions of an item of producer k by a
 * consumer after it received a later item of k (queues only: a stack or a
 * list owes no order). For a counter, lost and dup compare its final value
 * with items. */
#define M68K_QJ_DRIVE_AGENTS 8 /* per CPU */

typedef struct m68k_qj_drive_options {
  unsigned producers, consumers; /* each >= 1; together at most 2 * M68K_QJ_DRIVE_AGENTS */
  uint32_t items;                /* >= 1, total over the producers (>= producers),
                                    at most the capacity for a list, < 2^24 per producer */
  bool measure;  /* count instructions and cycles per call (the CPUs then run
                    one instruction at a time: slower) */
  uint64_t limit; /* instructions of both CPUs before giving up; 0: 2e9 */
  bool folded;    /* the loops run the entries' folded forms inline (see
                     "Folded forms") instead of calling them; measured
                     figures are then of the operation alone */
} m68k_qj_drive_options_t;

typedef struct m68k_qj_drive_result {
  uint32_t items, received, lost, dup, reordered;
  uint32_t count;           /* a counter's final value */
  uint64_t calls[2];        /* calls of the first and of the second entry */
  uint64_t cas2[2];         /* CAS2 instructions each CPU executed */
  const char *code[2];      /* the template variants the entries ran
                               (m68k_qj_entry_code's variant_name) */
  /* measure: medians over the calls that succeeded (status OK), of the
   * instructions from the entry's first through its RTS and of their
   * estimated cycles; [0] the first entry, [1] the second. */
  double insns[2], cycles[2];
  m68k_machine_result_t machine; /* how the run ended: DEADLOCK when both loops
                                    finished (SCHEDULE_END replaying a recorded run) */
} m68k_qj_drive_result_t;

/* Attaches the producers and consumers (m68k_qj_attach), synthesises the
 * loops, runs the machine and checks what arrived; detaches again. Returns
 * 0 with *res filled (whatever the checks found), or a negative code with
 * a sentence in err: M68K_EINVAL (options out of range; the sentence names
 * the option), M68K_EARENA, M68K_ENORETURN (the loops did not finish within
 * the limit, or the machine faulted: res->machine says how, the machine's
 * message why; *res holds what had arrived). */
M68K_API int m68k_qj_drive(m68k_qj_t *q, const m68k_qj_drive_options_t *opt,
                           m68k_qj_drive_result_t *res, char *err, size_t errlen);

#endif /* QUA_M68K_QUAJECT68K_H */
