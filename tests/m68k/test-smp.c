/* test-smp.c -- two CPUs on one counter: CAS, CAS2 and TAS stay exact, a plain add loses and
 * replays.
 *
 * Arguments: the four images built from progs/smp-counter.c (CAS, CAS2,
 * PLAIN for the 68030; TAS for the 68000), then --jit to run every case with
 * the translator on (m68k_jit_set_default, threshold 1). Without the images
 * (no m68k cross compiler) the suite is skipped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "qtest.h"

#define PER_CPU 200 /* N in smp-counter.c */
#define SEEDS 1000

static const char *img_cas, *img_cas2, *img_plain, *img_tas;

typedef struct run {
  m68k_machine_result_t res;
  m68k_slice_t *slices; /* the recorded schedule (malloc'ed) */
  size_t nslices;
} run_t;

/* Runs an image on a fresh two-CPU machine of `model` under `s`, recording. */
static void run_model(m68k_model_t model, const char *path, const m68k_schedule_t *s, run_t *out) {
  char err[256];
  m68k_elf_t *elf = NULL;
  CU_ASSERT_EQUAL_FATAL(m68k_elf_open(path, &elf, err, sizeof err), M68K_OK);
  m68k_machine_config_t cfg = {model, 2, 0, 256u << 10};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL_FATAL(m68k_elf_load(m, elf), M68K_OK);
  CU_ASSERT_EQUAL_FATAL(m68k_machine_set_schedule(m, s), M68K_OK);
  m68k_machine_start(m, m68k_elf_entry(elf));
  m68k_machine_set_limit(m, 10u * 1000 * 1000);
  m68k_machine_record(m, true);
  m68k_machine_run(m, &out->res);
  size_t n;
  const m68k_slice_t *rec = m68k_machine_recorded(m, &n);
  out->slices = malloc((n != 0 ? n : 1) * sizeof *rec);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out->slices);
  if (n != 0)
    memcpy(out->slices, rec, n * sizeof *rec);
  out->nslices = n;
  if (out->res.status != M68K_MACHINE_EXITED)
    fprintf(stderr, "%s: %s\n", path, m68k_machine_message(m));
  m68k_machine_destroy(m);
  m68k_elf_close(elf);
}

static void run_image(const char *path, const m68k_schedule_t *s, run_t *out) {
  run_model(M68K_MODEL_68030, path, s, out);
}

static void run_free(run_t *r) {
  free(r->slices);
  r->slices = NULL;
}

static m68k_schedule_t seeded(uint64_t seed) {
  return (m68k_schedule_t){.kind = M68K_SCHED_RANDOM, .seed = seed, .max_slice = 16};
}

