/* test-stencil.c -- stencils from real template objects: tables, copy-and-patch, calls, range checks, chains. */
#include "jit.h"
#include "tb-stencils.h"
#include "tc-stencils.h"
#include "tdl-stencils.h"
#include "tdm-stencils.h"
#include "ti-stencils.h"
#include "ts-stencils.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t (*fn0_t)(void);
typedef uint64_t (*fn1_t)(uint64_t);
typedef uint64_t (*fn2_t)(uint64_t, uint64_t);
typedef double (*fnd_t)(double);

static jit_codemem_t *cm;
static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A C function in the program text that stencils call through a hole. */
__attribute__((noinline)) static uint64_t c_mix(uint64_t x)
{
  return (x ^ 0x5555aaaa5555aaaau) + 7;
}

static volatile uint64_t cell = 0x0123456789abcdefu;

/* Emit `s` into fresh code memory with `values`; returns the code (NULL
 * and *rc set on failure). */
static jit_code_t *emit(const jit_stencil_t *s, const uint64_t *values, int *rc,
                        jit_emit_error_t *err)
{
  jit_code_t *c = NULL;
  *rc = jit_code_alloc(cm, s->size, &c);
  if (*rc < 0)
    return NULL;
  *rc = jit_emit(jit_code_rw(c), (uint64_t)(uintptr_t)jit_code_rx(c), s, values, err);
  if (*rc < 0) {
    jit_code_free(c);
    return NULL;
  }
  jit_code_commit(c);
  return c;
}

static void *entry_of(jit_code_t *c, const jit_stencil_t *s)
{
  return (char *)jit_code_rx(c) + s->entry;
}

/* jit_hole_find remembers where it found a name by the name's address: a
 * name in a buffer that now says something else is looked up again. */
static void hole_find_reads_a_changed_name_again(void)
{
  char name[16];
  strcpy(name, "hole_k");
  CU_ASSERT_EQUAL(jit_hole_find(&tb_set, name), TB_HOLE_hole_k);
  CU_ASSERT_EQUAL(jit_hole_find(&tb_set, name), TB_HOLE_hole_k);
  strcpy(name, "hole_fn");
  CU_ASSERT_EQUAL(jit_hole_find(&tb_set, name), TB_HOLE_hole_fn);
  strcpy(name, "hole_kk");
  CU_ASSERT_EQUAL(jit_hole_find(&tb_set, name), JIT_EINVAL);
  strcpy(name, "hole_value");
  CU_ASSERT_EQUAL(jit_hole_find(&tb_set, name), TB_HOLE_hole_value);
  /* The same address in another set: that set's answer. */
  CU_ASSERT(jit_hole_find(&ts_set, "hole_value") >= 0);
  CU_ASSERT_EQUAL(jit_hole_find(&ts_set, name), jit_hole_find(&ts_set, "hole_value"));
  CU_ASSERT_EQUAL(jit_hole_find(NULL, name), JIT_EINVAL);
  CU_ASSERT_EQUAL(jit_hole_find(&tb_set, NULL), JIT_EINVAL);
}

