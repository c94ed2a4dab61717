/* cpu-fpu.c -- the MC68881/MC68882 floating-point coprocessor of the 68030 model.
 *
 * Design notes
 *
 * 1. Arithmetic runs on the host's long double. On x86-64 that is the x87
 *    extended format, which is the 68881's extended format without its 16
 *    pad bits: a sign, a 15-bit exponent biased by 16383 and a 64-bit
 *    mantissa with an explicit integer bit. The x87 rounds every add,
 *    subtract, multiply, divide and square root once, correctly, in the
 *    rounding mode and to the precision of its control word, keeping the
 *    extended exponent range in single and double precision exactly as the
 *    68881 does (MC68881/MC68882 User's Manual). So the FPCR's mode
 *    and precision bits are copied into the x87 control word around each
 *    operation (fpu_enter/fpu_leave) and the x87 status flags become the
 *    68881's exception bits. That is exact and much faster than a software
 *    float library; the build fails on a host whose long double is not
 *    this format (the static assertion below).
 * 2. The transcendental instructions compute in quadruple precision with
 *    GCC's libquadmath (sinq, expm1q, log2q, ...) and round that once to
 *    the FPCR's precision and mode (round_quad). glibc's long double
 *    functions (sinl, tanhl, ...) were the first choice, but glibc's own
 *    tables of known errors list several at 2 or 3 units in the last place
 *    (tanhl(0.5) is 2 off), more than the one unit this FPU promises;
 *    libquadmath's 113 bits leave the extended result within one unit,
 *    nearly always the correctly rounded one. Domain errors (OPERR) and
 *    poles (DZ) are libquadmath's flags; OVFL, UNFL and INEX2 those of the
 *    rounding.
 * 3. Where the 68881 and the x87 differ, values are fixed at the border
 *    (to_ld/from_ld/nan_result):
 *    - unnormals (exponent neither 0 nor 0x7fff, integer bit clear) are
 *      normalized on input, as the 68881 does; the x87 rejects them;
 *    - infinities and NaNs need not have the integer bit set on the 68881;
 *      it is set on input, and an infinite result has the all-zero
 *      mantissa the 68881 gives (the x87's has the integer bit);
 *    - a NaN made from non-NaN operands is the 68881's default NaN,
 *      0x7fff_ffffffff_ffffffff (the x87 would give 0xffff_c0000000_00000000);
 *    - a NaN operand propagates as the 68881 does: the destination's if it
 *      is a NaN, else the source's, made quiet (bit 62 set); a signalling
 *      NaN sets SNAN;
 *    - denormals (exponent 0, integer bit clear) are the same in both.
 * 4. The FPSR: the condition codes (N Z I NAN) come from every result that
 *    lands in a register; the quotient byte from FMOD and FREM; the
 *    exception byte (BSUN SNAN OPERR OVFL UNFL DZ INEX2 INEX1) is cleared at
 *    the start of every arithmetic instruction and FMOVE out, and the
 *    accrued byte collects it by the manual's rules: IOP |= BSUN|SNAN|OPERR,
 *    OVFL |= OVFL, UNFL |= UNFL&INEX2, DZ |= DZ, INEX |= INEX1|INEX2|OVFL.
 *    DZ is set for division of a non-zero by zero and for FLOGN, FLOG10,
 *    FLOG2, FLOGNP1 and FATANH at their poles, and OPERR for every invalid
 *    operation (0/0, inf-inf, 0*inf, FSQRT of a negative, FMOD by zero,
 *    the transcendentals outside their domain, an integer or packed
 *    conversion that does not fit), as the manual's tables say.
 *    Where this differs from qemu 7.2 (qemu-m68k), on purpose:
 *    - qemu leaves DZ and OPERR clear (1.0/0.0 gives an FPSR of only the
 *      I condition code, 0.0/0.0 nothing); the manual sets them;
 *    - qemu takes no trap for an exception enabled in the FPCR; the 68881
 *      does (note 5);
 *    - qemu's FCOS of 123456.789 is a unit off in the double it gives
 *      to glibc's cos(); here it is the correctly rounded result, as on
 *      the host (tests/m68k/progs/fpu.c in the m68k-diff suite).
 * 5. An exception whose bit is set in the FPCR's enable byte is trapped
 *    through its 68881 vector (BSUN 48, INEX 49, DZ 50, UNFL 51, OPERR 52,
 *    OVFL 53, SNAN 54), the highest priority one first (BSUN, SNAN, OPERR,
 *    OVFL, UNFL, DZ, INEX). The 68881 reports an arithmetic exception when
 *    the next FPU instruction starts; here the trap is taken at once, after
 *    the instruction, with a format 0 frame holding the next instruction's
 *    PC, and FPIAR gives the faulting instruction's address, which is what
 *    handlers use. With SNAN, OPERR or DZ enabled the destination is left
 *    as it was; with the others the default result is written. BSUN is
 *    taken before the conditional instruction does anything, stacking its
 *    own PC, as on the 68881.
 * 6. Packed decimal (.p) goes through the host's strtold and printf, which
 *    honour the x87 rounding mode, so both directions are correctly
 *    rounded (the 68881's own conversions are within a unit of that);
 *    single and double precision are reached by rounding to odd first. The
 *    k-factor follows the manual: k > 0 significant digits (k > 17 is
 *    OPERR and gives 17), k <= 0 digits right of the decimal point. A
 *    digit above 9 in a packed source is OPERR with the default NaN.
 * 7. FMOVECR's constants are kept to 128 bits and rounded in the FPCR's
 *    mode and precision, setting INEX2 when inexact. The ROM offsets that
 *    the manual leaves undefined read as +0.
 * 8. FSAVE writes a null frame (one long word 0) and FRESTORE of a null
 *    frame resets the FPU; other frames are skipped by their length byte.
 * 9. Clearing the x87's status flags (FNCLEX) costs more than the
 *    operation itself, several times over, while its control word loads
 *    cheaply. So the common case of FADD, FSUB, FMUL, FDIV, FSQRT, FSGLMUL,
 *    FSGLDIV and FMOVE's rounding reads no flag at all: the operation runs
 *    in the FPCR's mode for the result, and rounded up and rounded down.
 *    The exact result lies between those two, so they are equal exactly
 *    when it is representable: INEX2 is whether they differ. Finite
 *    operands (no divisor of zero, no negative square root) cannot raise
 *    OPERR or DZ; an infinite bound means OVFL may be due, and an inexact
 *    bound below the smallest normal that UNFL may be, which the flags
 *    settle exactly (tininess before or after rounding is the x87's own
 *    affair there). Those cases, and every other operand, take the path
 *    through the flags; a test runs both paths over millions of operands
 *    and compares every result bit and exception.
 * 10. Loading the control word is cheap but not free: each load waits for
 *    the operations before it, and three roundings with four loads cost
 *    more than half of an FPU instruction's time. In the FPCR's default,
 *    round to nearest at extended precision, which is also how the x87 is
 *    normally set, no control word is loaded: the operation runs once and
 *    INEX2 comes from an error-free transformation. A sum's rounding
 *    error is exact by Knuth's TwoSum (six operations, nearest rounding,
 *    any binary format, no overflow); a product is exact when the 128-bit
 *    product of the two 64-bit mantissas has at most 64 significant bits;
 *    a quotient q of d / s (a square root q of s) when q * s (q * q) is
 *    such a product and rounds to d (s). Results below the smallest
 *    normal other than a sum's, and any infinity, go to the paths above.
 * 11. The translator's FPU stencils (xlat.c note 12) call m68k__fpu_fast
 *    with the instruction decoded and its source operand read: FMOVE,
 *    FADD, FSUB, FMUL, FDIV, FCMP and FTST from an FP register or a long,
 *    single or double, in the FPCR's default mode (nearest, extended, no
 *    exception enabled, so none traps) on normal or zero operands. It is
 *    arith() cut to those cases: the same result, the same FPSR bits, the
 *    same register; it declines anything else, having changed nothing,
 *    and the stencil runs the instruction's handler instead. The x87's
 *    80-bit store is slow to read back (a load after FSTPT waits for it,
 *    and an FADD into the register an FMUL just wrote reads it at once),
 *    so sums, products and comparisons are computed in integers, on the
 *    register format's bits: a product as the 128-bit product of the
 *    mantissas, a sum with the smaller operand aligned under the larger
 *    in 128 bits (bits shifted out below kept as a sticky bit), both
 *    rounded to nearest even from those 128 bits (round_nearest), which
 *    also tells INEX2; a result below the smallest normal or an overflow
 *    goes to arith(). A source is converted with integer operations too
 *    (FMOVE and FTST use no x87). A quotient is the x87's, classified by
 *    FXAM and stored once by FSTPT, its INEX2 from its bits as in note
 *    10. A test compares this path with arith() over random operands,
 *    near-ties of sums included.
 */
#include <fenv.h>
#include <float.h>
#include <fpu_control.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "m68k-internal.h"

_Static_assert(LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384,
               "the FPU needs the host's long double to be the x87 extended format");

uint32_t m68k__ea_addr_rt(m68k_cpu_t *c, unsigned mode, unsigned reg, int sz);

/* libquadmath (design note 2). Declared here: <quadmath.h> is in GCC's
 * private include directory, which clang (the fuzz build) does not search. */
typedef __float128 (*q_fn)(__float128);
extern __float128 sinq(__float128), cosq(__float128), tanq(__float128), asinq(__float128),
    acosq(__float128), atanq(__float128), sinhq(__float128), coshq(__float128),
    tanhq(__float128), atanhq(__float128), expq(__float128), expm1q(__float128),
    exp2q(__float128), logq(__float128), log1pq(__float128), log10q(__float128),
    log2q(__float128), powq(__float128, __float128);

