/* machine.c -- quamachine's two-CPU machine: shared RAM, device page, deterministic scheduler.
 *
 * Design notes
 *
 * 1. One host thread runs every CPU. The scheduler hands one CPU a slice
 *    (a number of instructions) at a time, so an instruction, CAS, CAS2
 *    and TAS included, is indivisible with respect to the other CPU by
 *    construction, and the interleaving is whatever the schedule says.
 *
 * 2. Time is the machine clock: instructions executed by all CPUs. The
 *    timer is defined on it, so a run depends only on the image, its
 *    inputs and the schedule. A slice is cut into chunks that end exactly
 *    at the next timer deadline; device writes that change the timer ask
 *    the core to stop after the instruction so the chunk is re-planned.
 *
 * 3. A CPU that executed STOP is idle until an interrupt request reaches
 *    it. When every CPU is idle the clock jumps to the next timer
 *    deadline (an "idle" slice in the record), or, if no pending or
 *    future request can wake one, the machine stops with DEADLOCK.
 *
 * 4. Recording keeps the slices as they were executed (consecutive
 *    slices of one CPU merged) and the idle jumps. Replaying them makes
 *    every chunk, device access and interrupt happen at the same clock,
 *    hence the same run. A replayed slice that cannot run in full means
 *    the schedule belongs to another run: the machine stops and says so.
 */
#include "machine-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Slice length for a one-CPU machine (no interleaving to decide). */
#define SOLO_SLICE (1u << 22)
#define CPU_STACK 65536u

/* ---- Errors ----------------------------------------------------------- */

M68K_API const char *m68k_strerror(int err) {
  switch (err) {
  case M68K_OK: return "success";
#define XX(name, msg)                                                                              \
  case M68K_E##name: return msg;
    M68K_ERRNO_MAP(XX)
#undef XX
  default: return "unknown error";
  }
}

M68K_API const char *m68k_err_name(int err) {
  switch (err) {
  case M68K_OK: return "M68K_OK";
#define XX(name, msg)                                                                              \
  case M68K_E##name: return "M68K_E" #name;
    M68K_ERRNO_MAP(XX)
#undef XX
  default: return "M68K_E?";
  }
}

/* ---- Messages and stopping ------------------------------------------- */

void m68k__machine_msg(struct m68k_machine *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->message, sizeof m->message, fmt, ap);
  va_end(ap);
}

uint64_t m68k__machine_now(const struct m68k_machine *m) {
  if (m->running == NULL)
    return m->clock;
  return m->clock + (m68k_instructions(m->running->cpu) - m->chunk_start);
}

void m68k__machine_stop(struct m68k_machine *m, m68k__mcpu_t *c, m68k_machine_status_t status,
                        int32_t code, const char *fmt, ...) {
  if (m->stopped)
    return;
  m->stopped = true;
  m->result.status = status;
  m->result.code = code;
  m->result.cpu = c != NULL ? c->id : 0;
  m->result.pc = c != NULL ? m68k_get_reg(c->cpu, M68K_REG_PC) : 0;
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->message, sizeof m->message, fmt, ap);
    va_end(ap);
  } else {
    m->message[0] = '\0';
  }
  if (c != NULL && m->running == c)
    m68k_request_stop(c->cpu);
}

static const char *const vector_names[] = {
    [2] = "bus error",
    [3] = "address error",
    [4] = "illegal instruction",
    [5] = "integer divide by zero",
    [6] = "CHK",
    [7] = "TRAPV",
    [8] = "privilege violation",
    [9] = "trace",
    [10] = "line 1010 emulator (A-line)",
    [11] = "line 1111 emulator (F-line)",
    [13] = "coprocessor protocol violation",
    [14] = "format error",
    [15] = "uninitialised interrupt",
    [24] = "spurious interrupt",
    [48] = "FPU branch or set on unordered (BSUN)",
    [49] = "FPU inexact result",
    [50] = "FPU divide by zero",
    [51] = "FPU underflow",
    [52] = "FPU operand error",
    [53] = "FPU overflow",
    [54] = "FPU signalling NaN",
};

const char *m68k__vector_name(int vector, char *buf, size_t len) {
  if (vector >= 0 && (size_t)vector < sizeof vector_names / sizeof vector_names[0] &&
      vector_names[vector] != NULL)
    snprintf(buf, len, "%s", vector_names[vector]);
  else if (vector >= 25 && vector <= 31)
    snprintf(buf, len, "level %d interrupt autovector", vector - 24);
  else if (vector >= 32 && vector <= 47)
    snprintf(buf, len, "TRAP #%d", vector - 32);
  else
    snprintf(buf, len, "exception vector %d", vector);
  return buf;
}

/* ---- RAM -------------------------------------------------------------- */

