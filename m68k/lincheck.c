/* lincheck.c -- linearizability of a history against a sequential specification (WGL search).
 *
 * Design notes
 *
 * 1. A history is n completed operations with invocation and response
 *    times. It is linearizable when some total order of the operations
 *    (a) respects real time (A.resp < B.inv puts A before B) and (b) is a
 *    legal sequential run of the specification giving every operation the
 *    result it actually returned (Herlihy and Wing 1990).
 * 2. The search (Wing and Gong 1993, as improved by Lowe 2017, the form
 *    porcupine uses): the invocation and response events sit in one list
 *    in time order. Walking from its head, an invocation whose operation
 *    can go next in the specification with its actual result is
 *    linearised: it is applied, pushed on a stack with the state before,
 *    and both its events are lifted out of the list; the walk restarts at
 *    the head. Reaching a response means its operation was not linearised
 *    although everything before it in real time was tried: the last
 *    choice is undone (pop, restore the state, put its events back) and
 *    the walk goes on after that invocation. An empty list is a
 *    linearisation (the stack, bottom up); backtracking past an empty
 *    stack proves there is none.
 * 3. Only operations whose invocation precedes every pending response can
 *    be tried: those are exactly the ones before the first response in the
 *    list, i.e. the minimal operations (condition (a)).
 * 4. Memo: the outcome from a configuration depends only on the set of
 *    linearised operations and the specification's state. A linearisation
 *    that reaches a (set, state) pair already explored is skipped, which
 *    turns the exponential search into one bounded by the distinct pairs.
 */
#include "explore.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The specification's state: the counter's value, or the values held
 * (bottom/front first). At most M68K_LIN_MAX_OPS values can be in. */
typedef struct lin_state {
  uint32_t len;
  uint32_t v[M68K_LIN_MAX_OPS];
} lin_state_t;

/* Applies op to *s when the specification allows it with op's actual
 * result; false (s unchanged) otherwise. */
static bool apply(m68k_lin_spec_t spec, uint32_t capacity, lin_state_t *s,
                  const m68k_lin_op_t *op) {
  if (spec == M68K_LIN_COUNTER) {
    uint32_t now = s->v[0]; /* len is 1 */
    if (op->kind == M68K_LIN_ADD) {
      if (op->value != now + op->arg)
        return false;
      s->v[0] = now + op->arg;
      return true;
    }
    return op->value == now;
  }
  bool full = (spec != M68K_LIN_LIST && capacity != 0 && s->len >= capacity) ||
              s->len == M68K_LIN_MAX_OPS;
  if (op->kind == M68K_LIN_INSERT) {
    if (!op->ok)
      return full;
    if (full)
      return false;
    s->v[s->len++] = op->arg;
    return true;
  }
  if (!op->ok)
    return s->len == 0;
  if (s->len == 0)
    return false;
  if (spec == M68K_LIN_QUEUE) {
    if (s->v[0] != op->value)
      return false;
    memmove(s->v, s->v + 1, (s->len - 1) * sizeof s->v[0]);
    s->len--;
    return true;
  }
  if (s->v[s->len - 1] != op->value)
    return false;
  s->len--;
  return true;
}

/* ---- The memo (note 4): an open-addressing set of (set, state) ---------- */

typedef struct memo_entry {
  uint64_t set;
  uint64_t hash;
  lin_state_t *state;
} memo_entry_t;

typedef struct memo {
  memo_entry_t *tab;
  size_t cap, n;
} memo_t;

static uint64_t state_hash(uint64_t set, const lin_state_t *s) {
  uint64_t h = set * 0x9E3779B97F4A7C15ull ^ s->len;
  for (uint32_t i = 0; i < s->len; i++)
    h = (h ^ s->v[i]) * 0x100000001B3ull;
  return h ^ (h >> 29);
}

static bool same_state(const lin_state_t *a, const lin_state_t *b) {
  return a->len == b->len && memcmp(a->v, b->v, a->len * sizeof a->v[0]) == 0;
}

