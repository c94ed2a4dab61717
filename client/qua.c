/* qua.c -- the qua command: talk to quad from a shell, in the manner of busctl and redis-cli.
 *
 * One verb per run: connect (unix socket or TCP with a token), say Hello,
 * do the verb through libquaclient, print one line per result or event
 * (one JSON object per line with --json, errors too, on stderr), exit with
 *   0 ok, 1 refused by the daemon (its message on stderr, naming the
 *   status), 2 usage, 3 no connection (or lost), 4 the quaject a watch or
 *   drain followed was destroyed.
 * Options go anywhere on the line, as with getopt_long: every option is
 * one row of `options`, every verb one row of `verbs` (its synopsis,
 * summary, manual and the verb options it takes), and every help topic
 * one row of `topics`; nothing else lists them.
 */
#include <ctype.h>
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qua-code.h"
#include "quaclient.h"

enum { EXIT_OK = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NOCONN = 3, EXIT_GONE = 4 };

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

/* What a verb runs with: its operands (options removed) and its options. */
typedef struct ctx {
  const opts_t *o;
  const verb_t *verb;
  quac_conn_t *c;
  int argc;
  char **argv;
  uint64_t count;  /* --count N, 0 when not given */
  bool has_count;
  bool force;      /* --force */
  bool code;       /* --code */
  uint64_t window; /* --window N */
  const char *svg; /* --svg FILE */
  bool once;       /* --once */
} ctx_t;

struct verb {
  const char *name;
  int min_args, max_args; /* max -1: any number */
  const char *options;    /* the verb options it takes, as "count,force" */
  int (*run)(ctx_t *x);
  const char *synopsis;
  const char *summary;
  const char *manual;
};

static const char *prog = "qua";
static bool json_errors; /* --json: errors as JSON objects on stderr */
static volatile sig_atomic_t stop_requested;

/* --- Small helpers ---------------------------------------------------------- */

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

/* Reports an error on stderr and returns `exit`. `status` is the status's
 * name ("ENOTFOUND"; the CLI's own "EUSAGE" and "EGONE" have no code),
 * `subject` what it is about (a name, a verb; NULL for none). Text:
 * "qua: SUBJECT: MESSAGE (STATUS)"; --json: one object, see 'qua help json'. */
static int report(int exit, const char *status, int code, const char *subject, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));
static int report(int exit, const char *status, int code, const char *subject, const char *fmt,
                  ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (json_errors) {
    fprintf(stderr, "{\"error\":");
    json_str(stderr, msg);
    fprintf(stderr, ",\"status\":");
    json_str(stderr, status);
    if (code != 0)
      fprintf(stderr, ",\"code\":%d", code);
    else
      fprintf(stderr, ",\"code\":null");
    if (subject != NULL) {
      fprintf(stderr, ",\"subject\":");
      json_str(stderr, subject);
    }
    fprintf(stderr, ",\"exit\":%d}\n", exit);
  } else if (strcmp(status, "EUSAGE") == 0 || strcmp(status, "EGONE") == 0) {
    fprintf(stderr, "%s: %s%s%s\n", prog, subject ? subject : "", subject ? ": " : "", msg);
  } else {
    fprintf(stderr, "%s: %s%s%s (%s)\n", prog, subject ? subject : "", subject ? ": " : "", msg,
            status);
  }
  return exit;
}

/* Reports a refusal of status `err` (a QUA_E* code) that the CLI found. */
#define REFUSE(err, subject, ...) \
  report(EXIT_REFUSED, quac_err_name(err), (err), (subject), __VA_ARGS__)

/* The exit status a failed call calls for: 3 when the daemon cannot be
 * reached (or went away), else 1. */
static int exit_of(int err) {
  return err == QUA_ECONN || err == QUA_ETIMEDOUT ? EXIT_NOCONN : EXIT_REFUSED;
}

/* Reports a failed call: the daemon's message (or the status's text),
 * `hint` after it when not NULL. Returns the exit status. */
static int fail_hint(quac_conn_t *c, const char *what, int err, const char *hint) {
  const char *msg = quac_last_error(c);
  if (msg == NULL || msg[0] == '\0')
    msg = quac_strerror(err);
  if (err == QUA_ECONN && strcmp(msg, quac_strerror(err)) != 0)
    return report(EXIT_NOCONN, quac_err_name(err), err, what, "lost the connection to quad: %s%s%s",
                  msg, hint ? "; " : "", hint ? hint : "");
  return report(exit_of(err), quac_err_name(err), err, what, "%s%s%s", msg, hint ? "; " : "",
                hint ? hint : "");
}

static int fail(quac_conn_t *c, const char *what, int err) { return fail_hint(c, what, err, NULL); }

static int usage_error(const ctx_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const ctx_t *x, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const verb_t *v = x != NULL ? x->verb : NULL;
  report(EXIT_USAGE, "EUSAGE", 0, v != NULL ? v->name : NULL, "%s", msg);
  if (json_errors)
    return EXIT_USAGE;
  if (v != NULL)
    fprintf(stderr, "usage: %s %s\n(see '%s help %s')\n", prog, v->synopsis, prog, v->name);
  else
    fprintf(stderr, "(see '%s --help')\n", prog);
  return EXIT_USAGE;
}

/* Edit distance (insertions, deletions, substitutions, transpositions)
 * of two short words, for "did you mean". */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63)
    return SIZE_MAX;
  size_t d[64][64];
  for (size_t i = 0; i <= la; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t v = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < v)
        v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v)
        v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

/* Suggests the candidate closest to `word` (at most 2 edits, and fewer
 * than the word's length) as "; did you mean 'PREFIX X'?" in buf, or "".
 * The candidates are `n` strings `stride` bytes apart from `first` (an
 * array of structs whose first member is the name). */
static const char *did_you_mean(char *buf, size_t len, const char *prefix, const char *word,
                                const void *first, size_t n, size_t stride) {
  const char *best = NULL;
  size_t bestd = 3;
  for (size_t i = 0; i < n; i++) {
    const char *cand = *(const char *const *)((const char *)first + i * stride);
    size_t d = distance(word, cand);
    if (d < bestd && d < strlen(word)) {
      best = cand;
      bestd = d;
    }
  }
  buf[0] = '\0';
  if (best != NULL)
    snprintf(buf, len, "; did you mean '%s%s'?", prefix, best);
  return buf;
}

/* Lists `n` names `stride` bytes apart, as "a, b or c", into buf. */
static const char *name_list(char *buf, size_t len, const void *first, size_t n, size_t stride) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && used < len; i++) {
    const char *name = *(const char *const *)((const char *)first + i * stride);
    used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                             name);
  }
  return buf;
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

/* A published name as the daemon accepts it: 1 to QUAC_NAME_MAX letters,
 * digits, '_' or '-' (proto/README.md, "Handles, names, ownership"). */
static bool name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > QUAC_NAME_MAX)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
      return false;
  return true;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Opens a published name; prints the failure. Returns 0 or an exit status. */
static int open_name(ctx_t *x, const char *name, quac_opened_t *q) {
  int r = quac_open(x->c, name, q);
  if (r == QUA_ENOTFOUND)
    return fail_hint(x->c, name, r, "'qua ls' lists the published names");
  return r < 0 ? fail(x->c, name, r) : EXIT_OK;
}

/* The daemon's type table, fetched once per run (NULL after a message). */
static quac_type_list_t *types_of(ctx_t *x, int *rc) {
  static quac_type_list_t *types;
  if (types == NULL) {
    int r = quac_list_types(x->c, &types);
    if (r < 0) {
      *rc = fail(x->c, "types", r);
      return NULL;
    }
  }
  return types;
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

/* Prints a state line ("count=3 capacity=4 variant=spsc tracked") as a JSON
 * object: KEY=VALUE words give a number when VALUE is decimal, else a
 * string; a bare word is a flag, true. */
static void json_state(const char *line) {
  printf("{");
  bool first = true;
  for (const char *p = line; *p;) {
    while (*p == ' ')
      p++;
    size_t n = strcspn(p, " ");
    if (n == 0)
      break;
    const char *eq = memchr(p, '=', n);
    size_t klen = eq != NULL ? (size_t)(eq - p) : n;
    char key[64], val[128];
    snprintf(key, sizeof key, "%.*s", (int)klen, p);
    printf("%s", first ? "" : ",");
    first = false;
    json_str(stdout, key);
    printf(":");
    if (eq == NULL) {
      printf("true");
    } else {
      snprintf(val, sizeof val, "%.*s", (int)(n - klen - 1), eq + 1);
      bool num = val[0] != '\0' && strspn(val, "0123456789") == strlen(val) && strlen(val) < 20;
      if (num)
        printf("%s", val);
      else
        json_str(stdout, val);
    }
    p += n;
  }
  printf("}");
}

/* --- Output: one record per result line --------------------------------------------
 *
 * A result line is described once, as a record: its fields in the order
 * --json prints them, and its text form as a template in which {key}
 * stands for a field ("{done} {name} ({type}, id {id})"). emit() prints
 * one or the other. A field may be text-only (rec_text: words the JSON
 * says with its keys instead) and a JSON field may be left out of the
 * template. So the two forms of a line cannot disagree about what it
 * says. A field may hold a list of records (rec_list, rec_map), each with
 * its own line: a document such as a type or a quaject (qua show). Tables
 * (ls, top) are records too: emit_table lays their fields out in columns,
 * or gives one JSON object per record. */
typedef enum { R_STR, R_U64, R_BOOL, R_NULL, R_RAW, R_NUM, R_TEXT, R_LIST, R_MAP, R_STATE } rec_kind_t;

typedef struct rec rec_t;

typedef struct rec_field {
  const char *key;
  rec_kind_t kind;
  const char *s;   /* R_STR, R_RAW (JSON as is), R_TEXT */
  uint64_t u;      /* R_U64, R_BOOL; R_LIST, R_MAP: how many records */
  double d;        /* R_NUM: "%.1f" */
  const rec_t *sub; /* R_LIST, R_MAP: the records */
} rec_field_t;

#define REC_MAX 24
struct rec {
  rec_field_t f[REC_MAX];
  int n;
  const char *tmpl; /* a record in a list: its text line, NULL for none */
};

static rec_field_t *rec_add(rec_t *r, const char *key, rec_kind_t kind) {
  assert(r->n < REC_MAX);
  rec_field_t *f = &r->f[r->n++];
  *f = (rec_field_t){.key = key, .kind = kind};
  return f;
}
static void rec_str(rec_t *r, const char *key, const char *v) { rec_add(r, key, R_STR)->s = v; }
static void rec_u64(rec_t *r, const char *key, uint64_t v) { rec_add(r, key, R_U64)->u = v; }
static void rec_bool(rec_t *r, const char *key, bool v) { rec_add(r, key, R_BOOL)->u = v; }
static void rec_null(rec_t *r, const char *key) { rec_add(r, key, R_NULL); }
static void rec_raw(rec_t *r, const char *key, const char *json) { rec_add(r, key, R_RAW)->s = json; }
static void rec_text(rec_t *r, const char *key, const char *v) { rec_add(r, key, R_TEXT)->s = v; }
static void rec_num(rec_t *r, const char *key, double v) { rec_add(r, key, R_NUM)->d = v; }
/* A list of n records: JSON, an array of their objects; text, their own
 * lines (each record's tmpl) after the line of the record holding it. */
static void rec_list(rec_t *r, const char *key, const rec_t *sub, size_t n) {
  rec_field_t *f = rec_add(r, key, R_LIST);
  f->sub = sub;
  f->u = n;
}
/* The same, but JSON makes it an object keyed by each record's first
 * field (a string): its value is the record's second field when the record
 * has two, else an object of the others. */
static void rec_map(rec_t *r, const char *key, const rec_t *sub, size_t n) {
  rec_list(r, key, sub, n);
  r->f[r->n - 1].kind = R_MAP;
}
/* A state line ("count=3 capacity=4 tracked"): text as is, JSON as an
 * object (json_state). */
static void rec_state(rec_t *r, const char *key, const char *line) {
  rec_add(r, key, R_STATE)->s = line;
}

/* Strings and records that a verb's records point to, freed together. */
typedef struct pool {
  void **p;
  size_t n, cap;
} pool_t;

static void *pool_keep(pool_t *pl, void *m) {
  if (m == NULL || (pl->n == pl->cap &&
                    (pl->p = realloc(pl->p, (pl->cap = pl->cap ? 2 * pl->cap : 16) *
                                                sizeof *pl->p)) == NULL)) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(EXIT_REFUSED);
  }
  pl->p[pl->n++] = m;
  return m;
}

