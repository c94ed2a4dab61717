/* test-cas.c -- CAS and CAS2 on the 68030 core: every flag, success and failure. */
#include "m68k-testutil.h"

#define DATA 0x5000u
#define DATA2 0x5100u

/* cas.l %d0,%d1,(%a0) */
static const uint16_t cas_l[] = {0x0ed0, 0x0040};
/* cas.w %d0,%d1,(%a0) */
static const uint16_t cas_w[] = {0x0cd0, 0x0040};
/* cas.b %d0,%d1,(%a0) */
static const uint16_t cas_b[] = {0x0ad0, 0x0040};
/* cas.l %d0,%d1,-(%a2) */
static const uint16_t cas_l_pd[] = {0x0ee2, 0x0040};
/* cas2.l %d0:%d1,%d2:%d3,(%a0):(%a1) */
static const uint16_t cas2_l[] = {0x0efc, 0x8080, 0x90c1};
/* cas2.w %d0:%d1,%d2:%d3,(%a0):(%a1) */
static const uint16_t cas2_w[] = {0x0cfc, 0x8080, 0x90c1};
/* cas2.l %d4:%d4,%d2:%d3,(%a0):(%a1) -- Dc1 and Dc2 the same register */
static const uint16_t cas2_same[] = {0x0efc, 0x8084, 0x90c4};
/* cas2.l %d4:%d4,%d2:%d3,(%d5):(%a1) -- a data register as Rn1 */
static const uint16_t cas2_dreg[] = {0x0efc, 0x5084, 0x90c4};

static tm_t tm;

/* Runs `code` once with (a0) = mem, d0 = dc, d1 = du and the given CCR. */
static void run_cas(const uint16_t *code, size_t n, uint32_t mem, uint32_t dc, uint32_t du,
                    uint32_t ccr)
{
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, code, n);
  tm_w32(&tm, DATA, mem);
  tm_set_a(&tm, 0, DATA);
  tm_set_d(&tm, 0, dc);
  tm_set_d(&tm, 1, du);
  tm_set_ccr(&tm, ccr);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_CODE + 2 * (uint32_t)n);
}

static void cas_long_equal_writes_update_and_sets_z(void)
{
  run_cas(cas_l, 2, 100, 100, 200, 0);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 200);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 100);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_Z);
  tm_done(&tm);
}

static void cas_long_unequal_loads_compare_register(void)
{
  run_cas(cas_l, 2, 100, 50, 200, 0);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 100);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 100);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 200);
  CU_ASSERT_EQUAL(tm_ccr(&tm), 0); /* 100 - 50: positive, no borrow */
  tm_done(&tm);
}

static void cas_flags_negative_and_borrow(void)
{
  run_cas(cas_l, 2, 50, 100, 0, 0); /* 50 - 100 */
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N | TM_C);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 50);
  tm_done(&tm);
}

static void cas_flags_overflow(void)
{
  run_cas(cas_l, 2, 0x80000000u, 1, 0, 0); /* 0x80000000 - 1 overflows */
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_V);
  tm_done(&tm);
}

static void cas_keeps_x_set_and_clear(void)
{
  run_cas(cas_l, 2, 7, 7, 9, TM_X | TM_N | TM_V | TM_C);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_X | TM_Z);
  tm_done(&tm);
  run_cas(cas_l, 2, 7, 8, 9, 0);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N | TM_C);
  tm_done(&tm);
}

static void cas_word_changes_only_low_word(void)
{
  run_cas(cas_w, 2, 0x8000ffffu, 0x12340001, 0xaaaa5555u, 0);
  /* memory word 0x8000 - 0x0001 = 0x7fff: overflow */
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_V);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 0x12348000u);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x8000ffffu);
  tm_done(&tm);
  run_cas(cas_w, 2, 0x8000ffffu, 0x12348000u, 0xaaaa5555u, 0);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_Z);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x5555ffffu);
  tm_done(&tm);
}

static void cas_byte_changes_only_low_byte(void)
{
  run_cas(cas_b, 2, 0x99000000u, 0x12345678u, 0x11, 0);
  /* 0x99 - 0x78 = 0x21: -103 - 120 overflows a byte */
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_V);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 0x12345699u);
  tm_done(&tm);
  run_cas(cas_b, 2, 0x99000000u, 0xffffff99u, 0x4477, 0);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_Z);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x77000000u);
  tm_done(&tm);
  run_cas(cas_b, 2, 0x10000000u, 0x20, 0, 0); /* 0x10 - 0x20 */
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N | TM_C);
  tm_done(&tm);
}

static void cas_predecrement_addressing(void)
{
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, cas_l_pd, 2);
  tm_w32(&tm, DATA, 5);
  tm_set_a(&tm, 2, DATA + 4);
  tm_set_d(&tm, 0, 5);
  tm_set_d(&tm, 1, 6);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_a(&tm, 2), DATA);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 6);
  tm_done(&tm);
}

