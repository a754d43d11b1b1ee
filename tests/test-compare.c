/* SPDX-License-Identifier: MIT */
/* Counting comparisons (src/lang/compare.c): reduced by the gcd of their
 * coefficients (the same weights as the reduced comparison written out;
 * the constant's floor or ceiling keeps the truth at every relation, on
 * every short string), folded when no string can change them (no heads,
 * the constant answer), and refused naming the constant as written. Their
 * exact region (src/model/region.c) holds: the tie-string scan (p*#<(a)
 * REL q*#<(b) on strings that tie exactly, p and q up to 10^4, every
 * mode and sign) finds no wrong answer at any position inside it, and the
 * region covers every sign (hard mode's included). HARDSOFT_EXHAUSTIVE=1
 * (make check-exhaustive) scans every relation, mode and sign of 102
 * pairs (the count), and longer. */
#include "common.h"

#include "lang/ltl/formula.h"
#include "model/model.h"

static hs_model *compile_text(const char *text, hs_mode mode, hs_sign sign, hs_error *e) {
  hs_formula *f = hs_formula_parse(text, e);
  if (!f) fail_msg("parse '%s': %s", text, e->msg);
  hs_compile_opts o = {.mode = mode, .scale = 16, .sign = sign};
  hs_model *m = hs_compile(f, &o, e);
  hs_formula_free(f);
  return m;
}

static hs_model *compile_ok(const char *text, hs_mode mode, hs_sign sign) {
  hs_error e;
  hs_model *m = compile_text(text, mode, sign, &e);
  if (!m) fail_msg("compile '%s' (%s): %s", text, hs_mode_name(mode), e.msg);
  return m;
}

