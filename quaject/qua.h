/* qua.h -- the quaject model: types, instances, wires, sites and callbacks.
 *
 * This is the public header of libqua and reads as its manual.
 *
 * A quaject is one block of state plus its callentries (methods), its
 * callouts (places where it calls other quajects' callentries) and its
 * callbacks (exceptional returns into whoever invoked it). Every quaject
 * type is described by one table, qua_type_t; nothing else lists a type's
 * members again.
 *
 * Calling a callentry goes through a site (qua_site_t): the binding of one
 * caller to one callentry of one quaject, carrying the caller's handlers for
 * that quaject's callbacks. Every callentry has the same machine-level
 * signature, qua_entry_fn, so any callout can be bound to any callentry of
 * the same arity. A wire is a site owned by a callout: wiring A.sink to
 * B.put opens a site on B.put with the handlers A's type supplies for its
 * sink callout (say, its own suspend on "full").
 *
 * Threads. Control operations (create, destroy, wire, unwire, open and close
 * sites, bind) may be called from any thread; they are serialised inside
 * the library and may wait for an RCU grace period, so they must not be
 * called from inside a callback handler or a read-side section. Data-path
 * calls (qua_call, qua_callout) take no lock: they run inside an RCU
 * read-side section, which qua_call enters itself (liburcu's "bulletproof"
 * flavour, so any thread may call without registering); quajects with their
 * own threads (pumps, clocks) use the QSBR flavour and pay nothing per call.
 *
 * Errors are negative codes from QUA_STATUS_MAP; qua_strerror() and
 * qua_err_name() give their message and name, and the protocol and the CLI
 * use the same table.
 */
#ifndef QUA_H
#define QUA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QUA_API __attribute__((visibility("default")))

/* --- Errors ------------------------------------------------------------ */

#include "qua-status.h" /* QUA_STATUS_MAP, qua_status_t, QUA_OK, QUA_DIVERTED */

QUA_API const char *qua_strerror(int err);
QUA_API const char *qua_err_name(int err);

/* --- Type tables --------------------------------------------------------- */

typedef struct qua_quaject qua_quaject_t;
typedef struct qua_site qua_site_t;
typedef struct qua_type qua_type_t;
struct qua_error;

/* Hard limits of the model, checked by the type registry. */
#define QUA_MAX_ENTRIES 8
#define QUA_MAX_CALLOUTS 8
#define QUA_MAX_CALLBACKS 8
#define QUA_MAX_PARAMS 8
#define QUA_MAX_ARITY 2
#define QUA_NAME_MAX 63

/* The uniform calling convention: every callentry takes its site (which
 * names the target's state and the caller's handlers), up to two word
 * arguments, and stores its result, if it has one, in *ret. */
typedef int (*qua_entry_fn)(qua_site_t *site, uint64_t a0, uint64_t a1, uint64_t *ret);

/* A callback handler. `from` is the quaject calling back, `cb` the index
 * of the callback in its type, `arg` the callback's argument (for "full",
 * the item that was not stored). Handlers run on the thread that triggered
 * the callback, inside its read-side section: they must not block for long
 * and must not call control operations. */
typedef void (*qua_handler_fn)(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);

/* A handler bound to a callback by name, in NULL-terminated lists. */
typedef struct qua_bind {
  const char *callback;
  qua_handler_fn fn;
  void *ctx; /* for callout handlers in a type table: ignored (the quaject's state is passed) */
} qua_bind_t;

typedef enum qua_param_flags {
  QUA_PARAM_POW2 = 1 << 0, /* the value must be a power of two */
  /* The value is text, min..max characters long: init receives it as a
   * `const char *` in the word (NULL when not given), valid only during
   * init; the type copies what it keeps. The quaject's stored value of the
   * parameter (qua_quaject_param) is 0. */
  QUA_PARAM_STRING = 1 << 1,
  QUA_PARAM_REQUIRED = 1 << 2, /* create refuses to go without it */
} qua_param_flags_t;

typedef struct qua_param_def {
  const char *name;
  uint64_t def, min, max;
  unsigned flags;
  const char *help;
} qua_param_def_t;

typedef struct qua_entry_def {
  const char *name;
  int arity;        /* word arguments taken: 0..QUA_MAX_ARITY */
  bool returns;     /* stores a result word in *ret */
  bool remote;      /* callable with plain words (not pointer arguments) */
  qua_entry_fn generic; /* the reference implementation */
  const char *help;
} qua_entry_def_t;

