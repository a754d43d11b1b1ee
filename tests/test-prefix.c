/* SPDX-License-Identifier: MIT */
/* Heads whose keys take a few values, by prefix sums
 * (src/run/prefix-impl.h): skip AUTO takes them, skip ONLINE runs the
 * kernel. Uniform heads (one value: every key scores the same):
 *
 * - Every counting formula of tests/formulas.txt in every mode whose
 *   softmax heads are all uniform (and every hard model: its other heads
 *   give the same bits on every path), f32 and f64, random strings of
 *   1 .. 8200 symbols (three blocks of the two-pass sums; f64 to 4097),
 *   one to three threads: the same bits as the kernel, no key given to a softmax
 *   kernel where every softmax head is uniform, and the decisions of the
 *   logic;
 * - models edited by hand: values that are not integers keep the kernel
 *   (keys counted, the kernel's bits); keys that score through W_k while
 *   W_q = 0 (q = 0) take the prefix sums.
 * Two values (test_few, test_two_groups): the decisions and, within
 * 1e-5, the values and stream of the kernel. The golden corpus's sources
 * in every mode (test_corpus): the decisions of --skip online, and the
 * same bits on 1 to 4 threads. Heads that select by position
 * (src/run/select-impl.h, test_select): the stream of the kernels within
 * 1e-5, their decisions, one thread's bits on 2 and 3, last_only's. */
#include "formulas.h"

#include "model/model.h"

/* Whether every softmax head of m has W_k = 0 and no relative bias (so
 * AUTO takes them all by prefix sums). */
static int all_uniform(const hs_model *m) {
  for (int l = 0; l < m->nlayers; l++)
    for (int h = 0; h < m->layers[l].nheads; h++) {
      const hs_head *H = &m->layers[l].heads[h];
      if (H->kind != HS_ATTN_SOFTMAX) continue;
      if (H->bias_slope != 0) return 0;
      for (int x = 0; x < H->dk * m->d; x++)
        if (H->wk[x] != 0) return 0;
    }
  return 1;
}

static void run(const hs_model *m, hs_precision prec, hs_skip skip, int threads,
                const uint8_t *s, size_t n, hs_run_result *r) {
  hs_error e;
  hs_run_opts ro = {.precision = prec, .skip = skip, .threads = threads};
  if (hs_forward(m, s, n, &ro, r, &e) != 0) fail_msg("forward: %s", e.msg);
}

/* m on s: AUTO on 1, 2 and 3 threads against ref (ONLINE, or ON for
 * hard models, whose other heads skip there with the dense bits), bit
 * for bit; keys: whether AUTO may give keys to a softmax kernel. */
static void same_as_kernel(const hs_model *m, hs_precision prec, hs_skip ref,
                           const uint8_t *s, size_t n, int keys, const char *what) {
  hs_run_result want;
  run(m, prec, ref, 1, s, n, &want);
  for (int th = 1; th <= 3; th++) {
    hs_run_result got;
    run(m, prec, HS_SKIP_AUTO, th, s, n, &got);
    if (memcmp(got.values, want.values, n * sizeof(double)) ||
        memcmp(got.bits, want.bits, n))
      fail_msg("%s %s n = %zu threads %d: prefix sums and kernel differ", what,
               prec == HS_PREC_F64 ? "f64" : "f32", n, th);
    if (!keys && got.attn_keys != 0)
      fail_msg("%s n = %zu: %llu keys to the kernels, none expected", what, n,
               (unsigned long long)got.attn_keys);
    hs_run_result_free(&got);
  }
  hs_run_result_free(&want);
}

