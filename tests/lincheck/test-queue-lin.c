/* test-queue-lin.c -- histories of concurrent put/get on every queue variant, checked for linearizability.
 *
 * Producers and consumers on their own threads call a queue through sites
 * and record every call (record.h); the history is then checked against
 * the bounded FIFO with the two-phase close (lincheck.h). Runs cover SP-SC,
 * MP-SC, SP-MC and MP-MC, tracked (notify=1: exact, checked strictly) and
 * untracked (notify=0: FULL and EMPTY are hints, checked laxly); a second
 * producer and a second consumer that keep closing and reopening their
 * sites, so the variant switches live; and a close in the middle of the
 * run. meson runs the binary with QUA_SYNTH=stencil and =off, and each run
 * asserts that the code it asked for is the code the sites run. Two
 * deliberately wrong queues (one swaps two items of one producer, one hands
 * an item out twice) must be rejected, so the checker is seen to fail.
 *
 * Tracked mode is exact with any number of producers and consumers
 * (lfq.c, invariants 12-17): puts count in the order of their positions and
 * every ticket is a position, so every tracked run requires the exact
 * verdict. LINCHECK_CASES=a,b runs only the cases whose names contain one
 * of the words (for loops in the shell that repeat the concurrent cases).
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "qtest-qua.h"
#include "record.h"

#define MAXT 4
#define CAPACITY 8
#define MAIN_CLIENT 9 /* the main thread's drain and close */

/* ---- The queues under test: a quaject, or a wrong queue of the test's own --- */

typedef struct wrongq {
  pthread_mutex_t mu;
  uint64_t v[CAPACITY];
  unsigned head, len, puts, gets;
  int fault; /* 1: swap two items of one producer now and then; 2: hand one out twice */
} wrongq_t;

typedef struct run {
  qua_quaject_t *q; /* NULL: the wrong queue */
  wrongq_t wq;
  int nprod, ncons;
  bool flap; /* the second producer and consumer close and reopen their sites */
  bool close_midway;
  long items; /* per producer */
  _Atomic int opened;
  _Atomic bool go, stop;
  _Atomic long consumed;
  _Atomic int producing; /* producers not yet through their items */
  _Atomic long variant_changes[2]; /* put side, get side */
  _Atomic long cons_flaps;         /* flaps the flapping consumer made */
  lin_log_t logs[2 * MAXT + 1];
} run_t;

typedef struct worker {
  run_t *r;
  int id; /* 0..MAXT-1 producers, MAXT.. consumers */
  bool flapping;
} worker_t;

static lin_result_t wrong_put(wrongq_t *w, uint64_t x) {
  pthread_mutex_lock(&w->mu);
  lin_result_t res = LIN_FULL;
  if (w->len < CAPACITY) {
    unsigned at = (w->head + w->len) % CAPACITY;
    w->v[at] = x;
    unsigned before = (at + CAPACITY - 1) % CAPACITY;
    if (w->fault == 1 && ++w->puts % 300 == 0 && w->len > 0 && w->v[before] >> 40 == x >> 40) {
      w->v[at] = w->v[before]; /* the new item overtakes its producer's previous one */
      w->v[before] = x;
    }
    w->len++;
    res = LIN_OK;
  }
  pthread_mutex_unlock(&w->mu);
  return res;
}

static lin_result_t wrong_get(wrongq_t *w, uint64_t *x) {
  pthread_mutex_lock(&w->mu);
  lin_result_t res = LIN_EMPTY;
  if (w->len > 0) {
    *x = w->v[w->head];
    if (!(w->fault == 2 && ++w->gets % 300 == 0)) { /* now and then, leave it there */
      w->head = (w->head + 1) % CAPACITY;
      w->len--;
    }
    res = LIN_OK;
  }
  pthread_mutex_unlock(&w->mu);
  return res;
}

/* After a FULL or EMPTY: yield, and past a few in a row sleep a little, so
 * that a spinning thread does not fill its log while the others wait. */
