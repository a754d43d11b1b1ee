/* SPDX-License-Identifier: MIT */
/* Exact tile skipping (hs_run_opts.skip, softmax heads), written once for
 * REAL = float and double; included by forward-impl.h inside its job and
 * part types, with SKIP_CUT the kernel's cut (below).
 *
 * The keys 0..n+1 of a head (n + 1 positions and the BOS copy) are cut
 * into tiles of HS_TILE = 64 keys aligned to the key index. A row with
 * visible keys [a, b] is the segments "tile t cut to [a, b]", t = a/64 ..
 * b/64, in increasing order, given to the two-pass kernel (skip OFF: all
 * of them; ON: some left out).
 *
 * The bounds tree. Once per head and layer, after K and V, FN(bt_tiles)
 * stores per tile and per dimension c the min and max of k_jc and
 * max(|min|, |max|); level l + 1 groups HS_FAN = 16 nodes of level l, up
 * to a top level of at most HS_FAN nodes (one level per factor 16 of n: a
 * row visits O(16 log n) nodes, not n / 64). A node holding a non-finite
 * key or value coordinate gets NaN bounds, and so do its ancestors: it is
 * never skipped (a NaN score or 0 * inf would not vanish).
 *
 * Bounds, with qd_c = q_c * inv_tau (exact in double for f32; within
 * 2^-53 relative for f64), for the keys of a node:
 *   A = sum_c |qd_c| max(|kmin_c|, |kmax_c|)  >= sum_c |qd_c k_jc|,
 *   U = sum_c qd_c (qd_c >= 0 ? kmax_c : kmin_c) + 1e-5 A
 *       + 1e-30 max(1, inv_tau).
 * Every kernel computes a score with |s_j - S_j| <= (dk + 9) u A (u = 2^-24
 * for f32, 2^-53 for f64; the kernels' first comments), <= 4.4e-6 A for
 * dk <= 64, plus underflow of at most ~200 operations of the smallest
 * normal each (also under FTZ), times max(1, inv_tau) for the scalar
 * kernels' late scaling, below the 1e-30 term; the double rounding of U
 * itself is ~2^-50 A. So U >= s_j for every key of the node, whatever the
 * ISA or the chunking. The vector form (the f64_bounds kernel: 16 sibling
 * nodes in the lanes) changes none of this: a lane is one node, its sums
 * run over c in the scalar order with the same roundings (mul then add,
 * never fused), so U has the scalar bits on every ISA and its rounding
 * costs the same ~2^-50 A of the 1e-5 A slack; f64_bound_test adds the
 * bias and compares lane by lane as FN(bt_test) below says, with the
 * scalar expressions' roundings, so a node is kept or skipped alike on
 * every ISA. That holds only without overflow: a node with
 * A > HS_SKIP_BIG min(1, inv_tau) gets no bound (NaN: kept), and rows
 * with |qd_c| > HS_SKIP_BIG skip nothing. HS_SKIP_BIG = 2^128 (1 - 2^-15)
 * keeps every product, partial sum and score of a kernel (each within
 * (1 + 4.4e-6) A, the late-scaled dot within that of A / inv_tau) below
 * FLT_MAX, so none overflows; the compiler caps a model's scores at
 * FLT_MAX / 2 over its f32 exact region (3 mu n, n <= 2^23, in pe and
 * temp), so every node of an accepted model has a bound. (At 1e37, the
 * nodes of pe models with mu n above ~5e36 had none: a S b at the largest
 * mu, 6.76e30, kept every tile from n ~ 7e5 on and turned quadratic.)
 * DAZ would make a subnormal k_jc count as 0 in the kernel: threads with
 * DAZ on skip nothing.
 *
 * A lower bound on the row max M (as the kernel computes it): depth-first
 * branch and bound over the tree, at each node its children in decreasing
 * order of U, a subtree entered only while its U exceeds m_lo + 1 (m_lo
 * is then within 1 of the best it could be), at most HS_BT_EVALS leaves;
 * a leaf's visible keys are scored by the attn_hard kernel and give
 * m_lo <= the two-pass kernel's s_j <= M (FN(bt_leaf) says why). Taking
 * the highest bound first matters: a row's own tile is cut by the mask,
 * and its bound from the keys beyond the mask can be far above what its
 * visible keys score (a since head whose row starts a tile with no
 * witness yet; the BOS copy sharing the last tile of a future head): the
 * old scheme, which scored only the tile with the highest bound, kept
 * every tile in such rows, half the tiles of the depth-4 formula.
 *
 * A node is skipped, with all its tiles, when m_lo - U > SKIP_CUT in
 * double (88.0001 for f32): then m_lo - U > 88 exactly (one rounding,
 * relative 2^-53), so every score s under it has s - M <= U - m_lo < -88,
 * the f32 difference rounds to <= -88 (monotone rounding, -88
 * representable), and exp gives exactly +0 in every kernel (inputs below
 * -87.3365 flush to +0); f64 the same with 88.0001 and HS_F64_SKIP_CUT
 * (its two-pass kernels flush weights below HS_F64_WEIGHT_CUT = -87.5).
 * Its scores are also below M, so the max of the
 * kept tiles is M, and the kernel's first comment says why leaving +0
 * weights out of the list changes no bit. The leaf giving m_lo is never
 * skipped (U >= m_lo). Rows keep their segments in increasing order: the
 * walk that skips is depth-first, left to right. */
