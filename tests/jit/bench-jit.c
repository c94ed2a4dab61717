/* bench-jit.c -- benchmark: copy-and-patch a put/get stencil pair vs libtcc and libgccjit compiling the same pair.
 *
 * Prints, medians of RUNS runs each:
 *   BENCH jit_emit_ns            copy and patch b_put + b_get (jit_emit into code memory)
 *   BENCH jit_synth_pair_ns      the whole tier-1 path: allocate, emit, commit, free (both)
 *   BENCH libtcc_compile_ns      tcc: compile the same C, specialised, in memory, relocate
 *   BENCH libgccjit_compile_ns   libgccjit: build the same pair with its API, -O2, compile
 *   BENCH emit_vs_libtcc, emit_vs_libgccjit   the ratios (anchor / jit_emit)
 * (these five on a small test ring, tmpl-bench.c); then the real template file,
 * quaject/queue-templates.c, for the quaject-level figures of bench-synth.c:
 *   BENCH libtcc_template_compile_ns  libtcc compiling it in memory, holes defined as symbols
 *   BENCH cc_template_compile_ns      the build's C compiler compiling it to an object (-O2)
 * libgccjit has no C front end (it builds code from its own IR), so it cannot compile the
 * template source; its figure stays the IR-built ring above.
 * Every compiled pair is called once and checked before it is timed.
 */
#include "bench-synth.h"
#include "qbench.h"
#include "bq-stencils.h"
#include "jit.h"
#include "lfq.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifdef JIT_BENCH_TCC
#include <libtcc.h>
#endif
#ifdef JIT_BENCH_GCCJIT
#include <libgccjit.h>
#endif

#define RUNS 7
#define MASK 255u

typedef int (*put_fn)(uint64_t);
typedef int (*get_fn)(uint64_t *);

static struct {
  uint64_t head, tail;
  uint64_t slot[MASK + 1];
} queue;

static unsigned long fulls, empties;

static void on_full(uint64_t v)
{
  (void)v;
  fulls++;
}

static void on_empty(void)
{
  empties++;
}

/* The handlers' addresses as data pointers (for libtcc and libgccjit). */
static void *addr_full(void)
{
  void (*f)(uint64_t) = on_full;
  void *p;
  memcpy(&p, &f, sizeof p);
  return p;
}

static void *addr_empty(void)
{
  void (*f)(void) = on_empty;
  void *p;
  memcpy(&p, &f, sizeof p);
  return p;
}

/* The pair must behave as a queue with the handlers wired: 1 for success. */
static int check_pair(put_fn put, get_fn get)
{
  uint64_t out = 0;
  unsigned long f0 = fulls, e0 = empties;
  memset(&queue, 0, sizeof queue);
  if (get(&out) != 0 || empties != e0 + 1)
    return 0;
  for (uint64_t i = 0; i <= MASK; i++)
    if (put(i * 3) != 1)
      return 0;
  if (put(7) != 0 || fulls != f0 + 1)
    return 0;
  for (uint64_t i = 0; i <= MASK; i++)
    if (get(&out) != 1 || out != i * 3)
      return 0;
  return get(&out) == 0;
}

static put_fn as_put(const void *p)
{
  return (put_fn)jit_fn(p);
}

static get_fn as_get(const void *p)
{
  return (get_fn)jit_fn(p);
}

static void hole_values(uint64_t *v)
{
  void (*full)(uint64_t) = on_full;
  void (*empty)(void) = on_empty;
  v[BQ_HOLE_hole_q] = (uint64_t)(uintptr_t)&queue;
  v[BQ_HOLE_hole_mask] = MASK;
  memcpy(&v[BQ_HOLE_hole_full], &full, sizeof full);
  memcpy(&v[BQ_HOLE_hole_empty], &empty, sizeof empty);
}

/* --- Stencils ------------------------------------------------------------- */

