/* test-state.c -- quad --state-dir: restarts lose nothing, kill -9 only what was in flight, bad files refused. */
#include <dirent.h>
#include <grp.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <stdatomic.h>

#include "itest.h"

static itest_daemon_t daemon_;
static char state_dir[128];

#define NOBODY 65534u
#define OTHER 65533u

/* --- Helpers ------------------------------------------------------------------------ */

/* SIGTERM (quad must exit 0: it saved, and the sanitizers found nothing),
 * then start again on the same folder. */
static int restart_term(void) {
  if (daemon_.pid > 0) {
    kill(daemon_.pid, SIGTERM);
    int st = itest_wait(daemon_.pid, 10.0);
    if (st == -1) {
      kill(daemon_.pid, SIGKILL);
      waitpid(daemon_.pid, NULL, 0);
    }
    daemon_.pid = 0;
    if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
      fprintf(stderr, "quad did not exit 0 on SIGTERM (wait status %d)\n", st);
      itest_dump_log(&daemon_);
      CU_FAIL("quad's exit on SIGTERM");
    }
  }
  return itest_restart(&daemon_, "--state-dir", state_dir, "--allow-uid", "65534", "--allow-uid",
                       "65533", (char *)NULL);
}

/* kill -9, then start again on the same folder. */
static int restart_kill(void) {
  kill(daemon_.pid, SIGKILL);
  waitpid(daemon_.pid, NULL, 0);
  daemon_.pid = 0;
  return restart_term();
}

static uint64_t open_name(quac_conn_t *c, const char *name) {
  quac_opened_t o;
  int r = quac_open(c, name, &o);
  CU_ASSERT_EQUAL(r, 0);
  return r == 0 ? o.handle : 0;
}

/* Calls entry with at most one argument; the callentry's status (or a
 * negative request error), the result in *ret. */
static int call(quac_conn_t *c, uint64_t h, const char *entry, const uint64_t *arg, uint64_t *ret) {
  quac_result_t r;
  int s = quac_invoke(c, h, entry, arg, arg != NULL, &r);
  if (ret != NULL)
    *ret = r.result;
  return s < 0 ? s : r.status;
}

/* Takes one item from queue h, waiting up to 5 s for one. */
static int get_wait(quac_conn_t *c, uint64_t h, uint64_t *v) {
  double end = itest_now() + 5.0;
  int r;
  while ((r = call(c, h, "get", NULL, v)) == QUA_DIVERTED && itest_now() < end)
    itest_sleep_ms(1);
  return r;
}

/* The newest generation file in the state folder (its path), and how many there are. */
static int newest_state(char *path, size_t len) {
  DIR *d = opendir(state_dir);
  if (d == NULL)
    return 0;
  char best[64] = "";
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (strncmp(de->d_name, "state.", 6) != 0 || strlen(de->d_name) != 16)
      continue;
    n++;
    if (strcmp(de->d_name, best) > 0)
      snprintf(best, sizeof best, "%s", de->d_name);
  }
  closedir(d);
  snprintf(path, len, "%s/%s", state_dir, best);
  return n;
}

/* Runs quad (as uid when uid != 0) with args (NULL-terminated) and waits
 * at most 10 s: its exit status, stderr into err. */
static int run_quad_as(unsigned uid, char *err, size_t errlen, ...) {
  char *argv[16];
  int argc = 0;
  argv[argc++] = (char *)itest_quad_path;
  va_list ap;
  va_start(ap, errlen);
  const char *a;
  while ((a = va_arg(ap, const char *)) != NULL && argc < 15)
    argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  char errp[160];
  snprintf(errp, sizeof errp, "%s/run.err", daemon_.dir);
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fe < 0)
      _exit(126);
    dup2(fe, 2);
    if (uid != 0 && (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0))
      _exit(125);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = itest_wait(pid, 10.0);
  if (st == -1) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    st = -1;
  }
  itest_slurp(errp, err, errlen);
  unlink(errp);
  return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --- Producer and consumer -------------------------------------------------------- */

#define CYCLES 20
#define KILL_CYCLES 10
#define PER_CYCLE 150
#define TOTAL ((CYCLES + KILL_CYCLES) * PER_CYCLE)
/* What one kill -9 may lose (state.c, R4): the consumer's get in flight and
 * the pump's batch in flight (at most 64 items). */
#define KILL_MAY_LOSE (1 + 64)

/* Every item 1..TOTAL: accepted by a put (the reply said so), delivered
 * to the consumer (how many times); in doubt: its put got no reply
 * because quad was killed (it may or may not be there, state.c R4). */
static _Atomic int accepted[TOTAL + 1];
static _Atomic int delivered[TOTAL + 1];
static _Atomic int in_doubt[TOTAL + 1];
static bool killing; /* the cycles end in kill -9: an unanswered put is in doubt */
static uint64_t next_item = 1; /* the producer's next item: one not accepted yet */
static _Atomic uint64_t produced_now;
static _Atomic bool cycle_stop;
static _Atomic int ready; /* threads connected, with their names opened */

static void *producer(void *arg) {
  quac_conn_t *c = itest_connect(&daemon_);
  if (c == NULL)
    return NULL;
  uint64_t in = open_name(c, "st-in"), n = open_name(c, "st-count");
  atomic_fetch_add(&ready, 1);
  uint64_t limit = next_item + PER_CYCLE;
  bool counted = false;
  while (next_item < limit && next_item <= TOTAL) {
    int r = call(c, in, "put", &next_item, NULL);
    if (r == QUA_DIVERTED) {
      itest_sleep_ms(1);
      continue;
    }
    if (r != 0) {
      /* quad went: the item was not accepted. After SIGTERM the next cycle
       * puts it; after kill -9 it may be there, so the next cycle moves on. */
      if (killing)
        atomic_store(&in_doubt[next_item++], 1);
      break;
    }
    atomic_fetch_add(&accepted[next_item], 1);
    next_item++;
    atomic_fetch_add(&produced_now, 1);
    /* One add per cycle, counted when its reply came. */
    uint64_t one = 1;
    if (!counted && call(c, n, "add", &one, NULL) == 0)
      counted = true;
  }
  if (counted)
    atomic_fetch_add((_Atomic uint64_t *)arg, 1);
  quac_close(c);
  return NULL;
}

static void *consumer(void *arg) {
  quac_conn_t *c = itest_connect(&daemon_);
  if (c == NULL)
    return NULL;
  uint64_t out = open_name(c, "st-out");
  atomic_fetch_add(&ready, 1);
  for (;;) {
    uint64_t v = 0;
    int r = call(c, out, "get", NULL, &v);
    if (r == QUA_DIVERTED) {
      if (atomic_load(&cycle_stop))
        break;
      itest_sleep_ms(1);
      continue;
    }
    if (r != 0)
      break;
    if (v >= 1 && v <= TOTAL)
      atomic_fetch_add(&delivered[v], 1);
    else
      CU_FAIL("an item that was never put");
  }
  quac_close(c);
  return NULL;
}

