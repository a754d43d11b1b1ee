/* SPDX-License-Identifier: MIT */
/* f64_attn_hard (unique-hard leftmost / rightmost, average-hard) on every
 * ISA against a long double reference. Query and key entries are small
 * integers, so every score is an integer that double holds exactly
 * whatever the order of the sum: the maximum, the ties, the pick, the best
 * score below and the average are then exact, and the kernel must match
 * the reference exactly. Lengths straddle the 4/8-key groups and the
 * 512-key blocks; ranges are split into two calls to check the carried
 * state and base; -inf and NaN scores come from inf/NaN keys. Beyond
 * that: scores apart by less than float's resolution (the kernel scores in
 * double), and random real scores with dk = 1, 2 (every kernel sums those
 * in the same order) give every ISA the scalar kernel's exact state. */
#include "common.h"

typedef struct ref { long double best, second; size_t cnt, pick; long double acc[64]; } ref;

static void ref_row(size_t n, size_t dk, size_t dv, const double *q, const double *k,
                    size_t ldk, const double *v, size_t ldv, hs_hard_rule rule, ref *r) {
  r->best = r->second = -INFINITY;
  r->cnt = r->pick = 0;
  memset(r->acc, 0, sizeof r->acc);
  for (size_t j = 0; j < n; j++) {
    long double s = 0;
    for (size_t c = 0; c < dk; c++) s += (long double)q[c] * k[j * ldk + c];
    if (isnan(s)) continue;
    if (s > r->best || (s == r->best && r->cnt == 0)) {
      if (r->cnt) r->second = r->best;
      r->best = s, r->cnt = 1, r->pick = j;
      for (size_t c = 0; c < dv; c++) r->acc[c] = v[j * ldv + c];
    } else if (s == r->best) {
      r->cnt++;
      if (rule == HS_HARD_RIGHT) r->pick = j;
      for (size_t c = 0; c < dv; c++)
        r->acc[c] = rule == HS_HARD_AVG ? r->acc[c] + v[j * ldv + c] : v[r->pick * ldv + c];
    } else if (s > r->second) {
      r->second = s;
    }
  }
}

/* The kernel over [0, n) as two calls split at `cut` (base carried). */
static void run(const hs_kernels *kt, size_t n, size_t cut, size_t dk, size_t dv,
                const double *q, const double *k, size_t ldk, const double *v, size_t ldv,
                hs_hard_rule rule, hs_f64_hard *st, double *acc) {
  *st = (hs_f64_hard){-INFINITY, -INFINITY, 0, 0};
  memset(acc, 0, dv * sizeof *acc);
  kt->f64_attn_hard(cut, dk, dv, q, k, ldk, v, ldv, 0, rule, st, acc);
  kt->f64_attn_hard(n - cut, dk, dv, q, k + cut * ldk, ldk, v + cut * ldv, ldv, cut,
                    rule, st, acc);
}

