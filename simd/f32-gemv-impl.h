/* SPDX-License-Identifier: MIT */
/* f32 matrix-vector product y = A x written once over the vector
 * vocabulary (vec-f32-*.h, included first): 4 rows at a time share each
 * load of x, k in chunks of VF_LANES with a zero-filled last chunk
 * (nothing past a row is read), each row's lanes reduced by vf_hsum.
 * Error per row: |y_r - y*_r| <= (k/VF_LANES + log2 VF_LANES) u
 * sum_c |a_rc x_c| with a fused vf_fma, + u without (wasm128); u = 2^-24. */
#ifndef HS_F32_GEMV_IMPL_H
#define HS_F32_GEMV_IMPL_H

/* y[0..nr) for the rows a0..a3 (nr <= 4; the unused ones repeat a row) */
static inline void hs_f32_gemv_rows4_impl(size_t k, const float *a0, const float *a1,
                                          const float *a2, const float *a3,
                                          const float *x, float *y, size_t nr) {
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
    const size_t t = k - c;
    const vf xv = vf_load_tail(x + c, t);
    s0 = vf_fma(vf_load_tail(a0 + c, t), xv, s0);
    s1 = vf_fma(vf_load_tail(a1 + c, t), xv, s1);
    s2 = vf_fma(vf_load_tail(a2 + c, t), xv, s2);
    s3 = vf_fma(vf_load_tail(a3 + c, t), xv, s3);
  }
  const float r[4] = {vf_hsum(s0), vf_hsum(s1), vf_hsum(s2), vf_hsum(s3)};
  for (size_t i = 0; i < nr; i++) y[i] = r[i];
}

static inline void hs_f32_gemv_impl(size_t m, size_t k, const float *a, size_t lda,
                                    const float *x, float *y) {
  size_t r = 0;
  for (; r + 4 <= m; r += 4) {
    const float *ar = a + r * lda;
    hs_f32_gemv_rows4_impl(k, ar, ar + lda, ar + 2 * lda, ar + 3 * lda, x, y + r, 4);
  }
  if (r < m) {
    /* 1..3 rows left: repeat the last row, keep only the real results */
    const float *ar = a + r * lda, *al = a + (m - 1) * lda;
    hs_f32_gemv_rows4_impl(k, ar, r + 1 < m ? ar + lda : al,
                           r + 2 < m ? ar + 2 * lda : al, al, x, y + r, m - r);
  }
}

#endif
