/* metrics.c -- quad's Prometheus endpoint: GET /metrics on --metrics-listen HOST:PORT.
 *
 * Design notes
 *
 * 1. One libuv TCP listener on the loop thread. A scrape is one exchange:
 *    quad reads the request head (at most QUAD_METRICS_HEAD bytes, within
 *    QUAD_METRICS_TIMEOUT_MS), answers, and closes. GET /metrics (or /)
 *    gets the text format 0.0.4; another path 404, another method 405, a
 *    head too long 431. At most QUAD_METRICS_CONNS scrapers at a time: one
 *    more is closed at once, so scrapes cannot hold the daemon's memory.
 * 2. Each quaject contributes the numbers of its state line
 *    (qua_quaject_describe: KEY=N words) as samples of
 *    qua_quaject_value{id,name,type,key}. Describe takes libqua's control
 *    lock, which a control job may hold across a grace period or a thread
 *    join, so the lines are read by a job of the control lane (work.c) and
 *    the loop never waits for it: the loop takes the object list at the
 *    scrape (each object stays alive until the job has run, work.c note 3;
 *    a link's line is the loop's own data and is taken then), the worker
 *    reads the lines, and the job's done builds the body from them and the
 *    loop's counters, then answers. A scrape that closes meanwhile leaves
 *    its job to be freed when it ends.
 * 3. Requests are counted by method and status as their responses are
 *    queued (quad_metrics_reply, from dispatch.c), protocol refusals of
 *    frames that named no valid method under method="(invalid)".
 * 4. The endpoint has no token: it listens only where --metrics-listen
 *    says, and quad warns when that is not a loopback address.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "quad-internal.h"

#define QUAD_METRICS_HEAD 4096
#define QUAD_METRICS_TIMEOUT_MS 5000
#define QUAD_METRICS_CONNS 8
/* Statuses counted by name: 0 (OK), 1 (DIVERTED), and the negative codes
 * of the table down to -QUAD_METRICS_CODES; any other is "other". */
#define QUAD_METRICS_CODES 64
#define QUAD_METRICS_METHODS 64

typedef struct scrape {
  uv_tcp_t tcp;
  uv_timer_t timer;
  char head[QUAD_METRICS_HEAD];
  size_t len;
  int closing; /* handles still to close */
  struct mjob *job; /* the job reading the state lines, or NULL */
  LIST_ENTRY(scrape) link; /* in scrapes */
} scrape_t;

static uv_tcp_t listener;
static bool listening;
static unsigned nscrapes;
static LIST_HEAD(, scrape) scrapes = LIST_HEAD_INITIALIZER(scrapes); /* closed with the listener */
/* [method][status index]: index 0 OK, 1 DIVERTED, 2+k code -(k+1), last other. */
static uint64_t replies[QUAD_METRICS_METHODS + 1][QUAD_METRICS_CODES + 3];

void quad_metrics_reply(uint32_t method, int status) {
  unsigned m = method < QUAD_METRICS_METHODS ? method : QUAD_METRICS_METHODS;
  unsigned s = status == 0   ? 0
               : status == 1 ? 1
               : status < 0 && -status <= QUAD_METRICS_CODES ? (unsigned)(1 - status)
                                                             : QUAD_METRICS_CODES + 2;
  replies[m][s]++;
}

/* A growing text buffer; on allocation failure it stops growing and
 * says so (the scrape then gets 500). */
typedef struct body {
  char *p;
  size_t len, cap;
  bool failed;
} body_t;

__attribute__((format(printf, 2, 3))) static void put(body_t *b, const char *fmt, ...) {
  for (;;) {
    if (b->failed)
      return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < b->cap - b->len) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap * 2 + (size_t)(n > 0 ? n : 0) + 4096;
    char *p = realloc(b->p, cap);
    if (p == NULL) {
      b->failed = true;
      return;
    }
    b->p = p;
    b->cap = cap;
    b->p[b->len] = '\0';
  }
}

/* A label value: backslash, quote and newline escaped. */
static void put_label(body_t *b, const char *s) {
  for (; *s; s++) {
    if (*s == '\\' || *s == '"')
      put(b, "\\%c", *s);
    else if (*s == '\n')
      put(b, "\\n");
    else
      put(b, "%c", *s);
  }
}