/* FPSR fields. */
enum {
  FPCC_N = 1u << 27,
  FPCC_Z = 1u << 26,
  FPCC_I = 1u << 25,
  FPCC_NAN = 1u << 24,
  EXC_BSUN = 1u << 15,
  EXC_SNAN = 1u << 14,
  EXC_OPERR = 1u << 13,
  EXC_OVFL = 1u << 12,
  EXC_UNFL = 1u << 11,
  EXC_DZ = 1u << 10,
  EXC_INEX2 = 1u << 9,
  EXC_INEX1 = 1u << 8,
  AEXC_IOP = 1u << 7,
  AEXC_OVFL = 1u << 6,
  AEXC_UNFL = 1u << 5,
  AEXC_DZ = 1u << 4,
  AEXC_INEX = 1u << 3,
};

#define QUIET_BIT (1ull << 62)
#define INT_BIT (1ull << 63)

/* ---- the register format and the host's ---- */

static bool is_nan(m68k__fpreg_t r) { return (r.se & 0x7fff) == 0x7fff && (r.mant << 1) != 0; }
static bool is_snan(m68k__fpreg_t r) { return is_nan(r) && !(r.mant & QUIET_BIT); }

static const m68k__fpreg_t default_nan = {.se = 0x7fff, .mant = 0xffffffffffffffffull};

/* The value of r on the host (design note 3): unnormals normalized, the
 * integer bit of infinities and NaNs set. */
static long double to_ld(m68k__fpreg_t r)
{
  unsigned e = r.se & 0x7fff;
  uint64_t m = r.mant;
  if (e == 0x7fff) {
    m |= INT_BIT;
  } else if (e != 0 && !(m & INT_BIT)) {
    if (m == 0) {
      e = 0;
    } else {
      while (!(m & INT_BIT) && e > 1) {
        m <<= 1;
        e--;
      }
      if (!(m & INT_BIT))
        e = 0; /* a denormal: exponent 1 and 0 mean the same scale */
    }
  }
  uint8_t b[16] = {0};
  memcpy(b, &m, 8);
  uint16_t se = (uint16_t)((r.se & 0x8000) | e);
  memcpy(b + 8, &se, 2);
  long double v;
  memcpy(&v, b, sizeof v);
  return v;
}

/* The register for a host value; infinities get the 68881's all-zero
 * mantissa. */
static m68k__fpreg_t from_ld(long double v)
{
  uint8_t b[16];
  memcpy(b, &v, sizeof v);
  m68k__fpreg_t r;
  memcpy(&r.mant, b, 8);
  memcpy(&r.se, b + 8, 2);
  if (isinf(v))
    r.mant = 0;
  return r;
}

/* A NaN result: the destination's NaN if there is one, else the source's,
 * made quiet; SNAN when either is signalling. */
static m68k__fpreg_t nan_result(m68k__fpreg_t d, m68k__fpreg_t s, bool dyadic, uint32_t *exc)
{
  if (is_snan(s) || (dyadic && is_snan(d)))
    *exc |= EXC_SNAN;
  m68k__fpreg_t r = dyadic && is_nan(d) ? d : s;
  r.mant |= QUIET_BIT | INT_BIT;
  return r;
}

/* ---- the host's control word (design note 1) ---- */

static const fpu_control_t host_rc[4] = {_FPU_RC_NEAREST, _FPU_RC_ZERO, _FPU_RC_DOWN, _FPU_RC_UP};
static const fpu_control_t host_pc[4] = {_FPU_EXTENDED, _FPU_SINGLE, _FPU_DOUBLE, _FPU_EXTENDED};

enum { PREC_FPCR = -1, PREC_X = 0, PREC_S = 1, PREC_D = 2 };

/* The x87's control word and status flags, directly: glibc's
 * feclearexcept() saves and reloads the whole FPU environment, which cost
 * most of an FADD's time. The "memory" clobbers keep the volatile operand
 * accesses of the callers between them. */
static inline void x87_set_cw(fpu_control_t cw) { __asm__ volatile("fldcw %0" : : "m"(cw) : "memory"); }

static inline fpu_control_t x87_get_cw(void)
{
  fpu_control_t cw;
  __asm__ volatile("fnstcw %0" : "=m"(cw) : : "memory");
  return cw;
}

static inline void x87_clear(void) { __asm__ volatile("fnclex" : : : "memory"); }

/* The status word's flags: the same bits as FE_INVALID ... FE_INEXACT. */
static inline int x87_flags(void)
{
  uint16_t sw;
  __asm__ volatile("fnstsw %0" : "=m"(sw) : : "memory");
  return sw & FE_ALL_EXCEPT;
}

/* The control word old with all exceptions masked and precision prec
 * (PREC_FPCR: the FPCR's), its rounding bits clear for the caller's mode. */
static fpu_control_t fpu_cw_base(const m68k_cpu_t *c, int prec, fpu_control_t old)
{
  unsigned p = prec == PREC_FPCR ? (c->fpcr >> 6) & 3 : (unsigned)prec;
  return (fpu_control_t)((old & ~(fpu_control_t)(_FPU_RC_ZERO | _FPU_EXTENDED)) | 0x3f |
                         host_pc[p]);
}

/* Sets the x87 to the FPCR's rounding mode and to precision prec (PREC_FPCR:
 * the FPCR's), all exceptions masked and no flags raised. Returns the
 * control word to give back to fpu_leave. */
static fpu_control_t fpu_enter(const m68k_cpu_t *c, int prec)
{
  fpu_control_t old = x87_get_cw();
  x87_clear();
  x87_set_cw(fpu_cw_base(c, prec, old) | host_rc[(c->fpcr >> 4) & 3]);
  return old;
}

/* The 68881 exception bits for the x87 flags raised since fpu_enter. */
static uint32_t fpu_leave(fpu_control_t old)
{
  int f = x87_flags();
  x87_set_cw(old);
  x87_clear();
  uint32_t exc = 0;
  if (f & FE_INVALID)
    exc |= EXC_OPERR;
  if (f & FE_DIVBYZERO)
    exc |= EXC_DZ;
  if (f & FE_OVERFLOW)
    exc |= EXC_OVFL;
  if (f & FE_UNDERFLOW)
    exc |= EXC_UNFL;
  if (f & FE_INEXACT)
    exc |= EXC_INEX2;
  return exc;
}

/* v rounded to the FPCR's mode and precision prec; *exc collects. The
 * volatile accesses keep the operation between the control word changes. */
static long double round_to(const m68k_cpu_t *c, long double v, int prec, uint32_t *exc)
{
  volatile long double a = v, one = 1.0L, r;
  fpu_control_t old = fpu_enter(c, prec);
  r = a * one;
  *exc |= fpu_leave(old);
  return r;
}

/* ---- FPSR ---- */

void m68k__fpu_reset(m68k_cpu_t *c)
{
  for (int i = 0; i < 8; i++)
    c->fp[i] = default_nan; /* as after a 68881 reset */
  c->fpcr = c->fpsr = c->fpiar = 0;
}

static uint32_t cc_of(m68k__fpreg_t r)
{
  uint32_t cc = 0;
  unsigned e = r.se & 0x7fff;
  if (r.se & 0x8000)
    cc |= FPCC_N;
  if (e == 0x7fff)
    cc |= (r.mant << 1) ? FPCC_NAN : FPCC_I;
  else if (r.mant == 0)
    cc |= FPCC_Z;
  return cc;
}

static void set_cc(m68k_cpu_t *c, uint32_t cc) { c->fpsr = (c->fpsr & 0x00ffffffu) | cc; }

static const struct {
  uint32_t bit;
  int vector;
} exc_vectors[] = {
    {EXC_BSUN, 48}, {EXC_SNAN, 54}, {EXC_OPERR, 52}, {EXC_OVFL, 53},
    {EXC_UNFL, 51}, {EXC_DZ, 50},   {EXC_INEX2 | EXC_INEX1, 49},
};

/* The vector of the highest-priority exception of exc enabled in the FPCR,
 * or 0. */
static int enabled_vector(const m68k_cpu_t *c, uint32_t exc)
{
  uint32_t on = exc & c->fpcr & 0xff00u;
  for (size_t i = 0; i < sizeof exc_vectors / sizeof exc_vectors[0]; i++)
    if (on & exc_vectors[i].bit)
      return exc_vectors[i].vector;
  return 0;
}

/* Stores exc as the exception byte, accrues it (design note 4). */
static void set_exc(m68k_cpu_t *c, uint32_t exc)
{
  uint32_t a = 0;
  if (exc & (EXC_BSUN | EXC_SNAN | EXC_OPERR))
    a |= AEXC_IOP;
  if (exc & EXC_OVFL)
    a |= AEXC_OVFL;
  if ((exc & EXC_UNFL) && (exc & EXC_INEX2))
    a |= AEXC_UNFL;
  if (exc & EXC_DZ)
    a |= AEXC_DZ;
  if (exc & (EXC_INEX1 | EXC_INEX2 | EXC_OVFL))
    a |= AEXC_INEX;
  c->fpsr = (c->fpsr & ~0xff00u) | exc | a;
}

/* Takes the trap for an enabled exception of this instruction, if any. */
static void trap_enabled(m68k_cpu_t *c, uint32_t exc)
{
  int v = enabled_vector(c, exc);
  if (v)
    m68k__exception(c, v, c->pc, 0, 0);
}

/* ---- operands ---- */

const int m68k__fpu_fmt_size[8] = {4, 4, 12, 12, 2, 8, 1, 12};
enum { FMT_L, FMT_S, FMT_X, FMT_P, FMT_W, FMT_D, FMT_B, FMT_PDYN };

