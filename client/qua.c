/* qua.c -- the qua command: talk to quad from a shell, in the manner of busctl and redis-cli.
 *
 * One verb per run: connect (unix socket or TCP with a token), say Hello,
 * do the verb through libquaclient, print one line per result or event
 * (one JSON object per line with --json), exit with
 *   0 ok, 1 refused by the daemon (its message on stderr, naming the
 *   status), 2 usage, 3 no connection.
 * Every verb is one row of the `verbs` table: its synopsis, summary and
 * manual text live there and nowhere else.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quaclient.h"

enum { EXIT_OK = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NOCONN = 3 };

/* Items asked for or sent per InvokeBatch request by put and get. */
#define QUA_CLI_BATCH 256
/* Credits a drain keeps outstanding unless --window says otherwise. */
#define QUA_CLI_WINDOW 64

typedef struct opts {
  const char *socket;
  const char *connect;
  const char *token_file;
  bool json;
  int timeout_ms;
} opts_t;

typedef struct verb verb_t;

/* What a verb runs with: its own arguments (options removed) and its options. */
typedef struct ctx {
  const opts_t *o;
  const verb_t *verb;
  quac_conn_t *c;
  int argc;
  char **argv;
  uint64_t count;  /* --count N, 0 when not given */
  bool has_count;
  bool force;      /* --force */
  uint64_t window; /* --window N */
} ctx_t;

struct verb {
  const char *name;
  int min_args, max_args; /* max -1: any number */
  const char *options;    /* the verb's options, as "count,force" */
  int (*run)(ctx_t *x);
  const char *synopsis;
  const char *summary;
  const char *manual;
};

static const char *prog = "qua";
static volatile sig_atomic_t stop_requested;

/* --- Small helpers ---------------------------------------------------------- */

static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errorf(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* Reports a failed call: the daemon's message and the status's name. Returns
 * the exit status it calls for: 3 when the daemon cannot be reached, else 1. */
static int fail(quac_conn_t *c, const char *what, int err) {
  const char *msg = quac_last_error(c);
  if (msg == NULL || msg[0] == '\0' || strcmp(msg, quac_strerror(err)) == 0)
    errorf("%s: %s (%s)", what, quac_strerror(err), quac_err_name(err));
  else
    errorf("%s: %s (%s: %s)", what, msg, quac_err_name(err), quac_strerror(err));
  return err == QUA_ECONN || err == QUA_ETIMEDOUT ? EXIT_NOCONN : EXIT_REFUSED;
}

static int usage_error(const ctx_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const ctx_t *x, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  if (x != NULL && x->verb != NULL)
    fprintf(stderr, "usage: %s %s\n(see '%s help %s')\n", prog, x->verb->synopsis, prog,
            x->verb->name);
  else
    fprintf(stderr, "(see '%s --help')\n", prog);
  return EXIT_USAGE;
}

/* Parses a word: decimal, 0x hex, or a negative decimal (two's complement). */
static bool parse_word(const char *s, uint64_t *out) {
  if (s == NULL || *s == '\0')
    return false;
  char *end;
  errno = 0;
  if (s[0] == '-') {
    long long v = strtoll(s, &end, 0);
    if (errno != 0 || *end != '\0')
      return false;
    *out = (uint64_t)v;
    return true;
  }
  if (s[0] == '+' || s[0] == ' ')
    return false;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || *end != '\0')
    return false;
  *out = (uint64_t)v;
  return true;
}

/* Prints a JSON string literal. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s != NULL ? s : ""); *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\t': fputs("\\t", f); break;
    case '\r': fputs("\\r", f); break;
    default:
      if (*p < 0x20)
        fprintf(f, "\\u%04x", *p);
      else
        fputc(*p, f);
    }
  }
  fputc('"', f);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Opens a published name; prints the failure. Returns 0 or an exit status. */
static int open_name(ctx_t *x, const char *name, quac_opened_t *q) {
  int r = quac_open(x->c, name, q);
  return r < 0 ? fail(x->c, name, r) : EXIT_OK;
}

/* Splits "NAME.MEMBER" at its last dot into name and member. */
static bool split_dot(const char *s, char *name, size_t nlen, const char **member) {
  const char *dot = strrchr(s, '.');
  if (dot == NULL || dot == s || dot[1] == '\0' || (size_t)(dot - s) >= nlen)
    return false;
  memcpy(name, s, (size_t)(dot - s));
  name[dot - s] = '\0';
  *member = dot + 1;
  return true;
}

/* --- Verbs ---------------------------------------------------------------------- */

static int verb_ping(ctx_t *x) {
  const quac_server_info_t *si = quac_server_info(x->c);
  quac_stats_t st;
  double t0 = now_s();
  int r = quac_stats(x->c, &st);
  double rtt = now_s() - t0;
  if (r < 0)
    return fail(x->c, "ping", r);
  if (x->o->json) {
    printf("{\"pong\":true,\"server\":");
    json_str(stdout, si->server);
    printf(",\"version\":%" PRIu32 ",\"rtt_us\":%.1f}\n", si->version, rtt * 1e6);
  } else {
    printf("pong: %s, protocol %" PRIu32 ", %.3f ms\n", si->server, si->version, rtt * 1e3);
  }
  return EXIT_OK;
}

