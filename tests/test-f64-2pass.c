/* SPDX-License-Identifier: MIT */
/* f64_attn_row_2pass (every ISA): the two-pass attention row over key
 * segments in double, against a long double reference, and the property
 * exact skipping in f64 needs.
 *
 * Bound (the kernels' first comments, u = 2^-53), with S_j = sum_c
 * |q_c k_jc inv_tau| and * = exact relative to the kernel's own max:
 *   E = 2 (dk + 8) u max_j S_j + (n/4 + 74) u
 * (n/4: the AVX2 lane path's sums, n/8 AVX-512's, n/64 for the chunked
 * ones),
 *   |sum - sum*| <= E sum*,  |acc_c - acc*_c| <= E sum_j e_j |v_jc|
 * (plus n 2^-126 of the weights flushed below HS_F64_WEIGHT_CUT). The
 * long double reference carries 11 more bits than double: inside the
 * slack of the bound.
 * Sizes around the 4/8-key groups and the 64-key chunks, segment lists
 * cut as tiles of 64 and at arbitrary places, strided and contiguous keys
 * (dk 1, 2, 4 fast paths), dv 1 lane-wise values; -inf, +inf and NaN
 * scores, no segments.
 * Skipping: leaving out segments whose scores all lie more than
 * HS_F64_SKIP_CUT below the max gives the same bits, on every ISA; a
 * segment just above the weight cut does change them (so the check can
 * fail); weights are +0 below the weight cut and within 2 ULP of exp
 * above it. */
#include "common.h"

#define U 0x1p-53

typedef struct prob {
  size_t n, dk, dv, ldk, ldv;
  const double *q, *k, *v;
  double tau; /* inv_tau */
} prob;

static void check_ref(const hs_kernels *kt, const prob *p, size_t ns,
                      const size_t *seg) {
  hs_f64_online st = {0, 0};
  double acc[HS_ATTN_MAX_D];
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) acc[c] = 12345;
  kt->f64_attn_row_2pass(ns, seg, p->dk, p->dv, p->q, p->k, p->ldk, p->v,
                         p->ldv, p->tau, &st, acc);
  long double *s = malloc((p->n + 1) * sizeof *s), mref = -INFINITY, smax = 0;
  int has_nan = 0;
  for (size_t j = 0; j < p->n; j++) {
    long double d = 0, ab = 0;
    for (size_t c = 0; c < p->dk; c++) {
      d += (long double)p->q[c] * p->k[j * p->ldk + c];
      ab += fabsl((long double)p->q[c] * p->k[j * p->ldk + c]);
    }
    s[j] = d * p->tau;
    ab *= fabs(p->tau);
    has_nan |= isnan(s[j]);
    if (s[j] > mref) mref = s[j];
    if (isfinite(ab) && ab > smax) smax = ab;
  }
  if (has_nan) {
    assert_true(isnan(st.sum));
    for (size_t c = 0; c < p->dv; c++) assert_true(isnan(acc[c]));
  } else if (mref == -INFINITY) {
    assert_true(st.max == -INFINITY && st.sum == 0);
    for (size_t c = 0; c < p->dv; c++) assert_true(acc[c] == 0);
  } else {
    double E = 2 * (p->dk + 8) * U * (double)smax + (p->n / 4.0 + 74) * U;
    long double sum = 0, accr[HS_ATTN_MAX_D] = {0}, absr[HS_ATTN_MAX_D] = {0};
    for (size_t j = 0; j < p->n; j++) {
      long double e = st.max == INFINITY ? (s[j] == INFINITY ? 1 : 0)
                      : s[j] == -INFINITY ? 0 : expl(s[j] - st.max);
      if (e < 0x1p-1022L) e = 0;
      sum += e;
      for (size_t c = 0; c < p->dv; c++) {
        accr[c] += e * p->v[j * p->ldv + c];
        absr[c] += e * fabs(p->v[j * p->ldv + c]);
      }
    }
    /* weights below e^-87.5 < 2^-126 are +0 (HS_F64_WEIGHT_CUT) */
    double flush = p->n * 0x1p-126;
    if (!(E < 0.25)) { /* scores too large for a relative bound to say much */
      assert_true(st.sum >= 1 && isfinite(st.sum));
      free(s);
      return;
    }
    if (!(fabsl(st.sum - sum) <= E * sum + flush))
      fail_msg("%s n=%zu dk=%zu dv=%zu: sum %.17g ref %.17Lg", hs_isa_name(kt->isa),
               p->n, p->dk, p->dv, st.sum, sum);
    for (size_t c = 0; c < p->dv; c++)
      if (!(fabsl(acc[c] - accr[c]) <= E * absr[c] + flush * 8))
        fail_msg("%s n=%zu dk=%zu dv=%zu: acc[%zu] %.17g ref %.17Lg",
                 hs_isa_name(kt->isa), p->n, p->dk, p->dv, c, acc[c], accr[c]);
  }
  for (size_t c = p->dv; c < HS_ATTN_MAX_D; c++) assert_true(acc[c] == 12345);
  free(s);
}

