/* SPDX-License-Identifier: MIT */
/* f32_softmax on every ISA this CPU runs, against a double-precision
 * reference (libm exp in double).
 *
 * Stated bound (the first comment of each kernel file): each output within
 * 6 ULP (AVX2, AVX-512) or 7 ULP (scalar) of the exact softmax of the float differences
 * d_i = fl(fl(x_i * inv_tau) - m), plus 2 * FLT_MIN absolute for outputs
 * that the contract flushes to +0 (below FLT_MIN * (1 + 2^-16)); no output
 * is subnormal; every finite row sums to 1 within 1e-6 relative (measured in
 * double over the float outputs), also at n = 16,777,216. The contract's
 * special rows are checked exactly: -inf entries give +0, fully masked rows
 * all +0, a NaN anywhere all NaN, +inf entries share the weight equally.
 * Sizes 0-70, around the unroll factors and block sizes, powers of two to
 * 2^20, unaligned pointers, in place, temperatures 1, 0.01, 100 (and 0,
 * negative, infinite, NaN), hostile rows, and the default dispatch table. */
#include <float.h>

#include "common.h"

/* per ISA, in hs_isa's order: wasm128 has no fused multiply-add, its exp
 * rounds as the scalar one; the last runs the scalar kernel (no row of
 * its own in simd/kernels.inc) */
static const double bound_ulp[] = {7.0, 6.0, 6.0, 7.0, 7.0};
_Static_assert(sizeof bound_ulp / sizeof *bound_ulp == HS_ISA_COUNT, "a bound per ISA");
#define FLUSH_ABS (2.0 * FLT_MIN)
#define SUM_TOL 1e-6

static double max_ulp[HS_ISA_COUNT];
static double max_sum_err[HS_ISA_COUNT];

/* the ULP of a float in the exact value's binade (0 for 0) */
static double ulp_of(double want) {
  int e;
  if (want == 0) return 0;
  frexp(want, &e);
  return ldexp(1.0, e - 24);
}

enum row_kind { ROW_FINITE, ROW_NAN, ROW_ZERO, ROW_INF };

/* The reference: the contract applied to x, outputs in double. */
static enum row_kind ref_softmax(size_t n, const float *x, float inv_tau,
                                 double *want) {
  int nan = 0;
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const float s = x[i] * inv_tau;
    if (isnan(s)) nan = 1;
    else if (s > m) m = s;
  }
  if (nan) {
    for (size_t i = 0; i < n; i++) want[i] = NAN;
    return ROW_NAN;
  }
  if (m == -INFINITY) {
    for (size_t i = 0; i < n; i++) want[i] = 0;
    return ROW_ZERO;
  }
  if (m == INFINITY) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += x[i] * inv_tau == INFINITY;
    for (size_t i = 0; i < n; i++)
      want[i] = x[i] * inv_tau == INFINITY ? (float)(1.0 / (double)c) : 0.0;
    return ROW_INF;
  }
  long double sum = 0;
  for (size_t i = 0; i < n; i++) {
    const float d = x[i] * inv_tau - m; /* the float difference */
    want[i] = exp((double)d);
    sum += want[i];
  }
  for (size_t i = 0; i < n; i++) want[i] = (double)(want[i] / sum);
  return ROW_FINITE;
}

