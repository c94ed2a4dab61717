/* test-queue-switch.c -- a queue quaject switching variant under load, through sites.
 *
 * Two producers and two consumers; the second of each side keeps closing
 * and reopening its site, so the queue flips between SP and MP code (and
 * SC and MC) while items are in flight. Every item is producer << 48 | seq:
 * nothing may be lost or duplicated, and each consumer must see each
 * producer's items in order.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "qtest.h"
#include "qua.h"

#define NPROD 2
#define NCONS 2

typedef struct shared {
  qua_quaject_t *q;
  long items;
  _Atomic long consumed;
  _Atomic long switches;
  unsigned char *seen[NPROD];
  _Atomic bool bad;
  double deadline;
} shared_t;

typedef struct worker {
  shared_t *sh;
  int id;
  bool flapping; /* closes and reopens its site every so often */
} worker_t;

static void *produce(void *arg) {
  worker_t *w = arg;
  shared_t *sh = w->sh;
  qua_site_t *s = NULL;
  qua_site_open(sh->q, "put", NULL, 0, &s, NULL);
  for (long i = 0; i < sh->items;) {
    if (w->flapping && i % (sh->items / 25) == sh->items / 25 - 1) {
      qua_site_close(s);
      sched_yield();
      qua_site_open(sh->q, "put", NULL, 0, &s, NULL);
      atomic_fetch_add(&sh->switches, 1);
    }
    int r = qua_call(s, (uint64_t)w->id << 48 | (uint64_t)i, 0, NULL);
    if (r == QUA_OK)
      i++;
    else if (qtest_now() > sh->deadline) {
      atomic_store(&sh->bad, true);
      break;
    } else
      sched_yield();
  }
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
  qua_site_open(sh->q, "get", NULL, 0, &s, NULL);
  long mine = 0;
  while (atomic_load(&sh->consumed) < NPROD * sh->items && qtest_now() < sh->deadline) {
    if (w->flapping && mine % (sh->items / 25) == sh->items / 25 - 1) {
      qua_site_close(s);
      sched_yield();
      qua_site_open(sh->q, "get", NULL, 0, &s, NULL);
      atomic_fetch_add(&sh->switches, 1);
      mine++;
    }
    uint64_t v;
    int r = qua_call(s, 0, 0, &v);
    if (r != QUA_OK) {
      sched_yield();
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
    atomic_fetch_add(&sh->consumed, 1);
  }
  qua_site_close(s);
  return NULL;
}

static void run_switching(const char *notify) {
  shared_t sh = {.items = qtest_scale(300000, 30000)};
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
  fprintf(stderr, "\n  %s: %ld items, %ld variant switches, %ld missing\n", notify,
          (long)NPROD * sh.items, atomic_load(&sh.switches), missing);
  CU_ASSERT_FALSE(atomic_load(&sh.bad));
  CU_ASSERT_EQUAL(missing, 0);
  CU_ASSERT_EQUAL(atomic_load(&sh.consumed), NPROD * sh.items);
  CU_ASSERT(atomic_load(&sh.switches) >= 25); /* the flapping producer alone makes 25 */
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
