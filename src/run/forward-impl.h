/* SPDX-License-Identifier: MIT */
/* The forward pass, written once for REAL = float and REAL = double
 * (included twice by forward.c between real-begin.h and real-end.h). */

#ifndef HS_DKP_DEFINED
#define HS_DKP_DEFINED
/* The width a head's queries and keys are stored and scored with: a
 * softmax head's dk of 3 is padded to 4 and 5..7 to 8, the extra rows of
 * W_q and W_k zero, so every such head takes the kernels' contiguous
 * fast paths (dk in {1, 2, 4, 8}: plain loads and lane sums instead of
 * masked 4-float chunks). The extra terms are 0 * 0 = +0, which leave
 * every score's value as it is up to the order of the sum. Profiled: the
 * depth-4 formula's two dk = 3 heads took over half its time. */
static inline size_t hs_dkp(const hs_head *H) {
  if (H->kind != HS_ATTN_SOFTMAX) return (size_t)H->dk;
  if (H->dk == 3) return 4;
  if (H->dk > 4 && H->dk < 8) return 8;
  return (size_t)H->dk;
}

/* A buffer of `bytes` for the pass (free() releases it): from 4 MiB on,
 * aligned to 2 MiB and advised to the kernel as huge pages, where it has
 * them (Linux, transparent huge pages on madvise): a long string's
 * buffers are touched first by the pass, and faulting them in 4 KiB
 * pages took a fifth of a pass at n = 2^20 (perf: page faults, zeroing,
 * the page allocator), against a few percent at 2^16. (NumPy advises its
 * arrays of 4 MiB and more alike.) On a machine short of free huge pages
 * the kernel may compact memory at the first touch instead: measured on
 * the busy development machine, system time per pass varied by up to 2x
 * between runs either way. */
static inline void *hs_big_alloc(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const size_t huge = (size_t)1 << 21;
  if (bytes >= 2 * huge) {
    size_t sz = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, sz);
    if (p) madvise(p, sz, MADV_HUGEPAGE);
    return p;
  }
#endif
  return malloc(bytes ? bytes : 1);
}

/* *p holding at least `bytes` (*cap: what it holds): kept when it does,
 * else replaced. A buffer reused from layer to layer keeps its pages: a
 * fresh one of a long string is page faults and zeroing on first touch
 * (a fifth of a 4-layer pass at n = 2^20, perf). 0, or -1 out of memory. */
static inline int hs_reserve(void **p, size_t *cap, size_t bytes) {
  if (*p && bytes <= *cap) return 0;
  free(*p);
  *p = hs_big_alloc(bytes);
  *cap = *p ? bytes : 0;
  return *p ? 0 : -1;
}
#endif

/* Model weights converted to REAL once per run, and packed once for the
 * gemm_pk kernel (hs_f32_gemm_pack: the same layout on every ISA). */
typedef struct FN(wts) {
  size_t bytes; /* all of the below */
  REAL *embed;
  REAL **wq, **wk, **wv, **wo; /* per head, flattened over layers */
  REAL **w1, **b1, **w2, **b2; /* per layer */
  /* per layer, every head's projections as one product, heads in order:
   * rows [W_q; W_k; W_v] of each (pqkv, mqkv rows) or [W_k; W_v] (pkv,
   * mkv rows: the sparse last layer computes its few queries apart) */
  REAL **pqkv, **pkv;
  size_t *mqkv, *mkv;
  REAL **pwo;       /* per head, packed */
  REAL **pw1, **pw2; /* per layer, packed */
} FN(wts);

static REAL *FN(conv)(size_t *bytes, const float *src, size_t n) {
  REAL *p = malloc((n ? n : 1) * sizeof(REAL));
  *bytes += (n ? n : 1) * sizeof(REAL);
  if (p && src)
    for (size_t i = 0; i < n; i++) p[i] = (REAL)src[i];
  return p;
}

static void FN(wts_free)(FN(wts) *w, const hs_model *m) {
  int nh = 0;
  for (int l = 0; l < m->nlayers; l++) nh += m->layers[l].nheads;
  free(w->embed);
  for (int h = 0; w->wq && h < nh; h++) {
    free(w->wq[h]); free(w->wk[h]); free(w->wv[h]); free(w->wo[h]);
  }
  for (int l = 0; w->w1 && l < m->nlayers; l++) {
    free(w->w1[l]); free(w->b1[l]); free(w->w2[l]); free(w->b2[l]);
  }
  for (int h = 0; w->pwo && h < nh; h++) free(w->pwo[h]);
  for (int l = 0; w->pqkv && w->pkv && w->pw1 && w->pw2 && l < m->nlayers; l++) {
    free(w->pqkv[l]); free(w->pkv[l]); free(w->pw1[l]); free(w->pw2[l]);
  }
  free(w->wq); free(w->wk); free(w->wv); free(w->wo);
  free(w->w1); free(w->b1); free(w->w2); free(w->b2);
  free(w->pqkv); free(w->pkv); free(w->mqkv); free(w->mkv);
  free(w->pwo); free(w->pw1); free(w->pw2);
}

/* A (m x k, row stride lda) packed for gemm_pk, 64-byte aligned. */
static REAL *FN(pack)(size_t *bytes, size_t m, size_t k, const REAL *a, size_t lda) {
  size_t sz = (hs_gemm_pack_size(m, k) * sizeof(REAL) + 63) / 64 * 64;
  REAL *p = aligned_alloc(64, sz ? sz : 64);
  *bytes += sz ? sz : 64;
  if (p && a) CAT(CAT(hs_, SFX), _gemm_pack)(m, k, a, lda, p);
  return p;
}

/* Layer l's heads' projections, from head h0 on, stacked (with_q: W_q,
 * W_k, W_v of each head; else W_k, W_v) and packed; *mo their rows. */
static REAL *FN(pack_proj)(FN(wts) *w, const hs_layer *L, int h0, size_t d,
                           int with_q, size_t *mo) {
  size_t m = 0;
  for (int k = 0; k < L->nheads; k++)
    m += (with_q ? 2 : 1) * hs_dkp(&L->heads[k]) + (size_t)L->heads[k].dv;
  *mo = m;
  REAL *a = malloc((m ? m : 1) * (d ? d : 1) * sizeof(REAL)), *p = NULL, *r = a;
  for (int k = 0; a && k < L->nheads; k++) {
    size_t dk = hs_dkp(&L->heads[k]), dv = (size_t)L->heads[k].dv;
    if (with_q) memcpy(r, w->wq[h0 + k], dk * d * sizeof(REAL)), r += dk * d;
    memcpy(r, w->wk[h0 + k], dk * d * sizeof(REAL)), r += dk * d;
    memcpy(r, w->wv[h0 + k], dv * d * sizeof(REAL)), r += dv * d;
  }
  if (a) p = FN(pack)(&w->bytes, m, d, a, d);
  free(a);
  return p;
}