static void tables_list_templates_and_holes(void)
{
  static const char *const holes[] = {"hole_cell", "hole_fn", "hole_k", "hole_next", "hole_value"};
  CU_ASSERT_EQUAL(tb_set.nstencils, 6);
  CU_ASSERT_EQUAL(tb_set.nholes, 5);
  CU_ASSERT_EQUAL(TB_HOLE__COUNT, 5);
  for (int i = 0; i < 5; i++) {
    CU_ASSERT_STRING_EQUAL(tb_set.hole_names[i], holes[i]);
    CU_ASSERT_EQUAL(jit_hole_find(&tb_set, holes[i]), i);
  }
  CU_ASSERT_EQUAL(jit_hole_find(&tb_set, "nope"), JIT_EINVAL);
  CU_ASSERT_PTR_EQUAL(jit_stencil_find(&tb_set, "t_add"), &tb_stencil_t_add);
  CU_ASSERT_PTR_NULL(jit_stencil_find(&tb_set, "nope"));
  CU_ASSERT_PTR_EQUAL(tb_tmpl_t_add.stencil, &tb_stencil_t_add);
  CU_ASSERT_EQUAL(tb_stencil_t_ret.machine, JIT_MACHINE_X86_64);

  /* Medium model: a 64-bit immediate; small: 32-bit zero- or sign-extended. */
  CU_ASSERT_EQUAL(tb_stencil_t_ret.nholes, 1);
  CU_ASSERT_EQUAL(tb_stencil_t_ret.holes[0].kind, JIT_HOLE_X86_64_64);
  CU_ASSERT_EQUAL(tb_stencil_t_ret.holes[0].hole, TB_HOLE_hole_value);
  CU_ASSERT_EQUAL(ts_stencil_t_ret.holes[0].kind, JIT_HOLE_X86_64_32);
  CU_ASSERT_EQUAL(ts_stencil_t_add.holes[0].kind, JIT_HOLE_X86_64_32S);
  CU_ASSERT_EQUAL(ts_stencil_t_load.holes[0].kind, JIT_HOLE_X86_64_PC32);
  /* A tail call is a jmp rel32 at the very end. */
  CU_ASSERT_EQUAL(tb_stencil_t_tail.holes[tb_stencil_t_tail.nholes - 1].kind, JIT_HOLE_X86_64_PLT32);
  CU_ASSERT_NOT_EQUAL(tb_stencil_t_tail.tail, JIT_NO_TAIL);
  CU_ASSERT_EQUAL(tb_stencil_t_tail.tail + 5, tb_stencil_t_tail.code_size);
  CU_ASSERT_EQUAL(tb_stencil_t_tail.bytes[tb_stencil_t_tail.tail], 0xe9);
  CU_ASSERT_EQUAL(tb_stencil_t_tail.tail_hole, TB_HOLE_hole_fn);
  CU_ASSERT_EQUAL(tb_stencil_t_call2.tail, JIT_NO_TAIL);
  CU_ASSERT_EQUAL(tb_stencil_t_link.tail_hole, TB_HOLE_hole_next);
  /* Hole kind table rows. */
  CU_ASSERT_STRING_EQUAL(jit_hole_kind_info(JIT_HOLE_M68K_PC32)->name, "M68K_PC32");
  CU_ASSERT_EQUAL(jit_hole_kind_info(JIT_HOLE_X86_64_32S)->elf_type, 11);
  CU_ASSERT_PTR_NULL(jit_hole_kind_info(JIT_HOLE_KIND_COUNT));
}

static void return_hole_value_when_called(void)
{
  uint64_t v[TB_HOLE__COUNT] = {0};
  uint64_t samples[] = {0, 1, 0xdeadbeefcafebabeu, UINT64_MAX, 0x80000000u};
  int rc;
  for (int i = 0; i < 64; i++) {
    v[TB_HOLE_hole_value] = i < 5 ? samples[i] : rnd();
    jit_code_t *c = emit(&tb_stencil_t_ret, v, &rc, NULL);
    CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
    CU_ASSERT_EQUAL(((fn0_t)jit_fn(entry_of(c, &tb_stencil_t_ret)))(), v[TB_HOLE_hole_value]);
    jit_code_free(c);
  }
}

static void add_hole_constant_when_called(void)
{
  uint64_t v[TB_HOLE__COUNT] = {0};
  int rc;
  for (int i = 0; i < 64; i++) {
    uint64_t x = rnd();
    v[TB_HOLE_hole_k] = rnd();
    jit_code_t *c = emit(&tb_stencil_t_add, v, &rc, NULL);
    CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
    CU_ASSERT_EQUAL(((fn1_t)jit_fn(entry_of(c, &tb_stencil_t_add)))(x), x + v[TB_HOLE_hole_k]);
    jit_code_free(c);
  }
}

