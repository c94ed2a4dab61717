/* test-fpu-arith.c -- the 68881's arithmetic and conversions: correctly rounded results in every
 * rounding mode and precision, condition codes, NaNs, unnormals and denormals.
 *
 * Expected values are not computed by the host FPU: the rounding table was made with exact
 * rational arithmetic (Python's fractions; tests/m68k/fpu-expected.py), the rest are known
 * results written out in bits. Encodings come from m68k-linux-gnu-as -m68030 -m68881.
 */
#include <stdio.h>

#include "fpu-testutil.h"
#include "m68k-internal.h" /* m68k__fpu_basic_paths */

static const ft_reg_t X_ONE = {0x3fff, 0x8000000000000000ull};
static const ft_reg_t X_TWO = {0x4000, 0x8000000000000000ull};
static const ft_reg_t X_THREE = {0x4000, 0xc000000000000000ull};
static const ft_reg_t X_TEN = {0x4002, 0xa000000000000000ull};
static const ft_reg_t X_PI = {0x4000, 0xc90fdaa22168c235ull};
static const ft_reg_t X_TENTH = {0x3ffb, 0xcccccccccccccccdull};
static const ft_reg_t X_MTENTH = {0xbffb, 0xcccccccccccccccdull};
static const ft_reg_t X_HUGE = {0x7000, 0xfedcba9876543211ull};
static const ft_reg_t X_TINY = {0x0100, 0x8000000000000001ull};
static const ft_reg_t X_ZERO = {0x0000, 0};
static const ft_reg_t X_INF = {0x7fff, 0};
static const ft_reg_t X_DEFAULT_NAN = {0x7fff, 0xffffffffffffffffull};

