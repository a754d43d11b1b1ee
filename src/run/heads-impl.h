/* SPDX-License-Identifier: MIT */
/* One head's row on its own kernel: hard heads, the relative bias, the
 * scores of the attention error, the layer norm pair, rows with rounded
 * scores. Written once for REAL = float and double; included by
 * forward-impl.h. */

/* A hard head's row (leftmost / rightmost / all maximal) by the
 * f32_attn_hard / f64_attn_hard kernel: BOS then keys lo..hi, in that
 * order (BOS is the leftmost position whatever the mask); past masks
 * have lo = 1, so the two are one contiguous range. A NaN score is never
 * maximal; a row of NaN scores takes BOS. */
static void FN(hard_row_k)(const hs_kernels *kt, const hs_head *H, const REAL *q,
                           const REAL *K, const REAL *V, size_t lo, size_t hi,
                           REAL *out, hs_head_stats *st) {
  size_t dk = hs_dkp(H), dv = (size_t)H->dv;
  hs_hard_rule rule = H->kind == HS_ATTN_HARD_LEFT    ? HS_HARD_LEFT
                      : H->kind == HS_ATTN_HARD_RIGHT ? HS_HARD_RIGHT
                                                      : HS_HARD_AVG;
  CAT(CAT(hs_, SFX), _hard) hs = {-INFINITY, -INFINITY, 0, 0};
  for (size_t c = 0; c < dv; c++) out[c] = 0;
  size_t nk = lo <= hi ? hi - lo + 1 : 0;
  if (lo == 1) {
    KOP(kt, attn_hard)(nk + 1, dk, dv, q, K, dk, V, dv, 0, rule, &hs, out);
  } else {
    KOP(kt, attn_hard)(1, dk, dv, q, K, dk, V, dv, 0, rule, &hs, out);
    KOP(kt, attn_hard)(nk, dk, dv, q, K + lo * dk, dk, V + lo * dv, dv, lo, rule, &hs, out);
  }
  if (hs.cnt == 0) { /* every score NaN: BOS */
    for (size_t c = 0; c < dv; c++) out[c] = V[c];
  } else if (rule == HS_HARD_AVG) {
    for (size_t c = 0; c < dv; c++) out[c] /= (REAL)hs.cnt;
  }
  if (st) {
    if (hs.second > -INFINITY) {
      double g = (double)hs.best - (double)hs.second;
      if (g < st->gap) st->gap = g;
      st->nonuniform = 1;
    }
    if (hs.cnt > 1) st->tied = 1;
  }
}

/* The relative bias of head H (hs_head.bias_slope) for row i: key j of
 * the K, V buffers (j = 1..n the positions, 0 BOS, n + 1 BOS's copy)
 * gets slope_k * (j - i). Past masks: slope_k = +slope, BOS at 0, so
 * -slope (i - j); future masks: slope_k = -slope, and the copy at n + 1
 * stands for BOS (hs_head.bias_slope puts it there). *sk = 0 when the
 * head has no bias. */
static void FN(rel_slope)(const hs_head *H, float *sk) {
  int future = H->mask == HS_MASK_GE || H->mask == HS_MASK_GT;
  *sk = future ? -H->bias_slope : H->bias_slope;
}

/* The bias of key position j (0 = BOS) for row i, as the kernels add
 * it: fma(slope_k, (j' - i), score), j' = j, or n + 1 for BOS under a
 * future mask. */
static REAL FN(rel_add)(const hs_head *H, size_t i, size_t n, size_t j,
                        REAL score) {
  float sk;
  FN(rel_slope)(H, &sk);
  if (sk == 0) return score;
  int future = H->mask == HS_MASK_GE || H->mask == HS_MASK_GT;
  size_t jp = j == 0 && future ? n + 1 : j;
  return FMA_R((REAL)sk, (REAL)(int32_t)((int64_t)jp - (int64_t)i), score);
}

/* Keys j0 .. j0 + cnt - 1 of a row's attention error (FN(off_target)):
 * their working-precision scores (one gemv kernel call, then / tau and
 * the relative bias) in double into sc. */
#define HS_ERR_CHUNK 256
static void FN(err_scores)(const hs_kernels *kt, const hs_head *H, const REAL *q,
                           const REAL *K, size_t j0, size_t cnt, REAL inv_tau,
                           size_t i, size_t n, double *sc) {
  const size_t dk = hs_dkp(H);
  REAL d[HS_ERR_CHUNK];
  KOP(kt, gemv)(cnt, dk, K + j0 * dk, dk, q, d);
  for (size_t t = 0; t < cnt; t++)
    sc[t] = (double)FN(rel_add)(H, i, n, j0 + t, d[t] * inv_tau);
}

/* Weight a softmax row puts off the hard target it stands in for, computed
 * in double from the working-precision scores of the keys in the ns
 * segments seg (start, length), plus `rest`, a bound on the summed
 * weight e^{s - max} of the row's other keys: 0 for a whole row, the
 * keys a skipping row left out times e^{-cut} (skip-impl.h: each scores
 * more than the cut below the max), so that measuring the error costs
 * about what the row's kernel call did (a row that skipped: the kept
 * tiles only). */