static rec_t *pool_recs(pool_t *pl, size_t n) {
  return pool_keep(pl, calloc(n ? n : 1, sizeof(rec_t)));
}

static const char *pool_fmt(pool_t *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *pool_fmt(pool_t *pl, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *str = NULL;
  int r = vasprintf(&str, fmt, ap);
  va_end(ap);
  return pool_keep(pl, r < 0 ? NULL : str);
}

static void pool_free(pool_t *pl) {
  while (pl->n > 0)
    free(pl->p[--pl->n]);
  free(pl->p);
  *pl = (pool_t){0};
}

static const rec_field_t *rec_find(const rec_t *r, const char *key, size_t len) {
  for (int i = 0; i < r->n; i++)
    if (strlen(r->f[i].key) == len && memcmp(r->f[i].key, key, len) == 0)
      return &r->f[i];
  return NULL;
}

static void emit_json_fields(const rec_t *r, int from);

/* The number of r's fields that JSON shows. */
static int json_fields(const rec_t *r) {
  int n = 0;
  for (int i = 0; i < r->n; i++)
    n += r->f[i].kind != R_TEXT;
  return n;
}

/* The i-th field that JSON shows. */
static const rec_field_t *json_field(const rec_t *r, int i) {
  for (int k = 0; k < r->n; k++)
    if (r->f[k].kind != R_TEXT && i-- == 0)
      return &r->f[k];
  return NULL;
}

static void emit_json_value(const rec_field_t *f);

/* Prints r as a JSON object (its lists as arrays of objects). */
static void emit_json(const rec_t *r) { emit_json_fields(r, 0); }

/* A map's entry: "key":value (note at rec_map). */
static void emit_json_entry(const rec_t *r) {
  json_str(stdout, json_field(r, 0)->s);
  putchar(':');
  if (json_fields(r) == 2)
    emit_json_value(json_field(r, 1));
  else
    emit_json_fields(r, 1);
}

/* Prints r's JSON fields from the from-th on as an object. */
static void emit_json_fields(const rec_t *r, int from) {
  printf("{");
  for (int i = from; i < json_fields(r); i++) {
    const rec_field_t *f = json_field(r, i);
    printf("%s\"%s\":", i > from ? "," : "", f->key);
    emit_json_value(f);
  }
  printf("}");
}

static void emit_json_value(const rec_field_t *f) {
  bool first = true;
  switch (f->kind) {
  case R_STR: json_str(stdout, f->s); break;
  case R_U64: printf("%" PRIu64, f->u); break;
  case R_BOOL: printf("%s", f->u ? "true" : "false"); break;
  case R_NULL: printf("null"); break;
  case R_RAW: printf("%s", f->s); break;
  case R_NUM: printf("%.1f", f->d); break;
  case R_TEXT: break;
  case R_STATE: json_state(f->s); break;
  case R_LIST:
  case R_MAP:
    putchar(f->kind == R_LIST ? '[' : '{');
    for (uint64_t k = 0; k < f->u; k++) {
      if (json_fields(&f->sub[k]) == 0)
        continue; /* a line of the text only */
      printf("%s", first ? "" : ",");
      first = false;
      if (f->kind == R_LIST)
        emit_json(&f->sub[k]);
      else
        emit_json_entry(&f->sub[k]);
    }
    putchar(f->kind == R_LIST ? ']' : '}');
    break;
  }
}

/* A field's text: what a template or a table cell shows. */
static const char *field_text(const rec_field_t *f, char *buf, size_t len) {
  switch (f->kind) {
  case R_STR: case R_RAW: case R_TEXT: case R_STATE: return f->s;
  case R_U64: snprintf(buf, len, "%" PRIu64, f->u); return buf;
  case R_BOOL: return f->u ? "true" : "false";
  case R_NULL: return "-";
  case R_NUM: snprintf(buf, len, "%.1f", f->d); return buf;
  case R_LIST: case R_MAP: return "";
  }
  return "";
}

/* Prints r's text line (tmpl filled in, none when NULL), then its lists' lines. */
static void emit_text(const rec_t *r, const char *tmpl) {
  char buf[64];
  for (const char *p = tmpl; p != NULL && *p;) {
    const char *close = *p == '{' ? strchr(p, '}') : NULL;
    const rec_field_t *f = close != NULL ? rec_find(r, p + 1, (size_t)(close - p - 1)) : NULL;
    if (f == NULL) {
      putchar(*p++);
      continue;
    }
    fputs(field_text(f, buf, sizeof buf), stdout);
    p = close + 1;
  }
  if (tmpl != NULL)
    putchar('\n');
  for (int i = 0; i < r->n; i++)
    for (uint64_t k = 0; (r->f[i].kind == R_LIST || r->f[i].kind == R_MAP) && k < r->f[i].u; k++)
      emit_text(&r->f[i].sub[k], r->f[i].sub[k].tmpl);
}

/* Prints the record: a JSON object, or the text template filled in. */
static void emit(const ctx_t *x, const rec_t *r, const char *tmpl) {
  if (x->o->json) {
    emit_json(r);
    putchar('\n');
    return;
  }
  emit_text(r, tmpl);
}

/* A column of a table: its heading, the field it shows, its least width. */
typedef struct rec_col {
  const char *head, *key;
  int min;
} rec_col_t;

/* Prints n records as a table: text, a heading line and a row per record,
 * columns two spaces apart and as wide as their widest cell (no spaces
 * end a line); JSON, one object per record and line. */
static void emit_table(const ctx_t *x, const rec_t *rows, size_t n, const rec_col_t *cols,
                       int ncols) {
  if (x->o->json) {
    for (size_t i = 0; i < n; i++) {
      emit_json(&rows[i]);
      putchar('\n');
    }
    return;
  }
  int w[16];
  char buf[64];
  assert(ncols <= 16);
  for (int c = 0; c < ncols; c++) {
    w[c] = (int)strlen(cols[c].head) > cols[c].min ? (int)strlen(cols[c].head) : cols[c].min;
    for (size_t i = 0; i < n; i++) {
      const rec_field_t *f = rec_find(&rows[i], cols[c].key, strlen(cols[c].key));
      int len = f != NULL ? (int)strlen(field_text(f, buf, sizeof buf)) : 0;
      w[c] = len > w[c] ? len : w[c];
    }
  }
  for (size_t i = 0; i <= n; i++) { /* the heading, then the rows */
    int pad = 0; /* spaces owed before the next cell: none at the end of a line */
    for (int c = 0; c < ncols; c++) {
      const rec_field_t *f =
          i > 0 ? rec_find(&rows[i - 1], cols[c].key, strlen(cols[c].key)) : NULL;
      const char *cell = i == 0 ? cols[c].head : f != NULL ? field_text(f, buf, sizeof buf) : "";
      if (cell[0] != '\0') {
        printf("%*s%s", pad, "", cell);
        pad = 0;
      }
      pad += (c + 1 < ncols ? w[c] - (int)strlen(cell) : 0) + 2;
    }
    putchar('\n');
  }
}

/* A quaject's name as listings print it: "#ID" when it has none. */
static const char *shown_name(char *buf, size_t len, const char *name, uint64_t id) {
  if (name != NULL && name[0] != '\0')
    return name;
  snprintf(buf, len, "#%" PRIu64, id);
  return buf;
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
  char ms[32];
  snprintf(ms, sizeof ms, "%.3f", rtt * 1e3);
  rec_t rec = {0};
  rec_bool(&rec, "pong", true);
  rec_str(&rec, "server", si->server);
  rec_u64(&rec, "version", si->version);
  rec_num(&rec, "rtt_us", rtt * 1e6);
  rec_text(&rec, "ms", ms);
  emit(x, &rec, "pong: {server}, protocol {version}, {ms} ms");
  return EXIT_OK;
}

/* synth=stencil|off is a parameter of every type, handled by libqua rather
 * than by the type's table: listed here for every type. */
static const char synth_help[] =
    "which code the quaject runs: stencil (synthesised per site) or off (generic C); "
    "default: quad's --synth";

/* A type's members, by kind: where quac_type_info_t keeps them, and which
 * of quac_member_info_t's fields the kind has. One loop describes them all. */
enum { M_ARITY = 1, M_RETURNS = 2, M_REMOTE = 4, M_BROADCAST = 8 };
static const struct member_kind {
  const char *key;  /* JSON */
  const char *tmpl; /* text */
  size_t count_off, array_off;
  unsigned has;
} member_kinds[] = {
    {"entries", "  entry    {name}/{arity}{word}{local}  {help}",
     offsetof(quac_type_info_t, nentries), offsetof(quac_type_info_t, entries),
     M_ARITY | M_RETURNS | M_REMOTE},
    {"callouts", "  callout  {name}/{arity}{word}  {help}", offsetof(quac_type_info_t, ncallouts),
     offsetof(quac_type_info_t, callouts), M_ARITY | M_RETURNS},
    {"callbacks", "  callback {name}{bcast}  {help}", offsetof(quac_type_info_t, ncallbacks),
     offsetof(quac_type_info_t, callbacks), M_BROADCAST},
};
#define NMEMBER_KINDS (sizeof member_kinds / sizeof member_kinds[0])

static void param_rec(rec_t *r, const quac_param_info_t *p) {
  rec_str(r, "name", p->name);
  rec_u64(r, "default", p->def);
  rec_u64(r, "min", p->min);
  rec_u64(r, "max", p->max);
  rec_bool(r, "pow2", p->pow2);
  rec_str(r, "help", p->help);
  rec_text(r, "pow2_text", p->pow2 ? ", power of two" : "");
  rec_text(r, "required", p->required ? ", required" : "");
  r->tmpl = p->text ? "  param    {name}=TEXT ({min}..{max} characters{required})  {help}"
                    : "  param    {name}={default} ({min}..{max}{pow2_text})  {help}";
}

static void member_rec(rec_t *r, const struct member_kind *k, const quac_member_info_t *m) {
  rec_str(r, "name", m->name);
  if (k->has & M_ARITY)
    rec_u64(r, "arity", m->arity);
  if (k->has & M_RETURNS)
    rec_bool(r, "returns", m->returns);
  if (k->has & M_REMOTE)
    rec_bool(r, "remote", m->remote);
  if (k->has & M_BROADCAST)
    rec_bool(r, "broadcast", m->broadcast);
  rec_str(r, "help", m->help);
  rec_text(r, "word", m->returns ? " -> word" : "");
  rec_text(r, "local", m->remote ? "" : " (local only)");
  rec_text(r, "bcast", m->broadcast ? " (broadcast)" : "");
  r->tmpl = k->tmpl;
}

/* Prints a type: its line, then one per parameter (synth last) and member. */
static int print_type(const ctx_t *x, const quac_type_info_t *t) {
  size_t n = t->nparams + 1;
  for (size_t k = 0; k < NMEMBER_KINDS; k++)
    n += *(const size_t *)((const char *)t + member_kinds[k].count_off);
  rec_t *subs = calloc(n, sizeof *subs);
  if (subs == NULL)
    return report(EXIT_REFUSED, "ENOMEM", QUA_ENOMEM, "types", "out of memory");
  rec_t r = {0}, *sub = subs;
  rec_str(&r, "type", t->name);
  rec_str(&r, "summary", t->summary);
  for (size_t i = 0; i < t->nparams; i++)
    param_rec(&sub[i], &t->params[i]);
  rec_t *synth = &sub[t->nparams];
  rec_str(synth, "name", "synth");
  rec_raw(synth, "choices", "[\"stencil\",\"off\"]");
  rec_str(synth, "help", synth_help);
  synth->tmpl = "  param    synth=stencil|off  {help}";
  rec_list(&r, "params", sub, t->nparams + 1);
  sub += t->nparams + 1;
  for (size_t k = 0; k < NMEMBER_KINDS; k++) {
    const struct member_kind *mk = &member_kinds[k];
    size_t nm = *(const size_t *)((const char *)t + mk->count_off);
    const quac_member_info_t *ms = *(const quac_member_info_t *const *)((const char *)t +
                                                                         mk->array_off);
    for (size_t i = 0; i < nm; i++)
      member_rec(&sub[i], mk, &ms[i]);
    rec_list(&r, mk->key, sub, nm);
    sub += nm;
  }
  emit(x, &r, "{type}: {summary}");
  free(subs);
  return EXIT_OK;
}

/* Refuses an unknown type name, listing the known ones. */
static int no_type(const quac_type_list_t *l, const char *what, const char *type) {
  char dym[96], all[256];
  return REFUSE(QUA_ENOTYPE, what, "no quaject type '%s'%s (types: %s)", type,
                did_you_mean(dym, sizeof dym, "", type, l->types, l->ntypes, sizeof l->types[0]),
                name_list(all, sizeof all, l->types, l->ntypes, sizeof l->types[0]));
}

static int verb_types(ctx_t *x) {
  int rc = EXIT_OK;
  quac_type_list_t *l = types_of(x, &rc);
  if (l == NULL)
    return rc;
  for (int i = 0; i < x->argc; i++)
    if (quac_type_find(l, x->argv[i]) == NULL)
      rc = no_type(l, "types", x->argv[i]);
  for (size_t i = 0; i < l->ntypes && rc == EXIT_OK; i++) {
    const quac_type_info_t *t = &l->types[i];
    bool wanted = x->argc == 0;
    for (int k = 0; k < x->argc; k++)
      wanted = wanted || strcmp(x->argv[k], t->name) == 0;
    if (!wanted)
      continue;
    rc = print_type(x, t);
  }
  return rc;
}

/* The wires of every quaject, for the wires into one (show) and listings. */
static int list_all(ctx_t *x, const char *what, quac_quaject_list_t **l) {
  int r = quac_list(x->c, l);
  return r < 0 ? fail(x->c, what, r) : EXIT_OK;
}

/* show --code: what qua-code.c prints for im's code, as text (without its
 * last newline) or as JSON, kept in pl. */
static const char *code_str(pool_t *pl, const quac_impl_info_t *im, bool json) {
  char *s = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&s, &n);
  int r = f == NULL ? -1 : json ? quac__code_json(f, im, json_str) : quac__code_text(f, im);
  if ((f != NULL && fclose(f) != 0) || r < 0) {
    free(s);
    s = NULL; /* pool_keep reports it and exits */
  }
  pool_keep(pl, s);
  if (!json && n > 0 && s[n - 1] == '\n')
    s[n - 1] = '\0';
  return s;
}

