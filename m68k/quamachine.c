/* quamachine.c -- the quamachine tool: run Linux/m68k programs, single-step tests and two-CPU
 * images. */
#include "explore.h"
#include "machine.h"

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

#define EXIT_USAGE 2
#define EXIT_FAULT 127  /* unsupported system call or instruction */
#define EXIT_NOEXEC 126 /* the program cannot be loaded */
#define EXIT_STUCK 125  /* deadlock, halt, instruction limit, schedule end */

static const char usage_text[] =
    "Usage: quamachine COMMAND [OPTION]... ARG...\n"
    "\n"
    "quamachine emulates a 68000 or 68030 machine with one or two CPUs that share\n"
    "memory, interleaved by a deterministic scheduler.\n"
    "\n"
    "Commands:\n"
    "  run [OPTION]... PROG [ARG]...\n"
    "      Load the static m68k-linux-gnu ELF executable PROG and run it as a\n"
    "      Linux process with arguments ARG and this environment. Its stdin,\n"
    "      stdout and stderr are quamachine's; its exit status is quamachine's.\n"
    "      --cpu 68000|68030   CPU model (default 68030)\n"
    "      --mem SIZE          RAM size, e.g. 64M (default 64M; the 68000 has\n"
    "                          at most 16M less the device page)\n"
    "      --trace             trace every instruction to stderr\n"
    "      --limit N           stop after N instructions\n"
    "      --stats             print the instructions executed and the speed\n"
    "                          to stderr at the end\n"
    "\n"
    "  sst [OPTION]... FILE_OR_DIR...\n"
    "      Run single-instruction tests (the m68k-sst format: gzip'ed text, six\n"
    "      lines a test) and print \"SST <file> <passed>/<total>\" per file and\n"
    "      \"SST total <passed>/<total>\" last.\n"
    "      --cpu 68000|68030   CPU model (default 68000)\n"
    "      -v, --verbose       show the first differences of each failing test\n"
    "\n"
    "  smp [OPTION]... IMAGE\n"
    "      Run a freestanding ELF image on a two-CPU machine. Both CPUs start at\n"
    "      its entry in supervisor mode, interrupts masked, each with a 64 KiB\n"
    "      stack at the top of RAM (CPU 0 highest); the CPU_ID register of the\n"
    "      device page at 0xFFFFF000 tells them apart. The machine stops when a\n"
    "      CPU writes the HALT register; quamachine exits with that value.\n"
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
    "      --limit N           stop after N instructions of both CPUs\n"
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
    "      Show this text.\n"
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
    "Exit status: the program's (run) or the halt code's low byte (smp); 128+N\n"
    "when the program died of signal N; 127 for an unsupported system call or\n"
    "instruction, or an exception with no handler; 126 when PROG cannot be\n"
    "loaded; 125 for a deadlock, a halted CPU, the instruction limit or the end\n"
    "of a replayed schedule; 2 for bad usage; for sst, 0 when every test passed\n"
    "and 1 otherwise.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Says what is wrong with the command line; returns the usage status. */
static int usage_error(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "quamachine: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'quamachine help' for usage.\n");
  return EXIT_USAGE;
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

static bool parse_count(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0' || s[0] == '-')
    return false;
  *out = v;
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
  default:
    fprintf(stderr, "quamachine: %s (after %" PRIu64 " instructions)\n", msg, r->clock);
    return EXIT_STUCK;
  }
}

