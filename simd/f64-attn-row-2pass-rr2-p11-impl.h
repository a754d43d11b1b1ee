/* SPDX-License-Identifier: MIT */
/* f64 fused attention row over a list of key segments, two passes (exact
 * max, then sum and weighted values with that max), rr2-p11 exp
 * (f64-exp-rr2-p11.h), in chunks of BLK = 64 keys, written once over the
 * f64 vector vocabulary (internal). A kernel file includes one
 * vec-f64-<isa>.h, f64-exp-rr2-p11.h and ukernels.h, defines BLK,
 * includes attn-f64-blocks-avx2.h (the general scores, 4 keys per 256-bit
 * register, on AVX2 and AVX-512) or attn-f64-blocks-vec.h (2 lanes), defines
 * the lane path's parts if it has one (f64-attn-rows-2pass-rr2-p11-impl.h)
 * and
 *   TWOPASS_CONTIG_DKS(X)            X(DK) for each dk of contiguous keys
 *                                    it scores by plain loads;
 *   TWOPASS_SCORES_CONTIG(nb, k, qc, DK, sb)
 *                                    those scores of nb <= BLK keys into
 *                                    sb (-inf up to nb rounded to
 *                                    VD_LANES), returning their max (NaN
 *                                    skipped); qc lane i: q[i mod DK] *
 *                                    inv_tau;
 *   TWOPASS_VALUE_ACCS               4 or 8: the accumulators of values
 *                                    that are not lane-wise (keys j mod
 *                                    it);
 * then includes this header and defines the symbols by
 * HS_DEFINE_F64_ATTN_ROW_2PASS(row, rows).
 *
 * Contiguous keys with a dk the lane path takes and one value column go
 * the lane path (f64-attn-rows-2pass-rr2-p11-impl.h: sums within (n /
 * VD_LANES + 4) u in place of (n/64 + 20) u below). Otherwise scores
 * VD_LANES keys per register: the ISA's contiguous ones, or one FMA chain
 * per key over 4-double chunks (block_scores); values lane-wise for dv ==
 * 1 contiguous, else VD_LANES columns per register and
 * TWOPASS_VALUE_ACCS accumulators.
 *
 * Error bound (u = 2^-53): |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc
 * inv_tau|; weights' relative error <= |ds_j| + |ds_max| + 3 u; chunk sums
 * of at most 64 / VD_LANES adds per lane (64 / TWOPASS_VALUE_ACCS per
 * accumulator, log2 of their count to fold them), a running total per
 * lane (one add per chunk), log2(VD_LANES) to fold its lanes, so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j |v_jc|
 * to first order, with no rescaling (checked by tests/test-f64-2pass.c).
 *
 * Skipping (HS_F64_SKIP_CUT in hardsoft/kernels.h; the scalar kernel's
 * comment): outside the lane path every segment is walked in chunks of
 * 64 from its own start, so a key's score, weight and chunk sums depend
 * only on its segment; a weight is exactly +0 for x = s - max <
 * HS_F64_WEIGHT_CUT = -87.5 (hardsoft/kernels.h) and normal otherwise, so
 * a key with s - max < -88 weighs +0; a chunk of such keys has chunk sums
 * +0 (+0 * v = +-0 for finite v, +0 + -0 = +0), and adding +0 to a
 * running lane, which starts at +0 and is never -0, changes nothing:
 * leaving the segment out gives the same bits.
 *
 * Outputs overwritten: st->max, st->sum, acc[0..dv). -inf scores add 0; a
 * +inf max gives the +inf scores weight 1, others 0; a NaN score makes sum
 * and every acc NaN. */
#ifndef HS_F64_ATTN_ROW_2PASS_RR2_P11_IMPL_H
#define HS_F64_ATTN_ROW_2PASS_RR2_P11_IMPL_H

#include <math.h>

#include "f64-attn-rows-2pass-rr2-p11-impl.h"
#include "f64-attn-values-vec.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#if BLK != 64
#error "the two-pass row's bound takes BLK = 64"
#endif

typedef struct {
  hs_f64_q4 q4; /* the general scores' q * inv_tau */
  vd qc;        /* contiguous keys of a dk in TWOPASS_CONTIG_DKS: lane i = q[i mod dk] * inv_tau */
  int DK;
} hs_f64_2pass_q;

static void hs_f64_2pass_q_init(hs_f64_2pass_q *o, const double *q, size_t dk, size_t ldk,
                                double inv_tau) {
  hs_f64_q4_init(&o->q4, q, dk, inv_tau);
  o->DK = 0;
#define HS_F64_TAKE(D) if (ldk == dk && dk == (D)) o->DK = (D);
  TWOPASS_CONTIG_DKS(HS_F64_TAKE)
#undef HS_F64_TAKE
  o->qc = o->DK ? hs_f64_qc(q, o->DK, inv_tau) : vd_zero();
}

/* Scores of the nb <= 64 keys at k into sb (-inf past nb, up to nb
 * rounded to VD_LANES); their max (NaN skipped). With FIND_NAN, *nan set
 * when one is NaN. */