/* The packed copies of the converted weights (FN(wts_make)). */
static int FN(wts_pack)(FN(wts) *w, const hs_model *m) {
  size_t d = (size_t)m->d, nl = (size_t)(m->nlayers ? m->nlayers : 1), nhh = 0;
  int ok = 1, h = 0;
  for (int l = 0; l < m->nlayers; l++) nhh += (size_t)m->layers[l].nheads;
  w->pqkv = calloc(nl, sizeof(REAL *)); w->pkv = calloc(nl, sizeof(REAL *));
  w->mqkv = calloc(nl, sizeof(size_t)); w->mkv = calloc(nl, sizeof(size_t));
  w->pwo = calloc(nhh ? nhh : 1, sizeof(REAL *));
  w->pw1 = calloc(nl, sizeof(REAL *)); w->pw2 = calloc(nl, sizeof(REAL *));
  if (!w->pqkv || !w->pkv || !w->mqkv || !w->mkv || !w->pwo || !w->pw1 || !w->pw2)
    return -1;
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    size_t hid = (size_t)L->hidden;
    w->pqkv[l] = FN(pack_proj)(w, L, h, d, 1, &w->mqkv[l]);
    w->pkv[l] = FN(pack_proj)(w, L, h, d, 0, &w->mkv[l]);
    for (int k = 0; k < L->nheads; k++, h++) {
      size_t dv = (size_t)L->heads[k].dv;
      w->pwo[h] = FN(pack)(&w->bytes, d, dv, w->wo[h], dv);
      ok &= w->pwo[h] != NULL;
    }
    w->pw1[l] = FN(pack)(&w->bytes, hid, d, w->w1[l], d);
    w->pw2[l] = FN(pack)(&w->bytes, d, hid, w->w2[l], hid);
    ok &= w->pqkv[l] && w->pkv[l] && w->pw1[l] && w->pw2[l];
  }
  return ok ? 0 : -1;
}

static int FN(wts_make)(FN(wts) *w, const hs_model *m) {
  size_t d = (size_t)m->d;
  int nh = 0, ok = 1;
  memset(w, 0, sizeof *w);
  for (int l = 0; l < m->nlayers; l++) nh += m->layers[l].nheads;
  size_t nl = (size_t)(m->nlayers ? m->nlayers : 1), nhh = (size_t)(nh ? nh : 1);
  w->embed = FN(conv)(&w->bytes, m->embed, HS_VOCAB * d);
  w->wq = calloc(nhh, sizeof(REAL *)); w->wk = calloc(nhh, sizeof(REAL *));
  w->wv = calloc(nhh, sizeof(REAL *)); w->wo = calloc(nhh, sizeof(REAL *));
  w->w1 = calloc(nl, sizeof(REAL *)); w->b1 = calloc(nl, sizeof(REAL *));
  w->w2 = calloc(nl, sizeof(REAL *)); w->b2 = calloc(nl, sizeof(REAL *));
  if (!w->embed || !w->wq || !w->wk || !w->wv || !w->wo || !w->w1 || !w->b1 ||
      !w->w2 || !w->b2)
    return -1;
  int h = 0;
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    for (int k = 0; k < L->nheads; k++, h++) {
      const hs_head *H = &L->heads[k];
      size_t dkp = hs_dkp(H), dk = (size_t)H->dk;
      w->wq[h] = FN(conv)(&w->bytes, NULL, dkp * d);
      w->wk[h] = FN(conv)(&w->bytes, NULL, dkp * d);
      for (size_t r = 0; w->wq[h] && w->wk[h] && r < dkp * d; r++) {
        w->wq[h][r] = r < dk * d ? (REAL)H->wq[r] : 0; /* padding rows: 0 */
        w->wk[h][r] = r < dk * d ? (REAL)H->wk[r] : 0;
      }
      w->wv[h] = FN(conv)(&w->bytes, H->wv, (size_t)H->dv * d);
      w->wo[h] = FN(conv)(&w->bytes, H->wo, d * (size_t)H->dv);
      ok &= w->wq[h] && w->wk[h] && w->wv[h] && w->wo[h];
    }
    size_t hid = (size_t)L->hidden;
    w->w1[l] = FN(conv)(&w->bytes, L->w1, hid * d);
    w->b1[l] = FN(conv)(&w->bytes, L->b1, hid);
    w->w2[l] = FN(conv)(&w->bytes, L->w2, d * hid);
    w->b2[l] = FN(conv)(&w->bytes, L->b2, hid ? d : 0);
    ok &= w->w1[l] && w->b1[l] && w->w2[l] && w->b2[l];
  }
  return ok ? FN(wts_pack)(w, m) : -1;
}

/* Y[i*ldy + r] = sum_c X[i*ldx + c] A[r*lda + c], i < rows: the batched
 * gemm kernel (f32_gemm / f64_gemm). Row i depends only on row i of X, so
 * splitting rows among threads or chunks changes no bit. */
static void FN(gemm)(const hs_kernels *kt, size_t rows, size_t m, size_t k,
                     const REAL *a, size_t lda, const REAL *x, size_t ldx,
                     REAL *y, size_t ldy) {
  KOP(kt, gemm)(rows, m, k, a, lda, x, ldx, y, ldy);
}

/* The same product on weights packed by FN(pack), with the kernel's
 * epilogue: + bias, y += (HS_GEMM_ACC), ReLU (HS_GEMM_RELU). */
static void FN(gemm_pk)(const hs_kernels *kt, size_t rows, size_t m, size_t k,
                        const REAL *pk, const REAL *bias, const REAL *x,
                        size_t ldx, REAL *y, size_t ldy, unsigned flags) {
  KOP(kt, gemm_pk)(rows, m, k, pk, bias, x, ldx, y, ldy, flags);
}

