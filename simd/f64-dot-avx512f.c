/* SPDX-License-Identifier: MIT */
/* f64 dot, AVX-512F: the algorithm and its error bound are in
 * dot-impl.h, instantiated here with the avx512f vocabulary. */
#include "vec-f64-avx512f.h"
#include "vec-f64-as-vf.h"
#include "dot-impl.h"

double hs_f64_dot_ukernel__avx512f(size_t n, const double *a, const double *b) {
  return hs_dot_impl(n, a, b);
}
