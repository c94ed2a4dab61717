/* test-link.c -- links between two quads: items once and in order over unix and TCP, full/notfull, reconnects, bad parameters. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "itest.h"

#define N_ITEMS 100000u
#define BIG_QUEUE "capacity=131072"

static itest_daemon_t A, B;
static unsigned b_port;
static char tokdir[64], token_path[128], wrong_token_path[128], open_token_path[128];
static char b_unix[160], b_tcp[64];

/* --- Helpers ------------------------------------------------------------------------ */

static unsigned free_port(void) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof sa;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
      getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
    return 0;
  close(fd);
  return ntohs(sa.sin_port);
}

static void write_file(const char *path, const char *text, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (fd >= 0) {
    if (write(fd, text, strlen(text)) < 0)
      perror("write");
    fchmod(fd, mode);
    close(fd);
  }
}

/* Creates a quaject from NULL-terminated "key=value" strings; 0 on failure
 * (code in *rc when rc is not NULL). */
static uint64_t make(quac_conn_t *c, const char *type, const char *name, int *rc, ...) {
  const char *params[16];
  size_t n = 0;
  va_list ap;
  va_start(ap, rc);
  const char *p;
  while ((p = va_arg(ap, const char *)) != NULL && n < 16)
    params[n++] = p;
  va_end(ap);
  uint64_t h = 0;
  int r = quac_create(c, type, params, n, name, &h, NULL);
  if (rc != NULL)
    *rc = r;
  else if (r < 0)
    fprintf(stderr, "create %s: %s\n", type, quac_last_error(c));
  return r < 0 ? 0 : h;
}

static uint64_t count_of(quac_conn_t *c, uint64_t q) {
  quac_result_t r;
  return quac_invoke(c, q, "count", NULL, 0, &r) == 0 ? r.result : UINT64_MAX;
}

/* Waits until queue q holds n items (at most timeout_s). */
static bool wait_count(quac_conn_t *c, uint64_t q, uint64_t n, double timeout_s) {
  double end = itest_now() + timeout_s;
  uint64_t k;
  while ((k = count_of(c, q)) != n && itest_now() < end)
    itest_sleep_ms(5);
  if (k != n)
    fprintf(stderr, "queue holds %" PRIu64 " items, expected %" PRIu64 "\n", k, n);
  return k == n;
}

/* Puts first..first+n-1 into queue q, in batches. */
static bool fill(quac_conn_t *c, uint64_t q, uint64_t first, uint64_t n) {
  static quac_call_t calls[512];
  static quac_result_t res[512];
  for (uint64_t done = 0; done < n;) {
    size_t k = n - done < 512 ? (size_t)(n - done) : 512;
    for (size_t i = 0; i < k; i++)
      calls[i] = (quac_call_t){.handle = q, .entry = "put", .nargs = 1, .args = {first + done + i}};
    if (quac_invoke_batch(c, calls, k, res) < 0)
      return false;
    for (size_t i = 0; i < k; i++)
      if (res[i].status != 0)
        return false;
    done += k;
  }
  return true;
}

/* Takes n items from queue q and checks they are first, first+1, ... */
static bool take_in_order(quac_conn_t *c, uint64_t q, uint64_t first, uint64_t n) {
  static quac_call_t calls[512];
  static quac_result_t res[512];
  uint64_t want = first;
  for (uint64_t done = 0; done < n;) {
    size_t k = n - done < 512 ? (size_t)(n - done) : 512;
    for (size_t i = 0; i < k; i++)
      calls[i] = (quac_call_t){.handle = q, .entry = "get"};
    if (quac_invoke_batch(c, calls, k, res) < 0)
      return false;
    for (size_t i = 0; i < k; i++, want++)
      if (res[i].status != 0 || res[i].result != want) {
        fprintf(stderr, "item %" PRIu64 ": got %" PRIu64 " (status %d)\n", want, res[i].result,
                res[i].status);
        return false;
      }
    done += k;
  }
  return true;
}

/* A number after "key=" in the link's state line (UINT64_MAX: none). */
static uint64_t field(quac_conn_t *c, uint64_t h, const char *key, char *line, size_t len) {
  quac_quaject_info_t *qi;
  if (quac_describe(c, h, NULL, &qi) < 0)
    return UINT64_MAX;
  snprintf(line, len, "%s", qi->state);
  quac_free(qi);
  char pat[32];
  snprintf(pat, sizeof pat, " %s=", key);
  const char *p = strstr(line, pat);
  return p != NULL ? strtoull(p + strlen(pat), NULL, 10) : UINT64_MAX;
}

/* Waits until the link's state line contains `text`. */
static bool wait_state(quac_conn_t *c, uint64_t h, const char *text, double timeout_s, char *line,
                       size_t len) {
  double end = itest_now() + timeout_s;
  do {
    field(c, h, "window", line, len);
    if (strstr(line, text) != NULL)
      return true;
    itest_sleep_ms(10);
  } while (itest_now() < end);
  fprintf(stderr, "link state never showed '%s': %s\n", text, line);
  return false;
}

/* A stream: N_ITEMS in a queue on A, a pump, a link, a queue on B. */
typedef struct stream {
  quac_conn_t *a, *b;
  uint64_t dst, src, link, pump;
} stream_t;

