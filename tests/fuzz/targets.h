/* SPDX-License-Identifier: MIT */
/* The per-target logic of the fuzz targets (header-only), shared by the
 * libFuzzer entry points tests/fuzz/fuzz-*.c (built with clang by
 * tests/fuzz/fuzz.mk) and by the regression test tests/test-fuzz-regress.c
 * (built with the normal compiler by `make check`), so a saved input is
 * replayed through exactly the code that found it.
 *
 * Each function takes one input and returns 0; a broken property (a
 * round-trip that fails, a model that loads but does not validate, hard
 * mode disagreeing with the logic, ...) prints a line to stderr and calls
 * abort(), which libFuzzer reports as a crash and cmocka as a failure.
 * Memory errors and undefined behaviour are the sanitizers' job.
 *
 *   hs_fuzz_parse  the formula parser, printer and evaluator
 *   hs_fuzz_model  the model loader (safetensors) and a forward pass
 *   hs_fuzz_input  the `eval` path: formula, compile in a mode, strings
 */
#ifndef HS_FUZZ_TARGETS_H
#define HS_FUZZ_TARGETS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hardsoft.h"
#include "lang/ltl/formula.h"
#include "model/model.h"

#define HS_FUZZ_FAIL(...)                                                  \
  do {                                                                     \
    fprintf(stderr, "hs-fuzz: " __VA_ARGS__);                              \
    fputc('\n', stderr);                                                   \
    abort();                                                               \
  } while (0)

static inline uint64_t hs_fuzz_hash(const uint8_t *d, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 0x100000001b3ull;
  return h;
}

static inline uint64_t hs_fuzz_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A malloc'd NUL-terminated copy of data (stops at an embedded NUL, as a
 * C string would). */
static inline char *hs_fuzz_cstr(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) HS_FUZZ_FAIL("out of memory");
  if (size) memcpy(s, data, size);
  s[size] = 0;
  return s;
}

/* ------------------------------------------------------------ fuzz-parse */

/* The formula's printed form (malloc'd). */
static inline char *hs_fuzz_print(const hs_formula *f) {
  size_t len = hs_formula_print(f, hs_formula_root(f), NULL, 0);
  char *buf = malloc(len + 1);
  if (!buf) HS_FUZZ_FAIL("out of memory");
  size_t len2 = hs_formula_print(f, hs_formula_root(f), buf, len + 1);
  if (len2 != len || strlen(buf) != len)
    HS_FUZZ_FAIL("hs_formula_print: length %zu, then %zu, strlen %zu", len,
                 len2, strlen(buf));
  return buf;
}