static uint8_t *ram_at(struct m68k_machine *m, uint32_t addr, uint32_t len) {
  addr &= m->addr_mask;
  if (addr < m->ram_base)
    return NULL;
  uint32_t off = addr - m->ram_base;
  if (off > m->ram_size || m->ram_size - off < len)
    return NULL;
  return m->ram + off;
}

/* The host may write what it gets: translations of code there are dropped. */
static void host_write(struct m68k_machine *m, uint32_t addr, uint32_t len) {
  if (m->ncpus > 0 && m->cpus[0].cpu != NULL)
    m68k_jit_invalidate(m->cpus[0].cpu, addr, len);
}

M68K_API uint8_t *m68k_machine_ram(m68k_machine_t *m, uint32_t addr, uint32_t len) {
  uint8_t *p = ram_at(m, addr, len);
  if (p != NULL)
    host_write(m, addr, len);
  return p;
}

M68K_API uint32_t m68k_machine_ram_base(const m68k_machine_t *m) { return m->ram_base; }
M68K_API uint32_t m68k_machine_ram_size(const m68k_machine_t *m) { return m->ram_size; }

M68K_API bool m68k_machine_read32(m68k_machine_t *m, uint32_t addr, uint32_t *v) {
  const uint8_t *p = ram_at(m, addr, 4);
  if (p == NULL)
    return false;
  *v = m68k__be32(p);
  return true;
}

M68K_API bool m68k_machine_write32(m68k_machine_t *m, uint32_t addr, uint32_t v) {
  uint8_t *p = ram_at(m, addr, 4);
  if (p == NULL)
    return false;
  host_write(m, addr, 4);
  m68k__put32(p, v);
  return true;
}

M68K_API int m68k_machine_load(m68k_machine_t *m, uint32_t addr, const void *src, size_t len) {
  if (len > UINT32_MAX)
    return M68K_EINVAL;
  uint8_t *p = ram_at(m, addr, (uint32_t)len);
  if (p == NULL)
    return M68K_EINVAL;
  host_write(m, addr, (uint32_t)len);
  memcpy(p, src, len);
  return M68K_OK;
}

/* ---- Interrupt requests ------------------------------------------------ */

static unsigned irq_level(const struct m68k_machine *m, const m68k__mcpu_t *c) {
  unsigned level = 0;
  if (c->timer_pending && m->timer_level > level)
    level = m->timer_level;
  if (c->ipi_pending && m->ipi_level > level)
    level = m->ipi_level;
  return level;
}

/* Whether the CPU would accept its highest pending request now. */
static bool wakeable(const struct m68k_machine *m, const m68k__mcpu_t *c, unsigned level) {
  unsigned mask = (m68k_get_reg(c->cpu, M68K_REG_SR) >> 8) & 7u;
  return level == 7 || level > mask;
}

static void update_irq(struct m68k_machine *m, m68k__mcpu_t *c) {
  unsigned level = irq_level(m, c);
  m68k_set_irq(c->cpu, (int)level);
  if (level != 0)
    c->idle = false;
}

static void fire_timer(struct m68k_machine *m) {
  m->timer_count++;
  m->timer_next += m->timer_period;
  for (unsigned i = 0; i < m->ncpus; i++) {
    if (m->timer_target & (1u << i)) {
      m->cpus[i].timer_pending = true;
      update_irq(m, &m->cpus[i]);
    }
  }
}

static void timer_restart(struct m68k_machine *m) {
  m->timer_next = m->timer_period == 0 ? UINT64_MAX : m68k__machine_now(m) + m->timer_period;
}

/* ---- The device page ---------------------------------------------------- */

static bool is_dev(const struct m68k_machine *m, uint32_t addr) {
  return (addr & m->addr_mask) >= (M68K_DEV_BASE & m->addr_mask);
}

static uint32_t dev_read(m68k__mcpu_t *c, uint32_t addr) {
  struct m68k_machine *m = c->m;
  switch ((addr & m->addr_mask & 0xFFFu) & ~3u) {
  case M68K_DEV_CPU_ID: return c->id;
  case M68K_DEV_NCPUS: return m->ncpus;
  case M68K_DEV_TIMER_PERIOD: return m->timer_period;
  case M68K_DEV_TIMER_LEVEL: return m->timer_level;
  case M68K_DEV_TIMER_TARGET: return m->timer_target;
  case M68K_DEV_TIMER_COUNT: return m->timer_count;
  case M68K_DEV_IPI_LEVEL: return m->ipi_level;
  case M68K_DEV_CLOCK: return (uint32_t)m68k__machine_now(m);
  default: return 0;
  }
}

static unsigned clamp_level(uint32_t v) { return v < 1 ? 1 : v > 7 ? 7 : (unsigned)v; }

