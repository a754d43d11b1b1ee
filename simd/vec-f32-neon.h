/* SPDX-License-Identifier: MIT */
/* The f32 vector vocabulary, AArch64 Advanced SIMD (NEON): 4 lanes of
 * float in a float32x4_t. The names and their meaning are listed in
 * vec-f32-avx2.h; where NEON's own instruction differs from that meaning
 * the vocabulary keeps the meaning, so one algorithm gives the same
 * results on every ISA:
 *   vf_max(a, b) / vf_min(a, b) are x86's maxps/minps, a > b ? a : b
 *     (a < b ? a : b): a NaN in either operand gives b, and of +0 and -0
 *     the second. FMAX/FMIN return NaN for a NaN in either, FMAXNM/FMINNM
 *     the number: neither is that, so it is a compare and a select.
 *   vf_fma(a, b, c) is a*b + c rounded once (FMLA, always fused).
 *   vf_hsum / vf_hmax reduce in a fixed order: (l0 + l2) + (l1 + l3).
 *   compares are false when either lane is NaN; vf_isnan is true there.
 * Advanced SIMD is part of every AArch64 CPU: the kernels built with this
 * header need no flag and no detection. */
/* The same guard in every vec-f32-*.h: a file includes exactly one. */
#ifndef HS_VEC_F32_H
#define HS_VEC_F32_H

#if !defined(__aarch64__) || !defined(__ARM_NEON)
#error "vec-f32-neon.h needs an AArch64 target"
#endif

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "ukernels.h"

typedef float32x4_t vf;
typedef uint32x4_t vmask; /* all-ones or all-zeros per 32-bit lane */
#define VF_LANES 4

HS_ALWAYS_INLINE vf vf_zero(void) { return vdupq_n_f32(0.0f); }
HS_ALWAYS_INLINE vf vf_set1(float v) { return vdupq_n_f32(v); }
/* v in lane 0, +0 in the others */
HS_ALWAYS_INLINE vf vf_first(float v) { return vsetq_lane_f32(v, vdupq_n_f32(0.0f), 0); }
HS_ALWAYS_INLINE vf vf_loadu(const float *p) { return vld1q_f32(p); }
/* *p in every lane */
HS_ALWAYS_INLINE vf vf_load1(const float *p) { return vld1q_dup_f32(p); }
HS_ALWAYS_INLINE void vf_storeu(float *p, vf v) { vst1q_f32(p, v); }

/* n < VF_LANES floats, the other lanes +0; nothing past p[n-1] is read */
HS_ALWAYS_INLINE vf vf_load_tail(const float *p, size_t n) {
  const float32x2_t z = vdup_n_f32(0.0f);
  switch (n) {
    case 1: return vld1q_lane_f32(p, vdupq_n_f32(0.0f), 0);
    case 2: return vcombine_f32(vld1_f32(p), z);
    case 3: return vcombine_f32(vld1_f32(p), vld1_lane_f32(p + 2, z, 0));
    default: return vdupq_n_f32(0.0f);
  }
}
/* the first n < VF_LANES lanes; nothing past p[n-1] is written */
HS_ALWAYS_INLINE void vf_store_tail(float *p, vf v, size_t n) {
  if (n & 2) vst1_f32(p, vget_low_f32(v));
  if (n == 1) vst1q_lane_f32(p, v, 0);
  if (n == 3) vst1q_lane_f32(p + 2, v, 2);
}

