/* SPDX-License-Identifier: MIT */
/* Exact tile skipping, a softmax row's side: the row's bounds, the search
 * of the tree for its maximum and the walk that keeps the tiles the cut
 * cannot drop, kept from row to row. Written once for REAL = float and
 * double; included by forward-impl.h after skip-impl.h, whose first
 * comment states the bounds and why skipping changes no bit. */

/* Per-row constants of the bounds. */
typedef struct FN(bq) {
  const hs_kernels *kt;
  double qd[HS_ATTN_MAX_D], aq[HS_ATTN_MAX_D];
  double rel; /* HS_SKIP_REL (plus the score rounding's), or 0 where
                 scores are exact (hard heads) */
  REAL qf[HS_ATTN_MAX_D]; /* qd rounded to REAL, for the hard kernel */
  double lim, absm;
  double sk, row; /* relative bias: key j gets sk (j - row); sk = 0: none */
  size_t a, b, ta, tb;
  hs_bt_bias bias; /* sk, row, a, b for f64_bound_test */
} FN(bq);

/* What a row's scores are, for its bounds: the relative bias (slope sk at
 * row i; 0: none) and the rounding of q . k (HS_ROUND_NONE: none). */
typedef struct FN(bkind) {
  float sk;
  size_t i;
  hs_score_round rnd;
} FN(bkind);

/* One thread's bounds of one head, kept from row to row: U depends on the
 * query only through qd (and rel), so while consecutive rows share their
 * query (every since / until head: its query reads only constant
 * features) the bounds of a group of HS_FAN sibling nodes are computed
 * once, and so is the lower bound m_lo, carried as below (FN(bt_row)). */
typedef struct FN(btc) {
  int valid;                          /* qd, rel and the slots are current */
  double qd[HS_ATTN_MAX_D], rel;
  double mlo;                         /* the last row's m_lo (-inf: none) */
  size_t jlo, a, b;                   /* the key giving it; its keys [a, b] */
  /* hard rows (FN(hard_row_skip)): the last row's keys (BOS and lo..hi),
   * its max, pick, count at the max and (average) sum of values there */
  int hvalid;
  size_t hlo, hhi, hpick, hcnt;
  double hM;
  REAL hacc[HS_ATTN_MAX_D];
  /* the last softmax walk (FN(bt_kept)): the least bound of a node it
   * kept and the greatest of one it passed over (with their bias), each
   * over the nodes without [0] and with [1] the row's edge tile on the
   * rising side of the bias, the largest |U| it tested, its cut, bias
   * slope, row, keys, tile span and kept tiles; wn = SIZE_MAX: none */
  double wkmin[2], wsmax[2], wmag, wcut, wrow, wsk;
  size_t wa, wb, wta, wtb, wn, wt[HS_BT_WKEEP];
  /* future rows (FN(bt_first)): per key j >= xa of tile xt, cut to the
   * row's last key xb, the best FN(bt_key) of the keys j .. and the key
   * giving it (at index j - 64 xt); xt = SIZE_MAX: none */
  size_t xt, xa, xb, xj[HS_TILE];
  double xv[HS_TILE];
  /* softmax rows (FN(bt_row)): the last row's constants, kept while its
   * query (qv, bitwise), 1 / tau and kind of scores stay (consecutive
   * rows of a since / until head), only the row's own fields then set
   * afresh (FN(bq_row)); bq_ok its FN(bq_init) answer; qset = 0: none */
  int qset, bq_ok;
  FN(bq) bq;
  REAL qv[HS_ATTN_MAX_D];
  double qtau;
  float qsk;
  hs_score_round qrnd;
  unsigned lev[HS_BT_SLOTS];          /* slot: level and group, or HS_BT_NONE */
  size_t grp[HS_BT_SLOTS];
  double u[HS_BT_SLOTS][HS_FAN];
} FN(btc);

/* Relative-bias heads: the bias sk (j - i) of a key is monotone in j, so
 * its largest value over the keys j0..j1 of a node (cut to the row's
 * [a, b]) is at one end, and
 *   U_bias = U + max(sk (j0 - i), sk (j1 - i)) + 1e-6 max |sk (j - i)|
 * bounds every biased score of the node. The kernels compute
 * fma(sk, (float)(int32_t)(j - i), s): the conversion and the fma round
 * once each (2^-24 relative, f32), the double products here once (2^-53),
 * together below 1e-6 |sk (j - i)|, while s's own error stays within U's
 * slack (1e-5 A against the kernels' 4.4e-6 A). U is not cached with the
 * bias: the groups' U depend on the query only, the bias on the row. The
 * f64_bound_test kernel adds it to the U of a group (nodes g * HS_FAN ..
 * of level l) and tests them all at once: FN(bt_test) says how. */
