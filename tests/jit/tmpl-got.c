/* tmpl-got.c -- a template compiled as PIC on purpose: its hole is reached through the GOT, which stencilgen refuses. */
#include <stdint.h>

extern char hole_value[];

uint64_t g_ret(void)
{
  return (uint64_t)(uintptr_t)hole_value;
}
