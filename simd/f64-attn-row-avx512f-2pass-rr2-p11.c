/* SPDX-License-Identifier: MIT */
/* f64 fused attention row over a list of key segments, AVX-512F, two
 * passes (exact max, then sum and weighted values with that max), rr2-p11
 * exp (f64-exp-rr2-p11.h). The score and value code is that of the online
 * AVX-512 kernel (f64-attn-row-avx512f-online-rr2-p11.c: contiguous dk in
 * {1, 2, 4, 8} 8 keys per 512-bit step, otherwise 4 keys per 256-bit
 * register; values lane-wise for dv == 1 contiguous, else 8 columns per
 * register and 8 accumulators), in chunks of 64 keys; contiguous keys
 * with dk in {1, 2, 4, 8} and one value column take the lane path below.
 *
 * Error bound (u = 2^-53): |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc
 * inv_tau|; weights' relative error <= |ds_j| + |ds_max| + 3 u; chunk sums
 * of at most 8 adds per lane or accumulator, 3 to fold accumulators, a
 * running total per lane (one add per chunk), 3 to fold its lanes, so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j |v_jc|
 * to first order, with no rescaling (checked by tests/test-f64-2pass.c).
 *
 * Skipping (HS_F64_SKIP_CUT in hardsoft/kernels.h; the scalar kernel's
 * comment): outside the lane path every segment is walked in chunks of 64
 * from its own start,
 * so a key's score, its weight and its chunk's sums depend only on its
 * segment; a weight is exactly +0 for x = s - max < HS_F64_WEIGHT_CUT =
 * -87.5 (hardsoft/kernels.h) and normal otherwise, so a key with
 * s - max < -88 weighs +0; a chunk of
 * such keys has chunk sums +0 (+0 * v = +-0 for finite v, +0 + -0 = +0),
 * and adding +0 to a running lane, which starts at +0 and is never -0,
 * changes nothing: leaving the segment out gives the same bits.
 *
 * Outputs overwritten: st->max, st->sum, acc[0..dv). -inf scores add 0; a
 * +inf max gives the +inf scores weight 1, others 0; a NaN score makes sum
 * and every acc NaN. */
#include <immintrin.h>
#include <math.h>

#include "vec-f64-avx512f.h"
#include "f64-attn-values-vec.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f64-blocks-avx2.h"
#include "attn-f64-blocks-avx512f.h"

typedef struct {
  hs_f64_q4 q4;   /* the general scores' q * inv_tau */
  __m512d qc;     /* contiguous dk in {1, 2, 4, 8}: lane i = q[i mod dk] * inv_tau */
  int DK;
} qdesc;

static void qd_init(qdesc *o, const double *q, size_t dk, size_t ldk,
                    double inv_tau) {
  hs_f64_q4_init(&o->q4, q, dk, inv_tau);
  o->DK = ldk == dk && (dk == 1 || dk == 2 || dk == 4 || dk == 8) ? (int)dk : 0;
  o->qc = _mm512_setzero_pd();
  if (o->DK) {
    double t[8];
    for (int i = 0; i < 8; i++) t[i] = q[i % o->DK] * inv_tau;
    o->qc = _mm512_loadu_pd(t);
  }
}

/* Scores of the nb <= 64 keys at k into sb (-inf past nb, up to 64);
 * their max (NaN skipped), *nan set when one is NaN. */
static double scores(const qdesc *o, size_t nb, const double *k, size_t ldk,
                     double *sb, int *nan) {
  double m;
  if (o->DK == 1) m = block_scores_contig(nb, k, o->qc, 1, sb, nan);
  else if (o->DK == 2) m = block_scores_contig(nb, k, o->qc, 2, sb, nan);
  else if (o->DK == 4) m = block_scores_contig(nb, k, o->qc, 4, sb, nan);
  else if (o->DK == 8) m = block_scores_contig(nb, k, o->qc, 8, sb, nan);
  else {
    m = block_scores(nb, k, ldk, o->q4.qv, o->q4.nc, o->q4.mk, o->q4.full, sb);
    for (size_t j = 0; j < nb; j++) *nan |= isnan(sb[j]);
    return m;
  }
  for (size_t j = (nb + 7) & ~(size_t)7; j < BLK; j++) sb[j] = -INFINITY;
  return m;
}

/* Pass 1: the max of the scores of every listed key (NaN skipped; -inf
 * for none); *nan set when a score is NaN. */
static double pass1(const qdesc *o, size_t nseg, const size_t *seg,
                    const double *k, size_t ldk, double *sb, int *nan) {
  double m = -INFINITY;
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      double bm = scores(o, nb, k + j0 * ldk, ldk, sb, nan);
      if (bm > m) m = bm;
    }
  }
  return m;
}

