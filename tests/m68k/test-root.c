/* test-root.c -- `quamachine run --root DIR`: a program's paths stay inside
 * DIR, whatever ".." and symbolic links say.
 *
 * Arguments: QUAMACHINE PROGS_DIR (progs/escape built there). A fresh tree
 * per case: T/outside.txt holds SECRET; T/root, the program's root, holds
 * inside.txt (INSIDE) and symbolic links that point out of it in every way
 * a path can. Skipped (77) without the cross compiler's build of escape.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "m68k-tool.h"
#include "qtest.h"

static const char *quamachine;
static char escape[PATH_MAX];
static char tree[64], root[128], outside[128];

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static void link_in_root(const char *target, const char *name) {
  char at[PATH_MAX + 64];
  snprintf(at, sizeof at, "%s/%s", root, name);
  CU_ASSERT_EQUAL_FATAL(symlink(target, at), 0);
}

static void make_tree(void) {
  snprintf(tree, sizeof tree, "/tmp/qua-m68k-root-XXXXXX");
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tree));
  snprintf(root, sizeof root, "%s/root", tree);
  snprintf(outside, sizeof outside, "%s/outside.txt", tree);
  CU_ASSERT_EQUAL_FATAL(mkdir(root, 0755), 0);
  char p[PATH_MAX + 32];
  snprintf(p, sizeof p, "%s/sub", root);
  CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
  put(outside, "SECRET\n");
  snprintf(p, sizeof p, "%s/inside.txt", root);
  put(p, "INSIDE\n");
  link_in_root("../outside.txt", "up");
  link_in_root(outside, "abs");
  link_in_root("/inside.txt", "absin");
  link_in_root("../../../../../../..", "sub/far");
  link_in_root("/proc/self/cwd/../outside.txt", "magic");
}

static void remove_tree(void) {
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
  CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Runs escape under --root ROOT (or none) with the paths given. */
static void run_escape(tool_run_t *r, bool with_root, char *const paths[]) {
  char *argv[32];
  int n = 0;
  argv[n++] = (char *)quamachine;
  argv[n++] = "run";
  if (with_root) {
    argv[n++] = "--root";
    argv[n++] = root;
  }
  argv[n++] = escape;
  for (int i = 0; paths[i] != NULL && n < 31; i++)
    argv[n++] = paths[i];
  argv[n] = NULL;
  tool_runv(r, argv);
}

static void paths_outside_the_root_are_not_found(void) {
  make_tree();
  char far[PATH_MAX + 64];
  snprintf(far, sizeof far, "sub/far%s", outside);
  char *paths[] = {
      "../outside.txt", "/../outside.txt", "../../../../../../../../../tmp", outside, far, NULL};
  static tool_run_t r;
  run_escape(&r, true, paths);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NULL(strstr(r.out, "SECRET"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open ../outside.txt: No such file or directory"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open /../outside.txt: No such file or directory"));
  char want[PATH_MAX * 2];
  snprintf(want, sizeof want, "open %s: No such file or directory", outside);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
  snprintf(want, sizeof want, "open %s: No such file or directory", far);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
  remove_tree();
}

static void symlinks_resolve_inside_the_root(void) {
  make_tree();
  char *paths[] = {"up", "abs", "absin", "sub/far/inside.txt", "magic", NULL};
  static tool_run_t r;
  run_escape(&r, true, paths);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NULL(strstr(r.out, "SECRET"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open up: No such file or directory"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "lstat up: link"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open abs: No such file or directory"));
  /* An absolute link means the root's file, as under chroot. */
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open absin: INSIDE"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open sub/far/inside.txt: INSIDE"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open magic: No such file or directory"));
  remove_tree();
}

static void chdir_dotdot_stops_at_the_root(void) {
  make_tree();
  char *paths[] = {"inside.txt", NULL};
  static tool_run_t r;
  run_escape(&r, true, paths);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open inside.txt: INSIDE"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "getcwd after 6 x chdir(\"..\"): /\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inside.txt in the listing: yes"));
  remove_tree();
}

static void without_root_there_are_no_files(void) {
  make_tree();
  char *paths[] = {outside, "inside.txt", NULL};
  static tool_run_t r;
  run_escape(&r, false, paths);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NULL(strstr(r.out, "SECRET"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "open inside.txt: Permission denied"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inside.txt in the listing: no"));
  /* said once, naming the first file and the option */
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "without --root DIR it has no files"));
  const char *first = strstr(r.err, "no files");
  CU_ASSERT(first != NULL && strstr(first + 1, "no files") == NULL);
  remove_tree();
}

/* A path of PATH_MAX - 1 bytes is looked up; one of PATH_MAX is too long. */
static void path_length_limit(void) {
  make_tree();
  static char fits[PATH_MAX], too_long[PATH_MAX + 1];
  memset(fits, '/', PATH_MAX - 1);
  memcpy(fits + PATH_MAX - 1 - strlen("inside.txt"), "inside.txt", strlen("inside.txt"));
  fits[PATH_MAX - 1] = '\0';
  memset(too_long, '/', PATH_MAX);
  memcpy(too_long + PATH_MAX - strlen("inside.txt"), "inside.txt", strlen("inside.txt"));
  too_long[PATH_MAX] = '\0';
  char *paths[] = {fits, too_long, NULL};
  static tool_run_t r;
  run_escape(&r, true, paths);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inside.txt: INSIDE"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inside.txt: File name too long"));
  remove_tree();
}

static void bad_root_is_refused_by_name(void) {
  static tool_run_t r;
  char *argv[] = {(char *)quamachine, "run", "--root", "/nonexistent/qua-root", escape, NULL};
  tool_runv(&r, argv);
  CU_ASSERT_EQUAL(r.status, 126);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--root /nonexistent/qua-root: No such file or directory"));
  char *argv2[] = {(char *)quamachine, "run", "--root", escape, escape, NULL};
  tool_runv(&r, argv2);
  CU_ASSERT_EQUAL(r.status, 126);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "Not a directory"));
}

int main(int argc, char **argv) {
  if (argc < 3) {
    printf("SKIP: needs m68k-linux-gnu-gcc (Debian gcc-m68k-linux-gnu)\n");
    return 77;
  }
  quamachine = argv[1];
  snprintf(escape, sizeof escape, "%s/escape", argv[2]);
  if (access(escape, R_OK) != 0) {
    printf("SKIP: %s was not built\n", escape);
    return 77;
  }
  static const qtest_case_t cases[] = {
      {"paths_outside_the_root_are_not_found", paths_outside_the_root_are_not_found},
      {"symlinks_resolve_inside_the_root", symlinks_resolve_inside_the_root},
      {"chdir_dotdot_stops_at_the_root", chdir_dotdot_stops_at_the_root},
      {"without_root_there_are_no_files", without_root_there_are_no_files},
      {"path_length_limit", path_length_limit},
      {"bad_root_is_refused_by_name", bad_root_is_refused_by_name},
      {NULL, NULL},
  };
  return qtest_run("m68k-root", cases);
}
