/* sieve.c -- the sieve of Eratosthenes. */
#include <stdio.h>
#include <string.h>

#define LIMIT 200000

static unsigned char composite[LIMIT + 1];

int main(void) {
  memset(composite, 0, sizeof composite);
  unsigned count = 0, last = 0;
  unsigned long sum = 0;
  for (unsigned i = 2; i <= LIMIT; i++) {
    if (composite[i])
      continue;
    count++;
    last = i;
    sum += i;
    for (unsigned j = i * 2; j <= LIMIT; j += i)
      composite[j] = 1;
  }
  printf("%u primes up to %u, the last %u, their sum %lu\n", count, LIMIT, last, sum);
  for (unsigned i = LIMIT - 100; i <= LIMIT; i++)
    if (!composite[i])
      printf("%u ", i);
  printf("\n");
  return (int)(count % 200);
}
