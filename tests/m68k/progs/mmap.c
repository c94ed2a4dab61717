/* mmap.c -- memory that is mapped and unmapped over and over, as malloc does for large blocks:
 * freed ranges must be usable again, and many scattered holes must not break mapping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096

static void *map(size_t len) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

int main(void) {
  /* 200 rounds of 8 MB: far more than a 64 MB machine holds at once. */
  int ok = 1;
  for (int i = 0; i < 200 && ok; i++) {
    char *p = map(8u << 20);
    ok = p != NULL;
    if (ok) {
      p[0] = (char)i;
      p[(8u << 20) - 1] = (char)i;
      ok = munmap(p, 8u << 20) == 0;
    }
  }
  printf("200 rounds of 8 MB mapped and unmapped: %s\n", ok ? "ok" : "FAILED");
  /* Each round maps a new block before it unmaps the previous one, which
   * is then not the lowest mapping: its space must still come back. */
  char *prev = NULL;
  ok = 1;
  for (int i = 0; i < 100 && ok; i++) {
    char *p = map(8u << 20);
    ok = p != NULL;
    if (ok)
      p[(8u << 20) - 1] = (char)i;
    if (prev != NULL)
      ok &= munmap(prev, 8u << 20) == 0;
    prev = p;
  }
  printf("100 rounds of 8 MB, each unmapped after the next is mapped: %s\n", ok ? "ok" : "FAILED");

  /* 1200 pages, every other one unmapped: 600 holes, more than a small table keeps. */
  enum { N = 1200 };
  static char *pages[N];
  int mapped = 0;
  for (int i = 0; i < N; i++)
    mapped += (pages[i] = map(PAGE)) != NULL;
  int unmapped = 0;
  for (int i = 0; i < N; i += 2)
    unmapped += munmap(pages[i], PAGE) == 0;
  int again = 0, zero = 1;
  for (int i = 0; i < N / 2; i++) {
    char *p = map(PAGE);
    if (p != NULL) {
      again++;
      for (int k = 0; k < PAGE; k += 512)
        zero &= p[k] == 0;
      memset(p, 0xAB, PAGE);
    }
  }
  printf("pages mapped %d, unmapped %d, mapped again %d, fresh pages zeroed %d\n", mapped, unmapped,
         again, zero);
  /* The odd pages were not disturbed by the reuse of the even ones. */
  int intact = 1;
  for (int i = 1; i < N; i += 2)
    intact &= pages[i][0] == 0 && pages[i][PAGE - 1] == 0;
  printf("pages between the holes intact %d\n", intact);
  /* malloc and free of large blocks, growing (realloc). */
  char *b = NULL;
  size_t n = 0;
  for (int i = 0; i < 12; i++) {
    n = (size_t)(64u << 10) << (i % 9);
    char *nb = realloc(b, n);
    if (nb == NULL)
      break;
    b = nb;
    b[n - 1] = 1;
  }
  printf("realloc up to %zu bytes: %s\n", n, b != NULL ? "ok" : "FAILED");
  free(b);
  return 0;
}
