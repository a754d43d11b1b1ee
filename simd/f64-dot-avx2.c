/* SPDX-License-Identifier: MIT */
/* f64 dot, AVX2+FMA: the algorithm and its error bound are in
 * dot-impl.h, instantiated here with the avx2 vocabulary. */
#include "vec-f64-avx2.h"
#include "vec-f64-as-vf.h"
#include "dot-impl.h"

double hs_f64_dot_ukernel__avx2(size_t n, const double *a, const double *b) {
  return hs_dot_impl(n, a, b);
}
