/* tee-templates.c -- the tee's put as templates, one per number of outputs.
 *
 * The number of outputs is folded in by choosing the template. Each output
 * but the last is a call through a hole of its own (tt_callN) with the
 * wire's site (tt_siteN) as argument: synth.c lays out that site's code
 * with the tee's and binds the hole to it (a direct call), or, when the
 * site has no code to offer, points the hole at a function that calls
 * through the site. The last output is a tail call (tt_next), which a
 * chain replaces by falling through into that callentry's stencil. An
 * unwired output's site is the library's stub site, whose callentry
 * returns QUA_ENOTWIRED, as the generic tee expects. */
#include "qua.h"
#include "types-internal.h"

extern char tt_site0[], tt_site1[], tt_site2[], tt_site3[];
extern int tt_call0(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
extern int tt_call1(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
extern int tt_call2(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
extern int tt_next(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);

#define OUT(k, x) tt_call##k((qua_site_t *)(uintptr_t)tt_site##k, (x), 0, NULL)

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
 * unwired last output's tt_next is the library's stub returning QUA_OK),
 * else a call whose status is merged. */
static inline int last(int result, char *site, uint64_t x) {
  qua_site_t *s = (qua_site_t *)(uintptr_t)site;
  if (__builtin_expect(result == QUA_OK, 1))
    return tt_next(s, x, 0, NULL);
  return merge(result, tt_next(s, x, 0, NULL));
}

int tt_put1(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  return last(QUA_OK, tt_site0, x);
}

int tt_put2(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int r = merge(QUA_OK, OUT(0, x));
  return last(r, tt_site1, x);
}

int tt_put3(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int r = merge(QUA_OK, OUT(0, x));
  r = merge(r, OUT(1, x));
  return last(r, tt_site2, x);
}

int tt_put4(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  int r = merge(QUA_OK, OUT(0, x));
  r = merge(r, OUT(1, x));
  r = merge(r, OUT(2, x));
  return last(r, tt_site3, x);
}