static void print_type_json(const quac_type_info_t *t) {
  printf("{\"type\":");
  json_str(stdout, t->name);
  printf(",\"summary\":");
  json_str(stdout, t->summary);
  printf(",\"params\":[");
  for (size_t i = 0; i < t->nparams; i++) {
    const quac_param_info_t *p = &t->params[i];
    printf("%s{\"name\":", i ? "," : "");
    json_str(stdout, p->name);
    printf(",\"default\":%" PRIu64 ",\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"pow2\":%s,\"help\":",
           p->def, p->min, p->max, p->pow2 ? "true" : "false");
    json_str(stdout, p->help);
    printf("}");
  }
  printf("],\"entries\":[");
  for (size_t i = 0; i < t->nentries; i++) {
    const quac_member_info_t *m = &t->entries[i];
    printf("%s{\"name\":", i ? "," : "");
    json_str(stdout, m->name);
    printf(",\"arity\":%" PRIu32 ",\"returns\":%s,\"remote\":%s,\"help\":", m->arity,
           m->returns ? "true" : "false", m->remote ? "true" : "false");
    json_str(stdout, m->help);
    printf("}");
  }
  printf("],\"callouts\":[");
  for (size_t i = 0; i < t->ncallouts; i++) {
    const quac_member_info_t *m = &t->callouts[i];
    printf("%s{\"name\":", i ? "," : "");
    json_str(stdout, m->name);
    printf(",\"arity\":%" PRIu32 ",\"returns\":%s,\"help\":", m->arity,
           m->returns ? "true" : "false");
    json_str(stdout, m->help);
    printf("}");
  }
  printf("],\"callbacks\":[");
  for (size_t i = 0; i < t->ncallbacks; i++) {
    const quac_member_info_t *m = &t->callbacks[i];
    printf("%s{\"name\":", i ? "," : "");
    json_str(stdout, m->name);
    printf(",\"broadcast\":%s,\"help\":", m->broadcast ? "true" : "false");
    json_str(stdout, m->help);
    printf("}");
  }
  printf("]}\n");
}

static void print_type_text(const quac_type_info_t *t) {
  printf("%s: %s\n", t->name, t->summary);
  for (size_t i = 0; i < t->nparams; i++) {
    const quac_param_info_t *p = &t->params[i];
    if (p->text)
      printf("  param    %s=TEXT (%" PRIu64 "..%" PRIu64 " characters%s)  %s\n", p->name, p->min,
             p->max, p->required ? ", required" : "", p->help);
    else
      printf("  param    %s=%" PRIu64 " (%" PRIu64 "..%" PRIu64 "%s)  %s\n", p->name, p->def,
             p->min, p->max, p->pow2 ? ", power of two" : "", p->help);
  }
  for (size_t i = 0; i < t->nentries; i++) {
    const quac_member_info_t *m = &t->entries[i];
    printf("  entry    %s/%" PRIu32 "%s%s  %s\n", m->name, m->arity, m->returns ? " -> word" : "",
           m->remote ? "" : " (local only)", m->help);
  }
  for (size_t i = 0; i < t->ncallouts; i++) {
    const quac_member_info_t *m = &t->callouts[i];
    printf("  callout  %s/%" PRIu32 "%s  %s\n", m->name, m->arity, m->returns ? " -> word" : "",
           m->help);
  }
  for (size_t i = 0; i < t->ncallbacks; i++) {
    const quac_member_info_t *m = &t->callbacks[i];
    printf("  callback %s%s  %s\n", m->name, m->broadcast ? " (broadcast)" : "", m->help);
  }
}

static int verb_types(ctx_t *x) {
  quac_type_list_t *l;
  int r = quac_list_types(x->c, &l);
  if (r < 0)
    return fail(x->c, "types", r);
  int rc = EXIT_OK;
  if (x->argc > 0) {
    for (int i = 0; i < x->argc; i++)
      if (quac_type_find(l, x->argv[i]) == NULL) {
        errorf("types: %s: %s (ENOTYPE)", x->argv[i], quac_strerror(QUA_ENOTYPE));
        rc = EXIT_REFUSED;
      }
  }
  for (size_t i = 0; i < l->ntypes && rc == EXIT_OK; i++) {
    const quac_type_info_t *t = &l->types[i];
    bool wanted = x->argc == 0;
    for (int k = 0; k < x->argc; k++)
      wanted = wanted || strcmp(x->argv[k], t->name) == 0;
    if (!wanted)
      continue;
    if (x->o->json)
      print_type_json(t);
    else
      print_type_text(t);
  }
  quac_free(l);
  return rc;
}

static void print_quaject_json(const quac_quaject_info_t *q, const quac_type_info_t *t) {
  printf("{\"id\":%" PRIu64 ",\"name\":", q->id);
  json_str(stdout, q->name);
  printf(",\"type\":");
  json_str(stdout, q->type);
  printf(",\"handle\":%" PRIu64 ",\"state\":", q->handle);
  json_str(stdout, q->state);
  printf(",\"params\":{");
  for (size_t i = 0; i < q->nparams; i++) {
    printf("%s", i ? "," : "");
    if (t != NULL && i < t->nparams)
      json_str(stdout, t->params[i].name);
    else
      printf("\"%zu\"", i);
    printf(":%" PRIu64, q->params[i]);
  }
  printf("},\"wires\":[");
  for (size_t i = 0; i < q->nwires; i++) {
    printf("%s{\"callout\":", i ? "," : "");
    json_str(stdout, q->wires[i].callout);
    printf(",\"dst_id\":%" PRIu64 ",\"dst_name\":", q->wires[i].dst_id);
    json_str(stdout, q->wires[i].dst_name);
    printf(",\"entry\":");
    json_str(stdout, q->wires[i].entry);
    printf("}");
  }
  printf("],\"impls\":{");
  for (size_t i = 0; i < q->nimpls; i++) {
    printf("%s", i ? "," : "");
    json_str(stdout, q->impls[i].entry);
    printf(":");
    json_str(stdout, q->impls[i].impl);
  }
  printf("},\"synth_ns\":{");
  for (size_t i = 0; i < q->nimpls; i++) {
    printf("%s", i ? "," : "");
    json_str(stdout, q->impls[i].entry);
    printf(":%" PRIu64, q->impls[i].synth_ns);
  }
  printf("}}\n");
}

static int verb_ls(ctx_t *x) {
  quac_quaject_list_t *l;
  int r = quac_list(x->c, &l);
  if (r < 0)
    return fail(x->c, "ls", r);
  if (!x->o->json)
    printf("%-6s %-20s %-8s %s\n", "ID", "NAME", "TYPE", "STATE");
  for (size_t i = 0; i < l->nquajects; i++) {
    const quac_quaject_info_t *q = &l->quajects[i];
    if (x->o->json) {
      printf("{\"id\":%" PRIu64 ",\"name\":", q->id);
      json_str(stdout, q->name);
      printf(",\"type\":");
      json_str(stdout, q->type);
      printf(",\"state\":");
      json_str(stdout, q->state);
      printf("}\n");
    } else {
      printf("%-6" PRIu64 " %-20s %-8s %s\n", q->id, q->name[0] ? q->name : "-", q->type,
             q->state);
    }
  }
  quac_free(l);
  return EXIT_OK;
}

