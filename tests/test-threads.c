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
#include <stdatomic.h>
#include <time.h>

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
 * threads, many), one at a time (hs_split_next) or in runs of at most
 * max (hs_split_take). */
typedef struct split_arg {
  hs_split *s;
  int k;
  uint64_t max;        /* 0: hs_split_next */
  unsigned char *seen; /* per chunk: times handed out (one writer each) */
  uint64_t got, bad;   /* bad: runs of 0 or more than max chunks */
} split_arg;

static void *split_thread(void *arg) {
  split_arg *a = arg;
  uint64_t c, m;
  for (;;) {
    if (a->max == 0) m = hs_split_next(a->s, a->k, &c);
    else m = hs_split_take(a->s, a->k, a->max, &c);
    if (m == 0) break;
    if (a->max && m > a->max) a->bad++;
    for (uint64_t j = 0; j < m; j++) a->seen[c + j]++;
    a->got += m;
  }
  return NULL;
}

static void test_split_each_chunk_once(void **state) {
  (void)state;
  static const uint64_t counts[] = {0, 1, 3, 4, 5, 64, 1000, 100003};
  static const int threads[] = {1, 2, 4};
  static const uint64_t maxes[] = {0, 1, 5};
  for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
    for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++)
    for (size_t mi = 0; mi < sizeof maxes / sizeof *maxes; mi++) {
      uint64_t N = counts[ci];
      int T = threads[ti];
      hs_split *s = aligned_alloc(HS_SPLIT_LINE, sizeof *s);
      unsigned char *seen = calloc(N ? N : 1, 1);
      assert_true(s && seen);
      assert_int_equal(hs_split_init(s, N, T), 1);
      pthread_t tid[4];
      split_arg a[4];
      for (int k = 0; k < T; k++) {
        a[k] = (split_arg){s, k, maxes[mi], seen, 0, 0};
        assert_int_equal(pthread_create(&tid[k], NULL, split_thread, &a[k]), 0);
      }
      uint64_t total = 0;
      for (int k = 0; k < T; k++) {
        pthread_join(tid[k], NULL);
        total += a[k].got;
        assert_int_equal(a[k].bad, 0);
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

/* hs_pool_run: every k of every run exactly once, k = 0 on the caller,
 * whether the workers come at once, late or asleep. Runs of tiny parts
 * let the caller take most workers' slots before they come; runs after a
 * sleep longer than the spin find them asleep, woken by the run itself
 * or by hs_pool_warm before it. */
typedef struct pool_arg {
  atomic_int ran[HS_POOL_MAX];
  pthread_t caller;
  atomic_int k0_elsewhere;
} pool_arg;

static void pool_task(void *arg, int k) {
  pool_arg *a = arg;
  atomic_fetch_add(&a->ran[k], 1);
  if (k == 0 && !pthread_equal(pthread_self(), a->caller))
    atomic_fetch_add(&a->k0_elsewhere, 1);
}

static void check_pool_run(hs_pool *p, int T) {
  pool_arg a = {.caller = pthread_self()};
  for (int k = 0; k < HS_POOL_MAX; k++) atomic_init(&a.ran[k], 0);
  atomic_init(&a.k0_elsewhere, 0);
  hs_pool_run(p, T, pool_task, &a);
  int want = T < 1 ? 1 : T > HS_POOL_MAX ? HS_POOL_MAX : T;
  for (int k = 0; k < HS_POOL_MAX; k++)
    if (atomic_load(&a.ran[k]) != (k < want))
      fail_msg("T = %d: part %d ran %d times", T, k, atomic_load(&a.ran[k]));
  assert_int_equal(atomic_load(&a.k0_elsewhere), 0);
}

static void test_pool_each_part_once(void **state) {
  (void)state;
  hs_pool p;
  hs_pool_init(&p);
  static const int threads[] = {2, 1, 4, 3, 0, 2, 3, 2};
  for (int r = 0; r < 3000; r++) check_pool_run(&p, threads[r % 8]);
  for (int r = 0; r < 6; r++) {
    /* past the spin (well under a millisecond): the workers sleep */
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    if (r % 2) hs_pool_warm(&p);
    check_pool_run(&p, 2 + r % 3);
  }
  check_pool_run(&p, HS_POOL_MAX + 1);
  hs_pool_end(&p);
}

/* hs_pool_ranges: every item of [0, n) in exactly one call, calls on
 * chunk boundaries, for n below, at and far above the chunk and the
 * threads, on a pool whose workers come at once or asleep. */
typedef struct ranges_arg {
  atomic_uchar *seen;
  size_t c;
  atomic_int bad; /* calls off a chunk boundary, empty or for a bad k */
  int T;
} ranges_arg;

static void ranges_task(void *ctx, int k, size_t lo, size_t hi) {
  ranges_arg *a = ctx;
  if (lo % a->c != 0 || lo >= hi || k < 0 || k >= a->T) atomic_fetch_add(&a->bad, 1);
  for (size_t i = lo; i < hi; i++) atomic_fetch_add(&a->seen[i], 1);
}

static void test_pool_ranges_each_item_once(void **state) {
  (void)state;
  static const size_t ns[] = {0, 1, 31, 32, 33, 100, 4097, 100000};
  static const size_t cs[] = {0, 1, 32};
  static const int threads[] = {1, 2, 3};
  hs_pool p;
  hs_pool_init(&p);
  for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
    for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++)
      for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
        size_t n = ns[ni];
        ranges_arg a = {calloc(n ? n : 1, sizeof(atomic_uchar)), cs[ci] ? cs[ci] : 1,
                        0, threads[ti]};
        assert_non_null(a.seen);
        uint64_t ticks[HS_POOL_MAX] = {0};
        if (ni == 6) nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
        hs_pool_ranges(&p, threads[ti], n, cs[ci], ranges_task, &a, ticks);
        assert_int_equal(atomic_load(&a.bad), 0);
        for (size_t i = 0; i < n; i++)
          if (atomic_load(&a.seen[i]) != 1)
            fail_msg("n = %zu, c = %zu, T = %d: item %zu in %d calls", n, cs[ci],
                     threads[ti], i, atomic_load(&a.seen[i]));
        free(a.seen);
      }
  hs_pool_end(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_runs_identical),
      cmocka_unit_test(test_long_split_identical),
      cmocka_unit_test(test_split_each_chunk_once),
      cmocka_unit_test(test_pool_each_part_once),
      cmocka_unit_test(test_pool_ranges_each_item_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