static int same_floats(const float *a, const float *b, size_t n) {
  return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* Every weight of a and b equal (the metadata may differ). */
static int same_weights(const hs_model *a, const hs_model *b) {
  if (a->d != b->d || a->nlayers != b->nlayers) return 0;
  size_t d = (size_t)a->d;
  if (!same_floats(a->embed, b->embed, HS_VOCAB * d)) return 0;
  for (int l = 0; l < a->nlayers; l++) {
    const hs_layer *x = &a->layers[l], *y = &b->layers[l];
    if (x->nheads != y->nheads || x->hidden != y->hidden || x->ln_pairs != y->ln_pairs) return 0;
    size_t u = (size_t)x->hidden;
    if (!same_floats(x->w1, y->w1, u * d) || !same_floats(x->w2, y->w2, u * d) ||
        !same_floats(x->b1, y->b1, u) || !same_floats(x->ln_b, y->ln_b, 2 * (size_t)x->ln_pairs))
      return 0;
    for (int h = 0; h < x->nheads; h++) {
      const hs_head *p = &x->heads[h], *q = &y->heads[h];
      if (p->dk != q->dk || p->kind != q->kind || p->tau_law != q->tau_law ||
          !same_floats(p->wq, q->wq, (size_t)p->dk * d) ||
          !same_floats(p->wk, q->wk, (size_t)p->dk * d) || !same_floats(p->wv, q->wv, d))
        return 0;
    }
  }
  return 1;
}

/* A comparison times a common factor compiles to the comparison itself. */
static void test_reduced_by_gcd(void **state) {
  (void)state;
  static const char *const pairs[][2] = {
      {"10000*#<(a) > 10000*#<(b)", "#<(a) > #<(b)"},
      {"16777216*#<(a) > 16777216*#<(b)", "#<(a) > #<(b)"},
      {"918*#<(a) <= 1530*#<(b)", "3*#<(a) <= 5*#<(b)"},
      {"6*#<(a) > 4*#<(b) + 3", "3*#<(a) > 2*#<(b) + 1"},   /* ceil(-3/2) */
      {"6*#<(a) >= 4*#<(b) + 3", "3*#<(a) >= 2*#<(b) + 2"}, /* floor(-3/2) */
      {"6*#>(a) < 4*#>(b) - 3", "3*#>(a) < 2*#>(b) - 1"},
      {"6*#<(a) <= 4*#>(b) - 3", "3*#<(a) <= 2*#>(b) - 2"},
      {"4*#<(a) = 6*#<(b) + 2", "2*#<(a) = 3*#<(b) + 1"},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      if (mode == HS_MODE_FIXED && strstr(pairs[k][0], "#>") && strstr(pairs[k][0], "#<")) continue;
      hs_model *a = compile_ok(pairs[k][0], (hs_mode)mode, HS_SIGN_LAYERNORM);
      hs_model *b = compile_ok(pairs[k][1], (hs_mode)mode, HS_SIGN_LAYERNORM);
      if (!same_weights(a, b))
        fail_msg("'%s' and '%s' (%s): different weights", pairs[k][0], pairs[k][1],
                 hs_mode_name((hs_mode)mode));
      hs_model_free(a);
      hs_model_free(b);
    }
}

/* Every position of every string over {a, b, c} up to length 6 against the
 * logic, through one batch. */
static void agrees_everywhere(const char *text, const hs_model *m) {
  enum { L = 6 };
  static uint8_t buf[1093 * L];
  static const uint8_t *w[1093];
  static size_t len[1093];
  size_t count = 0, total = 0;
  for (int n = 0; n <= L; n++) {
    int idx[L] = {0};
    for (;;) {
      uint8_t *s = buf + total;
      for (int i = 0; i < n; i++) s[i] = (uint8_t)"abc"[idx[i]];
      w[count] = s, len[count++] = (size_t)n, total += (size_t)n;
      int i = 0;
      while (i < n && ++idx[i] == 3) idx[i++] = 0;
      if (i == n) break;
    }
  }
  uint8_t *bits = malloc(total), *truth = malloc(total);
  hs_error e;
  hs_formula *f = hs_formula_parse(text, &e);
  if (hs_forward_batch(m, count, w, len, NULL, bits, NULL, &e)) fail_msg("%s", e.msg);
  for (size_t k = 0, off = 0; k < count; off += len[k++]) {
    assert_int_equal(hs_truth_eval(f, hs_formula_root(f), w[k], len[k], truth + off, NULL), 0);
    for (size_t i = 0; i < len[k]; i++)
      if (bits[off + i] != truth[off + i])
        fail_msg("'%s' mode %s: string %.*s position %zu: model %d, logic %d", text,
                 m->mode, (int)len[k], (const char *)w[k], i + 1, bits[off + i],
                 truth[off + i]);
  }
  hs_formula_free(f);
  free(bits);
  free(truth);
}

/* The constant's floor or ceiling, at every relation, both signs of the
 * constant, divisible or not: the model agrees with the logic, ties
 * included (strings of up to 6 symbols reach every small count). */
static void test_reduction_keeps_truth(void **state) {
  (void)state;
  static const char *const rels[] = {"<", "<=", "=", "!=", ">=", ">"};
  static const int consts[] = {-5, -4, -3, -1, 0, 1, 2, 3, 4, 7};
  char text[128];
  for (size_t r = 0; r < 6; r++)
    for (size_t c = 0; c < sizeof consts / sizeof *consts; c++)
      for (int form = 0; form < 3; form++) {
        int k = consts[c];
        if (form == 0) snprintf(text, sizeof text, "2*#<(a) %s 4*#<(b) %c %d", rels[r],
                                k < 0 ? '-' : '+', k < 0 ? -k : k);
        if (form == 1) snprintf(text, sizeof text, "%s%d %s 3*#<(a) - 6*#<(c)", k < 0 ? "-" : "",
                                k < 0 ? -k : k, rels[r]);
        if (form == 2) snprintf(text, sizeof text, "-4*#>(b) + 2*#>(c) %s %s%d", rels[r],
                                k < 0 ? "-" : "", k < 0 ? -k : k);
        for (int hard = 0; hard < 2; hard++) {
          hs_model *m = compile_ok(text, hard ? HS_MODE_HARD : HS_MODE_TEMP, HS_SIGN_LAYERNORM);
          agrees_everywhere(text, m);
          hs_model_free(m);
        }
      }
}

/* Comparisons no string can change compile to their constant: no heads,
 * and the logic's answer everywhere, in every mode and sign. */
static void test_folded(void **state) {
  (void)state;
  static const char *const folded[] = {
      "#<(a) > -10000000", "#<(a) >= 0", "#<(a) + #<(b) < 0", "-3*#>(a) > 1",
      "3*#<(a) = 3*#<(b) + 1", "3*#<(a) != 3*#<(b) + 1", "-2*#<(a) - #<(b) <= 0",
      "#<(a) + 16777217 > #<(a) - 1"};
  for (size_t k = 0; k < sizeof folded / sizeof *folded; k++)
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++)
      for (int sign = 0; sign < 2; sign++) {
        hs_model *m = compile_ok(folded[k], (hs_mode)mode, (hs_sign)sign);
        if (hs_model_nheads(m) != 0)
          fail_msg("'%s' (%s): %d heads, want 0 (folded)", folded[k],
                   hs_mode_name((hs_mode)mode), hs_model_nheads(m));
        agrees_everywhere(folded[k], m);
        hs_model_free(m);
      }
}

