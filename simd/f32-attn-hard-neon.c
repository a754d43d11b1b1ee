/* SPDX-License-Identifier: MIT */
/* f32 hard attention row (unique-hard leftmost / rightmost, average-hard),
 * AArch64 NEON: the vocabulary-only score blocks (attn-f32-blocks-vec.h),
 * no exp; the algorithm is attn-f32-hard-run.h, written over the vector
 * vocabulary. */
#include <math.h>
#include <string.h>

#include "vec-f32-neon.h"

#define BLK 512
#include "attn-f32-blocks-vec.h"
#include "attn-f32-hard-run.h"

HS_DEFINE_F32_ATTN_HARD(hs_f32_attn_hard_ukernel__neon)