static int verb_show(ctx_t *x) {
  quac_quaject_info_t *q;
  int r = quac_describe(x->c, 0, x->argv[0], &q);
  if (r < 0)
    return fail(x->c, x->argv[0], r);
  quac_type_list_t *types = NULL;
  const quac_type_info_t *t = NULL;
  if (quac_list_types(x->c, &types) == 0)
    t = quac_type_find(types, q->type);
  if (x->o->json) {
    print_quaject_json(q, t);
  } else {
    printf("name:    %s\nid:      %" PRIu64 "\ntype:    %s\nstate:   %s\n", q->name, q->id,
           q->type, q->state);
    for (size_t i = 0; i < q->nparams; i++) {
      if (t != NULL && i < t->nparams && t->params[i].text)
        continue; /* text parameters are in the state line */
      if (t != NULL && i < t->nparams)
        printf("param:   %s=%" PRIu64 "\n", t->params[i].name, q->params[i]);
      else
        printf("param:   #%zu=%" PRIu64 "\n", i, q->params[i]);
    }
    for (size_t i = 0; i < q->nwires; i++) {
      const quac_wire_info_t *w = &q->wires[i];
      if (w->dst_name[0])
        printf("wire:    %s -> %s.%s\n", w->callout, w->dst_name, w->entry);
      else
        printf("wire:    %s -> #%" PRIu64 ".%s\n", w->callout, w->dst_id, w->entry);
    }
    for (size_t i = 0; i < q->nimpls; i++)
      if (q->impls[i].synth_ns != 0)
        printf("impl:    %s: %s (synthesised in %" PRIu64 " ns)\n", q->impls[i].entry,
               q->impls[i].impl, q->impls[i].synth_ns);
      else
        printf("impl:    %s: %s\n", q->impls[i].entry, q->impls[i].impl);
  }
  quac_free(types);
  quac_free(q);
  return EXIT_OK;
}

static int verb_stats(ctx_t *x) {
  quac_stats_t s;
  int r = quac_stats(x->c, &s);
  if (r < 0)
    return fail(x->c, "stats", r);
  const struct {
    const char *name;
    uint64_t v;
  } rows[] = {{"connections", s.connections}, {"quajects", s.quajects},
              {"requests", s.requests},       {"events_sent", s.events_sent},
              {"events_dropped", s.events_dropped}, {"bytes_in", s.bytes_in},
              {"bytes_out", s.bytes_out},     {"uptime_ms", s.uptime_ms},
              {"links", s.links}, {"link_items_sent", s.link_items_sent},
              {"link_items_acked", s.link_items_acked}};
  size_t n = sizeof rows / sizeof rows[0];
  if (x->o->json)
    printf("{");
  for (size_t i = 0; i < n; i++) {
    if (x->o->json)
      printf("%s\"%s\":%" PRIu64, i ? "," : "", rows[i].name, rows[i].v);
    else
      printf("%-15s %" PRIu64 "\n", rows[i].name, rows[i].v);
  }
  if (x->o->json)
    printf("}\n");
  return EXIT_OK;
}

static int verb_create(ctx_t *x) {
  const char *type = x->argv[0], *name = x->argv[1];
  for (int i = 2; i < x->argc; i++)
    if (strchr(x->argv[i], '=') == NULL || x->argv[i][0] == '=')
      return usage_error(x, "create: '%s' is not key=value", x->argv[i]);
  uint64_t handle, id;
  int r = quac_create(x->c, type, (const char *const *)&x->argv[2], (size_t)(x->argc - 2), name,
                      &handle, &id);
  if (r < 0)
    return fail(x->c, "create", r);
  if (x->o->json) {
    printf("{\"created\":");
    json_str(stdout, name);
    printf(",\"type\":");
    json_str(stdout, type);
    printf(",\"id\":%" PRIu64 "}\n", id);
  } else {
    printf("created %s (%s, id %" PRIu64 ")\n", name, type, id);
  }
  return EXIT_OK;
}

/* Opens each named quaject, applies `act` to it, and reports it as `done`
 * ("removed", "closed"); stops at the first failure. */
static int each_name(ctx_t *x, const char *done, int (*act)(ctx_t *x, const quac_opened_t *q)) {
  for (int i = 0; i < x->argc; i++) {
    quac_opened_t q;
    int e = open_name(x, x->argv[i], &q);
    if (e != EXIT_OK)
      return e;
    int r = act(x, &q);
    if (r < 0)
      return fail(x->c, x->argv[i], r);
    if (x->o->json) {
      printf("{\"%s\":", done);
      json_str(stdout, x->argv[i]);
      printf(",\"id\":%" PRIu64 "}\n", q.id);
    } else {
      printf("%s %s\n", done, x->argv[i]);
    }
  }
  return EXIT_OK;
}

static int act_destroy(ctx_t *x, const quac_opened_t *q) {
  return quac_destroy(x->c, q->handle, x->force);
}

static int act_close(ctx_t *x, const quac_opened_t *q) { return quac_close_queue(x->c, q->handle); }

static int verb_rm(ctx_t *x) { return each_name(x, "removed", act_destroy); }

static int verb_close(ctx_t *x) { return each_name(x, "closed", act_close); }

static int verb_wire(ctx_t *x) {
  char src[256], dst[256];
  const char *callout, *entry;
  if (!split_dot(x->argv[0], src, sizeof src, &callout))
    return usage_error(x, "wire: '%s' is not SRC.CALLOUT", x->argv[0]);
  if (!split_dot(x->argv[1], dst, sizeof dst, &entry))
    return usage_error(x, "wire: '%s' is not DST.CALLENTRY", x->argv[1]);
  quac_opened_t s, d;
  int e = open_name(x, src, &s);
  if (e == EXIT_OK)
    e = open_name(x, dst, &d);
  if (e != EXIT_OK)
    return e;
  int r = quac_wire(x->c, s.handle, callout, d.handle, entry);
  if (r < 0)
    return fail(x->c, "wire", r);
  if (x->o->json) {
    printf("{\"wired\":");
    json_str(stdout, x->argv[0]);
    printf(",\"to\":");
    json_str(stdout, x->argv[1]);
    printf("}\n");
  } else {
    printf("wired %s -> %s\n", x->argv[0], x->argv[1]);
  }
  return EXIT_OK;
}

