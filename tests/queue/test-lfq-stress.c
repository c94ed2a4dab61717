/* test-lfq-stress.c -- producers and consumers hammer the queue family: items, order, edges, switches. */

/*
 * Every scenario runs P producers and C consumers on one queue. Producer p puts items
 * p << 48 | seq, seq = 0 .. N-1. Consumers check that nothing is lost or duplicated and that
 * each sees every producer's items in increasing seq.
 *
 * Tracked scenarios also check the transitions, two ways:
 *  - Wake-ups, as a blocking pump uses them: a consumer that gets EMPTY waits until some put
 *    returns EDGE after it; a producer that gets FULL waits until some get returns EDGE. A
 *    missing EDGE leaves a waiter stuck and fails the scenario at its deadline.
 *  - The count: each operation is stamped from a global clock on entry (a) and exit (b).
 *    Counting stamps bounds the queue's size at the operation's linearisation point:
 *      surely-in  >= #(item puts returned before a) - #(item gets entered before b)
 *      maybe-in   <= #(item puts entered before b)  - #(item gets returned before a)
 *    An EDGE put or an EMPTY get needs surely-in == 0 (others); an OK put needs maybe-in >= 1
 *    (others); a FULL put or an EDGE get needs maybe-in >= capacity; an OK get needs
 *    surely-in < capacity. A wrong EDGE, or a missing one, breaks one of these.
 *
 * Switching scenarios flip producers between put_sp and put_mp and consumers between get_sc
 * and get_mc while items flow, with the grace periods of liburcu (urcu-memb) exactly as the
 * queue quaject does: publish the new function, synchronize_rcu, only then let a second
 * producer (consumer) in; withdraw the second one, synchronize_rcu, only then go single.
 */

#include "../qtest.h"
#include "lfq.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <urcu/urcu-memb.h>

typedef int (*put_fn_t)(qua__lfq_t *, uint64_t);
typedef int (*get_fn_t)(qua__lfq_t *, uint64_t *);

enum { MAXT = 2 };
enum op_kind { OP_NONE, OP_PUT_OK, OP_PUT_EDGE, OP_PUT_FULL, OP_GET_OK, OP_GET_EDGE, OP_GET_EMPTY };

typedef struct scenario {
  const char *name;
  int nprod, ncons;
  bool mp, mc;      /* variants used when not switching */
  bool tracked;     /* check the transitions */
  bool switching;   /* flip variants at grace points */
  int batch;        /* > 1: put_n/get_n of up to batch items (untracked only) */
  uint32_t capacity;
  long items;       /* per producer */
} scenario_t;

typedef struct opstamp {
  uint32_t a, b;
  uint8_t kind;
} opstamp_t;

typedef struct oplog {
  opstamp_t *ops;
  size_t n, cap;
} oplog_t;

typedef struct run {
  const scenario_t *sc;
  qua__lfq_t q;
  long items, total;
  double deadline;
  _Atomic(put_fn_t) put_fn[MAXT];
  _Atomic(get_fn_t) get_fn[MAXT];
  _Atomic long consumed;
  _Atomic int stop;
  _Atomic int failed;
  char why[256];
  _Atomic uint64_t notempty_epoch, notfull_epoch;
  _Atomic uint32_t clock;
  _Atomic unsigned char *seen[MAXT];
  /* Tracked: per item, the stamps of its put and its get. */
  uint32_t *put_a[MAXT], *put_b[MAXT], *get_a[MAXT], *get_b[MAXT];
  oplog_t log[2 * MAXT]; /* per thread: the other operations (FULL, EMPTY, EDGE, OK) */
  _Atomic long edges_put, edges_get, fulls, empties, switches;
} run_t;

typedef struct worker {
  run_t *r;
  int id;
} worker_t;

static void fail(run_t *r, const char *fmt, ...)
{
  int expect = 0;
  if (atomic_compare_exchange_strong(&r->failed, &expect, 1)) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
  }
  atomic_store(&r->stop, 1);
}

