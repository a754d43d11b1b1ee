/* SPDX-License-Identifier: MIT */
/* max of x[0..n), AVX-512F, 64 elements per iteration in 4 accumulators.
 * Exact (max never rounds). n == 0 gives -INFINITY; a NaN anywhere gives a
 * quiet NaN (NAN): vmaxps drops a NaN in one operand, so NaNs are tracked
 * apart by an unordered compare of pairs of vectors into an opmask and
 * checked once at the end. -inf and +inf take part like any other value.
 * When the maximum is zero, its sign is unspecified. The tail (n mod 16)
 * uses a masked load with -inf in the dead lanes, so nothing past x[n-1] is
 * read. */
#include <immintrin.h>
#include <math.h>

#include "ukernels.h"

float hs_f32_rmax_ukernel__avx512f(size_t n, const float *x) {
  const __m512 neg_inf = _mm512_set1_ps(-INFINITY);
  __m512 m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  /* a bit set once a NaN has been seen in that lane */
  __mmask16 nan = 0;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 x0 = _mm512_loadu_ps(x + i);
    const __m512 x1 = _mm512_loadu_ps(x + i + 16);
    const __m512 x2 = _mm512_loadu_ps(x + i + 32);
    const __m512 x3 = _mm512_loadu_ps(x + i + 48);
    /* m_j = max of the non-NaN elements of its lanes so far */
    m0 = _mm512_max_ps(m0, x0);
    m1 = _mm512_max_ps(m1, x1);
    m2 = _mm512_max_ps(m2, x2);
    m3 = _mm512_max_ps(m3, x3);
    /* unordered compare is true when either operand is NaN */
    nan |= _mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q);
    nan |= _mm512_cmp_ps_mask(x2, x3, _CMP_UNORD_Q);
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    m0 = _mm512_max_ps(m0, v);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  if (i < n) {
    const __mmask16 live = (__mmask16)((1u << (n - i)) - 1u);
    /* dead lanes are -inf; the masked load does not fault past the end */
    const __m512 v = _mm512_mask_loadu_ps(neg_inf, live, x + i);
    m1 = _mm512_max_ps(m1, v);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  if (nan != 0) return NAN;
  /* no NaN: fold the accumulators, then the lanes */
  return _mm512_reduce_max_ps(
      _mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
}
