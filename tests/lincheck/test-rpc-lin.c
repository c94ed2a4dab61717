/* test-rpc-lin.c -- histories of put/get over RPC from several clients of a real quad, checked for linearizability.
 *
 * Run as `test-lincheck-rpc QUAD QUA`. Each client is a thread with its own
 * connection; an operation's [inv, resp] brackets its request and response,
 * so it brackets the daemon's call too. Clients invoke a published queue
 * by name; every connection that invokes put or get has a site of its own,
 * so a client that connects, calls and disconnects wires and unwires a
 * second producer and consumer, and the queue switches variant while the
 * others run. One case closes the queue midway from the creator's
 * connection. The daemon serves invokes from its loop thread, so the
 * tracked queue must be exactly linearizable here.
 */
#include <pthread.h>
#include <sched.h>

#include "integration/itest.h"
#include "record.h"

#define CAPACITY 8
#define NLOGS 5 /* producer, consumer, flapper, creator (close, drain), spare */

static itest_daemon_t daemon_;

typedef struct run {
  const char *name; /* the published queue */
  long items;       /* per steady producer */
  bool close_midway;
  _Atomic bool go, stop, closing, consumer_done;
  _Atomic int steady; /* bit 0: the producer has a site (has called), bit 1: the consumer */
  _Atomic long consumed;
  _Atomic bool producing;
  _Atomic long flaps, switches, failures;
  lin_log_t logs[NLOGS];
} run_t;

/* One recorded invoke of put (value given) or get on handle h. */
static lin_result_t rcall(quac_conn_t *c, uint64_t h, lin_log_t *log, uint32_t client, bool put,
                          uint64_t value, run_t *r) {
  quac_result_t res = {0};
  uint64_t inv = lin_tick();
  int s = quac_invoke(c, h, put ? "put" : "get", put ? &value : NULL, put ? 1 : 0, &res);
  uint64_t resp = lin_tick();
  lin_result_t lr;
  if (s == 0)
    lr = LIN_OK;
  else if (s == QUA_DIVERTED)
    lr = put ? LIN_FULL : LIN_EMPTY;
  else if (res.status == QUA_ECLOSED)
    lr = LIN_CLOSED;
  else {
    fprintf(stderr, "\n  client %u: %s: %s (%s)\n", client, put ? "put" : "get", quac_err_name(s),
            quac_last_error(c));
    atomic_fetch_add(&r->failures, 1);
    return LIN_CLOSED; /* ends the caller's loop; the case fails on failures */
  }
  lin_log_add(log, put ? LIN_PUT : LIN_GET, lr, put ? value : res.result, client, inv, resp);
  if (lr == LIN_FULL || lr == LIN_EMPTY) {
    struct timespec ts = {0, 200000}; /* back off a little: the log stays short */
    nanosleep(&ts, NULL);
  }
  return lr;
}

static uint64_t open_queue(quac_conn_t *c, const char *name) {
  quac_opened_t o;
  return quac_open(c, name, &o) == 0 ? o.handle : 0;
}

/* A steady side's start: connects, opens r's queue (counting a failure),
 * and waits for the go. The handle, or 0 (then *c may be NULL). */
static uint64_t join(run_t *r, quac_conn_t **c) {
  *c = itest_connect(&daemon_);
  uint64_t h = *c != NULL ? open_queue(*c, r->name) : 0;
  if (h == 0)
    atomic_fetch_add(&r->failures, 1);
  while (h != 0 && !atomic_load(&r->go))
    sched_yield();
  return h;
}

/* Reconnections of the second side each run must see. */
#define MIN_FLAPS 5

static void *producer(void *arg) {
  run_t *r = arg;
  quac_conn_t *c;
  uint64_t h = join(r, &c);
  /* r->items at least, and on until the flapper has reconnected MIN_FLAPS
   * times (a slow build makes few reconnections per item), for at most 60 s. */
  double end = itest_now() + 60;
  for (long i = 0; h != 0 && (i < r->items || (atomic_load(&r->flaps) < MIN_FLAPS && itest_now() < end)) &&
                   !lin_log_full(&r->logs[0]);) {
    lin_result_t lr = rcall(c, h, &r->logs[0], 0, true, UINT64_C(1) << 40 | (uint64_t)i, r);
    atomic_fetch_or(&r->steady, 1);
    if (lr == LIN_OK)
      i++;
    else if (lr == LIN_CLOSED)
      break;
  }
  atomic_store(&r->producing, false);
  if (c != NULL)
    quac_close(c);
  return NULL;
}

