/* SPDX-License-Identifier: MIT */
/* The online-softmax state of one attention row and its per-block step,
 * AVX-512F (internal): shared by the row kernel
 * (f32-attn-row-avx512f-online-*) and the tile kernel
 * (f32-attn-tile-avx512f-*), so that a query run inside a tile goes
 * through exactly the instructions of the row kernel and gets its bits.
 * Include after attn-f32-blocks-avx512f.h. orow_init sets up q and the
 * state from st/acc, orow_block folds one block of nb <= BLK scores sb
 * (block max bm, values vb = v + j0*ldv) into it, orow_end writes st/acc. */
#ifndef HS_ATTN_F32_ONLINE_AVX512F_H
#define HS_ATTN_F32_ONLINE_AVX512F_H

typedef struct {
  qdesc qd;
  __m256i m8;      /* lanes of dv % 8 */
  size_t dk, dv, ldv;
  int v1;          /* dv == 1 with contiguous values: acc lane-wise in vacc */
  float m;         /* running max */
  __m512 vsum;     /* running sum per lane */
  __m512 vacc;     /* v1: running acc[0] per lane; otherwise 0 */
  float slope;     /* relative bias (the _bias kernels): key j of the */
  int64_t p0;      /* call scores + slope * (p0 + j); slope 0: none */
  _Alignas(64) float run[HS_ATTN_MAX_D]; /* running acc (not v1) */
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
  __m256i m8;
  {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    m8 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(dv % 8)), lane);
  }
  o->m8 = m8;
  float *run = o->run;
  /* run[0..16) for dv <= 8 (256-bit stores), whole 16-chunks beyond */
  const size_t nrun = dv <= 16 ? 16 : (dv + 15) / 16 * 16;
  for (size_t c = 0; c < nrun; c += 16) {
    size_t rem = dv > c ? dv - c : 0;
    __mmask16 mc = (__mmask16)(rem >= 16 ? 0xFFFF : (1u << rem) - 1);
    _mm512_store_ps(run + c, _mm512_maskz_loadu_ps(mc, acc + c));
  }
  /* dv == 1 with contiguous values: acc[0] kept per lane in vacc (lane 0
   * starts at the caller's acc[0]); otherwise vacc stays 0 */
  const int v1 = dv == 1 && ldv == 1;
  o->v1 = v1;
  o->vacc = _mm512_maskz_mov_ps(1, _mm512_set1_ps(v1 ? acc[0] : 0.0f));
  if (v1) run[0] = 0;
  o->m = st->max;
  /* running sum per lane; lane 0 starts at the caller's sum */
  __m512 vsum = _mm512_castps128_ps512(_mm_set_ss(st->sum));
  o->vsum = _mm512_maskz_mov_ps(1, vsum);
}

/* Folds one block into o: sb = its nb scores (lanes up to nb rounded up
 * to 16 readable, -inf past nb), bm = their max, eb = a BLK-float
 * buffer, vb = the block's first value row. */
