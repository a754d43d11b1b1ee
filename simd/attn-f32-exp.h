/* SPDX-License-Identifier: MIT */
/* exp(x) for x <= 0 in float, rr2-p5, shared by the f32 attention-row
 * kernels (internal; static inline, one copy per kernel file).
 *
 * Algorithm (the XNNPACK rr2-p5 recipe):
 *   n = round(x * log2(e))      by adding a magic bias 1.5*2^23 + 127, so
 *                               the low mantissa bits hold n + 127;
 *   s = 2^n                     by shifting those bits into the exponent;
 *   t = x - n*ln2_hi - n*ln2_lo two-constant Cody-Waite: ln2_hi has 16
 *                               significant bits, so n*ln2_hi is exact;
 *   exp(x) = s + (t*s) * p(t)   p of degree 4 (exp(t) ~ 1 + t*p(t), degree 5
 *                               in all), minimax on |t| <= ln2/2.
 * Error: <= 2 ULP against the exact exp on [-87.33, 0] (checked by
 * tests/test-f32-attn-row.c against libm's double exp).
 * Inputs below the cutoff ln(2^-126) = -87.3365 (including -inf) give +0,
 * so no subnormal is ever produced or consumed; NaN gives NaN. Inputs > 0
 * are outside the contract (the kernels only call it on s - max <= 0). */
#ifndef HS_ATTN_F32_EXP_H
#define HS_ATTN_F32_EXP_H

#include <stdint.h>
#include <string.h>

#include "f32-exp-rr2-p5-consts.h"

/* the constants of f32-exp-rr2-p5-consts.h, under the names used here */
#define HS_ATTN_F32_MAGIC 0x1.8000FEp23f  /* HS_EXPF_MAGIC_BIAS + 127 */
#define HS_ATTN_F32_LOG2E HS_EXPF_LOG2E
#define HS_ATTN_F32_MLN2HI HS_EXPF_MINUS_LN2_HI
#define HS_ATTN_F32_MLN2LO HS_EXPF_MINUS_LN2_LO
#define HS_ATTN_F32_C5 HS_EXPF_C5
#define HS_ATTN_F32_C4 HS_EXPF_C4
#define HS_ATTN_F32_C3 HS_EXPF_C3
#define HS_ATTN_F32_C2 HS_EXPF_C2
#define HS_ATTN_F32_C1 HS_EXPF_C1
#define HS_ATTN_F32_CUTOFF HS_EXPF_LO_CUT /* ln(2^-126) */


/* Cheaper form for the attention kernels, same rr2-p5 algorithm: 2^n is
 * applied by an integer add to the exponent field of exp(t) (exact, since
 * the result is normal for x >= cutoff) instead of a multiplication, which
 * saves one FMA-port operation per vector. NaN lanes give an unspecified
 * value (a NaN payload can leak into the exponent field), so callers must
 * detect NaN inputs themselves; x < cutoff (and -inf) still gives +0.
 * Error <= 2 ULP on [-87.33, 0]. */
#define HS_ATTN_F32_MAGIC0 HS_EXPF_MAGIC_BIAS /* low bits hold n */

/* Portable scalar version (no FMA: the products are rounded separately,
 * error <= 2.5 ULP, measured 2.12). */
static inline float hs_attn_expf_scalar(float x) {
  /* n + magic, n = round(x*log2e) in the low mantissa bits */
  float vn = x * HS_ATTN_F32_LOG2E + HS_ATTN_F32_MAGIC;
  uint32_t bits;
  memcpy(&bits, &vn, sizeof bits);
  /* s = 2^n for n in [-126, 0] (garbage below the cutoff, masked later) */
  bits <<= 23;
  float s;
  memcpy(&s, &bits, sizeof s);
  vn -= HS_ATTN_F32_MAGIC;
  /* t = x - n*ln2, |t| <= ln2/2 (n*ln2_hi exact) */
  float t = vn * HS_ATTN_F32_MLN2HI + x;
  t = vn * HS_ATTN_F32_MLN2LO + t;
  /* p(t) with exp(t) ~ 1 + t*p(t) */
  float p = HS_ATTN_F32_C5 * t + HS_ATTN_F32_C4;
  p = p * t + HS_ATTN_F32_C3;
  p = p * t + HS_ATTN_F32_C2;
  p = p * t + HS_ATTN_F32_C1;
  /* f = s * exp(t) = s + (t*s)*p */
  t *= s;
  float f = t * p + s;
  /* below the cutoff (and -inf): +0; NaN fails the compare and stays */
  return x < HS_ATTN_F32_CUTOFF ? 0.0f : f;
}

