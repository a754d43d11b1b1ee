/* SPDX-License-Identifier: MIT */
/* The online-softmax state of one attention row, its per-block step and
 * the row loop, written once over the vector vocabulary for the ISAs with
 * register-blocked score and value blocks (AVX2, AVX-512; internal). The
 * row kernel (f32-attn-row-<isa>-online-*) and the tile kernel
 * (f32-attn-tile-<isa>-*) both fold their blocks with orow_block, so that
 * a query run inside a tile goes through exactly the instructions of the
 * row kernel and gets its bits.
 *
 * Include through attn-f32-online-<isa>.h, which includes one
 * vec-f32-<isa>.h and attn-f32-blocks-<isa>.h (qdesc, qd_init,
 * block_scores[_bias]) and defines the hooks whose fastest form differs
 * between the ISAs:
 *   ONLINE_POISON_SETS_SUM  1: a NaN score replaces the block's lane sums
 *       by NaN; 0: NaN is added after them (the NaN's sign and payload
 *       differ, each ISA keeps the ones it always had);
 *   online_values(nb, e, v, ldv, dv, run)  run += sum_j e[j] v_j.
 * The weights take the vector exp (f32-exp-rr2-p5-vec.h); the dv == 1
 * loop's 4 accumulators and 2 exps in flight do not fit 16 registers with
 * the exp's constants, so there (VF_REGS < 32) the constants come from
 * memory (hs_vexp_rows_opaque).
 * orow_init sets up q and the state from st/acc, orow_block folds one
 * block of nb <= BLK scores sb (block max bm, values vb = v + j0*ldv) into
 * it, orow_end writes st/acc; online_row_run is the row kernel. */
#ifndef HS_ATTN_F32_ONLINE_VEC_H
#define HS_ATTN_F32_ONLINE_VEC_H

#include <math.h>
#include <stdint.h>

#include "f32-attn-row-online-symbols.h"
#include "f32-exp-rr2-p5-vec.h"

/* the alignment of a vector, so that the buffers take aligned accesses */
#define ONLINE_ALIGN (VF_LANES * 4)

typedef struct {
  qdesc qd;
  size_t dk, dv, ldv;
  int v1;          /* dv == 1 with contiguous values: acc lane-wise in vacc */
  float m;         /* running max */
  vf vsum;         /* running sum per lane */
  vf vacc;         /* v1: running acc[0] per lane; otherwise 0 */
  float slope;     /* relative bias (the _bias kernels): key j of the */
  int64_t p0;      /* call scores + slope * (p0 + j); slope 0: none */
  _Alignas(ONLINE_ALIGN) float run[HS_ATTN_MAX_D]; /* running acc (not v1) */
} orow;

HS_ALWAYS_INLINE void orow_init(orow *o, const float *q, size_t dk, size_t dv,
                      size_t ldv, float inv_tau, const hs_f32_online *st,
                      const float *acc) {
  o->dk = dk;
  o->dv = dv;
  o->ldv = ldv;
  o->slope = 0;
  o->p0 = 0;
  qd_init(&o->qd, dk, q, inv_tau);
  float *run = o->run;
  /* whole vectors of run from acc, zero past dv: the value blocks add
   * whole vectors, and the narrow ones (dv < VF_LANES) a whole one */
  const size_t nrun = dv <= VF_LANES ? VF_LANES
                                     : (dv + VF_LANES - 1) / VF_LANES * VF_LANES;
  for (size_t c = 0; c < nrun; c += VF_LANES) {
    const size_t rem = dv > c ? dv - c : 0;
    vf_storeu(run + c, rem >= VF_LANES ? vf_loadu(acc + c) : vf_load_tail(acc + c, rem));
  }
  o->m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  o->vsum = vf_first(st->sum);
  /* dv == 1 with contiguous values: acc[0] kept per lane in vacc (lane 0
   * starts at the caller's acc[0]); otherwise vacc stays 0 */
  const int v1 = dv == 1 && ldv == 1;
  o->v1 = v1;
  o->vacc = vf_first(v1 ? acc[0] : 0.0f);
  if (v1) run[0] = 0;
}

