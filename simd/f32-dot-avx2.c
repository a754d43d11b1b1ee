/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

float hs_f32_dot_ukernel__avx2(size_t n, const float *a, const float *b) { float s = 0; for (size_t i = 0; i < n; i++) s += a[i] * b[i]; return s; }
