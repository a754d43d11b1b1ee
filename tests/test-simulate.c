/* SPDX-License-Identifier: MIT */
/* Simulating hard attention with softmax (src/run/simulate.c):
 *   - the score gap gamma and the uniform / tieless / tied classification
 *     on hand-built one-head models whose scores are constructed exactly
 *     (ties, unique maxima, all equal, a near tie of 1e-6 in f64);
 *   - the temperature law tau = gamma / (mu + ln(n+1)) and its bound;
 *   - the softmax model built from a hard one;
 *   - hs_simulate on the example models of bench/models (run from the
 *     repository root, or set HS_MODELS_DIR): the hard run matches each
 *     model's semantics computed here in C, and the softmax run agrees with
 *     it at every decision with a small deviation, at random strings up to
 *     n = 4096;
 *   - tied unique-hard heads, whose ties a position term breaks (the gap
 *     law of src/run/simulate.c), and every suite formula compiled in hard
 *     mode, simulated with every decision agreeing. */
#include "formulas.h"
#include "model/model.h"

/* ---------------------------------------------------------- one head */

/* Coordinates: 0 one, 1 bos, 2 [a], 3 i, 4 output. One layer with one
 * head of the given kind and mask; query = one, key row `key` (weights on
 * the five coordinates), so the score of key j is key . x_j exactly; value
 * [a] into the output. */
enum { C_ONE, C_BOS, C_A, C_I, C_OUT, D };

static hs_model *one_head(hs_attn_kind kind, hs_mask mask, const float key[D],
                          float qscale) {
  hs_model *m = hs_model_new(D, 1);
  assert_non_null(m);
  assert_int_equal(hs_model_add_pf(m, HS_PF_ONE, C_ONE, 0, 0), 0);
  assert_int_equal(hs_model_add_pf(m, HS_PF_BOS, C_BOS, 0, 0), 0);
  assert_int_equal(hs_model_add_pf(m, HS_PF_I, C_I, 0, 0), 0);
  m->embed['a' * D + C_A] = 1;
  hs_head *H = hs_model_add_head(m, 0, 1, 1);
  assert_non_null(H);
  H->kind = H->target = kind;
  H->mask = mask;
  H->wq[C_ONE] = qscale;
  for (int c = 0; c < D; c++) H->wk[c] = key[c];
  H->wv[C_A] = 1;
  H->wo[C_OUT] = 1;
  m->out_coord = C_OUT;
  hs_error he;
  assert_int_equal(hs_model_validate(m, &he), 0);
  return m;
}

/* Head statistics of m over the strings, merged. */
static hs_head_stats stats_of(const hs_model *m, hs_precision p, int count,
                              const char *const *w) {
  hs_head_stats acc;
  hs_head_stats_init(&acc, 1);
  hs_run_opts o = {.precision = p, .want_gaps = 1};
  hs_error he;
  for (int s = 0; s < count; s++) {
    hs_run_result r;
    assert_int_equal(hs_forward(m, (const uint8_t *)w[s], strlen(w[s]), &o, &r, &he), 0);
    assert_non_null(r.head_stats);
    hs_head_stats_merge(&acc, r.head_stats, 1);
    hs_run_result_free(&r);
  }
  return acc;
}

/* score [a] (BOS 0): "abab" has two maximal positions at query 3 and 4 */
static void test_exact_ties(void **state) {
  (void)state;
  const char *w[] = {"abab"};
  for (int k = 0; k < 3; k++) {
    hs_attn_kind kind = (hs_attn_kind[]){HS_ATTN_HARD_AVG, HS_ATTN_HARD_LEFT,
                                         HS_ATTN_HARD_RIGHT}[k];
    for (int p = 0; p < 2; p++) {
      float key[D] = {[C_A] = 0.75f};
      hs_model *m = one_head(kind, HS_MASK_LE, key, 1);
      hs_head_stats st = stats_of(m, p ? HS_PREC_F64 : HS_PREC_F32, 1, w);
      assert_true(st.tied);
      assert_true(st.nonuniform);
      assert_true(st.gap == 0.75); /* exactly: 0.75 * 1 - 0 */
      assert_int_equal(hs_head_classify(m, 0, &st), HS_HEAD_TIED);
      assert_int_equal(hs_head_tied_unique(m, 0, &st), kind != HS_ATTN_HARD_AVG);
      assert_true(hs_sim_gamma(m, &st) == 0.75);
      hs_model_free(m);
    }
  }
}

