/* test-quaject.c -- the quaject model: creation parameters, wiring, watchers, destroy. */
#include <string.h>

#include "qtest.h"
#include "qua-impl.h"

static qua_quaject_t *make(const char *type, const char *const *params, int n) {
  qua_quaject_t *q = NULL;
  qua_error_t err = {0};
  int r = qua_create(type, params, n, &q, &err);
  CU_ASSERT_EQUAL_FATAL(r, QUA_OK);
  return q;
}

/* Creates and expects refusal with code and a message containing `needle`. */
static void refuse(const char *type, const char *const *params, int n, int code, const char *needle) {
  qua_quaject_t *q = (qua_quaject_t *)0x1;
  qua_error_t err = {0};
  int r = qua_create(type, params, n, &q, &err);
  CU_ASSERT_EQUAL(r, code);
  CU_ASSERT_EQUAL(err.code, code);
  CU_ASSERT_PTR_EQUAL(q, (qua_quaject_t *)0x1); /* nothing created */
  if (strstr(err.msg, needle) == NULL)
    fprintf(stderr, "\n  message '%s' lacks '%s'\n", err.msg, needle != NULL ? needle : "");
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
}

static void create_unknown_type_refused(void) {
  refuse("quasar", NULL, 0, QUA_ENOTYPE, "quasar");
  refuse(NULL, NULL, 0, QUA_ENOTYPE, "(null)");
}

static void create_unknown_param_refused(void) {
  const char *p[] = {"capacity=8", "colour=blue"};
  refuse("queue", p, 2, QUA_ENOPARAM, "colour");
}

static void create_malformed_param_refused(void) {
  const char *p1[] = {"capacity"};
  refuse("queue", p1, 1, QUA_EINVAL, "key=value");
  const char *p2[] = {"=8"};
  refuse("queue", p2, 1, QUA_EINVAL, "key=value");
  const char *p3[] = {"capacity=8", "capacity=16"};
  refuse("queue", p3, 2, QUA_EINVAL, "twice");
  const char *p4[] = {"capacity=12x"};
  refuse("queue", p4, 1, QUA_EBADVALUE, "not a number");
  const char *p5[] = {"capacity=-8"};
  refuse("queue", p5, 1, QUA_EBADVALUE, "not a number");
  const char *p6[] = {"capacity="};
  refuse("queue", p6, 1, QUA_EBADVALUE, "not a number");
  const char *p7[] = {"capacity=99999999999999999999999"};
  refuse("queue", p7, 1, QUA_EBADVALUE, "not a number");
  const char *p8[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1"};
  refuse("queue", p8, 1, QUA_ENOPARAM, "too long");
}

static void create_queue_capacity_limits(void) {
  const char *zero[] = {"capacity=0"};
  refuse("queue", zero, 1, QUA_ERANGE, "out of range 1..16777216");
  const char *three[] = {"capacity=3"};
  refuse("queue", three, 1, QUA_ERANGE, "not a power of two");
  const char *over[] = {"capacity=16777217"};
  refuse("queue", over, 1, QUA_ERANGE, "out of range");
  const char *over2[] = {"capacity=33554432"};
  refuse("queue", over2, 1, QUA_ERANGE, "out of range");
  const char *hex[] = {"capacity=0x1000000"}; /* 2^24: the largest */
  qua_quaject_t *q = make("queue", hex, 1);
  CU_ASSERT_EQUAL(qua_quaject_param(q, 0), 1u << 24);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
  const char *one[] = {"capacity=1"};
  q = make("queue", one, 1);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
}

static void create_defaults_apply(void) {
  qua_quaject_t *q = make("queue", NULL, 0);
  CU_ASSERT_EQUAL(qua_quaject_param(q, 0), 1024);
  char buf[128];
  qua_quaject_describe(q, buf, sizeof buf);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "capacity=1024"));
  qua_destroy(q, false, NULL);
}

/* The documented parameters of every library type (README's Types list and
 * each parameter's help): name, default, minimum, maximum. Stated here, not
 * read from the tables under test, so that a changed table fails. */
static const struct {
  const char *type, *name;
  uint64_t def, min, max;
} documented[] = {
    {"queue", "capacity", 1024, 1, 1u << 24},
    {"queue", "notify", 1, 0, 1},
    {"buffer", "capacity", 4096, 1, 1u << 24},
    {"counter", "initial", 0, 0, UINT64_MAX},
    {"counter", "threshold", INT64_MAX, 0, UINT64_MAX},
    {"pump", "count", 0, 0, UINT64_MAX},
    {"tee", "n", 2, 1, 8},
    {"clock", "period_us", 1000, 10, 3600000000u},
    {"clock", "count", 0, 0, UINT64_MAX},
};

