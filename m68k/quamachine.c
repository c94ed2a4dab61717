/* quamachine.c -- the quamachine tool: run Linux/m68k programs, single-step tests and two-CPU
 * images.
 *
 * Every command is one row of `commands` (its name, an old name it also
 * answers to, and its function); the usage text documents them all. */
#include "explore.h"
#include "jitdump.h"
#include "machine.h"
#include "quamachine-tool.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

extern char **environ;

#define EXIT_USAGE QM_EXIT_USAGE
#define EXIT_FAULT 127  /* unsupported system call or instruction */
#define EXIT_NOEXEC 126 /* the program cannot be loaded */
#define EXIT_STUCK 125  /* deadlock, halt, instruction limit, schedule end */

/* smp's instruction limit when --limit is not given: about a third of a
 * second of a spinning image, so that one that never halts ends. */
#define SMP_DEFAULT_LIMIT 100000000ull

/* The ELF header's e_flags bit that gcc -m68000 sets (binutils'
 * EF_M68K_M68000): code for the 68000, which glibc's is not. */
#define EF_M68K_M68000 0x01000000u

/* Where meson install puts the linker script for smp images. */
#ifndef QUAMACHINE_SMP_LD
#define QUAMACHINE_SMP_LD "share/qua/smp.ld"
#endif

/* run --jit=on translates code run this many times (--jit-threshold). */
#define QM_JIT_THRESHOLD 16