static void dev_write(m68k__mcpu_t *c, uint32_t addr, uint32_t v) {
  struct m68k_machine *m = c->m;
  switch ((addr & m->addr_mask & 0xFFFu) & ~3u) {
  case M68K_DEV_CONSOLE: fputc((int)(v & 0xFF), m->console); break;
  case M68K_DEV_HALT:
    m68k__machine_stop(m, c, M68K_MACHINE_EXITED, (int32_t)v,
                       "CPU %u wrote %" PRIu32 " to the halt port", c->id, v);
    break;
  case M68K_DEV_TIMER_PERIOD:
    m->timer_period = v;
    timer_restart(m);
    m68k_request_stop(c->cpu); /* re-plan the chunk (note 2) */
    break;
  case M68K_DEV_TIMER_LEVEL:
    m->timer_level = clamp_level(v);
    for (unsigned i = 0; i < m->ncpus; i++)
      update_irq(m, &m->cpus[i]);
    break;
  case M68K_DEV_TIMER_TARGET: m->timer_target = v & ((1u << m->ncpus) - 1u); break;
  case M68K_DEV_TIMER_ACK:
    c->timer_pending = false;
    update_irq(m, c);
    break;
  case M68K_DEV_IPI_SEND:
    if (v < m->ncpus) {
      m->cpus[v].ipi_pending = true;
      update_irq(m, &m->cpus[v]);
    }
    break;
  case M68K_DEV_IPI_LEVEL:
    m->ipi_level = clamp_level(v);
    for (unsigned i = 0; i < m->ncpus; i++)
      update_irq(m, &m->cpus[i]);
    break;
  case M68K_DEV_IPI_ACK:
    c->ipi_pending = false;
    update_irq(m, c);
    break;
  default: break;
  }
}

/* ---- The bus seen by each CPU --------------------------------------------- */

/* One access of `size` bytes: RAM, then the device page, else a bus fault
 * with the address recorded. The width-named functions below are the bus
 * table's entries. */
static bool bus_read(m68k__mcpu_t *c, uint32_t addr, unsigned size, uint32_t *v) {
  const uint8_t *p = ram_at(c->m, addr, size);
  if (p != NULL) {
    *v = size == 1 ? *p : size == 2 ? m68k__be16(p) : m68k__be32(p);
    return true;
  }
  if (is_dev(c->m, addr)) {
    *v = dev_read(c, addr);
    return true;
  }
  c->m->fault_addr = addr;
  return false;
}

static bool bus_write(m68k__mcpu_t *c, uint32_t addr, unsigned size, uint32_t v) {
  uint8_t *p = ram_at(c->m, addr, size);
  if (p != NULL) {
    if (size == 1)
      *p = (uint8_t)v;
    else if (size == 2)
      m68k__put16(p, (uint16_t)v);
    else
      m68k__put32(p, v);
    return true;
  }
  if (is_dev(c->m, addr)) {
    dev_write(c, addr, v);
    return true;
  }
  c->m->fault_addr = addr;
  return false;
}

static bool bus_read8(void *ctx, uint32_t addr, unsigned fc, uint8_t *v) {
  uint32_t x;
  if (!bus_read(ctx, addr, 1, &x))
    return false;
  *v = (uint8_t)x;
  return true;
}

static bool bus_read16(void *ctx, uint32_t addr, unsigned fc, uint16_t *v) {
  uint32_t x;
  if (!bus_read(ctx, addr, 2, &x))
    return false;
  *v = (uint16_t)x;
  return true;
}

static bool bus_read32(void *ctx, uint32_t addr, unsigned fc, uint32_t *v) {
  return bus_read(ctx, addr, 4, v);
}

static bool bus_write8(void *ctx, uint32_t addr, unsigned fc, uint8_t v) {
  return bus_write(ctx, addr, 1, v);
}

static bool bus_write16(void *ctx, uint32_t addr, unsigned fc, uint16_t v) {
  return bus_write(ctx, addr, 2, v);
}

static bool bus_write32(void *ctx, uint32_t addr, unsigned fc, uint32_t v) {
  return bus_write(ctx, addr, 4, v);
}

/* ---- Exceptions ------------------------------------------------------------- */

/* Every CPU's trap hook: the host handler of the vector, then the
 * personality (m68k_machine_on_exception). */
static bool machine_hook(void *ctx, m68k_cpu_t *cpu, int vector) {
  m68k__mcpu_t *c = ctx;
  struct m68k_machine *m = c->m;
  if (vector >= 0 && vector < 256 && m->exc[vector].fn != NULL &&
      m->exc[vector].fn(m->exc[vector].ctx, m, c->id, vector))
    return true;
  return c->personality != NULL && c->personality(ctx, cpu, vector);
}

