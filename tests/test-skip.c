/* SPDX-License-Identifier: MIT */
/* Exact tile skipping (hs_run_opts.skip, src/run/forward-impl.h) and the
 * two-pass attention-row kernels (f32_attn_row_2pass, every ISA).
 *
 * Forward pass: skip ON gives the same bits as skip OFF (memcmp of values
 * and decisions) on every formula of tests/formulas.txt the compiler takes,
 * every mode, mu = 4 and 32, f32, random strings of lengths 1, 7, 100,
 * 1000, 3000, one and two threads; the decisions with skip ON agree with
 * the logic in pe and temp; a S b in pe at mu = 32, n = 4096 skips more
 * than half of its key tiles; skip AUTO gives the bits of ON or of the
 * online kernel, whichever it chooses; at the largest scales the compiler
 * accepts, skip ON still leaves out most tiles; the attention error of
 * rows that skipped, taken over their kept tiles, is the one over every
 * key.
 *
 * Kernels: against a long double reference with the bound of their first
 * comments, sizes around the 64-key chunk, -inf, +inf and NaN scores,
 * fully masked rows; leaving out segments whose scores are all more than
 * 88 below the max changes no bit. */
#include "formulas.h"

#include "attn-ref.h"

/* ------------------------------------------------------------ kernels */

static void check_ref(const hs_kernels *kt, const prob *p, size_t ns,
                      const size_t *seg) {
  hs_f32_online st = {0, 0};
  float acc[HS_ATTN_MAX_D];
  for (size_t c = 0; c < HS_ATTN_MAX_D; c++) acc[c] = 12345;
  kt->f32_attn_row_2pass(ns, seg, p->dk, p->dv, p->q, p->k, p->ldk, p->v,
                         p->ldv, p->tau, &st, acc);
  long double mref, smax;
  long double *s = malloc((p->n + 1) * sizeof *s);
  int has_nan = ref_scores(p, s, &mref, &smax);
  if (has_nan) {
    assert_true(isnan(st.sum));
    for (size_t c = 0; c < p->dv; c++) assert_true(isnan(acc[c]));
  } else if (mref == -INFINITY) {
    assert_true(st.max == -INFINITY && st.sum == 0);
    for (size_t c = 0; c < p->dv; c++) assert_true(acc[c] == 0);
  } else {
    double E = 2 * (p->dk + 8) * U * (double)smax + (p->n / 64.0 + 74) * U;
    long double sum, accr[HS_ATTN_MAX_D], absr[HS_ATTN_MAX_D];
    ref_weights(p, s, st.max, &sum, accr, absr);
    double flush = p->n * 0x1p-126;
    if (!(fabsl(st.sum - sum) <= E * sum + flush))
      fail_msg("%s n=%zu dk=%zu dv=%zu: sum %.9g ref %.9Lg", hs_isa_name(kt->isa),
               p->n, p->dk, p->dv, st.sum, sum);
    for (size_t c = 0; c < p->dv; c++)
      if (!(fabsl(acc[c] - accr[c]) <= E * absr[c] + flush * 1e30))
        fail_msg("%s n=%zu dk=%zu dv=%zu: acc[%zu] %.9g ref %.9Lg",
                 hs_isa_name(kt->isa), p->n, p->dk, p->dv, c, acc[c], accr[c]);
  }
  free(s);
}

static float *fill(hs_rng *r, size_t cnt, double lo, double hi) {
  float *b = hs_test_alloc(cnt * sizeof(float));
  for (size_t i = 0; i < cnt; i++) b[i] = (float)hs_rng_uniform(r, lo, hi);
  return b;
}

static void random_case(const hs_kernels *kt, hs_rng *r, size_t n, size_t dk,
                        size_t dv, size_t pad, float tau) {
  size_t ldk = dk + pad, ldv = dv + pad;
  float *q = fill(r, dk + 1, -2, 2), *k = fill(r, n * ldk + 1, -2, 2);
  float *v = fill(r, n * ldv + 1, -4, 4);
  size_t *seg = malloc((n + 2) * 2 * sizeof *seg);
  prob p = {n, dk, dv, ldk, ldv, q, k, v, tau};
  check_ref(kt, &p, tile_segs(n, 0, seg), seg);
  check_ref(kt, &p, tile_segs(n, 37, seg), seg);
  seg[0] = 0, seg[1] = n; /* one segment */
  check_ref(kt, &p, 1, seg);
  free(q), free(k), free(v), free(seg);
}

