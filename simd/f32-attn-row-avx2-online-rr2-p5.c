/* f32 fused attention row, AVX2+FMA, online softmax, rr2-p5 exp.
 *
 * Error bound (u = 2^-24): each score s_j = (q . k_j) * inv_tau carries
 *   |ds_j| <= (ceil(dk/4) + 3) u sum_c |q_c k_jc| |inv_tau|   (chunked FMA,
 * 2-level add tree, the scaling); each weight e_j = exp(s_j - max) then has
 * relative error <= |ds_j| + |ds_max| + 3 u (subtraction, 2-ULP exp); the
 * sums are blocked (512 keys: at most 64 adds per lane, 3 to fold lanes,
 * then a running total per lane), so
 *   |sum - sum*| <= (max_j rel(e_j) + (n/512 + 70) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/512 + 70) u) sum_j e_j |v_jc|,
 * to first order. tests/test-f32-attn-row.c checks exactly this bound.
 *
 * Layout of the work: keys are walked in blocks of 512 (long enough that
 * the per-block max, branch and lane folds cost little per key). Per block
 *   1. scores of 8 keys at a time. Contiguous keys with dk in {1, 2, 4}
 *      (the small heads compiled models use): 8*dk floats are dk plain
 *      loads, times q repeated with period dk, then log2(dk) even/odd
 *      shuffle+add levels (dots8_contig). Otherwise 128-bit chunks of two
 *      key rows (j, j+4) are paired in one register and multiplied by q's
 *      chunk duplicated in both halves, so the first level of the
 *      horizontal reduction is done by the loads; two shuffle+add levels
 *      finish 8 dot products into one vector [s_0 .. s_7];
 *   2. the block's maximum; only if it exceeds the running maximum are the
 *      running sum and accumulator rescaled, once per block;
 *   3. e = exp(s - max) for the block, summed blockwise;
 *   4. dv == 1 with contiguous values: fused into 3, acc += e * v lane-wise
 *      (one FMA per 8 keys, weights never stored); otherwise
 *      acc += sum_j e_j v_j with 8 independent accumulators per 8 columns.
 * The only buffers are two 512-float blocks on the stack.
 *
 * Why 512 and not 128: the weights of a block wait for its max (a
 * horizontal max, a compare and a branch), and the exp chains of its last
 * group are not overlapped with the next block's scores; per block that
 * costs about as much as a hundred keys. Measured on a S b rows (dk = 2,
 * dv = 1, n = 4096): 0.41 ns/key at 128, 0.37 at 512.
 *
 * Special values: -inf scores contribute exactly 0; a block whose scores
 * are all -inf while the running max is still -inf leaves the state
 * unchanged (max = -inf, sum = 0). A +inf score becomes the max and takes
 * weight 1 (others 0), the limit of softmax. A NaN score is ignored by the
 * max but makes its weight NaN, so sum and acc become NaN (also when every
 * other score is -inf). */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-blocks-avx2.h"

