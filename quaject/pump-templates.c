/* pump-templates.c -- the pump's step as a template with holes.
 *
 * The step moves up to n items from the source to the sink. Each of its
 * two callouts is folded in as a direct call to the code its wire's site
 * runs at synthesis time (pt_source, pt_sink), with that site as the
 * argument (pt_source_site, pt_sink_site): no load of the wire, of the
 * site's code pointer, or of the unwired check per item (collapsing the
 * callout layer). Whenever a wire's site gets new code the step is rebuilt
 * in the same pass (synth.c, note 4). pt_hold is where an item the sink
 * refused is left for the pump's thread. */
#include "qua.h"
#include "types-internal.h"

extern char pt_source_site[], pt_sink_site[], pt_hold[];
extern int pt_source(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
extern int pt_sink(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);

/* Returns QUA_OK with *ret = n, or the status of the call that stopped the
 * step early with *ret the items moved before it; when that call was the
 * sink's, the item is in the hold. */
int pt_step(qua_site_t *s, uint64_t n, uint64_t a1, uint64_t *ret) {
  uint64_t k = 0, x;
  int r = QUA_OK;
  while (k < n) {
    r = pt_source((qua_site_t *)(uintptr_t)pt_source_site, 0, 0, &x);
    if (__builtin_expect(r != QUA_OK, 0))
      break;
    r = pt_sink((qua_site_t *)(uintptr_t)pt_sink_site, x, 0, NULL);
    if (__builtin_expect(r != QUA_OK, 0)) {
      pump_hold_t *h = (pump_hold_t *)(uintptr_t)pt_hold;
      h->item = x;
      h->held = true;
      break;
    }
    k++;
  }
  *ret = k;
  return r;
}