/* cmd FP1,FP0 with FP0 = d, FP1 = s under FPCR fpcr gives want; inexact: INEX2. */
static const struct {
  uint16_t cmd;
  ft_reg_t d, s;
  uint16_t fpcr;
  uint16_t se;
  uint64_t mant;
  int inexact;
} rounding[] = {
    {0x20, X_ONE, X_THREE, 0x00, 0x3ffd, 0xaaaaaaaaaaaaaaabull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x10, 0x3ffd, 0xaaaaaaaaaaaaaaaaull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x20, 0x3ffd, 0xaaaaaaaaaaaaaaaaull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x30, 0x3ffd, 0xaaaaaaaaaaaaaaabull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x40, 0x3ffd, 0xaaaaab0000000000ull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x50, 0x3ffd, 0xaaaaaa0000000000ull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x60, 0x3ffd, 0xaaaaaa0000000000ull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x70, 0x3ffd, 0xaaaaab0000000000ull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x80, 0x3ffd, 0xaaaaaaaaaaaaa800ull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0x90, 0x3ffd, 0xaaaaaaaaaaaaa800ull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0xa0, 0x3ffd, 0xaaaaaaaaaaaaa800ull, 1}, /* fdiv three,one */
    {0x20, X_ONE, X_THREE, 0xb0, 0x3ffd, 0xaaaaaaaaaaaab000ull, 1}, /* fdiv three,one */
    {0x20, X_PI, X_TENTH, 0x00, 0x4003, 0xfb53d14aa9c2f2c2ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x10, 0x4003, 0xfb53d14aa9c2f2c2ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x20, 0x4003, 0xfb53d14aa9c2f2c2ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x30, 0x4003, 0xfb53d14aa9c2f2c3ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x40, 0x4003, 0xfb53d10000000000ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x50, 0x4003, 0xfb53d10000000000ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x60, 0x4003, 0xfb53d10000000000ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x70, 0x4003, 0xfb53d20000000000ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x80, 0x4003, 0xfb53d14aa9c2f000ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0x90, 0x4003, 0xfb53d14aa9c2f000ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0xa0, 0x4003, 0xfb53d14aa9c2f000ull, 1}, /* fdiv tenth,pi */
    {0x20, X_PI, X_TENTH, 0xb0, 0x4003, 0xfb53d14aa9c2f800ull, 1}, /* fdiv tenth,pi */
    {0x20, X_MTENTH, X_THREE, 0x00, 0xbffa, 0x8888888888888889ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x10, 0xbffa, 0x8888888888888888ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x20, 0xbffa, 0x8888888888888889ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x30, 0xbffa, 0x8888888888888888ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x40, 0xbffa, 0x8888890000000000ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x50, 0xbffa, 0x8888880000000000ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x60, 0xbffa, 0x8888890000000000ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x70, 0xbffa, 0x8888880000000000ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x80, 0xbffa, 0x8888888888888800ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0x90, 0xbffa, 0x8888888888888800ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0xa0, 0xbffa, 0x8888888888889000ull, 1}, /* fdiv three,mtenth */
    {0x20, X_MTENTH, X_THREE, 0xb0, 0xbffa, 0x8888888888888800ull, 1}, /* fdiv three,mtenth */
    {0x20, X_TEN, X_PI, 0x00, 0x4000, 0xcbb7e449e1d51a74ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x10, 0x4000, 0xcbb7e449e1d51a74ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x20, 0x4000, 0xcbb7e449e1d51a74ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x30, 0x4000, 0xcbb7e449e1d51a75ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x40, 0x4000, 0xcbb7e40000000000ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x50, 0x4000, 0xcbb7e40000000000ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x60, 0x4000, 0xcbb7e40000000000ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x70, 0x4000, 0xcbb7e50000000000ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x80, 0x4000, 0xcbb7e449e1d51800ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0x90, 0x4000, 0xcbb7e449e1d51800ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0xa0, 0x4000, 0xcbb7e449e1d51800ull, 1}, /* fdiv pi,ten */
    {0x20, X_TEN, X_PI, 0xb0, 0x4000, 0xcbb7e449e1d52000ull, 1}, /* fdiv pi,ten */
    {0x20, X_HUGE, X_THREE, 0x00, 0x6fff, 0xa9e87c65a4382161ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x10, 0x6fff, 0xa9e87c65a4382160ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x20, 0x6fff, 0xa9e87c65a4382160ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x30, 0x6fff, 0xa9e87c65a4382161ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x40, 0x6fff, 0xa9e87c0000000000ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x50, 0x6fff, 0xa9e87c0000000000ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x60, 0x6fff, 0xa9e87c0000000000ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x70, 0x6fff, 0xa9e87d0000000000ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x80, 0x6fff, 0xa9e87c65a4382000ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0x90, 0x6fff, 0xa9e87c65a4382000ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0xa0, 0x6fff, 0xa9e87c65a4382000ull, 1}, /* fdiv three,huge */
    {0x20, X_HUGE, X_THREE, 0xb0, 0x6fff, 0xa9e87c65a4382800ull, 1}, /* fdiv three,huge */
    {0x20, X_TINY, X_THREE, 0x00, 0x00fe, 0xaaaaaaaaaaaaaaacull, 0}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x10, 0x00fe, 0xaaaaaaaaaaaaaaacull, 0}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x20, 0x00fe, 0xaaaaaaaaaaaaaaacull, 0}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x30, 0x00fe, 0xaaaaaaaaaaaaaaacull, 0}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x40, 0x00fe, 0xaaaaab0000000000ull, 1}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x50, 0x00fe, 0xaaaaaa0000000000ull, 1}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x60, 0x00fe, 0xaaaaaa0000000000ull, 1}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x70, 0x00fe, 0xaaaaab0000000000ull, 1}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x80, 0x00fe, 0xaaaaaaaaaaaaa800ull, 1}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0x90, 0x00fe, 0xaaaaaaaaaaaaa800ull, 1}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0xa0, 0x00fe, 0xaaaaaaaaaaaaa800ull, 1}, /* fdiv three,tiny */
    {0x20, X_TINY, X_THREE, 0xb0, 0x00fe, 0xaaaaaaaaaaaab000ull, 1}, /* fdiv three,tiny */
    {0x20, X_ONE, X_TINY, 0x00, 0x7efd, 0xfffffffffffffffeull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x10, 0x7efd, 0xfffffffffffffffeull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x20, 0x7efd, 0xfffffffffffffffeull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x30, 0x7efd, 0xffffffffffffffffull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x40, 0x7efe, 0x8000000000000000ull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x50, 0x7efd, 0xffffff0000000000ull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x60, 0x7efd, 0xffffff0000000000ull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x70, 0x7efe, 0x8000000000000000ull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x80, 0x7efe, 0x8000000000000000ull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0x90, 0x7efd, 0xfffffffffffff800ull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0xa0, 0x7efd, 0xfffffffffffff800ull, 1}, /* fdiv tiny,one */
    {0x20, X_ONE, X_TINY, 0xb0, 0x7efe, 0x8000000000000000ull, 1}, /* fdiv tiny,one */
    {0x22, X_ONE, X_THREE, 0x00, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x10, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x20, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x30, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x40, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x50, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x60, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x70, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x80, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0x90, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0xa0, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_ONE, X_THREE, 0xb0, 0x4001, 0x8000000000000000ull, 0}, /* fadd three,one */
    {0x22, X_PI, X_TENTH, 0x00, 0x4000, 0xcf76410887cf289bull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x10, 0x4000, 0xcf76410887cf289bull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x20, 0x4000, 0xcf76410887cf289bull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x30, 0x4000, 0xcf76410887cf289cull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x40, 0x4000, 0xcf76410000000000ull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x50, 0x4000, 0xcf76410000000000ull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x60, 0x4000, 0xcf76410000000000ull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x70, 0x4000, 0xcf76420000000000ull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x80, 0x4000, 0xcf76410887cf2800ull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0x90, 0x4000, 0xcf76410887cf2800ull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0xa0, 0x4000, 0xcf76410887cf2800ull, 1}, /* fadd tenth,pi */
    {0x22, X_PI, X_TENTH, 0xb0, 0x4000, 0xcf76410887cf3000ull, 1}, /* fadd tenth,pi */
    {0x22, X_MTENTH, X_THREE, 0x00, 0x4000, 0xb99999999999999aull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x10, 0x4000, 0xb999999999999999ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x20, 0x4000, 0xb999999999999999ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x30, 0x4000, 0xb99999999999999aull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x40, 0x4000, 0xb9999a0000000000ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x50, 0x4000, 0xb999990000000000ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x60, 0x4000, 0xb999990000000000ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x70, 0x4000, 0xb9999a0000000000ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x80, 0x4000, 0xb999999999999800ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0x90, 0x4000, 0xb999999999999800ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0xa0, 0x4000, 0xb999999999999800ull, 1}, /* fadd three,mtenth */
    {0x22, X_MTENTH, X_THREE, 0xb0, 0x4000, 0xb99999999999a000ull, 1}, /* fadd three,mtenth */
    {0x22, X_TEN, X_PI, 0x00, 0x4002, 0xd243f6a8885a308dull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x10, 0x4002, 0xd243f6a8885a308dull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x20, 0x4002, 0xd243f6a8885a308dull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x30, 0x4002, 0xd243f6a8885a308eull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x40, 0x4002, 0xd243f70000000000ull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x50, 0x4002, 0xd243f60000000000ull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x60, 0x4002, 0xd243f60000000000ull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x70, 0x4002, 0xd243f70000000000ull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x80, 0x4002, 0xd243f6a8885a3000ull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0x90, 0x4002, 0xd243f6a8885a3000ull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0xa0, 0x4002, 0xd243f6a8885a3000ull, 1}, /* fadd pi,ten */
    {0x22, X_TEN, X_PI, 0xb0, 0x4002, 0xd243f6a8885a3800ull, 1}, /* fadd pi,ten */
    {0x22, X_HUGE, X_THREE, 0x00, 0x7000, 0xfedcba9876543211ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x10, 0x7000, 0xfedcba9876543211ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x20, 0x7000, 0xfedcba9876543211ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x30, 0x7000, 0xfedcba9876543212ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x40, 0x7000, 0xfedcbb0000000000ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x50, 0x7000, 0xfedcba0000000000ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x60, 0x7000, 0xfedcba0000000000ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x70, 0x7000, 0xfedcbb0000000000ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x80, 0x7000, 0xfedcba9876543000ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0x90, 0x7000, 0xfedcba9876543000ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0xa0, 0x7000, 0xfedcba9876543000ull, 1}, /* fadd three,huge */
    {0x22, X_HUGE, X_THREE, 0xb0, 0x7000, 0xfedcba9876543800ull, 1}, /* fadd three,huge */
    {0x22, X_TINY, X_THREE, 0x00, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x10, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x20, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x30, 0x4000, 0xc000000000000001ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x40, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x50, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x60, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x70, 0x4000, 0xc000010000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x80, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0x90, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0xa0, 0x4000, 0xc000000000000000ull, 1}, /* fadd three,tiny */
    {0x22, X_TINY, X_THREE, 0xb0, 0x4000, 0xc000000000000800ull, 1}, /* fadd three,tiny */
    {0x22, X_ONE, X_TINY, 0x00, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x10, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x20, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x30, 0x3fff, 0x8000000000000001ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x40, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x50, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x60, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x70, 0x3fff, 0x8000010000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x80, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0x90, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0xa0, 0x3fff, 0x8000000000000000ull, 1}, /* fadd tiny,one */
    {0x22, X_ONE, X_TINY, 0xb0, 0x3fff, 0x8000000000000800ull, 1}, /* fadd tiny,one */
    {0x23, X_ONE, X_THREE, 0x00, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x10, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x20, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x30, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x40, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x50, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x60, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x70, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x80, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0x90, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0xa0, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_ONE, X_THREE, 0xb0, 0x4000, 0xc000000000000000ull, 0}, /* fmul three,one */
    {0x23, X_PI, X_TENTH, 0x00, 0x3ffd, 0xa0d97bb4e78701c4ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x10, 0x3ffd, 0xa0d97bb4e78701c4ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x20, 0x3ffd, 0xa0d97bb4e78701c4ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x30, 0x3ffd, 0xa0d97bb4e78701c5ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x40, 0x3ffd, 0xa0d97c0000000000ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x50, 0x3ffd, 0xa0d97b0000000000ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x60, 0x3ffd, 0xa0d97b0000000000ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x70, 0x3ffd, 0xa0d97c0000000000ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x80, 0x3ffd, 0xa0d97bb4e7870000ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0x90, 0x3ffd, 0xa0d97bb4e7870000ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0xa0, 0x3ffd, 0xa0d97bb4e7870000ull, 1}, /* fmul tenth,pi */
    {0x23, X_PI, X_TENTH, 0xb0, 0x3ffd, 0xa0d97bb4e7870800ull, 1}, /* fmul tenth,pi */
    {0x23, X_MTENTH, X_THREE, 0x00, 0xbffd, 0x999999999999999aull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x10, 0xbffd, 0x9999999999999999ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x20, 0xbffd, 0x999999999999999aull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x30, 0xbffd, 0x9999999999999999ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x40, 0xbffd, 0x99999a0000000000ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x50, 0xbffd, 0x9999990000000000ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x60, 0xbffd, 0x99999a0000000000ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x70, 0xbffd, 0x9999990000000000ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x80, 0xbffd, 0x9999999999999800ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0x90, 0xbffd, 0x9999999999999800ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0xa0, 0xbffd, 0x999999999999a000ull, 1}, /* fmul three,mtenth */
    {0x23, X_MTENTH, X_THREE, 0xb0, 0xbffd, 0x9999999999999800ull, 1}, /* fmul three,mtenth */
    {0x23, X_TEN, X_PI, 0x00, 0x4003, 0xfb53d14aa9c2f2c2ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x10, 0x4003, 0xfb53d14aa9c2f2c2ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x20, 0x4003, 0xfb53d14aa9c2f2c2ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x30, 0x4003, 0xfb53d14aa9c2f2c3ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x40, 0x4003, 0xfb53d10000000000ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x50, 0x4003, 0xfb53d10000000000ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x60, 0x4003, 0xfb53d10000000000ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x70, 0x4003, 0xfb53d20000000000ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x80, 0x4003, 0xfb53d14aa9c2f000ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0x90, 0x4003, 0xfb53d14aa9c2f000ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0xa0, 0x4003, 0xfb53d14aa9c2f000ull, 1}, /* fmul pi,ten */
    {0x23, X_TEN, X_PI, 0xb0, 0x4003, 0xfb53d14aa9c2f800ull, 1}, /* fmul pi,ten */
    {0x23, X_HUGE, X_THREE, 0x00, 0x7002, 0xbf258bf258bf258dull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x10, 0x7002, 0xbf258bf258bf258cull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x20, 0x7002, 0xbf258bf258bf258cull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x30, 0x7002, 0xbf258bf258bf258dull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x40, 0x7002, 0xbf258c0000000000ull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x50, 0x7002, 0xbf258b0000000000ull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x60, 0x7002, 0xbf258b0000000000ull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x70, 0x7002, 0xbf258c0000000000ull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x80, 0x7002, 0xbf258bf258bf2800ull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0x90, 0x7002, 0xbf258bf258bf2000ull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0xa0, 0x7002, 0xbf258bf258bf2000ull, 1}, /* fmul three,huge */
    {0x23, X_HUGE, X_THREE, 0xb0, 0x7002, 0xbf258bf258bf2800ull, 1}, /* fmul three,huge */
    {0x23, X_TINY, X_THREE, 0x00, 0x0101, 0xc000000000000002ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x10, 0x0101, 0xc000000000000001ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x20, 0x0101, 0xc000000000000001ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x30, 0x0101, 0xc000000000000002ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x40, 0x0101, 0xc000000000000000ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x50, 0x0101, 0xc000000000000000ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x60, 0x0101, 0xc000000000000000ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x70, 0x0101, 0xc000010000000000ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x80, 0x0101, 0xc000000000000000ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0x90, 0x0101, 0xc000000000000000ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0xa0, 0x0101, 0xc000000000000000ull, 1}, /* fmul three,tiny */
    {0x23, X_TINY, X_THREE, 0xb0, 0x0101, 0xc000000000000800ull, 1}, /* fmul three,tiny */
    {0x23, X_ONE, X_TINY, 0x00, 0x0100, 0x8000000000000001ull, 0}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x10, 0x0100, 0x8000000000000001ull, 0}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x20, 0x0100, 0x8000000000000001ull, 0}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x30, 0x0100, 0x8000000000000001ull, 0}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x40, 0x0100, 0x8000000000000000ull, 1}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x50, 0x0100, 0x8000000000000000ull, 1}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x60, 0x0100, 0x8000000000000000ull, 1}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x70, 0x0100, 0x8000010000000000ull, 1}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x80, 0x0100, 0x8000000000000000ull, 1}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0x90, 0x0100, 0x8000000000000000ull, 1}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0xa0, 0x0100, 0x8000000000000000ull, 1}, /* fmul tiny,one */
    {0x23, X_ONE, X_TINY, 0xb0, 0x0100, 0x8000000000000800ull, 1}, /* fmul tiny,one */
    {0x28, X_ONE, X_THREE, 0x00, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x10, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x20, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x30, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x40, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x50, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x60, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x70, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x80, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0x90, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0xa0, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_ONE, X_THREE, 0xb0, 0xc000, 0x8000000000000000ull, 0}, /* fsub three,one */
    {0x28, X_PI, X_TENTH, 0x00, 0x4000, 0xc2a9743bbb025bcfull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x10, 0x4000, 0xc2a9743bbb025bceull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x20, 0x4000, 0xc2a9743bbb025bceull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x30, 0x4000, 0xc2a9743bbb025bcfull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x40, 0x4000, 0xc2a9740000000000ull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x50, 0x4000, 0xc2a9740000000000ull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x60, 0x4000, 0xc2a9740000000000ull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x70, 0x4000, 0xc2a9750000000000ull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x80, 0x4000, 0xc2a9743bbb025800ull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0x90, 0x4000, 0xc2a9743bbb025800ull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0xa0, 0x4000, 0xc2a9743bbb025800ull, 1}, /* fsub tenth,pi */
    {0x28, X_PI, X_TENTH, 0xb0, 0x4000, 0xc2a9743bbb026000ull, 1}, /* fsub tenth,pi */
    {0x28, X_MTENTH, X_THREE, 0x00, 0xc000, 0xc666666666666666ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x10, 0xc000, 0xc666666666666666ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x20, 0xc000, 0xc666666666666667ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x30, 0xc000, 0xc666666666666666ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x40, 0xc000, 0xc666660000000000ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x50, 0xc000, 0xc666660000000000ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x60, 0xc000, 0xc666670000000000ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x70, 0xc000, 0xc666660000000000ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x80, 0xc000, 0xc666666666666800ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0x90, 0xc000, 0xc666666666666000ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0xa0, 0xc000, 0xc666666666666800ull, 1}, /* fsub three,mtenth */
    {0x28, X_MTENTH, X_THREE, 0xb0, 0xc000, 0xc666666666666000ull, 1}, /* fsub three,mtenth */
    {0x28, X_TEN, X_PI, 0x00, 0x4001, 0xdb7812aeef4b9ee6ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x10, 0x4001, 0xdb7812aeef4b9ee5ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x20, 0x4001, 0xdb7812aeef4b9ee5ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x30, 0x4001, 0xdb7812aeef4b9ee6ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x40, 0x4001, 0xdb78130000000000ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x50, 0x4001, 0xdb78120000000000ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x60, 0x4001, 0xdb78120000000000ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x70, 0x4001, 0xdb78130000000000ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x80, 0x4001, 0xdb7812aeef4ba000ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0x90, 0x4001, 0xdb7812aeef4b9800ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0xa0, 0x4001, 0xdb7812aeef4b9800ull, 1}, /* fsub pi,ten */
    {0x28, X_TEN, X_PI, 0xb0, 0x4001, 0xdb7812aeef4ba000ull, 1}, /* fsub pi,ten */
    {0x28, X_HUGE, X_THREE, 0x00, 0x7000, 0xfedcba9876543211ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x10, 0x7000, 0xfedcba9876543210ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x20, 0x7000, 0xfedcba9876543210ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x30, 0x7000, 0xfedcba9876543211ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x40, 0x7000, 0xfedcbb0000000000ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x50, 0x7000, 0xfedcba0000000000ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x60, 0x7000, 0xfedcba0000000000ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x70, 0x7000, 0xfedcbb0000000000ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x80, 0x7000, 0xfedcba9876543000ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0x90, 0x7000, 0xfedcba9876543000ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0xa0, 0x7000, 0xfedcba9876543000ull, 1}, /* fsub three,huge */
    {0x28, X_HUGE, X_THREE, 0xb0, 0x7000, 0xfedcba9876543800ull, 1}, /* fsub three,huge */
    {0x28, X_TINY, X_THREE, 0x00, 0xc000, 0xc000000000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x10, 0xc000, 0xbfffffffffffffffull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x20, 0xc000, 0xc000000000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x30, 0xc000, 0xbfffffffffffffffull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x40, 0xc000, 0xc000000000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x50, 0xc000, 0xbfffff0000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x60, 0xc000, 0xc000000000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x70, 0xc000, 0xbfffff0000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x80, 0xc000, 0xc000000000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0x90, 0xc000, 0xbffffffffffff800ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0xa0, 0xc000, 0xc000000000000000ull, 1}, /* fsub three,tiny */
    {0x28, X_TINY, X_THREE, 0xb0, 0xc000, 0xbffffffffffff800ull, 1}, /* fsub three,tiny */
    {0x28, X_ONE, X_TINY, 0x00, 0x3fff, 0x8000000000000000ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x10, 0x3ffe, 0xffffffffffffffffull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x20, 0x3ffe, 0xffffffffffffffffull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x30, 0x3fff, 0x8000000000000000ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x40, 0x3fff, 0x8000000000000000ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x50, 0x3ffe, 0xffffff0000000000ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x60, 0x3ffe, 0xffffff0000000000ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x70, 0x3fff, 0x8000000000000000ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x80, 0x3fff, 0x8000000000000000ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0x90, 0x3ffe, 0xfffffffffffff800ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0xa0, 0x3ffe, 0xfffffffffffff800ull, 1}, /* fsub tiny,one */
    {0x28, X_ONE, X_TINY, 0xb0, 0x3fff, 0x8000000000000000ull, 1}, /* fsub tiny,one */
    {0x04, X_ONE, X_TWO, 0x00, 0x3fff, 0xb504f333f9de6484ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x10, 0x3fff, 0xb504f333f9de6484ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x20, 0x3fff, 0xb504f333f9de6484ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x30, 0x3fff, 0xb504f333f9de6485ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x40, 0x3fff, 0xb504f30000000000ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x50, 0x3fff, 0xb504f30000000000ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x60, 0x3fff, 0xb504f30000000000ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x70, 0x3fff, 0xb504f40000000000ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x80, 0x3fff, 0xb504f333f9de6800ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0x90, 0x3fff, 0xb504f333f9de6000ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0xa0, 0x3fff, 0xb504f333f9de6000ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_TWO, 0xb0, 0x3fff, 0xb504f333f9de6800ull, 1}, /* fsqrt two */
    {0x04, X_ONE, X_THREE, 0x00, 0x3fff, 0xddb3d742c265539eull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x10, 0x3fff, 0xddb3d742c265539dull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x20, 0x3fff, 0xddb3d742c265539dull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x30, 0x3fff, 0xddb3d742c265539eull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x40, 0x3fff, 0xddb3d70000000000ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x50, 0x3fff, 0xddb3d70000000000ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x60, 0x3fff, 0xddb3d70000000000ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x70, 0x3fff, 0xddb3d80000000000ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x80, 0x3fff, 0xddb3d742c2655000ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0x90, 0x3fff, 0xddb3d742c2655000ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0xa0, 0x3fff, 0xddb3d742c2655000ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_THREE, 0xb0, 0x3fff, 0xddb3d742c2655800ull, 1}, /* fsqrt three */
    {0x04, X_ONE, X_PI, 0x00, 0x3fff, 0xe2dfc48da77b553dull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x10, 0x3fff, 0xe2dfc48da77b553dull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x20, 0x3fff, 0xe2dfc48da77b553dull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x30, 0x3fff, 0xe2dfc48da77b553eull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x40, 0x3fff, 0xe2dfc50000000000ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x50, 0x3fff, 0xe2dfc40000000000ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x60, 0x3fff, 0xe2dfc40000000000ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x70, 0x3fff, 0xe2dfc50000000000ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x80, 0x3fff, 0xe2dfc48da77b5800ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0x90, 0x3fff, 0xe2dfc48da77b5000ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0xa0, 0x3fff, 0xe2dfc48da77b5000ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_PI, 0xb0, 0x3fff, 0xe2dfc48da77b5800ull, 1}, /* fsqrt pi */
    {0x04, X_ONE, X_TENTH, 0x00, 0x3ffd, 0xa1e89b12424876daull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x10, 0x3ffd, 0xa1e89b12424876d9ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x20, 0x3ffd, 0xa1e89b12424876d9ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x30, 0x3ffd, 0xa1e89b12424876daull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x40, 0x3ffd, 0xa1e89b0000000000ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x50, 0x3ffd, 0xa1e89b0000000000ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x60, 0x3ffd, 0xa1e89b0000000000ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x70, 0x3ffd, 0xa1e89c0000000000ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x80, 0x3ffd, 0xa1e89b1242487800ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0x90, 0x3ffd, 0xa1e89b1242487000ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0xa0, 0x3ffd, 0xa1e89b1242487000ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_TENTH, 0xb0, 0x3ffd, 0xa1e89b1242487800ull, 1}, /* fsqrt tenth */
    {0x04, X_ONE, X_HUGE, 0x00, 0x57ff, 0xff6e33c7bdd7c559ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x10, 0x57ff, 0xff6e33c7bdd7c558ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x20, 0x57ff, 0xff6e33c7bdd7c558ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x30, 0x57ff, 0xff6e33c7bdd7c559ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x40, 0x57ff, 0xff6e340000000000ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x50, 0x57ff, 0xff6e330000000000ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x60, 0x57ff, 0xff6e330000000000ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x70, 0x57ff, 0xff6e340000000000ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x80, 0x57ff, 0xff6e33c7bdd7c800ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0x90, 0x57ff, 0xff6e33c7bdd7c000ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0xa0, 0x57ff, 0xff6e33c7bdd7c000ull, 1}, /* fsqrt huge */
    {0x04, X_ONE, X_HUGE, 0xb0, 0x57ff, 0xff6e33c7bdd7c800ull, 1}, /* fsqrt huge */
};

