/* SPDX-License-Identifier: MIT */
/* Compiled models against the logic: every formula of tests/formulas.txt,
 * every mode, both precisions, every position of every string over
 * {a, b, c} up to length 8, random strings up to 4096; the measured
 * attention error against the stated bound; save/reload; every ISA. */
#include "formulas.h"

#include <unistd.h>

#include "lang/ltl/formula.h"
#include "model/model.h"

static char **formulas;
static int nformulas;

static void load_formulas(void) {
  formulas = the_suite()->line;
  nformulas = the_suite()->n;
}

static hs_formula *parse(const char *text) {
  hs_error e;
  hs_formula *f = hs_formula_parse(text, &e);
  if (!f) fail_msg("parse '%s': %s", text, e.msg);
  return f;
}

/* Comparisons that mix #< and #> are refused in mode fixed (they need a
 * BOS weight growing like n); everything else must compile. */
static int refused_in(const hs_formula *f, hs_mode mode) {
  hs_error he;
  hs_compile_opts o = {.mode = mode, .scale = 4};
  hs_model *m = hs_compile(f, &o, &he);
  if (m) { hs_model_free(m); return 0; }
  if (mode != HS_MODE_FIXED || !strstr(he.msg, "mixing #< and #>"))
    fail_msg("'%s' (%s): %s", f->text, hs_mode_name(mode), he.msg);
  return 1;
}

static hs_model *compile(const hs_formula *f, hs_mode mode, double mu) {
  hs_error he;
  hs_compile_opts o = {.mode = mode, .scale = mu};
  hs_model *m = hs_compile(f, &o, &he);
  if (!m) fail_msg("compile '%s' (%s): %s", f->text, hs_mode_name(mode), he.msg);
  return m;
}

/* Runs m on s and compares every position with the logic; returns the
 * largest attention error (and fails on any disagreement). */
static double agree_r(const hs_formula *f, const hs_model *m, hs_runner *run,
                      const uint8_t *s, size_t n, hs_precision prec,
                      const hs_kernels *kt, int want_err) {
  hs_error he;
  uint8_t *truth = malloc(n + 1);
  assert_int_equal(hs_truth_eval(f, f->root, s, n, truth, NULL), 0);
  hs_run_result r;
  assert_int_equal(hs_runner_run(run, s, n, &r, &he), 0);
  for (size_t i = 0; i < n; i++)
    if (r.bits[i] != truth[i])
      fail_msg("'%s' mode %s %s isa %s: n = %zu, position %zu: model %d "
               "(value %g), logic %d", f->text, m->mode,
               prec == HS_PREC_F64 ? "f64" : "f32", hs_isa_name(kt->isa), n,
               i + 1, r.bits[i], r.values[i], truth[i]);
  double e = 0;
  for (int l = 0; want_err && l < m->nlayers; l++)
    if (r.attn_error[l] > e) e = r.attn_error[l];
  hs_run_result_free(&r);
  free(truth);
  return e;
}

static hs_runner *runner(const hs_model *m, hs_precision prec,
                         const hs_kernels *kt, int want_err) {
  hs_error he;
  hs_run_opts ro = {.precision = prec, .kernels = kt, .want_attn_error = want_err};
  hs_runner *r = hs_runner_new(m, &ro, &he);
  if (!r) fail_msg("%s", he.msg);
  return r;
}

static double agree(const hs_formula *f, const hs_model *m, const uint8_t *s,
                    size_t n, hs_precision prec, const hs_kernels *kt,
                    int want_err) {
  hs_runner *r = runner(m, prec, kt, want_err);
  double e = agree_r(f, m, r, s, n, prec, kt, want_err);
  hs_runner_free(r);
  return e;
}

/* Every string over {a, b, c} up to length 8, every formula, every mode,
 * f32 and f64. fixed runs at mu = 32, exact while n <= 32 / ln 7 = 16. */
