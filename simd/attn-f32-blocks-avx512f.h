/* SPDX-License-Identifier: MIT */
/* The AVX-512 parts of the f32 attention-row blocks (online, two-pass,
 * hard, tile), whose block loops are written once in
 * attn-f32-blocks-run.h: qdesc and qd_init (q's chunks in all four
 * 128-bit lanes), the permute networks that turn partial dot products into
 * one vector of 16 per-key scores (quad_dot/dots16, pairsum,
 * dots16_contig_kx/_tail) as that header's hooks, and the parts with no AVX2 twin
 * (values_small_t, two keys per register by 512-bit permutes; the
 * two-pass lane path with its 64-bit float masks). Include after defining
 * BLK, the block length in keys, and after ukernels.h. */
#ifndef HS_ATTN_F32_BLOCKS_AVX512F_H
#define HS_ATTN_F32_BLOCKS_AVX512F_H

#ifndef BLK
#error "define BLK before including this header"
#endif


typedef struct {
  size_t nc4;       /* 4-float chunks per key row */
  __m128i mlast;    /* lanes of the last chunk inside dk */
  __m512 q4[16];    /* chunk c of q*inv_tau, in all four 128-bit lanes */
  __m512 qc;        /* q*inv_tau repeated with period dk (dk in 1, 2, 4, 8) */
} qdesc;

/* Sums of adjacent lane pairs of the 32-lane concatenation [a | b], in
 * order: lane i = (a|b)[2i] + (a|b)[2i+1]. */
HS_ALWAYS_INLINE __m512 pairsum(__m512 a, __m512 b) {
  const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                       22, 24, 26, 28, 30);
  const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                       23, 25, 27, 29, 31);
  return _mm512_add_ps(_mm512_permutex2var_ps(a, ev, b),
                       _mm512_permutex2var_ps(a, od, b));
}

/* Scores of 16 consecutive keys stored contiguously (ldk == DK), DK in
 * {1, 2, 4, 8}: the 16*DK floats are DK plain loads, times q repeated with
 * period DK, then log2(DK) levels of pairsum, which keep key order.
 * kx[i] = the floats 16i .. 16i+15 of the keys (the tile kernel loads
 * them once for several queries). */
HS_ALWAYS_INLINE __m512 dots16_contig_kx(const __m512 *kx, __m512 qc, int DK) {
#define X(i) _mm512_mul_ps(kx[i], qc)
  if (DK == 1) return X(0);
  if (DK == 2) return pairsum(X(0), X(1));
  /* each level halves the registers and the lanes per key */
  __m512 y0 = pairsum(X(0), X(1)), y1 = pairsum(X(2), X(3));
  if (DK == 4) return pairsum(y0, y1);
  __m512 y2 = pairsum(X(4), X(5)), y3 = pairsum(X(6), X(7));
#undef X
  return pairsum(pairsum(y0, y1), pairsum(y2, y3));
}

HS_ALWAYS_INLINE __m128 ld4(const float *p, int full, __m128i m) {
  return full ? _mm_loadu_ps(p) : _mm_maskload_ps(p, m);
}

/* Lane l holds 4 partial dot products of row r_l (l < 4). */
HS_ALWAYS_INLINE __m512 quad_dot(const float *r0, const float *r1, const float *r2,
                       const float *r3, const qdesc *qd, size_t nc4,
                       int full_last) {
  __m512 x = _mm512_setzero_ps();
  for (size_t c = 0; c < nc4; c++) {
    int full = c + 1 < nc4 || full_last;
    __m512 kk = _mm512_castps128_ps512(ld4(r0 + 4 * c, full, qd->mlast));
    kk = _mm512_insertf32x4(kk, ld4(r1 + 4 * c, full, qd->mlast), 1);
    kk = _mm512_insertf32x4(kk, ld4(r2 + 4 * c, full, qd->mlast), 2);
    kk = _mm512_insertf32x4(kk, ld4(r3 + 4 * c, full, qd->mlast), 3);
    x = c == 0 ? _mm512_mul_ps(kk, qd->q4[0]) : _mm512_fmadd_ps(kk, qd->q4[c], x);
  }
  return x;
}

/* Scores of rows 0..15 (rows >= cnt repeat row cnt-1: nothing past the
 * last key is read). */
