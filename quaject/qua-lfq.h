/* qua-lfq.h -- the bounded lock-free queue of 64-bit words the quaject queues are made of, for
 * programs built with libqua (quad's event rings and link windows).
 *
 * The public names of libqua's ring (lfq.h holds its layout, its design
 * note and its full contract). A ring holds capacity words, a power of two
 * from 1 to 2^24; it never allocates after qua_lfq_init. The suffix of an
 * operation says who may call it concurrently with itself:
 *
 *   put_sp  one thread at a time puts (put_sp, put_n_sp), and no put_mp runs;
 *   put_mp  any number of threads;
 *   get_sc  one thread at a time gets (get_sc, get_n_sc), and no get_mc runs;
 *   get_mc  any number of threads.
 *
 * The two sides choose independently. Every put and get returns a
 * qua_lfq_status: QUA_LFQ_OK or QUA_LFQ_EDGE (done; EDGE only in tracked
 * mode, see lfq.h), else QUA_LFQ_FULL, QUA_LFQ_EMPTY or QUA_LFQ_CLOSED;
 * `status <= QUA_LFQ_EDGE` is "done". Batches move as many words as fit or
 * are there, store the count in *done, and return OK/EDGE when *done > 0.
 */
#ifndef QUA_LFQ_PUBLIC_H
#define QUA_LFQ_PUBLIC_H

#include "lfq.h"

typedef qua__lfq_t qua_lfq_t;

enum qua_lfq_status {
  QUA_LFQ_OK = QUA__LFQ_OK,
  QUA_LFQ_EDGE = QUA__LFQ_EDGE,
  QUA_LFQ_FULL = QUA__LFQ_FULL,
  QUA_LFQ_EMPTY = QUA__LFQ_EMPTY,
  QUA_LFQ_CLOSED = QUA__LFQ_CLOSED,
};

/* An empty ring of `capacity` words: 0, -EINVAL (not a power of two in
 * range) or -ENOMEM. */
static inline int qua_lfq_init(qua_lfq_t *q, uint32_t capacity) {
  return qua__lfq_init(q, capacity);
}
/* Frees the ring; no thread may be using it. */
static inline void qua_lfq_fini(qua_lfq_t *q) { qua__lfq_fini(q); }
/* Words in the ring now (a snapshot while others put and get). */
static inline size_t qua_lfq_count(const qua_lfq_t *q) { return qua__lfq_count(q); }

static inline int qua_lfq_put_sp(qua_lfq_t *q, uint64_t v) { return qua__lfq_put_sp(q, v); }
static inline int qua_lfq_put_mp(qua_lfq_t *q, uint64_t v) { return qua__lfq_put_mp(q, v); }
static inline int qua_lfq_get_sc(qua_lfq_t *q, uint64_t *v) { return qua__lfq_get_sc(q, v); }
static inline int qua_lfq_get_mc(qua_lfq_t *q, uint64_t *v) { return qua__lfq_get_mc(q, v); }
static inline int qua_lfq_get_n_sc(qua_lfq_t *q, uint64_t *v, size_t n, size_t *done) {
  return qua__lfq_get_n_sc(q, v, n, done);
}

#endif /* QUA_LFQ_PUBLIC_H */
