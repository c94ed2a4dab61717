/* smp-counter.c -- two CPUs increment one shared counter N times each; the halt code is the final count.
 *
 * Built three ways (-DINCREMENT=...):
 *   1 CAS:   load, then cas.l until it succeeds
 *   2 CAS2:  cas2.l moves the counter and a shadow word together; a torn
 *            pair halts with 0xFFFFFFFF
 *   3 PLAIN: load, add, store in three instructions: not atomic, so some
 *            interleavings lose increments
 *   4 TAS:   a spin lock taken with tas.b around the plain increment; the
 *            68000's only read-modify-write, so this one builds -m68000
 * CPU 0 waits for every CPU to finish, then writes the counter to HALT.
 */
#include <stdint.h>

#ifndef N
#define N 200
#endif
#ifndef INCREMENT
#define INCREMENT 1
#endif

#define DEV(off) (*(volatile uint32_t *)(0xFFFFF000u + (off)))
#define DEV_NCPUS 0x08u
#define DEV_HALT 0x0Cu

static volatile uint32_t counter;
static volatile uint32_t shadow;
static volatile uint32_t finished;
static volatile uint8_t lock;

void cpu_main(uint32_t id);

/* cas.l: returns the value memory held (equal to cmp when it swapped). */
static inline uint32_t cas32(volatile uint32_t *p, uint32_t cmp, uint32_t upd) {
  __asm__ volatile("cas.l %0,%2,%1" : "+d"(cmp), "+m"(*p) : "d"(upd) : "cc", "memory");
  return cmp;
}

/* cas2.l on (p1):(p2); true when both compared equal and were replaced. */
static inline int cas2_32(volatile uint32_t *p1, volatile uint32_t *p2, uint32_t *c1, uint32_t *c2,
                          uint32_t u1, uint32_t u2) {
  uint32_t d1 = *c1, d2 = *c2;
  unsigned char ok;
  __asm__ volatile("cas2.l %0:%1,%3:%4,(%5):(%6)\n\tseq %2"
                   : "+d"(d1), "+d"(d2), "=d"(ok)
                   : "d"(u1), "d"(u2), "a"(p1), "a"(p2)
                   : "cc", "memory");
  *c1 = d1;
  *c2 = d2;
  return ok != 0;
}

static void increment(void) {
#if INCREMENT == 1
  uint32_t old = counter, seen;
  while ((seen = cas32(&counter, old, old + 1)) != old)
    old = seen;
#elif INCREMENT == 2
  uint32_t c = counter, s = shadow;
  while (!cas2_32(&counter, &shadow, &c, &s, c + 1, s + 1))
    ;
#elif INCREMENT == 4
  uint32_t tmp;
  __asm__ volatile("1:\ttas %1\n\tbne.s 1b" : "+m"(lock) : : "cc", "memory");
  __asm__ volatile("move.l %1,%0\n\taddq.l #1,%0\n\tmove.l %0,%1" : "=&d"(tmp), "+m"(counter) : : "cc", "memory");
  __asm__ volatile("clr.b %0" : "+m"(lock) : : "memory");
#else
  uint32_t tmp;
  __asm__ volatile("move.l %1,%0\n\taddq.l #1,%0\n\tmove.l %0,%1" : "=&d"(tmp), "+m"(counter) : : "cc", "memory");
#endif
}

void cpu_main(uint32_t id) {
  for (int i = 0; i < N; i++)
    increment();
#if INCREMENT == 4
  __asm__ volatile("1:\ttas %0\n\tbne.s 1b" : "+m"(lock) : : "cc", "memory");
  finished = finished + 1;
  __asm__ volatile("clr.b %0" : "+m"(lock) : : "memory");
#else
  uint32_t f = finished;
  while (cas32(&finished, f, f + 1) != f)
    f = finished;
#endif
  if (id != 0)
    return;
  while (finished != DEV(DEV_NCPUS))
    ;
#if INCREMENT == 2
  if (shadow != counter)
    DEV(DEV_HALT) = 0xFFFFFFFFu;
#endif
  DEV(DEV_HALT) = counter;
}
