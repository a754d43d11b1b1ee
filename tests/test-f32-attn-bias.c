/* SPDX-License-Identifier: MIT */
/* The relative-bias (ALiBi) attention kernels, f32_attn_row_bias and
 * f32_attn_tile_bias, on every ISA this CPU runs:
 *   - against a long double reference of softmax((q . k_j) tau + slope
 *     (d0 + j)) v, within the row kernel's bound with one rounding more per
 *     score (the fused bias);
 *   - slope 0 gives exactly the plain row kernel's bits;
 *   - a key range split over two calls (d0 advanced by the first call's
 *     keys) agrees with the reference too;
 *   - each query of a tile gives exactly the bits of the bias row kernel
 *     over its own keys (end = 0 and 1, ragged ranges across the 512-key
 *     blocks, tails of fewer than 4 queries);
 *   - integer positions times slope 4 with zero content are exact: the
 *     weights are those of exp(-4 |i - j|), the arithmetic rel relies on,
 *     at positions up to 2^22;
 *   - the two-pass variant f32_attn_row_2pass_bias (the skipping path of
 *     relative-bias heads) against the same reference, its keys as one
 *     segment and as 64-key tiles from an arbitrary offset, and with slope
 *     0 exactly the bits of f32_attn_row_2pass. */
#include "attn-ref.h"

static float *fill(hs_rng *r, size_t cnt, double lo, double hi) {
  float *b = (float *)hs_test_alloc(cnt * sizeof(float)) + 1; /* unaligned */
  for (size_t i = 0; i < cnt; i++) b[i] = (float)hs_rng_uniform(r, lo, hi);
  return b;
}

/* One row by the two-pass bias kernel: the keys as one segment (split
 * SPLIT_ONE) or as tiles from offset 37 (SPLIT_TILES); slope 0 checked
 * against the plain two-pass kernel bit for bit. */
#define SPLIT_ONE ((size_t)-1)
#define SPLIT_TILES ((size_t)-2)
static void row_2pass(const hs_kernels *kt, const prob *p, float slope, int64_t d0,
                      size_t split, hs_f32_online *st, float *acc) {
  size_t *seg = malloc((p->n / 64 + 3) * 2 * sizeof *seg), ns = 1;
  seg[0] = 0, seg[1] = p->n;
  if (split == SPLIT_TILES) ns = tile_segs(p->n, 37, seg);
  kt->f32_attn_row_2pass_bias(ns, seg, p->dk, p->dv, p->q, p->k, p->ldk, p->v, p->ldv,
                              p->tau, slope, d0, st, acc);
  if (slope == 0) {
    hs_f32_online s0;
    float a0[HS_ATTN_MAX_D];
    kt->f32_attn_row_2pass(ns, seg, p->dk, p->dv, p->q, p->k, p->ldk, p->v, p->ldv,
                           p->tau, &s0, a0);
    assert_memory_equal(&s0, st, sizeof s0);
    assert_memory_equal(a0, acc, p->dv * sizeof(float));
  }
  free(seg);
}

/* One row by the bias kernel, keys cut at split (0: one call), or by the
 * two-pass bias kernel (SPLIT_ONE, SPLIT_TILES). */
static void row_bias(const hs_kernels *kt, const prob *p, float slope,
                     int64_t d0, size_t split, hs_f32_online *st, float *acc) {
  if (split == SPLIT_ONE || split == SPLIT_TILES) {
    row_2pass(kt, p, slope, d0, split, st, acc);
    return;
  }
  *st = (hs_f32_online){-INFINITY, 0};
  for (size_t c = 0; c < p->dv; c++) acc[c] = 0;
  if (split)
    kt->f32_attn_row_bias(split, p->dk, p->dv, p->q, p->k, p->ldk, p->v,
                          p->ldv, p->tau, slope, d0, st, acc);
  kt->f32_attn_row_bias(p->n - split, p->dk, p->dv, p->q,
                        p->k + split * p->ldk, p->ldk, p->v + split * p->ldv,
                        p->ldv, p->tau, slope, d0 + (int64_t)split, st, acc);
}