/* Runs fmove.l %d0,%fpcr; <op> %fp1,%fp0; fmove.l %fpsr,%d1 with ext the
 * operation's second word. Returns the FPSR. */
static uint32_t run_op(uint16_t ext, ft_reg_t d, ft_reg_t s, uint32_t fpcr)
{
  const uint16_t code[] = {
      0xf200, 0x9000, /* fmove.l %d0,%fpcr */
      0xf200, ext,    /* e.g. 0xf200 0x0420: fdiv.x %fp1,%fp0 */
      0xf201, 0xa800, /* fmove.l %fpsr,%d1 */
  };
  ft_start(code, 6);
  ft_set(0, d);
  ft_set(1, s);
  tm_set_d(&ft_tm, 0, fpcr);
  ft_steps(3);
  return tm_d(&ft_tm, 1);
}

static void basic_arithmetic_correctly_rounded_in_every_mode_and_precision(void)
{
  for (size_t i = 0; i < sizeof rounding / sizeof rounding[0]; i++) {
    uint32_t fpsr = run_op((uint16_t)(0x0400 | rounding[i].cmd), rounding[i].d, rounding[i].s,
                           rounding[i].fpcr);
    ft_reg_t r = ft_get(0);
    if (r.se != rounding[i].se || r.mant != rounding[i].mant)
      fprintf(stderr, "\n  case %zu (cmd %#x fpcr %#x): %04x_%016llx, want %04x_%016llx\n", i,
              rounding[i].cmd, rounding[i].fpcr, r.se, (unsigned long long)r.mant,
              rounding[i].se, (unsigned long long)rounding[i].mant);
    CU_ASSERT_EQUAL(r.se, rounding[i].se);
    CU_ASSERT_EQUAL(r.mant, rounding[i].mant);
    CU_ASSERT_EQUAL(!!(fpsr & FT_INEX2), rounding[i].inexact);
    CU_ASSERT_EQUAL(!!(fpsr & FT_A_INEX), rounding[i].inexact);
    CU_ASSERT_EQUAL(fpsr & (FT_OPERR | FT_OVFL | FT_DZ | FT_SNAN), 0);
    tm_done(&ft_tm);
  }
}

