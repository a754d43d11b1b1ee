/* SPDX-License-Identifier: MIT */
/* f32 weighted row sum acc[c] += sum_j w[j] v[j*ldv + c], AVX2+FMA.
 * Columns in chunks of 8 (the last one masked: nothing past a row is read
 * or written); per chunk, rows go to 4 accumulators (j mod 4) that hide the
 * FMA latency, summed per block of 64 rows before joining the total.
 * Error: |acc_c - acc*_c| <= (n/64 + 19) u (|acc_c| + sum_j |w_j v_jc|),
 * u = 2^-24. */
#include <immintrin.h>

#include "ukernels.h"


/* total += sum_{j<n} w[j] * v_j[0..8), loads masked unless full */
HS_ALWAYS_INLINE __m256 chunk(size_t n, const float *w, const float *v, size_t ldv,
                    int full, __m256i m, __m256 total) {
#define LD(j) (full ? _mm256_loadu_ps(v + (j) * ldv) : _mm256_maskload_ps(v + (j) * ldv, m))
#define STEP(a, j) a = _mm256_fmadd_ps(_mm256_broadcast_ss(w + (j)), LD(j), a)
  for (size_t j0 = 0; j0 < n; j0 += 64) {
    const size_t j1 = n - j0 < 64 ? n : j0 + 64;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t j = j0;
    for (; j + 4 <= j1; j += 4) {
      STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
    }
    for (; j < j1; j++) STEP(a0, j);
    /* block sum joins the running total */
    total = _mm256_add_ps(total, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  }
#undef STEP
#undef LD
  return total;
}

void hs_f32_wsum_ukernel__avx2(size_t n, size_t d, const float *w,
                               const float *v, size_t ldv, float *acc) {
  size_t c = 0;
  const __m256i none = _mm256_setzero_si256();
  for (; c + 8 <= d; c += 8)
    _mm256_storeu_ps(acc + c, chunk(n, w, v + c, ldv, 1, none, _mm256_loadu_ps(acc + c)));
  if (c < d) {
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(d - c)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    float t[8];
    _mm256_storeu_ps(t, chunk(n, w, v + c, ldv, 0, m, _mm256_maskload_ps(acc + c, m)));
    for (size_t i = 0; c + i < d; i++) acc[c + i] = t[i];
  }
}