static void back_off(unsigned *misses) {
  if (++*misses < 8) {
    sched_yield();
  } else {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  }
}

static lin_result_t status(int rc) {
  return rc == QUA_OK ? LIN_OK : rc == QUA_DIVERTED ? LIN_FULL : LIN_CLOSED;
}

/* One call, recorded: put when value is given, else get. */
static lin_result_t call(run_t *r, qua_site_t *s, lin_log_t *log, uint32_t client, bool put,
                         uint64_t value) {
  uint64_t got = 0, inv = lin_tick();
  lin_result_t res;
  if (r->q == NULL)
    res = put ? wrong_put(&r->wq, value) : wrong_get(&r->wq, &got);
  else
    res = status(qua_call(s, put ? value : 0, 0, &got));
  uint64_t resp = lin_tick();
  if (!put && res == LIN_FULL)
    res = LIN_EMPTY; /* a get's diversion is "empty" */
  lin_log_add(log, put ? LIN_PUT : LIN_GET, res, put ? value : got, client, inv, resp);
  return res;
}

/* The variant the queue's entry runs ("spsc" ... "mpmc"), or "". */
static const char *variant_of(const qua_quaject_t *q, const char *entry, char out[5]) {
  const char *impl = qua_quaject_entry_impl(q, qua_type_entry(qua_type_find("queue"), entry));
  static const char *const names[] = {"spsc", "spmc", "mpsc", "mpmc"};
  out[0] = '\0';
  for (int i = 0; i < 4; i++)
    if (strstr(impl, names[i]) != NULL)
      memcpy(out, names[i], 5);
  return out;
}

static qua_site_t *open_site(run_t *r, bool put) {
  return r->q == NULL ? NULL : qtest_site(r->q, put ? "put" : "get", NULL, 0);
}

static void close_site(run_t *r, qua_site_t *s) {
  if (s != NULL)
    qua_site_close(s);
}

/* Closes and reopens the flapping worker's site, counting the variant
 * changes the entry shows (the steady worker's site alone, then both):
 * the count of real switches, not of reopens. */
static qua_site_t *flap(run_t *r, qua_site_t *s, bool put) {
  char before[5], alone[5], after[5];
  variant_of(r->q, put ? "put" : "get", before);
  qua_site_close(s);
  int side = put ? 0 : 2; /* the "sp"/"mp" or "sc"/"mc" half */
  /* The switch back may come after a grace period: wait a while for it. */
  for (double end = qtest_now() + 2; qtest_now() < end; sched_yield())
    if (memcmp(variant_of(r->q, put ? "put" : "get", alone) + side, before + side, 2) != 0)
      break;
  s = open_site(r, put);
  variant_of(r->q, put ? "put" : "get", after);
  if (getenv("LINCHECK_VERBOSE") != NULL)
    fprintf(stderr, "%s: %s %s %s\n", put ? "put" : "get", before, alone, after);
  atomic_fetch_add(&r->variant_changes[!put], (memcmp(before + side, alone + side, 2) != 0) +
                                            (memcmp(alone + side, after + side, 2) != 0));
  return s;
}

static void *produce(void *arg) {
  worker_t *w = arg;
  run_t *r = w->r;
  lin_log_t *log = &r->logs[w->id];
  qua_site_t *s = open_site(r, true);
  atomic_fetch_add(&r->opened, 1);
  while (!atomic_load(&r->go))
    sched_yield();
  unsigned misses = 0;
  long every = r->items / 40 + 1, all = r->items * r->nprod / 40 + 1;
  for (long i = 0, flapped = 0; i < r->items && !lin_log_full(log);) {
    /* At every 40th of its own items, or of all items consumed. */
    if (w->flapping && r->q != NULL &&
        (i / every > flapped || atomic_load(&r->consumed) / all > flapped)) {
      s = flap(r, s, true);
      flapped++;
    }
    lin_result_t res = call(r, s, log, (uint32_t)w->id, true, (uint64_t)(w->id + 1) << 40 | (uint64_t)i);
    if (res == LIN_OK) {
      i++;
      misses = 0;
    } else if (res == LIN_CLOSED) {
      break;
    } else {
      back_off(&misses);
    }
  }
  /* Keep the site open until every producer is through, so that the other
   * one's flaps switch the variant. */
  atomic_fetch_sub(&r->producing, 1);
  while (atomic_load(&r->producing) > 0)
    sched_yield();
  close_site(r, s);
  return NULL;
}