static void tail_call_reaches_c_function(void)
{
  uint64_t v[TB_HOLE__COUNT] = {0};
  int rc;
  {
    fn1_t f = c_mix;
    memcpy(&v[TB_HOLE_hole_fn], &f, sizeof f);
  }
  jit_code_t *c = emit(&tb_stencil_t_tail, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  for (int i = 0; i < 32; i++) {
    uint64_t x = rnd();
    CU_ASSERT_EQUAL(((fn1_t)jit_fn(entry_of(c, &tb_stencil_t_tail)))(x), c_mix(x * 3 + 1));
  }
  jit_code_free(c);

  /* Two calls and a constant, not a tail call. */
  v[TB_HOLE_hole_k] = 1000;
  c = emit(&tb_stencil_t_call2, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  CU_ASSERT_EQUAL(((fn1_t)jit_fn(entry_of(c, &tb_stencil_t_call2)))(42), c_mix(c_mix(42)) + 1000);
  jit_code_free(c);
}

static void small_model_values_in_range_work(void)
{
  uint64_t v[TS_HOLE__COUNT] = {0};
  int rc;
  jit_code_t *c;

  v[TS_HOLE_hole_k] = (uint64_t)-5; /* sign-extended imm32 */
  c = emit(&ts_stencil_t_add, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  CU_ASSERT_EQUAL(((fn1_t)jit_fn(entry_of(c, &ts_stencil_t_add)))(100), 95);
  jit_code_free(c);

  v[TS_HOLE_hole_value] = 0xffffffffu; /* zero-extended imm32 */
  c = emit(&ts_stencil_t_ret, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  CU_ASSERT_EQUAL(((fn0_t)jit_fn(entry_of(c, &ts_stencil_t_ret)))(), 0xffffffffu);
  jit_code_free(c);

  v[TS_HOLE_hole_cell] = (uint64_t)(uintptr_t)&cell; /* RIP-relative, program data in reach */
  c = emit(&ts_stencil_t_load, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  CU_ASSERT_EQUAL(((fn0_t)jit_fn(entry_of(c, &ts_stencil_t_load)))(), cell);
  jit_code_free(c);
}

static void out_of_range_32s_refused_naming_hole(void)
{
  uint64_t bad[] = {0x80000000u, (uint64_t)1 << 40, (uint64_t)-0x80000001ll};
  uint64_t v[TS_HOLE__COUNT] = {0};
  uint8_t buf[256];
  jit_emit_error_t err;
  char msg[256];

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    v[TS_HOLE_hole_k] = bad[i];
    int rc = jit_emit(buf, 0x400000, &ts_stencil_t_add, v, &err);
    CU_ASSERT_EQUAL(rc, JIT_ERANGE);
    CU_ASSERT_PTR_EQUAL(err.stencil, &ts_stencil_t_add);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err.hole);
    CU_ASSERT_EQUAL(err.hole->hole, TS_HOLE_hole_k);
    jit_emit_error_format(msg, sizeof msg, rc, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "hole_k"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "X86_64_32S"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "t_add"));
  }
  /* The extremes that fit. */
  v[TS_HOLE_hole_k] = 0x7fffffffu;
  CU_ASSERT_EQUAL(jit_emit(buf, 0x400000, &ts_stencil_t_add, v, NULL), JIT_OK);
  v[TS_HOLE_hole_k] = (uint64_t)-0x80000000ll;
  CU_ASSERT_EQUAL(jit_emit(buf, 0x400000, &ts_stencil_t_add, v, NULL), JIT_OK);
  /* R_X86_64_32 is zero-extended: negative values do not fit. */
  v[TS_HOLE_hole_value] = (uint64_t)-1;
  CU_ASSERT_EQUAL(jit_emit(buf, 0x400000, &ts_stencil_t_ret, v, NULL), JIT_ERANGE);
  v[TS_HOLE_hole_value] = 0x100000000u;
  CU_ASSERT_EQUAL(jit_emit(buf, 0x400000, &ts_stencil_t_ret, v, NULL), JIT_ERANGE);
}

/* An 8-bit immediate hole (R_X86_64_8, a shift count): every count from 0
 * to 63 shifts as the host does; 255 is patched as it is (the CPU masks a
 * 64-bit shift's count to 63); 256 and -1 do not fit and are refused by
 * name. */
static void imm8_hole_patched_and_range_checked(void)
{
  uint64_t v[TI_HOLE__COUNT] = {0};
  uint8_t buf[256];
  jit_emit_error_t err;
  char msg[256];
  int rc;

  CU_ASSERT_EQUAL(ti_stencil_t_shl.nholes, 1);
  CU_ASSERT_EQUAL(ti_stencil_t_shl.holes[0].kind, JIT_HOLE_X86_64_8);
  CU_ASSERT_EQUAL(jit_hole_kind_info(JIT_HOLE_X86_64_8)->bytes, 1);
  CU_ASSERT_EQUAL(jit_hole_kind_info(JIT_HOLE_X86_64_8)->elf_type, 14);
  for (unsigned n = 0; n < 64; n++) {
    uint64_t x = rnd();
    v[TI_HOLE_hole_shift] = n;
    jit_code_t *c = emit(&ti_stencil_t_shl, v, &rc, NULL);
    CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
    CU_ASSERT_EQUAL(((fn1_t)jit_fn(entry_of(c, &ti_stencil_t_shl)))(x), x << n);
    jit_code_free(c);
  }
  v[TI_HOLE_hole_shift] = 255;
  jit_code_t *c = emit(&ti_stencil_t_shl, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  CU_ASSERT_EQUAL(((fn1_t)jit_fn(entry_of(c, &ti_stencil_t_shl)))(1), (uint64_t)1 << 63);
  jit_code_free(c);
  uint64_t bad[] = {256, (uint64_t)-1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    v[TI_HOLE_hole_shift] = bad[i];
    rc = jit_emit(buf, 0x400000, &ti_stencil_t_shl, v, &err);
    CU_ASSERT_EQUAL(rc, JIT_ERANGE);
    jit_emit_error_format(msg, sizeof msg, rc, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "hole_shift"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "X86_64_8"));
  }
}

static void pc32_target_out_of_reach_refused(void)
{
  uint64_t v[TB_HOLE__COUNT] = {0};
  uint8_t buf[256];
  const jit_stencil_t *s = &tb_stencil_t_tail;
  const jit_hole_t *h = &s->holes[s->nholes - 1];
  const uint64_t addr = 0x10000000;
  uint64_t p = addr + h->offset;
  jit_emit_error_t err;
  char msg[256];
  int rc;

  /* S + A - P at the edges of int32. */
  v[TB_HOLE_hole_fn] = p - (uint64_t)h->addend + 0x7fffffffu;
  CU_ASSERT_EQUAL(jit_emit(buf, addr, s, v, NULL), JIT_OK);
  v[TB_HOLE_hole_fn] += 1;
  rc = jit_emit(buf, addr, s, v, &err);
  CU_ASSERT_EQUAL(rc, JIT_EREACH);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err.hole);
  CU_ASSERT_EQUAL(err.hole->hole, TB_HOLE_hole_fn);
  CU_ASSERT_EQUAL(err.where, p);
  jit_emit_error_format(msg, sizeof msg, rc, &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "hole_fn"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "X86_64_PLT32"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "reach"));
  v[TB_HOLE_hole_fn] = p - (uint64_t)h->addend - 0x80000000u;
  CU_ASSERT_EQUAL(jit_emit(buf, addr, s, v, NULL), JIT_OK);
  v[TB_HOLE_hole_fn] -= 1;
  CU_ASSERT_EQUAL(jit_emit(buf, addr, s, v, NULL), JIT_EREACH);

  /* In real code memory: a target 3 GiB away. */
  fn1_t f = c_mix;
  memcpy(&v[TB_HOLE_hole_fn], &f, sizeof f);
  v[TB_HOLE_hole_fn] += (uint64_t)3 << 30;
  CU_ASSERT_PTR_NULL(emit(s, v, &rc, &err));
  CU_ASSERT_EQUAL(rc, JIT_EREACH);

  /* A RIP-relative data hole (small model) pointing far away. */
  uint64_t w[TS_HOLE__COUNT] = {0};
  w[TS_HOLE_hole_cell] = (uint64_t)1 << 46;
  CU_ASSERT_PTR_NULL(emit(&ts_stencil_t_load, w, &rc, &err));
  CU_ASSERT_EQUAL(rc, JIT_EREACH);
  CU_ASSERT_EQUAL(err.hole->hole, TS_HOLE_hole_cell);
}

