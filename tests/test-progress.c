/* SPDX-License-Identifier: MIT */
/* hs_run_opts.progress and the time prediction: the callback sees the
 * rows of every layer, in order, ending at the total, from the calling
 * thread, and the results are the same bits with it as without it (one
 * thread and several); hs_run_cost_measure gives a non-negative law that
 * grows with n. No timing is compared with anything. */
#include <pthread.h>

#include "common.h"
#include "model/model.h" /* m->nlayers */

typedef struct seen {
  uint64_t calls, last, total;
  int backwards, other_thread;
  pthread_t self;
} seen;

static void on_progress(void *ctx, uint64_t done, uint64_t total) {
  seen *s = ctx;
  if (done < s->last) s->backwards = 1;
  if (!pthread_equal(pthread_self(), s->self)) s->other_thread = 1;
  s->last = done;
  s->total = total;
  s->calls++;
}

static hs_model *compile(const char *text, hs_mode mode) {
  hs_error e;
  hs_error he;
  hs_formula *f = hs_formula_parse(text, &e);
  assert_non_null(f);
  hs_compile_opts co = {.mode = mode, .scale = 4};
  hs_model *m = hs_compile(f, &co, &he);
  hs_formula_free(f);
  assert_non_null(m);
  return m;
}

static void test_callback(void **state) {
  (void)state;
  static const char *const formulas[] = {"a S b", "G (a -> (b U c)) & O (X a)"};
  static uint8_t s[3000];
  for (size_t i = 0; i < sizeof s; i++) s[i] = (uint8_t)"abc#"[(i * 7 + i / 5) % 4];
  for (int fi = 0; fi < 2; fi++)
    for (int threads = 1; threads <= 3; threads += 2) {
      hs_model *m = compile(formulas[fi], HS_MODE_TEMP);
      hs_error he;
      hs_run_opts o = {.threads = threads, .want_attn_error = 1};
      hs_run_result plain, watched;
      assert_int_equal(hs_forward(m, s, sizeof s, &o, &plain, &he), 0);
      seen sn = {.self = pthread_self()};
      o.progress = on_progress;
      o.progress_ctx = &sn;
      assert_int_equal(hs_forward(m, s, sizeof s, &o, &watched, &he), 0);
      uint64_t total = (uint64_t)m->nlayers * (sizeof s + 1);
      assert_true(sn.calls >= (uint64_t)m->nlayers);
      assert_int_equal(sn.total, total);
      assert_int_equal(sn.last, total);
      assert_false(sn.backwards);
      assert_false(sn.other_thread);
      assert_memory_equal(plain.bits, watched.bits, sizeof s);
      assert_memory_equal(plain.values, watched.values, sizeof s * sizeof(double));
      assert_memory_equal(plain.attn_error, watched.attn_error,
                          (size_t)m->nlayers * sizeof(double));
      hs_run_result_free(&plain);
      hs_run_result_free(&watched);
      hs_model_free(m);
    }
}

static void test_cost(void **state) {
  (void)state;
  hs_model *m = compile("a S b", HS_MODE_HARD);
  hs_run_opts o = {.threads = 1};
  hs_run_cost c;
  hs_error he;
  assert_int_equal(hs_run_cost_measure(m, &o, 8192, &c, &he), 0);
  assert_true(c.per_pos >= 0 && c.per_pair >= 0);
  assert_true(c.per_pos > 0 || c.per_pair > 0);
  assert_true(c.calib_n >= 512 && c.calib_n <= 8192);
  assert_true(hs_run_cost_at(&c, 100000) > hs_run_cost_at(&c, 1000));
  assert_true(hs_run_cost_at(&c, 0) == 0);
  assert_true(hs_model_run_seconds(m, 1000000, HS_PREC_F32, NULL, 1, NULL) > 0);
  hs_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_callback),
      cmocka_unit_test(test_cost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
