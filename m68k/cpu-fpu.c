/* cpu-fpu.c -- the 68881 register file, its data movement and basic arithmetic.
 *
 * Design notes
 *
 * 1. FP0-FP7 are kept in the 68881's extended format (sign and exponent,
 *    64-bit mantissa with explicit integer bit): exactly what FMOVE.X and
 *    FMOVEM move, so register contents survive a save and restore bit for
 *    bit. Arithmetic converts to the host's long double and back.
 * 2. Implemented: FMOVE in all directions for .b .w .l .s .d .x (not .p),
 *    FMOVE/FMOVEM of FPCR/FPSR/FPIAR, FMOVEM of data registers (static and
 *    dynamic lists), FMOVECR for 0.0/1.0/10^n, FADD FSUB FMUL FDIV FSQRT FABS
 *    FNEG FINT FINTRZ FCMP FTST, FBcc, FScc, FDBcc, FTRAPcc. FSAVE writes a
 *    null frame (one long word 0) and FRESTORE of a null frame resets the
 *    FPU; other frames are accepted and skipped by their length byte.
 *    Anything else (packed decimal, transcendental functions) raises the
 *    F-line exception, so the embedder can report it with its PC.
 * 3. Exceptions enabled in FPCR are not raised; FPSR's condition codes and
 *    accrued bits are kept.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "m68k-internal.h"

uint32_t m68k__ea_addr_rt(m68k_cpu_t *c, unsigned mode, unsigned reg, int sz);
bool m68k__cond(const m68k_cpu_t *c, int cc);

enum { FPCC_N = 1u << 27, FPCC_Z = 1u << 26, FPCC_I = 1u << 25, FPCC_NAN = 1u << 24 };

static long double to_ld(m68k__fpreg_t r)
{
  unsigned e = r.se & 0x7fff;
  bool neg = r.se & 0x8000;
  long double v;
  if (e == 0x7fff) {
    v = (r.mant << 1) ? (long double)NAN : (long double)INFINITY;
  } else {
    v = ldexpl((long double)r.mant, (int)e - 16383 - 63);
  }
  return neg ? -v : v;
}

static m68k__fpreg_t from_ld(long double v)
{
  m68k__fpreg_t r = {0, 0};
  if (signbit(v))
    r.se = 0x8000;
  if (isnan(v)) {
    r.se |= 0x7fff;
    r.mant = 0xffffffffffffffffull;
    return r;
  }
  if (isinf(v)) {
    r.se |= 0x7fff;
    r.mant = 0;
    return r;
  }
  if (v == 0)
    return r;
  int e;
  long double f = frexpl(fabsl(v), &e); /* f in [0.5, 1) */
  int be = e - 1 + 16383;
  if (be <= 0) { /* denormal */
    r.mant = (uint64_t)ldexpl(fabsl(v), 16382 + 63);
    return r;
  }
  r.se |= (uint16_t)be;
  r.mant = (uint64_t)ldexpl(f, 64);
  return r;
}

void m68k__fpu_reset(m68k_cpu_t *c)
{
  for (int i = 0; i < 8; i++) {
    c->fp[i].se = 0x7fff; /* non-signalling NaN, as after a 68881 reset */
    c->fp[i].mant = 0xffffffffffffffffull;
  }
  c->fpcr = c->fpsr = c->fpiar = 0;
}

static void set_cc(m68k_cpu_t *c, m68k__fpreg_t r)
{
  uint32_t cc = 0;
  unsigned e = r.se & 0x7fff;
  if (r.se & 0x8000)
    cc |= FPCC_N;
  if (e == 0x7fff)
    cc |= (r.mant << 1) ? FPCC_NAN : FPCC_I;
  else if (r.mant == 0)
    cc |= FPCC_Z;
  c->fpsr = (c->fpsr & 0x00ffffffu) | cc;
}

static const int fmt_size[8] = {4, 4, 12, 12, 2, 8, 1, 0};

