/* SPDX-License-Identifier: MIT */
/* y = softmax(x * inv_tau), AVX2 + FMA, three passes, rr2-p5 exp,
 * 32 elements per iteration, pair sums into 2 accumulators.
 *
 * Error: each y_i within 6 ULP (+ 2 FLT_MIN absolute, for flushed outputs)
 * of the exact softmax of the float differences d_i = fl(fl(x_i*inv_tau) - m)
 * (tests/test-f32-softmax.c; measured 3.9 ULP): exp is within 2 ULP of e_i,
 * which can be up to twice as many ULP of y_i when e_i and y_i sit at
 * opposite ends of their binades, plus fl(1/sum) and the product.
 * A row sums to 1 within 6e-7 relative at any n: each float lane
 * accumulator adds at most 8 pair sums (error <= 8u) before it is folded
 * into a double, then fl(1/sum) and the products add 2u (u = 2^-24).
 *
 * Passes: (1) m = max of the scores, NaNs tracked by unordered compares;
 * (2) e_i = exp(s_i - m) stored in y and summed in blocks of 256 elements;
 * (3) y_i = e_i * fl(1/sum), with e_i below the flush threshold zeroed
 * first so that no product is subnormal. No branch on data inside a pass.
 * Rows with a NaN or a non-finite maximum go to hs_f32_softmax_special; the
 * full contract (masking, +inf, NaN, flushing, aliasing) is in
 * f32-softmax-common.h. Tails (n mod 8) use maskload/maskstore: nothing
 * past x[n-1] or y[n-1] is touched. */
#include "vec-f32-avx2.h"
#include "f32-exp-rr2-p5-vec.h"
#include "f32-softmax-common.h"
#include "ukernels.h"


/* 256 elements = 8 iterations of 4 vectors: each lane sums 8 pair sums */
enum { BLOCK = 256 };

/* lanes j < rem (1 <= rem <= 7) */
HS_ALWAYS_INLINE __m256i tail_mask(size_t rem) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rem),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* score s = x * inv_tau, or x when the caller knows inv_tau == 1 */
HS_ALWAYS_INLINE __m256 score(__m256 v, __m256 vinv, int scaled) {
  return scaled ? _mm256_mul_ps(v, vinv) : v;
}

/* pass 1: max of the scores; *has_nan = whether any score is NaN */
HS_ALWAYS_INLINE float max_scores(size_t n, const float *x, float inv_tau,
                           int scaled, int *has_nan) {
  const __m256 vinv = _mm256_set1_ps(inv_tau);
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  __m256 m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  __m256 nan = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 s0 = score(_mm256_loadu_ps(x + i), vinv, scaled);
    const __m256 s1 = score(_mm256_loadu_ps(x + i + 8), vinv, scaled);
    const __m256 s2 = score(_mm256_loadu_ps(x + i + 16), vinv, scaled);
    const __m256 s3 = score(_mm256_loadu_ps(x + i + 24), vinv, scaled);
    /* m_j = max of the non-NaN scores of its lanes so far */
    m0 = _mm256_max_ps(m0, s0);
    m1 = _mm256_max_ps(m1, s1);
    m2 = _mm256_max_ps(m2, s2);
    m3 = _mm256_max_ps(m3, s3);
    /* unordered compare is true when either operand is NaN */
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(s0, s1, _CMP_UNORD_Q));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(s2, s3, _CMP_UNORD_Q));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 s = score(_mm256_loadu_ps(x + i), vinv, scaled);
    m0 = _mm256_max_ps(m0, s);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(s, s, _CMP_UNORD_Q));
  }
  if (i < n) {
    const __m256i live = tail_mask(n - i);
    /* dead lanes load 0 and become -inf, which changes nothing */
    const __m256 s = _mm256_blendv_ps(
        neg_inf, score(_mm256_maskload_ps(x + i, live), vinv, scaled),
        _mm256_castsi256_ps(live));
    m1 = _mm256_max_ps(m1, s);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(s, s, _CMP_UNORD_Q));
  }
  *has_nan = _mm256_movemask_ps(nan) != 0;
  __m256 m = _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
  return _mm_cvtss_f32(h);
}

/* 8 float lanes added into 4 double lanes, exactly */
HS_ALWAYS_INLINE __m256d fold(__m256d dsum, __m256 acc) {
  dsum = _mm256_add_pd(dsum, _mm256_cvtps_pd(_mm256_castps256_ps128(acc)));
  return _mm256_add_pd(dsum, _mm256_cvtps_pd(_mm256_extractf128_ps(acc, 1)));
}

/* pass 2: y_i = exp(s_i - m), returns sum_i y_i. m is finite and no score
 * is NaN, so every d = s - m is in [-inf, 0] and never NaN. */
