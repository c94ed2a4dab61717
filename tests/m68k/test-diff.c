/* test-diff.c -- compiled C programs: same stdout and exit status under quamachine, qemu-m68k and the host.
 *
 * Arguments: QUAMACHINE QEMU_M68K PROGS_DIR [--jit]. With --jit quamachine
 * translates every block it runs (--jit=on --jit-threshold=1). Each case runs one program
 * of PROGS_DIR (built from tests/m68k/progs/NAME.c) under both and
 * compares; where PROGS_DIR also holds NAME-host, the same source built
 * for this machine, quamachine must match it too, so that a fault qemu
 * shares cannot pass. Skipped (77) when the cross compiler or qemu-m68k
 * is absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qtest.h"

#define TIMEOUT_S 120
#define OUT_MAX (1u << 20)

static const char *quamachine, *qemu, *progs;
/* quamachine's translator: off, or (--jit) on for everything run once. */
static char *jit_on = "--jit=off", *jit_threshold = "--jit-threshold=1";

typedef struct outcome {
  char *out; /* stdout, NUL-terminated */
  size_t len;
  int status; /* exit code, or 128 + signal */
} outcome_t;

/* Runs argv in the folder dir (NULL: this one) with stdout captured and
 * stderr discarded, within TIMEOUT_S. */