static void check_row(const hs_kernels *kt, const prob *p, float slope,
                      int64_t d0, size_t split) {
  hs_f32_online st;
  float acc[HS_ATTN_MAX_D];
  row_bias(kt, p, slope, d0, split, &st, acc);
  /* slope 0: the plain kernel's bits */
  if (slope == 0 && split == 0) {
    hs_f32_online s0 = {-INFINITY, 0};
    float a0[HS_ATTN_MAX_D] = {0};
    kt->f32_attn_row(p->n, p->dk, p->dv, p->q, p->k, p->ldk, p->v, p->ldv,
                     p->tau, &s0, a0);
    assert_true(s0.max == st.max && s0.sum == st.sum);
    assert_memory_equal(a0, acc, p->dv * sizeof(float));
  }
  if (p->n == 0) {
    assert_true(st.max == -INFINITY && st.sum == 0);
    return;
  }
  long double *s = malloc(p->n * sizeof *s), mref, smax, bmax = 0;
  ref_scores(p, s, &mref, &smax);
  mref = -INFINITY;
  for (size_t j = 0; j < p->n; j++) {
    long double b = (long double)slope * (long double)(d0 + (int64_t)j);
    s[j] += b;
    if (fabsl(b) > bmax) bmax = fabsl(b);
    if (s[j] > mref) mref = s[j];
  }
  /* the row kernel's score error, plus the fused bias's rounding */
  double ds = (p->dk + 8) * U * (double)smax + U * (double)(smax + bmax);
  if (!(fabs(st.max - (double)mref) <= ds + 1e-30)) {
    fprintf(stderr, "%s max %.9g ref %.9Lg\n", hs_isa_name(kt->isa), st.max, mref);
    fail();
  }
  double E = 2 * ds + (p->n / 64.0 + 74) * U;
  long double sum, accr[HS_ATTN_MAX_D], absr[HS_ATTN_MAX_D];
  ref_weights(p, s, st.max, &sum, accr, absr);
  if (!(fabsl(st.sum - sum) <= E * sum + p->n * 0x1p-126)) {
    fprintf(stderr, "%s n=%zu dk=%zu slope=%g d0=%lld: sum %.9g ref %.9Lg E %g\n",
            hs_isa_name(kt->isa), p->n, p->dk, slope, (long long)d0, st.sum,
            sum, E);
    fail();
  }
  for (size_t c = 0; c < p->dv; c++)
    if (!(fabsl(acc[c] - accr[c]) <= E * absr[c] + 1e-30)) {
      fprintf(stderr, "%s n=%zu: acc[%zu] %.9g ref %.9Lg\n",
              hs_isa_name(kt->isa), p->n, c, acc[c], accr[c]);
      fail();
    }
  free(s);
}

static void random_row(const hs_kernels *kt, hs_rng *r, size_t n, size_t dk,
                       size_t dv, float slope, int64_t d0) {
  size_t ldk = dk + (n % 2), ldv = dv;
  float *q = fill(r, dk + 1, -1.5, 1.5);
  float *k = fill(r, n * ldk + 1, -2, 2);
  float *v = fill(r, n * ldv + 1, -4, 4);
  prob p = {n, dk, dv, ldk, ldv, q, k, v, 1.0f};
  check_row(kt, &p, slope, d0, 0);
  /* the same keys over two calls, d0 advanced by the first call's keys */
  if (n > 2) check_row(kt, &p, slope, d0, n / 3);
  check_row(kt, &p, slope, d0, SPLIT_ONE);
  check_row(kt, &p, slope, d0, SPLIT_TILES);
  free(q - 1);
  free(k - 1);
  free(v - 1);
}

static void test_row_reference(void **state) {
  (void)state;
  hs_rng r = {11};
  static const size_t ns[] = {0, 1, 7, 8, 15, 16, 17, 100, 511, 512, 513, 1500};
  static const float slopes[] = {0.0f, 0.01f, -0.02f, 0.5f, -1.0f};
  HS_FOR_EACH_ISA(kt) {
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
      for (size_t sl = 0; sl < sizeof slopes / sizeof *slopes; sl++)
        for (size_t dk = 1; dk <= 9; dk += 3) {
          /* positions on both sides of 0, as past (d0 = -i) and future
           * (d0 = a - i >= 0) rows have them */
          int64_t d0 = sl % 2 ? -(int64_t)ns[i] : (int64_t)(i * 3);
          random_row(kt, &r, ns[i], dk, 1 + dk % 3, slopes[sl], d0);
        }
  }
}

/* Zero content, slope 4, positions -(n-1) .. 0 (a past row at query n-1
 * with keys 0..n-1): every score is -4 (n - 1 - j), exact in f32 while
 * 4 (n - 1) < 2^26, so the kernel's max is exactly 0 and its weights
 * are those of a geometric series: sum = 1/(1 - e^-4) to the kernel's
 * exp and summation error, whatever n. */
