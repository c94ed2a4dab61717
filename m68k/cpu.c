/* cpu.c -- the 68000/68030 core: state, run loop, exceptions, slow memory path.
 *
 * Design notes
 *
 * 1. m68k_run() keeps its loop state in the CPU (run_end, icount) so that a group 0
 *    exception can longjmp back to the loop (see m68k-internal.h note 3).
 * 2. `pending` is true whenever something must be looked at between two
 *    instructions: a stop request, STOP, an interrupt above the mask, the T1
 *    trace bit, or an instruction trace file. The common path tests one byte.
 * 3. Exception frames. 68000: group 1/2 push PC and SR (6 bytes); group 0
 *    (bus, address error) pushes the 7-word frame: status word (IR's high
 *    bits, R/W, I/N, FC), access address, IR, SR, PC. 68030: format 0 (4 words)
 *    for most exceptions, format 2 (6 words, with the instruction address) for
 *    CHK, CHK2, TRAPcc, TRAPV, trace and divide by zero, and for bus and
 *    address errors a format $A short bus fault frame (16 words) whose fault
 *    address is at offset 16 and SSW at offset 10; RTE from format $A
 *    resumes at the stacked PC without re-running the faulted cycle.
 *    The M bit selects MSP for A7 but interrupts do not build throwaway frames.
 */
#include <stdlib.h>
#include <string.h>

#include "m68k-internal.h"

uint32_t m68k__get_sr(const m68k_cpu_t *c)
{
  return (c->t1 << 15) | (c->t0 << 14) | (c->s << 13) | (c->m << 12) | (c->imask << 8) |
         (c->x << 4) | ((c->n >> 31) << 3) | ((c->nz == 0) << 2) | (c->v << 1) | c->c;
}

void m68k__set_ccr(m68k_cpu_t *c, uint32_t ccr)
{
  c->x = (ccr >> 4) & 1;
  c->n = (ccr & 8) ? 0x80000000u : 0;
  c->nz = (ccr & 4) ? 0 : 1;
  c->v = (ccr >> 1) & 1;
  c->c = ccr & 1;
}

/* Saves A7 into the slot of the current mode. */
static void save_sp(m68k_cpu_t *c)
{
  if (!c->s)
    c->usp = c->r[15];
  else if (c->m)
    c->msp = c->r[15];
  else
    c->isp = c->r[15];
}

static void load_sp(m68k_cpu_t *c)
{
  if (!c->s)
    c->r[15] = c->usp;
  else if (c->m)
    c->r[15] = c->msp;
  else
    c->r[15] = c->isp;
}

void m68k__update_pending(m68k_cpu_t *c)
{
  c->pending = c->stop_req || c->stopped || c->t1 || c->trace_pending || c->trace != NULL ||
               c->count_cycles ||
               c->nmi_edge ||
               c->irq_level > (int)c->imask;
}

void m68k__set_sr(m68k_cpu_t *c, uint32_t sr)
{
  sr &= c->sr_mask;
  save_sp(c);
  c->t1 = (sr >> 15) & 1;
  c->t0 = (sr >> 14) & 1;
  c->s = (sr >> 13) & 1;
  c->m = (sr >> 12) & 1;
  c->imask = (sr >> 8) & 7;
  m68k__set_ccr(c, sr);
  load_sp(c);
  m68k__update_pending(c);
}

/* ---- slow memory path ---- */

static unsigned fc_of(const m68k_cpu_t *c, bool prog)
{
  return (c->s ? 4u : 0u) | (prog ? 2u : 1u);
}

uint32_t m68k__slow_rd(m68k_cpu_t *c, uint32_t a, int sz, bool prog)
{
  unsigned fc = fc_of(c, prog);
  const m68k_bus_t *b = &c->bus;
  bool ok = false;
  uint32_t v = 0;
  if (sz == 1) {
    uint8_t v8 = 0;
    ok = b->read8 && b->read8(b->ctx, a, fc, &v8);
    v = v8;
  } else if (sz == 2) {
    uint16_t v16 = 0;
    ok = b->read16 && b->read16(b->ctx, a, fc, &v16);
    v = v16;
  } else {
    ok = b->read32 && b->read32(b->ctx, a, fc, &v);
  }
  if (!ok)
    m68k__bus_error(c, a, false, prog);
  return v;
}

