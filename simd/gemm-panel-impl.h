/* SPDX-License-Identifier: MIT */
/* Batch of gemv, Y = X A^T, written once over the vector vocabulary for
 * both precisions (HS_GEMM_T: float, or double over vec-f64 through
 * vec-f64-as-vf.h). A is read in panels of HS_GEMM_NR outputs, one line of
 * HS_GEMM_NR entries per input c: packed once with the weights
 * (f32_gemm_pk, hs_f32_gemm_pack), or for f32_gemm one block of
 * HS_GEMM_KC inputs at a time transposed into at[] per call (zero past m).
 * Rows of X take FMA chains y += x_ic * w[c] (x_ic broadcast), VF_LANES
 * outputs per register and a masked store past m: no horizontal sums.
 * One row's chain of k FMAs is latency-bound, so 8 rows at a time share
 * each load of w[c] when a panel's outputs fit one register (4 for short
 * chains), 4 rows with two registers each otherwise: 8 independent
 * chains (the compiled models' narrow shapes: m = 1..16 outputs, k = the
 * model width, or m = the width and k = 1..4). Each row's chain is the
 * same sequence as alone, so a row's bits do not depend on the grouping
 * or on how many rows the call takes (nor on when its Y is loaded: where
 * the last register is masked, a group's Y is read before the stores of
 * the group before it, see hs_gemm_yin); chains longer than HS_GEMM_KC
 * (f32_gemm) continue from the stored partial sums, the same chain.
 * Error per output: |y_ir - y*_ir| <= (k + 1) u sum_c |x_ic a_rc|,
 * u = 2^-24 (f32) or 2^-53 (f64), one rounding per FMA where vf_fma is
 * fused; two per term otherwise (wasm128): 2k u. The epilogue of
 * f32_gemm_pk (bias, accumulate, ReLU) rounds once per add, as the
 * separate steps it replaces did.
 * A kernel file includes one vector vocabulary and this header and
 * defines its symbols by HS_DEFINE_GEMM / HS_DEFINE_GEMM_PK. */
#ifndef HS_GEMM_PANEL_IMPL_H
#define HS_GEMM_PANEL_IMPL_H

#include "ukernels.h"

#ifndef HS_GEMM_T
#define HS_GEMM_T float
#endif
typedef HS_GEMM_T hs_gt;

#define HS_GEMM_KC 64
/* internal flags: the chains continue from the partial sums in Y; a row
 * group reads its Y (HS_GEMM_ACC) before its chains (see hs_gemm_yin) */
#define HS_GEMM_CONT_ 4u
#define HS_GEMM_PRE_ 16u
/* the step functions, inlined into one copy per flag combination
 * (hs_gemm_panel) so that no flag is tested per row */

static inline vf hs_gemm_ld(const hs_gt *p, size_t n) {
  return n >= VF_LANES ? vf_loadu(p) : vf_load_tail(p, n);
}

static inline void hs_gemm_st(hs_gt *p, vf v, size_t n) {
  if (n >= VF_LANES) vf_storeu(p, v);
  else vf_store_tail(p, v, n);
}

/* What a row group reads of Y before its chains: the partial sums
 * (HS_GEMM_CONT_) or, with HS_GEMM_PRE_, the values the epilogue adds
 * (HS_GEMM_ACC). Where a panel's last register is masked, a masked load
 * overlapping the masked-off lanes of the previous row's masked store
 * waits for that store to commit (measured 6-8 ns per row at m = 9, ldy
 * = 9 on an Intel Xeon); with the whole group's Y loaded before any of
 * its stores a group stalls once instead of once per row. Elsewhere the
 * epilogue loads Y, as the preloads would spill on AVX2 (measured 4%
 * slower on the depth-4 formula's gemm phase). */
HS_ALWAYS_INLINE vf hs_gemm_yin(const hs_gt *y, size_t n, unsigned fl) {
  return fl & (HS_GEMM_CONT_ | HS_GEMM_PRE_) ? hs_gemm_ld(y, n) : vf_zero();
}

HS_ALWAYS_INLINE vf hs_gemm_init(vf yin, unsigned fl) {
  return fl & HS_GEMM_CONT_ ? yin : vf_zero();
}

/* The n outputs of t to y (yin: what hs_gemm_yin read there): the
 * epilogue of the kernels' contract. */
HS_ALWAYS_INLINE void hs_gemm_out(hs_gt *y, vf yin, vf t, const hs_gt *b,
                               size_t n, unsigned fl) {
  if (b) t = vf_add(t, hs_gemm_ld(b, n));
  if (fl & HS_GEMM_ACC) t = vf_add(fl & HS_GEMM_PRE_ ? yin : hs_gemm_ld(y, n), t);
  if (fl & HS_GEMM_RELU) t = vf_max(t, vf_zero()); /* t > 0 ? t : 0 */
  hs_gemm_st(y, t, n);
}

