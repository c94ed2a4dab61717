/* quaject68k-drive.c -- m68k_qj_drive: producer and consumer loops on both CPUs, and the checks of
 * what arrived.
 *
 * Design notes
 *
 * 1. Layout: the two CPUs' control blocks (qjdrive-templates.c's qd_ctl_t),
 *    two copies of the loop (one per CPU: their holes differ) and the
 *    measuring thunks live in one arena block; the consumers' logs in RAM
 *    above the arena, below m68k_machine_start()'s CPU stacks.
 *
 * 2. Measuring: the loops call the entries through thunks that execute
 *    TRAP #13 right before and right after the call. drive_trap() reads
 *    the CPU's instruction and cycle counts at both; their difference is
 *    the entry plus the thunk's own instructions between the traps, which
 *    is measured once beforehand on the arena's null entry (three
 *    instructions whose cost m68k__qj_call_addr gives) and subtracted.
 *    The host's handler runs while the CPU waits, so the other CPU's
 *    instructions never enter a CPU's counts.
 *
 * 3. Folded (options.folded): each CPU's loop is instead one chain of
 *    qjdrive-templates.c's qd_f_* pieces and the entries' folded forms
 *    (quaject68k-templates.c notes F1-F6), each operation falling into the
 *    piece after it, its cold stubs after the piece that ends its half of
 *    the loop (ppost, cpost: a jump, so nothing falls into them).
 *    Measuring, a TRAP #13 piece goes right before and right after each
 *    operation: between the two traps run only the operation's
 *    instructions and the first TRAP's cycles, which are measured once on a
 *    chain of two trap pieces and subtracted.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "qd-stencils.h"
#include "qf-stencils.h"
#include "quaject68k-internal.h"

#define DRIVE_TRAP 13
#define CTL_SIZE (8u + 28u * M68K_QJ_DRIVE_AGENTS)
#define DEFAULT_LIMIT 2000000000ull

/* qd_agent_t and qd_ctl_t offsets (qjdrive-templates.c). */
enum { AG_KIND = 0, AG_NEXT = 4, AG_STEP = 8, AG_END = 12, AG_ARG = 16, AG_LOG = 20, AG_NLOG = 24 };
enum { QD_PRODUCER = 0, QD_CONSUMER = 1, QD_DONE = 2 };

typedef struct samples {
  uint64_t *v;
  size_t n, cap;
} samples_t;

typedef struct drive {
  m68k__qj_arena_t *a;
  /* [copy][k]: where the code between entry k's two traps lies, in
   * [lo, hi): the thunks (both copies the same) or, folded, each CPU's
   * chain (note 3). */
  uint32_t lo[2][2], hi[2][2];
  bool in_call[M68K_MACHINE_MAX_CPUS];
  uint64_t i0[M68K_MACHINE_MAX_CPUS], c0[M68K_MACHINE_MAX_CPUS];
  uint64_t over_insns, over_cycles; /* the thunk's own cost (note 2) */
  samples_t insns[2], cycles[2];
  bool oom;
  /* Calibration: the last sample, whatever thunk. */
  uint64_t last_insns, last_cycles;
} drive_t;

