/* SPDX-License-Identifier: MIT */
/* Model utilities: allocation, deep copy, the consistency check every
 * loaded or compiled model passes, builders, and the name <-> enum tables
 * the model file and the CLI share. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/model.h"

/* ------------------------------------------------------------ enum names */

/* One table per enum, in enum order: the file format spells these names,
 * so they never change once written. */
static const char *const mask_names[HS_MASK_COUNT_] = {"none", "le", "lt",
                                                       "ge", "gt"};
static const char *const attn_names[HS_ATTN_COUNT_] = {
    "softmax", "hard_left", "hard_right", "hard_avg"};
static const char *const tau_names[HS_TAU_COUNT_] = {"const", "inv_n",
                                                     "inv_nlogn"};
static const char *const pf_names[HS_PF_COUNT_] = {
    "one", "bos", "last", "i", "n", "i_over_n", "inv_i1", "mod",
    "ln_rest", "ln_i", "ln_rest_over_n", "ln_i_over_n"};

/* Out-of-range values give "?" rather than NULL so that a message built
 * from a corrupt struct still prints. */
static const char *name_of(const char *const *t, int n, int v) {
  return v >= 0 && v < n ? t[v] : "?";
}
static int parse_in(const char *const *t, int n, const char *s) {
  if (!s) return -1;
  for (int i = 0; i < n; i++)
    if (strcmp(t[i], s) == 0) return i;
  return -1;
}

static const char *const mode_names[HS_MODE_COUNT_] = {"hard", "pe", "temp",
                                                       "fixed", "rel"};
const char *hs_mode_name(hs_mode m) {
  return name_of(mode_names, HS_MODE_COUNT_, (int)m);
}
int hs_mode_parse(const char *s) { return parse_in(mode_names, HS_MODE_COUNT_, s); }

const char *hs_mask_name(hs_mask m) {
  return name_of(mask_names, HS_MASK_COUNT_, (int)m);
}
const char *hs_attn_kind_name(hs_attn_kind k) {
  return name_of(attn_names, HS_ATTN_COUNT_, (int)k);
}
const char *hs_tau_law_name(hs_tau_law l) {
  return name_of(tau_names, HS_TAU_COUNT_, (int)l);
}
const char *hs_pf_kind_name(hs_pf_kind k) {
  return name_of(pf_names, HS_PF_COUNT_, (int)k);
}
int hs_mask_parse(const char *s) { return parse_in(mask_names, HS_MASK_COUNT_, s); }
int hs_attn_kind_parse(const char *s) { return parse_in(attn_names, HS_ATTN_COUNT_, s); }
int hs_tau_law_parse(const char *s) { return parse_in(tau_names, HS_TAU_COUNT_, s); }
int hs_pf_kind_parse(const char *s) { return parse_in(pf_names, HS_PF_COUNT_, s); }

/* ------------------------------------------------------ alloc and free */

hs_model *hs_model_new(int32_t d, int32_t nlayers) {
  if (d <= 0 || d > HS_MODEL_MAX_D || nlayers < 0) return NULL;
  hs_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->d = d;
  m->embed = calloc((size_t)HS_VOCAB * (size_t)d, sizeof(float));
  /* calloc(0, ..) may return NULL legitimately: only fail for nlayers > 0 */
  m->layers = nlayers ? calloc((size_t)nlayers, sizeof(hs_layer)) : NULL;
  if (!m->embed || (nlayers && !m->layers)) {
    hs_model_free(m);
    return NULL;
  }
  m->nlayers = nlayers;
  return m;
}

static void head_free(hs_head *h) {
  free(h->wq);
  free(h->wk);
  free(h->wv);
  free(h->wo);
  free(h->desc);
}

static void layer_free(hs_layer *L) {
  for (int32_t h = 0; h < L->nheads && L->heads; h++) head_free(&L->heads[h]);
  free(L->heads);
  free(L->w1);
  free(L->b1);
  free(L->w2);
  free(L->b2);
  free(L->ln_g);
  free(L->ln_b);
}

