/* bench-m68k.c -- quamachine, interpreted and translated, against qemu-m68k on several compiled programs, by the slope between two sizes.
 *
 * Arguments: QUAMACHINE QEMU_M68K PROG... Each PROG is an m68k program
 * built from tests/m68k/progs, named for its workload: bench (integer: fib
 * and a sieve), membench (memory-bound: pointer chasing, a copy and a hash
 * over 1.5 MiB), branchbench (branchy: a bytecode interpreter, a quicksort,
 * a tokenizer), fpubench (the FPU: double dot products). Beside each lies
 * PROG-host, the same source built for this machine. A program repeats its
 * work ROUNDS times (its argument) and prints one line.
 *
 * Method. Each emulator runs a program at two sizes, and the time of one
 * round is the slope, (t(big) - t(small)) / (big - small): the start-up
 * (loading, qemu's first translations) is in both runs and cancels. The
 * sizes differ between the emulators so that every qemu run takes at least
 * 2 s: qemu runs a calibrated size (about QEMU_SMALL_S seconds, from a
 * probe of at least QEMU_PROBE_S, resized by the first timed run if that
 * ran short) and twice that; the translator, which is compared with it,
 * the same way (about QEMU_SMALL_S seconds, from a probe at JIT_FACTOR
 * times the interpreter's big size, resized by the first timed run if that
 * ran short, and twice that); the interpreter about
 * QUAM_SMALL_INSNS instructions (an eighth for fpubench) and QUAM_FACTOR
 * times as many (bench: 10 and 50 rounds, fpubench 8 and 40). The
 * translated runs last as long as qemu's so that both average the
 * machine's noise alike: on a shared machine a slow spell of a few hundred
 * milliseconds lands whole in a run of half a second and is taken for the
 * translator's speed, and is a tenth of that in one of 5 s. For RUNS runs the
 * programs take turns, each running its six cases in a row (qemu, the
 * interpreter --jit=off and the translator --jit=on, small then big); each
 * slope is taken between the medians of its two sizes' times. RUNS is 5:
 * on a shared machine whose slow spells stretch single runs by half, one
 * spell over two of three runs moved a median of three, and with it a
 * program's ratio by half. With four programs' qemu and translated runs
 * of 2.6 and 5.2 s the whole benchmark takes about seven minutes, half a
 * minute of it counting and calibrating (qemu's traces, the probes).
 *
 * Checks (a failure exits 1). Every run's output must be the host build's
 * at the same size: a wrong result is not a benchmark. Instructions: qemu
 * is traced one instruction per block (-singlestep -d exec,nochain) at 0
 * and 1 rounds (fpubench: 1 and 2), and quamachine (--stats) must execute
 * exactly as many more for the one round; between its two timed sizes
 * quamachine's count must grow by that number per round within 0.01%
 * (printing a longer number costs a few instructions more), and the
 * translated runs must count exactly what the interpreted ones do at the
 * interpreted runs' sizes (run once more, untimed). qemu's shortest run must be 2 s:
 * a program whose qemu run came in shorter (the machine grew quieter after
 * calibrating) has its qemu runs taken again at a size scaled up by the
 * shortfall, at most twice, before the benchmark gives up.
 *
 * Figures, per program P (int, mem, branch, fpu):
 *   BENCH m68k_insns_per_round_P <n> insns
 *   BENCH qemu_m68k_round_ms_P, quamachine_round_ms_P, quamachine_jit_round_ms_P <v> ms
 *   BENCH quamachine_vs_qemu_P <x> x       qemu's slope / the interpreted one
 *   BENCH quamachine_jit_vs_qemu_P <x> x   qemu's slope / the translated one
 *   BENCH quamachine_jit_vs_interp_P <x> x the interpreted slope / the translated one
 * and over the programs given:
 *   BENCH quamachine_vs_qemu <x> x         geometric mean of quamachine_vs_qemu_P (goal >= 0.1)
 *   BENCH quamachine_jit_vs_qemu <x> x     geometric mean of quamachine_jit_vs_qemu_P (goal >= 1)
 *   BENCH quamachine_jit_vs_interp <x> x   geometric mean of quamachine_jit_vs_interp_P
 *   BENCH quamachine_translate_ns_per_insn <v> ns  translation time per instruction
 *                                         translated (--stats, median of every big translated run)
 *   BENCH qemu_m68k_min_run_s <v> s        qemu's shortest run
 * The translator covers the FPU program (its FPU instructions call their
 * interpreter handlers from translated code), so it is in the means. The
 * integer program's figures also print under their older names
 * (m68k_bench_insns_per_round, qemu_m68k_round_ms, quamachine_round_ms,
 * quamachine_jit_round_ms, quamachine_mips), the FPU program's as
 *   BENCH quamachine_fpu_mflops, qemu_m68k_fpu_mflops <v> MFLOPS
 *   BENCH quamachine_fpu_vs_qemu, quamachine_jit_fpu_vs_qemu <x> x
 */
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qbench.h"

