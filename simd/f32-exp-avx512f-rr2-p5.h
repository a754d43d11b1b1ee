/* SPDX-License-Identifier: MIT */
/* exp(x) on 16 floats, AVX-512F: rr2 range reduction, degree-5
 * polynomial, 2^k added into the exponent bits. Max error 2 ULP over the
 * whole normal range (measured on every float: 1.98 ULP).
 *
 * Shared by f32-vexp-avx512f-rr2-p5.c and f32-softmax-avx512f-rr2-p5.c, and
 * meant for any other AVX-512 kernel that needs exp (the fused attention
 * row). Self-contained; every name is hs_... static inline. Include it only
 * from a file compiled with -mavx512f. Uses AVX-512F instructions only.
 *
 * The algorithm (XNNPACK's rr2-p5), identical to f32-exp-avx2-rr2-p5.h, so
 * both give bit-identical results:
 *   k = round(x * log2e), by adding the magic bias 1.5 * 2^23;
 *   t = x - k * ln2, with ln2 = ln2_hi + ln2_lo (Cody-Waite, both by FMA);
 *   p = 1 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * c5)))) ~ exp(t);
 *   exp(x) = p * 2^k, done by adding k << 23 to p's bits (no multiply),
 *   with an opmask zeroing the lanes below the cutoff in the same add.
 * No value in the vector body is ever subnormal and there are no
 * data-dependent branches: the time per element does not depend on inputs.
 *
 * Range (exact cutoffs, the same in every ISA):
 *   x <  HS_EXPF_LO_CUT = -0x1.5D589Ep6 (-87.336540) -> +0: below it the
 *        correctly rounded exp is below FLT_MIN; at it exp(x) is FLT_MIN
 *        plus 38 ULP, so a normal result never rounds into the subnormals;
 *   x >  HS_EXPF_HI_CUT =  0x1.62E42Ep6 (88.722832) -> +inf (the next float
 *        up already rounds to +inf); +inf -> +inf; -inf -> +0;
 *   NaN -> NaN; |x| < 2^-60 (including subnormal x) is treated as 0 and gives
 *        exactly 1, as the correctly rounded exp does. */
#ifndef HS_F32_EXP_AVX512F_RR2_P5_H
#define HS_F32_EXP_AVX512F_RR2_P5_H

#if !defined(__AVX512F__)
#error "f32-exp-avx512f-rr2-p5.h needs -mavx512f"
#endif

#include <immintrin.h>
#include <math.h>

#ifndef HS_EXPF_LO_CUT
#define HS_EXPF_LO_CUT (-0x1.5D589Ep6f)
#define HS_EXPF_HI_CUT (0x1.62E42Ep6f)
#endif

/* The polynomial part of the core: returns p = exp(t) in [0.70, 1.42] and
 * ks = k << 23 for xc in [HS_EXPF_LO_CUT, HS_EXPF_HI_CUT]. The caller adds
 * ks to p's bits under the mask it needs. */
static inline __m512 hs_f32_exp_poly_avx512f_rr2_p5(__m512 xc, __m512i *ks) {
  const __m512 log2e = _mm512_set1_ps(0x1.715476p+0f);
  /* 1.5 * 2^23: adding it rounds to an integer and leaves k in the low
   * mantissa bits (two's complement in 22 bits). */
  const __m512 magic_bias = _mm512_set1_ps(0x1.8p23f);
  const __m512 minus_ln2_hi = _mm512_set1_ps(-0x1.62E43p-1f);
  const __m512 minus_ln2_lo = _mm512_set1_ps(0x1.05C61p-29f);
  const __m512 c5 = _mm512_set1_ps(0x1.0F9F9Cp-7f);
  const __m512 c4 = _mm512_set1_ps(0x1.573A1Ap-5f);
  const __m512 c3 = _mm512_set1_ps(0x1.555A80p-3f);
  const __m512 c2 = _mm512_set1_ps(0x1.FFFDC6p-2f);
  const __m512 c1 = _mm512_set1_ps(0x1.FFFFF6p-1f);
  const __m512 one = _mm512_set1_ps(1.0f);

  /* n = k + magic_bias, k = round(xc / ln2) in [-126, 128] */
  __m512 n = _mm512_fmadd_ps(xc, log2e, magic_bias);
  /* ks = k << 23 (mod 2^32): adding it to a float's bits multiplies by 2^k */
  *ks = _mm512_slli_epi32(_mm512_castps_si512(n), 23);
  /* n = k exactly */
  n = _mm512_sub_ps(n, magic_bias);
  /* t = xc - k*ln2_hi (one rounding, by FMA) */
  __m512 t = _mm512_fmadd_ps(n, minus_ln2_hi, xc);
  /* reduced argument t = xc - k*ln2, |t| <= ln2/2 (+ rounding) */
  t = _mm512_fmadd_ps(n, minus_ln2_lo, t);
  /* p = (exp(t) - 1) / t, degree 4, by Horner */
  __m512 p = _mm512_fmadd_ps(c5, t, c4);
  p = _mm512_fmadd_ps(p, t, c3);
  p = _mm512_fmadd_ps(p, t, c2);
  p = _mm512_fmadd_ps(p, t, c1);
  /* p = exp(t) in [0.70, 1.42], one rounding: exponent field 126 or 127 */
  return _mm512_fmadd_ps(p, t, one);
}

