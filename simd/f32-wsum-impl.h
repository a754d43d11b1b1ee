/* SPDX-License-Identifier: MIT */
/* f32 weighted row sum acc[c] += sum_j w[j] v[j*ldv + c] written once over
 * the vector vocabulary (vec-f32-*.h, included first). Columns in chunks
 * of VF_LANES (the last one zero-filled: nothing past a row is read or
 * written); per chunk, rows go to 4 accumulators (j mod 4) that hide the
 * latency, summed per block of 64 rows before joining the total.
 * Error: |acc_c - acc*_c| <= (n/64 + 19) u (|acc_c| + sum_j |w_j v_jc|)
 * with a fused vf_fma, + u without (wasm128); u = 2^-24. */
#ifndef HS_F32_WSUM_IMPL_H
#define HS_F32_WSUM_IMPL_H

/* total + sum_{j<n} w[j] * v_j[0..VF_LANES), or (full == 0) its lanes of
 * m, the others read as 0; full a constant in each call, m made once */
HS_ALWAYS_INLINE vf hs_f32_wsum_chunk_impl(size_t n, const float *w, const float *v,
                                           size_t ldv, int full, vmask m, vf total) {
#define HS_WSUM_LD(j) (full ? vf_loadu(v + (j) * ldv) : vf_load_masked(v + (j) * ldv, m))
#define HS_WSUM_STEP(a, j) a = vf_fma(vf_load1(w + (j)), HS_WSUM_LD(j), a)
  for (size_t j0 = 0; j0 < n; j0 += 64) {
    const size_t j1 = n - j0 < 64 ? n : j0 + 64;
    vf a0 = vf_zero(), a1 = a0, a2 = a0, a3 = a0;
    size_t j = j0;
    for (; j + 4 <= j1; j += 4) {
      HS_WSUM_STEP(a0, j); HS_WSUM_STEP(a1, j + 1);
      HS_WSUM_STEP(a2, j + 2); HS_WSUM_STEP(a3, j + 3);
    }
    for (; j < j1; j++) HS_WSUM_STEP(a0, j);
    /* block sum joins the running total */
    total = vf_add(total, vf_add(vf_add(a0, a1), vf_add(a2, a3)));
  }
#undef HS_WSUM_STEP
#undef HS_WSUM_LD
  return total;
}

HS_ALWAYS_INLINE void hs_f32_wsum_impl(size_t n, size_t d, const float *w,
                                      const float *v, size_t ldv, float *acc) {
  size_t c = 0;
  const vmask none = vmask_first(0);
  for (; c + VF_LANES <= d; c += VF_LANES)
    vf_storeu(acc + c, hs_f32_wsum_chunk_impl(n, w, v + c, ldv, 1, none, vf_loadu(acc + c)));
  if (c < d) {
    const vmask m = vmask_first(d - c);
    vf_store_tail(acc + c,
                  hs_f32_wsum_chunk_impl(n, w, v + c, ldv, 0, m, vf_load_masked(acc + c, m)),
                  d - c);
  }
}

#endif