static void *consume(void *arg) {
  worker_t *w = arg;
  run_t *r = w->r;
  lin_log_t *log = &r->logs[w->id];
  qua_site_t *s = open_site(r, false);
  atomic_fetch_add(&r->opened, 1);
  while (!atomic_load(&r->go))
    sched_yield();
  unsigned misses = 0;
  long every = r->items * r->nprod / 40 + 1, mark = every;
  while (!atomic_load(&r->stop) && !lin_log_full(log)) {
    if (w->flapping && atomic_load(&r->consumed) >= mark && r->q != NULL) {
      s = flap(r, s, false);
      mark += every;
      atomic_fetch_add(&r->cons_flaps, 1);
    }
    lin_result_t res = call(r, s, log, (uint32_t)w->id, false, 0);
    if (res == LIN_OK) {
      atomic_fetch_add(&r->consumed, 1);
      misses = 0;
    } else if (res == LIN_CLOSED) {
      break;
    } else {
      back_off(&misses);
    }
  }
  close_site(r, s);
  return NULL;
}

/* Runs producers and consumers on r (q made by the caller), drains what is
 * left from the main thread, and checks the history. Returns the checker's
 * verdict. */
static int run_and_check(run_t *r, const char *name, bool lax) {
  long items = r->items;
  size_t cap = (size_t)items * 16 + 4096;
  worker_t w[2 * MAXT];
  pthread_t t[2 * MAXT];
  for (int i = 0; i < 2 * MAXT + 1; i++)
    lin_log_init(&r->logs[i], cap);
  atomic_store(&r->producing, r->nprod);
  for (int i = 0; i < r->ncons; i++) {
    w[MAXT + i] = (worker_t){r, MAXT + i, r->flap && i == 1};
    pthread_create(&t[MAXT + i], NULL, consume, &w[MAXT + i]);
  }
  for (int i = 0; i < r->nprod; i++) {
    w[i] = (worker_t){r, i, r->flap && i == 1};
    pthread_create(&t[i], NULL, produce, &w[i]);
  }
  while (atomic_load(&r->opened) < r->nprod + r->ncons)
    sched_yield();
  if (r->q != NULL) {
    /* Every site is open: the entries run the variant the wiring asks for,
     * with the code the environment asked for. */
    static const char *const names[2][2] = {{"spsc", "spmc"}, {"mpsc", "mpmc"}};
    char put_v[5], get_v[5];
    const char *want = names[r->nprod > 1][r->ncons > 1];
    CU_ASSERT_STRING_EQUAL(variant_of(r->q, "put", put_v), want);
    CU_ASSERT_STRING_EQUAL(variant_of(r->q, "get", get_v), want);
    qtest_runs_requested_code(r->q, "queue", "put");
    qtest_runs_requested_code(r->q, "queue", "get");
  }
  atomic_store(&r->go, true);
  lin_log_t *mine = &r->logs[2 * MAXT];
  double deadline = qtest_now() + 120;
  if (r->close_midway) {
    /* At half, and (switching) once each side's variant has changed at
     * least once, so that the close lands among switches on both sides. */
    while ((atomic_load(&r->consumed) < items * r->nprod / 2 ||
            (r->flap && (atomic_load(&r->variant_changes[0]) < 2 ||
                         atomic_load(&r->variant_changes[1]) < 2))) &&
           qtest_now() < deadline)
      sched_yield();
    uint64_t inv = lin_tick();
    CU_ASSERT_EQUAL(qua_queue_close(r->q), QUA_OK);
    lin_log_add(mine, LIN_CLOSE, LIN_OK, 0, MAIN_CLIENT, inv, lin_tick());
  }
  for (int i = 0; i < r->nprod; i++)
    pthread_join(t[i], NULL);
  long puts = 0;
  for (int i = 0; i < r->nprod; i++)
    for (size_t k = 0; k < r->logs[i].n; k++)
      puts += r->logs[i].ops[k].result == LIN_OK;
  while (atomic_load(&r->consumed) < puts && !r->close_midway && qtest_now() < deadline)
    sched_yield();
  /* A flapping consumer flaps at every 40th of all items consumed (as
   * consume() counts its marks), catching up one mark a call: let it reach
   * the last mark before the stop, however far the steady consumer ran ahead. */
  long marks = puts / (items * r->nprod / 40 + 1);
  while (r->flap && r->q != NULL && r->ncons > 1 && !r->close_midway &&
         atomic_load(&r->cons_flaps) < marks && qtest_now() < deadline)
    sched_yield();
  atomic_store(&r->stop, true);
  for (int i = 0; i < r->ncons; i++)
    pthread_join(t[MAXT + i], NULL);
  /* Drain: an item lost inside the queue shows up as a wrong "empty". */
  qua_site_t *s = open_site(r, false);
  while (call(r, s, mine, MAIN_CLIENT, false, 0) == LIN_OK) {
  }
  mine->ops[mine->n - 1].exact = true; /* nothing else runs: the queue is empty */
  close_site(r, s);
  bool complete = true;
  for (int i = 0; i < 2 * MAXT + 1; i++)
    complete = complete && !lin_log_full(&r->logs[i]);
  CU_ASSERT(complete); /* no thread stopped for want of log room */
  /* Tracked runs check the strict close (lfq.c, invariant 18: close is one
   * point in the count word's order). Untracked (lax) runs check the
   * documented weaker one: a put that overlapped the close may still land
   * after a get saw CLOSED, since put_sp's fast path has no RMW to order it
   * with the close. */
  lin_spec_t spec = {.capacity = CAPACITY, .lax = lax, .racy_close = lax};
  lin_report_t rep;
  int v = lin_logs_check(&spec, r->logs, 2 * MAXT + 1, name, &rep);
  lin_logs_free(r->logs, 2 * MAXT + 1);
  if (r->q != NULL && r->flap)
    fprintf(stderr, "  variant changes seen: %ld of put, %ld of get\n",
            atomic_load(&r->variant_changes[0]), atomic_load(&r->variant_changes[1]));
  return v;
}

