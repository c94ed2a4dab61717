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
 *     state's address is the caller's a2 (a global register variable: no
 *     load of a hole, no address computation) and each exit, instead of
 *     RTS, leaves d0:d1 and jumps to the hole qk_next. Chained behind a
 *     piece of its caller (jit_emit_chain), the operation is entered by
 *     falling into it and the jump that ends its code is dropped, so it
 *     falls through into the caller's next instruction: no JSR, no RTS.
 *     The build compiles these blocks in source order, so the success
 *     path is the one that ends the code (a rare path jumps to qk_next).
 * F2. What a folded form may touch: d0-d6 and a0-a1 (two data registers
 *     more than a called entry: the tracked queue forms need them); never
 *     a2 (a callback, which may clobber it, is called with a2 saved on the
 *     stack around it) nor d7/a3-a6, which the build forbids gcc. No
 *     folded form may have a prologue or epilogue, save a register or
 *     spill one to the stack: nothing could undo it, the code ending in a
 *     jump (the test folded_forms_never_touch_the_stack checks the code).
 *     The caller keeps its own state in d7/a3-a6.
 * F3. The callers' pieces below (qk_fold_*) are the small code around the
 *     operations: loading the invariant into a2 once, and the explorer's
 *     per-call logging. They are written as 68k instructions because
 *     they only move registers: the operations are all C.
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
/* The folded forms (design note F1): the state's address is the caller's
 * a2, which no code of this file changes. */
register uintptr_t qk_state_reg __asm__("a2");
#define STATE ((volatile uint32_t *)qk_state_reg)
#define DONE(v) QK_FALL(v)
#define CALLBACK(hole, x) QK_CALL_KEEP_A2(hole, x)
#else
#define STATE ((volatile uint32_t *)(uintptr_t)qk_state)
#define DONE(v) return (v)
#define CALLBACK(hole, x) QK_CALL(hole, x)
#endif
#define HEAD16 ((volatile uint16_t *)STATE)
#define TAIL16 ((volatile uint16_t *)STATE + 1)
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
#define CAS2_OR(p1, p2, c1, c2, u1, u2, fail)                                  \
  __asm__ goto("cas2.l %0:%1,%2:%3,(%4):(%5)\n\tjne %l6"                       \
               :                                                               \
               : "d"(c1), "d"(c2), "d"(u1), "d"(u2), "r"(p1), "r"(p2)          \
               : "cc", "memory"                                                \
               : fail)

/* ---- Counter ------------------------------------------------------------- */

uint64_t qk_counter_add(void) {
  uint32_t delta = ARG(), old, sum;
retry:
  old = *STATE;
  sum = old + delta;
  CAS_OR(STATE, old, sum, retry);
  DONE(RET(OK, sum));
}

uint64_t qk_counter_read(void) { DONE(RET(OK, *STATE)); }

/* Seeded bug: a load and a store, so an add between them is lost. */
uint64_t qk_counter_add_broken(void) {
  uint32_t delta = ARG(), v = *STATE + delta;
  __asm__ volatile("" ::: "memory"); /* keep the load and the store apart */
  *STATE = v;
  DONE(RET(OK, v));
}

/* ---- Stack ---------------------------------------------------------------- */

uint64_t qk_push_cas2(void) {
  uint32_t x = ARG();
retry:;
  uint32_t sp = *STATE;
  if (sp == U(qk_slots))
    DONE(CALLBACK(qk_full, x));
  volatile uint32_t *slot = (volatile uint32_t *)(uintptr_t)sp - 1;
  uint32_t old = *slot;
  CAS2_OR(STATE, slot, sp, old, (uint32_t)(uintptr_t)slot, x, retry);
  DONE(RET(OK, x));
}

uint64_t qk_pop_cas2(void) {
retry:;
  uint32_t sp = *STATE;
  if (sp == U(qk_top))
    DONE(CALLBACK(qk_empty, 0));
  volatile uint32_t *slot = (volatile uint32_t *)(uintptr_t)sp;
  uint32_t x = *slot;
  CAS2_OR(STATE, slot, sp, x, sp + 4, x, retry);
  DONE(RET(OK, x));
}

