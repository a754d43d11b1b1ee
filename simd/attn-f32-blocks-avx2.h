/* SPDX-License-Identifier: MIT */
/* The AVX2 parts of the f32 attention-row blocks (online, two-pass, hard,
 * tile), whose block loops are written once in attn-f32-blocks-run.h:
 * qdesc and qd_init (q's chunks laid out for these shuffles), the shuffle
 * networks that turn partial dot products into one vector of 8 per-key
 * scores (pair_dot/pair_dot8/dots8, dots8_contig_kx/_tail, dots8_k8) as that
 * header's hooks, and the value paths with no AVX-512 twin (the permuted
 * weights of block_values_vg, block_value1). Include after defining BLK,
 * the block length in keys, and after ukernels.h. */
#ifndef HS_ATTN_F32_BLOCKS_AVX2_H
#define HS_ATTN_F32_BLOCKS_AVX2_H

#ifndef BLK
#error "define BLK before including this header"
#endif

#include "vec-f32-avx2.h"


typedef struct {
  size_t nc4;      /* 4-float chunks per key row */
  __m128i mlast;   /* lanes of the last chunk inside dk */
  __m256 q4[16];   /* chunk c of q, duplicated in both 128-bit halves */
  __m256 q8[8];    /* chunk c of q, 8 floats */
  __m256i mlast8;  /* lanes of the last 8-chunk inside dk */
  __m256 qc;       /* q*inv_tau repeated with period dk (dk in 1, 2, 4) */
} qdesc;

HS_ALWAYS_INLINE __m128 ld4(const float *p, int full, __m128i m) {
  return full ? _mm_loadu_ps(p) : _mm_maskload_ps(p, m);
}

/* Partial dot products of rows a and b: [a(4 partials) | b(4 partials)]. */
HS_ALWAYS_INLINE __m256 pair_dot(const float *ra, const float *rb, const qdesc *qd,
                       size_t nc4, int full_last) {
  __m256 x = _mm256_setzero_ps();
  for (size_t c = 0; c < nc4; c++) {
    int full = c + 1 < nc4 || full_last;
    __m256 kk = _mm256_insertf128_ps(
        _mm256_castps128_ps256(ld4(ra + 4 * c, full, qd->mlast)),
        ld4(rb + 4 * c, full, qd->mlast), 1);
    x = c == 0 ? _mm256_mul_ps(kk, qd->q4[0]) : _mm256_fmadd_ps(kk, qd->q4[c], x);
  }
  return x;
}

/* Same result as pair_dot from whole 8-float chunks: x = a.q and y = b.q
 * lane-wise, then [x_lo + x_hi | y_lo + y_hi] by one blend and one lane
 * swap (fewer loads and inserts than 4-float chunks when dk > 4). */
HS_ALWAYS_INLINE __m256 pair_dot8(const float *ra, const float *rb, const qdesc *qd,
                        size_t nc8, int full_last) {
  __m256 x = _mm256_setzero_ps(), y = x;
  for (size_t c = 0; c < nc8; c++) {
    int full = c + 1 < nc8 || full_last;
    __m256 ka = full ? _mm256_loadu_ps(ra + 8 * c) : _mm256_maskload_ps(ra + 8 * c, qd->mlast8);
    __m256 kb = full ? _mm256_loadu_ps(rb + 8 * c) : _mm256_maskload_ps(rb + 8 * c, qd->mlast8);
    x = c == 0 ? _mm256_mul_ps(ka, qd->q8[0]) : _mm256_fmadd_ps(ka, qd->q8[c], x);
    y = c == 0 ? _mm256_mul_ps(kb, qd->q8[0]) : _mm256_fmadd_ps(kb, qd->q8[c], y);
  }
  return _mm256_add_ps(_mm256_blend_ps(x, y, 0xF0), _mm256_permute2f128_ps(x, y, 0x21));
}

/* Raw dot products q . k_j of rows j = 0..7 (rows >= cnt repeat row
 * cnt-1, so nothing past the last key is read). */
