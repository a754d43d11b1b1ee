/* SPDX-License-Identifier: MIT */
/* Heads whose keys take a few values, by prefix sums (hs_run_opts.skip
 * AUTO), written once for REAL = float and double; included by
 * forward-impl.h after the job type and the softmax rows.
 *
 * A head whose keys k_j take at most HS_FEW_MAX distinct vectors
 * kappa_1.., kappa_G (compared by value) scores key j of row i as
 * s_g = q_i . kappa_g / tau for its group g: every key of a group scores
 * the same. Its softmax row is then
 *   out_i = sum_g e^{s_g - M} S_g(i) / sum_g e^{s_g - M} C_g(i),
 * M the largest s_g of a group with visible keys, S_g(i) the sum of the
 * values and C_g(i) the number of the row's visible keys in group g: two
 * prefix sums per group, whatever n. The plan finds the groups in the
 * layer's own keys, not from a flag in the model (model files stay as
 * they are):
 *   - one group (uniform): every count head (W_q = W_k = 0), in every mode;
 *     every key scores the same, softmax gives each of the row's D keys
 *     the weight exactly 1 and divides by D, average-hard attention takes
 *     every key as maximal: out_i = S(i) / D;
 *   - two groups: the BOS-weighted counts of mixed comparisons (k = [j is
 *     BOS], q = ln w) and the softmax sign heads of --sign temp (k = [j >=
 *     1]);
 *   - W_q = 0 with finite keys, however many distinct: q = 0 for a finite
 *     stream row, every score 0, one group.
 * A row whose scores are not finite (a non-finite stream row; W_q = 0 and
 * q != 0) runs the kernel instead (FN(few_row)). Heads with a relative
 * bias (it depends on j) and hard heads with more than one group (their
 * ties are the kernel's) keep the kernel; so do rows with rounded scores
 * unless there is one group.
 *
 * Exact sums: when every value is an integer of magnitude at most 2^31
 * (compiled values are 0 / 1 features) and there are fewer than 2^32
 * keys, S_g and C_g are exact in int64. With one group, out_i =
 * (REAL)((double)S / D), one rounding of the exact mean while |S| < 2^53
 * (for f32 the double quotient rounds again to float, which gives the
 * correctly rounded float: a quotient of integers below 2^32 lies at
 * least 2^-64 of its size from a float midpoint, beyond the double's
 * 2^-53 rounding). The kernels sum the same integers with weight 1 in the
 * working precision, exact below 2^24 (f32) / 2^53 (f64), and divide once:
 * the same bits there, closer to the mean past it. With more groups, s_g
 * is the working-precision score (the dot kernel, times 1 / tau) and the
 * sums are combined in double: a few roundings where the kernel has two
 * per key, within the model's bound as the kernel's are, not its bits.
 * Values of any other kind keep the kernel.
 *
 * The sums are taken in two passes over blocks of HS_PFX_BLOCK keys fixed
 * by the key index alone: each block's groups and sums (threads take
 * blocks), the groups merged and the blocks' offsets taken in order, then
 * each block of rows from its offset, writing every row's S_g and C_g.
 * The sums being exact, every thread count gives the same bits. The
 * attention error of such a row (hs_run_opts.want_attn_error) needs no
 * second pass: 1 - on / sum_g e^{s_g - M} C_g, on the weight at the
 * target (average: C_g of the groups at M; left / right: one key, 1),
 * 0 with one group. */
#define HS_PFX_BLOCK 4096
#define HS_FEW_MAX 4
#define HS_FEW_D 8 /* dk and dv at most (the compiled heads': dk <= 8, dv 1) */

/* A head of the layer on this path: its groups' key vectors and, per row,
 * S_g (ng * dv) then C_g for g < ng - 1 (the last is D less the others). */
typedef struct FN(few) {
  int ng, qzero; /* qzero: one group by W_q = 0, the row's q must be 0 */
  int nz;        /* groups whose key is not 0 (the others score 0) */
  unsigned char kz[HS_FEW_MAX]; /* group g's key is 0 */
  REAL key[HS_FEW_MAX][HS_FEW_D];
  size_t w;      /* int64 per row */
  int64_t *row;  /* [np][w] */
  size_t cap;    /* bytes held in row (kept from layer to layer) */
  /* sel: a head that selects by position instead (select-impl.h): the
   * ratio r of its weights and its window */
  int sel;
  size_t win;
  double r;
} FN(few);