/* Makes the stream's quajects (the link with peer and up to two more
 * parameters, which may be NULL); the pump is not wired yet. */
static bool stream_make(stream_t *st, const char *dst_name, const char *peer, const char *p1,
                        const char *p2) {
  char remote[96];
  snprintf(remote, sizeof remote, "remote=%s", dst_name);
  st->a = itest_connect(&A);
  st->b = itest_connect(&B);
  if (st->a == NULL || st->b == NULL)
    return false;
  st->dst = make(st->b, "queue", dst_name, NULL, BIG_QUEUE, NULL);
  st->src = make(st->a, "queue", NULL, NULL, BIG_QUEUE, NULL);
  if (st->dst == 0 || st->src == 0 || !fill(st->a, st->src, 1, N_ITEMS))
    return false;
  st->link = make(st->a, "link", NULL, NULL, peer, remote, p1, p2, NULL);
  st->pump = make(st->a, "pump", NULL, NULL, NULL);
  return st->link != 0 && st->pump != 0;
}

static bool stream_start(stream_t *st) {
  return quac_wire(st->a, st->pump, "sink", st->link, "put") == 0 &&
         quac_wire(st->a, st->pump, "source", st->src, "get") == 0;
}

/* Every item arrived once and in order, and was acknowledged. */
static void stream_check_and_close(stream_t *st) {
  char line[512];
  char acked[64];
  snprintf(acked, sizeof acked, "inflight=0 acked=%u ", N_ITEMS);
  CU_ASSERT(wait_count(st->b, st->dst, N_ITEMS, 30));
  /* The last acknowledgement may still be on its way (or lost with a cut). */
  CU_ASSERT(wait_state(st->a, st->link, acked, 10, line, sizeof line));
  CU_ASSERT(strstr(line, "state=up") != NULL);
  CU_ASSERT(take_in_order(st->b, st->dst, 1, N_ITEMS));
  CU_ASSERT_EQUAL(count_of(st->b, st->dst), 0);
  CU_ASSERT_EQUAL(quac_destroy(st->b, st->dst, true), 0);
  quac_close(st->a);
  quac_close(st->b);
}

static void carry_items(const char *peer, const char *token_file) {
  stream_t st;
  CU_ASSERT_FATAL(stream_make(&st, "carry-dst", peer, token_file, NULL));
  CU_ASSERT_FATAL(stream_start(&st));
  CU_ASSERT(wait_count(st.b, st.dst, N_ITEMS, 30));
  char line[512];
  CU_ASSERT_EQUAL(field(st.a, st.link, "dups", line, sizeof line), 0);
  /* A healthy link sends nothing twice (under a sanitizer a reply may take
   * longer than the link's patience, which then resends, rightly). */
  if (!QTEST_SANITIZED)
    CU_ASSERT_EQUAL(field(st.a, st.link, "resent", line, sizeof line), 0);
  quac_stats_t stats;
  CU_ASSERT_EQUAL(quac_stats(st.a, &stats), 0);
  CU_ASSERT_EQUAL(stats.links, 1);
  CU_ASSERT(stats.link_items_acked >= N_ITEMS);
  stream_check_and_close(&st);
}

/* Puts (tag << 32) + 1.. into queue q. */
static bool fill_tagged(quac_conn_t *c, uint64_t q, uint64_t tag, uint64_t n) {
  return fill(c, q, (tag << 32) + 1, n);
}

/* --- Cases ------------------------------------------------------------------------- */

static void link_carries_100k_items_once_in_order_over_unix(void) { carry_items(b_unix, NULL); }

static void link_carries_100k_items_once_in_order_over_tcp_with_token(void) {
  char tf[160];
  snprintf(tf, sizeof tf, "token-file=%s", token_path);
  carry_items(b_tcp, tf);
}

typedef struct heard {
  uint64_t binding[4];
  int n[4];
  char order[64];
  int norder;
} heard_t;

static void on_heard(void *ctx, quac_conn_t *c, const quac_event_t *ev) {
  heard_t *h = ctx;
  for (int i = 0; i < 4; i++)
    if (ev->binding == h->binding[i]) {
      h->n[i]++;
      if (h->norder < (int)sizeof h->order - 1)
        h->order[h->norder++] = (char)('0' + i);
    }
}

/* The remote queue holds 4, the window 4. Puts go until the peer reports
 * the queue full (4 applied, up to 4 in flight); from then on a put is
 * refused with "full", though the window has room; taking from the remote
 * queue gives "notfull" once, and everything arrives in order. */
