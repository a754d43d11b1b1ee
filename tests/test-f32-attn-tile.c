/* SPDX-License-Identifier: MIT */
/* f32 attention-tile kernels (every ISA this CPU runs): each query of a
 * tile must give bitwise what the same ISA's row kernel f32_attn_row
 * gives for that query alone (st and acc), and agree with a long double
 * softmax reference. Ragged key ranges (the past masks: rows of one tile
 * end at different keys; the future masks, end = 1: they start at
 * different keys and end at the same; around and across the 512-key
 * blocks), tiles of
 * 1..9 queries (tails of fewer than 4), odd sizes, dk 0..9 contiguous and
 * strided, dv 1/3/8, a running state carried in, -inf (masked) scores,
 * fully masked rows, +inf and NaN scores, empty ranges. And the forward
 * pass: tiles (hs_run_opts.attn_tile = 1) give the same bits as one row
 * per call (-1) and as the default, after every layer, in pe, temp and rel
 * (the relative-bias tiles), at 1 and 3 threads, on every ISA. */
#include "common.h"
#include "model/model.h" /* m->nlayers, m->d */

typedef struct {
  size_t nq, dk, dv, ldk, ldv, ldq, ldacc;
  const size_t *n;
  const float *q, *k, *v;
  float tau;
  hs_f32_online st0; /* the state every query starts from */
  const float *acc0; /* its acc (ldacc apart) */
  int end;           /* the queries share their last key, not their first */
} tprob;

/* Runs the tile and the row kernel per query; asserts identical bits,
 * then checks finite rows against the reference. */
static void check(const hs_kernels *kt, const tprob *p) {
  size_t nq = p->nq;
  hs_f32_online *st = malloc(nq * sizeof *st), *sr = malloc(nq * sizeof *sr);
  float *acc = calloc(nq * p->ldacc + 1, sizeof(float));
  float *accr = calloc(nq * p->ldacc + 1, sizeof(float));
  for (size_t r = 0; r < nq; r++) {
    st[r] = sr[r] = p->st0;
    for (size_t c = 0; c < p->dv; c++)
      acc[r * p->ldacc + c] = accr[r * p->ldacc + c] = p->acc0[c];
  }
  kt->f32_attn_tile(nq, p->n, p->dk, p->dv, p->q, p->ldq, p->k, p->ldk, p->v,
                    p->ldv, p->tau, st, acc, p->ldacc, p->end);
  size_t nend = 0;
  for (size_t r = 0; r < nq; r++) if (p->n[r] > nend) nend = p->n[r];
  for (size_t r = 0; r < nq; r++) {
    /* end: keys nend - n[r] .. nend - 1, as two row calls (the head of
     * hs_attn_end_head keys, then whole blocks ending at key nend - 1) */
    size_t j0 = p->end ? nend - p->n[r] : 0;
    size_t h = p->end ? hs_attn_end_head(p->n[r]) : 0;
    const float *kr = p->k + j0 * p->ldk, *vr = p->v + j0 * p->ldv;
    if (h)
      kt->f32_attn_row(h, p->dk, p->dv, p->q + r * p->ldq, kr, p->ldk, vr,
                       p->ldv, p->tau, &sr[r], accr + r * p->ldacc);
    kt->f32_attn_row(p->n[r] - h, p->dk, p->dv, p->q + r * p->ldq,
                     kr + h * p->ldk, p->ldk, vr + h * p->ldv, p->ldv, p->tau,
                     &sr[r], accr + r * p->ldacc);
    if (memcmp(&st[r], &sr[r], sizeof st[r]) != 0 ||
        memcmp(acc + r * p->ldacc, accr + r * p->ldacc, p->dv * sizeof(float))) {
      fprintf(stderr, "%s end=%d nq=%zu r=%zu n=%zu dk=%zu dv=%zu: tile max %a "
              "sum %a acc0 %a, row max %a sum %a acc0 %a\n", hs_isa_name(kt->isa),
              p->end, nq, r, p->n[r], p->dk, p->dv, st[r].max, st[r].sum, acc[r * p->ldacc],
              sr[r].max, sr[r].sum, accr[r * p->ldacc]);
      fail();
    }
    /* reference: fresh state, finite scores, some key visible */
    if (p->st0.max != -INFINITY || p->n[r] == 0 || !isfinite(st[r].sum) ||
        !isfinite(st[r].max))
      continue;
    const float *q = p->q + r * p->ldq;
    long double m = -INFINITY, sum = 0, out[HS_ATTN_MAX_D] = {0}, sabs = 0;
    long double *s = malloc(p->n[r] * sizeof *s);
    for (size_t j = 0; j < p->n[r]; j++) {
      long double d = 0;
      for (size_t c = 0; c < p->dk; c++) d += (long double)q[c] * kr[j * p->ldk + c];
      s[j] = d * p->tau;
      if (s[j] > m) m = s[j];
      if (fabsl(s[j]) > sabs && isfinite(s[j])) sabs = fabsl(s[j]);
    }
    for (size_t j = 0; j < p->n[r]; j++) {
      long double e = s[j] == -INFINITY ? 0 : expl(s[j] - m);
      sum += e;
      for (size_t c = 0; c < p->dv; c++) out[c] += e * vr[j * p->ldv + c];
    }
    /* scores carry ~(dk + 8) u |s| of error, exp 2 ULP, sums ~(n/64 + 70) u */
    double tol = (p->dk + 8) * 0x1p-24 * 4 * (double)sabs +
                 (p->n[r] / 64.0 + 80) * 0x1p-24;
    for (size_t c = 0; c < p->dv; c++) {
      double got = acc[r * p->ldacc + c] / st[r].sum;
      double want = (double)(out[c] / sum);
      if (!(fabs(got - want) <= tol * 8)) { /* |v| <= 4, twice */
        fprintf(stderr, "%s n=%zu dk=%zu dv=%zu c=%zu: %.9g ref %.9g tol %g\n",
                hs_isa_name(kt->isa), p->n[r], p->dk, p->dv, c, got, want, tol);
        fail();
      }
    }
    free(s);
  }
  free(st);
  free(sr);
  free(acc);
  free(accr);
}

