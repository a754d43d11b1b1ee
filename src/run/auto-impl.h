/* SPDX-License-Identifier: MIT */
/* --skip auto: which path a softmax head's rows take, by their cost.
 * Written once for REAL = float and double; included by forward-impl.h. */

/* --skip auto: whether head h's rows should take the skipping two-pass
 * kernel, from what each path would cost on this head's rows. The bounds
 * are computed for 8 rows spread over the string (the rows with the most
 * keys of each eighth); a row then costs about
 *   online:  HS_ON_ROW_NS + keys * key_ns(online)
 *   skip:    HS_SKIP_ROW_NS + kept keys * key_ns(two-pass)
 * (the bounds, search and walk are scalar and cost about the same on
 * every ISA; kept keys count each kept tile whole, and the two-pass
 * kernel takes them 64 at a time, one call per tile, reading each twice).
 * Measured on an Intel Xeon (family 6 model 167) with the suite's pe
 * models (a S b and the depth-4 formula, mu = 4, dk <= 3, dv = 1; one
 * thread, the process's CPU time, least of 9 to 15 passes):
 * - online, per row, at n = 1024 and 4096: 35-77 ns plus per key 3.3-3.5
 *   ns scalar, 0.40-0.46 AVX2, 0.21-0.34 AVX-512 (the Zen 4 constants
 *   before them fit as they are);
 * - skipping, each head of both formulas forced onto it alone against
 *   none (n = 256 .. 2048, every ISA), and the constants chosen to pick
 *   the cheaper path for the most time: a row keeping one tile costs
 *   about 140 ns on AVX2 and AVX-512 (HS_SKIP_ROW_NS + 64 key_ns), and a
 *   second tile adds 60-90 ns.
 * Measured again once the two-pass kernel took several kept tiles a call
 * and the walk was cached between rows (hardsoft bench --phases, the
 * search and attention phases over the rows, mu = 4, n = 512 .. 4096,
 * both formulas forced on and online): a skipping row keeping ~1.5 tiles
 * costs 85-95 ns on AVX2 and AVX-512 whatever n (about 25 of them the
 * search) and 250-290 ns scalar, so HS_SKIP_ROW_NS 40 plus 0.5 ns a
 * kept key (vector ISAs); the online rows still fit the constants below.
 * The constants before them (60 ns and 1.25 ns a key) kept AVX2 and
 * AVX-512 online at n = 512 on both formulas, 25-35% slower than
 * skipping there. The per-key figures are now per ISA and precision,
 * FN(key_ns).
 * The choice depends on the string, the weights, the ISA and the
 * precision only, never on threads. */
#define HS_ON_ROW_NS 50.0
#define HS_SKIP_ROW_NS 40.0

/* ns per key of a row on the online (two = 0) or the skipping path (two =
 * 1: per kept key, the keys the two-pass kernel scores), in this
 * precision. Rounded rows (score rounding, f64 relative bias) run one
 * scalar row with a libm exp per key on either path (FN(rounded_row)).
 * Measured (hardsoft bench --phases, a S b, pe, mu = 4, n = 256 .. 1024,
 * --skip on against online, 21 runs; Intel Xeon family 6 model 167):
 * - online rows, per key over HS_ON_ROW_NS: f32 3.4 scalar, 0.45 AVX2,
 *   0.26 AVX-512 (as before); f64 5.3 scalar, 1.2 AVX2 (2.8 before its
 *   online row was written over the vocabulary), 0.8 AVX-512.
 *   The f32 figures stood in for f64 before, so f64 heads on AVX-512 at
 *   n = 256 stayed online, 1.6x slower than skipping;
 * - skipping rows (bounds, search and the two-pass kernel; 50-58 kept
 *   keys in 1.3-1.4 segments a row), per kept key over HS_SKIP_ROW_NS:
 *   f32 4.1 scalar, 0.65 AVX2, 0.51 AVX-512; f64 4.7 scalar, 1.4 AVX2,
 *   1.05 AVX-512. The kept keys were counted as 64 a segment before,
 *   which overcounts a future row's BOS segment (one key) and its partial
 *   first tile: on scalar, a future head like X a's stayed online at
 *   n = 256, 2.8x slower than skipping.
 * A head that skips nothing must stay online: its two-pass rows over every
 * key were 17-32% slower than online on scalar f64 (n = 1024 .. 4096), so
 * scalar f64 takes 5.5 a kept key, above its online 5.3. */
