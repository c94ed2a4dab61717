/* cycles68000.c -- the MC68000's clock count per instruction, as the real chip runs it.
 *
 * Design notes
 *
 * 1. Source: the MC68000 User's Manual, section 8 (instruction execution
 *    times): the effective-address times of Table 8-1, MOVE's of 8-2/8-3,
 *    the standard, immediate, single-operand, shift, bit, branch, JMP-class,
 *    multi-precision and miscellaneous tables (8-4 to 8-12) and exception
 *    processing (8-14). Every figure is in clocks with no wait states.
 * 2. The count is decided before the instruction runs, from the state it
 *    starts in (m68k__c000_begin): all the data the chip's time depends on
 *    is known then (a branch's condition, DBcc's counter, a shift count in
 *    Dn, MULU/MULS's source bits, DIVU/DIVS's operands, MOVEM's mask, CHK's
 *    bound, BSET's bit number), read from RAM without side effects (an
 *    operand outside RAM, in the device page, counts as 0). The
 *    interpreter is not touched: this runs only while cycle counting is on
 *    (cpu.c's exec_counted), which steps one instruction at a time anyway.
 * 3. Exceptions. An instruction that traps (CHK, TRAP, TRAPV, zero divide,
 *    illegal, line A/F, privilege) or faults (address error) leaves by
 *    m68k__exception or group 0; those call m68k__c000_exception, which
 *    replaces the instruction's count by the exception's: the clocks the
 *    instruction ran before it, plus the processing. Table 8-14 gives 50
 *    clocks for an address error; SingleStepTests' m68000 data (from a
 *    microcoded model of the chip, the judge here) give 58 for a fault at the
 *    instruction's first access (C000_AE), plus the clocks of the
 *    extension words and internal steps before the faulting access, and
 *    for a jump to an odd address the jump's own time plus 50. CHK's trap
 *    takes 38 or 40 by which test caught it. Interrupts (44) and trace
 *    (34) between instructions add their processing time.
 * 4. Division follows the chip's algorithm step by step (Table 8-4 gives
 *    only the maxima): after an overflow test, DIVU's 15 further shift and
 *    subtract steps take 1 microcycle (2 clocks) when the partial
 *    remainder's top bit or the compare says subtract, 2 when it does not;
 *    DIVS adds the signs' handling and one microcycle per zero bit of the
 *    quotient's magnitude. The method of the published analyses of the
 *    microcode (Jorge Cwik's).
 */
#include "m68k-internal.h"

#define C000_AE 58u     /* an address error at the instruction's first access */
#define C000_JUMP_AE 50u /* added to a jump's time when its target is odd */
#define C000_TRAP 34u   /* illegal, line A/F, privilege, TRAP, TRAPV, trace */
#define C000_IRQ 44u    /* an autovectored interrupt */

/* Effective-address times (Table 8-1) for a byte or word operand, by mode
 * 0-6 then 7.0-7.4 (index 7 + register); a long operand adds 4 for memory. */
static const uint8_t ea_bw[12] = {0, 0, 4, 4, 6, 8, 10, 8, 12, 8, 10, 4};

/* JMP/JSR/LEA/PEA times by control mode (Table 8-10), same index; 0: none. */
static const uint8_t jmp_t[12] = {0, 0, 8, 0, 0, 10, 14, 10, 12, 10, 14, 0};
static const uint8_t jsr_t[12] = {0, 0, 16, 0, 0, 18, 22, 18, 20, 18, 22, 0};
static const uint8_t lea_t[12] = {0, 0, 4, 0, 0, 8, 12, 8, 12, 8, 12, 0};
static const uint8_t pea_t[12] = {0, 0, 12, 0, 0, 16, 20, 16, 20, 16, 20, 0};
/* MOVEM's base by mode, memory to registers and registers to memory. */
static const uint8_t movem_mr[12] = {0, 0, 12, 12, 0, 16, 18, 16, 20, 16, 18, 0};
static const uint8_t movem_rm[12] = {0, 0, 8, 0, 8, 12, 14, 12, 16, 0, 0, 0};

