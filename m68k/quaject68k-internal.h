/* quaject68k-internal.h -- private declarations shared by quaject68k.c and quaject68k-drive.c. */
#ifndef QUA_M68K_QUAJECT68K_INTERNAL_H
#define QUA_M68K_QUAJECT68K_INTERNAL_H

#include <stdbool.h>

#include "jit.h"
#include "machine-internal.h"
#include "quaject68k.h"

#define ARENA_STUBS 0x0000u
#define ARENA_RET 0x0020u
#define ARENA_STACKS 0x0100u
#define ARENA_STACK_SIZE 0x0400u
#define ARENA_HEAP 0x1000u
#define GRANULE 16u
#define NGRANULES ((M68K_QJ_ARENA_SIZE - ARENA_HEAP) / GRANULE)
#define QJ_MAX 1024u     /* live quajects per machine */
#define CALL_LIMIT 100000u
#define STUB_SIZE 16u
#define MAX_ENTRIES 2
#define NCALLBACKS 4
#define M68K__QJ_FOLD_PROGRAMS 4 /* folded programs per quaject */

/* A callentry: template base names (after "qk_") of its multi-caller form,
 * its single-caller form (NULL: none) and its seeded bug (NULL: the
 * broken variant runs `mp` here); `edge` the callback whose listener
 * selects the tracked form (the name with "_t"), or -1. */
typedef struct entry_spec {
  const char *name;
  const char *mp, *sp, *broken;
  int edge;
} entry_spec_t;

typedef enum kind { K_COUNTER, K_STACK, K_QUEUE, K_LIST } kind_t;

typedef struct type_spec {
  const char *name;
  kind_t kind;
  const char *variants[4]; /* [0] the default; NULL ends */
  entry_spec_t entries[MAX_ENTRIES];
  unsigned callbacks;      /* bit mask of CB_* */
} type_spec_t;


struct m68k__qj_arena {
  m68k_machine_t *m;
  uint32_t base;
  uint8_t used[NGRANULES / 8];
  m68k_qj_t *live[QJ_MAX];
  /* m68k_qj_call: set by the return stub's trap. */
  bool returned[M68K_MACHINE_MAX_CPUS];
  uint64_t ret_insns[M68K_MACHINE_MAX_CPUS], ret_cycles[M68K_MACHINE_MAX_CPUS];
};

struct m68k_qj {
  m68k__qj_arena_t *a;
  unsigned id;
  const type_spec_t *type;
  unsigned variant;
  uint32_t cap;
  uint32_t block, block_len; /* the arena block (note 2) */
  uint32_t state, stubs;
  struct {
    uint32_t area, room; /* the entry's code area */
    uint32_t addr, len;  /* its code now */
    const char *tmpl;    /* the stencil's name */
    unsigned attached;
  } e[MAX_ENTRIES];
  struct {
    uint32_t addr, len;
  } fold[M68K__QJ_FOLD_PROGRAMS]; /* m68k_qj_fold_program's, freed on destroy */
  struct {
    m68k_qj_callback_fn fn;
    void *ctx;
    uint32_t code;
  } cb[NCALLBACKS];
};

/* The machine's arena, made on first use (quaject68k.c note 1). */
int m68k__qj_arena_get(m68k_machine_t *m, m68k__qj_arena_t **out, char *err, size_t errlen);
/* A block of the arena (16-byte aligned, zeroed), 0 when it is full. */
uint32_t m68k__qj_alloc(m68k__qj_arena_t *a, uint32_t bytes);
void m68k__qj_release(m68k__qj_arena_t *a, uint32_t addr, uint32_t bytes);
/* The arena's status stub returning OK: an entry of exactly three
 * instructions (moveq, move.l, rts). */
#define M68K__QJ_NULL_ENTRY(a) ((a)->base + ARENA_STUBS)
/* m68k_qj_call of the code at `addr`. */
int m68k__qj_call_addr(m68k__qj_arena_t *a, unsigned cpu, uint32_t addr, uint32_t arg,
                       uint32_t *ret, uint64_t *insns, uint64_t *cycles);
/* The folded form (quaject68k-templates.c note F1) of the code entry i
 * runs now, and the instance's values of the qf stencils' holes (qk_next
 * and qk_arg 0). */
const jit_stencil_t *m68k__qj_fold_entry(const m68k_qj_t *q, unsigned i);
void m68k__qj_fold_values(const m68k_qj_t *q, uint64_t *v);
/* Appends to links[0..n) (room for cap) the cold stubs (quaject68k-templates.c
 * note F5) that operation links[op] branches to, each going on to link
 * op + 1, and routes the operation's branches to them; returns the new
 * count, or 0 with nothing changed when links[] or the operation's calls
 * (JIT_LINK_CALLS) have no room for them. The
 * caller places them where nothing falls through into them and within a
 * byte branch's reach (BEQ.S) of the operation. */
size_t m68k__qj_fold_colds(jit_link_t *links, size_t n, size_t cap, size_t op);
/* Writes a sentence to err (errlen bytes; nothing when err is NULL). */
void m68k__qj_seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* QUA_M68K_QUAJECT68K_INTERNAL_H */
