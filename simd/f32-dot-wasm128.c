/* SPDX-License-Identifier: MIT */
/* f32 dot, WebAssembly SIMD128 (4 lanes): the algorithm and its error
 * bound are in dot-impl.h, instantiated here with the wasm128
 * vocabulary. */
#include "ukernels.h"
#include "vec-f32-wasm128.h"
#include "dot-impl.h"

float hs_f32_dot_ukernel__wasm128(size_t n, const float *a, const float *b) {
  return hs_dot_impl(n, a, b);
}