static double bench_emit(jit_codemem_t *cm, double *synth_ns)
{
  uint64_t v[BQ_HOLE__COUNT];
  jit_code_t *c;
  double runs[RUNS], sruns[RUNS];
  const int iters = 20000;
  const jit_stencil_t *sp = &bq_stencil_b_put, *sg = &bq_stencil_b_get;
  size_t goff = (sp->size + 63) / 64 * 64;

  hole_values(v);
  if (jit_code_alloc(cm, goff + sg->size, &c) < 0)
    return -1;
  uint8_t *rw = jit_code_rw(c), *rx = jit_code_rx(c);
  if (jit_emit(rw, (uint64_t)(uintptr_t)rx, sp, v, NULL) < 0 ||
      jit_emit(rw + goff, (uint64_t)(uintptr_t)rx + goff, sg, v, NULL) < 0)
    return -1;
  jit_code_commit(c);
  if (!check_pair(as_put(rx + sp->entry), as_get(rx + goff + sg->entry))) {
    fprintf(stderr, "bench-jit: stencil pair misbehaves\n");
    exit(1);
  }
  for (int r = 0; r < RUNS; r++) {
    uint64_t t0 = qbench_now_ns();
    for (int i = 0; i < iters; i++) {
      jit_emit(rw, (uint64_t)(uintptr_t)rx, sp, v, NULL);
      jit_emit(rw + goff, (uint64_t)(uintptr_t)rx + goff, sg, v, NULL);
      __asm__ __volatile__("" ::: "memory");
    }
    runs[r] = (double)(qbench_now_ns() - t0) / iters;
  }
  jit_code_free(c);

  /* The whole tier-1 path for both functions, freeing as it goes. */
  for (int r = 0; r < RUNS; r++) {
    jit_part_t pp = {&bq_tmpl_b_put, v, -1}, pg = {&bq_tmpl_b_get, v, -1};
    jit_code_t *a, *b;
    size_t ea, eb;
    uint64_t t0 = qbench_now_ns();
    for (int i = 0; i < iters / 4; i++) {
      if (jit_compile(&jit_tier_stencil, cm, &pp, 1, &a, &ea, NULL, NULL) < 0 ||
          jit_compile(&jit_tier_stencil, cm, &pg, 1, &b, &eb, NULL, NULL) < 0)
        return -1;
      jit_code_free(a);
      jit_code_free(b);
    }
    sruns[r] = (double)(qbench_now_ns() - t0) / (iters / 4);
  }
  *synth_ns = qbench_median(sruns, RUNS);
  return qbench_median(runs, RUNS);
}

/* --- libtcc ----------------------------------------------------------------- */

#ifdef JIT_BENCH_TCC
static void tcc_error_sink(void *opaque, const char *msg)
{
  (void)opaque;
  fprintf(stderr, "bench-jit: tcc: %s\n", msg);
}

static double bench_tcc(void)
{
  char src[2048];
  double runs[RUNS];
  const int iters = 200;

  snprintf(src, sizeof src,
           "typedef unsigned long long u64;\n"
           "struct bq { u64 head, tail; u64 slot[]; };\n"
           "void on_full(u64); void on_empty(void);\n"
           "int b_put(u64 v) {\n"
           "  struct bq *q = (struct bq *)0x%llxULL; u64 mask = %uULL; u64 h = q->head;\n"
           "  if (h - q->tail > mask) { on_full(v); return 0; }\n"
           "  q->slot[h & mask] = v; q->head = h + 1; return 1;\n}\n"
           "int b_get(u64 *out) {\n"
           "  struct bq *q = (struct bq *)0x%llxULL; u64 mask = %uULL; u64 t = q->tail;\n"
           "  if (t == q->head) { on_empty(); return 0; }\n"
           "  *out = q->slot[t & mask]; q->tail = t + 1; return 1;\n}\n",
           (unsigned long long)(uintptr_t)&queue, MASK, (unsigned long long)(uintptr_t)&queue, MASK);
  for (int r = 0; r < RUNS; r++) {
    uint64_t t0 = qbench_now_ns();
    for (int i = 0; i < iters; i++) {
      TCCState *s = tcc_new();
      if (!s)
        return -1;
      tcc_set_error_func(s, NULL, tcc_error_sink);
      tcc_set_options(s, "-nostdlib");
      tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
      tcc_add_symbol(s, "on_full", addr_full());
      tcc_add_symbol(s, "on_empty", addr_empty());
      if (tcc_compile_string(s, src) < 0 || tcc_relocate(s, TCC_RELOCATE_AUTO) < 0) {
        tcc_delete(s);
        return -1;
      }
      void *put = tcc_get_symbol(s, "b_put"), *get = tcc_get_symbol(s, "b_get");
      if (r == 0 && i == 0 && (!put || !get || !check_pair(as_put(put), as_get(get)))) {
        fprintf(stderr, "bench-jit: tcc pair misbehaves\n");
        exit(1);
      }
      tcc_delete(s);
    }
    runs[r] = (double)(qbench_now_ns() - t0) / iters;
  }
  return qbench_median(runs, RUNS);
}