/* Adds (set, s); returns 1 when new, 0 when present, M68K_ENOMEM. */
static int memo_add(memo_t *mm, uint64_t set, const lin_state_t *s) {
  if (2 * (mm->n + 1) > mm->cap) {
    size_t cap = mm->cap != 0 ? mm->cap * 2 : 256;
    memo_entry_t *t = calloc(cap, sizeof *t);
    if (t == NULL)
      return M68K_ENOMEM;
    for (size_t i = 0; i < mm->cap; i++) {
      if (mm->tab[i].state == NULL)
        continue;
      size_t j = mm->tab[i].hash & (cap - 1);
      while (t[j].state != NULL)
        j = (j + 1) & (cap - 1);
      t[j] = mm->tab[i];
    }
    free(mm->tab);
    mm->tab = t;
    mm->cap = cap;
  }
  uint64_t h = state_hash(set, s);
  size_t j = h & (mm->cap - 1);
  for (; mm->tab[j].state != NULL; j = (j + 1) & (mm->cap - 1))
    if (mm->tab[j].hash == h && mm->tab[j].set == set && same_state(mm->tab[j].state, s))
      return 0;
  size_t size = offsetof(lin_state_t, v) + s->len * sizeof s->v[0];
  lin_state_t *copy = malloc(size);
  if (copy == NULL)
    return M68K_ENOMEM;
  memcpy(copy, s, size);
  mm->tab[j] = (memo_entry_t){set, h, copy};
  mm->n++;
  return 1;
}

static void memo_free(memo_t *mm) {
  for (size_t i = 0; i < mm->cap; i++)
    free(mm->tab[i].state);
  free(mm->tab);
}

/* ---- The search (notes 2 and 3) ---------------------------------------- */

typedef struct event {
  size_t op;
  bool is_call;
  uint64_t time;
  struct event *prev, *next;
  struct event *match; /* the call's return */
} event_t;

static int cmp_events(const void *a, const void *b) {
  const event_t *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  /* At equal times calls first: the operations then overlap. */
  if (x->is_call != y->is_call)
    return x->is_call ? -1 : 1;
  return x->op < y->op ? -1 : x->op > y->op;
}

/* Dancing links (Knuth): lift takes a call and its return out of the
 * history, and unlift puts them back from the links they kept, in reverse
 * order of lifting. A list library's remove forgets those links, so the
 * search keeps its own two pointers here rather than <sys/queue.h>. */
static void lift(event_t *call) {
  call->prev->next = call->next;
  if (call->next != NULL)
    call->next->prev = call->prev;
  event_t *ret = call->match;
  ret->prev->next = ret->next;
  if (ret->next != NULL)
    ret->next->prev = ret->prev;
}

static void unlift(event_t *call) {
  event_t *ret = call->match;
  ret->prev->next = ret;
  if (ret->next != NULL)
    ret->next->prev = ret;
  call->prev->next = call;
  if (call->next != NULL)
    call->next->prev = call;
}

