/* SPDX-License-Identifier: MIT */
/* exp(x) on 8 floats, AVX2 + FMA: rr2 range reduction, degree-5
 * polynomial, 2^k added into the exponent bits. Max error 2 ULP over the
 * whole normal range (measured on every float: 1.98 ULP).
 *
 * Shared by f32-vexp-avx2-rr2-p5.c and f32-softmax-avx2-rr2-p5.c, and meant
 * for any other AVX2 kernel that needs exp (the fused attention row).
 * Self-contained; every name is hs_... static inline. Include it only from a
 * file compiled with -mavx2 -mfma.
 *
 * The algorithm (XNNPACK's rr2-p5):
 *   k = round(x * log2e), by adding the magic bias 1.5 * 2^23;
 *   t = x - k * ln2, with ln2 = ln2_hi + ln2_lo (Cody-Waite, both by FMA);
 *   p = 1 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * c5)))) ~ exp(t);
 *   exp(x) = p * 2^k, done by adding k << 23 to p's bits (no multiply).
 * The last step is exact whenever the result is a normal float; by choosing
 * the cutoffs below it always is, so no value in the vector body, input or
 * intermediate, is ever subnormal and there are no data-dependent branches:
 * the time per element does not depend on the inputs.
 *
 * Range (exact cutoffs, the same in every ISA):
 *   x <  HS_EXPF_LO_CUT = -0x1.5D589Ep6 (-87.336540) -> +0: below it the
 *        correctly rounded exp is below FLT_MIN; at it exp(x) is FLT_MIN
 *        plus 38 ULP, so a normal result never rounds into the subnormals;
 *   x >  HS_EXPF_HI_CUT =  0x1.62E42Ep6 (88.722832) -> +inf (the next float
 *        up already rounds to +inf); +inf -> +inf; -inf -> +0;
 *   NaN -> NaN; |x| < 2^-60 (including subnormal x) is treated as 0 and gives
 *        exactly 1, as the correctly rounded exp does. */
#ifndef HS_F32_EXP_AVX2_RR2_P5_H
#define HS_F32_EXP_AVX2_RR2_P5_H

#if !defined(__AVX2__) || !defined(__FMA__)
#error "f32-exp-avx2-rr2-p5.h needs -mavx2 -mfma"
#endif

#include <immintrin.h>
#include <math.h>

#ifndef HS_EXPF_LO_CUT
#define HS_EXPF_LO_CUT (-0x1.5D589Ep6f)
#define HS_EXPF_HI_CUT (0x1.62E42Ep6f)
#endif

/* The common core. xc must lie in [HS_EXPF_LO_CUT, HS_EXPF_HI_CUT] (a NaN
 * lane gives an unspecified value). Constants are set1 here; once inlined
 * into a loop the compiler hoists them. */
static inline __m256 hs_f32_exp_core_avx2_rr2_p5(__m256 xc) {
  const __m256 log2e = _mm256_set1_ps(0x1.715476p+0f);
  /* 1.5 * 2^23: adding it rounds to an integer and leaves k in the low
   * mantissa bits (two's complement in 22 bits). */
  const __m256 magic_bias = _mm256_set1_ps(0x1.8p23f);
  const __m256 minus_ln2_hi = _mm256_set1_ps(-0x1.62E43p-1f);
  const __m256 minus_ln2_lo = _mm256_set1_ps(0x1.05C61p-29f);
  const __m256 c5 = _mm256_set1_ps(0x1.0F9F9Cp-7f);
  const __m256 c4 = _mm256_set1_ps(0x1.573A1Ap-5f);
  const __m256 c3 = _mm256_set1_ps(0x1.555A80p-3f);
  const __m256 c2 = _mm256_set1_ps(0x1.FFFDC6p-2f);
  const __m256 c1 = _mm256_set1_ps(0x1.FFFFF6p-1f);
  const __m256 one = _mm256_set1_ps(1.0f);

  /* n = k + magic_bias, k = round(xc / ln2) in [-126, 128] */
  __m256 n = _mm256_fmadd_ps(xc, log2e, magic_bias);
  /* ks = k << 23 (mod 2^32): adding it to a float's bits multiplies by 2^k */
  const __m256i ks = _mm256_slli_epi32(_mm256_castps_si256(n), 23);
  /* n = k exactly */
  n = _mm256_sub_ps(n, magic_bias);
  /* t = xc - k*ln2_hi (one rounding, by FMA) */
  __m256 t = _mm256_fmadd_ps(n, minus_ln2_hi, xc);
  /* reduced argument t = xc - k*ln2, |t| <= ln2/2 (+ rounding) */
  t = _mm256_fmadd_ps(n, minus_ln2_lo, t);
  /* p = (exp(t) - 1) / t, degree 4, by Horner */
  __m256 p = _mm256_fmadd_ps(c5, t, c4);
  p = _mm256_fmadd_ps(p, t, c3);
  p = _mm256_fmadd_ps(p, t, c2);
  p = _mm256_fmadd_ps(p, t, c1);
  /* p = exp(t) in [0.70, 1.42], one rounding: exponent field 126 or 127 */
  p = _mm256_fmadd_ps(p, t, one);
  /* exp(xc) = p * 2^k by an integer add into the exponent field; the field
   * stays in [1, 254] for every xc in range (at the low cut k = -126 and
   * p >= 1; at the high cut k = 128 and p < 1). */
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), ks));
}

