/* SPDX-License-Identifier: MIT */
/* f64 hard attention row (unique-hard leftmost / rightmost, average-hard),
 * AVX-512F: the scores of the f64 online row kernel at inv_tau = 1 (keys
 * stored contiguously with dk in {1, 2, 4, 8}: 8 keys per 512-bit step,
 * attn-f64-blocks-avx512f.h; other shapes 4 keys per 256-bit register,
 * attn-f64-blocks-avx2.h), no exp; the block logic is attn-f64-hard-run.h.
 * Scores: |s_j - s*_j| <= (ceil(dk/4) + 3) u sum_c |q_c k_jc| (u = 2^-53;
 * 4-double FMA chunks and a 2-level reduction; contiguous: dk products and
 * log2(dk) adds), exact when every product and partial sum is
 * representable. The choice (max, ties, pick, second best) is exact for
 * the scores computed, and the same as the scalar kernel's for the same
 * scores; the average adds the tied values in key order. */
#include <immintrin.h>
#include <math.h>

#include "vec-f64-avx512f.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f64-blocks-avx2.h"
#include "attn-f64-blocks-avx512f.h"

typedef struct {
  hs_f64_q4 q4;   /* the general scores' q */
  __m512d qc;     /* contiguous dk in {1, 2, 4, 8}: lane i = q[i mod dk] */
  int DK;
} hb_q;

static void hb_q_init(hb_q *o, const double *q, size_t dk, size_t ldk) {
  hs_f64_q4_init(&o->q4, q, dk, 1.0);
  o->DK = ldk == dk && (dk == 1 || dk == 2 || dk == 4 || dk == 8) ? (int)dk : 0;
  o->qc = _mm512_setzero_pd();
  if (o->DK) {
    double t[8];
    for (int i = 0; i < 8; i++) t[i] = q[i % o->DK];
    o->qc = _mm512_loadu_pd(t);
  }
}

static double hb_block(const hb_q *o, size_t nb, const double *k, size_t ldk,
                       double *sb) {
  int nan = 0; /* not needed: NaN is never maximal and fails every compare */
  if (o->DK == 1) return block_scores_contig(nb, k, o->qc, 1, sb, &nan);
  if (o->DK == 2) return block_scores_contig(nb, k, o->qc, 2, sb, &nan);
  if (o->DK == 4) return block_scores_contig(nb, k, o->qc, 4, sb, &nan);
  if (o->DK == 8) return block_scores_contig(nb, k, o->qc, 8, sb, &nan);
  return block_scores(nb, k, ldk, o->q4.qv, o->q4.nc, o->q4.mk, o->q4.full, sb);
}

#define HB_KERNEL hs_f64_attn_hard_ukernel__avx512f
#include "attn-f64-hard-run.h"