static void test_kernel_sizes(void **state) {
  (void)state;
  hs_rng r = {11};
  static const size_t ns[] = {0, 1, 7, 8, 15, 16, 17, 63, 64, 65, 127, 128, 129, 300};
  HS_FOR_EACH_ISA(kt) {
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
      for (size_t dk = 1; dk <= 9; dk++)
        random_case(kt, &r, ns[i], dk, 1 + (dk * 3 + i) % 9, i % 2 ? 3 : 0,
                    i % 3 ? 1.0f : 0.125f);
    for (size_t dk = 0; dk <= 64; dk += 7)
      random_case(kt, &r, 100 + dk, dk, 64 - dk / 2, dk % 2, 1.0f);
  }
}

/* dk = 1, q = 1, inv_tau = 1: the keys are the scores. */
static void scores_case(const hs_kernels *kt, const float *sc, size_t n,
                        size_t dv, hs_rng *r) {
  float q = 1;
  float *v = fill(r, n * dv + 1, -2, 2);
  size_t *seg = malloc((n + 2) * 2 * sizeof *seg);
  prob p = {n, 1, dv, 1, dv, &q, sc, v, 1.0f};
  check_ref(kt, &p, tile_segs(n, 0, seg), seg);
  check_ref(kt, &p, tile_segs(n, 5, seg), seg);
  free(v), free(seg);
}

