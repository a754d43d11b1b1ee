/* SPDX-License-Identifier: MIT */
/* f64 fused attention row over a list of key segments, AVX2+FMA, two
 * passes (exact max, then sum and weighted values with that max), rr2-p11
 * exp (f64-exp-rr2-p11.h), in chunks of 64 keys. Scores 4 keys per
 * register: contiguous dk in {1, 2} by plain loads
 * (block_scores_contig256), otherwise one FMA chain per key over 4-double
 * chunks (block_scores, shared with the online kernels); values lane-wise
 * for dv == 1 contiguous, else 4 columns per register and 4 accumulators.
 * Contiguous keys with dk in {1, 2, 4} and one value column take the lane
 * path below instead (sums within (n/4 + 4) u in place of (n/64 + 20) u
 * below).
 *
 * Error bound (u = 2^-53): |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc
 * inv_tau|; weights' relative error <= |ds_j| + |ds_max| + 3 u; chunk sums
 * of at most 16 adds per lane or accumulator, 2 to fold accumulators, a
 * running total per lane (one add per chunk), 2 to fold its lanes, so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/64 + 20) u) sum_j e_j |v_jc|
 * to first order, with no rescaling (checked by tests/test-f64-2pass.c).
 *
 * Skipping (HS_F64_SKIP_CUT in hardsoft/kernels.h; the scalar kernel's
 * comment): outside the lane path (whose argument is in
 * f64-attn-rows-2pass-rr2-p11-impl.h) every segment is walked in chunks
 * of 64 from its own start,
 * so a key's score, weight and chunk sums depend only on its segment;
 * a weight is exactly +0 for x = s - max < HS_F64_WEIGHT_CUT = -87.5
 * (hardsoft/kernels.h) and normal otherwise, so a key with s - max < -88
 * weighs +0; a chunk of
 * such keys has chunk sums +0, and adding +0 to a running lane (which
 * starts at +0 and is never -0) changes nothing: leaving the segment out
 * gives the same bits.
 *
 * Outputs overwritten: st->max, st->sum, acc[0..dv). -inf scores add 0; a
 * +inf max gives the +inf scores weight 1, others 0; a NaN score makes sum
 * and every acc NaN. */
#include <immintrin.h>
#include <math.h>

#include "vec-f64-avx2.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 64
#include "attn-f64-blocks-avx2.h"

typedef struct {
  hs_f64_q4 q4;   /* the general scores' q * inv_tau */
  __m256d qc;     /* contiguous dk in {1, 2}: lane i = q[i mod dk] * inv_tau */
  int DK;
} qdesc;

static void qd_init(qdesc *o, const double *q, size_t dk, size_t ldk,
                    double inv_tau) {
  hs_f64_q4_init(&o->q4, q, dk, inv_tau);
  o->DK = ldk == dk && (dk == 1 || dk == 2) ? (int)dk : 0;
  o->qc = _mm256_setzero_pd();
  if (o->DK == 1) o->qc = _mm256_set1_pd(q[0] * inv_tau);
  if (o->DK == 2) {
    double a = q[0] * inv_tau, b = q[1] * inv_tau;
    o->qc = _mm256_setr_pd(a, b, a, b);
  }
}

/* Scores of the nb <= 64 keys at k into sb (-inf past nb, up to nb
 * rounded to 4); their max (NaN skipped), *nan set when one is NaN. */
static double scores(const qdesc *o, size_t nb, const double *k, size_t ldk,
                     double *sb, int *nan) {
  double m;
  if (o->DK == 1) m = block_scores_contig256(nb, k, o->qc, 1, sb);
  else if (o->DK == 2) m = block_scores_contig256(nb, k, o->qc, 2, sb);
  else m = block_scores(nb, k, ldk, o->q4.qv, o->q4.nc, o->q4.mk, o->q4.full, sb);
  __m256d bad = _mm256_setzero_pd();
  for (size_t g = 0; g < nb; g += 4) {
    __m256d s = _mm256_load_pd(sb + g);
    bad = _mm256_or_pd(bad, _mm256_cmp_pd(s, s, _CMP_UNORD_Q));
  }
  *nan |= _mm256_movemask_pd(bad) != 0;
  return m;
}

/* Pass 1: the max of the scores of every listed key (NaN skipped; -inf
 * for none); *nan set when a score is NaN. */
static double pass1(const qdesc *o, size_t nseg, const size_t *seg,
                    const double *k, size_t ldk, double *sb, int *nan) {
  double m = -INFINITY;
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      double bm = scores(o, nb, k + j0 * ldk, ldk, sb, nan);
      if (bm > m) m = bm;
    }
  }
  return m;
}

