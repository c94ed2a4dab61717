/* lincheck.c -- linearizability of long FIFO queue histories: WGL search, memoised, on sound cuts.
 *
 * Design notes
 *
 * The search
 *  1. Within one part (below) the search is Wing and Gong's, as improved by
 *     Lowe (2017) and used by porcupine: the invocation and response events
 *     sit in one list in time order. Walking from its head, an invocation
 *     whose operation the specification allows next, with its actual
 *     result, is linearised: applied, pushed on a stack, and both its events
 *     lifted out of the list; the walk restarts at the head. Reaching a
 *     response means its operation could not be placed although everything
 *     before it in real time was tried: the last choice is undone and the
 *     walk goes on after that invocation. An empty list is a linearisation;
 *     backtracking past an empty stack proves there is none. Only operations
 *     invoked before the first response still in the list are tried: they
 *     are the ones real time allows next. (m68k/lincheck.c is the same
 *     search for quamachine's histories of at most 64 operations with a
 *     one-word set; this one is for histories of any length: see 2 and 3.)
 *  2. Memo (Lowe): the outcome from a configuration depends only on the set
 *     of linearised operations and the specification's state, so a
 *     linearisation reaching a (set, state) pair already explored is
 *     skipped. The set is kept canonical and small: with the part's
 *     operations numbered by invocation, p is the first one not linearised;
 *     every linearised operation after p was invoked before p's response
 *     (p was not placed, so real time allowed nothing that needs it), so
 *     the exceptions after p are few, bounded by the operations that overlap
 *     one. The key is (p, the exceptions, the closed flags, the items), and
 *     keys are compared whole: a hash collision costs time, never a verdict.
 *  3. A part whose search needs more than spec->max_states configurations
 *     gives LIN_EBUDGET, "undecided", never a guessed verdict.
 *
 * The cuts (P-compositionality for a queue)
 *  4. A queue is not partitioned by value the way porcupine partitions a
 *     map by key: FIFO order, FULL and EMPTY relate every item to every
 *     other. Histories are cut in time instead. Sort the operations by
 *     invocation; a cut before operation k is a point no operation spans:
 *     every operation before k responded before operation k (and so every
 *     later one) was invoked.
 *  5. At a cut, real time puts every operation of the prefix before every
 *     operation of the suffix in any linearisation. So H is linearizable iff
 *     the prefix is, from the initial state, and the suffix is, from the
 *     state the prefix leaves, provided that state is the same for every
 *     linearisation of the prefix. Then the parts are checked alone, and
 *     the search never backtracks across a cut.
 *  6. That state is determined in the cases we cut at. The closed flags are
 *     set iff the prefix holds a close (complete, so both its steps
 *     happened). The items are the prefix's successful puts whose value no
 *     get of the prefix took (values are distinct; a get of a value the
 *     prefix never put makes the prefix fail its own check, hence H), in
 *     the order those puts were linearised. We cut only when that order is
 *     forced: no item is left (the queue is provably empty), or the puts
 *     left are pairwise ordered by real time (each responded before the
 *     next was invoked; always true of one producer's). Two overlapping
 *     puts both left in the queue could leave it as [a, b] or [b, a]; no cut
 *     is made there.
 *  7. Values taken twice, or taken but never put, are found before any
 *     search by matching each successful get with the put of its value:
 *     they admit no linearisation at all.
 */
#include "lincheck.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The most items a cut may carry over (note 6): beyond this we do not cut. */
#define LIN_CUT_MAX_ITEMS 256

/* Internal operation kinds: the close's two steps are two operations. */
enum { K_PUT, K_GET, K_CLOSE1, K_CLOSE2 };

typedef struct iop {
  const lin_op_t *op;
  uint8_t kind;
} iop_t;

typedef struct event {
  uint32_t op; /* index into the part's iops */
  bool is_call;
  uint64_t time;
  struct event *prev, *next, *match;
} event_t;

/* ---- The specification's state ------------------------------------------ */

typedef struct qstate {
  uint64_t *v; /* items v[head .. tail) */
  size_t head, tail;
  bool closed, final;
  uint64_t close_resp; /* when closed: the close's response time */
} qstate_t;