static m68k__fpreg_t from_single(uint32_t w)
{
  if ((w & 0x7f800000u) == 0x7f800000u && (w & 0x7fffff)) {
    m68k__fpreg_t r = {.se = (uint16_t)((w >> 16 & 0x8000) | 0x7fff),
                       .mant = INT_BIT | ((uint64_t)(w & 0x7fffff) << 40)};
    return r;
  }
  float f;
  memcpy(&f, &w, 4);
  return from_ld((long double)f);
}

static m68k__fpreg_t from_double(uint64_t u)
{
  if ((u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (u & 0xfffffffffffffull)) {
    m68k__fpreg_t r = {.se = (uint16_t)((u >> 48 & 0x8000) | 0x7fff),
                       .mant = INT_BIT | ((u & 0xfffffffffffffull) << 11)};
    return r;
  }
  double d;
  memcpy(&d, &u, 8);
  return from_ld((long double)d);
}

/* Decimal conversions run with the x87 set by fpu_enter, so that glibc's
 * strtold and printf see the rounding mode. */
static long double strtold_mode(const m68k_cpu_t *c, const char *s, unsigned mode)
{
  m68k_cpu_t t = *c;
  t.fpcr = (c->fpcr & ~0x30u) | (mode << 4);
  fpu_control_t old = fpu_enter(&t, PREC_X);
  long double v = strtold(s, NULL);
  (void)fpu_leave(old);
  return v;
}

/* The packed decimal operand w[0..2] (design note 6). */
static m68k__fpreg_t from_packed(m68k_cpu_t *c, const uint32_t w[3], uint32_t *exc)
{
  bool neg = w[0] >> 31;
  if (((w[0] >> 16) & 0x7fff) == 0x7fff) {
    uint64_t m = ((uint64_t)w[1] << 32) | w[2];
    m68k__fpreg_t r = {.se = (uint16_t)((neg ? 0x8000 : 0) | 0x7fff), .mant = m};
    return r;
  }
  char s[40], *p = s;
  unsigned digits[17];
  digits[0] = w[0] & 15;
  for (int i = 0; i < 16; i++)
    digits[1 + i] = (w[1 + i / 8] >> (28 - 4 * (i % 8))) & 15;
  unsigned e2 = (w[0] >> 24) & 15, e1 = (w[0] >> 20) & 15, e0 = (w[0] >> 16) & 15;
  bool bad = e2 > 9 || e1 > 9 || e0 > 9;
  *p++ = neg ? '-' : '+';
  for (int i = 0; i < 17; i++) {
    bad |= digits[i] > 9;
    *p++ = (char)('0' + digits[i]);
    if (i == 0)
      *p++ = '.';
  }
  if (bad) {
    *exc |= EXC_OPERR;
    return default_nan;
  }
  snprintf(p, (size_t)(s + sizeof s - p), "e%c%u%u%u", (w[0] >> 30 & 1) ? '-' : '+', e2, e1, e0);
  unsigned prec = (c->fpcr >> 6) & 3;
  long double lo = strtold_mode(c, s, 1), hi = strtold_mode(c, s, neg ? 2 : 3);
  if (lo != hi)
    *exc |= EXC_INEX1;
  if (prec == 0 || prec == 3)
    return from_ld(strtold_mode(c, s, (c->fpcr >> 4) & 3));
  /* Round to odd in extended, then once to the precision: correctly rounded. */
  m68k__fpreg_t t = from_ld(lo);
  if (lo != hi)
    t.mant |= 1;
  uint32_t ignored = 0;
  return from_ld(round_to(c, to_ld(t), PREC_FPCR, &ignored));
}

/* Reads the source operand of format fmt. *exc collects INEX1. */
static m68k__fpreg_t read_src(m68k_cpu_t *c, uint32_t op, unsigned fmt, uint32_t *exc)
{
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  int sz = m68k__fpu_fmt_size[fmt];
  if (fmt == FMT_PDYN)
    m68k__line_f(c);
  uint32_t w[3] = {0, 0, 0};
  if (mode == 0) {
    if (sz > 4)
      m68k__line_f(c);
    w[0] = c->r[reg];
  } else if (mode == 1) {
    m68k__line_f(c);
  } else if (mode == 7 && reg == 4) {
    if (sz == 1 || sz == 2)
      w[0] = m68k__fetch16(c);
    else
      for (int i = 0; i < (sz + 3) / 4; i++)
        w[i] = m68k__fetch32(c);
  } else {
    uint32_t a = m68k__ea_addr_rt(c, mode, reg, sz);
    if (sz <= 4)
      w[0] = m68k__rd(c, a, sz);
    else
      for (int i = 0; i < sz / 4; i++)
        w[i] = m68k__rd(c, a + 4 * (uint32_t)i, 4);
  }
  switch (fmt) {
  case FMT_L: return from_ld((long double)(int32_t)w[0]);
  case FMT_W: return from_ld((long double)(int16_t)w[0]);
  case FMT_B: return from_ld((long double)(int8_t)w[0]);
  case FMT_S: return from_single(w[0]);
  case FMT_D: return from_double(((uint64_t)w[0] << 32) | w[1]);
  case FMT_P: return from_packed(c, w, exc);
  default: {
    m68k__fpreg_t r = {.se = (uint16_t)(w[0] >> 16), .mant = ((uint64_t)w[1] << 32) | w[2]};
    return r;
  }
  }
}

/* v as an integer in [lo, hi], rounded in the FPCR's mode; OPERR and the
 * bound of v's sign when it does not fit (NaN: the sign bit's). */
static int64_t to_int(const m68k_cpu_t *c, m68k__fpreg_t x, int64_t lo, int64_t hi, uint32_t *exc)
{
  long double v = to_ld(x);
  if (isnan(v)) {
    *exc |= is_snan(x) ? EXC_SNAN : EXC_OPERR;
    return (x.se & 0x8000) ? lo : hi;
  }
  volatile long double a = v, r;
  fpu_control_t old = fpu_enter(c, PREC_X);
  r = rintl(a);
  (void)fpu_leave(old);
  if (r < (long double)lo || r > (long double)hi) {
    *exc |= EXC_OPERR;
    return r < 0 ? lo : hi;
  }
  if (r != v)
    *exc |= EXC_INEX2;
  return (int64_t)r;
}

/* The packed decimal form of x with k-factor k (design note 6). */
static void to_packed(const m68k_cpu_t *c, m68k__fpreg_t x, int k, uint32_t w[3], uint32_t *exc)
{
  bool neg = x.se & 0x8000;
  w[0] = neg ? 0x80000000u : 0;
  w[1] = w[2] = 0;
  if ((x.se & 0x7fff) == 0x7fff) {
    w[0] |= 0x7fff0000u;
    if (is_nan(x)) {
      if (is_snan(x)) {
        *exc |= EXC_SNAN;
        x.mant |= QUIET_BIT;
      }
      w[1] = (uint32_t)(x.mant >> 32);
      w[2] = (uint32_t)x.mant;
    }
    return;
  }
  long double v = fabsl(to_ld(x));
  if (v == 0)
    return;
  if (k > 17) {
    *exc |= EXC_OPERR;
    k = 17;
  }
  m68k_cpu_t t = *c;
  char buf[64];
  /* The decimal exponent, rounded toward zero so that it is floor(log10). */
  t.fpcr = (c->fpcr & ~0x30u) | 0x10u;
  fpu_control_t old = fpu_enter(&t, PREC_X);
  snprintf(buf, sizeof buf, "%.20Le", v);
  (void)fpu_leave(old);
  int ilog = atoi(strchr(buf, 'e') + 1);
  int len = k > 0 ? k : ilog + 1 - k;
  if (len > 17)
    len = 17;
  if (len < 1)
    len = 1;
  for (;;) {
    /* Exact when rounding toward zero and away from it agree. */
    char rz[64], ru[64];
    old = fpu_enter(&t, PREC_X);
    snprintf(rz, sizeof rz, "%.*Le", len - 1, v);
    (void)fpu_leave(old);
    t.fpcr |= 0x30u;
    old = fpu_enter(&t, PREC_X);
    snprintf(ru, sizeof ru, "%.*Le", len - 1, v);
    (void)fpu_leave(old);
    t.fpcr = (c->fpcr & ~0x30u) | 0x10u;
    old = fpu_enter(c, PREC_X);
    snprintf(buf, sizeof buf, "%.*Le", len - 1, neg ? -v : v);
    (void)fpu_leave(old);
    char *b = buf + (neg ? 1 : 0);
    int e = atoi(strchr(b, 'e') + 1);
    if (k <= 0 && e > ilog && len < 17) { /* rounded up to 10^(ilog+1) */
      ilog = e;
      len++;
      continue;
    }
    if (strcmp(rz, ru) != 0)
      *exc |= EXC_INEX2;
    unsigned d[17] = {0};
    int n = 0;
    for (const char *q = b; *q != 'e'; q++)
      if (*q >= '0' && *q <= '9' && n < 17)
        d[n++] = (unsigned)(*q - '0');
    unsigned ae = (unsigned)(e < 0 ? -e : e);
    w[0] |= (e < 0 ? 0x40000000u : 0) | ((ae / 100 % 10) << 24) | ((ae / 10 % 10) << 20) |
            ((ae % 10) << 16) | ((ae / 1000 % 10) << 12) | d[0];
    for (int i = 0; i < 16; i++)
      w[1 + i / 8] |= d[1 + i] << (28 - 4 * (i % 8));
    return;
  }
}

/* x as the bits of a single (dbl false) or double, rounded in the FPCR's
 * mode with the IEEE format's exponent range; a NaN keeps its sign and
 * upper mantissa bits, made quiet. */
static uint64_t to_ieee(const m68k_cpu_t *c, m68k__fpreg_t x, bool dbl, uint32_t *exc)
{
  if (is_nan(x)) {
    if (is_snan(x))
      *exc |= EXC_SNAN;
    if (dbl)
      return (uint64_t)(x.se & 0x8000u) << 48 | 0x7ff8000000000000ull | (x.mant >> 11 & 0xfffffffffffffull);
    return (x.se & 0x8000u) << 16 | 0x7fc00000u | (uint32_t)(x.mant >> 40 & 0x7fffff);
  }
  volatile long double a = to_ld(x);
  volatile double d;
  volatile float f;
  fpu_control_t old = fpu_enter(c, PREC_X);
  if (dbl)
    d = (double)a;
  else
    f = (float)a;
  *exc |= fpu_leave(old);
  uint64_t u = 0;
  if (dbl) {
    double g = d;
    memcpy(&u, &g, 8);
  } else {
    float g = f;
    uint32_t w;
    memcpy(&w, &g, 4);
    u = w;
  }
  return u;
}

/* FMOVE FPn,<ea>: the register converted to format fmt. */
static void write_dst(m68k_cpu_t *c, uint32_t op, uint32_t ext, m68k__fpreg_t x)
{
  unsigned fmt = (ext >> 10) & 7;
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  int sz = m68k__fpu_fmt_size[fmt];
  uint32_t w[3] = {0, 0, 0}, exc = 0;
  if (mode == 1 || (mode == 0 && sz > 4) || (mode == 7 && reg > 1))
    m68k__line_f(c);
  switch (fmt) {
  case FMT_L: w[0] = (uint32_t)to_int(c, x, INT32_MIN, INT32_MAX, &exc); break;
  case FMT_W: w[0] = (uint32_t)to_int(c, x, INT16_MIN, INT16_MAX, &exc) & 0xffff; break;
  case FMT_B: w[0] = (uint32_t)to_int(c, x, INT8_MIN, INT8_MAX, &exc) & 0xff; break;
  case FMT_S: w[0] = (uint32_t)to_ieee(c, x, false, &exc); break;
  case FMT_D: {
    uint64_t u = to_ieee(c, x, true, &exc);
    w[0] = (uint32_t)(u >> 32);
    w[1] = (uint32_t)u;
    break;
  }
  case FMT_X:
    w[0] = (uint32_t)x.se << 16;
    w[1] = (uint32_t)(x.mant >> 32);
    w[2] = (uint32_t)x.mant;
    break;
  default: { /* packed: k in the extension word, or in Dn for FMT_PDYN */
    uint32_t kb = fmt == FMT_P ? ext & 0x7f : c->r[(ext >> 4) & 7] & 0x7f;
    to_packed(c, x, (int)(kb ^ 0x40) - 0x40, w, &exc);
    break;
  }
  }
  set_exc(c, exc);
  int v = enabled_vector(c, exc);
  if (!(v == 52 || v == 54)) {
    if (mode == 0) {
      if (sz == 4)
        c->r[reg] = w[0];
      else if (sz == 2)
        c->r[reg] = (c->r[reg] & 0xffff0000u) | w[0];
      else
        c->r[reg] = (c->r[reg] & 0xffffff00u) | w[0];
    } else {
      uint32_t a = m68k__ea_addr_rt(c, mode, reg, sz);
      if (sz <= 4)
        m68k__wr(c, a, sz, w[0]);
      else
        for (int i = 0; i < sz / 4; i++)
          m68k__wr(c, a + 4 * (uint32_t)i, 4, w[i]);
    }
  }
  trap_enabled(c, exc);
}

static void write_ext(m68k_cpu_t *c, uint32_t a, m68k__fpreg_t v)
{
  m68k__wr(c, a, 4, (uint32_t)v.se << 16);
  m68k__wr(c, a + 4, 4, (uint32_t)(v.mant >> 32));
  m68k__wr(c, a + 8, 4, (uint32_t)v.mant);
}

static m68k__fpreg_t read_ext(m68k_cpu_t *c, uint32_t a)
{
  m68k__fpreg_t v;
  v.se = (uint16_t)(m68k__rd(c, a, 4) >> 16);
  v.mant = ((uint64_t)m68k__rd(c, a + 4, 4) << 32) | m68k__rd(c, a + 8, 4);
  return v;
}

/* FMOVEM of data registers: static list in the extension word or dynamic
 * in Dn; -(An) takes the list with bit i for FPi, the other modes bit 7
 * for FP0. Registers move bit for bit, without exceptions. */
static void fmovem(m68k_cpu_t *c, uint32_t op, uint32_t ext)
{
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  unsigned list = (ext & 0x800) ? c->r[(ext >> 4) & 7] & 0xff : ext & 0xff;
  bool to_mem = ext & 0x2000;
  bool predec = !(ext & 0x1000);
  if (mode == 4) {
    if (!to_mem || !predec)
      m68k__line_f(c);
    uint32_t a = c->r[8 + reg];
    for (int i = 7; i >= 0; i--) {
      if (!(list & (1u << i)))
        continue;
      a -= 12;
      write_ext(c, a, c->fp[i]);
    }
    c->r[8 + reg] = a;
    return;
  }
  if (mode == 0 || mode == 1 || (mode == 7 && reg > (to_mem ? 1u : 3u)) || predec ||
      (mode == 3 && to_mem))
    m68k__line_f(c);
  uint32_t a = mode == 3 ? c->r[8 + reg] : m68k__ea_addr_rt(c, mode, reg, 12);
  for (int i = 0; i < 8; i++) {
    if (!(list & (0x80u >> i)))
      continue;
    if (to_mem)
      write_ext(c, a, c->fp[i]);
    else
      c->fp[i] = read_ext(c, a);
    a += 12;
  }
  if (mode == 3)
    c->r[8 + reg] = a;
}

/* FMOVE/FMOVEM of the control registers. FPCR keeps bits 15-4, FPSR bits
 * 27-3; the others read as zero. */
static void fmove_ctrl(m68k_cpu_t *c, uint32_t op, uint32_t ext)
{
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  unsigned list = (ext >> 10) & 7; /* 4 FPCR, 2 FPSR, 1 FPIAR */
  bool to_mem = ext & 0x2000;
  uint32_t *regs[3] = {&c->fpcr, &c->fpsr, &c->fpiar};
  int n = 0;
  for (int i = 0; i < 3; i++)
    if (list & (4u >> i))
      n++;
  if (n == 0)
    n = 1, list = 1; /* an empty list moves FPIAR */
  if (mode == 0 || mode == 1) {
    if (n != 1 || (mode == 1 && list != 1))
      m68k__line_f(c);
    for (int i = 0; i < 3; i++)
      if (list & (4u >> i)) {
        if (to_mem)
          c->r[(mode ? 8 : 0) + reg] = *regs[i];
        else
          *regs[i] = c->r[(mode ? 8 : 0) + reg];
      }
  } else if (mode == 7 && reg == 4) {
    if (to_mem)
      m68k__line_f(c);
    for (int i = 0; i < 3; i++)
      if (list & (4u >> i))
        *regs[i] = m68k__fetch32(c);
  } else {
    uint32_t a;
    if (mode == 4) {
      a = c->r[8 + reg] - 4u * (uint32_t)n;
      c->r[8 + reg] = a;
    } else if (mode == 3) {
      a = c->r[8 + reg];
      c->r[8 + reg] = a + 4u * (uint32_t)n;
    } else {
      a = m68k__ea_addr_rt(c, mode, reg, 4);
    }
    for (int i = 0; i < 3; i++) {
      if (!(list & (4u >> i)))
        continue;
      if (to_mem)
        m68k__wr(c, a, 4, *regs[i]);
      else
        *regs[i] = m68k__rd(c, a, 4);
      a += 4;
    }
  }
  c->fpcr &= 0xfff0;
  c->fpsr &= 0x0ffffff8;
}

/* FMOVECR's ROM (design note 7): value = (hi + lo 2^-64) 2^(e-63). */
static const struct {
  uint8_t off;
  int16_t e;
  uint64_t hi, lo;
} rom[] = {
    {0x00, 1, 0xc90fdaa22168c234ull, 0xc4c6628b80dc1cd1ull},     /* pi */
    {0x0b, -2, 0x9a209a84fbcff798ull, 0x8f8959ac0b7c9178ull},    /* log10(2) */
    {0x0c, 1, 0xadf85458a2bb4a9aull, 0xafdc5620273d3cf1ull},     /* e */
    {0x0d, 0, 0xb8aa3b295c17f0bbull, 0xbe87fed0691d3e88ull},     /* log2(e) */
    {0x0e, -2, 0xde5bd8a937287195ull, 0x355baaafad33dc32ull},    /* log10(e) */
    {0x30, -1, 0xb17217f7d1cf79abull, 0xc9e3b39803f2f6afull},    /* ln(2) */
    {0x31, 1, 0x935d8dddaaa8ac16ull, 0xea56d62b82d30a28ull},     /* ln(10) */
    {0x32, 0, 0x8000000000000000ull, 0},                         /* 1 */
    {0x33, 3, 0xa000000000000000ull, 0},                         /* 10 */
    {0x34, 6, 0xc800000000000000ull, 0},                         /* 10^2 */
    {0x35, 13, 0x9c40000000000000ull, 0},                        /* 10^4 */
    {0x36, 26, 0xbebc200000000000ull, 0},                        /* 10^8 */
    {0x37, 53, 0x8e1bc9bf04000000ull, 0},                        /* 10^16 */
    {0x38, 106, 0x9dc5ada82b70b59dull, 0xf020000000000000ull},   /* 10^32 */
    {0x39, 212, 0xc2781f49ffcfa6d5ull, 0x3cbf6b71c76b25fbull},   /* 10^64 */
    {0x3a, 425, 0x93ba47c980e98cdfull, 0xc66f336c36b10137ull},   /* 10^128 */
    {0x3b, 850, 0xaa7eebfb9df9de8dull, 0xddbb901b98feeab7ull},   /* 10^256 */
    {0x3c, 1700, 0xe319a0aea60e91c6ull, 0xcc655c54bc5058f8ull},  /* 10^512 */
    {0x3d, 3401, 0xc976758681750c17ull, 0x650d3d28f18b50ceull},  /* 10^1024 */
    {0x3e, 6803, 0x9e8b3b5dc53d5de4ull, 0xa74d28ce329ace52ull},  /* 10^2048 */
    {0x3f, 13606, 0xc46052028a20979aull, 0xc94c153f804a4a92ull}, /* 10^4096 */
};

static m68k__fpreg_t constant(m68k_cpu_t *c, unsigned off, uint32_t *exc)
{
  for (size_t i = 0; i < sizeof rom / sizeof rom[0]; i++) {
    if (rom[i].off != off)
      continue;
    /* hi and lo are exact on the host; one rounding of their sum. */
    volatile long double h = ldexpl((long double)rom[i].hi, rom[i].e - 63);
    volatile long double l = ldexpl((long double)rom[i].lo, rom[i].e - 127), r;
    fpu_control_t old = fpu_enter(c, PREC_FPCR);
    r = h + l;
    *exc |= fpu_leave(old);
    return from_ld(r);
  }
  m68k__fpreg_t zero = {0, 0};
  return zero;
}

/* ---- arithmetic ---- */

/* The opmodes (command field) of the 68881, bit 6 clear. */
enum {
  F_MOVE = 0x00, F_INT = 0x01, F_SINH = 0x02, F_INTRZ = 0x03, F_SQRT = 0x04, F_LOGNP1 = 0x06,
  F_ETOXM1 = 0x08, F_TANH = 0x09, F_ATAN = 0x0a, F_ASIN = 0x0c, F_ATANH = 0x0d, F_SIN = 0x0e,
  F_TAN = 0x0f, F_ETOX = 0x10, F_TWOTOX = 0x11, F_TENTOX = 0x12, F_LOGN = 0x14, F_LOG10 = 0x15,
  F_LOG2 = 0x16, F_ABS = 0x18, F_COSH = 0x19, F_NEG = 0x1a, F_ACOS = 0x1c, F_COS = 0x1d,
  F_GETEXP = 0x1e, F_GETMAN = 0x1f, F_DIV = 0x20, F_MOD = 0x21, F_ADD = 0x22, F_MUL = 0x23,
  F_SGLDIV = 0x24, F_REM = 0x25, F_SCALE = 0x26, F_SGLMUL = 0x27, F_SUB = 0x28,
  F_SINCOS = 0x30, /* 0x30-0x37, the cosine's register in bits 2-0 */
  F_CMP = 0x38, F_TST = 0x3a,
};

static __float128 tentox(__float128 x) { return powq(10, x); }

/* The transcendental instructions' functions, in quadruple precision
 * (design note 2). */
static q_fn transcendental(unsigned cmd)
{
  switch (cmd) {
  case F_SINH: return sinhq;
  case F_LOGNP1: return log1pq;
  case F_ETOXM1: return expm1q;
  case F_TANH: return tanhq;
  case F_ATAN: return atanq;
  case F_ASIN: return asinq;
  case F_ATANH: return atanhq;
  case F_SIN: return sinq;
  case F_TAN: return tanq;
  case F_ETOX: return expq;
  case F_TWOTOX: return exp2q;
  case F_TENTOX: return tentox;
  case F_LOGN: return logq;
  case F_LOG10: return log10q;
  case F_LOG2: return log2q;
  case F_COSH: return coshq;
  case F_ACOS: return acosq;
  case F_COS: return cosq;
  default: return NULL;
  }
}

/* q rounded once to the FPCR's mode and precision: q is split into hi + lo
 * (lo exact, q having 113 bits) and the x87 rounds their sum, raising
 * OVFL, UNFL and INEX2 as for any result. Quadruple precision has the
 * extended exponent range, so a q that overflowed (an infinity from a
 * finite operand, not a pole) or underflowed to zero (flushed: a zero
 * from a non-zero operand of an exponential) is rounded as such here. */
static long double round_quad(const m68k_cpu_t *c, __float128 q, bool overflowed,
                              bool flushed, uint32_t *exc)
{
  volatile long double a, b, r;
  if (__builtin_isinf(q) && overflowed) {
    a = b = copysignl(LDBL_MAX, (long double)q);
  } else if (q == 0 && flushed) {
    a = LDBL_TRUE_MIN;
    b = 0.25L;
  } else if (__builtin_isnan(q) || __builtin_isinf(q) || q == 0) {
    return (long double)q;
  } else {
    long double h = (long double)q;
    if (isinf(h)) { /* above the extended range after rounding to nearest */
      a = b = copysignl(LDBL_MAX, h);
    } else {
      a = h;
      b = (long double)(q - (__float128)h);
    }
  }
  fpu_control_t old = fpu_enter(c, PREC_FPCR);
  r = q == 0 ? a * b : a + b;
  *exc |= fpu_leave(old);
  return r;
}

static bool is_dyadic(unsigned cmd) { return (cmd >= F_DIV && cmd <= F_SUB) || cmd == F_CMP; }

/* The operation of basic() on the x87 as its control word now stands. */
static long double basic_op(unsigned cmd, volatile long double *a, volatile long double *b)
{
  volatile long double one = 1.0L, r;
  switch (cmd) {
  case F_ADD: r = *a + *b; break;
  case F_SUB: r = *a - *b; break;
  case F_MUL:
  case F_SGLMUL: r = *a * *b; break;
  case F_DIV:
  case F_SGLDIV: r = *a / *b; break;
  case F_SQRT: { /* the instruction itself: libm's sqrtl reports errors elsewhere */
    long double x = *b, y;
    __asm__("fsqrt" : "=t"(y) : "0"(x));
    r = y;
    break;
  }
  case F_INT: r = rintl(*b); break;
  default: r = *b * one; break; /* FMOVE FABS FNEG: the rounding */
  }
  return r;
}

/* d op s rounded in the FPCR's mode to precision prec, the exceptions from
 * the x87's status flags (fpu_enter, fpu_leave): exact for every operand. */
static long double basic_exact(const m68k_cpu_t *c, unsigned cmd, long double d, long double s,
                               int prec, uint32_t *exc)
{
  volatile long double a = d, b = s, r;
  fpu_control_t old = fpu_enter(c, prec);
  r = basic_op(cmd, &a, &b);
  *exc |= fpu_leave(old);
  return r;
}

/* The number of significant bits of the product of two mantissas (any
 * alignment, at most 64 and 64 bits). */
static unsigned mant_product_bits(uint64_t a, uint64_t b)
{
  unsigned __int128 p = (unsigned __int128)a * b;
  if (p == 0)
    return 0;
  uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
  unsigned top = hi ? 128u - (unsigned)__builtin_clzll(hi) : 64u - (unsigned)__builtin_clzll(lo);
  unsigned low = lo ? (unsigned)__builtin_ctzll(lo) : 64u + (unsigned)__builtin_ctzll(hi);
  return top - low;
}

/* The same for a's and b's mantissas (the x87's 64 bits, integer bit
 * explicit): the product of a and b is representable at extended
 * precision when it is at most 64 and the exponent in range. */
static unsigned product_bits(long double a, long double b)
{
  uint64_t ma, mb;
  memcpy(&ma, &a, sizeof ma); /* x86: the mantissa is the low 8 bytes */
  memcpy(&mb, &b, sizeof mb);
  return mant_product_bits(ma, mb);
}

/* Whether r, the sum d + b rounded to nearest, is inexact: Knuth's TwoSum
 * (design note 10), whose error term (d - av) + (b - bv) is exact. */
static inline bool sum_inexact(long double d, long double b, long double r)
{
  long double bv = r - d, av = r - bv;
  return (d - av) + (b - bv) != 0;
}

/* basic_fast at extended precision rounding to nearest while the x87 is
 * set so (design note 10): d op s and INEX2 without loading the control
 * word; false for a result the paths through the flags must settle. The
 * operands are finite, no divisor zero, no square root negative. */
static bool basic_nearest(unsigned cmd, long double d, long double s, long double *out,
                          uint32_t *exc)
{
  long double r;
  bool inexact, zero_exact; /* zero_exact: a zero result is the exact one */
  switch (cmd) {
  case F_ADD:
  case F_SUB: {
    long double b = cmd == F_SUB ? -s : s;
    r = d + b;
    *out = r;
    if (!isfinite(r))
      return false;
    if (sum_inexact(d, b, r))
      *exc |= EXC_INEX2;
    return true; /* a tiny sum is exact (no UNFL), and so is its error */
  }
  case F_MUL:
    r = d * s;
    inexact = product_bits(d, s) > 64;
    zero_exact = d == 0 || s == 0;
    break;
  case F_DIV:
    r = d / s;
    inexact = product_bits(r, s) > 64 || r * s != d;
    zero_exact = d == 0;
    break;
  case F_SQRT: {
    long double x = s;
    __asm__("fsqrt" : "=t"(r) : "0"(x));
    inexact = product_bits(r, r) > 64 || r * r != s;
    zero_exact = s == 0;
    break;
  }
  default: /* FMOVE FABS FNEG: an extended value rounds to itself */
    *out = s;
    return true;
  }
  if (!isfinite(r) || (fabsl(r) < LDBL_MIN && !(r == 0 && zero_exact)))
    return false; /* overflowed, or tiny (UNFL's affair) */
  *out = r;
  if (inexact)
    *exc |= EXC_INEX2;
  return true;
}

/* The same without the status flags (design note 9): false when the case
 * is one the values alone cannot settle, which basic_exact then takes. */
static bool basic_fast(const m68k_cpu_t *c, unsigned cmd, long double d, long double s, int prec,
                       long double *out, uint32_t *exc)
{
  if (cmd == F_INT || !isfinite(d) || !isfinite(s) ||
      ((cmd == F_DIV || cmd == F_SGLDIV) && s == 0) || (cmd == F_SQRT && s < 0))
    return false;
  unsigned mode = (c->fpcr >> 4) & 3;
  fpu_control_t old = x87_get_cw(), base = fpu_cw_base(c, prec, old);
  if (mode == 0 && (base | _FPU_RC_NEAREST) == old && (old & _FPU_EXTENDED) == _FPU_EXTENDED)
    return basic_nearest(cmd, d, s, out, exc);
  volatile long double a = d, b = s;
  x87_set_cw(base | host_rc[mode]);
  long double r = basic_op(cmd, &a, &b), up = r, down = r;
  if (mode != 3) { /* FPCR modes: 0 nearest, 1 zero, 2 down (minus), 3 up (plus) */
    x87_set_cw(base | _FPU_RC_UP);
    up = basic_op(cmd, &a, &b);
  }
  if (mode != 2) {
    x87_set_cw(base | _FPU_RC_DOWN);
    down = basic_op(cmd, &a, &b);
  }
  x87_set_cw(old);
  /* An infinity from finite operands overflowed; the exact result lies in
   * [down, up], which is a single value exactly when it was representable. */
  if (!isfinite(up) || !isfinite(down))
    return false;
  bool inexact = up != down;
  if (inexact && (fabsl(up) < LDBL_MIN || fabsl(down) < LDBL_MIN))
    return false; /* maybe tiny: UNFL depends on where tininess is detected */
  *out = r;
  if (inexact)
    *exc |= EXC_INEX2;
  return true;
}

/* d op s rounded in the FPCR's mode to precision prec. */
static long double basic(const m68k_cpu_t *c, unsigned cmd, long double d, long double s,
                         int prec, uint32_t *exc)
{
  long double r;
  if (basic_fast(c, cmd, d, s, prec, &r, exc))
    return r;
  return basic_exact(c, cmd, d, s, prec, exc);
}

bool m68k__fpu_basic_paths(uint32_t fpcr, unsigned cmd, m68k__fpreg_t d, m68k__fpreg_t s,
                           m68k__fpreg_t res[2], uint32_t exc[2])
{
  m68k_cpu_t c;
  memset(&c, 0, sizeof c);
  c.fpcr = fpcr;
  int prec = cmd == F_SGLMUL || cmd == F_SGLDIV ? PREC_S : PREC_FPCR;
  long double dv = to_ld(d), sv = to_ld(s), r;
  exc[0] = exc[1] = 0;
  res[1] = from_ld(basic_exact(&c, cmd, dv, sv, prec, &exc[1]));
  if (!basic_fast(&c, cmd, dv, sv, prec, &r, &exc[0]))
    return false;
  res[0] = from_ld(r);
  return true;
}

/* The low 7 bits of |trunc(d / s)| (near: of the nearest integer) for the
 * quotient byte. fmodl and remainderl are exact. */
static unsigned quotient_bits(long double d, long double s, bool near)
{
  long double ad = fabsl(d), as = fabsl(s);
  long double big = fmodl(ad, 128.0L * as);
  long double r = near ? remainderl(ad, as) : fmodl(ad, as);
  long double q = rintl((big - r) / as);
  return (unsigned)(long)q & 0x7f;
}

/* Executes arithmetic opmode cmd on source src into register dst, with
 * the exceptions exc of reading the source: sets the FPSR, writes the
 * result (not for FCMP, FTST or an enabled SNAN/OPERR/DZ), traps. */
static void arith(m68k_cpu_t *c, unsigned cmd, m68k__fpreg_t src, unsigned dst, uint32_t exc)
{
  m68k__fpreg_t dreg = c->fp[dst];
  m68k__fpreg_t res, res2 = {0, 0};
  bool write = cmd != F_CMP && cmd != F_TST;
  bool dyadic = is_dyadic(cmd);
  unsigned sincos_c = cmd & 7;
  if (cmd >= F_SINCOS && cmd < F_CMP)
    cmd = F_SINCOS;
  long double s = to_ld(src), d = to_ld(dreg), r;
  if (is_nan(src) || (dyadic && is_nan(dreg))) {
    res = res2 = nan_result(dreg, src, dyadic, &exc);
    if (cmd == F_MOD || cmd == F_REM)
      c->fpsr &= ~0x00ff0000u;
  } else {
    switch (cmd) {
    case F_CMP:
      /* The condition codes of d - s, which is exact in sign; equal
       * infinities compare equal. No exception but SNAN. */
      if (d == s && isinf(d))
        res = from_ld(signbit(d) ? -0.0L : 0.0L);
      else if (d == s)
        res = from_ld(d - s);
      else
        res = from_ld(d < s ? -1.0L : 1.0L);
      break;
    case F_TST: res = src; break;
    case F_MOVE:
    case F_ABS:
    case F_NEG:
      r = cmd == F_ABS ? fabsl(s) : cmd == F_NEG ? -s : s;
      res = from_ld(basic(c, cmd, 0, r, PREC_FPCR, &exc));
      break;
    case F_INT:
      res = from_ld(basic(c, cmd, d, s, PREC_FPCR, &exc));
      if (to_ld(res) != s)
        exc |= EXC_INEX2;
      break;
    case F_SQRT:
    case F_ADD:
    case F_SUB:
    case F_MUL:
    case F_DIV:
      res = from_ld(basic(c, cmd, d, s, PREC_FPCR, &exc));
      break;
    case F_SGLMUL:
    case F_SGLDIV:
      res = from_ld(basic(c, cmd, d, s, PREC_S, &exc));
      break;
    case F_INTRZ:
      res = from_ld(round_to(c, truncl(s), PREC_FPCR, &exc));
      if (truncl(s) != s)
        exc |= EXC_INEX2;
      break;
    case F_MOD:
    case F_REM: {
      bool near = cmd == F_REM;
      r = near ? remainderl(d, s) : fmodl(d, s);
      bool bad = isnan(r);
      uint32_t q = 0;
      if (bad) {
        exc |= EXC_OPERR;
      } else {
        q = isinf(s) ? 0 : quotient_bits(d, s, near);
        if (signbit(d) != signbit(s))
          q |= 0x80;
      }
      c->fpsr = (c->fpsr & ~0x00ff0000u) | q << 16;
      res = from_ld(round_to(c, r, PREC_FPCR, &exc));
      break;
    }
    case F_SCALE: {
      if (isinf(s)) {
        exc |= EXC_OPERR;
        res = default_nan;
        break;
      }
      long double n = truncl(s);
      int k = n > 32767 ? 32767 : n < -32767 ? -32767 : (int)n;
      volatile long double a = d, t;
      fpu_control_t old = fpu_enter(c, PREC_FPCR);
      t = scalbnl(a, k);
      exc |= fpu_leave(old);
      res = from_ld(round_to(c, t, PREC_FPCR, &exc));
      break;
    }
    case F_GETEXP:
    case F_GETMAN:
      if (isinf(s)) {
        exc |= EXC_OPERR;
        res = default_nan;
      } else if (s == 0) {
        res = src;
      } else {
        int e;
        long double f = frexpl(s, &e);
        res = from_ld(cmd == F_GETEXP ? (long double)(e - 1) : round_to(c, f * 2, PREC_FPCR, &exc));
      }
      break;
    case F_SINCOS:
    default: {
      q_fn fn = cmd == F_SINCOS ? sinq : transcendental(cmd);
      if (fn == NULL)
        m68k__line_f(c);
      /* The domain errors and poles from libquadmath; the rest from the
       * rounding. */
      feclearexcept(FE_ALL_EXCEPT);
      __float128 q = fn((__float128)s), q2 = cmd == F_SINCOS ? cosq((__float128)s) : 0;
      int f = fetestexcept(FE_INVALID | FE_DIVBYZERO);
      feclearexcept(FE_ALL_EXCEPT);
      if (f & FE_INVALID)
        exc |= EXC_OPERR;
      if (f & FE_DIVBYZERO)
        exc |= EXC_DZ;
      bool ovf = isfinite(s) && !(f & FE_DIVBYZERO);
      bool flushed = s != 0 && (cmd == F_ETOX || cmd == F_TWOTOX || cmd == F_TENTOX);
      res = from_ld(round_quad(c, q, ovf, flushed, &exc));
      res2 = from_ld(round_quad(c, q2, ovf, false, &exc));
      break;
    }
    }
    if (is_nan(res))
      res = default_nan;
    if (is_nan(res2))
      res2 = default_nan;
  }
  set_exc(c, exc);
  int v = enabled_vector(c, exc);
  if (v == 52 || v == 54 || v == 50)
    write = false;
  set_cc(c, cc_of(res));
  if (write) {
    c->fp[dst] = res;
    if (cmd == F_SINCOS)
      c->fp[sincos_c] = res2;
  }
  trap_enabled(c, exc);
}

_Static_assert(offsetof(m68k__fpreg_t, mant) == 0 && offsetof(m68k__fpreg_t, se) == 8 &&
                   sizeof(m68k__fpreg_t) == sizeof(long double),
               "an FP register is laid out as the x87's extended format");

/* r is a normal number or a zero, which to_ld and from_ld pass unchanged. */
static bool is_plain(m68k__fpreg_t r)
{
  unsigned e = r.se & 0x7fff;
  return e == 0 ? r.mant == 0 : e != 0x7fff && (r.mant & INT_BIT);
}

/* The class of v by FXAM (Intel SDM, FXAM): the condition bits C3 C2 C0
 * of the status word, and C1, v's sign. */
enum { X87_NAN = 0x100, X87_SIGN = 0x200, X87_NORMAL = 0x400, X87_INF = 0x500, X87_ZERO = 0x4000,
       X87_DENORMAL = 0x4400, X87_CLASS = 0x4500 };

static inline unsigned x87_class(long double v)
{
  uint16_t sw;
  __asm__("fxam\n\tfnstsw %0" : "=a"(sw) : "t"(v));
  return sw & (X87_CLASS | X87_SIGN);
}

/* The normal or zero register for sign `neg` and magnitude m * 2^e (m != 0
 * any integer up to 64 bits): exact, as the 68881's conversions are. */
static m68k__fpreg_t fp_of(bool neg, uint64_t m, int e)
{
  m68k__fpreg_t r = {.mant = 0, .se = (uint16_t)(neg ? 0x8000 : 0)};
  if (m == 0)
    return r;
  int z = __builtin_clzll(m);
  r.mant = m << z;
  r.se |= (uint16_t)(16383 + 63 - z + e);
  return r;
}

/* v into register r by one FSTPT, read back by nothing here (note 11). */
static inline void fp_store(m68k__fpreg_t *r, long double v)
{
  __asm__("fstpt %0" : "=m"(*r) : "t"(v) : "st");
}

/* Note 11: the 128-bit magnitude m, its top bit set and standing for the
 * integer bit at biased exponent e, rounded to nearest even into *r with
 * sign neg; *inexact when bits were lost. False, *r untouched, when the
 * result is not normal (an overflow, or below the smallest normal). */
static bool round_nearest(bool neg, int e, unsigned __int128 m, m68k__fpreg_t *r, bool *inexact)
{
  uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
  *inexact = lo != 0;
  if ((lo >> 63) && ((lo << 1) != 0 || (hi & 1)) && ++hi == 0) {
    hi = INT_BIT; /* carried out of the mantissa */
    e++;
  }
  if (e <= 0 || e >= 0x7fff)
    return false;
  r->mant = hi;
  r->se = (uint16_t)((neg ? 0x8000 : 0) | e);
  return true;
}

/* d * s of two plain values (is_plain), rounded to nearest extended. */
static bool mul_nearest(m68k__fpreg_t d, m68k__fpreg_t s, m68k__fpreg_t *r, bool *inexact)
{
  bool neg = (d.se ^ s.se) & 0x8000;
  if (d.mant == 0 || s.mant == 0) { /* a zero: exact */
    r->mant = 0;
    r->se = neg ? 0x8000 : 0;
    *inexact = false;
    return true;
  }
  unsigned __int128 p = (unsigned __int128)d.mant * s.mant; /* 2^126 <= p < 2^128 */
  int z = (int)!(uint64_t)(p >> 127);
  return round_nearest(neg, (d.se & 0x7fff) + (s.se & 0x7fff) - 16383 + 1 - z, p << z, r,
                       inexact);
}

/* d + s of two plain values, rounded to nearest extended. */
static bool add_nearest(m68k__fpreg_t d, m68k__fpreg_t s, m68k__fpreg_t *r, bool *inexact)
{
  *inexact = false;
  if (s.mant == 0 || d.mant == 0) {
    /* x + 0 is x; two zeros of opposite signs sum to +0 when rounding
     * to nearest. */
    *r = s.mant == 0 ? d : s;
    if (s.mant == 0 && d.mant == 0 && (d.se ^ s.se))
      r->se = 0;
    return true;
  }
  /* a: the larger magnitude, b: the smaller, b's mantissa aligned under
   * a's in 128 bits; lost: b had bits below them. */
  unsigned ea = d.se & 0x7fff, eb = s.se & 0x7fff;
  m68k__fpreg_t a = d, b = s;
  if (eb > ea || (eb == ea && s.mant > d.mant)) {
    a = s;
    b = d;
    unsigned t = ea;
    ea = eb;
    eb = t;
  }
  unsigned diff = ea - eb;
  unsigned __int128 A = (unsigned __int128)a.mant << 64, B = 0;
  bool lost = true;
  if (diff < 128) {
    B = ((unsigned __int128)b.mant << 64) >> diff;
    lost = diff > 64 && (b.mant << (128 - diff)) != 0;
  }
  int e = (int)ea;
  unsigned __int128 m;
  if (!((a.se ^ b.se) & 0x8000)) {
    m = A + B;
    if (m < A) { /* carried into bit 128 (so diff < 64: bit 0, shifted out, is 0) */
      m = (m >> 1) | ((unsigned __int128)1 << 127);
      e++;
    }
  } else {
    /* A - B - (what was lost, between 0 and 1): one less, and more
     * than nothing below. */
    m = A - B - lost;
    if (m == 0) { /* x - x is +0 when rounding to nearest */
      r->mant = 0;
      r->se = 0;
      return true;
    }
    uint64_t hi = (uint64_t)(m >> 64);
    int z = hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)m);
    m <<= z;
    e -= z;
  }
  return round_nearest(a.se & 0x8000, e, m | lost, r, inexact);
}