/* The graph: st-in (queue) -> st-pump -> st-out (queue), and a counter. */
static void make_graph(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  const char *qp[] = {"capacity=1024"}, *big[] = {"capacity=65536"}, *cp[] = {"initial=5"};
  uint64_t in, out, pump, cnt;
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "queue", qp, 1, "st-in", &in, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "queue", big, 1, "st-out", &out, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "pump", NULL, 0, "st-pump", &pump, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", cp, 1, "st-count", &cnt, NULL), 0);
  CU_ASSERT_EQUAL(quac_wire(c, pump, "source", in, "get"), 0);
  CU_ASSERT_EQUAL(quac_wire(c, pump, "sink", out, "put"), 0);
  /* Not published: not saved, and not in the way of anything. */
  uint64_t tmp;
  CU_ASSERT_EQUAL(quac_create(c, "queue", qp, 1, NULL, &tmp, NULL), 0);
  quac_close(c);
}

/* The graph came back: names, types, parameters and wires. */
static void check_graph(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  quac_quaject_info_t *qi = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_describe(c, 0, "st-pump", &qi), 0);
  CU_ASSERT_STRING_EQUAL(qi->type, "pump");
  CU_ASSERT_EQUAL(qi->nwires, 2);
  for (size_t i = 0; i < qi->nwires; i++)
    CU_ASSERT_STRING_EQUAL(qi->wires[i].dst_name,
                           strcmp(qi->wires[i].callout, "source") == 0 ? "st-in" : "st-out");
  quac_free(qi);
  CU_ASSERT_EQUAL_FATAL(quac_describe(c, 0, "st-out", &qi), 0);
  CU_ASSERT_STRING_EQUAL(qi->type, "queue");
  CU_ASSERT(qi->nparams >= 1 && qi->params[0] == 65536);
  quac_free(qi);
  quac_quaject_list_t *l = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_list(c, &l), 0);
  CU_ASSERT_EQUAL(l->nquajects, 4); /* the unpublished queue is gone */
  quac_free(l);
  quac_close(c);
}

/* Runs one cycle: producer and consumer against quad, which is stopped
 * with SIGTERM (or killed, with `killing`) while both are busy, then
 * started again. */
static void run_cycle(_Atomic uint64_t *adds) {
  atomic_store(&produced_now, 0);
  atomic_store(&cycle_stop, false);
  atomic_store(&ready, 0);
  pthread_t tp, tc;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&tp, NULL, producer, adds), 0);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&tc, NULL, consumer, NULL), 0);
  /* Stop quad in the middle of the traffic. */
  double end = itest_now() + 10.0;
  while ((atomic_load(&ready) < 2 || atomic_load(&produced_now) < PER_CYCLE / 2) &&
         itest_now() < end)
    itest_sleep_ms(1);
  atomic_store(&cycle_stop, true);
  int r = killing ? restart_kill() : restart_term();
  pthread_join(tp, NULL);
  pthread_join(tc, NULL);
  CU_ASSERT_EQUAL_FATAL(r, 0);
}

/* Takes whatever is left in st-out (and st-in, through the pump). */
static void drain_all(void) {
  atomic_store(&cycle_stop, true);
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t out = open_name(c, "st-out"), in = open_name(c, "st-in");
  for (int quiet = 0; quiet < 50;) {
    uint64_t v = 0, n = 0;
    int r = call(c, out, "get", NULL, &v);
    if (r == 0) {
      if (v >= 1 && v <= TOTAL)
        atomic_fetch_add(&delivered[v], 1);
      quiet = 0;
      continue;
    }
    CU_ASSERT_EQUAL_FATAL(r, QUA_DIVERTED);
    CU_ASSERT_EQUAL(call(c, in, "count", NULL, &n), 0);
    quiet = n == 0 ? quiet + 1 : 0;
    itest_sleep_ms(2);
  }
  quac_close(c);
}

static void restart_cycles_deliver_every_item_exactly_once(void) {
  make_graph();
  _Atomic uint64_t adds = 0;
  for (int i = 0; i < CYCLES; i++) {
    run_cycle(&adds);
    check_graph();
  }
  drain_all();
  /* Items 1..next_item-1 were accepted once each, the rest never. */
  for (uint64_t i = 1; i <= TOTAL; i++) {
    int want = i < next_item;
    if (atomic_load(&accepted[i]) != want || atomic_load(&delivered[i]) != want) {
      fprintf(stderr, "item %" PRIu64 ": accepted %d times, delivered %d times\n", i,
              atomic_load(&accepted[i]), atomic_load(&delivered[i]));
      CU_FAIL("an item not delivered exactly once");
      break;
    }
  }
  /* Each cycle made progress before its SIGTERM. */
  CU_ASSERT(next_item - 1 >= CYCLES * PER_CYCLE / 2);
  fprintf(stderr, "%d restarts: %" PRIu64 " items, each delivered once\n", CYCLES, next_item - 1);
  /* The counter kept its value across the restarts. */
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t v = 0;
  CU_ASSERT_EQUAL(call(c, open_name(c, "st-count"), "read", NULL, &v), 0);
  CU_ASSERT_EQUAL(v, 5 + atomic_load(&adds));
  quac_close(c);
}

/* kill -9 while a producer and a consumer are busy, KILL_CYCLES times: no
 * item is delivered twice, every accepted item is delivered except at most
 * KILL_MAY_LOSE a kill (operations in flight, state.c R4), and a put that
 * got no reply is delivered at most once. */
static void kill9_cycles_deliver_no_item_twice_and_lose_only_in_flight(void) {
  uint64_t first = next_item;
  _Atomic uint64_t adds = 0;
  killing = true;
  for (int i = 0; i < KILL_CYCLES; i++) {
    run_cycle(&adds);
    check_graph();
  }
  killing = false;
  drain_all();
  uint64_t lost = 0, twice = 0, doubt = 0, doubt_there = 0, ok = 0;
  for (uint64_t i = first; i < next_item; i++) {
    int d = atomic_load(&delivered[i]), a = atomic_load(&accepted[i]);
    twice += d > 1;
    if (atomic_load(&in_doubt[i])) {
      doubt++;
      doubt_there += d;
      CU_ASSERT_EQUAL(a, 0);
    } else {
      CU_ASSERT_EQUAL(a, 1);
      lost += d == 0;
      ok += d == 1;
    }
  }
  fprintf(stderr, "%d kills: %" PRIu64 " items accepted, %" PRIu64 " delivered once, %" PRIu64
          " lost (at most %d a kill), %" PRIu64 " twice; %" PRIu64 " puts in doubt, %" PRIu64
          " of them delivered\n", KILL_CYCLES, ok + lost, ok, lost, KILL_MAY_LOSE, twice, doubt,
          doubt_there);
  CU_ASSERT_EQUAL(twice, 0);
  CU_ASSERT(lost <= (uint64_t)KILL_CYCLES * KILL_MAY_LOSE);
  /* The rings carried the items across the kills: most were not lost. */
  CU_ASSERT(ok >= (uint64_t)KILL_CYCLES * PER_CYCLE / 2);
}

/* After kill -9 the graph is back, and each queue with the items its ring
 * held: those delivered before the kill are not delivered again, those not
 * yet taken are (state.c, R3). */