/* score j (BOS -2): a unique maximum at every query, gap exactly 1 (or
 * the scale of the key) */
static void test_unique_maxima(void **state) {
  (void)state;
  const char *w[] = {"ab", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "a"};
  float scales[] = {1, 0.5f, 3};
  for (int k = 0; k < 3; k++) {
    float key[D] = {[C_I] = scales[k], [C_BOS] = -2};
    hs_model *m = one_head(HS_ATTN_HARD_RIGHT, HS_MASK_LE, key, 1);
    hs_head_stats st = stats_of(m, HS_PREC_F32, 3, w);
    assert_false(st.tied);
    assert_true(st.nonuniform);
    /* i = 1 sees BOS (-2) and 1 (scale): the gap there is 2 + scale */
    assert_true(st.gap == (double)scales[k]);
    assert_int_equal(hs_head_classify(m, 0, &st), HS_HEAD_TIELESS);
    assert_false(hs_head_tied_unique(m, 0, &st));
    hs_model_free(m);
  }
  /* mask lt at query 1 sees BOS alone: no gap from it */
  float key[D] = {[C_I] = 1};
  hs_model *m = one_head(HS_ATTN_HARD_LEFT, HS_MASK_LT, key, -1);
  const char *one[] = {"a"};
  hs_head_stats st = stats_of(m, HS_PREC_F32, 1, one);
  assert_false(st.nonuniform);
  assert_true(isinf(st.gap));
  hs_model_free(m);
}

/* all scores 0: uniform, gap infinite, any tau */
static void test_all_equal(void **state) {
  (void)state;
  const char *w[] = {"abba", "", "aaaaaaaaaaaaaa"};
  float key[D] = {[C_A] = 5, [C_I] = 1};
  for (int k = 0; k < 2; k++) {
    hs_model *m = one_head(k ? HS_ATTN_HARD_AVG : HS_ATTN_HARD_LEFT, HS_MASK_LE, key, 0);
    hs_head_stats st = stats_of(m, HS_PREC_F32, 3, w);
    assert_false(st.nonuniform);
    assert_true(st.tied);
    assert_true(isinf(st.gap));
    assert_int_equal(hs_head_classify(m, 0, &st), HS_HEAD_UNIFORM);
    /* a uniform unique-hard head is tied all the same: not simulable */
    assert_int_equal(hs_head_tied_unique(m, 0, &st), k == 0);
    assert_true(isinf(hs_sim_gamma(m, &st)));
    assert_true(hs_sim_tau(hs_sim_gamma(m, &st), 4, 100) == 1);
    hs_model_free(m);
  }
}

/* score [a] + 1e-6 j: neighbours differ by 1e-6 on top of 1; exact in f64
 * up to the rounding of 1 + k 1e-6 (about 1e-16), so the gap is 1e-6
 * (the float nearest 1e-6, as weights are stored in F32) */