/* FCMP's condition codes: those of d - s (N and Z; -0 - +0 is -0). */
static uint32_t cmp_cc(m68k__fpreg_t d, m68k__fpreg_t s)
{
  bool dn = d.se & 0x8000, sn = s.se & 0x8000;
  if (d.mant == 0 && s.mant == 0)
    return dn && !sn ? FPCC_N | FPCC_Z : FPCC_Z;
  if (d.mant == s.mant && d.se == s.se)
    return FPCC_Z;
  /* Magnitudes as integers: the exponent above the mantissa. */
  unsigned __int128 dm = ((unsigned __int128)(d.se & 0x7fff) << 64) | d.mant,
                    sm = ((unsigned __int128)(s.se & 0x7fff) << 64) | s.mant;
  bool less = dn != sn ? dn : dn ? dm > sm : dm < sm;
  return less ? FPCC_N : 0;
}

bool m68k__fpu_fast(m68k_cpu_t *c, uint32_t how, uint64_t bits, uint32_t pc)
{
  unsigned cmd = how & 0x7f, dst = (how >> 7) & 7, kind = how >> 10;
  /* The FPCR's default: nearest, extended, all masked. */
  if (c->fpcr != 0)
    return false;
  m68k__fpreg_t *dr = &c->fp[dst], src;
  uint64_t sm; /* the source's mantissa, any alignment */
  switch (kind) {
  case M68K_FPU_FAST_REG:
    src = c->fp[bits & 7];
    if (!is_plain(src))
      return false;
    sm = src.mant;
    break;
  case M68K_FPU_FAST_L: {
    int32_t v = (int32_t)(uint32_t)bits;
    sm = v < 0 ? 0u - (uint64_t)(int64_t)v : (uint64_t)v;
    src = fp_of(v < 0, sm, 0);
    break;
  }
  case M68K_FPU_FAST_S: {
    unsigned e = (bits >> 23) & 0xff;
    if (e == 0xff)
      return false; /* an infinity or a NaN: arith's */
    sm = (bits & 0x7fffff) | (e ? 0x800000u : 0);
    src = fp_of(bits & 0x80000000u, sm, (e ? (int)e : 1) - 127 - 23);
    break;
  }
  default: {
    unsigned e = (bits >> 52) & 0x7ff;
    if (e == 0x7ff)
      return false;
    sm = (bits & 0xfffffffffffffull) | (e ? 1ull << 52 : 0);
    src = fp_of(bits >> 63, sm, (e ? (int)e : 1) - 1023 - 52);
    break;
  }
  }
  uint32_t exc = 0, cc = 0;
  if (cmd == F_MOVE || cmd == F_TST) {
    /* No rounding: the source's bits, no x87. */
    cc = cc_of(src);
    if (cmd == F_MOVE)
      *dr = src;
  } else if (cmd != F_DIV) {
    /* In integers (a product's and a sum's rounding by their bits), so
     * that no result goes through the x87's slow store. */
    m68k__fpreg_t d = *dr, r;
    if (!is_plain(d))
      return false; /* not normal or zero: arith's */
    bool inexact = false;
    switch (cmd) {
    case F_CMP: cc = cmp_cc(d, src); break;
    case F_SUB: src.se ^= 0x8000; /* fall through */
    case F_ADD:
      if (!add_nearest(d, src, &r, &inexact))
        return false; /* tiny or overflowed: arith's */
      break;
    case F_MUL:
      if (!mul_nearest(d, src, &r, &inexact))
        return false;
      break;
    default: return false;
    }
    if (cmd != F_CMP) {
      cc = cc_of(r);
      /* Field by field: round_nearest wrote r so, and a 16-byte copy
       * would load it whole before those stores reach the cache, which
       * no store forwards (a third of fpubench's time). */
      dr->mant = r.mant;
      dr->se = r.se;
    }
    if (inexact)
      exc = EXC_INEX2 | AEXC_INEX;
  } else {
    /* The x87's, which must be set as the FPCR's default is. */
    if ((x87_get_cw() & 0xf3f) != 0x33f)
      return false;
    long double s, d, r;
    memcpy(&s, &src, sizeof s);
    memcpy(&d, dr, sizeof d);
    unsigned dc = x87_class(d) & X87_CLASS;
    if ((dc != X87_NORMAL && dc != X87_ZERO) || s == 0)
      return false; /* not normal or zero, or a divisor zero: arith's */
    r = d / s;
    m68k__fpreg_t q;
    memcpy(&q, &r, sizeof q);
    bool inexact = mant_product_bits(q.mant, sm) > 64 || r * s != d;
    unsigned rc = x87_class(r);
    switch (rc & X87_CLASS) {
    case X87_NORMAL: break;
    case X87_ZERO:
      if (d == 0)
        break; /* exact */
      return false;
    default: return false; /* tiny or overflowed: arith's */
    }
    cc = (rc & X87_SIGN ? FPCC_N : 0) | ((rc & X87_CLASS) == X87_ZERO ? FPCC_Z : 0);
    if (inexact)
      exc = EXC_INEX2 | AEXC_INEX;
    fp_store(dr, r);
  }
  /* set_exc and set_cc for exc 0 or INEX2, in one store: those two calls
   * cost this path 4 % of fpubench. */
  c->fpsr = (c->fpsr & 0x00ff00ffu) | cc | exc;
  c->fpiar = pc;
  return true;
}

