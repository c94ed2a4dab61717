/* synth.c -- code synthesis for quajects: per-site stencils, chained along wires.
 *
 * Every site runs either its target type's generic callentry for the
 * target's current state, or code synthesised for that one site from the
 * type's template (jit/, tier 1 stencils): the target's addresses, the
 * caller's handlers and the type's invariants are folded in as hole values
 * (factoring invariants). When the template ends by tail-calling the
 * callentry one of the target's callouts is wired to, and that callentry
 * has a template too, the two are emitted back to back and the first falls
 * through into the second (collapsing layers); otherwise the hole points at
 * a trampoline that calls through the wire's site.
 *
 * Code swap protocol (numbered invariants):
 *
 *  1. Synthesis runs only under the control lock, in qua__resynth(q), once
 *     after each change of what code depends on (q's sites, wires, watchers,
 *     variant, or a close). It rebuilds the sites on q and on every quaject
 *     whose callouts lead to q within as many wires as one site's code can
 *     span, so code that inlined q's code, or folded in q's listeners, is
 *     rebuilt whenever q changes, and nothing else is.
 *  2. New code is written through the RW view, committed, and only then
 *     published by a release store of the site's fn; a caller loads fn
 *     (acquire) and runs either the old or the new code, both correct for
 *     the state at the time of the swap: the types that switch variants
 *     (queue.c) resynthesise before they wait for their grace period.
 *  3. Code that a caller may still be running is freed only after a grace
 *     period of every read-side flavour in use (qua__synchronize), once for
 *     the whole pass, and the pass returns only after it. So code that
 *     folded in who listens to a callback (or a caller's handler) can be
 *     stale only while the control operation that changed them runs: a
 *     callback raised after qua_watch or a site open returned reaches the
 *     new listener, and none reaches a listener after its removal returned,
 *     which is what the generic code, walking the lists, promises too.
 *  4. A quaject's body (a pump's step, ops.body) is kept in a site of its
 *     own and calls its callouts' sites' code directly: it is rebuilt in
 *     the same pass, after those sites, so old and new bodies alike call
 *     code that is freed only after the pass's grace period.
 *  5. A failed synthesis (no template, a hole out of range, no code memory
 *     within reach) leaves the site on its generic code and records why in
 *     its impl string; it is never an error for the caller.
 */
#define _LGPL_SOURCE 1
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/urcu-bp.h>
#include <urcu/urcu-qsbr.h>

#include "jit.h"
#include "lfq.h"
#include "qua-internal.h"
#include "types-internal.h"

/* urcu/flavor.h declares the flavour structure once, under the name of the
 * first flavour header included; the second must be named by hand. */
extern const struct rcu_flavor_struct urcu_qsbr_flavor;

#define CHAIN_MAX 4

static jit_codemem_t *codemem;
static bool codemem_failed;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static _Atomic int default_mode = QUA_SYNTH_STENCIL;
/* qua_synth_totals(): counters only, so relaxed. */
static _Atomic uint64_t synth_count, synth_total_ns;

/* --- Modes ----------------------------------------------------------------- */

int qua_synth_parse(const char *s) {
  if (s == NULL)
    return QUA_EINVAL;
  if (strcmp(s, "off") == 0 || strcmp(s, "generic") == 0)
    return QUA_SYNTH_OFF;
  if (strcmp(s, "stencil") == 0)
    return QUA_SYNTH_STENCIL;
  return QUA_EINVAL;
}

void qua_synth_totals(uint64_t *count, uint64_t *ns) {
  if (count != NULL)
    *count = atomic_load_explicit(&synth_count, memory_order_relaxed);
  if (ns != NULL)
    *ns = atomic_load_explicit(&synth_total_ns, memory_order_relaxed);
}

static void default_from_env(void) {
  int m = qua_synth_parse(getenv("QUA_SYNTH"));
  if (m >= 0)
    atomic_store(&default_mode, m);
}

qua_synth_mode_t qua_synth_default(void) {
  pthread_once(&default_once, default_from_env);
  return (qua_synth_mode_t)atomic_load(&default_mode);
}

