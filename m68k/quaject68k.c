/* quaject68k.c -- the m68k backend's runtime: an arena in the machine's RAM, per-instance
 * synthesis, host calls and callbacks.
 *
 * Design notes
 *
 * 1. One arena per machine, made by the first m68k_qj_create and freed
 *    with the machine (machine-internal.h, qj_free). Its layout, as
 *    offsets from ram_base + M68K_QJ_ARENA_OFFSET:
 *
 *      0x0000  three status stubs (OK, FULL, EMPTY), 8 bytes each:
 *              moveq #status,d0; rts (d1, the item, is left as it came)
 *      0x0020  the return stub of m68k_qj_call: trap #14, then a branch
 *              to itself
 *      0x0100  one 1 KiB stack per CPU for m68k_qj_call
 *      0x1000  blocks, allocated first-fit in 16-byte granules
 *
 * 2. A quaject is one block: its state, then 16 bytes of host stub per
 *    callback (move.l #id,d0; trap #14; rts: the item is in d1), then one
 *    code area per callentry, each as large as the largest template that
 *    entry can be synthesised from. Re-synthesis rewrites an entry in
 *    place, so an entry's address is fixed for the quaject's life (the
 *    thesis's callentries at fixed offsets), and drivers may keep it.
 *
 * 3. Which template an entry runs is a function of the type's table
 *    (`types` below), the variant, the callers attached to the entry and
 *    who listens to the callback that entry can raise as an edge
 *    (notempty for put, notfull for get): see pick(). A control
 *    operation recomputes it and rewrites the entries it can affect:
 *    attach and detach their entry, a callback's routing every entry
 *    (a callback is a hole of the code).
 *
 * 4. TRAP #14 reaches arena_trap through the machine's exception
 *    handlers. A trap whose PC is just past the return stub ends a host
 *    call (the CPU is asked to stop); a trap just past a quaject's host
 *    stub is a callback: d0 holds (quaject id << 2 | callback), d1 the
 *    item; the host handler runs and d0 gets the callback's status. Any
 *    other TRAP #14 is not ours and goes on to the image's handling.
 */
#include "quaject68k.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "qf-stencils.h"
#include "qk-stencils.h"
#include "quaject68k-internal.h"

/* 68k opcodes of the stubs. */
#define OP_MOVEQ_D0 0x7000u   /* moveq #n,d0 */
#define OP_MOVE_IMM_D0 0x203Cu /* move.l #imm,d0 */
#define OP_TRAP 0x4E40u       /* trap #n */
#define OP_RTS 0x4E75u
#define OP_BRA_SELF 0x60FEu
#define OP_ILLEGAL 0x4AFCu

/* ---- Types ------------------------------------------------------------------ */

/* The callbacks, their statuses and holes. */
enum { CB_FULL, CB_EMPTY, CB_NOTFULL, CB_NOTEMPTY };
static const char *const cb_names[NCALLBACKS] = {"full", "empty", "notfull", "notempty"};
static const int cb_status[NCALLBACKS] = {M68K_QJ_FULL, M68K_QJ_EMPTY, M68K_QJ_OK, M68K_QJ_OK};
static const int cb_hole[NCALLBACKS] = {QK_HOLE_qk_full, QK_HOLE_qk_empty, QK_HOLE_qk_notfull,
                                        QK_HOLE_qk_notempty};

static const type_spec_t types[] = {
    {"counter", K_COUNTER, {"cas", "broken"},
     {{"add", "counter_add", NULL, "counter_add_broken", -1},
      {"read", "counter_read", NULL, NULL, -1}}, 0},
    {"stack", K_STACK, {"cas2", "broken"},
     {{"push", "push_cas2", NULL, "push_broken", -1},
      {"pop", "pop_cas2", NULL, "pop_broken", -1}}, 1u << CB_FULL | 1u << CB_EMPTY},
    {"queue", K_QUEUE, {"auto", "spsc", "mpmc", "broken"},
     {{"put", "put_mp", "put_sp", "put_broken", CB_NOTEMPTY},
      {"get", "get_mc", "get_sc", NULL, CB_NOTFULL}}, 0xFu},
    {"list", K_LIST, {"cas2", "broken"},
     {{"insert", "list_insert", NULL, NULL, -1},
      {"delete", "list_delete", NULL, "list_delete_broken", -1}}, 1u << CB_EMPTY},
};

/* ---- State ------------------------------------------------------------------ */

