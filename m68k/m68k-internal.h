/* m68k-internal.h -- the CPU core's private state, memory access and helpers.
 *
 * Design notes
 *
 * 1. Condition codes are kept apart, not packed in SR: x, v and c are 0/1,
 *    n has the N flag in bit 31, and nz is zero exactly when Z is set. An
 *    operation stores its (masked) result into nz and the result shifted to
 *    bit 31 into n, which costs a store each and no branch. SR is packed only
 *    when read (m68k__get_sr).
 * 2. Memory is reached through m68k__rd8/16/32 and m68k__wr8/16/32. The RAM
 *    window (bus->ram) is accessed directly; everything else goes through the
 *    bus functions. The 68000 masks addresses to 24 bits and raises an address
 *    error on an odd word or long access (align_mask = 1); the 68030 does
 *    neither (addr_mask = ~0, align_mask = 0).
 * 3. Group 0 exceptions (bus and address error) and exceptions in the middle
 *    of an instruction leave it through longjmp to m68k_run's jmp_buf; the
 *    exception frame is built before the jump. Nothing is allocated while an
 *    instruction runs, so no cleanup is skipped.
 * 4. The build-time generator (gen/m68kgen.c) turns m68k-ops.tab into one
 *    specialised handler per (pattern, size, addressing mode), a 64K-entry
 *    index table per model and the threaded interpreter m68k__exec() that
 *    runs them (m68k-ops-gen.inc, included by cpu-ops.c; its note 4).
 */
#ifndef QUA_M68K_INTERNAL_H
#define QUA_M68K_INTERNAL_H

#include <setjmp.h>
#include <stdio.h>

#include "m68k-timing.h"
#include "m68k.h"

#define M68K_LIKELY(x) __builtin_expect(!!(x), 1)
#define M68K_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define M68K_INLINE static inline __attribute__((always_inline))
#define M68K_NOINLINE __attribute__((noinline))

/* Exception vectors. */
enum {
  M68K_VEC_RESET_SP = 0,
  M68K_VEC_RESET_PC = 1,
  M68K_VEC_BUS_ERROR = 2,
  M68K_VEC_ADDRESS_ERROR = 3,
  M68K_VEC_ILLEGAL = 4,
  M68K_VEC_ZERO_DIVIDE = 5,
  M68K_VEC_CHK = 6,
  M68K_VEC_TRAPV = 7,
  M68K_VEC_PRIVILEGE = 8,
  M68K_VEC_TRACE = 9,
  M68K_VEC_LINE_A = 10,
  M68K_VEC_LINE_F = 11,
  M68K_VEC_FORMAT = 14,
  M68K_VEC_UNINIT_INT = 15,
  M68K_VEC_SPURIOUS = 24,
  M68K_VEC_AUTOVECTOR = 24, /* + level */
  M68K_VEC_TRAP0 = 32,
};

/* An FP register: the 68881 extended format as sign/exponent and mantissa,
 * laid out as the x87's (the mantissa first), so that a normal value or a
 * zero loads and stores as a host long double (cpu-fpu.c note 11). */
typedef struct m68k__fpreg {
  uint64_t mant; /* explicit integer bit 63 */
  uint16_t se;   /* sign bit 15, biased exponent bits 14-0 */
} m68k__fpreg_t;

/* The MC68000's clock count of the instruction being run (cycles68000.c):
 * the count at its start, its time when it completes, when it takes an
 * address error on a read, a write or a jump, and when it takes its own
 * exception (CHK, zero divide). */
typedef struct m68k__c000 {
  uint64_t start;
  unsigned normal, ae_rd, ae_wr, ae_jmp, exc;
  bool in; /* inside a counted instruction */
} m68k__c000_t;

