/* SPDX-License-Identifier: MIT */
/* f64_attn_rows_2pass (every ISA this CPU runs), which takes several rows
 * of one head per call, bit for bit the one-row f64_attn_row_2pass's rows
 * (tests/test-f64-2pass.c checks that one against a long double
 * reference): nr rows, more than a call's group of 4, so the groups split
 * too; each row its own query and segment list (a few tiles of the
 * skipping path's shape, some left out, sometimes none at all); keys of
 * +-inf among them (rows of +inf max, NaN scores), signed zeros, and a
 * large inv_tau in some cases, so that whole tiles weigh exactly +0;
 * queries and outputs spaced out (ldq, ldacc past the row) with the
 * doubles between the rows' outputs untouched; contiguous keys with dk in
 * {1, 2, 4, 8} and dv = 1 (the lane paths, AVX-512's for dk 1 to 8 and
 * AVX2's for dk 1 to 4, which also get each row's segments re-cut at
 * random points or joined where they touch: their bits do not depend on
 * the cut) and dk = 3 or dv = 3 (the other paths). */
#include "common.h"

static void rows_case(const hs_kernels *kt, hs_rng *r, size_t nr, size_t dk, size_t dv,
                      double tau, int zeros) {
  enum { N = 300, MR = 9 };
  const size_t ldq = dk + 1, lda = dv + 2;
  double q[MR * 9], k[N * 8], v[N * 3], acc[MR * 5], ref[3];
  size_t seg[MR][2 * 16], cut[MR][2 * 96], nseg[MR], ncut[MR];
  const size_t *segs[MR];
  hs_f64_online st[MR], rs;
  const int lanes = dv == 1 && ((kt->isa == HS_ISA_AVX512 && dk != 3) ||
                                 (kt->isa == HS_ISA_AVX2 && dk <= 4 && dk != 3));
  for (size_t j = 0; j < N * dk; j++) k[j] = hs_pick(r, zeros);
  for (size_t j = 0; j < N * dv; j++) v[j] = hs_pick(r, zeros);
  if (hs_rng_uniform(r, 0, 1) < 0.3) k[(size_t)hs_rng_uniform(r, 0, N * dk - 1)] = INFINITY;
  if (hs_rng_uniform(r, 0, 1) < 0.2) k[(size_t)hs_rng_uniform(r, 0, N * dk - 1)] = -INFINITY;
  for (size_t i = 0; i < nr; i++) {
    for (size_t c = 0; c < ldq; c++) q[i * ldq + c] = hs_pick(r, zeros);
    nseg[i] = i == 0 && hs_rng_uniform(r, 0, 1) < 0.3
                  ? 0
                  : some_tiles(r, N, (size_t)hs_rng_uniform(r, 0, 63), seg[i]);
    ncut[i] = lanes ? recut(r, nseg[i], seg[i], (int)(i % 3 == 2), cut[i]) : nseg[i];
    if (!lanes) memcpy(cut[i], seg[i], sizeof seg[i]);
    segs[i] = cut[i];
  }
  for (size_t j = 0; j < nr * lda; j++) acc[j] = 1234.5;
  kt->f64_attn_rows_2pass(nr, ncut, segs, dk, dv, q, ldq, k, dk, v, dv, tau, st, acc, lda);
  for (size_t i = 0; i < nr; i++) {
    kt->f64_attn_row_2pass(nseg[i], seg[i], dk, dv, q + i * ldq, k, dk, v, dv, tau, &rs,
                           ref);
    if (memcmp(&rs, &st[i], sizeof rs) != 0 || memcmp(ref, acc + i * lda, dv * sizeof *ref) != 0)
      fail_msg("%s nr=%zu row %zu dk=%zu dv=%zu tau=%g: max %a/%a sum %a/%a acc0 %a/%a",
               hs_isa_name(kt->isa), nr, i, dk, dv, tau, st[i].max, rs.max, st[i].sum,
               rs.sum, acc[i * lda], ref[0]);
    for (size_t c = dv; c < lda; c++)
      if (acc[i * lda + c] != 1234.5)
        fail_msg("%s nr=%zu row %zu: wrote past dv", hs_isa_name(kt->isa), nr, i);
  }
}

static void test_rows_bits(void **state) {
  (void)state;
  static const size_t dks[] = {1, 2, 3, 4, 8};
  hs_rng r = {29};
  HS_FOR_EACH_ISA(kt) {
    for (int rep = 0; rep < 30; rep++)
      for (size_t nr = 1; nr <= 9; nr++)
        for (size_t d = 0; d < sizeof dks / sizeof *dks; d++) {
          /* tau 40: scores hundreds apart, whole tiles of +0 weights */
          double tau = rep % 3 == 2 ? 40.0 : 0.7;
          rows_case(kt, &r, nr, dks[d], rep % 4 == 3 ? 3 : 1, tau, rep % 2);
        }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
