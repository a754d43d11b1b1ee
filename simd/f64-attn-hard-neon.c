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

#define HB_CONTIG_DKS(X) X(1) X(2)
#define HB_SCORES_CONTIG block_scores_contig_vec
#define HB_KERNEL hs_f64_attn_hard_ukernel__neon
#include "attn-f64-hard-run.h"
