/* quaject68k-templates.c -- the thesis's chapter 5 structures as 68030 templates with holes.
 *
 * Compiled by m68k-linux-gnu-gcc -m68030 -O2 (no PIC) with the jit recipe
 * and turned into stencils by stencilgen (prefix qk); quaject68k.c copies
 * and patches them into a quamachine's RAM per instance. Every callentry
 * follows the register convention of quaject68k.h ("Calling convention"):
 * the argument in d1, the status in d0 and the value in d1 on return,
 * d0-d4/a0-a2 free to use (the build passes -fcall-used-d2 ... a2, so no
 * entry saves a register). Holes are extern symbols whose addresses are
 * the instance's values: a state address, a ring's last offset, the code
 * a callback goes to. A callback is called (jsr to the hole, the item in
 * d1) on the rare path, and its d0:d1 is the entry's result.
 *
 * The success path of every CAS and CAS2 is the fall-through of the
 * instruction's own BNE (asm goto), so no flag is materialised (no SNE,
 * TST), and a retry starts again from a fresh read of the state.
 *
 * The host's templates (quaject/ *-templates.c) cannot serve here: they
 * hold 64-bit words with C11 atomics (which gcc turns into libatomic calls
 * on m68k, not CAS2), take a qua_site_t and return through the host's
 * rare-path functions. The algorithms below are the thesis's, on 32-bit
 * words, with CAS and CAS2 written as the 68030 instructions.
 *
 * Design notes
 *
 * Counter (thesis 5.2, CAS). State: one word, the count.
 *
 * C1. add reads the count, adds, and CAS-es the sum in; a failed CAS
 *     loads the current count into the compare register, so the retry
 *     needs no second read. The successful CAS is the linearisation
 *     point: no update is lost because a CAS succeeds only on the value
 *     the sum was computed from. read is one load.
 *
 * Stack (thesis 5.2, CAS2). State: sp, the address of the top item;
 * slots [base, top) below it; sp == top is empty, sp == base full.
 *
 * S1. push: nsp = sp - 4, old = *nsp, CAS2(&sp, nsp: sp, old -> nsp, x).
 *     Claiming the slot and filling it are one indivisible step, so no
 *     other push can fill the slot between (the CAS-only version writes
 *     the slot first and a concurrent push overwrites it).
 * S2. pop: x = *sp, CAS2(&sp, sp: sp, x -> sp + 4, x). The second
 *     compare checks the item read is still the slot's content when sp
 *     moves: with CAS on sp alone, a pop delayed between reading x and its
 *     CAS can succeed after the other CPU popped x and pushed y into the same
 *     slot (sp is back to the same value: ABA) and return x twice, losing
 *     y. With CAS2, that history changes the slot to y and the CAS2 fails.
 *     The remaining ABA is a slot refilled with an equal item, which is
 *     harmless: the pop returns that equal item.
 * S3. The linearisation point of each is its successful CAS2; full and
 *     empty are decided on the sp value the CAS2 compares (a retry reads
 *     sp again), so a full or empty answer was true when sp was read.
 *
 * Queue (thesis 5.2, CAS2; the Synthesis queue family, Table 4.2). State:
 * one word ht = head << 16 | tail, then size = capacity + 1 slots. head is
 * the byte offset of the last item put in the ring, tail of the last item
 * taken (so the ring has at most 16384 slots); the queue is empty when
 * head == tail, full when next(head) == tail, and holds the slots
 * next(tail) .. head.
 *
 * Q1. Head and tail share one word so that a single compare sees both:
 *     a put's CAS2 on (ht, slot) succeeds only if neither index moved
 *     since it read them, so "the queue was empty just before this put"
 *     (head == tail in the compared ht) is decided at the linearisation
 *     point itself. That makes notempty exact for any number of producers
 *     and consumers: it fires exactly for the puts whose CAS2 found
 *     head == tail, once per empty -> not-empty transition of the
 *     linearisation order. notfull likewise: the get whose CAS2 found
 *     next(head) == tail.
 * Q2. MP put: n = next(head); full if n == tail; else CAS2(&ht, &slot[n]:
 *     ht, old -> ht with head = n, x). Claiming the slot (moving head) and
 *     storing the item are one step: two producers cannot both store into
 *     slot n, and a consumer never sees head past an unwritten slot. A
 *     failed CAS2 reloads ht, and the retry recomputes n and the full test
 *     from it (the broken variant keeps the slot of the first read: a put
 *     that does not re-read its slot, overwriting a slot another producer
 *     just filled).
 * Q3. MC get: empty if head == tail; n = next(tail), x = slot[n];
 *     CAS2(&ht, &slot[n]: ht, x -> ht with tail = n, x). The slot compare
 *     guards against the ring wrapping between the read of x and the CAS2
 *     with ht back at the same value but the slot refilled.
 * Q4. The SP-SC code runs without any read-modify-write: the producer owns
 *     the head half of ht and the consumer the tail half, and each writes
 *     its half with a 16-bit store (indivisible on the 68030 and here) after
 *     storing (put) or loading (get) the slot. A store of one half never
 *     undoes the other side's store, and because the CAS2 forms compare the
 *     whole word, SP code on one side and MP code on the other mix
 *     correctly: a half store between an MP side's read and its CAS2 makes
 *     that CAS2 fail and retry. So switching put (or get) between SP and MP
 *     code needs no conversion of the state, and items in flight are
 *     neither lost nor duplicated.
 * Q5. The SP-SC edges: a plain store cannot tell whether the other side
 *     moved just before it, so when somebody listens to notempty (notfull)
 *     the single-producer put (single-consumer get) publishes its index
 *     with CAS on ht instead of the store (put_sp_t, get_sc_t): the CAS's
 *     compared value decides the edge at the linearisation point, as in Q1.
 *     The only producer stores the item first (slot n is free: n != tail,
 *     and tail only advances toward head), then retries the CAS with the
 *     reloaded ht until it succeeds; tail moving cannot make n == tail.
 * Q6. Unwatched edges cost nothing: the untracked forms leave the test out
 *     (quaject68k.c picks the form by who listens).
 * Q7. A callback runs just after its operation's linearisation point, on
 *     the CPU that made the transition. Two CPUs' callbacks can therefore
 *     reach their handlers in another order than their transitions (CPU 0's
 *     notempty after CPU 1's empty from a get that found the queue empty
 *     before CPU 0's put): each transition is reported once, but a waiter
 *     that sleeps on empty and wakes on notempty must check the queue again
 *     before sleeping, as with the host's queue.
 * Q8. The remaining ABA (the thesis's too): a put delayed across a whole
 *     wrap of the ring, finding ht and its slot's content both back at
 *     the values it read, would store into a slot that is live again. That
 *     needs size puts and gets by the other CPU within one put's few
 *     instructions and an equal item in that slot; items that are distinct
 *     (sequence numbers, node addresses) exclude it.
 *
 * List (thesis 5.2). State: head, the first node's address (0: empty).
 * Node: next at +0, the caller's value at +4.
 *
 * L1. insert: node->next = head; CAS(&head, node->next -> node). A failed
 *     CAS reloads head; the node is not yet reachable, so storing its next
 *     again is safe.
 * L2. delete: first = head, second = first->next; CAS2(&head,
 *     &first->next: first, second -> second, 0). Clearing first->next in
 *     the same step is what makes the CAS2 safe against ABA: if first was
 *     deleted and inserted again meanwhile with another successor, its next
 *     no longer equals second and the CAS2 fails; with a single CAS on head
 *     (the broken variant) head becomes a stale successor: a deleted node
 *     is on the list again and nodes inserted meanwhile are lost.
 *
 * Folded forms (thesis 3: collapsing layers, factoring invariants)
 *
 * F1. This file compiled again with QK_FOLDED (stencil prefix qf) gives
 *     every entry's folded form: the same C, the same algorithm, but the
 *     instance's invariants are the caller's registers (a2 the state's
 *     address, d6 and d5 the ring's base and bound: note F4; global
 *     register variables, so no load of a hole and no address computation)
 *     and the success exit, instead of RTS, leaves the value in d1 and
 *     jumps to the hole qk_next. Chained behind a piece of its caller
 *     (jit_emit_chain), the operation is entered by falling into it and
 *     the jump that ends its code is dropped, so it falls through into the
 *     caller's next instruction: no JSR, no RTS. The build compiles these
 *     blocks in source order, so the success path is the one that ends
 *     the code; the rare paths are out of line (note F5).
 * F2. What a folded form may touch: d1-d4 and a0-a1; it reads a2, d5 and
 *     d6 and never changes them, nor d0 on its hot path (note F6); a
 *     callback, which may clobber a2, is called with a2 saved on the stack
 *     around it; d7/a3-a6 the build forbids gcc. No folded form may have a
 *     prologue or epilogue, save a register or spill one to the stack:
 *     nothing could undo it, the code ending in a jump (the test
 *     folded_forms_never_touch_the_stack checks the code). The caller
 *     keeps its own state in d7/a3-a6.
 * F3. The callers' pieces below (qk_fold_*) are the small code around the
 *     operations: loading the invariants once, the cold stubs, and the
 *     explorer's per-call logging. They are written as 68k instructions
 *     because they only move registers: the operations are all C.
 * F4. The ring's base (qk_slots: the stack's lowest slot, the queue's slot
 *     0) in d6 and its bound (the stack's qk_top, the queue's last offset
 *     qk_last; the hole qk_bound of the caller's piece) in d5, loaded once
 *     by the caller, are invariants of the instance: the full and empty
 *     tests compare with a register (CMP.L, 2 cycles) rather than a 32-bit
 *     immediate (CMPI.L, 6), and a slot's address is base plus offset
 *     with no ADDA.L #imm (6). With the bound in a register, next() is an
 *     add, a compare and one branch over the wrap (ADDQ, CMP, BCC taken:
 *     10) rather than a branch either way (14). gcc copies the global
 *     register variables rather than address through them at an offset
 *     or name a2 in a CAS2, and widens a 16-bit index kept in an address
 *     register by way of a data register, or with a copy and ANDI.L: so
 *     the folded CAS2_OR names (a2) itself, IN_DREG keeps the index in a
 *     data register, ZEXT16 widens with MOVEQ and MOVE.W, and the SP-SC get
 *     reads and writes the tail half at 2(a2) with LOAD_TAIL16 and
 *     STORE_TAIL16. -fno-move-loop-invariants keeps gcc from hoisting
 *     copies of the invariants out of the retry loops into registers the
 *     forms do not have.
 * F5. A rare path (full, empty, notfull, notempty) is a compare and a
 *     BEQ.S to the hole qk_cold_<callback> (RARE): not taken, 4 cycles,
 *     where a rare path in line costs the hot path a taken branch (6) over
 *     it. The hole is the cold stub qk_fold_cold_<callback>, one per
 *     callback for every operation, which calls the callback (the item in
 *     d1, a2 kept) and jumps to the code after the operation, whose d0:d1
 *     the callback's is. The caller places an operation's cold stubs after
 *     the first piece of its own that ends in a jump (nothing falls into
 *     them) within a byte branch's reach (m68k__qj_fold_colds). A retry
 *     after a failed CAS or CAS2 stays a backward BNE.S in line: not taken
 *     on success, it costs the hot path no more than out of line.
 * F6. d0 is the status, OK (0) on entry: the caller clears it once and
 *     again only after an operation that took a rare path, so the hot
 *     path leaves it as it is (no CLR.L, 2 cycles; the build reserves d0,
 *     -ffixed-d0). The thesis's callers learn of full and empty through
 *     the callbacks alone; the status word is ours, for the host's calls.
 *     The item (ITEM) stays in d1 from entry to exit, where the cold
 *     stubs and the caller want it, without copies in and out.
 */
