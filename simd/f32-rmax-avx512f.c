/* SPDX-License-Identifier: MIT */
/* max of x[0..n), AVX-512F: the algorithm and its contract (NaN, -inf, n = 0)
 * are in f32-rmax-impl.h, instantiated here with the avx512f vocabulary. */
#include "vec-f32-avx512f.h"
#include "f32-rmax-impl.h"

float hs_f32_rmax_ukernel__avx512f(size_t n, const float *x) { return hs_f32_rmax_impl(n, x); }