/* The real template source, quaject/queue-templates.c, as it is: libtcc compiles the whole
 * file (its 8 templates) with the holes defined as symbols (tcc_add_symbol, the values a
 * queue's put site would get), relocates it in memory and looks up the SP-SC put and get;
 * tcc-include/stdatomic.h gives tcc the C11 atomics it lacks. The pair is called on a real
 * ring once before timing: a put then a get moves the word, and a get on the empty ring goes
 * to the rare path. Nanoseconds per compile, or -1 (printed). */
static int tcc_rare_calls;
static char tcc_unused[1]; /* holes the checked paths do not use (tcc takes no symbol at 0) */

static int tcc_put_rare(void *s, uint64_t x, uint64_t fn, uint64_t ctx)
{
  (void)s, (void)x, (void)fn, (void)ctx;
  tcc_rare_calls++;
  return -1;
}

static int tcc_get_rare(void *s, uint64_t *ret, uint64_t fn, uint64_t ctx)
{
  (void)s, (void)ret, (void)fn, (void)ctx;
  tcc_rare_calls++;
  return -2;
}

static int tcc_get_wait(void *s, uint64_t *ret, uint64_t w)
{
  (void)s, (void)ret, (void)w;
  tcc_rare_calls++;
  return -3;
}

static int tcc_put_wait(void *s, uint64_t pos)
{
  (void)s, (void)pos;
  tcc_rare_calls++;
  return -4;
}

static int tcc_notify(void)
{
  tcc_rare_calls++;
  return 0;
}

static void *fn_addr(void (*f)(void))
{
  void *p;
  memcpy(&p, &f, sizeof p);
  return p;
}

typedef int (*tmpl_fn)(void *s, uint64_t a0, uint64_t a1, uint64_t *ret);

static double bench_tcc_template(void)
{
  FILE *f = fopen(JIT_BENCH_TEMPLATE, "r");
  static char src[1 << 16];
  size_t len = f != NULL ? fread(src, 1, sizeof src - 1, f) : 0;
  if (f != NULL)
    fclose(f);
  if (len == 0) {
    fprintf(stderr, "bench-jit: cannot read %s\n", JIT_BENCH_TEMPLATE);
    return -1;
  }
  src[len] = '\0';
  qua__lfq_t lfq;
  if (qua__lfq_init(&lfq, 1024) != 0)
    return -1;
  const struct {
    const char *name;
    void *value;
  } holes[] = {
      {"qt_lfq", &lfq},
      {"qt_slots", lfq.slots},
      {"qt_target", tcc_unused},
      {"qt_handler_fn", tcc_unused},
      {"qt_handler_ctx", tcc_unused},
      {"qt_edge_fn", tcc_unused},
      {"qt_edge_ctx", tcc_unused},
      {"qt_mask", (void *)(uintptr_t)lfq.mask},
      {"qt_cap", (void *)(uintptr_t)lfq.capacity},
      {"qt_edge_mode", (void *)(uintptr_t)1 /* QUA__LISTEN_NONE */},
      {"qt_put_rare", fn_addr((void (*)(void))tcc_put_rare)},
      {"qt_get_rare", fn_addr((void (*)(void))tcc_get_rare)},
      {"qt_get_wait", fn_addr((void (*)(void))tcc_get_wait)},
      {"qt_put_wait", fn_addr((void (*)(void))tcc_put_wait)},
      {"qua__notify_one", fn_addr((void (*)(void))tcc_notify)},
      {"qua__notify_all", fn_addr((void (*)(void))tcc_notify)},
  };
  double runs[RUNS];
  const int iters = 20;
  double result = -1;
  for (int r = 0; r < RUNS; r++) {
    uint64_t t0 = qbench_now_ns();
    for (int i = 0; i < iters; i++) {
      TCCState *s = tcc_new();
      if (!s)
        goto out;
      tcc_set_error_func(s, NULL, tcc_error_sink);
      tcc_set_options(s, "-nostdlib -D_GNU_SOURCE");
      tcc_add_include_path(s, JIT_BENCH_TCC_INCLUDE);
      tcc_add_include_path(s, JIT_BENCH_TEMPLATE_DIR);
      tcc_add_include_path(s, JIT_BENCH_STATUS_DIR);
      tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
      for (size_t h = 0; h < sizeof holes / sizeof holes[0]; h++)
        tcc_add_symbol(s, holes[h].name, holes[h].value);
      if (tcc_compile_string(s, src) < 0 || tcc_relocate(s, TCC_RELOCATE_AUTO) < 0) {
        tcc_delete(s);
        goto out;
      }
      void *put = tcc_get_symbol(s, "qt_put_sp"), *get = tcc_get_symbol(s, "qt_get_sc");
      if (r == 0 && i == 0) {
        tmpl_fn p, g;
        memcpy(&p, &put, sizeof p);
        memcpy(&g, &get, sizeof g);
        uint64_t v = 0;
        int rare = tcc_rare_calls;
        if (put == NULL || get == NULL || p(NULL, 42, 0, NULL) != 0 || g(NULL, 0, 0, &v) != 0 ||
            v != 42 || g(NULL, 0, 0, &v) != -2 || tcc_rare_calls != rare + 1) {
          fprintf(stderr, "bench-jit: the template compiled by tcc misbehaves\n");
          exit(1);
        }
      }
      tcc_delete(s);
    }
    runs[r] = (double)(qbench_now_ns() - t0) / iters;
  }
  result = qbench_median(runs, RUNS);
out:
  qua__lfq_fini(&lfq);
  return result;
}
#endif

