/* faultsim.c -- quad-faultsim: quad whose allocations fail on request, to test out-of-memory paths.
 *
 * Linked into a copy of quad with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,
 * so that every allocation of quad, libqua and the framing code (not of the shared libraries:
 * libuv, protobuf-c, liburcu) passes through here. A request whose id is
 * FAULTSIM_ID(serial, k) (see below) has the k-th allocation made on the loop thread during its
 * dispatch fail with ENOMEM; every other allocation succeeds. After the dispatch quad logs
 *   faultsim: 0xID: allocation K failed
 * or, when the dispatch made fewer than k allocations,
 *   faultsim: 0xID: N allocations, none failed
 * so a test can sweep k from 1 until nothing fails and know each allocation was tried
 * (SQLite's faultsim does the same with its malloc counter).
 *
 * A request whose id is STALL_ID(ms) (high 16 bits 0x57A1, low 24 bits ms)
 * makes the loop thread sleep ms milliseconds before its dispatch: a loop
 * that is slow to see anything, for the tests of the exit deadline.
 *
 * A Create whose request id is HOLD_ID(ms) (high 16 bits 0x57A2) holds
 * libqua's control lock for ms milliseconds on the worker before it makes
 * its quaject: a long control job, for the tests of what must not wait
 * for one.
 *
 * With QUAD_FAULTSIM_FSYNC_MS=ms in the environment every fsync of quad's
 * own code (--state-dir's writes) takes ms milliseconds more: a slow disk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quad-internal.h"

/* High 16 bits of a request id that asks for a fault; the low 24 bits are k. */
#define FAULTSIM_TAG UINT64_C(0xFA17)
/* High 16 bits of a request id that stalls the loop; the low 24 bits are ms. */
#define STALL_TAG UINT64_C(0x57A1)
/* High 16 bits of a Create's request id whose job holds the control lock. */
#define HOLD_TAG UINT64_C(0x57A2)

/* libqua's control lock (its internal header is libqua's own). */
void qua__ctl_lock(void);
void qua__ctl_unlock(void);
int __real_qua_create(const char *type, const char *const *params, int nparams, qua_quaject_t **out,
                      qua_error_t *err);
int __wrap_qua_create(const char *type, const char *const *params, int nparams, qua_quaject_t **out,
                      qua_error_t *err);

/* The ms the next qua_create (on the worker) holds the lock: set on the
 * loop when a HOLD_ID request is dispatched, taken by the worker. */
static _Atomic unsigned hold_next_ms;

int __real_fsync(int fd);
int __wrap_fsync(int fd);
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

/* The loop thread's state: other threads' allocations are never counted. */
static _Thread_local bool armed, fired;
static _Thread_local unsigned count, target;
static _Thread_local uint64_t armed_id;

/* Whether this allocation is the one to fail. */
static bool fail_now(void) {
  if (!armed || fired)
    return false;
  if (++count != target)
    return false;
  fired = true;
  errno = ENOMEM;
  return true;
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }

/* Sleeps ms milliseconds, through signals. */
static void sleep_ms(unsigned ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
    ;
}

int __wrap_qua_create(const char *type, const char *const *params, int nparams, qua_quaject_t **out,
                      qua_error_t *err) {
  unsigned ms = atomic_exchange(&hold_next_ms, 0);
  if (ms > 0) {
    qua__ctl_lock();
    sleep_ms(ms);
    qua__ctl_unlock();
  }
  return __real_qua_create(type, params, nparams, out, err);
}

int __wrap_fsync(int fd) {
  const char *e = getenv("QUAD_FAULTSIM_FSYNC_MS");
  if (e != NULL)
    sleep_ms((unsigned)atoi(e));
  return __real_fsync(fd);
}

void quad_faultsim_begin(const Qua__V1__Frame *f) {
  if (f->id >> 48 == HOLD_TAG) {
    atomic_store(&hold_next_ms, (unsigned)(f->id & 0xffffff));
    return;
  }
  if (f->id >> 48 == STALL_TAG) {
    unsigned ms = (unsigned)(f->id & 0xffffff);
    quad_log(QUAD_LOG_WARN, "faultsim: the loop sleeps %u ms", ms);
    sleep_ms(ms);
    return;
  }
  if (f->id >> 48 != FAULTSIM_TAG || (f->id & 0xffffff) == 0)
    return;
  armed_id = f->id;
  target = (unsigned)(f->id & 0xffffff);
  count = 0;
  fired = false;
  armed = true;
}

void quad_faultsim_end(void) {
  if (!armed)
    return;
  armed = false;
  if (fired)
    quad_log(QUAD_LOG_WARN, "faultsim: 0x%016" PRIx64 ": allocation %u failed", armed_id, target);
  else
    quad_log(QUAD_LOG_WARN, "faultsim: 0x%016" PRIx64 ": %u allocations, none failed", armed_id,
             count);
}