bool m68k__fpu_fast_paths(unsigned cmd, m68k__fpreg_t d, m68k__fpreg_t s, m68k__fpreg_t res[2],
                          uint32_t fpsr[2])
{
  static m68k_cpu_t c[2]; /* large; the tests run on one thread */
  for (int i = 0; i < 2; i++) {
    memset(&c[i], 0, sizeof c[i]);
    c[i].fp[0] = d;
    c[i].fp[1] = s;
  }
  arith(&c[1], cmd, s, 0, 0);
  res[1] = c[1].fp[0];
  fpsr[1] = c[1].fpsr;
  if (!m68k__fpu_fast(&c[0], cmd | (uint32_t)M68K_FPU_FAST_REG << 10, 1, 0))
    return false;
  res[0] = c[0].fp[0];
  fpsr[0] = c[0].fpsr;
  return true;
}

void m68k__fpu_general(m68k_cpu_t *c, uint32_t op)
{
  uint32_t ext = m68k__fetch16(c);
  unsigned opclass = ext >> 13;
  uint32_t exc = 0;
  switch (opclass) {
  case 0:
  case 2: {
    unsigned dst = (ext >> 7) & 7;
    unsigned cmd = ext & 0x7f;
    if (opclass == 2 && ((ext >> 10) & 7) == 7) { /* FMOVECR */
      if (op & 0x3f)
        m68k__line_f(c);
      c->fpiar = c->ppc;
      m68k__fpreg_t k = constant(c, cmd, &exc);
      set_exc(c, exc);
      c->fp[dst] = k;
      set_cc(c, cc_of(k));
      trap_enabled(c, exc);
      return;
    }
    if (cmd & 0x40 || (transcendental(cmd) == NULL && cmd != F_MOVE && cmd != F_INT &&
                       cmd != F_INTRZ && cmd != F_SQRT && cmd != F_ABS && cmd != F_NEG &&
                       !(cmd >= F_GETEXP && cmd <= F_SUB) && !(cmd >= F_SINCOS && cmd <= F_CMP) &&
                       cmd != F_TST))
      m68k__line_f(c);
    if (opclass == 0 && (op & 0x3f))
      m68k__line_f(c);
    c->fpiar = c->ppc;
    m68k__fpreg_t src = opclass == 0 ? c->fp[(ext >> 10) & 7] : read_src(c, op, (ext >> 10) & 7, &exc);
    arith(c, cmd, src, dst, exc);
    return;
  }
  case 3:
    c->fpiar = c->ppc;
    write_dst(c, op, ext, c->fp[(ext >> 7) & 7]);
    return;
  case 4:
  case 5:
    fmove_ctrl(c, op, ext);
    return;
  case 6:
  case 7:
    fmovem(c, op, ext);
    return;
  default: m68k__line_f(c);
  }
}

