/* SPDX-License-Identifier: MIT */
/* The constants of the f32 rr2-p5 exp, one set for every ISA: the scalar
 * exp (f32-exp-scalar-rr2-p5.h), the generic vector exp written over the
 * vector vocabulary (f32-exp-rr2-p5-vec.h), the softmax exp headers and
 * the attention kernels' exp (attn-f32-exp.h) all read them from here, so
 * every ISA reduces and evaluates with the same numbers.
 *
 *   k = round(x * log2e), by adding the magic bias 1.5 * 2^23 (the sum's
 *       low mantissa bits then hold k, two's complement in 22 bits);
 *   t = x - k * ln2, ln2 = -(MINUS_LN2_HI + MINUS_LN2_LO): HI has 16
 *       significant bits, so k * HI is exact for |k| <= 2^8 with or without
 *       FMA and the first reduction step is exact (Sterbenz); LO carries
 *       the next 24 bits (ln2 to 2^-41, far below the polynomial's error);
 *   exp(t) ~ 1 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * c5)))),
 *       minimax on |t| <= ln2/2;
 *   exp(x) = p * 2^k by adding k << 23 to p's bits.
 * Cutoffs (exact): x < LO_CUT gives +0 (below it the correctly rounded exp
 * is below FLT_MIN; at it exp(x) is FLT_MIN plus 38 ULP, so a normal result
 * never rounds into the subnormals); x > HI_CUT gives +inf (the next float
 * up already rounds to +inf). |x| < TINY is treated as 0 (exp rounds to 1
 * there anyway, and no subnormal then reaches a multiply). */
#ifndef HS_F32_EXP_RR2_P5_CONSTS_H
#define HS_F32_EXP_RR2_P5_CONSTS_H

#define HS_EXPF_LO_CUT (-0x1.5D589Ep6f)
#define HS_EXPF_HI_CUT (0x1.62E42Ep6f)
#define HS_EXPF_TINY (0x1p-60f)
#define HS_EXPF_LOG2E (0x1.715476p+0f)
#define HS_EXPF_MAGIC_BIAS (0x1.8p23f)
#define HS_EXPF_MINUS_LN2_HI (-0x1.62E400p-1f)
#define HS_EXPF_MINUS_LN2_LO (-0x1.7F7D1Cp-20f)
#define HS_EXPF_C5 (0x1.0F9F9Cp-7f)
#define HS_EXPF_C4 (0x1.573A1Ap-5f)
#define HS_EXPF_C3 (0x1.555A80p-3f)
#define HS_EXPF_C2 (0x1.FFFDC6p-2f)
#define HS_EXPF_C1 (0x1.FFFFF6p-1f)
/* exp(LO_CUT) = FLT_MIN * (1 + 4.8e-6): a caller of a clamped form that
 * flushes small results itself zeroes every result below this */
#define HS_EXPF_LO_FLUSH (0x1.0001p-126f) /* FLT_MIN * (1 + 2^-16) */

#endif