/* CAS2 with (a0) = m1, (a1) = m2, d0/d1 = compare, d2/d3 = update. */
static void run_cas2(const uint16_t *code, uint32_t m1, uint32_t m2, uint32_t c1, uint32_t c2,
                     uint32_t ccr)
{
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, code, 3);
  tm_w32(&tm, DATA, m1);
  tm_w32(&tm, DATA2, m2);
  tm_set_a(&tm, 0, DATA);
  tm_set_a(&tm, 1, DATA2);
  tm_set_d(&tm, 0, c1);
  tm_set_d(&tm, 1, c2);
  tm_set_d(&tm, 2, 0x11111111u);
  tm_set_d(&tm, 3, 0x22222222u);
  tm_set_ccr(&tm, ccr);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_CODE + 6);
}

static void cas2_long_both_equal_writes_both(void)
{
  run_cas2(cas2_l, 10, 20, 10, 20, TM_X);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x11111111u);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA2), 0x22222222u);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_X | TM_Z);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 10);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 20);
  tm_done(&tm);
}

static void cas2_long_first_compare_fails(void)
{
  run_cas2(cas2_l, 10, 20, 11, 20, 0); /* 10 - 11 */
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 10);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA2), 20);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N | TM_C);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 10);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 20);
  tm_done(&tm);
}

static void cas2_long_second_compare_fails(void)
{
  run_cas2(cas2_l, 10, 0x80000000u, 10, 1, TM_X); /* second: overflow */
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 10);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA2), 0x80000000u);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_X | TM_V);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 10);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 0x80000000u);
  tm_done(&tm);
}

static void cas2_word_success_and_failure(void)
{
  run_cas2(cas2_w, 0x00010000u, 0x00020000u, 0xffff0001u, 0xffff0002u, 0);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_Z);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x11110000u);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA2), 0x22220000u);
  tm_done(&tm);
  run_cas2(cas2_w, 0x00010000u, 0x00050000u, 0xffff0001u, 0xffff0002u, 0);
  CU_ASSERT_EQUAL(tm_ccr(&tm), 0); /* 5 - 2 */
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 0xffff0001u);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 0xffff0005u);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA2), 0x00050000u);
  tm_done(&tm);
}

/* Dc1 == Dc2 and the compare fails: the register ends with operand 1. */
static void cas2_same_compare_register_gets_operand1(void)
{
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, cas2_same, 3);
  tm_w32(&tm, DATA, 0xaaaa0001u);
  tm_w32(&tm, DATA2, 0xbbbb0002u);
  tm_set_a(&tm, 0, DATA);
  tm_set_a(&tm, 1, DATA2);
  tm_set_d(&tm, 4, 5); /* fails the first compare */
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 4), 0xaaaa0001u);
  CU_ASSERT_EQUAL(tm_ccr(&tm) & TM_Z, 0);
  tm_done(&tm);

  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, cas2_same, 3);
  tm_w32(&tm, DATA, 7);
  tm_w32(&tm, DATA2, 9);
  tm_set_a(&tm, 0, DATA);
  tm_set_a(&tm, 1, DATA2);
  tm_set_d(&tm, 4, 7); /* first equal, second (9 - 7) fails */
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 4), 7);
  CU_ASSERT_EQUAL(tm_ccr(&tm), 0);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 7);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA2), 9);
  tm_done(&tm);
}

static void cas2_data_register_as_address(void)
{
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, cas2_dreg, 3);
  tm_w32(&tm, DATA, 3);
  tm_w32(&tm, DATA2, 3);
  tm_set_d(&tm, 5, DATA);
  tm_set_a(&tm, 1, DATA2);
  tm_set_d(&tm, 4, 3);
  tm_set_d(&tm, 2, 0x100);
  tm_set_d(&tm, 3, 0x200);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_Z);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x100);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA2), 0x200);
  tm_done(&tm);
}

static void cas_is_illegal_on_68000(void)
{
  tm_init(&tm, M68K_MODEL_68000);
  tm_code(&tm, cas_l, 2);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 4 * 4);
  CU_ASSERT_EQUAL(tm_r32(&tm, TM_STACK - 4), TM_CODE); /* stacked PC */
  tm_done(&tm);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"cas_long_equal_writes_update_and_sets_z", cas_long_equal_writes_update_and_sets_z},
      {"cas_long_unequal_loads_compare_register", cas_long_unequal_loads_compare_register},
      {"cas_flags_negative_and_borrow", cas_flags_negative_and_borrow},
      {"cas_flags_overflow", cas_flags_overflow},
      {"cas_keeps_x_set_and_clear", cas_keeps_x_set_and_clear},
      {"cas_word_changes_only_low_word", cas_word_changes_only_low_word},
      {"cas_byte_changes_only_low_byte", cas_byte_changes_only_low_byte},
      {"cas_predecrement_addressing", cas_predecrement_addressing},
      {"cas2_long_both_equal_writes_both", cas2_long_both_equal_writes_both},
      {"cas2_long_first_compare_fails", cas2_long_first_compare_fails},
      {"cas2_long_second_compare_fails", cas2_long_second_compare_fails},
      {"cas2_word_success_and_failure", cas2_word_success_and_failure},
      {"cas2_same_compare_register_gets_operand1", cas2_same_compare_register_gets_operand1},
      {"cas2_data_register_as_address", cas2_data_register_as_address},
      {"cas_is_illegal_on_68000", cas_is_illegal_on_68000},
  };
  return tm_run_suite("cas", cases, sizeof(cases) / sizeof(cases[0]));
}