static void sample_add(drive_t *d, samples_t *s, uint64_t v) {
  if (s->n == s->cap) {
    size_t cap = s->cap != 0 ? 2 * s->cap : 1024;
    uint64_t *p = realloc(s->v, cap * sizeof *p);
    if (p == NULL) {
      d->oom = true;
      return;
    }
    s->v = p;
    s->cap = cap;
  }
  s->v[s->n++] = v;
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

static double median(samples_t *s) {
  if (s->n == 0)
    return 0;
  qsort(s->v, s->n, sizeof *s->v, cmp_u64);
  return s->n % 2 ? (double)s->v[s->n / 2]
                  : ((double)s->v[s->n / 2 - 1] + (double)s->v[s->n / 2]) / 2;
}

/* TRAP #13 of a thunk (note 2): the first of a pair notes the counts, the
 * second records the call if it succeeded (d0 = status). */
static bool drive_trap(void *ctx, m68k_machine_t *m, unsigned cpu, int vector) {
  drive_t *d = ctx;
  m68k_cpu_t *c = m68k_machine_cpu(m, cpu);
  uint32_t pc = m68k_get_reg(c, M68K_REG_PC);
  int which = -1;
  for (int copy = 0; copy < 2; copy++)
    for (int k = 0; k < 2; k++)
      if (pc >= d->lo[copy][k] && pc < d->hi[copy][k])
        which = k;
  if (which < 0)
    return false;
  /* The TRAP is counted in icount already, its cycles not yet. */
  uint64_t ni = m68k_instructions(c), nc = m68k_cycles(c);
  if (!d->in_call[cpu]) {
    d->in_call[cpu] = true;
    d->i0[cpu] = ni;
    d->c0[cpu] = nc;
    return true;
  }
  d->in_call[cpu] = false;
  d->last_insns = ni - d->i0[cpu] - 1;
  d->last_cycles = nc - d->c0[cpu];
  if (m68k_get_reg(c, M68K_REG_D0) == M68K_QJ_OK) {
    sample_add(d, &d->insns[which], d->last_insns - d->over_insns);
    sample_add(d, &d->cycles[which], d->last_cycles - d->over_cycles);
  }
  return true;
}

/* Runs the calibration code at `code` (its traps within len bytes) as
 * entry 0's while it runs, and records the cost between its traps less
 * (insns, cycles) as the measurements' overhead (notes 2 and 3). */
static int calibrate(drive_t *d, uint32_t code, uint32_t len, uint64_t insns, uint64_t cycles) {
  uint32_t lo = d->lo[0][0], hi = d->hi[0][0];
  d->lo[0][0] = code;
  d->hi[0][0] = code + len;
  int rc = m68k__qj_call_addr(d->a, 0, code, 0, NULL, NULL, NULL);
  d->lo[0][0] = lo;
  d->hi[0][0] = hi;
  if (rc < 0)
    return rc;
  d->over_insns = d->last_insns - insns;
  d->over_cycles = d->last_cycles - cycles;
  d->insns[0].n = 0;
  d->cycles[0].n = 0;
  return M68K_OK;
}

/* Emits stencil s at addr with hole values v. */
static int emit(m68k_machine_t *m, uint32_t addr, const jit_stencil_t *s, const uint64_t *v) {
  return jit_emit(m68k_machine_ram(m, addr, s->size), addr, s, v, NULL) == JIT_OK ? M68K_OK
                                                                                 : M68K_EINVAL;
}

static uint32_t rd32(m68k_machine_t *m, uint32_t addr) {
  uint32_t v = 0;
  m68k_machine_read32(m, addr, &v);
  return v;
}

/* The links of CPU `cpu`'s folded loop (note 3) into links[] (values in
 * vd for the qd pieces, vf for the operations); returns their number (0
 * when an operation's cold stubs find no room), and in tr[k][0..1] the
 * indices of operation k's trap links (measure). */
enum { F_MAX = 17 };
static size_t folded_links(m68k_qj_t *q, bool measure, const uint32_t ctl[2], unsigned cpu,
                           jit_link_t links[F_MAX], uint64_t vd[QD_HOLE__COUNT],
                           uint64_t vf[QF_HOLE__COUNT], size_t tr[2][2]) {
  memset(vd, 0, QD_HOLE__COUNT * sizeof vd[0]);
  vd[QD_HOLE_qd_ctl] = ctl[cpu];
  vd[QD_HOLE_qd_other] = ctl[1 - cpu];
  m68k__qj_fold_values(q, vf);
  vd[QD_HOLE_qd_state] = q->state;
  vd[QD_HOLE_qd_base] = vf[QF_HOLE_qk_slots];
  vd[QD_HOLE_qd_bound] = vf[QF_HOLE_qk_bound];
  size_t n = 0, agent = 2, cpre = 0, op = 0;
#define PIECE(st)                                                                                  \
  (links[n++] = (jit_link_t){.stencil = (st), .values = vd, .next_hole = QD_HOLE_qd_next})
  PIECE(&qd_stencil_qd_f_start);
  PIECE(&qd_stencil_qd_f_top);
  PIECE(&qd_stencil_qd_f_agent);
  for (unsigned k = 0; k < 2; k++) {
    if (k == 1) {
      cpre = n;
      PIECE(&qd_stencil_qd_f_cpre);
    }
    if (measure) {
      tr[k][0] = n;
      PIECE(&qd_stencil_qd_f_trap);
    }
    op = n;
    links[n++] = (jit_link_t){
        .stencil = m68k__qj_fold_entry(q, k), .values = vf, .next_hole = QF_HOLE_qk_next};
    if (measure) {
      tr[k][1] = n;
      PIECE(&qd_stencil_qd_f_trap);
    }
    PIECE(k == 0 ? &qd_stencil_qd_f_ppost : &qd_stencil_qd_f_cpost);
    links[n - 1].next_hole = -1;
    links[n - 1].ncalls = 1;
    links[n - 1].calls[0].hole = QD_HOLE_qd_agent;
    links[n - 1].calls[0].link = (uint16_t)agent;
    /* The operation's cold stubs after ppost (cpost), which ends in a jump. */
    if ((n = m68k__qj_fold_colds(links, n, F_MAX, op)) == 0)
      return 0;
  }
#undef PIECE
  links[agent].ncalls = 2;
  links[agent].calls[0].hole = QD_HOLE_qd_top;
  links[agent].calls[0].link = 1;
  links[agent].calls[1].hole = QD_HOLE_qd_cons;
  links[agent].calls[1].link = (uint16_t)cpre;
  return n;
}

/* Producer k's i-th item and back (M68K_QJ_DRIVE docs). */
static uint32_t item_of(const m68k_qj_t *q, unsigned k, uint32_t i, uint32_t per) {
  switch (q->type->kind) {
  case K_COUNTER: return 1;
  case K_LIST: return m68k_qj_node(q, k * per + i);
  default: return (uint32_t)(k + 1) << 24 | i;
  }
}

static bool item_owner(const m68k_qj_t *q, uint32_t v, unsigned np, uint32_t per, uint32_t items,
                       unsigned *k, uint32_t *i) {
  if (q->type->kind == K_LIST) {
    uint32_t base = m68k_qj_node(q, 0);
    if (v < base || (v - base) % 8 != 0 || (v - base) / 8 >= items)
      return false;
    uint32_t n = (v - base) / 8;
    *k = n / per;
    *i = n % per;
    if (*k >= np) { /* the last producer takes the remainder */
      *i += (*k - (np - 1)) * per;
      *k = np - 1;
    }
    return true;
  }
  *k = (v >> 24) - 1;
  *i = v & 0xFFFFFF;
  return (v >> 24) >= 1 && *k < np;
}

/* Checks the logs (M68K_QJ_DRIVE docs). */
static int check(m68k_qj_t *q, const m68k_qj_drive_options_t *o, const uint32_t *agent,
                 m68k_qj_drive_result_t *res) {
  m68k_machine_t *m = q->a->m;
  res->items = o->items;
  if (q->type->kind == K_COUNTER) {
    res->count = rd32(m, q->state);
    res->received = res->count;
    res->lost = res->count < o->items ? o->items - res->count : 0;
    res->dup = res->count > o->items ? res->count - o->items : 0;
    return M68K_OK;
  }
  uint32_t per = o->items / o->producers;
  uint8_t *seen = calloc(o->items, 1);
  uint32_t *last = calloc(o->producers, sizeof *last);
  if (seen == NULL || last == NULL) {
    free(seen);
    free(last);
    return M68K_ENOMEM;
  }
  /* Producer k's i-th item is item k * per + i of the total. */
  for (unsigned c = 0; c < o->consumers; c++) {
    uint32_t log = rd32(m, agent[c] + AG_LOG), n = rd32(m, agent[c] + AG_NLOG);
    memset(last, 0, o->producers * sizeof *last);
    for (uint32_t j = 0; j < n; j++) {
      uint32_t v = rd32(m, log + 4 * j), i;
      unsigned k;
      res->received++;
      if (!item_owner(q, v, o->producers, per, o->items, &k, &i) ||
          (k + 1 < o->producers ? i >= per : k * per + i >= o->items)) {
        res->dup++; /* a value nobody put: counted as a spurious arrival */
        continue;
      }
      uint32_t idx = k * per + i;
      if (seen[idx] != 0)
        res->dup++;
      seen[idx] = 1;
      if (q->type->kind == K_QUEUE) {
        if (i + 1 < last[k])
          res->reordered++;
        else
          last[k] = i + 1;
      }
    }
  }
  for (uint32_t idx = 0; idx < o->items; idx++)
    res->lost += seen[idx] == 0;
  free(seen);
  free(last);
  return M68K_OK;
}

/* Lays the agents out (M68K_QJ_DRIVE docs): consumer c's agent record
 * address goes to agent[c]. */
static void deal(m68k_qj_t *q, const m68k_qj_drive_options_t *o, const uint32_t ctl[2],
                 uint32_t logs, uint32_t logcap, uint32_t *agent) {
  m68k_machine_t *m = q->a->m;
  unsigned n[2] = {0, 0}, left[2] = {0, 0};
  uint32_t per = o->items / o->producers;
  for (unsigned j = 0; j < o->producers || j < o->consumers; j++) {
    for (int kind = QD_PRODUCER; kind <= QD_CONSUMER; kind++) {
      if (j >= (kind == QD_PRODUCER ? o->producers : o->consumers))
        continue;
      unsigned cpu = (j + (unsigned)kind) % 2;
      uint32_t at = ctl[cpu] + 8 + 28 * n[cpu]++;
      m68k_machine_write32(m, at + AG_KIND, (uint32_t)kind);
      if (kind == QD_PRODUCER) {
        uint32_t count = j + 1 == o->producers ? o->items - j * per : per;
        left[cpu]++;
        m68k_machine_write32(m, at + AG_STEP, q->type->kind == K_LIST ? 8 : 1);
        if (q->type->kind == K_COUNTER) {
          m68k_machine_write32(m, at + AG_ARG, 1);
          m68k_machine_write32(m, at + AG_NEXT, 0);
          m68k_machine_write32(m, at + AG_END, count);
        } else if (q->type->kind == K_LIST) {
          /* Nodes are consecutive 8 bytes apart: items step by 8. */
          m68k_machine_write32(m, at + AG_NEXT, item_of(q, j, 0, per));
          m68k_machine_write32(m, at + AG_END, item_of(q, j, 0, per) + 8 * count);
        } else {
          m68k_machine_write32(m, at + AG_NEXT, item_of(q, j, 0, per));
          m68k_machine_write32(m, at + AG_END, item_of(q, j, 0, per) + count);
        }
      } else {
        agent[j] = at;
        m68k_machine_write32(m, at + AG_LOG, logs + j * logcap * 4);
        m68k_machine_write32(m, at + AG_END, q->type->kind == K_COUNTER ? 0 : logcap);
      }
    }
  }
  for (unsigned cpu = 0; cpu < 2; cpu++) {
    m68k_machine_write32(m, ctl[cpu], n[cpu]);
    m68k_machine_write32(m, ctl[cpu] + 4, left[cpu]);
  }
}

M68K_API int m68k_qj_drive(m68k_qj_t *q, const m68k_qj_drive_options_t *opt,
                           m68k_qj_drive_result_t *res, char *err, size_t errlen) {
  m68k__qj_arena_t *a = q->a;
  m68k_machine_t *m = a->m;
  const m68k_qj_drive_options_t o = *opt;
  memset(res, 0, sizeof *res);
  if (m->ncpus != 2) {
    m68k__qj_seterr(err, errlen, "driving a quaject needs a two-CPU machine");
    return M68K_EINVAL;
  }
  if (o.producers < 1 || o.consumers < 1 || o.producers + o.consumers > 2 * M68K_QJ_DRIVE_AGENTS) {
    m68k__qj_seterr(err, errlen,
                    "producers (%u) and consumers (%u) must be at least 1 each and %u together",
                    o.producers, o.consumers, 2 * M68K_QJ_DRIVE_AGENTS);
    return M68K_EINVAL;
  }
  if (o.items < o.producers || o.items / o.producers >= 1u << 24 ||
      (q->type->kind == K_LIST && o.items > q->cap)) {
    m68k__qj_seterr(
        err, errlen,
        "items (%" PRIu32 ") must be at least the producers (%u), below 2^24 per producer%s",
        o.items, o.producers, q->type->kind == K_LIST ? " and at most the list's capacity" : "");
    return M68K_EINVAL;
  }
  uint32_t logcap = o.items + 64;
  uint32_t logs = m->ram_base + M68K_QJ_ARENA_OFFSET + M68K_QJ_ARENA_SIZE;
  uint64_t logbytes = (uint64_t)logcap * 4 * o.consumers;
  if (logbytes > m->ram_size - (M68K_QJ_ARENA_OFFSET + M68K_QJ_ARENA_SIZE) - 2 * 65536u) {
    m68k__qj_seterr(err, errlen,
                    "the consumers' logs (%" PRIu64 " bytes) do not fit in the machine's RAM",
                    logbytes);
    return M68K_EINVAL;
  }
  const jit_stencil_t *loop = &qd_stencil_qd_loop, *thunk = &qd_stencil_qd_thunk;
  uint32_t lsz = (loop->size + 15) & ~15u, tsz = (thunk->size + 15) & ~15u;
  /* Folded (note 3): room for a chain with the entries' largest forms
   * (their code is chosen after attaching, below) and the pieces; a
   * calibration chain of two traps and a return takes the thunks' place. */
  jit_link_t fl[F_MAX];
  uint64_t fvd[QD_HOLE__COUNT] = {0}, fvf[QF_HOLE__COUNT];
  size_t ftr[2][2] = {{0, 0}, {0, 0}};
  const jit_link_t calib[3] = {
      {.stencil = &qd_stencil_qd_f_trap, .values = fvd, .next_hole = QD_HOLE_qd_next},
      {.stencil = &qd_stencil_qd_f_trap, .values = fvd, .next_hole = QD_HOLE_qd_next},
      {.stencil = &qd_stencil_qd_null, .values = fvd, .next_hole = -1}};
  if (o.folded) {
    lsz = (2 * (q->e[0].room + q->e[1].room) + 512 + 15) & ~15u;
    tsz = ((uint32_t)jit_chain_size(calib, 3) + 15) & ~15u;
  }
  uint32_t blen = 2 * CTL_SIZE + 2 * lsz + 3 * tsz;
  uint32_t blk = m68k__qj_alloc(a, blen);
  if (blk == 0) {
    m68k__qj_seterr(err, errlen,
                    "the quaject arena is full (%" PRIu32 " bytes wanted for the loops)", blen);
    return M68K_EARENA;
  }
  drive_t d = {.a = a};
  int rc = m68k_machine_on_exception(m, 32 + DRIVE_TRAP, drive_trap, &d);
  if (rc != M68K_OK) {
    m68k__qj_seterr(err, errlen, "TRAP #%d already has a host handler on this machine", DRIVE_TRAP);
    m68k__qj_release(a, blk, blen);
    return rc;
  }
  uint32_t ctl[2] = {blk, blk + CTL_SIZE};
  uint32_t code[2] = {blk + 2 * CTL_SIZE, blk + 2 * CTL_SIZE + lsz};
  uint32_t th = blk + 2 * CTL_SIZE + 2 * lsz; /* put, get, and the calibration thunk */
  uint32_t agent[2 * M68K_QJ_DRIVE_AGENTS] = {0};
  unsigned attached[2] = {0, 0};
  for (int k = 0; k < 2; k++)
    while (rc == M68K_OK && attached[k] < (k == 0 ? o.producers : o.consumers) &&
           (rc = m68k_qj_attach(q, q->type->entries[k].name)) == M68K_OK)
      attached[k]++;
  if (rc != M68K_OK) {
    m68k__qj_seterr(err, errlen, "cannot attach %u producers and %u consumers to this %s %s: %s",
                    o.producers, o.consumers, m68k_qj_variant(q), q->type->name, m68k_strerror(rc));
    goto out;
  }

  if (o.folded) {
    uint32_t th0 = blk + 2 * CTL_SIZE + 2 * lsz;
    for (unsigned cpu = 0; cpu < 2 && rc == M68K_OK; cpu++) {
      size_t n = folded_links(q, o.measure, ctl, cpu, fl, fvd, fvf, ftr), entry, used;
      jit_chain_map_t map = {0};
      if (n == 0 || jit_chain_map(fl, n, code[cpu], &map) != JIT_OK || map.size > lsz ||
          jit_emit_chain(m68k_machine_ram(m, code[cpu], lsz), code[cpu], lsz, fl, n, &entry,
                         &used, NULL) != JIT_OK ||
          entry != 0) {
        rc = M68K_EINVAL;
        break;
      }
      for (int k = 0; k < 2 && o.measure; k++) {
        d.lo[cpu][k] = code[cpu] + map.entry[ftr[k][0]];
        d.hi[cpu][k] = code[cpu] + map.entry[ftr[k][1]] + 4;
      }
    }
    size_t centry = 0, cused = 0;
    if (rc == M68K_OK && jit_emit_chain(m68k_machine_ram(m, th0, tsz), th0, tsz, calib, 3, &centry,
                                        &cused, NULL) != JIT_OK)
      rc = M68K_EINVAL;
    if (rc != M68K_OK) {
      m68k__qj_seterr(err, errlen, "cannot synthesise the folded loops");
      goto out;
    }
    /* The first trap's cost (note 3). */
    if (o.measure && (rc = calibrate(&d, th0, 6, 0, 0)) != M68K_OK) {
      m68k__qj_seterr(err, errlen, "cannot measure the traps' cost");
      goto out;
    }
    goto loops_ready;
  }

  /* Thunks and loops (note 1). */
  uint64_t v[QD_HOLE__COUNT] = {0};
  for (int k = 0; k < 3 && rc == M68K_OK; k++) {
    v[QD_HOLE_qd_entry] = k < 2 ? q->e[k].addr : M68K__QJ_NULL_ENTRY(a);
    rc = emit(m, th + (uint32_t)k * tsz, thunk, v);
    if (k < 2)
      for (int copy = 0; copy < 2; copy++) {
        d.lo[copy][k] = th + (uint32_t)k * tsz + thunk->entry;
        d.hi[copy][k] = d.lo[copy][k] + thunk->code_size;
      }
  }
  for (unsigned cpu = 0; cpu < 2 && rc == M68K_OK; cpu++) {
    v[QD_HOLE_qd_ctl] = ctl[cpu];
    v[QD_HOLE_qd_other] = ctl[1 - cpu];
    v[QD_HOLE_qd_put] = o.measure ? th + thunk->entry : q->e[0].addr;
    v[QD_HOLE_qd_get] = o.measure ? th + tsz + thunk->entry : q->e[1].addr;
    rc = emit(m, code[cpu], loop, v);
  }
  if (rc != M68K_OK) {
    m68k__qj_seterr(err, errlen, "cannot synthesise the driver loops");
    goto out;
  }
  if (o.measure) {
    /* The thunk's own cost, on the null entry (note 2). */
    uint64_t ni = 0, nc = 0;
    rc = m68k__qj_call_addr(a, 0, M68K__QJ_NULL_ENTRY(a), 0, NULL, &ni, &nc);
    if (rc >= 0)
      rc = calibrate(&d, th + 2 * tsz + thunk->entry, thunk->code_size, ni, nc);
    if (rc != M68K_OK) {
      m68k__qj_seterr(err, errlen, "cannot measure the thunk's cost");
      goto out;
    }
  }
loops_ready:
  deal(q, &o, ctl, logs, logcap, agent);
  for (int k = 0; k < 2; k++)
    res->code[k] = q->e[k].tmpl + 3; /* without "qk_" */

  uint32_t lentry = o.folded ? 0 : loop->entry;
  m68k_machine_start(m, code[0] + lentry);
  m68k_cpu_t *c1 = m68k_machine_cpu(m, 1);
  m68k_set_reg(c1, M68K_REG_PC, code[1] + lentry);
  uint64_t cas2_0[2];
  for (unsigned cpu = 0; cpu < 2; cpu++) {
    m68k_cpu_t *c = m68k_machine_cpu(m, cpu);
    cas2_0[cpu] = m68k_cas_executed(c, 2);
    m68k_set_cycle_count(c, o.measure);
  }
  m68k_machine_set_limit(m, o.limit != 0 ? o.limit : DEFAULT_LIMIT);
  m68k_machine_run(m, &res->machine);
  for (unsigned cpu = 0; cpu < 2; cpu++) {
    m68k_cpu_t *c = m68k_machine_cpu(m, cpu);
    res->cas2[cpu] = m68k_cas_executed(c, 2) - cas2_0[cpu];
    m68k_set_cycle_count(c, false);
  }
  if (d.oom) {
    m68k__qj_seterr(err, errlen, "out of memory recording the measurements");
    rc = M68K_ENOMEM;
    goto out;
  }
  rc = check(q, &o, agent, res);
  if (rc != M68K_OK) {
    m68k__qj_seterr(err, errlen, "out of memory checking the logs");
    goto out;
  }
  for (int k = 0; k < 2; k++) {
    res->calls[k] = d.insns[k].n;
    res->insns[k] = median(&d.insns[k]);
    res->cycles[k] = median(&d.cycles[k]);
  }
  /* Done when both loops reached their STOP: the machine then reports a
   * deadlock, or, replaying a recorded schedule, the schedule's end. */
  bool done = res->machine.status == M68K_MACHINE_DEADLOCK ||
              res->machine.status == M68K_MACHINE_SCHEDULE_END;
  for (unsigned cpu = 0; cpu < 2; cpu++)
    done = done && m68k_stopped(m68k_machine_cpu(m, cpu));
  if (!done) {
    m68k__qj_seterr(err, errlen, "the loops did not finish: %s", m68k_machine_message(m));
    rc = M68K_ENORETURN;
  }
out:
  while (attached[0]-- > 0)
    m68k_qj_detach(q, q->type->entries[0].name);
  while (attached[1]-- > 0)
    m68k_qj_detach(q, q->type->entries[1].name);
  m68k_machine_on_exception(m, 32 + DRIVE_TRAP, NULL, NULL);
  m68k__qj_release(a, blk, blen);
  for (int k = 0; k < 2; k++) {
    free(d.insns[k].v);
    free(d.cycles[k].v);
  }
  return rc;
}
