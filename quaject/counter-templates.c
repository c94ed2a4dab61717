/* counter-templates.c -- the counter's add and pass as templates with holes.
 *
 * The counter's address and its threshold are folded in; pass ends in a
 * tail call to the callentry its "out" callout is wired to (ct_next), which
 * a chain replaces by falling through into that callentry's own stencil.
 * The _1w forms are for a counter with one writer site (counter.c chooses,
 * and switches with a grace period when a second writer comes): a plain
 * load and store instead of an atomic read-modify-write; readers on other
 * threads still see whole values. */
#include "qua.h"
#include "types-internal.h"

extern char ct_counter[], ct_threshold[], ct_target[], ct_out_site[];
extern int ct_next(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
void qua__broadcast(qua_quaject_t *q, int cb, uint64_t arg);

#define CT ((counter_t *)(uintptr_t)ct_counter)
#define CT_THRESHOLD ((int64_t)(uintptr_t)ct_threshold)

static inline void crossed(int64_t before, int64_t after) {
  if (__builtin_expect((before < CT_THRESHOLD) != (after < CT_THRESHOLD), 0))
    qua__broadcast((qua_quaject_t *)(uintptr_t)ct_target, COUNTER_CB_THRESHOLD, (uint64_t)after);
}

int ct_add(qua_site_t *s, uint64_t delta, uint64_t a1, uint64_t *ret) {
  int64_t before = atomic_fetch_add_explicit(&CT->value, (int64_t)delta, memory_order_relaxed);
  int64_t after = (int64_t)((uint64_t)before + delta);
  *ret = (uint64_t)after;
  crossed(before, after);
  return QUA_OK;
}

int ct_pass(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int64_t before = atomic_fetch_add_explicit(&CT->value, 1, memory_order_relaxed);
  crossed(before, before + 1);
  return ct_next((qua_site_t *)(uintptr_t)ct_out_site, x, 0, ret);
}

static inline int64_t add_1w(int64_t delta) {
  int64_t before = atomic_load_explicit(&CT->value, memory_order_relaxed);
  atomic_store_explicit(&CT->value, before + delta, memory_order_relaxed);
  return before;
}

int ct_add_1w(qua_site_t *s, uint64_t delta, uint64_t a1, uint64_t *ret) {
  int64_t before = add_1w((int64_t)delta);
  int64_t after = (int64_t)((uint64_t)before + delta);
  *ret = (uint64_t)after;
  crossed(before, after);
  return QUA_OK;
}

int ct_pass_1w(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int64_t before = add_1w(1);
  crossed(before, before + 1);
  return ct_next((qua_site_t *)(uintptr_t)ct_out_site, x, 0, ret);
}
