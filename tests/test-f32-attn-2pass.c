/* SPDX-License-Identifier: MIT */
/* The two-pass attention row (f32_attn_row_2pass and its _bias variant,
 * every ISA this CPU runs) on the skipping path's usual rows: contiguous
 * keys with dk in {1, 2, 4}, one value column, a few segments of up to a
 * 64-key tile (a ragged first one, whole tiles, the 2-key BOS copy at the
 * end), which the vector kernels run on a path of their own:
 *   - against a long double reference within the bound of the kernel's
 *     first comment (one rounding more per score for the bias);
 *   - AVX2 (the contiguous block path): the same bits as the general
 *     path: the values spaced out (ldv = 2, which the contiguous path does
 *     not take) change no bit, and rows of short segments only (every key
 *     in a tail group) give the bits of the keys spaced out (ldk = dk + 1,
 *     the general tail code);
 *   - AVX-512 (the lane path): the same bits whatever the cut of the keys
 *     into segments: every segment split at random points, and touching
 *     segments joined, change no bit;
 *   both also with signed zeros among the keys, the query and the values;
 * and f32_attn_rows_2pass, which takes several rows per call: against
 * the reference, and bit for bit the one-row kernel's rows. */
#include "attn-ref.h"

/* A row of the skipping path's shape over keys [0, n): segments of the
 * tiles from offset `first` (as tile_segs), some tiles left out, the
 * last segment cut to 2 keys when `bos`. Returns the segment count. */
static size_t skip_segs(hs_rng *r, size_t n, size_t first, int bos, size_t *seg) {
  size_t kept = some_tiles(r, n, first, seg);
  if (bos && seg[2 * kept - 1] > 2) seg[2 * kept - 1] = 2;
  return kept;
}

static size_t keys_of(size_t ns, const size_t *seg) {
  size_t m = 0;
  for (size_t t = 0; t < ns; t++) m += seg[2 * t + 1];
  return m;
}

static void run_row(const hs_kernels *kt, size_t ns, const size_t *seg, size_t dk,
                    const float *q, const float *k, size_t ldk, const float *v,
                    size_t ldv, float tau, float slope, int64_t d0,
                    hs_f32_online *st, float *acc) {
  if (slope != 0)
    kt->f32_attn_row_2pass_bias(ns, seg, dk, 1, q, k, ldk, v, ldv, tau, slope, d0, st, acc);
  else
    kt->f32_attn_row_2pass(ns, seg, dk, 1, q, k, ldk, v, ldv, tau, st, acc);
}

/* The row as the middle one of three in one f32_attn_rows_2pass call
 * (the first with the query negated, the last with no keys). */
static void run_in_rows(const hs_kernels *kt, size_t ns, const size_t *seg, size_t dk,
                        const float *q, const float *k, const float *v, float tau,
                        float slope, int64_t d0, hs_f32_online *st, float *acc) {
  float qq[3 * 4];
  hs_f32_online s3[3];
  float a3[3];
  for (size_t c = 0; c < dk; c++) qq[c] = -q[c], qq[dk + c] = q[c], qq[2 * dk + c] = q[c];
  size_t nseg[3] = {ns, ns, 0};
  const size_t *segs[3] = {seg, seg, seg};
  int64_t d[3] = {d0 + 1, d0, d0};
  kt->f32_attn_rows_2pass(3, nseg, segs, dk, 1, qq, dk, k, dk, v, 1, tau, slope, d, s3,
                          a3, 1);
  if (!(s3[2].max == -INFINITY && s3[2].sum == 0 && a3[2] == 0))
    fail_msg("%s: a row of no keys gave max %g sum %g acc %g", hs_isa_name(kt->isa),
             s3[2].max, s3[2].sum, a3[2]);
  *st = s3[1], *acc = a3[1];
}

/* The listed keys gathered into a dense problem, scored by the reference;
 * rows: the row computed by run_in_rows. */
