/* state.c -- quad --state-dir: the published graph written ahead, contents saved at exit.
 *
 * Design note.
 *
 * What is saved. The published quajects (those with a name): their type,
 * their create parameters as given (target=m68k shows in the type's name,
 * "m68k-queue"), the creator's identity (uid, or the TCP token's holder),
 * so that the owner may still unpublish, close or destroy after a restart,
 * whether a queue is closed, and the wires whose two ends are both
 * published. An unpublished quaject belongs to its connection and dies
 * with it, so it is never saved, nor is a wire to or from one. Handles,
 * bindings (callbacks and drains) and credits are per connection: clients
 * open the names again after a restart.
 *
 * When. Every control operation that may change that graph calls
 * quad_state_changed(c) as it replies to connection c: the graph is
 * serialised on the loop, and when it differs from the last one submitted
 * a new generation is written by a control job on quad's worker (work.c),
 * so the loop never waits for the disk. The write-ahead guarantee holds
 * per connection:
 *
 *   W1. c's output is held (quad_conn_hold_output) from the change until
 *       the job has written and fsynced it: the reply that says "done",
 *       appended meanwhile, goes out only once the change is on disk, and
 *       so does every reply and event after it (their order is kept).
 *   W2. The job is a request job of c (c is busy): c decodes no further
 *       request, and a close waits, until it is done.
 *   W3. The writes run one at a time in submission order, in a lane of
 *       their own (work.c note 2: control jobs do not wait for the disk),
 *       so generations are written in the order of the changes, each the
 *       whole graph as of its change; only the running write touches
 *       st.gen and the files.
 *   W4. Other connections go on meanwhile, and may see the change (List,
 *       Open) up to one write before it is durable; its author is not
 *       answered before it is.
 *
 * A write that fails is logged and replaces nothing; the change stays in
 * force, the reply goes out, and the next change (or the exit) writes the
 * whole graph again. At an
 * orderly exit (SIGTERM, SIGINT), once every connection has closed,
 * quad_state_save_final() stops the active quajects by unwiring their
 * callouts and writes the graph with the contents:
 *
 *   queue, m68k-queue   the words, oldest first (taken with get, put back)
 *   buffer              the bytes, oldest first (getb, putb)
 *   m68k-stack          the words, top first (pop; pushed back in reverse)
 *   counter, m68k-counter  the value (read; restored by add)
 *
 * Not saved: what a pump has moved (moved=, sleeps=) and an item a pump
 * holds because its sink was full when it was stopped (at most one per
 * pump: its lost= counts it as it goes); a clock's ticks; a link's
 * unacknowledged items and sequence numbers (the link is made again from its parameters
 * and connects afresh; the peer-side state of links other quads opened
 * here is not saved either, so a sender's items not yet acknowledged
 * before this quad stopped may be applied again); tees and links hold no
 * contents. After kill -9 the graph comes back as of its last change, and
 * each queue, buffer, counter and m68k queue, stack and counter with what
 * its ring file held (notes R1-R7 below); pumps, clocks, tees and links
 * hold nothing that is kept.
 *
 * Contents after a crash (kill -9, or any death of the process but the
 * machine's). "Ring" below is a quaject's storage (qua_set_storage): a
 * queue's ring, a buffer's positions and byte ring, a counter's word, an
 * m68k quaject's shadow.
 *
 * R1. With --state-dir every queue keeps its ring (the lock-free queue's
 *     indices and slots, quaject/lfq.h), every buffer its positions and
 *     bytes (quaject/buffer.c, notes 4-6), every counter its word
 *     (quaject/counter.c, notes 1-2) and every m68k quaject a shadow of
 *     its contents (m68k.c, note 6) in a file mapped MAP_SHARED,
 *     DIR/ring.<token> (qua_set_storage): a 4096-byte header (RING_*
 *     below: magic, token, size, the type's storage layout number
 *     (qua_storage_layout), the boot id), then the storage. Puts, gets,
 *     writes, reads and adds are the same stores as in private memory:
 *     nothing is added to the hot path (an m68k call adds one or two
 *     stores to the shadow). The page cache keeps the pages of a process
 *     that died, so the file holds the storage as of the last instruction
 *     executed. The kernel writes dirty pages back in the background (at
 *     most the storage's size per writeback interval): disk traffic, never
 *     a wait of the callers; a ring file is as large as its storage (a
 *     queue's 16 bytes a slot, sparse until used; a buffer's capacity plus
 *     192 bytes; a counter's 8 bytes) plus 4096 bytes.
 * R2. Published quajects' tokens are in the graph (format version 2),
 *     which is written ahead as before, so the graph on disk names each
 *     published quaject's ring; a ring's token never changes while its
 *     quaject lives.
 * R3. At start, when the newest generation has no contents (the last run
 *     did not end in an orderly exit), each quaject is made anew with a new
 *     ring, and the contents of its old ring (qua_storage_recover: lfq.c
 *     note 24 for a queue, buffer.c note 5, counter.c note 2, m68k.c note
 *     6) are put into it through its callentries as the contents of a
 *     state file are, oldest first (a stack bottom first); then the next
 *     generation is written, naming the new rings, before any client is
 *     accepted (quad does not start if that write fails), and only then
 *     are the old ring files removed. A crash in between leaves the old
 *     generation naming the old rings, untouched (only read): nothing is
 *     lost or doubled by a crash during the restore. Ring files that no
 *     generation names (unpublished quajects, or rings made by a start that
 *     crashed before its write) are removed at start.
 * R4. What a crash can lose or keep, per operation in flight at the kill:
 *     a put whose reply did not go out is there iff it had published its
 *     item (so a client that retries it may store it twice); a get whose
 *     reply did not go out took its item iff it had moved the ring's tail,
 *     and that item is lost; a pump that had taken a batch from its source
 *     and not yet put it into its sink loses that batch (at most 64 items,
 *     quaject/pump.c), and a drain the items it had taken and not yet sent.
 *     No item that a get or a drain delivered comes back. A buffer comes
 *     back with the bytes of a prefix of its writes minus those of a prefix
 *     of its reads (buffer.c, note 6): the write and the read in flight are
 *     each there wholly or not. A counter reads its last completed add, or
 *     the one in flight with it. An m68k quaject's shadow counts a call iff
 *     its commit had run (m68k.c, note 6), and always before its reply.
 * R5. A ring written before the machine restarted (its boot id is not the
 *     running kernel's) is not trusted (the page cache did not survive; the
 *     file's pages may be of any age): its quaject comes back empty (a
 *     counter at its initial=), and the log says so. Durability across
 *     power loss is the orderly exit's (and a SIGTERM before shutdown saves
 *     everything).
 * R6. A ring file whose header or contents do not match (magic, token,
 *     size, layout; then what the type's recover checks: a queue's
 *     indices, a buffer's positions, an m68k shadow's counts) is refused:
 *     the log names it and why, the file is renamed ring.<token>.bad (kept
 *     for the operator; no scan matches that name), its quaject comes back
 *     empty, and the rest of the graph is restored. Contents that cannot
 *     be trusted are lost; a quad that does not start loses everything
 *     until the operator acts. A missing one (an orderly exit removes the
 *     rings, so a start from the generation before its state file finds
 *     none) leaves its quaject empty, and the log says so.
 * R7. At an orderly exit the contents are read from the rings
 *     (not taken: nothing moves once every connection has gone and the
 *     active quajects are unwired) into the state file (above); a kill
 *     before that file is on disk leaves the rings as they were, for R3.
 *     After a start from contents no ring is read: the items come from the
 *     state file. A destroyed quaject's ring file is removed, except after
 *     a final save that failed: the newest generation still names the
 *     rings, and the next start recovers the contents from them (R3).
 *
 * Generations. Files are DIR/state.NNNNNNNNNN (the generation, 10 digits).
 * A write goes to state.N.tmp, is fsynced, renamed to state.N, and the
 * directory is fsynced; only then is state.(N-2) removed. So the newest
 * good generation is never overwritten or removed before its successor is
 * on disk, and the previous one is kept. At start the newest generation is
 * read; if it is corrupt or truncated quad refuses to start, naming the
 * file and the previous generation, and changes nothing: the operator may
 * move the bad file aside to start from the previous one.
 *
 * Contents are applied once. After restoring a generation that has
 * contents, quad writes a new generation without them before it accepts a
 * client; otherwise a crash later would put back items already delivered.
 *
 * The format (version 2; integers little-endian; version 1 lacks the ring):
 *
 *   header, 48 bytes
 *     0  "QUASTATE"
 *     8  u32 version (2)
 *    12  u32 flags: 1 = contents (written at an orderly exit)
 *    16  u64 generation (the file's name must say the same)
 *    24  u64 time written (seconds since the epoch)
 *    32  u64 bytes of records that follow (the file has exactly these)
 *    40  u32 crc32 (zlib) of the records
 *    44  u32 crc32 of bytes 0..43
 *   records
 *     u32 quajects, then each: str name, str type, i64 creator,
 *         u32 parameters and a str each, u8 closed, u8 contents kind
 *         (0 none, 1 words in order, 2 words top first, 3 bytes, 4 value),
 *         u64 n, then n u64 words (kinds 1, 2, 4) or n bytes (kind 3),
 *         u64 ring token (R2; 0: none)
 *     u32 wires, then each: str source, str callout, str target, str entry
 *   str: u32 length (1 or more; names 1..63), then the bytes (no NUL)
 *
 * All of it runs on the loop thread, except the writes of changes (W1-W3):
 * the restore at start and the final save at exit write on the loop.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "quad-internal.h"
#include "quad-m68k.h"
#include "quad-state.h"
#include "registry.h"

#define ST_MAGIC "QUASTATE"
#define ST_VERSION 2u /* 2: each quaject's ring token (R2); 1 is read too */
#define ST_HEADER 48
#define ST_F_CONTENTS 1u
/* Contents of one quaject at most: a queue's or buffer's largest capacity. */
#define ST_ITEMS_MAX ((uint64_t)1 << 24)