static void test_near_tie(void **state) {
  (void)state;
  const char *w[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ba"};
  float key[D] = {[C_A] = 1, [C_I] = 1e-6f, [C_BOS] = -1};
  hs_model *m = one_head(HS_ATTN_HARD_RIGHT, HS_MASK_LE, key, 1);
  hs_head_stats st = stats_of(m, HS_PREC_F64, 2, w);
  double want = (double)1e-6f;
  assert_false(st.tied);
  assert_int_equal(hs_head_classify(m, 0, &st), HS_HEAD_TIELESS);
  assert_true(fabs(st.gap - want) < 1e-12);
  assert_true(fabs(hs_sim_gamma(m, &st) - 1e-6) < 1e-12);
  hs_model_free(m);
  /* average-hard, score [a] + 1e-6 j: the b's before the a differ from
   * each other and from BOS (0) by 1e-6; the a at 4 wins by about 1 */
  float key2[D] = {[C_A] = 1, [C_I] = 1e-6f};
  m = one_head(HS_ATTN_HARD_AVG, HS_MASK_LE, key2, 1);
  const char *w2[] = {"bbba"};
  st = stats_of(m, HS_PREC_F64, 1, w2);
  assert_true(fabs(st.gap - want) < 1e-12);
  hs_model_free(m);
}

/* the gap over several strings is the smallest of each string's */
static void test_merge(void **state) {
  (void)state;
  float key[D] = {[C_A] = 0.5f, [C_I] = 0.25f};
  hs_model *m = one_head(HS_ATTN_HARD_AVG, HS_MASK_LE, key, 1);
  const char *a[] = {"bbb"}; /* scores 0, .25, .5, .75: gap .25 */
  const char *b[] = {"ab"};  /* scores 0, .75, .5: gap .25 */
  const char *c[] = {"a"};   /* 0, .75: gap .75 */
  const char *all[] = {"a", "bbb"};
  assert_true(stats_of(m, HS_PREC_F32, 1, a).gap == 0.25);
  assert_true(stats_of(m, HS_PREC_F32, 1, b).gap == 0.25);
  assert_true(stats_of(m, HS_PREC_F32, 1, c).gap == 0.75);
  assert_true(stats_of(m, HS_PREC_F32, 2, all).gap == 0.25);
  hs_head_stats x = {INFINITY, 0, 0}, y = {0.125, 1, 1};
  hs_head_stats_merge(&x, &y, 1);
  assert_true(x.gap == 0.125 && x.tied && x.nonuniform);
  hs_model_free(m);
}

/* ---------------------------------------------------------- the law */

static void test_tau_law(void **state) {
  (void)state;
  double mus[] = {1, 4, 9.5}, gammas[] = {1, 1e-3, 1e-6};
  size_t ns[] = {0, 1, 16, 4096, 1u << 20};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 5; c++) {
        double t = hs_sim_tau(gammas[b], mus[a], ns[c]);
        assert_true(fabs(t - gammas[b] / (mus[a] + log((double)ns[c] + 1))) <= 1e-15 * t);
        /* the bound it buys: (n+1) e^{-gamma/tau} = e^{-mu} */
        double bound = ((double)ns[c] + 1) * exp(-gammas[b] / t);
        assert_true(fabs(bound - exp(-mus[a])) <= 1e-12 * exp(-mus[a]));
      }
  assert_true(hs_sim_tau(INFINITY, 4, 10) == 1);
  assert_true(hs_sim_tau(0, 4, 10) == 0);
  assert_true(hs_sim_tau(-1, 4, 10) == 0);
  assert_true(hs_sim_tau(1, 0, 10) == 0);
  assert_true(hs_sim_tau(NAN, 4, 10) == 0);
  assert_true(hs_sim_tau(1, INFINITY, 10) == 0);
}

