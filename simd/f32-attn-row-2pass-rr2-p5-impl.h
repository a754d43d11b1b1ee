/* SPDX-License-Identifier: MIT */
/* f32 fused attention row over a list of key segments, two passes (exact
 * max, then sum and weighted values with that max), rr2-p5 exp, written
 * once over the vector vocabulary. A kernel file includes one
 * vec-f32-<isa>.h, f32-exp-rr2-p5-vec.h, defines BLK (keys per block),
 * includes its ISA's score and value blocks (attn-f32-blocks-<isa>.h:
 * qdesc, qd_init, block_scores, block_scores_bias returning the lane max,
 * block_values_dv; the scores of a block are stored to sb with the lanes
 * past nb set to -inf; optionally, with HS_BLOCKS_DK, the parts of a path
 * for contiguous small heads, or with HS_BLOCKS_LANES those of the lane
 * path, below) and then this header, and defines its two one-row symbols
 * by HS_DEFINE_F32_ATTN_ROW_2PASS(plain, bias) and the rows op by
 * HS_DEFINE_F32_ATTN_ROWS_2PASS(rows, plain, bias).
 *
 * Error bound (u = 2^-24), as for the online kernels: the scores of the
 * ISA's block code carry |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc
 * inv_tau| (one rounding more with the relative bias); weights relative
 * error <= |ds_j| + |ds_max| + 3 u; block sums of at most BLK/VF_LANES
 * adds per lane, then a running total per lane, so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/BLK + 20) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/BLK + 20) u) sum_j e_j |v_jc|
 * to first order, with no rescaling (checked by tests/test-skip.c and
 * tests/test-f32-attn-row.c against a double reference).
 *
 * Skipping (see the scalar kernel's comment and src/run/forward-impl.h):
 * on the block paths every segment is walked in blocks of BLK from its
 * own start (the lane path below needs no such rule), so a key's
 * score, its weight and its block's sums depend only on its segment; a
 * segment whose weights are all exactly +0 adds +0 to every running lane,
 * which is never -0, so leaving it out of the list gives the same bits.
 *
 * Outputs overwritten: st->max, st->sum, acc[0..dv). -inf scores add 0; a
 * +inf max gives the +inf scores weight 1, others 0; a NaN score makes sum
 * and every acc NaN. */
#ifndef HS_F32_ATTN_ROW_2PASS_RR2_P5_IMPL_H
#define HS_F32_ATTN_ROW_2PASS_RR2_P5_IMPL_H

#include <math.h>
#include <stdint.h>

#include "ukernels.h"

/* Scores kept from pass 1 for pass 2 (floats; rows needing more compute
 * them twice). */
#define HS_2PASS_KEEP 512

/* The scores of keys j0 .. j0+nb into sb, biased when bias != 0; returns
 * their lane max. */
HS_ALWAYS_INLINE vf hs_2pass_scores(
    size_t nb, const float *k, size_t ldk, const qdesc *qd, float *sb,
    size_t dk, int bias, float slope, int64_t p0) {
  return bias ? block_scores_bias(nb, k, ldk, qd, sb, dk, slope, p0)
              : block_scores(nb, k, ldk, qd, sb, dk);
}


#ifndef HS_BLOCKS_DK
/* an ISA without the contiguous parts: never called (DK stays 0) */
static inline vf block_scores_dk(size_t nb, const float *k, const qdesc *qd,
                                 float *sb, int DK, int bias, float slope,
                                 int64_t p0) {
  (void)nb, (void)k, (void)qd, (void)sb, (void)DK, (void)bias, (void)slope, (void)p0;
  return vf_zero();
}
#endif
#if !defined(HS_BLOCKS_DK) || defined(HS_BLOCKS_LANES)
/* no contiguous block path (an ISA with the lane path takes those shapes
 * there): never called */
static inline float block_value1(size_t nb, const float *e, const float *v) {
  (void)nb, (void)e, (void)v;
  return 0.0f;
}
#endif

/* Rows per interleaved call (f32_attn_rows_2pass) */
#define HS_2PASS_ROWS 4