/* Reads the source operand of format fmt (0 L, 1 S, 2 X, 4 W, 5 D, 6 B). */
static m68k__fpreg_t read_src(m68k_cpu_t *c, uint32_t op, unsigned fmt)
{
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  int sz = fmt_size[fmt];
  if (fmt == 3 || fmt == 7)
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
      for (int i = 0; i < sz / 4; i++)
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
  case 0: return from_ld((long double)(int32_t)w[0]);
  case 4: return from_ld((long double)(int16_t)w[0]);
  case 6: return from_ld((long double)(int8_t)w[0]);
  case 1: {
    float f;
    memcpy(&f, &w[0], 4);
    return from_ld((long double)f);
  }
  case 5: {
    uint64_t u = ((uint64_t)w[0] << 32) | w[1];
    double d;
    memcpy(&d, &u, 8);
    return from_ld((long double)d);
  }
  default: {
    m68k__fpreg_t r = {(uint16_t)(w[0] >> 16), ((uint64_t)w[1] << 32) | w[2]};
    return r;
  }
  }
}

static int64_t to_int(m68k_cpu_t *c, long double v, int64_t lo, int64_t hi)
{
  if (isnan(v))
    return hi;
  long double r;
  switch ((c->fpcr >> 4) & 3) {
  case 1: r = truncl(v); break;
  case 2: r = floorl(v); break;
  case 3: r = ceill(v); break;
  default: r = nearbyintl(v); break;
  }
  if (r < (long double)lo)
    return lo;
  if (r > (long double)hi)
    return hi;
  return (int64_t)r;
}

