/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, portable C: per row of X, 4 outputs at a
 * time, each a sequential chain over c (the order of the AVX2 and AVX-512
 * kernels: y = x_0 a_0 + x_1 a_1 + ..., one rounding per step here).
 * Error per output: |y_ir - y*_ir| <= 2k u sum_c |x_ic a_rc|, u = 2^-24
 * (k roundings of the products, k of the sums). Row i depends only on row
 * i of X. */
#include "ukernels.h"

void hs_f32_gemm_ukernel__scalar_row(size_t rows, size_t m, size_t k,
                                     const float *a, size_t lda,
                                     const float *x, size_t ldx, float *y,
                                     size_t ldy) {
  for (size_t i = 0; i < rows; i++) {
    const float *xi = x + i * ldx;
    float *yi = y + i * ldy;
    size_t r = 0;
    for (; r + 4 <= m; r += 4) {
      const float *a0 = a + r * lda;
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (size_t c = 0; c < k; c++) {
        s0 += xi[c] * a0[c];
        s1 += xi[c] * a0[lda + c];
        s2 += xi[c] * a0[2 * lda + c];
        s3 += xi[c] * a0[3 * lda + c];
      }
      yi[r] = s0, yi[r + 1] = s1, yi[r + 2] = s2, yi[r + 3] = s3;
    }
    for (; r < m; r++) {
      float s = 0;
      for (size_t c = 0; c < k; c++) s += xi[c] * a[r * lda + c];
      yi[r] = s;
    }
  }
}

/* f32_gemm_pk: gemm-pk-scalar-impl.h over float. */
#define HS_GEMM_T float
#include "gemm-pk-scalar-impl.h"

void hs_f32_gemm_pk_ukernel__scalar_row(size_t rows, size_t m, size_t k,
                                        const float *pk, const float *bias,
                                        const float *x, size_t ldx, float *y,
                                        size_t ldy, unsigned flags) {
  hs_gemm_pk_scalar(rows, m, k, pk, bias, x, ldx, y, ldy, flags);
}