#include <stdint.h>

#include "quaject68k-abi.h"

/* Results: status in d0 (high word of the uint64_t), value in d1. */
#define RET(status, value) (((uint64_t)(status) << 32) | (uint32_t)(value))
#define OK 0u

/* Holes. Addresses are 32-bit absolute fields (R_68K_32), callbacks
 * included (jsr to the hole). */
extern char qk_state[]; /* the state word: count, sp, ht or head */
extern char qk_slots[]; /* stack: base (lowest slot); queue: slot 0 */
extern char qk_top[];   /* stack: address past the highest slot */
extern char qk_last[];  /* queue: the last slot's offset, 4 * capacity */
extern char qk_full[], qk_empty[], qk_notfull[], qk_notempty[];

#define U(hole) ((uint32_t)(uintptr_t)(hole))
#ifdef QK_FOLDED
/* The folded forms (design notes F1, F4): the state's address is the
 * caller's a2, the ring's base and bound its d6 and d5, which no code of
 * this file changes; d0 is the status, 0 on entry, which only a rare path
 * changes (note F6). */
register uintptr_t qk_state_reg __asm__("a2");
register uint32_t qk_base_reg __asm__("d6");
register uint32_t qk_bound_reg __asm__("d5");
#define STATE ((volatile uint32_t *)qk_state_reg)
#define BASE qk_base_reg  /* stack and queue: qk_slots */
#define TOP qk_bound_reg  /* stack: qk_top */
#define LAST qk_bound_reg /* queue: qk_last */
#define OK_DONE(x) QK_FALL_OK(x)
/* The item stays in d1 from entry to exit (where a cold stub, and the
 * caller, want it): no copies in and out of another register. */
