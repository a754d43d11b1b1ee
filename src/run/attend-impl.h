/* SPDX-License-Identifier: MIT */
/* A layer's rows, every head (prefix sums, softmax, hard), by rows, tiles
 * or groups of rows, then finished (W_o, feed-forward). Written once for
 * REAL = float and double; included by forward-impl.h. */

/* Head h's attention of row i into out[0..dv). */
static void FN(attend_head)(const FN(job) *J, int h, size_t i, REAL *out,
                            FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  if (FN(few_row)(J, h, i, out, p)) return;
  if (H->kind == HS_ATTN_SOFTMAX) {
    FN(softmax_row)(J, h, i, out, p);
    return;
  }
  size_t dk = hs_dkp(H), dv = (size_t)H->dv, lo, hi;
  FN(head_range)(H, i, J->n, &lo, &hi);
  const REAL *q = J->Q[h] + i * dk, *Kh = J->K[h], *Vh = J->V[h];
  hs_hard_rule rule = H->kind == HS_ATTN_HARD_LEFT    ? HS_HARD_LEFT
                      : H->kind == HS_ATTN_HARD_RIGHT ? HS_HARD_RIGHT
                                                      : HS_HARD_AVG;
  hs_head_stats *stats = p->stats;
  const FN(btree) *T = J->bt && !p->daz && !stats ? J->bt[h] : NULL;
  uint64_t t0 = T ? FN(search_begin)(p, i) : 0;
  int done = FN(hard_row_skip)(J->kt, T, &p->btc[h], rule, q, Kh, Vh, dv, lo, hi,
                               p->seg, out, &p->total, &p->skipped);
  FN(search_end)(p, t0);
  if (!done) FN(hard_row_k)(J->kt, H, q, Kh, Vh, lo, hi, out, stats ? &stats[h] : NULL);
}

/* The attention of row i, every head: head h's dv outputs at out + (the
 * dv of the heads before it). Reads Q, K, V only, never X. */
static void FN(attend_row)(const FN(job) *J, size_t i, REAL *out, FN(part) *p) {
  for (int h = 0; h < J->L->nheads; h++) {
    FN(attend_head)(J, h, i, out, p);
    out += J->L->heads[h].dv;
  }
}

/* Rows per f32_attn_tile call: the AVX2 / AVX-512 tiles score 4 queries
 * per key load (f64: rows per group of FN(attend_rows)). */
#define HS_TILE_ROWS 4
#if REAL_F32
/* hs_run_opts.attn_tile == 0: whether tiles are used. Tiles, since they
 * measured faster side by side (hardsoft bench --skip rows,tiles, pe,
 * mu = 4, n = 4096, one thread: a S b 7% on AVX2 and 15-23% on AVX-512, a
 * depth-4 formula 3-7%; future masks too: a U b 1.5% on AVX2, 8% on
 * AVX-512, G (a -> X (b U (c & Y (a S b)))) 4% and 13%) */
#ifndef HS_ATTN_TILE_DEFAULT
#define HS_ATTN_TILE_DEFAULT 1
#endif

/* Whether head H's rows go to f32_attn_tile: softmax (past masks: every
 * row's keys start at BOS, key 0; future masks: they end at its copy,
 * key n + 1), the online kernel (no skip, no score rounding), and the
 * tile chosen (hs_run_opts.attn_tile; 0 = the default,
 * HS_ATTN_TILE_DEFAULT). The rows get the same bits either way. */
static int FN(tile_head)(const FN(job) *J, int h) {
  const hs_run_opts *o = J->o;
  const hs_head *H = &J->L->heads[h];
  int use = o->attn_tile ? o->attn_tile > 0 : HS_ATTN_TILE_DEFAULT;
  return use && H->kind == HS_ATTN_SOFTMAX && o->score_round == HS_ROUND_NONE &&
         !J->two_pass[h] && !J->few[h];
}

/* Head h's attention of rows i0 .. i0 + cnt - 1 (cnt <= HS_TILE_ROWS) by
 * one f32_attn_tile call: row r's outputs at out + r * J->ow. Row by row
 * the same as FN(attend_head): keys 0 .. b (BOS, then the past) or a .. np
 * (the future, then the BOS copy; end = 1), the same
 * bits (the tile kernel's contract), then the same normalisation and
 * attention error. */
