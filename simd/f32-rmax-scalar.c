/* SPDX-License-Identifier: MIT */
/* max of x[0..n), portable C, 2 accumulators. Exact (max never rounds).
 * n == 0 gives -INFINITY; a NaN anywhere gives a quiet NaN (NAN), checked
 * once at the end rather than by a branch per element; -inf and +inf take
 * part like any other value. When the maximum is zero, its sign is
 * unspecified (+0 and -0 compare equal). */
#include <math.h>

#include "ukernels.h"

float hs_f32_rmax_ukernel__scalar(size_t n, const float *x) {
  float m0 = -INFINITY, m1 = -INFINITY;
  int nan = 0;
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const float a = x[i], b = x[i + 1];
    /* m0, m1 = max of the non-NaN elements seen so far */
    m0 = a > m0 ? a : m0;
    m1 = b > m1 ? b : m1;
    /* nan != 0 iff a NaN was seen */
    nan |= (a != a) | (b != b);
  }
  if (i < n) {
    const float a = x[i];
    m0 = a > m0 ? a : m0;
    nan |= a != a;
  }
  if (nan) return NAN;
  return m1 > m0 ? m1 : m0;
}
