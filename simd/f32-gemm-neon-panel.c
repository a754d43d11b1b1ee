/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AArch64 NEON, 4 outputs per register:
 * gemm-panel-impl.h over the NEON vocabulary (its comment has the
 * blocking and the error bound, (k + 1) u sum_c |x_ic a_rc|). f32_gemm
 * and, on packed weights with the fused epilogue, f32_gemm_pk. */
#include "vec-f32-neon.h"
#include "gemm-panel-impl.h"

HS_DEFINE_GEMM(hs_f32_gemm_ukernel__neon_panel)
HS_DEFINE_GEMM_PK(hs_f32_gemm_pk_ukernel__neon_panel)