static float *fill(hs_rng *r, size_t cnt, double lo, double hi) {
  float *b = (float *)hs_test_alloc(cnt * sizeof(float)) + 1; /* unaligned */
  for (size_t i = 0; i < cnt; i++) b[i] = (float)hs_rng_uniform(r, lo, hi);
  return b;
}

/* One tile over fresh random data: nq queries with ranges n[0..nq). */
static void random_tile(const hs_kernels *kt, hs_rng *rg, size_t nq,
                        const size_t *n, size_t dk, size_t dv, int strided,
                        int carry, int end) {
  size_t nmax = 0;
  for (size_t r = 0; r < nq; r++) if (n[r] > nmax) nmax = n[r];
  size_t ldk = dk + (strided ? 3 : 0), ldv = dv + (strided ? 2 : 0);
  size_t ldq = dk + 1, ldacc = dv + 5;
  float *q = fill(rg, nq * ldq + 1, -1.5, 1.5);
  float *k = fill(rg, nmax * ldk + 1, -2, 2);
  float *v = fill(rg, nmax * ldv + 1, -4, 4);
  float acc0[HS_ATTN_MAX_D];
  for (size_t c = 0; c < dv; c++) acc0[c] = (float)hs_rng_uniform(rg, -2, 2);
  tprob p = {nq, dk, dv, ldk, ldv, ldq, ldacc, n, q, k, v, 1.0f,
             carry ? (hs_f32_online){1.25f, 3.5f} : (hs_f32_online){-INFINITY, 0},
             acc0, end};
  if (!carry) for (size_t c = 0; c < dv; c++) acc0[c] = 0;
  check(kt, &p);
  /* a larger scale: scores of tens, the max moves between blocks */
  p.tau = 7.5f;
  check(kt, &p);
  free(q - 1);
  free(k - 1);
  free(v - 1);
}