struct m68k_cpu {
  uint32_t r[16]; /* D0-D7 then A0-A7; r[15] is the live stack pointer */
  uint32_t pc;    /* architectural PC (next word to fetch) */
  uint32_t ppc;   /* address of the instruction being executed */
  uint32_t ir;    /* its first word */
  /* 68000 address error: the stacked PC is pc + ae_adj (the prefetch
   * position depends on the addressing mode; set by the EA decoder), and
   * ae_prog makes the stacked FC a program-space one (PC-relative reads). */
  int32_t ae_adj;
  bool ae_prog;
  /* A faulting long (An)+ or -(An) leaves An as it was: ae_undo is 1 + the
   * register to restore (0: none), ae_undo_val its value, ae_addr_adj what
   * to add to the stacked access address (-(An).l accesses the low word
   * first). */
  int ae_undo;
  uint32_t ae_undo_val;
  uint32_t ae_addr_adj;

  /* Condition codes, see design note 1. */
  uint32_t x, n, nz, v, c;
  /* Lazy condition codes (xlat.c note 13): while lz_op is not 0, N, Z, V
   * and C are those of lz_d - lz_s (M68K_LZ_SUB: CMP.L, SUB.L) or lz_d +
   * lz_s (M68K_LZ_ADD: ADD.L), not the fields above. Only translated code
   * leaves it set; everything else finds it 0. */
  uint32_t lz_op, lz_d, lz_s;
  /* The rest of SR. */
  uint32_t s, m, t1, t0, imask;

  /* Inactive stack pointers: the one selected by S/M lives in r[15]. */
  uint32_t usp, isp, msp;
  uint32_t vbr, sfc, dfc, cacr, caar;

  /* 68881 register file. */
  m68k__fpreg_t fp[8];
  uint32_t fpcr, fpsr, fpiar;

  m68k_model_t model;
  uint32_t addr_mask;  /* 0x00ffffff (68000) or 0xffffffff */
  uint32_t align_mask; /* 1 (68000: address errors) or 0 */
  uint32_t sr_mask;    /* implemented SR bits */

  /* Fast RAM window (design note 2): lim2/lim4 are the exclusive offset
   * limits for 2- and 4-byte accesses. */
  uint8_t *ram;
  uint32_t ram_base, ram_size, ram_lim1, ram_lim2, ram_lim4;
  /* (uintptr_t)ram - ram_base: the guest address a of RAM is at host
   * address ram_host + a (the translator's stencils: one add). */
  uintptr_t ram_host;
  m68k_bus_t bus;

  const uint16_t *optab; /* 64K handler indexes for this model */

  int irq_level;   /* current level of the interrupt request line */
  bool nmi_edge;   /* level 7 was raised and not yet taken */
  bool stopped;    /* executed STOP, waits for an interrupt */
  bool halted;     /* double fault */
  bool stop_req;   /* m68k_request_stop() */
  bool pending;    /* something to look at between instructions */
  bool trace_pending; /* T1 set when the instruction began */
  bool in_group0;  /* building a group 0 frame (double fault detection) */

  m68k_trap_hook_fn hook;
  void *hook_ctx;
  FILE *trace;

  uint64_t icount;    /* instructions executed */
  uint64_t cycles;    /* cycles while count_cycles: the 68000's clocks, the MC68030 estimate */
  unsigned tail;      /* the last counted instruction's tail (m68k-timing.h) */
  m68k__c000_t c0;    /* 68000 model: the instruction's count (cycles68000.c) */
  uint64_t ncas, ncas2; /* CAS and CAS2 instructions executed */
  bool count_cycles;  /* m68k_set_cycle_count() */
  uint64_t run_end;   /* m68k_run stops when icount reaches it */
  jmp_buf jb;         /* design note 3 */

