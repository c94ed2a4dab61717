/* codemem.c -- code memory: dual-mapped memfd chunks near the program text, freed after grace periods.
 *
 * Design notes.
 *
 * 1. Never writable and executable at once. A chunk is one memfd mapped
 *    twice, MAP_SHARED: a read-write view the synthesiser writes through and
 *    a read-execute view callers run. No mapping is ever rwx; the RW view's
 *    address is never handed to callers.
 *
 * 2. Placement. Stencils call C functions and each other through rel32
 *    fields (+-2 GiB). The RX view of every chunk is placed within
 *    JIT_REACH_WINDOW (1 GiB) of the loaded object that holds libjit (the
 *    program, when linked statically), found with dl_iterate_phdr: then any
 *    chunk reaches that text and any other chunk. Free gaps come from
 *    /proc/self/maps, nearest below the text first (above it is where brk
 *    grows), mapped with MAP_FIXED_NOREPLACE and re-scanned if another
 *    thread took the gap first. The result is checked, not trusted.
 *
 * 3. Allocation. Chunks are mapped in batches (JIT_CODEMEM_CHUNK bytes, one
 *    mmap pair per chunk, not per function) and carved into 64-byte
 *    granules tracked by a bitmap, allocated next-fit from a per-chunk hint.
 *    One mutex guards the chunk list, the bitmaps and the counters: it is
 *    taken by allocation, freeing and retirement, never by code callers.
 *
 * 4. The code-swap protocol (who may run what, and when it may be freed):
 *    a. the writer allocates, writes through the RW view, commits, and only
 *       then publishes the RX entry with a release store;
 *    b. readers load the entry (rcu_dereference) and call it inside a
 *       read-side section of one of the chunk's flavours;
 *    c. to replace code the writer publishes the new entry first, then
 *       retires the old code: it is freed after a grace period of every
 *       flavour, when no reader can still be inside it or about to enter it;
 *    d. only then may its granules be handed out again; a reader holding a
 *       stale entry therefore never runs half-written code.
 *    jit_code_retire uses call_rcu of the first flavour (its callback waits
 *    for the other flavours' grace periods); jit_code_retire_sync waits in
 *    the caller.
 *
 * 5. The call_rcu handoff is invisible to ThreadSanitizer (liburcu is not
 *    instrumented); it is annotated as a release/acquire pair on the code
 *    handle.
 *
 * 6. Instruction caches are coherent on x86-64; new code is reached only
 *    through a pointer loaded after it was written, and reused granules only
 *    after a grace period, so no thread can have the old bytes in flight.
 *    jit_code_commit still calls __builtin___clear_cache for other hosts.
 */
#include "jit-internal.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <urcu/urcu-memb.h>
#include <urcu/flavor.h>

#if defined(__SANITIZE_THREAD__)
#define JIT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define JIT_TSAN 1
#endif
#endif
#ifdef JIT_TSAN
#include <sanitizer/tsan_interface.h>
#define TSAN_RELEASE(p) __tsan_release(p)
#define TSAN_ACQUIRE(p) __tsan_acquire(p)
#else
#define TSAN_RELEASE(p) ((void)(p))
#define TSAN_ACQUIRE(p) ((void)(p))
#endif

/* Closes the chunk's memfd with the raw system call, as libuv closes its
 * sockets. ThreadSanitizer intercepts neither memfd_create nor libuv's
 * closes, so through close(3) it would take our fd for a socket that had
 * the same number earlier and report our close as racing with the loop's
 * epoll_ctl on it. The call is the same one close(3) makes. */
static void fd_close(int fd) { syscall(SYS_close, fd); }

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

typedef struct jit_chunk {
  struct jit_chunk *next;
  uint8_t *rw, *rx;
  size_t size;     /* bytes of each view */
  size_t ngran;    /* granules */
  size_t hint;     /* next-fit start */
  size_t nfree;    /* free granules */
  uint64_t *used;  /* bitmap, 1 = allocated */
} jit_chunk_t;