#define RUNS 5
#define QEMU_SMALL_S 2.6        /* qemu's small run aimed at, start-up included */
#define QEMU_PROBE_S 1.0        /* the calibrating probe runs at least this long */
#define QEMU_PROBE_INSNS 1e8    /* the probe's first size, in instructions */
#define QUAM_SMALL_INSNS 32e6   /* quamachine's small size, in instructions */
#define QUAM_FACTOR 5           /* quamachine's big size / its small size */
#define JIT_FACTOR 8            /* the translator's probe / the interpreter's big size */
#define MAX_PROGS 8
#define MAX_EXPECT 24           /* sizes whose host output is kept */
#define FPU_FLOPS_PER_ROUND 200000.0

/* The programs bench-m68k knows, by file name; the rounds after which one
 * more is counted: fpubench prints its mean per round with printf's
 * floating-point conversion, whose cost is one thing for 0 rounds and
 * another (the same at every size) for the mean of any, so its round is
 * counted from 1 to 2; and quamachine's small size in instructions: its
 * FPU instructions take about ten times an integer one's time. */
static const struct {
  const char *file, *name;
  int base;
  double quam_insns;
} workloads[] = {
    {"bench", "int", 0, QUAM_SMALL_INSNS},
    {"membench", "mem", 0, QUAM_SMALL_INSNS},
    {"branchbench", "branch", 0, QUAM_SMALL_INSNS},
    {"fpubench", "fpu", 1, QUAM_SMALL_INSNS / 8},
};

typedef struct prog {
  const char *name; /* the BENCH suffix */
  int base;         /* the round counted is base + 1 */
  double quam_insns; /* quamachine's small size, in instructions */
  char *path;       /* the m68k build */
  char host[4096];  /* the host build */
  long long per_round;
  int qemu_small, qemu_big, quam_small, quam_big, jit_small, jit_big;
  int nexpect;
  struct {
    int rounds;
    char out[256];
  } expect[MAX_EXPECT]; /* the host's output at a size */
  double es[RUNS], eb[RUNS], ms[RUNS], mb[RUNS], js[RUNS], jb[RUNS];
  double qemu_round, quam_round, jit_round; /* the slopes, seconds per round */
} prog_t;

static prog_t progs[MAX_PROGS];
static int nprogs;
static char *quam, *qemu;

static char out[4096], err[4096]; /* the last run's output */

/* Runs argv; stdout and stderr into out and err. Returns the time. */
static double run(char *const argv[], int *status) {
  int po[2], pe[2];
  if (pipe(po) != 0 || pipe(pe) != 0) {
    perror("pipe");
    exit(1);
  }
  double t0 = qbench_now();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(po[1], 1);
    dup2(pe[1], 2);
    close(po[0]);
    close(pe[0]);
    execv(argv[0], argv);
    _exit(126);
  }
  close(po[1]);
  close(pe[1]);
  size_t no = 0, ne = 0;
  ssize_t n;
  while ((n = read(po[0], out + no, sizeof out - 1 - no)) > 0)
    no += (size_t)n;
  while ((n = read(pe[0], err + ne, sizeof err - 1 - ne)) > 0)
    ne += (size_t)n;
  out[no] = err[ne] = '\0';
  int ws;
  waitpid(pid, &ws, 0);
  double t = qbench_now() - t0;
  close(po[0]);
  close(pe[0]);
  *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  return t;
}

/* Instructions qemu executes for the program at `rounds`: its trace with one instruction per
 * translation block has one "Trace" line per instruction executed. -1 on failure. */
