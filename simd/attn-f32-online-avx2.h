/* SPDX-License-Identifier: MIT */
/* The online-softmax state of one attention row and its per-block step,
 * AVX2 (internal): shared by the row kernel (f32-attn-row-avx2-online-*)
 * and the tile kernel (f32-attn-tile-avx2-*), so that a query run inside a
 * tile goes through exactly the instructions of the row kernel and gets
 * its bits. Include after attn-f32-blocks-avx2.h. orow_init sets up q and
 * the state from st/acc, orow_block folds one block of nb <= BLK scores sb
 * (block max bm, values vb = v + j0*ldv) into it, orow_end writes st/acc. */
#ifndef HS_ATTN_F32_ONLINE_AVX2_H
#define HS_ATTN_F32_ONLINE_AVX2_H

typedef struct {
  qdesc qd;
  __m256i vmask;   /* lanes of the last 8-column chunk inside dv */
  size_t dk, dv, ldv, nv;
  int v1;          /* dv == 1 with contiguous values: acc lane-wise in vacc */
  float m;         /* running max */
  __m256 vsum;     /* running sum per lane */
  __m256 vacc;     /* v1: running acc[0] per lane; otherwise 0 */
  float slope;     /* relative bias (the _bias kernels): key j of the */
  int64_t p0;      /* call scores + slope * (p0 + j); slope 0: none */
  _Alignas(32) float run[HS_ATTN_MAX_D]; /* running acc (not v1) */
} orow;

ALWAYS void orow_init(orow *o, const float *q, size_t dk, size_t dv,
                      size_t ldv, float inv_tau, const hs_f32_online *st,
                      const float *acc) {
  o->dk = dk;
  o->dv = dv;
  o->ldv = ldv;
  o->slope = 0;
  o->p0 = 0;
  qd_init(&o->qd, dk, q, inv_tau);
  const __m256i lane8 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i vmask;
  {
    int r = (int)(dv % 8);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    vmask = _mm256_cmpgt_epi32(_mm256_set1_epi32(r), lane);
  }
  o->vmask = vmask;
  const size_t nv = (dv + 7) / 8;
  o->nv = nv;
  float *run = o->run;
  for (size_t c = 0; c < 8 * nv; c += 8) {
    size_t rem = dv - c; /* >= 1 */
    __m256i mc = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(rem < 8 ? rem : 8)), lane8);
    _mm256_store_ps(run + c, _mm256_maskload_ps(acc + c, mc));
  }
  o->m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  o->vsum = _mm256_setr_ps(st->sum, 0, 0, 0, 0, 0, 0, 0);
  /* dv == 1 with contiguous values: acc[0] kept per lane in vacc (lane 0
   * starts at the caller's acc[0]); otherwise vacc stays 0 */
  const int v1 = dv == 1 && ldv == 1;
  o->v1 = v1;
  o->vacc = _mm256_setr_ps(v1 ? acc[0] : 0.0f, 0, 0, 0, 0, 0, 0, 0);
  if (v1) run[0] = 0;
}

/* Folds one block into o: sb = its nb scores (lanes up to nb rounded up
 * to 8 readable, -inf past nb), bm = their max, eb = a BLK-float buffer,
 * vb = the block's first value row. */