HS_ALWAYS_INLINE __m256 dots8(const float *k, size_t ldk, size_t cnt, const qdesc *qd,
                    size_t nc4, int full_last) {
  /* no pointer array: GCC would vectorize its 64-bit index arithmetic */
#define ROW(i) (k + ((size_t)(i) < cnt ? (size_t)(i) : cnt - 1) * ldk)
#define PD(a, b) (nc4 == 1 ? pair_dot(ROW(a), ROW(b), qd, nc4, full_last) \
                       : pair_dot8(ROW(a), ROW(b), qd, (nc4 + 1) / 2, full_last))
  __m256 x0 = PD(0, 4), x1 = PD(1, 5), x2 = PD(2, 6), x3 = PD(3, 7);
#undef PD
#undef ROW
  /* per half: [x0 0+2, x0 1+3, x1 0+2, x1 1+3] */
  __m256 y0 = _mm256_add_ps(_mm256_shuffle_ps(x0, x1, 0x44),
                            _mm256_shuffle_ps(x0, x1, 0xEE));
  __m256 y1 = _mm256_add_ps(_mm256_shuffle_ps(x2, x3, 0x44),
                            _mm256_shuffle_ps(x2, x3, 0xEE));
  /* [s0 s1 s2 s3 | s4 s5 s6 s7] */
  return _mm256_add_ps(_mm256_shuffle_ps(y0, y1, 0x88),
                       _mm256_shuffle_ps(y0, y1, 0xDD));
}

/* Scores of 8 consecutive keys stored contiguously (ldk == DK), DK in
 * {1, 2, 4}: the 8*DK floats are DK plain loads, products by q repeated
 * with period DK, then log2(DK) levels of even/odd shuffle + add, each
 * summing adjacent lanes (no masks, no inserts, no address arithmetic).
 * Returns [s_0 .. s_7] in key order. kx[i] = the floats 8i .. 8i+7 of the
 * keys (the tile kernel loads them once for several queries). */
