/* SPDX-License-Identifier: MIT */
/* f64_bounds and f64_bound_test (the skipping tree's node bounds and the
 * walk's tests) on every ISA: against a long double reference, within the
 * rounding the contract allows, and bit for bit against the scalar kernel
 * (the contract's promise: the skipping never depends on the ISA). Every
 * n from 1 to 16 (the vector tails), dk from 1 to 9 and 64; the last
 * row's last node ends its allocation, so ASan sees any read past it;
 * sentinels past u[n - 1] and ub[n - 1] must stay; NaN nodes, A above lim,
 * relative bias with nodes cut by the row's keys. */
#include "common.h"

#define FAN 16
#define SENT -12345.0

/* A level of nodes: 3 dk rows of ld values, rows kmin, kmax, max |k|;
 * allocated to end exactly at the last node of the last row. */
static double *make_level(hs_rng *g, size_t dk, size_t n, size_t ld, int nan_node) {
  double *lv = malloc(((3 * dk - 1) * ld + n) * sizeof(double));
  assert_non_null(lv);
  for (size_t c = 0; c < dk; c++)
    for (size_t k = 0; k < (c == dk - 1 ? n : ld); k++) {
      double a = hs_rng_uniform(g, -3, 3), b = hs_rng_uniform(g, -3, 3);
      if (k % 5 == 3) a = b = (double)(int)a; /* integer, exact keys */
      double mn = a < b ? a : b, mx = a < b ? b : a;
      lv[c * ld + k] = mn, lv[(dk + c) * ld + k] = mx;
      lv[(2 * dk + c) * ld + k] = fabs(mn) > fabs(mx) ? fabs(mn) : fabs(mx);
      if ((int)k == nan_node)
        lv[c * ld + k] = lv[(dk + c) * ld + k] = lv[(2 * dk + c) * ld + k] = NAN;
    }
  /* dimension dk - 1 only up to node n: its last row (3 dk - 1) ends the
   * allocation, and nothing past node n - 1 is read in any row */
  return lv;
}

static void check_bounds(size_t n, size_t dk, hs_rng *g) {
  const size_t ld = n + 3;
  int nan_node = n > 2 ? (int)(n / 2) : -1;
  double *lv = make_level(g, dk, n, ld, nan_node);
  double qd[64], aq[64];
  for (size_t c = 0; c < dk; c++) {
    qd[c] = c % 4 == 2 ? -0.0 : hs_rng_uniform(g, -2, 2);
    aq[c] = fabs(qd[c]);
  }
  const double rel = 1e-5, absm = 1e-30;
  double lim = INFINITY;
  /* a finite lim some nodes exceed: their u must be NaN */
  if (n % 3 == 0) lim = 0.6 * (double)dk;
  double u0[FAN + 1], u1[FAN + 1];
  for (size_t k = 0; k <= FAN; k++) u0[k] = SENT;
  const hs_kernels *ks = hs_kernels_for(HS_ISA_SCALAR);
  ks->f64_bounds(n, dk, lv, ld, qd, aq, rel, absm, lim, u0);
  for (size_t k = 0; k < n; k++) {
    long double S = 0, A = 0;
    for (size_t c = 0; c < dk; c++) {
      S += (long double)qd[c] * lv[((qd[c] >= 0 ? dk : 0) + c) * ld + k];
      A += (long double)aq[c] * lv[(2 * dk + c) * ld + k];
    }
    if ((int)k == nan_node || !(A <= lim)) {
      /* (A within rounding of lim: either answer) */
      if ((int)k == nan_node || A > (long double)lim * (1 + 1e-12)) assert_true(isnan(u0[k]));
      continue;
    }
    long double want = S + rel * A + absm;
    /* dk products and dk adds per sum, then 3 more operations, each
     * within 2^-53 of values at most A (1 + rel) + absm */
    long double tol = (2.0L * (long double)dk + 4) * 0x1p-53L * (A * (1 + rel) + absm);
    if (fabsl((long double)u0[k] - want) > tol)
      fail_msg("f64_bounds n %zu dk %zu node %zu: %.17g, want %.17Lg", n, dk, k, u0[k], want);
  }
  for (size_t k = n; k <= FAN; k++) assert_true(u0[k] == SENT);
  HS_FOR_EACH_ISA(kt) {
    for (size_t k = 0; k <= FAN; k++) u1[k] = SENT;
    kt->f64_bounds(n, dk, lv, ld, qd, aq, rel, absm, lim, u1);
    if (memcmp(u0, u1, sizeof u0) != 0)
      fail_msg("%s f64_bounds n %zu dk %zu: not the scalar kernel's bits", hs_isa_name(kt->isa),
               n, dk);
  }
  free(lv);
}

