/* sigdie.c -- a process ended by a signal's default action: abort() (SIGABRT), or, with the
 * argument fpe, a floating-point division by zero that the FPCR traps, with no handler. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  printf("about to die\n");
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "fpe") == 0) {
    volatile double z = 0.0, y = 1.0;
    feenableexcept(FE_DIVBYZERO);
    y = y / z;
    y = y + 1;
    printf("still alive: %g\n", y);
    return 0;
  }
  abort();
}
