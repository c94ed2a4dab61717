/* test-lfq.c -- sequential semantics of the lock-free queue family, every variant. */

#include "../qtest.h"
#include "lfq.h"

#include <errno.h>
#include <stdint.h>

/* One producer variant and one consumer variant, as a caller would pick them. */
typedef struct variant {
  const char *name;
  int (*put)(qua__lfq_t *, uint64_t);
  int (*get)(qua__lfq_t *, uint64_t *);
  int (*put_n)(qua__lfq_t *, const uint64_t *, size_t, size_t *);
  int (*get_n)(qua__lfq_t *, uint64_t *, size_t, size_t *);
} variant_t;

static const variant_t variants[] = {
  {"spsc", qua__lfq_put_sp, qua__lfq_get_sc, qua__lfq_put_n_sp, qua__lfq_get_n_sc},
  {"mpsc", qua__lfq_put_mp, qua__lfq_get_sc, qua__lfq_put_n_mp, qua__lfq_get_n_sc},
  {"spmc", qua__lfq_put_sp, qua__lfq_get_mc, qua__lfq_put_n_sp, qua__lfq_get_n_mc},
  {"mpmc", qua__lfq_put_mp, qua__lfq_get_mc, qua__lfq_put_n_mp, qua__lfq_get_n_mc},
  /* The slow paths alone must behave the same as the inline fast paths. */
  {"slow", qua__lfq_put_mp_slow, qua__lfq_get_sc_slow, qua__lfq_put_n_mp, qua__lfq_get_n_mc},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

static void init_accepts_powers_of_two_up_to_2_24(void)
{
  qua__lfq_t q;
  const uint32_t good[] = {1, 2, 4, 1024, QUA__LFQ_MAX_CAPACITY};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, good[i]), 0);
    CU_ASSERT_EQUAL(qua__lfq_capacity(&q), good[i]);
    CU_ASSERT_EQUAL(qua__lfq_count(&q), 0);
    CU_ASSERT_FALSE(qua__lfq_closed(&q));
    uint64_t x = 0;
    CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 42), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(qua__lfq_get_sc(&q, &x), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(x, 42);
    qua__lfq_fini(&q);
  }
}

static void init_refuses_zero_non_powers_and_too_big(void)
{
  qua__lfq_t q;
  const uint32_t bad[] = {0, 3, 6, 1000, QUA__LFQ_MAX_CAPACITY + 1, QUA__LFQ_MAX_CAPACITY * 2,
                          UINT32_MAX};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CU_ASSERT_EQUAL(qua__lfq_init(&q, bad[i]), -EINVAL);
}

static void fifo_order_every_variant(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    qua__lfq_t q;
    CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 8), 0);
    uint64_t next_put = 1, next_get = 1, x;
    /* Interleave runs of puts and gets of varying length so that the indices wrap the ring. */
    for (int round = 0; round < 50; round++) {
      int np = 1 + round % 8, ng = 1 + (round * 5) % 8;
      for (int i = 0; i < np; i++) {
        int r = v->put(&q, next_put);
        if (r == QUA__LFQ_FULL)
          break;
        CU_ASSERT_EQUAL(r, QUA__LFQ_OK);
        next_put++;
      }
      for (int i = 0; i < ng; i++) {
        int r = v->get(&q, &x);
        if (r == QUA__LFQ_EMPTY)
          break;
        CU_ASSERT_EQUAL(r, QUA__LFQ_OK);
        CU_ASSERT_EQUAL(x, next_get);
        next_get++;
      }
      CU_ASSERT_EQUAL(qua__lfq_count(&q), next_put - next_get);
    }
    CU_ASSERT(next_get > 100);
    qua__lfq_fini(&q);
  }
}

static void full_refuses_and_empty_reports_every_variant(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    for (uint32_t cap = 1; cap <= 16; cap *= 2) {
      qua__lfq_t q;
      uint64_t x = 0;
      CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, cap), 0);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_EMPTY);
      for (uint32_t i = 0; i < cap; i++)
        CU_ASSERT_EQUAL(v->put(&q, 100 + i), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(v->put(&q, 999), QUA__LFQ_FULL);
      CU_ASSERT_EQUAL(qua__lfq_count(&q), cap);
      for (uint32_t i = 0; i < cap; i++) {
        CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_OK);
        CU_ASSERT_EQUAL(x, 100 + i); /* 999 was not stored */
      }
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_EMPTY);
      CU_ASSERT_EQUAL(qua__lfq_count(&q), 0);
      qua__lfq_fini(&q);
    }
  }
}