static void kill9_brings_back_graph_and_queued_items(void) {
  /* Start from an orderly save with items in it; the consumer takes them
   * all during this cycle. */
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t in = open_name(c, "st-in");
  uint64_t base = 1000000;
  for (uint64_t k = 0; k < 10; k++) {
    uint64_t v = base + k;
    CU_ASSERT_EQUAL(call(c, in, "put", &v, NULL), 0);
  }
  quac_close(c);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  c = itest_connect(&daemon_);
  uint64_t out = open_name(c, "st-out");
  for (uint64_t k = 0; k < 10; k++) {
    uint64_t v = 0;
    CU_ASSERT_EQUAL(get_wait(c, out, &v), 0);
    CU_ASSERT_EQUAL(v, base + k);
  }
  /* Items after the save: some taken, the rest still in the queues. */
  in = open_name(c, "st-in");
  for (uint64_t k = 10; k < 30; k++) {
    uint64_t v = base + k;
    CU_ASSERT_EQUAL(call(c, in, "put", &v, NULL), 0);
  }
  for (uint64_t k = 10; k < 15; k++) {
    uint64_t v = 0;
    CU_ASSERT_EQUAL(get_wait(c, out, &v), 0);
    CU_ASSERT_EQUAL(v, base + k);
  }
  quac_close(c);
  CU_ASSERT_EQUAL_FATAL(restart_kill(), 0);
  check_graph();
  /* Nothing comes twice: the ten restored before and the five taken since
   * do not come back; the fifteen not taken do, in order. */
  c = itest_connect(&daemon_);
  out = open_name(c, "st-out");
  in = open_name(c, "st-in");
  uint64_t v = 0, n = 1;
  for (uint64_t k = 15; k < 30; k++) {
    CU_ASSERT_EQUAL(get_wait(c, out, &v), 0);
    CU_ASSERT_EQUAL(v, base + k);
  }
  itest_sleep_ms(50);
  CU_ASSERT_EQUAL(call(c, out, "get", NULL, &v), QUA_DIVERTED);
  CU_ASSERT_EQUAL(call(c, in, "count", NULL, &n), 0);
  CU_ASSERT_EQUAL(n, 0);
  /* The graph works: an item goes through the restored pump. */
  v = 7;
  CU_ASSERT_EQUAL(call(c, in, "put", &v, NULL), 0);
  CU_ASSERT_EQUAL(get_wait(c, out, &v), 0);
  CU_ASSERT_EQUAL(v, 7);
  quac_close(c);
}

/* Buffers, counters, closed queues and the target=m68k queue, stack and
 * counter (when this quad has the m68k backend) keep their contents. */
static void every_kind_of_contents_survives_a_restart(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  quac_type_list_t *types = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_list_types(c, &types), 0);
  bool m68k = quac_type_find(types, "m68k-queue") != NULL;
  quac_free(types);
  const char *bp[] = {"capacity=16"}, *cp[] = {"initial=3"}, *mp[] = {"target=m68k"};
  uint64_t b, n, q, h, v;
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "buffer", bp, 1, "k-buf", &b, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", cp, 1, "k-cnt", &n, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "queue", bp, 1, "k-closed", &q, NULL), 0);
  for (v = 'a'; v <= 'c'; v++)
    CU_ASSERT_EQUAL(call(c, b, "putb", &v, NULL), 0);
  v = (uint64_t)-10; /* the counter goes to -7: two's complement survives */
  CU_ASSERT_EQUAL(call(c, n, "add", &v, NULL), 0);
  v = 42;
  CU_ASSERT_EQUAL(call(c, q, "put", &v, NULL), 0);
  CU_ASSERT_EQUAL(quac_close_queue(c, q), 0);
  if (m68k) {
    CU_ASSERT_EQUAL_FATAL(quac_create(c, "queue", mp, 1, "k-mq", &h, NULL), 0);
    for (v = 1; v <= 3; v++)
      CU_ASSERT_EQUAL(call(c, h, "put", &v, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(quac_create(c, "stack", mp, 1, "k-ms", &h, NULL), 0);
    for (v = 1; v <= 3; v++)
      CU_ASSERT_EQUAL(call(c, h, "push", &v, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", mp, 1, "k-mc", &h, NULL), 0);
    v = 77;
    CU_ASSERT_EQUAL(call(c, h, "add", &v, NULL), 0);
  }
  quac_close(c);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  b = open_name(c, "k-buf");
  for (uint64_t want = 'a'; want <= 'c'; want++) {
    CU_ASSERT_EQUAL(call(c, b, "getb", NULL, &v), 0);
    CU_ASSERT_EQUAL(v, want);
  }
  CU_ASSERT_EQUAL(call(c, b, "getb", NULL, &v), QUA_DIVERTED);
  CU_ASSERT_EQUAL(call(c, open_name(c, "k-cnt"), "read", NULL, &v), 0);
  CU_ASSERT_EQUAL((int64_t)v, -7);
  q = open_name(c, "k-closed");
  CU_ASSERT_EQUAL(call(c, q, "get", NULL, &v), 0);
  CU_ASSERT_EQUAL(v, 42);
  CU_ASSERT_EQUAL(call(c, q, "get", NULL, &v), QUA_ECLOSED);
  v = 1;
  CU_ASSERT_EQUAL(call(c, q, "put", &v, NULL), QUA_ECLOSED);
  if (m68k) {
    h = open_name(c, "k-mq");
    for (uint64_t want = 1; want <= 3; want++) {
      CU_ASSERT_EQUAL(call(c, h, "get", NULL, &v), 0);
      CU_ASSERT_EQUAL(v, want);
    }
    h = open_name(c, "k-ms");
    for (uint64_t want = 3; want >= 1; want--) {
      CU_ASSERT_EQUAL(call(c, h, "pop", NULL, &v), 0);
      CU_ASSERT_EQUAL(v, want);
    }
    CU_ASSERT_EQUAL(call(c, open_name(c, "k-mc"), "read", NULL, &v), 0);
    CU_ASSERT_EQUAL(v, 77);
  }
  const char *names[] = {"k-buf", "k-cnt", "k-closed", "k-mq", "k-ms", "k-mc"};
  for (size_t i = 0; i < (m68k ? 6u : 3u); i++)
    CU_ASSERT_EQUAL(quac_destroy(c, open_name(c, names[i]), false), 0);
  quac_close(c);
}

/* A parameter is saved as given, however long (here past 65,535 bytes:
 * a hexadecimal number with leading zeros, which create accepts). */
static void long_parameter_survives_a_restart(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  size_t zeros = 70000;
  char *p = malloc(zeros + 32);
  CU_ASSERT_FATAL(p != NULL);
  memcpy(p, "capacity=0x", 11);
  memset(p + 11, '0', zeros);
  snprintf(p + 11 + zeros, 21, "20"); /* 0x...20: 32 */
  const char *params[] = {p};
  uint64_t h;
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "queue", params, 1, "k-long", &h, NULL), 0);
  free(p);
  quac_close(c);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  quac_quaject_info_t *qi = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_describe(c, 0, "k-long", &qi), 0);
  CU_ASSERT(qi->nparams >= 1 && qi->params[0] == 32);
  quac_free(qi);
  CU_ASSERT_EQUAL(quac_destroy(c, open_name(c, "k-long"), false), 0);
  quac_close(c);
}