static void condition_codes_follow_the_result(void)
{
  uint32_t fpsr = run_op(0x0428, X_ONE, X_ONE, 0); /* fsub.x: 1 - 1 */
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_Z);
  tm_done(&ft_tm);
  fpsr = run_op(0x0428, X_ONE, X_THREE, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_N);
  tm_done(&ft_tm);
  fpsr = run_op(0x0420, X_ONE, X_ZERO, 0); /* fdiv.x: 1 / 0 */
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_I);
  tm_done(&ft_tm);
  fpsr = run_op(0x0420, X_ZERO, X_ZERO, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_NAN);
  tm_done(&ft_tm);
  ft_reg_t mzero = {0x8000, 0};
  fpsr = run_op(0x043a, X_ONE, mzero, 0); /* ftst.x %fp1: -0 */
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_N | FT_CC_Z);
  FT_ASSERT_REG(0, X_ONE.se, X_ONE.mant); /* FTST writes nothing */
  tm_done(&ft_tm);
}

static void fcmp_sets_codes_of_the_difference_and_writes_nothing(void)
{
  uint32_t fpsr = run_op(0x0438, X_ONE, X_THREE, 0); /* fcmp.x: 1 vs 3 */
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_N);
  FT_ASSERT_REG(0, X_ONE.se, X_ONE.mant);
  tm_done(&ft_tm);
  fpsr = run_op(0x0438, X_THREE, X_ONE, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, 0);
  tm_done(&ft_tm);
  fpsr = run_op(0x0438, X_PI, X_PI, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_Z);
  tm_done(&ft_tm);
  fpsr = run_op(0x0438, X_INF, X_INF, 0); /* inf = inf, no operand error */
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_Z);
  CU_ASSERT_EQUAL(fpsr & FT_OPERR, 0);
  tm_done(&ft_tm);
  fpsr = run_op(0x0438, X_ONE, X_DEFAULT_NAN, 0);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_NAN);
  tm_done(&ft_tm);
}

