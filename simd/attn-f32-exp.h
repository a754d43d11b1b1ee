/* SPDX-License-Identifier: MIT */
/* exp(x) for x <= 0 in float, rr2-p5, scalar, shared by the f32
 * attention-row kernels (internal; static inline): the scalar kernels'
 * weights and the vector kernels' rescale of a row's sums when its max
 * grows. The vector kernels' weights take the vector exp
 * (f32-exp-rr2-p5-vec.h), the same steps and constants with 2^n applied
 * to exp(t) instead of s + (t*s) p below: its bits differ, so neither
 * stands for the other.
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

#endif
