/* jitdump.c -- quamachine run --jitdump: perf's jitdump format (jitdump.h). */
#include "jitdump.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define JITDUMP_MAGIC 0x4A695444u /* "JiTD" in the writer's byte order */
#define JITDUMP_VERSION 1u
#define JIT_CODE_LOAD 0u

typedef struct {
  uint32_t magic, version, total_size, elf_mach, pad1, pid;
  uint64_t timestamp, flags;
} jd_header_t;

typedef struct {
  uint32_t id, total_size;
  uint64_t timestamp;
  uint32_t pid, tid;
  uint64_t vma, code_addr, code_size, code_index;
} jd_load_t; /* then the name, NUL-terminated, then the code */

static uint64_t jd_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Writes all of iov or sets d->err (the caller holds the lock). */
static void jd_write(qm_jitdump_t *d, struct iovec *iov, int n) {
  while (n > 0 && d->err == 0) {
    ssize_t w = writev(d->fd, iov, n);
    if (w < 0) {
      if (errno != EINTR)
        d->err = errno;
      continue;
    }
    for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
      w -= (ssize_t)iov->iov_len;
    if (n > 0) {
      iov->iov_base = (char *)iov->iov_base + w;
      iov->iov_len -= (size_t)w;
    }
  }
}

int qm_jitdump_open(qm_jitdump_t *d, const char *dir) {
  memset(d, 0, sizeof *d);
  int len = snprintf(d->path, sizeof d->path, "%s/jit-%ld.dump", dir, (long)getpid());
  if (len < 0 || (size_t)len >= sizeof d->path) {
    fprintf(stderr, "quamachine: run: --jitdump folder name too long: %s\n", dir);
    return -1;
  }
  /* A file of this name is an earlier process's with our pid: replace it,
   * and create ours exclusively so that no link planted there is followed. */
  (void)unlink(d->path);
  d->fd = open(d->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (d->fd < 0) {
    fprintf(stderr, "quamachine: run: cannot create the jitdump %s: %s\n", d->path,
            strerror(errno));
    return -1;
  }
  jd_header_t h = {JITDUMP_MAGIC, JITDUMP_VERSION, sizeof h, EM_X86_64, 0,
                   (uint32_t)getpid(), jd_now(), 0};
  struct iovec iov = {&h, sizeof h};
  jd_write(d, &iov, 1);
  /* perf record notes executable mappings only: this one names the file. */
  d->marker_len = (size_t)sysconf(_SC_PAGESIZE);
  d->marker = d->err == 0 ? mmap(NULL, d->marker_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, d->fd, 0)
                          : MAP_FAILED;
  if (d->err != 0 || d->marker == MAP_FAILED) {
    fprintf(stderr, "quamachine: run: cannot start the jitdump %s: %s\n", d->path,
            strerror(d->err != 0 ? d->err : errno));
    close(d->fd);
    unlink(d->path);
    return -1;
  }
  pthread_mutex_init(&d->lock, NULL);
  return 0;
}

void qm_jitdump_block(void *ctx, uint32_t pc, unsigned ninsn, const void *code, size_t size) {
  (void)ninsn;
  qm_jitdump_t *d = ctx;
  char name[32];
  int nlen = snprintf(name, sizeof name, "m68k_%08x", pc) + 1;
  jd_load_t r = {.id = JIT_CODE_LOAD,
                 .total_size = (uint32_t)(sizeof r + (size_t)nlen + size),
                 .timestamp = jd_now(),
                 .pid = (uint32_t)getpid(),
                 .tid = (uint32_t)gettid(),
                 .vma = (uint64_t)(uintptr_t)code,
                 .code_addr = (uint64_t)(uintptr_t)code,
                 .code_size = size};
  struct iovec iov[3] = {{&r, sizeof r}, {name, (size_t)nlen}, {(void *)code, size}};
  pthread_mutex_lock(&d->lock);
  r.code_index = d->index++;
  jd_write(d, iov, 3);
  pthread_mutex_unlock(&d->lock);
}

int qm_jitdump_close(qm_jitdump_t *d) {
  munmap(d->marker, d->marker_len);
  if (close(d->fd) != 0 && d->err == 0)
    d->err = errno;
  pthread_mutex_destroy(&d->lock);
  if (d->err != 0) {
    fprintf(stderr, "quamachine: run: the jitdump %s is incomplete: %s\n", d->path,
            strerror(d->err));
    return -1;
  }
  return 0;
}
