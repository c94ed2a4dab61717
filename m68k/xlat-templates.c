/* xlat-templates.c -- the translator's stencils: one 68k instruction each, with holes.
 *
 * Compiled for the host and turned into stencils (prefix xl) by stencilgen;
 * xlat.c chains them into a translated block (its notes). Every stencil is
 * a function of the CPU that runs one instruction exactly as the
 * interpreter's dispatch and handler do (cpu-ops.c m68k__exec), then either
 * returns to xlat.c's loop or tail-calls the next stencil (xh_next, which a
 * chain turns into a fall-through). The holes:
 *
 *   xh_pc      the instruction's address          xh_op      its first word
 *   xh_npc     the address of the next one        xh_target  a branch target
 *   xh_reg     a register (offsetof r[0-15])      xh_src     a source register
 *   xh_imm     an immediate (or a flag: xlat.c)
 *   xh_exit    the block's exit record (m68k__xlat_exit_t) for a target
 *   xh_handler the interpreter's handler of the instruction (called)
 *   xh_next    the next stencil of the block      xh_taken   a taken branch's exit
 *   xh_count   instructions to add to icount here (xlat.c note 6)
 *   xh_sdisp, xh_sidx, xh_sxs, xh_ssc   a source operand (xlat.c note 11):
 *              its displacement (or address, or step), its index register
 *              (offsetof r[0-15]), and the index's shifts left and then
 *              right, arithmetic (16 and 16 - scale for a word index, the
 *              scale and 0 for a long; 8-bit immediates in the shift
 *              instructions); xh_ddisp, xh_didx, xh_dxs, xh_dsc
 *              a destination's
 *   xh_spc     the PC after a source operand's extension words
 *
 * A block's entry (xt_enter) checks once that its instructions fit in the
 * budget (xlat_end); then no stencil looks at the budget. Instructions on registers alone do not count themselves: the
 * next stencil that can fault, call out or leave the block adds them
 * (xh_count), so icount is exact wherever anything can see it. A stencil
 * that can fault or call out stops (returns) after its instruction whenever
 * the interpreter would look at something between instructions: something
 * pending, a store into translated code (xlat_dirty), or the PC not where
 * the block goes on (an exception, a jump the handler made).
 */
#include "m68k-internal.h"
#include "machine-internal.h" /* m68k__be32 */
#include "xlat.h"

/* A few flag stores are cheaper as stores than packed into a vector. */
#pragma GCC optimize("no-tree-slp-vectorize")

extern char xh_pc[], xh_op[], xh_npc[], xh_target[], xh_imm[], xh_exit[];
/* Small values (a register's byte offset in the CPU, a count): declared
 * small so that the compiler puts them in an instruction's 32-bit
 * displacement or immediate rather than loading them into a register. */
extern char xh_reg[1], xh_src[1], xh_count[1];
extern char xh_sdisp[], xh_ddisp[], xh_spc[];
extern char xh_sidx[1], xh_sxs[1], xh_ssc[1], xh_didx[1], xh_dxs[1], xh_dsc[1];
/* The ways out of translated code are cold: GCC puts the code leading to
 * them in a section of its own (-freorder-blocks-and-partition), which the
 * stencil keeps in its data part, so that each stencil's straight path
 * ends in its jump to the next, which a chain drops (the jit's
 * stencilgen.c note 2). */
extern void xh_handler(m68k_cpu_t *c, uint32_t op) __attribute__((cold));
uint32_t m68k__slow_rd(m68k_cpu_t *c, uint32_t a, int sz, bool prog) __attribute__((cold));
void m68k__xlat_wr(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v) __attribute__((cold));
extern void xh_next(m68k_cpu_t *c);
extern void xh_taken(m68k_cpu_t *c, uint64_t icount);
/* The loop register cache (xlat.c note 19): up to two guest registers of a
 * loop, kept in callee-saved host registers (slots) from the loop's entry
 * on and written back to the CPU on every way out of it, so that the
 * loop's own writes and reads of them do not go through memory. The code
 * that enters translated code saves the host's values (note 18), and
 * writes the slots back when translated code returns to it. */
register uint32_t xg_c0 __asm__("rbx");
register uint32_t xg_c1 __asm__("r15");
/* And the CPU's icount, which the loop's branches count in (and its entry
 * checks) without a store and a load each time round. */
register uint64_t xg_ic __asm__("rbp");

#define PC ((uint32_t)(uintptr_t)xh_pc)
#define OP ((uint32_t)(uintptr_t)xh_op)
#define NPC ((uint32_t)(uintptr_t)xh_npc)
#define TARGET ((uint32_t)(uintptr_t)xh_target)
/* xh_reg, xh_src: the byte offset of c->r[n] (xlat.c fills them in). */
#define RREG (*(uint32_t *)((char *)c + (uintptr_t)xh_reg))
#define RSRC (*(uint32_t *)((char *)c + (uintptr_t)xh_src))
#define IMM ((uint32_t)(uintptr_t)xh_imm)
#define EXIT ((m68k__xlat_exit_t *)(uintptr_t)xh_exit)
#define COUNT ((uint64_t)(uintptr_t)xh_count)
#define HOLE32(h) ((uint32_t)(uintptr_t)(h))
#define CREG(h) (*(uint32_t *)((char *)c + (uintptr_t)(h)))

#define XT_INLINE static inline __attribute__((always_inline))
#define XT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define XT_LIKELY(x) __builtin_expect(!!(x), 1)

/* The slots back into the CPU, where c->xlat_lc says they are in use:
 * before anything outside the loop's stencils can look at the registers
 * (a call into the core). */
XT_INLINE void lc_spill(m68k_cpu_t *c)
{
  uint32_t lc = c->xlat_lc;
  if (XT_UNLIKELY(lc)) {
    if (lc & 0xff)
      *(uint32_t *)((char *)c + (lc & 0xff) - 1) = xg_c0;
    if (lc & 0xff00)
      *(uint32_t *)((char *)c + (lc >> 8 & 0xff) - 1) = xg_c1;
    c->icount = xg_ic;
    c->xlat_lc = 0;
  }
}

/* A block's entry (PC: the block's address): on only when its COUNT
 * instructions fit in the budget (xlat.c note 6); icount is c->icount,
 * passed by the way in that just stored it. Nothing can be pending here:
 * the loop enters a block only when nothing is, and inside translated code
 * every stencil that calls out returns to the loop after its instruction
 * when the call left something pending or a store hit translated code
 * (stop_here, mem_next), so no way from one block into another carries
 * either. The loop checks the budget too before it enters a block, so
 * this returns only to an exit that chained here, which left the PC to
 * it. */
/* Back to the loop at pc (out of line: cold, see xh_handler). */
__attribute__((cold, noinline)) static void leave_at(m68k_cpu_t *c, uint32_t pc)
{
  c->pc = pc;
}

void xt_enter(m68k_cpu_t *c, uint64_t icount)
{
  if (XT_UNLIKELY(icount + COUNT > c->xlat_end)) {
    leave_at(c, PC);
    return;
  }
  xh_next(c);
}

/* The interpreter's dispatch of the instruction at PC (cpu-ops.c
 * M68K_DISPATCH): counted (with the instructions on registers before it),
 * the 68000's address-error bookkeeping reset, its first word fetched. */
XT_INLINE void begin(m68k_cpu_t *c)
{
  m68k__lz_sync(c); /* the handler, or its exception, may read the flags */
  c->icount += COUNT;
  c->ae_adj = 0;
  c->ae_prog = false;
  c->ae_undo = 0;
  c->ppc = PC;
  c->pc = PC + 2;
  c->ir = OP;
}

/* Must the block return to xlat.c's loop after this instruction? (The
 * budget was checked at the block's entry.) */
XT_INLINE bool stop_here(const m68k_cpu_t *c)
{
  return XT_UNLIKELY(c->pending | c->xlat_dirty);
}

/* Any instruction: its handler, called. The block goes on only when the PC
 * is where the translator expected it (no exception, no jump taken). */
XT_INLINE void by_handler(m68k_cpu_t *c)
{
  begin(c);
  xh_handler(c, OP);
  if (XT_UNLIKELY(c->pc != NPC) || stop_here(c))
    return;
  xh_next(c);
}

void xt_insn(m68k_cpu_t *c)
{
  by_handler(c);
}

/* An instruction that ends the block (a jump, return, trap...): its
 * handler, then back to the loop, which finds the block at the new PC. */
void xt_last(m68k_cpu_t *c)
{
  begin(c);
  xh_handler(c, OP);
}

/* The end of a block that falls through to TARGET: counted (COUNT: the
 * instructions on registers since the last count), then on through the
 * jump at xh_taken, as a taken branch goes on through its own: xlat.c
 * points that jump at the entry of the block chained there, or at the
 * exit's xt_unchained while there is none (note 3). The instruction before
 * has already checked stop_here. The chained block needs no PC: its
 * stencils that can fault, call out or return store it (and its entry,
 * when it does not fit). */
void xt_exit(m68k_cpu_t *c)
{
  uint64_t n = c->icount + COUNT;
  c->icount = n;
  xh_taken(c, n);
}

/* An exit with no block chained at TARGET: back to the loop with the PC
 * and the exit taken, which the loop chains when it finds a block there. */
void xt_unchained(m68k_cpu_t *c)
{
  c->pc = TARGET;
  c->xlat_last = EXIT;
}

/* A lazy operation's operands (xlat.c note 13) in one store: the CPU
 * keeps lz_s right after lz_d (a little-endian host: the low half is
 * lz_d). */
_Static_assert(offsetof(m68k_cpu_t, lz_s) == offsetof(m68k_cpu_t, lz_d) + 4 &&
                   offsetof(m68k_cpu_t, lz_d) % 8 == 0 &&
                   __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "lz_d and lz_s are stored as one aligned long");
XT_INLINE void lz_set(m68k_cpu_t *c, uint32_t d, uint32_t s, uint32_t op)
{
  uint64_t ds = (uint64_t)d | (uint64_t)s << 32;
  __builtin_memcpy((char *)c + offsetof(m68k_cpu_t, lz_d), &ds, 8);
  c->lz_op = op;
}

/* Instructions on registers alone (xlat.c note 6): they cannot fault, and
 * change nothing the loop looks at, so they leave ppc, ir, the PC and the
 * 68000's address-error state (read only by an instruction's own
 * exceptions, and set again by the next instruction that can take one or
 * by the block's exit), leave their count to the next stencil that counts,
 * and check nothing after them. */
