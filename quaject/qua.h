/* qua.h -- the quaject model: types, instances, wires, sites and callbacks.
 *
 * This is the public header of libqua and reads as its manual: the API of
 * programs that use quajects. Its handles (quajects, sites, types,
 * watchers) are opaque. Defining types of one's own (the tables, their
 * hooks, synthesis) is the type implementer's interface, qua-impl.h.
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

/* --- Types ----------------------------------------------------------------- */

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

/* The entry index of a quaject's body (an active quaject's own loop, a
 * pump's step), for qua_quaject_entry_info and qua_quaject_entry_code. */
#define QUA_ENTRY_BODY (-1)

/* Which code quajects run: the generic C callentries, or code synthesised
 * from stencils per site. */
typedef enum qua_synth_mode {
  QUA_SYNTH_OFF = 0,
  QUA_SYNTH_STENCIL = 1,
} qua_synth_mode_t;

/* The built-in types and the registered ones (qua-impl.h), and lookup by
 * name. qua_types() returns a NULL-terminated array. */
QUA_API const qua_type_t *const *qua_types(void);
QUA_API const qua_type_t *qua_type_find(const char *name);
QUA_API int qua_type_entry(const qua_type_t *t, const char *name);    /* index or QUA_ENOENTRY */
QUA_API int qua_type_callout(const qua_type_t *t, const char *name);  /* index or QUA_ENOCALLOUT */
QUA_API int qua_type_callback(const qua_type_t *t, const char *name); /* index or QUA_ENOCALLBACK */
QUA_API int qua_type_param(const qua_type_t *t, const char *name);    /* index or QUA_ENOPARAM */
/* A type's name ("queue"); the name of its callback cb (what a handler's
 * `cb` stands for), or NULL for an index out of range. */
QUA_API const char *qua_type_name(const qua_type_t *t);
QUA_API const char *qua_type_callback_name(const qua_type_t *t, int cb);

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

/* Destroys a quaject. Refused with QUA_EBUSY while other quajects' callouts
 * are wired to it or sites are open on it, unless `force`: then every
 * callout wired to it is unwired first and open sites are left pointing at
 * a stub that returns QUA_ESTATE. Its own callouts are unwired. Returns
 * once no thread can still be running its code; its state is freed after a
 * grace period. */
QUA_API int qua_destroy(qua_quaject_t *q, bool force, qua_error_t *err);

QUA_API const qua_type_t *qua_quaject_type(const qua_quaject_t *q);
QUA_API uint64_t qua_quaject_id(const qua_quaject_t *q);
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
QUA_API int qua_quaject_entry_info(const qua_quaject_t *q, int entry, char *buf, size_t len,
                                   uint64_t *synth_ns);
QUA_API qua_synth_mode_t qua_quaject_synth(const qua_quaject_t *q);

/* The machine code a callentry runs, for disassemblers (`qua show --code`).
 * Synthesised code is one or more parts (a site's own template, the
 * callentries chained behind it or called from it), each part a template
 * whose holes were patched with values. */
typedef struct qua_code_part {
  uint64_t quaject;     /* the quaject whose callentry the part is */
  int entry;            /* that callentry's index, or QUA_ENTRY_BODY */
  const char *variant;  /* its template variant ("spsc") */
  uint32_t offset;      /* its entry, from the start of the code */
} qua_code_part_t;

typedef struct qua_code_hole {
  const char *name;     /* the template's hole, without the set's prefix ("mask"); "(text)"
                           or "(data)" for a reference to the code's own parts */
  uint32_t offset;      /* of the patched field, from the start of the code */
  uint8_t bytes;        /* the field's width */
  bool pcrel;           /* patched PC-relative (a call, a jump, a RIP-relative operand) */
  int16_t part;         /* the part (index into parts) whose entry the value is, or -1 */
  uint64_t value;       /* the hole's value (an address for calls and jumps) */
} qua_code_hole_t;