static void create_every_type_param_limits(void) {
  /* Each documented minimum and maximum is accepted and one past either end
   * refused with ERANGE naming the parameter; every type's table holds
   * exactly the documented parameters, with the documented defaults. */
  const size_t n = sizeof documented / sizeof documented[0];
  for (size_t i = 0; i < n; i++) {
    const qua_type_t *t = qua_type_find(documented[i].type);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int found = -1;
    for (int j = 0; j < t->nparams; j++)
      if (strcmp(t->params[j].name, documented[i].name) == 0)
        found = j;
    if (found < 0)
      fprintf(stderr, "\n  %s has no parameter %s\n", documented[i].type, documented[i].name);
    CU_ASSERT_FATAL(found >= 0);
    CU_ASSERT_EQUAL(t->params[found].def, documented[i].def);
    char kv[96];
    uint64_t edges[2] = {documented[i].min, documented[i].max};
    for (int k = 0; k < 2; k++) {
      /* The 2^24-slot rings would make the test slow; the queue case above
       * covers capacity=2^24. */
      if (k == 1 && strcmp(documented[i].name, "capacity") == 0)
        continue;
      snprintf(kv, sizeof kv, "%s=%llu", documented[i].name, (unsigned long long)edges[k]);
      const char *p[] = {kv};
      qua_quaject_t *q = NULL;
      qua_error_t err;
      int r = qua_create(documented[i].type, p, 1, &q, &err);
      if (r != QUA_OK)
        fprintf(stderr, "\n  %s %s: %s\n", documented[i].type, kv, err.msg);
      CU_ASSERT_EQUAL(r, QUA_OK);
      if (q != NULL) {
        CU_ASSERT_EQUAL(qua_quaject_param(q, found), edges[k]);
        CU_ASSERT_EQUAL(qua_destroy(q, true, NULL), QUA_OK);
      }
    }
    if (documented[i].min > 0) {
      snprintf(kv, sizeof kv, "%s=%llu", documented[i].name, (unsigned long long)documented[i].min - 1);
      const char *p[] = {kv};
      refuse(documented[i].type, p, 1, QUA_ERANGE, documented[i].name);
    }
    if (documented[i].max < UINT64_MAX) {
      snprintf(kv, sizeof kv, "%s=%llu", documented[i].name, (unsigned long long)documented[i].max + 1);
      const char *p[] = {kv};
      refuse(documented[i].type, p, 1, QUA_ERANGE, documented[i].name);
    }
  }
  /* No parameter beyond the documented ones. */
  for (const qua_type_t *const *t = qua_types(); *t != NULL; t++) {
    int listed = 0;
    for (size_t i = 0; i < n; i++)
      listed += strcmp(documented[i].type, (*t)->name) == 0;
    if (listed != (*t)->nparams)
      fprintf(stderr, "\n  %s has %d parameters, %d documented\n", (*t)->name, (*t)->nparams, listed);
    CU_ASSERT_EQUAL(listed, (*t)->nparams);
  }
}

static void wire_checks_names_and_arity(void) {
  qua_quaject_t *pump = make("pump", NULL, 0);
  qua_quaject_t *q = make("queue", NULL, 0);
  qua_quaject_t *c = make("counter", NULL, 0);
  qua_error_t err;
  CU_ASSERT_EQUAL(qua_wire(pump, "spout", q, "put", &err), QUA_ENOCALLOUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "spout"));
  CU_ASSERT_EQUAL(qua_wire(pump, "sink", q, "push", &err), QUA_ENOENTRY);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "push"));
  /* source wants a result and no argument; put takes one and returns none */
  CU_ASSERT_EQUAL(qua_wire(pump, "source", q, "put", &err), QUA_EARITY);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "takes"));
  /* put_n takes pointers: not wireable */
  CU_ASSERT_EQUAL(qua_wire(pump, "sink", q, "put_n", &err), QUA_EARITY);
  CU_ASSERT_EQUAL(qua_wire(c, "out", c, "pass", &err), QUA_ESELF);
  CU_ASSERT_EQUAL(qua_unwire(pump, "sink", &err), QUA_ENOTWIRED);
  /* nothing changed: a good wire still works, then a second is refused */
  CU_ASSERT_EQUAL(qua_wire(pump, "sink", q, "put", &err), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(pump, "sink", c, "pass", &err), QUA_EWIRED);
  int entry = -1;
  CU_ASSERT_PTR_EQUAL(qua_wired_to(pump, qua_type_callout(qua_quaject_type(pump), "sink"), &entry), q);
  CU_ASSERT_EQUAL(entry, qua_type_entry(qua_quaject_type(q), "put"));
  CU_ASSERT_EQUAL(qua_unwire(pump, "sink", &err), QUA_OK);
  CU_ASSERT_PTR_NULL(qua_wired_to(pump, 1, NULL));
  qua_destroy(pump, false, NULL);
  qua_destroy(q, false, NULL);
  qua_destroy(c, false, NULL);
}

