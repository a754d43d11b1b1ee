/* SPDX-License-Identifier: MIT */
/* f32 fused attention row over a list of key segments, AVX-512F, two
 * passes (exact max, then sum and weighted values with that max), rr2-p5
 * exp. The score and value code is that of the online AVX-512 kernel
 * (f32-attn-row-avx512f-online-rr2-p5.c: contiguous dk in {1, 2, 4, 8} by
 * plain loads and pairsums, otherwise 4-float chunks of four keys per
 * register; two keys per register for dv <= 8), in chunks of 64 keys.
 *
 * Error bound (u = 2^-24), as for the online kernel: |ds_j| <=
 * (ceil(dk/4) + 4) u sum_c |q_c k_jc inv_tau|; weights relative error
 * <= |ds_j| + |ds_max| + 3 u; chunk sums of at most 4 adds per lane, then
 * a running total per lane, so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j |v_jc|
 * to first order, with no rescaling (checked by tests/test-skip.c).
 *
 * Skipping (see the scalar kernel's comment and src/run/forward-impl.h): every
 * segment is walked in chunks of 64 from its own start, so a key's score,
 * its weight and its chunk's sums depend only on its segment; a segment
 * whose weights are all exactly +0 adds +0 to every running lane, which is
 * never -0, so leaving it out of the list gives the same bits.
 *
 * Outputs overwritten: st->max, st->sum, acc[0..dv). -inf scores add 0; a
 * +inf max gives the +inf scores weight 1, others 0; a NaN score makes sum
 * and every acc NaN. */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f32-blocks-avx512f.h"


static void qd_init(qdesc *qd, size_t dk, const float *q, float inv_tau) {
  qd->nc4 = dk == 0 ? 1 : (dk + 3) / 4; /* dk == 0: every score is 0 */
  int r = (int)(dk % 4);
  qd->mlast = _mm_setr_epi32(0 < r ? -1 : 0, 1 < r ? -1 : 0, 2 < r ? -1 : 0, 0);
  for (size_t c = 0; c < qd->nc4; c++) {
    float t[4];
    /* inv_tau folded into q, as in the online kernel */
    for (int i = 0; i < 4; i++) t[i] = 4 * c + i < dk ? q[4 * c + i] * inv_tau : 0.0f;
    qd->q4[c] = _mm512_broadcast_f32x4(_mm_loadu_ps(t));
  }
  if (dk == 1 || dk == 2 || dk == 4 || dk == 8) {
    float t[16];
    /* dk is a power of 2: a mask, not 8-16 divisions per row */
    for (int i = 0; i < 16; i++) t[i] = q[(size_t)i & (dk - 1)] * inv_tau;
    qd->qc = _mm512_loadu_ps(t);
  } else {
    qd->qc = _mm512_setzero_ps();
  }
}

/* Both entry points; bias != 0: each score gets the relative bias (one
 * FMA, as the online _bias kernel), the same instructions otherwise. */
static inline __attribute__((always_inline)) void run2(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const float *q,
    const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau,
    int bias, float slope, int64_t d0, hs_f32_online *st, float *acc) {
  qdesc qd;
  qd_init(&qd, dk, q, inv_tau);
  __m256i m8;
  {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    m8 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(dv % 8)), lane);
  }
  _Alignas(64) float run[HS_ATTN_MAX_D];
  _Alignas(64) float sb[BLK];
  _Alignas(64) float eb[BLK];
  /* pass 1: the max over every listed key; nan: unordered lanes seen */
  __m512 vmax = _mm512_set1_ps(-INFINITY);
  __mmask16 nan = 0;
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      vmax = _mm512_max_ps((bias ? block_scores_bias(nb, k + j0 * ldk, ldk, &qd, sb, dk, slope, d0 + (int64_t)j0)
                  : block_scores(nb, k + j0 * ldk, ldk, &qd, sb, dk)), vmax);
      for (size_t g = 0; g < nb; g += 16) {
        __m512 s = _mm512_load_ps(sb + g);
        nan |= _mm512_cmp_ps_mask(s, s, _CMP_UNORD_Q);
      }
    }
  }
  const float m = _mm512_reduce_max_ps(vmax);
  const int has_nan = nan != 0;
  st->max = m;
  st->sum = has_nan ? NAN : 0.0f;
  for (size_t c = 0; c < dv; c++) acc[c] = has_nan ? NAN : 0.0f;
  if (has_nan || m == -INFINITY) return;
  /* pass 2: weights with the fixed max, chunk sums into running lanes */
  const size_t nrun = dv <= 16 ? 16 : (dv + 15) / 16 * 16;
  for (size_t c = 0; c < nrun; c++) run[c] = 0.0f;
  const __m512 vm = _mm512_set1_ps(m);
  __m512 vsum = _mm512_setzero_ps();
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      (bias ? block_scores_bias(nb, k + j0 * ldk, ldk, &qd, sb, dk, slope, d0 + (int64_t)j0)
                  : block_scores(nb, k + j0 * ldk, ldk, &qd, sb, dk)); /* lanes >= nb: -inf */
      __m512 bsum = _mm512_setzero_ps();
      if (m != INFINITY) {
        /* x = s - m <= 0 (no NaN: pass 1 found none); e = +0 below the
         * cutoff and for the -inf lanes */
        for (size_t g = 0; g < nb; g += 16) {
          __m512 e = hs_attn_exp_nonan_avx512(_mm512_sub_ps(_mm512_load_ps(sb + g), vm));
          _mm512_store_ps(eb + g, e);
          bsum = _mm512_add_ps(bsum, e);
        }
      } else {
        /* max = +inf: the +inf scores take weight 1, others 0 */
        for (size_t g = 0; g < nb; g += 16) {
          __mmask16 top = _mm512_cmp_ps_mask(_mm512_load_ps(sb + g), vm, _CMP_EQ_OQ);
          __m512 e = _mm512_maskz_mov_ps(top, _mm512_set1_ps(1.0f));
          _mm512_store_ps(eb + g, e);
          bsum = _mm512_add_ps(bsum, e);
        }
      }
      vsum = _mm512_add_ps(vsum, bsum);
      /* run += sum_j eb[j] v_j */
      const float *vb = v + j0 * ldv;
      if (dv == 8) values_small_t(nb, eb, vb, ldv, m8, 1, run);
      else if (dv < 8) {
        if (dv > 0) values_small_t(nb, eb, vb, ldv, m8, 0, run);
      } else values_wide(nb, eb, vb, ldv, dv, run);
    }
  }
  st->sum = _mm512_reduce_add_ps(vsum);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}

void hs_f32_attn_row_2pass_ukernel__avx512f_rr2_p5(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const float *q,
    const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau,
    hs_f32_online *st, float *acc) {
  run2(nseg, seg, dk, dv, q, k, ldk, v, ldv, inv_tau, 0, 0, 0, st, acc);
}

/* The relative-bias variant (hs_f32_attn_row_2pass_bias_fn): the error
 * bound above holds for the biased scores with |ds_j| one rounding
 * larger. */
void hs_f32_attn_row_2pass_bias_ukernel__avx512f_rr2_p5(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const float *q,
    const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau,
    float slope, int64_t d0, hs_f32_online *st, float *acc) {
  run2(nseg, seg, dk, dv, q, k, ldk, v, ldv, inv_tau, 1, slope, d0, st, acc);
}
