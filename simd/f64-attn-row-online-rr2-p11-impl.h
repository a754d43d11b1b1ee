/* SPDX-License-Identifier: MIT */
/* f64 fused attention row, online softmax, rr2-p11 exp, written once over
 * the f64 vector vocabulary (internal). A kernel file includes
 * <immintrin.h>, one vec-f64-<isa>.h, f64-exp-rr2-p11.h and ukernels.h,
 * defines BLK = 64 * VD_LANES, includes attn-f64-blocks-avx2.h (the
 * general scores, 4 keys per 256-bit register, on either ISA) and defines
 *   ONLINE_EXP(x)                      the rr2-p11 exp, +0 below
 *                                      HS_F64_CUTOFF;
 *   ONLINE_SCORES_CONTIG(nb, k, qc, DK, sb)
 *                                      the scores of nb <= BLK contiguous
 *                                      keys of dk == DK in {1, 2, 4} into
 *                                      sb (-inf up to nb rounded to
 *                                      VD_LANES), returning their max (NaN
 *                                      skipped); qc lane i: q[i mod DK] *
 *                                      inv_tau;
 * then includes this header and defines the symbol by
 * HS_DEFINE_F64_ATTN_ROW_ONLINE(name).
 *
 * Per block of BLK keys: the scores and their max; one rescale of the
 * running sum and acc if the max grew (BLK long enough that in pe, where
 * the scores grow with the key and nearly every block raises the max,
 * the scalar exp of the rescale costs little per key); the weights e_j =
 * exp(s_j - max) only over the groups of VD_LANES keys the block uses;
 * then the values:
 *   - dv == 1 with contiguous values: lane-wise, one FMA per VD_LANES
 *     keys into a block accumulator, fused with the exp (the weights
 *     never leave registers), a masked load only for the last group;
 *   - otherwise acc += e_j v_j, VD_LANES columns per register, 8
 *     accumulators (keys j mod 8).
 * A NaN score is found from the sum of the x = s - max of the block (x <=
 * 0 or NaN, so the sum is NaN iff some x is), one add per group.
 *
 * Error bound (u = 2^-53, S_j = sum_c |q_c k_jc inv_tau|, S = max_j S_j
 * over the finite ones, c calls for the row): a score carries |ds_j| <=
 * (ceil(dk/4) + 4) u S_j (block_scores: inv_tau folded into q, 4-double
 * FMA chunks, 2-level reduction; the contiguous dk 1, 2, 4 blocks:
 * log2(dk) + 1 roundings); a weight's relative error is <= |ds_j| +
 * |ds_max| + |s_j - max| u + 4 u (the subtraction, the 2-ULP exp), and
 * each rescale after its block multiplies it by exp(m - bm) within
 * (2 S + 5) u, at most n/BLK of them. A lane or accumulator sums at most
 * 64 terms per block (BLK / VD_LANES weights; BLK / 8 products per
 * accumulator, 3 adds to fold them), then one add per block into its
 * running total, 3 to fold the lanes and one more per call. With BLK >=
 * 256:
 *   E = (2 ceil(dk/4) + 10 + n/128) S u + (6 n/256 + 70 + 4 c) u,
 *   |sum - sum*| <= E sum*,  |acc_c - acc*_c| <= E sum_j e_j |v_jc|
 * to first order, plus the weights below exp's cutoff flushed to +0
 * (tests/test-f64-kernels.c checks exactly this E).
 *
 * Special values: -inf scores add 0; an all -inf row leaves max = -inf,
 * sum = 0; a +inf score takes weight 1 (others 0); a NaN score makes sum
 * and acc NaN. */
#ifndef HS_F64_ATTN_ROW_ONLINE_RR2_P11_IMPL_H
#define HS_F64_ATTN_ROW_ONLINE_RR2_P11_IMPL_H

#include <math.h>

#include "ukernels.h"

#if BLK != 64 * VD_LANES
#error "the online row's bound takes BLK = 64 * VD_LANES"
#endif

