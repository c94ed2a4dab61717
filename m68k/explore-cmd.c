/* explore-cmd.c -- `quamachine explore`: the thesis's CAS and CAS2 quajects under every bounded
 * interleaving of two 68k drivers, each history checked for linearizability.
 *
 * Design notes
 *
 * 1. The machine of one run: a two-CPU 68030 with M68K_QJ_RAM_MIN bytes,
 *    one quaject synthesised in its arena by the backend (quaject68k.h),
 *    and below the arena, ours: the driver code, each CPU's operation
 *    table and log. Both CPUs run the same driver; registers tell them
 *    apart (A2 the table, A3 the log, D7 the count). Every run builds
 *    this afresh (explore.h says why re-execution).
 * 2. The driver (m68k__explore_driver, in explore.c), hand-assembled so
 *    its instruction count is known and it needs no cross compiler (each
 *    word's instruction in a comment; the suite disassembles it to check),
 *    10 instructions per operation besides the call. Per operation: read CLOCK (the
 *    invocation time), load the argument into d1, jsr the synthesised
 *    entry, read CLOCK again (the response time), store d0 (status) and d1
 *    (value). CLOCK counts the instructions of both CPUs, so the two reads
 *    of one operation bracket exactly the instructions of its call, and
 *    A.resp < B.inv means A returned before B was called.
 * 3. Workloads, chosen so that each seeded bug has a schedule with few
 *    preemptions that shows it in the history (values are distinct, so
 *    a lost or duplicated item is visible):
 *    - counter: each CPU adds, then reads. Two adds racing lose one.
 *    - stack: CPU 0 pushes then pops, CPU 1 pops then pushes. CPU 0's pop
 *      delayed between reading the top and its CAS while CPU 1 pops that
 *      item and pushes another into the same slot: the ABA of a CAS on
 *      sp alone (one preemption).
 *    - queue: each CPU puts, then gets. A put delayed before its CAS2
 *      while the other CPU's put fills the slot: the put that does not
 *      re-read its slot overwrites it (one preemption).
 *    - list: the list starts as A, B, C (A first). CPU 0 deletes; CPU 1
 *      deletes twice and inserts A again. CPU 0's delete delayed after
 *      reading A and its successor B: a single CAS on head then succeeds
 *      (head is A again) and puts the deleted B back. That needs three
 *      operations on CPU 1, so the list's default is --ops 3.
 * 4. A history is the N operations of each CPU (plus, for the list, the
 *    three inserts made before the drivers start, which precede
 *    everything). A run is a violation when it is not linearizable, when
 *    the machine stopped (a fault in the code under test) or when a status
 *    is none of OK, FULL, EMPTY.
 * 5. --folded: each CPU runs instead a program of the backend's
 *    (m68k_qj_fold_program) that makes the same calls with the entries'
 *    folded forms inline (quaject68k-templates.c notes F1-F6): the state's
 *    address, the ring's base and bound loaded into a2, d6 and d5 once,
 *    then per call the same log record as the driver's (invocation time,
 *    the operation, response time, d0, d1), straight-line, no JSR or RTS.
 *    The history and its check are the same.
 */
#include "explore.h"
#include "quaject68k.h"
#include "quamachine-tool.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_FOUND 1
#define EXIT_USAGE QM_EXIT_USAGE
#define EXIT_ERROR 125

/* ---- The driver (note 2) ------------------------------------------------- */

#define DRIVER_ADDR 0x00001000u
#define OPS_ADDR(cpu) (0x00002000u + (cpu) * 0x1000u)  /* {entry, arg} per op */
#define LOG_ADDR(cpu) (0x00004000u + (cpu) * 0x1000u)  /* {inv, resp, d0, d1} */
#define LOG_BYTES 16u
#define CLOCK_REG (M68K_DEV_BASE + M68K_DEV_CLOCK)
#define MAX_OPS 30 /* per CPU: 2 * 30 + 3 prefilled fit M68K_LIN_MAX_OPS */
#define PREFILL_LIST 3u
#define CAPACITY 8u

