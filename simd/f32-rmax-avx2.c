/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

float hs_f32_rmax_ukernel__avx2(size_t n, const float *x) { float m = -INFINITY; for (size_t i = 0; i < n; i++) { if (isnan(x[i])) return x[i]; if (x[i] > m) m = x[i]; } return m; }
