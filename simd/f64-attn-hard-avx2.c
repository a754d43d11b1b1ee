/* SPDX-License-Identifier: MIT */
/* f64 hard attention row (unique-hard leftmost / rightmost, average-hard),
 * AVX2+FMA: 4 keys per register. Keys stored contiguously with dk in
 * {1, 2} (the compiled since/until heads) are scored by plain loads: dk = 1
 * one multiply per 4 keys, dk = 2 two multiplies and one pairwise add;
 * other shapes by the f64 online row kernel's 256-bit blocks
 * (attn-f64-blocks-avx2.h, inv_tau = 1). No exp; the block logic is
 * attn-f64-hard-run.h.
 * Scores: |s_j - s*_j| <= (ceil(dk/4) + 3) u sum_c |q_c k_jc| (u = 2^-53),
 * exact when every product and partial sum is representable. The choice
 * (max, ties, pick, second best) is exact for the scores computed, and
 * the same as the scalar kernel's for the same scores; the average adds
 * the tied values in key order. */
#include <immintrin.h>
#include <math.h>

#include "vec-f64-avx2.h"
#include "f64-attn-values-vec.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f64-blocks-avx2.h"

#define HB_CONTIG_DKS(X) X(1) X(2)
#define HB_SCORES_CONTIG block_scores_contig256
#define HB_KERNEL hs_f64_attn_hard_ukernel__avx2
#include "attn-f64-hard-run.h"
