/* SPDX-License-Identifier: MIT */
/* The f32 attention tiles, AVX2 and AVX-512 (internal), written once over
 * the vector vocabulary: groups of TQ = 4 queries, each query's own blocks
 * by the row kernel's loop and the blocks shared by the whole group scored
 * per key load. Include after attn-f32-online-<isa>.h, whose hooks
 * ONLINE_DOTS_CONTIG_KX (the scores of VF_LANES contiguous keys of width
 * DK from DK loaded vectors) and ONLINE_TILE_DK_MAX (the widest such DK)
 * this header uses; HS_DEFINE_F32_ATTN_TILE_ONLINE then defines the two
 * kernels (see include/hardsoft/kernels.h, end = 0 / 1); with d0 != NULL
 * and slope != 0 the relative-bias variant (query r's key j of k at
 * position d0[r] + j; every block, shared or own, biased by the same FMA
 * as the bias row kernel's). */
#ifndef HS_ATTN_F32_TILE_RUN_H
#define HS_ATTN_F32_TILE_RUN_H

_Static_assert(BLK == HS_ATTN_BLOCK, "the blocks of hs_attn_end_head");

#define TQ 4

/* the key widths whose blocks the 4 queries share */
HS_ALWAYS_INLINE int tile_contig(size_t dk) {
  return dk == 1 || dk == 2 || dk == 4 || (ONLINE_TILE_DK_MAX >= 8 && dk == 8);
}

/* Scores of 4 queries against one whole block of BLK contiguous keys
 * (dk == DK, tile_contig) into sb[r]; their block maxima into bm[r]. The
 * same per-query sequence as block_scores_t: group by group,
 * vmax = max(s, vmax) from -inf, then vf_hmax. */
HS_ALWAYS_INLINE void tile_scores_t(const float *k, const orow *o, float (*sb)[BLK],
                          float *bm, int DK, size_t j0, int BIAS) {
  /* BIAS: query r's key j0 + g + lane at o[r].p0 + j0 + g + lane */
  vi p0 = vi_set1(0), p1 = p0, p2 = p0, p3 = p0;
  vf vs[4];
  if (BIAS) {
#define POS(r) vi_iota((int32_t)(o[r].p0 + (int64_t)j0))
    p0 = POS(0), p1 = POS(1), p2 = POS(2), p3 = POS(3);
#undef POS
    for (int r = 0; r < 4; r++) vs[r] = vf_set1(o[r].slope);
  }
  const vf q0 = o[0].qd.qc, q1 = o[1].qd.qc, q2 = o[2].qd.qc, q3 = o[3].qd.qc;
  vf m0 = vf_set1(-INFINITY), m1 = m0, m2 = m0, m3 = m0;
  for (size_t g = 0; g < BLK; g += VF_LANES) {
    /* written out up to 4: a loop over DK is not always unrolled, and kx
     * then lives on the stack (measured 1.7x slower on AVX2, dk = 4) */
    vf kx[8];
    const float *kg = k + g * DK;
    kx[0] = vf_loadu(kg);
    if (DK >= 2) kx[1] = vf_loadu(kg + VF_LANES);
    if (DK >= 4) kx[2] = vf_loadu(kg + 2 * VF_LANES), kx[3] = vf_loadu(kg + 3 * VF_LANES);
    if (DK >= 8)
      for (int i = 4; i < 8; i++) kx[i] = vf_loadu(kg + VF_LANES * i);
    vf s0 = ONLINE_DOTS_CONTIG_KX(kx, q0, DK);
    vf s1 = ONLINE_DOTS_CONTIG_KX(kx, q1, DK);
    vf s2 = ONLINE_DOTS_CONTIG_KX(kx, q2, DK);
    vf s3 = ONLINE_DOTS_CONTIG_KX(kx, q3, DK);
    if (BIAS) { /* as block_scores_bias: one FMA per score */
      const vi step = vi_set1(VF_LANES);
      s0 = vf_fma(vs[0], vf_from_vi(p0), s0);
      s1 = vf_fma(vs[1], vf_from_vi(p1), s1);
      s2 = vf_fma(vs[2], vf_from_vi(p2), s2);
      s3 = vf_fma(vs[3], vf_from_vi(p3), s3);
      p0 = vi_add(p0, step), p1 = vi_add(p1, step);
      p2 = vi_add(p2, step), p3 = vi_add(p3, step);
    }
    vf_storeu(sb[0] + g, s0);
    vf_storeu(sb[1] + g, s1);
    vf_storeu(sb[2] + g, s2);
    vf_storeu(sb[3] + g, s3);
    m0 = vf_max(s0, m0); /* NaN in s is skipped */
    m1 = vf_max(s1, m1);
    m2 = vf_max(s2, m2);
    m3 = vf_max(s3, m3);
  }
  bm[0] = vf_hmax(m0);
  bm[1] = vf_hmax(m1);
  bm[2] = vf_hmax(m2);
  bm[3] = vf_hmax(m3);
}

/* dk (tile_contig) as the compile-time width of tile_scores_t */
HS_ALWAYS_INLINE void tile_scores(const float *kb, const orow *o, float (*sb)[BLK],
                        float *bm, size_t dk, size_t j0, int bias) {
  if (dk == 1) tile_scores_t(kb, o, sb, bm, 1, j0, bias);
  else if (dk == 2) tile_scores_t(kb, o, sb, bm, 2, j0, bias);
  else if (ONLINE_TILE_DK_MAX < 8 || dk == 4) tile_scores_t(kb, o, sb, bm, 4, j0, bias);
  else tile_scores_t(kb, o, sb, bm, ONLINE_TILE_DK_MAX, j0, bias);
}

