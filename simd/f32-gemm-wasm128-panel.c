/* SPDX-License-Identifier: MIT */
/* f32 batch of gemv, Y = X A^T, WebAssembly SIMD128, 4 outputs per
 * register: gemm-panel-impl.h over the wasm128 vocabulary (its comment
 * has the blocking and the error bound; without a fused multiply-add each
 * term rounds twice, 2k u sum_c |x_ic a_rc|). f32_gemm and f32_gemm_pk. */
#include "vec-f32-wasm128.h"
#include "gemm-panel-impl.h"

HS_DEFINE_GEMM(hs_f32_gemm_ukernel__wasm128_panel)
HS_DEFINE_GEMM_PK(hs_f32_gemm_pk_ukernel__wasm128_panel)
