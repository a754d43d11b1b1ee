/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, AVX2 + FMA, 4 rows x 8 outputs per step:
 * f32-gemm-4xv-impl.h over this ISA's vocabulary (its comment has the
 * blocking and the error bound, (k + 1) u sum_c |x_ic a_rc|). */
#include "vec-f32-avx2.h"
#include "f32-gemm-4xv-impl.h"

HS_DEFINE_F32_GEMM_4XV(hs_f32_gemm_ukernel__avx2_4x8)
