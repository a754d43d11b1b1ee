/* SPDX-License-Identifier: MIT */
/* f64 hard attention row, scalar: the reference order of the family (the
 * f32 scalar kernel in double). Scores q . k_j summed in index order (one
 * rounded product and one rounded sum per term: |s_j - s*_j| <=
 * dk u sum_c |q_c k_jc|, u = 2^-53; exact when the products and partial
 * sums are representable, as for the compiled heads' small integers);
 * each key in turn either raises the maximum (the old maximum becomes the
 * best score below it), ties it (counted; rightmost moves the pick,
 * average adds its value), or may raise the best score below the maximum
 * (the first key of all, even at -inf, is a maximum). A NaN score
 * compares false everywhere and is never maximal. The choice itself (max,
 * ties, pick, second best) is exact for the scores computed; the average
 * adds the tied values in key order. */
#include <math.h>
#include <string.h>

#include "ukernels.h"

void hs_f64_attn_hard_ukernel__scalar(size_t n, size_t dk, size_t dv,
                                      const double *q, const double *k,
                                      size_t ldk, const double *v, size_t ldv,
                                      size_t base, hs_hard_rule rule,
                                      hs_f64_hard *st, double *acc) {
  for (size_t j = 0; j < n; j++) {
    double s = 0;
    for (size_t c = 0; c < dk; c++) s += q[c] * k[j * ldk + c];
    const double *vj = v + j * ldv;
    /* the first key at a -inf maximum is a new maximum too */
    if (s > st->best || (s == st->best && st->cnt == 0)) {
      if (st->best > st->second) st->second = st->best;
      st->best = s;
      st->cnt = 1;
      st->pick = base + j;
      memcpy(acc, vj, dv * sizeof *acc);
    } else if (s == st->best) {
      st->cnt++;
      if (rule == HS_HARD_RIGHT) {
        st->pick = base + j;
        memcpy(acc, vj, dv * sizeof *acc);
      } else if (rule == HS_HARD_AVG) {
        for (size_t c = 0; c < dv; c++) acc[c] += vj[c];
      }
    } else if (s > st->second) {
      st->second = s;
    }
  }
}
