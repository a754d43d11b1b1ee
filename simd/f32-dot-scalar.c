/* SPDX-License-Identifier: MIT */
/* f32 dot product, portable C, 4 accumulators.
 * Error: |dot - dot*| <= (n/4 + 2) u sum_i |a_i b_i|, u = 2^-24 (each
 * accumulator adds n/4 products, then a 2-level tree). */
#include "ukernels.h"

float hs_f32_dot_ukernel__scalar(size_t n, const float *a, const float *b) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  /* 4 independent chains: latency hidden, error per chain ~n/4 */
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; i++) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}