M68K_API int m68k_machine_on_exception(m68k_machine_t *m, int vector, m68k_machine_exception_fn fn,
                                       void *ctx) {
  if (vector < 0 || vector > 255)
    return M68K_EINVAL;
  if (fn != NULL && m->exc[vector].fn != NULL &&
      (m->exc[vector].fn != fn || m->exc[vector].ctx != ctx))
    return M68K_EBUSY;
  m->exc[vector].fn = fn;
  m->exc[vector].ctx = fn != NULL ? ctx : NULL;
  return M68K_OK;
}

/* ---- Life cycle ------------------------------------------------------------- */

M68K_API m68k_machine_t *m68k_machine_create(const m68k_machine_config_t *cfg) {
  if (cfg == NULL || cfg->ncpus < 1 || cfg->ncpus > M68K_MACHINE_MAX_CPUS)
    return NULL;
  if (cfg->model != M68K_MODEL_68000 && cfg->model != M68K_MODEL_68030)
    return NULL;
  uint32_t size = cfg->ram_size != 0 ? cfg->ram_size : M68K_MACHINE_DEFAULT_RAM;
  uint32_t mask = cfg->model == M68K_MODEL_68000 ? 0x00FFFFFFu : 0xFFFFFFFFu;
  uint32_t dev = M68K_DEV_BASE & mask;
  if ((cfg->ram_base & 0xFFFFu) != 0 || (cfg->ram_base & ~mask) != 0 || size < 65536u)
    return NULL;
  if (cfg->ram_base >= dev || dev - cfg->ram_base < size)
    return NULL;

  struct m68k_machine *m = calloc(1, sizeof *m);
  if (m == NULL)
    return NULL;
  m->model = cfg->model;
  m->ncpus = cfg->ncpus;
  m->addr_mask = mask;
  m->ram_base = cfg->ram_base;
  m->ram_size = size;
  /* RAM straight from the kernel: zero pages on first touch, so a machine
   * whose program touches a few pages costs a few pages, not a memset of
   * the whole RAM (explorers build one per schedule). */
  void *ram = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ram == MAP_FAILED)
    goto fail;
  /* Advice only: a kernel without THP (EINVAL) keeps small pages. */
  if (cfg->huge_pages)
    (void)madvise(ram, size, MADV_HUGEPAGE);
  m->ram = ram;
  m->console = stdout;
  m->timer_level = 6;
  m->timer_target = 1;
  m->timer_next = UINT64_MAX;
  m->ipi_level = 5;
  m->sched_kind = M68K_SCHED_QUANTUM;
  m->quantum = 1000;
  m->max_slice = 16;
  for (unsigned i = 0; i < m->ncpus; i++) {
    m68k__mcpu_t *c = &m->cpus[i];
    c->m = m;
    c->id = i;
    c->bus = (m68k_bus_t){
        .ram = m->ram,
        .ram_base = m->ram_base,
        .ram_size = m->ram_size,
        .ctx = c,
        .read8 = bus_read8,
        .read16 = bus_read16,
        .read32 = bus_read32,
        .write8 = bus_write8,
        .write16 = bus_write16,
        .write32 = bus_write32,
        .reset = NULL,
    };
    c->cpu = m68k_create(m->model, &c->bus);
    if (c->cpu == NULL)
      goto fail;
    m68k_set_trap_hook(c->cpu, machine_hook, c);
    /* Translation by default (m68k_jit_set_default): the CPUs share one
     * translator, so that a store by one drops the other's translations. */
    if (i > 0 && m68k_jit_default() != 0 &&
        m68k_jit_enable(c->cpu, m68k_jit_default(), m->cpus[0].cpu) != 0)
      goto fail;
  }
  return m;

fail:
  m68k_machine_destroy(m);
  return NULL;
}

M68K_API void m68k_machine_destroy(m68k_machine_t *m) {
  if (m == NULL)
    return;
  for (unsigned i = 0; i < m->ncpus; i++)
    if (m->cpus[i].cpu != NULL)
      m68k_destroy(m->cpus[i].cpu);
  if (m->qj_free != NULL)
    m->qj_free(m->qj);
  m68k__linux_free(m->linux_state);
  free(m->replay);
  free(m->rec);
  if (m->ram != NULL)
    munmap(m->ram, m->ram_size);
  free(m);
}

M68K_API unsigned m68k_machine_ncpus(const m68k_machine_t *m) { return m->ncpus; }
M68K_API m68k_model_t m68k_machine_model(const m68k_machine_t *m) { return m->model; }

M68K_API m68k_cpu_t *m68k_machine_cpu(m68k_machine_t *m, unsigned id) {
  return id < m->ncpus ? m->cpus[id].cpu : NULL;
}

M68K_API void m68k_machine_set_console(m68k_machine_t *m, FILE *out) {
  m->console = out != NULL ? out : stdout;
}

