/* SPDX-License-Identifier: MIT */
/* y[i] = exp(x[i]), AVX-512F, rr2-p5: max error 2 ULP (measured on every
 * float in the normal range: see tests/test-exp-exhaustive.c). The
 * algorithm is f32-vexp-rr2-p5-impl.h over this ISA's vocabulary. */
#include "vec-f32-avx512f.h"
#include "f32-exp-rr2-p5-vec.h"
#include "f32-vexp-rr2-p5-impl.h"

HS_DEFINE_F32_VEXP(hs_f32_vexp_ukernel__avx512f_rr2_p5)
