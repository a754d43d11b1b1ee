/* SPDX-License-Identifier: MIT */
/* f64 gemv, AVX-512F: the algorithm and its error bound are in
 * gemv-impl.h, instantiated here with the avx512f vocabulary. */
#include "vec-f64-avx512f.h"
#include "vec-f64-as-vf.h"
#include "gemv-impl.h"

void hs_f64_gemv_ukernel__avx512f(size_t m, size_t k, const double *a, size_t lda,
                                  const double *x, double *y) {
  hs_gemv_impl(m, k, a, lda, x, y);
}
