/* counter-templates.c -- the counter's add and pass as templates with holes.
 *
 * The counter's word (counter_word_t: in its storage when it has some) and
 * its threshold are folded in, and whether
 * anybody listens to "threshold" (ct_listen, QUA__LISTEN_NONE or not):
 * with nobody listening the crossing test is left out altogether. pass ends in a tail call to the callentry its "out"
 * callout is wired to (ct_next), which a chain replaces by falling through
 * into that callentry's own stencil. The _1w forms are for a counter with
 * one writer site (counter.c chooses, and switches with a grace period
 * when a second writer comes): a plain load and store instead of an atomic
 * read-modify-write; readers on other threads still see whole values. */
#include "qua.h"
#include "types-internal.h"

extern char ct_counter[], ct_threshold[], ct_target[], ct_out_site[];
extern char ct_listen[1]; /* a small number: a 32-bit immediate (queue-templates.c) */
extern int ct_next(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
extern int ct_crossed(qua_quaject_t *q, uint64_t after, qua_site_t *out, uint64_t x, uint64_t *ret);

#define CT ((counter_word_t *)(uintptr_t)ct_counter)
#define CT_THRESHOLD ((int64_t)(uintptr_t)ct_threshold)
#define CT_TARGET ((qua_quaject_t *)(uintptr_t)ct_target)
#define CT_OUT ((qua_site_t *)(uintptr_t)ct_out_site)

/* An add from before to after crossed the threshold, and someone listens.
 * The _q forms are for nobody listening (counter.c chooses them, and the
 * first listener resynthesises): heard is 0 and the test is left out. */
static inline bool crossed(bool heard, int64_t before, int64_t after) {
  return heard && (uintptr_t)ct_listen != QUA__LISTEN_NONE &&
         __builtin_expect((before < CT_THRESHOLD) != (after < CT_THRESHOLD), 0);
}

static inline int64_t add_atomic(int64_t delta) {
  return atomic_fetch_add_explicit(&CT->value, delta, memory_order_relaxed);
}

static inline int64_t add_1w(int64_t delta) {
  int64_t before = atomic_load_explicit(&CT->value, memory_order_relaxed);
  atomic_store_explicit(&CT->value, counter_wrap_add(before, (uint64_t)delta), memory_order_relaxed);
  return before;
}

/* The rare case, a crossing someone hears, is a tail call (counter.c), so
 * the common case needs no stack frame. */
#define CT_ADD(name, add, heard)                                                \
  int ct_##name(qua_site_t *s, uint64_t delta, uint64_t a1, uint64_t *ret) {    \
    int64_t before = add((int64_t)delta);                                       \
    int64_t after = counter_wrap_add(before, delta);                            \
    *ret = (uint64_t)after;                                                     \
    if (crossed(heard, before, after))                                          \
      return ct_crossed(CT_TARGET, (uint64_t)after, NULL, 0, NULL);             \
    return QUA_OK;                                                              \
  }
#define CT_PASS(name, add, heard)                                               \
  int ct_##name(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {        \
    int64_t before = add(1);                                                    \
    int64_t after = counter_wrap_add(before, 1);                                \
    if (crossed(heard, before, after))                                          \
      return ct_crossed(CT_TARGET, (uint64_t)after, CT_OUT, x, ret);            \
    return ct_next(CT_OUT, x, 0, ret);                                          \
  }
/* stencilgen names them ct_tmpl_ct_<name>. */
CT_ADD(add, add_atomic, 1)
CT_PASS(pass, add_atomic, 1)
CT_ADD(add_1w, add_1w, 1)
CT_PASS(pass_1w, add_1w, 1)
CT_ADD(add_q, add_atomic, 0)
CT_PASS(pass_q, add_atomic, 0)
CT_ADD(add_1w_q, add_1w, 0)
CT_PASS(pass_1w_q, add_1w, 0)