static bool past_deadline(run_t *r, const char *what)
{
  if (qtest_now() <= r->deadline)
    return false;
  fail(r, "%s: deadline passed (consumed %ld of %ld)", what, atomic_load(&r->consumed), r->total);
  return true;
}

static uint32_t stamp(run_t *r)
{
  return r->sc->tracked ? atomic_fetch_add_explicit(&r->clock, 1, memory_order_seq_cst) : 0;
}

static void log_op(run_t *r, int thread, uint32_t a, uint32_t b, uint8_t kind)
{
  if (!r->sc->tracked)
    return;
  oplog_t *l = &r->log[thread];
  if (l->n == l->cap) {
    fail(r, "operation log overflow (thread %d)", thread);
    return;
  }
  l->ops[l->n++] = (opstamp_t){a, b, kind};
}

/* Waits until *epoch moves past seen, or the run ends. Returns false on deadline. */
static bool wait_epoch(run_t *r, _Atomic uint64_t *epoch, uint64_t seen, const char *what)
{
  while (atomic_load(epoch) == seen && !atomic_load(&r->stop) &&
         atomic_load(&r->consumed) < r->total) {
    if (past_deadline(r, what))
      return false;
    sched_yield();
  }
  return true;
}

/* The put and get functions of each variant, untracked [0] and tracked [1]:
 * the tracked ones are the inline fast paths that synthesised code runs. */
static put_fn_t const put_sp[2] = {qua__lfq_put_sp, qua__lfq_tput_sp};
static put_fn_t const put_mp[2] = {qua__lfq_put_mp, qua__lfq_tput_mp};
static get_fn_t const get_sc[2] = {qua__lfq_get_sc, qua__lfq_tget_sc};
static get_fn_t const get_mc[2] = {qua__lfq_get_mc, qua__lfq_tget_mc};

static int do_put(run_t *r, int id, uint64_t item)
{
  const scenario_t *sc = r->sc;
  if (!sc->switching) {
    /* Tracked: every other item through the complete operation, so both
     * it and the fast path run against each other. */
    if (sc->tracked && (item & 1))
      return sc->mp ? qua__lfq_put_mp_slow(&r->q, item) : qua__lfq_put_sp_slow(&r->q, item);
    return sc->mp ? put_mp[sc->tracked](&r->q, item) : put_sp[sc->tracked](&r->q, item);
  }
  urcu_memb_read_lock();
  put_fn_t f = atomic_load_explicit(&r->put_fn[id], memory_order_acquire);
  int st = f != NULL ? f(&r->q, item) : -1;
  urcu_memb_read_unlock();
  return st;
}

static int do_get(run_t *r, int id, uint64_t *item)
{
  const scenario_t *sc = r->sc;
  if (!sc->switching) {
    static _Thread_local unsigned calls;
    if (sc->tracked && (++calls & 1))
      return sc->mc ? qua__lfq_get_mc_slow(&r->q, item) : qua__lfq_get_sc_slow(&r->q, item);
    return sc->mc ? get_mc[sc->tracked](&r->q, item) : get_sc[sc->tracked](&r->q, item);
  }
  urcu_memb_read_lock();
  get_fn_t f = atomic_load_explicit(&r->get_fn[id], memory_order_acquire);
  int st = f != NULL ? f(&r->q, item) : -1;
  urcu_memb_read_unlock();
  return st;
}