/* Checks y against the reference; fails with the first bad element. */
static void check_row(hs_isa isa, size_t n, const float *x, float inv_tau,
                      const float *y, enum row_kind kind, const double *want) {
  const char *nm = hs_isa_name(isa);
  double worst = 0, sum = 0;
  for (size_t i = 0; i < n; i++) {
    const float g = y[i];
    switch (kind) {
      case ROW_NAN:
        if (!isnan(g)) fail_msg("%s n=%zu: y[%zu] = %a, want NaN row", nm, n, i, g);
        continue;
      case ROW_ZERO:
        if (!(g == 0.0f && !signbit(g)))
          fail_msg("%s n=%zu: y[%zu] = %a, want +0 (masked row)", nm, n, i, g);
        continue;
      case ROW_INF:
        if (!(g == (float)want[i]))
          fail_msg("%s n=%zu: y[%zu] = %a, want %a (+inf row)", nm, n, i, g, want[i]);
        continue;
      case ROW_FINITE:
        break;
    }
    if (!(g >= 0.0f && g <= 1.0f) || (g != 0.0f && g < FLT_MIN))
      fail_msg("%s n=%zu: y[%zu] = %a out of [0, 1] or subnormal", nm, n, i, g);
    if (x[i] * inv_tau == -INFINITY && !(g == 0.0f && !signbit(g)))
      fail_msg("%s n=%zu: masked y[%zu] = %a, want +0", nm, n, i, g);
    const double err = fabs((double)g - want[i]);
    const double u = want[i] > 0 ? err / ulp_of(want[i]) : (err > 0 ? INFINITY : 0);
    if (want[i] >= FLUSH_ABS && u > worst) worst = u;
    if (err > bound_ulp[isa] * ulp_of(want[i]) + (want[i] < FLUSH_ABS ? FLUSH_ABS : 0))
      fail_msg("%s n=%zu inv_tau=%g: y[%zu] = %a, want %a (%.2f ULP > %.1f)",
               nm, n, (double)inv_tau, i, g, want[i], u, bound_ulp[isa]);
    sum += g;
  }
  if (kind == ROW_FINITE && n > 0) {
    const double se = fabs(sum - 1.0);
    if (se > max_sum_err[isa]) max_sum_err[isa] = se;
    if (se > SUM_TOL)
      fail_msg("%s n=%zu inv_tau=%g: row sums to 1 %+.3g", nm, n, (double)inv_tau, sum - 1.0);
  }
  if (worst > max_ulp[isa]) max_ulp[isa] = worst;
}

/* Runs every ISA on x (out of place, then in place) and checks each. */
static void run_all(size_t n, const float *x, float inv_tau) {
  double *want = malloc((n + 1) * sizeof(double));
  float *y = malloc(n * sizeof(float) + 1);
  float *z = malloc(n * sizeof(float) + 1);
  assert_non_null(want);
  assert_non_null(y);
  assert_non_null(z);
  const enum row_kind kind = ref_softmax(n, x, inv_tau, want);
  HS_FOR_EACH_ISA(kt) {
    kt->f32_softmax(n, x, y, inv_tau);
    check_row(kt->isa, n, x, inv_tau, y, kind, want);
    memcpy(z, x, n * sizeof(float));
    kt->f32_softmax(n, z, z, inv_tau); /* in place */
    if (memcmp(y, z, n * sizeof(float)) != 0)
      fail_msg("%s n=%zu: in place differs from out of place", hs_isa_name(kt->isa), n);
  }
  free(want);
  free(y);
  free(z);
}

static void fill_random(hs_rng *r, size_t n, float *x, double lo, double hi) {
  for (size_t i = 0; i < n; i++) x[i] = (float)hs_rng_uniform(r, lo, hi);
}

static const float taus[] = {1.0f, 0.01f, 100.0f};

/* 0..70 and around the unroll factors (8/16 lanes, 32/64 per iteration)
 * and the summation blocks (256/512), exact-size buffers for ASan */
static void test_sizes(void **state) {
  (void)state;
  hs_rng r = {21};
  size_t sizes[200], ns = 0;
  for (size_t n = 0; n <= 70; n++) sizes[ns++] = n;
  const size_t u[] = {16, 32, 64, 128, 256, 512};
  for (int k = 0; k < 6; k++)
    for (size_t m = 1; m <= 3; m++) {
      sizes[ns++] = u[k] * m - 1;
      sizes[ns++] = u[k] * m;
      sizes[ns++] = u[k] * m + 1;
    }
  for (size_t s = 0; s < ns; s++) {
    const size_t n = sizes[s];
    float *x = malloc(n * sizeof(float) + 1);
    assert_non_null(x);
    for (int t = 0; t < 3; t++) {
      fill_random(&r, n, x, -20.0, 20.0);
      run_all(n, x, taus[t]);
    }
    free(x);
  }
}

static void test_powers_of_two(void **state) {
  (void)state;
  hs_rng r = {22};
  const size_t nmax = (size_t)1 << 20;
  float *x = malloc(nmax * sizeof(float));
  assert_non_null(x);
  for (size_t n = 1; n <= nmax; n *= 2)
    for (int t = 0; t < 3; t++) {
      fill_random(&r, n, x, -3.0, 3.0);
      run_all(n, x, taus[t]);
    }
  free(x);
}