static void check_reference(const hs_kernels *kt, size_t ns, const size_t *seg,
                            size_t dk, const float *q, const float *k,
                            const float *v, float tau, float slope, int64_t d0,
                            int rows) {
  hs_f32_online st;
  float acc;
  if (rows)
    run_in_rows(kt, ns, seg, dk, q, k, v, tau, slope, d0, &st, &acc);
  else
    run_row(kt, ns, seg, dk, q, k, dk, v, 1, tau, slope, d0, &st, &acc);
  size_t m = keys_of(ns, seg), j = 0;
  float *kk = malloc((m + 1) * dk * sizeof *kk), *vv = malloc((m + 1) * sizeof *vv);
  int64_t *pos = malloc((m + 1) * sizeof *pos);
  for (size_t t = 0; t < ns; t++)
    for (size_t i = seg[2 * t]; i < seg[2 * t] + seg[2 * t + 1]; i++, j++) {
      memcpy(kk + j * dk, k + i * dk, dk * sizeof *kk);
      vv[j] = v[i], pos[j] = d0 + (int64_t)i;
    }
  prob p = {m, dk, 1, dk, 1, q, kk, vv, tau};
  long double *s = malloc((m + 1) * sizeof *s), mref, smax, bmax = 0;
  ref_scores(&p, s, &mref, &smax);
  mref = -INFINITY;
  for (j = 0; j < m; j++) {
    long double b = (long double)slope * (long double)pos[j];
    s[j] += b;
    if (fabsl(b) > bmax) bmax = fabsl(b);
    if (s[j] > mref) mref = s[j];
  }
  /* |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc tau|, one rounding more
   * with the bias; weights within 2 |ds| + 4 u, sums (m/64 + 66) u (the
   * scalar kernel's bound, the loosest) */
  double ds = (dk / 4.0 + 5) * U * (double)smax + (slope != 0) * U * (double)(smax + bmax);
  if (!(fabsl(st.max - mref) <= ds + 1e-30))
    fail_msg("%s dk=%zu m=%zu: max %.9g ref %.9Lg", hs_isa_name(kt->isa), dk, m,
             st.max, mref);
  double E = 2 * ds + (m / 64.0 + 70) * U;
  long double sum, accr, absr;
  ref_weights(&p, s, st.max, &sum, &accr, &absr);
  if (!(fabsl(st.sum - sum) <= E * sum + m * 0x1p-126))
    fail_msg("%s dk=%zu m=%zu: sum %.9g ref %.9Lg", hs_isa_name(kt->isa), dk, m,
             st.sum, sum);
  if (!(fabsl(acc - accr) <= E * absr + 1e-30))
    fail_msg("%s dk=%zu m=%zu: acc %.9g ref %.9Lg", hs_isa_name(kt->isa), dk, m,
             acc, accr);
  free(kk), free(vv), free(pos), free(s);
}

static void test_reference(void **state) {
  (void)state;
  hs_rng r = {21};
  static const size_t ns[] = {1, 2, 9, 16, 17, 63, 64, 65, 130, 300};
  static const float slopes[] = {0.0f, -0.03f, 0.5f};
  HS_FOR_EACH_ISA(kt) {
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
      for (size_t dk = 1; dk <= 4; dk *= 2)
        for (size_t sl = 0; sl < sizeof slopes / sizeof *slopes; sl++) {
          size_t n = ns[i];
          float *q = hs_test_alloc(dk * sizeof(float)), *k = hs_test_alloc(n * dk * sizeof(float));
          float *v = hs_test_alloc(n * sizeof(float));
          for (size_t c = 0; c < dk; c++) q[c] = (float)hs_rng_uniform(&r, -3, 3);
          for (size_t j = 0; j < n * dk; j++) k[j] = (float)hs_rng_uniform(&r, -2, 2);
          for (size_t j = 0; j < n; j++) v[j] = (float)hs_rng_uniform(&r, -4, 4);
          size_t seg[2 * 16];
          for (size_t first = 0; first < 64; first += 23) {
            size_t nseg = skip_segs(&r, n, first, (int)(first % 2), seg);
            for (int rows = 0; rows < 2; rows++) {
              check_reference(kt, nseg, seg, dk, q, k, v, 1.0f, slopes[sl], -(int64_t)n,
                              rows);
              check_reference(kt, nseg, seg, dk, q, k, v, 0.3f, slopes[sl], 5, rows);
            }
          }
          free(q), free(k), free(v);
        }
  }
}

