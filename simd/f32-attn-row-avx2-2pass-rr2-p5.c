/* SPDX-License-Identifier: MIT */
/* f32 fused attention row over a list of key segments, two passes, rr2-p5
 * exp, AVX2 + FMA. The score and value blocks are those of the online AVX2
 * kernel (attn-f32-blocks-avx2.h: contiguous dk in {1, 2, 4} by plain loads,
 * contiguous dk = 8 by whole rows, otherwise paired 4/8-float chunks;
 * contiguous dv in {2, 4, 8} by permuted weights, otherwise 8 accumulators
 * for the values), in blocks of 64 keys. The
 * algorithm, its error bound and its skipping argument are in
 * f32-attn-row-2pass-rr2-p5-impl.h. */
#include <math.h>
#include <string.h>

#include "vec-f32-avx2.h"
#include "f32-exp-rr2-p5-vec.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f32-blocks-avx2.h"
#include "f32-attn-row-2pass-rr2-p5-impl.h"

HS_DEFINE_F32_ATTN_ROW_2PASS(hs_f32_attn_row_2pass_ukernel__avx2_rr2_p5,
                             hs_f32_attn_row_2pass_bias_ukernel__avx2_rr2_p5)
HS_DEFINE_F32_ATTN_ROWS_2PASS(hs_f32_attn_rows_2pass_ukernel__avx2_rr2_p5,
                              hs_f32_attn_row_2pass_ukernel__avx2_rr2_p5,
                              hs_f32_attn_row_2pass_bias_ukernel__avx2_rr2_p5)
