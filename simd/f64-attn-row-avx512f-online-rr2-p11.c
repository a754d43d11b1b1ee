/* SPDX-License-Identifier: MIT */
/* f64 fused attention row, AVX-512F (scores 4 keys per 256-bit register as in the AVX2 kernel;
 * exp and values 8 doubles per 512-bit register), online softmax, rr2-p11 exp
 * (f64-exp-rr2-p11.h: Cody-Waite with two ln2 constants, degree-11
 * polynomial, <= 2 ULP, +0 below ln(2^-1022)).
 *
 * Error bound (u = 2^-53): each score s_j = (q*inv_tau) . k_j carries
 *   |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc inv_tau|
 * (inv_tau folded into q, 4-double FMA chunks, 2-level reduction); each
 * weight e_j = exp(s_j - max) has relative error <= |ds_j| + |ds_max| + 3u;
 * blocked sums (512 keys: at most 64 adds per lane or accumulator, 3 to
 * fold lanes, then a running total per lane), so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/512 + 70) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/512 + 70) u) sum_j e_j |v_jc|
 * to first order (checked by tests/test-f64-kernels.c).
 *
 * Per block of 512 keys: scores, block max, one rescale if it grew, exp
 * of the block, then the values. 512, not 64: in pe the scores grow with
 * the key, so nearly every block raises the max and pays a scalar exp to
 * rescale (a third of the time at 64).
 *   - scores: keys stored contiguously with dk in {1, 2, 4} (the small
 *     compiled heads) take 8 keys per 512-bit step: dk plain loads, times
 *     q repeated with period dk, log2(dk) levels of even/odd add (no
 *     masks, no horizontal adds); other shapes 4 keys per 256-bit register
 *     (one FMA chain per key, hadd + lane fold), shared with AVX2;
 *   - a NaN score is found by one unordered compare per 8 scores, not by
 *     testing each score;
 *   - values: dv == 1 with contiguous values is lane-wise, 8 keys per FMA
 *     into a block accumulator (8 terms per lane, then added to a running
 *     total per lane: within the bound above); otherwise acc += e_j v_j,
 *     8 columns per register, 8 accumulators.
 * Special values: -inf scores add 0; an all -inf row leaves max = -inf,
 * sum = 0; a +inf score takes weight 1 (others 0); NaN poisons sum/acc. */
#include <immintrin.h>
#include <math.h>

#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f64-blocks-avx2.h"
#include "attn-f64-blocks-avx512f.h"

