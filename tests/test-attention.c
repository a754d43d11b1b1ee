/* SPDX-License-Identifier: MIT */
/* The attention weights of src/run/attention.c and the description of
 * src/model/describe.c:
 *   - hs_attention on hand-built one-head models whose scores are exact
 *     (hard left / right / average with ties, softmax at a known tau, and
 *     the masks), against weights computed here;
 *   - on every suite formula compiled in pe, temp and rel: rows are
 *     distributions over the visible keys, and the weight off the hard
 *     target equals, per layer, the forward pass's own attention error
 *     (hs_run_opts.want_attn_error, f64), which it computes independently
 *     inside the kernels' loop;
 *   - errors (no such layer, n too long);
 *   - hs_model_describe's snprintf contract, hs_model_get_info and
 *     hs_model_head_info. */
#include "formulas.h"
#include "model/model.h"

enum { C_ONE, C_BOS, C_A, C_I, C_OUT, D };

/* One layer, one head: query = qscale * one, key = [a], so key j scores
 * qscale * [w_j = a] exactly (BOS 0); value [a] into the output. */
static hs_model *one_head(hs_attn_kind kind, hs_mask mask, float qscale) {
  hs_model *m = hs_model_new(D, 1);
  assert_non_null(m);
  assert_int_equal(hs_model_add_pf(m, HS_PF_ONE, C_ONE, 0, 0), 0);
  assert_int_equal(hs_model_add_pf(m, HS_PF_BOS, C_BOS, 0, 0), 0);
  m->embed['a' * D + C_A] = 1;
  hs_head *H = hs_model_add_head(m, 0, 1, 1);
  assert_non_null(H);
  H->kind = kind;
  H->target = kind == HS_ATTN_SOFTMAX ? HS_ATTN_HARD_RIGHT : kind;
  H->mask = mask;
  H->wq[C_ONE] = qscale;
  H->wk[C_A] = 1;
  H->wv[C_A] = 1;
  H->wo[C_OUT] = 1;
  m->out_coord = C_OUT;
  return m;
}

static int seen(hs_mask mask, size_t i, size_t j) {
  return j == 0 || mask == HS_MASK_NONE || (mask == HS_MASK_LE && j <= i) ||
         (mask == HS_MASK_LT && j < i) || (mask == HS_MASK_GE && j >= i) ||
         (mask == HS_MASK_GT && j > i);
}

/* The hard weights of row i of the one-head model over w, by definition. */
static void expect_hard(hs_attn_kind kind, hs_mask mask, const char *w, size_t i,
                        double *want, int32_t *t) {
  size_t n = strlen(w), cnt = 0, first = 0, last = 0;
  int best = 0; /* BOS scores 0; the best score is 1 if a visible a exists */
  for (size_t j = 1; j <= n; j++)
    if (seen(mask, i, j) && w[j - 1] == 'a') best = 1;
  for (size_t j = 0; j <= n; j++) {
    want[j] = 0;
    int s = j > 0 && w[j - 1] == 'a';
    if (!seen(mask, i, j) || s != best) continue;
    if (!cnt++) first = j;
    last = j;
  }
  if (kind == HS_ATTN_HARD_LEFT) want[first] = 1, *t = (int32_t)first;
  else if (kind == HS_ATTN_HARD_RIGHT) want[last] = 1, *t = (int32_t)last;
  else {
    for (size_t j = 0; j <= n; j++)
      if (seen(mask, i, j) && (j > 0 && w[j - 1] == 'a') == best) want[j] = 1.0 / (double)cnt;
    *t = cnt == 1 ? (int32_t)first : -1;
  }
}

