/* SPDX-License-Identifier: MIT */
/* f32 attention tile, AArch64 NEON: each query of the tile is one call of
 * the NEON online row kernel (f32-attn-row-neon-online-rr2-p5.c), so its
 * bits, error bound and special values are that kernel's;
 * f32-attn-tile-rows.h. */
#include "f32-attn-tile-rows.h"

HS_DEFINE_F32_ATTN_TILE_ROWS(hs_f32_attn_tile_ukernel__neon_online_rr2_p5,
                             hs_f32_attn_tile_bias_ukernel__neon_online_rr2_p5,
                             hs_f32_attn_row_ukernel__neon_online_rr2_p5,
                             hs_f32_attn_row_bias_ukernel__neon_online_rr2_p5)