/* A published link comes back from its parameters and connects to its peer
 * again: items put before and after the restart arrive once, in order. */
static void link_is_restored_and_delivers(void) {
  itest_daemon_t peer;
  CU_ASSERT_FATAL(itest_start(&peer, (char *)NULL) == 0);
  quac_conn_t *b = itest_connect(&peer), *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(b != NULL && c != NULL);
  const char *qp[] = {"capacity=64"};
  uint64_t dst, link, v;
  CU_ASSERT_EQUAL_FATAL(quac_create(b, "queue", qp, 1, "lq", &dst, NULL), 0);
  char arg[200];
  snprintf(arg, sizeof arg, "peer=unix:%s", peer.sock);
  const char *lp[] = {arg, "remote=lq"};
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "link", lp, 2, "st-link", &link, NULL), 0);
  v = 1;
  CU_ASSERT_EQUAL(call(c, link, "put", &v, NULL), 0);
  CU_ASSERT_EQUAL(get_wait(b, dst, &v), 0); /* delivered before the restart */
  CU_ASSERT_EQUAL(v, 1);
  quac_close(c);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  link = open_name(c, "st-link");
  for (v = 2; v <= 4; v++)
    CU_ASSERT_EQUAL(call(c, link, "put", &v, NULL), 0);
  for (uint64_t want = 2; want <= 4; want++) {
    CU_ASSERT_EQUAL(get_wait(b, dst, &v), 0);
    CU_ASSERT_EQUAL(v, want);
  }
  itest_sleep_ms(50);
  CU_ASSERT_EQUAL(call(b, dst, "get", NULL, &v), QUA_DIVERTED);
  CU_ASSERT_EQUAL(quac_destroy(c, link, false), 0);
  quac_close(c);
  quac_close(b);
  CU_ASSERT(itest_stop_clean(&peer));
}

/* Whether quad's log has a line containing all of a and b. */
static bool log_has(const char *a, const char *b) {
  FILE *f = fopen(daemon_.log, "r");
  if (f == NULL)
    return false;
  char line[2048];
  bool found = false;
  while (!found && fgets(line, sizeof line, f) != NULL)
    found = strstr(line, a) != NULL && strstr(line, b) != NULL;
  fclose(f);
  return found;
}

/* Sets or clears the immutable flag of a folder (even root cannot create
 * files in it then). 0, or -1 when the file system or quad's user cannot. */
static int set_immutable(const char *path, bool on) {
  int fd = open(path, O_RDONLY | O_DIRECTORY);
  int flags = 0, r = -1;
  if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
    flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
    r = ioctl(fd, FS_IOC_SETFLAGS, &flags);
  }
  if (fd >= 0)
    close(fd);
  return r;
}

/* A write that fails while quad runs (here: the folder made immutable) is
 * logged, replaces nothing, and the next change writes the graph whole. */
static void failed_write_keeps_previous_and_next_change_saves_all(void) {
  char newest[256], after[256];
  newest_state(newest, sizeof newest);
  static uint8_t before[1 << 20], now[1 << 20];
  size_t blen = sizeof before, nlen = sizeof now;
  FILE *f = fopen(newest, "rb");
  CU_ASSERT_FATAL(f != NULL);
  blen = fread(before, 1, blen, f);
  fclose(f);
  if (set_immutable(state_dir, true) < 0) {
    fprintf(stderr, "(the file system cannot make %s immutable: case not run)\n", state_dir);
    return;
  }
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t h1, h2;
  CU_ASSERT_EQUAL(quac_create(c, "queue", NULL, 0, "st-fail1", &h1, NULL), 0);
  CU_ASSERT(log_has("state: cannot create", state_dir));
  newest_state(after, sizeof after);
  CU_ASSERT_STRING_EQUAL(after, newest);
  f = fopen(newest, "rb");
  CU_ASSERT_FATAL(f != NULL);
  nlen = fread(now, 1, nlen, f);
  fclose(f);
  CU_ASSERT(nlen == blen && memcmp(now, before, blen) == 0);
  CU_ASSERT_EQUAL_FATAL(set_immutable(state_dir, false), 0);
  CU_ASSERT_EQUAL(quac_create(c, "queue", NULL, 0, "st-fail2", &h2, NULL), 0);
  quac_close(c);
  /* Both came back: the second write carried the first change too. */
  CU_ASSERT_EQUAL_FATAL(restart_kill(), 0);
  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  CU_ASSERT_EQUAL(quac_destroy(c, open_name(c, "st-fail1"), false), 0);
  CU_ASSERT_EQUAL(quac_destroy(c, open_name(c, "st-fail2"), false), 0);
  quac_close(c);
}

/* A final save that fails (the folder made immutable before SIGTERM) loses
 * no queued item: the newest generation still names the queues' rings, and
 * the next start recovers their items from them (state.c, R7). */
static void failed_final_save_leaves_queued_items_in_rings(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t in = open_name(c, "st-in"), base = 2000000, v = 0;
  for (uint64_t k = 0; k < 5; k++) {
    v = base + k;
    CU_ASSERT_EQUAL(call(c, in, "put", &v, NULL), 0);
  }
  quac_close(c);
  if (set_immutable(state_dir, true) < 0) {
    fprintf(stderr, "(the file system cannot make %s immutable: case not run)\n", state_dir);
    return;
  }
  kill(daemon_.pid, SIGTERM);
  CU_ASSERT_NOT_EQUAL(itest_wait(daemon_.pid, 10.0), -1);
  daemon_.pid = 0;
  CU_ASSERT_EQUAL_FATAL(set_immutable(state_dir, false), 0);
  CU_ASSERT(log_has("contents could not be saved", "ring files"));
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t out = open_name(c, "st-out");
  for (uint64_t k = 0; k < 5; k++) {
    CU_ASSERT_EQUAL(get_wait(c, out, &v), 0);
    CU_ASSERT_EQUAL(v, base + k);
  }
  itest_sleep_ms(50);
  CU_ASSERT_EQUAL(call(c, out, "get", NULL, &v), QUA_DIVERTED);
  quac_close(c);
}

/* --- Buffers and counters after kill -9 (buffer.c notes 4-6, counter.c 1-2) --------- */

/* Puts the bytes of s into buffer b, one putb each. */
static void put_bytes(quac_conn_t *c, uint64_t b, const char *s) {
  for (; *s != '\0'; s++) {
    uint64_t v = (unsigned char)*s;
    CU_ASSERT_EQUAL(call(c, b, "putb", &v, NULL), 0);
  }
}

/* Takes every byte of buffer b and checks they are exactly `want`. */
static void take_exactly(quac_conn_t *c, uint64_t b, const char *want) {
  char got[256];
  size_t n = 0;
  uint64_t v;
  while (n + 1 < sizeof got && call(c, b, "getb", NULL, &v) == 0)
    got[n++] = (char)v;
  got[n] = '\0';
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "the buffer held \"%s\", not \"%s\"\n", got, want);
    CU_FAIL("the buffer's bytes did not come back exactly");
  }
}

