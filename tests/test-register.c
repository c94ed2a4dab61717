/* test-register.c -- types defined outside libqua: registration, text and required parameters, init refusals, callbacks. */
#include <string.h>

#include "qtest-qua.h"

/* A small program-defined type: "echo", with a text parameter it keeps,
 * a required number, and a put that calls back "full" past a limit. */
typedef struct echo {
  char tag[16];
  uint64_t limit, n;
} echo_t;

enum { EP_TAG, EP_LIMIT };

static int echo_put(qua_site_t *s, uint64_t x, uint64_t a1, uint64_t *ret) {
  echo_t *e = s->state;
  if (e->n >= e->limit) {
    qua_fire(s, 0, x);
    return QUA_DIVERTED;
  }
  e->n++;
  return QUA_OK;
}

static int echo_init(qua_quaject_t *q, const uint64_t *params) {
  echo_t *e = qua_quaject_state(q);
  const char *tag = (const char *)(uintptr_t)params[EP_TAG];
  if (tag == NULL)
    tag = "none";
  if (strcmp(tag, "bad") == 0)
    return qua_refuse(QUA_EBADVALUE, "tag=%s: this tag is refused", tag);
  snprintf(e->tag, sizeof e->tag, "%s", tag);
  e->limit = params[EP_LIMIT];
  return QUA_OK;
}

static int echo_describe(const qua_quaject_t *q, char *buf, size_t len) {
  const echo_t *e = qua_quaject_state((qua_quaject_t *)q);
  return snprintf(buf, len, "tag=%s n=%llu", e->tag, (unsigned long long)e->n);
}

static const qua_param_def_t echo_params[] = {
    [EP_TAG] = {"tag", 0, 1, 8, QUA_PARAM_STRING, "a word"},
    [EP_LIMIT] = {"limit", 0, 1, 100, QUA_PARAM_REQUIRED, "puts taken"},
};
static const qua_entry_def_t echo_entries[] = {{"put", 1, false, true, echo_put, "count"}};
static const qua_callback_def_t echo_callbacks[] = {{"full", QUA_CB_INVOKER, "past the limit"},
                                                   {"ping", QUA_CB_BROADCAST, "on request"}};

static const qua_type_t echo_type = {
    .name = "echo",
    .summary = "a test type",
    .state_size = sizeof(echo_t),
    .params = echo_params,
    .nparams = 2,
    .entries = echo_entries,
    .nentries = 1,
    .callbacks = echo_callbacks,
    .ncallbacks = 2,
    .ops = {.init = echo_init, .describe = echo_describe},
};

static void count_cb(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  uint64_t *n = ctx;
  n[cb]++;
  n[2] = arg;
}

