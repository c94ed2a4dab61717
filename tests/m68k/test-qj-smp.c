/* test-qj-smp.c -- m68k quajects driven from both CPUs under 1,000 seeded random schedules each,
 * invariants checked. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "quaject68k.h"

#define SCHEDULES 1000
#define ITEMS 24

typedef struct algo {
  const char *type, *variant;
  unsigned producers, consumers;
  uint32_t capacity;
  bool cas2; /* every successful removal executes a CAS2 */
  bool folded; /* the loops run the entries' folded forms inline */
} algo_t;

/* One drive under random:SEED:MAX; fails the case on any broken
 * invariant, naming the seed. Returns the result. */
static m68k_qj_drive_result_t drive(const algo_t *a, uint64_t seed, uint32_t max_slice) {
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68030, .ncpus = 2, .ram_size = M68K_QJ_RAM_MIN};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  m68k_schedule_t s = {.kind = M68K_SCHED_RANDOM, .seed = seed, .max_slice = max_slice};
  CU_ASSERT_EQUAL_FATAL(m68k_machine_set_schedule(m, &s), M68K_OK);
  m68k_qj_t *q = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(m68k_qj_create(m, a->type, a->variant, a->capacity, &q, err, sizeof err),
                        M68K_OK);
  m68k_qj_drive_options_t o = {.producers = a->producers, .consumers = a->consumers,
                               .items = ITEMS, .limit = 2000000, .folded = a->folded};
  m68k_qj_drive_result_t r;
  int rc = m68k_qj_drive(q, &o, &r, err, sizeof err);
  if (rc != M68K_OK || r.lost || r.dup || r.reordered)
    fprintf(stderr, "\n  %s %s%s random:%llu:%u: rc %d (%s) lost %u dup %u reordered %u\n",
            a->type, a->variant ? a->variant : "", a->folded ? " folded" : "",
            (unsigned long long)seed, max_slice, rc, err, r.lost, r.dup, r.reordered);
  CU_ASSERT_EQUAL(rc, M68K_OK);
  CU_ASSERT_EQUAL(r.machine.status, M68K_MACHINE_DEADLOCK); /* both loops done */
  CU_ASSERT_EQUAL(r.lost, 0);
  CU_ASSERT_EQUAL(r.dup, 0);
  CU_ASSERT_EQUAL(r.reordered, 0);
  CU_ASSERT_EQUAL(strcmp(a->type, "counter") == 0 ? r.count : r.received, ITEMS);
  if (a->cas2)
    CU_ASSERT(r.cas2[0] + r.cas2[1] >= ITEMS);
  m68k_machine_destroy(m);
  return r;
}

static void under_random_schedules(const algo_t *a) {
  for (uint64_t seed = 1; seed <= SCHEDULES; seed++)
    drive(a, seed, 1 + (uint32_t)(seed % 8));
}

static void counter_cas_survives_random_schedules(void) {
  under_random_schedules(&(algo_t){"counter", NULL, 2, 1, 0, false});
}

static void stack_cas2_survives_random_schedules(void) {
  under_random_schedules(&(algo_t){"stack", NULL, 2, 2, 4, true});
}

static void queue_cas2_mpmc_survives_random_schedules(void) {
  under_random_schedules(&(algo_t){"queue", NULL, 2, 2, 4, true});
}

/* Two producers on CAS2 code, one consumer on SP-SC code (design note Q4:
 * the forms mix). */
static void queue_mpsc_mixed_code_survives_random_schedules(void) {
  under_random_schedules(&(algo_t){"queue", NULL, 2, 1, 4, false});
}

static void list_cas2_survives_random_schedules(void) {
  under_random_schedules(&(algo_t){"list", NULL, 2, 2, ITEMS, true});
}

/* One producer and one consumer run the SP-SC code: no CAS2 at all. */
static void queue_spsc_survives_random_schedules_without_cas2(void) {
  algo_t a = {"queue", NULL, 1, 1, 4, false};
  for (uint64_t seed = 1; seed <= SCHEDULES; seed++) {
    m68k_qj_drive_result_t r = drive(&a, seed, 1 + (uint32_t)(seed % 8));
    CU_ASSERT_EQUAL(r.cas2[0] + r.cas2[1], 0);
    CU_ASSERT_STRING_EQUAL(r.code[0], "put_sp");
    CU_ASSERT_STRING_EQUAL(r.code[1], "get_sc");
  }
}

/* The seeded bug is real: the stack with CAS instead of CAS2 loses and
 * duplicates items under some of the first random schedules (which ones
 * moves with the code's length; the checker, not this test, is what must
 * find such schedules). */
