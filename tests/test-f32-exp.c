/* SPDX-License-Identifier: MIT */
/* f32_vexp on every ISA this CPU runs, against exp in double.
 *
 * Stated bounds (the first comment of each kernel file): 2 ULP for AVX2 and
 * AVX-512 (FMA), 2.5 ULP for scalar (no FMA), measured against the exact
 * value (the ULP of the exact result's binade). Range rules, exactly:
 * x < -0x1.5D589Ep6 -> +0, x > 0x1.62E42Ep6 -> +inf, NaN -> NaN, and every
 * nonzero finite result is normal (>= FLT_MIN). Sizes 0-70, around the
 * unroll factors, powers of two to 2^20, unaligned pointers, random wide
 * inputs, special values, in place, and the default dispatch table. */
#include <float.h>

#include "common.h"

#define LO_CUT (-0x1.5D589Ep6f)
#define HI_CUT (0x1.62E42Ep6f)

/* per ISA, in hs_isa's order: wasm128 has no fused multiply-add, each step
 * rounds as in scalar */
static const double bound_ulp[] = {2.5, 2.0, 2.0, 2.5, 2.0};
_Static_assert(sizeof bound_ulp / sizeof *bound_ulp == HS_ISA_COUNT, "a bound per ISA");
static double max_ulp[HS_ISA_COUNT];

/* |got - want| in ULPs of the exact value's binade */
static double ulp_err(float got, double want) {
  int e;
  frexp(want, &e);
  return fabs((double)got - want) / ldexp(1.0, e - 24);
}

/* Checks y = exp(x) elementwise with the range rules; returns max ULP. */
static double check_exp(hs_isa isa, size_t n, const float *x, const float *y) {
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    const float v = x[i];
    if (isnan(v)) {
      if (!isnan(y[i])) fail_msg("%s: exp(NaN) = %a at %zu", hs_isa_name(isa), y[i], i);
    } else if (v < LO_CUT) {
      if (!(y[i] == 0.0f && !signbit(y[i])))
        fail_msg("%s: exp(%a) = %a, want +0", hs_isa_name(isa), v, y[i]);
    } else if (v > HI_CUT) {
      if (y[i] != INFINITY) fail_msg("%s: exp(%a) = %a, want +inf", hs_isa_name(isa), v, y[i]);
    } else {
      if (!(y[i] >= FLT_MIN && y[i] <= FLT_MAX))
        fail_msg("%s: exp(%a) = %a, not a normal float", hs_isa_name(isa), v, y[i]);
      const double u = ulp_err(y[i], exp((double)v));
      if (u > worst) worst = u;
      if (u > bound_ulp[isa])
        fail_msg("%s: exp(%a) = %a, error %.3f ULP > %.2f", hs_isa_name(isa),
                 v, y[i], u, bound_ulp[isa]);
    }
  }
  if (worst > max_ulp[isa]) max_ulp[isa] = worst;
  return worst;
}

static void fill_random(hs_rng *r, size_t n, float *x, double lo, double hi) {
  for (size_t i = 0; i < n; i++) x[i] = (float)hs_rng_uniform(r, lo, hi);
}

/* every size 0..70 and around the unroll factors (8/16 per vector, 32/64
 * per iteration), exact-size heap buffers so ASan sees any overrun */
static void test_sizes(void **state) {
  (void)state;
  hs_rng r = {1};
  size_t sizes[200], ns = 0;
  for (size_t n = 0; n <= 70; n++) sizes[ns++] = n;
  const size_t u[] = {8, 16, 32, 64, 128};
  for (int k = 0; k < 5; k++)
    for (size_t m = 1; m <= 4; m++) {
      sizes[ns++] = u[k] * m - 1;
      sizes[ns++] = u[k] * m;
      sizes[ns++] = u[k] * m + 1;
    }
  HS_FOR_EACH_ISA(kt) {
    for (size_t s = 0; s < ns; s++) {
      const size_t n = sizes[s];
      float *x = malloc(n * sizeof(float) + 1);
      float *y = malloc(n * sizeof(float) + 1);
      assert_non_null(x);
      assert_non_null(y);
      fill_random(&r, n, x, -90.0, 90.0);
      kt->f32_vexp(n, x, y);
      check_exp(kt->isa, n, x, y);
      free(x);
      free(y);
    }
  }
}

/* powers of two up to 2^20, random over the whole finite range of exp */
static void test_powers_of_two(void **state) {
  (void)state;
  hs_rng r = {2};
  const size_t nmax = (size_t)1 << 20;
  float *x = malloc(nmax * sizeof(float));
  float *y = malloc(nmax * sizeof(float));
  assert_non_null(x);
  assert_non_null(y);
  fill_random(&r, nmax, x, -88.0, 89.0);
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 1; n <= nmax; n *= 2) {
      kt->f32_vexp(n, x, y);
      check_exp(kt->isa, n, x, y);
    }
  }
  free(x);
  free(y);
}