struct jit_code {
  struct rcu_head rcu;  /* first: call_rcu's handle */
  jit_codemem_t *cm;
  LIST_ENTRY(jit_code) link;     /* in cm->codes, under cm->lock */
  jit_chunk_t *chunk;
  size_t first, ngran;  /* granules */
  size_t size;          /* bytes asked for */
};

struct jit_codemem {
  pthread_mutex_t lock;
  pthread_cond_t idle;  /* signalled when `retiring` drops to 0 */
  jit_chunk_t *chunks;
  LIST_HEAD(, jit_code) codes; /* every allocation not yet freed */
  size_t chunk_size;
  const struct rcu_flavor_struct *flavors[JIT_CODEMEM_FLAVORS_MAX];
  size_t nflavors;
  uintptr_t text_lo, text_hi;
  size_t nchunks, mapped, live, live_bytes, retiring, freed;
};

/* --- Where the program text is ------------------------------------------ */

static const char jit_anchor = 0; /* lies in libjit's own object */

typedef struct span_ctx {
  uintptr_t probe, lo, hi;
  int found;
} span_ctx_t;

static int span_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  span_ctx_t *c = data;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  int hit = 0;
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr, e = a + ph->p_memsz;
    if (a < lo)
      lo = a;
    if (e > hi)
      hi = e;
    if (c->probe >= a && c->probe < e)
      hit = 1;
  }
  if (!hit)
    return 0;
  c->lo = lo;
  c->hi = hi;
  c->found = 1;
  return 1;
}

int jit__text_span(uintptr_t *lo, uintptr_t *hi)
{
  span_ctx_t c = {(uintptr_t)&jit_anchor, 0, 0, 0};
  dl_iterate_phdr(span_cb, &c);
  if (!c.found)
    return JIT_ENOMAP;
  *lo = c.lo;
  *hi = c.hi;
  return JIT_OK;
}

/* --- Mapping chunks ------------------------------------------------------ */

typedef struct range {
  uintptr_t lo, hi;
} range_t;

/* The process's mappings, sorted, in a malloc'd array (*n entries). */
static range_t *read_maps(size_t *n)
{
  FILE *f = fopen("/proc/self/maps", "re");
  range_t *r = NULL, *nr;
  size_t cap = 0;
  char line[512];

  *n = 0;
  if (!f)
    return NULL;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    size_t len = strlen(line);
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
      if (*n == cap) {
        cap = cap ? 2 * cap : 128;
        nr = realloc(r, cap * sizeof *r);
        if (!nr) {
          free(r);
          fclose(f);
          *n = 0;
          return NULL;
        }
        r = nr;
      }
      r[*n].lo = lo;
      r[*n].hi = hi;
      (*n)++;
    }
    /* Skip the rest of an overlong line. */
    while (len && line[len - 1] != '\n' && fgets(line, sizeof line, f))
      len = strlen(line);
  }
  fclose(f);
  return r;
}

/* Choose a free address for `len` bytes within reach of [lo, hi): the
 * nearest below the text, else the nearest above. 0 if none. */
static uintptr_t choose_gap(uintptr_t lo, uintptr_t hi, size_t len, size_t page)
{
  size_t n;
  range_t *maps = read_maps(&n);
  uintptr_t wlo = hi > JIT_REACH_WINDOW + (1u << 16) ? hi - JIT_REACH_WINDOW : (1u << 16);
  uintptr_t whi = lo + JIT_REACH_WINDOW;
  uintptr_t below = 0, above = 0, prev = 1u << 16;

  if (!maps)
    return 0;
  for (size_t i = 0; i <= n; i++) {
    uintptr_t glo = prev, ghi = i < n ? maps[i].lo : whi;
    if (i < n && maps[i].hi > prev)
      prev = maps[i].hi;
    if (glo < wlo)
      glo = wlo;
    if (ghi > whi)
      ghi = whi;
    glo = (glo + page - 1) & ~(uintptr_t)(page - 1);
    if (ghi <= glo || ghi - glo < len)
      continue;
    if (ghi <= lo) {
      uintptr_t c = (ghi - len) & ~(uintptr_t)(page - 1);
      if (c >= glo && c > below)
        below = c;
    } else if (glo >= hi && !above) {
      above = glo;
    }
  }
  free(maps);
  return below ? below : above;
}

