/* SPDX-License-Identifier: MIT */
/* Heads that select by position, by a recurrence (hs_run_opts.skip AUTO),
 * written once for REAL = float and double; included by forward-impl.h
 * after prefix-impl.h, whose FN(few) holds such a head's rows (sel = 1).
 *
 * The shift heads of every mode's Y and of C-RASP's #[predK] ("rightmost
 * j < i", pe: q = mu, k_j = j) have a past mask, a query that is the same
 * on every row, and scores s_j = q . k_j / tau in arithmetic progression
 * in j with a step delta > 0: the largest visible score is the last key
 * b's, and key j weighs r^{b-j}, r = e^{-delta}, relative to it. The row
 *   out_i = sum_{j <= b} r^{b-j} v_j / sum_{j <= b} r^{b-j}
 * is then N(b) / D(b) with N(b) = r N(b-1) + v_b, D(b) = r D(b-1) + 1: O(1)
 * a row, where the kernels read every key of the last tile or two (64 to
 * 128 keys a row at mu = 4; 23 weigh more than e^-88). The plan decides
 * from the layer's own queries and keys (the scores s_j are computed in
 * double from them, and the progression is checked exactly, key by key);
 * any other head, or any row set whose queries differ, keeps its path.
 *
 * Rows are taken in blocks of HS_PFX_BLOCK fixed by the row index: a
 * block's recurrence starts W keys before its first row's last key, W the
 * least with delta W > SKIP_CUT (a key that far back weighs below e^-88,
 * what the kernels' exp flushes to +0), so a row's value depends on its
 * block alone and every thread count (and --last) gives the same bits.
 * The sums are in double: a few roundings of the exact softmax of the
 * model's scores, where the kernels have two per key and flush the tail;
 * the same decisions, not the kernels' bits (tests/test-prefix.c compares
 * them with --skip online). The attention error of a hard stand-in is
 * 1 - 1 / D(b): the target, key b, is the unique maximum. */
#define HS_SEL_WMAX 4096 /* longer windows (delta < 88 / 4096) keep the kernels */

/* Whether head H may take this path, from what costs nothing. */
static int FN(sel_may)(const FN(job) *J, const hs_head *H) {
  return J->o->skip == HS_SKIP_AUTO && H->kind == HS_ATTN_SOFTMAX && H->bias_slope == 0 &&
         J->o->score_round == HS_ROUND_NONE && J->stats == NULL &&
         (H->mask == HS_MASK_LT || H->mask == HS_MASK_LE) && H->dv <= HS_FEW_D &&
         hs_dkp(H) <= HS_FEW_D && isfinite((double)FN(head_inv_tau)(H, J->n));
}

/* The score of key j under query q, in double (exact for the compiled
 * heads: small integers times mu). */
static double FN(sel_score)(const REAL *q, const REAL *k, size_t dk, double inv_tau) {
  double s = 0;
  for (size_t c = 0; c < dk; c++) s += (double)q[c] * (double)k[c];
  return s * inv_tau;
}

/* Whether every row the layer runs has row r0's query, finite. */
static int FN(sel_qsame)(const FN(job) *J, int h, size_t r0) {
  const size_t dk = hs_dkp(&J->L->heads[h]);
  const REAL *Q = J->Q[h], *q0 = Q + r0 * dk;
  for (size_t c = 0; c < dk; c++)
    if (!(q0[c] - q0[c] == 0)) return 0;
  for (size_t t = 0; t < J->nq; t++) {
    size_t i = J->sparse ? J->qs[t] : t;
    if (memcmp(Q + i * dk, q0, dk * sizeof(REAL)) != 0) return 0;
  }
  return 1;
}

/* Head h's window and ratio into F when it selects by position (above):
 * 1, else 0. Keys 0 .. n are read (past masks never read the BOS copy). */
static int FN(sel_plan)(const FN(job) *J, int h, FN(few) *F) {
  const hs_head *H = &J->L->heads[h];
  const size_t dk = hs_dkp(H), dv = (size_t)H->dv, n = J->n;
  size_t r0 = J->sparse ? J->qs[0] : 0;
  if (J->nq == 0 || n < 1 || !FN(sel_qsame)(J, h, r0)) return 0;
  const REAL *q = J->Q[h] + r0 * dk, *K = J->K[h], *V = J->V[h];
  double it = (double)FN(head_inv_tau)(H, n);
  double s0 = FN(sel_score)(q, K, dk, it), delta = FN(sel_score)(q, K + dk, dk, it) - s0;
  if (!(delta > 0) || !(delta * HS_SEL_WMAX > SKIP_CUT) || !isfinite(s0)) return 0;
  for (size_t j = 0; j <= n; j++) {
    if (FN(sel_score)(q, K + j * dk, dk, it) != s0 + (double)j * delta) return 0;
    for (size_t c = 0; c < dv; c++)
      if (!(V[j * dv + c] - V[j * dv + c] == 0)) return 0;
  }
  F->sel = 1;
  F->r = exp(-delta);
  F->win = (size_t)(SKIP_CUT / delta) + 1;
  return 1;
}