static double *fill(hs_rng *r, size_t cnt, double lo, double hi) {
  double *b = hs_test_alloc(cnt * sizeof(double));
  for (size_t i = 0; i < cnt; i++) b[i] = hs_rng_uniform(r, lo, hi);
  return b;
}

static void random_case(const hs_kernels *kt, hs_rng *r, size_t n, size_t dk,
                        size_t dv, size_t pad, double tau, double range) {
  size_t ldk = dk + pad, ldv = dv + pad;
  double *q = fill(r, dk + 1, -range, range), *k = fill(r, n * ldk + 1, -range, range);
  double *v = fill(r, n * ldv + 1, -4, 4);
  size_t *seg = malloc((n + 2) * 2 * sizeof *seg);
  prob p = {n, dk, dv, ldk, ldv, q, k, v, tau};
  check_ref(kt, &p, tile_segs(n, 0, seg), seg);
  check_ref(kt, &p, tile_segs(n, 37, seg), seg);
  seg[0] = 0, seg[1] = n; /* one segment */
  check_ref(kt, &p, 1, seg);
  /* three segments and an empty one */
  size_t a = n / 3, b = n / 3 + (n - n / 3) / 2;
  size_t s4[8] = {0, a, a, 0, a, b - a, b, n - b};
  check_ref(kt, &p, 4, s4);
  free(q), free(k), free(v), free(seg);
}

static void test_sizes(void **state) {
  (void)state;
  hs_rng r = {11};
  static const size_t ns[] = {0, 1, 3, 4, 5, 7, 8, 9, 63, 64, 65, 127, 128, 129, 300, 1000};
  static const double taus[] = {1, 1e-3, 1e3};
  HS_FOR_EACH_ISA(kt) {
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
      for (size_t dk = 1; dk <= 9; dk++) {
        random_case(kt, &r, ns[i], dk, 1 + (dk * 3 + i) % 9, i % 2 ? 3 : 0,
                    taus[i % 3], 2);
        random_case(kt, &r, ns[i], dk, 1, 0, 1, 2); /* lane-wise values */
      }
    for (size_t dk = 0; dk <= 64; dk += 7)
      random_case(kt, &r, 100 + dk, dk, 64 - dk / 2, dk % 2, 1, 1.5);
    static const double ranges[] = {1e-100, 1, 40, 1e5, 1e100};
    for (size_t i = 0; i < 5; i++)
      for (size_t t = 0; t < 3; t++) random_case(kt, &r, 150, 4, 5, 0, taus[t], ranges[i]);
    random_case(kt, &r, 5000, 2, 1, 0, 1, 3);
    random_case(kt, &r, 5000, 8, 8, 0, 1, 3);
  }
}

