/* tmpl-imm8.c -- a test template whose hole is an 8-bit immediate inside an instruction (a shift count). */
#include <stdint.h>

extern char hole_shift[];

/* Its argument shifted left by the hole: x86-64 `shl $imm8`, where GCC
 * alone would move the hole's value into CL. */
uint64_t t_shl(uint64_t x)
{
  __asm__("shlq $hole_shift, %0" : "+r"(x));
  return x;
}