/* run[0..dv) += sum_{j<nb} e[j] v_j: 4 columns per register, 4
 * accumulators (keys j mod 4). */
static void values(size_t nb, const double *e, const double *vb, size_t ldv,
                   size_t dv, double *run) {
  for (size_t c = 0; c < dv; c += 4) {
    const __m256i mc = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(dv - c)),
                                          _mm256_setr_epi64x(0, 1, 2, 3));
#define STEP(a, j) \
  a = _mm256_fmadd_pd(_mm256_broadcast_sd(e + (j)), _mm256_maskload_pd(vb + (j) * ldv + c, mc), a)
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    size_t j = 0;
    for (; j + 4 <= nb; j += 4) {
      STEP(a0, j); STEP(a1, j + 1); STEP(a2, j + 2); STEP(a3, j + 3);
    }
    for (; j < nb; j++) STEP(a0, j);
#undef STEP
    a0 = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
    _mm256_store_pd(run + c, _mm256_add_pd(_mm256_load_pd(run + c), a0));
  }
}

static double hsum4(__m256d x) {
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd(x, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

/* The lane path (f64-attn-rows-2pass-rr2-p11-impl.h): contiguous keys
 * with dk in {1, 2, 4} and one value column, 4 keys a group. A key's
 * score is its DK products summed in pairs, (p0 + p1) + (p2 + p3) for
 * dk = 4 (error <= (log2(DK) + 1) u sum |q k|), whichever lane it is in;
 * the keys outside the group's lanes are not read (masked loads) and
 * score -inf. The same code takes several rows by stage
 * (f64_attn_rows_2pass). */
#define HS_F64_LANES
#define HS_F64_LANE_DKS(X) X(1) X(2) X(4)
static inline vd hs_vd_exp(vd x) { return hs_f64_vexp_below(x, HS_F64_WEIGHT_CUT); }
static inline vd qc_dk(const double *q, int DK, double inv_tau) {
  double t[4];
  for (int i = 0; i < 4; i++) t[i] = q[i % DK] * inv_tau;
  return _mm256_loadu_pd(t);
}
/* all-ones where lo <= idx < hi */
static inline __m256i lanes_in(__m256i idx, unsigned lo, unsigned hi) {
  return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(lo), idx),
                             _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), idx));
}
HS_ALWAYS_INLINE vd group_scores_dk(
    const double *k, size_t g, unsigned lo, unsigned hi, vd qc, int DK) {
  const double *kg = k + g * (size_t)DK;
  if (lo == 0 && hi == 4) {
    /* a whole group (most of a long row's): plain loads, the same
     * arithmetic as below */
    if (DK == 1) return _mm256_mul_pd(_mm256_loadu_pd(kg), qc);
    if (DK == 2)
      return _mm256_permute4x64_pd(_mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg), qc),
                                                  _mm256_mul_pd(_mm256_loadu_pd(kg + 4), qc)),
                                   0xD8);
    __m256d h01 = _mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg), qc),
                                 _mm256_mul_pd(_mm256_loadu_pd(kg + 4), qc));
    __m256d h23 = _mm256_hadd_pd(_mm256_mul_pd(_mm256_loadu_pd(kg + 8), qc),
                                 _mm256_mul_pd(_mm256_loadu_pd(kg + 12), qc));
    return _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                         _mm256_permute2f128_pd(h01, h23, 0x31));
  }
  const __m256i key = _mm256_setr_epi64x(0, 1, 2, 3);
  __m256d s;
  if (DK == 1) {
    s = _mm256_mul_pd(_mm256_maskload_pd(kg, lanes_in(key, lo, hi)), qc);
  } else if (DK == 2) {
    /* hadd gives [k0, k2, k1, k3]: back to key order */
    __m256d a = _mm256_maskload_pd(kg, lanes_in(_mm256_setr_epi64x(0, 0, 1, 1), lo, hi));
    __m256d b = _mm256_maskload_pd(kg + 4, lanes_in(_mm256_setr_epi64x(2, 2, 3, 3), lo, hi));
    s = _mm256_permute4x64_pd(_mm256_hadd_pd(_mm256_mul_pd(a, qc), _mm256_mul_pd(b, qc)), 0xD8);
  } else {
    /* one key per register; h01 = [k0 01, k1 01, k0 23, k1 23] */
    __m256d x[4];
    for (int i = 0; i < 4; i++)
      x[i] = _mm256_mul_pd(
          _mm256_maskload_pd(kg + 4 * i, lanes_in(_mm256_set1_epi64x(i), lo, hi)), qc);
    __m256d h01 = _mm256_hadd_pd(x[0], x[1]), h23 = _mm256_hadd_pd(x[2], x[3]);
    s = _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),
                      _mm256_permute2f128_pd(h01, h23, 0x31));
  }
  return _mm256_blendv_pd(_mm256_set1_pd(-INFINITY), s,
                          _mm256_castsi256_pd(lanes_in(key, lo, hi)));
}
static inline vd group_values1(const double *v, size_t g, unsigned lo, unsigned hi) {
  if (lo == 0 && hi == 4) return _mm256_loadu_pd(v + g);
  return _mm256_maskload_pd(v + g, lanes_in(_mm256_setr_epi64x(0, 1, 2, 3), lo, hi));
}
#include "f64-attn-rows-2pass-rr2-p11-impl.h"

