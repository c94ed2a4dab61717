/* xlat.h -- the translator's records shared by xlat.c and its stencils (xlat-templates.c). */
#ifndef QUA_M68K_XLAT_H
#define QUA_M68K_XLAT_H

#include <stdint.h>

struct m68k_cpu;
struct m68k__xlat_block;

/* A translated block's entry: called with the CPU and its instruction
 * count (icount as just stored), which it checks against the budget
 * without loading it again (xlat.c note 6). */
typedef void (*m68k__xlat_entry_t)(struct m68k_cpu *c, uint64_t icount);

/* One exit of a translated block to a known guest address (a branch
 * target, or where the block's straight-line code ends). `entry` is the
 * code of the block chained there, or NULL while there is none: the
 * exit's stencil jumps through it (xlat.c note 3). */
typedef struct m68k__xlat_exit {
  m68k__xlat_entry_t entry;
  uint32_t target;
  struct m68k__xlat_block *from; /* the block this exit ends */
  struct m68k__xlat_block *to;   /* the block chained to, or NULL */
  struct m68k__xlat_exit *next_in; /* the next exit chained to `to` */
} m68k__xlat_exit_t;

/* The return cache (xlat.c note 10): direct-mapped by M68K_XLAT_JC_HASH
 * from a guest PC to the entry of the live block there; `pc` is odd (never
 * an RTS's target) where the slot is empty. It is the first member of the
 * translator, so that the stencils reach it through the CPU's `xlat`. */
#define M68K_XLAT_JC 1024 /* slots (a power of 2) */
#define M68K_XLAT_JC_HASH(pc) (((pc) >> 1) & (M68K_XLAT_JC - 1))

typedef struct m68k__xlat_jc {
  uint32_t pc;
  m68k__xlat_entry_t entry;
} m68k__xlat_jc_t;

/* The 68030's MOVE family (xlat.c note 11): one stencil per size and pair
 * of operand kinds, xt_mv<size>_<source>_<destination>. A source is a
 * register (r) or memory: (An) ai, (An)+ pi, -(An) pd, (d16,An) d16,
 * (d8,An,Xi) ix, or an address known when translating (abs: abs.W, abs.L,
 * (d16,PC)); a destination a data register (d), an address register (a:
 * MOVEA) or memory, as a source. */
enum { XO_r, XO_d, XO_a, XO_ai, XO_pi, XO_pd, XO_d16, XO_ix, XO_abs, XO_N };

#define M68K_XLAT_MV_SRCS(X, sz, dm)                                                         \
  X(sz, r, dm) X(sz, ai, dm) X(sz, pi, dm) X(sz, pd, dm) X(sz, d16, dm) X(sz, ix, dm)         \
  X(sz, abs, dm)
#define M68K_XLAT_MV_DSTS(X, sz)                                                             \
  M68K_XLAT_MV_SRCS(X, sz, d) M68K_XLAT_MV_SRCS(X, sz, a) M68K_XLAT_MV_SRCS(X, sz, ai)       \
  M68K_XLAT_MV_SRCS(X, sz, pi) M68K_XLAT_MV_SRCS(X, sz, pd) M68K_XLAT_MV_SRCS(X, sz, d16)    \
  M68K_XLAT_MV_SRCS(X, sz, ix) M68K_XLAT_MV_SRCS(X, sz, abs)
/* X(size, source, destination) for every stencil of the family. */
#define M68K_XLAT_MOVES(X) M68K_XLAT_MV_DSTS(X, 1) M68K_XLAT_MV_DSTS(X, 2) M68K_XLAT_MV_DSTS(X, 4)

/* The 68030's long operations with a memory operand (xlat.c note 11):
 * xt_er_<op>_<source> for OR, AND, SUB, ADD, CMP (CMPA too) .L <ea>,Rn and
 * ADDA, SUBA .L <ea>,An; xt_re_<op>_<destination> for OR, AND, SUB, ADD,
 * EOR .L Dn,<ea>; xt_tst<size>_<source> for TST.B and TST.L <ea>. */
enum { XA_or, XA_and, XA_sub, XA_add, XA_cmp, XA_adda, XA_suba, XA_eor, XA_N };
#define M68K_XLAT_MEM_KINDS(X, a) X(a, ai) X(a, pi) X(a, pd) X(a, d16) X(a, ix) X(a, abs)
/* X(operation or size, operand kind) for every stencil of each family. */
#define M68K_XLAT_ALU_ER(X)                                                                  \
  M68K_XLAT_MEM_KINDS(X, or) M68K_XLAT_MEM_KINDS(X, and) M68K_XLAT_MEM_KINDS(X, sub)         \
  M68K_XLAT_MEM_KINDS(X, add) M68K_XLAT_MEM_KINDS(X, cmp) M68K_XLAT_MEM_KINDS(X, adda)       \
  M68K_XLAT_MEM_KINDS(X, suba)
#define M68K_XLAT_ALU_RE(X)                                                                  \
  M68K_XLAT_MEM_KINDS(X, or) M68K_XLAT_MEM_KINDS(X, and) M68K_XLAT_MEM_KINDS(X, sub)         \
  M68K_XLAT_MEM_KINDS(X, add) M68K_XLAT_MEM_KINDS(X, eor)
#define M68K_XLAT_TSTS(X) M68K_XLAT_MEM_KINDS(X, 1) M68K_XLAT_MEM_KINDS(X, 4)
/* The 68030's FPU operations from memory (xlat.c note 12): xt_fop<size>_<source>
 * for a long or single (4) or a double (8). */
#define M68K_XLAT_FOPS(X) M68K_XLAT_MEM_KINDS(X, 4) M68K_XLAT_MEM_KINDS(X, 8)

#endif /* QUA_M68K_XLAT_H */
