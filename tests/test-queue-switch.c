/* test-queue-switch.c -- a queue quaject switching variant under load, through sites.
 *
 * Two producers and two consumers; the second of each side keeps closing
 * and reopening its site, so the queue flips between SP and MP code (and
 * SC and MC) while items are in flight. The first of each side keeps its
 * site open until the flapping one is done, so every close must leave the
 * queue on the single-caller code and every reopen put it back on the
 * multi-caller code: the flapping thread reads the variant after each and
 * counts the changes it saw. Every item is producer << 48 | seq: nothing
 * may be lost or duplicated, and each consumer must see each producer's
 * items in order. With notify=1 the callers sleep until notfull or
 * notempty wakes them instead of retrying, so a transition not reported
 * stalls the run and fails it.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "qtest-qua.h"

#define NPROD 2
#define NCONS 2

typedef struct shared {
  qua_quaject_t *q;
  long items;
  _Atomic long consumed;
  _Atomic long flaps;    /* closes and reopens by the flapping threads */
  _Atomic long switches; /* variant changes they saw: two per flap */
  _Atomic int flappers;  /* flapping threads still running */
  pthread_barrier_t opened; /* every thread has its first site */
  unsigned char *seen[NPROD];
  _Atomic bool bad, stalled;
  double deadline;
  bool tracked;              /* notify=1: callers sleep until woken */
  qtest_waiter_t notfull, notempty;
  char impl[2][128];         /* what put and get ran, seen by the steady threads */
} shared_t;

typedef struct worker {
  shared_t *sh;
  int id;
  bool flapping; /* closes and reopens its site every so often */
} worker_t;

/* True when q's `entry` runs the multi-caller variant of its side: the
 * variant's name ("spsc", "mpmc", ...) ends the impl string; put is
 * multi-producer with "mp..", get multi-consumer with "..mc". */
static bool runs_multi(const qua_quaject_t *q, const char *entry, char *impl, size_t len) {
  snprintf(impl, len, "%s", qua_quaject_entry_impl(q, qua_type_entry(qua_type_find("queue"), entry)));
  size_t n = strcspn(impl, ")"); /* "no site (spsc)" */
  if (n < 4)
    return false;
  const char *v = impl + n - 4;
  return strcmp(entry, "put") == 0 ? v[0] == 'm' : v[2] == 'm';
}

/* Closes and reopens a flapping thread's site on `entry`, checking that the
 * close took the queue to the single-caller variant of that side and the
 * reopen back to the multi-caller one. */
static qua_site_t *flap(shared_t *sh, qua_site_t *s, const char *entry, const qua_bind_t *h) {
  char impl[128];
  qua_site_close(s);
  bool single = !runs_multi(sh->q, entry, impl, sizeof impl);
  sched_yield();
  qua_site_open(sh->q, entry, h, 0, &s, NULL);
  bool multi = runs_multi(sh->q, entry, impl, sizeof impl);
  atomic_fetch_add(&sh->flaps, 1);
  atomic_fetch_add(&sh->switches, (long)single + (long)multi);
  return s;
}

/* What `entry` runs, as the steady thread of that side sees it once every
 * site is open (a thread may go without a single successful call when the
 * machine is loaded, so this is not left to its first success). */
static void record_impl(shared_t *sh, int side, const char *entry) {
  snprintf(sh->impl[side], sizeof sh->impl[side], "%s",
           qua_quaject_entry_impl(sh->q, qua_type_entry(qua_type_find("queue"), entry)));
}

static void *produce(void *arg) {
  worker_t *w = arg;
  shared_t *sh = w->sh;
  qua_site_t *s = NULL;
  qua_bind_t h[] = {{"notfull", qtest_waiter_wake, &sh->notfull}, {NULL, NULL, NULL}};
  qua_site_open(sh->q, "put", sh->tracked ? h : NULL, 0, &s, NULL);
  pthread_barrier_wait(&sh->opened);
  if (!w->flapping)
    record_impl(sh, 0, "put");
  for (long i = 0; i < sh->items;) {
    if (w->flapping && i % (sh->items / 25) == sh->items / 25 - 1)
      s = flap(sh, s, "put", sh->tracked ? h : NULL);
    unsigned seen = qtest_waiter_sample(&sh->notfull);
    int r = qua_call(s, (uint64_t)w->id << 48 | (uint64_t)i, 0, NULL);
    if (r == QUA_OK) {
      i++;
    } else if (qtest_now() > sh->deadline) {
      atomic_store(&sh->bad, true);
      break;
    } else if (!sh->tracked) {
      sched_yield();
    } else if (!qtest_waiter_wait(&sh->notfull, seen, qtest_now() + 5)) {
      atomic_store(&sh->stalled, true); /* full, and no notfull came */
      break;
    }
  }
  if (w->flapping)
    atomic_fetch_sub(&sh->flappers, 1);
  while (!w->flapping && atomic_load(&sh->flappers) > 0 && !atomic_load(&sh->bad))
    sched_yield(); /* keep the queue multi-producer while the other flaps */
  qua_site_close(s);
  return NULL;
}