static void test_bounds(void **state) {
  (void)state;
  hs_rng g = {7};
  for (size_t n = 1; n <= FAN; n++) {
    for (size_t dk = 1; dk <= 9; dk++) check_bounds(n, dk, &g);
    check_bounds(n, 64, &g);
  }
}

/* The bias of node k, in long double (the contract's formula). */
static long double ref_bias(const hs_bt_bias *b, double first, double w, size_t k) {
  long double j0 = ((long double)first + k) * w, j1 = j0 + w - 1;
  if (j0 < b->a) j0 = b->a;
  if (j1 > b->b) j1 = b->b;
  long double p0 = b->sk * (j0 - b->row), p1 = b->sk * (j1 - b->row);
  return (p0 > p1 ? p0 : p1) + b->brel * (fabsl(p0) > fabsl(p1) ? fabsl(p0) : fabsl(p1));
}

static void check_test(size_t n, hs_bt_op op, int biased, hs_rng *g) {
  double u[FAN], ub0[FAN + 1], ub1[FAN + 1];
  for (size_t k = 0; k < n; k++) {
    u[k] = hs_rng_uniform(g, -100, 100);
    if (k % 7 == 5) u[k] = NAN;
    if (k % 11 == 9) u[k] = (double)(int)u[k]; /* ties with an integer x */
  }
  /* a node at level 1 (1024 keys) cut by the row's keys at both ends */
  const double first = 32, w = 1024;
  hs_bt_bias b = {hs_rng_uniform(g, -0.01, 0.01), 32 * 1024 + 5000, 1e-6, 32 * 1024 + 700,
                  32 * 1024 + 1024.0 * (double)n - 300};
  const hs_bt_bias *bp = biased ? &b : NULL;
  const double x = (double)(int)hs_rng_uniform(g, -40, 40), y = op == HS_BT_KEEP ? 88.0001 : 0;
  for (size_t k = 0; k <= FAN; k++) ub0[k] = ub1[k] = SENT;
  const hs_kernels *ks = hs_kernels_for(HS_ISA_SCALAR);
  unsigned m0 = ks->f64_bound_test(n, u, op, x, y, bp, first, w, ub0);
  for (size_t k = 0; k < n; k++) {
    long double want = u[k] + (biased ? ref_bias(&b, first, w, k) : 0);
    double v = ub0[k];
    if (isnan(u[k])) {
      assert_true(isnan(v));
    } else {
      /* the bias: 2 products and 2 subtractions of exact integers, 4
       * more operations, each within 2^-53 of at most |u| + 2 |bias| */
      long double tol = 8 * 0x1p-53L * (fabsl((long double)u[k]) + 2 * fabsl(want - u[k]));
      if (fabsl((long double)v - want) > tol)
        fail_msg("f64_bound_test n %zu node %zu: ub %.17g, want %.17Lg", n, k, v, want);
    }
    int in = op == HS_BT_KEEP ? !(x - v > y) : op == HS_BT_ABOVE ? v > x : v >= x;
    if (((m0 >> k) & 1u) != (unsigned)in) fail_msg("f64_bound_test n %zu op %d: bit %zu", n, op, k);
  }
  assert_true(m0 >> n == 0);
  for (size_t k = n; k <= FAN; k++) assert_true(ub0[k] == SENT);
  HS_FOR_EACH_ISA(kt) {
    unsigned m1 = kt->f64_bound_test(n, u, op, x, y, bp, first, w, ub1);
    unsigned m2 = kt->f64_bound_test(n, u, op, x, y, bp, first, w, NULL);
    if (m1 != m0 || m2 != m0 || memcmp(ub0, ub1, sizeof ub0) != 0)
      fail_msg("%s f64_bound_test n %zu op %d bias %d: not the scalar kernel's bits",
               hs_isa_name(kt->isa), n, op, biased);
  }
}

static void test_bound_test(void **state) {
  (void)state;
  hs_rng g = {11};
  for (int rep = 0; rep < 20; rep++)
    for (size_t n = 1; n <= FAN; n++)
      for (int op = HS_BT_KEEP; op <= HS_BT_ATLEAST; op++)
        for (int biased = 0; biased < 2; biased++) check_test(n, (hs_bt_op)op, biased, &g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bounds),
      cmocka_unit_test(test_bound_test),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
