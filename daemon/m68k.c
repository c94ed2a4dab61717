/* m68k.c -- quad's target=m68k quajects: libqua quajects whose callentries run as synthesised
 * 68030 code on the daemon's quamachine.
 *
 * Design notes
 *
 * 1. The daemon owns one two-CPU 68030 quamachine, made by the first
 *    target=m68k create and kept until quad_m68k_shutdown(). Each m68k
 *    quaject is an ordinary libqua quaject (qua_create_with) of a type
 *    defined here, so handles, sites, wires, watchers, drains and listings
 *    work as for host quajects; its state holds the backend's instance
 *    (quaject68k.h), whose code and data live in the machine's RAM.
 * 2. A callentry runs m68k_qj_call on CPU 0: the host thread becomes that
 *    CPU until the synthesised code returns. The machine belongs to one
 *    host thread at a time (machine.h), and callentries may be called from
 *    any thread (the loop, a pump's worker), so every access to the
 *    machine holds `lock`. The lock is a leaf: nothing else is taken while
 *    it is held.
 * 3. Callbacks. Every callback of an instance has a host handler in the
 *    backend (m68k_qj_on_callback): the 68k code reaches it through its
 *    trap while the CPU waits. That handler only records the callback; the
 *    callentry delivers the records with qua_fire() after releasing the
 *    lock, so host handlers (the invoker's, the watchers', a drain's) never
 *    run under it and may call into the machine again. Full and empty end
 *    the call with QUA_DIVERTED, as on the host.
 * 4. Which code: the backend tells which template each entry was
 *    synthesised from and where it is; every call adds the instructions
 *    and estimated cycles it executed (m68k_qj_call counts them), per
 *    entry, so `qua show` gives the mean per call of the code that runs
 *    now (the counts restart when the code changes: a queue switching to
 *    its MP code when a second producer opens a site on put).
 * 5. Sites on an entry are its callers: opening one attaches a caller in
 *    the backend, closing detaches (a queue in "auto" then runs SP-SC code
 *    for one producer and one consumer, the CAS2 code from the second on).
 *    This runs from libqua's sites_changed hook, under its control lock,
 *    then the machine lock (note 2's order: control lock, machine lock).
 * 6. After a crash (quad --state-dir). The instance's state in the
 *    machine's RAM holds absolute 68k addresses (its ring, its nodes) and
 *    the machine is remade at each start, so it is not what is kept.
 *    Each instance instead keeps a shadow of its contents in its storage
 *    (qua_storage_map: a MAP_SHARED file): a queue's words (slots, and
 *    counts of puts and gets), a stack's words (slots and their count), a
 *    counter's value. m68k_call updates it after a callentry returned OK,
 *    under the machine lock, so the shadow sees the calls one at a time in
 *    the order they ran, which is their linearisation order (one caller
 *    CPU, note 2). The stores: put writes slots[puts % capacity], then
 *    puts + 1 (release); get writes gets + 1; push writes slots[count],
 *    then count + 1; pop writes count - 1; add writes the new value. Each
 *    operation is committed by its last store, one aligned 64-bit word, so
 *    a process killed at any instruction leaves the shadow as of a prefix
 *    of the calls, with the one in flight counted iff its commit had run.
 *    The commit runs before the reply goes out, so an answered call is
 *    always in it; a call whose reply never went out may be (a put or push
 *    retried then counts twice) or not (a get or pop then loses nothing:
 *    its item comes back). A put's slot is never a live item's: the
 *    machine's queue had room, and it holds what the shadow does. m68k_recover
 *    reads the shadow (queue oldest first, stack top first), and the
 *    restart puts the contents into a new instance through its callentries
 *    (state.c, R3), which fills that instance's shadow the same way.
 */
#include "quad-internal.h"
#include "quad-m68k.h"

#ifndef QUA_M68K_BACKEND
/* Built without the backend: no m68k types, so target=m68k is refused. */
const qua_type_t *quad_m68k_type(const char *name) {
  (void)name;
  return NULL;
}
const qua_type_t *const *quad_m68k_types(void) {
  static const qua_type_t *const none[] = {NULL};
  return none;
}
bool quad_m68k_is(const qua_quaject_t *q) {
  (void)q;
  return false;
}
int quad_m68k_entry_info(const qua_quaject_t *q, int entry, char *impl, size_t impllen,
                         char **code, qua_code_t **mcode) {
  (void)q;
  (void)entry;
  (void)impl;
  (void)impllen;
  (void)code;
  (void)mcode;
  return QUA_ENOENTRY;
}
void quad_m68k_shutdown(void) {}
#else