enum { ST_NONE, ST_FIFO, ST_LIFO, ST_BYTES, ST_VALUE, ST_KINDS };

/* How each type's contents are taken out and put back (design note). */
static const struct st_kind {
  const char *type;
  const char *take, *give;
  int kind;
} st_kinds[] = {
    {"queue", "get", "put", ST_FIFO},          {"m68k-queue", "get", "put", ST_FIFO},
    {"m68k-stack", "pop", "push", ST_LIFO},    {"buffer", "getb", "putb", ST_BYTES},
    {"counter", "read", "add", ST_VALUE},      {"m68k-counter", "read", "add", ST_VALUE},
};

static const struct st_kind *kind_of(const char *type) {
  for (size_t i = 0; i < sizeof st_kinds / sizeof st_kinds[0]; i++)
    if (strcmp(st_kinds[i].type, type) == 0)
      return &st_kinds[i];
  return NULL;
}

/* One saved quaject, as written or as read. */
typedef struct st_obj {
  char name[QUA_NAME_MAX + 1];
  char type[QUA_NAME_MAX + 1];
  int64_t ident;
  const char *params[QUA_MAX_PARAMS * 4];
  uint32_t nparams;
  bool closed;
  int kind;
  uint64_t n;
  uint64_t *items; /* kinds FIFO, LIFO, VALUE (malloc'ed) */
  uint8_t *bytes;  /* kind BYTES (malloc'ed) */
  uint64_t ring;   /* the quaject's ring file (R2), 0: none */
  qua_quaject_t *q;
} st_obj_t;

typedef struct st_wire {
  char src[QUA_NAME_MAX + 1], callout[QUA_NAME_MAX + 1];
  char dst[QUA_NAME_MAX + 1], entry[QUA_NAME_MAX + 1];
} st_wire_t;

typedef struct st_graph {
  st_obj_t *objs;
  uint32_t nobjs;
  st_wire_t *wires;
  uint32_t nwires;
  char *strings; /* a read file's parameter strings (malloc'ed) */
} st_graph_t;

static struct {
  bool open;
  char dir[PATH_MAX];
  int dirfd, lockfd;
  uint64_t gen;     /* the newest generation on disk (0: none) */
  uint8_t *last;    /* the records of the last graph-only write submitted */
  size_t last_len;
  unsigned writing; /* write jobs submitted and not done (loop only) */
  bool keep_rings;  /* the final save failed: destroyed quajects leave their ring files */
} st = {.dirfd = -1, .lockfd = -1};

static void graph_free(st_graph_t *g) {
  for (uint32_t i = 0; i < g->nobjs; i++) {
    free(g->objs[i].items);
    free(g->objs[i].bytes);
  }
  free(g->objs);
  free(g->wires);
  free(g->strings);
  memset(g, 0, sizeof *g);
}

/* The state folder, read from its first entry. A dup shares the file offset
 * with st.dirfd, which an earlier scan left at the end: without the rewind
 * every scan after the first would see no file. */
static DIR *dir_scan(void) {
  int fd = dup(st.dirfd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (d != NULL)
    rewinddir(d);
  else if (fd >= 0)
    close(fd);
  return d;
}

/* --- Rings in files (R1-R7) ------------------------------------------------------------ */

#define RING_MAGIC "QUARING1"
#define RING_HEADER 4096
/* Header fields: 0 magic, 8 token, 16 bytes of ring, 24 layout, 32 boot id (36 chars). */
#define RING_BOOT_ID 32
#define RING_BOOT_LEN 36

static char boot_id[RING_BOOT_LEN + 1];

static void ring_name(char *buf, size_t len, uint64_t token) {
  snprintf(buf, len, "ring.%016" PRIx64, token);
}

/* The token of a ring's storage (ring_map's memory), or 0 for none. */
static uint64_t ring_token(const void *mem) {
  uint64_t t = 0;
  if (mem != NULL)
    memcpy(&t, (const uint8_t *)mem - RING_HEADER + 8, 8);
  return t;
}

/* qua_storage_t's map: a new file DIR/ring.<random token>, mapped shared. */
static void *ring_map(void *ctx, const qua_type_t *type, size_t bytes) {
  (void)ctx;
  for (int tries = 0; tries < 4; tries++) {
    uint64_t token = 0;
    char name[40], path[PATH_MAX + 48];
    if (getrandom(&token, sizeof token, 0) != (ssize_t)sizeof token || token == 0)
      continue;
    ring_name(name, sizeof name, token);
    snprintf(path, sizeof path, "%s/%s", st.dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST)
      continue;
    uint8_t *base = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)(RING_HEADER + bytes)) == 0)
      base = mmap(NULL, RING_HEADER + bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    if (fd >= 0)
      close(fd);
    if (base == MAP_FAILED) {
      if (fd >= 0)
        unlink(path);
      quad_log(QUAD_LOG_ERROR, "state: cannot make the ring file %s: %s (this %s keeps its "
               "state in memory, and comes back empty after a crash)", path, strerror(err),
               type->name);
      return NULL;
    }
    uint64_t layout = qua_storage_layout(type), n = bytes;
    memcpy(base, RING_MAGIC, 8);
    memcpy(base + 8, &token, 8);
    memcpy(base + 16, &n, 8);
    memcpy(base + 24, &layout, 8);
    memcpy(base + RING_BOOT_ID, boot_id, RING_BOOT_LEN);
    return base + RING_HEADER;
  }
  quad_log(QUAD_LOG_ERROR, "state: no token for a ring file (this %s keeps its state in memory)",
           type->name);
  return NULL;
}

