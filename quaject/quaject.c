/* quaject.c -- the quaject model: type registry, creation from parameters,
 * sites, wires, watchers, destroy, and the grace periods that make them safe.
 *
 * Design notes (the invariants the rest of libqua relies on):
 *
 *  1. Every control operation runs under the control lock, so the sets of
 *     quajects, sites, wires and watchers change one operation at a time.
 *     Data paths never take it.
 *  2. Readers (callers of callentries, deliverers of callbacks) run inside
 *     a read-side section: the "bulletproof" urcu flavour for arbitrary
 *     threads (qua_call), the QSBR flavour for active quajects' own threads
 *     (pumps, clocks), which are online while they run items and offline
 *     while they sleep. qua__synchronize() waits for a grace period of both.
 *  3. A site becomes reachable only once complete: it is linked into its
 *     target's list, and a wire stored into its source's outs[], with
 *     release stores after every field is set. It is unreachable again
 *     once unlinked; it is freed only after a grace period, so a reader
 *     that loaded it before the unlink finishes its call on valid memory.
 *  4. The target's sites_changed hook runs before a new site is usable and
 *     after a closed site can no longer be running, both under the lock:
 *     so a queue that switches variant sees every caller of the old code
 *     gone before a new caller starts (its hook answers QUA_SITES_WAIT, and
 *     qua__resynth, having re-pointed the sites, waits for a grace period).
 *  5. A quaject with callouts of others wired to it, or with sites open on
 *     it, is not destroyed unless forced; forced destroy unwires those
 *     callouts (never a dangling call) and re-points open user sites at a
 *     stub returning QUA_ESTATE. Its memory is freed after a grace period.
 */
/* Not _LGPL_SOURCE: liburcu-bp's inline read-side code touches its reader
 * registry at addresses its arena does not align as the type demands, which
 * UBSan reports; the out-of-line calls cost a few nanoseconds and keep the
 * library's business inside the library. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <urcu/urcu-bp.h>
#include <urcu/urcu-qsbr.h>

#include "qua-internal.h"

static void storage_unmap(qua_quaject_t *q);

/* --- Errors ----------------------------------------------------------------- */

const char *qua_strerror(int err) { return qua_status_message(err); }

const char *qua_err_name(int err) { return qua_status_name(err); }

/* The reason a hook gave with its refusal; hooks run on the caller's
 * thread, under the control lock. */
static _Thread_local const char *refused_why;
static _Thread_local char refused_buf[160];

int qua__refuse(int code, const char *why) {
  refused_why = why;
  return code;
}

int qua_refuse(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(refused_buf, sizeof refused_buf, fmt, ap);
  va_end(ap);
  refused_why = refused_buf;
  return code;
}

/* The refusal's reason, once. */
static const char *take_why(int code) {
  const char *why = refused_why != NULL ? refused_why : qua_strerror(code);
  refused_why = NULL;
  return why;
}