/* A lower bound on key j's bias (see FN(bt_test)). */
static inline double FN(key_bias)(const FN(bq) *Bq, size_t j) {
  if (Bq->sk == 0) return 0;
  double bj = Bq->sk * ((double)j - Bq->row);
  return bj - HS_SKIP_BIAS_REL * fabs(bj);
}

/* The bounds of group g of level l (its nodes g * HS_FAN .. that + 15, as
 * many as the level has): from the cache's slot, else computed there. */
static const double *FN(bt_group)(const FN(btree) *T, const FN(bq) *Bq,
                                  FN(btc) *C, unsigned l, size_t g) {
  size_t slot = (g * 7 + l * 13) % HS_BT_SLOTS;
  if (C->lev[slot] == l && C->grp[slot] == g) return C->u[slot];
  size_t first = g * HS_FAN, cnt = T->cnt[l] - first < HS_FAN ? T->cnt[l] - first : HS_FAN;
  Bq->kt->f64_bounds(cnt, T->dk, T->lv[l] + first, T->cnt[l], Bq->qd, Bq->aq, Bq->rel,
                     Bq->absm, Bq->lim, C->u[slot]);
  C->lev[slot] = l, C->grp[slot] = g;
  return C->u[slot];
}

/* The f64_bound_test kernel on the nodes k0..k1 of group g of level l
 * (their U from the cache), ub as it says. */
static inline unsigned FN(bt_test)(const FN(btree) *T, const FN(bq) *Bq, FN(btc) *C,
                                   unsigned l, size_t g, size_t k0, size_t k1,
                                   hs_bt_op op, double x, double y, double *ub) {
  unsigned m = Bq->kt->f64_bound_test(k1 + 1, FN(bt_group)(T, Bq, C, l, g), op, x, y,
                                      Bq->sk != 0 ? &Bq->bias : NULL,
                                      (double)(g * HS_FAN),
                                      (double)((size_t)HS_TILE << (HS_FAN_LOG * l)), ub);
  return m >> k0 << k0;
}

/* The cache made current for this row's query: its slots emptied when the
 * query (or the kind of bound) changed. */
static void FN(btc_use)(FN(btc) *C, const FN(bq) *Bq, size_t dk) {
  int same = C->valid && C->rel == Bq->rel;
  for (size_t c = 0; same && c < dk; c++) same = C->qd[c] == Bq->qd[c];
  if (same) return;
  for (size_t k = 0; k < HS_BT_SLOTS; k++) C->lev[k] = HS_BT_NONE;
  for (size_t c = 0; c < dk; c++) C->qd[c] = Bq->qd[c];
  C->rel = Bq->rel;
  C->valid = 1;
  C->mlo = -INFINITY, C->jlo = SIZE_MAX;
  C->hvalid = 0;
  C->wn = SIZE_MAX;
  C->xt = SIZE_MAX;
}

/* The lower bound from tile t's visible keys: their best score by the
 * attn_hard kernel (vector blocks, no exp) with q_c * inv_tau rounded to
 * REAL, minus rel A_t, A_t the tile's A (>= every key's A); *at the key
 * giving it. f32: the kernel's score is within (ceil(dk/4) + 4) u A_j of
 * the exact S_j (its first comment) and the rounded query adds u A_j:
 * together <= 1.3e-6 A_j for dk <= 64, so the result is <= S_j - 8.7e-6
 * A_j - 1e-30 max(1, inv_tau) <= the two-pass kernel's s_j (error <=
 * 4.4e-6 A_j); f64 the same with u = 2^-53. Exact scores (rel = 0): the
 * kernel's best score itself. */