#define ITEM(x) register uint32_t x __asm__("d1")
#else
#define STATE ((volatile uint32_t *)(uintptr_t)qk_state)
#define BASE U(qk_slots)
#define TOP U(qk_top)
#define LAST U(qk_last)
#define OK_DONE(x) return RET(OK, x)
#define ITEM(x) uint32_t x
#endif
#define HEAD16 ((volatile uint16_t *)STATE)
#define TAIL16 ((volatile uint16_t *)STATE + 1)
#ifdef QK_FOLDED
/* The tail half at 2(a2), zero-extended into a data register on a load:
 * gcc addresses a half at an offset from the global register variable
 * only through a copy of it in another address register (LEA, then the
 * access), and widens an index it keeps in an address register by way of
 * a data register. */
#define LOAD_TAIL16()                                                          \
  ({                                                                           \
    uint32_t t_;                                                               \
    __asm__ volatile("moveq #0,%0\n\tmove.w 2(%%a2),%0"                        \
                     : "=d"(t_)                                                \
                     :                                                         \
                     : "memory");                                              \
    t_;                                                                        \
  })
#define STORE_TAIL16(v) __asm__ volatile("move.w %0,2(%%a2)" : : "d"(v) : "memory")
/* v in a data register from here on (see LOAD_TAIL16). */
#define IN_DREG(v) __asm__("" : "+d"(v))
/* v's low half, zero-extended: MOVEQ and MOVE.W (4 cycles), where gcc
 * copies v and masks it with ANDI.L #$ffff (8). */
