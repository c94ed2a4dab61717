/* test-synth.c -- synthesised callentries against the generic ones, differentially.
 *
 * Each case builds the same graph twice, once with synth=off and once with
 * synth=stencil, runs one random operation sequence against both, and
 * requires identical statuses, results and callback sequences. The two
 * share the lock-free ring (lfq.h), so the queue cases also hold both to a
 * plain sequential model written here: an array, a count and a closed
 * flag, giving each call's status and value and each "full" and "empty"
 * callback, to whom and with what.
 */
#include <stdlib.h>
#include <string.h>

#include "qtest-qua.h"

#define LOG_MAX 4096

typedef struct log {
  int n;
  uint64_t ev[LOG_MAX]; /* callback << 56 | tag << 48 | arg (low 48 bits) */
} log_t;

static void record(void *ctx, qua_quaject_t *from, int cb, uint64_t arg, int tag) {
  log_t *l = ctx;
  if (l->n < LOG_MAX)
    l->ev[l->n++] = (uint64_t)cb << 56 | (uint64_t)tag << 48 | (arg & 0xffffffffffffULL);
}
static void rec_a(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) { record(ctx, from, cb, arg, 1); }
static void rec_b(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) { record(ctx, from, cb, arg, 2); }
static void rec_w(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) { record(ctx, from, cb, arg, 3); }

static bool impl_has(qua_quaject_t *q, const char *entry, const char *what) {
  char buf[128];
  uint64_t ns = 0;
  qua_quaject_entry_info(q, qua_type_entry(qua_quaject_type(q), entry), buf, sizeof buf, &ns);
  bool ok = strstr(buf, what) != NULL;
  if (!ok)
    fprintf(stderr, "\n  %s.%s runs '%s', wanted '%s'\n", qua_quaject_type(q)->name, entry, buf, what);
  return ok;
}

/* One side of a queue comparison: a queue, two producers' and two
 * consumers' sites (some unused), a listener site opened and closed in the
 * middle of the run, the callbacks they saw. */
typedef struct qside {
  qua_quaject_t *q;
  qua_site_t *put[2], *get[2], *extra;
  log_t log;
  qua_watch_t *w;
} qside_t;

/* Who listens to notempty and notfull, which synthesised code folds in. */
enum listen { L_NONE, L_ONE, L_ALL, L_WATCH };

static void qside_open(qside_t *x, const char *synth, bool mp, bool mc, enum listen l) {
  memset(x, 0, sizeof *x);
  x->q = qtest_make("queue", synth, "capacity=8");
  qua_bind_t ha[] = {{"full", rec_a, &x->log}, {"empty", rec_a, &x->log}, {"notfull", rec_a, &x->log},
                     {"notempty", rec_a, &x->log}, {"closed", rec_a, &x->log}, {NULL, NULL, NULL}};
  qua_bind_t hp[] = {{"full", rec_a, &x->log}, {"notfull", rec_a, &x->log}, {NULL, NULL, NULL}};
  qua_bind_t hc[] = {{"empty", rec_a, &x->log}, {"notempty", rec_a, &x->log}, {NULL, NULL, NULL}};
  qua_bind_t hb[] = {{"full", rec_b, &x->log}, {"empty", rec_b, &x->log}, {NULL, NULL, NULL}};
  x->put[0] = qtest_site(x->q, "put", l == L_ALL ? ha : l == L_ONE ? hp : hb, 0);
  x->get[0] = qtest_site(x->q, "get", l == L_ALL ? ha : l == L_ONE ? hc : hb, 0);
  x->put[1] = mp ? qtest_site(x->q, "put", hb, 0) : NULL;
  x->get[1] = mc ? qtest_site(x->q, "get", hb, 0) : NULL;
  if (l == L_WATCH) {
    CU_ASSERT_EQUAL(qua_watch(x->q, "full", rec_w, &x->log, &x->w, NULL), QUA_OK);
    qua_watch_t *w2;
    CU_ASSERT_EQUAL(qua_watch(x->q, "notempty", rec_w, &x->log, &w2, NULL), QUA_OK);
    qua_unwatch(w2); /* and gone again: the code must forget it */
    CU_ASSERT_EQUAL(qua_watch(x->q, "notfull", rec_w, &x->log, &w2, NULL), QUA_OK);
  }
}

