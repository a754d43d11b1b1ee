/* SPDX-License-Identifier: MIT */
/* f64 dot, gemv and attention row on every ISA this CPU runs, against long
 * double references (u = 2^-53), with the kernels' stated bounds:
 *   dot/gemv: |err| <= (n/4 + 8) u sum |a_i b_i|
 *   attn_row: with S = max_j S_j, S_j = sum_c |q_c k_jc inv_tau|, and
 *     the row given in c calls,
 *     E = 2 (dk + 8) u S + (n/64 + 74) u                  (scalar),
 *     E = (2 ceil(dk/4) + 10 + n/128) S u + (6 n/256 + 72 + 4 c) u
 *                       (AVX2, AVX-512: f64-attn-row-online-rr2-p11-impl.h),
 *     |sum - sum*| <= E sum*,  |acc_c - acc*_c| <= E sum_j e_j |v_jc|
 *   (* = exact, relative to the kernel's own max);
 *   exp (rr2-p11): <= 2 ULP on [-708.39, 0], +0 below, never subnormal.
 * The long double reference carries 11 more bits than double, so it adds
 * at most ~2^-64 relative: inside the slack of the bounds. */
#include "common.h"
#include "f64-exp-rr2-p11.h"

#define U 0x1p-53

static double *fill(hs_rng *r, size_t cnt, double lo, double hi, size_t off) {
  double *b = (double *)hs_test_alloc(cnt * sizeof(double)) + off;
  for (size_t i = 0; i < cnt; i++) b[i] = hs_rng_uniform(r, lo, hi);
  return b;
}

static double ulp_f64(double got, long double want) {
  double w = (double)want;
  double ulp = nextafter(fabs(w), INFINITY) - fabs(w);
  return (double)(fabsl(got - want) / ulp);
}

static void test_exp_scalar(void **state) {
  (void)state;
  hs_rng r = {21};
  double worst = 0;
  for (int i = 0; i < 200000; i++) {
    double x = i % 2 ? hs_rng_uniform(&r, -708.39, 0) : hs_rng_uniform(&r, -1, 0);
    double u = ulp_f64(hs_f64_exp_scalar(x), expl((long double)x));
    if (u > worst) worst = u;
  }
  assert_true(worst <= 2);
  assert_true(hs_f64_exp_scalar(-INFINITY) == 0);
  assert_true(hs_f64_exp_scalar(-708.4) == 0);
  assert_true(hs_f64_exp_scalar(-708.39) >= 0x1p-1022);
  assert_true(isnan(hs_f64_exp_scalar(NAN)));
  assert_true(hs_f64_exp_scalar(0) == 1);
}

static void check_dot(const hs_kernels *kt, hs_rng *r, size_t n, double range, size_t off) {
  double *a = fill(r, n, -range, range, off), *b = fill(r, n, -range, range, (off + 1) % 4);
  long double want = 0, abs = 0;
  for (size_t i = 0; i < n; i++) {
    want += (long double)a[i] * b[i];
    abs += fabsl((long double)a[i] * b[i]);
  }
  double got = kt->f64_dot(n, a, b);
  if (!(fabsl(got - want) <= (n / 4.0 + 8) * U * abs + 0x1p-1074 * (n + 1))) {
    fprintf(stderr, "%s f64 dot n=%zu: %.17g want %.17Lg\n", hs_isa_name(kt->isa), n, got, want);
    fail();
  }
  free(a - off);
  free(b - (off + 1) % 4);
}

static void test_dot(void **state) {
  (void)state;
  hs_rng r = {22};
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 0; n <= 100; n++) check_dot(kt, &r, n, 1, n % 4);
    for (size_t e = 7; e <= 20; e++) check_dot(kt, &r, ((size_t)1 << e) + e % 3, 1, e % 4);
    check_dot(kt, &r, 999, 1e-150, 1);
    check_dot(kt, &r, 999, 1e150, 2);
  }
}

