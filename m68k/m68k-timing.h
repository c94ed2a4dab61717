/* m68k-timing.h -- the MC68030's instruction overlap rule, written once for the generator and the core.
 *
 * The MC68030 User's Manual (third edition), section 11.3: an instruction's
 * cache-case time (CC: its prefetches hit the instruction cache) has a head,
 * the clocks at its start that can run while the previous instruction
 * finishes, and a tail, the clocks at its end (a write completing) that can
 * run under the next one. Two consecutive instructions overlap by the lesser
 * of the first's tail and the second's head:
 *
 *   Equation 11-1   CC1 + [CC2 - min(H2, T1)] + [CC3 - min(H3, T2)] + ...
 *
 * An instruction with an effective-address component (the tables of 11.6.1
 * to 11.6.5) is that component followed by its operation, composed by the
 * same rule (Equation 11-2); its head is the component's (plus the
 * operation's where the table gives "n + op head"), its tail the
 * operation's. A register operand has no component: the operation overlaps
 * the previous instruction directly.
 */
#ifndef QUA_M68K_TIMING_H
#define QUA_M68K_TIMING_H

#include <stdbool.h>

typedef struct m68k__timing {
  unsigned cc;   /* cache-case clocks, no overlap */
  unsigned head; /* clocks at the start the previous tail may cover */
  unsigned tail; /* clocks at the end the next head may cover */
} m68k__timing_t;

/* The lesser of a and b: the overlap of a tail and a head. */
static inline unsigned m68k__timing_min(unsigned a, unsigned b)
{
  return a < b ? a : b;
}

/* Equation 11-2: the instruction made of effective-address component `ea`
 * and operation `op`; `plus` when the component's head is "n + op head". */
static inline m68k__timing_t m68k__timing_compose(m68k__timing_t ea, bool plus, m68k__timing_t op)
{
  unsigned ov = m68k__timing_min(op.head, ea.tail);
  return (m68k__timing_t){ea.cc + op.cc - ov, ea.head + (plus ? op.head : 0), op.tail};
}

/* Equation 11-1: the clocks instruction `t` adds after an instruction whose
 * tail is *tail (0 at the start of a stream); *tail becomes t's. */
static inline unsigned m68k__timing_next(unsigned *tail, m68k__timing_t t)
{
  unsigned ov = m68k__timing_min(m68k__timing_min(t.head, *tail), t.cc);
  *tail = t.tail;
  return t.cc - ov;
}

#endif
