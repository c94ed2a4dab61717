/* bench-qj.c -- the m68k quajects' operations against the thesis's hand-written 68030 code.
 *
 * The anchor is Massalin's thesis, Table 5.1: the times of its 68030 code
 * at 25 MHz, lock-free without retry for the CAS and CAS2 structures. For
 * each operation the benchmark calls the synthesised callentry from the
 * host (m68k_qj_call) ROUNDS times on an uncontended quaject and prints
 * the medians:
 *   BENCH m68k_<op>_insns <n> insns      instructions, entry through RTS
 *   BENCH m68k_<op>_cycles <n> cycles    estimated MC68030 cycles (the
 *                                        manual's timing model, below)
 *   BENCH m68k_<op>_thesis_cycles <n>    the thesis's us * 25 MHz
 *   BENCH m68k_<op>_vs_thesis <x> x      thesis cycles / our cycles
 *                                        (>= 1: no slower than the thesis)
 * Like for like: the queue's put and get are its CAS2 (MP-MC) code against
 * the thesis's lock-free queue column; the SP-SC code, which runs without
 * synchronisation, is compared with the table's unsynchronised column
 * (queue insert 2.0 us, delete 2.1 us) as m68k_queue_put_spsc and _get_spsc.
 * Estimates are deterministic: every round gives the same figure, so the
 * medians carry no noise.
 *
 * The estimate is the MC68030 User's Manual's own model (section 11): each
 * instruction's cache-case time from the tables of 11.6 (every prefetch
 * hits the instruction cache, two-clock bus cycles, the data cache off),
 * its effective address's component composed with its operation, and each
 * head overlapping the previous instruction's tail (Equations 11-1 and
 * 11-2; m68k/m68k-cycles.tab, m68k/m68k-timing.h; the manual's worked
 * examples are a test). CAS and CAS2 are the manual's figures too: CAS 13
 * after its calculate-immediate-EA component (2 for (An), 6 for an
 * absolute address), CAS2 24 (Massalin's thesis quotes 13 and 26).
 *
 * Figures (this build; cycles, insns, ratio):
 *   counter_inc  47  9  0.69    list_insert  45  8  0.78
 *   list_delete  63 10  0.83    queue_put    95 19  0.87
 *   queue_get   101 21  0.82    stack_push   70 11  0.71
 *   stack_pop    69 11  0.72    queue_put_spsc 63 17 0.79 (unsync.)
 *   queue_get_spsc 64 15 0.82 (unsync.)
 * Before the overlap model (each instruction's cache case added up, CAS 13
 * and CAS2 26 from the thesis): 45, 44, 65, 97, 103, 72, 71, 64 and 64,
 * ratios 0.69 to 0.85. The manual's CAS costs 2 more than that (its EA
 * component), its CAS2 2 less; the overlap itself saves one cycle in the
 * list insert (the node's link store, tail 1, under CAS's head) and one in
 * the SP-SC put (the index store under RTS's head), and nothing elsewhere.
 *
 * Why the overlap gives so little, and no ratio reaches 1: in the manual's
 * tables only a memory write leaves a tail (MOVE Rn,(An) 1, -(An) 2; ADD
 * Dn,EA 1) and an effective address's own tail is taken inside its
 * instruction by the operation's head. These entries are loads, compares,
 * register moves, one CAS or CAS2 and branches, nearly all with tail 0, so
 * consecutive instructions barely overlap. Ours are of a whole callentry,
 * entered by JSR with the state's address a hole: the shortest code each
 * algorithm needs exceeds some anchors even so. The counter must load the
 * state's address or use it absolute (6), read the count (5 or 6), CAS it
 * back (15 via (An), 19 absolute), branch on the result (4) and return
 * (9): the CAS, BNE and RTS alone are 28 and the whole at least 46
 * against 32.5; gcc's code is 47. The CAS2 structures need the state's
 * address in a register (6, CAS2 takes no absolute address), the state (5),
 * the second word (5 or 6, and 2 to put its address in a register), the
 * full or empty test (4 to 10), CAS2 (24), BNE (4) and RTS (9): at least
 * 59 for the list delete (63 with the status and the zero it stores; 52.5
 * in the thesis) and 68 for the stack push (70 with the status; 50 in the
 * thesis). The queue's index arithmetic (wrap,
 * full or empty test, the slot's address, the new index word) puts its
 * floor near 88 against 82.5; gcc's code is 95 and 101. The thesis's
 * times are of its hand-written code measured on the machine; its callers
 * keep the quaject's address in a register, which our entries, reached
 * from the host with only the argument in d1, cannot assume.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qbench.h"
#include "quaject68k.h"

#define ROUNDS 101
#define MHZ 25.0

typedef struct op {
  const char *name;  /* BENCH name */
  const char *type, *variant, *entry;
  double thesis_us;  /* Table 5.1: lock-free no retry (CAS, CAS2 code) or
                      * unsynchronised (SP-SC code) */
} op_t;

