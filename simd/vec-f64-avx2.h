/* SPDX-License-Identifier: MIT */
/* The f64 vector vocabulary, AVX2 (4 lanes): the double counterpart of
 * vec-f32-*.h, for kernels written once over it. Every vec-f64-*.h
 * defines the same names with the same meaning:
 *   vd, vdmask, VD_LANES;
 *   vd_zero, vd_set1, vd_first(x) (lane 0: x, the others +0),
 *   vd_iota(x) (lane i: x + i), vd_load_tail and
 *     vd_store_tail (lanes 0..n-1, 1 <= n <= VD_LANES; the load's other
 *     lanes +0; nothing past p[n-1] read or written); vdmask_first(n)
 *     (lanes 0..n-1, n < VD_LANES) and vd_load_masked(p, m) (the lanes
 *     of m from p, +0 in the others, which are not read): a tail's mask
 *     made once for many loads;
 *   vd_add, vd_sub, vd_mul, vd_abs (each rounded once, no fusing);
 *   vd_loadu, vd_storeu (VD_LANES lanes), vd_fma(a, b, c) = a*b + c
 *     rounded once;
 *   vd_max(a, b) = a > b ? a : b, vd_min(a, b) = a < b ? a : b (b when
 *     either is NaN: x86's order, what the scalar ternary gives);
 *   vd_cmpgt, vd_cmpge, vd_cmple (false when either lane is NaN),
 *   vd_select(m, a_if_true, b_else), vdmask_bits (bit i: lane i);
 *   vd_cmpeq (false on NaN), vd_isnan, vdmask_or;
 *   vd_hmax, vd_hsum (horizontal, each ISA in one fixed order), vd_hsum4(a,
 *     b, c, d, r) (the four sums into r[0..4), each in a fixed order,
 *     not necessarily vd_hsum's);
 *   vd_pow2_bits(vn) (vn's bits shifted left by 52: 2^n when its low
 *     mantissa bits hold n + 1023, the rr2 exp's magic bias),
 *   vd_mul_unless_lt(x, cut, a, b) (x < cut ? +0 : a * b; NaN x: a * b);
 *   vd_spread(e, w, part) (w in {1, 2, 4}, w <= VD_LANES, part <
 *     w, both constants): lane i is e's lane part * VD_LANES / w + i / w,
 *     the weights of VD_LANES / w keys each repeated over its w columns.
 * Include only from a file compiled with -mavx2 -mfma. */
#ifndef HS_VEC_F64_H
#define HS_VEC_F64_H

#if !defined(__AVX2__) || !defined(__FMA__)
#error "vec-f64-avx2.h needs -mavx2 -mfma"
#endif

#include <immintrin.h>
#include <stddef.h>

#include "ukernels.h"

typedef __m256d vd;
typedef __m256d vdmask;
#define VD_LANES 4

static inline vd vd_zero(void) { return _mm256_setzero_pd(); }
static inline vd vd_set1(double x) { return _mm256_set1_pd(x); }
static inline vd vd_first(double x) { return _mm256_setr_pd(x, 0, 0, 0); }
static inline vd vd_iota(double x) {
  return _mm256_add_pd(_mm256_set1_pd(x), _mm256_setr_pd(0, 1, 2, 3));
}

/* all-ones in lanes 0..n-1 */
static inline __m256i vd_tail_mask_(size_t n) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)n), _mm256_setr_epi64x(0, 1, 2, 3));
}
static inline vd vd_load_tail(const double *p, size_t n) {
  return n == VD_LANES ? _mm256_loadu_pd(p) : _mm256_maskload_pd(p, vd_tail_mask_(n));
}
static inline void vd_store_tail(double *p, vd x, size_t n) {
  if (n == VD_LANES)
    _mm256_storeu_pd(p, x);
  else
    _mm256_maskstore_pd(p, vd_tail_mask_(n), x);
}
/* the mask of lanes 0..n-1 (n < VD_LANES) once, for many loads */
static inline vdmask vdmask_first(size_t n) { return _mm256_castsi256_pd(vd_tail_mask_(n)); }
static inline vd vd_load_masked(const double *p, vdmask m) {
  return _mm256_maskload_pd(p, _mm256_castpd_si256(m));
}

static inline vd vd_add(vd a, vd b) { return _mm256_add_pd(a, b); }
static inline vd vd_sub(vd a, vd b) { return _mm256_sub_pd(a, b); }
static inline vd vd_mul(vd a, vd b) { return _mm256_mul_pd(a, b); }
static inline vd vd_abs(vd a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
static inline vd vd_max(vd a, vd b) { return _mm256_max_pd(a, b); }
static inline vd vd_min(vd a, vd b) { return _mm256_min_pd(a, b); }
static inline vd vd_loadu(const double *p) { return _mm256_loadu_pd(p); }
static inline void vd_storeu(double *p, vd x) { _mm256_storeu_pd(p, x); }
static inline vd vd_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }

static inline vdmask vd_cmpgt(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
static inline vdmask vd_cmpge(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
static inline vdmask vd_cmple(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
static inline vd vd_select(vdmask m, vd a, vd b) { return _mm256_blendv_pd(b, a, m); }
static inline unsigned vdmask_bits(vdmask m) { return (unsigned)_mm256_movemask_pd(m); }
static inline vdmask vd_cmpeq(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
static inline vdmask vd_isnan(vd a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }
static inline vdmask vdmask_or(vdmask a, vdmask b) { return _mm256_or_pd(a, b); }
HS_ALWAYS_INLINE vd vd_spread(vd e, int w, int part) {
  if (w == 1) return e;
  if (w == 2) return part ? _mm256_permute4x64_pd(e, 0xFA) : _mm256_permute4x64_pd(e, 0x50);
  switch (part) { /* w == 4: one key */
    case 0: return _mm256_permute4x64_pd(e, 0x00);
    case 1: return _mm256_permute4x64_pd(e, 0x55);
    case 2: return _mm256_permute4x64_pd(e, 0xAA);
    default: return _mm256_permute4x64_pd(e, 0xFF);
  }
}
/* horizontal, in a fixed order: the halves, then the pair */
static inline double vd_hmax(vd a) {
  __m128d h = _mm_max_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
  return _mm_cvtsd_f64(_mm_max_sd(h, _mm_unpackhi_pd(h, h)));
}
static inline double vd_hsum(vd a) {
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}
/* the sums of a, b, c, d into r[0..4) by two hadds and a fold of the
 * halves: (l0 + l1) + (l2 + l3) */
static inline void vd_hsum4(vd a, vd b, vd c, vd d, double *r) {
  const __m256d h01 = _mm256_hadd_pd(a, b), h23 = _mm256_hadd_pd(c, d);
  _mm256_storeu_pd(r, _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                                    _mm256_permute2f128_pd(h01, h23, 0x31)));
}

/* the rr2 exp's pieces: vn's bits shifted left by 52 (2^n when its low
 * mantissa bits hold n + 1023), and x < cut ? +0 : a * b (NaN x: a * b) */
static inline vd vd_pow2_bits(vd vn) {
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(vn), 52));
}
static inline vd vd_mul_unless_lt(vd x, vd cut, vd a, vd b) {
  return _mm256_andnot_pd(_mm256_cmp_pd(x, cut, _CMP_LT_OQ), _mm256_mul_pd(a, b));
}

#endif
