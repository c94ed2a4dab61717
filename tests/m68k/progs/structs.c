/* structs.c -- struct copies, structs by value, unions, bit-fields and arrays of structs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct big {
  int id;
  char name[40];
  short s[7];
  long long ll;
};

struct bits {
  unsigned a : 3;
  unsigned b : 7;
  signed c : 5;
  unsigned d : 17;
};

union word {
  uint32_t u;
  uint16_t h[2];
  uint8_t b[4];
};

static struct big make(int id) {
  struct big r;
  memset(&r, 0, sizeof r);
  r.id = id;
  snprintf(r.name, sizeof r.name, "item-%d", id);
  for (int i = 0; i < 7; i++)
    r.s[i] = (short)(id * i - 3);
  r.ll = (long long)id * 1000000007LL;
  return r;
}

static long long score(struct big b) {
  long long t = b.id + b.ll;
  for (int i = 0; i < 7; i++)
    t += b.s[i] * (i + 1);
  return t + (long long)strlen(b.name);
}

int main(void) {
  struct big arr[16];
  for (int i = 0; i < 16; i++)
    arr[i] = make(i * 7 - 20);
  struct big tmp = arr[3];
  arr[3] = arr[12];
  arr[12] = tmp;
  long long total = 0;
  for (int i = 0; i < 16; i++)
    total += score(arr[i]) * (i + 1);
  printf("total %lld, arr[3] %s, arr[12] %s, sizeof big %zu\n", total, arr[3].name, arr[12].name, sizeof(struct big));
  struct bits bf = {5, 100, -9, 70000};
  bf.b += 30;
  bf.c += 3;
  bf.d ^= 0x1FFFF;
  printf("bits %u %u %d %u sizeof %zu\n", bf.a, bf.b, bf.c, bf.d, sizeof bf);
  union word w = {.u = 0x11223344u};
  printf("union %04x %04x %02x %02x %02x %02x\n", w.h[0], w.h[1], w.b[0], w.b[1], w.b[2], w.b[3]);
  return (int)(total & 0x7F);
}