/* ---- The algorithms (note 3) ----------------------------------------------- */

typedef struct algo {
  const char *name;
  const char *type;
  m68k_lin_spec_t spec;
  const char *ins, *rem;  /* entries: add/read, push/pop, put/get, insert/delete */
  const char *pattern[2]; /* per CPU, cycled: I the first entry, R the second */
  unsigned default_ops;
} algo_t;

static const algo_t algos[] = {
    {"counter-cas", "counter", M68K_LIN_COUNTER, "add", "read", {"IR", "IR"}, 2},
    {"stack-cas2", "stack", M68K_LIN_STACK, "push", "pop", {"IR", "RI"}, 2},
    {"queue-cas2", "queue", M68K_LIN_QUEUE, "put", "get", {"IR", "IR"}, 2},
    {"list-cas2", "list", M68K_LIN_LIST, "insert", "delete", {"R", "RRI"}, 3},
};

static const algo_t *find_algo(const char *name) {
  for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++)
    if (strcmp(algos[i].name, name) == 0)
      return &algos[i];
  return NULL;
}

/* One exploration's target. */
typedef struct world {
  const algo_t *algo;
  const char *variant; /* NULL: the default */
  unsigned ops;        /* per CPU */
  bool folded;         /* the entries' folded forms inline (note 5) */
  m68k_qj_t *q;        /* of the machine being run */
  char err[256];
} world_t;

static bool is_insert(const world_t *w, unsigned cpu, unsigned i) {
  const char *p = w->algo->pattern[cpu];
  return p[i % strlen(p)] == 'I';
}

/* The argument of op i of cpu: distinct values; the list's node A. */
static uint32_t op_arg(const world_t *w, unsigned cpu, unsigned i) {
  if (w->algo->spec == M68K_LIN_LIST)
    return is_insert(w, cpu, i) ? m68k_qj_node(w->q, 0) : 0;
  return is_insert(w, cpu, i) ? 100u * (cpu + 1) + i + 1 : 0;
}

