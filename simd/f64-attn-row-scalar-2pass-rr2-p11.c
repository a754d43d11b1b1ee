/* SPDX-License-Identifier: MIT */
/* f64 fused attention row over a list of key segments, portable C, two
 * passes (exact max, then sum and weighted values with that max), rr2-p11
 * exp in portable C (f64-exp-rr2-p11.h; no libm): the f32 two-pass
 * kernel's algorithm in double.
 *
 * Error bound (u = 2^-53), as for the online scalar kernel: each score
 * s_j = (q . k_j) * inv_tau carries |ds_j| <= (dk + 1) u sum_c |q_c k_jc
 * inv_tau|; each weight e_j = exp(s_j - max) has relative error
 * <= |ds_j| + |ds_max| + 3 u (subtraction, 2-ULP exp); sums are blocked
 * (64 keys per segment chunk, then the running total), so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 66) u) sum_j e_j |v_jc|
 * to first order, with no rescaling, plus under n 2^-126 sum_j e_j (and
 * n 2^-126 max_j |v_jc|) from the flushed weights (tests/test-f64-2pass.c).
 *
 * Skipping (HS_F64_SKIP_CUT in hardsoft/kernels.h): the max is fixed
 * before any weight is formed, and every segment is walked in chunks of
 * 64 keys from its own start, so a key's score, weight and its chunk's
 * sums depend only on its segment. Every difference below
 * HS_F64_WEIGHT_CUT = -87.5 (and -inf) weighs exactly +0 (a weight under
 * 2^-126 of the max's: hardsoft/kernels.h says why that costs under one
 * rounding), and a weight is a normal number otherwise. A key with
 * s - max < -88 has a computed difference <= -88 (monotone rounding, -88
 * representable), so weight +0; such keys are skipped here before their
 * values are read, so a segment of them adds nothing at all, and the
 * running totals (which start at +0) are unchanged: leaving it out of the
 * list gives the same bits.
 *
 * Outputs (overwritten, no state carried in): st->max = max of the scores
 * (-inf when every score is -inf or there are none), st->sum and acc[0..dv)
 * = sum_j e_j and sum_j e_j v_j. -inf scores add exactly 0; a +inf max
 * gives the +inf scores weight 1, others 0; a NaN score makes sum and every
 * acc NaN (st->max is then the max of the other scores). */
#include <math.h>

#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64

static double score(size_t dk, const double *q, const double *kj, double inv_tau) {
  double d = 0;
  for (size_t c = 0; c < dk; c++) d += q[c] * kj[c];
  return d * inv_tau;
}

void hs_f64_attn_row_2pass_ukernel__scalar_rr2_p11(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const double *q,
    const double *k, size_t ldk, const double *v, size_t ldv, double inv_tau,
    hs_f64_online *st, double *acc) {
  /* pass 1: m = max score (NaN skipped by the compare), has_nan */
  double m = -INFINITY;
  int has_nan = 0;
  for (size_t t = 0; t < nseg; t++)
    for (size_t j = seg[2 * t]; j < seg[2 * t] + seg[2 * t + 1]; j++) {
      double s = score(dk, q, k + j * ldk, inv_tau);
      if (s > m) m = s;
      has_nan |= isnan(s);
    }
  st->max = m;
  st->sum = has_nan ? NAN : 0.0;
  for (size_t c = 0; c < dv; c++) acc[c] = has_nan ? NAN : 0.0;
  if (has_nan || m == -INFINITY) return;
  /* pass 2: chunks of 64 keys from each segment's start */
  double sum = 0, bacc[HS_ATTN_MAX_D];
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      double bsum = 0;
      for (size_t c = 0; c < dv; c++) bacc[c] = 0;
      for (size_t j = j0; j < j0 + nb; j++) {
        double s = score(dk, q, k + j * ldk, inv_tau);
        /* e in [0, 1]; exactly +0 below the cutoff */
        double e = m == INFINITY ? (s == m ? 1.0 : 0.0)
                                 : hs_f64_exp_below_scalar(s - m, HS_F64_WEIGHT_CUT);
        if (e == 0) continue;
        bsum += e;
        const double *vj = v + j * ldv;
        for (size_t c = 0; c < dv; c++) bacc[c] += e * vj[c];
      }
      sum += bsum;
      for (size_t c = 0; c < dv; c++) acc[c] += bacc[c];
    }
  }
  st->sum = sum;
}

/* f64_attn_rows_2pass: the rows one after the other (the reference; the
 * AVX-512 kernel takes them by stage) */
void hs_f64_attn_rows_2pass_ukernel__scalar_rr2_p11(
    size_t nr, const size_t *nseg, const size_t *const *seg, size_t dk, size_t dv,
    const double *q, size_t ldq, const double *k, size_t ldk, const double *v,
    size_t ldv, double inv_tau, hs_f64_online *st, double *acc, size_t ldacc) {
  for (size_t r = 0; r < nr; r++)
    hs_f64_attn_row_2pass_ukernel__scalar_rr2_p11(nseg[r], seg[r], dk, dv, q + r * ldq, k,
                                                  ldk, v, ldv, inv_tau, st + r,
                                                  acc + r * ldacc);
}
