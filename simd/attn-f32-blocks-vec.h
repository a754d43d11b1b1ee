/* SPDX-License-Identifier: MIT */
/* The score and value blocks of the f32 attention-row kernels written over
 * the vector vocabulary only (include after a vec-f32-<isa>.h, ukernels.h
 * and defining BLK): the hooks f32-attn-row-2pass-rr2-p5-impl.h needs, for
 * an ISA without blocks of its own (AVX2 and AVX-512 have shuffle-based
 * ones, attn-f32-blocks-<isa>.h). Scores are computed per key, in four
 * interleaved partial sums over dk, (p0 + p2) + (p1 + p3): with inv_tau
 * folded into q and unfused products, |ds_j| <= (ceil(dk/4) + 4) u
 * sum_c |q_c k_jc inv_tau|, the bound the two-pass kernel states. Values
 * are accumulated a vector of columns at a time. */
#ifndef HS_ATTN_F32_BLOCKS_VEC_H
#define HS_ATTN_F32_BLOCKS_VEC_H

#ifndef BLK
#error "define BLK before including this header"
#endif

#include <math.h>
#include <stdint.h>

typedef struct {
  float q[HS_ATTN_MAX_D + 3]; /* q * inv_tau, +0 past dk up to a multiple of 4 */
} qdesc;

static inline void qd_init(qdesc *qd, size_t dk, const float *q, float inv_tau) {
  for (size_t c = 0; c < dk; c++) qd->q[c] = q[c] * inv_tau;
  for (size_t c = dk; c % 4 != 0; c++) qd->q[c] = 0.0f;
}

static inline float hs_vblk_dot(const float *kr, const qdesc *qd, size_t dk) {
  float p[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  size_t c = 0;
  for (; c + 4 <= dk; c += 4)
    for (int i = 0; i < 4; i++) p[i] += qd->q[c + i] * kr[c + i];
  for (int i = 0; c + (size_t)i < dk; i++) p[i] += qd->q[c + i] * kr[c + i];
  return (p[0] + p[2]) + (p[1] + p[3]);
}

/* Scores of nb <= BLK keys into sb, biased by slope * (p0 + j) when bias
 * (the position exact as a float below 2^24, as the other ISAs); lanes of
 * the last group past nb: -inf. Returns the lane-wise max. */
static inline vf hs_vblk_scores(size_t nb, const float *k, size_t ldk,
                                const qdesc *qd, float *sb, size_t dk,
                                int bias, float slope, int64_t p0) {
  size_t j = 0;
  for (; j < nb; j++) {
    float s = hs_vblk_dot(k + j * ldk, qd, dk);
    if (bias) s = slope * (float)(int32_t)(p0 + (int64_t)j) + s;
    sb[j] = s;
  }
  for (; j % VF_LANES != 0; j++) sb[j] = -INFINITY;
  vf vmax = vf_set1(-INFINITY);
  for (size_t g = 0; g < j; g += VF_LANES) vmax = vf_max(vf_loadu(sb + g), vmax);
  return vmax;
}

static inline vf block_scores(size_t nb, const float *k, size_t ldk,
                              const qdesc *qd, float *sb, size_t dk) {
  return hs_vblk_scores(nb, k, ldk, qd, sb, dk, 0, 0.0f, 0);
}

static inline vf block_scores_bias(size_t nb, const float *k, size_t ldk,
                                   const qdesc *qd, float *sb, size_t dk,
                                   float slope, int64_t p0) {
  return hs_vblk_scores(nb, k, ldk, qd, sb, dk, 1, slope, p0);
}

/* run[0..dv) += sum_{j<nb} e[j] v_j: per column vector, the block's sum
 * first (one accumulator), then into run. */
static inline void block_values_dv(size_t nb, const float *e, const float *v,
                                   size_t ldv, size_t dv, float *run) {
  for (size_t c = 0; c < dv; c += VF_LANES) {
    const size_t w = dv - c < VF_LANES ? dv - c : VF_LANES;
    vf a = vf_zero();
    for (size_t j = 0; j < nb; j++) {
      const vf x = w == VF_LANES ? vf_loadu(v + j * ldv + c)
                                 : vf_load_tail(v + j * ldv + c, w);
      a = vf_fma(vf_set1(e[j]), x, a);
    }
    vf_storeu(run + c, vf_add(vf_loadu(run + c), a));
  }
}

#endif
