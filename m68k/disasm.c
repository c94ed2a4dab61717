/* disasm.c -- a table-driven 68000/68030 disassembler for traces and messages.
 *
 * Each table row is a mask and value on the opcode word, a mnemonic, a size
 * rule and an operand format. Sizes: 0 none, 1/2/4 fixed, 'S' from bits 7-6,
 * 'M' MOVE's bits 13-12, 'A' bit 8 (word/long, ADDA), 'X' bit 6 (word/long).
 * Operand escapes: %e source EA, %E MOVE destination EA, %D/%d Dn in bits
 * 11-9/2-0, %A/%a An in bits 11-9/2-0, %i immediate of the size, %q quick
 * 1-8 in bits 11-9, %Q MOVEQ byte, %b branch target, %w word displacement
 * target, %c condition, %m MOVEM list, %t trap number, %I a 16-bit immediate,
 * %k shift count, %x CAS registers, %X CAS2 operands, %C MOVEC registers,
 * %F bit field {offset:width}, %R bit field register, %L MUL/DIV.L
 * registers. Unknown words print as "dc.w $xxxx". Reads go through the bus
 * without side effects on the CPU (the RAM window, or the bus functions).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "m68k-internal.h"

typedef struct dis_row {
  uint16_t mask, val;
  const char *name;
  int size;
  const char *fmt;
} dis_row_t;

/* Most specific rows first. */
static const dis_row_t rows[] = {
    {0xffff, 0x4e71, "nop", 0, ""},
    {0xffff, 0x4e75, "rts", 0, ""},
    {0xffff, 0x4e73, "rte", 0, ""},
    {0xffff, 0x4e77, "rtr", 0, ""},
    {0xffff, 0x4e76, "trapv", 0, ""},
    {0xffff, 0x4e70, "reset", 0, ""},
    {0xffff, 0x4afc, "illegal", 0, ""},
    {0xffff, 0x4e72, "stop", 0, "%I"},
    {0xffff, 0x4e74, "rtd", 0, "%I"},
    {0xffff, 0x003c, "ori", 0, "%I,ccr"},
    {0xffff, 0x007c, "ori", 0, "%I,sr"},
    {0xffff, 0x023c, "andi", 0, "%I,ccr"},
    {0xffff, 0x027c, "andi", 0, "%I,sr"},
    {0xffff, 0x0a3c, "eori", 0, "%I,ccr"},
    {0xffff, 0x0a7c, "eori", 0, "%I,sr"},
    {0xffff, 0x0cfc, "cas2", 2, "%X"},
    {0xffff, 0x0efc, "cas2", 4, "%X"},
    {0xfffe, 0x4e7a, "movec", 0, "%C"},
    {0xfff0, 0x4e40, "trap", 0, "%t"},
    {0xfff8, 0x4e50, "link", 2, "%a,%I"},
    {0xfff8, 0x4808, "link", 4, "%a,#%L"},
    {0xfff8, 0x4e58, "unlk", 0, "%a"},
    {0xfff8, 0x4e60, "move", 4, "%a,usp"},
    {0xfff8, 0x4e68, "move", 4, "usp,%a"},
    {0xfff8, 0x4840, "swap", 0, "%d"},
    {0xfff8, 0x4880, "ext", 2, "%d"},
    {0xfff8, 0x48c0, "ext", 4, "%d"},
    {0xfff8, 0x49c0, "extb", 4, "%d"},
    {0xffc0, 0x4ec0, "jmp", 0, "%e"},
    {0xffc0, 0x4e80, "jsr", 0, "%e"},
    {0xffc0, 0x4840, "pea", 4, "%e"},
    {0xffc0, 0x4ac0, "tas", 1, "%e"},
    {0xffc0, 0x40c0, "move", 2, "sr,%e"},
    {0xffc0, 0x42c0, "move", 2, "ccr,%e"},
    {0xffc0, 0x44c0, "move", 2, "%e,ccr"},
    {0xffc0, 0x46c0, "move", 2, "%e,sr"},
    {0xffc0, 0x4800, "nbcd", 1, "%e"},
    {0xffc0, 0x4c00, "mul", 4, "%e,%L"},
    {0xffc0, 0x4c40, "div", 4, "%e,%L"},
    {0xff80, 0x4880, "movem", 'X', "%m,%e"},
    {0xff80, 0x4c80, "movem", 'X', "%e,%m"},
    {0xff00, 0x4000, "negx", 'S', "%e"},
    {0xff00, 0x4200, "clr", 'S', "%e"},
    {0xff00, 0x4400, "neg", 'S', "%e"},
    {0xff00, 0x4600, "not", 'S', "%e"},
    {0xff00, 0x4a00, "tst", 'S', "%e"},
    {0xf1c0, 0x41c0, "lea", 4, "%e,%A"},
    {0xf1c0, 0x4180, "chk", 2, "%e,%D"},
    {0xf1c0, 0x4100, "chk", 4, "%e,%D"},
    {0xffc0, 0x0800, "btst", 0, "%I,%e"},
    {0xffc0, 0x0840, "bchg", 0, "%I,%e"},
    {0xffc0, 0x0880, "bclr", 0, "%I,%e"},
    {0xffc0, 0x08c0, "bset", 0, "%I,%e"},
    {0xf9c0, 0x08c0, "cas", 'C', "%x,%e"},
    {0xf9c0, 0x00c0, "chk2", 'C', "%e,%R"},
    {0xff00, 0x0000, "ori", 'S', "%i,%e"},
    {0xff00, 0x0200, "andi", 'S', "%i,%e"},
    {0xff00, 0x0400, "subi", 'S', "%i,%e"},
    {0xff00, 0x0600, "addi", 'S', "%i,%e"},
    {0xff00, 0x0a00, "eori", 'S', "%i,%e"},
    {0xff00, 0x0c00, "cmpi", 'S', "%i,%e"},
    {0xff00, 0x0e00, "moves", 'S', "%e"},
    {0xf138, 0x0108, "movep", 0, "(%a)"},
    {0xf1c0, 0x0100, "btst", 0, "%D,%e"},
    {0xf1c0, 0x0140, "bchg", 0, "%D,%e"},
    {0xf1c0, 0x0180, "bclr", 0, "%D,%e"},
    {0xf1c0, 0x01c0, "bset", 0, "%D,%e"},
    {0xc1c0, 0x0040, "movea", 'M', "%e,%A"},
    {0xc000, 0x0000, "move", 'M', "%e,%E"},
    {0xf0f8, 0x50c8, "db%c", 0, "%d,%w"},
    {0xf0ff, 0x50fc, "trap%c", 0, ""},
    {0xf0c0, 0x50c0, "s%c", 1, "%e"},
    {0xf100, 0x5000, "addq", 'S', "%q,%e"},
    {0xf100, 0x5100, "subq", 'S', "%q,%e"},
    {0xff00, 0x6000, "bra", 0, "%b"},
    {0xff00, 0x6100, "bsr", 0, "%b"},
    {0xf000, 0x6000, "b%c", 0, "%b"},
    {0xf100, 0x7000, "moveq", 0, "%Q,%D"},
    {0xf1f8, 0x8100, "sbcd", 0, "%d,%D"},
    {0xf1f8, 0x8108, "sbcd", 0, "-(%a),-(%A)"},
    {0xf1c0, 0x80c0, "divu", 2, "%e,%D"},
    {0xf1c0, 0x81c0, "divs", 2, "%e,%D"},
    {0xf100, 0x8000, "or", 'S', "%e,%D"},
    {0xf100, 0x8100, "or", 'S', "%D,%e"},
    {0xf0c0, 0x90c0, "suba", 'A', "%e,%A"},
    {0xf138, 0x9100, "subx", 'S', "%d,%D"},
    {0xf138, 0x9108, "subx", 'S', "-(%a),-(%A)"},
    {0xf100, 0x9000, "sub", 'S', "%e,%D"},
    {0xf100, 0x9100, "sub", 'S', "%D,%e"},
    {0xf000, 0xa000, "dc.w", 0, "%I"},
    {0xf0c0, 0xb0c0, "cmpa", 'A', "%e,%A"},
    {0xf138, 0xb108, "cmpm", 'S', "(%a)+,(%A)+"},
    {0xf100, 0xb000, "cmp", 'S', "%e,%D"},
    {0xf100, 0xb100, "eor", 'S', "%D,%e"},
    {0xf1f8, 0xc100, "abcd", 0, "%d,%D"},
    {0xf1f8, 0xc108, "abcd", 0, "-(%a),-(%A)"},
    {0xf1f8, 0xc140, "exg", 0, "%D,%d"},
    {0xf1f8, 0xc148, "exg", 0, "%A,%a"},
    {0xf1f8, 0xc188, "exg", 0, "%D,%a"},
    {0xf1c0, 0xc0c0, "mulu", 2, "%e,%D"},
    {0xf1c0, 0xc1c0, "muls", 2, "%e,%D"},
    {0xf100, 0xc000, "and", 'S', "%e,%D"},
    {0xf100, 0xc100, "and", 'S', "%D,%e"},
    {0xf0c0, 0xd0c0, "adda", 'A', "%e,%A"},
    {0xf138, 0xd100, "addx", 'S', "%d,%D"},
    {0xf138, 0xd108, "addx", 'S', "-(%a),-(%A)"},
    {0xf100, 0xd000, "add", 'S', "%e,%D"},
    {0xf100, 0xd100, "add", 'S', "%D,%e"},
    {0xffc0, 0xe8c0, "bftst", 0, "%e%F"},
    {0xffc0, 0xe9c0, "bfextu", 0, "%e%F,%R"},
    {0xffc0, 0xeac0, "bfchg", 0, "%e%F"},
    {0xffc0, 0xebc0, "bfexts", 0, "%e%F,%R"},
    {0xffc0, 0xecc0, "bfclr", 0, "%e%F"},
    {0xffc0, 0xedc0, "bfffo", 0, "%e%F,%R"},
    {0xffc0, 0xeec0, "bfset", 0, "%e%F"},
    {0xffc0, 0xefc0, "bfins", 0, "%R,%e%F"},
    {0xfec0, 0xe0c0, "as%<", 2, "%e"},
    {0xfec0, 0xe2c0, "ls%<", 2, "%e"},
    {0xfec0, 0xe4c0, "rox%<", 2, "%e"},
    {0xfec0, 0xe6c0, "ro%<", 2, "%e"},
    {0xf018, 0xe000, "as%>", 'S', "%k,%d"},
    {0xf018, 0xe008, "ls%>", 'S', "%k,%d"},
    {0xf018, 0xe010, "rox%>", 'S', "%k,%d"},
    {0xf018, 0xe018, "ro%>", 'S', "%k,%d"},
    {0xf000, 0xf000, "dc.w", 0, "%I"},
};

