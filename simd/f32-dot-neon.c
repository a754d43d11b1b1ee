/* SPDX-License-Identifier: MIT */
/* f32 dot, AArch64 NEON (4 lanes, fused multiply-add): the algorithm and
 * its error bound are in dot-impl.h, instantiated here with the NEON
 * vocabulary. */
#include "vec-f32-neon.h"
#include "dot-impl.h"

float hs_f32_dot_ukernel__neon(size_t n, const float *a, const float *b) {
  return hs_dot_impl(n, a, b);
}