XT_INLINE void pure_begin(m68k_cpu_t *c)
{
  (void)c;
}

XT_INLINE void pure_next(m68k_cpu_t *c)
{
  xh_next(c);
}

XT_INLINE void logic_flags(m68k_cpu_t *c, uint32_t v)
{
  c->n = v;
  c->nz = v;
  c->v = 0;
  c->c = 0;
}

#define XT_MASK(sz) ((sz) == 1 ? 0xffu : (sz) == 2 ? 0xffffu : 0xffffffffu)

/* The's flags of a move or a logical operation of sz bytes giving v. */
XT_INLINE void logic_flags_sz(m68k_cpu_t *c, uint32_t v, int sz)
{
  c->n = v << (32 - 8 * sz);
  c->nz = v & XT_MASK(sz);
  c->v = 0;
  c->c = 0;
}

/* Dn (xh_reg) with its low sz bytes v. */
XT_INLINE void set_dreg(m68k_cpu_t *c, int sz, uint32_t v)
{
  uint32_t m = XT_MASK(sz);
  uint32_t r = (RREG & ~m) | (v & m);
  /* Stored whole: a byte or word store into the register would make the
   * next long load of it (an index, an ADD.L) wait until the store
   * commits, as the host cannot forward a narrow store to a wider load. */
  __asm__("" : "+r"(r));
  RREG = r;
}

/* Instructions on registers (xh_reg, xh_src) that set no register or only
 * the flags, or a byte or word of Dn. */
#define XT_PURE(name, body)                                                                  \
  void xt_##name(m68k_cpu_t *c)                                                              \
  {                                                                                          \
    pure_begin(c);                                                                           \
    body;                                                                                    \
    pure_next(c);                                                                            \
  }
/* The same for one writing no register (xlat.h M68K_XLAT_NOREG), and its
 * pass-through twin, which hands on the value it was given (xlat.c note
 * 15). */
extern void xh_next_v(m68k_cpu_t *c, uint32_t v) __asm__("xh_next");
#define XT_PURE_P(name, body)                                                                \
  XT_PURE(name, body)                                                                        \
  void xt_##name##_p(m68k_cpu_t *c, uint32_t v)                                              \
  {                                                                                          \
    body;                                                                                    \
    xh_next_v(c, v);                                                                         \
  }
XT_PURE(cmp_l, (void)m68k__sub(c, RREG, RSRC, 4, 0, false, true)) /* CMP, CMPA */
XT_PURE(cmpi_l, (void)m68k__sub(c, RREG, IMM, 4, 0, false, true))  /* CMPI, CMPA #imm */
/* The same compares with lazy flags (xlat.c note 13): the operands kept,
 * the flags computed only where something reads them. */
XT_PURE_P(lcmp_l, { lz_set(c, RREG, RSRC, M68K_LZ_SUB); })
XT_PURE_P(lcmpi_l, { lz_set(c, RREG, IMM, M68K_LZ_SUB); })
/* Before an instruction writing every one of N, Z, V and C: the lazy ones
 * are dropped. Before any other that reads them: into the split flags. */
XT_PURE_P(lz_clear, c->lz_op = 0)
XT_PURE_P(lz_sync, m68k__lz_sync(c))
XT_PURE_P(tst_l, logic_flags(c, RREG))
XT_PURE_P(tst_b, { c->n = RREG << 24; c->nz = RREG & 0xff; c->v = 0; c->c = 0; })
/* CMPI, ADDI .B #IMM,Dn; EXT.W Dn. */
XT_PURE_P(cmpi_b, (void)m68k__sub(c, RREG, IMM, 1, 0, false, true))
XT_PURE(addi_b, set_dreg(c, 1, m68k__add(c, RREG, IMM, 1, 0, false)))
XT_PURE(addi_b_nf, set_dreg(c, 1, RREG + IMM))
XT_PURE(ext_w, {
  uint32_t v = (uint32_t)(int32_t)(int8_t)RREG & 0xffff;
  set_dreg(c, 2, v);
  logic_flags_sz(c, v, 2);
})
XT_PURE(ext_w_nf, set_dreg(c, 2, (uint32_t)(int32_t)(int8_t)RREG))
/* Flags no later instruction reads (xlat.c note 8): CMP, TST. */
XT_PURE_P(nop, (void)c)

/* Long operations that set a register, Rn (xh_reg), from its old value v
 * and from Rs (xh_src) or IMM: acc_<name> gives the new value (and sets
 * the flags). Each is the stencils of xlat.h's M68K_XLAT_ACC_RW (or, not
 * reading v, M68K_XLAT_ACC_W) by the way v comes in and the new value goes
 * out (xlat.c note 15): xt_<name> loads v from the CPU; xt_<name>_i takes
 * it as its argument, where the stencil before it on the same register
 * left it; xt_<name>_o passes the new value on to the next one in the
 * same way, and _io does both. Every one stores the new value, so the CPU
 * always holds the register as it is. */
/* acc3_<name>(c, v, s) with s Rs's value (where the operation has one),
 * and acc_<name>(c, v) with Rs's from the CPU. */
#define XT_ACC_FN(name, expr)                                                                \
  XT_INLINE uint32_t acc3_##name(m68k_cpu_t *c, uint32_t v, uint32_t s)                      \
  {                                                                                          \
    (void)c;                                                                                 \
    (void)v;                                                                                 \
    (void)s;                                                                                 \
    return (expr);                                                                           \
  }                                                                                          \
  XT_INLINE uint32_t acc_##name(m68k_cpu_t *c, uint32_t v) { return acc3_##name(c, v, RSRC); }
XT_ACC_FN(moveq, (logic_flags(c, IMM), IMM)) /* MOVEQ, flags of a constant */
XT_ACC_FN(clr_l, (logic_flags(c, 0), 0u))
XT_ACC_FN(seti, IMM)                                      /* LEA abs,Ar; MOVEA #imm */
XT_ACC_FN(adda_l, v + s)                                  /* ADDA.L Rs,Ar */
XT_ACC_FN(suba_l, v - s)                                  /* SUBA.L Rs,Ar */
XT_ACC_FN(adda_w, v + (uint32_t)(int32_t)(int16_t)s)      /* ADDA.W Rs,Ar */
XT_ACC_FN(adda_i, v + IMM) /* ADDQ/SUBQ #q,Ar, ADDA/SUBA #imm, LEA (d16,Ar) same */
XT_ACC_FN(add_l, m68k__add(c, v, s, 4, 0, false))
XT_ACC_FN(sub_l, m68k__sub(c, v, s, 4, 0, false, false))
XT_ACC_FN(addi_l, m68k__add(c, v, IMM, 4, 0, false))      /* ADDQ/ADDI.L */
XT_ACC_FN(subi_l, m68k__sub(c, v, IMM, 4, 0, false, false))
/* ADD and SUB .L (ADDQ, SUBQ, ADDI, SUBI) with lazy N, Z, V and C; X, not
 * lazy, stored as the _x ones do. */
XT_INLINE uint32_t lz_add(m68k_cpu_t *c, uint32_t d, uint32_t s, bool sub)
{
  c->x = sub ? d < s : d + s < d;
  lz_set(c, d, s, sub ? M68K_LZ_SUB : M68K_LZ_ADD);
  return sub ? d - s : d + s;
}
XT_ACC_FN(ladd_l, lz_add(c, v, s, false))
XT_ACC_FN(laddi_l, lz_add(c, v, IMM, false))
XT_ACC_FN(lsub_l, lz_add(c, v, s, true))
XT_ACC_FN(lsubi_l, lz_add(c, v, IMM, true))
XT_INLINE uint32_t logic(m68k_cpu_t *c, uint32_t r)
{
  logic_flags(c, r);
  return r;
}
XT_ACC_FN(and_l, logic(c, v & s))
XT_ACC_FN(or_l, logic(c, v | s))
XT_ACC_FN(eor_l, logic(c, v ^ s))
XT_ACC_FN(clr_bw, (logic_flags(c, 0), v & IMM)) /* CLR.B, CLR.W Dr (IMM: the bits kept) */

/* Shifts of a long in Dn (xh_reg) by IMM (1 to 8) or by Ds (xh_src) mod
 * 64 (cpu-ops.c shift: LSL, LSR, ASR). A count of 0 leaves X, clears C. */
XT_INLINE uint32_t shifted(m68k_cpu_t *c, uint32_t r, uint32_t cy)
{
  c->n = r;
  c->nz = r;
  c->v = 0;
  c->c = c->x = cy;
  return r;
}
XT_ACC_FN(lsl_l_i, shifted(c, v << IMM, (v >> (32 - IMM)) & 1))
XT_ACC_FN(lsr_l_i, shifted(c, v >> IMM, (v >> (IMM - 1)) & 1))
XT_ACC_FN(asr_l_i, shifted(c, (uint32_t)((int32_t)v >> IMM), (v >> (IMM - 1)) & 1))
/* Without flags, the count (1 to 31) is also in the 8-bit hole xh_sxs,
 * which the shift instruction holds itself: no register loaded with a
 * 64-bit IMM first. */
#define XT_SHIFT8(insn, x)                                                     \
  __extension__({                                                              \
    uint32_t v_ = (x);                                                         \
    __asm__(insn " $xh_sxs, %0" : "+r"(v_));                                   \
    v_;                                                                        \
  })
XT_ACC_FN(lsl_l_i_nf, XT_SHIFT8("shll", v))
XT_ACC_FN(lsr_l_i_nf, XT_SHIFT8("shrl", v))
XT_ACC_FN(asr_l_i_nf, XT_SHIFT8("sarl", v))

XT_INLINE uint32_t shift_r(m68k_cpu_t *c, uint32_t d, uint32_t s, int kind, bool nf)
{
  uint32_t n = s & 63, r, cy;
  if (n == 0) {
    if (!nf) {
      c->n = d;
      c->nz = d;
      c->v = 0;
      c->c = 0;
    }
    return d;
  }
  if (kind == 0) { /* LSL */
    r = n < 32 ? d << n : 0;
    cy = n <= 32 ? (uint32_t)(((uint64_t)d << n) >> 32) & 1 : 0;
  } else if (kind == 1) { /* LSR */
    r = n < 32 ? d >> n : 0;
    cy = n <= 32 ? (d >> (n - 1)) & 1 : 0;
  } else { /* ASR */
    r = (uint32_t)((int32_t)d >> (n < 32 ? n : 31));
    cy = n < 32 ? (d >> (n - 1)) & 1 : d >> 31;
  }
  if (nf) { /* X alone: set when the count is not 0 */
    c->x = cy;
    return r;
  }
  return shifted(c, r, cy);
}
XT_ACC_FN(lsl_l_r, shift_r(c, v, s, 0, false))
XT_ACC_FN(lsr_l_r, shift_r(c, v, s, 1, false))
XT_ACC_FN(asr_l_r, shift_r(c, v, s, 2, false))
XT_ACC_FN(lsl_l_r_nf, shift_r(c, v, s, 0, true))
XT_ACC_FN(lsr_l_r_nf, shift_r(c, v, s, 1, true))
XT_ACC_FN(asr_l_r_nf, shift_r(c, v, s, 2, true))