M68K_API void m68k_machine_set_trace(m68k_machine_t *m, FILE *out) {
  for (unsigned i = 0; i < m->ncpus; i++)
    m68k_set_trace(m->cpus[i].cpu, out);
}

M68K_API void m68k_machine_set_limit(m68k_machine_t *m, uint64_t max) { m->limit = max; }

M68K_API void m68k_machine_set_cycle_count(m68k_machine_t *m, bool on) {
  for (unsigned i = 0; i < m->ncpus; i++)
    m68k_set_cycle_count(m->cpus[i].cpu, on);
}

/* The cycles all CPUs counted. */
static uint64_t machine_cycles(const m68k_machine_t *m) {
  uint64_t n = 0;
  for (unsigned i = 0; i < m->ncpus; i++)
    n += m68k_cycles(m->cpus[i].cpu);
  return n;
}

M68K_API const char *m68k_machine_message(const m68k_machine_t *m) { return m->message; }

/* Freestanding images: a vector holding 0 has no handler (note in the header). */
static bool freestanding_hook(void *ctx, m68k_cpu_t *cpu, int vector) {
  m68k__mcpu_t *c = ctx;
  struct m68k_machine *m = c->m;
  uint32_t vbr = m->model == M68K_MODEL_68000 ? 0 : m68k_get_reg(cpu, M68K_REG_VBR);
  uint32_t handler = 0;
  if (m68k_machine_read32(m, vbr + 4u * (uint32_t)vector, &handler) && handler != 0)
    return false;
  char name[64];
  m68k__vector_name(vector, name, sizeof name);
  m68k__machine_stop(m, c, M68K_MACHINE_FAULT, vector,
                     "CPU %u: %s (vector %d) with no handler at PC 0x%08" PRIx32, c->id, name,
                     vector, m68k_get_reg(cpu, M68K_REG_PC));
  return true;
}

M68K_API void m68k_machine_start(m68k_machine_t *m, uint32_t entry) {
  uint32_t top = m->ram_base + m->ram_size;
  m->freestanding = true;
  for (unsigned i = 0; i < m->ncpus; i++) {
    m68k_cpu_t *cpu = m->cpus[i].cpu;
    uint32_t sp = top - i * CPU_STACK;
    m68k_set_reg(cpu, M68K_REG_SR, 0x2700);
    m68k_set_reg(cpu, M68K_REG_ISP, sp);
    if (m->model != M68K_MODEL_68000) {
      m68k_set_reg(cpu, M68K_REG_MSP, sp);
      m68k_set_reg(cpu, M68K_REG_VBR, 0);
    }
    m68k_set_reg(cpu, M68K_REG_A0 + 7, sp);
    m68k_set_reg(cpu, M68K_REG_PC, entry);
    m->cpus[i].personality = freestanding_hook;
  }
}

/* ---- Scheduling --------------------------------------------------------------- */

M68K_API int m68k_machine_set_schedule(m68k_machine_t *m, const m68k_schedule_t *s) {
  m68k_slice_t *copy = NULL;
  switch (s->kind) {
  case M68K_SCHED_QUANTUM:
    if (s->quantum == 0)
      return M68K_EINVAL;
    m->quantum = s->quantum;
    break;
  case M68K_SCHED_RANDOM:
    m->rng = s->seed;
    m->max_slice = s->max_slice != 0 ? s->max_slice : 16;
    break;
  case M68K_SCHED_REPLAY:
    for (size_t i = 0; i < s->nslices; i++)
      if (s->slices[i].cpu != M68K_SLICE_IDLE && s->slices[i].cpu >= m->ncpus)
        return M68K_EINVAL;
    if (s->nslices != 0) {
      copy = malloc(s->nslices * sizeof *copy);
      if (copy == NULL)
        return M68K_ENOMEM;
      memcpy(copy, s->slices, s->nslices * sizeof *copy);
    }
    break;
  default: return M68K_EINVAL;
  }
  free(m->replay);
  m->replay = copy;
  m->replay_n = copy != NULL ? s->nslices : 0;
  m->replay_pos = 0;
  m->sched_kind = s->kind;
  m->rr_next = 0;
  return M68K_OK;
}

/* One "CPU x COUNT" (or "idle x COUNT") of an inline schedule; advances *p. */
static bool parse_one_slice(const char **p, m68k_slice_t *out) {
  const char *q = *p;
  char *end;
  unsigned long long cpu, count;
  if (strncmp(q, "idle", 4) == 0) {
    cpu = M68K_SLICE_IDLE;
    q += 4;
  } else {
    if (*q < '0' || *q > '9')
      return false;
    errno = 0;
    cpu = strtoull(q, &end, 10);
    if (errno != 0 || cpu >= M68K_MACHINE_MAX_CPUS)
      return false;
    q = end;
  }
  if (*q++ != 'x' || *q < '0' || *q > '9')
    return false;
  errno = 0;
  count = strtoull(q, &end, 10);
  if (errno != 0 || count == 0 || count >= UINT32_MAX)
    return false;
  *out = (m68k_slice_t){(uint32_t)cpu, (uint32_t)count};
  *p = end;
  return true;
}