static const char *const cc_names[16] = {"t",  "f",  "hi", "ls", "cc", "cs", "ne", "eq",
                                         "vc", "vs", "pl", "mi", "ge", "lt", "gt", "le"};

typedef struct dis {
  const m68k_cpu_t *cpu;
  uint32_t pc; /* next word to read */
  char *out;
  size_t len, pos;
} dis_t;

static uint32_t peek(const dis_t *d, uint32_t a, int sz)
{
  const m68k_cpu_t *c = d->cpu;
  a &= c->addr_mask;
  uint32_t off = a - c->ram_base;
  uint32_t v = 0;
  if (c->ram && off < c->ram_size && c->ram_size - off >= (uint32_t)sz) {
    for (int i = 0; i < sz; i++)
      v = (v << 8) | c->ram[off + (uint32_t)i];
    return v;
  }
  const m68k_bus_t *b = &c->bus;
  unsigned fc = c->s ? 6 : 2;
  if (sz == 2 && b->read16) {
    uint16_t w = 0;
    if (b->read16(b->ctx, a, fc, &w))
      return w;
  } else if (sz == 4 && b->read32) {
    if (b->read32(b->ctx, a, fc, &v))
      return v;
  }
  return 0;
}

static uint32_t next16(dis_t *d)
{
  uint32_t v = peek(d, d->pc, 2);
  d->pc += 2;
  return v;
}