static inline int hs_fuzz_parse(const uint8_t *data, size_t size) {
  char *text = hs_fuzz_cstr(data, size);
  hs_error err;
  memset(&err, 0x55, sizeof err);
  hs_formula *f = hs_formula_parse(text, &err);
  if (!f) {
    /* an error is one NUL-terminated line with a column in range */
    if (!memchr(err.msg, 0, sizeof err.msg) || err.msg[0] == 0)
      HS_FUZZ_FAIL("parse failed without a message");
    if (err.column < 0 || (size_t)err.column > strlen(text) + 1)
      HS_FUZZ_FAIL("error column %d out of range (length %zu): %s",
                   err.column, strlen(text), err.msg);
    free(text);
    return 0;
  }
  int32_t root = hs_formula_root(f);
  if (root < 0 || root >= f->count || root != f->count - 1)
    HS_FUZZ_FAIL("root %d of %d nodes", root, f->count);
  int depth = hs_formula_temporal_depth(f, root);
  if (depth < 0) HS_FUZZ_FAIL("temporal depth %d", depth);

  /* print, and parse the printed form back: it must parse, to a formula
   * of the same temporal depth and the same truth values */
  char *printed = hs_fuzz_print(f);
  hs_error err2;
  hs_formula *g = hs_formula_parse(printed, &err2);
  if (!g)
    HS_FUZZ_FAIL("printed formula does not parse back: %s\n  input:   %s\n"
                 "  printed: %s", err2.msg, text, printed);
  if (hs_formula_temporal_depth(g, hs_formula_root(g)) != depth)
    HS_FUZZ_FAIL("temporal depth %d, %d after printing: %s", depth,
                 hs_formula_temporal_depth(g, hs_formula_root(g)), printed);
  /* printing is a fixed point after one round (node numbering may reorder
   * the terms of a comparison once) */
  char *printed2 = hs_fuzz_print(g);
  hs_formula *h = hs_formula_parse(printed2, NULL);
  if (!h) HS_FUZZ_FAIL("second print does not parse back: %s", printed2);
  char *printed3 = hs_fuzz_print(h);
  if (strcmp(printed2, printed3) != 0)
    HS_FUZZ_FAIL("printing is not stable:\n  %s\n  %s", printed2, printed3);

  /* truth values on a few short strings over the formula's alphabet plus
   * one byte no atom names, derived from the input */
  uint8_t set[256], syms[257];
  int nsym = 0;
  hs_formula_alphabet(f, set);
  for (int b = 0; b < 256; b++)
    if (set[b]) syms[nsym++] = (uint8_t)b;
  for (int b = 1; b < 256; b++)
    if (!set[b]) { syms[nsym++] = (uint8_t)b; break; }
  uint64_t seed = hs_fuzz_hash(data, size);
  static const size_t lens[] = {0, 1, 2, 3, 5, 8, 17};
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
    size_t n = lens[li];
    uint8_t w[32], out[32];
    for (size_t i = 0; i < n; i++) w[i] = syms[hs_fuzz_next(&seed) % (uint64_t)nsym];
    uint8_t *all = hs_truth_eval_all(f, w, n);
    uint8_t *allg = hs_truth_eval_all(g, w, n);
    if (!all || !allg) HS_FUZZ_FAIL("hs_truth_eval_all failed (n %zu)", n);
    if (hs_truth_eval(f, root, w, n, out, NULL) != 0)
      HS_FUZZ_FAIL("hs_truth_eval failed (n %zu)", n);
    const uint8_t *rf = all + (size_t)root * n;
    const uint8_t *rg = allg + (size_t)hs_formula_root(g) * n;
    for (size_t i = 0; i < n; i++) {
      if (rf[i] > 1) HS_FUZZ_FAIL("truth value %d at %zu", rf[i], i + 1);
      if (rf[i] != out[i])
        HS_FUZZ_FAIL("eval_all and eval disagree at %zu: %s", i + 1, text);
      if (rf[i] != rg[i])
        HS_FUZZ_FAIL("printed formula disagrees at position %zu of a string "
                     "of length %zu\n  input:   %s\n  printed: %s", i + 1, n,
                     text, printed);
    }
    free(all);
    free(allg);
  }
  free(printed3);
  hs_formula_free(h);
  free(printed2);
  hs_formula_free(g);
  free(printed);
  hs_formula_free(f);
  free(text);
  return 0;
}

/* ------------------------------------------------------------ fuzz-model */

/* One temporary file per process (mkstemp once), rewritten per input. */
static char hs_fuzz_model_path[64];
static int hs_fuzz_model_fd = -1;

static inline void hs_fuzz_model_cleanup(void) {
  if (hs_fuzz_model_fd >= 0) {
    close(hs_fuzz_model_fd);
    unlink(hs_fuzz_model_path);
    char saved[80];
    snprintf(saved, sizeof saved, "%s.saved", hs_fuzz_model_path);
    unlink(saved);
    hs_fuzz_model_fd = -1;
  }
}

