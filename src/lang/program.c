/* SPDX-License-Identifier: MIT */
/* Programs in any front-end language (include/hardsoft.h, "programs"):
 * one struct, one switch per operation. A RASP-like language (parser,
 * interpreter, lowering with the shape of src/lang/crasp/crasp.h) is one
 * case in each switch of the "front ends" block below and nothing else:
 * its lowering produces the circuit hs_program_compile compiles (an LTL
 * program is its formula, which hs_compile lowers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "circuit/circuit.h"
#include "lang/brasp/brasp.h"
#include "lang/crasp/crasp.h"
#include "lang/lang.h"
#include "lang/ltl/formula.h"
#include "lang/regex/regex.h"
#include "model/model.h"

struct hs_program {
  hs_lang lang;
  hs_formula *f;   /* LTL: the formula, its own lowering; NULL otherwise */
  hs_prebuilt *pre; /* the others: the circuit built when read, NULL when
                      the lowering failed (lower_err says why: the
                      interpreter does not need it) or, for a regular
                      expression, was refused (hs_regex_refusal) */
  int lowered;     /* the lowering ran to its end (built or refused) */
  hs_error lower_err;
  hs_vocab vocab;  /* empty for LTL: bytes are themselves */
  void *rasp;      /* the parsed program of a RASP language, NULL for LTL */
};

/* ------------------------------------------------------------ front ends */

/* Parse, then lower; 0, or -1 with err filled. A lowering that fails
 * for a limit of its own (cases, depth, coefficients) leaves the program
 * without a formula but whole: its interpreter runs it (--mode truth,
 * --trace), and hs_program_lowered says why it does not compile.
 * alphabet: a regular expression's --alphabet (NULL: none). */
static int rasp_parse(hs_program *p, const char *text, size_t len, const char *alphabet,
                      hs_error *err) {
  switch (p->lang) {
  case HS_LANG_CRASP:
    if (!(p->rasp = hs_crasp_parse(text, len, &p->vocab, err))) return -1;
    p->pre = hs_crasp_lower(p->rasp, &p->vocab, &p->lower_err);
    p->lowered = p->pre != NULL;
    break;
  case HS_LANG_BRASP:
    if (!(p->rasp = hs_brasp_parse(text, len, &p->vocab, err))) return -1;
    p->pre = hs_brasp_lower(p->rasp, &p->lower_err);
    p->lowered = p->pre != NULL;
    break;
  case HS_LANG_REGEX:
    if (!(p->rasp = hs_regex_parse(text, len, alphabet, &p->vocab, err))) return -1;
    p->lowered = hs_regex_lower(p->rasp, &p->pre, &p->lower_err) == 0;
    break;
  default:
    hs_errorf(err, HS_ERR_ARG, "unknown language (ltl, crasp or brasp)");
    return -1;
  }
  if (p->lowered || p->lower_err.code != HS_ERR_NOMEM) return 0;
  *err = p->lower_err;
  return -1;
}

static int rasp_nstmts(const hs_program *p) {
  switch (p->lang) {
  case HS_LANG_CRASP: return hs_crasp_nstmts(p->rasp);
  case HS_LANG_BRASP: return hs_brasp_nstmts(p->rasp);
  case HS_LANG_REGEX: return 2;
  default: return 0;
  }
}

static const char *rasp_stmt_name(const hs_program *p, int k) {
  switch (p->lang) {
  case HS_LANG_CRASP: return hs_crasp_stmt_name(p->rasp, k);
  case HS_LANG_BRASP: return hs_brasp_stmt_name(p->rasp, k);
  case HS_LANG_REGEX: return k == 0 ? "state" : k == 1 ? "accept" : NULL;
  default: return NULL;
  }
}

