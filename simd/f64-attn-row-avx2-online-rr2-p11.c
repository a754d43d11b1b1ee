/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

void hs_f64_attn_row_ukernel__avx2_online_rr2_p11(size_t n, size_t dk, size_t dv, const double *q, const double *k, size_t ldk, const double *v, size_t ldv, double inv_tau, hs_f64_online *st, double *acc) {
  for (size_t j = 0; j < n; j++) { double s = 0; for (size_t c = 0; c < dk; c++) s += q[c] * k[j * ldk + c]; s *= inv_tau;
    if (s > st->max) { double r = st->max == -INFINITY ? 0.0 : exp(st->max - s); st->sum *= r; for (size_t c = 0; c < dv; c++) acc[c] *= r; st->max = s; }
    if (st->max == -INFINITY) continue;
    double e = exp(s - st->max); st->sum += e; for (size_t c = 0; c < dv; c++) acc[c] += e * v[j * ldv + c]; } }