ALWAYS void orow_block(orow *o, size_t nb, float bm, const float *sb,
                       float *eb, const float *vb) {
  const size_t dv = o->dv, ldv = o->ldv, nv = o->nv;
  const int v1 = o->v1;
  const __m256i vmask = o->vmask;
  float *run = o->run;
  float m = o->m;
  __m256 vsum = o->vsum, vacc = o->vacc;
  if (bm > m) {
    /* the max grows: rescale what was summed so far, once per block */
    if (m != -INFINITY) {
      float scale = hs_attn_expf_scalar(m - bm); /* in [0, 1] */
      __m256 vs = _mm256_set1_ps(scale);
      vsum = _mm256_mul_ps(vsum, vs);
      vacc = _mm256_mul_ps(vacc, vs);
      for (size_t c = 0; c < nv; c++)
        _mm256_store_ps(run + 8 * c, _mm256_mul_ps(_mm256_load_ps(run + 8 * c), vs));
    }
    m = bm;
  }
  if (m == -INFINITY) {
    /* nothing finite yet: the block adds 0, unless a score is NaN */
    for (size_t j = 0; j < nb; j++)
      if (isnan(sb[j])) {
        vsum = _mm256_add_ps(vsum, _mm256_set1_ps(NAN));
        for (size_t c = 0; c < dv; c++) run[c] += NAN;
        vacc = _mm256_add_ps(vacc, _mm256_set1_ps(NAN));
        break;
      }
    goto out;
  }
  /* eb = exp(sb - m) in [0, 1], NaN for NaN scores; bsum = their sum */
  const __m256 vm = _mm256_set1_ps(m);
  __m256 bsum = _mm256_setzero_ps();
  if (m != INFINITY && v1) {
    /* dv == 1, contiguous values: the weights never leave registers,
     * vacc += e * v lane-wise (one FMA per 8 keys) */
    __m256 nan = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    size_t g = 0;
    for (; g + 16 <= nb; g += 16) {
      /* constants from memory: the 4 accumulators stay in registers */
      const float(*ec)[8] = hs_attn_exp_avx2_consts();
      __m256 x0 = _mm256_sub_ps(_mm256_load_ps(sb + g), vm);
      __m256 x1 = _mm256_sub_ps(_mm256_load_ps(sb + g + 8), vm);
      __m256 e0 = hs_attn_exp_nonan_avx2_c(x0, ec);
      __m256 e1 = hs_attn_exp_nonan_avx2_c(x1, ec);
      /* x <= 0 or NaN: nan is NaN iff some x is */
      nan = _mm256_add_ps(nan, _mm256_add_ps(x0, x1));
      bsum = _mm256_add_ps(bsum, _mm256_add_ps(e0, e1));
      vacc = _mm256_fmadd_ps(e0, _mm256_loadu_ps(vb + g), vacc);
      a1 = _mm256_fmadd_ps(e1, _mm256_loadu_ps(vb + g + 8), a1);
    }
    for (; g < nb; g += 8) {
      /* lanes >= nb hold -inf scores (weight 0) and read no value */
      __m256 x = _mm256_sub_ps(_mm256_load_ps(sb + g), vm);
      __m256 e = hs_attn_exp_nonan_avx2(x);
      nan = _mm256_add_ps(nan, x);
      bsum = _mm256_add_ps(bsum, e);
      __m256 vv = nb - g >= 8 ? _mm256_loadu_ps(vb + g)
                              : _mm256_maskload_ps(vb + g, lanes_below(nb - g));
      a1 = _mm256_fmadd_ps(e, vv, a1);
    }
    vacc = _mm256_add_ps(vacc, a1);
    if (_mm256_movemask_ps(_mm256_cmp_ps(nan, nan, _CMP_UNORD_Q)))
      bsum = _mm256_set1_ps(NAN); /* a NaN score: sum and acc become NaN */
    vsum = _mm256_add_ps(vsum, bsum);
    if (isnan(vf_hsum(bsum))) vacc = _mm256_add_ps(vacc, _mm256_set1_ps(NAN));
    goto out;
  }
  if (m != INFINITY) {      /* x <= 0 or NaN; nan = sum of the x, NaN iff some x is NaN (no
     * +inf - inf: every x is <= 0) */
    __m256 nan = _mm256_setzero_ps();
    for (size_t g = 0; g < nb; g += 8) {
      __m256 x = _mm256_sub_ps(_mm256_load_ps(sb + g), vm);
      __m256 e = hs_attn_exp_nonan_avx2(x);
      nan = _mm256_add_ps(nan, x);
      _mm256_store_ps(eb + g, e);
      bsum = _mm256_add_ps(bsum, e);
    }
    if (_mm256_movemask_ps(_mm256_cmp_ps(nan, nan, _CMP_UNORD_Q)))
      bsum = _mm256_set1_ps(NAN); /* a NaN score: sum and acc become NaN */
  } else {
    /* max = +inf: the +inf scores share the weight (1 each), others 0 */
    for (size_t g = 0; g < nb; g += 8) {
      __m256 s = _mm256_load_ps(sb + g);
      __m256 e = hs_attn_exp_avx2(_mm256_sub_ps(s, vm));
      e = _mm256_blendv_ps(e, _mm256_set1_ps(1.0f), _mm256_cmp_ps(s, vm, _CMP_EQ_OQ));
      _mm256_store_ps(eb + g, e);
      bsum = _mm256_add_ps(bsum, e);
    }
  }
  vsum = _mm256_add_ps(vsum, bsum);
  /* run += sum_j eb[j] v_j */
  block_values(nb, eb, vb, ldv, dv, vmask, run);
  if (isnan(vf_hsum(bsum))) /* NaN score in the block: poison acc */
    for (size_t c = 0; c < dv; c++) run[c] += NAN;
out:
  o->m = m;
  o->vsum = vsum;
  o->vacc = vacc;
}

ALWAYS void orow_end(orow *o, hs_f32_online *st, float *acc) {
  float *run = o->run;
  st->max = o->m;
  st->sum = vf_hsum(o->vsum);
  if (o->v1) run[0] += vf_hsum(o->vacc);
  for (size_t c = 0; c < o->dv; c++) acc[c] = run[c];
}

#endif
