/* itest.h -- what the integration suites share: a private quad, running qua, reading /proc.
 *
 * Every suite is run as `test-x QUAD QUA` (the two programs' paths, given
 * by meson). itest_start() runs quad on a unix socket in a fresh mkdtemp()
 * folder, with stderr to quad.log there; the daemon gets PR_SET_PDEATHSIG so
 * it dies with the test even when the test crashes, and itest_stop() (also
 * run at exit for daemons still up) stops it and removes the folder.
 */
#ifndef QUA_ITEST_H
#define QUA_ITEST_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qtest.h"
#include "quaclient.h"

#define ITEST_MAX_ARGS 32

typedef struct itest_daemon {
  pid_t pid;
  char dir[64];
  char sock[128];
  char log[128];
} itest_daemon_t;

static const char *itest_quad_path;
static const char *itest_qua_path;
static itest_daemon_t *itest_running[8];

static inline double itest_now(void) { return qtest_now(); }

static inline void itest_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

/* Waits for a child at most timeout_s seconds. Returns its wait status, or
 * -1 when it is still running. */
static inline int itest_wait(pid_t pid, double timeout_s) {
  double end = itest_now() + timeout_s;
  for (;;) {
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid)
      return st;
    if (r < 0)
      return -2;
    if (itest_now() > end)
      return -1;
    itest_sleep_ms(5);
  }
}

/* Prints the end of the daemon's log to stderr (for a failed case). */
static inline void itest_dump_log(const itest_daemon_t *d) {
  FILE *f = fopen(d->log, "r");
  if (f == NULL)
    return;
  char line[512];
  fprintf(stderr, "--- %s\n", d->log);
  while (fgets(line, sizeof line, f) != NULL)
    fputs(line, stderr);
  fclose(f);
}

/* Removes a folder the test made, and what it holds. */
static inline void itest_rm_rf(const char *dir) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "itest: cannot remove %s\n", dir);
}

static inline void itest_remove_dir(itest_daemon_t *d) {
  if (d->dir[0] == '\0')
    return;
  itest_rm_rf(d->dir);
  d->dir[0] = '\0';
}

/* Stops the daemon with `sig` (SIGTERM normally), waits up to 10 s, then
 * kills it. Returns its wait status (or -1 if it had to be killed). */
static inline int itest_stop_sig(itest_daemon_t *d, int sig) {
  int st = 0;
  if (d->pid > 0) {
    kill(d->pid, sig);
    st = itest_wait(d->pid, 10.0);
    if (st == -1) {
      fprintf(stderr, "itest: quad %d did not stop in 10 s: killed\n", (int)d->pid);
      kill(d->pid, SIGKILL);
      waitpid(d->pid, NULL, 0);
    }
    d->pid = 0;
  }
  for (size_t i = 0; i < sizeof itest_running / sizeof itest_running[0]; i++)
    if (itest_running[i] == d)
      itest_running[i] = NULL;
  itest_remove_dir(d);
  return st;
}

static inline int itest_stop(itest_daemon_t *d) { return itest_stop_sig(d, SIGTERM); }

/* Stops the daemon with SIGTERM (see itest_stop) and requires a normal exit
 * with status 0: true if so, otherwise false after naming what it did
 * instead (a signal, another status, or not stopping in time). */