HS_ALWAYS_INLINE double exp_store_sum(size_t n, const float *x, float *y,
                               float inv_tau, float m, int scaled) {
  const __m256 vinv = _mm256_set1_ps(inv_tau);
  const __m256 vm = _mm256_set1_ps(m);
  __m256d dsum = _mm256_setzero_pd();
  size_t i = 0;
  while (i + 32 <= n) {
    /* one block: at most BLOCK elements, a multiple of 32 */
    const size_t left = (n - i) & ~(size_t)31;
    const size_t end = i + (left < BLOCK ? left : BLOCK);
    /* two accumulators, not four: 16 ymm registers hold the 11 constants,
     * m, inv_tau and the temporaries, and spilled accumulators would put a
     * store-to-load trip on the loop-carried chain */
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (; i < end; i += 32) {
      /* d = s - m <= 0 */
      const __m256 d0 = _mm256_sub_ps(score(_mm256_loadu_ps(x + i), vinv, scaled), vm);
      const __m256 d1 = _mm256_sub_ps(score(_mm256_loadu_ps(x + i + 8), vinv, scaled), vm);
      const __m256 d2 = _mm256_sub_ps(score(_mm256_loadu_ps(x + i + 16), vinv, scaled), vm);
      const __m256 d3 = _mm256_sub_ps(score(_mm256_loadu_ps(x + i + 24), vinv, scaled), vm);
      /* e = exp(max(d, lo)) in (0, 1]; e < thr is flushed by pass 3 */
      const __m256 e0 = hs_vexpminus_clamped_rr2_p5(d0);
      const __m256 e1 = hs_vexpminus_clamped_rr2_p5(d1);
      const __m256 e2 = hs_vexpminus_clamped_rr2_p5(d2);
      const __m256 e3 = hs_vexpminus_clamped_rr2_p5(d3);
      _mm256_storeu_ps(y + i, e0);
      _mm256_storeu_ps(y + i + 8, e1);
      _mm256_storeu_ps(y + i + 16, e2);
      _mm256_storeu_ps(y + i + 24, e3);
      acc0 = _mm256_add_ps(acc0, _mm256_add_ps(e0, e1));
      acc1 = _mm256_add_ps(acc1, _mm256_add_ps(e2, e3));
    }
    /* the block sum joins the double total */
    dsum = fold(dsum, _mm256_add_ps(acc0, acc1));
  }
  /* at most 3 full vectors and a partial one: at most 4 terms per lane */
  __m256 acc = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(score(_mm256_loadu_ps(x + i), vinv, scaled), vm);
    const __m256 e = hs_vexpminus_clamped_rr2_p5(d);
    _mm256_storeu_ps(y + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  if (i < n) {
    const __m256i live = tail_mask(n - i);
    /* dead lanes get d = 0, a valid input, and are zeroed after the exp */
    const __m256 d = _mm256_and_ps(
        _mm256_sub_ps(score(_mm256_maskload_ps(x + i, live), vinv, scaled), vm),
        _mm256_castsi256_ps(live));
    const __m256 e = _mm256_and_ps(hs_vexpminus_clamped_rr2_p5(d),
                                   _mm256_castsi256_ps(live));
    _mm256_maskstore_ps(y + i, live, e);
    acc = _mm256_add_ps(acc, e);
  }
  dsum = fold(dsum, acc);
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(dsum), _mm256_extractf128_pd(dsum, 1));
  h = _mm_add_sd(h, _mm_unpackhi_pd(h, h));
  return _mm_cvtsd_f64(h);
}

/* pass 3: y_i = (e_i < thr ? 0 : e_i) * r, in place on y */
HS_ALWAYS_INLINE __m256 scale(__m256 e, __m256 vthr, __m256 vr) {
  return _mm256_mul_ps(_mm256_andnot_ps(_mm256_cmp_ps(e, vthr, _CMP_LT_OQ), e), vr);
}

HS_ALWAYS_INLINE void scale_all(size_t n, float *y, float r, float thr) {
  const __m256 vr = _mm256_set1_ps(r);
  const __m256 vthr = _mm256_set1_ps(thr);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 e0 = _mm256_loadu_ps(y + i);
    const __m256 e1 = _mm256_loadu_ps(y + i + 8);
    const __m256 e2 = _mm256_loadu_ps(y + i + 16);
    const __m256 e3 = _mm256_loadu_ps(y + i + 24);
    _mm256_storeu_ps(y + i, scale(e0, vthr, vr));
    _mm256_storeu_ps(y + i + 8, scale(e1, vthr, vr));
    _mm256_storeu_ps(y + i + 16, scale(e2, vthr, vr));
    _mm256_storeu_ps(y + i + 24, scale(e3, vthr, vr));
  }
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, scale(_mm256_loadu_ps(y + i), vthr, vr));
  if (i < n) {
    const __m256i live = tail_mask(n - i);
    _mm256_maskstore_ps(y + i, live, scale(_mm256_maskload_ps(y + i, live), vthr, vr));
  }
}

#include "f32-softmax-run.h"

void hs_f32_softmax_ukernel__avx2_rr2_p5(size_t n, const float *x, float *y,
                                         float inv_tau) {
  softmax_run(n, x, y, inv_tau);
}