void m68k__qj_seterr(char *err, size_t errlen, const char *fmt, ...) {
                     if (err == NULL || errlen == 0)
                     return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static void put16(m68k_machine_t *m, uint32_t addr, uint16_t v) {
  m68k__put16(m68k_machine_ram(m, addr, 2), v);
}

/* ---- The arena -------------------------------------------------------------- */

static void arena_free(m68k__qj_arena_t *a) {
  if (a == NULL)
    return;
  for (unsigned i = 0; i < QJ_MAX; i++)
    free(a->live[i]);
  free(a);
}

static bool arena_trap(void *ctx, m68k_machine_t *m, unsigned cpu, int vector);

/* The machine's arena, made on first use (note 1). */
int m68k__qj_arena_get(m68k_machine_t *m, m68k__qj_arena_t **out, char *err, size_t errlen) {
  if (m->qj != NULL) {
    *out = m->qj;
    return M68K_OK;
  }
  if (m->model != M68K_MODEL_68030) {
    m68k__qj_seterr(err, errlen, "quajects need a 68030 machine (CAS and CAS2)");
    return M68K_EINVAL;
  }
  if (m->ram_size < M68K_QJ_RAM_MIN) {
    m68k__qj_seterr(err, errlen,
                    "quajects need at least %u KiB of RAM (the machine has %" PRIu32 ")",
                    M68K_QJ_RAM_MIN >> 10, m->ram_size >> 10);
    return M68K_EINVAL;
  }
  m68k__qj_arena_t *a = calloc(1, sizeof *a);
  if (a == NULL) {
    m68k__qj_seterr(err, errlen, "out of memory");
    return M68K_ENOMEM;
  }
  a->m = m;
  a->base = m->ram_base + M68K_QJ_ARENA_OFFSET;
  int rc = m68k_machine_on_exception(m, 32 + M68K_QJ_TRAP, arena_trap, a);
  if (rc != M68K_OK) {
    m68k__qj_seterr(err, errlen, "TRAP #%d already has a host handler on this machine",
                    M68K_QJ_TRAP);
    free(a);
    return M68K_EBUSY;
  }
  for (uint32_t s = 0; s < 3; s++) {
    uint32_t at = a->base + ARENA_STUBS + 8 * s;
    put16(m, at, (uint16_t)(OP_MOVEQ_D0 | s));
    put16(m, at + 2, OP_RTS);
  }
  put16(m, a->base + ARENA_RET, OP_TRAP | M68K_QJ_TRAP);
  put16(m, a->base + ARENA_RET + 2, OP_BRA_SELF);
  m->qj = a;
  m->qj_free = arena_free;
  *out = a;
  return M68K_OK;
}

static bool granule_used(const m68k__qj_arena_t *a, uint32_t g) {
  return (a->used[g / 8] >> (g % 8)) & 1;
}

static void granules_mark(m68k__qj_arena_t *a, uint32_t g, uint32_t n, bool on) {
  for (uint32_t i = g; i < g + n; i++) {
    if (on)
      a->used[i / 8] |= (uint8_t)(1u << (i % 8));
    else
      a->used[i / 8] &= (uint8_t)~(1u << (i % 8));
  }
}

uint32_t m68k__qj_alloc(m68k__qj_arena_t *a, uint32_t bytes) {
  uint32_t n = (bytes + GRANULE - 1) / GRANULE, run = 0;
  for (uint32_t g = 0; g < NGRANULES; g++) {
    run = granule_used(a, g) ? 0 : run + 1;
    if (run == n) {
      uint32_t first = g + 1 - n;
      granules_mark(a, first, n, true);
      uint32_t addr = a->base + ARENA_HEAP + first * GRANULE;
      memset(m68k_machine_ram(a->m, addr, n * GRANULE), 0, n * GRANULE);
      return addr;
    }
  }
  return 0;
}

void m68k__qj_release(m68k__qj_arena_t *a, uint32_t addr, uint32_t bytes) {
  granules_mark(a, (addr - a->base - ARENA_HEAP) / GRANULE, (bytes + GRANULE - 1) / GRANULE,
                false);
}

/* ---- Synthesis ---------------------------------------------------------------- */

static bool is_broken(const m68k_qj_t *q) {
  return strcmp(q->type->variants[q->variant], "broken") == 0;
}

static bool listened(const m68k_qj_t *q, int cb) {
  return cb >= 0 && (q->cb[cb].fn != NULL || q->cb[cb].code != 0);
}

/* The single-caller form runs for a queue's "spsc", and for "auto" while
 * at most one caller is attached. */
static bool single_caller(const m68k_qj_t *q, unsigned i) {
  const char *v = q->type->variants[q->variant];
  return strcmp(v, "spsc") == 0 || (strcmp(v, "auto") == 0 && q->e[i].attached <= 1);
}

/* The stencil entry i runs now (note 3). */
static const jit_stencil_t *pick(const m68k_qj_t *q, unsigned i) {
  const entry_spec_t *s = &q->type->entries[i];
  const char *base = s->mp;
  if (is_broken(q) && s->broken != NULL)
    base = s->broken;
  else if (s->sp != NULL && single_caller(q, i))
    base = s->sp;
  char name[64];
  snprintf(name, sizeof name, "qk_%s%s", base, listened(q, s->edge) ? "_t" : "");
  return jit_stencil_find(&qk_set, name);
}

/* Every stencil entry spec `s` can run: the largest one's size. */
static uint32_t entry_room(const entry_spec_t *s) {
  const char *bases[3] = {s->mp, s->sp, s->broken};
  uint32_t room = 0;
  for (int b = 0; b < 3; b++) {
    for (int t = 0; t < 2 && bases[b] != NULL; t++) {
      char name[64];
      snprintf(name, sizeof name, "qk_%s%s", bases[b], t ? "_t" : "");
      const jit_stencil_t *st = jit_stencil_find(&qk_set, name);
      if (st != NULL && st->size > room)
        room = st->size;
    }
  }
  return (room + 3) & ~3u;
}

/* Where callback cb goes (the API's "Callbacks"). */
static uint32_t cb_target(const m68k_qj_t *q, int cb) {
  if (q->cb[cb].code != 0)
    return q->cb[cb].code;
  if (q->cb[cb].fn != NULL)
    return q->stubs + STUB_SIZE * (uint32_t)cb;
  return q->a->base + ARENA_STUBS + 8u * (uint32_t)cb_status[cb];
}

/* The values of every hole of the instance's templates, as the instance
 * now is (synth patches them; m68k_qj_entry_holes reports them). */
static void hole_values(const m68k_qj_t *q, uint64_t v[QK_HOLE__COUNT]) {
  memset(v, 0, QK_HOLE__COUNT * sizeof v[0]);
  v[QK_HOLE_qk_state] = q->state;
  switch (q->type->kind) {
  case K_STACK:
    v[QK_HOLE_qk_slots] = q->state + 4;
    v[QK_HOLE_qk_top] = q->state + 4 + 4 * q->cap;
    break;
  case K_QUEUE:
    v[QK_HOLE_qk_slots] = q->state + 4;
    v[QK_HOLE_qk_last] = 4 * q->cap;
    break;
  default: break;
  }
  for (int cb = 0; cb < NCALLBACKS; cb++)
    v[cb_hole[cb]] = cb_target(q, cb);
}

/* Copies and patches entry i's template into its code area. */
static int synth(m68k_qj_t *q, unsigned i) {
  const jit_stencil_t *s = pick(q, i);
  if (s == NULL || s->size > q->e[i].room)
    return M68K_ENOTYPE; /* a template missing from the build: cannot happen */
  uint64_t v[QK_HOLE__COUNT];
  hole_values(q, v);
  m68k_machine_t *m = q->a->m;
  uint8_t *dst = m68k_machine_ram(m, q->e[i].area, q->e[i].room);
  for (uint32_t k = 0; k < q->e[i].room; k += 2)
    m68k__put16(dst + k, OP_ILLEGAL);
  if (jit_emit(dst, q->e[i].area, s, v, NULL) != JIT_OK)
    return M68K_EINVAL;
  q->e[i].addr = q->e[i].area + s->entry;
  q->e[i].len = s->code_size - s->entry;
  q->e[i].tmpl = s->name;
  return M68K_OK;
}

static int synth_all(m68k_qj_t *q) {
  for (unsigned i = 0; i < MAX_ENTRIES; i++) {
    int rc = synth(q, i);
    if (rc != M68K_OK)
      return rc;
  }
  return M68K_OK;
}

/* Whether some CPU's PC lies in the quaject's block. */
static bool busy(const m68k_qj_t *q) {
  m68k_machine_t *m = q->a->m;
  for (unsigned c = 0; c < m->ncpus; c++) {
    uint32_t pc = m68k_get_reg(m->cpus[c].cpu, M68K_REG_PC);
    if (pc >= q->block && pc < q->block + q->block_len)
      return true;
  }
  return false;
}

/* ---- Life cycle ---------------------------------------------------------------- */

static uint32_t state_bytes(kind_t k, uint32_t cap) {
  switch (k) {
  case K_COUNTER: return 4;
  case K_STACK: return 4 + 4 * cap;
  case K_QUEUE: return 4 + 4 * (cap + 1);
  case K_LIST: return 8 + 8 * cap;
  }
  return 0;
}

M68K_API int m68k_qj_create(m68k_machine_t *m, const char *type, const char *variant,
                            uint32_t capacity, m68k_qj_t **out, char *err, size_t errlen) {
  const type_spec_t *t = NULL;
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (type != NULL && strcmp(types[i].name, type) == 0)
      t = &types[i];
  if (t == NULL) {
    m68k__qj_seterr(err, errlen, "unknown quaject type '%s' (counter, stack, queue or list)",
                    type != NULL ? type : "(null)");
    return M68K_ENOTYPE;
  }
  unsigned vi = 0;
  if (variant != NULL) {
    for (vi = 0; vi < 4 && t->variants[vi] != NULL; vi++)
      if (strcmp(t->variants[vi], variant) == 0)
        break;
    if (vi == 4 || t->variants[vi] == NULL) {
      char list[64] = "";
      for (unsigned k = 0; k < 4 && t->variants[k] != NULL; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                 t->variants[k]);
      m68k__qj_seterr(err, errlen, "unknown variant '%s' of %s (%s)", variant, t->name, list);
      return M68K_ENOTYPE;
    }
  }
  if (t->kind == K_COUNTER ? capacity != 0
                           : capacity < 1 || capacity > M68K_QJ_CAPACITY_MAX) {
    if (t->kind == K_COUNTER)
      m68k__qj_seterr(err, errlen, "a counter has no capacity (give 0, not %" PRIu32 ")", capacity);
    else
      m68k__qj_seterr(err, errlen, "capacity %" PRIu32 " of a %s is out of range (1..%u)", capacity,
                      t->name, M68K_QJ_CAPACITY_MAX);
    return M68K_EINVAL;
  }
  m68k__qj_arena_t *a;
  int rc = m68k__qj_arena_get(m, &a, err, errlen);
  if (rc != M68K_OK)
    return rc;
  unsigned id = 0;
  while (id < QJ_MAX && a->live[id] != NULL)
    id++;
  if (id == QJ_MAX) {
    m68k__qj_seterr(err, errlen, "too many quajects on this machine (%u)", QJ_MAX);
    return M68K_EARENA;
  }
  m68k_qj_t *q = calloc(1, sizeof *q);
  if (q == NULL) {
    m68k__qj_seterr(err, errlen, "out of memory");
    return M68K_ENOMEM;
  }
  q->a = a;
  q->id = id;
  q->type = t;
  q->variant = vi;
  q->cap = capacity;
  uint32_t sbytes = (state_bytes(t->kind, capacity) + GRANULE - 1) & ~(GRANULE - 1);
  uint32_t len = sbytes + STUB_SIZE * NCALLBACKS;
  for (unsigned i = 0; i < MAX_ENTRIES; i++) {
    q->e[i].room = entry_room(&t->entries[i]);
    q->e[i].area = len; /* an offset until the block is placed */
    len += (q->e[i].room + GRANULE - 1) & ~(GRANULE - 1);
  }
  q->block_len = len;
  q->block = m68k__qj_alloc(a, len);
  if (q->block == 0) {
    m68k__qj_seterr(err, errlen, "the quaject arena is full (%u bytes wanted)", len);
    free(q);
    return M68K_EARENA;
  }
  q->state = q->block;
  q->stubs = q->block + sbytes;
  for (unsigned i = 0; i < MAX_ENTRIES; i++)
    q->e[i].area += q->block;
  if (t->kind == K_STACK)
    m68k_machine_write32(m, q->state, q->state + 4 + 4 * capacity);
  for (uint32_t cb = 0; cb < NCALLBACKS; cb++) {
    uint32_t at = q->stubs + STUB_SIZE * cb;
    put16(m, at, OP_MOVE_IMM_D0);
    m68k_machine_write32(m, at + 2, id << 2 | cb);
    put16(m, at + 6, OP_TRAP | M68K_QJ_TRAP);
    put16(m, at + 8, OP_RTS);
  }
  rc = synth_all(q);
  if (rc != M68K_OK) {
    m68k__qj_seterr(err, errlen, "cannot synthesise the %s's code", t->name);
    m68k__qj_release(a, q->block, q->block_len);
    free(q);
    return rc;
  }
  a->live[id] = q;
  *out = q;
  return M68K_OK;
}

M68K_API void m68k_qj_destroy(m68k_qj_t *q) {
  if (q == NULL)
    return;
  m68k__qj_release(q->a, q->block, q->block_len);
  for (unsigned k = 0; k < M68K__QJ_FOLD_PROGRAMS; k++)
    if (q->fold[k].len != 0)
      m68k__qj_release(q->a, q->fold[k].addr, q->fold[k].len);
  q->a->live[q->id] = NULL;
  free(q);
}

/* ---- Queries --------------------------------------------------------------------- */

M68K_API const char *m68k_qj_type(const m68k_qj_t *q) { return q->type->name; }
M68K_API const char *m68k_qj_variant(const m68k_qj_t *q) { return q->type->variants[q->variant]; }
M68K_API m68k_machine_t *m68k_qj_machine(const m68k_qj_t *q) { return q->a->m; }
M68K_API uint32_t m68k_qj_data(const m68k_qj_t *q) { return q->state; }

M68K_API const char *m68k_qj_entry_name(const m68k_qj_t *q, unsigned i) {
  return i < MAX_ENTRIES ? q->type->entries[i].name : NULL;
}

/* The i-th callback of the type, as an index into cb_names, or -1. */
static int nth_callback(const m68k_qj_t *q, unsigned i) {
  for (int cb = 0; cb < NCALLBACKS; cb++)
    if ((q->type->callbacks >> cb) & 1 && i-- == 0)
      return cb;
  return -1;
}

M68K_API const char *m68k_qj_callback_name(const m68k_qj_t *q, unsigned i) {
  int cb = nth_callback(q, i);
  return cb >= 0 ? cb_names[cb] : NULL;
}

static int entry_index(const m68k_qj_t *q, const char *entry) {
  for (unsigned i = 0; entry != NULL && i < MAX_ENTRIES; i++)
    if (strcmp(q->type->entries[i].name, entry) == 0)
      return (int)i;
  return -1;
}

static int callback_index(const m68k_qj_t *q, const char *callback) {
  for (int cb = 0; callback != NULL && cb < NCALLBACKS; cb++)
    if ((q->type->callbacks >> cb) & 1 && strcmp(cb_names[cb], callback) == 0)
      return cb;
  return -1;
}

M68K_API uint32_t m68k_qj_entry(const m68k_qj_t *q, const char *entry) {
  int i = entry_index(q, entry);
  return i < 0 ? 0 : q->e[i].addr;
}

M68K_API int m68k_qj_entry_code(const m68k_qj_t *q, const char *entry, uint32_t *addr,
                                uint32_t *len, const char **variant_name) {
  int i = entry_index(q, entry);
  if (i < 0)
    return M68K_ENOTYPE;
  if (addr != NULL)
    *addr = q->e[i].addr;
  if (len != NULL)
    *len = q->e[i].len;
  if (variant_name != NULL)
    *variant_name = q->e[i].tmpl + 3; /* without "qk_" */
  return M68K_OK;
}

M68K_API int m68k_qj_entry_holes(const m68k_qj_t *q, const char *entry, m68k_qj_hole_t *out,
                                 int max) {
  int i = entry_index(q, entry);
  if (i < 0)
    return M68K_ENOTYPE;
  const jit_stencil_t *s = jit_stencil_find(&qk_set, q->e[i].tmpl);
  if (s == NULL)
    return M68K_ENOTYPE; /* a template missing from the build: cannot happen */
  uint64_t v[QK_HOLE__COUNT];
  hole_values(q, v); /* every change of them resynthesises: these are the code's */
  for (uint32_t k = 0; k < s->nholes && (int)k < max; k++) {
    const jit_hole_t *h = &s->holes[k];
    const jit_hole_kind_info_t *kind = jit_hole_kind_info(h->kind);
    const char *name = h->hole == JIT_HOLE_TEXT ? "(text)"
                       : h->hole < QK_HOLE__COUNT ? qk_set.hole_names[h->hole] + 3 /* "qk_" */
                                                  : "(data)";
    uint64_t value = h->hole == JIT_HOLE_TEXT   ? q->e[i].area
                     : h->hole < QK_HOLE__COUNT ? v[h->hole]
                                                : q->e[i].area + s->data_off;
    out[k] = (m68k_qj_hole_t){name, q->e[i].area + h->offset, kind != NULL ? kind->bytes : 0,
                              kind != NULL && kind->pcrel, (uint32_t)value};
  }
  return (int)s->nholes;
}

M68K_API uint32_t m68k_qj_node(const m68k_qj_t *q, uint32_t i) {
  return q->type->kind == K_LIST && i < q->cap ? q->state + 8 + 8 * i : 0;
}

/* ---- Control ------------------------------------------------------------------------- */

static int attach_by(m68k_qj_t *q, const char *entry, int delta) {
  int i = entry_index(q, entry);
  if (i < 0)
    return M68K_ENOTYPE;
  if (delta < 0 && q->e[i].attached == 0)
    return M68K_EINVAL;
  if (delta > 0 && q->e[i].attached >= 1 && strcmp(m68k_qj_variant(q), "spsc") == 0)
    return M68K_EINVAL; /* an SP-SC queue has one caller per side */
  if (busy(q))
    return M68K_EBUSY;
  q->e[i].attached = (unsigned)((int)q->e[i].attached + delta);
  return synth(q, (unsigned)i);
}

M68K_API int m68k_qj_attach(m68k_qj_t *q, const char *entry) { return attach_by(q, entry, 1); }
M68K_API int m68k_qj_detach(m68k_qj_t *q, const char *entry) { return attach_by(q, entry, -1); }

M68K_API unsigned m68k_qj_attached(const m68k_qj_t *q, const char *entry) {
  int i = entry_index(q, entry);
  return i < 0 ? 0 : q->e[i].attached;
}

static int route(m68k_qj_t *q, const char *callback, m68k_qj_callback_fn fn, void *ctx,
                 uint32_t code) {
  int cb = callback_index(q, callback);
  if (cb < 0)
    return M68K_ENOTYPE;
  if (busy(q))
    return M68K_EBUSY;
  q->cb[cb].fn = fn;
  q->cb[cb].ctx = ctx;
  q->cb[cb].code = code;
  return synth_all(q);
}

M68K_API int m68k_qj_on_callback(m68k_qj_t *q, const char *callback, m68k_qj_callback_fn fn,
                                 void *ctx) {
  return route(q, callback, fn, ctx, 0);
}

M68K_API int m68k_qj_set_callback_code(m68k_qj_t *q, const char *callback, uint32_t addr) {
  return route(q, callback, NULL, NULL, addr);
}

/* ---- Traps and host calls ------------------------------------------------------------ */

/* TRAP #14 (note 4). */
static bool arena_trap(void *ctx, m68k_machine_t *m, unsigned cpu, int vector) {
  m68k__qj_arena_t *a = ctx;
  m68k_cpu_t *c = m68k_machine_cpu(m, cpu);
  uint32_t pc = m68k_get_reg(c, M68K_REG_PC);
  if (pc == a->base + ARENA_RET + 2) {
    a->returned[cpu] = true;
    a->ret_insns[cpu] = m68k_instructions(c);
    a->ret_cycles[cpu] = m68k_cycles(c);
    m68k_request_stop(c);
    return true;
  }
  uint32_t id = m68k_get_reg(c, M68K_REG_D0);
  m68k_qj_t *q = id >> 2 < QJ_MAX ? a->live[id >> 2] : NULL;
  int cb = (int)(id & 3);
  if (q == NULL || pc != q->stubs + STUB_SIZE * (uint32_t)cb + 8)
    return false;
  /* full carries the item refused; empty and the edges nothing (as on the host). */
  if (q->cb[cb].fn != NULL)
    q->cb[cb].fn(q->cb[cb].ctx, cb_names[cb], cb == CB_FULL ? m68k_get_reg(c, M68K_REG_D0 + 1) : 0);
  m68k_set_reg(c, M68K_REG_D0, (uint32_t)cb_status[cb]);
  return true;
}

/* The registers m68k_qj_call saves, in the order it restores them: SR
 * first (it selects the live stack pointer), the inactive stack pointers,
 * then the rest. */
static const m68k_reg_t saved_regs[] = {
    M68K_REG_SR, M68K_REG_USP, M68K_REG_ISP, M68K_REG_MSP, M68K_REG_PC,
    M68K_REG_D0, M68K_REG_D0 + 1, M68K_REG_D0 + 2, M68K_REG_D0 + 3, M68K_REG_D0 + 4,
    M68K_REG_D0 + 5, M68K_REG_D0 + 6, M68K_REG_D0 + 7, M68K_REG_A0, M68K_REG_A0 + 1,
    M68K_REG_A0 + 2, M68K_REG_A0 + 3, M68K_REG_A0 + 4, M68K_REG_A0 + 5, M68K_REG_A0 + 6,
    M68K_REG_A0 + 7,
};
#define NSAVED (sizeof saved_regs / sizeof saved_regs[0])

M68K_API int m68k_qj_call(m68k_qj_t *q, unsigned cpu, const char *entry, uint32_t arg,
                          uint32_t *ret, uint64_t *insns, uint64_t *cycles) {
  int i = entry_index(q, entry);
  if (i < 0)
    return M68K_ENOTYPE;
  int rc = m68k__qj_call_addr(q->a, cpu, q->e[i].addr, arg, ret, insns, cycles);
  if (rc == M68K_ENORETURN)
    m68k__machine_msg(q->a->m, "%s of a %s on CPU %u did not return within %u instructions", entry,
                      q->type->name, cpu, CALL_LIMIT);
  return rc;
}

int m68k__qj_call_addr(m68k__qj_arena_t *a, unsigned cpu, uint32_t addr, uint32_t arg,
                       uint32_t *ret, uint64_t *insns, uint64_t *cycles) {
  m68k_machine_t *m = a->m;
  m68k_cpu_t *c = m68k_machine_cpu(m, cpu);
  if (c == NULL)
    return M68K_EINVAL;
  uint32_t saved[NSAVED];
  for (size_t r = 0; r < NSAVED; r++)
    saved[r] = m68k_get_reg(c, saved_regs[r]);
  bool counting = m68k_cycle_counting(c), stopped = m68k_stopped(c);
  m68k_set_stopped(c, false);

  uint32_t sp = a->base + ARENA_STACKS + ARENA_STACK_SIZE * (cpu + 1) - 8;
  m68k_set_reg(c, M68K_REG_SR, 0x2700);
  m68k_machine_write32(m, sp, a->base + ARENA_RET);
  m68k_set_reg(c, M68K_REG_D0 + 1, arg);
  m68k_set_reg(c, M68K_REG_A0 + 7, sp);
  m68k_set_reg(c, M68K_REG_PC, addr);
  m68k_set_cycle_count(c, true);
  a->returned[cpu] = false;
  uint64_t i0 = m68k_instructions(c), c0 = m68k_cycles(c), left = CALL_LIMIT;
  while (!a->returned[cpu] && left > 0) {
    uint64_t done = 0;
    m68k_stop_t why = m68k_run(c, left, &done);
    left -= done < left ? done : left;
    if (why == M68K_STOP_STOPPED || why == M68K_STOP_HALTED)
      break;
  }
  int rc;
  if (a->returned[cpu]) {
    rc = (int)m68k_get_reg(c, M68K_REG_D0);
    if (ret != NULL)
      *ret = m68k_get_reg(c, M68K_REG_D0 + 1);
    if (insns != NULL)
      *insns = a->ret_insns[cpu] - i0 - 1; /* not the return stub's TRAP */
    if (cycles != NULL)
      *cycles = a->ret_cycles[cpu] - c0;
  } else {
    rc = M68K_ENORETURN;
  }
  m68k_set_cycle_count(c, counting);
  for (size_t r = 0; r < NSAVED; r++)
    m68k_set_reg(c, saved_regs[r], saved[r]);
  m68k_set_stopped(c, stopped);
  return rc;
}

/* ---- Folded forms (quaject68k-templates.c notes F1-F6) ---------------------------- */

#define FOLD_CHAIN 4 /* links of one chain here: enter or inv, the operation, resp */
#define FOLD_COLDS 2 /* cold stubs an operation branches to, at most */
#define FOLD_MAX_OPS 64

/* A link of a folded chain: a caller's piece (qk_fold_<piece>) or, when
 * piece is NULL, entry `entry`'s folded form; `arg` fills qk_arg. */
typedef struct fold_link {
  const char *piece;
  int entry;
  uint32_t arg;
} fold_link_t;

void m68k__qj_fold_values(const m68k_qj_t *q, uint64_t *v) {
  uint64_t k[QK_HOLE__COUNT];
  hole_values(q, k);
  memset(v, 0, QF_HOLE__COUNT * sizeof v[0]);
  for (uint32_t j = 0; j < QF_HOLE__COUNT; j++)
    for (uint32_t i = 0; i < QK_HOLE__COUNT; i++)
      if (strcmp(qf_set.hole_names[j], qk_set.hole_names[i]) == 0)
        v[j] = k[i];
  v[QF_HOLE_qk_bound] = q->type->kind == K_STACK   ? k[QK_HOLE_qk_top]
                        : q->type->kind == K_QUEUE ? k[QK_HOLE_qk_last]
                                                   : 0;
}

/* The cold stubs (quaject68k-templates.c note F5), by the hole an
 * operation branches to them through. */
static const struct {
  uint16_t hole;
  const jit_stencil_t *stencil;
} colds[] = {{QF_HOLE_qk_cold_full, &qf_stencil_qk_fold_cold_full},
             {QF_HOLE_qk_cold_empty, &qf_stencil_qk_fold_cold_empty},
             {QF_HOLE_qk_cold_notfull, &qf_stencil_qk_fold_cold_notfull},
             {QF_HOLE_qk_cold_notempty, &qf_stencil_qk_fold_cold_notempty}};

size_t m68k__qj_fold_colds(jit_link_t *links, size_t n, size_t cap, size_t op) {
  const jit_stencil_t *s = links[op].stencil;
  bool used[sizeof colds / sizeof colds[0]] = {false};
  size_t want = 0;
  for (size_t c = 0; c < sizeof colds / sizeof colds[0]; c++) {
    for (uint32_t h = 0; h < s->nholes; h++)
      used[c] = used[c] || s->holes[h].hole == colds[c].hole;
    want += used[c];
  }
  if (n + want > cap || links[op].ncalls + want > JIT_LINK_CALLS)
    return 0; /* a template with more cold paths than its caller has room for */
  for (size_t c = 0; c < sizeof colds / sizeof colds[0]; c++) {
    if (!used[c])
      continue;
    links[n] = (jit_link_t){.stencil = colds[c].stencil, .values = links[op].values,
                            .next_hole = -1, .ncalls = 1};
    links[n].calls[0].hole = QF_HOLE_qk_next;
    links[n].calls[0].link = (uint16_t)(op + 1);
    links[op].calls[links[op].ncalls].hole = colds[c].hole;
    links[op].calls[links[op].ncalls++].link = (uint16_t)n;
    n++;
  }
  return n;
}

const jit_stencil_t *m68k__qj_fold_entry(const m68k_qj_t *q, unsigned i) {
  return jit_stencil_find(&qf_set, pick(q, i)->name);
}

static const jit_stencil_t *fold_stencil(const m68k_qj_t *q, const fold_link_t *l) {
  if (l->piece == NULL)
    return m68k__qj_fold_entry(q, (unsigned)l->entry);
  char name[64];
  snprintf(name, sizeof name, "qk_fold_%s", l->piece);
  return jit_stencil_find(&qf_set, name);
}

/* Emits links fl[0..n) as one chain at addr (cap bytes), each falling
 * through into the next; the last one's qk_next goes to `next`. Without
 * `emit` it only sizes the chain. *used gets the bytes. */
static int fold_chain(m68k_qj_t *q, uint32_t addr, uint32_t cap, const fold_link_t *fl, size_t n,
                      uint32_t next, bool emit, uint32_t *used) {
  uint64_t v[FOLD_CHAIN][QF_HOLE__COUNT];
  jit_link_t links[FOLD_CHAIN + FOLD_COLDS];
  size_t nl = n;
  if (n == 0 || n > FOLD_CHAIN)
    return M68K_EINVAL;
  for (size_t i = 0; i < n; i++) {
    const jit_stencil_t *s = fold_stencil(q, &fl[i]);
    if (s == NULL || s->entry != 0)
      return M68K_ENOTYPE; /* a stencil missing from the build: cannot happen */
    m68k__qj_fold_values(q, v[i]);
    v[i][QF_HOLE_qk_arg] = fl[i].arg;
    v[i][QF_HOLE_qk_next] = next; /* the chain sets all but the last link's */
    links[i] = (jit_link_t){.stencil = s, .values = v[i], .next_hole = QF_HOLE_qk_next};
  }
  /* An operation's cold stubs after the chain's last link, which ends in
   * a jump (to `next`, not into them) or RTS: nothing falls into them (the
   * operation is never last). */
  links[n - 1].next_hole = -1;
  for (size_t i = 0; i < n; i++)
    if (fl[i].piece == NULL && i + 1 < n &&
        (nl = m68k__qj_fold_colds(links, nl, sizeof links / sizeof links[0], i)) == 0)
      return M68K_EINVAL;
  n = nl;
  size_t size = jit_chain_size(links, n);
  if (size > cap)
    return M68K_EINVAL;
  *used = (uint32_t)size;
  if (!emit)
    return M68K_OK;
  size_t entry = 0, written = 0;
  uint8_t *dst = m68k_machine_ram(q->a->m, addr, (uint32_t)size);
  if (dst == NULL ||
      jit_emit_chain(dst, addr, size, links, n, &entry, &written, NULL) != JIT_OK || entry != 0)
    return M68K_EINVAL;
  *used = (uint32_t)((written + 3) & ~(size_t)3);
  return M68K_OK;
}

M68K_API int m68k_qj_call_folded(m68k_qj_t *q, unsigned cpu, const char *entry, uint32_t arg,
                                 uint32_t *ret, uint64_t *insns, uint64_t *cycles) {
  int i = entry_index(q, entry);
  if (i < 0)
    return M68K_ENOTYPE;
  if (cpu >= q->a->m->ncpus)
    return M68K_EINVAL;
  /* The caller with the operation, and without it to subtract. */
  const fold_link_t with[3] = {{"enter", 0, 0}, {NULL, i, 0}, {"return", 0, 0}};
  const fold_link_t without[2] = {{"enter", 0, 0}, {"return", 0, 0}};
  uint32_t len = 0, len0 = 0;
  int rc = fold_chain(q, 0, UINT32_MAX, with, 3, 0, false, &len);
  if (rc == M68K_OK)
    rc = fold_chain(q, 0, UINT32_MAX, without, 2, 0, false, &len0);
  if (rc != M68K_OK)
    return rc;
  len = (len + 15) & ~15u;
  uint32_t blk = m68k__qj_alloc(q->a, len + len0);
  if (blk == 0)
    return M68K_EARENA;
  uint32_t u;
  rc = fold_chain(q, blk, len, with, 3, 0, true, &u);
  if (rc == M68K_OK)
    rc = fold_chain(q, blk + len, len0, without, 2, 0, true, &u);
  uint64_t ni = 0, nc = 0, ni0 = 0, nc0 = 0;
  if (rc == M68K_OK)
    rc = m68k__qj_call_addr(q->a, cpu, blk + len, 0, NULL, &ni0, &nc0);
  if (rc >= 0)
    rc = m68k__qj_call_addr(q->a, cpu, blk, arg, ret, &ni, &nc);
  if (rc == M68K_ENORETURN)
    m68k__machine_msg(q->a->m, "the folded %s of a %s on CPU %u did not return within %u instructions",
                      entry, q->type->name, cpu, CALL_LIMIT);
  if (rc >= 0) {
    if (insns != NULL)
      *insns = ni - ni0;
    if (cycles != NULL)
      *cycles = nc - nc0;
  }
  m68k__qj_release(q->a, blk, len + len0);
  return rc;
}

M68K_API int m68k_qj_fold_program(m68k_qj_t *q, const m68k_qj_fold_op_t *ops, size_t n,
                                  uint32_t *addr, char *err, size_t errlen) {
  if (n == 0 || n > FOLD_MAX_OPS) {
    m68k__qj_seterr(err, errlen, "a folded program makes 1 to %u calls, not %zu", FOLD_MAX_OPS, n);
    return M68K_EINVAL;
  }
  int idx[FOLD_MAX_OPS];
  for (size_t k = 0; k < n; k++)
    if ((idx[k] = entry_index(q, ops[k].entry)) < 0) {
      m68k__qj_seterr(err, errlen, "a %s has no entry '%s'", q->type->name, ops[k].entry);
      return M68K_ENOTYPE;
    }
  unsigned slot = 0;
  while (slot < M68K__QJ_FOLD_PROGRAMS && q->fold[slot].len != 0)
    slot++;
  if (slot == M68K__QJ_FOLD_PROGRAMS) {
    m68k__qj_seterr(err, errlen, "a quaject holds at most %u folded programs",
                    M68K__QJ_FOLD_PROGRAMS);
    return M68K_EINVAL;
  }
  /* Call k is the chain [enter,] inv, the operation, resp, whose resp
   * jumps to the next call's chain; the last one's to STOP. Sized first,
   * then emitted with the addresses known. */
  fold_link_t fl[FOLD_MAX_OPS][FOLD_CHAIN];
  uint32_t size[FOLD_MAX_OPS + 1], total = 0;
  size_t nl[FOLD_MAX_OPS];
  int rc = M68K_OK;
  for (size_t k = 0; k < n && rc == M68K_OK; k++) {
    size_t j = 0;
    if (k == 0)
      fl[k][j++] = (fold_link_t){"enter", 0, 0};
    fl[k][j++] = (fold_link_t){"inv", 0, ops[k].arg};
    fl[k][j++] = (fold_link_t){NULL, idx[k], 0};
    fl[k][j++] = (fold_link_t){"resp", 0, 0};
    nl[k] = j;
    rc = fold_chain(q, 0, UINT32_MAX, fl[k], j, 0, false, &size[k]);
    size[k] = (size[k] + 3) & ~3u;
    total += size[k];
  }
  const fold_link_t stop = {"stop", 0, 0};
  if (rc == M68K_OK)
    rc = fold_chain(q, 0, UINT32_MAX, &stop, 1, 0, false, &size[n]);
  if (rc != M68K_OK) {
    m68k__qj_seterr(err, errlen, "cannot lay out the folded program");
    return rc;
  }
  total += size[n];
  uint32_t blk = m68k__qj_alloc(q->a, total);
  if (blk == 0) {
    m68k__qj_seterr(err, errlen, "the quaject arena is full (%" PRIu32 " bytes wanted)", total);
    return M68K_EARENA;
  }
  uint32_t at = blk, u;
  for (size_t k = 0; k <= n && rc == M68K_OK; k++) {
    if (k < n)
      rc = fold_chain(q, at, size[k], fl[k], nl[k], at + size[k], true, &u);
    else
      rc = fold_chain(q, at, size[k], &stop, 1, 0, true, &u);
    at += size[k];
  }
  if (rc != M68K_OK) {
    m68k__qj_release(q->a, blk, total);
    m68k__qj_seterr(err, errlen, "cannot synthesise the folded program");
    return rc;
  }
  q->fold[slot].addr = blk;
  q->fold[slot].len = total;
  *addr = blk;
  return M68K_OK;
}
