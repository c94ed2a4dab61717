/* test-stencilgen.c -- runs the stencilgen tool on good and bad objects and checks its verdicts and messages.
 *
 * Arguments (from meson): stencilgen got.o bss.o good.o [m68k.o]
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *tool, *got_o, *bss_o, *good_o, *m68k_o;
static char dir[] = "/tmp/jit-stencilgen-XXXXXX";
static char out_c[256], out_h[256], err_path[256];
static char errbuf[8192];

/* Run stencilgen with `objs` (NULL-terminated); returns its exit status
 * (-1 if it did not exit), its stderr in errbuf. */
static int run(const char *const *objs)
{
  const char *argv[16];
  int n = 0, status, fd;
  pid_t pid;
  posix_spawn_file_actions_t fa;
  ssize_t got;

  argv[n++] = tool;
  argv[n++] = "--prefix";
  argv[n++] = "tg";
  argv[n++] = "--output";
  argv[n++] = out_c;
  argv[n++] = "--header";
  argv[n++] = out_h;
  for (int i = 0; objs[i] && n < 15; i++)
    argv[n++] = objs[i];
  argv[n] = NULL;
  unlink(out_c);
  unlink(out_h);
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (posix_spawn(&pid, tool, &fa, NULL, (char *const *)argv, environ) != 0) {
    posix_spawn_file_actions_destroy(&fa);
    return -1;
  }
  posix_spawn_file_actions_destroy(&fa);
  if (waitpid(pid, &status, 0) != pid)
    return -1;
  errbuf[0] = 0;
  fd = open(err_path, O_RDONLY);
  if (fd >= 0) {
    got = read(fd, errbuf, sizeof errbuf - 1);
    errbuf[got > 0 ? got : 0] = 0;
    close(fd);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int exists(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0;
}

/* The whole of a generated file, NUL-terminated, malloc'd. */
static char *slurp(const char *p)
{
  FILE *f = fopen(p, "r");
  char *b;
  long n;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = calloc(1, (size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

static void got_relocation_refused_naming_template_and_kind(void)
{
  const char *objs[] = {got_o, NULL};
  CU_ASSERT_EQUAL(run(objs), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "template g_ret"));
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "GOTPCREL"));
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "hole_value"));
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "-fno-pic"));
  /* A failed run leaves no output behind. */
  CU_ASSERT_FALSE(exists(out_c));
  CU_ASSERT_FALSE(exists(out_h));
}

static void writable_static_data_refused(void)
{
  const char *objs[] = {bss_o, NULL};
  CU_ASSERT_EQUAL(run(objs), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "template w_count"));
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "writable data"));
}

static void good_object_gives_tables(void)
{
  const char *objs[] = {good_o, NULL};
  char *c, *h;
  CU_ASSERT_EQUAL_FATAL(run(objs), 0);
  c = slurp(out_c);
  h = slurp(out_h);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "TG_HOLE_hole_value = 4"));
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "extern const jit_stencil_t tg_stencil_t_tail;"));
  CU_ASSERT_PTR_NOT_NULL(strstr(c, "JIT_HOLE_X86_64_PLT32, TG_HOLE_hole_fn, -4"));
  CU_ASSERT_PTR_NOT_NULL(strstr(c, ".machine = JIT_MACHINE_X86_64"));
  free(c);
  free(h);
}

static void m68k_object_gives_big_endian_kinds(void)
{
  const char *objs[] = {m68k_o, NULL};
  char *c;
  if (!m68k_o) {
    fprintf(stderr, "no m68k object (m68k-linux-gnu-gcc missing): skipped\n");
    return;
  }
  CU_ASSERT_EQUAL_FATAL(run(objs), 0);
  c = slurp(out_c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_PTR_NOT_NULL(strstr(c, "JIT_HOLE_M68K_32, TG_HOLE_hole_value, 0"));
  CU_ASSERT_PTR_NOT_NULL(strstr(c, "JIT_HOLE_M68K_PC32, TG_HOLE_hole_fn, 0"));
  CU_ASSERT_PTR_NOT_NULL(strstr(c, ".machine = JIT_MACHINE_M68K"));
  free(c);
}

static void mixed_machines_refused(void)
{
  const char *objs[] = {good_o, m68k_o, NULL};
  if (!m68k_o)
    return;
  CU_ASSERT_EQUAL(run(objs), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "machine"));
}

static void non_elf_and_bad_usage_refused(void)
{
  char junk[300];
  const char *objs[] = {junk, NULL};
  const char *none[] = {NULL};
  FILE *f;
  snprintf(junk, sizeof junk, "%s/junk.o", dir);
  f = fopen(junk, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("not an object\n", f);
  fclose(f);
  CU_ASSERT_EQUAL(run(objs), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "not an ELF file"));
  CU_ASSERT_EQUAL(run(none), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "usage"));
  unlink(junk);
}

int main(int argc, char **argv)
{
  CU_pSuite s;
  unsigned failures;

  if (argc < 5) {
    fprintf(stderr, "usage: %s stencilgen got.o bss.o good.o [m68k.o]\n", argv[0]);
    return 2;
  }
  tool = argv[1];
  got_o = argv[2];
  bss_o = argv[3];
  good_o = argv[4];
  m68k_o = argc > 5 ? argv[5] : NULL;
  if (!mkdtemp(dir))
    return 2;
  snprintf(out_c, sizeof out_c, "%s/tg-stencils.c", dir);
  snprintf(out_h, sizeof out_h, "%s/tg-stencils.h", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr", dir);

  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("jit-stencilgen", NULL, NULL);
  CU_add_test(s, "got_relocation_refused_naming_template_and_kind",
              got_relocation_refused_naming_template_and_kind);
  CU_add_test(s, "writable_static_data_refused", writable_static_data_refused);
  CU_add_test(s, "good_object_gives_tables", good_object_gives_tables);
  CU_add_test(s, "m68k_object_gives_big_endian_kinds", m68k_object_gives_big_endian_kinds);
  CU_add_test(s, "mixed_machines_refused", mixed_machines_refused);
  CU_add_test(s, "non_elf_and_bad_usage_refused", non_elf_and_bad_usage_refused);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  CU_cleanup_registry();
  unlink(out_c);
  unlink(out_h);
  unlink(err_path);
  rmdir(dir);
  return failures ? 1 : 0;
}