static unsigned ea_index(unsigned mode, unsigned reg)
{
  return mode < 7 ? mode : reg < 5 ? 7 + reg : 11;
}

/* The EA time of mode/reg for an operand of `sz` bytes. */
static unsigned ea_time(unsigned mode, unsigned reg, int sz)
{
  unsigned i = ea_index(mode, reg);
  unsigned t = ea_bw[i];
  return sz == 4 && t ? t + 4 : t;
}

/* The clocks of the EA before its first operand access: its extension
 * words and internal time, without the access itself. */
static unsigned ea_pre(unsigned mode, unsigned reg)
{
  unsigned t = ea_bw[ea_index(mode, reg)];
  return t >= 4 ? t - 4 : 0;
}

/* Reads `sz` bytes at a without side effects; 0 outside RAM. */
static uint32_t peek(const m68k_cpu_t *c, uint32_t a, int sz)
{
  uint32_t v = 0;
  for (int i = 0; i < sz; i++) {
    uint32_t off = ((a + (uint32_t)i) & c->addr_mask) - c->ram_base;
    v = (v << 8) | (off < c->ram_lim1 ? c->ram[off] : 0);
  }
  return v;
}

/* The source operand of mode/reg (`sz` bytes) as the instruction at pc
 * will read it, its extension words starting at `ext`. */
static uint32_t peek_operand(const m68k_cpu_t *c, unsigned mode, unsigned reg, int sz,
                             uint32_t ext)
{
  uint32_t mask = sz == 4 ? 0xffffffffu : sz == 2 ? 0xffffu : 0xffu;
  uint32_t a;
  switch (mode) {
  case 0: return c->r[reg] & mask;
  case 1: return c->r[8 + reg] & mask;
  case 2:
  case 3: a = c->r[8 + reg]; break;
  case 4: a = c->r[8 + reg] - (uint32_t)(sz == 1 && reg == 7 ? 2 : sz); break;
  case 5: a = c->r[8 + reg] + (uint32_t)(int16_t)peek(c, ext, 2); break;
  case 6:
  case 7:
    if (mode == 7 && reg == 0) {
      a = (uint32_t)(int16_t)peek(c, ext, 2);
    } else if (mode == 7 && reg == 1) {
      a = peek(c, ext, 4);
    } else if (mode == 7 && reg == 2) {
      a = ext + (uint32_t)(int16_t)peek(c, ext, 2);
    } else if (mode == 7 && reg == 4) {
      return peek(c, ext + (sz == 1 ? 1 : 0), sz == 1 ? 1 : sz);
    } else {
      uint32_t w = peek(c, ext, 2);
      uint32_t x = c->r[(w >> 12) & 15];
      if (!(w & 0x800))
        x = (uint32_t)(int16_t)x;
      uint32_t base = mode == 6 ? c->r[8 + reg] : ext;
      a = base + (uint32_t)(int8_t)w + x;
    }
    break;
  default: return 0;
  }
  return peek(c, a, sz);
}

/* Condition cc (0-15) on the CPU's flags. */
static bool cond(const m68k_cpu_t *c, unsigned cc)
{
  bool z = c->nz == 0, n = (c->n >> 31) != 0, v = c->v != 0, cy = c->c != 0;
  switch (cc) {
  case 0: return true;
  case 1: return false;
  case 2: return !cy && !z;
  case 3: return cy || z;
  case 4: return !cy;
  case 5: return cy;
  case 6: return !z;
  case 7: return z;
  case 8: return !v;
  case 9: return v;
  case 10: return !n;
  case 11: return n;
  case 12: return n == v;
  case 13: return n != v;
  case 14: return !z && n == v;
  default: return z || n != v;
  }
}

/* DIVU's time without the EA (note 4); 10 when the quotient overflows. */
static unsigned divu_time(uint32_t dividend, uint16_t divisor)
{
  if (divisor == 0)
    return 0;
  if ((dividend >> 16) >= divisor)
    return 10;
  unsigned mc = 38;
  uint32_t hdivisor = (uint32_t)divisor << 16;
  for (int i = 0; i < 15; i++) {
    uint32_t before = dividend;
    dividend <<= 1;
    if (before & 0x80000000u) {
      dividend -= hdivisor;
    } else if (dividend >= hdivisor) {
      dividend -= hdivisor;
      mc += 1;
    } else {
      mc += 2;
    }
  }
  return mc * 2;
}