static void test_exact_positions(void **state) {
  (void)state;
  HS_FOR_EACH_ISA(kt) {
    for (size_t n = 1; n <= ((size_t)1 << 22); n *= 16) {
      float *k = calloc(n, sizeof(float)), *v = calloc(n, sizeof(float));
      float q = 0, acc = 0;
      for (size_t j = 0; j < n; j++) v[j] = j + 1 == n; /* the nearest key */
      hs_f32_online st = {-INFINITY, 0};
      kt->f32_attn_row_bias(n, 1, 1, &q, k, 1, v, 1, 1.0f, 4.0f,
                            -(int64_t)(n - 1), &st, &acc);
      assert_true(st.max == 0);
      double want = n == 1 ? 1 : 1 / -expm1(-4.0);
      assert_true(fabs(st.sum - want) <= 1e-5 * want);
      assert_true(fabs(acc / st.sum - 1 / want) <= 1e-5);
      free(k);
      free(v);
    }
  }
}

/* Tiles against the bias row kernel, query by query, bit for bit. */
static void tile_case(const hs_kernels *kt, hs_rng *rg, size_t nq,
                      const size_t *n, size_t dk, size_t dv, int end,
                      float slope) {
  size_t nmax = 0;
  for (size_t r = 0; r < nq; r++) if (n[r] > nmax) nmax = n[r];
  float *q = fill(rg, nq * dk + 1, -1.5, 1.5);
  float *k = fill(rg, nmax * dk + 1, -2, 2);
  float *v = fill(rg, nmax * dv + 1, -4, 4);
  int64_t d0[16];
  hs_f32_online st[16], sr[16];
  float acc[16 * 8] = {0}, accr[16 * 8] = {0};
  for (size_t r = 0; r < nq; r++) {
    /* query at index i = r + (end ? 0 : nmax - nq): key j at j - i */
    d0[r] = -(int64_t)(end ? r : nmax - nq + r);
    st[r] = sr[r] = (hs_f32_online){-INFINITY, 0};
  }
  kt->f32_attn_tile_bias(nq, n, dk, dv, q, dk, k, dk, v, dv, 1.0f, slope, d0,
                         st, acc, 8, end);
  for (size_t r = 0; r < nq; r++) {
    size_t j0 = end ? nmax - n[r] : 0, h = end ? hs_attn_end_head(n[r]) : 0;
    if (h)
      kt->f32_attn_row_bias(h, dk, dv, q + r * dk, k + j0 * dk, dk,
                            v + j0 * dv, dv, 1.0f, slope, d0[r] + (int64_t)j0,
                            &sr[r], accr + r * 8);
    kt->f32_attn_row_bias(n[r] - h, dk, dv, q + r * dk, k + (j0 + h) * dk, dk,
                          v + (j0 + h) * dv, dv, 1.0f, slope,
                          d0[r] + (int64_t)(j0 + h), &sr[r], accr + r * 8);
    if (memcmp(&st[r], &sr[r], sizeof st[r]) ||
        memcmp(acc + r * 8, accr + r * 8, dv * sizeof(float))) {
      fprintf(stderr, "%s end=%d nq=%zu r=%zu n=%zu dk=%zu: tile %a %a, row %a %a\n",
              hs_isa_name(kt->isa), end, nq, r, n[r], dk, st[r].max, st[r].sum,
              sr[r].max, sr[r].sum);
      fail();
    }
  }
  free(q - 1);
  free(k - 1);
  free(v - 1);
}

static void test_tile_bits(void **state) {
  (void)state;
  hs_rng rg = {12};
  static const size_t base[] = {1, 5, 511, 512, 513, 1100, 2048, 2051};
  HS_FOR_EACH_ISA(kt) {
    for (int end = 0; end <= 1; end++)
      for (size_t b = 0; b < sizeof base / sizeof *base; b++)
        for (size_t nq = 1; nq <= 9; nq += 2)
          for (size_t dk = 1; dk <= 8; dk *= 2) {
            size_t n[16];
            /* past rows end one key apart, future rows start one apart */
            for (size_t r = 0; r < nq; r++) n[r] = base[b] + (end ? nq - r : r);
            tile_case(kt, &rg, nq, n, dk, 1 + dk % 3, end, b % 2 ? 4.0f : -0.25f);
          }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_row_reference),
      cmocka_unit_test(test_exact_positions),
      cmocka_unit_test(test_tile_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
