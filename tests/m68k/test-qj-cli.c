/* test-qj-cli.c -- `quamachine quaject`: the QUAJECT line, exit statuses, replayed schedules, help
 * and bad usage. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *tool; /* build/m68k/quamachine, from the command line */

/* Runs `quamachine quaject ARGS` through the shell, stdout and stderr
 * together into out; returns the exit status. */
static int quaject(char *out, size_t len, const char *args) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' quaject %s 2>&1", tool, args);
  FILE *p = popen(cmd, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  size_t n = fread(out, 1, len - 1, p);
  out[n] = '\0';
  int ws = pclose(p);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128;
}

/* The last line of out. */
static const char *last_line(char *out) {
  size_t n = strlen(out);
  while (n > 0 && out[n - 1] == '\n')
    out[--n] = '\0';
  char *nl = strrchr(out, '\n');
  return nl != NULL ? nl + 1 : out;
}

static void every_type_prints_a_clean_quaject_line(void) {
  static const char *const types[] = {"queue", "stack", "counter", "list"};
  for (size_t i = 0; i < 4; i++) {
    char out[8192], args[128], want[128];
    snprintf(args, sizeof args, "%s --producers 2 --consumers 2 --items 300 --schedule random:5",
             types[i]);
    CU_ASSERT_EQUAL(quaject(out, sizeof out, args), 0);
    const char *line = last_line(out);
    snprintf(want, sizeof want,
             "QUAJECT %s items=300 lost=0 dup=0 reordered=0 put_insns=", types[i]);
    CU_ASSERT_EQUAL(strncmp(line, want, strlen(want)), 0);
    unsigned pi, gi, pc, gc;
    CU_ASSERT_EQUAL(sscanf(strstr(line, "put_insns="),
                           "put_insns=%u get_insns=%u put_cycles=%u get_cycles=%u", &pi, &gi, &pc,
                           &gc),
                    4);
    CU_ASSERT(pi > 0 && gi > 0 && pc > pi && gc > gi);
  }
}

/* --folded: the loops with the operations inline keep every item, and
 * each operation costs fewer cycles than its call (no JSR, RTS or load of
 * the state's address); a seeded bug still shows. */
static void folded_loops_are_clean_and_cheaper(void) {
  static const char *const types[] = {"queue", "stack", "counter", "list"};
  for (size_t i = 0; i < 4; i++) {
    unsigned pc[2], gc[2];
    for (int folded = 0; folded < 2; folded++) {
      char out[8192], args[160], want[128];
      snprintf(args, sizeof args,
               "%s --producers 2 --consumers 2 --items 300 --schedule random:5%s", types[i],
               folded ? " --folded" : "");
      CU_ASSERT_EQUAL(quaject(out, sizeof out, args), 0);
      const char *line = last_line(out);
      snprintf(want, sizeof want, "QUAJECT %s items=300 lost=0 dup=0 reordered=0 put_insns=",
               types[i]);
      CU_ASSERT_EQUAL(strncmp(line, want, strlen(want)), 0);
      unsigned pi, gi;
      const char *f = strstr(line, "put_insns=");
      CU_ASSERT_PTR_NOT_NULL_FATAL(f);
      CU_ASSERT_EQUAL(sscanf(f, "put_insns=%u get_insns=%u put_cycles=%u get_cycles=%u", &pi,
                             &gi, &pc[folded], &gc[folded]),
                      4);
    }
    CU_ASSERT(pc[1] < pc[0] && gc[1] < gc[0]);
  }
  char out[8192];
  CU_ASSERT_EQUAL(quaject(out, sizeof out,
                          "counter --variant broken --producers 2 --items 2000 --schedule "
                          "random:1:4 --folded"),
                  1);
}

/* A seeded bug shows: exit 1 and the damage counted. */
static void a_broken_variant_exits_one(void) {
  char out[8192];
  CU_ASSERT_EQUAL(
      quaject(out, sizeof out,
              "counter --variant broken --producers 2 --items 2000 --schedule random:1:4"),
      1);
  CU_ASSERT_PTR_NOT_NULL(strstr(last_line(out), "lost="));
  CU_ASSERT_PTR_NULL(strstr(last_line(out), "lost=0 "));
}

/* A recorded schedule replays to the same run. */
static void a_recorded_schedule_replays(void) {
  char path[] = "/tmp/qj-cli-XXXXXX", out1[8192], out2[8192], args[256];
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
  snprintf(args, sizeof args,
           "queue --producers 2 --items 200 --schedule random:3:5 --record %s -v", path);
  CU_ASSERT_EQUAL(quaject(out1, sizeof out1, args), 0);
  snprintf(args, sizeof args, "queue --producers 2 --items 200 --schedule replay:%s -v", path);
  CU_ASSERT_EQUAL(quaject(out2, sizeof out2, args), 0);
  CU_ASSERT_STRING_EQUAL(out1, out2); /* same code, CAS2 counts, clock and figures */
  CU_ASSERT_PTR_NOT_NULL(strstr(out1, "put_mp"));
  unlink(path);
}

static void help_says_how_cycles_are_estimated(void) {
  char out[8192];
  CU_ASSERT_EQUAL(quaject(out, sizeof out, "--help"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "cache case"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "MC68030 User's Manual"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "head"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "tail"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "overlap"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "median"));
}

static void bad_usage_exits_two_naming_the_problem(void) {
  static const struct {
    const char *args, *says;
  } cases[] = {
      {"", "TYPE"},
      {"heap", "heap"},
      {"queue --variant lifo", "lifo"},
      {"queue --items 0", "items"},
      {"queue --producers 17", "17"},
      {"queue --capacity 16384", "16384"},
      {"queue --schedule fifo", "fifo"},
      {"queue --schedule replay:/nonexistent/file", "/nonexistent/file"},
      {"queue --frob", "--frob"},
      {"list --items 20000", "list"},
      {"queue --variant spsc --producers 2", "attach"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[8192];
    int st = quaject(out, sizeof out, cases[i].args);
    if (st != 2 || strstr(out, cases[i].says) == NULL)
      fprintf(stderr, "\n  '%s' -> %d: %s", cases[i].args, st, out);
    CU_ASSERT_EQUAL(st, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].says));
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-qj-cli QUAMACHINE\n");
    return 2;
  }
  tool = argv[1];
  if (CU_initialize_registry() != CUE_SUCCESS)
    return CU_get_error();
  CU_pSuite s = CU_add_suite("m68k-qj-cli", NULL, NULL);
  CU_add_test(s, "every_type_prints_a_clean_quaject_line", every_type_prints_a_clean_quaject_line);
  CU_add_test(s, "a_broken_variant_exits_one", a_broken_variant_exits_one);
  CU_add_test(s, "folded_loops_are_clean_and_cheaper", folded_loops_are_clean_and_cheaper);
  CU_add_test(s, "a_recorded_schedule_replays", a_recorded_schedule_replays);
  CU_add_test(s, "help_says_how_cycles_are_estimated", help_says_how_cycles_are_estimated);
  CU_add_test(s, "bad_usage_exits_two_naming_the_problem", bad_usage_exits_two_naming_the_problem);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned fails = CU_get_number_of_failures();
  CU_cleanup_registry();
  return fails ? 1 : 0;
}
