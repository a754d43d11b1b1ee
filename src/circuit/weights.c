/* SPDX-License-Identifier: MIT */
/* Each node's weights, per mode: the ReLU units of gates, the rounding
 * after a head, the layer-normalized signs, and the attention heads with
 * their scores, temperatures and the error bounds that make them exact.
 * Gates are exact in float arithmetic: all inputs are 0/1 and all weights
 * small integers or halves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"

/* The ReLU units of a gate: out_coord += sum_u out_u * ReLU(w_u . x + b_u).
 * Inputs are 0/1 at i >= 1 and 0 at BOS; every unit is exact in float.
 * Returns the number of units (<= 2). */
int hs_gate_units(const hs_circuit *B, const hs_cnode *n, hs_unit u[2]) {
  int a = n->a >= 0 ? B->c[n->a].coord : -1;
  int b = n->b >= 0 ? B->c[n->b].coord : -1;
  int bos = B->pf_coord[HS_PF_BOS];
  memset(u, 0, 2 * sizeof *u);
  for (int i = 0; i < 2; i++) u[i].in[0] = u[i].in[1] = u[i].in[2] = -1;
#define U(i, c0, w0, c1, w1, c2, w2, bb, oo)                              \
  (u[i].in[0] = (c0), u[i].w[0] = (w0), u[i].in[1] = (c1), u[i].w[1] = (w1), \
   u[i].in[2] = (c2), u[i].w[2] = (w2), u[i].bias = (bb), u[i].out = (oo))
  switch (n->g) {
    case HS_G_NOT: /* 1 - a, and 0 at BOS */
      U(0, a, -1, bos, -1, -1, 0, 1, 1);
      return 1;
    case HS_G_AND: /* ReLU(a + b - 1) */
      U(0, a, 1, b, 1, -1, 0, -1, 1);
      return 1;
    case HS_G_OR: /* ReLU(a + b) - ReLU(a + b - 1) */
      U(0, a, 1, b, 1, -1, 0, 0, 1);
      U(1, a, 1, b, 1, -1, 0, -1, -1);
      return 2;
    case HS_G_IMPLIES: /* ReLU(1 - a + b - bos) - ReLU(b - a) */
      U(0, a, -1, b, 1, bos, -1, 1, 1);
      U(1, a, -1, b, 1, -1, 0, 0, -1);
      return 2;
    case HS_G_IFF: /* ReLU(1 - a - b - bos) + ReLU(a + b - 1) */
      U(0, a, -1, b, -1, bos, -1, 1, 1);
      U(1, a, 1, b, 1, -1, 0, -1, 1);
      return 2;
    case HS_G_NONBOS: /* a feature in {0,1} that may be 1 at BOS */
      U(0, a, 1, bos, -1, -1, 0, 0, 1);
      return 1;
    case HS_G_FIRST: /* x = 1/(i+1): 12x - 5 is 1 at i = 1, <= -1 at i >= 2,
                     7 at BOS (cancelled by -7 bos) */
      U(0, a, 12, bos, -7, -1, 0, -5, 1);
      return 1;
  }
#undef U
  return 0;
}

/* Rounding after a head: a in [0,1] within 1/4 of 0 or 1 becomes exactly
 * 0 or 1: ReLU(2a - 1/2) - ReLU(2a - 3/2). For a > 3/4 both arguments are
 * computed exactly in float (2a - 1/2 in [1, 3/2] and 2a - 3/2 in [0, 1/2]
 * keep every bit of 2a), so the difference is exactly 1. BOS: -2 bos. */
int hs_round_units(const hs_circuit *B, const hs_cnode *n, hs_unit u[2]) {
  int bos = B->pf_coord[HS_PF_BOS];
  memset(u, 0, 2 * sizeof *u);
  for (int i = 0; i < 2; i++) {
    u[i].in[0] = n->scratch;
    u[i].w[0] = 2;
    u[i].in[1] = bos;
    u[i].w[1] = -2;
    u[i].in[2] = -1;
  }
  u[0].bias = -0.5f;
  u[0].out = 1;
  u[1].bias = -1.5f;
  u[1].out = -1;
  return 2;
}

/* One term of an attention score: (wq * x_i[qc]) * (wk * x_j[kc]). */
typedef struct term { int qc; float wq; int kc; float wk; } term;

