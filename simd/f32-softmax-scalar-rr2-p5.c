/* SPDX-License-Identifier: MIT */
/* y = softmax(x * inv_tau), portable C, three passes, rr2-p5 exp.
 *
 * Error: each y_i within 7 ULP (+ 2 FLT_MIN absolute, for flushed outputs)
 * of the exact softmax of the float differences d_i = fl(fl(x_i*inv_tau) - m)
 * (tests/test-f32-softmax.c; measured 3.9 ULP): exp is within 2.5 ULP of e_i,
 * which can be up to twice as many ULP of y_i when e_i and y_i sit at
 * opposite ends of their binades, plus fl(1/sum) and the product. The row
 * sum is accumulated in double, so a row sums to 1 within 2e-7 relative at
 * any n (fl(1/sum) and the products, 2u).
 *
 * Passes: (1) m = max of the scores and a NaN flag; (2) e_i = exp(s_i - m)
 * stored in y and summed; (3) y_i = e_i * fl(1/sum). Rows with a NaN or a
 * non-finite maximum go to hs_f32_softmax_special; the full contract
 * (masking, +inf, NaN, flushing, aliasing) is in f32-softmax-common.h. */
#include "f32-exp-scalar-rr2-p5.h"
#include "f32-softmax-common.h"
#include "ukernels.h"

/* max of s_i = x_i * scale (scale == 1 skips the multiply, which is then
 * exact anyway); *has_nan = whether any s_i is NaN. */
static inline float scalar_max_scores(size_t n, const float *x, float scale,
                                      int scaled, int *has_nan) {
  float m0 = -INFINITY, m1 = -INFINITY;
  int nan = 0;
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const float a = scaled ? x[i] * scale : x[i];
    const float b = scaled ? x[i + 1] * scale : x[i + 1];
    m0 = a > m0 ? a : m0;
    m1 = b > m1 ? b : m1;
    nan |= (a != a) | (b != b);
  }
  if (i < n) {
    const float a = scaled ? x[i] * scale : x[i];
    m0 = a > m0 ? a : m0;
    nan |= a != a;
  }
  *has_nan = nan;
  return m1 > m0 ? m1 : m0;
}

void hs_f32_softmax_ukernel__scalar_rr2_p5(size_t n, const float *x, float *y,
                                           float inv_tau) {
  if (n == 0) return;
  const int scaled = inv_tau != 1.0f;
  /* pass 1: m = max_i fl(x_i * inv_tau). For 0 < inv_tau < inf rounding is
   * monotone, so that is fl(max_i x_i * inv_tau): one multiply per row. */
  int has_nan;
  float m;
  if (inv_tau > 0.0f && inv_tau < INFINITY)
    m = scalar_max_scores(n, x, 1.0f, 0, &has_nan) * inv_tau;
  else
    m = scalar_max_scores(n, x, inv_tau, 1, &has_nan);
  if (has_nan || !(m > -INFINITY && m < INFINITY)) {
    hs_f32_softmax_special(n, x, y, inv_tau, m, has_nan);
    return;
  }
  /* pass 2: y_i = e_i = exp(s_i - m) in [0, 1]; two double sums */
  double sum0 = 0.0, sum1 = 0.0;
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const float s0 = scaled ? x[i] * inv_tau : x[i];
    const float s1 = scaled ? x[i + 1] * inv_tau : x[i + 1];
    /* d <= 0 and not NaN: s <= m, and the row has no NaN or +inf */
    const float e0 = hs_f32_expminus_clamped_scalar_rr2_p5(s0 - m);
    const float e1 = hs_f32_expminus_clamped_scalar_rr2_p5(s1 - m);
    y[i] = e0;
    y[i + 1] = e1;
    sum0 += e0;
    sum1 += e1;
  }
  if (i < n) {
    const float s0 = scaled ? x[i] * inv_tau : x[i];
    const float e0 = hs_f32_expminus_clamped_scalar_rr2_p5(s0 - m);
    y[i] = e0;
    sum0 += e0;
  }
  /* pass 3: y_i = e_i / sum, outputs below FLT_MIN flushed to +0 */
  float r, thr;
  hs_f32_softmax_scale(sum0 + sum1, &r, &thr);
  for (i = 0; i < n; i++) {
    const float e = y[i];
    /* a bit mask, not a branch: the time must not depend on the data */
    y[i] = hs_f32_from_bits(hs_f32_to_bits(e) & ~hs_f32_mask_if(e < thr)) * r;
  }
}
