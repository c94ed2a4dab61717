/* test-fpu-transcendental.c -- FMOVECR's constants and the 68881's transcendental instructions:
 * within one unit in the last place of extended precision, exact where the result is, domain
 * errors and poles as the manual says.
 *
 * Expected values were computed with mpmath at 300 bits and rounded to extended precision with
 * exact rational arithmetic (tests/m68k/fpu-expected.py), not by the host's libm. Encodings come
 * from m68k-linux-gnu-as -m68030 -m68881.
 */
#include <stdio.h>

#include "fpu-testutil.h"

/* fmove.l %d0,%fpcr; fmovecr #off,%fp0; fmove.l %fpsr,%d1 */
static uint32_t run_cr(unsigned off, uint32_t fpcr)
{
  const uint16_t code[] = {
      0xf200, 0x9000,                 /* fmove.l %d0,%fpcr */
      0xf200, (uint16_t)(0x5c00 | off), /* e.g. 0xf200 0x5c3f: fmovecr #0x3f,%fp0 */
      0xf201, 0xa800,                 /* fmove.l %fpsr,%d1 */
  };
  ft_start(code, 6);
  tm_set_d(&ft_tm, 0, fpcr);
  ft_steps(3);
  return tm_d(&ft_tm, 1);
}

static const struct {
  uint8_t off;
  uint16_t se;
  uint64_t mant;
  int inexact;
} rom[] = {
    {0x00, 0x4000, 0xc90fdaa22168c235ull, 1}, /* pi */
    {0x0b, 0x3ffd, 0x9a209a84fbcff799ull, 1}, /* log10(2) */
    {0x0c, 0x4000, 0xadf85458a2bb4a9bull, 1}, /* e */
    {0x0d, 0x3fff, 0xb8aa3b295c17f0bcull, 1}, /* log2(e) */
    {0x0e, 0x3ffd, 0xde5bd8a937287195ull, 1}, /* log10(e) */
    {0x0f, 0x0000, 0x0000000000000000ull, 0}, /* 0.0 */
    {0x30, 0x3ffe, 0xb17217f7d1cf79acull, 1}, /* ln(2) */
    {0x31, 0x4000, 0x935d8dddaaa8ac17ull, 1}, /* ln(10) */
    {0x32, 0x3fff, 0x8000000000000000ull, 0}, /* 1.0 */
    {0x33, 0x4002, 0xa000000000000000ull, 0}, /* 10^1 */
    {0x34, 0x4005, 0xc800000000000000ull, 0}, /* 10^2 */
    {0x35, 0x400c, 0x9c40000000000000ull, 0}, /* 10^4 */
    {0x36, 0x4019, 0xbebc200000000000ull, 0}, /* 10^8 */
    {0x37, 0x4034, 0x8e1bc9bf04000000ull, 0}, /* 10^16 */
    {0x38, 0x4069, 0x9dc5ada82b70b59eull, 1}, /* 10^32 */
    {0x39, 0x40d3, 0xc2781f49ffcfa6d5ull, 1}, /* 10^64 */
    {0x3a, 0x41a8, 0x93ba47c980e98ce0ull, 1}, /* 10^128 */
    {0x3b, 0x4351, 0xaa7eebfb9df9de8eull, 1}, /* 10^256 */
    {0x3c, 0x46a3, 0xe319a0aea60e91c7ull, 1}, /* 10^512 */
    {0x3d, 0x4d48, 0xc976758681750c17ull, 1}, /* 10^1024 */
    {0x3e, 0x5a92, 0x9e8b3b5dc53d5de5ull, 1}, /* 10^2048 */
    {0x3f, 0x7525, 0xc46052028a20979bull, 1}, /* 10^4096 */
};

static void fmovecr_gives_each_constant_correctly_rounded(void)
{
  for (size_t i = 0; i < sizeof rom / sizeof rom[0]; i++) {
    uint32_t fpsr = run_cr(rom[i].off, FT_RN);
    FT_ASSERT_REG(0, rom[i].se, rom[i].mant);
    CU_ASSERT_EQUAL(!!(fpsr & FT_INEX2), rom[i].inexact);
    tm_done(&ft_tm);
  }
}

