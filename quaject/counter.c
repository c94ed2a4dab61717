/* counter.c -- the counter quaject: a 64-bit count with a threshold callback.
 *
 * add is one atomic fetch-and-add, so every add knows the exact value
 * before and after it in the linearisation order; "threshold" fires once
 * for each add that crosses the threshold (from below it to at or above
 * it, or back), and never otherwise. Values are signed 64-bit and wrap
 * (two's complement: INT64_MAX + 1 is INT64_MIN) in every implementation.
 *
 *  1. The value is one word (counter_word_t); an add stores it once: the
 *     atomic fetch-and-add, or with one writer site the plain store after
 *     the load (_1w). Either is a single 64-bit store, so the word always
 *     holds the value after some prefix of the adds, in their order.
 *  2. With quad --state-dir that word lives in the counter's storage, a
 *     MAP_SHARED file (qua_storage_map), and the synthesised code's
 *     ct_counter hole is its address. A process killed at any instruction
 *     leaves the word as of its last completed add, or with the one add in
 *     flight wholly done when its store had run (its caller never got the
 *     reply: an add retried after the restart counts twice). The
 *     threshold is a creation parameter, and no other state is kept:
 *     counter_recover reads the word, and the restored counter is given
 *     that value by one add (no listener is there to hear a crossing).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qua-internal.h"
#include "types-internal.h"
#include "counter-stencils.h"

enum { P_INITIAL, P_THRESHOLD };


static void check_threshold(qua_site_t *s, int64_t before, int64_t after) {
  const counter_t *c = s->state;
  if ((before < c->threshold) != (after < c->threshold) &&
      !qua__nobody_listens(s->target, COUNTER_CB_THRESHOLD))
    qua__broadcast(s->target, COUNTER_CB_THRESHOLD, (uint64_t)after);
}

/* Adds delta and returns the value before. With one writer site (the
 * grace period counter_sites_changed asks for keeps a second writer out
 * until no call that saw one_writer is running) a plain load and store do,
 * as in the _1w templates; readers still see whole values. */
static inline int64_t counter_fetch_add(counter_t *c, int64_t delta) {
  if (atomic_load_explicit(&c->one_writer, memory_order_relaxed)) {
    int64_t before = atomic_load_explicit(&c->w->value, memory_order_relaxed);
    atomic_store_explicit(&c->w->value, counter_wrap_add(before, (uint64_t)delta),
                          memory_order_relaxed);
    return before;
  }
  return atomic_fetch_add_explicit(&c->w->value, delta, memory_order_relaxed);
}

/* add(delta): adds (two's complement) and returns the new value. */
static int counter_add(qua_site_t *s, uint64_t delta, uint64_t a1, uint64_t *ret) {
  counter_t *c = s->state;
  int64_t before = counter_fetch_add(c, (int64_t)delta);
  int64_t after = counter_wrap_add(before, delta);
  *ret = (uint64_t)after;
  check_threshold(s, before, after);
  return QUA_OK;
}

static int counter_read(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  *ret = (uint64_t)atomic_load_explicit(&((counter_t *)s->state)->w->value, memory_order_relaxed);
  return QUA_OK;
}

/* pass(x): counts one item and hands it on through the "out" callout, if
 * wired; returns what the next callentry returns. */
static int counter_pass(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  counter_t *c = s->state;
  int64_t before = counter_fetch_add(c, 1);
  check_threshold(s, before, counter_wrap_add(before, 1));
  int r = qua_callout(s->target, COUNTER_C_OUT, x, 0, NULL);
  return r == QUA_ENOTWIRED ? QUA_OK : r;
}

/* What synthesised add and pass tail-call when an add crossed the threshold
 * and somebody listens: tell them, then (pass) hand x on through the
 * wire's site `out` (NULL: unwired, or an add). */
static int counter_crossed(qua_quaject_t *q, uint64_t after, qua_site_t *out, uint64_t x,
                           uint64_t *ret) {
  qua__broadcast(q, COUNTER_CB_THRESHOLD, after);
  if (out == NULL)
    return QUA_OK;
  int r = qua__call(out, x, 0, ret);
  return r == QUA_ENOTWIRED ? QUA_OK : r;
}

/* add and pass have templates (counter-templates.c): the counter's address,
 * its threshold and who listens to it are folded in (with nobody listening,
 * the _q form, which has no crossing test; a listener's coming or going
 * resynthesises the sites, as the value of ct_listen changes); pass chains
 * into what "out" is wired to. */