/* --- libgccjit -------------------------------------------------------------- */

#ifdef JIT_BENCH_GCCJIT
typedef struct gj {
  gcc_jit_context *c;
  gcc_jit_type *u64, *u64p, *int_t, *void_t;
  gcc_jit_rvalue *q, *mask;
} gj_t;

/* p[i] as an lvalue. */
static gcc_jit_lvalue *gj_at(gj_t *g, gcc_jit_rvalue *p, gcc_jit_rvalue *i)
{
  return gcc_jit_context_new_array_access(g->c, NULL, p, i);
}

static gcc_jit_rvalue *gj_u64(gj_t *g, long v)
{
  return gcc_jit_context_new_rvalue_from_long(g->c, g->u64, v);
}

static gcc_jit_rvalue *gj_handler(gj_t *g, void *fn, int with_arg)
{
  gcc_jit_type *params[1] = {g->u64};
  gcc_jit_type *fty = gcc_jit_context_new_function_ptr_type(g->c, NULL, g->void_t, with_arg,
                                                            with_arg ? params : NULL, 0);
  return gcc_jit_context_new_rvalue_from_ptr(g->c, fty, fn);
}

static void gj_build_put(gj_t *g, void *full)
{
  gcc_jit_param *v = gcc_jit_context_new_param(g->c, NULL, g->u64, "v");
  gcc_jit_function *f = gcc_jit_context_new_function(g->c, NULL, GCC_JIT_FUNCTION_EXPORTED,
                                                     g->int_t, "b_put", 1, &v, 0);
  gcc_jit_lvalue *h = gcc_jit_function_new_local(f, NULL, g->u64, "h");
  gcc_jit_block *b0 = gcc_jit_function_new_block(f, "entry");
  gcc_jit_block *bf = gcc_jit_function_new_block(f, "full");
  gcc_jit_block *bs = gcc_jit_function_new_block(f, "store");
  gcc_jit_rvalue *arg = gcc_jit_param_as_rvalue(v);

  gcc_jit_block_add_assignment(b0, NULL, h, gcc_jit_lvalue_as_rvalue(gj_at(g, g->q, gj_u64(g, 0))));
  gcc_jit_rvalue *used = gcc_jit_context_new_binary_op(
    g->c, NULL, GCC_JIT_BINARY_OP_MINUS, g->u64, gcc_jit_lvalue_as_rvalue(h),
    gcc_jit_lvalue_as_rvalue(gj_at(g, g->q, gj_u64(g, 1))));
  gcc_jit_block_end_with_conditional(
    b0, NULL, gcc_jit_context_new_comparison(g->c, NULL, GCC_JIT_COMPARISON_GT, used, g->mask), bf, bs);
  gcc_jit_block_add_eval(bf, NULL, gcc_jit_context_new_call_through_ptr(g->c, NULL, gj_handler(g, full, 1), 1, &arg));
  gcc_jit_block_end_with_return(bf, NULL, gcc_jit_context_zero(g->c, g->int_t));
  gcc_jit_rvalue *idx = gcc_jit_context_new_binary_op(
    g->c, NULL, GCC_JIT_BINARY_OP_PLUS, g->u64, gj_u64(g, 2),
    gcc_jit_context_new_binary_op(g->c, NULL, GCC_JIT_BINARY_OP_BITWISE_AND, g->u64,
                                  gcc_jit_lvalue_as_rvalue(h), g->mask));
  gcc_jit_block_add_assignment(bs, NULL, gj_at(g, g->q, idx), arg);
  gcc_jit_block_add_assignment(bs, NULL, gj_at(g, g->q, gj_u64(g, 0)),
                               gcc_jit_context_new_binary_op(g->c, NULL, GCC_JIT_BINARY_OP_PLUS, g->u64,
                                                             gcc_jit_lvalue_as_rvalue(h), gj_u64(g, 1)));
  gcc_jit_block_end_with_return(bs, NULL, gcc_jit_context_one(g->c, g->int_t));
}

