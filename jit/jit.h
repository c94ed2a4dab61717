/* jit.h -- code synthesis: stencils (templates with holes), copy-and-patch, code memory, tiers.
 *
 * This is the public header of libjit and reads as its manual.
 *
 * Templates are C functions with holes: extern symbols whose addresses stand
 * for values known only at run time (a state address, a mask, the handler to
 * call). The build compiles template files into relocatable objects and the
 * build-time tool `stencilgen` (jit/stencilgen.c, see jit/meson.build for the
 * recipe) turns each global function into a stencil: its bytes plus a table of
 * holes (offset, relocation kind, which hole, addend). At run time synthesis
 * is a copy and a patch (jit_emit), into code memory that is never writable
 * and executable at once (jit_codemem_*), reached through a tier interface
 * (jit_tier_t) so that an optimising tier can later compile the same
 * templates.
 *
 * jit knows nothing about what the templates mean: callers hand it stencils
 * and an array of hole values, indexed by the hole ids of the stencil set
 * that stencilgen generated (enum <PREFIX>_HOLE_<name> in the generated
 * header).
 *
 * Writing a template (x86-64, the recipe's default -mcmodel=medium):
 *
 *     extern char hole_state[];            // a hole: its "address" is the value
 *     extern void hole_full(uint64_t);     // a hole called or tail-called
 *     int put(uint64_t v) {
 *       uint64_t *st = (uint64_t *)hole_state;   // R_X86_64_64 (movabs)
 *       if (...) { hole_full(v); return 0; }     // R_X86_64_PLT32 (call rel32)
 *       ...
 *     }
 *
 * With -mcmodel=small, data holes become 32-bit immediates (R_X86_64_32,
 * _32S) or RIP-relative references (PC32): their values must then fit those
 * fields, which jit_emit checks. Calls are rel32 in both models: the called
 * function must lie within +-2 GiB of the code, which is why code memory is
 * placed next to the program's text (jit_codemem_create). A template must not
 * use writable static data, thread-local data or the GOT (stencilgen refuses
 * them); read-only data it references (constant pools) is copied with it.
 *
 * Threads: jit_emit and the stencil tables are pure and may be used from any
 * thread. Code memory has its own contract, below.
 */
#ifndef JIT_H
#define JIT_H

#include <stddef.h>
#include <stdint.h>

#define JIT_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* --- Errors ------------------------------------------------------------ */

#define JIT_ERRNO_MAP(XX)                                                     \
  XX(EINVAL, 1, "invalid argument")                                           \
  XX(ENOMEM, 2, "out of memory")                                              \
  XX(ERANGE, 3, "hole value does not fit its relocation field")               \
  XX(EREACH, 4, "hole target out of reach of a PC-relative field")            \
  XX(ENOSPC, 5, "destination too small for the code")                        \
  XX(ENOMAP, 6, "no code memory within reach of the program text")           \
  XX(ESYS, 7, "system call failed (see errno)")                               \
  XX(ENOTIER, 8, "the tier cannot compile this template")                     \
  XX(EMACHINE, 9, "stencil is for another machine")

typedef enum jit_errno {
  JIT_OK = 0,
#define JIT__ERR_ENUM(name, num, msg) JIT_##name = -(num),
  JIT_ERRNO_MAP(JIT__ERR_ENUM)
#undef JIT__ERR_ENUM
} jit_errno_t;

/* The message and the name ("JIT_ERANGE") of an error code; never NULL. */
JIT_API const char *jit_strerror(int err);
JIT_API const char *jit_err_name(int err);

/* --- Hole kinds ---------------------------------------------------------- */

/* Machines a stencil can be for (ELF e_machine numbers). */
#define JIT_MACHINE_M68K 4
#define JIT_MACHINE_X86_64 62

/* Range checks of a patched field of `bits` bits:
 *   NONE  the field holds the whole value (64-bit fields);
 *   U     the value must fit unsigned (zero-extended by the CPU);
 *   S     the value must fit signed (sign-extended by the CPU);
 *   X     either (a 32-bit machine's address: 0xffff0000 and -65536 alike). */
typedef enum jit_range {
  JIT_RANGE_NONE = 0,
  JIT_RANGE_U = 1,
  JIT_RANGE_S = 2,
  JIT_RANGE_X = 3,
} jit_range_t;

/* The hole kinds, one row per ELF relocation type stencilgen accepts.
 * Patched value: S + A for absolute kinds, S + A - P for PC-relative ones,
 * where S is the hole's value, A the addend and P the run-time address of
 * the field. Any relocation type not listed here fails the build.
 *
 *   name          machine  ELF type  bytes  big-endian  pc-rel  range */