static uint32_t next32(dis_t *d)
{
  uint32_t v = peek(d, d->pc, 4);
  d->pc += 4;
  return v;
}

__attribute__((format(printf, 2, 3))) static void put(dis_t *d, const char *fmt, ...)
{
  if (d->pos + 1 >= d->len) /* no room for a character (m68k__insn_length: none at all) */
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(d->out + d->pos, d->len - d->pos, fmt, ap);
  va_end(ap);
  if (n > 0)
    d->pos += (size_t)n < d->len - d->pos ? (size_t)n : d->len - d->pos - 1;
}

static void put_reg(dis_t *d, unsigned r)
{
  put(d, "%c%u", r < 8 ? 'd' : 'a', r & 7);
}

static void put_imm(dis_t *d, int32_t v)
{
  if (v >= -9 && v <= 9)
    put(d, "#%d", v);
  else
    put(d, "#$%x", (uint32_t)v);
}

static void put_index(dis_t *d, const char *base)
{
  uint32_t ext = next16(d);
  unsigned xr = (ext >> 12) & 15;
  char xn[16];
  snprintf(xn, sizeof(xn), "%c%u.%c*%u", xr < 8 ? 'd' : 'a', xr & 7, (ext & 0x800) ? 'l' : 'w',
           1u << ((ext >> 9) & 3));
  if (!(ext & 0x100) || d->cpu->model == M68K_MODEL_68000) {
    put(d, "(%d,%s,%s)", (int8_t)ext, base, xn);
    return;
  }
  int32_t bd = 0, od = 0;
  if (((ext >> 4) & 3) == 2)
    bd = (int16_t)next16(d);
  else if (((ext >> 4) & 3) == 3)
    bd = (int32_t)next32(d);
  if ((ext & 3) == 2)
    od = (int16_t)next16(d);
  else if ((ext & 3) == 3)
    od = (int32_t)next32(d);
  const char *b = (ext & 0x80) ? "z" : base;
  const char *x = (ext & 0x40) ? "" : xn;
  unsigned iis = ext & 7;
  if (iis == 0)
    put(d, "(%d,%s%s%s)", bd, b, *x ? "," : "", x);
  else if (iis & 4)
    put(d, "([%d,%s]%s%s,%d)", bd, b, *x ? "," : "", x, od);
  else
    put(d, "([%d,%s%s%s],%d)", bd, b, *x ? "," : "", x, od);
}

