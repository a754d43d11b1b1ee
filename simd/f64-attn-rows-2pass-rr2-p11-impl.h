/* SPDX-License-Identifier: MIT */
/* f64 two-pass attention rows (f64_attn_rows_2pass and the one-row
 * kernel's lane path), rr2-p11 exp, written once over the f64 vector
 * vocabulary. A kernel file includes one vec-f64-<isa>.h, then, for an ISA
 * with a lane path, defines HS_F64_LANES and the parts
 *   HS_F64_LANE_DKS(X)               X(DK) for each dk it takes;
 *   vd group_scores_dk(k, g, lo, hi, qc, DK)
 *                                    the scores of keys g + lo .. g + hi - 1
 *                                    (g a multiple of VD_LANES) in lanes
 *                                    lo .. hi - 1, the others -inf, a key's
 *                                    bits the same in any group;
 *   vd group_values1(v, g, lo, hi)   v[g + l] in lanes lo .. hi - 1, +0
 *                                    in the others, nothing else read;
 * and then includes this header, and defines the rows op by
 * HS_DEFINE_F64_ATTN_ROWS_2PASS(rows, one_row). An ISA without a lane path
 * gets the rows one by one through its one-row kernel.
 *
 * The lane path: contiguous keys (ldk == dk == DK), one value column
 * (dv == ldv == 1), the skipping path's usual head. Key j is lane
 * j mod VD_LANES of the group starting at j - j mod VD_LANES, whatever its
 * segment (a group two segments share is taken once per segment, the
 * other's lanes -inf), so lane l of the weight sum and of the value sum
 * chains exactly the listed keys j = l mod VD_LANES in increasing order,
 * one add (or FMA) per group, no tail key by key. A key left out, or a
 * -inf lane, would have added +0 (weight +0 times a finite value, +0 for
 * the lanes outside), which changes no lane (a lane starts at +0 and is
 * never -0 after): the row's bits do not depend on how its keys are cut
 * into segments, nor on segments of +0 weights being listed (the exact
 * skipping of HS_F64_SKIP_CUT). Rows of few groups keep pass 1's scores
 * and values packed; others score them again (the same bits).
 * Error (u = 2^-53): scores as the ISA's group_scores_dk states; a
 * weight's relative error <= |ds_j| + |ds_max| + 3 u; a lane chains at
 * most n/VD_LANES + 1 adds, then log2(VD_LANES) to fold the lanes, so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/VD_LANES + 4) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/VD_LANES + 4) u) sum_j e_j |v_jc|
 * to first order, plus the weights below HS_F64_WEIGHT_CUT flushed to +0
 * (under n 2^-126 of sum, hardsoft/kernels.h; tests/test-f64-2pass.c,
 * tests/test-skip.c).
 *
 * Several rows (f64_attn_rows_2pass) go by stage: every row's pass 1,
 * then their maxes, every pass 2, then their sums; each row's arithmetic
 * is the one row's alone, in the same order, so its bits are those of
 * the one-row kernel (which is this code with one row), while the rows'
 * latency chains (a few groups each on the skipping path, a horizontal
 * max, the 11-term exp, two horizontal sums) overlap.
 *
 * Outputs overwritten: st->max, st->sum, acc[0]. -inf scores add 0; a
 * +inf max gives the +inf scores weight 1, others 0; a NaN score makes
 * sum and acc NaN. */
#ifndef HS_F64_ATTN_ROWS_2PASS_RR2_P11_IMPL_H
#define HS_F64_ATTN_ROWS_2PASS_RR2_P11_IMPL_H

#include <math.h>
#include <stdint.h>

#include "f64-attn-values-vec.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

/* rows per staged call */
#define HS_F64_ROWS 4
/* doubles of scores (and as many of values) a row keeps from pass 1 */
#define HS_F64_LANE_KEEP 256

#ifdef HS_F64_LANES
/* each group of row r's segments: g, and its lanes lo .. hi - 1 */
#define HS_F64_GROUPS(...)                                                 \
  for (size_t t = 0; t < nseg; t++) {                                      \
    const size_t s0 = seg[2 * t], e0 = s0 + seg[2 * t + 1];                \
    for (size_t g = s0 - s0 % VD_LANES; g < e0; g += VD_LANES) {           \
      const unsigned lo = g < s0 ? (unsigned)(s0 - g) : 0;                 \
      const unsigned hi = e0 - g < VD_LANES ? (unsigned)(e0 - g) : VD_LANES; \
      __VA_ARGS__                                                          \
    }                                                                      \
  }

