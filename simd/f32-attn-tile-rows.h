/* SPDX-License-Identifier: MIT */
/* An f32 attention tile as one row-kernel call per query, for an ISA whose
 * tile shares no key loads between queries (scalar, wasm128): each query's
 * bits, error bound and special values are its row kernel's. end = 1: the
 * query's keys are the last n[r] before the largest n[r], as two row calls
 * (its first hs_attn_end_head(n[r]) keys, then the rest).
 * HS_DEFINE_F32_ATTN_TILE_ROWS(tile, tile_bias, row, row_bias) defines the
 * two tile symbols over the two row kernels. */
#ifndef HS_F32_ATTN_TILE_ROWS_H
#define HS_F32_ATTN_TILE_ROWS_H

#include "ukernels.h"

#define HS_DEFINE_F32_ATTN_TILE_ROWS(tile, tile_bias, row, row_bias)           \
  void tile(size_t nq, const size_t *n, size_t dk, size_t dv, const float *q, \
            size_t ldq, const float *k, size_t ldk, const float *v,           \
            size_t ldv, float inv_tau, hs_f32_online *st, float *acc,         \
            size_t ldacc, int end) {                                          \
    size_t nend = 0;                                                          \
    for (size_t r = 0; end && r < nq; r++) if (n[r] > nend) nend = n[r];      \
    for (size_t r = 0; r < nq; r++) {                                         \
      size_t j0 = end ? nend - n[r] : 0, h = end ? hs_attn_end_head(n[r]) : 0; \
      if (h)                                                                  \
        row(h, dk, dv, q + r * ldq, k + j0 * ldk, ldk, v + j0 * ldv, ldv,     \
            inv_tau, &st[r], acc + r * ldacc);                                \
      row(n[r] - h, dk, dv, q + r * ldq, k + (j0 + h) * ldk, ldk,             \
          v + (j0 + h) * ldv, ldv, inv_tau, &st[r], acc + r * ldacc);         \
    }                                                                         \
  }                                                                           \
  /* the relative-bias variant: d0 = d0[r] plus the call's first key */      \
  void tile_bias(size_t nq, const size_t *n, size_t dk, size_t dv,            \
                 const float *q, size_t ldq, const float *k, size_t ldk,      \
                 const float *v, size_t ldv, float inv_tau, float slope,      \
                 const int64_t *d0, hs_f32_online *st, float *acc,            \
                 size_t ldacc, int end) {                                     \
    size_t nend = 0;                                                          \
    for (size_t r = 0; end && r < nq; r++) if (n[r] > nend) nend = n[r];      \
    for (size_t r = 0; r < nq; r++) {                                         \
      size_t j0 = end ? nend - n[r] : 0, h = end ? hs_attn_end_head(n[r]) : 0; \
      if (h)                                                                  \
        row_bias(h, dk, dv, q + r * ldq, k + j0 * ldk, ldk, v + j0 * ldv,     \
                 ldv, inv_tau, slope, d0[r] + (int64_t)j0, &st[r],            \
                 acc + r * ldacc);                                            \
      row_bias(n[r] - h, dk, dv, q + r * ldq, k + (j0 + h) * ldk, ldk,        \
               v + (j0 + h) * ldv, ldv, inv_tau, slope,                       \
               d0[r] + (int64_t)(j0 + h), &st[r], acc + r * ldacc);           \
    }                                                                         \
  }

#endif