static void test_exhaustive_up_to_8(void **state) {
  (void)state;
  load_formulas();
  const hs_kernels *kt = hs_kernels_default(NULL);
  const uint8_t sym[3] = {'a', 'b', 'c'};
  for (int fi = 0; fi < nformulas; fi++) {
    hs_formula *f = parse(formulas[fi]);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      if (refused_in(f, (hs_mode)mode)) continue;
      hs_model *m = compile(f, (hs_mode)mode, mode == HS_MODE_FIXED ? 32 : 4);
      hs_runner *r32 = runner(m, HS_PREC_F32, kt, 0);
      hs_runner *r64 = runner(m, HS_PREC_F64, kt, 0);
      uint8_t s[8];
      for (int L = 0; L <= 8; L++) {
        int idx[8] = {0};
        for (;;) {
          for (int i = 0; i < L; i++) s[i] = sym[idx[i]];
          agree_r(f, m, r32, s, (size_t)L, HS_PREC_F32, kt, 0);
          agree_r(f, m, r64, s, (size_t)L, HS_PREC_F64, kt, 0);
          int i = 0;
          while (i < L && ++idx[i] == 3) idx[i++] = 0;
          if (i == L) break;
        }
      }
      hs_runner_free(r32);
      hs_runner_free(r64);
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
}



/* Random strings up to 4096 in hard, pe, temp and rel at mu = 4 (f32);
 * the measured attention error never exceeds the stated bound. */
static void test_random_long(void **state) {
  (void)state;
  load_formulas();
  const hs_kernels *kt = hs_kernels_default(NULL);
  const size_t lens[] = {17, 100, 1000, 4096};
  hs_rng r = {42};
  uint8_t *s = malloc(4096);
  for (int fi = 0; fi < nformulas; fi++) {
    hs_formula *f = parse(formulas[fi]);
    for (int mode = HS_MODE_HARD; mode < HS_MODE_COUNT_; mode++) {
      if (mode == HS_MODE_FIXED) continue;
      hs_model *m = compile(f, (hs_mode)mode, 4);
      for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        hs_random_string(&r, s, lens[li]);
        int want = lens[li] <= 1000;
        double e = agree(f, m, s, lens[li], HS_PREC_F32, kt, want);
        if (want && e > m->bound * (1 + 1e-3) + 1e-6)
          fail_msg("'%s' %s n = %zu: attention error %g above bound %g",
                   f->text, m->mode, lens[li], e, m->bound);
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  free(s);
}

/* The bound of fixed holds while n <= mu / ln 7, and fixed really fails
 * once n outgrows mu: a S b at mu = 4 must go wrong somewhere by n = 200. */
static void test_fixed_bound_and_failure(void **state) {
  (void)state;
  const hs_kernels *kt = hs_kernels_default(NULL);
  hs_formula *f = parse("a S b");
  hs_model *m = compile(f, HS_MODE_FIXED, 4);
  hs_rng r = {7};
  uint8_t s[200];
  int wrong = 0;
  for (int t = 0; t < 20 && !wrong; t++) {
    hs_random_string(&r, s, sizeof s);
    uint8_t truth[200];
    hs_error he;
    hs_run_opts ro = {.precision = HS_PREC_F64, .kernels = kt};
    hs_run_result res;
    hs_truth_eval(f, f->root, s, sizeof s, truth, NULL);
    assert_int_equal(hs_forward(m, s, sizeof s, &ro, &res, &he), 0);
    wrong = memcmp(res.bits, truth, sizeof s) != 0;
    hs_run_result_free(&res);
  }
  assert_true(wrong);
  hs_model_free(m);
  /* mu = 64: exact up to n = 32 with the bound respected */
  m = compile(f, HS_MODE_FIXED, 64);
  for (size_t n = 1; n <= 32; n++) {
    hs_random_string(&r, s, n);
    double e = agree(f, m, s, n, HS_PREC_F64, kt, 1);
    assert_true(e <= hs_bound_at(HS_MODE_FIXED, 64, n) + 1e-9);
  }
  hs_model_free(m);
  hs_formula_free(f);
}

/* Saving and reloading gives a model with bit-identical outputs. */
static void test_save_reload(void **state) {
  (void)state;
  load_formulas();
  char path[] = "/tmp/hs-test-compile-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  hs_rng r = {3};
  uint8_t s[300];
  for (int fi = 0; fi < nformulas; fi += 3) {
    hs_formula *f = parse(formulas[fi]);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      if (refused_in(f, (hs_mode)mode)) continue;
      hs_error he;
      hs_model *m = compile(f, (hs_mode)mode, 4);
      assert_int_equal(hs_model_save(m, path, &he), 0);
      hs_model *m2 = hs_model_load(path, &he);
      if (!m2) fail_msg("reload: %s", he.msg);
      hs_random_string(&r, s, sizeof s);
      hs_run_opts ro = {.precision = HS_PREC_F32};
      hs_run_result a, b;
      assert_int_equal(hs_forward(m, s, sizeof s, &ro, &a, &he), 0);
      assert_int_equal(hs_forward(m2, s, sizeof s, &ro, &b, &he), 0);
      assert_memory_equal(a.values, b.values, sizeof s * sizeof(double));
      hs_run_result_free(&a);
      hs_run_result_free(&b);
      hs_model_free(m2);
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  unlink(path);
}

/* Splitting the rows among threads changes no bit of any output. */
static void test_threads_identical(void **state) {
  (void)state;
  load_formulas();
  hs_rng r = {5};
  uint8_t s[1500];
  for (int fi = 0; fi < nformulas; fi += 4) {
    hs_formula *f = parse(formulas[fi]);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      if (refused_in(f, (hs_mode)mode)) continue;
      hs_error he;
      hs_model *m = compile(f, (hs_mode)mode, 4);
      hs_random_string(&r, s, sizeof s);
      hs_run_result base, other;
      hs_run_opts ro = {.precision = HS_PREC_F32, .want_attn_error = 1};
      assert_int_equal(hs_forward(m, s, sizeof s, &ro, &base, &he), 0);
      for (int t = 2; t <= 5; t += 3) {
        ro.threads = t;
        assert_int_equal(hs_forward(m, s, sizeof s, &ro, &other, &he), 0);
        assert_memory_equal(base.values, other.values, sizeof s * sizeof(double));
        assert_memory_equal(base.attn_error, other.attn_error,
                            (size_t)m->nlayers * sizeof(double));
        hs_run_result_free(&other);
      }
      hs_run_result_free(&base);
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
}

/* Every ISA this CPU runs gives the same decisions. */
static void test_every_isa(void **state) {
  (void)state;
  load_formulas();
  hs_rng r = {11};
  uint8_t s[700];
  for (int fi = 0; fi < nformulas; fi += 2) {
    hs_formula *f = parse(formulas[fi]);
    hs_model *m = compile(f, HS_MODE_PE, 4);
    hs_random_string(&r, s, sizeof s);
    HS_FOR_EACH_ISA(kt) {
      agree(f, m, s, sizeof s, HS_PREC_F32, kt, 0);
      agree(f, m, s, sizeof s, HS_PREC_F64, kt, 0);
    }
    hs_model_free(m);
    hs_formula_free(f);
  }
}

/* Comparisons mixing #< and #> compile in hard, pe and temp, where every
 * count is taken over the common denominator n + 1 by BOS-weighted heads
 * (their outputs are checked here directly: #/(n+1) within a few float
 * roundings), and are refused with a clear error in fixed. */
static void test_counting_mixed(void **state) {
  (void)state;
  hs_formula *f = parse("#<(a) - 2*#>(b) >= 0 & Y c");
  const hs_kernels *kt = hs_kernels_default(NULL);
  hs_rng r = {7};
  uint8_t s[3000];
  for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
    hs_error he;
    hs_compile_opts o = {.mode = (hs_mode)mode, .scale = 4};
    hs_model *m = hs_compile(f, &o, &he);
    if (mode == HS_MODE_FIXED) {
      assert_null(m);
      assert_non_null(strstr(he.msg, "mixing #< and #>"));
      assert_non_null(strstr(he.msg, "fixed"));
      continue;
    }
    if (!m) fail_msg("%s: %s", hs_mode_name((hs_mode)mode), he.msg);
    /* the two weighted count heads and the 1/(n+1) head */
    int weighted = 0, common = 0;
    for (int l = 0; l < m->nlayers; l++)
      for (int h = 0; h < m->layers[l].nheads; h++) {
        const hs_head *H = &m->layers[l].heads[h];
        weighted += H->kind == HS_ATTN_SOFTMAX && H->target == HS_ATTN_SOFTMAX;
        common += H->mask == HS_MASK_NONE;
      }
    assert_int_equal(weighted, 2);
    assert_int_equal(common, 1);
    const size_t lens[] = {1, 2, 5, 64, 2999};
    for (size_t li = 0; li < 5; li++) {
      size_t n = lens[li];
      hs_random_string(&r, s, n);
      hs_run_opts ro = {.precision = HS_PREC_F64, .kernels = kt, .keep_layers = 1};
      hs_runner *run = hs_runner_new(m, &ro, &he);
      if (!run) fail_msg("%s", he.msg);
      hs_run_result res;
      assert_int_equal(hs_runner_run(run, s, n, &res, &he), 0);
      /* find the coordinates named "#<(a) / (n+1)" and "#>(b) / (n+1)" */
      int ca = -1, cb = -1, c1 = -1;
      for (int c = 0; c < m->d; c++) {
        const char *nm = m->coord_names[c];
        if (!nm) continue;
        if (strcmp(nm, "#<(a) / (n+1)") == 0) ca = c;
        if (strcmp(nm, "#>(b) / (n+1)") == 0) cb = c;
        if (strcmp(nm, "1 / (n+1)") == 0) c1 = c;
      }
      assert_true(ca >= 0 && cb >= 0 && c1 >= 0);
      const double *x = res.layers; /* residual stream after layer 0 */
      for (size_t i = 1; i <= n; i++) {
        double na = 0, nb = 0;
        for (size_t j = 1; j <= i; j++) na += s[j - 1] == 'a';
        for (size_t j = i; j <= n; j++) nb += s[j - 1] == 'b';
        const double *xi = x + i * (size_t)m->d;
        if (fabs(xi[ca] - na / (double)(n + 1)) > 1e-12 ||
            fabs(xi[cb] - nb / (double)(n + 1)) > 1e-12 ||
            fabs(xi[c1] - 1 / (double)(n + 1)) > 1e-15)
          fail_msg("%s n = %zu i = %zu: counts %.17g %.17g %.17g, want "
                   "%g/%zu %g/%zu 1/%zu", hs_mode_name((hs_mode)mode), n, i,
                   xi[ca], xi[cb], xi[c1], na, n + 1, nb, n + 1, n + 1);
      }
      hs_run_result_free(&res);
      hs_runner_free(run);
    }
    hs_model_free(m);
  }
  hs_formula_free(f);
}

/* Counting comparisons with the temperature sign (mu = 16 > 12) in hard,
 * pe, temp and rel: every string over {a, b, c} up to length 6, random strings
 * to 2000, attention error within hs_model_bound_at. */
static void test_counting_temp_sign(void **state) {
  (void)state;
  load_formulas();
  const hs_kernels *kt = hs_kernels_default(NULL);
  const uint8_t sym[3] = {'a', 'b', 'c'};
  hs_rng r = {99};
  uint8_t *s = malloc(2000);
  int tested = 0;
  for (int fi = 0; fi < nformulas; fi++) {
    hs_formula *f = parse(formulas[fi]);
    if (!hs_formula_has_op(f, HS_F_CMP)) { hs_formula_free(f); continue; }
    tested++;
    for (int mode = HS_MODE_HARD; mode < HS_MODE_COUNT_; mode++) {
      if (mode == HS_MODE_FIXED) continue;
      hs_error he;
      hs_compile_opts o = {.mode = (hs_mode)mode, .scale = 16, .sign = HS_SIGN_TEMP};
      hs_model *m = hs_compile(f, &o, &he);
      if (!m) fail_msg("%s", he.msg);
      for (int L = 0; L <= 6; L++) {
        int idx[6] = {0};
        for (;;) {
          for (int i = 0; i < L; i++) s[i] = sym[idx[i]];
          double e = agree(f, m, s, (size_t)L, HS_PREC_F32, kt, 1);
          assert_true(e <= hs_model_bound_at(m, 6) + 1e-6);
          int i = 0;
          while (i < L && ++idx[i] == 3) idx[i++] = 0;
          if (i == L) break;
        }
      }
      const size_t lens[] = {100, 2000};
      for (int li = 0; li < 2; li++) {
        hs_random_string(&r, s, lens[li]);
        agree(f, m, s, lens[li], HS_PREC_F32, kt, 0);
        agree(f, m, s, lens[li], HS_PREC_F64, kt, 0);
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  assert_true(tested >= 10);
  free(s);
}

/* Shared subformulas are computed once: (a S b) twice is one head. */
static void test_sharing(void **state) {
  (void)state;
  hs_formula *f = parse("(a S b) & X (a S b) | Y (a S b)");
  hs_model *m = compile(f, HS_MODE_TEMP, 4);
  int heads = 0;
  for (int l = 0; l < m->nlayers; l++) heads += m->layers[l].nheads;
  assert_int_equal(heads, 3); /* S once, X once, Y once */
  hs_model_free(m);
  hs_formula_free(f);
}

/* The bound and smallest mu reported per model. */
static void test_reported_bound(void **state) {
  (void)state;
  hs_formula *f = parse("a U b");
  hs_model *m = compile(f, HS_MODE_PE, 4);
  double S = 2 * exp(-4.0) / (1 - exp(-4.0));
  assert_true(fabs(m->bound - S / (1 + S)) < 1e-12);
  assert_true(fabs(m->min_scale - log(7.0)) < 1e-12);
  hs_model_free(m);
  m = compile(f, HS_MODE_HARD, 4);
  assert_true(m->bound == 0);
  hs_model_free(m);
  hs_formula_free(f);
  /* at mu = ln 7 the bound is exactly 1/4 */
  assert_true(fabs(hs_bound_at(HS_MODE_TEMP, log(7.0), 10) - 0.25) < 1e-12);
  /* by mode: none in hard; the same at every n in pe, temp and rel; fixed
   * mode's scores are mu/n apart, so at n = 4 it is pe's at mu / 4 */
  assert_true(hs_bound_at(HS_MODE_HARD, 4, 10) == 0);
  for (hs_mode md = HS_MODE_PE; md <= HS_MODE_REL; md++)
    if (md != HS_MODE_FIXED)
      assert_true(hs_bound_at(md, 4, 1) == hs_bound_at(md, 4, 1000) &&
                  fabs(hs_bound_at(md, 4, 1) - S / (1 + S)) < 1e-12);
  assert_true(fabs(hs_bound_at(HS_MODE_FIXED, 16, 4) - S / (1 + S)) < 1e-12);
}

/* Whether a formula reads a BOS-weighted count (comparisons mixing #< and
 * #>): its BOS score ln(n + 1 - i) or ln i is a query coordinate and the
 * score itself, which f16 / bf16 round either way (the weights then miss
 * n + 1; docs/HOW-IT-WORKS.md, "Two kinds of low precision"). */
static int mixed_counts(const hs_formula *f) {
  for (int i = 0; i < f->count; i++) {
    const hs_node *x = &f->nodes[i];
    for (int t = 1; x->op == HS_F_CMP && t < x->nterms; t++)
      if (x->terms[t].past != x->terms[0].past) return 1;
  }
  return 0;
}

/* Mode rel in every precision: each formula of the suite at mu = 4, with
 * the queries, keys and values stored in f16 and bf16 and with the scores
 * rounded to them, exact at every position of random strings up to 4096
 * and every string over {a, b, c} up to length 5; and the relative bias
 * checked against its definition: the attention error of f64 rows within
 * the bound. Mixed counts are left out of f16 and bf16 (see
 * mixed_counts). */
static void test_rel_every_precision(void **state) {
  (void)state;
  load_formulas();
  const hs_kernels *kt = hs_kernels_default(NULL);
  const size_t lens[] = {33, 600, 4096};
  const uint8_t sym[3] = {'a', 'b', 'c'};
  hs_rng r = {2026};
  uint8_t *s = malloc(4096);
  const struct { hs_score_round sc, st; } prec[] = {
      {HS_ROUND_F16, HS_ROUND_NONE}, {HS_ROUND_BF16, HS_ROUND_NONE},
      {HS_ROUND_NONE, HS_ROUND_F16}, {HS_ROUND_NONE, HS_ROUND_BF16}};
  for (int fi = 0; fi < nformulas; fi++) {
    hs_formula *f = parse(formulas[fi]);
    hs_model *m = compile(f, HS_MODE_REL, 4);
    for (size_t p = 0; p < sizeof prec / sizeof *prec; p++) {
      if (mixed_counts(f)) continue;
      hs_error he;
      hs_run_opts ro = {.precision = HS_PREC_F32, .kernels = kt,
                        .score_round = prec[p].sc, .qkv_round = prec[p].st};
      hs_runner *run = hs_runner_new(m, &ro, &he);
      if (!run) fail_msg("%s", he.msg);
      for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        hs_random_string(&r, s, lens[li]);
        agree_r(f, m, run, s, lens[li], HS_PREC_F32, kt, 0);
      }
      for (int L = 0; L <= 5; L++) {
        int idx[5] = {0};
        for (;;) {
          for (int i = 0; i < L; i++) s[i] = sym[idx[i]];
          agree_r(f, m, run, s, (size_t)L, HS_PREC_F32, kt, 0);
          int i = 0;
          while (i < L && ++idx[i] == 3) idx[i++] = 0;
          if (i == L) break;
        }
      }
      hs_runner_free(run);
    }
    hs_random_string(&r, s, 300);
    double e = agree(f, m, s, 300, HS_PREC_F64, kt, 1);
    if (e > m->bound * (1 + 1e-3) + 1e-9)
      fail_msg("'%s' rel f64: attention error %g above bound %g", f->text, e,
               m->bound);
    hs_model_free(m);
    hs_formula_free(f);
  }
  free(s);
}

/* The relative bias's far end: a S b at n = 2^17 with b only at position 1
 * (the witness 2^17 - 1 positions from the last query) in f16 and bf16
 * storage, exact where pe in the same precision is not. */
static void test_rel_long_low_precision(void **state) {
  (void)state;
  const hs_kernels *kt = hs_kernels_default(NULL);
  const size_t n = (size_t)1 << 17;
  uint8_t *s = malloc(n), *truth = malloc(n);
  hs_formula *f = parse("a S b");
  memset(s, 'a', n);
  s[0] = 'b';
  assert_int_equal(hs_truth_eval(f, f->root, s, n, truth, NULL), 0);
  for (int mode = HS_MODE_PE; mode <= HS_MODE_REL; mode += HS_MODE_REL - HS_MODE_PE) {
    hs_model *m = compile(f, (hs_mode)mode, 4);
    for (hs_score_round st = HS_ROUND_F16; st <= HS_ROUND_BF16; st++) {
      hs_error he;
      hs_run_opts ro = {.precision = HS_PREC_F32, .kernels = kt,
                        .qkv_round = st, .last_only = 1};
      hs_run_result res;
      assert_int_equal(hs_forward(m, s, n, &ro, &res, &he), 0);
      int ok = res.bits[n - 1] == truth[n - 1];
      if (ok != (mode == HS_MODE_REL))
        fail_msg("a S b %s storage %s at n = 2^17: model %d, logic %d",
                 m->mode, st == HS_ROUND_F16 ? "f16" : "bf16",
                 res.bits[n - 1], truth[n - 1]);
      hs_run_result_free(&res);
    }
    hs_model_free(m);
  }
  hs_formula_free(f);
  free(s);
  free(truth);
}

int main(void) {
  struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reported_bound),
      cmocka_unit_test(test_rel_long_low_precision),
      cmocka_unit_test(test_rel_every_precision),
      cmocka_unit_test(test_sharing),
      cmocka_unit_test(test_counting_mixed),
      cmocka_unit_test(test_counting_temp_sign),
      cmocka_unit_test(test_fixed_bound_and_failure),
      cmocka_unit_test(test_save_reload),
      cmocka_unit_test(test_every_isa),
      cmocka_unit_test(test_threads_identical),
      cmocka_unit_test(test_random_long),
      cmocka_unit_test(test_exhaustive_up_to_8),
  };
  hs_test_only(tests, sizeof tests / sizeof *tests);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
