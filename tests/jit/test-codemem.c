/* test-codemem.c -- code memory: reach of the text, W^X under concurrent synthesis, batching, grace-period retirement. */
#include "jit.h"
#include "tb-stencils.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

typedef uint64_t (*fn0_t)(void);
typedef uint64_t (*fn1_t)(uint64_t);

#define MAGIC 0x5eed000000000000u

__attribute__((noinline)) static uint64_t c_probe(uint64_t x)
{
  return x + 1;
}

static uint64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

/* Emit t_ret returning `value` into new code; NULL on failure. */
static jit_code_t *make_ret(jit_codemem_t *cm, uint64_t value)
{
  uint64_t v[TB_HOLE__COUNT] = {0};
  jit_code_t *c;
  v[TB_HOLE_hole_value] = value;
  if (jit_code_alloc(cm, tb_stencil_t_ret.size, &c) < 0)
    return NULL;
  if (jit_emit(jit_code_rw(c), (uint64_t)(uintptr_t)jit_code_rx(c), &tb_stencil_t_ret, v, NULL) < 0) {
    jit_code_free(c);
    return NULL;
  }
  jit_code_commit(c);
  return c;
}

static uint64_t call_ret(const void *rx)
{
  return ((fn0_t)jit_fn(rx))();
}

/* The permissions of the mapping holding `addr` ("r-xs"), from /proc/self/maps. */
static int perms_of(const void *addr, char perms[5])
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  if (!f)
    return 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char p[5];
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && (uintptr_t)addr >= lo &&
        (uintptr_t)addr < hi) {
      memcpy(perms, p, 5);
      found = 1;
    }
  }
  fclose(f);
  return found;
}

static void rx_view_within_reach_of_text(void)
{
  jit_codemem_t *cm;
  jit_code_t *c;
  char perms[5];
  fn1_t f = c_probe;
  uintptr_t fa, rx;
  int64_t d;

  CU_ASSERT_EQUAL_FATAL(jit_codemem_create(NULL, &cm), JIT_OK);
  c = make_ret(cm, 42);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  memcpy(&fa, &f, sizeof fa);
  rx = (uintptr_t)jit_code_rx(c);
  d = (int64_t)(rx - fa);
  CU_ASSERT(d < ((int64_t)1 << 31) - (1 << 24) && d > -((int64_t)1 << 31) + (1 << 24));
  CU_ASSERT_EQUAL(call_ret(jit_code_rx(c)), 42);
  CU_ASSERT_FATAL(perms_of(jit_code_rx(c), perms));
  CU_ASSERT_STRING_EQUAL(perms, "r-xs");
  CU_ASSERT_FATAL(perms_of(jit_code_rw(c), perms));
  CU_ASSERT_STRING_EQUAL(perms, "rw-s");
  CU_ASSERT_PTR_NOT_EQUAL(jit_code_rx(c), jit_code_rw(c));
  jit_code_free(c);
  jit_codemem_destroy(cm);
}

static void allocations_batched_in_chunks_and_reused(void)
{
  jit_codemem_options_t o = {0};
  jit_codemem_t *cm;
  jit_code_t *c[200];
  jit_codemem_stats_t st;

  o.chunk_size = 64 << 10;
  CU_ASSERT_EQUAL_FATAL(jit_codemem_create(&o, &cm), JIT_OK);
  for (int i = 0; i < 200; i++) {
    c[i] = make_ret(cm, MAGIC + (uint64_t)i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c[i]);
    CU_ASSERT_EQUAL((uintptr_t)jit_code_rx(c[i]) % 64, 0);
  }
  jit_codemem_stats(cm, &st);
  CU_ASSERT_EQUAL(st.chunks, 1); /* 200 x 64 bytes fit one 64 KiB chunk */
  CU_ASSERT_EQUAL(st.live, 200);
  for (int i = 0; i < 200; i++)
    CU_ASSERT_EQUAL(call_ret(jit_code_rx(c[i])), MAGIC + (uint64_t)i);
  for (int i = 0; i < 200; i += 2)
    jit_code_free(c[i]);
  /* Freed granules are handed out again before a new chunk is mapped. */
  for (int i = 0; i < 200; i += 2) {
    c[i] = make_ret(cm, MAGIC + 1000 + (uint64_t)i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c[i]);
  }
  /* A large allocation, spanning granules, and one beyond the chunk size. */
  jit_code_t *big, *huge;
  CU_ASSERT_EQUAL_FATAL(jit_code_alloc(cm, 5000, &big), JIT_OK);
  CU_ASSERT_EQUAL_FATAL(jit_code_alloc(cm, 200 << 10, &huge), JIT_OK);
  memset(jit_code_rw(huge), 0xc3, 200 << 10);
  CU_ASSERT_EQUAL(((uint8_t *)jit_code_rx(huge))[(200 << 10) - 1], 0xc3);
  jit_codemem_stats(cm, &st);
  CU_ASSERT_EQUAL(st.chunks, 2);
  CU_ASSERT_EQUAL(st.live, 202);
  for (int i = 0; i < 200; i++)
    CU_ASSERT_EQUAL(call_ret(jit_code_rx(c[i])), MAGIC + (i % 2 ? 0 : 1000) + (uint64_t)i);
  CU_ASSERT_EQUAL(jit_code_alloc(cm, 0, &big), JIT_EINVAL);
  jit_codemem_destroy(cm); /* frees what is still allocated */
}