/* The scores of a head, per mode. Write s_j for the selector (1 where it
 * holds, 0 elsewhere and at BOS) and t for the hard target: the rightmost
 * visible j with s_j = 1 (since family) or the leftmost (until family);
 * when no visible j has s_j = 1, the rightmost / leftmost visible j.
 *
 *   hard  : score s_j (until family: also -2 [j = 0], so BOS never wins a
 *           tie as the leftmost); unique hard attention, ties broken
 *           rightmost / leftmost. Exact.
 *   pe    : tau = 1, score mu*j + mu*n*s_j (since) or
 *           -mu*j + mu*n*s_j - 2*mu*n*[j = 0] (until), from the unbounded
 *           features i and n.
 *   temp  : tau = 1/(mu n), score j/n + s_j or -j/n + s_j - 2[j = 0] from
 *           the bounded feature i/n; after dividing by tau the scores are
 *           exactly those of pe.
 *   fixed : tau = 1/mu, the scores of temp: scaled scores mu*j/n + mu*s_j.
 *   rel   : content q.k = s_j - 1 (0 or -1: q = [1, 1], k = [s_j, -1]) at
 *           tau = 1/(mu n), plus the head's relative bias -mu |i - j|
 *           (hs_head.bias_slope = mu, added after tau; BOS sits at
 *           position 0 for the since family, n + 1 for until): logits
 *             s_j = 1:  -mu |i - j|            (0 at the query itself)
 *             s_j = 0:  -mu n - mu |i - j|     (BOS included: s_0 = 0).
 *           Without a selector (Y, X) the content is 0 and the bias alone
 *           ranks the keys (BOS the farthest). Queries and keys hold only
 *           0 and +-1, so they are exact in f16 and bf16; the deciding
 *           logits are small integers times mu near the query, and the
 *           far ones are exact integers times mu in f32 up to 2^24.
 *
 * Bound (pe, temp). Every competitor's scaled score is below the target's
 * by a positive multiple of mu, and no multiple occurs more than twice
 * (once among positions with s = 1, once among those with s = 0: both sets
 * have pairwise distinct positions, so distinct scores). Hence
 *   S = sum_{j != t} e^{score_j - score_t} <= 2 e^{-mu} / (1 - e^{-mu}),
 * and the weight off t is S/(1+S) < 1/4 exactly when S < 1/3, which holds
 * for every n once mu >= ln 7 ~= 1.946 (the cruder S < 1/4 needs ln 9).
 * The value read is then within S/(1+S) of v_t, and the rounding gate
 * restores it exactly. fixed: the multiples are of mu/n instead, so the
 * same holds only while n <= mu / ln 7.
 * rel: every logit is -mu times a non-negative integer, r_j = |i - j| if
 * s_j = 1, n + |i - j| if s_j = 0 (BOS: |i - j| = i or n + 1 - i), and
 * the target has the smallest: an s = 1 target has r_t = |i - t| < |i - j|
 * for every other s = 1 key (t is the nearest) and r_t <= n - 1 < n <= r_j
 * for every s = 0 key; when no s = 1 key is visible the target is the
 * nearest visible key, r_t = n + |i - t|, again the smallest. Within each
 * class (s = 1 / s = 0, BOS in the s = 0 one) the keys have distinct
 * distances |i - j| on one side of i, hence distinct r_j: the same two
 * geometric series, S <= 2 e^{-mu} / (1 - e^{-mu}) at every n, exact for
 * mu >= ln 7. */
static int head_scores(const hs_circuit *B, const hs_cnode *n, term t[3]) {
  int one = B->pf_coord[HS_PF_ONE], bos = B->pf_coord[HS_PF_BOS];
  int sel = n->sel >= 0 ? B->c[n->sel].coord : -1;
  float mu = (float)B->o.scale;
  int k = 0;
  switch (B->o.mode) {
    case HS_MODE_HARD:
      if (sel >= 0) t[k++] = (term){one, 1, sel, 1};
      if (!n->right) t[k++] = (term){one, 1, bos, -2};
      if (k == 0) t[k++] = (term){one, 0, one, 0}; /* all scores equal */
      return k;
    case HS_MODE_PE: {
      int pi = B->pf_coord[HS_PF_I], pn = B->pf_coord[HS_PF_N];
      t[k++] = (term){one, mu, pi, n->right ? 1.0f : -1.0f};
      if (sel >= 0) t[k++] = (term){pn, mu, sel, 1};
      if (!n->right) t[k++] = (term){pn, mu, bos, -2};
      return k;
    }
    case HS_MODE_TEMP:
    case HS_MODE_FIXED: {
      int pin = B->pf_coord[HS_PF_I_OVER_N];
      t[k++] = (term){one, 1, pin, n->right ? 1.0f : -1.0f};
      if (sel >= 0) t[k++] = (term){one, 1, sel, 1};
      if (!n->right) t[k++] = (term){one, 1, bos, -2};
      return k;
    }
    case HS_MODE_REL:
      if (sel >= 0) {
        t[k++] = (term){one, 1, sel, 1};
        t[k++] = (term){one, 1, one, -1};
      } else {
        t[k++] = (term){one, 0, one, 0}; /* content 0: the bias decides */
      }
      return k;
    default: return 0;
  }
}