static long long qemu_count(const char *prog, const char *rounds) {
  int po[2];
  if (pipe(po) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(po[1], 1);
    close(po[0]);
    int nul = open("/dev/null", O_WRONLY);
    dup2(nul, 2);
    execl(qemu, qemu, "-cpu", "m68030", "-singlestep", "-d", "exec,nochain", "-D", "/dev/stdout",
          prog, rounds, (char *)NULL);
    _exit(126);
  }
  close(po[1]);
  FILE *f = fdopen(po[0], "r");
  long long n = 0;
  char line[512];
  bool at_start = true;
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (at_start && strncmp(line, "Trace ", 6) == 0)
      n++;
    at_start = strchr(line, '\n') != NULL;
  }
  if (f != NULL)
    fclose(f);
  int ws;
  waitpid(pid, &ws, 0);
  return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && n > 0 ? n : -1;
}

/* What the host build prints at `rounds` (run once per size). Exits on failure. */
static const char *expected(prog_t *p, int rounds) {
  for (int i = 0; i < p->nexpect; i++)
    if (p->expect[i].rounds == rounds)
      return p->expect[i].out;
  if (p->nexpect == MAX_EXPECT) {
    fprintf(stderr, "bench-m68k: more than %d sizes of %s\n", MAX_EXPECT, p->name);
    exit(1);
  }
  char r[16];
  snprintf(r, sizeof r, "%d", rounds);
  char *argv[] = {p->host, r, NULL};
  int st;
  run(argv, &st);
  int got = -1;
  if (st != 0 || sscanf(out, "rounds %d ", &got) != 1 || got != rounds ||
      strlen(out) >= sizeof p->expect[0].out) {
    fprintf(stderr, "bench-m68k: the host build %s at %d rounds failed (status %d)\nout: %s\n",
            p->host, rounds, st, out);
    exit(1);
  }
  p->expect[p->nexpect].rounds = rounds;
  strcpy(p->expect[p->nexpect].out, out);
  return p->expect[p->nexpect++].out;
}

/* One run of p: by qemu (emu NULL) or quamachine with jit "--jit=off" or
 * "--jit=on" and --stats, at `rounds`. Checks its output against the host
 * build's and, for quamachine, reads its instruction count into *insns.
 * Returns the time; exits on failure. */
static double timed(prog_t *p, const char *jit, int rounds, unsigned long long *insns) {
  char r[16];
  snprintf(r, sizeof r, "%d", rounds);
  char *e[] = {qemu, "-cpu", "m68030", p->path, r, NULL};
  char *m[] = {quam, "run", (char *)jit, "--stats", p->path, r, NULL};
  const char *want = expected(p, rounds);
  int st;
  double t = run(jit ? m : e, &st);
  const char *q = jit ? strstr(err, "quamachine: ") : NULL;
  if (st != 0 || strcmp(out, want) != 0 ||
      (jit && (q == NULL || sscanf(q, "quamachine: %llu instructions", insns) != 1))) {
    fprintf(stderr, "bench-m68k: %s %s at %d rounds failed (status %d)\nout: %s\nthe host: %s"
            "err: %s\n", jit ? jit : "qemu-m68k", p->path, rounds, st, out, want, err);
    exit(1);
  }
  return t;
}

/* The translation time per instruction translated that the last run's
 * --stats printed (quamachine run --jit=on); exits when it is missing. */
static double translate_ns_per_insn(void) {
  unsigned long long blocks = 0, insns = 0;
  double ms = 0;
  const char *p = strstr(err, "quamachine: jit: ");
  const char *q = p ? strstr(p, "flushes, ") : NULL;
  if (p == NULL || q == NULL ||
      sscanf(p, "quamachine: jit: %llu blocks translated (%llu instructions", &blocks,
             &insns) != 2 ||
      sscanf(q, "flushes, %lf ms translating", &ms) != 1 || insns == 0) {
    fprintf(stderr, "bench-m68k: no translator counters in quamachine's --stats: %s\n", err);
    exit(1);
  }
  return ms * 1e6 / (double)insns;
}

/* Instructions per round from qemu's trace, checked against quamachine's
 * count; then the sizes (the header comment). Exits on a disagreement. */
