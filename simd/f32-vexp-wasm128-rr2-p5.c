/* SPDX-License-Identifier: MIT */
/* y[i] = exp(x[i]), WebAssembly SIMD128, rr2-p5: f32-vexp-rr2-p5-impl.h
 * over the wasm128 vocabulary. Without a fused multiply-add every step
 * rounds separately, as in the scalar kernel: max error 2.5 ULP (the
 * scalar bound; tests/test-f32-exp.c checks it under node). */
#include "vec-f32-wasm128.h"
#include "f32-exp-rr2-p5-vec.h"
#include "f32-vexp-rr2-p5-impl.h"

HS_DEFINE_F32_VEXP(hs_f32_vexp_ukernel__wasm128_rr2_p5)
