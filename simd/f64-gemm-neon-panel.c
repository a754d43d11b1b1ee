/* SPDX-License-Identifier: MIT */
/* f64 batch of gemv, Y = X A^T, AArch64 NEON, 2 outputs per register:
 * gemm-panel-impl.h over the f64 vocabulary (its comment has the blocking
 * and the error bound, (k + 1) u sum_c |x_ic a_rc|, u = 2^-53). f64_gemm
 * and f64_gemm_pk. */
#include "vec-f64-neon.h"
#include "vec-f64-as-vf.h"
#include "gemm-panel-impl.h"

HS_DEFINE_GEMM(hs_f64_gemm_ukernel__neon_panel)
HS_DEFINE_GEMM_PK(hs_f64_gemm_pk_ukernel__neon_panel)
