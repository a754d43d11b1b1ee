/* SPDX-License-Identifier: MIT */
/* max of x[0..n), written once over the vector vocabulary (vec-f32-*.h,
 * included first): 4 accumulators of VF_LANES lanes. Exact (max never
 * rounds). n == 0 gives -INFINITY; a NaN anywhere gives a quiet NaN
 * (NAN): vf_max drops a NaN in its first operand, so NaNs are tracked
 * apart and checked once at the end. -inf and +inf take part like any
 * other value. When the maximum is zero, its sign is unspecified. The tail
 * (n mod VF_LANES) reloads the last VF_LANES elements, so nothing outside
 * x[0..n) is read; n < VF_LANES is a plain loop. */
#ifndef HS_F32_RMAX_IMPL_H
#define HS_F32_RMAX_IMPL_H

#include <math.h>

static inline float hs_f32_rmax_impl(size_t n, const float *x) {
  if (n < VF_LANES) {
    float m = -INFINITY;
    int nan = 0;
    for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m, nan |= x[i] != x[i];
    return nan ? NAN : m;
  }
  const vf neg_inf = vf_set1(-INFINITY);
  vf m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  /* set in a lane once a NaN has been seen there */
  vmask nan = vf_isnan(neg_inf);
  size_t i = 0;
  for (; i + 4 * VF_LANES <= n; i += 4 * VF_LANES) {
    const vf x0 = vf_loadu(x + i);
    const vf x1 = vf_loadu(x + i + VF_LANES);
    const vf x2 = vf_loadu(x + i + 2 * VF_LANES);
    const vf x3 = vf_loadu(x + i + 3 * VF_LANES);
    /* m_j = max of the non-NaN elements of its lanes so far */
    m0 = vf_max(x0, m0);
    m1 = vf_max(x1, m1);
    m2 = vf_max(x2, m2);
    m3 = vf_max(x3, m3);
    nan = vmask_or(nan, vmask_or(vmask_or(vf_isnan(x0), vf_isnan(x1)),
                                 vmask_or(vf_isnan(x2), vf_isnan(x3))));
  }
  for (; i + VF_LANES <= n; i += VF_LANES) {
    const vf v = vf_loadu(x + i);
    m0 = vf_max(v, m0);
    nan = vmask_or(nan, vf_isnan(v));
  }
  if (i < n) {
    /* the last VF_LANES elements again: max does not mind repeats */
    const vf v = vf_loadu(x + n - VF_LANES);
    m1 = vf_max(v, m1);
    nan = vmask_or(nan, vf_isnan(v));
  }
  if (vmask_any(nan)) return NAN;
  return vf_hmax(vf_max(vf_max(m0, m1), vf_max(m2, m3)));
}

#endif
