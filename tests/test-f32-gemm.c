/* SPDX-License-Identifier: MIT */
/* f32 gemm (Y = X A^T, a batch of gemv) on every ISA this CPU runs,
 * against long double references, with the bound of the kernels' first
 * comments (u = 2^-24; the scalar one's is the largest):
 *   |y_ir - y*_ir| <= 2k u sum_c |x_ic a_rc|  (+ subnormal slack)
 * Shapes around the register widths (8, 16 outputs) and the 64-input
 * blocking, strides larger than the shapes, and the property the forward
 * pass relies on for bit-identical threads: a row's result does not depend
 * on how many rows the call takes. Entries past m in a row of Y are never
 * written. */
#include "common.h"

#define U 0x1p-24
#define T float
#define TINY 0x1p-149L
#define GEMM f32_gemm
#define GEMM_PK f32_gemm_pk
#define PACK hs_f32_gemm_pack
#include "gemm-pk-check.h"

#define SENT -12345.0f

static float *fill(hs_rng *r, size_t cnt, double lo, double hi) {
  float *b = (float *)hs_test_alloc(cnt * sizeof(float));
  for (size_t i = 0; i < cnt; i++) b[i] = (float)hs_rng_uniform(r, lo, hi);
  return b;
}

static void check(const hs_kernels *kt, hs_rng *r, size_t rows, size_t m,
                  size_t k, double range) {
  size_t lda = k + 1, ldx = k + 3, ldy = m + 2;
  float *a = fill(r, m * lda + 1, -range, range);
  float *x = fill(r, rows * ldx + 1, -range, range);
  float *y = hs_test_alloc((rows * ldy + 1) * sizeof(float));
  float *y1 = hs_test_alloc((ldy + 1) * sizeof(float));
  for (size_t i = 0; i < rows * ldy + 1; i++) y[i] = SENT;
  kt->f32_gemm(rows, m, k, a, lda, x, ldx, y, ldy);
  for (size_t i = 0; i < rows; i++) {
    for (size_t c = 0; c < ldy; c++) y1[c] = SENT;
    kt->f32_gemm(1, m, k, a, lda, x + i * ldx, ldx, y1, ldy);
    for (size_t o = 0; o < m; o++) {
      long double abs, want = ref_dot(x + i * ldx, a + o * lda, k, &abs);
      float got = y[i * ldy + o];
      double bound = (2.0 * k + 2) * U * (double)abs + 0x1p-149 * (k + 1);
      if (!(fabsl(got - want) <= bound)) {
        fprintf(stderr, "%s gemm rows=%zu m=%zu k=%zu (%zu,%zu): %.9g want %.9Lg\n",
                hs_isa_name(kt->isa), rows, m, k, i, o, got, want);
        fail();
      }
      if (memcmp(&got, &y1[o], sizeof got) != 0) {
        fprintf(stderr, "%s gemm rows=%zu m=%zu k=%zu row %zu: %.9g alone, %.9g in the batch\n",
                hs_isa_name(kt->isa), rows, m, k, i, y1[o], got);
        fail();
      }
    }
    for (size_t o = m; o < ldy; o++) assert_true(y[i * ldy + o] == SENT);
  }
  assert_true(y[rows * ldy] == SENT);
  free(a);
  free(x);
  free(y);
  free(y1);
}

static void test_gemm_shapes(void **state) {
  (void)state;
  hs_rng r = {17};
  HS_FOR_EACH_ISA(kt) {
    for (size_t m = 0; m <= 34; m++)
      for (size_t k = 0; k <= 20; k++) check(kt, &r, (m + k) % 5, m, k, 1);
    static const size_t ks[] = {63, 64, 65, 127, 128, 129, 200};
    for (size_t i = 0; i < 7; i++) {
      check(kt, &r, 3, 5, ks[i], 1);
      check(kt, &r, 2, 17, ks[i], 1);
    }
  }
}

static void test_gemm_ranges(void **state) {
  (void)state;
  hs_rng r = {23};
  static const double ranges[] = {1e-20, 1e-5, 1e5, 1e15};
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_shapes),
      cmocka_unit_test(test_gemm_ranges),
      cmocka_unit_test(test_gemm_many_rows),
      cmocka_unit_test(test_gemm_pk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