static void write_dst(m68k_cpu_t *c, uint32_t op, unsigned fmt, m68k__fpreg_t v)
{
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  int sz = fmt_size[fmt];
  uint32_t w[3] = {0, 0, 0};
  long double ld = to_ld(v);
  switch (fmt) {
  case 0: w[0] = (uint32_t)to_int(c, ld, INT32_MIN, INT32_MAX); break;
  case 4: w[0] = (uint32_t)to_int(c, ld, INT16_MIN, INT16_MAX) & 0xffff; break;
  case 6: w[0] = (uint32_t)to_int(c, ld, INT8_MIN, INT8_MAX) & 0xff; break;
  case 1: {
    float f = (float)ld;
    memcpy(&w[0], &f, 4);
    break;
  }
  case 5: {
    double d = (double)ld;
    uint64_t u;
    memcpy(&u, &d, 8);
    w[0] = (uint32_t)(u >> 32);
    w[1] = (uint32_t)u;
    break;
  }
  case 2:
    w[0] = (uint32_t)v.se << 16;
    w[1] = (uint32_t)(v.mant >> 32);
    w[2] = (uint32_t)v.mant;
    break;
  default: m68k__line_f(c);
  }
  if (mode == 0) {
    if (sz > 4)
      m68k__line_f(c);
    if (sz == 4)
      c->r[reg] = w[0];
    else if (sz == 2)
      c->r[reg] = (c->r[reg] & 0xffff0000u) | w[0];
    else
      c->r[reg] = (c->r[reg] & 0xffffff00u) | w[0];
    return;
  }
  if (mode == 1)
    m68k__line_f(c);
  uint32_t a = m68k__ea_addr_rt(c, mode, reg, sz);
  if (sz <= 4)
    m68k__wr(c, a, sz, w[0]);
  else
    for (int i = 0; i < sz / 4; i++)
      m68k__wr(c, a + 4 * (uint32_t)i, 4, w[i]);
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

/* FMOVEM of data registers. */
static void fmovem(m68k_cpu_t *c, uint32_t op, uint32_t ext)
{
  unsigned mode = (op >> 3) & 7, reg = op & 7;
  unsigned list = (ext & 0x800) ? c->r[(ext >> 4) & 7] & 0xff : ext & 0xff;
  bool to_mem = ext & 0x2000;
  bool predec = !(ext & 0x1000);
  if (mode == 4) {
    if (!to_mem || !predec)
      m68k__line_f(c);
    /* -(An): list bit i is FPi; FP7 goes first, at the highest address. */
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
  if (mode == 0 || mode == 1 || (mode == 7 && reg == 4))
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

/* FMOVE/FMOVEM of the control registers. */
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
    return;
  }
  if (mode == 7 && reg == 4) {
    if (to_mem)
      m68k__line_f(c);
    for (int i = 0; i < 3; i++)
      if (list & (4u >> i))
        *regs[i] = m68k__fetch32(c);
    return;
  }
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
  c->fpcr &= 0xfff0;
  c->fpsr &= 0x0ffffff8;
}

static m68k__fpreg_t constant(m68k_cpu_t *c, unsigned off)
{
  if (off == 0x0f)
    return from_ld(0.0L);
  if (off == 0x32)
    return from_ld(1.0L);
  if (off >= 0x33 && off <= 0x3f)
    return from_ld(powl(10.0L, (long double)(1u << (off - 0x33))));
  if (off == 0)
    return from_ld(3.14159265358979323846264338327950288L);
  if (off == 0x30)
    return from_ld(0.693147180559945309417232121458176568L);
  if (off == 0x31)
    return from_ld(2.30258509299404568401799145468436421L);
  m68k__line_f(c);
}

void m68k__fpu_general(m68k_cpu_t *c, uint32_t op)
{
  uint32_t ext = m68k__fetch16(c);
  unsigned opclass = ext >> 13;
  switch (opclass) {
  case 0:
  case 2: {
    unsigned dst = (ext >> 7) & 7;
    unsigned cmd = ext & 0x7f;
    m68k__fpreg_t src;
    if (opclass == 2 && ((ext >> 10) & 7) == 7) {
      c->fp[dst] = constant(c, cmd);
      set_cc(c, c->fp[dst]);
      return;
    }
    c->fpiar = c->ppc;
    src = opclass == 0 ? c->fp[(ext >> 10) & 7] : read_src(c, op, (ext >> 10) & 7);
    long double s = to_ld(src), d = to_ld(c->fp[dst]), r;
    switch (cmd) {
    case 0x00: c->fp[dst] = src; set_cc(c, src); return;
    case 0x01: r = nearbyintl(s); break;
    case 0x03: r = truncl(s); break;
    case 0x04: r = sqrtl(s); break;
    case 0x18: r = fabsl(s); break;
    case 0x1a: r = -s; break;
    case 0x20: r = d / s; break;
    case 0x22: r = d + s; break;
    case 0x23: r = d * s; break;
    case 0x28: r = d - s; break;
    case 0x38: set_cc(c, from_ld(d - s)); if (d == s) c->fpsr = (c->fpsr & 0x00ffffffu) | FPCC_Z | (signbit(d) ? FPCC_N : 0); return;
    case 0x3a: set_cc(c, src); return;
    default: m68k__line_f(c);
    }
    c->fp[dst] = from_ld(r);
    set_cc(c, c->fp[dst]);
    return;
  }
  case 3:
    c->fpiar = c->ppc;
    write_dst(c, op, (ext >> 10) & 7, c->fp[(ext >> 7) & 7]);
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

static bool fcond(const m68k_cpu_t *c, unsigned cc)
{
  bool n = c->fpsr & FPCC_N, z = c->fpsr & FPCC_Z, nan = c->fpsr & FPCC_NAN;
  switch (cc & 15) {
  case 0: return false;
  case 1: return z;
  case 2: return !(nan || z || n);
  case 3: return z || !(nan || n);
  case 4: return n && !(nan || z);
  case 5: return z || (n && !nan);
  case 6: return !(nan || z);
  case 7: return !nan;
  case 8: return nan;
  case 9: return nan || z;
  case 10: return nan || !(n || z);
  case 11: return nan || z || !n;
  case 12: return nan || (n && !z);
  case 13: return nan || z || n;
  case 14: return !z;
  default: return true;
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
  bool t = fcond(c, ext & 0x3f);
  if (mode == 1) { /* FDBcc */
    uint32_t base = c->pc;
    uint32_t disp = (uint32_t)(int32_t)(int16_t)m68k__fetch16(c);
    if (t)
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
    if (t)
      m68k__exception(c, M68K_VEC_TRAPV, c->pc, 2, c->ppc);
    return;
  }
  uint32_t v = t ? 0xff : 0;
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
  m68k__wr(c, a, 4, 0); /* null frame (design note 2) */
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