static void remote_full_raises_full_then_notfull(void) {
  quac_conn_t *a = itest_connect(&A), *b = itest_connect(&B);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  uint64_t dst = make(b, "queue", "small-dst", NULL, "capacity=4", NULL);
  char tf[160];
  snprintf(tf, sizeof tf, "token-file=%s", token_path);
  uint64_t link = make(a, "link", NULL, NULL, b_tcp, "remote=small-dst", "window=4", tf, NULL);
  CU_ASSERT_FATAL(dst != 0 && link != 0);
  heard_t h = {0};
  quac_on_event(a, on_heard, &h);
  CU_ASSERT_EQUAL(quac_bind_callback(a, link, "notfull", &h.binding[0]), 0);
  char line[512];
  CU_ASSERT_FATAL(wait_state(a, link, "state=up", 5, line, sizeof line));
  quac_result_t r;
  /* Put until the link has heard the remote refuse: a put refused before
   * that found the window exhausted (acknowledgements not back yet) and is
   * tried again. */
  uint64_t v = 1;
  double end = itest_now() + 5;
  while (itest_now() < end) {
    int s = quac_invoke(a, link, "put", &v, 1, &r);
    if (s == 0) {
      v++;
      continue;
    }
    CU_ASSERT_EQUAL_FATAL(s, QUA_DIVERTED);
    if (wait_state(a, link, "remote=full", 0.05, line, sizeof line))
      break;
  }
  uint64_t accepted = v - 1, next = v;
  /* 4 applied; the 5th refused by B; at most a window more in flight */
  CU_ASSERT_FATAL(accepted >= 5 && accepted <= 8);
  CU_ASSERT(wait_state(a, link, "acked=4", 5, line, sizeof line));
  CU_ASSERT(strstr(line, "remote=full") != NULL);
  quac_poll(a, 100);
  h.n[0] = 0;
  CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &next, 1, &r), QUA_DIVERTED);
  CU_ASSERT_EQUAL(r.nfired, 1);
  CU_ASSERT_STRING_EQUAL(r.fired[0].callback, "full");
  CU_ASSERT_EQUAL(r.fired[0].arg, next);
  quac_poll(a, 100);
  CU_ASSERT_EQUAL(h.n[0], 0);
  /* Room on B: the peer tells the link, which resends 5.. and gets credits back. */
  CU_ASSERT(take_in_order(b, dst, 1, 4));
  end = itest_now() + 5;
  while (h.n[0] == 0 && itest_now() < end)
    quac_poll(a, 50);
  CU_ASSERT_EQUAL(h.n[0], 1);
  char want[64];
  snprintf(want, sizeof want, "inflight=0 acked=%" PRIu64, accepted);
  CU_ASSERT(wait_state(a, link, want, 5, line, sizeof line));
  CU_ASSERT(wait_count(b, dst, accepted - 4, 5));
  CU_ASSERT(take_in_order(b, dst, 5, accepted - 4));
  CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &next, 1, &r), 0);
  CU_ASSERT(wait_count(b, dst, 1, 5));
  CU_ASSERT(take_in_order(b, dst, next, 1));
  snprintf(want, sizeof want, "inflight=0 acked=%" PRIu64, next);
  CU_ASSERT(wait_state(a, link, want, 5, line, sizeof line));
  CU_ASSERT_EQUAL(quac_destroy(b, dst, true), 0);
  quac_close(a);
  quac_close(b);
}

/* A target that says full but never notfull (a tee in front of a small
 * queue): the link polls it and still delivers everything, in order. */
static void full_target_without_notfull_is_polled(void) {
  quac_conn_t *a = itest_connect(&A), *b = itest_connect(&B);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  uint64_t tee = make(b, "tee", "poll-tee", NULL, "n=1", NULL);
  uint64_t q = make(b, "queue", NULL, NULL, "capacity=2", NULL);
  CU_ASSERT_FATAL(tee != 0 && q != 0);
  CU_ASSERT_EQUAL_FATAL(quac_wire(b, tee, "out0", q, "put"), 0);
  uint64_t link = make(a, "link", NULL, NULL, b_unix, "remote=poll-tee", "window=16", NULL);
  CU_ASSERT_FATAL(link != 0);
  /* A producer offers 1..6; a put that hears "full" (the window, or the
   * remote refused) is offered again after a consumer on B took what is
   * there, checking the order. */
  uint64_t v = 1, want = 1;
  char line[512];
  double end = itest_now() + 10;
  while (want <= 6 && itest_now() < end) {
    if (v <= 6 && quac_invoke(a, link, "put", &v, 1, NULL) == 0) {
      v++;
      continue;
    }
    uint64_t k = count_of(b, q);
    if (k != 0 && k != UINT64_MAX) {
      CU_ASSERT_FATAL(take_in_order(b, q, want, k));
      want += k;
    } else {
      itest_sleep_ms(5);
    }
  }
  CU_ASSERT_EQUAL(want, 7);
  CU_ASSERT(wait_state(a, link, "inflight=0 acked=6", 5, line, sizeof line));
  /* The queue holds 2 and the first 6 went at once: the tee refused some,
   * and the link's polls sent them again. */
  uint64_t resent = field(a, link, "resent", line, sizeof line);
  CU_ASSERT(resent > 0 && resent != UINT64_MAX);
  CU_ASSERT_EQUAL(quac_destroy(b, tee, true), 0);
  quac_close(a);
  quac_close(b);
}

/* A TCP relay the test can cut: the link talks to B through it. */
typedef struct relay {
  int lfd, wake[2];
  unsigned port, target;
  _Atomic int cut_req, cuts, accepted;
  _Atomic bool stop, mute; /* mute: A's pushes are read and dropped */
  pthread_t thread;
} relay_t;

static bool relay_pass(int from, int to, bool drop) {
  char buf[65536];
  ssize_t n = read(from, buf, sizeof buf);
  if (n <= 0)
    return false;
  if (drop)
    return true;
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(to, buf + off, (size_t)(n - off));
    if (w <= 0)
      return false;
    off += w;
  }
  return true;
}

