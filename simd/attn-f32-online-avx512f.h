/* SPDX-License-Identifier: MIT */
/* The online-softmax row state and block step of attn-f32-online-vec.h,
 * AVX-512F (internal): the vocabulary, the score and value blocks, and
 * the hooks that header asks for. Include after defining BLK and after
 * attn-f32-exp.h and ukernels.h. */
#ifndef HS_ATTN_F32_ONLINE_AVX512F_H
#define HS_ATTN_F32_ONLINE_AVX512F_H

#include "vec-f32-avx512f.h"
#include "attn-f32-blocks-avx512f.h"

#define ONLINE_POISON_SETS_SUM 0

/* dv <= 8: two keys per register; wider: 16 columns per register */
HS_ALWAYS_INLINE void online_values(size_t nb, const float *e, const float *v,
                          size_t ldv, size_t dv, float *run) {
  const __m256i m8 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(dv % 8)),
                                        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  if (dv == 8) values_small_t(nb, e, v, ldv, m8, 1, run);
  else if (dv < 8) {
    if (dv > 0) values_small_t(nb, e, v, ldv, m8, 0, run);
  } else values_wide(nb, e, v, ldv, dv, run);
}

/* the tile's shared blocks (attn-f32-tile-run.h): contiguous keys of
 * width 1, 2, 4 or 8, 16 keys per step */
#define ONLINE_DOTS_CONTIG_KX dots16_contig_kx
#define ONLINE_TILE_DK_MAX 8

#include "attn-f32-online-vec.h"

#endif
