/* SPDX-License-Identifier: MIT */
/* max of x[0..n), written once over the vector vocabulary (vec-f32-*.h,
 * included first): 4 accumulators of VF_LANES lanes. Exact (max never
 * rounds). n == 0 gives -INFINITY; a NaN anywhere gives a quiet NaN
 * (NAN): vf_max(m, x) drops a NaN in x only until the next step, so NaNs
 * are tracked apart, by one unordered compare per pair of vectors, and
 * checked once at the end. -inf and +inf take part like any other value.
 * When the maximum is zero, its sign is unspecified. The tail (n mod
 * VF_LANES) is one masked load with -inf in the lanes past n, which are
 * not read. */
#ifndef HS_F32_RMAX_IMPL_H
#define HS_F32_RMAX_IMPL_H

#include <math.h>

static inline float hs_f32_rmax_impl(size_t n, const float *x) {
  const vf neg_inf = vf_set1(-INFINITY);
  vf m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  /* set in a lane once a NaN has been seen there */
  vmask nan = vmask_first(0);
  size_t i = 0;
  for (; i + 4 * VF_LANES <= n; i += 4 * VF_LANES) {
    const vf x0 = vf_loadu(x + i);
    const vf x1 = vf_loadu(x + i + VF_LANES);
    const vf x2 = vf_loadu(x + i + 2 * VF_LANES);
    const vf x3 = vf_loadu(x + i + 3 * VF_LANES);
    /* m_j = max of the non-NaN elements of its lanes so far */
    m0 = vf_max(m0, x0);
    m1 = vf_max(m1, x1);
    m2 = vf_max(m2, x2);
    m3 = vf_max(m3, x3);
    nan = vmask_or(nan, vf_isunord(x0, x1));
    nan = vmask_or(nan, vf_isunord(x2, x3));
  }
  for (; i + VF_LANES <= n; i += VF_LANES) {
    const vf v = vf_loadu(x + i);
    m0 = vf_max(m0, v);
    nan = vmask_or(nan, vf_isnan(v));
  }
  if (i < n) {
    const vf v = vf_load_masked_or(x + i, vmask_first(n - i), neg_inf);
    m1 = vf_max(m1, v);
    nan = vmask_or(nan, vf_isnan(v));
  }
  if (vmask_any(nan)) return NAN;
  return vf_hmax(vf_max(vf_max(m0, m1), vf_max(m2, m3)));
}

#endif
