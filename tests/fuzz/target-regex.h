/* SPDX-License-Identifier: MIT */
/* The logic of fuzz-regex (header-only, like targets.h, whose helpers it
 * uses), shared by tests/fuzz/fuzz-regex.c and tests/test-fuzz-regress.c.
 *
 *   hs_fuzz_regex  "EXPRESSION" or "EXPRESSION \0 ALPHABET": parse with
 *                  hs_program_parse_regex; a syntax error is one line
 *                  naming a line and column inside the text (an --alphabet
 *                  error its column in the alphabet), a limit one line; a
 *                  parsed expression has an explanation, and a lowering
 *                  that is a circuit or one line saying why not; a small
 *                  circuit compiled in hard mode (exact) equals the
 *                  automaton at every position of short strings over the
 *                  expression's tokens plus one unnamed token. */
#ifndef HS_FUZZ_TARGET_REGEX_H
#define HS_FUZZ_TARGET_REGEX_H

#include "target-brasp.h"

static inline void hs_fuzz_regex_agree(const hs_program *p, uint64_t seed) {
  const hs_prebuilt *P = hs_program_circuit(p);
  hs_model *m = NULL;
  hs_error he;
  if (P && P->C.n <= 400) {
    hs_compile_opts co = {.mode = HS_MODE_HARD, .scale = 4};
    if (!(m = hs_program_compile(p, &co, &he)))
      HS_FUZZ_FAIL("a lowered expression does not compile in hard mode: %s", he.msg);
  }
  uint8_t syms[257];
  int nsym = 0;
  for (; nsym < hs_program_vocab_size(p); nsym++) syms[nsym] = (uint8_t)hs_program_token_byte(p, nsym);
  syms[nsym++] = (uint8_t)hs_program_other_byte(p);
  static const size_t lens[] = {1, 2, 3, 5, 8, 17};
  for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
    size_t n = lens[li];
    uint8_t w[17], truth[17];
    for (size_t i = 0; i < n; i++) w[i] = syms[hs_fuzz_next(&seed) % (uint64_t)nsym];
    if (hs_program_truth(p, w, n, truth, &he)) HS_FUZZ_FAIL("truth failed: %s", he.msg);
    if (!m) continue;
    hs_run_opts ro;
    memset(&ro, 0, sizeof ro);
    hs_run_result r;
    if (hs_forward(m, w, n, &ro, &r, &he) != 0) HS_FUZZ_FAIL("hs_forward failed: %s", he.msg);
    for (size_t i = 0; i < n; i++)
      if (r.bits[i] != truth[i])
        HS_FUZZ_FAIL("hard model %d, automaton %d at position %zu of %zu", r.bits[i],
                     truth[i], i + 1, n);
    hs_run_result_free(&r);
  }
  hs_model_free(m);
}

static inline int hs_fuzz_regex(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  const uint8_t *nul = memchr(data, 0, size);
  size_t len = nul ? (size_t)(nul - data) : size;
  char alphabet[256] = "";
  if (nul) {
    size_t an = size - len - 1 < sizeof alphabet - 1 ? size - len - 1 : sizeof alphabet - 1;
    memcpy(alphabet, nul + 1, an);
    alphabet[an] = 0;
  }
  hs_error err;
  memset(&err, 0x55, sizeof err);
  hs_program *p = hs_program_parse_regex(text, len, nul ? alphabet : NULL, &err);
  if (!p) {
    if (!memchr(err.msg, 0, sizeof err.msg) || !err.msg[0] || strchr(err.msg, '\n'))
      HS_FUZZ_FAIL("refused without a one-line message");
    if (err.code == HS_ERR_PARSE && !strstr(err.msg, "--alphabet: "))
      hs_fuzz_brasp_check_err(&err, text, len, "hs_program_parse_regex");
    return 0;
  }
  char buf[2048];
  size_t n = hs_program_explain(p, buf, sizeof buf);
  if (!n || strlen(buf) != (n < sizeof buf ? n : sizeof buf - 1))
    HS_FUZZ_FAIL("explanation of %zu bytes, %zu stored", n, strlen(buf));
  hs_compile_opts co = {.mode = HS_MODE_HARD, .scale = 4};
  if (hs_program_lowered(p, &err) != 0)
    HS_FUZZ_FAIL("the lowering is neither a circuit nor a refusal: %s", err.msg);
  if (!hs_program_circuit(p)) {
    memset(&err, 0x55, sizeof err);
    if (hs_program_compile(p, &co, &err) || err.code != HS_ERR_UNSUPPORTED)
      HS_FUZZ_FAIL("a lowering without a circuit is not refused");
    if (!memchr(err.msg, 0, sizeof err.msg) || !err.msg[0] || strchr(err.msg, '\n'))
      HS_FUZZ_FAIL("refusal not one line: %.200s", err.msg);
  }
  hs_fuzz_regex_agree(p, hs_fuzz_hash(data, size));
  hs_program_free(p);
  return 0;
}

#endif