static double FN(key_ns)(hs_isa isa, int rounded, int two) {
  const int f64 = sizeof(REAL) == sizeof(double);
  if (rounded) return 20.0;
  switch (isa) {
    case HS_ISA_SCALAR: return two ? (f64 ? 5.5 : 4.1) : (f64 ? 5.3 : 3.4);
    case HS_ISA_AVX512: return two ? (f64 ? 1.05 : 0.51) : (f64 ? 0.8 : 0.26);
    default: /* AVX2 and other 8-16 byte vector ISAs */
      return two ? (f64 ? 1.4 : 0.65) : (f64 ? 1.2 : 0.45);
  }
}

/* The 8 sampled rows of head h: row i and its keys [a, b] in r[s]; returns
 * their keys in all. One row in each eighth of the string, half a tile
 * from its end (past) or its start (future): a row's bounds are weakest
 * when its own tile is barely visible, and the rows at a tile's edge are
 * the extremes, not the typical row. */
static uint64_t FN(auto_rows)(const FN(job) *J, const hs_head *H, size_t r[8][3]) {
  size_t n = J->n;
  int past = H->mask == HS_MASK_LE || H->mask == HS_MASK_LT || H->mask == HS_MASK_NONE;
  uint64_t keys = 0;
  for (size_t s = 1; s <= 8; s++) {
    size_t i = past ? n * s / 8 - HS_TILE / 2 : 1 + n * (s - 1) / 8 + HS_TILE / 2, lo, hi;
    /* near n = 4 tiles the last eighth's future row would fall past n */
    if (i < 1) i = 1;
    if (i > n) i = n;
    FN(head_range)(H, i, n, &lo, &hi);
    size_t a = past ? 0 : (lo <= n ? lo : J->np), b = past ? (lo <= hi ? hi : 0) : J->np;
    r[s - 1][0] = i, r[s - 1][1] = a, r[s - 1][2] = b;
    keys += b - a + 1;
  }
  return keys;
}

/* Whether skipping could pay on head h, checked before the bounds tree
 * is built, so that short strings pay neither the tree nor the sampling
 * (2-3% of a pass where auto then stays online; 4-11% before the tree's
 * tiles were read key by key). A row keeps at least the visible keys of
 * the tile holding its largest score (its bound is at least the row's
 * max, so never below m_lo), and the suite's rows keep 50 to 58 keys (at
 * n = 256 .. 1024): skipping is tried where rows keeping HS_AUTO_MIN_KEYS
 * would be cheaper than online, which with FN(key_ns)'s figures is every
 * ISA from n = 256 on (a past head's sampled rows average ~0.56 n keys);
 * the sampled rows' kept keys then decide (FN(auto_skip)). */
#define HS_AUTO_MIN_KEYS 48.0
static int FN(auto_may_skip)(const FN(job) *J, int h) {
  const hs_head *H = &J->L->heads[h];
  size_t r[8][3];
  if (J->n < 4 * HS_TILE || hs_daz_enabled()) return 0;
  int rounded = FN(rounded_head)(J->o, H);
  double keys = (double)FN(auto_rows)(J, H, r);
  return HS_SKIP_ROW_NS + HS_AUTO_MIN_KEYS * FN(key_ns)(J->kt->isa, rounded, 1) <
         HS_ON_ROW_NS + keys / 8 * FN(key_ns)(J->kt->isa, rounded, 0);
}

static int FN(auto_skip)(const FN(job) *J, int h) {
  const hs_head *H = &J->L->heads[h];
  size_t dk = hs_dkp(H), n = J->n, r[8][3];
  size_t *seg = malloc(2 * (J->ntiles + 1) * sizeof(size_t));
  FN(btc) *C = calloc(1, sizeof *C);
  uint64_t total = 0, kept = 0, keys = FN(auto_rows)(J, H, r);
  REAL inv_tau = FN(head_inv_tau)(H, n);
  int rounded = FN(rounded_head)(J->o, H);
  for (size_t s = 0; seg && C && s < 8; s++) {
    size_t i = r[s][0], a = r[s][1], b = r[s][2];
    total += b / HS_TILE - a / HS_TILE + 1;
    FN(bkind) bk = {0, i, J->o->score_round};
    FN(rel_slope)(H, &bk.sk);
    size_t ns = FN(bt_row)(J->kt, J->bt[h], C, J->K[h], J->Q[h] + i * dk, a, b,
                           inv_tau, &bk, rounded ? ROUNDED_CUT : SKIP_CUT, seg);
    kept += hs_seg_keys(seg, ns);
  }
  const hs_isa isa = J->kt->isa;
  double on = 8 * HS_ON_ROW_NS + (double)keys * FN(key_ns)(isa, rounded, 0);
  double sk = 8 * HS_SKIP_ROW_NS + (double)kept * FN(key_ns)(isa, rounded, 1);
  int use = seg && C && total > 0 && sk < on;
  free(seg);
  free(C);
  return use;
}
