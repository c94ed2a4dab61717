/* test-fpu-packed.c -- the 68881's packed decimal format: exact and rounded conversions in, the
 * k-factor out, and round trips.
 *
 * Expected values are known decimals written out in packed form and their extended values from
 * exact rational arithmetic (tests/m68k/fpu-expected.py). Encodings come from
 * m68k-linux-gnu-as -m68030 -m68881.
 */
#include <stdio.h>

#include "fpu-testutil.h"

/* fmove.l %d0,%fpcr; fmove.p (%a0),%fp0; fmove.l %fpsr,%d1 with the packed
 * operand w at FT_DATA. Returns the FPSR. */
static uint32_t packed_in(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t fpcr)
{
  static const uint16_t code[] = {
      0xf200, 0x9000, /* fmove.l %d0,%fpcr */
      0xf210, 0x4c00, /* fmove.p (%a0),%fp0 */
      0xf201, 0xa800, /* fmove.l %fpsr,%d1 */
  };
  ft_start(code, 6);
  tm_w32(&ft_tm, FT_DATA, w0);
  tm_w32(&ft_tm, FT_DATA + 4, w1);
  tm_w32(&ft_tm, FT_DATA + 8, w2);
  tm_set_d(&ft_tm, 0, fpcr);
  ft_steps(3);
  return tm_d(&ft_tm, 1);
}

static void packed_source_converts_exact_decimals_exactly(void)
{
  uint32_t fpsr = packed_in(0x00030001u, 0x50000000u, 0, 0); /* 1.5E+3 */
  FT_ASSERT_REG(0, 0x4009, 0xbb80000000000000ull);
  CU_ASSERT_EQUAL(fpsr & 0xff00, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, 0);
  tm_done(&ft_tm);
  fpsr = packed_in(0x80000000u, 0, 0, 0); /* -0 */
  FT_ASSERT_REG(0, 0x8000, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_N | FT_CC_Z);
  tm_done(&ft_tm);
  fpsr = packed_in(0x7fff0000u, 0, 0, 0); /* +infinity */
  FT_ASSERT_REG(0, 0x7fff, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_I);
  tm_done(&ft_tm);
}

static void packed_source_rounds_in_fpcr_mode_and_sets_inex1(void)
{
  uint32_t fpsr = packed_in(0x40010001u, 0, 0, FT_RN); /* 1E-1 */
  FT_ASSERT_REG(0, 0x3ffb, 0xcccccccccccccccdull);
  CU_ASSERT_EQUAL(fpsr & 0xff00, FT_INEX1);
  CU_ASSERT(fpsr & FT_A_INEX);
  tm_done(&ft_tm);
  packed_in(0x40010001u, 0, 0, FT_RZ);
  FT_ASSERT_REG(0, 0x3ffb, 0xccccccccccccccccull);
  tm_done(&ft_tm);
  packed_in(0x40010001u, 0, 0, FT_RN | FT_S); /* one rounding to single */
  FT_ASSERT_REG(0, 0x3ffb, 0xcccccd0000000000ull);
  tm_done(&ft_tm);
  packed_in(0x80020001u, 0x23456000u, 0, FT_RN); /* -1.23456E+2 */
  FT_ASSERT_REG(0, 0xc005, 0xf6e978d4fdf3b646ull);
  tm_done(&ft_tm);
  packed_in(0x09990001u, 0, 0, FT_RN); /* 1E+999 */
  FT_ASSERT_REG(0, 0x4cf5, 0xc2d7c194b0fe2338ull);
  tm_done(&ft_tm);
  packed_in(0x09990001u, 0, 0, FT_RZ);
  FT_ASSERT_REG(0, 0x4cf5, 0xc2d7c194b0fe2337ull);
  tm_done(&ft_tm);
}

static void packed_source_with_a_bad_digit_is_an_operand_error(void)
{
  uint32_t fpsr = packed_in(0x0000000au, 0, 0, 0); /* integer digit 0xa */
  FT_ASSERT_REG(0, 0x7fff, 0xffffffffffffffffull);
  CU_ASSERT(fpsr & FT_OPERR);
  tm_done(&ft_tm);
}

/* fmove.l %d0,%fpcr; fmove.p %fp0,(%a0){k} (ext gives k) of x. */
static uint32_t packed_out(uint16_t ext, uint16_t se, uint64_t mant, uint32_t fpcr, uint32_t w[3])
{
  const uint16_t code[] = {
      0xf200, 0x9000, /* fmove.l %d0,%fpcr */
      0xf210, ext,    /* e.g. 0xf210 0x6c11: fmove.p %fp0,(%a0){#17} */
      0xf201, 0xa800, /* fmove.l %fpsr,%d1 */
  };
  ft_start(code, 6);
  ft_reg_t x = {se, mant};
  ft_set(0, x);
  tm_set_d(&ft_tm, 0, fpcr);
  tm_set_d(&ft_tm, 2, (uint32_t)-2);
  ft_steps(3);
  for (int i = 0; i < 3; i++)
    w[i] = tm_r32(&ft_tm, FT_DATA + 4 * (uint32_t)i);
  uint32_t fpsr = tm_d(&ft_tm, 1);
  tm_done(&ft_tm);
  return fpsr;
}

#define ASSERT_PACKED(w, a, b, c)                                                                  \
  do {                                                                                             \
    CU_ASSERT_EQUAL((w)[0], (a));                                                                  \
    CU_ASSERT_EQUAL((w)[1], (b));                                                                  \
    CU_ASSERT_EQUAL((w)[2], (c));                                                                  \
    if ((w)[0] != (a) || (w)[1] != (b) || (w)[2] != (c))                                           \
      fprintf(stderr, "\n  line %d: %08x %08x %08x\n", __LINE__, (w)[0], (w)[1], (w)[2]);         \
  } while (0)