#include <elf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quaject68k.h"

#define M68K_FIRED_MAX 8
#define M68K_CALLER_CPU 0

/* Per callentry: what its code has run since it was last synthesised. */
typedef struct entry_stats {
  uint32_t addr;        /* the code measured */
  const char *variant;  /* its template */
  uint64_t calls, insns, cycles;
} entry_stats_t;

/* The state block of every m68k quaject. */
/* An instance's shadow of its contents (note 6), in its storage. */
typedef struct m68k_shadow {
  uint32_t capacity, pad;
  _Atomic uint64_t puts;  /* queue: puts; stack: the count; counter: the value */
  _Atomic uint64_t gets;  /* queue: gets */
  uint32_t slots[];
} m68k_shadow_t;

typedef struct m68k_state {
  m68k_qj_t *qj;
  m68k_shadow_t *shadow; /* NULL without storage */
  const char *kind; /* the backend's type name */
  entry_stats_t stats[QUA_MAX_ENTRIES];
  unsigned sites[QUA_MAX_ENTRIES];
  /* Callbacks recorded during the call in progress (note 3). */
  int nfired;
  struct {
    int cb;
    uint32_t arg;
  } fired[M68K_FIRED_MAX];
} m68k_state_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static m68k_machine_t *machine;

/* The machine, created on first use (lock held). */
static m68k_machine_t *get_machine(void) {
  if (machine == NULL) {
    m68k_machine_config_t cfg = {M68K_MODEL_68030, 2, 0, M68K_QJ_RAM_MIN};
    machine = m68k_machine_create(&cfg);
  }
  return machine;
}

void quad_m68k_shutdown(void) {
  pthread_mutex_lock(&lock);
  m68k_machine_destroy(machine); /* and the instances still in it */
  machine = NULL;
  pthread_mutex_unlock(&lock);
}

/* ---- Callbacks (note 3) ------------------------------------------------------- */

typedef struct cb_ctx {
  m68k_state_t *st;
  int cb;
} cb_ctx_t;

/* The backend's handler: runs in the middle of the 68k call, lock held. */
static void on_callback(void *ctx, const char *callback, uint32_t arg) {
  const cb_ctx_t *c = ctx;
  (void)callback;
  if (c->st->nfired < M68K_FIRED_MAX) {
    c->st->fired[c->st->nfired].cb = c->cb;
    c->st->fired[c->st->nfired].arg = arg;
    c->st->nfired++;
  }
}

/* ---- The shadow (note 6) -------------------------------------------------------- */

/* Records a callentry that returned OK with value v (lock held). */
static void shadow_apply(m68k_shadow_t *sh, const char *kind, const char *entry, uint32_t arg,
                         uint32_t v) {
  uint64_t n = atomic_load_explicit(&sh->puts, memory_order_relaxed);
  if (strcmp(entry, "put") == 0 || strcmp(entry, "push") == 0) {
    sh->slots[n % sh->capacity] = arg; /* a stack's count is below its capacity */
    atomic_store_explicit(&sh->puts, n + 1, memory_order_release);
  } else if (strcmp(entry, "get") == 0) {
    atomic_store_explicit(&sh->gets, atomic_load_explicit(&sh->gets, memory_order_relaxed) + 1,
                          memory_order_release);
  } else if (strcmp(entry, "pop") == 0) {
    atomic_store_explicit(&sh->puts, n - 1, memory_order_release);
  } else if (strcmp(entry, "add") == 0 && strcmp(kind, "counter") == 0) {
    atomic_store_explicit(&sh->puts, v, memory_order_release);
  }
}

/* The shadow's layout (what a file written by another build must agree on). */
#define M68K_SHADOW_LAYOUT                                                                    \
  ((uint64_t)sizeof(m68k_shadow_t) << 32 ^ (uint64_t)offsetof(m68k_shadow_t, gets) << 8 ^ 0x68)