static void test_counts(void **state) {
  (void)state;
  const suite *S = the_suite();
  static const size_t lens[] = {1, 7, 100, 4095, 4097, 8200};
  hs_rng r = {36};
  uint8_t *s = malloc(8200), *truth = malloc(8200);
  int models = 0, pure = 0;
  for (int fi = S->marker; fi < S->n; fi++) {
    if (!strchr(S->line[fi], '#')) continue;
    hs_error e;
    hs_formula *f = hs_formula_parse(S->line[fi], &e);
    assert_non_null(f);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      hs_compile_opts co = {.mode = (hs_mode)mode, .scale = 4};
      hs_model *m = hs_compile(f, &co, &e);
      if (!m) continue;
      int uni = all_uniform(m);
      if (!uni && mode != HS_MODE_HARD) {
        hs_model_free(m);
        continue;
      }
      models++, pure += uni && mode != HS_MODE_HARD;
      char what[600];
      snprintf(what, sizeof what, "'%s' %s", S->line[fi], hs_mode_name((hs_mode)mode));
      for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        size_t n = lens[li];
        hs_random_string(&r, s, n);
        hs_skip ref = mode == HS_MODE_HARD ? HS_SKIP_ON : HS_SKIP_ONLINE;
        for (int p = 0; p < (n < 8000 ? 2 : 1); p++)
          same_as_kernel(m, p ? HS_PREC_F64 : HS_PREC_F32, ref, s, n, !uni, what);
        if (mode == HS_MODE_FIXED) continue; /* exact only up to its n */
        hs_run_result got;
        run(m, HS_PREC_F32, HS_SKIP_AUTO, 2, s, n, &got);
        assert_int_equal(hs_truth_eval(f, hs_formula_root(f), s, n, truth, NULL), 0);
        for (size_t i = 0; i < n; i++)
          if (got.bits[i] != truth[i])
            fail_msg("%s n = %zu: position %zu: model %d, logic %d", what, n, i + 1,
                     got.bits[i], truth[i]);
        hs_run_result_free(&got);
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  printf("  %d models, %d with every softmax head uniform\n", models, pure);
  assert_true(pure >= 10);
  free(s);
  free(truth);
}

/* '#<(a) > #<(b)' in pe, its first head (the count of a) edited. */
static hs_model *majority(hs_formula **f) {
  hs_error e;
  *f = hs_formula_parse("#<(a) > #<(b)", &e);
  assert_non_null(*f);
  hs_compile_opts co = {.mode = HS_MODE_PE, .scale = 4};
  hs_model *m = hs_compile(*f, &co, &e);
  assert_non_null(m);
  assert_true(all_uniform(m) && m->layers[0].nheads >= 1);
  return m;
}

static void test_edited(void **state) {
  (void)state;
  const size_t n = 5000;
  uint8_t *s = malloc(n);
  hs_rng r = {37};
  hs_random_string(&r, s, n);
  hs_formula *f;
  /* values 0.75 per a: not integers, the kernel's (keys counted) */
  hs_model *m = majority(&f);
  hs_head *H = &m->layers[0].heads[0];
  for (int x = 0; x < H->dv * m->d; x++) H->wv[x] *= 0.75f;
  hs_run_result a;
  run(m, HS_PREC_F32, HS_SKIP_AUTO, 1, s, n, &a);
  assert_true(a.attn_keys >= (uint64_t)n * (n + 1) / 2);
  hs_run_result_free(&a);
  same_as_kernel(m, HS_PREC_F32, HS_SKIP_ONLINE, s, n, 1, "values 0.75");
  hs_model_free(m);
  hs_formula_free(f);
  /* BOS's key 1 and the others' 0, W_q = 0: every score 0 . k = 0 */
  m = majority(&f);
  H = &m->layers[0].heads[0];
  for (int p = 0; p < m->npf; p++)
    if (m->pf[p].kind == HS_PF_BOS) H->wk[m->pf[p].coord] = 1;
  assert_false(all_uniform(m));
  same_as_kernel(m, HS_PREC_F32, HS_SKIP_ONLINE, s, n, 0, "k = [BOS], W_q = 0");
  same_as_kernel(m, HS_PREC_F64, HS_SKIP_ONLINE, s, n, 0, "k = [BOS], W_q = 0");
  hs_model_free(m);
  hs_formula_free(f);
  free(s);
}

/* Heads whose keys take two values (the BOS-weighted counts of mixed
 * comparisons, the softmax signs of --sign temp) combine their groups'
 * sums in double: every counting formula of the suite in pe, temp and
 * rel, both signs, mu = 16 (the temperature sign's exact region), f32
 * and f64, random strings up to 2100 symbols: the decisions of the kernel
 * and of the logic, the values within 1e-5 of the kernel's; the mixed
 * comparison and the temperature sign give no key to a kernel. */
static void test_few(void **state) {
  (void)state;
  const suite *S = the_suite();
  static const hs_mode modes[] = {HS_MODE_PE, HS_MODE_TEMP, HS_MODE_REL};
  static const size_t lens[] = {5, 300, 2100};
  hs_rng r = {39};
  uint8_t *s = malloc(2100), *truth = malloc(2100);
  int models = 0;
  for (int fi = S->marker; fi < S->n; fi++) {
    if (!strchr(S->line[fi], '#')) continue;
    hs_error e;
    hs_formula *f = hs_formula_parse(S->line[fi], &e);
    assert_non_null(f);
    for (int k = 0; k < 6; k++) {
      hs_compile_opts co = {.mode = modes[k % 3], .scale = 16,
                            .sign = k < 3 ? HS_SIGN_LAYERNORM : HS_SIGN_TEMP};
      hs_model *m = hs_compile(f, &co, &e);
      if (!m) continue;
      models++;
      for (size_t li = 0; li < 3; li++) {
        size_t n = lens[li];
        hs_random_string(&r, s, n);
        assert_int_equal(hs_truth_eval(f, hs_formula_root(f), s, n, truth, NULL), 0);
        for (int p = 0; p < 2; p++) {
          hs_precision prec = p ? HS_PREC_F64 : HS_PREC_F32;
          hs_run_result a, b;
          run(m, prec, HS_SKIP_AUTO, 1 + (int)li % 2, s, n, &a);
          run(m, prec, HS_SKIP_ONLINE, 1, s, n, &b);
          for (size_t i = 0; i < n; i++)
            if (a.bits[i] != b.bits[i] || a.bits[i] != truth[i] ||
                !(fabs(a.values[i] - b.values[i]) <= 1e-5))
              fail_msg("'%s' %s sign %s %s n = %zu position %zu: %d (%.9g), kernel %d "
                       "(%.9g), logic %d", S->line[fi], hs_mode_name(co.mode),
                       k < 3 ? "layernorm" : "temp", p ? "f64" : "f32", n, i + 1,
                       a.bits[i], a.values[i], b.bits[i], b.values[i], truth[i]);
          int pure = !strcmp(S->line[fi], "(#<(a) != #>(a))") ||
                     (k >= 3 && !strcmp(S->line[fi], "(#<(a) > #<(b))"));
          if (pure && n > 5 && a.attn_keys != 0)
            fail_msg("'%s' %s: %llu keys to the kernels", S->line[fi],
                     hs_mode_name(co.mode), (unsigned long long)a.attn_keys);
          hs_run_result_free(&a);
          hs_run_result_free(&b);
        }
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  printf("  %d models\n", models);
  free(s);
  free(truth);
}

/* A count head edited to score the keys of symbol a above the others (W_q
 * reads the constant 1, W_k the symbol): two groups whose counts vary
 * along the string, past and future masks. The stream after the layer is
 * the kernel's within 1e-5, and no key goes to a kernel. */
static void test_two_groups(void **state) {
  (void)state;
  static const char *const fs[] = {"#<(a) > #<(b)", "#>(a) > #>(b)"};
  const size_t n = 3000;
  uint8_t *s = malloc(n);
  hs_rng r = {40};
  hs_random_string(&r, s, n);
  for (int k = 0; k < 2; k++) {
    hs_error e;
    hs_formula *f = hs_formula_parse(fs[k], &e);
    hs_compile_opts co = {.mode = HS_MODE_PE, .scale = 4};
    hs_model *m = hs_compile(f, &co, &e);
    assert_non_null(m);
    hs_head *H = &m->layers[0].heads[0];
    int one = -1, sym = -1, d = m->d;
    for (int p = 0; p < m->npf; p++)
      if (m->pf[p].kind == HS_PF_ONE) one = m->pf[p].coord;
    for (int c = 0; c < d; c++)
      if (m->embed['a' * d + c] == 1 && m->embed['b' * d + c] == 0 && c != one) sym = c;
    assert_true(one >= 0 && sym >= 0);
    H->wq[one] = 1, H->wk[sym] = 1.5f;
    for (int p = 0; p < 2; p++) {
      hs_run_opts ro = {.precision = p ? HS_PREC_F64 : HS_PREC_F32, .keep_layers = 1};
      hs_run_result a, b;
      assert_int_equal(hs_forward(m, s, n, &ro, &a, &e), 0);
      ro.skip = HS_SKIP_ONLINE;
      assert_int_equal(hs_forward(m, s, n, &ro, &b, &e), 0);
      assert_true(a.attn_keys == 0 && b.attn_keys > 0);
      for (size_t x = 0; x < (n + 1) * (size_t)d; x++)
        if (!(fabs(a.layers[x] - b.layers[x]) <= 1e-5))
          fail_msg("'%s' %s: stream row %zu column %zu: %.9g, kernel %.9g", fs[k],
                   p ? "f64" : "f32", x / (size_t)d, x % (size_t)d, a.layers[x], b.layers[x]);
      hs_run_result_free(&a);
      hs_run_result_free(&b);
    }
    hs_model_free(m);
    hs_formula_free(f);
  }
  free(s);
}

/* m on s against ONLINE (the kernels): the stream after every layer
 * within 1e-5, the decisions of the kernels and of truth (when given),
 * no key to a kernel when pure; 2 and 3 threads the same bits as one;
 * last_only the same last value as the whole run; the attention error
 * within 1e-6 of the kernels'. */
static void select_one(const hs_model *m, hs_precision prec, const uint8_t *s, size_t n,
                       const uint8_t *truth, int pure, const char *what) {
  hs_error e;
  /* last_only first: a buffer the allocator hands back holds an earlier
   * run's rows, which could hide a row it never computed */
  hs_run_opts lo = {.precision = prec, .last_only = 1};
  hs_run_result a, b, last;
  assert_int_equal(hs_forward(m, s, n, &lo, &last, &e), 0);
  hs_run_opts ro = {.precision = prec, .keep_layers = 1, .want_attn_error = 1};
  assert_int_equal(hs_forward(m, s, n, &ro, &a, &e), 0);
  ro.skip = HS_SKIP_ONLINE;
  assert_int_equal(hs_forward(m, s, n, &ro, &b, &e), 0);
  size_t d = (size_t)m->d, all = (size_t)m->nlayers * (n + 1) * d;
  const char *pn = prec == HS_PREC_F64 ? "f64" : "f32";
  for (size_t x = 0; x < all; x++)
    if (!(fabs(a.layers[x] - b.layers[x]) <= 1e-5))
      fail_msg("%s %s n = %zu: stream %zu row %zu column %zu: %.9g, kernel %.9g", what, pn,
               n, x / ((n + 1) * d), x / d % (n + 1), x % d, a.layers[x], b.layers[x]);
  for (int l = 0; l < m->nlayers; l++)
    if (!(fabs(a.attn_error[l] - b.attn_error[l]) <= 1e-6))
      fail_msg("%s %s n = %zu layer %d: attention error %.9g, kernel %.9g", what, pn, n, l,
               a.attn_error[l], b.attn_error[l]);
  for (size_t i = 0; i < n; i++)
    if (a.bits[i] != b.bits[i] || (truth && a.bits[i] != truth[i]))
      fail_msg("%s %s n = %zu position %zu: %d, kernel %d", what, pn, n, i + 1, a.bits[i],
               b.bits[i]);
  if (pure && a.attn_keys != 0)
    fail_msg("%s %s n = %zu: %llu keys to the kernels", what, pn, n,
             (unsigned long long)a.attn_keys);
  hs_run_result_free(&b);
  for (int th = 2; th <= 3; th++) {
    run(m, prec, HS_SKIP_AUTO, th, s, n, &b);
    if (memcmp(a.values, b.values, n * sizeof(double)) || memcmp(a.bits, b.bits, n))
      fail_msg("%s %s n = %zu: %d threads differ from one", what, pn, n, th);
    hs_run_result_free(&b);
  }
  if (memcmp(&a.values[n - 1], &last.values[n - 1], sizeof(double)))
    fail_msg("%s %s n = %zu: last_only %.17g, the whole run %.17g", what, pn, n,
             last.values[n - 1], a.values[n - 1]);
  hs_run_result_free(&last);
  hs_run_result_free(&a);
}

/* Heads that select by position (src/run/select-impl.h): the shift
 * heads of Y and of C-RASP's #[predK], pe, temp and fixed, mu = 4 and 16,
 * f32 and f64, strings over 1 .. 3 row blocks: select_one (the logic's
 * decisions but in fixed mode, exact only at short n); the formulas whose
 * only heads are shifts give no key to a kernel in pe. */
static void test_select(void **state) {
  (void)state;
  static const char *const fs[] = {"Y a", "Y Y Y (a & Y b)", "a & Y Y Y Y b"};
  static const hs_mode modes[] = {HS_MODE_PE, HS_MODE_TEMP, HS_MODE_FIXED};
  static const size_t lens[] = {3, 300, 4097, 9000};
  static const double mus[] = {4, 16};
  hs_rng r = {42};
  uint8_t *s = malloc(9000), *truth = malloc(9000);
  int models = 0;
  for (size_t k = 0; k < sizeof fs / sizeof *fs; k++) {
    hs_error e;
    hs_formula *f = hs_formula_parse(fs[k], &e);
    assert_non_null(f);
    for (int c = 0; c < 6; c++) {
      hs_compile_opts co = {.mode = modes[c % 3], .scale = mus[c / 3]};
      hs_model *m = hs_compile(f, &co, &e);
      if (!m) continue;
      models++;
      char what[200];
      snprintf(what, sizeof what, "'%s' %s mu %g", fs[k], hs_mode_name(co.mode), co.scale);
      for (size_t li = 0; li < 4; li++) {
        size_t n = co.mode == HS_MODE_FIXED && lens[li] > 30 ? 30 : lens[li];
        hs_random_string(&r, s, n);
        assert_int_equal(hs_truth_eval(f, hs_formula_root(f), s, n, truth, NULL), 0);
        for (int p = 0; p < 2; p++)
          select_one(m, p ? HS_PREC_F64 : HS_PREC_F32, s, n,
                     co.mode == HS_MODE_FIXED ? NULL : truth,
                     co.mode == HS_MODE_PE && n > 3, what);
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  printf("  %d models\n", models);
  free(s);
  free(truth);
}

/* m on s (n symbols): AUTO on 1, 2, 3 and 4 threads gives the same bits
 * (values and decisions) as on one, and the decisions of ONLINE, which
 * runs the kernels on every head. */
static void corpus_one(const hs_model *m, const uint8_t *s, size_t n, const char *what) {
  hs_run_result one, ref;
  run(m, HS_PREC_F32, HS_SKIP_AUTO, 1, s, n, &one);
  run(m, HS_PREC_F32, HS_SKIP_ONLINE, 1, s, n, &ref);
  for (size_t i = 0; i < n; i++)
    if (one.bits[i] != ref.bits[i])
      fail_msg("%s n = %zu position %zu: auto %d (%.9g), online %d (%.9g)", what, n, i + 1,
               one.bits[i], one.values[i], ref.bits[i], ref.values[i]);
  for (int th = 2; th <= 4; th++) {
    hs_run_result got;
    run(m, HS_PREC_F32, HS_SKIP_AUTO, th, s, n, &got);
    if (memcmp(got.values, one.values, n * sizeof(double)) || memcmp(got.bits, one.bits, n))
      fail_msg("%s n = %zu: %d threads differ from one", what, n, th);
    hs_run_result_free(&got);
  }
  hs_run_result_free(&one);
  hs_run_result_free(&ref);
}

/* Source f, or program p when f is NULL (its bytes sym[0..k)), in every mode, and with the temperature
 * sign when it counts: corpus_one on random strings over sym, of length
 * 300 and, for a source that counts, 4500 (two key blocks); fixed mode
 * at 30 alone (exact only up to its n). */
static void corpus_source(const hs_formula *f, const hs_program *p, const uint8_t *sym, int k,
                          int counts, const char *name, hs_rng *r, uint8_t *s) {
  for (int c = 0; c < 2 * HS_MODE_COUNT_; c++) {
    hs_compile_opts co = {.mode = (hs_mode)(c % HS_MODE_COUNT_), .scale = 16,
                          .sign = c < HS_MODE_COUNT_ ? HS_SIGN_LAYERNORM : HS_SIGN_TEMP};
    if (co.sign == HS_SIGN_TEMP && !counts) break;
    hs_error e;
    hs_model *m = p ? hs_program_compile(p, &co, &e) : hs_compile(f, &co, &e);
    if (!m) continue;
    char what[700];
    snprintf(what, sizeof what, "'%s' %s sign %s", name, hs_mode_name(co.mode),
             co.sign == HS_SIGN_TEMP ? "temp" : "layernorm");
    size_t lens[2] = {co.mode == HS_MODE_FIXED ? 30 : 300, counts ? 4500 : 0};
    for (int li = 0; li < 2 && lens[li] && (li == 0 || co.mode != HS_MODE_FIXED); li++) {
      int fav = hs_rng_next(r) % 2 ? (int)(hs_rng_next(r) % (uint64_t)k) : -1;
      for (size_t i = 0; i < lens[li]; i++) {
        uint64_t x = hs_rng_next(r);
        s[i] = fav >= 0 && x % 4 ? sym[fav] : sym[(x >> 8) % (uint64_t)k];
      }
      corpus_one(m, s, lens[li], what);
    }
    hs_model_free(m);
  }
}

/* The golden corpus's sources (tests/golden/golden.py): every formula of
 * tests/formulas.txt and bench/formulas.txt, every program of
 * tests/programs/ that compiles, in every mode: corpus_one. */
static void test_corpus(void **state) {
  (void)state;
  static const char *const progs[] = {
      "aa_star.cr", "contains_ab.cr", "copy4.cr", "count3.cr", "dyck1.cr", "increment.cr",
      "longtok.cr", "minmax.cr", "shifts.cr", "ab-star.brasp", "deep.brasp",
      "dyck2.brasp", "first-last.brasp", "mask-none.brasp", "query-score.brasp",
      "since.brasp", "even-a.re", "parity.re"};
  static const uint8_t ltl[4] = {'a', 'b', 'c', '#'};
  hs_rng r = {41};
  uint8_t *s = malloc(4500);
  const suite *S = the_suite();
  setenv("HARDSOFT_FORMULAS", "bench/formulas.txt", 1);
  suite B = load_suite();
  int sources = 0;
  for (int fi = 0; fi < S->n + B.n; fi++) {
    const char *line = fi < S->n ? S->line[fi] : B.line[fi - S->n];
    hs_error e;
    hs_formula *f = hs_formula_parse(line, &e);
    if (!f) fail_msg("'%s': %s", line, e.msg);
    corpus_source(f, NULL, ltl, 4, strchr(line, '#') != NULL, line, &r, s);
    hs_formula_free(f);
    sources++;
  }
  for (size_t k = 0; k < sizeof progs / sizeof *progs; k++) {
    char path[128], text[1 << 14];
    snprintf(path, sizeof path, "tests/programs/%s", progs[k]);
    FILE *fp = fopen(path, "r");
    if (!fp) fail_msg("cannot open %s (run from the repository root)", path);
    size_t len = fread(text, 1, sizeof text, fp);
    fclose(fp);
    hs_error e;
    hs_program *p = hs_program_parse(text, len, hs_lang_from_path(path), &e);
    if (!p) fail_msg("%s: %s", path, e.msg);
    uint8_t sym[64];
    int nv = hs_program_vocab_size(p), ns = 0;
    for (int t = 0; t < nv && ns < 63; t++) sym[ns++] = (uint8_t)hs_program_token_byte(p, t);
    sym[ns++] = (uint8_t)hs_program_other_byte(p);
    if (hs_program_lowered(p, NULL) == 0)
      corpus_source(NULL, p, sym, ns, hs_program_lang(p) == HS_LANG_CRASP, progs[k], &r, s),
          sources++;
    hs_program_free(p);
  }
  printf("  %d sources\n", sources);
  free_suite(&B);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts),
      cmocka_unit_test(test_edited),
      cmocka_unit_test(test_few),
      cmocka_unit_test(test_two_groups),
      cmocka_unit_test(test_select),
      cmocka_unit_test(test_corpus),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