/* The rows r < nr (at most HS_2PASS_ROWS), DK > 0: keys contiguous with
 * dk == DK and dv == ldv == 1 (the skipping path's usual head), every
 * row keeping its scores (keep); DK == 0: any shape, one row. Row r: its
 * segments seg_[r], query q + r ldq, bias from d0[r], outputs st[r] and
 * acc + r ldacc; sall: HS_2PASS_KEEP floats per row. The first takes the
 * parts an ISA's blocks define with HS_BLOCKS_DK:
 *   block_scores_dk (attn-f32-blocks-run.h);
 *   block_value1(nb, e, v): the value block_values_dv adds to run[0] for
 *     dv == ldv == 1;
 * both the general blocks' arithmetic for those shapes, so the two paths
 * compute the same bits. Several rows go by stage (every pass 1, the
 * maxes, every pass 2, the sums), as hs_2pass_lanes_rows below, each
 * row's arithmetic that of the row alone. */
/* Each block of BLK keys of row r's segments, from each segment's own
 * start: j0, nb keys, and sb where its scores go (kept: each block at its
 * own offset of the row's part of sall, rounded up to whole vectors). */
#define HS_2PASS_BLOCKS(...)                                                \
  for (size_t t = 0, off = 0; t < nseg; t++) {                              \
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];                     \
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {                        \
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;          \
      if (keep)                                                             \
        sb = sall + r * HS_2PASS_KEEP + off,                                \
        off += (nb + VF_LANES - 1) / VF_LANES * VF_LANES;                   \
      __VA_ARGS__                                                           \
    }                                                                       \
  }

/* A block's weights with the fixed max m (vm) into eb, their lane sums
 * returned: e = exp(s - m) for a finite m, else (m = +inf) 1 for the +inf
 * scores and 0 for the others. */
HS_ALWAYS_INLINE vf hs_2pass_weights(size_t nb, const float *sb, float *eb, vf vm,
                                     int finite) {
  vf bsum = vf_zero();
  if (finite) {
    /* x = s - m <= 0 (no NaN: pass 1 found none); e = +0 below the
     * cutoff and for the -inf lanes */
    for (size_t g = 0; g < nb; g += VF_LANES) {
      const vf e = hs_vexpminus_rr2_p5(vf_sub(vf_loadu(sb + g), vm));
      vf_storeu(eb + g, e);
      bsum = vf_add(bsum, e);
    }
  } else {
    for (size_t g = 0; g < nb; g += VF_LANES) {
      const vf e = vf_select(vf_cmpeq(vf_loadu(sb + g), vm), vf_set1(1.0f), vf_zero());
      vf_storeu(eb + g, e);
      bsum = vf_add(bsum, e);
    }
  }
  return bsum;
}

