/* SPDX-License-Identifier: MIT */
/* A compiled transformer (internal): weights plus the little metadata the
 * forward pass needs. This is exactly what a model file holds; see
 * docs/MODEL-FORMAT.md for the on-disk names.
 *
 * Residual stream x_i in R^d at positions 0..n (0 = BOS). Per layer:
 *   x += sum_h W_O^h attn_h(x)          (skipped when nheads == 0)
 *   x += W2 ReLU(W1 x + b1) + b2        (skipped when hidden == 0)
 * A head: q_i = W_Q x_i (dk), k_j = W_K x_j (dk), v_j = W_V x_j (dv);
 * visible keys: those the mask allows plus BOS (j = 0) always;
 * softmax: weights softmax_j(q_i.k_j / tau(n) - slope |i - j|) (slope = 0
 * unless the head has a relative-position bias, see hs_head.bias_slope);
 * hard kinds: all weight on the leftmost / rightmost maximal score, or
 * spread over all maximal. */
#ifndef HS_MODEL_H
#define HS_MODEL_H

#include <stdint.h>

#include "hardsoft.h"

typedef enum hs_mask {
  HS_MASK_NONE, /* every j */
  HS_MASK_LE,   /* j <= i */
  HS_MASK_LT,   /* j < i */
  HS_MASK_GE,   /* j >= i */
  HS_MASK_GT,   /* j > i */
  HS_MASK_COUNT_
} hs_mask;

typedef enum hs_attn_kind {
  HS_ATTN_SOFTMAX,
  HS_ATTN_HARD_LEFT,  /* unique hard, leftmost maximal */
  HS_ATTN_HARD_RIGHT, /* unique hard, rightmost maximal */
  HS_ATTN_HARD_AVG,   /* average hard */
  HS_ATTN_COUNT_
} hs_attn_kind;

/* tau(n) = c (CONST), c / n (INV_N), c / (n ln(n + 1)) (INV_NLOGN),
 * n = input length (n >= 1; tau(0) uses n = 1). */
typedef enum hs_tau_law { HS_TAU_CONST, HS_TAU_INV_N, HS_TAU_INV_NLOGN,
                          HS_TAU_COUNT_ } hs_tau_law;

/* Positional features: coordinate `coord` of x_i gets this function of
 * (i, n), added to the symbol embedding. */
typedef enum hs_pf_kind {
  HS_PF_ONE,      /* 1 */
  HS_PF_BOS,      /* [i = 0] */
  HS_PF_LAST,     /* [i = n] */
  HS_PF_I,        /* i        (unbounded) */
  HS_PF_N,        /* n        (unbounded) */
  HS_PF_I_OVER_N, /* i / n    (bounded; 0 when n = 0) */
  HS_PF_INV_I1,   /* 1/(i+1)  (bounded) */
  HS_PF_MOD,      /* [i mod k = r] */
  /* BOS weights for counts over a common denominator (src/circuit/weights.c,
   * mixed #< / #> comparisons): e^{score} must be n + 1 - i or i. */
  HS_PF_LN_REST,        /* ln(n + 1 - i)              (unbounded) */
  HS_PF_LN_I,           /* ln(max(i, 1))              (unbounded) */
  HS_PF_LN_REST_OVER_N, /* ln(n + 1 - i) / max(n, 1)  (bounded, < 1) */
  HS_PF_LN_I_OVER_N,    /* ln(max(i, 1)) / max(n, 1)  (bounded, < 1) */
  HS_PF_COUNT_
} hs_pf_kind;

typedef struct hs_posfeat { hs_pf_kind kind; int32_t coord; int64_t k, r; } hs_posfeat;

typedef struct hs_head {
  hs_attn_kind kind;
  hs_attn_kind target; /* softmax heads: the hard kind it stands in for
                          (used to measure attention error) */
  hs_mask mask;
  hs_tau_law tau_law;  /* softmax heads only */
  double tau_c;
  int32_t dk, dv;
  /* Relative positions (ALiBi style, mode rel): -bias_slope |i - j| is
   * added to the logit q_i.k_j / tau(n), in f32 (f64) as the kernels
   * score, never divided by tau. BOS counts as position 0 for the past
   * masks (le, lt) and as position n + 1 for the future ones (ge, gt):
   * the far end of the head's window either way. 0 = no bias; > 0 only
   * for softmax heads with mask le, lt, ge or gt, at most 2^20. */
  float bias_slope;
  float *wq;  /* [dk][d] */
  float *wk;  /* [dk][d] */
  float *wv;  /* [dv][d] */
  float *wo;  /* [d][dv] */
  char *desc; /* for people: what the head attends to */
} hs_head;

typedef struct hs_layer {
  int32_t nheads;
  hs_head *heads;
  int32_t hidden;
  float *w1;  /* [hidden][d] */
  float *b1;  /* [hidden] */
  float *w2;  /* [d][hidden] */
  float *b2;  /* [d] */
  /* Layer normalization inside the feed-forward sublayer: hidden units
   * 0..2*ln_pairs-1 are normalized in pairs before the ReLU,
   *   (h0, h1) -> g_k (h_k - m) / sqrt(v + ln_eps) + b_k,
   * m, v the mean and variance of the pair (output b_k when v + eps = 0).
   * The pair [u, -u] with eps = 0 gives exactly [sign u, -sign u]: the
   * exact sign the counting comparisons need. */
  int32_t ln_pairs;
  double ln_eps;
  float *ln_g; /* [2 ln_pairs] */
  float *ln_b; /* [2 ln_pairs] */
} hs_layer;

