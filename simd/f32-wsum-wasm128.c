/* SPDX-License-Identifier: MIT */
/* f32 wsum, WebAssembly SIMD128 (4 lanes): the algorithm and its error
 * bound are in f32-wsum-impl.h, instantiated here with the wasm128
 * vocabulary. */
#include "ukernels.h"
#include "vec-f32-wasm128.h"
#include "f32-wsum-impl.h"

void hs_f32_wsum_ukernel__wasm128(size_t n, size_t d, const float *w,
                                  const float *v, size_t ldv, float *acc) {
  hs_f32_wsum_impl(n, d, w, v, ldv, acc);
}
