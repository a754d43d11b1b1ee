/* SPDX-License-Identifier: MIT */
/* f64 fused attention row over a list of key segments, NEON, two passes,
 * rr2-p11 exp: the algorithm, its error bound, skipping and special
 * values are in f64-attn-row-2pass-rr2-p11-impl.h, 2 keys per register.
 * Contiguous keys of dk 1, 2 are scored by plain loads, others by one FMA
 * chain per key over 4-double chunks (attn-f64-blocks-vec.h); values not
 * lane-wise take 8 accumulators (32 registers). No lane path: several
 * rows go one by one through the one-row kernel. */
#include <math.h>

#include "vec-f64-neon.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f64-blocks-vec.h"

#define TWOPASS_CONTIG_DKS(X) X(1) X(2)
#define TWOPASS_SCORES_CONTIG block_scores_contig_vec
#define TWOPASS_VALUE_ACCS 8
#include "f64-attn-row-2pass-rr2-p11-impl.h"

HS_DEFINE_F64_ATTN_ROW_2PASS(hs_f64_attn_row_2pass_ukernel__neon_rr2_p11,
                             hs_f64_attn_rows_2pass_ukernel__neon_rr2_p11)