int qua__error(qua_error_t *err, int code, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* --- Control lock and grace periods ----------------------------------------- */

static pthread_mutex_t ctl_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t next_id = 1;

void qua__ctl_lock(void) { pthread_mutex_lock(&ctl_mutex); }
void qua__ctl_unlock(void) { pthread_mutex_unlock(&ctl_mutex); }

#if defined(__SANITIZE_THREAD__)
char qua__tsan_gp;
#endif

static _Atomic uint64_t grace_periods;

uint64_t qua__grace_periods(void) {
  return atomic_load_explicit(&grace_periods, memory_order_relaxed);
}

void qua__synchronize(void) {
  atomic_fetch_add_explicit(&grace_periods, 1, memory_order_relaxed);
  urcu_bp_synchronize_rcu();
  urcu_qsbr_synchronize_rcu();
  QUA__TSAN_GP_DONE();
}

void qua__quiescent(void) {
  QUA__TSAN_READER_DONE();
  urcu_qsbr_quiescent_state();
}

void qua__offline(void) {
  QUA__TSAN_READER_DONE();
  urcu_qsbr_thread_offline();
}

void qua__online(void) { urcu_qsbr_thread_online(); }

void qua_thread_online(void) { urcu_qsbr_register_thread(); }

static _Atomic int thread_nice;

int qua_set_thread_nice(int increment) {
  return atomic_exchange(&thread_nice, increment < 0 ? 0 : increment > 19 ? 19 : increment);
}

void qua__clock_thread_begin(void) {
  qua_thread_online();
  int inc = atomic_load(&thread_nice);
  if (inc == 0)
    return;
  /* Linux keeps a nice value per thread; a new one starts at its creator's. */
  id_t tid = (id_t)syscall(SYS_gettid);
  errno = 0;
  int cur = getpriority(PRIO_PROCESS, tid);
  if (cur == -1 && errno != 0)
    return;
  (void)setpriority(PRIO_PROCESS, tid, cur + inc > 19 ? 19 : cur + inc);
}

void qua_thread_offline(void) {
  QUA__TSAN_READER_DONE();
  urcu_qsbr_unregister_thread();
}

void qua_thread_quiescent(void) { qua__quiescent(); }

int qua_call(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  urcu_bp_read_lock();
  int r = qua__call(s, a0, a1, ret);
  QUA__TSAN_READER_DONE();
  urcu_bp_read_unlock();
  return r;
}

/* --- Type registry ------------------------------------------------------------ */

#define NBUILTIN 6

/* The built-in types, then those registered by programs (qua_type_register),
 * NULL-terminated. A slot is published with a release store after the type
 * is complete, and never changes again, so lookups take no lock. */
static const qua_type_t *_Atomic all_types[NBUILTIN + QUA_MAX_EXTRA_TYPES + 1] = {
    &qua__queue_type, &qua__buffer_type, &qua__counter_type,
    &qua__pump_type,  &qua__tee_type,    &qua__clock_type,  NULL,
};

const qua_type_t *const *qua_types(void) { return (const qua_type_t *const *)all_types; }

const qua_type_t *qua_type_find(const char *name) {
  if (name == NULL)
    return NULL;
  const qua_type_t *t;
  for (int i = 0; (t = atomic_load_explicit(&all_types[i], memory_order_acquire)) != NULL; i++)
    if (strcmp(t->name, name) == 0)
      return t;
  return NULL;
}

/* The one check of a type table against the model, for qua_type_register()
 * and qua_create_with() alike: QUA_EINVAL for a malformed table (no name,
 * no init hook, a name past QUA_NAME_MAX, a negative count, an entry with
 * an arity out of range or no generic code), QUA_ELIMIT for more members
 * than the model allows. The built-in tables pass by construction. */
static int type_check(const qua_type_t *t, qua_error_t *err) {
  if (t == NULL || t->name == NULL || t->ops.init == NULL)
    return qua__error(err, QUA_EINVAL, "a type needs a name and an init hook");
  if (strlen(t->name) > QUA_NAME_MAX)
    return qua__error(err, QUA_EINVAL, "type name %.*s...: longer than %d characters", 16, t->name,
                      QUA_NAME_MAX);
  if (t->nparams < 0 || t->nentries < 0 || t->ncallouts < 0 || t->ncallbacks < 0)
    return qua__error(err, QUA_EINVAL, "type %s: a negative member count", t->name);
  if (t->nparams > QUA_MAX_PARAMS || t->nentries > QUA_MAX_ENTRIES ||
      t->ncallouts > QUA_MAX_CALLOUTS || t->ncallbacks > QUA_MAX_CALLBACKS)
    return qua__error(err, QUA_ELIMIT,
                      "type %s: %d params, %d entries, %d callouts, %d callbacks; outside the "
                      "model's limits of %d, %d, %d, %d",
                      t->name, t->nparams, t->nentries, t->ncallouts, t->ncallbacks,
                      QUA_MAX_PARAMS, QUA_MAX_ENTRIES, QUA_MAX_CALLOUTS, QUA_MAX_CALLBACKS);
  for (int i = 0; i < t->nentries; i++) {
    const qua_entry_def_t *e = &t->entries[i];
    if (e->arity < 0 || e->arity > QUA_MAX_ARITY)
      return qua__error(err, QUA_EINVAL, "%s.%s: arity %d, expected 0 to %d", t->name, e->name,
                        e->arity, QUA_MAX_ARITY);
    if (e->generic == NULL)
      return qua__error(err, QUA_EINVAL, "%s.%s: no generic code", t->name, e->name);
  }
  return QUA_OK;
}

int qua_type_register(const qua_type_t *t, qua_error_t *err) {
  int r0 = type_check(t, err);
  if (r0 < 0)
    return r0;
  qua__ctl_lock();
  int r = QUA_OK;
  int i = 0;
  while (atomic_load_explicit(&all_types[i], memory_order_relaxed) != NULL) {
    if (strcmp(atomic_load_explicit(&all_types[i], memory_order_relaxed)->name, t->name) == 0) {
      r = qua__error(err, QUA_EEXIST, "a type named %s exists", t->name);
      goto out;
    }
    i++;
  }
  if (i >= NBUILTIN + QUA_MAX_EXTRA_TYPES) {
    r = qua__error(err, QUA_ELIMIT, "%d types registered, the limit", QUA_MAX_EXTRA_TYPES);
    goto out;
  }
  atomic_store_explicit(&all_types[i], t, memory_order_release);
out:
  qua__ctl_unlock();
  return r;
}

void qua_broadcast(qua_quaject_t *q, int cb, uint64_t arg) { qua__broadcast_reader(q, cb, arg); }

/* Looks a name up in a table of structs whose first member is `name`. */
static int find_named(const void *table, size_t stride, int n, const char *name, int notfound) {
  if (name == NULL)
    return notfound;
  for (int i = 0; i < n; i++) {
    const char *const *p = (const char *const *)(const void *)((const char *)table + stride * (size_t)i);
    if (strcmp(*p, name) == 0)
      return i;
  }
  return notfound;
}

int qua_type_entry(const qua_type_t *t, const char *name) {
  return find_named(t->entries, sizeof t->entries[0], t->nentries, name, QUA_ENOENTRY);
}
int qua_type_callout(const qua_type_t *t, const char *name) {
  return find_named(t->callouts, sizeof t->callouts[0], t->ncallouts, name, QUA_ENOCALLOUT);
}
int qua_type_callback(const qua_type_t *t, const char *name) {
  return find_named(t->callbacks, sizeof t->callbacks[0], t->ncallbacks, name, QUA_ENOCALLBACK);
}
int qua_type_param(const qua_type_t *t, const char *name) {
  return find_named(t->params, sizeof t->params[0], t->nparams, name, QUA_ENOPARAM);
}
const char *qua_type_name(const qua_type_t *t) { return t->name; }
const char *qua_type_callback_name(const qua_type_t *t, int cb) {
  return cb >= 0 && cb < t->ncallbacks ? t->callbacks[cb].name : NULL;
}

/* --- Creation ---------------------------------------------------------------- */

/* Parses a decimal or 0x-hexadecimal unsigned 64-bit number, whole string. */
static bool parse_u64(const char *s, uint64_t *out) {
  if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ')
    return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || *end != '\0')
    return false;
  *out = v;
  return true;
}