/* qua_storage_t's unmap: the queue is destroyed; its file goes. */
static void ring_unmap(void *ctx, void *mem, size_t bytes) {
  (void)ctx;
  char name[40], path[PATH_MAX + 48];
  ring_name(name, sizeof name, ring_token(mem));
  snprintf(path, sizeof path, "%s/%s", st.dir, name);
  munmap((uint8_t *)mem - RING_HEADER, RING_HEADER + bytes);
  if (!st.keep_rings)
    unlink(path);
}

/* Reads the contents of the ring file mapped at base (size bytes) of so's
 * quaject (of so->q's type) into so (R3, R5, R6), without taking them. 0,
 * or -1 with why filled. */
static int ring_read(st_obj_t *so, const uint8_t *base, size_t size, char *why, size_t whylen) {
  const qua_type_t *t = qua_quaject_type(so->q);
  char name[40];
  ring_name(name, sizeof name, so->ring);
  uint64_t token = 0, bytes = 0, layout = 0;
  if (base != MAP_FAILED) {
    memcpy(&token, base + 8, 8);
    memcpy(&bytes, base + 16, 8);
    memcpy(&layout, base + 24, 8);
  }
  const char *bad = base == MAP_FAILED                  ? "too short"
                    : memcmp(base, RING_MAGIC, 8) != 0  ? "not a ring file"
                    : token != so->ring                 ? "its header names another token"
                    : bytes != size - RING_HEADER       ? "its size is not the header's"
                    : layout != qua_storage_layout(t)   ? "written by a quad with another layout"
                                                        : NULL;
  if (bad != NULL) {
    snprintf(why, whylen, "'%s': its ring file %s is refused: %s", so->name, name, bad);
    return -1;
  }
  if (memcmp(base + RING_BOOT_ID, boot_id, RING_BOOT_LEN) != 0) {
    quad_log(QUAD_LOG_ERROR, "state: the ring file %s/%s of '%s' was written before the machine "
             "restarted: its items are not trusted, and '%s' comes back empty", st.dir, name,
             so->name, so->name);
    return 0;
  }
  const struct st_kind *k = kind_of(t->name);
  uint64_t *out = k != NULL ? malloc((bytes / 8 + 1) * sizeof *out) : NULL;
  if (out == NULL) {
    snprintf(why, whylen, "%s reading %s", k == NULL ? "no contents kind" : "out of memory", name);
    return -1;
  }
  size_t n = 0;
  char rwhy[160];
  if (qua_storage_recover(t, base + RING_HEADER, bytes, out, &n, rwhy, sizeof rwhy) < 0) {
    free(out);
    snprintf(why, whylen, "'%s': its ring file %s is refused: %s", so->name, name, rwhy);
    return -1;
  }
  free(so->items);
  free(so->bytes);
  so->items = NULL;
  so->bytes = NULL;
  if (k->kind == ST_BYTES)
    so->bytes = (uint8_t *)out;
  else
    so->items = out;
  so->kind = k->kind;
  so->n = n;
  return 0;
}

/* Reads the contents of so's old ring file into so (R3). A missing file,
 * or one refused (R6: it is renamed NAME.bad), leaves so empty, logged. 0,
 * or -1 with why filled when the file cannot be read at all. */
static int ring_recover(st_obj_t *so, char *why, size_t whylen) {
  char name[40];
  ring_name(name, sizeof name, so->ring);
  int fd = openat(st.dirfd, name, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 && errno == ENOENT) {
    quad_log(QUAD_LOG_ERROR, "state: the ring file %s/%s of '%s' is missing: '%s' comes back "
             "empty", st.dir, name, so->name, so->name);
    return 0;
  }
  if (fd < 0 || fstat(fd, &sb) < 0) {
    snprintf(why, whylen, "'%s': its ring file %s: %s", so->name, name, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t size = (size_t)sb.st_size;
  const uint8_t *base = size > RING_HEADER ? mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0)
                                           : MAP_FAILED;
  close(fd);
  int rc = ring_read(so, base, size, why, whylen);
  if (base != MAP_FAILED)
    munmap((void *)base, size);
  if (rc < 0) {
    char bad[48];
    snprintf(bad, sizeof bad, "%s.bad", name);
    bool moved = renameat(st.dirfd, name, st.dirfd, bad) == 0;
    quad_log(QUAD_LOG_ERROR, "state: %s; '%s' comes back empty, the rest is restored (the file "
             "is %s %s/%s)", why, so->name, moved ? "kept as" : "left as", st.dir,
             moved ? bad : name);
    rc = 0;
  }
  return rc;
}

/* Removes the ring files that no quaject of g names (keep true) or those
 * that g names (keep false: their items are in new rings now, R3). */
static void ring_prune(const st_graph_t *g, bool keep) {
  DIR *d = dir_scan();
  if (d == NULL)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    uint64_t token = 0;
    char end;
    if (sscanf(de->d_name, "ring.%16" SCNx64 "%c", &token, &end) != 1 || token == 0)
      continue;
    bool named = false;
    for (uint32_t i = 0; g != NULL && i < g->nobjs && !named; i++)
      named = g->objs[i].ring == token;
    if (named != keep)
      unlinkat(st.dirfd, de->d_name, 0);
  }
  closedir(d);
}

char *quad_state_params(const char *const *params, size_t n) {
  size_t len = 1;
  for (size_t i = 0; i < n; i++)
    len += strlen(params[i]) + 1;
  char *p = malloc(len), *w = p;
  if (p == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    size_t k = strlen(params[i]) + 1;
    memcpy(w, params[i], k);
    w += k;
  }
  *w = '\0';
  return p;
}

/* --- The graph of the live daemon -------------------------------------------------- */

static const quad_obj_t *obj_named(uint64_t id) {
  const quad_obj_t *o = id != 0 ? quad_reg_by_id(&quad_srv->reg, id) : NULL;
  return o != NULL && o->name != NULL ? o : NULL;
}

/* Fills g with the published quajects (oldest first) and the wires between
 * them; no contents. 0 or QUA_ENOMEM. */