static int verb_unwire(ctx_t *x) {
  char src[256];
  const char *callout;
  if (!split_dot(x->argv[0], src, sizeof src, &callout))
    return usage_error(x, "unwire: '%s' is not SRC.CALLOUT", x->argv[0]);
  quac_opened_t s;
  int e = open_name(x, src, &s);
  if (e != EXIT_OK)
    return e;
  int r = quac_unwire(x->c, s.handle, callout);
  if (r < 0)
    return fail(x->c, "unwire", r);
  if (x->o->json) {
    printf("{\"unwired\":");
    json_str(stdout, x->argv[0]);
    printf("}\n");
  } else {
    printf("unwired %s\n", x->argv[0]);
  }
  return EXIT_OK;
}

static int verb_call(ctx_t *x) {
  const char *name = x->argv[0], *entry = x->argv[1];
  uint64_t args[QUAC_MAX_ARGS];
  size_t nargs = (size_t)(x->argc - 2);
  if (nargs > QUAC_MAX_ARGS)
    return usage_error(x, "call: at most %d arguments", QUAC_MAX_ARGS);
  for (size_t i = 0; i < nargs; i++)
    if (!parse_word(x->argv[2 + i], &args[i]))
      return usage_error(x, "call: '%s' is not a number", x->argv[2 + i]);
  quac_opened_t q;
  int e = open_name(x, name, &q);
  if (e != EXIT_OK)
    return e;
  quac_result_t res;
  int r = quac_invoke(x->c, q.handle, entry, args, nargs, &res);
  if (r < 0) {
    char what[160];
    snprintf(what, sizeof what, "%s.%s", name, entry);
    return fail(x->c, what, r);
  }
  size_t nf = res.nfired < QUAC_MAX_FIRED ? res.nfired : QUAC_MAX_FIRED;
  if (x->o->json) {
    printf("{\"status\":%d,\"result\":", res.status);
    if (res.has_result)
      printf("%" PRIu64, res.result);
    else
      printf("null");
    printf(",\"fired\":[");
    for (size_t i = 0; i < nf; i++) {
      printf("%s{\"callback\":", i ? "," : "");
      json_str(stdout, res.fired[i].callback);
      printf(",\"arg\":%" PRIu64 "}", res.fired[i].arg);
    }
    printf("]}\n");
    return EXIT_OK;
  }
  if (res.has_result)
    printf("%" PRIu64 "\n", res.result);
  for (size_t i = 0; i < nf; i++)
    printf("callback %s %" PRIu64 "\n", res.fired[i].callback, res.fired[i].arg);
  if (!res.has_result && nf == 0)
    printf(res.status == QUA_DIVERTED ? "diverted\n" : "ok\n");
  return EXIT_OK;
}

static int verb_put(ctx_t *x) {
  const char *name = x->argv[0];
  int nitems = x->argc - 1;
  quac_call_t *calls = calloc(QUA_CLI_BATCH, sizeof *calls);
  quac_result_t *res = calloc(QUA_CLI_BATCH, sizeof *res);
  int rc = EXIT_OK;
  if (calls == NULL || res == NULL) {
    errorf("out of memory");
    rc = EXIT_REFUSED;
    goto out;
  }
  for (int i = 0; i < nitems; i++) {
    if (!parse_word(x->argv[1 + i], &calls[0].args[0])) {
      rc = usage_error(x, "put: '%s' is not a number", x->argv[1 + i]);
      goto out;
    }
  }
  quac_opened_t q;
  rc = open_name(x, name, &q);
  if (rc != EXIT_OK)
    goto out;
  for (int base = 0; base < nitems; base += QUA_CLI_BATCH) {
    int n = nitems - base < QUA_CLI_BATCH ? nitems - base : QUA_CLI_BATCH;
    for (int i = 0; i < n; i++) {
      calls[i].handle = q.handle;
      calls[i].entry = "put";
      calls[i].nargs = 1;
      parse_word(x->argv[1 + base + i], &calls[i].args[0]);
    }
    int r = quac_invoke_batch(x->c, calls, (size_t)n, res);
    if (r < 0) {
      rc = fail(x->c, "put", r);
      goto out;
    }
    for (int i = 0; i < n; i++) {
      uint64_t v = calls[i].args[0];
      if (res[i].status < 0) {
        char what[160];
        snprintf(what, sizeof what, "put %s %" PRIu64, name, v);
        errorf("%s: %s (%s)", what, quac_strerror(res[i].status), quac_err_name(res[i].status));
        rc = EXIT_REFUSED;
        goto out;
      }
      const char *cb = res[i].nfired > 0 ? res[i].fired[0].callback : NULL;
      bool stored = res[i].status == 0;
      if (x->o->json) {
        printf("{\"item\":%" PRIu64 ",\"stored\":%s", v, stored ? "true" : "false");
        if (cb != NULL) {
          printf(",\"callback\":");
          json_str(stdout, cb);
        }
        printf("}\n");
      } else if (stored) {
        printf("stored %" PRIu64 "\n", v);
      } else {
        printf("%s %" PRIu64 "\n", cb != NULL ? cb : "diverted", v);
      }
    }
  }
out:
  free(calls);
  free(res);
  return rc;
}