static void calibrate(prog_t *p) {
  char r0[16], r1[16];
  snprintf(r0, sizeof r0, "%d", p->base);
  snprintf(r1, sizeof r1, "%d", p->base + 1);
  long long q0 = qemu_count(p->path, r0), q1 = qemu_count(p->path, r1);
  if (q0 < 0 || q1 < 0 || q1 <= q0) {
    fprintf(stderr, "bench-m68k: no instruction trace of %s from %s (-singlestep -d exec)\n",
            p->path, qemu);
    exit(1);
  }
  p->per_round = q1 - q0;
  unsigned long long i0 = 0, i1 = 0;
  timed(p, "--jit=off", p->base, &i0);
  timed(p, "--jit=off", p->base + 1, &i1);
  if ((long long)(i1 - i0) != p->per_round) {
    fprintf(stderr, "bench-m68k: one round of %s is %llu instructions on quamachine, %lld on "
            "qemu\n", p->path, i1 - i0, p->per_round);
    exit(1);
  }
  printf("BENCH m68k_insns_per_round_%s %lld insns\n", p->name, p->per_round);
  /* qemu: probes growing to at least QEMU_PROBE_S (qemu runs FPU code
   * about fifty times slower than integer code), then the small size aimed
   * at QEMU_SMALL_S (the probe's start-up counts as work: it errs long). */
  int probe = (int)(QEMU_PROBE_INSNS / (double)p->per_round) + 1;
  double tp = timed(p, NULL, probe, NULL);
  for (int i = 0; i < 6 && tp < QEMU_PROBE_S; i++) {
    probe *= tp < QEMU_PROBE_S / 4 ? 4 : 2;
    tp = timed(p, NULL, probe, NULL);
  }
  p->qemu_small = (int)(probe * QEMU_SMALL_S / tp) + 1;
  p->qemu_big = 2 * p->qemu_small;
  p->quam_small = (int)(p->quam_insns / (double)p->per_round + 0.5);
  p->quam_small = p->quam_small < 2 ? 2 : p->quam_small;
  p->quam_big = QUAM_FACTOR * p->quam_small;
  /* The translator as qemu (the header comment): its probe's start-up
   * counts as work, so the runs err short of QEMU_SMALL_S. */
  unsigned long long probe_insns = 0;
  int jprobe = JIT_FACTOR * p->quam_big;
  double tj = timed(p, "--jit=on", jprobe, &probe_insns);
  p->jit_small = (int)(jprobe * QEMU_SMALL_S / tj) + 1;
  p->jit_small = p->jit_small < jprobe ? jprobe : p->jit_small;
  p->jit_big = 2 * p->jit_small;
}

static double tr_ns[MAX_PROGS * RUNS];
static int ntr;
static double shortest = 1e9;

/* quamachine's count between two sizes `rounds` apart must grow by qemu's
 * instructions per round (within 0.01%: the header comment). */
static void counts_per_round(const prog_t *p, const char *jit, unsigned long long small,
                             unsigned long long big, int rounds) {
  double want = (double)p->per_round * rounds;
  if (fabs((double)(big - small) - want) / want > 1e-4) {
    fprintf(stderr, "bench-m68k: quamachine %s counts %llu instructions for %d rounds of %s, "
            "qemu %.0f\n", jit, big - small, rounds, p->path, want);
    exit(1);
  }
}

/* A load spike during a probe makes the sizes too small (once translated
 * runs of 1.3 s instead of 2.6): before any time is kept, the first run of
 * qemu (jit NULL) or the translator sizes it again from its own time t,
 * which it returns, retaken. */
static double resized(prog_t *p, const char *jit, int *small, int *big, double t,
                      unsigned long long *insns) {
  for (int k = 0; k < 3 && t < QEMU_SMALL_S * 0.85; k++) {
    *small = (int)(*small * QEMU_SMALL_S / t) + 1;
    *big = 2 * *small;
    t = timed(p, jit, *small, insns);
  }
  return t;
}