static void chain_falls_through_into_next_link(void)
{
  uint64_t v0[TB_HOLE__COUNT] = {0}, v1[TB_HOLE__COUNT] = {0}, v2[TB_HOLE__COUNT] = {0};
  jit_link_t links[3] = {
    {&tb_stencil_t_link, v0, TB_HOLE_hole_next},
    {&tb_stencil_t_link, v1, TB_HOLE_hole_next},
    {&tb_stencil_t_add, v2, -1},
  };
  size_t entry, used, size;
  jit_code_t *c;

  v0[TB_HOLE_hole_k] = 10;
  v1[TB_HOLE_hole_k] = 100;
  v2[TB_HOLE_hole_k] = 1000;
  CU_ASSERT_NOT_EQUAL_FATAL(tb_stencil_t_link.tail, JIT_NO_TAIL);
  size = jit_chain_size(links, 3);
  /* Both jumps dropped: the links are laid back to back. */
  CU_ASSERT_EQUAL(size, 2 * tb_stencil_t_link.tail + tb_stencil_t_add.code_size);
  CU_ASSERT_EQUAL_FATAL(jit_code_alloc(cm, size, &c), JIT_OK);
  CU_ASSERT_EQUAL_FATAL(jit_emit_chain(jit_code_rw(c), (uint64_t)(uintptr_t)jit_code_rx(c), size,
                                       links, 3, &entry, &used, NULL),
                        JIT_OK);
  jit_code_commit(c);
  CU_ASSERT_EQUAL(used, size);
  CU_ASSERT_EQUAL(entry, 0);
  for (int i = 0; i < 16; i++) {
    uint64_t x = rnd();
    CU_ASSERT_EQUAL(((fn1_t)jit_fn((char *)jit_code_rx(c) + entry))(x), x + 1110);
  }
  /* Too small a buffer is refused. */
  CU_ASSERT_EQUAL(jit_emit_chain(jit_code_rw(c), 0, size - 1, links, 3, &entry, &used, NULL),
                  JIT_ENOSPC);
  jit_code_free(c);
}