static void fmovecr_rounds_in_fpcr_mode_and_precision(void)
{
  static const struct {
    uint32_t fpcr;
    uint64_t mant;
  } pi[] = {
      {FT_RZ, 0xc90fdaa22168c234ull},        {FT_RM, 0xc90fdaa22168c234ull},
      {FT_RP, 0xc90fdaa22168c235ull},        {FT_RN | FT_S, 0xc90fdb0000000000ull},
      {FT_RZ | FT_S, 0xc90fda0000000000ull}, {FT_RN | FT_D, 0xc90fdaa22168c000ull},
      {FT_RP | FT_D, 0xc90fdaa22168c800ull},
  };
  for (size_t i = 0; i < sizeof pi / sizeof pi[0]; i++) {
    run_cr(0, pi[i].fpcr);
    FT_ASSERT_REG(0, 0x4000, pi[i].mant);
    tm_done(&ft_tm);
  }
}

static void fmovecr_undefined_offset_reads_zero(void)
{
  uint32_t fpsr = run_cr(0x20, FT_RN);
  FT_ASSERT_REG(0, 0, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_Z);
  tm_done(&ft_tm);
}

/* <cmd> %fp1,%fp0 with FP1 = x; returns the FPSR. */
static uint32_t run_fn(uint16_t cmd, ft_reg_t x)
{
  const uint16_t code[] = {
      0xf200, (uint16_t)(0x0400 | cmd), /* e.g. 0xf200 0x0408: fetoxm1.x %fp1,%fp0 */
      0xf201, 0xa800,                   /* fmove.l %fpsr,%d1 */
  };
  ft_start(code, 4);
  ft_set(1, x);
  ft_steps(2);
  return tm_d(&ft_tm, 1);
}

/* Units in the last place between two finite extended values of one sign. */
static unsigned __int128 ulps(ft_reg_t a, ft_reg_t b)
{
  unsigned __int128 ka = ((unsigned __int128)(a.se & 0x7fff) << 64) | a.mant;
  unsigned __int128 kb = ((unsigned __int128)(b.se & 0x7fff) << 64) | b.mant;
  if ((a.se ^ b.se) & 0x8000)
    return ~(unsigned __int128)0;
  /* Within one binade the key difference is the ulp count; across a power of two it is off
   * by 2^63 per binade, which the check below still rejects. */
  return ka > kb ? ka - kb : kb - ka;
}