void hs_f64_attn_row_ukernel__avx512f_online_rr2_p11(
    size_t n, size_t dk, size_t dv, const double *q, const double *k,
    size_t ldk, const double *v, size_t ldv, double inv_tau, hs_f64_online *st,
    double *acc) {
  if (n == 0) return;
  const size_t nc = dk == 0 ? 1 : (dk + 3) / 4; /* dk == 0: scores are 0 */
  const int full_k = dk > 0 && dk % 4 == 0;
  const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
  const __m256i mk = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(dk % 4)), lane);
  __m256d qv[16];
  for (size_t c = 0; c < nc; c++) {
    double t[4];
    /* inv_tau folded into q */
    for (int i = 0; i < 4; i++) t[i] = 4 * c + i < dk ? q[4 * c + i] * inv_tau : 0.0;
    qv[c] = _mm256_loadu_pd(t);
  }
  /* contiguous keys of dk 1, 2, 4: lane i of qc = q[i mod dk] * inv_tau */
  const int DK = ldk == dk && (dk == 1 || dk == 2 || dk == 4) ? (int)dk : 0;
  __m512d qc = _mm512_setzero_pd();
  if (DK) {
    double t[8];
    for (int i = 0; i < 8; i++) t[i] = q[i % DK] * inv_tau;
    qc = _mm512_loadu_pd(t);
  }
  /* dv == 1, contiguous values: acc lane-wise, 8 keys per FMA */
  const int v1 = dv == 1 && ldv == 1;
  __m512d vacc = _mm512_setzero_pd();
  _Alignas(64) double run[HS_ATTN_MAX_D];
  _Alignas(64) double sb[BLK];
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) run[c] = c < dv ? acc[c] : 0.0;
  double m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  __m512d vsum = _mm512_maskz_mov_pd(1, _mm512_set1_pd(st->sum));
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    int has_nan = 0;
    double bm;
    const double *kb = k + j0 * ldk;
    if (DK == 1) bm = block_scores_contig(nb, kb, qc, 1, sb, &has_nan);
    else if (DK == 2) bm = block_scores_contig(nb, kb, qc, 2, sb, &has_nan);
    else if (DK == 4) bm = block_scores_contig(nb, kb, qc, 4, sb, &has_nan);
    else {
      bm = block_scores(nb, kb, ldk, qv, nc, mk, full_k, sb);
      for (size_t j = 0; j < nb; j++) has_nan |= isnan(sb[j]);
    }
    if (bm > m) {
      /* the max grows: rescale once per block */
      if (m != -INFINITY) {
        __m512d vs = _mm512_set1_pd(hs_f64_exp_scalar(m - bm)); /* in [0, 1] */
        vsum = _mm512_mul_pd(vsum, vs);
        vacc = _mm512_mul_pd(vacc, vs);
        for (size_t c = 0; c < dv; c += 8)
          _mm512_store_pd(run + c, _mm512_mul_pd(_mm512_load_pd(run + c), vs));
      }
      m = bm;
    }
    if (has_nan) {
      /* a NaN score: sum and acc become NaN */
      vsum = _mm512_add_pd(vsum, _mm512_set1_pd(NAN));
      for (size_t c = 0; c < dv; c++) run[c] += NAN;
    }
    if (m == -INFINITY) continue; /* every score so far is -inf: adds 0 */
    /* sb = e = exp(s - m) in [0, 1]; +inf max: weight 1 on the +inf scores */
    const __m512d vm = _mm512_set1_pd(m);
    __m512d bsum = _mm512_setzero_pd();
    for (size_t g = 0; g < ((nb + 7) & ~(size_t)7); g += 8) {
      __m512d s = _mm512_load_pd(sb + g);
      __m512d e = hs_f64_exp_avx512(_mm512_sub_pd(s, vm));
      if (m == INFINITY) {
        e = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(e, e, _CMP_ORD_Q), e);
        e = _mm512_mask_mov_pd(e, _mm512_cmp_pd_mask(s, vm, _CMP_EQ_OQ), _mm512_set1_pd(1.0));
      }
      _mm512_store_pd(sb + g, e);
      bsum = _mm512_add_pd(bsum, e);
    }
    vsum = _mm512_add_pd(vsum, bsum);
    const double *vb = v + j0 * ldv;
    if (v1) {
      /* e past nb is 0 (score -inf): the masked load reads no value past nb */
      __m512d b = _mm512_setzero_pd();
      for (size_t g = 0; g < nb; g += 8) {
        __mmask8 mv = nb - g >= 8 ? 0xFF : (__mmask8)((1u << (nb - g)) - 1);
        b = _mm512_fmadd_pd(_mm512_load_pd(sb + g), _mm512_maskz_loadu_pd(mv, vb + g), b);
      }
      vacc = _mm512_add_pd(vacc, b);
      continue;
    }
    /* run += sum_j e_j v_j, 8 columns per register, 8 accumulators */
    for (size_t c = 0; c < dv; c += 8) {
      const __mmask8 mc = dv - c >= 8 ? 0xFF : (__mmask8)((1u << (dv - c)) - 1);
#define STEP(a, j) \
  a = _mm512_fmadd_pd(_mm512_set1_pd(sb[j]), _mm512_maskz_loadu_pd(mc, vb + (j) * ldv + c), a)
      __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0,
              a6 = a0, a7 = a0;
      size_t j = 0;
      for (; j + 8 <= nb; j += 8) {
        STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
        STEP(a4, j + 4); STEP(a5, j + 5); STEP(a6, j + 6); STEP(a7, j + 7);
      }
      for (; j < nb; j++) STEP(a0, j);
#undef STEP
      a0 = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)),
                         _mm512_add_pd(_mm512_add_pd(a4, a5), _mm512_add_pd(a6, a7)));
      _mm512_store_pd(run + c, _mm512_add_pd(_mm512_load_pd(run + c), a0));
    }
  }
  st->max = m;
  st->sum = _mm512_reduce_add_pd(vsum);
  if (v1) run[0] += _mm512_reduce_add_pd(vacc);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}
