/* SPDX-License-Identifier: MIT */
/* The f64 vector vocabulary, AArch64 Advanced SIMD (NEON): 2 lanes of
 * double in a float64x2_t. The names and their meaning are listed in
 * vec-f64-avx2.h; vd_max / vd_min keep x86's order (b when either is
 * NaN) by a compare and a select, as vec-f32-neon.h does; vd_fma is FMLA,
 * rounded once. vd_spread takes w in {1, 2} (w <= VD_LANES).
 * vd_pow2_bits(vn): the double whose bits are those of vn shifted left by
 * 52 (2^n when vn's low mantissa bits hold n + 1023: the rr2 exp's magic
 * bias). */
#ifndef HS_VEC_F64_H
#define HS_VEC_F64_H

#if !defined(__aarch64__) || !defined(__ARM_NEON)
#error "vec-f64-neon.h needs an AArch64 target"
#endif

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "ukernels.h"

typedef float64x2_t vd;
typedef uint64x2_t vdmask;
#define VD_LANES 2

HS_ALWAYS_INLINE vd vd_zero(void) { return vdupq_n_f64(0.0); }
HS_ALWAYS_INLINE vd vd_set1(double x) { return vdupq_n_f64(x); }
HS_ALWAYS_INLINE vd vd_first(double x) { return vsetq_lane_f64(x, vdupq_n_f64(0.0), 0); }
HS_ALWAYS_INLINE vd vd_iota(double x) {
  static const double lane[2] = {0, 1};
  return vaddq_f64(vdupq_n_f64(x), vld1q_f64(lane));
}
/* 1 <= n <= VD_LANES lanes; nothing past p[n-1] read or written */
HS_ALWAYS_INLINE vd vd_load_tail(const double *p, size_t n) {
  return n >= 2 ? vld1q_f64(p) : vld1q_lane_f64(p, vdupq_n_f64(0.0), 0);
}
HS_ALWAYS_INLINE void vd_store_tail(double *p, vd x, size_t n) {
  if (n >= 2)
    vst1q_f64(p, x);
  else
    vst1q_lane_f64(p, x, 0);
}
HS_ALWAYS_INLINE vdmask vdmask_first(size_t n) {
  return vcombine_u64(vdup_n_u64(n > 0 ? ~(uint64_t)0 : 0), vdup_n_u64(n > 1 ? ~(uint64_t)0 : 0));
}
HS_ALWAYS_INLINE vd vd_load_masked(const double *p, vdmask m) {
  vd r = vdupq_n_f64(0.0);
  if (vgetq_lane_u64(m, 0)) r = vld1q_lane_f64(p, r, 0);
  if (vgetq_lane_u64(m, 1)) r = vld1q_lane_f64(p + 1, r, 1);
  return r;
}

HS_ALWAYS_INLINE vd vd_add(vd a, vd b) { return vaddq_f64(a, b); }
HS_ALWAYS_INLINE vd vd_sub(vd a, vd b) { return vsubq_f64(a, b); }
HS_ALWAYS_INLINE vd vd_mul(vd a, vd b) { return vmulq_f64(a, b); }
HS_ALWAYS_INLINE vd vd_abs(vd a) { return vabsq_f64(a); }
HS_ALWAYS_INLINE vd vd_max(vd a, vd b) { return vbslq_f64(vcgtq_f64(a, b), a, b); }
HS_ALWAYS_INLINE vd vd_min(vd a, vd b) { return vbslq_f64(vcltq_f64(a, b), a, b); }
HS_ALWAYS_INLINE vd vd_loadu(const double *p) { return vld1q_f64(p); }
HS_ALWAYS_INLINE void vd_storeu(double *p, vd x) { vst1q_f64(p, x); }
HS_ALWAYS_INLINE vd vd_fma(vd a, vd b, vd c) { return vfmaq_f64(c, a, b); }

HS_ALWAYS_INLINE vdmask vd_cmpgt(vd a, vd b) { return vcgtq_f64(a, b); }
HS_ALWAYS_INLINE vdmask vd_cmpge(vd a, vd b) { return vcgeq_f64(a, b); }
HS_ALWAYS_INLINE vdmask vd_cmple(vd a, vd b) { return vcleq_f64(a, b); }
HS_ALWAYS_INLINE vdmask vd_cmplt(vd a, vd b) { return vcltq_f64(a, b); }
HS_ALWAYS_INLINE vd vd_select(vdmask m, vd a, vd b) { return vbslq_f64(m, a, b); }
HS_ALWAYS_INLINE unsigned vdmask_bits(vdmask m) {
  return (unsigned)(vgetq_lane_u64(m, 0) & 1) | (unsigned)(vgetq_lane_u64(m, 1) & 1) << 1;
}
HS_ALWAYS_INLINE vdmask vd_cmpeq(vd a, vd b) { return vceqq_f64(a, b); }
HS_ALWAYS_INLINE vdmask vd_isnan(vd a) {
  return veorq_u64(vceqq_f64(a, a), vdupq_n_u64(~(uint64_t)0));
}
HS_ALWAYS_INLINE vdmask vdmask_or(vdmask a, vdmask b) { return vorrq_u64(a, b); }
HS_ALWAYS_INLINE vd vd_spread(vd e, int w, int part) {
  if (w == 1) return e;
  return part ? vdupq_laneq_f64(e, 1) : vdupq_laneq_f64(e, 0);
}
/* horizontal: lane 0 then lane 1 */
HS_ALWAYS_INLINE double vd_hmax(vd a) {
  const double x = vgetq_lane_f64(a, 0), y = vgetq_lane_f64(a, 1);
  return x > y ? x : y;
}
HS_ALWAYS_INLINE double vd_hsum(vd a) { return vgetq_lane_f64(a, 0) + vgetq_lane_f64(a, 1); }
HS_ALWAYS_INLINE void vd_hsum4(vd a, vd b, vd c, vd d, double *r) {
  r[0] = vd_hsum(a), r[1] = vd_hsum(b), r[2] = vd_hsum(c), r[3] = vd_hsum(d);
}
HS_ALWAYS_INLINE vd vd_pow2_bits(vd vn) {
  return vreinterpretq_f64_u64(vshlq_n_u64(vreinterpretq_u64_f64(vn), 52));
}

HS_ALWAYS_INLINE vd vd_mul_unless_lt(vd x, vd cut, vd a, vd b) {
  return vreinterpretq_f64_u64(
      vbicq_u64(vreinterpretq_u64_f64(vmulq_f64(a, b)), vcltq_f64(x, cut)));
}

#endif