HS_ALWAYS_INLINE __m256 dots8_contig_kx(const __m256 *kx, __m256 qc, int DK) {
  if (DK == 1) return _mm256_mul_ps(kx[0], qc);
  __m256 x0 = _mm256_mul_ps(kx[0], qc);
  __m256 x1 = _mm256_mul_ps(kx[1], qc);
  if (DK == 2) {
    /* [s0 s1 s4 s5 | s2 s3 s6 s7] */
    __m256 s = _mm256_add_ps(_mm256_shuffle_ps(x0, x1, 0x88),
                             _mm256_shuffle_ps(x0, x1, 0xDD));
    /* key order: swap the middle 64-bit pairs */
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), 0xD8));
  }
  __m256 x2 = _mm256_mul_ps(kx[2], qc);
  __m256 x3 = _mm256_mul_ps(kx[3], qc);
  /* pair sums: [k0 k0 k2 k2 | k1 k1 k3 k3], [k4 k4 k6 k6 | k5 k5 k7 k7] */
  __m256 y0 = _mm256_add_ps(_mm256_shuffle_ps(x0, x1, 0x88),
                            _mm256_shuffle_ps(x0, x1, 0xDD));
  __m256 y1 = _mm256_add_ps(_mm256_shuffle_ps(x2, x3, 0x88),
                            _mm256_shuffle_ps(x2, x3, 0xDD));
  /* [s0 s2 s4 s6 | s1 s3 s5 s7] */
  __m256 s = _mm256_add_ps(_mm256_shuffle_ps(y0, y1, 0x88),
                           _mm256_shuffle_ps(y0, y1, 0xDD));
  /* key order */
  return _mm256_permutevar8x32_ps(s, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* Scores of 8 consecutive keys stored contiguously with dk == 8 (ldk ==
 * 8): keys i and i+4 share one register, as in dots8, but from whole-row
 * loads r0 = k_i, r1 = k_{i+4}:
 *   blend(r0, r1) * q + swap(r0, r1) * qs = [4 partials of k_i | of k_{i+4}]
 * (blend = [r0 lo | r1 hi], swap = [r0 hi | r1 lo], q = q*inv_tau, qs =
 * its halves swapped): 2 loads, a blend, a lane swap, one multiply and
 * one FMA per two keys, where pair_dot8 needs 2 multiplies, a blend, a
 * lane swap and an add. Then dots8's two shuffle+add levels. Per score:
 * 2 roundings in the chunks, 2 in the tree (ceil(dk/4) + 2, as dots8). */
HS_ALWAYS_INLINE __m256 pair_k8(const float *r, __m256 q, __m256 qs) {
  __m256 r0 = _mm256_loadu_ps(r), r1 = _mm256_loadu_ps(r + 32);
  /* in registers: GCC would otherwise fold r1 into both of its users,
   * one load more per pair (loads are the scarce port here) */
  __asm__("" : "+x"(r0), "+x"(r1));
  return _mm256_fmadd_ps(_mm256_permute2f128_ps(r0, r1, 0x21), qs,
                         _mm256_mul_ps(_mm256_blend_ps(r0, r1, 0xF0), q));
}

HS_ALWAYS_INLINE __m256 dots8_k8(const float *k, __m256 q, __m256 qs) {
  /* named, not an array: GCC keeps a __m256 array on the stack */
  __m256 x0 = pair_k8(k, q, qs), x1 = pair_k8(k + 8, q, qs),
         x2 = pair_k8(k + 16, q, qs), x3 = pair_k8(k + 24, q, qs);
  /* per half: [x0 0+2, x0 1+3, x1 0+2, x1 1+3] */
  __m256 y0 = _mm256_add_ps(_mm256_shuffle_ps(x0, x1, 0x44),
                            _mm256_shuffle_ps(x0, x1, 0xEE));
  __m256 y1 = _mm256_add_ps(_mm256_shuffle_ps(x2, x3, 0x44),
                            _mm256_shuffle_ps(x2, x3, 0xEE));
  /* [s0 s1 s2 s3 | s4 s5 s6 s7] */
  return _mm256_add_ps(_mm256_shuffle_ps(y0, y1, 0x88),
                       _mm256_shuffle_ps(y0, y1, 0xDD));
}

/* The tail group of a block, cnt < 8 contiguous keys (ldk == DK, DK in
 * {1, 2, 4}), with the bits of dots8 (cnt, nc4 = 1): the cnt * DK floats
 * by masked loads (nothing past the last key is read, lanes past it are
 * +0), then dots8's order, ((p0 + p2) + (p1 + p3)) with the absent
 * products +0: for DK = 4 dots8's own shuffle network over registers of
 * two keys each (key i of x_r in half i), then a permute into key order;
 * for DK <= 2 the contiguous sum plus +0, which is dots8's value ((p + 0)
 * turns only -0 into +0, and (p0 + 0) + (p1 + 0) equals (p0 + p1) + 0 in
 * every case). Lanes >= cnt: unspecified. */
HS_ALWAYS_INLINE __m256 dots8_contig_tail(const float *k, size_t cnt, const qdesc *qd,
                                int DK) {
  const size_t nf = cnt * (size_t)DK;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256 x[4];
  for (int i = 0; i < DK; i++) {
    const int r = nf > 8u * (size_t)i ? (int)(nf - 8u * (size_t)i) : 0;
    x[i] = _mm256_mul_ps(
        _mm256_maskload_ps(k + 8 * i, _mm256_cmpgt_epi32(_mm256_set1_epi32(r), lane)),
        qd->qc);
  }
  if (DK == 1) return _mm256_add_ps(x[0], _mm256_setzero_ps());
  if (DK == 2) {
    __m256 s = _mm256_add_ps(_mm256_shuffle_ps(x[0], x[1], 0x88),
                             _mm256_shuffle_ps(x[0], x[1], 0xDD));
    s = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), 0xD8));
    return _mm256_add_ps(s, _mm256_setzero_ps());
  }
  __m256 y0 = _mm256_add_ps(_mm256_shuffle_ps(x[0], x[1], 0x44),
                            _mm256_shuffle_ps(x[0], x[1], 0xEE));
  __m256 y1 = _mm256_add_ps(_mm256_shuffle_ps(x[2], x[3], 0x44),
                            _mm256_shuffle_ps(x[2], x[3], 0xEE));
  /* [s0 s2 s4 s6 | s1 s3 s5 s7] */
  __m256 s = _mm256_add_ps(_mm256_shuffle_ps(y0, y1, 0x88),
                           _mm256_shuffle_ps(y0, y1, 0xDD));
  return _mm256_permutevar8x32_ps(s, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* The hooks of attn-f32-blocks-run.h (contracts there). */
HS_ALWAYS_INLINE __m256 blk_dots(const float *k, size_t ldk, size_t cnt, const qdesc *qd,
                       size_t nc4, int full_last) {
  return dots8(k, ldk, cnt, qd, nc4, full_last);
}
#define blk_dots_kx dots8_contig_kx
/* dk = 8 by whole rows: q and q with its halves swapped */
#define BLK_DOTS_K8 1
typedef struct { __m256 q8, q8s; } blk_k8;
HS_ALWAYS_INLINE blk_k8 blk_k8_init(const qdesc *qd, int DK) {
  if (DK != 8) return (blk_k8){_mm256_setzero_ps(), _mm256_setzero_ps()};
  return (blk_k8){qd->q8[0], _mm256_permute2f128_ps(qd->q8[0], qd->q8[0], 0x01)};
}
HS_ALWAYS_INLINE __m256 blk_dots_k8(const float *k, blk_k8 k8) { return dots8_k8(k, k8.q8, k8.q8s); }
#define blk_dots_contig_tail dots8_contig_tail
/* 8-float chunks when nc4 > 1 (pair_dot8) */
HS_ALWAYS_INLINE int blk_full_last(size_t dk, size_t nc4) {
  return nc4 > 1 ? dk % 8 == 0 : dk % 4 == 0 && dk > 0;
}
#define BLK_VACC 8

#include "attn-f32-blocks-run.h"

/* run[0..DV) += sum_{j<nb} e[j] v_j for contiguous values (ldv == DV) with
 * DV in {2, 4, 8}: each group's 8 weights are one load, spread over the
 * value rows by in-register permutes, where block_values_t reads every
 * weight back by a broadcast load (loads are this loop's scarce port:
 * about two 256-bit loads per cycle on the machine measured). Per group
 * of 8 keys:
 *   DV = 8: keys (i, i+4), i < 4, with E = [e_i x4 | e_{i+4} x4] (an
 *     in-lane permute) and rows r = v_i, s = v_{i+4}:
 *       X_i += E * [r lo | s hi],   Y_i += E * [r hi | s lo];
 *     the columns are then X + Y with Y's halves swapped;
 *   DV = 4: keys (2i, 2i+1) in one load [v_2i | v_2i+1], times
 *     [e_2i x4 | e_2i+1 x4] (e put in pair order by one cross-lane
 *     permute per group, then in-lane permutes);
 *   DV = 2: keys 0..3 and 4..7 in one load each, times
 *     [e0 e0 e1 e1 | e2 e2 e3 e3] and [e4 e4 .. e7 e7].
 * Every accumulator takes one FMA per group, so a lane sums at most 64
 * products per block of 512 before a fold of 3 adds into run, as
 * block_values_t. The last group (< 8 keys) reads its rows from a
 * zero-padded copy (its weights past nb are +0: scores -inf), so nothing
 * past the last key is read. The exp stays a loop of its own (it writes
 * e): fused into this one it measured 15% slower at dk = dv = 8, 30%
 * software-pipelined (exp of group g+1 beside the values of group g):
 * its 11 constants, 8 accumulators and temporaries do not fit the 16
 * registers, and the constants then cost loads. */
#define VG8(i, imm, x, y)                                                   \
  do {                                                                      \
    __m256 r = _mm256_loadu_ps(v + 8 * (i)), s = _mm256_loadu_ps(v + 8 * (i) + 32); \
    __asm__("" : "+x"(r), "+x"(s)); /* one load each, not one per user */  \
    const __m256 ee = _mm256_permute_ps(w, imm);                            \
    x = _mm256_fmadd_ps(ee, _mm256_blend_ps(r, s, 0xF0), x);                \
    y = _mm256_fmadd_ps(ee, _mm256_permute2f128_ps(r, s, 0x21), y);         \
  } while (0)
#define VG(e, v)                                                            \
  do {                                                                      \
    const __m256 w = _mm256_load_ps(e);                                     \
    if (DV == 8) {                                                          \
      VG8(0, 0x00, a0, a4); VG8(1, 0x55, a1, a5);                           \
      VG8(2, 0xAA, a2, a6); VG8(3, 0xFF, a3, a7);                           \
    } else if (DV == 4) {                                                   \
      const __m256 p = _mm256_permutevar8x32_ps(                            \
          w, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));                    \
      a0 = _mm256_fmadd_ps(_mm256_permute_ps(p, 0x00), _mm256_loadu_ps(v), a0); \
      a1 = _mm256_fmadd_ps(_mm256_permute_ps(p, 0x55), _mm256_loadu_ps(v + 8), a1); \
      a2 = _mm256_fmadd_ps(_mm256_permute_ps(p, 0xAA), _mm256_loadu_ps(v + 16), a2); \
      a3 = _mm256_fmadd_ps(_mm256_permute_ps(p, 0xFF), _mm256_loadu_ps(v + 24), a3); \
    } else {                                                                \
      a0 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(                        \
          w, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)), _mm256_loadu_ps(v), a0); \
      a1 = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(                        \
          w, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7)), _mm256_loadu_ps(v + 8), a1); \
    }                                                                       \
  } while (0)