/* Blocks j0, j0 + BLK, ... below n of one query, as the row kernel (the
 * bias variant when o->slope != 0: key j of k at o->p0 + j). */
static void row_rest(orow *o, size_t j0, size_t n, const float *k,
                     size_t ldk, const float *v, size_t ldv, float *sb,
                     float *eb) {
  for (; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    float bm = vf_hmax(o->slope != 0
                           ? block_scores_bias(nb, k + j0 * ldk, ldk, &o->qd,
                                               sb, o->dk, o->slope, o->p0 + (int64_t)j0)
                           : block_scores(nb, k + j0 * ldk, ldk, &o->qd, sb, o->dk));
    orow_block(o, nb, bm, sb, eb, v + j0 * ldv);
  }
}

HS_ALWAYS_INLINE void tile_run(size_t nq, const size_t *n, size_t dk, size_t dv,
                     const float *q, size_t ldq, const float *k, size_t ldk,
                     const float *v, size_t ldv, float inv_tau, float slope,
                     const int64_t *d0, hs_f32_online *st, float *acc,
                     size_t ldacc, int end) {
  _Alignas(64) float sb[TQ][BLK];
  _Alignas(64) float eb[BLK];
  orow o[TQ];
  const int contig = ldk == dk && tile_contig(dk);
  size_t nend = 0; /* end: every query's keys end at key nend - 1 */
  for (size_t r = 0; end && r < nq; r++) if (n[r] > nend) nend = n[r];
  for (size_t r0 = 0; r0 < nq; r0 += TQ) {
    const size_t cnt = nq - r0 < TQ ? nq - r0 : TQ;
    size_t nmin = (size_t)-1, a[TQ];
    for (size_t r = 0; r < cnt; r++) {
      const size_t nr = n[r0 + r];
      hs_f32_online *s = &st[r0 + r];
      float *ac = acc + (r0 + r) * ldacc;
      orow_init(&o[r], q + (r0 + r) * ldq, dk, dv, ldv, inv_tau, s, ac);
      if (d0) o[r].slope = slope, o[r].p0 = d0[r0 + r];
      if (nr < nmin) nmin = nr;
      a[r] = end ? nend - nr : 0; /* the query's first key not yet folded */
      const size_t h = end ? hs_attn_end_head(nr) : 0;
      if (h) {
        /* end: the head, as a row call of its own, then the state
         * carried into the second call, as the row kernel would */
        row_rest(&o[r], a[r], a[r] + h, k, ldk, v, ldv, sb[0], eb);
        orow_end(&o[r], s, ac);
        orow_init(&o[r], q + (r0 + r) * ldq, dk, dv, ldv, inv_tau, s, ac);
        if (d0) o[r].slope = slope, o[r].p0 = d0[r0 + r];
        a[r] += h;
      }
    }
    /* keys [j1, j1 + nsh): blocks whole in every query's range, shared
     * by the TQ (the first keys, or with end the last ones) */
    const size_t nsh = cnt == TQ && contig ? nmin / BLK * BLK : 0;
    const size_t j1 = end ? nend - nsh : 0;
    if (end) /* each query's own blocks before the shared ones */
      for (size_t r = 0; r < cnt; r++)
        row_rest(&o[r], a[r], j1, k, ldk, v, ldv, sb[0], eb);
    /* one key load, TQ queries */
    for (size_t j0 = j1; j0 < j1 + nsh; j0 += BLK) {
      float bm[TQ];
      tile_scores(k + j0 * dk, o, sb, bm, dk, j0, d0 != NULL && slope != 0);
      for (size_t r = 0; r < TQ; r++)
        orow_block(&o[r], BLK, bm[r], sb[r], eb, v + j0 * ldv);
    }
    for (size_t r = 0; r < cnt; r++) {
      const size_t nr = n[r0 + r];
      /* the row kernel leaves st, acc alone when it gets no keys */
      if (nr == 0) continue;
      if (!end) row_rest(&o[r], nsh, nr, k, ldk, v, ldv, sb[0], eb);
      orow_end(&o[r], &st[r0 + r], acc + (r0 + r) * ldacc);
    }
  }
}

/* The two tile symbols (hs_f32_attn_tile_fn, hs_f32_attn_tile_bias_fn):
 * the same driver, the bias one biasing each query's blocks as the bias
 * row kernel biases them. */
#define HS_DEFINE_F32_ATTN_TILE_ONLINE(plain, biased)                          \
  void plain(size_t nq, const size_t *n, size_t dk, size_t dv, const float *q, \
             size_t ldq, const float *k, size_t ldk, const float *v,           \
             size_t ldv, float inv_tau, hs_f32_online *st, float *acc,         \
             size_t ldacc, int end) {                                          \
    tile_run(nq, n, dk, dv, q, ldq, k, ldk, v, ldv, inv_tau, 0, NULL, st,      \
             acc, ldacc, end);                                                 \
  }                                                                            \
  void biased(size_t nq, const size_t *n, size_t dk, size_t dv,                \
              const float *q, size_t ldq, const float *k, size_t ldk,          \
              const float *v, size_t ldv, float inv_tau, float slope,          \
              const int64_t *d0, hs_f32_online *st, float *acc, size_t ldacc,  \
              int end) {                                                       \
    tile_run(nq, n, dk, dv, q, ldq, k, ldk, v, ldv, inv_tau, slope, d0, st,    \
             acc, ldacc, end);                                                 \
  }

#endif