#define ZEXT16(v)                                                              \
  ({                                                                           \
    uint32_t z_;                                                               \
    __asm__("moveq #0,%0\n\tmove.w %1,%0" : "=&d"(z_) : "d"(v));               \
    z_;                                                                        \
  })
#else
#define LOAD_TAIL16() ((uint32_t)*TAIL16)
#define STORE_TAIL16(v) (*TAIL16 = (uint16_t)(v))
#define IN_DREG(v) ((void)0)
#define ZEXT16(v) ((uint16_t)(v))
#endif
#define SLOTS ((volatile uint32_t *)(uintptr_t)qk_slots)

/* The register convention (quaject68k.h, quaject68k-abi.h): the
 * argument in d1, a callback called with the item in d1. */
#define ARG() QK_ARG()

/* CAS.L cmp,upd,*p, and to `fail` when it failed. m68k gcc has no asm
 * goto with outputs, so the compare registers are inputs that a failed
 * CAS (CAS2) overwrites with the memory operands: every `fail` label
 * must be where the operation starts again from a fresh read of the
 * state, with no value live across it in a compare register (the
 * templates below retry from the top, and nothing but loop invariants,
 * never a compare operand, outlives a failed attempt). */
#define CAS_OR(p, cmp, upd, fail)                                              \
  __asm__ goto("cas.l %0,%1,%2\n\tjne %l3"                                     \
               :                                                               \
               : "d"(cmp), "d"(upd), "m"(*(p))                                 \
               : "cc", "memory"                                                \
               : fail)