/* Fills values[] from "key=value" strings and the type's defaults. */
static int parse_params(const qua_type_t *t, const char *const *params, int nparams,
                        uint64_t *values, qua_error_t *err) {
  bool seen[QUA_MAX_PARAMS] = {false};
  for (int i = 0; i < t->nparams; i++)
    values[i] = t->params[i].def;
  if (nparams < 0 || (nparams > 0 && params == NULL))
    return qua__error(err, QUA_EINVAL, "bad parameter list");
  for (int i = 0; i < nparams; i++) {
    const char *kv = params[i];
    const char *eq = kv != NULL ? strchr(kv, '=') : NULL;
    if (eq == NULL || eq == kv)
      return qua__error(err, QUA_EINVAL, "parameter '%s': expected key=value", kv ? kv : "(null)");
    char key[QUA_NAME_MAX + 1];
    size_t klen = (size_t)(eq - kv);
    if (klen > QUA_NAME_MAX)
      return qua__error(err, QUA_ENOPARAM, "parameter name too long");
    memcpy(key, kv, klen);
    key[klen] = '\0';
    int p = qua_type_param(t, key);
    if (p < 0)
      return qua__error(err, QUA_ENOPARAM, "%s has no parameter '%s'", t->name, key);
    if (seen[p])
      return qua__error(err, QUA_EINVAL, "parameter '%s' given twice", key);
    seen[p] = true;
    const qua_param_def_t *d = &t->params[p];
    uint64_t v;
    if (d->flags & QUA_PARAM_STRING) {
      size_t n = strlen(eq + 1);
      if (n < d->min || n > d->max)
        return qua__error(err, QUA_ERANGE, "%s: %zu characters, expected %" PRIu64 " to %" PRIu64,
                          key, n, d->min, d->max);
      values[p] = (uint64_t)(uintptr_t)(eq + 1);
      continue;
    }
    if (!parse_u64(eq + 1, &v))
      return qua__error(err, QUA_EBADVALUE, "%s=%s: not a number", key, eq + 1);
    if (v < d->min || v > d->max)
      return qua__error(err, QUA_ERANGE, "%s=%" PRIu64 ": out of range %" PRIu64 "..%" PRIu64,
                        key, v, d->min, d->max);
    if ((d->flags & QUA_PARAM_POW2) && (v & (v - 1)) != 0)
      return qua__error(err, QUA_ERANGE, "%s=%" PRIu64 ": not a power of two", key, v);
    values[p] = v;
  }
  for (int i = 0; i < t->nparams; i++)
    if ((t->params[i].flags & QUA_PARAM_REQUIRED) && !seen[i])
      return qua__error(err, QUA_EINVAL, "%s needs %s=... (%s)", t->name, t->params[i].name,
                        t->params[i].help ? t->params[i].help : "required");
  return QUA_OK;
}

int qua_create(const char *type, const char *const *params, int nparams, qua_quaject_t **out,
               qua_error_t *err) {
  const qua_type_t *t = qua_type_find(type);
  if (t == NULL)
    return qua__error(err, QUA_ENOTYPE, "no quaject type '%s'", type ? type : "(null)");
  return qua_create_with(t, params, nparams, out, err);
}

