/* SPDX-License-Identifier: MIT */
/* f64 fused attention row over a list of key segments, AVX2+FMA, two
 * passes, rr2-p11 exp: the algorithm, its error bound, skipping and
 * special values are in f64-attn-row-2pass-rr2-p11-impl.h, 4 keys per
 * register. Contiguous keys of dk 1, 2 are scored by plain loads
 * (block_scores_contig256), others by one FMA chain per key
 * (block_scores); values not lane-wise take 4 accumulators. The lane
 * path takes contiguous dk 1, 2, 4: a key's score is its DK products
 * summed in pairs, (p0 + p1) + (p2 + p3) for dk = 4 (error <= (log2(DK) +
 * 1) u sum |q k|), whichever lane it is in; the keys outside the group's
 * lanes are not read (masked loads) and score -inf. */
#include <immintrin.h>
#include <math.h>

#include "vec-f64-avx2.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f64-blocks-avx2.h"

#define TWOPASS_CONTIG_DKS(X) X(1) X(2)
#define TWOPASS_SCORES_CONTIG block_scores_contig256
#define TWOPASS_VALUE_ACCS 4

/* the lane path (f64-attn-rows-2pass-rr2-p11-impl.h) */
#define HS_F64_LANES
#define HS_F64_LANE_DKS(X) X(1) X(2) X(4)
/* all-ones where lo <= idx < hi */
static inline __m256i lanes_in(__m256i idx, unsigned lo, unsigned hi) {
  return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(lo), idx),
                             _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), idx));
}
HS_ALWAYS_INLINE vd group_scores_dk(
    const double *k, size_t g, unsigned lo, unsigned hi, vd qc, int DK) {
  const double *kg = k + g * (size_t)DK;
  if (lo == 0 && hi == 4) {
    /* a whole group (most of a long row's): plain loads, the same
     * arithmetic as below */
    if (DK == 1) return _mm256_mul_pd(_mm256_loadu_pd(kg), qc);
    if (DK == 2)
      return _mm256_permute4x64_pd(_mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg), qc),
                                                  _mm256_mul_pd(_mm256_loadu_pd(kg + 4), qc)),
                                   0xD8);
    __m256d h01 = _mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg), qc),
                                 _mm256_mul_pd(_mm256_loadu_pd(kg + 4), qc));
    __m256d h23 = _mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg + 8), qc),
                                 _mm256_mul_pd(_mm256_loadu_pd(kg + 12), qc));
    return _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                         _mm256_permute2f128_pd(h01, h23, 0x31));
  }
  const __m256i key = _mm256_setr_epi64x(0, 1, 2, 3);
  __m256d s;
  if (DK == 1) {
    s = _mm256_mul_pd(_mm256_maskload_pd(kg, lanes_in(key, lo, hi)), qc);
  } else if (DK == 2) {
    /* hadd gives [k0, k2, k1, k3]: back to key order */
    __m256d a = _mm256_maskload_pd(kg, lanes_in(_mm256_setr_epi64x(0, 0, 1, 1), lo, hi));
    __m256d b = _mm256_maskload_pd(kg + 4, lanes_in(_mm256_setr_epi64x(2, 2, 3, 3), lo, hi));
    s = _mm256_permute4x64_pd(_mm256_hadd_pd(_mm256_mul_pd(a, qc), _mm256_mul_pd(b, qc)), 0xD8);
  } else {
    /* one key per register; h01 = [k0 01, k1 01, k0 23, k1 23] */
    __m256d x[4];
    for (int i = 0; i < 4; i++)
      x[i] = _mm256_mul_pd(
          _mm256_maskload_pd(kg + 4 * i, lanes_in(_mm256_set1_epi64x(i), lo, hi)), qc);
    __m256d h01 = _mm256_hadd_pd(x[0], x[1]), h23 = _mm256_hadd_pd(x[2], x[3]);
    s = _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                      _mm256_permute2f128_pd(h01, h23, 0x31));
  }
  return _mm256_blendv_pd(_mm256_set1_pd(-INFINITY), s,
                          _mm256_castsi256_pd(lanes_in(key, lo, hi)));
}
static inline vd group_values1(const double *v, size_t g, unsigned lo, unsigned hi) {
  if (lo == 0 && hi == 4) return _mm256_loadu_pd(v + g);
  return _mm256_maskload_pd(v + g, lanes_in(_mm256_setr_epi64x(0, 1, 2, 3), lo, hi));
}
#include "f64-attn-row-2pass-rr2-p11-impl.h"

HS_DEFINE_F64_ATTN_ROW_2PASS(hs_f64_attn_row_2pass_ukernel__avx2_rr2_p11,
                             hs_f64_attn_rows_2pass_ukernel__avx2_rr2_p11)
