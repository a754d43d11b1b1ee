/* SPDX-License-Identifier: MIT */
/* The long double reference of one f32 attention row (header-only), shared
 * by the row kernel's test and the two-pass (skipping) kernel's test. */
#ifndef HS_TEST_ATTN_REF_H
#define HS_TEST_ATTN_REF_H

#include "common.h"

#define U 0x1p-24

/* A row: query q (dk), n keys (row stride ldk), n values (stride ldv),
 * scores scaled by tau (an inverse temperature). */
typedef struct {
  size_t n, dk, dv, ldk, ldv;
  const float *q, *k, *v;
  float tau;
} prob;

/* Exact products, long double sums: s[j] = (q . k_j) tau into s[0..n),
 * *mref = max over the non-NaN s[j] (-inf if none), *smax = the largest
 * finite sum_c |q_c k_jc tau|. Returns whether some s[j] is NaN. */
static inline int ref_scores(const prob *p, long double *s, long double *mref,
                             long double *smax) {
  int has_nan = 0;
  *mref = -INFINITY;
  *smax = 0;
  for (size_t j = 0; j < p->n; j++) {
    long double d = 0, ab = 0;
    for (size_t c = 0; c < p->dk; c++) {
      long double t = (long double)p->q[c] * p->k[j * p->ldk + c];
      d += t;
      ab += fabsl(t);
    }
    s[j] = d * p->tau;
    ab *= fabsl((long double)p->tau);
    if (isnan(s[j])) has_nan = 1;
    else if (s[j] > *mref) *mref = s[j];
    if (ab > *smax && isfinite(ab)) *smax = ab;
  }
  return has_nan;
}

/* The weights e_j = exp(s[j] - max) relative to the kernel's own max
 * (+inf: the +inf scores weigh 1), flushed to 0 below 2^-126 as the
 * kernels flush; *sum = sum_j e_j, accr[c] = sum_j e_j v_jc and
 * absr[c] = sum_j e_j |v_jc|. */
static inline void ref_weights(const prob *p, const long double *s, float max,
                               long double *sum, long double *accr,
                               long double *absr) {
  *sum = 0;
  for (size_t c = 0; c < p->dv; c++) accr[c] = absr[c] = 0;
  for (size_t j = 0; j < p->n; j++) {
    long double e;
    if (max == INFINITY) e = s[j] == INFINITY ? 1 : 0;
    else e = s[j] == -INFINITY ? 0 : expl(s[j] - max);
    if (e < 0x1p-126L) e = 0;
    *sum += e;
    for (size_t c = 0; c < p->dv; c++) {
      accr[c] += e * p->v[j * p->ldv + c];
      absr[c] += e * fabsf(p->v[j * p->ldv + c]);
    }
  }
}

#endif