HS_ALWAYS_INLINE __m512 dots16(const float *k, size_t ldk, size_t cnt, const qdesc *qd,
                     size_t nc4, int full_last) {
#define ROW(i) (k + ((size_t)(i) < cnt ? (size_t)(i) : cnt - 1) * ldk)
  __m512 x0 = quad_dot(ROW(0), ROW(4), ROW(8), ROW(12), qd, nc4, full_last);
  __m512 x1 = quad_dot(ROW(1), ROW(5), ROW(9), ROW(13), qd, nc4, full_last);
  __m512 x2 = quad_dot(ROW(2), ROW(6), ROW(10), ROW(14), qd, nc4, full_last);
  __m512 x3 = quad_dot(ROW(3), ROW(7), ROW(11), ROW(15), qd, nc4, full_last);
#undef ROW
  /* per lane: [x0 0+2, x0 1+3, x1 0+2, x1 1+3] */
  __m512 y0 = _mm512_add_ps(_mm512_shuffle_ps(x0, x1, 0x44),
                            _mm512_shuffle_ps(x0, x1, 0xEE));
  __m512 y1 = _mm512_add_ps(_mm512_shuffle_ps(x2, x3, 0x44),
                            _mm512_shuffle_ps(x2, x3, 0xEE));
  /* lane l: [s_4l, s_4l+1, s_4l+2, s_4l+3] */
  return _mm512_add_ps(_mm512_shuffle_ps(y0, y1, 0x88),
                       _mm512_shuffle_ps(y0, y1, 0xDD));
}

/* The tail group of a block, cnt < 16 contiguous keys (ldk == DK, DK in
 * {1, 2, 4}), with the bits of dots16 (cnt, nc4 = 1): the cnt * DK floats
 * by masked loads (nothing past the last key is read, lanes past it are
 * +0), then dots16's order, ((p0 + p2) + (p1 + p3)) with the absent
 * products +0: for DK = 4 a first pairsum level over lanes (0, 2) and
 * (1, 3); for DK <= 2 the contiguous sum plus +0, which is dots16's value
 * ((p + 0) turns only -0 into +0, and (p0 + 0) + (p1 + 0) equals
 * (p0 + p1) + 0 in every case). Lanes >= cnt: unspecified. */
HS_ALWAYS_INLINE __m512 dots16_contig_tail(const float *k, size_t cnt, const qdesc *qd,
                                 int DK) {
  const size_t nf = cnt * (size_t)DK;
  __m512 kx[4];
  for (int i = 0; i < DK; i++) {
    const size_t r = nf > 16u * (size_t)i ? nf - 16u * (size_t)i : 0;
    kx[i] = _mm512_maskz_loadu_ps(r >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << r) - 1),
                                  k + 16 * i);
  }
  if (DK == 1) return _mm512_add_ps(_mm512_mul_ps(kx[0], qd->qc), _mm512_setzero_ps());
  if (DK == 2)
    return _mm512_add_ps(pairsum(_mm512_mul_ps(kx[0], qd->qc), _mm512_mul_ps(kx[1], qd->qc)),
                         _mm512_setzero_ps());
  /* lane pairs (4i, 4i + 2) and (4i + 1, 4i + 3) of [a | b] */
  const __m512i e02 = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21,
                                        24, 25, 28, 29);
  const __m512i e13 = _mm512_add_epi32(e02, _mm512_set1_epi32(2));
#define P02(a, b) _mm512_add_ps(_mm512_permutex2var_ps(a, e02, b), \
                                _mm512_permutex2var_ps(a, e13, b))
  __m512 x0 = _mm512_mul_ps(kx[0], qd->qc), x1 = _mm512_mul_ps(kx[1], qd->qc);
  __m512 x2 = _mm512_mul_ps(kx[2], qd->qc), x3 = _mm512_mul_ps(kx[3], qd->qc);
  return pairsum(P02(x0, x1), P02(x2, x3));
#undef P02
}

/* The hooks of attn-f32-blocks-run.h (contracts there). */
#define blk_dots dots16
#define blk_dots_kx dots16_contig_kx
#define BLK_DOTS_K8 0 /* dk = 8 by plain loads too */
#define blk_dots_contig_tail dots16_contig_tail
HS_ALWAYS_INLINE int blk_full_last(size_t dk, size_t nc4) {
  (void)nc4;
  return dk % 4 == 0 && dk > 0;
}
#define BLK_VACC 4

#include "attn-f32-blocks-run.h"

/* dv <= 8: run[0..8) += sum_{j<nb} e[j] v_j, two keys per register. */
HS_ALWAYS_INLINE void values_small_t(size_t nb, const float *e, const float *v,
                           size_t ldv, __m256i m8, int full, float *run) {
#define LDV(j) (full ? _mm256_loadu_ps(v + (j) * ldv) \
                     : _mm256_maskload_ps(v + (j) * ldv, m8))
