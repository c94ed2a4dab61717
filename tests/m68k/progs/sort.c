/* sort.c -- qsort and bsearch over integers and strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(void) {
  static int v[5000];
  unsigned s = 1;
  for (int i = 0; i < 5000; i++) {
    s = s * 1664525u + 1013904223u;
    v[i] = (int)(s >> 8) - (1 << 23);
  }
  qsort(v, 5000, sizeof v[0], cmp_int);
  long long sum = 0;
  int sorted = 1;
  for (int i = 0; i < 5000; i++) {
    sum += (long long)v[i] * (i + 1);
    if (i > 0 && v[i - 1] > v[i])
      sorted = 0;
  }
  printf("sorted %d min %d max %d median %d weighted %lld\n", sorted, v[0], v[4999], v[2500], sum);
  int key = v[1234];
  int *hit = bsearch(&key, v, 5000, sizeof v[0], cmp_int);
  printf("bsearch %d found at %td\n", key, hit != NULL ? hit - v : -1);
  const char *names[] = {"pear", "apple", "fig", "banana", "cherry", "date", "elderberry", "grape", "kiwi", "lemon"};
  qsort(names, 10, sizeof names[0], cmp_str);
  for (int i = 0; i < 10; i++)
    printf("%s%s", names[i], i == 9 ? "\n" : ", ");
  return sorted ? 0 : 1;
}