static void fmod_and_frem_give_remainder_and_quotient_byte(void)
{
  ft_reg_t eleven = {0x4002, 0xb000000000000000ull}, mten = {0xc002, 0xa000000000000000ull};
  uint32_t fpsr = run_op(0x0421, X_TEN, X_THREE, 0); /* fmod.x: 10 mod 3 = 1, q 3 */
  FT_ASSERT_REG(0, 0x3fff, 0x8000000000000000ull);
  CU_ASSERT_EQUAL((fpsr >> 16) & 0xff, 3);
  tm_done(&ft_tm);
  fpsr = run_op(0x0421, mten, X_THREE, 0); /* -10 mod 3 = -1, q -3 */
  FT_ASSERT_REG(0, 0xbfff, 0x8000000000000000ull);
  CU_ASSERT_EQUAL((fpsr >> 16) & 0xff, 0x83);
  tm_done(&ft_tm);
  fpsr = run_op(0x0425, eleven, X_THREE, 0); /* frem.x: 11 rem 3 = -1, q 4 */
  FT_ASSERT_REG(0, 0xbfff, 0x8000000000000000ull);
  CU_ASSERT_EQUAL((fpsr >> 16) & 0xff, 4);
  tm_done(&ft_tm);
  ft_reg_t five = {0x4001, 0xa000000000000000ull};
  fpsr = run_op(0x0425, five, X_TWO, 0); /* 5 rem 2: 2.5 to even 2, so 1 */
  FT_ASSERT_REG(0, 0x3fff, 0x8000000000000000ull);
  CU_ASSERT_EQUAL((fpsr >> 16) & 0xff, 2);
  tm_done(&ft_tm);
  ft_reg_t big = {0x4000 + 200, 0x8000000000000000ull}; /* 2^201 mod 3: q's low bits */
  fpsr = run_op(0x0421, big, X_THREE, 0);
  /* 2^201 = 3 q + r: 2^odd mod 3 = 2, q = (2^201 - 2) / 3, q mod 128 = 42 */
  FT_ASSERT_REG(0, 0x4000, 0x8000000000000000ull);
  CU_ASSERT_EQUAL((fpsr >> 16) & 0xff, 42);
  tm_done(&ft_tm);
  fpsr = run_op(0x0421, X_ONE, X_ZERO, 0); /* mod 0: operand error */
  FT_ASSERT_REG(0, X_DEFAULT_NAN.se, X_DEFAULT_NAN.mant);
  CU_ASSERT_EQUAL(fpsr & (FT_OPERR | FT_A_IOP), FT_OPERR | FT_A_IOP);
  tm_done(&ft_tm);
}

static void fscale_fgetexp_fgetman_take_the_number_apart(void)
{
  run_op(0x0426, X_THREE, X_TEN, 0); /* fscale.x: 3 * 2^10 */
  FT_ASSERT_REG(0, 0x4000 + 10, 0xc000000000000000ull);
  tm_done(&ft_tm);
  run_op(0x041e, X_ONE, X_TEN, 0); /* fgetexp.x: 10 = 1.25 * 2^3 */
  FT_ASSERT_REG(0, 0x4000, 0xc000000000000000ull);
  tm_done(&ft_tm);
  run_op(0x041f, X_ONE, X_TEN, 0); /* fgetman.x */
  FT_ASSERT_REG(0, 0x3fff, 0xa000000000000000ull);
  tm_done(&ft_tm);
  ft_reg_t denorm = {0x0000, 0x0000000000000400ull}; /* 2^(10 - 16382 - 63) */
  run_op(0x041e, X_ONE, denorm, 0);
  FT_ASSERT_REG(0, 0xc00d, 0x8066000000000000ull); /* -16435 */
  tm_done(&ft_tm);
  uint32_t fpsr = run_op(0x041f, X_ONE, X_INF, 0);
  FT_ASSERT_REG(0, X_DEFAULT_NAN.se, X_DEFAULT_NAN.mant);
  CU_ASSERT(fpsr & FT_OPERR);
  tm_done(&ft_tm);
}

static void fint_rounds_in_fpcr_mode_and_fintrz_truncates(void)
{
  ft_reg_t h = {0x4000, 0xa000000000000000ull}, mh = {0xc000, 0xa000000000000000ull}; /* 2.5 */
  static const struct {
    uint16_t ext;
    int neg;
    uint32_t fpcr;
    uint16_t se;
    uint64_t mant;
  } cases[] = {
      {0x0401, 0, FT_RN, 0x4000, 0x8000000000000000ull}, /* fint.x 2.5 -> 2 (to even) */
      {0x0401, 0, FT_RP, 0x4000, 0xc000000000000000ull}, /* -> 3 */
      {0x0401, 0, FT_RM, 0x4000, 0x8000000000000000ull},
      {0x0401, 1, FT_RM, 0xc000, 0xc000000000000000ull}, /* -2.5 -> -3 */
      {0x0401, 1, FT_RZ, 0xc000, 0x8000000000000000ull},
      {0x0403, 1, FT_RP, 0xc000, 0x8000000000000000ull}, /* fintrz.x -2.5 -> -2 */
      {0x0403, 0, FT_RP, 0x4000, 0x8000000000000000ull},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint32_t fpsr = run_op(cases[i].ext, X_ONE, cases[i].neg ? mh : h, cases[i].fpcr);
    FT_ASSERT_REG(0, cases[i].se, cases[i].mant);
    CU_ASSERT(fpsr & FT_INEX2);
    tm_done(&ft_tm);
  }
}

static void fsglmul_and_fsgldiv_round_to_single(void)
{
  run_op(0x0427, X_PI, X_ONE, FT_D); /* fsglmul.x: single whatever the FPCR says */
  FT_ASSERT_REG(0, 0x4000, 0xc90fdb0000000000ull);
  tm_done(&ft_tm);
  run_op(0x0424, X_ONE, X_THREE, FT_RZ); /* fsgldiv.x */
  FT_ASSERT_REG(0, 0x3ffd, 0xaaaaaa0000000000ull);
  tm_done(&ft_tm);
}

static void fabs_and_fneg_change_the_sign(void)
{
  run_op(0x041a, X_ONE, X_PI, 0); /* fneg.x */
  FT_ASSERT_REG(0, 0xc000, X_PI.mant);
  tm_done(&ft_tm);
  run_op(0x0418, X_ONE, X_MTENTH, 0); /* fabs.x */
  FT_ASSERT_REG(0, 0x3ffb, X_TENTH.mant);
  tm_done(&ft_tm);
  run_op(0x041a, X_ONE, X_PI, FT_S); /* fneg.x rounds to the precision */
  FT_ASSERT_REG(0, 0xc000, 0xc90fdb0000000000ull);
  tm_done(&ft_tm);
}

