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

/* The walk over the tile's queries, CALL(r, first key, count) once per
 * row call (twice for a query with a head when end = 1). */
#define HS_TILE_ROWS_WALK_(CALL)                                              \
  size_t nend = 0;                                                            \
  for (size_t r = 0; end && r < nq; r++) if (n[r] > nend) nend = n[r];        \
  for (size_t r = 0; r < nq; r++) {                                           \
    size_t j0 = end ? nend - n[r] : 0, h = end ? hs_attn_end_head(n[r]) : 0;  \
    if (h) CALL(r, j0, h);                                                    \
    CALL(r, j0 + h, n[r] - h);                                                \
  }
/* row_fn: the row kernel, bound in each tile function */
#define HS_TILE_ROW_CALL_(r, j, cnt)                                          \
  row_fn(cnt, dk, dv, q + (r) * ldq, k + (j) * ldk, ldk, v + (j) * ldv, ldv,  \
         inv_tau, &st[r], acc + (r) * ldacc)
/* the relative-bias call: d0 = d0[r] plus the call's first key */
#define HS_TILE_ROW_BIAS_CALL_(r, j, cnt)                                     \
  row_fn(cnt, dk, dv, q + (r) * ldq, k + (j) * ldk, ldk, v + (j) * ldv, ldv,  \
         inv_tau, slope, d0[r] + (int64_t)(j), &st[r], acc + (r) * ldacc)

#define HS_DEFINE_F32_ATTN_TILE_ROWS(tile, tile_bias, row, row_bias)           \
  void tile(size_t nq, const size_t *n, size_t dk, size_t dv, const float *q, \
            size_t ldq, const float *k, size_t ldk, const float *v,           \
            size_t ldv, float inv_tau, hs_f32_online *st, float *acc,         \
            size_t ldacc, int end) {                                          \
    void (*const row_fn)(size_t, size_t, size_t, const float *, const float *, \
                         size_t, const float *, size_t, float,                \
                         hs_f32_online *, float *) = row;                     \
    HS_TILE_ROWS_WALK_(HS_TILE_ROW_CALL_)                                     \
  }                                                                           \
  void tile_bias(size_t nq, const size_t *n, size_t dk, size_t dv,            \
                 const float *q, size_t ldq, const float *k, size_t ldk,      \
                 const float *v, size_t ldv, float inv_tau, float slope,      \
                 const int64_t *d0, hs_f32_online *st, float *acc,            \
                 size_t ldacc, int end) {                                     \
    void (*const row_fn)(size_t, size_t, size_t, const float *, const float *, \
                         size_t, const float *, size_t, float, float, int64_t, \
                         hs_f32_online *, float *) = row_bias;                \
    HS_TILE_ROWS_WALK_(HS_TILE_ROW_BIAS_CALL_)                                \
  }

#endif