/* Positional feature p of position i at string length n. */
static REAL FN(posfeat)(const hs_posfeat *p, size_t i, size_t n) {
  switch (p->kind) {
    case HS_PF_ONE: return 1;
    case HS_PF_BOS: return i == 0;
    case HS_PF_LAST: return i == n;
    case HS_PF_I: return (REAL)i;
    case HS_PF_N: return (REAL)n;
    case HS_PF_I_OVER_N: return n ? (REAL)i / (REAL)n : 0;
    case HS_PF_INV_I1: return (REAL)1 / (REAL)(i + 1);
    case HS_PF_MOD: return (int64_t)(i % (uint64_t)p->k) == p->r;
    case HS_PF_LN_REST: return (REAL)log((double)(n + 1 - i));
    case HS_PF_LN_I: return (REAL)log((double)(i ? i : 1));
    case HS_PF_LN_REST_OVER_N:
      return (REAL)(log((double)(n + 1 - i)) / (double)(n ? n : 1));
    case HS_PF_LN_I_OVER_N:
      return (REAL)(log((double)(i ? i : 1)) / (double)(n ? n : 1));
    default: return 0;
  }
}

/* x_i = embed[symbol] + positional features, i in [i0, i1). Features are
 * computed in REAL, so i/n carries the rounding of the working precision. */
static void FN(embed)(const hs_model *m, const FN(wts) *w, const uint8_t *s,
                      size_t n, size_t i0, size_t i1, REAL *X) {
  size_t d = (size_t)m->d;
  for (size_t i = i0; i < i1; i++) {
    unsigned sym = i == 0 ? HS_BOS : s[i - 1];
    memcpy(X + i * d, w->embed + sym * d, d * sizeof(REAL));
  }
  /* feature by feature, over the range: a switch per feature rather than
   * per position, and the rows' copies long stored before these adds
   * read them back; every coordinate still gets its features in order k,
   * zeros too (-0 + 0 is +0) */
  for (int k = 0; k < m->npf; k++) {
    const hs_posfeat *p = &m->pf[k];
    REAL *x = X + (size_t)p->coord;
    switch (p->kind) {
      case HS_PF_ONE:
        for (size_t i = i0; i < i1; i++) x[i * d] += 1;
        break;
      case HS_PF_I:
        for (size_t i = i0; i < i1; i++) x[i * d] += (REAL)i;
        break;
      case HS_PF_N:
        for (size_t i = i0; i < i1; i++) x[i * d] += (REAL)n;
        break;
      default:
        for (size_t i = i0; i < i1; i++) x[i * d] += FN(posfeat)(p, i, n);
        break;
    }
  }
}

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

/* Everything one layer's rows need after the queries, keys and values of
 * all its heads exist. A row's attention (every head, in head order) and
 * its feed-forward touch only that row of X, so rows can be split among
 * threads and every thread count gives the same bits. */
#include "skip-impl.h"

typedef struct FN(job) {
  const hs_model *m;
  const hs_layer *L;
  const FN(wts) *w;
  const hs_kernels *kt;
  const hs_run_opts *o;
  REAL *X, **Q, **K, **V;
  size_t n, np, d, nq;
  const size_t *qs;
  int sparse, hbase;
  size_t maxhid;
  size_t ow; /* sum of this layer's dv: one row of attention outputs */
  hs_head_stats *stats; /* this layer's heads, or NULL */
  FN(btree) *const *bt;      /* skip ON / AUTO: per head its bounds tree
                                (FN(bt_make)), or NULL */
  const unsigned char *two_pass; /* per head: rows on the two-pass kernel
                                    (skip ON / OFF, or AUTO's choice) */
  size_t ntiles;             /* key tiles of a row: ceil((n + 2) / 64) */
  uint64_t *tiles_total, *tiles_skipped; /* merged into after the rows */
  uint64_t *attn_keys, *attn_segs;       /* hs_run_result's, likewise */
  /* hs_run_opts.progress: rows done over the whole pass (every thread adds
   * its chunks; part 0, on the calling thread, reports), and their total */
  atomic_uint_fast64_t *prog_done;
  uint64_t prog_total;
  uint64_t *ph; /* hs_run_opts.phases: the parts' work, by phase */
  int demote;   /* FN(proj_range) demotes future heads' keys and values */
  /* per head: its keys' groups and rows' sums when its keys take a few
   * values (prefix-impl.h), else NULL */
  struct FN(few) *const *few;
} FN(job);

typedef struct FN(part) {
  /* a line of its own: the parts' counters change on every row */
  _Alignas(HS_SPLIT_LINE) const FN(job) *J;
  int k, T;             /* part k of T */
  hs_split *split;      /* the chunks of rows, hs_split (a row's bits do not
                           depend on which part takes it); NULL: one part,
                           which takes them in order from `seq` */
  uint64_t seq;
  double err;
  hs_head_stats *stats; /* private copy, merged after */
  int rc;
  /* skipping rows: the segment lists (HS_SEG_ROWS rows' of FN(seg_cap)
   * each), each head's bounds kept from row to row, counters (merged
   * after), whether DAZ is on in this thread */
  size_t *seg;
  FN(btc) *btc;
  uint64_t total, skipped;
  uint64_t keys, segs; /* hs_run_result.attn_keys, attn_segments */
  int daz;
  hs_phclock clk;   /* hs_run_opts.phases */
  hs_phsample smp;
} FN(part);

/* rows whose segment lists are built before one kernel call takes them
 * all (FN(attend_multi)) */
#define HS_SEG_ROWS 4
/* the size_t's of one row's segment list: at most ntiles segments, and
 * room for the BOS pair FN(rounded_segs) puts first */
static size_t FN(seg_cap)(const FN(job) *J) { return 2 * (J->ntiles + 1); }

/* rows per chunk: the unit of work handed to a thread and of the batched
 * W_o and feed-forward products; small enough that the last chunk handed
 * out (the costliest, for past masks) leaves the threads within ~1.5% of
 * each other at n = 4096 */
#define HS_ROW_CHUNK 32
/* multiply-adds below which a phase without attention runs on one thread:
 * a wake-up of the pool costs about what ~2^15 of them do (measured: a S b
 * n = 4096, 2 threads, 1.15 ms with its feed-forward-only layer and
 * projections on one thread at 2^22, 1.14 ms with them split) */
#define HS_PAR_MIN ((size_t)1 << 15)

/* The cut of FN(bt_row): exp(x) is exactly +0 in every f32 kernel once
 * x <= -88 (skip-impl.h), in every f64 two-pass kernel once x <= -88
 * (HS_F64_SKIP_CUT); the extra 1e-4 covers the rounding of the double
 * comparison m_lo - U > cut. */