static const struct {
  uint16_t cmd;
  ft_reg_t x, want;
} known[] = {
    {0x0e, {0x3ffe, 0x8000000000000000ull}, {0x3ffd, 0xf57743a2582f7f44ull}}, /* fsin 0.5 */
    {0x1d, {0x3ffe, 0x8000000000000000ull}, {0x3ffe, 0xe0a94032dbea7ceeull}}, /* fcos 0.5 */
    {0x0f, {0x3ffe, 0x8000000000000000ull}, {0x3ffe, 0x8bda7adf9a3a5219ull}}, /* ftan 0.5 */
    {0x0c, {0x3ffe, 0x8000000000000000ull}, {0x3ffe, 0x860a91c16b9b2c23ull}}, /* fasin 0.5 */
    {0x1c, {0x3ffe, 0x8000000000000000ull}, {0x3fff, 0x860a91c16b9b2c23ull}}, /* facos 0.5 */
    {0x0a, {0x3fff, 0x8000000000000000ull}, {0x3ffe, 0xc90fdaa22168c235ull}}, /* fatan 1 */
    {0x0d, {0x3ffe, 0x8000000000000000ull}, {0x3ffe, 0x8c9f53d5681854bbull}}, /* fatanh 0.5 */
    {0x02, {0x3fff, 0x8000000000000000ull}, {0x3fff, 0x966cfe2275cc12d4ull}}, /* fsinh 1 */
    {0x19, {0x3fff, 0x8000000000000000ull}, {0x3fff, 0xc583aa8ecfaa8261ull}}, /* fcosh 1 */
    {0x09, {0x3ffe, 0x8000000000000000ull}, {0x3ffd, 0xec9a9ebab4579b29ull}}, /* ftanh 0.5 */
    {0x10, {0x3fff, 0x8000000000000000ull}, {0x4000, 0xadf85458a2bb4a9bull}}, /* fetox 1 */
    {0x08, {0x3fe1, 0x8000000000000000ull}, {0x3fe1, 0x8000000100000001ull}}, /* fetoxm1 2^-30 */
    {0x11, {0x3ffe, 0x8000000000000000ull}, {0x3fff, 0xb504f333f9de6484ull}}, /* ftwotox 0.5 */
    {0x12, {0x3ffe, 0x8000000000000000ull}, {0x4000, 0xca62c1d6d2da9490ull}}, /* ftentox 0.5 */
    {0x14, {0x4002, 0xa000000000000000ull}, {0x4000, 0x935d8dddaaa8ac17ull}}, /* flogn 10 */
    {0x06, {0x3fe1, 0x8000000000000000ull}, {0x3fe0, 0xfffffffe00000005ull}}, /* flognp1 2^-30 */
    {0x15, {0x4000, 0x8000000000000000ull}, {0x3ffd, 0x9a209a84fbcff799ull}}, /* flog10 2 */
    {0x16, {0x4002, 0xa000000000000000ull}, {0x4000, 0xd49a784bcd1b8afeull}}, /* flog2 10 */
    {0x0e, {0x4002, 0xa000000000000000ull}, {0xbffe, 0x8b44f7af9a7a92ceull}}, /* fsin 10 */
    {0x1d, {0xc000, 0xc000000000000000ull}, {0xbffe, 0xfd7025f42f2e9308ull}}, /* fcos -3 */
    {0x10, {0xc000, 0xc000000000000000ull}, {0x3ffa, 0xcbed86667585764aull}}, /* fetox -3 */
};

static void transcendentals_within_one_ulp_of_extended(void)
{
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    uint32_t fpsr = run_fn(known[i].cmd, known[i].x);
    ft_reg_t got = ft_get(0);
    unsigned __int128 d = ulps(got, known[i].want);
    CU_ASSERT(d <= 1);
    if (d > 1)
      fprintf(stderr, "\n  cmd %#x: %04x_%016llx, want %04x_%016llx\n", known[i].cmd, got.se,
              (unsigned long long)got.mant, known[i].want.se,
              (unsigned long long)known[i].want.mant);
    CU_ASSERT_EQUAL(fpsr & (FT_OPERR | FT_DZ | FT_OVFL), 0);
    CU_ASSERT(fpsr & FT_INEX2);
    tm_done(&ft_tm);
  }
}

static void exact_transcendental_results_are_exact(void)
{
  static const struct {
    uint16_t cmd;
    ft_reg_t x, want;
  } exact[] = {
      {0x10, {0, 0}, {0x3fff, 0x8000000000000000ull}},                            /* fetox 0 */
      {0x11, {0x4002, 0xa000000000000000ull}, {0x4009, 0x8000000000000000ull}},   /* ftwotox 10 */
      {0x12, {0x4000, 0xc000000000000000ull}, {0x4008, 0xfa00000000000000ull}},   /* ftentox 3 */
      {0x16, {0x4009, 0x8000000000000000ull}, {0x4002, 0xa000000000000000ull}},   /* flog2 1024 */
      {0x15, {0x4008, 0xfa00000000000000ull}, {0x4000, 0xc000000000000000ull}},   /* flog10 1000 */
      {0x0e, {0x8000, 0}, {0x8000, 0}},                                           /* fsin -0 */
      {0x14, {0x3fff, 0x8000000000000000ull}, {0, 0}},                            /* flogn 1 */
  };
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
    uint32_t fpsr = run_fn(exact[i].cmd, exact[i].x);
    FT_ASSERT_REG(0, exact[i].want.se, exact[i].want.mant);
    CU_ASSERT_EQUAL(fpsr & 0xff00, 0);
    tm_done(&ft_tm);
  }
}