/* qua_storage_recover for the three types: the contents of a shadow. */
static int shadow_recover(const char *kind, const void *mem, size_t bytes, uint64_t *out,
                          size_t *n, char *why, size_t whylen) {
  const m68k_shadow_t *sh = mem;
  uint64_t cap = bytes >= sizeof *sh ? sh->capacity : 0;
  bool counter = strcmp(kind, "counter") == 0;
  if (bytes < sizeof *sh || bytes != sizeof *sh + (counter ? 0 : cap * sizeof(uint32_t)) ||
      (!counter && cap == 0)) {
    snprintf(why, whylen, "%zu bytes, not the size of an m68k %s's shadow of capacity %" PRIu64,
             bytes, kind, cap);
    return QUA_EINVAL;
  }
  uint64_t puts = atomic_load_explicit(&sh->puts, memory_order_relaxed);
  uint64_t gets = atomic_load_explicit(&sh->gets, memory_order_relaxed);
  if (counter) {
    out[0] = (uint32_t)puts;
    *n = 1;
    return QUA_OK;
  }
  bool queue = strcmp(kind, "queue") == 0;
  uint64_t count = queue ? puts - gets : puts;
  if (count > cap || (!queue && gets != 0)) {
    snprintf(why, whylen, "its counts (%" PRIu64 ", %" PRIu64 ") are not those of an m68k %s of "
             "capacity %" PRIu64, puts, gets, kind, cap);
    return QUA_EINVAL;
  }
  for (uint64_t i = 0; i < count; i++)
    out[i] = sh->slots[queue ? (gets + i) % cap : count - 1 - i];
  *n = (size_t)count;
  return QUA_OK;
}

static int m68k_queue_recover(const void *mem, size_t bytes, void *out, size_t *n, char *why,
                              size_t whylen) {
  return shadow_recover("queue", mem, bytes, out, n, why, whylen);
}
static int m68k_stack_recover(const void *mem, size_t bytes, void *out, size_t *n, char *why,
                              size_t whylen) {
  return shadow_recover("stack", mem, bytes, out, n, why, whylen);
}
static int m68k_counter_recover(const void *mem, size_t bytes, void *out, size_t *n, char *why,
                                size_t whylen) {
  return shadow_recover("counter", mem, bytes, out, n, why, whylen);
}

/* ---- Callentries (note 2) ----------------------------------------------------- */

static int m68k_call(qua_site_t *s, uint64_t a0, uint64_t *ret) {
  m68k_state_t *st = s->state;
  const qua_type_t *t = qua_quaject_type(s->target);
  const char *name = t->entries[s->entry].name;
  if (a0 > UINT32_MAX)
    return QUA_ERANGE; /* the 68k quajects hold 32-bit words */
  int fired[M68K_FIRED_MAX];
  uint32_t fired_arg[M68K_FIRED_MAX];
  uint32_t v = 0;
  uint64_t insns = 0, cycles = 0;
  pthread_mutex_lock(&lock);
  st->nfired = 0;
  int r = m68k_qj_call(st->qj, M68K_CALLER_CPU, name, (uint32_t)a0, &v, &insns, &cycles);
  int nfired = st->nfired;
  for (int i = 0; i < nfired; i++) {
    fired[i] = st->fired[i].cb;
    fired_arg[i] = st->fired[i].arg;
  }
  if (r == M68K_QJ_OK && st->shadow != NULL)
    shadow_apply(st->shadow, st->kind, name, (uint32_t)a0, v);
  if (r >= 0) {
    entry_stats_t *es = &st->stats[s->entry];
    uint32_t addr = 0;
    const char *variant = NULL;
    m68k_qj_entry_code(st->qj, name, &addr, NULL, &variant);
    if (addr != es->addr || variant != es->variant)
      *es = (entry_stats_t){.addr = addr, .variant = variant};
    es->calls++;
    es->insns += insns;
    es->cycles += cycles;
  } else {
    quad_log(QUAD_LOG_ERROR, "m68k %s.%s: %s: %s", st->kind, name, m68k_strerror(r),
             m68k_machine_message(machine));
  }
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < nfired; i++)
    qua_fire(s, fired[i], fired_arg[i]);
  if (r < 0)
    return QUA_ESTATE;
  if (ret != NULL)
    *ret = v;
  return r == M68K_QJ_OK ? QUA_OK : QUA_DIVERTED; /* FULL, EMPTY: the callback was called */
}

static int m68k_entry_arg(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  (void)a1;
  uint64_t unused;
  return m68k_call(s, a0, ret != NULL ? ret : &unused);
}

static int m68k_entry_noarg(qua_site_t *s, uint64_t a0, uint64_t a1, uint64_t *ret) {
  (void)a0;
  (void)a1;
  return m68k_call(s, 0, ret);
}

/* ---- Type hooks ------------------------------------------------------------------ */

/* The callback contexts of every quaject live here, beside its state. */
typedef struct m68k_block {
  m68k_state_t st;
  cb_ctx_t cbs[QUA_MAX_CALLBACKS];
} m68k_block_t;

