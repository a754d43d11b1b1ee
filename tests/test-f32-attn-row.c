/* SPDX-License-Identifier: MIT */
/* f32 attention-row kernels (every ISA this CPU runs) against a long
 * double reference, with the bound stated in the kernels' first comment:
 * with S_j = sum_c |q_c k_jc inv_tau| and E = 2 (dk + 8) u max_j S_j
 * + (n/64 + 70) u + 4 u (scores, exp, blocked sums; u = 2^-24),
 *   |sum - sum*| <= E sum*,   |acc_c - acc*_c| <= E sum_j e_j |v_jc|,
 * where * is exact arithmetic relative to the kernel's own max (st.max).
 * Also: n = 0, -inf / +inf / NaN scores, fully masked rows, huge and tiny
 * magnitudes, splitting the keys over several calls, dk/dv 1..64,
 * inv_tau 1, 1e-3, 1e3, unaligned pointers, and no subnormal weights. */
#include "attn-ref.h"

/* Runs the kernel over the key ranges cut at splits[0..ns) and checks the
 * state against the reference. Returns the normalised output in out. */
static void run_check(const hs_kernels *kt, const prob *p, const size_t *splits,
                      size_t ns, double slack) {
  hs_f32_online st = {-INFINITY, 0};
  float acc[HS_ATTN_MAX_D] = {0};
  size_t a = 0;
  for (size_t i = 0; i <= ns; i++) {
    size_t b = i < ns ? splits[i] : p->n;
    kt->f32_attn_row(b - a, p->dk, p->dv, p->q, p->k + a * p->ldk, p->ldk,
                     p->v + a * p->ldv, p->ldv, p->tau, &st, acc);
    a = b;
  }
  /* reference scores, exact products, long double sums */
  long double mref, smax;
  long double *s = malloc((p->n + 1) * sizeof *s);
  int has_nan = ref_scores(p, s, &mref, &smax);
  if (has_nan) {
    assert_true(isnan(st.sum));
    for (size_t c = 0; c < p->dv; c++) assert_true(isnan(acc[c]));
    free(s);
    return;
  }
  if (mref == -INFINITY) {
    assert_true(st.max == -INFINITY);
    assert_true(st.sum == 0);
    for (size_t c = 0; c < p->dv; c++) assert_true(acc[c] == 0);
    free(s);
    return;
  }
  assert_false(isnan(st.sum));
  if (mref == INFINITY) {
    assert_true(st.max == INFINITY);
  } else {
    /* the kernel's max is the max score to within the score error */
    double ds = (p->dk + 8) * U * (double)smax + U * fabsl(mref) +
                (p->dk + 2) * 0x1p-149 * fmax(1, fabs(p->tau)); /* underflow */
    if (!(fabs(st.max - (double)mref) <= ds + 1e-300)) {
      fprintf(stderr, "max %.9g ref %.9Lg ds %g\n", st.max, mref, ds);
      fail();
    }
  }
  double E = 2 * (p->dk + 8) * U * (double)smax + (p->n / 64.0 + 74) * U;
  E *= slack;
  if (E >= 0.25) {
    /* score errors of order 1 or more: the bound says nothing beyond this */
    assert_true(st.sum >= 1 && isfinite(st.sum));
    free(s);
    return;
  }
  long double sum, accr[HS_ATTN_MAX_D], absr[HS_ATTN_MAX_D];
  ref_weights(p, s, st.max, &sum, accr, absr);
  /* flushing loses at most n * 2^-126 relative to the max term 1 */
  double flush = p->n * 0x1p-126;
  if (!(fabsl(st.sum - sum) <= E * sum + flush)) {
    fprintf(stderr, "%s n=%zu dk=%zu dv=%zu tau=%g: sum %.9g ref %.9Lg E %g\n",
            hs_isa_name(kt->isa), p->n, p->dk, p->dv, p->tau, st.sum, sum, E);
    fail();
  }
  for (size_t c = 0; c < p->dv; c++)
    if (!(fabsl(acc[c] - accr[c]) <= E * absr[c] + flush * 1e30)) {
      fprintf(stderr, "%s n=%zu dk=%zu dv=%zu tau=%g: acc[%zu] %.9g ref %.9Lg E %g\n",
              hs_isa_name(kt->isa), p->n, p->dk, p->dv, p->tau, c, acc[c], accr[c], E);
      fail();
    }
  free(s);
}

static float *fill(hs_rng *r, size_t cnt, double lo, double hi, size_t off) {
  float *b = (float *)hs_test_alloc(cnt * sizeof(float)) + off;
  for (size_t i = 0; i < cnt; i++) b[i] = (float)hs_rng_uniform(r, lo, hi);
  return b;
}