static void fsincos_writes_sine_and_cosine(void)
{
  static const uint16_t code[] = {
      0xf200, 0x0432, /* fsincos.x %fp1,%fp2:%fp0 */
  };
  ft_start(code, 2);
  ft_reg_t half = {0x3ffe, 0x8000000000000000ull};
  ft_reg_t sin_half = {0x3ffd, 0xf57743a2582f7f44ull}, cos_half = {0x3ffe, 0xe0a94032dbea7ceeull};
  ft_set(1, half);
  ft_steps(1);
  CU_ASSERT(ulps(ft_get(0), sin_half) <= 1);
  CU_ASSERT(ulps(ft_get(2), cos_half) <= 1);
  tm_done(&ft_tm);
}

static void domain_errors_and_poles_set_operr_and_dz(void)
{
  ft_reg_t two = {0x4000, 0x8000000000000000ull}, one = {0x3fff, 0x8000000000000000ull};
  ft_reg_t mone = {0xbfff, 0x8000000000000000ull}, zero = {0, 0}, inf = {0x7fff, 0};
  uint32_t fpsr = run_fn(0x0c, two); /* fasin 2 */
  FT_ASSERT_REG(0, 0x7fff, 0xffffffffffffffffull);
  CU_ASSERT_EQUAL(fpsr & 0xff00, FT_OPERR);
  CU_ASSERT(fpsr & FT_A_IOP);
  tm_done(&ft_tm);
  fpsr = run_fn(0x14, mone); /* flogn -1 */
  FT_ASSERT_REG(0, 0x7fff, 0xffffffffffffffffull);
  CU_ASSERT(fpsr & FT_OPERR);
  tm_done(&ft_tm);
  fpsr = run_fn(0x0e, inf); /* fsin inf */
  FT_ASSERT_REG(0, 0x7fff, 0xffffffffffffffffull);
  CU_ASSERT(fpsr & FT_OPERR);
  tm_done(&ft_tm);
  fpsr = run_fn(0x14, zero); /* flogn 0: -inf */
  FT_ASSERT_REG(0, 0xffff, 0);
  CU_ASSERT_EQUAL(fpsr & 0xfff8, FT_DZ | FT_A_DZ);
  tm_done(&ft_tm);
  fpsr = run_fn(0x0d, one); /* fatanh 1: +inf */
  FT_ASSERT_REG(0, 0x7fff, 0);
  CU_ASSERT(fpsr & FT_DZ);
  tm_done(&ft_tm);
  fpsr = run_fn(0x06, mone); /* flognp1 -1: -inf */
  FT_ASSERT_REG(0, 0xffff, 0);
  CU_ASSERT(fpsr & FT_DZ);
  tm_done(&ft_tm);
  ft_reg_t big = {0x400d, 0x8000000000000000ull}; /* fetox 16384: overflow */
  fpsr = run_fn(0x10, big);
  FT_ASSERT_REG(0, 0x7fff, 0);
  CU_ASSERT(fpsr & FT_OVFL);
  CU_ASSERT(fpsr & FT_A_OVFL);
  tm_done(&ft_tm);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"fmovecr_gives_each_constant_correctly_rounded",
       fmovecr_gives_each_constant_correctly_rounded},
      {"fmovecr_rounds_in_fpcr_mode_and_precision", fmovecr_rounds_in_fpcr_mode_and_precision},
      {"fmovecr_undefined_offset_reads_zero", fmovecr_undefined_offset_reads_zero},
      {"transcendentals_within_one_ulp_of_extended", transcendentals_within_one_ulp_of_extended},
      {"exact_transcendental_results_are_exact", exact_transcendental_results_are_exact},
      {"fsincos_writes_sine_and_cosine", fsincos_writes_sine_and_cosine},
      {"domain_errors_and_poles_set_operr_and_dz", domain_errors_and_poles_set_operr_and_dz},
  };
  return tm_run_suite("m68k-fpu-transcendental", cases, sizeof cases / sizeof cases[0]);
}