static int verb_get(ctx_t *x) {
  const char *name = x->argv[0];
  uint64_t n = 1;
  if (x->argc > 1 && (!parse_word(x->argv[1], &n) || x->argv[1][0] == '-' || n == 0))
    return usage_error(x, "get: '%s' is not a positive count", x->argv[1]);
  quac_opened_t q;
  int rc = open_name(x, name, &q);
  if (rc != EXIT_OK)
    return rc;
  quac_call_t *calls = calloc(QUA_CLI_BATCH, sizeof *calls);
  quac_result_t *res = calloc(QUA_CLI_BATCH, sizeof *res);
  if (calls == NULL || res == NULL) {
    errorf("out of memory");
    rc = EXIT_REFUSED;
    goto out;
  }
  for (uint64_t done = 0; done < n;) {
    size_t b = n - done < QUA_CLI_BATCH ? (size_t)(n - done) : QUA_CLI_BATCH;
    for (size_t i = 0; i < b; i++) {
      calls[i].handle = q.handle;
      calls[i].entry = "get";
      calls[i].nargs = 0;
    }
    int r = quac_invoke_batch(x->c, calls, b, res);
    if (r < 0) {
      rc = fail(x->c, "get", r);
      goto out;
    }
    for (size_t i = 0; i < b; i++, done++) {
      if (res[i].status < 0) {
        errorf("get %s: %s (%s)", name, quac_strerror(res[i].status),
               quac_err_name(res[i].status));
        rc = EXIT_REFUSED;
        goto out;
      }
      if (res[i].status == QUA_DIVERTED || !res[i].has_result) {
        const char *cb = res[i].nfired > 0 ? res[i].fired[0].callback : "empty";
        if (x->o->json) {
          printf("{\"callback\":");
          json_str(stdout, cb);
          printf("}\n");
        } else {
          printf("(%s)\n", cb);
        }
        goto out;
      }
      if (x->o->json)
        printf("{\"item\":%" PRIu64 "}\n", res[i].result);
      else
        printf("%" PRIu64 "\n", res[i].result);
    }
  }
out:
  free(calls);
  free(res);
  return rc;
}

/* What watch and drain print from: the name, and how many lines remain. */
typedef struct sink {
  const ctx_t *x;
  const char *name;
  uint64_t printed;
  uint64_t binding;     /* drain: the callout binding */
  uint64_t to_credit;   /* drain: items printed and not yet given back as credits */
  bool closed;          /* drain: the queue was closed and its last item printed */
} sink_t;

static void print_event(void *vctx, quac_conn_t *c, const quac_event_t *ev) {
  sink_t *s = vctx;
  if (s->x->has_count && s->printed >= s->x->count)
    return;
  s->printed++;
  if (s->x->o->json) {
    printf("{\"name\":");
    json_str(stdout, s->name);
    printf(",\"callback\":");
    json_str(stdout, ev->callback);
    printf(",\"arg\":%" PRIu64 ",\"seq\":%" PRIu64 ",\"dropped\":%" PRIu64 "}\n", ev->arg, ev->seq,
           ev->dropped);
  } else if (ev->dropped > 0) {
    printf("%s %s %" PRIu64 " seq=%" PRIu64 " dropped=%" PRIu64 "\n", s->name, ev->callback,
           ev->arg, ev->seq, ev->dropped);
  } else {
    printf("%s %s %" PRIu64 " seq=%" PRIu64 "\n", s->name, ev->callback, ev->arg, ev->seq);
  }
  fflush(stdout);
}

static void print_item(void *vctx, quac_conn_t *c, const quac_event_t *ev) {
  sink_t *s = vctx;
  if (ev->binding != s->binding)
    return;
  if (strcmp(ev->callback, "closed") == 0) {
    /* The queue was closed; every item it held was printed before this. */
    s->closed = true;
    printf(s->x->o->json ? "{\"callback\":\"closed\"}\n" : "(closed)\n");
    fflush(stdout);
    return;
  }
  s->printed++;
  s->to_credit++;
  if (s->x->o->json)
    printf("{\"item\":%" PRIu64 ",\"seq\":%" PRIu64 "}\n", ev->arg, ev->seq);
  else
    printf("%" PRIu64 "\n", ev->arg);
  fflush(stdout);
}

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

/* Runs the event loop of watch and drain until --count lines were printed,
 * a drained queue was closed, a signal asks to stop, or the connection
 * fails. */
static int event_loop(ctx_t *x, sink_t *s, bool drain) {
  uint64_t credited = drain ? x->window : 0;
  while (!stop_requested && !s->closed && !(x->has_count && s->printed >= x->count)) {
    int r = quac_poll(x->c, 250);
    if (r < 0)
      return fail(x->c, drain ? "drain" : "watch", r);
    if (drain && s->to_credit > 0) {
      /* Give back what was printed, never more than --count in all, so the
       * daemon takes no item from the queue that this run would not print. */
      uint64_t grant = s->to_credit;
      if (x->has_count)
        grant = credited >= x->count ? 0 : (x->count - credited < grant ? x->count - credited : grant);
      s->to_credit = 0;
      if (grant > 0) {
        r = quac_credit(x->c, s->binding, grant);
        if (r < 0)
          return fail(x->c, "drain", r);
        credited += grant;
      }
    }
  }
  return EXIT_OK;
}

static void catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

static int verb_watch(ctx_t *x) {
  const char *name = x->argv[0];
  quac_opened_t q;
  int rc = open_name(x, name, &q);
  if (rc != EXIT_OK)
    return rc;
  quac_type_list_t *types = NULL;
  int r = quac_list_types(x->c, &types);
  if (r < 0)
    return fail(x->c, "watch", r);
  const quac_type_info_t *t = quac_type_find(types, q.type);
  char bound[512] = "";
  size_t nb = 0;
  if (x->argc > 1) {
    for (int i = 1; i < x->argc && rc == EXIT_OK; i++) {
      uint64_t b;
      r = quac_bind_callback(x->c, q.handle, x->argv[i], &b);
      if (r < 0)
        rc = fail(x->c, x->argv[i], r);
      else
        nb += (size_t)snprintf(bound + nb, nb < sizeof bound ? sizeof bound - nb : 0, " %s",
                               x->argv[i]);
    }
  } else if (t == NULL || t->ncallbacks == 0) {
    errorf("watch: %s (%s) has no callbacks", name, q.type);
    rc = EXIT_REFUSED;
  } else {
    for (size_t i = 0; i < t->ncallbacks && rc == EXIT_OK; i++) {
      uint64_t b;
      r = quac_bind_callback(x->c, q.handle, t->callbacks[i].name, &b);
      if (r < 0)
        rc = fail(x->c, t->callbacks[i].name, r);
      else if (nb < sizeof bound)
        nb += (size_t)snprintf(bound + nb, sizeof bound - nb, " %s", t->callbacks[i].name);
    }
  }
  quac_free(types);
  if (rc != EXIT_OK)
    return rc;
  /* Said on stderr once the bindings are in place, so scripts can wait for it. */
  fprintf(stderr, "%s: watching %s:%s\n", prog, name, bound);
  sink_t s = {.x = x, .name = name};
  quac_on_event(x->c, print_event, &s);
  catch_signals();
  return event_loop(x, &s, false);
}

