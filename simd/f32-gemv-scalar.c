/* SPDX-License-Identifier: MIT */
/* f32 matrix-vector product y = A x, portable C: each row is a 4-chain dot.
 * Error per row: |y_r - y*_r| <= (k/4 + 2) u sum_c |a_rc x_c|, u = 2^-24. */
#include "ukernels.h"

void hs_f32_gemv_ukernel__scalar(size_t m, size_t k, const float *a,
                                 size_t lda, const float *x, float *y) {
  for (size_t r = 0; r < m; r++) {
    const float *ar = a + r * lda;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t c = 0;
    for (; c + 4 <= k; c += 4) {
      s0 += ar[c] * x[c];
      s1 += ar[c + 1] * x[c + 1];
      s2 += ar[c + 2] * x[c + 2];
      s3 += ar[c + 3] * x[c + 3];
    }
    for (; c < k; c++) s0 += ar[c] * x[c];
    y[r] = (s0 + s1) + (s2 + s3);
  }
}
