/* SPDX-License-Identifier: MIT */
/* Where a model's counting comparisons are exact in finite precision
 * (hs_model_count_max_n), read from the weights so that it holds for
 * loaded models too, and why an answer is not proven (hs_model_unproven).
 *
 * What the model computes. A comparison sum_t c_t #_t + c REL 0 (reduced
 * by its coefficients' gcd, src/lang/compare.c) is decided by the sign of
 *   u = sum_t c_t x_t + c' x_r,   x_t = N_t / D,  x_r = 1 / D,
 * with N_t <= n the counts, D <= n + 1 the keys a count head sees, and
 * c' = +-c +- 1/2 (src/circuit/build.c, hs_circuit_sign_of): u = T' / D
 * with T' an integer plus or minus 1/2, so |T'| >= 1/2, and at a tie (the
 * integer 0) only that half unit separates the answers.
 *
 * Its rounding, in a working precision of unit roundoff eps (2^-24 f32,
 * 2^-53 f64), writing gamma_k = k eps / (1 - k eps):
 *  - a uniform count head averages 0/1 values with equal weights: its sums
 *    of ones and of values are exact integers (while D <= 2^24 in f32) and
 *    its output N / D carries at most two roundings (a division, or a
 *    reciprocal and a product): x^_t = x_t (1 + theta), |theta| <= gamma_2;
 *    the 1/D head reading BOS the same;
 *  - a BOS-weighted count (comparisons mixing #< and #>, weighted to the
 *    common denominator n + 1) is a softmax whose BOS weight e^{ln w} comes
 *    from a rounded logarithm and exponential, and whose sums add up to
 *    n + 1 weights each: |theta| <= gamma_{4n+8} (the two sums' 2(n+1)
 *    additions plus 3 ln(n+1) + 4 for the logarithm, its scaling and the
 *    exponential, which 2n + 6 covers at every n >= 1);
 *  - the sign's input u^ = sum_k w_k x^_k is a dot product over its m
 *    nonzero weights (the counts and the constant; BOS is 0 at every
 *    position i >= 1): each product and addition rounded, u^ = sum w_k x^_k
 *    (1 + eta_k), |eta_k| <= gamma_m, in any order of summation.
 * So |u^ - u| <= gamma A / D with gamma = gamma_{k+m} (k = 2, or 4n + 8
 * weighted) and A = sum |c_t| N_t + |c'| <= A(n) = n sum |c_t| + |c'|.
 * The sign input keeps a margin |u^| >= g / D with
 *   g(n) = max(1/2 - gamma A(n),  |c'| (1 - gamma) - n sum|c_t| (1 + gamma)),
 * the first from |T'| >= 1/2, the second from |T'| >= |c'| - sum |c_t| N_t
 * (a constant the counts cannot reach).
 *
 * The decision, per sign method:
 *  - layer normalization of [u^, -u^] (--sign layernorm), and the
 *    average-hard sign of hard mode: exact when u^ has u's sign, g(n) > 0;
 *  - the temperature sign at tau = c / (n ln(n+1)) (pe, temp, rel; c =
 *    1/mu): its weight off [u > 0] is at most m e^{-|u^|/tau} with m <= n
 *    keys, <= n (n+1)^{-g n / (c (n+1))}, below the 1/4 the rounding gate
 *    absorbs when g > c (n+1) ln(4n) / (n ln(n+1)), which is largest at
 *    n = 1: exact when g(n) > 4c (with mu > 12, the smallest exact mu, 4c
 *    < 1/3);
 *  - the temperature sign at a constant tau = c (fixed): the weight off is
 *    at most n e^{-g / ((n+1) c)}: exact when g(n) > c (n+1) ln(4n).
 * Each condition fails from some n on (g falls, the thresholds do not
 * fall), so the region is n <= the largest n that meets it, found by
 * bisection; in f32 also n < 2^24 (the exact sums of ones). The model's
 * region is the smallest over its signs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

typedef enum { SIGN_EXACT, SIGN_SOFT, SIGN_FIXED } sign_method;

/* One counting sign as the weights show it. */
typedef struct sign_row {
  double coef;     /* sum |c_t| over the counts */
  double constant; /* |c'|, the weight on the 1/D head */
  int terms;       /* m: the nonzero weights besides BOS */
  int weighted;    /* some count is BOS-weighted (mixed comparison) */
  sign_method method;
  double tau_c;
} sign_row;

