/* SPDX-License-Identifier: MIT */
/* The scalar gemm and gemm_pk, f32 and f64 (the includer defines
 * HS_GEMM_T, the type), portable C. gemm: per row of X, 4 outputs at a
 * time, each a sequential chain over c. gemm_pk: the packed panels (HS_GEMM_NR entries per input, +0
 * past m), per row of X 4 outputs at a time, each a sequential chain over
 * c as the scalar gemm's (the same bits; a group reaching past m sums the
 * padding and stores only what is below m), then the epilogue of the
 * contract, one rounding per add, each step written out for the 4 sums so
 * that the compiler can pack them (as the separate residual add was) and
 * no flag is tested per output. */
#ifndef HS_GEMM_PK_SCALAR_IMPL_H
#define HS_GEMM_PK_SCALAR_IMPL_H

#include "ukernels.h"

typedef HS_GEMM_T hs_gt;

static inline void hs_gemm_scalar(size_t rows, size_t m, size_t k, const hs_gt *a, size_t lda,
                                  const hs_gt *x, size_t ldx, hs_gt *y, size_t ldy) {
  for (size_t i = 0; i < rows; i++) {
    const hs_gt *xi = x + i * ldx;
    hs_gt *yi = y + i * ldy;
    size_t r = 0;
    for (; r + 4 <= m; r += 4) {
      const hs_gt *a0 = a + r * lda;
      hs_gt s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (size_t c = 0; c < k; c++) {
        s0 += xi[c] * a0[c];
        s1 += xi[c] * a0[lda + c];
        s2 += xi[c] * a0[2 * lda + c];
        s3 += xi[c] * a0[3 * lda + c];
      }
      yi[r] = s0, yi[r + 1] = s1, yi[r + 2] = s2, yi[r + 3] = s3;
    }
    for (; r < m; r++) {
      hs_gt s = 0;
      for (size_t c = 0; c < k; c++) s += xi[c] * a[r * lda + c];
      yi[r] = s;
    }
  }
}

static inline void hs_gemm_pk_scalar(size_t rows, size_t m, size_t k,
                                     const hs_gt *pk, const hs_gt *bias,
                                     const hs_gt *x, size_t ldx, hs_gt *y,
                                     size_t ldy, unsigned flags) {
  for (size_t i = 0; i < rows; i++) {
    const hs_gt *xi = x + i * ldx;
    hs_gt *yi = y + i * ldy;
    for (size_t r0 = 0; r0 < m; r0 += 4) {
      const hs_gt *w = pk + r0 / HS_GEMM_NR * HS_GEMM_NR * k + r0 % HS_GEMM_NR;
      hs_gt s[4] = {0, 0, 0, 0}, *yr = yi + r0;
      for (size_t c = 0; c < k; c++, w += HS_GEMM_NR) {
        s[0] += xi[c] * w[0];
        s[1] += xi[c] * w[1];
        s[2] += xi[c] * w[2];
        s[3] += xi[c] * w[3];
      }
      if (r0 + 4 > m) { /* the last, partial group */
        for (size_t r = 0; r0 + r < m; r++) {
          hs_gt t = bias ? s[r] + bias[r0 + r] : s[r];
          if (flags & HS_GEMM_ACC) t = yr[r] + t;
          yr[r] = flags & HS_GEMM_RELU ? (t > 0 ? t : 0) : t;
        }
        break;
      }
      if (bias) {
        const hs_gt *b = bias + r0;
        s[0] += b[0], s[1] += b[1], s[2] += b[2], s[3] += b[3];
      }
      if (flags & HS_GEMM_ACC)
        s[0] = yr[0] + s[0], s[1] = yr[1] + s[1], s[2] = yr[2] + s[2], s[3] = yr[3] + s[3];
      if (flags & HS_GEMM_RELU)
        for (size_t r = 0; r < 4; r++) s[r] = s[r] > 0 ? s[r] : 0;
      yr[0] = s[0], yr[1] = s[1], yr[2] = s[2], yr[3] = s[3];
    }
  }
}

#endif