/* Fills p-buf (capacity 16) so that its bytes wrap around the ring's end:
 * the 12 bytes of `twelve` are what it holds, starting at index 10. */
static void fill_wrapped(quac_conn_t *c, uint64_t b, const char *twelve) {
  put_bytes(c, b, "0123456789");
  take_exactly(c, b, "0123456789");
  put_bytes(c, b, twelve);
}

/* Whether this quad has the m68k backend. */
static bool has_m68k(quac_conn_t *c) {
  quac_type_list_t *types = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_list_types(c, &types), 0);
  bool m68k = quac_type_find(types, "m68k-queue") != NULL;
  quac_free(types);
  return m68k;
}

/* Calls entry of the quaject named name with each of the n words of v. */
static void call_each(quac_conn_t *c, const char *name, const char *entry, const uint64_t *v,
                      int n) {
  uint64_t h = open_name(c, name);
  for (int i = 0; i < n; i++)
    CU_ASSERT_EQUAL(call(c, h, entry, &v[i], NULL), 0);
}

/* Takes n words from the quaject named name with entry and checks they
 * are want's; with `all`, checks it is empty then. */
static void take_words(quac_conn_t *c, const char *name, const char *entry, const uint64_t *want,
                       int n, bool all) {
  uint64_t h = open_name(c, name), v;
  int got = 0;
  bool same = true;
  while ((got < n || (all && got == n)) && call(c, h, entry, NULL, &v) == 0) {
    same = same && got < n && v == want[got];
    got++;
  }
  if (!same || got != n) {
    fprintf(stderr, "%s: %d words came back, not the %d put in, or not in their order\n", name,
            got, n);
    CU_FAIL("the words did not come back exactly");
  }
}

/* The m68k queue (capacity 4, its words wrapping round the ring), stack
 * and counter: filled with what `round` says, then checked. */
static void m68k_fill(quac_conn_t *c, uint64_t round) {
  uint64_t q[] = {round + 1, round + 2, round + 3}, more[] = {round + 4, round + 5};
  call_each(c, "p-mq", "put", q, 3);
  take_words(c, "p-mq", "get", q, 1, false); /* not all: the ring's start moves */
  call_each(c, "p-mq", "put", more, 2);
  call_each(c, "p-ms", "push", q, 3);
  call_each(c, "p-mc", "add", &round, 1);
}

static void m68k_check(quac_conn_t *c, uint64_t round, uint64_t total) {
  uint64_t q[] = {round + 2, round + 3, round + 4, round + 5}, s[] = {round + 3, round + 2, round + 1};
  take_words(c, "p-mq", "get", q, 4, true);
  take_words(c, "p-ms", "pop", s, 3, true);
  uint64_t v = 0;
  CU_ASSERT_EQUAL(call(c, open_name(c, "p-mc"), "read", NULL, &v), 0);
  CU_ASSERT_EQUAL(v, total);
}

/* The contents of a buffer, a counter and (with the backend) the m68k
 * queue, stack and counter come back exactly after kill -9, and after a
 * graceful restart followed by kill -9 (the restored contents are in the
 * new quajects' files). */
