/* SPDX-License-Identifier: MIT */
/* f32 gemv, AArch64 NEON (4 lanes, fused multiply-add): the algorithm and
 * its error bound are in gemv-impl.h, instantiated here with the NEON
 * vocabulary. */
#include "vec-f32-neon.h"
#include "gemv-impl.h"

void hs_f32_gemv_ukernel__neon(size_t m, size_t k, const float *a, size_t lda,
                               const float *x, float *y) {
  hs_gemv_impl(m, k, a, lda, x, y);
}