/* run[0..dv) += sum_{j<nb} e[j] v_j (e past nb unread) */
static inline __attribute__((always_inline)) void hs_f64_online_values(
    size_t nb, const double *e, const double *vb, size_t ldv, size_t dv, double *run) {
  for (size_t c = 0; c < dv; c += VD_LANES) {
    const size_t rem = dv - c;
#define LD(j) (rem >= VD_LANES ? vd_loadu(vb + (j) * ldv + c) : vd_load_tail(vb + (j) * ldv + c, rem))
#define STEP(a, j) a = vd_fma(vd_set1(e[j]), LD(j), a)
    vd a0 = vd_zero(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t j = 0;
    for (; j + 8 <= nb; j += 8) {
      STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
      STEP(a4, j + 4); STEP(a5, j + 5); STEP(a6, j + 6); STEP(a7, j + 7);
    }
    for (; j < nb; j++) STEP(a0, j);
#undef STEP
#undef LD
    a0 = vd_add(vd_add(vd_add(a0, a1), vd_add(a2, a3)),
                vd_add(vd_add(a4, a5), vd_add(a6, a7)));
    vd_storeu(run + c, vd_add(vd_loadu(run + c), a0));
  }
}

static inline __attribute__((always_inline)) void hs_f64_online_run(
    size_t n, size_t dk, size_t dv, const double *q, const double *k, size_t ldk,
    const double *v, size_t ldv, double inv_tau, hs_f64_online *st, double *acc) {
  if (n == 0) return;
  hs_f64_q4 q4; /* the general scores' q */
  hs_f64_q4_init(&q4, q, dk, inv_tau);
  /* contiguous keys of dk 1, 2, 4: lane i of qc = q[i mod dk] * inv_tau */
  const int DK = ldk == dk && (dk == 1 || dk == 2 || dk == 4) ? (int)dk : 0;
  vd qc = vd_zero();
  if (DK) {
    double t[VD_LANES];
    for (int i = 0; i < VD_LANES; i++) t[i] = q[i % DK] * inv_tau;
    qc = vd_loadu(t);
  }
  /* dv == 1, contiguous values: acc[0] lane-wise in vacc */
  const int v1 = dv == 1 && ldv == 1;
  _Alignas(64) double run[HS_ATTN_MAX_D];
  _Alignas(64) double sb[BLK];
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) run[c] = c < dv ? acc[c] : 0.0;
  double m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  vd vsum = vd_first(st->sum), vacc = vd_zero();
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    const double *kb = k + j0 * ldk, *vb = v + j0 * ldv;
    double bm;
    if (DK == 1) bm = ONLINE_SCORES_CONTIG(nb, kb, qc, 1, sb);
    else if (DK == 2) bm = ONLINE_SCORES_CONTIG(nb, kb, qc, 2, sb);
    else if (DK == 4) bm = ONLINE_SCORES_CONTIG(nb, kb, qc, 4, sb);
    else bm = block_scores(nb, kb, ldk, q4.qv, q4.nc, q4.mk, q4.full, sb);
    if (bm > m) {
      /* the max grows: rescale once per block */
      if (m != -INFINITY) {
        const vd vs = vd_set1(hs_f64_exp_scalar(m - bm)); /* in [0, 1] */
        vsum = vd_mul(vsum, vs);
        vacc = vd_mul(vacc, vs);
        for (size_t c = 0; c < dv; c += VD_LANES)
          vd_storeu(run + c, vd_mul(vd_loadu(run + c), vs));
      }
      m = bm;
    }
    const vd vm = vd_set1(m);
    vd bsum = vd_zero(), nan = vd_zero();
    size_t g = 0;
    if (m == -INFINITY) {
      /* every score so far is -inf or NaN: the block adds 0 or NaN */
      for (; g < nb; g += VD_LANES) nan = vd_add(nan, vd_loadu(sb + g));
    } else if (m == INFINITY) {
      /* the +inf scores take weight 1, the others 0 */
      for (; g < nb; g += VD_LANES) {
        const vd s = vd_loadu(sb + g);
        const vd e = vd_select(vd_cmpeq(s, vm), vd_set1(1.0), vd_zero());
        nan = vd_select(vd_isnan(s), s, nan);
        vd_storeu(sb + g, e);
        bsum = vd_add(bsum, e);
      }
      hs_f64_online_values(nb, sb, vb, ldv, dv, run);
    } else if (v1) {
      /* x = s - m <= 0 or NaN: nan is NaN iff some x is */
      vd b = vd_zero();
      for (; g + VD_LANES <= nb; g += VD_LANES) {
        const vd x = vd_sub(vd_loadu(sb + g), vm);
        const vd e = ONLINE_EXP(x);
        nan = vd_add(nan, x);
        bsum = vd_add(bsum, e);
        b = vd_fma(e, vd_loadu(vb + g), b);
      }
      if (g < nb) { /* lanes past nb: score -inf, weight +0, no value read */
        const vd x = vd_sub(vd_loadu(sb + g), vm);
        const vd e = ONLINE_EXP(x);
        nan = vd_add(nan, x);
        bsum = vd_add(bsum, e);
        b = vd_fma(e, vd_load_tail(vb + g, nb - g), b);
      }
      vacc = vd_add(vacc, b);
    } else {
      for (; g < nb; g += VD_LANES) {
        const vd x = vd_sub(vd_loadu(sb + g), vm);
        const vd e = ONLINE_EXP(x);
        nan = vd_add(nan, x);
        vd_storeu(sb + g, e);
        bsum = vd_add(bsum, e);
      }
      hs_f64_online_values(nb, sb, vb, ldv, dv, run);
    }
    vsum = vd_add(vsum, bsum);
    if (vdmask_bits(vd_isnan(nan))) {
      /* a NaN score: sum and acc become NaN */
      vsum = vd_add(vsum, vd_set1(NAN));
      vacc = vd_add(vacc, vd_set1(NAN));
      for (size_t c = 0; c < dv; c++) run[c] += NAN;
    }
  }
  st->max = m;
  st->sum = vd_hsum(vsum);
  if (v1) run[0] += vd_hsum(vacc);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}

#define HS_DEFINE_F64_ATTN_ROW_ONLINE(name)                                       \
  void name(size_t n, size_t dk, size_t dv, const double *q, const double *k,     \
            size_t ldk, const double *v, size_t ldv, double inv_tau,              \
            hs_f64_online *st, double *acc) {                                     \
    hs_f64_online_run(n, dk, dv, q, k, ldk, v, ldv, inv_tau, st, acc);            \
  }

#endif