/* A wire as a record: the same fields for wires out and in; tmpl its line in show. */
static void wire_rec(pool_t *pl, rec_t *r, const char *src, uint64_t src_id, const char *callout,
                     const char *dst, uint64_t dst_id, const char *entry, const char *tmpl) {
  rec_str(r, "src", pool_fmt(pl, "%s", src));
  rec_u64(r, "src_id", src_id);
  rec_str(r, "callout", callout);
  rec_str(r, "dst", pool_fmt(pl, "%s", dst));
  rec_u64(r, "dst_id", dst_id);
  rec_str(r, "entry", entry);
  r->tmpl = tmpl;
}

/* A quaject as a record, as ls and show give it: with `all` (every
 * quaject, for the wires into it), also its wires in and its bindings, as
 * show does; `code`: each impl's code after its line. Its text is show's
 * lines; ls shows the fields as columns. */
static void quaject_rec(pool_t *pl, rec_t *r, const quac_quaject_info_t *q,
                        const quac_type_info_t *t, const quac_quaject_list_t *all, bool code) {
  char b1[32], b2[32];
  const char *self = pool_fmt(pl, "%s", shown_name(b1, sizeof b1, q->name, q->id));
  rec_str(r, "name", q->name);
  rec_text(r, "shown", self);
  rec_u64(r, "id", q->id);
  rec_str(r, "type", q->type);
  rec_state(r, "state", q->state);
  rec_str(r, "state_line", q->state);
  /* Parameters: text ones are in the state line; synth, every type's, too. */
  rec_t *ps = pool_recs(pl, q->nparams + 1);
  for (size_t i = 0; i < q->nparams; i++) {
    bool named = t != NULL && i < t->nparams;
    rec_str(&ps[i], "key", named ? t->params[i].name : pool_fmt(pl, "%zu", i));
    rec_u64(&ps[i], "value", q->params[i]);
    ps[i].tmpl = named && t->params[i].text ? NULL
                 : named                    ? "param:   {key}={value}"
                                            : "param:   #{key}={value}";
  }
  const char *synth = strstr(q->state, "synth=");
  if (synth != NULL) {
    rec_text(&ps[q->nparams], "line", pool_fmt(pl, "%.*s", (int)strcspn(synth, " "), synth));
    ps[q->nparams].tmpl = "param:   {line}";
  }
  rec_map(r, "params", ps, q->nparams + (synth != NULL));
  rec_t *wo = pool_recs(pl, q->nwires);
  for (size_t i = 0; i < q->nwires; i++) {
    const quac_wire_info_t *w = &q->wires[i];
    wire_rec(pl, &wo[i], self, q->id, w->callout, shown_name(b2, sizeof b2, w->dst_name, w->dst_id),
             w->dst_id, w->entry, "wire:    {callout} -> {dst}.{entry}");
  }
  rec_list(r, "wires_out", wo, q->nwires);
  /* ls: "out->q.put,tick->#7.put", or "-". */
  const char *wires = "-";
  for (size_t i = 0; i < q->nwires; i++)
    wires = pool_fmt(pl, "%s%s%s->%s.%s", i ? wires : "", i ? "," : "", q->wires[i].callout,
                     shown_name(b2, sizeof b2, q->wires[i].dst_name, q->wires[i].dst_id),
                     q->wires[i].entry);
  rec_text(r, "wires", wires);
  if (all != NULL) {
    size_t nin = 0;
    for (size_t i = 0; i < all->nquajects; i++)
      for (size_t k = 0; k < all->quajects[i].nwires; k++)
        nin += all->quajects[i].wires[k].dst_id == q->id;
    rec_t *wi = pool_recs(pl, nin), *w = wi;
    for (size_t i = 0; i < all->nquajects; i++)
      for (size_t k = 0; k < all->quajects[i].nwires; k++) {
        const quac_quaject_info_t *src = &all->quajects[i];
        if (src->wires[k].dst_id == q->id)
          wire_rec(pl, w++, shown_name(b2, sizeof b2, src->name, src->id), src->id,
                   src->wires[k].callout, self, q->id, src->wires[k].entry,
                   "wired:   {src}.{callout} -> {entry}");
      }
    rec_list(r, "wires_in", wi, nin);
    rec_t *bs = pool_recs(pl, q->nbindings);
    for (size_t i = 0; i < q->nbindings; i++) {
      const quac_binding_info_t *b = &q->bindings[i];
      rec_str(&bs[i], "member", b->member);
      rec_bool(&bs[i], "callout", b->callout);
      rec_u64(&bs[i], "conn", b->conn);
      rec_str(&bs[i], "peer", b->peer);
      rec_text(&bs[i], "drained", b->callout ? " (drained)" : "");
      bs[i].tmpl = "bound:   {member}{drained} -> conn {conn} ({peer})";
    }
    rec_list(r, "bindings", bs, q->nbindings);
  }
  if (q->nimpls > 0) {
    rec_t *is = pool_recs(pl, q->nimpls);
    for (size_t i = 0; i < q->nimpls; i++) {
      const quac_impl_info_t *im = &q->impls[i];
      rec_str(&is[i], "entry", im->entry);
      rec_str(&is[i], "code", im->impl);
      rec_u64(&is[i], "synth_ns", im->synth_ns);
      rec_text(&is[i], "synth",
               im->synth_ns != 0 ? pool_fmt(pl, " (synthesised in %" PRIu64 " ns)", im->synth_ns)
                                 : "");
      rec_text(&is[i], "listing", code ? pool_fmt(pl, "\n%s", code_str(pl, im, false)) : "");
      if (code)
        rec_raw(&is[i], "machine_code", code_str(pl, im, true));
      is[i].tmpl = "impl:    {entry}: {code}{synth}{listing}";
    }
    rec_map(r, "impls", is, q->nimpls);
  }
}

static int verb_ls(ctx_t *x) {
  quac_quaject_list_t *l;
  int rc = list_all(x, "ls", &l);
  if (rc != EXIT_OK)
    return rc;
  const quac_type_list_t *types = NULL;
  if (x->o->json)
    types = types_of(x, &rc);
  pool_t pl = {0};
  rec_t *rows = pool_recs(&pl, l->nquajects);
  for (size_t i = 0; i < l->nquajects; i++)
    quaject_rec(&pl, &rows[i], &l->quajects[i],
                types != NULL ? quac_type_find(types, l->quajects[i].type) : NULL, NULL, false);
  static const rec_col_t cols[] = {{"ID", "id", 0},       {"NAME", "shown", 0},
                                   {"TYPE", "type", 0},   {"STATE", "state", 0},
                                   {"WIRES", "wires", 0}};
  emit_table(x, rows, l->nquajects, cols, 5);
  pool_free(&pl);
  quac_free(l);
  return EXIT_OK;
}

static int verb_show(ctx_t *x) {
  quac_quaject_info_t *q;
  int r = quac_describe(x->c, 0, x->argv[0], &q);
  if (r == QUA_ENOTFOUND)
    return fail_hint(x->c, x->argv[0], r, "'qua ls' lists the published names");
  if (r < 0)
    return fail(x->c, x->argv[0], r);
  int rc = EXIT_OK;
  quac_quaject_list_t *all = NULL;
  const quac_type_list_t *types = types_of(x, &rc);
  const quac_type_info_t *t = types != NULL ? quac_type_find(types, q->type) : NULL;
  if (rc == EXIT_OK)
    rc = list_all(x, x->argv[0], &all);
  if (rc != EXIT_OK)
    goto out;
  pool_t pl = {0};
  rec_t rec = {0};
  quaject_rec(&pl, &rec, q, t, all, x->code);
  emit(x, &rec, "name:    {name}\nid:      {id}\ntype:    {type}\nstate:   {state_line}");
  pool_free(&pl);
out:
  quac_free(all);
  quac_free(q);
  return rc;
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
  /* "name value" a line, the names in a column. */
  rec_t rec = {0};
  char tmpl[1024];
  size_t tn = 0;
  for (size_t i = 0; i < n; i++) {
    rec_u64(&rec, rows[i].name, rows[i].v);
    tn += (size_t)snprintf(tmpl + tn, sizeof tmpl - tn, "%s%-15s {%s}", i ? "\n" : "",
                           rows[i].name, rows[i].name);
  }
  emit(x, &rec, tmpl);
  return EXIT_OK;
}

/* Prints the result of an operation on one quaject: "VERB-ED NAME (...)"
 * in text, {"op":VERB,"name":NAME,"id":ID[,"type":TYPE]} in JSON. */
static void print_done(const ctx_t *x, const char *done, const char *name, uint64_t id,
                       const char *type) {
  rec_t r = {0};
  rec_str(&r, "op", x->verb->name);
  rec_str(&r, "name", name);
  rec_u64(&r, "id", id);
  if (type != NULL)
    rec_str(&r, "type", type);
  rec_text(&r, "done", done);
  emit(x, &r, type != NULL ? "{done} {name} ({type}, id {id})" : "{done} {name}");
}