/* reserve maps a chunk at creation; the allocations it covers map none. */
static void reserve_maps_the_first_chunk_at_creation(void)
{
  jit_codemem_options_t o = {0};
  jit_codemem_t *cm;
  jit_codemem_stats_t st;

  o.chunk_size = 64 << 10;
  o.reserve = 1;
  CU_ASSERT_EQUAL_FATAL(jit_codemem_create(&o, &cm), JIT_OK);
  jit_codemem_stats(cm, &st);
  CU_ASSERT_EQUAL(st.chunks, 1);
  CU_ASSERT_EQUAL(st.mapped, (size_t)64 << 10);
  jit_code_t *c = make_ret(cm, MAGIC);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_EQUAL(call_ret(jit_code_rx(c)), MAGIC);
  jit_codemem_stats(cm, &st);
  CU_ASSERT_EQUAL(st.chunks, 1);
  jit_codemem_destroy(cm);
  /* More than a chunk: rounded up to whole pages, in one chunk. */
  o.reserve = (64 << 10) + 1;
  CU_ASSERT_EQUAL_FATAL(jit_codemem_create(&o, &cm), JIT_OK);
  jit_codemem_stats(cm, &st);
  CU_ASSERT_EQUAL(st.chunks, 1);
  CU_ASSERT(st.mapped > (size_t)64 << 10);
  jit_codemem_destroy(cm);
}

/* --- W^X while synthesising ---------------------------------------------- */

static atomic_int synth_done;
static atomic_long synth_count;

static void *synth_thread(void *arg)
{
  jit_codemem_options_t o = {0};
  (void)arg;
  o.chunk_size = 16 << 10;
  while (!atomic_load(&synth_done)) {
    jit_codemem_t *cm;
    jit_code_t *c[64];
    if (jit_codemem_create(&o, &cm) < 0)
      break;
    for (int i = 0; i < 64; i++) {
      uint64_t v[TB_HOLE__COUNT] = {0};
      v[TB_HOLE_hole_k] = (uint64_t)i;
      if (jit_code_alloc(cm, 1000, &c[i]) < 0)
        abort();
      if (jit_emit(jit_code_rw(c[i]), (uint64_t)(uintptr_t)jit_code_rx(c[i]), &tb_stencil_t_add, v,
                   NULL) < 0)
        abort();
      jit_code_commit(c[i]);
      if (((fn1_t)jit_fn(jit_code_rx(c[i])))(100) != 100 + (uint64_t)i)
        abort();
    }
    atomic_fetch_add(&synth_count, 64);
    jit_codemem_destroy(cm);
  }
  return NULL;
}

