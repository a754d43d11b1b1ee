/* SPDX-License-Identifier: MIT */
/* One pass: its buffers, each head's bounds tree and plan, the layers in
 * order, the outputs. Written once for REAL = float and double; included
 * by forward-impl.h. */

/* One pass: the model, its options and the buffers held across layers. */
typedef struct FN(pass) {
  const hs_model *m;
  const FN(wts) *w;
  const hs_run_opts *o;
  const hs_kernels *kt;
  hs_pool *pool;
  hs_run_result *res;
  const uint8_t *s;      /* the string */
  size_t n, np, d, maxhid, base; /* base: bytes held whatever the layer */
  int maxh;
  REAL *X;
  REAL **Q, **K, **V;
  size_t *qkv;           /* bytes held in Q[h], K[h], V[h] (and bt[h]) */
  FN(btree) **bt;        /* skip ON / AUTO: bounds trees, FN(bt_make) */
  unsigned char *twop;   /* per head of a layer: rows on the two-pass kernel */
  FN(few) **few;         /* per head of a layer: few key values (prefix-impl.h),
                            pointing into fews, or NULL */
  FN(few) *fews;         /* their storage, kept from layer to layer */
  size_t *cap;           /* REALs held in Q[h], K[h], V[h]: cap[3 h + 0..2] */
  atomic_uint_fast64_t prog_done;
  uint64_t prog_total;
  hs_phclock clk;        /* this thread's phases */
  uint64_t ph[HS_PHASE_COUNT]; /* the parts' work, by phase */
} FN(pass);

static void FN(pass_free)(FN(pass) *P) {
  for (int h = 0; P->Q && h <= P->maxh; h++) { free(P->Q[h]); free(P->K[h]); free(P->V[h]); }
  for (int h = 0; P->bt && h <= P->maxh; h++) FN(bt_free)(P->bt[h]);
  for (int h = 0; P->fews && h <= P->maxh; h++) free(P->fews[h].row);
  free(P->Q); free(P->K); free(P->V); free(P->qkv); free(P->bt); free(P->twop);
  free(P->few); free(P->fews); free(P->cap);
  free(P->X);
}

/* Step 1, the pass's buffers: the residual stream and per-head slots;
 * peak_bytes starts from what every layer holds. */
static int FN(pass_buffers)(FN(pass) *P) {
  const hs_model *m = P->m;
  size_t d = P->d, maxow = 1;
  P->maxhid = 1;
  for (int l = 0; l < m->nlayers; l++) {
    size_t ow = 0;
    for (int h = 0; h < m->layers[l].nheads; h++) ow += (size_t)m->layers[l].heads[h].dv;
    if (ow > maxow) maxow = ow;
    if (m->layers[l].nheads > P->maxh) P->maxh = m->layers[l].nheads;
    if ((size_t)m->layers[l].hidden > P->maxhid) P->maxhid = (size_t)m->layers[l].hidden;
  }
  size_t nh1 = (size_t)P->maxh + 1;
  P->X = hs_big_alloc(P->np * d * sizeof(REAL));
  P->Q = calloc(nh1, sizeof(REAL *));
  P->K = calloc(nh1, sizeof(REAL *));
  P->V = calloc(nh1, sizeof(REAL *));
  P->qkv = calloc(nh1, sizeof(size_t));
  P->bt = calloc(nh1, sizeof *P->bt);
  P->twop = calloc(nh1, 1);
  P->few = calloc(nh1, sizeof *P->few);
  P->fews = calloc(nh1, sizeof *P->fews);
  P->cap = calloc(3 * nh1, sizeof *P->cap);
  if (!P->X || !P->Q || !P->K || !P->V || !P->qkv || !P->bt || !P->twop || !P->few ||
      !P->fews || !P->cap)
    return -1;
  /* per thread: a chunk of rows' attention outputs, d-wide products and
   * hidden units (rows_worker) */
  size_t nthr = P->o->threads > 1 ? (size_t)P->o->threads : 1;
  P->base = P->w->bytes +
            (P->np * d + nthr * HS_ROW_CHUNK * (d + P->maxhid + maxow)) * sizeof(REAL);
  P->res->peak_bytes = P->base;
  return 0;
}

/* Step 2, a layer's buffers: every head's queries, keys and values. Keys
 * and values get one extra row after position n, a copy of BOS, so that
 * every mask plus BOS is one contiguous range ([0, i] for the past,
 * [i, n + 1] for the future) and one kernel call. A slot keeps its memory
 * from layer to layer (hs_reserve). */