void hs_f32_attn_row_ukernel__avx2_online_rr2_p5(
    size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk,
    const float *v, size_t ldv, float inv_tau, hs_f32_online *st, float *acc) {
  if (n == 0) return;
  qdesc qd;
  qd.nc4 = (dk + 3) / 4;
  if (qd.nc4 == 0) qd.nc4 = 1; /* dk == 0: every score is 0 */
  {
    int r = (int)(dk % 4);
    qd.mlast = _mm_setr_epi32(0 < r ? -1 : 0, 1 < r ? -1 : 0, 2 < r ? -1 : 0, 0);
    if (dk == 0) qd.mlast = _mm_setzero_si128();
  }
  /* q * inv_tau built in registers: scalar stores read back by one wide
   * load stall store forwarding (~20 cycles each, per row). Lanes past dk
   * are +0 (the product is masked after the multiply: never 0 * inf). */
  const __m256i lane8 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m128 vtau = _mm_set1_ps(inv_tau);
  /* chunks 0..nc4 (one past, zero, for the odd 8-float pairing) */
  for (size_t c = 0; c <= qd.nc4 && c < 16; c++) { /* zero past dk */
    size_t rem = dk > 4 * c ? dk - 4 * c : 0;
    __m128i mc = _mm_cmpgt_epi32(_mm_set1_epi32((int)(rem < 4 ? rem : 4)),
                                 _mm_setr_epi32(0, 1, 2, 3));
    /* inv_tau folded into q: one rounding more per product, no multiply
     * per score */
    __m128 h = _mm_and_ps(_mm_mul_ps(_mm_maskload_ps(q + 4 * c, mc), vtau),
                          _mm_castsi128_ps(mc));
    qd.q4[c] = _mm256_insertf128_ps(_mm256_castps128_ps256(h), h, 1);
  }
  for (size_t c = 0; c < (qd.nc4 + 1) / 2; c++)
    qd.q8[c] = _mm256_setr_m128(_mm256_castps256_ps128(qd.q4[2 * c]),
                                _mm256_castps256_ps128(qd.q4[2 * c + 1]));
  if (dk == 1 || dk == 2 || dk == 4) {
    /* lane i: q[i mod dk] * inv_tau (dk a power of 2): chunk 0 permuted */
    qd.qc = _mm256_permutevar8x32_ps(
        qd.q4[0], _mm256_and_si256(lane8, _mm256_set1_epi32((int)dk - 1)));
  } else {
    qd.qc = _mm256_setzero_ps();
  }
  {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    qd.mlast8 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(dk % 8)), lane);
  }
  __m256i vmask;
  {
    int r = (int)(dv % 8);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    vmask = _mm256_cmpgt_epi32(_mm256_set1_epi32(r), lane);
  }
  const size_t nv = (dv + 7) / 8;
  _Alignas(32) float run[HS_ATTN_MAX_D];
  _Alignas(32) float sb[BLK];
  _Alignas(32) float eb[BLK];
  for (size_t c = 0; c < 8 * nv; c += 8) {
    size_t rem = dv - c; /* >= 1 */
    __m256i mc = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(rem < 8 ? rem : 8)), lane8);
    _mm256_store_ps(run + c, _mm256_maskload_ps(acc + c, mc));
  }
  float m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  __m256 vsum = _mm256_setr_ps(st->sum, 0, 0, 0, 0, 0, 0, 0);
  /* dv == 1 with contiguous values: acc[0] kept per lane in vacc (lane 0
   * starts at the caller's acc[0]); otherwise vacc stays 0 */
  const int v1 = dv == 1 && ldv == 1;
  __m256 vacc = _mm256_setr_ps(v1 ? acc[0] : 0.0f, 0, 0, 0, 0, 0, 0, 0);
  if (v1) run[0] = 0;

  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    /* sb = scores of the block, lanes >= nb are -inf */
    float bm = hmax8(block_scores(nb, k + j0 * ldk, ldk, &qd, sb, dk));
    if (bm > m) {
      /* the max grows: rescale what was summed so far, once per block */
      if (m != -INFINITY) {
        float scale = hs_attn_expf_scalar(m - bm); /* in [0, 1] */
        __m256 vs = _mm256_set1_ps(scale);
        vsum = _mm256_mul_ps(vsum, vs);
        vacc = _mm256_mul_ps(vacc, vs);
        for (size_t c = 0; c < nv; c++)
          _mm256_store_ps(run + 8 * c, _mm256_mul_ps(_mm256_load_ps(run + 8 * c), vs));
      }
      m = bm;
    }
    if (m == -INFINITY) {
      /* nothing finite yet: the block adds 0, unless a score is NaN */
      for (size_t j = 0; j < nb; j++)
        if (isnan(sb[j])) {
          vsum = _mm256_add_ps(vsum, _mm256_set1_ps(NAN));
          for (size_t c = 0; c < dv; c++) run[c] += NAN;
          vacc = _mm256_add_ps(vacc, _mm256_set1_ps(NAN));
          break;
        }
      continue;
    }
    /* eb = exp(sb - m) in [0, 1], NaN for NaN scores; bsum = their sum */
    const __m256 vm = _mm256_set1_ps(m);
    __m256 bsum = _mm256_setzero_ps();
    if (m != INFINITY && v1) {
      /* dv == 1, contiguous values: the weights never leave registers,
       * vacc += e * v lane-wise (one FMA per 8 keys) */
      const float *vb = v + j0;
      __m256 nan = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
      size_t g = 0;
      for (; g + 16 <= nb; g += 16) {
        /* constants from memory: the 4 accumulators stay in registers */
        const float(*ec)[8] = hs_attn_exp_avx2_consts();
        __m256 x0 = _mm256_sub_ps(_mm256_load_ps(sb + g), vm);
        __m256 x1 = _mm256_sub_ps(_mm256_load_ps(sb + g + 8), vm);
        __m256 e0 = hs_attn_exp_nonan_avx2_c(x0, ec);
        __m256 e1 = hs_attn_exp_nonan_avx2_c(x1, ec);
        /* x <= 0 or NaN: nan is NaN iff some x is */
        nan = _mm256_add_ps(nan, _mm256_add_ps(x0, x1));
        bsum = _mm256_add_ps(bsum, _mm256_add_ps(e0, e1));
        vacc = _mm256_fmadd_ps(e0, _mm256_loadu_ps(vb + g), vacc);
        a1 = _mm256_fmadd_ps(e1, _mm256_loadu_ps(vb + g + 8), a1);
      }
      for (; g < nb; g += 8) {
        /* lanes >= nb hold -inf scores (weight 0) and read no value */
        __m256 x = _mm256_sub_ps(_mm256_load_ps(sb + g), vm);
        __m256 e = hs_attn_exp_nonan_avx2(x);
        nan = _mm256_add_ps(nan, x);
        bsum = _mm256_add_ps(bsum, e);
        __m256 vv = nb - g >= 8 ? _mm256_loadu_ps(vb + g)
                                : _mm256_maskload_ps(vb + g, lanes_below(nb - g));
        a1 = _mm256_fmadd_ps(e, vv, a1);
      }
      vacc = _mm256_add_ps(vacc, a1);
      if (_mm256_movemask_ps(_mm256_cmp_ps(nan, nan, _CMP_UNORD_Q)))
        bsum = _mm256_set1_ps(NAN); /* a NaN score: sum and acc become NaN */
      vsum = _mm256_add_ps(vsum, bsum);
      if (isnan(hsum8(bsum))) vacc = _mm256_add_ps(vacc, _mm256_set1_ps(NAN));
      continue;
    }
    if (m != INFINITY) {      /* x <= 0 or NaN; nan = sum of the x, NaN iff some x is NaN (no
       * +inf - inf: every x is <= 0) */
      __m256 nan = _mm256_setzero_ps();
      for (size_t g = 0; g < nb; g += 8) {
        __m256 x = _mm256_sub_ps(_mm256_load_ps(sb + g), vm);
        __m256 e = hs_attn_exp_nonan_avx2(x);
        nan = _mm256_add_ps(nan, x);
        _mm256_store_ps(eb + g, e);
        bsum = _mm256_add_ps(bsum, e);
      }
      if (_mm256_movemask_ps(_mm256_cmp_ps(nan, nan, _CMP_UNORD_Q)))
        bsum = _mm256_set1_ps(NAN); /* a NaN score: sum and acc become NaN */
    } else {
      /* max = +inf: the +inf scores share the weight (1 each), others 0 */
      for (size_t g = 0; g < nb; g += 8) {
        __m256 s = _mm256_load_ps(sb + g);
        __m256 e = hs_attn_exp_avx2(_mm256_sub_ps(s, vm));
        e = _mm256_blendv_ps(e, _mm256_set1_ps(1.0f), _mm256_cmp_ps(s, vm, _CMP_EQ_OQ));
        _mm256_store_ps(eb + g, e);
        bsum = _mm256_add_ps(bsum, e);
      }
    }
    vsum = _mm256_add_ps(vsum, bsum);
    /* run += sum_j eb[j] v_j */
    block_values(nb, eb, v + j0 * ldv, ldv, dv, vmask, run);
    if (isnan(hsum8(bsum))) /* NaN score in the block: poison acc */
      for (size_t c = 0; c < dv; c++) run[c] += NAN;
  }
  st->max = m;
  st->sum = hsum8(vsum);
  if (v1) run[0] += hsum8(vacc);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}