static int run_in(char *const argv[], const char *dir, outcome_t *o) {
  int pfd[2];
  o->out = calloc(1, OUT_MAX + 1);
  o->len = 0;
  o->status = -1;
  if (o->out == NULL || pipe(pfd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(pfd[1], 1);
    if (devnull >= 0) {
      dup2(devnull, 2);
      dup2(devnull, 0);
    }
    close(pfd[0]);
    if (dir != NULL && chdir(dir) != 0)
      _exit(125);
    execv(argv[0], argv);
    _exit(126);
  }
  close(pfd[1]);
  time_t start = time(NULL);
  for (;;) {
    struct pollfd p = {.fd = pfd[0], .events = POLLIN};
    int r = poll(&p, 1, 1000);
    if (r > 0) {
      char buf[4096];
      ssize_t n = read(pfd[0], buf, sizeof buf);
      if (n <= 0)
        break;
      size_t room = OUT_MAX - o->len;
      size_t take = (size_t)n < room ? (size_t)n : room;
      memcpy(o->out + o->len, buf, take);
      o->len += take;
    } else if (r < 0 && errno != EINTR) {
      break;
    }
    if (time(NULL) - start > TIMEOUT_S) {
      kill(pid, SIGKILL);
      break;
    }
  }
  close(pfd[0]);
  int ws;
  if (waitpid(pid, &ws, 0) != pid)
    return -1;
  o->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  return 0;
}

static int run(char *const argv[], outcome_t *o) { return run_in(argv, NULL, o); }

/* Runs progs/name with the arguments arg1 and arg2 under quamachine,
 * qemu-m68k and, where it has a host build, the host: the same output. */
static void diff_program_args(const char *name, const char *cpu, const char *arg1,
                              const char *arg2) {
  char path[4096], qemu_cpu[16];
  snprintf(path, sizeof path, "%s/%s", progs, name);
  snprintf(qemu_cpu, sizeof qemu_cpu, "m%s", cpu);
  char *qa[] = {(char *)quamachine, "run", jit_on, jit_threshold, "--cpu", (char *)cpu, path,
                (char *)arg1, (char *)arg2, NULL};
  char *qe[] = {(char *)qemu, "-cpu", qemu_cpu, path, (char *)arg1, (char *)arg2, NULL};
  outcome_t a = {0}, b = {0};
  CU_ASSERT_EQUAL_FATAL(run(qe, &b), 0);
  CU_ASSERT_EQUAL_FATAL(run(qa, &a), 0);
  CU_ASSERT_EQUAL(a.status, b.status);
  CU_ASSERT_EQUAL(a.len, b.len);
  CU_ASSERT(a.len == b.len && memcmp(a.out, b.out, a.len) == 0);
  if (a.status != b.status || a.len != b.len || memcmp(a.out, b.out, a.len) != 0) {
    fprintf(stderr, "\n%s: quamachine status %d, %zu bytes; qemu-m68k status %d, %zu bytes\n", name,
            a.status, a.len, b.status, b.len);
    size_t i = 0;
    while (i < a.len && i < b.len && a.out[i] == b.out[i])
      i++;
    fprintf(stderr, "first difference at byte %zu\n--- quamachine:\n%.*s\n--- qemu-m68k:\n%.*s\n",
            i, (int)(a.len - i < 200 ? a.len - i : 200), a.out + i,
            (int)(b.len - i < 200 ? b.len - i : 200), b.out + i);
  }
  CU_ASSERT(b.len > 0); /* the program did print */
  /* Every program has a host build but these two: structs prints the
   * target's layout and byte order, m68000_nolibc is freestanding 68000
   * code. A host build missing otherwise fails the case. */
  char host[4096];
  snprintf(host, sizeof host, "%s/%s-host", progs, name);
  bool on_host = strcmp(name, "structs") != 0 && strcmp(name, "m68000_nolibc") != 0;
  CU_ASSERT_EQUAL(access(host, X_OK) == 0, on_host);
  if (on_host && access(host, X_OK) == 0) {
    char *ha[] = {host, (char *)arg1, (char *)arg2, NULL};
    outcome_t h = {0};
    CU_ASSERT_EQUAL_FATAL(run(ha, &h), 0);
    bool same = h.status == a.status && h.len == a.len && memcmp(h.out, a.out, a.len) == 0;
    if (!same)
      fprintf(stderr, "\n%s: quamachine status %d, %zu bytes; the host status %d, %zu bytes\n",
              name, a.status, a.len, h.status, h.len);
    CU_ASSERT_TRUE(same);
    free(h.out);
  }
  free(a.out);
  free(b.out);
}

/* One case per program of tests/m68k/progs (the meson lists must match)
 * and the CPU both emulators run it on. The 68030 programs are built
 * -O2 -m68030 -static with glibc; the 68000 one -m68000 without libc
 * (Debian's static glibc is 68020 code). */
#define PROGRAMS(XX)                                                                               \
  XX(arith, "68030")                                                                               \
  XX(recurse, "68030")                                                                             \
  XX(strings, "68030")                                                                             \
  XX(sort, "68030")                                                                                \
  XX(sieve, "68030")                                                                               \
  XX(structs, "68030")                                                                             \
  XX(bits, "68030")                                                                                \
  XX(switch, "68030")                                                                              \
  XX(heap, "68030")                                                                                \
  XX(exitcode, "68030")                                                                            \
  XX(sigdie, "68030")                                                                              \
  XX(mmap, "68030")                                                                                \
  XX(m68000_nolibc, "68000")

#define XX(name, cpu)                                                                              \
  static void diff_##name(void) { diff_program_args(#name, cpu, "x", "yz"); }
PROGRAMS(XX)
#undef XX

/* The benchmark's workloads (bench-m68k.c), at a few rounds: a translator
 * or an interpreter that computes a wrong result fails here as well as
 * there. membench's first round walks a 1 MiB ring and hashes 256 KiB. */
#define BENCH_PROGRAMS(XX)                                                                         \
  XX(bench, "2")                                                                                   \
  XX(membench, "3")                                                                                \
  XX(branchbench, "3")                                                                             \
  XX(fpubench, "3")

#define XX(name, rounds)                                                                           \
  static void diff_##name(void) { diff_program_args(#name, "68030", rounds, NULL); }
BENCH_PROGRAMS(XX)
#undef XX

/* The next line of o from *pos (without its newline); NULL at the end. */
static const char *next_line(const outcome_t *o, size_t *pos, size_t *len) {
  if (*pos >= o->len)
    return NULL;
  const char *l = o->out + *pos;
  const char *nl = memchr(l, '\n', o->len - *pos);
  *len = nl ? (size_t)(nl - l) : o->len - *pos;
  *pos += *len + (nl ? 1 : 0);
  return l;
}

/* A program's output line by line: each line quamachine prints must be
 * qemu-m68k's or, where qemu-m68k is wrong, the host's. With in_dirs each
 * runs in a fresh empty folder of its own, quamachine with that folder as
 * its --root. */
static void diff_lines(const char *name, bool in_dirs, int min_lines) {
  char path[4096], host[4096];
  snprintf(path, sizeof path, "%s/%s", progs, name);
  snprintf(host, sizeof host, "%s/%s-host", progs, name);
  char dirs[3][64] = {"/tmp/qua-m68k-diff-XXXXXX", "/tmp/qua-m68k-diff-XXXXXX",
                      "/tmp/qua-m68k-diff-XXXXXX"};
  if (in_dirs)
    for (int i = 0; i < 3; i++)
      CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dirs[i]));
  char *qa[] = {(char *)quamachine, "run", jit_on, jit_threshold, "--cpu", "68030", path, NULL};
  char *qr[] = {(char *)quamachine, "run", jit_on, jit_threshold, "--cpu", "68030", "--root",
                dirs[0], path, NULL};
  char *qe[] = {(char *)qemu, "-cpu", "m68030", path, NULL};
  char *ha[] = {host, NULL};
  outcome_t a = {0}, b = {0}, h = {0};
  CU_ASSERT_EQUAL_FATAL(run_in(qe, in_dirs ? dirs[1] : NULL, &b), 0);
  CU_ASSERT_EQUAL_FATAL(run_in(in_dirs ? qr : qa, in_dirs ? dirs[0] : NULL, &a), 0);
  CU_ASSERT_EQUAL_FATAL(run_in(ha, in_dirs ? dirs[2] : NULL, &h), 0);
  if (in_dirs)
    for (int i = 0; i < 3; i++)
      CU_ASSERT_EQUAL(rmdir(dirs[i]), 0); /* the program removed what it made */
  CU_ASSERT_EQUAL(a.status, 0);
  CU_ASSERT_EQUAL(b.status, 0);
  CU_ASSERT_EQUAL(h.status, 0);
  size_t pa = 0, pb = 0, ph = 0, la = 0, lb = 0, lh = 0;
  int lines = 0;
  for (;;) {
    const char *xa = next_line(&a, &pa, &la), *xb = next_line(&b, &pb, &lb);
    const char *xh = next_line(&h, &ph, &lh);
    if (xa == NULL || xb == NULL || xh == NULL) {
      CU_ASSERT(xa == NULL && xb == NULL && xh == NULL); /* as many lines */
      break;
    }
    lines++;
    bool as_qemu = la == lb && memcmp(xa, xb, la) == 0;
    bool as_host = la == lh && memcmp(xa, xh, la) == 0;
    CU_ASSERT(as_qemu || as_host);
    if (!as_qemu)
      fprintf(stderr, "\n%s %s line %d: qemu-m68k is wrong; quamachine prints what the host does\n"
              "  quamachine: %.*s\n  qemu-m68k:  %.*s\n", as_host ? "" : "FAIL", name, lines,
              (int)la, xa, (int)lb, xb);
  }
  CU_ASSERT(lines >= min_lines);
  free(a.out);
  free(b.out);
  free(h.out);
}

