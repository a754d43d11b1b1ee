/* SPDX-License-Identifier: MIT */
/* The f32 vector vocabulary, AVX2 + FMA (8 lanes). A kernel algorithm is
 * written once over these names (simd/<op>-<algo>-impl.h); each ISA has one
 * such header per precision and a kernel file includes exactly one.
 * Every vec-f32-*.h defines the same names with the same meaning:
 *   vf, vmask, VF_LANES;
 *   vf_zero, vf_set1, vf_loadu, vf_storeu, vf_load_tail (n < VF_LANES
 *     lanes, the rest +0; reads nothing past p[n-1]), vf_store_tail;
 *   vf_add, vf_sub, vf_mul, vf_max, vf_min (max/min: NaN in b gives NaN),
 *   vf_fma(a, b, c) = a*b + c (fused where the ISA has FMA);
 *   vf_hmax, vf_hsum: horizontal, in a fixed order; vf_hsum4(a, b, c,
 *     d, r): the four sums into r[0..4), each in a fixed order (the
 *     ISA may choose one other than vf_hsum's);
 *   vf_cmpgt, vf_cmplt, vf_cmple, vf_cmpeq (false when either lane is
 *   NaN), vf_isnan, vf_isunord(a, b) (a or b NaN), vmask_or, vmask_any,
 *   vmask_bits (bit i = lane i),
 *   vf_select(m, a_if_true, b_else);
 *   vf_exp2_bits(p, kb): p * 2^k where kb = k + 1.5*2^23 as the rr2-p5
 *     magic-bias add leaves it, by adding k << 23 to p's bits (exact when
 *     the result is a normal float; otherwise unspecified);
 *   vf_exp2_unless_lt(x, cut, p, kb, k): x < cut ? +0 : p * 2^k, k given
 *     as kb (as for vf_exp2_bits) and as the float k, for the ISA to
 *     take either (NaN x: unspecified);
 *   vf_load1(p): *p in every lane (a broadcast from memory: GCC keeps
 *     it beside its user, where a set1 of a loaded float may be hoisted);
 *   vmask_first(n): lanes 0 .. n-1 (n <= VF_LANES); vf_load_masked(p, m):
 *     the lanes of m from p, +0 in the others, which are not read;
 *     vf_load_masked_or(p, m, fill): the same with fill's lanes for +0;
 *   vf_first(x): x in lane 0, +0 in the others (from a register: a
 *     masked load of a value just stored cannot be forwarded, and measured
 *     5% slower in the attention tile);
 *   VF_REGS: the vector registers the ISA has (16 or 32), for a body's
 *     choice of how many accumulators to keep;
 *   vf_mul_flush(e, thr, r): e < thr ? +0 : e * r (softmax's last pass);
 *   vfd: double lanes holding a vf's sum exactly: vfd_zero,
 *     vfd_add(s, a) (a's lanes widened and added, low half first),
 *     vfd_hsum (horizontal, in a fixed order);
 *   vi: int32 lanes, for positions: vi_iota(b) = b, b+1, ... (wrapping
 *     as two's complement), vi_set1, vi_add (wrapping), vf_from_vi (the
 *     conversion to float, rounding to nearest even).
 * Include only from a file compiled with -mavx2 -mfma. */
#ifndef HS_VEC_F32_H
#define HS_VEC_F32_H

#if !defined(__AVX2__) || !defined(__FMA__)
#error "vec-f32-avx2.h needs -mavx2 -mfma"
#endif

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "ukernels.h"

typedef __m256 vf;
typedef __m256 vmask;
#define VF_LANES 8

static inline vf vf_zero(void) { return _mm256_setzero_ps(); }
static inline vf vf_set1(float x) { return _mm256_set1_ps(x); }
static inline vf vf_first(float x) { return _mm256_setr_ps(x, 0, 0, 0, 0, 0, 0, 0); }
static inline vf vf_loadu(const float *p) { return _mm256_loadu_ps(p); }
static inline vf vf_load1(const float *p) { return _mm256_broadcast_ss(p); }
static inline void vf_storeu(float *p, vf x) { _mm256_storeu_ps(p, x); }

