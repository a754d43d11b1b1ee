/* SPDX-License-Identifier: MIT */
/* f32 fused attention row, online softmax, rr2-p5 exp, written once over
 * the vector vocabulary, for an ISA without row kernels of its own
 * (wasm128; AVX2 and AVX-512 have register-blocked ones). A kernel file
 * includes one vec-f32-<isa>.h, f32-exp-rr2-p5-vec.h, defines BLK, includes
 * attn-f32-blocks-vec.h (qdesc, qd_init, block_scores[_bias] returning the
 * lane max) and this header, and defines its two symbols
 * by HS_DEFINE_F32_ATTN_ROW_ONLINE(plain, bias).
 *
 * The algorithm is the scalar kernel's (f32-attn-row-scalar-online-rr2-p5.c):
 * keys in blocks of BLK; per block the scores and their max, one rescale
 * of sum and acc if the max grew, the weights e_j = exp(s_j - max) a
 * vector at a time, then the block's sums (lane sums of e; values key
 * by key, a vector of columns at a time, keys of weight 0 left out) added
 * to the running ones. Its error bound holds with
 * the blocks' score bound, (ceil(dk/4) + 4) u sum_c |q_c k_jc inv_tau|
 * (attn-f32-blocks-vec.h), and 2.5-ULP weights without a fused vf_fma:
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/BLK + 66) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/BLK + 66) u) sum_j e_j |v_jc|
 * to first order (tests/test-f32-attn-row.c, against a double reference).
 * -inf scores add exactly 0; an all -inf row leaves max = -inf, sum = 0;
 * a +inf score takes weight 1 (others 0); a NaN score makes sum and acc
 * NaN (its own weight, unspecified, is added to NaN). */
#ifndef HS_F32_ATTN_ROW_ONLINE_RR2_P5_IMPL_H
#define HS_F32_ATTN_ROW_ONLINE_RR2_P5_IMPL_H

#include <math.h>
#include <stdint.h>

#include "f32-attn-row-online-symbols.h"
#include "ukernels.h"

/* bacc[0..dv) += sum_{j<nb} e[j] v_j, leaving out the keys of weight 0
 * as the scalar kernel does (at a large mu almost every key): they would
 * add exactly +0, or NaN for an infinite value, which a weight of 0 must
 * not bring in. Narrow rows (dv < VF_LANES) column by column. */
HS_ALWAYS_INLINE void hs_online_values(
    size_t nb, const float *e, const float *v, size_t ldv, size_t dv,
    float *bacc) {
  for (size_t j = 0; j < nb; j++) {
    if (e[j] == 0.0f) continue;
    const float *vj = v + j * ldv;
    if (dv < VF_LANES) {
      for (size_t c = 0; c < dv; c++) bacc[c] += e[j] * vj[c];
      continue;
    }
    const vf w = vf_set1(e[j]);
    size_t c = 0;
    for (; c + VF_LANES <= dv; c += VF_LANES)
      vf_storeu(bacc + c, vf_fma(w, vf_loadu(vj + c), vf_loadu(bacc + c)));
    if (c < dv)
      vf_store_tail(bacc + c, vf_fma(w, vf_load_tail(vj + c, dv - c),
                                     vf_load_tail(bacc + c, dv - c)), dv - c);
  }
}

HS_ALWAYS_INLINE void hs_online_run(
    size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk,
    const float *v, size_t ldv, float inv_tau, int bias, float slope,
    int64_t d0, hs_f32_online *st, float *acc) {
  qdesc qd;
  qd_init(&qd, dk, q, inv_tau);
  _Alignas(64) float sb[BLK], eb[BLK], bacc[HS_ATTN_MAX_D], one[VF_LANES];
  float m = st->max, sum = st->sum;
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    /* scores; lanes past nb are -inf. The max skips NaN. */
    const vf bmv = bias ? block_scores_bias(nb, k + j0 * ldk, ldk, &qd, sb, dk,
                                            slope, d0 + (int64_t)j0)
                        : block_scores(nb, k + j0 * ldk, ldk, &qd, sb, dk);
    const float bm = vf_hmax(bmv);
    if (bm > m) {
      /* the max grows: rescale what was summed so far, once per block */
      if (m != -INFINITY) {
        vf_storeu(one, hs_vexpminus_rr2_p5(vf_set1(m - bm)));
        const float scale = one[0]; /* in [0, 1] */
        sum *= scale;
        for (size_t c = 0; c < dv; c++) acc[c] *= scale;
      }
      m = bm;
    }
    vmask nan = vf_isnan(vf_zero());
    for (size_t g = 0; g < nb; g += VF_LANES)
      nan = vmask_or(nan, vf_isnan(vf_loadu(sb + g)));
    if (vmask_any(nan)) {
      sum += NAN;
      for (size_t c = 0; c < dv; c++) acc[c] += NAN;
    }
    if (m == -INFINITY) continue; /* every score so far is -inf: adds 0 */
    const vf vm = vf_set1(m);
    vf bsum = vf_zero();
    for (size_t g = 0; g < nb; g += VF_LANES) {
      const vf s = vf_loadu(sb + g);
      /* max = +inf: the +inf scores take weight 1, others 0 */
      const vf e = m == INFINITY ? vf_select(vf_cmpeq(s, vm), vf_set1(1.0f), vf_zero())
                                 : hs_vexpminus_rr2_p5(vf_sub(s, vm));
      vf_storeu(eb + g, e);
      bsum = vf_add(bsum, e);
    }
    for (size_t c = 0; c < dv; c++) bacc[c] = 0.0f;
    hs_online_values(nb, eb, v + j0 * ldv, ldv, dv, bacc);
    sum += vf_hsum(bsum);
    for (size_t c = 0; c < dv; c++) acc[c] += bacc[c];
  }
  st->max = m;
  st->sum = sum;
}

#define HS_DEFINE_F32_ATTN_ROW_ONLINE(plain, biased) \
  HS_DEFINE_F32_ATTN_ROW_ONLINE_OVER(hs_online_run, plain, biased)

#endif