static void *producer(void *arg)
{
  worker_t *w = arg;
  run_t *r = w->r;
  const scenario_t *sc = r->sc;
  int id = w->id;
  if (sc->switching)
    urcu_memb_register_thread();
  uint64_t buf[64];
  for (long seq = 0; seq < r->items && !atomic_load(&r->stop);) {
    if (sc->batch > 1) {
      size_t n = 1 + (size_t)seq % (size_t)sc->batch, done = 0;
      if (n > (size_t)(r->items - seq))
        n = (size_t)(r->items - seq);
      for (size_t i = 0; i < n; i++)
        buf[i] = (uint64_t)id << 48 | (uint64_t)(seq + (long)i);
      int st = sc->mp ? qua__lfq_put_n_mp(&r->q, buf, n, &done)
                      : qua__lfq_put_n_sp(&r->q, buf, n, &done);
      if (st == QUA__LFQ_OK) {
        seq += (long)done;
      } else if (st == QUA__LFQ_FULL) {
        atomic_fetch_add(&r->fulls, 1);
        if (past_deadline(r, "producer"))
          break;
        sched_yield();
      } else {
        fail(r, "put_n returned %d", st);
      }
      continue;
    }
    uint64_t item = (uint64_t)id << 48 | (uint64_t)seq;
    uint64_t nf = atomic_load(&r->notfull_epoch);
    uint32_t a = stamp(r);
    int st = do_put(r, id, item);
    uint32_t b = stamp(r);
    switch (st) {
    case QUA__LFQ_OK:
    case QUA__LFQ_EDGE:
      if (sc->tracked) {
        r->put_a[id][seq] = a;
        r->put_b[id][seq] = b;
        log_op(r, id, a, b, st == QUA__LFQ_EDGE ? OP_PUT_EDGE : OP_PUT_OK);
      }
      if (st == QUA__LFQ_EDGE) {
        if (!sc->tracked)
          fail(r, "untracked put returned EDGE");
        atomic_fetch_add(&r->edges_put, 1);
        atomic_fetch_add(&r->notempty_epoch, 1); /* the notempty callback */
      }
      seq++;
      break;
    case QUA__LFQ_FULL:
      atomic_fetch_add(&r->fulls, 1);
      log_op(r, id, a, b, OP_PUT_FULL);
      if (sc->tracked) {
        if (!wait_epoch(r, &r->notfull_epoch, nf, "producer waiting for notfull after FULL"))
          goto out;
      } else if (past_deadline(r, "producer")) {
        goto out;
      } else {
        sched_yield();
      }
      break;
    case -1: /* withdrawn by the switcher */
      if (past_deadline(r, "withdrawn producer"))
        goto out;
      sched_yield();
      break;
    default:
      fail(r, "put returned %d", st);
      goto out;
    }
  }
out:
  if (sc->switching)
    urcu_memb_unregister_thread();
  return NULL;
}

/* Checks and books one item; returns false when it is bad. */
static bool take_item(run_t *r, long *last, uint64_t item)
{
  uint64_t p = item >> 48, seq = item & ((UINT64_C(1) << 48) - 1);
  if (p >= (uint64_t)r->sc->nprod || seq >= (uint64_t)r->items) {
    fail(r, "got an item never put: %#llx", (unsigned long long)item);
    return false;
  }
  if ((long)seq <= last[p]) {
    fail(r, "producer %llu's order broken: %llu after %ld", (unsigned long long)p,
         (unsigned long long)seq, last[p]);
    return false;
  }
  last[p] = (long)seq;
  if (atomic_fetch_add_explicit(&r->seen[p][seq], 1, memory_order_relaxed) != 0) {
    fail(r, "item %llu of producer %llu delivered twice", (unsigned long long)seq,
         (unsigned long long)p);
    return false;
  }
  return true;
}