/* ORI, ANDI, EORI .L #IMM,Dn. */
XT_ACC_FN(or_i, logic(c, v | IMM))
XT_ACC_FN(and_i, logic(c, v & IMM))
XT_ACC_FN(eor_i, logic(c, v ^ IMM))
XT_ACC_FN(or_i_nf, v | IMM)
XT_ACC_FN(and_i_nf, v & IMM)
XT_ACC_FN(eor_i_nf, v ^ IMM)

/* NEG.L, SWAP, EXT.L, EXTB.L Dn (cpu-ops.c t_neg, t_swap, t_ext). */
XT_ACC_FN(neg_l, m68k__sub(c, 0, v, 4, 0, false, false))
XT_ACC_FN(neg_l_nf, 0u - v)
XT_ACC_FN(swap, logic(c, (v << 16) | (v >> 16)))
XT_ACC_FN(swap_nf, (v << 16) | (v >> 16))
XT_ACC_FN(ext_l, logic(c, (uint32_t)(int32_t)(int16_t)v))
XT_ACC_FN(ext_l_nf, (uint32_t)(int32_t)(int16_t)v)
XT_ACC_FN(extb_l, logic(c, (uint32_t)(int32_t)(int8_t)v))
XT_ACC_FN(extb_l_nf, (uint32_t)(int32_t)(int8_t)v)

/* MULS.L, MULU.L with a 32-bit product into Dl (xh_reg), of #IMM or Ds
 * (xh_src) (cpu-ops.c t_mull): V when the product does not fit. */
XT_INLINE uint32_t mul_flags(m68k_cpu_t *c, uint32_t r, bool ovf)
{
  c->n = r;
  c->nz = r;
  c->v = ovf;
  c->c = 0;
  return r;
}
XT_INLINE uint32_t muls(m68k_cpu_t *c, uint32_t d, uint32_t s)
{
  int64_t r = (int64_t)(int32_t)d * (int32_t)s;
  return mul_flags(c, (uint32_t)r, r != (int64_t)(int32_t)r);
}
XT_INLINE uint32_t mulu(m68k_cpu_t *c, uint32_t d, uint32_t s)
{
  uint64_t r = (uint64_t)d * s;
  return mul_flags(c, (uint32_t)r, (r >> 32) != 0);
}
XT_ACC_FN(muls_l_i, muls(c, v, IMM))
XT_ACC_FN(mulu_l_i, mulu(c, v, IMM))
XT_ACC_FN(muls_l_r, muls(c, v, s))
XT_ACC_FN(mulu_l_r, mulu(c, v, s))
XT_ACC_FN(mul_l_i_nf, v * IMM)
XT_ACC_FN(mul_l_r_nf, v * s)

/* MULS.L, MULU.L #IMM,Dh:Dl, the 64-bit product (Dl: xh_reg, Dh: xh_src),
 * GCC's division by a constant: Dh written first, as cpu-ops.c's t_mull
 * does, so that Dh = Dl keeps the low half (the barrier keeps GCC, which
 * takes the two holes for different places, from reordering the stores).
 * It writes two registers, so it is not in xlat.c's pure[] (which write
 * xh_reg at most); like Scc it leaves its count to the next stencil. */
XT_INLINE void mul64(m68k_cpu_t *c, bool sgn)
{
  uint32_t d = RREG;
  uint64_t r = sgn ? (uint64_t)((int64_t)(int32_t)d * (int32_t)IMM) : (uint64_t)d * IMM;
  RSRC = (uint32_t)(r >> 32);
  __asm__ volatile("" ::: "memory");
  RREG = (uint32_t)r;
  c->n = (uint32_t)(r >> 32);
  c->nz = r != 0;
  c->v = 0;
  c->c = 0;
  xh_next(c);
}
void xt_muls64_i(m68k_cpu_t *c) { mul64(c, true); }
void xt_mulu64_i(m68k_cpu_t *c) { mul64(c, false); }

/* The same without the flags no later instruction reads (xlat.c note 8):
 * none (the others are above: MOVE.L as MOVEA.L, ADD.L as ADDA.L, CLR.L
 * and MOVEQ as seti...), or X alone. */
XT_ACC_FN(and_l_nf, v & s)
XT_ACC_FN(or_l_nf, v | s)
XT_ACC_FN(eor_l_nf, v ^ s)
XT_ACC_FN(add_l_x, (c->x = v + s < v, v + s))
XT_ACC_FN(sub_l_x, (c->x = v < s, v - s))
XT_ACC_FN(addi_l_x, (c->x = v + IMM < v, v + IMM))
XT_ACC_FN(subi_l_x, (c->x = v < IMM, v - IMM))

/* The variants of operation fn on Rn, whose argument is `in` (RREG, or
 * RSRC for M68K_XLAT_ACC_S) where it does not come from the stencil
 * before. */
#define XT_ACC_PLAIN(name, fn, in)                                                           \
  void xt_##name(m68k_cpu_t *c)                                                              \
  {                                                                                          \
    RREG = fn(c, in);                                                                        \
    xh_next(c);                                                                              \
  }
#define XT_ACC_O(name, fn, in)                                                               \
  void xt_##name##_o(m68k_cpu_t *c)                                                          \
  {                                                                                          \
    uint32_t r = fn(c, in);                                                                  \
    RREG = r;                                                                                \
    xh_next_v(c, r);                                                                         \
  }
#define XT_ACC_I(name, fn)                                                                   \
  void xt_##name##_i(m68k_cpu_t *c, uint32_t v)                                              \
  {                                                                                          \
    RREG = fn(c, v);                                                                         \
    xh_next(c);                                                                              \
  }
#define XT_ACC_IO(name, fn)                                                                  \
  void xt_##name##_io(m68k_cpu_t *c, uint32_t v)                                             \
  {                                                                                          \
    uint32_t r = fn(c, v);                                                                   \
    RREG = r;                                                                                \
    xh_next_v(c, r);                                                                         \
  }
/* The pass-through twin: v is another register's value, from the stencil
 * before, for a stencil after this one. */
#define XT_ACC_P(name, fn, in)                                                               \
  void xt_##name##_p(m68k_cpu_t *c, uint32_t v)                                              \
  {                                                                                          \
    RREG = fn(c, in);                                                                        \
    xh_next_v(c, v);                                                                         \
  }
#define XT_ACC_ALL(name, fn, in)                                                             \
  XT_ACC_PLAIN(name, fn, in) XT_ACC_O(name, fn, in) XT_ACC_I(name, fn) XT_ACC_IO(name, fn)   \
  XT_ACC_P(name, fn, in)
