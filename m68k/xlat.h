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
 * target, or where the block's straight-line code ends): a jump in the
 * block's code (`site`: the offset of its 32-bit displacement), patched to
 * the entry of the block chained there, or back to `home` (the offset of
 * the exit's xt_unchained) while there is none (xlat.c note 3). */
typedef struct m68k__xlat_exit {
  uint32_t target;
  uint32_t site, home;
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
 * xt_er_<op>_<source> for OR, AND, SUB, ADD, CMP (CMPA too) .L <ea>,Rn,
 * ADDA, SUBA .L <ea>,An and MULS.L, MULU.L <ea>,Dl (the 32-bit product); xt_re_<op>_<destination> for OR, AND, SUB, ADD,
 * EOR .L Dn,<ea>; xt_tst<size>_<source> for TST.B and TST.L <ea>. */
enum { XA_or, XA_and, XA_sub, XA_add, XA_cmp, XA_adda, XA_suba, XA_eor, XA_muls, XA_mulu, XA_N };
#define M68K_XLAT_MEM_KINDS(X, a) X(a, ai) X(a, pi) X(a, pd) X(a, d16) X(a, ix) X(a, abs)
/* X(operation or size, operand kind) for every stencil of each family. */
#define M68K_XLAT_ALU_ER(X)                                                                  \
  M68K_XLAT_MEM_KINDS(X, or) M68K_XLAT_MEM_KINDS(X, and) M68K_XLAT_MEM_KINDS(X, sub)         \
  M68K_XLAT_MEM_KINDS(X, add) M68K_XLAT_MEM_KINDS(X, cmp) M68K_XLAT_MEM_KINDS(X, adda)       \
  M68K_XLAT_MEM_KINDS(X, suba) M68K_XLAT_MEM_KINDS(X, muls) M68K_XLAT_MEM_KINDS(X, mulu)
#define M68K_XLAT_ALU_RE(X)                                                                  \
  M68K_XLAT_MEM_KINDS(X, or) M68K_XLAT_MEM_KINDS(X, and) M68K_XLAT_MEM_KINDS(X, sub)         \
  M68K_XLAT_MEM_KINDS(X, add) M68K_XLAT_MEM_KINDS(X, eor)
#define M68K_XLAT_TSTS(X) M68K_XLAT_MEM_KINDS(X, 1) M68K_XLAT_MEM_KINDS(X, 4)
/* ADD and SUB of both families have a twin setting X alone (xlat.c note
 * 8): xt_er_<op>_<source>_x, xt_re_<op>_<destination>_x and, .B and .W,
 * xt_re<size>_<op>_<destination>_x. */
#define M68K_XLAT_ALU_X(X) M68K_XLAT_MEM_KINDS(X, sub) M68K_XLAT_MEM_KINDS(X, add)
/* xt_re<size>_<op>_<destination> for OR, AND, SUB, ADD, EOR .B and .W
 * Dn,<ea>: X(size, operation, operand kind). */
#define M68K_XLAT_RE_KINDS(X, sz, a)                                                         \
  X(sz, a, ai) X(sz, a, pi) X(sz, a, pd) X(sz, a, d16) X(sz, a, ix) X(sz, a, abs)
#define M68K_XLAT_ALU_RE_SZ(X, sz)                                                           \
  M68K_XLAT_RE_KINDS(X, sz, or) M68K_XLAT_RE_KINDS(X, sz, and) M68K_XLAT_RE_KINDS(X, sz, sub) \
  M68K_XLAT_RE_KINDS(X, sz, add) M68K_XLAT_RE_KINDS(X, sz, eor)
#define M68K_XLAT_ALU_RE_BW(X) M68K_XLAT_ALU_RE_SZ(X, 1) M68K_XLAT_ALU_RE_SZ(X, 2)
#define M68K_XLAT_ALU_RE_BW_X(X)                                                             \
  M68K_XLAT_RE_KINDS(X, 1, sub) M68K_XLAT_RE_KINDS(X, 1, add) M68K_XLAT_RE_KINDS(X, 2, sub)  \
  M68K_XLAT_RE_KINDS(X, 2, add)
/* The 68030's FPU operations from memory (xlat.c note 12): xt_fop<size>_<source>
 * for a long or single (4) or a double (8). */
#define M68K_XLAT_FOPS(X) M68K_XLAT_MEM_KINDS(X, 4) M68K_XLAT_MEM_KINDS(X, 8)

/* Long operations setting one register (xlat.c note 15): X(name) for
 * xt_<name>, which loads the register, and its variants by the way its
 * value comes in and goes out: xt_<name>_i takes it from the stencil
 * before, xt_<name>_o hands the new value to the next, _io both.
 * M68K_XLAT_ACC_RW's have all four, M68K_XLAT_ACC_W's (which do not read
 * the register) _o alone, M68K_XLAT_ACC_IN's (compares and SUBs handing
 * their operands to a Bcc, note 13) _i alone. */
#define M68K_XLAT_ACC_RW(X)                                                                  \
  X(adda_l) X(suba_l) X(adda_w) X(adda_i) X(add_l) X(sub_l) X(addi_l) X(subi_l) X(ladd_l)    \
  X(laddi_l) X(lsub_l) X(lsubi_l) X(and_l) X(or_l) X(eor_l) X(clr_bw) X(lsl_l_i) X(lsr_l_i)  \
  X(asr_l_i) X(lsl_l_i_nf) X(lsr_l_i_nf) X(asr_l_i_nf) X(lsl_l_r) X(lsr_l_r) X(asr_l_r)      \
  X(lsl_l_r_nf) X(lsr_l_r_nf) X(asr_l_r_nf) X(or_i) X(and_i) X(eor_i) X(or_i_nf) X(and_i_nf) \
  X(eor_i_nf) X(neg_l) X(neg_l_nf) X(swap) X(swap_nf) X(ext_l) X(ext_l_nf) X(extb_l)        \
  X(extb_l_nf) X(muls_l_i) X(mulu_l_i) X(muls_l_r) X(mulu_l_r) X(mul_l_i_nf) X(mul_l_r_nf)   \
  X(and_l_nf) X(or_l_nf) X(eor_l_nf) X(add_l_x) X(sub_l_x) X(addi_l_x) X(subi_l_x)
#define M68K_XLAT_ACC_W(X) X(moveq) X(seti) X(clr_l)
/* Those of M68K_XLAT_ACC_RW with a source register (xh_src), which have
 * variants reading it from a loop's slot (xlat.c note 19). */
#define M68K_XLAT_ACC_RS(X)                                                                  \
  X(adda_l) X(suba_l) X(adda_w) X(add_l) X(sub_l) X(ladd_l) X(lsub_l) X(and_l) X(or_l)       \
  X(eor_l) X(lsl_l_r) X(lsr_l_r) X(asr_l_r) X(lsl_l_r_nf) X(lsr_l_r_nf) X(asr_l_r_nf)        \
  X(muls_l_r) X(mulu_l_r) X(mul_l_r_nf) X(and_l_nf) X(or_l_nf) X(eor_l_nf) X(add_l_x)        \
  X(sub_l_x)
/* Moves from Rs (xh_src) into Rn: xt_<name>_i and _io take Rs's value
 * from the stencil before. Every one of these lists' stencils but the
 * _i ones of M68K_XLAT_ACC_IN has a pass-through twin too, xt_<name>_p,
 * which hands on the value it was given, another register's, untouched. */
#define M68K_XLAT_ACC_S(X) X(move_l) X(movea_l) X(movea_w) X(lea_d16)
/* MOVE (d8,As,Xi),Dn, whose index register's value may come in from the
 * stencil before (_x), and Dn's go out (_o; both _xo): X(name, size, nf). */
#define M68K_XLAT_ACC_IX(X)                                                                  \
  X(mv1_ix_d, 1, false) X(mv1_ix_d_nf, 1, true) X(mv2_ix_d, 2, false)                        \
  X(mv2_ix_d_nf, 2, true) X(mv4_ix_d, 4, false) X(mv4_ix_d_nf, 4, true)
/* MOVE <ea>,Dn from memory ((An), (An)+, -(An), (d16,An), an address),
 * which hand Dn's new value on (_o): X(name, size, operand kind, nf). */
#define M68K_XLAT_MD_OF(X, sz, sm) X(mv##sz##_##sm##_d, sz, sm, false) X(mv##sz##_##sm##_d_nf, sz, sm, true)
#define M68K_XLAT_MD_SZ(X, sz)                                                               \
  M68K_XLAT_MD_OF(X, sz, ai) M68K_XLAT_MD_OF(X, sz, pi) M68K_XLAT_MD_OF(X, sz, pd)            \
  M68K_XLAT_MD_OF(X, sz, d16) M68K_XLAT_MD_OF(X, sz, abs)
#define M68K_XLAT_ACC_MD(X) M68K_XLAT_MD_SZ(X, 1) M68K_XLAT_MD_SZ(X, 2) M68K_XLAT_MD_SZ(X, 4)
/* The stencils on registers that write none (compares, tests, the lazy
 * flags' own): X(name) for xt_<name> and its pass-through twin
 * xt_<name>_p. */
#define M68K_XLAT_NOREG(X)                                                                   \
  X(lcmp_l) X(lcmpi_l) X(lz_clear) X(lz_sync) X(tst_l) X(tst_b) X(cmpi_b) X(nop) X(ltst_l)    \
  X(ltst_b) X(lcmpi_b)
#define M68K_XLAT_ACC_IN(X)                                                                  \
  X(lcmpr_l) X(lcmpir_l) X(lcmpir_b) X(lsubr_l) X(lsubir_l) X(ltstr_l) X(ltstr_b)

#endif /* QUA_M68K_XLAT_H */
