/* SPDX-License-Identifier: MIT */
/* block_scores_dk, over the vocabulary and the parts an ISA's
 * attn-f32-blocks-<isa>.h defines with HS_BLOCKS_DK (block_scores_t, its
 * block loop with the key layout as template arguments, and pos_iota, the
 * key positions p0, p0 + 1, ..): block_scores (block_scores_bias when
 * bias) for contiguous keys, ldk == dk == DK in {1, 2, 4}, without the
 * general dispatch. Used by the two-pass and the hard row. */
#ifndef HS_ATTN_F32_BLOCKS_DK_H
#define HS_ATTN_F32_BLOCKS_DK_H

#ifdef HS_BLOCKS_DK
static inline __attribute__((always_inline)) vf block_scores_dk(
    size_t nb, const float *k, const qdesc *qd, float *sb, int DK, int bias,
    float slope, int64_t p0) {
  return block_scores_t(nb, k, (size_t)DK, qd, sb, 1, DK == 4, DK, bias,
                        vf_set1(slope), pos_iota(p0));
}
#endif

#endif