#define PAIR(j)                                                          \
  _mm512_castpd_ps(_mm512_insertf64x4(                                   \
      _mm512_castpd256_pd512(_mm256_castps_pd(LDV(j))),                  \
      _mm256_castps_pd(LDV((j) + 1)), 1))
  const __m512i i01 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const __m512i two = _mm512_set1_epi32(2);
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  size_t j = 0;
  for (; j + 16 <= nb; j += 16) {
    __m512 ev = _mm512_load_ps(e + j);
    /* [e_j x8 | e_j+1 x8] for the 8 pairs of the group */
    __m512i ix = i01;
    __m512 w0 = _mm512_permutexvar_ps(ix, ev); ix = _mm512_add_epi32(ix, two);
    __m512 w1 = _mm512_permutexvar_ps(ix, ev); ix = _mm512_add_epi32(ix, two);
    __m512 w2 = _mm512_permutexvar_ps(ix, ev); ix = _mm512_add_epi32(ix, two);
    __m512 w3 = _mm512_permutexvar_ps(ix, ev); ix = _mm512_add_epi32(ix, two);
    __m512 w4 = _mm512_permutexvar_ps(ix, ev); ix = _mm512_add_epi32(ix, two);
    __m512 w5 = _mm512_permutexvar_ps(ix, ev); ix = _mm512_add_epi32(ix, two);
    __m512 w6 = _mm512_permutexvar_ps(ix, ev); ix = _mm512_add_epi32(ix, two);
    __m512 w7 = _mm512_permutexvar_ps(ix, ev);
    a0 = _mm512_fmadd_ps(w0, PAIR(j + 0), a0);
    a1 = _mm512_fmadd_ps(w1, PAIR(j + 2), a1);
    a2 = _mm512_fmadd_ps(w2, PAIR(j + 4), a2);
    a3 = _mm512_fmadd_ps(w3, PAIR(j + 6), a3);
    a0 = _mm512_fmadd_ps(w4, PAIR(j + 8), a0);
    a1 = _mm512_fmadd_ps(w5, PAIR(j + 10), a1);
    a2 = _mm512_fmadd_ps(w6, PAIR(j + 12), a2);
    a3 = _mm512_fmadd_ps(w7, PAIR(j + 14), a3);
  }
  /* the rest one key at a time, 256-bit */
  __m256 t = _mm256_setzero_ps();
  for (; j < nb; j++) t = _mm256_fmadd_ps(_mm256_broadcast_ss(e + j), LDV(j), t);
#undef PAIR
#undef LDV
  a0 = _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3));
  /* fold the two halves (even and odd keys) */
  __m256 h = _mm256_add_ps(_mm512_castps512_ps256(a0),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a0), 1)));
  h = _mm256_add_ps(h, t);
  _mm256_store_ps(run, _mm256_add_ps(_mm256_load_ps(run), h));
}

/* dv > 8: 16 columns per register (block_values_t). */
static void values_wide(size_t nb, const float *e, const float *v, size_t ldv,
                        size_t dv, float *run) {
  block_values_t(nb, e, v, ldv, (dv + 15) / 16, vmask_first(dv % 16), dv % 16 == 0, run);
}

/* The hooks of the two-pass row kernel (f32-attn-row-2pass-rr2-p5-impl.h):
 * q set up for block_scores (inv_tau folded in, as the online kernel
 * does), and run += sum_j e[j] v_j for any dv <= HS_ATTN_MAX_D (run
 * zeroed up to dv rounded up to 16). */
static inline void qd_init(qdesc *qd, size_t dk, const float *q, float inv_tau) {
  qd->nc4 = dk == 0 ? 1 : (dk + 3) / 4; /* dk == 0: every score is 0 */
  {
    int r = (int)(dk % 4);
    qd->mlast = _mm_setr_epi32(0 < r ? -1 : 0, 1 < r ? -1 : 0, 2 < r ? -1 : 0, 0);
  }
  /* q * inv_tau built in registers: scalar stores read back by one wide
   * load stall store forwarding (~20 cycles each, twice per row; the
   * per-row setup was ~50 ns against ~0.2 ns per key). Lanes past dk are
   * +0 (masked multiply: never 0 * inf). */
  const __m512 vtau = _mm512_set1_ps(inv_tau);
  for (size_t c = 0; c < qd->nc4; c++) {
    size_t rem = dk > 4 * c ? dk - 4 * c : 0;
    __mmask16 mc = (__mmask16)((1u << (rem < 4 ? rem : 4)) - 1);
    /* inv_tau folded into q: one rounding more per product, no multiply
     * per score */
    __m512 x = _mm512_maskz_mul_ps(mc, _mm512_maskz_loadu_ps(mc, q + 4 * c), vtau);
    qd->q4[c] = _mm512_shuffle_f32x4(x, x, 0);
  }
  if (dk == 1 || dk == 2 || dk == 4 || dk == 8) {
    /* lane i: q[i mod dk] * inv_tau (dk a power of 2) */
    __mmask16 mk = (__mmask16)((1u << dk) - 1);
    __m512 x = _mm512_maskz_mul_ps(mk, _mm512_maskz_loadu_ps(mk, q), vtau);
    __m512i idx = _mm512_and_si512(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32((int)dk - 1));
    qd->qc = _mm512_permutexvar_ps(idx, x);
  } else {
    qd->qc = _mm512_setzero_ps();
  }
}

