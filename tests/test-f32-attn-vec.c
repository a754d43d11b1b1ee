/* SPDX-License-Identifier: MIT */
/* The vocabulary-only attention blocks (simd/attn-f32-blocks-vec.h), which
 * an ISA without blocks of its own instantiates the two-pass row kernel
 * with: here over the AVX2 vocabulary (this file is compiled for AVX2 by a
 * pragma and runs only where the CPU has it), against a double reference
 * of softmax(q.k tau + slope (d0 + j)) v over two key segments, for dk in
 * 0..12, dv in 1..40, strided and contiguous rows, with and without the
 * bias. The bound checked, 1e-5 relative to the row's weight sum, is far
 * above the kernel's first-order bound for these sizes and far below any
 * real error (a lost key or a wrong column). */
#pragma GCC target("avx2,fma")
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hardsoft.h"
#include "vec-f32-avx2.h"
#include "f32-exp-rr2-p5-vec.h"
#include "ukernels.h"
#define BLK 64
#include "attn-f32-blocks-vec.h"
#include "f32-attn-row-2pass-rr2-p5-impl.h"

HS_DEFINE_F32_ATTN_ROW_2PASS(vec_2pass, vec_2pass_bias)

static float frand(double lo, double hi) {
  return (float)(lo + (hi - lo) * (rand() / (double)RAND_MAX));
}

int main(void) {
  if (!hs_isa_supported(HS_ISA_AVX2)) {
    puts("SKIP test-f32-attn-vec: no AVX2 on this CPU");
    return 77;
  }
  srand(3);
  double worst = 0;
  for (int trial = 0; trial < 400; trial++) {
    const size_t n = 1 + (size_t)(rand() % 700), dk = (size_t)(rand() % 13);
    const size_t dv = 1 + (size_t)(rand() % 40);
    const size_t ldk = dk + (size_t)(rand() % 3), ldv = dv + (size_t)(rand() % 2);
    const int bias = trial & 1;
    const float slope = bias ? -0.01f * (float)(rand() % 10) : 0.0f, tau = 0.7f;
    const int64_t d0 = 5;
    float q[16], *k = malloc(sizeof(float) * (n * ldk + 1));
    float *v = malloc(sizeof(float) * (n * ldv + 1));
    for (size_t i = 0; i < 16; i++) q[i] = frand(-2, 2);
    for (size_t i = 0; i < n * ldk; i++) k[i] = frand(-2, 2);
    for (size_t i = 0; i < n * ldv; i++) v[i] = frand(-0.5, 0.5);
    const size_t seg[4] = {0, n / 3, n / 2, n - n / 2};
    hs_f32_online st;
    float acc[64];
    if (bias) vec_2pass_bias(2, seg, dk, dv, q, k, ldk, v, ldv, tau, slope, d0, &st, acc);
    else vec_2pass(2, seg, dk, dv, q, k, ldk, v, ldv, tau, &st, acc);
    double s[1400], m = -INFINITY, sum = 0, a[64] = {0};
    size_t at[1400], cnt = 0;
    for (int t = 0; t < 2; t++)
      for (size_t j = seg[2 * t]; j < seg[2 * t] + seg[2 * t + 1]; j++) {
        double d = 0;
        for (size_t c = 0; c < dk; c++) d += (double)q[c] * tau * k[j * ldk + c];
        d += (double)slope * (double)(d0 + (int64_t)j);
        s[cnt] = d, at[cnt++] = j;
        if (d > m) m = d;
      }
    for (size_t i = 0; i < cnt; i++) {
      const double e = exp(s[i] - m);
      sum += e;
      for (size_t c = 0; c < dv; c++) a[c] += e * v[at[i] * ldv + c];
    }
    double err = fabs(st.sum * exp(st.max - m) - sum) / sum;
    for (size_t c = 0; c < dv; c++) {
      const double r = fabs(acc[c] / st.sum - a[c] / sum);
      if (r > err) err = r;
    }
    if (err > worst) worst = err;
    free(k);
    free(v);
  }
  printf("test-f32-attn-vec: worst relative error %.3g (bound 1e-5)\n", worst);
  return worst <= 1e-5 ? 0 : 1;
}
