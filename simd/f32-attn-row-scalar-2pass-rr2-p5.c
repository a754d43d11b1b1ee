/* SPDX-License-Identifier: MIT */
/* f32 fused attention row over a list of key segments, portable C,
 * two passes (exact max, then sum and weighted values with that max),
 * rr2-p5 exp (attn-f32-exp.h; no libm).
 *
 * Error bound (u = 2^-24), as for the online scalar kernel: each score
 * s_j = (q . k_j) * inv_tau carries |ds_j| <= (dk + 1) u sum_c |q_c k_jc
 * inv_tau|; each weight e_j = exp(s_j - max) has relative error
 * <= |ds_j| + |ds_max| + 4 u; sums are blocked (64 keys per segment
 * chunk, then the running total), so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j |v_jc|
 * to first order; here there is no rescaling at all (tests/test-skip.c).
 *
 * Why two passes (exact skipping, src/run/forward-impl.h): the max is fixed
 * before any weight is formed, and every segment is walked in chunks of
 * 64 keys from its own start, so a key's score, weight and the chunk sums
 * depend only on its segment. A segment whose every score s has
 * s - max < -88 contributes exp(s - max) = +0 exactly (inputs below the
 * cutoff -87.34 flush to +0), a chunk sum of +0 and a chunk accumulator of
 * +0 (0 * v = +-0 for finite v, and +0 + -0 = +0), and adding +0 to a
 * running total that is never -0 leaves it unchanged: leaving such a
 * segment out of the list gives the same bits.
 *
 * Outputs (overwritten, no state carried in): st->max = max of the scores
 * (-inf when every score is -inf or there are none), st->sum and acc[0..dv)
 * = sum_j e_j and sum_j e_j v_j. -inf scores add exactly 0; a +inf max
 * gives the +inf scores weight 1, others 0; a NaN score makes sum and every
 * acc NaN (st->max is then the max of the other scores). */
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 64

HS_ALWAYS_INLINE float score(
    size_t dk, const float *q, const float *kj, float inv_tau, int bias,
    float slope, int64_t p) {
  float d = 0;
  for (size_t c = 0; c < dk; c++) d += q[c] * kj[c];
  d *= inv_tau;
  return bias ? fmaf(slope, (float)(int32_t)p, d) : d;
}

/* Both entry points; bias != 0: each score gets the relative bias (one
 * FMA, as the online _bias kernel), the same instructions otherwise. */
HS_ALWAYS_INLINE void run2(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const float *q,
    const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau,
    int bias, float slope, int64_t d0, hs_f32_online *st, float *acc) {
  /* pass 1: m = max score (NaN skipped by the compare), has_nan */
  float m = -INFINITY;
  int has_nan = 0;
  for (size_t t = 0; t < nseg; t++)
    for (size_t j = seg[2 * t]; j < seg[2 * t] + seg[2 * t + 1]; j++) {
      float s = score(dk, q, k + j * ldk, inv_tau, bias, slope, d0 + (int64_t)j);
      if (s > m) m = s;
      has_nan |= isnan(s);
    }
  st->max = m;
  st->sum = has_nan ? NAN : 0.0f;
  for (size_t c = 0; c < dv; c++) acc[c] = has_nan ? NAN : 0.0f;
  if (has_nan || m == -INFINITY) return;
  /* pass 2: chunks of 64 keys from each segment's start */
  float sum = 0, bacc[HS_ATTN_MAX_D];
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      float bsum = 0;
      for (size_t c = 0; c < dv; c++) bacc[c] = 0;
      for (size_t j = j0; j < j0 + nb; j++) {
        float s = score(dk, q, k + j * ldk, inv_tau, bias, slope, d0 + (int64_t)j);
        /* e in [0, 1]; exactly +0 below the cutoff */
        float e = m == INFINITY ? (s == m ? 1.0f : 0.0f)
                                : hs_attn_expf_scalar(s - m);
        if (e == 0) continue;
        bsum += e;
        const float *vj = v + j * ldv;
        for (size_t c = 0; c < dv; c++) bacc[c] += e * vj[c];
      }
      sum += bsum;
      for (size_t c = 0; c < dv; c++) acc[c] += bacc[c];
    }
  }
  st->sum = sum;
}

void hs_f32_attn_row_2pass_ukernel__scalar_rr2_p5(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const float *q,
    const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau,
    hs_f32_online *st, float *acc) {
  run2(nseg, seg, dk, dv, q, k, ldk, v, ldv, inv_tau, 0, 0, 0, st, acc);
}

/* The relative-bias variant (hs_f32_attn_row_2pass_bias_fn): the error
 * bound above holds for the biased scores with |ds_j| one rounding
 * larger. */
void hs_f32_attn_row_2pass_bias_ukernel__scalar_rr2_p5(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const float *q,
    const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau,
    float slope, int64_t d0, hs_f32_online *st, float *acc) {
  run2(nseg, seg, dk, dv, q, k, ldk, v, ldv, inv_tau, 1, slope, d0, st, acc);
}

/* f32_attn_rows_2pass: the rows one after the other (the reference; the
 * vector kernels interleave them), slope != 0 the biased ones. */
void hs_f32_attn_rows_2pass_ukernel__scalar_rr2_p5(
    size_t nr, const size_t *nseg, const size_t *const *seg, size_t dk, size_t dv,
    const float *q, size_t ldq, const float *k, size_t ldk, const float *v,
    size_t ldv, float inv_tau, float slope, const int64_t *d0, hs_f32_online *st,
    float *acc, size_t ldacc) {
  for (size_t r = 0; r < nr; r++)
    if (slope != 0)
      hs_f32_attn_row_2pass_bias_ukernel__scalar_rr2_p5(
          nseg[r], seg[r], dk, dv, q + r * ldq, k, ldk, v, ldv, inv_tau, slope, d0[r],
          st + r, acc + r * ldacc);
    else
      hs_f32_attn_row_2pass_ukernel__scalar_rr2_p5(nseg[r], seg[r], dk, dv, q + r * ldq,
                                                   k, ldk, v, ldv, inv_tau, st + r,
                                                   acc + r * ldacc);
}
