// bench-queue-boost.cc -- the Boost.Lockfree side of bench-queue: spsc_queue and queue, same capacity and items as the C rings.
#include "bench-queue.h"

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/spsc_queue.hpp>
#include <new>

namespace {

constexpr unsigned capacity = 4096; // bench-queue.c's CAPACITY

struct alignas(128) spsc {
  boost::lockfree::spsc_queue<uint64_t, boost::lockfree::capacity<capacity>> q;
};
struct alignas(128) mpmc {
  boost::lockfree::queue<uint64_t, boost::lockfree::capacity<capacity>> q;
};

template <class Q> void produce(Q &q, uint64_t tag, long n)
{
  for (long i = 0; i < n; i++) {
    unsigned spins = 0;
    while (!q.push(tag | (uint64_t)i))
      qb_relax(&spins);
  }
}

template <class Q> void consume(Q &q, qb_check_t *c, long n)
{
  qb_check_t local = *c; // the loop updates a copy in registers / this stack frame
  for (long i = 0; i < n; i++) {
    uint64_t x;
    unsigned spins = 0;
    while (!q.pop(x))
      qb_relax(&spins);
    qb_take(&local, x);
  }
  *c = local;
}

template <class Q> void mixed(Q &q, uint64_t tag, qb_check_t *c, long n)
{
  qb_check_t local = *c;
  for (long i = 0; i < n; i++) {
    unsigned spins = 0;
    while (!q.push(tag | (uint64_t)i))
      qb_relax(&spins);
    uint64_t x;
    spins = 0;
    while (!q.pop(x))
      qb_relax(&spins);
    qb_take(&local, x);
  }
  *c = local;
}

} // namespace

extern "C" void *qb_boost_new(int is_mpmc)
{
  if (is_mpmc)
    return new (std::nothrow) mpmc;
  return new (std::nothrow) spsc;
}

extern "C" void qb_boost_free(void *q, int is_mpmc)
{
  if (is_mpmc)
    delete static_cast<mpmc *>(q);
  else
    delete static_cast<spsc *>(q);
}

extern "C" void qb_boost_produce(void *q, int is_mpmc, uint64_t tag, long n)
{
  if (is_mpmc)
    produce(static_cast<mpmc *>(q)->q, tag, n);
  else
    produce(static_cast<spsc *>(q)->q, tag, n);
}

extern "C" void qb_boost_consume(void *q, int is_mpmc, qb_check_t *c, long n)
{
  if (is_mpmc)
    consume(static_cast<mpmc *>(q)->q, c, n);
  else
    consume(static_cast<spsc *>(q)->q, c, n);
}

extern "C" void qb_boost_mixed(void *q, int is_mpmc, uint64_t tag, qb_check_t *c, long n)
{
  if (is_mpmc)
    mixed(static_cast<mpmc *>(q)->q, tag, c, n);
  else
    mixed(static_cast<spsc *>(q)->q, tag, c, n);
}
