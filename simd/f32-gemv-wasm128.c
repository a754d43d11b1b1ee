/* SPDX-License-Identifier: MIT */
/* f32 gemv, WebAssembly SIMD128 (4 lanes): the algorithm and its error
 * bound are in gemv-impl.h, instantiated here with the wasm128
 * vocabulary. */
#include "ukernels.h"
#include "vec-f32-wasm128.h"
#include "gemv-impl.h"

void hs_f32_gemv_ukernel__wasm128(size_t m, size_t k, const float *a,
                                  size_t lda, const float *x, float *y) {
  hs_gemv_impl(m, k, a, lda, x, y);
}
