/* SPDX-License-Identifier: MIT */
/* f32 fused attention row over a list of key segments, two passes, rr2-p5
 * exp, AVX-512F. The score and value blocks are those of the online
 * AVX-512 kernel (attn-f32-blocks-avx512f.h: contiguous dk in {1, 2, 4, 8}
 * by plain loads and pairsums, otherwise 4-float chunks of four keys per
 * register; two keys per register for dv <= 8), in blocks of 64 keys. The
 * algorithm, its error bound and its skipping argument are in
 * f32-attn-row-2pass-rr2-p5-impl.h. */
#include <math.h>
#include <string.h>

#include "vec-f32-avx512f.h"
#include "f32-exp-rr2-p5-vec.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f32-blocks-avx512f.h"
#include "f32-attn-row-2pass-rr2-p5-impl.h"

HS_DEFINE_F32_ATTN_ROW_2PASS(hs_f32_attn_row_2pass_ukernel__avx512f_rr2_p5,
                             hs_f32_attn_row_2pass_bias_ukernel__avx512f_rr2_p5)
HS_DEFINE_F32_ATTN_ROWS_2PASS(hs_f32_attn_rows_2pass_ukernel__avx512f_rr2_p5,
                              hs_f32_attn_row_2pass_ukernel__avx512f_rr2_p5,
                              hs_f32_attn_row_2pass_bias_ukernel__avx512f_rr2_p5)