typedef struct qua_callout_def {
  const char *name;
  int arity;
  bool returns;
  const qua_bind_t *handlers; /* what this quaject supplies for its target's callbacks */
  const char *help;
} qua_callout_def_t;

typedef enum qua_callback_kind {
  /* Called on the handler of the site whose call caused it (full, empty),
   * and on every watcher. */
  QUA_CB_INVOKER = 0,
  /* Called on the handlers of every site that supplied one (the wired
   * producers for notfull), and on every watcher. */
  QUA_CB_BROADCAST = 1,
} qua_callback_kind_t;

typedef struct qua_callback_def {
  const char *name;
  qua_callback_kind_t kind;
  const char *help;
} qua_callback_def_t;

/* Stencil synthesis of one site (code synthesis, jit/): the template a
 * type chooses for the site's callentry in its current state, with the
 * values of its holes by name. A part whose code ends by tail-calling the
 * callentry of one of the quaject's callouts names that hole (next_hole)
 * and the site it calls (next_site): the synthesiser then either chains the
 * next site's own code behind it (collapsing layers) or points the hole at
 * a trampoline that calls through the site. */
/* Holes a part may name: at least the most holes of any built-in type's
 * template set (the queue's has 15; tests/test-synth-holes.c checks). */
#define QUA_SYNTH_HOLES 24
#define QUA_SYNTH_CALLS 3
struct jit_template;
typedef struct qua_synth_part {
  const struct jit_template *tmpl;
  const char *variant; /* what `show` prints after "stencil" ("spsc") */
  struct {
    const char *name;
    uint64_t value;
  } holes[QUA_SYNTH_HOLES];
  int nholes;
  const char *next_hole;
  qua_site_t *next_site;
  /* Callouts the code calls, rather than ends in, through a hole of its
   * own (a tee's outputs before its last): each site's code is laid out
   * with this code and called directly; when the site has none to offer,
   * the hole calls through the site. */
  int ncalls;
  struct {
    const char *hole;
    qua_site_t *site;
  } calls[QUA_SYNTH_CALLS];
  const char *why; /* when the type declines to synthesise: why ("closed") */
} qua_synth_part_t;

/* Which code quajects run: the generic C callentries, or code synthesised
 * from stencils per site. */
typedef enum qua_synth_mode {
  QUA_SYNTH_OFF = 0,
  QUA_SYNTH_STENCIL = 1,
} qua_synth_mode_t;

/* Hooks a type implements; all but init are optional. */
typedef struct qua_type_ops {
  /* Initialises the state block from the validated parameters (indexed as
   * the type's params). Returns 0 or a negative error; on error the
   * quaject is not created. */
  int (*init)(qua_quaject_t *q, const uint64_t *params);
  /* Releases what init acquired. Called after a grace period, when no
   * call can still reach the quaject. */
  void (*fini)(qua_quaject_t *q);
  /* Active quajects: start and stop their threads. start is called once
   * the quaject is created; stop before destroy unwires it. */
  int (*start)(qua_quaject_t *q);
  void (*stop)(qua_quaject_t *q);
  /* The set of sites on a callentry changed (one opened or closed; entry
   * -1 for watchers). Runs under the control lock; may re-point sites
   * (qua__site_set_fn) and wait for grace periods. `phase` is
   * QUA_SITES_BEFORE_OPEN for a site not yet usable (a negative return
   * refuses it, and nothing changes), or QUA_SITES_AFTER_CLOSE for a site
   * no longer in use. Afterwards the sites are re-pointed at the code the
   * new state calls for; returning QUA_SITES_WAIT asks for a grace period
   * after that and before the new site is usable (a variant switch). */
  int (*sites_changed)(qua_quaject_t *q, int entry, int phase);
  /* The quaject's own callouts were wired or unwired (active quajects
   * wake up to use them). */
  void (*callouts_changed)(qua_quaject_t *q);
  /* How many of the type's callouts this instance has (default: all). */
  int (*callouts_in_use)(const qua_quaject_t *q);
  /* Which code a callentry runs for a site ("generic", "spsc", ...). */
  const char *(*entry_impl)(const qua_quaject_t *q, const qua_site_t *s);
  /* The generic callentry a site runs in the type's current state (its
   * variant); NULL: the table's generic. */
  qua_entry_fn (*site_generic)(const qua_quaject_t *q, const qua_site_t *s);
  /* Fills the stencil part of a site's specialised code; a negative return
   * means there is no template for it (the site runs generic code). */
  int (*site_synth)(qua_quaject_t *q, qua_site_t *s, qua_synth_part_t *part);
  /* One line describing the live state (counts, variant), for listings. */
  int (*describe)(const qua_quaject_t *q, char *buf, size_t len);
  /* Active quajects: the generic code of the quaject's own body (a pump's
   * step), which its thread calls through qua_quaject_body(). The core
   * keeps the body in a site of its own, entry QUA_ENTRY_BODY, and
   * resynthesises it like a site, from site_generic and site_synth, after
   * the sites it calls were rebuilt. */
  int (*body)(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);
} qua_type_ops_t;