int qua_create_with(const qua_type_t *t, const char *const *params, int nparams,
                    qua_quaject_t **out, qua_error_t *err) {
  int rt = type_check(t, err);
  if (rt < 0)
    return rt;
  if (out == NULL)
    return qua__error(err, QUA_EINVAL, "no place to store the quaject");
  /* synth=off|stencil applies to every type; the rest is the type's. */
  qua_synth_mode_t synth = qua_synth_default();
  const char *own[QUA_MAX_PARAMS + 1];
  int nown = 0;
  for (int i = 0; i < nparams && params != NULL; i++) {
    if (params[i] != NULL && strncmp(params[i], "synth=", 6) == 0) {
      if (qua__synth_param(params[i] + 6, &synth) < 0)
        return qua__error(err, QUA_EBADVALUE, "%s: synth takes stencil or off", params[i]);
      continue;
    }
    if (nown == QUA_MAX_PARAMS + 1)
      return qua__error(err, QUA_EINVAL, "too many parameters");
    own[nown++] = params[i];
  }
  uint64_t values[QUA_MAX_PARAMS];
  int r = parse_params(t, own, nown, values, err);
  if (r < 0)
    return r;

  qua_quaject_t *q = calloc(1, sizeof *q + t->state_size);
  if (q == NULL)
    return qua__error(err, QUA_ENOMEM, "out of memory creating %s", t->name);
  q->type = t;
  q->synth = synth;
  q->id = atomic_fetch_add(&next_id, 1);
  memcpy(q->params, values, sizeof values);
  for (int i = 0; i < t->nparams; i++)
    if (t->params[i].flags & QUA_PARAM_STRING)
      q->params[i] = 0; /* the text is the caller's: only init sees it */

  if (t->ops.body != NULL) {
    q->body = calloc(1, sizeof *q->body);
    if (q->body == NULL) {
      free(q);
      return qua__error(err, QUA_ENOMEM, "out of memory creating %s", t->name);
    }
    q->body->fn = t->ops.body;
    q->body->impl = "generic";
    q->body->state = q->state;
    q->body->target = q;
    q->body->entry = QUA_ENTRY_BODY;
  }

  qua__ctl_lock();
  r = t->ops.init(q, values);
  if (r < 0) {
    qua__error(err, r, "%s: %s", t->name, take_why(r));
    goto fail_init;
  }
  if (q->body != NULL)
    qua__resynth(q, false); /* the body's first code, before its thread runs it */
  if (t->ops.start != NULL) {
    r = t->ops.start(q);
    if (r < 0) {
      qua__error(err, r, "%s: cannot start: %s", t->name, qua_strerror(r));
      goto fail_start;
    }
    q->started = true;
  }
  qua__ctl_unlock();
  *out = q;
  return QUA_OK;

fail_start:
  if (t->ops.fini != NULL)
    t->ops.fini(q);
  if (q->body != NULL)
    qua__site_free_code(q->body); /* never run: no thread was started */
fail_init:
  qua__ctl_unlock();
  storage_unmap(q);
  free(q->body);
  free(q);
  return r;
}

/* --- Storage that outlives the process (quad --state-dir) ------------------------ */

static qua_storage_t storage; /* set before any quaject is made: read without a lock */

void qua_set_storage(const qua_storage_t *s) { storage = s != NULL ? *s : (qua_storage_t){0}; }

void *qua_storage_map(qua_quaject_t *q, size_t bytes) {
  if (storage.map == NULL || q->store != NULL || qua_storage_layout(q->type) == 0)
    return NULL;
  q->store = storage.map(storage.ctx, q->type, bytes);
  q->store_bytes = q->store != NULL ? bytes : 0;
  q->store_by = storage;
  return q->store;
}

static void storage_unmap(qua_quaject_t *q) {
  if (q->store != NULL)
    q->store_by.unmap(q->store_by.ctx, q->store, q->store_bytes);
  q->store = NULL;
}

uint64_t qua_storage_layout(const qua_type_t *type) {
  return type != NULL && type->ops.recover != NULL ? type->storage_layout : 0;
}

void *qua_storage(const qua_quaject_t *q, size_t *bytes) {
  if (bytes != NULL)
    *bytes = q != NULL ? q->store_bytes : 0;
  return q != NULL ? q->store : NULL;
}

int qua_storage_recover(const qua_type_t *type, const void *mem, size_t bytes, void *out,
                        size_t *n, char *why, size_t whylen) {
  *n = 0;
  if (qua_storage_layout(type) == 0) {
    snprintf(why, whylen, "a %s keeps no storage", type != NULL ? type->name : "(no type)");
    return QUA_EINVAL;
  }
  return type->ops.recover(mem, bytes, out, n, why, whylen);
}

const qua_type_t *qua_quaject_type(const qua_quaject_t *q) { return q->type; }
uint64_t qua_quaject_id(const qua_quaject_t *q) { return q->id; }
void *qua_quaject_state(qua_quaject_t *q) { return q->state; }
uint64_t qua_quaject_param(const qua_quaject_t *q, int i) {
  return i >= 0 && i < q->type->nparams ? q->params[i] : 0;
}

int qua_quaject_describe(const qua_quaject_t *q, char *buf, size_t len) {
  if (q->type->ops.describe == NULL)
    return snprintf(buf, len, "%s", q->type->name);
  /* Under the control lock: the hooks read control state (a queue's
   * variant) that control operations on other threads change. */
  qua__ctl_lock();
  int n = q->type->ops.describe(q, buf, len);
  qua__ctl_unlock();
  return n;
}

