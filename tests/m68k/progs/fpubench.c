/* fpubench.c -- the FPU benchmark's workload: ROUNDS times 100 dot products of 1000 doubles,
 * 200000 floating-point operations (a multiply and an add each step) per round. It prints the
 * mean per round, not the growing sum, so that printing costs the same at every size but 0. */
#include <stdio.h>
#include <stdlib.h>

#define LEN 1000
#define REPEAT 100

static double a[LEN], b[LEN];

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  for (int i = 0; i < LEN; i++) {
    a[i] = i * 0.5 + 1.0;
    b[i] = 1.0 / (i + 1);
  }
  double s = 0;
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < REPEAT; k++)
      for (int i = 0; i < LEN; i++)
        s += a[i] * b[i];
  printf("rounds %d flops %ld mean %.6e\n", rounds, 2L * LEN * REPEAT * rounds,
         rounds > 0 ? s / rounds : 0.0);
  return 0;
}
