/* m68k-testutil.h -- a 64 KiB test machine for the core's unit tests. */
#ifndef QUA_M68K_TESTUTIL_H
#define QUA_M68K_TESTUTIL_H

#include <string.h>

#include <CUnit/Basic.h>

#include "m68k.h"

#define TM_CODE 0x1000u   /* where tm_code() puts the instructions */
#define TM_STACK 0x8000u  /* initial supervisor stack */
#define TM_HANDLER 0x3000u /* vector n points at TM_HANDLER + 4 n */

typedef struct tm {
  uint8_t ram[65536];
  m68k_cpu_t *cpu;
} tm_t;

static inline void tm_w16(tm_t *t, uint32_t a, uint16_t v)
{
  t->ram[a] = (uint8_t)(v >> 8);
  t->ram[a + 1] = (uint8_t)v;
}

static inline void tm_w32(tm_t *t, uint32_t a, uint32_t v)
{
  tm_w16(t, a, (uint16_t)(v >> 16));
  tm_w16(t, a + 2, (uint16_t)v);
}

static inline uint16_t tm_r16(const tm_t *t, uint32_t a)
{
  return (uint16_t)((t->ram[a] << 8) | t->ram[a + 1]);
}

static inline uint32_t tm_r32(const tm_t *t, uint32_t a)
{
  return ((uint32_t)tm_r16(t, a) << 16) | tm_r16(t, a + 2);
}

/* A fresh CPU in supervisor mode, interrupts masked, PC at TM_CODE. */
static inline void tm_init(tm_t *t, m68k_model_t model)
{
  memset(t->ram, 0, sizeof(t->ram));
  for (uint32_t v = 0; v < 256; v++)
    tm_w32(t, v * 4, TM_HANDLER + v * 4);
  m68k_bus_t bus = {.ram = t->ram, .ram_base = 0, .ram_size = sizeof(t->ram)};
  t->cpu = m68k_create(model, &bus);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t->cpu);
  m68k_set_reg(t->cpu, M68K_REG_SR, 0x2700);
  m68k_set_reg(t->cpu, M68K_REG_A0 + 7, TM_STACK);
  m68k_set_reg(t->cpu, M68K_REG_PC, TM_CODE);
}

static inline void tm_code(tm_t *t, const uint16_t *w, size_t n)
{
  for (size_t i = 0; i < n; i++)
    tm_w16(t, TM_CODE + 2 * (uint32_t)i, w[i]);
}

static inline void tm_done(tm_t *t)
{
  m68k_destroy(t->cpu);
  t->cpu = NULL;
}

static inline uint32_t tm_d(const tm_t *t, int n) { return m68k_get_reg(t->cpu, (m68k_reg_t)n); }
static inline uint32_t tm_a(const tm_t *t, int n) { return m68k_get_reg(t->cpu, (m68k_reg_t)(8 + n)); }
static inline void tm_set_d(tm_t *t, int n, uint32_t v) { m68k_set_reg(t->cpu, (m68k_reg_t)n, v); }
static inline void tm_set_a(tm_t *t, int n, uint32_t v) { m68k_set_reg(t->cpu, (m68k_reg_t)(8 + n), v); }
static inline uint32_t tm_pc(const tm_t *t) { return m68k_get_reg(t->cpu, M68K_REG_PC); }
static inline uint32_t tm_ccr(const tm_t *t) { return m68k_get_reg(t->cpu, M68K_REG_SR) & 0x1f; }
static inline void tm_set_ccr(tm_t *t, uint32_t ccr)
{
  uint32_t sr = m68k_get_reg(t->cpu, M68K_REG_SR);
  m68k_set_reg(t->cpu, M68K_REG_SR, (sr & ~0x1fu) | ccr);
}

enum { TM_C = 1, TM_V = 2, TM_Z = 4, TM_N = 8, TM_X = 16 };

/* Registers a suite's cases, runs them, returns the process exit code. */
typedef struct tm_case {
  const char *name;
  void (*fn)(void);
} tm_case_t;

static inline int tm_run_suite(const char *suite, const tm_case_t *cases, size_t n)
{
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite(suite, NULL, NULL);
  for (size_t i = 0; i < n; i++)
    CU_add_test(s, cases[i].name, cases[i].fn);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return fails ? 1 : 0;
}

#endif /* QUA_M68K_TESTUTIL_H */