void m68k__slow_wr(m68k_cpu_t *c, uint32_t a, int sz, uint32_t v)
{
  unsigned fc = fc_of(c, false);
  const m68k_bus_t *b = &c->bus;
  bool ok;
  if (sz == 1)
    ok = b->write8 && b->write8(b->ctx, a, fc, (uint8_t)v);
  else if (sz == 2)
    ok = b->write16 && b->write16(b->ctx, a, fc, (uint16_t)v);
  else
    ok = b->write32 && b->write32(b->ctx, a, fc, v);
  if (!ok)
    m68k__bus_error(c, a, true, false);
}

/* ---- exceptions ---- */

static void push16(m68k_cpu_t *c, uint32_t v)
{
  c->r[15] -= 2;
  m68k__wr(c, c->r[15], 2, v);
}

static void push32(m68k_cpu_t *c, uint32_t v)
{
  c->r[15] -= 4;
  m68k__wr(c, c->r[15], 4, v);
}

/* Enters supervisor mode for exception processing and returns the old SR. */
static uint32_t enter_super(m68k_cpu_t *c)
{
  uint32_t sr = m68k__get_sr(c);
  save_sp(c);
  c->s = 1;
  c->t1 = c->t0 = 0;
  load_sp(c);
  return sr;
}

static void jump_vector(m68k_cpu_t *c, int vector)
{
  uint32_t pc = m68k__rd(c, c->vbr + (uint32_t)vector * 4, 4);
  c->pc = pc;
  c->stopped = false;
  m68k__update_pending(c);
}

/* Whether the 68000's clocks are being counted (cycles68000.c). */
static bool counting_68000(const m68k_cpu_t *c)
{
  return M68K_UNLIKELY(c->count_cycles) && c->model == M68K_MODEL_68000;
}

void m68k__exception(m68k_cpu_t *c, int vector, uint32_t pc, int fmt, uint32_t addr)
{
  c->tail = 0; /* the handler's first instruction overlaps nothing */
  if (counting_68000(c))
    m68k__c000_exception(c, vector, false, false);
  if (c->hook && c->hook(c->hook_ctx, c, vector))
    return;
  uint32_t sr = enter_super(c);
  if (c->model == M68K_MODEL_68000) {
    push32(c, pc);
    push16(c, sr);
  } else {
    if (fmt == 2)
      push32(c, addr);
    push16(c, ((uint32_t)fmt << 12) | ((uint32_t)vector * 4));
    push32(c, pc);
    push16(c, sr);
  }
  jump_vector(c, vector);
}

_Noreturn void m68k__exception_abort(m68k_cpu_t *c, int vector, uint32_t pc, int fmt,
                                     uint32_t addr)
{
  m68k__exception(c, vector, pc, fmt, addr);
  longjmp(c->jb, 1);
}

_Noreturn void m68k__illegal(m68k_cpu_t *c)
{
  c->pc = c->ppc + 2;
  m68k__exception_abort(c, M68K_VEC_ILLEGAL, c->ppc, 0, 0);
}

_Noreturn void m68k__privilege(m68k_cpu_t *c)
{
  c->pc = c->ppc + 2;
  m68k__exception_abort(c, M68K_VEC_PRIVILEGE, c->ppc, 0, 0);
}

_Noreturn void m68k__line_a(m68k_cpu_t *c)
{
  c->pc = c->ppc + 2;
  m68k__exception_abort(c, M68K_VEC_LINE_A, c->ppc, 0, 0);
}

_Noreturn void m68k__line_f(m68k_cpu_t *c)
{
  c->pc = c->ppc + 2;
  m68k__exception_abort(c, M68K_VEC_LINE_F, c->ppc, 0, 0);
}