/* 0, or -1 with err filled. */
static int rasp_eval_all(const hs_program *p, const uint8_t *w, size_t n,
                         int64_t *vals, hs_error *err) {
  switch (p->lang) {
  case HS_LANG_CRASP: return hs_crasp_eval_all(p->rasp, w, n, vals, err);
  case HS_LANG_BRASP:
    if (hs_brasp_eval_all(p->rasp, w, n, vals) == 0) return 0;
    return hs_errorf(err, HS_ERR_NOMEM, "out of memory running the program on %zu tokens", n);
  case HS_LANG_REGEX:
    if (hs_regex_eval_all(p->rasp, w, n, vals) == 0) return 0;
    return hs_errorf(err, HS_ERR_NOMEM, "out of memory running the expression on %zu symbols", n);
  default: return hs_errorf(err, HS_ERR_ARG, "unknown language");
  }
}

static void rasp_free(hs_program *p) {
  switch (p->lang) {
  case HS_LANG_CRASP: hs_crasp_free(p->rasp); break;
  case HS_LANG_BRASP: hs_brasp_free(p->rasp); break;
  case HS_LANG_REGEX: hs_regex_free(p->rasp); break;
  default: break;
  }
  p->rasp = NULL;
}

/* ------------------------------------------------------------ programs */

static const char *const names[] = {"ltl", "crasp", "brasp", "regex"};

int hs_lang_parse(const char *name) {
  for (int k = 0; name && k < 4; k++)
    if (!strcmp(name, names[k])) return k;
  return -1;
}

const char *hs_lang_name(hs_lang lang) {
  return (int)lang >= 0 && lang <= HS_LANG_REGEX ? names[lang] : "unknown";
}

static int ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && !strcmp(s + n - m, suf);
}

hs_lang hs_lang_from_path(const char *path) {
  if (!path) return HS_LANG_LTL;
  if (ends_with(path, ".cr") || ends_with(path, ".crasp")) return HS_LANG_CRASP;
  if (ends_with(path, ".brasp")) return HS_LANG_BRASP;
  if (ends_with(path, ".re")) return HS_LANG_REGEX;
  return HS_LANG_LTL;
}

void hs_program_free(hs_program *p) {
  if (!p) return;
  hs_formula_free(p->f);
  hs_prebuilt_free(p->pre);
  rasp_free(p);
  hs_vocab_free(&p->vocab);
  free(p);
}

static hs_formula *parse_ltl(const char *text, size_t len, hs_error *err) {
  if (memchr(text, 0, len)) {
    int column = (int)((const char *)memchr(text, 0, len) - text) + 1;
    hs_error_at(err, HS_ERR_PARSE, 0, column, "NUL byte in the formula at column %d", column);
    return NULL;
  }
  char *z = malloc(len + 1);
  if (!z) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory");
    return NULL;
  }
  memcpy(z, text, len);
  z[len] = 0;
  hs_formula *f = hs_formula_parse(z, err);
  free(z);
  return f;
}

static hs_program *program_parse(const char *text, size_t len, hs_lang lang,
                                 const char *alphabet, hs_error *err) {
  hs_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  if (!text) {
    hs_errorf(err, HS_ERR_ARG, "no program");
    return NULL;
  }
  hs_program *p = calloc(1, sizeof *p);
  if (!p) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory");
    return NULL;
  }
  p->lang = lang;
  if ((int)lang < HS_LANG_LTL || lang > HS_LANG_REGEX)
    hs_errorf(err, HS_ERR_ARG, "unknown language %d", (int)lang);
  else if (lang == HS_LANG_LTL)
    p->f = parse_ltl(text, len, err);
  else if (rasp_parse(p, text, len, alphabet, err))
    hs_prebuilt_free(p->pre), p->pre = NULL, rasp_free(p);
  if (!p->f && !p->rasp) {
    hs_program_free(p);
    return NULL;
  }
  return p;
}

/* Nearly any short text is a regular expression ("a b", "x = y"), so a
 * text is said to be one only when it holds an operator only regular
 * expressions have ((aa)*, [ab]+, a{2}, a?) and was given as a formula. */
