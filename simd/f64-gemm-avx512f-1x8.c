/* SPDX-License-Identifier: MIT */
/* f64 batch of gemv, Y = X A^T, AVX-512F, 1x8: for each block of 8
 * outputs r and 64 inputs c, the 8x64 piece of A is transposed once per
 * call into AT[c] (8 doubles, zero past m), then every row of X is one
 * FMA chain y += x_ic * AT[c] (x_ic broadcast), 8 outputs per register
 * and a masked store: no horizontal sums; 4 rows of X at a time share
 * each load of AT[c]. Chains longer than 64 continue
 * from the stored partial sums.
 * Error per output: |y_ir - y*_ir| <= (k + 1) u sum_c |x_ic a_rc|,
 * u = 2^-53 (one rounding per FMA). Row i depends only on row i of X (and
 * k, the only thing the blocking depends on). */
#include <immintrin.h>

#include "ukernels.h"

#define KC 64

void hs_f64_gemm_ukernel__avx512f_1x8(size_t rows, size_t m, size_t k,
                                      const double *a, size_t lda,
                                      const double *x, size_t ldx, double *y,
                                      size_t ldy) {
  _Alignas(64) double at[KC][8];
  for (size_t r0 = 0; r0 < m; r0 += 8) {
    const size_t mr = m - r0 < 8 ? m - r0 : 8;
    const __mmask8 mk = (__mmask8)((1u << mr) - 1);
    for (size_t c0 = 0; c0 < k || c0 == 0; c0 += KC) {
      const size_t kc = k - c0 < KC ? k - c0 : KC;
      for (size_t c = 0; c < kc; c++)
        for (size_t r = 0; r < 8; r++)
          at[c][r] = r < mr ? a[(r0 + r) * lda + c0 + c] : 0.0;
      size_t i = 0;
      /* 4 rows at a time: 4 independent chains hide the FMA latency (one
       * row's chain of k FMAs is latency-bound); each row's chain is the
       * same sequence as alone, so its bits do not depend on the grouping */
      for (; i + 4 <= rows; i += 4) {
        const double *x0 = x + i * ldx + c0, *x1 = x0 + ldx, *x2 = x1 + ldx, *x3 = x2 + ldx;
        double *y0 = y + i * ldy + r0, *y1 = y0 + ldy, *y2 = y1 + ldy, *y3 = y2 + ldy;
        __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
        if (c0 != 0) {
          a0 = _mm512_maskz_loadu_pd(mk, y0), a1 = _mm512_maskz_loadu_pd(mk, y1);
          a2 = _mm512_maskz_loadu_pd(mk, y2), a3 = _mm512_maskz_loadu_pd(mk, y3);
        }
        for (size_t c = 0; c < kc; c++) {
          const __m512d t = _mm512_load_pd(at[c]);
          a0 = _mm512_fmadd_pd(_mm512_set1_pd(x0[c]), t, a0);
          a1 = _mm512_fmadd_pd(_mm512_set1_pd(x1[c]), t, a1);
          a2 = _mm512_fmadd_pd(_mm512_set1_pd(x2[c]), t, a2);
          a3 = _mm512_fmadd_pd(_mm512_set1_pd(x3[c]), t, a3);
        }
        _mm512_mask_storeu_pd(y0, mk, a0), _mm512_mask_storeu_pd(y1, mk, a1);
        _mm512_mask_storeu_pd(y2, mk, a2), _mm512_mask_storeu_pd(y3, mk, a3);
      }
      for (; i < rows; i++) {
        const double *xi = x + i * ldx + c0;
        double *yi = y + i * ldy + r0;
        __m512d acc = c0 == 0 ? _mm512_setzero_pd() : _mm512_maskz_loadu_pd(mk, yi);
        for (size_t c = 0; c < kc; c++)
          acc = _mm512_fmadd_pd(_mm512_set1_pd(xi[c]), _mm512_load_pd(at[c]), acc);
        _mm512_mask_storeu_pd(yi, mk, acc);
      }
      if (k == 0) break;
    }
  }
}