/* CAS2.L c1:c2,u1:u2,(p1):(p2), and to `fail` when it failed (see
 * CAS_OR). The addresses may sit in data or address registers (CAS2
 * takes either); a compare and an update register may be the same (all
 * are read before anything is written). */
#ifdef QK_FOLDED
/* Folded, p1 is always the state, a2 (note F4): named in the instruction,
 * where as an operand gcc would copy it into another register first. */
#define CAS2_OR(p1, p2, c1, c2, u1, u2, fail)                                  \
  __asm__ goto("cas2.l %0:%1,%2:%3,(%%a2):(%4)\n\tjne %l5"                     \
               :                                                               \
               : "d"(c1), "d"(c2), "d"(u1), "d"(u2), "r"(p2)                   \
               : "cc", "memory"                                                \
               : fail)
#else
#define CAS2_OR(p1, p2, c1, c2, u1, u2, fail)                                  \
  __asm__ goto("cas2.l %0:%1,%2:%3,(%4):(%5)\n\tjne %l6"                       \
               :                                                               \
               : "d"(c1), "d"(c2), "d"(u1), "d"(u2), "r"(p1), "r"(p2)          \
               : "cc", "memory"                                                \
               : fail)
#endif

/* The rare paths: RARE(cond, cmp, a, b, cb, x) calls callback `cb` with
 * the item x in d1 when cond holds, its d0:d1 the result. Called, the
 * callback is called in line; folded, cond is decided by the instruction
 * cmp (CMP.L or CMP.W) on a and b, equal meaning cond, and BEQ.S goes out
 * of line to the cold stub qk_fold_cold_<cb> (not taken on the hot path;
 * note F5), which calls the callback and goes on to qk_next. A rare test
 * goes before anything the cold stub would have to undo. */
#ifdef QK_FOLDED
#define QK_RARE_ITEM(cmp, a, b, cb, x)                                         \
  do {                                                                         \
    register uint32_t x_ __asm__("d1") = (x);                                  \
    __asm__ volatile(cmp "\n\tbeq.s qk_cold_" #cb                              \
                     :                                                         \
                     : "d"(a), "dmi"(b), "d"(x_)                               \
                     : "cc");                                                  \
  } while (0)
/* empty carries no item: its cold stub clears d1 itself. */
#define QK_RARE_full(cmp, a, b, x) QK_RARE_ITEM(cmp, a, b, full, x)
#define QK_RARE_notfull(cmp, a, b, x) QK_RARE_ITEM(cmp, a, b, notfull, x)
#define QK_RARE_notempty(cmp, a, b, x) QK_RARE_ITEM(cmp, a, b, notempty, x)
#define QK_RARE_empty(cmp, a, b, x)                                            \
  __asm__ volatile(cmp "\n\tbeq.s qk_cold_empty" : : "d"(a), "dmi"(b) : "cc")