static void *consume(void *arg) {
  worker_t *w = arg;
  shared_t *sh = w->sh;
  long last[NPROD];
  for (int p = 0; p < NPROD; p++)
    last[p] = -1;
  qua_site_t *s = NULL;
  qua_bind_t h[] = {{"notempty", qtest_waiter_wake, &sh->notempty}, {NULL, NULL, NULL}};
  qua_site_open(sh->q, "get", sh->tracked ? h : NULL, 0, &s, NULL);
  pthread_barrier_wait(&sh->opened);
  if (!w->flapping)
    record_impl(sh, 1, "get");
  long mine = 0;
  while (atomic_load(&sh->consumed) < NPROD * sh->items && qtest_now() < sh->deadline &&
         !atomic_load(&sh->stalled)) {
    if (w->flapping && mine % (sh->items / 25) == sh->items / 25 - 1) {
      s = flap(sh, s, "get", sh->tracked ? h : NULL);
      mine++;
    }
    unsigned seen = qtest_waiter_sample(&sh->notempty);
    uint64_t v;
    int r = qua_call(s, 0, 0, &v);
    if (r != QUA_OK) {
      if (!sh->tracked)
        sched_yield();
      else if (!qtest_waiter_wait(&sh->notempty, seen, qtest_now() + 5) &&
               atomic_load(&sh->consumed) < NPROD * sh->items)
        atomic_store(&sh->stalled, true); /* empty, and no notempty came */
      continue;
    }
    mine++;
    int p = (int)(v >> 48);
    long seq = (long)(v & 0xffffffffffffULL);
    if (p >= NPROD || seq >= sh->items || seq <= last[p] || sh->seen[p][seq]) {
      atomic_store(&sh->bad, true);
      fprintf(stderr, "\n  consumer %d: bad item p=%d seq=%ld (last %ld)\n", w->id, p, seq,
              p < NPROD ? last[p] : -1);
      break;
    }
    sh->seen[p][seq] = 1;
    last[p] = seq;
    if (atomic_fetch_add(&sh->consumed, 1) + 1 == NPROD * sh->items)
      qtest_waiter_wake(&sh->notempty, NULL, 0, 0); /* the other consumer may sleep */
  }
  if (w->flapping)
    atomic_fetch_sub(&sh->flappers, 1);
  while (!w->flapping && atomic_load(&sh->flappers) > 0 && !atomic_load(&sh->bad))
    sched_yield(); /* keep the queue multi-consumer while the other flaps */
  qua_site_close(s);
  return NULL;
}

static void run_switching(const char *notify) {
  shared_t sh = {.items = qtest_scale(300000, 30000), .flappers = 2,
                 .tracked = strcmp(notify, "notify=1") == 0};
  qtest_waiter_init(&sh.notfull);
  qtest_waiter_init(&sh.notempty);
  pthread_barrier_init(&sh.opened, NULL, NPROD + NCONS);
  const char *p[] = {"capacity=256", notify};
  CU_ASSERT_EQUAL_FATAL(qua_create("queue", p, 2, &sh.q, NULL), QUA_OK);
  for (int i = 0; i < NPROD; i++)
    sh.seen[i] = calloc((size_t)sh.items, 1);
  sh.deadline = qtest_now() + 200;
  worker_t prod[NPROD], cons[NCONS];
  pthread_t tp[NPROD], tc[NCONS];
  for (int i = 0; i < NCONS; i++) {
    cons[i] = (worker_t){&sh, i, i == 1};
    pthread_create(&tc[i], NULL, consume, &cons[i]);
  }
  for (int i = 0; i < NPROD; i++) {
    prod[i] = (worker_t){&sh, i, i == 1};
    pthread_create(&tp[i], NULL, produce, &prod[i]);
  }
  for (int i = 0; i < NPROD; i++)
    pthread_join(tp[i], NULL);
  for (int i = 0; i < NCONS; i++)
    pthread_join(tc[i], NULL);
  long missing = 0;
  for (int i = 0; i < NPROD; i++) {
    for (long k = 0; k < sh.items; k++)
      missing += !sh.seen[i][k];
    free(sh.seen[i]);
  }
  fprintf(stderr, "\n  %s: %ld items, %ld flaps, %ld variant changes seen, %ld missing; put ran \"%s\", get \"%s\"\n",
          notify, (long)NPROD * sh.items, atomic_load(&sh.flaps), atomic_load(&sh.switches),
          missing, sh.impl[0], sh.impl[1]);
  CU_ASSERT_FALSE(atomic_load(&sh.bad));
  CU_ASSERT_FALSE(atomic_load(&sh.stalled));
  CU_ASSERT_EQUAL(missing, 0);
  CU_ASSERT_EQUAL(atomic_load(&sh.consumed), NPROD * sh.items);
  CU_ASSERT(atomic_load(&sh.flaps) >= 25); /* the flapping producer alone makes 25 */
  CU_ASSERT_EQUAL(atomic_load(&sh.switches), 2 * atomic_load(&sh.flaps));
  const char *want = qtest_requested_impl();
  for (int i = 0; i < 2; i++)
    CU_ASSERT(want == NULL || strstr(sh.impl[i], want) != NULL);
  pthread_barrier_destroy(&sh.opened);
  CU_ASSERT_EQUAL(qua_destroy(sh.q, false, NULL), QUA_OK);
}

static void queue_switch_under_load_untracked(void) { run_switching("notify=0"); }
static void queue_switch_under_load_tracked(void) { run_switching("notify=1"); }

int main(void) {
  static const qtest_case_t cases[] = {
      {"queue_switch_under_load_untracked", queue_switch_under_load_untracked},
      {"queue_switch_under_load_tracked", queue_switch_under_load_tracked},
      {NULL, NULL}};
  return qtest_run("queue-switch", cases);
}