static int counter_site_synth(qua_quaject_t *q, qua_site_t *s, qua_synth_part_t *part) {
  /* [entry is pass][one writer][nobody listens] */
  static const jit_template_t *const tmpl[2][2][2] = {
      {{&ct_tmpl_ct_add, &ct_tmpl_ct_add_q}, {&ct_tmpl_ct_add_1w, &ct_tmpl_ct_add_1w_q}},
      {{&ct_tmpl_ct_pass, &ct_tmpl_ct_pass_q}, {&ct_tmpl_ct_pass_1w, &ct_tmpl_ct_pass_1w_q}}};
  static const char *const variant[2][2][2] = {{{"add", "add quiet"}, {"add 1w", "add 1w quiet"}},
                                               {{"pass", "pass quiet"}, {"pass 1w", "pass 1w quiet"}}};
  counter_t *c = QUA__STATE(q, counter_t);
  if (s->entry != COUNTER_E_ADD && s->entry != COUNTER_E_PASS)
    return QUA_ENOENTRY;
  bool pass = s->entry == COUNTER_E_PASS;
  bool one = q->weight[COUNTER_E_ADD] + q->weight[COUNTER_E_PASS] <= 1;
  uint64_t mode, fn, ctx;
  qua__listeners(q, COUNTER_CB_THRESHOLD, &mode, &fn, &ctx); /* only whether anybody does */
  bool quiet = mode == QUA__LISTEN_NONE;
  part->tmpl = tmpl[pass][one][quiet];
  part->variant = variant[pass][one][quiet];
  if (pass) {
    part->next_hole = "ct_next";
    part->next_site = atomic_load_explicit(&q->outs[COUNTER_C_OUT], memory_order_relaxed);
  }
  qua__synth_hole(part, "ct_counter", (uint64_t)(uintptr_t)c->w);
  qua__synth_hole(part, "ct_threshold", (uint64_t)c->threshold);
  qua__synth_hole(part, "ct_target", (uint64_t)(uintptr_t)q);
  qua__synth_hole(part, "ct_out_site", (uint64_t)(uintptr_t)part->next_site);
  qua__synth_hole(part, "ct_listen", mode);
  qua__synth_hole(part, "ct_crossed", (uint64_t)(uintptr_t)counter_crossed);
  return QUA_OK;
}

/* The one-writer code (counter-templates.c) must be gone before a second
 * writer's first call: when a second writer site opens, every site is
 * resynthesised with the atomic code, then a grace period passes. */
static int counter_sites_changed(qua_quaject_t *q, int entry, int phase) {
  counter_t *c = QUA__STATE(q, counter_t);
  bool one = q->weight[COUNTER_E_ADD] + q->weight[COUNTER_E_PASS] <= 1;
  if (phase == QUA_SITES_BEFORE_OPEN && !one && c->one_writer) {
    c->one_writer = false;
    return QUA_SITES_WAIT;
  } else if (phase == QUA_SITES_AFTER_CLOSE && one) {
    c->one_writer = true;
  }
  return QUA_OK;
}

static int counter_init(qua_quaject_t *q, const uint64_t *p) {
  counter_t *c = QUA__STATE(q, counter_t);
  c->w = qua_storage_map(q, sizeof(counter_word_t));
  if (c->w == NULL)
    c->w = &c->own;
  atomic_store_explicit(&c->w->value, (int64_t)p[P_INITIAL], memory_order_relaxed);
  c->threshold = (int64_t)p[P_THRESHOLD];
  c->one_writer = true;
  return QUA_OK;
}

static int counter_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const counter_t *c = QUA__STATE(q, const counter_t);
  return snprintf(buf, len, "value=%" PRId64 " threshold=%" PRId64, atomic_load(&c->w->value),
                  c->threshold);
}

/* The value a dead process's counter held (notes 1, 2). */
static int counter_recover(const void *mem, size_t bytes, void *out, size_t *n, char *why,
                           size_t whylen) {
  if (bytes != sizeof(counter_word_t)) {
    snprintf(why, whylen, "%zu bytes, not the %zu of a counter's word", bytes,
             sizeof(counter_word_t));
    return QUA_EINVAL;
  }
  int64_t v = atomic_load_explicit(&((const counter_word_t *)mem)->value, memory_order_relaxed);
  memcpy(out, &v, sizeof v);
  *n = 1;
  return QUA_OK;
}

static const qua_param_def_t counter_params[] = {
    [P_INITIAL] = {"initial", 0, 0, UINT64_MAX, 0, "starting value (two's complement)"},
    [P_THRESHOLD] = {"threshold", INT64_MAX, 0, UINT64_MAX, 0,
                     "value whose crossing fires \"threshold\" (two's complement)"},
};

static const qua_entry_def_t counter_entries[] = {
    [COUNTER_E_ADD] = {"add", 1, true, true, counter_add, "add a delta; returns the new value"},
    [COUNTER_E_READ] = {"read", 0, true, true, counter_read, "the current value"},
    [COUNTER_E_PASS] = {"pass", 1, false, true, counter_pass, "count one item and pass it to out"},
};

static const qua_callout_def_t counter_callouts[] = {
    [COUNTER_C_OUT] = {"out", 1, false, NULL, "where pass sends items"},
};

static const qua_callback_def_t counter_callbacks[] = {
    [COUNTER_CB_THRESHOLD] = {"threshold", QUA_CB_BROADCAST, "an add crossed the threshold (arg: new value)"},
};

const qua_type_t qua__counter_type = {
    .name = "counter",
    .summary = "a 64-bit count; fires threshold when an add crosses a set value",
    .state_size = sizeof(counter_t),
    .params = counter_params,
    .nparams = 2,
    .entries = counter_entries,
    .nentries = 3,
    .callouts = counter_callouts,
    .ncallouts = 1,
    .callbacks = counter_callbacks,
    .ncallbacks = 1,
    .ops = {.init = counter_init,
            .describe = counter_describe,
            .sites_changed = counter_sites_changed,
            .site_synth = counter_site_synth,
            .recover = counter_recover},
    .storage_layout = (uint64_t)sizeof(counter_word_t) << 32 ^ 3,
};