#define JIT_HOLE_KIND_MAP(XX)                                                 \
  XX(X86_64_64,    JIT_MACHINE_X86_64, 1,  8, 0, 0, JIT_RANGE_NONE)           \
  XX(X86_64_PC32,  JIT_MACHINE_X86_64, 2,  4, 0, 1, JIT_RANGE_S)              \
  XX(X86_64_PLT32, JIT_MACHINE_X86_64, 4,  4, 0, 1, JIT_RANGE_S)              \
  XX(X86_64_32,    JIT_MACHINE_X86_64, 10, 4, 0, 0, JIT_RANGE_U)              \
  XX(X86_64_32S,   JIT_MACHINE_X86_64, 11, 4, 0, 0, JIT_RANGE_S)              \
  XX(X86_64_8,     JIT_MACHINE_X86_64, 14, 1, 0, 0, JIT_RANGE_U)              \
  XX(M68K_32,      JIT_MACHINE_M68K,   1,  4, 1, 0, JIT_RANGE_X)              \
  XX(M68K_16,      JIT_MACHINE_M68K,   2,  2, 1, 0, JIT_RANGE_X)              \
  XX(M68K_8,       JIT_MACHINE_M68K,   3,  1, 1, 0, JIT_RANGE_X)              \
  XX(M68K_PC32,    JIT_MACHINE_M68K,   4,  4, 1, 1, JIT_RANGE_X)              \
  XX(M68K_PC16,    JIT_MACHINE_M68K,   5,  2, 1, 1, JIT_RANGE_S)              \
  XX(M68K_PC8,     JIT_MACHINE_M68K,   6,  1, 1, 1, JIT_RANGE_S)

typedef enum jit_hole_kind {
#define JIT__KIND_ENUM(name, mach, type, bytes, be, pcrel, range) JIT_HOLE_##name,
  JIT_HOLE_KIND_MAP(JIT__KIND_ENUM)
#undef JIT__KIND_ENUM
  JIT_HOLE_KIND_COUNT
} jit_hole_kind_t;

/* One row of the table above, for code that walks it. */
typedef struct jit_hole_kind_info {
  const char *name;      /* "X86_64_PC32" */
  uint16_t machine;      /* JIT_MACHINE_* */
  uint16_t elf_type;     /* R_X86_64_PC32 etc. */
  uint8_t bytes;         /* field width */
  uint8_t big_endian;
  uint8_t pcrel;
  uint8_t range;         /* jit_range_t */
} jit_hole_kind_info_t;

/* The row for `kind`, or NULL when kind is not a jit_hole_kind_t. */
JIT_API const jit_hole_kind_info_t *jit_hole_kind_info(int kind);

/* --- Stencils (generated by stencilgen) --------------------------------- */

/* jit_hole_t.hole values for references to the stencil's own parts: the
 * address of its text (code) part, or of its data part (the read-only data
 * the template references, which the stencil carries); the addend holds the
 * offset into that part. */
#define JIT_HOLE_TEXT 0xfffeu
#define JIT_HOLE_DATA 0xffffu

/* No trailing jump (jit_stencil_t.tail). */
#define JIT_NO_TAIL 0xffffffffu

/* One hole: patch the field at `offset` of the stencil's bytes. */
typedef struct jit_hole {
  uint32_t offset;  /* of the field in the stencil's bytes */
  uint16_t kind;    /* jit_hole_kind_t */
  uint16_t hole;    /* hole id in the stencil's set, JIT_HOLE_TEXT or JIT_HOLE_DATA */
  int64_t addend;
} jit_hole_t;

typedef struct jit_stencil_set jit_stencil_set_t;

/* A stencil: a template function's code, then the read-only data it
 * references, with its holes. Bytes [0, code_size) are the text part
 * (the function, entry at `entry`, then any local code it uses); bytes
 * [data_off, size) the data part. Copied whole, the stencil must be placed
 * at an address aligned to `align`; in a chain the two parts are placed
 * apart (text back to back, data after all text). */
typedef struct jit_stencil {
  const char *name;         /* the template function's name */
  const jit_stencil_set_t *set;
  const uint8_t *bytes;
  const jit_hole_t *holes;
  uint32_t size;            /* of bytes */
  uint32_t code_size;       /* of the text part */
  uint32_t data_off;        /* start of the data part (== size when none) */
  uint32_t entry;           /* offset of the function's first instruction */
  uint32_t nholes;
  uint32_t align;           /* required alignment of the copy (and of its data part) */
  uint32_t tail;            /* offset of a trailing jump to a hole (jmp rel32,
                               bra.l, jmp abs.l) ending the text part, or
                               JIT_NO_TAIL; chains drop it to fall through */
  uint16_t tail_hole;       /* the hole that jump goes to */
  uint16_t machine;         /* JIT_MACHINE_* */
} jit_stencil_t;

