/* signals.c -- handlers with and without SA_SIGINFO, masks, SA_RESETHAND, SIG_IGN, the interval
 * timer interrupting a computation, pause, nanosleep and sigsuspend, and SIGFPE from an integer
 * division and from a trapped floating-point exception, left by siglongjmp. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fenv.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got, last_sig, blocked_inside, other_inside, ticks;
static volatile int info_signo, info_code, info_pid_ok, info_uc;
static sigjmp_buf jb;

static void on_sig(int sig) {
  sigset_t cur;
  sigprocmask(SIG_SETMASK, NULL, &cur);
  got++;
  last_sig = sig;
  blocked_inside = sigismember(&cur, sig);
  other_inside = sigismember(&cur, SIGUSR2);
}

static void on_info(int sig, siginfo_t *si, void *uc) {
  info_signo = si->si_signo;
  info_code = si->si_code;
  info_pid_ok = si->si_pid == getpid();
  info_uc = uc != NULL;
  got++;
  last_sig = sig;
}

static volatile double tick_acc;
static void on_tick(int sig) {
  /* FPU and integer work of its own, which must not leak into main's. */
  double a = 0;
  for (int i = 1; i < 50; i++)
    a += 1.0 / i;
  tick_acc += a;
  ticks++;
  (void)sig;
}

static void on_fpe(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  info_signo = sig;
  info_code = si->si_code;
  siglongjmp(jb, 1);
}

static void set(int sig, void (*fn)(int), int flags, int also) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  if (also != 0)
    sigaddset(&sa.sa_mask, also);
  sigaction(sig, &sa, NULL);
}

static void set_info(int sig, void (*fn)(int, siginfo_t *, void *)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

static void one_shot(long usec) {
  struct itimerval it = {{0, 0}, {usec / 1000000, usec % 1000000}};
  setitimer(ITIMER_REAL, &it, NULL);
}

static void handlers(void) {
  got = 0;
  set(SIGUSR1, on_sig, 0, SIGUSR2);
  raise(SIGUSR1);
  printf("raise: handler ran %d time(s), signal %d, itself blocked inside %d, sa_mask's %d\n",
         (int)got, (int)last_sig, (int)blocked_inside, (int)other_inside);
  set(SIGUSR1, on_sig, SA_NODEFER, 0);
  raise(SIGUSR1);
  printf("SA_NODEFER: itself blocked inside %d\n", (int)blocked_inside);
  set_info(SIGUSR2, on_info);
  kill(getpid(), SIGUSR2);
  printf("kill with SA_SIGINFO: signo %d code %d pid ok %d ucontext %d\n", info_signo, info_code,
         info_pid_ok, info_uc);
  raise(SIGUSR2);
  printf("raise with SA_SIGINFO: signo %d code %d\n", info_signo, info_code);

  sigset_t s, pend;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  sigprocmask(SIG_BLOCK, &s, NULL);
  got = 0;
  raise(SIGUSR1);
  sigpending(&pend);
  printf("blocked: ran %d, pending %d\n", (int)got, sigismember(&pend, SIGUSR1));
  sigprocmask(SIG_UNBLOCK, &s, NULL);
  printf("unblocked: ran %d\n", (int)got);

  set(SIGUSR1, on_sig, SA_RESETHAND, 0);
  raise(SIGUSR1);
  struct sigaction old;
  sigaction(SIGUSR1, NULL, &old);
  printf("SA_RESETHAND: back to SIG_DFL %d\n", old.sa_handler == SIG_DFL);
  signal(SIGUSR1, SIG_IGN);
  got = 0;
  raise(SIGUSR1);
  printf("SIG_IGN: ran %d\n", (int)got);
  printf("sigaction(SIGKILL): %s\n", sigaction(SIGKILL, &old, NULL) != 0 ? strerror(errno) : "ok");
}

static void timers(void) {
  set(SIGALRM, on_tick, 0, 0);
  /* The limits: microseconds below 1000000, nanoseconds below 1000000000. */
  struct itimerval edge = {{0, 0}, {0, 999999}}, past = {{0, 0}, {0, 1000000}};
  printf("setitimer 999999 us: %s\n", setitimer(ITIMER_REAL, &edge, NULL) ? strerror(errno) : "ok");
  printf("setitimer 1000000 us: %s\n",
         setitimer(ITIMER_REAL, &past, NULL) ? strerror(errno) : "ok");
  struct itimerval zero = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &zero, NULL);
  struct timespec too_long = {0, 1000000000L};
  printf("nanosleep 1000000000 ns: %s\n", nanosleep(&too_long, NULL) ? strerror(errno) : "ok");
  struct itimerval it = {{0, 2000}, {0, 2000}};
  setitimer(ITIMER_REAL, &it, NULL);
  int bad = 0, rounds = 0;
  while (ticks < 5 || rounds < 10) {
    volatile double acc = 0;
    double a = 0, b = 1;
    long n = 0;
    for (int i = 0; i < 2000; i++) {
      a += i * 0.5;
      b *= 1.0001;
      n += i ^ (i >> 3);
    }
    acc = a;
    if (acc != 999500.0 || n != 2008984 || b < 1.2213 || b > 1.2215)
      bad++;
    rounds++;
  }
  struct itimerval off = {{0, 0}, {0, 0}}, was;
  setitimer(ITIMER_REAL, &off, &was);
  printf("interval timer: at least 5 ticks %d, interrupted computations intact %d, "
         "was armed %d\n",
         ticks >= 5, bad == 0, was.it_interval.tv_usec == 2000);

  one_shot(10000);
  int r = pause();
  printf("pause: %d %s\n", r, strerror(errno));
  one_shot(10000);
  struct timespec req = {2, 0}, rem = {0, 0};
  r = nanosleep(&req, &rem);
  printf("nanosleep 2 s: %d %s, more than 1 s left %d\n", r, strerror(errno), rem.tv_sec >= 1);
  printf("alarm(5): %u\n", alarm(5));
  printf("alarm(0): %u\n", alarm(0));

  sigset_t s, during, after;
  sigemptyset(&s);
  sigaddset(&s, SIGALRM);
  sigprocmask(SIG_BLOCK, &s, NULL);
  ticks = 0;
  one_shot(10000);
  sigemptyset(&during);
  r = sigsuspend(&during);
  sigprocmask(SIG_SETMASK, NULL, &after);
  printf("sigsuspend: %d %s, ran %d, SIGALRM blocked again %d\n", r, strerror(errno), (int)ticks,
         sigismember(&after, SIGALRM));
  sigprocmask(SIG_UNBLOCK, &s, NULL);
}

static void faults(void) {
  set_info(SIGFPE, on_fpe);
  volatile int zero = 0, x = 7;
  info_code = -1;
  if (sigsetjmp(jb, 1) == 0)
    x = x / zero;
  printf("integer division by zero: signo %d code %d (FPE_INTDIV %d)\n", info_signo, info_code,
         FPE_INTDIV);
  volatile double dz = 0.0, y = 1.0;
  info_code = -1;
  feenableexcept(FE_DIVBYZERO);
  if (sigsetjmp(jb, 1) == 0) {
    y = y / dz;
    y = y + 1; /* the 68881 reports at the next FPU instruction */
  }
  fedisableexcept(FE_ALL_EXCEPT);
  printf("trapped 1.0/0.0: code %d (FPE_FLTDIV %d)\n", info_code, FPE_FLTDIV);
  y = 1.0 / dz;
  printf("untrapped again: %g\n", y);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  handlers();
  timers();
  faults();
  return 0;
}
