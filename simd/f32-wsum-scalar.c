/* SPDX-License-Identifier: MIT */
/* f32 weighted row sum acc[c] += sum_j w[j] v[j*ldv + c], portable C.
 * Rows are summed in blocks of 64 into a local total first, then added to
 * acc, so rounding grows with n/64, not n.
 * Error: |acc_c - acc*_c| <= (n/64 + 65) u (|acc_c| + sum_j |w_j v_jc|),
 * u = 2^-24. */
#include "ukernels.h"

void hs_f32_wsum_ukernel__scalar(size_t n, size_t d, const float *w,
                                 const float *v, size_t ldv, float *acc) {
  for (size_t c0 = 0; c0 < d; c0 += 64) {
    const size_t dc = d - c0 < 64 ? d - c0 : 64;
    for (size_t j0 = 0; j0 < n; j0 += 64) {
      const size_t nb = n - j0 < 64 ? n - j0 : 64;
      float t[64] = {0};
      /* t = this block's contribution to columns c0..c0+dc */
      for (size_t j = j0; j < j0 + nb; j++) {
        const float *vj = v + j * ldv + c0;
        for (size_t c = 0; c < dc; c++) t[c] += w[j] * vj[c];
      }
      for (size_t c = 0; c < dc; c++) acc[c0 + c] += t[c];
    }
  }
}