/* The stencils generated from one set of template objects, and the names of
 * their holes: hole id i is names[i] (also enum <PREFIX>_HOLE_<name>). */
struct jit_stencil_set {
  const char *prefix;
  const char *const *hole_names;
  const jit_stencil_t *const *stencils;
  uint32_t nholes;
  uint32_t nstencils;
};

/* The stencil of `set` named `name`, or NULL. */
JIT_API const jit_stencil_t *jit_stencil_find(const jit_stencil_set_t *set, const char *name);
/* The id of the hole named `name` in `set`, or a negative JIT_EINVAL. */
JIT_API int jit_hole_find(const jit_stencil_set_t *set, const char *name);

/* --- Copy and patch ------------------------------------------------------ */

/* What went wrong in jit_emit, for messages (jit_emit_error_format). */
typedef struct jit_emit_error {
  const jit_stencil_t *stencil;
  const jit_hole_t *hole;   /* the hole that failed, or NULL */
  uint64_t value;           /* the value that did not fit (after S + A - P) */
  uint64_t where;           /* run-time address of the field */
} jit_emit_error_t;

/* Copy `s` into `dst` (stencil.size bytes, writable) and patch every hole for
 * the code to run at address `addr` (which may differ from dst: the RX view
 * of dual-mapped code memory, or an emulated machine's address). `values` is
 * indexed by hole id and must cover every hole the stencil uses. Returns
 * JIT_OK; or JIT_ERANGE (an absolute value does not fit its field),
 * JIT_EREACH (a PC-relative target out of reach), with *err filled when err
 * is not NULL. Big-endian kinds are patched big-endian whatever the host.
 * Thread-safe; writes only dst. */
JIT_API int jit_emit(void *dst, uint64_t addr, const jit_stencil_t *s, const uint64_t *values,
                     jit_emit_error_t *err);

/* One link of a chain: stencils emitted back to back into one piece of
 * code, so that a callout jumps straight into (or falls through into) its
 * target's code: "collapsing layers". */
/* Up to this many holes of a link may stand for other links' entries. */
#define JIT_LINK_CALLS 3
/* Chains longer than this are refused (JIT_EINVAL). */
#define JIT_CHAIN_MAX 32

typedef struct jit_link {
  const jit_stencil_t *stencil;
  const uint64_t *values;  /* hole values of this link, indexed by hole id */
  int next_hole;           /* hole id standing for "the next link's entry"
                              (its value is filled in), or -1 */
  /* Holes standing for the entry of another link of the same code, which
   * this one calls rather than falls into (a tee's outputs before its
   * last): the value of hole calls[k].hole is filled in with the address of
   * link calls[k].link's entry. */
  unsigned ncalls;
  struct {
    uint16_t hole, link;
  } calls[JIT_LINK_CALLS];
} jit_link_t;

/* Bytes jit_emit_chain needs at most for `links` (alignment included). */
JIT_API size_t jit_chain_size(const jit_link_t *links, size_t n);

/* Emit `n` links back to back at dst (cap bytes writable), running at addr
 * (aligned to the largest link alignment). Texts come first, back to back,
 * then the data parts. Link i's next_hole is set to link i+1's entry; when
 * link i ends in a jump to that hole and link i+1's entry is its first
 * byte, the jump is dropped and link i falls through into link i+1. All
 * links must be for the same machine. On success
 * *entry is the offset of link 0's entry and *used the bytes written.
 * Errors as jit_emit, plus JIT_ENOSPC. */
JIT_API int jit_emit_chain(void *dst, uint64_t addr, size_t cap, const jit_link_t *links,
                           size_t n, size_t *entry, size_t *used, jit_emit_error_t *err);

/* Where a chain's holes were patched, for disassemblers (`qua show --code`):
 * one row per patched field, in link order. */
typedef struct jit_patch {
  uint32_t offset;  /* of the field, from the start of the code */
  uint16_t link;    /* the link whose hole it is */
  uint16_t hole;    /* hole id in that link's stencil set, JIT_HOLE_TEXT or JIT_HOLE_DATA */
  uint16_t kind;    /* jit_hole_kind_t: the field's width and form */
  int16_t to_link;  /* the link whose entry the value is (a chained next, a call), or -1 */
  uint64_t value;   /* the hole's value S, before the addend (and, PC-relative, - P) */
} jit_patch_t;