static void FN(sel_row)(const FN(job) *J, int h, size_t i, REAL *out, FN(part) *p);

/* Pass 1's result for one key block of one head: its groups (ng >
 * HS_FEW_MAX: too many) with their sums, the sums over all its keys, and
 * whether its keys are finite and its values integers. After the merge,
 * gs and gc hold the offsets by global group: the sums of every block
 * before this one. */
typedef struct FN(few_blk) {
  int ng;
  unsigned char kfinite, vint;
  REAL key[HS_FEW_MAX][HS_FEW_D];
  int64_t sum[HS_FEW_MAX][HS_FEW_D], cnt[HS_FEW_MAX], all[HS_FEW_D];
  int64_t gs[HS_FEW_MAX][HS_FEW_D], gc[HS_FEW_MAX];
} FN(few_blk);

typedef struct FN(few_ctx) {
  const FN(job) *J;
  FN(few) *const *few;   /* the heads decided (pass 2) */
  unsigned char *cand;   /* per head: a candidate (pass 1) */
  FN(few_blk) *blk;      /* [head][nb + 1]: the blocks, then the totals */
  size_t nb;             /* key blocks: keys 0 .. np, np the BOS copy */
} FN(few_ctx);

static void FN(par_ranges)(hs_pool *pool, int threads, hs_phclock *clk, uint64_t *phs,
                           int ph, size_t n, size_t c, size_t work,
                           hs_range_fn fn, void *ctx);

/* Whether head H may take this path at all, from what costs nothing: the
 * policy, its kind, no relative bias, a finite 1 / tau, its widths. */
static int FN(few_may)(const FN(job) *J, const hs_head *H) {
  if (J->o->skip != HS_SKIP_AUTO || H->bias_slope != 0 || H->dv > HS_FEW_D ||
      hs_dkp(H) > HS_FEW_D || (uint64_t)J->np + 1 >= ((uint64_t)1 << 32))
    return 0;
  if (H->kind == HS_ATTN_HARD_AVG) return J->stats == NULL; /* gaps: the dense row */
  return H->kind == HS_ATTN_SOFTMAX && isfinite((double)FN(head_inv_tau)(H, J->n));
}

/* The group of key k among the ng vectors of `key` (dk wide, by value); ng
 * when it is none of them. */
static inline int FN(few_find)(const REAL (*key)[HS_FEW_D], int ng, const REAL *k,
                               size_t dk) {
  for (int g = 0; g < ng; g++) {
    size_t c = 0;
    while (c < dk && key[g][c] == k[c]) c++;
    if (c == dk) return g;
  }
  return ng;
}

/* Whether x is an integer of magnitude at most 2^31, without a
 * conversion per value: below `big` (2^23 in float, 2^52 in double, the
 * size from which every value is an integer) |x| + big - big rounds |x|
 * to an integer. (The loops stay scalar: the compiler keeps a double
 * sum's order, exact here as it is.) */
static inline int FN(is_int)(REAL x) {
  const REAL big = REAL_F32 ? (REAL)0x1p23 : (REAL)0x1p52;
  REAL a = x < 0 ? -x : x;
  return a <= (REAL)2147483648.0 && (a >= big || (a + big) - big == a);
}

/* Block t of head h, keys [j0, j1), when they are all the same vector
 * (every block of a count head): one group, its values' sum (an exact
 * double: 4096 integers below 2^31 stay below 2^53). 0 when they are
 * not. */
static int FN(few_block1)(FN(few_blk) *B, const REAL *K, const REAL *V, size_t dk,
                          size_t dv, size_t j0, size_t j1) {
  const REAL *k0 = K + j0 * dk;
  int same = 1, fin = 1, vi = 1;
  for (size_t x = j0 * dk; x < j1 * dk; x++) {
    same &= K[x] == k0[x & (dk - 1)]; /* dk is 1, 2, 4 or 8 (hs_dkp) */
    fin &= K[x] - K[x] == 0;
  }
  if (!same || !fin) return 0;
  for (size_t c = 0; c < dv; c++) {
    double sum = 0;
    for (size_t j = j0; j < j1; j++) {
      REAL v = V[j * dv + c];
      vi &= FN(is_int)(v);
      sum += (double)v;
    }
    B->sum[0][c] = B->all[c] = vi ? (int64_t)sum : 0;
  }
  memcpy(B->key[0], k0, dk * sizeof(REAL));
  B->ng = 1, B->kfinite = 1, B->vint = (unsigned char)vi, B->cnt[0] = (int64_t)(j1 - j0);
  return 1;
}

