/* tmpl-cold.c -- test templates split by GCC into a hot and a cold part (-freorder-blocks-and-partition). */
#include <stdint.h>

extern char hole_k[];
extern uint64_t hole_slow(uint64_t) __attribute__((cold));
extern uint64_t hole_next(uint64_t);

/* A chain link guarded by a bound: past the hole constant, the cold part
 * calls the slow function and returns its value plus one; below it, on
 * into the next link with x + 1. */
uint64_t t_guard(uint64_t x)
{
  if (x > (uint64_t)(uintptr_t)hole_k)
    return hole_slow(x) + 1;
  return hole_next(x + 1);
}

/* The chain's end: x times 2. */
uint64_t t_end(uint64_t x)
{
  return x * 2;
}