void hs_model_free(hs_model *m) {
  if (!m) return;
  for (int32_t l = 0; l < m->nlayers && m->layers; l++)
    layer_free(&m->layers[l]);
  free(m->layers);
  free(m->embed);
  free(m->pf);
  free(m->formula);
  free(m->mode);
  free(m->bound_desc);
  if (m->coord_names)
    for (int32_t i = 0; i < m->d; i++) free(m->coord_names[i]);
  free(m->coord_names);
  for (int32_t k = 0; k < m->nvocab && m->vocab_tok; k++) free(m->vocab_tok[k]);
  free(m->vocab_tok);
  free(m->vocab_byte);
  free(m);
}

/* ------------------------------------------------------------ deep copy */

/* Copy n elements of size sz; NULL in gives NULL out (not an error). */
static int dup_mem(void *dst_ptr, const void *src, size_t n, size_t sz) {
  void **dst = dst_ptr;
  *dst = NULL;
  if (!src || n == 0) return 0;
  *dst = malloc(n * sz);
  if (!*dst) return -1;
  memcpy(*dst, src, n * sz);
  return 0;
}

static int dup_str(char **dst, const char *src) {
  return dup_mem(dst, src, src ? strlen(src) + 1 : 0, 1);
}

static int clone_head(hs_head *dst, const hs_head *src, size_t d) {
  *dst = *src;
  dst->wq = dst->wk = dst->wv = dst->wo = NULL;
  dst->desc = NULL;
  size_t dk = src->dk > 0 ? (size_t)src->dk : 0;
  size_t dv = src->dv > 0 ? (size_t)src->dv : 0;
  return dup_mem(&dst->wq, src->wq, dk * d, sizeof(float)) |
         dup_mem(&dst->wk, src->wk, dk * d, sizeof(float)) |
         dup_mem(&dst->wv, src->wv, dv * d, sizeof(float)) |
         dup_mem(&dst->wo, src->wo, d * dv, sizeof(float)) |
         dup_str(&dst->desc, src->desc);
}

static int clone_layer(hs_layer *dst, const hs_layer *src, size_t d) {
  *dst = *src;
  dst->heads = NULL;
  dst->nheads = 0;
  dst->w1 = dst->b1 = dst->w2 = dst->b2 = dst->ln_g = dst->ln_b = NULL;
  size_t hid = src->hidden > 0 ? (size_t)src->hidden : 0;
  size_t lnp = src->ln_pairs > 0 ? 2 * (size_t)src->ln_pairs : 0;
  int err = dup_mem(&dst->w1, src->w1, hid * d, sizeof(float)) |
            dup_mem(&dst->b1, src->b1, hid, sizeof(float)) |
            dup_mem(&dst->w2, src->w2, d * hid, sizeof(float)) |
            dup_mem(&dst->b2, src->b2, d, sizeof(float)) |
            dup_mem(&dst->ln_g, src->ln_g, lnp, sizeof(float)) |
            dup_mem(&dst->ln_b, src->ln_b, lnp, sizeof(float));
  if (err || src->nheads <= 0 || !src->heads) return err;
  dst->heads = calloc((size_t)src->nheads, sizeof(hs_head));
  if (!dst->heads) return -1;
  /* nheads grows with each copied head so a failure frees exactly what
   * was copied */
  for (int32_t h = 0; h < src->nheads; h++) {
    dst->nheads = h + 1;
    if (clone_head(&dst->heads[h], &src->heads[h], d)) return -1;
  }
  return 0;
}