static void no_rwx_mapping_while_synthesising(void)
{
  pthread_t t;
  long scans = 0, rwx = 0;
  char line[512];
  uint64_t end = now_ms() + 300;

  atomic_store(&synth_done, 0);
  atomic_store(&synth_count, 0);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, synth_thread, NULL), 0);
  while (now_ms() < end || scans < 20) {
    FILE *f = fopen("/proc/self/maps", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    while (fgets(line, sizeof line, f)) {
      char p[5];
      unsigned long lo, hi;
      if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && p[1] == 'w' && p[2] == 'x') {
        rwx++;
        fprintf(stderr, "rwx mapping: %s", line);
      }
    }
    fclose(f);
    scans++;
  }
  atomic_store(&synth_done, 1);
  pthread_join(t, NULL);
  CU_ASSERT_EQUAL(rwx, 0);
  CU_ASSERT(scans >= 20);
  CU_ASSERT(atomic_load(&synth_count) >= 64); /* chunks were mapped and code ran meanwhile */
}

/* --- Retirement after a grace period -------------------------------------- */

/* The entry readers call: the RX address, never the jit_code_t handle
 * (which belongs to the writer and is freed with the code). */
static void *_Atomic published;
static atomic_int reader_phase;        /* 1: inside the read section holding old code; 2: may leave */
static atomic_long reader_bad;

static void *holding_reader(void *arg)
{
  const void *rx;
  (void)arg;
  urcu_memb_register_thread();
  urcu_memb_read_lock();
  rx = atomic_load_explicit(&published, memory_order_acquire);
  atomic_store(&reader_phase, 1);
  /* Keep calling the old code while the writer retires it. */
  while (atomic_load(&reader_phase) != 2)
    if (call_ret(rx) != MAGIC + 1)
      atomic_fetch_add(&reader_bad, 1);
  for (int i = 0; i < 1000; i++)
    if (call_ret(rx) != MAGIC + 1)
      atomic_fetch_add(&reader_bad, 1);
  urcu_memb_read_unlock();
  urcu_memb_unregister_thread();
  return NULL;
}

static void *retire_sync_thread(void *arg)
{
  jit_code_retire_sync(arg);
  return NULL;
}

