/* tmpl-basic.c -- test templates: a hole's value, a hole constant added, a tail call, a chain link, a data load. */
#include <stdint.h>

extern char hole_value[];
extern char hole_k[];
extern char hole_cell[];
extern uint64_t hole_fn(uint64_t);
extern uint64_t hole_next(uint64_t);

/* Returns the hole's value. */
uint64_t t_ret(void)
{
  return (uint64_t)(uintptr_t)hole_value;
}

/* Adds the hole constant to its argument. */
uint64_t t_add(uint64_t x)
{
  return x + (uint64_t)(uintptr_t)hole_k;
}

/* Tail-calls the hole function with 3x + 1. */
uint64_t t_tail(uint64_t x)
{
  return hole_fn(x * 3 + 1);
}

/* A chain link: adds the constant, then continues into the next link. */
uint64_t t_link(uint64_t x)
{
  return hole_next(x + (uint64_t)(uintptr_t)hole_k);
}

/* Calls the hole function twice (not a tail call), then adds the constant. */
uint64_t t_call2(uint64_t x)
{
  return hole_fn(hole_fn(x)) + (uint64_t)(uintptr_t)hole_k;
}

/* Loads the word at the hole's address. */
uint64_t t_load(void)
{
  return *(volatile uint64_t *)(uintptr_t)hole_cell;
}