/* Seeded bug (S1, S2): CAS on sp alone. push stores the item before
 * claiming the slot; pop may return an item another CPU popped (ABA). */
uint64_t qk_push_broken(void) {
  uint32_t x = ARG();
retry:;
  uint32_t sp = *STATE;
  if (sp == U(qk_slots))
    DONE(CALLBACK(qk_full, x));
  uint32_t nsp = sp - 4;
  *(volatile uint32_t *)(uintptr_t)nsp = x;
  CAS_OR(STATE, sp, nsp, retry);
  DONE(RET(OK, x));
}

uint64_t qk_pop_broken(void) {
retry:;
  uint32_t sp = *STATE;
  if (sp == U(qk_top))
    DONE(CALLBACK(qk_empty, 0));
  uint32_t x = *(volatile uint32_t *)(uintptr_t)sp;
  CAS_OR(STATE, sp, sp + 4, retry);
  DONE(RET(OK, x));
}

/* ---- Queue ---------------------------------------------------------------- */

/* Indices are byte offsets into the ring (design note Q1), so a slot's
 * address is one add: SLOT(off). */
#define SLOT(off) ((volatile uint32_t *)(uintptr_t)(U(qk_slots) + (off)))

static inline __attribute__((always_inline)) uint32_t next(uint32_t off) {
  return off == U(qk_last) ? 0 : off + 4;
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
    uint32_t x = ARG();                                                        \
  retry:;                                                                      \
    uint32_t ht = *STATE, n = next(ht >> 16);                                  \
    if ((uint16_t)n == (uint16_t)ht)                                           \
      DONE(CALLBACK(qk_full, x));                                              \
    uint32_t old = *SLOT(n), was = ht;                                         \
    CAS2_OR(STATE, SLOT(n), ht, old, swap16(n) | (uint16_t)was, x, retry);     \
    if (tracked && was >> 16 == (uint16_t)was)                                 \
      DONE(CALLBACK(qk_notempty, x));                                          \
    DONE(RET(OK, x));                                                          \
  }

/* MC get (Q1, Q3); `tracked` keeps the notfull test. */
#define QK_GET_MC(name, tracked)                                               \
  uint64_t qk_##name(void) {                                                   \
  retry:;                                                                      \
    uint32_t ht = *STATE;                                                      \
    if ((uint16_t)swap16(ht) == (uint16_t)ht)                                  \
      DONE(CALLBACK(qk_empty, 0));                                             \
    uint32_t n = next((uint16_t)ht), x = *SLOT(n), was = ht;                   \
    CAS2_OR(STATE, SLOT(n), ht, x, (was & 0xffff0000u) | n, x, retry);         \
    if (tracked && (uint16_t)next(was >> 16) == (uint16_t)was)                 \
      DONE(CALLBACK(qk_notfull, x));                                           \
    DONE(RET(OK, x));                                                          \
  }

QK_PUT_MP(put_mp, 0)
QK_PUT_MP(put_mp_t, 1)
QK_GET_MC(get_mc, 0)
QK_GET_MC(get_mc_t, 1)

/* SP-SC (Q4): the producer owns the head half, the consumer the tail half. */
uint64_t qk_put_sp(void) {
  uint32_t x = ARG(), ht = *STATE, n = next(ht >> 16); /* both halves in one read */
  if ((uint16_t)n == (uint16_t)ht)
    DONE(CALLBACK(qk_full, x));
  *SLOT(n) = x;
  *HEAD16 = (uint16_t)n;
  DONE(RET(OK, x));
}

uint64_t qk_get_sc(void) {
  uint32_t t = *TAIL16;
  if (*HEAD16 == t)
    DONE(CALLBACK(qk_empty, 0));
  uint32_t n = next(t), x = *SLOT(n);
  *TAIL16 = (uint16_t)n;
  DONE(RET(OK, x));
}

/* SP-SC with the edge decided by a CAS on ht (Q5). The only producer's
 * retry keeps its n: only the tail half can have moved. */