#define XT_ACC_RW(name) XT_ACC_ALL(name, acc_##name, RREG)
#define XT_ACC_W(name)                                                                       \
  XT_ACC_PLAIN(name, acc_##name, RREG) XT_ACC_O(name, acc_##name, RREG)                      \
  XT_ACC_P(name, acc_##name, RREG)
M68K_XLAT_ACC_RW(XT_ACC_RW)
M68K_XLAT_ACC_W(XT_ACC_W)
/* Their variants by the registers cached (xlat.c note 19): _c<k> with Rn
 * in slot k (its value from the host register, the new one into it), and
 * for those with a source register (M68K_XLAT_ACC_RS) _c<k>s<j> with Rs
 * in slot j too, and _s<j> with Rs alone in slot j. */
#define XT_ACC_CK(name, k)                                                                   \
  void xt_##name##_c##k(m68k_cpu_t *c)                                                       \
  {                                                                                          \
    xg_c##k = acc3_##name(c, xg_c##k, RSRC);                                                 \
    xh_next(c);                                                                              \
  }
#define XT_ACC_C(name) XT_ACC_CK(name, 0) XT_ACC_CK(name, 1)
M68K_XLAT_ACC_RW(XT_ACC_C)
M68K_XLAT_ACC_W(XT_ACC_C)
#define XT_ACC_CKSJ(name, k, j)                                                              \
  void xt_##name##_c##k##s##j(m68k_cpu_t *c)                                                 \
  {                                                                                          \
    xg_c##k = acc3_##name(c, xg_c##k, xg_c##j);                                              \
    xh_next(c);                                                                              \
  }
#define XT_ACC_SJ(name, j)                                                                   \
  void xt_##name##_s##j(m68k_cpu_t *c)                                                       \
  {                                                                                          \
    RREG = acc3_##name(c, RREG, xg_c##j);                                                    \
    xh_next(c);                                                                              \
  }
#define XT_ACC_CS(name)                                                                      \
  XT_ACC_CKSJ(name, 0, 0) XT_ACC_CKSJ(name, 0, 1) XT_ACC_CKSJ(name, 1, 0)                      \
  XT_ACC_CKSJ(name, 1, 1) XT_ACC_SJ(name, 0) XT_ACC_SJ(name, 1)
M68K_XLAT_ACC_RS(XT_ACC_CS)
/* A cached loop's entry, before its xt_enter: the slots filled from the
 * registers at xh_reg (slot 0) and xh_src (slot 1), and marked in use
 * (IMM: xlat_lc's value), icount passed on. */
extern void xh_next_ic(m68k_cpu_t *c, uint64_t icount) __asm__("xh_next");
void xt_fill1(m68k_cpu_t *c, uint64_t icount)
{
  xg_c0 = RREG;
  xg_ic = icount;
  c->xlat_lc = IMM;
  xh_next_ic(c, icount);
}
void xt_fill2(m68k_cpu_t *c, uint64_t icount)
{
  xg_c0 = RREG;
  xg_c1 = RSRC;
  xg_ic = icount;
  c->xlat_lc = IMM;
  xh_next_ic(c, icount);
}
/* The slots written back to the registers they hold, and icount, on the
 * way out of the loop: after its last branch back (xt_spill1, xt_spill2),
 * or on a branch out of it, with the icount it passes, on to the exit's
 * jump (_x). */
void xt_spill1(m68k_cpu_t *c)
{
  RREG = xg_c0;
  c->icount = xg_ic;
  c->xlat_lc = 0;
  xh_next(c);
}
void xt_spill2(m68k_cpu_t *c)
{
  RREG = xg_c0;
  RSRC = xg_c1;
  c->icount = xg_ic;
  c->xlat_lc = 0;
  xh_next(c);
}
void xt_spill1_x(m68k_cpu_t *c, uint64_t icount)
{
  RREG = xg_c0;
  c->icount = icount;
  c->xlat_lc = 0;
  xh_taken(c, icount);
}
void xt_spill2_x(m68k_cpu_t *c, uint64_t icount)
{
  RREG = xg_c0;
  RSRC = xg_c1;
  c->icount = icount;
  c->xlat_lc = 0;
  xh_taken(c, icount);
}

/* Moves from Rs into Rn (xlat.h M68K_XLAT_ACC_S): accs_<name> gives Rn's
 * new value from Rs's, s; their _i and _io take s from the stencil before
 * (which set Rs). */
XT_INLINE uint32_t accs_move_l(m68k_cpu_t *c, uint32_t s) /* MOVE.L Rs,Dr */
{
  logic_flags(c, s);
  return s;
}
#define XT_ACCS_FN(name, expr)                                                               \
  XT_INLINE uint32_t accs_##name(m68k_cpu_t *c, uint32_t s)                                  \
  {                                                                                          \
    (void)c;                                                                                 \
    return (expr);                                                                           \
  }
XT_ACCS_FN(movea_l, s)                             /* MOVEA.L Rs,Ar; MOVE.L without flags */
XT_ACCS_FN(movea_w, (uint32_t)(int32_t)(int16_t)s) /* MOVEA.W Rs,Ar */
XT_ACCS_FN(lea_d16, s + IMM)                       /* LEA (d,As),Ar */
#define XT_ACC_S(name) XT_ACC_ALL(name, accs_##name, RSRC)
M68K_XLAT_ACC_S(XT_ACC_S)
/* Their variants by the registers cached (xlat.c note 19): _c<k> with Rn
 * in slot k, _c<k>s<j> with Rs in slot j too, _s<j> with Rs alone. */
#define XT_ACCS_V(name, dst, src, suffix)                                                    \
  void xt_##name##suffix(m68k_cpu_t *c)                                                      \
  {                                                                                          \
    dst = accs_##name(c, src);                                                               \
    xh_next(c);                                                                              \
  }
#define XT_ACCS_C(name)                                                                      \
  XT_ACCS_V(name, xg_c0, RSRC, _c0) XT_ACCS_V(name, xg_c1, RSRC, _c1)                          \
  XT_ACCS_V(name, xg_c0, xg_c0, _c0s0) XT_ACCS_V(name, xg_c0, xg_c1, _c0s1)                    \
  XT_ACCS_V(name, xg_c1, xg_c0, _c1s0) XT_ACCS_V(name, xg_c1, xg_c1, _c1s1)                    \
  XT_ACCS_V(name, RREG, xg_c0, _s0) XT_ACCS_V(name, RREG, xg_c1, _s1)
M68K_XLAT_ACC_S(XT_ACCS_C)

/* The compares and SUBs right before their Bcc (xt_lbccr): lazy, as
 * above, and the operands passed on in the registers of the next
 * stencil's arguments, which the fall-through keeps, so that the Bcc need
 * not load them back; the _i ones take Rn's value from the stencil
 * before them (M68K_XLAT_ACC_IN). */
extern void xh_next_ds(m68k_cpu_t *c, uint32_t d, uint32_t s) __asm__("xh_next");
#define XT_DS(name, sexpr, body)                                                             \
  void xt_##name(m68k_cpu_t *c)                                                              \
  {                                                                                          \
    uint32_t d = RREG, s = (sexpr);                                                          \
    body;                                                                                    \
    xh_next_ds(c, d, s);                                                                     \
  }                                                                                          \
  void xt_##name##_i(m68k_cpu_t *c, uint32_t d)                                              \
  {                                                                                          \
    uint32_t s = (sexpr);                                                                    \
    body;                                                                                    \
    xh_next_ds(c, d, s);                                                                     \
  }
/* With Rn cached in slot k (xlat.c note 19): read from the host register,
 * and a SUB's result stored into both. */
#define XT_DS_CK(name, sexpr, body, k)                                                       \
  void xt_##name##_c##k(m68k_cpu_t *c)                                                       \
  {                                                                                          \
    uint32_t d = xg_c##k, s = (sexpr);                                                       \
    body;                                                                                    \
    xh_next_ds(c, d, s);                                                                     \
  }
#define XT_DS_C(name, sexpr, body)                                                           \
  XT_DS(name, sexpr, body) XT_DS_CK(name, sexpr, body, 0) XT_DS_CK(name, sexpr, body, 1)
#define XT_LZ_CMP lz_set(c, d, s, M68K_LZ_SUB)
XT_DS_C(lcmpr_l, RSRC, XT_LZ_CMP)
XT_DS_C(lcmpir_l, IMM, XT_LZ_CMP)
XT_DS(lsubr_l, RSRC, RREG = lz_add(c, d, s, true))
XT_DS(lsubir_l, IMM, RREG = lz_add(c, d, s, true))
XT_DS_CK(lsubr_l, RSRC, xg_c0 = lz_add(c, d, s, true), 0)
XT_DS_CK(lsubr_l, RSRC, xg_c1 = lz_add(c, d, s, true), 1)
XT_DS_CK(lsubir_l, IMM, xg_c0 = lz_add(c, d, s, true), 0)
XT_DS_CK(lsubir_l, IMM, xg_c1 = lz_add(c, d, s, true), 1)
/* CMP.L and SUB.L Rs,Rn with Rs in slot j, Rn in slot k (_c<k>s<j>) or
 * in the CPU (_s<j>). */
#define XT_DS_V(name, dexpr, sj, body, suffix)                                               \
  void xt_##name##suffix(m68k_cpu_t *c)                                                      \
  {                                                                                          \
    uint32_t d = (dexpr), s = xg_c##sj;                                                      \
    body;                                                                                    \
    xh_next_ds(c, d, s);                                                                     \
  }
#define XT_LCMP_S(k, j) XT_DS_V(lcmpr_l, xg_c##k, j, XT_LZ_CMP, _c##k##s##j)
XT_LCMP_S(0, 0) XT_LCMP_S(0, 1) XT_LCMP_S(1, 0) XT_LCMP_S(1, 1)
XT_DS_V(lcmpr_l, RREG, 0, XT_LZ_CMP, _s0) XT_DS_V(lcmpr_l, RREG, 1, XT_LZ_CMP, _s1)
#define XT_LSUB_S(k, j) XT_DS_V(lsubr_l, xg_c##k, j, xg_c##k = lz_add(c, d, s, true), _c##k##s##j)
XT_LSUB_S(0, 0) XT_LSUB_S(0, 1) XT_LSUB_S(1, 0) XT_LSUB_S(1, 1)
XT_DS_V(lsubr_l, RREG, 0, RREG = lz_add(c, d, s, true), _s0)
XT_DS_V(lsubr_l, RREG, 1, RREG = lz_add(c, d, s, true), _s1)
/* CMPI.B #IMM,Dn, lazy: CMP.B's flags are those of the two bytes at the
 * top of a long compared. */
XT_PURE_P(lcmpi_b, { lz_set(c, RREG << 24, IMM << 24, M68K_LZ_SUB); })
XT_DS_C(lcmpir_b, IMM, {
  d <<= 24;
  s <<= 24;
  lz_set(c, d, s, M68K_LZ_SUB);
})
/* TST.L and TST.B Dn, lazy: the flags of Dn (its low byte at the top)
 * minus 0. */
XT_PURE_P(ltst_l, { lz_set(c, RREG, 0, M68K_LZ_SUB); })
XT_PURE_P(ltst_b, { lz_set(c, RREG << 24, 0, M68K_LZ_SUB); })
XT_DS_C(ltstr_l, 0, { lz_set(c, d, s, M68K_LZ_SUB); })
XT_DS_C(ltstr_b, 0, {
  d <<= 24;
  lz_set(c, d, s, M68K_LZ_SUB);
})

/* Memory operands, on the 68030 only (no address errors; xlat.c picks
 * them). An access to RAM that does not touch translated code cannot
 * fault nor change anything the loop looks at: it goes inline and the
 * instruction is left to count like one on registers. Any other access
 * (a device, a bus error, a store into translated code) first ends the
 * instruction as the interpreter's dispatch does (counted with those
 * before it, ppc and ir set, the PC past it: the interpreter has fetched
 * every extension word by then; not the 68000's address-error state,
 * which only the 68000 reads), then goes through the core, and the block
 * returns to the loop after the instruction (*out). */
XT_INLINE void mem_out_at(m68k_cpu_t *c, bool *out, uint32_t pc)
{
  if (!*out) {
    *out = true;
    lc_spill(c); /* the core sees the registers, and may take an exception */
    m68k__lz_sync(c); /* before the instruction's own flags, and any fault */
    c->icount += COUNT;
    c->ppc = PC;
    c->ir = OP;
  }
  c->pc = pc;
}

XT_INLINE void mem_out(m68k_cpu_t *c, bool *out)
{
  mem_out_at(c, out, NPC);
}

/* RAM on the 68030, whose addresses are 32 bits (no mask): the offset of
 * address a in RAM, checked against a limit, and its host address, which
 * depends on a alone so that the access does not wait for the check. */
/* The CPU's ram_host, xlat_wrmap and ram_base, which do not change while
 * a machine lives, kept in callee-saved host registers by the code that
 * enters translated code (xlat.c note 18), so that no access loads them. */
register uintptr_t xg_ram_host __asm__("r12");
register const uint8_t *xg_wrmap __asm__("r13");
register uint64_t xg_ram_base __asm__("r14");

XT_INLINE uint32_t ram_off(const m68k_cpu_t *c, uint32_t a)
{
  (void)c;
  return a - (uint32_t)xg_ram_base;
}

XT_INLINE uint8_t *ram_at(const m68k_cpu_t *c, uint32_t a)
{
  (void)c;
  return (uint8_t *)(xg_ram_host + a);
}

/* A read from RAM, inline: true with the value in *v, false (nothing
 * read) where it must go through the core. */
XT_INLINE bool rd_inline(const m68k_cpu_t *c, uint32_t a, int sz, uint32_t *v)
{
  uint32_t off = ram_off(c, a);
  const uint8_t *p = ram_at(c, a);
  if (sz == 1 && XT_LIKELY(off < c->ram_lim1))
    return *v = p[0], true;
  if (sz == 2 && XT_LIKELY(off < c->ram_lim2))
    return *v = ((uint32_t)p[0] << 8) | p[1], true;
  if (sz == 4 && XT_LIKELY(off < c->ram_lim4))
    return *v = m68k__be32(p), true;
  return false;
}

/* A read through the core; `pc` is the PC the interpreter has reached
 * when it reads (past the operand's extension words), which a bus error
 * stacks. */
XT_INLINE uint32_t rd_core(m68k_cpu_t *c, uint32_t a, int sz, bool *out, uint32_t pc)
{
  mem_out_at(c, out, pc);
  return m68k__slow_rd(c, a, sz, false);
}

/* A read, inline where it can be. */
XT_INLINE uint32_t rd_at(m68k_cpu_t *c, uint32_t a, int sz, bool *out, uint32_t pc)
{
  uint32_t v;
  if (rd_inline(c, a, sz, &v))
    return v;
  return rd_core(c, a, sz, out, pc);
}

XT_INLINE uint32_t rd(m68k_cpu_t *c, uint32_t a, int sz, bool *out)
{
  return rd_at(c, a, sz, out, NPC);
}

/* May a store go inline, to RAM outside translated pages? False for any
 * other, which must go through the core. One look at the store map
 * (xlat.c note 14) for the page of the first byte answers both: the map
 * has a byte for every page of the 4 GiB an address can name. */
XT_INLINE bool wr_room(const m68k_cpu_t *c, uint32_t a, int sz)
{
  uint8_t ok = xg_wrmap[a >> M68K_XLAT_PAGE_SHIFT];
  return XT_LIKELY(ok & (sz == 1 ? M68K_XLAT_WR_BYTE : M68K_XLAT_WR_LONG));
}

/* The store wr_room allowed. */
XT_INLINE void wr_ram(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v)
{
  uint8_t *p = ram_at(c, a);
  if (sz == 1) {
    p[0] = (uint8_t)v;
  } else if (sz == 2) {
    uint16_t w = __builtin_bswap16((uint16_t)v);
    __builtin_memcpy(p, &w, 2);
  } else {
    uint32_t w = __builtin_bswap32(v);
    __builtin_memcpy(p, &w, 4);
  }
}

XT_INLINE bool wr_inline(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v)
{
  if (!wr_room(c, a, sz))
    return false;
  wr_ram(c, a, sz, v);
  return true;
}

/* Back to the loop before this instruction, which has changed nothing,
 * for the interpreter to run it (xlat.c note 17): out of line and cold,
 * as leave_at. */
__attribute__((cold, noinline)) static void interp_at(m68k_cpu_t *c, uint32_t pc, uint64_t n)
{
  c->icount += n;
  c->pc = pc;
  c->xlat_interp = true;
}

XT_INLINE void to_interp(m68k_cpu_t *c)
{
  lc_spill(c);
  interp_at(c, PC, COUNT - 1);
}

/* On with the next instruction, or back to the loop after an access
 * that went through the core (with the PC past the instruction). */
XT_INLINE void mem_next(m68k_cpu_t *c, bool out)
{
  if (XT_UNLIKELY(out)) {
    c->pc = NPC;
    return;
  }
  xh_next(c);
}

/* A long operation op on Rn (xh_reg) and memory (cpu-ops.c alu, t_adda):
 * the result, with the flags the interpreter sets. */
XT_INLINE uint32_t alu(m68k_cpu_t *c, int op, uint32_t d, uint32_t s)
{
  switch (op) {
  case XA_or: d |= s; logic_flags(c, d); return d;
  case XA_and: d &= s; logic_flags(c, d); return d;
  case XA_eor: d ^= s; logic_flags(c, d); return d;
  case XA_sub: return m68k__sub(c, d, s, 4, 0, false, false);
  case XA_add: return m68k__add(c, d, s, 4, 0, false);
  case XA_cmp: (void)m68k__sub(c, d, s, 4, 0, false, true); return d;
  case XA_adda: return d + s;
  case XA_muls: return muls(c, d, s);
  case XA_mulu: return mulu(c, d, s);
  default: return d - s; /* XA_suba */
  }
}

/* A store of sz bytes of v at a by an instruction that writes nothing
 * else (MOVE.B #IMM,(Ar), CLR.L), after its flags, a move's of v. With
 * nf (no later instruction reads them before they are written again:
 * xlat.c note 8) they are set only where the core can see them: when the
 * store must go through the core. True when it did: the instruction is
 * done, the PC past it, and the stencil returns at once, so that the call
 * is its last act (a jump) and no path keeps anything across it. */
XT_INLINE bool wr_flagged(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v, bool nf)
{
  if (XT_LIKELY(wr_inline(c, a, sz, v))) {
    if (!nf)
      logic_flags_sz(c, v, sz); /* nothing looks between the two */
    return false;
  }
  /* Through the core, the instruction ended first (mem_out, which also
   * brings lazy flags in before the instruction's own: xlat.c note 13). */
  bool out = false;
  mem_out(c, &out);
  logic_flags_sz(c, v, sz);
  m68k__xlat_wr(c, a, sz, v); /* out of line: the inline path saves no registers */
  return true;
}

XT_INLINE void move_b_imm_ai(m68k_cpu_t *c, bool nf) /* MOVE.B #IMM,(Ar) */
{
  if (!wr_flagged(c, RREG, 1, IMM, nf))
    xh_next(c);
}
void xt_move_b_imm_ai(m68k_cpu_t *c) { move_b_imm_ai(c, false); }
void xt_move_b_imm_ai_nf(m68k_cpu_t *c) { move_b_imm_ai(c, true); }
/* The same with Ar cached in slot k (xlat.c note 19). */
#define XT_MOVE_B_IMM_AI_C(k)                                                                \
  void xt_move_b_imm_ai_c##k(m68k_cpu_t *c)                                                  \
  {                                                                                          \
    if (!wr_flagged(c, xg_c##k, 1, IMM, false))                                              \
      xh_next(c);                                                                            \
  }                                                                                          \
  void xt_move_b_imm_ai_nf_c##k(m68k_cpu_t *c)                                               \
  {                                                                                          \
    if (!wr_flagged(c, xg_c##k, 1, IMM, true))                                               \
      xh_next(c);                                                                            \
  }
XT_MOVE_B_IMM_AI_C(0)
XT_MOVE_B_IMM_AI_C(1)

/* The 68030's MOVE family (xlat.c note 11). An operand's address: the
 * interpreter's (cpu-ops.c ea_addr, ea_index with a brief extension
 * word), (An)+ and -(An) with their step in the displacement (2 for a
 * byte on A7; negated for -(An)). */
/* The shift counts are 8-bit holes in the shift instructions themselves
 * (GCC would move a hole's value into CL for each shift). Not volatile:
 * an operand kind with no index drops them. */
#define XT_INDEX(r, xs, sc)                                                    \
  __extension__({                                                            \
    uint32_t v_ = (r);                                                       \
    __asm__("shll $" #xs ", %0\n\tsarl $" #sc ", %0" : "+r"(v_));             \
    v_;                                                                      \
  })
#define SIDX XT_INDEX(CREG(xh_sidx), xh_sxs, xh_ssc)
#define DIDX XT_INDEX(CREG(xh_didx), xh_dxs, xh_dsc)

XT_INLINE uint32_t opnd_addr(int m, uint32_t *r, uint32_t disp, uint32_t idx)
{
  uint32_t a;
  switch (m) {
  case XO_ai: return *r;
  case XO_pi: a = *r; *r = a + disp; return a;
  case XO_pd: a = *r + disp; *r = a; return a;
  case XO_d16: return *r + disp;
  case XO_ix: return *r + disp + idx;
  default: return disp; /* XO_abs */
  }
}

/* MOVE (and MOVEA) of sz bytes from operand kind sm to dm (cpu-ops.c
 * t_move): the source's address and read, then the destination's address
 * (after the source's (An)+ or -(An): the same An may be both), the
 * flags, the store. Unless both the read and the store go inline, it is
 * left to the interpreter (xlat.c note 17) with An stepped back, so that
 * nothing has changed. With nf no flags. */
XT_INLINE void move(m68k_cpu_t *c, int sz, int sm, int dm, bool nf)
{
  uint32_t s0 = RSRC, v = s0 & XT_MASK(sz);
  if (sm != XO_r) {
    uint32_t a = opnd_addr(sm, &RSRC, HOLE32(xh_sdisp), SIDX);
    if (XT_UNLIKELY(!rd_inline(c, a, sz, &v))) {
      RSRC = s0;
      to_interp(c);
      return;
    }
  }
  if (dm == XO_d) {
    if (!nf)
      logic_flags_sz(c, v, sz);
    set_dreg(c, sz, v);
  } else if (dm == XO_a) {
    RREG = sz == 2 ? (uint32_t)(int32_t)(int16_t)v : v;
  } else {
    if (sm == XO_pi || sm == XO_pd) /* the source's step before the destination's An */
      __asm__ volatile("" ::: "memory");
    uint32_t d0 = RREG, a = opnd_addr(dm, &RREG, HOLE32(xh_ddisp), DIDX);
    if (XT_UNLIKELY(!wr_room(c, a, sz))) {
      RREG = d0;
      /* then the source's, which may be the same register: GCC takes the
       * two holes for different places and would swap the stores */
      __asm__ volatile("" ::: "memory");
      RSRC = s0;
      to_interp(c);
      return;
    }
    if (!nf)
      logic_flags_sz(c, v, sz);
    wr_ram(c, a, sz, v);
  }
  xh_next(c);
}

#define XT_MV(sz, sm, dm)                                                                    \
  void xt_mv##sz##_##sm##_##dm(m68k_cpu_t *c) { move(c, sz, XO_##sm, XO_##dm, false); }      \
  void xt_mv##sz##_##sm##_##dm##_nf(m68k_cpu_t *c) { move(c, sz, XO_##sm, XO_##dm, true); }
M68K_XLAT_MOVES(XT_MV)

/* MOVE <ea>,Dn from memory (operand kind sm) as move() does, Dn's new
 * value passed on to the next stencil (vout), and for (d8,As,Xi) the
 * index register's value passed in by the stencil before (xin: x): xlat.c
 * note 15. The path through the core passes nothing: the block returns
 * after it. */
XT_INLINE void move_m_d(m68k_cpu_t *c, int sz, int sm, bool nf, bool xin, uint32_t x, bool vout)
{
  bool out = false;
  uint32_t idx = sm != XO_ix ? 0 : xin ? XT_INDEX(x, xh_sxs, xh_ssc) : SIDX;
  uint32_t v = rd_at(c, opnd_addr(sm, &RSRC, HOLE32(xh_sdisp), idx), sz, &out,
                     HOLE32(xh_spc));
  if (!nf || out)
    logic_flags_sz(c, v, sz);
  uint32_t m = XT_MASK(sz), r = (RREG & ~m) | (v & m);
  __asm__("" : "+r"(r)); /* stored whole, as set_dreg does */
  RREG = r;
  if (XT_UNLIKELY(out)) {
    c->pc = NPC;
    return;
  }
  if (vout)
    xh_next_v(c, r);
  else
    xh_next(c);
}
#define XT_MV_IX(name, sz, nf)                                                               \
  void xt_##name##_o(m68k_cpu_t *c) { move_m_d(c, sz, XO_ix, nf, false, 0, true); }          \
  void xt_##name##_x(m68k_cpu_t *c, uint32_t x) { move_m_d(c, sz, XO_ix, nf, true, x, false); } \
  void xt_##name##_xo(m68k_cpu_t *c, uint32_t x) { move_m_d(c, sz, XO_ix, nf, true, x, true); }
M68K_XLAT_ACC_IX(XT_MV_IX)

/* MOVE (d8,As,Xi),Dn with Dn cached in slot k (xlat.c note 19): Dn's new
 * value into the slot, or into the CPU after a read through the core
 * (which wrote the slots back: mem_out_at), after which the block
 * returns; with xk, Xi is Dn and comes from the slot too (a pointer
 * chase: MOVE.L (A2,D0.L*4),D0). */
XT_INLINE void move_ix_c(m68k_cpu_t *c, int sz, bool nf, int k, bool xk)
{
  bool out = false;
  uint32_t old = k == 0 ? xg_c0 : xg_c1;
  uint32_t idx = xk ? XT_INDEX(old, xh_sxs, xh_ssc) : SIDX;
  uint32_t v = rd_at(c, RSRC + HOLE32(xh_sdisp) + idx, sz, &out, HOLE32(xh_spc));
  if (!nf || out)
    logic_flags_sz(c, v, sz);
  uint32_t m = XT_MASK(sz), r = (old & ~m) | (v & m);
  if (XT_UNLIKELY(out)) {
    RREG = r;
    c->pc = NPC;
    return;
  }
  if (k == 0)
    xg_c0 = r;
  else
    xg_c1 = r;
  xh_next(c);
}
#define XT_MV_IX_C(name, sz, nf)                                                             \
  void xt_##name##_d0(m68k_cpu_t *c) { move_ix_c(c, sz, nf, 0, false); }                     \
  void xt_##name##_d1(m68k_cpu_t *c) { move_ix_c(c, sz, nf, 1, false); }                     \
  void xt_##name##_xd0(m68k_cpu_t *c) { move_ix_c(c, sz, nf, 0, true); }                     \
  void xt_##name##_xd1(m68k_cpu_t *c) { move_ix_c(c, sz, nf, 1, true); }
M68K_XLAT_ACC_IX(XT_MV_IX_C)
#define XT_MV_MD(name, sz, sm, nf)                                                           \
  void xt_##name##_o(m68k_cpu_t *c) { move_m_d(c, sz, XO_##sm, nf, false, 0, true); }
M68K_XLAT_ACC_MD(XT_MV_MD)

/* alu()'s result without its flags. */
XT_INLINE uint32_t alu_value(int op, uint32_t d, uint32_t s)
{
  switch (op) {
  case XA_or: return d | s;
  case XA_and: return d & s;
  case XA_eor: return d ^ s;
  case XA_sub:
  case XA_suba: return d - s;
  case XA_add:
  case XA_adda: return d + s;
  case XA_muls:
  case XA_mulu: return d * s;
  default: return d; /* XA_cmp */
  }
}

/* The flags an operation on memory sets inline (xlat.c note 8): all it
 * writes, none (its _nf twin), or X alone (ADD's and SUB's _x twin). */
enum { XF_ALL, XF_NONE, XF_X };

/* X alone of ADD or SUB on sz bytes: d op s's carry or borrow. */
XT_INLINE uint32_t alu_x_sz(int op, uint32_t d, uint32_t s, int sz)
{
  uint32_t m = XT_MASK(sz);
  return op == XA_add ? ((d + s) & m) < (d & m) : (s & m) > (d & m);
}

/* op.L <ea>,Rn (t_alu_er, t_adda): the operand read, then the operation
 * with the flags fl asks for; left to the interpreter with An stepped
 * back when the read cannot go inline (xlat.c note 17). */
XT_INLINE void alu_er(m68k_cpu_t *c, int op, int sm, int fl)
{
  uint32_t s0 = RSRC, s;
  if (XT_UNLIKELY(!rd_inline(c, opnd_addr(sm, &RSRC, HOLE32(xh_sdisp), SIDX), 4, &s))) {
    RSRC = s0;
    to_interp(c);
    return;
  }
  if (sm == XO_pi || sm == XO_pd) /* ADDA.L (A0)+,A0: the step before Rn is read */
    __asm__ volatile("" ::: "memory");
  uint32_t d = RREG;
  if (fl == XF_X)
    c->x = alu_x_sz(op, d, s, 4);
  RREG = fl == XF_ALL ? alu(c, op, d, s) : alu_value(op, d, s);
  xh_next(c);
}
#define XT_ER(op, sm)                                                                        \
  void xt_er_##op##_##sm(m68k_cpu_t *c) { alu_er(c, XA_##op, XO_##sm, XF_ALL); }             \
  void xt_er_##op##_##sm##_nf(m68k_cpu_t *c) { alu_er(c, XA_##op, XO_##sm, XF_NONE); }
M68K_XLAT_ALU_ER(XT_ER)
#define XT_ER_X(op, sm)                                                                      \
  void xt_er_##op##_##sm##_x(m68k_cpu_t *c) { alu_er(c, XA_##op, XO_##sm, XF_X); }
M68K_XLAT_ALU_X(XT_ER_X)

/* CMP.L and CMPA.L <ea>,Rn with lazy flags (xlat.c note 13): the operand
 * read (a fault, or a read through the core, first brings lazy ones in:
 * mem_out_at), then its operands kept. */
XT_INLINE void er_lcmp(m68k_cpu_t *c, int sm, bool pass)
{
  bool out = false;
  uint32_t s = rd(c, opnd_addr(sm, &RSRC, HOLE32(xh_sdisp), SIDX), 4, &out), d = RREG;
  lz_set(c, d, s, M68K_LZ_SUB);
  if (!pass || XT_UNLIKELY(out))
    mem_next(c, out);
  else
    xh_next_ds(c, d, s);
}
/* The r ones, right before their Bcc, pass the operands on as xt_lcmpr_l
 * does. */
#define XT_ERL(op, sm)                                                                       \
  void xt_er_lcmp_##sm(m68k_cpu_t *c) { er_lcmp(c, XO_##sm, false); }                        \
  void xt_er_lcmpr_##sm(m68k_cpu_t *c) { er_lcmp(c, XO_##sm, true); }
M68K_XLAT_MEM_KINDS(XT_ERL, lcmp)

/* The flags of op on sz bytes (t_alu_re): d op s, whose result is v. */
XT_INLINE void alu_flags_sz(m68k_cpu_t *c, int op, uint32_t d, uint32_t s, uint32_t v, int sz)
{
  if (sz == 4)
    (void)alu(c, op, d, s);
  else if (op == XA_add)
    (void)m68k__add(c, d, s, sz, 0, false);
  else if (op == XA_sub)
    (void)m68k__sub(c, d, s, sz, 0, false, false);
  else
    logic_flags_sz(c, v & XT_MASK(sz), sz);
}

/* op.B, .W, .L Dn (xh_src),<ea> (t_alu_re): read, operation and the
 * flags fl asks for, store; left to the interpreter, untouched, unless
 * both the read and the store go inline (xlat.c note 17). */
XT_INLINE void alu_re(m68k_cpu_t *c, int op, int sz, int dm, int fl)
{
  uint32_t an = RREG, d;
  uint32_t a = opnd_addr(dm, &an, HOLE32(xh_ddisp), DIDX);
  if (XT_UNLIKELY(!rd_inline(c, a, sz, &d) || !wr_room(c, a, sz))) {
    to_interp(c);
    return;
  }
  if (dm == XO_pi || dm == XO_pd)
    RREG = an;
  uint32_t s = RSRC, v = alu_value(op, d, s);
  if (fl == XF_ALL)
    alu_flags_sz(c, op, d, s, v, sz);
  else if (fl == XF_X)
    c->x = alu_x_sz(op, d, s, sz);
  wr_ram(c, a, sz, v);
  xh_next(c);
}
#define XT_RE(op, dm)                                                                        \
  void xt_re_##op##_##dm(m68k_cpu_t *c) { alu_re(c, XA_##op, 4, XO_##dm, XF_ALL); }          \
  void xt_re_##op##_##dm##_nf(m68k_cpu_t *c) { alu_re(c, XA_##op, 4, XO_##dm, XF_NONE); }
M68K_XLAT_ALU_RE(XT_RE)
#define XT_RE_X(op, dm)                                                                      \
  void xt_re_##op##_##dm##_x(m68k_cpu_t *c) { alu_re(c, XA_##op, 4, XO_##dm, XF_X); }
M68K_XLAT_ALU_X(XT_RE_X)
#define XT_RE_BW(sz, op, dm)                                                                 \
  void xt_re##sz##_##op##_##dm(m68k_cpu_t *c) { alu_re(c, XA_##op, sz, XO_##dm, XF_ALL); }   \
  void xt_re##sz##_##op##_##dm##_nf(m68k_cpu_t *c) { alu_re(c, XA_##op, sz, XO_##dm, XF_NONE); }
M68K_XLAT_ALU_RE_BW(XT_RE_BW)
#define XT_RE_BW_X(sz, op, dm)                                                               \
  void xt_re##sz##_##op##_##dm##_x(m68k_cpu_t *c) { alu_re(c, XA_##op, sz, XO_##dm, XF_X); }
M68K_XLAT_ALU_RE_BW_X(XT_RE_BW_X)

/* TST.B, TST.L <ea> (with nf, the read alone unless it went through the core). */
XT_INLINE void tst(m68k_cpu_t *c, int sz, int sm, bool nf)
{
  bool out = false;
  uint32_t v = rd(c, opnd_addr(sm, &RSRC, HOLE32(xh_sdisp), SIDX), sz, &out);
  if (!nf || out)
    logic_flags_sz(c, v, sz);
  mem_next(c, out);
}
#define XT_TST(sz, sm)                                                                       \
  void xt_tst##sz##_##sm(m68k_cpu_t *c) { tst(c, sz, XO_##sm, false); }                      \
  void xt_tst##sz##_##sm##_nf(m68k_cpu_t *c) { tst(c, sz, XO_##sm, true); }
M68K_XLAT_TSTS(XT_TST)

/* The same with lazy flags (xlat.c note 13): TST's are those of the value
 * minus 0, its byte at the top for TST.B. The read comes first (a fault,
 * or a read through the core, brings lazy ones in: mem_out_at). The r
 * ones, right before their Bcc, pass the operands on as xt_lcmpr_l does. */
XT_INLINE uint32_t ltst(m68k_cpu_t *c, int sz, int sm, bool *out)
{
  uint32_t d = rd(c, opnd_addr(sm, &RSRC, HOLE32(xh_sdisp), SIDX), sz, out) << (32 - 8 * sz);
  lz_set(c, d, 0, M68K_LZ_SUB);
  return d;
}
#define XT_LTST(sz, sm)                                                                      \
  void xt_ltst##sz##_##sm(m68k_cpu_t *c)                                                     \
  {                                                                                          \
    bool out = false;                                                                        \
    (void)ltst(c, sz, XO_##sm, &out);                                                        \
    mem_next(c, out);                                                                        \
  }                                                                                          \
  void xt_ltstr##sz##_##sm(m68k_cpu_t *c)                                                    \
  {                                                                                          \
    bool out = false;                                                                        \
    uint32_t d = ltst(c, sz, XO_##sm, &out);                                                 \
    if (XT_UNLIKELY(out)) {                                                                  \
      c->pc = NPC;                                                                           \
      return;                                                                                \
    }                                                                                        \
    xh_next_ds(c, d, 0);                                                                     \
  }
M68K_XLAT_TSTS(XT_LTST)

/* LEA (d8,As,Xi),Ar: no access, so on registers alone. */
void xt_lea_ix(m68k_cpu_t *c)
{
  pure_begin(c);
  RREG = RSRC + HOLE32(xh_sdisp) + SIDX;
  pure_next(c);
}

/* JMP (d8,PC,Xi) (xh_sdisp: the PC-relative base and d8), on the 68030:
 * an even target counted and on through the return cache as RTS does;
 * an odd one (its address error at the fetch) through the handler. */
XT_INLINE void jmp_pcix(m68k_cpu_t *c, uint32_t idx)
{
  uint32_t t = HOLE32(xh_sdisp) + idx;
  if (XT_UNLIKELY(t & 1)) {
    begin(c);
    xh_handler(c, OP);
    return;
  }
  uint64_t n = c->icount + COUNT;
  c->icount = n;
  c->pc = t;
  const m68k__xlat_jc_t *j = (const m68k__xlat_jc_t *)(const void *)c->xlat + M68K_XLAT_JC_HASH(t);
  if (XT_LIKELY(j->pc == t))
    j->entry(c, n);
}
void xt_jmp_pcix(m68k_cpu_t *c)
{
  jmp_pcix(c, SIDX);
}
/* The same with the index register's value passed in (xlat.c note 15). */
void xt_jmp_pcix_x(m68k_cpu_t *c, uint32_t x)
{
  jmp_pcix(c, XT_INDEX(x, xh_sxs, xh_ssc));
}

/* Branches cannot fault (xlat.c picks even targets) nor change anything
 * the loop looks at: like the instructions on registers they leave ppc,
 * ir and the PC. Taken: counted (COUNT: this one and those on registers
 * before it), on at TARGET through the exit the chain put at xh_taken,
 * which sets the PC. Not taken: on with the next instruction, which
 * counts this one. */
XT_INLINE void taken(m68k_cpu_t *c)
{
  uint64_t n = c->icount + COUNT;
  c->icount = n;
  xh_taken(c, n);
}

XT_INLINE void not_taken(m68k_cpu_t *c)
{
  xh_next(c);
}

/* The same in a cached loop (xlat.c note 19): counted in xg_ic alone; a
 * branch out of the loop goes through a spill, which stores it. */
XT_INLINE void taken_k(m68k_cpu_t *c)
{
  (void)c;
  uint64_t n = xg_ic + COUNT;
  xg_ic = n;
  xh_taken(c, n);
}

/* BRA to TARGET. */
void xt_bra(m68k_cpu_t *c)
{
  taken(c);
}
void xt_bra_k(m68k_cpu_t *c)
{
  taken_k(c);
}

/* Scc Dn, Bcc and DBcc, one stencil per condition so that it is folded in.
 * DBcc: the condition true falls through; false decrements the low word
 * of Dn (xh_reg) and branches unless it went to -1 (cpu-ops.c t_dbcc). */
#define XT_CC(cc)                                                                            \
  void xt_scc##cc(m68k_cpu_t *c) /* Scc Dn: reads the flags, so not on registers alone */    \
  {                                                                                          \
    RREG = (RREG & 0xffffff00u) | (m68k__cc(c, cc) ? 0xffu : 0);                             \
    xh_next(c);                                                                              \
  }                                                                                          \
  void xt_bcc##cc(m68k_cpu_t *c)                                                             \
  {                                                                                          \
    if (m68k__cc(c, cc))                                                                     \
      taken(c);                                                                              \
    else                                                                                     \
      not_taken(c);                                                                          \
  }                                                                                          \
  void xt_bcc##cc##_k(m68k_cpu_t *c)                                                         \
  {                                                                                          \
    if (m68k__cc(c, cc))                                                                     \
      taken_k(c);                                                                            \
    else                                                                                     \
      not_taken(c);                                                                          \
  }                                                                                          \
  void xt_dbcc##cc(m68k_cpu_t *c)                                                            \
  {                                                                                          \
    if (!m68k__cc(c, cc)) {                                                                  \
      uint32_t cnt = (RREG - 1) & 0xffff;                                               \
      RREG = (RREG & 0xffff0000u) | cnt;                                           \
      if (cnt != 0xffff) {                                                                   \
        taken(c);                                                                            \
        return;                                                                              \
      }                                                                                      \
    }                                                                                        \
    not_taken(c);                                                                            \
  }
/* Bcc after a lazy CMP.L or SUB.L in the same block (xlat.c note 13):
 * the condition on the operands, as the host compares them. */
XT_INLINE bool lz_cc(uint32_t d, uint32_t s, int cc)
{
  int32_t sd = (int32_t)d, ss = (int32_t)s;
  int32_t r;
  switch (cc) {
  case 2: return d > s;
  case 3: return d <= s;
  case 4: return d >= s;
  case 5: return d < s;
  case 6: return d != s;
  case 7: return d == s;
  case 8: return !__builtin_sub_overflow(sd, ss, &r);
  case 9: return __builtin_sub_overflow(sd, ss, &r);
  case 10: return (int32_t)(d - s) >= 0;
  case 11: return (int32_t)(d - s) < 0;
  case 12: return sd >= ss;
  case 13: return sd < ss;
  case 14: return sd > ss;
  default: return sd <= ss;
  }
}

#define XT_LCC(cc)                                                                           \
  void xt_lbcc##cc(m68k_cpu_t *c)                                                            \
  {                                                                                          \
    if (lz_cc(c->lz_d, c->lz_s, cc))                                                         \
      taken(c);                                                                              \
    else                                                                                     \
      not_taken(c);                                                                          \
  }                                                                                          \
  void xt_lbccr##cc(m68k_cpu_t *c, uint32_t d, uint32_t s) /* after an XT_DS */              \
  {                                                                                          \
    if (lz_cc(d, s, cc))                                                                     \
      taken(c);                                                                              \
    else                                                                                     \
      not_taken(c);                                                                          \
  }                                                                                          \
  void xt_lbcc##cc##_k(m68k_cpu_t *c)                                                        \
  {                                                                                          \
    if (lz_cc(c->lz_d, c->lz_s, cc))                                                         \
      taken_k(c);                                                                            \
    else                                                                                     \
      not_taken(c);                                                                          \
  }                                                                                          \
  void xt_lbccr##cc##_k(m68k_cpu_t *c, uint32_t d, uint32_t s)                               \
  {                                                                                          \
    if (lz_cc(d, s, cc))                                                                     \
      taken_k(c);                                                                            \
    else                                                                                     \
      not_taken(c);                                                                          \
  }
XT_LCC(2)
XT_LCC(3)
XT_LCC(4)
XT_LCC(5)
XT_LCC(6)
XT_LCC(7)
XT_LCC(8)
XT_LCC(9)
XT_LCC(10)
XT_LCC(11)
XT_LCC(12)
XT_LCC(13)
XT_LCC(14)
XT_LCC(15)

XT_CC(0)
XT_CC(1)
XT_CC(2)
XT_CC(3)
XT_CC(4)
XT_CC(5)
XT_CC(6)
XT_CC(7)
XT_CC(8)
XT_CC(9)
XT_CC(10)
XT_CC(11)
XT_CC(12)
XT_CC(13)
XT_CC(14)
XT_CC(15)

XT_INLINE void clr_l_d16(m68k_cpu_t *c, bool nf) /* CLR.L (IMM,Ar): the 68030 does not read it */
{
  if (!wr_flagged(c, RREG + IMM, 4, 0, nf))
    xh_next(c);
}
void xt_clr_l_d16(m68k_cpu_t *c) { clr_l_d16(c, false); }
void xt_clr_l_d16_nf(m68k_cpu_t *c) { clr_l_d16(c, true); }

/* BSR, JSR to a known address (TARGET, even; xlat.c picks them, on the
 * 68030 only): the return address (NPC) pushed inline when the stack is
 * RAM outside translated pages, then on at TARGET through the chained exit
 * at xh_taken, counted like a taken branch. Any other push goes through
 * the instruction's handler, exactly as in the interpreter (a device, a
 * bus error, a store into translated code), and the block returns to the
 * loop after it. */
void xt_call(m68k_cpu_t *c)
{
  uint32_t sp = c->r[15] - 4;
  if (XT_LIKELY(wr_inline(c, sp, 4, NPC))) {
    c->r[15] = sp;
    taken(c);
    return;
  }
  begin(c);
  xh_handler(c, OP);
}

/* PEA (Ar) and (d16,Ar) (xh_src: Ar, IMM: d16; on the 68030 only, xlat.c
 * picks them): the address pushed inline when the stack is RAM outside
 * translated pages, the instruction left to count like one on registers;
 * any other push goes through the handler, exactly as in the interpreter,
 * and the block returns to the loop after it. No flags. */
void xt_pea(m68k_cpu_t *c)
{
  uint32_t sp = c->r[15] - 4;
  if (XT_LIKELY(wr_inline(c, sp, 4, RSRC + IMM))) {
    c->r[15] = sp;
    xh_next(c);
    return;
  }
  begin(c);
  xh_handler(c, OP);
}

/* RTS (on the 68030; xlat.c note 10): the return address popped inline
 * when the stack is RAM and the address even, counted, and on straight
 * into the live block there when the return cache has it (its entry checks
 * the budget, as a chained exit's does), else back to
 * the loop with the PC. Any other pop goes through the handler. */
XT_INLINE void rts(m68k_cpu_t *c, uint32_t sp)
{
  if (XT_LIKELY(ram_off(c, sp) < c->ram_lim4)) {
    const uint8_t *p = ram_at(c, sp);
    uint32_t ret = m68k__be32(p);
    if (XT_LIKELY(!(ret & 1))) {
      c->r[15] = sp + 4;
      uint64_t n = c->icount + COUNT;
      c->icount = n;
      c->pc = ret;
      const m68k__xlat_jc_t *j = (const m68k__xlat_jc_t *)(const void *)c->xlat +
                                 M68K_XLAT_JC_HASH(ret);
      if (XT_LIKELY(j->pc == ret))
        j->entry(c, n);
      return;
    }
  }
  begin(c);
  xh_handler(c, OP);
}
void xt_rts(m68k_cpu_t *c)
{
  rts(c, c->r[15]);
}
/* The same with A7's value from the stencil before (xlat.c note 15: a
 * MOVEM.L (A7)+ or LEA (d16,A7),A7 restoring a frame). */
void xt_rts_i(m68k_cpu_t *c, uint32_t sp)
{
  rts(c, sp);
}

/* MOVEM.L to -(Ar) and from (Ar)+ of k registers (xh_reg: Ar, not in the
 * list), on the 68030 only: one stencil per k, unrolled, xh_m<j> the
 * offset in the CPU of the register at the list's j-th long (the
 * registers by number, lowest at the lowest address, for either
 * direction). Inline when every byte is RAM (and, for the store, outside
 * translated pages), the instruction left to count like one on registers;
 * else the handler runs it exactly as the interpreter does (a device, a
 * bus error, a store into translated code) and the block returns to the
 * loop after it. Inline, the order of the registers' accesses is not
 * seen: none can fault, and Ar is not in the list. */
extern char xh_m0[1], xh_m1[1], xh_m2[1], xh_m3[1], xh_m4[1], xh_m5[1], xh_m6[1], xh_m7[1];
extern char xh_m8[1], xh_m9[1], xh_m10[1], xh_m11[1], xh_m12[1], xh_m13[1], xh_m14[1];
#define MREG(j) CREG(xh_m##j)
/* f(j) for the list's first k longs. */
#define XT_MOVEM_EACH(k, f)                                                    \
  do {                                                                       \
    f(0); if ((k) > 1) f(1); if ((k) > 2) f(2); if ((k) > 3) f(3);           \
    if ((k) > 4) f(4); if ((k) > 5) f(5); if ((k) > 6) f(6);                 \
    if ((k) > 7) f(7); if ((k) > 8) f(8); if ((k) > 9) f(9);                 \
    if ((k) > 10) f(10); if ((k) > 11) f(11); if ((k) > 12) f(12);           \
    if ((k) > 13) f(13); if ((k) > 14) f(14);                                \
  } while (0)

XT_INLINE bool movem_inline(const m68k_cpu_t *c, uint32_t a, bool store, uint32_t bytes)
{
  uint32_t off = ram_off(c, a);
  /* At most 60 bytes: the first byte's page and the next at most, which
   * the store map's WR_LONG covers (xlat.c note 14). */
  if (store)
    return xg_wrmap[a >> M68K_XLAT_PAGE_SHIFT] & M68K_XLAT_WR_LONG;
  return off < c->ram_size && c->ram_size - off >= bytes;
}

XT_INLINE void movem_slow(m68k_cpu_t *c)
{
  begin(c);
  xh_handler(c, OP);
}

/* A long at p, big-endian, in one store. */
XT_INLINE void st_be32(uint8_t *p, uint32_t v)
{
  v = __builtin_bswap32(v);
  __builtin_memcpy(p, &v, 4);
}

/* MOVEM.L list,-(Ar) with Ar's value ar; out: Ar's new value handed to
 * the next stencil as well (xlat.c note 15). */
XT_INLINE void movem_st_pd(m68k_cpu_t *c, uint32_t k, uint32_t ar, bool out)
{
  uint32_t lo = ar - 4 * k;
  if (XT_UNLIKELY(!movem_inline(c, lo, true, 4 * k))) {
    movem_slow(c);
    return;
  }
  uint8_t *p = ram_at(c, lo);
#define ST(j) st_be32(p + 4 * (j), MREG(j))
  XT_MOVEM_EACH(k, ST);
#undef ST
  RREG = lo;
  if (out)
    xh_next_v(c, lo);
  else
    xh_next(c);
}

/* MOVEM.L (Ar)+,list, the same way. */
XT_INLINE void movem_ld_pi(m68k_cpu_t *c, uint32_t k, uint32_t a, bool out)
{
  if (XT_UNLIKELY(!movem_inline(c, a, false, 4 * k))) {
    movem_slow(c);
    return;
  }
  const uint8_t *p = ram_at(c, a);
#define LD(j) MREG(j) = m68k__be32(p + 4 * (j))
  XT_MOVEM_EACH(k, LD);
#undef LD
  RREG = a + 4 * k;
  if (out)
    xh_next_v(c, a + 4 * k);
  else
    xh_next(c);
}

/* Each with the variants of note 15: Ar's value from the stencil before
 * (_i), its new value to the next (_o), both (_io). A function's frame
 * (LEA (d16,A7),A7 next to MOVEM.L, then RTS) passes A7 along that way. */
#define XT_MOVEM_DIR(name, k)                                                  \
  void xt_##name##k(m68k_cpu_t *c) { name(c, k, RREG, false); }              \
  void xt_##name##k##_o(m68k_cpu_t *c) { name(c, k, RREG, true); }           \
  void xt_##name##k##_i(m68k_cpu_t *c, uint32_t v) { name(c, k, v, false); } \
  void xt_##name##k##_io(m68k_cpu_t *c, uint32_t v) { name(c, k, v, true); }
#define XT_MOVEM(k) XT_MOVEM_DIR(movem_st_pd, k) XT_MOVEM_DIR(movem_ld_pi, k)
XT_MOVEM(1) XT_MOVEM(2) XT_MOVEM(3) XT_MOVEM(4) XT_MOVEM(5) XT_MOVEM(6) XT_MOVEM(7) XT_MOVEM(8)
XT_MOVEM(9) XT_MOVEM(10) XT_MOVEM(11) XT_MOVEM(12) XT_MOVEM(13) XT_MOVEM(14) XT_MOVEM(15)

/* FMOVE, FADD, FSUB, FMUL, FDIV, FCMP, FTST into FPn on the 68030 (xlat.c
 * note 12): IMM is m68k__fpu_fast's `how`, the source an FP register or
 * an immediate (xh_sdisp: its number or its bits), Dn (xh_src) or memory
 * in RAM read inline. The fast path changes nothing the loop looks at and
 * cannot trap (the FPCR's default enables no exception), so it counts and
 * goes on; when it declines, nothing has changed and the handler runs the
 * instruction as xt_insn does. */
XT_INLINE bool fop_fast(m68k_cpu_t *c, uint64_t bits)
{
  if (XT_LIKELY(m68k__fpu_fast(c, IMM, bits, PC))) {
    c->icount += COUNT;
    return true;
  }
  return false;
}

/* The instruction on the source `bits`, or by its handler. */
XT_INLINE void fop(m68k_cpu_t *c, uint64_t bits)
{
  if (fop_fast(c, bits))
    xh_next(c);
  else
    by_handler(c);
}

void xt_fop_k(m68k_cpu_t *c) { fop(c, (uint64_t)(uintptr_t)xh_sdisp); }
void xt_fop_dn(m68k_cpu_t *c) { fop(c, RSRC); }

/* sz bytes (4 or 8) of RAM at a, big-endian, into *v; false elsewhere. */
XT_INLINE bool rd_ram(const m68k_cpu_t *c, uint32_t a, int sz, uint64_t *v)
{
  uint32_t off = ram_off(c, a);
  if (XT_UNLIKELY(off >= c->ram_lim4 || (sz == 8 && c->ram_lim4 - off <= 4)))
    return false;
  const uint8_t *p = ram_at(c, a);
  *v = sz == 8 ? (uint64_t)m68k__be32(p) << 32 | m68k__be32(p + 4) : m68k__be32(p);
  return true;
}

/* An (An)+ or -(An) stepped for the read is stepped back when the handler
 * must run the instruction from the start. */
#define XT_FOP(sz, sm)                                                                       \
  void xt_fop##sz##_##sm(m68k_cpu_t *c)                                                      \
  {                                                                                          \
    uint32_t an = RSRC;                                                                      \
    uint64_t v;                                                                              \
    if (XT_LIKELY(rd_ram(c, opnd_addr(XO_##sm, &RSRC, HOLE32(xh_sdisp), SIDX), sz, &v)) &&   \
        fop_fast(c, v)) {                                                                    \
      xh_next(c);                                                                            \
      return;                                                                                \
    }                                                                                        \
    RSRC = an;                                                                               \
    by_handler(c);                                                                             \
  }
M68K_XLAT_FOPS(XT_FOP)