/* DIVS's time without the EA (note 4). */
static unsigned divs_time(int32_t dividend, int16_t divisor)
{
  if (divisor == 0)
    return 0;
  unsigned mc = 6;
  if (dividend < 0)
    mc++;
  uint32_t adend = dividend < 0 ? 0u - (uint32_t)dividend : (uint32_t)dividend;
  uint32_t asor = divisor < 0 ? (uint32_t)(-(int32_t)divisor) : (uint32_t)divisor;
  if ((adend >> 16) >= asor)
    return (mc + 2) * 2;
  uint32_t aquot = adend / asor;
  mc += 55;
  if (divisor >= 0) {
    if (dividend >= 0)
      mc--;
    else
      mc++;
  }
  for (int i = 0; i < 15; i++) {
    if (!(aquot & 0x8000))
      mc++;
    aquot <<= 1;
  }
  return mc * 2;
}

/* MULS's bit pairs: the 0-1 and 1-0 transitions of the source with a 0
 * appended below its bit 0. */
static unsigned muls_pairs(uint32_t src)
{
  uint32_t s = (src & 0xffff) << 1;
  return (unsigned)__builtin_popcount((s ^ (s >> 1)) & 0xffff);
}

/* The standard instruction forms of lines 8, 9, B, C and D (Table 8-4):
 * <ea> op Dn to Dn, Dn op <ea> to memory (`to_mem`), CMP (`cmp`: a long
 * compare costs 6 whatever the source); the callers adjust the An forms. */
static void std_op(m68k__c000_t *k, unsigned mode, unsigned reg, int sz, bool to_mem, bool cmp)
{
  unsigned ea = ea_time(mode, reg, sz);
  bool regimm = mode < 2 || (mode == 7 && reg == 4);
  if (to_mem) {
    k->normal = (sz == 4 ? 12 : 8) + ea;
  } else if (sz == 4) {
    k->normal = (cmp ? 6 : regimm ? 8 : 6) + ea;
  } else {
    k->normal = 4 + ea;
  }
  k->ae_rd = C000_AE + ea_pre(mode, reg);
}

/* ADDX, SUBX -(Ay),-(Ax) and CMPM (Ay)+,(Ax)+: the source read faults when
 * Ay is odd, else the destination's, after the source was read; `pre` is
 * the clocks before the first read. */
static void xop_ae(const m68k_cpu_t *c, m68k__c000_t *k, unsigned ry, int sz, unsigned pre)
{
  k->ae_rd = C000_AE + pre + ((c->r[8 + ry] & 1) ? 0 : sz == 4 ? 8 : 4);
}

static int size_of(unsigned s)
{
  return s == 0 ? 1 : s == 1 ? 2 : 4;
}