uint64_t qk_put_sp_t(void) {
  uint32_t x = ARG(), ht = *STATE, h = ht >> 16, n = next(h);
  if ((uint16_t)n == (uint16_t)ht)
    DONE(CALLBACK(qk_full, x));
  *SLOT(n) = x;
retry:
  ht = *STATE;
  CAS_OR(STATE, ht, n << 16 | (uint16_t)ht, retry);
  if ((uint16_t)ht == h)
    DONE(CALLBACK(qk_notempty, x));
  DONE(RET(OK, x));
}

uint64_t qk_get_sc_t(void) {
  uint32_t ht = *STATE, t = (uint16_t)ht;
  if (ht >> 16 == t)
    DONE(CALLBACK(qk_empty, 0));
  uint32_t n = next(t), x = *SLOT(n);
retry:
  ht = *STATE;
  CAS_OR(STATE, ht, (ht & 0xffff0000u) | n, retry);
  if (next(ht >> 16) == t)
    DONE(CALLBACK(qk_notfull, x));
  DONE(RET(OK, x));
}

/* Seeded bug (Q2): the slot is chosen from the first read of ht only; a
 * failed CAS2 reloads ht and that slot's content, and the retry stores
 * into the same slot with the new head's successor as head. */
#define QK_PUT_BROKEN(name, tracked)                                           \
  uint64_t qk_##name(void) {                                                   \
    uint32_t x = ARG(), ht = *STATE, n = next(ht >> 16), was, old;             \
    if ((uint16_t)n == (uint16_t)ht)                                           \
      DONE(CALLBACK(qk_full, x));                                              \
    volatile uint32_t *slot = SLOT(n);                                         \
  retry:                                                                       \
    was = *STATE;                                                              \
    old = *slot;                                                               \
    ht = was;                                                                  \
    CAS2_OR(STATE, slot, ht, old, next(was >> 16) << 16 | (uint16_t)was, x, retry); \
    if (tracked && was >> 16 == (uint16_t)was)                                 \
      DONE(CALLBACK(qk_notempty, x));                                          \
    DONE(RET(OK, x));                                                          \
  }
QK_PUT_BROKEN(put_broken, 0)
QK_PUT_BROKEN(put_broken_t, 1)

/* ---- List ----------------------------------------------------------------- */

#define NEXT(node) ((volatile uint32_t *)(uintptr_t)(node))

uint64_t qk_list_insert(void) {
  uint32_t node = ARG(), h;
retry:
  h = *STATE;
  *NEXT(node) = h;
  CAS_OR(STATE, h, node, retry);
  DONE(RET(OK, node));
}

uint64_t qk_list_delete(void) {
retry:;
  uint32_t first = *STATE;
  if (first == 0)
    DONE(CALLBACK(qk_empty, 0));
  uint32_t second = *NEXT(first), zero = 0;
  CAS2_OR(STATE, NEXT(first), first, second, second, zero, retry);
  DONE(RET(OK, first));
}

/* Seeded bug (L2): a single CAS on head. */
uint64_t qk_list_delete_broken(void) {
retry:;
  uint32_t first = *STATE;
  if (first == 0)
    DONE(CALLBACK(qk_empty, 0));
  CAS_OR(STATE, first, *NEXT(first), retry);
  DONE(RET(OK, first));
}

/* ---- Callers' pieces for the folded forms (note F3) ------------------------ */

#ifdef QK_FOLDED
extern char qk_arg[]; /* qk_fold_inv: the call's argument */

/* The invariant, once per caller: the state's address into a2. */
void qk_fold_enter(void) {
  __asm__ volatile("lea qk_state,%a2\n\tjmp qk_next");
  __builtin_unreachable();
}

/* The end of a chain that a host call runs (m68k_qj_call_folded). */
void qk_fold_return(void) {}

/* The explorer's per-call logging (explore-cmd.c note 2): a3 the log, a4
 * the machine's CLOCK. Before a call: its invocation time, its argument
 * into d1. After it: the response time, the status and the value. */
void qk_fold_inv(void) {
  __asm__ volatile("move.l (%a4),(%a3)+\n\tmove.l #qk_arg,%d1\n\tjmp qk_next");
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