static void gj_build_get(gj_t *g, void *empty)
{
  gcc_jit_param *o = gcc_jit_context_new_param(g->c, NULL, g->u64p, "out");
  gcc_jit_function *f = gcc_jit_context_new_function(g->c, NULL, GCC_JIT_FUNCTION_EXPORTED,
                                                     g->int_t, "b_get", 1, &o, 0);
  gcc_jit_lvalue *t = gcc_jit_function_new_local(f, NULL, g->u64, "t");
  gcc_jit_block *b0 = gcc_jit_function_new_block(f, "entry");
  gcc_jit_block *be = gcc_jit_function_new_block(f, "empty");
  gcc_jit_block *bt = gcc_jit_function_new_block(f, "take");

  gcc_jit_block_add_assignment(b0, NULL, t, gcc_jit_lvalue_as_rvalue(gj_at(g, g->q, gj_u64(g, 1))));
  gcc_jit_block_end_with_conditional(
    b0, NULL,
    gcc_jit_context_new_comparison(g->c, NULL, GCC_JIT_COMPARISON_EQ, gcc_jit_lvalue_as_rvalue(t),
                                   gcc_jit_lvalue_as_rvalue(gj_at(g, g->q, gj_u64(g, 0)))),
    be, bt);
  gcc_jit_block_add_eval(be, NULL, gcc_jit_context_new_call_through_ptr(g->c, NULL, gj_handler(g, empty, 0), 0, NULL));
  gcc_jit_block_end_with_return(be, NULL, gcc_jit_context_zero(g->c, g->int_t));
  gcc_jit_rvalue *idx = gcc_jit_context_new_binary_op(
    g->c, NULL, GCC_JIT_BINARY_OP_PLUS, g->u64, gj_u64(g, 2),
    gcc_jit_context_new_binary_op(g->c, NULL, GCC_JIT_BINARY_OP_BITWISE_AND, g->u64,
                                  gcc_jit_lvalue_as_rvalue(t), g->mask));
  gcc_jit_block_add_assignment(bt, NULL, gcc_jit_rvalue_dereference(gcc_jit_param_as_rvalue(o), NULL),
                               gcc_jit_lvalue_as_rvalue(gj_at(g, g->q, idx)));
  gcc_jit_block_add_assignment(bt, NULL, gj_at(g, g->q, gj_u64(g, 1)),
                               gcc_jit_context_new_binary_op(g->c, NULL, GCC_JIT_BINARY_OP_PLUS, g->u64,
                                                             gcc_jit_lvalue_as_rvalue(t), gj_u64(g, 1)));
  gcc_jit_block_end_with_return(bt, NULL, gcc_jit_context_one(g->c, g->int_t));
}

static double bench_gccjit(void)
{
  double runs[RUNS];
  for (int r = 0; r < RUNS; r++) {
    gj_t g;
    uint64_t t0 = qbench_now_ns();
    g.c = gcc_jit_context_acquire();
    if (!g.c)
      return -1;
    gcc_jit_context_set_int_option(g.c, GCC_JIT_INT_OPTION_OPTIMIZATION_LEVEL, 2);
    g.u64 = gcc_jit_context_get_type(g.c, GCC_JIT_TYPE_UNSIGNED_LONG_LONG);
    g.u64p = gcc_jit_type_get_pointer(g.u64);
    g.int_t = gcc_jit_context_get_type(g.c, GCC_JIT_TYPE_INT);
    g.void_t = gcc_jit_context_get_type(g.c, GCC_JIT_TYPE_VOID);
    g.q = gcc_jit_context_new_rvalue_from_ptr(g.c, g.u64p, &queue);
    g.mask = gcc_jit_context_new_rvalue_from_long(g.c, g.u64, MASK);
    gj_build_put(&g, addr_full());
    gj_build_get(&g, addr_empty());
    gcc_jit_result *res = gcc_jit_context_compile(g.c);
    if (!res) {
      fprintf(stderr, "bench-jit: gccjit: %s\n", gcc_jit_context_get_first_error(g.c));
      gcc_jit_context_release(g.c);
      return -1;
    }
    void *put = gcc_jit_result_get_code(res, "b_put"), *get = gcc_jit_result_get_code(res, "b_get");
    runs[r] = (double)(qbench_now_ns() - t0);
    if (r == 0 && (!put || !get || !check_pair(as_put(put), as_get(get)))) {
      fprintf(stderr, "bench-jit: gccjit pair misbehaves\n");
      exit(1);
    }
    gcc_jit_result_release(res);
    gcc_jit_context_release(g.c);
  }
  return qbench_median(runs, RUNS);
}
#endif