/* start offsets of 1..15 floats; canaries before and after y stay intact */
static void test_unaligned(void **state) {
  (void)state;
  hs_rng r = {23};
  const size_t n = 301;
  float *xb = hs_test_alloc((n + 32) * sizeof(float));
  float *yb = hs_test_alloc((n + 32) * sizeof(float));
  double *want = malloc(n * sizeof(double));
  assert_non_null(want);
  HS_FOR_EACH_ISA(kt) {
    for (size_t off = 1; off <= 15; off++) {
      float *x = xb + off, *y = yb + (16 - off);
      for (size_t i = 0; i < n + 32; i++) yb[i] = 777.0f;
      fill_random(&r, n, x, -30.0, 30.0);
      const enum row_kind kind = ref_softmax(n, x, 1.0f, want);
      kt->f32_softmax(n, x, y, 1.0f);
      check_row(kt->isa, n, x, 1.0f, y, kind, want);
      for (float *p = yb; p < y; p++) assert_true(*p == 777.0f);
      for (float *p = y + n; p < yb + n + 32; p++) assert_true(*p == 777.0f);
    }
    /* n == 0 writes nothing */
    for (size_t i = 0; i < n + 32; i++) yb[i] = 777.0f;
    kt->f32_softmax(0, xb, yb, 1.0f);
    for (size_t i = 0; i < n + 32; i++) assert_true(yb[i] == 777.0f);
  }
  free(xb);
  free(yb);
  free(want);
}

static const size_t hostile_n[] = {1, 2, 7, 8, 9, 16, 17, 31, 33, 64, 65, 100, 257, 513, 1000};

/* builds hostile row number `kind` of length n into x */
static void hostile_row(int kind, size_t n, float *x, hs_rng *r) {
  for (size_t i = 0; i < n; i++) x[i] = (float)hs_rng_uniform(r, -5, 5);
  switch (kind) {
    case 0: /* masked entries */
      for (size_t i = 0; i < n; i += 3) x[i] = -INFINITY;
      x[n - 1] = 1.0f;
      break;
    case 1: /* fully masked */
      for (size_t i = 0; i < n; i++) x[i] = -INFINITY;
      break;
    case 2: /* one +inf */
      x[n / 2] = INFINITY;
      break;
    case 3: /* several +inf among -inf and finite */
      for (size_t i = 0; i < n; i += 4) x[i] = INFINITY;
      for (size_t i = 1; i < n; i += 4) x[i] = -INFINITY;
      break;
    case 4: /* NaN at the end */
      x[n - 1] = NAN;
      break;
    case 5: /* NaN at the start of a masked row */
      for (size_t i = 0; i < n; i++) x[i] = -INFINITY;
      x[0] = NAN;
      break;
    case 6: /* NaN with +inf */
      x[n / 3] = INFINITY;
      x[(2 * n) / 3] = -NAN;
      break;
    case 7: /* huge magnitudes: s - m overflows to -inf */
      for (size_t i = 0; i < n; i++) x[i] = (float)hs_rng_uniform(r, -3e38, 3e38);
      break;
    case 8: /* tiny magnitudes */
      for (size_t i = 0; i < n; i++) x[i] = (float)hs_rng_uniform(r, -1e-30, 1e-30);
      break;
    case 9: /* subnormals */
      for (size_t i = 0; i < n; i++) x[i] = 0x1p-149f * (float)(hs_rng_next(r) % 1000) - 0x1p-140f;
      break;
    case 10: /* all equal */
      for (size_t i = 0; i < n; i++) x[i] = 3.7f;
      break;
    case 11: /* one dominant score */
      for (size_t i = 0; i < n; i++) x[i] = 0.0f;
      x[n / 2] = 200.0f;
      break;
    case 12: /* a spread that reaches the flush cutoff */
      for (size_t i = 0; i < n; i++) x[i] = (float)hs_rng_uniform(r, -100, 0);
      x[0] = 0.0f;
      break;
    case 13: /* -FLT_MAX and FLT_MAX */
      for (size_t i = 0; i < n; i++) x[i] = (i & 1) ? FLT_MAX : -FLT_MAX;
      break;
  }
}