static void untracked_reports_ok_not_edge(void)
{
  qua__lfq_t q;
  uint64_t x;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 2), 0);
  CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 1), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_put_mp(&q, 2), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_get_sc(&q, &x), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_get_mc(&q, &x), QUA__LFQ_OK);
  qua__lfq_fini(&q);
}

/* The live switch (lfq.c, 19-23), its operations interleaved by hand: an
 * untracked put before counting began, counted puts and gets in the middle
 * (no edges while the count is biased, even across empty and full), and
 * afterwards the count is the number of items and edges are exact; also
 * with a side that made no counted operation, and across the 2^64 wrap. */
static void counting_switch_makes_count_exact(void)
{
  static const uint64_t starts[] = {0, UINT64_MAX - 2};
  for (int si = 0; si < 2; si++) {
    for (int idle = 0; idle < 3; idle++) { /* 0: both sides count; 1: no get; 2: no put */
      qua__lfq_t q;
      uint64_t x;
      CU_ASSERT_EQUAL_FATAL(qua__lfq_init_at(&q, 4, starts[si]), 0);
      CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 1), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 2), QUA__LFQ_OK);
      qua__lfq_begin_counting(&q);
      CU_ASSERT_EQUAL(qua__lfq_count(&q), 2); /* head - tail meanwhile */
      if (idle != 2) {
        CU_ASSERT_EQUAL(qua__lfq_put_sp_slow(&q, 3), QUA__LFQ_OK);
        CU_ASSERT_EQUAL(qua__lfq_put_sp_slow(&q, 4), QUA__LFQ_OK); /* full now: no edge */
        CU_ASSERT_EQUAL(qua__lfq_put_sp_slow(&q, 5), QUA__LFQ_FULL);
      }
      if (idle != 1) {
        CU_ASSERT_EQUAL(qua__lfq_get_sc_slow(&q, &x), QUA__LFQ_OK);
        CU_ASSERT_EQUAL(x, 1);
      }
      qua__lfq_end_counting(&q);
      size_t n = idle == 0 ? 3 : idle == 1 ? 4 : 1;
      CU_ASSERT_EQUAL(qua__lfq_count(&q), n);
      uint64_t want = idle == 1 ? 1 : 2;
      for (size_t i = 0; i < n; i++) {
        int st = qua__lfq_tget_sc(&q, &x);
        CU_ASSERT_EQUAL(st, i == 0 && n == 4 ? QUA__LFQ_EDGE : QUA__LFQ_OK); /* full -> not */
        CU_ASSERT_EQUAL(x, want + i);
      }
      CU_ASSERT_EQUAL(qua__lfq_tget_sc(&q, &x), QUA__LFQ_EMPTY);
      CU_ASSERT_EQUAL(qua__lfq_tput_sp(&q, 9), QUA__LFQ_EDGE); /* empty -> not empty */
      CU_ASSERT_EQUAL(qua__lfq_count(&q), 1);
      qua__lfq_fini(&q);
    }
  }
}

static void tracked_notempty_edge_once_per_transition(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    qua__lfq_t q;
    uint64_t x;
    CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 4), 0);
    qua__lfq_set_tracked(&q, true);
    for (int cycle = 0; cycle < 10; cycle++) {
      CU_ASSERT_EQUAL(v->put(&q, 1), QUA__LFQ_EDGE); /* empty -> not empty */
      CU_ASSERT_EQUAL(v->put(&q, 2), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(v->put(&q, 3), QUA__LFQ_OK); /* was not empty */
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(x, 3);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_EMPTY);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_EMPTY);
    }
    qua__lfq_fini(&q);
  }
}

static void tracked_notfull_edge_once_per_transition(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    for (uint32_t cap = 1; cap <= 8; cap *= 2) {
      qua__lfq_t q;
      uint64_t x;
      CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, cap), 0);
      qua__lfq_set_tracked(&q, true);
      for (uint32_t i = 0; i < cap; i++)
        CU_ASSERT_EQUAL(v->put(&q, i), i == 0 ? QUA__LFQ_EDGE : QUA__LFQ_OK);
      for (int cycle = 0; cycle < 5; cycle++) {
        CU_ASSERT_EQUAL(v->put(&q, 77), QUA__LFQ_FULL);
        CU_ASSERT_EQUAL(v->put(&q, 77), QUA__LFQ_FULL);
        CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_EDGE); /* full -> not full */
        if (cap > 1) {
          CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_OK);
          /* With capacity 2 the get before emptied the queue. */
          CU_ASSERT_EQUAL(v->put(&q, 5), cap == 2 ? QUA__LFQ_EDGE : QUA__LFQ_OK);
        }
        /* Refill: with capacity 1 this put also crosses empty -> not empty. */
        CU_ASSERT_EQUAL(v->put(&q, 6), cap == 1 ? QUA__LFQ_EDGE : QUA__LFQ_OK);
      }
      CU_ASSERT_EQUAL(qua__lfq_count(&q), cap);
      qua__lfq_fini(&q);
    }
  }
}

