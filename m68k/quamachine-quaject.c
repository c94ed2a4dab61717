/* quamachine-quaject.c -- `quamachine quaject`: a quaject synthesised as 68030 code, driven from
 * both CPUs and checked. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quaject68k.h"
#include "quamachine-tool.h"

int quamachine_quaject(int argc, char **argv);

#define EXIT_LOSS 1
#define EXIT_USAGE QM_EXIT_USAGE
#define EXIT_STUCK 125

static const char help_text[] =
    "Usage: quamachine quaject TYPE [OPTION]...\n"
    "\n"
    "Synthesise a quaject of TYPE (queue, stack, counter or list) as 68030 code\n"
    "in a two-CPU machine's RAM and drive it from 68k producer and consumer\n"
    "loops on both CPUs: producers call put (push, add, insert), consumers get\n"
    "(pop, read, delete). Then check that every item arrived exactly once and,\n"
    "for a queue, in each producer's order; for a counter, that its final\n"
    "value is the number of adds. The last line is\n"
    "  QUAJECT <type> items=N lost=L dup=D reordered=R put_insns=X get_insns=Y\n"
    "          put_cycles=A get_cycles=B\n"
    "(on one line), where put_* are for the producers' entry and get_* for\n"
    "the consumers', per call: the median over the calls that succeeded\n"
    "(status OK; calls that found the quaject full or empty are left out,\n"
    "retries inside a call counted), from the entry's first instruction\n"
    "through its RTS.\n"
    "\n"
    "Options:\n"
    "  --producers P        producer loops (default 1)\n"
    "  --consumers C        consumer loops (default 1); P + C <= 16. Producer j\n"
    "                       runs on CPU j % 2, consumer j on CPU (j + 1) % 2\n"
    "  --items N            items in all, split among the producers (default\n"
    "                       1000)\n"
    "  --capacity N         of a queue or stack (default 64; a list gets N items'\n"
    "                       nodes)\n"
    "  --variant V          the quaject's variant: queue auto (default: SP-SC\n"
    "                       code for one producer or consumer, CAS2 code for\n"
    "                       more), spsc, mpmc or broken; stack cas2 or broken;\n"
    "                       counter cas or broken; list cas2 or broken\n"
    "  --schedule SPEC      how the CPUs interleave: random:SEED[:MAX] (a seeded\n"
    "                       PRNG picks the CPU and a slice of 1..MAX\n"
    "                       instructions, MAX 16 by default; the default is\n"
    "                       random:1), rr:K or quantum:K (each CPU K\n"
    "                       instructions in turn), replay:FILE (a schedule file,\n"
    "                       as `quamachine smp --record` writes)\n"
    "  --record FILE        write the slices executed to FILE (replayable)\n"
    "  --folded             synthesise each loop with the entries' folded forms\n"
    "                       inline (the state's address held in a2 across the\n"
    "                       loop, each operation falling through into the\n"
    "                       loop's next instruction: no JSR, no RTS) instead of\n"
    "                       calling them; put_* and get_* are then the\n"
    "                       operation's own instructions\n"
    "  --no-measure         do not count cycles (faster; the figures print 0)\n"
    "  --limit N            give up after N instructions of both CPUs\n"
    "  -v, --verbose        print the code each entry runs and the CAS2 count\n"
    "  -h, --help           show this text\n"
    "\n"
    "Cycles are estimated, not timed, by the MC68030 User's Manual's own\n"
    "timing model (section 11): each instruction a CPU executes has, from the\n"
    "tables of 11.6 (m68k/m68k-cycles.tab), a time for the cache case (every\n"
    "instruction fetch hits the instruction cache; operands take two-clock bus\n"
    "cycles, no wait states, the data cache off), a head and a tail; an\n"
    "effective address's component and the operation compose into the\n"
    "instruction (Equation 11-2), and each instruction adds its time less the\n"
    "overlap of its head with the previous instruction's tail, the lesser of\n"
    "the two (Equation 11-1). Bcc and DBcc by whether they branch, CAS by\n"
    "whether it succeeds, MOVEM by the registers it moves; multiply, divide\n"
    "and CAS2 at the table's maximum. A row whose head and tail have no\n"
    "source overlaps nothing. Ignored: cache misses, bus wait states, the\n"
    "other CPU's contention for the bus, exception processing.\n"
    "\n"
    "Exit status: 0 when nothing was lost, duplicated or reordered; 1 when\n"
    "something was; 2 for bad usage; 125 when the loops did not finish (the\n"
    "instruction limit, a fault).\n";

static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  uint64_t v;
  if (!qm_parse_u64(s, lo, hi, &v))
    return false;
  *out = (uint32_t)v;
  return true;
}

int quamachine_quaject(int argc, char **argv) {
  static const struct option opts[] = {
      {"producers", required_argument, NULL, 'p'}, {"consumers", required_argument, NULL, 'c'},
      {"items", required_argument, NULL, 'n'},     {"capacity", required_argument, NULL, 'k'},
      {"variant", required_argument, NULL, 'V'},   {"schedule", required_argument, NULL, 's'},
      {"record", required_argument, NULL, 'r'},    {"no-measure", no_argument, NULL, 'M'},
      {"limit", required_argument, NULL, 'l'},     {"verbose", no_argument, NULL, 'v'},
      {"folded", no_argument, NULL, 'f'},
      {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
  };
  m68k_qj_drive_options_t o = {.producers = 1, .consumers = 1, .items = 1000, .measure = true};
  uint32_t capacity = 64, lim = 0;
  const char *variant = NULL, *spec = "random:1", *replay = NULL, *record = NULL;
  bool verbose = false;
  m68k_schedule_t sched;
  const char *type = NULL;
  if (argc > 1 && argv[1][0] != '-') { /* TYPE first, options after */
    type = argv[1];
    argv++;
    argc--;
  }
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
    uint32_t v;
    switch (ch) {
    case 'p':
    case 'c':
      if (!parse_u32(optarg, 1, 2 * M68K_QJ_DRIVE_AGENTS, &v))
        return qm_usage("quaject", "bad number of loops '%s' (1..16)", optarg);
      *(ch == 'p' ? &o.producers : &o.consumers) = v;
      break;
    case 'n':
      if (!parse_u32(optarg, 1, UINT32_MAX, &o.items))
        return qm_usage("quaject", "bad number of items '%s'", optarg);
      break;
    case 'k':
      if (!parse_u32(optarg, 1, M68K_QJ_CAPACITY_MAX, &capacity))
        return qm_usage("quaject", "bad capacity '%s' (1..%u)", optarg, M68K_QJ_CAPACITY_MAX);
      break;
    case 'V': variant = optarg; break;
    case 's': spec = optarg; break;
    case 'r': record = optarg; break;
    case 'M': o.measure = false; break;
    case 'f': o.folded = true; break;
    case 'l':
      if (!parse_u32(optarg, 1, UINT32_MAX, &lim))
        return qm_usage("quaject", "bad instruction limit '%s'", optarg);
      o.limit = lim;
      break;
    case 'v': verbose = true; break;
    case 'h': fputs(help_text, stdout); return 0;
    default: return qm_usage("quaject", "unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (type == NULL && optind == argc - 1)
    type = argv[optind++];
  if (type == NULL || optind != argc)
    return qm_usage("quaject", "give exactly one TYPE (queue, stack, counter or list)");
  char rrspec[48];
  if (strncmp(spec, "rr:", 3) == 0) {
    snprintf(rrspec, sizeof rrspec, "quantum:%s", spec + 3);
    spec = rrspec;
  }
  if (strncmp(spec, "replay:", 7) == 0 && spec[7] != '\0')
    replay = spec + 7;
  else if (m68k_schedule_parse(spec, &sched) != M68K_OK) {
    m68k_schedule_free(&sched);
    return qm_usage("quaject", "bad schedule '%s' (random:SEED[:MAX], rr:K, quantum:K or replay:FILE)", spec);
  }

  int status = EXIT_USAGE;
  m68k_slice_t *slices = NULL;
  size_t nslices = 0;
  m68k_machine_t *m = NULL;
  m68k_qj_t *q = NULL;
  char err[512];
  if (replay != NULL) {
    int rc = m68k_schedule_load(replay, &slices, &nslices);
    if (rc != M68K_OK) {
      fprintf(stderr, "quamachine: quaject: %s: %s\n", replay, m68k_strerror(rc));
      goto out;
    }
    sched = (m68k_schedule_t){.kind = M68K_SCHED_REPLAY, .slices = slices, .nslices = nslices};
  }
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68030, .ncpus = 2, .ram_size = 64u << 20};
  m = m68k_machine_create(&cfg);
  if (m == NULL) {
    fprintf(stderr, "quamachine: quaject: cannot create the machine\n");
    status = EXIT_STUCK;
    goto out;
  }
  m68k_machine_set_schedule(m, &sched);
  bool list = strcmp(type, "list") == 0, counter = strcmp(type, "counter") == 0;
  if (list && o.items > M68K_QJ_CAPACITY_MAX) {
    fprintf(stderr, "quamachine: quaject: a list takes at most %u items (one node each)\n",
            M68K_QJ_CAPACITY_MAX);
    goto out;
  }
  int rc = m68k_qj_create(m, type, variant, counter ? 0 : list ? o.items : capacity, &q, err,
                          sizeof err);
  if (rc != M68K_OK) {
    fprintf(stderr, "quamachine: quaject: %s\n", err);
    goto out;
  }
  m68k_machine_record(m, record != NULL);
  m68k_qj_drive_result_t r;
  rc = m68k_qj_drive(q, &o, &r, err, sizeof err);
  if (rc == M68K_EINVAL) {
    fprintf(stderr, "quamachine: quaject: %s\n", err);
    goto out;
  }
  if (record != NULL) {
    size_t n;
    const m68k_slice_t *rec = m68k_machine_recorded(m, &n);
    if (m68k_schedule_save(record, rec, n) != M68K_OK)
      fprintf(stderr, "quamachine: quaject: cannot write the schedule to %s\n", record);
  }
  if (verbose) {
    for (unsigned i = 0; i < 2 && r.code[i] != NULL; i++)
      printf("entry %s ran %s at 0x%08" PRIx32 "\n", m68k_qj_entry_name(q, i), r.code[i],
             m68k_qj_entry(q, m68k_qj_entry_name(q, i)));
    printf("CAS2 executed: CPU 0 %" PRIu64 ", CPU 1 %" PRIu64 "; received %" PRIu32
           "; machine clock %" PRIu64 "\n",
           r.cas2[0], r.cas2[1], r.received, r.machine.clock);
  }
  if (rc != M68K_OK)
    fprintf(stderr, "quamachine: quaject: %s\n", err);
  printf("QUAJECT %s items=%" PRIu32 " lost=%" PRIu32 " dup=%" PRIu32 " reordered=%" PRIu32
         " put_insns=%g get_insns=%g put_cycles=%g get_cycles=%g\n",
         type, r.items, r.lost, r.dup, r.reordered, r.insns[0], r.insns[1], r.cycles[0],
         r.cycles[1]);
  status = rc != M68K_OK ? EXIT_STUCK : r.lost || r.dup || r.reordered ? EXIT_LOSS : 0;
out:
  m68k_machine_destroy(m); /* and q with it */
  if (replay != NULL)
    free(slices);
  else
    m68k_schedule_free(&sched); /* an inline slices: schedule */
  return status;
}
