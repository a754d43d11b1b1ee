/* SPDX-License-Identifier: MIT */
/* f32 dot product, AVX2+FMA, 4 x 8 lanes (32 per iteration), masked tail.
 * Error: |dot - dot*| <= (n/32 + 6) u sum_i |a_i b_i|, u = 2^-24 (each of
 * the 32 lanes accumulates n/32 FMAs, then a 2-level tree of the four
 * registers and a 3-level horizontal sum). */
#include <immintrin.h>

#include "ukernels.h"

float hs_f32_dot_ukernel__avx2(size_t n, const float *a, const float *b) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  size_t i = 0;
  /* 4 accumulators hide the FMA latency */
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8)
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  if (i < n) {
    /* masked loads: lanes past n read nothing and are 0 */
    __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)),
                                   _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    s1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), s1);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}