static int m68k_init(qua_quaject_t *q, const uint64_t *params) {
  m68k_block_t *b = qua_quaject_state(q);
  const qua_type_t *t = qua_quaject_type(q);
  const char *kind = t->name + 5; /* "m68k-queue": the backend's "queue" */
  uint32_t capacity = t->nparams > 0 ? (uint32_t)params[0] : 0;
  char err[256];
  int rc = QUA_OK;
  pthread_mutex_lock(&lock);
  m68k_machine_t *m = get_machine();
  if (m == NULL) {
    rc = QUA_ENOMEM;
    goto out;
  }
  int r = m68k_qj_create(m, kind, NULL, capacity, &b->st.qj, err, sizeof err);
  if (r != M68K_OK) {
    quad_log(QUAD_LOG_WARN, "m68k %s: %s", kind, err);
    rc = r == M68K_ENOMEM ? QUA_ENOMEM : r == M68K_EARENA ? QUA_ELIMIT : QUA_EINVAL;
    goto out;
  }
  b->st.kind = kind;
  bool counter = strcmp(kind, "counter") == 0;
  b->st.shadow = qua_storage_map(q, sizeof(m68k_shadow_t) +
                                        (counter ? 0 : (size_t)capacity * sizeof(uint32_t)));
  if (b->st.shadow != NULL)
    b->st.shadow->capacity = counter ? 0 : capacity;
  for (int k = 0; k < t->ncallbacks; k++) {
    b->cbs[k] = (cb_ctx_t){&b->st, k};
    r = m68k_qj_on_callback(b->st.qj, t->callbacks[k].name, on_callback, &b->cbs[k]);
    if (r != M68K_OK) {
      m68k_qj_destroy(b->st.qj);
      b->st.qj = NULL;
      rc = QUA_EINVAL;
      goto out;
    }
  }
out:
  pthread_mutex_unlock(&lock);
  return rc;
}

static void m68k_fini(qua_quaject_t *q) {
  m68k_block_t *b = qua_quaject_state(q);
  pthread_mutex_lock(&lock);
  if (machine != NULL) /* else it went with the machine */
    m68k_qj_destroy(b->st.qj);
  b->st.qj = NULL;
  pthread_mutex_unlock(&lock);
}

/* Note 5: sites are callers. */
static int m68k_sites_changed(qua_quaject_t *q, int entry, int phase) {
  if (entry < 0)
    return QUA_OK; /* watchers */
  m68k_state_t *st = qua_quaject_state(q);
  const char *name = qua_quaject_type(q)->entries[entry].name;
  pthread_mutex_lock(&lock);
  int r = phase == QUA_SITES_BEFORE_OPEN ? m68k_qj_attach(st->qj, name)
                                         : m68k_qj_detach(st->qj, name);
  pthread_mutex_unlock(&lock);
  if (r != M68K_OK)
    quad_log(QUAD_LOG_WARN, "m68k %s.%s: cannot %s a caller: %s", st->kind, name,
             phase == QUA_SITES_BEFORE_OPEN ? "attach" : "detach", m68k_strerror(r));
  return r == M68K_OK || phase != QUA_SITES_BEFORE_OPEN ? QUA_OK : QUA_ESTATE;
}

static const char *m68k_entry_impl(const qua_quaject_t *q, const qua_site_t *s) {
  (void)q;
  (void)s;
  return "m68k";
}

static int m68k_describe(const qua_quaject_t *q, char *buf, size_t len) {
  m68k_state_t *st = qua_quaject_state((qua_quaject_t *)q);
  const qua_type_t *t = qua_quaject_type(q);
  pthread_mutex_lock(&lock);
  uint32_t data = m68k_qj_data(st->qj);
  int w = snprintf(buf, len, "target=m68k variant=%s state=0x%08" PRIx32, m68k_qj_variant(st->qj),
                   data);
  if (t->nparams > 0 && w > 0 && (size_t)w < len)
    w += snprintf(buf + w, len - (size_t)w, " capacity=%" PRIu64, qua_quaject_param(q, 0));
  pthread_mutex_unlock(&lock);
  return w;
}

/* ---- The types --------------------------------------------------------------------- */

static const qua_param_def_t capacity_param[] = {
    {"capacity", 64, 1, M68K_QJ_CAPACITY_MAX, 0, "items (32-bit words)"},
};

#define M68K_OPS(recover_fn)                                                                  \
  {                                                                                           \
    .init = m68k_init, .fini = m68k_fini, .sites_changed = m68k_sites_changed,                \
    .entry_impl = m68k_entry_impl, .describe = m68k_describe, .recover = recover_fn,          \
  }

