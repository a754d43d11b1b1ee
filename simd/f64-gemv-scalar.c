/* SPDX-License-Identifier: MIT */
/* f64 matrix-vector product y = A x, portable C: each row a 4-chain dot.
 * Error per row: |y_r - y*_r| <= (k/4 + 2) u sum_c |a_rc x_c|, u = 2^-53. */
#include "ukernels.h"

void hs_f64_gemv_ukernel__scalar(size_t m, size_t k, const double *a,
                                 size_t lda, const double *x, double *y) {
  for (size_t r = 0; r < m; r++) {
    const double *ar = a + r * lda;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
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
