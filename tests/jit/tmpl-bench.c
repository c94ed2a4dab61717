/* tmpl-bench.c -- the benchmark's stencil pair: a ring queue's put and get, state and handlers in holes. */
#include <stdint.h>

extern char hole_q[];
extern char hole_mask[];
extern void hole_full(uint64_t v);
extern void hole_empty(void);

struct bq {
  uint64_t head, tail;
  uint64_t slot[];
};

/* Stores v, or calls the full handler when there is no room. */
int b_put(uint64_t v)
{
  struct bq *q = (struct bq *)(uintptr_t)hole_q;
  uint64_t mask = (uint64_t)(uintptr_t)hole_mask;
  uint64_t h = q->head;
  if (h - q->tail > mask) {
    hole_full(v);
    return 0;
  }
  q->slot[h & mask] = v;
  q->head = h + 1;
  return 1;
}

/* Takes the oldest item into *out, or calls the empty handler. */
int b_get(uint64_t *out)
{
  struct bq *q = (struct bq *)(uintptr_t)hole_q;
  uint64_t mask = (uint64_t)(uintptr_t)hole_mask;
  uint64_t t = q->tail;
  if (t == q->head) {
    hole_empty();
    return 0;
  }
  *out = q->slot[t & mask];
  q->tail = t + 1;
  return 1;
}
