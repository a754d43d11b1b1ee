/* SPDX-License-Identifier: MIT */
/* A layer on the threads: the pool's ranges, the projections, the rows.
 * Written once for REAL = float and double; included by forward-impl.h. */

/* The part's next chunk of rows: 1, or 0 when none is left. */
static int FN(next_chunk)(FN(part) *p, uint64_t *chunk) {
  if (p->split) return hs_split_next(p->split, p->k, chunk);
  if (p->seq * HS_ROW_CHUNK >= p->J->nq) return 0;
  *chunk = p->seq++;
  return 1;
}

static void *FN(rows_worker)(void *arg) {
  FN(part) *p = arg;
  const FN(job) *J = p->J;
  const size_t C = HS_ROW_CHUNK;
  hs_ph_start(&p->clk, J->o->phases, HS_PHASE_FINISH);
  REAL *out = malloc(C * (J->ow ? J->ow : 1) * sizeof(REAL));
  REAL *hid = malloc(C * J->maxhid * sizeof(REAL));
  p->seg = malloc(HS_SEG_ROWS * FN(seg_cap)(J) * sizeof(size_t));
  p->btc = calloc((size_t)(J->L->nheads ? J->L->nheads : 1), sizeof *p->btc);
  p->selc = calloc((size_t)(J->L->nheads ? J->L->nheads : 1), sizeof *p->selc);
  p->daz = hs_daz_enabled();
  p->rc = out && hid && p->seg && p->btc && p->selc ? 0 : -1;
  uint64_t chunk;
  while (p->rc == 0 && FN(next_chunk)(p, &chunk)) {
    size_t c = (size_t)chunk * C, e = c + C < J->nq ? c + C : J->nq;
    hs_ph_to(&p->clk, HS_PHASE_ATTN);
    if (J->sparse)
      for (size_t t = c; t < e; t++)
        FN(attend_row)(J, J->qs[t], out + (t - c) * J->ow, p);
    else
      FN(attend_rows)(J, c, e - c, out, p);
    if (!J->sparse) {
      FN(finish_rows)(J, c, e - c, out, hid, &p->clk);
    } else {
      for (size_t t = c; t < e; t++)
        FN(finish_rows)(J, J->qs[t], 1, out + (t - c) * J->ow, hid, &p->clk);
    }
    if (J->o->progress && !J->sparse) {
      uint64_t done = atomic_fetch_add(J->prog_done, e - c) + (e - c);
      if (p->k == 0) J->o->progress(J->o->progress_ctx, done, J->prog_total);
    }
  }
  free(out);
  free(hid);
  free(p->seg);
  free(p->btc);
  free(p->selc);
  hs_ph_to(&p->clk, HS_PHASE_WAIT);
  return NULL;
}

/* fn(ctx, k, lo, hi) over the parts of [0, n) in chunks of c
 * (hs_part_range: with c = HS_ROW_CHUNK each thread gets the positions
 * whose rows it starts with), on up to `threads` threads of the pool, on
 * this one below HS_PAR_MIN multiply-adds of work (a wake-up costs
 * more); the time goes to phase ph. */
static void FN(par_ranges)(hs_pool *pool, int threads, hs_phclock *clk, uint64_t *phs,
                           int ph, size_t n, size_t c, size_t work,
                           hs_range_fn fn, void *ctx) {
  int T = threads > 1 && work >= HS_PAR_MIN ? threads : 1;
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  hs_ph_to(clk, T == 1 ? ph : HS_PH_REGION);
  if (T == 1) {
    fn(ctx, 0, 0, n);
    return;
  }
  uint64_t ticks[HS_POOL_MAX] = {0};
  hs_pool_ranges(pool, T, n, c, fn, ctx, clk->on ? ticks : NULL);
  for (int k = 0; k < T; k++) phs[ph] += ticks[k];
  hs_ph_to(clk, ph);
}

/* cnt rows of w columns from src (row stride ld) to dst, packed: the
 * fused projection's columns of one head's Q, K or V (FN(proj_range)).
 * The widths of the compiled heads (1, 2, 4, 8) as copies of a constant
 * size, one move each; other widths by a copy of w. */
static void FN(copy_cols)(REAL *restrict dst, size_t w, const REAL *restrict src,
                          size_t ld, size_t cnt) {
  if (w == 1) {
    for (size_t t = 0; t < cnt; t++) dst[t] = src[t * ld];
  } else if (w == 2) {
    for (size_t t = 0; t < cnt; t++) memcpy(dst + t * 2, src + t * ld, 2 * sizeof(REAL));
  } else if (w == 4) {
    for (size_t t = 0; t < cnt; t++) memcpy(dst + t * 4, src + t * ld, 4 * sizeof(REAL));
  } else if (w == 8) {
    for (size_t t = 0; t < cnt; t++) memcpy(dst + t * 8, src + t * ld, 8 * sizeof(REAL));
  } else {
    for (size_t t = 0; t < cnt; t++) memcpy(dst + t * w, src + t * ld, w * sizeof(REAL));
  }
}

