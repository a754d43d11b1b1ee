/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AVX-512F, 16 outputs per register, 8 rows
 * per step: gemm-panel-impl.h over this ISA's vocabulary (its comment has
 * the blocking and the error bound, (k + 1) u sum_c |x_ic a_rc|).
 * f32_gemm and f32_gemm_pk. */
#include "vec-f32-avx512f.h"
#include "gemm-panel-impl.h"

/* m <= 8 outputs fill half a register: the 8-lane kernel does the same
 * chains (each output lane is its own, so the same bits) at half the
 * cost per FMA where 512-bit operations issue as two halves (Zen 4:
 * measured 1.3-1.5x on the 2 x 9 and 3 x 24 projections) or where one
 * unit runs them (client Intel cores) */
void hs_f32_gemm_ukernel__avx512f_4x16(size_t rows, size_t m, size_t k,
                                       const float *a, size_t lda,
                                       const float *x, size_t ldx, float *y,
                                       size_t ldy) {
  if (m <= 8) {
    hs_f32_gemm_ukernel__avx2_4x8(rows, m, k, a, lda, x, ldx, y, ldy);
    return;
  }
  hs_gemm_rows(rows, m, k, a, lda, x, ldx, y, ldy);
}

/* the same per panel: a panel of at most 8 outputs (the last one of m =
 * 24, or all of m <= 8) takes the 8-lane kernel */
void hs_f32_gemm_pk_ukernel__avx512f_4x16(size_t rows, size_t m, size_t k,
                                          const float *pk, const float *bias,
                                          const float *x, size_t ldx, float *y,
                                          size_t ldy, unsigned flags) {
  flags &= HS_GEMM_ACC | HS_GEMM_RELU;
  for (size_t r0 = 0; r0 < m; r0 += HS_GEMM_NR, pk += HS_GEMM_NR * k) {
    const size_t mr = m - r0 < HS_GEMM_NR ? m - r0 : HS_GEMM_NR;
    const float *b = bias ? bias + r0 : NULL;
    if (mr <= 8)
      hs_f32_gemm_pk_ukernel__avx2_4x8(rows, mr, k, pk, b, x, ldx, y + r0, ldy, flags);
    else
      hs_gemm_panel(rows, mr, k, pk, b, x, ldx, y + r0, ldy, flags);
  }
}