static void check(const hs_kernels *kt, size_t n, size_t cut, size_t dk, size_t dv,
                  size_t ldk, size_t ldv, int spread, hs_rng *g) {
  double *q = hs_test_alloc(64 * sizeof(double));
  double *k = hs_test_alloc((n + 1) * ldk * sizeof(double));
  double *v = hs_test_alloc((n + 1) * ldv * sizeof(double));
  for (size_t c = 0; c < dk; c++) q[c] = (double)(int)(hs_rng_next(g) % 5) - 2;
  for (size_t j = 0; j < n; j++) {
    for (size_t c = 0; c < dk; c++) k[j * ldk + c] = (double)(int)(hs_rng_next(g) % (unsigned)spread);
    for (size_t c = 0; c < dv; c++) v[j * ldv + c] = (double)(int)(hs_rng_next(g) % 7);
  }
  for (int rule = HS_HARD_LEFT; rule <= HS_HARD_AVG; rule++) {
    ref r;
    ref_row(n, dk, dv, q, k, ldk, v, ldv, (hs_hard_rule)rule, &r);
    hs_f64_hard st;
    double acc[64];
    run(kt, n, cut, dk, dv, q, k, ldk, v, ldv, (hs_hard_rule)rule, &st, acc);
    if ((long double)st.best != r.best || (long double)st.second != r.second || st.cnt != r.cnt ||
        (rule != HS_HARD_AVG && st.pick != r.pick))
      fail_msg("%s n=%zu cut=%zu dk=%zu rule %d: best %g/%Lg second %g/%Lg cnt %zu/%zu pick %zu/%zu",
               hs_isa_name(kt->isa), n, cut, dk, rule, st.best, r.best, st.second, r.second,
               st.cnt, r.cnt, st.pick, r.pick);
    for (size_t c = 0; c < dv; c++)
      if ((long double)acc[c] != r.acc[c])
        fail_msg("%s n=%zu dk=%zu dv=%zu rule %d: acc[%zu] %g, want %Lg", hs_isa_name(kt->isa),
                 n, dk, dv, rule, c, acc[c], r.acc[c]);
  }
  free(q);
  free(k);
  free(v);
}

static void test_sizes(void **state) {
  (void)state;
  const size_t ns[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 100, 511, 512, 513, 1024, 1500};
  hs_rng g = {42};
  HS_FOR_EACH_ISA(kt) {
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
      for (size_t dk = 1; dk <= 9; dk++) {
        size_t n = ns[a], dv = 1 + dk % 4;
        check(kt, n, 0, dk, dv, dk, dv, 2, &g);          /* contiguous, many ties */
        check(kt, n, n / 3, dk, dv, dk + 3, dv + 1, 4, &g); /* strided, split */
        check(kt, n, n, dk, dv, dk, dv, 1000, &g);       /* few ties */
      }
  }
}

/* Large dv (several value chunks) and dk up to the limit. */
static void test_wide(void **state) {
  (void)state;
  hs_rng g = {7};
  HS_FOR_EACH_ISA(kt) {
    check(kt, 600, 300, 64, 64, 64, 64, 2, &g);
    check(kt, 600, 1, 33, 17, 40, 20, 3, &g);
  }
}

/* -inf and NaN scores: a row all -inf ties at -inf (first key picked for
 * leftmost); NaN is never maximal; a row all NaN leaves cnt = 0. */
static void test_special(void **state) {
  (void)state;
  enum { N = 40 };
  double q[1] = {1}, k[N], v[N];
  HS_FOR_EACH_ISA(kt) {
    for (int j = 0; j < N; j++) k[j] = -INFINITY, v[j] = (double)j;
    hs_f64_hard st;
    double acc[1];
    run(kt, N, 13, 1, 1, q, k, 1, v, 1, HS_HARD_LEFT, &st, acc);
    assert_int_equal(st.cnt, N);
    assert_int_equal(st.pick, 0);
    assert_true(acc[0] == 0);
    run(kt, N, 13, 1, 1, q, k, 1, v, 1, HS_HARD_RIGHT, &st, acc);
    assert_int_equal(st.pick, N - 1);
    assert_true(acc[0] == N - 1);
    for (int j = 0; j < N; j++) k[j] = NAN;
    run(kt, N, 0, 1, 1, q, k, 1, v, 1, HS_HARD_AVG, &st, acc);
    assert_int_equal(st.cnt, 0);
    k[5] = 3, k[30] = 3, k[31] = 2;
    run(kt, N, 20, 1, 1, q, k, 1, v, 1, HS_HARD_AVG, &st, acc);
    assert_int_equal(st.cnt, 2);
    assert_true(st.best == 3 && st.second == 2 && acc[0] == 35);
    k[12] = INFINITY;
    run(kt, N, 20, 1, 1, q, k, 1, v, 1, HS_HARD_RIGHT, &st, acc);
    assert_true(st.best == INFINITY && st.second == 3 && st.pick == 12 && acc[0] == 12);
  }
}

