/* fuzz-main.c -- replays inputs through a libFuzzer harness without libFuzzer: the regression tests.
 *
 * Linked with one harness (its LLVMFuzzerTestOneInput, and LLVMFuzzerInitialize when it has
 * one) in the ordinary build. Each argument is a file or a folder whose regular files are
 * replayed in name order; a folder that does not exist is skipped (a harness with no
 * regressions yet has none). A crash, a sanitizer report or an abort() in the harness fails
 * the test; so does replaying no input at all.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned replayed;

/* Replays one file; exits with status 1 when it cannot be read. */
static void replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "fuzz-replay: %s: %s\n", path, strerror(errno));
    exit(1);
  }
  size_t cap = 4096, len = 0, n;
  uint8_t *buf = malloc(cap);
  while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *p = realloc(buf, cap *= 2);
      if (p == NULL)
        free(buf);
      buf = p;
    }
  }
  if (buf == NULL || ferror(f)) {
    fprintf(stderr, "fuzz-replay: %s: cannot read it\n", path);
    exit(1);
  }
  fclose(f);
  printf("fuzz-replay: %s (%zu bytes)\n", path, len);
  fflush(stdout);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  replayed++;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

static void replay(const char *path) {
  struct stat st;
  if (stat(path, &st) < 0) {
    if (errno == ENOENT)
      return;
    fprintf(stderr, "fuzz-replay: %s: %s\n", path, strerror(errno));
    exit(1);
  }
  if (!S_ISDIR(st.st_mode)) {
    replay_file(path);
    return;
  }
  struct dirent **names;
  int n = scandir(path, &names, NULL, by_name);
  if (n < 0) {
    fprintf(stderr, "fuzz-replay: %s: %s\n", path, strerror(errno));
    exit(1);
  }
  for (int i = 0; i < n; i++) {
    char file[4096];
    snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
    if (names[i]->d_name[0] != '.' && stat(file, &st) == 0 && S_ISREG(st.st_mode))
      replay_file(file);
    free(names[i]);
  }
  free(names);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE-OR-FOLDER...\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++)
    replay(argv[i]);
  if (replayed == 0) {
    fprintf(stderr, "fuzz-replay: no input in any of the %d paths given\n", argc - 1);
    return 1;
  }
  printf("%u passed, 0 failed\n", replayed);
  return 0;
}
