/* SPDX-License-Identifier: MIT */
/* hardsoft's kernels, for code that calls them directly: the benchmarks,
 * the tests, the runtime and `hardsoft info`. Users of the library need
 * only <hardsoft.h>, which names the table (hs_kernels) without its
 * layout. Every kernel type states its contract here: NaN and -inf
 * handling, aliasing, what a fully masked row gives. The kernels
 * themselves are in simd/, listed once in simd/kernels.inc. */
#ifndef HARDSOFT_KERNELS_H
#define HARDSOFT_KERNELS_H

#include "hardsoft.h"

#ifdef __cplusplus
extern "C" {
#endif


/* Online-softmax state carried across calls of an attention-row kernel:
 * after all key ranges, out = acc / sum (or 0 when sum == 0, a fully masked
 * row). Initialise max = -INFINITY, sum = 0, acc[0..dv) = 0. */
typedef struct hs_f32_online { float max; float sum; } hs_f32_online;
typedef struct hs_f64_online { double max; double sum; } hs_f64_online;

/* y[i] = exp(x[i]). x and y may alias exactly. */
typedef void (*hs_f32_vexp_fn)(size_t n, const float *x, float *y);
/* max of x[0..n); -INFINITY for n == 0; NaN if any element is NaN. */
typedef float (*hs_f32_rmax_fn)(size_t n, const float *x);
/* y = softmax(x * inv_tau). x and y may alias exactly (in place). -inf
 * entries get exactly 0; a row with no finite-or-+inf entry gives all 0;
 * a NaN anywhere makes the whole row NaN. */
typedef void (*hs_f32_softmax_fn)(size_t n, const float *x, float *y,
                                  float inv_tau);
/* sum_i a[i] * b[i] */
typedef float (*hs_f32_dot_fn)(size_t n, const float *a, const float *b);
/* y[r] = sum_c a[r*lda + c] * x[c], r < m, c < k (m, k <= 256 typical). */
typedef void (*hs_f32_gemv_fn)(size_t m, size_t k, const float *a,
                               size_t lda, const float *x, float *y);
/* acc[c] += sum_j w[j] * v[j*ldv + c], j < n, c < d. */
typedef void (*hs_f32_wsum_fn)(size_t n, size_t d, const float *w,
                               const float *v, size_t ldv, float *acc);
/* One query against keys k[j*ldk .. +dk), values v[j*ldv .. +dv), j < n,
 * scores (q . k_j) * inv_tau, folded into the online state st/acc in one
 * pass with no n-long buffer. dk, dv <= HS_ATTN_MAX_D. */
typedef void (*hs_f32_attn_row_fn)(size_t n, size_t dk, size_t dv,
                                   const float *q, const float *k, size_t ldk,
                                   const float *v, size_t ldv, float inv_tau,
                                   hs_f32_online *st, float *acc);
typedef double (*hs_f64_dot_fn)(size_t n, const double *a, const double *b);
typedef void (*hs_f64_gemv_fn)(size_t m, size_t k, const double *a,
                               size_t lda, const double *x, double *y);
typedef void (*hs_f64_attn_row_fn)(size_t n, size_t dk, size_t dv,
                                   const double *q, const double *k,
                                   size_t ldk, const double *v, size_t ldv,
                                   double inv_tau, hs_f64_online *st,
                                   double *acc);

/* Two-pass attention row over a list of key segments: segment t is keys
 * seg[2t] .. seg[2t] + seg[2t+1] - 1 (indices into k and v, increasing,
 * not overlapping). Pass 1 takes the exact max of the scores
 * (q . k_j) * inv_tau over every listed key; pass 2 sums e_j = exp(s_j -
 * max) and e_j v_j with that max fixed, each segment in chunks of 64 keys
 * from its own start. Outputs overwritten: st->max, st->sum = sum_j e_j,
 * acc[0..dv) = sum_j e_j v_j. A segment whose scores are all more than 88
 * below the max (weights exactly +0) can be left out with the same bits
 * (finite values): the exact skipping of hs_run_opts.skip. */
typedef void (*hs_f32_attn_row_2pass_fn)(size_t nseg, const size_t *seg,
                                         size_t dk, size_t dv, const float *q,
                                         const float *k, size_t ldk,
                                         const float *v, size_t ldv,
                                         float inv_tau, hs_f32_online *st,
                                         float *acc);
/* The same with the relative bias of the _bias kernels below: key j (its
 * index into k) gets fma(slope, (float)(int32_t)(d0 + j), s_j) in both
 * passes; skipping as f32_attn_row_2pass, on the biased scores. */
typedef void (*hs_f32_attn_row_2pass_bias_fn)(size_t nseg, const size_t *seg,
                                              size_t dk, size_t dv,
                                              const float *q, const float *k,
                                              size_t ldk, const float *v,
                                              size_t ldv, float inv_tau,
                                              float slope, int64_t d0,
                                              hs_f32_online *st, float *acc);

/* Rows of one head through f32_attn_row_2pass (slope == 0) or its _bias
 * variant (slope != 0, row r's keys biased from d0[r]; d0 may be NULL
 * when slope == 0) in one call: row r has the nseg[r] segments seg[r],
 * the query q + r * ldq, and its outputs in st[r] and acc + r * ldacc,
 * each row's bits exactly those of the one-row kernel on its own (so
 * skipping keeps them too). The vector kernels run a few rows' passes
 * interleaved so that the rows' latency chains overlap. */
typedef void (*hs_f32_attn_rows_2pass_fn)(size_t nr, const size_t *nseg,
                                          const size_t *const *seg, size_t dk,
                                          size_t dv, const float *q, size_t ldq,
                                          const float *k, size_t ldk,
                                          const float *v, size_t ldv,
                                          float inv_tau, float slope,
                                          const int64_t *d0, hs_f32_online *st,
                                          float *acc, size_t ldacc);

/* The same in double (f64_attn_row_2pass), exp rr2-p11: segments, the
 * exact max of pass 1, chunks of 64 keys from each segment's start,
 * outputs and special values exactly as f32_attn_row_2pass. Weights: a
 * key whose rounded difference x = s - max is below HS_F64_WEIGHT_CUT
 * weighs exactly +0 (every f64 two-pass kernel: scalar, AVX2, AVX-512),
 * not only below the exp's own underflow at -708.4. Why that costs no
 * accuracy: such a weight is below e^-87.5 < 2^-126 of the max's weight
 * (exactly 1, so sum >= 1): leaving all of them out moves sum by less
 * than n 2^-126 of itself, and acc_c / sum by less than n 2^-126
 * max_j |v_jc|, under one rounding (2^-53) for any n below 2^73. What it
 * buys: skipping at the f32 kernels' distance instead of 709 (the f64
 * pe rows kept 3.5 times the keys of the f32 ones at 709). Skipping: a
 * segment whose every score s has s - max < -HS_F64_SKIP_CUT can be left
 * out with the same bits (finite values): s - max < -88 exactly means the
 * kernel's rounded difference is <= -88 (rounding is monotone and -88 is
 * a double), below the weight cut, so the key weighs exactly +0; +0
 * weights give chunk sums of +0 (+0 * v = +-0 for finite v, +0 + -0 =
 * +0), and +0 added to a running total, which starts at +0 and is never
 * -0, leaves it unchanged. A caller comparing its own bound in double
 * against the cut must leave room for that comparison's own rounding (as
 * HS_SKIP_CUT = 88.0001 does for f32). */
#define HS_F64_WEIGHT_CUT (-87.5)
#define HS_F64_SKIP_CUT 88.0
typedef void (*hs_f64_attn_row_2pass_fn)(size_t nseg, const size_t *seg,
                                         size_t dk, size_t dv,
                                         const double *q, const double *k,
                                         size_t ldk, const double *v,
                                         size_t ldv, double inv_tau,
                                         hs_f64_online *st, double *acc);

/* Rows of one head through f64_attn_row_2pass in one call, as
 * f32_attn_rows_2pass (no bias: f64 has no biased two-pass kernel): row
 * r's nseg[r] segments seg[r], query q + r * ldq, outputs st[r] and
 * acc + r * ldacc, each row's bits exactly those of the one-row kernel. */
typedef void (*hs_f64_attn_rows_2pass_fn)(size_t nr, const size_t *nseg,
                                          const size_t *const *seg, size_t dk,
                                          size_t dv, const double *q, size_t ldq,
                                          const double *k, size_t ldk,
                                          const double *v, size_t ldv,
                                          double inv_tau, hs_f64_online *st,
                                          double *acc, size_t ldacc);

/* Y[i*ldy + r] = sum_c X[i*ldx + c] * A[r*lda + c] for i < rows, r < m,
 * c < k: a batch of gemv, the rows of X times A^T (the forward pass's
 * projections). Row i of Y depends only on row i of X and A: the same bits
 * whatever rows is and however a caller splits the rows. */
typedef void (*hs_f32_gemm_fn)(size_t rows, size_t m, size_t k,
                               const float *a, size_t lda, const float *x,
                               size_t ldx, float *y, size_t ldy);
/* The same in double (f64_gemm), the same contract. */
typedef void (*hs_f64_gemm_fn)(size_t rows, size_t m, size_t k,
                               const double *a, size_t lda, const double *x,
                               size_t ldx, double *y, size_t ldy);

/* The same products against weights packed once (f32_gemm_pk /
 * f64_gemm_pk), with the row finishing of a layer fused in. The packing
 * (hs_f32_gemm_pack) is the same for every ISA: A's rows in panels of
 * HS_GEMM_NR, panel p holding, input after input, the HS_GEMM_NR entries
 * A[(p NR + r) lda + c] (+0 past m), so a kernel reads each panel front to
 * back and no call transposes anything. Per output:
 *   t_ir = sum_c X[i*ldx + c] A[r*lda + c], the bits of f32_gemm's y_ir on
 *          the same ISA (the same chain over c),
 *   t_ir = t_ir + bias[r]          when bias is not NULL (one rounding),
 *   y_ir = y_ir + t_ir             with HS_GEMM_ACC, else y_ir = t_ir,
 *   y_ir = y_ir > 0 ? y_ir : 0     with HS_GEMM_RELU (NaN gives 0),
 * so a residual update x += W_o o, the feed-forward's bias and ReLU, and
 * x += (W_2 h + b_2) keep the bits of the separate steps. Row i of Y
 * depends only on row i of X (and of Y with HS_GEMM_ACC). X and Y must not
 * overlap; nothing past m in a row of Y is read or written. */
#define HS_GEMM_NR 16
enum { HS_GEMM_ACC = 1, HS_GEMM_RELU = 2 };
/* The packed size of an m x k matrix, in elements. */
static inline size_t hs_gemm_pack_size(size_t m, size_t k) {
  return (m + HS_GEMM_NR - 1) / HS_GEMM_NR * HS_GEMM_NR * k;
}
#define HS_GEMM_PACK_(T, a, lda, m, k, pk)                                  \
  for (size_t p_ = 0; p_ * HS_GEMM_NR < (m); p_++)                         \
    for (size_t c_ = 0; c_ < (k); c_++)                                    \
      for (size_t r_ = 0, o_ = p_ * HS_GEMM_NR; r_ < HS_GEMM_NR; r_++)      \
        (pk)[(p_ * (k) + c_) * HS_GEMM_NR + r_] =                          \
            o_ + r_ < (m) ? (a)[(o_ + r_) * (lda) + c_] : (T)0
static inline void hs_f32_gemm_pack(size_t m, size_t k, const float *a,
                                    size_t lda, float *pk) {
  HS_GEMM_PACK_(float, a, lda, m, k, pk);
}
static inline void hs_f64_gemm_pack(size_t m, size_t k, const double *a,
                                    size_t lda, double *pk) {
  HS_GEMM_PACK_(double, a, lda, m, k, pk);
}
typedef void (*hs_f32_gemm_pk_fn)(size_t rows, size_t m, size_t k,
                                  const float *pk, const float *bias,
                                  const float *x, size_t ldx, float *y,
                                  size_t ldy, unsigned flags);
typedef void (*hs_f64_gemm_pk_fn)(size_t rows, size_t m, size_t k,
                                  const double *pk, const double *bias,
                                  const double *x, size_t ldx, double *y,
                                  size_t ldy, unsigned flags);

/* Keys per online-softmax block of f32_attn_row and f32_attn_tile. */
#define HS_ATTN_BLOCK 512

/* A range of n keys anchored at its end (the future masks: every row's
 * keys end at the BOS copy after position n) is folded as two
 * f32_attn_row calls, the state carried from one to the other: its first
 * hs_attn_end_head(n) keys (n mod HS_ATTN_BLOCK when that splits it,
 * else 0), then the rest, whole blocks ending at its last key. Rows
 * sharing their last key then share their blocks. */
static inline size_t hs_attn_end_head(size_t n) {
  size_t h = n % HS_ATTN_BLOCK;
  return h < n ? h : 0;
}

/* A tile of nq queries against keys sharing their first key (end = 0;
 * the past masks: every row's keys are 0 .. hi plus BOS) or their last
 * (end = 1; the future masks): query r, q + r*ldq, against keys
 * j0 <= j < j0 + n[r] of k and v, j0 = 0 (end = 0) or N - n[r] with N
 * the largest n[r] (end = 1), folded into st[r] and acc + r*ldacc.
 * end = 0: each query gets exactly the bits of f32_attn_row(n[r], dk, dv,
 * q + r*ldq, k, ldk, v, ldv, inv_tau, &st[r], acc + r*ldacc); end = 1:
 * those of the two calls over keys j0 .. and j0 + h .., h =
 * hs_attn_end_head(n[r]). The key blocks every query covers whole are
 * scored for several queries per key load, each query's online softmax
 * is the row kernel's own. */
typedef void (*hs_f32_attn_tile_fn)(size_t nq, const size_t *n, size_t dk,
                                    size_t dv, const float *q, size_t ldq,
                                    const float *k, size_t ldk,
                                    const float *v, size_t ldv, float inv_tau,
                                    hs_f32_online *st, float *acc,
                                    size_t ldacc, int end);

/* Hard attention over key ranges fed in order (f32_attn_hard): unique
 * hard leftmost / rightmost, or average hard. The state after the ranges:
 * best the maximal score, second the largest score below it (-INFINITY
 * when none), cnt the keys at best, pick the leftmost (HS_HARD_LEFT) or
 * rightmost key at best, numbered base + (index in the range) as the
 * caller passes base. acc: v[pick] (left / right) or the sum of v over the
 * keys at best (average: out = acc / cnt). Initialise best = second =
 * -INFINITY, cnt = pick = 0, acc[0..dv) = 0. Scores are q . k_j in f32
 * (order of the sum the kernel's own); a NaN score is never maximal, so a
 * range of NaN scores leaves cnt = 0. */
typedef enum hs_hard_rule { HS_HARD_LEFT, HS_HARD_RIGHT, HS_HARD_AVG } hs_hard_rule;
typedef struct hs_f32_hard { float best, second; size_t cnt, pick; } hs_f32_hard;
typedef void (*hs_f32_attn_hard_fn)(size_t n, size_t dk, size_t dv,
                                    const float *q, const float *k, size_t ldk,
                                    const float *v, size_t ldv, size_t base,
                                    hs_hard_rule rule, hs_f32_hard *st,
                                    float *acc);
/* The same in double (f64_attn_hard): scores q . k_j in f64, the rest
 * exactly the contract of f32_attn_hard. */
typedef struct hs_f64_hard { double best, second; size_t cnt, pick; } hs_f64_hard;
typedef void (*hs_f64_attn_hard_fn)(size_t n, size_t dk, size_t dv,
                                    const double *q, const double *k,
                                    size_t ldk, const double *v, size_t ldv,
                                    size_t base, hs_hard_rule rule,
                                    hs_f64_hard *st, double *acc);
/* The relative-position (ALiBi) variants: the row kernel's score of key j
 * of the call, s_j = (q . k_j) * inv_tau as f32_attn_row computes it, gets
 * a linear bias by one fused multiply-add,
 *     s_j = fma(slope, (float)(d0 + j), s_j),
 * d0 + j an integer in [-2^31, 2^31) (exact as a float below 2^24 in
 * magnitude), |slope| <= 2^20, the rest exactly the row kernel's
 * algorithm. The tile variant: query r's key j (index into k) gets
 * slope * (d0[r] + j), each query exactly the bits of the row variant
 * over its own keys (the calls f32_attn_tile makes, with d0 = d0[r] plus
 * the first key's index). */
typedef void (*hs_f32_attn_row_bias_fn)(size_t n, size_t dk, size_t dv,
                                        const float *q, const float *k,
                                        size_t ldk, const float *v,
                                        size_t ldv, float inv_tau,
                                        float slope, int64_t d0,
                                        hs_f32_online *st, float *acc);
typedef void (*hs_f32_attn_tile_bias_fn)(size_t nq, const size_t *n,
                                         size_t dk, size_t dv, const float *q,
                                         size_t ldq, const float *k,
                                         size_t ldk, const float *v,
                                         size_t ldv, float inv_tau,
                                         float slope, const int64_t *d0,
                                         hs_f32_online *st, float *acc,
                                         size_t ldacc, int end);

/* The bounds of exact tile skipping (hs_run_opts.skip) for n <= 16
 * sibling nodes of its tree (f64_bounds). Node k's key bounds in
 * dimension c < dk are lv[r * ld + k]: row r = c the least key
 * coordinate, dk + c the greatest, 2 dk + c the largest magnitude. With
 * qd the scaled query and aq[c] = |qd[c]|,
 *   A_k = sum_c aq_c lv[(2 dk + c) ld + k],
 *   S_k = sum_c qd_c lv[((qd_c >= 0 ? dk : 0) + c) ld + k],
 *   u[k] = A_k <= lim ? (S_k + rel A_k) + absm : NaN,
 * each sum from c = 0 up, each product and each add rounded once (no
 * fused multiply-add): the nodes sit in the lanes, every node's sums keep
 * the scalar order, so every ISA gives the scalar kernel's bits and the
 * skipping never depends on the ISA. Nothing past lv[r * ld + n - 1] is
 * read, nothing past u[n - 1] written. */
typedef void (*hs_f64_bounds_fn)(size_t n, size_t dk, const double *lv, size_t ld,
                                 const double *qd, const double *aq, double rel,
                                 double absm, double lim, double *u);
/* The tests of the skipping walk on n <= 16 node bounds u[0..n)
 * (f64_bound_test): node k's bound with its relative bias, ub_k = u[k] +
 * bias_k (bias NULL: ub_k = u[k]), where
 *   bias_k = max(p0, p1) + brel max(|p0|, |p1|), p_i = sk (j_i - row),
 * [j0, j1] node k's keys [(first + k) w, (first + k) w + w - 1] cut to
 * [a, b] (integers, exact in double), max(p, q) = p > q ? p : q. Returns
 * the bitmask (bit k: node k) of the nodes with
 *   HS_BT_KEEP:    !(x - ub_k > y)   (the walk keeps it; NaN kept),
 *   HS_BT_ABOVE:   ub_k > x          (NaN never),
 *   HS_BT_ATLEAST: ub_k >= x         (NaN never),
 * and ub_k in ub[k] unless ub is NULL. Every operation rounded once: the
 * scalar kernel's bits on every ISA. */
typedef enum hs_bt_op { HS_BT_KEEP, HS_BT_ABOVE, HS_BT_ATLEAST } hs_bt_op;
typedef struct hs_bt_bias { double sk, row, brel, a, b; } hs_bt_bias;
typedef unsigned (*hs_f64_bound_test_fn)(size_t n, const double *u, hs_bt_op op,
                                         double x, double y, const hs_bt_bias *bias,
                                         double first, double w, double *ub);

/* The operations, in table order. X(op) */
#define HS_OPS(X)                                                            \
  X(f32_vexp) X(f32_rmax) X(f32_softmax) X(f32_dot) X(f32_gemv) X(f32_wsum)  \
  X(f32_attn_row) X(f64_dot) X(f64_gemv) X(f64_attn_row)                   \
  X(f32_attn_row_2pass) X(f32_gemm) X(f32_attn_tile) X(f32_attn_row_bias)   \
  X(f32_attn_tile_bias) X(f32_attn_hard) X(f64_gemm)   \
  X(f64_attn_hard) X(f64_attn_row_2pass) X(f32_attn_row_2pass_bias)        \
  X(f64_bounds) X(f64_bound_test)                                            \
  X(f32_gemm_pk) X(f64_gemm_pk) X(f32_attn_rows_2pass) X(f64_attn_rows_2pass)

enum {
#define HS_OP_ENUM_(op) HS_OP_##op,
  HS_OPS(HS_OP_ENUM_)
#undef HS_OP_ENUM_
  HS_OP_COUNT
};

struct hs_kernels {
  hs_isa isa;
  hs_f32_vexp_fn f32_vexp;
  hs_f32_rmax_fn f32_rmax;
  hs_f32_softmax_fn f32_softmax;
  hs_f32_dot_fn f32_dot;
  hs_f32_gemv_fn f32_gemv;
  hs_f32_wsum_fn f32_wsum;
  hs_f32_attn_row_fn f32_attn_row;
  hs_f64_dot_fn f64_dot;
  hs_f64_gemv_fn f64_gemv;
  hs_f64_attn_row_fn f64_attn_row;
  hs_f32_attn_row_2pass_fn f32_attn_row_2pass;
  hs_f32_gemm_fn f32_gemm;
  hs_f32_attn_tile_fn f32_attn_tile;
  hs_f32_attn_row_bias_fn f32_attn_row_bias;
  hs_f32_attn_tile_bias_fn f32_attn_tile_bias;
  hs_f32_attn_hard_fn f32_attn_hard;
  hs_f64_gemm_fn f64_gemm;
  hs_f64_attn_hard_fn f64_attn_hard;
  hs_f64_attn_row_2pass_fn f64_attn_row_2pass;
  hs_f32_attn_row_2pass_bias_fn f32_attn_row_2pass_bias;
  hs_f64_bounds_fn f64_bounds;
  hs_f64_bound_test_fn f64_bound_test;
  hs_f32_gemm_pk_fn f32_gemm_pk;
  hs_f64_gemm_pk_fn f64_gemm_pk;
  hs_f32_attn_rows_2pass_fn f32_attn_rows_2pass;
  hs_f64_attn_rows_2pass_fn f64_attn_rows_2pass;
  /* C symbol of the kernel chosen for each op, indexed by HS_OP_* */
  const char *name[HS_OP_COUNT];
};

extern HS_API const char *const hs_op_names[HS_OP_COUNT];

/* Whether MXCSR flush-to-zero / denormals-are-zero are on in this thread. */
HS_API int hs_ftz_enabled(void);
HS_API int hs_daz_enabled(void);

#ifdef __cplusplus
}
#endif

#endif /* HARDSOFT_KERNELS_H */