static int FN(layer_buffers)(FN(pass) *P, const hs_layer *L) {
  size_t np = P->np;
  for (int h = 0; h < L->nheads; h++) {
    const hs_head *H = &L->heads[h];
    size_t dk = hs_dkp(H), dv = (size_t)H->dv;
    if (hs_reserve((void **)&P->Q[h], &P->cap[3 * h], np * dk * sizeof(REAL)) ||
        hs_reserve((void **)&P->K[h], &P->cap[3 * h + 1], (np + 1) * dk * sizeof(REAL)) ||
        hs_reserve((void **)&P->V[h], &P->cap[3 * h + 2], (np + 1) * dv * sizeof(REAL)))
      return -1;
    P->qkv[h] = (np * dk + (np + 1) * (dk + dv)) * sizeof(REAL);
  }
  return 0;
}

/* Head h's BOS copies. Its projections are as the kernels read them:
 * rounded to f16 / bf16 when stored so (FN(proj_range): every projection
 * once, to nearest even, then read back exactly: what an f16 / bf16
 * buffer would give). */
static void FN(head_store)(FN(pass) *P, const hs_head *H, int h) {
  size_t dk = hs_dkp(H), dv = (size_t)H->dv, np = P->np;
  memcpy(P->K[h] + np * dk, P->K[h], dk * sizeof(REAL));
  memcpy(P->V[h] + np * dv, P->V[h], dv * sizeof(REAL));
}

/* Whether head h may skip and so gets a bounds tree: hard heads with
 * exact scores skip under auto and on (FN(hard_row_skip)) unless their
 * gap statistics are wanted; softmax heads under on, and under auto where
 * FN(auto_may_skip) says skipping could pay at all. Heads whose keys take
 * a few values (prefix-impl.h) need no tree. */
static int FN(head_wants_tree)(const FN(pass) *P, const FN(job) *J, int h) {
  const hs_run_opts *o = P->o;
  if ((o->skip != HS_SKIP_ON && o->skip != HS_SKIP_AUTO) || P->few[h]) return 0;
  if (J->L->heads[h].kind != HS_ATTN_SOFTMAX) return !P->res->head_stats;
  return o->skip == HS_SKIP_ON || FN(auto_may_skip)(J, h);
}

/* One part's share of a tree's tiles: the largest |k| per coordinate and
 * whether every key coordinate was exact (FN(bt_tiles)). */
typedef struct FN(tree_acc) {
  double kabs[HS_ATTN_MAX_D];
  int exact;
} FN(tree_acc);

typedef struct FN(trees) {
  FN(pass) *P;
  const hs_layer *L;
  int T;
  FN(tree_acc) *acc; /* [head][part] */
} FN(trees);

static void FN(tree_range)(void *ctx, int k, size_t t0, size_t t1) {
  FN(trees) *A = ctx;
  for (int h = 0; h < A->L->nheads; h++) {
    FN(btree) *T = A->P->bt[h];
    FN(tree_acc) *c = &A->acc[h * A->T + k];
    if (T)
      FN(bt_tiles)(T, A->P->K[h], A->P->V[h], A->P->np + 1,
                   (size_t)A->L->heads[h].dv, t0, t1, c->kabs, &c->exact);
  }
}

/* Step 3, the bounds trees of the heads that may skip, their tiles split
 * among the threads: each part's extremes merged after (a maximum and an
 * and: the same tree for every split), then the levels above. */
static int FN(head_trees)(FN(pass) *P, const FN(job) *J) {
  const hs_layer *L = J->L;
  size_t keys = P->np + 1, work = 0;
  for (int h = 0; h < L->nheads; h++) {
    FN(bt_free)(P->bt[h]);
    P->bt[h] = NULL;
    if (!FN(head_wants_tree)(P, J, h)) continue;
    size_t dk = hs_dkp(&L->heads[h]);
    P->bt[h] = FN(bt_alloc)(keys, dk);
    if (!P->bt[h]) return -1;
    work += keys * (dk + (size_t)L->heads[h].dv);
  }
  if (work == 0) return 0;
  int T = P->o->threads > 1 ? P->o->threads : 1;
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  FN(tree_acc) *acc = calloc((size_t)(L->nheads * T), sizeof *acc);
  if (!acc) return -1;
  /* only hard heads use exactness (FN(hard_row_skip)) */
  for (int c = 0; c < L->nheads * T; c++)
    acc[c].exact = L->heads[c / T].kind != HS_ATTN_SOFTMAX;
  FN(trees) A = {P, L, T, acc};
  size_t nt = (keys + HS_TILE - 1) / HS_TILE;
  FN(par_ranges)(P->pool, T, &P->clk, P->ph, HS_PHASE_BOUNDS, nt, 1, work,
                 FN(tree_range), &A);
  for (int h = 0; h < L->nheads; h++) {
    FN(btree) *B = P->bt[h];
    for (int k = 0; B && k < T; k++) {
      const FN(tree_acc) *c = &acc[h * T + k];
      B->exact &= c->exact;
      for (size_t d = 0; d < B->dk; d++)
        if (c->kabs[d] > B->kabs[d]) B->kabs[d] = c->kabs[d];
    }
    if (B) FN(bt_up)(B);
  }
  free(acc);
  return 0;
}

