/* SPDX-License-Identifier: MIT */
/* f32 attention tile, AVX2+FMA: 4 queries x 8 keys per step, online
 * softmax, rr2-p5 exp.
 *
 * Bits: every query gets exactly those of the AVX2 row kernel
 * (f32-attn-row-avx2-online-rr2-p5.c) over its own keys, so the error
 * bound, the special values (-inf, +inf, NaN scores, fully masked rows)
 * and the thread and skip bit-identities are that kernel's. Both walk a
 * query's keys in blocks of 512 from key 0 and fold each block with the
 * same code (attn-f32-online-vec.h); a score is the same instructions
 * on the same operands whichever loop computes it.
 *
 * Work: the queries of a tile share their first key (end = 0, the past
 * masks) or their last (end = 1, the future masks: a query's first
 * hs_attn_end_head(n) keys are then folded as a row call of their own,
 * so that its later blocks end at the shared last key), so
 * every block of 512 keys that lies wholly inside all 4 queries' ranges
 * is scored for the 4 at once: one step loads 8 keys (dk contiguous
 * vectors, dk in {1, 2, 4}) once and scores them against the 4 queries,
 * each query keeping its own block max in a register. Each query then
 * folds the block into its own running max, sum and accumulator. The
 * rest of each range (its ragged last block, or with end its head and
 * the blocks before the shared ones) is the row kernel's loop.
 * Other shapes (dk 3 or > 4, strided keys) take the row kernel's loop for
 * every block; a tail of fewer than 4 queries too. No buffer grows with
 * n: 4 score blocks and one weight block of 512 floats on the stack. */
#include <immintrin.h>
#include <math.h>
#include <stddef.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-online-avx2.h"
#include "attn-f32-tile-run.h"

HS_DEFINE_F32_ATTN_TILE_ONLINE(
    hs_f32_attn_tile_ukernel__avx2_4x8_online_rr2_p5,
    hs_f32_attn_tile_bias_ukernel__avx2_4x8_online_rr2_p5)
