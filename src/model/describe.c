/* SPDX-License-Identifier: MIT */
/* A person's description of a model (what `hardsoft compile --print` and
 * the Python package's Model.describe() print) and the model's metadata
 * for callers that cannot read struct hs_model (hs_model_get_info,
 * hs_model_head_info). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* Text appended to a caller's buffer, snprintf-style: `at` counts every
 * byte asked for, so the caller learns the full length even when the
 * buffer is short (or NULL). */
typedef struct text { char *buf; size_t len, at; } text;

__attribute__((format(printf, 2, 3)))
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *dst = t->buf && t->at < t->len ? t->buf + t->at : NULL;
  size_t room = dst ? t->len - t->at : 0;
  int k = vsnprintf(dst, room, fmt, ap);
  va_end(ap);
  if (k > 0) t->at += (size_t)k;
}

static const char *tau_text(const hs_head *H, char *buf, size_t len) {
  switch (H->tau_law) {
    case HS_TAU_INV_N: snprintf(buf, len, "tau(n) = %g/n", H->tau_c); break;
    case HS_TAU_INV_NLOGN: snprintf(buf, len, "tau(n) = %g/(n ln(n+1))", H->tau_c); break;
    default: snprintf(buf, len, "tau = %g", H->tau_c); break;
  }
  size_t at = strlen(buf);
  if (H->bias_slope > 0 && at < len)
    snprintf(buf + at, len - at, ", bias -%g |i - j| (BOS at %s)",
             (double)H->bias_slope,
             H->mask == HS_MASK_GE || H->mask == HS_MASK_GT ? "n + 1" : "0");
  return buf;
}

static void describe_layers(text *t, const hs_model *m) {
  char buf[128];
  for (int l = 0; l < m->nlayers; l++) {
    const hs_layer *L = &m->layers[l];
    put(t, "layer %d:\n", l);
    for (int h = 0; h < L->nheads; h++) {
      const hs_head *H = &L->heads[h];
      put(t, "  head %d: %s", h, hs_attn_kind_name(H->kind));
      if (H->kind == HS_ATTN_SOFTMAX && H->target == HS_ATTN_SOFTMAX)
        put(t, " (%s, no hard counterpart)", tau_text(H, buf, sizeof buf));
      else if (H->kind == HS_ATTN_SOFTMAX)
        put(t, " (%s, standing in for %s)", tau_text(H, buf, sizeof buf),
            hs_attn_kind_name(H->target));
      put(t, ", mask %s, dk = %d, dv = %d\n", hs_mask_name(H->mask), H->dk, H->dv);
      if (H->desc) put(t, "          %s\n", H->desc);
    }
    if (L->hidden)
      put(t, "  feed-forward: %d ReLU unit%s\n", L->hidden, L->hidden == 1 ? "" : "s");
  }
}

/* The region where the answer is proven, also in finite precision, or
 * NULL (hard mode, models from elsewhere). */
const char *hs_model_exact_region(const hs_model *m) {
  if (!m->mode) return NULL;
  if (!strcmp(m->mode, "fixed"))
    return "n <= mu / ln 7 in exact arithmetic; in f32 while absolute positions "
           "fit 24 bits (n <= 2^23); f16/bf16 far less (hardsoft boundary measures it)";
  if (!strcmp(m->mode, "pe") || !strcmp(m->mode, "temp"))
    return "mu >= the smallest exact mu, every n in exact arithmetic; in f32 while "
           "absolute positions fit 24 bits (n <= 2^23); f16/bf16 far less "
           "(hardsoft boundary measures it)";
  if (!strcmp(m->mode, "rel"))
    return "mu >= the smallest exact mu, every n in exact arithmetic; relative "
           "positions keep it in f16/bf16 far beyond pe (hardsoft boundary)";
  return NULL;
}

static void describe_region(text *t, const hs_model *m) {
  const char *region = hs_model_exact_region(m);
  if (region) put(t, "exact region: %s\n", region);
  double n32 = hs_model_count_max_n(m, 24);
  if (isfinite(n32))
    put(t, "exact region of the counting comparisons: n <= %.0f in f32, n <= %.0f in "
        "f64 (where the rounding of every count and product stays within the "
        "sign's half-unit margin: docs/LANGUAGE.md, \"Exact region\")\n",
        n32, hs_model_count_max_n(m, 53));
}

