/* test-qj-host.c -- the same operations on a host queue (libqua) and an m68k queue give the same
 * results and callbacks. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qua.h"
#include "quaject68k.h"

#define OPS 2000
#define CAPACITY 4

typedef struct journal {
  char text[OPS * 24];
  size_t len;
} journal_t;

static void jprintf(journal_t *j, const char *what, unsigned long long arg) {
  j->len += (size_t)snprintf(j->text + j->len, sizeof j->text - j->len, "%s(%llu) ", what, arg);
}

/* Host handlers, one per callback (the host passes an index). */
#define HOST_NOTE(name)                                                                 \
  static void host_##name(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {      \
    jprintf(ctx, #name, (unsigned long long)arg);                                       \
  }
HOST_NOTE(full)
HOST_NOTE(notfull)
HOST_NOTE(empty)
HOST_NOTE(notempty)

static void m68k_note(void *ctx, const char *cb, uint32_t arg) { jprintf(ctx, cb, arg); }

static uint64_t rng_next(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* A seeded sequence of puts and gets, on both queues; `callers` sites or
 * attached callers per side (1: SP-SC code on both sides, 2: the MP code). */
static void same_results_and_callbacks(unsigned callers, uint64_t seed) {
  journal_t *jh = calloc(1, sizeof *jh), *jm = calloc(1, sizeof *jm);
  CU_ASSERT_PTR_NOT_NULL_FATAL(jh);
  CU_ASSERT_PTR_NOT_NULL_FATAL(jm);

  /* The host queue, its producer and consumer sites with the handlers. */
  qua_quaject_t *hq = NULL;
  const char *params[] = {"capacity=4"};
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", params, 1, &hq, NULL), QUA_OK);
  qua_bind_t ph[] = {{"full", host_full, jh}, {"notfull", host_notfull, jh}, {NULL, NULL, NULL}};
  qua_bind_t ch[] = {
      {"empty", host_empty, jh}, {"notempty", host_notempty, jh}, {NULL, NULL, NULL}};
  /* A second site on a side has its own full (empty) handler; the edges
   * are broadcast to every listener on the host, so only the first site
   * listens to them, as the m68k queue has one handler per callback. */
  qua_bind_t ph2[] = {{"full", host_full, jh}, {NULL, NULL, NULL}};
  qua_bind_t ch2[] = {{"empty", host_empty, jh}, {NULL, NULL, NULL}};
  qua_site_t *put[2] = {NULL, NULL}, *get[2] = {NULL, NULL};
  for (unsigned i = 0; i < callers; i++) {
    CU_ASSERT_EQUAL_FATAL(qua_site_open(hq, "put", i ? ph2 : ph, 0, &put[i], NULL), QUA_OK);
    CU_ASSERT_EQUAL_FATAL(qua_site_open(hq, "get", i ? ch2 : ch, 0, &get[i], NULL), QUA_OK);
  }

  /* The m68k queue, with host handlers for its callbacks. */
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68030, .ncpus = 2, .ram_size = M68K_QJ_RAM_MIN};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  m68k_qj_t *mq = NULL;
  CU_ASSERT_EQUAL_FATAL(m68k_qj_create(m, "queue", NULL, CAPACITY, &mq, NULL, 0), M68K_OK);
  for (unsigned cb = 0; m68k_qj_callback_name(mq, cb) != NULL; cb++)
    CU_ASSERT_EQUAL(m68k_qj_on_callback(mq, m68k_qj_callback_name(mq, cb), m68k_note, jm), 0);
  for (unsigned i = 0; i < callers; i++) {
    CU_ASSERT_EQUAL(m68k_qj_attach(mq, "put"), 0);
    CU_ASSERT_EQUAL(m68k_qj_attach(mq, "get"), 0);
  }
  const char *code;
  m68k_qj_entry_code(mq, "put", NULL, NULL, &code);
  CU_ASSERT_STRING_EQUAL(code, callers > 1 ? "put_mp_t" : "put_sp_t");

  uint64_t s = seed;
  for (unsigned op = 0; op < OPS; op++) {
    /* Runs of puts and of gets, so the queue goes full and empty often. */
    bool is_put = rng_next(&s) % 100 < (op / 50 % 2 ? 70 : 30);
    unsigned who = (unsigned)(rng_next(&s) % callers); /* which site, which CPU */
    uint64_t hv = 0;
    uint32_t mv = 0, item = op + 1;
    int hr = is_put ? qua_call(put[who], item, 0, NULL) : qua_call(get[who], 0, 0, &hv);
    int mr = m68k_qj_call(mq, who, is_put ? "put" : "get", item, &mv, NULL, NULL);
    jprintf(jh, is_put ? (hr == QUA_OK ? "put" : "refused") : (hr == QUA_OK ? "got" : "none"),
            is_put ? item : hv);
    jprintf(jm,
            is_put ? (mr == M68K_QJ_OK ? "put" : "refused") : (mr == M68K_QJ_OK ? "got" : "none"),
            is_put             ? item
            : mr == M68K_QJ_OK ? mv
                               : 0);
    CU_ASSERT(hr == QUA_OK || hr == QUA_DIVERTED);
    CU_ASSERT(mr == (hr == QUA_OK ? M68K_QJ_OK : is_put ? M68K_QJ_FULL : M68K_QJ_EMPTY));
    if (jh->len != jm->len || memcmp(jh->text, jm->text, jh->len) != 0) {
      fprintf(stderr, "\n  op %u differs:\n  host: ...%s\n  m68k: ...%s\n", op,
              jh->text + (jh->len > 120 ? jh->len - 120 : 0),
              jm->text + (jm->len > 120 ? jm->len - 120 : 0));
      CU_FAIL("the host and m68k queues differ");
      break;
    }
  }
  /* The sequence did reach every callback. */
  CU_ASSERT_PTR_NOT_NULL(strstr(jh->text, "notempty("));
  CU_ASSERT_PTR_NOT_NULL(strstr(jh->text, "notfull("));
  CU_ASSERT_PTR_NOT_NULL(strstr(jh->text, "full("));
  CU_ASSERT_PTR_NOT_NULL(strstr(jh->text, "empty("));

  for (unsigned i = 0; i < callers; i++) {
    qua_site_close(put[i]);
    qua_site_close(get[i]);
  }
  CU_ASSERT_EQUAL(qua_destroy(hq, false, NULL), QUA_OK);
  m68k_machine_destroy(m);
  free(jh);
  free(jm);
}

static void spsc_host_and_m68k_queues_agree(void) {
  for (uint64_t seed = 1; seed <= 5; seed++)
    same_results_and_callbacks(1, seed);
}

static void mpmc_host_and_m68k_queues_agree(void) {
  for (uint64_t seed = 1; seed <= 5; seed++)
    same_results_and_callbacks(2, seed);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return CU_get_error();
  CU_pSuite s = CU_add_suite("m68k-qj-host", NULL, NULL);
  CU_add_test(s, "spsc_host_and_m68k_queues_agree", spsc_host_and_m68k_queues_agree);
  CU_add_test(s, "mpmc_host_and_m68k_queues_agree", mpmc_host_and_m68k_queues_agree);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned fails = CU_get_number_of_failures();
  CU_cleanup_registry();
  return fails ? 1 : 0;
}
