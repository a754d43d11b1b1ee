/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

void hs_f32_attn_row_ukernel__scalar_online_rr2_p5(size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk, const float *v, size_t ldv, float inv_tau, hs_f32_online *st, float *acc) {
  for (size_t j = 0; j < n; j++) { float s = 0; for (size_t c = 0; c < dk; c++) s += q[c] * k[j * ldk + c]; s *= inv_tau;
    if (s > st->max) { float r = st->max == -INFINITY ? 0.0f : expf(st->max - s); st->sum *= r; for (size_t c = 0; c < dv; c++) acc[c] *= r; st->max = s; }
    if (st->max == -INFINITY) continue;
    float e = expf(s - st->max); st->sum += e; for (size_t c = 0; c < dv; c++) acc[c] += e * v[j * ldv + c]; } }