static inline bool itest_stop_clean(itest_daemon_t *d) {
  pid_t pid = d->pid;
  int st = itest_stop(d);
  if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
    return true;
  if (st < 0)
    fprintf(stderr, "itest: quad %d did not stop on SIGTERM (or was not ours to wait for)\n",
            (int)pid);
  else if (WIFSIGNALED(st))
    fprintf(stderr, "itest: quad %d died of signal %d on SIGTERM\n", (int)pid, WTERMSIG(st));
  else
    fprintf(stderr, "itest: quad %d exited %d on SIGTERM, not 0\n", (int)pid,
            WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  return false;
}

static inline void itest_stop_all(void) {
  for (size_t i = 0; i < sizeof itest_running / sizeof itest_running[0]; i++)
    if (itest_running[i] != NULL)
      itest_stop_sig(itest_running[i], SIGKILL);
}

/* Runs quad for d (its folder, socket and log already chosen) with the
 * extra arguments in ap, and waits until it accepts a connection (see
 * itest_vstart). The log is appended to. 0 or -1. */
static inline int itest_spawn(itest_daemon_t *d, bool via_env, va_list ap) {
  char expanded[ITEST_MAX_ARGS][256];
  char *argv[ITEST_MAX_ARGS + 4];
  int argc = 0;
  argv[argc++] = (char *)itest_quad_path;
  if (!via_env) {
    argv[argc++] = "--socket";
    argv[argc++] = d->sock;
  }
  const char *a;
  while ((a = va_arg(ap, const char *)) != NULL && argc < ITEST_MAX_ARGS) {
    const char *at = strstr(a, "@DIR@");
    if (at != NULL)
      snprintf(expanded[argc], sizeof expanded[argc], "%.*s%s%s", (int)(at - a), a, d->dir, at + 5);
    else
      snprintf(expanded[argc], sizeof expanded[argc], "%s", a);
    argv[argc] = expanded[argc];
    argc++;
  }
  argv[argc] = NULL;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(127);
    int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
      dup2(fd, 2);
      close(fd);
    }
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0) {
      dup2(nul, 0);
      dup2(nul, 1);
      close(nul);
    }
    if (via_env && setenv("QUA_SOCKET", d->sock, 1) < 0)
      _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  d->pid = pid;
  bool listed = false;
  for (size_t i = 0; i < sizeof itest_running / sizeof itest_running[0]; i++)
    listed = listed || itest_running[i] == d;
  for (size_t i = 0; !listed && i < sizeof itest_running / sizeof itest_running[0]; i++)
    if (itest_running[i] == NULL) {
      itest_running[i] = d;
      listed = true;
    }
  double end = itest_now() + 20.0;
  while (itest_now() < end) {
    quac_conn_t *c;
    if (quac_connect_unix(d->sock, "itest", &c) == 0) {
      quac_close(c);
      return 0;
    }
    if (itest_wait(d->pid, 0) != -1) {
      fprintf(stderr, "itest: quad exited at start\n");
      d->pid = 0;
      itest_dump_log(d);
      return -1;
    }
    itest_sleep_ms(10);
  }
  fprintf(stderr, "itest: quad did not accept within 20 s\n");
  itest_dump_log(d);
  return -1;
}

/* Starts quad with its socket in a fresh private folder and the extra
 * arguments in ap (NULL-terminated; "@DIR@" in an argument is replaced by
 * the folder). The socket is given with --socket, or, when via_env, only
 * in quad's $QUA_SOCKET. Waits until it accepts a connection. 0 or -1. */
static inline int itest_vstart(itest_daemon_t *d, bool via_env, va_list ap) {
  memset(d, 0, sizeof *d);
  snprintf(d->dir, sizeof d->dir, "/tmp/qua-itest-XXXXXX");
  if (mkdtemp(d->dir) == NULL) {
    perror("mkdtemp");
    return -1;
  }
  snprintf(d->sock, sizeof d->sock, "%s/quad.sock", d->dir);
  snprintf(d->log, sizeof d->log, "%s/quad.log", d->dir);
  return itest_spawn(d, via_env, ap);
}

/* Stops the daemon (SIGTERM) and starts it again on the same socket, in
 * the same folder, with the extra arguments given (NULL-terminated). 0 or -1. */
static inline int itest_restart(itest_daemon_t *d, ...) {
  if (d->pid > 0) {
    kill(d->pid, SIGTERM);
    if (itest_wait(d->pid, 10.0) == -1) {
      kill(d->pid, SIGKILL);
      waitpid(d->pid, NULL, 0);
    }
    d->pid = 0;
  }
  va_list ap;
  va_start(ap, d);
  int r = itest_spawn(d, false, ap);
  va_end(ap);
  return r;
}

/* Starts quad on a private socket given with --socket; extra arguments
 * follow d, NULL-terminated (see itest_vstart). 0 or -1. */
static inline int itest_start(itest_daemon_t *d, ...) {
  va_list ap;
  va_start(ap, d);
  int r = itest_vstart(d, false, ap);
  va_end(ap);
  return r;
}

/* The same, with the socket given only in quad's $QUA_SOCKET. */
static inline int itest_start_env(itest_daemon_t *d, ...) {
  va_list ap;
  va_start(ap, d);
  int r = itest_vstart(d, true, ap);
  va_end(ap);
  return r;
}

/* Output of one qua run. */
typedef struct itest_out {
  int status; /* exit status, or 128+signal */
  char out[16384];
  char err[4096];
} itest_out_t;

static inline void itest_slurp(const char *path, char *buf, size_t len) {
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return;
  size_t n = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  fclose(f);
}

/* Runs argv (NULL-terminated; argv[0] the program's path) with stdout and
 * stderr captured. Waits at most 30 s, then kills it. Fills o and returns
 * o->status. */