static void random_case(const hs_kernels *kt, hs_rng *r, size_t n, size_t dk,
                        size_t dv, float tau, double range, size_t off) {
  size_t ldk = dk + (off & 1) * 3, ldv = dv + (off & 2);
  float *q = fill(r, dk ? dk : 1, -range, range, off);
  float *k = fill(r, n * ldk + 1, -range, range, off);
  float *v = fill(r, n * ldv + 1, -4, 4, off);
  prob p = {n, dk, dv, ldk, ldv, q, k, v, tau};
  run_check(kt, &p, NULL, 0, 1);
  if (n > 2) {
    /* the same keys over several calls: BOS alone, then ranges */
    size_t sp[3] = {1, n / 3, n / 3 + (n - n / 3) / 2};
    run_check(kt, &p, sp, 3, 1);
  }
  free(q - off);
  free(k - off);
  free(v - off);
}

static void test_sizes(void **state) {
  (void)state;
  hs_rng r = {1};
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 0; n <= 70; n++)
      random_case(kt, &r, n, 8, 8, 1.0f, 2, n % 4);
    static const size_t ns[] = {127, 128, 129, 191, 192, 193, 255, 256, 257};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
      random_case(kt, &r, ns[i], 8, 8, 1.0f, 2, i % 4);
  }
}

static void test_dims(void **state) {
  (void)state;
  hs_rng r = {2};
  static const float taus[] = {1.0f, 1e-3f, 1e3f};
  HS_FOR_EACH_ISA(kt) {
    for (size_t dk = 0; dk <= 64; dk++)
      for (size_t dv = (dk == 0 ? 0 : 1); dv <= 64; dv += (dv < 17 ? 1 : 7))
        random_case(kt, &r, 1 + (dk * 7 + dv * 3) % 150, dk, dv,
                    taus[(dk + dv) % 3], 1.5, (dk + dv) % 4);
  }
}

/* The small heads compiled models use (dk, dv in 1..8), contiguous
 * (ldk == dk, ldv == dv: the kernels' specialised paths) and padded, with
 * n around the 8/16-key groups and the 64/128-key blocks, and past the
 * 512-key blocks with a ragged last group (515, 1029). */
static void test_small_heads(void **state) {
  (void)state;
  hs_rng r = {7};
  static const size_t ns[] = {1, 7, 16, 33, 128, 129, 300, 515, 1029};
  HS_FOR_EACH_ISA(kt) {
    for (size_t dk = 1; dk <= 8; dk++)
      for (size_t dv = 1; dv <= 8; dv++)
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
          random_case(kt, &r, ns[i], dk, dv, 1.0f, 2, 0);     /* contiguous */
          /* padded keys and values, or padded keys only */
          random_case(kt, &r, ns[i], dk, dv, 0.125f, 2, 1 + 2 * (i % 2));
        }
  }
}

static void test_powers(void **state) {
  (void)state;
  hs_rng r = {3};
  HS_FOR_EACH_ISA(kt) {
    size_t top = kt->isa == HS_ISA_SCALAR ? 18 : 20;
    for (size_t e = 0; e <= top; e += (e < 12 ? 1 : 2))
      random_case(kt, &r, (size_t)1 << e, 8, 8, 1.0f, 3, e % 4);
  }
}

static void test_ranges(void **state) {
  (void)state;
  hs_rng r = {4};
  static const float taus[] = {1.0f, 1e-3f, 1e3f};
  static const double ranges[] = {1e-20, 1e-3, 1, 30, 1e4, 1e15};
  HS_FOR_EACH_ISA(kt)
  for (size_t t = 0; t < 3; t++)
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
      for (size_t d = 1; d <= 16; d += 5)
        random_case(kt, &r, 300 + 13 * i, d, d, taus[t], ranges[i], i % 4);
}

/* dk = 1, q = 1, inv_tau = 1: the keys are the scores themselves. */
static void scores_case(const hs_kernels *kt, const float *sc, size_t n,
                        size_t dv, hs_rng *r) {
  float q = 1;
  float *v = fill(r, n * dv + 1, -2, 2, 0);
  prob p = {n, 1, dv, 1, dv, &q, sc, v, 1.0f};
  run_check(kt, &p, NULL, 0, 1);
  if (n > 3) {
    size_t sp[2] = {1, n / 2};
    run_check(kt, &p, sp, 2, 1);
  }
  free(v);
}

