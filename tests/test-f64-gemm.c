/* SPDX-License-Identifier: MIT */
/* f64 gemm (Y = X A^T, a batch of gemv) on every ISA this CPU runs,
 * against long double references, with the bound of the kernels' first
 * comments (u = 2^-53; the scalar one's is the largest):
 *   |y_ir - y*_ir| <= 2k u sum_c |x_ic a_rc|  (+ subnormal slack)
 * The long double reference (64-bit mantissa) adds at most ~k 2^-64
 * relative to sum |x a|, inside the slack of 2u. Shapes around the
 * register widths (4, 8 outputs) and the 64-input blocking, strides larger
 * than the shapes, and the property the forward pass relies on for
 * bit-identical threads: a row's result does not depend on how many rows
 * the call takes or where a caller splits them. Entries past m in a row
 * of Y are never written. */
#include "common.h"

#define U 0x1p-53
#define T double
#define TINY 0x1p-1074L
#define GEMM f64_gemm
#define GEMM_PK f64_gemm_pk
#define PACK hs_f64_gemm_pack
#include "gemm-pk-check.h"

#define SENT -12345.0

static double *fill(hs_rng *r, size_t cnt, double lo, double hi) {
  double *b = (double *)hs_test_alloc(cnt * sizeof(double));
  for (size_t i = 0; i < cnt; i++) b[i] = hs_rng_uniform(r, lo, hi);
  return b;
}

static void check(const hs_kernels *kt, hs_rng *r, size_t rows, size_t m,
                  size_t k, double range) {
  size_t lda = k + 1, ldx = k + 3, ldy = m + 2;
  double *a = fill(r, m * lda + 1, -range, range);
  double *x = fill(r, rows * ldx + 1, -range, range);
  double *y = hs_test_alloc((rows * ldy + 1) * sizeof(double));
  double *y1 = hs_test_alloc((ldy + 1) * sizeof(double));
  double *y2 = hs_test_alloc((rows * ldy + 1) * sizeof(double));
  for (size_t i = 0; i < rows * ldy + 1; i++) y[i] = y2[i] = SENT;
  kt->f64_gemm(rows, m, k, a, lda, x, ldx, y, ldy);
  /* the same rows in two calls, split in the middle */
  size_t cut = rows / 2;
  kt->f64_gemm(cut, m, k, a, lda, x, ldx, y2, ldy);
  kt->f64_gemm(rows - cut, m, k, a, lda, x + cut * ldx, ldx, y2 + cut * ldy, ldy);
  for (size_t i = 0; i < rows; i++) {
    for (size_t c = 0; c < ldy; c++) y1[c] = SENT;
    kt->f64_gemm(1, m, k, a, lda, x + i * ldx, ldx, y1, ldy);
    for (size_t o = 0; o < m; o++) {
      long double abs, want = ref_dot(x + i * ldx, a + o * lda, k, &abs);
      double got = y[i * ldy + o];
      long double bound = (2.0L * k + 2) * U * abs + 0x1p-1074L * (k + 1);
      if (!(fabsl(got - want) <= bound)) {
        fprintf(stderr, "%s f64 gemm rows=%zu m=%zu k=%zu (%zu,%zu): %.17g want %.17Lg\n",
                hs_isa_name(kt->isa), rows, m, k, i, o, got, want);
        fail();
      }
      if (memcmp(&got, &y1[o], sizeof got) != 0 ||
          memcmp(&got, &y2[i * ldy + o], sizeof got) != 0) {
        fprintf(stderr, "%s f64 gemm rows=%zu m=%zu k=%zu row %zu: %.17g alone, "
                "%.17g split, %.17g in the batch\n", hs_isa_name(kt->isa), rows,
                m, k, i, y1[o], y2[i * ldy + o], got);
        fail();
      }
    }
    for (size_t o = m; o < ldy; o++) assert_true(y[i * ldy + o] == SENT);
    for (size_t o = m; o < ldy; o++) assert_true(y1[o] == SENT);
  }
  assert_true(y[rows * ldy] == SENT);
  free(a);
  free(x);
  free(y);
  free(y1);
  free(y2);
}

static void test_gemm_shapes(void **state) {
  (void)state;
  hs_rng r = {17};
  HS_FOR_EACH_ISA(kt) {
    for (size_t m = 0; m <= 19; m++)
      for (size_t k = 0; k <= 20; k++) check(kt, &r, (m + k) % 5, m, k, 1);
    static const size_t ks[] = {63, 64, 65, 127, 128, 129, 200};
    for (size_t i = 0; i < 7; i++) {
      check(kt, &r, 3, 5, ks[i], 1);
      check(kt, &r, 2, 9, ks[i], 1);
    }
  }
}

/* Magnitudes near both ends of double's range (1e-150 squared is near
 * the subnormal range: the slack term covers it). */
static void test_gemm_ranges(void **state) {
  (void)state;
  hs_rng r = {23};
  static const double ranges[] = {1e-160, 1e-5, 1e5, 1e150};
  HS_FOR_EACH_ISA(kt)
    for (size_t i = 0; i < 4; i++) check(kt, &r, 70, 9, 13, ranges[i]);
}

/* The forward pass's projection shapes over many rows (n = 4096). */
static void test_gemm_many_rows(void **state) {
  (void)state;
  hs_rng r = {29};
  HS_FOR_EACH_ISA(kt) {
    check(kt, &r, 4097, 2, 9, 1);
    check(kt, &r, 300, 40, 2, 1);
  }
}

/* Every ISA's result within the scalar kernel's bound of the scalar one
 * (both are within 2k u sum |x a| of the exact value). */
static void test_gemm_isas_agree(void **state) {
  (void)state;
  hs_rng r = {31};
  const size_t rows = 50, m = 11, k = 70;
  double *a = fill(&r, m * k, -1, 1), *x = fill(&r, rows * k, -1, 1);
  double *y0 = hs_test_alloc(rows * m * sizeof(double));
  double *y = hs_test_alloc(rows * m * sizeof(double));
  hs_kernels_for(HS_ISA_SCALAR)->f64_gemm(rows, m, k, a, k, x, k, y0, m);
  HS_FOR_EACH_ISA(kt) {
    kt->f64_gemm(rows, m, k, a, k, x, k, y, m);
    for (size_t i = 0; i < rows; i++)
      for (size_t o = 0; o < m; o++) {
        double abs = 0;
        for (size_t c = 0; c < k; c++) abs += fabs(x[i * k + c] * a[o * k + c]);
        assert_true(fabs(y[i * m + o] - y0[i * m + o]) <= 4.0 * k * U * abs * 1.001);
      }
  }
  free(a);
  free(x);
  free(y0);
  free(y);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_shapes),
      cmocka_unit_test(test_gemm_ranges),
      cmocka_unit_test(test_gemm_many_rows),
      cmocka_unit_test(test_gemm_pk),
      cmocka_unit_test(test_gemm_isas_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