#define HS_VOCAB 257 /* bytes 0..255, then BOS */
#define HS_BOS 256

typedef struct hs_model {
  int32_t d;
  float *embed;        /* [HS_VOCAB][d] */
  int32_t npf;
  hs_posfeat *pf;
  int32_t nlayers;
  hs_layer *layers;
  int32_t out_coord;   /* decision: x_i[out_coord] > 1/2 */
  /* metadata for people and reports (may be NULL / 0) */
  char *formula;       /* source formula, if compiled from one */
  char *mode;          /* hard, pe, temp, fixed, or "custom" */
  double scale;        /* mu */
  double bound;        /* worst attention error the construction allows */
  double min_scale;    /* smallest mu for which the model is exact */
  char *bound_desc;    /* the law, in words */
  char **coord_names;  /* [d] or NULL: what each coordinate holds */
  /* The vocabulary of the program compiled (src/lang/lang.h): token k is
   * read as byte vocab_byte[k]; 0 tokens for a formula over bytes. Saved
   * as __metadata__.vocab (src/model/safetensors.c). */
  int32_t nvocab;
  char **vocab_tok;
  uint8_t *vocab_byte;
} hs_model;

/* Allocate a zeroed model of width d with nlayers empty layers. */
hs_model *hs_model_new(int32_t d, int32_t nlayers);
/* Deep copy. */
hs_model *hs_model_clone(const hs_model *m);
/* Consistency check (coordinates in range, dims > 0, dk,dv <= 64, kinds
 * and masks valid): 0 ok, -1 with msg filled. */
int hs_model_validate(const hs_model *m, hs_error *err);

const char *hs_mask_name(hs_mask m);      /* "le", "lt", "ge", "gt", "none" */
const char *hs_attn_kind_name(hs_attn_kind k); /* "softmax", "hard_left", "hard_right", "hard_avg" */
const char *hs_tau_law_name(hs_tau_law l); /* "const", "inv_n", "inv_nlogn" */
const char *hs_pf_kind_name(hs_pf_kind k); /* "one", "bos", "last", "i", "n", "i_over_n", "inv_i1", "mod",
                                              "ln_rest", "ln_i", "ln_rest_over_n", "ln_i_over_n" */
int hs_mask_parse(const char *s);          /* -1 if unknown */
int hs_attn_kind_parse(const char *s);
int hs_tau_law_parse(const char *s);
int hs_pf_kind_parse(const char *s);


/* ---- added with src/model/model.c: limits and builders (additive) ----------- */

/* Largest width any model may have (also what the loader accepts): bounds
 * the embedding at 257 * 65536 floats = 64 MiB. */
#define HS_MODEL_MAX_D (1 << 16)

/* Ownership: every pointer in hs_model, hs_layer and hs_head is owned by
 * the model, allocated with malloc/calloc, and released by hs_model_free
 * (so code that builds a model by hand must use malloc/calloc too). The
 * builders below do exactly that and return NULL / -1 on bad arguments or
 * out of memory, leaving the model unchanged. */

/* Append a head (zeroed weights of the given dk, dv; kind softmax, target
 * hard_avg, mask none, tau const with c = 1, desc NULL) to layer l. The
 * returned pointer is valid until the next head is added to that layer. */
hs_head *hs_model_add_head(hs_model *m, int32_t l, int32_t dk, int32_t dv);
/* Give layer l a feed-forward sublayer of `hidden` units (zeroed weights),
 * replacing any it had; hidden = 0 removes it. */
int hs_model_set_ffn(hs_model *m, int32_t l, int32_t hidden);
/* Widen the residual stream by `extra` coordinates d..d+extra-1, zero in
 * every weight, so the model computes what it did (NULL names for them).
 * 0, or -1 (out of memory, or the width would pass HS_MODEL_MAX_D) with the
 * model possibly half widened: widen a copy. */
int hs_model_widen(hs_model *m, int32_t extra);
/* Replace the model's vocabulary by n tokens tok[k] read as byte[k]
 * (distinct non-empty tokens without whitespace, distinct bytes, n <=
 * 255). 0, or -1 (bad vocabulary or out of memory; model unchanged). */
int hs_model_vocab_set(hs_model *m, int32_t n, const char *const *tok,
                       const uint8_t *byte);
/* A vocabulary as the encoder reads it: n tokens tok[k] read as byte[k],
 * or none at all (bytes = 1: one-byte tokens are themselves, as a formula
 * reads them), and the byte `other` an unknown token becomes when that is
 * asked for. */
typedef struct hs_tokens {
  int n;
  char *const *tok;
  const uint8_t *byte;
  uint8_t other;
  int bytes;
} hs_tokens;
/* The whitespace-separated tokens of line[0..len) as bytes into out (room
 * for len), their count in *n; an unknown token is `other` (unknown =
 * HS_UNKNOWN_OTHER) or an error naming it, its place, the vocabulary and,
 * when it is known tokens run together, them (src/model/tokens.c). 0, or
 * -1 with err filled. */
int hs_tokens_encode(const hs_tokens *t, const char *line, size_t len,
                     hs_unknown unknown, uint8_t *out, size_t *n, hs_error *err);
/* Append a positional feature. */
int hs_model_add_pf(hs_model *m, hs_pf_kind kind, int32_t coord, int64_t k,
                    int64_t r);
/* (n+1)^{1 - mu/4}: the temperature sign's weight off [u > 0], n >= 1
 * (src/model/bound.c). */
double hs_sign_bound(double mu, size_t n);
/* Whether a head of m is a temperature sign (tau = 1/(mu n ln(n+1))). */
int hs_model_has_temp_sign(const hs_model *m);

#endif
