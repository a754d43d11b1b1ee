/* SPDX-License-Identifier: MIT */
/* hs_attention: the attention weights of one layer's heads over a string,
 * for pictures (hardsoft attention, the Python package's
 * Model.attention).
 *
 * The forward pass never holds a weight matrix (its kernels fold each
 * row into an online softmax), so the weights are recomputed here in
 * double from the residual stream that enters the layer, which the pass
 * keeps (hs_run_opts.keep_layers). The law is the one of
 * src/model/model.h: row i sees BOS (key 0) and the keys its mask allows;
 * a softmax head's score is q_i . k_j / tau(n) - slope |i - j'| (j' the
 * key's position, BOS at n + 1 under the future masks, as the forward
 * pass places its copy), a hard head's q_i . k_j; BOS is the leftmost key
 * whatever the mask. The scores are those of the working precision's
 * stream, taken in double: for the compiled constructions they differ
 * from the kernels' by rounding only, far below what a picture shows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/model.h"

/* Whether key j is visible from query i under mask (BOS always). */
static int visible(hs_mask mask, size_t i, size_t j) {
  if (j == 0) return 1;
  switch (mask) {
    case HS_MASK_LE: return j <= i;
    case HS_MASK_LT: return j < i;
    case HS_MASK_GE: return j >= i;
    case HS_MASK_GT: return j > i;
    default: return 1;
  }
}

static double inv_tau(const hs_head *H, size_t n) {
  double nn = (double)(n ? n : 1), tau = H->tau_c;
  if (H->tau_law == HS_TAU_INV_N) tau = H->tau_c / nn;
  if (H->tau_law == HS_TAU_INV_NLOGN) tau = H->tau_c / (nn * log(nn + 1));
  return 1.0 / tau;
}

/* The stream entering layer 0: symbol embedding plus positional features,
 * in double (the forward pass computes them in its working precision). */
static void embed(const hs_model *m, const uint8_t *w, size_t n, double *X) {
  size_t d = (size_t)m->d;
  for (size_t i = 0; i <= n; i++) {
    unsigned sym = i == 0 ? HS_BOS : w[i - 1];
    for (size_t c = 0; c < d; c++) X[i * d + c] = m->embed[sym * d + c];
    for (int k = 0; k < m->npf; k++) {
      const hs_posfeat *p = &m->pf[k];
      double v = 0, di = (double)i, dn = (double)n, rest = (double)(n + 1 - i);
      switch (p->kind) {
        case HS_PF_ONE: v = 1; break;
        case HS_PF_BOS: v = i == 0; break;
        case HS_PF_LAST: v = i == n; break;
        case HS_PF_I: v = di; break;
        case HS_PF_N: v = dn; break;
        case HS_PF_I_OVER_N: v = n ? di / dn : 0; break;
        case HS_PF_INV_I1: v = 1 / (di + 1); break;
        case HS_PF_MOD: v = (int64_t)(i % (uint64_t)p->k) == p->r; break;
        case HS_PF_LN_REST: v = log(rest); break;
        case HS_PF_LN_I: v = log(i ? di : 1); break;
        case HS_PF_LN_REST_OVER_N: v = log(rest) / (n ? dn : 1); break;
        case HS_PF_LN_I_OVER_N: v = log(i ? di : 1) / (n ? dn : 1); break;
        default: break;
      }
      X[i * d + (size_t)p->coord] += v;
    }
  }
}

/* Y[i][r] = sum_c X[i][c] W[r][c]: a head's queries or keys. */
static void project(const double *X, size_t rows, size_t d, const float *W,
                    size_t dk, double *Y) {
  for (size_t i = 0; i < rows; i++)
    for (size_t r = 0; r < dk; r++) {
      double s = 0;
      for (size_t c = 0; c < d; c++) s += X[i * d + c] * (double)W[r * d + c];
      Y[i * dk + r] = s;
    }
}

/* Row i's scores into s[0..n] (-INFINITY where the mask hides the key). */
static void scores(const hs_head *H, const double *Q, const double *K,
                   size_t i, size_t n, double *s) {
  size_t dk = (size_t)H->dk;
  int soft = H->kind == HS_ATTN_SOFTMAX;
  int future = H->mask == HS_MASK_GE || H->mask == HS_MASK_GT;
  double it = soft ? inv_tau(H, n) : 1;
  for (size_t j = 0; j <= n; j++) {
    if (!visible(H->mask, i, j)) { s[j] = -INFINITY; continue; }
    double v = 0;
    for (size_t c = 0; c < dk; c++) v += Q[i * dk + c] * K[j * dk + c];
    v *= it;
    if (soft && H->bias_slope != 0) {
      double jp = j == 0 && future ? (double)(n + 1) : (double)j;
      v -= (double)H->bias_slope * fabs((double)i - jp);
    }
    s[j] = v;
  }
}

/* The hard choice of `kind` over row scores s[0..n] into hard[0..n];
 * returns the chosen key, or -1 when the weight is spread (hard_avg with
 * ties) or there is no hard kind. Every score NaN: BOS, as the forward
 * pass does. */