static void test_soft_model(void **state) {
  (void)state;
  float key[D] = {[C_A] = 1};
  hs_model *m = one_head(HS_ATTN_HARD_LEFT, HS_MASK_LT, key, 1);
  hs_head *H2 = hs_model_add_head(m, 0, 1, 1); /* a softmax head: kept */
  assert_non_null(H2);
  H2->tau_law = HS_TAU_INV_N;
  H2->tau_c = 0.5;
  H2->target = HS_ATTN_HARD_RIGHT;
  hs_model *s = hs_simulate_soft_model(m, 0.125, NULL);
  assert_non_null(s);
  const hs_head *a = &s->layers[0].heads[0], *b = &s->layers[0].heads[1];
  assert_int_equal(a->kind, HS_ATTN_SOFTMAX);
  assert_int_equal(a->target, HS_ATTN_HARD_LEFT);
  assert_int_equal(a->tau_law, HS_TAU_CONST);
  assert_true(a->tau_c == 0.125);
  assert_int_equal(a->mask, HS_MASK_LT);
  assert_memory_equal(a->wk, m->layers[0].heads[0].wk, D * sizeof(float));
  assert_int_equal(b->kind, HS_ATTN_SOFTMAX);
  assert_int_equal(b->tau_law, HS_TAU_INV_N);
  assert_true(b->tau_c == 0.5);
  assert_int_equal(b->target, HS_ATTN_HARD_RIGHT);
  /* the original is untouched */
  assert_int_equal(m->layers[0].heads[0].kind, HS_ATTN_HARD_LEFT);
  hs_error he;
  assert_int_equal(hs_model_validate(s, &he), 0);
  assert_int_equal(hs_model_nheads(s), 2);
  assert_int_equal(hs_head_classify(s, 1, &(hs_head_stats[2]){0}[0]), HS_HEAD_SOFT);
  hs_model_free(s);
  assert_null(hs_simulate_soft_model(m, 0, NULL));
  assert_null(hs_simulate_soft_model(m, INFINITY, NULL));
  assert_null(hs_simulate_soft_model(m, NAN, NULL));
  hs_model_free(m);
}

/* ---------------------------------------------------------- models */

/* Each example model's meaning at positions 1..n (out[i-1]). */
static void want_majority(const uint8_t *w, size_t n, uint8_t *out) {
  long d = 0;
  for (size_t i = 0; i < n; i++) {
    d += (w[i] == 'a') - (w[i] == 'b');
    out[i] = d > 0;
  }
}
static void want_first_equals_last(const uint8_t *w, size_t n, uint8_t *out) {
  for (size_t i = 0; i < n; i++)
    out[i] = w[i] == w[0] && (w[i] == 'a' || w[i] == 'b');
}
static void want_dyck1_prefix(const uint8_t *w, size_t n, uint8_t *out) {
  long d = 0;
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    d += (w[i] == 'a') - (w[i] == 'b');
    ok &= d >= 0;
    out[i] = (uint8_t)ok;
  }
}
static void want_after_last_b(const uint8_t *w, size_t n, uint8_t *out) {
  size_t lastb = 0; /* 1-based position of the last b before i; 0 none */
  for (size_t i = 1; i <= n; i++) {
    out[i - 1] = lastb && w[lastb] == 'a'; /* w[lastb] is position lastb+1 */
    if (w[i - 1] == 'b') lastb = i;
  }
}

typedef struct example {
  const char *file;
  void (*want)(const uint8_t *, size_t, uint8_t *);
  int classes[4]; /* layer by layer: expected hs_head_class */
  int nheads;
} example;

static const example examples[] = {
  {"majority", want_majority, {HS_HEAD_UNIFORM, HS_HEAD_TIED}, 2},
  {"first-equals-last", want_first_equals_last, {HS_HEAD_TIELESS}, 1},
  {"dyck1-prefix", want_dyck1_prefix, {HS_HEAD_UNIFORM, HS_HEAD_TIED, HS_HEAD_TIED}, 3},
  {"after-last-b", want_after_last_b, {HS_HEAD_TIELESS, HS_HEAD_TIELESS}, 2},
};

static hs_model *load_example(const char *name) {
  const char *dir = getenv("HS_MODELS_DIR");
  char path[512];
  hs_error he;
  snprintf(path, sizeof path, "%s/%s.safetensors", dir && *dir ? dir : "bench/models", name);
  hs_model *m = hs_model_load(path, &he);
  if (!m) fail_msg("%s: %s (run from the repository root or set HS_MODELS_DIR)", path, he.msg);
  return m;
}

/* Random strings over {a, b}: P(a) = bias/10. */
static void random_ab(hs_rng *r, uint8_t *w, size_t n, int bias) {
  for (size_t i = 0; i < n; i++) w[i] = hs_rng_next(r) % 10 < (uint64_t)bias ? 'a' : 'b';
}