HS_ALWAYS_INLINE void hs_2pass_core(
    size_t nr, const size_t *nseg_, const size_t *const *seg_, size_t dk, size_t dv,
    const float *q, size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
    float inv_tau, int bias, float slope, const int64_t *d0, int keep,
    hs_f32_online *st, float *acc, size_t ldacc, float *sall, const int DK) {
  qdesc qd[HS_2PASS_ROWS];
  _Alignas(64) float run[HS_ATTN_MAX_D];
  _Alignas(64) float eb[BLK];
  vf vmax[HS_2PASS_ROWS], vsum[HS_2PASS_ROWS];
  vmask nan[HS_2PASS_ROWS];
  float m[HS_2PASS_ROWS], run1[HS_2PASS_ROWS];
  int live[HS_2PASS_ROWS];
  /* pass 1: the max over every listed key (max skips NaN); nan: unordered
   * lanes seen */
  for (size_t r = 0; r < nr; r++) {
    const size_t nseg = nseg_[r], *seg = seg_[r];
    const int64_t d0r = bias ? d0[r] : 0;
    float *sb = sall + r * HS_2PASS_KEEP;
    qd_init(&qd[r], dk, q + r * ldq, inv_tau);
    vf mx = vf_set1(-INFINITY);
    vmask nn = vf_isnan(vf_zero());
    HS_2PASS_BLOCKS({
      mx = vf_max(DK ? block_scores_dk(nb, k + j0 * DK, &qd[r], sb, DK, bias, slope,
                                       d0r + (int64_t)j0)
                     : hs_2pass_scores(nb, k + j0 * ldk, ldk, &qd[r], sb, dk, bias, slope,
                                       d0r + (int64_t)j0),
                  mx);
      for (size_t g = 0; g < nb; g += VF_LANES)
        nn = vmask_or(nn, vf_isnan(vf_loadu(sb + g)));
    })
    vmax[r] = mx, nan[r] = nn;
  }
  for (size_t r = 0; r < nr; r++) {
    m[r] = vf_hmax(vmax[r]);
    const int has_nan = vmask_any(nan[r]);
    st[r].max = m[r];
    st[r].sum = has_nan ? NAN : 0.0f;
    for (size_t c = 0; c < dv; c++) acc[r * ldacc + c] = has_nan ? NAN : 0.0f;
    live[r] = !has_nan && m[r] != -INFINITY;
  }
  /* pass 2: weights with the fixed max, block sums into running lanes */
  for (size_t r = 0; r < nr; r++) {
    if (!live[r]) continue;
    const size_t nseg = nseg_[r], *seg = seg_[r];
    const int64_t d0r = bias ? d0[r] : 0;
    const size_t nrun = DK ? 0 : dv <= 16 ? 16 : (dv + 15) / 16 * 16;
    for (size_t c = 0; c < nrun; c++) run[c] = 0.0f;
    float r1 = 0.0f, *sb = sall + r * HS_2PASS_KEEP;
    const vf vm = vf_set1(m[r]);
    vf sm = vf_zero();
    HS_2PASS_BLOCKS({
      /* lanes >= nb: -inf */
      if (!keep)
        hs_2pass_scores(nb, k + j0 * ldk, ldk, &qd[r], sb, dk, bias, slope,
                        d0r + (int64_t)j0);
      sm = vf_add(sm, hs_2pass_weights(nb, sb, eb, vm, m[r] != INFINITY));
      /* run += sum_j eb[j] v_j */
      if (DK) r1 += block_value1(nb, eb, v + j0);
      else block_values_dv(nb, eb, v + j0 * ldv, ldv, dv, run);
    })
    vsum[r] = sm, run1[r] = r1;
    if (!DK)
      for (size_t c = 0; c < dv; c++) acc[r * ldacc + c] = run[c];
  }
  for (size_t r = 0; r < nr; r++) {
    if (!live[r]) continue;
    st[r].sum = vf_hsum(vsum[r]);
    if (DK) acc[r * ldacc] = run1[r];
  }
}
#undef HS_2PASS_BLOCKS

/* the shapes and biases of the lane and contiguous block paths,
 * X(suffix, BIAS, DK) */
#define HS_2PASS_SHAPES(X) X(1, 0, 1) X(2, 0, 2) X(4, 0, 4) X(b1, 1, 1) X(b2, 1, 2) X(b4, 1, 4)

#ifdef HS_BLOCKS_LANES
/* The lane path: keys contiguous with ldk == dk == DK in {1, 2, 4}, one
 * value column (dv == ldv == 1), the skipping path's usual head. Keys go
 * by the vector groups of their index, not of their segment: key j is
 * lane j mod VF_LANES of group j - j mod VF_LANES (a segment touches the
 * groups its keys fall in; a group two segments share is taken once per
 * segment, each time with the other's lanes -inf), and the parts the ISA
 * defines with HS_BLOCKS_LANES (qd_init_dk, group_scores_dk,
 * group_values1) score a key alike in any group. So lane l of the weight sum and of the
 * value sum chains exactly the listed keys j = l mod VF_LANES, in
 * increasing order, whatever the segments: one add (or FMA) per group,
 * no tail key by key. A key left out, or a -inf lane, would have added
 * +0 (weight +0 times a finite value), which changes no lane (a lane
 * starts at +0 and is never -0 after), so a row's bits do not depend on
 * how its keys are cut into segments, nor on segments of +0 weights
 * being listed. Rows of few groups keep pass 1's scores and values
 * packed, group after group; others score them again in pass 2. The
 * error bound above holds with (n/VF_LANES + 8) u in place of
 * (n/BLK + 20) u: a lane chains at most n/VF_LANES + 1 adds, then
 * vf_hsum's at most 4 levels (the skipping path's rows have a few
 * groups; a dense row of 4096 keys, 264 u = 1.6e-5 relative). */
