/* SPDX-License-Identifier: MIT */
/* f32 fused attention row over a list of key segments, two passes, rr2-p5
 * exp, AArch64 NEON: f32-attn-row-2pass-rr2-p5-impl.h with the
 * vocabulary-only score and value blocks (attn-f32-blocks-vec.h), in
 * blocks of 64 keys. The algorithm, its error bound and its skipping
 * argument are in the impl header. */
#include <math.h>
#include <string.h>

#include "vec-f32-neon.h"
#include "f32-exp-rr2-p5-vec.h"

#define BLK 64
#include "attn-f32-blocks-vec.h"
#include "f32-attn-row-2pass-rr2-p5-impl.h"

HS_DEFINE_F32_ATTN_ROW_2PASS(hs_f32_attn_row_2pass_ukernel__neon_rr2_p5,
                             hs_f32_attn_row_2pass_bias_ukernel__neon_rr2_p5)
HS_DEFINE_F32_ATTN_ROWS_2PASS(hs_f32_attn_rows_2pass_ukernel__neon_rr2_p5,
                              hs_f32_attn_row_2pass_ukernel__neon_rr2_p5,
                              hs_f32_attn_row_2pass_bias_ukernel__neon_rr2_p5)