static void check_gemv(const hs_kernels *kt, hs_rng *r, size_t m, size_t k, size_t off) {
  size_t lda = k + off;
  double *a = fill(r, m * lda + 1, -1, 1, off), *x = fill(r, k + 1, -1, 1, 1);
  double *y = fill(r, m + 1, 0, 1, 2);
  kt->f64_gemv(m, k, a, lda, x, y);
  for (size_t i = 0; i < m; i++) {
    long double want = 0, abs = 0;
    for (size_t c = 0; c < k; c++) {
      want += (long double)a[i * lda + c] * x[c];
      abs += fabsl((long double)a[i * lda + c] * x[c]);
    }
    if (!(fabsl(y[i] - want) <= (k / 4.0 + 8) * U * abs)) {
      fprintf(stderr, "%s f64 gemv m=%zu k=%zu row %zu\n", hs_isa_name(kt->isa), m, k, i);
      fail();
    }
  }
  assert_true(y[m] >= 0 && y[m] < 1); /* nothing written past y[m-1] */
  free(a - off);
  free(x - 1);
  free(y - 2);
}

static void test_gemv(void **state) {
  (void)state;
  hs_rng r = {23};
  HS_FOR_EACH_ISA(kt) {
    for (size_t m = 0; m <= 9; m++)
      for (size_t k = 0; k <= 40; k++) check_gemv(kt, &r, m, k, (m + k) % 4);
    check_gemv(kt, &r, 256, 256, 1);
    check_gemv(kt, &r, 129, 67, 3);
  }
}

/* Attention row over the ranges cut at splits, checked against the bound. */
static void attn_check(const hs_kernels *kt, size_t n, size_t dk, size_t dv,
                       const double *q, const double *k, size_t ldk,
                       const double *v, size_t ldv, double tau,
                       const size_t *sp, size_t ns) {
  hs_f64_online st = {-INFINITY, 0};
  double acc[HS_ATTN_MAX_D] = {0};
  size_t a = 0;
  for (size_t i = 0; i <= ns; i++) {
    size_t b = i < ns ? sp[i] : n;
    kt->f64_attn_row(b - a, dk, dv, q, k + a * ldk, ldk, v + a * ldv, ldv, tau, &st, acc);
    a = b;
  }
  long double *s = malloc((n + 1) * sizeof *s), mref = -INFINITY, smax = 0;
  int has_nan = 0;
  for (size_t j = 0; j < n; j++) {
    long double d = 0, ab = 0;
    for (size_t c = 0; c < dk; c++) {
      d += (long double)q[c] * k[j * ldk + c];
      ab += fabsl((long double)q[c] * k[j * ldk + c]);
    }
    s[j] = d * tau;
    ab *= fabs(tau);
    has_nan |= isnan(s[j]);
    if (s[j] > mref) mref = s[j];
    if (isfinite(ab) && ab > smax) smax = ab;
  }
  if (has_nan) {
    assert_true(isnan(st.sum));
    for (size_t c = 0; c < dv; c++) assert_true(isnan(acc[c]));
  } else if (mref == -INFINITY) {
    assert_true(st.max == -INFINITY && st.sum == 0);
    for (size_t c = 0; c < dv; c++) assert_true(acc[c] == 0);
  } else {
    const double S = (double)smax, c = (double)(ns + 1);
    double E = strstr(kt->name[HS_OP_f64_attn_row], "__scalar")
                   ? 2 * (dk + 8) * U * S + (n / 64.0 + 74) * U
                   : (2 * ((dk + 3) / 4) + 10 + n / 128.0) * S * U + (6 * n / 256.0 + 72 + 4 * c) * U;
    long double sum = 0, accr[HS_ATTN_MAX_D] = {0}, absr[HS_ATTN_MAX_D] = {0};
    for (size_t j = 0; j < n; j++) {
      long double e = st.max == INFINITY ? (s[j] == INFINITY ? 1 : 0)
                      : s[j] == -INFINITY ? 0 : expl(s[j] - st.max);
      if (e < 0x1p-1022L) e = 0;
      sum += e;
      for (size_t c = 0; c < dv; c++) {
        accr[c] += e * v[j * ldv + c];
        absr[c] += e * fabs(v[j * ldv + c]);
      }
    }
    if (E < 0.25) {
      if (!(fabsl(st.sum - sum) <= E * sum + n * 0x1p-1022)) {
        fprintf(stderr, "%s f64 attn n=%zu dk=%zu dv=%zu: sum %.17g ref %.17Lg\n",
                hs_isa_name(kt->isa), n, dk, dv, st.sum, sum);
        fail();
      }
      for (size_t c = 0; c < dv; c++)
        if (!(fabsl(acc[c] - accr[c]) <= E * absr[c] + 1e-300)) {
          fprintf(stderr, "%s f64 attn n=%zu dk=%zu dv=%zu: acc[%zu] %.17g ref %.17Lg\n",
                  hs_isa_name(kt->isa), n, dk, dv, c, acc[c], accr[c]);
          fail();
        }
    } else {
      assert_true(st.sum >= 1 && isfinite(st.sum));
    }
  }
  free(s);
}