qua_synth_mode_t qua_set_synth_default(qua_synth_mode_t mode) {
  pthread_once(&default_once, default_from_env);
  return (qua_synth_mode_t)atomic_exchange(&default_mode, (int)mode);
}

int qua__synth_param(const char *value, qua_synth_mode_t *mode) {
  int m = qua_synth_parse(value);
  if (m < 0)
    return m;
  *mode = (qua_synth_mode_t)m;
  return QUA_OK;
}

qua_synth_mode_t qua_quaject_synth(const qua_quaject_t *q) { return q->synth; }

/* --- What holes point at ------------------------------------------------------- */

void qua__nop_handler(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {}

void qua__fire_site(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  qua__fire((qua_site_t *)ctx, cb, arg);
}

int qua__entry_ok(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) { return QUA_OK; }

int qua__notify_one(uint64_t fn, uint64_t ctx, qua_quaject_t *q, int cb, uint64_t arg) {
  ((qua_handler_fn)(uintptr_t)fn)((void *)(uintptr_t)ctx, q, cb, arg);
  return QUA_OK;
}

int qua__notify_all(qua_quaject_t *q, int cb, uint64_t arg) {
  qua__broadcast(q, cb, arg);
  return QUA_OK;
}

int qua__entry_unwired(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  return QUA_ENOTWIRED;
}

int qua__call_site(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  return qua__call(s, a0, a1, ret);
}

qua_site_t qua__unwired_site = {.fn = qua__entry_unwired, .impl = "unwired"};

void qua__invoker_handler(qua_site_t *s, int cb, uint64_t *fn, uint64_t *ctx) {
  if (atomic_load_explicit(&s->target->watchers[cb], memory_order_relaxed) != NULL) {
    *fn = (uint64_t)(uintptr_t)qua__fire_site;
    *ctx = (uint64_t)(uintptr_t)s;
  } else if (s->handler[cb] != NULL) {
    *fn = (uint64_t)(uintptr_t)s->handler[cb];
    *ctx = (uint64_t)(uintptr_t)s->handler_ctx[cb];
  } else {
    *fn = (uint64_t)(uintptr_t)qua__nop_handler;
    *ctx = 0;
  }
}

void qua__listeners(qua_quaject_t *q, int cb, uint64_t *mode, uint64_t *fn, uint64_t *ctx) {
  int n = atomic_load_explicit(&q->watchers[cb], memory_order_relaxed) != NULL ? 2 : 0;
  *fn = (uint64_t)(uintptr_t)qua__nop_handler; /* a call's target must be in reach */
  *ctx = 0;
  for (int e = 0; e < q->type->nentries && n < 2; e++)
    QUA__FOREACH_SITE(q, e, s) {
      if (s->handler[cb] != NULL && n++ == 0) {
        *fn = (uint64_t)(uintptr_t)s->handler[cb];
        *ctx = (uint64_t)(uintptr_t)s->handler_ctx[cb];
      }
    }
  *mode = n == 0 ? QUA__LISTEN_NONE : n == 1 ? QUA__LISTEN_ONE : QUA__LISTEN_ALL;
}

void qua__listened_refresh(qua_quaject_t *q) {
  uint32_t bits = 0;
  for (int cb = 0; cb < q->type->ncallbacks; cb++)
    bits |= qua__listened(q, cb) ? 1u << cb : 0;
  atomic_store_explicit(&q->listened, bits, memory_order_release);
}

bool qua__listened(qua_quaject_t *q, int cb) {
  uint64_t mode, fn, ctx;
  qua__listeners(q, cb, &mode, &fn, &ctx);
  return mode != QUA__LISTEN_NONE;
}

/* Templates that copy spans call memcpy; libc lies beyond the reach of a
 * rel32 call from code memory placed near the program text, so the hole
 * points at this copy in the program's own text. */
static void *near_memcpy(void *dst, const void *src, size_t n) { return memcpy(dst, src, n); }

/* Library functions templates call, by hole name. */
static const struct {
  const char *name;
  uint64_t value;
} library_holes[] = {
    {"qua__broadcast", (uint64_t)(uintptr_t)qua__broadcast},
    {"qua__notify_one", (uint64_t)(uintptr_t)qua__notify_one},
    {"qua__notify_all", (uint64_t)(uintptr_t)qua__notify_all},
    {"qua__lfq_put_sp_slow", (uint64_t)(uintptr_t)qua__lfq_put_sp_slow},
    {"qua__lfq_put_mp_slow", (uint64_t)(uintptr_t)qua__lfq_put_mp_slow},
    {"qua__lfq_get_sc_slow", (uint64_t)(uintptr_t)qua__lfq_get_sc_slow},
    {"qua__lfq_get_mc_slow", (uint64_t)(uintptr_t)qua__lfq_get_mc_slow},
    {"qua__lfq_take1", (uint64_t)(uintptr_t)qua__lfq_take1},
    {"memcpy", (uint64_t)(uintptr_t)near_memcpy},
};

/* --- Synthesis ----------------------------------------------------------------------- */

static jit_codemem_t *get_codemem(void) {
  if (codemem == NULL && !codemem_failed) {
    jit_codemem_options_t opts = {0};
    opts.flavors[0] = &urcu_bp_flavor;
    opts.flavors[1] = &urcu_qsbr_flavor;
    opts.reserve = 1; /* the first chunk now: a synthesis's time is its copy and patch */
    if (jit_codemem_create(&opts, &codemem) != JIT_OK)
      codemem_failed = true;
  }
  return codemem;
}

/* The parts of one site's code: its chain, then the chains of the
 * callouts its parts call (calls[]), each laid out in the same code. */
#define PARTS_MAX QUA__CODE_PARTS

typedef struct chain {
  jit_part_t parts[PARTS_MAX];
  uint64_t values[PARTS_MAX][64];
  qua_synth_part_t desc[PARTS_MAX];
  const qua_site_t *site[PARTS_MAX]; /* whose callentry each part is */
  bool called[PARTS_MAX]; /* the part starts the chain of a callout called */
  size_t n;
  char why[96];
} chain_t;

#define LIBRARY_HOLES (sizeof library_holes / sizeof library_holes[0])

/* Which hole of a set each library function fills (-1: none). The sets are
 * the types' static tables and library_holes is constant, so a set's row,
 * once made, stays true; kept per thread, like jit_hole_find's cache, for
 * the few sets there are. */
enum { LIBRARY_ROWS = 8 };
static _Thread_local struct {
  const jit_stencil_set_t *set;
  int8_t hole[LIBRARY_HOLES];
} library_rows[LIBRARY_ROWS];

static const int8_t *library_row(const jit_stencil_set_t *set) {
  size_t k = ((uintptr_t)set >> 4) & (LIBRARY_ROWS - 1);
  if (library_rows[k].set != set) {
    for (size_t j = 0; j < LIBRARY_HOLES; j++) {
      int h = jit_hole_find(set, library_holes[j].name);
      library_rows[k].hole[j] = (int8_t)(h < 0 ? -1 : h);
    }
    library_rows[k].set = set;
  }
  return library_rows[k].hole;
}

/* Gives hole h of part i value v unless an earlier source gave it one. */
static void fill(chain_t *c, size_t i, bool *filled, int h, uint64_t v) {
  if (h >= 0 && !filled[h]) {
    c->values[i][h] = v;
    filled[h] = true;
  }
}

/* Fills the values of part i from its description; false (with why) when a
 * hole has no value. By precedence: the type's values (the first of a
 * name), the library's functions, the tail call, the calls. */
static bool fill_values(chain_t *c, size_t i) {
  const qua_synth_part_t *d = &c->desc[i];
  const jit_stencil_set_t *set = d->tmpl->stencil->set;
  if (set->nholes > 64 || d->nholes > QUA_SYNTH_HOLES) {
    snprintf(c->why, sizeof c->why, "too many holes");
    return false;
  }
  /* A name the type gives that no template of the set has is a
   * misspelling: the hole it meant would be patched with nothing. */
  int ids[QUA_SYNTH_HOLES];
  for (int k = 0; k < d->nholes; k++)
    if ((ids[k] = jit_hole_find(set, d->holes[k].name)) < 0) {
      snprintf(c->why, sizeof c->why, "no hole %.32s in %.32s", d->holes[k].name,
               d->tmpl->name);
      return false;
    }
  c->parts[i].tmpl = d->tmpl;
  c->parts[i].values = c->values[i];
  c->parts[i].next_hole = -1;
  c->parts[i].ncalls = 0;
  bool filled[64] = {false};
  /* Holes no source fills are checked below: only holes this template
   * does not use may stay empty. */
  memset(c->values[i], 0, set->nholes * sizeof c->values[i][0]);
  for (int k = 0; k < d->nholes; k++)
    fill(c, i, filled, ids[k], d->holes[k].value);
  const int8_t *lib = library_row(set);
  for (size_t j = 0; j < LIBRARY_HOLES; j++)
    fill(c, i, filled, lib[j], library_holes[j].value);
  /* Unless a chain follows, a tail call through the wire's site. */
  if (d->next_hole != NULL)
    fill(c, i, filled, jit_hole_find(set, d->next_hole),
         d->next_site != NULL ? (uint64_t)(uintptr_t)qua__call_site
                              : (uint64_t)(uintptr_t)qua__entry_ok);
  /* Unless the site's own chain is laid out with this code. */
  for (int k = 0; k < d->ncalls && k < QUA_SYNTH_CALLS; k++)
    fill(c, i, filled, jit_hole_find(set, d->calls[k].hole), (uint64_t)(uintptr_t)qua__call_site);
  /* A hole the template uses must have a value; holes of other templates
   * in the same set may stay empty. */
  const jit_stencil_t *st = d->tmpl->stencil;
  for (uint32_t j = 0; j < st->nholes; j++) {
    uint16_t h = st->holes[j].hole;
    if (h < set->nholes && !filled[h]) {
      snprintf(c->why, sizeof c->why, "hole %.32s of %.32s has no value", set->hole_names[h],
               d->tmpl->name);
      return false;
    }
  }
  return true;
}

/* Appends the chain starting at site s: its own part, then as many wired
 * successors as have templates (CHAIN_MAX at most). False when s's own
 * part could not be made (nothing appended) or a part's holes failed. */
static bool build_linear(chain_t *c, qua_site_t *s) {
  size_t start = c->n;
  for (qua_site_t *cur = s; cur != NULL && c->n - start < CHAIN_MAX && c->n < PARTS_MAX;) {
    qua_quaject_t *q = cur->target;
    qua_synth_part_t *d = &c->desc[c->n];
    memset(d, 0, sizeof *d);
    if (q == NULL || q->dead || q->synth != QUA_SYNTH_STENCIL || q->type->ops.site_synth == NULL ||
        q->type->ops.site_synth(q, cur, d) < 0 || d->tmpl == NULL) {
      if (c->n == 0)
        snprintf(c->why, sizeof c->why, "%s",
                 d->why != NULL                            ? d->why
                 : q != NULL && q->synth == QUA_SYNTH_OFF ? "synth=off"
                                                           : "no template");
      break;
    }
    if (!fill_values(c, c->n))
      return false;
    c->site[c->n] = cur;
    /* Chain into the next site when the hole is a tail call into it. */
    if (c->n > start) {
      const jit_stencil_set_t *pset = c->desc[c->n - 1].tmpl->stencil->set;
      c->parts[c->n - 1].next_hole = jit_hole_find(pset, c->desc[c->n - 1].next_hole);
    }
    c->n++;
    cur = d->next_hole != NULL ? d->next_site : NULL;
  }
  return c->n > start;
}

/* Builds site s's code: its chain, then, breadth first, the chain of every
 * callout a part calls, bound to the hole that calls it. */
static bool build_chain(chain_t *c, qua_site_t *s) {
  c->n = 0;
  memset(c->called, 0, sizeof c->called);
  if (!build_linear(c, s))
    return false;
  for (size_t i = 0; i < c->n; i++) {
    const qua_synth_part_t *d = &c->desc[i];
    for (int k = 0; k < d->ncalls && k < QUA_SYNTH_CALLS; k++) {
      int hid = jit_hole_find(d->tmpl->stencil->set, d->calls[k].hole);
      size_t at = c->n;
      if (hid < 0 || d->calls[k].site == NULL || c->n >= PARTS_MAX)
        continue;
      if (!build_linear(c, d->calls[k].site)) {
        if (c->n > at)
          return false; /* a part's holes failed */
        continue;       /* no code for that site: the hole calls through it */
      }
      jit_part_t *p = &c->parts[i];
      c->called[at] = true;
      p->calls[p->ncalls].hole = (uint16_t)hid;
      p->calls[p->ncalls].part = (uint16_t)at;
      p->ncalls++;
    }
  }
  return true;
}

/* The name `show --code` gives hole h of set: without the set's prefix. */
static const char *hole_name(const jit_stencil_set_t *set, uint16_t h) {
  if (h == JIT_HOLE_TEXT)
    return "(text)";
  if (h == JIT_HOLE_DATA || h >= set->nholes)
    return "(data)";
  const char *name = set->hole_names[h];
  size_t n = strlen(set->prefix);
  return strncmp(name, set->prefix, n) == 0 && name[n] == '_' ? name + n + 1 : name;
}

/* The map of chain c's code, compiled at code with its entry at `entry`;
 * NULL when out of memory. */
static qua__code_map_t *code_map(const chain_t *c, jit_code_t *code, size_t entry) {
  jit_patch_t stack[256], *rows = stack;
  jit_chain_map_t m = {.patches = stack, .cap = sizeof stack / sizeof stack[0]};
  qua__code_map_t *map = NULL;
  uint64_t at = (uint64_t)(uintptr_t)jit_code_rx(code);
  if (jit_parts_map(c->parts, c->n, at, &m) != JIT_OK)
    return NULL;
  if (m.n > m.cap) { /* more fields than the stack holds: map again */
    rows = malloc(m.n * sizeof *rows);
    if (rows == NULL)
      return NULL;
    m.patches = rows;
    m.cap = m.n;
    if (jit_parts_map(c->parts, c->n, at, &m) != JIT_OK)
      goto out;
  }
  map = malloc(sizeof *map + m.n * sizeof map->holes[0]);
  if (map == NULL)
    goto out;
  const jit_stencil_t *first = c->parts[0].tmpl->stencil;
  map->machine = first->machine;
  map->entry = (uint32_t)entry;
  map->text_end = (uint32_t)m.text_end;
  map->size = (uint32_t)m.size;
  map->nparts = c->n;
  map->nholes = m.n;
  for (size_t i = 0; i < c->n; i++)
    map->parts[i] = (qua_code_part_t){c->site[i]->target->id, c->site[i]->entry,
                                      c->desc[i].variant != NULL ? c->desc[i].variant : "?",
                                      m.entry[i]};
  for (size_t i = 0; i < m.n; i++) {
    const jit_patch_t *r = &rows[i];
    const jit_hole_kind_info_t *k = jit_hole_kind_info(r->kind);
    map->holes[i] = (qua_code_hole_t){hole_name(c->parts[r->link].tmpl->stencil->set, r->hole),
                                      r->offset, k != NULL ? k->bytes : 0, k != NULL && k->pcrel,
                                      r->to_link, r->value};
  }
out:
  if (rows != stack)
    free(rows);
  return map;
}

/* Rebuilds one site's code; appends code it replaces to old[]. */
static void refresh_site(qua_site_t *s, jit_code_t **old, size_t *nold, size_t cap) {
  qua_quaject_t *q = s->target;
  qua_entry_fn generic =
      q->type->ops.site_generic != NULL ? q->type->ops.site_generic(q, s) : q->type->entries[s->entry].generic;
  const char *gname = q->type->ops.entry_impl != NULL ? q->type->ops.entry_impl(q, s) : "generic";
  jit_code_t *was = s->code, *code = NULL;
  chain_t c;
  size_t entry = 0;
  uint64_t ns = 0;
  c.why[0] = '\0';
  if (q->synth == QUA_SYNTH_STENCIL && get_codemem() != NULL && build_chain(&c, s)) {
    jit_emit_error_t err;
    int r = jit_compile(&jit_tier_stencil, codemem, c.parts, c.n, &code, &entry, &ns, &err);
    if (r != JIT_OK) {
      jit_emit_error_format(c.why, sizeof c.why, r, &err);
      code = NULL;
    }
  }
  /* Code is kept with its map (qua_quaject_entry_code), or not at all. */
  qua__code_map_t *map = code != NULL ? code_map(&c, code, entry) : NULL;
  if (code != NULL && map == NULL) {
    jit_code_free(code); /* never published */
    code = NULL;
    snprintf(c.why, sizeof c.why, "no memory for the code's map");
  }
  free(s->code_map); /* read only under the control lock, which we hold */
  s->code_map = map;
  if (code != NULL) {
    char *p = s->impl_buf;
    size_t left = sizeof s->impl_buf;
    int w = snprintf(p, left, "%sstencil ", c.n > 1 ? "chain " : "");
    for (size_t i = 0; i < c.n && w > 0 && (size_t)w < left; i++) {
      p += w;
      left -= (size_t)w;
      w = snprintf(p, left, "%s%s", c.called[i] ? " | " : i ? "+" : "", c.desc[i].variant ? c.desc[i].variant : "?");
    }
    s->impl = s->impl_buf;
    s->synth_ns = ns;
    atomic_fetch_add_explicit(&synth_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&synth_total_ns, ns, memory_order_relaxed);
    s->code = code;
    qua__site_set_fn(s, (qua_entry_fn)(void (*)(void))((char *)jit_code_rx(code) + entry));
  } else {
    snprintf(s->impl_buf, sizeof s->impl_buf, "%s%s%s", gname, c.why[0] ? ", " : "", c.why);
    s->impl = s->impl_buf;
    s->synth_ns = 0;
    s->code = NULL;
    qua__site_set_fn(s, generic);
  }
  if (was != NULL) {
    if (*nold < cap)
      old[(*nold)++] = was;
    else {
      qua__synchronize(); /* rare: a huge pass frees in batches */
      for (size_t i = 0; i < *nold; i++)
        jit_code_free(old[i]);
      *nold = 0;
      old[(*nold)++] = was;
    }
  }
}

/* Upstream marking (invariants 6 to 9 of the note above).
 *
 * The quajects whose code may have folded in q's are found by walking
 * wires backwards from q: every wire into q is a site on one of q's
 * callentries whose owner is the wire's source (site->owner, with
 * owner->outs[owner_callout] == site while the wire stands), so q's own
 * site lists are its reverse edges and no list of every quaject is needed.
 * A pass touches q, the quajects within PARTS_MAX + 1 wires upstream of
 * it, and their sites: what the change can reach, whatever the number of
 * quajects in the process.
 *
 *  6. A pass gets a generation number; synth_gen == generation marks a
 *     quaject as reached in this pass, with synth_dist its distance, and
 *     synth_next links the reached ones breadth first. The marks of
 *     earlier passes are simply stale, so nothing is reset, and the walk
 *     allocates nothing (it cannot stop half-way).
 *  7. A site on t with an owner is a wire only while the owner's outs[]
 *     points at it: qua_wire links the site before it stores outs[], and
 *     unwire clears outs[] before it unlinks the site. Such half-made or
 *     half-gone edges are not followed, which is exactly the set of wires
 *     a forward walk over outs[] would follow.
 *  8. A destroyed quaject (dead) is neither rebuilt nor walked through,
 *     except q itself, whose upstream still holds chains into it.
 *  9. Everything runs under the control lock (invariant 1), so the sites
 *     lists, outs[] and the marks change only inside the pass. */
static uint64_t synth_generation;

/* Appends q at distance dist to the pass's list (through synth_next). */
static void upstream_push(qua_quaject_t ***tail, qua_quaject_t *q, int dist) {
  q->synth_gen = synth_generation;
  q->synth_dist = dist;
  q->synth_next = NULL;
  **tail = q;
  *tail = &q->synth_next;
}

/* Lists q and every quaject whose callouts lead to q within `depth` wires,
 * nearest first, through synth_next; returns the list's head (q). The list
 * lives in the quajects themselves, so a pass allocates nothing and cannot
 * fail half-way. */
static qua_quaject_t *mark_upstream(qua_quaject_t *q, int depth) {
  qua_quaject_t *head = NULL, **tail = &head;
  synth_generation++;
  upstream_push(&tail, q, 0);
  for (qua_quaject_t *t = head; t != NULL; t = t->synth_next) {
    if (t->synth_dist >= depth || (t != q && t->dead))
      continue;
    for (int e = 0; e < t->type->nentries; e++)
      QUA__FOREACH_SITE(t, e, s) {
        qua_quaject_t *o = s->owner;
        if (o == NULL || o->synth_gen == synth_generation ||
            atomic_load_explicit(&o->outs[s->owner_callout], memory_order_relaxed) != s)
          continue;
        upstream_push(&tail, o, t->synth_dist + 1);
      }
  }
  return head;
}

void qua__resynth(qua_quaject_t *changed, bool wait) {
  jit_code_t *old[256];
  size_t nold = 0;
  qua__listened_refresh(changed); /* the generic code's test, with the code */
  /* Bodies call the code of their callouts' sites: one wire further. */
  qua_quaject_t *up = mark_upstream(changed, PARTS_MAX + 1);
  for (qua_quaject_t *u = up; u != NULL; u = u->synth_next) {
    if (u->dead || u->synth_dist > PARTS_MAX)
      continue;
    for (int e = 0; e < u->type->nentries; e++)
      QUA__FOREACH_SITE(u, e, s) refresh_site(s, old, &nold, sizeof old / sizeof old[0]);
  }
  /* Bodies after the sites whose code they call. */
  for (qua_quaject_t *u = up; u != NULL; u = u->synth_next)
    if (u->body != NULL && !u->dead)
      refresh_site(u->body, old, &nold, sizeof old / sizeof old[0]);
  if (nold > 0 || wait)
    qua__synchronize();
  for (size_t i = 0; i < nold; i++)
    jit_code_free(old[i]);
}

void qua__site_free_code(qua_site_t *s) {
  free(s->code_map);
  s->code_map = NULL;
  if (s->code != NULL) {
    jit_code_free(s->code);
    s->code = NULL;
  }
}

int qua_quaject_entry_code(const qua_quaject_t *q, int entry, qua_code_t **out) {
  *out = NULL;
  if ((entry < 0 || entry >= q->type->nentries) && !(entry == QUA_ENTRY_BODY && q->body != NULL))
    return QUA_ENOENTRY;
  int rc = QUA_OK;
  qua__ctl_lock();
  /* The same site as qua_quaject_entry_info's; its code and map change
   * only under the control lock. */
  const qua_site_t *s =
      entry == QUA_ENTRY_BODY ? q->body : atomic_load(&((qua_quaject_t *)q)->sites[entry]);
  const qua__code_map_t *m = s != NULL && s->code != NULL ? s->code_map : NULL;
  if (m == NULL)
    goto out;
  size_t parts = m->nparts * sizeof(qua_code_part_t), holes = m->nholes * sizeof(qua_code_hole_t);
  qua_code_t *c = malloc(sizeof *c + parts + holes + m->size);
  if (c == NULL) {
    rc = QUA_ENOMEM;
    goto out;
  }
  qua_code_part_t *cp = (qua_code_part_t *)(c + 1);
  qua_code_hole_t *ch = (qua_code_hole_t *)((char *)cp + parts);
  uint8_t *bytes = (uint8_t *)ch + holes;
  memcpy(cp, m->parts, parts);
  memcpy(ch, m->holes, holes);
  memcpy(bytes, jit_code_rx(s->code), m->size);
  *c = (qua_code_t){m->machine, (uint64_t)(uintptr_t)jit_code_rx(s->code), m->size, m->entry,
                    m->text_end, bytes, m->nparts, m->nholes, cp, ch};
  *out = c;
out:
  qua__ctl_unlock();
  return rc;
}
