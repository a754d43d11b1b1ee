/* SPDX-License-Identifier: MIT */
/* f32 gemv, AVX2+FMA: the algorithm and its error bound are in
 * gemv-impl.h, instantiated here with the avx2 vocabulary. */
#include "vec-f32-avx2.h"
#include "gemv-impl.h"

void hs_f32_gemv_ukernel__avx2(size_t m, size_t k, const float *a, size_t lda,
                               const float *x, float *y) {
  hs_gemv_impl(m, k, a, lda, x, y);
}