  /* The translator (xlat.c), NULL when off. A translated block runs only
   * when all of it fits below xlat_end (its note 6) and stops after any
   * instruction that leaves xlat_dirty set (a store into translated code,
   * its note 4). xlat_pages marks the RAM pages (M68K_XLAT_PAGE bytes)
   * that hold translated code; xlat_wrmap, by an address's page, where
   * the stencils may store inline (its note 14: M68K_XLAT_WR_*);
   * xlat_last is the unchained exit a block last left by (for chaining);
   * xlat_interp that the block returned before an instruction it leaves to
   * the interpreter (its note 17), at the PC. */
  struct m68k__xlat *xlat;
  const uint8_t *xlat_pages;
  const uint8_t *xlat_wrmap;
  uint32_t xlat_zero; /* always 0: the translator's suppressed base register */
  uint64_t xlat_end;
  bool xlat_dirty;
  bool xlat_interp;
  struct m68k__xlat_exit *xlat_last;
  /* What a loop keeps in host registers while it runs (xlat.c note 19),
   * newer there than here: slot 0's register (its offset in the CPU plus
   * 1) in bits 0 to 7, slot 1's in bits 8 to 15, and icount (bit 16); 0
   * when none. */
  uint32_t xlat_lc;
};

/* Translated code is tracked per RAM page of this many bytes (a power of 2). */
#define M68K_XLAT_PAGE_SHIFT 8
/* The translator's store map (xlat.c note 14): a page's byte. */
#define M68K_XLAT_WR_BYTE 1u /* a byte store in the page is to plain RAM */
#define M68K_XLAT_WR_LONG 2u /* and the next page: so is any store of at most a page starting in it */

/* cpu.c */
uint32_t m68k__get_sr(const m68k_cpu_t *c);
void m68k__set_sr(m68k_cpu_t *c, uint32_t sr);
void m68k__set_ccr(m68k_cpu_t *c, uint32_t ccr);
void m68k__update_pending(m68k_cpu_t *c);

/* Takes exception `vector` with a frame of the model's format. `pc` is the
 * PC to stack; `fmt` is the 68020 frame format (0 or 2); `addr` the
 * instruction address for format 2. Returns when the handler's first
 * instruction is next, or at once when the trap hook took the event. */
void m68k__exception(m68k_cpu_t *c, int vector, uint32_t pc, int fmt, uint32_t addr);

/* Group 0: builds the frame and leaves the instruction by longjmp. */
_Noreturn void m68k__address_error(m68k_cpu_t *c, uint32_t addr, bool write, bool prog);
_Noreturn void m68k__bus_error(m68k_cpu_t *c, uint32_t addr, bool write, bool prog);
/* 68000 jump to an odd address: address error stacking `pc`. */
_Noreturn void m68k__jump_fault(m68k_cpu_t *c, uint32_t target, uint32_t pc);
/* A group 1/2 exception in the middle of an instruction: takes it, then
 * leaves the instruction by longjmp. */
_Noreturn void m68k__exception_abort(m68k_cpu_t *c, int vector, uint32_t pc, int fmt,
                                     uint32_t addr);
_Noreturn void m68k__illegal(m68k_cpu_t *c);
_Noreturn void m68k__privilege(m68k_cpu_t *c);
_Noreturn void m68k__line_a(m68k_cpu_t *c);
_Noreturn void m68k__line_f(m68k_cpu_t *c);

uint32_t m68k__slow_rd(m68k_cpu_t *c, uint32_t a, int sz, bool prog);
void m68k__slow_wr(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v);

/* cpu-ops.c: the handler index tables and the interpreter. m68k__exec()
 * executes one instruction, then more while c->pending is false and
 * c->icount is below `end`. */
void m68k__exec(m68k_cpu_t *c, uint64_t end);
extern const uint16_t m68k__optab_68000[65536];
extern const uint16_t m68k__optab_68030[65536];

/* Each handler's MC68030 timing (m68k-cycles.tab, generated): cache-case
 * clocks, head and tail (m68k-timing.h); the `alt` figures instead for
 * kind 1 (Bcc, DBcc) when the branch falls through, kind 3 (CAS) when the
 * compare fails, kind 4 (a shift) when the count is in a register; for
 * kind 2 (MOVEM) `per` more clocks per register moved. */
