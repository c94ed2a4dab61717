/* test-m68k-stencil.c -- m68k stencils (ELF32 big-endian, R_68K_32 / R_68K_PC32) parsed and patched big-endian. */
#include "jit.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#ifndef JIT_TEST_M68K
int main(void)
{
  fprintf(stderr, "m68k-linux-gnu-gcc not found at configure time: skipped\n");
  return 77;
}
#else
#include "tm-stencils.h"

static uint32_t be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The first hole of `s` that is hole id `id`. */
static const jit_hole_t *hole_of(const jit_stencil_t *s, unsigned id)
{
  for (uint32_t i = 0; i < s->nholes; i++)
    if (s->holes[i].hole == id)
      return &s->holes[i];
  return NULL;
}

/* Every byte outside the holes' fields is the stencil's own. */
static int same_outside_holes(const uint8_t *buf, const jit_stencil_t *s)
{
  for (uint32_t b = 0; b < s->size; b++) {
    int in_hole = 0;
    for (uint32_t i = 0; i < s->nholes; i++) {
      const jit_hole_t *h = &s->holes[i];
      if (b >= h->offset && b < h->offset + jit_hole_kind_info(h->kind)->bytes)
        in_hole = 1;
    }
    if (!in_hole && buf[b] != s->bytes[b])
      return 0;
  }
  return 1;
}

static void m68k_tables_have_68k_kinds(void)
{
  const jit_hole_t *h;
  CU_ASSERT_EQUAL(tm_stencil_t_ret.machine, JIT_MACHINE_M68K);
  CU_ASSERT_EQUAL(tm_stencil_t_ret.align, 2);
  h = hole_of(&tm_stencil_t_ret, TM_HOLE_hole_value);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  CU_ASSERT_EQUAL(h->kind, JIT_HOLE_M68K_32);
  /* The tail call is a bra.l (0x60ff) to hole_fn, the last six bytes. */
  CU_ASSERT_NOT_EQUAL_FATAL(tm_stencil_t_tail.tail, JIT_NO_TAIL);
  CU_ASSERT_EQUAL(tm_stencil_t_tail.tail + 6, tm_stencil_t_tail.code_size);
  CU_ASSERT_EQUAL(tm_stencil_t_tail.bytes[tm_stencil_t_tail.tail], 0x60);
  CU_ASSERT_EQUAL(tm_stencil_t_tail.bytes[tm_stencil_t_tail.tail + 1], 0xff);
  CU_ASSERT_EQUAL(tm_stencil_t_tail.tail_hole, TM_HOLE_hole_fn);
  h = hole_of(&tm_stencil_t_tail, TM_HOLE_hole_fn);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  CU_ASSERT_EQUAL(h->kind, JIT_HOLE_M68K_PC32);
  CU_ASSERT_EQUAL(h->offset, tm_stencil_t_tail.tail + 2);
}

static void m68k_absolute_hole_patched_big_endian(void)
{
  uint64_t v[TM_HOLE__COUNT] = {0};
  uint8_t buf[256];
  const jit_hole_t *h = hole_of(&tm_stencil_t_ret, TM_HOLE_hole_value);

  v[TM_HOLE_hole_value] = 0x12345678;
  CU_ASSERT_EQUAL_FATAL(jit_emit(buf, 0x1000, &tm_stencil_t_ret, v, NULL), JIT_OK);
  CU_ASSERT_EQUAL(buf[h->offset], 0x12);
  CU_ASSERT_EQUAL(buf[h->offset + 1], 0x34);
  CU_ASSERT_EQUAL(buf[h->offset + 2], 0x56);
  CU_ASSERT_EQUAL(buf[h->offset + 3], 0x78);
  CU_ASSERT(same_outside_holes(buf, &tm_stencil_t_ret));

  /* A 32-bit address: 0xffff8000 and -32768 are the same field. */
  v[TM_HOLE_hole_value] = 0xffff8000u;
  CU_ASSERT_EQUAL(jit_emit(buf, 0x1000, &tm_stencil_t_ret, v, NULL), JIT_OK);
  CU_ASSERT_EQUAL(be32(buf + h->offset), 0xffff8000u);
  v[TM_HOLE_hole_value] = (uint64_t)-32768;
  CU_ASSERT_EQUAL(jit_emit(buf, 0x1000, &tm_stencil_t_ret, v, NULL), JIT_OK);
  CU_ASSERT_EQUAL(be32(buf + h->offset), 0xffff8000u);
  /* A host-sized value does not fit a 68k field. */
  v[TM_HOLE_hole_value] = (uint64_t)1 << 32;
  CU_ASSERT_EQUAL(jit_emit(buf, 0x1000, &tm_stencil_t_ret, v, NULL), JIT_ERANGE);
}

static void m68k_pc32_hole_patched_relative_to_field(void)
{
  uint64_t v[TM_HOLE__COUNT] = {0};
  uint8_t buf[256];
  const jit_hole_t *h = hole_of(&tm_stencil_t_tail, TM_HOLE_hole_fn);
  const uint64_t addr = 0x20000;

  v[TM_HOLE_hole_fn] = 0x1000;
  CU_ASSERT_EQUAL_FATAL(jit_emit(buf, addr, &tm_stencil_t_tail, v, NULL), JIT_OK);
  /* bra.l's displacement is taken from the extension word's address. */
  CU_ASSERT_EQUAL(be32(buf + h->offset), (uint32_t)(0x1000 - (addr + h->offset)));
  CU_ASSERT(same_outside_holes(buf, &tm_stencil_t_tail));
}

static void m68k_chain_drops_bra_and_falls_through(void)
{
  uint64_t v0[TM_HOLE__COUNT] = {0}, v1[TM_HOLE__COUNT] = {0};
  jit_link_t links[2] = {
    {&tm_stencil_t_link, v0, TM_HOLE_hole_next},
    {&tm_stencil_t_add, v1, -1},
  };
  uint8_t buf[512];
  size_t entry, used;

  CU_ASSERT_NOT_EQUAL_FATAL(tm_stencil_t_link.tail, JIT_NO_TAIL);
  v0[TM_HOLE_hole_k] = 3;
  v1[TM_HOLE_hole_k] = 4;
  CU_ASSERT_EQUAL_FATAL(jit_emit_chain(buf, 0x4000, sizeof buf, links, 2, &entry, &used, NULL), JIT_OK);
  CU_ASSERT_EQUAL(used, tm_stencil_t_link.tail + tm_stencil_t_add.code_size);
  /* t_add's code follows t_link's, the bra.l gone. */
  CU_ASSERT_EQUAL(memcmp(buf + tm_stencil_t_link.tail, tm_stencil_t_add.bytes, 2), 0);
}

int main(void)
{
  CU_pSuite s;
  unsigned failures;

  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("jit-m68k-stencil", NULL, NULL);
  CU_add_test(s, "m68k_tables_have_68k_kinds", m68k_tables_have_68k_kinds);
  CU_add_test(s, "m68k_absolute_hole_patched_big_endian", m68k_absolute_hole_patched_big_endian);
  CU_add_test(s, "m68k_pc32_hole_patched_relative_to_field", m68k_pc32_hole_patched_relative_to_field);
  CU_add_test(s, "m68k_chain_drops_bra_and_falls_through", m68k_chain_drops_bra_and_falls_through);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
#endif
