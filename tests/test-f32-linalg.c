/* SPDX-License-Identifier: MIT */
/* f32 dot, gemv and wsum on every ISA this CPU runs, against long double
 * references, with the bounds stated in the kernels' first comments
 * (u = 2^-24; all kernels are within):
 *   dot:  |dot - dot*| <= (n/4 + 8) u sum |a_i b_i|
 *   gemv: per row the same with n = k
 *   wsum: |acc_c - acc*_c| <= (n/64 + 70) u (|acc_c| + sum |w_j v_jc|)
 * Sizes 0..70, around the unroll factors, powers of two up to 2^20,
 * unaligned pointers, wide magnitude ranges. */
#include "common.h"

#define U 0x1p-24

static float *fill(hs_rng *r, size_t cnt, double lo, double hi, size_t off) {
  float *b = (float *)hs_test_alloc(cnt * sizeof(float)) + off;
  for (size_t i = 0; i < cnt; i++) b[i] = (float)hs_rng_uniform(r, lo, hi);
  return b;
}

static void check_dot(const hs_kernels *kt, hs_rng *r, size_t n, double range,
                      size_t off) {
  float *a = fill(r, n, -range, range, off), *b = fill(r, n, -range, range, (off + 1) % 4);
  long double want = 0, abs = 0;
  for (size_t i = 0; i < n; i++) {
    want += (long double)a[i] * b[i];
    abs += fabsl((long double)a[i] * b[i]);
  }
  float got = kt->f32_dot(n, a, b);
  double bound = (n / 4.0 + 8) * U * (double)abs + 0x1p-149 * (n + 1);
  if (!(fabsl(got - want) <= bound)) {
    fprintf(stderr, "%s dot n=%zu: %.9g want %.9Lg bound %g\n", hs_isa_name(kt->isa), n, got, want, bound);
    fail();
  }
  free(a - off);
  free(b - (off + 1) % 4);
}

static void test_dot(void **state) {
  (void)state;
  hs_rng r = {11};
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 0; n <= 200; n++) check_dot(kt, &r, n, 1, n % 4);
    for (size_t e = 8; e <= 20; e++) {
      size_t n = (size_t)1 << e;
      check_dot(kt, &r, n - 1, 2, e % 4);
      check_dot(kt, &r, n, 2, 0);
    }
    static const double ranges[] = {1e-20, 1e-5, 1e5, 1e18};
    for (size_t i = 0; i < 4; i++) check_dot(kt, &r, 1000 + i, ranges[i], i);
  }
}

static void check_gemv(const hs_kernels *kt, hs_rng *r, size_t m, size_t k,
                       double range, size_t off) {
  size_t lda = k + off;
  float *a = fill(r, m * lda + 1, -range, range, off);
  float *x = fill(r, k + 1, -range, range, (off + 2) % 4);
  float *y = fill(r, m + 1, 0, 1, (off + 3) % 4);
  kt->f32_gemv(m, k, a, lda, x, y);
  for (size_t i = 0; i < m; i++) {
    long double want = 0, abs = 0;
    for (size_t c = 0; c < k; c++) {
      want += (long double)a[i * lda + c] * x[c];
      abs += fabsl((long double)a[i * lda + c] * x[c]);
    }
    double bound = (k / 4.0 + 8) * U * (double)abs + 0x1p-149 * (k + 1);
    if (!(fabsl(y[i] - want) <= bound)) {
      fprintf(stderr, "%s gemv m=%zu k=%zu row %zu: %.9g want %.9Lg\n", hs_isa_name(kt->isa), m, k, i, y[i], want);
      fail();
    }
  }
  assert_true(y[m] >= 0 && y[m] < 1); /* nothing written past y[m-1] */
  free(a - off);
  free(x - (off + 2) % 4);
  free(y - (off + 3) % 4);
}

static void test_gemv(void **state) {
  (void)state;
  hs_rng r = {12};
  HS_FOR_EACH_ISA(kt) {
    for (size_t m = 0; m <= 9; m++)
      for (size_t k = 0; k <= 70; k++) check_gemv(kt, &r, m, k, 1, (m + k) % 4);
    static const size_t big[] = {63, 64, 65, 127, 128, 129, 255, 256};
    for (size_t i = 0; i < 8; i++) check_gemv(kt, &r, big[i], big[7 - i], 1, i % 4);
    check_gemv(kt, &r, 17, 33, 1e-20, 1);
    check_gemv(kt, &r, 17, 33, 1e15, 2);
  }
}

static void check_wsum(const hs_kernels *kt, hs_rng *r, size_t n, size_t d,
                       double range, size_t off) {
  size_t ldv = d + (off & 1) * 5;
  float *w = fill(r, n + 1, 0, 1, off);
  float *v = fill(r, n * ldv + 1, -range, range, (off + 1) % 4);
  float *acc = fill(r, d + 1, -range, range, (off + 2) % 4);
  float guard = acc[d];
  long double *want = calloc(d + 1, sizeof *want), *abs = calloc(d + 1, sizeof *abs);
  for (size_t c = 0; c < d; c++) {
    want[c] = acc[c];
    abs[c] = fabsf(acc[c]);
  }
  for (size_t j = 0; j < n; j++)
    for (size_t c = 0; c < d; c++) {
      want[c] += (long double)w[j] * v[j * ldv + c];
      abs[c] += fabsl((long double)w[j] * v[j * ldv + c]);
    }
  kt->f32_wsum(n, d, w, v, ldv, acc);
  for (size_t c = 0; c < d; c++) {
    double bound = (n / 64.0 + 70) * U * (double)abs[c] + 0x1p-149 * (n + 1);
    if (!(fabsl(acc[c] - want[c]) <= bound)) {
      fprintf(stderr, "%s wsum n=%zu d=%zu c=%zu: %.9g want %.9Lg\n", hs_isa_name(kt->isa), n, d, c, acc[c], want[c]);
      fail();
    }
  }
  assert_true(acc[d] == guard); /* nothing written past acc[d-1] */
  free(want);
  free(abs);
  free(w - off);
  free(v - (off + 1) % 4);
  free(acc - (off + 2) % 4);
}

static void test_wsum(void **state) {
  (void)state;
  hs_rng r = {13};
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 0; n <= 70; n++) check_wsum(kt, &r, n, 1 + n % 20, 1, n % 4);
    for (size_t d = 0; d <= 70; d++) check_wsum(kt, &r, 9, d, 1, d % 4);
    for (size_t e = 7; e <= 20; e++) check_wsum(kt, &r, (size_t)1 << e, e % 2 ? 8 : 3, 1, e % 4);
    check_wsum(kt, &r, 100, 256, 1, 1);
    check_wsum(kt, &r, 77, 13, 1e-20, 2);
    check_wsum(kt, &r, 77, 13, 1e30, 3);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dot),
      cmocka_unit_test(test_gemv),
      cmocka_unit_test(test_wsum),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
