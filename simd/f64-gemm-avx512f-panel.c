/* SPDX-License-Identifier: MIT */
/* f64 batch of gemv, Y = X A^T, AVX-512F, 8 outputs per register, 4 rows
 * x 16 outputs per step (8 rows x 8 for a panel of at most 8):
 * gemm-panel-impl.h over the f64 vocabulary (its comment has the blocking
 * and the error bound, (k + 1) u sum_c |x_ic a_rc|, u = 2^-53).
 * f64_gemm and f64_gemm_pk. */
#include "vec-f64-avx512f.h"
#include "vec-f64-as-vf.h"
#include "gemm-panel-impl.h"

HS_DEFINE_GEMM(hs_f64_gemm_ukernel__avx512f_panel)
HS_DEFINE_GEMM_PK(hs_f64_gemm_pk_ukernel__avx512f_panel)