static void packed_destination_follows_the_k_factor(void)
{
  uint32_t w[3], fpsr;
  fpsr = packed_out(0x6c11, 0x4000, 0xc90fdaa22168c235ull, FT_RN, w); /* pi {#17} */
  ASSERT_PACKED(w, 0x00000003u, 0x14159265u, 0x35897932u);
  CU_ASSERT_EQUAL(fpsr & 0xff00, FT_INEX2);
  fpsr = packed_out(0x6c11, 0x4009, 0xbb80000000000000ull, FT_RN, w); /* 1500 */
  ASSERT_PACKED(w, 0x00030001u, 0x50000000u, 0);
  CU_ASSERT_EQUAL(fpsr & 0xff00, 0);
  /* 123.456 (nearest extended): k = -2 keeps two digits right of the point. */
  packed_out(0x6c7e, 0x4005, 0xf6e978d4fdf3b646ull, FT_RN, w);
  ASSERT_PACKED(w, 0x00020001u, 0x23460000u, 0);
  packed_out(0x6c03, 0x4005, 0xf6e978d4fdf3b646ull, FT_RN, w); /* k = 3 */
  ASSERT_PACKED(w, 0x00020001u, 0x23000000u, 0);
  packed_out(0x6c03, 0x4005, 0xf6e978d4fdf3b646ull, FT_RP, w); /* rounded up */
  ASSERT_PACKED(w, 0x00020001u, 0x24000000u, 0);
  packed_out(0x7c20, 0xc005, 0xf6e978d4fdf3b646ull, FT_RN, w); /* k = D2 = -2, negative */
  ASSERT_PACKED(w, 0x80020001u, 0x23460000u, 0);
  packed_out(0x6c01, 0x3ffb, 0xcccccccccccccccdull, FT_RN, w); /* 0.1 {#1}: 1E-1 */
  ASSERT_PACKED(w, 0x40010001u, 0, 0);
  /* 1E-4000 needs the fourth exponent digit. */
  packed_out(0x6c05, 0x0c17, 0x9c3d73864f3805c0ull, FT_RN, w);
  ASSERT_PACKED(w, 0x40004001u, 0, 0);
  packed_out(0x6c11, 0x8000, 0, FT_RN, w); /* -0 */
  ASSERT_PACKED(w, 0x80000000u, 0, 0);
  packed_out(0x6c11, 0x7fff, 0, FT_RN, w); /* +infinity */
  ASSERT_PACKED(w, 0x7fff0000u, 0, 0);
}

static void packed_k_factor_above_17_is_an_operand_error(void)
{
  uint32_t w[3];
  uint32_t fpsr = packed_out(0x6c12, 0x4000, 0xc90fdaa22168c235ull, FT_RN, w); /* {#18} */
  ASSERT_PACKED(w, 0x00000003u, 0x14159265u, 0x35897932u);
  CU_ASSERT(fpsr & FT_OPERR);
  CU_ASSERT(fpsr & FT_A_IOP);
}

static void packed_round_trip_keeps_every_double(void)
{
  static const uint16_t code[] = {
      0xf210, 0x5400, /* fmove.d (%a0),%fp0 */
      0xf211, 0x6c11, /* fmove.p %fp0,(%a1){#17} */
      0xf211, 0x4c80, /* fmove.p (%a1),%fp1 */
      0xf212, 0x7480, /* fmove.d %fp1,(%a2) */
  };
  uint64_t x = 0x3ff0000000000000ull;
  for (int i = 0; i < 300; i++) {
    ft_start(code, 8);
    tm_set_a(&ft_tm, 1, FT_DATA + 0x100);
    tm_set_a(&ft_tm, 2, FT_DATA + 0x200);
    tm_w32(&ft_tm, FT_DATA, (uint32_t)(x >> 32));
    tm_w32(&ft_tm, FT_DATA + 4, (uint32_t)x);
    ft_steps(4);
    uint64_t back = ((uint64_t)tm_r32(&ft_tm, FT_DATA + 0x200) << 32) | tm_r32(&ft_tm, FT_DATA + 0x204);
    CU_ASSERT_EQUAL(back, x);
    if (back != x)
      fprintf(stderr, "\n  %016llx came back as %016llx\n", (unsigned long long)x,
              (unsigned long long)back);
    tm_done(&ft_tm);
    /* The next finite double: a 64-bit LCG, exponent kept in range. */
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    if (((x >> 52) & 0x7ff) == 0x7ff)
      x ^= 0x4000000000000000ull;
  }
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"packed_source_converts_exact_decimals_exactly",
       packed_source_converts_exact_decimals_exactly},
      {"packed_source_rounds_in_fpcr_mode_and_sets_inex1",
       packed_source_rounds_in_fpcr_mode_and_sets_inex1},
      {"packed_source_with_a_bad_digit_is_an_operand_error",
       packed_source_with_a_bad_digit_is_an_operand_error},
      {"packed_destination_follows_the_k_factor", packed_destination_follows_the_k_factor},
      {"packed_k_factor_above_17_is_an_operand_error",
       packed_k_factor_above_17_is_an_operand_error},
      {"packed_round_trip_keeps_every_double", packed_round_trip_keeps_every_double},
  };
  return tm_run_suite("m68k-fpu-packed", cases, sizeof cases / sizeof cases[0]);
}
