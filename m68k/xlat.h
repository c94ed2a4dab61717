/* xlat.h -- the translator's records shared by xlat.c and its stencils (xlat-templates.c). */
#ifndef QUA_M68K_XLAT_H
#define QUA_M68K_XLAT_H

#include <stdint.h>

struct m68k_cpu;
struct m68k__xlat_block;

/* One exit of a translated block to a known guest address (a branch
 * target, or where the block's straight-line code ends). `entry` is the
 * code of the block chained there, or NULL while there is none: the
 * exit's stencil jumps through it (xlat.c note 3). */
typedef struct m68k__xlat_exit {
  void (*entry)(struct m68k_cpu *c);
  uint32_t target;
  struct m68k__xlat_block *from; /* the block this exit ends */
  struct m68k__xlat_block *to;   /* the block chained to, or NULL */
  struct m68k__xlat_exit *next_in; /* the next exit chained to `to` */
} m68k__xlat_exit_t;

/* The return cache (xlat.c note 10): direct-mapped by M68K_XLAT_JC_HASH
 * from a guest PC to the entry of the live block there; `pc` is odd (never
 * an RTS's target) where the slot is empty. It is the first member of the
 * translator, so that the stencils reach it through the CPU's `xlat`. */
#define M68K_XLAT_JC 1024 /* slots (a power of 2) */
#define M68K_XLAT_JC_HASH(pc) (((pc) >> 1) & (M68K_XLAT_JC - 1))

typedef struct m68k__xlat_jc {
  uint32_t pc;
  void (*entry)(struct m68k_cpu *c);
} m68k__xlat_jc_t;

#endif /* QUA_M68K_XLAT_H */
