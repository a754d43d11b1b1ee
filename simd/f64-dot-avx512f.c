/* SPDX-License-Identifier: MIT */
/* f64 dot product, AVX-512F, 4 x 8 lanes (32 per iteration), masked tail.
 * Error: |dot - dot*| <= (n/32 + 6) u sum_i |a_i b_i|, u = 2^-53. */
#include <immintrin.h>

#include "ukernels.h"

double hs_f64_dot_ukernel__avx512f(size_t n, const double *a, const double *b) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  size_t i = 0;
  /* 4 accumulators hide the FMA latency */
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i), s0);
    s1 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i + 8), _mm512_loadu_pd(b + i + 8), s1);
    s2 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i + 16), _mm512_loadu_pd(b + i + 16), s2);
    s3 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i + 24), _mm512_loadu_pd(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8)
    s0 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i), s0);
  if (i < n) {
    /* masked loads: lanes past n are not read and are 0 */
    __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
    s1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, a + i), _mm512_maskz_loadu_pd(m, b + i), s1);
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)));
}