/* exp(x) for every lane, with the range rules above. */
static inline __m512 hs_f32_exp_avx512f_rr2_p5(__m512 x) {
  const __m512 lo = _mm512_set1_ps(HS_EXPF_LO_CUT);
  const __m512 hi = _mm512_set1_ps(HS_EXPF_HI_CUT);
  const __m512 tiny = _mm512_set1_ps(0x1p-60f);
  const __m512 inf = _mm512_set1_ps((float)INFINITY);

  /* xc in [lo, hi]; max/min return their second operand when one is NaN,
   * so a NaN lane stays NaN */
  __m512 xc = _mm512_max_ps(lo, x);
  xc = _mm512_min_ps(hi, xc);
  /* |xc| < 2^-60 becomes 0 (no subnormal reaches a multiply); other values
   * are unchanged because 2^-60 is below half an ULP of any |xc| >= 2^-25,
   * and below that exp rounds to 1 anyway */
  xc = _mm512_sub_ps(_mm512_add_ps(xc, tiny), tiny);
  __m512i ks;
  const __m512 p = hs_f32_exp_poly_avx512f_rr2_p5(xc, &ks);
  /* keep = not below the cutoff (NaN lanes kept, fixed next) */
  const __mmask16 keep = _mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ);
  /* exp(x) = p * 2^k, exact; lanes below the cutoff (and -inf): +0 */
  __m512 f = _mm512_castsi512_ps(
      _mm512_maskz_add_epi32(keep, _mm512_castps_si512(p), ks));
  /* above the cutoff or NaN: x + inf, which is +inf or NaN */
  const __mmask16 big = _mm512_cmp_ps_mask(x, hi, _CMP_NLE_UQ);
  return _mm512_mask_add_ps(f, big, x, inf);
}

/* exp(d) for d <= 0 (including -inf) that is never NaN: the softmax case.
 * Lanes with d < HS_EXPF_LO_CUT, and lanes outside `live`, give +0. A NaN
 * lane gives an unspecified finite value, so the caller must rule NaN out
 * first. */
static inline __m512 hs_f32_expminus_avx512f_rr2_p5(__m512 d, __mmask16 live) {
  const __m512 lo = _mm512_set1_ps(HS_EXPF_LO_CUT);
  /* dc in [lo, 0] */
  const __m512 dc = _mm512_max_ps(lo, d);
  __m512i ks;
  const __m512 p = hs_f32_exp_poly_avx512f_rr2_p5(dc, &ks);
  /* keep = live lanes at or above the cutoff */
  const __mmask16 keep = _mm512_mask_cmp_ps_mask(live, d, lo, _CMP_GE_OQ);
  /* exp(d) = p * 2^k, exact; the other lanes: +0 */
  return _mm512_castsi512_ps(
      _mm512_maskz_add_epi32(keep, _mm512_castps_si512(p), ks));
}

/* exp(max(d, HS_EXPF_LO_CUT)) for d <= 0 (including -inf), never NaN, in the
 * `live` lanes (+0 in the others): the cheapest form, for a caller that
 * flushes small results itself (softmax does, in its scale pass). Live
 * lanes with d < HS_EXPF_LO_CUT give exp(HS_EXPF_LO_CUT) = FLT_MIN *
 * (1 + 4.8e-6) (within 2 ULP), NOT 0: the caller must zero every result
 * below HS_EXPF_LO_FLUSH. */
#ifndef HS_EXPF_LO_FLUSH
#define HS_EXPF_LO_FLUSH (0x1.0001p-126f) /* FLT_MIN * (1 + 2^-16) */
#endif
static inline __m512 hs_f32_expminus_clamped_avx512f_rr2_p5(__m512 d,
                                                            __mmask16 live) {
  /* dc in [lo, 0] */
  const __m512 dc = _mm512_max_ps(_mm512_set1_ps(HS_EXPF_LO_CUT), d);
  __m512i ks;
  const __m512 p = hs_f32_exp_poly_avx512f_rr2_p5(dc, &ks);
  /* exp(dc) = p * 2^k, exact; dead lanes: +0 */
  return _mm512_castsi512_ps(
      _mm512_maskz_add_epi32(live, _mm512_castps_si512(p), ks));
}

#endif
