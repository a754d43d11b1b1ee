/* SPDX-License-Identifier: MIT */
/* f32 rmax, WebAssembly SIMD128 (4 lanes): the algorithm and its error
 * bound are in f32-rmax-impl.h, instantiated here with the wasm128
 * vocabulary. */
#include "ukernels.h"
#include "vec-f32-wasm128.h"
#include "f32-rmax-impl.h"

float hs_f32_rmax_ukernel__wasm128(size_t n, const float *x) {
  return hs_f32_rmax_impl(n, x);
}
