/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AVX-512F, 1x16: for each block of 16
 * outputs r and 64 inputs c, the 16x64 piece of A is transposed once per
 * call into AT[c] (16 floats, zero past m), then every row of X is one
 * FMA chain y += x_ic * AT[c] (x_ic broadcast), 16 outputs per register
 * and a masked store: no horizontal sums. Chains longer than 64 continue
 * from the stored partial sums.
 * Error per output: |y_ir - y*_ir| <= (k + 1) u sum_c |x_ic a_rc|,
 * u = 2^-24 (one rounding per FMA). Row i depends only on row i of X (and
 * k, the only thing the blocking depends on). */
#include <immintrin.h>

#include "ukernels.h"

#define KC 64

void hs_f32_gemm_ukernel__avx512f_1x16(size_t rows, size_t m, size_t k,
                                       const float *a, size_t lda,
                                       const float *x, size_t ldx, float *y,
                                       size_t ldy) {
  _Alignas(64) float at[KC][16];
  for (size_t r0 = 0; r0 < m; r0 += 16) {
    const size_t mr = m - r0 < 16 ? m - r0 : 16;
    const __mmask16 mk = (__mmask16)((1u << mr) - 1);
    for (size_t c0 = 0; c0 < k || c0 == 0; c0 += KC) {
      const size_t kc = k - c0 < KC ? k - c0 : KC;
      for (size_t c = 0; c < kc; c++)
        for (size_t r = 0; r < 16; r++)
          at[c][r] = r < mr ? a[(r0 + r) * lda + c0 + c] : 0.0f;
      for (size_t i = 0; i < rows; i++) {
        const float *xi = x + i * ldx + c0;
        float *yi = y + i * ldy + r0;
        __m512 acc = c0 == 0 ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mk, yi);
        for (size_t c = 0; c < kc; c++)
          acc = _mm512_fmadd_ps(_mm512_set1_ps(xi[c]), _mm512_load_ps(at[c]), acc);
        _mm512_mask_storeu_ps(yi, mk, acc);
      }
      if (k == 0) break;
    }
  }
}
