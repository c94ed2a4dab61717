/* cpu-ops.c -- the instruction templates; m68kgen specialises them into handlers.
 *
 * Every template has the signature (c, op, sz, ea, ea2, k): sz is the operand
 * size in bytes, ea and ea2 the source and destination addressing modes
 * (EA_*), k a constant from the pattern table. The generated handlers pass
 * constants, so each handler is the template compiled for one case.
 *
 * Design notes (CAS and CAS2, after the M68000 Family Programmer's Reference Manual; then dispatch)
 *
 * 1. An instruction runs to completion before the other CPU of a machine runs
 *    (one host thread steps both), so CAS, CAS2 and TAS are indivisible by
 *    construction; nothing here locks.
 * 2. CAS: flags as CMP of (memory - Dc), X kept. Equal: Du is written to
 *    memory. Not equal: memory is loaded into Dc (byte and word change only
 *    the low byte or word) and memory is not written.
 * 3. CAS2: both operands are read first; (Rn1) is compared with Dc1, and only
 *    when equal (Rn2) with Dc2; the flags are those of the last comparison.
 *    Both equal: Du1 then Du2 are written. Otherwise Dc2 is loaded with
 *    operand 2 and then Dc1 with operand 1, so that when Dc1 and Dc2 are the
 *    same register it ends with memory operand 1 (the manual's rule, which
 *    QEMU 7.2, Musashi and Moira get wrong). Nothing is written on failure.
 * 4. Dispatch is threaded: m68k__exec() is one function holding every hot
 *    handler (inlined) behind a label, and each ends by fetching the next
 *    opcode and jumping through the label table (a computed goto), so each
 *    has its own indirect branch, which the host's branch predictor learns
 *    per handler. Cold handlers share one label that calls them through
 *    m68k__handlers[]. It runs the first instruction always and
 *    goes on while nothing is pending and the instruction count is below
 *    `end`. Exceptions leave it by longjmp (m68k-internal.h note 3); all its
 *    state is in the CPU, so nothing is lost.
 */
#include <string.h>

#include "m68k-internal.h"

enum { EA_D, EA_A, EA_AI, EA_PI, EA_PD, EA_DI, EA_IX, EA_AW, EA_AL, EA_PCD, EA_PCX, EA_IMM };
enum { ALU_OR, ALU_AND, ALU_SUB, ALU_ADD, ALU_EOR, ALU_CMP };

#define T(name)                                                                              \
  M68K_INLINE void t_##name(m68k_cpu_t *c, uint32_t op, int sz, int ea, int ea2, int k)

#define DREG(n) (c->r[(n)])
#define AREG(n) (c->r[8 + (n)])
#define RX ((op >> 9) & 7)
#define RY (op & 7)
#define IS000 (c->model == M68K_MODEL_68000)

#define MASK(sz) ((sz) == 1 ? 0xffu : (sz) == 2 ? 0xffffu : 0xffffffffu)
#define BITS(sz) ((sz) * 8)
#define NSH(sz) (32 - (sz) * 8)

static inline uint32_t sext(uint32_t v, int sz)
{
  return sz == 1 ? (uint32_t)(int32_t)(int8_t)v : sz == 2 ? (uint32_t)(int32_t)(int16_t)v : v;
}

#define rd m68k__rd
#define wr m68k__wr
#define fetch16 m68k__fetch16
#define fetch32 m68k__fetch32

/* Dn's low sz bytes. Stored whole: the host forwards no byte or word
 * store to the long load of the register that usually follows (an index,
 * a long operation), which would wait until the store commits. */
M68K_INLINE void set_dreg(m68k_cpu_t *c, int n, int sz, uint32_t v)
{
  uint32_t m = sz == 4 ? 0xffffffffu : sz == 2 ? 0xffffu : 0xffu;
  uint32_t r = (c->r[n] & ~m) | (v & m);
  __asm__("" : "+r"(r));
  c->r[n] = r;
}

M68K_INLINE void flags_nz(m68k_cpu_t *c, uint32_t r, int sz)
{
  c->n = r << NSH(sz);
  c->nz = r & MASK(sz);
}

M68K_INLINE void flags_logic(m68k_cpu_t *c, uint32_t r, int sz)
{
  flags_nz(c, r, sz);
  c->v = 0;
  c->c = 0;
}

/* ---- effective addresses ---- */

/* 68020 full extension word (base and outer displacement, memory indirect). */
static uint32_t ea_full(m68k_cpu_t *c, uint32_t base, uint32_t ext, uint32_t xn)
{
  if (ext & 0x80)
    base = 0;
  if (ext & 0x40)
    xn = 0;
  uint32_t bd = 0;
  switch ((ext >> 4) & 3) {
  case 2: bd = sext(fetch16(c), 2); break;
  case 3: bd = fetch32(c); break;
  default: break;
  }
  unsigned iis = ext & 7;
  if (iis == 0)
    return base + bd + xn;
  uint32_t od = 0;
  switch (iis & 3) {
  case 2: od = sext(fetch16(c), 2); break;
  case 3: od = fetch32(c); break;
  default: break;
  }
  if (iis & 4) /* post-indexed */
    return rd(c, base + bd, 4) + xn + od;
  return rd(c, base + bd + xn, 4) + od; /* pre-indexed */
}

M68K_INLINE uint32_t ea_index(m68k_cpu_t *c, uint32_t base)
{
  uint32_t ext = fetch16(c);
  uint32_t xn = c->r[(ext >> 12) & 15];
  if (!(ext & 0x800))
    xn = sext(xn, 2);
  if (IS000)
    return base + xn + sext(ext, 1);
  xn <<= (ext >> 9) & 3;
  if (!(ext & 0x100))
    return base + xn + sext(ext, 1);
  return ea_full(c, base, ext, xn);
}

/* Address of a memory operand; updates An for (An)+ and -(An). */
M68K_INLINE uint32_t ea_addr(m68k_cpu_t *c, int ea, int reg, int sz)
{
  uint32_t a;
  /* ae_*: see m68k-internal.h; measured on MAME's 68000. */
  c->ae_undo = 0;
  switch (ea) {
  case EA_AI: c->ae_adj = 0; return AREG(reg);
  case EA_PI:
    c->ae_adj = 0;
    a = AREG(reg);
    AREG(reg) = a + ((sz == 1 && reg == 7) ? 2 : (uint32_t)sz);
    if (sz == 4) {
      c->ae_undo = 9 + reg;
      c->ae_undo_val = a;
      c->ae_addr_adj = 0;
    }
    return a;
  case EA_PD:
    a = AREG(reg) - ((sz == 1 && reg == 7) ? 2 : (uint32_t)sz);
    AREG(reg) = a;
    c->ae_adj = sz == 4 ? 0 : 2;
    return a;
  case EA_DI: c->ae_adj = -2; return AREG(reg) + sext(fetch16(c), 2);
  case EA_IX: c->ae_adj = -2; return ea_index(c, AREG(reg));
  case EA_AW: c->ae_adj = 0; return sext(fetch16(c), 2);
  case EA_AL: c->ae_adj = 0; return fetch32(c);
  case EA_PCD: c->ae_adj = -2; c->ae_prog = true; a = c->pc; return a + sext(fetch16(c), 2);
  case EA_PCX: c->ae_adj = -2; c->ae_prog = true; a = c->pc; return ea_index(c, a);
  default: return 0;
  }
}

