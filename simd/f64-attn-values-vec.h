/* SPDX-License-Identifier: MIT */
/* The parts the f64 attention rows' blocks share, written once over the
 * f64 vector vocabulary (internal): the query of the contiguous keys'
 * scores and the weighted value sum of values that are not packed, for
 * the online row (f64-attn-row-online-rr2-p11-impl.h) and the two-pass
 * row (f64-attn-row-2pass-rr2-p11-impl.h). Include after one
 * vec-f64-<isa>.h. */
#ifndef HS_F64_ATTN_VALUES_VEC_H
#define HS_F64_ATTN_VALUES_VEC_H

#include <stddef.h>

/* lane i: q[i mod DK] * inv_tau (the contiguous keys' scores) */
HS_ALWAYS_INLINE vd hs_f64_qc(const double *q, int DK, double inv_tau) {
  double t[VD_LANES];
  for (int i = 0; i < VD_LANES; i++) t[i] = q[i % DK] * inv_tau;
  return vd_loadu(t);
}

/* run[0..dv) += sum_{j<nb} e[j] v_j (e past nb unread): VD_LANES columns
 * per register, NACC in {4, 8} accumulators (keys j mod NACC), folded by
 * pairs, then added to run (whole registers: run holds dv rounded up to
 * VD_LANES) */
HS_ALWAYS_INLINE void hs_f64_values(
    size_t nb, const double *e, const double *vb, size_t ldv, size_t dv, double *run,
    const int NACC) {
  for (size_t c = 0; c < dv; c += VD_LANES) {
    const size_t rem = dv - c;
#define LD(j) (rem >= VD_LANES ? vd_loadu(vb + (j) * ldv + c) : vd_load_tail(vb + (j) * ldv + c, rem))
#define STEP(a, j) a = vd_fma(vd_set1(e[j]), LD(j), a)
    vd a0 = vd_zero(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t j = 0;
    for (; j + NACC <= nb; j += NACC) {
      STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
      if (NACC == 8) {
        STEP(a4, j + 4); STEP(a5, j + 5); STEP(a6, j + 6); STEP(a7, j + 7);
      }
    }
    for (; j < nb; j++) STEP(a0, j);
#undef STEP
#undef LD
    a0 = vd_add(vd_add(a0, a1), vd_add(a2, a3));
    if (NACC == 8) a0 = vd_add(a0, vd_add(vd_add(a4, a5), vd_add(a6, a7)));
    vd_storeu(run + c, vd_add(vd_loadu(run + c), a0));
  }
}

#endif