/* dk = 1, q = 1, inv_tau = 1: the keys are the scores. */
static void scores_case(const hs_kernels *kt, const double *sc, size_t n,
                        size_t dv, hs_rng *r) {
  double q = 1;
  double *v = fill(r, n * dv + 1, -2, 2);
  size_t *seg = malloc((n + 2) * 2 * sizeof *seg);
  prob p = {n, 1, dv, 1, dv, &q, sc, v, 1};
  check_ref(kt, &p, tile_segs(n, 0, seg), seg);
  check_ref(kt, &p, tile_segs(n, 5, seg), seg);
  free(v), free(seg);
}

static void test_special(void **state) {
  (void)state;
  hs_rng r = {12};
  const size_t n = 200;
  double *sc = malloc(n * sizeof *sc);
  HS_FOR_EACH_ISA(kt) {
    /* no segments: max -inf, sum 0, acc 0 */
    hs_f64_online st = {1, 1};
    double acc[3] = {5, 5, 5}, q = 1;
    kt->f64_attn_row_2pass(0, NULL, 1, 3, &q, &q, 1, acc, 3, 1, &st, acc);
    assert_true(st.max == -INFINITY && st.sum == 0 && acc[0] == 0 && acc[2] == 0);
    for (size_t dv = 1; dv <= 17; dv += 8) {
      for (size_t j = 0; j < n; j++) sc[j] = -INFINITY; /* fully masked */
      scores_case(kt, sc, n, dv, &r);
      sc[150] = 3; /* one key left */
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = j % 2 ? -INFINITY : hs_rng_uniform(&r, -5, 5);
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = (double)j * 1e3 - 1e5; /* rising */
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = j == 0 ? 0 : -707.0 - (double)j * 0.01;
      scores_case(kt, sc, n, dv, &r); /* across the exp cutoff */
      for (size_t j = 0; j < n; j++) sc[j] = hs_rng_uniform(&r, -1, 1);
      sc[20] = sc[130] = INFINITY; /* +inf shares the weight */
      scores_case(kt, sc, n, dv, &r);
      sc[20] = sc[130] = 0;
      sc[99] = NAN; /* NaN: sum and acc NaN */
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = -INFINITY;
      sc[70] = NAN; /* NaN in an otherwise masked row */
      scores_case(kt, sc, n, dv, &r);
    }
  }
  free(sc);
}

/* Weights through the kernel: two keys scoring 0 and x, values 0 and 1,
 * so acc = exp(x): +0 below the weight cut (HS_F64_WEIGHT_CUT), and
 * within 2 ULP of exp above it (the rr2-p11 bound). */
static void test_no_subnormal(void **state) {
  (void)state;
  hs_rng r = {14};
  double q = 1, v2[2] = {0, 1};
  size_t seg[2] = {0, 2};
  HS_FOR_EACH_ISA(kt) {
    double worst = 0;
    for (int i = 0; i < 40000; i++) {
      double x = i % 2 ? hs_rng_uniform(&r, -88.5, -87) : hs_rng_uniform(&r, -87.5, 0);
      double s2[2] = {0, x}, a1[1];
      hs_f64_online st;
      kt->f64_attn_row_2pass(1, seg, 1, 1, &q, s2, 1, v2, 1, 1, &st, a1);
      assert_true(a1[0] == 0 || a1[0] >= 0x1p-127);
      if (x < HS_F64_WEIGHT_CUT) assert_true(a1[0] == 0 && !signbit(a1[0]));
      if (x >= HS_F64_WEIGHT_CUT) {
        long double w = expl((long double)x);
        double ulp = nextafter((double)w, INFINITY) - (double)w;
        double u = (double)(fabsl(a1[0] - w) / ulp);
        if (u > worst) worst = u;
      }
    }
    if (worst > 2) fail_msg("%s f64 2pass exp %.2f ULP", hs_isa_name(kt->isa), worst);
  }
}

/* Scores 0 (the max, key 0) and a far segment at max + d each; values 0
 * for the near keys, so acc is the far keys' contribution alone. Returns
 * whether dropping the far segments kept every output bit. */