M68K_INLINE uint32_t ea_read(m68k_cpu_t *c, int ea, int reg, int sz)
{
  switch (ea) {
  case EA_D: return DREG(reg) & MASK(sz);
  case EA_A: return AREG(reg) & MASK(sz);
  case EA_IMM: return sz == 4 ? fetch32(c) : fetch16(c) & MASK(sz);
  default: return rd(c, ea_addr(c, ea, reg, sz), sz);
  }
}

M68K_INLINE void ea_write(m68k_cpu_t *c, int ea, int reg, int sz, uint32_t v)
{
  switch (ea) {
  case EA_D: set_dreg(c, reg, sz, v); break;
  case EA_A: AREG(reg) = v; break;
  default: wr(c, ea_addr(c, ea, reg, sz), sz, v); break;
  }
}

/* Run-time EA (for the FPU and other rare paths): mode and reg as encoded. */
uint32_t m68k__ea_addr_rt(m68k_cpu_t *c, unsigned mode, unsigned reg, int sz);
uint32_t m68k__ea_addr_rt(m68k_cpu_t *c, unsigned mode, unsigned reg, int sz)
{
  int ea = mode < 7 ? (int)mode : 7 + (int)reg;
  int r = (int)reg;
  switch (ea) {
  case EA_AI: return ea_addr(c, EA_AI, r, sz);
  case EA_PI: return ea_addr(c, EA_PI, r, sz);
  case EA_PD: return ea_addr(c, EA_PD, r, sz);
  case EA_DI: return ea_addr(c, EA_DI, r, sz);
  case EA_IX: return ea_addr(c, EA_IX, r, sz);
  case EA_AW: return ea_addr(c, EA_AW, r, sz);
  case EA_AL: return ea_addr(c, EA_AL, r, sz);
  case EA_PCD: return ea_addr(c, EA_PCD, r, sz);
  case EA_PCX: return ea_addr(c, EA_PCX, r, sz);
  default: m68k__illegal(c);
  }
}

/* ---- arithmetic ---- */

/* m68k-internal.h: shared with the translator's stencils. */
#define do_add m68k__add
#define do_sub m68k__sub

M68K_INLINE uint32_t alu(m68k_cpu_t *c, int kind, uint32_t d, uint32_t s, int sz)
{
  uint32_t r;
  switch (kind) {
  case ALU_OR: r = (d | s) & MASK(sz); flags_logic(c, r, sz); return r;
  case ALU_AND: r = (d & s) & MASK(sz); flags_logic(c, r, sz); return r;
  case ALU_EOR: r = (d ^ s) & MASK(sz); flags_logic(c, r, sz); return r;
  case ALU_ADD: return do_add(c, d, s, sz, 0, false);
  case ALU_SUB: return do_sub(c, d, s, sz, 0, false, false);
  default: return do_sub(c, d, s, sz, 0, false, true);
  }
}

M68K_INLINE bool cond(const m68k_cpu_t *c, int cc) { return m68k__cc(c, cc); }

bool m68k__cond(const m68k_cpu_t *c, int cc);
bool m68k__cond(const m68k_cpu_t *c, int cc)
{
  return cond(c, cc);
}

M68K_INLINE void push16(m68k_cpu_t *c, uint32_t v)
{
  AREG(7) -= 2;
  wr(c, AREG(7), 2, v);
}

M68K_INLINE void push32(m68k_cpu_t *c, uint32_t v)
{
  AREG(7) -= 4;
  wr(c, AREG(7), 4, v);
}

M68K_INLINE uint32_t pop16(m68k_cpu_t *c)
{
  uint32_t v = rd(c, AREG(7), 2);
  AREG(7) += 2;
  return v;
}

M68K_INLINE uint32_t pop32(m68k_cpu_t *c)
{
  uint32_t v = rd(c, AREG(7), 4);
  AREG(7) += 4;
  return v;
}

/* A 68000 jump to an odd address faults before the jump, stacking `pc`. */
M68K_INLINE void jump(m68k_cpu_t *c, uint32_t target, uint32_t pc)
{
  if (M68K_UNLIKELY(target & c->align_mask))
    m68k__jump_fault(c, target, pc);
  c->pc = target;
}

M68K_INLINE void need_super(m68k_cpu_t *c)
{
  if (M68K_UNLIKELY(!c->s))
    m68k__privilege(c);
}

/* ---- templates ---- */

/* Hot handlers (m68k-ops.tab's `hot` lines) are inlined into m68k__exec()
 * (design note 4), cold ones are called from it. Sanitizer builds use the
 * plain loop of M68K_THREADED 0 instead: instrumenting the threaded
 * interpreter takes gcc minutes. Both run the same handlers. */
#ifndef M68K_THREADED
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define M68K_THREADED 0
#else
#define M68K_THREADED 1
#endif
#endif
#if M68K_THREADED
#define M68K_HOT M68K_INLINE
#define M68K_HOT_ENTRY(h) h_illegal /* never called: it has a label */
#else
#define M68K_HOT static
#define M68K_HOT_ENTRY(h) h
#endif
#define M68K_COLD static M68K_NOINLINE

static void h_illegal(m68k_cpu_t *c, uint32_t op)
{
  (void)op;
  m68k__illegal(c);
}

T(linea) { m68k__line_a(c); }
T(linef) { m68k__line_f(c); }

T(immop)
{
  uint32_t s = sz == 4 ? fetch32(c) : fetch16(c) & MASK(sz);
  if (k == ALU_CMP) {
    uint32_t d = ea_read(c, ea, RY, sz);
    do_sub(c, d, s, sz, 0, false, true);
  } else if (ea == EA_D) {
    set_dreg(c, RY, sz, alu(c, k, DREG(RY), s, sz));
  } else {
    uint32_t a = ea_addr(c, ea, RY, sz);
    wr(c, a, sz, alu(c, k, rd(c, a, sz), s, sz));
  }
}

M68K_INLINE uint32_t logic_imm(int kind, uint32_t d, uint32_t s)
{
  return kind == ALU_OR ? d | s : kind == ALU_AND ? d & s : d ^ s;
}

T(immccr)
{
  uint32_t s = fetch16(c) & 0xff;
  m68k__set_ccr(c, logic_imm(k, m68k__get_sr(c), s) & 0x1f);
}

T(immsr)
{
  need_super(c);
  uint32_t s = fetch16(c);
  m68k__set_sr(c, logic_imm(k, m68k__get_sr(c), s));
}

