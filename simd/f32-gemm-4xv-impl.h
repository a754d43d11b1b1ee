/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, written once over the vector vocabulary:
 * for each block of VF_LANES outputs r and KC inputs c, that piece of A is
 * transposed once per call into at[c] (zero past m), then rows of X take
 * FMA chains y += x_ic * at[c] (x_ic broadcast), VF_LANES outputs per
 * register and a masked store past m: no horizontal sums. Four rows at a
 * time share each load of at[c] and give four independent chains (one
 * row's chain of k FMAs is latency-bound; the narrow projections of the
 * compiled models have k = the model width and m = 1..4 or the reverse);
 * each row's chain is the same sequence as alone, so a row's bits do not
 * depend on the grouping or on how many rows the call takes. Chains
 * longer than KC continue from the stored partial sums.
 * Error per output: |y_ir - y*_ir| <= (k + 1) u sum_c |x_ic a_rc|,
 * u = 2^-24 (one rounding per FMA where vf_fma is fused; two per term
 * otherwise: 2k u).
 * A kernel file includes one vec-f32-<isa>.h and this header and defines
 * its symbol by HS_DEFINE_F32_GEMM_4XV. */
#ifndef HS_F32_GEMM_4XV_IMPL_H
#define HS_F32_GEMM_4XV_IMPL_H

#include "ukernels.h"

#define HS_GEMM_KC 64

static inline vf hs_gemm_ld(const float *p, size_t mr) {
  return mr == VF_LANES ? vf_loadu(p) : vf_load_tail(p, mr);
}

static inline void hs_gemm_st(float *p, vf v, size_t mr) {
  if (mr == VF_LANES) vf_storeu(p, v);
  else vf_store_tail(p, v, mr);
}

static inline void hs_gemm_4xv(size_t rows, size_t m, size_t k, const float *a,
                               size_t lda, const float *x, size_t ldx,
                               float *y, size_t ldy) {
  _Alignas(64) float at[HS_GEMM_KC][VF_LANES];
  for (size_t r0 = 0; r0 < m; r0 += VF_LANES) {
    const size_t mr = m - r0 < VF_LANES ? m - r0 : VF_LANES;
    for (size_t c0 = 0; c0 < k || c0 == 0; c0 += HS_GEMM_KC) {
      const size_t kc = k - c0 < HS_GEMM_KC ? k - c0 : HS_GEMM_KC;
      for (size_t c = 0; c < kc; c++)
        for (size_t r = 0; r < VF_LANES; r++)
          at[c][r] = r < mr ? a[(r0 + r) * lda + c0 + c] : 0.0f;
      size_t i = 0;
      for (; i + 4 <= rows; i += 4) {
        const float *x0 = x + i * ldx + c0;
        float *y0 = y + i * ldy + r0;
#define HS_GEMM_ROWS(X) X(0) X(1) X(2) X(3)
#define HS_GEMM_INIT(j) vf a##j = c0 == 0 ? vf_zero() : hs_gemm_ld(y0 + j * ldy, mr);
#define HS_GEMM_STEP(j) a##j = vf_fma(vf_set1(x0[j * ldx + c]), t, a##j);
#define HS_GEMM_STORE(j) hs_gemm_st(y0 + j * ldy, a##j, mr);
        HS_GEMM_ROWS(HS_GEMM_INIT)
        for (size_t c = 0; c < kc; c++) {
          const vf t = vf_loadu(at[c]);
          HS_GEMM_ROWS(HS_GEMM_STEP)
        }
        HS_GEMM_ROWS(HS_GEMM_STORE)
#undef HS_GEMM_STORE
#undef HS_GEMM_STEP
#undef HS_GEMM_INIT
#undef HS_GEMM_ROWS
      }
      for (; i < rows; i++) {
        const float *xi = x + i * ldx + c0;
        float *yi = y + i * ldy + r0;
        vf acc = c0 == 0 ? vf_zero() : hs_gemm_ld(yi, mr);
        for (size_t c = 0; c < kc; c++) acc = vf_fma(vf_set1(xi[c]), vf_loadu(at[c]), acc);
        hs_gemm_st(yi, acc, mr);
      }
      if (k == 0) break;
    }
  }
}

#define HS_DEFINE_F32_GEMM_4XV(fn)                                           \
  void fn(size_t rows, size_t m, size_t k, const float *a, size_t lda,       \
          const float *x, size_t ldx, float *y, size_t ldy) {                \
    hs_gemm_4xv(rows, m, k, a, lda, x, ldx, y, ldy);                          \
  }

#endif