/* What float32 weights cannot hold is refused, naming the constant as
 * written and, when the gcd changed it, as reduced. */
static void test_refusals_name_the_constant(void **state) {
  (void)state;
  static const char *const bad[][2] = {
      {"#<(a) < 10000000", ": the constant 10000000 is beyond what the model's float32 "
                           "weights hold beside the sign's half (|constant| <= 2^23 - 1 = 8388607)"},
      {"2*#<(a) < 20000001", ": the constant 20000001 (10000001 after dividing by the gcd 2) is beyond"},
      {"10000000 > #<(b)", ": the constant 10000000 is beyond"},
      {"16777217*#<(a) > #<(b)", ": the coefficient 16777217 is not exact in the model's float32 weights"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    hs_error e;
    hs_model *m = compile_text(bad[k][0], HS_MODE_PE, HS_SIGN_LAYERNORM, &e);
    if (m) fail_msg("'%s' compiled", bad[k][0]);
    if (!strstr(e.msg, bad[k][1])) fail_msg("'%s': '%s' lacks '%s'", bad[k][0], e.msg, bad[k][1]);
  }
  /* a program names the statement and its line (C-RASP lowers as it
   * reads, and keeps the lowering's error) */
  static const char prog[] = "A = # \"a\" > 0\nB = 3 * # \"a\" < 30000000 + 3 * # \"b\"\n";
  hs_error e;
  hs_program *p = hs_program_parse(prog, sizeof prog - 1, HS_LANG_CRASP, &e);
  assert_non_null(p);
  assert_int_equal(hs_program_lowered(p, &e), -1);
  hs_program_free(p);
  if (!strstr(e.msg, "statement 'B', a comparison: the constant 30000000 (10000000 after "
                     "dividing by the gcd 3) is beyond") || e.line != 2)
    fail_msg("program: '%s' (line %d)", e.msg, e.line);
}

/* p*#<(a) REL q*#<(b) in one mode and sign: on its tie strings (counts in
 * the ratio q : p, so that the integer is 0 at every period's end) of up
 * to `cap` symbols, every position inside the stated f32 region agrees
 * with the logic. Returns the tie positions checked inside the region. */
static long scan_one(int p, int q, const char *rel, hs_mode mode, hs_sign sign, size_t cap) {
  char text[96];
  snprintf(text, sizeof text, "%d*#<(a) %s %d*#<(b)", p, rel, q);
  hs_error e;
  hs_formula *f = hs_formula_parse(text, &e);
  hs_compile_opts o = {.mode = mode, .scale = mode == HS_MODE_FIXED ? 64 : 16, .sign = sign};
  hs_model *m = hs_compile(f, &o, &e);
  if (!m) fail_msg("%s: %s", text, e.msg);
  double region = hs_model_count_max_n(m, 24);
  int g = p, h = q;
  while (h) { int r = g % h; g = h; h = r; }
  size_t period = (size_t)(p + q) / (size_t)g, n = region < (double)cap ? (size_t)region : cap;
  if (n < period && (double)period <= region) n = period;
  long ties = 0;
  uint8_t *w = malloc(n + 1), *truth = malloc(n + 1);
  for (int k = 0; k < 2 && n > 0; k++) {
    if (!hs_model_tie_string(m, k, n, w)) continue;
    hs_run_opts ro = {.precision = HS_PREC_F32};
    hs_run_result r;
    if (hs_forward(m, w, n, &ro, &r, &e)) fail_msg("%s", e.msg);
    assert_int_equal(hs_truth_eval(f, hs_formula_root(f), w, n, truth, NULL), 0);
    int64_t na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
      na += w[i] == 'a', nb += w[i] == 'b';
      if ((double)(i + 1) > region) break;
      ties += (int64_t)p * na == (int64_t)q * nb;
      if (r.bits[i] != truth[i])
        fail_msg("'%s' mode %s sign %s: wrong at position %zu of a tie string, inside "
                 "the stated f32 region n <= %.0f (model %d, logic %d)", text, hs_mode_name(mode),
                 sign ? "temp" : "layernorm", i + 1, region, r.bits[i], truth[i]);
    }
    hs_run_result_free(&r);
  }
  free(w);
  free(truth);
  hs_model_free(m);
  hs_formula_free(f);
  return ties;
}

