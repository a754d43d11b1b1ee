/* SPDX-License-Identifier: MIT */
/* y = softmax(x * inv_tau), AVX-512F (16 lanes): the algorithm and its error bound
 * are in f32-softmax-rr2-p5-impl.h, instantiated here with the avx512f
 * vocabulary. */
#include "vec-f32-avx512f.h"
#include "f32-softmax-rr2-p5-impl.h"

void hs_f32_softmax_ukernel__avx512f_rr2_p5(size_t n, const float *x, float *y,
                                           float inv_tau) {
  hs_f32_softmax_impl(n, x, y, inv_tau);
}
