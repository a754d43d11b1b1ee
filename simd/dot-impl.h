/* SPDX-License-Identifier: MIT */
/* Dot product written once over the vector vocabulary, for both
 * precisions (vec-f32-<isa>.h, or vec-f64-<isa>.h then vec-f64-as-vf.h,
 * included first): 4 accumulators of VF_LANES lanes hide the latency of
 * vf_fma, the tail is one zero-filled vector. With a fused vf_fma each
 * lane adds n/(4 VF_LANES) products, then a 2-level tree of the registers
 * and log2(VF_LANES) levels of vf_hsum:
 *   |dot - dot*| <= (n/(4 VF_LANES) + 2 + log2 VF_LANES) u sum_i |a_i b_i|,
 * u = 2^-24 (f32) or 2^-53 (f64); without a fused one (wasm128) each
 * product rounds once more: + u. */
#ifndef HS_DOT_IMPL_H
#define HS_DOT_IMPL_H

#ifndef HS_VF_T
#define HS_VF_T float
#endif

static inline HS_VF_T hs_dot_impl(size_t n, const HS_VF_T *a, const HS_VF_T *b) {
  vf s0 = vf_zero(), s1 = s0, s2 = s0, s3 = s0;
  size_t i = 0;
  for (; i + 4 * VF_LANES <= n; i += 4 * VF_LANES) {
    s0 = vf_fma(vf_loadu(a + i), vf_loadu(b + i), s0);
    s1 = vf_fma(vf_loadu(a + i + VF_LANES), vf_loadu(b + i + VF_LANES), s1);
    s2 = vf_fma(vf_loadu(a + i + 2 * VF_LANES), vf_loadu(b + i + 2 * VF_LANES), s2);
    s3 = vf_fma(vf_loadu(a + i + 3 * VF_LANES), vf_loadu(b + i + 3 * VF_LANES), s3);
  }
  for (; i + VF_LANES <= n; i += VF_LANES)
    s0 = vf_fma(vf_loadu(a + i), vf_loadu(b + i), s0);
  /* lanes past n are 0 in both: they add 0 */
  if (i < n) s1 = vf_fma(vf_load_tail(a + i, n - i), vf_load_tail(b + i, n - i), s1);
  return vf_hsum(vf_add(vf_add(s0, s1), vf_add(s2, s3)));
}

#endif
