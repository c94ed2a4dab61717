/* test-output.c -- bytes of replies and events waiting to be written: per connection
 * (--max-conn-queued) and for the whole daemon (--max-queued), at and past each edge. */
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

/* Creates n counters on c with long names, so that List replies are large. */
static void make_listing(rawconn_t *c, int n) {
  for (int i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "listing-%04d-abcdefghijklmnopqrstuvwxyz-abcdefghijklmnopq", i);
    CU_ASSERT_FATAL(create(c, "counter", name, NULL, NULL) != 0);
  }
}

/* The bytes of one List reply on c (after_id 0), frame header included. */
static size_t list_reply_bytes(rawconn_t *c) {
  Qua__V1__ListRequest r = QUA__V1__LIST_REQUEST__INIT;
  ProtobufCMessage *m = NULL;
  CU_ASSERT_EQUAL_FATAL(rc_call(c, QUAP_LIST, &r.base, &m), 0);
  size_t n = protobuf_c_message_get_packed_size(m) + 64;
  protobuf_c_message_free_unpacked(m, NULL);
  return n;
}

/* Sends n List requests in one write, without reading (a unix socket
 * takes few small writes while its peer does not read); the id of the
 * first. */
static uint64_t pipeline_lists(rawconn_t *c, int n) {
  Qua__V1__ListRequest r = QUA__V1__LIST_REQUEST__INIT;
  quap_buf_t b;
  quap_buf_init(&b);
  uint64_t first = c->next_id;
  for (int i = 0; i < n; i++)
    CU_ASSERT_FATAL(quap_request_append(&b, c->next_id++, QUAP_LIST, &r.base) > 0);
  CU_ASSERT_EQUAL_FATAL(rc_write(c, b.data, b.len), 0);
  quap_buf_fini(&b);
  return first;
}

/* Reads the n responses from first on, in order; how many were status 0. */
static int read_responses(rawconn_t *c, uint64_t first, int n) {
  int ok = 0;
  for (int i = 0; i < n; i++) {
    Qua__V1__Frame *f = rc_response(c, first + (uint64_t)i, 10000);
    if (f == NULL)
      break;
    ok += f->status == 0;
    quap_frame_free(f);
  }
  return ok;
}

/* Requests the daemon has decoded, from a Stats on w (w's own Stats included). */
static uint64_t requests_seen(rawconn_t *w, uint64_t *queued, uint64_t *peak) {
  Qua__V1__StatsReply *s = stats(w);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  uint64_t n = s->requests;
  if (queued != NULL)
    *queued = s->queued_bytes;
  if (peak != NULL)
    *peak = s->queued_peak;
  protobuf_c_message_free_unpacked(&s->base, NULL);
  return n;
}

/* Waits until the daemon decodes no more requests (two Stats 200 ms apart
 * differ only by the Stats themselves). */
static uint64_t requests_settled(rawconn_t *w, uint64_t *queued, uint64_t *peak) {
  uint64_t last = requests_seen(w, queued, peak);
  for (int i = 0; i < 50; i++) {
    usleep(200 * 1000);
    uint64_t now = requests_seen(w, queued, peak);
    if (now == last + 1)
      return now;
    last = now;
  }
  CU_FAIL("the daemon kept decoding requests for 10 s");
  return last;
}

/* Kilobytes of quad's peak resident set (VmHWM). */
static long quad_hwm_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
  FILE *f = fopen(path, "r");
  long kb = -1;
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
      break;
  if (f != NULL)
    fclose(f);
  return kb;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#define PINGS 50

/* PINGS round trips (a Stats each) on w, their latencies in ms, sorted. */
static void pings(rawconn_t *w, double *lat) {
  for (int i = 0; i < PINGS; i++) {
    double t0 = rc_now();
    requests_seen(w, NULL, NULL);
    lat[i] = (rc_now() - t0) * 1000.0;
  }
  qsort(lat, PINGS, sizeof lat[0], cmp_double);
}

#define BOUND 262144
#define PIPELINED 400

/* One client pipelines 2,000 Lists and reads nothing: the daemon holds at
 * most its bound plus one reply for it and stops decoding its requests;
 * meanwhile another client's pings are answered; once the first reads,
 * every List is answered. */