#define HS_TILE 64
#define HS_FAN_LOG 4
#define HS_FAN (1u << HS_FAN_LOG)
#define HS_BT_MAXLEV 12
#define HS_BT_EVALS 8
#define HS_BT_NEAR 16.0
#define HS_SKIP_REL 1e-5
#define HS_SKIP_BIG 0x1.fffcp127
#define HS_SKIP_BIAS_REL 1e-6

#ifndef HS_BT_TYPES
#define HS_BT_TYPES
/* Group bounds kept between rows: slots of HS_FAN sibling nodes. */
#define HS_BT_SLOTS 64
#define HS_BT_NONE UINT_MAX
/* Kept tiles of the last walk remembered for the next row (FN(bt_row)). */
#define HS_BT_WKEEP 64
/* Keys a left hard row scans for its next pick before the search
 * (FN(hard_next)). */
#define HS_HARD_SCAN 16

/* Tile t cut to the row's keys [a, b]: [*j0, *j1]. */
static inline void hs_tile_cut(size_t t, size_t a, size_t b, size_t *j0, size_t *j1) {
  *j0 = t * HS_TILE > a ? t * HS_TILE : a;
  *j1 = t * HS_TILE + HS_TILE - 1 < b ? t * HS_TILE + HS_TILE - 1 : b;
}

/* Appends tile t cut to [a, b] to the segment list seg (ns pairs so far:
 * start, length); returns the new count. */
static inline size_t hs_seg_tile(size_t *seg, size_t ns, size_t t, size_t a, size_t b) {
  size_t j0, j1;
  hs_tile_cut(t, a, b, &j0, &j1);
  seg[2 * ns] = j0;
  seg[2 * ns + 1] = j1 - j0 + 1;
  return ns + 1;
}

/* The keys of the ns segments in seg. */
static inline uint64_t hs_seg_keys(const size_t *seg, size_t ns) {
  uint64_t keys = 0;
  for (size_t t = 0; t < ns; t++) keys += seg[2 * t + 1];
  return keys;
}
#endif

/* The bounds tree of one head: per level, per dimension, three arrays of
 * cnt[l] values (kmin, kmax, max |k|), SoA so that the bounds of sibling
 * nodes are one vector per dimension (the f64_bounds kernel). Held in
 * double whatever REAL is (exact: a float converts exactly), so that one
 * kernel serves both precisions. */