static void *relay_main(void *arg) {
  relay_t *r = arg;
  while (!atomic_load(&r->stop)) {
    struct pollfd lp[2] = {{.fd = r->lfd, .events = POLLIN}, {.fd = r->wake[0], .events = POLLIN}};
    if (poll(lp, 2, 1000) <= 0 || !(lp[0].revents & POLLIN))
      continue;
    int c = accept(r->lfd, NULL, NULL);
    if (c < 0)
      continue;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)r->target),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
      close(c);
      if (s >= 0)
        close(s);
      continue;
    }
    atomic_fetch_add(&r->accepted, 1);
    for (;;) {
      struct pollfd p[3] = {{.fd = c, .events = POLLIN}, {.fd = s, .events = POLLIN},
                            {.fd = r->wake[0], .events = POLLIN}};
      if (poll(p, 3, 1000) < 0)
        break;
      if (p[2].revents & POLLIN) {
        char x;
        if (read(r->wake[0], &x, 1) < 0)
          break;
        if (atomic_load(&r->stop) || atomic_exchange(&r->cut_req, 0)) {
          atomic_fetch_add(&r->cuts, 1);
          break;
        }
      }
      if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !relay_pass(c, s, atomic_load(&r->mute)))
        break;
      if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !relay_pass(s, c, false))
        break;
    }
    /* An abortive close (RST), as a killed connection looks. */
    struct linger lg = {1, 0};
    setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(c);
    close(s);
    atomic_store(&r->mute, false);
  }
  return NULL;
}

