/* SPDX-License-Identifier: MIT */
/* The skipping tree's node bounds and the walk's tests, the reference:
 * node by node, the sums from c = 0 up, one rounding per product and per
 * add (the contract in include/hardsoft/kernels.h). */
#include <math.h>

#include "ukernels.h"

void hs_f64_bounds_ukernel__scalar(size_t n, size_t dk, const double *lv, size_t ld,
                                   const double *qd, const double *aq, double rel,
                                   double absm, double lim, double *u) {
  for (size_t k = 0; k < n; k++) {
    double s = 0, A = 0;
    for (size_t c = 0; c < dk; c++) {
      s += qd[c] * lv[((qd[c] >= 0 ? dk : 0) + c) * ld + k];
      A += aq[c] * lv[(2 * dk + c) * ld + k];
    }
    u[k] = A <= lim ? s + rel * A + absm : NAN;
  }
}

unsigned hs_f64_bound_test_ukernel__scalar(size_t n, const double *u, hs_bt_op op, double x,
                                           double y, const hs_bt_bias *bias, double first,
                                           double w, double *ub) {
  unsigned bits = 0;
  for (size_t k = 0; k < n; k++) {
    double v = u[k];
    if (bias) {
      double j0 = (first + (double)k) * w, j1 = j0 + (w - 1);
      j0 = j0 > bias->a ? j0 : bias->a;
      j1 = j1 < bias->b ? j1 : bias->b;
      double p0 = bias->sk * (j0 - bias->row), p1 = bias->sk * (j1 - bias->row);
      double a0 = fabs(p0), a1 = fabs(p1);
      v += (p0 > p1 ? p0 : p1) + bias->brel * (a0 > a1 ? a0 : a1);
    }
    if (ub) ub[k] = v;
    int in = op == HS_BT_KEEP ? !(x - v > y) : op == HS_BT_ABOVE ? v > x : v >= x;
    bits |= (unsigned)in << k;
  }
  return bits;
}