static int in_reach(uintptr_t c, size_t len, uintptr_t lo, uintptr_t hi)
{
  const uintptr_t reach = (uintptr_t)1 << 31;
  return c + len <= lo + reach && hi <= c + reach;
}

/* Map a chunk of `len` bytes: RW view anywhere, RX view near the text. */
static int chunk_map(jit_codemem_t *cm, size_t len, jit_chunk_t **out)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  jit_chunk_t *ch = calloc(1, sizeof *ch);
  void *rw = MAP_FAILED, *rx = MAP_FAILED;
  int fd = -1, rc = JIT_ENOMEM;

  if (!ch)
    goto fail;
  ch->ngran = len / JIT_CODE_GRANULE;
  ch->used = calloc((ch->ngran + 63) / 64, sizeof *ch->used);
  if (!ch->used)
    goto fail;
  rc = JIT_ESYS;
  fd = memfd_create("qua-jit", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
    goto fail;
  /* MAP_POPULATE: the pages are allocated and mapped now, so that writing
   * and running code later takes no page fault in either view. */
  rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (rw == MAP_FAILED)
    goto fail;
  rc = JIT_ENOMAP;
  for (int tries = 0; tries < JIT_MAP_TRIES; tries++) {
    uintptr_t at = choose_gap(cm->text_lo, cm->text_hi, len, page);
    if (!at)
      break;
    rx = mmap((void *)at, len, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_POPULATE,
              fd, 0);
    if (rx == (void *)at)
      break;
    if (rx != MAP_FAILED) /* an old kernel took the address as a hint */
      munmap(rx, len);
    rx = MAP_FAILED;
  }
  if (rx == MAP_FAILED || !in_reach((uintptr_t)rx, len, cm->text_lo, cm->text_hi))
    goto fail;
  fd_close(fd);
  ch->rw = rw;
  ch->rx = rx;
  ch->size = len;
  ch->nfree = ch->ngran;
  *out = ch;
  return JIT_OK;

fail:
  if (rx != MAP_FAILED)
    munmap(rx, len);
  if (rw != MAP_FAILED)
    munmap(rw, len);
  if (fd >= 0)
    fd_close(fd);
  if (ch)
    free(ch->used);
  free(ch);
  return rc;
}

static void chunk_unmap(jit_chunk_t *ch)
{
  munmap(ch->rx, ch->size);
  munmap(ch->rw, ch->size);
  free(ch->used);
  free(ch);
}

/* --- Granule bitmap ------------------------------------------------------ */

static int bit(const uint64_t *bm, size_t i)
{
  return (int)((bm[i >> 6] >> (i & 63)) & 1);
}

/* First run of n free granules starting in [from, to), or SIZE_MAX. */
static size_t run_search(const uint64_t *bm, size_t ngran, size_t from, size_t to, size_t n)
{
  size_t i = from, run = 0, start = from;
  while (i < ngran && (run > 0 || i < to)) {
    if (run == 0 && (i & 63) == 0 && bm[i >> 6] == ~(uint64_t)0) {
      i += 64;
      continue;
    }
    if (bit(bm, i)) {
      run = 0;
    } else {
      if (run++ == 0)
        start = i;
      if (run == n)
        return start;
    }
    i++;
  }
  return SIZE_MAX;
}

static void mark(uint64_t *bm, size_t first, size_t n, int on)
{
  for (size_t i = first; i < first + n; i++) {
    if (on)
      bm[i >> 6] |= (uint64_t)1 << (i & 63);
    else
      bm[i >> 6] &= ~((uint64_t)1 << (i & 63));
  }
}

static size_t chunk_alloc(jit_chunk_t *ch, size_t n)
{
  size_t at;
  if (ch->nfree < n)
    return SIZE_MAX;
  at = run_search(ch->used, ch->ngran, ch->hint, ch->ngran, n);
  if (at == SIZE_MAX)
    at = run_search(ch->used, ch->ngran, 0, ch->hint, n);
  if (at == SIZE_MAX)
    return SIZE_MAX;
  mark(ch->used, at, n, 1);
  ch->nfree -= n;
  ch->hint = at + n < ch->ngran ? at + n : 0;
  return at;
}

