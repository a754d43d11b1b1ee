/* SPDX-License-Identifier: MIT */
/* exp(x) on a vector of floats, rr2-p5, written once over the vector
 * vocabulary (include one vec-f32-<isa>.h first). The steps and the
 * constants are those of f32-exp-rr2-p5-consts.h, the same as the scalar
 * exp's. Max error 2 ULP over the whole normal range where vf_fma is fused
 * (tests/test-exp-exhaustive.c; unfused, as the scalar exp, 2.5). No value in the body is ever
 * subnormal and nothing branches on data: the time per element does not
 * depend on the inputs. */
#ifndef HS_F32_EXP_RR2_P5_VEC_H
#define HS_F32_EXP_RR2_P5_VEC_H

#ifndef VF_LANES
#error "include a vec-f32-<isa>.h before f32-exp-rr2-p5-vec.h"
/* exp(max(d, HS_EXPF_LO_CUT)) for d <= 0 (including -inf), never NaN: the
 * cheapest form, for a caller that flushes small results itself (softmax
 * does, in its scale pass). d < HS_EXPF_LO_CUT gives exp(HS_EXPF_LO_CUT) =
 * FLT_MIN * (1 + 4.8e-6) (within 2 ULP), NOT 0: the caller must zero every
 * result below HS_EXPF_LO_FLUSH. */
static inline vf hs_vexpminus_clamped_rr2_p5(vf d) {
  vf kb;
  const vf p = hs_vexp_poly_rr2_p5(vf_max(vf_set1(HS_EXPF_LO_CUT), d), &kb);
  return vf_exp2_bits(p, kb);
}

#endif

#include <math.h>

#include "f32-exp-rr2-p5-consts.h"

/* p = exp(t) in [0.70, 1.42] and kb = k + magic bias for xc in
 * [HS_EXPF_LO_CUT, HS_EXPF_HI_CUT]; exp(xc) = vf_exp2_bits(p, kb). */
static inline vf hs_vexp_poly_rr2_p5(vf xc, vf *kb) {
  const vf magic = vf_set1(HS_EXPF_MAGIC_BIAS);
  /* kb = k + magic, k = round(xc / ln2) in [-126, 128] */
  const vf n = vf_fma(xc, vf_set1(HS_EXPF_LOG2E), magic);
  *kb = n;
  /* k exactly */
  const vf k = vf_sub(n, magic);
  /* t = xc - k*ln2_hi, exact; then |t| <= ln2/2 (+ rounding) */
  vf t = vf_fma(k, vf_set1(HS_EXPF_MINUS_LN2_HI), xc);
  t = vf_fma(k, vf_set1(HS_EXPF_MINUS_LN2_LO), t);
  /* p = 1 + t * (c1 + t * (... + t * c5)), Horner */
  vf p = vf_fma(vf_set1(HS_EXPF_C5), t, vf_set1(HS_EXPF_C4));
  p = vf_fma(p, t, vf_set1(HS_EXPF_C3));
  p = vf_fma(p, t, vf_set1(HS_EXPF_C2));
  p = vf_fma(p, t, vf_set1(HS_EXPF_C1));
  return vf_fma(p, t, vf_set1(1.0f));
}

/* exp(x) for every lane: x < HS_EXPF_LO_CUT (and -inf) gives +0,
 * x > HS_EXPF_HI_CUT (and +inf) gives +inf, NaN gives NaN. */
static inline vf hs_vexp_rr2_p5(vf x) {
  const vf lo = vf_set1(HS_EXPF_LO_CUT), hi = vf_set1(HS_EXPF_HI_CUT);
  const vf tiny = vf_set1(HS_EXPF_TINY);
  /* xc in [lo, hi]; a NaN lane stays NaN (NaN in the second operand) */
  vf xc = vf_min(hi, vf_max(lo, x));
  /* |xc| < 2^-60 becomes 0; other values are unchanged (2^-60 is below
   * half an ULP of any |xc| >= 2^-25, and below that exp rounds to 1) */
  xc = vf_sub(vf_add(xc, tiny), tiny);
  vf kb;
  const vf p = hs_vexp_poly_rr2_p5(xc, &kb);
  /* exact: the exponent field stays in [1, 254] for xc in range (at the
   * low cut k = -126 and p >= 1; at the high cut k = 128 and p < 1) */
  vf f = vf_exp2_bits(p, kb);
  /* below the cutoff (and -inf): +0 */
  f = vf_select(vf_cmpgt(lo, x), vf_zero(), f);
  /* above the cutoff or NaN (x <= hi fails): x + inf, +inf or NaN */
  return vf_select(vf_cmple(x, hi), f, vf_add(x, vf_set1((float)INFINITY)));
}

/* exp(x) for x <= 0 (including -inf) that is never NaN: the softmax and
 * attention case. x < HS_EXPF_LO_CUT gives +0. No clamp: below the cutoff
 * k < -126 wraps the exponent field, and the select discards the lane; a
 * NaN lane gives an unspecified value, so the caller rules NaN out. */
static inline vf hs_vexpminus_rr2_p5(vf x) {
  vf kb;
  const vf p = hs_vexp_poly_rr2_p5(x, &kb);
  return vf_select(vf_cmpgt(vf_set1(HS_EXPF_LO_CUT), x), vf_zero(),
                   vf_exp2_bits(p, kb));
}

/* exp(max(d, HS_EXPF_LO_CUT)) for d <= 0 (including -inf), never NaN: the
 * cheapest form, for a caller that flushes small results itself (softmax
 * does, in its scale pass). d < HS_EXPF_LO_CUT gives exp(HS_EXPF_LO_CUT) =
 * FLT_MIN * (1 + 4.8e-6) (within 2 ULP), NOT 0: the caller must zero every
 * result below HS_EXPF_LO_FLUSH. */
static inline vf hs_vexpminus_clamped_rr2_p5(vf d) {
  vf kb;
  const vf p = hs_vexp_poly_rr2_p5(vf_max(vf_set1(HS_EXPF_LO_CUT), d), &kb);
  return vf_exp2_bits(p, kb);
}

#endif
