/* f32 fused attention row, AVX-512F, online softmax, rr2-p5 exp.
 *
 * Error bound (u = 2^-24), as for the AVX2 kernel: each score
 * s_j = (q*inv_tau) . k_j carries
 *   |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc inv_tau|
 * (inv_tau folded into q, chunked FMA, 2-level add tree); each weight
 * e_j = exp(s_j - max) has relative error <= |ds_j| + |ds_max| + 3 u; the
 * sums are blocked (512 keys: at most 32 adds per lane, 4 to fold lanes,
 * then a running total per lane), so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/512 + 40) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/512 + 40) u) sum_j e_j |v_jc|
 * to first order (checked by tests/test-f32-attn-row.c).
 *
 * Work per block of 512 keys (long enough that the per-block max, branch
 * and lane folds cost little per key):
 *   1. scores 16 keys at a time. Contiguous keys with dk in {1, 2, 4, 8}
 *      (the heads compiled models use): the 16*dk floats are dk plain
 *      loads, times q repeated with period dk, then log2(dk) levels of
 *      pairsum (two full-width permutes + add), which keep key order.
 *      Otherwise register x_i (i < 4) holds, in 128-bit lane l, a 4-float
 *      chunk of key 4l+i (the loads do the first level of the horizontal
 *      reduction), times q's chunk in every lane; two in-lane shuffle+add
 *      levels give [s_0 .. s_15] in order;
 *   2. the block max; sum and acc are rescaled only when it grows;
 *   3. e = exp(s - max);
 *   4. dv == 1 with contiguous values: fused into 3, acc += e * v lane-wise
 *      (one FMA per 16 keys, weights never stored); dv <= 8: two keys per
 *      register ([v_j | v_j+1] times [e_j.. | e_j+1..], the weight pair
 *      made by one permute), so one FMA serves two keys; larger dv: 16
 *      columns per register, 4 accumulators.
 *
 * (512, not 128: the weights of a block wait for its max, and the last exp
 * chains of a block are not overlapped with the next block's scores;
 * measured on a S b rows, dk = 2, dv = 1, n = 4096: 0.25 ns/key at 128,
 * 0.20 at 512.)
 *
 * Special values as in the AVX2 kernel: -inf scores add 0; all -inf leaves
 * max = -inf, sum = 0; a +inf score takes weight 1, the others 0; a NaN
 * score makes sum and acc NaN. */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-blocks-avx512f.h"
}