/* "0x3,1x5,idlex40": the slices of a REPLAY schedule, inline. */
static int parse_slices(const char *p, m68k_schedule_t *s) {
  size_t n = 1;
  for (const char *q = p; *q != '\0'; q++)
    n += *q == ',';
  m68k_slice_t *sl = malloc(n * sizeof *sl);
  if (sl == NULL)
    return M68K_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    if (!parse_one_slice(&p, &sl[i]) || *p != (i + 1 < n ? ',' : '\0')) {
      free(sl);
      return M68K_EINVAL;
    }
    p++;
  }
  s->kind = M68K_SCHED_REPLAY;
  s->slices = sl;
  s->nslices = n;
  return M68K_OK;
}

M68K_API int m68k_schedule_parse(const char *spec, m68k_schedule_t *s) {
  char *end;
  memset(s, 0, sizeof *s);
  if (strncmp(spec, "quantum:", 8) == 0) {
    errno = 0;
    unsigned long long q = strtoull(spec + 8, &end, 0);
    if (errno != 0 || end == spec + 8 || *end != '\0' || q == 0 || q > UINT32_MAX)
      return M68K_EINVAL;
    s->kind = M68K_SCHED_QUANTUM;
    s->quantum = (uint32_t)q;
    return M68K_OK;
  }
  if (strncmp(spec, "random:", 7) == 0) {
    errno = 0;
    unsigned long long seed = strtoull(spec + 7, &end, 0);
    if (errno != 0 || end == spec + 7)
      return M68K_EINVAL;
    s->kind = M68K_SCHED_RANDOM;
    s->seed = seed;
    s->max_slice = 16;
    if (*end == ':') {
      const char *p = end + 1;
      unsigned long long mx = strtoull(p, &end, 0);
      if (errno != 0 || end == p || mx == 0 || mx > UINT32_MAX)
        return M68K_EINVAL;
      s->max_slice = (uint32_t)mx;
    }
    return *end == '\0' ? M68K_OK : M68K_EINVAL;
  }
  if (strncmp(spec, "slices:", 7) == 0)
    return parse_slices(spec + 7, s);
  return M68K_EINVAL;
}

M68K_API void m68k_schedule_free(m68k_schedule_t *s) {
  if (s->kind == M68K_SCHED_REPLAY)
    free((void *)s->slices);
  s->slices = NULL;
  s->nslices = 0;
}

M68K_API int m68k_schedule_format(const m68k_slice_t *s, size_t n, char *buf, size_t len) {
  size_t used = 0;
  int w = snprintf(buf, len, "slices:");
  if (w < 0)
    return M68K_EINVAL;
  used = (size_t)w;
  for (size_t i = 0; i < n; i++) {
    if (s[i].cpu == M68K_SLICE_IDLE)
      w = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                   "%sidlex%" PRIu32, i != 0 ? "," : "", s[i].count);
    else
      w = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                   "%s%" PRIu32 "x%" PRIu32, i != 0 ? "," : "", s[i].cpu, s[i].count);
    if (w < 0)
      return M68K_EINVAL;
    used += (size_t)w;
  }
  return used < len ? M68K_OK : M68K_ETOOBIG;
}

M68K_API void m68k_machine_record(m68k_machine_t *m, bool on) {
  m->recording = on;
  if (on)
    m->rec_n = 0;
}

M68K_API const m68k_slice_t *m68k_machine_recorded(const m68k_machine_t *m, size_t *n) {
  *n = m->rec_n;
  return m->rec;
}

static void record(struct m68k_machine *m, uint32_t cpu, uint64_t count) {
  if (!m->recording || count == 0)
    return;
  while (count != 0) {
    uint32_t part = count > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)count;
    count -= part;
    if (cpu != M68K_SLICE_IDLE && m->rec_n != 0 && m->rec[m->rec_n - 1].cpu == cpu &&
        m->rec[m->rec_n - 1].count <= UINT32_MAX - 1 - part) {
      m->rec[m->rec_n - 1].count += part;
      continue;
    }
    if (m->rec_n == m->rec_cap) {
      size_t cap = m->rec_cap != 0 ? m->rec_cap * 2 : 256;
      m68k_slice_t *r = realloc(m->rec, cap * sizeof *r);
      if (r == NULL) {
        m68k__machine_stop(m, NULL, M68K_MACHINE_FAULT, 0, "out of memory recording the schedule");
        return;
      }
      m->rec = r;
      m->rec_cap = cap;
    }
    m->rec[m->rec_n++] = (m68k_slice_t){cpu, part};
  }
}