static double FN(bt_leaf)(const FN(btree) *T, const FN(bq) *Bq, const REAL *K,
                          size_t t, size_t *at) {
  const size_t dk = T->dk, cl = T->cnt[0];
  size_t j0, j1;
  hs_tile_cut(t, Bq->a, Bq->b, &j0, &j1);
  double At = 0;
  for (size_t c = 0; c < dk; c++) At += Bq->aq[c] * (double)T->lv[0][(2 * dk + c) * cl + t];
  if (!(At <= Bq->lim)) return -INFINITY;
  HARD st = {-INFINITY, -INFINITY, 0, 0};
  REAL none[1];
  /* with a bias rising in j, the last key at the best unbiased score is
   * the best of them biased */
  KOP(Bq->kt, attn_hard)(j1 - j0 + 1, dk, 0, Bq->qf, K + j0 * dk, dk, K, 0, j0,
                         Bq->sk > 0 ? HS_HARD_RIGHT : HS_HARD_LEFT, &st, none);
  if (st.cnt == 0) return -INFINITY; /* every score NaN */
  *at = st.pick;
  return (double)st.best - Bq->rel * At - Bq->absm + FN(key_bias)(Bq, st.pick);
}

/* One key's lower bound, as FN(bt_leaf)'s but from exact products in
 * double. */
static inline double FN(bt_key)(const FN(bq) *Bq, const REAL *K, size_t dk, size_t j) {
  double sj = 0, A = 0;
  for (size_t c = 0; c < dk; c++) {
    double x = Bq->qd[c] * (double)K[j * dk + c];
    sj += x;
    A += fabs(x);
  }
  return A <= Bq->lim ? sj - Bq->rel * A - Bq->absm + FN(key_bias)(Bq, j) : -INFINITY;
}

/* A future row's lower bound from its first tile: the best FN(bt_key)
 * of its visible keys there, *at the key giving it. Consecutive future
 * rows share their query and last key and drop their first key, so the
 * bounds of a tile's keys are taken once, as suffix maxima, while the
 * rows' first key stays in that tile (each row then reads one entry, not
 * the 64 scores FN(bt_leaf) would take again). Any lower bound on the
 * row max gives the same bits (the file's comment); bt_key's is the
 * tighter one: exact products, its own key's A. With a relative bias
 * the bounds move with the row, so only the keys are kept: the key that
 * was best when the suffixes were taken (still nearly so: every key's
 * bias moves by the same sk per row, but for its 1e-6 slack) gives its
 * bound at this row, a lower bound like any visible key's. */
static double FN(bt_first)(const FN(btree) *T, const FN(bq) *Bq, FN(btc) *C,
                           const REAL *K, size_t *at) {
  const size_t t = Bq->ta, a = Bq->a;
  if (C->xt != t || C->xb != Bq->b || a < C->xa) {
    size_t j0, j1;
    hs_tile_cut(t, a, Bq->b, &j0, &j1);
    double best = -INFINITY;
    size_t jb = SIZE_MAX;
    for (size_t j = j1 + 1; j-- > j0;) {
      double v = FN(bt_key)(Bq, K, T->dk, j);
      if (v >= best) best = v, jb = j; /* NaN never */
      C->xv[j - t * HS_TILE] = best, C->xj[j - t * HS_TILE] = jb;
    }
    C->xt = t, C->xa = a, C->xb = Bq->b;
  }
  *at = C->xj[a - t * HS_TILE];
  double v = C->xv[a - t * HS_TILE];
  return Bq->sk != 0 && v > -INFINITY ? FN(bt_key)(Bq, K, T->dk, *at) : v;
}

/* The nodes of group g of level l inside the row's span: [*k0, *k1]
 * (indices in the group); 0 when none. */
static inline int FN(bt_in)(const FN(btree) *T, const FN(bq) *Bq, unsigned l,
                            size_t g, size_t *k0, size_t *k1) {
  size_t f = Bq->ta >> (HS_FAN_LOG * l), e = Bq->tb >> (HS_FAN_LOG * l);
  size_t n0 = g * HS_FAN, n1 = n0 + HS_FAN - 1;
  if (n1 >= T->cnt[l]) n1 = T->cnt[l] - 1;
  if (n0 < f) n0 = f;
  if (n1 > e) n1 = e;
  if (n0 > n1) return 0;
  *k0 = n0 - g * HS_FAN, *k1 = n1 - g * HS_FAN;
  return 1;
}

/* The search's state: the lower bound so far and the key giving it, the
 * margin (open a node while its U > mlo + margin), leaves scored. */
typedef struct FN(bts) {
  double mlo, margin;
  size_t jlo, evals, max_evals;
  size_t known; /* tile + 1 whose visible keys mlo already covers (not
                   scored again), 0: none */
  int cut_short; /* stopped by max_evals, not by the bounds */
} FN(bts);

