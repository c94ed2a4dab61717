/* test-sst.c -- the m68k-sst single-instruction conformance data on the 68000 core.
 *
 * Usage: test-sst [--verbose] [--required] [--jit] DIR. Runs every *.txt.gz in DIR
 * (the data is not part of the project: meson passes -Dsst_data, or
 * ../shared/m68k-sst) and requires every test to pass. TAS and TRAPV are
 * unverified upstream and are reported apart, outside that requirement.
 * The 68000 model's clock count must agree with the data's cycle counts in
 * at least 99% of every file's tests.
 * Exits 77 (meson SKIP) when DIR is missing, saying so, unless --required
 * (-Dsst_data was given) or the environment variable CI is set (to anything
 * but "", "0" or "false"): then a missing or empty DIR fails, so that CI
 * cannot pass by skipping. --jit runs every case translated (m68k_jit_set_default
 * with a threshold of 1: the instruction is translated before it first runs),
 * requires that every case ran translated code but those with the trace bit
 * set, which the interpreter runs (sst.c fails such a case), and that some ran
 * stencils of their own rather than a handler call; it checks the state only:
 * cycle counting would run the case in the interpreter, so the clocks are
 * checked by the run without --jit.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <CUnit/Basic.h>

#include "m68k.h"

static const char *sst_dir;
static bool sst_verbose;
static bool sst_required;

static int cmp_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool unverified(const char *name)
{
  return strncmp(name, "TAS.", 4) == 0 || strncmp(name, "TRAPV.", 6) == 0;
}

/* One file's results. */
typedef struct sst_file {
  char *name;
  unsigned passed, total, cycles_ok;
} sst_file_t;

#define SST_MAXFILES 512

/* Runs every *.txt.gz of sst_dir once, in name order, into files[]; returns
 * their number, or -1 when the folder cannot be read or a file fails. */
static int run_all(sst_file_t *files)
{
  DIR *d = opendir(sst_dir);
  if (!d)
    return -1;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && n < SST_MAXFILES) {
    size_t len = strlen(de->d_name);
    if (len > 7 && strcmp(de->d_name + len - 7, ".txt.gz") == 0)
      files[n++].name = strdup(de->d_name);
  }
  closedir(d);
  qsort(files, (size_t)n, sizeof(files[0]), cmp_names);
  int rc = n;
  for (int i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", sst_dir, files[i].name);
    if (m68k_sst_run_file(path, M68K_MODEL_68000, sst_verbose, stdout, &files[i].passed,
                          &files[i].total, &files[i].cycles_ok) != 0)
      rc = -1;
  }
  return rc;
}

static sst_file_t sst_files[SST_MAXFILES];
static int sst_nfiles = -1;
static bool sst_jit;

/* With --jit: translated code ran (sst.c checks it case by case), some of
 * it the instructions' own stencils. */
static void sst_every_case_ran_translated(void)
{
  CU_ASSERT_FATAL(sst_nfiles >= 0);
  uint64_t cases = 0;
  for (int i = 0; i < sst_nfiles; i++)
    cases += sst_files[i].total;
  m68k_jit_stats_t st;
  m68k_jit_totals(&st);
  printf("SST translated %llu blocks (%llu instructions, %llu with stencils of their own) "
         "for %llu cases\n",
         (unsigned long long)st.translated, (unsigned long long)st.insns,
         (unsigned long long)st.specialised, (unsigned long long)cases);
  CU_ASSERT(cases > 0);
  CU_ASSERT(st.translated >= cases / 4);
  CU_ASSERT(st.specialised > 0);
}

static void sst_every_verified_case_passes(void)
{
  CU_ASSERT_FATAL(sst_nfiles >= 0);
  unsigned p = 0, t = 0, up = 0, ut = 0;
  for (int i = 0; i < sst_nfiles; i++) {
    if (unverified(sst_files[i].name)) {
      up += sst_files[i].passed;
      ut += sst_files[i].total;
    } else {
      p += sst_files[i].passed;
      t += sst_files[i].total;
    }
  }
  printf("SST unverified (TAS, TRAPV) %u/%u\n", up, ut);
  printf("SST total %u/%u\n", p + up, t + ut);
  printf("SST verified %u/%u (%.2f%%)\n", p, t, t ? 100.0 * p / t : 0.0);
  CU_ASSERT(t > 0);
  CU_ASSERT(t > 0 && p == t);
}

/* The 68000 model's clock count is the data's (its `c` lines) for at least
 * 99% of the tests of every file, the unverified ones included. */
static void sst_cycles_agree_in_99_percent_of_every_file(void)
{
  CU_ASSERT_FATAL(sst_nfiles > 0);
  unsigned c = 0, t = 0;
  for (int i = 0; i < sst_nfiles; i++) {
    const sst_file_t *f = &sst_files[i];
    if (f->total == 0 || (uint64_t)f->cycles_ok * 100 < (uint64_t)f->total * 99) {
      printf("SST %s: cycles agree in %u of %u tests, below 99%%\n", f->name, f->cycles_ok,
             f->total);
      CU_FAIL("a file's cycle agreement is below 99%");
    }
    c += f->cycles_ok;
    t += f->total;
  }
  printf("SST cycles %u/%u (%.2f%%)\n", c, t, t ? 100.0 * c / t : 0.0);
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--verbose") == 0)
      sst_verbose = true;
    else if (strcmp(argv[i], "--required") == 0)
      sst_required = true;
    else if (strcmp(argv[i], "--jit") == 0)
      sst_jit = true;
    else
      sst_dir = argv[i];
  }
  const char *ci = getenv("CI");
  bool in_ci = ci != NULL && ci[0] != '\0' && strcmp(ci, "0") != 0 && strcmp(ci, "false") != 0;
  if (in_ci)
    sst_required = true;
  struct stat st;
  if (!sst_dir || stat(sst_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("%s: m68k-sst data not found at %s (%s)\n", sst_required ? "FAIL" : "SKIP",
           sst_dir ? sst_dir : "(no directory given)",
           !sst_required ? "meson setup -Dsst_data=FOLDER points the build at the data"
           : in_ci       ? "CI is set, so the data are required"
                         : "the folder -Dsst_data names");
    return sst_required ? 1 : 77;
  }
  if (sst_jit)
    m68k_jit_set_default(1); /* every case translated, then run */
  sst_nfiles = run_all(sst_files);
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("sst", NULL, NULL);
  CU_add_test(s, "sst_every_verified_case_passes", sst_every_verified_case_passes);
  if (sst_jit)
    CU_add_test(s, "sst_every_case_ran_translated", sst_every_case_ran_translated);
  else
    CU_add_test(s, "sst_cycles_agree_in_99_percent_of_every_file",
                sst_cycles_agree_in_99_percent_of_every_file);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned fails = CU_get_number_of_failures();
  CU_cleanup_registry();
  for (int i = 0; i < sst_nfiles; i++)
    free(sst_files[i].name);
  return fails ? 1 : 0;
}
