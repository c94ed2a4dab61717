/* bench-m68k.c -- quamachine against qemu-m68k on a compiled integer workload (fib and a sieve), by the slope between two sizes.
 *
 * Arguments: QUAMACHINE QEMU_M68K BENCH_PROG. The program repeats its work
 * ROUNDS times (its argument). Each emulator runs it at two sizes, and the
 * time of one round is the slope, (t(big) - t(small)) / (big - small): the
 * start-up (loading, qemu's first translations) is in both runs and
 * cancels. The sizes differ between the emulators so that every qemu run
 * takes at least 2 s and the quamachine runs stay short: qemu runs a
 * calibrated size (about QEMU_SMALL_S seconds, from a first run of
 * QEMU_PROBE rounds) and twice that, quamachine QUAM_SMALL and QUAM_BIG.
 * The four runs alternate, RUNS times; each slope is taken between the
 * medians of its two sizes' times:
 *   BENCH qemu_m68k_round_ms <v> ms     qemu-m68k's slope
 *   BENCH quamachine_round_ms <v> ms    quamachine's slope
 *   BENCH quamachine_mips <v> MIPS      instructions per round / quamachine's slope
 *   BENCH qemu_m68k_min_run_s <v> s     qemu's shortest run (>= 2 s, else exit 1)
 *   BENCH quamachine_vs_qemu <x> x      qemu's slope / quamachine's slope (goal >= 0.1)
 * (the interpreter: --jit=off) and the same sizes with the translator
 * (quamachine run --jit=on), in the
 * same alternation, its counts checked against the interpreter's exactly:
 *   BENCH quamachine_jit_round_ms <v> ms
 *   BENCH quamachine_jit_vs_qemu <x> x     qemu's slope / the translated slope (goal >= 1)
 *   BENCH quamachine_jit_vs_interp <x> x   the interpreted slope / the translated one
 *   BENCH quamachine_translate_ns_per_insn <v> ns  translation time per instruction
 *                                         translated (--stats, median of the big runs)
 * Checks: every run prints the program's expected line. Instructions: qemu
 * is traced one instruction per block (-singlestep -d exec,nochain) at 0
 * and 1 rounds, and quamachine (--stats) must execute exactly as many more
 * for the one round; between its two timed sizes quamachine's count must
 * grow by that number per round within 0.01% (printing a longer number
 * costs a few instructions more). A disagreement exits 1.
 *
 * With a fourth argument FPU_PROG (progs/fpubench.c: 200000 double
 * multiplies and adds per round) the same slope method, FPU_RUNS runs of
 * FPU_SMALL and FPU_BIG rounds on both emulators, gives the FPU figures:
 *   BENCH quamachine_fpu_mflops <v> MFLOPS
 *   BENCH qemu_m68k_fpu_mflops <v> MFLOPS
 *   BENCH quamachine_fpu_vs_qemu <x> x  quamachine's MFLOPS / qemu's
 *   BENCH quamachine_jit_fpu_vs_qemu <x> x  the same with --jit=on
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qbench.h"

#define RUNS 5
#define QEMU_PROBE 1000
#define QEMU_SMALL_S 3.0
#define QUAM_SMALL 20
#define QUAM_BIG 100
#define FPU_RUNS 5
#define FPU_SMALL 10
#define FPU_BIG 50

/* Runs argv; stdout and stderr into the given buffers. Returns the time. */
static double run(char *const argv[], char *out, size_t outlen, char *err, size_t errlen,
                  int *status) {
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
  while ((n = read(po[0], out + no, outlen - 1 - no)) > 0)
    no += (size_t)n;
  while ((n = read(pe[0], err + ne, errlen - 1 - ne)) > 0)
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
static long long qemu_count(const char *qemu, const char *prog, const char *rounds) {
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

/* One run of argv (whose last argument is `rounds`); checks the program's line and, for
 * quamachine, reads its instruction count into *insns. Returns the time; exits on failure. */
static char out[4096], err[4096]; /* the last timed run's output */

static double timed(char **argv, int rounds, bool quam, unsigned long long *insns) {
  char want[64];
  int st;
  double t = run(argv, out, sizeof out, err, sizeof err, &st);
  snprintf(want, sizeof want, "rounds %d check %lu\n", rounds, (unsigned long)rounds * 55960ul);
  const char *p = quam ? strstr(err, "quamachine: ") : NULL;
  if (st != 0 || strcmp(out, want) != 0 ||
      (quam && (p == NULL || sscanf(p, "quamachine: %llu instructions", insns) != 1))) {
    fprintf(stderr, "bench-m68k: %s at %d rounds failed (status %d)\nout: %s\nerr: %s\n",
            argv[0], rounds, st, out, err);
    exit(1);
  }
  return t;
}

/* The translation time per instruction translated that the last timed run's
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

/* One run of the FPU workload; checks its line. Returns the time; exits on failure. */
static double fpu_timed(char **argv, int rounds) {
  int st, r = -1;
  long flops = 0;
  double t = run(argv, out, sizeof out, err, sizeof err, &st);
  if (st != 0 || sscanf(out, "rounds %d flops %ld", &r, &flops) != 2 || r != rounds ||
      flops != 200000L * rounds) {
    fprintf(stderr, "bench-m68k: %s at %d rounds failed (status %d)\nout: %s\nerr: %s\n",
            argv[0], rounds, st, out, err);
    exit(1);
  }
  return t;
}

/* The FPU figures (the header comment). */
static void fpu_bench(char *quam, char *qemu, char *prog) {
  char small[16], big[16];
  snprintf(small, sizeof small, "%d", FPU_SMALL);
  snprintf(big, sizeof big, "%d", FPU_BIG);
  char *e_small[] = {qemu, "-cpu", "m68030", prog, small, NULL};
  char *e_big[] = {qemu, "-cpu", "m68030", prog, big, NULL};
  char *m_small[] = {quam, "run", "--jit=off", prog, small, NULL};
  char *m_big[] = {quam, "run", "--jit=off", prog, big, NULL};
  char *j_small[] = {quam, "run", "--jit=on", prog, small, NULL};
  char *j_big[] = {quam, "run", "--jit=on", prog, big, NULL};
  double es[FPU_RUNS], eb[FPU_RUNS], ms[FPU_RUNS], mb[FPU_RUNS], js[FPU_RUNS], jb[FPU_RUNS];
  for (int i = 0; i < FPU_RUNS; i++) {
    es[i] = fpu_timed(e_small, FPU_SMALL);
    ms[i] = fpu_timed(m_small, FPU_SMALL);
    js[i] = fpu_timed(j_small, FPU_SMALL);
    eb[i] = fpu_timed(e_big, FPU_BIG);
    mb[i] = fpu_timed(m_big, FPU_BIG);
    jb[i] = fpu_timed(j_big, FPU_BIG);
  }
  double rounds = FPU_BIG - FPU_SMALL;
  double qemu_round = (qbench_median(eb, FPU_RUNS) - qbench_median(es, FPU_RUNS)) / rounds;
  double quam_round = (qbench_median(mb, FPU_RUNS) - qbench_median(ms, FPU_RUNS)) / rounds;
  double jit_round = (qbench_median(jb, FPU_RUNS) - qbench_median(js, FPU_RUNS)) / rounds;
  printf("BENCH quamachine_fpu_mflops %.1f MFLOPS\n", 200000.0 / quam_round / 1e6);
  printf("BENCH qemu_m68k_fpu_mflops %.1f MFLOPS\n", 200000.0 / qemu_round / 1e6);
  printf("BENCH quamachine_fpu_vs_qemu %.3f x\n", qemu_round / quam_round);
  printf("BENCH quamachine_jit_fpu_vs_qemu %.3f x\n", qemu_round / jit_round);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: bench-m68k QUAMACHINE QEMU_M68K BENCH_PROG\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc > 4)
    fpu_bench(argv[1], argv[2], argv[4]);
  /* Instructions per round, from qemu's own trace. */
  long long q0 = qemu_count(argv[2], argv[3], "0"), q1 = qemu_count(argv[2], argv[3], "1");
  if (q0 < 0 || q1 < 0) {
    fprintf(stderr, "bench-m68k: no instruction trace from %s (-singlestep -d exec)\n", argv[2]);
    return 1;
  }
  long long per_round = q1 - q0;
  {
    char *m0[] = {argv[1], "run", "--jit=off", "--stats", argv[3], "0", NULL};
    char *m1[] = {argv[1], "run", "--jit=off", "--stats", argv[3], "1", NULL};
    unsigned long long i0 = 0, i1 = 0;
    timed(m0, 0, true, &i0);
    timed(m1, 1, true, &i1);
    if ((long long)(i1 - i0) != per_round) {
      fprintf(stderr, "bench-m68k: one round is %llu instructions on quamachine, %lld on qemu\n",
              i1 - i0, per_round);
      return 1;
    }
  }
  printf("BENCH m68k_bench_insns_per_round %lld insns\n", per_round);

  /* qemu's sizes: the small run about QEMU_SMALL_S seconds, start-up included. */
  char qs[16], qb[16], ms[16], mb[16];
  snprintf(qs, sizeof qs, "%d", QEMU_PROBE);
  char *probe[] = {argv[2], "-cpu", "m68030", argv[3], qs, NULL};
  double tp = timed(probe, QEMU_PROBE, false, NULL);
  int qemu_small = (int)(QEMU_PROBE * QEMU_SMALL_S / tp) + 1;
  qemu_small = qemu_small < QEMU_PROBE ? QEMU_PROBE : qemu_small;
  int qemu_big = 2 * qemu_small;
  snprintf(qs, sizeof qs, "%d", qemu_small);
  snprintf(qb, sizeof qb, "%d", qemu_big);
  snprintf(ms, sizeof ms, "%d", QUAM_SMALL);
  snprintf(mb, sizeof mb, "%d", QUAM_BIG);
  char *e_small[] = {argv[2], "-cpu", "m68030", argv[3], qs, NULL};
  char *e_big[] = {argv[2], "-cpu", "m68030", argv[3], qb, NULL};
  char *m_small[] = {argv[1], "run", "--jit=off", "--stats", argv[3], ms, NULL};
  char *m_big[] = {argv[1], "run", "--jit=off", "--stats", argv[3], mb, NULL};
  char *j_small[] = {argv[1], "run", "--jit=on", "--stats", argv[3], ms, NULL};
  char *j_big[] = {argv[1], "run", "--jit=on", "--stats", argv[3], mb, NULL};
  double es[RUNS], eb[RUNS], qs_t[RUNS], qb_t[RUNS], js_t[RUNS], jb_t[RUNS], tr_ns[RUNS];
  double shortest = 1e9;
  for (int i = 0; i < RUNS; i++) {
    unsigned long long i_small = 0, i_big = 0, j_small_n = 0, j_big_n = 0;
    double te0 = timed(e_small, qemu_small, false, NULL);
    double tq0 = timed(m_small, QUAM_SMALL, true, &i_small);
    js_t[i] = timed(j_small, QUAM_SMALL, true, &j_small_n);
    double te1 = timed(e_big, qemu_big, false, NULL);
    double tq1 = timed(m_big, QUAM_BIG, true, &i_big);
    jb_t[i] = timed(j_big, QUAM_BIG, true, &j_big_n);
    tr_ns[i] = translate_ns_per_insn();
    if (j_small_n != i_small || j_big_n != i_big) {
      fprintf(stderr, "bench-m68k: --jit=on ran %llu and %llu instructions, the interpreter %llu "
              "and %llu\n", j_small_n, j_big_n, i_small, i_big);
      return 1;
    }
    shortest = te0 < shortest ? te0 : shortest;
    double want = (double)per_round * (QUAM_BIG - QUAM_SMALL);
    if (((double)(i_big - i_small) - want) / want > 1e-4 ||
        (want - (double)(i_big - i_small)) / want > 1e-4) {
      fprintf(stderr, "bench-m68k: quamachine counts %llu instructions for %d rounds, qemu %.0f\n",
              i_big - i_small, QUAM_BIG - QUAM_SMALL, want);
      return 1;
    }
    es[i] = te0;
    eb[i] = te1;
    qs_t[i] = tq0;
    qb_t[i] = tq1;
  }
  /* The slope between the median times of the two sizes: a load spike in one run moves
   * one median a little instead of making that run's own slope absurd. */
  double me = (qbench_median(eb, RUNS) - qbench_median(es, RUNS)) / (qemu_big - qemu_small);
  double mq = (qbench_median(qb_t, RUNS) - qbench_median(qs_t, RUNS)) / (QUAM_BIG - QUAM_SMALL);
  printf("BENCH qemu_m68k_round_ms %.3f ms\n", me * 1e3);
  printf("# qemu-m68k %d rounds %.2f..%.2f s, %d rounds %.2f..%.2f s (%d runs)\n", qemu_small,
         es[0], es[RUNS - 1], qemu_big, eb[0], eb[RUNS - 1], RUNS);
  printf("BENCH quamachine_round_ms %.3f ms\n", mq * 1e3);
  printf("# quamachine %d rounds %.2f..%.2f s, %d rounds %.2f..%.2f s (%d runs)\n", QUAM_SMALL,
         qs_t[0], qs_t[RUNS - 1], QUAM_BIG, qb_t[0], qb_t[RUNS - 1], RUNS);
  printf("BENCH quamachine_mips %.1f MIPS\n", (double)per_round / mq / 1e6);
  double mj = (qbench_median(jb_t, RUNS) - qbench_median(js_t, RUNS)) / (QUAM_BIG - QUAM_SMALL);
  printf("BENCH quamachine_jit_round_ms %.3f ms\n", mj * 1e3);
  printf("BENCH quamachine_jit_vs_interp %.3f x\n", mq / mj);
  printf("BENCH quamachine_translate_ns_per_insn %.0f ns\n", qbench_median(tr_ns, RUNS));
  printf("BENCH qemu_m68k_min_run_s %.2f s\n", shortest);
  if (shortest < 2.0) {
    fprintf(stderr, "bench-m68k: a qemu run took %.2f s, under the 2 s asked for\n", shortest);
    return 1;
  }
  printf("BENCH quamachine_vs_qemu %.3f x\n", me / mq);
  printf("BENCH quamachine_jit_vs_qemu %.3f x\n", me / mj);
  return 0;
}