/* The entry index of a quaject's body site (ops.body). */
#define QUA_ENTRY_BODY (-1)

enum { QUA_SITES_BEFORE_OPEN = 0, QUA_SITES_AFTER_CLOSE = 1 };
#define QUA_SITES_WAIT 1

struct qua_type {
  const char *name;
  const char *summary;
  size_t state_size;
  const qua_param_def_t *params;
  int nparams;
  const qua_entry_def_t *entries;
  int nentries;
  const qua_callout_def_t *callouts;
  int ncallouts;
  const qua_callback_def_t *callbacks;
  int ncallbacks;
  qua_type_ops_t ops;
};

/* How many types programs may add to the built-in ones. */
#define QUA_MAX_EXTRA_TYPES 8

/* The built-in types and the registered ones, and lookup by name.
 * qua_types() returns a NULL-terminated array. */
QUA_API const qua_type_t *const *qua_types(void);
QUA_API const qua_type_t *qua_type_find(const char *name);
QUA_API int qua_type_entry(const qua_type_t *t, const char *name);    /* index or QUA_ENOENTRY */
QUA_API int qua_type_callout(const qua_type_t *t, const char *name);  /* index or QUA_ENOCALLOUT */
QUA_API int qua_type_callback(const qua_type_t *t, const char *name); /* index or QUA_ENOCALLBACK */
QUA_API int qua_type_param(const qua_type_t *t, const char *name);    /* index or QUA_ENOPARAM */

/* --- Types defined outside libqua ------------------------------------------ */

/* Adds a type (a program's own, such as quad's link) to the registry. The
 * table must outlive the program. Refused with QUA_EINVAL for a malformed
 * table (no name or init hook, a name past QUA_NAME_MAX, an entry with an
 * arity out of range or no generic code), QUA_ELIMIT for more members than
 * the model allows or past QUA_MAX_EXTRA_TYPES types, QUA_EEXIST when a
 * type of that name exists. */
QUA_API int qua_type_register(const qua_type_t *t, struct qua_error *err);

/* qua_fire(), for a type's callentries, is declared with qua_create_with()'s
 * helpers below. */
/* From any thread, inside a read-side section or not: calls back the
 * broadcast-kind callback cb on every site that supplied a handler, then
 * the watchers. */
QUA_API void qua_broadcast(qua_quaject_t *q, int cb, uint64_t arg);
/* For a type's init or sites_changed hook: returns code, and the failed
 * control operation's message says why (printf-style, kept per thread). */
