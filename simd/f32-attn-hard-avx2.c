/* SPDX-License-Identifier: MIT */
/* f32 hard attention row (unique-hard leftmost / rightmost, average-hard),
 * AVX2+FMA: the scores of the attention-row kernels
 * (attn-f32-blocks-avx2.h, 8 keys per step), no exp; the algorithm is
 * attn-f32-hard-run.h, written over the vector vocabulary. */
#include <math.h>
#include <string.h>

#include "vec-f32-avx2.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-blocks-avx2.h"
#include "attn-f32-hard-run.h"

HS_DEFINE_F32_ATTN_HARD(hs_f32_attn_hard_ukernel__avx2)