static void *consumer(void *arg)
{
  worker_t *w = arg;
  run_t *r = w->r;
  const scenario_t *sc = r->sc;
  int id = w->id, thread = MAXT + w->id;
  long last[MAXT] = {-1, -1};
  uint64_t buf[64];
  if (sc->switching)
    urcu_memb_register_thread();
  while (!atomic_load(&r->stop) && atomic_load(&r->consumed) < r->total) {
    if (sc->batch > 1) {
      size_t done = 0;
      int st = sc->mc ? qua__lfq_get_n_mc(&r->q, buf, (size_t)sc->batch, &done)
                      : qua__lfq_get_n_sc(&r->q, buf, (size_t)sc->batch, &done);
      if (st == QUA__LFQ_OK) {
        for (size_t i = 0; i < done; i++)
          if (!take_item(r, last, buf[i]))
            goto out;
        atomic_fetch_add(&r->consumed, (long)done);
      } else if (st == QUA__LFQ_EMPTY) {
        atomic_fetch_add(&r->empties, 1);
        if (past_deadline(r, "consumer"))
          break;
        sched_yield();
      } else {
        fail(r, "get_n returned %d", st);
      }
      continue;
    }
    uint64_t item = 0, ne = atomic_load(&r->notempty_epoch);
    uint32_t a = stamp(r);
    int st = do_get(r, id, &item);
    uint32_t b = stamp(r);
    switch (st) {
    case QUA__LFQ_OK:
    case QUA__LFQ_EDGE:
      if (!take_item(r, last, item))
        goto out;
      if (sc->tracked) {
        long idx = (long)(item & ((UINT64_C(1) << 48) - 1));
        r->get_a[item >> 48][idx] = a;
        r->get_b[item >> 48][idx] = b;
        log_op(r, thread, a, b, st == QUA__LFQ_EDGE ? OP_GET_EDGE : OP_GET_OK);
      }
      if (st == QUA__LFQ_EDGE) {
        if (!sc->tracked)
          fail(r, "untracked get returned EDGE");
        atomic_fetch_add(&r->edges_get, 1);
        atomic_fetch_add(&r->notfull_epoch, 1); /* the notfull callback */
      }
      atomic_fetch_add(&r->consumed, 1);
      break;
    case QUA__LFQ_EMPTY:
      atomic_fetch_add(&r->empties, 1);
      log_op(r, thread, a, b, OP_GET_EMPTY);
      if (sc->tracked) {
        if (!wait_epoch(r, &r->notempty_epoch, ne, "consumer waiting for notempty after EMPTY"))
          goto out;
      } else if (past_deadline(r, "consumer")) {
        goto out;
      } else {
        sched_yield();
      }
      break;
    case -1:
      if (past_deadline(r, "withdrawn consumer"))
        goto out;
      sched_yield();
      break;
    default:
      fail(r, "get returned %d", st);
      goto out;
    }
  }
out:
  if (sc->switching)
    urcu_memb_unregister_thread();
  return NULL;
}

/* Flips both sides between single and multi at grace points until the items are through. */
static void *switcher(void *arg)
{
  run_t *r = arg;
  bool multi_p = false, multi_c = false;
  int t = r->sc->tracked;
  const struct timespec pause = {0, 200 * 1000};
  for (unsigned i = 0; !atomic_load(&r->stop) && atomic_load(&r->consumed) < r->total; i++) {
    nanosleep(&pause, NULL);
    if (i % 2 == 0) {
      if (!multi_p) { /* SP -> MP: producer 0 leaves put_sp before producer 1 enters */
        atomic_store_explicit(&r->put_fn[0], put_mp[t], memory_order_release);
        urcu_memb_synchronize_rcu();
        atomic_store_explicit(&r->put_fn[1], put_mp[t], memory_order_release);
      } else { /* MP -> SP: producer 1 leaves before producer 0 goes single */
        atomic_store_explicit(&r->put_fn[1], NULL, memory_order_release);
        urcu_memb_synchronize_rcu();
        atomic_store_explicit(&r->put_fn[0], put_sp[t], memory_order_release);
      }
      multi_p = !multi_p;
    } else {
      if (!multi_c) {
        atomic_store_explicit(&r->get_fn[0], get_mc[t], memory_order_release);
        urcu_memb_synchronize_rcu();
        atomic_store_explicit(&r->get_fn[1], get_mc[t], memory_order_release);
      } else {
        atomic_store_explicit(&r->get_fn[1], NULL, memory_order_release);
        urcu_memb_synchronize_rcu();
        atomic_store_explicit(&r->get_fn[0], get_sc[t], memory_order_release);
      }
      multi_c = !multi_c;
    }
    atomic_fetch_add(&r->switches, 1);
  }
  /* Let the remaining items through with both workers in. */
  atomic_store_explicit(&r->put_fn[0], put_mp[t], memory_order_release);
  atomic_store_explicit(&r->get_fn[0], get_mc[t], memory_order_release);
  urcu_memb_synchronize_rcu();
  atomic_store_explicit(&r->put_fn[1], put_mp[t], memory_order_release);
  atomic_store_explicit(&r->get_fn[1], get_mc[t], memory_order_release);
  return NULL;
}

