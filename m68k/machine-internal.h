/* machine-internal.h -- private declarations shared by machine.c, elf.c and linux.c. */
#ifndef QUA_M68K_MACHINE_INTERNAL_H
#define QUA_M68K_MACHINE_INTERNAL_H

#include "machine.h"

#include <stdarg.h>
#include <sys/types.h>

/* One CPU slot: the core's CPU and the bus it sees (its ctx points back
 * here, so the device page knows which CPU is accessing it). */
typedef struct m68k__mcpu {
  struct m68k_machine *m;
  unsigned id;
  m68k_cpu_t *cpu;
  m68k_bus_t bus;
  bool idle;          /* the core reported STOP and no request woke it */
  bool timer_pending; /* level-triggered requests, cleared by the ACKs */
  bool ipi_pending;
  /* How the image's own exceptions are served (the Linux personality or
   * a freestanding image's vector check), after the host handlers. */
  m68k_trap_hook_fn personality;
} m68k__mcpu_t;

typedef struct m68k__qj_arena m68k__qj_arena_t;

typedef struct m68k__linux m68k__linux_t;

struct m68k_machine {
  m68k_model_t model;
  unsigned ncpus;
  uint32_t addr_mask; /* 0x00FFFFFF on the 68000 */
  uint8_t *ram;
  uint32_t ram_base;
  uint32_t ram_size;
  m68k__mcpu_t cpus[M68K_MACHINE_MAX_CPUS];

  /* Devices. */
  FILE *console;
  uint32_t timer_period;
  uint32_t timer_level;
  uint32_t timer_target;
  uint32_t timer_count;
  uint64_t timer_next; /* clock of the next tick (UINT64_MAX: off) */
  uint32_t ipi_level;

  /* Time: instructions executed by all CPUs before the running chunk,
   * and where the running chunk started on its CPU's own counter. */
  uint64_t clock;
  uint64_t limit;
  m68k__mcpu_t *running;
  uint64_t chunk_start;

  /* Scheduler. */
  m68k_sched_kind_t sched_kind;
  uint32_t quantum;
  uint32_t max_slice;
  uint64_t rng;
  unsigned rr_next;
  m68k_slice_t *replay;
  size_t replay_n;
  size_t replay_pos;

  /* Recording. */
  bool recording;
  m68k_slice_t *rec;
  size_t rec_n;
  size_t rec_cap;

  /* Stop state: set once, then the machine stays stopped. */
  bool stopped;
  m68k_machine_result_t result;
  char message[512];

  /* The address of the last access that found neither RAM nor a device. */
  uint32_t fault_addr;

  /* Freestanding images: exceptions through empty vectors are faults. */
  bool freestanding;

  /* The Linux personality, when m68k_linux_setup() was called. */
  m68k__linux_t *linux_state;

  /* Host exception handlers (m68k_machine_on_exception). */
  struct {
    m68k_machine_exception_fn fn;
    void *ctx;
  } exc[256];

  /* The quaject runtime's arena (quaject68k.c), freed with the machine
   * through qj_free so that the machine does not link the runtime. */
  m68k__qj_arena_t *qj;
  void (*qj_free)(m68k__qj_arena_t *a);
};

/* Stops the machine (first caller wins) with a status, a code and a
 * printf-style message, and asks the running CPU to stop. */
void m68k__machine_stop(struct m68k_machine *m, m68k__mcpu_t *c, m68k_machine_status_t status,
                        int32_t code, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Current clock, counting the running chunk's instructions so far. */
uint64_t m68k__machine_now(const struct m68k_machine *m);

/* Sets a message without stopping (for failed calls). */
void m68k__machine_msg(struct m68k_machine *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The name of an exception vector ("illegal instruction", "TRAP #3"...). */
const char *m68k__vector_name(int vector, char *buf, size_t len);

/* Frees the Linux state (called by m68k_machine_destroy). */
void m68k__linux_free(m68k__linux_t *lx);

/* The guest's file system under `run --root DIR` (linux-root.c). With a
 * NULL root every path call answers -EACCES. */
typedef struct m68k__root m68k__root_t;

/* A file named to the host as (fd, name) for its *at calls; name "" means
 * fd itself (AT_EMPTY_PATH). */
typedef struct m68k__gpath {
  int fd;
  const char *name;
  char last[256];
} m68k__gpath_t;

/* Opens DIR as the root: 0, or -errno with the reason in msg. */
int m68k__root_open(m68k__root_t **out, const char *dir, char *msg, size_t msglen);
void m68k__root_free(m68k__root_t *r);
/* Whether fd is the root's own descriptor, which the guest may not touch. */
bool m68k__root_owns(const m68k__root_t *r, int fd);
/* The guest's working directory ("/" without a root). */
const char *m68k__root_cwd(const m68k__root_t *r);
/* Opens path (relative to dirfd, AT_FDCWD for the working directory)
 * inside the root: a host descriptor or -errno. */
int m68k__root_open_file(const m68k__root_t *r, int dirfd, const char *path, int flags,
                         mode_t mode);
/* Names path to the host as *g, following a final symbolic link or not:
 * 0 or -errno; release with m68k__gpath_done. */
int m68k__root_at(const m68k__root_t *r, int dirfd, const char *path, bool follow,
                  m68k__gpath_t *g);
void m68k__gpath_done(m68k__gpath_t *g);
/* Makes directory descriptor fd the working directory: 0 or -errno. */
int m68k__root_chdir(m68k__root_t *r, int fd);

/* The parsed ELF image. */
typedef struct m68k__seg {
  uint32_t vaddr;
  uint32_t filesz;
  uint32_t memsz;
  uint32_t offset;
  uint32_t flags;
} m68k__seg_t;

struct m68k_elf {
  uint8_t *data;
  size_t size;
  uint32_t entry;
  uint32_t phoff;
  uint32_t phnum;
  uint32_t phent;
  uint32_t phdr_vaddr; /* where the program headers are in memory, 0 if not */
  uint32_t low, high;
  m68k__seg_t *segs;
  unsigned nsegs;
};

/* The seeded PRNG of random schedules and PCT (Steele, Lea and Flood's
 * SplitMix64). */
static inline uint64_t m68k__splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline uint16_t m68k__be16(const uint8_t *p) {
  return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}
static inline uint32_t m68k__be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void m68k__put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static inline void m68k__put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline void m68k__put64(uint8_t *p, uint64_t v) {
  m68k__put32(p, (uint32_t)(v >> 32));
  m68k__put32(p + 4, (uint32_t)v);
}

#endif /* QUA_M68K_MACHINE_INTERNAL_H */
