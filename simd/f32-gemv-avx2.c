/* SPDX-License-Identifier: MIT */
/* f32 matrix-vector product y = A x, AVX2+FMA: 4 rows at a time share each
 * load of x; the 4 lane-wise row sums are reduced together by two hadds
 * and one lane fold, and stored as 4 results at once. k is split into
 * 8-float chunks with a masked last chunk (nothing past a row is read).
 * Error per row: |y_r - y*_r| <= (k/8 + 4) u sum_c |a_rc x_c|, u = 2^-24. */
#include <immintrin.h>

#include "ukernels.h"


/* Lane-wise partial sums of rows r0..r3 (8 lanes each). */
HS_ALWAYS_INLINE void rows4(size_t k, const float *a0, const float *a1, const float *a2,
                  const float *a3, const float *x, __m256i mt, __m256 *o) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  size_t c = 0;
  for (; c + 8 <= k; c += 8) {
    __m256 xv = _mm256_loadu_ps(x + c);
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + c), xv, s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + c), xv, s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a2 + c), xv, s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a3 + c), xv, s3);
  }
  if (c < k) {
    __m256 xv = _mm256_maskload_ps(x + c, mt);
    s0 = _mm256_fmadd_ps(_mm256_maskload_ps(a0 + c, mt), xv, s0);
    s1 = _mm256_fmadd_ps(_mm256_maskload_ps(a1 + c, mt), xv, s1);
    s2 = _mm256_fmadd_ps(_mm256_maskload_ps(a2 + c, mt), xv, s2);
    s3 = _mm256_fmadd_ps(_mm256_maskload_ps(a3 + c, mt), xv, s3);
  }
  o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3;
}

/* [sum o0, sum o1, sum o2, sum o3] */
HS_ALWAYS_INLINE __m128 reduce4(const __m256 *o) {
  __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(o[0], o[1]), _mm256_hadd_ps(o[2], o[3]));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

void hs_f32_gemv_ukernel__avx2(size_t m, size_t k, const float *a, size_t lda,
                               const float *x, float *y) {
  const __m256i mt = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(k % 8)),
                                        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256 o[4];
  size_t r = 0;
  for (; r + 4 <= m; r += 4) {
    const float *ar = a + r * lda;
    rows4(k, ar, ar + lda, ar + 2 * lda, ar + 3 * lda, x, mt, o);
    _mm_storeu_ps(y + r, reduce4(o));
  }
  if (r < m) {
    /* 1..3 rows left: repeat the last row, keep only the real results */
    const float *ar = a + r * lda, *al = a + (m - 1) * lda;
    rows4(k, ar, r + 1 < m ? ar + lda : al, r + 2 < m ? ar + 2 * lda : al, al, x, mt, o);
    float t[4];
    _mm_storeu_ps(t, reduce4(o));
    for (size_t i = 0; r + i < m; i++) y[r + i] = t[i];
  }
}
