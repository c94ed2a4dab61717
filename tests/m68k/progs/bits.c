/* bits.c -- bit twiddling: counts, rotations, reversals, bit-fields, byte swaps. */
#include <stdint.h>
#include <stdio.h>

static uint32_t rotl(uint32_t x, unsigned n) { return (x << (n & 31)) | (x >> ((32 - n) & 31)); }

static uint32_t reverse_bits(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
  return (x >> 16) | (x << 16);
}

static unsigned field(uint32_t x, unsigned off, unsigned width) {
  return (x >> off) & ((1u << width) - 1);
}

static int sfield(uint32_t x, unsigned off, unsigned width) {
  return (int)(x << (32 - off - width)) >> (32 - width);
}

int main(void) {
  uint32_t x = 0x12345678u, acc = 0;
  for (int i = 0; i < 1000; i++) {
    x = x * 2654435761u + (uint32_t)i;
    acc += (uint32_t)__builtin_popcount(x) + (uint32_t)(x ? __builtin_clz(x) : 32) +
           (uint32_t)(x ? __builtin_ctz(x) : 32);
    acc ^= rotl(x, (unsigned)i) + reverse_bits(x) + __builtin_bswap32(x);
    acc += field(x, (unsigned)i % 20, 9) + (uint32_t)sfield(x, (unsigned)i % 16, 11);
    acc += (uint32_t)(int8_t)x + (uint32_t)(int16_t)(x >> 3);
  }
  printf("acc %08x\n", acc);
  printf("popcount %d clz %d ctz %d rev %08x swap %08x\n", __builtin_popcount(0xF0F0u), __builtin_clz(1u),
         __builtin_ctz(0x80u), reverse_bits(1u), __builtin_bswap32(0xAABBCCDDu));
  uint64_t y = 0x0123456789ABCDEFull;
  printf("64: %016llx %016llx %d\n", (unsigned long long)(y >> 12 | y << 52), (unsigned long long)__builtin_bswap64(y),
         __builtin_popcountll(y));
  return (int)(acc >> 25);
}