M68K_INLINE void bitop(m68k_cpu_t *c, uint32_t op, int ea, int k, uint32_t bit)
{
  if (ea == EA_D) {
    uint32_t m = 1u << (bit & 31);
    uint32_t d = DREG(RY);
    c->nz = d & m;
    if (k == 1)
      DREG(RY) = d ^ m;
    else if (k == 2)
      DREG(RY) = d & ~m;
    else if (k == 3)
      DREG(RY) = d | m;
    return;
  }
  uint32_t m = 1u << (bit & 7);
  if (k == 0) {
    c->nz = ea_read(c, ea, RY, 1) & m;
    return;
  }
  uint32_t a = ea_addr(c, ea, RY, 1);
  uint32_t d = rd(c, a, 1);
  c->nz = d & m;
  wr(c, a, 1, k == 1 ? d ^ m : k == 2 ? d & ~m : d | m);
}

T(bitop_r) { bitop(c, op, ea, k, DREG(RX)); }
T(bitop_i)
{
  uint32_t bit = fetch16(c);
  bitop(c, op, ea, k, bit);
}

T(movep)
{
  uint32_t a = AREG(RY) + sext(fetch16(c), 2);
  int n = (k & 1) ? 4 : 2;
  if (k & 2) {
    uint32_t v = DREG(RX);
    for (int i = n - 1; i >= 0; i--, a += 2)
      wr(c, a, 1, (v >> (8 * i)) & 0xff);
  } else {
    uint32_t v = 0;
    for (int i = 0; i < n; i++, a += 2)
      v = (v << 8) | rd(c, a, 1);
    set_dreg(c, RX, n, v);
  }
}

/* A 68000 MOVE whose word or long write is to an odd address: the address
 * error as MAME's microcoded 68000 takes it (the SingleStepTests data).
 * The write is the first bus cycle after the operand is read, so what the
 * frame and the registers show depends on how far the microcode got:
 *
 * 1. (An)+ keeps An; -(An).l keeps An and faults on its low word (the long
 *    is written low word first), -(An).w has decremented An and has already
 *    prefetched the next instruction word, which the frame holds as IR.
 * 2. The stacked PC is 2 past the next word to fetch for (An), (An)+ and
 *    -(An), and 2 before it for (xxx).l from a memory source (the second
 *    address word is fetched after the operand, so it is still to come).
 * 3. The flags of a long move have been set only in part: from a register
 *    or immediate, none to (An) and (An)+, N and Z from the high word
 *    (Z kept if already clear) to (d16,An) and (d8,An,Xn); from memory,
 *    from the low word to (An), (An)+ and (xxx).l. Otherwise from the whole
 *    long. A word move has set them all. */
static M68K_NOINLINE _Noreturn void move_fault(m68k_cpu_t *c, int ea, int ea2, int rx, int sz,
                                               uint32_t a, uint32_t v)
{
  bool src_mem = ea != EA_D && ea != EA_A && ea != EA_IMM;
  bool to_ai = ea2 == EA_AI || ea2 == EA_PI;
  uint32_t addr = a;
  c->ae_prog = false;
  c->ae_undo = 0;
  c->ae_adj = (to_ai || ea2 == EA_PD) ? 2 : 0;
  if (ea2 == EA_PI) {
    AREG(rx) = a;
  } else if (ea2 == EA_PD) {
    if (sz == 4) {
      AREG(rx) = a + 4;
      addr = a + 2;
    } else {
      c->ir = rd(c, c->pc, 2);
    }
  } else if (ea2 == EA_AL && src_mem) {
    c->ae_adj = -2;
  }
  /* The flags are still those from before the instruction. */
  if (sz == 2) {
    flags_logic(c, v, 2);
  } else if (src_mem && (to_ai || ea2 == EA_AL)) {
    flags_logic(c, v & 0xffff, 2);
  } else if (!src_mem && (ea2 == EA_DI || ea2 == EA_IX)) {
    c->n = v & 0x80000000u;
    c->nz |= v >> 16;
  } else if (src_mem || !to_ai) {
    flags_logic(c, v, 4);
  }
  m68k__address_error(c, addr, true, false);
}

/* The flags are set after the destination's address is known, so that an
 * odd one finds them as they were (move_fault). */
T(move)
{
  uint32_t v = ea_read(c, ea, RY, sz);
  if (ea2 == EA_D) {
    flags_logic(c, v, sz);
    set_dreg(c, RX, sz, v);
    return;
  }
  uint32_t a = ea_addr(c, ea2, RX, sz);
  if (sz > 1 && M68K_UNLIKELY(a & c->align_mask))
    move_fault(c, ea, ea2, (int)RX, sz, a, v);
  flags_logic(c, v, sz);
  c->ae_prog = false; /* a bus error on the write is a data access */
  wr(c, a, sz, v);
}

T(movea)
{
  AREG(RX) = sext(ea_read(c, ea, RY, sz), sz);
}

M68K_INLINE uint32_t rmw_read(m68k_cpu_t *c, int ea, int reg, int sz, uint32_t *addr)
{
  if (ea == EA_D)
    return DREG(reg) & MASK(sz);
  *addr = ea_addr(c, ea, reg, sz);
  return rd(c, *addr, sz);
}

M68K_INLINE void rmw_write(m68k_cpu_t *c, int ea, int reg, int sz, uint32_t addr, uint32_t v)
{
  if (ea == EA_D)
    set_dreg(c, reg, sz, v);
  else
    wr(c, addr, sz, v);
}

T(negx)
{
  uint32_t a = 0, d = rmw_read(c, ea, RY, sz, &a);
  rmw_write(c, ea, RY, sz, a, do_sub(c, 0, d, sz, c->x, true, false));
}

T(neg)
{
  uint32_t a = 0, d = rmw_read(c, ea, RY, sz, &a);
  rmw_write(c, ea, RY, sz, a, do_sub(c, 0, d, sz, 0, false, false));
}

T(not)
{
  uint32_t a = 0, d = rmw_read(c, ea, RY, sz, &a);
  uint32_t r = ~d & MASK(sz);
  flags_logic(c, r, sz);
  rmw_write(c, ea, RY, sz, a, r);
}

T(clr)
{
  uint32_t a = 0;
  if (IS000)
    (void)rmw_read(c, ea, RY, sz, &a); /* the 68000 reads before it clears */
  else if (ea != EA_D)
    a = ea_addr(c, ea, RY, sz);
  flags_logic(c, 0, sz);
  rmw_write(c, ea, RY, sz, a, 0);
}

T(movefromsr)
{
  if (!IS000)
    need_super(c);
  uint32_t a = 0;
  if (IS000)
    (void)rmw_read(c, ea, RY, 2, &a); /* the 68000 reads before it writes */
  else if (ea != EA_D)
    a = ea_addr(c, ea, RY, 2);
  rmw_write(c, ea, RY, 2, a, m68k__get_sr(c));
}