static void kill9_keeps_buffer_counter_and_m68k_contents(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  bool m68k = has_m68k(c);
  if (m68k) {
    const char *mq[] = {"target=m68k", "capacity=4"}, *mc[] = {"target=m68k"};
    uint64_t h;
    CU_ASSERT_EQUAL_FATAL(quac_create(c, "queue", mq, 2, "p-mq", &h, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(quac_create(c, "stack", mq, 2, "p-ms", &h, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", mc, 1, "p-mc", &h, NULL), 0);
    m68k_fill(c, 100);
  } else {
    fprintf(stderr, "(this quad has no m68k backend: the m68k quajects are not checked)\n");
  }
  const char *bp[] = {"capacity=16"}, *cp[] = {"initial=3", "threshold=100"};
  uint64_t b, n, v;
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "buffer", bp, 1, "p-buf", &b, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", cp, 2, "p-cnt", &n, NULL), 0);
  fill_wrapped(c, b, "abcdefghijkl");
  v = (uint64_t)-10; /* 3 - 10 = -7: two's complement survives */
  CU_ASSERT_EQUAL(call(c, n, "add", &v, NULL), 0);
  quac_close(c);
  CU_ASSERT_EQUAL_FATAL(restart_kill(), 0);

  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  b = open_name(c, "p-buf");
  n = open_name(c, "p-cnt");
  CU_ASSERT_EQUAL(call(c, b, "count", NULL, &v), 0);
  CU_ASSERT_EQUAL(v, 12);
  take_exactly(c, b, "abcdefghijkl");
  CU_ASSERT_EQUAL(call(c, n, "read", NULL, &v), 0);
  CU_ASSERT_EQUAL((int64_t)v, -7);
  if (m68k)
    m68k_check(c, 100, 100);
  /* The restored quajects work, and what they hold now survives a
   * graceful restart and then a kill. */
  fill_wrapped(c, b, "ABCDEFGHIJKL");
  v = 1000;
  CU_ASSERT_EQUAL(call(c, n, "add", &v, NULL), 0);
  if (m68k)
    m68k_fill(c, 200);
  quac_close(c);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  CU_ASSERT_EQUAL_FATAL(restart_kill(), 0);

  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  b = open_name(c, "p-buf");
  n = open_name(c, "p-cnt");
  take_exactly(c, b, "ABCDEFGHIJKL");
  CU_ASSERT_EQUAL(call(c, n, "read", NULL, &v), 0);
  CU_ASSERT_EQUAL((int64_t)v, 993);
  if (m68k) {
    m68k_check(c, 200, 300);
    const char *names[] = {"p-mq", "p-ms", "p-mc"};
    for (int i = 0; i < 3; i++)
      CU_ASSERT_EQUAL(quac_destroy(c, open_name(c, names[i]), false), 0);
  }
  CU_ASSERT_EQUAL(quac_destroy(c, b, false), 0);
  CU_ASSERT_EQUAL(quac_destroy(c, n, false), 0);
  quac_close(c);
}

/* A live writer, reader and adder, and quad killed under them. */
#define LIVE_PERIOD 251 /* byte p of the stream is p % 251: a window of 64 tells its start */
#define LIVE_CAP 64
#define LIVE_INITIAL 1000

typedef struct live {
  const char *entry;      /* putb, getb or add */
  _Atomic uint64_t done;  /* calls answered OK */
  bool doubt;             /* the last call got no reply: it may have run */
  uint64_t bad;           /* getb: bytes out of sequence */
} live_t;

static void *live_run(void *arg) {
  live_t *l = arg;
  quac_conn_t *c = itest_connect(&daemon_);
  if (c == NULL)
    return NULL;
  uint64_t h = open_name(c, strcmp(l->entry, "add") == 0 ? "p-live-cnt" : "p-live-buf");
  double end = itest_now() + 20.0; /* bounded: the kill comes long before */
  while (itest_now() < end) {
    uint64_t v = strcmp(l->entry, "putb") == 0 ? l->done % LIVE_PERIOD : 1, got = 0;
    int r = call(c, h, l->entry, strcmp(l->entry, "getb") == 0 ? NULL : &v, &got);
    if (r == QUA_DIVERTED)
      continue; /* full or empty: try again */
    if (r != 0) {
      l->doubt = true; /* quad died under the call */
      break;
    }
    if (strcmp(l->entry, "getb") == 0 && got != l->done % LIVE_PERIOD)
      l->bad++;
    l->done++;
  }
  quac_close(c);
  return NULL;
}

/* kill -9 while a writer, a reader and an adder run: the buffer comes back
 * with the bytes between a prefix of the reads and a prefix of the writes
 * (the one call per side in flight counted either way), in order, none
 * twice, none made up; the counter with the adds answered, or one more. */
static void kill9_under_live_writers_leaves_a_prefix(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  char cap[32];
  snprintf(cap, sizeof cap, "capacity=%d", LIVE_CAP);
  const char *bp[] = {cap}, *cp[] = {"initial=1000"};
  uint64_t h;
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "buffer", bp, 1, "p-live-buf", &h, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", cp, 1, "p-live-cnt", &h, NULL), 0);
  quac_close(c);
  live_t w = {.entry = "putb"}, r = {.entry = "getb"}, a = {.entry = "add"};
  pthread_t tw, tr, ta;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&tw, NULL, live_run, &w), 0);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&tr, NULL, live_run, &r), 0);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&ta, NULL, live_run, &a), 0);
  /* Some laps of the ring and some adds, then the kill, mid-run. */
  double end = itest_now() + 10.0;
  while ((atomic_load(&w.done) < 4 * LIVE_CAP || atomic_load(&r.done) < 2 * LIVE_CAP ||
          atomic_load(&a.done) < 50) && itest_now() < end)
    itest_sleep_ms(1);
  kill(daemon_.pid, SIGKILL);
  pthread_join(tw, NULL);
  pthread_join(tr, NULL);
  pthread_join(ta, NULL);
  waitpid(daemon_.pid, NULL, 0);
  daemon_.pid = 0;
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  fprintf(stderr, "live: %" PRIu64 " bytes written%s, %" PRIu64 " read%s, %" PRIu64 " adds%s\n",
          w.done, w.doubt ? " (+1 in doubt)" : "", r.done, r.doubt ? " (+1 in doubt)" : "",
          a.done, a.doubt ? " (+1 in doubt)" : "");
  CU_ASSERT(w.done > LIVE_CAP); /* the ring went round at least once */
  CU_ASSERT_EQUAL(r.bad, 0);

  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t b = open_name(c, "p-live-buf"), n = open_name(c, "p-live-cnt"), v;
  uint8_t got[LIVE_CAP + 1];
  size_t ngot = 0;
  while (ngot < sizeof got && call(c, b, "getb", NULL, &v) == 0)
    got[ngot++] = (uint8_t)v;
  /* Positions T .. H-1 of the stream, T a read prefix, H a write prefix. */
  bool found = false;
  for (uint64_t t = r.done; t <= r.done + r.doubt && !found; t++)
    for (uint64_t hd = w.done; hd <= w.done + w.doubt && !found; hd++) {
      if (hd < t || hd - t != ngot)
        continue;
      found = true;
      for (size_t i = 0; i < ngot; i++)
        found = found && got[i] == (t + i) % LIVE_PERIOD;
    }
  if (!found) {
    fprintf(stderr, "the buffer came back with %zu bytes:", ngot);
    for (size_t i = 0; i < ngot; i++)
      fprintf(stderr, " %u", got[i]);
    fprintf(stderr, "\n");
    CU_FAIL("the buffer's bytes are not a prefix of the writes minus a prefix of the reads");
  }
  CU_ASSERT_EQUAL(call(c, n, "read", NULL, &v), 0);
  if (!(v >= LIVE_INITIAL + a.done && v <= LIVE_INITIAL + a.done + a.doubt)) {
    fprintf(stderr, "the counter came back at %" PRIu64 " after %" PRIu64 " adds answered\n", v,
            a.done);
    CU_FAIL("the counter is not its answered adds (or one more in flight)");
  }
  CU_ASSERT_EQUAL(quac_destroy(c, b, false), 0);
  CU_ASSERT_EQUAL(quac_destroy(c, n, false), 0);
  quac_close(c);
}

/* --- Bad storage files (state.c, R6) -------------------------------------------------- */

#define FILE_HEADER 4096 /* a ring file's header (state.c, RING_*) */
#define BUFFER_POS 192   /* a buffer's positions before its bytes (buffer_pos_t) */

/* Finds the ring file of `size` bytes in the state folder whose 8 bytes at
 * `at` are `word` (any such file when at < 0): its name into name. */
static bool find_ring_file(off_t size, long at, uint64_t word, char *name, size_t len) {
  DIR *d = opendir(state_dir);
  struct dirent *de;
  bool found = false;
  while (!found && d != NULL && (de = readdir(d)) != NULL) {
    char p[512];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", state_dir, de->d_name);
    if (strncmp(de->d_name, "ring.", 5) != 0 || strlen(de->d_name) != 21 || stat(p, &sb) < 0 ||
        sb.st_size != size)
      continue;
    uint64_t w = 0;
    FILE *f = fopen(p, "rb");
    found = at < 0 || (f != NULL && fseek(f, at, SEEK_SET) == 0 && fread(&w, 8, 1, f) == 1 &&
                       w == word);
    if (f != NULL)
      fclose(f);
    if (found)
      snprintf(name, len, "%s", de->d_name);
  }
  if (d != NULL)
    closedir(d);
  return found;
}

/* The ring files in the state folder (not the .bad ones). */
static int count_ring_files(void) {
  DIR *d = opendir(state_dir);
  struct dirent *de;
  int n = 0;
  while (d != NULL && (de = readdir(d)) != NULL)
    n += strncmp(de->d_name, "ring.", 5) == 0 && strlen(de->d_name) == 21;
  if (d != NULL)
    closedir(d);
  return n;
}

/* Writes the 8 bytes of word at offset at of the state folder's file name. */
static void poke(const char *name, long at, uint64_t word) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", state_dir, name);
  FILE *f = fopen(p, "r+b");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT(fseek(f, at, SEEK_SET) == 0 && fwrite(&word, 8, 1, f) == 1);
  fclose(f);
}

/* After kill -9, a truncated buffer file, a buffer file whose positions are
 * impossible and a counter file that is not one are each refused, named in
 * the log, kept as NAME.bad, and their quajects come back empty; the rest
 * (a queue's items) is restored. */