typedef struct m68k__cycles {
  uint16_t cc;
  uint8_t head, tail;
  uint16_t alt_cc;
  uint8_t alt_head, alt_tail;
  uint8_t per;
  uint8_t kind;
} m68k__cycles_t;
extern const m68k__cycles_t m68k__cycles[];

/* cycles68000.c: the 68000 model's clock count (its design notes).
 * m68k__c000_begin decides the count of the instruction at pc (first word
 * op) from the state before it runs; m68k__c000_end adds it when the
 * instruction completes; m68k__c000_exception replaces it with the
 * exception's (write, jump: the faulting access of an address error), or
 * adds an interrupt's or trace's between instructions. */
void m68k__c000_begin(m68k_cpu_t *c, uint32_t pc, uint32_t op);
void m68k__c000_end(m68k_cpu_t *c);
void m68k__c000_exception(m68k_cpu_t *c, int vector, bool write, bool jump);

/* Every handler as a function, and the name of its template (m68k-ops.tab),
 * indexed like m68k__cycles: the translator calls them from its stencils. */
typedef void (*m68k__handler_fn)(m68k_cpu_t *c, uint32_t op);
extern const m68k__handler_fn m68k__handler_fns[];
extern const char *const m68k__handler_tmpl[];

/* disasm.c: the length in bytes of the instruction at addr, as
 * m68k_disassemble() decodes it, without formatting it. */
int m68k__insn_length(const m68k_cpu_t *cpu, uint32_t addr);

/* xlat.c: runs translated code and the interpreter as m68k__exec() does
 * (same stops: `end`, pending), translating hot code (xlat.c note 1). */
void m68k__xlat_exec(m68k_cpu_t *c, uint64_t end);
/* A store of sz bytes at RAM offset off hit a page holding translations:
 * invalidates those overlapping it (xlat.c note 4). */
void m68k__xlat_store(m68k_cpu_t *c, uint32_t off, int sz);
/* m68k__wr out of line, for the translator's stencils' slow paths. */
void m68k__xlat_wr(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v);
/* Frees the CPU's part in its translator (m68k_destroy). */
void m68k__xlat_detach(m68k_cpu_t *c);

/* The 68k condition cc (0-15, Bcc/DBcc/Scc's field) on the split flags. */
M68K_INLINE bool m68k__cc(const m68k_cpu_t *c, int cc)
{
  switch (cc) {
  case 0: return true;
  case 1: return false;
  case 2: return !c->c && c->nz;
  case 3: return c->c || !c->nz;
  case 4: return !c->c;
  case 5: return c->c;
  case 6: return c->nz != 0;
  case 7: return c->nz == 0;
  case 8: return !c->v;
  case 9: return c->v;
  case 10: return !(c->n >> 31);
  case 11: return c->n >> 31;
  case 12: return ((c->n >> 31) ^ c->v) == 0;
  case 13: return ((c->n >> 31) ^ c->v) != 0;
  case 14: return c->nz && ((c->n >> 31) ^ c->v) == 0;
  default: return !c->nz || ((c->n >> 31) ^ c->v) != 0;
  }
}

/* ADD and SUB (ADDX/SUBX with xin and extended, CMP with cmp: X kept) of
 * sz bytes, setting the flags (design note 1); the result. Shared by the
 * handlers (cpu-ops.c) and the translator's stencils. */
#define M68K__MASK(sz) ((sz) == 1 ? 0xffu : (sz) == 2 ? 0xffffu : 0xffffffffu)
#define M68K__BITS(sz) ((sz) * 8)
#define M68K__NSH(sz) (32 - (sz) * 8)
/* N and Z of result r; ADDX/SUBX (extended) only clear Z. */
M68K_INLINE void m68k__nz(m68k_cpu_t *c, uint32_t r, int sz, bool extended)
{
  c->n = r << M68K__NSH(sz);
  if (extended)
    c->nz |= r;
  else
    c->nz = r;
}