/* The fused projection's output buffer (rows x every head's Q, K, V), on
 * the stack and in the first-level cache until copied out: up to 64 rows,
 * at least 8 (a layer wider than 256 outputs takes a product per head,
 * whose outputs fill the registers anyway). */
#define HS_PROJ_BUF 2048

/* Positions [p0, p1) of every head's keys and values (and queries, unless
 * sparse), one product per head and matrix. */
static void FN(proj_heads)(const FN(job) *J, size_t p0, size_t p1) {
  const hs_layer *L = J->L;
  hs_score_round r = J->o->qkv_round;
  size_t d = J->d, cnt = p1 - p0;
  const REAL *x = J->X + p0 * d;
  for (int h = 0; h < L->nheads; h++) {
    size_t dk = hs_dkp(&L->heads[h]), dv = (size_t)L->heads[h].dv;
    int g = J->hbase + h;
    if (!J->sparse) {
      FN(gemm)(J->kt, cnt, dk, d, J->w->wq[g], d, x, d, J->Q[h] + p0 * dk, dk);
      if (r != HS_ROUND_NONE) FN(round_store)(J->Q[h] + p0 * dk, cnt * dk, r);
    }
    FN(gemm)(J->kt, cnt, dk, d, J->w->wk[g], d, x, d, J->K[h] + p0 * dk, dk);
    FN(gemm)(J->kt, cnt, dv, d, J->w->wv[g], d, x, d, J->V[h] + p0 * dv, dv);
    if (r != HS_ROUND_NONE) {
      FN(round_store)(J->K[h] + p0 * dk, cnt * dk, r);
      FN(round_store)(J->V[h] + p0 * dv, cnt * dv, r);
    }
  }
}

/* Whether head H's rows read the keys after them (masks >= and >). On 2
 * threads the keys and values of these heads are demoted (hs_demote) as
 * the projection writes them: measured, depth-4 formula, AVX-512, 2
 * threads, 5-6 interleaved runs each, medians: 4.50 against 4.72 ms at
 * n = 16384, 2.25 against 2.37 at 8192, 8.64 against 8.70 at 32768, 17.3
 * both at 65536; 1.18 against 1.16 at 4096, where the pass fits both
 * cores' L2 (hence hs_demote_pays). Demoting every head's as well made
 * a S b (one past head) 3% slower at 16384, the depth-4 formula only
 * 2.6% faster. */
static int FN(future_head)(const hs_head *H) {
  return H->mask == HS_MASK_GE || H->mask == HS_MASK_GT;
}

/* Positions [p0, p1) of every head's keys and values (and queries, unless
 * sparse), rounded when stored so (FN(head_store)): one product over all
 * the layer's heads on the packed weights (J->w->pqkv: the depth-4
 * formula's layer of two heads is m = 14 outputs in one register instead
 * of six products of 1..4 outputs), then each head's columns copied to
 * its Q, K, V. Each output is the chain it would be alone, so the bits
 * do not depend on the fusing. */
static void FN(proj_range)(void *ctx, int k, size_t p0, size_t p1) {
  const FN(job) *J = ctx;
  const hs_layer *L = J->L;
  hs_score_round r = J->o->qkv_round;
  int l = (int)(L - J->m->layers), wq = !J->sparse;
  size_t d = J->d, M = wq ? J->w->mqkv[l] : J->w->mkv[l];
  size_t R = M ? HS_PROJ_BUF / M : HS_PROJ_BUF;
  const REAL *pk = wq ? J->w->pqkv[l] : J->w->pkv[l];
  _Alignas(64) REAL buf[HS_PROJ_BUF];
  (void)k;
  if (R < 8) {
    FN(proj_heads)(J, p0, p1);
    return;
  }
  if (R > 64) R = 64;
  for (size_t i0 = p0; i0 < p1; i0 += R) {
    size_t cnt = p1 - i0 < R ? p1 - i0 : R, off = 0;
    FN(gemm_pk)(J->kt, cnt, M, d, pk, NULL, J->X + i0 * d, d, buf, M, 0);
    for (int h = 0; h < L->nheads; h++) {
      size_t dk = hs_dkp(&L->heads[h]), dv = (size_t)L->heads[h].dv;
      REAL *dst[3] = {J->Q[h] + i0 * dk, J->K[h] + i0 * dk, J->V[h] + i0 * dv};
      size_t wd[3] = {dk, dk, dv};
      for (int t = wq ? 0 : 1; t < 3; t++) {
        FN(copy_cols)(dst[t], wd[t], buf + off, M, cnt);
        if (r != HS_ROUND_NONE) FN(round_store)(dst[t], cnt * wd[t], r);
        if (t > 0 && J->demote && FN(future_head)(&L->heads[h]))
          hs_demote(dst[t], cnt * wd[t] * sizeof(REAL));
        off += wd[t];
      }
    }
  }
}

/* Every head's queries, keys and values of the layer, positions split
 * among the threads as their rows will be (the same bits for every
 * split); sparse queries (at most 6) after, on this thread. */