typedef struct jit_chain_map {
  jit_patch_t *patches;            /* the caller's array of cap rows (may be NULL) */
  size_t cap;
  size_t n;                        /* fields patched; rows past cap are counted, not stored */
  uint32_t entry[JIT_CHAIN_MAX];   /* each link's entry, from the start of the code */
  size_t text_end;                 /* where the texts end and the data parts begin */
  size_t size;                     /* bytes the code spans */
} jit_chain_map_t;

/* Fills *map for the code jit_emit_chain writes from `links` to run at
 * addr, without writing anything: the same layout and the same values,
 * so a map made after emitting describes the code exactly. Returns JIT_OK,
 * or the error jit_emit_chain would return. Thread-safe. */
JIT_API int jit_chain_map(const jit_link_t *links, size_t n, uint64_t addr, jit_chain_map_t *map);

/* jit_emit_chain that also fills *map (as jit_chain_map would) in the same
 * pass, for callers that need both the code and where its fields are. */
JIT_API int jit_emit_chain_mapped(void *dst, uint64_t addr, size_t cap, const jit_link_t *links,
                                  size_t n, size_t *entry, size_t *used, jit_emit_error_t *err,
                                  jit_chain_map_t *map);

/* Writes a one-line message for the error `rc` of jit_emit* (naming the
 * stencil, the hole, its kind and the value) into buf; returns buf. */
JIT_API char *jit_emit_error_format(char *buf, size_t size, int rc, const jit_emit_error_t *err);

/* --- Code memory --------------------------------------------------------- */

/* Code memory: pages never writable and executable at once. Each chunk is a
 * memfd mapped twice, read-write for the writer and read-execute for
 * callers, the RX view placed within +-2 GiB of the program text (the
 * loaded object containing libjit) so rel32 calls from stencils to C
 * functions there reach. Chunks are mapped in batches (one mmap pair per
 * chunk, many functions per chunk).
 *
 * Threads: jit_code_alloc, jit_code_free, jit_code_retire*,
 * jit_codemem_stats may be called from any thread at once (a mutex, taken
 * only on these control paths). Calling code is the data path and takes no
 * lock: readers call code inside a read-side critical section of a liburcu
 * flavour given at creation (or, for QSBR, between quiescent states), and
 * code reachable by readers is released only with jit_code_retire or
 * jit_code_retire_sync, which free it after a grace period of that flavour.
 * jit_codemem_destroy must be called once, when no code can run any more. */
typedef struct jit_codemem jit_codemem_t;
typedef struct jit_code jit_code_t;
struct rcu_flavor_struct;

#define JIT_CODEMEM_FLAVORS_MAX 4

typedef struct jit_codemem_options {
  size_t chunk_size;  /* bytes mapped at a time; 0: JIT_CODEMEM_CHUNK (jit-internal.h) */
  size_t reserve;     /* bytes to map at creation, so that the first syntheses do not
                         pay for mapping (0: map the first chunk on first use) */
  /* The liburcu flavours readers of this code use (&urcu_qsbr_flavor,
   * &urcu_bp_flavor, ...), the first NULL ending the list; none given:
   * urcu_memb_flavor (liburcu's default rcu_read_lock). Retirement waits
   * for a grace period of every flavour listed. */
  const struct rcu_flavor_struct *flavors[JIT_CODEMEM_FLAVORS_MAX];
} jit_codemem_options_t;

typedef struct jit_codemem_stats {
  size_t chunks;      /* chunks mapped */
  size_t mapped;      /* bytes mapped (each view) */
  size_t live;        /* allocations not yet freed (retiring ones included) */
  size_t live_bytes;  /* granule-rounded bytes of those */
  size_t retiring;    /* retired, waiting for their grace period */
  size_t freed;       /* allocations freed since creation */
} jit_codemem_stats_t;

/* Create code memory (opts may be NULL). Maps no chunk yet unless
 * opts->reserve asks for one. Chunks are mapped with their pages populated. */
JIT_API int jit_codemem_create(const jit_codemem_options_t *opts, jit_codemem_t **out);
/* Waits until every retired piece of code has been freed (their grace
 * periods elapsed), then unmaps everything; code still allocated is freed
 * with it. Never call it from a call_rcu callback or a read-side section
 * (nor, for QSBR, while online). */
JIT_API void jit_codemem_destroy(jit_codemem_t *cm);
JIT_API void jit_codemem_stats(jit_codemem_t *cm, jit_codemem_stats_t *st);

