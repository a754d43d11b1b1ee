/* SPDX-License-Identifier: MIT */
/* y = softmax(x * inv_tau), AVX2 + FMA (8 lanes): the algorithm and its error bound
 * are in f32-softmax-rr2-p5-impl.h, instantiated here with the avx2
 * vocabulary. */
#include "vec-f32-avx2.h"
#include "f32-softmax-rr2-p5-impl.h"

void hs_f32_softmax_ukernel__avx2_rr2_p5(size_t n, const float *x, float *y,
                                        float inv_tau) {
  hs_f32_softmax_impl(n, x, y, inv_tau);
}
