/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AVX2+FMA, 1x8: for each block of 8
 * outputs r and 64 inputs c, the 8x64 piece of A is transposed once per
 * call into AT[c] (8 floats, zero past m), then every row of X is one FMA
 * chain y += x_ic * AT[c] (x_ic broadcast), 8 outputs per register: no
 * horizontal sums, nothing per row but k broadcast-FMAs and a store.
 * Chains longer than 64 continue from the stored partial sums.
 * Error per output: |y_ir - y*_ir| <= (k + 1) u sum_c |x_ic a_rc|,
 * u = 2^-24 (one rounding per FMA). Row i depends only on row i of X (and
 * k, the only thing the blocking depends on). */
#include <immintrin.h>

#include "ukernels.h"

#define KC 64

void hs_f32_gemm_ukernel__avx2_1x8(size_t rows, size_t m, size_t k,
                                   const float *a, size_t lda, const float *x,
                                   size_t ldx, float *y, size_t ldy) {
  _Alignas(32) float at[KC][8];
  float tail[8];
  for (size_t r0 = 0; r0 < m; r0 += 8) {
    const size_t mr = m - r0 < 8 ? m - r0 : 8;
    const __m256i mk = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)mr),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (size_t c0 = 0; c0 < k || c0 == 0; c0 += KC) {
      const size_t kc = k - c0 < KC ? k - c0 : KC;
      for (size_t c = 0; c < kc; c++)
        for (size_t r = 0; r < 8; r++)
          at[c][r] = r < mr ? a[(r0 + r) * lda + c0 + c] : 0.0f;
      for (size_t i = 0; i < rows; i++) {
        const float *xi = x + i * ldx + c0;
        float *yi = y + i * ldy + r0;
        __m256 acc = c0 == 0 ? _mm256_setzero_ps() : _mm256_maskload_ps(yi, mk);
        for (size_t c = 0; c < kc; c++)
          acc = _mm256_fmadd_ps(_mm256_broadcast_ss(xi + c), _mm256_load_ps(at[c]), acc);
        if (mr == 8) {
          _mm256_storeu_ps(yi, acc);
        } else {
          _mm256_storeu_ps(tail, acc);
          for (size_t r = 0; r < mr; r++) yi[r] = tail[r];
        }
      }
      if (k == 0) break;
    }
  }
}