HS_ALWAYS_INLINE void block_values_vg(size_t nb, const float *e, const float *v0,
                            int DV, float *run) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0,
         a5 = a0, a6 = a0, a7 = a0;
  size_t g = 0;
  for (; g + 8 <= nb; g += 8) {
    const float *v = v0 + g * DV;
    VG(e + g, v);
  }
  if (g < nb) {
    _Alignas(32) float vt[8 * 8] = {0};
    memcpy(vt, v0 + g * DV, ((nb - g) & 7) * DV * sizeof(float)); /* < 8 rows */
    const float *v = vt;
    VG(e + g, v);
  }
#undef VG
#undef VG8
  if (DV == 8) {
    __m256 x = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
    __m256 y = _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7));
    x = _mm256_add_ps(x, _mm256_permute2f128_ps(y, y, 0x01));
    _mm256_store_ps(run, _mm256_add_ps(_mm256_load_ps(run), x));
  } else if (DV == 4) {
    __m256 x = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    _mm_store_ps(run, _mm_add_ps(_mm_load_ps(run), h));
  } else {
    __m256 x = _mm256_add_ps(a0, a1);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    _mm_storel_pi((__m64 *)run,
                  _mm_add_ps(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)run), h));
  }
}

/* a function of its own: inside block_values it moved the general
 * path's code and slowed dk = dv = 5 rows by 3-11% */
