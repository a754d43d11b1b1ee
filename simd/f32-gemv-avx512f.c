/* SPDX-License-Identifier: MIT */
/* f32 matrix-vector product y = A x, AVX-512F: 4 rows at a time share each
 * 16-float load of x (masked last chunk: nothing past a row is read); each
 * row's 16 lanes are reduced at the end.
 * Error per row: |y_r - y*_r| <= (k/16 + 4) u sum_c |a_rc x_c|, u = 2^-24. */
#include <immintrin.h>

#include "ukernels.h"


HS_ALWAYS_INLINE void rows4(size_t k, const float *a0, const float *a1, const float *a2,
                  const float *a3, const float *x, __m512 *o) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  size_t c = 0;
  for (; c + 16 <= k; c += 16) {
    __m512 xv = _mm512_loadu_ps(x + c);
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a0 + c), xv, s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a1 + c), xv, s1);
    s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a2 + c), xv, s2);
    s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a3 + c), xv, s3);
  }
  if (c < k) {
    const __mmask16 mt = (__mmask16)((1u << (k - c)) - 1);
    __m512 xv = _mm512_maskz_loadu_ps(mt, x + c);
    s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mt, a0 + c), xv, s0);
    s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mt, a1 + c), xv, s1);
    s2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mt, a2 + c), xv, s2);
    s3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mt, a3 + c), xv, s3);
  }
  o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3;
}

void hs_f32_gemv_ukernel__avx512f(size_t m, size_t k, const float *a,
                                  size_t lda, const float *x, float *y) {
  __m512 o[4];
  size_t r = 0;
  for (; r + 4 <= m; r += 4) {
    const float *ar = a + r * lda;
    rows4(k, ar, ar + lda, ar + 2 * lda, ar + 3 * lda, x, o);
    y[r] = _mm512_reduce_add_ps(o[0]);
    y[r + 1] = _mm512_reduce_add_ps(o[1]);
    y[r + 2] = _mm512_reduce_add_ps(o[2]);
    y[r + 3] = _mm512_reduce_add_ps(o[3]);
  }
  for (; r < m; r++) {
    /* one row at a time: the same chunks, rows 1..3 unused */
    const float *ar = a + r * lda;
    rows4(k, ar, ar, ar, ar, x, o);
    y[r] = _mm512_reduce_add_ps(o[0]);
  }
}
