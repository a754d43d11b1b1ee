/* SPDX-License-Identifier: MIT */
/* Uniform heads by prefix sums (hs_run_opts.skip AUTO), written once for
 * REAL = float and double; included by forward-impl.h after its pass
 * type.
 *
 * A head whose scores are equal for every key its mask admits computes a
 * mean: softmax gives each of the row's D keys (BOS among them) the
 * weight exp(s - M) = exp(0) = 1 and divides by their sum D, and
 * average-hard attention takes every key as maximal and divides by D
 * alike. Every count head compiles so (W_q = W_k = 0: scores 0 at every
 * temperature). The plan recognises it from the layer's own projections,
 * not from a flag in the model: K = 0 for every key (then q . k = 0 for
 * every finite q), or W_q = 0 with every key finite (then q = 0 for every
 * finite stream row, and 0 . k = 0); a row whose query is not so (a
 * non-finite stream row) runs the kernel as before (FN(uni_row)).
 *
 * Row i then needs the sum of the values over its keys [a, b]: a prefix
 * P[b + 1] for past masks (keys 0..b), the total less P[a] for future
 * ones (keys a..n + 1, the BOS copy last), with P[x] = v_0 + .. + v_{x-1}.
 * When every value is an integer of magnitude at most 2^31 (every
 * compiled count: its values are 0 / 1 features) and there are fewer
 * than 2^32 keys, the sums are exact in int64, and the row's output is
 * (REAL)((double)S / D): one rounding of the exact mean while |S| < 2^53
 * (for f32 the double quotient rounds again to float, which gives the
 * correctly rounded float: a quotient of integers below 2^32 lies at
 * least 2^-64 of its size from a float midpoint, beyond the double's
 * 2^-53 rounding). The kernels sum the same integers with weight 1 in the
 * working precision, exact below 2^24 (f32) / 2^53 (f64), and divide once:
 * the same bits there, and closer to the mean past it. Values of any other
 * kind keep the kernel.
 *
 * The sums are taken in two passes over blocks of HS_PFX_BLOCK keys fixed
 * by the key index alone: each block's sum (threads take blocks), the
 * blocks' offsets in order, then each block of rows from its offset. The
 * sums being exact, every thread count gives the same bits. The attention
 * error of such a row (hs_run_opts.want_attn_error) is 0 by construction:
 * every key is at the row's max, the hard average's target. */
#define HS_PFX_BLOCK 4096

/* The work of FN(uni_heads): per head and key block the value sums and
 * what the block's keys and values are (exact zeros, finite, integral). */
typedef struct FN(uni_blk) {
  int64_t sum[HS_ATTN_MAX_D];
  unsigned char kzero, kfinite, vint;
} FN(uni_blk);

typedef struct FN(uni_ctx) {
  const FN(job) *J;
  unsigned char *cand; /* per head: still a candidate */
  FN(uni_blk) *blk;    /* [head][nb + 1]: the blocks, then the total */
  size_t nb;           /* key blocks: keys 0 .. np, np the BOS copy */
} FN(uni_ctx);

/* Whether head H may be uniform at all, from what costs nothing: the
 * policy, its kind, no relative bias, a finite 1 / tau. */
static int FN(uni_may)(const FN(job) *J, const hs_head *H) {
  if (J->o->skip != HS_SKIP_AUTO || H->bias_slope != 0 || (size_t)H->dv > HS_ATTN_MAX_D)
    return 0;
  if ((uint64_t)J->np + 1 >= ((uint64_t)1 << 32)) return 0;
  if (H->kind == HS_ATTN_HARD_AVG) return J->stats == NULL; /* gaps: the dense row */
  return H->kind == HS_ATTN_SOFTMAX && isfinite((double)FN(head_inv_tau)(H, J->n));
}

/* Pass 1 for key blocks [b0, b1) of every candidate head. */
static void FN(uni_blocks)(void *ctx, int k, size_t b0, size_t b1) {
  FN(uni_ctx) *U = ctx;
  const FN(job) *J = U->J;
  (void)k;
  for (int h = 0; h < J->L->nheads; h++) {
    if (!U->cand[h]) continue;
    const size_t dk = hs_dkp(&J->L->heads[h]), dv = (size_t)J->L->heads[h].dv;
    for (size_t t = b0; t < b1; t++) {
      FN(uni_blk) *B = &U->blk[(size_t)h * (U->nb + 1) + t];
      size_t j0 = t * HS_PFX_BLOCK, j1 = j0 + HS_PFX_BLOCK;
      if (j1 > J->np + 1) j1 = J->np + 1;
      int kz = 1, kf = 1, vi = 1;
      const REAL *K = J->K[h], *V = J->V[h];
      for (size_t x = j0 * dk; x < j1 * dk; x++) kz &= K[x] == 0, kf &= K[x] - K[x] == 0;
      int64_t s[HS_ATTN_MAX_D] = {0};
      for (size_t j = j0; j < j1 && vi; j++)
        for (size_t c = 0; c < dv; c++) {
          REAL v = V[j * dv + c];
          vi &= fabs((double)v) <= 2147483648.0 && (REAL)(int64_t)v == v;
          s[c] += vi ? (int64_t)v : 0;
        }
      memcpy(B->sum, s, sizeof s);
      B->kzero = (unsigned char)kz, B->kfinite = (unsigned char)kf;
      B->vint = (unsigned char)vi;
    }
  }
}

/* Whether W_q of head h (as converted) is all zeros. */
static int FN(uni_wq_zero)(const FN(job) *J, int h) {
  const REAL *wq = J->w->wq[J->hbase + h];
  for (size_t x = 0; x < hs_dkp(&J->L->heads[h]) * J->d; x++)
    if (wq[x] != 0) return 0;
  return 1;
}

