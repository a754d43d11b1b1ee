/* SPDX-License-Identifier: MIT */
/* Threads in the forward pass: a runner keeps its worker pool between
 * runs, and chunks of rows go to whichever thread asks first, so this
 * checks what that must not change: every run of a multi-threaded runner
 * (several strings in a row on the same pool, lengths from 0 to past the
 * thresholds where projections and feed-forward-only layers go parallel)
 * gives bit-for-bit the values and attention errors of a one-thread
 * runner, in f32 and f64, on the online kernel and with skipping on and
 * off, on every ISA this CPU runs. */
#include "common.h"
#include "model/model.h" /* m->nlayers */

static const char *const formulas[] = {
    "a S b",
    "(a S (b & X (c U Y a))) | G (b -> Y a)",
    "G (a -> X (b U (c & Y (a S (b & X c)))))",
    "#<(a) > #<(b)",
};
static const size_t lengths[] = {0, 1, 5, 33, 700, 1500};

static void random_string(hs_rng *r, uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++) s[i] = (uint8_t)"abc#"[hs_rng_next(r) % 4];
}

static void check_runner(const hs_model *m, const hs_kernels *kt,
                         hs_precision prec, hs_skip skip) {
  hs_error he;
  hs_run_opts o1 = {.precision = prec, .kernels = kt, .skip = skip,
                    .want_attn_error = 1, .threads = 1};
  hs_run_opts o3 = o1;
  o3.threads = 3;
  hs_runner *r1 = hs_runner_new(m, &o1, &he);
  hs_runner *r3 = hs_runner_new(m, &o3, &he);
  assert_non_null(r1);
  assert_non_null(r3);
  hs_rng rng = {41};
  static uint8_t s[1500];
  for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
    size_t n = lengths[li];
    random_string(&rng, s, n);
    hs_run_result a, b;
    assert_int_equal(hs_runner_run(r1, s, n, &a, &he), 0);
    assert_int_equal(hs_runner_run(r3, s, n, &b, &he), 0);
    if (n) assert_memory_equal(a.values, b.values, n * sizeof(double));
    assert_memory_equal(a.attn_error, b.attn_error, (size_t)m->nlayers * sizeof(double));
    assert_true(a.tiles_skipped == b.tiles_skipped && a.tiles_total == b.tiles_total);
    hs_run_result_free(&a);
    hs_run_result_free(&b);
  }
  hs_runner_free(r1);
  hs_runner_free(r3);
}

static void test_pool_runs_identical(void **state) {
  (void)state;
  for (size_t fi = 0; fi < sizeof formulas / sizeof *formulas; fi++) {
    hs_error e;
    hs_formula *f = hs_formula_parse(formulas[fi], &e);
    assert_non_null(f);
    hs_error he;
    hs_compile_opts co = {.mode = HS_MODE_PE, .scale = 4};
    hs_model *m = hs_compile(f, &co, &he);
    assert_non_null(m);
    HS_FOR_EACH_ISA(kt) {
      check_runner(m, kt, HS_PREC_F32, HS_SKIP_ONLINE);
      check_runner(m, kt, HS_PREC_F64, HS_SKIP_ONLINE);
      check_runner(m, kt, HS_PREC_F32, HS_SKIP_ON);
      check_runner(m, kt, HS_PREC_F32, HS_SKIP_OFF);
      check_runner(m, kt, HS_PREC_F32, HS_SKIP_AUTO);
    }
    hs_model_free(m);
    hs_formula_free(f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_runs_identical),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