HS_ALWAYS_INLINE double hs_f64_2pass_scores(const hs_f64_2pass_q *o, size_t nb,
                                            const double *k, size_t ldk, double *sb,
                                            const int FIND_NAN, int *nan) {
  double m;
#define HS_F64_CONTIG(D) if (o->DK == (D)) m = TWOPASS_SCORES_CONTIG(nb, k, o->qc, D, sb); else
  TWOPASS_CONTIG_DKS(HS_F64_CONTIG)
#undef HS_F64_CONTIG
  m = block_scores(nb, k, ldk, o->q4.qv, o->q4.nc, o->q4.mk, o->q4.full, sb);
  if (FIND_NAN) {
    vdmask bad = vd_isnan(vd_zero());
    for (size_t g = 0; g < nb; g += VD_LANES) bad = vdmask_or(bad, vd_isnan(vd_loadu(sb + g)));
    *nan |= vdmask_bits(bad) != 0;
  }
  return m;
}

/* Pass 1: the max of the scores of every listed key (NaN skipped; -inf
 * for none); *nan set when a score is NaN. */
static double hs_f64_2pass_max(const hs_f64_2pass_q *o, size_t nseg, const size_t *seg,
                               const double *k, size_t ldk, double *sb, int *nan) {
  double m = -INFINITY;
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      const double bm = hs_f64_2pass_scores(o, nb, k + j0 * ldk, ldk, sb, 1, nan);
      if (bm > m) m = bm;
    }
  }
  return m;
}

/* One chunk of pass 2: the weights of its nb keys with the fixed max m
 * into sb and the running lanes *vsum; their values into *vacc (v1: one
 * contiguous column, lane-wise) or run. */
HS_ALWAYS_INLINE void hs_f64_2pass_chunk(size_t nb, double *sb, double m, const double *vb,
                                         size_t ldv, size_t dv, int v1, vd *vsum, vd *vacc,
                                         double *run) {
  const vd vm = vd_set1(m);
  vd bsum = vd_zero();
  for (size_t g = 0; g < nb; g += VD_LANES) {
    const vd s = vd_loadu(sb + g);
    vd e;
    if (m != INFINITY) /* s - m <= 0, no NaN; +0 below the cutoff, -inf */
      e = hs_f64_vexp_below(vd_sub(s, vm), HS_F64_WEIGHT_CUT);
    else /* max = +inf: the +inf scores take weight 1, others 0 */
      e = vd_select(vd_cmpeq(s, vm), vd_set1(1.0), vd_zero());
    vd_storeu(sb + g, e);
    bsum = vd_add(bsum, e);
  }
  *vsum = vd_add(*vsum, bsum);
  if (v1) {
    /* lane-wise; e past nb is +0 and the tail load reads nothing past nb */
    vd b = vd_zero();
    for (size_t g = 0; g < nb; g += VD_LANES)
      b = vd_fma(vd_loadu(sb + g), vd_load_tail(vb + g, nb - g < VD_LANES ? nb - g : VD_LANES),
                 b);
    *vacc = vd_add(*vacc, b);
  } else if (dv > 0) {
    hs_f64_values(nb, sb, vb, ldv, dv, run, TWOPASS_VALUE_ACCS);
  }
}

HS_ALWAYS_INLINE void hs_f64_2pass_row(size_t nseg, const size_t *seg, size_t dk, size_t dv,
                                      const double *q, const double *k, size_t ldk,
                                      const double *v, size_t ldv, double inv_tau,
                                      hs_f64_online *st, double *acc) {
  if (hs_f64_rows_lanes(1, &nseg, &seg, dk, dv, q, 0, k, ldk, v, ldv, inv_tau, st, acc, 0))
    return;
  hs_f64_2pass_q o;
  hs_f64_2pass_q_init(&o, q, dk, ldk, inv_tau);
  _Alignas(64) double sb[BLK];
  _Alignas(64) double run[HS_ATTN_MAX_D];
  int nan = 0;
  const double m = hs_f64_2pass_max(&o, nseg, seg, k, ldk, sb, &nan);
  st->max = m;
  st->sum = nan ? NAN : 0.0;
  for (size_t c = 0; c < dv; c++) acc[c] = nan ? NAN : 0.0;
  if (nan || m == -INFINITY) return;
  /* pass 2: weights with the fixed max, chunk sums into running lanes */
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) run[c] = 0.0;
  const int v1 = dv == 1 && ldv == 1;
  vd vsum = vd_zero(), vacc = vd_zero();
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      hs_f64_2pass_scores(&o, nb, k + j0 * ldk, ldk, sb, 0, NULL); /* past nb: -inf */
      hs_f64_2pass_chunk(nb, sb, m, v + j0 * ldv, ldv, dv, v1, &vsum, &vacc, run);
    }
  }
  st->sum = vd_hsum(vsum);
  if (v1) run[0] = vd_hsum(vacc);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}

#define HS_DEFINE_F64_ATTN_ROW_2PASS(row, rows)                                         \
  void row(size_t nseg, const size_t *seg, size_t dk, size_t dv, const double *q,      \
           const double *k, size_t ldk, const double *v, size_t ldv, double inv_tau,   \
           hs_f64_online *st, double *acc) {                                            \
    hs_f64_2pass_row(nseg, seg, dk, dv, q, k, ldk, v, ldv, inv_tau, st, acc);          \
  }                                                                                     \
  HS_DEFINE_F64_ATTN_ROWS_2PASS(rows, row)

#endif