void m68k__c000_begin(m68k_cpu_t *c, uint32_t pc, uint32_t op)
{
  m68k__c000_t *k = &c->c0;
  unsigned mode = (op >> 3) & 7, reg = op & 7, rx = (op >> 9) & 7;
  unsigned ssz = (op >> 6) & 3;
  uint32_t ext = pc + 2;
  k->start = c->cycles;
  k->in = true;
  k->normal = 4;
  k->ae_rd = k->ae_wr = C000_AE;
  k->exc = C000_TRAP;
  switch (op >> 12) {
  case 0x0:
    if ((op & 0x0138) == 0x0108) { /* MOVEP */
      k->normal = (op & 0x40) ? 24 : 16;
    } else if (op & 0x0100 || (op & 0x0F00) == 0x0800) { /* bit operations */
      bool dyn = (op & 0x0100) != 0;
      unsigned type = ssz;
      if (mode == 0) {
        uint32_t bit = dyn ? c->r[rx] & 31 : peek(c, ext, 2) & 31;
        static const uint8_t bt[4] = {6, 8, 10, 8};
        k->normal = bt[type] + (dyn ? 0 : 4) - (type && bit < 16 ? 2 : 0);
      } else if (mode == 7 && reg == 4) { /* BTST Dn,#imm */
        k->normal = 10;
      } else {
        unsigned extw = dyn ? 0 : 4;
        k->normal = (type ? 8 : 4) + extw + ea_time(mode, reg, 1);
        k->ae_rd = C000_AE + extw + ea_pre(mode, reg);
        if (!dyn)
          ext += 2;
      }
    } else if ((op & 0x00BF) == 0x003C) { /* to CCR, to SR */
      k->normal = 20;
    } else { /* ORI ANDI SUBI ADDI EORI CMPI */
      int sz = size_of(ssz);
      unsigned imm = sz == 4 ? 8 : 4, kind = (op >> 9) & 7;
      if (mode == 0)
        k->normal = sz == 4 ? (kind == 6 ? 14 : 16) : 8;
      else if (kind == 6)
        k->normal = (sz == 4 ? 12 : 8) + ea_time(mode, reg, sz);
      else
        k->normal = (sz == 4 ? 20 : 12) + ea_time(mode, reg, sz);
      k->ae_rd = C000_AE + imm + ea_pre(mode, reg);
    }
    break;
  case 0x1:
  case 0x2:
  case 0x3: { /* MOVE, MOVEA */
    int sz = (op >> 12) == 1 ? 1 : (op >> 12) == 3 ? 2 : 4;
    unsigned dmode = (op >> 6) & 7, src = ea_time(mode, reg, sz);
    unsigned dst = dmode == 4 ? (sz == 4 ? 8 : 4) : ea_time(dmode, rx, sz);
    k->normal = 4 + src + dst;
    k->ae_rd = C000_AE + ea_pre(mode, reg);
    /* A write fault: MOVE prefetches before writing to -(An), and from
     * memory writes to (xxx).L before fetching its second address word. */
    bool src_mem = mode >= 2 && !(mode == 7 && reg == 4);
    k->ae_wr = C000_AE + src + (dmode == 4                          ? 4
                                : dmode == 7 && rx == 1 && src_mem ? 4
                                                                   : ea_pre(dmode, rx));
    break;
  }
  case 0x4:
    if ((op & 0x01C0) == 0x01C0) { /* LEA */
      k->normal = lea_t[ea_index(mode, reg)];
    } else if ((op & 0x01C0) == 0x0180) { /* CHK */
      unsigned ea = ea_time(mode, reg, 2);
      k->normal = 10 + ea;
      k->ae_rd = C000_AE + ea_pre(mode, reg);
      /* Above the bound the chip traps in 38 clocks plus the EA. Below
       * zero it traps two clocks later, unless Dn - bound overflowed to a
       * positive word (the sign it tests is that of the difference). */
      int32_t bound = (int16_t)peek_operand(c, mode, reg, 2, ext), dn = (int16_t)c->r[rx];
      bool quick = dn > bound || (((uint32_t)(dn - bound) & 0x8000) == 0 && dn != bound);
      k->exc = (quick ? 38 : 40) + ea;
    } else if ((op & 0xFFC0) == 0x40C0) { /* MOVE from SR */
      k->normal = mode == 0 ? 6 : 8 + ea_time(mode, reg, 2);
      k->ae_rd = C000_AE + ea_pre(mode, reg);
    } else if ((op & 0xFDC0) == 0x44C0) { /* MOVE to CCR, to SR */
      k->normal = 12 + ea_time(mode, reg, 2);
      k->ae_rd = C000_AE + ea_pre(mode, reg);
    } else if ((op & 0xF900) == 0x4000 || (op & 0xFF00) == 0x4600) { /* NEGX CLR NEG NOT */
      int sz = size_of(ssz);
      k->normal = mode == 0 ? (sz == 4 ? 6 : 4) : (sz == 4 ? 12 : 8) + ea_time(mode, reg, sz);
      k->ae_rd = C000_AE + ea_pre(mode, reg);
    } else if ((op & 0xFFC0) == 0x4800) { /* NBCD */
      k->normal = mode == 0 ? 6 : 8 + ea_time(mode, reg, 1);
    } else if ((op & 0xFFC0) == 0x4840) { /* SWAP, PEA */
      k->normal = mode == 0 ? 4 : pea_t[ea_index(mode, reg)];
      k->ae_wr = C000_AE + k->normal - 8;
    } else if ((op & 0xFFB8) == 0x4880) { /* EXT */
      k->normal = 4;
    } else if ((op & 0xFB80) == 0x4880) { /* MOVEM */
      unsigned n = (unsigned)__builtin_popcount(peek(c, ext, 2));
      unsigned per = (op & 0x40) ? 8 : 4, i = ea_index(mode, reg);
      k->normal = ((op & 0x0400) ? movem_mr[i] : movem_rm[i]) + per * n;
      k->ae_rd = k->ae_wr = C000_AE + 4 + (mode == 4 ? 0 : ea_pre(mode, reg));
    } else if ((op & 0xFFC0) == 0x4AC0) { /* TAS, ILLEGAL */
      k->normal = mode == 0 ? 4 : 10 + ea_time(mode, reg, 1);
    } else if ((op & 0xFF00) == 0x4A00) { /* TST */
      int sz = size_of(ssz);
      k->normal = 4 + ea_time(mode, reg, sz);
      k->ae_rd = C000_AE + ea_pre(mode, reg);
    } else if ((op & 0xFFF0) == 0x4E40) { /* TRAP */
      k->normal = C000_TRAP;
    } else if ((op & 0xFFF8) == 0x4E50) { /* LINK */
      k->normal = 16;
    } else if ((op & 0xFFF8) == 0x4E58) { /* UNLK */
      k->normal = 12;
    } else if ((op & 0xFFF0) == 0x4E60) { /* MOVE USP */
      k->normal = 4;
    } else if (op == 0x4E70) { /* RESET */
      k->normal = 132;
    } else if (op == 0x4E73 || op == 0x4E77) { /* RTE, RTR */
      k->normal = 20;
    } else if (op == 0x4E75) { /* RTS */
      k->normal = 16;
    } else if ((op & 0xFF80) == 0x4E80) { /* JSR, JMP */
      unsigned i = ea_index(mode, reg);
      k->normal = (op & 0x40) ? jmp_t[i] : jsr_t[i];
      k->ae_jmp = jmp_t[i] + C000_JUMP_AE;
    }
    break;
  case 0x5:
    if (ssz == 3 && mode == 1) { /* DBcc */
      if (cond(c, (op >> 8) & 15))
        k->normal = 12;
      else
        k->normal = (c->r[reg] & 0xffff) == 0 ? 14 : 10;
    } else if (ssz == 3) { /* Scc */
      bool t = cond(c, (op >> 8) & 15);
      k->normal = mode == 0 ? (t ? 6 : 4) : 8 + ea_time(mode, reg, 1);
    } else { /* ADDQ, SUBQ */
      int sz = size_of(ssz);
      if (mode == 0)
        k->normal = sz == 4 ? 8 : 4;
      else if (mode == 1)
        k->normal = 8;
      else
        k->normal = (sz == 4 ? 12 : 8) + ea_time(mode, reg, sz);
      k->ae_rd = C000_AE + ea_pre(mode, reg);
    }
    break;
  case 0x6: { /* Bcc, BRA, BSR */
    unsigned cc = (op >> 8) & 15;
    if (cc == 1)
      k->normal = 18;
    else if (cond(c, cc))
      k->normal = 10;
    else
      k->normal = (op & 0xff) == 0 ? 12 : 8;
    break;
  }
  case 0x7: k->normal = 4; break; /* MOVEQ */
  case 0x8:
  case 0xC:
    if ((op & 0x01C0) == 0x00C0 || (op & 0x01C0) == 0x01C0) { /* MULU MULS DIVU DIVS */
      bool sgn = (op & 0x0100) != 0;
      uint32_t src = peek_operand(c, mode, reg, 2, ext);
      unsigned ea = ea_time(mode, reg, 2);
      k->ae_rd = C000_AE + ea_pre(mode, reg);
      if ((op >> 12) == 0xC) {
        unsigned n = sgn ? muls_pairs(src) : (unsigned)__builtin_popcount(src & 0xffff);
        k->normal = 38 + 2 * n + ea;
      } else {
        uint32_t dd = c->r[rx];
        k->normal = (sgn ? divs_time((int32_t)dd, (int16_t)src) : divu_time(dd, (uint16_t)src)) +
                    ea;
        k->exc = 38 + ea;
      }
    } else if ((op & 0x01F0) == 0x0100) { /* SBCD, ABCD */
      k->normal = (op & 8) ? 18 : 6;
    } else if ((op >> 12) == 0xC && ((op & 0x01F8) == 0x0140 || (op & 0x01F8) == 0x0148 ||
                                     (op & 0x01F8) == 0x0188)) { /* EXG */
      k->normal = 6;
    } else { /* OR, AND */
      std_op(k, mode, reg, size_of(ssz), (op & 0x0100) != 0, false);
    }
    break;
  case 0x9:
  case 0xD:
    if (ssz == 3) { /* SUBA, ADDA */
      int sz = (op & 0x0100) ? 4 : 2;
      std_op(k, mode, reg, sz, false, false);
      if (sz == 2)
        k->normal += 4;
    } else if ((op & 0x0130) == 0x0100) { /* SUBX, ADDX */
      int sz = size_of(ssz);
      k->normal = (op & 8) ? (sz == 4 ? 30 : 18) : (sz == 4 ? 8 : 4);
      xop_ae(c, k, reg, sz, 2);
    } else {
      std_op(k, mode, reg, size_of(ssz), (op & 0x0100) != 0, false);
    }
    break;
  case 0xB:
    if (ssz == 3) { /* CMPA */
      std_op(k, mode, reg, 4, false, true);
      k->normal = 6 + ea_time(mode, reg, (op & 0x0100) ? 4 : 2);
    } else if ((op & 0x0100) && mode == 1) { /* CMPM */
      k->normal = size_of(ssz) == 4 ? 20 : 12;
      xop_ae(c, k, reg, size_of(ssz), 0);
    } else if (op & 0x0100) { /* EOR */
      int sz = size_of(ssz);
      if (mode == 0)
        k->normal = sz == 4 ? 8 : 4;
      else
        std_op(k, mode, reg, sz, true, false);
    } else { /* CMP */
      std_op(k, mode, reg, size_of(ssz), false, true);
    }
    break;
  case 0xE:
    if (ssz == 3) { /* memory shift by one */
      k->normal = 8 + ea_time(mode, reg, 2);
      k->ae_rd = C000_AE + ea_pre(mode, reg);
    } else {
      unsigned n = (op & 0x20) ? c->r[rx] & 63 : rx ? rx : 8;
      k->normal = (ssz == 2 ? 8 : 6) + 2 * n;
    }
    break;
  default: k->normal = C000_TRAP; break; /* line A, line F */
  }
  if ((op >> 12) != 0x4 || (op & 0xFF80) != 0x4E80)
    k->ae_jmp = k->normal + C000_JUMP_AE;
}

void m68k__c000_end(m68k_cpu_t *c)
{
  if (c->c0.in) {
    c->c0.in = false;
    c->cycles = c->c0.start + c->c0.normal;
  }
}

void m68k__c000_exception(m68k_cpu_t *c, int vector, bool write, bool jump)
{
  m68k__c000_t *k = &c->c0;
  if (!k->in) {
    /* Between instructions: trace, an interrupt; or a fault while an
     * exception is being processed (an odd stack pointer). */
    c->cycles += vector == M68K_VEC_TRACE                                      ? C000_TRAP
                 : vector == M68K_VEC_ADDRESS_ERROR || vector == M68K_VEC_BUS_ERROR ? C000_AE
                                                                                  : C000_IRQ;
    return;
  }
  k->in = false;
  unsigned t;
  switch (vector) {
  case M68K_VEC_ADDRESS_ERROR:
  case M68K_VEC_BUS_ERROR: t = jump ? k->ae_jmp : write ? k->ae_wr : k->ae_rd; break;
  case M68K_VEC_CHK:
  case M68K_VEC_ZERO_DIVIDE: t = k->exc; break;
  default: t = C000_TRAP; break;
  }
  c->cycles = k->start + t;
}