/* The scan: coefficient pairs up to 10^4, among them the ones
 * whose first tie (one period, p + q after the gcd) falls where float32
 * first goes wrong (n (p + q) near 2^24), and large common factors. */
static void test_tie_scan(void **state) {
  (void)state;
  static const char *const rels[] = {"<", "<=", "=", "!=", ">=", ">"};
  static const hs_mode modes[] = {HS_MODE_HARD, HS_MODE_PE, HS_MODE_TEMP, HS_MODE_REL, HS_MODE_FIXED};
  int all = getenv("HARDSOFT_EXHAUSTIVE") != NULL, want = all ? 102 : 40;
  int pairs[102][2] = {{918, 1530}, {10000, 9999}, {2048, 2049}, {3001, 2999}, {1, 1}, {2, 3}};
  int np = 6;
  hs_rng r = {39};
  while (np < want) {
    int p = 1 + (int)(hs_rng_next(&r) % 10000), q = 1 + (int)(hs_rng_next(&r) % 10000);
    if (np % 3 == 0) q = p + 1 + (int)(hs_rng_next(&r) % 3);   /* p + q near 2^12 or more */
    if (np % 5 == 0) { int k = 1 + (int)(hs_rng_next(&r) % 40); p = k * (1 + p % 250); q = k * (1 + q % 250); }
    if (q > 10000) q = 10000;
    pairs[np][0] = p, pairs[np][1] = q, np++;
  }
  size_t cap = all ? 32768 : 6144;
  long ties = 0;
  for (int k = 0; k < np; k++)
    for (int ri = 0; ri < 6; ri++)
      for (int mi = 0; mi < 5; mi++)
        for (int sign = 0; sign < 2; sign++) {
          if (!all && (ri != k % 6 || mi != (k / 6 + sign) % 5)) continue;
          ties += scan_one(pairs[k][0], pairs[k][1], rels[ri], modes[mi], (hs_sign)sign, cap);
        }
  /* the scan is not empty: exact ties inside the stated regions */
  if (ties < 100) fail_msg("only %ld tie positions inside the stated regions", ties);
  printf("tie positions checked inside the stated regions: %ld\n", ties);
}

/* Every sign counts, in every mode: hard mode's average-hard temperature
 * sign has the layer-norm sign's region; the temperature sign's soft
 * heads a smaller one (they need a margin left over), fixed mode's far
 * smaller. */
static void test_region_every_sign(void **state) {
  (void)state;
  const char *text = "10000*#<(a) > 9999*#<(b) + #<(c)";
  double r[HS_MODE_COUNT_][2];
  for (int mode = 0; mode < HS_MODE_COUNT_; mode++)
    for (int sign = 0; sign < 2; sign++) {
      hs_model *m = compile_ok(text, (hs_mode)mode, (hs_sign)sign);
      r[mode][sign] = hs_model_count_max_n(m, 24);
      if (!(r[mode][sign] >= 1 || (mode == HS_MODE_FIXED && sign)) || isinf(r[mode][sign]))
        fail_msg("%s sign %d: region %g", hs_mode_name((hs_mode)mode), sign, r[mode][sign]);
      if (hs_model_count_max_n(m, 53) <= r[mode][sign] && !(mode == HS_MODE_FIXED && sign))
        fail_msg("%s sign %d: f64 not wider than f32", hs_mode_name((hs_mode)mode), sign);
      hs_model_free(m);
    }
  assert_true(r[HS_MODE_HARD][1] == r[HS_MODE_HARD][0]);
  assert_true(r[HS_MODE_PE][1] < r[HS_MODE_PE][0] && r[HS_MODE_TEMP][1] < r[HS_MODE_TEMP][0]);
  assert_true(r[HS_MODE_FIXED][1] < r[HS_MODE_PE][1]);
  /* the n = 4146 is outside, in every mode and sign */
  for (int mode = 0; mode < HS_MODE_COUNT_; mode++) assert_true(r[mode][0] < 4146);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reduced_by_gcd),
      cmocka_unit_test(test_reduction_keeps_truth),
      cmocka_unit_test(test_folded),
      cmocka_unit_test(test_refusals_name_the_constant),
      cmocka_unit_test(test_region_every_sign),
      cmocka_unit_test(test_tie_scan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
