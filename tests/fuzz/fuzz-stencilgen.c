/* fuzz-stencilgen.c -- fuzz harness: jit/stencilgen's ELF reading and relocation handling on any bytes.
 *
 * The input is one object file. stencilgen itself runs on it, whole: this file includes
 * jit/stencilgen.c with its main renamed, writes the input to a memory file and calls the
 * tool as the build does (--prefix fz, the tables into a private folder). stencilgen is a
 * build-time tool that ends the process on the first error (die(): exit 1, with a message
 * naming the object and the cause) and leaves what it allocated to the exit; here exit()
 * returns to the harness instead, and everything the run allocated is freed after it, so a
 * refused object is an ordinary outcome and each input starts from nothing. What must not
 * happen is anything else: a crash, a sanitizer report, a hang, a stencil out of
 * proportion to the object.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <unistd.h>

#include "fuzz.h"
#include "jit.h"

/* --- What stencilgen allocates, tracked so that it can be freed after a run ---------- */

typedef struct fz_block {
  _Alignas(max_align_t) LIST_ENTRY(fz_block) link; /* in fz_live */
} fz_block_t;

static LIST_HEAD(, fz_block) fz_live = LIST_HEAD_INITIALIZER(fz_live);

static void fz_link(fz_block_t *b) { LIST_INSERT_HEAD(&fz_live, b, link); }

static void fz_unlink(fz_block_t *b) { LIST_REMOVE(b, link); }

static void *fz_malloc(size_t n) {
  if (n > SIZE_MAX - sizeof(fz_block_t))
    return NULL;
  fz_block_t *b = malloc(sizeof *b + n);
  if (b == NULL)
    return NULL;
  fz_link(b);
  return b + 1;
}

static void *fz_calloc(size_t n, size_t size) {
  if (size != 0 && n > (SIZE_MAX - sizeof(fz_block_t)) / size)
    return NULL;
  void *p = fz_malloc(n * size);
  if (p != NULL)
    memset(p, 0, n * size);
  return p;
}

static void *fz_realloc(void *p, size_t n) {
  if (p == NULL)
    return fz_malloc(n);
  if (n > SIZE_MAX - sizeof(fz_block_t))
    return NULL;
  fz_block_t *b = (fz_block_t *)p - 1;
  fz_unlink(b);
  fz_block_t *nb = realloc(b, sizeof *b + n);
  if (nb == NULL) {
    fz_link(b);
    return NULL;
  }
  fz_link(nb);
  return nb + 1;
}

static void fz_free(void *p) {
  if (p == NULL)
    return;
  fz_block_t *b = (fz_block_t *)p - 1;
  fz_unlink(b);
  free(b);
}

static char *fz_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = fz_malloc(n);
  if (p != NULL)
    memcpy(p, s, n);
  return p;
}

static jmp_buf fz_exit_to;
static int fz_status;

static _Noreturn void fz_exit(int status) {
  fz_status = status;
  longjmp(fz_exit_to, 1);
}

/* --- stencilgen, as it is --------------------------------------------------------------- */

int stencilgen_main(int argc, char **argv);

#define main stencilgen_main
#define exit fz_exit
#define malloc fz_malloc
#define calloc fz_calloc
#define realloc fz_realloc
#define free fz_free
#define strdup fz_strdup
#include "stencilgen.c"
#undef main
#undef exit
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef strdup

/* --- The harness ------------------------------------------------------------------------ */

static int input_fd = -1;
static char input_path[64], out_dir[64], out_c[128], out_h[128];

static void cleanup(void) {
  unlink(out_c);
  unlink(out_h);
  rmdir(out_dir);
}

static void setup(void) {
  input_fd = memfd_create("fuzz-object", MFD_CLOEXEC);
  if (input_fd < 0) {
    perror("fuzz-stencilgen: memfd_create");
    abort();
  }
  snprintf(input_path, sizeof input_path, "/proc/self/fd/%d", input_fd);
  snprintf(out_dir, sizeof out_dir, "/tmp/qua-fuzz-XXXXXX");
  if (mkdtemp(out_dir) == NULL) {
    perror("fuzz-stencilgen: mkdtemp");
    abort();
  }
  snprintf(out_c, sizeof out_c, "%s/fz-stencils.c", out_dir);
  snprintf(out_h, sizeof out_h, "%s/fz-stencils.h", out_dir);
  atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (input_fd < 0)
    setup();
  if (ftruncate(input_fd, 0) < 0 || pwrite(input_fd, data, size, 0) != (ssize_t)size) {
    perror("fuzz-stencilgen: writing the input");
    abort();
  }
  char *argv[] = {"stencilgen", "--prefix", "fz", "--output", out_c, "--header", out_h,
                  input_path, NULL};
  fz_status = 0;
  if (setjmp(fz_exit_to) == 0)
    fz_status = stencilgen_main(8, argv);
  /* Only the refusals stencilgen means to make: status 1, or 0 for a good object. */
  if (fz_status != 0 && fz_status != 1) {
    fprintf(stderr, "fuzz-stencilgen: stencilgen ended with status %d\n", fz_status);
    abort();
  }
  /* A stencil is the input's sections laid out at alignments of at most a page: never
   * thousands of times the input (a huge alignment once made one of 512 MiB). */
  for (size_t i = 0; fz_status == 0 && i < gen.nst; i++)
    CHECK(gen.st[i].size <= 4096 * ((uint64_t)size + 1));
  /* What the run left: its object, its tables, every allocation. */
  if (cur_obj.elf != NULL)
    elf_end(cur_obj.elf);
  if (cur_obj.fd > 0)
    close(cur_obj.fd);
  memset(&cur_obj, 0, sizeof cur_obj);
  memset(&gen, 0, sizeof gen);
  g_obj = "";
  while (!LIST_EMPTY(&fz_live))
    fz_free(LIST_FIRST(&fz_live) + 1);
  return 0;
}