/* Run i of p's six cases. */
static void measure(prog_t *p, int i) {
  unsigned long long i_small = 0, i_big = 0, j_small = 0, j_big = 0;
  p->es[i] = timed(p, NULL, p->qemu_small, NULL);
  if (i == 0)
    p->es[0] = resized(p, NULL, &p->qemu_small, &p->qemu_big, p->es[0], NULL);
  p->ms[i] = timed(p, "--jit=off", p->quam_small, &i_small);
  p->js[i] = timed(p, "--jit=on", p->jit_small, &j_small);
  if (i == 0)
    p->js[0] = resized(p, "--jit=on", &p->jit_small, &p->jit_big, p->js[0], &j_small);
  p->eb[i] = timed(p, NULL, p->qemu_big, NULL);
  p->mb[i] = timed(p, "--jit=off", p->quam_big, &i_big);
  p->jb[i] = timed(p, "--jit=on", p->jit_big, &j_big);
  tr_ns[ntr++] = translate_ns_per_insn();
  counts_per_round(p, "--jit=off", i_small, i_big, p->quam_big - p->quam_small);
  counts_per_round(p, "--jit=on", j_small, j_big, p->jit_big - p->jit_small);
  if (i == 0) {
    /* The translated runs count exactly what the interpreted ones do, at
     * the interpreted runs' sizes (untimed). */
    unsigned long long a = 0, b = 0;
    timed(p, "--jit=on", p->quam_small, &a);
    timed(p, "--jit=on", p->quam_big, &b);
    if (a != i_small || b != i_big) {
      fprintf(stderr, "bench-m68k: %s: --jit=on ran %llu and %llu instructions, the "
              "interpreter %llu and %llu\n", p->path, a, b, i_small, i_big);
      exit(1);
    }
  }
}

