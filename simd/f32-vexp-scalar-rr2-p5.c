/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

void hs_f32_vexp_ukernel__scalar_rr2_p5(size_t n, const float *x, float *y) { for (size_t i = 0; i < n; i++) y[i] = expf(x[i]); }
