/* SPDX-License-Identifier: MIT */
/* The parts of softmax that are the same in every ISA: the rows whose
 * maximum score is not finite, and the final scale. Portable C; every name
 * is hs_... static inline.
 *
 * Contract of every f32 softmax kernel, y = softmax(x * inv_tau):
 *   - scores s_i = fl(x_i * inv_tau) first, then m = max_i s_i, then
 *     y_i = exp(s_i - m) / sum_j exp(s_j - m), with the differences
 *     d_i = fl(s_i - m) <= 0 rounded to float (that rounding, |d_i| * 2^-24
 *     relative, is the one error no float kernel avoids);
 *   - a NaN score anywhere (x_i NaN, or x_i * inv_tau NaN as in inf * 0)
 *     makes every y_i a quiet NaN;
 *   - -inf scores (masked entries) get exactly +0; a row with no score
 *     above -inf (n == 0, or every entry masked) gives all +0, never NaN;
 *   - +inf scores (including finite x_i whose score overflows): the limit
 *     of softmax as they grow, i.e. the c entries at +inf share the weight
 *     equally (each gets fl(1/c)) and every other entry gets +0;
 *   - outputs below FLT_MIN * (1 + 2^-16) are flushed to +0 (no subnormal
 *     output, so no subnormal arithmetic in the scale pass);
 *   - x and y may alias exactly (in place); each pass reads x_i before it
 *     writes y_i.
 * The normal path needs m finite and no NaN: the kernel checks both after
 * its max pass and hands every other row to hs_f32_softmax_special. */
#ifndef HS_F32_SOFTMAX_COMMON_H
#define HS_F32_SOFTMAX_COMMON_H

#include <float.h>
#include <math.h>
#include <stddef.h>

/* Rows with a NaN score (has_nan != 0) or a non-finite maximum m. Rare, so
 * plain C serves every ISA. */
static inline void hs_f32_softmax_special(size_t n, const float *x, float *y,
                                          float inv_tau, float m,
                                          int has_nan) {
  if (has_nan) {
    /* a NaN anywhere: the whole row is NaN */
    for (size_t i = 0; i < n; i++) y[i] = NAN;
  } else if (m == INFINITY) {
    /* the limit: the +inf scores share the weight equally, others get 0 */
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += x[i] * inv_tau == INFINITY;
    const float w = (float)(1.0 / (double)c);
    for (size_t i = 0; i < n; i++) y[i] = x[i] * inv_tau == INFINITY ? w : 0.0f;
  } else {
    /* every score is -inf: fully masked, all zeros */
    for (size_t i = 0; i < n; i++) y[i] = 0.0f;
  }
}

/* The scale of the last pass from the row sum (sum >= 1, the maximum
 * contributes exp(0) = 1): r = fl(1/sum), and the flush threshold thr:
 * y_i = e_i < thr ? +0 : e_i * r. With thr = FLT_MIN * sum * (1 + 2^-16),
 * e >= thr implies e * r >= FLT_MIN (the factor covers the roundings of
 * thr, r and the product), so no output and no product is subnormal; and
 * thr >= HS_EXPF_LO_FLUSH, above exp(HS_EXPF_LO_CUT), so the clamped exp of
 * pass 2 (which gives that value, not 0, to -inf and far-below entries)
 * needs no mask of its own. Outputs below FLT_MIN * (1 + 2^-16) become +0. */
static inline void hs_f32_softmax_scale(double sum, float *r, float *thr) {
  *r = (float)(1.0 / sum);
  *thr = (float)((double)FLT_MIN * sum * (1.0 + 0x1p-16));
}

#endif