T(movefromccr) { ea_write(c, ea, RY, 2, m68k__get_sr(c) & 0x1f); }

T(movetoccr) { m68k__set_ccr(c, ea_read(c, ea, RY, 2) & 0x1f); }

T(movetosr)
{
  need_super(c);
  m68k__set_sr(c, ea_read(c, ea, RY, 2));
}

T(chk)
{
  uint32_t bound = ea_read(c, ea, RY, sz);
  int32_t d = (int32_t)sext(DREG(RX), sz);
  int32_t b = (int32_t)sext(bound, sz);
  c->nz = DREG(RX) & MASK(sz);
  c->n = 0; /* in bounds: N clear (the 68000's; undefined on the 68030) */
  c->v = 0;
  c->c = 0;
  if (d < 0 || d > b) {
    c->n = d < 0 ? 0x80000000u : 0;
    m68k__exception_abort(c, M68K_VEC_CHK, c->pc, 2, c->ppc);
  }
}

T(lea) { AREG(RX) = ea_addr(c, ea, RY, 4); }

T(pea)
{
  uint32_t a = ea_addr(c, ea, RY, 4);
  push32(c, a);
}

/* Packed BCD (flag rules of the 68000 as measured: V is the "corrected"
 * bit 7 carry, N from bit 7, Z only cleared). ABCD decides the high digit's
 * correction on the sum after the low digit's: above 0x9f (not 0x99), so
 * non-BCD operands such as 0x4a + 0x4a + 1 give 0x9b with no carry. */
M68K_INLINE uint32_t bcd_add(m68k_cpu_t *c, uint32_t d, uint32_t s)
{
  uint32_t x = c->x;
  uint32_t bin = d + s + x;
  uint32_t r = bin;
  if (((d & 0xf) + (s & 0xf) + x) > 9)
    r += 6;
  if (r > 0x9f) {
    r += 0x60;
    c->c = c->x = 1;
  } else {
    c->c = c->x = 0;
  }
  c->v = ((~bin & r) >> 7) & 1;
  r &= 0xff;
  c->n = r << 24;
  c->nz |= r;
  return r;
}

M68K_INLINE uint32_t bcd_sub(m68k_cpu_t *c, uint32_t d, uint32_t s)
{
  uint32_t x = c->x;
  uint32_t bin = (d - s - x) & 0x1ff;
  uint32_t r = bin;
  bool lo_borrow = (int)(d & 0xf) - (int)(s & 0xf) - (int)x < 0;
  if (lo_borrow)
    r -= 6;
  if ((int)d - (int)s - (int)x < 0) {
    r -= 0x60;
    c->c = c->x = 1;
  } else {
    c->c = c->x = 0;
  }
  r &= 0x1ff;
  if (lo_borrow && !c->c && (bin & 0xff) < 6)
    c->c = c->x = 1;
  c->v = ((bin & ~r) >> 7) & 1;
  r &= 0xff;
  c->n = r << 24;
  c->nz |= r;
  return r;
}

T(nbcd)
{
  uint32_t a = 0, d = rmw_read(c, ea, RY, 1, &a);
  rmw_write(c, ea, RY, 1, a, bcd_sub(c, 0, d));
}

T(abcd)
{
  if (k) {
    uint32_t s = rd(c, ea_addr(c, EA_PD, RY, 1), 1);
    uint32_t a = ea_addr(c, EA_PD, RX, 1);
    uint32_t d = rd(c, a, 1);
    wr(c, a, 1, bcd_add(c, d, s));
  } else {
    set_dreg(c, RX, 1, bcd_add(c, DREG(RX) & 0xff, DREG(RY) & 0xff));
  }
}

T(sbcd)
{
  if (k) {
    uint32_t s = rd(c, ea_addr(c, EA_PD, RY, 1), 1);
    uint32_t a = ea_addr(c, EA_PD, RX, 1);
    uint32_t d = rd(c, a, 1);
    wr(c, a, 1, bcd_sub(c, d, s));
  } else {
    set_dreg(c, RX, 1, bcd_sub(c, DREG(RX) & 0xff, DREG(RY) & 0xff));
  }
}

T(pack)
{
  uint32_t adj = fetch16(c);
  uint32_t src;
  if (k) {
    uint32_t lo = rd(c, ea_addr(c, EA_PD, RY, 1), 1);
    uint32_t hi = rd(c, ea_addr(c, EA_PD, RY, 1), 1);
    src = ((hi << 8) | lo) + adj;
    wr(c, ea_addr(c, EA_PD, RX, 1), 1, ((src >> 4) & 0xf0) | (src & 0x0f));
  } else {
    src = DREG(RY) + adj;
    set_dreg(c, RX, 1, ((src >> 4) & 0xf0) | (src & 0x0f));
  }
}

T(unpk)
{
  uint32_t adj = fetch16(c);
  if (k) {
    uint32_t s = rd(c, ea_addr(c, EA_PD, RY, 1), 1);
    uint32_t r = (((s << 4) & 0x0f00) | (s & 0x0f)) + adj;
    wr(c, ea_addr(c, EA_PD, RX, 1), 1, r & 0xff);
    wr(c, ea_addr(c, EA_PD, RX, 1), 1, (r >> 8) & 0xff);
  } else {
    uint32_t s = DREG(RY) & 0xff;
    uint32_t r = (((s << 4) & 0x0f00) | (s & 0x0f)) + adj;
    set_dreg(c, RX, 2, r);
  }
}

T(linkl)
{
  uint32_t disp = fetch32(c);
  push32(c, AREG(RY));
  AREG(RY) = AREG(7);
  AREG(7) += disp;
}

T(link)
{
  uint32_t disp = sext(fetch16(c), 2);
  push32(c, AREG(RY));
  AREG(RY) = AREG(7);
  AREG(7) += disp;
}

T(unlk)
{
  c->ae_adj = 2;
  uint32_t v = rd(c, AREG(RY), 4);
  AREG(7) = AREG(RY) + 4;
  AREG(RY) = v;
}

T(swap)
{
  uint32_t v = (DREG(RY) << 16) | (DREG(RY) >> 16);
  DREG(RY) = v;
  flags_logic(c, v, 4);
}

T(ext)
{
  uint32_t v = DREG(RY);
  if (k == 0) {
    v = sext(v, 1) & 0xffff;
    set_dreg(c, RY, 2, v);
    flags_logic(c, v, 2);
  } else {
    v = k == 1 ? sext(v, 2) : sext(v, 1);
    DREG(RY) = v;
    flags_logic(c, v, 4);
  }
}