static void broken_stack_fails(bool folded) {
  bool shown = false;
  for (uint64_t seed = 1; seed <= 64 && !shown; seed++) {
    m68k_machine_config_t cfg = {
        .model = M68K_MODEL_68030, .ncpus = 2, .ram_size = M68K_QJ_RAM_MIN};
    m68k_machine_t *m = m68k_machine_create(&cfg);
    m68k_schedule_t s = {.kind = M68K_SCHED_RANDOM, .seed = seed, .max_slice = 4};
    m68k_machine_set_schedule(m, &s);
    m68k_qj_t *q = NULL;
    CU_ASSERT_EQUAL_FATAL(m68k_qj_create(m, "stack", "broken", 4, &q, NULL, 0), M68K_OK);
    m68k_qj_drive_options_t o = {.producers = 2, .consumers = 2, .items = 16, .folded = folded};
    m68k_qj_drive_result_t r;
    CU_ASSERT_EQUAL(m68k_qj_drive(q, &o, &r, NULL, 0), M68K_OK);
    CU_ASSERT_STRING_EQUAL(r.code[0], "push_broken");
    shown = r.lost > 0 && r.dup > 0;
    m68k_machine_destroy(m);
  }
  CU_ASSERT_TRUE(shown);
}

static void broken_stack_fails_under_a_seeded_schedule(void) { broken_stack_fails(false); }

static void folded_broken_stack_fails_under_a_seeded_schedule(void) { broken_stack_fails(true); }

/* The folded loops (m68k_qj_drive's `folded`) under the same schedules:
 * the same algorithms, run inline in the loops, keep every item. */
static void folded_algorithms_survive_random_schedules(void) {
  const algo_t as[] = {
      {"counter", NULL, 2, 1, 0, false, true}, {"stack", NULL, 2, 2, 4, true, true},
      {"queue", NULL, 2, 2, 4, true, true},    {"queue", NULL, 2, 1, 4, false, true},
      {"queue", NULL, 1, 1, 4, false, true},   {"list", NULL, 2, 2, ITEMS, true, true},
  };
  for (size_t i = 0; i < sizeof as / sizeof as[0]; i++)
    for (uint64_t seed = 1; seed <= SCHEDULES; seed++)
      drive(&as[i], seed, 1 + (uint32_t)(seed % 8));
}

/* Measured in the folded loops, an uncontended operation costs what
 * m68k_qj_call_folded measures of the same folded code: the loop adds
 * nothing to it, and it has no JSR or RTS (fewer instructions than the
 * called entry's). */
static void folded_drive_measures_the_operation_alone(void) {
  static const char *const types[] = {"queue", "stack", "counter", "list"};
  for (size_t t = 0; t < 4; t++) {
    m68k_machine_config_t cfg = {
        .model = M68K_MODEL_68030, .ncpus = 2, .ram_size = M68K_QJ_RAM_MIN};
    m68k_machine_t *m = m68k_machine_create(&cfg);
    m68k_qj_t *q = NULL;
    bool counter = strcmp(types[t], "counter") == 0;
    CU_ASSERT_EQUAL_FATAL(m68k_qj_create(m, types[t], NULL, counter ? 0 : 256, &q, NULL, 0),
                          M68K_OK);
    m68k_qj_drive_options_t o = {
        .producers = 1, .consumers = 1, .items = 200, .measure = true, .folded = true};
    m68k_qj_drive_result_t r;
    CU_ASSERT_EQUAL(m68k_qj_drive(q, &o, &r, NULL, 0), M68K_OK);
    CU_ASSERT_EQUAL(r.lost + r.dup + r.reordered, 0);
    CU_ASSERT(r.calls[0] >= 200);
    /* The same forms as the drive's: one caller of each entry. */
    const char *put = m68k_qj_entry_name(q, 0);
    CU_ASSERT_EQUAL(m68k_qj_attach(q, put), M68K_OK);
    CU_ASSERT_EQUAL(m68k_qj_attach(q, m68k_qj_entry_name(q, 1)), M68K_OK);
    uint64_t ni, nc, ci;
    uint32_t v;
    uint32_t arg = strcmp(types[t], "list") == 0 ? m68k_qj_node(q, 0) : 1;
    CU_ASSERT_EQUAL(m68k_qj_call_folded(q, 0, put, arg, &v, &ni, &nc), M68K_QJ_OK);
    CU_ASSERT_EQUAL(m68k_qj_call(q, 0, put, arg, &v, &ci, NULL), M68K_QJ_OK);
    if ((double)ni != r.insns[0] || (double)nc != r.cycles[0])
      fprintf(stderr, "\n  %s: folded %s %llu insns %llu cycles, in the loop %g and %g\n",
              types[t], put, (unsigned long long)ni, (unsigned long long)nc, r.insns[0],
              r.cycles[0]);
    CU_ASSERT_EQUAL((double)ni, r.insns[0]);
    CU_ASSERT_EQUAL((double)nc, r.cycles[0]);
    CU_ASSERT(ni < ci);
    m68k_machine_destroy(m);
  }
}