/* exp(x) for every lane, with the range rules above. */
static inline __m256 hs_f32_exp_avx2_rr2_p5(__m256 x) {
  const __m256 lo = _mm256_set1_ps(HS_EXPF_LO_CUT);
  const __m256 hi = _mm256_set1_ps(HS_EXPF_HI_CUT);
  const __m256 tiny = _mm256_set1_ps(0x1p-60f);
  const __m256 inf = _mm256_set1_ps((float)INFINITY);

  /* xc in [lo, hi]; max/min return their second operand when one is NaN,
   * so a NaN lane stays NaN */
  __m256 xc = _mm256_max_ps(lo, x);
  xc = _mm256_min_ps(hi, xc);
  /* |xc| < 2^-60 becomes 0 (no subnormal reaches a multiply); other values
   * are unchanged because 2^-60 is below half an ULP of any |xc| >= 2^-25,
   * and below that exp rounds to 1 anyway */
  xc = _mm256_sub_ps(_mm256_add_ps(xc, tiny), tiny);
  __m256 f = hs_f32_exp_core_avx2_rr2_p5(xc);
  /* below the cutoff (and -inf): +0 */
  f = _mm256_andnot_ps(_mm256_cmp_ps(x, lo, _CMP_LT_OQ), f);
  /* above the cutoff or NaN: x + inf, which is +inf or NaN */
  return _mm256_blendv_ps(f, _mm256_add_ps(x, inf),
                          _mm256_cmp_ps(x, hi, _CMP_NLE_UQ));
}

/* exp(d) for d <= 0 (including -inf) that is never NaN: the softmax case.
 * Lanes with d < HS_EXPF_LO_CUT give +0. A NaN lane gives an unspecified
 * finite value, so the caller must rule NaN out first. */
static inline __m256 hs_f32_expminus_avx2_rr2_p5(__m256 d) {
  const __m256 lo = _mm256_set1_ps(HS_EXPF_LO_CUT);
  /* dc in [lo, 0] */
  const __m256 dc = _mm256_max_ps(lo, d);
  const __m256 f = hs_f32_exp_core_avx2_rr2_p5(dc);
  /* below the cutoff (and -inf): +0 */
  return _mm256_andnot_ps(_mm256_cmp_ps(d, lo, _CMP_LT_OQ), f);
}

/* exp(max(d, HS_EXPF_LO_CUT)) for d <= 0 (including -inf), never NaN: the
 * cheapest form, for a caller that flushes small results itself (softmax
 * does, in its scale pass). Lanes with d < HS_EXPF_LO_CUT give
 * exp(HS_EXPF_LO_CUT) = FLT_MIN * (1 + 4.8e-6) (within 2 ULP), NOT 0: the
 * caller must zero every result below HS_EXPF_LO_FLUSH. */
#ifndef HS_EXPF_LO_FLUSH
#define HS_EXPF_LO_FLUSH (0x1.0001p-126f) /* FLT_MIN * (1 + 2^-16) */
#endif
static inline __m256 hs_f32_expminus_clamped_avx2_rr2_p5(__m256 d) {
  /* dc in [lo, 0] */
  return hs_f32_exp_core_avx2_rr2_p5(
      _mm256_max_ps(_mm256_set1_ps(HS_EXPF_LO_CUT), d));
}

#endif