/* Every seed ends with the exact count, the CPUs interleaved. */
static void exact_under_seeds(m68k_model_t model, const char *img) {
  unsigned bad = 0;
  for (uint64_t seed = 1; seed <= SEEDS; seed++) {
    m68k_schedule_t s = seeded(seed);
    run_t r;
    run_model(model, img, &s, &r);
    if (r.res.status != M68K_MACHINE_EXITED || r.res.code != 2 * PER_CPU) {
      if (bad++ == 0)
        fprintf(stderr, "seed %llu: status %d code %d\n", (unsigned long long)seed,
                (int)r.res.status, (int)r.res.code);
    }
    CU_ASSERT(r.nslices > 20); /* the CPUs really were interleaved */
    run_free(&r);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

static void cas_counter_is_exact_under_1000_seeds(void) {
  exact_under_seeds(M68K_MODEL_68030, img_cas);
}
static void cas2_counter_is_exact_under_1000_seeds(void) {
  exact_under_seeds(M68K_MODEL_68030, img_cas2);
}
static void tas_lock_counter_is_exact_on_two_68000s(void) {
  exact_under_seeds(M68K_MODEL_68000, img_tas);
}

static void plain_increment_loses_updates_and_its_schedule_replays(void) {
  run_t lost = {0};
  uint64_t seed;
  for (seed = 1; seed <= SEEDS; seed++) {
    m68k_schedule_t s = seeded(seed);
    run_image(img_plain, &s, &lost);
    CU_ASSERT_EQUAL_FATAL(lost.res.status, M68K_MACHINE_EXITED);
    if (lost.res.code != 2 * PER_CPU)
      break;
    run_free(&lost);
  }
  CU_ASSERT_FATAL(seed <= SEEDS); /* some schedule caught the race */
  CU_ASSERT(lost.res.code < 2 * PER_CPU);

  /* Replaying the recorded slices gives the same wrong total, the same
   * clock, and records the same schedule again. */
  m68k_schedule_t rs = {.kind = M68K_SCHED_REPLAY, .slices = lost.slices, .nslices = lost.nslices};
  run_t again;
  run_image(img_plain, &rs, &again);
  CU_ASSERT_EQUAL(again.res.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(again.res.code, lost.res.code);
  CU_ASSERT_EQUAL(again.res.clock, lost.res.clock);
  CU_ASSERT_EQUAL(again.nslices, lost.nslices);
  CU_ASSERT(again.nslices == lost.nslices &&
            memcmp(again.slices, lost.slices, lost.nslices * sizeof *lost.slices) == 0);
  run_free(&again);

  /* Through a schedule file too. */
  char path[] = "/tmp/qua-smp-schedule-XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
  CU_ASSERT_EQUAL_FATAL(m68k_schedule_save(path, lost.slices, lost.nslices), M68K_OK);
  m68k_slice_t *loaded = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(m68k_schedule_load(path, &loaded, &n), M68K_OK);
  unlink(path);
  rs.slices = loaded;
  rs.nslices = n;
  run_image(img_plain, &rs, &again);
  CU_ASSERT_EQUAL(again.res.code, lost.res.code);
  run_free(&again);
  free(loaded);
  run_free(&lost);
}

static void same_seed_gives_the_same_run(void) {
  m68k_schedule_t s = seeded(4242);
  run_t a, b, c;
  run_image(img_plain, &s, &a);
  run_image(img_plain, &s, &b);
  CU_ASSERT_EQUAL(a.res.code, b.res.code);
  CU_ASSERT_EQUAL(a.res.clock, b.res.clock);
  CU_ASSERT(a.nslices == b.nslices &&
            memcmp(a.slices, b.slices, a.nslices * sizeof *a.slices) == 0);
  s = seeded(4243);
  run_image(img_plain, &s, &c);
  CU_ASSERT(c.nslices != a.nslices ||
            memcmp(a.slices, c.slices, a.nslices * sizeof *a.slices) != 0);
  run_free(&a);
  run_free(&b);
  run_free(&c);
}

/* The translator changes no run: the same result, clock and schedule for
 * random schedules, on both models, with it off and on. */
static void translation_changes_no_schedule(void) {
  unsigned saved = m68k_jit_default();
  for (uint64_t seed = 1; seed <= 40; seed++) {
    m68k_schedule_t s = seeded(seed);
    m68k_model_t model = seed % 4 == 0 ? M68K_MODEL_68000 : M68K_MODEL_68030;
    const char *img = seed % 4 == 0 ? img_tas : img_plain;
    run_t off, on;
    m68k_jit_set_default(0);
    run_model(model, img, &s, &off);
    m68k_jit_set_default(1 + (unsigned)(seed % 3));
    run_model(model, img, &s, &on);
    CU_ASSERT_EQUAL(on.res.status, off.res.status);
    CU_ASSERT_EQUAL(on.res.code, off.res.code);
    CU_ASSERT_EQUAL(on.res.clock, off.res.clock);
    CU_ASSERT(on.nslices == off.nslices &&
              memcmp(on.slices, off.slices, on.nslices * sizeof *on.slices) == 0);
    run_free(&off);
    run_free(&on);
  }
  m68k_jit_set_default(saved);
}

static void quantum_schedule_alternates_the_cpus(void) {
  m68k_schedule_t s = {.kind = M68K_SCHED_QUANTUM, .quantum = 7};
  run_t r;
  run_image(img_cas, &s, &r);
  CU_ASSERT_EQUAL(r.res.status, M68K_MACHINE_EXITED);
  CU_ASSERT_EQUAL(r.res.code, 2 * PER_CPU);
  /* Full turns of 7 alternate 0, 1, 0, 1 until one CPU stops. */
  for (size_t i = 0; i + 2 < r.nslices && i < 50; i++) {
    CU_ASSERT_EQUAL(r.slices[i].cpu, i % 2);
    CU_ASSERT_EQUAL(r.slices[i].count, 7);
  }
  run_free(&r);
}

int main(int argc, char **argv) {
  if (argc < 5 || access(argv[1], R_OK) != 0) {
    printf("SKIP: the freestanding m68k images were not built (no m68k-linux-gnu-gcc)\n");
    return 77;
  }
  img_cas = argv[1];
  img_cas2 = argv[2];
  img_plain = argv[3];
  img_tas = argv[4];
  if (argc > 5 && strcmp(argv[5], "--jit") == 0)
    m68k_jit_set_default(1);
  static const qtest_case_t cases[] = {
      {"cas_counter_is_exact_under_1000_seeds", cas_counter_is_exact_under_1000_seeds},
      {"cas2_counter_is_exact_under_1000_seeds", cas2_counter_is_exact_under_1000_seeds},
      {"tas_lock_counter_is_exact_on_two_68000s", tas_lock_counter_is_exact_on_two_68000s},
      {"plain_increment_loses_updates_and_its_schedule_replays",
       plain_increment_loses_updates_and_its_schedule_replays},
      {"same_seed_gives_the_same_run", same_seed_gives_the_same_run},
      {"quantum_schedule_alternates_the_cpus", quantum_schedule_alternates_the_cpus},
      {"translation_changes_no_schedule", translation_changes_no_schedule},
      {NULL, NULL},
  };
  return qtest_run("m68k-smp", cases);
}