int qua_quaject_entry_info(const qua_quaject_t *q, int entry, char *buf, size_t len,
                           uint64_t *synth_ns) {
  if ((entry < 0 || entry >= q->type->nentries) && !(entry == QUA_ENTRY_BODY && q->body != NULL))
    return QUA_ENOENTRY;
  qua__ctl_lock();
  /* The first open site speaks for the entry; without one, what a new
   * site would get from the type's state. */
  qua_site_t *s = entry == QUA_ENTRY_BODY ? q->body : atomic_load(&((qua_quaject_t *)q)->sites[entry]);
  if (s != NULL) {
    snprintf(buf, len, "%s", s->impl != NULL ? s->impl : "generic");
    if (synth_ns != NULL)
      *synth_ns = s->synth_ns;
  } else {
    /* No code yet: that comes with the first site (the type's variant, if any). */
    const char *v = q->type->ops.entry_impl != NULL ? q->type->ops.entry_impl(q, NULL) : NULL;
    if (v != NULL && strncmp(v, "generic ", 8) == 0)
      v += 8;
    snprintf(buf, len, v != NULL ? "no site (%s)" : "no site", v);
    if (synth_ns != NULL)
      *synth_ns = 0;
  }
  qua__ctl_unlock();
  return QUA_OK;
}

qua_site_t *qua_quaject_body(const qua_quaject_t *q) { return q->body; }

const char *qua_quaject_entry_impl(const qua_quaject_t *q, int entry) {
  static _Thread_local char buf[sizeof ((qua_site_t *)0)->impl_buf];
  if (qua_quaject_entry_info(q, entry, buf, sizeof buf, NULL) < 0)
    return "none";
  return buf;
}

/* --- Sites ------------------------------------------------------------------- */

int qua__entry_dead(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) { return QUA_ESTATE; }

/* Resolves handlers by callback name into the site. */
static int site_set_handlers(qua_site_t *s, const qua_type_t *t, const qua_bind_t *handlers,
                             void *ctx_override, qua_error_t *err) {
  for (const qua_bind_t *b = handlers; b != NULL && b->callback != NULL; b++) {
    int cb = qua_type_callback(t, b->callback);
    if (cb < 0) {
      /* A callout's handler list may name callbacks other targets have. */
      if (ctx_override != NULL)
        continue;
      return qua__error(err, QUA_ENOCALLBACK, "%s has no callback '%s'", t->name, b->callback);
    }
    s->handler[cb] = b->fn;
    s->handler_ctx[cb] = ctx_override != NULL ? ctx_override : b->ctx;
  }
  return QUA_OK;
}

/* Opens a site under the control lock; owner/callout describe a wire. */
static int site_open_locked(qua_quaject_t *q, int e, const qua_bind_t *handlers, unsigned flags,
                            qua_quaject_t *owner, int callout, qua_site_t **out,
                            qua_error_t *err) {
  if (q->dead)
    return qua__error(err, QUA_ESTATE, "%s #%" PRIu64 " is being destroyed", q->type->name, q->id);
  qua_site_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return qua__error(err, QUA_ENOMEM, "out of memory opening a site");
  s->fn = q->type->entries[e].generic;
  s->impl = "generic";
  s->state = q->state;
  s->target = q;
  s->entry = e;
  s->flags = flags;
  s->owner = owner;
  s->owner_callout = callout;
  int r = site_set_handlers(s, q->type, handlers, owner != NULL ? owner->state : NULL, err);
  if (r < 0) {
    free(s);
    return r;
  }
  /* Invariant 4: the type adjusts (and waits) before the site is usable.
   * The site is linked first so that the hook sees the new set. */
  q->weight[e] += (flags & QUA_SITE_SHARED) ? 2 : 1;
  s->next = atomic_load_explicit(&q->sites[e], memory_order_relaxed);
  atomic_store_explicit(&q->sites[e], s, memory_order_release);
  int r2 = QUA_OK;
  if (q->type->ops.sites_changed != NULL) {
    r2 = q->type->ops.sites_changed(q, e, QUA_SITES_BEFORE_OPEN);
    if (r2 < 0) {
      /* Refused: nobody has seen the site, but a broadcast may be walking
       * the list, so unlink and wait before freeing. */
      atomic_store_explicit(&q->sites[e], s->next, memory_order_release);
      q->weight[e] -= (flags & QUA_SITE_SHARED) ? 2 : 1;
      qua__synchronize();
      free(s);
      return qua__error(err, r2, "%s.%s: %s", q->type->name, q->type->entries[e].name,
                        take_why(r2));
    }
  }
  qua__resynth(q, r2 == QUA_SITES_WAIT);
  *out = s;
  return QUA_OK;
}

/* Unlinks a site, waits until no caller can be in it, lets the type
 * adjust, and frees it. Control lock held. */
static void site_close_locked(qua_site_t *s) {
  qua_quaject_t *q = s->target;
  int e = s->entry;
  qua_site_t *_Atomic *pp = &q->sites[e];
  for (qua_site_t *p = atomic_load(pp); p != NULL; pp = (qua_site_t *_Atomic *)&p->next, p = atomic_load(pp)) {
    if (p == s) {
      atomic_store_explicit(pp, s->next, memory_order_release);
      break;
    }
  }
  q->weight[e] -= (s->flags & QUA_SITE_SHARED) ? 2 : 1;
  qua__synchronize();
  if (q->type->ops.sites_changed != NULL && !q->dead)
    (void)q->type->ops.sites_changed(q, e, QUA_SITES_AFTER_CLOSE);
  qua__resynth(q, false); /* q's other sites, and chains that led into s */
  qua__site_free_code(s);
  free(s);
}

