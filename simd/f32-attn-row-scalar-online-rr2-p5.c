/* SPDX-License-Identifier: MIT */
/* f32 fused attention row, portable C, online softmax, rr2-p5 exp (the
 * same algorithm as the vector kernels, see attn-f32-exp.h; no libm).
 *
 * Error bound (u = 2^-24): each score s_j = (q . k_j) * inv_tau carries
 *   |ds_j| <= (dk + 1) u sum_c |q_c k_jc inv_tau|     (recursive dot, scale);
 * each weight e_j = exp(s_j - max) has relative error
 *   <= |ds_j| + |ds_max| + 4 u   (subtraction, 2.5-ULP portable exp); sums
 * are blocked (64 keys, then the running total), so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j |v_jc|
 * to first order (checked by tests/test-f32-attn-row.c).
 *
 * Keys are walked in blocks of 64: scores, block max, one rescale of sum
 * and acc if the max grew, exponentials, then the weighted values.
 * -inf scores add exactly 0; an all -inf row leaves max = -inf, sum = 0; a
 * +inf score takes weight 1 (others 0); a NaN score makes sum and acc NaN. */
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 64

/* The row loop; bias != 0: the relative-bias variant, each score
 * fmaf(slope, (float)(d0 + j), s_j) (one rounding, as the vector
 * kernels' FMA) before the block's max. */
HS_ALWAYS_INLINE void row_run(
    size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk,
    const float *v, size_t ldv, float inv_tau, int bias, float slope,
    int64_t d0, hs_f32_online *st, float *acc) {
  float sb[BLK], bacc[HS_ATTN_MAX_D];
  float m = st->max, sum = st->sum;
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    /* sb = scores, bm = their max (NaN skipped: comparisons are false) */
    float bm = -INFINITY;
    for (size_t j = 0; j < nb; j++) {
      const float *kj = k + (j0 + j) * ldk;
      float d = 0;
      for (size_t c = 0; c < dk; c++) d += q[c] * kj[c];
      sb[j] = d * inv_tau;
      if (bias)
        sb[j] = fmaf(slope, (float)(int32_t)(d0 + (int64_t)(j0 + j)), sb[j]);
      if (sb[j] > bm) bm = sb[j];
    }
    if (bm > m) {
      /* the max grows: rescale what was summed so far, once per block */
      if (m != -INFINITY) {
        float scale = hs_attn_expf_scalar(m - bm); /* in [0, 1] */
        sum *= scale;
        for (size_t c = 0; c < dv; c++) acc[c] *= scale;
      }
      m = bm;
    }
    int has_nan = 0;
    for (size_t j = 0; j < nb; j++) has_nan |= isnan(sb[j]);
    if (has_nan) {
      /* a NaN score: sum and acc become NaN */
      sum += NAN;
      for (size_t c = 0; c < dv; c++) acc[c] += NAN;
    }
    if (m == -INFINITY) continue; /* every score so far is -inf: adds 0 */
    /* block sums of e_j = exp(s_j - m) in [0, 1] and of e_j v_j */
    float bsum = 0;
    for (size_t c = 0; c < dv; c++) bacc[c] = 0;
    for (size_t j = 0; j < nb; j++) {
      float e = m == INFINITY ? (sb[j] == m ? 1.0f : 0.0f)
                              : hs_attn_expf_scalar(sb[j] - m);
      if (e == 0 || isnan(e)) continue; /* NaN already poisoned the state */
      bsum += e;
      const float *vj = v + (j0 + j) * ldv;
      for (size_t c = 0; c < dv; c++) bacc[c] += e * vj[c];
    }
    sum += bsum;
    for (size_t c = 0; c < dv; c++) acc[c] += bacc[c];
  }
  st->max = m;
  st->sum = sum;
}

void hs_f32_attn_row_ukernel__scalar_online_rr2_p5(
    size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk,
    const float *v, size_t ldv, float inv_tau, hs_f32_online *st, float *acc) {
  row_run(n, dk, dv, q, k, ldk, v, ldv, inv_tau, 0, 0, 0, st, acc);
}

/* The relative-bias variant (hs_f32_attn_row_bias_fn). */
void hs_f32_attn_row_bias_ukernel__scalar_online_rr2_p5(
    size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk,
    const float *v, size_t ldv, float inv_tau, float slope, int64_t d0,
    hs_f32_online *st, float *acc) {
  row_run(n, dk, dv, q, k, ldk, v, ldv, inv_tau, 1, slope, d0, st, acc);
}