static _Noreturn void group0(m68k_cpu_t *c, int vector, uint32_t addr, bool write, bool prog,
                             uint32_t pc)
{
  if (c->in_group0) {
    /* A fault while stacking a fault frame: double bus fault. */
    c->halted = true;
    c->in_group0 = false;
    c->pending = true;
    longjmp(c->jb, 1);
  }
  if (c->hook && c->hook(c->hook_ctx, c, vector))
    longjmp(c->jb, 1);
  c->in_group0 = true;
  uint32_t sr = enter_super(c);
  unsigned fc = fc_of(c, prog);
  if (c->model == M68K_MODEL_68000) {
    /* The stacked FC is that of the faulting access, taken before S was set. */
    fc = ((sr & 0x2000) ? 4u : 0u) | (prog ? 2u : 1u);
    push32(c, pc);
    push16(c, sr);
    push16(c, c->ir);
    push32(c, addr);
    /* Status word as MAME's 68000 stacks it: IR's high bits, R/W, FC (the
     * I/N bit stays clear). */
    push16(c, (c->ir & 0xffe0) | (write ? 0 : 0x10) | fc);
  } else {
    fc = ((sr & 0x2000) ? 4u : 0u) | (prog ? 2u : 1u);
    push32(c, 0);                /* internal registers */
    push32(c, 0);                /* data output buffer */
    push32(c, 0);                /* internal registers */
    push32(c, addr);             /* data cycle fault address */
    push32(c, 0);                /* instruction pipe stages B and C */
    push16(c, (write ? 0 : 0x40) | 0x100 | fc); /* SSW: DF, R/W, FC */
    push16(c, 0);                /* internal register */
    push16(c, 0xa000 | ((uint32_t)vector * 4));
    push32(c, pc);
    push16(c, sr);
  }
  jump_vector(c, vector);
  c->in_group0 = false;
  longjmp(c->jb, 1);
}

_Noreturn void m68k__address_error(m68k_cpu_t *c, uint32_t addr, bool write, bool prog)
{
  if (c->model != M68K_MODEL_68000) /* only odd instruction fetches fault */
    group0(c, M68K_VEC_ADDRESS_ERROR, addr, write, prog, c->pc);
  if (counting_68000(c))
    m68k__c000_exception(c, M68K_VEC_ADDRESS_ERROR, write, prog);
  if (c->ae_undo) {
    c->r[c->ae_undo - 1] = c->ae_undo_val;
    addr += c->ae_addr_adj;
  }
  group0(c, M68K_VEC_ADDRESS_ERROR, addr, write, prog || c->ae_prog,
         c->pc + (uint32_t)c->ae_adj);
}

_Noreturn void m68k__jump_fault(m68k_cpu_t *c, uint32_t target, uint32_t pc)
{
  if (counting_68000(c))
    m68k__c000_exception(c, M68K_VEC_ADDRESS_ERROR, false, true);
  group0(c, M68K_VEC_ADDRESS_ERROR, target, false, true, pc);
}

_Noreturn void m68k__bus_error(m68k_cpu_t *c, uint32_t addr, bool write, bool prog)
{
  if (counting_68000(c))
    m68k__c000_exception(c, M68K_VEC_BUS_ERROR, write, prog);
  group0(c, M68K_VEC_BUS_ERROR, addr, write,
         prog || (c->model == M68K_MODEL_68000 && c->ae_prog), c->pc);
}

/* ---- public API ---- */