static void qside_close(qside_t *x) {
  qua_unwatch(x->w);
  for (int i = 0; i < 2; i++) {
    qua_site_close(x->put[i]);
    qua_site_close(x->get[i]);
  }
  CU_ASSERT_EQUAL(qua_destroy(x->q, true, NULL), QUA_OK);
}

/* A third party starts (and later stops) listening to both edges. */
static void qside_listener(qside_t *x, bool open) {
  qua_bind_t h[] = {{"notempty", rec_b, &x->log}, {"notfull", rec_b, &x->log}, {NULL, NULL, NULL}};
  if (open)
    x->extra = qtest_site(x->q, "count", h, 0);
  else
    qua_site_close(x->extra);
}

/* The sequential model of a queue of capacity 8. */
typedef struct qmodel {
  uint64_t slot[8];
  int head, count;
  bool closed;
  log_t log; /* the full and empty callbacks it expects, as record() logs them */
} qmodel_t;

enum { CB_FULL = 0, CB_EMPTY = 2 }; /* the queue's callback indices */

static int model_put(qmodel_t *m, uint64_t x, int tag) {
  if (m->closed)
    return QUA_ECLOSED;
  if (m->count == 8) {
    record(&m->log, NULL, CB_FULL, x, tag);
    return QUA_DIVERTED;
  }
  m->slot[(m->head + m->count++) % 8] = x;
  return QUA_OK;
}

static int model_get(qmodel_t *m, uint64_t *v, int tag) {
  if (m->count == 0) {
    if (m->closed)
      return QUA_ECLOSED;
    record(&m->log, NULL, CB_EMPTY, 0, tag);
    return QUA_DIVERTED;
  }
  *v = m->slot[m->head];
  m->head = (m->head + 1) % 8;
  m->count--;
  return QUA_OK;
}

/* The full and empty callbacks the sites' handlers (tags 1 and 2) saw. */
static int invoker_events(const log_t *l, uint64_t *out) {
  int n = 0;
  for (int i = 0; i < l->n; i++) {
    int cb = (int)(l->ev[i] >> 56), tag = (int)(l->ev[i] >> 48 & 0xff);
    if ((cb == CB_FULL || cb == CB_EMPTY) && tag != 3)
      out[n++] = l->ev[i];
  }
  return n;
}

static void queue_differential(bool mp, bool mc, enum listen l, unsigned seed) {
  qside_t g, s;
  qside_open(&g, "synth=off", mp, mc, l);
  qside_open(&s, "synth=stencil", mp, mc, l);
  CU_ASSERT(impl_has(s.q, "put", "stencil"));
  CU_ASSERT(impl_has(s.q, "get", "stencil"));
  CU_ASSERT(impl_has(g.q, "put", "generic"));
  srand(seed);
  int edges = 0;
  static qmodel_t m;
  memset(&m, 0, sizeof m);
  int tag0 = l == L_ALL || l == L_ONE ? 1 : 2; /* the handlers of put[0] and get[0] */
  for (int i = 0; i < 3000; i++) {
    if (i == 1000 || i == 2000) {
      qside_listener(&g, i == 1000);
      qside_listener(&s, i == 1000);
    }
    int op = rand() % 100, who = rand() % 2;
    uint64_t x = (uint64_t)rand(), vg = 7, vs = 7;
    uint64_t vm = 7;
    int rg, rs, rm;
    if (op < 50) {
      qua_site_t *pg = g.put[who] ? g.put[who] : g.put[0], *ps = s.put[who] ? s.put[who] : s.put[0];
      rg = qua_call(pg, x, 0, NULL);
      rs = qua_call(ps, x, 0, NULL);
      rm = model_put(&m, x, g.put[who] && who == 1 ? 2 : tag0);
    } else if (op < 99) {
      qua_site_t *pg = g.get[who] ? g.get[who] : g.get[0], *ps = s.get[who] ? s.get[who] : s.get[0];
      rg = qua_call(pg, 0, 0, &vg);
      rs = qua_call(ps, 0, 0, &vs);
      rm = model_get(&m, &vm, g.get[who] && who == 1 ? 2 : tag0);
    } else if (i > 2500) {
      rg = qua_queue_close(g.q);
      rs = qua_queue_close(s.q);
      m.closed = true;
      rm = QUA_OK;
    } else
      continue;
    CU_ASSERT_EQUAL(rg, rs);
    CU_ASSERT_EQUAL(vg, vs);
    CU_ASSERT_EQUAL(rg, rm);
    CU_ASSERT_EQUAL(vg, vm);
    if (rg != rs || vg != vs || rg != rm || vg != vm) {
      fprintf(stderr, "\n  op %d: generic %d/%llu, stencil %d/%llu, model %d/%llu\n", i, rg,
              (unsigned long long)vg, rs, (unsigned long long)vs, rm, (unsigned long long)vm);
      break;
    }
  }
  static uint64_t seen[LOG_MAX];
  int nseen = invoker_events(&g.log, seen);
  CU_ASSERT_EQUAL(nseen, m.log.n);
  CU_ASSERT(memcmp(seen, m.log.ev, sizeof(uint64_t) * (size_t)(nseen < m.log.n ? nseen : m.log.n)) == 0);
  for (int i = 0; i < g.log.n; i++) {
    int cb = (int)(g.log.ev[i] >> 56);
    edges += cb == 1 || cb == 3; /* notfull, notempty */
  }
  CU_ASSERT_EQUAL(g.log.n, s.log.n);
  CU_ASSERT(g.log.n > 100);
  CU_ASSERT(edges > 50); /* the listener mid-run saw edges, whatever the mode */
  CU_ASSERT(memcmp(g.log.ev, s.log.ev, sizeof(uint64_t) * (size_t)g.log.n) == 0);
  qside_close(&g);
  qside_close(&s);
}