int qua_site_open(qua_quaject_t *q, const char *entry, const qua_bind_t *handlers, unsigned flags,
                  qua_site_t **out, qua_error_t *err) {
  if (q == NULL || out == NULL)
    return qua__error(err, QUA_EINVAL, "no quaject or no place to store the site");
  int e = qua_type_entry(q->type, entry);
  if (e < 0)
    return qua__error(err, QUA_ENOENTRY, "%s has no callentry '%s'", q->type->name,
                      entry ? entry : "(null)");
  qua__ctl_lock();
  int r = site_open_locked(q, e, handlers, flags, NULL, -1, out, err);
  qua__ctl_unlock();
  return r;
}

void qua_site_close(qua_site_t *s) {
  if (s == NULL)
    return;
  qua__ctl_lock();
  if (s->target == NULL) {
    /* Its quaject was destroyed under it: only the site is left, and its
     * code was freed then. */
    qua__ctl_unlock();
    free(s);
    return;
  }
  site_close_locked(s);
  qua__ctl_unlock();
}

/* --- Wires ------------------------------------------------------------------- */

int qua_wire(qua_quaject_t *src, const char *callout, qua_quaject_t *dst, const char *entry,
             qua_error_t *err) {
  if (src == NULL || dst == NULL)
    return qua__error(err, QUA_EINVAL, "wire needs two quajects");
  int c = qua_type_callout(src->type, callout);
  if (c < 0)
    return qua__error(err, QUA_ENOCALLOUT, "%s has no callout '%s'", src->type->name,
                      callout ? callout : "(null)");
  int e = qua_type_entry(dst->type, entry);
  if (e < 0)
    return qua__error(err, QUA_ENOENTRY, "%s has no callentry '%s'", dst->type->name,
                      entry ? entry : "(null)");
  const qua_callout_def_t *cd = &src->type->callouts[c];
  const qua_entry_def_t *ed = &dst->type->entries[e];
  if (src->type->ops.callouts_in_use != NULL && c >= src->type->ops.callouts_in_use(src))
    return qua__error(err, QUA_ENOCALLOUT, "%s has %d outputs; no callout '%s'", src->type->name,
                      src->type->ops.callouts_in_use(src), cd->name);
  if (src == dst)
    return qua__error(err, QUA_ESELF, "%s.%s -> itself", src->type->name, cd->name);
  if (cd->arity != ed->arity || cd->returns != ed->returns || !ed->remote)
    return qua__error(err, QUA_EARITY,
                      "%s.%s takes %d argument%s%s; %s.%s takes %d%s%s", src->type->name,
                      cd->name, cd->arity, cd->arity == 1 ? "" : "s",
                      cd->returns ? " and wants a result" : "", dst->type->name, ed->name,
                      ed->arity, ed->returns ? " and returns a result" : "",
                      ed->remote ? "" : " (pointer arguments)");

  qua__ctl_lock();
  int r;
  if (src->dead || dst->dead) {
    r = qua__error(err, QUA_ESTATE, "quaject is being destroyed");
    goto out;
  }
  if (atomic_load(&src->outs[c]) != NULL) {
    r = qua__error(err, QUA_EWIRED, "%s.%s is already wired", src->type->name, cd->name);
    goto out;
  }
  qua_site_t *s;
  r = site_open_locked(dst, e, cd->handlers, 0, src, c, &s, err);
  if (r < 0)
    goto out;
  dst->wired_in++;
  atomic_store_explicit(&src->outs[c], s, memory_order_release);
  qua__resynth(src, false); /* chains through src now continue into dst */
  if (src->type->ops.callouts_changed != NULL)
    src->type->ops.callouts_changed(src);
out:
  qua__ctl_unlock();
  return r;
}

/* Unwires callout c of src; control lock held. */
static void unwire_locked(qua_quaject_t *src, int c) {
  qua_site_t *s = atomic_load(&src->outs[c]);
  if (s == NULL)
    return;
  atomic_store_explicit(&src->outs[c], NULL, memory_order_release);
  s->target->wired_in--;
  /* Code that inlined the wire (a chain through src) is rebuilt without
   * it before the site goes: site_close_locked waits for a grace period. */
  qua__resynth(src, false);
  site_close_locked(s);
  if (src->type->ops.callouts_changed != NULL && !src->dead)
    src->type->ops.callouts_changed(src);
}

