/* SPDX-License-Identifier: MIT */
/* The online-softmax row state and block step of attn-f32-online-vec.h,
 * AVX2 + FMA (internal): the vocabulary, the score and value blocks, and
 * the hooks that header asks for. Include after defining BLK and after
 * attn-f32-exp.h and ukernels.h. */
#ifndef HS_ATTN_F32_ONLINE_AVX2_H
#define HS_ATTN_F32_ONLINE_AVX2_H

#include "vec-f32-avx2.h"
#include "attn-f32-blocks-avx2.h"

#define ONLINE_POISON_SETS_SUM 1

HS_ALWAYS_INLINE void online_values(size_t nb, const float *e, const float *v,
                          size_t ldv, size_t dv, float *run) {
  block_values(nb, e, v, ldv, dv, vmask_first(dv % 8), run);
}

/* the tile's shared blocks (attn-f32-tile-run.h): contiguous keys of
 * width 1, 2 or 4, 8 keys per step */
#define ONLINE_DOTS_CONTIG_KX dots8_contig_kx
#define ONLINE_TILE_DK_MAX 4

#include "attn-f32-online-vec.h"

#endif
