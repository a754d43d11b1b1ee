/* SPDX-License-Identifier: MIT */
/* The f64 attention rows' score blocks written over the f64 vocabulary,
 * for an ISA without attn-f64-blocks-avx2.h (2 lanes): the same
 * hs_f64_q4, hs_f64_q4_init and block_scores as that header, with the same
 * bits, and block_scores_contig_vec for block_scores_contig256: a key's score
 * is an FMA chain per lane over 4-double chunks of q and k (VD_LANES
 * divides 4: 4 / VD_LANES registers a chunk), then (l0 + l1) + (l2 + l3);
 * contiguous keys of dk 1, 2 take k q and k0 q0 + k1 q1, as
 * block_scores_contig256 does. Include after
 * one vec-f64-<isa>.h and ukernels.h, with BLK defined. */
#ifndef HS_ATTN_F64_BLOCKS_VEC_H
#define HS_ATTN_F64_BLOCKS_VEC_H

#include <math.h>

#ifndef BLK
#error "define BLK before including this header"
#endif
#if VD_LANES != 2
#error "attn-f64-blocks-vec.h is written for 2 lanes"
#endif

/* q * scale in 4-double chunks (zero past dk), two registers a chunk */
typedef struct {
  vd qv[2 * (HS_ATTN_MAX_D + 3) / 4];
  size_t nc;
  size_t mk; /* the doubles of the last chunk */
  int full;  /* the last chunk is whole */
} hs_f64_q4;

static inline void hs_f64_q4_init(hs_f64_q4 *o, const double *q, size_t dk, double scale) {
  o->nc = dk == 0 ? 1 : (dk + 3) / 4; /* dk == 0: every score is 0 */
  o->full = dk > 0 && dk % 4 == 0;
  o->mk = dk % 4;
  for (size_t c = 0; c < o->nc; c++) {
    double t[4];
    for (int i = 0; i < 4; i++) t[i] = 4 * c + i < dk ? q[4 * c + i] * scale : 0.0;
    o->qv[2 * c] = vd_loadu(t), o->qv[2 * c + 1] = vd_loadu(t + 2);
  }
}

/* key r's score: lanes 0, 1 of a chunk in a, lanes 2, 3 in b */
HS_ALWAYS_INLINE double hs_f64_dot4(const double *r, const vd *q, size_t nc, size_t mlast,
                                    int full_last) {
  vd a = vd_zero(), b = vd_zero();
  for (size_t c = 0; c + 1 < nc; c++) {
    a = vd_fma(vd_loadu(r + 4 * c), q[2 * c], a);
    b = vd_fma(vd_loadu(r + 4 * c + 2), q[2 * c + 1], b);
  }
  const double *rl = r + 4 * (nc - 1);
  const vd *ql = q + 2 * (nc - 1);
  if (full_last) {
    a = vd_fma(vd_loadu(rl), ql[0], a);
    b = vd_fma(vd_loadu(rl + 2), ql[1], b);
  } else { /* mlast in 1..3 doubles, +0 past them (0: dk == 0, nothing read) */
    a = vd_fma(mlast ? vd_load_tail(rl, mlast < 2 ? mlast : 2) : vd_zero(), ql[0], a);
    b = vd_fma(mlast > 2 ? vd_load_tail(rl + 2, mlast - 2) : vd_zero(), ql[1], b);
  }
  return vd_hsum(a) + vd_hsum(b);
}

/* Scores of nb <= BLK keys into sb (past nb: -inf); returns their max. */
static double block_scores(size_t nb, const double *k, size_t ldk, const vd *q, size_t nc,
                           size_t mlast, int full_last, double *sb) {
  double m = -INFINITY;
  for (size_t j = 0; j < nb; j++) {
    sb[j] = full_last ? hs_f64_dot4(k + j * ldk, q, nc, mlast, 1)
                      : hs_f64_dot4(k + j * ldk, q, nc, mlast, 0);
    if (sb[j] > m) m = sb[j]; /* NaN is skipped */
  }
  for (size_t g = nb; g < BLK; g++) sb[g] = -INFINITY;
  return m;
}

/* Scores of nb <= BLK contiguous keys with dk == DK in {1, 2} (DK <=
 * VD_LANES: qc holds the query) into sb (-inf up to nb rounded to
 * VD_LANES); returns their max (NaN skipped). qc: lane i holds q[i mod
 * DK] (times inv_tau, if any). */
HS_ALWAYS_INLINE double
block_scores_contig_vec(size_t nb, const double *k, vd qc, int DK, double *sb) {
  _Alignas(16) double q[VD_LANES];
  vd_storeu(q, qc);
  double m = -INFINITY;
  size_t g = 0;
  if (DK == 1) {
    vd vmax = vd_set1(-INFINITY);
    for (; g + VD_LANES <= nb; g += VD_LANES) {
      const vd s = vd_mul(vd_loadu(k + g), qc);
      vd_storeu(sb + g, s);
      vmax = vd_max(s, vmax); /* NaN in s is skipped */
    }
    m = vd_hmax(vmax);
  }
  for (; g < nb; g++) {
    const double *kj = k + g * (size_t)DK;
    sb[g] = DK == 1 ? kj[0] * q[0] : kj[0] * q[0] + kj[1] * q[1];
    if (sb[g] > m) m = sb[g];
  }
  for (size_t t = g; t < ((nb + VD_LANES - 1) & ~(size_t)(VD_LANES - 1)); t++) sb[t] = -INFINITY;
  return m;
}

#endif