/* One output register per row: 8 rows at a time where the chains are
 * long enough to pay for the eight rows' pointers (k >= 8; with k = 2
 * they measured 1.4x slower than 4 rows on AVX-512 on Zen 4), or where
 * a masked Y is read before the chains (HS_GEMM_PRE_, below), then 4
 * at a time, then the rest. */
#define HS_GEMM_1V_ROWS(R, ROWS)                                          \
  for (; i + R <= rows; i += R) {                                         \
    const hs_gt *x0 = x + i * ldx;                                        \
    hs_gt *y0 = y + i * ldy;                                              \
    ROWS(HS_GEMM_INIT)                                                    \
    for (size_t c = 0; c < kc; c++) {                                     \
      const vf t = vf_loadu(w + c * HS_GEMM_NR);                          \
      ROWS(HS_GEMM_STEP)                                                  \
    }                                                                     \
    ROWS(HS_GEMM_OUT)                                                     \
  }
#define HS_GEMM_ROWS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define HS_GEMM_ROWS4(X) X(0) X(1) X(2) X(3)
#define HS_GEMM_INIT(j)                                                   \
  const vf u##j = hs_gemm_yin(y0 + j * ldy, n0, fl);                      \
  vf a##j = hs_gemm_init(u##j, fl);
#define HS_GEMM_STEP(j) a##j = vf_fma(vf_set1(x0[j * ldx + c]), t, a##j);
#define HS_GEMM_OUT(j) hs_gemm_out(y0 + j * ldy, u##j, a##j, b, n0, fl);
/* HS_GEMM_PRE_ (so not HS_GEMM_CONT_: the chains start at 0), 8 rows at a
 * time, the next group's Y (p) loaded before this group's stores, so
 * that no load waits for a masked store (1.3x faster again at m = 9,
 * k = 1 on an Intel Xeon); the same values, as the rows are disjoint. */
#define HS_GEMM_PLD(j)                                                    \
  const vf p##j = i + 16 <= rows ? hs_gemm_ld(y0 + (8 + j) * ldy, n0)     \
                                 : vf_zero();
#define HS_GEMM_PZERO(j) vf a##j = vf_zero();
#define HS_GEMM_PNEXT(j) u##j = p##j;
#define HS_GEMM_PFIRST(j) vf u##j = hs_gemm_ld(y + j * ldy, n0);
HS_ALWAYS_INLINE size_t hs_gemm_1v(size_t rows, size_t n0, size_t kc,
                                const hs_gt *w, const hs_gt *b, const hs_gt *x,
                                size_t ldx, hs_gt *y, size_t ldy, unsigned fl) {
  size_t i = 0;
  if ((fl & HS_GEMM_PRE_) && rows >= 8) {
    HS_GEMM_ROWS8(HS_GEMM_PFIRST)
    for (; i + 8 <= rows; i += 8) {
      const hs_gt *x0 = x + i * ldx;
      hs_gt *y0 = y + i * ldy;
      HS_GEMM_ROWS8(HS_GEMM_PZERO)
      for (size_t c = 0; c < kc; c++) {
        const vf t = vf_loadu(w + c * HS_GEMM_NR);
        HS_GEMM_ROWS8(HS_GEMM_STEP)
      }
      HS_GEMM_ROWS8(HS_GEMM_PLD)
      HS_GEMM_ROWS8(HS_GEMM_OUT)
      HS_GEMM_ROWS8(HS_GEMM_PNEXT)
    }
  } else if (kc >= 8)
    HS_GEMM_1V_ROWS(8, HS_GEMM_ROWS8)
  HS_GEMM_1V_ROWS(4, HS_GEMM_ROWS4)
  return i;
}
#undef HS_GEMM_PFIRST
#undef HS_GEMM_PNEXT
#undef HS_GEMM_PZERO
#undef HS_GEMM_PLD
#undef HS_GEMM_OUT
#undef HS_GEMM_STEP
#undef HS_GEMM_INIT
#undef HS_GEMM_ROWS4
#undef HS_GEMM_ROWS8
#undef HS_GEMM_1V_ROWS

/* Two output registers per row, 4 rows at a time. With HS_GEMM_PRE_ the
 * next group's first row is read before this group's stores (pu, pv):
 * a row's Y is wider than one register, so only the next row's loads
 * overlap a row's masked store. */
