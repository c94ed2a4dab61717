/* m68000-nolibc.c -- the 68000 differential program: integer work without libc, printed through raw write and exit system calls.
 *
 * Debian's static glibc and libgcc are 68020 code, so a -m68000 program
 * that is to run on a 68000 brings its own start-up, output and the 32-bit
 * multiply and divide helpers gcc calls (__mulsi3, __udivsi3, ...). Built
 * with -m68000 -nostdlib -ffreestanding, no libgcc.
 */
typedef unsigned long u32;
typedef long s32;

void start_c(u32 *sp) __attribute__((noreturn, used));
void *memcpy(void *d, const void *s, unsigned long n);
void *memset(void *d, int c, unsigned long n);

/* Linux puts argc at the stack pointer; hand it to C. */
__asm__(".globl _start\n"
        "_start:\n"
        "\tmove.l %sp,-(%sp)\n"
        "\tjsr start_c\n");

u32 __mulsi3(u32 a, u32 b);
u32 __udivsi3(u32 n, u32 d);
u32 __umodsi3(u32 n, u32 d);
s32 __divsi3(s32 a, s32 b);
s32 __modsi3(s32 a, s32 b);

u32 __mulsi3(u32 a, u32 b) {
  u32 r = 0;
  for (; b != 0; b >>= 1, a <<= 1)
    if (b & 1)
      r += a;
  return r;
}

/* Shift-and-subtract division; *rem gets the remainder. */
static u32 udivmod(u32 n, u32 d, u32 *rem) {
  u32 q = 0, r = 0;
  for (int i = 31; i >= 0; i--) {
    r = (r << 1) | ((n >> i) & 1);
    if (r >= d) {
      r -= d;
      q |= 1ul << i;
    }
  }
  *rem = r;
  return q;
}

u32 __udivsi3(u32 n, u32 d) {
  u32 r;
  return udivmod(n, d, &r);
}

u32 __umodsi3(u32 n, u32 d) {
  u32 r;
  udivmod(n, d, &r);
  return r;
}

s32 __divsi3(s32 a, s32 b) {
  u32 r, q = udivmod(a < 0 ? -(u32)a : (u32)a, b < 0 ? -(u32)b : (u32)b, &r);
  return (a < 0) != (b < 0) ? -(s32)q : (s32)q;
}

s32 __modsi3(s32 a, s32 b) {
  u32 r;
  udivmod(a < 0 ? -(u32)a : (u32)a, b < 0 ? -(u32)b : (u32)b, &r);
  return a < 0 ? -(s32)r : (s32)r;
}

static long sys3(long n, long a, long b, long c) {
  register long d0 __asm__("d0") = n;
  register long d1 __asm__("d1") = a;
  register long d2 __asm__("d2") = b;
  register long d3 __asm__("d3") = c;
  __asm__ volatile("trap #0" : "+d"(d0) : "d"(d1), "d"(d2), "d"(d3) : "memory");
  return d0;
}

void *memcpy(void *d, const void *s, unsigned long n) {
  unsigned char *dp = d;
  const unsigned char *sp = s;
  while (n--)
    *dp++ = *sp++;
  return d;
}

void *memset(void *d, int c, unsigned long n) {
  unsigned char *dp = d;
  while (n--)
    *dp++ = (unsigned char)c;
  return d;
}

static char out[4096];
static unsigned outn;

static void flush(void) {
  sys3(4, 1, (long)out, (long)outn);
  outn = 0;
}

static void putc_(char c) {
  if (outn == sizeof out)
    flush();
  out[outn++] = c;
}

static void puts_(const char *s) {
  while (*s)
    putc_(*s++);
}

static void putu(u32 v) {
  char buf[12];
  int n = 0;
  do {
    buf[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    putc_(buf[--n]);
}

static void puts_num(const char *label, s32 v) {
  puts_(label);
  if (v < 0) {
    putc_('-');
    putu((u32)-v);
  } else {
    putu((u32)v);
  }
  putc_('\n');
}

static u32 fib(u32 n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static u32 ack(u32 m, u32 n) {
  if (m == 0)
    return n + 1;
  if (n == 0)
    return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static unsigned char composite[20001];

static u32 sieve(u32 limit) {
  u32 count = 0;
  memset(composite, 0, sizeof composite);
  for (u32 i = 2; i <= limit; i++) {
    if (composite[i])
      continue;
    count++;
    for (u32 j = i * 2; j <= limit; j += i)
      composite[j] = 1;
  }
  return count;
}

struct rec {
  short a;
  long b;
  char name[21];
};

static struct rec make(int i) {
  struct rec r;
  memset(&r, 0, sizeof r);
  r.a = (short)(i * 3 - 7);
  r.b = (long)i * 100003L;
  for (int k = 0; k < 20; k++)
    r.name[k] = (char)('a' + (i + k) % 26);
  return r;
}

static int classify(int x) {
  switch (x & 15) {
  case 0: return 11;
  case 1: return -4;
  case 2: return 9;
  case 3: return 30;
  case 4: return 2;
  case 5: return -17;
  case 6: return 6;
  case 7: return 1;
  default: return x >> 2;
  }
}

void start_c(u32 *sp) {
  s32 argc = (s32)sp[0];
  puts_num("argc ", argc);
  for (u32 i = 0; i <= 21; i += 7)
    puts_num("fib ", (s32)fib(i));
  puts_num("ack(2,3) ", (s32)ack(2, 3));
  puts_num("primes to 20000 ", (s32)sieve(20000));

  u32 seed = 99, sum = 0;
  s32 ssum = 0;
  for (int i = 0; i < 500; i++) {
    seed = seed * 1103515245u + 12345u;
    u32 a = seed >> 3, b = (seed >> (i % 23)) | 1;
    s32 sa = (s32)seed, sb = (s32)(b | 3) * ((i & 1) ? -1 : 1);
    sum += a * b + a / b + a % b;
    ssum ^= sa / sb + sa % sb + sa * 7;
  }
  puts_num("sum ", (s32)sum);
  puts_num("ssum ", ssum);

  struct rec recs[8];
  for (int i = 0; i < 8; i++)
    recs[i] = make(i);
  struct rec t = recs[2];
  recs[2] = recs[5];
  recs[5] = t;
  s32 rs = 0;
  for (int i = 0; i < 8; i++)
    rs += recs[i].a * (i + 1) + recs[i].b % 1000 + recs[i].name[i];
  puts_num("records ", rs);

  s32 cs = 0;
  for (int i = -40; i < 40; i++)
    cs = cs * 3 + classify(i);
  puts_num("classify ", cs);

  u32 bits = 0x12345678u, acc = 0;
  for (int i = 0; i < 64; i++) {
    bits = (bits << 5) | (bits >> 27);
    acc += (bits & 0xFF) ^ (bits >> 24);
    acc ^= (u32)(signed char)bits + (u32)(short)(bits >> 8);
  }
  puts_num("bits ", (s32)acc);
  flush();
  sys3(1, (long)((sum ^ (sum >> 9)) & 0x7F), 0, 0);
  for (;;)
    ;
}
