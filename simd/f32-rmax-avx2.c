/* SPDX-License-Identifier: MIT */
/* max of x[0..n), AVX2, 32 elements per iteration in 4 accumulators.
 * Exact (max never rounds). n == 0 gives -INFINITY; a NaN anywhere gives a
 * quiet NaN (NAN): vmaxps drops a NaN in one operand, so NaNs are tracked
 * apart by an unordered compare of pairs of vectors (one compare covers two
 * vectors) and checked once at the end. -inf and +inf take part like any
 * other value. When the maximum is zero, its sign is unspecified. The tail
 * (n mod 8) uses maskload, filled with -inf in the dead lanes, so nothing
 * past x[n-1] is read. */
#include <immintrin.h>
#include <math.h>

#include "ukernels.h"

float hs_f32_rmax_ukernel__avx2(size_t n, const float *x) {
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  __m256 m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  /* all-ones in a lane once a NaN has been seen there */
  __m256 nan = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 x0 = _mm256_loadu_ps(x + i);
    const __m256 x1 = _mm256_loadu_ps(x + i + 8);
    const __m256 x2 = _mm256_loadu_ps(x + i + 16);
    const __m256 x3 = _mm256_loadu_ps(x + i + 24);
    /* m_j = max of the non-NaN elements of its lanes so far */
    m0 = _mm256_max_ps(m0, x0);
    m1 = _mm256_max_ps(m1, x1);
    m2 = _mm256_max_ps(m2, x2);
    m3 = _mm256_max_ps(m3, x3);
    /* unordered compare is true when either operand is NaN */
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(x0, x1, _CMP_UNORD_Q));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(x2, x3, _CMP_UNORD_Q));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    m0 = _mm256_max_ps(m0, v);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  if (i < n) {
    const __m256i live = _mm256_cmpgt_epi32(
        _mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    /* dead lanes read as 0 and are replaced by -inf */
    const __m256 v = _mm256_blendv_ps(neg_inf, _mm256_maskload_ps(x + i, live),
                                      _mm256_castsi256_ps(live));
    m1 = _mm256_max_ps(m1, v);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  if (_mm256_movemask_ps(nan) != 0) return NAN;
  /* no NaN: fold the accumulators, then the lanes */
  __m256 m = _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
  return _mm_cvtss_f32(h);
}