static const qua_entry_def_t queue_entries[] = {
    {"put", 1, false, true, m68k_entry_arg, "store a 32-bit word; full when no room"},
    {"get", 0, true, true, m68k_entry_noarg, "take a word; empty when none"},
};
static const qua_callback_def_t queue_callbacks[] = {
    {"full", QUA_CB_INVOKER, "put found no room; the item was not stored"},
    {"notfull", QUA_CB_BROADCAST, "a get took the queue from full to not full"},
    {"empty", QUA_CB_INVOKER, "get found nothing"},
    {"notempty", QUA_CB_BROADCAST, "a put took the queue from empty to not empty"},
};
static const qua_type_t m68k_queue = {
    .storage_layout = M68K_SHADOW_LAYOUT,
    .name = "m68k-queue",
    .summary = "the Synthesis queue as 68030 code: SP-SC, CAS2 MP-MC from a second caller",
    .state_size = sizeof(m68k_block_t),
    .params = capacity_param,
    .nparams = 1,
    .entries = queue_entries,
    .nentries = 2,
    .callbacks = queue_callbacks,
    .ncallbacks = 4,
    .ops = M68K_OPS(m68k_queue_recover),
};

static const qua_entry_def_t stack_entries[] = {
    {"push", 1, false, true, m68k_entry_arg, "push a 32-bit word (CAS2); full when no room"},
    {"pop", 0, true, true, m68k_entry_noarg, "pop a word (CAS2); empty when none"},
};
static const qua_callback_def_t stack_callbacks[] = {
    {"full", QUA_CB_INVOKER, "push found no room; the item was not stored"},
    {"empty", QUA_CB_INVOKER, "pop found nothing"},
};
static const qua_type_t m68k_stack = {
    .storage_layout = M68K_SHADOW_LAYOUT,
    .name = "m68k-stack",
    .summary = "the thesis's CAS2 stack as 68030 code",
    .state_size = sizeof(m68k_block_t),
    .params = capacity_param,
    .nparams = 1,
    .entries = stack_entries,
    .nentries = 2,
    .callbacks = stack_callbacks,
    .ncallbacks = 2,
    .ops = M68K_OPS(m68k_stack_recover),
};

static const qua_entry_def_t counter_entries[] = {
    {"add", 1, true, true, m68k_entry_arg, "add a delta (CAS); returns the new value, mod 2^32"},
    {"read", 0, true, true, m68k_entry_noarg, "the current value"},
};
static const qua_type_t m68k_counter = {
    .storage_layout = M68K_SHADOW_LAYOUT,
    .name = "m68k-counter",
    .summary = "the thesis's CAS counter as 68030 code (32 bits)",
    .state_size = sizeof(m68k_block_t),
    .entries = counter_entries,
    .nentries = 2,
    .ops = M68K_OPS(m68k_counter_recover),
};

static const qua_type_t *const m68k_types[] = {&m68k_queue, &m68k_stack, &m68k_counter, NULL};

const qua_type_t *quad_m68k_type(const char *name) {
  for (int i = 0; m68k_types[i] != NULL; i++)
    if (strcmp(m68k_types[i]->name, name) == 0 || strcmp(m68k_types[i]->name + 5, name) == 0)
      return m68k_types[i];
  return NULL;
}

const qua_type_t *const *quad_m68k_types(void) { return m68k_types; }

bool quad_m68k_is(const qua_quaject_t *q) {
  const qua_type_t *t = qua_quaject_type(q);
  for (int i = 0; m68k_types[i] != NULL; i++)
    if (m68k_types[i] == t)
      return true;
  return false;
}

/* ---- What `show` says (note 4) ------------------------------------------------------ */

/* Holes one entry's code may have (its template's relocations). */
#define M68K_CODE_HOLES 64

/* The code of `len` bytes at addr with its holes, in one block (lock held). */
static qua_code_t *code_block(uint32_t addr, uint32_t len, const m68k_qj_hole_t *holes, int nholes) {
  size_t hb = (size_t)nholes * sizeof(qua_code_hole_t);
  qua_code_t *c = malloc(sizeof *c + hb + len);
  if (c == NULL)
    return NULL;
  qua_code_hole_t *ch = (qua_code_hole_t *)(c + 1);
  uint8_t *bytes = (uint8_t *)ch + hb;
  memcpy(bytes, m68k_machine_ram(machine, addr, len), len);
  for (int k = 0; k < nholes; k++)
    ch[k] = (qua_code_hole_t){holes[k].name, holes[k].addr - addr, holes[k].bytes, holes[k].pcrel,
                              -1, holes[k].value};
  *c = (qua_code_t){EM_68K, addr, len, 0, len, bytes, 0, (size_t)nholes, NULL, ch};
  return c;
}