T(movem_rm)
{
  uint32_t mask = fetch16(c);
  c->ae_adj = 2;
  if (ea == EA_PD) {
    uint32_t a = AREG(RY);
    uint32_t orig = a;
    /* A 68000 writes each long low word first: an odd -(An) faults on the
     * first register's low word, at An - 2. */
    if (sz == 4 && mask && M68K_UNLIKELY(a & c->align_mask))
      m68k__address_error(c, a - 2, true, false);
    for (int i = 0; i < 16; i++) {
      if (!(mask & (1u << i)))
        continue;
      int r = 15 - i;
      a -= (uint32_t)sz;
      uint32_t v = c->r[r];
      if (r == 8 + (int)RY)
        v = IS000 ? orig : orig - (uint32_t)sz;
      wr(c, a, sz, v);
    }
    AREG(RY) = a;
    return;
  }
  uint32_t a = ea_addr(c, ea, RY, sz);
  c->ae_adj = 2;
  for (int r = 0; r < 16; r++) {
    if (!(mask & (1u << r)))
      continue;
    wr(c, a, sz, c->r[r]);
    a += (uint32_t)sz;
  }
}

T(movem_mr)
{
  uint32_t mask = fetch16(c);
  uint32_t a = ea == EA_PI ? AREG(RY) : ea_addr(c, ea, RY, sz);
  c->ae_adj = 2;
  for (int r = 0; r < 16; r++) {
    if (!(mask & (1u << r)))
      continue;
    c->r[r] = sext(rd(c, a, sz), sz);
    a += (uint32_t)sz;
  }
  if (ea == EA_PI)
    AREG(RY) = a;
}

T(tst) { flags_logic(c, ea_read(c, ea, RY, sz), sz); }

T(tas)
{
  uint32_t a = 0, d = rmw_read(c, ea, RY, 1, &a);
  flags_logic(c, d, 1);
  rmw_write(c, ea, RY, 1, a, d | 0x80);
}

T(mull)
{
  uint32_t ext = fetch16(c);
  uint32_t src = ea_read(c, ea, RY, 4);
  int dl = (ext >> 12) & 7, dh = ext & 7;
  uint32_t d = DREG(dl);
  uint64_t r;
  bool ovf;
  if (ext & 0x800) {
    int64_t sr = (int64_t)(int32_t)d * (int32_t)src;
    r = (uint64_t)sr;
    ovf = sr != (int64_t)(int32_t)(uint32_t)r;
  } else {
    r = (uint64_t)d * src;
    ovf = (r >> 32) != 0;
  }
  c->c = 0;
  if (ext & 0x400) {
    DREG(dh) = (uint32_t)(r >> 32);
    DREG(dl) = (uint32_t)r;
    c->n = (uint32_t)(r >> 32);
    c->nz = (r != 0);
    c->v = 0;
  } else {
    DREG(dl) = (uint32_t)r;
    flags_nz(c, (uint32_t)r, 4);
    c->v = ovf;
  }
}

T(divl)
{
  uint32_t ext = fetch16(c);
  uint32_t div = ea_read(c, ea, RY, 4);
  int dq = (ext >> 12) & 7, dr = ext & 7;
  if (div == 0) {
    c->c = 0;
    m68k__exception_abort(c, M68K_VEC_ZERO_DIVIDE, c->pc, 2, c->ppc);
  }
  c->c = 0;
  if (ext & 0x800) {
    int64_t n = (ext & 0x400) ? (int64_t)(((uint64_t)DREG(dr) << 32) | DREG(dq))
                              : (int64_t)(int32_t)DREG(dq);
    int64_t dv = (int32_t)div;
    if (n == INT64_MIN && dv == -1) {
      c->v = 1;
      return;
    }
    int64_t q = n / dv, r = n % dv;
    if (q < INT32_MIN || q > INT32_MAX) {
      c->v = 1;
      return;
    }
    if (dr != dq)
      DREG(dr) = (uint32_t)r;
    DREG(dq) = (uint32_t)q;
    flags_nz(c, (uint32_t)q, 4);
    c->v = 0;
  } else {
    uint64_t n = (ext & 0x400) ? (((uint64_t)DREG(dr) << 32) | DREG(dq)) : DREG(dq);
    uint64_t q = n / div, r = n % div;
    if (q > 0xffffffffu) {
      c->v = 1;
      return;
    }
    if (dr != dq)
      DREG(dr) = (uint32_t)r;
    DREG(dq) = (uint32_t)q;
    flags_nz(c, (uint32_t)q, 4);
    c->v = 0;
  }
}

T(trap)
{
  m68k__exception(c, M68K_VEC_TRAP0 + k, c->pc, 0, 0);
}

T(moveusp)
{
  need_super(c);
  if (k)
    AREG(RY) = c->usp;
  else
    c->usp = AREG(RY);
}

T(reset)
{
  need_super(c);
  if (c->bus.reset)
    c->bus.reset(c->bus.ctx);
}

T(nop) {}

T(stop)
{
  need_super(c);
  uint32_t sr = fetch16(c);
  m68k__set_sr(c, sr);
  c->stopped = true;
  c->pending = true;
}

T(rte)
{
  need_super(c);
  uint32_t sp = AREG(7);
  uint32_t sr = rd(c, sp, 2);
  uint32_t pc = rd(c, sp + 2, 4);
  uint32_t size = 6;
  if (!IS000) {
    uint32_t fmt = rd(c, sp + 6, 2) >> 12;
    switch (fmt) {
    case 0: size = 8; break;
    case 1: size = 8; break;
    case 2: size = 12; break;
    case 0xa: size = 32; break;
    case 0xb: size = 92; break;
    default:
      c->pc = c->ppc + 2;
      m68k__exception_abort(c, M68K_VEC_FORMAT, c->ppc, 0, 0);
    }
  }
  AREG(7) = sp + size;
  m68k__set_sr(c, sr);
  jump(c, pc, c->ppc + 2);
}

T(rtd)
{
  uint32_t disp = sext(fetch16(c), 2);
  uint32_t pc = pop32(c);
  AREG(7) += disp;
  c->pc = pc;
}

T(rts) { jump(c, pop32(c), c->ppc + 2); }

T(trapv)
{
  if (c->v)
    m68k__exception(c, M68K_VEC_TRAPV, c->pc, 2, c->ppc);
}

T(rtr)
{
  uint32_t ccr = pop16(c);
  uint32_t pc = pop32(c);
  m68k__set_ccr(c, ccr & 0x1f);
  jump(c, pc, c->ppc + 2);
}