static int verb_create(ctx_t *x) {
  const char *type = x->argv[0], *name = x->argv[1];
  if (!name_ok(name))
    return usage_error(x, "'%s' is not a name: 1 to %d letters, digits, '_' or '-'", name,
                       QUAC_NAME_MAX);
  for (int i = 2; i < x->argc; i++)
    if (strchr(x->argv[i], '=') == NULL || x->argv[i][0] == '=')
      return usage_error(x, "'%s' is not KEY=VALUE", x->argv[i]);
  uint64_t handle, id;
  int r = quac_create(x->c, type, (const char *const *)&x->argv[2], (size_t)(x->argc - 2), name,
                      &handle, &id);
  int rc = EXIT_OK;
  const quac_type_list_t *l;
  if (r == QUA_ENOTYPE) {
    /* A type quad has, refused for its target: quad's message says why
     * (kept before ListTypes replaces it). */
    char why[256];
    snprintf(why, sizeof why, "%s", quac_last_error(x->c));
    if ((l = types_of(x, &rc)) != NULL && quac_type_find(l, type) == NULL)
      return no_type(l, "create", type);
    return REFUSE(QUA_ENOTYPE, "create", "%s", why);
  }
  if (r == QUA_ENOPARAM && (l = types_of(x, &rc)) != NULL) {
    const quac_type_info_t *t = quac_type_find(l, type);
    char all[256], hint[300];
    name_list(all, sizeof all, t->params, t->nparams, sizeof t->params[0]);
    snprintf(hint, sizeof hint, "%s takes %s%ssynth ('qua types %s')", type, all,
             t->nparams ? " and " : "", type);
    return fail_hint(x->c, "create", r, hint);
  }
  if (r < 0)
    return fail(x->c, "create", r);
  print_done(x, "created", name, id, type);
  return EXIT_OK;
}

/* Opens each named quaject, applies `act` to it, and reports it as `done`
 * ("removed", "closed"). Carries on past a failure, reporting each; the
 * exit status is that of the first failure (all lost ones stop at once). */
static int each_name(ctx_t *x, const char *done, int (*act)(ctx_t *x, const quac_opened_t *q)) {
  int rc = EXIT_OK;
  for (int i = 0; i < x->argc; i++) {
    quac_opened_t q;
    int e = open_name(x, x->argv[i], &q);
    if (e == EXIT_OK) {
      int r = act(x, &q);
      if (r < 0)
        e = fail(x->c, x->argv[i], r);
      else
        print_done(x, done, x->argv[i], q.id, NULL);
    }
    if (e == EXIT_NOCONN)
      return e;
    if (rc == EXIT_OK)
      rc = e;
  }
  return rc;
}

static int act_destroy(ctx_t *x, const quac_opened_t *q) {
  return quac_destroy(x->c, q->handle, x->force);
}

static int act_close(ctx_t *x, const quac_opened_t *q) { return quac_close_queue(x->c, q->handle); }

static int verb_rm(ctx_t *x) { return each_name(x, "removed", act_destroy); }

static int verb_close(ctx_t *x) { return each_name(x, "closed", act_close); }

/* Prints a wire made or removed (dst NULL for unwire). */
static void print_wire(const ctx_t *x, const char *done, const char *src, const char *callout,
                       uint64_t src_id, const char *dst, const char *entry, uint64_t dst_id) {
  rec_t r = {0};
  rec_str(&r, "op", x->verb->name);
  rec_str(&r, "src", src);
  rec_u64(&r, "src_id", src_id);
  rec_str(&r, "callout", callout);
  if (dst != NULL) {
    rec_str(&r, "dst", dst);
    rec_u64(&r, "dst_id", dst_id);
    rec_str(&r, "entry", entry);
  }
  rec_text(&r, "done", done);
  emit(x, &r, dst != NULL ? "{done} {src}.{callout} -> {dst}.{entry}" : "{done} {src}.{callout}");
}

static int verb_wire(ctx_t *x) {
  char src[256], dst[256];
  const char *callout, *entry;
  if (!split_dot(x->argv[0], src, sizeof src, &callout))
    return usage_error(x, "'%s' is not SRC.CALLOUT", x->argv[0]);
  if (!split_dot(x->argv[1], dst, sizeof dst, &entry))
    return usage_error(x, "'%s' is not DST.CALLENTRY", x->argv[1]);
  quac_opened_t s, d;
  int e = open_name(x, src, &s);
  if (e == EXIT_OK)
    e = open_name(x, dst, &d);
  if (e != EXIT_OK)
    return e;
  int r = quac_wire(x->c, s.handle, callout, d.handle, entry);
  if (r < 0)
    return fail(x->c, "wire", r);
  print_wire(x, "wired", src, callout, s.id, dst, entry, d.id);
  return EXIT_OK;
}

static int verb_unwire(ctx_t *x) {
  char src[256];
  const char *callout;
  if (!split_dot(x->argv[0], src, sizeof src, &callout))
    return usage_error(x, "'%s' is not SRC.CALLOUT", x->argv[0]);
  quac_opened_t s;
  int e = open_name(x, src, &s);
  if (e != EXIT_OK)
    return e;
  int r = quac_unwire(x->c, s.handle, callout);
  if (r < 0)
    return fail(x->c, "unwire", r);
  print_wire(x, "unwired", src, callout, s.id, NULL, NULL, 0);
  return EXIT_OK;
}

/* The type of an opened quaject, from the daemon's table (NULL after a message). */
static const quac_type_info_t *type_of(ctx_t *x, const quac_opened_t *q, int *rc) {
  const quac_type_list_t *l = types_of(x, rc);
  return l != NULL ? quac_type_find(l, q->type) : NULL;
}

static int verb_call(ctx_t *x) {
  const char *name = x->argv[0], *entry = x->argv[1];
  uint64_t args[QUAC_MAX_ARGS];
  size_t nargs = (size_t)(x->argc - 2);
  for (size_t i = 0; i < nargs; i++)
    if (!parse_word(x->argv[2 + i], &args[i]))
      return usage_error(x, "'%s' is not a number (decimal, 0x hex or negative decimal)",
                         x->argv[2 + i]);
  quac_opened_t q;
  int rc = open_name(x, name, &q);
  if (rc != EXIT_OK)
    return rc;
  char what[160];
  snprintf(what, sizeof what, "%s.%s", name, entry);
  /* The entry and its arity are checked here, so that too few and too many
   * arguments are both usage errors (2), and a misspelt entry gets a hint. */
  const quac_type_info_t *t = type_of(x, &q, &rc);
  if (t == NULL)
    return rc != EXIT_OK ? rc : REFUSE(QUA_ENOTYPE, name, "type '%s' is unknown", q.type);
  const quac_member_info_t *m = NULL;
  for (size_t i = 0; i < t->nentries; i++)
    if (strcmp(t->entries[i].name, entry) == 0)
      m = &t->entries[i];
  if (m == NULL) {
    char dym[96], all[256];
    return REFUSE(QUA_ENOENTRY, what, "%s has no callentry '%s'%s (it has %s)", t->name, entry,
                  did_you_mean(dym, sizeof dym, "", entry, t->entries, t->nentries,
                               sizeof t->entries[0]),
                  name_list(all, sizeof all, t->entries, t->nentries, sizeof t->entries[0]));
  }
  if (m->remote && nargs != m->arity)
    return usage_error(x, "%s.%s takes %" PRIu32 " argument%s, not %zu", t->name, m->name,
                       m->arity, m->arity == 1 ? "" : "s", nargs);
  quac_result_t res;
  int r = quac_invoke(x->c, q.handle, entry, args, nargs, &res);
  if (r < 0)
    return fail(x->c, what, r);
  size_t nf = res.nfired < QUAC_MAX_FIRED ? res.nfired : QUAC_MAX_FIRED;
  /* The fired callbacks: a JSON array, and text lines after the result.
   * (Callback names are identifiers: no escaping needed.) */
  char fired[QUAC_MAX_FIRED * (QUAC_NAME_MAX + 48) + 8], lines[sizeof fired + 64];
  size_t fn = (size_t)snprintf(fired, sizeof fired, "["), ln = 0;
  lines[0] = '\0';
  if (res.has_result)
    ln += (size_t)snprintf(lines, sizeof lines, "%" PRIu64, res.result);
  for (size_t i = 0; i < nf; i++) {
    fn += (size_t)snprintf(fired + fn, sizeof fired - fn, "%s{\"callback\":\"%s\",\"arg\":%" PRIu64 "}",
                           i ? "," : "", res.fired[i].callback, res.fired[i].arg);
    ln += (size_t)snprintf(lines + ln, sizeof lines - ln, "%scallback %s %" PRIu64, ln ? "\n" : "",
                           res.fired[i].callback, res.fired[i].arg);
  }
  snprintf(fired + fn, sizeof fired - fn, "]");
  if (!res.has_result && nf == 0)
    snprintf(lines, sizeof lines, "%s", res.status == QUA_DIVERTED ? "diverted (downstream)" : "ok");
  rec_t rec = {0};
  rec_str(&rec, "name", name);
  rec_str(&rec, "entry", entry);
  rec_str(&rec, "status", res.status == QUA_DIVERTED ? "DIVERTED" : "OK");
  if (res.has_result)
    rec_u64(&rec, "result", res.result);
  else
    rec_null(&rec, "result");
  rec_raw(&rec, "fired", fired);
  rec_text(&rec, "lines", lines);
  emit(x, &rec, "{lines}");
  return EXIT_OK;
}

/* Checks that the opened quaject is a queue, for put, get and drain. */
static int need_queue(ctx_t *x, const char *name, const quac_opened_t *q) {
  if (strcmp(q->type, "queue") == 0 || strcmp(q->type, "m68k-queue") == 0)
    return EXIT_OK;
  return REFUSE(QUA_EINVAL, name, "a %s, not a queue: %s takes a queue%s", q->type,
                x->verb->name,
                strcmp(x->verb->name, "drain") == 0
                    ? " (wire the callout to a queue's put, and drain that queue)"
                    : " (see 'qua call' for other callentries)");
}

static int verb_put(ctx_t *x) {
  const char *name = x->argv[0];
  int nitems = x->argc - 1;
  quac_call_t *calls = calloc(QUA_CLI_BATCH, sizeof *calls);
  quac_result_t *res = calloc(QUA_CLI_BATCH, sizeof *res);
  int rc = EXIT_OK;
  if (calls == NULL || res == NULL) {
    rc = REFUSE(QUA_ENOMEM, "put", "out of memory");
    goto out;
  }
  for (int i = 0; i < nitems; i++) {
    if (!parse_word(x->argv[1 + i], &calls[0].args[0])) {
      rc = usage_error(x, "'%s' is not a number", x->argv[1 + i]);
      goto out;
    }
  }
  quac_opened_t q;
  rc = open_name(x, name, &q);
  if (rc == EXIT_OK)
    rc = need_queue(x, name, &q);
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
        rc = report(EXIT_REFUSED, quac_err_name(res[i].status), res[i].status, what, "%s",
                    quac_strerror(res[i].status));
        goto out;
      }
      const char *cb = res[i].nfired > 0 ? res[i].fired[0].callback : NULL;
      bool stored = res[i].status == 0;
      rec_t rec = {0};
      rec_str(&rec, "name", name);
      rec_u64(&rec, "item", v);
      rec_bool(&rec, "stored", stored);
      if (cb != NULL)
        rec_str(&rec, "callback", cb);
      rec_text(&rec, "what", stored ? "stored" : cb != NULL ? cb : "diverted");
      emit(x, &rec, "{what} {item}");
    }
  }
out:
  free(calls);
  free(res);
  return rc;
}

/* Prints one item taken from a queue, numbered from 1 (get, drain). */
static void print_item_line(const ctx_t *x, const char *name, uint64_t item, uint64_t seq) {
  rec_t r = {0};
  rec_str(&r, "name", name);
  rec_u64(&r, "item", item);
  rec_u64(&r, "seq", seq);
  emit(x, &r, "{item}");
}

/* Prints how taking from a queue ended: "(empty)", "(closed)". */
static void print_end_line(const ctx_t *x, const char *name, const char *callback) {
  rec_t r = {0};
  rec_str(&r, "name", name);
  rec_str(&r, "callback", callback);
  emit(x, &r, "({callback})");
}

static int verb_get(ctx_t *x) {
  const char *name = x->argv[0];
  uint64_t n = 1;
  if (x->argc > 1 && (!parse_word(x->argv[1], &n) || x->argv[1][0] == '-' || n == 0))
    return usage_error(x, "'%s' is not a positive count", x->argv[1]);
  quac_opened_t q;
  int rc = open_name(x, name, &q);
  if (rc == EXIT_OK)
    rc = need_queue(x, name, &q);
  if (rc != EXIT_OK)
    return rc;
  quac_call_t *calls = calloc(QUA_CLI_BATCH, sizeof *calls);
  quac_result_t *res = calloc(QUA_CLI_BATCH, sizeof *res);
  if (calls == NULL || res == NULL) {
    rc = REFUSE(QUA_ENOMEM, "get", "out of memory");
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
        rc = report(EXIT_REFUSED, quac_err_name(res[i].status), res[i].status, name, "get: %s",
                    quac_strerror(res[i].status));
        goto out;
      }
      if (res[i].status == QUA_DIVERTED || !res[i].has_result) {
        print_end_line(x, name, res[i].nfired > 0 ? res[i].fired[0].callback : "empty");
        goto out;
      }
      print_item_line(x, name, res[i].result, done + 1);
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
  bool destroyed;       /* the quaject was destroyed: no event follows */
} sink_t;