#define RARE(cond, cmp, a, b, cb, x) QK_RARE_##cb(cmp " %1,%0", a, b, x)
#define RARE_IF_ZERO(a, cb, x) QK_RARE_##cb("tst.l %0", a, 0, x)
#else
#define RARE(cond, cmp, a, b, cb, x)                                           \
  do {                                                                         \
    if (cond)                                                                  \
      return QK_CALL(qk_##cb, x);                                              \
  } while (0)
#define RARE_IF_ZERO(a, cb, x) RARE((uint32_t)(a) == 0, , , , cb, x)
#endif
#define RARE_IF_EQ(a, b, cb, x)                                                \
  RARE((uint32_t)(a) == (uint32_t)(b), "cmp.l", a, b, cb, x)
#define RARE_IF_EQ16(a, b, cb, x)                                              \
  RARE((uint16_t)(a) == (uint16_t)(b), "cmp.w", a, b, cb, x)

/* ---- Counter ------------------------------------------------------------- */

uint64_t qk_counter_add(void) {
  uint32_t delta = ARG(), old, sum;
retry:
  old = *STATE;
  sum = old + delta;
  CAS_OR(STATE, old, sum, retry);
  OK_DONE(sum);
}

uint64_t qk_counter_read(void) { OK_DONE(*STATE); }

/* Seeded bug: a load and a store, so an add between them is lost. */
uint64_t qk_counter_add_broken(void) {
  uint32_t delta = ARG(), v = *STATE + delta;
  __asm__ volatile("" ::: "memory"); /* keep the load and the store apart */
  *STATE = v;
  OK_DONE(v);
}

/* ---- Stack ---------------------------------------------------------------- */

uint64_t qk_push_cas2(void) {
  ITEM(x) = ARG();
retry:;
  uint32_t sp = *STATE;
  RARE_IF_EQ(sp, BASE, full, x);
  volatile uint32_t *slot = (volatile uint32_t *)(uintptr_t)sp - 1;
  uint32_t old = *slot;
  CAS2_OR(STATE, slot, sp, old, (uint32_t)(uintptr_t)slot, x, retry);
  OK_DONE(x);
}

uint64_t qk_pop_cas2(void) {
retry:;
  uint32_t sp = *STATE;
  RARE_IF_EQ(sp, TOP, empty, 0);
  volatile uint32_t *slot = (volatile uint32_t *)(uintptr_t)sp;
  uint32_t x = *slot;
  CAS2_OR(STATE, slot, sp, x, sp + 4, x, retry);
  OK_DONE(x);
}

/* Seeded bug (S1, S2): CAS on sp alone. push stores the item before
 * claiming the slot; pop may return an item another CPU popped (ABA). */
uint64_t qk_push_broken(void) {
  ITEM(x) = ARG();
retry:;
  uint32_t sp = *STATE;
  RARE_IF_EQ(sp, BASE, full, x);
  uint32_t nsp = sp - 4;
  *(volatile uint32_t *)(uintptr_t)nsp = x;
  CAS_OR(STATE, sp, nsp, retry);
  OK_DONE(x);
}

uint64_t qk_pop_broken(void) {
retry:;
  uint32_t sp = *STATE;
  RARE_IF_EQ(sp, TOP, empty, 0);
  uint32_t x = *(volatile uint32_t *)(uintptr_t)sp;
  CAS_OR(STATE, sp, sp + 4, retry);
  OK_DONE(x);
}

/* ---- Queue ---------------------------------------------------------------- */

/* Indices are byte offsets into the ring (design note Q1), so a slot's
 * address is one add: SLOT(off). */
#define SLOT(off) ((volatile uint32_t *)(uintptr_t)(BASE + (off)))

static inline __attribute__((always_inline)) uint32_t next(uint32_t off) {
#ifdef QK_FOLDED
  /* The bound in a register (note F4): add, compare and one branch over
   * the wrap, rather than a branch either way. */
  uint32_t n = off + 4;
  IN_DREG(n);
  return n > LAST ? 0 : n;
#else
  return off == LAST ? 0 : off + 4;
#endif
}

/* The halves of a word exchanged (SWAP): gcc writes v << 16 | v >> 16
 * as two shifts, and a 16-bit index moved to the high half as SWAP and
 * CLR.W where SWAP alone does when the high half is known zero. */
static inline __attribute__((always_inline)) uint32_t swap16(uint32_t v) {
  __asm__("swap %0" : "+d"(v));
  return v;
}

/* MP put (Q1, Q2); `tracked` keeps the notempty test (Q6). The 16-bit
 * compares read the tail half of ht without masking it. */
#define QK_PUT_MP(name, tracked)                                               \
  uint64_t qk_##name(void) {                                                   \
    ITEM(x) = ARG();                                                           \
  retry:;                                                                      \
    uint32_t ht = *STATE, n = next(ht >> 16);                                  \
    RARE_IF_EQ16(n, ht, full, x);                                              \
    uint32_t old = *SLOT(n), was = ht;                                         \
    CAS2_OR(STATE, SLOT(n), ht, old, swap16(n) | (uint16_t)was, x, retry);     \
    if (tracked)                                                               \
      RARE(was >> 16 == (uint16_t)was, "cmp.w", swap16(was), was, notempty,    \
           x);                                                                 \
    OK_DONE(x);                                                                \
  }