static void simulate_example(const example *e, hs_precision prec) {
  hs_model *m = load_example(e->file);
  assert_int_equal(hs_model_nheads(m), e->nheads);
  static const size_t lens[] = {1, 2, 3, 5, 8, 17, 64, 300, 1000, 4096};
  enum { NL = sizeof lens / sizeof *lens, PER = 3 };
  uint8_t *w[NL * PER];
  size_t len[NL * PER];
  hs_rng r = {7};
  int k = 0;
  for (int a = 0; a < NL; a++)
    for (int t = 0; t < PER && (t == 0 || lens[a] < 4096); t++) {
      w[k] = malloc(lens[a]);
      len[k] = lens[a];
      random_ab(&r, w[k], lens[a], (int[]){5, 6, 9}[t]);
      k++;
    }
  /* the hard model is right: its decisions are the model's meaning */
  hs_run_opts ro = {.precision = prec};
  hs_error he;
  for (int s = 0; s < k; s++) {
    hs_run_result hr;
    uint8_t *want = malloc(len[s]);
    e->want(w[s], len[s], want);
    assert_int_equal(hs_forward(m, w[s], len[s], &ro, &hr, &he), 0);
    for (size_t i = 0; i < len[s]; i++)
      if (hr.bits[i] != want[i])
        fail_msg("%s: hard run, length %zu, position %zu: %d, want %d", e->file,
                 len[s], i + 1, hr.bits[i], want[i]);
    hs_run_result_free(&hr);
    free(want);
  }
  double mu = 4;
  hs_sim_opts so = {.scale = mu, .precision = prec};
  hs_sim_result res;
  assert_int_equal(hs_simulate(m, (size_t)k, (const uint8_t *const *)w, len, &so, &res, &he), 0);
  size_t pos = 0;
  for (int s = 0; s < k; s++) pos += len[s];
  assert_int_equal(res.strings, (size_t)k);
  assert_int_equal(res.positions, pos);
  assert_int_equal(res.n, 4096);
  if (res.agree != res.positions)
    fail_msg("%s: %zu of %zu decisions disagree (string %zu, position %zu)", e->file,
             res.positions - res.agree, res.positions, res.bad_string, res.bad_pos);
  for (int h = 0; h < e->nheads; h++) {
    assert_int_equal(hs_head_classify(m, h, res.heads), e->classes[h]);
    assert_false(hs_head_tied_unique(m, h, res.heads));
  }
  /* tau from the law; the measured weight off the hard choice within the
   * bound e^{-mu} (up to the rounding of the working precision), and
   * every layer within it too, since values are 0/1 and the FFNs round */
  assert_true(fabs(res.tau - res.gamma / (mu + log(4097.0))) <= 1e-15);
  assert_true(fabs(res.bound - exp(-mu)) < 1e-9);
  double tol = prec == HS_PREC_F64 ? 1e-9 : 1e-4;
  if (!(res.attn_error <= exp(-mu) + tol))
    fail_msg("%s: attention error %g above e^-mu = %g", e->file, res.attn_error, exp(-mu));
  for (int l = 0; l < res.nlayers; l++)
    if (!(res.deviation[l] <= exp(-mu) + tol))
      fail_msg("%s: layer %d deviates by %g", e->file, l, res.deviation[l]);
  printf("%s (%s): gamma %.6g, tau %.6g, max attention error %.3g, deviation",
         e->file, prec == HS_PREC_F64 ? "f64" : "f32", res.gamma, res.tau, res.attn_error);
  for (int l = 0; l < res.nlayers; l++) printf(" %.3g", res.deviation[l]);
  printf("\n");
  /* the gaps the models are built with */
  if (strcmp(e->file, "first-equals-last") == 0 || strcmp(e->file, "after-last-b") == 0)
    assert_true(res.gamma == 1);
  else /* (#a - #b -+ 1/2)/(i+1): at least 1/(2(n+1)), about that at some i */
    assert_true(res.gamma >= 0.5 / 4097 * (1 - 1e-6) && res.gamma < 0.01);
  hs_sim_result_free(&res);
  for (int s = 0; s < k; s++) free(w[s]);
  hs_model_free(m);
}