/* The vocabulary, and which byte stands for the tokens it does not name:
 * they are refused unless the caller asks for `other` (hs_model_encode). */
static void describe_vocab(text *t, const hs_model *m) {
  if (m->nvocab == 0) return;
  put(t, "vocabulary: %d token%s (byte):", m->nvocab, m->nvocab == 1 ? "" : "s");
  for (int32_t k = 0; k < m->nvocab; k++)
    put(t, " %s (0x%02x)", m->vocab_tok[k], m->vocab_byte[k]);
  put(t, "\nother: byte 0x%02x stands for every token the vocabulary does not "
      "name, when unknown tokens are allowed (they are refused otherwise)\n",
      hs_model_other_byte(m));
}

size_t hs_model_describe(const hs_model *m, char *buf, size_t len) {
  text t = {buf, len, 0};
  if (buf && len) buf[0] = 0;
  int heads = hs_model_nheads(m);
  if (m->formula) put(&t, "formula: %s\n", m->formula);
  if (m->mode && strcmp(m->mode, "hard")) put(&t, "mode: %s (scale mu = %g)\n", m->mode, m->scale);
  else if (m->mode) put(&t, "mode: %s\n", m->mode);
  put(&t, "width d = %d, layers = %d, attention heads = %d\n", m->d, m->nlayers, heads);
  describe_layers(&t, m);
  put(&t, "output: x[%d]", m->out_coord);
  if (m->coord_names && m->coord_names[m->out_coord])
    put(&t, " (%s)", m->coord_names[m->out_coord]);
  put(&t, " > 1/2\n");
  if (m->bound_desc) put(&t, "bound: %s\n", m->bound_desc);
  if (m->min_scale > 0) put(&t, "smallest exact mu: %.4f\n", m->min_scale);
  else if (m->min_scale < 0) put(&t, "smallest exact mu: none (depends on n)\n");
  describe_region(&t, m);
  describe_vocab(&t, m);
  if (m->coord_names) {
    put(&t, "coordinates:\n");
    for (int c = 0; c < m->d; c++)
      put(&t, "  x[%d] %s\n", c, m->coord_names[c] ? m->coord_names[c] : "");
  }
  return t.at;
}

const char *hs_model_mode(const hs_model *m) { return m->mode; }
const char *hs_model_bound_desc(const hs_model *m) { return m->bound_desc; }
int hs_model_vocab_size(const hs_model *m) { return m ? m->nvocab : 0; }

const char *hs_model_vocab_token(const hs_model *m, int k) {
  return m && k >= 0 && k < m->nvocab ? m->vocab_tok[k] : NULL;
}

int hs_model_vocab_byte(const hs_model *m, int k) {
  return m && k >= 0 && k < m->nvocab ? m->vocab_byte[k] : -1;
}

const char *hs_model_coord_name(const hs_model *m, int k) {
  return m->coord_names && k >= 0 && k < m->d ? m->coord_names[k] : NULL;
}

int hs_model_layer_hidden(const hs_model *m, int layer) {
  if (layer < 0 || layer >= m->nlayers) return -1;
  return m->layers[layer].hidden;
}

void hs_model_get_info(const hs_model *m, hs_model_info *info) {
  memset(info, 0, sizeof *info);
  info->d = m->d;
  info->nlayers = m->nlayers;
  info->nheads = hs_model_nheads(m);
  info->out_coord = m->out_coord;
  info->scale = m->scale;
  info->bound = m->bound;
  info->min_scale = m->min_scale;
  info->mode = m->mode ? m->mode : "custom";
  info->formula = m->formula;
}

int hs_model_layer_nheads(const hs_model *m, int layer) {
  if (layer < 0 || layer >= m->nlayers) return -1;
  return m->layers[layer].nheads;
}

int hs_model_head_info(const hs_model *m, int layer, int head,
                       hs_head_info *info) {
  memset(info, 0, sizeof *info);
  if (hs_model_layer_nheads(m, layer) <= head || head < 0) return -1;
  const hs_head *H = &m->layers[layer].heads[head];
  info->kind = hs_attn_kind_name(H->kind);
  info->target = hs_attn_kind_name(H->target);
  info->mask = hs_mask_name(H->mask);
  info->tau_law = hs_tau_law_name(H->tau_law);
  info->tau_c = H->tau_c;
  info->bias_slope = H->bias_slope;
  info->dk = H->dk;
  info->dv = H->dv;
  info->desc = H->desc;
  return 0;
}