static void pipelined_list_is_held_at_the_connection_bound(void) {
  quad_child_t q;
  const char *extra[] = {"--max-conn-queued", "262144", "--max-frame", "65536",
                         "--max-inflight", "65536", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t a, b;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, q.sock), 0);
  make_listing(&a, 600);
  size_t reply = list_reply_bytes(&a);
  CU_ASSERT(reply > 16384); /* the test means something only with large replies */
  long hwm0 = quad_hwm_kb(q.pid);
  uint64_t before = requests_seen(&b, NULL, NULL);

  uint64_t first = pipeline_lists(&a, PIPELINED);
  double lat[PINGS];
  pings(&b, lat);
  uint64_t queued, peak;
  uint64_t seen = requests_settled(&b, &queued, &peak) - before;
  long hwm1 = quad_hwm_kb(q.pid);
  printf("\n  reply %zu B; held after %" PRIu64 " requests; queued %" PRIu64 " B, peak %" PRIu64
         " B (bound %d); ping p50 %.2f ms, max %.2f ms; VmHWM +%ld kB\n",
         reply, seen, queued, peak, BOUND, lat[PINGS / 2], lat[PINGS - 1], hwm1 - hwm0);
  CU_ASSERT(seen < PIPELINED / 2); /* held: most Lists are not decoded yet */
  CU_ASSERT(peak >= BOUND);             /* the bound, not something else, held it */
  CU_ASSERT(peak <= BOUND + reply + 4096);
  CU_ASSERT(queued <= BOUND + reply + 4096);
  CU_ASSERT(lat[PINGS - 1] < 2000.0); /* answered, not starved behind the Lists */
#ifndef __SANITIZE_ADDRESS__
  /* Unbounded, 2,000 replies would take 2000 x reply bytes. */
  CU_ASSERT(hwm1 - hwm0 < 16 * 1024);
#endif

  CU_ASSERT_EQUAL(read_responses(&a, first, PIPELINED), PIPELINED);
  requests_seen(&b, &queued, NULL);
  CU_ASSERT(queued < 4096);
  rc_close(&a);
  rc_close(&b);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* Replies that fit under the bound are all made, read or not: a
 * connection under its bound is not held. */
static void output_under_the_connection_bound_is_not_held(void) {
  quad_child_t q;
  /* 16 MiB: more than the replies and the socket buffers take together. */
  const char *extra[] = {"--max-conn-queued", "16777216", "--max-frame", "65536", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t a, b;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, q.sock), 0);
  make_listing(&a, 600);
  size_t reply = list_reply_bytes(&a);
  int n = (int)(16777216 / reply) - 8; /* just under the bound, kernel buffers aside */
  if (n > 60)
    n = 60; /* --max-inflight is 64 */
  uint64_t before = requests_seen(&b, NULL, NULL);
  uint64_t first = pipeline_lists(&a, n);
  uint64_t queued;
  uint64_t seen = requests_settled(&b, &queued, NULL) - before;
  /* Every List was decoded: seen counts them and b's Stats (two at least). */
  CU_ASSERT(seen >= (uint64_t)n + 2);
  CU_ASSERT(queued > 0); /* and their replies wait, unread */
  CU_ASSERT_EQUAL(read_responses(&a, first, n), n);
  rc_close(&a);
  rc_close(&b);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

#define CLIENTS 8
#define TOTAL 1048576
#define RESERVE 65536 /* QUAD_QUEUED_RESERVE */

/* Eight clients pipeline Lists and read nothing, each allowed 4 MiB: the
 * daemon's total stops near --max-queued (1 MiB), not at 8 x 4 MiB, and a
 * ninth client's pings are still answered. */