m68k_cpu_t *m68k_create(m68k_model_t model, const m68k_bus_t *bus)
{
  m68k_cpu_t *c = calloc(1, sizeof(*c));
  if (!c)
    return NULL;
  c->model = model == M68K_MODEL_68030 ? M68K_MODEL_68030 : M68K_MODEL_68000;
  if (c->model == M68K_MODEL_68000) {
    c->addr_mask = 0x00ffffffu;
    c->align_mask = 1;
    c->sr_mask = 0xa71f;
    c->optab = m68k__optab_68000;
  } else {
    c->addr_mask = 0xffffffffu;
    c->align_mask = 0;
    c->sr_mask = 0xf71f;
    c->optab = m68k__optab_68030;
  }
  if (bus)
    c->bus = *bus;
  c->ram = c->bus.ram;
  c->ram_base = c->bus.ram_base;
  c->ram_host = (uintptr_t)c->ram - c->ram_base;
  c->ram_size = c->ram ? c->bus.ram_size : 0;
  c->ram_lim1 = c->ram_size;
  c->ram_lim2 = c->ram_size >= 2 ? c->ram_size - 1 : 0;
  c->ram_lim4 = c->ram_size >= 4 ? c->ram_size - 3 : 0;
  c->s = 1;
  c->imask = 7;
  m68k__fpu_reset(c);
  unsigned jit = m68k_jit_default();
  if (jit != 0 && c->ram && m68k_jit_enable(c, jit, NULL) != 0) {
    free(c);
    return NULL;
  }
  return c;
}

void m68k_destroy(m68k_cpu_t *cpu)
{
  if (cpu)
    m68k__xlat_detach(cpu);
  free(cpu);
}

m68k_model_t m68k_model(const m68k_cpu_t *cpu)
{
  return cpu->model;
}

static void reset_body(m68k_cpu_t *c)
{
  c->s = 1;
  c->m = 0;
  c->t1 = c->t0 = 0;
  c->imask = 7;
  c->vbr = 0;
  c->stopped = false;
  c->halted = false;
  c->in_group0 = false;
  c->isp = m68k__rd(c, 0, 4);
  c->r[15] = c->isp;
  c->pc = m68k__rd(c, 4, 4);
  m68k__fpu_reset(c);
}

void m68k_reset(m68k_cpu_t *cpu)
{
  m68k_cpu_t *volatile c = cpu;
  if (setjmp(c->jb) == 0)
    reset_body(c);
  else
    c->halted = true; /* a fault while reading the reset vectors */
  m68k__update_pending(c);
}

uint32_t m68k_get_reg(const m68k_cpu_t *c, m68k_reg_t reg)
{
  if ((unsigned)reg < 16)
    return c->r[reg];
  switch (reg) {
  case M68K_REG_PC: return c->pc;
  case M68K_REG_SR: return m68k__get_sr(c);
  case M68K_REG_USP: return c->s ? c->usp : c->r[15];
  case M68K_REG_ISP: return (c->s && !c->m) ? c->r[15] : c->isp;
  case M68K_REG_MSP: return (c->s && c->m) ? c->r[15] : c->msp;
  case M68K_REG_VBR: return c->vbr;
  case M68K_REG_SFC: return c->sfc;
  case M68K_REG_DFC: return c->dfc;
  case M68K_REG_CACR: return c->cacr;
  case M68K_REG_CAAR: return c->caar;
  default: return 0;
  }
}

void m68k_set_reg(m68k_cpu_t *c, m68k_reg_t reg, uint32_t value)
{
  if ((unsigned)reg < 16) {
    c->r[reg] = value;
    return;
  }
  switch (reg) {
  case M68K_REG_PC: c->pc = value; break;
  case M68K_REG_SR: m68k__set_sr(c, value); break;
  case M68K_REG_USP:
    if (c->s)
      c->usp = value;
    else
      c->r[15] = value;
    break;
  case M68K_REG_ISP:
    if (c->s && !c->m)
      c->r[15] = value;
    else
      c->isp = value;
    break;
  case M68K_REG_MSP:
    if (c->s && c->m)
      c->r[15] = value;
    else
      c->msp = value;
    break;
  case M68K_REG_VBR: c->vbr = value; break;
  case M68K_REG_SFC: c->sfc = value & 7; break;
  case M68K_REG_DFC: c->dfc = value & 7; break;
  case M68K_REG_CACR: c->cacr = value; break;
  case M68K_REG_CAAR: c->caar = value; break;
  default: break;
  }
}

