/* SPDX-License-Identifier: MIT */
/* y[i] = exp(x[i]), AVX2 + FMA, rr2-p5, 32 elements per iteration: max
 * error 2 ULP (measured on every float in the normal range, 1.98 ULP: see
 * tests/test-exp-exhaustive.c).
 *
 * The steps and the exact range rules are in f32-exp-avx2-rr2-p5.h
 * (x < -0x1.5D589Ep6 -> +0, x > 0x1.62E42Ep6 -> +inf, NaN -> NaN, no
 * subnormal intermediate, no branch on data). The tail (n mod 8) uses
 * maskload/maskstore, so nothing past x[n-1] is read or written.
 * x and y may alias exactly. */
#include "f32-exp-avx2-rr2-p5.h"
#include "ukernels.h"

void hs_f32_vexp_ukernel__avx2_rr2_p5(size_t n, const float *x, float *y) {
  size_t i = 0;
  /* four independent vectors per iteration hide the FMA chain latency */
  for (; i + 32 <= n; i += 32) {
    const __m256 x0 = _mm256_loadu_ps(x + i);
    const __m256 x1 = _mm256_loadu_ps(x + i + 8);
    const __m256 x2 = _mm256_loadu_ps(x + i + 16);
    const __m256 x3 = _mm256_loadu_ps(x + i + 24);
    _mm256_storeu_ps(y + i, hs_f32_exp_avx2_rr2_p5(x0));
    _mm256_storeu_ps(y + i + 8, hs_f32_exp_avx2_rr2_p5(x1));
    _mm256_storeu_ps(y + i + 16, hs_f32_exp_avx2_rr2_p5(x2));
    _mm256_storeu_ps(y + i + 24, hs_f32_exp_avx2_rr2_p5(x3));
  }
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, hs_f32_exp_avx2_rr2_p5(_mm256_loadu_ps(x + i)));
  if (i < n) {
    /* lanes j < n - i are live; maskload reads nothing past the end */
    const __m256i live = _mm256_cmpgt_epi32(
        _mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256 v = _mm256_maskload_ps(x + i, live);
    _mm256_maskstore_ps(y + i, live, hs_f32_exp_avx2_rr2_p5(v));
  }
}
