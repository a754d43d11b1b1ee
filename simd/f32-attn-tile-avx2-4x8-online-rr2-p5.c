/* SPDX-License-Identifier: MIT */
/* f32 attention tile, AVX2+FMA: 4 queries x 8 keys per step, online
 * softmax, rr2-p5 exp.
 *
 * Bits: every query gets exactly those of the AVX2 row kernel
 * (f32-attn-row-avx2-online-rr2-p5.c) over its own keys, so the error
 * bound, the special values (-inf, +inf, NaN scores, fully masked rows)
 * and the thread and skip bit-identities are that kernel's. Both walk a
 * query's keys in blocks of 512 from key 0 and fold each block with the
 * same code (attn-f32-online-avx2.h); a score is the same instructions
 * on the same operands whichever loop computes it.
 *
 * Work: the queries of a tile share their first key (end = 0, the past
 * masks) or their last (end = 1, the future masks: a query's first
 * hs_attn_end_head(n) keys are then folded as a row call of their own,
 * so that its later blocks end at the shared last key), so
 * every block of 512 keys that lies wholly inside all 4 queries' ranges
 * is scored for the 4 at once: one step loads 8 keys (dk contiguous
 * vectors, dk in {1, 2, 4}) once and scores them against the 4 queries,
 * each query keeping its own block max in a register. Each query then
 * folds the block into its own running max, sum and accumulator. The
 * rest of each range (its ragged last block, or with end its head and
 * the blocks before the shared ones) is the row kernel's loop.
 * Other shapes (dk 3 or > 4, strided keys) take the row kernel's loop for
 * every block; a tail of fewer than 4 queries too. No buffer grows with
 * n: 4 score blocks and one weight block of 512 floats on the stack. */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-blocks-avx2.h"

#include "attn-f32-online-avx2.h"

#define TQ 4
#define BLK_MAX(v) vf_hmax(v)
#define TILE_CONTIG(dk) ((dk) == 1 || (dk) == 2 || (dk) == 4)

/* Scores of 4 queries against one whole block of BLK contiguous keys
 * (dk == DK in {1, 2, 4}) into sb[r]; their block maxima into bm[r]. The
 * same per-query sequence as block_scores_t: group by group,
 * vmax = max(s, vmax) from -inf, then vf_hmax. */
ALWAYS void tile_scores_t(const float *k, const orow *o, float (*sb)[BLK],
                          float *bm, int DK, size_t j0, int BIAS) {
  /* BIAS: query r's key j0 + g + lane at o[r].p0 + j0 + g + lane */
  __m256i p0 = _mm256_setzero_si256(), p1 = p0, p2 = p0, p3 = p0;
  __m256 vs[4];
  if (BIAS) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#define POS(r) _mm256_add_epi32(_mm256_set1_epi32((int32_t)(o[r].p0 + (int64_t)j0)), lane)
    p0 = POS(0), p1 = POS(1), p2 = POS(2), p3 = POS(3);
#undef POS
    for (int r = 0; r < 4; r++) vs[r] = _mm256_set1_ps(o[r].slope);
  }
  const __m256 q0 = o[0].qd.qc, q1 = o[1].qd.qc, q2 = o[2].qd.qc,
               q3 = o[3].qd.qc;
  __m256 m0 = _mm256_set1_ps(-INFINITY), m1 = m0, m2 = m0, m3 = m0;
  for (size_t g = 0; g < BLK; g += 8) {
    __m256 kx[4];
    const float *kg = k + g * DK;
    kx[0] = _mm256_loadu_ps(kg);
    if (DK >= 2) kx[1] = _mm256_loadu_ps(kg + 8);
    if (DK >= 4) kx[2] = _mm256_loadu_ps(kg + 2 * 8), kx[3] = _mm256_loadu_ps(kg + 3 * 8);
    __m256 s0 = dots8_contig_kx(kx, q0, DK);
    __m256 s1 = dots8_contig_kx(kx, q1, DK);
    __m256 s2 = dots8_contig_kx(kx, q2, DK);
    __m256 s3 = dots8_contig_kx(kx, q3, DK);
    if (BIAS) { /* as block_scores_bias: one FMA per score */
      const __m256i step = _mm256_set1_epi32(8);
      s0 = _mm256_fmadd_ps(vs[0], _mm256_cvtepi32_ps(p0), s0);
      s1 = _mm256_fmadd_ps(vs[1], _mm256_cvtepi32_ps(p1), s1);
      s2 = _mm256_fmadd_ps(vs[2], _mm256_cvtepi32_ps(p2), s2);
      s3 = _mm256_fmadd_ps(vs[3], _mm256_cvtepi32_ps(p3), s3);
      p0 = _mm256_add_epi32(p0, step), p1 = _mm256_add_epi32(p1, step);
      p2 = _mm256_add_epi32(p2, step), p3 = _mm256_add_epi32(p3, step);
    }
    _mm256_store_ps(sb[0] + g, s0);
    _mm256_store_ps(sb[1] + g, s1);
    _mm256_store_ps(sb[2] + g, s2);
    _mm256_store_ps(sb[3] + g, s3);
    m0 = _mm256_max_ps(s0, m0); /* NaN in s is skipped */
    m1 = _mm256_max_ps(s1, m1);
    m2 = _mm256_max_ps(s2, m2);
    m3 = _mm256_max_ps(s3, m3);
  }
  bm[0] = vf_hmax(m0);
  bm[1] = vf_hmax(m1);
  bm[2] = vf_hmax(m2);
  bm[3] = vf_hmax(m3);
}

/* dk (TILE_CONTIG) as the compile-time width of tile_scores_t */
ALWAYS void tile_scores(const float *kb, const orow *o, float (*sb)[BLK],
                        float *bm, size_t dk, size_t j0, int bias) {
  if (dk == 1) tile_scores_t(kb, o, sb, bm, 1, j0, bias);
  else if (dk == 2) tile_scores_t(kb, o, sb, bm, 2, j0, bias);
  else tile_scores_t(kb, o, sb, bm, 4, j0, bias);
}

#include "attn-f32-tile-run.h"

void hs_f32_attn_tile_ukernel__avx2_4x8_online_rr2_p5(
    size_t nq, const size_t *n, size_t dk, size_t dv, const float *q,
    size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
    float inv_tau, hs_f32_online *st, float *acc, size_t ldacc, int end) {
  tile_run(nq, n, dk, dv, q, ldq, k, ldk, v, ldv, inv_tau, 0, NULL, st, acc,
           ldacc, end);
}

/* The relative-bias variant (hs_f32_attn_tile_bias_fn): the same driver,
 * each query's blocks biased as the bias row kernel biases them. */
void hs_f32_attn_tile_bias_ukernel__avx2_4x8_online_rr2_p5(
    size_t nq, const size_t *n, size_t dk, size_t dv, const float *q,
    size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
    float inv_tau, float slope, const int64_t *d0, hs_f32_online *st,
    float *acc, size_t ldacc, int end) {
  tile_run(nq, n, dk, dv, q, ldq, k, ldk, v, ldv, inv_tau, slope, d0, st, acc,
           ldacc, end);
}