#if REAL_F32
#define SKIP_CUT 88.0001
#else
#define SKIP_CUT (HS_F64_SKIP_CUT + 1e-4)
#endif

/* hs_run_opts.phases: a row's search is timed when the row is sampled
 * (hs_ph_sampled); search_begin returns its start (0: not timed). */
static inline uint64_t FN(search_begin)(FN(part) *p, size_t i) {
  if (!p->clk.on) return 0;
  p->smp.rows++;
  return hs_ph_sampled(i) ? hs_ticks() : 0;
}

/* The ticks two clock reads around nothing take: the least of a few
 * pairs, once per process. A row's search (10-30 ns) is about as long as
 * one clock read (measured ~8 ns, 16-22 ticks, on an Intel Xeon family 6
 * model 167), so the sampled rows' time less this is the search's; with
 * the pair's time kept in, the search phase read up to 40% high. */
static uint64_t FN(search_clock_cost)(void) {
  static _Atomic uint64_t cost = UINT64_MAX;
  uint64_t c = atomic_load_explicit(&cost, memory_order_relaxed);
  if (c != UINT64_MAX) return c;
  for (int k = 0; k < 32; k++) {
    uint64_t t0 = hs_ticks(), d = hs_ticks() - t0;
    if (d < c) c = d;
  }
  atomic_store_explicit(&cost, c, memory_order_relaxed);
  return c;
}

static inline void FN(search_end)(FN(part) *p, uint64_t t0) {
  if (!t0) return;
  uint64_t d = hs_ticks() - t0, c = FN(search_clock_cost)();
  p->smp.ticks += d > c ? d - c : 0;
  p->smp.sampled++;
}

/* 1 / tau of head H at string length n. */
static REAL FN(head_inv_tau)(const hs_head *H, size_t n) {
  double nn = (double)(n ? n : 1), tau = H->tau_c;
  if (H->tau_law == HS_TAU_INV_N) tau = H->tau_c / nn;
  if (H->tau_law == HS_TAU_INV_NLOGN) tau = H->tau_c / (nn * log(nn + 1));
  return (REAL)(1.0 / tau);
}

/* Keys lo..hi of row i under H's mask (empty when lo > hi), plus BOS. */
static void FN(head_range)(const hs_head *H, size_t i, size_t n, size_t *lo_,
                           size_t *hi_) {
  size_t lo = 1, hi = n;
  switch (H->mask) {
    case HS_MASK_LE: hi = i; break;
    case HS_MASK_LT: hi = i - 1; break; /* i = 0: wraps, lo > hi */
    case HS_MASK_GE: lo = i > 1 ? i : 1; break;
    case HS_MASK_GT: lo = i + 1; break;
    default: break;
  }
  if (i == 0 && H->mask == HS_MASK_LT) hi = 0;
  *lo_ = lo;
  *hi_ = hi;
}

/* The cut of rounded rows (FN(rounded_row)): there a weight is
 * (REAL)exp((double)(s - m)), exactly +0 in float once s - m <= -105
 * (e^-105 < 2^-150, half the smallest subnormal) and in double once
 * s - m <= -746 (e^-746 < 2^-1075); the extra 1e-4 as for SKIP_CUT. */
#if REAL_F32
#define ROUNDED_CUT 105.0001
#else
#define ROUNDED_CUT 746.0001
#endif

/* Row i's visible keys of head h as one range [*a, *b]: [0, hi] for past
 * masks, [lo, n + 1] (the BOS copy last) for future ones. */
static int FN(key_span)(const FN(job) *J, const hs_head *H, size_t lo, size_t hi,
                        size_t *a, size_t *b) {
  int past = H->mask == HS_MASK_LE || H->mask == HS_MASK_LT || H->mask == HS_MASK_NONE;
  *a = past ? 0 : (lo <= J->n ? lo : J->np);
  *b = past ? (lo <= hi ? hi : 0) : J->np;
  return past;
}

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

#include "prefix-impl.h"

/* Head h's attention of row i into out[0..dv). */
static void FN(attend_head)(const FN(job) *J, int h, size_t i, REAL *out,
                            FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  if (FN(few_row)(J, h, i, out, p)) return;
  if (H->kind == HS_ATTN_SOFTMAX) {
    FN(softmax_row)(J, h, i, out, p);
    return;
  }
  size_t dk = hs_dkp(H), dv = (size_t)H->dv, lo, hi;
  FN(head_range)(H, i, J->n, &lo, &hi);
  const REAL *q = J->Q[h] + i * dk, *Kh = J->K[h], *Vh = J->V[h];
  hs_hard_rule rule = H->kind == HS_ATTN_HARD_LEFT    ? HS_HARD_LEFT
                      : H->kind == HS_ATTN_HARD_RIGHT ? HS_HARD_RIGHT
                                                      : HS_HARD_AVG;
  hs_head_stats *stats = p->stats;
  const FN(btree) *T = J->bt && !p->daz && !stats ? J->bt[h] : NULL;
  uint64_t t0 = T ? FN(search_begin)(p, i) : 0;
  int done = FN(hard_row_skip)(J->kt, T, &p->btc[h], rule, q, Kh, Vh, dv, lo, hi,
                               p->seg, out, &p->total, &p->skipped);
  FN(search_end)(p, t0);
  if (!done) FN(hard_row_k)(J->kt, H, q, Kh, Vh, lo, hi, out, stats ? &stats[h] : NULL);
}

/* The attention of row i, every head: head h's dv outputs at out + (the
 * dv of the heads before it). Reads Q, K, V only, never X. */
static void FN(attend_row)(const FN(job) *J, size_t i, REAL *out, FN(part) *p) {
  for (int h = 0; h < J->L->nheads; h++) {
    FN(attend_head)(J, h, i, out, p);
    out += J->L->heads[h].dv;
  }
}

/* Rows per f32_attn_tile call: the AVX2 / AVX-512 tiles score 4 queries
 * per key load (f64: rows per group of FN(attend_rows)). */
#define HS_TILE_ROWS 4
#if REAL_F32
/* hs_run_opts.attn_tile == 0: whether tiles are used. Tiles, since they
 * measured faster side by side (hardsoft bench --skip rows,tiles, pe,
 * mu = 4, n = 4096, one thread: a S b 7% on AVX2 and 15-23% on AVX-512, a
 * depth-4 formula 3-7%; future masks too: a U b 1.5% on AVX2, 8% on
 * AVX-512, G (a -> X (b U (c & Y (a S b)))) 4% and 13%) */
