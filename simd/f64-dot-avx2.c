/* SPDX-License-Identifier: MIT */
/* f64 dot product, AVX2+FMA, 4 x 4 lanes (16 per iteration), masked tail.
 * Error: |dot - dot*| <= (n/16 + 5) u sum_i |a_i b_i|, u = 2^-53. */
#include <immintrin.h>

#include "ukernels.h"

double hs_f64_dot_ukernel__avx2(size_t n, const double *a, const double *b) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  size_t i = 0;
  /* 4 accumulators hide the FMA latency */
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i), s0);
    s1 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4), s1);
    s2 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i + 8), _mm256_loadu_pd(b + i + 8), s2);
    s3 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i + 12), _mm256_loadu_pd(b + i + 12), s3);
  }
  for (; i + 4 <= n; i += 4)
    s0 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i), s0);
  if (i < n) {
    /* masked loads: lanes past n read nothing and are 0 */
    __m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(n - i)),
                                   _mm256_setr_epi64x(0, 1, 2, 3));
    s1 = _mm256_fmadd_pd(_mm256_maskload_pd(a + i, m), _mm256_maskload_pd(b + i, m), s1);
  }
  __m256d s = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
  h = _mm_add_sd(h, _mm_unpackhi_pd(h, h));
  return _mm_cvtsd_f64(h);
}
