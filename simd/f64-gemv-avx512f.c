/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

void hs_f64_gemv_ukernel__avx512f(size_t m, size_t k, const double *a, size_t lda, const double *x, double *y) { for (size_t r = 0; r < m; r++) { double s = 0; for (size_t c = 0; c < k; c++) s += a[r * lda + c] * x[c]; y[r] = s; } }