#define HS_2PASS_GROUPS(...)                                               \
  for (size_t t = 0; t < nseg; t++) {                                      \
    const size_t s0 = seg[2 * t], e0 = s0 + seg[2 * t + 1];                \
    for (size_t g = s0 - s0 % VF_LANES; g < e0; g += VF_LANES) {           \
      const unsigned lo = g < s0 ? (unsigned)(s0 - g) : 0;                 \
      const unsigned hi = e0 - g < VF_LANES ? (unsigned)(e0 - g) : VF_LANES; \
      __VA_ARGS__                                                          \
    }                                                                      \
  }

/* One group's weights e = exp(s - m) (m = +inf: 1 for the +inf scores, 0
 * for the others) into the running lanes. */
HS_ALWAYS_INLINE void hs_2pass_lane_add(
    vf s, vf x, vf vm, int inf_max, vf *vsum, vf *vacc) {
  const vf e = inf_max ? vf_select(vf_cmpeq(s, vm), vf_set1(1.0f), vf_zero())
                       : hs_vexpminus_rr2_p5(vf_sub(s, vm));
  *vsum = vf_add(*vsum, e);
  *vacc = vf_fma(e, x, *vacc);
}

/* HS_2PASS_ROWS rows of the lane path at once (f32_attn_rows_2pass): row
 * r's segments seg[r], query q + r ldq, outputs st[r], acc[r ldacc]. Each
 * row's arithmetic is hs_2pass_lanes' (the same group scores, lane chains
 * and horizontal reductions in the same order, keeping its scores or
 * scoring them again, which gives the same bits), but the passes go by
 * stage across the rows: every row's pass 1, then their maxes, then every
 * pass 2, then the sums, so the chains of different rows (a few groups
 * each on the skipping path, then a horizontal max, the exp and two
 * horizontal sums, about a hundred cycles of latency) overlap instead of
 * running one after the other. Rows past nr are not touched. */
HS_ALWAYS_INLINE void hs_2pass_lanes_rows(
    size_t nr, const size_t *nseg_, const size_t *const *seg_, const float *q,
    size_t ldq, const float *k, const float *v, float inv_tau, int bias,
    float slope, const int64_t *d0, hs_f32_online *st, float *acc, size_t ldacc,
    const int DK) {
  qdesc qd[HS_2PASS_ROWS];
  const vf vslope = vf_set1(slope);
  _Alignas(64) float sall[HS_2PASS_KEEP];
  _Alignas(64) float xall[HS_2PASS_KEEP];
  size_t o0[HS_2PASS_ROWS], o1[HS_2PASS_ROWS], off = 0;
  int keep[HS_2PASS_ROWS], live[HS_2PASS_ROWS];
  vf vmax[HS_2PASS_ROWS], vsum[HS_2PASS_ROWS], vacc[HS_2PASS_ROWS];
  vmask nan[HS_2PASS_ROWS];
  float m[HS_2PASS_ROWS];
  int64_t dr[HS_2PASS_ROWS];
  for (size_t r = 0; r < nr; r++) {
    const size_t nseg = nseg_[r], *seg = seg_[r];
    dr[r] = bias ? d0[r] : 0;
    qd_init_dk(&qd[r], DK, q + r * ldq, inv_tau);
    size_t ng = 0;
    for (size_t t = 0; t < nseg; t++)
      if (seg[2 * t + 1])
        ng += (seg[2 * t] + seg[2 * t + 1] - 1) / VF_LANES - seg[2 * t] / VF_LANES + 1;
    keep[r] = ng * VF_LANES <= HS_2PASS_KEEP - off;
    o0[r] = off;
    vf mx = vf_set1(-INFINITY);
    vmask nn = vf_isnan(vf_zero());
    HS_2PASS_GROUPS({
      const vf s = group_scores_dk(k, g, lo, hi, &qd[r], DK, bias, vslope, dr[r]);
      mx = vf_max(s, mx);
      nn = vmask_or(nn, vf_isnan(s));
      if (keep[r]) {
        vf_storeu(sall + off, s);
        vf_storeu(xall + off, group_values1(v, g, lo, hi));
        off += VF_LANES;
      }
    })
    o1[r] = off, vmax[r] = mx, nan[r] = nn;
  }
  for (size_t r = 0; r < nr; r++) {
    m[r] = vf_hmax(vmax[r]);
    const int has_nan = vmask_any(nan[r]);
    st[r].max = m[r];
    st[r].sum = has_nan ? NAN : 0.0f;
    acc[r * ldacc] = has_nan ? NAN : 0.0f;
    live[r] = !has_nan && m[r] != -INFINITY;
  }
  for (size_t r = 0; r < nr; r++) {
    if (!live[r]) continue;
    const size_t nseg = nseg_[r], *seg = seg_[r];
    const vf vm = vf_set1(m[r]);
    const int inf_max = m[r] == INFINITY;
    vf sm = vf_zero(), ac = vf_zero();
    if (keep[r] && !inf_max) {
      for (size_t o = o0[r]; o < o1[r]; o += VF_LANES)
        hs_2pass_lane_add(vf_loadu(sall + o), vf_loadu(xall + o), vm, 0, &sm, &ac);
    } else if (keep[r]) {
      for (size_t o = o0[r]; o < o1[r]; o += VF_LANES)
        hs_2pass_lane_add(vf_loadu(sall + o), vf_loadu(xall + o), vm, 1, &sm, &ac);
    } else {
      HS_2PASS_GROUPS({
        hs_2pass_lane_add(group_scores_dk(k, g, lo, hi, &qd[r], DK, bias, vslope, dr[r]),
                          group_values1(v, g, lo, hi), vm, inf_max, &sm, &ac);
      })
    }
    vsum[r] = sm, vacc[r] = ac;
  }
  for (size_t r = 0; r < nr; r++) {
    if (!live[r]) continue;
    st[r].sum = vf_hsum(vsum[r]);
    acc[r * ldacc] = vf_hsum(vacc[r]);
  }
}
/* One row: the rows' code for a single row (the loops over rows fold
 * away). */
