/* tee-templates.c -- the tee's put as templates, one per number of outputs.
 *
 * The number of outputs is folded in by choosing the template; each output
 * is a direct call through the wire's site (tt_siteN), whose code address
 * the site holds; the last output is a tail call (tt_next), which a chain
 * replaces by falling through into that callentry's stencil. An unwired
 * output's site is the library's stub site, whose callentry returns
 * QUA_ENOTWIRED, as the generic tee expects. */
#include "qua.h"
#include "types-internal.h"

extern char tt_site0[], tt_site1[], tt_site2[], tt_site3[];
extern int tt_next(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);

static inline int out(char *site, uint64_t x) {
  qua_site_t *s = (qua_site_t *)(uintptr_t)site;
  return __atomic_load_n(&s->fn, __ATOMIC_ACQUIRE)(s, x, 0, NULL);
}

/* Folds one output's status into the tee's: QUA_DIVERTED when some output
 * diverted, else the first error, else QUA_OK (as tee.c). */
static inline int merge(int result, int r) {
  if (r == QUA_ENOTWIRED || r == QUA_OK)
    return result;
  if (result == QUA_OK || (result == QUA_DIVERTED && r < 0))
    return r;
  return result;
}

/* The last output: a tail call when nothing before it diverted (an
 * unwired last output's tt_next is the library's stub returning QUA_OK). */
static inline int last(int result, char *site, uint64_t x) {
  if (__builtin_expect(result == QUA_OK, 1))
    return tt_next((qua_site_t *)(uintptr_t)site, x, 0, NULL);
  return merge(result, out(site, x));
}

int tt_put1(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  return last(QUA_OK, tt_site0, x);
}

int tt_put2(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int r = merge(QUA_OK, out(tt_site0, x));
  return last(r, tt_site1, x);
}

int tt_put3(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int r = merge(QUA_OK, out(tt_site0, x));
  r = merge(r, out(tt_site1, x));
  return last(r, tt_site2, x);
}

int tt_put4(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int r = merge(QUA_OK, out(tt_site0, x));
  r = merge(r, out(tt_site1, x));
  r = merge(r, out(tt_site2, x));
  return last(r, tt_site3, x);
}