static inline void hs_fuzz_write_model(const uint8_t *data, size_t size) {
  if (hs_fuzz_model_fd < 0) {
    strcpy(hs_fuzz_model_path, "/tmp/hs-fuzz-model-XXXXXX");
    hs_fuzz_model_fd = mkstemp(hs_fuzz_model_path);
    if (hs_fuzz_model_fd < 0) HS_FUZZ_FAIL("mkstemp failed");
    atexit(hs_fuzz_model_cleanup);
  }
  if (ftruncate(hs_fuzz_model_fd, 0) != 0) HS_FUZZ_FAIL("ftruncate failed");
  size_t done = 0;
  while (done < size) {
    ssize_t w = pwrite(hs_fuzz_model_fd, data + done, size - done, (off_t)done);
    if (w <= 0) HS_FUZZ_FAIL("pwrite failed");
    done += (size_t)w;
  }
}

/* A forward pass that must succeed and give 0/1 decisions. */
static inline void hs_fuzz_run(const hs_model *m, const uint8_t *w, size_t n,
                               hs_precision prec, const char *what) {
  hs_run_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.precision = prec;
  ro.want_attn_error = 1;
  hs_run_result r;
  hs_error he;
  if (hs_forward(m, w, n, &ro, &r, &he) != 0)
    HS_FUZZ_FAIL("%s: hs_forward failed on a string of length %zu: %s", what,
                 n, he.msg);
  for (size_t i = 0; i < n; i++)
    if (r.bits[i] > 1) HS_FUZZ_FAIL("%s: decision %d", what, r.bits[i]);
  hs_run_result_free(&r);
}

static inline int hs_fuzz_model(const uint8_t *data, size_t size) {
  hs_error he;
  hs_fuzz_write_model(data, size);
  memset(he.msg, 0x55, sizeof he.msg);
  hs_model *m = hs_model_load(hs_fuzz_model_path, &he);
  if (!m) {
    if (!memchr(he.msg, 0, sizeof he.msg) || he.msg[0] == 0)
      HS_FUZZ_FAIL("hs_model_load failed without a message");
    return 0;
  }
  if (hs_model_validate(m, &he) != 0)
    HS_FUZZ_FAIL("a loaded model does not validate: %s", he.msg);
  static const uint8_t ab[] = "ab\xff";
  hs_fuzz_run(m, ab, 2, HS_PREC_F32, "loaded model f32");
  hs_fuzz_run(m, ab, 0, HS_PREC_F32, "loaded model f32, empty string");
  hs_fuzz_run(m, ab, 3, HS_PREC_F64, "loaded model f64");
  /* save and load again: must succeed and validate */
  char saved[80];
  snprintf(saved, sizeof saved, "%s.saved", hs_fuzz_model_path);
  if (hs_model_save(m, saved, &he) != 0)
    HS_FUZZ_FAIL("a loaded model does not save: %s", he.msg);
  hs_model *m2 = hs_model_load(saved, &he);
  if (!m2) HS_FUZZ_FAIL("a saved model does not load back: %s", he.msg);
  if (hs_model_validate(m2, &he) != 0)
    HS_FUZZ_FAIL("a reloaded model does not validate: %s", he.msg);
  if (m2->d != m->d || m2->nlayers != m->nlayers || m2->npf != m->npf ||
      m2->out_coord != m->out_coord)
    HS_FUZZ_FAIL("reloaded model differs (d %d/%d, layers %d/%d)", m->d,
                 m2->d, m->nlayers, m2->nlayers);
  hs_model_free(m2);
  hs_model_free(m);
  return 0;
}

/* ------------------------------------------------------------ fuzz-input */

/* Work estimate of one forward pass over n symbols, to keep each input
 * well under the fuzzer's timeout. */
static inline double hs_fuzz_cost(const hs_model *m, size_t n) {
  double heads = 0, ffn = 0;
  for (int32_t l = 0; l < m->nlayers; l++) {
    for (int32_t h = 0; h < m->layers[l].nheads; h++)
      heads += m->layers[l].heads[h].dk + m->layers[l].heads[h].dv + 1;
    ffn += m->layers[l].hidden;
  }
  double N = (double)n + 1;
  return N * N * (heads + 1) + N * (double)m->d * (heads * 2 + ffn * 2 + 1);
}