typedef struct FN(btree) {
  unsigned nlev;
  int exact;                 /* every key coordinate an integer, |k| <= 2^12 */
  double kabs[HS_ATTN_MAX_D]; /* max |k_jc| over the keys, per c */
  size_t dk, cnt[HS_BT_MAXLEV];
  double *lv[HS_BT_MAXLEV]; /* level l: kmin[dk][cnt], kmax[dk][cnt], am[dk][cnt] */
  double *mem;
  size_t bytes;
} FN(btree);

static void FN(bt_free)(FN(btree) *T) {
  if (T) free(T->mem);
  free(T);
}

/* The tree's shape and memory for keys 0..rows-1 with dk coordinates,
 * filled by FN(bt_tiles) and FN(bt_up); NULL when out of memory. */
static FN(btree) *FN(bt_alloc)(size_t rows, size_t dk) {
  FN(btree) *T = calloc(1, sizeof *T);
  if (!T) return NULL;
  T->dk = dk;
  size_t c0 = (rows + HS_TILE - 1) / HS_TILE, total = 0;
  T->cnt[0] = c0 ? c0 : 1;
  T->nlev = 1;
  while (T->cnt[T->nlev - 1] > HS_FAN && T->nlev < HS_BT_MAXLEV) {
    T->cnt[T->nlev] = (T->cnt[T->nlev - 1] + HS_FAN - 1) / HS_FAN;
    T->nlev++;
  }
  for (unsigned l = 0; l < T->nlev; l++) total += 3 * dk * T->cnt[l];
  T->mem = malloc((total ? total : 1) * sizeof(double));
  T->bytes = (total ? total : 1) * sizeof(double) + sizeof *T;
  if (!T->mem) {
    free(T);
    return NULL;
  }
  size_t off = 0;
  for (unsigned l = 0; l < T->nlev; l++) {
    T->lv[l] = T->mem + off;
    off += 3 * dk * T->cnt[l];
  }
  T->exact = 1;
  return T;
}

/* The extremes of keys [ja, jb) of K per coordinate into mn, mx, key by
 * key (K is stored key by key), dk a constant in the common cases; 1 when
 * a coordinate is not finite (x - x is 0 exactly when x is finite). A
 * NaN never becomes an extreme; its tile is marked bad whatever they
 * are. */
static inline int FN(bt_tile_dk)(const REAL *K, size_t dk, size_t ja, size_t jb,
                                 REAL *mn, REAL *mx) {
  REAL lo[HS_ATTN_MAX_D], hi[HS_ATTN_MAX_D];
  int bad = 0;
  for (size_t c = 0; c < dk; c++) lo[c] = INFINITY, hi[c] = -INFINITY;
  for (size_t j = ja; j < jb; j++)
    for (size_t c = 0; c < dk; c++) {
      REAL x = K[j * dk + c];
      lo[c] = x < lo[c] ? x : lo[c];
      hi[c] = x > hi[c] ? x : hi[c];
      bad |= !(x - x == 0);
    }
  for (size_t c = 0; c < dk; c++) mn[c] = lo[c], mx[c] = hi[c];
  return bad;
}

/* Level 0 for tiles [t0, t1) of keys 0..rows-1 of K and V (dv): tiles
 * are independent, so threads may fill disjoint ranges. Each range's
 * largest |k_jc| goes into kabs[c] (kept when larger) and a key
 * coordinate that is no integer of at most 2^12 clears *exact (not
 * looked at when *exact is 0 already: softmax heads do not use it); the
 * tree's own (T->kabs, T->exact) are the maximum and the and over the
 * ranges. */