int qua_unwire(qua_quaject_t *src, const char *callout, qua_error_t *err) {
  if (src == NULL)
    return qua__error(err, QUA_EINVAL, "no quaject");
  int c = qua_type_callout(src->type, callout);
  if (c < 0)
    return qua__error(err, QUA_ENOCALLOUT, "%s has no callout '%s'", src->type->name,
                      callout ? callout : "(null)");
  qua__ctl_lock();
  int r = QUA_OK;
  if (atomic_load(&src->outs[c]) == NULL)
    r = qua__error(err, QUA_ENOTWIRED, "%s.%s is not wired", src->type->name, callout);
  else
    unwire_locked(src, c);
  qua__ctl_unlock();
  return r;
}

qua_quaject_t *qua_wired_to(const qua_quaject_t *src, int c, int *entry) {
  if (c < 0 || c >= src->type->ncallouts)
    return NULL;
  qua__ctl_lock();
  qua_site_t *s = atomic_load(&((qua_quaject_t *)src)->outs[c]);
  qua_quaject_t *t = s != NULL ? s->target : NULL;
  if (s != NULL && entry != NULL)
    *entry = s->entry;
  qua__ctl_unlock();
  return t;
}

uint64_t qua_wired_to_id(const qua_quaject_t *src, int c, const char **entry) {
  if (c < 0 || c >= src->type->ncallouts)
    return 0;
  uint64_t id = 0;
  /* A reader (note 2): the site and its target stay valid until the read
   * section ends (note 3, and 5: a destroyed target is freed after a grace
   * period that follows its unwiring); only their id and names leave it. */
  urcu_bp_read_lock();
  const qua_site_t *s =
      atomic_load_explicit(&((qua_quaject_t *)src)->outs[c], memory_order_acquire);
  if (s != NULL) {
    id = s->target->id;
    if (entry != NULL)
      *entry = s->target->type->entries[s->entry].name;
  }
  QUA__TSAN_READER_DONE();
  urcu_bp_read_unlock();
  return id;
}

int qua_wired_in(const qua_quaject_t *q, uint64_t *ids, int *callouts, int max) {
  int n = 0;
  qua__ctl_lock();
  /* A wire into q is a site on q whose owner's callout points at it. */
  for (int e = 0; e < q->type->nentries; e++)
    QUA__FOREACH_SITE(q, e, s) {
      if (s->owner == NULL ||
          atomic_load_explicit(&s->owner->outs[s->owner_callout], memory_order_relaxed) != s)
        continue;
      if (n < max) {
        ids[n] = s->owner->id;
        callouts[n] = s->owner_callout;
      }
      n++;
    }
  qua__ctl_unlock();
  return n;
}

int qua_callout(qua_quaject_t *self, int c, uint64_t a0, uint64_t a1, uint64_t *ret) {
  qua_site_t *s = atomic_load_explicit(&self->outs[c], memory_order_acquire);
  if (QUA__UNLIKELY(s == NULL))
    return QUA_ENOTWIRED;
  return qua__call(s, a0, a1, ret);
}

/* --- Callbacks and watchers -------------------------------------------------------- */

void qua__fire_watchers(qua_quaject_t *q, int cb, uint64_t arg) {
  for (qua_watch_t *w = atomic_load_explicit(&q->watchers[cb], memory_order_acquire); w != NULL;
       w = atomic_load_explicit(&w->next, memory_order_acquire))
    w->fn(w->ctx, q, cb, arg);
}

void qua_fire(qua_site_t *s, int cb, uint64_t arg) {
  if (cb < 0 || cb >= s->target->type->ncallbacks)
    return;
  if (s->target->type->callbacks[cb].kind == QUA_CB_INVOKER)
    qua__fire(s, cb, arg);
  else
    qua__broadcast(s->target, cb, arg);
}

void qua__broadcast(qua_quaject_t *q, int cb, uint64_t arg) {
  if (qua__nobody_listens(q, cb))
    return;
  for (int e = 0; e < q->type->nentries; e++)
    for (qua_site_t *s = atomic_load_explicit(&q->sites[e], memory_order_acquire); s != NULL;
         s = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE))
      if (s->handler[cb] != NULL)
        s->handler[cb](s->handler_ctx[cb], q, cb, arg);
  if (atomic_load_explicit(&q->watchers[cb], memory_order_relaxed) != NULL)
    qua__fire_watchers(q, cb, arg);
}

void qua__broadcast_reader(qua_quaject_t *q, int cb, uint64_t arg) {
  urcu_bp_read_lock();
  qua__broadcast(q, cb, arg);
  QUA__TSAN_READER_DONE();
  urcu_bp_read_unlock();
}