/* Applies op to s when the specification allows it with op's result. */
static bool apply(const lin_spec_t *spec, qstate_t *s, const iop_t *io) {
  const lin_op_t *op = io->op;
  size_t len = s->tail - s->head;
  switch (io->kind) {
  case K_CLOSE1:
    if (!s->closed)
      s->close_resp = op->resp; /* the first close's: the rest change nothing */
    s->closed = true;
    return true;
  case K_CLOSE2:
    if (!s->closed)
      return false;
    s->final = true;
    return true;
  case K_PUT:
    if (s->closed && (op->result == LIN_CLOSED || !spec->racy_close || op->inv >= s->close_resp))
      return op->result == LIN_CLOSED;
    if (op->result == LIN_FULL)
      return (spec->lax && !op->exact) || (spec->capacity != 0 && len >= spec->capacity);
    if (op->result != LIN_OK || (spec->capacity != 0 && len >= spec->capacity))
      return false;
    s->v[s->tail++] = op->value;
    return true;
  default: /* K_GET */
    if (op->result == LIN_OK) {
      if (len == 0 || s->v[s->head] != op->value)
        return false;
      s->head++;
      return true;
    }
    if (op->result == LIN_CLOSED)
      return len == 0 && s->final;
    return !s->final && (len == 0 || (spec->lax && !op->exact));
  }
}

static void undo(qstate_t *s, const iop_t *io, bool closed, bool final) {
  if (io->op->result == LIN_OK && io->kind == K_PUT)
    s->tail--;
  else if (io->op->result == LIN_OK && io->kind == K_GET)
    s->head--;
  s->closed = closed;
  s->final = final;
}

/* ---- The memo (note 2) ----------------------------------------------------- */

typedef struct memo {
  uint64_t *hash;  /* 0: free slot */
  size_t *at;      /* offset of the key in words */
  size_t cap, n;
  uint64_t *words; /* keys: length, then the words */
  size_t used, room;
} memo_t;

