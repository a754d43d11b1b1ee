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
#endif

#include <math.h>

#include "f32-exp-rr2-p5-consts.h"
#include "ukernels.h"

/* The constants, one row of 16 floats each (a vector reads the first
 * VF_LANES): the body reads them through a pointer, so that a loop short
 * of registers can pass the table made opaque (hs_vexp_rows_opaque) and
 * keep them as memory operands. Given the table itself, the compiler
 * folds the loads into constants, as vf_set1 would. */
enum {
  HS_VEXP_MAGIC, HS_VEXP_LOG2E, HS_VEXP_MLN2HI, HS_VEXP_MLN2LO, HS_VEXP_C5, HS_VEXP_C4,
  HS_VEXP_C3, HS_VEXP_C2, HS_VEXP_C1, HS_VEXP_ONE, HS_VEXP_LO_CUT, HS_VEXP_ROWS
};
#define HS_VEXP_ROW(x) {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}
_Alignas(64) static const float hs_vexp_rows[HS_VEXP_ROWS][16] = {
    HS_VEXP_ROW(HS_EXPF_MAGIC_BIAS), HS_VEXP_ROW(HS_EXPF_LOG2E),
    HS_VEXP_ROW(HS_EXPF_MINUS_LN2_HI), HS_VEXP_ROW(HS_EXPF_MINUS_LN2_LO),
    HS_VEXP_ROW(HS_EXPF_C5), HS_VEXP_ROW(HS_EXPF_C4), HS_VEXP_ROW(HS_EXPF_C3),
    HS_VEXP_ROW(HS_EXPF_C2), HS_VEXP_ROW(HS_EXPF_C1), HS_VEXP_ROW(1.0f),
    HS_VEXP_ROW(HS_EXPF_LO_CUT)};
#undef HS_VEXP_ROW

/* The table, opaque to the optimizer: fetched anew in every iteration of
 * a hot loop, its constants stay memory operands instead of taking 11
 * registers (on 16, the loop's sums would be spilled instead, a
 * store-to-load round trip on the critical path: measured, the AVX2
 * attention row's dv == 1 loop). */
static inline const float (*hs_vexp_rows_opaque(void))[16] {
  const float(*c)[16] = hs_vexp_rows;
  __asm__("" : "+r"(c));
  return c;
}

/* p = exp(t) in [0.70, 1.42], kb = k + magic bias and k itself for xc in
 * [HS_EXPF_LO_CUT, HS_EXPF_HI_CUT], constants from c; exp(xc) =
 * vf_exp2_bits(p, kb). */
HS_ALWAYS_INLINE vf hs_vexp_poly_rr2_p5_c(vf xc, vf *kb, vf *k, const float (*c)[16]) {
  const vf magic = vf_loadu(c[HS_VEXP_MAGIC]);
  /* kb = k + magic, k = round(xc / ln2) in [-126, 128] */
  *kb = vf_fma(xc, vf_loadu(c[HS_VEXP_LOG2E]), magic);
  /* k exactly */
  *k = vf_sub(*kb, magic);
  /* t = xc - k*ln2_hi, exact; then |t| <= ln2/2 (+ rounding) */
  vf t = vf_fma(*k, vf_loadu(c[HS_VEXP_MLN2HI]), xc);
  t = vf_fma(*k, vf_loadu(c[HS_VEXP_MLN2LO]), t);
  /* p = 1 + t * (c1 + t * (... + t * c5)), Horner */
  vf p = vf_fma(vf_loadu(c[HS_VEXP_C5]), t, vf_loadu(c[HS_VEXP_C4]));
  p = vf_fma(p, t, vf_loadu(c[HS_VEXP_C3]));
  p = vf_fma(p, t, vf_loadu(c[HS_VEXP_C2]));
  p = vf_fma(p, t, vf_loadu(c[HS_VEXP_C1]));
  return vf_fma(p, t, vf_loadu(c[HS_VEXP_ONE]));
}
static inline vf hs_vexp_poly_rr2_p5(vf xc, vf *kb) {
  vf k;
  return hs_vexp_poly_rr2_p5_c(xc, kb, &k, hs_vexp_rows);
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
 * k < -126 wraps the exponent field, and the vocabulary's
 * vf_exp2_unless_lt discards the lane; a NaN lane gives an unspecified
 * value, so the caller rules NaN out. Constants from c (hs_vexp_rows or
 * hs_vexp_rows_opaque()). */
HS_ALWAYS_INLINE vf hs_vexpminus_rr2_p5_c(vf x, const float (*c)[16]) {
  vf kb, k;
  const vf p = hs_vexp_poly_rr2_p5_c(x, &kb, &k, c);
  return vf_exp2_unless_lt(x, vf_loadu(c[HS_VEXP_LO_CUT]), p, kb, k);
}
static inline vf hs_vexpminus_rr2_p5(vf x) { return hs_vexpminus_rr2_p5_c(x, hs_vexp_rows); }

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