static void FN(bt_tiles)(FN(btree) *T, const REAL *K, const REAL *V, size_t rows,
                         size_t dv, size_t t0, size_t t1, double *kabs, int *exact) {
  const size_t dk = T->dk, nt = T->cnt[0];
  double *L0 = T->lv[0];
  size_t j1 = t1 * HS_TILE < rows ? t1 * HS_TILE : rows;
  int ex = *exact;
  for (size_t j = t0 * HS_TILE * dk; j < j1 * dk && ex; j++)
    ex = fabs(K[j]) <= 4096 && K[j] == (REAL)(int32_t)K[j];
  *exact = ex;
  for (size_t t = t0; t < t1; t++) {
    size_t ja = t * HS_TILE, jb = (t + 1) * HS_TILE < rows ? (t + 1) * HS_TILE : rows;
    REAL mn[HS_ATTN_MAX_D], mx[HS_ATTN_MAX_D];
    int bad;
    switch (dk) {
      case 1: bad = FN(bt_tile_dk)(K, 1, ja, jb, mn, mx); break;
      case 2: bad = FN(bt_tile_dk)(K, 2, ja, jb, mn, mx); break;
      case 4: bad = FN(bt_tile_dk)(K, 4, ja, jb, mn, mx); break;
      default: bad = FN(bt_tile_dk)(K, dk, ja, jb, mn, mx); break;
    }
    for (size_t j = ja * dv; j < jb * dv; j++) bad |= !(V[j] - V[j] == 0);
    for (size_t c = 0; c < dk; c++) {
      if (fabs(mn[c]) > kabs[c]) kabs[c] = fabs(mn[c]);
      if (fabs(mx[c]) > kabs[c]) kabs[c] = fabs(mx[c]);
      L0[c * nt + t] = mn[c];
      L0[(dk + c) * nt + t] = mx[c];
      L0[(2 * dk + c) * nt + t] = fabs(mn[c]) > fabs(mx[c]) ? fabs(mn[c]) : fabs(mx[c]);
    }
    if (bad)
      for (size_t c = 0; c < 3 * dk; c++) L0[c * nt + t] = NAN;
  }
}

/* Levels 1 .. nlev - 1 from level 0. */
static void FN(bt_up)(FN(btree) *T) {
  const size_t dk = T->dk;
  for (unsigned l = 1; l < T->nlev; l++) {
    size_t cn = T->cnt[l], cc = T->cnt[l - 1];
    const double *C = T->lv[l - 1];
    double *P = T->lv[l];
    for (size_t s = 0; s < cn; s++)
      for (size_t c = 0; c < dk; c++) {
        double mn = INFINITY, mx = -INFINITY, am = 0;
        for (size_t t = s * HS_FAN; t < cc && t < (s + 1) * HS_FAN; t++) {
          double a = C[c * cc + t], b = C[(dk + c) * cc + t], m = C[(2 * dk + c) * cc + t];
          /* a NaN child makes the parent NaN, and it stays NaN (every
           * compare with NaN is false) */
          if (isnan(a) || a < mn) mn = a;
          if (isnan(b) || b > mx) mx = b;
          if (isnan(m) || m > am) am = m;
        }
        P[c * cn + s] = mn;
        P[(dk + c) * cn + s] = mx;
        P[(2 * dk + c) * cn + s] = am;
      }
  }
}

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

/* Key j's hard score in double: exact, since a hard row skips only over
 * keys of integers of at most 2^12 (T->exact), so it equals the kernel's
 * score of the key and compares with the row's max M without error. */
static inline double FN(hard_score)(const REAL *q, const REAL *K, size_t dk, size_t j) {
  double s = 0;
  for (size_t c = 0; c < dk; c++) s += (double)q[c] * (double)K[j * dk + c];
  return s;
}

/* A hard row from the last one (exact scores, the same query, C->hvalid):
 *   past rows (keys 0..hi, one range): the last row's keys plus key hi.
 *     With s its exact score: s > M starts afresh at hi (pick hi, count
 *     1, sum 0 + v_hi); s = M adds it (right: pick hi; average: count + 1,
 *     sum + v_hi, the dense kernel's next add in its key order); s < M
 *     changes nothing;
 *   future rows (BOS and lo..hi): the last row's keys minus key lo - 1.
 *     Left / right: a pick still visible (BOS or >= lo) is still the
 *     first / last key at the max, which is unchanged. A left pick that
 *     just left (lo - 1): BOS does not score M (it would be the pick),
 *     so a key among the next HS_HARD_SCAN scoring M (exact scores, in
 *     order) is the new pick, at the same max. Average rows, or a pick
 *     not found so, take the search.
 * Returns 1 with out written, 0 when the row needs the search. */