static const char usage_text[] =
    "Usage: quamachine COMMAND [OPTION]... ARG...\n"
    "       quamachine --help | --version\n"
    "\n"
    "quamachine emulates a 68000 or 68030 machine with one or two CPUs that share\n"
    "memory, interleaved by a deterministic scheduler.\n"
    "\n"
    "Commands:\n"
    "  run [OPTION]... PROG [ARG]...\n"
    "      Load the static m68k-linux-gnu ELF executable PROG and run it as a\n"
    "      Linux process with arguments ARG and this environment. Its stdin,\n"
    "      stdout and stderr are quamachine's; its exit status is quamachine's.\n"
    "      --cpu 68000|68030   CPU model (default 68030). Debian's static glibc\n"
    "                          (m68k-linux-gnu-gcc -static) is 68020 code: on\n"
    "                          the 68000 only programs built -m68000 without\n"
    "                          glibc run.\n"
    "      --mem SIZE          RAM size, e.g. 64M (default 64M; the 68000 has\n"
    "                          at most 16M less the device page)\n"
    "      --trace             trace every instruction to stderr\n"
    "      --limit N           stop after N instructions\n"
    "      --stats             print the instructions executed and the speed\n"
    "                          to stderr at the end (with --jit=on, the\n"
    "                          translator's counters too)\n"
    "      --cycles            print the cycles the program took to stderr at\n"
    "                          the end: on the 68000 the chip's clocks (as the\n"
    "                          MC68000 User's Manual times them, no wait\n"
    "                          states), on the 68030 an estimate (its manual's\n"
    "                          cache-case times; it says which)\n"
    "      --root DIR          the program's \"/\": every path it names resolves\n"
    "                          inside DIR (\"..\" and symbolic links cannot leave\n"
    "                          it); its working directory starts at DIR. Without\n"
    "                          --root the program has no files (EACCES)\n"
    "      --jit on|off        translate hot code into host code (default on):\n"
    "                          the same results, instruction counts and\n"
    "                          exceptions as the interpreter (off: interpret all)\n"
    "      --jit-threshold N   translate code once run N times (default 16)\n"
    "      --jitdump DIR       describe each translated block in DIR/jit-<pid>.dump\n"
    "                          (perf's jitdump format) as \"m68k_<pc>\": record\n"
    "                          with perf record -k mono, then perf inject --jit\n"
    "                          turns the samples in translated code into\n"
    "                          symbols of guest addresses\n"
    "\n"
    "  sst [OPTION]... FILE_OR_DIR...\n"
    "      Run single-instruction tests (the m68k-sst format: gzip'ed text, six\n"
    "      lines a test) and print \"SST <file> <passed>/<total>\" per file and\n"
    "      \"SST total <passed>/<total>\" last; on the 68000, each line adds\n"
    "      \"cycles <agreeing>/<total> (<percent>%)\": the tests whose clock count\n"
    "      is the data's (the exit status is the state's). A folder without\n"
    "      *.txt.gz files is an error. The data (SingleStepTests' m68000 set)\n"
    "      are 68000-only.\n"
    "      --cpu 68000|68030   CPU model (default 68000); on the 68030, tests\n"
    "                          where the two CPUs differ (exception frames,\n"
    "                          address errors) fail, as they should\n"
    "      -v, --verbose       show the first differences of each failing test\n"
    "\n"
    "  smp [OPTION]... IMAGE\n"
    "      Run a freestanding ELF image on a two-CPU machine. Both CPUs start at\n"
    "      its entry in supervisor mode, interrupts masked, each with a 64 KiB\n"
    "      stack at the top of RAM (CPU 0 highest); the CPU_ID register of the\n"
    "      device page at 0xFFFFF000 tells them apart. The machine stops when a\n"
    "      CPU writes the HALT register; quamachine exits with that value's low\n"
    "      byte (400 exits 144; a value above 255 is also said on stderr).\n"
    "      The image must lie in RAM (from address 0): a usual static\n"
    "      executable is linked at 0x80000000, so link images with the script\n"
    "      installed as " QUAMACHINE_SMP_LD "\n"
    "      (tests/m68k/progs/smp.ld in the source), which puts them at 0x1000:\n"
    "        m68k-linux-gnu-gcc -m68030 -ffreestanding -nostdlib -static \\\n"
    "          -no-pie -T smp.ld -Wl,-N crt0.S main.c -o image.elf\n"
    "      (smp-crt0.S, installed beside it, is such a crt0: it calls\n"
    "      cpu_main(cpu_id) on each CPU).\n"
    "      --cpu 68000|68030   CPU model (default 68030)\n"
    "      --cpus 1|2          number of CPUs (default 2)\n"
    "      --mem SIZE          RAM size at address 0 (default 16M)\n"
    "      --schedule SPEC     quantum:N       each CPU runs N instructions in turn\n"
    "                                          (default quantum:1000)\n"
    "                          random:SEED[:MAX]  a seeded PRNG picks the CPU and a\n"
    "                                          slice of 1..MAX instructions (16)\n"
    "                          replay:FILE     the slices recorded in FILE\n"
    "                          slices:0x3,1x5,...  the same inline: CPU 0 runs 3\n"
    "                                          instructions, then CPU 1 runs 5, ...\n"
    "                                          (as `explore` prints them)\n"
    "      --record FILE       write the slices executed to FILE (replayable)\n"
    "      --limit N           stop after N instructions of both CPUs (default\n"
    "                          100000000; 0: no limit), saying so, exit 125\n"
    "      --trace             trace every instruction to stderr\n"
    "      -v, --verbose       say how the machine stopped\n"
    "\n"
    "  quaject TYPE [OPTION]...\n"
    "      Synthesise a queue, stack, counter or list as 68030 code, drive it\n"
    "      from producer and consumer loops on both CPUs and check what\n"
    "      arrived ('quamachine quaject --help').\n"
    "  explore ALGO [OPTION]...\n"
    "      Run a synthesised CAS/CAS2 quaject (counter-cas, stack-cas2,\n"
    "      queue-cas2, list-cas2) on both CPUs under every schedule with at most\n"
    "      K preemptions (--preemptions K, default 2) or under PCT (--pct SEED),\n"
    "      checking each history for linearizability; prints\n"
    "      \"EXPLORE ALGO schedules=S violations=V\" last. See explore --help.\n"
    "\n"
    "  help\n"
    "      Show this text (also -h, --help; --version, -V: the version).\n"
    "\n"
    "Device page (32-bit registers at 0xFFFFF000 + offset; 0xFFF000 on a 68000):\n"
    "  0x00 CONSOLE (W, low byte printed)   0x04 CPU_ID (R)   0x08 NCPUS (R)\n"
    "  0x0C HALT (W, stops with the value)  0x10 TIMER_PERIOD (RW, instructions)\n"
    "  0x14 TIMER_LEVEL (RW, default 6)     0x18 TIMER_TARGET (RW, CPU mask)\n"
    "  0x1C TIMER_ACK (W)  0x20 TIMER_COUNT (R)  0x24 IPI_SEND (W, a CPU id)\n"
    "  0x28 IPI_LEVEL (RW, default 5)       0x2C IPI_ACK (W)   0x30 CLOCK (R)\n"
    "Interrupts are autovectored and stay requested until acknowledged. Time is\n"
    "counted in instructions of both CPUs, so a run depends only on the image\n"
    "and the schedule.\n"
    "\n"
    "Schedule files: a line \"quamachine-schedule 1\", then one slice a line,\n"
    "\"CPU COUNT\" (that CPU runs COUNT instructions) or \"idle COUNT\" (every CPU\n"
    "was stopped and the clock moved COUNT to the next timer tick).\n"
    "\n"
    "Exit status: the program's (run) or the halt value's low byte (smp); 128+N\n"
    "when the program died of signal N; 127 for an unsupported system call or\n"
    "instruction, or an exception with no handler; 126 when PROG cannot be\n"
    "loaded; 125 for a deadlock, a halted CPU, the instruction limit or the end\n"
    "of a replayed schedule; 2 for bad usage; for sst, 0 when every test passed\n"
    "and 1 otherwise.\n";