static int regex_meant(const char *text, size_t len, hs_lang lang) {
  if (lang != HS_LANG_LTL || !(memchr(text, '*', len) || memchr(text, '+', len) ||
                               memchr(text, '[', len) || memchr(text, '{', len) ||
                               memchr(text, '?', len)))
    return 0;
  hs_error e;
  hs_program *p = hs_program_parse(text, len, HS_LANG_REGEX, &e);
  hs_program_free(p);
  return p != NULL;
}

int hs_lang_other(const char *text, size_t len, hs_lang lang) {
  for (int l = HS_LANG_LTL; l <= HS_LANG_BRASP; l++) {
    if (l == (int)lang) continue;
    hs_error e;
    hs_program *p = hs_program_parse(text, len, (hs_lang)l, &e);
    hs_program_free(p);
    if (p) return l;
  }
  return regex_meant(text, len, lang) ? HS_LANG_REGEX : -1;
}

hs_program *hs_program_parse(const char *text, size_t len, hs_lang lang,
                             hs_error *err) {
  return program_parse(text, len, lang, NULL, err);
}

hs_program *hs_program_parse_regex(const char *text, size_t len, const char *alphabet,
                                   hs_error *err) {
  return program_parse(text, len, HS_LANG_REGEX, alphabet, err);
}

size_t hs_program_explain(const hs_program *p, char *buf, size_t len) {
  if (buf && len) buf[0] = 0;
  return p && p->lang == HS_LANG_REGEX ? hs_regex_explain(p->rasp, buf, len) : 0;
}

hs_lang hs_program_lang(const hs_program *p) { return p->lang; }
const hs_prebuilt *hs_program_circuit(const hs_program *p) { return p ? p->pre : NULL; }

int hs_program_lowered(const hs_program *p, hs_error *err) {
  if (!p)
    return hs_errorf(err, HS_ERR_ARG, "hs_program_lowered: NULL argument");
  if (p->f || p->lowered) return 0;
  if (err) *err = p->lower_err;
  return -1;
}

hs_model *hs_program_compile(const hs_program *p, const hs_compile_opts *o, hs_error *err) {
  if (!p || !o) {
    hs_errorf(err, HS_ERR_ARG, "hs_program_compile: NULL argument");
    return NULL;
  }
  if (p->f) return hs_compile(p->f, o, err);
  if (hs_program_lowered(p, err)) return NULL;
  if ((unsigned)o->mode >= HS_MODE_COUNT_) {
    hs_errorf(err, HS_ERR_ARG, "unknown mode");
    return NULL;
  }
  if (!p->pre) {
    hs_errorf(err, HS_ERR_UNSUPPORTED, "%s", hs_regex_refusal(p->rasp));
    return NULL;
  }
  return hs_compile_circuit(p->pre, o, err);
}

const char *hs_program_text(const hs_program *p) {
  if (!p) return NULL;
  if (p->f) return hs_formula_text(p->f);
  if (p->pre) return p->pre->text;
  return p->lowered && p->lang == HS_LANG_REGEX ? hs_regex_text(p->rasp) : NULL;
}

void hs_program_alphabet(const hs_program *p, uint8_t set[256]) {
  memset(set, 0, 256);
  if (p && p->f) hs_formula_alphabet(p->f, set);
  for (int i = 0; p && p->pre && i < p->pre->C.n; i++)
    if (p->pre->C.c[i].kind == HS_C_ATOM) set[p->pre->C.c[i].sym] = 1;
}

int hs_program_nstmts(const hs_program *p) {
  if (!p) return 0;
  return p->rasp ? rasp_nstmts(p) : 1;
}

const char *hs_program_stmt_name(const hs_program *p, int k) {
  if (!p) return NULL;
  if (p->rasp) return rasp_stmt_name(p, k);
  return k == 0 ? "formula" : NULL;
}