T(movec)
{
  need_super(c);
  uint32_t ext = fetch16(c);
  uint32_t *rn = &c->r[(ext >> 12) & 15];
  uint32_t *cr;
  uint32_t tmp;
  switch (ext & 0xfff) {
  case 0x000: cr = &c->sfc; break;
  case 0x001: cr = &c->dfc; break;
  case 0x002: cr = &c->cacr; break;
  case 0x801: cr = &c->vbr; break;
  case 0x802: cr = &c->caar; break;
  case 0x800: cr = &c->usp; break;
  case 0x803:
  case 0x804:
    /* MSP/ISP: the live one is in A7. */
    if ((ext & 0xfff) == 0x803)
      tmp = c->m ? AREG(7) : c->msp;
    else
      tmp = c->m ? c->isp : AREG(7);
    if (k) {
      if ((ext & 0xfff) == 0x803) {
        if (c->m)
          AREG(7) = *rn;
        else
          c->msp = *rn;
      } else {
        if (c->m)
          c->isp = *rn;
        else
          AREG(7) = *rn;
      }
    } else {
      *rn = tmp;
    }
    return;
  default: m68k__illegal(c);
  }
  if (k) {
    uint32_t v = *rn;
    if (cr == &c->sfc || cr == &c->dfc)
      v &= 7;
    if (cr == &c->cacr)
      v &= 0x3f13; /* 68030 CACR bits */
    *cr = v;
  } else {
    *rn = *cr;
  }
}

T(jsr)
{
  uint32_t a = ea_addr(c, ea, RY, 4);
  if (M68K_UNLIKELY(a & c->align_mask))
    m68k__jump_fault(c, a, c->pc);
  push32(c, c->pc);
  c->pc = a;
}

T(jmp) { jump(c, ea_addr(c, ea, RY, 4), c->ppc + 2); }

T(addq)
{
  uint32_t s = (op >> 9) & 7;
  if (s == 0)
    s = 8;
  if (ea == EA_A) {
    AREG(RY) = k ? AREG(RY) - s : AREG(RY) + s;
    return;
  }
  uint32_t a = 0, d = rmw_read(c, ea, RY, sz, &a);
  uint32_t r = k ? do_sub(c, d, s, sz, 0, false, false) : do_add(c, d, s, sz, 0, false);
  rmw_write(c, ea, RY, sz, a, r);
}

T(scc)
{
  uint32_t v = cond(c, k) ? 0xff : 0;
  if (ea == EA_D) {
    set_dreg(c, RY, 1, v);
    return;
  }
  uint32_t a = ea_addr(c, ea, RY, 1);
  if (IS000)
    (void)rd(c, a, 1); /* the 68000 reads before it writes */
  wr(c, a, 1, v);
}

T(dbcc)
{
  uint32_t base = c->pc;
  uint32_t disp = sext(fetch16(c), 2);
  if (cond(c, k))
    return;
  uint32_t cnt = (DREG(RY) - 1) & 0xffff;
  if (cnt != 0xffff)
    jump(c, base + disp, c->ppc + 4);
  set_dreg(c, RY, 2, cnt);
}

T(trapcc)
{
  if (sz == 2)
    (void)fetch16(c);
  else if (sz == 4)
    (void)fetch32(c);
  if (cond(c, k))
    m68k__exception(c, M68K_VEC_TRAPV, c->pc, 2, c->ppc);
}

M68K_INLINE uint32_t branch_target(m68k_cpu_t *c, uint32_t op)
{
  uint32_t base = c->pc;
  uint32_t d8 = op & 0xff;
  if (d8 == 0)
    return base + sext(fetch16(c), 2);
  if (d8 == 0xff && !IS000)
    return base + fetch32(c);
  return base + sext(d8, 1);
}

M68K_INLINE void skip_branch(m68k_cpu_t *c, uint32_t op)
{
  uint32_t d8 = op & 0xff;
  if (d8 == 0)
    c->pc += 2;
  else if (d8 == 0xff && !IS000)
    c->pc += 4;
}

T(bra) { jump(c, branch_target(c, op), c->ppc + 2); }

T(bsr)
{
  uint32_t t = branch_target(c, op);
  push32(c, c->pc);
  jump(c, t, t);
}

T(bcc)
{
  if (cond(c, k))
    jump(c, branch_target(c, op), c->ppc + 2);
  else
    skip_branch(c, op);
}

T(moveq)
{
  uint32_t v = sext(op & 0xff, 1);
  DREG(RX) = v;
  flags_logic(c, v, 4);
}

T(alu_er)
{
  uint32_t s = ea_read(c, ea, RY, sz);
  if (k == ALU_CMP)
    do_sub(c, DREG(RX), s, sz, 0, false, true);
  else
    set_dreg(c, RX, sz, alu(c, k, DREG(RX), s, sz));
}

T(alu_re)
{
  uint32_t a = 0, d = rmw_read(c, ea, RY, sz, &a);
  rmw_write(c, ea, RY, sz, a, alu(c, k, d, DREG(RX), sz));
}

/* k: 0 ADDA, 1 SUBA, 2 CMPA. */
T(adda)
{
  uint32_t s = sext(ea_read(c, ea, RY, sz), sz);
  if (k == 0)
    AREG(RX) += s;
  else if (k == 1)
    AREG(RX) -= s;
  else
    do_sub(c, AREG(RX), s, 4, 0, false, true);
}

/* ADDX/SUBX -(Ay),-(Ax): reads the operand at -(An) into the result and
 * its address into *addr. A 68000 address error there reports the address
 * 2 higher (adj) and, for a long, leaves An as it was (undo). */
M68K_INLINE uint32_t x_pd_read(m68k_cpu_t *c, int reg, int sz, uint32_t *addr)
{
  uint32_t a = ea_addr(c, EA_PD, reg, sz);
  c->ae_adj = 2;
  if (sz == 4) {
    c->ae_undo = 9 + reg;
    c->ae_undo_val = a + 4;
    c->ae_addr_adj = 2;
  }
  *addr = a;
  return rd(c, a, sz);
}

T(addx)
{
  if (k) {
    uint32_t a, s = x_pd_read(c, (int)RY, sz, &a);
    uint32_t d = x_pd_read(c, (int)RX, sz, &a);
    wr(c, a, sz, do_add(c, d, s, sz, c->x, true));
  } else {
    set_dreg(c, RX, sz, do_add(c, DREG(RX), DREG(RY), sz, c->x, true));
  }
}

T(subx)
{
  if (k) {
    uint32_t a, s = x_pd_read(c, (int)RY, sz, &a);
    uint32_t d = x_pd_read(c, (int)RX, sz, &a);
    wr(c, a, sz, do_sub(c, d, s, sz, c->x, true, false));
  } else {
    set_dreg(c, RX, sz, do_sub(c, DREG(RX), DREG(RY), sz, c->x, true, false));
  }
}

/* A 68000 address error on CMPM's source leaves Ay advanced by 2 (the
 * microcode has stepped it past the first word of a long); one on the
 * destination leaves Ax as it was, for both sizes. */
T(cmpm)
{
  uint32_t sa = ea_addr(c, EA_PI, RY, sz);
  c->ae_adj = 2;
  if (sz == 4)
    c->ae_undo_val = sa + 2; /* ea_addr set ae_undo for Ay */
  uint32_t s = rd(c, sa, sz);
  uint32_t da = ea_addr(c, EA_PI, RX, sz);
  c->ae_adj = 2;
  if (sz == 2) {
    c->ae_undo = 9 + (int)RX;
    c->ae_undo_val = da;
    c->ae_addr_adj = 0;
  }
  uint32_t d = rd(c, da, sz);
  do_sub(c, d, s, sz, 0, false, true);
}