static inline int itest_run(itest_out_t *o, char **argv) {
  int argc = 0;
  while (argv[argc] != NULL)
    argc++;
  char dir[] = "/tmp/qua-itest-out-XXXXXX";
  if (mkdtemp(dir) == NULL)
    return o->status = -1;
  char outp[64], errp[64];
  snprintf(outp, sizeof outp, "%s/out", dir);
  snprintf(errp, sizeof errp, "%s/err", dir);
  pid_t pid = fork();
  if (pid == 0) {
    int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fo < 0 || fe < 0)
      _exit(126);
    dup2(fo, 1);
    dup2(fe, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int st = pid > 0 ? itest_wait(pid, 30.0) : -2;
  if (st == -1) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
  }
  o->status = st < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  itest_slurp(outp, o->out, sizeof o->out);
  itest_slurp(errp, o->err, sizeof o->err);
  unlink(outp);
  unlink(errp);
  rmdir(dir);
  if (getenv("ITEST_VERBOSE") != NULL)
    fprintf(stderr, "%s %s -> %d\n%s%s", argv[0], argc > 3 ? argv[3] : "", o->status, o->out,
            o->err);
  return o->status;
}

/* Runs `qua ARGS...` (NULL-terminated). When d is not NULL, "--socket
 * SOCK" goes first. Waits at most 30 s. Fills o and returns o->status. */
static inline int itest_qua(itest_out_t *o, const itest_daemon_t *d, ...) {
  char *argv[ITEST_MAX_ARGS + 4];
  int argc = 0;
  argv[argc++] = (char *)itest_qua_path;
  if (d != NULL) {
    argv[argc++] = "--socket";
    argv[argc++] = (char *)d->sock;
  }
  va_list ap;
  va_start(ap, d);
  const char *a;
  while ((a = va_arg(ap, const char *)) != NULL && argc < ITEST_MAX_ARGS)
    argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  return itest_run(o, argv);
}

/* Starts `qua --socket SOCK ARGS` in the background, its stdout and stderr
 * to DIR/TAG.out and DIR/TAG.err; waits (20 s at most) until stderr says
 * `ready`. Returns its pid. */
static inline pid_t itest_spawn_qua(const char *dir, const char *sock, const char *tag,
                                    const char *ready, char *const args[]) {
  char outp[160], errp[160];
  snprintf(outp, sizeof outp, "%s/%s.out", dir, tag);
  snprintf(errp, sizeof errp, "%s/%s.err", dir, tag);
  char *argv[ITEST_MAX_ARGS];
  int argc = 0;
  argv[argc++] = (char *)itest_qua_path;
  argv[argc++] = "--socket";
  argv[argc++] = (char *)sock;
  for (int i = 0; args[i] != NULL; i++)
    argv[argc++] = args[i];
  argv[argc] = NULL;
  pid_t pid = fork();
  if (pid == 0) {
    int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fo, 1);
    dup2(fe, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  char buf[1024];
  double end = itest_now() + 20.0;
  while (itest_now() < end) {
    itest_slurp(errp, buf, sizeof buf);
    if (strstr(buf, ready) != NULL)
      return pid;
    if (itest_wait(pid, 0) != -1)
      break;
    itest_sleep_ms(5);
  }
  fprintf(stderr, "itest_spawn_qua %s: not ready: %s\n", tag, buf);
  return pid;
}

/* VmRSS of a process in KiB, or -1. */
static inline long itest_vmrss_kb(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  long kb = -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
      break;
  fclose(f);
  return kb;
}

/* Connects to the daemon's socket; NULL on failure (printed). */
static inline quac_conn_t *itest_connect(const itest_daemon_t *d) {
  quac_conn_t *c = NULL;
  int r = quac_connect_unix(d->sock, "itest", &c);
  if (r < 0)
    fprintf(stderr, "itest: connect: %s: %s\n", quac_err_name(r), quac_last_error(NULL));
  return c;
}

/* Polls connection c (its events go to its event function) until cond
 * holds or 5 s passed. */
#define ITEST_POLL_UNTIL(c, cond)                             \
  do {                                                        \
    double end_ = itest_now() + 5.0;                          \
    while (!(cond) && itest_now() < end_)                     \
      CU_ASSERT(quac_poll((c), 100) >= 0);                    \
  } while (0)

/* Takes the programs' paths from argv and arranges the cleanup at exit. */
static inline int itest_init(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s QUAD QUA\n", argv[0]);
    return -1;
  }
  /* Absolute, so that children may change folder. */
  static char quad[4096], qua[4096];
  if (realpath(argv[1], quad) == NULL || realpath(argv[2], qua) == NULL) {
    fprintf(stderr, "%s: cannot find %s or %s\n", argv[0], argv[1], argv[2]);
    return -1;
  }
  itest_quad_path = quad;
  itest_qua_path = qua;
  atexit(itest_stop_all);
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

/* A suite's end: runs the cases against d, prints d's log when one failed,
 * and stops d, which must exit 0 (itest_stop_clean). The exit status. */
static inline int itest_run_and_stop(itest_daemon_t *d, const char *suite,
                                     const qtest_case_t *cases) {
  int rc = qtest_run(suite, cases);
  if (rc != 0)
    itest_dump_log(d);
  if (!itest_stop_clean(d))
    rc = 1;
  return rc;
}

#endif