static int relay_start(relay_t *r, unsigned target) {
  memset(r, 0, sizeof *r);
  r->target = target;
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof sa;
  r->lfd = socket(AF_INET, SOCK_STREAM, 0);
  if (r->lfd < 0 || bind(r->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(r->lfd, 4) < 0 ||
      getsockname(r->lfd, (struct sockaddr *)&sa, &len) < 0 || pipe(r->wake) < 0)
    return -1;
  r->port = ntohs(sa.sin_port);
  return pthread_create(&r->thread, NULL, relay_main, r) == 0 ? 0 : -1;
}

static void relay_poke(relay_t *r) {
  if (write(r->wake[1], "x", 1) < 0)
    perror("relay");
}

static void relay_stop(relay_t *r) {
  atomic_store(&r->stop, true);
  relay_poke(r);
  pthread_join(r->thread, NULL);
  close(r->lfd);
  close(r->wake[0]);
  close(r->wake[1]);
}

/* Cutting the TCP connection mid-stream, after the link's pushes were lost
 * for a while (as on a dying path): down, up, the items lost resent,
 * everything once and in order. */
static void killed_connection_resends_without_duplicates(void) {
  relay_t relay;
  CU_ASSERT_FATAL(relay_start(&relay, b_port) == 0);
  char peer[64], tf[160], line[512];
  snprintf(peer, sizeof peer, "peer=127.0.0.1:%u", relay.port);
  snprintf(tf, sizeof tf, "token-file=%s", token_path);
  stream_t st;
  CU_ASSERT_FATAL(stream_make(&st, "cut-dst", peer, "window=256", tf));
  quac_conn_t *a = st.a, *b = st.b;
  uint64_t link = st.link, dst = st.dst;
  CU_ASSERT_FATAL(wait_state(a, link, "state=up", 5, line, sizeof line));
  heard_t h = {0};
  quac_on_event(a, on_heard, &h);
  CU_ASSERT_EQUAL(quac_bind_callback(a, link, "down", &h.binding[1]), 0);
  CU_ASSERT_EQUAL(quac_bind_callback(a, link, "up", &h.binding[2]), 0);
  CU_ASSERT_FATAL(stream_start(&st));
  /* Cut while items are in flight, until a cut caught some (at most 10). */
  int cuts = 0;
  while (cuts < 10 && count_of(b, dst) < N_ITEMS * 9 / 10) {
    if (field(a, link, "inflight", line, sizeof line) == 0 || strstr(line, "state=up") == NULL) {
      itest_sleep_ms(1);
      continue;
    }
    atomic_store(&relay.mute, true);
    itest_sleep_ms(20);
    atomic_store(&relay.cut_req, 1);
    relay_poke(&relay);
    cuts++;
    if (cuts >= 3 && field(a, link, "resent", line, sizeof line) > 0)
      break;
    wait_state(a, link, "state=up", 10, line, sizeof line);
  }
  CU_ASSERT(cuts >= 1);
  CU_ASSERT(wait_count(b, dst, N_ITEMS, 30));
  CU_ASSERT(field(a, link, "resent", line, sizeof line) > 0);
  /* Each cut was heard as down, then up. */
  quac_poll(a, 100);
  CU_ASSERT(h.n[1] >= 1);
  CU_ASSERT_EQUAL(h.n[2], h.n[1]);
  for (int i = 0; i < h.norder; i++)
    CU_ASSERT_EQUAL(h.order[i], i % 2 == 0 ? '1' : '2');
  CU_ASSERT(atomic_load(&relay.accepted) >= 2);
  stream_check_and_close(&st);
  relay_stop(&relay);
}

/* Two pumps put into one link from two threads at once (its put runs the
 * multi-producer path): every item arrives once, each pump's in its order. */
static void two_pumps_into_one_link_keep_each_order(void) {
  quac_conn_t *a = itest_connect(&A), *b = itest_connect(&B);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  const uint64_t n = N_ITEMS / 2;
  uint64_t dst = make(b, "queue", "mp-dst", NULL, BIG_QUEUE, NULL);
  uint64_t link = make(a, "link", NULL, NULL, b_unix, "remote=mp-dst", "window=128", NULL);
  CU_ASSERT_FATAL(dst != 0 && link != 0);
  uint64_t src[2], pump[2];
  for (int k = 0; k < 2; k++) {
    src[k] = make(a, "queue", NULL, NULL, BIG_QUEUE, NULL);
    pump[k] = make(a, "pump", NULL, NULL, NULL);
    CU_ASSERT_FATAL(src[k] != 0 && pump[k] != 0 && fill_tagged(a, src[k], (uint64_t)k + 1, n));
    CU_ASSERT_EQUAL(quac_wire(a, pump[k], "sink", link, "put"), 0);
  }
  for (int k = 0; k < 2; k++)
    CU_ASSERT_EQUAL(quac_wire(a, pump[k], "source", src[k], "get"), 0);
  CU_ASSERT_FATAL(wait_count(b, dst, 2 * n, 30));
  static quac_call_t calls[512];
  static quac_result_t res[512];
  uint64_t next[3] = {0, 1, 1}, bad = 0;
  for (uint64_t done = 0; done < 2 * n; done += 512) {
    size_t k = 2 * n - done < 512 ? (size_t)(2 * n - done) : 512;
    for (size_t i = 0; i < k; i++)
      calls[i] = (quac_call_t){.handle = dst, .entry = "get"};
    CU_ASSERT_FATAL(quac_invoke_batch(b, calls, k, res) == 0);
    for (size_t i = 0; i < k; i++) {
      uint64_t tag = res[i].result >> 32, seq = res[i].result & 0xffffffffu;
      if (res[i].status != 0 || tag < 1 || tag > 2 || seq != next[tag])
        bad++;
      else
        next[tag]++;
    }
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(next[1], n + 1);
  CU_ASSERT_EQUAL(next[2], n + 1);
  CU_ASSERT_EQUAL(count_of(b, dst), 0);
  char line[512], acked[64];
  snprintf(acked, sizeof acked, "inflight=0 acked=%" PRIu64 " ", 2 * n);
  CU_ASSERT(wait_state(a, link, acked, 10, line, sizeof line));
  CU_ASSERT_EQUAL(quac_destroy(b, dst, true), 0);
  quac_close(a);
  quac_close(b);
}

/* Refused creations name the problem and create nothing. */
static void bad_parameters_are_refused_and_create_nothing(void) {
  quac_conn_t *a = itest_connect(&A);
  CU_ASSERT_FATAL(a != NULL);
  char tf[160], otf[160], dir[96], peer[64];
  snprintf(tf, sizeof tf, "token-file=%s", token_path);
  snprintf(otf, sizeof otf, "token-file=%s", open_token_path);
  snprintf(dir, sizeof dir, "token-file=%s", tokdir);
  snprintf(peer, sizeof peer, "%s", b_tcp);
  const struct {
    const char *params[4];
    int code;
    const char *says;
  } bad[] = {
      {{"remote=dst", tf}, QUA_EINVAL, "link needs peer="},
      {{peer, tf}, QUA_EINVAL, "link needs remote="},
      {{"peer=127.0.0.1:0", "remote=dst", tf}, QUA_EBADVALUE, "port '0'"},
      {{"peer=127.0.0.1:65536", "remote=dst", tf}, QUA_EBADVALUE, "port '65536'"},
      {{"peer=127.0.0.1:http", "remote=dst", tf}, QUA_EBADVALUE, "port 'http'"},
      {{"peer=localhost", "remote=dst", tf}, QUA_EBADVALUE, "expected HOST:PORT or unix:PATH"},
      {{"peer=unix:", "remote=dst"}, QUA_EBADVALUE, "socket path"},
      {{peer, "remote=dst"}, QUA_EINVAL, "needs token-file"},
      {{peer, "remote=dst", "token-file=/nonexistent/token"}, QUA_EINVAL, "cannot open token file"},
      {{peer, "remote=dst", dir}, QUA_EINVAL, "not a regular file"},
      {{peer, "remote=dst", otf}, QUA_EINVAL, "accessible to others"},
      {{peer, "remote=dst", tf, "window=0"}, QUA_ERANGE, "window=0: out of range 1..65536"},
      {{peer, "remote=dst", tf, "window=65537"}, QUA_ERANGE, "window=65537: out of range"},
      {{peer, "remote=a.b", tf}, QUA_EBADVALUE, "remote=a.b"},
      {{peer, "remote=dst", tf, "colour=red"}, QUA_ENOPARAM, "no parameter 'colour'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t n = 0;
    while (n < 4 && bad[i].params[n] != NULL)
      n++;
    uint64_t h = 0;
    int r = quac_create(a, "link", bad[i].params, n, NULL, &h, NULL);
    CU_ASSERT_EQUAL(r, bad[i].code);
    if (strstr(quac_last_error(a), bad[i].says) == NULL) {
      fprintf(stderr, "case %zu: '%s' does not say '%s'\n", i, quac_last_error(a), bad[i].says);
      CU_FAIL("the error does not name the problem");
    }
  }
  quac_quaject_list_t *l;
  CU_ASSERT_EQUAL_FATAL(quac_list(a, &l), 0);
  CU_ASSERT_EQUAL(l->nquajects, 0);
  quac_free(l);
  /* The links of the cases before go with their connections, by the
   * daemon's worker, a moment after those closed: none is left once it is
   * done, and none of the refused ones was made. */
  quac_stats_t st;
  double until = itest_now() + 10.0;
  while (quac_stats(a, &st) == 0 && st.links != 0 && itest_now() < until)
    itest_sleep_ms(10);
  CU_ASSERT_EQUAL(quac_stats(a, &st), 0);
  CU_ASSERT_EQUAL(st.links, 0);
  /* At the limit: accepted. */
  const char *ok[] = {peer, "remote=dst", tf, "window=65536"};
  uint64_t h;
  CU_ASSERT_EQUAL(quac_create(a, "link", ok, 4, NULL, &h, NULL), 0);
  CU_ASSERT_EQUAL(quac_destroy(a, h, false), 0);
  quac_close(a);
}

/* A wrong token: the link is down and says why (made and shown with qua). */
static void wrong_token_gives_down_with_reason(void) {
  quac_conn_t *a = itest_connect(&A), *b = itest_connect(&B);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  uint64_t dst = make(b, "queue", "tok-dst", NULL, NULL);
  char tf[160], line[512];
  snprintf(tf, sizeof tf, "token-file=%s", wrong_token_path);
  itest_out_t o;
  CU_ASSERT_EQUAL(itest_qua(&o, &A, "create", "link", "wrong", b_tcp, "remote=tok-dst", tf, NULL), 0);
  quac_opened_t op;
  CU_ASSERT_EQUAL_FATAL(quac_open(a, "wrong", &op), 0);
  uint64_t link = op.handle;
  CU_ASSERT_FATAL(dst != 0);
  CU_ASSERT(wait_state(a, link, "state=down", 5, line, sizeof line));
  CU_ASSERT(strstr(line, "why=\"peer refused the token: wrong token (EAUTH)\"") != NULL);
  CU_ASSERT_EQUAL(itest_qua(&o, &A, "show", "wrong", NULL), 0);
  CU_ASSERT(strstr(o.out, "state=down") != NULL && strstr(o.out, "wrong token") != NULL);
  CU_ASSERT(strstr(o.out, "param:   window=1024") != NULL);
  CU_ASSERT(strstr(o.out, "param:   peer") == NULL); /* text: in the state line */
  CU_ASSERT_EQUAL(itest_qua(&o, &A, "ls", NULL), 0);
  CU_ASSERT(strstr(o.out, "wrong") != NULL && strstr(o.out, "link") != NULL);
  CU_ASSERT_EQUAL(itest_qua(&o, &A, "types", "link", NULL), 0);
  CU_ASSERT(strstr(o.out, "param    peer=TEXT (1..255 characters, required)") != NULL);
  uint64_t v = 1;
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, &r), 0); /* kept for when it is up */
  CU_ASSERT_EQUAL(count_of(b, dst), 0);
  CU_ASSERT_EQUAL(quac_destroy(a, link, false), 0);
  CU_ASSERT_EQUAL(quac_destroy(b, dst, true), 0);
  quac_close(a);
  quac_close(b);
}

/* A peer named by host name: resolved (here from /etc/hosts), then connected. */
static void peer_by_name_is_resolved(void) {
  quac_conn_t *a = itest_connect(&A), *b = itest_connect(&B);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  uint64_t dst = make(b, "queue", "named-dst", NULL, NULL);
  char peer[64], tf[160], line[512];
  snprintf(peer, sizeof peer, "peer=localhost:%u", b_port);
  snprintf(tf, sizeof tf, "token-file=%s", token_path);
  uint64_t link = make(a, "link", NULL, NULL, peer, "remote=named-dst", tf, NULL);
  CU_ASSERT_FATAL(dst != 0 && link != 0);
  CU_ASSERT(wait_state(a, link, "state=up", 5, line, sizeof line));
  uint64_t v = 42;
  CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, NULL), 0);
  CU_ASSERT(wait_count(b, dst, 1, 5));
  CU_ASSERT(take_in_order(b, dst, 42, 1));
  CU_ASSERT_EQUAL(quac_destroy(b, dst, true), 0);
  quac_close(a);
  quac_close(b);
}