static uint64_t mix(uint64_t h, uint64_t w) {
  h ^= w + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

/* Adds the key; 1 when new, 0 when present, LIN_ENOMEM. */
static int memo_add(memo_t *m, const uint64_t *key, size_t len) {
  uint64_t h = 0;
  for (size_t i = 0; i < len; i++)
    h = mix(h, key[i]);
  h |= 1;
  if (2 * (m->n + 1) > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *nh = calloc(cap, sizeof *nh);
    size_t *na = malloc(cap * sizeof *na);
    if (nh == NULL || na == NULL) {
      free(nh);
      free(na);
      return LIN_ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++) {
      if (m->hash[i] == 0)
        continue;
      size_t j = m->hash[i] & (cap - 1);
      while (nh[j] != 0)
        j = (j + 1) & (cap - 1);
      nh[j] = m->hash[i];
      na[j] = m->at[i];
    }
    free(m->hash);
    free(m->at);
    m->hash = nh;
    m->at = na;
    m->cap = cap;
  }
  size_t j = h & (m->cap - 1);
  for (; m->hash[j] != 0; j = (j + 1) & (m->cap - 1)) {
    const uint64_t *k = m->words + m->at[j];
    if (m->hash[j] == h && k[0] == len && memcmp(k + 1, key, len * sizeof *key) == 0)
      return 0;
  }
  if (m->used + len + 1 > m->room) {
    size_t room = m->room ? m->room * 2 : 1 << 16;
    while (room < m->used + len + 1)
      room *= 2;
    uint64_t *w = realloc(m->words, room * sizeof *w);
    if (w == NULL)
      return LIN_ENOMEM;
    m->words = w;
    m->room = room;
  }
  m->words[m->used] = len;
  memcpy(m->words + m->used + 1, key, len * sizeof *key);
  m->hash[j] = h;
  m->at[j] = m->used;
  m->used += len + 1;
  m->n++;
  return 1;
}

static void memo_free(memo_t *m) {
  free(m->hash);
  free(m->at);
  free(m->words);
  memset(m, 0, sizeof *m);
}

/* ---- One part's search (notes 1-3) ---------------------------------------- */

typedef struct part {
  const lin_spec_t *spec;
  iop_t *io;
  size_t n;         /* iops */
  uint64_t *bits;   /* linearised iops */
  size_t p, nlin;   /* first not linearised; how many are */
  qstate_t s;
  uint64_t *key;    /* scratch for memo keys */
  memo_t memo;
} part_t;

static int cmp_events(const void *a, const void *b) {
  const event_t *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  if (x->is_call != y->is_call) /* at equal times, calls first: they overlap */
    return x->is_call ? -1 : 1;
  return x->op < y->op ? -1 : x->op > y->op;
}

/* Dancing links (Knuth): lift takes a call and its return out of the
 * history, and unlift puts them back from the links they kept, in reverse
 * order of lifting. A list library's remove forgets those links, so the
 * search keeps its own two pointers here rather than <sys/queue.h>. */
static void lift(event_t *call) {
  event_t *r = call->match;
  call->prev->next = call->next;
  if (call->next != NULL)
    call->next->prev = call->prev;
  r->prev->next = r->next;
  if (r->next != NULL)
    r->next->prev = r->prev;
}

static void unlift(event_t *call) {
  event_t *r = call->match;
  r->prev->next = r;
  if (r->next != NULL)
    r->next->prev = r;
  call->prev->next = call;
  if (call->next != NULL)
    call->next->prev = call;
}

static bool bit(const uint64_t *b, size_t i) { return b[i / 64] >> (i % 64) & 1; }

/* The memo key of the current configuration (note 2); its length. */
static size_t make_key(part_t *pt) {
  size_t k = 0;
  pt->key[k++] = pt->p;
  size_t left = pt->nlin - pt->p;
  for (size_t w = (pt->p + 1) / 64; left > 0; w++) {
    uint64_t m = pt->bits[w];
    if (w == (pt->p + 1) / 64)
      m &= ~0ull << ((pt->p + 1) % 64);
    while (m != 0) {
      pt->key[k++] = w * 64 + (size_t)__builtin_ctzll(m);
      m &= m - 1;
      left--;
    }
  }
  pt->key[k++] = (uint64_t)pt->s.closed | (uint64_t)pt->s.final << 1;
  for (size_t i = pt->s.head; i < pt->s.tail; i++)
    pt->key[k++] = pt->s.v[i];
  return k;
}

static void set_lin(part_t *pt, size_t i) {
  pt->bits[i / 64] |= 1ull << (i % 64);
  pt->nlin++;
  while (pt->p < pt->n && bit(pt->bits, pt->p))
    pt->p++;
}

static void clear_lin(part_t *pt, size_t i) {
  pt->bits[i / 64] &= ~(1ull << (i % 64));
  pt->nlin--;
  if (i < pt->p)
    pt->p = i;
}

/* 1 linearizable, 0 not (*blocker: the operation the deepest attempt could
 * not place), or LIN_E*. */
static int search(part_t *pt, size_t *states, const lin_op_t **blocker) {
  size_t n = pt->n;
  int rc = LIN_ENOMEM;
  event_t head = {0};
  event_t *ev = calloc(2 * n, sizeof *ev);
  struct frame {
    event_t *call;
    bool closed, final;
  } *stack = malloc((n + 1) * sizeof *stack);
  if (ev == NULL || stack == NULL)
    goto out;
  for (size_t i = 0; i < n; i++) {
    ev[2 * i] = (event_t){.op = (uint32_t)i, .is_call = true, .time = pt->io[i].op->inv};
    ev[2 * i + 1] = (event_t){.op = (uint32_t)i, .is_call = false, .time = pt->io[i].op->resp};
  }
  qsort(ev, 2 * n, sizeof *ev, cmp_events);
  event_t **call_of = malloc(n * sizeof *call_of);
  if (call_of == NULL)
    goto out;
  event_t *prev = &head;
  for (size_t i = 0; i < 2 * n; i++) {
    if (ev[i].is_call)
      call_of[ev[i].op] = &ev[i];
    ev[i].prev = prev;
    prev->next = &ev[i];
    prev = &ev[i];
  }
  for (size_t i = 0; i < 2 * n; i++)
    if (!ev[i].is_call)
      call_of[ev[i].op]->match = &ev[i];
  free(call_of);

  size_t max_states = pt->spec->max_states ? pt->spec->max_states : (size_t)1 << 24;
  size_t depth = 0, deepest = 0;
  event_t *e = head.next;
  while (head.next != NULL) {
    if (e->is_call) {
      const iop_t *io = &pt->io[e->op];
      bool closed = pt->s.closed, final = pt->s.final;
      if (apply(pt->spec, &pt->s, io)) {
        set_lin(pt, e->op);
        int fresh = memo_add(&pt->memo, pt->key, make_key(pt));
        if (fresh < 0) {
          rc = fresh;
          goto out;
        }
        if (fresh) {
          if (pt->memo.n > max_states) {
            rc = LIN_EBUDGET;
            goto out;
          }
          stack[depth++] = (struct frame){e, closed, final};
          lift(e);
          e = head.next;
          continue;
        }
        clear_lin(pt, e->op);
        undo(&pt->s, io, closed, final);
      }
      e = e->next;
    } else {
      if (depth >= deepest) {
        deepest = depth;
        *blocker = pt->io[e->op].op;
      }
      if (depth == 0) {
        rc = 0;
        goto out;
      }
      struct frame *f = &stack[--depth];
      clear_lin(pt, f->call->op);
      undo(&pt->s, &pt->io[f->call->op], f->closed, f->final);
      unlift(f->call);
      e = f->call->next;
    }
  }
  rc = 1;
out:
  *states += pt->memo.n;
  free(stack);
  free(ev);
  return rc;
}

/* ---- The history: matching, cuts, parts ------------------------------------ */

static int cmp_inv(const void *a, const void *b) {
  const lin_op_t *x = a, *y = b;
  if (x->inv != y->inv)
    return x->inv < y->inv ? -1 : 1;
  return x->resp < y->resp ? -1 : x->resp > y->resp;
}

static const char *const kind_names[] = {"put", "get", "close"};
static const char *const result_names[] = {"ok", "full", "empty", "closed"};

static int describe(char *buf, size_t len, const lin_op_t *op) {
  if (op->kind == LIN_GET && op->result == LIN_OK)
    return snprintf(buf, len, "client %" PRIu32 " get() -> %#" PRIx64 " [%" PRIu64 ", %" PRIu64 "]",
                    op->client, op->value, op->inv, op->resp);
  if (op->kind == LIN_PUT)
    return snprintf(buf, len, "client %" PRIu32 " put(%#" PRIx64 ") -> %s [%" PRIu64 ", %" PRIu64 "]",
                    op->client, op->value, result_names[op->result], op->inv, op->resp);
  return snprintf(buf, len, "client %" PRIu32 " %s() -> %s [%" PRIu64 ", %" PRIu64 "]", op->client,
                  kind_names[op->kind], result_names[op->result], op->inv, op->resp);
}

void lin_print(FILE *out, const lin_op_t *ops, size_t first, size_t n, size_t max) {
  for (size_t i = first; i - first < n && i - first < max; i++) {
    char line[160];
    describe(line, sizeof line, &ops[i]);
    fprintf(out, "  %6zu %s\n", i, line);
  }
  if (n > max)
    fprintf(out, "  ... (%zu more)\n", n - max);
}

/* An open-addressing map from the values of successful puts to their index. */
typedef struct vmap {
  uint64_t *key;
  size_t *val; /* index + 1; 0: free */
  size_t cap;
} vmap_t;

static size_t *vmap_slot(vmap_t *m, uint64_t v) {
  size_t j = (size_t)(mix(0, v) & (m->cap - 1));
  while (m->val[j] != 0 && m->key[j] != v)
    j = (j + 1) & (m->cap - 1);
  m->key[j] = v;
  return &m->val[j];
}

/* NULL when op is well formed, else what is wrong with it. */
static const char *valid_op(const lin_op_t *op) {
  if (op->inv > op->resp)
    return "its response precedes its invocation";
  if (op->result > LIN_CLOSED)
    return "no such result";
  switch (op->kind) {
  case LIN_PUT:
    return op->result == LIN_EMPTY ? "a put cannot return empty" : NULL;
  case LIN_GET:
    return op->result == LIN_FULL ? "a get cannot return full" : NULL;
  case LIN_CLOSE:
    return op->result != LIN_OK ? "a close returns ok" : NULL;
  default:
    return "no such kind of operation";
  }
}

int lin_check(const lin_spec_t *spec, lin_op_t *ops, size_t n, lin_report_t *rep) {
  lin_report_t dummy;
  if (rep == NULL)
    rep = &dummy;
  memset(rep, 0, sizeof *rep);
  rep->ops = n;
  for (size_t i = 0; i < n; i++) {
    const char *bad = valid_op(&ops[i]);
    if (bad != NULL) {
      snprintf(rep->why, sizeof rep->why, "operation %zu is malformed: %s", i, bad);
      return LIN_EINVAL;
    }
  }
  if (n > 0)
    qsort(ops, n, sizeof *ops, cmp_inv);

  int rc = LIN_ENOMEM;
  vmap_t vm = {0};
  size_t *put_of = malloc((n + 1) * sizeof *put_of);   /* get -> its put, or SIZE_MAX */
  size_t *got_by = malloc((n + 1) * sizeof *got_by);   /* put -> its get, or SIZE_MAX */
  size_t *lprev = malloc((n + 1) * sizeof *lprev), *lnext = malloc((n + 1) * sizeof *lnext);
  iop_t *io = malloc((2 * n + 1) * sizeof *io);
  uint64_t *vals = malloc((n + LIN_CUT_MAX_ITEMS + 1) * sizeof *vals);
  uint64_t *bits = calloc((2 * n) / 64 + 2, sizeof *bits);
  uint64_t *key = malloc((2 * n + LIN_CUT_MAX_ITEMS + n + 4) * sizeof *key);
  uint64_t *carried = malloc((LIN_CUT_MAX_ITEMS + 1) * sizeof *carried);
  for (vm.cap = 16; vm.cap < 2 * n + 2; vm.cap *= 2) {
  }
  vm.key = malloc(vm.cap * sizeof *vm.key);
  vm.val = calloc(vm.cap, sizeof *vm.val);
  if (put_of == NULL || got_by == NULL || lprev == NULL || lnext == NULL || io == NULL ||
      vals == NULL || bits == NULL || key == NULL || carried == NULL || vm.key == NULL ||
      vm.val == NULL)
    goto out;

  /* Note 7: match gets with puts. */
  for (size_t i = 0; i < n; i++) {
    got_by[i] = put_of[i] = SIZE_MAX;
    if (ops[i].kind != LIN_PUT || ops[i].result != LIN_OK)
      continue;
    size_t *slot = vmap_slot(&vm, ops[i].value);
    if (*slot != 0) {
      snprintf(rep->why, sizeof rep->why,
               "value %#" PRIx64 " was put successfully twice (operations %zu and %zu): values "
               "must be distinct", ops[i].value, *slot - 1, i);
      rc = LIN_EINVAL;
      goto out;
    }
    *slot = i + 1;
  }
  for (size_t i = 0; i < n; i++) {
    if (ops[i].kind != LIN_GET || ops[i].result != LIN_OK)
      continue;
    size_t *slot = vmap_slot(&vm, ops[i].value);
    char what[160];
    describe(what, sizeof what, &ops[i]);
    if (*slot == 0) {
      snprintf(rep->why, sizeof rep->why, "%s took a value never put", what);
      rep->bad_first = rep->blocker = i;
      rep->bad_n = 1;
      rc = 0;
      goto out;
    }
    size_t p = *slot - 1;
    if (got_by[p] != SIZE_MAX) {
      snprintf(rep->why, sizeof rep->why, "%s took a value operation %zu had taken already", what,
               got_by[p]);
      rep->bad_first = got_by[p];
      rep->bad_n = i - got_by[p] + 1;
      rep->blocker = i;
      rc = 0;
      goto out;
    }
    got_by[p] = i;
    put_of[i] = p;
  }

  /* Notes 4-6: walk the history, cut where allowed, check each part. */
  size_t start = 0, ncarried = 0, nlive = 0, lhead = SIZE_MAX, ltail = SIZE_MAX;
  bool closed = false, part_closed = false; /* a close in ops[0, i); in ops[0, start) */
  uint64_t maxresp = 0;
  rc = 1;
  for (size_t i = 0; i <= n && rc == 1; i++) {
    bool cut = i == n;
    if (!cut && i > start && maxresp < ops[i].inv && nlive <= LIN_CUT_MAX_ITEMS) {
      cut = true;
      for (size_t a = lhead; cut && a != SIZE_MAX && lnext[a] != SIZE_MAX; a = lnext[a])
        cut = ops[a].resp < ops[lnext[a]].inv;
    }
    if (cut && i > start) {
      /* Check ops[start, i) from the carried state. */
      size_t m = 0;
      for (size_t k = start; k < i; k++) {
        if (ops[k].kind == LIN_CLOSE) {
          io[m++] = (iop_t){&ops[k], K_CLOSE1};
          io[m++] = (iop_t){&ops[k], K_CLOSE2};
        } else {
          io[m++] = (iop_t){&ops[k], ops[k].kind == LIN_PUT ? K_PUT : K_GET};
        }
      }
      part_t pt = {.spec = spec, .io = io, .n = m, .bits = bits, .key = key};
      memcpy(vals, carried, ncarried * sizeof *vals);
      pt.s = (qstate_t){.v = vals, .head = 0, .tail = ncarried, .closed = part_closed, .final = part_closed};
      const lin_op_t *blocker = NULL;
      rc = search(&pt, &rep->states, &blocker);
      memo_free(&pt.memo);
      memset(bits, 0, (m / 64 + 1) * sizeof *bits);
      rep->parts++;
      if (i - start > rep->largest)
        rep->largest = i - start;
      if (rc != 1) {
        rep->bad_first = start;
        rep->bad_n = i - start;
        char what[160] = "";
        rep->blocker = start;
        if (blocker != NULL) {
          describe(what, sizeof what, blocker);
          rep->blocker = (size_t)(blocker - ops);
        }
        if (rc == 0)
          snprintf(rep->why, sizeof rep->why,
                   "operations %zu..%zu (part %zu) have no linearization: the deepest attempt "
                   "could not place %s", start, i - 1, rep->parts, what);
        else if (rc == LIN_EBUDGET)
          snprintf(rep->why, sizeof rep->why,
                   "operations %zu..%zu (part %zu) need more than %zu configurations: undecided",
                   start, i - 1, rep->parts, spec->max_states ? spec->max_states : (size_t)1 << 24);
        break;
      }
      /* The state left for the next part (note 6). */
      ncarried = 0;
      for (size_t a = lhead; a != SIZE_MAX; a = lnext[a])
        carried[ncarried++] = ops[a].value;
      part_closed = closed;
      start = i;
    }
    if (i == n)
      break;
    /* Add ops[i] to the prefix: the live list holds its puts not yet taken. */
    if (ops[i].resp > maxresp)
      maxresp = ops[i].resp;
    closed = closed || ops[i].kind == LIN_CLOSE;
    if (ops[i].kind == LIN_PUT && ops[i].result == LIN_OK && (got_by[i] == SIZE_MAX || got_by[i] > i)) {
      lprev[i] = ltail;
      lnext[i] = SIZE_MAX;
      if (ltail != SIZE_MAX)
        lnext[ltail] = i;
      else
        lhead = i;
      ltail = i;
      nlive++;
    } else if (ops[i].kind == LIN_GET && put_of[i] != SIZE_MAX && put_of[i] < i) {
      size_t p = put_of[i];
      if (lprev[p] != SIZE_MAX)
        lnext[lprev[p]] = lnext[p];
      else
        lhead = lnext[p];
      if (lnext[p] != SIZE_MAX)
        lprev[lnext[p]] = lprev[p];
      else
        ltail = lprev[p];
      nlive--;
    }
  }
out:
  free(vm.key);
  free(vm.val);
  free(put_of);
  free(got_by);
  free(lprev);
  free(lnext);
  free(io);
  free(vals);
  free(bits);
  free(key);
  free(carried);
  return rc;
}
