/* jit-internal.h -- libjit's private declarations and compile-time options. */
#ifndef JIT_INTERNAL_H
#define JIT_INTERNAL_H

#include "jit.h"

/* --- Options: each with its default ------------------------------------- */

/* Bytes mapped per code memory chunk (one memfd, two views). */
#ifndef JIT_CODEMEM_CHUNK
#define JIT_CODEMEM_CHUNK (1u << 20)
#endif

/* Allocation granule of code memory: every allocation starts on one. */
#ifndef JIT_CODE_GRANULE
#define JIT_CODE_GRANULE 64u
#endif

/* Chunks are placed within this distance of the program text, so rel32
 * fields reach from any chunk to the text and to any other chunk. */
#ifndef JIT_REACH_WINDOW
#define JIT_REACH_WINDOW (1ull << 30)
#endif

/* Attempts at mapping a chunk at a chosen address before giving up (other
 * threads may map the same gap in between). */
#ifndef JIT_MAP_TRIES
#define JIT_MAP_TRIES 16
#endif

/* Alignment of link texts in a chain that do not fall through (x86-64). */
#ifndef JIT_TEXT_ALIGN
#define JIT_TEXT_ALIGN 16u
#endif

/* --- Internal helpers ---------------------------------------------------- */

/* The span of the loaded object holding libjit's code ([lo, hi)); 0 on
 * success. */
int jit__text_span(uintptr_t *lo, uintptr_t *hi);

/* Monotonic clock in nanoseconds. */
uint64_t jit__now_ns(void);

#endif /* JIT_INTERNAL_H */