static void synth_queue_spsc_matches_generic(void) { queue_differential(false, false, L_ALL, 1); }
static void synth_queue_mpsc_matches_generic(void) { queue_differential(true, false, L_ALL, 2); }
static void synth_queue_spmc_matches_generic(void) { queue_differential(false, true, L_ALL, 3); }
static void synth_queue_mpmc_matches_generic(void) { queue_differential(true, true, L_ALL, 4); }
static void synth_queue_with_watcher_matches_generic(void) { queue_differential(false, false, L_WATCH, 5); }
static void synth_queue_one_listener_matches_generic(void) { queue_differential(false, false, L_ONE, 6); }
static void synth_queue_no_listener_matches_generic(void) { queue_differential(true, true, L_NONE, 7); }

/* The chain tee -> counter -> queue, and a second tee output to another
 * counter, built twice: the same items and callbacks come out. */
typedef struct pipe {
  qua_quaject_t *tee, *c1, *c2, *q;
  qua_site_t *in, *get, *r1, *r2;
  log_t log;
} pipe_t;

static void pipe_open(pipe_t *p, const char *synth, int n) {
  memset(p, 0, sizeof *p);
  char kv[8];
  snprintf(kv, sizeof kv, "n=%d", n);
  p->tee = qtest_make("tee", synth, kv);
  p->c1 = qtest_make("counter", synth, "threshold=50");
  p->c2 = qtest_make("counter", synth, NULL);
  p->q = qtest_make("queue", synth, "capacity=16");
  /* out(n-1) -> c1.pass -> q.put (the chain); out0 -> c2.pass when n > 1 */
  char last[8];
  snprintf(last, sizeof last, "out%d", n - 1);
  CU_ASSERT_EQUAL(qua_wire(p->tee, last, p->c1, "pass", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_wire(p->c1, "out", p->q, "put", NULL), QUA_OK);
  if (n > 1)
    CU_ASSERT_EQUAL(qua_wire(p->tee, "out0", p->c2, "pass", NULL), QUA_OK);
  qua_bind_t h[] = {{"threshold", rec_a, &p->log}, {NULL, NULL, NULL}};
  qua_bind_t hq[] = {{"empty", rec_b, &p->log}, {"notfull", rec_b, &p->log}, {NULL, NULL, NULL}};
  p->in = qtest_site(p->tee, "put", NULL, 0);
  p->get = qtest_site(p->q, "get", hq, 0);
  p->r1 = qtest_site(p->c1, "add", h, 0); /* its handler makes threshold crossings visible */
  p->r2 = qtest_site(p->c2, "read", NULL, 0);
}

static void pipe_close(pipe_t *p) {
  qua_site_close(p->in);
  qua_site_close(p->get);
  qua_site_close(p->r1);
  qua_site_close(p->r2);
  CU_ASSERT_EQUAL(qua_destroy(p->tee, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(p->c1, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(p->c2, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(p->q, false, NULL), QUA_OK);
}

static void chain_differential(int n) {
  pipe_t g, s;
  pipe_open(&g, "synth=off", n);
  pipe_open(&s, "synth=stencil", n);
  CU_ASSERT(impl_has(s.tee, "put", "chain stencil tee+pass+"));
  if (n > 1) /* out0 -> c2.pass is called directly, its code laid out with the tee's */
    CU_ASSERT(impl_has(s.tee, "put", " | pass"));
  CU_ASSERT(impl_has(g.tee, "put", "generic"));
  srand(100 + (unsigned)n);
  /* Mid-run: a second writer on c1 (its one-writer code goes), then its
   * threshold listener leaves, then a watcher comes: every change of what
   * the chain folded in. */
  qua_site_t *gadd = NULL, *sadd = NULL;
  qua_watch_t *gw = NULL, *sw = NULL;
  uint64_t level = 0;
  for (int i = 0; i < 2000; i++) {
    if (i == 300) {
      gadd = qtest_site(g.c1, "add", NULL, 0);
      sadd = qtest_site(s.c1, "add", NULL, 0);
    } else if (i == 700) {
      qua_site_close(g.r1);
      qua_site_close(s.r1);
      g.r1 = s.r1 = NULL;
      /* nobody listens: the chain's pass has no crossing test */
      CU_ASSERT(impl_has(s.tee, "put", "tee+pass quiet+"));
    } else if (i == 1400) {
      CU_ASSERT_EQUAL(qua_watch(g.c1, "threshold", rec_w, &g.log, &gw, NULL), QUA_OK);
      CU_ASSERT_EQUAL(qua_watch(s.c1, "threshold", rec_w, &s.log, &sw, NULL), QUA_OK);
      CU_ASSERT(impl_has(s.tee, "put", "tee+pass+"));
    }
    int op = rand() % 4;
    uint64_t x = (uint64_t)rand(), vg = 9, vs = 9;
    int rg, rs;
    if (op < 2) {
      rg = qua_call(g.in, x, 0, NULL);
      rs = qua_call(s.in, x, 0, NULL);
    } else if (op == 3 && gadd != NULL) {
      /* Back across the threshold (50) each time. */
      uint64_t d = (int64_t)level >= 50 ? (uint64_t)-60 - (x % 8) : 60 + (x % 8);
      rg = qua_call(gadd, d, 0, &vg);
      rs = qua_call(sadd, d, 0, &vs);
      level = vg;
    } else {
      rg = qua_call(g.get, 0, 0, &vg);
      rs = qua_call(s.get, 0, 0, &vs);
    }
    CU_ASSERT_EQUAL(rg, rs);
    CU_ASSERT_EQUAL(vg, vs);
    if (rg != rs || vg != vs)
      break;
  }
  uint64_t a = 0, b = 1;
  qua_call(g.r2, 0, 0, &a);
  qua_call(s.r2, 0, 0, &b);
  CU_ASSERT_EQUAL(a, b);
  CU_ASSERT_EQUAL(g.log.n, s.log.n);
  CU_ASSERT(memcmp(g.log.ev, s.log.ev, sizeof(uint64_t) * (size_t)g.log.n) == 0);
  int crossings = 0;
  for (int i = 0; i < g.log.n; i++)
    crossings += (g.log.ev[i] >> 56) == 0 && ((g.log.ev[i] >> 48) & 0xff) != 2; /* threshold */
  CU_ASSERT(crossings > 20);
  qua_unwatch(gw);
  qua_unwatch(sw);
  qua_site_close(gadd);
  qua_site_close(sadd);
  pipe_close(&g);
  pipe_close(&s);
}

static void synth_chain_tee1_matches_generic(void) { chain_differential(1); }
static void synth_chain_tee2_matches_generic(void) { chain_differential(2); }
static void synth_chain_tee4_matches_generic(void) { chain_differential(4); }

/* Rewiring and a variant switch resynthesise the chain: after the queue
 * gets a second producer, the chain that inlined its put runs MP code. */
static void synth_rewire_and_switch_resynthesise(void) {
  qua_quaject_t *c = qtest_make("counter", "synth=stencil", NULL);
  qua_quaject_t *q1 = qtest_make("queue", "synth=stencil", NULL), *q2 = qtest_make("queue", "synth=stencil", NULL);
  CU_ASSERT_EQUAL(qua_wire(c, "out", q1, "put", NULL), QUA_OK);
  qua_site_t *pass = qtest_site(c, "pass", NULL, 0);
  CU_ASSERT(impl_has(c, "pass", "chain stencil pass 1w quiet+spsc"));
  qua_site_t *p2 = qtest_site(q1, "put", NULL, 0);
  CU_ASSERT(impl_has(c, "pass", "chain stencil pass 1w quiet+mpsc"));
  qua_site_close(p2);
  CU_ASSERT(impl_has(c, "pass", "chain stencil pass 1w quiet+spsc"));
  /* a second writer on the counter: both run the atomic code */
  qua_site_t *add = qtest_site(c, "add", NULL, 0);
  CU_ASSERT(impl_has(c, "pass", "chain stencil pass quiet+spsc"));
  CU_ASSERT(impl_has(c, "add", "stencil add"));
  qua_site_close(add);
  CU_ASSERT(impl_has(c, "pass", "chain stencil pass 1w quiet+spsc"));
  CU_ASSERT_EQUAL(qua_call(pass, 1, 0, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_unwire(c, "out", NULL), QUA_OK);
  CU_ASSERT(impl_has(c, "pass", "stencil pass"));
  CU_ASSERT_EQUAL(qua_call(pass, 2, 0, NULL), QUA_OK); /* unwired: counted, not sent */
  CU_ASSERT_EQUAL(qua_wire(c, "out", q2, "put", NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_call(pass, 3, 0, NULL), QUA_OK);
  qua_site_t *g1 = qtest_site(q1, "get", NULL, 0), *g2 = qtest_site(q2, "get", NULL, 0);
  uint64_t v;
  CU_ASSERT_EQUAL(qua_call(g1, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 1);
  CU_ASSERT_EQUAL(qua_call(g1, 0, 0, &v), QUA_DIVERTED);
  CU_ASSERT_EQUAL(qua_call(g2, 0, 0, &v), QUA_OK);
  CU_ASSERT_EQUAL(v, 3);
  uint64_t ns = 0;
  char buf[128];
  qua_quaject_entry_info(c, qua_type_entry(qua_quaject_type(c), "pass"), buf, sizeof buf, &ns);
  CU_ASSERT(ns > 0);
  qua_site_close(g1);
  qua_site_close(g2);
  qua_site_close(pass);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q1, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(q2, false, NULL), QUA_OK);
}

/* Buffers: random spans written and read on both; the same bytes, counts,
 * statuses and callbacks come out. */
static void synth_buffer_matches_generic(void) {
  qua_quaject_t *g = qtest_make("buffer", "synth=off", "capacity=64");
  qua_quaject_t *s = qtest_make("buffer", "synth=stencil", "capacity=64");
  log_t lg = {0}, ls = {0};
  qua_bind_t hg[] = {{"full", rec_a, &lg}, {"empty", rec_a, &lg}, {"notfull", rec_a, &lg},
                     {"notempty", rec_a, &lg}, {NULL, NULL, NULL}};
  qua_bind_t hs[] = {{"full", rec_a, &ls}, {"empty", rec_a, &ls}, {"notfull", rec_a, &ls},
                     {"notempty", rec_a, &ls}, {NULL, NULL, NULL}};
  qua_site_t *wg = qtest_site(g, "write", hg, 0), *rg = qtest_site(g, "read", hg, 0);
  qua_site_t *ws = qtest_site(s, "write", hs, 0), *rs = qtest_site(s, "read", hs, 0);
  CU_ASSERT(impl_has(s, "write", "stencil write"));
  CU_ASSERT(impl_has(s, "read", "stencil read"));
  unsigned char src[100], og[100], os[100];
  srand(77);
  for (int i = 0; i < 3000; i++) {
    size_t len = (size_t)(rand() % 40);
    uint64_t ng = 0, ns = 0;
    int a, b;
    if (rand() % 2) {
      for (size_t k = 0; k < len; k++)
        src[k] = (unsigned char)rand();
      a = qua_call(wg, (uintptr_t)src, len, &ng);
      b = qua_call(ws, (uintptr_t)src, len, &ns);
    } else {
      a = qua_call(rg, (uintptr_t)og, len, &ng);
      b = qua_call(rs, (uintptr_t)os, len, &ns);
      CU_ASSERT(memcmp(og, os, ng < ns ? ng : ns) == 0);
    }
    CU_ASSERT_EQUAL(a, b);
    CU_ASSERT_EQUAL(ng, ns);
    if (a != b || ng != ns)
      break;
  }
  CU_ASSERT_EQUAL(lg.n, ls.n);
  CU_ASSERT(lg.n > 100);
  CU_ASSERT(memcmp(lg.ev, ls.ev, sizeof(uint64_t) * (size_t)lg.n) == 0);
  qua_site_close(wg);
  qua_site_close(rg);
  qua_site_close(ws);
  qua_site_close(rs);
  qua_destroy(g, false, NULL);
  qua_destroy(s, false, NULL);
}

/* A change rebuilds the code that depends on it and nothing else: the
 * sites on the quaject and on those whose chains lead into it. */
static void synth_resynthesis_is_targeted(void) {
  qua_quaject_t *a = qtest_make("queue", "synth=stencil", NULL), *b = qtest_make("queue", "synth=stencil", NULL);
  qua_quaject_t *c = qtest_make("counter", "synth=stencil", NULL);
  CU_ASSERT_EQUAL(qua_wire(c, "out", a, "put", NULL), QUA_OK);
  qua_site_t *pa = qtest_site(a, "put", NULL, 0), *pb = qtest_site(b, "put", NULL, 0), *pc = qtest_site(c, "pass", NULL, 0);
  CU_ASSERT(impl_has(c, "pass", "chain"));
  qua_entry_fn fa = pa->fn, fb = pb->fn, fc = pc->fn;
  /* A listener on a: a's put and the chain through c into a fold it in. */
  qua_bind_t h[] = {{"notempty", rec_a, NULL}, {NULL, NULL, NULL}};
  qua_site_t *la = qtest_site(a, "count", h, 0);
  CU_ASSERT(pa->fn != fa);
  CU_ASSERT(pc->fn != fc);
  CU_ASSERT(pb->fn == fb);
  fa = pa->fn;
  fc = pc->fn;
  qua_site_t *lb = qtest_site(b, "count", NULL, 0);
  CU_ASSERT(pa->fn == fa);
  CU_ASSERT(pc->fn == fc);
  CU_ASSERT(pb->fn != fb);
  qua_site_close(la);
  qua_site_close(lb);
  qua_site_close(pa);
  qua_site_close(pb);
  qua_site_close(pc);
  CU_ASSERT_EQUAL(qua_destroy(c, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(a, false, NULL), QUA_OK);
  CU_ASSERT_EQUAL(qua_destroy(b, false, NULL), QUA_OK);
}

/* Counter arithmetic wraps (two's complement) at INT64_MAX, the same in the
 * generic and the synthesised add and pass, one writer or two; the wrap
 * crosses a threshold of 0 downwards. A regression to signed overflow is
 * undefined behaviour, which the UBSan build reports. */
static void counter_wrap_check(const char *synth, int writers) {
  qua_quaject_t *c = qtest_make("counter", synth, "initial=9223372036854775806", "threshold=0");
  log_t log = {0};
  qua_watch_t *w = NULL;
  CU_ASSERT_EQUAL(qua_watch(c, "threshold", rec_w, &log, &w, NULL), QUA_OK);
  qua_site_t *add = qtest_site(c, "add", NULL, 0);
  qua_site_t *add2 = writers > 1 ? qtest_site(c, "add", NULL, 0) : NULL;
  if (strcmp(synth, "synth=stencil") == 0)
    CU_ASSERT(impl_has(c, "add", writers > 1 ? "stencil add" : "stencil add 1w"));
  uint64_t ret = 0;
  CU_ASSERT_EQUAL(qua_call(add, 1, 0, &ret), QUA_OK);
  CU_ASSERT_EQUAL((int64_t)ret, INT64_MAX);
  CU_ASSERT_EQUAL(log.n, 0);
  CU_ASSERT_EQUAL(qua_call(add, 1, 0, &ret), QUA_OK);
  CU_ASSERT_EQUAL((int64_t)ret, INT64_MIN);
  CU_ASSERT_EQUAL(log.n, 1); /* from >= 0 to < 0: crossed */
  CU_ASSERT_EQUAL(qua_call(add, (uint64_t)-1, 0, &ret), QUA_OK);
  CU_ASSERT_EQUAL((int64_t)ret, INT64_MAX); /* and back */
  CU_ASSERT_EQUAL(log.n, 2);
  if (add2 != NULL)
    qua_site_close(add2);
  qua_site_close(add);
  qua_site_t *pass = qtest_site(c, "pass", NULL, 0);
  CU_ASSERT_EQUAL(qua_call(pass, 7, 0, &ret), QUA_OK);
  qua_site_close(pass);
  qua_site_t *read = qtest_site(c, "read", NULL, 0);
  CU_ASSERT_EQUAL(qua_call(read, 0, 0, &ret), QUA_OK);
  CU_ASSERT_EQUAL((int64_t)ret, INT64_MIN);
  CU_ASSERT_EQUAL(log.n, 3);
  qua_site_close(read);
  qua_unwatch(w);
  qua_destroy(c, false, NULL);
}

static void synth_counter_wraps_at_int64_max_like_generic(void) {
  counter_wrap_check("synth=off", 1);
  counter_wrap_check("synth=stencil", 1);
  counter_wrap_check("synth=off", 2);
  counter_wrap_check("synth=stencil", 2);
}

static void synth_param_validated(void) {
  const char *p[] = {"synth=turbo"};
  qua_quaject_t *q = NULL;
  qua_error_t err;
  CU_ASSERT_EQUAL(qua_create("queue", p, 1, &q, &err), QUA_EBADVALUE);
  CU_ASSERT_PTR_NULL(q);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "synth=turbo"));
  CU_ASSERT_EQUAL(qua_synth_parse("stencil"), QUA_SYNTH_STENCIL);
  CU_ASSERT_EQUAL(qua_synth_parse("off"), QUA_SYNTH_OFF);
  CU_ASSERT(qua_synth_parse("x") < 0);
  qua_synth_mode_t was = qua_set_synth_default(QUA_SYNTH_OFF);
  q = qtest_make("queue", "capacity=2", NULL);
  CU_ASSERT_EQUAL(qua_quaject_synth(q), QUA_SYNTH_OFF);
  qua_destroy(q, false, NULL);
  qua_set_synth_default(was);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"synth_queue_spsc_matches_generic", synth_queue_spsc_matches_generic},
      {"synth_queue_mpsc_matches_generic", synth_queue_mpsc_matches_generic},
      {"synth_queue_spmc_matches_generic", synth_queue_spmc_matches_generic},
      {"synth_queue_mpmc_matches_generic", synth_queue_mpmc_matches_generic},
      {"synth_queue_with_watcher_matches_generic", synth_queue_with_watcher_matches_generic},
      {"synth_queue_one_listener_matches_generic", synth_queue_one_listener_matches_generic},
      {"synth_queue_no_listener_matches_generic", synth_queue_no_listener_matches_generic},
      {"synth_chain_tee1_matches_generic", synth_chain_tee1_matches_generic},
      {"synth_chain_tee2_matches_generic", synth_chain_tee2_matches_generic},
      {"synth_chain_tee4_matches_generic", synth_chain_tee4_matches_generic},
      {"synth_rewire_and_switch_resynthesise", synth_rewire_and_switch_resynthesise},
      {"synth_buffer_matches_generic", synth_buffer_matches_generic},
      {"synth_resynthesis_is_targeted", synth_resynthesis_is_targeted},
      {"synth_param_validated", synth_param_validated},
      {"synth_counter_wraps_at_int64_max_like_generic",
       synth_counter_wraps_at_int64_max_like_generic},
      {NULL, NULL}};
  return qtest_run("synth", cases);
}