HS_ALWAYS_INLINE vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
HS_ALWAYS_INLINE vf vf_sub(vf a, vf b) { return vsubq_f32(a, b); }
HS_ALWAYS_INLINE vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
HS_ALWAYS_INLINE vf vf_max(vf a, vf b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
HS_ALWAYS_INLINE vf vf_min(vf a, vf b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
HS_ALWAYS_INLINE vf vf_fma(vf a, vf b, vf c) { return vfmaq_f32(c, a, b); }

HS_ALWAYS_INLINE float vf_hsum(vf v) {
  const float32x2_t h = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(h, 0) + vget_lane_f32(h, 1);
}
HS_ALWAYS_INLINE void vf_hsum4(vf a, vf b, vf c, vf d, float *r) {
  r[0] = vf_hsum(a), r[1] = vf_hsum(b), r[2] = vf_hsum(c), r[3] = vf_hsum(d);
}
HS_ALWAYS_INLINE float vf_hmax(vf v) {
  const float32x2_t lo = vget_low_f32(v), hi = vget_high_f32(v);
  const float32x2_t h = vbsl_f32(vcgt_f32(lo, hi), lo, hi);
  const float a = vget_lane_f32(h, 0), b = vget_lane_f32(h, 1);
  return a > b ? a : b;
}

HS_ALWAYS_INLINE vmask vf_cmpgt(vf a, vf b) { return vcgtq_f32(a, b); }
HS_ALWAYS_INLINE vmask vf_cmplt(vf a, vf b) { return vcltq_f32(a, b); }
HS_ALWAYS_INLINE vmask vf_cmple(vf a, vf b) { return vcleq_f32(a, b); }
HS_ALWAYS_INLINE vmask vf_cmpeq(vf a, vf b) { return vceqq_f32(a, b); }
HS_ALWAYS_INLINE vmask vf_isnan(vf a) { return vmvnq_u32(vceqq_f32(a, a)); }
HS_ALWAYS_INLINE vf vf_select(vmask m, vf a_if_true, vf b_else) {
  return vbslq_f32(m, a_if_true, b_else);
}
HS_ALWAYS_INLINE vmask vmask_or(vmask a, vmask b) { return vorrq_u32(a, b); }
HS_ALWAYS_INLINE vmask vf_isunord(vf a, vf b) { return vmask_or(vf_isnan(a), vf_isnan(b)); }
HS_ALWAYS_INLINE int vmask_any(vmask m) { return vmaxvq_u32(m) != 0; }
HS_ALWAYS_INLINE unsigned vmask_bits(vmask m) {
  static const uint32_t bit[4] = {1, 2, 4, 8};
  return vaddvq_u32(vandq_u32(m, vld1q_u32(bit)));
}
/* lanes 0 .. n-1 (n <= VF_LANES) */
HS_ALWAYS_INLINE vmask vmask_first(size_t n) {
  static const uint32_t lane[4] = {0, 1, 2, 3};
  return vcltq_u32(vld1q_u32(lane), vdupq_n_u32((uint32_t)n));
}
/* the lanes of m from p, +0 in the others, which are not read */
HS_ALWAYS_INLINE vf vf_load_masked(const float *p, vmask m) {
  const unsigned b = vmask_bits(m);
  vf r = vdupq_n_f32(0.0f);
  if (b & 1) r = vld1q_lane_f32(p, r, 0);
  if (b & 2) r = vld1q_lane_f32(p + 1, r, 1);
  if (b & 4) r = vld1q_lane_f32(p + 2, r, 2);
  if (b & 8) r = vld1q_lane_f32(p + 3, r, 3);
  return r;
}
HS_ALWAYS_INLINE vf vf_load_masked_or(const float *p, vmask m, vf fill) {
  return vf_select(m, vf_load_masked(p, m), fill);
}

/* p * 2^k, k the integer in the low mantissa bits of k_biased (k + 1.5 *
 * 2^23, the magic-bias rounding of the rr2 exp): k << 23 added to p's bits,
 * exact while the result's exponent field stays in [1, 254]. */
HS_ALWAYS_INLINE vf vf_exp2_bits(vf p, vf k_biased) {
  const int32x4_t ks = vshlq_n_s32(vreinterpretq_s32_f32(k_biased), 23);
  return vreinterpretq_f32_s32(vaddq_s32(vreinterpretq_s32_f32(p), ks));
}
HS_ALWAYS_INLINE vf vf_exp2_unless_lt(vf x, vf cut, vf p, vf kb, vf k) {
  (void)k;
  return vf_select(vf_cmpgt(cut, x), vf_zero(), vf_exp2_bits(p, kb));
}

/* int32 lanes (positions), wrapping as on x86 */
typedef int32x4_t vi;
HS_ALWAYS_INLINE vi vi_iota(int32_t base) {
  static const int32_t lane[4] = {0, 1, 2, 3};
  return vaddq_s32(vdupq_n_s32(base), vld1q_s32(lane));
}
HS_ALWAYS_INLINE vi vi_set1(int32_t x) { return vdupq_n_s32(x); }
HS_ALWAYS_INLINE vi vi_add(vi a, vi b) { return vaddq_s32(a, b); }
HS_ALWAYS_INLINE vf vf_from_vi(vi a) { return vcvtq_f32_s32(a); }

#define VF_REGS 32
HS_ALWAYS_INLINE vf vf_mul_flush(vf e, vf thr, vf r) {
  return vmulq_f32(vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(e), vcltq_f32(e, thr))), r);
}
typedef float64x2_t vfd;
HS_ALWAYS_INLINE vfd vfd_zero(void) { return vdupq_n_f64(0.0); }
HS_ALWAYS_INLINE vfd vfd_add(vfd s, vf a) {
  s = vaddq_f64(s, vcvt_f64_f32(vget_low_f32(a)));
  return vaddq_f64(s, vcvt_high_f64_f32(a));
}
HS_ALWAYS_INLINE double vfd_hsum(vfd s) { return vgetq_lane_f64(s, 0) + vgetq_lane_f64(s, 1); }

#endif
