/* SPDX-License-Identifier: MIT */
/* f64 hard attention row (unique-hard leftmost / rightmost, average-hard),
 * NEON: 2 keys per register. Keys stored contiguously with dk in {1, 2}
 * are scored by plain loads, other shapes by one FMA chain per key over
 * 4-double chunks (attn-f64-blocks-vec.h, the AVX2 scores' bits); no exp;
 * the block logic is attn-f64-hard-run.h.
 * Scores: |s_j - s*_j| <= (ceil(dk/4) + 3) u sum_c |q_c k_jc| (u = 2^-53),
 * exact when every product and partial sum is representable. The choice
 * (max, ties, pick, second best) is exact for the scores computed, and
 * the same as the scalar kernel's for the same scores; the average adds
 * the tied values in key order. */
#include <math.h>

#include "vec-f64-neon.h"
#include "f64-attn-values-vec.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f64-blocks-vec.h"

typedef struct {
  hs_f64_q4 q4; /* the general scores' q */
  vd qc;        /* contiguous dk in {1, 2}: lane i = q[i mod dk] */
  int DK;
} hb_q;

static void hb_q_init(hb_q *o, const double *q, size_t dk, size_t ldk) {
  hs_f64_q4_init(&o->q4, q, dk, 1.0);
  o->DK = ldk == dk && (dk == 1 || dk == 2) ? (int)dk : 0;
  o->qc = o->DK ? hs_f64_qc(q, o->DK, 1.0) : vd_zero();
}

static double hb_block(const hb_q *o, size_t nb, const double *k, size_t ldk,
                       double *sb) {
  if (o->DK == 1) return block_scores_contig_vec(nb, k, o->qc, 1, sb);
  if (o->DK == 2) return block_scores_contig_vec(nb, k, o->qc, 2, sb);
  return block_scores(nb, k, ldk, o->q4.qv, o->q4.nc, o->q4.mk, o->q4.full, sb);
}

#define HB_KERNEL hs_f64_attn_hard_ukernel__neon
#include "attn-f64-hard-run.h"
