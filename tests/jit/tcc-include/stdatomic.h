/* stdatomic.h -- the C11 atomics the quaject templates use, for libtcc (bench-jit), which has none.
 *
 * bench-jit compiles the real template source (quaject/queue-templates.c) with libtcc; tcc
 * 0.9.27 knows neither _Atomic nor the __atomic builtins. On x86-64 (TSO) a plain load has
 * acquire and a plain store release semantics in hardware, and tcc does not reorder memory
 * accesses, so volatile loads and stores give what the templates ask for; the read-modify-writes
 * are lock-prefixed instructions (full barriers). x86-64 only; 4- and 8-byte objects.
 */
#ifndef QUA_TCC_STDATOMIC_H
#define QUA_TCC_STDATOMIC_H

#if !defined(__x86_64__)
#error "the tcc atomics shim is for x86-64"
#endif

#define _Atomic volatile

typedef enum memory_order {
  memory_order_relaxed,
  memory_order_consume,
  memory_order_acquire,
  memory_order_release,
  memory_order_acq_rel,
  memory_order_seq_cst
} memory_order;

#define atomic_load_explicit(p, o) (*(p))
#define atomic_store_explicit(p, v, o) ((void)(*(p) = (v)))
#define __atomic_load_n(p, o) (*(p))

static inline unsigned long long qua_tcc_xadd(volatile void *p, int size, unsigned long long v)
{
  if (size == 8)
    __asm__ __volatile__("lock; xaddq %0, %1" : "+r"(v), "+m"(*(volatile unsigned long long *)p) : : "memory");
  else {
    unsigned int w = (unsigned int)v;
    __asm__ __volatile__("lock; xaddl %0, %1" : "+r"(w), "+m"(*(volatile unsigned int *)p) : : "memory");
    v = w;
  }
  return v;
}

static inline _Bool qua_tcc_cas(volatile void *p, int size, void *expected, unsigned long long desired)
{
  unsigned char ok;
  if (size == 8) {
    unsigned long long e = *(unsigned long long *)expected;
    __asm__ __volatile__("lock; cmpxchgq %3, %1; sete %0"
                         : "=q"(ok), "+m"(*(volatile unsigned long long *)p), "+a"(e)
                         : "r"(desired) : "memory");
    *(unsigned long long *)expected = e;
  } else {
    unsigned int e = *(unsigned int *)expected, d = (unsigned int)desired;
    __asm__ __volatile__("lock; cmpxchgl %3, %1; sete %0"
                         : "=q"(ok), "+m"(*(volatile unsigned int *)p), "+a"(e)
                         : "r"(d) : "memory");
    *(unsigned int *)expected = e;
  }
  return ok;
}

#define atomic_fetch_add_explicit(p, v, o) \
  ((__typeof__(*(p)))qua_tcc_xadd((p), sizeof *(p), (unsigned long long)(v)))
#define atomic_fetch_sub_explicit(p, v, o) \
  ((__typeof__(*(p)))qua_tcc_xadd((p), sizeof *(p), -(unsigned long long)(v)))
#define atomic_compare_exchange_strong_explicit(p, e, d, s, f) \
  qua_tcc_cas((p), sizeof *(p), (e), (unsigned long long)(d))
#define atomic_compare_exchange_weak_explicit atomic_compare_exchange_strong_explicit

#endif
