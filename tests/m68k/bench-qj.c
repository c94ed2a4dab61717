/* bench-qj.c -- the m68k quajects' operations against the thesis's hand-written 68030 code.
 *
 * The anchor is Massalin's thesis, Table 5.1: the times of its 68030 code
 * at 25 MHz, lock-free without retry for the CAS and CAS2 structures. For
 * each operation the benchmark runs the synthesised code ROUNDS times on
 * an uncontended quaject, in both of its forms, and prints the medians:
 *   called: the callentry called from the host (m68k_qj_call), from its
 *   first instruction through its RTS, the state's address a hole;
 *   folded: the same template's folded form (quaject68k-templates.c notes
 *   F1-F6) inline in a caller that holds the state's address in a2 and the
 *   ring's base and bound in d6 and d5, the operation falling through into
 *   the caller's next instruction (m68k_qj_call_folded: the operation's
 *   own instructions, up to a NOP that keeps its last write's tail from
 *   hiding under what follows, as in the loops).
 *   BENCH m68k_<op>_insns, _cycles          called: instructions, estimated
 *                                           MC68030 cycles (the model below)
 *   BENCH m68k_<op>_folded_insns, _folded_cycles   the same, folded
 *   BENCH m68k_<op>_thesis_cycles           the thesis's us * 25 MHz
 *   BENCH m68k_<op>_vs_thesis <x> x         thesis cycles / folded cycles
 *                                           (>= 1: no slower than the thesis)
 *   BENCH m68k_<op>_called_vs_thesis <x> x  thesis cycles / called cycles
 * Like for like: the queue's put and get are its CAS2 (MP-MC) code against
 * the thesis's lock-free queue column; the SP-SC code, which runs without
 * synchronisation, is compared with the table's unsynchronised column
 * (queue insert 2.0 us, delete 2.1 us) as m68k_queue_put_spsc and _get_spsc.
 * Estimates are deterministic: every round gives the same figure, so the
 * medians carry no noise.
 *
 * Which form is like for like with Table 5.1: the folded one. The thesis
 * does not say how the table's times were taken, but its own first column
 * rules out a call: the unsynchronised counter increment is 0.3 us, 7.5
 * cycles, and by the manual's tables an increment of a word in memory
 * (ADDQ #1,(An): 3 for the operand and 3 for the operation) is 6 cycles
 * while RTS alone is 9. A timed call could not come under 15; the table's
 * figures are of the operations as inline code sequences, which is how
 * Synthesis ran them (its callers' code is synthesised with such short
 * callentries copied in: collapsing layers). So vs_thesis is the folded
 * form's; the called form's ratio is kept beside it as called_vs_thesis.
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
 * Figures (this build; cycles and insns called, then folded; the ratio
 * vs_thesis, folded; called_vs_thesis in brackets):
 *   counter_inc     47  9   30  6   1.083 (0.691)
 *   list_insert     45  8   28  5   1.250 (0.778)
 *   list_delete     63 10   48  8   1.094 (0.833)
 *   queue_put       95 19   72 16   1.146 (0.868)
 *   queue_get      101 21   74 18   1.115 (0.817)
 *   stack_push      70 11   49  8   1.020 (0.714)
 *   stack_pop       69 11   48  8   1.042 (0.725)
 *   queue_put_spsc  63 17   39 13   1.282 (0.794)  (unsynchronised)
 *   queue_get_spsc  64 15   42 12   1.250 (0.820)  (unsynchronised)
 * quamachine quaject --folded measures the same folded figures inside its
 * producer and consumer loops (a test checks they agree).
 *
 * Why a called entry cannot reach the thesis's figures: in the manual's
 * tables only a memory write leaves a tail (MOVE Rn,(An) 1, -(An) 2; ADD
 * Dn,EA 1) and an effective address's own tail is taken inside its
 * instruction by the operation's head; these entries are loads, compares,
 * register moves, one CAS or CAS2 and branches, nearly all with tail 0, so
 * consecutive instructions barely overlap, and the entry pays for its
 * own linkage. The counter must load the state's address or use it
 * absolute (6), read the count (5 or 6), CAS it back (15 via (An), 19
 * absolute), branch on the result (4) and return (9): the CAS, BNE and
 * RTS alone are 28 and the whole at least 46 against 32.5; gcc's code is
 * 47. The CAS2 structures need the state's address in a register (6, CAS2
 * takes no absolute address), the state (5), the second word (5 or 6, and
 * 2 to put its address in a register), the full or empty test (4 to 10),
 * CAS2 (24), BNE (4) and RTS (9): at least 59 for the list delete and 68
 * for the stack push.
 *
 * What the folded forms factor out (the manual's figures; the code is
 * gcc's from the same C as the called entries, quaject68k-templates.c
 * notes F4-F6). The stack push was 59 against 50: the full test compared
 * sp with a 32-bit immediate (CMPI.L, 6; now CMP.L with the base held in
 * d6, 2), the full path in line put a taken BNE (6) on the success path
 * (now a BEQ.S to the out-of-line cold stub, not taken, 4), gcc copied a2
 * before the CAS2 (2) and the success path cleared the status (CLR.L, 2;
 * now the caller keeps d0 at 0, the thesis's callers learning of full and
 * empty through the callbacks alone): 59 - 4 - 2 - 2 - 2 = 49. The pop
 * likewise, 58 to 48 (the bound, qk_top, in d5). The queue's put and get
 * lose the same four, and the index wrap's compare with an immediate and
 * BRA around the reset to 0 (next() is now ADDQ, CMP with the bound in
 * d5 and a BCC over the reset), and the slot's ADDA.L #slots (now the base
 * in d6): put 90 to 72; the get also widens the tail index with MOVEQ and
 * MOVE.W (4) instead of a copy and ANDI.L #$ffff (8): 96 to 74. The SP-SC
 * get reads and writes the tail half at 2(a2) where gcc went through a copy
 * of a2, and zero-extends it as the get does: 63 to 42. So
 * the CAS2 itself was never the difference (24 here, 26 in the thesis):
 * the invariants held in registers, the rare paths out of the hot path's
 * way and the status word were, which the thesis's hand-written code
 * must also have done without.
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
    printf("BENCH m68k_%s_folded_insns %.0f insns\n", ops[i].name, finsns);
    printf("BENCH m68k_%s_folded_cycles %.0f cycles\n", ops[i].name, fcycles);
    printf("BENCH m68k_%s_vs_thesis %.3f x\n", ops[i].name, thesis / fcycles);
    printf("BENCH m68k_%s_called_vs_thesis %.3f x\n", ops[i].name, thesis / cycles);
  }
  return status;
}