/* all-ones in lanes 0..n-1 */
static inline __m256i vf_tail_mask_(size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline vf vf_load_tail(const float *p, size_t n) {
  return _mm256_maskload_ps(p, vf_tail_mask_(n));
}
static inline void vf_store_tail(float *p, vf x, size_t n) {
  _mm256_maskstore_ps(p, vf_tail_mask_(n), x);
}

static inline vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline vf vf_max(vf a, vf b) { return _mm256_max_ps(a, b); }
static inline vf vf_min(vf a, vf b) { return _mm256_min_ps(a, b); }
static inline vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }

static inline float vf_hmax(vf v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}
static inline float vf_hsum(vf v) {
  __m128 m = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_add_ps(m, _mm_movehl_ps(m, m));
  m = _mm_add_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}
/* the sums of a, b, c, d into r[0..4) by two hadds and a fold of the
 * halves: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) */
static inline void vf_hsum4(vf a, vf b, vf c, vf d, float *r) {
  const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  _mm_storeu_ps(r, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}

static inline vmask vf_cmpgt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline vmask vf_cmplt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline vmask vf_cmple(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static inline vmask vf_cmpeq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline vmask vf_isnan(vf a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
static inline vmask vf_isunord(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
static inline vmask vmask_or(vmask a, vmask b) { return _mm256_or_ps(a, b); }
static inline int vmask_any(vmask m) { return _mm256_movemask_ps(m) != 0; }
static inline unsigned vmask_bits(vmask m) { return (unsigned)_mm256_movemask_ps(m); }
static inline vf vf_select(vmask m, vf a, vf b) { return _mm256_blendv_ps(b, a, m); }
static inline vmask vmask_first(size_t n) { return _mm256_castsi256_ps(vf_tail_mask_(n)); }
static inline vf vf_load_masked(const float *p, vmask m) {
  return _mm256_maskload_ps(p, _mm256_castps_si256(m));
}
static inline vf vf_load_masked_or(const float *p, vmask m, vf fill) {
  return _mm256_blendv_ps(fill, vf_load_masked(p, m), m);
}

static inline vf vf_exp2_bits(vf p, vf kb) {
  const __m256i ks = _mm256_slli_epi32(_mm256_castps_si256(kb), 23);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), ks));
}
static inline vf vf_exp2_unless_lt(vf x, vf cut, vf p, vf kb, vf k) {
  (void)k;
  return _mm256_andnot_ps(_mm256_cmp_ps(x, cut, _CMP_LT_OQ), vf_exp2_bits(p, kb));
}

typedef __m256i vi;
static inline vi vi_iota(int32_t base) {
  return _mm256_add_epi32(_mm256_set1_epi32(base), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline vi vi_set1(int32_t x) { return _mm256_set1_epi32(x); }
static inline vi vi_add(vi a, vi b) { return _mm256_add_epi32(a, b); }
static inline vf vf_from_vi(vi a) { return _mm256_cvtepi32_ps(a); }

/* softmax's pieces: y = e < thr ? +0 : e * r, and float lanes added
 * exactly into doubles (each half widened, low half first) */
#define VF_REGS 16
static inline vf vf_mul_flush(vf e, vf thr, vf r) {
  return _mm256_mul_ps(_mm256_andnot_ps(_mm256_cmp_ps(e, thr, _CMP_LT_OQ), e), r);
}
typedef __m256d vfd;
static inline vfd vfd_zero(void) { return _mm256_setzero_pd(); }
static inline vfd vfd_add(vfd s, vf a) {
  s = _mm256_add_pd(s, _mm256_cvtps_pd(_mm256_castps256_ps128(a)));
  return _mm256_add_pd(s, _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
}
static inline double vfd_hsum(vfd s) {
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

#endif