static void tee_outputs_limited_by_n(void) {
  const char *p[] = {"n=2"};
  qua_quaject_t *t = make("tee", p, 1);
  qua_quaject_t *c = make("counter", NULL, 0);
  qua_error_t err;
  CU_ASSERT_EQUAL(qua_wire(t, "out1", c, "pass", &err), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(t, "out2", c, "pass", &err), QUA_ENOCALLOUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out2"));
  qua_destroy(t, false, NULL);
  qua_destroy(c, false, NULL);
}

static void destroy_wired_target_refused_or_forced(void) {
  qua_quaject_t *t = make("tee", NULL, 0);
  qua_quaject_t *c = make("counter", NULL, 0);
  qua_error_t err;
  CU_ASSERT_EQUAL_FATAL(qua_wire(t, "out0", c, "pass", &err), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(c, false, &err), QUA_EBUSY);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "in use"));
  /* still wired and working */
  qua_site_t *s;
  CU_ASSERT_EQUAL(qua_site_open(t, "put", NULL, 0, &s, &err), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(s, 5, 0, NULL), QUA_OK);
  /* forced: the tee's callout is unwired first, never dangling */
  CU_ASSERT_EQUAL(qua_destroy(c, true, &err), QUA_OK);
  CU_ASSERT_PTR_NULL(qua_wired_to(t, 0, NULL));
  CU_ASSERT_EQUAL(qua_call(s, 5, 0, NULL), QUA_OK); /* out0 unwired: skipped */
  qua_site_close(s);
  CU_ASSERT_EQUAL(qua_destroy(t, false, NULL), QUA_OK);
}

static void destroy_leaves_user_sites_harmless(void) {
  qua_quaject_t *c = make("counter", NULL, 0);
  qua_site_t *s;
  uint64_t v = 0;
  CU_ASSERT_EQUAL(qua_site_open(c, "add", NULL, 0, &s, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(s, 2, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 2);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_EBUSY);
  CU_ASSERT_EQUAL(qua_destroy(c, true, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(s, 2, 0, &v), QUA_ESTATE);
  qua_site_close(s);
}

static void site_unknown_callback_refused(void) {
  qua_quaject_t *q = make("queue", NULL, 0);
  qua_site_t *s = (qua_site_t *)0x1;
  qua_error_t err;
  qua_bind_t h[] = {{"overflow", NULL, NULL}, {NULL, NULL, NULL}};
  CU_ASSERT_EQUAL(qua_site_open(q, "put", h, 0, &s, &err), QUA_ENOCALLBACK);
  CU_ASSERT_PTR_EQUAL(s, (qua_site_t *)0x1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "overflow"));
  CU_ASSERT_EQUAL(qua_site_open(q, "shove", NULL, 0, &s, &err), QUA_ENOENTRY);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK); /* no site was left open */
}

static void errors_have_names_and_messages(void) {
  CU_ASSERT_STRING_EQUAL(qua_err_name(QUA_EBUSY), "EBUSY");
  CU_ASSERT_STRING_EQUAL(qua_strerror(QUA_ENOTYPE), "no such quaject type");
  CU_ASSERT_STRING_EQUAL(qua_strerror(12345), "unknown error");
  CU_ASSERT_STRING_EQUAL(qua_strerror(QUA_OK), "success");
}

static void types_table_is_consistent(void) {
  int n = 0;
  for (const qua_type_t *const *t = qua_types(); *t != NULL; t++, n++) {
    CU_ASSERT_PTR_EQUAL(qua_type_find((*t)->name), *t);
    CU_ASSERT((*t)->nentries <= QUA_MAX_ENTRIES);
    CU_ASSERT((*t)->ncallouts <= QUA_MAX_CALLOUTS);
    CU_ASSERT((*t)->ncallbacks <= QUA_MAX_CALLBACKS);
    CU_ASSERT((*t)->nparams <= QUA_MAX_PARAMS);
    for (int e = 0; e < (*t)->nentries; e++) {
      CU_ASSERT_PTR_NOT_NULL((*t)->entries[e].generic);
      CU_ASSERT((*t)->entries[e].arity <= QUA_MAX_ARITY);
    }
  }
  CU_ASSERT_EQUAL(n, 6);
}