static int drop_same(const hs_kernels *kt, size_t dk, size_t dv, double d,
                     hs_rng *r) {
  enum { N = 300 };
  double *q = fill(r, dk, 0.5, 1), *k = hs_test_alloc(N * dk * sizeof(double));
  double *v = fill(r, N * dv + 1, -3, 3);
  for (size_t j = 0; j < N; j++) {
    /* the score of key j: 0 for j < 64 (dk = 1 exactly; otherwise spread
     * over the coordinates), d minus up to 5 for the rest */
    double s = j < 64 ? 0 : d - (j == 64 ? 0 : hs_rng_uniform(r, 0, 5));
    k[j * dk] = s / q[0];
    for (size_t c = 1; c < dk; c++) k[j * dk + c] = 0;
    if (j < 64)
      for (size_t c = 0; c < dv; c++) v[j * dv + c] = 0;
  }
  size_t seg[2 * 8], kept[2] = {0, 64};
  size_t ns = tile_segs(N, 0, seg);
  hs_f64_online a, b;
  double acca[HS_ATTN_MAX_D], accb[HS_ATTN_MAX_D];
  kt->f64_attn_row_2pass(ns, seg, dk, dv, q, k, dk, v, dv, 1, &a, acca);
  kt->f64_attn_row_2pass(1, kept, dk, dv, q, k, dk, v, dv, 1, &b, accb);
  int same = !memcmp(&a, &b, sizeof a) && !memcmp(acca, accb, dv * sizeof(double));
  free(q), free(k), free(v);
  return same;
}

/* The skipping identity at kernel level. (1) Scores rising by 3 per key,
 * so every tile but the last few lies more than HS_F64_SKIP_CUT below the
 * max; dropping those tiles (cut as tiles and at arbitrary places) gives
 * the same bits. (2) A far segment whose best key is just past the cut
 * (max - 88 - 2^-30) drops with the same bits; one just above the
 * weight cut (max - 87.4, weights ~2^-126) does not, so the comparison
 * can fail. */
static void test_drop_identical(void **state) {
  (void)state;
  hs_rng r = {13};
  HS_FOR_EACH_ISA(kt) {
    for (size_t dk = 1; dk <= 9; dk += 1)
      for (size_t dv = 1; dv <= 33; dv += 8)
        for (size_t n = 330; n <= 900; n += 190)
          for (size_t first = 0; first <= 3; first += 3) {
            double *q = fill(&r, dk, 0.5, 1), *k = hs_test_alloc(n * dk * sizeof(double));
            double *v = fill(&r, n * dv + 1, -3, 3);
            for (size_t j = 0; j < n; j++)
              for (size_t c = 0; c < dk; c++)
                k[j * dk + c] = 3.0 * (double)j / (double)dk / q[c] + hs_rng_uniform(&r, -0.3, 0.3);
            size_t *seg = malloc((n + 2) * 2 * sizeof *seg), *kept = malloc((n + 2) * 2 * sizeof *kept);
            size_t ns = tile_segs(n, first, seg), nk = 0;
            /* the max is at the last key or near it (scores within 0.3
             * dk of 3j): a segment ending 250 keys before the end lies
             * more than HS_F64_SKIP_CUT below */
            for (size_t t = 0; t < ns; t++)
              if (seg[2 * t] + seg[2 * t + 1] + 250 > n)
                kept[2 * nk] = seg[2 * t], kept[2 * nk + 1] = seg[2 * t + 1], nk++;
            assert_true(nk < ns);
            hs_f64_online a, b;
            double acca[HS_ATTN_MAX_D], accb[HS_ATTN_MAX_D];
            kt->f64_attn_row_2pass(ns, seg, dk, dv, q, k, dk, v, dv, 1, &a, acca);
            kt->f64_attn_row_2pass(nk, kept, dk, dv, q, k, dk, v, dv, 1, &b, accb);
            assert_memory_equal(&a, &b, sizeof a);
            assert_memory_equal(acca, accb, dv * sizeof(double));
            free(q), free(k), free(v), free(seg), free(kept);
          }
    for (size_t dk = 1; dk <= 4; dk++)
      for (size_t dv = 1; dv <= 9; dv += 8) {
        assert_true(drop_same(kt, dk, dv, -HS_F64_SKIP_CUT - 0x1p-30, &r));
        assert_true(!drop_same(kt, dk, dv, HS_F64_WEIGHT_CUT + 0.1, &r));
      }
  }
}

