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
 *   xh_reg     a register number                  xh_imm     an immediate
 *   xh_exit    the block's exit record (m68k__xlat_exit_t) for a target
 *   xh_handler the interpreter's handler of the instruction (called)
 *   xh_next    the next stencil of the block      xh_taken   a taken branch's exit
 *
 * A stencil stops (returns) after its instruction whenever the interpreter
 * would stop or look at something between instructions: something pending,
 * the instruction budget (xlat_end) spent, a store into translated code
 * (xlat_dirty), or the PC not where the block goes on (an exception, a
 * jump the handler made).
 */
#include "m68k-internal.h"
#include "xlat.h"

extern char xh_pc[], xh_op[], xh_npc[], xh_target[], xh_reg[], xh_imm[], xh_exit[];
extern void xh_handler(m68k_cpu_t *c, uint32_t op);
extern void xh_next(m68k_cpu_t *c);
extern void xh_taken(m68k_cpu_t *c);

#define PC ((uint32_t)(uintptr_t)xh_pc)
#define OP ((uint32_t)(uintptr_t)xh_op)
#define NPC ((uint32_t)(uintptr_t)xh_npc)
#define TARGET ((uint32_t)(uintptr_t)xh_target)
#define REG ((unsigned)(uintptr_t)xh_reg)
#define IMM ((uint32_t)(uintptr_t)xh_imm)
#define EXIT ((m68k__xlat_exit_t *)(uintptr_t)xh_exit)

#define XT_INLINE static inline __attribute__((always_inline))
#define XT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The interpreter's dispatch of the instruction at PC (cpu-ops.c
 * M68K_DISPATCH): counted, the 68000's address-error bookkeeping reset,
 * its first word fetched. */
XT_INLINE void begin(m68k_cpu_t *c)
{
  c->icount++;
  c->ae_adj = 0;
  c->ae_prog = false;
  c->ae_undo = 0;
  c->ppc = PC;
  c->pc = PC + 2;
  c->ir = OP;
}

/* Must the block return to xlat.c's loop after this instruction? */
XT_INLINE bool stop_here(const m68k_cpu_t *c)
{
  return XT_UNLIKELY(c->pending | c->xlat_dirty | (c->icount >= c->xlat_end));
}

/* Any instruction: its handler, called. The block goes on only when the PC
 * is where the translator expected it (no exception, no jump taken). */
void xt_insn(m68k_cpu_t *c)
{
  begin(c);
  xh_handler(c, OP);
  if (XT_UNLIKELY(c->pc != NPC) || stop_here(c))
    return;
  xh_next(c);
}

/* An instruction that ends the block (a jump, return, trap...): its
 * handler, then back to the loop, which finds the block at the new PC. */
void xt_last(m68k_cpu_t *c)
{
  begin(c);
  xh_handler(c, OP);
}

/* The end of a block that goes on at TARGET: straight into the block
 * chained there (the exit's entry, which xlat.c fills in), or back to the
 * loop. The instruction before has already checked stop_here. */
void xt_exit(m68k_cpu_t *c)
{
  m68k__xlat_exit_t *e = EXIT;
  c->pc = TARGET;
  c->xlat_last = e;
  void (*entry)(m68k_cpu_t *) = e->entry;
  if (entry)
    entry(c);
}

/* MOVEQ #IMM,D(REG): the flags of a constant are constants. */
void xt_moveq(m68k_cpu_t *c)
{
  begin(c);
  c->r[REG] = IMM;
  c->n = IMM;
  c->nz = IMM;
  c->v = 0;
  c->c = 0;
  if (stop_here(c))
    return;
  xh_next(c);
}

/* The branch is taken: on at TARGET, through the exit the chain put at
 * xh_taken. */
XT_INLINE void taken(m68k_cpu_t *c)
{
  c->pc = TARGET;
  if (stop_here(c))
    return;
  xh_taken(c);
}

/* Not taken: on with the next instruction. */
XT_INLINE void not_taken(m68k_cpu_t *c)
{
  c->pc = NPC;
  if (stop_here(c))
    return;
  xh_next(c);
}

/* BRA to TARGET (even: the 68000's odd-target fault stays with xt_insn). */
void xt_bra(m68k_cpu_t *c)
{
  begin(c);
  taken(c);
}

/* Bcc and DBcc, one stencil per condition so that it is folded in.
 * DBcc: the condition true falls through; false decrements the low word
 * of D(REG) and branches unless it went to -1 (cpu-ops.c t_dbcc). */
#define XT_CC(cc)                                                                            \
  void xt_bcc##cc(m68k_cpu_t *c)                                                             \
  {                                                                                          \
    begin(c);                                                                                \
    if (m68k__cc(c, cc))                                                                     \
      taken(c);                                                                              \
    else                                                                                     \
      not_taken(c);                                                                          \
  }                                                                                          \
  void xt_dbcc##cc(m68k_cpu_t *c)                                                            \
  {                                                                                          \
    begin(c);                                                                                \
    if (!m68k__cc(c, cc)) {                                                                  \
      uint32_t cnt = (c->r[REG] - 1) & 0xffff;                                               \
      c->r[REG] = (c->r[REG] & 0xffff0000u) | cnt;                                           \
      if (cnt != 0xffff) {                                                                   \
        taken(c);                                                                            \
        return;                                                                              \
      }                                                                                      \
    }                                                                                        \
    not_taken(c);                                                                            \
  }
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