typedef struct qua_code {
  uint16_t machine;             /* ELF e_machine: 62 x86-64, 4 m68k */
  uint64_t addr;                /* run address of bytes[0] */
  uint32_t size;                /* bytes of code, text parts then data parts */
  uint32_t entry;               /* where the callentry starts in bytes */
  uint32_t text_end;            /* where the text parts end (instructions before it) */
  const uint8_t *bytes;
  size_t nparts, nholes;
  const qua_code_part_t *parts; /* parts[0] is the callentry's own */
  const qua_code_hole_t *holes; /* in the order of the parts, then of their fields */
} qua_code_t;

/* A copy of the code the callentry's first open site runs (the one
 * qua_quaject_entry_info speaks of), in one block for free(). *out is NULL
 * when that site runs generic code, or no site is open. QUA_ENOENTRY for a
 * bad entry, QUA_ENOMEM. From any thread; takes the control lock. */
QUA_API int qua_quaject_entry_code(const qua_quaject_t *q, int entry, qua_code_t **out);

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
  /* A site's first member is the code it runs (qua-impl.h checks it). */
  return __atomic_load_n((qua_entry_fn *)(void *)s, __ATOMIC_ACQUIRE)(s, a0, a1, ret);
}

/* --- Wires ---------------------------------------------------------------- */

/* Wires src's callout to dst's callentry. Checked: names exist, arities and
 * result-ness match, the callout is not wired, src != dst. On error nothing
 * changes. */
QUA_API int qua_wire(qua_quaject_t *src, const char *callout, qua_quaject_t *dst,
                     const char *entry, qua_error_t *err);
QUA_API int qua_unwire(qua_quaject_t *src, const char *callout, qua_error_t *err);
/* The quaject and callentry a callout is wired to (NULL when unwired). */
QUA_API qua_quaject_t *qua_wired_to(const qua_quaject_t *src, int callout, int *entry);
/* The same without the control lock (it waits for nothing, on any
 * thread): the id of the quaject the callout is wired to (0 when unwired)
 * and the name of its callentry, as they were at some moment during the
 * call. */
QUA_API uint64_t qua_wired_to_id(const qua_quaject_t *src, int callout, const char **entry);
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
/* True when q is a queue whose close has completed (qua_queue_close
 * returned, or is about to). Takes no lock: any thread, any time. */
QUA_API bool qua_queue_is_closed(const qua_quaject_t *q);

/* Where queues, buffers and counters keep what they hold. quad --state-dir
 * maps files, so that a queue's ring, a buffer's bytes and positions and a
 * counter's word outlive a crash of the process (kill -9) in the page cache.
 * map returns zeroed memory of `bytes` (at least 128-byte aligned) for a
 * quaject of `type` (whose layout qua_storage_layout gives), or NULL, and
 * the quaject then keeps its state in its own memory; unmap gets it back
 * when the quaject is destroyed. Set it before any quaject is made (NULL:
 * none). */
typedef struct qua_storage {
  void *(*map)(void *ctx, const qua_type_t *type, size_t bytes);
  void (*unmap)(void *ctx, void *mem, size_t bytes);
  void *ctx;
} qua_storage_t;
QUA_API void qua_set_storage(const qua_storage_t *s);
/* A number that changes when the layout of type's storage does; 0 for a
 * type that keeps none (only queue, buffer and counter keep any). */
QUA_API uint64_t qua_storage_layout(const qua_type_t *type);
/* The storage map gave q (its size in *bytes), or NULL. */
QUA_API void *qua_storage(const qua_quaject_t *q, size_t *bytes);
/* What the storage mem (bytes long) of a quaject of type held when its
 * process died, into out (room for `bytes` bytes, 8-byte aligned), their
 * number in *n: a queue's words, oldest first; a buffer's bytes, oldest
 * first; a counter's value (one int64_t). Each operation in flight then is
 * wholly there or not (queue.c, buffer.c, counter.c). QUA_OK, or QUA_EINVAL
 * with why filled when mem is not such storage. */
QUA_API int qua_storage_recover(const qua_type_t *type, const void *mem, size_t bytes, void *out,
                                size_t *n, char *why, size_t whylen);

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