static void source_formats_convert_exactly(void)
{
  static const uint16_t code[] = {
      0xf23c, 0x5800, 0xfffb,         /* fmove.b #-5,%fp0 */
      0xf23c, 0x5000, 0xfed4,         /* fmove.w #-300,%fp0 */
      0xf23c, 0x4000, 0x075b, 0xcd15, /* fmove.l #123456789,%fp0 */
      0xf23c, 0x4400, 0x3dcc, 0xcccd, /* fmove.s #0x3dcccccd,%fp0 */
      0xf210, 0x5400,                 /* fmove.d (%a0),%fp0 */
      0xf210, 0x4400,                 /* fmove.s (%a0),%fp0 */
      0xf210, 0x4800,                 /* fmove.x (%a0),%fp0 */
  };
  ft_start(code, sizeof code / 2);
  ft_steps(1);
  FT_ASSERT_REG(0, 0xc001, 0xa000000000000000ull);
  ft_steps(1);
  FT_ASSERT_REG(0, 0xc007, 0x9600000000000000ull);
  ft_steps(1);
  FT_ASSERT_REG(0, 0x4019, 0xeb79a2a000000000ull);
  ft_steps(1);
  FT_ASSERT_REG(0, 0x3ffb, 0xcccccd0000000000ull);
  tm_w32(&ft_tm, FT_DATA, 0x3fb99999u); /* 0.1 as a double */
  tm_w32(&ft_tm, FT_DATA + 4, 0x9999999au);
  ft_steps(1);
  FT_ASSERT_REG(0, 0x3ffb, 0xccccccccccccd000ull);
  tm_w32(&ft_tm, FT_DATA, 0x00000001u); /* the least single denormal, 2^-149 */
  ft_steps(1);
  FT_ASSERT_REG(0, 0x3f6a, 0x8000000000000000ull);
  tm_w32(&ft_tm, FT_DATA, 0x3fff0000u); /* an unnormal: 0.5 with exponent 0 */
  tm_w32(&ft_tm, FT_DATA + 4, 0x40000000u);
  tm_w32(&ft_tm, FT_DATA + 8, 0);
  ft_steps(1);
  FT_ASSERT_REG(0, 0x3ffe, 0x8000000000000000ull); /* normalized by FMOVE */
  tm_done(&ft_tm);
}

/* fmove.<fmt> %fp0,%d2 of x under fpcr: D2 and the FPSR. */
static uint32_t run_out(uint16_t ext, ft_reg_t x, uint32_t fpcr, uint32_t *fpsr)
{
  const uint16_t code[] = {
      0xf200, 0x9000, /* fmove.l %d0,%fpcr */
      0xf202, ext,    /* e.g. 0xf202 0x6000: fmove.l %fp0,%d2 */
      0xf201, 0xa800, /* fmove.l %fpsr,%d1 */
  };
  ft_start(code, 6);
  ft_set(0, x);
  tm_set_d(&ft_tm, 0, fpcr);
  tm_set_d(&ft_tm, 2, 0x55555555u);
  ft_steps(3);
  *fpsr = tm_d(&ft_tm, 1);
  uint32_t d2 = tm_d(&ft_tm, 2);
  tm_done(&ft_tm);
  return d2;
}

static void destination_formats_round_in_fpcr_mode(void)
{
  ft_reg_t h = {0x4000, 0xa000000000000000ull}, third = {0x3ffd, 0xaaaaaaaaaaaaaaabull};
  ft_reg_t k300 = {0x4007, 0x9600000000000000ull};
  uint32_t fpsr;
  CU_ASSERT_EQUAL(run_out(0x6000, h, FT_RN, &fpsr), 2); /* fmove.l 2.5 */
  CU_ASSERT(fpsr & FT_INEX2);
  CU_ASSERT_EQUAL(run_out(0x6000, h, FT_RP, &fpsr), 3);
  CU_ASSERT_EQUAL(run_out(0x6000, X_MTENTH, FT_RM, &fpsr), 0xffffffffu);
  CU_ASSERT_EQUAL(run_out(0x7800, k300, FT_RN, &fpsr), 0x5555557fu); /* fmove.b 300 */
  CU_ASSERT_EQUAL(fpsr & (FT_OPERR | FT_A_IOP), FT_OPERR | FT_A_IOP);
  CU_ASSERT_EQUAL(run_out(0x7000, k300, FT_RN, &fpsr), 0x5555012cu); /* fmove.w */
  CU_ASSERT_EQUAL(fpsr & 0xff00, 0);
  CU_ASSERT_EQUAL(run_out(0x6000, X_DEFAULT_NAN, FT_RN, &fpsr), 0x7fffffffu);
  CU_ASSERT(fpsr & FT_OPERR);
  CU_ASSERT_EQUAL(run_out(0x6400, third, FT_RN, &fpsr), 0x3eaaaaabu); /* fmove.s */
  CU_ASSERT_EQUAL(run_out(0x6400, third, FT_RZ, &fpsr), 0x3eaaaaaau);
  CU_ASSERT_EQUAL(run_out(0x6400, X_HUGE, FT_RN, &fpsr), 0x7f800000u);
  CU_ASSERT_EQUAL(fpsr & (FT_OVFL | FT_INEX2 | FT_A_OVFL | FT_A_INEX),
                  FT_OVFL | FT_INEX2 | FT_A_OVFL | FT_A_INEX);
  CU_ASSERT_EQUAL(run_out(0x6400, X_HUGE, FT_RZ, &fpsr), 0x7f7fffffu);
  CU_ASSERT_EQUAL(run_out(0x6400, X_TINY, FT_RP, &fpsr), 0x00000001u);
  CU_ASSERT_EQUAL(fpsr & (FT_UNFL | FT_A_UNFL), FT_UNFL | FT_A_UNFL);
  /* A signalling NaN leaves quiet: 0x7fff_a000... as a single is 0x7fe00000. */
  ft_reg_t snan = {0x7fff, 0xa000000000000000ull};
  CU_ASSERT_EQUAL(run_out(0x6400, snan, FT_RN, &fpsr), 0x7fe00000u);
  CU_ASSERT(fpsr & FT_SNAN);
}

static void fmove_d_out_rounds_in_each_mode(void)
{
  static const uint16_t code[] = {
      0xf200, 0x9000, /* fmove.l %d0,%fpcr */
      0xf210, 0x7400, /* fmove.d %fp0,(%a0) */
  };
  ft_reg_t third = {0x3ffd, 0xaaaaaaaaaaaaaaabull};
  static const uint32_t fpcr[4] = {FT_RN, FT_RZ, FT_RM, FT_RP};
  static const uint32_t lo[4] = {0x55555555u, 0x55555555u, 0x55555555u, 0x55555556u};
  for (int m = 0; m < 4; m++) {
    ft_start(code, 4);
    ft_set(0, third);
    tm_set_d(&ft_tm, 0, fpcr[m]);
    ft_steps(2);
    CU_ASSERT_EQUAL(tm_r32(&ft_tm, FT_DATA), 0x3fd55555u);
    CU_ASSERT_EQUAL(tm_r32(&ft_tm, FT_DATA + 4), lo[m]);
    tm_done(&ft_tm);
  }
}

static void invalid_operations_give_the_default_nan(void)
{
  uint32_t fpsr = run_op(0x0420, X_ZERO, X_ZERO, 0); /* 0 / 0 */
  FT_ASSERT_REG(0, 0x7fff, 0xffffffffffffffffull);
  CU_ASSERT_EQUAL(fpsr & 0xfff8, FT_OPERR | FT_A_IOP);
  tm_done(&ft_tm);
  ft_reg_t minf = {0xffff, 0};
  fpsr = run_op(0x0422, X_INF, minf, 0); /* inf + -inf */
  FT_ASSERT_REG(0, 0x7fff, 0xffffffffffffffffull);
  CU_ASSERT(fpsr & FT_OPERR);
  tm_done(&ft_tm);
  fpsr = run_op(0x0404, X_ONE, X_MTENTH, 0); /* fsqrt.x of a negative */
  FT_ASSERT_REG(0, 0x7fff, 0xffffffffffffffffull);
  CU_ASSERT(fpsr & FT_OPERR);
  tm_done(&ft_tm);
  fpsr = run_op(0x0420, X_ONE, X_ZERO, 0); /* 1 / 0: DZ and an infinity */
  FT_ASSERT_REG(0, 0x7fff, 0);
  CU_ASSERT_EQUAL(fpsr & 0xfff8, FT_DZ | FT_A_DZ);
  tm_done(&ft_tm);
}

