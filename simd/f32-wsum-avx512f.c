/* SPDX-License-Identifier: MIT */
/* f32 weighted row sum acc[c] += sum_j w[j] v[j*ldv + c], AVX-512F.
 * Columns in chunks of 16 (the last one masked: nothing past a row is read
 * or written); per chunk, rows go to 4 accumulators (j mod 4), summed per
 * block of 64 rows before joining the total.
 * Error: |acc_c - acc*_c| <= (n/64 + 19) u (|acc_c| + sum_j |w_j v_jc|),
 * u = 2^-24. */
#include <immintrin.h>

#include "ukernels.h"

void hs_f32_wsum_ukernel__avx512f(size_t n, size_t d, const float *w,
                                  const float *v, size_t ldv, float *acc) {
  for (size_t c = 0; c < d; c += 16) {
    const __mmask16 m = d - c >= 16 ? 0xFFFF : (__mmask16)((1u << (d - c)) - 1);
    const float *vc = v + c;
    __m512 total = _mm512_maskz_loadu_ps(m, acc + c);
#define STEP(a, j) \
  a = _mm512_fmadd_ps(_mm512_set1_ps(w[j]), _mm512_maskz_loadu_ps(m, vc + (j) * ldv), a)
    for (size_t j0 = 0; j0 < n; j0 += 64) {
      const size_t j1 = n - j0 < 64 ? n : j0 + 64;
      __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
      size_t j = j0;
      for (; j + 4 <= j1; j += 4) {
        STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
      }
      for (; j < j1; j++) STEP(a0, j);
      /* block sum joins the running total */
      total = _mm512_add_ps(total, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
    }
#undef STEP
    _mm512_mask_storeu_ps(acc + c, m, total);
  }
}
