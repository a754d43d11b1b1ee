/* SPDX-License-Identifier: MIT */
/* f64 gemv, AVX2+FMA: the algorithm and its error bound are in
 * gemv-impl.h, instantiated here with the avx2 vocabulary. */
#include "vec-f64-avx2.h"
#include "vec-f64-as-vf.h"
#include "gemv-impl.h"

void hs_f64_gemv_ukernel__avx2(size_t m, size_t k, const double *a, size_t lda,
                               const double *x, double *y) {
  hs_gemv_impl(m, k, a, lda, x, y);
}