/* The two-pass row's lane path (HS_BLOCKS_LANES,
 * f32-attn-row-2pass-rr2-p5-impl.h), AVX-512 only: per-group masked key
 * loads by a 64-bit float mask; AVX2 takes those shapes by its contiguous
 * block path (block_scores_dk, block_value1). */
#define HS_BLOCKS_LANES 1

/* The lane path of the two-pass row (f32-attn-row-2pass-rr2-p5-impl.h),
 * keys contiguous with ldk == dk == DK in {1, 2, 4}, one value column:
 * q * inv_tau repeated with period DK (qd_init's qc, the same bits,
 * without the general path's chunks); */
HS_ALWAYS_INLINE void qd_init_dk(qdesc *qd, int DK, const float *q, float inv_tau) {
  const __mmask16 mk = (__mmask16)((1u << DK) - 1);
  const __m512 x = _mm512_maskz_mul_ps(mk, _mm512_maskz_loadu_ps(mk, q), _mm512_set1_ps(inv_tau));
  const __m512i idx = _mm512_and_si512(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32(DK - 1));
  qd->qc = _mm512_permutexvar_ps(idx, x);
}

/* lanes lo .. hi - 1 */
HS_ALWAYS_INLINE __mmask16 lane_range(unsigned lo, unsigned hi) {
  return (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
}

/* the scores of keys g + lo .. g + hi - 1 (g a multiple of 16, lo < hi <=
 * 16) in lanes lo .. hi - 1, the others -inf: blk_dots_contig's arithmetic
 * on every key, from plain loads when the group is whole, else from masked
 * loads of just those keys' floats (a lane's products are its own key's:
 * the same bits either way); biased by fma(slope, (float)(int32_t)(d0 +
 * j), s_j) when BIAS, as block_scores_bias; */
HS_ALWAYS_INLINE __m512 group_scores_dk(const float *k, size_t g, unsigned lo, unsigned hi,
                              const qdesc *qd, int DK, int BIAS, __m512 vslope,
                              int64_t d0) {
  const float *kg = k + g * (size_t)DK;
  const int whole = lo == 0 && hi == 16;
  __m512 s;
  if (whole) {
    s = blk_dots_contig(kg, qd->qc, DK);
  } else {
    const unsigned flo = lo * (unsigned)DK, fhi = hi * (unsigned)DK;
    const uint64_t fm = (fhi == 64 ? ~(uint64_t)0 : ((uint64_t)1 << fhi) - 1) &
                        ~(((uint64_t)1 << flo) - 1);
    __m512 kx[4];
    kx[0] = _mm512_maskz_loadu_ps((__mmask16)fm, kg);
    if (DK >= 2) kx[1] = _mm512_maskz_loadu_ps((__mmask16)(fm >> 16), kg + 16);
    if (DK >= 4) {
      kx[2] = _mm512_maskz_loadu_ps((__mmask16)(fm >> 32), kg + 32);
      kx[3] = _mm512_maskz_loadu_ps((__mmask16)(fm >> 48), kg + 48);
    }
    s = dots16_contig_kx(kx, qd->qc, DK);
  }
  if (BIAS) s = _mm512_fmadd_ps(vslope, _mm512_cvtepi32_ps(pos_iota(d0 + (int64_t)g)), s);
  return whole ? s : _mm512_mask_mov_ps(_mm512_set1_ps(-INFINITY), lane_range(lo, hi), s);
}

/* and the values of those keys in those lanes, +0 in the others. */
HS_ALWAYS_INLINE __m512 group_values1(const float *v, size_t g, unsigned lo, unsigned hi) {
  return lo == 0 && hi == 16 ? _mm512_loadu_ps(v + g)
                             : _mm512_maskz_loadu_ps(lane_range(lo, hi), v + g);
}

HS_ALWAYS_INLINE void block_values_dv(size_t nb, const float *e, const float *v,
                            size_t ldv, size_t dv, float *run) {
  if (dv > 8) {
    values_wide(nb, e, v, ldv, dv, run);
    return;
  }
  if (dv == 0) return;
  const __m256i m8 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(dv % 8)),
                                        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  values_small_t(nb, e, v, ldv, m8, dv == 8, run);
}

#endif