hs_model *hs_model_clone(const hs_model *src) {
  if (!src || src->d <= 0) return NULL;
  hs_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  *m = *src;
  size_t d = (size_t)src->d;
  m->embed = NULL;
  m->pf = NULL;
  m->layers = NULL;
  m->nlayers = 0;
  m->formula = m->mode = m->bound_desc = NULL;
  m->coord_names = NULL;
  m->nvocab = 0;
  m->vocab_tok = NULL;
  m->vocab_byte = NULL;
  int err = dup_mem(&m->embed, src->embed, HS_VOCAB * d, sizeof(float)) |
            dup_mem(&m->pf, src->pf, src->npf > 0 ? (size_t)src->npf : 0,
                    sizeof(hs_posfeat)) |
            dup_str(&m->formula, src->formula) |
            dup_str(&m->mode, src->mode) |
            dup_str(&m->bound_desc, src->bound_desc);
  if (!err && src->coord_names) {
    m->coord_names = calloc(d, sizeof(char *));
    err = !m->coord_names;
    for (size_t i = 0; !err && i < d; i++)
      err = dup_str(&m->coord_names[i], src->coord_names[i]);
  }
  if (!err && src->nvocab > 0)
    err = hs_model_vocab_set(m, src->nvocab, (const char *const *)src->vocab_tok,
                             src->vocab_byte);
  if (!err && src->nlayers > 0 && src->layers) {
    m->layers = calloc((size_t)src->nlayers, sizeof(hs_layer));
    err = !m->layers;
    for (int32_t l = 0; !err && l < src->nlayers; l++) {
      m->nlayers = l + 1;
      err = clone_layer(&m->layers[l], &src->layers[l], d);
    }
  }
  if (err) {
    hs_model_free(m);
    return NULL;
  }
  return m;
}

/* --------------------------------------------------------------- widen */

/* rows x cols (row-major) -> rows x ncols, the new columns zero. */
static int restride(float **p, size_t rows, size_t cols, size_t ncols) {
  if (!*p) return 0;
  size_t total = rows * ncols;
  float *q = calloc(total ? total : 1, sizeof *q);
  if (!q) return -1;
  for (size_t r = 0; r < rows; r++) memcpy(q + r * ncols, *p + r * cols, cols * sizeof *q);
  free(*p);
  *p = q;
  return 0;
}

int hs_model_nheads(const hs_model *m) {
  int nh = 0;
  for (int l = 0; l < m->nlayers; l++) nh += m->layers[l].nheads;
  return nh;
}

int hs_model_widen(hs_model *m, int32_t extra) {
  if (!m || m->d <= 0 || extra < 0 || m->d > HS_MODEL_MAX_D - extra) return -1;
  size_t d = (size_t)m->d, nd = d + (size_t)extra;
  /* every matrix that reads the stream gains zero columns, every one that
   * writes it zero rows (a row-major [d][k] matrix with zero rows appended
   * is a [nd][k] matrix with the same rows first) */
  int err = restride(&m->embed, HS_VOCAB, d, nd);
  for (int32_t l = 0; !err && l < m->nlayers; l++) {
    hs_layer *L = &m->layers[l];
    size_t hid = L->hidden > 0 ? (size_t)L->hidden : 0;
    err = restride(&L->w1, hid, d, nd) || restride(&L->w2, 1, d * hid, nd * hid) ||
          restride(&L->b2, 1, d, nd);
    for (int32_t h = 0; !err && h < L->nheads; h++) {
      hs_head *H = &L->heads[h];
      err = restride(&H->wq, (size_t)H->dk, d, nd) || restride(&H->wk, (size_t)H->dk, d, nd) ||
            restride(&H->wv, (size_t)H->dv, d, nd) ||
            restride(&H->wo, 1, d * (size_t)H->dv, nd * (size_t)H->dv);
    }
  }
  if (!err && m->coord_names) {
    char **names = realloc(m->coord_names, nd * sizeof *names);
    if (!names) return -1;
    for (size_t i = d; i < nd; i++) names[i] = NULL;
    m->coord_names = names;
  }
  if (err) return -1;
  m->d = (int32_t)nd;
  return 0;
}

/* ------------------------------------------------------------- validate */

static int valid_enum(int v, int count) { return v >= 0 && v < count; }