static int verb_drain(ctx_t *x) {
  const char *name = x->argv[0];
  quac_opened_t q;
  int rc = open_name(x, name, &q);
  if (rc != EXIT_OK)
    return rc;
  if (x->window == 0)
    return usage_error(x, "drain: --window must be at least 1");
  if (x->has_count && x->count < x->window)
    x->window = x->count;
  if (x->has_count && x->count == 0)
    return EXIT_OK;
  sink_t s = {.x = x, .name = name};
  int r = quac_bind_callout(x->c, q.handle, "get", x->window, &s.binding);
  if (r < 0)
    return fail(x->c, "drain", r);
  fprintf(stderr, "%s: draining %s\n", prog, name);
  quac_on_event(x->c, print_item, &s);
  catch_signals();
  return event_loop(x, &s, true);
}

static int verb_help(ctx_t *x);

/* --- The verb table ------------------------------------------------------------ */

static const verb_t verbs[] = {
    {"ping", 0, 0, "", verb_ping, "ping", "check that quad answers",
     "Connects, says Hello and times one request. Prints the server's name, its\n"
     "protocol version and the round trip of one request.\n"
     "  $ qua ping\n  pong: quad 0.1.0, protocol 1, 0.071 ms\n"},
    {"types", 0, -1, "", verb_types, "types [TYPE ...]", "list the quaject types and their members",
     "Lists the daemon's quaject types (or only those named), each with its\n"
     "creation parameters (default, range), callentries (name/arity, \"-> word\"\n"
     "when they return one), callouts and callbacks. With --json, one object per\n"
     "type.\n"},
    {"ls", 0, 0, "", verb_ls, "ls", "list the quajects this client may see",
     "One line per quaject: its daemon-wide id, its published name (\"-\" when it\n"
     "has none), its type and its live state (\"count=3 capacity=4 variant=spsc\").\n"
     "A fresh connection sees the published quajects.\n"},
    {"show", 1, 1, "", verb_show, "show NAME", "describe one published quaject",
     "Prints the quaject's name, id, type, state, parameter values, wires\n"
     "(CALLOUT -> DST.ENTRY) and the code each callentry runs, with how long\n"
     "its synthesis took:\n"
     "  generic spsc            the generic C code (synth=off, or no template)\n"
     "  stencil spsc            code synthesised for the site from a template\n"
     "  chain stencil tee+pass 1w+spsc | pass 1w+spsc\n"
     "                          one piece of code for a site and the callentries\n"
     "                          wired behind it ('+': fallen into; ' | ': called)\n"
     "  no site (spsc)          nobody has opened the entry yet\n"
     "A pump's step is listed as \"(step)\".\n"
     "  $ qua show q\n"
     "  impl:    put: stencil spsc (synthesised in 420 ns)\n"},
    {"stats", 0, 0, "", verb_stats, "stats", "print the daemon's counters",
     "Connections, quajects, requests served, events sent and dropped, bytes in\n"
     "and out, and uptime, one \"name value\" line each.\n"},
    {"create", 2, -1, "", verb_create, "create TYPE NAME [KEY=VALUE ...]",
     "create a quaject and publish it as NAME",
     "Creates a quaject of TYPE from KEY=VALUE parameters (decimal or 0x hex;\n"
     "unlisted keys take their defaults, see 'qua types TYPE') and publishes it\n"
     "under NAME. It lives on after qua exits, until 'qua rm NAME'.\n"
     "  $ qua create queue q capacity=4\n  created q (queue, id 1)\n"},
    {"rm", 1, -1, "force", verb_rm, "rm [--force] NAME ...", "destroy published quajects",
     "Destroys each named quaject and drops its name. A quaject that others are\n"
     "wired to is refused (EBUSY) unless --force, which unwires them first.\n"},
    {"close", 1, -1, "", verb_close, "close NAME ...", "close queues",
     "Closes each named queue: puts from then on fail (ECLOSED), gets take what\n"
     "is left and then fail, and every 'qua drain' of it prints the items left,\n"
     "then \"(closed)\", and exits 0. Closing a closed queue is not an error;\n"
     "a quaject that is not a queue is refused (EINVAL). Unlike 'qua rm', the\n"
     "queue stays, with its name and its wires.\n"
     "  $ qua close q\n  closed q\n"},
    {"wire", 2, 2, "", verb_wire, "wire SRC.CALLOUT DST.CALLENTRY",
     "wire a callout of one quaject to a callentry of another",
     "Wires SRC's callout to DST's callentry; the daemon checks the names and\n"
     "arities and refuses a callout that is already wired. The wire lasts until\n"
     "'qua unwire' or until either quaject is removed.\n"
     "  $ qua wire c.out q.put\n"},
    {"unwire", 1, 1, "", verb_unwire, "unwire SRC.CALLOUT", "remove a wire",
     "Unwires SRC's callout (ENOTWIRED when it is not wired).\n"},
    {"call", 2, 4, "", verb_call, "call NAME ENTRY [ARG ...]", "invoke a callentry",
     "Calls NAME's callentry ENTRY with up to two word arguments (decimal, 0x hex,\n"
     "or negative decimal as two's complement). Prints the result word, if the\n"
     "entry returns one, then one line \"callback NAME ARG\" for each callback\n"
     "that fired on this call (a put into a full queue prints \"callback full\n"
     "ITEM\": the item was not stored). \"ok\" when there is neither.\n"
     "  $ qua call c add 5\n  5\n"},
    {"put", 2, -1, "", verb_put, "put NAME VALUE ...", "put words into a queue",
     "Puts each VALUE into queue NAME, in order, and prints \"stored V\" or, when\n"
     "the queue was full, \"full V\": the queue's full callback reached this\n"
     "client and V was not stored. Exit status 0 either way.\n"},
    {"get", 1, 2, "", verb_get, "get NAME [N]", "take up to N words from a queue",
     "Takes up to N (default 1) words from queue NAME and prints one per line;\n"
     "when the queue runs empty, prints \"(empty)\" (the empty callback) and stops.\n"},
    {"watch", 1, -1, "count", verb_watch, "watch NAME [CALLBACK ...] [--count N]",
     "print callbacks of a quaject as they fire",
     "Binds the named callbacks of NAME (all of its type's callbacks when none\n"
     "is named) to this client and prints one line per event:\n"
     "  NAME CALLBACK ARG seq=S [dropped=D]\n"
     "where S counts the binding's events and D says how many were lost since\n"
     "the last one (the daemon bounds what it queues per client). Once bound it\n"
     "says \"qua: watching NAME: CALLBACKS\" on stderr. Runs until N events were\n"
     "printed (--count) or until interrupted; exit status 0 then.\n"},
    {"drain", 1, 1, "count,window", verb_drain, "drain NAME [--count N] [--window W]",
     "take a queue's items as they arrive",
     "Binds the consumer side of queue NAME (its \"get\") to this client and prints\n"
     "each item as it arrives. Items are paced by credits: at most W (default 64)\n"
     "are on their way at a time, and more are granted as they are printed, so a\n"
     "slow reader backs the queue up to its producers' \"full\". With --count N it\n"
     "takes exactly N items and exits; otherwise it runs until the queue is\n"
     "closed ('qua close'), printing \"(closed)\" after its last item, or until\n"
     "interrupted.\n"},
    {"help", 0, 1, "", verb_help, "help [VERB]", "show help for qua or one verb",
     "Without VERB, the overview ('qua --help'); with VERB, its manual.\n"},
};

