/* bench-qj.c -- the m68k quajects' operations against the thesis's hand-written 68030 code.
 *
 * The anchor is Massalin's thesis, Table 5.1: the lock-free, no-retry
 * times of its 68030 code at 25 MHz. For each operation the benchmark
 * calls the synthesised callentry from the host (m68k_qj_call) ROUNDS
 * times on an uncontended quaject and prints the medians:
 *   BENCH m68k_<op>_insns <n> insns      instructions, entry through RTS
 *   BENCH m68k_<op>_cycles <n> cycles    estimated MC68030 cycles (the
 *                                        cache-case table, m68k.h)
 *   BENCH m68k_<op>_vs_thesis <x> x      thesis us * 25 MHz / our cycles
 *                                        (>= 1: no slower than the thesis)
 * The queue's figures are of its CAS2 (MP-MC) code, the thesis's lock-free
 * queue; the SP-SC code's follow as m68k_queue_put_spsc and _get_spsc
 * (no thesis anchor: its figure for unsynchronised queues is another
 * column). Estimates are deterministic: every round gives the same
 * figure, so the medians carry no noise.
 *
 * What the ratio compares: the thesis's times are of the operations' code
 * inline (its unsynchronised counter increment, 0.3 us = 7.5 cycles, is a
 * single instruction), ours of a whole callentry with gcc's calling
 * convention: fetching the argument from the stack, saving the registers
 * CAS2 needs beyond d0-d1 and the RTS are in our figures (about 17 cycles
 * for the argument and the RTS alone). */
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
  double thesis_us;  /* Table 5.1, lock-free no retry; 0: none */
} op_t;

static const op_t ops[] = {
    {"counter_inc", "counter", NULL, "add", 1.3},
    {"list_insert", "list", NULL, "insert", 1.4},
    {"list_delete", "list", NULL, "delete", 2.1},
    {"queue_put", "queue", "mpmc", "put", 3.3},
    {"queue_get", "queue", "mpmc", "get", 3.3},
    {"stack_push", "stack", NULL, "push", 2.0},
    {"stack_pop", "stack", NULL, "pop", 2.0},
    {"queue_put_spsc", "queue", "spsc", "put", 0},
    {"queue_get_spsc", "queue", "spsc", "get", 0},
};

/* Runs one op ROUNDS times; fills the medians. Removal ops are preceded
 * by an insertion (not measured) so that each finds an item. */
static int measure(const op_t *op, double *insns, double *cycles) {
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
    if (m68k_qj_call(q, 0, op->entry, removal ? 0 : item, &v, &ni, &nc) != M68K_QJ_OK) {
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
    double insns, cycles;
    if (measure(&ops[i], &insns, &cycles) != 0) {
      status = 1;
      continue;
    }
    printf("BENCH m68k_%s_insns %.0f insns\n", ops[i].name, insns);
    printf("BENCH m68k_%s_cycles %.0f cycles\n", ops[i].name, cycles);
    if (ops[i].thesis_us > 0)
      printf("BENCH m68k_%s_vs_thesis %.3f x\n", ops[i].name, ops[i].thesis_us * MHZ / cycles);
  }
  return status;
}