M68K_API int m68k_schedule_save(const char *path, const m68k_slice_t *s, size_t n) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return M68K_EIO;
  fprintf(f, "quamachine-schedule 1\n");
  for (size_t i = 0; i < n; i++) {
    if (s[i].cpu == M68K_SLICE_IDLE)
      fprintf(f, "idle %" PRIu32 "\n", s[i].count);
    else
      fprintf(f, "%" PRIu32 " %" PRIu32 "\n", s[i].cpu, s[i].count);
  }
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad)
    return M68K_EIO;
  return M68K_OK;
}

M68K_API int m68k_schedule_load(const char *path, m68k_slice_t **out, size_t *nout) {
  int rc = M68K_OK;
  m68k_slice_t *s = NULL;
  size_t n = 0, cap = 0;
  char line[128];
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return M68K_EIO;
  if (fgets(line, sizeof line, f) == NULL || strcmp(line, "quamachine-schedule 1\n") != 0) {
    rc = M68K_ESCHEDULE;
    goto out;
  }
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long cpu, count;
    char tail;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (sscanf(line, "idle %lu %c", &count, &tail) == 1)
      cpu = M68K_SLICE_IDLE;
    else if (sscanf(line, "%lu %lu %c", &cpu, &count, &tail) != 2 || cpu >= M68K_MACHINE_MAX_CPUS) {
      rc = M68K_ESCHEDULE;
      goto out;
    }
    if (count == 0 || count >= UINT32_MAX) {
      rc = M68K_ESCHEDULE;
      goto out;
    }
    if (n == cap) {
      cap = cap != 0 ? cap * 2 : 256;
      m68k_slice_t *r = realloc(s, cap * sizeof *r);
      if (r == NULL) {
        rc = M68K_ENOMEM;
        goto out;
      }
      s = r;
    }
    s[n++] = (m68k_slice_t){(uint32_t)cpu, (uint32_t)count};
  }
  if (ferror(f))
    rc = M68K_EIO;
out:
  fclose(f);
  if (rc != M68K_OK) {
    free(s);
    return rc;
  }
  *out = s;
  *nout = n;
  return M68K_OK;
}

/* ---- The run loop --------------------------------------------------------------- */

static bool all_idle(const struct m68k_machine *m) {
  for (unsigned i = 0; i < m->ncpus; i++)
    if (!m->cpus[i].idle)
      return false;
  return true;
}

/* Every CPU is idle: jump the clock to the next timer tick if it can wake
 * one (note 3), else stop with DEADLOCK. Returns the clock advance. */
static uint64_t idle_jump(struct m68k_machine *m) {
  bool can_wake = false;
  for (unsigned i = 0; i < m->ncpus && m->timer_period != 0; i++)
    if ((m->timer_target & (1u << i)) && wakeable(m, &m->cpus[i], m->timer_level))
      can_wake = true;
  if (!can_wake) {
    m68k__machine_stop(m, &m->cpus[0], M68K_MACHINE_DEADLOCK, 0,
                       "every CPU is stopped and no interrupt can wake one");
    return 0;
  }
  uint64_t delta = m->timer_next - m->clock;
  if (m->limit != 0 && m->timer_next > m->limit) {
    m->clock = m->limit;
    m68k__machine_stop(m, &m->cpus[0], M68K_MACHINE_LIMIT, 0,
                       "instruction limit reached (%" PRIu64 ")", m->limit);
    return 0;
  }
  m->clock = m->timer_next;
  fire_timer(m);
  return delta;
}

/* Runs CPU c for up to len instructions, in chunks that end at timer
 * deadlines. Returns the number executed; *went_idle tells whether the
 * CPU stopped to wait for an interrupt. */
