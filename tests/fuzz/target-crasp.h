/* SPDX-License-Identifier: MIT */
/* The logic of fuzz-crasp (header-only; shared by tests/fuzz/fuzz-crasp.c
 * and tests/test-fuzz-regress.c like tests/fuzz/targets.h): the C-RASP
 * parser, interpreter and lowering. Properties: an error is one non-empty
 * line; an accepted program's lowering (its circuit), compiled in hard
 * mode, agrees with the program's own interpreter at every position of a
 * few strings over its tokens plus one other token; the trace ends with
 * the program's value. */
#ifndef HS_FUZZ_TARGET_CRASP_H
#define HS_FUZZ_TARGET_CRASP_H

#include "targets.h"
#include "circuit/circuit.h"

static inline void hs_fuzz_crasp_strings(const hs_program *p, uint64_t seed) {
  const hs_prebuilt *P = hs_program_circuit(p);
  uint8_t sym[256], w[24], a[24];
  int k = hs_program_vocab_size(p);
  for (int i = 0; i < k; i++) sym[i] = (uint8_t)hs_program_token_byte(p, i);
  sym[k++] = (uint8_t)hs_program_other_byte(p);
  hs_model *m = NULL;
  if (!P || P->root < 0 || P->root >= P->C.n || !hs_program_text(p))
    HS_FUZZ_FAIL("crasp: the program's lowering is not a circuit");
  if (P->C.n <= 256) {
    hs_error he;
    hs_compile_opts o = {HS_MODE_HARD, 1, HS_SIGN_LAYERNORM};
    m = hs_program_compile(p, &o, &he);
  }
  int ns = hs_program_nstmts(p);
  for (int s = 0; s < 6; s++) {
    size_t n = (size_t)(hs_fuzz_next(&seed) % 24);
    for (size_t i = 0; i < n; i++) w[i] = sym[hs_fuzz_next(&seed) % (uint64_t)k];
    if (hs_program_truth(p, w, n, a, NULL))
      HS_FUZZ_FAIL("crasp: evaluation failed at n = %zu", n);
    int64_t *vals = malloc(((size_t)ns * n + 1) * sizeof *vals);
    if (!vals || hs_program_trace(p, w, n, vals, NULL)) HS_FUZZ_FAIL("crasp: trace failed");
    for (size_t i = 0; i < n; i++)
      if ((vals[(size_t)(ns - 1) * n + i] != 0) != a[i])
        HS_FUZZ_FAIL("crasp: trace's last statement differs at %zu", i + 1);
    free(vals);
    if (m && n) {
      hs_run_opts ro = {.precision = HS_PREC_F32};
      hs_run_result r;
      hs_error he;
      if (hs_forward(m, w, n, &ro, &r, &he)) HS_FUZZ_FAIL("crasp: %s", he.msg);
      for (size_t i = 0; i < n; i++)
        if (r.bits[i] != a[i])
          HS_FUZZ_FAIL("crasp: hard model %d, interpreter %d at %zu of %zu",
                       r.bits[i], a[i], i + 1, n);
      hs_run_result_free(&r);
    }
  }
  hs_model_free(m);
}

static inline int hs_fuzz_crasp(const uint8_t *data, size_t size) {
  hs_error err;
  memset(&err, 0x55, sizeof err);
  hs_program *p = hs_program_parse((const char *)data, size, HS_LANG_CRASP, &err);
  if (!p) {
    size_t len = strnlen(err.msg, sizeof err.msg);
    if (len == 0 || len == sizeof err.msg || memchr(err.msg, '\n', len))
      HS_FUZZ_FAIL("crasp: error message not one terminated line");
    if (err.line < 0 || err.column < 0 || (err.line == 0) != (err.column == 0))
      HS_FUZZ_FAIL("crasp: error position %d:%d", err.line, err.column);
    return 0;
  }
  hs_fuzz_crasp_strings(p, hs_fuzz_hash(data, size));
  hs_program_free(p);
  return 0;
}

#endif