static void put_ea(dis_t *d, unsigned mode, unsigned reg, int sz)
{
  char base[8];
  switch (mode) {
  case 0: put(d, "d%u", reg); return;
  case 1: put(d, "a%u", reg); return;
  case 2: put(d, "(a%u)", reg); return;
  case 3: put(d, "(a%u)+", reg); return;
  case 4: put(d, "-(a%u)", reg); return;
  case 5: put(d, "(%d,a%u)", (int16_t)next16(d), reg); return;
  case 6: snprintf(base, sizeof(base), "a%u", reg); put_index(d, base); return;
  default: break;
  }
  switch (reg) {
  case 0: put(d, "($%x).w", (uint32_t)(int32_t)(int16_t)next16(d)); return;
  case 1: put(d, "($%x).l", next32(d)); return;
  case 2: {
    uint32_t pc = d->pc;
    put(d, "($%x,pc)", pc + (uint32_t)(int32_t)(int16_t)next16(d));
    return;
  }
  case 3: put_index(d, "pc"); return;
  case 4:
    if (sz == 4)
      put_imm(d, (int32_t)next32(d));
    else if (sz == 1)
      put_imm(d, (int8_t)next16(d));
    else
      put_imm(d, (int16_t)next16(d));
    return;
  default: put(d, "?"); return;
  }
}

