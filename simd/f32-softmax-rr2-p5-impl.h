/* SPDX-License-Identifier: MIT */
/* y = softmax(x * inv_tau), three passes, rr2-p5 exp, written once over
 * the vector vocabulary (vec-f32-<isa>.h, included first); the contract
 * (masking, +inf, NaN, flushing, aliasing) is in f32-softmax-common.h.
 *
 * Passes: (1) m = max of the scores, rmax's body (f32-rmax-impl.h); (2) e_i = exp(s_i - m) stored in
 * y and summed in blocks of 8 iterations of 4 vectors, each block's float
 * lanes then added exactly into doubles (vfd_add); (3) y_i = e_i *
 * fl(1/sum), e_i below the flush threshold zeroed first so that no
 * product is subnormal (vf_mul_flush). No branch on data inside a pass.
 * Pass 2 keeps four accumulators where the ISA has 32 vector registers
 * (VF_REGS) and two of pair sums where it has 16: there the 11 exp
 * constants, m, inv_tau and the temporaries fill the registers, and a
 * spilled accumulator puts a store-to-load trip on the loop-carried chain.
 * Tails (n mod VF_LANES) are masked: nothing past x[n-1] or y[n-1] is
 * touched.
 *
 * Error: each y_i within 6 ULP (+ 2 FLT_MIN absolute, for flushed outputs)
 * of the exact softmax of the float differences d_i = fl(fl(x_i*inv_tau) - m)
 * (tests/test-f32-softmax.c; measured 3.9 ULP): exp is within 2 ULP of e_i,
 * which can be up to twice as many ULP of y_i when e_i and y_i sit at
 * opposite ends of their binades, plus fl(1/sum) and the product.
 * A row sums to 1 within 6e-7 relative at any n: each float lane
 * accumulator adds at most 8 terms (pair sums) of a block before it is
 * folded into a double, then fl(1/sum) and the products add 2u (u = 2^-24). */
#ifndef HS_F32_SOFTMAX_RR2_P5_IMPL_H
#define HS_F32_SOFTMAX_RR2_P5_IMPL_H

#include "f32-exp-rr2-p5-vec.h"
#include "f32-rmax-impl.h"
#include "f32-softmax-common.h"

/* d = s - m <= 0 for 4 vectors from x + i: e = exp(max(d, lo)) in (0, 1]
 * (e < thr is flushed by pass 3), stored into y + i */
#define HS_SOFTMAX_EXP4(e0, e1, e2, e3)                                                     \
  const vf e0 = hs_vexpminus_clamped_rr2_p5(                                                \
      vf_sub(hs_f32_score(vf_loadu(x + i), vinv, scaled), vm));                         \
  const vf e1 = hs_vexpminus_clamped_rr2_p5(                                                \
      vf_sub(hs_f32_score(vf_loadu(x + i + VF_LANES), vinv, scaled), vm));              \
  const vf e2 = hs_vexpminus_clamped_rr2_p5(                                                \
      vf_sub(hs_f32_score(vf_loadu(x + i + 2 * VF_LANES), vinv, scaled), vm));          \
  const vf e3 = hs_vexpminus_clamped_rr2_p5(                                                \
      vf_sub(hs_f32_score(vf_loadu(x + i + 3 * VF_LANES), vinv, scaled), vm));          \
  vf_storeu(y + i, e0);                                                                     \
  vf_storeu(y + i + VF_LANES, e1);                                                          \
  vf_storeu(y + i + 2 * VF_LANES, e2);                                                      \
  vf_storeu(y + i + 3 * VF_LANES, e3)

/* pass 2: y_i = exp(s_i - m), returns sum_i y_i. m is finite and no score
 * is NaN, so every d = s - m is in [-inf, 0] and never NaN. */