/* Takes an interrupt at `level` (autovectored). */
static void take_interrupt(m68k_cpu_t *c, int level)
{
  c->stopped = false;
  if (c->hook && c->hook(c->hook_ctx, c, M68K_VEC_AUTOVECTOR + level)) {
    m68k__update_pending(c);
    return;
  }
  if (counting_68000(c))
    m68k__c000_exception(c, M68K_VEC_AUTOVECTOR + level, false, false);
  uint32_t sr = enter_super(c);
  c->imask = (uint32_t)level;
  if (c->model == M68K_MODEL_68000) {
    push32(c, c->pc);
    push16(c, sr);
  } else {
    push16(c, (uint32_t)(M68K_VEC_AUTOVECTOR + level) * 4);
    push32(c, c->pc);
    push16(c, sr);
  }
  jump_vector(c, M68K_VEC_AUTOVECTOR + level);
}

/* Looks at what `pending` flags before an instruction; returns a reason to
 * stop, or M68K_STOP_NONE to go on. */
static m68k_stop_t service(m68k_cpu_t *c)
{
  if (c->halted)
    return M68K_STOP_HALTED;
  if (c->stop_req) {
    c->stop_req = false;
    m68k__update_pending(c);
    return M68K_STOP_HOOK;
  }
  if (c->nmi_edge) {
    c->nmi_edge = false;
    take_interrupt(c, 7);
  } else if (c->irq_level > (int)c->imask) {
    take_interrupt(c, c->irq_level);
  }
  if (c->stopped)
    return M68K_STOP_STOPPED;
  return M68K_STOP_NONE;
}

static void trace_insn(m68k_cpu_t *c)
{
  char buf[128];
  m68k_disassemble(c, c->pc, buf, sizeof(buf));
  fprintf(c->trace, "%08x  %s\n", c->pc, buf);
}

/* Runs one instruction and adds its cycles. The 68000 model: the chip's
 * clocks (cycles68000.c), decided before the instruction runs and replaced
 * by an exception's if it takes one. The 68030: its estimate
 * (m68k-cycles.tab), its cache-case time less its overlap with the
 * previous instruction's tail (m68k-timing.h, the manual's Equation 11-1).
 * An instruction that raises an exception leaves by longjmp and adds
 * nothing; exception processing ends the overlap (m68k__exception clears
 * the tail). */
static void exec_counted(m68k_cpu_t *c)
{
  uint32_t pc = c->pc;
  uint32_t op = m68k__rd(c, pc, 2);
  if (c->model == M68K_MODEL_68000) {
    m68k__c000_begin(c, pc, op);
    m68k__exec(c, c->icount + 1);
    m68k__c000_end(c);
    return;
  }
  const m68k__cycles_t *k = &m68k__cycles[c->optab[op]];
  m68k__timing_t t = {k->cc, k->head, k->tail};
  m68k__timing_t alt = {k->alt_cc, k->alt_head, k->alt_tail};
  uint32_t mask = k->kind == 2 ? m68k__rd(c, pc + 2, 2) : 0;
  m68k__exec(c, c->icount + 1);
  if (k->kind == 1) {
    /* Bcc: an 8-bit displacement in the opcode, 0 for a word, 0xFF for a
     * long one; DBcc (0x5xC8) always has a word. Bcc.W and Bcc.L falling
     * through cost what a taken branch does (11.6.15). */
    bool dbcc = (op & 0xF0F8) == 0x50C8;
    uint32_t len = dbcc ? 4 : (op & 0xFF) == 0 ? 4 : (op & 0xFF) == 0xFF ? 6 : 2;
    if (c->pc == pc + len && (dbcc || len == 2))
      t = alt;
  } else if (k->kind == 2) {
    t.cc += k->per * (unsigned)__builtin_popcount(mask);
  } else if (k->kind == 3) {
    if (c->nz != 0) /* Z clear: the compare failed */
      t = alt;
  } else if (k->kind == 4) {
    if (op & 0x20)
      t = alt;
  }
  c->cycles += m68k__timing_next(&c->tail, t);
}

