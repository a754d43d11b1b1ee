/* SPDX-License-Identifier: MIT */
/* f64 fused attention row, portable C, online softmax, rr2-p11 exp in
 * portable C (f64-exp-rr2-p11.h, the vector kernels' algorithm; no libm).
 *
 * Error bound (u = 2^-53): each score s_j = (q . k_j) * inv_tau carries
 *   |ds_j| <= (dk + 1) u sum_c |q_c k_jc inv_tau|;
 * each weight e_j = exp(s_j - max) has relative error
 *   <= |ds_j| + |ds_max| + 3 u (subtraction, 2-ULP exp); blocked sums, so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j |v_jc|
 * to first order (checked by tests/test-f64-kernels.c).
 * Special values as the f32 kernels: -inf scores add 0; an all -inf row
 * leaves max = -inf, sum = 0; +inf takes weight 1; NaN poisons sum/acc. */
#include <math.h>

#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64

void hs_f64_attn_row_ukernel__scalar_online_rr2_p11(
    size_t n, size_t dk, size_t dv, const double *q, const double *k,
    size_t ldk, const double *v, size_t ldv, double inv_tau, hs_f64_online *st,
    double *acc) {
  double sb[BLK], bacc[HS_ATTN_MAX_D];
  double m = st->max, sum = st->sum;
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    /* sb = scores, bm = their max (NaN skipped) */
    double bm = -INFINITY;
    for (size_t j = 0; j < nb; j++) {
      const double *kj = k + (j0 + j) * ldk;
      double d = 0;
      for (size_t c = 0; c < dk; c++) d += q[c] * kj[c];
      sb[j] = d * inv_tau;
      if (sb[j] > bm) bm = sb[j];
    }
    if (bm > m) {
      /* the max grows: rescale once per block */
      if (m != -INFINITY) {
        double scale = hs_f64_exp_scalar(m - bm); /* in [0, 1] */
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
    if (m == -INFINITY) continue; /* every score so far is -inf */
    /* block sums of e_j = exp(s_j - m) in [0, 1] and of e_j v_j */
    double bsum = 0;
    for (size_t c = 0; c < dv; c++) bacc[c] = 0;
    for (size_t j = 0; j < nb; j++) {
      double e = m == INFINITY ? (sb[j] == m ? 1.0 : 0.0)
                               : hs_f64_exp_scalar(sb[j] - m);
      if (e == 0 || isnan(e)) continue; /* NaN already poisoned the state */
      bsum += e;
      const double *vj = v + (j0 + j) * ldv;
      for (size_t c = 0; c < dv; c++) bacc[c] += e * vj[c];
    }
    sum += bsum;
    for (size_t c = 0; c < dv; c++) acc[c] += bacc[c];
  }
  st->max = m;
  st->sum = sum;
}
