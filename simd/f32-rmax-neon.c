/* SPDX-License-Identifier: MIT */
/* f32 rmax, AArch64 NEON (4 lanes): the algorithm and its exactness are
 * in f32-rmax-impl.h, instantiated here with the NEON vocabulary. */
#include "vec-f32-neon.h"
#include "f32-rmax-impl.h"

float hs_f32_rmax_ukernel__neon(size_t n, const float *x) { return hs_f32_rmax_impl(n, x); }