static uint64_t c_slow(uint64_t x)
{
  return x ^ 0x5555;
}

static uint64_t c_double(uint64_t x)
{
  return 2 * x;
}

/* A template GCC split into a hot and a cold part (stencilgen.c note 2):
 * the cold part is in the data part, the hot one ends in its jump to the
 * next link, which a chain drops; both paths give their values, alone and
 * chained. */
static void cold_part_kept_out_of_the_text(void)
{
  const jit_stencil_t *g = &tc_stencil_t_guard;
  CU_ASSERT_NOT_EQUAL_FATAL(g->tail, JIT_NO_TAIL);
  CU_ASSERT_EQUAL(g->tail + 5, g->code_size);
  CU_ASSERT_EQUAL(g->tail_hole, TC_HOLE_hole_next);
  CU_ASSERT(g->size > g->data_off); /* the cold part */

  uint64_t v0[TC_HOLE__COUNT] = {0}, v1[TC_HOLE__COUNT] = {0}, v2[TC_HOLE__COUNT] = {0};
  int rc;
  {
    fn1_t f = c_slow, n = c_double;
    memcpy(&v0[TC_HOLE_hole_slow], &f, sizeof f);
    memcpy(&v0[TC_HOLE_hole_next], &n, sizeof n);
    memcpy(&v1[TC_HOLE_hole_slow], &f, sizeof f);
  }
  v0[TC_HOLE_hole_k] = 100;
  jit_code_t *c = emit(g, v0, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  fn1_t alone = (fn1_t)jit_fn(entry_of(c, g));
  CU_ASSERT_EQUAL(alone(7), 16);
  CU_ASSERT_EQUAL(alone(100), 202);
  CU_ASSERT_EQUAL(alone(101), (101 ^ 0x5555) + 1);
  jit_code_free(c);

  /* guard(100), guard(50), end: both jumps dropped. */
  v1[TC_HOLE_hole_k] = 50;
  jit_link_t links[3] = {
    {g, v0, TC_HOLE_hole_next},
    {g, v1, TC_HOLE_hole_next},
    {&tc_stencil_t_end, v2, -1},
  };
  size_t entry, used, size = jit_chain_size(links, 3);
  jit_chain_map_t map = {0};
  CU_ASSERT_EQUAL_FATAL(jit_code_alloc(cm, size, &c), JIT_OK);
  CU_ASSERT_EQUAL(jit_chain_map(links, 3, (uint64_t)(uintptr_t)jit_code_rx(c), &map), JIT_OK);
  CU_ASSERT_EQUAL(map.entry[1], g->tail);
  CU_ASSERT_EQUAL(map.entry[2], 2 * g->tail);
  CU_ASSERT_EQUAL_FATAL(jit_emit_chain(jit_code_rw(c), (uint64_t)(uintptr_t)jit_code_rx(c), size,
                                       links, 3, &entry, &used, NULL),
                        JIT_OK);
  jit_code_commit(c);
  fn1_t chained = (fn1_t)jit_fn((char *)jit_code_rx(c) + entry);
  CU_ASSERT_EQUAL(chained(5), 14);                     /* (5 + 1 + 1) * 2 */
  CU_ASSERT_EQUAL(chained(49), 102);                   /* (49 + 2) * 2 */
  CU_ASSERT_EQUAL(chained(60), (61 ^ 0x5555) + 1);     /* the second guard's cold part */
  CU_ASSERT_EQUAL(chained(2000), (2000 ^ 0x5555) + 1); /* the first's */
  jit_code_free(c);
}

/* A link calls another link of the same code through a hole (a tee's
 * earlier outputs): the hole gets that link's entry, wherever it lies. */
static void chain_link_calls_another_link(void)
{
  uint64_t v0[TB_HOLE__COUNT] = {0}, v1[TB_HOLE__COUNT] = {0}, v2[TB_HOLE__COUNT] = {0};
  jit_link_t links[3] = {
    {&tb_stencil_t_call2, v0, -1, 1, {{TB_HOLE_hole_fn, 2}}},
    {&tb_stencil_t_add, v1, -1, 0, {{0, 0}}},
    {&tb_stencil_t_add, v2, -1, 0, {{0, 0}}},
  };
  jit_part_t parts[3] = {
    {&tb_tmpl_t_call2, v0, -1, 1, {{TB_HOLE_hole_fn, 2}}},
    {&tb_tmpl_t_add, v1, -1, 0, {{0, 0}}},
    {&tb_tmpl_t_add, v2, -1, 0, {{0, 0}}},
  };
  size_t entry, used, size;
  jit_code_t *c;

  v0[TB_HOLE_hole_k] = 7;
  v0[TB_HOLE_hole_fn] = 0; /* would not be reachable: the call binding must win */
  v1[TB_HOLE_hole_k] = 1000;
  v2[TB_HOLE_hole_k] = 5;
  size = jit_chain_size(links, 3);
  CU_ASSERT_EQUAL_FATAL(jit_code_alloc(cm, size, &c), JIT_OK);
  CU_ASSERT_EQUAL_FATAL(jit_emit_chain(jit_code_rw(c), (uint64_t)(uintptr_t)jit_code_rx(c), size,
                                       links, 3, &entry, &used, NULL),
                        JIT_OK);
  jit_code_commit(c);
  CU_ASSERT_EQUAL(((fn1_t)jit_fn((char *)jit_code_rx(c) + entry))(1), 1 + 5 + 5 + 7);
  /* A call to a link that is not there is refused. */
  links[0].calls[0].link = 3;
  CU_ASSERT_EQUAL(jit_emit_chain(jit_code_rw(c), 0, size, links, 3, &entry, &used, NULL), JIT_EINVAL);
  links[0].ncalls = JIT_LINK_CALLS + 1;
  CU_ASSERT_EQUAL(jit_emit_chain(jit_code_rw(c), 0, size, links, 3, &entry, &used, NULL), JIT_EINVAL);
  jit_code_free(c);
  /* The same through the tier interface. */
  CU_ASSERT_EQUAL_FATAL(jit_compile(&jit_tier_stencil, cm, parts, 3, &c, &entry, NULL, NULL), JIT_OK);
  CU_ASSERT_EQUAL(((fn1_t)jit_fn((char *)jit_code_rx(c) + entry))(10), 10 + 5 + 5 + 7);
  jit_tier_stencil.release(&jit_tier_stencil, c, 1);
}

static void chain_patches_next_hole_when_not_a_tail(void)
{
  uint64_t v0[TB_HOLE__COUNT] = {0}, v1[TB_HOLE__COUNT] = {0};
  jit_link_t links[2] = {
    {&tb_stencil_t_call2, v0, TB_HOLE_hole_fn},
    {&tb_stencil_t_add, v1, -1},
  };
  jit_part_t parts[2] = {
    {&tb_tmpl_t_call2, v0, TB_HOLE_hole_fn},
    {&tb_tmpl_t_add, v1, -1},
  };
  size_t entry, used, size;
  uint64_t ns = 0;
  jit_code_t *c;

  v0[TB_HOLE_hole_k] = 7;
  v1[TB_HOLE_hole_k] = 5;
  size = jit_chain_size(links, 2);
  CU_ASSERT_EQUAL_FATAL(jit_code_alloc(cm, size, &c), JIT_OK);
  CU_ASSERT_EQUAL_FATAL(jit_emit_chain(jit_code_rw(c), (uint64_t)(uintptr_t)jit_code_rx(c), size,
                                       links, 2, &entry, &used, NULL),
                        JIT_OK);
  jit_code_commit(c);
  CU_ASSERT_EQUAL(((fn1_t)jit_fn((char *)jit_code_rx(c) + entry))(1), 1 + 5 + 5 + 7);
  jit_code_free(c);

  /* The same through the tier interface, timed. */
  CU_ASSERT_EQUAL_FATAL(jit_compile(&jit_tier_stencil, cm, parts, 2, &c, &entry, &ns, NULL), JIT_OK);
  CU_ASSERT_STRING_EQUAL(jit_tier_stencil.name, "stencil");
  CU_ASSERT(ns > 0);
  CU_ASSERT_EQUAL(((fn1_t)jit_fn((char *)jit_code_rx(c) + entry))(1), 1 + 5 + 5 + 7);
  jit_tier_stencil.release(&jit_tier_stencil, c, 1);

  /* A template without a stencil is not for this tier. */
  jit_template_t none = {"none", NULL, NULL, 0};
  jit_part_t p = {&none, v0, -1};
  CU_ASSERT_EQUAL(jit_compile(&jit_tier_stencil, cm, &p, 1, &c, &entry, NULL, NULL), JIT_ENOTIER);
}

static uint64_t ref_switch(uint64_t x, uint64_t y, uint64_t k)
{
  switch (x) {
  case 0: return y + 3;
  case 1: return y * 7;
  case 2: return y - 9;
  case 3: return y ^ 11;
  case 4: return y * y;
  case 5: return y << 5;
  case 6: return y + k;
  default: return 0;
  }
}

static void own_rodata_copied_with_stencil(void)
{
  uint64_t v[TDL_HOLE__COUNT] = {0};
  int rc;
  jit_code_t *c;

  /* Large model: the jump table lives in the data part and points back into the text. */
  v[TDL_HOLE_hole_k] = 0x1234;
  CU_ASSERT(tdl_stencil_t_switch.size > tdl_stencil_t_switch.data_off);
  c = emit(&tdl_stencil_t_switch, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  for (uint64_t x = 0; x < 9; x++) {
    uint64_t y = rnd();
    CU_ASSERT_EQUAL(((fn2_t)jit_fn(entry_of(c, &tdl_stencil_t_switch)))(x, y), ref_switch(x, y, 0x1234));
  }
  jit_code_free(c);

  c = emit(&tdl_stencil_t_str, v, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  for (uint64_t i = 0; i < 8; i++)
    CU_ASSERT_EQUAL(((fn1_t)jit_fn(entry_of(c, &tdl_stencil_t_str)))(i), (uint64_t)"stencil"[i]);
  jit_code_free(c);

  /* Medium model: the constant pool is read RIP-relative (PC32 to the data part). */
  uint64_t w[TDM_HOLE__COUNT] = {0};
  c = emit(&tdm_stencil_t_scale, w, &rc, NULL);
  CU_ASSERT_EQUAL_FATAL(rc, JIT_OK);
  CU_ASSERT_DOUBLE_EQUAL(((fnd_t)jit_fn(entry_of(c, &tdm_stencil_t_scale)))(2.0), 3.0, 1e-12);
  jit_code_free(c);
}

static void own_rodata_absolute_32s_refused(void)
{
  uint64_t w[TDM_HOLE__COUNT] = {0};
  jit_emit_error_t err;
  char msg[256];
  int rc;

  /* Medium model indexes .rodata with an absolute imm32: code memory is above 2 GiB. */
  CU_ASSERT_PTR_NULL(emit(&tdm_stencil_t_str, w, &rc, &err));
  CU_ASSERT_EQUAL(rc, JIT_ERANGE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err.hole);
  CU_ASSERT_EQUAL(err.hole->hole, JIT_HOLE_DATA);
  jit_emit_error_format(msg, sizeof msg, rc, &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "own data"));
}

static void chain_places_data_after_all_text(void)
{
  uint64_t v0[TB_HOLE__COUNT] = {0}, v1[TDL_HOLE__COUNT] = {0};
  jit_link_t links[2] = {
    {&tb_stencil_t_link, v0, TB_HOLE_hole_next},
    {&tdl_stencil_t_str, v1, -1},
  };
  size_t entry, used, size = jit_chain_size(links, 2);
  jit_code_t *c;

  v0[TB_HOLE_hole_k] = 1;
  CU_ASSERT_EQUAL_FATAL(jit_code_alloc(cm, size, &c), JIT_OK);
  CU_ASSERT_EQUAL_FATAL(jit_emit_chain(jit_code_rw(c), (uint64_t)(uintptr_t)jit_code_rx(c), size,
                                       links, 2, &entry, &used, NULL),
                        JIT_OK);
  jit_code_commit(c);
  for (uint64_t i = 0; i < 8; i++)
    CU_ASSERT_EQUAL(((fn1_t)jit_fn((char *)jit_code_rx(c) + entry))(i), (uint64_t)"stencil"[(i + 1) & 7]);
  jit_code_free(c);
}

static void errors_have_names_and_messages(void)
{
  CU_ASSERT_STRING_EQUAL(jit_err_name(JIT_EREACH), "JIT_EREACH");
  CU_ASSERT_STRING_EQUAL(jit_strerror(JIT_ENOSPC), "destination too small for the code");
  CU_ASSERT_STRING_EQUAL(jit_err_name(-999), "JIT_EUNKNOWN");
  CU_ASSERT_STRING_EQUAL(jit_err_name(JIT_OK), "JIT_OK");
}

static int suite_init(void)
{
  return jit_codemem_create(NULL, &cm) == JIT_OK ? 0 : -1;
}

static int suite_clean(void)
{
  jit_codemem_destroy(cm);
  return 0;
}

int main(void)
{
  CU_pSuite s;
  unsigned failures;

  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("jit-stencil", suite_init, suite_clean);
  CU_add_test(s, "tables_list_templates_and_holes", tables_list_templates_and_holes);
  CU_add_test(s, "hole_find_reads_a_changed_name_again", hole_find_reads_a_changed_name_again);
  CU_add_test(s, "return_hole_value_when_called", return_hole_value_when_called);
  CU_add_test(s, "add_hole_constant_when_called", add_hole_constant_when_called);
  CU_add_test(s, "tail_call_reaches_c_function", tail_call_reaches_c_function);
  CU_add_test(s, "small_model_values_in_range_work", small_model_values_in_range_work);
  CU_add_test(s, "out_of_range_32s_refused_naming_hole", out_of_range_32s_refused_naming_hole);
  CU_add_test(s, "imm8_hole_patched_and_range_checked", imm8_hole_patched_and_range_checked);
  CU_add_test(s, "pc32_target_out_of_reach_refused", pc32_target_out_of_reach_refused);
  CU_add_test(s, "chain_falls_through_into_next_link", chain_falls_through_into_next_link);
  CU_add_test(s, "chain_patches_next_hole_when_not_a_tail", chain_patches_next_hole_when_not_a_tail);
  CU_add_test(s, "chain_link_calls_another_link", chain_link_calls_another_link);
  CU_add_test(s, "cold_part_kept_out_of_the_text", cold_part_kept_out_of_the_text);
  CU_add_test(s, "own_rodata_copied_with_stencil", own_rodata_copied_with_stencil);
  CU_add_test(s, "own_rodata_absolute_32s_refused", own_rodata_absolute_32s_refused);
  CU_add_test(s, "chain_places_data_after_all_text", chain_places_data_after_all_text);
  CU_add_test(s, "errors_have_names_and_messages", errors_have_names_and_messages);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
