/* SPDX-License-Identifier: MIT */
/* The logic of fuzz-brasp (header-only, like targets.h, whose helpers it
 * uses), shared by tests/fuzz/fuzz-brasp.c and tests/test-fuzz-regress.c.
 *
 *   hs_fuzz_brasp  a B-RASP program: parse; an error is one line naming
 *                  "at line L, column C" within the text; a parsed program
 *                  lowers (or is refused with such a line) into a
 *                  circuit with its root among its nodes; a small
 *                  one compiled in hard mode (exact) equals the
 *                  interpreter at every position of short strings over
 *                  the program's tokens plus one unnamed token. */
#ifndef HS_FUZZ_TARGET_BRASP_H
#define HS_FUZZ_TARGET_BRASP_H

#include "targets.h"
#include "circuit/circuit.h"
#include "lang/brasp/brasp.h"

/* err names a line and column inside text[0..size) (the column may be one
 * past the end of its line). */
static inline void hs_fuzz_brasp_check_err(const hs_error *err,
                                           const char *text, size_t size,
                                           const char *what) {
  if (!memchr(err->msg, 0, sizeof err->msg) || err->msg[0] == 0)
    HS_FUZZ_FAIL("%s failed without a message", what);
  if (strchr(err->msg, '\n')) HS_FUZZ_FAIL("%s: message of two lines", what);
  char want[64];
  snprintf(want, sizeof want, " at line %d, column %d", err->line, err->column);
  if (!strstr(err->msg, want))
    HS_FUZZ_FAIL("%s: message '%s' lacks '%s'", what, err->msg, want);
  size_t line = 1, start = 0;
  for (size_t i = 0; i < size && line < (size_t)err->line; i++)
    if (text[i] == '\n') { line++; start = i + 1; }
  size_t end = start;
  while (end < size && text[end] != '\n') end++;
  if (err->line < 1 || line != (size_t)err->line || err->column < 1 ||
      (size_t)err->column > end - start + 1)
    HS_FUZZ_FAIL("%s: line %d, column %d outside the text: %s", what,
                 err->line, err->column, err->msg);
}

/* Lowered circuit and (small enough) hard model against the interpreter on
 * strings derived from the input. */
static inline void hs_fuzz_brasp_agree(const hs_brasp *p, const hs_vocab *v,
                                       const hs_prebuilt *f, uint64_t seed) {
  uint8_t syms[257];
  int nsym = 0;
  for (int k = 0; k < v->n; k++) syms[nsym++] = v->byte[k];
  syms[nsym++] = hs_vocab_other(v);
  hs_model *m = NULL;
  if (f->C.n <= 400) {
    hs_error he;
    hs_compile_opts co = {.mode = HS_MODE_HARD, .scale = 4};
    m = hs_compile_circuit(f, &co, &he);
    if (!m) HS_FUZZ_FAIL("a lowered program does not compile in hard mode: %s", he.msg);
  }
  static const size_t lens[] = {1, 2, 3, 5, 8, 17};
  int K = hs_brasp_nstmts(p);
  for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
    size_t n = lens[li];
    uint8_t w[17];
    for (size_t i = 0; i < n; i++) w[i] = syms[hs_fuzz_next(&seed) % (uint64_t)nsym];
    int64_t *vals = malloc((size_t)K * n * sizeof *vals);
    if (!vals || hs_brasp_eval_all(p, w, n, vals) != 0)
      HS_FUZZ_FAIL("hs_brasp_eval_all failed");
    const int64_t *root = vals + (size_t)(K - 1) * n;
    if (m) {
      hs_run_opts ro;
      memset(&ro, 0, sizeof ro);
      hs_run_result r;
      hs_error he;
      if (hs_forward(m, w, n, &ro, &r, &he) != 0)
        HS_FUZZ_FAIL("hs_forward failed: %s", he.msg);
      for (size_t i = 0; i < n; i++)
        if (r.bits[i] != (root[i] != 0))
          HS_FUZZ_FAIL("hard model %d, interpreter %d at position %zu of %zu",
                       r.bits[i], (int)root[i], i + 1, n);
      hs_run_result_free(&r);
    }
    free(vals);
  }
  hs_model_free(m);
}

static inline int hs_fuzz_brasp(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  hs_vocab v;
  memset(&v, 0, sizeof v);
  hs_error err;
  memset(&err, 0x55, sizeof err);
  hs_brasp *p = hs_brasp_parse(text, size, &v, &err);
  if (!p) {
    hs_fuzz_brasp_check_err(&err, text, size, "hs_brasp_parse");
    hs_vocab_free(&v);
    return 0;
  }
  int K = hs_brasp_nstmts(p);
  if (K < 1 || !hs_brasp_stmt_name(p, K - 1) || hs_brasp_stmt_name(p, K))
    HS_FUZZ_FAIL("%d statements, names inconsistent", K);
  memset(&err, 0x55, sizeof err);
  hs_prebuilt *f = hs_brasp_lower(p, &err);
  if (!f) {
    hs_fuzz_brasp_check_err(&err, text, size, "hs_brasp_lower");
  } else {
    if (f->root < 0 || f->root >= f->C.n || !f->text || f->C.source != f->text)
      HS_FUZZ_FAIL("the lowering is not a circuit with its root and name");
    hs_fuzz_brasp_agree(p, &v, f, hs_fuzz_hash(data, size));
    hs_prebuilt_free(f);
  }
  hs_brasp_free(p);
  hs_vocab_free(&v);
  return 0;
}

#endif