T(divu)
{
  uint32_t s = ea_read(c, ea, RY, 2);
  uint32_t d = DREG(RX);
  if (s == 0) {
    c->c = 0;
    m68k__exception_abort(c, M68K_VEC_ZERO_DIVIDE, c->pc, 2, c->ppc);
  }
  uint32_t q = d / s, r = d % s;
  c->c = 0;
  if (q > 0xffff) {
    c->v = 1;
    c->n = 0x80000000u;
    c->nz = 1;
    return;
  }
  DREG(RX) = (r << 16) | q;
  flags_nz(c, q, 2);
  c->v = 0;
}

T(divs)
{
  int32_t s = (int16_t)ea_read(c, ea, RY, 2);
  int32_t d = (int32_t)DREG(RX);
  if (s == 0) {
    c->c = 0;
    m68k__exception_abort(c, M68K_VEC_ZERO_DIVIDE, c->pc, 2, c->ppc);
  }
  c->c = 0;
  if (d == INT32_MIN && s == -1) {
    c->v = 1;
    c->n = 0x80000000u;
    c->nz = 1;
    return;
  }
  int32_t q = d / s, r = d % s;
  if (q < -32768 || q > 32767) {
    c->v = 1;
    c->n = 0x80000000u;
    c->nz = 1;
    return;
  }
  DREG(RX) = ((uint32_t)r << 16) | ((uint32_t)q & 0xffff);
  flags_nz(c, (uint32_t)q, 2);
  c->v = 0;
}

T(mulu)
{
  uint32_t r = (ea_read(c, ea, RY, 2) & 0xffff) * (DREG(RX) & 0xffff);
  DREG(RX) = r;
  flags_logic(c, r, 4);
}

T(muls)
{
  uint32_t r = (uint32_t)((int32_t)(int16_t)ea_read(c, ea, RY, 2) * (int32_t)(int16_t)DREG(RX));
  DREG(RX) = r;
  flags_logic(c, r, 4);
}

T(exg)
{
  int a = k == 1 ? 8 + (int)RX : (int)RX;
  int b = k == 0 ? (int)RY : 8 + (int)RY;
  uint32_t t = c->r[a];
  c->r[a] = c->r[b];
  c->r[b] = t;
}

/* Shifts and rotates. type: 0 AS, 1 LS, 2 ROX, 3 RO; left when dir. */
M68K_INLINE uint32_t shift(m68k_cpu_t *c, int type, int left, uint32_t val, unsigned cnt, int sz)
{
  const unsigned bits = BITS(sz);
  const uint32_t m = MASK(sz);
  uint32_t r = val & m;
  val &= m;
  c->v = 0;
  if (cnt == 0) {
    c->c = type == 2 ? c->x : 0;
    flags_nz(c, r, sz);
    return r;
  }
  switch (type) {
  case 0:
  case 1:
    if (left) {
      if (cnt <= bits) {
        r = (uint32_t)(((uint64_t)val << cnt) & m);
        c->c = (val >> (bits - cnt)) & 1;
      } else {
        r = 0;
        c->c = 0;
      }
      if (type == 0) {
        if (cnt >= bits) {
          c->v = val != 0;
        } else {
          uint32_t top = (uint32_t)((((uint64_t)1 << (cnt + 1)) - 1) << (bits - 1 - cnt)) & m;
          c->v = (val & top) != 0 && (val & top) != top;
        }
      }
    } else if (type == 1) {
      if (cnt <= bits) {
        r = (uint32_t)((uint64_t)val >> cnt);
        c->c = (val >> (cnt - 1)) & 1;
      } else {
        r = 0;
        c->c = 0;
      }
    } else {
      int64_t sv = (int64_t)(int32_t)sext(val, sz);
      if (cnt >= bits) {
        r = sv < 0 ? m : 0;
        c->c = sv < 0;
      } else {
        r = (uint32_t)(sv >> cnt) & m;
        c->c = (uint32_t)(sv >> (cnt - 1)) & 1;
      }
    }
    c->x = c->c;
    break;
  case 3: {
    unsigned n = cnt % bits;
    if (left)
      r = n ? (uint32_t)((((uint64_t)val << n) | (val >> (bits - n))) & m) : val;
    else
      r = n ? (uint32_t)((((uint64_t)val >> n) | ((uint64_t)val << (bits - n))) & m) : val;
    c->c = left ? r & 1 : (r >> (bits - 1)) & 1;
    break;
  }
  default: {
    unsigned n = cnt % (bits + 1);
    if (!left)
      n = (bits + 1 - n) % (bits + 1);
    uint64_t v = ((uint64_t)c->x << bits) | val;
    uint64_t m1 = ((uint64_t)1 << (bits + 1)) - 1;
    if (n)
      v = ((v << n) | (v >> (bits + 1 - n))) & m1;
    c->x = c->c = (uint32_t)(v >> bits) & 1;
    r = (uint32_t)v & m;
    break;
  }
  }
  flags_nz(c, r, sz);
  return r;
}

/* k = dir << 2 | type. */
T(shift_reg)
{
  unsigned cnt = (op & 0x20) ? DREG(RX) & 63 : (RX ? RX : 8);
  set_dreg(c, RY, sz, shift(c, k & 3, k >> 2, DREG(RY), cnt, sz));
}

/* k = type << 1 | dir. */
T(shift_mem)
{
  uint32_t a = ea_addr(c, ea, RY, 2);
  uint32_t d = rd(c, a, 2);
  wr(c, a, 2, shift(c, k >> 1, k & 1, d, 1, 2));
}