static void test_hand_built(void **state) {
  (void)state;
  static const char *const strings[] = {"", "a", "b", "aba", "bbb", "abaab", "bbabbbab"};
  static const hs_attn_kind kinds[] = {HS_ATTN_HARD_LEFT, HS_ATTN_HARD_RIGHT,
                                       HS_ATTN_HARD_AVG, HS_ATTN_SOFTMAX};
  hs_error he;
  for (size_t k = 0; k < 4; k++)
    for (int mask = 0; mask < HS_MASK_COUNT_; mask++) {
      hs_model *m = one_head(kinds[k], (hs_mask)mask, 1.5f);
      for (size_t s = 0; s < sizeof strings / sizeof *strings; s++) {
        const char *w = strings[s];
        size_t n = strlen(w), np = n + 1;
        double *W = malloc(np * np * sizeof *W), *Hd = malloc(np * np * sizeof *Hd);
        double want[16];
        int32_t *T = malloc(np * sizeof *T), t;
        hs_run_opts o = {.precision = HS_PREC_F64};
        assert_int_equal(hs_attention(m, (const uint8_t *)w, n, &o, 0, W, Hd, T, &he), 0);
        for (size_t i = 0; i <= n; i++) {
          hs_attn_kind hk = kinds[k] == HS_ATTN_SOFTMAX ? HS_ATTN_HARD_RIGHT : kinds[k];
          expect_hard(hk, (hs_mask)mask, w, i, want, &t);
          assert_int_equal(T[i], t);
          double z = 0; /* softmax at tau = 1 over scores 1.5 [a] */
          for (size_t j = 0; j <= n; j++)
            z += seen((hs_mask)mask, i, j) ? exp(j && w[j - 1] == 'a' ? 1.5 : 0) : 0;
          for (size_t j = 0; j <= n; j++) {
            assert_true(Hd[i * np + j] == want[j]);
            double soft = seen((hs_mask)mask, i, j)
                              ? exp(j && w[j - 1] == 'a' ? 1.5 : 0) / z : 0;
            double got = W[i * np + j];
            if (kinds[k] == HS_ATTN_SOFTMAX) assert_true(fabs(got - soft) < 1e-15);
            else assert_true(got == want[j]);
          }
        }
        free(W), free(Hd), free(T);
      }
      hs_model_free(m);
    }
}

/* Per layer, the largest weight off the hard target at queries 1..n, as
 * hs_run_result.attn_error defines it. */
static double off_target(const hs_model *m, int l, const double *W, const double *Hd,
                         size_t n) {
  size_t np = n + 1;
  double worst = 0;
  for (int h = 0; h < m->layers[l].nheads; h++) {
    if (m->layers[l].heads[h].target == HS_ATTN_SOFTMAX) continue;
    for (size_t i = 1; i <= n; i++) {
      double on = 0;
      for (size_t j = 0; j <= n; j++)
        if (Hd[((size_t)h * np + i) * np + j] > 0) on += W[((size_t)h * np + i) * np + j];
      if (1 - on > worst) worst = 1 - on;
    }
  }
  return worst;
}

static void check_layer(const hs_model *m, int l, const uint8_t *w, size_t n,
                        double attn_error) {
  size_t np = n + 1, nh = (size_t)m->layers[l].nheads, cells = (nh ? nh : 1) * np * np;
  double *W = malloc(cells * sizeof *W), *Hd = malloc(cells * sizeof *Hd);
  hs_error he;
  hs_run_opts o = {.precision = HS_PREC_F64};
  assert_int_equal(hs_attention(m, w, n, &o, l, W, Hd, NULL, &he), 0);
  for (size_t h = 0; h < nh; h++)
    for (size_t i = 0; i <= n; i++) {
      double sum = 0;
      for (size_t j = 0; j <= n; j++) {
        double x = W[(h * np + i) * np + j];
        assert_true(x >= 0 && x <= 1);
        if (!seen(m->layers[l].heads[h].mask, i, j)) assert_true(x == 0);
        sum += x;
      }
      assert_true(fabs(sum - 1) < 1e-12);
    }
  double mine = off_target(m, l, W, Hd, n);
  if (fabs(mine - attn_error) > 1e-9 + 1e-6 * attn_error)
    fail_msg("layer %d: off-target weight %.12g, the forward pass measured %.12g", l,
             mine, attn_error);
  free(W), free(Hd);
}