/* --- Public API ---------------------------------------------------------- */

/* Maps one more chunk of at least `bytes` (a whole chunk at the least); cm->lock held. */
static int codemem_grow(jit_codemem_t *cm, size_t bytes, jit_chunk_t **out)
{
  size_t len = bytes > cm->chunk_size ? bytes : cm->chunk_size;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  len = (len + page - 1) / page * page;
  jit_chunk_t *ch;
  int rc = chunk_map(cm, len, &ch);
  if (rc < 0)
    return rc;
  ch->next = cm->chunks;
  cm->chunks = ch;
  cm->nchunks++;
  cm->mapped += len;
  *out = ch;
  return JIT_OK;
}

int jit_codemem_create(const jit_codemem_options_t *opts, jit_codemem_t **out)
{
  jit_codemem_t *cm;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  int rc;

  if (!out)
    return JIT_EINVAL;
  *out = NULL;
  cm = calloc(1, sizeof *cm);
  if (!cm)
    return JIT_ENOMEM;
  cm->chunk_size = opts && opts->chunk_size ? opts->chunk_size : JIT_CODEMEM_CHUNK;
  cm->chunk_size = (cm->chunk_size + page - 1) / page * page;
  for (size_t i = 0; opts && i < JIT_CODEMEM_FLAVORS_MAX && opts->flavors[i]; i++)
    cm->flavors[cm->nflavors++] = opts->flavors[i];
  if (!cm->nflavors)
    cm->flavors[cm->nflavors++] = &urcu_memb_flavor;
  rc = jit__text_span(&cm->text_lo, &cm->text_hi);
  if (rc < 0) {
    free(cm);
    return rc;
  }
  pthread_mutex_init(&cm->lock, NULL);
  pthread_cond_init(&cm->idle, NULL);
  if (opts && opts->reserve) {
    jit_chunk_t *ch;
    rc = codemem_grow(cm, opts->reserve, &ch); /* no lock: nobody else has cm yet */
    if (rc < 0) {
      jit_codemem_destroy(cm);
      return rc;
    }
  }
  *out = cm;
  return JIT_OK;
}

void jit_codemem_destroy(jit_codemem_t *cm)
{
  jit_chunk_t *ch, *next;
  if (!cm)
    return;
  pthread_mutex_lock(&cm->lock);
  while (cm->retiring)
    pthread_cond_wait(&cm->idle, &cm->lock);
  pthread_mutex_unlock(&cm->lock);
  while (!LIST_EMPTY(&cm->codes)) {
    jit_code_t *c = LIST_FIRST(&cm->codes);
    LIST_REMOVE(c, link);
    free(c);
  }
  for (ch = cm->chunks; ch; ch = next) {
    next = ch->next;
    chunk_unmap(ch);
  }
  pthread_cond_destroy(&cm->idle);
  pthread_mutex_destroy(&cm->lock);
  free(cm);
}

void jit_codemem_stats(jit_codemem_t *cm, jit_codemem_stats_t *st)
{
  pthread_mutex_lock(&cm->lock);
  st->chunks = cm->nchunks;
  st->mapped = cm->mapped;
  st->live = cm->live;
  st->live_bytes = cm->live_bytes;
  st->retiring = cm->retiring;
  st->freed = cm->freed;
  pthread_mutex_unlock(&cm->lock);
}