static void put_movem(dis_t *d, uint32_t mask, bool predec)
{
  bool first = true;
  for (int i = 0; i < 16; i++) {
    int bit = predec ? 15 - i : i;
    if (!(mask & (1u << bit)))
      continue;
    int j = i;
    while (j + 1 < 16 && (i & 8) == ((j + 1) & 8) && (mask & (1u << (predec ? 15 - (j + 1) : j + 1))))
      j++;
    put(d, "%s", first ? "" : "/");
    put_reg(d, (unsigned)i);
    if (j > i) {
      put(d, "-");
      put_reg(d, (unsigned)j);
    }
    first = false;
    i = j;
  }
  if (first)
    put(d, "#0");
}

/* ---- the 68881/68882 (68030 model): MC68881/MC68882 User's Manual ---- */

static const char *const fpu_ops[0x3b] = {
    [0x00] = "fmove",   [0x01] = "fint",    [0x02] = "fsinh",   [0x03] = "fintrz",
    [0x04] = "fsqrt",   [0x06] = "flognp1", [0x08] = "fetoxm1", [0x09] = "ftanh",
    [0x0a] = "fatan",   [0x0c] = "fasin",   [0x0d] = "fatanh",  [0x0e] = "fsin",
    [0x0f] = "ftan",    [0x10] = "fetox",   [0x11] = "ftwotox", [0x12] = "ftentox",
    [0x14] = "flogn",   [0x15] = "flog10",  [0x16] = "flog2",   [0x18] = "fabs",
    [0x19] = "fcosh",   [0x1a] = "fneg",    [0x1c] = "facos",   [0x1d] = "fcos",
    [0x1e] = "fgetexp", [0x1f] = "fgetman", [0x20] = "fdiv",    [0x21] = "fmod",
    [0x22] = "fadd",    [0x23] = "fmul",    [0x24] = "fsgldiv", [0x25] = "frem",
    [0x26] = "fscale",  [0x27] = "fsglmul", [0x28] = "fsub",    [0x30] = "fsincos",
    [0x31] = "fsincos", [0x32] = "fsincos", [0x33] = "fsincos", [0x34] = "fsincos",
    [0x35] = "fsincos", [0x36] = "fsincos", [0x37] = "fsincos", [0x38] = "fcmp",
    [0x3a] = "ftst",
};

/* Data formats by the extension word's bits 12-10 (sizes: m68k__fpu_fmt_size). */
static const char fpu_fmt[8] = {'l', 's', 'x', 'p', 'w', 'd', 'b', 'p'};

static const char *const fpu_cc[32] = {
    "f",  "eq",  "ogt", "oge", "olt", "ole", "ogl", "or",  "un",  "ueq", "ugt",
    "uge", "ult", "ule", "ne",  "t",   "sf",  "seq", "gt",  "ge",  "lt",  "le",
    "gl", "gle", "ngle", "ngl", "nle", "nlt", "nge", "ngt", "sne", "st"};

/* An FPU operand <ea> of sz bytes: immediates of 8 and 12 bytes as hex words. */
static void put_fea(dis_t *d, unsigned mode, unsigned reg, int sz)
{
  if (mode == 7 && reg == 4 && sz > 4) {
    put(d, "#$");
    for (int i = 0; i < sz / 4; i++)
      put(d, "%08x", next32(d));
    return;
  }
  put_ea(d, mode, reg, sz);
}

static void put_fctl(dis_t *d, unsigned list)
{
  static const char *const names[3] = {"fpiar", "fpsr", "fpcr"};
  bool first = true;
  for (int i = 2; i >= 0; i--)
    if (list & (1u << i)) {
      put(d, "%s%s", first ? "" : "/", names[i]);
      first = false;
    }
  if (first)
    put(d, "#0");
}

