/* SPDX-License-Identifier: MIT */
/* Matrix-vector product y = A x written once over the vector vocabulary,
 * for both precisions (vec-f32-<isa>.h, or vec-f64-<isa>.h then
 * vec-f64-as-vf.h, included first): 4 rows at a time share each load of
 * x, k in chunks of VF_LANES with a zero-filled last chunk (nothing past a
 * row is read), the 4 rows' lanes reduced together by vf_hsum4 (each row
 * in a fixed order of the ISA's). Each row's sum is the same sequence
 * whichever rows share its group, so 1..3 rows left over repeat the last
 * row rather than take a path of their own.
 * Error per row: |y_r - y*_r| <= (k/VF_LANES + log2 VF_LANES) u
 * sum_c |a_rc x_c| with a fused vf_fma, + u without (wasm128); u = 2^-24
 * (f32) or 2^-53 (f64). */
#ifndef HS_GEMV_IMPL_H
#define HS_GEMV_IMPL_H

#ifndef HS_VF_T
#define HS_VF_T float
#endif

/* y[0..nr) for the rows a0..a3 (nr <= 4; the unused ones repeat a row) */
HS_ALWAYS_INLINE void hs_gemv_rows4_impl(size_t k, const HS_VF_T *a0, const HS_VF_T *a1,
                                      const HS_VF_T *a2, const HS_VF_T *a3,
                                      const HS_VF_T *x, vmask mt, HS_VF_T *y,
                                      size_t nr) {
  vf s0 = vf_zero(), s1 = s0, s2 = s0, s3 = s0;
  size_t c = 0;
  for (; c + VF_LANES <= k; c += VF_LANES) {
    const vf xv = vf_loadu(x + c);
    s0 = vf_fma(vf_loadu(a0 + c), xv, s0);
    s1 = vf_fma(vf_loadu(a1 + c), xv, s1);
    s2 = vf_fma(vf_loadu(a2 + c), xv, s2);
    s3 = vf_fma(vf_loadu(a3 + c), xv, s3);
  }
  if (c < k) {
    const vf xv = vf_load_masked(x + c, mt);
    s0 = vf_fma(vf_load_masked(a0 + c, mt), xv, s0);
    s1 = vf_fma(vf_load_masked(a1 + c, mt), xv, s1);
    s2 = vf_fma(vf_load_masked(a2 + c, mt), xv, s2);
    s3 = vf_fma(vf_load_masked(a3 + c, mt), xv, s3);
  }
  if (nr == 4) {
    vf_hsum4(s0, s1, s2, s3, y);
  } else {
    HS_VF_T r[4];
    vf_hsum4(s0, s1, s2, s3, r);
    for (size_t i = 0; i < nr; i++) y[i] = r[i];
  }
}

static inline void hs_gemv_impl(size_t m, size_t k, const HS_VF_T *a, size_t lda,
                                const HS_VF_T *x, HS_VF_T *y) {
  /* the last chunk's mask, made once */
  const vmask mt = vmask_first(k % VF_LANES);
  size_t r = 0;
  for (; r + 4 <= m; r += 4) {
    const HS_VF_T *ar = a + r * lda;
    hs_gemv_rows4_impl(k, ar, ar + lda, ar + 2 * lda, ar + 3 * lda, x, mt, y + r, 4);
  }
  /* 1..3 rows left: the last row repeated, only the real results kept;
   * nr a constant in each call, so that a reduction row by row (AVX-512)
   * drops the rows not kept */
  const HS_VF_T *ar = a + r * lda, *al = a + (m - 1) * lda;
  if (m - r == 1) hs_gemv_rows4_impl(k, ar, ar, ar, ar, x, mt, y + r, 1);
  if (m - r == 2) hs_gemv_rows4_impl(k, ar, ar + lda, al, al, x, mt, y + r, 2);
  if (m - r == 3) hs_gemv_rows4_impl(k, ar, ar + lda, ar + 2 * lda, al, x, mt, y + r, 3);
}

#endif