/* Per-call figures are measured when asked, and the same across runs. */
static void drive_measures_calls(void) {
  algo_t a = {"queue", "mpmc", 1, 1, 8, true};
  double first = 0;
  for (int run = 0; run < 2; run++) {
    m68k_machine_config_t cfg = {
        .model = M68K_MODEL_68030, .ncpus = 2, .ram_size = M68K_QJ_RAM_MIN};
    m68k_machine_t *m = m68k_machine_create(&cfg);
    m68k_qj_t *q = NULL;
    CU_ASSERT_EQUAL_FATAL(m68k_qj_create(m, a.type, a.variant, a.capacity, &q, NULL, 0), M68K_OK);
    m68k_qj_drive_options_t o = {.producers = 1, .consumers = 1, .items = 200, .measure = true};
    m68k_qj_drive_result_t r;
    CU_ASSERT_EQUAL(m68k_qj_drive(q, &o, &r, NULL, 0), M68K_OK);
    CU_ASSERT(r.insns[0] > 5 && r.insns[1] > 5 && r.cycles[0] > r.insns[0]);
    CU_ASSERT(r.calls[0] >= 200 && r.calls[1] >= 200);
    /* An uncontended host call of the same code is no dearer. */
    uint64_t ni, nc;
    uint32_t v;
    CU_ASSERT_EQUAL(m68k_qj_call(q, 0, "put", 5, &v, &ni, &nc), M68K_QJ_OK);
    CU_ASSERT((double)ni <= r.insns[0]);
    if (run == 0) {
      first = r.cycles[0];
    } else {
      CU_ASSERT_EQUAL(first, r.cycles[0]);
    }
    m68k_machine_destroy(m);
  }
}

static void drive_refuses_bad_options(void) {
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68030, .ncpus = 2, .ram_size = M68K_QJ_RAM_MIN};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  m68k_qj_t *q = NULL, *l = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(m68k_qj_create(m, "queue", "spsc", 4, &q, NULL, 0), M68K_OK);
  CU_ASSERT_EQUAL_FATAL(m68k_qj_create(m, "list", NULL, 8, &l, NULL, 0), M68K_OK);
  m68k_qj_drive_result_t r;
  m68k_qj_drive_options_t o = {.producers = 0, .consumers = 1, .items = 4};
  CU_ASSERT_EQUAL(m68k_qj_drive(q, &o, &r, err, sizeof err), M68K_EINVAL);
  o = (m68k_qj_drive_options_t){.producers = 9, .consumers = 8, .items = 40};
  CU_ASSERT_EQUAL(m68k_qj_drive(q, &o, &r, err, sizeof err), M68K_EINVAL);
  o = (m68k_qj_drive_options_t){.producers = 3, .consumers = 1, .items = 2};
  CU_ASSERT_EQUAL(m68k_qj_drive(q, &o, &r, err, sizeof err), M68K_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "items"));
  /* An SP-SC queue refuses a second producer; nothing stays attached. */
  o = (m68k_qj_drive_options_t){.producers = 2, .consumers = 1, .items = 4};
  CU_ASSERT_EQUAL(m68k_qj_drive(q, &o, &r, err, sizeof err), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_qj_attached(q, "put"), 0);
  CU_ASSERT_EQUAL(m68k_qj_attached(q, "get"), 0);
  /* A list has a node per item: at most its capacity. */
  o = (m68k_qj_drive_options_t){.producers = 1, .consumers = 1, .items = 9};
  CU_ASSERT_EQUAL(m68k_qj_drive(l, &o, &r, err, sizeof err), M68K_EINVAL);
  m68k_machine_destroy(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return CU_get_error();
  CU_pSuite s = CU_add_suite("m68k-qj-smp", NULL, NULL);
  CU_add_test(s, "counter_cas_survives_random_schedules", counter_cas_survives_random_schedules);
  CU_add_test(s, "stack_cas2_survives_random_schedules", stack_cas2_survives_random_schedules);
  CU_add_test(s, "queue_cas2_mpmc_survives_random_schedules",
              queue_cas2_mpmc_survives_random_schedules);
  CU_add_test(s, "queue_mpsc_mixed_code_survives_random_schedules",
              queue_mpsc_mixed_code_survives_random_schedules);
  CU_add_test(s, "queue_spsc_survives_random_schedules_without_cas2",
              queue_spsc_survives_random_schedules_without_cas2);
  CU_add_test(s, "list_cas2_survives_random_schedules", list_cas2_survives_random_schedules);
  CU_add_test(s, "broken_stack_fails_under_a_seeded_schedule",
              broken_stack_fails_under_a_seeded_schedule);
  CU_add_test(s, "folded_broken_stack_fails_under_a_seeded_schedule",
              folded_broken_stack_fails_under_a_seeded_schedule);
  CU_add_test(s, "folded_algorithms_survive_random_schedules",
              folded_algorithms_survive_random_schedules);
  CU_add_test(s, "folded_drive_measures_the_operation_alone",
              folded_drive_measures_the_operation_alone);
  CU_add_test(s, "drive_measures_calls", drive_measures_calls);
  CU_add_test(s, "drive_refuses_bad_options", drive_refuses_bad_options);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned fails = CU_get_number_of_failures();
  CU_cleanup_registry();
  return fails ? 1 : 0;
}