static void test_hostile(void **state) {
  (void)state;
  hs_rng r = {24};
  const float inv_taus[] = {1.0f, 0.01f, 100.0f, 0.0f, -1.0f, INFINITY, NAN, 1e-45f};
  for (size_t k = 0; k < sizeof hostile_n / sizeof hostile_n[0]; k++) {
    const size_t n = hostile_n[k];
    float *x = malloc(n * sizeof(float));
    assert_non_null(x);
    for (int kind = 0; kind <= 13; kind++)
      for (size_t t = 0; t < sizeof inv_taus / sizeof inv_taus[0]; t++) {
        hostile_row(kind, n, x, &r);
        run_all(n, x, inv_taus[t]);
      }
    free(x);
  }
}

/* exact outcomes the contract promises, spelled out */
static void test_exact_cases(void **state) {
  (void)state;
  HS_FOR_EACH_ISA(kt) {
    float y[5];
    const float a[5] = {-INFINITY, 2.0f, -INFINITY, 2.0f, -INFINITY};
    kt->f32_softmax(5, a, y, 1.0f);
    assert_true(y[0] == 0 && y[2] == 0 && y[4] == 0 && y[1] == 0.5f && y[3] == 0.5f);
    const float b[5] = {INFINITY, 1.0f, INFINITY, -INFINITY, INFINITY};
    kt->f32_softmax(5, b, y, 1.0f);
    assert_true(y[1] == 0 && y[3] == 0 && y[0] == (float)(1.0 / 3.0) && y[2] == y[0] && y[4] == y[0]);
    const float c[3] = {-INFINITY, -INFINITY, -INFINITY};
    kt->f32_softmax(3, c, y, 1.0f);
    assert_true(y[0] == 0 && y[1] == 0 && y[2] == 0 && !signbit(y[1]));
    const float d[3] = {1.0f, NAN, -INFINITY};
    kt->f32_softmax(3, d, y, 1.0f);
    assert_true(isnan(y[0]) && isnan(y[1]) && isnan(y[2]));
    const float e[1] = {-1e30f};
    kt->f32_softmax(1, e, y, 1.0f);
    assert_true(y[0] == 1.0f);
  }
}

/* the sum-to-1 property at n = 2^24: one row, summed in double */
static void test_sum_16m(void **state) {
  (void)state;
  hs_rng r = {25};
  const size_t n = (size_t)1 << 24;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  assert_non_null(x);
  assert_non_null(y);
  const double ranges[][2] = {{-10, 10}, {-0.5, 0.5}};
  for (int k = 0; k < 2; k++) {
    fill_random(&r, n, x, ranges[k][0], ranges[k][1]);
    HS_FOR_EACH_ISA(kt) {
      kt->f32_softmax(n, x, y, 1.0f);
      double sum = 0;
      for (size_t i = 0; i < n; i++) sum += y[i];
      printf("f32_softmax %-7s n=2^24 range [%g, %g]: sum - 1 = %+.3g\n",
             hs_isa_name(kt->isa), ranges[k][0], ranges[k][1], sum - 1.0);
      if (fabs(sum - 1.0) > SUM_TOL)
        fail_msg("%s n=2^24: row sums to 1 %+.3g", hs_isa_name(kt->isa), sum - 1.0);
    }
  }
  free(x);
  free(y);
}

static void test_dispatch(void **state) {
  (void)state;
  hs_error err;
  const hs_kernels *kt = hs_kernels_default(&err);
  if (!kt) fail_msg("hs_kernels_default: %s", err.msg);
  assert_non_null(strstr(kt->name[HS_OP_f32_softmax], "softmax"));
  hs_rng r = {26};
  float x[99], y[99];
  double want[99];
  fill_random(&r, 99, x, -9, 9);
  const enum row_kind kind = ref_softmax(99, x, 0.5f, want);
  kt->f32_softmax(99, x, y, 0.5f);
  check_row(kt->isa, 99, x, 0.5f, y, kind, want);
}

static int report(void **state) {
  (void)state;
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (hs_kernels_for((hs_isa)i))
      printf("f32_softmax %-7s max error %.3f ULP (bound %.1f), max |row sum - 1| %.3g\n",
             hs_isa_name((hs_isa)i), max_ulp[i], bound_ulp[i], max_sum_err[i]);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),       cmocka_unit_test(test_powers_of_two),
      cmocka_unit_test(test_unaligned),   cmocka_unit_test(test_hostile),
      cmocka_unit_test(test_exact_cases), cmocka_unit_test(test_sum_16m),
      cmocka_unit_test(test_dispatch),
  };
  return cmocka_run_group_tests(tests, NULL, report);
}
