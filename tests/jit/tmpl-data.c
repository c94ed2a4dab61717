/* tmpl-data.c -- test templates that reference their own read-only data: a jump table, a constant pool. */
#include <stdint.h>

extern char hole_k[];

/* A dense switch: with jump tables on, a table in .rodata pointing back into the code. */
uint64_t t_switch(uint64_t x, uint64_t y)
{
  switch (x) {
  case 0: return y + 3;
  case 1: return y * 7;
  case 2: return y - 9;
  case 3: return y ^ 11;
  case 4: return y * y;
  case 5: return y << 5;
  case 6: return y + (uint64_t)(uintptr_t)hole_k;
  default: return 0;
  }
}

/* A floating constant from the constant pool, read RIP-relative. */
double t_scale(double x)
{
  return x * 1.25 + 0.5;
}

/* A string's byte: the string lives in .rodata.str. */
uint64_t t_str(uint64_t i)
{
  static const char s[] = "stencil";
  return (uint64_t)(unsigned char)s[i & 7];
}
