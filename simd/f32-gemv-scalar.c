/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

void hs_f32_gemv_ukernel__scalar(size_t m, size_t k, const float *a, size_t lda, const float *x, float *y) { for (size_t r = 0; r < m; r++) { float s = 0; for (size_t c = 0; c < k; c++) s += a[r * lda + c] * x[c]; y[r] = s; } }
