/* SPDX-License-Identifier: MIT */
/* The three passes of the AVX2 and AVX-512 softmax kernels (internal),
 * written once. Include after the ISA's own HS_ALWAYS_INLINE helpers:
 *   max_scores(n, x, inv_tau, scaled, &has_nan)  pass 1, the max score;
 *   exp_store_sum(n, x, y, inv_tau, m, scaled)   pass 2, y_i = exp(s_i - m)
 *                                                and their sum;
 *   scale_all(n, y, r, thr)                      pass 3, y_i *= r, flushed.
 * softmax_run is then the kernel (contract in f32-softmax-common.h). */
#ifndef HS_F32_SOFTMAX_RUN_H
#define HS_F32_SOFTMAX_RUN_H

HS_ALWAYS_INLINE void softmax_run(size_t n, const float *x, float *y, float inv_tau) {
  if (n == 0) return;
  /* inv_tau == 1: the score multiply is the identity, skip it */
  const int scaled = inv_tau != 1.0f;
  /* pass 1: m = max_i fl(x_i * inv_tau). For 0 < inv_tau < inf rounding is
   * monotone, so that is fl(max_i x_i * inv_tau): one multiply per row. */
  int has_nan;
  float m;
  if (inv_tau > 0.0f && inv_tau < INFINITY)
    m = max_scores(n, x, 1.0f, 0, &has_nan) * inv_tau;
  else
    m = max_scores(n, x, inv_tau, 1, &has_nan);
  if (has_nan || !(m > -INFINITY && m < INFINITY)) {
    hs_f32_softmax_special(n, x, y, inv_tau, m, has_nan);
    return;
  }
  /* pass 2: y_i = exp(s_i - m), sum >= 1 (the maximum gives exp(0) = 1) */
  const double sum = scaled ? exp_store_sum(n, x, y, inv_tau, m, 1)
                            : exp_store_sum(n, x, y, inv_tau, m, 0);
  /* pass 3: y_i = e_i / sum, outputs below FLT_MIN flushed to +0 */
  float r, thr;
  hs_f32_softmax_scale(sum, &r, &thr);
  scale_all(n, y, r, thr);
}

#endif
