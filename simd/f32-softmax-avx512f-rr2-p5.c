/* SPDX-License-Identifier: MIT */
/* y = softmax(x * inv_tau), AVX-512F, three passes, rr2-p5 exp,
 * 64 elements per iteration in 4 accumulators.
 *
 * Error: each y_i within 6 ULP (+ 2 FLT_MIN absolute, for flushed outputs)
 * of the exact softmax of the float differences d_i = fl(fl(x_i*inv_tau) - m)
 * (tests/test-f32-softmax.c; measured 3.9 ULP): exp is within 2 ULP of e_i,
 * which can be up to twice as many ULP of y_i when e_i and y_i sit at
 * opposite ends of their binades, plus fl(1/sum) and the product.
 * A row sums to 1 within 6e-7 relative at any n: each float lane
 * accumulator adds at most 8 terms (error <= 7u) before it is folded into
 * a double, then fl(1/sum) and the products add 2u (u = 2^-24).
 *
 * Passes: (1) m = max of the scores, NaNs tracked by unordered compares
 * into an opmask; (2) e_i = exp(s_i - m) stored in y and summed in blocks
 * of 512 elements; (3) y_i = e_i * fl(1/sum), with e_i below the flush
 * threshold zeroed by a mask so that no product is subnormal. No branch on
 * data inside a pass. Rows with a NaN or a non-finite maximum go to
 * hs_f32_softmax_special; the full contract (masking, +inf, NaN, flushing,
 * aliasing) is in f32-softmax-common.h. Tails (n mod 16) use masked loads
 * and stores: nothing past x[n-1] or y[n-1] is touched. */
#include "vec-f32-avx512f.h"
#include "f32-exp-rr2-p5-vec.h"
#include "f32-softmax-common.h"
#include "ukernels.h"


/* 512 elements = 8 iterations of 4 vectors: each float lane sums 8 terms */
enum { BLOCK = 512 };

/* lanes j < rem (1 <= rem <= 15) */
HS_ALWAYS_INLINE __mmask16 tail_mask(size_t rem) {
  return (__mmask16)((1u << rem) - 1u);
}

/* score s = x * inv_tau, or x when the caller knows inv_tau == 1 */
HS_ALWAYS_INLINE __m512 score(__m512 v, __m512 vinv, int scaled) {
  return scaled ? _mm512_mul_ps(v, vinv) : v;
}

/* pass 1: max of the scores; *has_nan = whether any score is NaN */
HS_ALWAYS_INLINE float max_scores(size_t n, const float *x, float inv_tau,
                           int scaled, int *has_nan) {
  const __m512 vinv = _mm512_set1_ps(inv_tau);
  const __m512 neg_inf = _mm512_set1_ps(-INFINITY);
  __m512 m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  __mmask16 nan = 0;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 s0 = score(_mm512_loadu_ps(x + i), vinv, scaled);
    const __m512 s1 = score(_mm512_loadu_ps(x + i + 16), vinv, scaled);
    const __m512 s2 = score(_mm512_loadu_ps(x + i + 32), vinv, scaled);
    const __m512 s3 = score(_mm512_loadu_ps(x + i + 48), vinv, scaled);
    /* m_j = max of the non-NaN scores of its lanes so far */
    m0 = _mm512_max_ps(m0, s0);
    m1 = _mm512_max_ps(m1, s1);
    m2 = _mm512_max_ps(m2, s2);
    m3 = _mm512_max_ps(m3, s3);
    /* unordered compare is true when either operand is NaN */
    nan |= _mm512_cmp_ps_mask(s0, s1, _CMP_UNORD_Q);
    nan |= _mm512_cmp_ps_mask(s2, s3, _CMP_UNORD_Q);
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 s = score(_mm512_loadu_ps(x + i), vinv, scaled);
    m0 = _mm512_max_ps(m0, s);
    nan |= _mm512_cmp_ps_mask(s, s, _CMP_UNORD_Q);
  }
  if (i < n) {
    const __mmask16 live = tail_mask(n - i);
    const __m512 s = score(_mm512_maskz_loadu_ps(live, x + i), vinv, scaled);
    /* dead lanes keep -inf, which changes nothing */
    m1 = _mm512_mask_max_ps(m1, live, m1, s);
    nan |= _mm512_mask_cmp_ps_mask(live, s, s, _CMP_UNORD_Q);
  }
  *has_nan = nan != 0;
  return _mm512_reduce_max_ps(
      _mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
}

/* 16 float lanes added into 8 double lanes, exactly */
HS_ALWAYS_INLINE __m512d fold(__m512d dsum, __m512 acc) {
  dsum = _mm512_add_pd(dsum, _mm512_cvtps_pd(_mm512_castps512_ps256(acc)));
  return _mm512_add_pd(
      dsum, _mm512_cvtps_pd(_mm256_castpd_ps(
                _mm512_extractf64x4_pd(_mm512_castps_pd(acc), 1))));
}

/* pass 2: y_i = exp(s_i - m), returns sum_i y_i. m is finite and no score
 * is NaN, so every d = s - m is in [-inf, 0] and never NaN. */