static int graph_collect(st_graph_t *g) {
  memset(g, 0, sizeof *g);
  uint32_t n = 0, nw = 0;
  const quad_obj_t *o;
  TAILQ_FOREACH(o, &quad_srv->reg.objs, link) {
    if (o->name != NULL) {
      n++;
      nw += (uint32_t)qua_quaject_type(o->q)->ncallouts;
    }
  }
  g->objs = calloc(n ? n : 1, sizeof *g->objs);
  g->wires = calloc(nw ? nw : 1, sizeof *g->wires);
  if (g->objs == NULL || g->wires == NULL) {
    graph_free(g);
    return QUA_ENOMEM;
  }
  TAILQ_FOREACH(o, &quad_srv->reg.objs, link) { /* oldest first */
    if (o->name == NULL)
      continue;
    const qua_type_t *t = qua_quaject_type(o->q);
    st_obj_t *so = &g->objs[g->nobjs++];
    snprintf(so->name, sizeof so->name, "%s", o->name);
    snprintf(so->type, sizeof so->type, "%s", t->name);
    so->ident = o->ident;
    so->q = o->q;
    for (const char *p = o->params; p != NULL && *p != '\0' && so->nparams < QUA_MAX_PARAMS * 4;
         p += strlen(p) + 1)
      so->params[so->nparams++] = p;
    so->closed = qua_queue_is_closed(o->q); /* no lock: the loop never waits here */
    so->ring = ring_token(qua_storage(o->q, NULL));
    for (int k = 0; k < t->ncallouts; k++) {
      const char *entry = NULL;
      const quad_obj_t *d = obj_named(qua_wired_to_id(o->q, k, &entry)); /* no lock */
      if (d == NULL)
        continue; /* unwired, or wired to an unpublished quaject */
      st_wire_t *w = &g->wires[g->nwires++];
      snprintf(w->src, sizeof w->src, "%s", o->name);
      snprintf(w->callout, sizeof w->callout, "%s", t->callouts[k].name);
      snprintf(w->dst, sizeof w->dst, "%s", d->name);
      snprintf(w->entry, sizeof w->entry, "%s", entry);
    }
  }
  return 0;
}

/* Takes the contents of so's quaject out (the daemon is stopping). A
 * quaject with a ring file is read, not taken: should quad die before the
 * state file is written, the file still holds them (R7). */
static int take_contents(st_obj_t *so) {
  const struct st_kind *k = kind_of(so->type);
  if (k == NULL)
    return 0;
  size_t bytes = 0;
  const uint8_t *mem = qua_storage(so->q, &bytes);
  if (mem != NULL) {
    char why[512];
    if (ring_read(so, mem - RING_HEADER, RING_HEADER + bytes, why, sizeof why) == 0)
      return 0;
    quad_log(QUAD_LOG_ERROR, "state: cannot read the contents of '%s': %s", so->name, why);
    return QUA_EINVAL;
  }
  qua_error_t err = {0};
  qua_site_t *s = NULL;
  int r = qua_site_open(so->q, k->take, NULL, 0, &s, &err);
  if (r < 0) {
    quad_log(QUAD_LOG_ERROR, "state: cannot read the contents of '%s': %s", so->name, err.msg);
    return r;
  }
  so->kind = k->kind;
  uint64_t cap = k->kind == ST_VALUE ? 1 : 1024, v = 0;
  so->items = malloc(cap * sizeof *so->items);
  if (so->items == NULL) {
    qua_site_close(s);
    return QUA_ENOMEM;
  }
  if (k->kind == ST_VALUE) {
    r = qua_call(s, 0, 0, &v);
    so->items[0] = v;
    so->n = 1;
  } else {
    while (so->n < ST_ITEMS_MAX && (r = qua_call(s, 0, 0, &v)) == QUA_OK) {
      if (so->n == cap) {
        uint64_t *bigger = realloc(so->items, 2 * cap * sizeof *so->items);
        if (bigger == NULL) {
          r = QUA_ENOMEM;
          break;
        }
        so->items = bigger;
        cap *= 2;
      }
      so->items[so->n++] = v;
    }
    if (r == QUA_DIVERTED || r == QUA_ECLOSED)
      r = QUA_OK; /* empty, or closed and drained */
  }
  qua_site_close(s);
  if (r == QUA_OK && k->kind == ST_BYTES) {
    so->bytes = malloc(so->n ? so->n : 1);
    if (so->bytes == NULL)
      return QUA_ENOMEM;
    for (uint64_t i = 0; i < so->n; i++)
      so->bytes[i] = (uint8_t)so->items[i];
    free(so->items);
    so->items = NULL;
  }
  return r;
}

/* Puts so's saved contents into its new quaject. 0, or an error with why filled. */
static int give_contents(st_obj_t *so, char *why, size_t whylen) {
  const struct st_kind *k = kind_of(so->type);
  if (so->kind == ST_NONE)
    return 0;
  if (k == NULL || k->kind != so->kind) {
    snprintf(why, whylen, "'%s': a %s cannot hold contents of kind %d", so->name, so->type,
             so->kind);
    return QUA_EINVAL;
  }
  qua_error_t err = {0};
  qua_site_t *s = NULL;
  int r = qua_site_open(so->q, k->give, NULL, 0, &s, &err);
  if (r < 0) {
    snprintf(why, whylen, "'%s': %s", so->name, err.msg);
    return r;
  }
  uint64_t i = 0, v;
  if (k->kind == ST_VALUE) {
    qua_site_t *rd = NULL;
    r = qua_site_open(so->q, k->take, NULL, 0, &rd, &err);
    if (r == 0) {
      r = qua_call(rd, 0, 0, &v);
      qua_site_close(rd);
    }
    if (r == 0)
      r = qua_call(s, so->items[0] - v, 0, &v); /* two's complement: wraps to the value */
    i = 1;
  } else {
    for (; i < so->n && r == QUA_OK; i++) {
      uint64_t x = k->kind == ST_BYTES  ? so->bytes[i]
                   : k->kind == ST_LIFO ? so->items[so->n - 1 - i]
                                        : so->items[i];
      r = qua_call(s, x, 0, NULL);
    }
  }
  qua_site_close(s);
  if (r != QUA_OK) {
    snprintf(why, whylen, "'%s': %s refused item %" PRIu64 " of %" PRIu64 " (%s)", so->name,
             k->give, i, so->n, r == QUA_DIVERTED ? "full" : qua_strerror(r));
    return r < 0 ? r : QUA_ELIMIT;
  }
  return 0;
}

/* --- Encoding ------------------------------------------------------------------------- */

typedef struct st_buf {
  uint8_t *p;
  size_t len, cap;
  bool failed;
} st_buf_t;

static void put_bytes(st_buf_t *b, const void *p, size_t n) {
  if (b->failed)
    return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n)
      cap *= 2;
    uint8_t *q = realloc(b->p, cap);
    if (q == NULL) {
      b->failed = true;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->len, p, n);
  b->len += n;
}

static void put_le(st_buf_t *b, uint64_t v, int bytes) {
  uint8_t x[8];
  for (int i = 0; i < bytes; i++)
    x[i] = (uint8_t)(v >> (8 * i));
  put_bytes(b, x, (size_t)bytes);
}

static void put_str(st_buf_t *b, const char *s) {
  size_t n = strlen(s);
  put_le(b, n, 4);
  put_bytes(b, s, n);
}