static void test_examples_f32(void **state) {
  (void)state;
  for (size_t e = 0; e < sizeof examples / sizeof *examples; e++)
    simulate_example(&examples[e], HS_PREC_F32);
}

static void test_examples_f64(void **state) {
  (void)state;
  for (size_t e = 0; e < sizeof examples / sizeof *examples; e++)
    simulate_example(&examples[e], HS_PREC_F64);
}

/* --gamma: a larger gamma gives a larger tau; the bound reported is the
 * one for the measured gap */
static void test_gamma_override(void **state) {
  (void)state;
  hs_model *m = load_example("first-equals-last");
  const uint8_t *w[] = {(const uint8_t *)"abba", (const uint8_t *)"baaab"};
  size_t len[] = {4, 5};
  hs_sim_opts so = {.scale = 4, .gamma = 2};
  hs_sim_result r;
  hs_error he;
  assert_int_equal(hs_simulate(m, 2, w, len, &so, &r, &he), 0);
  assert_true(r.gamma_measured == 1);
  assert_true(r.gamma == 2);
  assert_true(fabs(r.tau - 2 / (4 + log(6.0))) < 1e-15);
  assert_true(fabs(r.bound - 6 * exp(-1 / r.tau)) < 1e-12);
  hs_sim_result_free(&r);
  so.scale = 0;
  assert_int_equal(hs_simulate(m, 2, w, len, &so, &r, &he), -1);
  assert_non_null(strstr(he.msg, "mu"));
  so.scale = 4, so.gamma = -1;
  assert_int_equal(hs_simulate(m, 2, w, len, &so, &r, &he), -1);
  assert_non_null(strstr(he.msg, "gamma"));
  /* no strings: nothing measured, tau = 1 */
  so.gamma = 0;
  assert_int_equal(hs_simulate(m, 0, w, len, &so, &r, &he), 0);
  assert_true(isinf(r.gamma) && r.tau == 1 && r.positions == 0);
  hs_sim_result_free(&r);
  hs_model_free(m);
}

/* A unique-hard head over all-equal scores picks one position; softmax
 * averages them all ("leftmost j <= i" picks BOS, value 0, where softmax
 * would read #a/(i+1), above 1/2 on "aaa"). The position term breaks the
 * ties: gap 1/n with delta = 1, and every decision agrees. */
static void test_tied_unique_broken(void **state) {
  (void)state;
  float key[D] = {0};
  hs_model *m = one_head(HS_ATTN_HARD_LEFT, HS_MASK_LE, key, 1);
  const uint8_t *w[] = {(const uint8_t *)"aaa", (const uint8_t *)"bab"};
  size_t len[] = {3, 3};
  hs_sim_opts so = {.scale = 4};
  hs_sim_result r;
  hs_error he;
  assert_int_equal(hs_simulate(m, 2, w, len, &so, &r, &he), 0);
  assert_int_equal(hs_head_classify(m, 0, r.heads_before), HS_HEAD_UNIFORM);
  assert_true(hs_head_tied_unique(m, 0, r.heads_before));
  assert_int_equal(r.ties_broken, 1);
  assert_true(isinf(r.gamma_before));
  assert_false(hs_head_tied_unique(m, 0, r.heads));
  assert_int_equal(hs_head_classify(m, 0, r.heads), HS_HEAD_TIELESS);
  assert_float_equal(r.gamma_measured, 1.0 / 3, 1e-6);
  assert_int_equal(r.agree, r.positions);
  assert_true(r.deviation[0] <= r.bound);
  hs_sim_result_free(&r);
  /* the same head average-hard is simulated as it is, no ties broken */
  m->layers[0].heads[0].kind = m->layers[0].heads[0].target = HS_ATTN_HARD_AVG;
  assert_int_equal(hs_simulate(m, 2, w, len, &so, &r, &he), 0);
  assert_int_equal(r.ties_broken, 0);
  assert_false(hs_head_tied_unique(m, 0, r.heads));
  assert_int_equal(r.agree, r.positions);
  assert_true(r.deviation[0] < 1e-6);
  hs_sim_result_free(&r);
  hs_model_free(m);
}