/* Rows [ilo, ihi) of the row block that starts at row i0 (ilo >= i0),
 * by the block's recurrence: row i's dv quotients N / D, then D. */
static void FN(sel_block)(const FN(job) *J, int h, FN(few) *F, size_t i0, size_t ilo,
                          size_t ihi) {
  const hs_head *H = &J->L->heads[h];
  const size_t dv = (size_t)H->dv;
  const REAL *V = J->V[h];
  size_t lo, hi, a, b;
  FN(head_range)(H, i0, J->n, &lo, &hi);
  FN(key_span)(J, H, lo, hi, &a, &b);
  size_t j = b > a + F->win ? b - F->win : a;
  double N[HS_FEW_D] = {0}, D = 0, r = F->r;
  for (size_t i = i0; i < ihi; i++) {
    FN(head_range)(H, i, J->n, &lo, &hi);
    FN(key_span)(J, H, lo, hi, &a, &b);
    for (; j <= b; j++) {
      D = r * D + 1;
      for (size_t c = 0; c < dv; c++) N[c] = r * N[c] + (double)V[j * dv + c];
    }
    if (i < ilo) continue;
    double *o = F->val + i * (dv + 1);
    for (size_t c = 0; c < dv; c++) o[c] = N[c] / D;
    o[dv] = D;
  }
}

typedef struct FN(sel_ctx) {
  const FN(job) *J;
  FN(few) *const *few;
} FN(sel_ctx);

/* Row blocks [b0, b1) of every head on this path. */
static void FN(sel_rows)(void *ctx, int k, size_t b0, size_t b1) {
  FN(sel_ctx) *U = ctx;
  const FN(job) *J = U->J;
  (void)k;
  for (int h = 0; h < J->L->nheads; h++) {
    FN(few) *F = U->few[h];
    if (!F || !F->sel) continue;
    for (size_t t = b0; t < b1; t++) {
      size_t i0 = t * HS_PFX_BLOCK, i1 = i0 + HS_PFX_BLOCK < J->np ? i0 + HS_PFX_BLOCK : J->np;
      FN(sel_block)(J, h, F, i0, i0, i1);
    }
  }
}

/* The layer's heads on this path among those FN(few_heads) left (few[h]
 * NULL): planned, then their rows (every row, the threads taking whole
 * blocks; sparse layers: the rows asked for, each from its block's
 * start). -1 when out of memory. */
static int FN(sel_heads)(const FN(job) *J, hs_pool *pool, hs_phclock *clk, FN(few) **few,
                         FN(few) *store, size_t *qkv) {
  const hs_layer *L = J->L;
  size_t work = 0;
  for (int h = 0; h < L->nheads; h++) {
    if (few[h] || !FN(sel_may)(J, &L->heads[h])) continue;
    FN(few) F = {.row = store[h].row, .cap = store[h].cap, .val = store[h].val,
                 .vcap = store[h].vcap};
    hs_ph_to(clk, HS_PHASE_PREFIX);
    if (!FN(sel_plan)(J, h, &F)) continue;
    size_t bytes = J->np * ((size_t)L->heads[h].dv + 1) * sizeof(double);
    if (hs_reserve((void **)&F.val, &F.vcap, bytes) != 0) return -1;
    store[h] = F;
    few[h] = &store[h];
    qkv[h] += bytes;
    work += J->np * (size_t)(L->heads[h].dv + 1) * 4;
  }
  FN(sel_ctx) U = {J, few};
  if (work > 0 && !J->sparse)
    FN(par_ranges)(pool, J->o->threads, clk, J->ph, HS_PHASE_PREFIX,
                   (J->np + HS_PFX_BLOCK - 1) / HS_PFX_BLOCK, 1, work, FN(sel_rows), &U);
  for (int h = 0; work > 0 && J->sparse && h < L->nheads; h++)
    for (size_t t = 0; few[h] && few[h]->sel && t < J->nq; t++) {
      size_t i = J->qs[t];
      FN(sel_block)(J, h, few[h], i - i % HS_PFX_BLOCK, i, i + 1);
    }
  return 0;
}

/* Row i of a head on this path into out[0..dv), and its attention error
 * into p->err when asked for. */
static void FN(sel_row)(const FN(job) *J, int h, size_t i, REAL *out, FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  const size_t dv = (size_t)H->dv;
  const double *o = J->few[h]->val + i * (dv + 1);
  for (size_t c = 0; c < dv; c++) out[c] = (REAL)o[c];
  if (J->o->want_attn_error && i > 0 && H->target != HS_ATTN_SOFTMAX) {
    double e = 1 - 1 / o[dv];
    if (e > p->err) p->err = e;
  }
}