static void run_queue(int nprod, int ncons, bool tracked, bool flap, bool close_midway) {
  run_t *r = calloc(1, sizeof *r);
  r->nprod = nprod;
  r->ncons = ncons;
  r->flap = flap;
  r->close_midway = close_midway;
  r->items = qtest_scale(20000, 2000);
  char cap[32];
  snprintf(cap, sizeof cap, "capacity=%d", CAPACITY);
  r->q = qtest_make("queue", cap, tracked ? "notify=1" : "notify=0");
  char name[96];
  snprintf(name, sizeof name, "%dP%dC %s%s%s %s", nprod, ncons, tracked ? "tracked" : "untracked",
           flap ? " switching" : "", close_midway ? " closed midway" : "",
           getenv("QUA_SYNTH") ? getenv("QUA_SYNTH") : "");
  CU_ASSERT_EQUAL(run_and_check(r, name, !tracked), 1);
  /* The producer flapper flaps at every 40th of its items (or of all
   * consumed): 39 flaps. The consumer flapper flaps when it sees another
   * 40th of all consumed, once a call, and the run stops when all is
   * consumed, so under a sanitizer it may see fewer: at least 10. With a
   * close (at half, when it lands varies) one flap a side. Each flap is
   * two changes. */
  if (flap) {
    CU_ASSERT(atomic_load(&r->variant_changes[0]) >= 2 * (close_midway ? 1 : 39));
    CU_ASSERT(atomic_load(&r->variant_changes[1]) >= 2 * (close_midway ? 1 : 10));
  }
  CU_ASSERT_EQUAL(qua_destroy(r->q, false, NULL), QUA_OK);
  free(r);
}