/* ---- A type from outside libqua (qua_create_with, qua_fire) ------------------- */

typedef struct ext_state {
  uint64_t value;
} ext_state_t;

static int ext_init(qua_quaject_t *q, const uint64_t *params) {
  ((ext_state_t *)qua_quaject_state(q))->value = params[0];
  return QUA_OK;
}

/* poke(x): fires "overflow" (invoker) when x > value, else "changed" (broadcast). */
static int ext_poke(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  (void)a1;
  (void)ret;
  ext_state_t *st = s->state;
  if (a0 > st->value) {
    qua_fire(s, 0, a0);
    return QUA_DIVERTED;
  }
  qua_fire(s, 1, a0);
  qua_fire(s, 7, a0); /* out of range: nothing */
  return QUA_OK;
}

static const qua_param_def_t ext_params[] = {{"limit", 10, 0, 100, 0, "the largest poke"}};
static const qua_entry_def_t ext_entries[] = {{"poke", 1, false, true, ext_poke, "poke"}};
static const qua_callback_def_t ext_callbacks[] = {
    {"overflow", QUA_CB_INVOKER, "too large"},
    {"changed", QUA_CB_BROADCAST, "accepted"},
};
static const qua_type_t ext_type = {
    .name = "ext",
    .summary = "a type defined by the test",
    .state_size = sizeof(ext_state_t),
    .params = ext_params,
    .nparams = 1,
    .entries = ext_entries,
    .nentries = 1,
    .callbacks = ext_callbacks,
    .ncallbacks = 2,
    .ops = {.init = ext_init},
};

typedef struct ext_heard {
  int cb[8];
  uint64_t arg[8];
  int n;
} ext_heard_t;

static void ext_heard(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  ext_heard_t *h = ctx;
  (void)from;
  if (h->n < 8) {
    h->cb[h->n] = cb;
    h->arg[h->n++] = arg;
  }
}