static void test_kernel_special(void **state) {
  (void)state;
  hs_rng r = {12};
  const size_t n = 200;
  float *sc = malloc(n * sizeof *sc);
  HS_FOR_EACH_ISA(kt) {
    /* no segments: max -inf, sum 0, acc 0 */
    hs_f32_online st = {1, 1};
    float acc[3] = {5, 5, 5}, q = 1;
    kt->f32_attn_row_2pass(0, NULL, 1, 3, &q, &q, 1, acc, 3, 1.0f, &st, acc);
    assert_true(st.max == -INFINITY && st.sum == 0 && acc[0] == 0 && acc[2] == 0);
    for (size_t dv = 1; dv <= 17; dv += 8) {
      for (size_t j = 0; j < n; j++) sc[j] = -INFINITY; /* fully masked */
      scores_case(kt, sc, n, dv, &r);
      sc[150] = 3; /* one key left */
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = j % 2 ? -INFINITY : (float)hs_rng_uniform(&r, -5, 5);
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = (float)j * 1e3f - 1e5f; /* rising */
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = j == 0 ? 0 : -87.0f - (float)j * 0.004f;
      scores_case(kt, sc, n, dv, &r);
      for (size_t j = 0; j < n; j++) sc[j] = (float)hs_rng_uniform(&r, -1, 1);
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

/* The skipping argument at kernel level: scores rising by 1 per key, so
 * every tile but the last two is more than 88 below the max; dropping
 * those tiles from the list gives the same bits, on every ISA. */
static void test_kernel_drop_identical(void **state) {
  (void)state;
  hs_rng r = {13};
  HS_FOR_EACH_ISA(kt) {
    for (size_t dk = 1; dk <= 9; dk += 2)
      for (size_t dv = 1; dv <= 33; dv += 8)
        for (size_t n = 330; n <= 900; n += 190) {
          float *q = fill(&r, dk, 0.5, 1), *k = hs_test_alloc(n * dk * sizeof(float));
          float *v = fill(&r, n * dv + 1, -3, 3);
          for (size_t j = 0; j < n; j++)
            for (size_t c = 0; c < dk; c++)
              k[j * dk + c] = (float)j / (float)dk / q[c] + (float)hs_rng_uniform(&r, -0.3, 0.3);
          size_t *seg = malloc((n + 2) * 2 * sizeof *seg), *kept = malloc((n + 2) * 2 * sizeof *kept);
          size_t ns = tile_segs(n, 3, seg), nk = 0;
          for (size_t t = 0; t < ns; t++)
            if (seg[2 * t] + seg[2 * t + 1] + 100 > n) /* touching the last 100 keys */
              kept[2 * nk] = seg[2 * t], kept[2 * nk + 1] = seg[2 * t + 1], nk++;
          assert_true(nk < ns);
          hs_f32_online a, b;
          float acca[HS_ATTN_MAX_D], accb[HS_ATTN_MAX_D];
          kt->f32_attn_row_2pass(ns, seg, dk, dv, q, k, dk, v, dv, 1.0f, &a, acca);
          kt->f32_attn_row_2pass(nk, kept, dk, dv, q, k, dk, v, dv, 1.0f, &b, accb);
          assert_memory_equal(&a, &b, sizeof a);
          assert_memory_equal(acca, accb, dv * sizeof(float));
          free(q), free(k), free(v), free(seg), free(kept);
        }
  }
}

/* ------------------------------------------------------------ forward */

static char **formulas;
static int nformulas;

static void load_formulas(void) {
  formulas = the_suite()->line;
  nformulas = the_suite()->n;
}



static hs_runner *runner(const hs_model *m, hs_skip skip, int threads) {
  hs_error he;
  hs_run_opts ro = {.precision = HS_PREC_F32, .kernels = hs_kernels_default(NULL),
                    .skip = skip, .threads = threads};
  hs_runner *r = hs_runner_new(m, &ro, &he);
  if (!r) fail_msg("%s", he.msg);
  return r;
}

static void test_forward_identical(void **state) {
  (void)state;
  load_formulas();
  static const size_t lens[] = {1, 7, 100, 1000, 3000};
  static const double mus[] = {4, 32};
  const size_t nl = getenv("HS_SKIP_QUICK") ? 3 : 5;
  hs_rng r = {21};
  uint8_t *s = malloc(3000), *truth = malloc(3000);
  uint64_t total = 0, skipped = 0;
  int models = 0;
  for (int fi = 0; fi < nformulas; fi++) {
    hs_error e;
    hs_formula *f = hs_formula_parse(formulas[fi], &e);
    if (!f) fail_msg("parse '%s': %s", formulas[fi], e.msg);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++)
      for (int mi = 0; mi < 2; mi++) {
        hs_error he;
        hs_compile_opts co = {.mode = (hs_mode)mode, .scale = mus[mi]};
        hs_model *m = hs_compile(f, &co, &he);
        if (!m) continue; /* refused by the compiler */
        models++;
        for (int th = 1; th <= 2; th++) {
          hs_runner *on = runner(m, HS_SKIP_ON, th), *off = runner(m, HS_SKIP_OFF, th);
          for (size_t li = 0; li < nl; li++) {
            size_t n = lens[li];
            hs_random_string(&r, s, n);
            hs_run_result a, b;
            assert_int_equal(hs_runner_run(on, s, n, &a, &he), 0);
            assert_int_equal(hs_runner_run(off, s, n, &b, &he), 0);
            if (memcmp(a.values, b.values, n * sizeof(double)) ||
                memcmp(a.bits, b.bits, n))
              fail_msg("'%s' %s mu = %g n = %zu threads %d: skip on and off differ",
                       formulas[fi], hs_mode_name((hs_mode)mode), mus[mi], n, th);
            /* off counts the softmax rows only; on also the hard rows
             * (their exact skipping, FN(hard_row_skip)) */
            assert_true(b.tiles_skipped == 0 && a.tiles_total >= b.tiles_total);
            if (mode != HS_MODE_HARD) assert_true(a.tiles_total == b.tiles_total);
            /* a since or until of a hard model at n = 3000 leaves out
             * most of its tiles */
            if (mode == HS_MODE_HARD && n == 3000 &&
                (strstr(formulas[fi], " S ") || strstr(formulas[fi], " U ")) &&
                !strchr(formulas[fi], '#')) /* counting: uniform, nothing to skip */
              if (!(a.tiles_skipped > a.tiles_total / 2))
                fail_msg("%s hard n = 3000: %llu of %llu tiles skipped", formulas[fi],
                         (unsigned long long)a.tiles_skipped, (unsigned long long)a.tiles_total);
            total += a.tiles_total, skipped += a.tiles_skipped;
            /* the kernels' keys: on takes those of off less the skipped
             * tiles' (at most 64 each), in runs of at least one key (off,
             * pe: one run a tile, so a miscounted run shows); a
             * since has a softmax head in pe */
            if (a.attn_keys > b.attn_keys ||
                a.attn_keys + 64 * a.tiles_skipped < b.attn_keys ||
                a.attn_segments > a.attn_keys || b.attn_segments > b.attn_keys ||
                (mode == HS_MODE_PE && b.attn_segments != b.tiles_total) ||
                (mode == HS_MODE_PE && strstr(formulas[fi], " S ") && b.attn_keys == 0))
              fail_msg("'%s' %s mu = %g n = %zu: keys on %llu in %llu runs, off %llu "
                       "in %llu, %llu tiles skipped", formulas[fi],
                       hs_mode_name((hs_mode)mode), mus[mi], n,
                       (unsigned long long)a.attn_keys, (unsigned long long)a.attn_segments,
                       (unsigned long long)b.attn_keys, (unsigned long long)b.attn_segments,
                       (unsigned long long)a.tiles_skipped);
            if (mode == HS_MODE_PE || mode == HS_MODE_TEMP || mode == HS_MODE_REL ||
                mode == HS_MODE_HARD) {
              assert_int_equal(hs_truth_eval(f, hs_formula_root(f), s, n, truth, NULL), 0);
              for (size_t i = 0; i < n; i++)
                if (a.bits[i] != truth[i])
                  fail_msg("'%s' %s mu = %g n = %zu: position %zu: model %d, logic %d",
                           formulas[fi], hs_mode_name((hs_mode)mode), mus[mi], n,
                           i + 1, a.bits[i], truth[i]);
            }
            hs_run_result_free(&a);
            hs_run_result_free(&b);
          }
          hs_runner_free(on);
          hs_runner_free(off);
        }
        hs_model_free(m);
      }
    hs_formula_free(f);
  }
  printf("  %d models, %llu tiles, %.1f%% skipped\n", models,
         (unsigned long long)total, total ? 100.0 * (double)skipped / (double)total : 0);
  free(s);
  free(truth);
}

/* One model on one ISA: skip ON against OFF, bit for bit, in precision
 * prec ("f32", "f64", "f16", "bf16", "f16s", "bf16s"), on `threads`
 * threads; returns the tiles ON skipped. */
static uint64_t on_off(const hs_model *m, const hs_kernels *kt, const char *prec,
                       int threads, const uint8_t *s, size_t n, const char *what) {
  hs_error e;
  hs_run_opts ro = {.kernels = kt, .skip = HS_SKIP_ON, .threads = threads};
  assert_int_equal(hs_precision_parse(prec, &ro.precision, &ro.score_round, &ro.qkv_round), 0);
  hs_run_result a, b;
  assert_int_equal(hs_forward(m, s, n, &ro, &a, &e), 0);
  ro.skip = HS_SKIP_OFF;
  assert_int_equal(hs_forward(m, s, n, &ro, &b, &e), 0);
  if (memcmp(a.values, b.values, n * sizeof(double)) || memcmp(a.bits, b.bits, n))
    fail_msg("%s %s %s threads %d n = %zu: skip on and off differ", hs_isa_name(kt->isa),
             what, prec, threads, n);
  uint64_t sk = a.tiles_skipped;
  hs_run_result_free(&a);
  hs_run_result_free(&b);
  return sk;
}

/* Every ISA (the test above runs the default one), every formula, every
 * mode (mu = 32), n = 1000, f32 and f64, one and two threads (one per
 * formula, alternating, so each formula and mode sees both across the
 * precisions); relative-position models also in f16, bf16 (stored
 * projections) and f16s, bf16s (rounded scores), where each rounding
 * takes the skipping too. Since and until heads skip in hard mode (both
 * precisions) and in rel (every precision). */
static void test_forward_identical_isas(void **state) {
  (void)state;
  load_formulas();
  hs_rng r = {23};
  const size_t n = 1000;
  uint8_t *s = malloc(n);
  static const char *const precs[] = {"f32", "f64", "f16", "bf16", "f16s", "bf16s"};
  HS_FOR_EACH_ISA(kt)
  for (int fi = 0; fi < nformulas; fi++) {
    hs_error e;
    hs_formula *f = hs_formula_parse(formulas[fi], &e);
    assert_non_null(f);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      hs_error he;
      char what[512];
      hs_compile_opts co = {.mode = (hs_mode)mode, .scale = 32};
      hs_model *m = hs_compile(f, &co, &he);
      if (!m) continue;
      snprintf(what, sizeof what, "'%s' %s", formulas[fi], hs_mode_name((hs_mode)mode));
      hs_random_string(&r, s, n);
      int since = strstr(formulas[fi], " S ") && !strchr(formulas[fi], '#');
      for (int pr = 0; pr < (mode == HS_MODE_REL ? 6 : 2); pr++) {
        uint64_t sk = on_off(m, kt, precs[pr], 1 + (fi + pr) % 2, s, n, what);
        if (since && (mode == HS_MODE_HARD || mode == HS_MODE_REL) && !(sk > 0))
          fail_msg("%s %s %s: no tile skipped", hs_isa_name(kt->isa), what, precs[pr]);
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  free(s);
}

static void test_fraction(void **state) {
  (void)state;
  hs_error e;
  hs_formula *f = hs_formula_parse("a S b", &e);
  assert_non_null(f);
  hs_error he;
  hs_compile_opts co = {.mode = HS_MODE_PE, .scale = 32};
  hs_model *m = hs_compile(f, &co, &he);
  assert_non_null(m);
  const size_t n = 4096;
  uint8_t *s = malloc(n);
  hs_rng r = {22};
  hs_random_string(&r, s, n);
  HS_FOR_EACH_ISA(kt) {
    hs_run_opts ro = {.precision = HS_PREC_F32, .kernels = kt, .skip = HS_SKIP_ON};
    hs_run_result a;
    assert_int_equal(hs_forward(m, s, n, &ro, &a, &he), 0);
    double frac = (double)a.tiles_skipped / (double)a.tiles_total;
    printf("  %s: a S b pe mu = 32 n = 4096: %.4f of %llu tiles skipped\n",
           hs_isa_name(kt->isa), frac, (unsigned long long)a.tiles_total);
    assert_true(frac > 0.5);
    /* the online default reports no tiles */
    ro.skip = HS_SKIP_ONLINE;
    hs_run_result b;
    assert_int_equal(hs_forward(m, s, n, &ro, &b, &he), 0);
    assert_true(b.tiles_total == 0 && b.tiles_skipped == 0);
    assert_memory_equal(a.bits, b.bits, n);
    hs_run_result_free(&a);
    hs_run_result_free(&b);
  }
  free(s);
  hs_model_free(m);
  hs_formula_free(f);
}

/* The largest scales the compiler accepts: fixed's scores reach 3 mu,
 * far above 1e37, at every n, and pe's 3 mu n at n ~ 5e5. Skipping keeps
 * working there (skip-impl.h, HS_SKIP_BIG): ON gives the bits of OFF and
 * leaves out most tiles of a S b over runs of one letter, the decisions
 * those of the logic. */
static void test_top_mu(void **state) {
  (void)state;
  static const struct { hs_mode mode; double mu; } cases[] = {
      {HS_MODE_FIXED, 5.6e37}, {HS_MODE_PE, 6.76e30}, {HS_MODE_TEMP, 6.76e30}};
  const size_t n = 4096;
  uint8_t *s = malloc(n), *truth = malloc(n);
  for (size_t i = 0; i < n; i += 37)
    for (size_t j = i; j < i + 37 && j < n; j++) s[j] = (uint8_t)("abc"[i / 37 % 3]);
  hs_error e;
  hs_formula *f = hs_formula_parse("a S b", &e);
  assert_non_null(f);
  assert_int_equal(hs_truth_eval(f, hs_formula_root(f), s, n, truth, NULL), 0);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    hs_compile_opts co = {.mode = cases[c].mode, .scale = cases[c].mu};
    hs_model *m = hs_compile(f, &co, &e);
    if (!m) fail_msg("%s mu = %g: %s", hs_mode_name(cases[c].mode), cases[c].mu, e.msg);
    hs_run_opts ro = {.skip = HS_SKIP_ON};
    hs_run_result a, b;
    assert_int_equal(hs_forward(m, s, n, &ro, &a, &e), 0);
    ro.skip = HS_SKIP_OFF;
    assert_int_equal(hs_forward(m, s, n, &ro, &b, &e), 0);
    assert_memory_equal(a.values, b.values, n * sizeof(double));
    assert_memory_equal(a.bits, truth, n);
    if (!(a.tiles_skipped > a.tiles_total / 2))
      fail_msg("%s mu = %g: %llu of %llu tiles skipped", hs_mode_name(cases[c].mode),
               cases[c].mu, (unsigned long long)a.tiles_skipped,
               (unsigned long long)a.tiles_total);
    hs_run_result_free(&a);
    hs_run_result_free(&b);
    hs_model_free(m);
  }
  hs_formula_free(f);
  free(s);
  free(truth);
}

/* The attention error of a row that skipped is taken over its kept tiles
 * only, the rest bounded by the cut (FN(off_target)): the same as over
 * every key (skip ONLINE) within rounding, on every third formula of the
 * suite in pe, temp and rel, f32 and f64, while AUTO skips most tiles. */
static void test_error_kept(void **state) {
  (void)state;
  load_formulas();
  static const hs_mode modes[] = {HS_MODE_PE, HS_MODE_TEMP, HS_MODE_REL};
  const size_t n = 1500;
  uint8_t *s = malloc(n);
  hs_rng r = {38};
  uint64_t total = 0, skipped = 0;
  for (int fi = 0; fi < nformulas; fi += 3) {
    hs_error e;
    hs_formula *f = hs_formula_parse(formulas[fi], &e);
    assert_non_null(f);
    for (int k = 0; k < 3; k++) {
      hs_compile_opts co = {.mode = modes[k], .scale = 4};
      hs_model *m = hs_compile(f, &co, &e);
      if (!m) continue;
      hs_random_string(&r, s, n);
      for (int prec = 0; prec < 2; prec++) {
        hs_run_opts ro = {.precision = prec ? HS_PREC_F64 : HS_PREC_F32,
                          .want_attn_error = 1};
        hs_run_result a, b;
        assert_int_equal(hs_forward(m, s, n, &ro, &a, &e), 0);
        ro.skip = HS_SKIP_ONLINE;
        assert_int_equal(hs_forward(m, s, n, &ro, &b, &e), 0);
        hs_model_info mi;
        hs_model_get_info(m, &mi);
        for (int l = 0; l < mi.nlayers; l++)
          if (!(fabs(a.attn_error[l] - b.attn_error[l]) <= 1e-12 + 1e-9 * b.attn_error[l]))
            fail_msg("'%s' %s %s layer %d: error %.17g over the kept tiles, %.17g over "
                     "every key", formulas[fi], hs_mode_name(modes[k]),
                     prec ? "f64" : "f32", l, a.attn_error[l], b.attn_error[l]);
        total += a.tiles_total, skipped += a.tiles_skipped;
        hs_run_result_free(&a);
        hs_run_result_free(&b);
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  printf("  %.1f%% of %llu tiles skipped\n", 100.0 * (double)skipped / (double)total,
         (unsigned long long)total);
  assert_true(skipped > total / 2);
  free(s);
}

/* Formula src compiled in mode at scale mu (the formula in *f, freed by
 * the caller after the model). */
static hs_model *compiled(const char *src, hs_mode mode, double mu, hs_formula **f) {
  hs_error e;
  *f = hs_formula_parse(src, &e);
  assert_non_null(*f);
  hs_compile_opts co = {.mode = mode, .scale = mu};
  hs_model *m = hs_compile(*f, &co, &e);
  assert_non_null(m);
  return m;
}

/* --skip auto (the default) chooses per head: a S b in pe at mu = 32 skips
 * nearly every tile, so it takes the two-pass kernel and gives exactly the
 * bits of skip ON; in fixed mode at mu = 4 every score is within 2 mu of
 * the others and nothing can be skipped, so it stays on the online kernel
 * and gives exactly its bits (no tiles counted); strings too short to
 * sample stay online as well. From n = 256 on, heads that skip take it on
 * every ISA in f32 and f64 (a S b, and X a, whose future rows keep their
 * BOS key and one partial tile), and the uniform heads of a count skip
 * nothing (the cost model, FN(key_ns)). */
static void test_auto(void **state) {
  (void)state;
  hs_error he;
  const size_t n = 4096;
  uint8_t *s = malloc(n);
  hs_rng r = {23};
  hs_random_string(&r, s, n);
  static const struct {
    const char *src;
    hs_mode mode;
    double mu;
    size_t n;
    hs_skip same_as;
  } cases[] = {{"a S b", HS_MODE_PE, 32, 4096, HS_SKIP_ON},
               {"a S b", HS_MODE_FIXED, 4, 4096, HS_SKIP_ONLINE},
               {"a S b", HS_MODE_PE, 32, 100, HS_SKIP_ONLINE},
               {"a S b", HS_MODE_PE, 4, 256, HS_SKIP_ON},
               {"X a", HS_MODE_PE, 4, 256, HS_SKIP_ON},
               {"#<(a) > #>(b)", HS_MODE_PE, 4, 1024, HS_SKIP_ONLINE}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    hs_formula *f;
    hs_model *m = compiled(cases[c].src, cases[c].mode, cases[c].mu, &f);
    for (int prec = 0; prec < 2; prec++) HS_FOR_EACH_ISA(kt) {
      hs_run_opts ro = {.precision = prec ? HS_PREC_F64 : HS_PREC_F32, .kernels = kt};
      hs_run_result a, b;
      assert_int_equal(hs_forward(m, s, cases[c].n, &ro, &a, &he), 0);
      ro.skip = cases[c].same_as;
      assert_int_equal(hs_forward(m, s, cases[c].n, &ro, &b, &he), 0);
      if (a.tiles_total != b.tiles_total)
        fail_msg("%s, n = %zu, %s %s: auto counted %llu tiles, %s %llu", cases[c].src,
                 cases[c].n, hs_isa_name(kt->isa), prec ? "f64" : "f32",
                 (unsigned long long)a.tiles_total,
                 cases[c].same_as == HS_SKIP_ON ? "on" : "online",
                 (unsigned long long)b.tiles_total);
      assert_int_equal(a.tiles_skipped, b.tiles_skipped);
      assert_memory_equal(a.values, b.values, cases[c].n * sizeof(double));
      if (cases[c].same_as == HS_SKIP_ON) assert_true(a.tiles_skipped > 0);
      if (cases[c].same_as == HS_SKIP_ON && cases[c].mu == 32)
        assert_true(a.tiles_skipped > a.tiles_total / 2);
      hs_run_result_free(&a);
      hs_run_result_free(&b);
    }
    hs_model_free(m);
    hs_formula_free(f);
  }
  free(s);
}

/* Relative-bias heads over a tree of three levels (n = 20000, 313
 * tiles): past and future masks, f32 and bf16 storage, skip ON against
 * OFF bit for bit on the best ISA, one and two threads; consecutive rows
 * reuse the last walk with its bounds moved by the bias (FN(bt_kept)),
 * and most tiles are left out. */
static void test_rel_long(void **state) {
  (void)state;
  static const char *const fs[] = {"a S b", "G (a -> Y (b U c))"};
  const size_t n = 20000;
  uint8_t *s = malloc(n);
  hs_rng r = {25};
  for (size_t fi = 0; fi < sizeof fs / sizeof *fs; fi++) {
    hs_formula *f;
    hs_model *m = compiled(fs[fi], HS_MODE_REL, 4, &f);
    hs_random_string(&r, s, n);
    for (int pr = 0; pr < 2; pr++) {
      uint64_t sk = on_off(m, hs_kernels_default(NULL), pr ? "bf16" : "f32", 1 + pr, s,
                           n, fs[fi]);
      /* a head's rows hold about n (n / 64) / 2 tiles: more than half left out */
      if (!(sk > (uint64_t)n * (n / 64) / 4))
        fail_msg("%s rel n = %zu: %llu tiles skipped", fs[fi], n, (unsigned long long)sk);
    }
    hs_model_free(m);
    hs_formula_free(f);
  }
  free(s);
}

/* Hard "nearest j >= i where P" heads, whose pick leaves the view row
 * after row: the next P found among the keys just after it, further on
 * at the last row's max, or (none left) by the search. Strings of a's
 * with b's in runs, at gaps inside and beyond the scan, and none in the
 * last stretch; skip on and off bit for bit, f32 and f64, one and two
 * threads. */
static void test_hard_picks(void **state) {
  (void)state;
  static const char *const fs[] = {"F b", "a U b", "X (c U b)", "G (a -> F b)"};
  static const size_t gaps[] = {1, 3, 15, 16, 17, 40, 200, 1};
  const size_t n = 3000;
  uint8_t *s = malloc(n);
  for (size_t i = 0, g = 0, next = 5; i < n; i++) {
    s[i] = i + 400 < n && i == next ? 'b' : 'a';
    if (i == next) next += gaps[g++ % (sizeof gaps / sizeof *gaps)];
  }
  for (size_t fi = 0; fi < sizeof fs / sizeof *fs; fi++) {
    hs_formula *f;
    hs_model *m = compiled(fs[fi], HS_MODE_HARD, 4, &f);
    for (int pr = 0; pr < 4; pr++) {
      uint64_t sk = on_off(m, hs_kernels_default(NULL), pr % 2 ? "f64" : "f32",
                           1 + pr / 2, s, n, fs[fi]);
      if (!(sk > 0)) fail_msg("%s hard: no tile skipped", fs[fi]);
    }
    hs_model_free(m);
    hs_formula_free(f);
  }
  free(s);
}

/* last_only and edges_only compute only the asked rows from the last
 * layer with heads on (src/run/rows.h): the asked positions' values and
 * decisions are those of the full pass, bit for bit, on every formula and
 * mode (mu = 8), several lengths, one and two threads; the skipping
 * default and the dense path alike. */
static void test_sparse_rows(void **state) {
  (void)state;
  load_formulas();
  static const size_t lens[] = {1, 5, 70, 700};
  hs_rng r = {24};
  uint8_t *s = malloc(700);
  for (int fi = 0; fi < nformulas; fi++) {
    hs_error e;
    hs_formula *f = hs_formula_parse(formulas[fi], &e);
    assert_non_null(f);
    for (int mode = 0; mode < HS_MODE_COUNT_; mode++) {
      hs_compile_opts co = {.mode = (hs_mode)mode, .scale = 8};
      hs_model *m = hs_compile(f, &co, &e);
      if (!m) continue;
      for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        size_t n = lens[li];
        hs_random_string(&r, s, n);
        hs_run_opts ro = {.precision = HS_PREC_F32, .kernels = hs_kernels_default(NULL),
                          .threads = 1 + (int)(li % 2),
                          .skip = fi % 2 ? HS_SKIP_AUTO : HS_SKIP_OFF};
        hs_run_result full, part;
        assert_int_equal(hs_forward(m, s, n, &ro, &full, &e), 0);
        for (int edges = 0; edges < 2; edges++) {
          ro.last_only = !edges, ro.edges_only = edges;
          assert_int_equal(hs_forward(m, s, n, &ro, &part, &e), 0);
          for (size_t i = 1; i <= n; i++) {
            if (edges ? i > 3 && i + 2 < n : i != n) continue;
            if (memcmp(&full.values[i - 1], &part.values[i - 1], sizeof(double)) ||
                full.bits[i - 1] != part.bits[i - 1])
              fail_msg("'%s' %s n = %zu %s: position %zu differs from the full pass",
                       formulas[fi], hs_mode_name((hs_mode)mode), n,
                       edges ? "edges_only" : "last_only", i);
          }
          hs_run_result_free(&part);
        }
        ro.last_only = ro.edges_only = 0;
        hs_run_result_free(&full);
      }
      hs_model_free(m);
    }
    hs_formula_free(f);
  }
  free(s);
}

int main(void) {
  struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernel_sizes),
      cmocka_unit_test(test_kernel_special),
      cmocka_unit_test(test_kernel_drop_identical),
      cmocka_unit_test(test_fraction),
      cmocka_unit_test(test_top_mu),
      cmocka_unit_test(test_error_kept),
      cmocka_unit_test(test_forward_identical_isas),
      cmocka_unit_test(test_forward_identical),
      cmocka_unit_test(test_auto),
      cmocka_unit_test(test_sparse_rows),
      cmocka_unit_test(test_hard_picks),
      cmocka_unit_test(test_rel_long),
  };
  hs_test_only(tests, sizeof tests / sizeof *tests);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
