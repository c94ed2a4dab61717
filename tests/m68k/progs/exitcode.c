/* exitcode.c -- arguments, stderr, and an exit status passed through exit(). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  printf("argc %d\n", argc);
  for (int i = 1; i < argc; i++)
    printf("arg %d: %s\n", i, argv[i]);
  fprintf(stderr, "to stderr\n");
  fflush(stdout);
  exit(argc + 40);
}
