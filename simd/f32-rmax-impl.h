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

/* score s = x * inv_tau, or x when the caller knows inv_tau == 1 */
HS_ALWAYS_INLINE vf hs_f32_score(vf v, vf vinv, int scaled) {
  return scaled ? vf_mul(v, vinv) : v;
}

/* max of the scores x_i * inv_tau (scaled) or x_i; *has_nan = whether any
 * is NaN (softmax's first pass is this too) */
HS_ALWAYS_INLINE float hs_f32_max_scores_impl(size_t n, const float *x, float inv_tau,
                                              int scaled, int *has_nan) {
  const vf vinv = vf_set1(inv_tau), neg_inf = vf_set1(-INFINITY);
  vf m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  /* set in a lane once a NaN has been seen there */
  vmask nan = vmask_first(0);
  size_t i = 0;
  for (; i + 4 * VF_LANES <= n; i += 4 * VF_LANES) {
    const vf s0 = hs_f32_score(vf_loadu(x + i), vinv, scaled);
    const vf s1 = hs_f32_score(vf_loadu(x + i + VF_LANES), vinv, scaled);
    const vf s2 = hs_f32_score(vf_loadu(x + i + 2 * VF_LANES), vinv, scaled);
    const vf s3 = hs_f32_score(vf_loadu(x + i + 3 * VF_LANES), vinv, scaled);
    /* m_j = max of the non-NaN scores of its lanes so far */
    m0 = vf_max(m0, s0);
    m1 = vf_max(m1, s1);
    m2 = vf_max(m2, s2);
    m3 = vf_max(m3, s3);
    nan = vmask_or(nan, vf_isunord(s0, s1));
    nan = vmask_or(nan, vf_isunord(s2, s3));
  }
  for (; i + VF_LANES <= n; i += VF_LANES) {
    const vf s = hs_f32_score(vf_loadu(x + i), vinv, scaled);
    m0 = vf_max(m0, s);
    nan = vmask_or(nan, vf_isnan(s));
  }
  if (i < n) {
    const vmask live = vmask_first(n - i);
    /* dead lanes are -inf, which changes nothing (scaled, after the
     * multiply: the score of a loaded 0 may be NaN, 0 * inf) */
    const vf s = scaled ? vf_select(live, vf_mul(vf_load_masked(x + i, live), vinv), neg_inf)
                        : vf_load_masked_or(x + i, live, neg_inf);
    m1 = vf_max(m1, s);
    nan = vmask_or(nan, vf_isnan(s));
  }
  *has_nan = vmask_any(nan);
  return vf_hmax(vf_max(vf_max(m0, m1), vf_max(m2, m3)));
}

static inline float hs_f32_rmax_impl(size_t n, const float *x) {
  int has_nan;
  const float m = hs_f32_max_scores_impl(n, x, 1.0f, 0, &has_nan);
  return has_nan ? NAN : m;
}

#endif