/* Bit fields. k: 0 TST 1 EXTU 2 CHG 3 EXTS 4 CLR 5 FFO 6 SET 7 INS. */
T(bf)
{
  uint32_t ext = fetch16(c);
  int32_t off = (ext & 0x800) ? (int32_t)DREG((ext >> 6) & 7) : (int32_t)((ext >> 6) & 31);
  unsigned width = (ext & 0x20) ? DREG(ext & 7) & 31 : ext & 31;
  if (width == 0)
    width = 32;
  int dn = (ext >> 12) & 7;
  uint32_t field;
  uint32_t ins = 0;
  if (k == 7) {
    ins = width == 32 ? DREG(dn) : DREG(dn) & ((1u << width) - 1);
  }
  if (ea == EA_D) {
    unsigned o = (unsigned)off & 31;
    uint32_t d = DREG(RY);
    uint64_t d2 = ((uint64_t)d << 32) | d;
    field = (uint32_t)((d2 << o) >> 32) >> (32 - width);
    uint32_t fm = (width == 32 ? 0xffffffffu : ((1u << width) - 1) << (32 - width));
    uint32_t mask = o ? (fm >> o) | (fm << (32 - o)) : fm;
    uint32_t nv = ins << (32 - width);
    uint32_t nvr = o ? (nv >> o) | (nv << (32 - o)) : nv;
    switch (k) {
    case 2: DREG(RY) = d ^ mask; break;
    case 4: DREG(RY) = d & ~mask; break;
    case 6: DREG(RY) = d | mask; break;
    case 7: DREG(RY) = (d & ~mask) | nvr; break;
    default: break;
    }
  } else {
    uint32_t a = ea_addr(c, ea, RY, 1) + (uint32_t)(off >> 3);
    unsigned bo = (unsigned)off & 7;
    unsigned nbytes = (bo + width + 7) / 8;
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes; i++)
      v |= (uint64_t)rd(c, a + i, 1) << (56 - 8 * i);
    field = (uint32_t)((v << bo) >> (64 - width));
    uint64_t fm = ((width == 32 ? 0xffffffffull : ((1ull << width) - 1)) << (64 - width)) >> bo;
    uint64_t nv;
    switch (k) {
    case 2: nv = v ^ fm; break;
    case 4: nv = v & ~fm; break;
    case 6: nv = v | fm; break;
    case 7: nv = (v & ~fm) | (((uint64_t)ins << (64 - width)) >> bo); break;
    default: nv = v; break;
    }
    if (nv != v || k == 2 || k == 4 || k == 6 || k == 7)
      for (unsigned i = 0; i < nbytes; i++)
        wr(c, a + i, 1, (uint32_t)(nv >> (56 - 8 * i)) & 0xff);
  }
  uint32_t flagv = k == 7 ? ins : field;
  c->n = flagv << (32 - width);
  c->nz = flagv;
  c->v = 0;
  c->c = 0;
  switch (k) {
  case 1: DREG(dn) = field; break;
  case 3: DREG(dn) = width == 32 ? field : (uint32_t)((int32_t)(field << (32 - width)) >> (32 - width)); break;
  case 5: {
    unsigned lz = 0;
    while (lz < width && !(field & (1u << (width - 1 - lz))))
      lz++;
    DREG(dn) = (uint32_t)off + lz;
    break;
  }
  default: break;
  }
}

/* CAS (design note 2). */
T(cas)
{
  c->ncas++;
  uint32_t ext = fetch16(c);
  int dc = ext & 7, du = (ext >> 6) & 7;
  uint32_t a = ea_addr(c, ea, RY, sz);
  uint32_t m = rd(c, a, sz);
  do_sub(c, m, DREG(dc), sz, 0, false, true);
  if (c->nz == 0)
    wr(c, a, sz, DREG(du));
  else
    set_dreg(c, dc, sz, m);
}

/* CAS2 (design note 3). */
T(cas2)
{
  c->ncas2++;
  uint32_t e1 = fetch16(c), e2 = fetch16(c);
  uint32_t a1 = c->r[(e1 >> 12) & 15], a2 = c->r[(e2 >> 12) & 15];
  int dc1 = e1 & 7, dc2 = e2 & 7, du1 = (e1 >> 6) & 7, du2 = (e2 >> 6) & 7;
  uint32_t m1 = rd(c, a1, sz);
  uint32_t m2 = rd(c, a2, sz);
  do_sub(c, m1, DREG(dc1), sz, 0, false, true);
  if (c->nz == 0) {
    do_sub(c, m2, DREG(dc2), sz, 0, false, true);
    if (c->nz == 0) {
      wr(c, a1, sz, DREG(du1));
      wr(c, a2, sz, DREG(du2));
      return;
    }
  }
  set_dreg(c, dc2, sz, m2);
  set_dreg(c, dc1, sz, m1);
}

T(chk2)
{
  uint32_t ext = fetch16(c);
  uint32_t a = ea_addr(c, ea, RY, sz);
  uint32_t lo = rd(c, a, sz), hi = rd(c, a + (uint32_t)sz, sz);
  int rn = (ext >> 12) & 15;
  uint32_t v = c->r[rn];
  bool out;
  if (rn >= 8) {
    lo = sext(lo, sz);
    hi = sext(hi, sz);
    sz = 4;
  } else {
    v &= MASK(sz);
  }
  if (lo <= hi)
    out = v < lo || v > hi;
  else
    out = (int32_t)sext(v, sz) < (int32_t)sext(lo, sz) ||
          (int32_t)sext(v, sz) > (int32_t)sext(hi, sz);
  c->nz = !(v == lo || v == hi);
  c->c = out;
  if (out && (ext & 0x800))
    m68k__exception_abort(c, M68K_VEC_CHK, c->pc, 2, c->ppc);
}

T(moves)
{
  need_super(c);
  uint32_t ext = fetch16(c);
  int rn = (ext >> 12) & 15;
  uint32_t a = ea_addr(c, ea, RY, sz);
  if (ext & 0x800) {
    wr(c, a, sz, c->r[rn]);
  } else {
    uint32_t v = rd(c, a, sz);
    if (rn >= 8)
      c->r[rn] = sext(v, sz);
    else
      set_dreg(c, rn, sz, v);
  }
}

T(fgen) { m68k__fpu_general(c, op); }
T(fscc) { m68k__fpu_scc(c, op); }
T(fbcc) { m68k__fpu_bcc(c, op); }
T(fsave) { m68k__fpu_save(c, op); }
T(frestore) { m68k__fpu_restore(c, op); }

#include "m68k-ops-gen.inc"

/* The threaded interpreter (design note 4). */
void m68k__exec(m68k_cpu_t *c, uint64_t end)
{
  const uint16_t *const optab = c->optab;
  uint32_t op, idx;
#if M68K_THREADED
#define M68K_JUMP() goto *m68k__labels[idx]
#else
#define M68K_JUMP() goto Lcold
#endif
  /* The 68000's address-error bookkeeping is reset for every instruction;
   * the 68030 never reads it. */
#define M68K_DISPATCH()                                                                      \
  do {                                                                                       \
    c->icount++;                                                                             \
    c->ae_adj = 0;                                                                           \
    c->ae_prog = false;                                                                      \
    c->ae_undo = 0;                                                                          \
    c->ppc = c->pc;                                                                          \
    op = fetch16(c);                                                                         \
    c->ir = op;                                                                              \
    idx = optab[op];                                                                         \
    M68K_JUMP();                                                                             \
  } while (0)
#define M68K_NEXT()                                                                          \
  do {                                                                                       \
    if (M68K_UNLIKELY(c->pending || c->icount >= end))                                      \
      return;                                                                                \
    M68K_DISPATCH();                                                                         \
  } while (0)
#if M68K_THREADED
#define M68K_GEN_EXEC
#include "m68k-ops-gen.inc"
#undef M68K_GEN_EXEC
#else
  M68K_DISPATCH();
  for (;;) {
  Lcold:
    m68k__handlers[idx](c, op);
    M68K_NEXT();
  }
#endif
#undef M68K_NEXT
#undef M68K_DISPATCH
#undef M68K_JUMP
}