static void set_tracked_counts_items_already_queued(void)
{
  qua__lfq_t q;
  uint64_t x;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 4), 0);
  CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 1), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 2), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 3), QUA__LFQ_OK);
  qua__lfq_set_tracked(&q, true);
  CU_ASSERT_EQUAL(qua__lfq_count(&q), 3);
  CU_ASSERT_EQUAL(qua__lfq_put_mp(&q, 4), QUA__LFQ_OK);  /* 3 -> 4: no edge */
  CU_ASSERT_EQUAL(qua__lfq_get_mc(&q, &x), QUA__LFQ_EDGE); /* 4 = full -> 3 */
  CU_ASSERT_EQUAL(x, 1);
  for (uint64_t i = 2; i <= 4; i++) {
    CU_ASSERT_EQUAL(qua__lfq_get_sc(&q, &x), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(x, i);
  }
  CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 5), QUA__LFQ_EDGE);
  qua__lfq_set_tracked(&q, false);
  CU_ASSERT_EQUAL(qua__lfq_get_sc(&q, &x), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_put_sp(&q, 6), QUA__LFQ_OK); /* untracked: no edge reported */
  qua__lfq_fini(&q);
}

static void batches_move_as_many_as_fit(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    qua__lfq_t q;
    uint64_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
    size_t done = 99;
    CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 8), 0);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 4, &done), QUA__LFQ_EMPTY);
    CU_ASSERT_EQUAL(done, 0);
    CU_ASSERT_EQUAL(v->put_n(&q, in, 5, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 5);
    CU_ASSERT_EQUAL(v->put_n(&q, in + 5, 3, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 3);
    CU_ASSERT_EQUAL(v->put_n(&q, in, 2, &done), QUA__LFQ_FULL);
    CU_ASSERT_EQUAL(done, 0);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 3, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 3);
    CU_ASSERT(out[0] == 1 && out[1] == 2 && out[2] == 3);
    /* Only 3 fit: a partial batch stores the first 3 and says so. */
    CU_ASSERT_EQUAL(v->put_n(&q, in, 8, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 3);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 8, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 8);
    const uint64_t want[8] = {4, 5, 6, 7, 8, 1, 2, 3};
    for (int i = 0; i < 8; i++)
      CU_ASSERT_EQUAL(out[i], want[i]);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 8, &done), QUA__LFQ_EMPTY);
    CU_ASSERT_EQUAL(done, 0);
    /* Asking for more than is there takes what is there. */
    CU_ASSERT_EQUAL(v->put_n(&q, in, 2, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 8, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 2);
    CU_ASSERT(out[0] == 1 && out[1] == 2);
    qua__lfq_fini(&q);
  }
}

static void batches_report_edge_when_crossing(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    qua__lfq_t q;
    uint64_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    size_t done;
    CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 8), 0);
    qua__lfq_set_tracked(&q, true);
    CU_ASSERT_EQUAL(v->put_n(&q, in, 3, &done), QUA__LFQ_EDGE);
    CU_ASSERT_EQUAL(v->put_n(&q, in, 3, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(v->put_n(&q, in, 8, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 2);
    CU_ASSERT_EQUAL(v->put_n(&q, in, 1, &done), QUA__LFQ_FULL);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 2, &done), QUA__LFQ_EDGE);
    CU_ASSERT_EQUAL(done, 2);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 2, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 8, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 4);
    CU_ASSERT_EQUAL(v->get_n(&q, out, 8, &done), QUA__LFQ_EMPTY);
    /* A single put and a batch get see the same edges. */
    CU_ASSERT_EQUAL(v->put(&q, 9), QUA__LFQ_EDGE);
    CU_ASSERT_EQUAL(v->put_n(&q, in, 8, &done), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, 7);
    CU_ASSERT_EQUAL(v->get(&q, &out[0]), QUA__LFQ_EDGE);
    CU_ASSERT_EQUAL(out[0], 9);
    CU_ASSERT_EQUAL(qua__lfq_count(&q), 7);
    qua__lfq_fini(&q);
  }
}

