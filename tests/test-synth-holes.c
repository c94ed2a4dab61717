/* test-synth-holes.c -- a type that names its template's holes wrongly, or too many of them,
 * runs generic code and says why; the built-in templates fit QUA_SYNTH_HOLES. */
#include <string.h>

#include "qtest-qua.h"
#include "qua-internal.h"
#include "types-internal.h"
#include "buffer-stencils.h"
#include "counter-stencils.h"
#include "pump-stencils.h"
#include "queue-stencils.h"
#include "tee-stencils.h"

/* "holey": the counter's add template, with holes named as `names` says. */
static const char *const *names; /* NULL-terminated: the hole names this type gives */

static int holey_add(qua_site_t *s, uint64_t delta, uint64_t a1, uint64_t *ret) {
  counter_t *c = s->state;
  *ret = (uint64_t)(atomic_fetch_add(&c->own.value, (int64_t)delta) + (int64_t)delta);
  return QUA_OK;
}

static int holey_crossed(qua_quaject_t *q, uint64_t after, qua_site_t *out, uint64_t x,
                         uint64_t *ret) {
  return QUA_OK;
}

static int holey_synth(qua_quaject_t *q, qua_site_t *s, qua_synth_part_t *part) {
  counter_t *c = qua_quaject_state(q);
  part->tmpl = &ct_tmpl_ct_add;
  part->variant = "add";
  for (int i = 0; names[i] != NULL; i++) {
    uint64_t v = 0;
    if (strcmp(names[i], "ct_counter") == 0)
      v = (uint64_t)(uintptr_t)&c->own;
    else if (strcmp(names[i], "ct_threshold") == 0)
      v = (uint64_t)INT64_MAX;
    else if (strcmp(names[i], "ct_target") == 0)
      v = (uint64_t)(uintptr_t)q;
    else if (strcmp(names[i], "ct_listen") == 0)
      v = QUA__LISTEN_NONE;
    else if (strcmp(names[i], "ct_crossed") == 0)
      v = (uint64_t)(uintptr_t)holey_crossed;
    qua__synth_hole(part, names[i], v);
  }
  return QUA_OK;
}

static int holey_init(qua_quaject_t *q, const uint64_t *p) { return QUA_OK; }

static const qua_entry_def_t holey_entries[] = {
    {"add", 1, true, true, holey_add, "add a delta"},
};

static const qua_type_t holey_type = {
    .name = "holey",
    .summary = "the counter's add, holes named by the test",
    .state_size = sizeof(counter_t),
    .entries = holey_entries,
    .nentries = 1,
    .ops = {.init = holey_init, .site_synth = holey_synth},
};

/* Creates a holey quaject, opens add, and checks what it runs (its
 * description contains `impl`) and that add works. */
static void holey_check(const char *impl) {
  qua_quaject_t *q = NULL;
  const char *p[] = {"synth=stencil"};
  qua_error_t err = {0};
  int r = qua_create_with(&holey_type, p, 1, &q, &err);
  if (r != QUA_OK)
    fprintf(stderr, "\n  create holey: %s\n", err.msg);
  CU_ASSERT_EQUAL_FATAL(r, QUA_OK);
  qua_site_t *s = qtest_site(q, "add", NULL, 0);
  char buf[256];
  uint64_t ns = 0;
  qua_quaject_entry_info(q, 0, buf, sizeof buf, &ns);
  if (strstr(buf, impl) == NULL)
    fprintf(stderr, "\n  holey.add runs '%s', wanted '%s'\n", buf, impl);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, impl));
  uint64_t ret = 0;
  CU_ASSERT_EQUAL(qua_call(s, 5, 0, &ret), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(s, 2, 0, &ret), QUA_OK);
  CU_ASSERT_EQUAL(ret, 7);
  qua_site_close(s);
  qua_destroy(q, false, NULL);
}

static void correctly_named_holes_synthesise(void) {
  static const char *const ok[] = {"ct_counter", "ct_threshold", "ct_target",
                                   "ct_out_site", "ct_listen",   "ct_crossed", NULL};
  names = ok;
  holey_check("stencil add");
}

/* Before, ct_counter was patched with 0 and the first add crashed. */
static void misspelled_hole_fails_synthesis_with_its_name(void) {
  static const char *const typo[] = {"ct_countr",  "ct_threshold", "ct_target",
                                     "ct_out_site", "ct_listen",   "ct_crossed", NULL};
  names = typo;
  holey_check("generic, no hole ct_countr in ct_add");
}

static void unnamed_hole_the_template_uses_fails_synthesis_with_its_name(void) {
  static const char *const missing[] = {"ct_threshold", "ct_target", "ct_out_site",
                                        "ct_listen",    "ct_crossed", NULL};
  names = missing;
  holey_check("generic, hole ct_counter of ct_add has no value");
}

/* QUA_SYNTH_HOLES names synthesise (a name may repeat: the first counts);
 * one more runs generic, and the reason says so rather than "no template". */
static void holes_past_the_limit_say_so(void) {
  static const char *many[QUA_SYNTH_HOLES + 2];
  static const char *const real[] = {"ct_counter", "ct_threshold", "ct_target",
                                     "ct_out_site", "ct_listen", "ct_crossed"};
  for (int i = 0; i < QUA_SYNTH_HOLES + 1; i++)
    many[i] = real[i < 6 ? i : 5];
  many[QUA_SYNTH_HOLES] = NULL;
  names = many;
  holey_check("stencil add");
  many[QUA_SYNTH_HOLES] = "ct_crossed";
  many[QUA_SYNTH_HOLES + 1] = NULL;
  holey_check("generic, the type names more holes than QUA_SYNTH_HOLES");
}

static void builtin_templates_fit_the_hole_limit(void) {
  const jit_stencil_set_t *sets[] = {&bt_set, &ct_set, &pt_set, &qt_set, &tt_set};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    if (sets[i]->nholes > QUA_SYNTH_HOLES)
      fprintf(stderr, "\n  %s: %u holes\n", sets[i]->prefix, sets[i]->nholes);
    CU_ASSERT(sets[i]->nholes <= QUA_SYNTH_HOLES);
  }
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"correctly_named_holes_synthesise", correctly_named_holes_synthesise},
      {"misspelled_hole_fails_synthesis_with_its_name",
       misspelled_hole_fails_synthesis_with_its_name},
      {"unnamed_hole_the_template_uses_fails_synthesis_with_its_name",
       unnamed_hole_the_template_uses_fails_synthesis_with_its_name},
      {"holes_past_the_limit_say_so", holes_past_the_limit_say_so},
      {"builtin_templates_fit_the_hole_limit", builtin_templates_fit_the_hole_limit},
      {NULL, NULL}};
  return qtest_run("synth-holes", cases);
}
