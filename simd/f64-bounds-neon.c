/* SPDX-License-Identifier: MIT */
/* The skipping tree's node bounds and the walk's tests, AArch64 NEON (2
 * nodes a vector): simd/f64-bounds-impl.h over this ISA's f64 vocabulary,
 * the scalar kernel's bits. */
#include "vec-f64-neon.h"
#include "f64-bounds-impl.h"

void hs_f64_bounds_ukernel__neon(size_t n, size_t dk, const double *lv, size_t ld,
                                 const double *qd, const double *aq, double rel,
                                 double absm, double lim, double *u) {
  hs_f64_bounds_impl(n, dk, lv, ld, qd, aq, rel, absm, lim, u);
}

unsigned hs_f64_bound_test_ukernel__neon(size_t n, const double *u, hs_bt_op op, double x,
                                         double y, const hs_bt_bias *bias, double first,
                                         double w, double *ub) {
  return hs_f64_bound_test_impl(n, u, op, x, y, bias, first, w, ub);
}
