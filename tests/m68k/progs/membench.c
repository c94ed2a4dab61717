/* membench.c -- the benchmark's memory-bound workload: pointer chasing, a copy and a hash over 1.5 MiB, repeated ROUNDS times. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 1 MiB ring of indices to chase and two 256 KiB buffers: more than a
 * host core's L2, far more than a cache-friendly loop touches, and small
 * enough that building them costs few instructions (the benchmark traces
 * the program under qemu to count them). */
#define RING (1u << 18)
#define CHASE (1u << 15)
#define WORDS (1u << 16)

static uint32_t next[RING];
static uint32_t src[WORDS], dst[WORDS];

/* next[i] = (5 i + 7) mod RING: an LCG with a full period, so the ring is
 * one cycle through every slot, visited in an order no prefetcher follows
 * (successive addresses are 4 i + 7 slots apart). */
static void build(void) {
  for (uint32_t i = 0; i < RING; i++)
    next[i] = (i * 5u + 7u) & (RING - 1);
  uint32_t s = 12345;
  for (uint32_t i = 0; i < WORDS; i++)
    src[i] = s += 0x9e3779b9u; /* a Weyl sequence: cheap, and every word differs */
}

/* One round: CHASE steps along the ring, the walk's end stored into the
 * source, the source copied, and the copy hashed (FNV-1a over words). */
static uint32_t round_of(uint32_t start) {
  uint32_t i = start, sum = 0;
  for (uint32_t k = 0; k < CHASE; k++) {
    i = next[i];
    sum += i;
  }
  src[sum & (WORDS - 1)] ^= i;
  memcpy(dst, src, sizeof dst);
  uint32_t h = 2166136261u;
  for (uint32_t k = 0; k < WORDS; k++)
    h = (h ^ dst[k]) * 16777619u;
  return h ^ sum;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  if (rounds < 0) {
    fprintf(stderr, "membench: ROUNDS must be >= 0\n");
    return 2;
  }
  build();
  uint32_t check = 0, start = 0;
  for (int r = 0; r < rounds; r++) {
    uint32_t h = round_of(start);
    check = check * 31u + h;
    start = h & (RING - 1);
  }
  printf("rounds %d check %08lx\n", rounds, (unsigned long)check);
  return 0;
}