/* Every ISA within the bound of the scalar kernel on the same problem
 * (both are within E of the exact weights; 2E apart at most). */
static void test_isas_agree(void **state) {
  (void)state;
  hs_rng r = {15};
  const size_t n = 700, dk = 4, dv = 3;
  double *q = fill(&r, dk, -1, 1), *k = fill(&r, n * dk, -2, 2), *v = fill(&r, n * dv, -1, 1);
  size_t seg[2 * 12];
  size_t ns = tile_segs(n, 9, seg);
  hs_f64_online s0, s1;
  double a0[3], a1[3];
  hs_kernels_for(HS_ISA_SCALAR)->f64_attn_row_2pass(ns, seg, dk, dv, q, k, dk, v, dv, 2, &s0, a0);
  double E = 2 * (dk + 8) * U * 8 * 2 + (n / 4.0 + 74) * U;
  HS_FOR_EACH_ISA(kt) {
    kt->f64_attn_row_2pass(ns, seg, dk, dv, q, k, dk, v, dv, 2, &s1, a1);
    assert_true(fabs(s1.sum - s0.sum) <= 2 * E * s0.sum);
    for (size_t c = 0; c < dv; c++) assert_true(fabs(a1[c] - a0[c]) <= 2 * E * s0.sum);
  }
  free(q), free(k), free(v);
}

/* AVX-512's lane path (contiguous dk in {1, 2, 4, 8}, one value column):
 * the same bits whatever the cut of the keys into segments (every
 * segment cut at random points; touching segments joined), with signed
 * zeros among the keys and values. */
static void test_cut_bits(void **state) {
  (void)state;
  hs_rng r = {16};
  const size_t n = 400;
  const hs_kernels *kt = hs_kernels_for(HS_ISA_AVX512);
  if (!kt) skip();
  for (int rep = 0; rep < 40; rep++)
    for (size_t dk = 1; dk <= 8; dk *= 2) {
      double *q = fill(&r, dk, -2, 2), *k = fill(&r, n * dk, -2, 2), *v = fill(&r, n, -3, 3);
      if (rep % 2)
        for (size_t j = 0; j < n * dk; j += 3) k[j] = j % 2 ? -0.0 : 0.0, v[j / dk] = -0.0;
      size_t seg[2 * 16], kept = some_tiles(&r, n, (size_t)rep * 5, seg);
      size_t other[2 * 64];
      for (int join = 0; join < 2; join++) {
        size_t no = recut(&r, kept, seg, join, other);
        hs_f64_online a, b;
        double x, y;
        kt->f64_attn_row_2pass(kept, seg, dk, 1, q, k, dk, v, 1, 0.7, &a, &x);
        kt->f64_attn_row_2pass(no, other, dk, 1, q, k, dk, v, 1, 0.7, &b, &y);
        if (memcmp(&a, &b, sizeof a) || memcmp(&x, &y, sizeof x))
          fail_msg("dk=%zu %s: sum %a/%a acc %a/%a", dk, join ? "joined" : "cut", a.sum,
                   b.sum, x, y);
      }
      free(q), free(k), free(v);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_special),
      cmocka_unit_test(test_no_subnormal),
      cmocka_unit_test(test_drop_identical),
      cmocka_unit_test(test_isas_agree),
      cmocka_unit_test(test_cut_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
