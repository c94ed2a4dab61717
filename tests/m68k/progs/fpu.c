/* fpu.c -- doubles, floats and libm through printf and strtod: what gcc's m68k target
 * gives the 68881 (multiply, divide, %f/%e/%g, strtod round trips, sin/exp/log, every
 * rounding mode). */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double vd[] = {3.0, 0.1, -2.5, 1e300, 1e-300, 123456.789, 2.0, 0.7};

/* Prints a double bit for bit and in decimal. */
static void show(const char *what, double d)
{
  unsigned long long u;
  memcpy(&u, &d, sizeof u);
  printf("%-14s %016llx %.17g\n", what, u, d);
}

int main(void)
{
  double a = vd[0], b = vd[1];
  show("mul", a * b);
  show("div", a / vd[5]);
  show("add", b + vd[2]);
  show("sub", vd[6] - b);
  show("overflow", vd[3] * vd[3]);
  show("underflow", vd[4] * vd[4]);
  show("sqrt", sqrt(vd[6]));
  printf("%f %e %g %.3f\n", a * b, vd[5], vd[1], vd[2]);

  const char *texts[] = {"0.1", "3.14159265358979323846", "1e-310", "2.2250738585072014e-308",
                         "123456789012345678901234567890", "-0.0", "inf", "nan", "0x1.8p3"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    double d = strtod(texts[i], NULL);
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", d);
    double back = strtod(buf, NULL);
    printf("strtod %-32s -> %s round trip %s\n", texts[i], buf,
           memcmp(&d, &back, sizeof d) == 0 ? "same" : "DIFFERENT");
  }

  for (int i = 0; i < 8; i++) {
    double x = vd[i] > 1e10 || vd[i] < -1e10 ? 0.5 : vd[i];
    printf("x=%.17g sin %.17g cos %.17g exp %.17g log %.17g atan %.17g\n", x, sin(x), cos(x),
           exp(x), fabs(x) > 0 ? log(fabs(x)) : 0.0, atan(x));
  }
  printf("pow %.17g tanh %.17g asin %.17g log10 %.17g\n", pow(2.0, 0.5), tanh(vd[7]),
         asin(vd[7]), log10(vd[5]));

  float f = (float)vd[1];
  printf("float %.9g %.9g %.9g\n", f * 3.0f, f / 7.0f, sqrtf(f));
  long double l = (long double)vd[0] / 7.0L;
  printf("long double %.21Lg\n", l);

  static const int modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  static const char *names[] = {"nearest", "zero", "down", "up"};
  for (int m = 0; m < 4; m++) {
    fesetround(modes[m]);
    volatile double one = 1.0, three = vd[0], ten = 10.0;
    double q = one / three, nq = -one / three;
    unsigned long long u1, u2;
    memcpy(&u1, &q, 8);
    memcpy(&u2, &nq, 8);
    printf("%-8s 1/3 %016llx -1/3 %016llx 10/3 %.17g rint(2.5) %g\n", names[m], u1, u2,
           ten / three, rint(2.5));
  }
  fesetround(FE_TONEAREST);
  return 0;
}
