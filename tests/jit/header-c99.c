/* header-c99.c -- compiles jit.h alone as C99 with -pedantic-errors, to keep the public header clean. */
#include "jit.h"

int jit_header_c99_probe(void);
int jit_header_c99_probe(void)
{
  return JIT_HOLE_KIND_COUNT + JIT_ERANGE;
}