static void test_special(void **state) {
  (void)state;
  hs_rng r = {5};
  const size_t n = 200;
  float *sc = malloc(n * sizeof *sc);
  HS_FOR_EACH_ISA(kt) {
    /* n == 0 leaves the state alone */
    hs_f32_online st = {1.5f, 2.5f};
    float acc[4] = {1, 2, 3, 4}, q[4] = {1, 1, 1, 1};
    kt->f32_attn_row(0, 4, 4, q, q, 4, q, 4, 1.0f, &st, acc);
    assert_true(st.max == 1.5f && st.sum == 2.5f && acc[3] == 4);
    for (size_t dv = 1; dv <= 17; dv += 8) {
      /* fully masked */
      for (size_t j = 0; j < n; j++) sc[j] = -INFINITY;
      scores_case(kt, sc, n, dv, &r);
      /* masked except one key late in the row */
      sc[150] = 3;
      scores_case(kt, sc, n, dv, &r);
      /* half masked */
      for (size_t j = 0; j < n; j++) sc[j] = j % 2 ? -INFINITY : (float)hs_rng_uniform(&r, -5, 5);
      scores_case(kt, sc, n, dv, &r);
      /* all equal */
      for (size_t j = 0; j < n; j++) sc[j] = 7.25f;
      scores_case(kt, sc, n, dv, &r);
      /* one dominant score */
      for (size_t j = 0; j < n; j++) sc[j] = (float)hs_rng_uniform(&r, -1, 1);
      sc[77] = 100;
      scores_case(kt, sc, n, dv, &r);
      /* huge and tiny, rising maximum (rescale on every block) */
      for (size_t j = 0; j < n; j++) sc[j] = (float)j * 1e3f - 1e5f;
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = j % 3 ? 1e-30f : -3e38f;
      scores_case(kt, sc, n, dv, &r);
      /* weights near the flush cutoff: none may be subnormal */
      for (size_t j = 0; j < n; j++) sc[j] = j == 0 ? 0 : -87.0f - (float)j * 0.004f;
      scores_case(kt, sc, n, dv, &r);
      /* +inf scores share the weight */
      for (size_t j = 0; j < n; j++) sc[j] = (float)hs_rng_uniform(&r, -1, 1);
      sc[10] = INFINITY;
      sc[120] = INFINITY;
      scores_case(kt, sc, n, dv, &r);
      /* NaN poisons, wherever it is */
      for (size_t j = 0; j < n; j++) sc[j] = (float)hs_rng_uniform(&r, -1, 1);
      sc[133] = NAN;
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = -INFINITY;
      sc[5] = NAN;
      scores_case(kt, sc, n, dv, &r);
    }
  }
  free(sc);
}

/* Weights just above the cutoff are normal: acc = e * 1 is never subnormal,
 * and weights below it are exactly 0. */
static void test_no_subnormal(void **state) {
  (void)state;
  HS_FOR_EACH_ISA(kt) {
    for (int i = 0; i < 4000; i++) {
      float sc[2] = {0, -87.2f - i * 0.0001f}, q = 1, v[2] = {0, 1};
      hs_f32_online st = {-INFINITY, 0};
      float acc[1] = {0};
      kt->f32_attn_row(2, 1, 1, &q, sc, 1, v, 1, 1.0f, &st, acc);
      assert_true(acc[0] == 0 || fabsf(acc[0]) >= 0x1p-126f);
      double want = exp((double)sc[1]);
      if (want >= 0x1p-125)
        assert_true(fabs(acc[0] - want) <= 3 * 0x1p-24 * want);
    }
  }
}

/* The weight of a key with score x next to a key with score 0 is exp(x)
 * exactly as the kernel's exp computed it: check the rr2-p5 exp's claim
 * (2 ULP with FMA, 2.5 ULP portable) on random x in [-87.33, 0]. */
static void test_exp_ulp(void **state) {
  (void)state;
  hs_rng r = {6};
  HS_FOR_EACH_ISA(kt) {
    double worst = 0;
    for (int i = 0; i < 20000; i++) {
      float x = (float)(i < 10000 ? hs_rng_uniform(&r, -87.33, 0) : hs_rng_uniform(&r, -1, 0));
      float sc[2] = {0, x}, q = 1, v[2] = {0, 1}, acc[1] = {0};
      hs_f32_online st = {-INFINITY, 0};
      kt->f32_attn_row(2, 1, 1, &q, sc, 1, v, 1, 1.0f, &st, acc);
      double u = hs_ulp_f32(acc[0], exp((double)x));
      if (u > worst) worst = u;
    }
    /* vector (FMA) <= 2 ULP; portable scalar and wasm128 (no FMA:
     * separate roundings) <= 2.5; by the kernel the table chose */
    const char *kn = kt->name[HS_OP_f32_attn_row];
    int fused = !strstr(kn, "__scalar") && !strstr(kn, "__wasm128");
    if (worst > (fused ? 2 : 2.5)) {
      fprintf(stderr, "%s: exp error %.2f ULP\n", hs_isa_name(kt->isa), worst);
      fail();
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),   cmocka_unit_test(test_dims),
      cmocka_unit_test(test_small_heads),
      cmocka_unit_test(test_powers),  cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_special), cmocka_unit_test(test_no_subnormal),
      cmocka_unit_test(test_exp_ulp),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