int qm_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "quamachine: ");
  if (cmd != NULL)
    fprintf(stderr, "%s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (cmd != NULL)
    fprintf(stderr, "\nTry 'quamachine %s --help' for usage.\n", cmd);
  else
    fprintf(stderr, "\nTry 'quamachine help' for usage.\n");
  return QM_EXIT_USAGE;
}

bool qm_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

static bool parse_model(const char *s, m68k_model_t *model) {
  if (strcmp(s, "68000") == 0 || strcasecmp(s, "m68000") == 0) {
    *model = M68K_MODEL_68000;
    return true;
  }
  if (strcmp(s, "68030") == 0 || strcasecmp(s, "m68030") == 0) {
    *model = M68K_MODEL_68030;
    return true;
  }
  return false;
}

static bool parse_size(const char *s, uint32_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || end == s || s[0] == '-')
    return false;
  switch (*end) {
  case 'k':
  case 'K':
    v <<= 10;
    end++;
    break;
  case 'm':
  case 'M':
    v <<= 20;
    end++;
    break;
  case 'g':
  case 'G':
    v <<= 30;
    end++;
    break;
  default: break;
  }
  if (*end != '\0' || v < 65536 || v > 0xFFF00000ull)
    return false;
  *out = (uint32_t)v;
  return true;
}

/* Maps a machine result to the exit status, saying why on stderr. */
static int report(const m68k_machine_result_t *r, const char *msg, bool verbose) {
  switch (r->status) {
  case M68K_MACHINE_EXITED:
    if (verbose)
      fprintf(stderr, "quamachine: %s after %" PRIu64 " instructions\n", msg, r->clock);
    return r->code & 0xFF;
  case M68K_MACHINE_SIGNALED:
    fprintf(stderr, "quamachine: %s\n", msg);
    return 128 + (r->code & 0x7F);
  case M68K_MACHINE_FAULT: fprintf(stderr, "quamachine: %s\n", msg); return EXIT_FAULT;
  case M68K_MACHINE_LIMIT: fprintf(stderr, "quamachine: %s\n", msg); return EXIT_STUCK;
  default:
    fprintf(stderr, "quamachine: %s (after %" PRIu64 " instructions)\n", msg, r->clock);
    return EXIT_STUCK;
  }
}

/* The ELF header's e_flags of `path`, or 0 when it cannot be read. */
static uint32_t elf_flags(const char *path) {
  unsigned char h[40];
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return 0;
  size_t n = fread(h, 1, sizeof h, f);
  fclose(f);
  if (n < sizeof h)
    return 0;
  return (uint32_t)h[36] << 24 | (uint32_t)h[37] << 16 | (uint32_t)h[38] << 8 | h[39];
}

