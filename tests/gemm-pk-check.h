/* SPDX-License-Identifier: MIT */
/* The packed gemm with its epilogue (f32_gemm_pk / f64_gemm_pk) checked
 * against the unpacked kernel of the same ISA and a long double
 * reference, written once for both precisions: the includer defines T,
 * U (the unit roundoff), TINY (the least subnormal), GEMM, GEMM_PK and
 * PACK (the kernel table's members and the packing function). Per output:
 *   - t = the product alone (no flags, no bias) within (2k + 2) u sum
 *     |x a| of the exact value and bit for bit f32_gemm's y (the same
 *     chain), whatever the rows of the call and however they are split;
 *   - with bias / HS_GEMM_ACC / HS_GEMM_RELU, bit for bit the epilogue
 *     applied to f32_gemm's y in plain C, one rounding per add (a NaN
 *     input row gives ReLU's 0);
 *   - nothing past m in a row of Y read (the sentinels there are NaN,
 *     which would poison an accumulating lane) or written. */
#ifndef HS_TEST_GEMM_PK_CHECK_H
#define HS_TEST_GEMM_PK_CHECK_H

/* sum_c x[c] a[c] in long double, and sum_c |x[c] a[c]| into *abs: the
 * reference of one output (the unpacked kernels' tests use it too). */
static long double ref_dot(const T *x, const T *a, size_t k, long double *abs) {
  long double want = 0;
  *abs = 0;
  for (size_t c = 0; c < k; c++) {
    long double p = (long double)x[c] * a[c];
    want += p;
    *abs += fabsl(p);
  }
  return want;
}

static T *pk_fill(hs_rng *r, size_t cnt, double range) {
  T *b = (T *)hs_test_alloc((cnt ? cnt : 1) * sizeof(T));
  for (size_t i = 0; i < cnt; i++) b[i] = (T)hs_rng_uniform(r, -range, range);
  return b;
}

static void check_pk(const hs_kernels *kt, hs_rng *r, size_t rows, size_t m,
                     size_t k, unsigned flags, int bias, double range) {
  size_t lda = k + 1, ldx = k + 3, ldy = m + 2, ny = rows * ldy + 1;
  T *a = pk_fill(r, m * lda + 1, range), *x = pk_fill(r, rows * ldx + 1, range);
  T *b = bias ? pk_fill(r, m, range * range) : NULL;
  T *pk = (T *)hs_test_alloc((hs_gemm_pack_size(m, k) + 1) * sizeof(T));
  T *g = pk_fill(r, ny, 1), *y0 = pk_fill(r, ny, range * range);
  T *y = pk_fill(r, ny, 1), *y2 = pk_fill(r, ny, 1);
  for (size_t i = 0; i < rows; i++)
    for (size_t o = m; o < ldy; o++) y0[i * ldy + o] = (T)NAN;
  if ((flags & HS_GEMM_RELU) && rows > 0 && k > 0) x[0] = (T)NAN;
  memcpy(y, y0, ny * sizeof(T));
  memcpy(y2, y0, ny * sizeof(T));
  PACK(m, k, a, lda, pk);
  kt->GEMM(rows, m, k, a, lda, x, ldx, g, ldy);
  kt->GEMM_PK(rows, m, k, pk, b, x, ldx, y, ldy, flags);
  size_t cut = rows / 3;
  kt->GEMM_PK(cut, m, k, pk, b, x, ldx, y2, ldy, flags);
  kt->GEMM_PK(rows - cut, m, k, pk, b, x + cut * ldx, ldx, y2 + cut * ldy, ldy, flags);
  for (size_t i = 0; i < rows; i++) {
    for (size_t o = 0; o < m; o++) {
      long double abs, want = ref_dot(x + i * ldx, a + o * lda, k, &abs);
      T t = g[i * ldy + o];
      long double bound = (2.0L * k + 2) * U * abs + TINY * (k + 1);
      if (!isnan(want) && !(fabsl(t - want) <= bound)) {
        fprintf(stderr, "%s gemm_pk rows=%zu m=%zu k=%zu (%zu,%zu): %.17g want %.17Lg\n",
                hs_isa_name(kt->isa), rows, m, k, i, o, (double)t, want);
        fail();
      }
      if (b) t = t + b[o];
      if (flags & HS_GEMM_ACC) t = y0[i * ldy + o] + t;
      if (flags & HS_GEMM_RELU) t = t > 0 ? t : 0;
      if (memcmp(&t, &y[i * ldy + o], sizeof t) != 0 ||
          memcmp(&t, &y2[i * ldy + o], sizeof t) != 0) {
        fprintf(stderr, "%s gemm_pk rows=%zu m=%zu k=%zu flags=%u bias=%d (%zu,%zu): "
                "%.17g, split %.17g, want %.17g\n", hs_isa_name(kt->isa), rows, m, k,
                flags, bias, i, o, (double)y[i * ldy + o], (double)y2[i * ldy + o],
                (double)t);
        fail();
      }
    }
    for (size_t o = m; o < ldy; o++) {
      assert_true(isnan(y[i * ldy + o]));
      assert_true(isnan(y2[i * ldy + o]));
    }
  }
  assert_memory_equal(&y[rows * ldy], &y0[rows * ldy], sizeof(T));
  free(a), free(x), free(b), free(pk), free(g), free(y0), free(y), free(y2);
}

/* Shapes around the panel and register widths (4, 8, 16, 32 outputs),
 * the 8- and 4-row steps, every flag and bias combination, the compiled
 * models' shapes (m = 1..16 by k = 24, m = 24 by k = 1..4, 9 by 1 and 2,
 * 2 by 9) and magnitudes
 * near both ends of the range. */
static void test_gemm_pk(void **state) {
  (void)state;
  hs_rng r = {37};
  HS_FOR_EACH_ISA(kt) {
    for (size_t m = 0; m <= 34; m++)
      for (size_t k = 0; k <= 9; k++)
        check_pk(kt, &r, (m + 2 * k) % 19, m, k, (unsigned)(m + k) % 4, (int)(m % 2), 1);
    for (unsigned f = 0; f < 4; f++)
      for (int bias = 0; bias < 2; bias++) {
        for (size_t m = 1; m <= 16; m++) check_pk(kt, &r, 45, m, 24, f, bias, 1);
        for (size_t k = 1; k <= 4; k++) check_pk(kt, &r, 33, 24, k, f, bias, 1);
        /* a width-9 model's: the 8-row steps of a masked, read Y */
        for (size_t k = 1; k <= 2; k++) check_pk(kt, &r, 37, 9, k, f, bias, 1);
        check_pk(kt, &r, 37, 2, 9, f, bias, 1);
        check_pk(kt, &r, 9, 40, 70, f, bias, 1);
      }
    static const double ranges[] = {1e-20, 1e-5, 1e5, 1e15};
    for (size_t i = 0; i < 4; i++) check_pk(kt, &r, 21, 14, 24, HS_GEMM_ACC, 1, ranges[i]);
  }
}

#endif