static m68k_machine_t *world_build(void *ctx, char *err, size_t errlen) {
  world_t *w = ctx;
  m68k_machine_config_t cfg = {M68K_MODEL_68030, 2, 0, M68K_QJ_RAM_MIN};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  if (m == NULL) {
    snprintf(err, errlen, "cannot create the machine (out of memory)");
    return NULL;
  }
  m68k_machine_start(m, DRIVER_ADDR);
  const algo_t *a = w->algo;
  uint32_t capacity = a->spec == M68K_LIN_COUNTER ? 0 : CAPACITY;
  int rc = m68k_qj_create(m, a->type, w->variant, capacity, &w->q, err, errlen);
  if (rc != M68K_OK)
    goto fail;
  /* Each CPU calls both entries: two callers of each (a queue's "auto"
   * runs its MP-MC code). */
  const char *entry = NULL;
  for (unsigned c = 0; c < 2 && rc == M68K_OK; c++)
    if ((rc = m68k_qj_attach(w->q, entry = a->ins)) == M68K_OK)
      rc = m68k_qj_attach(w->q, entry = a->rem);
  if (rc != M68K_OK) {
    snprintf(err, errlen, "%s %s: cannot attach both CPUs as callers of %s: %s", a->type,
             m68k_qj_variant(w->q), entry, m68k_strerror(rc));
    goto fail;
  }
  if (a->spec == M68K_LIN_LIST) {
    /* Nodes A, B, C hold 1, 2, 3; the list starts A, B, C (note 3). */
    for (uint32_t i = 0; i < PREFILL_LIST; i++)
      m68k_machine_write32(m, m68k_qj_node(w->q, i) + 4, i + 1);
    for (uint32_t i = PREFILL_LIST; i-- > 0;) {
      uint32_t ret;
      rc = m68k_qj_call(w->q, 0, "insert", m68k_qj_node(w->q, i), &ret, NULL, NULL);
      if (rc != M68K_QJ_OK) {
        snprintf(err, errlen, "cannot fill the list: %s", m68k_machine_message(m));
        rc = M68K_EINVAL;
        goto fail;
      }
    }
  }
  size_t nwords;
  const uint16_t *driver = m68k__explore_driver(&nwords);
  uint8_t code[64];
  for (size_t i = 0; i < nwords; i++) {
    code[2 * i] = (uint8_t)(driver[i] >> 8);
    code[2 * i + 1] = (uint8_t)driver[i];
  }
  m68k_machine_load(m, DRIVER_ADDR, code, 2 * nwords);
  uint32_t ins = m68k_qj_entry(w->q, a->ins), rem = m68k_qj_entry(w->q, a->rem);
  uint32_t start[2] = {DRIVER_ADDR, DRIVER_ADDR};
  for (unsigned c = 0; c < 2 && w->folded; c++) {
    m68k_qj_fold_op_t fops[MAX_OPS];
    for (unsigned i = 0; i < w->ops; i++)
      fops[i] = (m68k_qj_fold_op_t){is_insert(w, c, i) ? a->ins : a->rem, op_arg(w, c, i)};
    rc = m68k_qj_fold_program(w->q, fops, w->ops, &start[c], err, errlen);
    if (rc != M68K_OK)
      goto fail;
  }
  for (unsigned c = 0; c < 2; c++) {
    for (unsigned i = 0; i < w->ops; i++) {
      m68k_machine_write32(m, OPS_ADDR(c) + 8 * i, is_insert(w, c, i) ? ins : rem);
      m68k_machine_write32(m, OPS_ADDR(c) + 8 * i + 4, op_arg(w, c, i));
    }
    m68k_cpu_t *cpu = m68k_machine_cpu(m, c);
    m68k_set_reg(cpu, M68K_REG_A0 + 5, OPS_ADDR(c));
    m68k_set_reg(cpu, M68K_REG_A0 + 3, LOG_ADDR(c));
    m68k_set_reg(cpu, M68K_REG_A0 + 4, CLOCK_REG);
    m68k_set_reg(cpu, M68K_REG_D0 + 7, w->ops);
    m68k_set_reg(cpu, M68K_REG_PC, start[c]);
  }
  return m;
fail:
  m68k_qj_destroy(w->q);
  w->q = NULL;
  m68k_machine_destroy(m);
  return NULL;
}

static void world_destroy(void *ctx, m68k_machine_t *m) {
  world_t *w = ctx;
  m68k_qj_destroy(w->q);
  w->q = NULL;
  m68k_machine_destroy(m);
}

/* The list's values are the nodes' value words (note 3). */
static uint32_t node_value(m68k_machine_t *m, uint32_t node) {
  uint32_t v = 0;
  if (node == 0 || !m68k_machine_read32(m, node + 4, &v))
    return 0xFFFFFFFFu;
  return v;
}

/* Reads the history of a finished run (note 4). Returns the number of
 * ops, or 0 with a reason in why. */
static size_t read_history(world_t *w, m68k_machine_t *m, m68k_lin_op_t *ops, char *why,
                           size_t whylen) {
  const algo_t *a = w->algo;
  size_t n = 0;
  if (a->spec == M68K_LIN_LIST)
    for (uint32_t i = PREFILL_LIST; i-- > 0; n++)
      ops[n] = (m68k_lin_op_t){.cpu = M68K_LIN_INIT,
                               .kind = M68K_LIN_INSERT,
                               .arg = i + 1,
                               .ok = true,
                               .inv = n,
                               .resp = n};
  uint64_t shift = n;
  for (unsigned c = 0; c < 2; c++) {
    for (unsigned i = 0; i < w->ops; i++, n++) {
      uint32_t rec[4];
      for (unsigned k = 0; k < 4; k++)
        m68k_machine_read32(m, LOG_ADDR(c) + LOG_BYTES * i + 4 * k, &rec[k]);
      bool ins = is_insert(w, c, i);
      m68k_lin_op_t *op = &ops[n];
      *op = (m68k_lin_op_t){.cpu = c, .inv = rec[0] + shift, .resp = rec[1] + shift};
      if (a->spec == M68K_LIN_COUNTER)
        op->kind = ins ? M68K_LIN_ADD : M68K_LIN_READ;
      else
        op->kind = ins ? M68K_LIN_INSERT : M68K_LIN_REMOVE;
      op->arg = a->spec == M68K_LIN_LIST && ins ? node_value(m, op_arg(w, c, i)) : op_arg(w, c, i);
      uint32_t status = rec[2], value = rec[3];
      op->ok = status == M68K_QJ_OK;
      if (status != M68K_QJ_OK && status != (ins ? M68K_QJ_FULL : M68K_QJ_EMPTY)) {
        snprintf(why, whylen, "cpu%u op %u returned status %" PRIu32 " (not OK, FULL or EMPTY)",
                 c, i, status);
        return 0;
      }
      if (op->kind == M68K_LIN_REMOVE && a->spec == M68K_LIN_LIST)
        op->value = op->ok ? node_value(m, value) : 0;
      else if (op->kind != M68K_LIN_INSERT)
        op->value = value;
    }
  }
  return n;
}

