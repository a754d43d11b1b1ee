/* SPDX-License-Identifier: MIT */
/* exp(x) for one float in portable C: rr2 range reduction, degree-5
 * polynomial, 2^k added into the exponent bits. Max error 2.5 ULP over the
 * whole normal range (measured on every float: 2.26 ULP; without FMA each
 * step rounds separately, hence more than the 2 ULP of the FMA versions).
 *
 * Shared by the scalar kernels (f32-vexp-scalar-rr2-p5.c,
 * f32-softmax-scalar-rr2-p5.c); it is the algorithm of the vector exp
 * (f32-exp-rr2-p5-vec.h) with the same constants (f32-exp-rr2-p5-consts.h),
 * written without FMA so that it runs on any C11 target and is an honest
 * scalar baseline rather than a libm call. Every name is hs_... static
 * inline.
 *
 * Range (exact cutoffs, the same in every ISA):
 *   x <  HS_EXPF_LO_CUT = -0x1.5D589Ep6 (-87.336540) -> +0: below it the
 *        correctly rounded exp is below FLT_MIN; at it exp(x) is FLT_MIN
 *        plus 38 ULP, so a normal result never rounds into the subnormals;
 *   x >  HS_EXPF_HI_CUT =  0x1.62E42Ep6 (88.722832) -> +inf (the next float
 *        up already rounds to +inf); +inf -> +inf; -inf -> +0;
 *   NaN -> NaN; |x| < 2^-60 (including subnormal x) is treated as 0 and gives
 *        exactly 1, as the correctly rounded exp does.
 * No intermediate is ever subnormal, so time does not depend on x. */
#ifndef HS_F32_EXP_SCALAR_RR2_P5_H
#define HS_F32_EXP_SCALAR_RR2_P5_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "f32-exp-rr2-p5-consts.h"

static inline uint32_t hs_f32_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float hs_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* The common core. xc must lie in [HS_EXPF_LO_CUT, HS_EXPF_HI_CUT] (or be
 * NaN, which gives an unspecified value). Without FMA: ln2_hi has 15
 * significant bits, so n * ln2_hi is exact for |n| <= 2^8 and the first
 * reduction step is exact (Sterbenz). */
static inline float hs_f32_exp_core_scalar_rr2_p5(float xc) {
  const float log2e = HS_EXPF_LOG2E;
  const float magic_bias = HS_EXPF_MAGIC_BIAS;
  const float minus_ln2_hi = HS_EXPF_MINUS_LN2_HI;
  const float minus_ln2_lo = HS_EXPF_MINUS_LN2_LO;
  const float c5 = HS_EXPF_C5;
  const float c4 = HS_EXPF_C4;
  const float c3 = HS_EXPF_C3;
  const float c2 = HS_EXPF_C2;
  const float c1 = HS_EXPF_C1;

  /* n = k + magic_bias, k = round(xc / ln2) in [-126, 128] */
  float n = xc * log2e + magic_bias;
  /* ks = k << 23 (mod 2^32): adding it to a float's bits multiplies by 2^k */
  const uint32_t ks = hs_f32_to_bits(n) << 23;
  /* n = k exactly */
  n -= magic_bias;
  /* t = xc - k*ln2_hi exactly */
  float t = n * minus_ln2_hi + xc;
  /* reduced argument t = xc - k*ln2, |t| <= ln2/2 (+ rounding) */
  t = n * minus_ln2_lo + t;
  /* p = (exp(t) - 1) / t, degree 4, by Horner */
  float p = c5 * t + c4;
  p = p * t + c3;
  p = p * t + c2;
  p = p * t + c1;
  /* p = exp(t) in [0.70, 1.42]: exponent field 126 or 127 */
  p = p * t + 1.0f;
  /* exp(xc) = p * 2^k by an integer add into the exponent field; the field
   * stays in [1, 254] for every xc in range (at the low cut k = -126 and
   * p >= 1; at the high cut k = 128 and p < 1). */
  return hs_f32_from_bits(hs_f32_to_bits(p) + ks);
}

/* v, hidden from the optimizer: without it the compiler sees that a clamped
 * input is a constant, folds the whole core for it and branches on the
 * clamp (which makes the time depend on x); with it the clamp is a maxss.
 * Costs nothing. */
static inline float hs_f32_opaque(float v) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __asm__("" : "+x"(v));
#endif
  return v;
}

/* all-ones when c is true, else 0: selects done on bits, so the compiler
 * has no reason to turn them into branches that skip the core (the time per
 * element must not depend on x) */
static inline uint32_t hs_f32_mask_if(int c) { return 0u - (uint32_t)(c != 0); }

/* exp(x) for every float x, with the range rules above. */
static inline float hs_f32_exp_scalar_rr2_p5(float x) {
  const float lo = hs_f32_opaque(HS_EXPF_LO_CUT);
  const float hi = hs_f32_opaque(HS_EXPF_HI_CUT);
  /* xc in [lo, hi]; NaN passes through (comparisons are false) */
  float xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;
  /* |xc| < 2^-60 becomes 0 (no subnormal reaches a multiply); other values
   * are unchanged because 2^-60 is below half an ULP of any |xc| >= 2^-25,
   * and below that exp rounds to 1 anyway */
  xc = (xc + 0x1p-60f) - 0x1p-60f;
  const uint32_t f = hs_f32_to_bits(hs_f32_exp_core_scalar_rr2_p5(xc));
  /* below the cutoff: +0 */
  const uint32_t keep = ~hs_f32_mask_if(x < HS_EXPF_LO_CUT);
  /* above the cutoff or NaN: x + inf, which is +inf or NaN */
  const uint32_t big = ~hs_f32_mask_if(x <= HS_EXPF_HI_CUT);
  const uint32_t v = hs_f32_to_bits(x + (float)INFINITY);
  return hs_f32_from_bits((f & keep & ~big) | (v & big));
}

/* exp(d) for d <= 0 (including -inf), never NaN: the softmax case. Values
 * with d < HS_EXPF_LO_CUT give +0. */
static inline float hs_f32_expminus_scalar_rr2_p5(float d) {
  const float lo = hs_f32_opaque(HS_EXPF_LO_CUT);
  float dc = d < lo ? lo : d;
  dc = (dc + 0x1p-60f) - 0x1p-60f;
  const uint32_t f = hs_f32_to_bits(hs_f32_exp_core_scalar_rr2_p5(dc));
  return hs_f32_from_bits(f & ~hs_f32_mask_if(d < HS_EXPF_LO_CUT));
}

/* exp(max(d, HS_EXPF_LO_CUT)) for d <= 0 (including -inf), never NaN: the
 * cheapest form, for a caller that flushes small results itself (softmax
 * does, in its scale pass). d < HS_EXPF_LO_CUT gives exp(HS_EXPF_LO_CUT) =
 * FLT_MIN * (1 + 4.8e-6) (within 2.5 ULP), NOT 0: the caller must zero
 * every result below HS_EXPF_LO_FLUSH. */
static inline float hs_f32_expminus_clamped_scalar_rr2_p5(float d) {
  const float lo = hs_f32_opaque(HS_EXPF_LO_CUT);
  float dc = d < lo ? lo : d;
  dc = (dc + 0x1p-60f) - 0x1p-60f;
  return hs_f32_exp_core_scalar_rr2_p5(dc);
}

#endif
