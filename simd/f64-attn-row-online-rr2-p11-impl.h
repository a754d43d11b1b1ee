/* SPDX-License-Identifier: MIT */
/* f64 fused attention row, online softmax, rr2-p11 exp, written once over
 * the f64 vector vocabulary (internal). A kernel file includes
 * <immintrin.h>, one vec-f64-<isa>.h, f64-exp-rr2-p11.h and ukernels.h,
 * defines BLK = 64 * VD_LANES, includes attn-f64-blocks-avx2.h (the
 * general scores, 4 keys per 256-bit register, on AVX2 and AVX-512) or
 * attn-f64-blocks-vec.h (2 lanes) and defines
 *   ONLINE_EXP(x)                      the rr2-p11 exp, +0 below
 *                                      HS_F64_CUTOFF;
 *   ONLINE_SCORES_CONTIG(nb, k, qc, DK, sb)
 *                                      the scores of nb <= BLK contiguous
 *                                      keys of dk == DK in {1, 2, 4}
 *                                      (DK <= VD_LANES) into
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
 *   - contiguous values of dv 1, 2, 4 (dv < VD_LANES, or 1; the small
 *     compiled heads): VD_LANES / dv keys' rows per register, times the
 *     weights spread over them, one FMA per register into block sums per
 *     lane (dv registers a group), fused with the exp (the weights never
 *     leave registers), a masked load only for the last group; the lanes
 *     run on over the blocks and are folded by column at the end;
 *   - otherwise acc += e_j v_j, VD_LANES columns per register, 8
 *     accumulators (keys j mod 8).
 * A NaN score needs no test while the max is finite: its weight is NaN
 * (the exp keeps NaN), and so are sum and acc after it.
 *
 * Error bound (u = 2^-53, S_j = sum_c |q_c k_jc inv_tau|, S = max_j S_j
 * over the finite ones, c calls for the row): a score carries |ds_j| <=
 * (ceil(dk/4) + 4) u S_j (block_scores: inv_tau folded into q, 4-double
 * FMA chunks, 2-level reduction; the contiguous dk 1, 2, 4 blocks:
 * log2(dk) + 1 roundings); a weight's relative error is <= |ds_j| +
 * |ds_max| + |s_j - max| u + 4 u (the subtraction, the 2-ULP exp), and
 * each rescale after its block multiplies it by exp(m - bm) within
 * (2 S + 5) u, at most n/BLK of them. A lane or accumulator sums at most
 * 64 terms per block (BLK / VD_LANES weights or packed products per lane;
 * BLK / 8 products per accumulator, 3 adds to fold them), then one add
 * per block into its running total; per call 3 adds fold the lanes and
 * one more takes the caller's value. With BLK >= 256:
 *   E = (2 ceil(dk/4) + 10 + n/128) S u + (6 n/256 + 72 + 4 c) u,
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

#include "f64-attn-values-vec.h"
#include "ukernels.h"

#if BLK != 64 * VD_LANES
#error "the online row's bound takes BLK = 64 * VD_LANES"
#endif

/* The weights of one block's nb keys into *bsum, and, values in rows of W in {1, 2, 4}
 * doubles one after the other (W < VD_LANES or 1), their products into
 * the lane-wise value sums a[0..W): register r of a group holds the rows
 * of its keys r VD_LANES / W .. (r + 1) VD_LANES / W - 1, times the
 * weights spread over them (vd_spread). The weights never leave registers;
 * a masked load only for the last group (past nb: weight +0, no value
 * read). */
HS_ALWAYS_INLINE void hs_f64_online_packed(
    size_t nb, const double *sb, vd vm, const double *vb, const int W, vd *bsum,
    vd *a) {
  vd b0 = vd_zero(), b1 = b0, b2 = b0, b3 = b0, bs = *bsum;
  size_t g = 0;
#define PART(b, r, LD)                                                        \
  if ((r) < W) b = vd_fma(vd_spread(e, W, r), LD(vb + g * W + (r) * VD_LANES, (r) * VD_LANES), b)
#define FULL(p, o) vd_loadu(p)
#define TAIL(p, o) (left > (o) ? vd_load_tail(p, left - (o) < VD_LANES ? left - (o) : VD_LANES) : vd_zero())
#define GROUP(LD)                                           \
  {                                                         \
    const vd e = ONLINE_EXP(vd_sub(vd_loadu(sb + g), vm));  \
    bs = vd_add(bs, e);                                     \
    PART(b0, 0, LD); PART(b1, 1, LD); PART(b2, 2, LD); PART(b3, 3, LD); \
  }
  for (; g + VD_LANES <= nb; g += VD_LANES) GROUP(FULL)
  if (g < nb) {
    const size_t left = (nb - g) * (size_t)W; /* doubles of values left */
    GROUP(TAIL)
  }
#undef GROUP
#undef TAIL
#undef FULL
#undef PART
  a[0] = vd_add(a[0], b0);
  if (W > 1) a[1] = vd_add(a[1], b1);
  if (W > 2) a[2] = vd_add(a[2], b2), a[3] = vd_add(a[3], b3);
  *bsum = bs;
}

/* The packed value sums (W columns, a0..a3) into run: lane i holds column
 * i mod W; the registers, then the lanes of a column, each by pairs
 * (log2(VD_LANES) levels in all). */