#define NVERBS (sizeof verbs / sizeof verbs[0])

static const verb_t *verb_find(const char *name) {
  for (size_t i = 0; i < NVERBS; i++)
    if (strcmp(verbs[i].name, name) == 0)
      return &verbs[i];
  return NULL;
}

static void print_overview(FILE *f) {
  fprintf(f,
          "usage: qua [--socket PATH | --connect HOST:PORT --token-file FILE] [--json]\n"
          "           [--timeout MS] VERB [ARGS ...]\n"
          "\n"
          "qua talks to quad, the quaject daemon: it creates, wires and calls quajects,\n"
          "and prints their callbacks as they fire.\n"
          "\n"
          "Verbs:\n");
  for (size_t i = 0; i < NVERBS; i++)
    fprintf(f, "  %-42s %s\n", verbs[i].synopsis, verbs[i].summary);
  fprintf(f,
          "\n"
          "Options:\n"
          "  -s, --socket PATH       quad's unix socket (default: $QUA_SOCKET, as for\n"
          "                          quad, and an error when set but empty; else\n"
          "                          /run/qua/quad.sock for root, else\n"
          "                          $XDG_RUNTIME_DIR/qua/quad.sock)\n"
          "  -c, --connect HOST:PORT connect over TCP instead; needs --token-file\n"
          "  -t, --token-file FILE   the token for TCP (its first line)\n"
          "  -j, --json              one JSON object per result or event line\n"
          "  -T, --timeout MS        give up on a request after MS ms (default 30000)\n"
          "  -h, --help              this text; 'qua help VERB' for a verb's manual\n"
          "  -V, --version           print qua's version\n"
          "\n"
          "Exit status: 0 ok; 1 refused by the daemon (its message and the status's name\n"
          "on stderr); 2 usage; 3 no connection to the daemon.\n"
          "\n"
          "Example:\n"
          "  qua create queue q capacity=4; qua watch q notempty --count 1 &\n"
          "  qua put q 1 2 3 4 5      # the fifth prints \"full 5\"\n"
          "  qua drain q --count 4\n");
}

static void print_manual(FILE *f, const verb_t *v) {
  fprintf(f, "NAME\n    qua %s - %s\n\nSYNOPSIS\n    qua [OPTIONS] %s\n\nDESCRIPTION\n", v->name,
          v->summary, v->synopsis);
  const char *p = v->manual;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    fprintf(f, "    %.*s\n", (int)len, p);
    p += len + (nl ? 1 : 0);
  }
  fprintf(f,
          "\nEXIT STATUS\n    0 ok, 1 refused by the daemon, 2 usage, 3 no connection.\n"
          "\nSee 'qua --help' for the options every verb takes.\n");
}

static int verb_help(ctx_t *x) {
  if (x->argc == 0) {
    print_overview(stdout);
    return EXIT_OK;
  }
  const verb_t *v = verb_find(x->argv[0]);
  if (v == NULL)
    return usage_error(NULL, "help: no verb '%s'", x->argv[0]);
  print_manual(stdout, v);
  return EXIT_OK;
}

/* --- Connecting ------------------------------------------------------------------ */

/* The socket when --socket is not given: $QUA_SOCKET (quad reads it too),
 * else the daemon's own default. Returns false, after a message, when
 * QUA_SOCKET is set but empty: that is a mistake, not a request for the
 * default. */
static bool default_socket(char *buf, size_t len) {
  const char *e = getenv("QUA_SOCKET");
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  if (e != NULL && e[0] == '\0') {
    usage_error(NULL, "QUA_SOCKET is set but empty: set it to quad's socket path, unset it, "
                      "or give --socket PATH");
    return false;
  }
  if (e != NULL)
    snprintf(buf, len, "%s", e);
  else if (geteuid() != 0 && xdg != NULL && xdg[0] != '\0')
    snprintf(buf, len, "%s/qua/quad.sock", xdg);
  else
    snprintf(buf, len, "/run/qua/quad.sock");
  return true;
}

/* Reads the token: the file's first line, without trailing white space. */
static int read_token(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    errorf("%s: %s", path, strerror(errno));
    return -1;
  }
  if (fgets(buf, (int)len, f) == NULL)
    buf[0] = '\0';
  fclose(f);
  size_t n = strlen(buf);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
                   buf[n - 1] == '\t'))
    buf[--n] = '\0';
  return 0;
}

