/* SPDX-License-Identifier: MIT */
/* --json: the commands' results as one JSON document on standard output,
 * for scripts. The same information as the text output, in fields named
 * after it. Numbers that JSON cannot hold (infinity, NaN) are the strings
 * "inf", "-inf" and "nan", as in model files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hardsoft/kernels.h"
#include "cli/cli.h"

cJSON *cli_json_num(cJSON *o, const char *key, double v) {
  if (isfinite(v)) return cJSON_AddNumberToObject(o, key, v);
  return cJSON_AddStringToObject(o, key, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

/* s[0..n) as a JSON string: every byte that breaks UTF-8, and NUL, as '?'
 * (JSON readers reject invalid UTF-8; the length is in "n"). */
cJSON *cli_json_text(const uint8_t *s, size_t n) {
  char *t = malloc(n + 1);
  if (!t) return NULL;
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
             : (c & 0xf8) == 0xf0 ? 3 : 9;
    int ok = c != 0 && k < 9 && i + k < n && !(c == 0xc0 || c == 0xc1 || c > 0xf4);
    unsigned cp = k == 1 ? c & 0x1f : k == 2 ? c & 0x0f : c & 0x07;
    for (size_t j = 1; ok && j <= k; j++) {
      ok = (s[i + j] & 0xc0) == 0x80;
      cp = cp << 6 | (s[i + j] & 0x3f);
    }
    /* overlong forms, surrogates, beyond U+10FFFF */
    if (ok && k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ok = 0;
    if (ok && k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ok = 0;
    if (!ok) {
      t[i++] = '?';
      continue;
    }
    memcpy(t + i, s + i, k + 1);
    i += k + 1;
  }
  t[n] = 0;
  cJSON *j = cJSON_CreateString(t);
  free(t);
  return j;
}

int cli_json_print(cJSON *doc) {
  char *t = cJSON_PrintUnformatted(doc);
  if (!t) return cli_error("out of memory writing JSON");
  puts(t);
  free(t);
  return 0;
}

static void add_run_opts(cJSON *o, const cli_opts *c) {
  cJSON_AddStringToObject(o, "precision", c->prec == HS_PREC_F64 ? "f64" : "f32");
  cJSON_AddStringToObject(o, "isa", hs_isa_name(c->kt->isa));
}

cJSON *cli_json_run_header(const cli_opts *o, const char *text, const hs_model *m) {
  cJSON *d = cJSON_CreateObject();
  if (!d) return NULL;
  cJSON_AddStringToObject(d, "command", o->cmd);
  hs_model_info mi = {0};
  if (m) hs_model_get_info(m, &mi);
  const char *mode = m ? hs_model_mode(m) : NULL;
  if (text) cJSON_AddStringToObject(d, "formula", text);
  else if (m && mi.formula) cJSON_AddStringToObject(d, "formula", mi.formula);
  if (!m) cJSON_AddStringToObject(d, "mode", "truth");
  else if (mode) cJSON_AddStringToObject(d, "mode", mode);
  if (mode && strcmp(mode, "hard")) cli_json_num(d, "scale", mi.scale);
  if (m) add_run_opts(d, o);
  cJSON_AddBoolToObject(d, "last_only", o->last);
  return d;
}

/* One input: its text, length, the bits as a string of 0/1 (only the last
 * position's with --last) and, from a model, the output coordinate's
 * values (a decision is value > 1/2). */
int cli_json_result(cJSON *arr, const cli_opts *o, const uint8_t *s, size_t n,
                    const uint8_t *bits, const double *values) {
  cJSON *r = cJSON_CreateObject(), *in = cli_json_text(s, n);
  size_t from = o->last && n ? n - 1 : 0, k = n - from;
  char *b = malloc(k + 1);
  cJSON *v = values ? cJSON_CreateArray() : NULL;
  if (!r || !in || !b || (values && !v)) {
    cJSON_Delete(r), cJSON_Delete(in), cJSON_Delete(v), free(b);
    return cli_error("out of memory writing JSON for a string of %zu symbols", n);
  }
  for (size_t i = 0; i < k; i++) b[i] = bits[from + i] ? '1' : '0';
  b[k] = 0;
  cJSON_AddItemToObject(r, "input", in);
  cJSON_AddNumberToObject(r, "n", (double)n);
  cJSON_AddStringToObject(r, "bits", b);
  free(b);
  for (size_t i = 0; v && i < k; i++) {
    double x = values[from + i];
    cJSON_AddItemToArray(v, isfinite(x) ? cJSON_CreateNumber(x)
                                        : cJSON_CreateString(isnan(x) ? "nan" : x > 0 ? "inf" : "-inf"));
  }
  if (v) cJSON_AddItemToObject(r, "values", v);
  cJSON_AddItemToArray(arr, r);
  return 0;
}

static const char *tau_law_text(const hs_head_info *H) {
  return !strcmp(H->tau_law, "inv_n") ? "tau(n) = c/n"
         : !strcmp(H->tau_law, "inv_nlogn") ? "tau(n) = c/(n ln(n+1))" : "tau = c";
}

static cJSON *json_head(const hs_head_info *H) {
  cJSON *h = cJSON_CreateObject();
  if (!h) return NULL;
  cJSON_AddStringToObject(h, "kind", H->kind);
  if (!strcmp(H->kind, "softmax")) {
    cJSON_AddStringToObject(h, "target", H->target);
    cJSON_AddStringToObject(h, "tau_law", H->tau_law);
    cJSON_AddStringToObject(h, "tau_law_text", tau_law_text(H));
    cli_json_num(h, "tau_c", H->tau_c);
  }
  cJSON_AddStringToObject(h, "mask", H->mask);
  cJSON_AddNumberToObject(h, "dk", H->dk);
  cJSON_AddNumberToObject(h, "dv", H->dv);
  if (H->bias_slope > 0) cli_json_num(h, "bias_slope", H->bias_slope);
  if (H->desc) cJSON_AddStringToObject(h, "desc", H->desc);
  return h;
}

/* compile --print --json: the model's description. */
cJSON *cli_json_model(const hs_model *m) {
  cJSON *d = cJSON_CreateObject(), *layers = cJSON_CreateArray();
  if (!d || !layers) {
    cJSON_Delete(d), cJSON_Delete(layers);
    return NULL;
  }
  hs_model_info mi;
  hs_model_get_info(m, &mi);
  const char *mode = hs_model_mode(m);
  if (mi.formula) cJSON_AddStringToObject(d, "formula", mi.formula);
  if (mode) cJSON_AddStringToObject(d, "mode", mode);
  if (mode && strcmp(mode, "hard")) cli_json_num(d, "scale", mi.scale);
  cJSON_AddNumberToObject(d, "d", mi.d);
  for (int l = 0; l < mi.nlayers; l++) {
    cJSON *lj = cJSON_CreateObject(), *heads = cJSON_CreateArray();
    for (int h = 0; lj && heads && h < hs_model_layer_nheads(m, l); h++) {
      hs_head_info H;
      hs_model_head_info(m, l, h, &H);
      cJSON_AddItemToArray(heads, json_head(&H));
    }
    cJSON_AddItemToObject(lj, "heads", heads);
    cJSON_AddNumberToObject(lj, "hidden", hs_model_layer_hidden(m, l));
    cJSON_AddItemToArray(layers, lj);
  }
  cJSON_AddItemToObject(d, "layers", layers);
  cJSON_AddNumberToObject(d, "out_coord", mi.out_coord);
  cli_json_num(d, "bound", mi.bound);
  if (hs_model_bound_desc(m)) cJSON_AddStringToObject(d, "bound_desc", hs_model_bound_desc(m));
  if (mi.min_scale > 0) cli_json_num(d, "min_exact_scale", mi.min_scale);
  else if (mi.min_scale < 0) cJSON_AddStringToObject(d, "min_exact_scale", "depends on n");
  else cJSON_AddNullToObject(d, "min_exact_scale");
  const char *region = hs_model_exact_region(m);
  if (region) cJSON_AddStringToObject(d, "exact_region", region);
  if (isfinite(hs_model_count_max_n(m, 24))) {
    cJSON *r = cJSON_AddObjectToObject(d, "count_exact_n");
    cJSON_AddNumberToObject(r, "f32", hs_model_count_max_n(m, 24));
    cJSON_AddNumberToObject(r, "f64", hs_model_count_max_n(m, 53));
  }
  if (hs_model_vocab_size(m) > 0) {
    /* [token, byte] pairs, as the model file keeps them, and `other` */
    cJSON *v = cJSON_AddArrayToObject(d, "vocab");
    for (int k = 0; v && k < hs_model_vocab_size(m); k++) {
      cJSON *pair = cJSON_CreateArray();
      cJSON_AddItemToArray(pair, cJSON_CreateString(hs_model_vocab_token(m, k)));
      cJSON_AddItemToArray(pair, cJSON_CreateNumber(hs_model_vocab_byte(m, k)));
      cJSON_AddItemToArray(v, pair);
    }
    cJSON_AddNumberToObject(d, "other_byte", hs_model_other_byte(m));
  }
  int named = 0;
  for (int k = 0; k < mi.d; k++) named |= hs_model_coord_name(m, k) != NULL;
  if (named) {
    cJSON *c = cJSON_AddArrayToObject(d, "coordinates");
    for (int k = 0; c && k < mi.d; k++) {
      const char *name = hs_model_coord_name(m, k);
      cJSON_AddItemToArray(c, name ? cJSON_CreateString(name) : cJSON_CreateNull());
    }
  }
  return d;
}