static int bos_coord(const hs_model *m) {
  for (int k = 0; k < m->npf; k++)
    if (m->pf[k].kind == HS_PF_BOS) return m->pf[k].coord;
  return -1;
}

/* kind[c]: 1 when coordinate c is written by a head reading only BOS (the
 * 1/D heads that carry a comparison's constant), 2 by a BOS-weighted
 * count (a softmax head with no hard counterpart). */
static void mark_counts(const hs_model *m, int bos, char *kind) {
  for (int l = 0; l < m->nlayers; l++)
    for (int h = 0; h < m->layers[l].nheads; h++) {
      const hs_head *H = &m->layers[l].heads[h];
      int only_bos = H->dv == 1 && H->wv[bos] != 0;
      for (int c = 0; c < m->d && only_bos; c++) only_bos = c == bos || H->wv[c] == 0;
      int weighted = H->kind == HS_ATTN_SOFTMAX && H->target == HS_ATTN_SOFTMAX;
      for (int c = 0; c < m->d; c++)
        if (H->wo[c] != 0 && (only_bos || weighted)) kind[c] = only_bos ? 1 : 2;
    }
}

static sign_row read_row(const float *w, int d, int bos, const char *kind,
                         sign_method method, double tau_c) {
  sign_row r = {0, 0, 0, 0, method, tau_c};
  for (int c = 0; c < d; c++) {
    if (c == bos || w[c] == 0) continue;
    r.terms++;
    if (kind[c] == 1) {
      r.constant += fabs(w[c]);
    } else {
      r.coef += fabs(w[c]);
      r.weighted |= kind[c] == 2;
    }
  }
  return r;
}

/* Whether the sign is exact at every length up to n (the derivation above). */
static int exact_at(const sign_row *r, double n, double eps) {
  double k = (r->weighted ? 4 * n + 8 : 2) + r->terms;
  if (k * eps >= 0.5) return 0;
  double gamma = k * eps / (1 - k * eps);
  double g = fmax(0.5 - gamma * (n * r->coef + r->constant),
                  r->constant * (1 - gamma) - n * r->coef * (1 + gamma));
  switch (r->method) {
  case SIGN_SOFT: return g > 4 * r->tau_c;
  case SIGN_FIXED: return g > r->tau_c * (n + 1) * log(4 * n);
  default: return g > 0;
  }
}

