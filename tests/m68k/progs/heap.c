/* heap.c -- malloc, realloc and free, small (brk) and large (mmap) blocks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  void *slots[256] = {0};
  uint32_t s = 7, check = 0;
  for (int round = 0; round < 4000; round++) {
    s = s * 1103515245u + 12345u;
    unsigned k = (s >> 16) & 255;
    if (slots[k] != NULL) {
      check += ((unsigned char *)slots[k])[0];
      free(slots[k]);
      slots[k] = NULL;
    } else {
      size_t n = 1 + ((s >> 4) & 1023);
      slots[k] = malloc(n);
      memset(slots[k], (int)(k & 0xFF), n);
    }
  }
  char *big = malloc(3u << 20); /* above the mmap threshold */
  for (size_t i = 0; i < (3u << 20); i += 4096)
    big[i] = (char)(i >> 12);
  long bsum = 0;
  for (size_t i = 0; i < (3u << 20); i += 4096)
    bsum += big[i];
  free(big);
  char *r = NULL;
  for (int i = 1; i <= 64; i++) {
    r = realloc(r, (size_t)i * 100);
    r[(size_t)i * 100 - 1] = (char)i;
  }
  long rsum = 0;
  for (int i = 1; i <= 64; i++)
    rsum += r[(size_t)i * 100 - 1];
  free(r);
  for (int k = 0; k < 256; k++)
    free(slots[k]);
  printf("check %u big %ld realloc %ld\n", check, bsum, rsum);
  return 0;
}