/* Depth-first branch and bound for m_lo under group g of level l:
 * children in decreasing order of U, a subtree entered only while its U
 * exceeds m_lo + margin; at most max_evals leaves. */
static void FN(bt_search)(const FN(btree) *T, const FN(bq) *Bq, FN(btc) *C,
                          const REAL *K, unsigned l, size_t g, FN(bts) *S) {
  size_t k0, k1;
  if (!FN(bt_in)(T, Bq, l, g, &k0, &k1)) return;
  /* the nodes above mlo + margin now (mlo only grows: a superset of
   * those above it later), their bounds with the bias in ub */
  double ub[HS_FAN];
  unsigned cand = FN(bt_test)(T, Bq, C, l, g, k0, k1, HS_BT_ABOVE, S->mlo + S->margin, 0, ub);
  for (;;) {
    size_t best = SIZE_MAX;
    double top = S->mlo + S->margin;
    for (unsigned m = cand; m; m &= m - 1) {
      size_t k = (size_t)__builtin_ctz(m);
      if (ub[k] > top) best = k, top = ub[k];
    }
    if (best == SIZE_MAX) return;
    if (S->evals >= S->max_evals) {
      S->cut_short = 1;
      return;
    }
    cand &= ~(1u << best);
    size_t idx = g * HS_FAN + best;
    if (l == 0) {
      if (idx + 1 == S->known) continue;
      size_t at = SIZE_MAX;
      double v = FN(bt_leaf)(T, Bq, K, idx, &at);
      if (v > S->mlo) S->mlo = v, S->jlo = at;
      S->evals++;
      continue;
    }
    FN(bt_search)(T, Bq, C, K, l - 1, idx, S);
  }
}

/* The tile at the rising end of the row's bias (its last for sk >= 0,
 * its first for sk < 0): the node holding it at each level is the one
 * whose largest bias follows the row's own key (FN(bt_kept)). */
static inline size_t FN(bt_rise)(const FN(bq) *Bq) {
  return Bq->sk < 0 ? Bq->ta : Bq->tb;
}

/* Depth-first, left to right: the kept tiles under group g of level l
 * appended to seg as segments; a node is passed over when mlo - U > cut.
 * ext (or NULL): the least bound of a kept node (NaN ones aside) folded
 * into ext[e], the greatest of a node passed over into ext[2 + e], e = 1
 * for the node holding tile FN(bt_rise) and 0 for the others, the
 * largest |U| (without the bias) into ext[4]. */
static size_t FN(bt_walk)(const FN(btree) *T, const FN(bq) *Bq, FN(btc) *C,
                          unsigned l, size_t g, double mlo, double cut,
                          size_t *seg, size_t ns, double *ext) {
  size_t k0, k1;
  if (!FN(bt_in)(T, Bq, l, g, &k0, &k1)) return ns;
  double ub[HS_FAN];
  unsigned keep = FN(bt_test)(T, Bq, C, l, g, k0, k1, HS_BT_KEEP, mlo, cut, ext ? ub : NULL);
  if (ext) {
    const double *u = FN(bt_group)(T, Bq, C, l, g);
    size_t rise = (FN(bt_rise)(Bq) >> (HS_FAN_LOG * l)) - g * HS_FAN;
    for (size_t k = k0; k <= k1; k++) {
      size_t e = k == rise;
      if (keep >> k & 1) {
        if (ub[k] < ext[e]) ext[e] = ub[k];
      } else if (ub[k] > ext[2 + e]) {
        ext[2 + e] = ub[k];
      }
      if (fabs(u[k]) > ext[4]) ext[4] = fabs(u[k]);
    }
  }
  for (; keep; keep &= keep - 1) {
    size_t idx = g * HS_FAN + (size_t)__builtin_ctz(keep);
    if (l == 0)
      ns = hs_seg_tile(seg, ns, idx, Bq->a, Bq->b);
    else
      ns = FN(bt_walk)(T, Bq, C, l - 1, idx, mlo, cut, seg, ns, ext);
  }
  return ns;
}