static int FN(hard_next)(FN(btc) *C, hs_hard_rule rule, const REAL *q,
                         const REAL *K, const REAL *V, size_t dk, size_t dv,
                         int nr, size_t b, size_t lo, size_t hi, REAL *out) {
  if (!C->hvalid) return 0;
  if (nr == 1 && C->hlo == lo && b == C->hhi + 1 && b == hi) {
    double s = FN(hard_score)(q, K, dk, b);
    if (s > C->hM) {
      C->hM = s, C->hpick = b, C->hcnt = 1;
      for (size_t c = 0; c < dv; c++) C->hacc[c] = 0, C->hacc[c] += V[b * dv + c];
    } else if (s == C->hM) {
      if (rule == HS_HARD_RIGHT) C->hpick = b;
      C->hcnt++;
      for (size_t c = 0; c < dv; c++) C->hacc[c] += V[b * dv + c];
    }
    C->hhi = hi;
  } else if (nr == 2 && rule != HS_HARD_AVG && C->hhi == hi && lo == C->hlo + 1 &&
             (C->hpick == 0 || C->hpick >= lo)) {
    C->hlo = lo;
  } else if (nr == 2 && rule == HS_HARD_LEFT && C->hhi == hi && lo == C->hlo + 1 &&
             C->hpick == lo - 1) {
    size_t j = lo, e = hi - lo < HS_HARD_SCAN ? hi : lo + HS_HARD_SCAN - 1;
    while (j <= e && FN(hard_score)(q, K, dk, j) != C->hM) j++;
    if (j > e) return 0;
    C->hlo = lo, C->hpick = j;
  } else {
    return 0;
  }
  if (rule == HS_HARD_AVG)
    for (size_t c = 0; c < dv; c++) out[c] = C->hacc[c] / (REAL)C->hcnt;
  else
    memcpy(out, V + C->hpick * dv, dv * sizeof(REAL));
  return 1;
}

/* The left / right pick of a hard row over the ranges Bq[0 .. nr - 1]
 * at max M: the first key scoring M from that end (FN(bt_find)), out its
 * value and C the row's (keys BOS and lo..hi); 0 when no key scores M
 * (not for the row's exact max: the key giving it scores it). */
static int FN(hard_pick)(const FN(btree) *T, const FN(bq) *Bq, FN(btc) *C,
                         const REAL *K, const REAL *V, size_t dv, int nr, int right,
                         double M, size_t lo, size_t hi, size_t *scored, REAL *out) {
  for (int s = 0; s < nr; s++) {
    int r = right ? nr - 1 - s : s;
    size_t p = FN(bt_find)(T, &Bq[r], C, K, T->nlev - 1, 0, M, right, scored);
    if (p != SIZE_MAX) {
      memcpy(out, V + p * dv, dv * sizeof(REAL));
      C->hvalid = 1, C->hlo = lo, C->hhi = hi, C->hM = M, C->hpick = p;
      return 1;
    }
  }
  return 0;
}

/* A hard row over BOS and keys lo..hi (FN(hard_row_k)'s order), skipping;
 * seg has room for the row's tiles. Returns 0, with out untouched, when
 * the row cannot skip (not exact, or the search cut short): the caller
 * runs the dense kernel. Counts the row's tiles into *total and those no
 * kernel call scored into *skipped (a tile scored twice counts twice, so
 * this errs low).
 *
 * A left / right row whose keys are a subset of the last row's (future
 * masks: the same hi, lo no smaller; the same query, C->hvalid), whose
 * pick FN(hard_next) could not keep: its max is at most the last one,
 * C->hM, so a key still visible scoring C->hM makes it the max, and the
 * find at C->hM gives the row's pick without the search for M (a
 * pe-compiled "nearest j >= i where P" head: the next P position). */
