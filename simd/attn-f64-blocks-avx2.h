/* SPDX-License-Identifier: MIT */
/* The 256-bit score blocks shared by the f64 attention-row kernels: AVX2
 * uses them as they are, and the AVX-512F kernel keeps 4 keys per register
 * for the scores too (its exp and value steps are 512-bit). Include after
 * <immintrin.h>, f64-exp-rr2-p11.h and ukernels.h, with BLK defined. */
#ifndef HS_ATTN_F64_BLOCKS_AVX2_H
#define HS_ATTN_F64_BLOCKS_AVX2_H

#ifndef BLK
#error "define BLK before including this header"
#endif

/* [q.k_0, q.k_1, q.k_2, q.k_3] for rows r0..r3 */
HS_ALWAYS_INLINE __m256d dots4(const double *r0, const double *r1, const double *r2,
                     const double *r3, const __m256d *q, size_t nc,
                     __m256i mlast, int full_last) {
  __m256d x0 = _mm256_setzero_pd(), x1 = x0, x2 = x0, x3 = x0;
  for (size_t c = 0; c < nc; c++) {
    const int full = c + 1 < nc || full_last;
#define LD(r) (full ? _mm256_loadu_pd(r + 4 * c) : _mm256_maskload_pd(r + 4 * c, mlast))
    x0 = _mm256_fmadd_pd(LD(r0), q[c], x0);
    x1 = _mm256_fmadd_pd(LD(r1), q[c], x1);
    x2 = _mm256_fmadd_pd(LD(r2), q[c], x2);
    x3 = _mm256_fmadd_pd(LD(r3), q[c], x3);
#undef LD
  }
  /* h01 = [x0 01, x1 01, x0 23, x1 23] */
  __m256d h01 = _mm256_hadd_pd(x0, x1), h23 = _mm256_hadd_pd(x2, x3);
  return _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                       _mm256_permute2f128_pd(h01, h23, 0x31));
}

/* q * scale in 4-double chunks (zero past dk), block_scores' operands */
typedef struct {
  __m256d qv[16];
  size_t nc;
  __m256i mk; /* the last chunk's lanes */
  int full;   /* the last chunk is whole */
} hs_f64_q4;

static inline void hs_f64_q4_init(hs_f64_q4 *o, const double *q, size_t dk, double scale) {
  o->nc = dk == 0 ? 1 : (dk + 3) / 4; /* dk == 0: every score is 0 */
  o->full = dk > 0 && dk % 4 == 0;
  o->mk = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(dk % 4)),
                             _mm256_setr_epi64x(0, 1, 2, 3));
  for (size_t c = 0; c < o->nc; c++) {
    double t[4];
    for (int i = 0; i < 4; i++) t[i] = 4 * c + i < dk ? q[4 * c + i] * scale : 0.0;
    o->qv[c] = _mm256_loadu_pd(t);
  }
}

/* Scores of nb <= BLK keys into sb (past nb: -inf); returns their max. */
static double block_scores(size_t nb, const double *k, size_t ldk,
                           const __m256d *q, size_t nc, __m256i mlast,
                           int full_last, double *sb) {
  __m256d vmax = _mm256_set1_pd(-INFINITY);
  for (size_t g = 0; g < nb; g += 4) {
    const size_t cnt = nb - g < 4 ? nb - g : 4;
    /* rows >= cnt repeat row cnt-1: nothing past the last key is read */
#define ROW(i) (k + (g + ((size_t)(i) < cnt ? (size_t)(i) : cnt - 1)) * ldk)
    __m256d s = full_last ? dots4(ROW(0), ROW(1), ROW(2), ROW(3), q, nc, mlast, 1)
                          : dots4(ROW(0), ROW(1), ROW(2), ROW(3), q, nc, mlast, 0);
#undef ROW
    if (cnt < 4) {
      __m256i valid = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)cnt),
                                         _mm256_setr_epi64x(0, 1, 2, 3));
      s = _mm256_blendv_pd(_mm256_set1_pd(-INFINITY), s, _mm256_castsi256_pd(valid));
    }
    _mm256_storeu_pd(sb + g, s);
    vmax = _mm256_max_pd(s, vmax); /* NaN in s is skipped */
  }
  for (size_t g = (nb + 3) / 4 * 4; g < BLK; g++) sb[g] = -INFINITY;
  __m128d h = _mm_max_pd(_mm256_castpd256_pd128(vmax), _mm256_extractf128_pd(vmax, 1));
  return _mm_cvtsd_f64(_mm_max_sd(h, _mm_unpackhi_pd(h, h)));
}

/* Scores of nb <= BLK contiguous keys with dk == DK in {1, 2, 4} into sb
 * (-inf up to nb rounded to 4); returns their max (NaN skipped). qc:
 * lane i holds q[i mod DK] (times inv_tau, if any). dk = 1 is one
 * multiply per 4 keys, dk = 2 two multiplies and one pairwise add, dk = 4
 * four multiplies and pair sums (p0 + p1) + (p2 + p3); the tail key by
 * key with the same roundings. */
HS_ALWAYS_INLINE double
block_scores_contig256(size_t nb, const double *k, __m256d qc, int DK, double *sb) {
  __m256d vmax = _mm256_set1_pd(-INFINITY);
  size_t g = 0;
  for (; g + 4 <= nb; g += 4) {
    const double *kg = k + g * (size_t)DK;
    __m256d s;
    if (DK == 1) {
      s = _mm256_mul_pd(_mm256_loadu_pd(kg), qc);
    } else if (DK == 2) {
      /* hadd gives [k0, k2, k1, k3]: back to key order */
      __m256d h = _mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg), qc),
                                 _mm256_mul_pd(_mm256_loadu_pd(kg + 4), qc));
      s = _mm256_permute4x64_pd(h, 0xD8);
    } else {
      /* one key per register; h01 = [k0 01, k1 01, k0 23, k1 23] */
      __m256d h01 = _mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg), qc),
                                   _mm256_mul_pd(_mm256_loadu_pd(kg + 4), qc));
      __m256d h23 = _mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg + 8), qc),
                                   _mm256_mul_pd(_mm256_loadu_pd(kg + 12), qc));
      s = _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                        _mm256_permute2f128_pd(h01, h23, 0x31));
    }
    _mm256_store_pd(sb + g, s);
    vmax = _mm256_max_pd(s, vmax); /* NaN in s is skipped */
  }
  double m = -INFINITY;
  for (; g < nb; g++) { /* the tail key by key, the same sums */
    const double *kj = k + g * (size_t)DK;
    sb[g] = DK == 1   ? kj[0] * qc[0]
            : DK == 2 ? kj[0] * qc[0] + kj[1] * qc[1]
                      : (kj[0] * qc[0] + kj[1] * qc[1]) + (kj[2] * qc[2] + kj[3] * qc[3]);
    if (sb[g] > m) m = sb[g];
  }
  for (size_t t = g; t < ((nb + 3) & ~(size_t)3); t++) sb[t] = -INFINITY;
  __m128d h = _mm_max_pd(_mm256_castpd256_pd128(vmax), _mm256_extractf128_pd(vmax, 1));
  double vm = _mm_cvtsd_f64(_mm_max_sd(h, _mm_unpackhi_pd(h, h)));
  return vm > m ? vm : m;
}

#endif