static void bad_storage_file_is_refused_and_the_rest_restored(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  const char *b32[] = {"capacity=32"}, *b16[] = {"capacity=16"}, *q8[] = {"capacity=8"};
  uint64_t bt, bp, cn, q, v;
  const uint64_t mark = 0x5157415244ull; /* p-bad-cnt's value, to find its file */
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "buffer", b32, 1, "p-bad-trunc", &bt, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "buffer", b16, 1, "p-bad-pos", &bp, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", NULL, 0, "p-bad-cnt", &cn, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "queue", q8, 1, "p-good-q", &q, NULL), 0);
  put_bytes(c, bt, "xyz");
  put_bytes(c, bp, "uvw");
  v = mark;
  CU_ASSERT_EQUAL(call(c, cn, "add", &v, NULL), 0);
  for (v = 5; v <= 6; v++)
    CU_ASSERT_EQUAL(call(c, q, "put", &v, NULL), 0);
  quac_close(c);
  kill(daemon_.pid, SIGKILL);
  waitpid(daemon_.pid, NULL, 0);
  daemon_.pid = 0;

  char trunc[64], pos[64], cnt[64], p[512];
  CU_ASSERT_FATAL(find_ring_file(FILE_HEADER + BUFFER_POS + 32, -1, 0, trunc, sizeof trunc));
  CU_ASSERT_FATAL(find_ring_file(FILE_HEADER + BUFFER_POS + 16, -1, 0, pos, sizeof pos));
  CU_ASSERT_FATAL(find_ring_file(FILE_HEADER + 8, FILE_HEADER, mark, cnt, sizeof cnt));
  snprintf(p, sizeof p, "%s/%s", state_dir, trunc);
  CU_ASSERT_EQUAL(truncate(p, FILE_HEADER + 100), 0);
  poke(pos, FILE_HEADER + 64, 1000); /* head 1000, tail 0: more than 16 bytes */
  poke(cnt, 0, 0x2d2d2d2d2d2d2d2dull); /* its magic */
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);

  CU_ASSERT(log_has(trunc, "its size is not the header's"));
  CU_ASSERT(log_has(pos, "positions"));
  CU_ASSERT(log_has(cnt, "not a ring file"));
  /* A start leaves the files its generation names and no other: those
   * of st-in, st-out, st-count and the four here (the old ones are gone,
   * and so are those of every earlier run). */
  CU_ASSERT_EQUAL(count_ring_files(), 7);
  const char *bad[] = {trunc, pos, cnt};
  for (int i = 0; i < 3; i++) {
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s.bad", state_dir, bad[i]);
    CU_ASSERT_EQUAL(stat(p, &sb), 0);
    unlink(p);
  }
  c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  bt = open_name(c, "p-bad-trunc");
  bp = open_name(c, "p-bad-pos");
  cn = open_name(c, "p-bad-cnt");
  q = open_name(c, "p-good-q");
  CU_ASSERT_EQUAL(call(c, bt, "count", NULL, &v), 0);
  CU_ASSERT_EQUAL(v, 0);
  CU_ASSERT_EQUAL(call(c, bp, "count", NULL, &v), 0);
  CU_ASSERT_EQUAL(v, 0);
  CU_ASSERT_EQUAL(call(c, cn, "read", NULL, &v), 0);
  CU_ASSERT_EQUAL(v, 0);
  for (uint64_t want = 5; want <= 6; want++) {
    CU_ASSERT_EQUAL(call(c, q, "get", NULL, &v), 0);
    CU_ASSERT_EQUAL(v, want);
  }
  CU_ASSERT_EQUAL(call(c, q, "get", NULL, &v), QUA_DIVERTED);
  const uint64_t all[] = {bt, bp, cn, q};
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(quac_destroy(c, all[i], false), 0);
  quac_close(c);
}

/* --- Bad files -------------------------------------------------------------------- */

static void file_read(const char *path, uint8_t *buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  CU_ASSERT_FATAL(f != NULL);
  *len = fread(buf, 1, *len, f);
  fclose(f);
}

static void file_write(const char *path, const uint8_t *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_EQUAL(fwrite(buf, 1, len, f), len);
  fclose(f);
}

/* Damages the newest generation with `damage`, then: quad refuses to start,
 * naming the file and `what`, and leaves both generations as they were;
 * with the bad file moved aside it starts from the previous one. */
static void bad_newest_is_refused(const char *what, void (*damage)(uint8_t *, size_t *)) {
  /* An orderly stop: the newest generation has the contents, the previous
   * one the graph. */
  kill(daemon_.pid, SIGTERM);
  CU_ASSERT_EQUAL(itest_wait(daemon_.pid, 10.0), 0); /* exit status 0 */
  daemon_.pid = 0;
  char newest[256], prev[256];
  CU_ASSERT_FATAL(newest_state(newest, sizeof newest) == 2);
  static uint8_t good[1 << 20], bad[1 << 20], before_prev[1 << 20], after[1 << 20];
  size_t glen = sizeof good, blen, plen = sizeof before_prev, alen;
  file_read(newest, good, &glen);
  memcpy(bad, good, glen);
  blen = glen;
  damage(bad, &blen);
  file_write(newest, bad, blen);
  /* The previous generation's name: one less. */
  snprintf(prev, sizeof prev, "%s", newest);
  char *digits = prev + strlen(prev) - 10;
  unsigned long long g = strtoull(digits, NULL, 10);
  snprintf(digits, 11, "%010llu", g - 1);
  file_read(prev, before_prev, &plen);

  char err[4096];
  int rc = run_quad_as(0, err, sizeof err, "--socket", daemon_.sock, "--state-dir", state_dir,
                       (char *)NULL);
  CU_ASSERT_EQUAL(rc, 1);
  if (strstr(err, newest) == NULL || strstr(err, what) == NULL || strstr(err, prev) == NULL) {
    fprintf(stderr, "quad said:\n%s", err);
    CU_FAIL("the refusal does not name the file, the problem and the previous generation");
  }
  /* Nothing changed: the bad file as it was, the previous one intact. */
  alen = sizeof after;
  file_read(newest, after, &alen);
  CU_ASSERT(alen == blen && memcmp(after, bad, blen) == 0);
  alen = sizeof after;
  file_read(prev, after, &alen);
  CU_ASSERT(alen == plen && memcmp(after, before_prev, plen) == 0);
  char tmp[256];
  CU_ASSERT_EQUAL(newest_state(tmp, sizeof tmp), 2);

  /* Moved aside: quad starts from the previous generation (the graph). */
  char aside[300];
  snprintf(aside, sizeof aside, "%s/bad-%s", daemon_.dir, what);
  CU_ASSERT_EQUAL_FATAL(rename(newest, aside), 0);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  check_graph();
  /* Put the good one back for the next case: quad restarts from it. */
  kill(daemon_.pid, SIGKILL);
  waitpid(daemon_.pid, NULL, 0);
  daemon_.pid = 0;
  DIR *d = opendir(state_dir);
  struct dirent *de;
  while (d != NULL && (de = readdir(d)) != NULL)
    if (strncmp(de->d_name, "state.", 6) == 0) {
      char p[512];
      snprintf(p, sizeof p, "%s/%s", state_dir, de->d_name);
      unlink(p);
    }
  if (d != NULL)
    closedir(d);
  file_write(prev, before_prev, plen);
  file_write(newest, good, glen);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  check_graph();
}

static void flip_byte(uint8_t *p, size_t *len) { p[*len - 3] ^= 0x40; }
static void cut_half(uint8_t *p, size_t *len) { *len = *len / 2; }
static void flip_header(uint8_t *p, size_t *len) { p[20] ^= 1; }

