/* SPDX-License-Identifier: MIT */
/* The f64 vector vocabulary, AVX-512F (8 lanes): the names and their
 * meaning are listed in vec-f64-avx2.h. Masks are opmask registers.
 * Include only from a file compiled with -mavx512f. */
#ifndef HS_VEC_F64_H
#define HS_VEC_F64_H

#if !defined(__AVX512F__)
#error "vec-f64-avx512f.h needs -mavx512f"
#endif

#include <immintrin.h>
#include <stddef.h>

#include "ukernels.h"

typedef __m512d vd;
typedef __mmask8 vdmask;
#define VD_LANES 8

static inline vd vd_zero(void) { return _mm512_setzero_pd(); }
static inline vd vd_set1(double x) { return _mm512_set1_pd(x); }
static inline vd vd_first(double x) { return _mm512_maskz_mov_pd(1, _mm512_set1_pd(x)); }
static inline vd vd_iota(double x) {
  return _mm512_add_pd(_mm512_set1_pd(x), _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7));
}
/* masked: the lanes past n are neither read nor written */
static inline vd vd_load_tail(const double *p, size_t n) {
  return _mm512_maskz_loadu_pd((__mmask8)((1u << n) - 1u), p);
}
static inline void vd_store_tail(double *p, vd x, size_t n) {
  _mm512_mask_storeu_pd(p, (__mmask8)((1u << n) - 1u), x);
}
static inline vdmask vdmask_first(size_t n) { return (__mmask8)((1u << n) - 1u); }
static inline vd vd_load_masked(const double *p, vdmask m) { return _mm512_maskz_loadu_pd(m, p); }

static inline vd vd_add(vd a, vd b) { return _mm512_add_pd(a, b); }
static inline vd vd_sub(vd a, vd b) { return _mm512_sub_pd(a, b); }
static inline vd vd_mul(vd a, vd b) { return _mm512_mul_pd(a, b); }
static inline vd vd_abs(vd a) { return _mm512_abs_pd(a); }
static inline vd vd_max(vd a, vd b) { return _mm512_max_pd(a, b); }
static inline vd vd_min(vd a, vd b) { return _mm512_min_pd(a, b); }
static inline vd vd_loadu(const double *p) { return _mm512_loadu_pd(p); }
static inline void vd_storeu(double *p, vd x) { _mm512_storeu_pd(p, x); }
static inline vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }

static inline vdmask vd_cmpgt(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
static inline vdmask vd_cmpge(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }
static inline vdmask vd_cmple(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
static inline vd vd_select(vdmask m, vd a, vd b) { return _mm512_mask_blend_pd(m, b, a); }
static inline unsigned vdmask_bits(vdmask m) { return (unsigned)m; }
static inline vdmask vd_cmpeq(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
static inline vdmask vd_isnan(vd a) { return _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q); }
static inline vdmask vdmask_or(vdmask a, vdmask b) { return (vdmask)(a | b); }
HS_ALWAYS_INLINE vd vd_spread(vd e, int w, int part) {
  const long long b = part * (VD_LANES / w);
  return w == 1 ? e
                : _mm512_permutexvar_pd(_mm512_setr_epi64(b, b + 1 / w, b + 2 / w, b + 3 / w,
                                                          b + 4 / w, b + 5 / w, b + 6 / w,
                                                          b + 7 / w), e);
}
/* horizontal, in the fixed order of GCC's reductions (halves, then
 * quarters, then pairs) */
static inline double vd_hmax(vd a) { return _mm512_reduce_max_pd(a); }
static inline double vd_hsum(vd a) { return _mm512_reduce_add_pd(a); }
static inline void vd_hsum4(vd a, vd b, vd c, vd d, double *r) {
  r[0] = vd_hsum(a), r[1] = vd_hsum(b), r[2] = vd_hsum(c), r[3] = vd_hsum(d);
}

static inline vd vd_pow2_bits(vd vn) {
  return _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_castpd_si512(vn), 52));
}
static inline vd vd_mul_unless_lt(vd x, vd cut, vd a, vd b) {
  const __mmask8 under = _mm512_cmp_pd_mask(x, cut, _CMP_LT_OQ);
  return _mm512_maskz_mul_pd((__mmask8)~under, a, b);
}

#endif