static void close_refuses_puts_and_drains_gets(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    for (int tracked = 0; tracked < 2; tracked++) {
      qua__lfq_t q;
      uint64_t x, in[2] = {7, 8}, out[4];
      size_t done;
      CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 4), 0);
      qua__lfq_set_tracked(&q, tracked);
      CU_ASSERT_EQUAL(v->put(&q, 1), tracked ? QUA__LFQ_EDGE : QUA__LFQ_OK);
      CU_ASSERT_EQUAL(v->put(&q, 2), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(v->put(&q, 3), QUA__LFQ_OK);
      qua__lfq_close(&q);
      qua__lfq_close(&q); /* twice is fine */
      CU_ASSERT_TRUE(qua__lfq_closed(&q));
      CU_ASSERT_EQUAL(v->put(&q, 4), QUA__LFQ_CLOSED);
      CU_ASSERT_EQUAL(v->put_n(&q, in, 2, &done), QUA__LFQ_CLOSED);
      CU_ASSERT_EQUAL(done, 0);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(x, 1);
      CU_ASSERT_EQUAL(v->get_n(&q, out, 4, &done), QUA__LFQ_OK);
      CU_ASSERT_EQUAL(done, 2);
      CU_ASSERT(out[0] == 2 && out[1] == 3);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_CLOSED);
      CU_ASSERT_EQUAL(v->get(&q, &x), QUA__LFQ_CLOSED);
      CU_ASSERT_EQUAL(v->get_n(&q, out, 4, &done), QUA__LFQ_CLOSED);
      CU_ASSERT_EQUAL(done, 0);
      CU_ASSERT_EQUAL(qua__lfq_count(&q), 0);
      qua__lfq_fini(&q);
    }
  }
}

/* lfq.c, invariant 18: in tracked mode close is exact. A put that passed the
 * flags test before the close but counts after it is refused (CLOSED, and
 * its item is never handed out), for put_sp (published, then refused),
 * put_mp (claimed, its turn, refused, published for the next turn) and a
 * second put_mp waiting behind it; the gets then drain what was counted
 * before the close and return CLOSED. A put that finds no room while the
 * room is held by a refused put's dead position returns CLOSED, not FULL. */
static void tracked_close_refuses_a_put_that_counts_after_it(void)
{
  for (int mp = 0; mp < 2; mp++) {
    qua__lfq_t q;
    uint64_t x = 0, a = 0, b = 0;
    CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 4), 0);
    qua__lfq_set_tracked(&q, true);
    CU_ASSERT_EQUAL(qua__lfq_tput_mp(&q, 1), QUA__LFQ_EDGE);
    if (!mp) {
      /* tput_sp's steps: publish, then (after the close) count. */
      CU_ASSERT_TRUE_FATAL(qua__lfq_push_sp(&q, q.slots, q.mask, 4, 2));
      qua__lfq_close(&q);
      CU_ASSERT_EQUAL(qua__lfq_counted(&q), QUA__LFQ_CLOSED);
    } else {
      /* Two tput_mp claims: b waits for a's turn; a counts after the close. */
      CU_ASSERT_TRUE_FATAL(qua__lfq_claim_mp(&q, 4, &a));
      CU_ASSERT_EQUAL(qua__lfq_tpush_mp(&q, q.slots, q.mask, 4, 3, &b), QUA__LFQ_T_TURN);
      atomic_store(&q.slots[a & q.mask].val, 2);
      qua__lfq_close(&q);
      CU_ASSERT_EQUAL(qua__lfq_tput_finish(&q, a), QUA__LFQ_CLOSED);
      CU_ASSERT_TRUE(qua__lfq_turn(q.slots, q.mask, b)); /* a published all the same */
      CU_ASSERT_EQUAL(qua__lfq_tput_finish(&q, b), QUA__LFQ_CLOSED);
    }
    CU_ASSERT_EQUAL(qua__lfq_count(&q), 1);
    CU_ASSERT_EQUAL(qua__lfq_tput_sp(&q, 9), QUA__LFQ_CLOSED);
    CU_ASSERT_EQUAL(qua__lfq_tget_mc(&q, &x), QUA__LFQ_OK);
    CU_ASSERT_EQUAL(x, 1);
    CU_ASSERT_EQUAL(qua__lfq_tget_mc(&q, &x), QUA__LFQ_CLOSED);
    CU_ASSERT_EQUAL(qua__lfq_tget_sc(&q, &x), QUA__LFQ_CLOSED);
    CU_ASSERT_EQUAL(qua__lfq_get_n_mc(&q, &x, 1, &(size_t){0}), QUA__LFQ_CLOSED);
    CU_ASSERT_EQUAL(qua__lfq_count(&q), 0);
    qua__lfq_fini(&q);
  }
  /* Capacity 1: a refused put_sp's dead position holds the only slot. */
  qua__lfq_t q;
  uint64_t x;
  size_t done = 1;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 1), 0);
  qua__lfq_set_tracked(&q, true);
  CU_ASSERT_TRUE_FATAL(qua__lfq_push_sp(&q, q.slots, q.mask, 1, 5));
  uint64_t w = atomic_load(&q.count);
  CU_ASSERT_TRUE(atomic_compare_exchange_strong(&q.count, &w, w + QUA__LFQ_W_CLOSED)); /* close's first step */
  CU_ASSERT_EQUAL(qua__lfq_counted(&q), QUA__LFQ_CLOSED);
  CU_ASSERT_EQUAL(qua__lfq_put_n_sp(&q, &x, 1, &done), QUA__LFQ_CLOSED); /* flags still open */
  CU_ASSERT_EQUAL(done, 0);
  CU_ASSERT_EQUAL(qua__lfq_tget_sc(&q, &x), QUA__LFQ_CLOSED);
  qua__lfq_fini(&q);
}

