/* arith.c -- 32- and 64-bit multiply, divide and remainder, signed and unsigned, checked by checksums. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static uint32_t seed = 12345;

static uint32_t next(void) {
  seed = seed * 1103515245u + 12345u;
  return seed ^ (seed >> 11);
}

int main(void) {
  uint32_t sum32 = 0;
  uint64_t sum64 = 0;
  for (int i = 0; i < 2000; i++) {
    uint32_t a = next(), b = next() >> (i % 31);
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    if (b == 0)
      b = 7;
    if (sb == 0 || (sa == INT32_MIN && sb == -1))
      sb = 3;
    sum32 += a * b + a / b + a % b;
    sum32 ^= (uint32_t)(sa * sb) + (uint32_t)(sa / sb) + (uint32_t)(sa % sb);
    uint64_t wa = (uint64_t)a * b;                  /* mulu.l 64 */
    int64_t ws = (int64_t)sa * sb;                   /* muls.l 64 */
    uint64_t big = ((uint64_t)next() << 32) | next();
    uint64_t d = ((uint64_t)next() << (i % 32)) | 1;
    sum64 += wa + (uint64_t)ws + big / d + big % d;
    sum64 ^= (uint64_t)((int64_t)big / ((int64_t)d | 1)) + (uint64_t)((int64_t)big % ((int64_t)d | 1));
    if (i % 400 == 0)
      printf("%d: %" PRIu32 " * %" PRIu32 " = %" PRIu64 "; %" PRId32 " / %" PRId32 " = %" PRId32
             " r %" PRId32 "; %" PRIu64 " / %" PRIu64 " = %" PRIu64 "\n",
             i, a, b, wa, sa, sb, sa / sb, sa % sb, big, d, big / d);
  }
  printf("sum32 %08" PRIx32 " sum64 %016" PRIx64 "\n", sum32, sum64);
  printf("limits %d %u %lld %llu\n", INT32_MIN, UINT32_MAX, (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
  printf("neg div %d %d %d %d\n", -7 / 2, -7 % 2, 7 / -2, 7 % -2);
  return (int)(sum32 & 0x3F);
}
