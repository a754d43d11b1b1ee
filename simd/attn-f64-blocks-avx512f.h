/* SPDX-License-Identifier: MIT */
/* The 512-bit score blocks of contiguous small keys shared by the f64
 * AVX-512F kernels (attention row, hard row, two-pass row): 8 keys per
 * step for dk in {1, 2, 4, 8} (the online row kernel takes 1, 2, 4). Include after attn-f64-blocks-avx2.h. */
#ifndef HS_ATTN_F64_BLOCKS_AVX512F_H
#define HS_ATTN_F64_BLOCKS_AVX512F_H

/* x[i_] = expr for i_ < DK, written out (a loop over DK is not always
 * unrolled, and x would then live on the stack) */
#define HS_F64_CONTIG_LOADS(x, DK, expr)                                  \
  do {                                                                    \
    { const int i_ = 0; x[0] = (expr); }                                  \
    if ((DK) >= 2) { const int i_ = 1; x[1] = (expr); }                   \
    if ((DK) >= 4) {                                                      \
      { const int i_ = 2; x[2] = (expr); }                                \
      { const int i_ = 3; x[3] = (expr); }                                \
    }                                                                     \
    if ((DK) >= 8) {                                                      \
      { const int i_ = 4; x[4] = (expr); }                                \
      { const int i_ = 5; x[5] = (expr); }                                \
      { const int i_ = 6; x[6] = (expr); }                                \
      { const int i_ = 7; x[7] = (expr); }                                \
    }                                                                     \
  } while (0)

/* Scores of 8 consecutive contiguous keys (dk == DK in {1, 2, 4, 8}) from
 * x[i] = the doubles 8i .. 8i+7 of the keys times qc (lane i: q[i mod
 * DK] * inv_tau): DK products summed by log2(DK) levels of pair sums, in
 * key order. */
HS_ALWAYS_INLINE __m512d
dots8_contig_x(const __m512d *x, int DK) {
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
#define PS(a, b) _mm512_add_pd(_mm512_permutex2var_pd(a, even, b), \
                               _mm512_permutex2var_pd(a, odd, b))
  if (DK == 1) return x[0];
  /* key pairs: [k0 k1 .. k7] */
  if (DK == 2) return PS(x[0], x[1]);
  /* pair sums [k0 k0 k1 k1 .. k3 k3], [k4 k4 .. k7 k7], then pairs again */
  if (DK == 4) return PS(PS(x[0], x[1]), PS(x[2], x[3]));
  /* one key per register: three levels of pair sums, key order kept */
  return PS(PS(PS(x[0], x[1]), PS(x[2], x[3])), PS(PS(x[4], x[5]), PS(x[6], x[7])));
#undef PS
}

/* Scores of nb <= BLK contiguous keys (dk == DK in {1, 2, 4, 8}) into sb
 * (past nb: -inf); returns their max, and in *nan whether one was NaN.
 * qc: lane i holds q[i mod DK] * inv_tau. A score is DK products summed
 * by log2(DK) levels of pair sums (error <= (log2(DK) + 1) u sum |q k|). */
HS_ALWAYS_INLINE double
block_scores_contig(size_t nb, const double *k, __m512d qc, int DK, double *sb, int *nan) {
  __m512d vmax = _mm512_set1_pd(-INFINITY);
  __mmask8 bad = 0;
  size_t g = 0;
  for (; g + 8 <= nb; g += 8) {
    const double *kg = k + g * (size_t)DK;
    __m512d x[8];
    HS_F64_CONTIG_LOADS(x, DK, _mm512_mul_pd(_mm512_loadu_pd(kg + 8 * i_), qc));
    const __m512d s = dots8_contig_x(x, DK);
    _mm512_store_pd(sb + g, s);
    bad |= _mm512_cmp_pd_mask(s, s, _CMP_UNORD_Q);
    vmax = _mm512_max_pd(s, vmax); /* NaN in s is skipped */
  }
  for (; g < nb; g++) { /* the tail key by key, the same sums */
    const double *kj = k + g * (size_t)DK;
    double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int c = 0; c < DK; c++) p[c] = kj[c] * qc[c];
    sb[g] = DK == 1   ? p[0]
            : DK == 2 ? p[0] + p[1]
            : DK == 4 ? (p[0] + p[1]) + (p[2] + p[3])
                      : ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
  }
  for (size_t t = g; t < ((nb + 7) & ~(size_t)7); t++) sb[t] = -INFINITY;
  for (size_t t = nb & ~(size_t)7; t < nb; t++) *nan |= isnan(sb[t]);
  *nan |= bad != 0;
  double m = _mm512_reduce_max_pd(vmax);
  for (size_t t = nb & ~(size_t)7; t < nb; t++) m = sb[t] > m ? sb[t] : m;
  return m;
}

/* block_scores_contig without its NaN flag, for a caller that finds NaN
 * itself or needs not */
HS_ALWAYS_INLINE double
block_scores_contig_max(size_t nb, const double *k, __m512d qc, int DK, double *sb) {
  int nan = 0;
  return block_scores_contig(nb, k, qc, DK, sb, &nan);
}

/* lanes lo .. hi - 1 */
static inline __mmask8 hs_f64_lanes(unsigned lo, unsigned hi) {
  return (__mmask8)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

/* The two-pass row's lane path: the scores of keys g + lo .. g + hi - 1
 * (g a multiple of 8, lo < hi <= 8) in lanes lo .. hi - 1, the others
 * -inf, with block_scores_contig's arithmetic from masked loads of just
 * those keys' doubles (a lane's products are its own key's: the same bits
 * as a whole group). */
HS_ALWAYS_INLINE __m512d
group_scores_contig(const double *k, size_t g, unsigned lo, unsigned hi, __m512d qc, int DK) {
  const double *kg = k + g * (size_t)DK;
  const unsigned flo = lo * (unsigned)DK, fhi = hi * (unsigned)DK;
  const uint64_t fm = (fhi == 64 ? ~(uint64_t)0 : ((uint64_t)1 << fhi) - 1) &
                      ~(((uint64_t)1 << flo) - 1);
  __m512d x[8];
  HS_F64_CONTIG_LOADS(x, DK, _mm512_mul_pd(_mm512_maskz_loadu_pd((__mmask8)(fm >> (8 * i_)),
                                                                 kg + 8 * i_), qc));
  return _mm512_mask_mov_pd(_mm512_set1_pd(-INFINITY), hs_f64_lanes(lo, hi),
                            dots8_contig_x(x, DK));
}

#endif
