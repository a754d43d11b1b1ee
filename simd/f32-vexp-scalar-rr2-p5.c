/* SPDX-License-Identifier: MIT */
/* y[i] = exp(x[i]), portable C, rr2-p5: max error 2.5 ULP (measured on
 * every float in the normal range, 2.26 ULP: see
 * tests/test-exp-exhaustive.c).
 *
 * The same algorithm as the AVX2 and AVX-512 kernels, without FMA (see
 * f32-exp-scalar-rr2-p5.h for the steps and the exact range rules:
 * x < -0x1.5D589Ep6 -> +0, x > 0x1.62E42Ep6 -> +inf, NaN -> NaN, no
 * subnormal intermediate). It is the honest scalar baseline, not libm.
 * x and y may alias exactly. */
#include "f32-exp-scalar-rr2-p5.h"
#include "ukernels.h"

void hs_f32_vexp_ukernel__scalar_rr2_p5(size_t n, const float *x, float *y) {
  /* two independent elements per iteration keep both FP pipes busy */
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const float x0 = x[i];
    const float x1 = x[i + 1];
    y[i] = hs_f32_exp_scalar_rr2_p5(x0);
    y[i + 1] = hs_f32_exp_scalar_rr2_p5(x1);
  }
  if (i < n) y[i] = hs_f32_exp_scalar_rr2_p5(x[i]);
}
