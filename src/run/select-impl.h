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
 * A row's value is that of its block's recurrence (blocks of HS_PFX_BLOCK
 * rows fixed by the row index), started W keys before the block's first
 * row's last key, W the least with delta W > SKIP_CUT (a key that far
 * back weighs below e^-88, what the kernels' exp flushes to +0). Each
 * thread carries a head's sums from row to row and starts again at a
 * block's first row when its rows jump, so every thread count and --last
 * give the same bits, with no buffer and no pass of its own: the rows
 * cost their recurrence steps in the attention phase.
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
  int same = 1;
  for (size_t c = 0; c < dk; c++)
    if (!(q0[c] - q0[c] == 0)) return 0;
  if (J->sparse) {
    for (size_t t = 0; t < J->nq; t++)
      for (size_t c = 0; c < dk; c++) same &= Q[J->qs[t] * dk + c] == q0[c];
    return same;
  }
  for (size_t x = 0; x < J->nq * dk; x++) same &= Q[x] == q0[x % dk];
  return same;
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
  int ok = 1; /* no early exit: the loops stay branch-free */
  if (dk == 1) {
    double q1 = (double)q[0];
    for (size_t j = 0; j <= n; j++) ok &= q1 * (double)K[j] * it == s0 + (double)j * delta;
  } else {
    for (size_t j = 0; j <= n; j++)
      ok &= FN(sel_score)(q, K + j * dk, dk, it) == s0 + (double)j * delta;
  }
  for (size_t x = 0; x < (n + 1) * dv; x++) ok &= V[x] - V[x] == 0;
  if (!ok) return 0;
  F->sel = 1;
  F->r = exp(-delta);
  F->win = (size_t)(SKIP_CUT / delta) + 1;
  return 1;
}

_Static_assert(HS_FEW_D <= sizeof ((FN(selc) *)0)->N / sizeof(double),
               "a head's sums fit FN(selc)");

/* Row i of a head on this path into out[0..dv), and its attention error
 * into p->err when asked for: the part's state of the head carried to row
 * i, or started again at the first row of i's block (a row before the
 * state's, or in another block). */
static void FN(sel_row)(const FN(job) *J, int h, size_t i, REAL *out, FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  const FN(few) *F = J->few[h];
  const size_t dv = (size_t)H->dv, i0 = i - i % HS_PFX_BLOCK;
  const REAL *V = J->V[h];
  const double r = F->r;
  FN(selc) *c = &p->selc[h];
  size_t lo, hi, a, b;
  if (!c->on || c->i > i || c->i < i0) {
    FN(head_range)(H, i0, J->n, &lo, &hi);
    FN(key_span)(J, H, lo, hi, &a, &b);
    *c = (FN(selc)){.i = i0, .j = b > a + F->win ? b - F->win : a, .on = 1};
  }
  for (; c->i <= i; c->i++) {
    FN(head_range)(H, c->i, J->n, &lo, &hi);
    FN(key_span)(J, H, lo, hi, &a, &b);
    for (; c->j <= b; c->j++) {
      c->D = r * c->D + 1;
      for (size_t x = 0; x < dv; x++) c->N[x] = r * c->N[x] + (double)V[c->j * dv + x];
    }
  }
  for (size_t x = 0; x < dv; x++) out[x] = (REAL)(c->N[x] / c->D);
  if (J->o->want_attn_error && i > 0 && H->target != HS_ATTN_SOFTMAX) {
    double e = 1 - 1 / c->D;
    if (e > p->err) p->err = e;
  }
}

/* The layer's heads on this path among those FN(few_heads) left (few[h]
 * NULL), planned; their rows run with the others (FN(sel_row)). */
static void FN(sel_heads)(const FN(job) *J, hs_phclock *clk, FN(few) **few, FN(few) *store) {
  const hs_layer *L = J->L;
  for (int h = 0; h < L->nheads; h++) {
    if (few[h] || !FN(sel_may)(J, &L->heads[h])) continue;
    FN(few) F = {.row = store[h].row, .cap = store[h].cap};
    hs_ph_to(clk, HS_PHASE_PREFIX);
    if (!FN(sel_plan)(J, h, &F)) continue;
    store[h] = F;
    few[h] = &store[h];
  }
  hs_ph_to(clk, HS_PHASE_FINISH);
}