static void *consumer(void *arg) {
  run_t *r = arg;
  quac_conn_t *c;
  uint64_t h = join(r, &c);
  while (h != 0 && !atomic_load(&r->stop) && !lin_log_full(&r->logs[1])) {
    lin_result_t lr = rcall(c, h, &r->logs[1], 1, false, 0, r);
    atomic_fetch_or(&r->steady, 2);
    if (lr == LIN_OK)
      atomic_fetch_add(&r->consumed, 1);
    else if (lr == LIN_CLOSED)
      break;
  }
  atomic_store(&r->consumer_done, true);
  if (c != NULL)
    quac_close(c);
  return NULL;
}

/* The variant quad reports for the queue's put ("spsc" .. "mpmc"), or "". */
static void variant(quac_conn_t *c, const char *name, char out[5]) {
  static const char *const names[] = {"spsc", "spmc", "mpsc", "mpmc"};
  out[0] = '\0';
  quac_quaject_info_t *qi = NULL;
  if (quac_describe(c, 0, name, &qi) != 0)
    return;
  for (size_t i = 0; i < qi->nimpls; i++)
    if (strcmp(qi->impls[i].entry, "put") == 0)
      for (int k = 0; k < 4; k++)
        if (strstr(qi->impls[i].impl, names[k]) != NULL)
          memcpy(out, names[k], 5);
  quac_free(qi);
}

/* Connects, puts and gets a few items, disconnects; again, while the
 * producer runs. Counts the switches to MP-MC and back that quad shows. */
static void *flapper(void *arg) {
  run_t *r = arg;
  quac_conn_t *watch = itest_connect(&daemon_);
  while (!atomic_load(&r->go))
    sched_yield();
  uint64_t seq = 0;
  while (watch != NULL && atomic_load(&r->producing) && !lin_log_full(&r->logs[2])) {
    quac_conn_t *c = itest_connect(&daemon_);
    uint64_t h = c != NULL ? open_queue(c, r->name) : 0;
    if (h == 0) {
      atomic_fetch_add(&r->failures, 1);
      if (c != NULL)
        quac_close(c);
      break;
    }
    bool closed = false;
    for (int k = 0; k < 4 && !closed; k++) {
      closed = rcall(c, h, &r->logs[2], 2, true, UINT64_C(2) << 40 | seq++, r) == LIN_CLOSED;
      lin_result_t got = closed ? LIN_CLOSED : rcall(c, h, &r->logs[2], 2, false, 0, r);
      closed = got == LIN_CLOSED;
      if (got == LIN_OK)
        atomic_fetch_add(&r->consumed, 1);
    }
    char v[5];
    variant(watch, r->name, v);
    if (atomic_load(&r->steady) != 3) { /* the steady sites are not there yet */
      quac_close(c);
      continue;
    }
    if (closed || !atomic_load(&r->producing) || atomic_load(&r->closing)) {
      quac_close(c); /* the steady producer is gone or going: no MP to see */
      break;
    }
    atomic_fetch_add(&r->switches, strcmp(v, "mpmc") == 0);
    if (getenv("LINCHECK_VERBOSE") && strcmp(v, "mpmc") != 0)
      fprintf(stderr, "connected: '%s'\n", v);
    quac_close(c);
    /* quad tears the connection down on its loop: wait to see SP-SC again. */
    for (double end = itest_now() + 2; itest_now() < end; itest_sleep_ms(1)) {
      variant(watch, r->name, v);
      if (getenv("LINCHECK_VERBOSE"))
        fprintf(stderr, "after: '%s'\n", v);
      if (strcmp(v, "spsc") == 0) {
        atomic_fetch_add(&r->switches, 1);
        break;
      }
    }
    atomic_fetch_add(&r->flaps, 1);
    if (closed)
      break;
  }
  if (watch != NULL)
    quac_close(watch);
  return NULL;
}