static void FN(attend_tile)(const FN(job) *J, int h, size_t i0, size_t cnt,
                            REAL *out, FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  const hs_kernels *kt = J->kt;
  size_t dk = hs_dkp(H), dv = (size_t)H->dv, ow = J->ow;
  REAL inv_tau = FN(head_inv_tau)(H, J->n);
  size_t nk[HS_TILE_ROWS], lo[HS_TILE_ROWS], hi[HS_TILE_ROWS];
  ONLINE st[HS_TILE_ROWS];
  /* past: keys 0 .. b; future: keys a .. np, all ending at np */
  const int past = H->mask == HS_MASK_LE || H->mask == HS_MASK_LT ||
                   H->mask == HS_MASK_NONE;
  size_t n = J->n, np = J->np, nmax = 0;
  for (size_t r = 0; r < cnt; r++) {
    FN(head_range)(H, i0 + r, n, &lo[r], &hi[r]);
    nk[r] = past ? (lo[r] <= hi[r] ? hi[r] : 0) + 1
                 : np - (lo[r] <= n ? lo[r] : np) + 1;
    if (nk[r] > nmax) nmax = nk[r];
    p->keys += nk[r], p->segs++;
    st[r] = (ONLINE){-INFINITY, 0};
    for (size_t c = 0; c < dv; c++) out[r * ow + c] = 0;
  }
  size_t j0 = past ? 0 : np + 1 - nmax; /* the first key of the longest row */
  float sk;
  FN(rel_slope)(H, &sk);
  if (sk != 0) {
    /* key j of the tile's k is key j0 + j of the buffers, at j0 + j - i */
    int64_t d0[HS_TILE_ROWS];
    for (size_t r = 0; r < cnt; r++) d0[r] = (int64_t)j0 - (int64_t)(i0 + r);
    kt->f32_attn_tile_bias(cnt, nk, dk, dv, J->Q[h] + i0 * dk, dk,
                           J->K[h] + j0 * dk, dk, J->V[h] + j0 * dv, dv,
                           inv_tau, sk, d0, st, out, ow, !past);
  } else {
    kt->f32_attn_tile(cnt, nk, dk, dv, J->Q[h] + i0 * dk, dk, J->K[h] + j0 * dk,
                      dk, J->V[h] + j0 * dv, dv, inv_tau, st, out, ow, !past);
  }
  for (size_t r = 0; r < cnt; r++)
    FN(finish_row)(J, h, i0 + r, lo[r], hi[r], inv_tau, &st[r], out + r * ow, p, NULL, 0);
}
#else
/* f64 has no tile kernel */
static int FN(tile_head)(const FN(job) *J, int h) { return (void)J, (void)h, 0; }
#endif

/* Whether head h's rows go to FN(attend_multi): the two-pass rows of
 * FN(softmax_row) (no score rounding). */
static int FN(multi_head)(const FN(job) *J, int h) {
  const hs_head *H = &J->L->heads[h];
  return H->kind == HS_ATTN_SOFTMAX && !FN(rounded_head)(J->o, H) && J->two_pass &&
         J->two_pass[h];
}

/* Head h's attention of rows i0 .. i0 + cnt - 1 (cnt <= HS_SEG_ROWS) by
 * one f32_attn_rows_2pass or f64_attn_rows_2pass call, row r's outputs at
 * out + r * J->ow: row by row FN(two_pass_row)'s segments (its skipping)
 * and kernel, the kernel's contract giving each row the bits of the
 * one-row call, then FN(finish_row). Several rows per call let the
 * kernel overlap their latency chains. */
static void FN(attend_multi)(const FN(job) *J, int h, size_t i0, size_t cnt,
                             REAL *out, FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  size_t dk = hs_dkp(H), dv = (size_t)H->dv, ow = J->ow, n = J->n;
  size_t ns[HS_SEG_ROWS], lo[HS_SEG_ROWS], hi[HS_SEG_ROWS];
  const size_t *seg[HS_SEG_ROWS];
  ONLINE st[HS_SEG_ROWS];
  REAL inv_tau = FN(head_inv_tau)(H, n);
  for (size_t r = 0; r < cnt; r++) {
    size_t i = i0 + r, a, b, *sg = p->seg + r * FN(seg_cap)(J);
    FN(head_range)(H, i, n, &lo[r], &hi[r]);
    FN(key_span)(J, H, lo[r], hi[r], &a, &b);
    ns[r] = FN(skip_segs)(J, h, i, J->Q[h] + i * dk, a, b, inv_tau, p, SKIP_CUT, sg);
    p->segs += ns[r];
    p->keys += hs_seg_keys(sg, ns[r]);
    seg[r] = sg;
  }
#if REAL_F32
  /* f32 relative-bias heads: the bias variant, key j at j - i */
  int64_t d0[HS_SEG_ROWS];
  for (size_t r = 0; r < cnt; r++) d0[r] = -(int64_t)(i0 + r);
  float sk;
  FN(rel_slope)(H, &sk);
  J->kt->f32_attn_rows_2pass(cnt, ns, seg, dk, dv, J->Q[h] + i0 * dk, dk, J->K[h], dk,
                             J->V[h], dv, inv_tau, sk, d0, st, out, ow);
#else
  /* f64 relative-bias heads are rounded heads, never here (FN(multi_head)) */
  J->kt->f64_attn_rows_2pass(cnt, ns, seg, dk, dv, J->Q[h] + i0 * dk, dk, J->K[h], dk,
                             J->V[h], dv, inv_tau, st, out, ow);
#endif
  for (size_t r = 0; r < cnt; r++)
    FN(finish_row)(J, h, i0 + r, lo[r], hi[r], inv_tau, &st[r], out + r * ow, p, seg[r],
                   ns[r]);
}