static void attn_random(const hs_kernels *kt, hs_rng *r, size_t n, size_t dk,
                        size_t dv, double tau, double range, size_t off) {
  size_t ldk = dk + (off & 1), ldv = dv + (off & 2);
  double *q = fill(r, dk + 1, -range, range, off), *k = fill(r, n * ldk + 1, -range, range, off);
  double *v = fill(r, n * ldv + 1, -3, 3, off);
  attn_check(kt, n, dk, dv, q, k, ldk, v, ldv, tau, NULL, 0);
  if (n > 2) {
    size_t sp[3] = {1, n / 3, n / 3 + (n - n / 3) / 2};
    attn_check(kt, n, dk, dv, q, k, ldk, v, ldv, tau, sp, 3);
  }
  free(q - off);
  free(k - off);
  free(v - off);
}

static void test_attn(void **state) {
  (void)state;
  hs_rng r = {24};
  static const double taus[] = {1, 1e-3, 1e3};
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 0; n <= 70; n++) attn_random(kt, &r, n, 8, 8, 1, 2, n % 4);
    for (size_t dk = 0; dk <= 64; dk++)
      for (size_t dv = dk ? 1 : 0; dv <= 64; dv += dv < 9 ? 1 : 11)
        attn_random(kt, &r, 1 + (dk * 5 + dv) % 140, dk, dv, taus[(dk + dv) % 3], 1.5, dv % 4);
    for (size_t e = 7; e <= (kt->isa == HS_ISA_SCALAR ? 16u : 20u); e += 3)
      attn_random(kt, &r, (size_t)1 << e, 8, 8, 1, 3, e % 4);
    /* the contiguous-key (dk 1, 2, 4) and packed value (dv 1, 2, 4) paths,
     * around the 4- and 8-key groups and the 64-, 256- and 512-key blocks,
     * values of a partial and of several registers; the general scores
     * (dk 3, keys not contiguous: off 1) with the same values */
    static const size_t cn[] = {3, 7, 8, 9, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000, 4097};
    for (size_t dk = 1; dk <= 4; dk *= 2)
      for (size_t i = 0; i < sizeof cn / sizeof *cn; i++) {
        attn_random(kt, &r, cn[i], dk, 1, taus[i % 3], 2, 0);
        attn_random(kt, &r, cn[i], dk, 3, taus[i % 3], 2, 0);
        attn_random(kt, &r, cn[i], dk, 2, taus[i % 3], 2, 0);
        attn_random(kt, &r, cn[i], dk, 4, taus[i % 3], 2, 0);
        attn_random(kt, &r, cn[i], dk, 13, taus[i % 3], 2, 0);
        attn_random(kt, &r, cn[i], dk, 1, taus[i % 3], 2, 1);
        attn_random(kt, &r, cn[i], 3, 1, taus[i % 3], 2, 0);
      }
    static const double ranges[] = {1e-100, 1, 40, 1e5, 1e100};
    for (size_t i = 0; i < 5; i++)
      for (size_t t = 0; t < 3; t++) attn_random(kt, &r, 150, 4, 5, taus[t], ranges[i], i % 4);
  }
}

