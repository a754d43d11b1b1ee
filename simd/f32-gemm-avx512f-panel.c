/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AVX-512F, 16 outputs per register, 8 rows
 * per step: gemm-panel-impl.h over this ISA's vocabulary (its comment has
 * the blocking and the error bound, (k + 1) u sum_c |x_ic a_rc|).
 * f32_gemm and f32_gemm_pk.
 * m <= 8 outputs fill half a register: the 8-lane kernel does the same
 * chains (each output lane is its own, so the same bits) at half the
 * cost per FMA where 512-bit operations issue as two halves (Zen 4:
 * measured 1.3-1.5x on the 2 x 9 and 3 x 24 projections) or where one
 * unit runs them (client Intel cores); f32_gemm_pk the same per panel (the
 * last one of m = 24, or all of m <= 8). */
#include "vec-f32-avx512f.h"

static void half_panel(size_t rows, size_t mr, size_t k, const float *w,
                       const float *b, const float *x, size_t ldx, float *y,
                       size_t ldy, unsigned flags);
#define HS_GEMM_PK_PANEL half_panel
#include "gemm-panel-impl.h"

static void half_panel(size_t rows, size_t mr, size_t k, const float *w,
                       const float *b, const float *x, size_t ldx, float *y,
                       size_t ldy, unsigned flags) {
  if (mr <= 8)
    hs_f32_gemm_pk_ukernel__avx2_panel(rows, mr, k, w, b, x, ldx, y, ldy, flags);
  else
    hs_gemm_panel(rows, mr, k, w, b, x, ldx, y, ldy, flags);
}

void hs_f32_gemm_ukernel__avx512f_panel(size_t rows, size_t m, size_t k,
                                       const float *a, size_t lda,
                                       const float *x, size_t ldx, float *y,
                                       size_t ldy) {
  if (m <= 8) {
    hs_f32_gemm_ukernel__avx2_panel(rows, m, k, a, lda, x, ldx, y, ldy);
    return;
  }
  hs_gemm_rows(rows, m, k, a, lda, x, ldx, y, ldy);
}

HS_DEFINE_GEMM_PK(hs_f32_gemm_pk_ukernel__avx512f_panel)
