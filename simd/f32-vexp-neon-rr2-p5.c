/* SPDX-License-Identifier: MIT */
/* y[i] = exp(x[i]), AArch64 NEON (4 lanes, fused multiply-add), rr2-p5:
 * f32-vexp-rr2-p5-impl.h over this ISA's vocabulary, the AVX2 kernel's
 * algorithm and 2 ULP bound. */
#include "vec-f32-neon.h"
#include "f32-exp-rr2-p5-vec.h"
#include "f32-vexp-rr2-p5-impl.h"

HS_DEFINE_F32_VEXP(hs_f32_vexp_ukernel__neon_rr2_p5)
