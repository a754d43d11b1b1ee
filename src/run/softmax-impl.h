/* SPDX-License-Identifier: MIT */
/* A softmax head's row on the kernels: skipping, two-pass, online or
 * rounded. Written once for REAL = float and double; included by
 * forward-impl.h. */

/* The segments of row i's keys [a, b] on head h into seg (FN(bt_row):
 * the skippable tiles left out when the head has a bounds tree), counted
 * into the part's tiles; returns how many. */
static size_t FN(skip_segs)(const FN(job) *J, int h, size_t i, const REAL *q,
                            size_t a, size_t b, REAL inv_tau, FN(part) *p,
                            double cut, size_t *seg) {
  const hs_head *H = &J->L->heads[h];
  const FN(btree) *T = J->bt && !p->daz ? J->bt[h] : NULL;
  FN(bkind) bk = {0, i, H->kind == HS_ATTN_SOFTMAX ? J->o->score_round : HS_ROUND_NONE};
  FN(rel_slope)(H, &bk.sk);
  uint64_t t0 = FN(search_begin)(p, i);
  size_t ns = FN(bt_row)(J->kt, T, &p->btc[h], J->K[h], q, a, b, inv_tau, &bk, cut, seg);
  FN(search_end)(p, t0);
  p->total += b / HS_TILE - a / HS_TILE + 1;
  p->skipped += b / HS_TILE - a / HS_TILE + 1 - ns;
  return ns;
}

/* One softmax row on the two-pass kernel (f32 relative-bias heads: its
 * bias variant, key j of the buffers at j - i): the tiles of [a, b] as
 * segments, minus the skippable ones (skip ON, FN(bt_row)), left in
 * p->seg; returns how many. */
static size_t FN(two_pass_row)(const FN(job) *J, int h, size_t i, const REAL *q,
                               size_t a, size_t b, REAL inv_tau, FN(part) *p,
                               ONLINE *st, REAL *out) {
  const hs_head *H = &J->L->heads[h];
  const size_t dk = hs_dkp(H), dv = (size_t)H->dv;
  size_t ns = FN(skip_segs)(J, h, i, q, a, b, inv_tau, p, SKIP_CUT, p->seg);
  p->segs += ns;
  p->keys += hs_seg_keys(p->seg, ns);
  float sk;
  FN(rel_slope)(H, &sk);
#if REAL_F32
  if (sk != 0) {
    J->kt->f32_attn_row_2pass_bias(ns, p->seg, dk, dv, q, J->K[h], dk, J->V[h], dv,
                                   inv_tau, sk, -(int64_t)i, st, out);
    return ns;
  }
#endif
  KOP(J->kt, attn_row_2pass)(ns, p->seg, dk, dv, q, J->K[h], dk, J->V[h], dv,
                             inv_tau, st, out);
  return ns;
}

/* The online kernel over keys a .. a + h0 + cnt - 1 of head buffers K, V:
 * a head call of h0 keys first when h0 > 0; f32 relative-bias heads
 * (sk != 0) its bias variant, key j of the buffers at j - i. */
static void FN(online_row)(const hs_kernels *kt, size_t dk, size_t dv, const REAL *q,
                           const REAL *K, const REAL *V, size_t a, size_t h0,
                           size_t cnt, REAL inv_tau, float sk, size_t i, ONLINE *st,
                           REAL *out) {
#if REAL_F32
  if (sk != 0) {
    int64_t d0 = (int64_t)a - (int64_t)i;
    if (h0)
      kt->f32_attn_row_bias(h0, dk, dv, q, K + a * dk, dk, V + a * dv, dv, inv_tau,
                            sk, d0, st, out);
    kt->f32_attn_row_bias(cnt, dk, dv, q, K + (a + h0) * dk, dk, V + (a + h0) * dv, dv,
                          inv_tau, sk, d0 + (int64_t)h0, st, out);
    return;
  }
#else
  (void)sk, (void)i;
#endif
  if (h0) KOP(kt, attn_row)(h0, dk, dv, q, K + a * dk, dk, V + a * dv, dv, inv_tau, st, out);
  KOP(kt, attn_row)(cnt, dk, dv, q, K + (a + h0) * dk, dk, V + (a + h0) * dv, dv,
                    inv_tau, st, out);
}

/* The keys of a rounded row (FN(rounded_row)) as segments in its order:
 * BOS (key 0), then lo..hi; on the skipping path (two_pass[h]) those of
 * FN(skip_segs), the BOS copy that ends a future row's range moved to the
 * front as key 0 (its twin: the same key and value). *seg points into
 * p->seg, which has room for the row's tiles and one more. */