static double least(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

/* A qemu run under 2 s: the machine grew quieter after the sizes were set
 * (a load spike in the probe and the first run both). Then the program's
 * qemu sizes grow by what was missing and all its qemu runs are taken again,
 * at most twice; the quamachine runs keep their sizes. */
static void retake_short_qemu_runs(prog_t *p) {
  for (int k = 0; k < 2 && least(p->es, RUNS) < 2.0; k++) {
    printf("# %s: a qemu run took %.2f s; its runs are taken again, longer\n", p->name,
           least(p->es, RUNS));
    p->qemu_small = (int)(p->qemu_small * QEMU_SMALL_S / least(p->es, RUNS)) + 1;
    p->qemu_big = 2 * p->qemu_small;
    for (int i = 0; i < RUNS; i++) {
      p->es[i] = timed(p, NULL, p->qemu_small, NULL);
      p->eb[i] = timed(p, NULL, p->qemu_big, NULL);
    }
  }
  double m = least(p->es, RUNS);
  shortest = m < shortest ? m : shortest;
}

/* The slope between the median times of the two sizes: a load spike in one run moves one
 * median a little instead of making that run's own slope absurd. Prints the spread. */
static double slope(const char *what, double *small, double *big, int n_small, int n_big) {
  double s = (qbench_median(big, RUNS) - qbench_median(small, RUNS)) / (n_big - n_small);
  printf("# %s %d rounds %.2f..%.2f s, %d rounds %.2f..%.2f s (%d runs)\n", what, n_small,
         small[0], small[RUNS - 1], n_big, big[0], big[RUNS - 1], RUNS);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc - 3 > MAX_PROGS) {
    fprintf(stderr, "usage: bench-m68k QUAMACHINE QEMU_M68K PROG... (at most %d)\n", MAX_PROGS);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  quam = argv[1];
  qemu = argv[2];
  for (int a = 3; a < argc; a++) {
    prog_t *p = &progs[nprogs++];
    const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++)
      if (strcmp(base, workloads[w].file) == 0) {
        p->name = workloads[w].name;
        p->base = workloads[w].base;
        p->quam_insns = workloads[w].quam_insns;
      }
    snprintf(p->host, sizeof p->host, "%s-host", argv[a]);
    p->path = argv[a];
    if (p->name == NULL || access(p->path, R_OK) != 0 || access(p->host, X_OK) != 0) {
      fprintf(stderr, "bench-m68k: %s is not one of bench, membench, branchbench, fpubench "
              "with its -host build beside it\n", argv[a]);
      return 2;
    }
  }
  double t0 = qbench_now();
  for (int k = 0; k < nprogs; k++)
    calibrate(&progs[k]);
  double t1 = qbench_now();
  for (int i = 0; i < RUNS; i++)
    for (int k = 0; k < nprogs; k++)
      measure(&progs[k], i);
  for (int k = 0; k < nprogs; k++)
    retake_short_qemu_runs(&progs[k]);
  printf("# counting and calibrating %.0f s, the timed runs %.0f s\n", t1 - t0, qbench_now() - t1);

  /* The figures that do not depend on qemu first. */
  double log_interp = 0, log_jit = 0, log_jit_interp = 0;
  for (int k = 0; k < nprogs; k++) {
    prog_t *p = &progs[k];
    char what[64];
    snprintf(what, sizeof what, "%s: qemu-m68k", p->name);
    p->qemu_round = slope(what, p->es, p->eb, p->qemu_small, p->qemu_big);
    snprintf(what, sizeof what, "%s: quamachine --jit=off", p->name);
    p->quam_round = slope(what, p->ms, p->mb, p->quam_small, p->quam_big);
    snprintf(what, sizeof what, "%s: quamachine --jit=on", p->name);
    p->jit_round = slope(what, p->js, p->jb, p->jit_small, p->jit_big);
    if (p->qemu_round <= 0 || p->quam_round <= 0 || p->jit_round <= 0) {
      fprintf(stderr, "bench-m68k: %s: a slope is not positive (qemu %g, quamachine %g and "
              "%g s per round): the machine is too busy to measure\n", p->name, p->qemu_round,
              p->quam_round, p->jit_round);
      return 1;
    }
    printf("BENCH qemu_m68k_round_ms_%s %.3f ms\n", p->name, p->qemu_round * 1e3);
    printf("BENCH quamachine_round_ms_%s %.3f ms\n", p->name, p->quam_round * 1e3);
    printf("BENCH quamachine_jit_round_ms_%s %.3f ms\n", p->name, p->jit_round * 1e3);
    printf("BENCH quamachine_jit_vs_interp_%s %.3f x\n", p->name, p->quam_round / p->jit_round);
    log_interp += log(p->qemu_round / p->quam_round);
    log_jit += log(p->qemu_round / p->jit_round);
    log_jit_interp += log(p->quam_round / p->jit_round);
    if (strcmp(p->name, "int") == 0) {
      printf("BENCH m68k_bench_insns_per_round %lld insns\n", p->per_round);
      printf("BENCH qemu_m68k_round_ms %.3f ms\n", p->qemu_round * 1e3);
      printf("BENCH quamachine_round_ms %.3f ms\n", p->quam_round * 1e3);
      printf("BENCH quamachine_jit_round_ms %.3f ms\n", p->jit_round * 1e3);
      printf("BENCH quamachine_mips %.1f MIPS\n", (double)p->per_round / p->quam_round / 1e6);
    }
    if (strcmp(p->name, "fpu") == 0) {
      printf("BENCH quamachine_fpu_mflops %.1f MFLOPS\n", FPU_FLOPS_PER_ROUND / p->quam_round / 1e6);
      printf("BENCH qemu_m68k_fpu_mflops %.1f MFLOPS\n", FPU_FLOPS_PER_ROUND / p->qemu_round / 1e6);
    }
  }
  printf("BENCH quamachine_jit_vs_interp %.3f x\n", exp(log_jit_interp / nprogs));
  printf("BENCH quamachine_translate_ns_per_insn %.0f ns\n", qbench_median(tr_ns, ntr));
  printf("BENCH qemu_m68k_min_run_s %.2f s\n", shortest);
  if (shortest < 2.0) {
    fprintf(stderr, "bench-m68k: a qemu run took %.2f s, under the 2 s asked for\n", shortest);
    return 1;
  }
  for (int k = 0; k < nprogs; k++) {
    prog_t *p = &progs[k];
    printf("BENCH quamachine_vs_qemu_%s %.3f x\n", p->name, p->qemu_round / p->quam_round);
    printf("BENCH quamachine_jit_vs_qemu_%s %.3f x\n", p->name, p->qemu_round / p->jit_round);
    if (strcmp(p->name, "fpu") == 0) {
      printf("BENCH quamachine_fpu_vs_qemu %.3f x\n", p->qemu_round / p->quam_round);
      printf("BENCH quamachine_jit_fpu_vs_qemu %.3f x\n", p->qemu_round / p->jit_round);
    }
  }
  printf("BENCH quamachine_vs_qemu %.3f x\n", exp(log_interp / nprogs));
  printf("BENCH quamachine_jit_vs_qemu %.3f x\n", exp(log_jit / nprogs));
  return 0;
}
