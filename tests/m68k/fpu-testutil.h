/* fpu-testutil.h -- running 68881 instructions on the 68030 test machine. */
#ifndef QUA_FPU_TESTUTIL_H
#define QUA_FPU_TESTUTIL_H

#include "m68k-testutil.h"

#define FT_DATA 0x4000u /* operands in memory */

/* An FP register's bits. */
typedef struct ft_reg {
  uint16_t se;
  uint64_t mant;
} ft_reg_t;

/* FPSR fields (MC68881/MC68882 User's Manual, 4.5). */
enum {
  FT_CC_N = 1u << 27, FT_CC_Z = 1u << 26, FT_CC_I = 1u << 25, FT_CC_NAN = 1u << 24,
  FT_BSUN = 1u << 15, FT_SNAN = 1u << 14, FT_OPERR = 1u << 13, FT_OVFL = 1u << 12,
  FT_UNFL = 1u << 11, FT_DZ = 1u << 10, FT_INEX2 = 1u << 9, FT_INEX1 = 1u << 8,
  FT_A_IOP = 1u << 7, FT_A_OVFL = 1u << 6, FT_A_UNFL = 1u << 5, FT_A_DZ = 1u << 4,
  FT_A_INEX = 1u << 3,
};

/* FPCR rounding precision and mode. */
enum { FT_RN = 0x00, FT_RZ = 0x10, FT_RM = 0x20, FT_RP = 0x30, FT_X = 0x00, FT_S = 0x40, FT_D = 0x80 };

static tm_t ft_tm;

static inline void ft_start(const uint16_t *code, size_t n)
{
  tm_init(&ft_tm, M68K_MODEL_68030);
  tm_code(&ft_tm, code, n);
  tm_set_a(&ft_tm, 0, FT_DATA);
}

static inline void ft_set(int n, ft_reg_t r) { m68k_set_fpreg(ft_tm.cpu, n, r.se, r.mant); }

static inline ft_reg_t ft_get(int n)
{
  ft_reg_t r;
  m68k_get_fpreg(ft_tm.cpu, n, &r.se, &r.mant);
  return r;
}

static inline void ft_steps(int n)
{
  for (int i = 0; i < n; i++)
    m68k_step(ft_tm.cpu);
}

#define FT_ASSERT_REG(n, want_se, want_mant)                                                       \
  do {                                                                                             \
    ft_reg_t got_ = ft_get(n);                                                                     \
    CU_ASSERT_EQUAL(got_.se, (want_se));                                                           \
    CU_ASSERT_EQUAL(got_.mant, (want_mant));                                                       \
    if (got_.se != (want_se) || got_.mant != (want_mant))                                          \
      fprintf(stderr, "\n  %s:%d FP%d %04x_%016llx, want %04x_%016llx\n", __FILE__, __LINE__,   \
              (int)(n), got_.se, (unsigned long long)got_.mant, (unsigned)(want_se),               \
              (unsigned long long)(want_mant));                                                    \
  } while (0)

#endif /* QUA_FPU_TESTUTIL_H */