static int validate_head(const hs_model *m, const hs_head *h, int32_t l,
                         int32_t i, hs_error *err) {
  if (!valid_enum((int)h->kind, HS_ATTN_COUNT_))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d.kind: invalid kind %d", l, i,
                (int)h->kind);
  if (!valid_enum((int)h->target, HS_ATTN_COUNT_))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d.target: invalid kind %d", l, i,
                (int)h->target);
  if (!valid_enum((int)h->mask, HS_MASK_COUNT_))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d.mask: invalid mask %d", l, i,
                (int)h->mask);
  if (!valid_enum((int)h->tau_law, HS_TAU_COUNT_))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d.tau_law: invalid law %d", l, i,
                (int)h->tau_law);
  /* tau divides the scores; a hard head never reads it */
  if (h->kind == HS_ATTN_SOFTMAX && !(isfinite(h->tau_c) && h->tau_c > 0))
    return hs_errorf(err, HS_ERR_FORMAT,
                "layers.%d.heads.%d.tau_c: %g, a softmax head needs a finite "
                "tau_c > 0", l, i, h->tau_c);
  if (!(h->bias_slope >= 0 && h->bias_slope <= 0x1p20f))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d.bias_slope: %g, expected a "
                "number in [0, 2^20]", l, i, (double)h->bias_slope);
  if (h->bias_slope > 0 &&
      (h->kind != HS_ATTN_SOFTMAX || h->mask == HS_MASK_NONE))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d.bias_slope: %g needs a softmax "
                "head with mask le, lt, ge or gt", l, i, (double)h->bias_slope);
  if (h->dk < 1 || h->dk > HS_ATTN_MAX_D || h->dv < 1 || h->dv > HS_ATTN_MAX_D)
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d: dk=%d dv=%d, both must be in "
                "[1, %d]", l, i, h->dk, h->dv, HS_ATTN_MAX_D);
  if (!h->wq || !h->wk || !h->wv || !h->wo)
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.heads.%d: missing weight matrix", l, i);
  (void)m;
  return 0;
}

static int validate_layer(const hs_model *m, int32_t l, hs_error *err) {
  const hs_layer *L = &m->layers[l];
  if (L->nheads < 0 || (L->nheads > 0 && !L->heads))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d: bad head count %d", l, L->nheads);
  for (int32_t i = 0; i < L->nheads; i++)
    if (validate_head(m, &L->heads[i], l, i, err)) return -1;
  if (L->hidden < 0)
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.hidden: %d < 0", l, L->hidden);
  if (L->hidden > 0 && (!L->w1 || !L->b1 || !L->w2 || !L->b2))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.ffn: missing weight matrix", l);
  if (L->ln_pairs < 0 || (int64_t)L->ln_pairs * 2 > L->hidden)
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.ln_pairs: %d pairs need %d hidden units, "
                "the layer has %d", l, L->ln_pairs, 2 * L->ln_pairs, L->hidden);
  if (!(L->ln_eps >= 0) || !isfinite(L->ln_eps))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.ln_eps: %g, must be finite and >= 0", l,
                L->ln_eps);
  if (L->ln_pairs > 0 && (!L->ln_g || !L->ln_b))
    return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.ln_gain/ln_bias: missing", l);
  for (int32_t k = 0; k < 2 * L->ln_pairs; k++)
    if (!isfinite(L->ln_g[k]) || !isfinite(L->ln_b[k]))
      return hs_errorf(err, HS_ERR_FORMAT, "layers.%d.ln_gain/ln_bias: element %d not finite",
                  l, k);
  return 0;
}