/* Builds prefix counts over stamps and checks every operation's bound (see the top). */
static void check_counts(run_t *r)
{
  uint32_t n = atomic_load(&r->clock) + 1;
  uint32_t *pi = calloc(n + 1, sizeof *pi), *pr = calloc(n + 1, sizeof *pr);
  uint32_t *gi = calloc(n + 1, sizeof *gi), *gr = calloc(n + 1, sizeof *gr);
  CU_ASSERT_FATAL(pi && pr && gi && gr);
  /* Mark each item's four stamps, then turn marks into "how many before stamp s". */
  for (int p = 0; p < r->sc->nprod; p++)
    for (long i = 0; i < r->items; i++) {
      pi[r->put_a[p][i] + 1]++;
      pr[r->put_b[p][i] + 1]++;
      gi[r->get_a[p][i] + 1]++;
      gr[r->get_b[p][i] + 1]++;
    }
  for (uint32_t s = 1; s <= n; s++) {
    pi[s] += pi[s - 1];
    pr[s] += pr[s - 1];
    gi[s] += gi[s - 1];
    gr[s] += gr[s - 1];
  }
  const long cap = r->sc->capacity;
  long bad = 0;
  for (int t = 0; t < 2 * MAXT; t++) {
    for (size_t k = 0; k < r->log[t].n; k++) {
      opstamp_t o = r->log[t].ops[k];
      long surely = (long)pr[o.a] - (long)gi[o.b]; /* lower bound of the size */
      long maybe = (long)pi[o.b] - (long)gr[o.a];  /* upper bound of the size */
      bool ok = true;
      switch (o.kind) {
      case OP_PUT_EDGE: ok = surely <= 0; break;     /* was empty */
      case OP_GET_EMPTY: ok = surely <= 0; break;    /* was empty */
      case OP_PUT_OK: ok = maybe - 1 >= 1; break;     /* others were there */
      case OP_PUT_FULL: ok = maybe >= cap; break;     /* was full */
      case OP_GET_EDGE: ok = maybe >= cap; break;     /* was full */
      case OP_GET_OK: ok = surely + 1 < cap; break;   /* was not full */
      default: break;
      }
      if (!ok) {
        if (bad++ == 0)
          fail(r, "operation kind %d on thread %d at stamps [%u,%u] contradicts the count "
               "(surely %ld, maybe %ld, capacity %ld)", o.kind, t, o.a, o.b, surely, maybe, cap);
      }
    }
  }
  free(pi);
  free(pr);
  free(gi);
  free(gr);
}

