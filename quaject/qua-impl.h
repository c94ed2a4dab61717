/* qua-impl.h -- libqua's type implementer's interface: type tables, their hooks, sites, synthesis.
 *
 * qua.h is the API of programs that use quajects, with opaque handles.
 * This header is for code that defines quaject types or runs their
 * callentries: libqua's own types, quad's (link, the target=m68k types),
 * and the tree's tests. It is not installed: libqua itself is built into
 * the tree's programs, and these structures change with it.
 *
 * A type is one table (qua_type_t): its parameters, callentries with
 * their generic C code, callouts, callbacks, and hooks (qua_type_ops_t).
 * A callentry receives its site (qua_site_t: the target's state block and
 * the caller's handlers) and calls back through qua_fire(). A type that
 * has templates tells the synthesiser, per site, which template and hole
 * values the site's code is made of (site_synth, qua_synth_part_t).
 */
#ifndef QUA_IMPL_H
#define QUA_IMPL_H

#include <stddef.h>

#include "qua.h"

/* --- Type tables --------------------------------------------------------- */

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
  /* Types that keep state in storage (qua_storage_map): the contents a
   * dead process left in it (qua_storage_recover's contract). */
  int (*recover)(const void *mem, size_t bytes, void *out, size_t *n, char *why, size_t whylen);
} qua_type_ops_t;

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
  /* Nonzero for a type whose instances may keep state in storage
   * (qua_storage_map, ops.recover): changes whenever that layout does. */
  uint64_t storage_layout;
};

/* From a type's init, for a type with a storage_layout and ops.recover:
 * `bytes` of storage that outlives the process (qua_set_storage), zeroed,
 * or NULL (none set, or the map failed: the type keeps its state in its
 * own memory). At most once per quaject; the core gives it back after
 * fini. */
QUA_API void *qua_storage_map(qua_quaject_t *q, size_t bytes);

/* How many types programs may add to the built-in ones. */
#define QUA_MAX_EXTRA_TYPES 8

/* --- Types defined outside libqua ------------------------------------------ */

/* Adds a type (a program's own, such as quad's link) to the registry. The
 * table must outlive the program. Refused with QUA_EINVAL for a malformed
 * table (no name or init hook, a name past QUA_NAME_MAX, an entry with an
 * arity out of range or no generic code), QUA_ELIMIT for more members than
 * the model allows or past QUA_MAX_EXTRA_TYPES types, QUA_EEXIST when a
 * type of that name exists. */
QUA_API int qua_type_register(const qua_type_t *t, struct qua_error *err);

/* qua_fire(), for a type's callentries, is declared with the sites below. */
/* From any thread, inside a read-side section or not: calls back the
 * broadcast-kind callback cb on every site that supplied a handler, then
 * the watchers. */
QUA_API void qua_broadcast(qua_quaject_t *q, int cb, uint64_t arg);
/* For a type's init or sites_changed hook: returns code, and the failed
 * control operation's message says why (printf-style, kept per thread). */
QUA_API int qua_refuse(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Creates a quaject as qua_create() does (qua.h), of a type whose table
 * lives outside libqua: an embedder's
 * quajects whose callentries run elsewhere (quad's target=m68k ones run as
 * 68k code on its quamachine). The table is checked as qua_type_register()
 * checks it (QUA_EINVAL or QUA_ELIMIT, naming the problem), must outlive
 * its quajects, and is not added to qua_types(). */
QUA_API int qua_create_with(const qua_type_t *t, const char *const *params, int nparams,
                            qua_quaject_t **out, qua_error_t *err);

/* --- Quajects, as their type's code sees them -------------------------------- */

/* The quaject's state block (state_size bytes, zeroed before init). */
QUA_API void *qua_quaject_state(qua_quaject_t *q);
/* The site of a quaject's body (ops.body), or NULL for types without one. */
QUA_API qua_site_t *qua_quaject_body(const qua_quaject_t *q);

/* --- Sites ------------------------------------------------------------------------ */

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
  struct qua__code_map *code_map;  /* with code: its parts and patched holes (control lock) */
};

/* qua_call_online (qua.h) loads a site's code through its first member. */
_Static_assert(offsetof(struct qua_site, fn) == 0, "qua_site.fn must come first");

/* For the callentries of types outside libqua (qua_type_register,
 * qua_create_with): delivers
 * callback cb of s's quaject, with arg, as the built-in types do. An
 * invoker-kind callback goes to s's handler (the caller's) and then the
 * watchers; a broadcast one to every open site that supplied a handler and
 * then the watchers. An index out of range does nothing. The caller is
 * inside a read-side section, as a callentry is. */
QUA_API void qua_fire(qua_site_t *s, int cb, uint64_t arg);

#endif /* QUA_IMPL_H */
