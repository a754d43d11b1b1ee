/* SPDX-License-Identifier: MIT */
/* f64 fused attention row, AVX2+FMA, online softmax, rr2-p11 exp
 * (f64-exp-rr2-p11.h: Cody-Waite with two ln2 constants, degree-11
 * polynomial, <= 2 ULP, +0 below ln(2^-1022)).
 *
 * Error bound (u = 2^-53): each score s_j = (q*inv_tau) . k_j carries
 *   |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc inv_tau|
 * (inv_tau folded into q, 4-double FMA chunks, 2-level reduction); each
 * weight e_j = exp(s_j - max) has relative error <= |ds_j| + |ds_max| + 3u;
 * blocked sums (64 keys, then a running total per lane), so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 12) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 12) u) sum_j e_j |v_jc|
 * to first order (checked by tests/test-f64-kernels.c).
 *
 * Per block of 64 keys: scores 4 keys at a time (one FMA chain per key,
 * then hadd + lane fold give [s_j .. s_j+3]), block max, one rescale if it
 * grew, exp of the block, then acc += e_j v_j with 4 accumulators.
 * Special values: -inf scores add 0; an all -inf row leaves max = -inf,
 * sum = 0; a +inf score takes weight 1 (others 0); NaN poisons sum/acc. */
#include <immintrin.h>
#include <math.h>

#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f64-blocks-avx2.h"

void hs_f64_attn_row_ukernel__avx2_online_rr2_p11(
    size_t n, size_t dk, size_t dv, const double *q, const double *k,
    size_t ldk, const double *v, size_t ldv, double inv_tau, hs_f64_online *st,
    double *acc) {
  if (n == 0) return;
  const size_t nc = dk == 0 ? 1 : (dk + 3) / 4; /* dk == 0: scores are 0 */
  const int full_k = dk > 0 && dk % 4 == 0;
  const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
  const __m256i mk = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(dk % 4)), lane);
  const __m256i mv = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(dv % 4)), lane);
  __m256d qv[16];
  for (size_t c = 0; c < nc; c++) {
    double t[4];
    /* inv_tau folded into q */
    for (int i = 0; i < 4; i++) t[i] = 4 * c + i < dk ? q[4 * c + i] * inv_tau : 0.0;
    qv[c] = _mm256_loadu_pd(t);
  }
  _Alignas(32) double run[HS_ATTN_MAX_D];
  _Alignas(32) double sb[BLK];
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) run[c] = c < dv ? acc[c] : 0.0;
  double m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  __m256d vsum = _mm256_setr_pd(st->sum, 0, 0, 0);
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    double bm = block_scores(nb, k + j0 * ldk, ldk, qv, nc, mk, full_k, sb);
    if (bm > m) {
      /* the max grows: rescale once per block */
      if (m != -INFINITY) {
        __m256d vs = _mm256_set1_pd(hs_f64_exp_scalar(m - bm)); /* in [0, 1] */
        vsum = _mm256_mul_pd(vsum, vs);
        for (size_t c = 0; c < dv; c += 4)
          _mm256_store_pd(run + c, _mm256_mul_pd(_mm256_load_pd(run + c), vs));
      }
      m = bm;
    }
    int has_nan = 0;
    for (size_t j = 0; j < nb; j++) has_nan |= isnan(sb[j]);
    if (has_nan) {
      /* a NaN score: sum and acc become NaN */
      vsum = _mm256_add_pd(vsum, _mm256_set1_pd(NAN));
      for (size_t c = 0; c < dv; c++) run[c] += NAN;
    }
    if (m == -INFINITY) continue; /* every score so far is -inf: adds 0 */
    /* sb = e = exp(s - m) in [0, 1]; +inf max: weight 1 on the +inf scores */
    const __m256d vm = _mm256_set1_pd(m);
    __m256d bsum = _mm256_setzero_pd();
    for (size_t g = 0; g < BLK; g += 4) {
      __m256d s = _mm256_load_pd(sb + g);
      __m256d e = hs_f64_exp_avx2(_mm256_sub_pd(s, vm));
      if (m == INFINITY)
        e = _mm256_blendv_pd(_mm256_and_pd(e, _mm256_cmp_pd(e, e, _CMP_ORD_Q)),
                             _mm256_set1_pd(1.0), _mm256_cmp_pd(s, vm, _CMP_EQ_OQ));
      _mm256_store_pd(sb + g, e);
      bsum = _mm256_add_pd(bsum, e);
    }
    vsum = _mm256_add_pd(vsum, bsum);
    /* run += sum_j e_j v_j, 4 columns per register, 4 accumulators */
    const double *vb = v + j0 * ldv;
    for (size_t c = 0; c < dv; c += 4) {
      const int full = dv - c >= 4;
#define LD(j) (full ? _mm256_loadu_pd(vb + (j) * ldv + c) : _mm256_maskload_pd(vb + (j) * ldv + c, mv))
#define STEP(a, j) a = _mm256_fmadd_pd(_mm256_broadcast_sd(sb + (j)), LD(j), a)
      __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
      size_t j = 0;
      for (; j + 4 <= nb; j += 4) {
        STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
      }
      for (; j < nb; j++) STEP(a0, j);
#undef STEP
#undef LD
      a0 = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
      _mm256_store_pd(run + c, _mm256_add_pd(_mm256_load_pd(run + c), a0));
    }
  }
  st->max = m;
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(vsum), _mm256_extractf128_pd(vsum, 1));
  st->sum = _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}