/* Allocate `size` bytes of code (aligned to 64). Write through
 * jit_code_rw(), then jit_code_commit(), then publish jit_code_rx() to
 * readers (with a release store: rcu_assign_pointer or
 * atomic_store_explicit(..., memory_order_release)). Publish the RX
 * address, not the jit_code_t: the handle belongs to the writer and is
 * freed with the code. */
JIT_API int jit_code_alloc(jit_codemem_t *cm, size_t size, jit_code_t **out);
JIT_API void *jit_code_rw(const jit_code_t *c);
JIT_API void *jit_code_rx(const jit_code_t *c);
JIT_API size_t jit_code_size(const jit_code_t *c);
/* Makes the written bytes visible to instruction fetch (a no-op beyond a
 * compiler barrier on x86-64; the instruction-cache flush elsewhere). */
JIT_API void jit_code_commit(jit_code_t *c);

/* Free code that no reader can be running or about to run (never
 * published, or known quiescent). */
JIT_API void jit_code_free(jit_code_t *c);
/* Free after a grace period, without waiting: call_rcu of the first
 * flavour (whose callback then waits for the others' grace periods). The
 * caller must be a thread registered with the first flavour (online, for
 * QSBR) and must have unpublished the code first. */
JIT_API void jit_code_retire(jit_code_t *c);
/* Free after a grace period, waiting for it (synchronize_rcu of every
 * flavour). Any thread, but not inside a read-side section (nor, for QSBR,
 * while online: go offline around the call). */
JIT_API void jit_code_retire_sync(jit_code_t *c);

/* A function pointer to the code at `rx` (entry of emitted code). */
typedef void (*jit_fn_t)(void);
JIT_API jit_fn_t jit_fn(const void *rx);

/* --- Tiers --------------------------------------------------------------- */

/* A template as every tier sees it: its stencil (tier 1), and the forms the
 * optimising tiers will compile (LLVM bitcode of the same template file,
 * with the hole values as constants); NULL where a form is missing. */
typedef struct jit_template {
  const char *name;
  const jit_stencil_t *stencil;
  const void *bitcode;
  size_t bitcode_size;
} jit_template_t;

/* One part of the code a tier compiles: a template, its hole values
 * (indexed by hole id), the hole standing for the next part's entry (or
 * -1), and holes standing for other parts' entries, as in jit_link_t. */
typedef struct jit_part {
  const jit_template_t *tmpl;
  const uint64_t *values;
  int next_hole;
  unsigned ncalls;
  struct {
    uint16_t hole, part;
  } calls[JIT_LINK_CALLS];
} jit_part_t;

/* A code generator. compile() turns a chain of parts into code in `cm`:
 * *out is allocated code, its entry at jit_code_rx(*out) + *entry, not yet
 * published. release() frees code this tier compiled: after a grace period
 * (jit_code_retire_sync), or at once when `now` (nothing can run it).
 * `name` is what `qua show` prints; `ctx` is the tier's own (an optimising
 * tier's background compiler). compile and release may be called from any
 * thread at once; compile fails with JIT_ENOTIER when the tier lacks a form
 * of some template, and the caller then keeps (or falls back to) the
 * generic code. */
typedef struct jit_tier jit_tier_t;
struct jit_tier {
  const char *name;
  int (*compile)(const jit_tier_t *tier, jit_codemem_t *cm, const jit_part_t *parts, size_t n,
                 jit_code_t **out, size_t *entry, jit_emit_error_t *err);
  void (*release)(const jit_tier_t *tier, jit_code_t *code, int now);
  void *ctx;
};

/* Tier 1: copy-and-patch stencils (microseconds). Handles every template
 * with a stencil; JIT_ENOTIER otherwise. */
JIT_API extern const jit_tier_t jit_tier_stencil;

/* Compile with `tier`, timing it: *ns gets the wall time in nanoseconds
 * (for the per-callentry synthesis time quajects record). */
JIT_API int jit_compile(const jit_tier_t *tier, jit_codemem_t *cm, const jit_part_t *parts,
                        size_t n, jit_code_t **out, size_t *entry, uint64_t *ns,
                        jit_emit_error_t *err);

/* The map (jit_chain_map) of the code the stencil tier compiled from
 * `parts` at addr (jit_code_rx of its code). JIT_ENOTIER when a part has
 * no stencil. */
JIT_API int jit_parts_map(const jit_part_t *parts, size_t n, uint64_t addr, jit_chain_map_t *map);

#ifdef __cplusplus
}
#endif

#endif /* JIT_H */
