/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AVX-512F, 4 rows x 16 outputs per step:
 * f32-gemm-4xv-impl.h over this ISA's vocabulary (its comment has the
 * blocking and the error bound, (k + 1) u sum_c |x_ic a_rc|). */
#include "vec-f32-avx512f.h"
#include "f32-gemm-4xv-impl.h"

void hs_f32_gemm_ukernel__avx512f_4x16(size_t rows, size_t m, size_t k,
                                       const float *a, size_t lda,
                                       const float *x, size_t ldx, float *y,
                                       size_t ldy) {
  /* m <= 8 outputs fill half a register: the 8-lane kernel does the same
   * chains (each output lane is its own, so the same bits) at half the
   * cost per FMA where 512-bit operations issue as two halves (Zen 4:
   * measured 1.3-1.5x on the 2 x 9 and 3 x 24 projections) */
  if (m <= 8) {
    hs_f32_gemm_ukernel__avx2_4x8(rows, m, k, a, lda, x, ldx, y, ldy);
    return;
  }
  hs_gemm_4xv(rows, m, k, a, lda, x, ldx, y, ldy);
}