/* hs_pick in float (its values are exact in float). */
static float pick(hs_rng *r, int zeros) { return (float)hs_pick(r, zeros); }
static void same_bits(const hs_kernels *kt, size_t ns, const size_t *seg, size_t dk,
                      const float *q, const float *k, size_t ldk, const float *k2,
                      size_t ldk2, const float *v, const float *v2, float slope) {
  hs_f32_online a, b;
  float x, y;
  run_row(kt, ns, seg, dk, q, k, ldk, v, 1, 0.7f, slope, -40, &a, &x);
  run_row(kt, ns, seg, dk, q, k2, ldk2, v2, 2, 0.7f, slope, -40, &b, &y);
  if (memcmp(&a, &b, sizeof a) != 0 || memcmp(&x, &y, sizeof x) != 0)
    fail_msg("%s dk=%zu ldk=%zu/%zu slope=%g: max %a/%a sum %a/%a acc %a/%a",
             hs_isa_name(kt->isa), dk, ldk, ldk2, slope, a.max, b.max, a.sum,
             b.sum, x, y);
}

static void same_cut_bits(const hs_kernels *kt, hs_rng *r, size_t ns, const size_t *seg,
                          size_t dk, const float *q, const float *k, const float *v,
                          float slope) {
  size_t cut[2 * 64], whole[2 * 64];
  for (int join = 0; join < 2; join++) {
    size_t nc = recut(r, ns, seg, join, join ? whole : cut);
    hs_f32_online a, b;
    float x, y;
    run_row(kt, ns, seg, dk, q, k, dk, v, 1, 0.7f, slope, -40, &a, &x);
    run_row(kt, nc, join ? whole : cut, dk, q, k, dk, v, 1, 0.7f, slope, -40, &b, &y);
    if (memcmp(&a, &b, sizeof a) != 0 || memcmp(&x, &y, sizeof x) != 0)
      fail_msg("%s dk=%zu slope=%g %s: max %a/%a sum %a/%a acc %a/%a",
               hs_isa_name(kt->isa), dk, slope, join ? "joined" : "cut", a.max, b.max,
               a.sum, b.sum, x, y);
  }
}

static void test_general_bits(void **state) {
  (void)state;
  hs_rng r = {22};
  const size_t n = 400;
  HS_FOR_EACH_ISA(kt) {
    for (int rep = 0; rep < 60; rep++)
      for (size_t dk = 1; dk <= 4; dk *= 2) {
        int zeros = rep % 2;
        float q[4], *k = malloc(n * dk * sizeof *k), *kw = malloc(n * (dk + 1) * sizeof *kw);
        float *v = malloc(n * sizeof *v), *vw = malloc(2 * n * sizeof *vw);
        for (size_t c = 0; c < dk; c++) q[c] = pick(&r, zeros);
        for (size_t j = 0; j < n; j++) {
          for (size_t c = 0; c <= dk; c++) kw[j * (dk + 1) + c] = pick(&r, zeros);
          memcpy(k + j * dk, kw + j * (dk + 1), dk * sizeof *k);
          v[j] = vw[2 * j] = pick(&r, zeros), vw[2 * j + 1] = NAN;
        }
        float slope = rep % 3 == 0 ? 0.0f : rep % 3 == 1 ? -0.25f : 0.01f;
        size_t seg[2 * 16], ns = skip_segs(&r, n, (size_t)rep, rep % 4 == 0, seg);
        if (kt->isa == HS_ISA_AVX512) {
          same_cut_bits(kt, &r, ns, seg, dk, q, k, v, slope);
          free(k), free(kw), free(v), free(vw);
          continue;
        }
        /* the values spaced out: the general path's values */
        same_bits(kt, ns, seg, dk, q, k, dk, k, dk, v, vw, slope);
        /* segments shorter than any vector: every score from the general
         * tail code when the keys are spaced out */
        size_t short_seg[2 * 6], m = 0;
        for (size_t t = 0; t < 6; t++) {
          short_seg[2 * t] = m + (size_t)hs_rng_uniform(&r, 0, 30);
          short_seg[2 * t + 1] = 1 + (size_t)hs_rng_uniform(&r, 0, 7) % 7;
          m = short_seg[2 * t] + short_seg[2 * t + 1];
        }
        same_bits(kt, 6, short_seg, dk, q, k, dk, kw, dk + 1, v, vw, slope);
        free(k), free(kw), free(v), free(vw);
      }
  }
}