/* The fields of Bq that depend on the row alone: keys [a, b], row i. */
static inline void FN(bq_row)(FN(bq) *Bq, size_t a, size_t b, double i) {
  Bq->a = a, Bq->b = b, Bq->ta = a / HS_TILE, Bq->tb = b / HS_TILE, Bq->row = i;
  /* read only with a bias (FN(bt_test)) */
  if (Bq->sk != 0) Bq->bias = (hs_bt_bias){Bq->sk, i, HS_SKIP_BIAS_REL, (double)a, (double)b};
}

/* Bq for keys [a, b] and query q at inv_tau, scores of kind *bk (NULL:
 * plain); 0 when this row cannot skip.
 *
 * Rounded scores (hs_run_opts.score_round, FN(rounded_row)): q . k
 * rounded to f16 (11-bit significand) moves by at most 2^-11 of itself,
 * to bf16 (from float, then 8 bits) by at most 2^-24 + 2^-8, |q . k| <=
 * A / inv_tau, and the product by inv_tau rounds once more: rel grows by
 * 1.01 times that, and absm by the f16 subnormals' half spacing 2^-25
 * (times inv_tau). A node with |q . k| possibly >= 65504 (f16 overflow
 * to inf) gets no bound. */
static int FN(bq_init)(FN(bq) *Bq, const hs_kernels *kt, const FN(btree) *T,
                       const REAL *q, size_t a, size_t b, double inv_tau, int exact,
                       const FN(bkind) *bk) {
  Bq->kt = kt;
  const size_t dk = T ? T->dk : 0;
  int ok = T && dk > 0 && inv_tau > 0 && isfinite(inv_tau);
  hs_score_round rnd = bk ? bk->rnd : HS_ROUND_NONE;
  Bq->sk = bk ? bk->sk : 0;
  FN(bq_row)(Bq, a, b, bk ? (double)bk->i : 0);
  Bq->rel = exact ? 0 : HS_SKIP_REL;
  Bq->lim = exact ? INFINITY : HS_SKIP_BIG * fmin(1.0, inv_tau);
  Bq->absm = exact ? 0 : 1e-30 * fmax(1.0, inv_tau);
  if (rnd != HS_ROUND_NONE) {
    Bq->rel += 1.01 * (rnd == HS_ROUND_F16 ? 0x1p-11 : 0x1p-8 + 0x1p-24);
    Bq->absm += 0x1p-25 * inv_tau;
    if (rnd == HS_ROUND_F16) Bq->lim = fmin(Bq->lim, 65000.0 * inv_tau);
  }
  for (size_t c = 0; ok && c < dk; c++) {
    Bq->qd[c] = (double)q[c] * inv_tau; /* exact for f32: 24 x 24 bits */
    Bq->aq[c] = fabs(Bq->qd[c]);
    Bq->qf[c] = (REAL)Bq->qd[c];
    if (!(Bq->aq[c] <= HS_SKIP_BIG)) ok = 0;
  }
  return ok;
}

/* Whether x and y have the same bits. */
static inline int FN(same_bits)(REAL x, REAL y) {
#if REAL_F32
  uint32_t u, v;
#else
  uint64_t u, v;
#endif
  memcpy(&u, &x, sizeof x);
  memcpy(&v, &y, sizeof y);
  return u == v;
}

/* Whether the last softmax row's constants (C->bq) serve this row: the
 * same query bits, 1 / tau and kind of scores (then qd, rel and every
 * other field but the row's own are what FN(bq_init) would give, and the
 * cache is current for them); if not, they are noted for next time. */
static int FN(bq_again)(FN(btc) *C, const FN(btree) *T, const REAL *q, double inv_tau,
                        const FN(bkind) *bk) {
  const size_t dk = T ? T->dk : 0;
  /* bitwise: -0 is not 0 here, and a NaN query gets the same answer
   * (no bound) as last time */
  if (C->qset && C->qtau == inv_tau && C->qsk == bk->sk && C->qrnd == bk->rnd) {
    int same = 1; /* memcmp's answer, inline: dk is a few coordinates */
    for (size_t c = 0; c < dk; c++) same &= FN(same_bits)(q[c], C->qv[c]);
    if (same) return 1;
  }
  C->qset = dk <= HS_ATTN_MAX_D;
  for (size_t c = 0; C->qset && c < dk; c++) C->qv[c] = q[c];
  C->qtau = inv_tau, C->qsk = bk->sk, C->qrnd = bk->rnd;
  return 0;
}