/* Step 4, the head plan (the skip policy): per head whether its rows
 * skip (keeping its bounds tree in bt[h]) and whether softmax rows take
 * the two-pass kernel (twop[h]). Hard heads skip with a tree of exact
 * keys; softmax heads take the two-pass kernel under on and off, and
 * under auto where FN(auto_skip) says it pays. */
static void FN(head_plan)(FN(pass) *P, const FN(job) *J, int h) {
  const hs_head *H = &J->L->heads[h];
  const hs_run_opts *o = P->o;
  FN(btree) *T = P->bt[h];
  /* rounded rows (score rounding; f64 relative bias) have one kernel:
   * off is the dense row */
  P->twop[h] = H->kind == HS_ATTN_SOFTMAX &&
               (o->skip == HS_SKIP_ON ||
                (o->skip == HS_SKIP_OFF && !FN(rounded_head)(o, H)));
  if (T && H->kind == HS_ATTN_SOFTMAX && o->skip == HS_SKIP_AUTO)
    P->twop[h] = (unsigned char)FN(auto_skip)(J, h);
  if (T && (H->kind == HS_ATTN_SOFTMAX ? P->twop[h] : T->exact)) {
    P->qkv[h] += T->bytes;
  } else {
    FN(bt_free)(T);
    P->bt[h] = NULL;
  }
}


/* The rows a layer computes: every position, or with last_only /
 * edges_only from the last layer with heads on (hs_sparse_from: the
 * layers after it read the stream row by row) just the positions asked
 * for, into qs (keys and values still cover every position, so a model
 * whose only heads are in one layer costs O(n)). Returns how many;
 * *sparse whether they are qs rather than 0..n. */
static size_t FN(layer_rows)(const FN(pass) *P, int l, size_t *qs, int *sparse) {
  const hs_run_opts *o = P->o;
  size_t n = P->n, nq = 0, cand[6] = {1, 2, 3, n - 2, n - 1, n};
  *sparse = l >= hs_sparse_from(P->m, o);
  if (!*sparse) return P->np;
  for (int c = o->last_only ? 5 : 0; c < 6; c++)
    if (cand[c] >= 1 && cand[c] <= n && (nq == 0 || cand[c] > qs[nq - 1]))
      qs[nq++] = cand[c];
  return nq;
}

/* Step 5, one layer: buffers, projections, bounds trees, head plan, then
 * every row's attention and feed-forward. Every head reads the stream
 * before any head writes to it. */
static int FN(layer_run)(FN(pass) *P, int l, int hbase) {
  const hs_layer *L = &P->m->layers[l];
  const hs_run_opts *o = P->o;
  hs_run_result *res = P->res;
  size_t qs[6], ow = 0;
  int sparse;
  size_t nq = FN(layer_rows)(P, l, qs, &sparse);
  hs_ph_to(&P->clk, HS_PHASE_FINISH);
  if (FN(layer_buffers)(P, L) != 0) return -1;
  for (int h = 0; h < L->nheads; h++) ow += (size_t)L->heads[h].dv;
  FN(job) J = {P->m, L, P->w, P->kt, o, P->X, P->Q, P->K, P->V, P->n, P->np, P->d,
               nq, qs, sparse, hbase, P->maxhid, ow,
               res->head_stats ? res->head_stats + hbase : NULL, P->bt, P->twop,
               (P->np + 1 + 63) / 64, &res->tiles_total, &res->tiles_skipped,
               &res->attn_keys, &res->attn_segments,
               &P->prog_done, P->prog_total, P->ph,
               o->threads > 1 && hs_demote_pays(P->np * P->d * sizeof(REAL)),
               (struct FN(few) *const *)P->few};
  FN(run_proj)(&J, P->pool, o->threads, &P->clk);
  hs_ph_to(&P->clk, HS_PHASE_FINISH);
  for (int h = 0; h < L->nheads; h++) FN(head_store)(P, &L->heads[h], h);
  if (FN(few_heads)(&J, P->pool, &P->clk, P->few, P->fews, P->qkv) != 0) return -1;
  FN(sel_heads)(&J, &P->clk, P->few, P->fews);
  if (FN(head_trees)(P, &J) != 0) return -1;
  for (int h = 0; h < L->nheads; h++) FN(head_plan)(P, &J, h);
  size_t held = P->base;
  for (int h = 0; h < P->maxh; h++) held += P->qkv[h];
  if (held > res->peak_bytes) res->peak_bytes = held;
  double err = 0;
  if (FN(run_rows)(&J, P->pool, o->threads, &err, &P->clk) != 0) return -1;
  hs_ph_to(&P->clk, HS_PHASE_FINISH);
  if (res->attn_error) res->attn_error[l] = err;
  if (o->progress) {
    atomic_store(&P->prog_done, (uint64_t)(l + 1) * P->np);
    o->progress(o->progress_ctx, (uint64_t)(l + 1) * P->np, P->prog_total);
  }
  if (res->layers)
    for (size_t k = 0; k < P->np * P->d; k++)
      res->layers[(size_t)l * P->np * P->d + k] = (double)P->X[k];
  return 0;
}