static void print_event(void *vctx, quac_conn_t *c, const quac_event_t *ev) {
  sink_t *s = vctx;
  if (s->destroyed || (s->x->has_count && s->printed >= s->x->count))
    return;
  if (strcmp(ev->callback, "destroyed") == 0) {
    s->destroyed = true;
    return;
  }
  s->printed++;
  rec_t r = {0};
  rec_str(&r, "name", s->name);
  rec_str(&r, "callback", ev->callback);
  rec_u64(&r, "arg", ev->arg);
  rec_u64(&r, "seq", s->printed);
  rec_u64(&r, "callback_seq", ev->seq);
  rec_u64(&r, "dropped", ev->dropped);
  emit(s->x, &r, ev->dropped > 0 ? "{name} {callback} {arg} seq={seq} dropped={dropped}"
                                 : "{name} {callback} {arg} seq={seq}");
  fflush(stdout);
}

static void print_item(void *vctx, quac_conn_t *c, const quac_event_t *ev) {
  sink_t *s = vctx;
  if (ev->binding != s->binding || s->closed || s->destroyed)
    return;
  if (strcmp(ev->callback, "destroyed") == 0) {
    s->destroyed = true;
    return;
  }
  if (strcmp(ev->callback, "closed") == 0) {
    /* The queue was closed; every item it held was printed before this. */
    s->closed = true;
    print_end_line(s->x, s->name, "closed");
    fflush(stdout);
    return;
  }
  s->printed++;
  s->to_credit++;
  print_item_line(s->x, s->name, ev->arg, s->printed);
  fflush(stdout);
}

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

/* Runs the event loop of watch and drain until --count lines were printed,
 * a drained queue was closed, the quaject was destroyed (exit 4), a signal
 * asks to stop, or the connection fails (exit 3). */
static int event_loop(ctx_t *x, sink_t *s, bool drain) {
  uint64_t credited = drain ? x->window : 0;
  while (!stop_requested && !s->closed && !s->destroyed &&
         !(x->has_count && s->printed >= x->count)) {
    int r = quac_poll(x->c, 250);
    if (s->closed || s->destroyed)
      break; /* its last event came before the connection's end */
    if (r == QUA_ECONN)
      return report(EXIT_NOCONN, "ECONN", r, x->verb->name,
                    "quad closed the connection (it stopped, or was restarted)");
    if (r < 0)
      return fail(x->c, x->verb->name, r);
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
          return fail(x->c, x->verb->name, r);
        credited += grant;
      }
    }
  }
  if (s->destroyed)
    return report(EXIT_GONE, "EGONE", 0, x->verb->name, "%s was destroyed", s->name);
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
  const quac_type_info_t *t = type_of(x, &q, &rc);
  if (t == NULL)
    return rc != EXIT_OK ? rc : REFUSE(QUA_ENOTYPE, name, "type '%s' is unknown", q.type);
  if (t->ncallbacks == 0)
    return REFUSE(QUA_ENOCALLBACK, name, "a %s has no callbacks to watch", q.type);
  /* The callbacks named, else all of the type's; each checked first. */
  const char *want[64];
  size_t nwant = 0;
  for (int i = 1; i < x->argc && nwant < 64; i++)
    want[nwant++] = x->argv[i];
  for (size_t i = 0; x->argc == 1 && i < t->ncallbacks && nwant < 64; i++)
    want[nwant++] = t->callbacks[i].name;
  for (size_t i = 0; i < nwant; i++) {
    bool known = false;
    for (size_t k = 0; k < t->ncallbacks; k++)
      known = known || strcmp(t->callbacks[k].name, want[i]) == 0;
    if (!known) {
      char dym[96], all[256];
      return REFUSE(QUA_ENOCALLBACK, name, "%s has no callback '%s'%s (it has %s)", t->name,
                    want[i],
                    did_you_mean(dym, sizeof dym, "", want[i], t->callbacks, t->ncallbacks,
                                 sizeof t->callbacks[0]),
                    name_list(all, sizeof all, t->callbacks, t->ncallbacks,
                              sizeof t->callbacks[0]));
    }
  }
  char bound[512] = "";
  size_t nb = 0;
  for (size_t i = 0; i < nwant; i++) {
    uint64_t b;
    int r = quac_bind_callback(x->c, q.handle, want[i], &b);
    if (r < 0)
      return fail(x->c, want[i], r);
    if (nb < sizeof bound)
      nb += (size_t)snprintf(bound + nb, sizeof bound - nb, " %s", want[i]);
  }
  /* Said on stderr once the bindings are in place, so scripts can wait for it. */
  fprintf(stderr, "%s: watching %s:%s\n", prog, name, bound);
  sink_t s = {.x = x, .name = name};
  quac_on_event(x->c, print_event, &s);
  catch_signals();
  return event_loop(x, &s, false);
}

static int verb_drain(ctx_t *x) {
  const char *name = x->argv[0];
  if (x->window == 0)
    return usage_error(x, "--window must be at least 1");
  quac_opened_t q;
  int rc = open_name(x, name, &q);
  if (rc == EXIT_OK)
    rc = need_queue(x, name, &q);
  if (rc != EXIT_OK)
    return rc;
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

/* --- graph and top ---------------------------------------------------------- */

/* Writes s as the inside of a DOT double-quoted string. */
static void dot_str(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    fputc(*s, f);
  }
}

/* The value of "key=VALUE" in a state line, copied into buf ("" if none). */
static const char *state_word(const char *state, const char *key, char *buf, size_t len) {
  size_t k = strlen(key);
  buf[0] = '\0';
  for (const char *p = state; p != NULL && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL)
    if (strncmp(p, key, k) == 0 && p[k] == '=') {
      size_t n = strcspn(p + k + 1, " ");
      snprintf(buf, len, "%.*s", (int)n, p + k + 1);
      break;
    }
  return buf;
}

/* The graph in DOT: a node per quaject (name, type and id, state), an edge
 * per wire labelled CALLOUT -> ENTRY, and for a link the peer quad it
 * forwards to, as a node of its own. */
static void write_dot(FILE *f, const quac_quaject_list_t *l) {
  char buf[64], peer[300], remote[160], st[32];
  fprintf(f, "digraph quad {\n  rankdir=LR;\n"
             "  node [shape=box, style=rounded, fontname=\"monospace\", fontsize=10];\n"
             "  edge [fontname=\"monospace\", fontsize=9];\n");
  for (size_t i = 0; i < l->nquajects; i++) {
    const quac_quaject_info_t *q = &l->quajects[i];
    fprintf(f, "  q%" PRIu64 " [label=\"", q->id);
    dot_str(f, shown_name(buf, sizeof buf, q->name, q->id));
    fprintf(f, "\\n%s #%" PRIu64 "\\n", q->type, q->id);
    dot_str(f, q->state);
    fprintf(f, "\"");
    state_word(q->state, "state", st, sizeof st);
    if (strstr(q->state, "closed") != NULL || strcmp(st, "down") == 0)
      fprintf(f, ", style=\"rounded,filled\", fillcolor=\"%s\"",
              strcmp(st, "down") == 0 ? "#f4cccc" : "#dddddd");
    fprintf(f, "];\n");
    for (size_t w = 0; w < q->nwires; w++)
      fprintf(f, "  q%" PRIu64 " -> q%" PRIu64 " [label=\"%s -> %s\"];\n", q->id,
              q->wires[w].dst_id, q->wires[w].callout, q->wires[w].entry);
    for (size_t k = 0; k < q->nbindings; k++) {
      const quac_binding_info_t *b = &q->bindings[k];
      fprintf(f, "  q%" PRIu64 " -> conn%" PRIu64 " [style=dotted, label=\"%s%s\"];\n", q->id, b->conn,
              b->member, b->callout ? " (items)" : "");
    }
    if (strcmp(q->type, "link") == 0) {
      state_word(q->state, "peer", peer, sizeof peer);
      state_word(q->state, "remote", remote, sizeof remote);
      fprintf(f, "  peer%" PRIu64 " [shape=ellipse, label=\"quad at ", q->id);
      dot_str(f, peer);
      fprintf(f, "\"];\n  q%" PRIu64 " -> peer%" PRIu64 " [style=dashed, label=\"", q->id, q->id);
      dot_str(f, remote);
      fprintf(f, "\"];\n");
    }
  }
  /* Each bound client once, as an oval. */
  uint64_t *seen = NULL;
  size_t nseen = 0, cap = 0;
  for (size_t i = 0; i < l->nquajects; i++)
    for (size_t k = 0; k < l->quajects[i].nbindings; k++) {
      const quac_binding_info_t *b = &l->quajects[i].bindings[k];
      size_t j = 0;
      while (j < nseen && seen[j] != b->conn)
        j++;
      if (j < nseen)
        continue;
      if (nseen == cap) {
        uint64_t *more = realloc(seen, (cap = cap * 2 + 8) * sizeof *seen);
        if (more == NULL)
          break; /* the oval goes unlabelled; dot still draws it */
        seen = more;
      }
      seen[nseen++] = b->conn;
      fprintf(f, "  conn%" PRIu64 " [shape=ellipse, label=\"client conn %" PRIu64 "\\n", b->conn,
              b->conn);
      dot_str(f, b->peer);
      fprintf(f, "\"];\n");
    }
  free(seen);
  fprintf(f, "}\n");
}

static int verb_graph(ctx_t *x) {
  if (x->o->json)
    return usage_error(x, "graph prints Graphviz's DOT; 'qua ls --json' gives the same as JSON");
  quac_quaject_list_t *l;
  int rc = list_all(x, "graph", &l);
  if (rc != EXIT_OK)
    return rc;
  if (x->svg == NULL) {
    write_dot(stdout, l);
    quac_free(l);
    return EXIT_OK;
  }
  /* Rendered by dot itself, its error (a missing Graphviz, a file that
   * cannot be written) on our stderr. */
  char cmd[4200];
  const char *p = x->svg;
  size_t n = (size_t)snprintf(cmd, sizeof cmd, "dot -Tsvg -o '");
  for (; *p && n + 8 < sizeof cmd; p++)
    n += (size_t)snprintf(cmd + n, sizeof cmd - n, *p == '\'' ? "'\\''" : "%c", *p);
  snprintf(cmd + n, sizeof cmd - n, "'");
  FILE *f = popen(cmd, "w");
  if (f == NULL) {
    quac_free(l);
    return report(EXIT_REFUSED, "EIO", 0, "graph", "cannot run dot: %s", strerror(errno));
  }
  write_dot(f, l);
  quac_free(l);
  int st = pclose(f);
  if (st != 0)
    return report(EXIT_REFUSED, "EIO", 0, "graph",
                  WIFEXITED(st) && WEXITSTATUS(st) == 127
                      ? "Graphviz's dot is not installed (apt-get install graphviz)"
                      : "dot could not render %s", x->svg);
  if (!x->o->json)
    fprintf(stderr, "qua: graph: wrote %s\n", x->svg);
  return EXIT_OK;
}

static int by_id(const void *key, const void *elem) {
  uint64_t id = *(const uint64_t *)key, other = ((const quac_quaject_info_t *)elem)->id;
  return id < other ? -1 : id > other;
}

/* The quaject with this id in the previous sample, or NULL. List gives
 * quajects in ascending ids (its pages go by after_id), so a binary search. */
static const quac_quaject_info_t *top_find(const quac_quaject_list_t *l, uint64_t id) {
  return bsearch(&id, l->quajects, l->nquajects, sizeof l->quajects[0], by_id);
}

/* The numbers of a state line that changed since the previous one, and
 * how fast (per second). */
typedef struct top_rate {
  char key[32];
  double per_s;
} top_rate_t;