int qua_watch(qua_quaject_t *q, const char *callback, qua_handler_fn fn, void *ctx,
              qua_watch_t **out, qua_error_t *err) {
  if (q == NULL || fn == NULL || out == NULL)
    return qua__error(err, QUA_EINVAL, "watch needs a quaject, a handler and an out pointer");
  int cb = qua_type_callback(q->type, callback);
  if (cb < 0)
    return qua__error(err, QUA_ENOCALLBACK, "%s has no callback '%s'", q->type->name,
                      callback ? callback : "(null)");
  qua_watch_t *w = calloc(1, sizeof *w);
  if (w == NULL)
    return qua__error(err, QUA_ENOMEM, "out of memory");
  w->q = q;
  w->cb = cb;
  w->fn = fn;
  w->ctx = ctx;
  qua__ctl_lock();
  if (q->dead) {
    qua__ctl_unlock();
    free(w);
    return qua__error(err, QUA_ESTATE, "quaject is being destroyed");
  }
  atomic_store_explicit(&w->next, atomic_load(&q->watchers[cb]), memory_order_relaxed);
  atomic_store_explicit(&q->watchers[cb], w, memory_order_release);
  int r = q->type->ops.sites_changed != NULL ? q->type->ops.sites_changed(q, -1, QUA_SITES_BEFORE_OPEN)
                                             : QUA_OK;
  if (r < 0) {
    /* Refused (a queue made with notify=0 has no transitions to report):
     * unlinked again, and freed once no broadcast can be walking past it. */
    atomic_store_explicit(&q->watchers[cb], atomic_load(&w->next), memory_order_release);
    qua__synchronize();
    qua__ctl_unlock();
    free(w);
    return qua__error(err, r, "%s.%s: %s", q->type->name, callback, take_why(r));
  }
  /* Code that folded in the handlers now fires watchers too. */
  qua__resynth(q, r == QUA_SITES_WAIT);
  qua__ctl_unlock();
  *out = w;
  return QUA_OK;
}

/* Unlinks and frees a watcher; control lock held. */
static void unwatch_locked(qua_watch_t *w) {
  qua_quaject_t *q = w->q;
  qua_watch_t *_Atomic *pp = &q->watchers[w->cb];
  for (qua_watch_t *p = atomic_load(pp); p != NULL; pp = &p->next, p = atomic_load(pp)) {
    if (p == w) {
      atomic_store_explicit(pp, atomic_load(&w->next), memory_order_release);
      break;
    }
  }
  /* Code that called the watchers learns they are gone first; then no
   * broadcast can be walking past w. */
  if (!q->dead)
    qua__resynth(q, true);
  else
    qua__synchronize();
  if (q->type->ops.sites_changed != NULL && !q->dead)
    (void)q->type->ops.sites_changed(q, -1, QUA_SITES_AFTER_CLOSE);
  free(w);
}

void qua_unwatch(qua_watch_t *w) {
  if (w == NULL)
    return;
  qua__ctl_lock();
  unwatch_locked(w);
  qua__ctl_unlock();
}

/* --- Destroy ------------------------------------------------------------------ */

/* Every quaject whose callouts may point at q must be found to unwire it:
 * sites record their owner, so walking q's own site lists finds them. */
int qua_destroy(qua_quaject_t *q, bool force, qua_error_t *err) {
  if (q == NULL)
    return qua__error(err, QUA_EINVAL, "no quaject");
  qua__ctl_lock();
  int users = 0;
  for (int e = 0; e < q->type->nentries; e++)
    QUA__FOREACH_SITE(q, e, s) users++;
  if (users > 0 && !force) {
    qua__ctl_unlock();
    return qua__error(err, QUA_EBUSY, "%s #%" PRIu64 " is in use: %d wire%s or site%s on it",
                      q->type->name, q->id, users, users == 1 ? "" : "s", users == 1 ? "" : "s");
  }
  /* Stop first: an active quaject's thread calls through its callouts. */
  if (q->started && q->type->ops.stop != NULL)
    q->type->ops.stop(q);
  q->dead = true;
  for (int c = 0; c < q->type->ncallouts; c++)
    unwire_locked(q, c);
  /* Callouts of others wired to q: unwire them; user sites: point them at
   * the stub and detach them (their owners close them later). */
  qua_site_t *detached = NULL;
  for (int e = 0; e < q->type->nentries; e++) {
    qua_site_t *s;
    while ((s = atomic_load(&q->sites[e])) != NULL) {
      if (s->owner != NULL) {
        unwire_locked(s->owner, s->owner_callout);
      } else {
        atomic_store_explicit(&q->sites[e], s->next, memory_order_release);
        qua__site_set_fn(s, qua__entry_dead);
        s->owner = (qua_quaject_t *)detached; /* a private chain until the grace period */
        detached = s;
      }
    }
  }
  for (int cb = 0; cb < q->type->ncallbacks; cb++) {
    qua_watch_t *w;
    while ((w = atomic_load(&q->watchers[cb])) != NULL)
      unwatch_locked(w);
  }
  qua__synchronize();
  /* No reader can reach q now; detached user sites run only their stub
   * and forget q, so that qua_site_close() just frees them. */
  while (detached != NULL) {
    qua_site_t *next = (qua_site_t *)detached->owner;
    qua__site_free_code(detached);
    detached->owner = NULL;
    detached->target = NULL;
    detached->state = NULL;
    detached = next;
  }
  if (q->type->ops.fini != NULL)
    q->type->ops.fini(q);
  storage_unmap(q);
  if (q->body != NULL) {
    qua__site_free_code(q->body); /* its thread stopped before the grace period */
    free(q->body);
  }
  qua__ctl_unlock();
  free(q);
  return QUA_OK;
}