/* progs/fpu.c: where qemu-m68k is wrong, the host is a real FPU and a
 * correctly rounded libm. A line may differ from the host where quamachine
 * and qemu agree: the m68k target evaluates float expressions in extended
 * precision and its libm is not the host's. */
static void diff_fpu(void) { diff_lines("fpu", false, 21); }

/* progs/files.c: qemu-m68k hands the 32-bit libc the host's 64-bit
 * directory cookies, which readdir() refuses (EOVERFLOW); quamachine lists
 * the names, as the host and an m68k kernel do. */
static void diff_files(void) { diff_lines("files", true, 75); }

/* progs/signals.c: qemu-m68k takes no trap for an exception the FPCR
 * enables (cpu-fpu.c, note 4), where quamachine delivers SIGFPE as the host
 * does; and under qemu-m68k 7.2 the computations that SIGALRM interrupts
 * come out wrong (the handler's state leaks into them), where quamachine's
 * and the host's are intact. */
static void diff_signals(void) { diff_lines("signals", false, 18); }

/* progs/fpmodes.c: +, -, *, /, sqrt and conversions of float, double and
 * long double, libm, printf and strtod in each rounding mode, bit for bit.
 * qemu-m68k agrees on every line today; the host is the judge should they
 * part (x87 extended is the 68881's format but for the smallest exponent,
 * and the host's libm is not the target's, so those lines differ there). */