static inline int hs_fuzz_input(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t flen = nul ? (size_t)(nul - data) : size;
  const uint8_t *rest = nul ? nul + 1 : data + size;
  size_t rlen = nul ? size - flen - 1 : 0;
  char *text = hs_fuzz_cstr(data, flen);
  hs_formula *f = hs_formula_parse(text, NULL);
  if (!f) f = hs_formula_parse("a S b", NULL);
  if (!f) HS_FUZZ_FAIL("cannot parse the default formula");

  /* the byte after the NUL picks the mode, scale and precision */
  uint8_t ctl = rlen ? rest[0] : 0;
  if (rlen) { rest++; rlen--; }
  static const double scales[] = {4, 16, 1, 64};
  hs_compile_opts co;
  co.mode = (hs_mode)(ctl & 3);
  co.scale = scales[(ctl >> 2) & 3];
  hs_precision prec = (ctl >> 4) & 1 ? HS_PREC_F64 : HS_PREC_F32;
  hs_error he;
  hs_model *m = hs_compile(f, &co, &he);
  if (!m) { /* unsupported features: the eval path stops with he.msg */
    if (he.msg[0] == 0) HS_FUZZ_FAIL("hs_compile failed without a message");
    hs_formula_free(f);
    free(text);
    return 0;
  }
  if (hs_model_validate(m, &he) != 0)
    HS_FUZZ_FAIL("compiled model does not validate: %s (%s, %s)", he.msg,
                 text, hs_mode_name(co.mode));
  hs_run_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.precision = prec;
  ro.last_only = (ctl >> 5) & 1;
  hs_runner *run = hs_runner_new(m, &ro, &he);
  if (!run) HS_FUZZ_FAIL("hs_runner_new failed: %s", he.msg);

  /* each '\n'-separated line, like cli_each_string (a trailing '\r' is
   * dropped); at most 16 lines of at most 256 symbols */
  size_t pos = 0;
  for (int lines = 0; pos < rlen && lines < 16; lines++) {
    const uint8_t *s = rest + pos;
    const uint8_t *nl = memchr(s, '\n', rlen - pos);
    size_t n = nl ? (size_t)(nl - s) : rlen - pos;
    pos += n + 1;
    if (n && s[n - 1] == '\r') n--;
    if (n > 256) n = 256;
    if (hs_fuzz_cost(m, n) > 2e7) continue;
    uint8_t *truth = malloc(n ? n : 1);
    if (!truth || hs_truth_eval(f, hs_formula_root(f), s, n, truth, NULL) != 0)
      HS_FUZZ_FAIL("hs_truth_eval failed");
    hs_run_result r, r2;
    if (hs_runner_run(run, s, n, &r, &he) != 0)
      HS_FUZZ_FAIL("hs_runner_run failed: %s", he.msg);
    hs_run_opts fo = ro;
    fo.last_only = 0;
    if (hs_forward(m, s, n, &fo, &r2, &he) != 0)
      HS_FUZZ_FAIL("hs_forward failed: %s", he.msg);
    for (size_t i = 0; i < n; i++) {
      if (r.bits[i] > 1 || r2.bits[i] > 1) HS_FUZZ_FAIL("decision not 0/1");
      if (ro.last_only && i + 1 < n) continue;
      if (r.bits[i] != r2.bits[i])
        HS_FUZZ_FAIL("runner and hs_forward disagree at %zu of %zu", i + 1, n);
      if (co.mode == HS_MODE_HARD && r.bits[i] != truth[i])
        HS_FUZZ_FAIL("hard mode disagrees with the logic at position %zu of "
                     "a string of length %zu (%s): model %d, logic %d, value "
                     "%.17g\n  formula: %s", i + 1, n,
                     prec == HS_PREC_F64 ? "f64" : "f32", r.bits[i], truth[i],
                     r.values[i], text);
    }
    hs_run_result_free(&r);
    hs_run_result_free(&r2);
    free(truth);
  }
  hs_runner_free(run);
  hs_model_free(m);
  hs_formula_free(f);
  free(text);
  return 0;
}

#endif