/* The block when dv == 1 with contiguous values (o->v1) and the max m
 * finite: the weights never leave registers, vacc += e * v lane-wise (one
 * FMA per VF_LANES keys). */
HS_ALWAYS_INLINE void orow_block_v1(size_t nb, const float *sb, const float *vb, vf vm,
                                    vf *vsum_io, vf *vacc_io) {
  vf vsum = *vsum_io, vacc = *vacc_io, bsum = vf_zero();
  int poison; /* a NaN score: sum and acc become NaN */
  vf nan = vf_zero(), a1 = vf_zero();
  size_t g = 0;
  for (; g + 2 * VF_LANES <= nb; g += 2 * VF_LANES) {
#if VF_REGS < 32
    const float(*ec)[16] = hs_vexp_rows_opaque();
#else
    const float(*ec)[16] = hs_vexp_rows;
#endif
    const vf x0 = vf_sub(vf_loadu(sb + g), vm);
    const vf x1 = vf_sub(vf_loadu(sb + g + VF_LANES), vm);
    const vf e0 = hs_vexpminus_rr2_p5_c(x0, ec);
    const vf e1 = hs_vexpminus_rr2_p5_c(x1, ec);
    /* x <= 0 or NaN: nan is NaN iff some x is */
    nan = vf_add(nan, vf_add(x0, x1));
    bsum = vf_add(bsum, vf_add(e0, e1));
    vacc = vf_fma(e0, vf_loadu(vb + g), vacc);
    a1 = vf_fma(e1, vf_loadu(vb + g + VF_LANES), a1);
  }
  for (; g < nb; g += VF_LANES) {
    /* lanes >= nb hold -inf scores (weight 0) and read no value */
    const vf x = vf_sub(vf_loadu(sb + g), vm);
    const vf e = hs_vexpminus_rr2_p5(x);
    nan = vf_add(nan, x);
    bsum = vf_add(bsum, e);
    const vf vv = nb - g >= VF_LANES ? vf_loadu(vb + g) : vf_load_tail(vb + g, nb - g);
    a1 = vf_fma(e, vv, a1);
  }
  vacc = vf_add(vacc, a1);
  poison = vmask_any(vf_isnan(nan));
  if (ONLINE_POISON_SETS_SUM && poison) bsum = vf_set1(NAN);
  vsum = vf_add(vsum, bsum);
  if (poison) {
    if (!ONLINE_POISON_SETS_SUM) vsum = vf_add(vsum, vf_set1(NAN));
    vacc = vf_add(vacc, vf_set1(NAN));
  }
  *vsum_io = vsum;
  *vacc_io = vacc;
}

/* Folds one block into o: sb = its nb scores (lanes up to nb rounded up
 * to VF_LANES readable, -inf past nb), bm = their max, eb = a BLK-float
 * buffer, vb = the block's first value row. */
