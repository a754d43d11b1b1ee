/* SPDX-License-Identifier: MIT */
/* Threads in the forward pass: a runner keeps its worker pool between
 * runs, and chunks of rows go to whichever thread asks first, so this
 * checks what that must not change: every run of a multi-threaded runner
 * (several strings in a row on the same pool, lengths from 0 to past the
 * thresholds where projections and feed-forward-only layers go parallel)
 * gives bit-for-bit the values and attention errors of a one-thread
 * runner, in f32 and f64, on the online kernel and with skipping on and
 * off, on every ISA this CPU runs. */
#include <pthread.h>

#include "common.h"
#include "model/model.h" /* m->nlayers */
#include "run/pool.h"    /* hs_split */

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

/* One string long enough that every phase a pass splits goes to the
 * threads (the embedding, projections, bounds trees, rows with chunks
 * taken from other threads' ranges, outputs: each past its minimum work),
 * in models whose trees and projections take every path: pe heads
 * skipping, hard heads skipping on exact trees, relative-bias heads with
 * the projections stored in bf16 (rounded where they are computed). One
 * thread against two and three, bit for bit. */
static void test_long_split_identical(void **state) {
  (void)state;
  static const struct { const char *f; hs_mode mode; const char *prec; } cases[] = {
      {"(a S (b & X (c U Y a))) | G (b -> Y a)", HS_MODE_PE, "f32"},
      {"(a S (b & X (c U Y a))) | G (b -> Y a)", HS_MODE_HARD, "f32"},
      {"H (a -> Y (b S c))", HS_MODE_REL, "bf16"},
      {"a S b", HS_MODE_PE, "f64"},
  };
  const size_t n = 20000;
  uint8_t *s = malloc(n);
  assert_non_null(s);
  hs_rng rng = {7};
  random_string(&rng, s, n);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    hs_error e;
    hs_formula *f = hs_formula_parse(cases[c].f, &e);
    assert_non_null(f);
    hs_compile_opts co = {.mode = cases[c].mode, .scale = 4};
    hs_model *m = hs_compile(f, &co, &e);
    assert_non_null(m);
    /* (no attention error: it scores every key of every row) */
    hs_run_opts o = {.skip = HS_SKIP_AUTO};
    assert_int_equal(hs_precision_parse(cases[c].prec, &o.precision, &o.score_round,
                                        &o.qkv_round), 0);
    hs_run_result a;
    o.threads = 1;
    assert_int_equal(hs_forward(m, s, n, &o, &a, &e), 0);
    assert_true(a.tiles_skipped > 0);
    for (int T = 2; T <= 3; T++) {
      hs_run_result b;
      o.threads = T;
      assert_int_equal(hs_forward(m, s, n, &o, &b, &e), 0);
      /* the tiles skipped are not compared: a row's bound carried from
       * the row before it (the same thread's) may be tighter than one
       * searched afresh where a thread's rows start, and a hard row that
       * repeats the last row's answer counts its tiles as skipped; the
       * bits are the same either way */
      if (memcmp(a.values, b.values, n * sizeof(double)) ||
          a.tiles_total != b.tiles_total)
        fail_msg("'%s' %s %s: %d threads differ from one", cases[c].f,
                 hs_mode_name(cases[c].mode), cases[c].prec, T);
      hs_run_result_free(&b);
    }
    hs_run_result_free(&a);
    hs_model_free(m);
    hs_formula_free(f);
  }
  free(s);
}

/* hs_split from several threads at once: every chunk handed out exactly
 * once, whatever the count of chunks against threads (none, fewer than
 * threads, many), and taken in increasing order within each run of a
 * thread's own range. */
typedef struct split_arg {
  hs_split *s;
  int k;
  unsigned char *seen; /* per chunk: times handed out (one writer each) */
  uint64_t got;
} split_arg;

static void *split_thread(void *arg) {
  split_arg *a = arg;
  uint64_t c;
  while (hs_split_next(a->s, a->k, &c)) {
    a->seen[c]++;
    a->got++;
  }
  return NULL;
}

static void test_split_each_chunk_once(void **state) {
  (void)state;
  static const uint64_t counts[] = {0, 1, 3, 4, 5, 64, 1000, 100003};
  static const int threads[] = {1, 2, 4};
  for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
    for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
      uint64_t N = counts[ci];
      int T = threads[ti];
      hs_split *s = aligned_alloc(HS_SPLIT_LINE, sizeof *s);
      unsigned char *seen = calloc(N ? N : 1, 1);
      assert_true(s && seen);
      assert_int_equal(hs_split_init(s, N, T), 1);
      pthread_t tid[4];
      split_arg a[4];
      for (int k = 0; k < T; k++) {
        a[k] = (split_arg){s, k, seen, 0};
        assert_int_equal(pthread_create(&tid[k], NULL, split_thread, &a[k]), 0);
      }
      uint64_t total = 0;
      for (int k = 0; k < T; k++) {
        pthread_join(tid[k], NULL);
        total += a[k].got;
      }
      assert_int_equal(total, N);
      for (uint64_t c = 0; c < N; c++)
        if (seen[c] != 1) fail_msg("N = %llu, T = %d: chunk %llu handed out %d times",
                                   (unsigned long long)N, T, (unsigned long long)c, seen[c]);
      free(seen);
      free(s);
    }
  hs_split s;
  assert_int_equal(hs_split_init(&s, (uint64_t)1 << 32, 2), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_runs_identical),
      cmocka_unit_test(test_long_split_identical),
      cmocka_unit_test(test_split_each_chunk_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