/* The target published under another name than asked: down, and why; up
 * once it exists, with what was put meanwhile. */
static void missing_remote_gives_down_then_up_when_published(void) {
  quac_conn_t *a = itest_connect(&A), *b = itest_connect(&B);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  char line[512];
  uint64_t link = make(a, "link", NULL, NULL, b_unix, "remote=later", NULL);
  CU_ASSERT_FATAL(link != 0);
  CU_ASSERT(wait_state(a, link, "state=down", 5, line, sizeof line));
  CU_ASSERT(strstr(line, "no quaject is published as 'later'") != NULL);
  for (uint64_t v = 1; v <= 3; v++)
    CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, NULL), 0);
  uint64_t dst = make(b, "queue", "later", NULL, NULL);
  CU_ASSERT_FATAL(dst != 0);
  CU_ASSERT(wait_state(a, link, "state=up", 10, line, sizeof line));
  CU_ASSERT(wait_count(b, dst, 3, 5));
  CU_ASSERT(take_in_order(b, dst, 1, 3));
  CU_ASSERT_EQUAL(quac_destroy(b, dst, true), 0);
  quac_close(a);
  quac_close(b);
}

/* A receiver that stops answering (SIGSTOP) is taken for dead after a
 * second: down; the window fills and puts hear full; after SIGCONT the
 * link is up again, notfull comes, and every item arrived once, in order. */
