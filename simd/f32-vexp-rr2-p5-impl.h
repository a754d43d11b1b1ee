/* SPDX-License-Identifier: MIT */
/* y[i] = exp(x[i]), rr2-p5 (f32-exp-rr2-p5-vec.h: x < -0x1.5D589Ep6 -> +0,
 * x > 0x1.62E42Ep6 -> +inf, NaN -> NaN, no subnormal intermediate, no
 * branch on data), written once over the vector vocabulary: a kernel file
 * includes one vec-f32-<isa>.h, f32-exp-rr2-p5-vec.h and this header, then
 * defines its symbol by HS_DEFINE_F32_VEXP. Four independent vectors per
 * iteration hide the FMA chain latency; the tail (n mod VF_LANES) is a
 * masked load and store, so nothing past x[n-1] is read or written. x and
 * y may alias exactly. */
#ifndef HS_F32_VEXP_RR2_P5_IMPL_H
#define HS_F32_VEXP_RR2_P5_IMPL_H

#include "ukernels.h"

static inline void hs_vexp_run(size_t n, const float *x, float *y) {
  size_t i = 0;
  for (; i + 4 * VF_LANES <= n; i += 4 * VF_LANES) {
    const vf x0 = vf_loadu(x + i);
    const vf x1 = vf_loadu(x + i + VF_LANES);
    const vf x2 = vf_loadu(x + i + 2 * VF_LANES);
    const vf x3 = vf_loadu(x + i + 3 * VF_LANES);
    vf_storeu(y + i, hs_vexp_rr2_p5(x0));
    vf_storeu(y + i + VF_LANES, hs_vexp_rr2_p5(x1));
    vf_storeu(y + i + 2 * VF_LANES, hs_vexp_rr2_p5(x2));
    vf_storeu(y + i + 3 * VF_LANES, hs_vexp_rr2_p5(x3));
  }
  for (; i + VF_LANES <= n; i += VF_LANES)
    vf_storeu(y + i, hs_vexp_rr2_p5(vf_loadu(x + i)));
  if (i < n) vf_store_tail(y + i, hs_vexp_rr2_p5(vf_load_tail(x + i, n - i)), n - i);
}

#define HS_DEFINE_F32_VEXP(fn) \
  void fn(size_t n, const float *x, float *y) { hs_vexp_run(n, x, y); }

#endif