/* How far the biased bound f64_bound_test gives a node of the last walk
 * (C) can lie from the one it gives the same node for this row (Bq), the
 * same query, beyond the shift FN(bt_kept) applies: 0 without a bias.
 * The largest bias of a node, max(p0, p1) with p_i = sk (j_i - row), is
 * at its rising end; the term brel max(|p0|, |p1|) moves by at most
 * brel |sk| D, D the change of the row plus the larger change of a or b
 * (they move the node's cut ends j0, j1 by as much). Rounded, every p_i
 * is within 2^-53 |sk| X of its exact value, X >= |j_i - row| for both
 * rows, and the bias and U + bias, a few more operations, put each row's
 * bound within 2^-50 (|sk| X + |U|) of its exact value: twice that for
 * the two rows, below the 2^-48 term. */
static double FN(bt_drift)(const FN(btc) *C, const FN(bq) *Bq) {
  if (Bq->sk == 0) return 0;
  double da = fabs((double)Bq->a - (double)C->wa), db = fabs((double)Bq->b - (double)C->wb);
  double D = fabs(Bq->row - C->wrow) + (da > db ? da : db);
  double X = (double)Bq->b + (double)C->wb + Bq->row + C->wrow + D + 2, sk = fabs(Bq->sk);
  return sk * D * HS_SKIP_BIAS_REL + 0x1p-48 * (C->wmag + sk * X);
}

/* The kept tiles of this row (m_lo = mlo, the tree from level top) as
 * segments into seg: the walk, or the last walk's tiles (C) when they are
 * the same.
 *
 * The walk keeps a tile exactly when neither it nor an ancestor has
 * mlo - U > cut (and it lies in the span), U the node's bound with its
 * bias; the nodes' U without the bias depend on the query alone (the
 * cache is current for it), so a row with the same cut and first and last
 * tiles as the last walk, and an m_lo that gives every node that walk
 * tested the same answer, keeps the same tiles: their list is cut to this
 * row's keys, the same segments the walk would give. The answers need
 * two compares, not the walk: fl(m - U) grows with m and falls with U
 * (rounding is monotone), so every kept node stays kept when a bound below
 * every kept node's U (L) would be, and every node passed over stays so
 * when a bound above every such U (H) would be (NaN nodes are kept
 * whatever m_lo is). Without a bias L and H are the extreme U themselves.
 * With one, a node's largest bias sk (j - row) sits at its rising end j
 * (the last key for sk > 0, the first for sk < 0): for a node without the
 * rising tile (FN(bt_rise)) j is the same for both rows, so its bias
 * moves by exactly -sk (row - last row), for the node with it j is the
 * row's b (a), so by sk ((b - row) - (last b - last row)); L and H are
 * the extremes of each kind so moved, then widened by FN(bt_drift) and by
 * 2^-45 of the magnitudes added, which covers the rounding of the moves
 * and the widening (a few operations of 2^-53 each). Consecutive rows of
 * a head mostly pass: without a bias their m_lo moves by a position term,
 * with one the key giving it moves with the nodes' bias. */
static size_t FN(bt_kept)(const FN(btree) *T, const FN(bq) *Bq, FN(btc) *C, unsigned top,
                          double mlo, double cut, size_t *seg) {
  if (C->wn != SIZE_MAX && C->wcut == cut && C->wsk == Bq->sk && C->wta == Bq->ta &&
      C->wtb == Bq->tb) {
    double L = C->wkmin[0] < C->wkmin[1] ? C->wkmin[0] : C->wkmin[1];
    double H = C->wsmax[0] > C->wsmax[1] ? C->wsmax[0] : C->wsmax[1];
    if (Bq->sk != 0) {
      const int up = Bq->sk > 0;
      double d = FN(bt_drift)(C, Bq), sh[2];
      sh[0] = -Bq->sk * (Bq->row - C->wrow);
      sh[1] = Bq->sk * (((double)(up ? Bq->b : Bq->a) - Bq->row) -
                        ((double)(up ? C->wb : C->wa) - C->wrow));
      L = INFINITY, H = d < INFINITY ? -INFINITY : INFINITY; /* d NaN: no reuse */
      for (int e = 0; e < 2; e++) {
        double k = C->wkmin[e], s = C->wsmax[e];
        double lk = k + sh[e] - (d + 0x1p-45 * (fabs(k) + fabs(sh[e]) + d));
        double hs = s + sh[e] + (d + 0x1p-45 * (fabs(s) + fabs(sh[e]) + d));
        if (k < INFINITY && lk < L) L = lk;
        if (s > -INFINITY && hs > H) H = hs;
      }
    }
    if (!(mlo - L > cut) && mlo - H > cut) {
      size_t ns = 0;
      for (size_t k = 0; k < C->wn; k++) ns = hs_seg_tile(seg, ns, C->wt[k], Bq->a, Bq->b);
      return ns;
    }
  }
  double ext[5] = {INFINITY, INFINITY, -INFINITY, -INFINITY, 0};
  size_t ns = FN(bt_walk)(T, Bq, C, top, 0, mlo, cut, seg, 0, ext);
  C->wn = SIZE_MAX;
  if (ns <= HS_BT_WKEEP) {
    for (size_t k = 0; k < ns; k++) C->wt[k] = seg[2 * k] / HS_TILE;
    C->wkmin[0] = ext[0], C->wkmin[1] = ext[1], C->wsmax[0] = ext[2], C->wsmax[1] = ext[3];
    C->wmag = ext[4];
    C->wcut = cut, C->wsk = Bq->sk, C->wrow = Bq->row, C->wa = Bq->a, C->wb = Bq->b;
    C->wta = Bq->ta, C->wtb = Bq->tb, C->wn = ns;
  }
  return ns;
}

