/* tee.c -- the tee quaject: copies each item to each of its n outputs. */
#include <inttypes.h>

#include "qua-internal.h"
#include "types-internal.h"
#include "tee-stencils.h"

enum { P_N };

/* put(x): calls out0..out{n-1} in order with x, skipping unwired ones.
 * Returns QUA_DIVERTED when some output diverted (was full), else the
 * first error, else QUA_OK. */
static int tee_put(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  const tee_t *t = s->state;
  int result = QUA_OK;
  for (int i = 0; i < t->n; i++) {
    int r = qua_callout(s->target, i, x, 0, NULL);
    if (r == QUA_ENOTWIRED || r == QUA_OK)
      continue;
    if (result == QUA_OK || (result == QUA_DIVERTED && r < 0))
      result = r;
  }
  return result;
}

/* put has templates for 1 to 4 outputs (tee-templates.c); the last
 * output chains into what it is wired to. */
static int tee_site_synth(qua_quaject_t *q, qua_site_t *s, qua_synth_part_t *part) {
  static const jit_template_t *const tmpl[] = {NULL, &tt_tmpl_tt_put1, &tt_tmpl_tt_put2,
                                               &tt_tmpl_tt_put3, &tt_tmpl_tt_put4};
  static const char *const hole[] = {"tt_site0", "tt_site1", "tt_site2", "tt_site3"};
  static const char *const call[] = {"tt_call0", "tt_call1", "tt_call2"};
  const tee_t *t = QUA__STATE(q, const tee_t);
  if (s->entry != TEE_E_PUT || t->n > 4)
    return QUA_ENOENTRY;
  part->tmpl = tmpl[t->n];
  part->variant = "tee";
  for (int i = 0; i < t->n; i++) {
    qua_site_t *o = atomic_load_explicit(&q->outs[i], memory_order_relaxed);
    qua__synth_hole(part, hole[i], (uint64_t)(uintptr_t)(o != NULL ? o : &qua__unwired_site));
    if (i == t->n - 1) {
      part->next_hole = "tt_next";
      part->next_site = o;
    } else {
      /* Called directly, its own code laid out with the tee's. */
      part->calls[part->ncalls].hole = call[i];
      part->calls[part->ncalls].site = o != NULL ? o : &qua__unwired_site;
      part->ncalls++;
    }
  }
  return QUA_OK;
}

static int tee_init(qua_quaject_t *q, const uint64_t *p) {
  QUA__STATE(q, tee_t)->n = (int)p[P_N];
  return QUA_OK;
}

static int tee_describe(const qua_quaject_t *q, char *buf, size_t len) {
  return snprintf(buf, len, "outputs=%d", QUA__STATE(q, const tee_t)->n);
}

static int tee_callouts_in_use(const qua_quaject_t *q) { return QUA__STATE(q, const tee_t)->n; }

static const qua_param_def_t tee_params[] = {
    [P_N] = {"n", 2, 1, TEE_MAX, 0, "number of outputs (out0..out{n-1})"},
};

static const qua_entry_def_t tee_entries[] = {
    [TEE_E_PUT] = {"put", 1, false, true, tee_put, "copy the item to every output"},
};

#define TEE_OUT(i) {"out" #i, 1, false, NULL, "output " #i}
static const qua_callout_def_t tee_callouts[TEE_MAX] = {
    TEE_OUT(0), TEE_OUT(1), TEE_OUT(2), TEE_OUT(3),
    TEE_OUT(4), TEE_OUT(5), TEE_OUT(6), TEE_OUT(7),
};

const qua_type_t qua__tee_type = {
    .name = "tee",
    .summary = "copies each item to each of its n outputs",
    .state_size = sizeof(tee_t),
    .params = tee_params,
    .nparams = 1,
    .entries = tee_entries,
    .nentries = 1,
    .callouts = tee_callouts,
    .ncallouts = TEE_MAX,
    .ops = {.init = tee_init,
            .describe = tee_describe,
            .callouts_in_use = tee_callouts_in_use,
            .site_synth = tee_site_synth},
};