static void run_scenario(const scenario_t *sc)
{
  run_t *r = calloc(1, sizeof *r);
  CU_ASSERT_FATAL(r != NULL);
  r->sc = sc;
  r->items = sc->items;
  r->total = sc->items * sc->nprod;
  r->deadline = qtest_now() + (QTEST_SANITIZED ? 120.0 : 60.0);
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&r->q, sc->capacity), 0);
  qua__lfq_set_tracked(&r->q, sc->tracked);
  for (int p = 0; p < sc->nprod; p++) {
    r->seen[p] = calloc((size_t)r->items, 1);
    CU_ASSERT_FATAL(r->seen[p] != NULL);
    if (sc->tracked) {
      r->put_a[p] = calloc((size_t)r->items, sizeof(uint32_t));
      r->put_b[p] = calloc((size_t)r->items, sizeof(uint32_t));
      r->get_a[p] = calloc((size_t)r->items, sizeof(uint32_t));
      r->get_b[p] = calloc((size_t)r->items, sizeof(uint32_t));
      CU_ASSERT_FATAL(r->put_a[p] && r->put_b[p] && r->get_a[p] && r->get_b[p]);
    }
  }
  if (sc->tracked)
    for (int t = 0; t < 2 * MAXT; t++) {
      /* Items plus FULL/EMPTY: at most one of those per EDGE, plus one. */
      r->log[t].cap = (size_t)(2 * r->total + 16);
      r->log[t].ops = malloc(r->log[t].cap * sizeof(opstamp_t));
      CU_ASSERT_FATAL(r->log[t].ops != NULL);
    }
  /* Start single-producer single-consumer; the switcher brings the second ones in. */
  atomic_init(&r->put_fn[0], put_sp[sc->tracked]);
  atomic_init(&r->put_fn[1], NULL);
  atomic_init(&r->get_fn[0], get_sc[sc->tracked]);
  atomic_init(&r->get_fn[1], NULL);

  pthread_t th[2 * MAXT + 1];
  worker_t w[2 * MAXT];
  int nth = 0;
  for (int p = 0; p < sc->nprod; p++) {
    w[nth] = (worker_t){r, p};
    CU_ASSERT_FATAL(pthread_create(&th[nth], NULL, producer, &w[nth]) == 0);
    nth++;
  }
  for (int c = 0; c < sc->ncons; c++) {
    w[nth] = (worker_t){r, c};
    CU_ASSERT_FATAL(pthread_create(&th[nth], NULL, consumer, &w[nth]) == 0);
    nth++;
  }
  if (sc->switching) {
    CU_ASSERT_FATAL(pthread_create(&th[nth], NULL, switcher, r) == 0);
    nth++;
  }
  for (int i = 0; i < nth; i++)
    pthread_join(th[i], NULL);

  if (!atomic_load(&r->failed)) {
    for (int p = 0; p < sc->nprod && !atomic_load(&r->failed); p++)
      for (long i = 0; i < r->items; i++)
        if (r->seen[p][i] != 1) {
          fail(r, "item %ld of producer %d delivered %d times", i, p, r->seen[p][i]);
          break;
        }
  }
  uint64_t x;
  if (!atomic_load(&r->failed) && qua__lfq_get_mc(&r->q, &x) != QUA__LFQ_EMPTY)
    fail(r, "queue not empty at the end");
  if (!atomic_load(&r->failed) && sc->tracked) {
    check_counts(r);
    /* Small rings and fast producers make edges happen; a run without any checked nothing. */
    if (atomic_load(&r->edges_put) == 0)
      fail(r, "no notempty edge in %ld items", r->total);
  }
  if (!atomic_load(&r->failed) && sc->switching && atomic_load(&r->switches) < 4)
    fail(r, "only %ld variant switches happened", atomic_load(&r->switches));

  printf("\n    %s: %ld items, %ld FULL, %ld EMPTY, %ld/%ld put/get EDGE, %ld switches%s%s ",
         sc->name, r->total, atomic_load(&r->fulls), atomic_load(&r->empties),
         atomic_load(&r->edges_put), atomic_load(&r->edges_get), atomic_load(&r->switches),
         atomic_load(&r->failed) ? ": FAILED: " : "", atomic_load(&r->failed) ? r->why : "");
  CU_ASSERT_FALSE(atomic_load(&r->failed));

  for (int p = 0; p < sc->nprod; p++) {
    free(r->seen[p]);
    free(r->put_a[p]);
    free(r->put_b[p]);
    free(r->get_a[p]);
    free(r->get_b[p]);
  }
  for (int t = 0; t < 2 * MAXT; t++)
    free(r->log[t].ops);
  qua__lfq_fini(&r->q);
  free(r);
}

