/* SPDX-License-Identifier: MIT */
/* f32 dot, AVX-512F: the algorithm and its error bound are in
 * dot-impl.h, instantiated here with the avx512f vocabulary. */
#include "vec-f32-avx512f.h"
#include "dot-impl.h"

float hs_f32_dot_ukernel__avx512f(size_t n, const float *a, const float *b) {
  return hs_dot_impl(n, a, b);
}