int hs_model_validate(const hs_model *m, hs_error *err) {
  if (!m) return hs_errorf(err, HS_ERR_FORMAT, "no model");
  if (m->d <= 0 || m->d > HS_MODEL_MAX_D)
    return hs_errorf(err, HS_ERR_FORMAT, "d: %d, must be in [1, %d]", m->d, HS_MODEL_MAX_D);
  if (!m->embed) return hs_errorf(err, HS_ERR_FORMAT, "embed: missing");
  if (m->out_coord < 0 || m->out_coord >= m->d)
    return hs_errorf(err, HS_ERR_FORMAT, "out_coord: %d out of range [0, %d)", m->out_coord,
                m->d);
  if (m->npf < 0 || (m->npf > 0 && !m->pf))
    return hs_errorf(err, HS_ERR_FORMAT, "pos_features: bad count %d", m->npf);
  for (int32_t i = 0; i < m->npf; i++) {
    const hs_posfeat *p = &m->pf[i];
    if (!valid_enum((int)p->kind, HS_PF_COUNT_))
      return hs_errorf(err, HS_ERR_FORMAT, "pos_features.%d.kind: invalid kind %d", i,
                  (int)p->kind);
    if (p->coord < 0 || p->coord >= m->d)
      return hs_errorf(err, HS_ERR_FORMAT, "pos_features.%d.coord: %d out of range [0, %d)",
                  i, p->coord, m->d);
    if (p->kind == HS_PF_MOD && (p->k < 1 || p->r < 0))
      return hs_errorf(err, HS_ERR_FORMAT, "pos_features.%d: mod needs k >= 1 and r >= 0 "
                  "(k=%lld r=%lld)", i, (long long)p->k, (long long)p->r);
  }
  if (m->nlayers < 0 || (m->nlayers > 0 && !m->layers))
    return hs_errorf(err, HS_ERR_FORMAT, "layers: bad count %d", m->nlayers);
  for (int32_t l = 0; l < m->nlayers; l++)
    if (validate_layer(m, l, err)) return -1;
  return 0;
}

/* ------------------------------------------------------------- builders */

static float *zeros(size_t n) { return calloc(n ? n : 1, sizeof(float)); }

hs_head *hs_model_add_head(hs_model *m, int32_t l, int32_t dk, int32_t dv) {
  if (!m || l < 0 || l >= m->nlayers || dk < 1 || dk > HS_ATTN_MAX_D ||
      dv < 1 || dv > HS_ATTN_MAX_D)
    return NULL;
  hs_layer *L = &m->layers[l];
  size_t d = (size_t)m->d;
  hs_head h = {.kind = HS_ATTN_SOFTMAX, .target = HS_ATTN_HARD_AVG,
               .mask = HS_MASK_NONE, .tau_law = HS_TAU_CONST, .tau_c = 1.0,
               .dk = dk, .dv = dv};
  h.wq = zeros((size_t)dk * d);
  h.wk = zeros((size_t)dk * d);
  h.wv = zeros((size_t)dv * d);
  h.wo = zeros(d * (size_t)dv);
  hs_head *grown = NULL;
  if (h.wq && h.wk && h.wv && h.wo)
    grown = realloc(L->heads, ((size_t)L->nheads + 1) * sizeof(hs_head));
  if (!grown) {
    head_free(&h);
    return NULL;
  }
  L->heads = grown;
  L->heads[L->nheads] = h;
  return &L->heads[L->nheads++];
}

int hs_model_set_ffn(hs_model *m, int32_t l, int32_t hidden) {
  if (!m || l < 0 || l >= m->nlayers || hidden < 0) return -1;
  hs_layer *L = &m->layers[l];
  size_t d = (size_t)m->d, hid = (size_t)hidden;
  float *w1 = NULL, *b1 = NULL, *w2 = NULL, *b2 = NULL;
  if (hidden > 0) {
    w1 = zeros(hid * d);
    b1 = zeros(hid);
    w2 = zeros(d * hid);
    b2 = zeros(d);
    if (!w1 || !b1 || !w2 || !b2) {
      free(w1);
      free(b1);
      free(w2);
      free(b2);
      return -1;
    }
  }
  free(L->w1);
  free(L->b1);
  free(L->w2);
  free(L->b2);
  L->w1 = w1;
  L->b1 = b1;
  L->w2 = w2;
  L->b2 = b2;
  L->hidden = hidden;
  return 0;
}