static void retire_frees_only_after_reader_leaves(int sync)
{
  jit_codemem_t *cm;
  jit_code_t *old, *cur, *extra[64];
  jit_codemem_stats_t st;
  pthread_t r, w;
  uintptr_t old_lo;
  uint64_t deadline;

  CU_ASSERT_EQUAL_FATAL(jit_codemem_create(NULL, &cm), JIT_OK);
  old = make_ret(cm, MAGIC + 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(old);
  old_lo = (uintptr_t)jit_code_rx(old);
  atomic_store(&published, jit_code_rx(old));
  atomic_store(&reader_phase, 0);
  atomic_store(&reader_bad, 0);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&r, NULL, holding_reader, NULL), 0);
  while (atomic_load(&reader_phase) != 1)
    sleep_ms(1);

  /* Swap: publish the new code, then retire the old. */
  cur = make_ret(cm, MAGIC + 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
  atomic_store_explicit(&published, jit_code_rx(cur), memory_order_release);
  if (sync) {
    CU_ASSERT_EQUAL_FATAL(pthread_create(&w, NULL, retire_sync_thread, old), 0);
  } else {
    urcu_memb_register_thread();
    jit_code_retire(old);
  }
  sleep_ms(50);
  jit_codemem_stats(cm, &st);
  CU_ASSERT_EQUAL(st.retiring, 1); /* the reader is still inside: not freed */
  CU_ASSERT_EQUAL(st.live, 2);
  /* Its granules are not handed out meanwhile. */
  for (int i = 0; i < 64; i++) {
    extra[i] = make_ret(cm, MAGIC + 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(extra[i]);
    CU_ASSERT((uintptr_t)jit_code_rx(extra[i]) != old_lo);
  }
  atomic_store(&reader_phase, 2);
  pthread_join(r, NULL);
  if (sync)
    pthread_join(w, NULL);
  deadline = now_ms() + 5000;
  do {
    jit_codemem_stats(cm, &st);
    if (st.retiring == 0)
      break;
    sleep_ms(1);
  } while (now_ms() < deadline);
  CU_ASSERT_EQUAL(st.retiring, 0);
  CU_ASSERT_EQUAL(st.live, 1 + 64);
  CU_ASSERT_EQUAL(atomic_load(&reader_bad), 0);
  CU_ASSERT_EQUAL(call_ret(jit_code_rx(cur)), MAGIC + 2);
  if (!sync)
    urcu_memb_unregister_thread();
  for (int i = 0; i < 64; i++)
    jit_code_free(extra[i]);
  jit_code_free(cur);
  jit_codemem_destroy(cm);
}

static void retire_frees_after_grace_period(void)
{
  retire_frees_only_after_reader_leaves(0);
}

static void retire_sync_waits_for_reader(void)
{
  retire_frees_only_after_reader_leaves(1);
}

/* Readers call whatever is published while a writer swaps versions and
 * retires the old ones. A version is published as its number, and the
 * number names the code and the value it must return (swap_code[v] holds
 * version v's code, which returns MAGIC + v): each reader must get exactly
 * the value of the version it loaded, so code freed and reused for a later
 * version while a reader was inside it (returning a larger value) fails,
 * and it must load versions in order. A reader yields inside its read-side
 * section between two calls of the same version, so that a writer that
 * did not wait for it would have reused the code by the second. */
#define SWAP_VERSIONS 3000
static atomic_int swap_done;
static atomic_int swap_version;
static const void *swap_code[SWAP_VERSIONS + 1];

static void *swapping_reader(void *arg)
{
  int last = 0;
  (void)arg;
  urcu_memb_register_thread();
  while (!atomic_load(&swap_done)) {
    urcu_memb_read_lock();
    int v = atomic_load_explicit(&swap_version, memory_order_acquire);
    uint64_t r = call_ret(swap_code[v]);
    sched_yield(); /* stay inside while the writer swaps on */
    r = r == MAGIC + (uint64_t)v ? call_ret(swap_code[v]) : r;
    urcu_memb_read_unlock();
    if (r != MAGIC + (uint64_t)v || v < last)
      atomic_fetch_add(&reader_bad, 1);
    last = v;
  }
  urcu_memb_unregister_thread();
  return NULL;
}

static void readers_survive_code_swaps(void)
{
  jit_codemem_options_t o = {0};
  jit_codemem_t *cm;
  jit_code_t *cur;
  pthread_t r[2];

  o.chunk_size = 16 << 10;
  CU_ASSERT_EQUAL_FATAL(jit_codemem_create(&o, &cm), JIT_OK);
  cur = make_ret(cm, MAGIC);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
  swap_code[0] = jit_code_rx(cur);
  atomic_store(&swap_version, 0);
  atomic_store(&reader_bad, 0);
  atomic_store(&swap_done, 0);
  for (int i = 0; i < 2; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&r[i], NULL, swapping_reader, NULL), 0);
  urcu_memb_register_thread();
  for (int v = 1; v <= SWAP_VERSIONS; v++) {
    jit_code_t *c = make_ret(cm, MAGIC + (uint64_t)v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    jit_code_t *old = cur;
    swap_code[v] = jit_code_rx(c);
    atomic_store_explicit(&swap_version, v, memory_order_release);
    cur = c;
    if (v % 4 == 0) {
      jit_code_retire_sync(old);
    } else {
      jit_code_retire(old);
    }
  }
  atomic_store(&swap_done, 1);
  for (int i = 0; i < 2; i++)
    pthread_join(r[i], NULL);
  urcu_memb_unregister_thread();
  jit_code_free(cur);
  jit_codemem_destroy(cm); /* waits for the pending retirements */
  CU_ASSERT_EQUAL(atomic_load(&reader_bad), 0);
}

int main(void)
{
  CU_pSuite s;
  unsigned failures;

  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("jit-codemem", NULL, NULL);
  CU_add_test(s, "rx_view_within_reach_of_text", rx_view_within_reach_of_text);
  CU_add_test(s, "allocations_batched_in_chunks_and_reused", allocations_batched_in_chunks_and_reused);
  CU_add_test(s, "reserve_maps_the_first_chunk_at_creation", reserve_maps_the_first_chunk_at_creation);
  CU_add_test(s, "no_rwx_mapping_while_synthesising", no_rwx_mapping_while_synthesising);
  CU_add_test(s, "retire_frees_after_grace_period", retire_frees_after_grace_period);
  CU_add_test(s, "retire_sync_waits_for_reader", retire_sync_waits_for_reader);
  CU_add_test(s, "readers_survive_code_swaps", readers_survive_code_swaps);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