/* One group's weights e = exp(s - m) (m = +inf: 1 for the +inf scores, 0
 * for the others; s - m <= 0 and no NaN otherwise, +0 below the exp's
 * cutoff and for -inf) into the running lanes. */
HS_ALWAYS_INLINE void hs_f64_lane_add(
    vd s, vd x, vd vm, int inf_max, vd *vsum, vd *vacc) {
  const vd e = inf_max ? vd_select(vd_cmpeq(s, vm), vd_set1(1.0), vd_zero())
                       : hs_f64_vexp_below(vd_sub(s, vm), HS_F64_WEIGHT_CUT);
  *vsum = vd_add(*vsum, e);
  *vacc = vd_fma(e, x, *vacc);
}

/* nr <= HS_F64_ROWS rows of the lane path by stage: row r's segments
 * seg_[r], query q + r ldq, outputs st[r], acc[r ldacc]. */
HS_ALWAYS_INLINE void hs_f64_lanes_rows(
    size_t nr, const size_t *nseg_, const size_t *const *seg_, const double *q,
    size_t ldq, const double *k, const double *v, double inv_tau,
    hs_f64_online *st, double *acc, size_t ldacc, const int DK) {
  _Alignas(64) double sall[HS_F64_ROWS * HS_F64_LANE_KEEP];
  _Alignas(64) double xall[HS_F64_ROWS * HS_F64_LANE_KEEP];
  size_t o0[HS_F64_ROWS], o1[HS_F64_ROWS], off = 0;
  int keep[HS_F64_ROWS], live[HS_F64_ROWS];
  vd qc[HS_F64_ROWS], vmax[HS_F64_ROWS], vsum[HS_F64_ROWS], vacc[HS_F64_ROWS];
  vdmask nan[HS_F64_ROWS];
  double m[HS_F64_ROWS];
  /* pass 1: the max over every listed key (max skips NaN); nan: unordered
   * lanes seen */
  for (size_t r = 0; r < nr; r++) {
    const size_t nseg = nseg_[r], *seg = seg_[r];
    qc[r] = hs_f64_qc(q + r * ldq, DK, inv_tau);
    size_t ng = 0;
    for (size_t t = 0; t < nseg; t++)
      if (seg[2 * t + 1])
        ng += (seg[2 * t] + seg[2 * t + 1] - 1) / VD_LANES - seg[2 * t] / VD_LANES + 1;
    keep[r] = ng <= (HS_F64_ROWS * HS_F64_LANE_KEEP - off) / VD_LANES;
    o0[r] = off;
    vd mx = vd_set1(-INFINITY);
    vdmask nn = vd_isnan(vd_zero());
    HS_F64_GROUPS({
      const vd s = group_scores_dk(k, g, lo, hi, qc[r], DK);
      mx = vd_max(s, mx);
      nn = vdmask_or(nn, vd_isnan(s));
      if (keep[r]) {
        vd_storeu(sall + off, s);
        vd_storeu(xall + off, group_values1(v, g, lo, hi));
        off += VD_LANES;
      }
    })
    o1[r] = off, vmax[r] = mx, nan[r] = nn;
  }
  for (size_t r = 0; r < nr; r++) {
    m[r] = vd_hmax(vmax[r]);
    const int bad = vdmask_bits(nan[r]) != 0;
    st[r].max = m[r];
    st[r].sum = bad ? NAN : 0.0;
    acc[r * ldacc] = bad ? NAN : 0.0;
    live[r] = !bad && m[r] != -INFINITY;
  }
  /* pass 2: weights with the fixed max into the running lanes */
  for (size_t r = 0; r < nr; r++) {
    if (!live[r]) continue;
    const size_t nseg = nseg_[r], *seg = seg_[r];
    const vd vm = vd_set1(m[r]);
    const int inf_max = m[r] == INFINITY;
    vd sm = vd_zero(), ac = vd_zero();
    if (keep[r] && !inf_max) {
      for (size_t o = o0[r]; o < o1[r]; o += VD_LANES)
        hs_f64_lane_add(vd_loadu(sall + o), vd_loadu(xall + o), vm, 0, &sm, &ac);
    } else if (keep[r]) {
      for (size_t o = o0[r]; o < o1[r]; o += VD_LANES)
        hs_f64_lane_add(vd_loadu(sall + o), vd_loadu(xall + o), vm, 1, &sm, &ac);
    } else {
      HS_F64_GROUPS({
        hs_f64_lane_add(group_scores_dk(k, g, lo, hi, qc[r], DK),
                        group_values1(v, g, lo, hi), vm, inf_max, &sm, &ac);
      })
    }
    vsum[r] = sm, vacc[r] = ac;
  }
  for (size_t r = 0; r < nr; r++) {
    if (!live[r]) continue;
    st[r].sum = vd_hsum(vsum[r]);
    acc[r * ldacc] = vd_hsum(vacc[r]);
  }
}
#undef HS_F64_GROUPS