static size_t top_rates(const char *was, const char *now, double dt, top_rate_t *out, size_t max) {
  size_t n = 0;
  for (const char *p = now; p != NULL && *p && n < max; p = strchr(p, ' '), p = p ? p + 1 : NULL) {
    const char *eq = strchr(p, '=');
    const char *sp = strchr(p, ' ');
    if (eq == NULL || (sp != NULL && eq > sp) || (size_t)(eq - p) >= sizeof out[n].key)
      continue;
    snprintf(out[n].key, sizeof out[n].key, "%.*s", (int)(eq - p), p);
    char old[32], *end;
    unsigned long long v = strtoull(eq + 1, &end, 10);
    if (end == eq + 1 || (*end != ' ' && *end != '\0') ||
        state_word(was, out[n].key, old, sizeof old)[0] == '\0')
      continue;
    out[n].per_s = ((double)v - strtod(old, NULL)) / dt;
    if (out[n].per_s != 0)
      n++;
  }
  return n;
}

static int top_sample(ctx_t *x, quac_stats_t *st, quac_quaject_list_t **l, double *t) {
  int r = quac_stats(x->c, st);
  if (r < 0)
    return fail(x->c, "top", r);
  *t = now_s();
  return list_all(x, "top", l);
}

/* One frame: the daemon's counts and rates, then each quaject's state and
 * the rates of its numbers since the previous sample. */
static void top_frame(ctx_t *x, const quac_stats_t *a, const quac_stats_t *b, double dt,
                      const quac_quaject_list_t *prev, const quac_quaject_list_t *l) {
  char buf[64];
  pool_t pl = {0};
  rec_t head = {0};
  rec_u64(&head, "connections", b->connections);
  rec_u64(&head, "quajects", b->quajects);
  rec_u64(&head, "requests", b->requests);
  rec_num(&head, "requests_per_s", (double)(b->requests - a->requests) / dt);
  rec_num(&head, "events_per_s", (double)(b->events_sent - a->events_sent) / dt);
  rec_u64(&head, "events_dropped", b->events_dropped);
  rec_text(&head, "req_rate", pool_fmt(&pl, "%.0f", (double)(b->requests - a->requests) / dt));
  rec_text(&head, "ev_rate", pool_fmt(&pl, "%.0f", (double)(b->events_sent - a->events_sent) / dt));
  rec_text(&head, "in", pool_fmt(&pl, "%.0f", (double)(b->bytes_in - a->bytes_in) / dt));
  rec_text(&head, "out", pool_fmt(&pl, "%.0f", (double)(b->bytes_out - a->bytes_out) / dt));
  rec_text(&head, "up", pool_fmt(&pl, "%" PRIu64, b->uptime_ms / 1000));
  emit(x, &head,
       "quad: connections {connections}, quajects {quajects}, requests {requests} ({req_rate}/s), "
       "events {ev_rate}/s (dropped {events_dropped}), in {in} B/s, out {out} B/s, up {up} s\n");
  rec_t *rows = pool_recs(&pl, l->nquajects);
  for (size_t i = 0; i < l->nquajects; i++) {
    const quac_quaject_info_t *q = &l->quajects[i];
    const quac_quaject_info_t *p = top_find(prev, q->id);
    top_rate_t r[16];
    size_t nr = top_rates(p != NULL ? p->state : "", q->state, dt, r, 16);
    rec_t *rates = pool_recs(&pl, nr), *row = &rows[i];
    const char *text = "";
    for (size_t k = 0; k < nr; k++) {
      rec_str(&rates[k], "key", pool_fmt(&pl, "%s", r[k].key));
      rec_num(&rates[k], "per_s", r[k].per_s);
      text = pool_fmt(&pl, "%s%s%s %+.0f/s", text, k ? " " : "", r[k].key, r[k].per_s);
    }
    rec_str(row, "name", pool_fmt(&pl, "%s", shown_name(buf, sizeof buf, q->name, q->id)));
    rec_u64(row, "id", q->id);
    rec_str(row, "type", q->type);
    rec_state(row, "state", q->state);
    rec_map(row, "rates", rates, nr);
    rec_text(row, "rates_text", text);
  }
  static const rec_col_t cols[] = {{"ID", "id", 6},         {"NAME", "name", 0},
                                   {"TYPE", "type", 0},     {"STATE", "state", 0},
                                   {"RATES", "rates_text", 0}};
  emit_table(x, rows, l->nquajects, cols, 5);
  pool_free(&pl);
  fflush(stdout);
}

static int verb_top(ctx_t *x) {
  quac_stats_t a, b;
  quac_quaject_list_t *la = NULL, *lb = NULL;
  double ta, tb;
  int rc = top_sample(x, &a, &la, &ta);
  if (rc != EXIT_OK)
    return rc;
  bool tty = isatty(STDOUT_FILENO) && !x->once && !x->o->json;
  catch_signals();
  uint64_t frames = 0;
  while (!stop_requested) {
    /* A second between samples, in slices, so ^C ends it at once. */
    for (int i = 0; i < 10 && !stop_requested; i++) {
      struct timespec ts = {0, 100000000};
      nanosleep(&ts, NULL);
    }
    if (stop_requested)
      break;
    rc = top_sample(x, &b, &lb, &tb);
    if (rc != EXIT_OK)
      break;
    if (tty)
      printf("\033[H\033[2J");
    top_frame(x, &a, &b, tb - ta > 0 ? tb - ta : 1, la, lb);
    quac_free(la);
    la = lb;
    lb = NULL;
    a = b;
    ta = tb;
    frames++;
    if (x->once || (x->has_count && frames >= x->count))
      break;
  }
  quac_free(la);
  quac_free(lb);
  return rc;
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
     "creation parameters (default, range; synth=stencil|off is every type's),\n"
     "callentries (name/arity, \"-> word\" when they return one), callouts and\n"
     "callbacks. With --json, one object per type.\n"},
    {"ls", 0, 0, "", verb_ls, "ls", "list the quajects with their state and wires",
     "One line per quaject: its daemon-wide id, its published name (\"#ID\" when\n"
     "it has none), its type, its live state (\"count=3 capacity=4 variant=spsc\n"
     "synth=stencil\") and its wires out (\"out->q.put\", \"-\" for none). Columns\n"
     "are as wide as their widest cell. With --json, one object per quaject, as\n"
     "'qua show --json' prints it but without wires_in, bindings and impls.\n"},
    {"show", 1, 1, "code", verb_show, "show [--code] NAME", "describe one published quaject",
     "Prints the quaject's name, id, type, state, parameter values (synth too),\n"
     "its wires out (\"wire:  CALLOUT -> DST.ENTRY\"), the wires into it\n"
     "(\"wired: SRC.CALLOUT -> ENTRY\"), the clients bound to it (\"bound:\n"
     "CALLBACK -> conn N (PEER)\", a drained callout marked \"(drained)\") and\n"
     "the code each callentry runs, with\n"
     "how long its synthesis took:\n"
     "  generic spsc            the generic C code (synth=off, or no template)\n"
     "  stencil spsc            code synthesised for the site from a template\n"
     "  chain stencil tee+pass 1w+spsc | pass 1w+spsc\n"
     "                          one piece of code for a site and the callentries\n"
     "                          wired behind it ('+': fallen into; ' | ': called)\n"
     "  no site (spsc)          nobody has opened the entry yet\n"
     "A pump's step is listed as \"(step)\".\n"
     "  $ qua show q\n"
     "  impl:    put: stencil spsc (synthesised in 420 ns)\n"
     "A target=m68k quaject's entries run 68030 code on quad's quamachine:\n"
     "  m68k stencil put_sp_t at 0x00100a40, 60 bytes, 23 insns/call, ~70 cycles/call\n"
     "                          the template, where the code is, and the mean\n"
     "                          instructions and estimated MC68030 cycles per call\n"
     "--code prints that code under each entry, disassembled (x86-64 with\n"
     "capstone, m68k with the project's own disassembler): a label where each\n"
     "template of a chain starts (\"<q.put spsc>:\"), one instruction a line,\n"
     "and on each instruction that holds a patched hole the hole's name and\n"
     "value, and for a call or jump into another template of the same code\n"
     "that template's callentry:\n"
     "  $ qua show --code t\n"
     "  impl:    put: chain stencil tee+spsc | spsc (synthesised in 13030 ns)\n"
     "           x86-64 code at 0x55bf95843100, 313 bytes, 3 parts, 20 holes patched\n"
     "    <t.put tee>:\n"
     "      55bf95843117  call 0x55bf958431d0    ; hole call0=0x55bf958431d0 -> qa.put\n"
     "    <qb.put spsc>:\n"
     "      55bf9584317b  cmp r8, 0x20           ; hole cap=32\n"
     "      55bf95843195  and eax, 0x1f          ; hole mask=31\n"
     "Values below 65536 are decimal, others hex. Generic code says so instead.\n"
     "With --json, each impl gets \"machine_code\": null for generic code, else\n"
     "the machine, address, bytes' size, parts, holes and the listing.\n"},
    {"stats", 0, 0, "", verb_stats, "stats", "print the daemon's counters",
     "Connections, quajects, requests served, events sent and dropped, bytes in\n"
     "and out, and uptime, one \"name value\" line each.\n"},
    {"create", 2, -1, "", verb_create, "create TYPE NAME [KEY=VALUE ...]",
     "create a quaject and publish it as NAME",
     "Creates a quaject of TYPE from KEY=VALUE parameters (decimal or 0x hex;\n"
     "unlisted keys take their defaults, see 'qua types TYPE'; synth=stencil|off\n"
     "for every type) and publishes it under NAME: 1 to 63 letters, digits, '_'\n"
     "or '-' (anything else is a usage error, 2). It lives on after qua exits,\n"
     "until 'qua rm NAME'.\n"
     "  $ qua create queue q capacity=4\n  created q (queue, id 1)\n"},
    {"rm", 1, -1, "force", verb_rm, "rm [--force] NAME ...", "destroy published quajects",
     "Destroys each named quaject and drops its name, printing \"removed NAME\".\n"
     "A quaject that others are wired to is refused (EBUSY) unless --force,\n"
     "which unwires them first. A name that fails is reported and the others\n"
     "are still removed; the exit status is then that of the first failure.\n"
     "Watchers and drainers of a removed quaject end with exit status 4.\n"},
    {"close", 1, -1, "", verb_close, "close NAME ...", "close queues",
     "Closes each named queue: puts from then on fail (ECLOSED), gets take what\n"
     "is left and then fail, and every 'qua drain' of it prints the items left,\n"
     "then \"(closed)\", and exits 0. Closing a closed queue is not an error;\n"
     "a quaject that is not a queue is refused (EINVAL). Unlike 'qua rm', the\n"
     "queue stays, with its name and its wires. Like rm, carries on past a\n"
     "name that fails.\n"
     "  $ qua close q\n  closed q\n"},
    {"wire", 2, 2, "", verb_wire, "wire SRC.CALLOUT DST.CALLENTRY",
     "wire a callout of one quaject to a callentry of another",
     "Wires SRC's callout to DST's callentry; the daemon checks the names and\n"
     "arities and refuses a callout that is already wired. The wire lasts until\n"
     "'qua unwire' or until either quaject is removed.\n"
     "  $ qua wire c.out q.put\n  wired c.out -> q.put\n"},
    {"unwire", 1, 1, "", verb_unwire, "unwire SRC.CALLOUT", "remove a wire",
     "Unwires SRC's callout (ENOTWIRED when it is not wired).\n"},
    {"call", 2, 4, "", verb_call, "call NAME ENTRY [ARG ...]", "invoke a callentry",
     "Calls NAME's callentry ENTRY with its word arguments (decimal, 0x hex, or\n"
     "negative decimal as two's complement; 'qua types' gives each entry's\n"
     "arity, and too few or too many is a usage error, 2). Prints the result\n"
     "word, if the entry returns one, then one line \"callback NAME ARG\" for each\n"
     "callback that fired to this client on this call (a put into a full queue\n"
     "prints \"callback full ITEM\": the item was not stored). \"ok\" when there\n"
     "is neither. \"diverted (downstream)\" when the call ended in a callback of\n"
     "a quaject wired behind NAME, which went to that quaject and not to this\n"
     "client (a counter's pass into a full queue: the queue's full reached the\n"
     "counter's callout).\n"
     "  $ qua call c add 5\n  5\n"},
    {"put", 2, -1, "", verb_put, "put NAME VALUE ...", "put words into a queue",
     "Puts each VALUE into queue NAME, in order, and prints \"stored V\" or, when\n"
     "the queue was full, \"full V\": the queue's full callback reached this\n"
     "client and V was not stored. Exit status 0 either way.\n"},
    {"get", 1, 2, "", verb_get, "get NAME [N]", "take up to N words from a queue",
     "Takes up to N (default 1) words from queue NAME and prints one per line;\n"
     "when the queue runs empty, prints \"(empty)\" (the empty callback) and stops.\n"
     "With --json, items are numbered (seq) from 1, as drain's are.\n"},
    {"watch", 1, -1, "count", verb_watch, "watch NAME [CALLBACK ...] [--count N]",
     "print callbacks of a quaject as they fire",
     "Binds the named callbacks of NAME (all of its type's callbacks when none\n"
     "is named) to this client and prints one line per event:\n"
     "  NAME CALLBACK ARG seq=S [dropped=D]\n"
     "where S numbers this watch's events from 1 and D says how many events of\n"
     "that callback were lost before this one (the daemon bounds what it queues\n"
     "per client). A callback fires once per transition (\"empty\" when a get\n"
     "finds the queue empty after it was not, not on every get). Once bound it\n"
     "says \"qua: watching NAME: CALLBACKS\" on stderr. Runs until N events were\n"
     "printed (--count) or it is interrupted (exit status 0), until NAME is\n"
     "destroyed (\"qua: watch: NAME was destroyed\", exit status 4), or until\n"
     "quad goes away (exit status 3).\n"
     "  $ qua watch q --count 2 &\n  $ qua put q 1 2 3 4 5\n"
     "  q notempty 0 seq=1\n  q full 5 seq=2\n"},
    {"drain", 1, 1, "count,window", verb_drain, "drain NAME [--count N] [--window W]",
     "take a queue's items as they arrive",
     "Binds the consumer side of queue NAME (its \"get\") to this client and prints\n"
     "each item as it arrives. Items are paced by credits: at most W (default 64)\n"
     "are on their way at a time, and more are granted as they are printed, so a\n"
     "slow reader backs the queue up to its producers' \"full\". With --count N it\n"
     "takes exactly N items and exits; otherwise it runs until the queue is\n"
     "closed ('qua close'), printing \"(closed)\" after its last item, or until\n"
     "interrupted (exit status 0 for each). Like watch, it ends with exit status\n"
     "4 when the queue is destroyed and 3 when quad goes away. A quaject that\n"
     "is not a queue is refused: wire its callout to a queue and drain that.\n"},
    {"graph", 0, 0, "dot,svg", verb_graph, "graph [--dot | --svg FILE]",
     "draw the daemon's quajects and wires (Graphviz)",
     "Prints the quajects this client may see as a Graphviz graph in the DOT\n"
     "language: a box per quaject (name, type and id, state line; grey when\n"
     "closed, red for a link that is down), an arrow per wire labelled\n"
     "\"CALLOUT -> ENTRY\", an oval per client connection with callbacks bound\n"
     "or callouts drained (qua watch, qua drain, a program's binds), reached by\n"
     "dotted arrows naming them, and for each link an oval for the quad it\n"
     "forwards to, with the remote name and entry on a dashed arrow. --svg\n"
     "FILE renders it with Graphviz's dot (apt-get install graphviz) instead\n"
     "of printing it; when dot is missing or fails, qua says so and exits with\n"
     "status 1.\n"
     "  $ qua graph --svg graph.svg\n"
     "  $ qua graph | dot -Tpng -o graph.png\n"},
    {"top", 0, 0, "count,once", verb_top, "top [--once] [--count N]",
     "show the daemon's and each quaject's counts and rates, live",
     "Samples the daemon's counters and every quaject's state once a second and\n"
     "shows them as a table that is redrawn in place: the connections,\n"
     "quajects, requests and events with their rates per second, then a line\n"
     "per quaject with its state line and, under RATES, how fast each of its\n"
     "numbers changed since the last sample (\"count +1200/s\"). Runs until\n"
     "interrupted, or for N frames (--count); --once prints one frame (after\n"
     "one second of sampling) without redrawing, for scripts. With --json, a\n"
     "frame is an object for the daemon then one per quaject, with \"rates\".\n"},
    {"help", 0, 1, "", verb_help, "help [VERB|json]", "show help for qua, a verb or the JSON",
     "Without an argument, the overview ('qua --help'); with VERB, its manual\n"
     "(also 'qua VERB --help'); 'qua help json' describes what --json prints.\n"},
};