static void diff_fpmodes(void) { diff_lines("fpmodes", false, 150); }

/* progs/sigdie.c fpe: the trapped division by zero without a handler ends
 * the process with SIGFPE, as on the host (qemu-m68k carries on). */
static void fpu_trap_default_action(void) {
  char path[4096], host[4096];
  snprintf(path, sizeof path, "%s/sigdie", progs);
  snprintf(host, sizeof host, "%s/sigdie-host", progs);
  char *qa[] = {(char *)quamachine, "run", path, "fpe", NULL};
  char *ha[] = {host, "fpe", NULL};
  outcome_t a = {0}, h = {0};
  CU_ASSERT_EQUAL_FATAL(run(qa, &a), 0);
  CU_ASSERT_EQUAL_FATAL(run(ha, &h), 0);
  CU_ASSERT_EQUAL(a.status, 128 + SIGFPE);
  CU_ASSERT_EQUAL(h.status, 128 + SIGFPE);
  CU_ASSERT_STRING_EQUAL(a.out, "about to die\n");
  CU_ASSERT_STRING_EQUAL(h.out, "about to die\n");
  free(a.out);
  free(h.out);
}

int main(int argc, char **argv) {
  if (argc < 4 || access(argv[2], X_OK) != 0 || access(argv[3], R_OK) != 0) {
    printf("SKIP: needs m68k-linux-gnu-gcc and qemu-m68k (Debian gcc-m68k-linux-gnu, qemu-user)\n");
    return 77;
  }
  /* Absolute: some cases run the programs in a folder of their own. */
  static char tool_abs[PATH_MAX], progs_abs[PATH_MAX];
  quamachine = realpath(argv[1], tool_abs) != NULL ? tool_abs : argv[1];
  qemu = argv[2];
  progs = realpath(argv[3], progs_abs) != NULL ? progs_abs : argv[3];
  if (argc > 4 && strcmp(argv[4], "--jit") == 0)
    jit_on = "--jit=on";
  static const qtest_case_t cases[] = {
#define XX(name, cpu) {"same_output_as_qemu_" #name "_on_" cpu, diff_##name},
      PROGRAMS(XX)
#undef XX
#define XX(name, rounds) {"benchmark_" #name "_at_" rounds "_rounds_same_output_as_qemu_and_host", \
                          diff_##name},
      BENCH_PROGRAMS(XX)
#undef XX
      {"fpu_program_prints_what_qemu_or_where_qemu_is_wrong_the_host_prints", diff_fpu},
      {"files_program_under_root_prints_what_qemu_or_where_qemu_is_wrong_the_host_prints",
       diff_files},
      {"signals_program_prints_what_qemu_or_where_qemu_is_wrong_the_host_prints", diff_signals},
      {"fpmodes_program_prints_what_qemu_or_where_qemu_is_wrong_the_host_prints", diff_fpmodes},
      {"trapped_fpu_exception_without_handler_ends_with_sigfpe_as_on_the_host",
       fpu_trap_default_action},
          {NULL, NULL},
  };
  return qtest_run("m68k-diff", cases);
}