/* The attention of rows i0 .. i0 + cnt - 1 (consecutive), row t's at
 * out + t * J->ow: heads that take tiles (FN(tile_head)) or several
 * two-pass rows per call (FN(multi_head)) in groups of HS_TILE_ROWS rows,
 * the others row by row. */
static void FN(attend_rows)(const FN(job) *J, size_t i0, size_t cnt, REAL *out,
                            FN(part) *p) {
  _Static_assert(HS_TILE_ROWS <= HS_SEG_ROWS, "a group's segment lists fit in p->seg");
  int any = 0;
  for (int h = 0; h < J->L->nheads; h++) any |= FN(tile_head)(J, h) || FN(multi_head)(J, h);
  if (any) {
    for (size_t t = 0; t < cnt; t += HS_TILE_ROWS) {
      size_t g = cnt - t < HS_TILE_ROWS ? cnt - t : HS_TILE_ROWS;
      size_t off = 0;
      for (int h = 0; h < J->L->nheads; h++) {
        REAL *oh = out + t * J->ow + off;
#if REAL_F32
        if (FN(tile_head)(J, h))
          FN(attend_tile)(J, h, i0 + t, g, oh, p);
        else
#endif
        if (FN(multi_head)(J, h))
          FN(attend_multi)(J, h, i0 + t, g, oh, p);
        else
          for (size_t r = 0; r < g; r++) FN(attend_head)(J, h, i0 + t + r, oh + r * J->ow, p);
        off += (size_t)J->L->heads[h].dv;
      }
    }
    return;
  }
  for (size_t t = 0; t < cnt; t++) FN(attend_row)(J, i0 + t, out + t * J->ow, p);
}

/* Rows i0 .. i0 + cnt - 1 (cnt <= HS_ROW_CHUNK) after their attention
 * (outputs in out, J->ow per row): x += W_o out per head, in head order,
 * then the feed-forward, each as one batched product over the rows on
 * the packed weights, the residual adds, biases and ReLU done by the
 * kernel's epilogue with the same roundings as separate steps (layer
 * normalization, when the layer has it, between the bias and the ReLU
 * here). The same per-row arithmetic as one row at a time. */
static void FN(finish_rows)(const FN(job) *J, size_t i0, size_t cnt,
                            const REAL *out, REAL *hid, hs_phclock *clk) {
  const hs_layer *L = J->L;
  const hs_kernels *kt = J->kt;
  size_t d = J->d, ow = J->ow, off = 0;
  REAL *x = J->X + i0 * d;
  hs_ph_to(clk, HS_PHASE_GEMM);
  for (int h = 0; h < L->nheads; h++) {
    size_t dv = (size_t)L->heads[h].dv;
    FN(gemm_pk)(kt, cnt, d, dv, J->w->pwo[J->hbase + h], NULL, out + off, ow, x, d,
                HS_GEMM_ACC);
    off += dv;
  }
  if (L->hidden > 0) {
    int l = (int)(L - J->m->layers);
    size_t nh = (size_t)L->hidden, lnp = (size_t)L->ln_pairs;
    FN(gemm_pk)(kt, cnt, nh, d, J->w->pw1[l], J->w->b1[l], x, d, hid, nh,
                lnp ? 0u : (unsigned)HS_GEMM_RELU);
    if (lnp) {
      hs_ph_to(clk, HS_PHASE_FINISH);
      for (size_t r = 0; r < cnt; r++) {
        REAL *hr = hid + r * nh;
        for (size_t p = 0; p < lnp; p++)
          FN(ln_pair)(hr + 2 * p, L->ln_eps, L->ln_g + 2 * p, L->ln_b + 2 * p);
        for (size_t u = 0; u < nh; u++) hr[u] = hr[u] > 0 ? hr[u] : 0;
      }
      hs_ph_to(clk, HS_PHASE_GEMM);
    }
    FN(gemm_pk)(kt, cnt, d, nh, J->w->pw2[l], J->w->b2[l], hid, nh, x, d, HS_GEMM_ACC);
  }
  hs_ph_to(clk, HS_PHASE_FINISH);
}
