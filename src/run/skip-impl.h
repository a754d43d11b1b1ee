/* SPDX-License-Identifier: MIT */
/* Exact tile skipping (hs_run_opts.skip, softmax heads): the argument
 * and the bounds tree; the rows' side follows in skip-search-impl.h
 * (softmax) and skip-hard-impl.h (hard heads). Written once for REAL =
 * float and double; included by forward-impl.h before the job and part
 * types (job-impl.h), with SKIP_CUT the kernel's cut (below).
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