/* The forward pass's past-mask tiles: rows i..i+nq-1 see keys 0..i+r. */
static void test_past_ranges(void **state) {
  (void)state;
  hs_rng rg = {11};
  const size_t starts[] = {0, 1, 5, 60, 507, 508, 511, 512, 513, 1019, 1021,
                           1535, 2047, 2050};
  const size_t dks[] = {1, 2, 4, 8};
  HS_FOR_EACH_ISA(kt) {
    for (size_t s = 0; s < sizeof starts / sizeof *starts; s++)
      for (size_t d = 0; d < 4; d++) {
        size_t n[4];
        for (size_t r = 0; r < 4; r++) n[r] = starts[s] + r + 1;
        random_tile(kt, &rg, 4, n, dks[d], 1, 0, 0, 0);
      }
  }
}

/* The forward pass's future-mask tiles: rows i..i+nq-1 see keys i+r..N,
 * all ending at the same key: ranges of N - i - r keys. */
static void test_future_ranges(void **state) {
  (void)state;
  hs_rng rg = {16};
  const size_t lens[] = {4, 5, 9, 60, 511, 512, 513, 514, 515, 516, 1024,
                         1025, 1027, 1536, 1538, 2049, 2052};
  const size_t dks[] = {1, 2, 4, 8};
  HS_FOR_EACH_ISA(kt) {
    for (size_t s = 0; s < sizeof lens / sizeof *lens; s++)
      for (size_t d = 0; d < 4; d++) {
        size_t n[8];
        for (size_t r = 0; r < 8; r++) n[r] = lens[s] > r ? lens[s] - r : 0;
        random_tile(kt, &rg, 4, n, dks[d], 1, 0, 0, 1);
        random_tile(kt, &rg, 8, n, dks[d], 3, 0, 1, 1);
      }
  }
}

/* Ragged ranges in any order, tails of 1..3 queries, every dk and dv
 * shape, strided keys and values, a state carried in. */
static void test_ragged(void **state) {
  (void)state;
  hs_rng rg = {12};
  const size_t dks[] = {0, 1, 2, 3, 4, 5, 8, 9};
  const size_t dvs[] = {1, 3, 8};
  HS_FOR_EACH_ISA(kt) {
    for (size_t nq = 1; nq <= 9; nq++)
      for (size_t d = 0; d < 8; d++)
        for (size_t e = 0; e < 3; e++) {
          size_t n[9];
          for (size_t r = 0; r < nq; r++)
            n[r] = (size_t)(hs_rng_next(&rg) % 1700);
          if (nq > 2) n[1] = 0;          /* an empty range */
          if (nq > 3) n[2] = 1024;       /* exactly two blocks */
          int strided = (int)((nq + d + e) % 3 == 0);
          random_tile(kt, &rg, nq, n, dks[d], dvs[e], strided, (int)(nq & 1),
                      (int)((d + e) & 1));
        }
  }
}

/* Odd small sizes: every range below two blocks' worth of groups. */
static void test_small(void **state) {
  (void)state;
  hs_rng rg = {13};
  HS_FOR_EACH_ISA(kt) {
    for (size_t a = 0; a <= 40; a++) {
      size_t n[4] = {a, a + 3, 2 * a + 1, a ? a - 1 : 0};
      for (int end = 0; end < 2; end++) {
        random_tile(kt, &rg, 4, n, 2, 1, 0, 0, end);
        random_tile(kt, &rg, 4, n, 4, 3, 1, 1, end);
      }
    }
  }
}

/* -inf (masked) scores, fully masked rows, +inf and NaN scores, inside
 * the shared blocks and in the ragged tails. */
