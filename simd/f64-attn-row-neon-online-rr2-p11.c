/* SPDX-License-Identifier: MIT */
/* f64 fused attention row, NEON, online softmax, rr2-p11 exp
 * (f64-exp-rr2-p11.h): the algorithm, its error bound and special values
 * are in f64-attn-row-online-rr2-p11-impl.h, 2 keys per register, blocks
 * of 128 keys. Contiguous keys of dk 1, 2 are scored by plain loads,
 * others by one FMA chain per key over 4-double chunks
 * (attn-f64-blocks-vec.h: the AVX2 scores' bits). */
#include <math.h>

#include "vec-f64-neon.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 128
#include "attn-f64-blocks-vec.h"

#define ONLINE_EXP(x) hs_f64_vexp(x)
#define ONLINE_SCORES_CONTIG(nb, k, qc, DK, sb) block_scores_contig_vec(nb, k, qc, DK, sb)
#include "f64-attn-row-online-rr2-p11-impl.h"

HS_DEFINE_F64_ATTN_ROW_ONLINE(hs_f64_attn_row_ukernel__neon_online_rr2_p11)