HS_ALWAYS_INLINE void hs_2pass_lanes(
    size_t nseg, const size_t *seg, const float *q, const float *k,
    const float *v, float inv_tau, int bias, float slope, int64_t d0,
    hs_f32_online *st, float *acc, const int DK) {
  hs_2pass_lanes_rows(1, &nseg, &seg, q, 0, k, v, inv_tau, bias, slope, &d0, st, acc, 0,
                      DK);
}
#undef HS_2PASS_GROUPS

/* one function per shape and bias, each with its own small frame */
#define HS_2PASS_LANES_FN(sfx, BIAS, DK)                                   \
  static __attribute__((noinline)) void hs_2pass_lanes_##sfx(              \
      size_t nseg, const size_t *seg, const float *q, const float *k,      \
      const float *v, float inv_tau, float slope, int64_t d0,              \
      hs_f32_online *st, float *acc) {                                     \
    hs_2pass_lanes(nseg, seg, q, k, v, inv_tau, BIAS, slope, d0, st, acc, DK); \
  }
HS_2PASS_SHAPES(HS_2PASS_LANES_FN)
#undef HS_2PASS_LANES_FN

#endif

/* f32_attn_rows_2pass's rows by stage: one function per shape and bias,
 * on the lane path (hs_2pass_lanes_rows) or the contiguous block path
 * (hs_2pass_core, DK > 0, every row keeping its scores) */
#ifdef HS_BLOCKS_LANES
#define HS_2PASS_ROWS_BODY(BIAS, DK)                                       \
  hs_2pass_lanes_rows(nr, nseg, seg, q, ldq, k, v, inv_tau, BIAS, slope,   \
                      d0, st, acc, ldacc, DK);
#elif defined(HS_BLOCKS_DK)
#define HS_2PASS_ROWS_BODY(BIAS, DK)                                       \
  _Alignas(64) float sall[HS_2PASS_ROWS * HS_2PASS_KEEP];                  \
  hs_2pass_core(nr, nseg, seg, DK, 1, q, ldq, k, DK, v, 1, inv_tau, BIAS,  \
                slope, d0, 1, st, acc, ldacc, sall, DK);