static const char *const spec_names[] = {
    [M68K_LIN_COUNTER] = "a counter",
    [M68K_LIN_STACK] = "a LIFO stack",
    [M68K_LIN_QUEUE] = "a FIFO queue",
    [M68K_LIN_LIST] = "a list, LIFO",
};

static bool world_judge(void *ctx, m68k_machine_t *m, char *why, size_t whylen) {
  world_t *w = ctx;
  m68k_machine_result_t mr;
  if (m68k_machine_stopped(m, &mr) && mr.status != M68K_MACHINE_SCHEDULE_END) {
    snprintf(why, whylen, "the machine stopped: %s", m68k_machine_message(m));
    return true;
  }
  m68k_lin_op_t ops[M68K_LIN_MAX_OPS];
  size_t n = read_history(w, m, ops, why, whylen);
  if (n == 0)
    return true;
  int lin = m68k_lincheck(w->algo->spec, w->algo->spec == M68K_LIN_COUNTER ? 0 : CAPACITY, ops, n,
                          NULL);
  if (lin == 1)
    return false;
  FILE *f = fmemopen(why, whylen, "w");
  if (f != NULL) {
    fprintf(f, lin == 0 ? "history not linearizable as %s:\n" : "cannot check the history: %s\n",
            lin == 0 ? spec_names[w->algo->spec] : m68k_strerror(lin));
    m68k_lin_print(f, w->algo->spec, ops, n);
    fclose(f);
  }
  return true;
}

/* ---- The command ----------------------------------------------------------- */

