/* SPDX-License-Identifier: MIT */
/* The skipping tree's node bounds (f64_bounds) and the walk's tests on
 * them (f64_bound_test), written once over the f64 vector vocabulary
 * (vec-f64-*.h, included first): the sibling nodes sit in the lanes, so a
 * node's sums are the scalar kernel's, in its order, with its roundings
 * (mul then add, never fused), and the masks are its compares. The
 * contract is in include/hardsoft/kernels.h. */
#ifndef HS_F64_BOUNDS_IMPL_H
#define HS_F64_BOUNDS_IMPL_H

#include <math.h>

#include "ukernels.h"

/* dk a constant where the caller switches on it: the loads of a dimension
 * then need no loop */
HS_ALWAYS_INLINE void hs_f64_bounds_dk(
    size_t n, size_t dk, const double *lv, size_t ld, const double *qd,
    const double *aq, double rel, double absm, double lim, double *u) {
  const vd vrel = vd_set1(rel), vabsm = vd_set1(absm), vlim = vd_set1(lim),
           vnan = vd_set1(NAN);
  for (size_t k = 0; k < n; k += VD_LANES) {
    const size_t m = n - k < VD_LANES ? n - k : VD_LANES;
    vd s = vd_zero(), A = vd_zero();
    for (size_t c = 0; c < dk; c++) {
      const double *sel = lv + ((qd[c] >= 0 ? dk : 0) + c) * ld + k;
      const double *am = lv + (2 * dk + c) * ld + k;
      s = vd_add(s, vd_mul(vd_set1(qd[c]), vd_load_tail(sel, m)));
      A = vd_add(A, vd_mul(vd_set1(aq[c]), vd_load_tail(am, m)));
    }
    const vd r = vd_add(vd_add(s, vd_mul(vrel, A)), vabsm);
    vd_store_tail(u + k, vd_select(vd_cmple(A, vlim), r, vnan), m);
  }
}

static inline void hs_f64_bounds_impl(size_t n, size_t dk, const double *lv, size_t ld,
                                      const double *qd, const double *aq, double rel,
                                      double absm, double lim, double *u) {
  switch (dk) {
    case 1: hs_f64_bounds_dk(n, 1, lv, ld, qd, aq, rel, absm, lim, u); return;
    case 2: hs_f64_bounds_dk(n, 2, lv, ld, qd, aq, rel, absm, lim, u); return;
    case 4: hs_f64_bounds_dk(n, 4, lv, ld, qd, aq, rel, absm, lim, u); return;
    default: hs_f64_bounds_dk(n, dk, lv, ld, qd, aq, rel, absm, lim, u); return;
  }
}

HS_ALWAYS_INLINE unsigned hs_f64_bound_test_impl(
    size_t n, const double *u, hs_bt_op op, double x, double y, const hs_bt_bias *bias,
    double first, double w, double *ub) {
  const vd vx = vd_set1(x), vy = vd_set1(y);
  unsigned bits = 0;
  for (size_t k = 0; k < n; k += VD_LANES) {
    const size_t m = n - k < VD_LANES ? n - k : VD_LANES;
    vd v = vd_load_tail(u + k, m);
    if (bias) {
      const vd sk = vd_set1(bias->sk), row = vd_set1(bias->row);
      vd j0 = vd_mul(vd_iota(first + (double)k), vd_set1(w));
      vd j1 = vd_add(j0, vd_set1(w - 1));
      j0 = vd_max(j0, vd_set1(bias->a));
      j1 = vd_min(j1, vd_set1(bias->b));
      const vd p0 = vd_mul(sk, vd_sub(j0, row)), p1 = vd_mul(sk, vd_sub(j1, row));
      const vd big = vd_max(vd_abs(p0), vd_abs(p1));
      v = vd_add(v, vd_add(vd_max(p0, p1), vd_mul(vd_set1(bias->brel), big)));
    }
    if (ub) vd_store_tail(ub + k, v, m);
    unsigned b;
    switch (op) {
      case HS_BT_KEEP: b = ~vdmask_bits(vd_cmpgt(vd_sub(vx, v), vy)); break;
      case HS_BT_ABOVE: b = vdmask_bits(vd_cmpgt(v, vx)); break;
      default: b = vdmask_bits(vd_cmpge(v, vx)); break;
    }
    bits |= (b & ((1u << m) - 1u)) << k;
  }
  return bits;
}

#endif
