/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

void hs_f32_softmax_ukernel__scalar_rr2_p5(size_t n, const float *x, float *y, float inv_tau) {
  float m = -INFINITY; for (size_t i = 0; i < n; i++) { float s = x[i] * inv_tau; if (s > m) m = s; }
  if (m == -INFINITY) { for (size_t i = 0; i < n; i++) y[i] = 0; return; }
  double sum = 0; for (size_t i = 0; i < n; i++) { y[i] = expf(x[i] * inv_tau - m); sum += y[i]; }
  float r = (float)(1.0 / sum); for (size_t i = 0; i < n; i++) y[i] *= r; }