static void total_bound_holds_the_largest_connections_first(void) {
  quad_child_t q;
  const char *extra[] = {"--max-queued", "1048576", "--max-frame", "65536", "--max-inflight",
                         "65536", "--max-quajects-per-client", "2000", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t c[CLIENTS], w;
  for (int i = 0; i < CLIENTS; i++)
    CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&c[i], q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&w, q.sock), 0);
  /* Published, so every client lists them all. */
  make_listing(&w, 600);
  size_t reply = list_reply_bytes(&c[0]);
  long hwm0 = quad_hwm_kb(q.pid);
  uint64_t first[CLIENTS];
  for (int i = 0; i < CLIENTS; i++)
    first[i] = pipeline_lists(&c[i], PIPELINED / 4);
  double lat[PINGS];
  pings(&w, lat);
  uint64_t queued, peak;
  requests_settled(&w, &queued, &peak);
  long hwm1 = quad_hwm_kb(q.pid);
  size_t share = RESERVE < TOTAL / (CLIENTS + 1) ? RESERVE : TOTAL / (CLIENTS + 1);
  size_t most = TOTAL + (CLIENTS + 1) * (share + reply + 4096);
  printf("\n  reply %zu B; queued %" PRIu64 " B, peak %" PRIu64 " B (bound %d, at most %zu); "
         "ping p50 %.2f ms, max %.2f ms; VmHWM +%ld kB\n",
         reply, queued, peak, TOTAL, most, lat[PINGS / 2], lat[PINGS - 1], hwm1 - hwm0);
  CU_ASSERT(peak >= TOTAL);
  CU_ASSERT(peak <= most);
  CU_ASSERT(peak < CLIENTS * 4194304u / 4); /* far below what the per-connection bounds allow */
  CU_ASSERT(lat[PINGS - 1] < 2000.0);
#ifndef __SANITIZE_ADDRESS__
  CU_ASSERT(hwm1 - hwm0 < 32 * 1024);
#endif
  /* Each reads in turn: everything is answered, the held ones released. */
  for (int i = 0; i < CLIENTS; i++)
    CU_ASSERT_EQUAL(read_responses(&c[i], first[i], PIPELINED / 4), PIPELINED / 4);
  requests_seen(&w, &queued, NULL);
  CU_ASSERT(queued < 4096);
  for (int i = 0; i < CLIENTS; i++)
    rc_close(&c[i]);
  rc_close(&w);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* B runs `pairs` put+get pairs on queue h in one InvokeBatch: each put
 * finds the queue empty, so notempty fires `pairs` times. */
static void notempty_storm(rawconn_t *b, uint64_t h, int pairs) {
  Qua__V1__InvokeRequest calls[256], *pc[256];
  uint64_t item = 1;
  for (int i = 0; i < 2 * pairs; i++) {
    calls[i] = (Qua__V1__InvokeRequest)QUA__V1__INVOKE_REQUEST__INIT;
    calls[i].handle = h;
    calls[i].entry = (char *)(i % 2 == 0 ? "put" : "get");
    calls[i].n_args = i % 2 == 0;
    calls[i].args = &item;
    pc[i] = &calls[i];
  }
  Qua__V1__InvokeBatchRequest r = QUA__V1__INVOKE_BATCH_REQUEST__INIT;
  r.n_calls = (size_t)(2 * pairs);
  r.calls = pc;
  CU_ASSERT_EQUAL(rc_call(b, QUAP_INVOKE_BATCH, &r.base, NULL), 0);
}

#define EV_BOUND 8192
#define STORMS 200
#define PAIRS 64

/* A client that binds a callback and reads nothing: past --max-conn-queued
 * its events wait in the ring, then are dropped and counted; the bytes
 * waiting for it stay within the bound. When it reads, every event fired
 * is either delivered or counted in some event's `dropped`. */
