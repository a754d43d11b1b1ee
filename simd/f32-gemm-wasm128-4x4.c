/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, WebAssembly SIMD128, 4 rows x 4 outputs
 * per step: f32-gemm-4xv-impl.h over the wasm128 vocabulary (its comment
 * has the blocking and the error bound; without a fused multiply-add each
 * term rounds twice, 2k u sum_c |x_ic a_rc|). */
#include "vec-f32-wasm128.h"
#include "f32-gemm-4xv-impl.h"

HS_DEFINE_F32_GEMM_4XV(hs_f32_gemm_ukernel__wasm128_4x4)