static void test_attn_special(void **state) {
  (void)state;
  hs_rng r = {25};
  /* several blocks of every ISA; a special score in the first, a middle
   * and the last block, and in a split's tail group */
  const size_t n = 1100;
  double *sc = malloc(3 * n * sizeof *sc), *sc2 = sc + n, q = 1;
  double *v = fill(&r, n * 3, -2, 2, 0);
  size_t sp[3] = {1, 70, 603};
  HS_FOR_EACH_ISA(kt) {
    hs_f64_online st = {2, 3};
    double acc[1] = {4};
    kt->f64_attn_row(0, 1, 1, &q, &q, 1, &q, 1, 1, &st, acc);
    assert_true(st.max == 2 && st.sum == 3 && acc[0] == 4);
    for (int kind = 0; kind < 10; kind++) {
      for (size_t j = 0; j < n; j++) {
        double x = hs_rng_uniform(&r, -1, 1);
        switch (kind) {
          case 0: sc[j] = -INFINITY; break;                       /* all masked */
          case 1: sc[j] = j == 99 || j == 1099 ? 5 : -INFINITY; break; /* few visible */
          case 2: sc[j] = 7.5; break;                             /* all equal */
          case 3: sc[j] = j == 40 ? 1000 : x; break;              /* dominant */
          case 4: sc[j] = (double)j - 1e3; break;                 /* rising max */
          case 5: sc[j] = j == 10 || j == 600 ? INFINITY : x; break;
          case 6: sc[j] = j == 602 ? NAN : x; break;
          case 7: sc[j] = j == 1099 ? NAN : j < 600 ? -INFINITY : x; break;
          case 8: sc[j] = j == 5 ? NAN : j == 700 ? INFINITY : -INFINITY; break;
          default: sc[j] = j == 0 ? 0 : -700 - j * 0.006; break;  /* near cutoff */
        }
        /* keys of stride 2 (the general scores); the other double unread */
        sc2[2 * j] = sc[j];
        sc2[2 * j + 1] = NAN;
      }
      attn_check(kt, n, 1, 3, &q, sc, 1, v, 3, 1, NULL, 0);
      attn_check(kt, n, 1, 3, &q, sc, 1, v, 3, 1, sp, 3);
      attn_check(kt, n, 1, 1, &q, sc, 1, v, 1, 1, sp, 3); /* packed values */
      attn_check(kt, n, 1, 2, &q, sc, 1, v, 2, 1, sp, 3);
      attn_check(kt, n, 1, 1, &q, sc, 1, v, 3, 1, sp, 3); /* one column, not contiguous */
      attn_check(kt, n, 1, 1, &q, sc2, 2, v, 1, 1, sp, 3); /* general scores */
    }
    /* exp through the kernel: weight of score x next to score 0 */
    double worst = 0;
    for (int i = 0; i < 20000; i++) {
      double x = hs_rng_uniform(&r, i % 2 ? -708.39 : -1, 0);
      double s2[2] = {0, x}, v2[2] = {0, 1}, a1[1] = {0};
      hs_f64_online s1 = {-INFINITY, 0};
      kt->f64_attn_row(2, 1, 1, &q, s2, 1, v2, 1, 1, &s1, a1);
      assert_true(a1[0] >= 0x1p-1022);
      double u = ulp_f64(a1[0], expl((long double)x));
      if (u > worst) worst = u;
    }
    if (worst > 2) {
      fprintf(stderr, "%s f64 exp %.2f ULP\n", hs_isa_name(kt->isa), worst);
      fail();
    }
  }
  free(sc);
  free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exp_scalar), cmocka_unit_test(test_dot),
      cmocka_unit_test(test_gemv),       cmocka_unit_test(test_attn),
      cmocka_unit_test(test_attn_special),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