int jit_code_alloc(jit_codemem_t *cm, size_t size, jit_code_t **out)
{
  jit_code_t *c;
  jit_chunk_t *ch;
  size_t n, at = SIZE_MAX;
  int rc;

  if (!cm || !out || size == 0 || size > ((size_t)1 << 30))
    return JIT_EINVAL;
  *out = NULL;
  c = calloc(1, sizeof *c);
  if (!c)
    return JIT_ENOMEM;
  n = (size + JIT_CODE_GRANULE - 1) / JIT_CODE_GRANULE;

  pthread_mutex_lock(&cm->lock);
  for (ch = cm->chunks; ch; ch = ch->next)
    if ((at = chunk_alloc(ch, n)) != SIZE_MAX)
      break;
  if (!ch) {
    rc = codemem_grow(cm, n * JIT_CODE_GRANULE, &ch);
    if (rc < 0) {
      pthread_mutex_unlock(&cm->lock);
      free(c);
      return rc;
    }
    at = chunk_alloc(ch, n);
  }
  c->cm = cm;
  c->chunk = ch;
  c->first = at;
  c->ngran = n;
  c->size = size;
  LIST_INSERT_HEAD(&cm->codes, c, link);
  cm->live++;
  cm->live_bytes += n * JIT_CODE_GRANULE;
  pthread_mutex_unlock(&cm->lock);
  *out = c;
  return JIT_OK;
}

void *jit_code_rw(const jit_code_t *c)
{
  return c->chunk->rw + c->first * JIT_CODE_GRANULE;
}

void *jit_code_rx(const jit_code_t *c)
{
  return c->chunk->rx + c->first * JIT_CODE_GRANULE;
}

size_t jit_code_size(const jit_code_t *c)
{
  return c->size;
}

void jit_code_commit(jit_code_t *c)
{
  char *rx = jit_code_rx(c);
  __builtin___clear_cache(rx, rx + c->size);
  __asm__ __volatile__("" ::: "memory"); /* publishing is the caller's release store */
}

/* Called with cm->lock held. */
static void free_locked(jit_codemem_t *cm, jit_code_t *c)
{
  jit_chunk_t *ch = c->chunk;
  mark(ch->used, c->first, c->ngran, 0);
  ch->nfree += c->ngran;
  LIST_REMOVE(c, link);
  cm->live--;
  cm->live_bytes -= c->ngran * JIT_CODE_GRANULE;
  cm->freed++;
}

void jit_code_free(jit_code_t *c)
{
  jit_codemem_t *cm;
  if (!c)
    return;
  cm = c->cm;
  pthread_mutex_lock(&cm->lock);
  free_locked(cm, c);
  pthread_mutex_unlock(&cm->lock);
  free(c);
}

/* Retirement: counted from the call until the code is freed, so that
 * jit_codemem_destroy can wait for every retired piece. */
static void retire_begin(jit_code_t *c)
{
  pthread_mutex_lock(&c->cm->lock);
  c->cm->retiring++;
  pthread_mutex_unlock(&c->cm->lock);
}

/* Frees retired code once every flavour's grace period has passed. */
static void retire_end(jit_code_t *c)
{
  jit_codemem_t *cm = c->cm;
  pthread_mutex_lock(&cm->lock);
  free_locked(cm, c);
  if (--cm->retiring == 0)
    pthread_cond_broadcast(&cm->idle);
  pthread_mutex_unlock(&cm->lock);
  free(c);
}

static void retire_cb(struct rcu_head *head)
{
  jit_code_t *c = caa_container_of(head, jit_code_t, rcu);
  jit_codemem_t *cm;

  TSAN_ACQUIRE(c);
  cm = c->cm;
  /* call_rcu ran after the first flavour's grace period; wait for the rest. */
  for (size_t i = 1; i < cm->nflavors; i++)
    cm->flavors[i]->update_synchronize_rcu();
  retire_end(c);
}

void jit_code_retire(jit_code_t *c)
{
  const struct rcu_flavor_struct *first;

  if (!c)
    return;
  retire_begin(c);
  /* Every instrumented access to *c comes before the release: once
   * call_rcu has queued it, the callback thread may free it, and the
   * queue's own ordering is invisible to ThreadSanitizer. */
  first = c->cm->flavors[0];
  TSAN_RELEASE(c);
  first->update_call_rcu(&c->rcu, retire_cb);
}

void jit_code_retire_sync(jit_code_t *c)
{
  if (!c)
    return;
  retire_begin(c);
  for (size_t i = 0; i < c->cm->nflavors; i++)
    c->cm->flavors[i]->update_synchronize_rcu();
  retire_end(c);
}

jit_fn_t jit_fn(const void *rx)
{
  jit_fn_t f;
  memcpy(&f, &rx, sizeof f);
  return f;
}