/* Keys 2^40 + (0, 1 or 2), dk = 1 (contiguous) and dk = 3 (strided):
 * scores that float would round together are told apart. */
static void test_beyond_float(void **state) {
  (void)state;
  enum { N = 700 };
  double q[3] = {1, 0, 0}, k[3 * N], v[N];
  hs_rng g = {5};
  HS_FOR_EACH_ISA(kt)
    for (size_t dk = 1; dk <= 3; dk += 2) {
      for (size_t j = 0; j < N; j++) {
        k[j * dk] = 0x1p40 + (double)(hs_rng_next(&g) % 3);
        for (size_t c = 1; c < dk; c++) k[j * dk + c] = 5;
        v[j] = (double)j;
      }
      k[17 * dk] = 0x1p40 + 3, k[600 * dk] = 0x1p40 + 3;
      hs_f64_hard st;
      double acc[1];
      run(kt, N, 100, dk, 1, q, k, dk, v, 1, HS_HARD_RIGHT, &st, acc);
      assert_true(st.best == 0x1p40 + 3 && st.second == 0x1p40 + 2);
      assert_int_equal(st.cnt, 2);
      assert_int_equal(st.pick, 600);
      assert_true(acc[0] == 600);
      run(kt, N, 100, dk, 1, q, k, dk, v, 1, HS_HARD_AVG, &st, acc);
      assert_true(acc[0] == 617);
    }
}

/* Random real entries, dk = 1 and 2 stored contiguously: every kernel
 * forms q0 k0 (+ q1 k1) with the same roundings, so every ISA must give
 * the scalar kernel's state and output bit for bit (ties made by
 * repeating keys). */
static void test_isas_agree(void **state) {
  (void)state;
  enum { N = 1300 };
  static double k[2 * N], v[2 * N];
  hs_rng g = {77};
  const hs_kernels *ks = hs_kernels_for(HS_ISA_SCALAR);
  for (size_t dk = 1; dk <= 2; dk++) {
    double q[2] = {hs_rng_uniform(&g, -2, 2), hs_rng_uniform(&g, -2, 2)};
    for (size_t j = 0; j < N * dk; j++) k[j] = hs_rng_uniform(&g, -1, 1);
    for (size_t j = 0; j < 2 * N; j++) v[j] = hs_rng_uniform(&g, -1, 1);
    size_t top = 0; /* the best key (as the kernels score it) */
    for (size_t j = 1; j < N; j++) {
      double s = q[0] * k[j * dk] + (dk == 2 ? q[1] * k[j * dk + 1] : 0);
      double t = q[0] * k[top * dk] + (dk == 2 ? q[1] * k[top * dk + 1] : 0);
      if (s > t) top = j;
    }
    for (size_t j = 40; j < N; j += 97) /* copies of it: ties */
      for (size_t c = 0; c < dk; c++) k[j * dk + c] = k[top * dk + c];
    for (int rule = HS_HARD_LEFT; rule <= HS_HARD_AVG; rule++) {
      hs_f64_hard s0, s1;
      double a0[2], a1[2];
      run(ks, N, 555, dk, 2, q, k, dk, v, 2, (hs_hard_rule)rule, &s0, a0);
      HS_FOR_EACH_ISA(kt) {
        run(kt, N, 555, dk, 2, q, k, dk, v, 2, (hs_hard_rule)rule, &s1, a1);
        /* (the pick is not part of the average's result) */
        assert_memory_equal(&s0.best, &s1.best, sizeof s0.best);
        assert_memory_equal(&s0.second, &s1.second, sizeof s0.second);
        assert_int_equal(s0.cnt, s1.cnt);
        assert_true(s0.cnt > 1);
        if (rule != HS_HARD_AVG) assert_int_equal(s0.pick, s1.pick);
        assert_true(a0[0] == a1[0] && a0[1] == a1[1]);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_wide),
      cmocka_unit_test(test_special),
      cmocka_unit_test(test_beyond_float),
      cmocka_unit_test(test_isas_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