HS_ALWAYS_INLINE void orow_block(orow *o, size_t nb, float bm, const float *sb,
                       float *eb, const float *vb) {
  const size_t dv = o->dv, ldv = o->ldv;
  float *run = o->run;
  float m = o->m;
  vf vsum = o->vsum, vacc = o->vacc;
  if (bm > m) {
    /* the max grows: rescale what was summed so far, once per block */
    if (m != -INFINITY) {
      const vf vs = vf_set1(hs_attn_expf_scalar(m - bm)); /* in [0, 1] */
      vsum = vf_mul(vsum, vs);
      vacc = vf_mul(vacc, vs);
      for (size_t c = 0; c < dv; c += VF_LANES)
        vf_storeu(run + c, vf_mul(vf_loadu(run + c), vs));
    }
    m = bm;
  }
  if (m == -INFINITY) {
    /* nothing finite yet: the block adds 0, unless a score is NaN */
    for (size_t j = 0; j < nb; j++)
      if (isnan(sb[j])) {
        vsum = vf_add(vsum, vf_set1(NAN));
        for (size_t c = 0; c < dv; c++) run[c] += NAN;
        vacc = vf_add(vacc, vf_set1(NAN));
        break;
      }
    goto out;
  }
  /* eb = exp(sb - m) in [0, 1]; bsum = their sum */
  const vf vm = vf_set1(m);
  vf bsum = vf_zero();
  int poison; /* a NaN score: sum and acc become NaN */
  if (m != INFINITY && o->v1) {
    orow_block_v1(nb, sb, vb, vm, &vsum, &vacc);
    goto out;
  }
  if (m != INFINITY) {
    /* x <= 0 or NaN; nan = sum of the x, NaN iff some x is NaN (no
     * +inf - inf: every x is <= 0) */
    vf nan = vf_zero();
    for (size_t g = 0; g < nb; g += VF_LANES) {
      const vf x = vf_sub(vf_loadu(sb + g), vm);
      const vf e = hs_vexpminus_rr2_p5(x);
      nan = vf_add(nan, x);
      vf_storeu(eb + g, e);
      bsum = vf_add(bsum, e);
    }
    poison = vmask_any(vf_isnan(nan));
    if (ONLINE_POISON_SETS_SUM && poison) bsum = vf_set1(NAN);
  } else {
    /* max = +inf: the +inf scores share the weight (1 each), others 0
     * (s - m is -inf, or NaN for a NaN score, which the exp keeps) */
    for (size_t g = 0; g < nb; g += VF_LANES) {
      const vf s = vf_loadu(sb + g);
      const vf e = vf_select(vf_cmpeq(s, vm), vf_set1(1.0f), hs_vexp_rr2_p5(vf_sub(s, vm)));
      vf_storeu(eb + g, e);
      bsum = vf_add(bsum, e);
    }
    poison = 0;
  }
  vsum = vf_add(vsum, bsum);
  /* run += sum_j eb[j] v_j */
  online_values(nb, eb, vb, ldv, dv, run);
  /* ONLINE_POISON_SETS_SUM: also a NaN score under a +inf max (its weight
   * NaN in bsum) poisons run, as that form always did */
  if (ONLINE_POISON_SETS_SUM ? isnan(vf_hsum(bsum)) : poison) {
    if (!ONLINE_POISON_SETS_SUM) vsum = vf_add(vsum, vf_set1(NAN));
    for (size_t c = 0; c < dv; c++) run[c] += NAN;
  }
out:
  o->m = m;
  o->vsum = vsum;
  o->vacc = vacc;
}

HS_ALWAYS_INLINE void orow_end(orow *o, hs_f32_online *st, float *acc) {
  float *run = o->run;
  st->max = o->m;
  st->sum = vf_hsum(o->vsum);
  if (o->v1) run[0] += vf_hsum(o->vacc);
  for (size_t c = 0; c < o->dv; c++) acc[c] = run[c];
}

/* The row loop; bias != 0: the relative-bias variant (block_scores_bias:
 * one FMA more per score, fused into the scoring loop), the same
 * instructions otherwise. */
HS_ALWAYS_INLINE void online_row_run(size_t n, size_t dk, size_t dv, const float *q,
                           const float *k, size_t ldk, const float *v,
                           size_t ldv, float inv_tau, int bias, float slope,
                           int64_t d0, hs_f32_online *st, float *acc) {
  if (n == 0) return;
  orow o;
  orow_init(&o, q, dk, dv, ldv, inv_tau, st, acc);
  o.slope = slope;
  o.p0 = d0;
  _Alignas(ONLINE_ALIGN) float sb[BLK];
  _Alignas(ONLINE_ALIGN) float eb[BLK];
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    /* sb = scores of the block, lanes >= nb are -inf */
    const float bm = vf_hmax(bias ? block_scores_bias(nb, k + j0 * ldk, ldk, &o.qd, sb,
                                                      dk, slope, d0 + (int64_t)j0)
                                  : block_scores(nb, k + j0 * ldk, ldk, &o.qd, sb, dk));
    orow_block(&o, nb, bm, sb, eb, v + j0 * ldv);
  }
  orow_end(&o, st, acc);
}

/* The two row symbols (the bias one: see f32-attn-row-online-symbols.h). */
#define HS_DEFINE_F32_ATTN_ROW_ONLINE_BLOCKED(plain, biased) \
  HS_DEFINE_F32_ATTN_ROW_ONLINE_OVER(online_row_run, plain, biased)

#endif