#ifndef HS_ATTN_TILE_DEFAULT
#define HS_ATTN_TILE_DEFAULT 1
#endif

/* Whether head H's rows go to f32_attn_tile: softmax (past masks: every
 * row's keys start at BOS, key 0; future masks: they end at its copy,
 * key n + 1), the online kernel (no skip, no score rounding), and the
 * tile chosen (hs_run_opts.attn_tile; 0 = the default,
 * HS_ATTN_TILE_DEFAULT). The rows get the same bits either way. */
static int FN(tile_head)(const FN(job) *J, int h) {
  const hs_run_opts *o = J->o;
  const hs_head *H = &J->L->heads[h];
  int use = o->attn_tile ? o->attn_tile > 0 : HS_ATTN_TILE_DEFAULT;
  return use && H->kind == HS_ATTN_SOFTMAX && o->score_round == HS_ROUND_NONE &&
         !J->two_pass[h] && !J->few[h];
}

/* Head h's attention of rows i0 .. i0 + cnt - 1 (cnt <= HS_TILE_ROWS) by
 * one f32_attn_tile call: row r's outputs at out + r * J->ow. Row by row
 * the same as FN(attend_head): keys 0 .. b (BOS, then the past) or a .. np
 * (the future, then the BOS copy; end = 1), the same
 * bits (the tile kernel's contract), then the same normalisation and
 * attention error. */
static void FN(attend_tile)(const FN(job) *J, int h, size_t i0, size_t cnt,
                            REAL *out, FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  const hs_kernels *kt = J->kt;
  size_t dk = hs_dkp(H), dv = (size_t)H->dv, ow = J->ow;
  REAL inv_tau = FN(head_inv_tau)(H, J->n);
  size_t nk[HS_TILE_ROWS], lo[HS_TILE_ROWS], hi[HS_TILE_ROWS];
  ONLINE st[HS_TILE_ROWS];
  /* past: keys 0 .. b; future: keys a .. np, all ending at np */
  const int past = H->mask == HS_MASK_LE || H->mask == HS_MASK_LT ||
                   H->mask == HS_MASK_NONE;
  size_t n = J->n, np = J->np, nmax = 0;
  for (size_t r = 0; r < cnt; r++) {
    FN(head_range)(H, i0 + r, n, &lo[r], &hi[r]);
    nk[r] = past ? (lo[r] <= hi[r] ? hi[r] : 0) + 1
                 : np - (lo[r] <= n ? lo[r] : np) + 1;
    if (nk[r] > nmax) nmax = nk[r];
    p->keys += nk[r], p->segs++;
    st[r] = (ONLINE){-INFINITY, 0};
    for (size_t c = 0; c < dv; c++) out[r * ow + c] = 0;
  }
  size_t j0 = past ? 0 : np + 1 - nmax; /* the first key of the longest row */
  float sk;
  FN(rel_slope)(H, &sk);
  if (sk != 0) {
    /* key j of the tile's k is key j0 + j of the buffers, at j0 + j - i */
    int64_t d0[HS_TILE_ROWS];
    for (size_t r = 0; r < cnt; r++) d0[r] = (int64_t)j0 - (int64_t)(i0 + r);
    kt->f32_attn_tile_bias(cnt, nk, dk, dv, J->Q[h] + i0 * dk, dk,
                           J->K[h] + j0 * dk, dk, J->V[h] + j0 * dv, dv,
                           inv_tau, sk, d0, st, out, ow, !past);
  } else {
    kt->f32_attn_tile(cnt, nk, dk, dv, J->Q[h] + i0 * dk, dk, J->K[h] + j0 * dk,
                      dk, J->V[h] + j0 * dv, dv, inv_tau, st, out, ow, !past);
  }
  for (size_t r = 0; r < cnt; r++)
    FN(finish_row)(J, h, i0 + r, lo[r], hi[r], inv_tau, &st[r], out + r * ow, p, NULL, 0);
}
#else
/* f64 has no tile kernel */
static int FN(tile_head)(const FN(job) *J, int h) { return (void)J, (void)h, 0; }
#endif

/* Whether head h's rows go to FN(attend_multi): the two-pass rows of
 * FN(softmax_row) (no score rounding). */
static int FN(multi_head)(const FN(job) *J, int h) {
  const hs_head *H = &J->L->heads[h];
  return H->kind == HS_ATTN_SOFTMAX && !FN(rounded_head)(J->o, H) && J->two_pass &&
         J->two_pass[h];
}

/* Head h's attention of rows i0 .. i0 + cnt - 1 (cnt <= HS_SEG_ROWS) by
 * one f32_attn_rows_2pass or f64_attn_rows_2pass call, row r's outputs at
 * out + r * J->ow: row by row FN(two_pass_row)'s segments (its skipping)
 * and kernel, the kernel's contract giving each row the bits of the
 * one-row call, then FN(finish_row). Several rows per call let the
 * kernel overlap their latency chains. */
static void FN(attend_multi)(const FN(job) *J, int h, size_t i0, size_t cnt,
                             REAL *out, FN(part) *p) {
  const hs_head *H = &J->L->heads[h];
  size_t dk = hs_dkp(H), dv = (size_t)H->dv, ow = J->ow, n = J->n;
  size_t ns[HS_SEG_ROWS], lo[HS_SEG_ROWS], hi[HS_SEG_ROWS];
  const size_t *seg[HS_SEG_ROWS];
  ONLINE st[HS_SEG_ROWS];
  REAL inv_tau = FN(head_inv_tau)(H, n);
  for (size_t r = 0; r < cnt; r++) {
    size_t i = i0 + r, a, b, *sg = p->seg + r * FN(seg_cap)(J);
    FN(head_range)(H, i, n, &lo[r], &hi[r]);
    FN(key_span)(J, H, lo[r], hi[r], &a, &b);
    ns[r] = FN(skip_segs)(J, h, i, J->Q[h] + i * dk, a, b, inv_tau, p, SKIP_CUT, sg);
    p->segs += ns[r];
    p->keys += hs_seg_keys(sg, ns[r]);
    seg[r] = sg;
  }
#if REAL_F32
  /* f32 relative-bias heads: the bias variant, key j at j - i */
  int64_t d0[HS_SEG_ROWS];
  for (size_t r = 0; r < cnt; r++) d0[r] = -(int64_t)(i0 + r);
  float sk;
  FN(rel_slope)(H, &sk);
  J->kt->f32_attn_rows_2pass(cnt, ns, seg, dk, dv, J->Q[h] + i0 * dk, dk, J->K[h], dk,
                             J->V[h], dv, inv_tau, sk, d0, st, out, ow);
#else
  /* f64 relative-bias heads are rounded heads, never here (FN(multi_head)) */
  J->kt->f64_attn_rows_2pass(cnt, ns, seg, dk, dv, J->Q[h] + i0 * dk, dk, J->K[h], dk,
                             J->V[h], dv, inv_tau, st, out, ow);
#endif
  for (size_t r = 0; r < cnt; r++)
    FN(finish_row)(J, h, i0 + r, lo[r], hi[r], inv_tau, &st[r], out + r * ow, p, seg[r],
                   ns[r]);
}