/* The feature whose value is the BOS score of a BOS-weighted count. */
hs_pf_kind hs_weight_feature(const hs_circuit *B, const hs_cnode *n) {
  int bounded = B->o.mode == HS_MODE_TEMP;
  if (n->right == 1) return bounded ? HS_PF_LN_REST_OVER_N : HS_PF_LN_REST;
  return bounded ? HS_PF_LN_I_OVER_N : HS_PF_LN_I;
}

/* The count heads and the temperature sign head (HS_C_COUNT, HS_C_SIGN with
 * --sign temp).
 *   count: all scores 0, so softmax weights are exactly 1/D over the D
 *     visible keys (j <= i, j >= i or all j, plus BOS) and average-hard
 *     attention is the same: the output is #/D, exact up to one rounding.
 *   BOS-weighted count (k = 1, mixed comparisons): the non-BOS keys score
 *     0 and BOS scores ln w, so BOS weighs as much as w positions and the
 *     denominator is w + (number of non-BOS keys). w = n + 1 - i for the
 *     past (i keys j = 1..i), w = i for the future (n - i + 1 keys
 *     j = i..n): both give exactly n + 1 (at i >= 1; w >= 1 always). The
 *     score is the feature ln(n+1-i) or ln i at tau = 1 (pe; hard mode
 *     too, since average-hard attention cannot weight BOS: these are
 *     softmax heads there), or ln(..)/n at tau = 1/n (temp, bounded
 *     features). The weights are exact by construction, not in a limit,
 *     so no mu is involved. In float, future counts meet BOS (its copy
 *     after n) last, so every key before its block weighs exactly 1;
 *     past counts meet BOS first, so every key weighs the rounded 1/w
 *     and the sums carry that rounding (measured harmless: see
 *     docs/HOW-IT-WORKS.md, "Mixed comparisons").
 *   sign: q_i = u_i - K [i = 0], k_j = v_j = [j >= 1]; the non-BOS keys
 *     (m of them, 1 <= m <= n) score u_i / tau, BOS 0, so the output
 *     m e^{u/tau} / (1 + m e^{u/tau}) is within (n+1)^{1 - mu/4} of [u > 0]
 *     when tau = 1/(mu n ln(n+1)), since |u| >= 1/(2(n+1)): exact (< 1/4)
 *     at every n >= 1 once mu > 12. Hard mode: average-hard attention,
 *     exact. K keeps BOS's own row negative. */
static double sign_k(const hs_cnode *n) {
  double k = 1;
  for (int t = 0; t < n->nin; t++) k += fabs(n->coef[t]);
  return k;
}

int hs_fill_aux_head(const hs_circuit *B, const hs_cnode *n, hs_head *H, int d) {
  int sign = n->kind == HS_C_SIGN;
  H->dk = 1;
  H->dv = 1;
  int weighted = !sign && n->k == 1;
  H->mask = sign || n->right == 1 ? HS_MASK_LE
            : n->right == 2       ? HS_MASK_NONE
                                  : HS_MASK_GE;
  H->target = weighted ? HS_ATTN_SOFTMAX : HS_ATTN_HARD_AVG;
  H->kind = B->o.mode == HS_MODE_HARD && !weighted ? HS_ATTN_HARD_AVG
                                                   : HS_ATTN_SOFTMAX;
  H->tau_law = HS_TAU_CONST;
  H->tau_c = 1;
  if (weighted && B->o.mode == HS_MODE_TEMP) H->tau_law = HS_TAU_INV_N;
  if (sign && B->o.mode == HS_MODE_FIXED) H->tau_c = 1.0 / B->o.scale;
  if (sign && (B->o.mode == HS_MODE_PE || B->o.mode == HS_MODE_TEMP ||
               B->o.mode == HS_MODE_REL)) {
    H->tau_law = HS_TAU_INV_NLOGN;
    H->tau_c = 1.0 / B->o.scale;
  }
  H->wq = calloc((size_t)d, sizeof(float));
  H->wk = calloc((size_t)d, sizeof(float));
  H->wv = calloc((size_t)d, sizeof(float));
  H->wo = calloc((size_t)d, sizeof(float));
  char name[300], buf[400];
  hs_circuit_name(B, (int)(n - B->c), name, sizeof name);
  if (sign) snprintf(buf, sizeof buf, "sign of %s: BOS against j >= 1", name);
  else if (weighted)
    snprintf(buf, sizeof buf, "uniform over %s, BOS weighing %s: reads the "
             "count / (n+1)", hs_mask_text(H->mask), n->right ? "n+1-i" : "i");
  else if (n->val < 0)
    snprintf(buf, sizeof buf, "uniform over %s: 1/%s", hs_mask_text(H->mask),
             n->right == 2 ? "(n+1)" : "D");
  else
    snprintf(buf, sizeof buf, "uniform over %s: reads the count / D", hs_mask_text(H->mask));
  H->desc = hs_cstrdup(buf);
  if (!H->wq || !H->wk || !H->wv || !H->wo || !H->desc) return -1;
  int bos = B->pf_coord[HS_PF_BOS];
  if (sign) {
    int one = -1;
    for (int i = 0; i < B->n; i++)
      if (B->c[i].kind == HS_C_TRUE) one = B->c[i].coord;
    for (int t = 0; t < n->nin; t++)
      H->wq[B->c[n->ins[t]].coord] += (float)n->coef[t];
    H->wq[bos] += (float)-sign_k(n);
    H->wk[one] = 1;
    H->wv[one] = 1;
    H->wo[n->scratch] = 1;
  } else {
    if (weighted) {
      H->wq[B->pf_coord[hs_weight_feature(B, n)]] = 1;
      H->wk[bos] = 1;
    }
    H->wv[n->val >= 0 ? B->c[n->val].coord : bos] = 1;
    H->wo[n->coord] = 1;
  }
  return 0;
}

