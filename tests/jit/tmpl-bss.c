/* tmpl-bss.c -- a template keeping state in writable static data, which stencilgen refuses. */
#include <stdint.h>

static uint64_t count;

uint64_t w_count(void)
{
  return ++count;
}