/* lfq.c, note 24: what a ring left by a process that died holds. Untracked:
 * items taken are not there, a put_mp that claimed but had not published
 * leaves a hole that is skipped, a put_sp that published but had not stored
 * head is there. Tracked: a ticket holder that had not freed its slot had
 * not returned, so its item is there; a put the close refused is not.
 * Fields that are no ring of the capacity are refused. */
static void recover_reads_what_a_dead_process_left(void)
{
  qua__lfq_t q;
  uint64_t items[8], x = 0, hole = 0, w = 0;
  size_t n = 99;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 8), 0);
  CU_ASSERT_EQUAL(qua__lfq_put_mp(&q, 1), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_put_mp(&q, 2), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_get_mc(&q, &x), QUA__LFQ_OK);
  CU_ASSERT_TRUE(qua__lfq_claim_mp(&q, 8, &hole)); /* claimed, never published */
  CU_ASSERT_EQUAL(qua__lfq_put_mp(&q, 4), QUA__LFQ_OK);
  uint64_t h = atomic_load(&q.head); /* a put_sp's steps up to, not with, its head store */
  atomic_store(&q.slots[h & q.mask].val, 5);
  atomic_store(&q.slots[h & q.mask].seq, h + 1);
  CU_ASSERT_EQUAL(qua__lfq_recover(&q, q.slots, 8, items, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT(items[0] == 2 && items[1] == 4 && items[2] == 5);
  CU_ASSERT_EQUAL(qua__lfq_recover(&q, q.slots, 4, items, &n), -EINVAL); /* another capacity */
  atomic_store(&q.head, atomic_load(&q.tail) + 9);                    /* more than capacity */
  CU_ASSERT_EQUAL(qua__lfq_recover(&q, q.slots, 8, items, &n), -EINVAL);
  qua__lfq_fini(&q);

  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 4), 0);
  qua__lfq_set_tracked(&q, true);
  CU_ASSERT_EQUAL(qua__lfq_tput_sp(&q, 1), QUA__LFQ_EDGE);
  CU_ASSERT_EQUAL(qua__lfq_tput_sp(&q, 2), QUA__LFQ_OK);
  CU_ASSERT_TRUE(qua__lfq_ticket(&q, &w)); /* item 1 ticketed, its slot not yet freed */
  qua__lfq_close(&q);
  CU_ASSERT_TRUE(qua__lfq_push_sp(&q, q.slots, q.mask, 4, 9));
  CU_ASSERT_EQUAL(qua__lfq_counted(&q), QUA__LFQ_CLOSED); /* 9 refused: a dead position */
  CU_ASSERT_EQUAL(qua__lfq_recover(&q, q.slots, 4, items, &n), 0);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT(items[0] == 1 && items[1] == 2);
  qua__lfq_fini(&q);
}

