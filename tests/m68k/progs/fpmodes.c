/* fpmodes.c -- float, double and long double arithmetic, conversions, printf and strtod in each
 * of the four rounding modes, bit for bit: what the 68881 must round correctly in every mode. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double dv[] = {
    1.0, 3.0, 0.1, -2.5, 1e308, 4.9e-324, 2.2250738585072014e-308, 123456.789, -7.0, 0.7};
static volatile float fv[] = {1.0f,       3.0f,  0.1f, -2.5f, 3e38f, 1.4e-45f, 1.17549435e-38f,
                              1234.5678f, -7.0f, 0.7f};
static volatile long double lv[] = {1.0L, 3.0L, 0.1L, -2.5L, 1e4000L, 1e-4940L, 123456.789L, -7.0L};

/* A long double as its exponent and 64-bit significand (the same on both formats). */
static void show_ld(const char *what, long double x) {
  if (isnan(x) || isinf(x) || x == 0) {
    printf(" %s=%Lg", what, x);
    return;
  }
  int e;
  long double m = frexpl(x, &e);
  unsigned long long sig = (unsigned long long)ldexpl(fabsl(m), 64);
  printf(" %s=%c%016llxp%d", what, m < 0 ? '-' : '+', sig, e);
}

static void show_d(const char *what, double x) {
  unsigned long long u;
  memcpy(&u, &x, 8);
  printf(" %s=%016llx", what, u);
}

static void show_f(const char *what, float x) {
  unsigned u;
  memcpy(&u, &x, 4);
  printf(" %s=%08x", what, u);
}

int main(void) {
  static const int modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  static const char *names[] = {"nearest", "zero", "down", "up"};
  const int nd = sizeof dv / sizeof dv[0], nf = sizeof fv / sizeof fv[0];
  const int nl = sizeof lv / sizeof lv[0];
  for (int m = 0; m < 4; m++) {
    fesetround(modes[m]);
    for (int i = 0; i < nd; i++) {
      int j = (i * 3 + 1) % nd;
      volatile double a = dv[i], b = dv[j], r;
      printf("%s double %d,%d", names[m], i, j);
      r = a + b;
      show_d("add", r);
      r = a - b;
      show_d("sub", r);
      r = a * b;
      show_d("mul", r);
      r = a / b;
      show_d("div", r);
      r = sqrt(fabs(a));
      show_d("sqrt", r);
      volatile float nf2 = (float)a;
      show_f("tofloat", nf2);
      printf(" lrint=%ld nearbyint=%g", (a > -2e9 && a < 2e9) ? lrint(a * 7.5) : 0L,
             nearbyint(a * 7.5));
      printf("\n");
    }
    for (int i = 0; i < nf; i++) {
      int j = (i * 3 + 1) % nf;
      volatile float a = fv[i], b = fv[j], r;
      printf("%s float %d,%d", names[m], i, j);
      r = a + b;
      show_f("add", r);
      r = a - b;
      show_f("sub", r);
      r = a * b;
      show_f("mul", r);
      r = a / b;
      show_f("div", r);
      r = sqrtf(fabsf(a));
      show_f("sqrt", r);
      printf("\n");
    }
    for (int i = 0; i < nl; i++) {
      int j = (i * 3 + 1) % nl;
      volatile long double a = lv[i], b = lv[j];
      printf("%s long double %d,%d", names[m], i, j);
      show_ld("add", a + b);
      show_ld("sub", a - b);
      show_ld("mul", a * b);
      show_ld("div", a / b);
      show_ld("sqrt", sqrtl(fabsl(a)));
      volatile double d = (double)(a / b);
      show_d("todouble", d);
      printf("\n");
    }
    /* libm in this mode (the target's libm is the 68881's instructions). */
    for (int i = 1; i < nd; i += 3) {
      double x = fabs(dv[i]) > 1e6 || fabs(dv[i]) < 1e-300 ? 0.5 : dv[i];
      printf("%s libm x=%g", names[m], x);
      show_d("sin", sin(x));
      show_d("exp", exp(x / 4));
      show_d("log", log(fabs(x)));
      show_d("atan", atan(x));
      show_d("pow", pow(fabs(x), 1.5));
      show_d("fmod", fmod(x * 10, 3.0));
      printf("\n");
    }
    /* printf rounds its decimal digits in the current mode; strtod reads in it. */
    static const char *texts[] = {"0.1",
                                  "2.5",
                                  "-2.5",
                                  "1e23",
                                  "8.5e-324",
                                  "1.7976931348623158e308",
                                  "0.30000000000000004441"};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
      double d = strtod(texts[t], NULL);
      float f = strtof(texts[t], NULL);
      long double l = strtold(texts[t], NULL);
      printf("%s strtod %s", names[m], texts[t]);
      show_d("d", d);
      show_f("f", f);
      show_ld("ld", l);
      char buf[64];
      snprintf(buf, sizeof buf, "%.17g", d);
      double back = strtod(buf, NULL);
      printf(" %%.17g=%s back %s %%.3e=%.3e %%.0f=%.0f\n", buf,
             memcmp(&d, &back, 8) == 0 ? "same" : "DIFFERENT", d, d * 1.5);
    }
  }
  fesetround(FE_TONEAREST);
  printf("FLT_EVAL_METHOD differs by target; LDBL_MANT_DIG %d\n", LDBL_MANT_DIG);
  return 0;
}