HS_ALWAYS_INLINE size_t hs_gemm_2v(size_t rows, size_t n0, size_t n1, size_t kc,
                                const hs_gt *w, const hs_gt *b, const hs_gt *x,
                                size_t ldx, hs_gt *y, size_t ldy, unsigned fl) {
  size_t i = 0;
  const hs_gt *b1 = b ? b + VF_LANES : NULL;
  vf pu = vf_zero(), pv = vf_zero();
  for (; i + 4 <= rows; i += 4) {
    const hs_gt *x0 = x + i * ldx;
    hs_gt *y0 = y + i * ldy;
    const int pre = (fl & HS_GEMM_PRE_) && i > 0;
#define HS_GEMM_ROWS(X) X(0) X(1) X(2) X(3)
#define HS_GEMM_INIT(j)                                                    \
  const vf u##j = j == 0 && pre ? pu : hs_gemm_yin(y0 + j * ldy, n0, fl);  \
  const vf v##j = j == 0 && pre ? pv                                       \
                                : hs_gemm_yin(y0 + j * ldy + VF_LANES, n1, fl); \
  vf a##j = hs_gemm_init(u##j, fl), e##j = hs_gemm_init(v##j, fl);
#define HS_GEMM_STEP(j)                      \
  {                                          \
    const vf s = vf_set1(x0[j * ldx + c]);   \
    a##j = vf_fma(s, t0, a##j);              \
    e##j = vf_fma(s, t1, e##j);              \
  }
#define HS_GEMM_OUT(j)                                  \
  hs_gemm_out(y0 + j * ldy, u##j, a##j, b, n0, fl);     \
  hs_gemm_out(y0 + j * ldy + VF_LANES, v##j, e##j, b1, n1, fl);
    HS_GEMM_ROWS(HS_GEMM_INIT)
    for (size_t c = 0; c < kc; c++) {
      const vf t0 = vf_loadu(w + c * HS_GEMM_NR);
      const vf t1 = vf_loadu(w + c * HS_GEMM_NR + VF_LANES);
      HS_GEMM_ROWS(HS_GEMM_STEP)
    }
    if ((fl & HS_GEMM_PRE_) && i + 8 <= rows) {
      pu = hs_gemm_ld(y0 + 4 * ldy, n0);
      pv = hs_gemm_ld(y0 + 4 * ldy + VF_LANES, n1);
    }
    HS_GEMM_ROWS(HS_GEMM_OUT)
#undef HS_GEMM_OUT
#undef HS_GEMM_STEP
#undef HS_GEMM_INIT
#undef HS_GEMM_ROWS
  }
  return i;
}

/* Every row against one panel: its mr <= HS_GEMM_NR outputs, inputs
 * [0, kc), w the panel (HS_GEMM_NR entries per input), b the bias of
 * these outputs or NULL. */
HS_ALWAYS_INLINE void hs_gemm_panel_(size_t rows, size_t mr, size_t kc,
                                   const hs_gt *w, const hs_gt *b,
                                   const hs_gt *x, size_t ldx, hs_gt *y,
                                   size_t ldy, unsigned fl) {
  for (size_t v = 0; v < mr; v += 2 * VF_LANES) {
    const size_t n0 = mr - v < VF_LANES ? mr - v : VF_LANES;
    const size_t n1 = mr - v > VF_LANES ? mr - v - VF_LANES : 0;
    const hs_gt *wv = w + v, *bv = b ? b + v : NULL;
    hs_gt *yv = y + v;
    const size_t n1v = n1 < VF_LANES ? n1 : VF_LANES;
    size_t i;
    if ((fl & HS_GEMM_ACC) && (n1 ? n1v : n0) < VF_LANES) /* masked: preload */
      i = n1 ? hs_gemm_2v(rows, n0, n1v, kc, wv, bv, x, ldx, yv, ldy, fl | HS_GEMM_PRE_)
             : hs_gemm_1v(rows, n0, kc, wv, bv, x, ldx, yv, ldy, fl | HS_GEMM_PRE_);
    else
      i = n1 ? hs_gemm_2v(rows, n0, n1v, kc, wv, bv, x, ldx, yv, ldy, fl)
             : hs_gemm_1v(rows, n0, kc, wv, bv, x, ldx, yv, ldy, fl);
    for (; i < rows; i++) {
      const hs_gt *xi = x + i * ldx;
      hs_gt *yi = y + i * ldy + v;
      for (size_t u = 0; u < n0 + n1 && u < 2 * VF_LANES; u += VF_LANES) {
        const size_t nu = u ? (n1 < VF_LANES ? n1 : VF_LANES) : n0;
        const vf yin = hs_gemm_yin(yi + u, nu, fl);
        vf acc = hs_gemm_init(yin, fl);
        for (size_t c = 0; c < kc; c++)
          acc = vf_fma(vf_set1(xi[c]), vf_loadu(wv + c * HS_GEMM_NR + u), acc);
        hs_gemm_out(yi + u, yin, acc, bv ? bv + u : NULL, nu, fl);
      }
    }
  }
}

/* hs_gemm_panel_ with the flags and whether there is a bias constant:
 * the combinations the kernels' callers use, and a generic copy. */
static void hs_gemm_panel(size_t rows, size_t mr, size_t kc, const hs_gt *w,
                          const hs_gt *b, const hs_gt *x, size_t ldx,
                          hs_gt *y, size_t ldy, unsigned fl) {
  switch (fl | (b ? 8u : 0u)) {
#define HS_GEMM_FL(F)                                                     \
  case F:                                                                 \
    hs_gemm_panel_(rows, mr, kc, w, (F) & 8u ? b : NULL, x, ldx, y, ldy,  \
                   (F) & 7u);                                             \
    return;
    HS_GEMM_FL(0) HS_GEMM_FL(HS_GEMM_CONT_) HS_GEMM_FL(HS_GEMM_ACC)
    HS_GEMM_FL(HS_GEMM_RELU) HS_GEMM_FL(8u | HS_GEMM_ACC) HS_GEMM_FL(8u | HS_GEMM_RELU)
#undef HS_GEMM_FL
    default:
      hs_gemm_panel_(rows, mr, kc, w, b, x, ldx, y, ldy, fl);
  }
}

/* f32_gemm / f64_gemm: A unpacked, one block of HS_GEMM_KC inputs of
 * each panel transposed into at[] at a time. */
static inline void hs_gemm_rows(size_t rows, size_t m, size_t k,
                                const hs_gt *a, size_t lda, const hs_gt *x,
                                size_t ldx, hs_gt *y, size_t ldy) {
  _Alignas(64) hs_gt at[HS_GEMM_KC * HS_GEMM_NR];
  for (size_t r0 = 0; r0 < m; r0 += HS_GEMM_NR) {
    const size_t mr = m - r0 < HS_GEMM_NR ? m - r0 : HS_GEMM_NR;
    for (size_t c0 = 0; c0 < k || c0 == 0; c0 += HS_GEMM_KC) {
      const size_t kc = k - c0 < HS_GEMM_KC ? k - c0 : HS_GEMM_KC;
      for (size_t c = 0; c < kc; c++)
        for (size_t r = 0; r < HS_GEMM_NR; r++)
          at[c * HS_GEMM_NR + r] = r < mr ? a[(r0 + r) * lda + c0 + c] : 0;
      hs_gemm_panel(rows, mr, kc, at, NULL, x + c0, ldx, y + r0, ldy,
                    c0 ? HS_GEMM_CONT_ : 0u);
      if (k == 0) break;
    }
  }
}

/* f32_gemm_pk / f64_gemm_pk: the panels packed by hs_f32_gemm_pack, each
 * by HS_GEMM_PK_PANEL (hs_gemm_panel unless the kernel file chose
 * another for some panels, with the same arguments and bits). */
#ifndef HS_GEMM_PK_PANEL
#define HS_GEMM_PK_PANEL hs_gemm_panel
#endif
static inline void hs_gemm_pk(size_t rows, size_t m, size_t k,
                              const hs_gt *pk, const hs_gt *bias,
                              const hs_gt *x, size_t ldx, hs_gt *y,
                              size_t ldy, unsigned flags) {
  flags &= HS_GEMM_ACC | HS_GEMM_RELU;
  for (size_t r0 = 0; r0 < m; r0 += HS_GEMM_NR, pk += HS_GEMM_NR * k) {
    const size_t mr = m - r0 < HS_GEMM_NR ? m - r0 : HS_GEMM_NR;
    HS_GEMM_PK_PANEL(rows, mr, k, pk, bias ? bias + r0 : NULL, x, ldx, y + r0, ldy,
                     flags);
  }
}

#define HS_DEFINE_GEMM(fn)                                                   \
  void fn(size_t rows, size_t m, size_t k, const hs_gt *a, size_t lda,       \
          const hs_gt *x, size_t ldx, hs_gt *y, size_t ldy) {                \
    hs_gemm_rows(rows, m, k, a, lda, x, ldx, y, ldy);                         \
  }
#define HS_DEFINE_GEMM_PK(fn)                                                \
  void fn(size_t rows, size_t m, size_t k, const hs_gt *pk,                  \
          const hs_gt *bias, const hs_gt *x, size_t ldx, hs_gt *y,           \
          size_t ldy, unsigned flags) {                                      \
    hs_gemm_pk(rows, m, k, pk, bias, x, ldx, y, ldy, flags);                  \
  }

#endif
