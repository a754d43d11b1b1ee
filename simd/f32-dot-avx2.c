/* SPDX-License-Identifier: MIT */
/* f32 dot, AVX2+FMA: the algorithm and its error bound are in
 * dot-impl.h, instantiated here with the avx2 vocabulary. */
#include "vec-f32-avx2.h"
#include "dot-impl.h"

float hs_f32_dot_ukernel__avx2(size_t n, const float *a, const float *b) {
  return hs_dot_impl(n, a, b);
}