static void block_values_perm(size_t nb, const float *e, const float *v,
                              size_t dv, float *run) {
  if (dv == 8) block_values_vg(nb, e, v, 8, run);
  else if (dv == 4) block_values_vg(nb, e, v, 4, run);
  else block_values_vg(nb, e, v, 2, run);
}

static void block_values(size_t nb, const float *e, const float *v, size_t ldv,
                         size_t dv, vmask mlast, float *run) {
  if (ldv == dv && (dv == 2 || dv == 4 || dv == 8)) {
    block_values_perm(nb, e, v, dv, run);
    return;
  }
  size_t nv = (dv + 7) / 8;
  int full = dv % 8 == 0;
  if (nv == 1) {
    if (full) block_values_t(nb, e, v, ldv, 1, mlast, 1, run);
    else block_values_t(nb, e, v, ldv, 1, mlast, 0, run);
  } else {
    if (full) block_values_t(nb, e, v, ldv, nv, mlast, 1, run);
    else block_values_t(nb, e, v, ldv, nv, mlast, 0, run);
  }
}

/* The hooks of the two-pass row kernel (f32-attn-row-2pass-rr2-p5-impl.h):
 * q set up for block_scores (inv_tau folded in, as the online kernel
 * does), and run += sum_j e[j] v_j for any dv <= HS_ATTN_MAX_D (run
 * zeroed up to dv rounded up to 16). */
