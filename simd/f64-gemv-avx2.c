/* SPDX-License-Identifier: MIT */
/* f64 matrix-vector product y = A x, AVX2+FMA: 4 rows at a time share each
 * 4-double load of x (masked last chunk: nothing past a row is read); the
 * four row sums are reduced together (two hadds, one lane fold).
 * Error per row: |y_r - y*_r| <= (k/4 + 3) u sum_c |a_rc x_c|, u = 2^-53. */
#include <immintrin.h>

#include "ukernels.h"


/* [sum of row r0, r1, r2, r3] */
HS_ALWAYS_INLINE __m256d rows4(size_t k, const double *a0, const double *a1,
                     const double *a2, const double *a3, const double *x,
                     __m256i mt) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  size_t c = 0;
  for (; c + 4 <= k; c += 4) {
    __m256d xv = _mm256_loadu_pd(x + c);
    s0 = _mm256_fmadd_pd(_mm256_loadu_pd(a0 + c), xv, s0);
    s1 = _mm256_fmadd_pd(_mm256_loadu_pd(a1 + c), xv, s1);
    s2 = _mm256_fmadd_pd(_mm256_loadu_pd(a2 + c), xv, s2);
    s3 = _mm256_fmadd_pd(_mm256_loadu_pd(a3 + c), xv, s3);
  }
  if (c < k) {
    __m256d xv = _mm256_maskload_pd(x + c, mt);
    s0 = _mm256_fmadd_pd(_mm256_maskload_pd(a0 + c, mt), xv, s0);
    s1 = _mm256_fmadd_pd(_mm256_maskload_pd(a1 + c, mt), xv, s1);
    s2 = _mm256_fmadd_pd(_mm256_maskload_pd(a2 + c, mt), xv, s2);
    s3 = _mm256_fmadd_pd(_mm256_maskload_pd(a3 + c, mt), xv, s3);
  }
  /* h01 = [s0 01, s1 01, s0 23, s1 23], h23 likewise */
  __m256d h01 = _mm256_hadd_pd(s0, s1), h23 = _mm256_hadd_pd(s2, s3);
  return _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                       _mm256_permute2f128_pd(h01, h23, 0x31));
}

void hs_f64_gemv_ukernel__avx2(size_t m, size_t k, const double *a,
                               size_t lda, const double *x, double *y) {
  const __m256i mt = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(k % 4)),
                                        _mm256_setr_epi64x(0, 1, 2, 3));
  size_t r = 0;
  for (; r + 4 <= m; r += 4) {
    const double *ar = a + r * lda;
    _mm256_storeu_pd(y + r, rows4(k, ar, ar + lda, ar + 2 * lda, ar + 3 * lda, x, mt));
  }
  if (r < m) {
    /* 1..3 rows left: repeat the last row, keep only the real results */
    const double *ar = a + r * lda, *al = a + (m - 1) * lda;
    double t[4];
    _mm256_storeu_pd(t, rows4(k, ar, r + 1 < m ? ar + lda : al,
                              r + 2 < m ? ar + 2 * lda : al, al, x, mt));
    for (size_t i = 0; r + i < m; i++) y[r + i] = t[i];
  }
}