static void stopped_receiver_gives_full_down_then_up_notfull(void) {
  itest_daemon_t C;
  CU_ASSERT_FATAL(itest_start(&C, (char *)NULL) == 0);
  quac_conn_t *a = itest_connect(&A), *c = itest_connect(&C);
  CU_ASSERT_FATAL(a != NULL && c != NULL);
  uint64_t dst = make(c, "queue", "stopped", NULL, "capacity=1024", NULL);
  char peer[200], line[512];
  snprintf(peer, sizeof peer, "peer=unix:%s", C.sock);
  uint64_t link = make(a, "link", NULL, NULL, peer, "remote=stopped", "window=64", NULL);
  CU_ASSERT_FATAL(dst != 0 && link != 0);
  CU_ASSERT_FATAL(wait_state(a, link, "state=up", 5, line, sizeof line));
  heard_t h = {0};
  quac_on_event(a, on_heard, &h);
  CU_ASSERT_EQUAL(quac_bind_callback(a, link, "notfull", &h.binding[0]), 0);
  CU_ASSERT_EQUAL(quac_bind_callback(a, link, "down", &h.binding[1]), 0);
  CU_ASSERT_EQUAL(quac_bind_callback(a, link, "up", &h.binding[2]), 0);
  uint64_t v = 1;
  quac_result_t r;
  for (; v <= 64; v++)
    CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, &r), 0);
  CU_ASSERT(wait_state(a, link, "acked=64", 5, line, sizeof line));
  kill(C.pid, SIGSTOP);
  for (; v <= 128; v++)
    CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, &r), 0);
  CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, &r), QUA_DIVERTED);
  CU_ASSERT(r.nfired == 1 && strcmp(r.fired[0].callback, "full") == 0);
  double end = itest_now() + 5;
  while (h.n[1] == 0 && itest_now() < end)
    quac_poll(a, 50);
  CU_ASSERT_EQUAL(h.n[1], 1); /* down, after about a second */
  CU_ASSERT_EQUAL(h.n[0], 0);
  field(a, link, "window", line, sizeof line);
  CU_ASSERT(strstr(line, "no reply from the peer") != NULL || strstr(line, "no answer from") != NULL);
  kill(C.pid, SIGCONT);
  end = itest_now() + 10;
  while ((h.n[2] == 0 || h.n[0] == 0) && itest_now() < end)
    quac_poll(a, 50);
  CU_ASSERT(h.n[2] >= 1);
  CU_ASSERT(h.n[0] >= 1);
  CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, &r), 0);
  CU_ASSERT(wait_count(c, dst, 129, 5));
  CU_ASSERT(take_in_order(c, dst, 1, 129));
  CU_ASSERT_EQUAL(count_of(c, dst), 0);
  CU_ASSERT(wait_state(a, link, "inflight=0 acked=129", 5, line, sizeof line));
  quac_close(a);
  quac_close(c);
  CU_ASSERT(itest_stop_clean(&C));
}

/* The receiving quad restarts: what it acknowledged went with it (items
 * are applied once while the receiving quad lives); what it had not is
 * sent to the new one, in order, once the target is published again. */
static void restarted_receiver_gets_what_was_not_acknowledged(void) {
  itest_daemon_t C;
  CU_ASSERT_FATAL(itest_start(&C, (char *)NULL) == 0);
  quac_conn_t *a = itest_connect(&A), *c = itest_connect(&C);
  CU_ASSERT_FATAL(a != NULL && c != NULL);
  CU_ASSERT_FATAL(make(c, "queue", "rq", NULL, NULL) != 0);
  quac_close(c);
  char peer[200], line[512];
  snprintf(peer, sizeof peer, "peer=unix:%s", C.sock);
  uint64_t link = make(a, "link", NULL, NULL, peer, "remote=rq", "window=64", NULL);
  CU_ASSERT_FATAL(link != 0);
  uint64_t v = 1;
  for (; v <= 10; v++)
    CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, NULL), 0);
  CU_ASSERT(wait_state(a, link, "acked=10", 5, line, sizeof line));
  kill(C.pid, SIGTERM);
  CU_ASSERT(wait_state(a, link, "state=down", 5, line, sizeof line));
  for (; v <= 20; v++)
    CU_ASSERT_EQUAL(quac_invoke(a, link, "put", &v, 1, NULL), 0);
  CU_ASSERT_FATAL(itest_restart(&C, (char *)NULL) == 0);
  c = itest_connect(&C);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t dst = make(c, "queue", "rq", NULL, NULL);
  CU_ASSERT_FATAL(dst != 0);
  CU_ASSERT(wait_state(a, link, "inflight=0 acked=20", 10, line, sizeof line));
  CU_ASSERT(strstr(line, "state=up") != NULL);
  CU_ASSERT(wait_count(c, dst, 10, 5));
  CU_ASSERT(take_in_order(c, dst, 11, 10));
  quac_close(a);
  quac_close(c);
  CU_ASSERT(itest_stop_clean(&C));
}