static const char help_text[] =
    "Usage: quamachine explore ALGO [OPTION]...\n"
    "\n"
    "Runs a quaject of the thesis's chapter 5, synthesised as 68030 code, on both\n"
    "CPUs of a two-CPU machine under every schedule with at most K preemptions,\n"
    "and checks that each run's history is linearizable.\n"
    "\n"
    "ALGO: counter-cas (add, read), stack-cas2 (push, pop), queue-cas2 (put, get),\n"
    "list-cas2 (insert at head, delete at head).\n"
    "\n"
    "The model:\n"
    "  Each CPU runs a small driver that makes N calls of the quaject's entries\n"
    "  (counter: add, read; stack: CPU 0 push, pop and CPU 1 pop, push; queue:\n"
    "  put, get; list, which starts A B C: CPU 0 deletes, CPU 1 deletes twice and\n"
    "  inserts A again), logging each call's invocation and response times (the\n"
    "  machine clock) and its result.\n"
    "  A schedule says which CPU executes each instruction; instructions, CAS\n"
    "  and CAS2 included, are indivisible, so a schedule is one interleaving of\n"
    "  the two instruction streams. A preemption is a switch away from a CPU\n"
    "  that could have gone on (switching because a CPU finished is not one).\n"
    "  K bounds the preemptions of a schedule; every schedule within the bound\n"
    "  is run (CHESS), each on a freshly built machine.\n"
    "  The checker (Wing and Gong's search with Lowe's memo) looks for an order\n"
    "  of the calls that respects real time (a call that returned before another\n"
    "  was made comes first) and gives every call its actual result in the\n"
    "  sequential specification: a counter, a LIFO stack, a FIFO queue, a list\n"
    "  (LIFO). A run with no such order, or that faults, is a violation.\n"
    "\n"
    "Options:\n"
    "  --ops N           calls per CPU (default 2; list-cas2 3; at most 30)\n"
    "  --preemptions K   the bound (default 2)\n"
    "  --variant NAME    the quaject's variant: broken (the seeded bug), or the\n"
    "                    type's own (queue: auto, spsc, mpmc); default the real one\n"
    "  --pct SEED        instead of enumerating, probabilistic concurrency testing\n"
    "                    (Burckhardt et al. 2010): R runs with random priorities\n"
    "                    and D-1 priority change points, seeded (for larger N)\n"
    "  --runs R          PCT runs (default 1000)\n"
    "  --depth D         PCT bug depth (default 3)\n"
    "  --schedule SPEC   run one schedule (slices:CPUxCOUNT,... as printed for a\n"
    "                    violation, or replay:FILE) and check its history\n"
    "  --folded          run the entries' folded forms inline in each CPU's\n"
    "                    code (the state's address held in a2, no JSR or RTS)\n"
    "                    instead of calling them\n"
    "  --max-schedules M\n"
    "                    stop after M schedules (default: none)\n"
    "\n"
    "For the first violation it prints the schedule, as a slices: string that\n"
    "--schedule here replays (the format `smp --schedule` reads), and the\n"
    "history. The last line is \"EXPLORE ALGO schedules=S violations=V\".\n"
    "Exit status: 0 no violation, 1 violations, 2 bad usage, 125 an error.\n";

/* Prints the first violation: the schedule string and what judge said. */
static void print_violation(const char *algo, const world_t *w, const m68k_explore_result_t *res,
                            const char *mode) {
  size_t len = 16 + res->nfirst * 24;
  char *spec = malloc(len);
  if (spec != NULL && m68k_schedule_format(res->first, res->nfirst, spec, len) == M68K_OK) {
    printf("first violation (%s):\n  schedule: %s\n  replay:   quamachine explore %s --ops %u%s%s%s"
           " --schedule %s\n",
           mode, spec, algo, w->ops, w->variant != NULL ? " --variant " : "",
           w->variant != NULL ? w->variant : "", w->folded ? " --folded" : "", spec);
  }
  free(spec);
  printf("%s", res->why);
  if (res->why[0] != '\0' && res->why[strlen(res->why) - 1] != '\n')
    printf("\n");
}

