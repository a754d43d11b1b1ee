/* SPDX-License-Identifier: MIT */
/* f32 fused attention row, online softmax, rr2-p5 exp, AArch64 NEON:
 * f32-attn-row-online-rr2-p5-impl.h with the vocabulary-only score and
 * value blocks (attn-f32-blocks-vec.h), in blocks of 64 keys; the
 * algorithm and its error bound are in the impl header. */
#include "vec-f32-neon.h"
#include "f32-exp-rr2-p5-vec.h"

#define BLK 64
#include "attn-f32-blocks-vec.h"
#include "f32-attn-row-online-rr2-p5-impl.h"

HS_DEFINE_F32_ATTN_ROW_ONLINE(hs_f32_attn_row_ukernel__neon_online_rr2_p5,
                              hs_f32_attn_row_bias_ukernel__neon_online_rr2_p5)
