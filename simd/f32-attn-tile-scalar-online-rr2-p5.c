/* f32 attention tile, portable C: each query of the tile is one call of
 * the scalar row kernel (f32-attn-row-scalar-online-rr2-p5.c), so its
 * bits, error bound and special values are that kernel's. The scalar
 * kernel has no wide key loads to share. */
#include "ukernels.h"

void hs_f32_attn_tile_ukernel__scalar_online_rr2_p5(
    size_t nq, const size_t *n, size_t dk, size_t dv, const float *q,
    size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
    float inv_tau, hs_f32_online *st, float *acc, size_t ldacc) {
  for (size_t r = 0; r < nq; r++)
    hs_f32_attn_row_ukernel__scalar_online_rr2_p5(
        n[r], dk, dv, q + r * ldq, k, ldk, v, ldv, inv_tau, &st[r],
        acc + r * ldacc);
}
