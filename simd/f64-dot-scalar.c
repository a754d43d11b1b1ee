/* SPDX-License-Identifier: MIT */
/* f64 dot product, portable C, 4 accumulators.
 * Error: |dot - dot*| <= (n/4 + 2) u sum_i |a_i b_i|, u = 2^-53. */
#include "ukernels.h"

double hs_f64_dot_ukernel__scalar(size_t n, const double *a, const double *b) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  /* 4 independent chains */
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; i++) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}