static void test_suite_matches_forward(void **state) {
  (void)state;
  const suite *S = the_suite();
  static const hs_mode modes[] = {HS_MODE_PE, HS_MODE_TEMP, HS_MODE_REL};
  hs_rng r = {42};
  hs_error he;
  uint8_t w[64];
  for (int f = 0; f < S->n; f++) {
    hs_error e;
    hs_formula *F = hs_formula_parse(S->line[f], &e);
    assert_non_null(F);
    for (size_t k = 0; k < 3; k++) {
      hs_compile_opts co = {.mode = modes[k], .scale = 3};
      hs_model *m = hs_compile(F, &co, &he);
      if (!m) continue; /* refused in this mode (a one-line reason) */
      size_t n = 1 + hs_rng_next(&r) % 40;
      hs_random_string(&r, w, n);
      hs_run_opts o = {.precision = HS_PREC_F64, .want_attn_error = 1};
      hs_run_result res;
      assert_int_equal(hs_forward(m, w, n, &o, &res, &he), 0);
      for (int l = 0; l < m->nlayers; l++) check_layer(m, l, w, n, res.attn_error[l]);
      hs_run_result_free(&res);
      hs_model_free(m);
    }
    hs_formula_free(F);
  }
}

static void test_errors(void **state) {
  (void)state;
  hs_model *m = one_head(HS_ATTN_HARD_LEFT, HS_MASK_LE, 1);
  double W[4];
  hs_error he;
  assert_int_equal(hs_attention(m, (const uint8_t *)"a", 1, NULL, 1, W, NULL, NULL, &he), -1);
  assert_string_equal(he.msg, "layer 1 does not exist (the model has 1, numbered from 0)");
  assert_int_equal(hs_attention(m, (const uint8_t *)"a", 1, NULL, -1, W, NULL, NULL, &he), -1);
  assert_int_equal(hs_attention(m, (const uint8_t *)"a", HS_ATTENTION_MAX_N + 1, NULL, 0,
                                W, NULL, NULL, &he), -1);
  assert_non_null(strstr(he.msg, "too long"));
  assert_int_equal(hs_attention(m, (const uint8_t *)"a", 1, NULL, 0, W, NULL, NULL, &he), 0);
  assert_true(W[0] == 1 && W[1] == 0 && W[2] == 0 && W[3] == 1); /* BOS; the a */
  hs_model_free(m);
}

static void test_describe_and_info(void **state) {
  (void)state;
  hs_error e;
  char small[16], *full;
  hs_error he;
  hs_formula *F = hs_formula_parse("a S b", &e);
  hs_compile_opts co = {.mode = HS_MODE_PE, .scale = 4};
  hs_model *m = hs_compile(F, &co, &he);
  assert_non_null(m);
  size_t n = hs_model_describe(m, NULL, 0);
  assert_true(n > 100);
  full = malloc(n + 1);
  assert_int_equal(hs_model_describe(m, full, n + 1), n);
  assert_int_equal(strlen(full), n);
  assert_true(strncmp(full, "formula: a S b\nmode: pe (scale mu = 4)\n", 39) == 0);
  assert_non_null(strstr(full, "  head 0: softmax (tau = 1, standing in for hard_right), "
                               "mask le, dk = 2, dv = 1\n"));
  assert_int_equal(hs_model_describe(m, small, sizeof small), n); /* truncated */
  assert_int_equal(strlen(small), sizeof small - 1);
  assert_true(strncmp(small, full, sizeof small - 1) == 0);
  hs_model_info info;
  hs_model_get_info(m, &info);
  assert_int_equal(info.nlayers, 2);
  assert_int_equal(info.nheads, 1);
  assert_int_equal(info.d, m->d);
  assert_string_equal(info.mode, "pe");
  assert_string_equal(info.formula, "a S b");
  assert_true(info.scale == 4 && info.min_scale > 1.9 && info.min_scale < 2);
  hs_head_info hi;
  assert_int_equal(hs_model_layer_nheads(m, 0), 0);
  assert_int_equal(hs_model_layer_nheads(m, 2), -1);
  assert_int_equal(hs_model_head_info(m, 0, 0, &hi), -1);
  assert_int_equal(hs_model_head_info(m, 1, 0, &hi), 0);
  assert_string_equal(hi.kind, "softmax");
  assert_string_equal(hi.target, "hard_right");
  assert_string_equal(hi.mask, "le");
  assert_int_equal(hi.dk, 2);
  free(full);
  hs_model_free(m);
  hs_formula_free(F);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_built), cmocka_unit_test(test_suite_matches_forward),
      cmocka_unit_test(test_errors), cmocka_unit_test(test_describe_and_info),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