static double FN(off_target)(const hs_kernels *kt, const hs_head *H,
                             const REAL *q, const REAL *K, size_t ns, const size_t *seg,
                             double rest, REAL inv_tau, size_t i, size_t n) {
  /* a chunk of keys at a time: the max so far (m), the weights' sum
   * relative to it (tot) and the target's share (on): left / right one
   * key at the max (weight 1, whichever it is), average every key there */
  double m = -INFINITY, tot = 0, on = 0, sc[HS_ERR_CHUNK];
  /* a head that stands in for no hard kind (the BOS-weighted counts) is
   * meant to spread its weight: nothing is "off target" */
  if (H->target == HS_ATTN_SOFTMAX) return 0;
  for (size_t g = 0; g < ns; g++)
    for (size_t j0 = seg[2 * g], e = j0 + seg[2 * g + 1]; j0 < e; j0 += HS_ERR_CHUNK) {
      size_t cnt = e - j0 < HS_ERR_CHUNK ? e - j0 : HS_ERR_CHUNK;
      FN(err_scores)(kt, H, q, K, j0, cnt, inv_tau, i, n, sc);
      double cm = -INFINITY;
      for (size_t t = 0; t < cnt; t++) cm = sc[t] > cm ? sc[t] : cm;
      /* an overflowed or NaN score decides nothing: report the whole
       * weight lost rather than an error of 0 beside a wrong answer */
      for (size_t t = 0; t < cnt; t++)
        if (!(sc[t] < INFINITY)) return 1;
      if (cm > m) {
        double r = m > -INFINITY ? exp(m - cm) : 0;
        tot *= r, on = H->target == HS_ATTN_HARD_AVG ? 0 : 1, m = cm;
      }
      for (size_t t = 0; t < cnt; t++) {
        double x = sc[t] - m;
        /* below -746 exp is +0 (e^-746 < 2^-1075): not through libm's
         * underflow path */
        tot += x == 0 ? 1 : x >= -746 ? exp(x) : 0;
        on += x == 0 && H->target == HS_ATTN_HARD_AVG;
      }
    }
  return m == -INFINITY ? 0 : 1 - on / (tot + rest);
}
#undef HS_ERR_CHUNK

/* Layer normalization of one pair of hidden units (see hs_layer): for
 * [u, -u] with eps = 0 the mean is exactly 0 and the result +-1 up to
 * the rounding of sqrt(u^2), which the compiler's gains absorb. */
static void FN(ln_pair)(REAL *h, double eps, const float *g, const float *b) {
  REAL m = (h[0] + h[1]) / 2, d0 = h[0] - m, d1 = h[1] - m;
  REAL s = (REAL)sqrt((double)((d0 * d0 + d1 * d1) / 2) + eps);
  if (!(s > 0)) {
    h[0] = (REAL)b[0], h[1] = (REAL)b[1];
    return;
  }
  h[0] = (REAL)g[0] * (d0 / s) + (REAL)b[0];
  h[1] = (REAL)g[1] * (d1 / s) + (REAL)b[1];
}

/* Whether head H's softmax rows run FN(rounded_row) below: scores rounded
 * to f16 / bf16, or a relative bias in f64 (no f64 bias kernel). */
static int FN(rounded_head)(const hs_run_opts *o, const hs_head *H) {
  return o->score_round != HS_ROUND_NONE || (H->bias_slope != 0 && !REAL_F32);
}

/* A softmax row with every score q.k rounded to f16 / bf16 first (rnd),
 * then divided by tau and given H's relative bias (FN(rel_add)): the
 * score-rounding experiment, and the f64 path of relative-bias heads
 * (there is no f64 bias kernel; this row is scalar). Its keys are the
 * segments seg (ns pairs: start, length) in order, BOS as key 0
 * (FN(rounded_segs)); the sums run key by key in that order, so a key
 * whose weight is exactly +0 can be left out with the same bits (+0 added
 * to a sum that is never -0). */
static void FN(rounded_row)(const hs_kernels *kt, const hs_head *H,
                            const REAL *q, const REAL *K, const REAL *V,
                            size_t ns, const size_t *seg, REAL inv_tau,
                            hs_score_round rnd, size_t i, size_t n, REAL *out) {
  size_t dk = hs_dkp(H), dv = (size_t)H->dv;
  REAL m = -INFINITY, sum = 0;
#define RSCORE(j)                                                          \
  FN(rel_add)(H, i, n, j,                                                  \
              (REAL)hs_round_score((double)KOP(kt, dot)(dk, q, K + (j) * dk), \
                                   rnd) * inv_tau)
  for (size_t g = 0; g < ns; g++)
    for (size_t j = seg[2 * g]; j < seg[2 * g] + seg[2 * g + 1]; j++) {
      REAL s = RSCORE(j);
      if (s > m) m = s;
    }
  for (size_t c = 0; c < dv; c++) out[c] = 0;
  if (m == -INFINITY) return;
  for (size_t g = 0; g < ns; g++)
    for (size_t j = seg[2 * g]; j < seg[2 * g] + seg[2 * g + 1]; j++) {
      REAL s = RSCORE(j);
      REAL e = (REAL)exp((double)(s - m));
      sum += e;
      for (size_t c = 0; c < dv; c++) out[c] += e * V[j * dv + c];
    }
#undef RSCORE
  for (size_t c = 0; c < dv; c++) out[c] /= sum;
}

/* x[0..cnt) rounded to f16 / bf16 in place (hs_round_score). */
static void FN(round_store)(REAL *x, size_t cnt, hs_score_round r) {
  for (size_t t = 0; t < cnt; t++) x[t] = (REAL)hs_round_score((double)x[t], r);
}
