/* SPDX-License-Identifier: MIT */
/* The f32 vector vocabulary, AVX-512F (16 lanes): the names and their
 * meaning are listed in vec-f32-avx2.h. Masks are opmask registers.
 * Include only from a file compiled with -mavx512f. */
#ifndef HS_VEC_F32_H
#define HS_VEC_F32_H

#if !defined(__AVX512F__)
#error "vec-f32-avx512f.h needs -mavx512f"
#endif

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "ukernels.h"

typedef __m512 vf;
typedef __mmask16 vmask;
#define VF_LANES 16

static inline vf vf_zero(void) { return _mm512_setzero_ps(); }
static inline vf vf_set1(float x) { return _mm512_set1_ps(x); }
static inline vf vf_first(float x) { return _mm512_maskz_mov_ps(1, _mm512_set1_ps(x)); }
static inline vf vf_loadu(const float *p) { return _mm512_loadu_ps(p); }
static inline vf vf_load1(const float *p) { return _mm512_set1_ps(*p); }
static inline void vf_storeu(float *p, vf x) { _mm512_storeu_ps(p, x); }
/* masked: the lanes past n are neither read nor written */
static inline vf vf_load_tail(const float *p, size_t n) {
  return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p);
}
static inline void vf_store_tail(float *p, vf x, size_t n) {
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), x);
}

static inline vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf vf_max(vf a, vf b) { return _mm512_max_ps(a, b); }
static inline vf vf_min(vf a, vf b) { return _mm512_min_ps(a, b); }
static inline vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }

/* the compiler's reduction sequences: halves folded 512 -> 256 -> 128,
 * then within the 128-bit lane */
static inline float vf_hmax(vf v) { return _mm512_reduce_max_ps(v); }
static inline float vf_hsum(vf v) { return _mm512_reduce_add_ps(v); }
static inline void vf_hsum4(vf a, vf b, vf c, vf d, float *r) {
  r[0] = vf_hsum(a), r[1] = vf_hsum(b), r[2] = vf_hsum(c), r[3] = vf_hsum(d);
}

static inline vmask vf_cmpgt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline vmask vf_cmplt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline vmask vf_cmple(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static inline vmask vf_cmpeq(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static inline vmask vf_isnan(vf a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
static inline vmask vf_isunord(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
static inline vmask vmask_or(vmask a, vmask b) { return (vmask)(a | b); }
static inline int vmask_any(vmask m) { return m != 0; }
static inline unsigned vmask_bits(vmask m) { return (unsigned)m; }
static inline vf vf_select(vmask m, vf a, vf b) { return _mm512_mask_blend_ps(m, b, a); }
static inline vmask vmask_first(size_t n) { return (__mmask16)((1u << n) - 1u); }
static inline vf vf_load_masked(const float *p, vmask m) { return _mm512_maskz_loadu_ps(m, p); }
static inline vf vf_load_masked_or(const float *p, vmask m, vf fill) {
  return _mm512_mask_loadu_ps(fill, m, p);
}

/* by the exponent add, not vscalefps: an unmasked vscalefps on the
 * lanes the caller then discards (-inf and NaN there) measured 2x slower
 * in the attention row's exp loop */
static inline vf vf_exp2_bits(vf p, vf kb) {
  const __m512i ks = _mm512_slli_epi32(_mm512_castps_si512(kb), 23);
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), ks));
}
/* here by vscalefps, masked by the cut: the lanes kept are normal, so
 * the value is the exponent add's, in two operations fewer */
static inline vf vf_exp2_unless_lt(vf x, vf cut, vf p, vf kb, vf k) {
  (void)kb;
  return _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(x, cut, _CMP_GE_OQ), p, k);
}

typedef __m512i vi;
static inline vi vi_iota(int32_t base) {
  return _mm512_add_epi32(_mm512_set1_epi32(base),
                          _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}
static inline vi vi_set1(int32_t x) { return _mm512_set1_epi32(x); }
static inline vi vi_add(vi a, vi b) { return _mm512_add_epi32(a, b); }
static inline vf vf_from_vi(vi a) { return _mm512_cvtepi32_ps(a); }

#define VF_REGS 32
/* e >= thr (or unordered) multiplied, the others +0 */
static inline vf vf_mul_flush(vf e, vf thr, vf r) {
  return _mm512_maskz_mul_ps(_mm512_cmp_ps_mask(e, thr, _CMP_NLT_UQ), e, r);
}
typedef __m512d vfd;
static inline vfd vfd_zero(void) { return _mm512_setzero_pd(); }
static inline vfd vfd_add(vfd s, vf a) {
  s = _mm512_add_pd(s, _mm512_cvtps_pd(_mm512_castps512_ps256(a)));
  return _mm512_add_pd(
      s, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1))));
}
static inline double vfd_hsum(vfd s) { return _mm512_reduce_add_pd(s); }

#endif
