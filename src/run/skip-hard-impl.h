/* SPDX-License-Identifier: MIT */
/* Exact tile skipping, a hard row's side: its pick and average from the
 * last row's, else from the tree. Written once for REAL = float and
 * double; included by forward-impl.h after skip-impl.h, whose first
 * comment states the bounds and why skipping changes no bit. */

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
