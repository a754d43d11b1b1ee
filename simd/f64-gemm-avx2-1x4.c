/* SPDX-License-Identifier: MIT */
/* f64 batch of gemv, Y = X A^T, AVX2+FMA, 1x4: for each block of 4
 * outputs r and 64 inputs c, the 4x64 piece of A is transposed once per
 * call into AT[c] (4 doubles, zero past m), then every row of X is one FMA
 * chain y += x_ic * AT[c] (x_ic broadcast), 4 outputs per register: no
 * horizontal sums, nothing per row but k broadcast-FMAs and a store; 4
 * rows of X at a time share each load of AT[c].
 * Chains longer than 64 continue from the stored partial sums.
 * Error per output: |y_ir - y*_ir| <= (k + 1) u sum_c |x_ic a_rc|,
 * u = 2^-53 (one rounding per FMA). Row i depends only on row i of X (and
 * k, the only thing the blocking depends on). */
#include <immintrin.h>

#include "ukernels.h"

#define KC 64

void hs_f64_gemm_ukernel__avx2_1x4(size_t rows, size_t m, size_t k,
                                   const double *a, size_t lda,
                                   const double *x, size_t ldx, double *y,
                                   size_t ldy) {
  _Alignas(32) double at[KC][4];
  for (size_t r0 = 0; r0 < m; r0 += 4) {
    const size_t mr = m - r0 < 4 ? m - r0 : 4;
    const __m256i mk = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)mr),
                                          _mm256_setr_epi64x(0, 1, 2, 3));
    for (size_t c0 = 0; c0 < k || c0 == 0; c0 += KC) {
      const size_t kc = k - c0 < KC ? k - c0 : KC;
      for (size_t c = 0; c < kc; c++)
        for (size_t r = 0; r < 4; r++)
          at[c][r] = r < mr ? a[(r0 + r) * lda + c0 + c] : 0.0;
      size_t i = 0;
      /* 4 rows at a time: 4 independent chains hide the FMA latency (one
       * row's chain of k FMAs is latency-bound); each row's chain is the
       * same sequence as alone, so its bits do not depend on the grouping */
      for (; i + 4 <= rows; i += 4) {
        const double *x0 = x + i * ldx + c0, *x1 = x0 + ldx, *x2 = x1 + ldx, *x3 = x2 + ldx;
        double *y0 = y + i * ldy + r0, *y1 = y0 + ldy, *y2 = y1 + ldy, *y3 = y2 + ldy;
        __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
        if (c0 != 0) {
          a0 = _mm256_maskload_pd(y0, mk), a1 = _mm256_maskload_pd(y1, mk);
          a2 = _mm256_maskload_pd(y2, mk), a3 = _mm256_maskload_pd(y3, mk);
        }
        for (size_t c = 0; c < kc; c++) {
          const __m256d t = _mm256_load_pd(at[c]);
          a0 = _mm256_fmadd_pd(_mm256_broadcast_sd(x0 + c), t, a0);
          a1 = _mm256_fmadd_pd(_mm256_broadcast_sd(x1 + c), t, a1);
          a2 = _mm256_fmadd_pd(_mm256_broadcast_sd(x2 + c), t, a2);
          a3 = _mm256_fmadd_pd(_mm256_broadcast_sd(x3 + c), t, a3);
        }
        _mm256_maskstore_pd(y0, mk, a0), _mm256_maskstore_pd(y1, mk, a1);
        _mm256_maskstore_pd(y2, mk, a2), _mm256_maskstore_pd(y3, mk, a3);
      }
      for (; i < rows; i++) {
        const double *xi = x + i * ldx + c0;
        double *yi = y + i * ldy + r0;
        __m256d acc = c0 == 0 ? _mm256_setzero_pd() : _mm256_maskload_pd(yi, mk);
        for (size_t c = 0; c < kc; c++)
          acc = _mm256_fmadd_pd(_mm256_broadcast_sd(xi + c), _mm256_load_pd(at[c]), acc);
        /* masked store: nothing past m in a row of Y is written */
        _mm256_maskstore_pd(yi, mk, acc);
      }
      if (k == 0) break;
    }
  }
}
