/* SPDX-License-Identifier: MIT */
/* The 512-bit score blocks of contiguous small keys shared by the f64
 * AVX-512F kernels (attention row, hard row, two-pass row): 8 keys per
 * step for dk in {1, 2, 4, 8} (the online row kernel takes 1, 2, 4). Include after attn-f64-blocks-avx2.h. */
#ifndef HS_ATTN_F64_BLOCKS_AVX512F_H
#define HS_ATTN_F64_BLOCKS_AVX512F_H

/* Scores of nb <= BLK contiguous keys (dk == DK in {1, 2, 4, 8}) into sb
 * (past nb: -inf); returns their max, and in *nan whether one was NaN.
 * qc: lane i holds q[i mod DK] * inv_tau. A score is DK products summed
 * by log2(DK) levels of pair sums (error <= (log2(DK) + 1) u sum |q k|). */
static inline __attribute__((always_inline)) double
block_scores_contig(size_t nb, const double *k, __m512d qc, int DK, double *sb, int *nan) {
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  __m512d vmax = _mm512_set1_pd(-INFINITY);
  __mmask8 bad = 0;
  size_t g = 0;
  for (; g + 8 <= nb; g += 8) {
    const double *kg = k + g * (size_t)DK;
    __m512d s;
    if (DK == 1) {
      s = _mm512_mul_pd(_mm512_loadu_pd(kg), qc);
    } else {
      __m512d x0 = _mm512_mul_pd(_mm512_loadu_pd(kg), qc);
      __m512d x1 = _mm512_mul_pd(_mm512_loadu_pd(kg + 8), qc);
      if (DK == 2) {
        /* key pairs: [k0 k1 .. k7] */
        s = _mm512_add_pd(_mm512_permutex2var_pd(x0, even, x1),
                          _mm512_permutex2var_pd(x0, odd, x1));
      } else if (DK == 8) {
        /* one key per register: three levels of pair sums, key order kept */
#define PS(a, b) _mm512_add_pd(_mm512_permutex2var_pd(a, even, b), \
                               _mm512_permutex2var_pd(a, odd, b))
#define X(i) _mm512_mul_pd(_mm512_loadu_pd(kg + 8 * (i)), qc)
        __m512d z0 = PS(PS(x0, x1), PS(X(2), X(3)));
        __m512d z1 = PS(PS(X(4), X(5)), PS(X(6), X(7)));
        s = PS(z0, z1);
#undef X
#undef PS
      } else {
        __m512d x2 = _mm512_mul_pd(_mm512_loadu_pd(kg + 16), qc);
        __m512d x3 = _mm512_mul_pd(_mm512_loadu_pd(kg + 24), qc);
        /* pair sums [k0 k0 k1 k1 .. k3 k3], [k4 k4 .. k7 k7], then pairs again */
        __m512d y0 = _mm512_add_pd(_mm512_permutex2var_pd(x0, even, x1),
                                   _mm512_permutex2var_pd(x0, odd, x1));
        __m512d y1 = _mm512_add_pd(_mm512_permutex2var_pd(x2, even, x3),
                                   _mm512_permutex2var_pd(x2, odd, x3));
        s = _mm512_add_pd(_mm512_permutex2var_pd(y0, even, y1),
                          _mm512_permutex2var_pd(y0, odd, y1));
      }
    }
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

#endif
