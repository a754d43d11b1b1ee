/* SPDX-License-Identifier: MIT */
/* exp(x) for x <= 0 in double, rr2-p11, for the f64 attention-row kernels
 * (internal; static inline).
 *
 *   n = round(x * log2(e))       magic bias 1.5*2^52 + 1023: the low
 *                                mantissa bits hold n + 1023;
 *   s = 2^n                      those bits shifted into the exponent;
 *   t = x - n*ln2_hi - n*ln2_lo  Cody-Waite, ln2_hi has 32 trailing zero
 *                                bits so n*ln2_hi is exact; |t| <= ln2/2;
 *   exp(t) = 1 + t*p(t)          p of degree 10 (11 in all): Chebyshev
 *                                interpolant of exp on |t| <= 0.3466,
 *                                approximation error 0.15 ULP;
 *   exp(x) = s * exp(t).
 * Error: <= 2 ULP against the exact exp on [-708.39, 0] (with FMA; the
 * portable version without FMA stays within 2 ULP too), checked by
 * tests/test-f64-kernels.c against expl. Inputs below the cutoff
 * ln(2^-1022) = -708.396 (and -inf) give +0, so no subnormal appears;
 * NaN gives NaN. The _below variants flush below a cut of the caller's
 * instead (>= the cutoff above): the two-pass kernels' weights, flushed
 * below HS_F64_WEIGHT_CUT (hardsoft/kernels.h). */
#ifndef HS_F64_EXP_RR2_P11_H
#define HS_F64_EXP_RR2_P11_H

#include <stdint.h>
#include <string.h>

#define HS_F64_MAGIC 0x1.80000000003ffp+52 /* 1.5*2^52 + 1023 */
#define HS_F64_LOG2E 0x1.71547652b82fep+0
#define HS_F64_MLN2HI -0x1.62e42fee00000p-1
#define HS_F64_MLN2LO -0x1.a39ef35793c76p-33
#define HS_F64_CUTOFF -0x1.6232bdd7abcd2p+9 /* >= ln(2^-1022) */
#define HS_F64_C11 0x1.af632a0f7e2cep-26
#define HS_F64_C10 0x1.28b4101c77212p-22
#define HS_F64_C9 0x1.71ddf56d8deb5p-19
#define HS_F64_C8 0x1.a01991a10d9aep-16
#define HS_F64_C7 0x1.a01a01b1461c5p-13
#define HS_F64_C6 0x1.6c16c1880029fp-10
#define HS_F64_C5 0x1.111111110f21ep-7
#define HS_F64_C4 0x1.555555554f0bap-5
#define HS_F64_C3 0x1.555555555555ap-3
#define HS_F64_C2 0x1.0000000000011p-1

static inline double hs_f64_exp_below_scalar(double x, double cut) {
  /* n + 1023 in the low mantissa bits */
  double vn = x * HS_F64_LOG2E + HS_F64_MAGIC;
  uint64_t bits;
  memcpy(&bits, &vn, sizeof bits);
  /* s = 2^n, n in [-1022, 0] above the cutoff */
  bits <<= 52;
  double s;
  memcpy(&s, &bits, sizeof s);
  vn -= HS_F64_MAGIC;
  /* |t| <= ln2/2 */
  double t = vn * HS_F64_MLN2HI + x;
  t = vn * HS_F64_MLN2LO + t;
  /* p = 1 + t*(1 + t*(c2 + ...)) = exp(t) */
  double p = HS_F64_C11 * t + HS_F64_C10;
  p = p * t + HS_F64_C9;
  p = p * t + HS_F64_C8;
  p = p * t + HS_F64_C7;
  p = p * t + HS_F64_C6;
  p = p * t + HS_F64_C5;
  p = p * t + HS_F64_C4;
  p = p * t + HS_F64_C3;
  p = p * t + HS_F64_C2;
  p = p * t + 1.0;
  p = p * t + 1.0;
  /* below the cutoff (and -inf): +0; NaN fails the compare and stays */
  return x < cut ? 0.0 : s * p;
}
static inline double hs_f64_exp_scalar(double x) {
  return hs_f64_exp_below_scalar(x, HS_F64_CUTOFF);
}

#ifdef VD_LANES
/* The same steps over the f64 vector vocabulary (a vec-f64-<isa>.h
 * included before this header), fused where the ISA has FMA. */
HS_ALWAYS_INLINE vd hs_f64_vexp_below(vd x, double cut) {
  const vd magic = vd_set1(HS_F64_MAGIC);
  /* n + magic; s = 2^n */
  vd vn = vd_fma(x, vd_set1(HS_F64_LOG2E), magic);
  const vd s = vd_pow2_bits(vn);
  vn = vd_sub(vn, magic);
  /* |t| <= ln2/2 */
  vd t = vd_fma(vn, vd_set1(HS_F64_MLN2HI), x);
  t = vd_fma(vn, vd_set1(HS_F64_MLN2LO), t);
  /* p = exp(t) */
  vd p = vd_fma(vd_set1(HS_F64_C11), t, vd_set1(HS_F64_C10));
  p = vd_fma(p, t, vd_set1(HS_F64_C9));
  p = vd_fma(p, t, vd_set1(HS_F64_C8));
  p = vd_fma(p, t, vd_set1(HS_F64_C7));
  p = vd_fma(p, t, vd_set1(HS_F64_C6));
  p = vd_fma(p, t, vd_set1(HS_F64_C5));
  p = vd_fma(p, t, vd_set1(HS_F64_C4));
  p = vd_fma(p, t, vd_set1(HS_F64_C3));
  p = vd_fma(p, t, vd_set1(HS_F64_C2));
  p = vd_fma(p, t, vd_set1(1.0));
  p = vd_fma(p, t, vd_set1(1.0));
  /* s * exp(t); x < cut (ordered: NaN stays) gives +0 */
  return vd_mul_unless_lt(x, vd_set1(cut), s, p);
}
HS_ALWAYS_INLINE vd hs_f64_vexp(vd x) { return hs_f64_vexp_below(x, HS_F64_CUTOFF); }
#endif

#endif