/* Indices start just below 2^64 and cross it while items flow. */
static void indices_wrap_around_2_64(void)
{
  for (size_t vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *v = &variants[vi];
    for (int tracked = 0; tracked < 2; tracked++) {
      qua__lfq_t q;
      CU_ASSERT_EQUAL_FATAL(qua__lfq_init_at(&q, 4, UINT64_MAX - 5), 0);
      qua__lfq_set_tracked(&q, tracked);
      uint64_t x, next_put = 0, next_get = 0, in[3], out[3];
      size_t done;
      for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 1 + round % 4; i++) {
          int r = v->put(&q, next_put);
          if (r == QUA__LFQ_FULL)
            break;
          CU_ASSERT(r == QUA__LFQ_OK || r == QUA__LFQ_EDGE);
          next_put++;
        }
        for (int i = 0; i < 3; i++)
          in[i] = next_put + (uint64_t)i;
        if (v->put_n(&q, in, 3, &done) != QUA__LFQ_FULL)
          next_put += done;
        CU_ASSERT_EQUAL(qua__lfq_count(&q), next_put - next_get);
        for (int i = 0; i < 1 + round % 3; i++) {
          int r = v->get(&q, &x);
          if (r == QUA__LFQ_EMPTY)
            break;
          CU_ASSERT(r == QUA__LFQ_OK || r == QUA__LFQ_EDGE);
          CU_ASSERT_EQUAL(x, next_get);
          next_get++;
        }
        if (v->get_n(&q, out, 2, &done) != QUA__LFQ_EMPTY) {
          for (size_t i = 0; i < done; i++)
            CU_ASSERT_EQUAL(out[i], next_get + i);
          next_get += done;
        }
      }
      CU_ASSERT(next_get > 40);
      qua__lfq_fini(&q);
    }
  }
}

/* Changing variant between operations keeps the items and their order. */
static void variant_switch_between_operations_keeps_items(void)
{
  qua__lfq_t q;
  uint64_t x, next_get = 0, next_put = 0;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 8), 0);
  for (int i = 0; i < 200; i++) {
    const variant_t *pv = &variants[(size_t)i % NVARIANTS];
    const variant_t *gv = &variants[(size_t)(i / 3) % NVARIANTS];
    if (pv->put(&q, next_put) == QUA__LFQ_OK)
      next_put++;
    if (i % 2 && pv->put(&q, next_put) == QUA__LFQ_OK)
      next_put++;
    if (gv->get(&q, &x) == QUA__LFQ_OK) {
      CU_ASSERT_EQUAL(x, next_get);
      next_get++;
    }
  }
  CU_ASSERT_EQUAL(qua__lfq_count(&q), next_put - next_get);
  qua__lfq_fini(&q);
}

/* lfq.c, invariant 13: a tracked put_mp counts only once the put before its
 * position has. Put A claims a position and stalls; put B claims the next,
 * writes its item and finds that its turn has not come: until A counts, the
 * count stays 0 and a get finds the queue empty (neither put has returned),
 * and the items then come out in the order the puts counted. (The lincheck
 * suite's first finding: B counted first, and a get reported "empty" after
 * B's put had returned, with B's item still queued behind A's.) */
