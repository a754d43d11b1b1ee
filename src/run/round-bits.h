/* SPDX-License-Identifier: MIT */
/* The common cases of the score and q/k/v rounding (hs_round_score in
 * forward.c: round to nearest even with an 8-bit significand, bf16, from
 * the float value, or an 11-bit one, f16) by integer operations on the
 * bits, where the general form takes frexp, ldexp and nearbyint (a third
 * of a rel head's bf16 run went there). The same value wherever it
 * answers: for a normal float f (bf16) and a double x with 2^-14 <= |x| <
 * 65520 (f16) the format's spacing near the value is one unit of its
 * 8th (11th) significant bit, so rounding at that bit of the IEEE
 * encoding, ties to even, is nearbyint(x / q) * q; a carry out of the
 * significand moves into the exponent, which is that rounding's result
 * too. Everything else (zero, subnormal, infinite, NaN, a bf16 result
 * past the largest float, f16's subnormal and overflow ranges) is left to
 * the general form: returns 0 there. */
#ifndef HS_RUN_ROUND_BITS_H
#define HS_RUN_ROUND_BITS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hardsoft.h"

static inline int hs_round_bits(double x, hs_score_round r, double *y) {
  if (r == HS_ROUND_BF16) {
    const float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    const uint32_t ex = (u >> 23) & 0xFF;
    if (ex == 0 || ex == 0xFF) return 0;
    u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
    if (((u >> 23) & 0xFF) == 0xFF) return 0; /* past FLT_MAX */
    float g;
    memcpy(&g, &u, sizeof g);
    *y = g;
    return 1;
  }
  if (r == HS_ROUND_F16) {
    const double a = fabs(x);
    if (!(a >= 0x1p-14 && a < 65520.0)) return 0;
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    const uint64_t half = (uint64_t)1 << 41;
    u = (u + (half - 1) + ((u >> 42) & 1)) & ~((half << 1) - 1);
    memcpy(y, &u, sizeof u);
    return 1;
  }
  return 0;
}

#endif