int m68k_explore_main(int argc, char **argv) {
  static const struct option opts[] = {
      {"ops", required_argument, NULL, 'n'},      {"preemptions", required_argument, NULL, 'k'},
      {"variant", required_argument, NULL, 'v'},  {"pct", required_argument, NULL, 'p'},
      {"runs", required_argument, NULL, 'r'},     {"depth", required_argument, NULL, 'd'},
      {"schedule", required_argument, NULL, 's'}, {"max-schedules", required_argument, NULL, 'm'},
      {"folded", no_argument, NULL, 'f'},         {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  world_t w = {0};
  uint64_t ops = 0, k = 2, seed = 0, runs = 1000, depth = 3, max_schedules = 0;
  bool pct = false;
  const char *sched = NULL;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (ch) {
    case 'n':
      if (!qm_parse_u64(optarg, 1, MAX_OPS, &ops))
        return qm_usage("explore", "--ops takes 1 to 30, not '%s'", optarg);
      break;
    case 'k':
      if (!qm_parse_u64(optarg, 0, 1000, &k))
        return qm_usage("explore", "--preemptions takes 0 to 1000, not '%s'", optarg);
      break;
    case 'v': w.variant = optarg; break;
    case 'f': w.folded = true; break;
    case 'p':
      if (!qm_parse_u64(optarg, 0, UINT64_MAX, &seed))
        return qm_usage("explore", "bad --pct seed '%s'", optarg);
      pct = true;
      break;
    case 'r':
      if (!qm_parse_u64(optarg, 1, UINT64_MAX, &runs))
        return qm_usage("explore", "--runs takes a positive count, not '%s'", optarg);
      break;
    case 'd':
      if (!qm_parse_u64(optarg, 1, 64, &depth))
        return qm_usage("explore", "--depth takes 1 to 64, not '%s'", optarg);
      break;
    case 's': sched = optarg; break;
    case 'm':
      if (!qm_parse_u64(optarg, 1, UINT64_MAX, &max_schedules))
        return qm_usage("explore", "--max-schedules takes a positive count, not '%s'", optarg);
      break;
    case 'h': fputs(help_text, stdout); return 0;
    default: return qm_usage("explore", "unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (optind != argc - 1)
    return qm_usage("explore", "give exactly one algorithm (counter-cas, stack-cas2, queue-cas2 or "
                         "list-cas2)");
  const char *name = argv[optind];
  w.algo = find_algo(name);
  if (w.algo == NULL)
    return qm_usage("explore", "unknown algorithm '%s' (counter-cas, stack-cas2, queue-cas2 or "
                         "list-cas2)",
                         name);
  if (pct && sched != NULL)
    return qm_usage("explore", "--pct and --schedule do not go together");
  w.ops = ops != 0 ? (unsigned)ops : w.algo->default_ops;

  m68k_explore_target_t t = {&w, world_build, world_judge, world_destroy};
  m68k_explore_result_t res = {0};
  char err[512] = "";
  int rc;
  int status = 0;
  if (sched != NULL) {
    m68k_schedule_t s = {0};
    m68k_slice_t *file = NULL;
    size_t nfile = 0;
    if (strncmp(sched, "replay:", 7) == 0) {
      rc = m68k_schedule_load(sched + 7, &file, &nfile);
      if (rc != M68K_OK) {
        fprintf(stderr, "quamachine: explore: %s: %s\n", sched + 7, m68k_strerror(rc));
        return EXIT_USAGE;
      }
      s = (m68k_schedule_t){.kind = M68K_SCHED_REPLAY, .slices = file, .nslices = nfile};
    } else if (m68k_schedule_parse(sched, &s) != M68K_OK || s.kind != M68K_SCHED_REPLAY) {
      m68k_schedule_free(&s);
      return qm_usage("explore", "bad schedule '%s' (slices:CPUxCOUNT,... or replay:FILE)", sched);
    }
    bool violation = false;
    rc = m68k_explore_replay(&t, s.slices, s.nslices, &violation, res.why, sizeof res.why, err,
                             sizeof err);
    if (rc == M68K_OK) {
      res.schedules = 1;
      res.violations = violation;
      if (violation)
        printf("violation:\n%s%s", res.why,
               res.why[0] != '\0' && res.why[strlen(res.why) - 1] != '\n' ? "\n" : "");
      else
        printf("linearizable\n");
    }
    if (file != NULL)
      free(file);
    else
      m68k_schedule_free(&s);
  } else if (pct) {
    rc = m68k_explore_pct(&t, seed, runs, (unsigned)depth, 0, &res, err, sizeof err);
    if (rc == M68K_OK && res.violations != 0)
      print_violation(name, &w, &res, "PCT");
  } else {
    m68k_explore_options_t opt = {.preemptions = (unsigned)k, .max_schedules = max_schedules};
    rc = m68k_explore_chess(&t, &opt, &res, err, sizeof err);
    if ((rc == M68K_OK || rc == M68K_ETOOBIG) && res.violations != 0)
      print_violation(name, &w, &res, "CHESS");
  }
  if (rc != M68K_OK) {
    fprintf(stderr, "quamachine: explore: %s\n", err[0] != '\0' ? err : m68k_strerror(rc));
    status = EXIT_ERROR;
  } else if (res.violations != 0) {
    status = EXIT_FOUND;
  }
  printf("EXPLORE %s schedules=%" PRIu64 " violations=%" PRIu64 "\n", name, res.schedules,
         res.violations);
  m68k_explore_result_free(&res);
  return status;
}
