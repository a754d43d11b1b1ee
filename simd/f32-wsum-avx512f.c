/* SPDX-License-Identifier: MIT */
/* f32 weighted row sum, AVX-512F: the algorithm and its error bound are in
 * f32-wsum-impl.h, instantiated here with the avx512f vocabulary. */
#include "vec-f32-avx512f.h"
#include "f32-wsum-impl.h"

void hs_f32_wsum_ukernel__avx512f(size_t n, size_t d, const float *w,
                                  const float *v, size_t ldv, float *acc) {
  hs_f32_wsum_impl(n, d, w, v, ldv, acc);
}
