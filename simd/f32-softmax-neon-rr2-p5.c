/* SPDX-License-Identifier: MIT */
/* y = softmax(x * inv_tau), AArch64 NEON (4 lanes): the algorithm and its error bound
 * are in f32-softmax-rr2-p5-impl.h, instantiated here with the neon
 * vocabulary. */
#include "vec-f32-neon.h"
#include "f32-softmax-rr2-p5-impl.h"

void hs_f32_softmax_ukernel__neon_rr2_p5(size_t n, const float *x, float *y,
                                        float inv_tau) {
  hs_f32_softmax_impl(n, x, y, inv_tau);
}