M68K_INLINE uint32_t m68k__add(m68k_cpu_t *c, uint32_t d, uint32_t s, int sz, uint32_t xin,
                                bool extended)
{
  d &= M68K__MASK(sz);
  s &= M68K__MASK(sz);
  uint64_t r64 = (uint64_t)d + s + xin;
  uint32_t r = (uint32_t)r64 & M68K__MASK(sz);
  m68k__nz(c, r, sz, extended);
  c->v = (((s ^ r) & (d ^ r)) >> (M68K__BITS(sz) - 1)) & 1;
  c->c = c->x = (uint32_t)(r64 >> M68K__BITS(sz)) & 1;
  return r;
}

M68K_INLINE uint32_t m68k__sub(m68k_cpu_t *c, uint32_t d, uint32_t s, int sz, uint32_t xin,
                                bool extended, bool cmp)
{
  d &= M68K__MASK(sz);
  s &= M68K__MASK(sz);
  uint64_t r64 = (uint64_t)d - s - xin;
  uint32_t r = (uint32_t)r64 & M68K__MASK(sz);
  m68k__nz(c, r, sz, extended);
  c->v = (((s ^ d) & (r ^ d)) >> (M68K__BITS(sz) - 1)) & 1;
  c->c = (uint32_t)(r64 >> M68K__BITS(sz)) & 1;
  if (!cmp)
    c->x = c->c;
  return r;
}

/* The lazy condition codes into the split flags (xlat.c note 13); X is
 * never lazy. */
enum { M68K_LZ_SUB = 1, M68K_LZ_ADD = 2 };
M68K_INLINE void m68k__lz_sync(m68k_cpu_t *c)
{
  if (c->lz_op) {
    uint32_t d = c->lz_d, s = c->lz_s, x = c->x;
    if (c->lz_op == M68K_LZ_SUB)
      (void)m68k__sub(c, d, s, 4, 0, false, true);
    else
      (void)m68k__add(c, d, s, 4, 0, false);
    c->x = x;
    c->lz_op = 0;
  }
}

/* cpu-fpu.c */
void m68k__fpu_general(m68k_cpu_t *c, uint32_t op);
void m68k__fpu_save(m68k_cpu_t *c, uint32_t op);
void m68k__fpu_restore(m68k_cpu_t *c, uint32_t op);
void m68k__fpu_bcc(m68k_cpu_t *c, uint32_t op);
void m68k__fpu_scc(m68k_cpu_t *c, uint32_t op);
void m68k__fpu_reset(m68k_cpu_t *c);
/* The bytes of an FPU operand by its format, the extension word's bits
 * 12-10 (L S X P W D B P). */
extern const int m68k__fpu_fmt_size[8];
/* The translator's FPU path (cpu-fpu.c note 11): opmode `how & 0x7f`
 * (FMOVE FADD FSUB FMUL FDIV FCMP FTST) into FPn, n = (how >> 7) & 7, from
 * the source kind how >> 10 (M68K_FPU_FAST_*: FP register bits & 7, or a
 * long, single or double in bits), for the instruction at pc. False, with
 * nothing changed, for anything but normal or zero operands in the FPCR's
 * default mode: the instruction's handler must run it. */
enum { M68K_FPU_FAST_REG, M68K_FPU_FAST_L, M68K_FPU_FAST_S, M68K_FPU_FAST_D };
bool m68k__fpu_fast(m68k_cpu_t *c, uint32_t how, uint64_t bits, uint32_t pc);
/* For tests: d cmd s (an arithmetic opmode of FADD, FSUB, FMUL, FDIV,
 * FSQRT, FSGLMUL, FSGLDIV or FMOVE) under fpcr, by the path that reads no
 * status flag (res[0], exc[0]; false when it declines the operands) and by
 * the one through the x87's flags (res[1], exc[1]). exc: the FPSR's
 * exception byte bits. */
bool m68k__fpu_basic_paths(uint32_t fpcr, unsigned cmd, m68k__fpreg_t d, m68k__fpreg_t s,
                           m68k__fpreg_t res[2], uint32_t exc[2]);