static void encode(st_buf_t *b, const st_graph_t *g) {
  put_le(b, g->nobjs, 4);
  for (uint32_t i = 0; i < g->nobjs; i++) {
    const st_obj_t *o = &g->objs[i];
    put_str(b, o->name);
    put_str(b, o->type);
    put_le(b, (uint64_t)o->ident, 8);
    put_le(b, o->nparams, 4);
    for (uint32_t k = 0; k < o->nparams; k++)
      put_str(b, o->params[k]);
    put_le(b, o->closed, 1);
    put_le(b, (uint64_t)o->kind, 1);
    put_le(b, o->n, 8);
    if (o->kind == ST_BYTES)
      put_bytes(b, o->bytes, o->n);
    else
      for (uint64_t k = 0; k < o->n; k++)
        put_le(b, o->items[k], 8);
    put_le(b, o->ring, 8);
  }
  put_le(b, g->nwires, 4);
  for (uint32_t i = 0; i < g->nwires; i++) {
    put_str(b, g->wires[i].src);
    put_str(b, g->wires[i].callout);
    put_str(b, g->wires[i].dst);
    put_str(b, g->wires[i].entry);
  }
}

typedef struct st_rd {
  const uint8_t *p;
  size_t len, off;
  uint32_t version;
  char why[160];
} st_rd_t;

static bool get_le(st_rd_t *r, int bytes, uint64_t *v, const char *what) {
  if (r->len - r->off < (size_t)bytes) {
    if (r->why[0] == '\0')
      snprintf(r->why, sizeof r->why, "the records end inside %s", what);
    return false;
  }
  *v = 0;
  for (int i = 0; i < bytes; i++)
    *v |= (uint64_t)r->p[r->off + i] << (8 * i);
  r->off += (size_t)bytes;
  return true;
}

/* A string of at most max bytes into out (NUL-terminated, outlen >= max+1). */
static bool get_str(st_rd_t *r, char *out, size_t max, const char *what) {
  uint64_t n;
  if (!get_le(r, 4, &n, what))
    return false;
  if (n == 0 || n > max || r->len - r->off < n) {
    snprintf(r->why, sizeof r->why, "%s: %s of %" PRIu64 " bytes", what,
             r->len - r->off < n ? "the records end inside a string" : "a string", n);
    return false;
  }
  memcpy(out, r->p + r->off, n);
  out[n] = '\0';
  if (strlen(out) != n) {
    snprintf(r->why, sizeof r->why, "%s: a string with a NUL inside", what);
    return false;
  }
  r->off += n;
  return true;
}

static bool get_name(st_rd_t *r, char *out, const char *what) {
  if (!get_str(r, out, QUA_NAME_MAX, what))
    return false;
  if (!quad_name_ok(out)) {
    snprintf(r->why, sizeof r->why, "%s: '%s' is not a name", what, out);
    return false;
  }
  return true;
}

/* Decodes records into g (every check made before anything is created). */
static bool decode(st_rd_t *r, st_graph_t *g) {
  memset(g, 0, sizeof *g);
  uint64_t n, v;
  if (!get_le(r, 4, &n, "the count of quajects"))
    return false;
  /* Each quaject takes at least 32 bytes: a count past that is corrupt. */
  if (n > (r->len - r->off) / 32) {
    snprintf(r->why, sizeof r->why, "%" PRIu64 " quajects in %zu bytes", n, r->len - r->off);
    return false;
  }
  g->objs = calloc(n ? n : 1, sizeof *g->objs);
  g->strings = malloc(r->len + 1); /* parameter strings, each with its NUL */
  if (g->objs == NULL || g->strings == NULL) {
    snprintf(r->why, sizeof r->why, "out of memory");
    return false;
  }
  size_t soff = 0;
  for (uint64_t i = 0; i < n; i++) {
    st_obj_t *o = &g->objs[g->nobjs++];
    if (!get_name(r, o->name, "a quaject's name") ||
        !get_str(r, o->type, QUA_NAME_MAX, "a quaject's type") ||
        !get_le(r, 8, &v, "a creator"))
      return false;
    o->ident = (int64_t)v;
    for (uint32_t j = 0; j + 1 < g->nobjs; j++)
      if (strcmp(g->objs[j].name, o->name) == 0) {
        snprintf(r->why, sizeof r->why, "the name '%s' is saved twice", o->name);
        return false;
      }
    if (!get_le(r, 4, &v, "a count of parameters"))
      return false;
    if (v > QUA_MAX_PARAMS * 4) {
      snprintf(r->why, sizeof r->why, "'%s' has %" PRIu64 " parameters", o->name, v);
      return false;
    }
    o->nparams = (uint32_t)v;
    for (uint32_t k = 0; k < o->nparams; k++) {
      /* Each takes 4 + n bytes of the records and n + 1 of strings: it fits. */
      char *s = g->strings + soff;
      if (!get_str(r, s, r->len - r->off, "a parameter"))
        return false;
      soff += strlen(s) + 1;
      o->params[k] = s;
    }
    uint64_t closed, kind;
    if (!get_le(r, 1, &closed, "a closed flag") || !get_le(r, 1, &kind, "a kind of contents") ||
        !get_le(r, 8, &o->n, "a count of items"))
      return false;
    if (closed > 1 || kind >= ST_KINDS || o->n > ST_ITEMS_MAX ||
        (kind == ST_NONE && o->n != 0) || (kind == ST_VALUE && o->n != 1)) {
      snprintf(r->why, sizeof r->why, "'%s': contents of kind %" PRIu64 " with %" PRIu64 " items",
               o->name, kind, o->n);
      return false;
    }
    o->closed = closed != 0;
    o->kind = (int)kind;
    size_t width = kind == ST_BYTES ? 1 : 8;
    if ((r->len - r->off) / width < o->n) {
      snprintf(r->why, sizeof r->why, "'%s': the records end inside its %" PRIu64 " items", o->name,
               o->n);
      return false;
    }
    if (kind == ST_BYTES) {
      o->bytes = malloc(o->n ? o->n : 1);
      if (o->bytes != NULL)
        memcpy(o->bytes, r->p + r->off, o->n);
      r->off += o->n;
    } else if (kind != ST_NONE) {
      o->items = malloc((o->n ? o->n : 1) * sizeof *o->items);
      for (uint64_t k = 0; o->items != NULL && k < o->n; k++)
        get_le(r, 8, &o->items[k], "an item");
      if (o->items == NULL)
        r->off += o->n * 8;
    }
    if (kind != ST_NONE && o->items == NULL && o->bytes == NULL) {
      snprintf(r->why, sizeof r->why, "out of memory");
      return false;
    }
    if (r->version >= 2 && !get_le(r, 8, &o->ring, "a ring token"))
      return false;
  }
  if (!get_le(r, 4, &n, "the count of wires"))
    return false;
  if (n > (r->len - r->off) / 20) {
    snprintf(r->why, sizeof r->why, "%" PRIu64 " wires in %zu bytes", n, r->len - r->off);
    return false;
  }
  g->wires = calloc(n ? n : 1, sizeof *g->wires);
  if (g->wires == NULL) {
    snprintf(r->why, sizeof r->why, "out of memory");
    return false;
  }
  for (uint64_t i = 0; i < n; i++) {
    st_wire_t *w = &g->wires[g->nwires++];
    if (!get_name(r, w->src, "a wire's source") || !get_name(r, w->callout, "a callout") ||
        !get_name(r, w->dst, "a wire's target") || !get_name(r, w->entry, "a callentry"))
      return false;
  }
  if (r->off != r->len) {
    snprintf(r->why, sizeof r->why, "%zu bytes follow the records", r->len - r->off);
    return false;
  }
  return true;
}