static const op_t ops[] = {
    {"counter_inc", "counter", NULL, "add", 1.3},
    {"list_insert", "list", NULL, "insert", 1.4},
    {"list_delete", "list", NULL, "delete", 2.1},
    {"queue_put", "queue", "mpmc", "put", 3.3},
    {"queue_get", "queue", "mpmc", "get", 3.3},
    {"stack_push", "stack", NULL, "push", 2.0},
    {"stack_pop", "stack", NULL, "pop", 2.0},
    {"queue_put_spsc", "queue", "spsc", "put", 2.0},
    {"queue_get_spsc", "queue", "spsc", "get", 2.1},
};

/* Runs one op ROUNDS times; fills the medians. Removal ops are preceded
 * by an insertion (not measured) so that each finds an item. */
static int measure(const op_t *op, bool folded, double *insns, double *cycles) {
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68030, .ncpus = 2, .ram_size = 8u << 20};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  m68k_qj_t *q = NULL;
  char err[256];
  int rc = -1;
  if (m == NULL || m68k_qj_create(m, op->type, op->variant,
                                  strcmp(op->type, "counter") == 0 ? 0 : ROUNDS, &q, err,
                                  sizeof err) != M68K_OK) {
    fprintf(stderr, "bench-qj: %s: cannot create the %s\n", op->name, op->type);
    goto out;
  }
  const char *adder = m68k_qj_entry_name(q, 0);
  bool removal = strcmp(op->entry, adder) != 0;
  double in[ROUNDS], cy[ROUNDS];
  for (uint32_t i = 0; i < ROUNDS; i++) {
    uint32_t item = strcmp(op->type, "list") == 0 ? m68k_qj_node(q, i)
                    : strcmp(op->type, "counter") == 0 ? 1
                                                       : i + 1;
    uint64_t ni, nc;
    uint32_t v;
    if (removal && m68k_qj_call(q, 0, adder, item, &v, NULL, NULL) != M68K_QJ_OK)
      goto out;
    int st = folded ? m68k_qj_call_folded(q, 0, op->entry, removal ? 0 : item, &v, &ni, &nc)
                    : m68k_qj_call(q, 0, op->entry, removal ? 0 : item, &v, &ni, &nc);
    if (st != M68K_QJ_OK) {
      fprintf(stderr, "bench-qj: %s: the call failed\n", op->name);
      goto out;
    }
    in[i] = (double)ni;
    cy[i] = (double)nc;
  }
  *insns = qbench_median(in, ROUNDS);
  *cycles = qbench_median(cy, ROUNDS);
  rc = 0;
out:
  m68k_machine_destroy(m);
  return rc;
}

int main(void) {
  int status = 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    double insns, cycles, finsns, fcycles;
    if (measure(&ops[i], false, &insns, &cycles) != 0 ||
        measure(&ops[i], true, &finsns, &fcycles) != 0) {
      status = 1;
      continue;
    }
    double thesis = ops[i].thesis_us * MHZ;
    printf("BENCH m68k_%s_insns %.0f insns\n", ops[i].name, insns);
    printf("BENCH m68k_%s_cycles %.0f cycles\n", ops[i].name, cycles);
    printf("BENCH m68k_%s_thesis_cycles %.1f cycles\n", ops[i].name, thesis);
    printf("BENCH m68k_%s_vs_thesis %.3f x\n", ops[i].name, thesis / cycles);
    printf("BENCH m68k_%s_folded_insns %.0f insns\n", ops[i].name, finsns);
    printf("BENCH m68k_%s_folded_cycles %.0f cycles\n", ops[i].name, fcycles);
    printf("BENCH m68k_%s_folded_vs_thesis %.3f x\n", ops[i].name, thesis / fcycles);
  }
  return status;
}