/* The segments of a row with visible keys [a, b] into seg (at most
 * b/64 - a/64 + 1 pairs), the skippable tiles left out; returns how many.
 * Without a usable bound (see above) every tile is listed.
 *
 * m_lo between rows (C current for the same query): rows come in
 * increasing order within a chunk, so a past row's keys are the last
 * row's plus key b, and m_lo = max(the last m_lo, key b's bound) needs no
 * search; a future row's keys are a subset of the last row's, and the
 * last m_lo stays a lower bound while the key giving it is still visible
 * (it is then also the best the last search found among these keys).
 * Otherwise the search runs from the top. */
static size_t FN(bt_row)(const hs_kernels *kt, const FN(btree) *T, FN(btc) *C,
                         const REAL *K, const REAL *q, size_t a, size_t b,
                         double inv_tau, const FN(bkind) *bk, double cut,
                         size_t *seg) {
  FN(bq) *const Bq = &C->bq;
  double mlo = -INFINITY;
  unsigned top = 0;
  if (FN(bq_again)(C, T, q, inv_tau, bk)) {
    Bq->kt = kt;
    if (C->bq_ok) FN(bq_row)(Bq, a, b, (double)bk->i);
  } else {
    C->bq_ok = FN(bq_init)(Bq, kt, T, q, a, b, inv_tau, 0, bk);
    if (C->bq_ok) FN(btc_use)(C, Bq, T->dk);
  }
  if (C->bq_ok) {
    top = T->nlev - 1;
    /* with a bias every score moves with the row, by the same amount: the
     * key that gave the last m_lo is still the best of the last row's
     * keys, and its bound is taken afresh */
    int biased = Bq->sk != 0 && C->jlo != SIZE_MAX;
    double last = biased ? FN(bt_key)(Bq, K, T->dk, C->jlo) : C->mlo;
    if (C->mlo > -INFINITY && a == C->a && b == C->b + 1) {
      double v = FN(bt_key)(Bq, K, T->dk, b);
      int up = v > last; /* unpredictable: selects, not a branch */
      mlo = up ? v : last;
      C->jlo = up ? b : C->jlo;
    } else if (C->mlo > -INFINITY && b == C->b && a >= C->a && C->jlo >= a &&
               C->jlo <= b) {
      mlo = last;
    } else {
      FN(bts) S = {.mlo = -INFINITY, .margin = 1, .jlo = SIZE_MAX,
                   .max_evals = HS_BT_EVALS};
      /* a future row whose best key just left its span (the last row's
       * keys minus a prefix, so its max is at most the last one's): the
       * next best is most often in the first visible tile (a pe head's
       * nearest match). That tile's bound (FN(bt_first)) stands in for
       * the search when it is within HS_BT_NEAR of the last m_lo (with
       * a bias: of the last best key's bound at this row, every key's
       * bias having moved alike), and
       * else starts it, which then leaves that tile unscored (its
       * visible keys are in m_lo already); a weaker m_lo than the
       * search's only keeps more tiles (any lower bound on the max gives
       * the same bits: the file's comment). */
      if (C->mlo > -INFINITY && b == C->b && a >= C->a) {
        size_t at = SIZE_MAX;
        double v = FN(bt_first)(T, Bq, C, K, &at);
        if (v > -INFINITY) S.mlo = v, S.jlo = at, S.known = Bq->ta + 1;
        if (v >= last - HS_BT_NEAR) S.max_evals = 0;
      }
      if (S.max_evals) FN(bt_search)(T, Bq, C, K, top, 0, &S);
      mlo = S.mlo, C->jlo = S.jlo;
    }
    C->mlo = mlo, C->a = a, C->b = b;
  }
  if (!(mlo > -INFINITY)) {
    size_t ns = 0;
    for (size_t t = a / HS_TILE; t <= b / HS_TILE; t++) ns = hs_seg_tile(seg, ns, t, a, b);
    return ns;
  }
  return FN(bt_kept)(T, Bq, C, top, mlo, cut, seg);
}