static void put_fregs(dis_t *d, unsigned mask, bool predec)
{
  bool first = true;
  for (unsigned i = 0; i < 8; i++)
    if (mask & (predec ? 1u << i : 0x80u >> i)) {
      put(d, "%sfp%u", first ? "" : "/", i);
      first = false;
    }
  if (first)
    put(d, "#0");
}

/* The coprocessor instruction op of the FPU (ID 1): its text and length.
 * False for a word the 68881 does not define, left to the caller's dc.w. */
static bool dis_fpu(dis_t *d, uint32_t op)
{
  unsigned mode = (op >> 3) & 7, reg = op & 7, type = (op >> 6) & 7;
  if (type == 2 || type == 3) { /* FBcc.W, FBcc.L */
    uint32_t base = d->pc;
    int32_t disp = type == 3 ? (int32_t)next32(d) : (int16_t)next16(d);
    put(d, "fb%s $%x", fpu_cc[op & 31], base + (uint32_t)disp);
    return (op & 0x20) == 0;
  }
  if (type == 4) {
    put(d, "fsave ");
    put_ea(d, mode, reg, 4);
    return true;
  }
  if (type == 5) {
    put(d, "frestore ");
    put_ea(d, mode, reg, 4);
    return true;
  }
  if (type == 1) {
    uint32_t cc = next16(d) & 0x3f;
    if (cc > 31)
      return false;
    if (mode == 1) {
      uint32_t base = d->pc;
      put(d, "fdb%s d%u,$%x", fpu_cc[cc], reg, base + (uint32_t)(int32_t)(int16_t)next16(d));
    } else if (mode == 7 && reg >= 2 && reg <= 4) {
      put(d, "ftrap%s", fpu_cc[cc]);
      if (reg == 2)
        put(d, ".w #$%x", next16(d));
      else if (reg == 3)
        put(d, ".l #$%x", next32(d));
    } else {
      put(d, "fs%s ", fpu_cc[cc]);
      put_ea(d, mode, reg, 1);
    }
    return true;
  }
  if (type != 0)
    return false;
  uint32_t ext = next16(d);
  unsigned opclass = ext >> 13, src = (ext >> 10) & 7, dst = (ext >> 7) & 7, cmd = ext & 0x7f;
  switch (opclass) {
  case 0:
  case 2: {
    if (opclass == 2 && src == 7) {
      put(d, "fmovecr #$%x,fp%u", cmd, dst);
      return true;
    }
    const char *name = cmd < sizeof fpu_ops / sizeof fpu_ops[0] ? fpu_ops[cmd] : NULL;
    if (!name)
      return false;
    put(d, "%s.%c ", name, opclass == 0 ? 'x' : fpu_fmt[src]);
    if (opclass == 0)
      put(d, "fp%u", src);
    else
      put_fea(d, mode, reg, m68k__fpu_fmt_size[src]);
    if (cmd >= 0x30 && cmd <= 0x37)
      put(d, ",fp%u:fp%u", cmd & 7, dst);
    else if (cmd != 0x3a)
      put(d, ",fp%u", dst);
    return true;
  }
  case 3: /* FMOVE FPn,<ea> */
    put(d, "fmove.%c fp%u,", fpu_fmt[src], dst);
    put_ea(d, mode, reg, 4);
    if (src == 3)
      put(d, "{#%d}", (int)((int8_t)(cmd << 1) >> 1));
    else if (src == 7)
      put(d, "{d%u}", (cmd >> 4) & 7);
    return true;
  case 4: /* FMOVE(M) <ea>,control registers */
  case 5: {
    unsigned list = (ext >> 10) & 7, n = (unsigned)__builtin_popcount(list);
    put(d, "fmove%s.l ", n > 1 ? "m" : "");
    if (opclass == 5) {
      put_fctl(d, list);
      put(d, ",");
    }
    if (mode == 7 && reg == 4 && opclass == 4) {
      for (unsigned i = 0; i < n; i++)
        put(d, "%s#$%x", i ? "/" : "", next32(d));
    } else {
      put_ea(d, mode, reg, 4);
    }
    if (opclass == 4) {
      put(d, ",");
      put_fctl(d, list);
    }
    return true;
  }
  default: { /* FMOVEM.X */
    bool dynamic = ext & 0x800, predec = !(ext & 0x1000);
    put(d, "fmovem.x ");
    if (opclass == 7) {
      if (dynamic)
        put(d, "d%u", (ext >> 4) & 7);
      else
        put_fregs(d, ext & 0xff, predec);
      put(d, ",");
    }
    put_ea(d, mode, reg, 4);
    if (opclass == 6) {
      put(d, ",");
      if (dynamic)
        put(d, "d%u", (ext >> 4) & 7);
      else
        put_fregs(d, ext & 0xff, false);
    }
    return true;
  }
  }
}