static void family(body_t *b, const char *name, const char *type, const char *help) {
  put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(body_t *b, const char *name, const char *type, const char *help, uint64_t v) {
  family(b, name, type, help);
  put(b, "%s %" PRIu64 "\n", name, v);
}

static const char *status_name(unsigned s) {
  return s == 0 ? "OK" : s == 1 ? "DIVERTED" : s == QUAD_METRICS_CODES + 2 ? "other"
                                                : qua_err_name(-(int)(s - 1));
}

/* A scrape's job: the quajects at the scrape, their lines read by the worker. */
typedef struct mquaject {
  uint64_t id;
  qua_quaject_t *q; /* NULL: the line is taken (a link's, on the loop) or none */
  char *name;       /* malloc'ed, or NULL */
  const char *type;
  char *line;       /* its state line (malloc'ed, as long as it is), or NULL */
} mquaject_t;

typedef struct mjob {
  quad_job_t j; /* first */
  scrape_t *sc; /* NULL once the scrape closed */
  bool failed;  /* a line could not be kept: out of memory */
  size_t n;
  mquaject_t s[];
} mjob_t;

static void put_quajects(body_t *b, mjob_t *mj) {
  family(b, "qua_quaject_value", "gauge",
         "the numbers of each quaject's state line (qua show), by key");
  for (size_t i = 0; i < mj->n; i++) {
    mquaject_t *m = &mj->s[i];
    if (m->line == NULL)
      continue;
    char *save = NULL;
    for (char *w = strtok_r(m->line, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
      char *eq = strchr(w, '=');
      if (eq == NULL || eq == w)
        continue;
      char *end;
      unsigned long long v = strtoull(eq + 1, &end, 10);
      if (end == eq + 1 || *end != '\0' || eq[1] == '-')
        continue;
      *eq = '\0';
      put(b, "qua_quaject_value{id=\"%" PRIu64 "\",name=\"", m->id);
      put_label(b, m->name != NULL ? m->name : "");
      put(b, "\",type=\"");
      put_label(b, m->type);
      put(b, "\",key=\"");
      put_label(b, w);
      put(b, "\"} %llu\n", v);
    }
  }
}

static void build(body_t *b, mjob_t *mj) {
  quad_server_t *s = quad_srv;
  one(b, "qua_connections", "gauge", "connections open", s->nconns);
  one(b, "qua_quajects", "gauge", "quajects the daemon runs", s->nobjs);
  one(b, "qua_threads", "gauge", "quajects with a thread of their own (pumps, clocks)",
      s->nthreads);
  one(b, "qua_uptime_seconds", "gauge", "seconds since quad started",
      (uv_now(s->loop) - s->start_ms) / 1000);
  family(b, "qua_requests_total", "counter", "responses sent, by method and status");
  for (unsigned m = 0; m <= QUAD_METRICS_METHODS; m++)
    for (unsigned st = 0; st < QUAD_METRICS_CODES + 3; st++) {
      if (replies[m][st] == 0)
        continue;
      const ProtobufCMethodDescriptor *d = m < QUAD_METRICS_METHODS ? quap_method(m) : NULL;
      put(b, "qua_requests_total{method=\"%s\",status=\"%s\"} %" PRIu64 "\n",
          d != NULL ? d->name : "(invalid)", status_name(st), replies[m][st]);
    }
  one(b, "qua_events_sent_total", "counter", "callback events and items sent to clients",
      s->events_sent);
  one(b, "qua_events_dropped_total", "counter", "events dropped past a client's bound",
      atomic_load(&s->events_dropped));
  one(b, "qua_bytes_in_total", "counter", "bytes read from clients", s->bytes_in);
  one(b, "qua_bytes_out_total", "counter", "bytes written to clients", s->bytes_out);
  one(b, "qua_links", "gauge", "link quajects", s->links);
  one(b, "qua_link_items_sent_total", "counter", "items links sent to their peers",
      s->link_items_sent);
  one(b, "qua_link_items_acked_total", "counter", "items their peers acknowledged",
      s->link_items_acked);
  uint64_t nsynth, synth_ns;
  qua_synth_totals(&nsynth, &synth_ns);
  one(b, "qua_synth_total", "counter", "methods synthesised (per site and wire)", nsynth);
  family(b, "qua_synth_seconds_total", "counter", "time spent synthesising them");
  put(b, "qua_synth_seconds_total %.9f\n", (double)synth_ns / 1e9);
  put_quajects(b, mj);
}

/* --- The exchange ----------------------------------------------------------------- */

static void on_closed(uv_handle_t *h) {
  scrape_t *sc = h->data;
  if (--sc->closing == 0) {
    if (sc->job != NULL)
      sc->job->sc = NULL; /* its done only frees it */
    LIST_REMOVE(sc, link);
    free(sc);
    nscrapes--;
  }
}

static void scrape_close(scrape_t *sc) {
  if (sc->closing != 0)
    return;
  sc->closing = 2;
  uv_close((uv_handle_t *)&sc->tcp, on_closed);
  uv_close((uv_handle_t *)&sc->timer, on_closed);
}

typedef struct answer {
  uv_write_t w;
  scrape_t *sc;
  char *buf;
} answer_t;

static void on_written(uv_write_t *w, int status) {
  answer_t *a = (answer_t *)w;
  scrape_close(a->sc);
  free(a->buf);
  free(a);
}

/* Queues the answer (a status line, headers and body) and closes after it. */
static void answer(scrape_t *sc, const char *status, const char *body, size_t len) {
  uv_read_stop((uv_stream_t *)&sc->tcp);
  uv_timer_stop(&sc->timer);
  answer_t *a = malloc(sizeof *a);
  char head[256];
  int hn = snprintf(head, sizeof head,
                    "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                    status, len);
  char *buf = a != NULL ? malloc((size_t)hn + len) : NULL;
  if (buf == NULL) {
    free(a);
    scrape_close(sc);
    return;
  }
  memcpy(buf, head, (size_t)hn);
  memcpy(buf + hn, body, len);
  a->sc = sc;
  a->buf = buf;
  uv_buf_t ub = uv_buf_init(buf, (unsigned)((size_t)hn + len));
  if (uv_write(&a->w, (uv_stream_t *)&sc->tcp, &ub, 1, on_written) < 0) {
    free(buf);
    free(a);
    scrape_close(sc);
  }
}

static void answer_text(scrape_t *sc, const char *status, const char *text) {
  answer(sc, status, text, strlen(text));
}

static void mjob_free(mjob_t *mj) {
  for (size_t i = 0; i < mj->n; i++)
    free(mj->s[i].name), free(mj->s[i].line);
  free(mj);
}

/* m's line from describe (q's type's, or libqua's under the control lock). */
static void mquaject_line(mjob_t *mj, mquaject_t *m, qua_quaject_t *q,
                          int (*describe)(const qua_quaject_t *q, char *buf, size_t len)) {
  char line[512];
  if (describe(q, line, sizeof line) >= 0 && (m->line = strdup(line)) == NULL)
    mj->failed = true;
}

/* Worker: the state lines (the control lock is the worker's to wait for). */
static void mjob_work(quad_job_t *j) {
  mjob_t *mj = (mjob_t *)j;
  for (size_t i = 0; i < mj->n; i++)
    if (mj->s[i].q != NULL)
      mquaject_line(mj, &mj->s[i], mj->s[i].q, qua_quaject_describe);
}

/* Loop: the body from the lines and the loop's counters, and the answer. */
static void mjob_done(quad_job_t *j) {
  mjob_t *mj = (mjob_t *)j;
  scrape_t *sc = mj->sc;
  if (sc != NULL) {
    sc->job = NULL;
    body_t b = {0};
    build(&b, mj);
    if (b.failed || mj->failed)
      answer_text(sc, "500 Internal Server Error", "out of memory building the metrics\n");
    else
      answer(sc, "200 OK", b.p != NULL ? b.p : "", b.len);
    free(b.p);
  }
  mjob_free(mj);
}

/* Loop: a job for sc with every quaject as it is now (design note 2). */
static mjob_t *mjob_new(scrape_t *sc) {
  size_t n = 0;
  quad_obj_t *o;
  TAILQ_FOREACH(o, &quad_srv->reg.objs, link)
    n++;
  mjob_t *mj = calloc(1, sizeof *mj + n * sizeof mj->s[0]);
  if (mj == NULL)
    return NULL;
  mj->j.work = mjob_work;
  mj->j.done = mjob_done;
  mj->sc = sc;
  TAILQ_FOREACH(o, &quad_srv->reg.objs, link) {
    mquaject_t *m = &mj->s[mj->n++];
    const qua_type_t *t = qua_quaject_type(o->q);
    m->id = o->id;
    m->type = t->name;
    if (o->name != NULL && (m->name = strdup(o->name)) == NULL) {
      mjob_free(mj);
      return NULL;
    }
    if (!quad_link_is_type(t))
      m->q = o->q;
    else if (t->ops.describe != NULL) /* the loop's own data (link.c) */
      mquaject_line(mj, m, o->q, t->ops.describe);
  }
  return mj;
}

/* The request line: GET /metrics (or /) is served. */
static void serve(scrape_t *sc) {
  char method[16], path[256];
  if (sscanf(sc->head, "%15s %255s", method, path) != 2) {
    answer_text(sc, "400 Bad Request", "not an HTTP request\n");
    return;
  }
  if (strcmp(method, "GET") != 0) {
    answer_text(sc, "405 Method Not Allowed", "only GET /metrics\n");
    return;
  }
  if (strcmp(path, "/metrics") != 0 && strcmp(path, "/") != 0) {
    answer_text(sc, "404 Not Found", "quad serves /metrics\n");
    return;
  }
  if (sc->job != NULL)
    return; /* more of the head after it was served: the answer is coming */
  mjob_t *mj = mjob_new(sc);
  if (mj == NULL) {
    answer_text(sc, "500 Internal Server Error", "out of memory building the metrics\n");
    return;
  }
  sc->job = mj;
  quad_job_submit(&mj->j, NULL, false);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  scrape_t *sc = h->data;
  buf->base = sc->head + sc->len;
  buf->len = sizeof sc->head - 1 - sc->len;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  scrape_t *sc = s->data;
  if (n < 0) {
    scrape_close(sc);
    return;
  }
  sc->len += (size_t)n;
  sc->head[sc->len] = '\0';
  if (strstr(sc->head, "\r\n\r\n") != NULL || strstr(sc->head, "\n\n") != NULL)
    serve(sc);
  else if (sc->len >= sizeof sc->head - 1)
    answer_text(sc, "431 Request Header Fields Too Large", "request head too long\n");
}

static void on_timeout(uv_timer_t *t) { scrape_close(t->data); }

static void on_connection(uv_stream_t *server, int status) {
  if (status < 0)
    return;
  scrape_t *sc = calloc(1, sizeof *sc);
  if (sc == NULL)
    return; /* the connection stays in the backlog until memory allows */
  nscrapes++;
  LIST_INSERT_HEAD(&scrapes, sc, link);
  uv_tcp_init(quad_srv->loop, &sc->tcp);
  uv_timer_init(quad_srv->loop, &sc->timer);
  sc->tcp.data = sc->timer.data = sc;
  if (uv_accept(server, (uv_stream_t *)&sc->tcp) < 0 || nscrapes > QUAD_METRICS_CONNS) {
    scrape_close(sc);
    return;
  }
  uv_timer_start(&sc->timer, on_timeout, QUAD_METRICS_TIMEOUT_MS, 0);
  uv_read_start((uv_stream_t *)&sc->tcp, on_alloc, on_read);
}

int quad_metrics_listen(const char *spec) {
  char host[128], name[64] = "?";
  unsigned port;
  struct sockaddr_storage ss;
  if (quad_parse_hostport(spec, host, sizeof host, &port) < 0 ||
      (uv_ip4_addr(host, (int)port, (struct sockaddr_in *)&ss) != 0 &&
       uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)&ss) != 0)) {
    quad_log(QUAD_LOG_ERROR, "--metrics-listen '%s': expected IP:PORT", spec);
    return 2;
  }
  uv_tcp_init(quad_srv->loop, &listener);
  listening = true;
  int r = uv_tcp_bind(&listener, (struct sockaddr *)&ss, 0);
  if (r == 0)
    r = uv_listen((uv_stream_t *)&listener, 16, on_connection);
  if (r < 0) {
    quad_log(QUAD_LOG_ERROR, "cannot serve metrics on %s: %s", spec, uv_strerror(r));
    return 1;
  }
  int len = sizeof ss;
  uv_tcp_getsockname(&listener, (struct sockaddr *)&ss, &len);
  bool loopback;
  if (ss.ss_family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    uv_ip4_name(a, name, sizeof name);
    port = ntohs(a->sin_port);
    loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    uv_ip6_name(a, name, sizeof name);
    port = ntohs(a->sin6_port);
    loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
  }
  quad_log(QUAD_LOG_INFO, "metrics on http://%s%s%s:%u/metrics", ss.ss_family == AF_INET6 ? "[" : "",
           name, ss.ss_family == AF_INET6 ? "]" : "", port);
  if (!loopback)
    quad_log(QUAD_LOG_WARN, "the metrics endpoint has no token and listens beyond loopback "
             "(%s): anyone who reaches it sees every quaject's name and counts", name);
  return 0;
}

static void on_listener_closed(uv_handle_t *h) {}

void quad_metrics_close(void) {
  if (listening && !uv_is_closing((uv_handle_t *)&listener))
    uv_close((uv_handle_t *)&listener, on_listener_closed);
  listening = false;
  scrape_t *sc;
  LIST_FOREACH(sc, &scrapes, link)
    scrape_close(sc);
}