ALWAYS void orow_block(orow *o, size_t nb, float bm, const float *sb,
                       float *eb, const float *vb) {
  const size_t dv = o->dv, ldv = o->ldv;
  const int v1 = o->v1;
  const __m256i m8 = o->m8;
  float *run = o->run;
  float m = o->m;
  __m512 vsum = o->vsum, vacc = o->vacc;
  if (bm > m) {
    /* the max grows: rescale what was summed so far, once per block */
    if (m != -INFINITY) {
      __m512 vs = _mm512_set1_ps(hs_attn_expf_scalar(m - bm)); /* in [0, 1] */
      vsum = _mm512_mul_ps(vsum, vs);
      vacc = _mm512_mul_ps(vacc, vs);
      for (size_t c = 0; c < dv; c += 16)
        _mm512_store_ps(run + c, _mm512_mul_ps(_mm512_load_ps(run + c), vs));
    }
    m = bm;
  }
  if (m == -INFINITY) {
    /* nothing finite yet: the block adds 0, unless a score is NaN */
    for (size_t j = 0; j < nb; j++)
      if (isnan(sb[j])) {
        vsum = _mm512_add_ps(vsum, _mm512_set1_ps(NAN));
        for (size_t c = 0; c < dv; c++) run[c] += NAN;
        vacc = _mm512_add_ps(vacc, _mm512_set1_ps(NAN));
        break;
      }
    goto out;
  }
  /* eb = exp(sb - m) in [0, 1]; bsum = their sum */
  const __m512 vm = _mm512_set1_ps(m);
  __m512 bsum = _mm512_setzero_ps();
  int poison = 0;
  if (m != INFINITY && v1) {
    /* dv == 1, contiguous values: the weights never leave registers,
     * vacc += e * v lane-wise (one FMA per 16 keys) */
    __m512 nan = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    size_t g = 0;
    for (; g + 32 <= nb; g += 32) {
      __m512 x0 = _mm512_sub_ps(_mm512_load_ps(sb + g), vm);
      __m512 x1 = _mm512_sub_ps(_mm512_load_ps(sb + g + 16), vm);
      __m512 e0 = hs_attn_exp_nonan_avx512(x0);
      __m512 e1 = hs_attn_exp_nonan_avx512(x1);
      /* x <= 0 or NaN: nan is NaN iff some x is */
      nan = _mm512_add_ps(nan, _mm512_add_ps(x0, x1));
      bsum = _mm512_add_ps(bsum, _mm512_add_ps(e0, e1));
      vacc = _mm512_fmadd_ps(e0, _mm512_loadu_ps(vb + g), vacc);
      a1 = _mm512_fmadd_ps(e1, _mm512_loadu_ps(vb + g + 16), a1);
    }
    for (; g < nb; g += 16) {
      /* lanes >= nb hold -inf scores (weight 0) and read no value */
      __m512 x = _mm512_sub_ps(_mm512_load_ps(sb + g), vm);
      __m512 e = hs_attn_exp_nonan_avx512(x);
      nan = _mm512_add_ps(nan, x);
      bsum = _mm512_add_ps(bsum, e);
      __mmask16 mk = nb - g >= 16 ? 0xFFFF : (__mmask16)((1u << (nb - g)) - 1);
      a1 = _mm512_fmadd_ps(e, _mm512_maskz_loadu_ps(mk, vb + g), a1);
    }
    vacc = _mm512_add_ps(vacc, a1);
    vsum = _mm512_add_ps(vsum, bsum);
    if (_mm512_cmp_ps_mask(nan, nan, _CMP_UNORD_Q)) {
      /* a NaN score: sum and acc become NaN */
      vsum = _mm512_add_ps(vsum, _mm512_set1_ps(NAN));
      vacc = _mm512_add_ps(vacc, _mm512_set1_ps(NAN));
    }
    goto out;
  }
  if (m != INFINITY) {
    /* x <= 0 or NaN; nan = sum of the x, NaN iff some x is NaN */
    __m512 nan = _mm512_setzero_ps();
    for (size_t g = 0; g < nb; g += 16) {
      __m512 x = _mm512_sub_ps(_mm512_load_ps(sb + g), vm);
      __m512 e = hs_attn_exp_nonan_avx512(x);
      nan = _mm512_add_ps(nan, x);
      _mm512_store_ps(eb + g, e);
      bsum = _mm512_add_ps(bsum, e);
    }
    poison = _mm512_cmp_ps_mask(nan, nan, _CMP_UNORD_Q) != 0;
  } else {
    /* max = +inf: the +inf scores share the weight (1 each), others 0 */
    for (size_t g = 0; g < nb; g += 16) {
      __m512 s = _mm512_load_ps(sb + g);
      __m512 e = hs_attn_exp_avx512(_mm512_sub_ps(s, vm));
      e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(s, vm, _CMP_EQ_OQ), _mm512_set1_ps(1.0f));
      _mm512_store_ps(eb + g, e);
      bsum = _mm512_add_ps(bsum, e);
    }
  }
  vsum = _mm512_add_ps(vsum, bsum);
  /* run += sum_j eb[j] v_j */
  if (dv == 8) values_small_t(nb, eb, vb, ldv, m8, 1, run);
  else if (dv < 8) {
    if (dv > 0) values_small_t(nb, eb, vb, ldv, m8, 0, run);
  } else values_wide(nb, eb, vb, ldv, dv, run);
  if (poison) {
    /* a NaN score: sum and acc become NaN */
    vsum = _mm512_add_ps(vsum, _mm512_set1_ps(NAN));
    for (size_t c = 0; c < dv; c++) run[c] += NAN;
  }
out:
  o->m = m;
  o->vsum = vsum;
  o->vacc = vacc;
}

ALWAYS void orow_end(orow *o, hs_f32_online *st, float *acc) {
  float *run = o->run;
  st->max = o->m;
  st->sum = _mm512_reduce_add_ps(o->vsum);
  if (o->v1) run[0] += _mm512_reduce_add_ps(o->vacc);
  for (size_t c = 0; c < o->dv; c++) acc[c] = run[c];
}

#endif