#endif
#ifdef HS_2PASS_ROWS_BODY
#define HS_2PASS_ROWS_FN(sfx, BIAS, DK)                                    \
  static __attribute__((noinline)) void hs_2pass_rows_##sfx(               \
      size_t nr, const size_t *nseg, const size_t *const *seg,             \
      const float *q, size_t ldq, const float *k, const float *v,          \
      float inv_tau, float slope, const int64_t *d0, hs_f32_online *st,    \
      float *acc, size_t ldacc) {                                          \
    HS_2PASS_ROWS_BODY(BIAS, DK)                                           \
  }
HS_2PASS_SHAPES(HS_2PASS_ROWS_FN)
#undef HS_2PASS_ROWS_FN
#undef HS_2PASS_ROWS_BODY
#endif

/* Whether a row's scores fit in HS_2PASS_KEEP floats to be kept from
 * pass 1 for pass 2 (rows of few keys, the skipping path's usual row: a
 * few kept tiles), each block's scores at its own offset, rounded up to
 * whole vectors (need: a bound on their total). */
static inline int hs_2pass_keeps(size_t nseg, const size_t *seg) {
  size_t need = 0;
  for (size_t t = 0; t < nseg; t++)
    need += seg[2 * t + 1] + (seg[2 * t + 1] / BLK + 1) * (VF_LANES - 1);
  return need <= HS_2PASS_KEEP;
}

/* Both entry points; bias != 0: each score gets the relative bias (one
 * FMA, as the online _bias kernel), the same instructions otherwise. */
HS_ALWAYS_INLINE void hs_2pass_run(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const float *q,
    const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau,
    int bias, float slope, int64_t d0, hs_f32_online *st, float *acc) {
#ifdef HS_BLOCKS_LANES
  if (ldk == dk && dv == 1 && ldv == 1 && (dk == 1 || dk == 2 || dk == 4)) {
    if (bias)
      dk == 1   ? hs_2pass_lanes_b1(nseg, seg, q, k, v, inv_tau, slope, d0, st, acc)
      : dk == 2 ? hs_2pass_lanes_b2(nseg, seg, q, k, v, inv_tau, slope, d0, st, acc)
                : hs_2pass_lanes_b4(nseg, seg, q, k, v, inv_tau, slope, d0, st, acc);
    else
      dk == 1   ? hs_2pass_lanes_1(nseg, seg, q, k, v, inv_tau, slope, d0, st, acc)
      : dk == 2 ? hs_2pass_lanes_2(nseg, seg, q, k, v, inv_tau, slope, d0, st, acc)
                : hs_2pass_lanes_4(nseg, seg, q, k, v, inv_tau, slope, d0, st, acc);
    return;
  }
#endif
  const int keep = hs_2pass_keeps(nseg, seg);
  _Alignas(64) float sall[HS_2PASS_KEEP];
#if defined(HS_BLOCKS_DK) && !defined(HS_BLOCKS_LANES)
  if (keep && ldk == dk && dv == 1 && ldv == 1) {
    if (dk == 1)
      return hs_2pass_core(1, &nseg, &seg, dk, dv, q, 0, k, ldk, v, ldv, inv_tau, bias,
                           slope, &d0, 1, st, acc, 0, sall, 1);
    if (dk == 2)
      return hs_2pass_core(1, &nseg, &seg, dk, dv, q, 0, k, ldk, v, ldv, inv_tau, bias,
                           slope, &d0, 1, st, acc, 0, sall, 2);
    if (dk == 4)
      return hs_2pass_core(1, &nseg, &seg, dk, dv, q, 0, k, ldk, v, ldv, inv_tau, bias,
                           slope, &d0, 1, st, acc, 0, sall, 4);
  }
#endif
  hs_2pass_core(1, &nseg, &seg, dk, dv, q, 0, k, ldk, v, ldv, inv_tau, bias, slope, &d0,
                keep, st, acc, 0, sall, 0);
}

/* f32_attn_rows_2pass by stage, HS_2PASS_ROWS rows at a time, on the
 * shapes of the lane path (hs_2pass_lanes_rows) or of the contiguous block
 * path (hs_2pass_core, DK > 0, when every row keeps its scores); 0: other
 * shapes, or an ISA without either, whose rows go one by one
 * (HS_DEFINE_F32_ATTN_ROWS_2PASS). slope != 0: the biased rows. */