static size_t FN(rounded_segs)(const FN(job) *J, int h, size_t i, const REAL *q,
                               size_t lo, size_t hi, REAL inv_tau, FN(part) *p,
                               size_t **seg) {
  const hs_head *H = &J->L->heads[h];
  size_t *sg = p->seg, a, b;
  int past = FN(key_span)(J, H, lo, hi, &a, &b);
  if (!J->two_pass || !J->two_pass[h]) {
    size_t ns = 1;
    sg[0] = 0, sg[1] = past && lo <= hi ? hi + 1 : 1;
    if (!past && lo <= hi) sg[2] = lo, sg[3] = hi - lo + 1, ns = 2;
    *seg = sg;
    return ns;
  }
  size_t ns = FN(skip_segs)(J, h, i, q, a, b, inv_tau, p, ROUNDED_CUT, sg + 2);
  size_t *last = sg + 2 * ns;
  *seg = sg + 2;
  if (past || ns == 0 || last[0] + last[1] != J->np + 1) return ns;
  if (--last[1] == 0) ns--;
  sg[0] = 0, sg[1] = 1;
  *seg = sg;
  return ns + 1;
}

/* A softmax row's last step, shared by the row, tile and multi-row
 * paths so the three give the same bits: out[0..dv) divided by the sum
 * (st; NULL for rounded rows, whose kernel normalises), then the attention
 * error when asked for (rounded scores have none defined; f64
 * relative-bias rows, rounded_row with no rounding, have theirs): over
 * the ns segments seg the row's kernel took (NULL: BOS and lo..hi, the
 * whole row), the keys it left out bounded by the cut (FN(off_target)). */
static void FN(finish_row)(const FN(job) *J, int h, size_t i, size_t lo, size_t hi,
                           REAL inv_tau, const ONLINE *st, REAL *out, FN(part) *p,
                           const size_t *seg, size_t ns) {
  const hs_head *H = &J->L->heads[h];
  if (st)
    for (size_t c = 0; c < (size_t)H->dv; c++) out[c] = st->sum > 0 ? out[c] / st->sum : 0;
  if (J->o->want_attn_error && i > 0 && J->o->score_round == HS_ROUND_NONE) {
    size_t whole[4] = {0, 1, lo, lo <= hi ? hi - lo + 1 : 0}, a, b;
    double rest = 0;
    if (seg) {
      FN(key_span)(J, H, lo, hi, &a, &b);
      double cut = FN(rounded_head)(J->o, H) ? ROUNDED_CUT : SKIP_CUT;
      rest = (double)(b - a + 1 - hs_seg_keys(seg, ns)) * exp(-cut);
    }
    double e = FN(off_target)(J->kt, H, J->Q[h] + i * hs_dkp(H), J->K[h],
                              seg ? ns : 1 + (lo <= hi), seg ? seg : whole, rest,
                              inv_tau, i, J->n);
    if (e > p->err) p->err = e;
  }
}

/* A softmax head's row: rounded scores (FN(rounded_row)), or the
 * two-pass kernel, or the online one (f32 relative bias: its bias
 * variant, key j of the buffers at j - i), then normalised; the
 * attention error when asked for. */
static void FN(softmax_row)(const FN(job) *J, int h, size_t i, REAL *out, FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  const hs_kernels *kt = J->kt;
  const hs_run_opts *o = J->o;
  size_t n = J->n, dk = hs_dkp(H), dv = (size_t)H->dv, lo, hi, a, b;
  REAL inv_tau = FN(head_inv_tau)(H, n);
  FN(head_range)(H, i, n, &lo, &hi);
  const REAL *q = J->Q[h] + i * dk, *Kh = J->K[h], *Vh = J->V[h];
  float sk;
  FN(rel_slope)(H, &sk);
  int past = FN(key_span)(J, H, lo, hi, &a, &b);
  if (FN(rounded_head)(o, H)) {
    size_t *seg, ns = FN(rounded_segs)(J, h, i, q, lo, hi, inv_tau, p, &seg);
    FN(rounded_row)(kt, H, q, Kh, Vh, ns, seg, inv_tau, o->score_round, i, n, out);
    FN(finish_row)(J, h, i, lo, hi, inv_tau, NULL, out, p, seg, ns);
  } else {
    ONLINE st = {-INFINITY, 0};
    for (size_t c = 0; c < dv; c++) out[c] = 0;
    if (J->two_pass && J->two_pass[h]) {
      size_t ns = FN(two_pass_row)(J, h, i, q, a, b, inv_tau, p, &st, out);
      FN(finish_row)(J, h, i, lo, hi, inv_tau, &st, out, p, p->seg, ns);
    } else {
      /* f32 future masks: the blocks anchored at the last key (the BOS
       * copy), as f32_attn_tile with end = 1: a head call of
       * hs_attn_end_head keys first. A row's bits depend on its range
       * only, never on tiles, threads or the rows around it. */
      size_t h0 = REAL_F32 && !past ? hs_attn_end_head(b - a + 1) : 0;
      p->keys += b - a + 1, p->segs++;
      FN(online_row)(kt, dk, dv, q, Kh, Vh, a, h0, b - a + 1 - h0, inv_tau, sk, i, &st, out);
      FN(finish_row)(J, h, i, lo, hi, inv_tau, &st, out, p, NULL, 0);
    }
  }
}
