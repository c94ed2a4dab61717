/* event.c -- a futex-backed wake-up sequence for active quajects' threads. */
#define _LGPL_SOURCE 1
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-qsbr.h>

#include "qua-internal.h"

/* Signal: bump the sequence, then wake the sleepers, if any. The bump and
 * the waiter's registration are sequentially consistent read-modify-writes,
 * each followed by a load of the other's word (Dekker): either the signaller
 * sees the waiter registered and wakes it, or the waiter sees the new
 * sequence and does not sleep. The futex call itself re-checks the sequence
 * atomically with queueing the waiter. */
void qua__event_signal(qua__event_t *ev) {
  atomic_fetch_add_explicit(&ev->seq, 1, memory_order_seq_cst);
  if (atomic_load_explicit(&ev->waiters, memory_order_seq_cst) != 0)
    syscall(SYS_futex, &ev->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void qua__event_wait(qua__event_t *ev, uint32_t seen, int64_t timeout_ns) {
  struct timespec ts, *tp = NULL;
  if (timeout_ns >= 0) {
    ts.tv_sec = (time_t)(timeout_ns / 1000000000);
    ts.tv_nsec = (long)(timeout_ns % 1000000000);
    tp = &ts;
  }
  /* A sleeping QSBR thread must not hold up grace periods. */
  bool online = urcu_qsbr_read_ongoing();
  if (online)
    qua__offline();
  atomic_fetch_add_explicit(&ev->waiters, 1, memory_order_seq_cst);
  while (atomic_load_explicit(&ev->seq, memory_order_seq_cst) == seen) {
    long r = syscall(SYS_futex, &ev->seq, FUTEX_WAIT_PRIVATE, seen, tp, NULL, 0);
    if (r == -1 && errno == ETIMEDOUT)
      break;
    if (tp != NULL)
      break; /* a timed wait returns on any wake; the caller re-checks */
  }
  atomic_fetch_sub_explicit(&ev->waiters, 1, memory_order_relaxed);
  if (online)
    qua__online();
}