QUA_API int qua_refuse(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- Quajects ----------------------------------------------------------- */

/* An error with a message naming what was wrong ("capacity=3: not a power
 * of two"), filled by the calls that take one. */
typedef struct qua_error {
  int code;
  char msg[160];
} qua_error_t;

/* Creates a quaject of the named type from "key=value" parameters (argv
 * style, nparams of them; values decimal or 0x hex; unlisted keys take
 * their defaults). On any error nothing is created, *out is untouched and
 * err (when not NULL) names the problem. Active quajects are started. */
QUA_API int qua_create(const char *type, const char *const *params, int nparams,
                       qua_quaject_t **out, qua_error_t *err);

/* The same for a type whose table lives outside libqua: an embedder's
 * quajects whose callentries run elsewhere (quad's target=m68k ones run as
 * 68k code on its quamachine). The table is checked as qua_type_register()
 * checks it (QUA_EINVAL or QUA_ELIMIT, naming the problem), must outlive
 * its quajects, and is not added to qua_types(). */
QUA_API int qua_create_with(const qua_type_t *t, const char *const *params, int nparams,
                            qua_quaject_t **out, qua_error_t *err);

/* Destroys a quaject. Refused with QUA_EBUSY while other quajects' callouts
 * are wired to it or sites are open on it, unless `force`: then every
 * callout wired to it is unwired first and open sites are left pointing at
 * a stub that returns QUA_ESTATE. Its own callouts are unwired. Returns
 * once no thread can still be running its code; its state is freed after a
 * grace period. */
QUA_API int qua_destroy(qua_quaject_t *q, bool force, qua_error_t *err);

QUA_API const qua_type_t *qua_quaject_type(const qua_quaject_t *q);
QUA_API uint64_t qua_quaject_id(const qua_quaject_t *q);
QUA_API void *qua_quaject_state(qua_quaject_t *q);
QUA_API uint64_t qua_quaject_param(const qua_quaject_t *q, int index);
/* Describes the live state in one line ("count=3 capacity=1024 variant=spsc").
 * From any thread; it takes the control lock, so it waits for a control
 * operation under way elsewhere (never call it from a type's hook). */
QUA_API int qua_quaject_describe(const qua_quaject_t *q, char *buf, size_t len);
/* Which code the callentry runs for its sites ("generic spsc", "stencil
 * spsc", "chain stencil pass+spsc"), and the nanoseconds its latest
 * synthesis took (0 when generic). The first open site speaks for the
 * entry; with none, "no site (spsc)" names the variant a site would get.
 * qua_quaject_entry_impl() returns it in a buffer of the calling thread's,
 * valid until its next call there ("none" for a bad entry);
 * qua_quaject_entry_info() copies it into buf. entry QUA_ENTRY_BODY asks
 * about a quaject's body (a pump's step). */
QUA_API const char *qua_quaject_entry_impl(const qua_quaject_t *q, int entry);
/* The site of a quaject's body (ops.body), or NULL for types without one. */
QUA_API qua_site_t *qua_quaject_body(const qua_quaject_t *q);
QUA_API int qua_quaject_entry_info(const qua_quaject_t *q, int entry, char *buf, size_t len,
                                   uint64_t *synth_ns);
QUA_API qua_synth_mode_t qua_quaject_synth(const qua_quaject_t *q);

/* The synthesis mode of quajects created from now on: QUA_SYNTH_STENCIL by
 * default, or as the environment variable QUA_SYNTH says ("off",
 * "stencil"); a create parameter synth=off|stencil overrides it for one
 * quaject. Returns the previous mode. */
QUA_API qua_synth_mode_t qua_set_synth_default(qua_synth_mode_t mode);
QUA_API qua_synth_mode_t qua_synth_default(void);
/* Parses "off" / "stencil"; negative QUA_EINVAL otherwise. */
QUA_API int qua_synth_parse(const char *s);
/* Since the program started: methods synthesised into stencil code (each
 * site's each synthesis, fallbacks to generic code not counted) and the
 * nanoseconds they took. Either pointer may be NULL. */
QUA_API void qua_synth_totals(uint64_t *count, uint64_t *ns);

/* --- Sites and calls ---------------------------------------------------- */

typedef enum qua_site_flags {
  /* The site may be used by several threads at once: it counts as many
   * callers (a queue's put runs its multi-producer code). */
  QUA_SITE_SHARED = 1 << 0,
} qua_site_flags_t;

struct qua_site {
  qua_entry_fn fn;                 /* the code this site runs (atomic) */
  void *state;                     /* the target's state block */
  qua_quaject_t *target;
  int entry;                       /* index of the callentry */
  unsigned flags;
  qua_handler_fn handler[QUA_MAX_CALLBACKS]; /* the caller's, by callback index */
  void *handler_ctx[QUA_MAX_CALLBACKS];
  qua_site_t *next;                /* the target's list of sites on this entry */
  qua_quaject_t *owner;            /* the quaject whose callout this is, or NULL */
  int owner_callout;
  void *code;                      /* synthesised code the site runs (jit_code_t), or NULL */
  const char *impl;                /* "generic spsc", "stencil spsc", "chain stencil spsc+..." */
  char impl_buf[128];
  uint64_t synth_ns;               /* how long its last synthesis took */
};

/* Opens a site on q's callentry `entry` for a caller with the given
 * handlers (NULL-terminated list, may be NULL). An unknown callback name is
 * refused and nothing is opened. The site is for one thread at a time
 * unless QUA_SITE_SHARED. */
QUA_API int qua_site_open(qua_quaject_t *q, const char *entry, const qua_bind_t *handlers,
                          unsigned flags, qua_site_t **out, qua_error_t *err);
QUA_API void qua_site_close(qua_site_t *s);

/* Calls through a site from any thread, entering the read-side section
 * itself. Returns what the callentry returns. */
QUA_API int qua_call(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret);

/* Calls through a site from a thread that is online with qua_thread_online()
 * (and reports quiescent states between batches of calls with
 * qua_thread_quiescent()): no read-side cost at all. */
static inline int qua_call_online(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  return __atomic_load_n(&s->fn, __ATOMIC_ACQUIRE)(s, a0, a1, ret);
}

/* For the callentries of types outside libqua (qua_type_register,
 * qua_create_with): delivers
 * callback cb of s's quaject, with arg, as the built-in types do. An
 * invoker-kind callback goes to s's handler (the caller's) and then the
 * watchers; a broadcast one to every open site that supplied a handler and
 * then the watchers. An index out of range does nothing. The caller is
 * inside a read-side section, as a callentry is. */
QUA_API void qua_fire(qua_site_t *s, int cb, uint64_t arg);

/* --- Wires ---------------------------------------------------------------- */

/* Wires src's callout to dst's callentry. Checked: names exist, arities and
 * result-ness match, the callout is not wired, src != dst. On error nothing
 * changes. */
QUA_API int qua_wire(qua_quaject_t *src, const char *callout, qua_quaject_t *dst,
                     const char *entry, qua_error_t *err);
QUA_API int qua_unwire(qua_quaject_t *src, const char *callout, qua_error_t *err);
/* The quaject and callentry a callout is wired to (NULL when unwired). */
QUA_API qua_quaject_t *qua_wired_to(const qua_quaject_t *src, int callout, int *entry);
/* The wires into q: the ids of up to max quajects whose callouts are wired
 * to q, and which callout of each. Returns how many wires there are (more
 * than max when the arrays were too short). Costs as many steps as q has
 * sites open, whatever the number of quajects. */
QUA_API int qua_wired_in(const qua_quaject_t *q, uint64_t *ids, int *callouts, int max);

/* Calls the quaject's own callout `callout` (for types' code and tests).
 * QUA_ENOTWIRED when it is not wired. Caller is inside a read-side
 * section (a type's callentry or an active quaject's thread). */
QUA_API int qua_callout(qua_quaject_t *self, int callout, uint64_t a0, uint64_t a1, uint64_t *ret);

/* --- Watchers -------------------------------------------------------------- */

typedef struct qua_watch qua_watch_t;

/* Binds a handler to a callback of q as a watcher: it is called for every
 * firing of that callback, whoever caused it, until unbound. */
QUA_API int qua_watch(qua_quaject_t *q, const char *callback, qua_handler_fn fn, void *ctx,
                      qua_watch_t **out, qua_error_t *err);
/* Unbinds; returns once the handler can no longer be running. */
QUA_API void qua_unwatch(qua_watch_t *w);

/* --- Type-specific operations ------------------------------------------- */

/* Closes a queue: waiting pumps wake and stop, later puts fail with
 * QUA_ECLOSED, gets drain what is left. */
QUA_API int qua_queue_close(qua_quaject_t *q);

/* Waits until an active quaject (a pump) has stopped by itself (its source
 * closed and drained), at most timeout_ms; QUA_ESTATE on timeout. */
QUA_API int qua_pump_join(qua_quaject_t *q, int timeout_ms);

/* Per-thread registration for the QSBR flavour, used by active quajects'
 * threads; exposed for programs that want to run quaject code on their own
 * threads at zero read-side cost. */
QUA_API void qua_thread_online(void);
QUA_API void qua_thread_offline(void);
QUA_API void qua_thread_quiescent(void);

/* The nice increment, 0 (the default: the same priority) to 19, that
 * clocks' threads take over the thread that starts them; values outside
 * are clamped. A daemon gives them one so that a thousand clocks waking
 * every millisecond cannot starve its control threads of the CPU. (Pumps
 * sleep until items come and keep their creator's priority: at 19, 8,192
 * of them took seconds to end on a loaded machine.)
 * Applies to threads started afterwards; where the system refuses (a
 * seccomp filter), they keep their creator's. Returns the previous value. */
QUA_API int qua_set_thread_nice(int increment);

#endif /* QUA_H */