void hs_f64_attn_row_2pass_ukernel__avx2_rr2_p11(
    size_t nseg, const size_t *seg, size_t dk, size_t dv, const double *q,
    const double *k, size_t ldk, const double *v, size_t ldv, double inv_tau,
    hs_f64_online *st, double *acc) {
  if (hs_f64_rows_lanes(1, &nseg, &seg, dk, dv, q, 0, k, ldk, v, ldv, inv_tau, st, acc, 0))
    return;
  qdesc o;
  qd_init(&o, q, dk, ldk, inv_tau);
  _Alignas(64) double sb[BLK];
  _Alignas(64) double run[HS_ATTN_MAX_D];
  int nan = 0;
  const double m = pass1(&o, nseg, seg, k, ldk, sb, &nan);
  st->max = m;
  st->sum = nan ? NAN : 0.0;
  for (size_t c = 0; c < dv; c++) acc[c] = nan ? NAN : 0.0;
  if (nan || m == -INFINITY) return;
  /* pass 2: weights with the fixed max, chunk sums into running lanes */
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) run[c] = 0.0;
  const int v1 = dv == 1 && ldv == 1;
  const __m256d vm = _mm256_set1_pd(m);
  __m256d vsum = _mm256_setzero_pd(), vacc = _mm256_setzero_pd();
  for (size_t t = 0; t < nseg; t++) {
    const size_t s0 = seg[2 * t], cnt = seg[2 * t + 1];
    for (size_t j0 = s0; j0 < s0 + cnt; j0 += BLK) {
      const size_t nb = s0 + cnt - j0 < BLK ? s0 + cnt - j0 : BLK;
      int nan2 = 0;
      scores(&o, nb, k + j0 * ldk, ldk, sb, &nan2); /* past nb: -inf */
      __m256d bsum = _mm256_setzero_pd();
      for (size_t g = 0; g < nb; g += 4) {
        __m256d s = _mm256_load_pd(sb + g), e;
        if (m != INFINITY) /* s - m <= 0, no NaN; +0 below the cutoff, -inf */
          e = hs_f64_vexp_below(_mm256_sub_pd(s, vm), HS_F64_WEIGHT_CUT);
        else /* max = +inf: the +inf scores take weight 1, others 0 */
          e = _mm256_and_pd(_mm256_cmp_pd(s, vm, _CMP_EQ_OQ), _mm256_set1_pd(1.0));
        _mm256_store_pd(sb + g, e);
        bsum = _mm256_add_pd(bsum, e);
      }
      vsum = _mm256_add_pd(vsum, bsum);
      const double *vb = v + j0 * ldv;
      if (v1) {
        /* lane-wise; e past nb is +0 and the masked load reads nothing */
        __m256d b = _mm256_setzero_pd();
        for (size_t g = 0; g < nb; g += 4) {
          const __m256i mv = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(nb - g)),
                                                _mm256_setr_epi64x(0, 1, 2, 3));
          b = _mm256_fmadd_pd(_mm256_load_pd(sb + g), _mm256_maskload_pd(vb + g, mv), b);
        }
        vacc = _mm256_add_pd(vacc, b);
      } else if (dv > 0) {
        values(nb, sb, vb, ldv, dv, run);
      }
    }
  }
  st->sum = hsum4(vsum);
  if (v1) run[0] = hsum4(vacc);
  for (size_t c = 0; c < dv; c++) acc[c] = run[c];
}

HS_DEFINE_F64_ATTN_ROWS_2PASS(hs_f64_attn_rows_2pass_ukernel__avx2_rr2_p11,
                              hs_f64_attn_row_2pass_ukernel__avx2_rr2_p11)