static void tracked_mp_puts_count_in_position_order(void)
{
  qua__lfq_t q;
  uint64_t a = 0, b = 0, x;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init_at(&q, 4, UINT64_MAX), 0); /* A at 2^64 - 1, B at 0 */
  qua__lfq_set_tracked(&q, true);
  CU_ASSERT_TRUE_FATAL(qua__lfq_claim_mp(&q, 4, &a));
  CU_ASSERT_EQUAL(qua__lfq_tpush_mp(&q, q.slots, q.mask, 4, 22, &b), QUA__LFQ_T_TURN);
  CU_ASSERT_EQUAL(b, a + 1);
  CU_ASSERT_FALSE(qua__lfq_turn(q.slots, q.mask, b));
  CU_ASSERT_EQUAL(qua__lfq_count(&q), 0);
  CU_ASSERT_EQUAL(qua__lfq_tget_mc(&q, &x), QUA__LFQ_EMPTY);
  CU_ASSERT_EQUAL(qua__lfq_get_n_mc(&q, &x, 1, &(size_t){0}), QUA__LFQ_EMPTY);
  /* A goes on as tpush_mp would: its item, its turn (it has come), its count, its publish. */
  atomic_store(&q.slots[a & q.mask].val, 11);
  CU_ASSERT_TRUE(qua__lfq_turn(q.slots, q.mask, a));
  CU_ASSERT_EQUAL(qua__lfq_counted(&q), QUA__LFQ_EDGE);
  atomic_store_explicit(&q.slots[a & q.mask].seq, a + 1, memory_order_release);
  CU_ASSERT_TRUE(qua__lfq_turn(q.slots, q.mask, b));
  CU_ASSERT_EQUAL(qua__lfq_tput_finish(&q, b), QUA__LFQ_OK); /* 1 -> 2: no edge */
  CU_ASSERT_EQUAL(qua__lfq_count(&q), 2);
  CU_ASSERT_EQUAL(qua__lfq_tget_mc(&q, &x), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(x, 11);
  CU_ASSERT_EQUAL(qua__lfq_tget_mc(&q, &x), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(x, 22);
  CU_ASSERT_EQUAL(qua__lfq_tput_mp(&q, 33), QUA__LFQ_EDGE); /* its turn has come at once */
  qua__lfq_fini(&q);
}

/* lfq.c, invariant 14: a ticket is a position. Consumer 1 takes a ticket
 * and stalls; consumer 2 takes the next: it gets the second item, not the
 * first, and frees its slot only after consumer 1 freed the one before. A
 * get between the two tickets and the takes finds the queue empty: both
 * items are taken in the order (the lincheck suite's second finding: the
 * later ticket took the earlier item). */
static void tracked_tickets_are_positions(void)
{
  qua__lfq_t q;
  uint64_t w1, w2, x = 0;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init(&q, 2), 0);
  qua__lfq_set_tracked(&q, true);
  CU_ASSERT_EQUAL(qua__lfq_tput_mp(&q, 1), QUA__LFQ_EDGE);
  CU_ASSERT_EQUAL(qua__lfq_tput_mp(&q, 2), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(qua__lfq_tput_mp(&q, 3), QUA__LFQ_FULL);
  CU_ASSERT_TRUE_FATAL(qua__lfq_ticket(&q, &w1));
  CU_ASSERT_TRUE_FATAL(qua__lfq_ticket(&q, &w2));
  CU_ASSERT_EQUAL(qua__lfq_w_items(w1), 2); /* full -> not full: consumer 1's EDGE */
  CU_ASSERT_EQUAL(qua__lfq_w_items(w2), 1);
  CU_ASSERT_EQUAL(qua__lfq_count(&q), 0);
  CU_ASSERT_EQUAL(qua__lfq_tget_mc(&q, &x), QUA__LFQ_EMPTY);
  /* Both slots are still in use: no room, and the count (0) says a get is inside. The
   * complete put would wait for it, so only the fast path is asked here. */
  CU_ASSERT_FALSE(qua__lfq_push_mp(&q, q.slots, q.mask, 2, 4));
  CU_ASSERT_FALSE(qua__lfq_take_ticket(&q, q.slots, q.mask, w2, &x)); /* not its turn */
  CU_ASSERT_TRUE(qua__lfq_take_ticket(&q, q.slots, q.mask, w1, &x));
  CU_ASSERT_EQUAL(x, 1);
  CU_ASSERT_TRUE(qua__lfq_take_ticket(&q, q.slots, q.mask, w2, &x));
  CU_ASSERT_EQUAL(x, 2);
  CU_ASSERT_EQUAL(qua__lfq_tput_sp(&q, 5), QUA__LFQ_EDGE);
  CU_ASSERT_EQUAL(qua__lfq_tget_sc(&q, &x), QUA__LFQ_OK);
  CU_ASSERT_EQUAL(x, 5);
  qua__lfq_fini(&q);
}

/* The count word's three fields (lfq.c, invariant 12): S from -2^37 to
 * 2^37 - 1, the closed bit, and a ticket's position from its 25 bits and a
 * tail up to capacity (2^24) below it, across the 2^25 and 2^64 wraps. */
static void count_word_fields_at_their_edges(void)
{
  static const uint64_t tails[] = {0, (UINT64_C(1) << 25) - 3, UINT64_MAX - 2, UINT64_C(12345)};
  static const uint64_t dist[] = {0, 1, QUA__LFQ_MAX_CAPACITY - 1, QUA__LFQ_MAX_CAPACITY};
  static const int64_t items[] = {0, 1, -1, QUA__LFQ_MAX_CAPACITY, INT64_C(1) << 36,
                                  (INT64_C(1) << 37) - 1, -(INT64_C(1) << 37)};
  for (size_t ti = 0; ti < 4; ti++)
    for (size_t di = 0; di < 4; di++)
      for (size_t si = 0; si < 7; si++)
        for (int closed = 0; closed < 2; closed++) {
          uint64_t pos = tails[ti] + dist[di];
          uint64_t w = (pos << QUA__LFQ_W_SHIFT) + (closed ? QUA__LFQ_W_CLOSED : 0) +
                       (uint64_t)items[si];
          CU_ASSERT_EQUAL(qua__lfq_w_items(w), items[si]);
          CU_ASSERT_EQUAL(qua__lfq_w_closed(w), closed);
          CU_ASSERT_EQUAL(qua__lfq_w_pos(w, tails[ti]), pos);
          /* A ticket moves S and R without disturbing any field. */
          if (items[si] > 0) {
            uint64_t after = w - 1 + QUA__LFQ_W_TICKET;
            CU_ASSERT_EQUAL(qua__lfq_w_items(after), items[si] - 1);
            CU_ASSERT_EQUAL(qua__lfq_w_closed(after), closed);
            CU_ASSERT_EQUAL(qua__lfq_w_pos(after, tails[ti]), pos + 1);
          }
          /* Past S's edge the field overflows into C: the limit is the field's. */
          if (items[si] == (INT64_C(1) << 37) - 1)
            CU_ASSERT_NOT_EQUAL(qua__lfq_w_items(w + 1), items[si] + 1);
        }
}

/* The largest queue, tracked, filled to capacity and past it across the 2^64
 * wrap: S reaches 2^24, FULL and both edges come when they must, and every
 * ticket finds its item. */
static void tracked_largest_queue_fills_and_drains(void)
{
  const uint32_t cap = QUA__LFQ_MAX_CAPACITY;
  enum { CHUNK = 4096 };
  static uint64_t buf[CHUNK];
  qua__lfq_t q;
  size_t done;
  CU_ASSERT_EQUAL_FATAL(qua__lfq_init_at(&q, cap, UINT64_MAX - cap / 2), 0);
  qua__lfq_set_tracked(&q, true);
  uint64_t next = 0;
  for (uint32_t k = 0; k < cap / CHUNK; k++) {
    for (int i = 0; i < CHUNK; i++)
      buf[i] = next + (uint64_t)i;
    CU_ASSERT_EQUAL(qua__lfq_put_n_mp(&q, buf, CHUNK, &done), k == 0 ? QUA__LFQ_EDGE : QUA__LFQ_OK);
    CU_ASSERT_EQUAL(done, CHUNK);
    next += done;
  }
  CU_ASSERT_EQUAL(qua__lfq_count(&q), cap);
  CU_ASSERT_EQUAL(qua__lfq_tput_mp(&q, 1), QUA__LFQ_FULL);
  CU_ASSERT_EQUAL(qua__lfq_put_n_mp(&q, buf, 1, &done), QUA__LFQ_FULL);
  uint64_t x, want = 0;
  CU_ASSERT_EQUAL(qua__lfq_tget_mc(&q, &x), QUA__LFQ_EDGE); /* full -> not full */
  CU_ASSERT_EQUAL(x, want++);
  CU_ASSERT_EQUAL(qua__lfq_tput_sp(&q, next++), QUA__LFQ_OK); /* full again */
  bool in_order = true;
  while (qua__lfq_get_n_mc(&q, buf, CHUNK, &done) != QUA__LFQ_EMPTY)
    for (size_t i = 0; i < done; i++)
      in_order = in_order && buf[i] == want++;
  CU_ASSERT_TRUE(in_order);
  CU_ASSERT_EQUAL(want, next);
  CU_ASSERT_EQUAL(qua__lfq_count(&q), 0);
  qua__lfq_fini(&q);
}

int main(void)
{
  static const qtest_case_t cases[] = {
    {"init_accepts_powers_of_two_up_to_2_24", init_accepts_powers_of_two_up_to_2_24},
    {"init_refuses_zero_non_powers_and_too_big", init_refuses_zero_non_powers_and_too_big},
    {"fifo_order_every_variant", fifo_order_every_variant},
    {"full_refuses_and_empty_reports_every_variant", full_refuses_and_empty_reports_every_variant},
    {"untracked_reports_ok_not_edge", untracked_reports_ok_not_edge},
    {"tracked_notempty_edge_once_per_transition", tracked_notempty_edge_once_per_transition},
    {"tracked_notfull_edge_once_per_transition", tracked_notfull_edge_once_per_transition},
    {"set_tracked_counts_items_already_queued", set_tracked_counts_items_already_queued},
    {"counting_switch_makes_count_exact", counting_switch_makes_count_exact},
    {"batches_move_as_many_as_fit", batches_move_as_many_as_fit},
    {"batches_report_edge_when_crossing", batches_report_edge_when_crossing},
    {"close_refuses_puts_and_drains_gets", close_refuses_puts_and_drains_gets},
    {"tracked_close_refuses_a_put_that_counts_after_it",
     tracked_close_refuses_a_put_that_counts_after_it},
    {"recover_reads_what_a_dead_process_left", recover_reads_what_a_dead_process_left},
    {"indices_wrap_around_2_64", indices_wrap_around_2_64},
    {"variant_switch_between_operations_keeps_items",
     variant_switch_between_operations_keeps_items},
    {"tracked_mp_puts_count_in_position_order", tracked_mp_puts_count_in_position_order},
    {"tracked_tickets_are_positions", tracked_tickets_are_positions},
    {"count_word_fields_at_their_edges", count_word_fields_at_their_edges},
    {"tracked_largest_queue_fills_and_drains", tracked_largest_queue_fills_and_drains},
    {NULL, NULL},
  };
  return qtest_run("lfq", cases);
}
