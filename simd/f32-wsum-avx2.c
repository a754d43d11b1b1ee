/* PLACEHOLDER (naive, libm): to be replaced by the real kernel. */
#include <math.h>
#include "ukernels.h"

void hs_f32_wsum_ukernel__avx2(size_t n, size_t d, const float *w, const float *v, size_t ldv, float *acc) { for (size_t j = 0; j < n; j++) for (size_t c = 0; c < d; c++) acc[c] += w[j] * v[j * ldv + c]; }
