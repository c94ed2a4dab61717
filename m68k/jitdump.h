/* jitdump.h -- quamachine run --jitdump: translated blocks described for perf inject --jit.
 *
 * The file is perf's jitdump format (tools/perf/Documentation/
 * jitdump-specification.txt in the Linux tree): a header, then one
 * JIT_CODE_LOAD record per translated block, named "m68k_<pc>" and holding
 * a copy of its host code. The writer maps the file executable once, so
 * that `perf record -k mono` sees the mapping and `perf inject --jit` finds
 * the file from it; the records' times are CLOCK_MONOTONIC, as -k mono
 * wants.
 */
#ifndef QUA_M68K_JITDUMP_H
#define QUA_M68K_JITDUMP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct qm_jitdump {
  int fd;
  void *marker;          /* the executable mapping perf record notes */
  size_t marker_len;
  pthread_mutex_t lock;  /* records are written whole, one at a time */
  uint64_t index;        /* JIT_CODE_LOAD's code_index */
  int err;               /* the first write's errno, 0 if none failed */
  char path[4096];
} qm_jitdump_t;

/* Creates DIR/jit-<pid>.dump (replacing one left by an earlier process of
 * that pid, never following a link) and writes its header. Returns 0, or
 * -1 after saying why on stderr. */
int qm_jitdump_open(qm_jitdump_t *d, const char *dir);
/* m68k_jit_listener_t.translated: one record for the block. */
void qm_jitdump_block(void *ctx, uint32_t pc, unsigned ninsn, const void *code, size_t size);
/* Closes the file; returns 0, or -1 after saying on stderr that a record
 * could not be written. */
int qm_jitdump_close(qm_jitdump_t *d);

#endif