static void test_special(void **state) {
  (void)state;
  hs_rng rg = {14};
  HS_FOR_EACH_ISA(kt) {
    for (int kind = 0; kind < 5; kind++)
      for (size_t dk = 1; dk <= 4; dk *= 2) {
        size_t nk = 1600, n[5] = {1100, 1537, 1200, 1599, 700};
        float *q = fill(&rg, 5 * dk + 1, 0.25, 1.0); /* positive: k = -inf -> -inf */
        float *k = fill(&rg, nk * dk + 1, -2, 2);
        float *v = fill(&rg, nk + 1, -4, 4);
        if (kind == 0) /* masked keys scattered, both in and past block 0 */
          for (size_t j = 0; j < nk; j += 3) k[j * dk] = -INFINITY;
        if (kind == 1) /* every key masked: fully masked rows */
          for (size_t j = 0; j < nk; j++) k[j * dk] = -INFINITY;
        if (kind == 2) /* the first 1030 keys masked: max still -inf then */
          for (size_t j = 0; j < 1030; j++) k[j * dk] = -INFINITY;
        if (kind == 3) k[600 * dk] = INFINITY;   /* +inf score, block 1 */
        if (kind == 4) k[1150 * dk] = NAN;       /* NaN: rows past it */
        float acc0[1] = {0};
        tprob p = {5, dk, 1, dk, 1, dk, 1, n, q, k, v, 1.0f,
                   (hs_f32_online){-INFINITY, 0}, acc0, 0};
        check(kt, &p);
        p.end = 1; /* the same keys, ranges ending at key 1598 */
        check(kt, &p);
        free(q - 1);
        free(k - 1);
        free(v - 1);
      }
  }
}

/* Past-mask heads (S, Y, O, H, past counts), future ones (U, F, X, G,
 * future counts) and both mixed. */
static const char *const formulas[] = {
    "a S b",
    "a U b",
    "F (a & X b)",
    "G (a -> X (b U (c & Y (a S b))))",
    "H (a -> Y (b S c))",
    "(a S (b & X (c U Y a))) | G (b -> Y a)",
    "#<(a) > #<(b)",
    "#<(a) - #>(b) >= 0",
};

static void test_forward_bits(void **state) {
  (void)state;
  static const size_t lengths[] = {0, 1, 3, 4, 5, 33, 517, 1500};
  static const hs_mode modes[] = {HS_MODE_PE, HS_MODE_TEMP, HS_MODE_REL};
  static uint8_t s[1500];
  hs_rng rg = {15};
  hs_error he;
  for (size_t fi = 0; fi < sizeof formulas / sizeof *formulas; fi++)
    for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
      hs_error e;
      hs_formula *f = hs_formula_parse(formulas[fi], &e);
      assert_non_null(f);
      hs_compile_opts co = {.mode = modes[mi], .scale = 4};
      hs_model *m = hs_compile(f, &co, &he);
      assert_non_null(m);
      HS_FOR_EACH_ISA(kt) {
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
          size_t n = lengths[li];
          for (size_t i = 0; i < n; i++) s[i] = (uint8_t)"abc"[hs_rng_next(&rg) % 3];
          hs_run_result res[3];
          const int tiles[3] = {-1, 1, 0}, threads[3] = {1, 1, 3};
          for (int v = 0; v < 3; v++) {
            hs_run_opts o = {.precision = HS_PREC_F32, .kernels = kt,
                             .want_attn_error = 1, .keep_layers = 1,
                             .threads = threads[v], .attn_tile = tiles[v]};
            assert_int_equal(hs_forward(m, s, n, &o, &res[v], &he), 0);
          }
          size_t nl = (size_t)m->nlayers, lb = nl * (n + 1) * (size_t)m->d;
          for (int v = 1; v < 3; v++) {
            if (n) assert_memory_equal(res[0].values, res[v].values, n * sizeof(double));
            assert_memory_equal(res[0].layers, res[v].layers, lb * sizeof(double));
            assert_memory_equal(res[0].attn_error, res[v].attn_error, nl * sizeof(double));
          }
          for (int v = 0; v < 3; v++) hs_run_result_free(&res[v]);
        }
      }
      hs_model_free(m);
      hs_formula_free(f);
    }
}

int main(void) {
  struct CMUnitTest tests[] = {
      cmocka_unit_test(test_past_ranges), cmocka_unit_test(test_future_ranges),
      cmocka_unit_test(test_ragged),
      cmocka_unit_test(test_small), cmocka_unit_test(test_special),
      cmocka_unit_test(test_forward_bits)};
  hs_test_only(tests, sizeof tests / sizeof *tests);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
