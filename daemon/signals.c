/* signals.c -- SIGTERM and SIGINT, taken by a thread of their own that enforces the exit deadline.
 *
 * Design note: why the stop cannot wait for the loop.
 *
 *  1. main blocks the stop signals (SIGTERM, SIGINT) before it creates any
 *     thread, so every thread inherits the mask: the loop, libuv's workers,
 *     pumps' and clocks' threads, liburcu's. The kernel can then deliver
 *     them only to this file's thread, which takes them with sigwait().
 *  2. On the first one the thread notes the time (the exit deadline counts
 *     from here, not from when a busy loop gets round to it), logs it, and
 *     wakes the loop with uv_async_send (thread-safe); the loop begins the
 *     graceful stop (quad.c: stop reading, answer or fail what is in
 *     flight, close the sockets, save the state).
 *  3. Then the thread waits for further signals until QUAD_EXIT_HARD_MS
 *     after the first. A later signal is only logged: a second SIGTERM does
 *     not cut short a stop that is finishing its work. If quad has not
 *     finished by then, the thread logs it, removes the socket file and
 *     ends the process with status QUAD_EXIT_FORCED (3): clients may have
 *     lost answers and the final state save may be missing, and the status
 *     says so (systemd marks the stop as failed).
 *  4. main ends the thread when it has finished (quad_signals_stop) by
 *     setting `finished` and sending the thread one of its own signals,
 *     which it then recognises as the request to return.
 *  5. uv_async_send is only called while the loop's handle is open: the
 *     loop detaches it (quad_signals_detach) under `mu` before closing it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quad-internal.h"

static sigset_t stop_set;
static pthread_t thread;
static bool started;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uv_async_t *loop_async; /* under mu; NULL once the loop closed it */
static _Atomic int received;   /* the first stop signal, 0 before it */
static _Atomic uint64_t received_ms; /* when, CLOCK_MONOTONIC ms */
static _Atomic bool finished;

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static const char *sig_name(int sig) { return sig == SIGTERM ? "SIGTERM" : "SIGINT"; }

void quad_signals_block(void) {
  sigemptyset(&stop_set);
  sigaddset(&stop_set, SIGTERM);
  sigaddset(&stop_set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_set, NULL);
}

/* The first signal: the deadline starts, the loop is told. */
static void first_signal(int sig) {
  atomic_store(&received_ms, mono_ms());
  atomic_store(&received, sig);
  quad_log(QUAD_LOG_INFO, "%s: shutting down (exit deadline %d ms)", sig_name(sig),
           QUAD_EXIT_HARD_MS);
  pthread_mutex_lock(&mu);
  if (loop_async != NULL)
    uv_async_send(loop_async);
  pthread_mutex_unlock(&mu);
}

/* The deadline passed with quad still stopping (note 3). */
static _Noreturn void deadline_passed(void) {
  quad_log(QUAD_LOG_ERROR,
           "still stopping %d ms after the signal; exiting now with status %d (answers not "
           "written and the final state save, if not done, are lost)",
           QUAD_EXIT_HARD_MS, QUAD_EXIT_FORCED);
  if (!quad_srv->socket_activated && quad_srv->cfg.socket_path != NULL)
    unlink(quad_srv->cfg.socket_path);
  fflush(stderr);
  _exit(QUAD_EXIT_FORCED);
}

static void *signal_main(void *arg) {
  (void)arg;
  int sig = 0;
  while (sig == 0) {
    if (sigwait(&stop_set, &sig) != 0)
      sig = 0;
    if (atomic_load(&finished))
      return NULL;
  }
  first_signal(sig);
  uint64_t end = atomic_load(&received_ms) + QUAD_EXIT_HARD_MS;
  for (;;) {
    uint64_t now = mono_ms();
    if (now >= end)
      deadline_passed();
    struct timespec left = {.tv_sec = (time_t)((end - now) / 1000),
                            .tv_nsec = (long)((end - now) % 1000) * 1000000L};
    int s = sigtimedwait(&stop_set, NULL, &left);
    if (atomic_load(&finished))
      return NULL;
    if (s > 0)
      quad_log(QUAD_LOG_INFO, "%s: already shutting down", sig_name(s));
    else if (errno != EAGAIN && errno != EINTR)
      quad_log(QUAD_LOG_ERROR, "sigtimedwait: %s", strerror(errno));
  }
}

int quad_signals_start(uv_async_t *stop) {
  loop_async = stop;
  int r = pthread_create(&thread, NULL, signal_main, NULL);
  if (r != 0) {
    quad_log(QUAD_LOG_ERROR, "cannot start the signal thread: %s", strerror(r));
    return -1;
  }
  started = true;
  return 0;
}

int quad_signals_received(uint64_t *elapsed_ms) {
  int sig = atomic_load(&received);
  if (sig != 0 && elapsed_ms != NULL)
    *elapsed_ms = mono_ms() - atomic_load(&received_ms);
  return sig;
}

void quad_signals_detach(void) {
  pthread_mutex_lock(&mu);
  loop_async = NULL;
  pthread_mutex_unlock(&mu);
}

void quad_signals_stop(void) {
  if (!started)
    return;
  atomic_store(&finished, true);
  pthread_kill(thread, SIGTERM); /* blocked everywhere: the thread takes it (note 4) */
  pthread_join(thread, NULL);
  started = false;
}
