/* SPDX-License-Identifier: MIT */
/* The score and value blocks of the f32 attention-row kernels (online,
 * two-pass, hard, tile), written once over the vector vocabulary for the
 * ISAs whose dot products are register-blocked (internal): the block loop,
 * the relative bias, the -inf tail lanes, the running max, the dispatch on
 * the key layout, and the column blocks of the values. Included by
 * attn-f32-blocks-<isa>.h after it has defined qdesc, qd_init and the
 * hooks below, the shuffle networks that make one vector of per-key
 * scores out of partial dot products:
 *   vf blk_dots(k, ldk, cnt, qd, nc4, full_last): the scores of keys
 *     0 .. VF_LANES-1 at k (stride ldk; rows >= cnt repeat row cnt-1, so
 *     nothing past the last key is read); nc4 chunks of q, the last one
 *     whole when full_last;
 *   vf blk_dots_kx(kx, qc, DK): the scores of VF_LANES contiguous keys of
 *     width DK (ldk == DK, DK in {1, 2, 4}, 8 unless BLK_DOTS_K8) from
 *     kx[i] = their floats VF_LANES i .. (qc: qd's q * inv_tau repeated
 *     with period DK), with blk_dots's bits;
 *   BLK_DOTS_K8: 1 when DK == 8 takes blk_dots_k8(k, k8) instead, with
 *     blk_k8 k8 = blk_k8_init(qd, DK) made once per block (q not read
 *     unless DK == 8);
 *   vf blk_dots_contig_tail(k, cnt, qd, DK): the first cnt < VF_LANES of
 *     those keys (DK <= 4), with blk_dots's bits, reading nothing past
 *     them; lanes >= cnt unspecified (its masked loads stay beside its
 *     network: written once here they changed the code of the AVX-512
 *     hard row and of every two-pass row, whose skipping path runs a tail
 *     per segment);
 *   int blk_full_last(dk, nc4): whether blk_dots's last chunk is whole
 *     (its chunks may be wider than 4 floats when nc4 > 1);
 *   BLK_VACC: accumulators of block_values_t (8 or 4, key j mod BLK_VACC).
 *
 * Scores: q * inv_tau (qd_init) against each key in chunks of 4 floats,
 * four partial sums per key, one per lane of a chunk, then added as
 * (p0 + p2) + (p1 + p3) by the shuffle network: per product ceil(dk/4)
 * roundings in the chunks (a multiply, then FMAs), 2 in the tree and 1 in
 * q * inv_tau (inv_tau folded into q: no multiply per score), within
 * |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc inv_tau| (u = 2^-24), the
 * bound the online and two-pass kernels state; the contiguous paths add
 * the same products in the same order (their +0 lanes change no sum but
 * the sign of a zero, see dots8_contig_tail). The relative bias is one
 * rounding more (its FMA). */
#ifndef HS_ATTN_F32_BLOCKS_RUN_H
#define HS_ATTN_F32_BLOCKS_RUN_H

#include <math.h>
#include <stdint.h>

/* VF_LANES contiguous keys of width DK from memory: the DK vectors of
 * their floats by plain loads, then blk_dots_kx. The loads written out:
 * a loop over DK is not always unrolled, and kx would then live on the
 * stack (measured: 7x slower rows at dk = 4 on AVX2). */
HS_ALWAYS_INLINE vf blk_dots_contig(const float *k, vf qc, int DK) {
  vf kx[8];
  kx[0] = vf_loadu(k);
  if (DK >= 2) kx[1] = vf_loadu(k + VF_LANES);
  if (DK >= 4) kx[2] = vf_loadu(k + 2 * VF_LANES), kx[3] = vf_loadu(k + 3 * VF_LANES);
  if (DK >= 8)
    for (int i = 4; i < 8; i++) kx[i] = vf_loadu(k + VF_LANES * i);
  return blk_dots_kx(kx, qc, DK);
}

/* Scores of nb <= BLK keys into sb (lanes of the last group past nb:
 * -inf); returns the lane-wise max. DK > 0: keys contiguous with dk ==
 * DK, whole groups of VF_LANES take blk_dots_contig (blk_dots_k8), the tail group
 * blk_dots_contig_tail (DK <= 4) or the general blk_dots (as DK == 0
 * does throughout). */
HS_ALWAYS_INLINE vf block_scores_t(size_t nb, const float *k, size_t ldk, const qdesc *qd,
                         float *sb, size_t nc4, int full_last, int DK, int BIAS,
                         vf vslope, vi pos) {
  vf vmax = vf_set1(-INFINITY);
#if BLK_DOTS_K8
  /* made only for DK == 8: q read ahead of the general loop (DK == 0)
   * stayed in a register there and slowed dk = 16 scores on AVX2 by 15%
   * (measured) */
  const blk_k8 k8 = blk_k8_init(qd, DK);
#endif
  size_t g = 0;
  for (; g + VF_LANES <= nb; g += VF_LANES) {
    vf s;
#if BLK_DOTS_K8
    if (DK == 8) s = blk_dots_k8(k + g * 8, k8); else
#endif
    s = DK ? blk_dots_contig(k + g * DK, qd->qc, DK)
           : blk_dots(k + g * ldk, ldk, VF_LANES, qd, nc4, full_last);
    if (BIAS) { /* the relative bias, one FMA: see block_scores_bias */
      s = vf_fma(vslope, vf_from_vi(pos), s);
      pos = vi_add(pos, vi_set1(VF_LANES));
    }
    vf_storeu(sb + g, s);
    vmax = vf_max(s, vmax); /* NaN in s is skipped */
  }
  if (g < nb) {
    size_t cnt = nb - g;
    vf s = DK && DK <= 4 ? blk_dots_contig_tail(k + g * DK, cnt, qd, DK)
                         : blk_dots(k + g * ldk, ldk, cnt, qd, nc4, full_last);
    if (BIAS) s = vf_fma(vslope, vf_from_vi(pos), s);
    /* lanes >= cnt: -inf, weight 0 */
    s = vf_select(vmask_first(cnt), s, vf_set1(-INFINITY));
    vf_storeu(sb + g, s);
    vmax = vf_max(s, vmax);
  }
  /* lanes past the last group are never read: the callers' loops stop
   * at nb rounded up to the group */
  return vmax;
}