/* ---- conditional instructions ---- */

/* The IEEE-aware predicate cc (0-31). Predicates 16-31 are the signalling
 * forms of 0-15: with NAN set they set BSUN and, when it is enabled, trap
 * before the instruction does anything. */
static bool fcond(m68k_cpu_t *c, unsigned cc)
{
  if (cc > 31)
    m68k__line_f(c);
  bool n = c->fpsr & FPCC_N, z = c->fpsr & FPCC_Z, nan = c->fpsr & FPCC_NAN;
  if ((cc & 16) && nan) {
    c->fpsr |= EXC_BSUN | AEXC_IOP;
    if (c->fpcr & EXC_BSUN) {
      c->pc = c->ppc;
      m68k__exception_abort(c, 48, c->ppc, 0, 0);
    }
  }
  switch (cc & 15) {
  case 0: return false;                 /* F, SF */
  case 1: return z;                     /* EQ, SEQ */
  case 2: return !(nan || z || n);      /* OGT, GT */
  case 3: return z || !(nan || n);      /* OGE, GE */
  case 4: return n && !(nan || z);      /* OLT, LT */
  case 5: return z || (n && !nan);      /* OLE, LE */
  case 6: return !(nan || z);           /* OGL, GL */
  case 7: return !nan;                  /* OR, GLE */
  case 8: return nan;                   /* UN, NGLE */
  case 9: return nan || z;              /* UEQ, NGL */
  case 10: return nan || !(n || z);     /* UGT, NLE */
  case 11: return nan || z || !n;       /* UGE, NLT */
  case 12: return nan || (n && !z);     /* ULT, NGE */
  case 13: return nan || z || n;        /* ULE, NGT */
  case 14: return !z;                   /* NE, SNE */
  default: return true;                 /* T, ST */
  }
}

