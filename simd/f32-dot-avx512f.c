/* SPDX-License-Identifier: MIT */
/* f32 dot product, AVX-512F, 4 x 16 lanes (64 per iteration), masked tail.
 * Error: |dot - dot*| <= (n/64 + 7) u sum_i |a_i b_i|, u = 2^-24 (each of
 * the 64 lanes accumulates n/64 FMAs, a 2-level tree of the registers, a
 * 4-level horizontal sum). */
#include <immintrin.h>

#include "ukernels.h"

float hs_f32_dot_ukernel__avx512f(size_t n, const float *a, const float *b) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  size_t i = 0;
  /* 4 accumulators hide the FMA latency */
  for (; i + 64 <= n; i += 64) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
    s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), s2);
    s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), s3);
  }
  for (; i + 16 <= n; i += 16)
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
  if (i < n) {
    /* masked loads: lanes past n are not read and are 0 */
    __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}
