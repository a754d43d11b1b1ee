/* SPDX-License-Identifier: MIT */
/* Declarations of every kernel in simd/kernels.inc (internal). */
#ifndef HS_UKERNELS_H
#define HS_UKERNELS_H

#include "hardsoft.h"
#include "hardsoft/kernels.h"

#ifdef __FAST_MATH__
#error "hardsoft must not be built with -ffast-math: it breaks -inf masks, NaN propagation and summation order"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The one spelling of a forced inline in simd/: the vocabularies' names
 * and the kernels' small steps, which must disappear into their callers
 * (a call would spill the vector registers they live in). */
#define HS_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The kernel prototypes, one per row of kernels.inc: the row's op names
 * the function type, e.g. hs_f32_dot_fn -> float fn(size_t, ...). */
#define HS_DECLARE_f32_vexp(fn) void fn(size_t n, const float *x, float *y);
#define HS_DECLARE_f32_rmax(fn) float fn(size_t n, const float *x);
#define HS_DECLARE_f32_softmax(fn) \
  void fn(size_t n, const float *x, float *y, float inv_tau);
#define HS_DECLARE_f32_dot(fn) float fn(size_t n, const float *a, const float *b);
#define HS_DECLARE_f32_gemv(fn)                                       \
  void fn(size_t m, size_t k, const float *a, size_t lda, const float *x, \
          float *y);
#define HS_DECLARE_f32_wsum(fn)                                      \
  void fn(size_t n, size_t d, const float *w, const float *v, size_t ldv, \
          float *acc);
#define HS_DECLARE_f32_attn_row(fn)                                     \
  void fn(size_t n, size_t dk, size_t dv, const float *q, const float *k, \
          size_t ldk, const float *v, size_t ldv, float inv_tau,          \
          hs_f32_online *st, float *acc);
#define HS_DECLARE_f32_attn_row_2pass(fn)                                \
  void fn(size_t nseg, const size_t *seg, size_t dk, size_t dv,          \
          const float *q, const float *k, size_t ldk, const float *v,    \
          size_t ldv, float inv_tau, hs_f32_online *st, float *acc);
#define HS_DECLARE_f32_attn_row_2pass_bias(fn)                           \
  void fn(size_t nseg, const size_t *seg, size_t dk, size_t dv,          \
          const float *q, const float *k, size_t ldk, const float *v,    \
          size_t ldv, float inv_tau, float slope, int64_t d0,            \
          hs_f32_online *st, float *acc);
#define HS_DECLARE_f32_attn_rows_2pass(fn)                                \
  void fn(size_t nr, const size_t *nseg, const size_t *const *seg,        \
          size_t dk, size_t dv, const float *q, size_t ldq, const float *k, \
          size_t ldk, const float *v, size_t ldv, float inv_tau,          \
          float slope, const int64_t *d0, hs_f32_online *st, float *acc,  \
          size_t ldacc);
#define HS_DECLARE_f32_gemm(fn)                                       \
  void fn(size_t rows, size_t m, size_t k, const float *a, size_t lda,  \
          const float *x, size_t ldx, float *y, size_t ldy);
#define HS_DECLARE_f32_attn_tile(fn)                                     \
  void fn(size_t nq, const size_t *n, size_t dk, size_t dv, const float *q, \
          size_t ldq, const float *k, size_t ldk, const float *v,          \
          size_t ldv, float inv_tau, hs_f32_online *st, float *acc,        \
          size_t ldacc, int end);
#define HS_DECLARE_f32_attn_hard(fn)                                    \
  void fn(size_t n, size_t dk, size_t dv, const float *q, const float *k, \
          size_t ldk, const float *v, size_t ldv, size_t base,            \
          hs_hard_rule rule, hs_f32_hard *st, float *acc);
#define HS_DECLARE_f32_attn_row_bias(fn)                                \
  void fn(size_t n, size_t dk, size_t dv, const float *q, const float *k, \
          size_t ldk, const float *v, size_t ldv, float inv_tau,          \
          float slope, int64_t d0, hs_f32_online *st, float *acc);
#define HS_DECLARE_f32_attn_tile_bias(fn)                                \
  void fn(size_t nq, const size_t *n, size_t dk, size_t dv, const float *q, \
          size_t ldq, const float *k, size_t ldk, const float *v,          \
          size_t ldv, float inv_tau, float slope, const int64_t *d0,       \
          hs_f32_online *st, float *acc, size_t ldacc, int end);
#define HS_DECLARE_f64_dot(fn) \
  double fn(size_t n, const double *a, const double *b);
#define HS_DECLARE_f64_gemv(fn)                                          \
  void fn(size_t m, size_t k, const double *a, size_t lda, const double *x, \
          double *y);
#define HS_DECLARE_f64_attn_row(fn)                                       \
  void fn(size_t n, size_t dk, size_t dv, const double *q, const double *k, \
          size_t ldk, const double *v, size_t ldv, double inv_tau,          \
          hs_f64_online *st, double *acc);
#define HS_DECLARE_f64_gemm(fn)                                        \
  void fn(size_t rows, size_t m, size_t k, const double *a, size_t lda,  \
          const double *x, size_t ldx, double *y, size_t ldy);
#define HS_DECLARE_f64_attn_hard(fn)                                     \
  void fn(size_t n, size_t dk, size_t dv, const double *q, const double *k, \
          size_t ldk, const double *v, size_t ldv, size_t base,            \
          hs_hard_rule rule, hs_f64_hard *st, double *acc);
#define HS_DECLARE_f64_attn_row_2pass(fn)                                 \
  void fn(size_t nseg, const size_t *seg, size_t dk, size_t dv,           \
          const double *q, const double *k, size_t ldk, const double *v,  \
          size_t ldv, double inv_tau, hs_f64_online *st, double *acc);
#define HS_DECLARE_f64_attn_rows_2pass(fn)                                \
  void fn(size_t nr, const size_t *nseg, const size_t *const *seg,        \
          size_t dk, size_t dv, const double *q, size_t ldq,              \
          const double *k, size_t ldk, const double *v, size_t ldv,       \
          double inv_tau, hs_f64_online *st, double *acc, size_t ldacc);
#define HS_DECLARE_f64_bounds(fn)                                         \
  void fn(size_t n, size_t dk, const double *lv, size_t ld, const double *qd, \
          const double *aq, double rel, double absm, double lim, double *u);
#define HS_DECLARE_f64_bound_test(fn)                                        \
  unsigned fn(size_t n, const double *u, hs_bt_op op, double x, double y,   \
              const hs_bt_bias *bias, double first, double w, double *ub);

#define HS_DECLARE_f32_gemm_pk(fn)                                        \
  void fn(size_t rows, size_t m, size_t k, const float *pk, const float *bias, \
          const float *x, size_t ldx, float *y, size_t ldy, unsigned flags);
#define HS_DECLARE_f64_gemm_pk(fn)                                          \
  void fn(size_t rows, size_t m, size_t k, const double *pk,                \
          const double *bias, const double *x, size_t ldx, double *y,       \
          size_t ldy, unsigned flags);

#define HS_KERNEL(op, isa, fn) HS_DECLARE_##op(fn)
#include "kernels.inc"
#undef HS_KERNEL

#ifdef __cplusplus
}
#endif

#endif