void m68k__fpu_bcc(m68k_cpu_t *c, uint32_t op)
{
  uint32_t base = c->pc;
  uint32_t disp = (op & 0x40) ? m68k__fetch32(c) : (uint32_t)(int32_t)(int16_t)m68k__fetch16(c);
  if (fcond(c, op & 0x3f))
    c->pc = base + disp;
}

void m68k__fpu_scc(m68k_cpu_t *c, uint32_t op)
{
  uint32_t ext = m68k__fetch16(c);
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  if (ext & 0xffc0)
    m68k__line_f(c);
  if (mode == 1) { /* FDBcc */
    uint32_t base = c->pc;
    uint32_t disp = (uint32_t)(int32_t)(int16_t)m68k__fetch16(c);
    if (fcond(c, ext & 0x3f))
      return;
    uint32_t cnt = (c->r[reg] - 1) & 0xffff;
    c->r[reg] = (c->r[reg] & 0xffff0000u) | cnt;
    if (cnt != 0xffff)
      c->pc = base + disp;
    return;
  }
  if (mode == 7 && reg >= 2) { /* FTRAPcc */
    if (reg == 2)
      (void)m68k__fetch16(c);
    else if (reg == 3)
      (void)m68k__fetch32(c);
    else if (reg != 4)
      m68k__line_f(c);
    if (fcond(c, ext & 0x3f))
      m68k__exception(c, M68K_VEC_TRAPV, c->pc, 2, c->ppc);
    return;
  }
  uint32_t v = fcond(c, ext & 0x3f) ? 0xff : 0;
  if (mode == 0)
    c->r[reg] = (c->r[reg] & 0xffffff00u) | v;
  else
    m68k__wr(c, m68k__ea_addr_rt(c, mode, reg, 1), 1, v);
}