/* MC get (Q1, Q3); `tracked` keeps the notfull test. */
#define QK_GET_MC(name, tracked)                                               \
  uint64_t qk_##name(void) {                                                   \
  retry:;                                                                      \
    uint32_t ht = *STATE;                                                      \
    RARE_IF_EQ16(swap16(ht), ht, empty, 0);                                    \
    uint32_t n = next(ZEXT16(ht)), x = *SLOT(n), was = ht;                     \
    CAS2_OR(STATE, SLOT(n), ht, x, (was & 0xffff0000u) | n, x, retry);         \
    if (tracked)                                                               \
      RARE_IF_EQ16(next(was >> 16), was, notfull, x);                          \
    OK_DONE(x);                                                                \
  }

QK_PUT_MP(put_mp, 0)
QK_PUT_MP(put_mp_t, 1)
QK_GET_MC(get_mc, 0)
QK_GET_MC(get_mc_t, 1)

/* SP-SC (Q4): the producer owns the head half, the consumer the tail half. */
uint64_t qk_put_sp(void) {
  ITEM(x) = ARG();
  uint32_t ht = *STATE, n = next(ht >> 16); /* both halves in one read */
  RARE_IF_EQ16(n, ht, full, x);
  *SLOT(n) = x;
  *HEAD16 = (uint16_t)n;
  OK_DONE(x);
}

uint64_t qk_get_sc(void) {
  uint32_t t = LOAD_TAIL16();
  RARE_IF_EQ16(*HEAD16, t, empty, 0);
  uint32_t n = next(t);
  ITEM(x) = *SLOT(n);
  STORE_TAIL16(n);
  OK_DONE(x);
}

/* SP-SC with the edge decided by a CAS on ht (Q5). The only producer's
 * retry keeps its n: only the tail half can have moved. */
uint64_t qk_put_sp_t(void) {
  ITEM(x) = ARG();
  uint32_t ht = *STATE, h = ht >> 16, n = next(h);
  RARE_IF_EQ16(n, ht, full, x);
  *SLOT(n) = x;
retry:
  ht = *STATE;
  CAS_OR(STATE, ht, n << 16 | (uint16_t)ht, retry);
  RARE((uint16_t)ht == h, "cmp.w", ht, h, notempty, x);
  OK_DONE(x);
}

uint64_t qk_get_sc_t(void) {
  uint32_t ht = *STATE, t = (uint16_t)ht;
  RARE(ht >> 16 == t, "cmp.w", ht >> 16, t, empty, 0);
  uint32_t n = next(t), x = *SLOT(n);
retry:
  ht = *STATE;
  CAS_OR(STATE, ht, (ht & 0xffff0000u) | n, retry);
  RARE(next(ht >> 16) == t, "cmp.w", next(ht >> 16), t, notfull, x);
  OK_DONE(x);
}

/* Seeded bug (Q2): the slot is chosen from the first read of ht only; a
 * failed CAS2 reloads ht and that slot's content, and the retry stores
 * into the same slot with the new head's successor as head. */
#define QK_PUT_BROKEN(name, tracked)                                           \
  uint64_t qk_##name(void) {                                                   \
    ITEM(x) = ARG();                                                           \
    uint32_t ht = *STATE, n = next(ht >> 16), was, old;                        \
    RARE_IF_EQ16(n, ht, full, x);                                              \
    volatile uint32_t *slot = SLOT(n);                                         \
  retry:                                                                       \
    was = *STATE;                                                              \
    old = *slot;                                                               \
    ht = was;                                                                  \
    CAS2_OR(STATE, slot, ht, old, next(was >> 16) << 16 | (uint16_t)was, x, retry); \
    if (tracked)                                                               \
      RARE(was >> 16 == (uint16_t)was, "cmp.w", swap16(was), was, notempty,    \
           x);                                                                 \
    OK_DONE(x);                                                                \
  }