#ifdef __AVX2__
#include <immintrin.h>
static inline __m256 hs_attn_exp_avx2(__m256 x) {
  const __m256 magic = _mm256_set1_ps(HS_ATTN_F32_MAGIC);
  /* n + magic */
  __m256 vn = _mm256_fmadd_ps(x, _mm256_set1_ps(HS_ATTN_F32_LOG2E), magic);
  /* s = 2^n */
  __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(vn), 23));
  vn = _mm256_sub_ps(vn, magic);
  /* |t| <= ln2/2 */
  __m256 t = _mm256_fmadd_ps(vn, _mm256_set1_ps(HS_ATTN_F32_MLN2HI), x);
  t = _mm256_fmadd_ps(vn, _mm256_set1_ps(HS_ATTN_F32_MLN2LO), t);
  /* exp(t) ~ 1 + t*p(t) */
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(HS_ATTN_F32_C5), t,
                             _mm256_set1_ps(HS_ATTN_F32_C4));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(HS_ATTN_F32_C3));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(HS_ATTN_F32_C2));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(HS_ATTN_F32_C1));
  /* f = s + (t*s)*p */
  t = _mm256_mul_ps(t, s);
  __m256 f = _mm256_fmadd_ps(t, p, s);
  /* x < cutoff (ordered compare: NaN stays NaN) gives +0 */
  return _mm256_andnot_ps(
      _mm256_cmp_ps(x, _mm256_set1_ps(HS_ATTN_F32_CUTOFF), _CMP_LT_OQ), f);
}

/* The constants of hs_attn_exp_nonan_avx2, one 8-float row each. */
#define HS_ATTN_R8(x) {x, x, x, x, x, x, x, x}
_Alignas(32) static const float hs_attn_exp_avx2_tbl[11][8] = {
    HS_ATTN_R8(HS_ATTN_F32_MAGIC0), HS_ATTN_R8(HS_ATTN_F32_LOG2E),
    HS_ATTN_R8(HS_ATTN_F32_MLN2HI), HS_ATTN_R8(HS_ATTN_F32_MLN2LO),
    HS_ATTN_R8(HS_ATTN_F32_C5),     HS_ATTN_R8(HS_ATTN_F32_C4),
    HS_ATTN_R8(HS_ATTN_F32_C3),     HS_ATTN_R8(HS_ATTN_F32_C2),
    HS_ATTN_R8(HS_ATTN_F32_C1),     HS_ATTN_R8(1.0f),
    HS_ATTN_R8(HS_ATTN_F32_CUTOFF)};
#undef HS_ATTN_R8

/* hs_attn_exp_nonan_avx2 with its constants read through c (the table
 * above). A hot loop that passes hs_attn_exp_avx2_consts() fetched anew
 * in every iteration keeps the constants as memory operands (cheap loads)
 * instead of 11 of the 16 ymm registers, so that its accumulators are not
 * spilled to the stack: GCC otherwise keeps the constants and spills the
 * loop-carried sums, which puts a store-to-load round trip on the critical
 * path of every iteration (measured: the AVX2 row kernel's v1 loop). */
static inline __m256 hs_attn_exp_nonan_avx2_c(__m256 x, const float (*c)[8]) {
  const __m256 magic = _mm256_load_ps(c[0]);
  /* n + magic; bits of vn << 23 = n << 23 (two's complement) */
  __m256 vn = _mm256_fmadd_ps(x, _mm256_load_ps(c[1]), magic);
  __m256i e = _mm256_slli_epi32(_mm256_castps_si256(vn), 23);
  vn = _mm256_sub_ps(vn, magic);
  /* |t| <= ln2/2 */
  __m256 t = _mm256_fmadd_ps(vn, _mm256_load_ps(c[2]), x);
  t = _mm256_fmadd_ps(vn, _mm256_load_ps(c[3]), t);
  /* p = exp(t) = 1 + t*(c1 + t*(c2 + ...)) in [0.7, 1.42] */
  __m256 p = _mm256_fmadd_ps(_mm256_load_ps(c[4]), t, _mm256_load_ps(c[5]));
  p = _mm256_fmadd_ps(p, t, _mm256_load_ps(c[6]));
  p = _mm256_fmadd_ps(p, t, _mm256_load_ps(c[7]));
  p = _mm256_fmadd_ps(p, t, _mm256_load_ps(c[8]));
  p = _mm256_fmadd_ps(p, t, _mm256_load_ps(c[9]));
  /* f = exp(t) * 2^n, exact exponent add: normal for x >= cutoff */
  __m256 f = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
  /* x < cutoff (and -inf) gives +0 */
  return _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_load_ps(c[10]), _CMP_LT_OQ), f);
}