void m68k__fpu_save(m68k_cpu_t *c, uint32_t op)
{
  if (!c->s)
    m68k__privilege(c);
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  if (mode < 2 || mode == 3)
    m68k__line_f(c);
  uint32_t a = m68k__ea_addr_rt(c, mode, reg, 4);
  m68k__wr(c, a, 4, 0); /* null frame (design note 8) */
}

void m68k__fpu_restore(m68k_cpu_t *c, uint32_t op)
{
  if (!c->s)
    m68k__privilege(c);
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  if (mode < 2 || mode == 4)
    m68k__line_f(c);
  uint32_t a = mode == 3 ? c->r[8 + reg] : m68k__ea_addr_rt(c, mode, reg, 4);
  uint32_t w = m68k__rd(c, a, 4);
  uint32_t len = (w >> 16) & 0xff;
  if ((w >> 24) == 0) {
    m68k__fpu_reset(c);
    len = 0;
  }
  if (mode == 3)
    c->r[8 + reg] = a + 4 + len;
}

void m68k_get_fpreg(const m68k_cpu_t *cpu, int n, uint16_t *sign_exp, uint64_t *mant)
{
  *sign_exp = cpu->fp[n & 7].se;
  *mant = cpu->fp[n & 7].mant;
}

void m68k_set_fpreg(m68k_cpu_t *cpu, int n, uint16_t sign_exp, uint64_t mant)
{
  cpu->fp[n & 7].se = sign_exp;
  cpu->fp[n & 7].mant = mant;
}

uint32_t m68k_get_fpctl(const m68k_cpu_t *cpu, int which)
{
  return which == 0 ? cpu->fpcr : which == 1 ? cpu->fpsr : cpu->fpiar;
}

void m68k_set_fpctl(m68k_cpu_t *cpu, int which, uint32_t v)
{
  if (which == 0)
    cpu->fpcr = v & 0xfff0u; /* the bits the 68881 keeps */
  else if (which == 1)
    cpu->fpsr = v & 0x0ffffff8u;
  else
    cpu->fpiar = v;
}