static void spsc_tracked_is_linearizable(void) { run_queue(1, 1, true, false, false); }
static void mpsc_tracked_is_linearizable(void) { run_queue(2, 1, true, false, false); }
static void spmc_tracked_is_linearizable(void) { run_queue(1, 2, true, false, false); }
static void mpmc_tracked_is_linearizable(void) { run_queue(2, 2, true, false, false); }
static void spsc_untracked_moves_items_linearizably(void) { run_queue(1, 1, false, false, false); }
static void mpsc_untracked_moves_items_linearizably(void) { run_queue(2, 1, false, false, false); }
static void spmc_untracked_moves_items_linearizably(void) { run_queue(1, 2, false, false, false); }
static void mpmc_untracked_moves_items_linearizably(void) { run_queue(2, 2, false, false, false); }
static void variant_switches_live_tracked(void) { run_queue(2, 2, true, true, false); }
static void variant_switches_live_untracked(void) { run_queue(2, 2, false, true, false); }
static void close_midway_tracked(void) { run_queue(2, 2, true, false, true); }
static void close_midway_untracked(void) { run_queue(2, 2, false, false, true); }
static void close_while_switching(void) { run_queue(2, 2, true, true, true); }

static void wrong_queue(int fault, int ncons) {
  run_t *r = calloc(1, sizeof *r);
  pthread_mutex_init(&r->wq.mu, NULL);
  r->wq.fault = fault;
  r->nprod = 2;
  r->ncons = ncons;
  r->items = qtest_scale(20000, 2000);
  CU_ASSERT_EQUAL(run_and_check(r, fault == 1 ? "wrong queue (swaps)" : "wrong queue (twice)",
                                false), 0);
  pthread_mutex_destroy(&r->wq.mu);
  free(r);
}

static void queue_that_swaps_items_is_rejected(void) { wrong_queue(1, 1); }
static void queue_that_hands_out_twice_is_rejected(void) { wrong_queue(2, 2); }

int main(void) {
  static const qtest_case_t cases[] = {
      {"spsc_tracked_is_linearizable", spsc_tracked_is_linearizable},
      {"mpsc_tracked_is_linearizable", mpsc_tracked_is_linearizable},
      {"spmc_tracked_is_linearizable", spmc_tracked_is_linearizable},
      {"mpmc_tracked_is_linearizable", mpmc_tracked_is_linearizable},
      {"spsc_untracked_moves_items_linearizably", spsc_untracked_moves_items_linearizably},
      {"mpsc_untracked_moves_items_linearizably", mpsc_untracked_moves_items_linearizably},
      {"spmc_untracked_moves_items_linearizably", spmc_untracked_moves_items_linearizably},
      {"mpmc_untracked_moves_items_linearizably", mpmc_untracked_moves_items_linearizably},
      {"variant_switches_live_tracked", variant_switches_live_tracked},
      {"variant_switches_live_untracked", variant_switches_live_untracked},
      {"close_midway_tracked", close_midway_tracked},
      {"close_midway_untracked", close_midway_untracked},
      {"close_while_switching", close_while_switching},
      {"queue_that_swaps_items_is_rejected", queue_that_swaps_items_is_rejected},
      {"queue_that_hands_out_twice_is_rejected", queue_that_hands_out_twice_is_rejected},
      {NULL, NULL}};
  return qtest_run("lincheck-queue", lin_select_cases(cases, getenv("LINCHECK_CASES")));
}
