/* bench.c -- the benchmark's integer workload: recursive Fibonacci and a sieve, repeated ROUNDS times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 100000

static unsigned char composite[LIMIT + 1];

static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned sieve(void) {
  unsigned count = 0;
  memset(composite, 0, sizeof composite);
  for (unsigned i = 2; i <= LIMIT; i++) {
    if (composite[i])
      continue;
    count++;
    for (unsigned j = i * 2; j <= LIMIT; j += i)
      composite[j] = 1;
  }
  return count;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  unsigned long check = 0;
  for (int r = 0; r < rounds; r++) {
    check += fib(24);
    check += sieve();
  }
  printf("rounds %d check %lu\n", rounds, check);
  return 0;
}