/* The attention of rows i0 .. i0 + cnt - 1 (consecutive), row t's at
 * out + t * J->ow: heads that take tiles (FN(tile_head)) or several
 * two-pass rows per call (FN(multi_head)) in groups of HS_TILE_ROWS rows,
 * the others row by row. */
static void FN(attend_rows)(const FN(job) *J, size_t i0, size_t cnt, REAL *out,
                            FN(part) *p) {
  _Static_assert(HS_TILE_ROWS <= HS_SEG_ROWS, "a group's segment lists fit in p->seg");
  int any = 0;
  for (int h = 0; h < J->L->nheads; h++) any |= FN(tile_head)(J, h) || FN(multi_head)(J, h);
  if (any) {
    for (size_t t = 0; t < cnt; t += HS_TILE_ROWS) {
      size_t g = cnt - t < HS_TILE_ROWS ? cnt - t : HS_TILE_ROWS;
      size_t off = 0;
      for (int h = 0; h < J->L->nheads; h++) {
        REAL *oh = out + t * J->ow + off;
#if REAL_F32
        if (FN(tile_head)(J, h))
          FN(attend_tile)(J, h, i0 + t, g, oh, p);
        else
#endif
        if (FN(multi_head)(J, h))
          FN(attend_multi)(J, h, i0 + t, g, oh, p);
        else
          for (size_t r = 0; r < g; r++) FN(attend_head)(J, h, i0 + t + r, oh + r * J->ow, p);
        off += (size_t)J->L->heads[h].dv;
      }
    }
    return;
  }
  for (size_t t = 0; t < cnt; t++) FN(attend_row)(J, i0 + t, out + t * J->ow, p);
}

/* Rows i0 .. i0 + cnt - 1 (cnt <= HS_ROW_CHUNK) after their attention
 * (outputs in out, J->ow per row): x += W_o out per head, in head order,
 * then the feed-forward, each as one batched product over the rows on
 * the packed weights, the residual adds, biases and ReLU done by the
 * kernel's epilogue with the same roundings as separate steps (layer
 * normalization, when the layer has it, between the bias and the ReLU
 * here). The same per-row arithmetic as one row at a time. */
static void FN(finish_rows)(const FN(job) *J, size_t i0, size_t cnt,
                            const REAL *out, REAL *hid, hs_phclock *clk) {
  const hs_layer *L = J->L;
  const hs_kernels *kt = J->kt;
  size_t d = J->d, ow = J->ow, off = 0;
  REAL *x = J->X + i0 * d;
  hs_ph_to(clk, HS_PHASE_GEMM);
  for (int h = 0; h < L->nheads; h++) {
    size_t dv = (size_t)L->heads[h].dv;
    FN(gemm_pk)(kt, cnt, d, dv, J->w->pwo[J->hbase + h], NULL, out + off, ow, x, d,
                HS_GEMM_ACC);
    off += dv;
  }
  if (L->hidden > 0) {
    int l = (int)(L - J->m->layers);
    size_t nh = (size_t)L->hidden, lnp = (size_t)L->ln_pairs;
    FN(gemm_pk)(kt, cnt, nh, d, J->w->pw1[l], J->w->b1[l], x, d, hid, nh,
                lnp ? 0u : (unsigned)HS_GEMM_RELU);
    if (lnp) {
      hs_ph_to(clk, HS_PHASE_FINISH);
      for (size_t r = 0; r < cnt; r++) {
        REAL *hr = hid + r * nh;
        for (size_t p = 0; p < lnp; p++)
          FN(ln_pair)(hr + 2 * p, L->ln_eps, L->ln_g + 2 * p, L->ln_b + 2 * p);
        for (size_t u = 0; u < nh; u++) hr[u] = hr[u] > 0 ? hr[u] : 0;
      }
      hs_ph_to(clk, HS_PHASE_GEMM);
    }
    FN(gemm_pk)(kt, cnt, d, nh, J->w->pw2[l], J->w->b2[l], hid, nh, x, d, HS_GEMM_ACC);
  }
  hs_ph_to(clk, HS_PHASE_FINISH);
}

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

/* The part's next chunk of rows: 1, or 0 when none is left. */
static int FN(next_chunk)(FN(part) *p, uint64_t *chunk) {
  if (p->split) return hs_split_next(p->split, p->k, chunk);
  if (p->seq * HS_ROW_CHUNK >= p->J->nq) return 0;
  *chunk = p->seq++;
  return 1;
}

static void *FN(rows_worker)(void *arg) {
  FN(part) *p = arg;
  const FN(job) *J = p->J;
  const size_t C = HS_ROW_CHUNK;
  hs_ph_start(&p->clk, J->o->phases, HS_PHASE_FINISH);
  REAL *out = malloc(C * (J->ow ? J->ow : 1) * sizeof(REAL));
  REAL *hid = malloc(C * J->maxhid * sizeof(REAL));
  p->seg = malloc(HS_SEG_ROWS * FN(seg_cap)(J) * sizeof(size_t));
  p->btc = calloc((size_t)(J->L->nheads ? J->L->nheads : 1), sizeof *p->btc);
  p->daz = hs_daz_enabled();
  p->rc = out && hid && p->seg && p->btc ? 0 : -1;
  uint64_t chunk;
  while (p->rc == 0 && FN(next_chunk)(p, &chunk)) {
    size_t c = (size_t)chunk * C, e = c + C < J->nq ? c + C : J->nq;
    hs_ph_to(&p->clk, HS_PHASE_ATTN);
    if (J->sparse)
      for (size_t t = c; t < e; t++)
        FN(attend_row)(J, J->qs[t], out + (t - c) * J->ow, p);
    else
      FN(attend_rows)(J, c, e - c, out, p);
    if (!J->sparse) {
      FN(finish_rows)(J, c, e - c, out, hid, &p->clk);
    } else {
      for (size_t t = c; t < e; t++)
        FN(finish_rows)(J, J->qs[t], 1, out + (t - c) * J->ow, hid, &p->clk);
    }
    if (J->o->progress && !J->sparse) {
      uint64_t done = atomic_fetch_add(J->prog_done, e - c) + (e - c);
      if (p->k == 0) J->o->progress(J->o->progress_ctx, done, J->prog_total);
    }
  }
  free(out);
  free(hid);
  free(p->seg);
  free(p->btc);
  hs_ph_to(&p->clk, HS_PHASE_WAIT);
  return NULL;
}