HS_ALWAYS_INLINE double exp_store_sum(size_t n, const float *x, float *y,
                               float inv_tau, float m, int scaled) {
  const __m512 vinv = _mm512_set1_ps(inv_tau);
  const __m512 vm = _mm512_set1_ps(m);
  __m512d dsum = _mm512_setzero_pd();
  size_t i = 0;
  while (i + 64 <= n) {
    /* one block: at most BLOCK elements, a multiple of 64 */
    const size_t left = (n - i) & ~(size_t)63;
    const size_t end = i + (left < BLOCK ? left : BLOCK);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    __m512 acc2 = _mm512_setzero_ps(), acc3 = _mm512_setzero_ps();
    for (; i < end; i += 64) {
      /* d = s - m <= 0 */
      const __m512 d0 = _mm512_sub_ps(score(_mm512_loadu_ps(x + i), vinv, scaled), vm);
      const __m512 d1 = _mm512_sub_ps(score(_mm512_loadu_ps(x + i + 16), vinv, scaled), vm);
      const __m512 d2 = _mm512_sub_ps(score(_mm512_loadu_ps(x + i + 32), vinv, scaled), vm);
      const __m512 d3 = _mm512_sub_ps(score(_mm512_loadu_ps(x + i + 48), vinv, scaled), vm);
      /* e = exp(max(d, lo)) in (0, 1]; e < thr is flushed by pass 3 */
      const __m512 e0 = hs_vexpminus_clamped_rr2_p5(d0);
      const __m512 e1 = hs_vexpminus_clamped_rr2_p5(d1);
      const __m512 e2 = hs_vexpminus_clamped_rr2_p5(d2);
      const __m512 e3 = hs_vexpminus_clamped_rr2_p5(d3);
      _mm512_storeu_ps(y + i, e0);
      _mm512_storeu_ps(y + i + 16, e1);
      _mm512_storeu_ps(y + i + 32, e2);
      _mm512_storeu_ps(y + i + 48, e3);
      acc0 = _mm512_add_ps(acc0, e0);
      acc1 = _mm512_add_ps(acc1, e1);
      acc2 = _mm512_add_ps(acc2, e2);
      acc3 = _mm512_add_ps(acc3, e3);
    }
    /* the block sum joins the double total */
    dsum = fold(dsum, _mm512_add_ps(_mm512_add_ps(acc0, acc1),
                                    _mm512_add_ps(acc2, acc3)));
  }
  /* at most 3 full vectors and a partial one: at most 4 terms per lane */
  __m512 acc = _mm512_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    const __m512 d = _mm512_sub_ps(score(_mm512_loadu_ps(x + i), vinv, scaled), vm);
    const __m512 e = hs_vexpminus_clamped_rr2_p5(d);
    _mm512_storeu_ps(y + i, e);
    acc = _mm512_add_ps(acc, e);
  }
  if (i < n) {
    const __mmask16 live = tail_mask(n - i);
    /* dead lanes get d = 0, a valid input, and come out +0 (mask) */
    const __m512 d = _mm512_maskz_sub_ps(
        live, score(_mm512_maskz_loadu_ps(live, x + i), vinv, scaled), vm);
    const __m512 e = _mm512_maskz_mov_ps(live, hs_vexpminus_clamped_rr2_p5(d));
    _mm512_mask_storeu_ps(y + i, live, e);
    acc = _mm512_add_ps(acc, e);
  }
  dsum = fold(dsum, acc);
  return _mm512_reduce_add_pd(dsum);
}

/* pass 3: y_i = (e_i < thr ? 0 : e_i) * r, in place on y */
HS_ALWAYS_INLINE __m512 scale(__m512 e, __m512 vthr, __m512 vr) {
  return _mm512_maskz_mul_ps(_mm512_cmp_ps_mask(e, vthr, _CMP_NLT_UQ), e, vr);
}

HS_ALWAYS_INLINE void scale_all(size_t n, float *y, float r, float thr) {
  const __m512 vr = _mm512_set1_ps(r);
  const __m512 vthr = _mm512_set1_ps(thr);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 e0 = _mm512_loadu_ps(y + i);
    const __m512 e1 = _mm512_loadu_ps(y + i + 16);
    const __m512 e2 = _mm512_loadu_ps(y + i + 32);
    const __m512 e3 = _mm512_loadu_ps(y + i + 48);
    _mm512_storeu_ps(y + i, scale(e0, vthr, vr));
    _mm512_storeu_ps(y + i + 16, scale(e1, vthr, vr));
    _mm512_storeu_ps(y + i + 32, scale(e2, vthr, vr));
    _mm512_storeu_ps(y + i + 48, scale(e3, vthr, vr));
  }
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, scale(_mm512_loadu_ps(y + i), vthr, vr));
  if (i < n) {
    const __mmask16 live = tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, live,
                          scale(_mm512_maskz_loadu_ps(live, y + i), vthr, vr));
  }
}

#include "f32-softmax-run.h"

void hs_f32_softmax_ukernel__avx512f_rr2_p5(size_t n, const float *x, float *y,
                                            float inv_tau) {
  softmax_run(n, x, y, inv_tau);
}