/* The LN sign (--sign layernorm): two normalized pairs [u - K bos, -(...)]
 * with gains 2 and biases -1/2, -3/2 on the first unit: ReLU(2 s - 1/2) -
 * ReLU(2 s - 3/2) for s = +-1 (up to the rounding of sqrt(u^2)) is exactly
 * 1 or 0, as in the rounding gate. Exact in every mode; u != 0 always. */
void hs_ln_sign_units(const hs_circuit *B, const hs_cnode *n, hs_layer *L,
                          int pair, int nu, int d) {
  int bos = B->pf_coord[HS_PF_BOS];
  for (int p = 0; p < 2; p++) {
    int h0 = 2 * (pair + p), h1 = h0 + 1;
    for (int t = 0; t < n->nin; t++) {
      float c = (float)n->coef[t];
      L->w1[(size_t)h0 * d + B->c[n->ins[t]].coord] += c;
      L->w1[(size_t)h1 * d + B->c[n->ins[t]].coord] -= c;
    }
    L->w1[(size_t)h0 * d + bos] += (float)-sign_k(n);
    L->w1[(size_t)h1 * d + bos] += (float)sign_k(n);
    L->ln_g[h0] = 2;
    L->ln_b[h0] = p == 0 ? -0.5f : -1.5f;
    L->w2[(size_t)n->coord * nu + h0] = p == 0 ? 1 : -1;
  }
}

/* A temporal head (HS_C_HEAD): scores from head_scores, reads val, writes the
 * scratch coordinate that its rounding gate reads. */
int hs_fill_head(const hs_circuit *B, const hs_cnode *n, hs_head *H, int d) {
  term t[3];
  int dk = head_scores(B, n, t);
  H->dk = dk;
  H->dv = 1;
  H->mask = n->mask;
  H->target = n->right ? HS_ATTN_HARD_RIGHT : HS_ATTN_HARD_LEFT;
  H->kind = B->o.mode == HS_MODE_HARD ? H->target : HS_ATTN_SOFTMAX;
  H->tau_law = B->o.mode == HS_MODE_TEMP || B->o.mode == HS_MODE_REL
                   ? HS_TAU_INV_N
                   : HS_TAU_CONST;
  H->tau_c = B->o.mode == HS_MODE_PE || B->o.mode == HS_MODE_HARD
                 ? 1.0
                 : 1.0 / B->o.scale;
  if (B->o.mode == HS_MODE_REL) {
    /* mu as the float the kernels multiply by, and the content's
     * temperature from that same value (head_scores' bound uses it) */
    H->bias_slope = (float)B->o.scale;
    H->tau_c = 1.0 / (double)H->bias_slope;
  }
  H->wq = calloc((size_t)dk * d, sizeof(float));
  H->wk = calloc((size_t)dk * d, sizeof(float));
  H->wv = calloc((size_t)d, sizeof(float));
  H->wo = calloc((size_t)d, sizeof(float));
  H->desc = hs_head_desc(B, n);
  if (!H->wq || !H->wk || !H->wv || !H->wo || !H->desc) return -1;
  for (int q = 0; q < dk; q++) {
    H->wq[(size_t)q * d + t[q].qc] = t[q].wq;
    H->wk[(size_t)q * d + t[q].kc] = t[q].wk;
  }
  H->wv[B->c[n->val].coord] = 1;
  H->wo[n->scratch] = 1;
  return 0;
}