/* Pass 1 for key blocks [b0, b1) of every candidate head: one group
 * (FN(few_block1)), else key by key. */
static void FN(few_blocks)(void *ctx, int k, size_t b0, size_t b1) {
  FN(few_ctx) *U = ctx;
  const FN(job) *J = U->J;
  (void)k;
  for (int h = 0; h < J->L->nheads; h++) {
    if (!U->cand[h]) continue;
    const size_t dk = hs_dkp(&J->L->heads[h]), dv = (size_t)J->L->heads[h].dv;
    const REAL *K = J->K[h], *V = J->V[h];
    for (size_t t = b0; t < b1; t++) {
      FN(few_blk) *B = &U->blk[(size_t)h * (U->nb + 1) + t];
      size_t j1 = (t + 1) * HS_PFX_BLOCK < J->np + 1 ? (t + 1) * HS_PFX_BLOCK : J->np + 1;
      memset(B, 0, sizeof *B);
      if (FN(few_block1)(B, K, V, dk, dv, t * HS_PFX_BLOCK, j1)) continue;
      B->kfinite = B->vint = 1;
      for (size_t j = t * HS_PFX_BLOCK; j < j1 && B->vint; j++) {
        const REAL *kj = K + j * dk;
        for (size_t c = 0; c < dk; c++) B->kfinite &= kj[c] - kj[c] == 0;
        int g = B->ng <= HS_FEW_MAX ? FN(few_find)(B->key, B->ng, kj, dk) : HS_FEW_MAX;
        if (g == B->ng && g < HS_FEW_MAX) memcpy(B->key[g], kj, dk * sizeof(REAL));
        if (g == B->ng) B->ng++;
        for (size_t c = 0; c < dv; c++) {
          REAL v = V[j * dv + c];
          B->vint &= FN(is_int)(v);
          int64_t x = B->vint ? (int64_t)v : 0;
          B->all[c] += x;
          if (g < HS_FEW_MAX) B->sum[g][c] += x;
        }
        if (g < HS_FEW_MAX) B->cnt[g]++;
      }
    }
  }
}

/* Whether W_q of head h (as converted) is all zeros. */
static int FN(few_wq_zero)(const FN(job) *J, int h) {
  const REAL *wq = J->w->wq[J->hbase + h];
  for (size_t x = 0; x < hs_dkp(&J->L->heads[h]) * J->d; x++)
    if (wq[x] != 0) return 0;
  return 1;
}

/* Head h from its blocks: F's groups (0: not on this path), and every
 * block's offsets by global group, in order; blk[nb] the totals. */
static int FN(few_merge)(FN(few_ctx) *U, int h, FN(few) *F) {
  const hs_head *H = &U->J->L->heads[h];
  const size_t dk = hs_dkp(H), dv = (size_t)H->dv;
  FN(few_blk) *B = &U->blk[(size_t)h * (U->nb + 1)];
  int kf = 1, vi = 1, ng = 0, over = 0;
  for (size_t t = 0; t < U->nb; t++) {
    kf &= B[t].kfinite, vi &= B[t].vint, over |= B[t].ng > HS_FEW_MAX;
    for (int g = 0; !over && g < B[t].ng; g++) {
      int x = FN(few_find)(F->key, ng, B[t].key[g], dk);
      if (x == ng && ng == HS_FEW_MAX) over = 1;
      else if (x == ng) memcpy(F->key[ng++], B[t].key[g], dk * sizeof(REAL));
    }
  }
  F->qzero = (over || ng > 1) && kf && FN(few_wq_zero)(U->J, h);
  /* more than one group: softmax rows with exact scores only */
  int multi = H->kind == HS_ATTN_SOFTMAX && U->J->o->score_round == HS_ROUND_NONE;
  if (!vi || !kf || (!F->qzero && (over || (ng > 1 && !multi)))) return 0;
  F->ng = F->qzero ? 1 : ng;
  for (int g = 0; g < F->ng; g++) {
    size_t c = 0;
    while (c < dk && F->key[g][c] == 0) c++;
    F->kz[g] = c == dk;
    F->nz += !F->kz[g];
  }
  int64_t rs[HS_FEW_MAX][HS_FEW_D] = {{0}}, rc[HS_FEW_MAX] = {0};
  for (size_t t = 0; t <= U->nb; t++) {
    size_t keys = t < U->nb ? (t + 1) * HS_PFX_BLOCK - t * HS_PFX_BLOCK : 0;
    if (t + 1 == U->nb) keys = U->J->np + 1 - t * HS_PFX_BLOCK;
    memcpy(B[t].gs, rs, sizeof rs), memcpy(B[t].gc, rc, sizeof rc);
    for (int g = 0; t < U->nb && g < (F->qzero ? 1 : B[t].ng); g++) {
      int x = F->qzero ? 0 : FN(few_find)(F->key, F->ng, B[t].key[g], dk);
      for (size_t c = 0; c < dv; c++) rs[x][c] += F->qzero ? B[t].all[c] : B[t].sum[g][c];
      rc[x] += F->qzero ? (int64_t)keys : B[t].cnt[g];
    }
  }
  return F->ng;
}