HS_ALWAYS_INLINE void hs_f64_online_fold(int W, vd a0, vd a1, vd a2, vd a3, double *run) {
  if (W == 1) run[0] += vd_hsum(a0);
  if (W > 1) {
    _Alignas(64) double t[8]; /* VD_LANES <= 8 of them used */
    vd_storeu(t, W == 2 ? vd_add(a0, a1) : vd_add(vd_add(a0, a1), vd_add(a2, a3)));
    for (int c = 0; c < W; c++) {
      const int P = VD_LANES / W; /* lanes per column: 2 or 4 */
      run[c] += P == 2 ? t[c] + t[c + W] : (t[c] + t[c + 2 * W]) + (t[c + W] + t[c + 3 * W]);
    }
  }
}

HS_ALWAYS_INLINE void hs_f64_online_run(
    size_t n, size_t dk, size_t dv, const double *q, const double *k, size_t ldk,
    const double *v, size_t ldv, double inv_tau, hs_f64_online *st, double *acc) {
  if (n == 0) return;
  hs_f64_q4 q4; /* the general scores' q */
  hs_f64_q4_init(&q4, q, dk, inv_tau);
  /* contiguous keys of dk 1, 2, 4: lane i of qc = q[i mod dk] * inv_tau */
  const int DK = ldk == dk && (dk == 1 || dk == 2 || (dk == 4 && VD_LANES >= 4)) ? (int)dk : 0;
  const vd qc = DK ? hs_f64_qc(q, DK, inv_tau) : vd_zero();
  /* contiguous values of dv 1, 2, 4 (several keys a register): the value
   * sums lane-wise in vacc, folded into acc at the end */
  const int W = ldv == dv && (dv == 1 || ((dv == 2 || dv == 4) && dv < VD_LANES)) ? (int)dv : 0;
  _Alignas(64) double run[HS_ATTN_MAX_D], sb[BLK];
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) run[c] = c < dv ? acc[c] : 0.0;
  double m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  vd vsum = vd_first(st->sum), vacc[4] = {vd_zero(), vd_zero(), vd_zero(), vd_zero()};
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
        for (int r = 0; r < 4; r++) vacc[r] = vd_mul(vacc[r], vs);
        for (size_t c = 0; c < dv; c += VD_LANES)
          vd_storeu(run + c, vd_mul(vd_loadu(run + c), vs));
      }
      m = bm;
    }
    const vd vm = vd_set1(m);
    vd bsum = vd_zero(), nan = vd_zero();
    if (m == -INFINITY) {
      /* every score so far is -inf or NaN: the block adds 0 or NaN (nan:
       * the sum of the scores, NaN iff one is) */
      for (size_t g = 0; g < nb; g += VD_LANES) nan = vd_add(nan, vd_loadu(sb + g));
    } else if (m == INFINITY) {
      /* the +inf scores take weight 1, the others 0 */
      for (size_t g = 0; g < nb; g += VD_LANES) {
        const vd s = vd_loadu(sb + g);
        const vd e = vd_select(vd_cmpeq(s, vm), vd_set1(1.0), vd_zero());
        nan = vd_select(vd_isnan(s), s, nan);
        vd_storeu(sb + g, e);
        bsum = vd_add(bsum, e);
      }
      hs_f64_values(nb, sb, vb, ldv, dv, run, 8);
    } else if (W == 1) {
      hs_f64_online_packed(nb, sb, vm, vb, 1, &bsum, vacc);
    } else if (W == 2) {
      hs_f64_online_packed(nb, sb, vm, vb, 2, &bsum, vacc);
    } else if (W == 4) {
      hs_f64_online_packed(nb, sb, vm, vb, 4, &bsum, vacc);
    } else {
      for (size_t g = 0; g < nb; g += VD_LANES) {
        const vd e = ONLINE_EXP(vd_sub(vd_loadu(sb + g), vm));
        vd_storeu(sb + g, e);
        bsum = vd_add(bsum, e);
      }
      hs_f64_values(nb, sb, vb, ldv, dv, run, 8);
    }
    vsum = vd_add(vsum, bsum);
    if (vdmask_bits(vd_isnan(nan))) {
      /* a NaN score with an infinite max: sum and acc become NaN (with a
       * finite max its weight is NaN and does it) */
      vsum = vd_add(vsum, vd_set1(NAN));
      for (int r = 0; r < 4; r++) vacc[r] = vd_add(vacc[r], vd_set1(NAN));
      for (size_t c = 0; c < dv; c++) run[c] += NAN;
    }
  }
  st->max = m;
  st->sum = vd_hsum(vsum);
  hs_f64_online_fold(W, vacc[0], vacc[1], vacc[2], vacc[3], run);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}

#define HS_DEFINE_F64_ATTN_ROW_ONLINE(name)                                       \
  void name(size_t n, size_t dk, size_t dv, const double *q, const double *k,     \
            size_t ldk, const double *v, size_t ldv, double inv_tau,              \
            hs_f64_online *st, double *acc) {                                     \
    hs_f64_online_run(n, dk, dv, q, k, ldk, v, ldv, inv_tau, st, acc);            \
  }

#endif
