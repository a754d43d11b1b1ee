/* SPDX-License-Identifier: MIT */
/* f32 attention tile, portable C: each query of the tile is one call of
 * the scalar row kernel (f32-attn-row-scalar-online-rr2-p5.c), so its
 * bits, error bound and special values are that kernel's. The scalar
 * kernel has no wide key loads to share. end = 1: the query's keys are
 * the last n[r] before the largest n[r], as two row calls (its first
 * hs_attn_end_head(n[r]) keys, then the rest). */
#include "ukernels.h"

void hs_f32_attn_tile_ukernel__scalar_online_rr2_p5(
    size_t nq, const size_t *n, size_t dk, size_t dv, const float *q,
    size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
    float inv_tau, hs_f32_online *st, float *acc, size_t ldacc, int end) {
  size_t nend = 0;
  for (size_t r = 0; end && r < nq; r++) if (n[r] > nend) nend = n[r];
  for (size_t r = 0; r < nq; r++) {
    size_t j0 = end ? nend - n[r] : 0, h = end ? hs_attn_end_head(n[r]) : 0;
    if (h)
      hs_f32_attn_row_ukernel__scalar_online_rr2_p5(
          h, dk, dv, q + r * ldq, k + j0 * ldk, ldk, v + j0 * ldv, ldv,
          inv_tau, &st[r], acc + r * ldacc);
    hs_f32_attn_row_ukernel__scalar_online_rr2_p5(
        n[r] - h, dk, dv, q + r * ldq, k + (j0 + h) * ldk, ldk,
        v + (j0 + h) * ldv, ldv, inv_tau, &st[r], acc + r * ldacc);
  }
}

/* The relative-bias variant: query r's row calls are those of the bias
 * row kernel, d0 = d0[r] plus the call's first key index. */
void hs_f32_attn_tile_bias_ukernel__scalar_online_rr2_p5(
    size_t nq, const size_t *n, size_t dk, size_t dv, const float *q,
    size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
    float inv_tau, float slope, const int64_t *d0, hs_f32_online *st,
    float *acc, size_t ldacc, int end) {
  size_t nend = 0;
  for (size_t r = 0; end && r < nq; r++) if (n[r] > nend) nend = n[r];
  for (size_t r = 0; r < nq; r++) {
    size_t j0 = end ? nend - n[r] : 0, h = end ? hs_attn_end_head(n[r]) : 0;
    if (h)
      hs_f32_attn_row_bias_ukernel__scalar_online_rr2_p5(
          h, dk, dv, q + r * ldq, k + j0 * ldk, ldk, v + j0 * ldv, ldv,
          inv_tau, slope, d0[r] + (int64_t)j0, &st[r], acc + r * ldacc);
    hs_f32_attn_row_bias_ukernel__scalar_online_rr2_p5(
        n[r] - h, dk, dv, q + r * ldq, k + (j0 + h) * ldk, ldk,
        v + (j0 + h) * ldv, ldv, inv_tau, slope, d0[r] + (int64_t)(j0 + h),
        &st[r], acc + r * ldacc);
  }
}
