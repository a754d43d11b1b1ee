/* SPDX-License-Identifier: MIT */
/* Weights converted and packed once per run, the gemm, the embedding.
 * Written once for REAL = float and double; included by forward-impl.h. */

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
