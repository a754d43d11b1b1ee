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
#include "f64-attn-values-vec.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f64-blocks-avx2.h"
#include "attn-f64-blocks-avx512f.h"

#define HB_CONTIG_DKS(X) X(1) X(2) X(4) X(8)
#define HB_SCORES_CONTIG block_scores_contig_max
#define HB_KERNEL hs_f64_attn_hard_ukernel__avx512f
#include "attn-f64-hard-run.h"