HS_ALWAYS_INLINE double hs_softmax_exp_sum(size_t n, const float *x, float *y, float inv_tau,
                                           float m, int scaled) {
  enum { BLOCK = 32 * VF_LANES };
  const vf vinv = vf_set1(inv_tau), vm = vf_set1(m);
  vfd dsum = vfd_zero();
  size_t i = 0;
  while (i + 4 * VF_LANES <= n) {
    /* one block: at most BLOCK elements, a multiple of 4 vectors */
    const size_t left = (n - i) & ~(size_t)(4 * VF_LANES - 1);
    const size_t end = i + (left < BLOCK ? left : BLOCK);
    vf acc0 = vf_zero(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (; i < end; i += 4 * VF_LANES) {
      HS_SOFTMAX_EXP4(e0, e1, e2, e3);
      if (VF_REGS < 32) {
        acc0 = vf_add(acc0, vf_add(e0, e1));
        acc1 = vf_add(acc1, vf_add(e2, e3));
      } else {
        acc0 = vf_add(acc0, e0);
        acc1 = vf_add(acc1, e1);
        acc2 = vf_add(acc2, e2);
        acc3 = vf_add(acc3, e3);
      }
    }
    /* the block sum joins the double total */
    dsum = vfd_add(dsum, VF_REGS < 32 ? vf_add(acc0, acc1)
                                      : vf_add(vf_add(acc0, acc1), vf_add(acc2, acc3)));
  }
  /* at most 3 full vectors and a partial one: at most 4 terms per lane */
  vf acc = vf_zero();
  for (; i + VF_LANES <= n; i += VF_LANES) {
    const vf e = hs_vexpminus_clamped_rr2_p5(
        vf_sub(hs_f32_score(vf_loadu(x + i), vinv, scaled), vm));
    vf_storeu(y + i, e);
    acc = vf_add(acc, e);
  }
  if (i < n) {
    const vmask live = vmask_first(n - i);
    /* dead lanes get d = 0, a valid input, and are zeroed after the exp */
    const vf d = vf_select(
        live, vf_sub(hs_f32_score(vf_load_masked(x + i, live), vinv, scaled), vm), vf_zero());
    const vf e = vf_select(live, hs_vexpminus_clamped_rr2_p5(d), vf_zero());
    vf_store_tail(y + i, e, n - i);
    acc = vf_add(acc, e);
  }
  return vfd_hsum(vfd_add(dsum, acc));
}
#undef HS_SOFTMAX_EXP4

/* pass 3: y_i = (e_i < thr ? 0 : e_i) * r, in place on y */
HS_ALWAYS_INLINE void hs_softmax_scale_all(size_t n, float *y, float r, float thr) {
  const vf vr = vf_set1(r), vthr = vf_set1(thr);
  size_t i = 0;
  for (; i + 4 * VF_LANES <= n; i += 4 * VF_LANES) {
    const vf e0 = vf_loadu(y + i);
    const vf e1 = vf_loadu(y + i + VF_LANES);
    const vf e2 = vf_loadu(y + i + 2 * VF_LANES);
    const vf e3 = vf_loadu(y + i + 3 * VF_LANES);
    vf_storeu(y + i, vf_mul_flush(e0, vthr, vr));
    vf_storeu(y + i + VF_LANES, vf_mul_flush(e1, vthr, vr));
    vf_storeu(y + i + 2 * VF_LANES, vf_mul_flush(e2, vthr, vr));
    vf_storeu(y + i + 3 * VF_LANES, vf_mul_flush(e3, vthr, vr));
  }
  for (; i + VF_LANES <= n; i += VF_LANES)
    vf_storeu(y + i, vf_mul_flush(vf_loadu(y + i), vthr, vr));
  if (i < n) {
    const vmask live = vmask_first(n - i);
    vf_store_tail(y + i, vf_mul_flush(vf_load_masked(y + i, live), vthr, vr), n - i);
  }
}

HS_ALWAYS_INLINE void hs_f32_softmax_impl(size_t n, const float *x, float *y, float inv_tau) {
  if (n == 0) return;
  /* inv_tau == 1: the score multiply is the identity, skip it */
  const int scaled = inv_tau != 1.0f;
  /* pass 1: m = max_i fl(x_i * inv_tau). For 0 < inv_tau < inf rounding is
   * monotone, so that is fl(max_i x_i * inv_tau): one multiply per row. */
  int has_nan;
  float m;
  if (inv_tau > 0.0f && inv_tau < INFINITY)
    m = hs_f32_max_scores_impl(n, x, 1.0f, 0, &has_nan) * inv_tau;
  else
    m = hs_f32_max_scores_impl(n, x, inv_tau, 1, &has_nan);
  if (has_nan || !(m > -INFINITY && m < INFINITY)) {
    hs_f32_softmax_special(n, x, y, inv_tau, m, has_nan);
    return;
  }
  /* pass 2: y_i = exp(s_i - m), sum >= 1 (the maximum gives exp(0) = 1) */
  const double sum = scaled ? hs_softmax_exp_sum(n, x, y, inv_tau, m, 1)
                            : hs_softmax_exp_sum(n, x, y, inv_tau, m, 0);
  /* pass 3: y_i = e_i / sum, outputs below FLT_MIN flushed to +0 */
  float r, thr;
  hs_f32_softmax_scale(sum, &r, &thr);
  hs_softmax_scale_all(n, y, r, thr);
}

#endif