static void registered_type_is_found_and_runs(void) {
  qua_error_t err = {0};
  CU_ASSERT_EQUAL(qua_type_register(&echo_type, &err), QUA_OK);
  CU_ASSERT_PTR_EQUAL(qua_type_find("echo"), &echo_type);
  int n = 0;
  while (qua_types()[n] != NULL)
    n++;
  CU_ASSERT_PTR_EQUAL(qua_types()[n - 1], &echo_type);
  /* The same name twice: refused. */
  CU_ASSERT_EQUAL(qua_type_register(&echo_type, &err), QUA_EEXIST);
  CU_ASSERT(strstr(err.msg, "echo") != NULL);
  qua_quaject_t *q = qtest_make("echo", "tag=hello", "limit=2", NULL);
  char line[64];
  qua_quaject_describe(q, line, sizeof line);
  CU_ASSERT_STRING_EQUAL(line, "tag=hello n=0");
  CU_ASSERT_EQUAL(qua_quaject_param(q, EP_TAG), 0); /* text is not kept as a word */
  CU_ASSERT_EQUAL(qua_quaject_param(q, EP_LIMIT), 2);
  uint64_t heard[3] = {0};
  const qua_bind_t h[] = {{"full", count_cb, heard}, {"ping", count_cb, heard}, {NULL, NULL, NULL}};
  qua_site_t *s = qtest_site(q, "put", h, 0);
  CU_ASSERT_EQUAL(qua_call(s, 1, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(s, 2, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(s, 3, 0, NULL), QUA_DIVERTED);
  CU_ASSERT_EQUAL(heard[0], 1);
  CU_ASSERT_EQUAL(heard[2], 3);
  qua_broadcast(q, 1, 9); /* from outside any read-side section */
  CU_ASSERT_EQUAL(heard[1], 1);
  CU_ASSERT_EQUAL(heard[2], 9);
  qua_site_close(s);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
}

static void text_and_required_parameters_are_checked(void) {
  qua_quaject_t *q = NULL;
  qua_error_t err = {0};
  const char *none[] = {"tag=x"};
  CU_ASSERT_EQUAL(qua_create("echo", none, 1, &q, &err), QUA_EINVAL);
  CU_ASSERT(strstr(err.msg, "echo needs limit=") != NULL);
  const char *empty[] = {"tag=", "limit=1"};
  CU_ASSERT_EQUAL(qua_create("echo", empty, 2, &q, &err), QUA_ERANGE);
  CU_ASSERT(strstr(err.msg, "tag: 0 characters, expected 1 to 8") != NULL);
  /* At the length limit and past it. */
  const char *eight[] = {"tag=12345678", "limit=1"}, *nine[] = {"tag=123456789", "limit=1"};
  CU_ASSERT_EQUAL(qua_create("echo", eight, 2, &q, &err), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q, false, NULL), QUA_OK);
  q = NULL;
  CU_ASSERT_EQUAL(qua_create("echo", nine, 2, &q, &err), QUA_ERANGE);
  CU_ASSERT(strstr(err.msg, "9 characters") != NULL);
  /* init's refusal carries its reason; nothing is created. */
  const char *bad[] = {"tag=bad", "limit=1"};
  CU_ASSERT_EQUAL(qua_create("echo", bad, 2, &q, &err), QUA_EBADVALUE);
  CU_ASSERT_STRING_EQUAL(err.msg, "echo: tag=bad: this tag is refused");
  CU_ASSERT_PTR_NULL(q);
  /* A refusal's reason does not leak into the next failure. */
  const char *zero[] = {"limit=0"};
  CU_ASSERT_EQUAL(qua_create("echo", zero, 1, &q, &err), QUA_ERANGE);
  CU_ASSERT(strstr(err.msg, "this tag") == NULL);
}

static qua_type_t extra[QUA_MAX_EXTRA_TYPES + 1];
static char extra_names[QUA_MAX_EXTRA_TYPES + 1][16];

static void registration_stops_at_the_limit(void) {
  qua_error_t err = {0};
  /* echo holds one slot already. */
  for (int i = 0; i < QUA_MAX_EXTRA_TYPES; i++) {
    extra[i] = echo_type;
    snprintf(extra_names[i], sizeof extra_names[i], "echo%d", i);
    extra[i].name = extra_names[i];
    int r = qua_type_register(&extra[i], &err);
    CU_ASSERT_EQUAL(r, i < QUA_MAX_EXTRA_TYPES - 1 ? QUA_OK : QUA_ELIMIT);
  }
  CU_ASSERT(strstr(err.msg, "types registered, the limit") != NULL);
  CU_ASSERT_PTR_NULL(qua_type_find(extra_names[QUA_MAX_EXTRA_TYPES - 1]));
  CU_ASSERT_PTR_NOT_NULL(qua_type_find(extra_names[QUA_MAX_EXTRA_TYPES - 2]));
  /* Tables that break the model are refused. */
  qua_type_t broken = echo_type;
  broken.name = "broken";
  broken.nparams = QUA_MAX_PARAMS + 1;
  CU_ASSERT_EQUAL(qua_type_register(&broken, &err), QUA_ELIMIT);
  broken.nparams = 2;
  broken.ops.init = NULL;
  CU_ASSERT_EQUAL(qua_type_register(&broken, &err), QUA_EINVAL);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"registered_type_is_found_and_runs", registered_type_is_found_and_runs},
      {"text_and_required_parameters_are_checked", text_and_required_parameters_are_checked},
      {"registration_stops_at_the_limit", registration_stops_at_the_limit},
      {NULL, NULL}};
  return qtest_run("register", cases);
}
