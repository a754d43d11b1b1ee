/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AVX2 + FMA, 8 outputs per register, 8 rows
 * (or 4 rows x 16 outputs) per step: gemm-panel-impl.h over this ISA's
 * vocabulary (its comment has the blocking and the error bound,
 * (k + 1) u sum_c |x_ic a_rc|). f32_gemm and, on packed weights with the
 * fused epilogue, f32_gemm_pk. */
#include "vec-f32-avx2.h"
#include "gemm-panel-impl.h"

HS_DEFINE_GEMM(hs_f32_gemm_ukernel__avx2_panel)
HS_DEFINE_GEMM_PK(hs_f32_gemm_pk_ukernel__avx2_panel)