/* For tests: FP0 cmd FP1 (FMOVE, FADD, FSUB, FMUL, FDIV, FCMP, FTST) with
 * FP0 = d, FP1 = s and every other register zero, by the translator's
 * path (res[0], fpsr[0]: FP0 and the FPSR after; false when it declines)
 * and by the interpreter's (res[1], fpsr[1]). */
bool m68k__fpu_fast_paths(unsigned cmd, m68k__fpreg_t d, m68k__fpreg_t s, m68k__fpreg_t res[2],
                          uint32_t fpsr[2]);

/* Memory access (design note 2). sz is 1, 2 or 4. */
M68K_INLINE uint32_t m68k__rd(m68k_cpu_t *c, uint32_t a, int sz)
{
  if (sz > 1 && M68K_UNLIKELY(a & c->align_mask))
    m68k__address_error(c, a, false, false);
  a &= c->addr_mask;
  uint32_t off = a - c->ram_base;
  if (sz == 1) {
    if (M68K_LIKELY(off < c->ram_lim1))
      return c->ram[off];
  } else if (sz == 2) {
    if (M68K_LIKELY(off < c->ram_lim2)) {
      const uint8_t *p = c->ram + off;
      return ((uint32_t)p[0] << 8) | p[1];
    }
  } else {
    if (M68K_LIKELY(off < c->ram_lim4)) {
      const uint8_t *p = c->ram + off;
      return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
    }
  }
  return m68k__slow_rd(c, a, sz, false);
}

M68K_INLINE void m68k__wr(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v)
{
  if (sz > 1 && M68K_UNLIKELY(a & c->align_mask))
    m68k__address_error(c, a, true, false);
  a &= c->addr_mask;
  uint32_t off = a - c->ram_base;
  /* A store into translated code (xlat.c note 4); the page map covers RAM
   * and one page past it, so the offset of a store in RAM always indexes it. */
  if (M68K_UNLIKELY(c->xlat_pages != NULL) && off < c->ram_size &&
      (c->xlat_pages[off >> M68K_XLAT_PAGE_SHIFT] |
       c->xlat_pages[(off + (uint32_t)sz - 1) >> M68K_XLAT_PAGE_SHIFT]))
    m68k__xlat_store(c, off, sz);
  if (sz == 1) {
    if (M68K_LIKELY(off < c->ram_lim1)) {
      c->ram[off] = (uint8_t)v;
      return;
    }
  } else if (sz == 2) {
    if (M68K_LIKELY(off < c->ram_lim2)) {
      uint8_t *p = c->ram + off;
      p[0] = (uint8_t)(v >> 8);
      p[1] = (uint8_t)v;
      return;
    }
  } else {
    if (M68K_LIKELY(off < c->ram_lim4)) {
      uint8_t *p = c->ram + off;
      p[0] = (uint8_t)(v >> 24);
      p[1] = (uint8_t)(v >> 16);
      p[2] = (uint8_t)(v >> 8);
      p[3] = (uint8_t)v;
      return;
    }
  }
  m68k__slow_wr(c, a, sz, v);
}

/* Instruction stream. */
M68K_INLINE uint32_t m68k__fetch16(m68k_cpu_t *c)
{
  if (M68K_UNLIKELY(c->pc & 1))
    m68k__address_error(c, c->pc, false, true);
  uint32_t a = c->pc & c->addr_mask;
  c->pc += 2;
  uint32_t off = a - c->ram_base;
  if (M68K_LIKELY(off < c->ram_lim2)) {
    const uint8_t *p = c->ram + off;
    return ((uint32_t)p[0] << 8) | p[1];
  }
  return m68k__slow_rd(c, a, 2, true);
}

M68K_INLINE uint32_t m68k__fetch32(m68k_cpu_t *c)
{
  uint32_t hi = m68k__fetch16(c);
  return (hi << 16) | m68k__fetch16(c);
}

#endif /* QUA_M68K_INTERNAL_H */
