/* SPDX-License-Identifier: MIT */
/* y[i] = exp(x[i]), AVX-512F, rr2-p5, 64 elements per iteration: max error
 * 2 ULP (measured on every float in the normal range, 1.98 ULP: see
 * tests/test-exp-exhaustive.c).
 *
 * The steps and the exact range rules are in f32-exp-avx512f-rr2-p5.h
 * (x < -0x1.5D589Ep6 -> +0, x > 0x1.62E42Ep6 -> +inf, NaN -> NaN, no
 * subnormal intermediate, no branch on data). The tail (n mod 16) uses a
 * masked load and store, so nothing past x[n-1] is read or written.
 * x and y may alias exactly. */
#include "f32-exp-avx512f-rr2-p5.h"
#include "ukernels.h"

void hs_f32_vexp_ukernel__avx512f_rr2_p5(size_t n, const float *x, float *y) {
  size_t i = 0;
  /* four independent vectors per iteration hide the FMA chain latency */
  for (; i + 64 <= n; i += 64) {
    const __m512 x0 = _mm512_loadu_ps(x + i);
    const __m512 x1 = _mm512_loadu_ps(x + i + 16);
    const __m512 x2 = _mm512_loadu_ps(x + i + 32);
    const __m512 x3 = _mm512_loadu_ps(x + i + 48);
    _mm512_storeu_ps(y + i, hs_f32_exp_avx512f_rr2_p5(x0));
    _mm512_storeu_ps(y + i + 16, hs_f32_exp_avx512f_rr2_p5(x1));
    _mm512_storeu_ps(y + i + 32, hs_f32_exp_avx512f_rr2_p5(x2));
    _mm512_storeu_ps(y + i + 48, hs_f32_exp_avx512f_rr2_p5(x3));
  }
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, hs_f32_exp_avx512f_rr2_p5(_mm512_loadu_ps(x + i)));
  if (i < n) {
    /* lanes j < n - i are live; the masked load does not fault past the end */
    const __mmask16 live = (__mmask16)((1u << (n - i)) - 1u);
    const __m512 v = _mm512_maskz_loadu_ps(live, x + i);
    _mm512_mask_storeu_ps(y + i, live, hs_f32_exp_avx512f_rr2_p5(v));
  }
}