/* fn(ctx, k, lo, hi) over the parts of [0, n) in chunks of c
 * (hs_part_range: with c = HS_ROW_CHUNK each thread gets the positions
 * whose rows it starts with), on up to `threads` threads of the pool, on
 * this one below HS_PAR_MIN multiply-adds of work (a wake-up costs
 * more); the time goes to phase ph. */
static void FN(par_ranges)(hs_pool *pool, int threads, hs_phclock *clk, uint64_t *phs,
                           int ph, size_t n, size_t c, size_t work,
                           hs_range_fn fn, void *ctx) {
  int T = threads > 1 && work >= HS_PAR_MIN ? threads : 1;
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  hs_ph_to(clk, T == 1 ? ph : HS_PH_REGION);
  if (T == 1) {
    fn(ctx, 0, 0, n);
    return;
  }
  uint64_t ticks[HS_POOL_MAX] = {0};
  hs_pool_ranges(pool, T, n, c, fn, ctx, clk->on ? ticks : NULL);
  for (int k = 0; k < T; k++) phs[ph] += ticks[k];
  hs_ph_to(clk, ph);
}

/* cnt rows of w columns from src (row stride ld) to dst, packed: the
 * fused projection's columns of one head's Q, K or V (FN(proj_range)).
 * The widths of the compiled heads as fixed-size copies, one move each. */
static void FN(copy_cols)(REAL *restrict dst, size_t w, const REAL *restrict src,
                          size_t ld, size_t cnt) {
  switch (w) {
#define HS_COPY_W(W) \
  case W: for (size_t t = 0; t < cnt; t++) memcpy(dst + t * W, src + t * ld, W * sizeof(REAL)); return;
    HS_COPY_W(1) HS_COPY_W(2) HS_COPY_W(4) HS_COPY_W(8)
#undef HS_COPY_W
    default:
      for (size_t t = 0; t < cnt; t++) memcpy(dst + t * w, src + t * ld, w * sizeof(REAL));
  }
}

/* The fused projection's output buffer (rows x every head's Q, K, V), on
 * the stack and in the first-level cache until copied out: up to 64 rows,
 * at least 8 (a layer wider than 256 outputs takes a product per head,
 * whose outputs fill the registers anyway). */
#define HS_PROJ_BUF 2048

/* Positions [p0, p1) of every head's keys and values (and queries, unless
 * sparse), one product per head and matrix. */
static void FN(proj_heads)(const FN(job) *J, size_t p0, size_t p1) {
  const hs_layer *L = J->L;
  hs_score_round r = J->o->qkv_round;
  size_t d = J->d, cnt = p1 - p0;
  const REAL *x = J->X + p0 * d;
  for (int h = 0; h < L->nheads; h++) {
    size_t dk = hs_dkp(&L->heads[h]), dv = (size_t)L->heads[h].dv;
    int g = J->hbase + h;
    if (!J->sparse) {
      FN(gemm)(J->kt, cnt, dk, d, J->w->wq[g], d, x, d, J->Q[h] + p0 * dk, dk);
      if (r != HS_ROUND_NONE) FN(round_store)(J->Q[h] + p0 * dk, cnt * dk, r);
    }
    FN(gemm)(J->kt, cnt, dk, d, J->w->wk[g], d, x, d, J->K[h] + p0 * dk, dk);
    FN(gemm)(J->kt, cnt, dv, d, J->w->wv[g], d, x, d, J->V[h] + p0 * dv, dv);
    if (r != HS_ROUND_NONE) {
      FN(round_store)(J->K[h] + p0 * dk, cnt * dk, r);
      FN(round_store)(J->V[h] + p0 * dv, cnt * dv, r);
    }
  }
}

/* Whether head H's rows read the keys after them (masks >= and >). On 2
 * threads the keys and values of these heads are demoted (hs_demote) as
 * the projection writes them: measured, depth-4 formula, AVX-512, 2
 * threads, 5-6 interleaved runs each, medians: 4.50 against 4.72 ms at
 * n = 16384, 2.25 against 2.37 at 8192, 8.64 against 8.70 at 32768, 17.3
 * both at 65536; 1.18 against 1.16 at 4096, where the pass fits both
 * cores' L2 (hence hs_demote_pays). Demoting every head's as well made
 * a S b (one past head) 3% slower at 16384, the depth-4 formula only
 * 2.6% faster. */
static int FN(future_head)(const hs_head *H) {
  return H->mask == HS_MASK_GE || H->mask == HS_MASK_GT;
}

/* Positions [p0, p1) of every head's keys and values (and queries, unless
 * sparse), rounded when stored so (FN(head_store)): one product over all
 * the layer's heads on the packed weights (J->w->pqkv: the depth-4
 * formula's layer of two heads is m = 14 outputs in one register instead
 * of six products of 1..4 outputs), then each head's columns copied to
 * its Q, K, V. Each output is the chain it would be alone, so the bits
 * do not depend on the fusing. */
