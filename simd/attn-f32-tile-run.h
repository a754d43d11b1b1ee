/* SPDX-License-Identifier: MIT */
/* The driver of the f32 attention tiles, AVX2 and AVX-512 (internal):
 * groups of TQ queries, each query's own blocks by the row kernel's loop
 * and the blocks shared by the whole group scored per key load. Include
 * after attn-f32-online-<isa>.h, with defined before it:
 *   TQ, BLK_MAX(v)          the group size, a score vector's max;
 *   TILE_CONTIG(dk)         whether tile_scores takes keys of width dk;
 *   tile_scores(kb, o, sb, bm, dk, j0, bias)  scores and maxima of TQ
 *                           queries against the BLK contiguous keys at kb
 *                           (key j0 of k; bias: with each query's relative
 *                           bias, o[r].slope and o[r].p0, as
 *                           block_scores_bias adds it).
 * tile_run is then the kernel (see include/hardsoft/kernels.h, end = 0 / 1);
 * with d0 != NULL and slope != 0 the relative-bias variant (query r's key
 * j of k at position d0[r] + j; every block, shared or own, biased by the
 * same FMA as the bias row kernel's). */
#ifndef HS_ATTN_F32_TILE_RUN_H
#define HS_ATTN_F32_TILE_RUN_H

_Static_assert(BLK == HS_ATTN_BLOCK, "the blocks of hs_attn_end_head");

/* Blocks j0, j0 + BLK, ... below n of one query, as the row kernel (the
 * bias variant when o->slope != 0: key j of k at o->p0 + j). */
static void row_rest(orow *o, size_t j0, size_t n, const float *k,
                     size_t ldk, const float *v, size_t ldv, float *sb,
                     float *eb) {
  for (; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    float bm = BLK_MAX(o->slope != 0
                           ? block_scores_bias(nb, k + j0 * ldk, ldk, &o->qd,
                                               sb, o->dk, o->slope, o->p0 + (int64_t)j0)
                           : block_scores(nb, k + j0 * ldk, ldk, &o->qd, sb, o->dk));
    orow_block(o, nb, bm, sb, eb, v + j0 * ldv);
  }
}

ALWAYS void tile_run(size_t nq, const size_t *n, size_t dk, size_t dv,
                     const float *q, size_t ldq, const float *k, size_t ldk,
                     const float *v, size_t ldv, float inv_tau, float slope,
                     const int64_t *d0, hs_f32_online *st, float *acc,
                     size_t ldacc, int end) {
  _Alignas(64) float sb[TQ][BLK];
  _Alignas(64) float eb[BLK];
  orow o[TQ];
  const int contig = ldk == dk && TILE_CONTIG(dk);
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

#endif