static void events_past_the_connection_bound_are_dropped_and_counted(void) {
  quad_child_t q;
  const char *extra[] = {"--max-conn-queued", "8192", "--max-events", "64", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  rawconn_t a, b;
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&a, q.sock), 0);
  CU_ASSERT_EQUAL_FATAL(rc_connect_unix(&b, q.sock), 0);
  uint64_t hb = create(&b, "queue", "storm", NULL, NULL);
  CU_ASSERT_FATAL(hb != 0);
  int st = 0;
  uint64_t ha = open_name(&a, "storm", &st);
  CU_ASSERT_FATAL(ha != 0);
  CU_ASSERT_FATAL(bind_to(&a, ha, "notempty", NULL, 0, &st) != 0);
  /* A second queue whose few events come last, when the ring is full: no
   * later event of theirs can carry their count. */
  uint64_t hb2 = create(&b, "queue", "storm2", NULL, NULL);
  uint64_t ha2 = open_name(&a, "storm2", &st);
  CU_ASSERT_FATAL(hb2 != 0 && ha2 != 0);
  uint64_t late = bind_to(&a, ha2, "notempty", NULL, 0, &st);
  CU_ASSERT_FATAL(late != 0);
  for (int i = 0; i < STORMS; i++)
    notempty_storm(&b, hb, PAIRS);
  notempty_storm(&b, hb2, 5);
  uint64_t queued, peak;
  requests_seen(&b, &queued, &peak);
  Qua__V1__StatsReply *s = stats(&b);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  uint64_t dropped = s->events_dropped;
  protobuf_c_message_free_unpacked(&s->base, NULL);
  printf("\n  %d events fired; %" PRIu64 " dropped so far; queued %" PRIu64 " B, peak %" PRIu64
         " B (bound %d)\n", STORMS * PAIRS + 5, dropped, queued, peak, EV_BOUND);
  CU_ASSERT(dropped > 0);
  /* a's events, and b's own replies (a few KiB) at most. */
  CU_ASSERT(peak >= EV_BOUND); /* the bound is what held a's events */
  CU_ASSERT(peak <= EV_BOUND + 4096);

  /* a reads: every event fired is delivered or counted, on a later event
   * of its binding or on a "dropped" event, with nothing more fired. */
  uint64_t fired = (uint64_t)STORMS * PAIRS + 5, got = 0, counted = 0, notices = 0;
  uint64_t last_seq[2] = {0, 0};
  Qua__V1__Frame *f;
  while ((f = rc_event(&a, 1000)) != NULL) {
    if (strcmp(f->event->callback, "dropped") == 0) {
      notices++;
      CU_ASSERT(f->event->dropped > 0);
      CU_ASSERT_EQUAL(f->event->binding, late);
    } else {
      CU_ASSERT_STRING_EQUAL(f->event->callback, "notempty");
      got++;
    }
    counted += f->event->dropped;
    int k = f->event->binding == late;
    CU_ASSERT(f->event->seq > last_seq[k]); /* each binding's events in order */
    last_seq[k] = f->event->seq;
    quap_frame_free(f);
  }
  CU_ASSERT(notices > 0);
  printf("  delivered %" PRIu64 ", counted as dropped %" PRIu64 " (%" PRIu64 " on \"dropped\")\n",
         got, counted, notices);
  CU_ASSERT_EQUAL(got + counted, fired);
  rc_close(&a);
  rc_close(&b);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* Bad values are refused at start, naming the option. */
static void bad_bounds_are_refused_at_start(void) {
  const char *bad[][2] = {{"--max-conn-queued", "4095"}, {"--max-queued", "0"},
                          {"--max-queued", "1099511627777"}, {"--max-conn-queued", "x"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    quad_child_t q;
    const char *extra[] = {bad[i][0], bad[i][1], NULL};
    CU_ASSERT_EQUAL(quad_start(&q, quad_exe, extra), 1002);
    char line[512] = "";
    FILE *f = fopen(q.log, "r");
    if (f != NULL) {
      if (fgets(line, sizeof line, f) == NULL)
        line[0] = '\0';
      fclose(f);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(line, bad[i][0]));
    quad_discard(&q);
  }
  quad_child_t q;
  const char *edge[] = {"--max-conn-queued", "4096", "--max-queued", "4096", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, edge), 0);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-output QUAD\n");
    return 2;
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"pipelined_list_is_held_at_the_connection_bound",
       pipelined_list_is_held_at_the_connection_bound},
      {"output_under_the_connection_bound_is_not_held",
       output_under_the_connection_bound_is_not_held},
      {"total_bound_holds_the_largest_connections_first",
       total_bound_holds_the_largest_connections_first},
      {"events_past_the_connection_bound_are_dropped_and_counted",
       events_past_the_connection_bound_are_dropped_and_counted},
      {"bad_bounds_are_refused_at_start", bad_bounds_are_refused_at_start},
      {NULL, NULL},
  };
  return qtest_run("output", cases);
}