int hs_program_trace(const hs_program *p, const uint8_t *w, size_t n,
                     int64_t *vals, hs_error *err) {
  if (!p || (n && (!w || !vals)))
    return hs_errorf(err, HS_ERR_ARG,
                     "hs_program_trace: NULL argument");
  if (p->rasp) return rasp_eval_all(p, w, n, vals, err);
  uint8_t *out = malloc(n ? n : 1);
  if (!out) return hs_errorf(err, HS_ERR_NOMEM, "out of memory running the program on %zu tokens", n);
  if (hs_truth_eval(p->f, p->f->root, w, n, out, err)) {
    free(out);
    return -1;
  }
  for (size_t i = 0; i < n; i++) vals[i] = out[i];
  free(out);
  return 0;
}

int hs_program_truth(const hs_program *p, const uint8_t *w, size_t n,
                     uint8_t *out, hs_error *err) {
  if (!p || (n && (!w || !out)))
    return hs_errorf(err, HS_ERR_ARG,
                     "hs_program_truth: NULL argument");
  if (n == 0) return 0;
  if (!p->rasp) return hs_truth_eval(p->f, p->f->root, w, n, out, err);
  size_t k = (size_t)rasp_nstmts(p), cells;
  if (__builtin_mul_overflow(k, n, &cells) || cells > SIZE_MAX / 8)
    return hs_errorf(err, HS_ERR_LIMIT, "a string of %zu tokens is too long for the program", n);
  int64_t *vals = malloc(cells * sizeof *vals);
  if (!vals) return hs_errorf(err, HS_ERR_NOMEM, "out of memory running the program on %zu tokens", n);
  if (rasp_eval_all(p, w, n, vals, err)) {
    free(vals);
    return -1;
  }
  for (size_t i = 0; i < n; i++) out[i] = vals[(k - 1) * n + i] != 0;
  free(vals);
  return 0;
}

int hs_program_vocab_size(const hs_program *p) { return p ? p->vocab.n : 0; }

const char *hs_program_token(const hs_program *p, int k) {
  return p && k >= 0 && k < p->vocab.n ? p->vocab.tok[k] : NULL;
}

int hs_program_token_byte(const hs_program *p, int k) {
  return p && k >= 0 && k < p->vocab.n ? p->vocab.byte[k] : -1;
}

int hs_program_other_byte(const hs_program *p) {
  if (p->lang != HS_LANG_LTL) return hs_vocab_other(&p->vocab);
  hs_vocab v;
  memset(&v, 0, sizeof v);
  hs_formula_alphabet(p->f, v.used);
  return hs_vocab_other(&v);
}

int hs_program_encode(const hs_program *p, const char *line, size_t len,
                      hs_unknown unknown, uint8_t *out, size_t *n, hs_error *err) {
  if (!p || !n || (len && (!line || !out)))
    return hs_errorf(err, HS_ERR_ARG,
                     "hs_program_encode: NULL argument");
  /* a formula names bytes: a one-byte token is its byte */
  hs_tokens t = {p->vocab.n, p->vocab.tok, p->vocab.byte, (uint8_t)hs_program_other_byte(p),
                 p->lang == HS_LANG_LTL};
  return hs_tokens_encode(&t, line, len, unknown, out, n, err);
}

size_t hs_program_tokenize(const hs_program *p, const char *line, size_t len,
                           uint8_t *out) {
  size_t n = 0;
  return hs_program_encode(p, line, len, HS_UNKNOWN_OTHER, out, &n, NULL) ? 0 : n;
}

int hs_model_set_vocab(hs_model *m, const hs_program *p, hs_error *err) {
  if (!m || !p)
    return hs_errorf(err, HS_ERR_ARG, "hs_model_set_vocab: NULL argument");
  if (hs_model_vocab_set(m, p->vocab.n, (const char *const *)p->vocab.tok, p->vocab.byte))
    return hs_errorf(err, HS_ERR_NOMEM, "out of memory copying the vocabulary");
  return 0;
}
