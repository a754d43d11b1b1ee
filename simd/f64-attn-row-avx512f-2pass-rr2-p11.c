/* SPDX-License-Identifier: MIT */
/* f64 fused attention row over a list of key segments, AVX-512F, two
 * passes, rr2-p11 exp: the algorithm, its error bound, skipping and
 * special values are in f64-attn-row-2pass-rr2-p11-impl.h, 8 keys per
 * register. Contiguous keys of dk 1, 2, 4, 8 are scored 8 keys per
 * 512-bit step (block_scores_contig), others 4 keys per 256-bit register
 * as on AVX2 (block_scores); values not lane-wise take 8 accumulators.
 * The lane path takes contiguous dk 1, 2, 4, 8, 8 keys a group scored by
 * block_scores_contig's arithmetic (group_scores_contig). */
#include <immintrin.h>
#include <math.h>

#include "vec-f64-avx512f.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f64-blocks-avx2.h"
#include "attn-f64-blocks-avx512f.h"

#define TWOPASS_CONTIG_DKS(X) X(1) X(2) X(4) X(8)
#define TWOPASS_SCORES_CONTIG block_scores_contig_max
#define TWOPASS_VALUE_ACCS 8

/* the lane path (f64-attn-rows-2pass-rr2-p11-impl.h) */
#define HS_F64_LANES
#define HS_F64_LANE_DKS(X) X(1) X(2) X(4) X(8)
HS_ALWAYS_INLINE vd group_scores_dk(
    const double *k, size_t g, unsigned lo, unsigned hi, vd qc, int DK) {
  return group_scores_contig(k, g, lo, hi, qc, DK);
}
static inline vd group_values1(const double *v, size_t g, unsigned lo, unsigned hi) {
  return _mm512_maskz_loadu_pd(hs_f64_lanes(lo, hi), v + g);
}
#include "f64-attn-row-2pass-rr2-p11-impl.h"

HS_DEFINE_F64_ATTN_ROW_2PASS(hs_f64_attn_row_2pass_ukernel__avx512f_rr2_p11,
                             hs_f64_attn_rows_2pass_ukernel__avx512f_rr2_p11)
