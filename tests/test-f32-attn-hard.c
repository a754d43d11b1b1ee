/* SPDX-License-Identifier: MIT */
/* f32_attn_hard (unique-hard leftmost / rightmost, average-hard) on every
 * ISA against a double-precision reference. Query and key entries are
 * small integers, so every score is an integer that float and double hold
 * exactly whatever the order of the sum: the maximum, the ties, the pick,
 * the best score below and the average are then exact, and the kernel
 * must match the reference exactly. Lengths straddle the 8/16-key groups
 * and the 512-key blocks; ranges are split into two calls to check the
 * carried state and base; -inf and NaN scores come from inf/NaN keys. */
#include "common.h"

typedef struct ref { double best, second; size_t cnt, pick; double acc[64]; } ref;

static void ref_row(size_t n, size_t dk, size_t dv, const float *q, const float *k,
                    size_t ldk, const float *v, size_t ldv, hs_hard_rule rule, ref *r) {
  r->best = r->second = -INFINITY;
  r->cnt = r->pick = 0;
  memset(r->acc, 0, sizeof r->acc);
  for (size_t j = 0; j < n; j++) {
    double s = 0;
    for (size_t c = 0; c < dk; c++) s += (double)q[c] * k[j * ldk + c];
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
                const float *q, const float *k, size_t ldk, const float *v, size_t ldv,
                hs_hard_rule rule, hs_f32_hard *st, float *acc) {
  *st = (hs_f32_hard){-INFINITY, -INFINITY, 0, 0};
  memset(acc, 0, dv * sizeof *acc);
  kt->f32_attn_hard(cut, dk, dv, q, k, ldk, v, ldv, 0, rule, st, acc);
  kt->f32_attn_hard(n - cut, dk, dv, q, k + cut * ldk, ldk, v + cut * ldv, ldv, cut,
                    rule, st, acc);
}

static void check(const hs_kernels *kt, size_t n, size_t cut, size_t dk, size_t dv,
                  size_t ldk, size_t ldv, int spread, hs_rng *g) {
  float *q = hs_test_alloc(64 * sizeof(float));
  float *k = hs_test_alloc((n + 1) * ldk * sizeof(float));
  float *v = hs_test_alloc((n + 1) * ldv * sizeof(float));
  for (size_t c = 0; c < dk; c++) q[c] = (float)(int)(hs_rng_next(g) % 5) - 2;
  for (size_t j = 0; j < n; j++) {
    for (size_t c = 0; c < dk; c++) k[j * ldk + c] = (float)(int)(hs_rng_next(g) % (unsigned)spread);
    for (size_t c = 0; c < dv; c++) v[j * ldv + c] = (float)(int)(hs_rng_next(g) % 7);
  }
  for (int rule = HS_HARD_LEFT; rule <= HS_HARD_AVG; rule++) {
    ref r;
    ref_row(n, dk, dv, q, k, ldk, v, ldv, (hs_hard_rule)rule, &r);
    hs_f32_hard st;
    float acc[64];
    run(kt, n, cut, dk, dv, q, k, ldk, v, ldv, (hs_hard_rule)rule, &st, acc);
    if ((double)st.best != r.best || (double)st.second != r.second || st.cnt != r.cnt ||
        (rule != HS_HARD_AVG && st.pick != r.pick))
      fail_msg("%s n=%zu cut=%zu dk=%zu rule %d: best %g/%g second %g/%g cnt %zu/%zu pick %zu/%zu",
               hs_isa_name(kt->isa), n, cut, dk, rule, st.best, r.best, st.second, r.second,
               st.cnt, r.cnt, st.pick, r.pick);
    for (size_t c = 0; c < dv; c++)
      if ((double)acc[c] != r.acc[c])
        fail_msg("%s n=%zu dk=%zu dv=%zu rule %d: acc[%zu] %g, want %g", hs_isa_name(kt->isa),
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
  float q[1] = {1}, k[N], v[N];
  HS_FOR_EACH_ISA(kt) {
    for (int j = 0; j < N; j++) k[j] = -INFINITY, v[j] = (float)j;
    hs_f32_hard st;
    float acc[1];
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_wide),
      cmocka_unit_test(test_special),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