#define NVERBS (sizeof verbs / sizeof verbs[0])

/* --- Options -------------------------------------------------------------------- */

enum opt_id { O_SOCKET, O_CONNECT, O_TOKEN, O_JSON, O_TIMEOUT, O_HELP, O_VERSION,
              O_COUNT, O_FORCE, O_WINDOW, O_CODE, O_DOT, O_SVG, O_ONCE };

/* Every option of qua: global ones (verb_opt false) go with any verb; a
 * verb option only with the verbs whose `options` name it. */
static const struct opt_def {
  const char *name;
  char short_name;
  bool has_arg;
  bool verb_opt;
  enum opt_id id;
  const char *synopsis;
  const char *help;
} options[] = {
    {"socket", 's', true, false, O_SOCKET, "-s, --socket PATH",
     "quad's unix socket (default: $QUA_SOCKET, as for\n"
     "quad, and an error when set but empty; else\n"
     "/run/qua/quad.sock for root, else\n"
     "$XDG_RUNTIME_DIR/qua/quad.sock)"},
    {"connect", 'c', true, false, O_CONNECT, "-c, --connect HOST:PORT",
     "connect over TCP instead; needs --token-file"},
    {"token-file", 't', true, false, O_TOKEN, "-t, --token-file FILE",
     "the token for TCP (its first line)"},
    {"json", 'j', false, false, O_JSON, "-j, --json",
     "one JSON object per result or event line, and\n"
     "errors as JSON objects on stderr ('qua help json')"},
    {"timeout", 'T', true, false, O_TIMEOUT, "-T, --timeout MS",
     "give up on a request after MS ms (default 30000;\n0: never)"},
    {"help", 'h', false, false, O_HELP, "-h, --help",
     "this text; with a verb, its manual"},
    {"version", 'V', false, false, O_VERSION, "-V, --version", "print qua's version"},
    {"count", 'n', true, true, O_COUNT, "-n, --count N", "watch, drain: stop after N lines"},
    {"force", 'f', false, true, O_FORCE, "-f, --force", "rm: unwire what is wired to it first"},
    {"window", 'w', true, true, O_WINDOW, "-w, --window W", "drain: credits outstanding (64)"},
    {"code", '\0', false, true, O_CODE, "--code", "show: each entry's code, disassembled"},
    {"dot", '\0', false, true, O_DOT, "--dot", "graph: print DOT (the default)"},
    {"svg", '\0', true, true, O_SVG, "--svg FILE", "graph: render with Graphviz's dot into FILE"},
    {"once", '\0', false, true, O_ONCE, "--once", "top: print one frame and exit"},
};

#define NOPTIONS (sizeof options / sizeof options[0])

/* --- Help ----------------------------------------------------------------------- */

static const char help_json[] =
    "With --json (-j), qua prints one JSON object per line on stdout: one per\n"
    "result, item or event. Keys are lower case with '_'; a quaject is \"name\"\n"
    "(and \"id\"), numbers are JSON numbers (64-bit words, unsigned).\n"
    "\n"
    "  ping    {\"pong\":true,\"server\":\"quad 0.1.0\",\"version\":1,\"rtt_us\":71.0}\n"
    "  types   {\"type\":T,\"summary\":S,\"params\":[{\"name\",\"default\",\"min\",\"max\",\n"
    "           \"pow2\",\"help\"}...,{\"name\":\"synth\",\"choices\":[\"stencil\",\"off\"],\n"
    "           \"help\"}],\"entries\":[{\"name\",\"arity\",\"returns\",\"remote\",\"help\"}],\n"
    "           \"callouts\":[{\"name\",\"arity\",\"returns\",\"help\"}],\n"
    "           \"callbacks\":[{\"name\",\"broadcast\",\"help\"}]}\n"
    "  show    {\"name\",\"id\",\"type\",\"state\":{...},\"state_line\",\"params\":{KEY:N},\n"
    "           \"wires_out\":[WIRE],\"wires_in\":[WIRE],\"bindings\":[{\"member\",\n"
    "           \"callout\":BOOL,\"conn\":N,\"peer\"}],\n"
    "           \"impls\":{ENTRY:{\"code\":\"stencil spsc\",\"synth_ns\":N}}}\n"
    "  ls      one object per quaject, as show's without wires_in, bindings\n"
    "          and impls\n"
    "          WIRE is {\"src\",\"src_id\",\"callout\",\"dst\",\"dst_id\",\"entry\"}; a\n"
    "          quaject without a name is \"#ID\" there. \"state\" has the\n"
    "          state line's KEY=VALUE words (a number when VALUE is\n"
    "          decimal, else a string) and its bare words as true:\n"
    "          {\"count\":0,\"capacity\":4,\"variant\":\"spsc\",\"tracked\":true,\n"
    "          \"synth\":\"stencil\"}.\n"
    "  stats   {\"connections\":N,\"quajects\":N,...}\n"
    "  create, rm, close\n"
    "          {\"op\":VERB,\"name\",\"id\"[,\"type\"]}, one per quaject\n"
    "  wire, unwire\n"
    "          {\"op\":VERB,\"src\",\"src_id\",\"callout\"[,\"dst\",\"dst_id\",\"entry\"]}\n"
    "  call    {\"name\",\"entry\",\"status\":\"OK\"|\"DIVERTED\",\"result\":N|null,\n"
    "           \"fired\":[{\"callback\",\"arg\"}]}; DIVERTED with fired [] when the\n"
    "           callback went to a quaject wired behind NAME ('qua help call')\n"
    "  put     {\"name\",\"item\",\"stored\":BOOL[,\"callback\":\"full\"]}\n"
    "  get, drain\n"
    "          {\"name\",\"item\",\"seq\"} per item (seq from 1), then\n"
    "          {\"name\",\"callback\":\"empty\"|\"closed\"} when that ended it\n"
    "  watch   {\"name\",\"callback\",\"arg\",\"seq\",\"callback_seq\",\"dropped\"}: seq\n"
    "          numbers this watch's events from 1, callback_seq the events of\n"
    "          that callback, dropped how many of them were lost before it\n"
    "\n"
    "Errors go to stderr, one object each, and the exit status is as without\n"
    "--json:\n"
    "  {\"error\":MESSAGE,\"status\":NAME,\"code\":N|null,\"subject\":S,\"exit\":N}\n"
    "NAME is the status of the protocol's table (\"ENOTFOUND\", code -25;\n"
    "proto/README.md lists them all), or one of qua's own, whose code is null:\n"
    "\"EUSAGE\" (exit 2, a bad command line) and \"EGONE\" (exit 4, the quaject a\n"
    "watch or drain followed was destroyed). \"subject\" (a name, NAME.ENTRY or\n"
    "a verb) is there when the error is about one. The messages \"watching\"\n"
    "and \"draining\" stay plain text lines on stderr.\n";

static const struct topic {
  const char *name;
  const char *text;
} topics[] = {{"json", help_json}};

static const verb_t *verb_find(const char *name) {
  for (size_t i = 0; i < NVERBS; i++)
    if (strcmp(verbs[i].name, name) == 0)
      return &verbs[i];
  return NULL;
}

static void print_options(FILE *f, bool verb_opts) {
  for (size_t i = 0; i < NOPTIONS; i++) {
    if (options[i].verb_opt != verb_opts)
      continue;
    const char *h = options[i].help;
    /* A synopsis too long for its column gets a line of its own, so two
     * spaces always part it from its help (as doc/mkman.py reads it). */
    if (strlen(options[i].synopsis) > 22)
      fprintf(f, "  %s\n  %-24s", options[i].synopsis, "");
    else
      fprintf(f, "  %-24s", options[i].synopsis);
    while (*h) {
      size_t n = strcspn(h, "\n");
      fprintf(f, "%.*s\n", (int)n, h);
      h += n + (h[n] == '\n');
      if (*h)
        fprintf(f, "  %-24s", "");
    }
  }
}

