/* SPDX-License-Identifier: MIT */
/* f32_rmax on every ISA this CPU runs: exact max (no rounding, so the
 * bound is 0 ULP), -INFINITY for n == 0, NaN when any element is NaN
 * (tried at every position of small rows), infinities, unaligned starts,
 * sizes around the unroll factors, exact-size heap buffers (ASan sees any
 * over-read), and the default dispatch table. */
#include <float.h>

#include "common.h"

static float ref_max(size_t n, const float *x) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i])) return NAN;
    if (x[i] > m) m = x[i];
  }
  return m;
}

static void expect(hs_isa isa, size_t n, const float *x, float got) {
  const float want = ref_max(n, x);
  if (isnan(want)) {
    if (!isnan(got)) fail_msg("%s n=%zu: got %a, want NaN", hs_isa_name(isa), n, got);
  } else if (!(got == want)) {
    fail_msg("%s n=%zu: got %a, want %a", hs_isa_name(isa), n, got, want);
  }
}

static void test_sizes(void **state) {
  (void)state;
  hs_rng r = {11};
  HS_FOR_EACH_ISA(kt) {
    assert_true(kt->f32_rmax(0, NULL) == -INFINITY);
    for (size_t n = 1; n <= 300; n++) {
      float *x = malloc(n * sizeof(float));
      assert_non_null(x);
      for (size_t i = 0; i < n; i++) x[i] = (float)hs_rng_uniform(&r, -1e3, 1e3);
      expect(kt->isa, n, x, kt->f32_rmax(n, x));
      /* the maximum at each end and in the tail */
      x[n - 1] = 5e3f;
      expect(kt->isa, n, x, kt->f32_rmax(n, x));
      x[0] = 6e3f;
      expect(kt->isa, n, x, kt->f32_rmax(n, x));
      free(x);
    }
  }
}

static void test_powers_of_two_unaligned(void **state) {
  (void)state;
  hs_rng r = {12};
  const size_t nmax = (size_t)1 << 20;
  float *xb = hs_test_alloc((nmax + 16) * sizeof(float));
  for (size_t i = 0; i < nmax + 16; i++) xb[i] = (float)hs_rng_uniform(&r, -1, 1);
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 1; n <= nmax; n *= 2)
      for (size_t off = 0; off <= 15; off += 5)
        expect(kt->isa, n, xb + off, kt->f32_rmax(n, xb + off));
  }
  free(xb);
}

static void test_nan_everywhere(void **state) {
  (void)state;
  const float nans[] = {NAN, -NAN};
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 1; n <= 140; n++) {
      float *x = malloc(n * sizeof(float));
      assert_non_null(x);
      for (size_t k = 0; k < n; k++)
        for (int s = 0; s < 2; s++) {
          for (size_t i = 0; i < n; i++) x[i] = (float)i - 50.0f;
          x[k] = nans[s];
          const float got = kt->f32_rmax(n, x);
          if (!isnan(got))
            fail_msg("%s n=%zu NaN at %zu: got %a", hs_isa_name(kt->isa), n, k, got);
        }
      free(x);
    }
  }
}

static void test_infinities(void **state) {
  (void)state;
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 1; n <= 70; n++) {
      float *x = malloc(n * sizeof(float));
      assert_non_null(x);
      for (size_t i = 0; i < n; i++) x[i] = -INFINITY;
      assert_true(kt->f32_rmax(n, x) == -INFINITY);
      x[n / 2] = -FLT_MAX;
      assert_true(kt->f32_rmax(n, x) == -FLT_MAX);
      x[n - 1] = INFINITY;
      assert_true(kt->f32_rmax(n, x) == INFINITY);
      for (size_t i = 0; i < n; i++) x[i] = 0x1p-149f * (float)(i % 3); /* subnormals */
      expect(kt->isa, n, x, kt->f32_rmax(n, x));
      free(x);
    }
  }
}

static void test_dispatch(void **state) {
  (void)state;
  hs_error err;
  const hs_kernels *kt = hs_kernels_default(&err);
  if (!kt) fail_msg("hs_kernels_default: %s", err.msg);
  assert_non_null(strstr(kt->name[HS_OP_f32_rmax], "rmax"));
  const float x[5] = {1, 7, -3, 6.5f, 2};
  assert_true(kt->f32_rmax(5, x) == 7.0f);
  assert_true(kt->f32_rmax(0, x) == -INFINITY);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_powers_of_two_unaligned),
      cmocka_unit_test(test_nan_everywhere),
      cmocka_unit_test(test_infinities),
      cmocka_unit_test(test_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