static void run_rpc(const char *name, bool close_midway) {
  run_t *r = calloc(1, sizeof *r);
  r->name = name;
  r->items = qtest_scale(1500, 300);
  r->close_midway = close_midway;
  atomic_store(&r->producing, true);
  for (int i = 0; i < NLOGS; i++)
    lin_log_init(&r->logs[i], (size_t)r->items * 64 + 4096);
  quac_conn_t *creator = itest_connect(&daemon_);
  CU_ASSERT_PTR_NOT_NULL_FATAL(creator);
  const char *params[] = {"capacity=8", "notify=1"};
  uint64_t q;
  CU_ASSERT_EQUAL_FATAL(quac_create(creator, "queue", params, 2, name, &q, NULL), 0);
  pthread_t tp, tc, tf;
  pthread_create(&tc, NULL, consumer, r);
  pthread_create(&tp, NULL, producer, r);
  pthread_create(&tf, NULL, flapper, r);
  atomic_store(&r->go, true);
  lin_log_t *mine = &r->logs[3];
  double deadline = itest_now() + 100;
  if (close_midway) {
    /* Half the items, and the reconnections the run must see (a slow
     * build, TSan's, makes few per item): the close ends them. */
    while ((atomic_load(&r->consumed) < r->items / 2 || atomic_load(&r->flaps) < MIN_FLAPS) &&
           itest_now() < deadline)
      itest_sleep_ms(1);
    atomic_store(&r->closing, true);
    uint64_t inv = lin_tick();
    CU_ASSERT_EQUAL(quac_close_queue(creator, q), 0);
    lin_log_add(mine, LIN_CLOSE, LIN_OK, 0, 3, inv, lin_tick());
  }
  pthread_join(tp, NULL);
  pthread_join(tf, NULL);
  long puts = 0;
  for (int i = 0; i <= 2; i += 2) /* the producer's and the flapper's (joined) */
    for (size_t k = 0; k < r->logs[i].n; k++)
      puts += r->logs[i].ops[k].kind == LIN_PUT && r->logs[i].ops[k].result == LIN_OK;
  while (!close_midway && atomic_load(&r->consumed) < puts && itest_now() < deadline &&
         !atomic_load(&r->consumer_done))
    itest_sleep_ms(1);
  atomic_store(&r->stop, true);
  pthread_join(tc, NULL);
  /* Drain from the creator: exact, nothing else runs. */
  while (rcall(creator, q, mine, 3, false, 0, r) == LIN_OK) {
  }
  mine->ops[mine->n - 1].exact = true;
  CU_ASSERT_EQUAL(atomic_load(&r->failures), 0);
  for (int i = 0; i < NLOGS; i++)
    CU_ASSERT(!lin_log_full(&r->logs[i]));
  /* The strict close: the queue is tracked once the flapper has come (a
   * second producer), and a tracked close is one point (lfq.c, 18). */
  lin_spec_t spec = {.capacity = CAPACITY};
  lin_report_t rep;
  CU_ASSERT_EQUAL(lin_logs_check(&spec, r->logs, NLOGS, name, &rep), 1);
  lin_logs_free(r->logs, NLOGS);
  fprintf(stderr, "  %ld reconnections of a second producer and consumer, %ld variant switches seen\n",
          atomic_load(&r->flaps), atomic_load(&r->switches));
  CU_ASSERT(atomic_load(&r->flaps) >= MIN_FLAPS);
  /* Each reconnection shows MP-MC while connected and SP-SC after; the
   * steady producer's end or the close can take both from the last two. */
  CU_ASSERT(atomic_load(&r->switches) >= 2 * atomic_load(&r->flaps) - 4);
  CU_ASSERT_EQUAL(quac_destroy(creator, q, false), 0);
  quac_close(creator);
  free(r);
}

static void rpc_clients_with_reconnecting_second_side(void) { run_rpc("lin-rpc", false); }
static void rpc_clients_with_close_midway(void) { run_rpc("lin-rpc-close", true); }

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 2;
  if (itest_start(&daemon_, (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"rpc_clients_with_reconnecting_second_side", rpc_clients_with_reconnecting_second_side},
      {"rpc_clients_with_close_midway", rpc_clients_with_close_midway},
      {NULL, NULL},
  };
  return itest_run_and_stop(&daemon_, "lincheck-rpc", cases);
}
