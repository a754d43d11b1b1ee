/* SPDX-License-Identifier: MIT */
/* hs_round_bits (src/run/round-bits.h), the bit form of the bf16 / f16
 * rounding of scores and q/k/v: on a million floats spread over every
 * exponent and a million random doubles in and around f16's range, its
 * answers against a reference built differently (the two neighbours of
 * the format around the value and the nearer one, ties to the even
 * significand), and it answers nothing outside the ranges it states
 * (zero, subnormal, infinite, NaN, bf16 overflow, f16 subnormal and
 * overflow). */
#include <float.h>

#include "common.h"

#include "run/round-bits.h"

/* Round x to `bits` significant bits, nearest, ties to even, by its two
 * neighbours lo <= |x| < lo + q (exact in long double). */
static double ref_round(double x, int bits) {
  int e = ilogb(x);
  long double q = ldexpl(1.0L, e - bits + 1), a = fabsl((long double)x);
  long double lo = floorl(a / q) * q, hi = lo + q;
  long double pick = a - lo < hi - a ? lo : a - lo > hi - a ? hi
                     : fmodl(lo / q, 2.0L) == 0 ? lo : hi;
  return (double)copysignl(pick, (long double)x);
}

static void check(double x) {
  double y;
  /* bf16: from the float value, for normal floats whose result is finite */
  float f = (float)x;
  int ok = hs_round_bits(x, HS_ROUND_BF16, &y);
  int normal = isnormal(f);
  if (normal) {
    double want = ref_round((double)f, 8);
    if (fabs(want) > FLT_MAX) assert_false(ok);
    else if (!ok || y != want || signbit(y) != signbit(want))
      fail_msg("bf16 %a: %a, want %a (answered %d)", x, y, want, ok);
  } else {
    assert_false(ok);
  }
  /* f16: 2^-14 <= |x| < 65520 */
  ok = hs_round_bits(x, HS_ROUND_F16, &y);
  if (fabs(x) >= 0x1p-14 && fabs(x) < 65520.0) {
    double want = ref_round(x, 11);
    if (!ok || y != want) fail_msg("f16 %a: %a, want %a (answered %d)", x, y, want, ok);
  } else {
    assert_false(ok);
  }
  assert_false(hs_round_bits(x, HS_ROUND_NONE, &y));
}

static void test_floats(void **state) {
  (void)state;
  for (uint64_t i = 0; i < ((uint64_t)1 << 32); i += 4093) {
    uint32_t u = (uint32_t)i;
    float f;
    memcpy(&f, &u, sizeof f);
    check((double)f);
  }
  static const double edge[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-126, 0x1p-127,
                                FLT_MAX, -FLT_MAX, 0x1.FFp127, 0x1.FEp127, 65504.0,
                                65519.99, 65520.0, -65520.0, 0x1p-14, 0x1.FFFFFFp-15,
                                1.0 + 0x1p-8, 1.0 + 0x1p-9, 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11};
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) check(edge[i]), check(-edge[i]);
}

static void test_doubles(void **state) {
  (void)state;
  hs_rng r = {5};
  for (int i = 0; i < 1000000; i++) {
    double m = hs_rng_uniform(&r, 1, 2);
    int e = (int)hs_rng_uniform(&r, -30, 20);
    check((i % 2 ? -1 : 1) * ldexp(m, e));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_floats),
      cmocka_unit_test(test_doubles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