static inline void qd_init(qdesc *qd, size_t dk, const float *q, float inv_tau) {
  qd->nc4 = (dk + 3) / 4;
  if (qd->nc4 == 0) qd->nc4 = 1; /* dk == 0: every score is 0 */
  {
    int r = (int)(dk % 4);
    qd->mlast = _mm_setr_epi32(0 < r ? -1 : 0, 1 < r ? -1 : 0, 2 < r ? -1 : 0, 0);
    if (dk == 0) qd->mlast = _mm_setzero_si128();
  }
  /* q * inv_tau built in registers: scalar stores read back by one wide
   * load stall store forwarding (~20 cycles each, per row). Lanes past dk
   * are +0 (the product is masked after the multiply: never 0 * inf). */
  const __m256i lane8 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m128 vtau = _mm_set1_ps(inv_tau);
  /* chunks 0..nc4 (one past, zero, for the odd 8-float pairing) */
  for (size_t c = 0; c <= qd->nc4 && c < 16; c++) { /* zero past dk */
    size_t rem = dk > 4 * c ? dk - 4 * c : 0;
    __m128i mc = _mm_cmpgt_epi32(_mm_set1_epi32((int)(rem < 4 ? rem : 4)),
                                 _mm_setr_epi32(0, 1, 2, 3));
    /* inv_tau folded into q: one rounding more per product, no multiply
     * per score */
    __m128 h = _mm_and_ps(_mm_mul_ps(_mm_maskload_ps(q + 4 * c, mc), vtau),
                          _mm_castsi128_ps(mc));
    qd->q4[c] = _mm256_insertf128_ps(_mm256_castps128_ps256(h), h, 1);
  }
  for (size_t c = 0; c < (qd->nc4 + 1) / 2; c++)
    qd->q8[c] = _mm256_setr_m128(_mm256_castps256_ps128(qd->q4[2 * c]),
                                _mm256_castps256_ps128(qd->q4[2 * c + 1]));
  if (dk == 1 || dk == 2 || dk == 4) {
    /* lane i: q[i mod dk] * inv_tau (dk a power of 2): chunk 0 permuted */
    qd->qc = _mm256_permutevar8x32_ps(
        qd->q4[0], _mm256_and_si256(lane8, _mm256_set1_epi32((int)dk - 1)));
  } else {
    qd->qc = _mm256_setzero_ps();
  }
  {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    qd->mlast8 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(dk % 8)), lane);
  }
}

/* The contiguous path's value part (HS_BLOCKS_DK, f32-attn-row-2pass-rr2-p5-impl.h);
 * AVX-512 takes those shapes by its lane path instead. */
/* sum_{j<nb} e[j] v[j] with block_values_t's bits at dv = 1: there lane
 * 0 of accumulator a_r chains the keys r mod 8 of the whole groups of 8,
 * and a_0 then the rest one key at a time; a8 below holds chain r in lane
 * r, folded as block_values_t folds, ((c0 + c1) + (c2 + c3)) + ((c4 + c5)
 * + (c6 + c7)). */
HS_ALWAYS_INLINE float block_value1(size_t nb, const float *e, const float *v) {
  __m256 a8 = _mm256_setzero_ps();
  const size_t nf = nb / 8 * 8;
  size_t j = 0;
  for (; j < nf; j += 8)
    a8 = _mm256_fmadd_ps(_mm256_load_ps(e + j), _mm256_loadu_ps(v + j), a8);
  float c0 = _mm256_cvtss_f32(a8);
  for (; j < nb; j++) c0 = fmaf(e[j], v[j], c0);
  a8 = _mm256_blend_ps(a8, _mm256_set1_ps(c0), 0x01);
  /* lanes (0, 1) (2, 3) .., then pairs of those, then the halves */
  __m256 y = _mm256_add_ps(a8, _mm256_permute_ps(a8, 0xB1));
  y = _mm256_add_ps(y, _mm256_permute_ps(y, 0x4E));
  return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(y), _mm256_extractf128_ps(y, 1)));
}

HS_ALWAYS_INLINE void block_values_dv(size_t nb, const float *e, const float *v,
                            size_t ldv, size_t dv, float *run) {
  block_values(nb, e, v, ldv, dv, vmask_first(dv % 8), run);
}

#endif