/* The table, opaque to the optimizer: call once per loop iteration. */
static inline const float (*hs_attn_exp_avx2_consts(void))[8] {
  const float(*c)[8] = hs_attn_exp_avx2_tbl;
  __asm__("" : "+r"(c));
  return c;
}

/* See HS_ATTN_F32_MAGIC0; NaN in gives an unspecified value. */
static inline __m256 hs_attn_exp_nonan_avx2(__m256 x) {
  return hs_attn_exp_nonan_avx2_c(x, hs_attn_exp_avx2_tbl);
}
#endif

#ifdef __AVX512F__
static inline __m512 hs_attn_exp_avx512(__m512 x) {
  const __m512 magic = _mm512_set1_ps(HS_ATTN_F32_MAGIC);
  /* n + magic */
  __m512 vn = _mm512_fmadd_ps(x, _mm512_set1_ps(HS_ATTN_F32_LOG2E), magic);
  /* s = 2^n */
  __m512 s = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(vn), 23));
  vn = _mm512_sub_ps(vn, magic);
  /* |t| <= ln2/2 */
  __m512 t = _mm512_fmadd_ps(vn, _mm512_set1_ps(HS_ATTN_F32_MLN2HI), x);
  t = _mm512_fmadd_ps(vn, _mm512_set1_ps(HS_ATTN_F32_MLN2LO), t);
  /* exp(t) ~ 1 + t*p(t) */
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(HS_ATTN_F32_C5), t,
                             _mm512_set1_ps(HS_ATTN_F32_C4));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(HS_ATTN_F32_C3));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(HS_ATTN_F32_C2));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(HS_ATTN_F32_C1));
  /* f = s + (t*s)*p */
  t = _mm512_mul_ps(t, s);
  __m512 f = _mm512_fmadd_ps(t, p, s);
  /* x < cutoff (ordered: NaN stays NaN) gives +0 */
  __mmask16 under =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(HS_ATTN_F32_CUTOFF), _CMP_LT_OQ);
  return _mm512_maskz_mov_ps((__mmask16)~under, f);
}
/* See HS_ATTN_F32_MAGIC0; NaN in gives an unspecified value. AVX-512
 * form: 2^n is applied by vscalefps, masked by the cutoff compare, which
 * replaces the shift, the exponent add and the final masking of the AVX2
 * form (11 operations instead of 13). p * 2^n is exact here (normal
 * result for x >= cutoff), so the value is that of the exponent add. */
static inline __m512 hs_attn_exp_nonan_avx512(__m512 x) {
  const __m512 magic = _mm512_set1_ps(HS_ATTN_F32_MAGIC0);
  /* n = round(x * log2e), as a float (magic add and subtract) */
  __m512 vn = _mm512_fmadd_ps(x, _mm512_set1_ps(HS_ATTN_F32_LOG2E), magic);
  vn = _mm512_sub_ps(vn, magic);
  /* |t| <= ln2/2 */
  __m512 t = _mm512_fmadd_ps(vn, _mm512_set1_ps(HS_ATTN_F32_MLN2HI), x);
  t = _mm512_fmadd_ps(vn, _mm512_set1_ps(HS_ATTN_F32_MLN2LO), t);
  /* p = exp(t) in [0.7, 1.42] */
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(HS_ATTN_F32_C5), t,
                             _mm512_set1_ps(HS_ATTN_F32_C4));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(HS_ATTN_F32_C3));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(HS_ATTN_F32_C2));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(HS_ATTN_F32_C1));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.0f));
  /* f = p * 2^n where x >= cutoff, +0 below it (and for -inf) */
  __mmask16 keep =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(HS_ATTN_F32_CUTOFF), _CMP_GE_OQ);
  return _mm512_maskz_scalef_ps(keep, p, vn);
}
#endif

#endif