static int FN(hard_row_skip)(const hs_kernels *kt, const FN(btree) *T, FN(btc) *C,
                             hs_hard_rule rule, const REAL *q, const REAL *K,
                             const REAL *V, size_t dv, size_t lo, size_t hi,
                             size_t *seg, REAL *out, uint64_t *total,
                             uint64_t *skipped) {
  if (!T || !FN(bt_exact_q)(T, q) || dv > HS_ATTN_MAX_D) return 0;
  const size_t dk = T->dk;
  size_t ra[2] = {0, lo}, rb[2] = {lo == 1 && lo <= hi ? hi : 0, hi};
  int nr = lo == 1 || lo > hi ? 1 : 2;
  FN(bq) Bq[2];
  /* the cache current already (what FN(btc_use) would find: exact rows
   * have rel = 0 and qd = q, inv_tau being 1): Bq is set up only when
   * FN(hard_next) cannot answer */
  int cur = C->valid && C->rel == 0;
  for (size_t c = 0; cur && c < dk; c++) cur = C->qd[c] == (double)q[c];
  if (!cur) {
    FN(bq_init)(&Bq[0], kt, T, q, ra[0], rb[0], 1.0, 1, NULL);
    FN(btc_use)(C, &Bq[0], dk);
  }
  if (FN(hard_next)(C, rule, q, K, V, dk, dv, nr, rb[0], lo, hi, out)) {
    *total += rb[nr - 1] / HS_TILE - ra[nr - 1] / HS_TILE + (nr == 2) + 1;
    *skipped += rb[nr - 1] / HS_TILE - ra[nr - 1] / HS_TILE + (nr == 2);
    return 1;
  }
  if (cur) FN(bq_init)(&Bq[0], kt, T, q, ra[0], rb[0], 1.0, 1, NULL);
  if (nr == 2) FN(bq_init)(&Bq[1], kt, T, q, ra[1], rb[1], 1.0, 1, NULL);
  size_t tiles = 0, scored = 0;
  for (int r = 0; r < nr; r++) tiles += Bq[r].tb - Bq[r].ta + 1;
  const int right = rule == HS_HARD_RIGHT;
  if (rule != HS_HARD_AVG && C->hvalid && C->hhi == hi && lo >= C->hlo &&
      FN(hard_pick)(T, Bq, C, K, V, dv, nr, right, C->hM, lo, hi, &scored, out))
    goto done;
  double M = -INFINITY;
  const unsigned top = T->nlev - 1;
  for (int r = 0; r < nr; r++) {
    FN(bts) S = {.mlo = M, .margin = 0, .jlo = SIZE_MAX, .max_evals = 4 * HS_BT_EVALS};
    FN(bt_search)(T, &Bq[r], C, K, top, 0, &S);
    if (S.cut_short) return 0;
    M = S.mlo;
    scored += S.evals;
  }
  if (!(M > -INFINITY)) return 0;
  if (rule == HS_HARD_AVG) {
    HARD hs = {-INFINITY, -INFINITY, 0, 0};
    for (size_t c = 0; c < dv; c++) out[c] = 0;
    for (int r = 0; r < nr; r++) {
      size_t ns = FN(bt_walk)(T, &Bq[r], C, top, 0, M, 0.0, seg, 0, NULL);
      scored += ns;
      for (size_t g = 0; g < ns; g++) {
        size_t s0 = seg[2 * g];
        KOP(kt, attn_hard)(seg[2 * g + 1], dk, dv, q, K + s0 * dk, dk, V + s0 * dv,
                           dv, s0, rule, &hs, out);
      }
    }
    C->hvalid = nr == 1, C->hlo = lo, C->hhi = hi, C->hM = M, C->hcnt = hs.cnt;
    memcpy(C->hacc, out, dv * sizeof(REAL));
    for (size_t c = 0; c < dv; c++) out[c] /= (REAL)hs.cnt;
  } else if (!FN(hard_pick)(T, Bq, C, K, V, dv, nr, right, M, lo, hi, &scored, out)) {
    return 0; /* not reached: the key giving M scores M */
  }
done:
  *total += tiles;
  *skipped += tiles - (scored < tiles ? scored : tiles);
  return 1;
}