/* The instruction loop (note 1): services what `pending` flags, then lets
 * m68k__exec() run; when something is pending it runs one instruction. */
static m68k_stop_t run_loop(m68k_cpu_t *c)
{
  for (;;) {
    if (M68K_UNLIKELY(c->pending)) {
      /* A trace exception is taken before the next instruction, so a run that ends
       * after a traced instruction leaves it to the next run. */
      if (c->icount >= c->run_end)
        return M68K_STOP_NONE;
      if (c->trace_pending) {
        c->trace_pending = false;
        m68k__exception(c, M68K_VEC_TRACE, c->pc, 2, c->ppc);
      }
      m68k_stop_t why = service(c);
      if (why != M68K_STOP_NONE)
        return why;
      if (c->trace)
        trace_insn(c);
      c->trace_pending = c->t1;
      c->pending = c->pending || c->trace_pending;
      if (c->count_cycles) {
        exec_counted(c);
        continue;
      }
    } else if (c->icount >= c->run_end) {
      return M68K_STOP_NONE;
    }
    if (c->xlat && !c->pending)
      m68k__xlat_exec(c, c->run_end);
    else
      m68k__exec(c, c->pending ? c->icount + 1 : c->run_end);
  }
}

m68k_stop_t m68k_run(m68k_cpu_t *cpu, uint64_t count, uint64_t *done)
{
  m68k_cpu_t *const c = cpu;
  uint64_t start = c->icount;
  c->run_end = start + count;
  if (setjmp(c->jb) != 0) {
    /* An exception left an instruction (note 1); the loop goes on. */
    c->in_group0 = false;
  }
  m68k_stop_t why = run_loop(c);
  if (done)
    *done = c->icount - start;
  return why;
}

m68k_stop_t m68k_step(m68k_cpu_t *cpu)
{
  return m68k_run(cpu, 1, NULL);
}

void m68k_set_irq(m68k_cpu_t *cpu, int level)
{
  if (level < 0)
    level = 0;
  if (level > 7)
    level = 7;
  if (level == 7 && cpu->irq_level != 7)
    cpu->nmi_edge = true;
  cpu->irq_level = level;
  m68k__update_pending(cpu);
}

void m68k_set_trap_hook(m68k_cpu_t *cpu, m68k_trap_hook_fn fn, void *ctx)
{
  cpu->hook = fn;
  cpu->hook_ctx = ctx;
}

void m68k_request_stop(m68k_cpu_t *cpu)
{
  cpu->stop_req = true;
  cpu->pending = true;
}

void m68k_set_trace(m68k_cpu_t *cpu, void *file)
{
  cpu->trace = file;
  m68k__update_pending(cpu);
}

uint64_t m68k_instructions(const m68k_cpu_t *cpu)
{
  return cpu->icount;
}

void m68k_set_cycle_count(m68k_cpu_t *cpu, bool on)
{
  cpu->count_cycles = on;
  cpu->tail = 0;
  cpu->c0.in = false;
  m68k__update_pending(cpu);
}

bool m68k_cycle_counting(const m68k_cpu_t *cpu)
{
  return cpu->count_cycles;
}

bool m68k_stopped(const m68k_cpu_t *cpu)
{
  return cpu->stopped;
}

void m68k_set_stopped(m68k_cpu_t *cpu, bool stopped)
{
  cpu->stopped = stopped;
  m68k__update_pending(cpu);
}

uint64_t m68k_cycles(const m68k_cpu_t *cpu)
{
  return cpu->cycles;
}

uint64_t m68k_cas_executed(const m68k_cpu_t *cpu, unsigned operands)
{
  return operands == 2 ? cpu->ncas2 : operands == 1 ? cpu->ncas : 0;
}