/* --- Files ----------------------------------------------------------------------------- */

static void gen_name(char *buf, size_t len, uint64_t gen, bool tmp) {
  snprintf(buf, len, "state.%010" PRIu64 "%s", gen, tmp ? ".tmp" : "");
}

/* The generation a file name stands for, or 0 when it is not one. */
static uint64_t gen_of(const char *name, bool *tmp) {
  if (strncmp(name, "state.", 6) != 0)
    return 0;
  const char *p = name + 6;
  uint64_t g = 0;
  int digits = 0;
  for (; *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
    g = g * 10 + (uint64_t)(*p - '0');
  if (digits != 10)
    return 0;
  *tmp = strcmp(p, ".tmp") == 0;
  return *tmp || *p == '\0' ? g : 0;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Writes generation st.gen + 1 holding records b (flags in the header):
 * tmp file, fsync, rename, fsync of the folder, then the generation before
 * the previous one goes. 0, or -1 after logging why (nothing replaced). */
static int write_generation(const st_buf_t *b, uint32_t flags) {
  uint64_t gen = st.gen + 1;
  char tmp[64], fin[64];
  gen_name(tmp, sizeof tmp, gen, true);
  gen_name(fin, sizeof fin, gen, false);
  st_buf_t h = {0};
  put_bytes(&h, ST_MAGIC, 8);
  put_le(&h, ST_VERSION, 4);
  put_le(&h, flags, 4);
  put_le(&h, gen, 8);
  put_le(&h, (uint64_t)time(NULL), 8);
  put_le(&h, b->len, 8);
  put_le(&h, crc32_z(crc32(0, NULL, 0), b->p, b->len), 4);
  if (h.failed) {
    free(h.p);
    quad_log(QUAD_LOG_ERROR, "state: out of memory writing %s/%s", st.dir, fin);
    return -1;
  }
  put_le(&h, crc32(crc32(0, NULL, 0), h.p, 44), 4);
  const char *step = "create";
  int fd = openat(st.dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    goto fail;
  step = "write";
  if (h.failed || write_all(fd, h.p, h.len) < 0 || write_all(fd, b->p, b->len) < 0)
    goto fail_fd;
  step = "fsync";
  if (fsync(fd) < 0)
    goto fail_fd;
  step = "close";
  if (close(fd) < 0) {
    fd = -1;
    goto fail_tmp;
  }
  fd = -1;
  step = "rename";
  if (renameat(st.dirfd, tmp, st.dirfd, fin) < 0)
    goto fail_tmp;
  step = "fsync the folder after writing";
  if (fsync(st.dirfd) < 0) {
    /* The new file may or may not survive a crash: both it and the
     * previous one are kept, and the next write retries. */
    quad_log(QUAD_LOG_ERROR, "state: cannot %s %s/%s: %s", step, st.dir, fin, strerror(errno));
    st.gen = gen;
    free(h.p);
    return -1;
  }
  if (gen > 2) {
    char old[64];
    gen_name(old, sizeof old, gen - 2, false);
    unlinkat(st.dirfd, old, 0);
  }
  st.gen = gen;
  free(h.p);
  return 0;

fail_fd:
  close(fd);
fail_tmp:
  unlinkat(st.dirfd, tmp, 0);
fail:
  quad_log(QUAD_LOG_ERROR, "state: cannot %s %s/%s: %s (the previous generation is kept)", step,
           st.dir, tmp, strerror(errno));
  free(h.p);
  return -1;
}

/* Reads and checks generation gen into *g; *flags gets the header's flags.
 * 0, or -1 with why filled (naming what is wrong, not the file). */
static int read_generation(uint64_t gen, st_graph_t *g, uint32_t *flags, char *why, size_t len) {
  char name[64];
  gen_name(name, sizeof name, gen, false);
  memset(g, 0, sizeof *g);
  int fd = openat(st.dirfd, name, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) < 0) {
    snprintf(why, len, "cannot read it: %s", strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t size = (size_t)sb.st_size;
  uint8_t *p = malloc(size ? size : 1);
  size_t got = 0;
  while (p != NULL && got < size) {
    ssize_t k = read(fd, p + got, size - got);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break;
    got += (size_t)k;
  }
  close(fd);
  int rc = -1;
  if (p == NULL) {
    snprintf(why, len, "out of memory reading %zu bytes", size);
    return -1;
  }
  uint64_t v[6] = {0};
  if (got != size) {
    snprintf(why, len, "cannot read it: %s", strerror(errno));
    goto out;
  }
  if (size < ST_HEADER) {
    snprintf(why, len, "truncated: %zu bytes, less than its %d-byte header", size, ST_HEADER);
    goto out;
  }
  if (memcmp(p, ST_MAGIC, 8) != 0) {
    snprintf(why, len, "not a quad state file (it does not start with %s)", ST_MAGIC);
    goto out;
  }
  st_rd_t r = {.p = p, .len = ST_HEADER, .off = 8};
  get_le(&r, 4, &v[0], "");
  get_le(&r, 4, &v[1], "");
  get_le(&r, 8, &v[2], "");
  get_le(&r, 8, &v[3], "");
  get_le(&r, 8, &v[4], "");
  get_le(&r, 4, &v[5], "");
  uint64_t hcrc;
  get_le(&r, 4, &hcrc, "");
  if (hcrc != crc32(crc32(0, NULL, 0), p, 44)) {
    snprintf(why, len, "corrupt: the header's checksum does not match");
    goto out;
  }
  if (v[0] < 1 || v[0] > ST_VERSION) {
    snprintf(why, len, "format version %" PRIu64 ": this quad reads versions 1 to %u", v[0],
             ST_VERSION);
    goto out;
  }
  if (v[2] != gen) {
    snprintf(why, len, "its header says generation %" PRIu64 ", its name %" PRIu64, v[2], gen);
    goto out;
  }
  if (v[4] != size - ST_HEADER) {
    snprintf(why, len, "%s: the header announces %" PRIu64 " bytes of records, the file has %zu",
             v[4] > size - ST_HEADER ? "truncated" : "corrupt", v[4], size - ST_HEADER);
    goto out;
  }
  if (v[5] != crc32_z(crc32(0, NULL, 0), p + ST_HEADER, size - ST_HEADER)) {
    snprintf(why, len, "corrupt: the records' checksum does not match the header's");
    goto out;
  }
  st_rd_t rr = {.p = p + ST_HEADER, .len = size - ST_HEADER, .version = (uint32_t)v[0]};
  if (!decode(&rr, g)) {
    snprintf(why, len, "corrupt records: %s", rr.why);
    graph_free(g);
    goto out;
  }
  *flags = (uint32_t)v[1];
  rc = 0;
out:
  free(p);
  return rc;
}

/* Removes the generations before `keep` (left by a crash between a rename
 * and the removal that follows it) and unfinished .tmp files. */
static void prune(uint64_t keep) {
  DIR *d = dir_scan();
  if (d == NULL)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    bool tmp = false;
    uint64_t g = gen_of(de->d_name, &tmp);
    if (g != 0 && (tmp || g < keep))
      unlinkat(st.dirfd, de->d_name, 0);
  }
  closedir(d);
}

/* --- Restoring ------------------------------------------------------------------------- */

static qua_quaject_t *saved_quaject(const st_graph_t *g, const char *name) {
  for (uint32_t i = 0; i < g->nobjs; i++)
    if (strcmp(g->objs[i].name, name) == 0)
      return g->objs[i].q;
  return NULL;
}

/* Recreates g's quajects, contents (from the file, or with rings from the
 * queues' old rings: R3), closes and wires. 0, or -1 with why filled; what
 * was made is left to the exit's destroy. */
static int restore(st_graph_t *g, bool rings, char *why, size_t len) {
  for (uint32_t i = 0; i < g->nobjs; i++) {
    st_obj_t *so = &g->objs[i];
    bool m68k = strncmp(so->type, "m68k-", 5) == 0;
    const qua_type_t *t = m68k ? quad_m68k_type(so->type) : qua_type_find(so->type);
    if (t == NULL) {
      snprintf(why, len, "'%s': no quaject type '%s'%s", so->name, so->type,
               m68k ? " (this quad has no m68k backend)" : "");
      return -1;
    }
    qua_error_t err = {0};
    int r = qua_create_with(t, so->params, (int)so->nparams, &so->q, &err);
    if (r < 0) {
      snprintf(why, len, "'%s' (%s): %s", so->name, so->type, err.msg);
      return -1;
    }
    char *name = strdup(so->name);
    char *params = quad_state_params(so->params, so->nparams);
    if (name == NULL || params == NULL ||
        quad_obj_adopt(so->q, name, params, so->ident, t->ops.start != NULL) == NULL) {
      free(name);
      free(params);
      qua_destroy(so->q, true, NULL);
      so->q = NULL;
      snprintf(why, len, "out of memory");
      return -1;
    }
    if (rings && so->ring != 0 && so->kind == ST_NONE &&
        qua_storage_layout(qua_quaject_type(so->q)) != 0 &&
        ring_recover(so, why, len) < 0)
      return -1;
    if (give_contents(so, why, len) < 0)
      return -1;
    if (so->closed && qua_queue_close(so->q) < 0) {
      snprintf(why, len, "'%s': cannot close it", so->name);
      return -1;
    }
  }
  for (uint32_t i = 0; i < g->nwires; i++) {
    const st_wire_t *w = &g->wires[i];
    qua_quaject_t *src = saved_quaject(g, w->src), *dst = saved_quaject(g, w->dst);
    if (src == NULL || dst == NULL) {
      snprintf(why, len, "the wire %s.%s -> %s.%s names a quaject not saved", w->src, w->callout,
               w->dst, w->entry);
      return -1;
    }
    qua_error_t err = {0};
    if (qua_wire(src, w->callout, dst, w->entry, &err) < 0) {
      snprintf(why, len, "the wire %s.%s -> %s.%s: %s", w->src, w->callout, w->dst, w->entry,
               err.msg);
      return -1;
    }
  }
  return 0;
}

/* Checks the folder (made when missing), locks it, checks it is writable. */
static int open_dir(const char *dir) {
  if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
    quad_log(QUAD_LOG_ERROR, "--state-dir %s: cannot create it: %s", dir, strerror(errno));
    return -1;
  }
  st.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat sb;
  if (st.dirfd < 0 || fstat(st.dirfd, &sb) < 0) {
    quad_log(QUAD_LOG_ERROR, "--state-dir %s: %s", dir, strerror(errno));
    return -1;
  }
  if (sb.st_uid != geteuid()) {
    quad_log(QUAD_LOG_ERROR, "--state-dir %s is owned by uid %u, not by quad's user (uid %u)", dir,
             (unsigned)sb.st_uid, (unsigned)geteuid());
    return -1;
  }
  if ((sb.st_mode & 077) != 0) {
    quad_log(QUAD_LOG_ERROR, "--state-dir %s has mode %04o: group and others must have no access "
             "(chmod 700 %s)", dir, (unsigned)(sb.st_mode & 07777), dir);
    return -1;
  }
  /* A real write, not access(): it sees read-only mounts and full disks too. */
  int fd = openat(st.dirfd, "probe.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, "q", 1) != 1 || fsync(fd) < 0) {
    quad_log(QUAD_LOG_ERROR, "--state-dir %s is not writable: %s", dir, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  close(fd);
  unlinkat(st.dirfd, "probe.tmp", 0);
  st.lockfd = openat(st.dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (st.lockfd < 0 || flock(st.lockfd, LOCK_EX | LOCK_NB) < 0) {
    quad_log(QUAD_LOG_ERROR, "--state-dir %s: %s", dir,
             errno == EWOULDBLOCK ? "another quad uses it" : strerror(errno));
    return -1;
  }
  return 0;
}

int quad_state_open(const char *dir) {
  snprintf(st.dir, sizeof st.dir, "%s", dir);
  if (open_dir(dir) < 0)
    goto fail;
  FILE *bf = fopen("/proc/sys/kernel/random/boot_id", "re");
  if (bf == NULL || fread(boot_id, 1, RING_BOOT_LEN, bf) != RING_BOOT_LEN)
    quad_log(QUAD_LOG_ERROR, "state: cannot read the boot id: rings are trusted across reboots");
  if (bf != NULL)
    fclose(bf);
  /* Every queue, buffer, counter and m68k quaject made from now on keeps
   * its storage in a file (R1). */
  qua_set_storage(&(qua_storage_t){ring_map, ring_unmap, NULL});
  /* The newest generation present (a .tmp is a write that never finished). */
  DIR *d = dir_scan();
  if (d == NULL) {
    quad_log(QUAD_LOG_ERROR, "--state-dir %s: %s", dir, strerror(errno));
    goto fail;
  }
  uint64_t newest = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    bool tmp = false;
    uint64_t g = gen_of(de->d_name, &tmp);
    if (!tmp && g > newest)
      newest = g;
  }
  closedir(d);
  st.gen = newest;
  if (newest == 0) {
    prune(0);
    ring_prune(NULL, true);
    quad_log(QUAD_LOG_INFO, "state: %s has no saved state: starting empty", dir);
    st.open = true;
    return 0;
  }
  st_graph_t g;
  uint32_t flags = 0;
  char why[512], name[64];
  gen_name(name, sizeof name, newest, false);
  if (read_generation(newest, &g, &flags, why, sizeof why) < 0) {
    char prev[64], pwhy[512];
    st_graph_t pg;
    uint32_t pf;
    gen_name(prev, sizeof prev, newest - 1, false);
    bool prev_ok = newest > 1 && read_generation(newest - 1, &pg, &pf, pwhy, sizeof pwhy) == 0;
    if (prev_ok)
      graph_free(&pg);
    quad_log(QUAD_LOG_ERROR, "state file %s/%s is refused: %s. quad does not start; nothing was "
             "changed. %s%s%s%s", dir, name, why,
             prev_ok ? "The previous generation " : "There is no good previous generation",
             prev_ok ? dir : "", prev_ok ? "/" : "",
             prev_ok ? prev : "");
    if (prev_ok)
      quad_log(QUAD_LOG_ERROR, "to start from %s/%s (losing the changes made after it), move %s/%s "
               "out of %s", dir, prev, dir, name, dir);
    goto fail;
  }
  ring_prune(&g, true); /* rings no generation names (R3) */
  bool rings = !(flags & ST_F_CONTENTS);
  int r = restore(&g, rings, why, sizeof why);
  uint64_t items = 0;
  for (uint32_t i = 0; i < g.nobjs; i++)
    items += g.objs[i].kind == ST_VALUE ? 0 : g.objs[i].n;
  if (r < 0) {
    quad_log(QUAD_LOG_ERROR, "state file %s/%s cannot be restored: %s. quad does not start; "
             "nothing was changed", dir, name, why);
    graph_free(&g);
    goto fail;
  }
  quad_log(QUAD_LOG_INFO, "state: restored %u published quajects and %u wires from %s/%s%s",
           g.nobjs, g.nwires, dir, name,
           flags & ST_F_CONTENTS ? " (saved at an orderly exit)" : "");
  if (flags & ST_F_CONTENTS)
    quad_log(QUAD_LOG_INFO, "state: %" PRIu64 " items put back", items);
  else if (items > 0)
    quad_log(QUAD_LOG_INFO, "state: %" PRIu64 " items recovered from the ring files (the last "
             "run did not end in an orderly exit)", items);
  prune(newest - 1);
  st.open = true;
  /* Contents are applied once: the next generation has none (note), and
   * names the new rings (R3). */
  if ((flags & ST_F_CONTENTS) || g.nobjs > 0)
    quad_state_changed(NULL);
  if (((flags & ST_F_CONTENTS) || g.nobjs > 0) && st.last == NULL) {
    quad_log(QUAD_LOG_ERROR, "state: cannot write the graph after restoring %s/%s: quad does not "
             "start (the items it put back would come back again after a crash)", dir, name);
    graph_free(&g);
    st.open = false;
    goto fail;
  }
  ring_prune(&g, false); /* the old rings: their items are in the new ones */
  graph_free(&g);
  return 0;

fail:
  qua_set_storage(NULL);
  if (st.lockfd >= 0)
    close(st.lockfd);
  if (st.dirfd >= 0)
    close(st.dirfd);
  st.lockfd = st.dirfd = -1;
  return -1;
}

/* A change's write on the worker (W1-W3). */
typedef struct state_job {
  quad_job_t job;
  st_buf_t b;
  int result;
  bool held; /* the connection's output is held until done */
} state_job_t;

static void state_job_work(quad_job_t *j) {
  state_job_t *x = (state_job_t *)j;
  x->result = write_generation(&x->b, 0);
}

static void state_job_done(quad_job_t *j) {
  state_job_t *x = (state_job_t *)j;
  st.writing--;
  if (x->result < 0 && st.last != NULL && st.last_len == x->b.len &&
      memcmp(st.last, x->b.p, x->b.len) == 0) {
    /* Not on disk: the next change writes again, even the same graph. */
    free(st.last);
    st.last = NULL;
  }
  if (x->held)
    quad_conn_release_output(j->c); /* the reply (and all after it) goes out */
  if (quad_srv->stopping)
    uv_async_send(&quad_srv->wake); /* the final save waits for no write (quad.c) */
  free(x->b.p);
  free(x);
}

void quad_state_changed(quad_conn_t *c) {
  if (!st.open)
    return;
  st_graph_t g;
  if (graph_collect(&g) < 0) {
    quad_log(QUAD_LOG_ERROR, "state: out of memory: the change is not saved yet");
    return;
  }
  st_buf_t b = {0};
  encode(&b, &g);
  graph_free(&g);
  if (b.failed) {
    free(b.p);
    quad_log(QUAD_LOG_ERROR, "state: out of memory: the change is not saved yet");
    return;
  }
  if (st.last != NULL && st.last_len == b.len && memcmp(st.last, b.p, b.len) == 0) {
    free(b.p);
    return;
  }
  state_job_t *x = c != NULL ? calloc(1, sizeof *x) : NULL;
  uint8_t *copy = x != NULL ? malloc(b.len ? b.len : 1) : NULL;
  if (copy == NULL) {
    /* At start (no connection), or out of memory: written here, on the
     * loop, before the reply, as the guarantee demands. */
    free(x);
    if (write_generation(&b, 0) < 0) {
      free(b.p);
      return; /* st.last unchanged: the next change writes again */
    }
    free(st.last);
    st.last = b.p;
    st.last_len = b.len;
    return;
  }
  memcpy(copy, b.p, b.len);
  free(st.last);
  st.last = copy;
  st.last_len = b.len;
  x->b = b;
  x->job.work = state_job_work;
  x->job.done = state_job_done;
  x->held = c->state < QUAD_CLOSING;
  if (x->held)
    quad_conn_hold_output(c);
  st.writing++;
  quad_job_submit_to(&x->job, c, x->held, QUAD_LANE_DISK);
}

int quad_state_save_final(void) {
  if (!st.open)
    return 0;
  if (st.writing > 0)
    return 1; /* a change's write is on the worker: its end wakes the loop */
  st.open = false;
  st_graph_t g;
  if (graph_collect(&g) < 0) {
    quad_log(QUAD_LOG_ERROR, "state: out of memory: the contents are not saved");
    return 0;
  }
  /* Nothing moves once the active quajects' callouts are unwired. */
  quad_obj_t *o;
  TAILQ_FOREACH(o, &quad_srv->reg.objs, link) {
    if (!o->active)
      continue;
    const qua_type_t *t = qua_quaject_type(o->q);
    for (int k = 0; k < t->ncallouts; k++)
      if (qua_wired_to(o->q, k, NULL) != NULL)
        qua_unwire(o->q, t->callouts[k].name, NULL);
  }
  uint64_t items = 0, unringed = 0; /* unringed: items not in a ring file */
  bool ok = true;
  for (uint32_t i = 0; i < g.nobjs; i++) {
    if (take_contents(&g.objs[i]) < 0)
      ok = false;
    uint64_t n = g.objs[i].kind == ST_VALUE ? 0 : g.objs[i].n;
    items += n;
    unringed += g.objs[i].ring == 0 ? n : 0;
  }
  st_buf_t b = {0};
  encode(&b, &g);
  if (!ok || b.failed || write_generation(&b, ST_F_CONTENTS) < 0) {
    /* The newest generation names the rings: they stay for the next start (R7). */
    st.keep_rings = true;
    quad_log(QUAD_LOG_ERROR, "state: the contents could not be saved; the graph is as of its "
             "last change, and the contents stay in the ring files for the next start (unless "
             "the machine restarts first): the %" PRIu64 " items of other quajects are lost",
             unringed);
  } else
    quad_log(QUAD_LOG_INFO, "state: saved %u published quajects, %u wires and %" PRIu64
             " items to %s/state.%010" PRIu64, g.nobjs, g.nwires, items, st.dir, st.gen);
  free(b.p);
  graph_free(&g);
  free(st.last);
  st.last = NULL;
  close(st.lockfd);
  close(st.dirfd);
  st.lockfd = st.dirfd = -1;
  return 0;
}