int m68k_disassemble(const m68k_cpu_t *cpu, uint32_t addr, char *buf, size_t len)
{
  dis_t d = {cpu, addr, buf, len, 0};
  if (len == 0)
    return 0;
  buf[0] = 0;
  uint32_t op = next16(&d);
  if ((op & 0xfe00) == 0xf200 && cpu->model == M68K_MODEL_68030) {
    if (dis_fpu(&d, op))
      return (int)(d.pc - addr);
    d.pos = 0;
    buf[0] = 0;
    put(&d, "dc.w $%04x", op);
    return 2;
  }
  const dis_row_t *r = NULL;
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
    if ((op & rows[i].mask) == rows[i].val) {
      r = &rows[i];
      break;
    }
  if (!r || strcmp(r->name, "dc.w") == 0) {
    put(&d, "dc.w $%04x", op);
    return 2;
  }
  int sz = r->size;
  if (sz == 'S')
    sz = ((op >> 6) & 3) == 0 ? 1 : ((op >> 6) & 3) == 1 ? 2 : 4;
  else if (sz == 'M')
    sz = ((op >> 12) & 3) == 1 ? 1 : ((op >> 12) & 3) == 3 ? 2 : 4;
  else if (sz == 'A')
    sz = (op & 0x100) ? 4 : 2;
  else if (sz == 'X')
    sz = (op & 0x40) ? 4 : 2;
  else if (sz == 'C')
    sz = ((op >> 9) & 3) == 1 ? 1 : ((op >> 9) & 3) == 2 ? 2 : 4;
  uint32_t ext = 0;
  bool have_ext = false;
  /* Mnemonic. */
  for (const char *p = r->name; *p; p++) {
    if (*p != '%') {
      put(&d, "%c", *p);
      continue;
    }
    p++;
    if (*p == 'c')
      put(&d, "%s", cc_names[(op >> 8) & 15]);
    else if (*p == '<' || *p == '>')
      put(&d, "%c", (op & 0x100) ? 'l' : 'r');
  }
  if (strcmp(r->name, "mul") == 0 || strcmp(r->name, "div") == 0) {
    ext = next16(&d);
    have_ext = true;
    put(&d, "%c", (ext & 0x800) ? 's' : 'u');
    if (strcmp(r->name, "div") == 0 && !(ext & 0x400) && (ext & 7) != ((ext >> 12) & 7))
      put(&d, "l");
  }
  if (sz)
    put(&d, ".%c", sz == 1 ? 'b' : sz == 2 ? 'w' : 'l');
  if (*r->fmt)
    put(&d, " ");
  /* Extension words that come before the EA's. */
  if (strstr(r->fmt, "%x") || strstr(r->fmt, "%F") || strstr(r->fmt, "%R") ||
      strstr(r->fmt, "%m")) {
    ext = next16(&d);
    have_ext = true;
  }
  for (const char *p = r->fmt; *p; p++) {
    if (*p != '%') {
      put(&d, "%c", *p);
      continue;
    }
    switch (*++p) {
    case 'e': put_ea(&d, (op >> 3) & 7, op & 7, sz ? sz : 4); break;
    case 'E': put_ea(&d, (op >> 6) & 7, (op >> 9) & 7, sz); break;
    case 'D': put(&d, "d%u", (op >> 9) & 7); break;
    case 'd': put(&d, "d%u", op & 7); break;
    case 'A': put(&d, "a%u", (op >> 9) & 7); break;
    case 'a': put(&d, "a%u", op & 7); break;
    case 'i': put_ea(&d, 7, 4, sz); break;
    case 'I': put(&d, "#$%x", next16(&d)); break;
    case 'L':
      if (strcmp(r->name, "link") == 0) {
        put(&d, "$%x", next32(&d));
        break;
      }
      if (ext & 0x400)
        put(&d, "d%u:d%u", ext & 7, (ext >> 12) & 7);
      else if (strcmp(r->name, "div") == 0 && (ext & 7) != ((ext >> 12) & 7))
        put(&d, "d%u:d%u", ext & 7, (ext >> 12) & 7);
      else
        put(&d, "d%u", (ext >> 12) & 7);
      break;
    case 'q': put(&d, "#%u", ((op >> 9) & 7) ? (op >> 9) & 7 : 8); break;
    case 'Q': put_imm(&d, (int8_t)op); break;
    case 'k':
      if (op & 0x20)
        put(&d, "d%u", (op >> 9) & 7);
      else
        put(&d, "#%u", ((op >> 9) & 7) ? (op >> 9) & 7 : 8);
      break;
    case 'b': {
      uint32_t base = d.pc;
      int32_t disp;
      if ((op & 0xff) == 0)
        disp = (int16_t)next16(&d);
      else if ((op & 0xff) == 0xff && cpu->model != M68K_MODEL_68000)
        disp = (int32_t)next32(&d);
      else
        disp = (int8_t)op;
      put(&d, "$%x", base + (uint32_t)disp);
      break;
    }
    case 'w': {
      uint32_t base = d.pc;
      put(&d, "$%x", base + (uint32_t)(int32_t)(int16_t)next16(&d));
      break;
    }
    case 't': put(&d, "#%u", op & 15); break;
    case 'm': put_movem(&d, ext, ((op >> 3) & 7) == 4); break;
    case 'x': put(&d, "d%u,d%u", ext & 7, (ext >> 6) & 7); break;
    case 'X': {
      uint32_t e1 = next16(&d), e2 = next16(&d);
      put(&d, "d%u:d%u,d%u:d%u,(", e1 & 7, e2 & 7, (e1 >> 6) & 7, (e2 >> 6) & 7);
      put_reg(&d, (e1 >> 12) & 15);
      put(&d, "):(");
      put_reg(&d, (e2 >> 12) & 15);
      put(&d, ")");
      break;
    }
    case 'C': {
      uint32_t e = next16(&d);
      static const char *const lo[] = {"sfc", "dfc", "cacr"};
      static const char *const hi[] = {"usp", "vbr", "caar", "msp", "isp"};
      unsigned cr = e & 0xfff;
      const char *n = cr < 3 ? lo[cr] : (cr >= 0x800 && cr < 0x805) ? hi[cr - 0x800] : "?";
      if (op & 1) {
        put_reg(&d, (e >> 12) & 15);
        put(&d, ",%s", n);
      } else {
        put(&d, "%s,", n);
        put_reg(&d, (e >> 12) & 15);
      }
      break;
    }
    case 'F':
      if (ext & 0x800)
        put(&d, "{d%u:", (ext >> 6) & 7);
      else
        put(&d, "{#%u:", (ext >> 6) & 31);
      if (ext & 0x20)
        put(&d, "d%u}", ext & 7);
      else
        put(&d, "#%u}", (ext & 31) ? ext & 31 : 32);
      break;
    case 'R':
      if ((op & 0xf000) == 0xe000)
        put(&d, "d%u", (ext >> 12) & 7);
      else
        put_reg(&d, (ext >> 12) & 15);
      break;
    default: put(&d, "?"); break;
    }
  }
  (void)have_ext;
  return (int)(d.pc - addr);
}

int m68k__insn_length(const m68k_cpu_t *cpu, uint32_t addr)
{
  char none;
  return m68k_disassemble(cpu, addr, &none, 1);
}