static void nan_operands_propagate_made_quiet(void)
{
  ft_reg_t snan = {0x7fff, 0x8000000000000123ull}, qnan = {0xffff, 0xc000000000000456ull};
  uint32_t fpsr = run_op(0x0422, X_ONE, snan, 0); /* 1 + SNaN */
  FT_ASSERT_REG(0, 0x7fff, 0xc000000000000123ull);
  CU_ASSERT_EQUAL(fpsr & 0xff00, FT_SNAN);
  CU_ASSERT(fpsr & FT_A_IOP);
  tm_done(&ft_tm);
  fpsr = run_op(0x0423, qnan, snan, 0); /* the destination's NaN wins */
  FT_ASSERT_REG(0, 0xffff, 0xc000000000000456ull);
  CU_ASSERT(fpsr & FT_SNAN);
  tm_done(&ft_tm);
  fpsr = run_op(0x0423, qnan, X_ONE, 0);
  FT_ASSERT_REG(0, 0xffff, 0xc000000000000456ull);
  CU_ASSERT_EQUAL(fpsr & 0xff00, 0);
  tm_done(&ft_tm);
}

static void denormal_results_underflow_when_inexact(void)
{
  ft_reg_t least = {0x0001, 0x8000000000000001ull}; /* least normal, odd */
  ft_reg_t half = {0x3ffe, 0x8000000000000000ull};
  uint32_t fpsr = run_op(0x0423, least, half, FT_RZ); /* fmul.x: halved, one bit lost */
  FT_ASSERT_REG(0, 0x0000, 0x4000000000000000ull);
  CU_ASSERT_EQUAL(fpsr & 0xfff8, FT_UNFL | FT_INEX2 | FT_A_UNFL | FT_A_INEX);
  tm_done(&ft_tm);
  ft_reg_t least_even = {0x0001, 0x8000000000000000ull};
  fpsr = run_op(0x0423, least_even, half, FT_RN); /* exact denormal: no accrued UNFL */
  FT_ASSERT_REG(0, 0x0000, 0x4000000000000000ull);
  CU_ASSERT_EQUAL(fpsr & (FT_A_UNFL | FT_A_INEX), 0);
  tm_done(&ft_tm);
  ft_reg_t denorm = {0x0000, 0x0000000000000003ull};
  run_op(0x0422, X_ZERO, denorm, 0); /* denormal operands are values */
  FT_ASSERT_REG(0, 0x0000, 0x0000000000000003ull);
  tm_done(&ft_tm);
}

static void overflow_rounds_to_infinity_or_the_largest(void)
{
  uint32_t fpsr = run_op(0x0423, X_HUGE, X_HUGE, FT_RN);
  FT_ASSERT_REG(0, 0x7fff, 0);
  CU_ASSERT_EQUAL(fpsr & 0xfff8, FT_OVFL | FT_INEX2 | FT_A_OVFL | FT_A_INEX);
  CU_ASSERT_EQUAL(fpsr & 0x0f000000u, FT_CC_I);
  tm_done(&ft_tm);
  run_op(0x0423, X_HUGE, X_HUGE, FT_RZ);
  FT_ASSERT_REG(0, 0x7ffe, 0xffffffffffffffffull);
  tm_done(&ft_tm);
  run_op(0x0423, X_HUGE, X_HUGE, FT_RZ | FT_S); /* the largest single-precision mantissa */
  FT_ASSERT_REG(0, 0x7ffe, 0xffffff0000000000ull);
  tm_done(&ft_tm);
}

/* An xorshift generator: the operands are the same at every run. */
static uint64_t fx_state = 0x9e3779b97f4a7c15ull;
static uint64_t fx_next(void)
{
  fx_state ^= fx_state << 13;
  fx_state ^= fx_state >> 7;
  fx_state ^= fx_state << 17;
  return fx_state;
}

/* An operand for the paths' comparison: mostly near 1 (so that results stay
 * normal and many are exact: short mantissas), else anywhere in the range,
 * at the edges of overflow and underflow, denormal or zero. */
static m68k__fpreg_t fx_operand(void)
{
  uint64_t r = fx_next(), m = fx_next() | 1ull << 63;
  unsigned kind = r % 16, e;
  if (r >> 8 & 1)
    m &= ~0ull << (r >> 9 & 63); /* a short mantissa */
  switch (kind) {
  case 0: return (m68k__fpreg_t){.se = (uint16_t)(r >> 32 & 0x8000), .mant = 0};
  case 1: return (m68k__fpreg_t){.se = (uint16_t)(r >> 32 & 0x8000), .mant = m >> (1 + (r >> 16) % 63)};
  case 2: e = 1 + (unsigned)((r >> 16) % 200); break;
  case 3: e = 0x7ffe - (unsigned)((r >> 16) % 200); break;
  case 4: case 5: e = 1 + (unsigned)((r >> 16) % 0x7ffe); break;
  default: e = 0x3fff - 64 + (unsigned)((r >> 16) % 128); break;
  }
  return (m68k__fpreg_t){.se = (uint16_t)((r >> 32 & 0x8000) | e), .mant = m};
}

/* The two paths' answers for d cmd s under fpcr (m68k__fpu_basic_paths):
 * counted in t; a disagreement counted and the first few printed. */
typedef struct paths_tally {
  int answered, inexact, exact, wrong;
} paths_tally_t;

static void paths_compare(paths_tally_t *t, unsigned cmd, uint32_t fpcr, m68k__fpreg_t d,
                          m68k__fpreg_t s)
{
  m68k__fpreg_t res[2];
  uint32_t exc[2];
  if (!m68k__fpu_basic_paths(fpcr, cmd, d, s, res, exc))
    return;
  t->answered++;
  if (exc[0] & FT_INEX2)
    t->inexact++;
  else
    t->exact++;
  if (res[0].se != res[1].se || res[0].mant != res[1].mant || exc[0] != exc[1]) {
    if (t->wrong++ < 5)
      fprintf(stderr,
              "\n  opmode %02x fpcr %02x: %04x:%016llx, %04x:%016llx gives %04x:%016llx exc %04x"
              " by the values, %04x:%016llx exc %04x by the flags",
              cmd, fpcr, d.se, (unsigned long long)d.mant, s.se, (unsigned long long)s.mant,
              res[0].se, (unsigned long long)res[0].mant, exc[0], res[1].se,
              (unsigned long long)res[1].mant, exc[1]);
  }
}

/* FADD, FSUB, FMUL, FDIV, FSQRT, FSGLMUL, FSGLDIV and FMOVE take their
 * exceptions from the values where they can (cpu-fpu.c, design notes 9
 * and 10): wherever that path answers, its result and exceptions are those
 * of the path through the x87's flags, in every mode and precision; and it
 * answers for most operands, exact and inexact. */
static void value_flags_agree_with_the_x87_flags(void)
{
  static const unsigned cmds[] = {0x00, 0x04, 0x20, 0x22, 0x23, 0x24, 0x27, 0x28};
  const int n = 600000;
  paths_tally_t t = {0};
  for (int i = 0; i < n; i++) {
    unsigned cmd = cmds[fx_next() % 8];
    uint32_t fpcr = (uint32_t)(fx_next() % 4) << 4 | (uint32_t)(fx_next() % 3) << 6;
    m68k__fpreg_t d = fx_operand(), s = fx_operand();
    paths_compare(&t, cmd, fpcr, d, s);
  }
  CU_ASSERT_EQUAL(t.wrong, 0);
  CU_ASSERT(t.answered > n / 2);
  CU_ASSERT(t.inexact > n / 10 && t.exact > n / 10);
  CU_ASSERT(t.answered < n); /* the overflows, underflows, zero divisors ... go the other way */
}