static uint64_t run_slice(struct m68k_machine *m, m68k__mcpu_t *c, uint64_t len, bool *went_idle) {
  uint64_t executed = 0;
  *went_idle = false;
  while (executed < len && !m->stopped) {
    uint64_t chunk = len - executed;
    if (m->timer_next - m->clock < chunk)
      chunk = m->timer_next - m->clock;
    if (m->limit != 0) {
      if (m->clock >= m->limit) {
        m68k__machine_stop(m, c, M68K_MACHINE_LIMIT, 0, "instruction limit reached (%" PRIu64 ")",
                           m->limit);
        break;
      }
      if (m->limit - m->clock < chunk)
        chunk = m->limit - m->clock;
    }
    uint64_t done = 0;
    m->running = c;
    m->chunk_start = m68k_instructions(c->cpu);
    m68k_stop_t why = m68k_run(c->cpu, chunk, &done);
    m->running = NULL;
    m->clock += done;
    executed += done;
    while (m->clock >= m->timer_next)
      fire_timer(m);
    if (m->stopped)
      break;
    if (why == M68K_STOP_HALTED) {
      m68k__machine_stop(m, c, M68K_MACHINE_HALTED, 0, "CPU %u halted (double bus fault)", c->id);
      break;
    }
    if (why == M68K_STOP_STOPPED) {
      unsigned level = irq_level(m, c);
      if (level == 0 || !wakeable(m, c, level)) {
        c->idle = true;
        *went_idle = true;
        break;
      }
      if (done == 0)
        break; /* the core did not take it: don't spin here */
    }
  }
  /* A STOP as the slice's last instruction leaves the core stopped without
   * saying so (it says so at its next run): look, so that the CPU is seen
   * idle now, which an explorer choosing every step needs. */
  if (!*went_idle && !m->stopped && m68k_stopped(c->cpu)) {
    unsigned level = irq_level(m, c);
    if (level == 0 || !wakeable(m, c, level)) {
      c->idle = true;
      *went_idle = true;
    }
  }
  return executed;
}

static void run_replay(struct m68k_machine *m) {
  while (!m->stopped) {
    if (m->replay_pos == m->replay_n) {
      m68k__machine_stop(m, &m->cpus[0], M68K_MACHINE_SCHEDULE_END, 0,
                         "the replayed schedule ran out after %zu slices", m->replay_n);
      return;
    }
    m68k_slice_t s = m->replay[m->replay_pos++];
    if (s.cpu == M68K_SLICE_IDLE) {
      uint64_t delta = all_idle(m) ? idle_jump(m) : 0;
      if (!m->stopped && delta != s.count)
        m68k__machine_stop(m, &m->cpus[0], M68K_MACHINE_SCHEDULE_END, 0,
                           "the replayed schedule does not match this run (idle slice %zu)",
                           m->replay_pos - 1);
      record(m, M68K_SLICE_IDLE, delta);
      continue;
    }
    m68k__mcpu_t *c = &m->cpus[s.cpu];
    bool went_idle;
    uint64_t done = run_slice(m, c, s.count, &went_idle);
    record(m, s.cpu, done);
    if (!m->stopped && done != s.count)
      m68k__machine_stop(m, c, M68K_MACHINE_SCHEDULE_END, 0,
                         "the replayed schedule does not match this run (slice %zu: CPU %" PRIu32
                         " ran %" PRIu64 " of %" PRIu32 " instructions)",
                         m->replay_pos - 1, s.cpu, done, s.count);
  }
}

static void run_generated(struct m68k_machine *m) {
  while (!m->stopped) {
    if (all_idle(m)) {
      record(m, M68K_SLICE_IDLE, idle_jump(m));
      continue;
    }
    unsigned cpu;
    uint64_t len;
    if (m->ncpus == 1) {
      cpu = 0;
      len = SOLO_SLICE;
    } else if (m->sched_kind == M68K_SCHED_RANDOM) {
      uint64_t r = m68k__splitmix64(&m->rng);
      cpu = (unsigned)(r % m->ncpus);
      len = 1 + (r >> 32) % m->max_slice;
    } else {
      cpu = m->rr_next;
      m->rr_next = (m->rr_next + 1) % m->ncpus;
      len = m->quantum;
    }
    m68k__mcpu_t *c = &m->cpus[cpu];
    if (c->idle)
      continue;
    bool went_idle;
    record(m, cpu, run_slice(m, c, len, &went_idle));
  }
}

M68K_API uint64_t m68k_machine_step(m68k_machine_t *m, unsigned cpu, uint64_t count) {
  if (m->stopped || cpu >= m->ncpus || m->cpus[cpu].idle)
    return 0;
  m68k__mcpu_t *c = &m->cpus[cpu];
  bool went_idle;
  uint64_t done = run_slice(m, c, count, &went_idle);
  record(m, cpu, done);
  return done;
}

M68K_API bool m68k_machine_stopped(const m68k_machine_t *m, m68k_machine_result_t *res) {
  if (m->stopped && res != NULL) {
    *res = m->result;
    res->clock = m->clock;
    res->cycles = machine_cycles(m);
  }
  return m->stopped;
}

M68K_API bool m68k_machine_cpu_idle(const m68k_machine_t *m, unsigned cpu) {
  return cpu < m->ncpus && m->cpus[cpu].idle;
}

M68K_API int m68k_machine_run(m68k_machine_t *m, m68k_machine_result_t *res) {
  if (!m->stopped) {
    if (m->sched_kind == M68K_SCHED_REPLAY)
      run_replay(m);
    else
      run_generated(m);
  }
  m->result.clock = m->clock;
  m->result.cycles = machine_cycles(m);
  if (res != NULL)
    *res = m->result;
  return M68K_OK;
}