/* Head h's kind from its blocks, and its blocks' sums turned into their
 * offsets (the sum of every block before), in order; blk[nb] the total. */
static int FN(uni_decide)(FN(uni_ctx) *U, int h) {
  FN(uni_blk) *B = &U->blk[(size_t)h * (U->nb + 1)];
  int kz = 1, kf = 1, vi = 1;
  for (size_t t = 0; t < U->nb; t++) kz &= B[t].kzero, kf &= B[t].kfinite, vi &= B[t].vint;
  if (!vi || !(kz || (kf && FN(uni_wq_zero)(U->J, h)))) return HS_UNI_NONE;
  int64_t run[HS_ATTN_MAX_D] = {0};
  for (size_t t = 0; t <= U->nb; t++)
    for (size_t c = 0; c < HS_ATTN_MAX_D; c++) {
      int64_t s = t < U->nb ? B[t].sum[c] : 0;
      B[t].sum[c] = run[c];
      run[c] += s;
    }
  return kz ? HS_UNI_KZERO : HS_UNI_QZERO;
}

/* Pass 2 for row blocks [b0, b1) of every uniform head: each row's mean
 * from its block's offset on. A row's prefix index x (b + 1 past, a
 * future) grows with the row and stays within its block or one key past
 * it, but for mask none (x = n + 1 for every row: one walk a block). */
static void FN(uni_rows)(void *ctx, int k, size_t b0, size_t b1) {
  FN(uni_ctx) *U = ctx;
  const FN(job) *J = U->J;
  (void)k;
  for (int h = 0; h < J->L->nheads; h++) {
    if (!J->uni[h]) continue;
    const hs_head *H = &J->L->heads[h];
    const size_t dv = (size_t)H->dv;
    const FN(uni_blk) *B = &U->blk[(size_t)h * (U->nb + 1)];
    const REAL *V = J->V[h];
    REAL *out = J->uo[h];
    for (size_t t = b0; t < b1; t++) {
      size_t i1 = (t + 1) * HS_PFX_BLOCK < J->np ? (t + 1) * HS_PFX_BLOCK : J->np, xc = 0;
      int64_t run[HS_ATTN_MAX_D];
      int started = 0;
      for (size_t i = t * HS_PFX_BLOCK; i < i1; i++) {
        size_t lo, hi, a, b;
        FN(head_range)(H, i, J->n, &lo, &hi);
        int past = FN(key_span)(J, H, lo, hi, &a, &b);
        size_t x = past ? b + 1 : a;
        if (!started || x < xc) {
          xc = x - x % HS_PFX_BLOCK, started = 1;
          memcpy(run, B[xc / HS_PFX_BLOCK].sum, sizeof run);
        }
        for (; xc < x; xc++)
          for (size_t c = 0; c < dv; c++) run[c] += (int64_t)V[xc * dv + c];
        double D = (double)(b - a + 1);
        for (size_t c = 0; c < dv; c++)
          out[i * dv + c] = (REAL)((double)(past ? run[c] : B[U->nb].sum[c] - run[c]) / D);
      }
    }
  }
}

/* The layer's uniform heads (J->uni[h], their rows' outputs in
 * J->uo[h]): the candidates' key blocks summed and checked (pass 1), each
 * head decided, then the rows (pass 2), both split among the threads in
 * whole blocks. The heads that are not take their usual path. */
static int FN(uni_heads)(FN(pass) *P, const FN(job) *J) {
  const hs_layer *L = J->L;
  const int nh = L->nheads;
  size_t work = 0, np = P->np;
  unsigned char *cand = calloc((size_t)(nh ? nh : 1), 1);
  if (!cand) return -1;
  for (int h = 0; h < nh; h++) {
    P->uni[h] = HS_UNI_NONE;
    free(P->uo[h]);
    P->uo[h] = NULL;
    cand[h] = (unsigned char)FN(uni_may)(J, &L->heads[h]);
    if (cand[h]) work += (np + 1) * (hs_dkp(&L->heads[h]) + (size_t)L->heads[h].dv);
  }
  FN(uni_ctx) U = {J, cand, NULL, (np + 1 + HS_PFX_BLOCK - 1) / HS_PFX_BLOCK};
  int rc = 0, T = P->o->threads;
  if (work > 0) U.blk = calloc((size_t)nh * (U.nb + 1), sizeof *U.blk);
  if (work > 0 && !U.blk) rc = -1;
  if (rc == 0 && work > 0) {
    FN(par_ranges)(P->pool, T, &P->clk, P->ph, HS_PHASE_PREFIX, U.nb, 1, work,
                   FN(uni_blocks), &U);
    int any = 0;
    for (int h = 0; h < nh && rc == 0; h++) {
      if (!cand[h] || !(P->uni[h] = (unsigned char)FN(uni_decide)(&U, h))) continue;
      size_t bytes = np * (size_t)L->heads[h].dv * sizeof(REAL);
      P->uo[h] = malloc(bytes ? bytes : 1);
      if (!P->uo[h]) rc = -1;
      P->qkv[h] += bytes;
      any = 1;
    }
    if (rc == 0 && any)
      FN(par_ranges)(P->pool, T, &P->clk, P->ph, HS_PHASE_PREFIX,
                     (np + HS_PFX_BLOCK - 1) / HS_PFX_BLOCK, 1, work, FN(uni_rows), &U);
  }
  free(U.blk);
  free(cand);
  return rc;
}