/* f32_attn_rows_2pass against f32_attn_row_2pass (or its _bias variant)
 * row by row, bit for bit: nr rows (more than a call's group, so the
 * groups split too) with their own queries, segment lists (re-cut at
 * random on AVX-512's lane path, dv = 1, which gives the same bits for
 * any cut of a row's keys; the one-row call's cut elsewhere), row 0 sometimes
 * without keys, keys of +-inf (rows of +inf max, NaN scores) among them,
 * queries and outputs spaced out (ldq, ldacc past the row), the floats
 * between the rows' outputs untouched; dv = 1 (the lane path's shape)
 * and dv = 3 (another shape). */
static void rows_case(const hs_kernels *kt, hs_rng *r, size_t nr, size_t dk, size_t dv,
                      float slope, int zeros) {
  const size_t n = 300, ldq = dk + 1, lda = dv + 2;
  float q[8 * 5], k[300 * 4], v[300 * 3], acc[8 * 5], ref[3];
  size_t seg[8][2 * 16], cut[8][2 * 64], nseg[8], ncut[8];
  const size_t *segs[8];
  int64_t d0[8];
  hs_f32_online st[8], rs;
  const int lanes = kt->isa == HS_ISA_AVX512 && dv == 1;
  for (size_t j = 0; j < n * dk; j++) k[j] = pick(r, zeros);
  for (size_t j = 0; j < n * dv; j++) v[j] = pick(r, zeros);
  if (hs_rng_uniform(r, 0, 1) < 0.3) k[(size_t)hs_rng_uniform(r, 0, n * dk - 1)] = INFINITY;
  if (hs_rng_uniform(r, 0, 1) < 0.2) k[(size_t)hs_rng_uniform(r, 0, n * dk - 1)] = -INFINITY;
  for (size_t i = 0; i < nr; i++) {
    for (size_t c = 0; c < ldq; c++) q[i * ldq + c] = pick(r, zeros);
    nseg[i] = i == 0 && hs_rng_uniform(r, 0, 1) < 0.3
                  ? 0
                  : skip_segs(r, n, (size_t)hs_rng_uniform(r, 0, 63), (int)(i % 2), seg[i]);
    ncut[i] = lanes ? recut(r, nseg[i], seg[i], (int)(i % 3 == 2), cut[i]) : nseg[i];
    if (!lanes) memcpy(cut[i], seg[i], sizeof seg[i]);
    segs[i] = cut[i];
    d0[i] = -(int64_t)(40 + i);
  }
  for (size_t j = 0; j < nr * lda; j++) acc[j] = 1234.5f;
  kt->f32_attn_rows_2pass(nr, ncut, segs, dk, dv, q, ldq, k, dk, v, dv, 0.7f, slope, d0, st,
                          acc, lda);
  for (size_t i = 0; i < nr; i++) {
    if (slope != 0)
      kt->f32_attn_row_2pass_bias(nseg[i], seg[i], dk, dv, q + i * ldq, k, dk, v, dv, 0.7f,
                                  slope, d0[i], &rs, ref);
    else
      kt->f32_attn_row_2pass(nseg[i], seg[i], dk, dv, q + i * ldq, k, dk, v, dv, 0.7f, &rs,
                             ref);
    if (memcmp(&rs, &st[i], sizeof rs) != 0 || memcmp(ref, acc + i * lda, dv * sizeof *ref) != 0)
      fail_msg("%s nr=%zu row %zu dk=%zu dv=%zu slope=%g: max %a/%a sum %a/%a acc0 %a/%a",
               hs_isa_name(kt->isa), nr, i, dk, dv, slope, st[i].max, rs.max, st[i].sum,
               rs.sum, acc[i * lda], ref[0]);
    for (size_t c = dv; c < lda; c++)
      if (acc[i * lda + c] != 1234.5f)
        fail_msg("%s nr=%zu row %zu: wrote past dv", hs_isa_name(kt->isa), nr, i);
  }
}

static void test_rows_bits(void **state) {
  (void)state;
  hs_rng r = {23};
  HS_FOR_EACH_ISA(kt) {
    for (int rep = 0; rep < 40; rep++)
      for (size_t nr = 1; nr <= 8; nr++)
        for (size_t dk = 1; dk <= 4; dk *= 2) {
          float slope = rep % 3 == 0 ? 0.0f : rep % 3 == 1 ? -0.25f : 0.01f;
          rows_case(kt, &r, nr, dk, rep % 4 == 3 ? 3 : 1, slope, rep % 2);
        }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference),
      cmocka_unit_test(test_general_bits),
      cmocka_unit_test(test_rows_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