static double row_max_n(const sign_row *r, int bits) {
  double eps = ldexp(1, -bits), top = bits <= 24 ? 0x1p24 - 1 : 0x1p53;
  if (!exact_at(r, 1, eps)) return 0;
  if (exact_at(r, top, eps)) return top;
  double lo = 1, hi = top; /* exact at lo, not at hi */
  while (hi - lo > 1) {
    double mid = floor((lo + hi) / 2);
    if (exact_at(r, mid, eps)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* The smallest region over every counting sign of m: the first row of
 * each layer-norm pair, and every head whose query weighs BOS negatively
 * (the sign heads: q = u - K [i = 0]; no other head's query reads BOS). */
static double each_sign(const hs_model *m, int bits) {
  int bos = bos_coord(m);
  char *kind = calloc((size_t)m->d + 1, 1);
  double best = INFINITY;
  if (bos < 0 || !kind) {
    free(kind);
    return best;
  }
  mark_counts(m, bos, kind);
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    for (int h = 0; h < 2 * L->ln_pairs; h += 2) {
      sign_row r = read_row(L->w1 + (size_t)h * m->d, m->d, bos, kind, SIGN_EXACT, 0);
      best = fmin(best, row_max_n(&r, bits));
    }
    for (int h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      if (H->dk != 1 || !(H->wq[bos] < 0)) continue;
      sign_method how = H->kind != HS_ATTN_SOFTMAX  ? SIGN_EXACT
                        : H->tau_law == HS_TAU_CONST ? SIGN_FIXED
                                                     : SIGN_SOFT;
      sign_row r = read_row(H->wq, m->d, bos, kind, how, H->tau_c);
      best = fmin(best, row_max_n(&r, bits));
    }
  }
  free(kind);
  return best;
}

double hs_model_count_max_n(const hs_model *m, int bits) {
  return m ? each_sign(m, bits < 1 ? 1 : bits > 60 ? 60 : bits) : INFINITY;
}

size_t hs_model_unproven(const hs_model *m, size_t n, hs_precision prec, char *buf, size_t len) {
  if (buf && len) buf[0] = 0;
  if (!m || !m->mode) return 0;
  int fixed = !strcmp(m->mode, "fixed"), bits = prec == HS_PREC_F64 ? 53 : 24;
  int absolute = fixed || !strcmp(m->mode, "pe") || !strcmp(m->mode, "temp");
  double fixed_n = hs_mode_exact_max_n(HS_MODE_FIXED, m->scale);
  double count_n = hs_model_count_max_n(m, bits);
  int k = 0;
  if (fixed && (double)n > fixed_n)
    k = snprintf(buf, len, "mode fixed at mu = %g is proven exact only up to n = %.0f; "
                 "the answer at n = %zu is not guaranteed (modes pe, temp and rel are "
                 "exact at every n)", m->scale, fixed_n, n);
  else if (!fixed && m->min_scale > 0 && m->scale < m->min_scale)
    k = snprintf(buf, len, "mu = %g is below %.4g, the smallest mu this model is proven "
                 "exact for; the answer is not guaranteed (compile with mu >= %.4g)",
                 m->scale, m->min_scale, m->min_scale);
  else if ((double)n > count_n)
    k = snprintf(buf, len, "at n = %zu the counting comparisons pass their exact region "
                 "in %s (n <= %.0f, where the rounding of their counts stays within "
                 "the sign's half-unit margin); the answer is not guaranteed", n,
                 bits == 53 ? "float64" : "float32", count_n);
  else if (absolute && bits == 24 && n > ((size_t)1 << 23))
    k = snprintf(buf, len, "at n = %zu absolute positions pass float32's 24-bit "
                 "significand; the answer is not guaranteed (float64, or mode rel)", n);
  return k > 0 ? (size_t)k : 0;
}

/* ------------------------------------------------------------ ties */

/* A comparison whose counts each read one set of embedded symbols: the
 * term t weighs w[t] and counts the bytes in set[t] (over the past, or
 * with future = 1 over the future); tie strings make sum w[t] N_t = target. */
#define TIE_TERMS 8
typedef struct tie_family {
  int nt, future;
  int64_t w[TIE_TERMS], target;
  int coord[TIE_TERMS];
  uint8_t set[TIE_TERMS][256];
} tie_family;

/* The bytes that set coordinate v, when v holds nothing but the embedding
 * (no feature, head or feed-forward unit writes it) and not every byte
 * does; 0 otherwise. */
static int embedded_set(const hs_model *m, int v, uint8_t set[256]) {
  for (int k = 0; k < m->npf; k++)
    if (m->pf[k].coord == v) return 0;
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    for (int h = 0; h < L->nheads; h++)
      for (int j = 0; j < L->heads[h].dv; j++)
        if (L->heads[h].wo[(size_t)v * L->heads[h].dv + j] != 0) return 0;
    for (int u = 0; u < L->hidden; u++)
      if (L->w2[(size_t)v * L->hidden + u] != 0) return 0;
  }
  int any = 0, all = 1;
  for (int b = 0; b < 256; b++) {
    set[b] = m->embed[(size_t)b * m->d + v] != 0;
    any |= set[b];
    all &= set[b];
  }
  return any && !all;
}

/* The count head writing coordinate c: its direction (1 past, 0 future,
 * -1 neither) and value coordinate in *v. */
static int count_head(const hs_model *m, int c, int *v) {
  for (int l = 0; l < m->nlayers; l++)
    for (int h = 0; h < m->layers[l].nheads; h++) {
      const hs_head *H = &m->layers[l].heads[h];
      if (H->dv != 1 || H->wo[c] == 0) continue;
      *v = -1;
      for (int j = 0; j < m->d; j++)
        if (H->wv[j] != 0) *v = *v < 0 ? j : -2;
      if (*v < 0) return -1;
      return H->mask == HS_MASK_LE ? 1 : H->mask == HS_MASK_GE ? 0 : -1;
    }
  return -1;
}

/* The family of sign row w (its integer part offset by `half` = +-1/2
 * from the constant): 1, or 0 when its counts cannot be drawn. */
static int read_family(const hs_model *m, const float *w, int bos, const char *kind,
                       double half, tie_family *F) {
  memset(F, 0, sizeof *F);
  F->future = -1;
  double constant = 0;
  for (int c = 0; c < m->d; c++) {
    if (c == bos || w[c] == 0) continue;
    if (kind[c] == 1) { constant += w[c]; continue; }
    int v, dir = kind[c] == 2 || F->nt == TIE_TERMS ? -1 : count_head(m, c, &v);
    if (dir < 0 || (F->future >= 0 && F->future != !dir) ||
        !embedded_set(m, v, F->set[F->nt]))
      return 0;
    F->future = !dir;
    F->coord[F->nt] = c;
    F->w[F->nt++] = (int64_t)w[c];
  }
  F->target = (int64_t)(half - constant);
  if (F->nt == 0) return 0;
  if (F->w[0] < 0) { /* one orientation per family */
    for (int t = 0; t < F->nt; t++) F->w[t] = -F->w[t];
    F->target = -F->target;
  }
  return 1;
}

static int same_family(const tie_family *a, const tie_family *b) {
  if (a->nt != b->nt || a->future != b->future || a->target != b->target) return 0;
  for (int t = 0; t < a->nt; t++)
    if (a->coord[t] != b->coord[t] || a->w[t] != b->w[t]) return 0;
  return 1;
}

/* x with a x = 1 mod b (a, b coprime, b >= 1). */
static int64_t inverse(int64_t a, int64_t b) {
  int64_t r0 = b, r1 = ((a % b) + b) % b, s0 = 0, s1 = 1;
  while (r1) {
    int64_t q = r0 / r1, t = r0 - q * r1;
    r0 = r1, r1 = t;
    t = s0 - q * s1, s0 = s1, s1 = t;
  }
  return ((s0 % b) + b) % b;
}

/* A byte of set[t] in no other term's set (printable first), or -1. */
static int own_byte(const tie_family *F, int t) {
  int best = -1;
  for (int b = 0; b < 256; b++) {
    int ok = F->set[t][b];
    for (int u = 0; u < F->nt && ok; u++) ok = u == t || !F->set[u][b];
    if (ok && (best < 0 || (b > 0x20 && b < 0x7f && !(best > 0x20 && best < 0x7f)))) best = b;
  }
  return best;
}

/* F's tie string of length n (prefix meeting the target, filler no count
 * reads, whole periods; reversed for future counts): 1, or 0. A period
 * adds 0 to sum w_t N_t: every term once when the weights sum to 0
 * (10000 #a - 9999 #b - #c: abc), else one positive term p and one
 * negative q in the ratio of their weights. */
static int build_tie(const hs_model *m, const tie_family *F, size_t n, uint8_t *out) {
  int p = -1, q = -1, filler = hs_model_other_byte(m), each[TIE_TERMS];
  int64_t sum = 0;
  for (int t = 0; t < F->nt; t++) {
    if (F->w[t] > 0 && p < 0) p = t;
    if (F->w[t] < 0 && q < 0) q = t;
    sum += F->w[t];
    if ((each[t] = own_byte(F, t)) < 0) sum = 1;
  }
  for (int t = 0; t < F->nt; t++)
    if (F->set[t][filler]) filler = -1;
  int bp = own_byte(F, p), bq = q >= 0 ? own_byte(F, q) : -1;
  int64_t A = F->w[p], B = q >= 0 ? -F->w[q] : 0, g = A, Pp, Pq = 0, per;
  if (bp < 0 || (q >= 0 && bq < 0)) return 0;
  if (q < 0) { /* one sign: the prefix alone, then filler keeps the tie */
    if (F->target < 0 || F->target % A || filler < 0) return 0;
    Pp = F->target / A, per = 1;
  } else {
    for (int64_t x = A, y = B; y;) g = y, y = x % y, x = g;
    if (F->target % g) return 0;
    int64_t a = A / g, b = B / g, k = F->target / g;
    Pp = (int64_t)(((__int128)(k % b + b) % b * inverse(a, b)) % b);
    Pq = (a * Pp - k) / b;
    if (Pq < 0) { int64_t s = (-Pq + a - 1) / a; Pp += s * b, Pq += s * a; }
    A = a, B = b, per = sum == 0 ? F->nt : a + b;
  }
  if ((uint64_t)(Pp + Pq) > n) return 0;
  size_t rem = n - (size_t)(Pp + Pq), f = q < 0 ? rem : rem % (size_t)per, i = 0;
  if (f && filler < 0) return 0;
  for (int64_t j = 0; j < Pp; j++) out[i++] = (uint8_t)bp;
  for (int64_t j = 0; j < Pq; j++) out[i++] = (uint8_t)bq;
  for (size_t j = 0; j < f; j++) out[i++] = (uint8_t)filler;
  while (i < n && sum == 0)
    for (int t = 0; t < F->nt; t++) out[i++] = (uint8_t)each[t];
  while (i < n) {
    for (int64_t j = 0; j < B; j++) out[i++] = (uint8_t)bp;
    for (int64_t j = 0; j < A; j++) out[i++] = (uint8_t)bq;
  }
  for (size_t j = 0; F->future && j < n / 2; j++) {
    uint8_t t = out[j];
    out[j] = out[n - 1 - j], out[n - 1 - j] = t;
  }
  return 1;
}

/* The k-th distinct family of m's sign rows (the layer-norm rows, then the
 * sign heads; each with its integer on either side of the constant, so
 * that the exact tie, integer 0, is among them whatever the relation). */
static int find_family(const hs_model *m, int k, tie_family *out) {
  int bos = bos_coord(m), found = 0, nseen = 0;
  char *kind = calloc((size_t)m->d + 1, 1);
  tie_family *seen = malloc(64 * sizeof *seen);
  if (bos < 0 || !kind || !seen) {
    free(kind), free(seen);
    return 0;
  }
  mark_counts(m, bos, kind);
  for (int l = 0; l < m->nlayers && !found; l++) {
    const hs_layer *L = &m->layers[l];
    int rows = L->ln_pairs + L->nheads;
    for (int r = 0; r < rows && !found; r++) {
      const float *w = r < L->ln_pairs ? L->w1 + (size_t)2 * r * m->d : L->heads[r - L->ln_pairs].wq;
      if (r >= L->ln_pairs && (L->heads[r - L->ln_pairs].dk != 1 || !(w[bos] < 0))) continue;
      for (int side = 0; side < 2 && !found && nseen < 64; side++) {
        if (!read_family(m, w, bos, kind, side ? -0.5 : 0.5, &seen[nseen])) continue;
        int dup = 0;
        for (int j = 0; j < nseen && !dup; j++) dup = same_family(&seen[j], &seen[nseen]);
        if (dup) continue;
        if (nseen++ == k) *out = seen[k], found = 1;
      }
    }
  }
  free(kind);
  free(seen);
  return found;
}

int hs_model_tie_string(const hs_model *m, int k, size_t n, uint8_t *out) {
  tie_family F;
  if (!m || k < 0 || !out || !find_family(m, k, &F)) return 0;
  return build_tie(m, &F, n, out);
}