/* start offsets of 1..15 floats; canaries around the output stay intact */
static void test_unaligned(void **state) {
  (void)state;
  hs_rng r = {3};
  const size_t n = 203;
  float *xb = hs_test_alloc((n + 32) * sizeof(float));
  float *yb = hs_test_alloc((n + 32) * sizeof(float));
  HS_FOR_EACH_ISA(kt) {
    for (size_t off = 1; off <= 15; off++) {
      float *x = xb + off, *y = yb + off;
      for (size_t i = 0; i < n + 32; i++) yb[i] = 12345.0f;
      fill_random(&r, n, x, -100.0, 100.0);
      kt->f32_vexp(n, x, y);
      check_exp(kt->isa, n, x, y);
      for (size_t i = 0; i < off; i++) assert_true(yb[i] == 12345.0f);
      for (size_t i = off + n; i < n + 32; i++) assert_true(yb[i] == 12345.0f);
    }
  }
  free(xb);
  free(yb);
}

/* wide and narrow random ranges, in place (x == y) */
static void test_ranges_in_place(void **state) {
  (void)state;
  hs_rng r = {4};
  const size_t n = 4099;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  assert_non_null(x);
  assert_non_null(y);
  const double ranges[][2] = {{-1, 1},       {-1e-3, 1e-3}, {-87.5, -87},
                              {88.5, 88.8},  {-1e6, 1e6},   {-1e38, 1e38},
                              {-10, 0},      {-0.35, 0.35}};
  HS_FOR_EACH_ISA(kt) {
    for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
      fill_random(&r, n, x, ranges[k][0], ranges[k][1]);
      memcpy(y, x, n * sizeof(float));
      kt->f32_vexp(n, y, y); /* in place */
      check_exp(kt->isa, n, x, y);
    }
  }
  free(x);
  free(y);
}

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* special values: infinities, NaNs (quiet, signalling bits, with payload),
 * zeros, subnormals, the cutoffs and their neighbours, FLT_MAX */
static void test_special(void **state) {
  (void)state;
  const float v[] = {
      INFINITY, -INFINITY, NAN, -NAN, from_bits(0x7FC00001u),
      from_bits(0x7F800001u), from_bits(0xFFFFFFFFu), 0.0f, -0.0f,
      from_bits(1), from_bits(0x80000001u), from_bits(0x007FFFFFu),
      -FLT_MIN, FLT_MIN, 0x1p-60f, -0x1p-60f, 0x1p-25f, -0x1p-25f,
      LO_CUT, nextafterf(LO_CUT, -INFINITY), nextafterf(LO_CUT, 0),
      HI_CUT, nextafterf(HI_CUT, INFINITY), nextafterf(HI_CUT, 0),
      -87.5f, -88.0f, -103.0f, -104.0f, -150.0f, 89.0f, 100.0f, 1e30f,
      -1e30f, FLT_MAX, -FLT_MAX, 1.0f, -1.0f, 0.34657359f, -0.34657359f,
      88.0f, -87.0f, 0.5f};
  const size_t n = sizeof v / sizeof v[0];
  float y[sizeof v / sizeof v[0]];
  HS_FOR_EACH_ISA(kt) {
    /* whole array, then each value alone (the tail path) */
    kt->f32_vexp(n, v, y);
    check_exp(kt->isa, n, v, y);
    for (size_t i = 0; i < n; i++) {
      float one;
      kt->f32_vexp(1, &v[i], &one);
      check_exp(kt->isa, 1, &v[i], &one);
      assert_memory_equal(&one, &y[i], sizeof one); /* same bits either way */
    }
    assert_true(y[7] == 1.0f && y[8] == 1.0f && y[9] == 1.0f);
  }
}

/* every ISA gives the same bits as the FMA reference path (AVX2 == AVX-512) */
static void test_isas_agree(void **state) {
  (void)state;
  const hs_kernels *a = hs_kernels_for(HS_ISA_AVX2);
  const hs_kernels *b = hs_kernels_for(HS_ISA_AVX512);
  if (!a || !b) skip();
  hs_rng r = {5};
  const size_t n = 100003;
  float *x = malloc(n * sizeof(float)), *ya = malloc(n * sizeof(float)),
        *yb = malloc(n * sizeof(float));
  assert_non_null(x);
  assert_non_null(ya);
  assert_non_null(yb);
  fill_random(&r, n, x, -90, 90);
  a->f32_vexp(n, x, ya);
  b->f32_vexp(n, x, yb);
  assert_memory_equal(ya, yb, n * sizeof(float));
  free(x);
  free(ya);
  free(yb);
}

/* the default table (HARDSOFT_ISA or the best ISA) runs the same kernel */
static void test_dispatch(void **state) {
  (void)state;
  hs_error err;
  const hs_kernels *kt = hs_kernels_default(&err);
  if (!kt) fail_msg("hs_kernels_default: %s", err.msg);
  assert_non_null(kt->f32_vexp);
  assert_non_null(strstr(kt->name[HS_OP_f32_vexp], "vexp"));
  hs_rng r = {6};
  float x[77], y[77];
  fill_random(&r, 77, x, -90, 90);
  kt->f32_vexp(77, x, y);
  check_exp(kt->isa, 77, x, y);
}

static int report(void **state) {
  (void)state;
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (hs_kernels_for((hs_isa)i) && !(hs_test_not_run_ & (1u << i)))
      printf("f32_vexp %-7s max error %.4f ULP (bound %.1f)\n",
             hs_isa_name((hs_isa)i), max_ulp[i], bound_ulp[i]);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),        cmocka_unit_test(test_powers_of_two),
      cmocka_unit_test(test_unaligned),    cmocka_unit_test(test_ranges_in_place),
      cmocka_unit_test(test_special),      cmocka_unit_test(test_isas_agree),
      cmocka_unit_test(test_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, report);
}
