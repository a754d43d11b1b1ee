/* SPDX-License-Identifier: MIT */
/* f64 dot, AArch64 NEON: the algorithm and its error bound are in
 * dot-impl.h, instantiated here with the neon vocabulary. */
#include "vec-f64-neon.h"
#include "vec-f64-as-vf.h"
#include "dot-impl.h"

double hs_f64_dot_ukernel__neon(size_t n, const double *a, const double *b) {
  return hs_dot_impl(n, a, b);
}