/* m * 2^exp as a register (m != 0, normalised here). */
static m68k__fpreg_t fx_value(uint64_t m, int exp)
{
  int lz = __builtin_clzll(m);
  return (m68k__fpreg_t){.se = (uint16_t)(0x3fff + 63 - lz + exp), .mant = m << lz};
}

/* A mantissa of 1 to `bits` bits, odd. */
static uint64_t fx_short(unsigned bits)
{
  return fx_next() >> (64 - 1 - fx_next() % bits) | 1;
}

/* Results within a unit in the last place of an exact one, which random
 * operands seldom give: square roots of squares of short numbers and
 * quotients of their products, each nudged by -1, 0 or +1 in the last
 * place, and products of mantissas whose widths add up to about 64; in
 * every mode and precision, the values' path agrees with the flags', and
 * answers for both exact and inexact results. */
static void near_exact_results_agree_with_the_x87_flags(void)
{
  const int n = 60000;
  paths_tally_t t = {0};
  for (int i = 0; i < n; i++) {
    uint32_t fpcr = (uint32_t)(fx_next() % 4) << 4 | (uint32_t)(fx_next() % 3) << 6;
    uint64_t a = fx_short(32), b = fx_short(32);
    int nudge = (int)(fx_next() % 3) - 1, e = (int)(fx_next() % 64) - 32;
    m68k__fpreg_t d, s;
    switch (i % 3) {
    case 0: /* FSQRT of a * a, nudged; an even exponent keeps the root short */
      s = fx_value(a * a, 2 * e);
      if (s.mant + (uint64_t)nudge >= 1ull << 63)
        s.mant += (uint64_t)nudge;
      paths_compare(&t, 0x04, fpcr, s, s);
      break;
    case 1: /* FDIV of a * b, nudged, by b */
      d = fx_value(a * b, e);
      if (d.mant + (uint64_t)nudge >= 1ull << 63)
        d.mant += (uint64_t)nudge;
      paths_compare(&t, 0x20, fpcr, d, fx_value(b, -e / 2));
      break;
    default: { /* FMUL of mantissas whose widths add up to 62 ... 66 */
      unsigned w = 20 + (unsigned)(fx_next() % 15), w2 = 62 + (unsigned)(fx_next() % 5) - w;
      d = fx_value((fx_next() | 1ull << 63) >> (64 - w) | 1, e);
      s = fx_value((fx_next() | 1ull << 63) >> (64 - w2) | 1, -e);
      paths_compare(&t, 0x23, fpcr, d, s);
      break;
    }
    }
  }
  CU_ASSERT_EQUAL(t.wrong, 0);
  CU_ASSERT(t.answered > n * 9 / 10);
  CU_ASSERT(t.inexact > n / 5 && t.exact > n / 5);
}

/* The translator's path (cpu-fpu.c note 11: sums, products and
 * comparisons rounded in integers, quotients by the x87) gives the
 * interpreter's register and FPSR bit for bit wherever it answers, and
 * it answers for most operands, exact and inexact; near-cancelling sums
 * and products of short mantissas included. */
static void translator_path_agrees_with_the_interpreter(void)
{
  static const unsigned cmds[] = {0x00, 0x20, 0x22, 0x23, 0x28, 0x38, 0x3a};
  const int n = 600000;
  int answered = 0, inexact = 0, exact = 0, wrong = 0;
  for (int i = 0; i < n; i++) {
    unsigned cmd = cmds[fx_next() % 7];
    m68k__fpreg_t d = fx_operand(), s = fx_operand();
    if (i % 4 == 1) { /* s near d: cancellation */
      s = d;
      s.mant += (uint64_t)(fx_next() % 5) - 2;
      s.mant |= 1ull << 63;
      s.se ^= (uint16_t)(fx_next() & 0x8000);
      if (fx_next() & 1)
        s.se = (uint16_t)((s.se & 0x8000) | ((s.se & 0x7fff) - (fx_next() % 3)));
    } else if (i % 4 == 2) { /* exponents apart by up to 130 */
      s.se = (uint16_t)((s.se & 0x8000) | ((d.se & 0x7fff) - fx_next() % 131));
      if ((s.se & 0x7fff) == 0 || (s.se & 0x7fff) > (d.se & 0x7fff))
        s.se = d.se;
    } else if (i % 4 == 3) {
      /* A short d and an s 63 to 66 binades below it with a few low bits:
       * sums whose rounding is a tie, or next to one, or rests on the
       * bits of s below the 128 the sum keeps. */
      d = fx_value(fx_short(4), (int)(fx_next() % 64) - 32);
      s.mant = 1ull << 63 | (fx_next() & 3);
      s.se = (uint16_t)((fx_next() & 0x8000) | ((d.se & 0x7fff) - 63 - fx_next() % 4));
      d.se ^= (uint16_t)(fx_next() & 0x8000);
      cmd = fx_next() & 1 ? 0x22 : 0x28;
    }
    m68k__fpreg_t res[2];
    uint32_t fpsr[2];
    if (!m68k__fpu_fast_paths(cmd, d, s, res, fpsr))
      continue;
    answered++;
    if (fpsr[1] & FT_INEX2)
      inexact++;
    else
      exact++;
    if (res[0].se != res[1].se || res[0].mant != res[1].mant || fpsr[0] != fpsr[1]) {
      if (wrong++ < 5)
        fprintf(stderr,
                "\n  opmode %02x: %04x:%016llx, %04x:%016llx gives %04x:%016llx fpsr %08x on the"
                " translator's path, %04x:%016llx fpsr %08x on the interpreter's",
                cmd, d.se, (unsigned long long)d.mant, s.se, (unsigned long long)s.mant, res[0].se,
                (unsigned long long)res[0].mant, fpsr[0], res[1].se, (unsigned long long)res[1].mant,
                fpsr[1]);
    }
  }
  CU_ASSERT_EQUAL(wrong, 0);
  CU_ASSERT(answered > n / 2);
  CU_ASSERT(inexact > n / 10 && exact > n / 10);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"basic_arithmetic_correctly_rounded_in_every_mode_and_precision",
       basic_arithmetic_correctly_rounded_in_every_mode_and_precision},
      {"condition_codes_follow_the_result", condition_codes_follow_the_result},
      {"fcmp_sets_codes_of_the_difference_and_writes_nothing",
       fcmp_sets_codes_of_the_difference_and_writes_nothing},
      {"fmod_and_frem_give_remainder_and_quotient_byte",
       fmod_and_frem_give_remainder_and_quotient_byte},
      {"fscale_fgetexp_fgetman_take_the_number_apart",
       fscale_fgetexp_fgetman_take_the_number_apart},
      {"fint_rounds_in_fpcr_mode_and_fintrz_truncates",
       fint_rounds_in_fpcr_mode_and_fintrz_truncates},
      {"fsglmul_and_fsgldiv_round_to_single", fsglmul_and_fsgldiv_round_to_single},
      {"fabs_and_fneg_change_the_sign", fabs_and_fneg_change_the_sign},
      {"source_formats_convert_exactly", source_formats_convert_exactly},
      {"destination_formats_round_in_fpcr_mode", destination_formats_round_in_fpcr_mode},
      {"fmove_d_out_rounds_in_each_mode", fmove_d_out_rounds_in_each_mode},
      {"invalid_operations_give_the_default_nan", invalid_operations_give_the_default_nan},
      {"nan_operands_propagate_made_quiet", nan_operands_propagate_made_quiet},
      {"denormal_results_underflow_when_inexact", denormal_results_underflow_when_inexact},
      {"overflow_rounds_to_infinity_or_the_largest", overflow_rounds_to_infinity_or_the_largest},
      {"value_flags_agree_with_the_x87_flags", value_flags_agree_with_the_x87_flags},
      {"translator_path_agrees_with_the_interpreter", translator_path_agrees_with_the_interpreter},
      {"near_exact_results_agree_with_the_x87_flags",
       near_exact_results_agree_with_the_x87_flags},
  };
  return tm_run_suite("m68k-fpu-arith", cases, sizeof cases / sizeof cases[0]);
}