static void create_with_outside_type_and_fire(void) {
  qua_quaject_t *q = NULL;
  qua_error_t err = {0};
  const char *params[] = {"limit=5"};
  CU_ASSERT_EQUAL_FATAL(qua_create_with(&ext_type, params, 1, &q, &err), QUA_OK);
  CU_ASSERT_PTR_NULL(qua_type_find("ext")); /* not registered by name */
  const char *too_big[] = {"limit=101"};
  qua_quaject_t *none = NULL;
  CU_ASSERT_EQUAL(qua_create_with(&ext_type, too_big, 1, &none, &err), QUA_ERANGE);
  CU_ASSERT_PTR_NULL(none);
  /* Two callers with handlers for both callbacks, and a watcher. */
  ext_heard_t a = {0}, b = {0}, w = {0};
  qua_bind_t ha[] = {{"overflow", ext_heard, &a}, {"changed", ext_heard, &a}, {NULL, NULL, NULL}};
  qua_bind_t hb[] = {{"overflow", ext_heard, &b}, {"changed", ext_heard, &b}, {NULL, NULL, NULL}};
  qua_site_t *sa, *sb;
  CU_ASSERT_EQUAL_FATAL(qua_site_open(q, "poke", ha, 0, &sa, &err), QUA_OK);
  CU_ASSERT_EQUAL_FATAL(qua_site_open(q, "poke", hb, 0, &sb, &err), QUA_OK);
  qua_watch_t *wa;
  CU_ASSERT_EQUAL_FATAL(qua_watch(q, "overflow", ext_heard, &w, &wa, &err), QUA_OK);
  /* Invoker kind: only the calling site's handler, and the watcher. */
  CU_ASSERT_EQUAL(qua_call(sa, 9, 0, NULL), QUA_DIVERTED);
  CU_ASSERT_EQUAL(a.n, 1);
  CU_ASSERT_EQUAL(a.cb[0], 0);
  CU_ASSERT_EQUAL(a.arg[0], 9);
  CU_ASSERT_EQUAL(b.n, 0);
  CU_ASSERT_EQUAL(w.n, 1);
  /* Broadcast kind: every site's handler. */
  CU_ASSERT_EQUAL(qua_call(sa, 3, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(a.n, 2);
  CU_ASSERT_EQUAL(a.cb[1], 1);
  CU_ASSERT_EQUAL(b.n, 1);
  CU_ASSERT_EQUAL(b.arg[0], 3);
  CU_ASSERT_EQUAL(w.n, 1);
  qua_unwatch(wa);
  qua_site_close(sa);
  qua_site_close(sb);
  CU_ASSERT_EQUAL(qua_destroy(q, false, &err), QUA_OK);
}

/* qua_create_with() and qua_type_register() share one check: the same
 * table gets the same code from both. */
static void check_both(const qua_type_t *t, int want, const char *msg) {
  qua_error_t err = {0};
  qua_quaject_t *q = NULL;
  CU_ASSERT_EQUAL(qua_create_with(t, NULL, 0, &q, &err), want);
  CU_ASSERT_PTR_NULL(q);
  if (msg != NULL)
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
  qua_error_t rerr = {0};
  CU_ASSERT_EQUAL(qua_type_register(t, &rerr), want);
  CU_ASSERT_STRING_EQUAL(rerr.msg, err.msg);
}

static void create_with_refuses_tables_past_the_limits(void) {
  qua_error_t err = {0};
  qua_quaject_t *q = NULL;
  qua_type_t t = ext_type;
  t.nentries = QUA_MAX_ENTRIES + 1;
  check_both(&t, QUA_ELIMIT, "limits");
  t = ext_type;
  t.ncallbacks = QUA_MAX_CALLBACKS + 1;
  check_both(&t, QUA_ELIMIT, "limits");
  t = ext_type;
  t.nparams = -1;
  check_both(&t, QUA_EINVAL, "negative");
  t = ext_type;
  t.ops.init = NULL;
  check_both(&t, QUA_EINVAL, "init hook");
  char longname[QUA_NAME_MAX + 2];
  memset(longname, 'n', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  t = ext_type;
  t.name = longname;
  check_both(&t, QUA_EINVAL, "longer than");
  qua_entry_def_t bad_arity[] = {{"poke", QUA_MAX_ARITY + 1, false, true, ext_poke, "poke"}};
  t = ext_type;
  t.entries = bad_arity;
  check_both(&t, QUA_EINVAL, "ext.poke: arity");
  qua_entry_def_t no_code[] = {{"poke", 1, false, true, NULL, "poke"}};
  t = ext_type;
  t.entries = no_code;
  check_both(&t, QUA_EINVAL, "ext.poke: no generic code");
  CU_ASSERT_EQUAL(qua_create_with(NULL, NULL, 0, &q, &err), QUA_EINVAL);
  CU_ASSERT_PTR_NULL(q);
  /* At the limits: accepted. */
  qua_entry_def_t two[] = {{"poke", QUA_MAX_ARITY, false, true, ext_poke, "poke"}};
  t = ext_type;
  t.entries = two;
  CU_ASSERT_EQUAL(qua_create_with(&t, NULL, 0, &q, &err), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q, false, &err), QUA_OK);
  longname[QUA_NAME_MAX] = '\0';
  t = ext_type;
  t.name = longname;
  CU_ASSERT_EQUAL(qua_create_with(&t, NULL, 0, &q, &err), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q, false, &err), QUA_OK);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"create_unknown_type_refused", create_unknown_type_refused},
      {"create_unknown_param_refused", create_unknown_param_refused},
      {"create_malformed_param_refused", create_malformed_param_refused},
      {"create_queue_capacity_limits", create_queue_capacity_limits},
      {"create_defaults_apply", create_defaults_apply},
      {"create_every_type_param_limits", create_every_type_param_limits},
      {"wire_checks_names_and_arity", wire_checks_names_and_arity},
      {"tee_outputs_limited_by_n", tee_outputs_limited_by_n},
      {"destroy_wired_target_refused_or_forced", destroy_wired_target_refused_or_forced},
      {"destroy_leaves_user_sites_harmless", destroy_leaves_user_sites_harmless},
      {"site_unknown_callback_refused", site_unknown_callback_refused},
      {"errors_have_names_and_messages", errors_have_names_and_messages},
      {"types_table_is_consistent", types_table_is_consistent},
      {"create_with_outside_type_and_fire", create_with_outside_type_and_fire},
      {"create_with_refuses_tables_past_the_limits", create_with_refuses_tables_past_the_limits},
      {NULL, NULL}};
  return qtest_run("quaject", cases);
}