static int connect_daemon(const opts_t *o, quac_conn_t **out) {
  int r;
  const char *where;
  char path[PATH_MAX];
  char token[512];
  if (o->connect != NULL) {
    char host[256];
    const char *colon = strrchr(o->connect, ':');
    uint64_t port;
    if (colon == NULL || colon == o->connect || (size_t)(colon - o->connect) >= sizeof host ||
        !parse_word(colon + 1, &port) || port == 0 || port > 65535) {
      usage_error(NULL, "--connect: '%s' is not HOST:PORT", o->connect);
      return EXIT_USAGE;
    }
    memcpy(host, o->connect, (size_t)(colon - o->connect));
    host[colon - o->connect] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
      memmove(host, host + 1, strlen(host));
      host[strlen(host) - 1] = '\0';
    }
    token[0] = '\0';
    if (o->token_file != NULL && read_token(o->token_file, token, sizeof token) < 0)
      return EXIT_USAGE;
    where = o->connect;
    r = quac_connect_tcp(host, (unsigned)port, o->token_file ? token : NULL, "qua", out);
  } else {
    if (o->socket != NULL)
      snprintf(path, sizeof path, "%s", o->socket);
    else if (!default_socket(path, sizeof path))
      return EXIT_USAGE;
    where = path;
    r = quac_connect_unix(path, "qua", out);
  }
  if (r < 0) {
    const char *msg = quac_last_error(NULL);
    errorf("cannot talk to quad at %s: %s (%s)", where,
           msg != NULL && msg[0] ? msg : quac_strerror(r), quac_err_name(r));
    return r == QUA_ECONN || r == QUA_ETIMEDOUT ? EXIT_NOCONN : EXIT_REFUSED;
  }
  quac_set_timeout(*out, o->timeout_ms);
  return EXIT_OK;
}

/* Splits a verb's arguments from its options (--count N, --force, --window W,
 * "--" ends options). Returns 0 or an exit status. */
static int parse_verb_args(ctx_t *x, int argc, char **argv) {
  x->argv = argv;
  x->argc = 0;
  x->window = QUA_CLI_WINDOW;
  bool opts_done = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!opts_done && strcmp(a, "--") == 0) {
      opts_done = true;
      continue;
    }
    if (!opts_done && strncmp(a, "--", 2) == 0) {
      const char *name = a + 2, *val = NULL;
      char key[32];
      const char *eq = strchr(name, '=');
      size_t klen = eq ? (size_t)(eq - name) : strlen(name);
      if (klen >= sizeof key)
        return usage_error(x, "%s: unknown option '%s'", x->verb->name, a);
      memcpy(key, name, klen);
      key[klen] = '\0';
      const char *allowed = x->verb->options;
      const char *hit = strstr(allowed, key);
      if (klen == 0 || hit == NULL || (hit != allowed && hit[-1] != ',') ||
          (hit[klen] != '\0' && hit[klen] != ','))
        return usage_error(x, "%s: unknown option '%s'", x->verb->name, a);
      if (strcmp(key, "force") == 0) {
        if (eq != NULL)
          return usage_error(x, "%s: --force takes no value", x->verb->name);
        x->force = true;
        continue;
      }
      if (eq != NULL)
        val = eq + 1;
      else if (i + 1 < argc)
        val = argv[++i];
      uint64_t v;
      if (val == NULL || val[0] == '-' || !parse_word(val, &v))
        return usage_error(x, "%s: --%s needs a number", x->verb->name, key);
      if (strcmp(key, "count") == 0) {
        x->count = v;
        x->has_count = true;
      } else {
        x->window = v;
      }
      continue;
    }
    argv[x->argc++] = argv[i];
  }
  if (x->argc < x->verb->min_args || (x->verb->max_args >= 0 && x->argc > x->verb->max_args))
    return usage_error(x, "%s: wrong number of arguments", x->verb->name);
  return EXIT_OK;
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {
      {"socket", required_argument, NULL, 's'},  {"connect", required_argument, NULL, 'c'},
      {"token-file", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
      {"timeout", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},       {NULL, 0, NULL, 0}};
  opts_t o = {.timeout_ms = 30000};
  int ch;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "+s:c:t:jT:hV", longopts, NULL)) != -1) {
    switch (ch) {
    case 's': o.socket = optarg; break;
    case 'c': o.connect = optarg; break;
    case 't': o.token_file = optarg; break;
    case 'j': o.json = true; break;
    case 'T': {
      uint64_t v;
      if (!parse_word(optarg, &v) || optarg[0] == '-' || v > INT_MAX)
        return usage_error(NULL, "--timeout: '%s' is not a number of milliseconds", optarg);
      o.timeout_ms = v == 0 ? -1 : (int)v;
      break;
    }
    case 'h': print_overview(stdout); return EXIT_OK;
    case 'V': printf("qua 0.1.0 (protocol %u)\n", QUAC_PROTOCOL_VERSION); return EXIT_OK;
    default:
      if (optopt != 0)
        return usage_error(NULL, "option -%c: unknown or missing its value", optopt);
      return usage_error(NULL, "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (o.socket != NULL && o.connect != NULL)
    return usage_error(NULL, "--socket and --connect exclude each other");
  if (o.token_file != NULL && o.connect == NULL)
    return usage_error(NULL, "--token-file goes with --connect");
  if (optind >= argc)
    return usage_error(NULL, "no verb given");
  ctx_t x = {.o = &o, .verb = verb_find(argv[optind])};
  if (x.verb == NULL)
    return usage_error(NULL, "unknown verb '%s'", argv[optind]);
  int rc = parse_verb_args(&x, argc - optind - 1, argv + optind + 1);
  if (rc != EXIT_OK)
    return rc;
  if (x.verb->run == verb_help)
    return verb_help(&x);
  /* Line-buffered so that a watcher's lines reach a pipe as they happen. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGPIPE, SIG_IGN);
  rc = connect_daemon(&o, &x.c);
  if (rc != EXIT_OK)
    return rc;
  rc = x.verb->run(&x);
  quac_close(x.c);
  if (fflush(stdout) != 0 && rc == EXIT_OK)
    rc = EXIT_REFUSED;
  return rc;
}
