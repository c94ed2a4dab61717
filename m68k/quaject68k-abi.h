/* quaject68k-abi.h -- the callentries' register convention, for 68k template code (quaject68k.h).
 *
 * Included by the templates compiled for the 68030 (quaject68k-templates.c,
 * qjdrive-templates.c), which gcc builds with -fcall-used-d2 -fcall-used-d3
 * -fcall-used-d4 -fcall-used-a2: an entry takes its argument in d1, returns
 * d0:d1 (status, value) and may clobber d0-d4/a0-a2.
 */
#ifndef QUA_M68K_QUAJECT68K_ABI_H
#define QUA_M68K_QUAJECT68K_ABI_H

#include <stdint.h>

/* The argument: d1 as it was at entry. The asm must be the function's
 * first statement; it clobbers memory, so nothing is loaded or computed
 * into d1 before it. */
#define QK_ARG()                                                               \
  ({                                                                           \
    register uint32_t arg_ __asm__("d1");                                      \
    __asm__ volatile("" : "=d"(arg_) : : "memory");                            \
    arg_;                                                                      \
  })

/* Calls the code at `hole` (an extern symbol: a jsr to an absolute hole)
 * with `x` in d1 and gives its d0:d1. */
#define QK_CALL(hole, x)                                                       \
  ({                                                                           \
    register uint64_t r_ __asm__("d0") = (uint32_t)(x);                        \
    __asm__ volatile("jsr " #hole                                              \
                     : "+d"(r_)                                                \
                     :                                                         \
                     : "d2", "d3", "d4", "a0", "a1", "a2", "cc", "memory");    \
    r_;                                                                        \
  })

/* The folded forms' exit on success (quaject68k-templates.c, notes F1 and
 * F6): the value in d1, d0 left as it came (0, the status OK), then on to
 * the hole qk_next, the code that follows the operation in its caller.
 * Chained (jit_emit_chain), the jump that ends the template is dropped and
 * the operation falls through into its caller's next instruction. */
#define QK_FALL_OK(x)                                                          \
  do {                                                                         \
    register uint32_t f_ __asm__("d1") = (x);                                  \
    __asm__ volatile("jmp qk_next" : : "d"(f_) : "memory");                    \
    __builtin_unreachable();                                                   \
  } while (0)

#endif
