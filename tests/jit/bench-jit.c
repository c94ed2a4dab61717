/* bench-jit.c -- benchmark: copy-and-patch a put/get stencil pair vs libtcc and libgccjit compiling the same pair.
 *
 * Prints, medians of RUNS runs each:
 *   BENCH jit_emit_ns            copy and patch b_put + b_get (jit_emit into code memory)
 *   BENCH jit_synth_pair_ns      the whole tier-1 path: allocate, emit, commit, free (both)
 *   BENCH libtcc_compile_ns      tcc: compile the same C, specialised, in memory, relocate
 *   BENCH libgccjit_compile_ns   libgccjit: build the same pair with its API, -O2, compile
 *   BENCH emit_vs_libtcc, emit_vs_libgccjit   the ratios (anchor / jit_emit)
 * Every compiled pair is called once and checked before it is timed.
 */
#include "bench-synth.h"
#include "qbench.h"
#include "bq-stencils.h"
#include "jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  double tcc_ns = 0, gccjit_ns = 0;
#ifdef JIT_BENCH_TCC
  tcc_ns = tcc;
#endif
#ifdef JIT_BENCH_GCCJIT
  gccjit_ns = gj;
#endif
  /* The quaject-level figures, against the same anchors. */
  bench_synth(tcc_ns, gccjit_ns);
  jit_codemem_destroy(cm);
  return 0;
}
