/* SPDX-License-Identifier: MIT */
/* The two public symbols of an online attention row kernel over its row
 * loop RUN(n, dk, dv, q, k, ldk, v, ldv, inv_tau, biased, slope, d0, st,
 * acc): the plain row, and the bias row (hs_f32_attn_row_bias_fn), which
 * gives each score fma(slope, (float)(d0 + j), s_j) before the block's
 * max. Shared by the vocabulary kernels (attn-f32-online-vec.h) and the
 * wasm128 ones (f32-attn-row-online-rr2-p5-impl.h), whose row loops
 * differ. */
#ifndef HS_F32_ATTN_ROW_ONLINE_SYMBOLS_H
#define HS_F32_ATTN_ROW_ONLINE_SYMBOLS_H

#define HS_DEFINE_F32_ATTN_ROW_ONLINE_OVER(run, plain, biased)                \
  void plain(size_t n, size_t dk, size_t dv, const float *q, const float *k,  \
             size_t ldk, const float *v, size_t ldv, float inv_tau,           \
             hs_f32_online *st, float *acc) {                                 \
    run(n, dk, dv, q, k, ldk, v, ldv, inv_tau, 0, 0, 0, st, acc);             \
  }                                                                           \
  void biased(size_t n, size_t dk, size_t dv, const float *q, const float *k, \
              size_t ldk, const float *v, size_t ldv, float inv_tau,          \
              float slope, int64_t d0, hs_f32_online *st, float *acc) {       \
    run(n, dk, dv, q, k, ldk, v, ldv, inv_tau, 1, slope, d0, st, acc);        \
  }

#endif