/* The peer serves --max-links links: at the limit all connected, one more
 * is refused; once one goes, the waiting link gets in. */
static void peer_link_limit_refuses_then_admits(void) {
  itest_daemon_t C;
  CU_ASSERT_FATAL(itest_start(&C, "--max-links", "2", (char *)NULL) == 0);
  quac_conn_t *a = itest_connect(&A), *c = itest_connect(&C);
  CU_ASSERT_FATAL(a != NULL && c != NULL);
  CU_ASSERT_FATAL(make(c, "queue", "lim", NULL, NULL) != 0);
  char peer[200], line[512];
  snprintf(peer, sizeof peer, "peer=unix:%s", C.sock);
  uint64_t l1 = make(a, "link", NULL, NULL, peer, "remote=lim", NULL);
  uint64_t l2 = make(a, "link", NULL, NULL, peer, "remote=lim", NULL);
  CU_ASSERT(wait_state(a, l1, "state=up", 5, line, sizeof line));
  CU_ASSERT(wait_state(a, l2, "state=up", 5, line, sizeof line));
  uint64_t l3 = make(a, "link", NULL, NULL, peer, "remote=lim", NULL);
  CU_ASSERT(wait_state(a, l3, "state=down", 5, line, sizeof line));
  CU_ASSERT(strstr(line, "serves 2 links, the limit (--max-links)") != NULL);
  CU_ASSERT_EQUAL(quac_destroy(a, l1, false), 0);
  CU_ASSERT(wait_state(a, l3, "state=up", 10, line, sizeof line));
  uint64_t v = 7;
  CU_ASSERT_EQUAL(quac_invoke(a, l3, "put", &v, 1, NULL), 0);
  CU_ASSERT(wait_state(a, l3, "acked=1", 5, line, sizeof line));
  quac_close(a);
  quac_close(c);
  CU_ASSERT(itest_stop_clean(&C));
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 2;
  snprintf(tokdir, sizeof tokdir, "/tmp/qua-link-tok-XXXXXX");
  if (mkdtemp(tokdir) == NULL)
    return 2;
  snprintf(token_path, sizeof token_path, "%s/token", tokdir);
  snprintf(wrong_token_path, sizeof wrong_token_path, "%s/wrong", tokdir);
  snprintf(open_token_path, sizeof open_token_path, "%s/open", tokdir);
  write_file(token_path, "s3cret-link-token\n", 0600);
  write_file(wrong_token_path, "not-the-token\n", 0600);
  write_file(open_token_path, "s3cret-link-token\n", 0644);
  b_port = free_port();
  char listen[64], tokarg[160];
  snprintf(listen, sizeof listen, "127.0.0.1:%u", b_port);
  snprintf(tokarg, sizeof tokarg, "%s", token_path);
  int rc = 1;
  if (itest_start(&B, "--listen", listen, "--token-file", tokarg, (char *)NULL) < 0 ||
      itest_start(&A, (char *)NULL) < 0)
    goto out;
  snprintf(b_unix, sizeof b_unix, "peer=unix:%s", B.sock);
  snprintf(b_tcp, sizeof b_tcp, "peer=127.0.0.1:%u", b_port);
  static const qtest_case_t tests[] = {
      {"link_carries_100k_items_once_in_order_over_unix",
       link_carries_100k_items_once_in_order_over_unix},
      {"link_carries_100k_items_once_in_order_over_tcp_with_token",
       link_carries_100k_items_once_in_order_over_tcp_with_token},
      {"remote_full_raises_full_then_notfull", remote_full_raises_full_then_notfull},
      {"full_target_without_notfull_is_polled", full_target_without_notfull_is_polled},
      {"killed_connection_resends_without_duplicates", killed_connection_resends_without_duplicates},
      {"two_pumps_into_one_link_keep_each_order", two_pumps_into_one_link_keep_each_order},
      {"bad_parameters_are_refused_and_create_nothing",
       bad_parameters_are_refused_and_create_nothing},
      {"wrong_token_gives_down_with_reason", wrong_token_gives_down_with_reason},
      {"peer_by_name_is_resolved", peer_by_name_is_resolved},
      {"missing_remote_gives_down_then_up_when_published",
       missing_remote_gives_down_then_up_when_published},
      {"peer_link_limit_refuses_then_admits", peer_link_limit_refuses_then_admits},
      {"restarted_receiver_gets_what_was_not_acknowledged",
       restarted_receiver_gets_what_was_not_acknowledged},
      {"stopped_receiver_gives_full_down_then_up_notfull",
       stopped_receiver_gives_full_down_then_up_notfull},
      {NULL, NULL},
  };
  rc = qtest_run("link", tests);
  if (rc != 0) {
    itest_dump_log(&A);
    itest_dump_log(&B);
  }
out:
  if (!itest_stop_clean(&A))
    rc = 1;
  if (!itest_stop_clean(&B))
    rc = 1;
  itest_rm_rf(tokdir);
  return rc;
}
