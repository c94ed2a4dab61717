/* bench-m68k.c -- quamachine against qemu-m68k on a compiled integer workload (fib and a sieve).
 *
 * Arguments: QUAMACHINE QEMU_M68K BENCH_PROG [ROUNDS]. Runs the program
 * five times under each, alternating, and prints the medians:
 *   BENCH quamachine_mips <v> MIPS      instructions / quamachine's time
 *   BENCH qemu_m68k_s <v> s
 *   BENCH quamachine_s <v> s
 *   BENCH quamachine_vs_qemu <x> x      qemu's time / quamachine's time
 * Both runs must print the same output; times are wall-clock of the whole
 * process (start-up included, as for a user).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qbench.h"

#define RUNS 5
#define DEFAULT_ROUNDS "60" /* about 190M instructions: 1-2 s under quamachine */

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

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: bench-m68k QUAMACHINE QEMU_M68K BENCH_PROG [ROUNDS]\n");
    return 2;
  }
  char *rounds = argc > 4 ? argv[4] : DEFAULT_ROUNDS;
  char *qa[] = {argv[1], "run", "--stats", argv[3], rounds, NULL};
  char *qe[] = {argv[2], "-cpu", "m68030", argv[3], rounds, NULL};
  double tq[RUNS], te[RUNS], mips[RUNS];
  static char out_q[4096], out_e[4096], err_q[4096], err_e[4096];
  for (int i = 0; i < RUNS; i++) {
    int sq, se;
    te[i] = run(qe, out_e, sizeof out_e, err_e, sizeof err_e, &se);
    tq[i] = run(qa, out_q, sizeof out_q, err_q, sizeof err_q, &sq);
    unsigned long long insns = 0;
    const char *p = strstr(err_q, "quamachine: ");
    if (sq != 0 || se != 0 || strcmp(out_q, out_e) != 0 || p == NULL ||
        sscanf(p, "quamachine: %llu instructions", &insns) != 1) {
      fprintf(stderr,
              "bench-m68k: the runs disagree or failed (quamachine %d, qemu %d)\n"
              "quamachine: %s%s\nqemu-m68k: %s%s\n",
              sq, se, out_q, err_q, out_e, err_e);
      return 1;
    }
    mips[i] = (double)insns / tq[i] / 1e6;
  }
  double mq = qbench_median(tq, RUNS), me = qbench_median(te, RUNS);
  printf("BENCH quamachine_mips %.1f MIPS\n", qbench_median(mips, RUNS));
  printf("BENCH qemu_m68k_s %.4f s\n", me);
  printf("BENCH quamachine_s %.4f s\n", mq);
  printf("BENCH quamachine_vs_qemu %.3f x\n", me / mq);
  return 0;
}