static int32_t hard_row(hs_attn_kind kind, const double *s, size_t n,
                        double *hard) {
  double best = -INFINITY;
  size_t first = 0, last = 0, cnt = 0;
  for (size_t j = 0; j <= n; j++) hard[j] = 0;
  if (kind == HS_ATTN_SOFTMAX) return -1;
  for (size_t j = 0; j <= n; j++) {
    if (s[j] > best) best = s[j], first = last = j, cnt = 1;
    else if (s[j] == best && cnt) last = j, cnt++;
  }
  if (cnt == 0) { /* every score NaN: BOS */
    hard[0] = 1;
    return 0;
  }
  if (kind == HS_ATTN_HARD_LEFT) { hard[first] = 1; return (int32_t)first; }
  if (kind == HS_ATTN_HARD_RIGHT) { hard[last] = 1; return (int32_t)last; }
  for (size_t j = 0; j <= n; j++)
    if (s[j] == best) hard[j] = 1.0 / (double)cnt;
  return cnt == 1 ? (int32_t)first : -1;
}

static void softmax_row(const double *s, size_t n, double *w) {
  double mx = -INFINITY, sum = 0;
  for (size_t j = 0; j <= n; j++) mx = s[j] > mx ? s[j] : mx;
  for (size_t j = 0; j <= n; j++) sum += (w[j] = s[j] == -INFINITY ? 0 : exp(s[j] - mx));
  for (size_t j = 0; j <= n; j++) w[j] = sum > 0 ? w[j] / sum : NAN;
}

/* Every row of head H, into its [n+1][n+1] slices. */
static void head_weights(const hs_head *H, const double *Q, const double *K,
                         size_t n, double *s, double *hrow, double *W,
                         double *hard, int32_t *target) {
  size_t np = n + 1;
  for (size_t i = 0; i <= n; i++) {
    scores(H, Q, K, i, n, s);
    hs_attn_kind kind = H->kind == HS_ATTN_SOFTMAX ? H->target : H->kind;
    int32_t t = hard_row(kind, s, n, hrow);
    if (H->kind == HS_ATTN_SOFTMAX) softmax_row(s, n, W + i * np);
    else memcpy(W + i * np, hrow, np * sizeof *hrow);
    if (hard) memcpy(hard + i * np, hrow, np * sizeof *hrow);
    if (target) target[i] = t;
  }
}

/* The stream entering `layer` into X[(n+1) d]: the embedding, or the
 * forward pass's stream after layer - 1. */
static int stream_in(const hs_model *m, const uint8_t *w, size_t n,
                     const hs_run_opts *o, int layer, double *X, hs_error *err) {
  if (layer == 0) {
    embed(m, w, n, X);
    return 0;
  }
  hs_run_opts ro = {0};
  if (o) ro = *o;
  ro.keep_layers = 1;
  ro.want_gaps = ro.want_attn_error = ro.last_only = ro.edges_only = 0;
  hs_run_result r;
  if (hs_forward(m, w, n, &ro, &r, err) != 0) return -1;
  size_t per = (n + 1) * (size_t)m->d;
  memcpy(X, r.layers + (size_t)(layer - 1) * per, per * sizeof *X);
  hs_run_result_free(&r);
  return 0;
}

int hs_attention(const hs_model *m, const uint8_t *w, size_t n,
                 const hs_run_opts *o, int layer, double *weights,
                 double *hard, int32_t *target, hs_error *err) {
  if (layer < 0 || layer >= m->nlayers)
    return hs_errorf(err, HS_ERR_ARG, "layer %d does not exist (the model has %d, "
                   "numbered from 0)", layer, m->nlayers);
  if (n > HS_ATTENTION_MAX_N)
    return hs_errorf(err, HS_ERR_LIMIT, "a string of %zu symbols is too long for attention "
                   "weights (at most %d: each head takes (n+1)^2 doubles)",
                   n, HS_ATTENTION_MAX_N);
  if (!weights || (n && !w)) return hs_errorf(err, HS_ERR_ARG, "hs_attention: NULL argument");
  const hs_layer *L = &m->layers[layer];
  size_t d = (size_t)m->d, np = n + 1, dkmax = 1;
  for (int h = 0; h < L->nheads; h++)
    if ((size_t)L->heads[h].dk > dkmax) dkmax = (size_t)L->heads[h].dk;
  double *X = malloc(np * d * sizeof *X), *Q = malloc(np * dkmax * sizeof *Q);
  double *K = malloc(np * dkmax * sizeof *K), *s = malloc(np * sizeof *s);
  double *hrow = malloc(np * sizeof *hrow);
  int rc = -1;
  if (!X || !Q || !K || !s || !hrow) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory for the attention weights of %zu symbols", n);
  } else if (stream_in(m, w, n, o, layer, X, err) == 0) {
    for (int h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      size_t at = (size_t)h * np * np;
      project(X, np, d, H->wq, (size_t)H->dk, Q);
      project(X, np, d, H->wk, (size_t)H->dk, K);
      head_weights(H, Q, K, n, s, hrow, weights + at, hard ? hard + at : NULL,
                   target ? target + (size_t)h * np : NULL);
    }
    rc = 0;
  }
  free(X); free(Q); free(K); free(s); free(hrow);
  return rc;
}