void hs_f32_attn_row_ukernel__avx512f_online_rr2_p5(
    size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk,
    const float *v, size_t ldv, float inv_tau, hs_f32_online *st, float *acc) {
  if (n == 0) return;
  qdesc qd;
  qd.nc4 = dk == 0 ? 1 : (dk + 3) / 4; /* dk == 0: every score is 0 */
  {
    int r = (int)(dk % 4);
    qd.mlast = _mm_setr_epi32(0 < r ? -1 : 0, 1 < r ? -1 : 0, 2 < r ? -1 : 0, 0);
  }
  /* q * inv_tau built in registers: scalar stores read back by one wide
   * load stall store forwarding (~20 cycles each, twice per row; the
   * per-row setup was ~50 ns against ~0.2 ns per key). Lanes past dk are
   * +0 (masked multiply: never 0 * inf). */
  const __m512 vtau = _mm512_set1_ps(inv_tau);
  for (size_t c = 0; c < qd.nc4; c++) {
    size_t rem = dk > 4 * c ? dk - 4 * c : 0;
    __mmask16 mc = (__mmask16)((1u << (rem < 4 ? rem : 4)) - 1);
    /* inv_tau folded into q: one rounding more per product, no multiply
     * per score */
    __m512 x = _mm512_maskz_mul_ps(mc, _mm512_maskz_loadu_ps(mc, q + 4 * c), vtau);
    qd.q4[c] = _mm512_shuffle_f32x4(x, x, 0);
  }
  if (dk == 1 || dk == 2 || dk == 4 || dk == 8) {
    /* lane i: q[i mod dk] * inv_tau (dk a power of 2) */
    __mmask16 mk = (__mmask16)((1u << dk) - 1);
    __m512 x = _mm512_maskz_mul_ps(mk, _mm512_maskz_loadu_ps(mk, q), vtau);
    __m512i idx = _mm512_and_si512(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32((int)dk - 1));
    qd.qc = _mm512_permutexvar_ps(idx, x);
  } else {
    qd.qc = _mm512_setzero_ps();
  }
  __m256i m8;
  {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    m8 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(dv % 8)), lane);
  }
  _Alignas(64) float run[HS_ATTN_MAX_D];
  _Alignas(64) float sb[BLK];
  _Alignas(64) float eb[BLK];
  /* run[0..16) for dv <= 8 (256-bit stores), whole 16-chunks beyond */
  const size_t nrun = dv <= 16 ? 16 : (dv + 15) / 16 * 16;
  for (size_t c = 0; c < nrun; c += 16) {
    size_t rem = dv > c ? dv - c : 0;
    __mmask16 mc = (__mmask16)(rem >= 16 ? 0xFFFF : (1u << rem) - 1);
    _mm512_store_ps(run + c, _mm512_maskz_loadu_ps(mc, acc + c));
  }
  /* dv == 1 with contiguous values: acc[0] kept per lane in vacc (lane 0
   * starts at the caller's acc[0]); otherwise vacc stays 0 */
  const int v1 = dv == 1 && ldv == 1;
  __m512 vacc = _mm512_maskz_mov_ps(1, _mm512_set1_ps(v1 ? acc[0] : 0.0f));
  if (v1) run[0] = 0;
  float m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  __m512 vsum = _mm512_castps128_ps512(_mm_set_ss(st->sum));
  vsum = _mm512_maskz_mov_ps(1, vsum);

  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    /* sb = scores of the block, lanes >= nb are -inf */
    float bm = _mm512_reduce_max_ps(block_scores(nb, k + j0 * ldk, ldk, &qd, sb, dk));
    if (bm > m) {
      /* the max grows: rescale what was summed so far, once per block */
      if (m != -INFINITY) {
        __m512 vs = _mm512_set1_ps(hs_attn_expf_scalar(m - bm)); /* in [0, 1] */
        vsum = _mm512_mul_ps(vsum, vs);
        vacc = _mm512_mul_ps(vacc, vs);
        for (size_t c = 0; c < dv; c += 16)
          _mm512_store_ps(run + c, _mm512_mul_ps(_mm512_load_ps(run + c), vs));
      }
      m = bm;
    }
    if (m == -INFINITY) {
      /* nothing finite yet: the block adds 0, unless a score is NaN */
      for (size_t j = 0; j < nb; j++)
        if (isnan(sb[j])) {
          vsum = _mm512_add_ps(vsum, _mm512_set1_ps(NAN));
          for (size_t c = 0; c < dv; c++) run[c] += NAN;
          vacc = _mm512_add_ps(vacc, _mm512_set1_ps(NAN));
          break;
        }
      continue;
    }
    /* eb = exp(sb - m) in [0, 1]; bsum = their sum */
    const __m512 vm = _mm512_set1_ps(m);
    __m512 bsum = _mm512_setzero_ps();
    int poison = 0;
    if (m != INFINITY && v1) {
      /* dv == 1, contiguous values: the weights never leave registers,
       * vacc += e * v lane-wise (one FMA per 16 keys) */
      const float *vb = v + j0;
      __m512 nan = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
      size_t g = 0;
      for (; g + 32 <= nb; g += 32) {
        __m512 x0 = _mm512_sub_ps(_mm512_load_ps(sb + g), vm);
        __m512 x1 = _mm512_sub_ps(_mm512_load_ps(sb + g + 16), vm);
        __m512 e0 = hs_attn_exp_nonan_avx512(x0);
        __m512 e1 = hs_attn_exp_nonan_avx512(x1);
        /* x <= 0 or NaN: nan is NaN iff some x is */
        nan = _mm512_add_ps(nan, _mm512_add_ps(x0, x1));
        bsum = _mm512_add_ps(bsum, _mm512_add_ps(e0, e1));
        vacc = _mm512_fmadd_ps(e0, _mm512_loadu_ps(vb + g), vacc);
        a1 = _mm512_fmadd_ps(e1, _mm512_loadu_ps(vb + g + 16), a1);
      }
      for (; g < nb; g += 16) {
        /* lanes >= nb hold -inf scores (weight 0) and read no value */
        __m512 x = _mm512_sub_ps(_mm512_load_ps(sb + g), vm);
        __m512 e = hs_attn_exp_nonan_avx512(x);
        nan = _mm512_add_ps(nan, x);
        bsum = _mm512_add_ps(bsum, e);
        __mmask16 mk = nb - g >= 16 ? 0xFFFF : (__mmask16)((1u << (nb - g)) - 1);
        a1 = _mm512_fmadd_ps(e, _mm512_maskz_loadu_ps(mk, vb + g), a1);
      }
      vacc = _mm512_add_ps(vacc, a1);
      vsum = _mm512_add_ps(vsum, bsum);
      if (_mm512_cmp_ps_mask(nan, nan, _CMP_UNORD_Q)) {
        /* a NaN score: sum and acc become NaN */
        vsum = _mm512_add_ps(vsum, _mm512_set1_ps(NAN));
        vacc = _mm512_add_ps(vacc, _mm512_set1_ps(NAN));
      }
      continue;
    }
    if (m != INFINITY) {
      /* x <= 0 or NaN; nan = sum of the x, NaN iff some x is NaN */
      __m512 nan = _mm512_setzero_ps();
      for (size_t g = 0; g < nb; g += 16) {
        __m512 x = _mm512_sub_ps(_mm512_load_ps(sb + g), vm);
        __m512 e = hs_attn_exp_nonan_avx512(x);
        nan = _mm512_add_ps(nan, x);
        _mm512_store_ps(eb + g, e);
        bsum = _mm512_add_ps(bsum, e);
      }
      poison = _mm512_cmp_ps_mask(nan, nan, _CMP_UNORD_Q) != 0;
    } else {
      /* max = +inf: the +inf scores share the weight (1 each), others 0 */
      for (size_t g = 0; g < nb; g += 16) {
        __m512 s = _mm512_load_ps(sb + g);
        __m512 e = hs_attn_exp_avx512(_mm512_sub_ps(s, vm));
        e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(s, vm, _CMP_EQ_OQ), _mm512_set1_ps(1.0f));
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
    if (poison) {
      /* a NaN score: sum and acc become NaN */
      vsum = _mm512_add_ps(vsum, _mm512_set1_ps(NAN));
      for (size_t c = 0; c < dv; c++) run[c] += NAN;
    }
  }
  st->max = m;
  st->sum = _mm512_reduce_add_ps(vsum);
  if (v1) run[0] += _mm512_reduce_add_ps(vacc);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}