HS_ALWAYS_INLINE vf block_scores_any(size_t nb, const float *k, size_t ldk, const qdesc *qd,
                           float *sb, size_t dk, int BIAS, vf vs, vi pos) {
  const int full = blk_full_last(dk, qd->nc4);
  if (ldk == dk) {
    /* contiguous keys, the common small heads */
    if (dk == 1) return block_scores_t(nb, k, ldk, qd, sb, 1, 0, 1, BIAS, vs, pos);
    if (dk == 2) return block_scores_t(nb, k, ldk, qd, sb, 1, 0, 2, BIAS, vs, pos);
    if (dk == 4) return block_scores_t(nb, k, ldk, qd, sb, 1, 1, 4, BIAS, vs, pos);
    if (dk == 8) return block_scores_t(nb, k, ldk, qd, sb, 2, 1, 8, BIAS, vs, pos);
  }
  /* the chunk count as a constant where it is small */
  switch (qd->nc4) {
    case 1:
      return full ? block_scores_t(nb, k, ldk, qd, sb, 1, 1, 0, BIAS, vs, pos)
                  : block_scores_t(nb, k, ldk, qd, sb, 1, 0, 0, BIAS, vs, pos);
    case 2:
      return full ? block_scores_t(nb, k, ldk, qd, sb, 2, 1, 0, BIAS, vs, pos)
                  : block_scores_t(nb, k, ldk, qd, sb, 2, 0, 0, BIAS, vs, pos);
    default:
      return full ? block_scores_t(nb, k, ldk, qd, sb, qd->nc4, 1, 0, BIAS, vs, pos)
                  : block_scores_t(nb, k, ldk, qd, sb, qd->nc4, 0, 0, BIAS, vs, pos);
  }
}

static vf block_scores(size_t nb, const float *k, size_t ldk, const qdesc *qd,
                       float *sb, size_t dk) {
  return block_scores_any(nb, k, ldk, qd, sb, dk, 0, vf_zero(), vi_set1(0));
}

/* The same scores with the relative bias of the _bias kernels: key j of
 * the block (p0 its first key's position) gets
 * fma(slope, (float)(p0 + j), s_j), the position converted from int32
 * (exact below 2^24 in magnitude); the returned lane max covers the biased
 * scores. */
HS_ALWAYS_INLINE vi pos_iota(int64_t p0) { return vi_iota((int32_t)p0); }
HS_ALWAYS_INLINE vf block_scores_bias(size_t nb, const float *k, size_t ldk, const qdesc *qd,
                            float *sb, size_t dk, float slope, int64_t p0) {
  return block_scores_any(nb, k, ldk, qd, sb, dk, 1, vf_set1(slope), pos_iota(p0));
}

/* block_scores (block_scores_bias when bias) for contiguous keys, ldk ==
 * dk == DK in {1, 2, 4}, without the general dispatch: the contiguous
 * paths of the two-pass and the hard rows (HS_BLOCKS_DK). */
#define HS_BLOCKS_DK 1
HS_ALWAYS_INLINE vf block_scores_dk(size_t nb, const float *k, const qdesc *qd, float *sb, int DK,
                          int bias, float slope, int64_t p0) {
  return block_scores_t(nb, k, (size_t)DK, qd, sb, 1, DK == 4, DK, bias, vf_set1(slope),
                        pos_iota(p0));
}

/* run[VF_LANES c ..] += sum_{j<nb} e[j] v[j*ldv + VF_LANES c ..], for
 * every chunk c < nv of VF_LANES columns (the last one's lanes outside
 * mlast neither read nor written to but +0, unless full_last); BLK_VACC
 * accumulators (key j mod BLK_VACC, the keys past the last whole round
 * into the first) hide the FMA latency, then a tree of their sums goes
 * into run. */
HS_ALWAYS_INLINE void block_values_t(size_t nb, const float *e, const float *v, size_t ldv,
                           size_t nv, vmask mlast, int full_last, float *run) {
  for (size_t c = 0; c < nv; c++) {
    const int full = c + 1 < nv || full_last;
    const float *vc = v + VF_LANES * c;
#define LDV(j) (full ? vf_loadu(vc + (j) * ldv) : vf_load_masked(vc + (j) * ldv, mlast))
#define STEP(a, j) a = vf_fma(vf_load1(e + (j)), LDV(j), a)
    vf a0 = vf_zero(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t j = 0;
    for (; j + BLK_VACC <= nb; j += BLK_VACC) {
      STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
      if (BLK_VACC == 8) {
        STEP(a4, j + 4); STEP(a5, j + 5); STEP(a6, j + 6); STEP(a7, j + 7);
      }
    }
    for (; j < nb; j++) STEP(a0, j);
#undef STEP
#undef LDV
    /* tree of the partial sums, then into the running accumulator */
    a0 = vf_add(vf_add(a0, a1), vf_add(a2, a3));
    if (BLK_VACC == 8) {
      a4 = vf_add(vf_add(a4, a5), vf_add(a6, a7));
      a0 = vf_add(a0, a4);
    }
    vf_storeu(run + VF_LANES * c, vf_add(vf_loadu(run + VF_LANES * c), a0));
  }
}

#endif