/* one function per dk, each with its own small frame */
#define HS_F64_LANES_FN(DK)                                                \
  static __attribute__((noinline)) void hs_f64_lanes_rows_##DK(            \
      size_t nr, const size_t *nseg, const size_t *const *seg,             \
      const double *q, size_t ldq, const double *k, const double *v,       \
      double inv_tau, hs_f64_online *st, double *acc, size_t ldacc) {      \
    hs_f64_lanes_rows(nr, nseg, seg, q, ldq, k, v, inv_tau, st, acc, ldacc, DK); \
  }
HS_F64_LANE_DKS(HS_F64_LANES_FN)
#undef HS_F64_LANES_FN
#endif

/* Rows on the lane path, HS_F64_ROWS at a time: 1 when the shape is its
 * (contiguous keys of a dk the ISA takes, one value column), 0 otherwise
 * (and always on an ISA without it). The one-row kernel calls it with
 * nr = 1 first, so a row's bits are the same alone or among others. */
static inline int hs_f64_rows_lanes(size_t nr, const size_t *nseg,
                                    const size_t *const *seg, size_t dk, size_t dv,
                                    const double *q, size_t ldq, const double *k,
                                    size_t ldk, const double *v, size_t ldv,
                                    double inv_tau, hs_f64_online *st, double *acc,
                                    size_t ldacc) {
#ifdef HS_F64_LANES
  void (*fn)(size_t, const size_t *, const size_t *const *, const double *, size_t,
             const double *, const double *, double, hs_f64_online *, double *,
             size_t) = NULL;
  if (ldk != dk || dv != 1 || ldv != 1) return 0;
#define HS_F64_PICK(DK) if (dk == DK) fn = hs_f64_lanes_rows_##DK;
  HS_F64_LANE_DKS(HS_F64_PICK)
#undef HS_F64_PICK
  if (!fn) return 0;
  for (size_t r = 0; r < nr; r += HS_F64_ROWS) {
    const size_t c = nr - r < HS_F64_ROWS ? nr - r : HS_F64_ROWS;
    fn(c, nseg + r, seg + r, q + r * ldq, ldq, k, v, inv_tau, st + r, acc + r * ldacc,
       ldacc);
  }
  return 1;
#else
  (void)nr, (void)nseg, (void)seg, (void)dk, (void)dv, (void)q, (void)ldq, (void)k;
  (void)ldk, (void)v, (void)ldv, (void)inv_tau, (void)st, (void)acc, (void)ldacc;
  return 0;
#endif
}

/* the rows op over the file's one-row kernel one */
#define HS_DEFINE_F64_ATTN_ROWS_2PASS(rows, one)                             \
  void rows(size_t nr, const size_t *nseg, const size_t *const *seg,        \
            size_t dk, size_t dv, const double *q, size_t ldq,              \
            const double *k, size_t ldk, const double *v, size_t ldv,       \
            double inv_tau, hs_f64_online *st, double *acc, size_t ldacc) { \
    if (hs_f64_rows_lanes(nr, nseg, seg, dk, dv, q, ldq, k, ldk, v, ldv,    \
                          inv_tau, st, acc, ldacc))                         \
      return;                                                               \
    for (size_t r = 0; r < nr; r++)                                         \
      one(nseg[r], seg[r], dk, dv, q + r * ldq, k, ldk, v, ldv, inv_tau,    \
          st + r, acc + r * ldacc);                                         \
  }

#endif