/* Pass 2 for row blocks [b0, b1) of every head on this path: each row's
 * S_g and C_g from its block's offsets on. A row's prefix index x (b + 1
 * past, a future) grows with the row and stays within its block or one
 * key past it, but for mask none (x = n + 1 for every row: one walk a
 * block). */
static void FN(few_rows)(void *ctx, int k, size_t b0, size_t b1) {
  FN(few_ctx) *U = ctx;
  const FN(job) *J = U->J;
  (void)k;
  for (int h = 0; h < J->L->nheads; h++) {
    const FN(few) *F = U->few[h];
    if (!F) continue;
    const hs_head *H = &J->L->heads[h];
    const size_t dk = hs_dkp(H), dv = (size_t)H->dv;
    const FN(few_blk) *B = &U->blk[(size_t)h * (U->nb + 1)], *T = &B[U->nb];
    const REAL *K = J->K[h], *V = J->V[h];
    for (size_t t = b0; t < b1; t++) {
      size_t i1 = (t + 1) * HS_PFX_BLOCK < J->np ? (t + 1) * HS_PFX_BLOCK : J->np, xc = 0;
      int64_t rs[HS_FEW_MAX][HS_FEW_D], rc[HS_FEW_MAX];
      int started = 0;
      for (size_t i = t * HS_PFX_BLOCK; i < i1; i++) {
        size_t lo, hi, a, b;
        FN(head_range)(H, i, J->n, &lo, &hi);
        int past = FN(key_span)(J, H, lo, hi, &a, &b);
        size_t x = past ? b + 1 : a;
        if (!started || x < xc) {
          xc = x - x % HS_PFX_BLOCK, started = 1;
          memcpy(rs, B[xc / HS_PFX_BLOCK].gs, sizeof rs);
          memcpy(rc, B[xc / HS_PFX_BLOCK].gc, sizeof rc);
        }
        for (; xc < x; xc++) {
          int g = F->ng == 1 ? 0 : FN(few_find)(F->key, F->ng, K + xc * dk, dk);
          for (size_t c = 0; c < dv; c++) rs[g][c] += (int64_t)V[xc * dv + c];
          rc[g]++;
        }
        int64_t *r = F->row + i * F->w;
        for (int g = 0; g < F->ng; g++) {
          for (size_t c = 0; c < dv; c++)
            r[(size_t)g * dv + c] = past ? rs[g][c] : T->gs[g][c] - rs[g][c];
          if (g + 1 < F->ng) r[(size_t)F->ng * dv + (size_t)g] = past ? rc[g] : T->gc[g] - rc[g];
        }
      }
    }
  }
}

/* The layer's heads on this path (few[h] = &store[h], NULL for the
 * others): the candidates' key blocks grouped and summed (pass 1), each
 * head decided, then the rows (pass 2), both split among the threads in
 * whole blocks; each head's bytes into qkv[h]. -1 when out of memory. */