static void corrupt_state_file_is_refused_and_previous_kept(void) {
  bad_newest_is_refused("corrupt", flip_byte);
  bad_newest_is_refused("corrupt", flip_header);
}

static void truncated_state_file_is_refused_and_previous_kept(void) {
  bad_newest_is_refused("truncated", cut_half);
}

/* --- The folder ------------------------------------------------------------------------ */

static void state_dir_is_private_and_checked(void) {
  struct stat sb;
  CU_ASSERT_EQUAL_FATAL(stat(state_dir, &sb), 0);
  CU_ASSERT_EQUAL(sb.st_mode & 0777, 0700);
  CU_ASSERT_EQUAL(sb.st_uid, geteuid());
  char path[256], err[4096];
  /* Another quad on the same folder is refused. */
  snprintf(path, sizeof path, "%s/other.sock", daemon_.dir);
  CU_ASSERT_EQUAL(run_quad_as(0, err, sizeof err, "--socket", path, "--state-dir", state_dir,
                              (char *)NULL), 1);
  CU_ASSERT(strstr(err, "another quad uses it") != NULL);
  /* Open to others: refused, naming the mode. */
  char open_dir[200];
  snprintf(open_dir, sizeof open_dir, "%s/open", daemon_.dir);
  CU_ASSERT_EQUAL_FATAL(mkdir(open_dir, 0755), 0);
  CU_ASSERT_EQUAL(chmod(open_dir, 0755), 0);
  CU_ASSERT_EQUAL(run_quad_as(0, err, sizeof err, "--socket", path, "--state-dir", open_dir,
                              (char *)NULL), 1);
  CU_ASSERT(strstr(err, open_dir) != NULL && strstr(err, "mode 0755") != NULL);
  /* Not writable by quad's user: refused at start, naming the folder. As
   * root, quad runs as another user, the folder's owner. */
  char ro[200];
  snprintf(ro, sizeof ro, "%s/ro", daemon_.dir);
  CU_ASSERT_EQUAL_FATAL(mkdir(ro, 0500), 0);
  unsigned uid = geteuid() == 0 ? NOBODY : 0;
  if (uid != 0) {
    CU_ASSERT_EQUAL(chown(ro, uid, uid), 0);
    CU_ASSERT_EQUAL(chmod(daemon_.dir, 0711), 0); /* to reach ro/ */
  }
  CU_ASSERT_EQUAL(chmod(ro, 0500), 0);
  snprintf(path, sizeof path, "/tmp/qua-itest-ro-%d.sock", (int)getpid());
  CU_ASSERT_EQUAL(run_quad_as(uid, err, sizeof err, "--socket", path, "--state-dir", ro,
                              (char *)NULL), 1);
  if (strstr(err, ro) == NULL || strstr(err, "not writable") == NULL) {
    fprintf(stderr, "quad said:\n%s", err);
    CU_FAIL("no clear error for a folder quad cannot write");
  }
  unlink(path);
  chmod(daemon_.dir, 0700);
}

/* --- Ownership -------------------------------------------------------------------------- */

/* In a child running as uid: connects and runs fn. The child's exit status. */
static int as_uid(unsigned uid, int (*fn)(quac_conn_t *)) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, NULL) < 0 || setgid(0) < 0 || setuid(uid) < 0)
      _exit(125);
    quac_conn_t *c = NULL;
    if (quac_connect_unix(daemon_.sock, "itest-uid", &c) < 0)
      _exit(124);
    int r = fn(c);
    quac_close(c);
    _exit(r);
  }
  int st = itest_wait(pid, 20.0);
  return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int create_owned(quac_conn_t *c) {
  uint64_t h;
  return quac_create(c, "counter", NULL, 0, "st-owned", &h, NULL) == 0 ? 0 : 1;
}

static int destroy_owned(quac_conn_t *c) {
  quac_opened_t o;
  if (quac_open(c, "st-owned", &o) != 0)
    return 3;
  int r = quac_destroy(c, o.handle, false);
  return r == 0 ? 0 : r == QUA_EPERM ? 2 : 1;
}

static void owner_may_destroy_after_restart(void) {
  if (geteuid() != 0)
    return; /* needs two other uids */
  CU_ASSERT_EQUAL(chmod(daemon_.dir, 0750), 0); /* the children reach the socket as group 0 */
  CU_ASSERT_EQUAL_FATAL(as_uid(NOBODY, create_owned), 0);
  CU_ASSERT_EQUAL_FATAL(restart_term(), 0);
  CU_ASSERT_EQUAL(as_uid(OTHER, destroy_owned), 2);  /* EPERM: not the creator */
  CU_ASSERT_EQUAL(as_uid(NOBODY, destroy_owned), 0); /* the creator still may */
  chmod(daemon_.dir, 0700);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 2;
  if (itest_start(&daemon_, "--state-dir", "@DIR@/state", "--allow-uid", "65534", "--allow-uid",
                  "65533", (char *)NULL) < 0)
    return 1;
  snprintf(state_dir, sizeof state_dir, "%s/state", daemon_.dir);
  static const qtest_case_t cases[] = {
      {"restart_cycles_deliver_every_item_exactly_once",
       restart_cycles_deliver_every_item_exactly_once},
      {"kill9_cycles_deliver_no_item_twice_and_lose_only_in_flight",
       kill9_cycles_deliver_no_item_twice_and_lose_only_in_flight},
      {"kill9_brings_back_graph_and_queued_items",
       kill9_brings_back_graph_and_queued_items},
      {"every_kind_of_contents_survives_a_restart", every_kind_of_contents_survives_a_restart},
      {"kill9_keeps_buffer_counter_and_m68k_contents",
       kill9_keeps_buffer_counter_and_m68k_contents},
      {"kill9_under_live_writers_leaves_a_prefix", kill9_under_live_writers_leaves_a_prefix},
      {"bad_storage_file_is_refused_and_the_rest_restored",
       bad_storage_file_is_refused_and_the_rest_restored},
      {"long_parameter_survives_a_restart", long_parameter_survives_a_restart},
      {"link_is_restored_and_delivers", link_is_restored_and_delivers},
      {"failed_write_keeps_previous_and_next_change_saves_all",
       failed_write_keeps_previous_and_next_change_saves_all},
      {"failed_final_save_leaves_queued_items_in_rings",
       failed_final_save_leaves_queued_items_in_rings},
      {"corrupt_state_file_is_refused_and_previous_kept",
       corrupt_state_file_is_refused_and_previous_kept},
      {"truncated_state_file_is_refused_and_previous_kept",
       truncated_state_file_is_refused_and_previous_kept},
      {"state_dir_is_private_and_checked", state_dir_is_private_and_checked},
      {"owner_may_destroy_after_restart", owner_may_destroy_after_restart},
      {NULL, NULL},
  };
  int rc = qtest_run("integration-state", cases);
  set_immutable(state_dir, false); /* whatever a failed case left */
  if (rc != 0)
    itest_dump_log(&daemon_);
  if (!itest_stop_clean(&daemon_))
    rc = 1;
  return rc;
}