/* The C compiler of the build (JIT_BENCH_CC) compiling the same template file to an object
 * with the recipe's essential flags, a process per compile as a program would run it;
 * only the compile (no linking, no loading), so it is a lower bound on using gcc at run
 * time. Nanoseconds per compile, or -1. */
static double bench_cc_template(void)
{
  char out[] = "/tmp/qua-bench-jit-XXXXXX", obj[64];
  if (mkdtemp(out) == NULL)
    return -1;
  snprintf(obj, sizeof obj, "%s/t.o", out);
  char *argv[] = {JIT_BENCH_CC, "-std=gnu11", "-O2", "-fno-pic", "-fno-pie", "-mcmodel=medium",
                  "-fno-asynchronous-unwind-tables", "-D_GNU_SOURCE", "-I" JIT_BENCH_TEMPLATE_DIR,
                  "-I" JIT_BENCH_STATUS_DIR, "-c", JIT_BENCH_TEMPLATE, "-o", obj, NULL};
  double runs[RUNS];
  double result = -1;
  for (int r = 0; r < RUNS; r++) {
    uint64_t t0 = qbench_now_ns();
    pid_t pid;
    int st;
    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0 || waitpid(pid, &st, 0) < 0 ||
        !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "bench-jit: %s could not compile %s\n", argv[0], JIT_BENCH_TEMPLATE);
      goto out;
    }
    runs[r] = (double)(qbench_now_ns() - t0);
  }
  struct stat sb;
  if (stat(obj, &sb) == 0 && sb.st_size > 0)
    result = qbench_median(runs, RUNS);
out:
  unlink(obj);
  rmdir(out);
  return result;
}

int main(void)
{
  jit_codemem_t *cm;
  double emit, synth = 0;

  if (jit_codemem_create(NULL, &cm) < 0) {
    fprintf(stderr, "bench-jit: no code memory\n");
    return 1;
  }
  emit = bench_emit(cm, &synth);
  if (emit <= 0) {
    fprintf(stderr, "bench-jit: emit failed\n");
    return 1;
  }
  printf("BENCH jit_emit_ns %.1f ns\n", emit);
  printf("BENCH jit_synth_pair_ns %.1f ns\n", synth);
#ifdef JIT_BENCH_TCC
  double tcc = bench_tcc();
  if (tcc > 0) {
    printf("BENCH libtcc_compile_ns %.0f ns\n", tcc);
    printf("BENCH emit_vs_libtcc %.0f x\n", tcc / emit);
  } else {
    fprintf(stderr, "bench-jit: libtcc failed\n");
  }
#else
  printf("# libtcc not found: libtcc_compile_ns skipped\n");
#endif
#ifdef JIT_BENCH_GCCJIT
  double gj = bench_gccjit();
  if (gj > 0) {
    printf("BENCH libgccjit_compile_ns %.0f ns\n", gj);
    printf("BENCH emit_vs_libgccjit %.0f x\n", gj / emit);
  } else {
    fprintf(stderr, "bench-jit: libgccjit failed\n");
  }
#else
  printf("# libgccjit not found: libgccjit_compile_ns skipped\n");
#endif
  /* The real template source, compiled by libtcc in memory and by the C compiler of the
   * build; the quaject-level figures are timed against these. */
  double tcc_ns = -1, cc_ns = bench_cc_template();
#ifdef JIT_BENCH_TCC
  tcc_ns = bench_tcc_template();
  if (tcc_ns > 0)
    printf("BENCH libtcc_template_compile_ns %.0f ns\n", tcc_ns);
#endif
  if (cc_ns > 0)
    printf("BENCH cc_template_compile_ns %.0f ns\n", cc_ns);
  bench_synth(tcc_ns, cc_ns);
  jit_codemem_destroy(cm);
  return 0;
}