static int cmd_run(int argc, char **argv) {
  static const struct option opts[] = {
      {"cpu", required_argument, NULL, 'c'},
      {"mem", required_argument, NULL, 'm'},
      {"trace", no_argument, NULL, 't'},
      {"limit", required_argument, NULL, 'l'},
      {"stats", no_argument, NULL, 's'},
      {"cycles", no_argument, NULL, 'C'},
      {"root", required_argument, NULL, 'r'},
      {"jit", required_argument, NULL, 'j'},
      {"jit-threshold", required_argument, NULL, 'J'},
      {"jitdump", required_argument, NULL, 'D'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  m68k_run_options_t opt = {.model = M68K_MODEL_68030};
  bool jit = true;
  uint64_t jit_threshold = QM_JIT_THRESHOLD;
  bool stats = false;
  const char *jitdump_dir = NULL;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
    switch (ch) {
    case 'c':
      if (!parse_model(optarg, &opt.model))
        return qm_usage(NULL, "run: unknown CPU '%s' (use 68000 or 68030)", optarg);
      break;
    case 'm':
      if (!parse_size(optarg, &opt.ram_size))
        return qm_usage(NULL, "run: bad memory size '%s' (e.g. 64M, at least 64K)", optarg);
      break;
    case 't': opt.trace = stderr; break;
    case 'l':
      if (!qm_parse_u64(optarg, 0, UINT64_MAX, &opt.limit))
        return qm_usage(NULL, "run: bad instruction limit '%s'", optarg);
      break;
    case 's': stats = true; break;
    case 'C': opt.cycles = true; break;
    case 'r': opt.root = optarg; break;
    case 'j':
      if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0)
        return qm_usage(NULL, "run: --jit takes on or off, not '%s'", optarg);
      jit = strcmp(optarg, "on") == 0;
      break;
    case 'J':
      if (!qm_parse_u64(optarg, 1, UINT16_MAX, &jit_threshold))
        return qm_usage(NULL, "run: bad --jit-threshold '%s' (1 to 65535)", optarg);
      break;
    case 'D': jitdump_dir = optarg; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default:
      return qm_usage(NULL, "run: unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return qm_usage(NULL, "run: no program given");
  m68k_jit_set_default(jit ? (unsigned)jit_threshold : 0);
  qm_jitdump_t jd;
  m68k_jit_listener_t jl = {qm_jitdump_block, &jd};
  if (jitdump_dir != NULL) {
    if (qm_jitdump_open(&jd, jitdump_dir) != 0)
      return 1;
    m68k_jit_set_listener(&jl);
  }
  char msg[768];
  m68k_machine_result_t res;
  fflush(stdout);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = m68k_linux_run(argv[optind], argc - optind, argv + optind, environ, &opt, &res, msg,
                          sizeof msg);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (jitdump_dir != NULL) {
    m68k_jit_set_listener(NULL);
    qm_jitdump_close(&jd);
  }
  if (rc != M68K_OK) {
    fprintf(stderr, "quamachine: %s\n", msg);
    return EXIT_NOEXEC;
  }
  if (stats) {
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    fprintf(stderr, "quamachine: %" PRIu64 " instructions in %.3f s (%.2f MIPS)\n", res.clock, secs,
            secs > 0 ? (double)res.clock / secs / 1e6 : 0.0);
    if (jit) {
      m68k_jit_stats_t js;
      m68k_jit_totals(&js);
      fprintf(stderr,
              "quamachine: jit: %" PRIu64 " blocks translated (%" PRIu64 " instructions, %" PRIu64
              " with stencils of their own), %" PRIu64 " exits chained, %" PRIu64
              " branches followed, %" PRIu64 " loops with cached registers, %" PRIu64
              " blocks invalidated, %" PRIu64 " flushes, %.3f ms translating\n",
              js.translated, js.insns, js.specialised, js.chained, js.followed, js.cached,
              js.invalidated, js.flushes,
              (double)js.translate_ns / 1e6);
    }
  }
  if (opt.cycles)
    fprintf(stderr, "quamachine: %" PRIu64 " cycles (%s)\n", res.cycles,
            opt.model == M68K_MODEL_68000
                ? "MC68000 clocks, as the chip takes them with no wait states"
                : "MC68030 estimate: cache-case times with overlap, no cache misses");
  int status = report(&res, msg, false);
  /* A 68020 instruction or a misaligned word access on the 68000 model:
   * say why when the program was not built for the 68000. */
  if (opt.model == M68K_MODEL_68000 &&
      (res.status == M68K_MACHINE_FAULT ||
       (res.status == M68K_MACHINE_SIGNALED && (res.code == 4 || res.code == 7))) &&
      (elf_flags(argv[optind]) & EF_M68K_M68000) == 0)
    fprintf(stderr,
            "quamachine: %s is not 68000 code (its ELF header does not say -m68000): Debian's "
            "static glibc is 68020 code, which the 68000 model cannot run. Use --cpu 68030, or "
            "build it -m68000 without glibc (-nostdlib -ffreestanding)\n",
            argv[optind]);
  return status;
}

static int cmd_smp(int argc, char **argv) {
  static const struct option opts[] = {
      {"cpu", required_argument, NULL, 'c'},    {"cpus", required_argument, NULL, 'n'},
      {"mem", required_argument, NULL, 'm'},    {"schedule", required_argument, NULL, 's'},
      {"record", required_argument, NULL, 'r'}, {"limit", required_argument, NULL, 'l'},
      {"trace", no_argument, NULL, 't'},        {"verbose", no_argument, NULL, 'v'},
      {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
  };
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68030, .ncpus = 2, .ram_size = 16u << 20};
  m68k_schedule_t sched = {.kind = M68K_SCHED_QUANTUM, .quantum = 1000};
  const char *replay = NULL, *record = NULL, *inline_slices = NULL;
  bool trace = false, verbose = false;
  uint64_t limit = SMP_DEFAULT_LIMIT;
  bool default_limit = true;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
    switch (ch) {
    case 'c':
      if (!parse_model(optarg, &cfg.model))
        return qm_usage(NULL, "smp: unknown CPU '%s' (use 68000 or 68030)", optarg);
      break;
    case 'n':
      if (strcmp(optarg, "1") != 0 && strcmp(optarg, "2") != 0)
        return qm_usage(NULL, "smp: --cpus takes 1 or 2, not '%s'", optarg);
      cfg.ncpus = (unsigned)atoi(optarg);
      break;
    case 'm':
      if (!parse_size(optarg, &cfg.ram_size))
        return qm_usage(NULL, "smp: bad memory size '%s' (e.g. 16M, at least 64K)", optarg);
      break;
    case 's':
      replay = inline_slices = NULL;
      if (strncmp(optarg, "replay:", 7) == 0 && optarg[7] != '\0') {
        replay = optarg + 7;
      } else if (m68k_schedule_parse(optarg, &sched) != M68K_OK) {
        return qm_usage(NULL, "smp: bad schedule '%s' (quantum:N, random:SEED[:MAX], replay:FILE "
                           "or slices:CPUxCOUNT,...)",
                           optarg);
      }
      if (sched.kind == M68K_SCHED_REPLAY) { /* parsed again below, after the options */
        inline_slices = optarg;
        m68k_schedule_free(&sched);
      }
      break;
    case 'r': record = optarg; break;
    case 'l':
      if (!qm_parse_u64(optarg, 0, UINT64_MAX, &limit))
        return qm_usage(NULL, "smp: bad instruction limit '%s'", optarg);
      default_limit = false;
      break;
    case 't': trace = true; break;
    case 'v': verbose = true; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default:
      return qm_usage(NULL, "smp: unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (optind != argc - 1)
    return qm_usage(NULL, "smp: give exactly one image");
  const char *path = argv[optind];

  int status = EXIT_NOEXEC;
  char err[512];
  m68k_elf_t *elf = NULL;
  m68k_machine_t *m = NULL;
  m68k_slice_t *slices = NULL;
  size_t nslices = 0;

  if (inline_slices != NULL && replay == NULL &&
      m68k_schedule_parse(inline_slices, &sched) != M68K_OK) {
    fprintf(stderr, "quamachine: out of memory for the schedule\n");
    goto out;
  }
  if (replay != NULL) {
    int rc = m68k_schedule_load(replay, &slices, &nslices);
    if (rc != M68K_OK) {
      fprintf(stderr, "quamachine: %s: %s\n", replay, m68k_strerror(rc));
      status = EXIT_USAGE;
      goto out;
    }
    sched = (m68k_schedule_t){.kind = M68K_SCHED_REPLAY, .slices = slices, .nslices = nslices};
  }
  if (m68k_elf_open(path, &elf, err, sizeof err) != M68K_OK) {
    fprintf(stderr, "quamachine: %s\n", err);
    goto out;
  }
  m = m68k_machine_create(&cfg);
  if (m == NULL) {
    fprintf(stderr, "quamachine: cannot create the machine (%" PRIu32 " bytes of RAM)\n",
            cfg.ram_size);
    goto out;
  }
  if (m68k_elf_load(m, elf) != M68K_OK) {
    fprintf(stderr, "quamachine: %s: %s\n", path, m68k_machine_message(m));
    if (m68k_elf_low(elf) >= cfg.ram_size)
      fprintf(stderr,
              "quamachine: smp images are linked into RAM from address 0, not where a usual "
              "executable goes: link with -T %s (see 'quamachine help')\n",
              QUAMACHINE_SMP_LD);
    goto out;
  }
  if (m68k_machine_set_schedule(m, &sched) != M68K_OK) {
    fprintf(stderr, "quamachine: the schedule names a CPU this machine does not have\n");
    status = EXIT_USAGE;
    goto out;
  }
  m68k_machine_start(m, m68k_elf_entry(elf));
  m68k_machine_set_trace(m, trace ? stderr : NULL);
  m68k_machine_set_limit(m, limit);
  m68k_machine_record(m, record != NULL);
  m68k_machine_result_t res;
  m68k_machine_run(m, &res);
  fflush(stdout);
  if (record != NULL) {
    size_t n;
    const m68k_slice_t *rec = m68k_machine_recorded(m, &n);
    if (m68k_schedule_save(record, rec, n) != M68K_OK)
      fprintf(stderr, "quamachine: cannot write the schedule to %s\n", record);
  }
  status = report(&res, m68k_machine_message(m), verbose);
  if (res.status == M68K_MACHINE_LIMIT && default_limit)
    fprintf(stderr, "quamachine: that is smp's default limit: --limit N sets another, --limit 0 "
                    "none\n");
  if (res.status == M68K_MACHINE_EXITED && (uint32_t)res.code > 0xFF)
    fprintf(stderr, "quamachine: halt value %" PRIu32 " (0x%" PRIx32 "): exit status %d, its low "
                    "byte\n", (uint32_t)res.code, (uint32_t)res.code, status);
out:
  if (inline_slices != NULL && replay == NULL)
    m68k_schedule_free(&sched);
  free(slices);
  m68k_machine_destroy(m);
  m68k_elf_close(elf);
  return status;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The test files named by `path`: itself, or a folder's *.txt.gz sorted
 * by name. Returns 0 with a malloc'ed list, or -1 with errno set. */
static int list_tests(const char *path, char ***out, size_t *n) {
  struct stat st;
  *out = NULL;
  *n = 0;
  if (stat(path, &st) != 0)
    return -1;
  if (!S_ISDIR(st.st_mode)) {
    char **one = malloc(sizeof *one);
    if (one == NULL || (one[0] = strdup(path)) == NULL) {
      free(one);
      return -1;
    }
    *out = one;
    *n = 1;
    return 0;
  }
  DIR *d = opendir(path);
  if (d == NULL)
    return -1;
  char **list = NULL;
  size_t cap = 0, len = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t nl = strlen(e->d_name);
    if (nl < 8 || strcmp(e->d_name + nl - 7, ".txt.gz") != 0)
      continue;
    if (len == cap) {
      cap = cap != 0 ? cap * 2 : 64;
      char **r = realloc(list, cap * sizeof *r);
      if (r == NULL)
        goto fail;
      list = r;
    }
    size_t pl = strlen(path) + 1 + nl + 1;
    if ((list[len] = malloc(pl)) == NULL)
      goto fail;
    snprintf(list[len++], pl, "%s/%s", path, e->d_name);
  }
  closedir(d);
  if (len != 0)
    qsort(list, len, sizeof *list, cmp_names);
  *out = list;
  *n = len;
  return 0;
fail:
  for (size_t i = 0; i < len; i++)
    free(list[i]);
  free(list);
  closedir(d);
  errno = ENOMEM;
  return -1;
}

static int cmd_sst(int argc, char **argv) {
  static const struct option opts[] = {
      {"cpu", required_argument, NULL, 'c'},
      {"verbose", no_argument, NULL, 'v'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  m68k_model_t model = M68K_MODEL_68000;
  bool verbose = false;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
    switch (ch) {
    case 'c':
      if (!parse_model(optarg, &model))
        return qm_usage(NULL, "sst: unknown CPU '%s' (use 68000 or 68030)", optarg);
      break;
    case 'v': verbose = true; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default:
      return qm_usage(NULL, "sst: unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return qm_usage(NULL, "sst: no test file or folder given");
  if (model != M68K_MODEL_68000)
    fprintf(stderr, "quamachine: sst: note: the m68k-sst data are 68000-only (SingleStepTests' "
                    "m68000 set): on the 68030 model, tests where the CPUs differ (exception "
                    "frames, address errors) fail by design\n");
  unsigned passed = 0, total = 0, upassed = 0, utotal = 0, cpassed = 0;
  int status = 0;
  for (int i = optind; i < argc; i++) {
    char **files = NULL;
    size_t nfiles = 0;
    if (list_tests(argv[i], &files, &nfiles) != 0) {
      fprintf(stderr, "quamachine: sst: %s: %s%s\n", argv[i], strerror(errno),
              errno == ENOENT ? " (give the folder of the m68k-sst *.txt.gz files)" : "");
      status = 1;
      continue;
    }
    if (nfiles == 0) {
      fprintf(stderr, "quamachine: sst: %s has no test files (*.txt.gz): give the folder of "
                      "the m68k-sst data\n", argv[i]);
      status = 1;
    }
    for (size_t k = 0; k < nfiles; k++) {
      unsigned p = 0, t = 0, cp = 0;
      int rc = m68k_sst_run_file(files[k], model, verbose, stdout, &p, &t, &cp);
      if (rc < 0) {
        fprintf(stderr, "quamachine: sst: %s: %s\n", files[k], strerror(-rc));
        status = 1;
      }
      const char *base = strrchr(files[k], '/');
      base = base != NULL ? base + 1 : files[k];
      if (strncmp(base, "TAS.", 4) == 0 || strncmp(base, "TRAPV.", 6) == 0) {
        upassed += p;
        utotal += t;
      }
      passed += p;
      total += t;
      cpassed += cp;
      free(files[k]);
    }
    free(files);
  }
  if (total == 0) {
    fprintf(stderr, "quamachine: sst: no test was run\n");
    return 1;
  }
  if (utotal != 0)
    printf("SST unverified-upstream (TAS, TRAPV) %u/%u\n", upassed, utotal);
  if (model == M68K_MODEL_68000)
    printf("SST total %u/%u cycles %u/%u (%.2f%%)\n", passed, total, cpassed, total,
           100.0 * cpassed / total);
  else
    printf("SST total %u/%u (68000 data on the 68030 model)\n", passed, total);
  return status != 0 || passed != total ? 1 : 0;
}

#ifdef QUAMACHINE_QUAJECT
int quamachine_quaject(int argc, char **argv); /* quamachine-quaject.c */
#else
/* Without the m68k quaject backend, quaject and explore say why not. */
static int cmd_no_backend(int argc, char **argv) {
  fprintf(stderr, "quamachine: %s needs the m68k quaject backend, not built here (no "
                  "m68k-linux-gnu-gcc or libelf)\n",
          argv[0]);
  return EXIT_FAULT;
}
#define quamachine_quaject cmd_no_backend
#define m68k_explore_main cmd_no_backend
#endif

static int cmd_help(int argc, char **argv) {
  fputs(usage_text, stdout);
  return 0;
}

static int cmd_version(int argc, char **argv) {
  printf("quamachine %s\n", QUAMACHINE_VERSION);
  return 0;
}

/* The commands: name, the old name it also answers to (or NULL), and the
 * function, called with the command's own argv (argv[0] its name). */
static const struct command {
  const char *name;
  const char *alias;
  int (*run)(int argc, char **argv);
} commands[] = {
    {"run", NULL, cmd_run},
    {"sst", NULL, cmd_sst},
    {"smp", "run2", cmd_smp},
    {"quaject", NULL, quamachine_quaject},
    {"explore", NULL, m68k_explore_main},
    {"help", "--help", cmd_help},
    {"-h", NULL, cmd_help},
    {"--version", "-V", cmd_version},
};

int main(int argc, char **argv) {
  if (argc < 2)
    return qm_usage(NULL, "no command given");
  const char *cmd = argv[1];
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(cmd, commands[i].name) == 0 ||
        (commands[i].alias != NULL && strcmp(cmd, commands[i].alias) == 0))
      return commands[i].run(argc - 1, argv + 1);
  return qm_usage(NULL, "unknown command '%s' (run, sst, smp, quaject, explore or help)", cmd);
}
