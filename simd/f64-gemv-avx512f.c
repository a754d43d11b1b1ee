/* SPDX-License-Identifier: MIT */
/* f64 matrix-vector product y = A x, AVX-512F: 4 rows at a time share each
 * 8-double load of x (masked last chunk: nothing past a row is read).
 * Error per row: |y_r - y*_r| <= (k/8 + 3) u sum_c |a_rc x_c|, u = 2^-53. */
#include <immintrin.h>

#include "ukernels.h"


HS_ALWAYS_INLINE void rows4(size_t k, const double *a0, const double *a1,
                  const double *a2, const double *a3, const double *x,
                  __m512d *o) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  size_t c = 0;
  for (; c + 8 <= k; c += 8) {
    __m512d xv = _mm512_loadu_pd(x + c);
    s0 = _mm512_fmadd_pd(_mm512_loadu_pd(a0 + c), xv, s0);
    s1 = _mm512_fmadd_pd(_mm512_loadu_pd(a1 + c), xv, s1);
    s2 = _mm512_fmadd_pd(_mm512_loadu_pd(a2 + c), xv, s2);
    s3 = _mm512_fmadd_pd(_mm512_loadu_pd(a3 + c), xv, s3);
  }
  if (c < k) {
    const __mmask8 mt = (__mmask8)((1u << (k - c)) - 1);
    __m512d xv = _mm512_maskz_loadu_pd(mt, x + c);
    s0 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mt, a0 + c), xv, s0);
    s1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mt, a1 + c), xv, s1);
    s2 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mt, a2 + c), xv, s2);
    s3 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(mt, a3 + c), xv, s3);
  }
  o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3;
}

void hs_f64_gemv_ukernel__avx512f(size_t m, size_t k, const double *a,
                                  size_t lda, const double *x, double *y) {
  __m512d o[4];
  size_t r = 0;
  for (; r + 4 <= m; r += 4) {
    const double *ar = a + r * lda;
    rows4(k, ar, ar + lda, ar + 2 * lda, ar + 3 * lda, x, o);
    for (int i = 0; i < 4; i++) y[r + i] = _mm512_reduce_add_pd(o[i]);
  }
  for (; r < m; r++) {
    const double *ar = a + r * lda;
    rows4(k, ar, ar, ar, ar, x, o);
    y[r] = _mm512_reduce_add_pd(o[0]);
  }
}