/* Ties broken on a head with a finite gap: "rightmost j <= i with the
 * largest [a]" is tied wherever two a's precede i; delta = gamma/2 keeps
 * the choice, and the new gap is min(delta/n, gamma - delta). */
static void test_tie_gap_law(void **state) {
  (void)state;
  float key[D] = {0};
  key[C_A] = 1;
  hs_model *m = one_head(HS_ATTN_HARD_RIGHT, HS_MASK_LE, key, 2); /* gamma = 2 */
  const uint8_t *w[] = {(const uint8_t *)"abaab"};
  size_t len[] = {5};
  hs_sim_opts so = {.scale = 4, .precision = HS_PREC_F64};
  hs_sim_result r;
  hs_error he;
  assert_int_equal(hs_simulate(m, 1, w, len, &so, &r, &he), 0);
  assert_int_equal(r.ties_broken, 1);
  assert_float_equal(r.gamma_before, 2, 0);
  assert_float_equal(r.gamma_measured, 1.0 / 5, 1e-12); /* delta / n, delta = 1 */
  assert_int_equal(r.agree, r.positions);
  hs_sim_result_free(&r);
  hs_model_free(m);
}

/* Every model compile --mode hard writes simulates: all decisions agree,
 * no tied unique-hard head is left, on random strings of the suite's
 * alphabet (every formula at n = 16 and 256, a few at n = 4096). */
static void simulate_compiled(const char *text, const size_t *ns, int count) {
  hs_error e;
  memset(&e, 0, sizeof e);
  hs_formula *f = hs_formula_parse(text, &e);
  assert_non_null(f);
  hs_compile_opts co = {.mode = HS_MODE_HARD, .scale = 4};
  hs_error he;
  hs_model *m = hs_compile(f, &co, &he);
  if (!m) fail_msg("%s: %s", text, he.msg);
  hs_rng rng = {0x5eed + strlen(text)};
  for (int k = 0; k < count; k++) {
    uint8_t *buf[3];
    size_t len[3];
    for (int s = 0; s < 3; s++) {
      len[s] = ns[k];
      buf[s] = malloc(ns[k] + 1);
      hs_random_string(&rng, buf[s], ns[k]);
    }
    hs_sim_opts so = {.scale = 4};
    hs_sim_result r;
    if (hs_simulate(m, 3, (const uint8_t *const *)buf, len, &so, &r, &he))
      fail_msg("%s: %s", text, he.msg);
    for (int h = 0; h < r.nheads; h++)
      if (hs_head_tied_unique(m, h, r.heads)) fail_msg("%s: head %d still tied", text, h);
    if (r.agree != r.positions)
      fail_msg("%s, n = %zu: %zu/%zu decisions agree (first: string %zu position %zu)",
               text, ns[k], r.agree, r.positions, r.bad_string, r.bad_pos);
    hs_sim_result_free(&r);
    for (int s = 0; s < 3; s++) free(buf[s]);
  }
  hs_model_free(m);
  hs_formula_free(f);
}

static void test_compiled_hard_models(void **state) {
  (void)state;
  const suite *s = the_suite();
  const size_t small[] = {16, 256}, big[] = {4096};
  for (int i = 0; i < s->n; i++) simulate_compiled(s->line[i], small, 2);
  const char *some[] = {"a S b", "Y a", "a U b", "X a"};
  for (size_t i = 0; i < sizeof some / sizeof *some; i++) simulate_compiled(some[i], big, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_ties),     cmocka_unit_test(test_unique_maxima),
      cmocka_unit_test(test_all_equal),      cmocka_unit_test(test_near_tie),
      cmocka_unit_test(test_merge),          cmocka_unit_test(test_tau_law),
      cmocka_unit_test(test_soft_model),     cmocka_unit_test(test_examples_f32),
      cmocka_unit_test(test_examples_f64),   cmocka_unit_test(test_gamma_override),
      cmocka_unit_test(test_tied_unique_broken), cmocka_unit_test(test_tie_gap_law),
      cmocka_unit_test(test_compiled_hard_models),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