static inline int hs_2pass_rows_staged(size_t nr, const size_t *nseg,
                                       const size_t *const *seg, size_t dk, size_t dv,
                                       const float *q, size_t ldq, const float *k,
                                       size_t ldk, const float *v, size_t ldv,
                                       float inv_tau, float slope, const int64_t *d0,
                                       hs_f32_online *st, float *acc, size_t ldacc) {
#if defined(HS_BLOCKS_LANES) || defined(HS_BLOCKS_DK)
  if (ldk == dk && dv == 1 && ldv == 1 && (dk == 1 || dk == 2 || dk == 4)) {
#ifndef HS_BLOCKS_LANES
    for (size_t r = 0; r < nr; r++)
      if (!hs_2pass_keeps(nseg[r], seg[r])) return 0;
#endif
    const int bias = slope != 0;
    void (*fn)(size_t, const size_t *, const size_t *const *, const float *, size_t,
               const float *, const float *, float, float, const int64_t *,
               hs_f32_online *, float *, size_t) =
        bias ? (dk == 1 ? hs_2pass_rows_b1 : dk == 2 ? hs_2pass_rows_b2 : hs_2pass_rows_b4)
             : (dk == 1 ? hs_2pass_rows_1 : dk == 2 ? hs_2pass_rows_2 : hs_2pass_rows_4);
    for (size_t r = 0; r < nr; r += HS_2PASS_ROWS) {
      const size_t c = nr - r < HS_2PASS_ROWS ? nr - r : HS_2PASS_ROWS;
      fn(c, nseg + r, seg + r, q + r * ldq, ldq, k, v, inv_tau, slope,
         bias ? d0 + r : NULL, st + r, acc + r * ldacc, ldacc);
    }
    return 1;
  }
#else
  (void)nr, (void)nseg, (void)seg, (void)dk, (void)dv, (void)q, (void)ldq, (void)k;
  (void)ldk, (void)v, (void)ldv, (void)inv_tau, (void)slope, (void)d0, (void)st;
  (void)acc, (void)ldacc;
#endif
  return 0;
}

/* the rows op over the file's one-row entry points plain and biased */
#define HS_DEFINE_F32_ATTN_ROWS_2PASS(rows, plain, biased)                   \
  void rows(size_t nr, const size_t *nseg, const size_t *const *seg,        \
            size_t dk, size_t dv, const float *q, size_t ldq,               \
            const float *k, size_t ldk, const float *v, size_t ldv,         \
            float inv_tau, float slope, const int64_t *d0,                  \
            hs_f32_online *st, float *acc, size_t ldacc) {                  \
    if (hs_2pass_rows_staged(nr, nseg, seg, dk, dv, q, ldq, k, ldk, v, ldv, \
                             inv_tau, slope, d0, st, acc, ldacc))           \
      return;                                                               \
    for (size_t r = 0; r < nr; r++)                                         \
      if (slope != 0)                                                       \
        biased(nseg[r], seg[r], dk, dv, q + r * ldq, k, ldk, v, ldv,        \
               inv_tau, slope, d0[r], st + r, acc + r * ldacc);             \
      else                                                                  \
        plain(nseg[r], seg[r], dk, dv, q + r * ldq, k, ldk, v, ldv,         \
              inv_tau, st + r, acc + r * ldacc);                            \
  }

#define HS_DEFINE_F32_ATTN_ROW_2PASS(plain, biased)                          \
  void plain(size_t nseg, const size_t *seg, size_t dk, size_t dv,          \
             const float *q, const float *k, size_t ldk, const float *v,    \
             size_t ldv, float inv_tau, hs_f32_online *st, float *acc) {    \
    hs_2pass_run(nseg, seg, dk, dv, q, k, ldk, v, ldv, inv_tau, 0, 0, 0,    \
                 st, acc);                                                  \
  }                                                                         \
  /* the error bound above holds for the biased scores with |ds_j| one     \
   * rounding larger */                                                     \
  void biased(size_t nseg, const size_t *seg, size_t dk, size_t dv,         \
              const float *q, const float *k, size_t ldk, const float *v,   \
              size_t ldv, float inv_tau, float slope, int64_t d0,           \
              hs_f32_online *st, float *acc) {                              \
    hs_2pass_run(nseg, seg, dk, dv, q, k, ldk, v, ldv, inv_tau, 1, slope,   \
                 d0, st, acc);                                              \
  }

#endif