static void FN(proj_range)(void *ctx, int k, size_t p0, size_t p1) {
  const FN(job) *J = ctx;
  const hs_layer *L = J->L;
  hs_score_round r = J->o->qkv_round;
  int l = (int)(L - J->m->layers), wq = !J->sparse;
  size_t d = J->d, M = wq ? J->w->mqkv[l] : J->w->mkv[l];
  size_t R = M ? HS_PROJ_BUF / M : HS_PROJ_BUF;
  const REAL *pk = wq ? J->w->pqkv[l] : J->w->pkv[l];
  _Alignas(64) REAL buf[HS_PROJ_BUF];
  (void)k;
  if (R < 8) {
    FN(proj_heads)(J, p0, p1);
    return;
  }
  if (R > 64) R = 64;
  for (size_t i0 = p0; i0 < p1; i0 += R) {
    size_t cnt = p1 - i0 < R ? p1 - i0 : R, off = 0;
    FN(gemm_pk)(J->kt, cnt, M, d, pk, NULL, J->X + i0 * d, d, buf, M, 0);
    for (int h = 0; h < L->nheads; h++) {
      size_t dk = hs_dkp(&L->heads[h]), dv = (size_t)L->heads[h].dv;
      REAL *dst[3] = {J->Q[h] + i0 * dk, J->K[h] + i0 * dk, J->V[h] + i0 * dv};
      size_t wd[3] = {dk, dk, dv};
      for (int t = wq ? 0 : 1; t < 3; t++) {
        FN(copy_cols)(dst[t], wd[t], buf + off, M, cnt);
        if (r != HS_ROUND_NONE) FN(round_store)(dst[t], cnt * wd[t], r);
        if (t > 0 && J->demote && FN(future_head)(&L->heads[h]))
          hs_demote(dst[t], cnt * wd[t] * sizeof(REAL));
        off += wd[t];
      }
    }
  }
}

/* Every head's queries, keys and values of the layer, positions split
 * among the threads as their rows will be (the same bits for every
 * split); sparse queries (at most 6) after, on this thread. */
static void FN(run_proj)(const FN(job) *J, hs_pool *pool, int threads,
                         hs_phclock *clk) {
  size_t np = J->np, d = J->d, work = 0;
  for (int h = 0; h < J->L->nheads; h++)
    work += 2 * hs_dkp(&J->L->heads[h]) + (size_t)J->L->heads[h].dv;
  FN(par_ranges)(pool, threads, clk, J->ph, HS_PHASE_GEMM, np, HS_ROW_CHUNK,
                 np * d * work, FN(proj_range), (void *)J);
  if (J->sparse)
    for (size_t t = 0; t < J->nq; t++)
      for (int h = 0; h < J->L->nheads; h++) {
        size_t dk = hs_dkp(&J->L->heads[h]), i = J->qs[t];
        FN(gemm)(J->kt, 1, dk, d, J->w->wq[J->hbase + h], d, J->X + i * d, d,
                 J->Q[h] + i * dk, dk);
        if (J->o->qkv_round != HS_ROUND_NONE)
          FN(round_store)(J->Q[h] + i * dk, dk, J->o->qkv_round);
      }
}

/* A part's phases into sum, the search's share moved out of the attention
 * phase by the sampled rows (hs_phsample). */
static void FN(part_phases)(FN(part) *p, uint64_t *sum) {
  if (!p->clk.on) return;
  hs_phsample *m = &p->smp;
  if (m->sampled > 0) {
    uint64_t est = (uint64_t)((double)m->ticks * (double)m->rows / (double)m->sampled);
    uint64_t *attn = &p->clk.t[HS_PHASE_ATTN];
    if (est > *attn) est = *attn;
    *attn -= est;
    p->clk.t[HS_PHASE_SEARCH] += est;
  }
  hs_ph_merge(&p->clk, sum);
}

static void FN(rows_task)(void *arg, int k) {
  FN(rows_worker)((FN(part) *)arg + k);
}

/* Runs every row of the layer on `threads` threads of the pool (1 below a
 * few chunks of rows); the largest attention error into *err, the head
 * statistics merged into J->stats. */

static int FN(run_rows)(const FN(job) *J, hs_pool *pool, int threads, double *err,
                        hs_phclock *clk) {
  int T = threads > 1 ? threads : 1, nh = J->L->nheads;
  if ((size_t)T > (J->nq + HS_ROW_CHUNK - 1) / HS_ROW_CHUNK)
    T = (int)((J->nq + HS_ROW_CHUNK - 1) / HS_ROW_CHUNK);
  /* a layer without heads is a feed-forward per row: below HS_PAR_MIN
   * multiply-adds waking a worker costs more than it saves */
  if (nh == 0 && J->nq * J->d * ((size_t)J->L->hidden + 1) < HS_PAR_MIN) T = 1;
  if (T < 1) T = 1;
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  hs_split *split = T > 1 ? aligned_alloc(HS_SPLIT_LINE, sizeof *split) : NULL;
  if (split && !hs_split_init(split, (J->nq + HS_ROW_CHUNK - 1) / HS_ROW_CHUNK, T))
    T = 1;
  if (T == 1) free(split), split = NULL;
  FN(part) *parts = aligned_alloc(HS_SPLIT_LINE, (size_t)T * sizeof *parts);
  int rc = parts && (T == 1 || split) ? 0 : -1;
  if (parts) memset(parts, 0, (size_t)T * sizeof *parts);
  for (int k = 0; rc == 0 && k < T; k++) {
    parts[k] = (FN(part)){.J = J, .k = k, .T = T, .split = split};
    if (J->stats) {
      parts[k].stats = malloc((size_t)(nh ? nh : 1) * sizeof(hs_head_stats));
      if (!parts[k].stats) { rc = -1; break; }
      for (int h = 0; h < nh; h++) parts[k].stats[h] = (hs_head_stats){INFINITY, 0, 0};
    }
  }
  hs_ph_to(clk, HS_PH_REGION);
  if (rc == 0 && T == 1) FN(rows_worker)(&parts[0]);
  else if (rc == 0) hs_pool_run(pool, T, FN(rows_task), parts);
  for (int k = 0; rc == 0 && k < T; k++) {
    FN(part_phases)(&parts[k], J->ph);
    if (parts[k].rc) rc = -1;
    if (parts[k].err > *err) *err = parts[k].err;
    if (J->tiles_total) *J->tiles_total += parts[k].total;
    if (J->tiles_skipped) *J->tiles_skipped += parts[k].skipped;
    if (J->attn_keys) *J->attn_keys += parts[k].keys, *J->attn_segs += parts[k].segs;
    for (int h = 0; J->stats && h < nh; h++) {
      hs_head_stats *a = &J->stats[h], *b = &parts[k].stats[h];
      if (b->gap < a->gap) a->gap = b->gap;
      a->tied |= b->tied;
      a->nonuniform |= b->nonuniform;
    }
  }
  for (int k = 0; parts && k < T; k++) free(parts[k].stats);
  free(parts);
  free(split);
  return rc;
}

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

#include "run/rows.h"

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
  if (FN(few_heads)(&J, P->pool, &P->clk, P->few, P->fews, P->qkv) != 0 ||
      FN(head_trees)(P, &J) != 0)
    return -1;
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