static void print_overview(FILE *f) {
  fprintf(f,
          "usage: qua [OPTION ...] VERB [ARG ...]   (options may come anywhere)\n"
          "\n"
          "qua talks to quad, the quaject daemon: it creates, wires and calls quajects,\n"
          "and prints their callbacks as they fire.\n"
          "\n"
          "Verbs:\n");
  for (size_t i = 0; i < NVERBS; i++)
    fprintf(f, "  %-42s %s\n", verbs[i].synopsis, verbs[i].summary);
  fprintf(f, "\nOptions:\n");
  print_options(f, false);
  fprintf(f, "\nVerb options:\n");
  print_options(f, true);
  fprintf(f,
          "\n"
          "Options and operands mix as with getopt_long: 'qua ls --json', 'qua put q\n"
          "--help'. \"--\" ends the options; a word that starts with '-' and a digit\n"
          "is an operand (a negative number), not an option.\n"
          "\n"
          "Exit status: 0 ok; 1 refused by the daemon (its message and the status's name\n"
          "on stderr); 2 usage; 3 no connection to the daemon, or it went away; 4 the\n"
          "quaject a watch or drain followed was destroyed.\n"
          "\n"
          "Example:\n"
          "  qua create queue q capacity=4; qua watch q notempty --count 1 &\n"
          "  qua put q 1 2 3 4 5      # the fifth prints \"full 5\"\n"
          "  qua drain q --count 4\n"
          "\n"
          "'qua help VERB' gives a verb's manual, 'qua help json' what --json prints.\n");
}

static void print_indented(FILE *f, const char *p) {
  while (*p) {
    size_t len = strcspn(p, "\n");
    fprintf(f, len ? "    %.*s\n" : "%.*s\n", (int)len, p);
    p += len + (p[len] == '\n');
  }
}

static void print_manual(FILE *f, const verb_t *v) {
  fprintf(f, "NAME\n    qua %s - %s\n\nSYNOPSIS\n    qua [OPTIONS] %s\n\nDESCRIPTION\n", v->name,
          v->summary, v->synopsis);
  print_indented(f, v->manual);
  fprintf(f,
          "\nEXIT STATUS\n    0 ok, 1 refused by the daemon, 2 usage, 3 no connection, 4 the\n"
          "    quaject a watch or drain followed was destroyed.\n"
          "\nSee 'qua --help' for the options every verb takes.\n");
}

static int verb_help(ctx_t *x) {
  if (x->argc == 0) {
    print_overview(stdout);
    return EXIT_OK;
  }
  for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
    if (strcmp(x->argv[0], topics[i].name) == 0) {
      fputs(topics[i].text, stdout);
      return EXIT_OK;
    }
  const verb_t *v = verb_find(x->argv[0]);
  if (v == NULL) {
    char dym[96];
    return usage_error(NULL, "help: no verb or topic '%s'%s", x->argv[0],
                       did_you_mean(dym, sizeof dym, "", x->argv[0], verbs, NVERBS, sizeof verbs[0]));
  }
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
  if (f == NULL)
    return report(EXIT_USAGE, "EUSAGE", 0, "--token-file", "%s: %s", path, strerror(errno));
  if (fgets(buf, (int)len, f) == NULL)
    buf[0] = '\0';
  fclose(f);
  size_t n = strlen(buf);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
                   buf[n - 1] == '\t'))
    buf[--n] = '\0';
  return EXIT_OK;
}

/* Connects as the options say. Any failure to get a usable connection
 * (refused, not there, authentication, version) is exit status 3. */
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
        !parse_word(colon + 1, &port) || port == 0 || port > 65535)
      return usage_error(NULL, "--connect: '%s' is not HOST:PORT", o->connect);
    memcpy(host, o->connect, (size_t)(colon - o->connect));
    host[colon - o->connect] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
      memmove(host, host + 1, strlen(host));
      host[strlen(host) - 1] = '\0';
    }
    token[0] = '\0';
    if (o->token_file != NULL && read_token(o->token_file, token, sizeof token) != EXIT_OK)
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
  if (r >= 0) {
    quac_set_timeout(*out, o->timeout_ms);
    return EXIT_OK;
  }
  /* The library's message names the place already ("PATH: No such file"):
   * say it once. */
  const char *msg = quac_last_error(NULL);
  if (msg == NULL || msg[0] == '\0')
    msg = quac_strerror(r);
  size_t wl = strlen(where);
  if (strncmp(msg, where, wl) == 0 && strncmp(msg + wl, ": ", 2) == 0)
    msg += wl + 2;
  const char *fix = "";
  char fixbuf[PATH_MAX + 160];
  if (r == QUA_EAUTH && o->token_file == NULL)
    fix = "; quad admits TCP clients only with its token: give --token-file FILE";
  else if (r == QUA_EAUTH)
    fix = "; check that --token-file holds the token quad was started with";
  else if (r == QUA_ECONN && o->connect == NULL) {
    snprintf(fixbuf, sizeof fixbuf,
             "; is quad running? start it with 'quad --socket %s', or point --socket or "
             "QUA_SOCKET at its socket",
             where);
    fix = fixbuf;
  }
  return report(EXIT_NOCONN, quac_err_name(r), r, NULL, "cannot connect to quad at %s: %s%s",
                where, msg, fix);
}

/* --- The command line ----------------------------------------------------------- */

static const struct opt_def *opt_find_long(const char *name, size_t len) {
  const struct opt_def *hit = NULL;
  size_t nhits = 0;
  for (size_t i = 0; i < NOPTIONS; i++) {
    if (strncmp(options[i].name, name, len) != 0)
      continue;
    if (options[i].name[len] == '\0')
      return &options[i]; /* exact */
    hit = &options[i];    /* an abbreviation, as getopt_long allows */
    nhits++;
  }
  return nhits == 1 ? hit : NULL;
}

static const struct opt_def *opt_find_short(char c) {
  for (size_t i = 0; i < NOPTIONS; i++)
    if (c != '\0' && options[i].short_name == c)
      return &options[i];
  return NULL;
}

/* Applies one option. Verb options are checked against the verb later
 * (they may come before it): `seen` collects them. */
static int apply_option(const struct opt_def *d, const char *val, opts_t *o, ctx_t *x,
                        const struct opt_def **seen, size_t *nseen, bool *help, bool *version) {
  uint64_t v = 0;
  if (d->has_arg && d->id != O_SOCKET && d->id != O_CONNECT && d->id != O_TOKEN && d->id != O_SVG &&
      (!parse_word(val, &v) || val[0] == '-'))
    return usage_error(NULL, "--%s needs a number, not '%s'", d->name, val);
  if (d->verb_opt && *nseen < NOPTIONS)
    seen[(*nseen)++] = d;
  switch (d->id) {
  case O_SOCKET: o->socket = val; break;
  case O_CONNECT: o->connect = val; break;
  case O_TOKEN: o->token_file = val; break;
  case O_JSON: o->json = json_errors = true; break;
  case O_TIMEOUT:
    if (v > INT_MAX)
      return usage_error(NULL, "--timeout: '%s' is too many milliseconds", val);
    o->timeout_ms = v == 0 ? -1 : (int)v;
    break;
  case O_HELP: *help = true; break;
  case O_VERSION: *version = true; break;
  case O_COUNT:
    x->count = v;
    x->has_count = true;
    break;
  case O_FORCE: x->force = true; break;
  case O_WINDOW: x->window = v; break;
  case O_CODE: x->code = true; break;
  case O_DOT: break;
  case O_SVG: x->svg = val; break;
  case O_ONCE: x->once = true; break;
  }
  return EXIT_OK;
}

/* Parses the whole command line as getopt_long does with permutation:
 * options anywhere, "--" ends them, clustered short options (-jn 3), an
 * option's value attached (--count=3, -n3) or next. A word of '-' and a
 * digit is an operand: a negative number. Leaves the operands in
 * x->argv/x->argc (the verb first) and returns -1 to go on, else an exit
 * status. */
static int parse_command_line(int argc, char **argv, opts_t *o, ctx_t *x) {
  const struct opt_def *seen[NOPTIONS];
  size_t nseen = 0;
  bool help = false, version = false, ended = false;
  char **ops = argv + 1; /* operands, compacted in place */
  int nops = 0;
  /* Errors are JSON from the start when --json is anywhere before "--". */
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0)
      json_errors = true;
  for (int i = 1; i < argc; i++) {
    char *a = argv[i];
    if (ended || a[0] != '-' || a[1] == '\0' || isdigit((unsigned char)a[1])) {
      ops[nops++] = a;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      ended = true;
      continue;
    }
    int rc;
    if (a[1] == '-') {
      const char *name = a + 2, *eq = strchr(name, '=');
      size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
      const struct opt_def *d = opt_find_long(name, len);
      if (d == NULL) {
        char word[64], dym[96];
        snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), name);
        return usage_error(NULL, "unknown option '--%s'%s", word,
                           did_you_mean(dym, sizeof dym, "--", word, options, NOPTIONS,
                                        sizeof options[0]));
      }
      const char *val = NULL;
      if (d->has_arg) {
        if (eq != NULL)
          val = eq + 1;
        else if (i + 1 < argc)
          val = argv[++i];
        else
          return usage_error(NULL, "--%s needs a value", d->name);
      } else if (eq != NULL) {
        return usage_error(NULL, "--%s takes no value", d->name);
      }
      rc = apply_option(d, val, o, x, seen, &nseen, &help, &version);
      if (rc != EXIT_OK)
        return rc;
      continue;
    }
    for (const char *p = a + 1; *p; p++) {
      const struct opt_def *d = opt_find_short(*p);
      if (d == NULL)
        return usage_error(NULL, "unknown option '-%c' in '%s'", *p, a);
      const char *val = NULL;
      if (d->has_arg) {
        if (p[1] != '\0')
          val = p + 1;
        else if (i + 1 < argc)
          val = argv[++i];
        else
          return usage_error(NULL, "-%c (--%s) needs a value", *p, d->name);
      }
      rc = apply_option(d, val, o, x, seen, &nseen, &help, &version);
      if (rc != EXIT_OK)
        return rc;
      if (val != NULL)
        break;
    }
  }
  if (version) {
    printf("qua %s (protocol %u)\n", QUA_VERSION, QUAC_PROTOCOL_VERSION);
    return EXIT_OK;
  }
  if (nops > 0 && (x->verb = verb_find(ops[0])) == NULL) {
    char dym[96];
    return usage_error(NULL, "unknown verb '%s'%s", ops[0],
                       did_you_mean(dym, sizeof dym, "", ops[0], verbs, NVERBS, sizeof verbs[0]));
  }
  if (help) {
    if (x->verb != NULL && x->verb->run != verb_help)
      print_manual(stdout, x->verb);
    else
      print_overview(stdout);
    return EXIT_OK;
  }
  if (x->verb == NULL)
    return usage_error(NULL, "no verb given");
  for (size_t i = 0; i < nseen; i++) {
    const char *allowed = x->verb->options, *hit = strstr(allowed, seen[i]->name);
    size_t len = strlen(seen[i]->name);
    if (hit == NULL || (hit != allowed && hit[-1] != ',') || (hit[len] != '\0' && hit[len] != ','))
      return usage_error(x, "%s takes no --%s", x->verb->name, seen[i]->name);
  }
  x->argv = ops + 1;
  x->argc = nops - 1;
  if (x->argc < x->verb->min_args)
    return usage_error(x, "too few arguments");
  if (x->verb->max_args >= 0 && x->argc > x->verb->max_args)
    return usage_error(x, "too many arguments ('%s' and after)", x->argv[x->verb->max_args]);
  if (o->socket != NULL && o->connect != NULL)
    return usage_error(NULL, "--socket and --connect exclude each other");
  if (o->token_file != NULL && o->connect == NULL)
    return usage_error(NULL, "--token-file goes with --connect");
  return -1;
}

int main(int argc, char **argv) {
  opts_t o = {.timeout_ms = 30000};
  ctx_t x = {.o = &o, .window = QUA_CLI_WINDOW};
  int rc = parse_command_line(argc, argv, &o, &x);
  if (rc >= 0)
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