/* Step 6, the outputs: each asked-for position's value and decision,
 * positions [i0, i1) (FN(par_ranges)). */
static void FN(outputs)(void *ctx, int k, size_t i0, size_t i1) {
  const FN(pass) *P = ctx;
  const hs_run_opts *o = P->o;
  size_t n = P->n;
  (void)k;
  for (size_t i = i0 > 1 ? i0 : 1; i < i1 && i <= n; i++) {
    if ((o->last_only && i != n) || (o->edges_only && i > 3 && i + 2 < n)) continue;
    REAL v = P->X[i * P->d + (size_t)P->m->out_coord];
    P->res->values[i - 1] = (double)v;
    P->res->bits[i - 1] = v > (REAL)0.5;
  }
}

static void FN(embed_range)(void *ctx, int k, size_t i0, size_t i1) {
  const FN(pass) *P = ctx;
  (void)k;
  FN(embed)(P->m, P->w, P->s, P->n, i0, i1, P->X);
}

/* hs_run_result.phase_s from the ticks: this thread ran the whole pass
 * (its REGION time covered by the parts' clocks), so T threads had T
 * times its ticks, and what no clock counted as work was waiting. */
static void FN(phases_end)(FN(pass) *P, double wall_s) {
  uint64_t W = 0, work = 0, T = P->o->threads > 1 ? (uint64_t)P->o->threads : 1;
  hs_ph_merge(&P->clk, P->ph);
  for (int k = 0; k <= HS_PHASE_COUNT; k++) W += P->clk.t[k];
  for (int k = 0; k < HS_PHASE_COUNT; k++) work += k == HS_PHASE_WAIT ? 0 : P->ph[k];
  P->ph[HS_PHASE_WAIT] = T * W > work ? T * W - work : 0;
  for (int k = 0; k < HS_PHASE_COUNT; k++)
    P->res->phase_s[k] = W ? (double)P->ph[k] / (double)T * wall_s / (double)W : 0;
}

static double FN(now_s)(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int FN(forward)(const hs_model *m, const FN(wts) *w, const uint8_t *s,
                       size_t n, const hs_run_opts *o, const hs_kernels *kt,
                       hs_pool *pool, hs_run_result *res) {
  FN(pass) P = {.m = m, .w = w, .o = o, .kt = kt, .pool = pool, .res = res,
                .s = s, .n = n, .np = n + 1, .d = (size_t)m->d,
                .prog_total = (uint64_t)m->nlayers * (n + 1)};
  double t0 = o->phases ? FN(now_s)() : 0;
  /* workers asleep since the last pass wake during the set-up below */
  if (o->threads > 1) hs_pool_warm(pool);
  hs_ph_start(&P.clk, o->phases, HS_PHASE_FINISH);
  atomic_init(&P.prog_done, 0);
  int rc = FN(pass_buffers)(&P);
  if (rc == 0)
    FN(par_ranges)(pool, o->threads, &P.clk, P.ph, HS_PHASE_FINISH, P.np,
                   HS_ROW_CHUNK, P.np * P.d, FN(embed_range), &P);
  for (int l = 0, hbase = 0; rc == 0 && l < m->nlayers; hbase += m->layers[l++].nheads)
    rc = FN(layer_run)(&P, l, hbase);
  /* priced as the embedding: each position reads a line of its row */
  if (rc == 0)
    FN(par_ranges)(pool, o->threads, &P.clk, P.ph, HS_PHASE_FINISH, P.np,
                   HS_ROW_CHUNK, P.np * P.d, FN(outputs), &P);
  FN(pass_free)(&P);
  if (o->phases) FN(phases_end)(&P, FN(now_s)() - t0);
  return rc;
}

#undef SKIP_CUT
#undef HS_AUTO_MIN_KEYS
#undef HS_TILE_ROWS
#undef ROUNDED_CUT