static long plain_items(void) { return qtest_scale(1000000, 100000); }
static long tracked_items(void) { return qtest_scale(200000, 20000); }

#define PLAIN(fn, label, np, nc, m_p, m_c)                                                         \
  static void fn(void)                                                                             \
  {                                                                                                \
    scenario_t sc = {label, np, nc, m_p, m_c, false, false, 1, 64, plain_items()};                 \
    run_scenario(&sc);                                                                             \
  }
#define TRACKED(fn, label, np, nc, m_p, m_c)                                                       \
  static void fn(void)                                                                             \
  {                                                                                                \
    scenario_t sc = {label, np, nc, m_p, m_c, true, false, 1, 4, tracked_items()};                 \
    run_scenario(&sc);                                                                             \
  }

PLAIN(spsc_1x1_delivers_all_in_order, "spsc 1x1", 1, 1, false, false)
PLAIN(mpsc_2x1_delivers_all_in_order, "mpsc 2x1", 2, 1, true, false)
PLAIN(spmc_1x2_delivers_all_in_order, "spmc 1x2", 1, 2, false, true)
PLAIN(mpmc_2x2_delivers_all_in_order, "mpmc 2x2", 2, 2, true, true)
TRACKED(spsc_tracked_edges_exact, "tracked spsc 1x1", 1, 1, false, false)
TRACKED(mpsc_tracked_edges_exact, "tracked mpsc 2x1", 2, 1, true, false)
TRACKED(spmc_tracked_edges_exact, "tracked spmc 1x2", 1, 2, false, true)
TRACKED(mpmc_tracked_edges_exact, "tracked mpmc 2x2", 2, 2, true, true)

static void mpmc_batches_deliver_all_in_order(void)
{
  scenario_t sc = {"mpmc 2x2 batches", 2, 2, true, true, false, false, 8, 64, plain_items()};
  run_scenario(&sc);
}

static void spsc_batches_deliver_all_in_order(void)
{
  scenario_t sc = {"spsc 1x1 batches", 1, 1, false, false, false, false, 8, 64, plain_items()};
  run_scenario(&sc);
}

static void variant_switch_under_load_keeps_items(void)
{
  scenario_t sc = {"switching 2x2", 2, 2, false, false, false, true, 1, 64, plain_items() / 2};
  run_scenario(&sc);
}

static void variant_switch_under_load_keeps_edges_exact(void)
{
  scenario_t sc = {"tracked switching 2x2", 2, 2, false, false, true, true, 1, 4, tracked_items()};
  run_scenario(&sc);
}

int main(void)
{
  static const qtest_case_t cases[] = {
    {"spsc_1x1_delivers_all_in_order", spsc_1x1_delivers_all_in_order},
    {"mpsc_2x1_delivers_all_in_order", mpsc_2x1_delivers_all_in_order},
    {"spmc_1x2_delivers_all_in_order", spmc_1x2_delivers_all_in_order},
    {"mpmc_2x2_delivers_all_in_order", mpmc_2x2_delivers_all_in_order},
    {"spsc_batches_deliver_all_in_order", spsc_batches_deliver_all_in_order},
    {"mpmc_batches_deliver_all_in_order", mpmc_batches_deliver_all_in_order},
    {"spsc_tracked_edges_exact", spsc_tracked_edges_exact},
    {"mpsc_tracked_edges_exact", mpsc_tracked_edges_exact},
    {"spmc_tracked_edges_exact", spmc_tracked_edges_exact},
    {"mpmc_tracked_edges_exact", mpmc_tracked_edges_exact},
    {"variant_switch_under_load_keeps_items", variant_switch_under_load_keeps_items},
    {"variant_switch_under_load_keeps_edges_exact", variant_switch_under_load_keeps_edges_exact},
    {NULL, NULL},
  };
  return qtest_run("lfq-stress", cases);
}
