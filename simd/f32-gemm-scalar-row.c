/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, portable C: per row of X, 4 outputs at a
 * time, each a sequential chain over c (the order of the AVX2 and AVX-512
 * kernels: y = x_0 a_0 + x_1 a_1 + ..., one rounding per step here).
 * Error per output: |y_ir - y*_ir| <= 2k u sum_c |x_ic a_rc|, u = 2^-24
 * (k roundings of the products, k of the sums). Row i depends only on row
 * i of X. */
#include "ukernels.h"

/* f32_gemm and _gemm_pk: gemm-pk-scalar-impl.h over float. */
#define HS_GEMM_T float
#include "gemm-pk-scalar-impl.h"

void hs_f32_gemm_ukernel__scalar_row(size_t rows, size_t m, size_t k,
                                     const float *a, size_t lda,
                                     const float *x, size_t ldx, float *y,
                                     size_t ldy) {
  hs_gemm_scalar(rows, m, k, a, lda, x, ldx, y, ldy);
}

void hs_f32_gemm_pk_ukernel__scalar_row(size_t rows, size_t m, size_t k,
                                        const float *pk, const float *bias,
                                        const float *x, size_t ldx, float *y,
                                        size_t ldy, unsigned flags) {
  hs_gemm_pk_scalar(rows, m, k, pk, bias, x, ldx, y, ldy, flags);
}