int m68k_lincheck(m68k_lin_spec_t spec, uint32_t capacity, const m68k_lin_op_t *ops, size_t n,
                  size_t *order) {
  if (n > M68K_LIN_MAX_OPS)
    return M68K_EINVAL;
  for (size_t i = 0; i < n; i++) {
    bool counter_op = ops[i].kind == M68K_LIN_ADD || ops[i].kind == M68K_LIN_READ;
    if (counter_op != (spec == M68K_LIN_COUNTER) || ops[i].inv > ops[i].resp)
      return M68K_EINVAL;
  }
  int rc = 0;
  memo_t memo = {0};
  event_t head = {0};
  event_t *ev = calloc(2 * n + 1, sizeof *ev);
  struct frame {
    event_t *call;
    lin_state_t before;
  } *stack = malloc((n + 1) * sizeof *stack);
  if (ev == NULL || stack == NULL) {
    rc = M68K_ENOMEM;
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    ev[2 * i] = (event_t){.op = i, .is_call = true, .time = ops[i].inv};
    ev[2 * i + 1] = (event_t){.op = i, .is_call = false, .time = ops[i].resp};
  }
  qsort(ev, 2 * n, sizeof *ev, cmp_events);
  event_t *call_of[M68K_LIN_MAX_OPS], *ret_of[M68K_LIN_MAX_OPS];
  event_t *prev = &head;
  for (size_t i = 0; i < 2 * n; i++) {
    (ev[i].is_call ? call_of : ret_of)[ev[i].op] = &ev[i];
    ev[i].prev = prev;
    prev->next = &ev[i];
    prev = &ev[i];
  }
  for (size_t i = 0; i < n; i++)
    call_of[i]->match = ret_of[i];

  lin_state_t state = {.len = spec == M68K_LIN_COUNTER ? 1 : 0};
  uint64_t done = 0;
  size_t depth = 0;
  event_t *e = head.next;
  while (head.next != NULL) {
    if (e->is_call) {
      lin_state_t next = state;
      if (apply(spec, capacity, &next, &ops[e->op])) {
        int fresh = memo_add(&memo, done | (1ull << e->op), &next);
        if (fresh < 0) {
          rc = fresh;
          goto out;
        }
        if (fresh) {
          stack[depth].call = e;
          stack[depth++].before = state;
          state = next;
          done |= 1ull << e->op;
          lift(e);
          e = head.next;
          continue;
        }
      }
      e = e->next;
    } else {
      if (depth == 0)
        goto out; /* rc 0: not linearizable */
      struct frame *f = &stack[--depth];
      state = f->before;
      done &= ~(1ull << f->call->op);
      unlift(f->call);
      e = f->call->next;
    }
  }
  rc = 1;
  if (order != NULL)
    for (size_t i = 0; i < depth; i++)
      order[i] = stack[i].call->op;
out:
  memo_free(&memo);
  free(stack);
  free(ev);
  return rc;
}

/* ---- Printing ------------------------------------------------------------- */

static const char *op_name(m68k_lin_spec_t spec, m68k_lin_kind_t kind) {
  static const char *const names[][2] = {
      [M68K_LIN_COUNTER] = {"add", "read"},
      [M68K_LIN_STACK] = {"push", "pop"},
      [M68K_LIN_QUEUE] = {"put", "get"},
      [M68K_LIN_LIST] = {"insert", "delete"},
  };
  return names[spec][kind == M68K_LIN_ADD || kind == M68K_LIN_INSERT ? 0 : 1];
}

static int cmp_inv(const void *a, const void *b) {
  const m68k_lin_op_t *x = *(const m68k_lin_op_t *const *)a, *y = *(const m68k_lin_op_t *const *)b;
  return x->inv < y->inv ? -1 : x->inv > y->inv;
}

void m68k_lin_print(FILE *out, m68k_lin_spec_t spec, const m68k_lin_op_t *ops, size_t n) {
  const m68k_lin_op_t *sorted[M68K_LIN_MAX_OPS];
  if (n > M68K_LIN_MAX_OPS)
    n = M68K_LIN_MAX_OPS;
  for (size_t i = 0; i < n; i++)
    sorted[i] = &ops[i];
  qsort(sorted, n, sizeof sorted[0], cmp_inv);
  for (size_t i = 0; i < n; i++) {
    const m68k_lin_op_t *op = sorted[i];
    char call[48], result[48];
    if (op->kind == M68K_LIN_ADD || op->kind == M68K_LIN_INSERT)
      snprintf(call, sizeof call, "%s(%" PRIu32 ")", op_name(spec, op->kind), op->arg);
    else
      snprintf(call, sizeof call, "%s()", op_name(spec, op->kind));
    if (op->kind == M68K_LIN_INSERT)
      snprintf(result, sizeof result, "%s", op->ok ? "ok" : "full");
    else if (op->kind == M68K_LIN_REMOVE && !op->ok)
      snprintf(result, sizeof result, "empty");
    else
      snprintf(result, sizeof result, "%" PRIu32, op->value);
    char who[16];
    if (op->cpu == M68K_LIN_INIT)
      snprintf(who, sizeof who, "init");
    else
      snprintf(who, sizeof who, "cpu%u", op->cpu);
    fprintf(out, "  %-4s %-12s -> %-6s [%" PRIu64 ", %" PRIu64 "]\n", who, call, result, op->inv,
            op->resp);
  }
}