static void FN(run_proj)(const FN(job) *J, hs_pool *pool, int threads,
                         hs_phclock *clk) {
  size_t np = J->np, d = J->d, work = 0;
  for (int h = 0; h < J->L->nheads; h++)
    work += 2 * hs_dkp(&J->L->heads[h]) + (size_t)J->L->heads[h].dv;
  FN(par_ranges)(pool, threads, clk, J->ph, HS_PHASE_GEMM, np, HS_ROW_CHUNK,
                 np * d * work, FN(proj_range), (void *)J);
  if (J->sparse)
    for (size_t t = 0; t < J->nq; t++)
      for (int h = 0; h < J->L->nheads; h++) {
        size_t dk = hs_dkp(&J->L->heads[h]), i = J->qs[t];
        FN(gemm)(J->kt, 1, dk, d, J->w->wq[J->hbase + h], d, J->X + i * d, d,
                 J->Q[h] + i * dk, dk);
        if (J->o->qkv_round != HS_ROUND_NONE)
          FN(round_store)(J->Q[h] + i * dk, dk, J->o->qkv_round);
      }
}

/* A part's phases into sum, the search's share moved out of the attention
 * phase by the sampled rows (hs_phsample). */
static void FN(part_phases)(FN(part) *p, uint64_t *sum) {
  if (!p->clk.on) return;
  hs_phsample *m = &p->smp;
  if (m->sampled > 0) {
    uint64_t est = (uint64_t)((double)m->ticks * (double)m->rows / (double)m->sampled);
    uint64_t *attn = &p->clk.t[HS_PHASE_ATTN];
    if (est > *attn) est = *attn;
    *attn -= est;
    p->clk.t[HS_PHASE_SEARCH] += est;
  }
  hs_ph_merge(&p->clk, sum);
}

static void FN(rows_task)(void *arg, int k) {
  FN(rows_worker)((FN(part) *)arg + k);
}

/* Runs every row of the layer on `threads` threads of the pool (1 below a
 * few chunks of rows); the largest attention error into *err, the head
 * statistics merged into J->stats. */

static int FN(run_rows)(const FN(job) *J, hs_pool *pool, int threads, double *err,
                        hs_phclock *clk) {
  int T = threads > 1 ? threads : 1, nh = J->L->nheads;
  if ((size_t)T > (J->nq + HS_ROW_CHUNK - 1) / HS_ROW_CHUNK)
    T = (int)((J->nq + HS_ROW_CHUNK - 1) / HS_ROW_CHUNK);
  /* a layer without heads is a feed-forward per row: below HS_PAR_MIN
   * multiply-adds waking a worker costs more than it saves */
  if (nh == 0 && J->nq * J->d * ((size_t)J->L->hidden + 1) < HS_PAR_MIN) T = 1;
  if (T < 1) T = 1;
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  hs_split *split = T > 1 ? aligned_alloc(HS_SPLIT_LINE, sizeof *split) : NULL;
  if (split && !hs_split_init(split, (J->nq + HS_ROW_CHUNK - 1) / HS_ROW_CHUNK, T))
    T = 1;
  if (T == 1) free(split), split = NULL;
  FN(part) *parts = aligned_alloc(HS_SPLIT_LINE, (size_t)T * sizeof *parts);
  int rc = parts && (T == 1 || split) ? 0 : -1;
  if (parts) memset(parts, 0, (size_t)T * sizeof *parts);
  for (int k = 0; rc == 0 && k < T; k++) {
    parts[k] = (FN(part)){.J = J, .k = k, .T = T, .split = split};
    if (J->stats) {
      parts[k].stats = malloc((size_t)(nh ? nh : 1) * sizeof(hs_head_stats));
      if (!parts[k].stats) { rc = -1; break; }
      for (int h = 0; h < nh; h++) parts[k].stats[h] = (hs_head_stats){INFINITY, 0, 0};
    }
  }
  hs_ph_to(clk, HS_PH_REGION);
  if (rc == 0 && T == 1) FN(rows_worker)(&parts[0]);
  else if (rc == 0) hs_pool_run(pool, T, FN(rows_task), parts);
  for (int k = 0; rc == 0 && k < T; k++) {
    FN(part_phases)(&parts[k], J->ph);
    if (parts[k].rc) rc = -1;
    if (parts[k].err > *err) *err = parts[k].err;
    if (J->tiles_total) *J->tiles_total += parts[k].total;
    if (J->tiles_skipped) *J->tiles_skipped += parts[k].skipped;
    if (J->attn_keys) *J->attn_keys += parts[k].keys, *J->attn_segs += parts[k].segs;
    for (int h = 0; J->stats && h < nh; h++) {
      hs_head_stats *a = &J->stats[h], *b = &parts[k].stats[h];
      if (b->gap < a->gap) a->gap = b->gap;
      a->tied |= b->tied;
      a->nonuniform |= b->nonuniform;
    }
  }
  for (int k = 0; parts && k < T; k++) free(parts[k].stats);
  free(parts);
  free(split);
  return rc;
}