static int FN(few_heads)(const FN(job) *J, hs_pool *pool, hs_phclock *clk, FN(few) **few,
                         FN(few) *store, size_t *qkv) {
  const hs_layer *L = J->L;
  const int nh = L->nheads;
  size_t work = 0, np = J->np;
  unsigned char *cand = calloc((size_t)(nh ? nh : 1), 1);
  if (!cand) return -1;
  for (int h = 0; h < nh; h++) {
    few[h] = NULL;
    cand[h] = (unsigned char)FN(few_may)(J, &L->heads[h]);
    if (cand[h]) work += (np + 1) * (hs_dkp(&L->heads[h]) + (size_t)L->heads[h].dv);
  }
  FN(few_ctx) U = {J, few, cand, NULL, (np + 1 + HS_PFX_BLOCK - 1) / HS_PFX_BLOCK};
  int rc = 0, T = J->o->threads, any = 0;
  if (work > 0 && !(U.blk = malloc((size_t)nh * (U.nb + 1) * sizeof *U.blk))) rc = -1;
  if (rc == 0 && work > 0)
    FN(par_ranges)(pool, T, clk, J->ph, HS_PHASE_PREFIX, U.nb, 1, work, FN(few_blocks), &U);
  for (int h = 0; rc == 0 && work > 0 && h < nh; h++) {
    FN(few) F = {.row = store[h].row, .cap = store[h].cap};
    if (!cand[h] || !FN(few_merge)(&U, h, &F)) continue;
    F.w = (size_t)F.ng * (size_t)L->heads[h].dv + (size_t)F.ng - 1;
    size_t bytes = np * F.w * sizeof(int64_t);
    rc = hs_reserve((void **)&F.row, &F.cap, bytes);
    store[h] = F;
    few[h] = rc == 0 ? &store[h] : NULL;
    qkv[h] += bytes;
    any = 1;
  }
  if (rc == 0 && any)
    FN(par_ranges)(pool, T, clk, J->ph, HS_PHASE_PREFIX, (np + HS_PFX_BLOCK - 1) / HS_PFX_BLOCK,
                   1, work, FN(few_rows), &U);
  free(U.blk);
  free(cand);
  return rc;
}

/* Row i of a head on this path into out[0..dv) (FN(few) says how), and
 * its attention error into p->err when asked for; 0, with nothing done,
 * when the row's scores are not finite (or, W_q = 0, its query is not 0):
 * the caller runs the kernel. */
static int FN(few_row)(const FN(job) *J, int h, size_t i, REAL *out, FN(part) *p) {
  const FN(few) *F = J->few[h];
  if (!F) return 0;
  if (F->sel) {
    FN(sel_row)(J, h, i, out, p);
    return 1;
  }
  const hs_head *H = &J->L->heads[h];
  const size_t dk = hs_dkp(H), dv = (size_t)H->dv;
  const REAL *q = J->Q[h] + i * dk;
  const REAL inv_tau = F->nz && !F->qzero ? FN(head_inv_tau)(H, J->n) : 0;
  const int64_t *r = F->row + i * F->w;
  size_t lo, hi, a, b;
  FN(head_range)(H, i, J->n, &lo, &hi);
  FN(key_span)(J, H, lo, hi, &a, &b);
  int64_t C[HS_FEW_MAX], last = (int64_t)(b - a + 1);
  double s[HS_FEW_MAX], M = -INFINITY;
  int fin = 1; /* a finite query scores a key 0 as 0 */
  for (size_t c = 0; c < dk; c++) {
    if (F->qzero && q[c] != 0) return 0;
    fin &= q[c] - q[c] == 0;
  }
  for (int g = 0; g < F->ng; g++) {
    C[g] = g + 1 < F->ng ? r[(size_t)F->ng * dv + (size_t)g] : last;
    last -= g + 1 < F->ng ? C[g] : 0;
    s[g] = F->qzero || (F->kz[g] && fin) ? 0
           : (double)(KOP(J->kt, dot)(dk, q, F->key[g]) * inv_tau);
    if (!(s[g] - s[g] == 0)) return 0;
    if (C[g] > 0 && s[g] > M) M = s[g];
  }
  double den = 0, on = 0, num[HS_FEW_D] = {0};
  for (int g = 0; g < F->ng; g++) {
    if (C[g] == 0) continue;
    double w = s[g] == M ? 1 : exp(s[g] - M);
    den += w * (double)C[g];
    on += s[g] == M ? (double)C[g] : 0;
    for (size_t c = 0; c < dv; c++) num[c] += w * (double)r[(size_t)g * dv + c];
  }
  for (size_t c = 0; c < dv; c++) out[c] = (REAL)(num[c] / den);
  if (J->o->want_attn_error && i > 0 && J->o->score_round == HS_ROUND_NONE &&
      H->target != HS_ATTN_SOFTMAX) {
    double e = 1 - (H->target == HS_ATTN_HARD_AVG ? on : 1) / den;
    if (e > p->err) p->err = e;
  }
  return 1;
}