/* Hard heads skip too, where their scores are exact. Exact: every key
 * coordinate an integer with |k| <= 2^12 (FN(bt_tiles)) and every query
 * coordinate one with |q| <= 2^12, A = sum_c |q_c| max_j |k_jc| < 2^24.
 * Then every product and every partial sum of a score, in any order, is
 * an integer below 2^24 in magnitude, exact in f32: every kernel's score
 * is S_j itself, and so are the bounds U (sums of integers in double) with
 * no slack (rel = absm = 0). Compiled hard models are of this kind
 * (weights and features 0, +-1, +-2). The hard choice then needs only:
 *   M, the exact row max: depth-first branch and bound, a node opened
 *     while U > M (strictly), leaves scored by the attn_hard kernel;
 *     complete when it stops by the bounds (else the row runs dense);
 *     or, for a row whose keys are a subset of the last row's, that
 *     row's M once a key still visible scores it (no key can score
 *     more);
 *   left / right: the first key scoring M from that end, nodes with
 *     U < M passed over; out = v[pick], as the dense kernel copies it;
 *   average: the tiles with U >= M, in increasing order, through the
 *     same kernel with its state carried: every key scoring M is in them,
 *     in the same order, so cnt and the sum of values keep their bits.
 * The best score below M (the gap statistics) is not known this way:
 * rows whose head statistics are wanted run dense. */
static int FN(bt_exact_q)(const FN(btree) *T, const REAL *q) {
  if (!T->exact || T->dk == 0) return 0;
  double A = 0;
  for (size_t c = 0; c < T->dk; c++) {
    if (!(fabs(q[c]) <= 4096) || q[c] != (REAL)(int32_t)q[c]) return 0;
    A += fabs((double)q[c]) * T->kabs[c];
  }
  return A < 16777216.0;
}

/* The key scoring M nearest the left (right = 0) or right end under
 * group g of level l; SIZE_MAX if none. *scored counts kernel calls. */
static size_t FN(bt_find)(const FN(btree) *T, const FN(bq) *Bq, FN(btc) *C,
                          const REAL *K, unsigned l, size_t g, double M,
                          int right, size_t *scored) {
  size_t k0, k1;
  if (!FN(bt_in)(T, Bq, l, g, &k0, &k1)) return SIZE_MAX;
  unsigned cand = FN(bt_test)(T, Bq, C, l, g, k0, k1, HS_BT_ATLEAST, M, 0, NULL);
  while (cand) {
    size_t k = right ? 31 - (size_t)__builtin_clz(cand) : (size_t)__builtin_ctz(cand);
    size_t idx = g * HS_FAN + k;
    cand &= ~(1u << k);
    if (l == 0) {
      size_t j0, j1;
      hs_tile_cut(idx, Bq->a, Bq->b, &j0, &j1);
      HARD st = {-INFINITY, -INFINITY, 0, 0};
      REAL none[1];
      KOP(Bq->kt, attn_hard)(j1 - j0 + 1, T->dk, 0, Bq->qf, K + j0 * T->dk, T->dk,
                             K, 0, j0, right ? HS_HARD_RIGHT : HS_HARD_LEFT, &st, none);
      ++*scored;
      if (st.cnt > 0 && (double)st.best == M) return st.pick;
      continue;
    }
    size_t r = FN(bt_find)(T, Bq, C, K, l - 1, idx, M, right, scored);
    if (r != SIZE_MAX) return r;
  }
  return SIZE_MAX;
}