/* The lane path (f64-attn-rows-2pass-rr2-p11-impl.h): contiguous keys
 * with dk in {1, 2, 4, 8} and one value column, 8 keys a group scored by
 * block_scores_contig's arithmetic (group_scores_contig); the same code
 * takes several rows by stage (f64_attn_rows_2pass). */
#define HS_F64_LANES
#define HS_F64_LANE_DKS(X) X(1) X(2) X(4) X(8)
static inline vd hs_vd_exp(vd x) { return hs_f64_vexp_below(x, HS_F64_WEIGHT_CUT); }
static inline vd qc_dk(const double *q, int DK, double inv_tau) {
  double t[8];
  for (int i = 0; i < 8; i++) t[i] = q[i % DK] * inv_tau;
  return _mm512_loadu_pd(t);
}
HS_ALWAYS_INLINE vd group_scores_dk(
    const double *k, size_t g, unsigned lo, unsigned hi, vd qc, int DK) {
  return group_scores_contig(k, g, lo, hi, qc, DK);
}
static inline vd group_values1(const double *v, size_t g, unsigned lo, unsigned hi) {
  return _mm512_maskz_loadu_pd(hs_f64_lanes(lo, hi), v + g);
}
#include "f64-attn-rows-2pass-rr2-p11-impl.h"

void hs_f64_attn_row_2pass_ukernel__avx512f_rr2_p11(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const double *q,
    const double *k, size_t ldk, const double *v, size_t ldv, double inv_tau,
    hs_f64_online *st, double *acc) {
  if (hs_f64_rows_lanes(1, &nseg, &seg, dk, dv, q, 0, k, ldk, v, ldv, inv_tau, st, acc, 0))
    return;
  qdesc o;
  qd_init(&o, q, dk, ldk, inv_tau);
  _Alignas(64) double sb[BLK];
  _Alignas(64) double run[HS_ATTN_MAX_D];
  int nan = 0;
  const double m = pass1(&o, nseg, seg, k, ldk, sb, &nan);
  st->max = m;
  st->sum = nan ? NAN : 0.0;
  for (size_t c = 0; c < dv; c++) acc[c] = nan ? NAN : 0.0;
  if (nan || m == -INFINITY) return;
  /* pass 2: weights with the fixed max, chunk sums into running lanes */
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) run[c] = 0.0;
  const int v1 = dv == 1 && ldv == 1;
  const __m512d vm = _mm512_set1_pd(m);
  __m512d vsum = _mm512_setzero_pd(), vacc = _mm512_setzero_pd();
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      int nan2 = 0;
      scores(&o, nb, k + j0 * ldk, ldk, sb, &nan2); /* past nb: -inf */
      const size_t nb8 = (nb + 7) & ~(size_t)7;
      __m512d bsum = _mm512_setzero_pd();
      for (size_t g = 0; g < nb8; g += 8) {
        __m512d s = _mm512_load_pd(sb + g), e;
        if (m != INFINITY) /* s - m <= 0, no NaN; +0 below the cutoff, -inf */
          e = hs_f64_vexp_below(_mm512_sub_pd(s, vm), HS_F64_WEIGHT_CUT);
        else /* max = +inf: the +inf scores take weight 1, others 0 */
          e = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(s, vm, _CMP_EQ_OQ), _mm512_set1_pd(1.0));
        _mm512_store_pd(sb + g, e);
        bsum = _mm512_add_pd(bsum, e);
      }
      vsum = _mm512_add_pd(vsum, bsum);
      const double *vb = v + j0 * ldv;
      if (v1) {
        /* lane-wise; e past nb is +0 and the masked load reads nothing */
        __m512d b = _mm512_setzero_pd();
        for (size_t g = 0; g < nb; g += 8) {
          __mmask8 mv = nb - g >= 8 ? 0xFF : (__mmask8)((1u << (nb - g)) - 1);
          b = _mm512_fmadd_pd(_mm512_load_pd(sb + g), _mm512_maskz_loadu_pd(mv, vb + g), b);
        }
        vacc = _mm512_add_pd(vacc, b);
      } else if (dv > 0) {
        hs_f64_values8(nb, sb, vb, ldv, dv, run);
      }
    }
  }
  st->sum = _mm512_reduce_add_pd(vsum);
  if (v1) run[0] = _mm512_reduce_add_pd(vacc);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}

HS_DEFINE_F64_ATTN_ROWS_2PASS(hs_f64_attn_rows_2pass_ukernel__avx512f_rr2_p11,
                              hs_f64_attn_row_2pass_ukernel__avx512f_rr2_p11)
