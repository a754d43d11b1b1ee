/* SPDX-License-Identifier: MIT */
/* The page's binding to the library (built to WebAssembly by `make web`).
 * It uses only the public header: everything here turns a call that takes
 * structs (options, results, hs_error) into one that JavaScript can make
 * with numbers, strings and buffers it allocated itself. Calls without
 * structs (hs_attention, hs_program_token, ...) are exported as they are
 * and called from web/app.js directly.
 *
 * One view at a time is one hsweb: a parsed program, its model compiled
 * in one mode and scale, and the text `compile --print` shows. Failures
 * leave the library's hs_error in one place, read by hsweb_error_*. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardsoft.h"

typedef struct hsweb {
  hs_program *p;
  hs_model *m;
  char *describe;
} hsweb;

static hs_error last;
static char hint[96]; /* after last.msg: the language a text parses in */

const char *hsweb_error_msg(void) { return last.msg; }
const char *hsweb_error_hint(void) { return hint; }
int hsweb_error_line(void) { return last.line; }
int hsweb_error_column(void) { return last.column; }
const char *hsweb_error_kind(void) { return hs_strerror(last.code); }
/* for calls from app.js that take an hs_error * themselves */
hs_error *hsweb_error(void) { return &last; }

static void fail(hs_errcode code, const char *msg) {
  memset(&last, 0, sizeof last);
  last.code = code;
  strncpy(last.msg, msg, sizeof last.msg - 1);
}

void hsweb_free(hsweb *h) {
  if (!h) return;
  hs_model_free(h->m);
  hs_program_free(h->p);
  free(h->describe);
  free(h);
}

/* The parser's nesting limit, lowered to what the module's stack holds
 * (about 4 KiB a level; WEB_STACK in the Makefile is 8 MiB): past it a
 * formula is refused with a message instead of overflowing the stack. */
#define WEB_MAX_DEPTH 1000

/* Parse `text` in lang ("ltl", "crasp", "brasp", "regex") and compile it in mode
 * ("hard", "pe", ...) at scale mu; NULL with the error kept. */
hsweb *hsweb_new(const char *lang, const char *text, const char *mode, double mu) {
  int l = hs_lang_parse(lang), md = hs_mode_parse(mode);
  memset(&last, 0, sizeof last);
  hint[0] = 0;
  hs_limits lim = hs_get_limits();
  if (lim.max_depth > WEB_MAX_DEPTH) {
    lim.max_depth = WEB_MAX_DEPTH;
    hs_set_limits(&lim);
  }
  if (l < 0) return fail(HS_ERR_ARG, "unknown language (expected ltl, crasp, brasp or regex)"), NULL;
  if (md < 0) return fail(HS_ERR_ARG, "unknown mode (expected hard, pe, temp, fixed or rel)"), NULL;
  hsweb *h = calloc(1, sizeof *h);
  if (!h) return fail(HS_ERR_NOMEM, "out of memory"), NULL;
  hs_compile_opts o = {.mode = (hs_mode)md, .scale = mu, .sign = HS_SIGN_LAYERNORM};
  h->p = hs_program_parse(text, strlen(text), (hs_lang)l, &last);
  int other = h->p ? -1 : hs_lang_other(text, strlen(text), (hs_lang)l);
  static const char *const names[] = {"a formula (LTL)", "C-RASP", "B-RASP", "a regular expression"};
  if (other >= 0) snprintf(hint, sizeof hint, " (it parses as %s: choose it as the language)", names[other]);
  if (h->p && hs_program_lowered(h->p, &last) == 0)
    h->m = hs_program_compile(h->p, &o, &last);
  if (h->m && hs_program_lang(h->p) != HS_LANG_LTL && hs_model_set_vocab(h->m, h->p, &last) != 0) {
    hsweb_free(h);
    return NULL;
  }
  if (h->m) { /* a regular expression's class and witness, then the model */
    size_t ex = hs_program_explain(h->p, NULL, 0), len = ex + hs_model_describe(h->m, NULL, 0) + 1;
    h->describe = malloc(len);
    if (h->describe) {
      hs_program_explain(h->p, h->describe, ex + 1);
      hs_model_describe(h->m, h->describe + ex, len - ex);
    } else {
      fail(HS_ERR_NOMEM, "out of memory");
    }
  }
  if (!h->describe) {
    hsweb_free(h);
    return NULL;
  }
  return h;
}

const hs_program *hsweb_program(const hsweb *h) { return h->p; }
const hs_model *hsweb_model(const hsweb *h) { return h->m; }
const char *hsweb_describe(const hsweb *h) { return h->describe; }

/* The model's decisions (bits, values) and the language's own answer
 * (truth) at positions 1..n of w, in `precision` ("f32", "f64", "f16",
 * "bf16", "f16s", "bf16s"); *attn_error gets the largest weight any layer
 * put off its hard target. 0, or -1 with the error kept. */
int hsweb_run(const hsweb *h, const uint8_t *w, size_t n, const char *precision,
              uint8_t *bits, double *values, uint8_t *truth, double *attn_error) {
  hs_run_opts o = {.want_attn_error = 1, .threads = 1};
  if (hs_precision_parse(precision, &o.precision, &o.score_round, &o.qkv_round) != 0)
    return fail(HS_ERR_ARG, "unknown precision"), -1;
  hs_run_result r;
  if (hs_program_truth(h->p, w, n, truth, &last) != 0) return -1;
  if (hs_forward(h->m, w, n, &o, &r, &last) != 0) return -1;
  if (n) {
    memcpy(bits, r.bits, n);
    memcpy(values, r.values, n * sizeof *values);
  }
  *attn_error = 0;
  for (int l = 0; hs_model_layer_nheads(h->m, l) >= 0; l++)
    if (r.attn_error[l] > *attn_error) *attn_error = r.attn_error[l];
  hs_run_result_free(&r);
  return 0;
}

/* Why the view's answer over n symbols in `precision` is not proven
 * (hs_model_unproven), or "" when it is. The text lives until the next
 * call. */
const char *hsweb_unproven(const hsweb *h, size_t n, const char *precision) {
  static char buf[512];
  hs_precision p = HS_PREC_F32;
  hs_score_round s, q;
  hs_precision_parse(precision, &p, &s, &q);
  hs_model_unproven(h->m, n, p, buf, sizeof buf);
  return buf;
}

/* One head in words: its kind, mask, temperature law and what it attends
 * to; "" when there is no such head. The text lives until the next call. */
const char *hsweb_head_desc(const hsweb *h, int layer, int head) {
  static char buf[384];
  hs_head_info hi;
  buf[0] = 0;
  if (hs_model_head_info(h->m, layer, head, &hi) == 0)
    snprintf(buf, sizeof buf, "%s, mask %s%s%s%s%s", hi.kind, hi.mask,
             strcmp(hi.kind, "softmax") == 0 ? ", tau " : "",
             strcmp(hi.kind, "softmax") == 0 ? hi.tau_law : "",
             hi.desc ? ": " : "", hi.desc ? hi.desc : "");
  return buf;
}

/* The model's scale, error bound and smallest exact scale
 * (hs_model_info), as one number each. */
double hsweb_info(const hsweb *h, int which) {
  hs_model_info in;
  hs_model_get_info(h->m, &in);
  return which == 0 ? in.scale : which == 1 ? in.bound : in.min_scale;
}