int hs_model_add_pf(hs_model *m, hs_pf_kind kind, int32_t coord, int64_t k,
                    int64_t r) {
  if (!m || !valid_enum((int)kind, HS_PF_COUNT_) || coord < 0 ||
      coord >= m->d || m->npf < 0)
    return -1;
  hs_posfeat *grown = realloc(m->pf, ((size_t)m->npf + 1) * sizeof *grown);
  if (!grown) return -1;
  m->pf = grown;
  m->pf[m->npf++] = (hs_posfeat){.kind = kind, .coord = coord, .k = k, .r = r};
  return 0;
}

/* ---- limits (include/hardsoft.h) -------------------------------------- */

static hs_limits limits = {(size_t)16 << 20, HS_DEFAULT_DEPTH, (size_t)64 << 20,
                           65536};

hs_limits hs_get_limits(void) { return limits; }
void hs_set_limits(const hs_limits *l) { limits = *l; }

/* ------------------------------------------------------------ vocabulary */

static int tok_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

int hs_model_vocab_set(hs_model *m, int32_t n, const char *const *tok,
                       const uint8_t *byte) {
  if (!m || n < 0 || n > 255 || (n && (!tok || !byte))) return -1;
  uint8_t seen[256] = {0};
  for (int32_t k = 0; k < n; k++) {
    if (!tok[k] || !tok[k][0] || seen[byte[k]]++) return -1;
    for (const char *c = tok[k]; *c; c++)
      if (tok_space(*c)) return -1;
    for (int32_t j = 0; j < k; j++)
      if (!strcmp(tok[j], tok[k])) return -1;
  }
  char **t = n ? calloc((size_t)n, sizeof *t) : NULL;
  uint8_t *b = n ? malloc((size_t)n) : NULL;
  int err = n && (!t || !b);
  for (int32_t k = 0; !err && k < n; k++) err = dup_str(&t[k], tok[k]);
  if (err) {
    for (int32_t k = 0; t && k < n; k++) free(t[k]);
    free(t);
    free(b);
    return -1;
  }
  if (n) memcpy(b, byte, (size_t)n);
  for (int32_t k = 0; k < m->nvocab && m->vocab_tok; k++) free(m->vocab_tok[k]);
  free(m->vocab_tok);
  free(m->vocab_byte);
  m->nvocab = n;
  m->vocab_tok = t;
  m->vocab_byte = b;
  return 0;
}

void hs_model_alphabet(const hs_model *m, uint8_t set[256]) {
  memset(set, 0, 256);
  for (int32_t k = 0; k < m->nvocab; k++) set[m->vocab_byte[k]] = 1;
  if (m->nvocab > 0) return;
  /* a column every byte shares (true, features) names nothing */
  for (int32_t c = 0; c < m->d; c++) {
    float v = m->embed[c];
    int shared = 1;
    for (int b = 1; b < 256 && shared; b++) shared = m->embed[(size_t)b * m->d + c] == v;
    for (int b = 0; b < 256 && !shared; b++)
      if (m->embed[(size_t)b * m->d + c] != 0) set[b] = 1;
  }
}

int hs_model_other_byte(const hs_model *m) {
  uint8_t set[256];
  hs_model_alphabet(m, set);
  int other = 255;
  while (other > 0 && set[other]) other--;
  return other;
}

int hs_model_encode(const hs_model *m, const char *line, size_t len, hs_unknown unknown,
                    uint8_t *out, size_t *n, hs_error *err) {
  if (!m || !n || (len && (!line || !out)))
    return hs_errorf(err, HS_ERR_ARG,
                     "hs_model_encode: NULL argument");
  hs_tokens t = {m->nvocab, m->vocab_tok, m->vocab_byte, (uint8_t)hs_model_other_byte(m),
                 m->nvocab == 0};
  return hs_tokens_encode(&t, line, len, unknown, out, n, err);
}

size_t hs_model_tokenize(const hs_model *m, const char *line, size_t len,
                         uint8_t *out) {
  size_t n = 0;
  return hs_model_encode(m, line, len, HS_UNKNOWN_OTHER, out, &n, NULL) ? 0 : n;
}