/* The code from addr to end disassembled by the project's disassembler,
 * one instruction a line, each instruction whose bytes hold a patched
 * hole annotated with the hole's name and value (lock held); NULL when out
 * of memory. */
static char *disassemble(uint32_t addr, uint32_t end, const m68k_qj_hole_t *holes, int nholes) {
  size_t cap = 64 + (size_t)(end - addr) * 24 + (size_t)nholes * 48, used = 0;
  char *text = malloc(cap);
  if (text == NULL)
    return NULL;
  text[0] = '\0';
  m68k_cpu_t *cpu = m68k_machine_cpu(machine, M68K_CALLER_CPU);
  for (uint32_t pc = addr; pc < end && used + 128 < cap;) {
    char line[96];
    int n = m68k_disassemble(cpu, pc, line, sizeof line);
    uint32_t next = pc + (n > 0 ? (uint32_t)n : 2);
    used += (size_t)snprintf(text + used, cap - used, "%08" PRIx32 "  %s", pc, line);
    for (int k = 0; k < nholes && used + 64 < cap; k++)
      if (holes[k].addr < next && holes[k].addr + holes[k].bytes > pc)
        used += (size_t)snprintf(text + used, cap - used,
                                 holes[k].value < 0x10000 ? "  ; hole %s=%" PRIu32
                                                       : "  ; hole %s=0x%08" PRIx32,
                                 holes[k].name, holes[k].value);
    used += (size_t)snprintf(text + used, cap - used, "\n");
    pc = next;
  }
  return text;
}

int quad_m68k_entry_info(const qua_quaject_t *q, int entry, char *impl, size_t impllen,
                         char **code, qua_code_t **mcode) {
  m68k_state_t *st = qua_quaject_state((qua_quaject_t *)q);
  const char *name = qua_quaject_type(q)->entries[entry].name;
  uint32_t addr = 0, len = 0;
  const char *variant = NULL;
  m68k_qj_hole_t holes[M68K_CODE_HOLES];
  int nholes = 0;
  int rc = QUA_OK;
  if (code != NULL)
    *code = NULL;
  if (mcode != NULL)
    *mcode = NULL;
  pthread_mutex_lock(&lock);
  if (m68k_qj_entry_code(st->qj, name, &addr, &len, &variant) != M68K_OK ||
      (nholes = m68k_qj_entry_holes(st->qj, name, holes, M68K_CODE_HOLES)) < 0) {
    rc = QUA_ENOENTRY;
    goto out;
  }
  nholes = nholes < M68K_CODE_HOLES ? nholes : M68K_CODE_HOLES;
  /* Only the holes in the code shown: the template's text from its entry. */
  int kept = 0;
  for (int k = 0; k < nholes; k++)
    if (holes[k].addr >= addr && holes[k].addr + holes[k].bytes <= addr + len)
      holes[kept++] = holes[k];
  nholes = kept;
  const entry_stats_t *es = &st->stats[entry];
  if (es->calls != 0 && es->addr == addr && es->variant == variant)
    snprintf(impl, impllen,
             "m68k stencil %s at 0x%08" PRIx32 ", %" PRIu32 " bytes, %" PRIu64
             " insns/call, ~%" PRIu64 " cycles/call (mean of %" PRIu64 " call%s)",
             variant, addr, len, (es->insns + es->calls / 2) / es->calls,
             (es->cycles + es->calls / 2) / es->calls, es->calls, es->calls == 1 ? "" : "s");
  else
    snprintf(impl, impllen, "m68k stencil %s at 0x%08" PRIx32 ", %" PRIu32 " bytes, not called yet",
             variant, addr, len);
  if (code != NULL && (*code = disassemble(addr, addr + len, holes, nholes)) == NULL)
    rc = QUA_ENOMEM;
  if (rc == QUA_OK && mcode != NULL && (*mcode = code_block(addr, len, holes, nholes)) == NULL)
    rc = QUA_ENOMEM;
  if (rc < 0 && code != NULL) {
    free(*code);
    *code = NULL;
  }
out:
  pthread_mutex_unlock(&lock);
  return rc;
}
#endif /* QUA_M68K_BACKEND */