static int cmd_run(int argc, char **argv) {
  static const struct option opts[] = {
      {"cpu", required_argument, NULL, 'c'},
      {"mem", required_argument, NULL, 'm'},
      {"trace", no_argument, NULL, 't'},
      {"limit", required_argument, NULL, 'l'},
      {"stats", no_argument, NULL, 's'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  m68k_run_options_t opt = {.model = M68K_MODEL_68030};
  bool stats = false;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
    switch (ch) {
    case 'c':
      if (!parse_model(optarg, &opt.model))
        return usage_error("run: unknown CPU '%s' (use 68000 or 68030)", optarg);
      break;
    case 'm':
      if (!parse_size(optarg, &opt.ram_size))
        return usage_error("run: bad memory size '%s' (e.g. 64M, at least 64K)", optarg);
      break;
    case 't': opt.trace = stderr; break;
    case 'l':
      if (!parse_count(optarg, &opt.limit))
        return usage_error("run: bad instruction limit '%s'", optarg);
      break;
    case 's': stats = true; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default:
      return usage_error("run: unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return usage_error("run: no program given");
  char msg[768];
  m68k_machine_result_t res;
  fflush(stdout);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = m68k_linux_run(argv[optind], argc - optind, argv + optind, environ, &opt, &res, msg,
                          sizeof msg);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc != M68K_OK) {
    fprintf(stderr, "quamachine: %s\n", msg);
    return EXIT_NOEXEC;
  }
  if (stats) {
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    fprintf(stderr, "quamachine: %" PRIu64 " instructions in %.3f s (%.2f MIPS)\n", res.clock, secs,
            secs > 0 ? (double)res.clock / secs / 1e6 : 0.0);
  }
  return report(&res, msg, false);
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
  uint64_t limit = 0;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
    switch (ch) {
    case 'c':
      if (!parse_model(optarg, &cfg.model))
        return usage_error("smp: unknown CPU '%s' (use 68000 or 68030)", optarg);
      break;
    case 'n':
      if (strcmp(optarg, "1") != 0 && strcmp(optarg, "2") != 0)
        return usage_error("smp: --cpus takes 1 or 2, not '%s'", optarg);
      cfg.ncpus = (unsigned)atoi(optarg);
      break;
    case 'm':
      if (!parse_size(optarg, &cfg.ram_size))
        return usage_error("smp: bad memory size '%s' (e.g. 16M, at least 64K)", optarg);
      break;
    case 's':
      replay = inline_slices = NULL;
      if (strncmp(optarg, "replay:", 7) == 0 && optarg[7] != '\0') {
        replay = optarg + 7;
      } else if (m68k_schedule_parse(optarg, &sched) != M68K_OK) {
        return usage_error("smp: bad schedule '%s' (quantum:N, random:SEED[:MAX], replay:FILE "
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
      if (!parse_count(optarg, &limit))
        return usage_error("smp: bad instruction limit '%s'", optarg);
      break;
    case 't': trace = true; break;
    case 'v': verbose = true; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default:
      return usage_error("smp: unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (optind != argc - 1)
    return usage_error("smp: give exactly one image");
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
        return usage_error("sst: unknown CPU '%s' (use 68000 or 68030)", optarg);
      break;
    case 'v': verbose = true; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default:
      return usage_error("sst: unknown option or missing argument in '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return usage_error("sst: no test file or folder given");
  unsigned passed = 0, total = 0, upassed = 0, utotal = 0;
  int status = 0;
  for (int i = optind; i < argc; i++) {
    char **files = NULL;
    size_t nfiles = 0;
    if (list_tests(argv[i], &files, &nfiles) != 0) {
      fprintf(stderr, "quamachine: sst: %s: %s\n", argv[i], strerror(errno));
      status = 1;
      continue;
    }
    for (size_t k = 0; k < nfiles; k++) {
      unsigned p = 0, t = 0;
      int rc = m68k_sst_run_file(files[k], model, verbose, stdout, &p, &t);
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
      free(files[k]);
    }
    free(files);
  }
  if (utotal != 0)
    printf("SST unverified-upstream (TAS, TRAPV) %u/%u\n", upassed, utotal);
  printf("SST total %u/%u\n", passed, total);
  return status != 0 || passed != total ? 1 : 0;
}

#ifdef QUAMACHINE_QUAJECT
int quamachine_quaject(int argc, char **argv); /* quamachine-quaject.c */
#endif

int main(int argc, char **argv) {
  if (argc < 2)
    return usage_error("no command given");
  const char *cmd = argv[1];
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (strcmp(cmd, "run") == 0)
    return cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "smp") == 0 || strcmp(cmd, "run2") == 0)
    return cmd_smp(argc - 1, argv + 1);
  if (strcmp(cmd, "sst") == 0)
    return cmd_sst(argc - 1, argv + 1);
#ifdef QUAMACHINE_QUAJECT
  if (strcmp(cmd, "quaject") == 0)
    return quamachine_quaject(argc - 1, argv + 1);
  if (strcmp(cmd, "explore") == 0)
    return m68k_explore_main(argc - 1, argv + 1);
#else
  if (strcmp(cmd, "quaject") == 0 || strcmp(cmd, "explore") == 0) {
    fprintf(stderr, "quamachine: %s needs the m68k quaject backend, not built here (no "
                    "m68k-linux-gnu-gcc or libelf)\n",
            cmd);
    return EXIT_FAULT;
  }
#endif
  return usage_error("unknown command '%s' (run, sst, smp, quaject, explore or help)", cmd);
}