QK_PUT_BROKEN(put_broken, 0)
QK_PUT_BROKEN(put_broken_t, 1)

/* ---- List ----------------------------------------------------------------- */

#define NEXT(node) ((volatile uint32_t *)(uintptr_t)(node))

uint64_t qk_list_insert(void) {
  ITEM(node) = ARG();
  uint32_t h;
retry:
  h = *STATE;
  *NEXT(node) = h;
  CAS_OR(STATE, h, node, retry);
  OK_DONE(node);
}

uint64_t qk_list_delete(void) {
retry:;
  uint32_t first = *STATE;
  RARE_IF_ZERO(first, empty, 0);
  uint32_t second = *NEXT(first), zero = 0;
  CAS2_OR(STATE, NEXT(first), first, second, second, zero, retry);
  OK_DONE(first);
}

/* Seeded bug (L2): a single CAS on head. */
uint64_t qk_list_delete_broken(void) {
retry:;
  uint32_t first = *STATE;
  RARE_IF_ZERO(first, empty, 0);
  CAS_OR(STATE, first, *NEXT(first), retry);
  OK_DONE(first);
}

/* ---- Callers' pieces for the folded forms (note F3) ------------------------ */

#ifdef QK_FOLDED
extern char qk_arg[];   /* qk_fold_inv: the call's argument */
extern char qk_bound[]; /* the stack's qk_top, the queue's qk_last (note F4) */

/* The invariants, once per caller (notes F4, F6): the state's address into
 * a2, the ring's base and bound into d6 and d5, the status OK into d0. */
void qk_fold_enter(void) {
  __asm__ volatile("lea qk_state,%a2\n\tmove.l #qk_slots,%d6\n\tmove.l #qk_bound,%d5\n\t"
                   "moveq #0,%d0\n\tjmp qk_next");
  __builtin_unreachable();
}

/* The cold stubs (note F5): an operation's rare path, out of line. The
 * callback is called with the item in d1 (0 for empty) and a2 kept on the
 * stack around it; its d0:d1 is the operation's result. */
#define QK_COLD(cb, first)                                                     \
  void qk_fold_cold_##cb(void) {                                               \
    __asm__ volatile(first "move.l %a2,-(%sp)\n\tjsr qk_" #cb "\n\t"           \
                     "move.l (%sp)+,%a2\n\tjmp qk_next");                      \
    __builtin_unreachable();                                                   \
  }
QK_COLD(full, "")
QK_COLD(empty, "moveq #0,%d1\n\t")
QK_COLD(notfull, "")
QK_COLD(notempty, "")

/* The end of a chain that a host call runs (m68k_qj_call_folded). */
void qk_fold_return(void) {
  /* The NOP (head 0) keeps the operation's last tail (a write's) from
   * overlapping the RTS's head: in a caller's loop the operation is
   * followed by the caller's own code, measuring by a TRAP (head 0), and
   * m68k_qj_call_folded must count what the loop counts. */
  __asm__ volatile("nop\n\trts");
  __builtin_unreachable();
}

/* The explorer's per-call logging (explore-cmd.c note 2): a3 the log, a4
 * the machine's CLOCK. Before a call: its invocation time, its argument
 * into d1. After it: the response time, the status and the value. */
void qk_fold_inv(void) {
  __asm__ volatile("move.l (%a4),(%a3)+\n\tmove.l #qk_arg,%d1\n\tmoveq #0,%d0\n\tjmp qk_next");
  __builtin_unreachable();
}

void qk_fold_resp(void) {
  __asm__ volatile("move.l (%a4),(%a3)+\n\tmove.l %d0,(%a3)+\n\tmove.l %d1,(%a3)+\n\t"
                   "jmp qk_next");
  __builtin_unreachable();
}

void qk_fold_stop(void) {
  __asm__ volatile("1:\tstop #0x2700\n\tbra.s 1b");
  __builtin_unreachable();
}
#endif
