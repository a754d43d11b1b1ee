/* SPDX-License-Identifier: MIT */
/* f32 wsum, AArch64 NEON (4 lanes, fused multiply-add): the algorithm and
 * its error bound are in f32-wsum-impl.h, instantiated here with the NEON
 * vocabulary. */
#include "vec-f32-neon.h"
#include "f32-wsum-impl.h"

void hs_f32_wsum_ukernel__neon(size_t n, size_t d, const float *w, const float *v,
                               size_t ldv, float *acc) {
  hs_f32_wsum_impl(n, d, w, v, ldv, acc);
}
