/* SPDX-License-Identifier: MIT */
/* The f32 vector vocabulary for WebAssembly SIMD128: 4 lanes of float in a
 * v128_t. A kernel written once over these names (simd/<op>-impl.h) is
 * compiled for wasm128 by including this header first; the AVX headers
 * define the same names with 8 and 16 lanes.
 *
 * Semantics every header keeps, so one algorithm gives the same results
 * on every ISA:
 *   vf_max(a, b) / vf_min(a, b) are x86's maxps/minps: a > b ? a : b
 *     (a < b ? a : b), so a NaN in either operand gives b, and of +0 and
 *     -0 the second. SIMD128 has that operation as pmax/pmin with the
 *     operands swapped (pmax(b, a) = b < a ? a : b), and an engine on x86
 *     runs it as one maxps, where f32x4.max would need a NaN fix-up.
 *   vf_fma(a, b, c) is a*b + c with TWO roundings here: SIMD128 has no
 *     fused multiply-add (relaxed-SIMD's madd may or may not fuse, so it
 *     would make results depend on the engine). Error bounds of wasm128
 *     kernels count the extra rounding; the scalar kernels have the same.
 *   vf_hsum / vf_hmax reduce in a fixed order: (l0 + l2) + (l1 + l3).
 *   compares are false when either lane is NaN; vf_isnan is true there.
 *
 * Include it only from a file compiled with -msimd128 (the wasm128 files,
 * which the Makefile builds only in the SIMD128 WebAssembly library). */
/* The same guard in every vec-f32-*.h: a file includes exactly one. */
#ifndef HS_VEC_F32_H
#define HS_VEC_F32_H

#ifndef __wasm_simd128__
#error "vec-f32-wasm128.h needs -msimd128"
#endif

#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

#include "ukernels.h"

typedef v128_t vf;
typedef v128_t vmask; /* all-ones or all-zeros per 32-bit lane */
#define VF_LANES 4
#define VF_ALIGN 16


HS_ALWAYS_INLINE vf vf_zero(void) { return wasm_f32x4_splat(0.0f); }
HS_ALWAYS_INLINE vf vf_set1(float v) { return wasm_f32x4_splat(v); }
/* v in lane 0, +0 in the others */
HS_ALWAYS_INLINE vf vf_first(float v) { return wasm_f32x4_make(v, 0.0f, 0.0f, 0.0f); }
HS_ALWAYS_INLINE vf vf_loadu(const float *p) { return wasm_v128_load(p); }
/* *p in every lane */
HS_ALWAYS_INLINE vf vf_load1(const float *p) { return wasm_v128_load32_splat(p); }
HS_ALWAYS_INLINE void vf_storeu(float *p, vf v) { wasm_v128_store(p, v); }

/* n < VF_LANES floats, the other lanes 0; nothing past p[n-1] is read
 * (zero-extending 32- and 64-bit loads, not a copy through memory: a
 * kernel may take this path once per key when rows are narrow) */
HS_ALWAYS_INLINE vf vf_load_tail(const float *p, size_t n) {
  switch (n) {
    case 1: return wasm_v128_load32_zero(p);
    case 2: return wasm_v128_load64_zero(p);
    case 3: return wasm_f32x4_replace_lane(wasm_v128_load64_zero(p), 2, p[2]);
    default: return wasm_f32x4_splat(0.0f);
  }
}
/* the first n < VF_LANES lanes; nothing past p[n-1] is written */
HS_ALWAYS_INLINE void vf_store_tail(float *p, vf v, size_t n) {
  if (n & 2) wasm_v128_store64_lane(p, v, 0);
  if (n == 1) wasm_v128_store32_lane(p, v, 0);
  if (n == 3) wasm_v128_store32_lane(p + 2, v, 2);
}

HS_ALWAYS_INLINE vf vf_add(vf a, vf b) { return wasm_f32x4_add(a, b); }
HS_ALWAYS_INLINE vf vf_sub(vf a, vf b) { return wasm_f32x4_sub(a, b); }
HS_ALWAYS_INLINE vf vf_mul(vf a, vf b) { return wasm_f32x4_mul(a, b); }
HS_ALWAYS_INLINE vf vf_max(vf a, vf b) { return wasm_f32x4_pmax(b, a); }
HS_ALWAYS_INLINE vf vf_min(vf a, vf b) { return wasm_f32x4_pmin(b, a); }
HS_ALWAYS_INLINE vf vf_fma(vf a, vf b, vf c) {
  return wasm_f32x4_add(wasm_f32x4_mul(a, b), c);
}

HS_ALWAYS_INLINE float vf_hsum(vf v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}
HS_ALWAYS_INLINE void vf_hsum4(vf a, vf b, vf c, vf d, float *r) {
  r[0] = vf_hsum(a), r[1] = vf_hsum(b), r[2] = vf_hsum(c), r[3] = vf_hsum(d);
}
HS_ALWAYS_INLINE float vf_hmax(vf v) {
  v = vf_max(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = vf_max(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

HS_ALWAYS_INLINE vmask vf_cmpgt(vf a, vf b) { return wasm_f32x4_gt(a, b); }
HS_ALWAYS_INLINE vmask vf_cmplt(vf a, vf b) { return wasm_f32x4_lt(a, b); }
HS_ALWAYS_INLINE vmask vf_cmple(vf a, vf b) { return wasm_f32x4_le(a, b); }
HS_ALWAYS_INLINE vmask vf_cmpeq(vf a, vf b) { return wasm_f32x4_eq(a, b); }
HS_ALWAYS_INLINE vmask vf_isnan(vf a) { return wasm_f32x4_ne(a, a); }
HS_ALWAYS_INLINE vf vf_select(vmask m, vf a_if_true, vf b_else) {
  return wasm_v128_bitselect(a_if_true, b_else, m);
}
HS_ALWAYS_INLINE vmask vmask_or(vmask a, vmask b) { return wasm_v128_or(a, b); }
HS_ALWAYS_INLINE vmask vf_isunord(vf a, vf b) { return vmask_or(vf_isnan(a), vf_isnan(b)); }
HS_ALWAYS_INLINE int vmask_any(vmask m) { return wasm_v128_any_true(m); }
HS_ALWAYS_INLINE unsigned vmask_bits(vmask m) { return (unsigned)wasm_i32x4_bitmask(m); }
/* lanes 0 .. n-1 (n <= VF_LANES) */
HS_ALWAYS_INLINE vmask vmask_first(size_t n) {
  return wasm_i32x4_gt(wasm_i32x4_splat((int32_t)n), wasm_i32x4_make(0, 1, 2, 3));
}
/* the lanes of m from p, +0 in the others, which are not read (SIMD128
 * has no masked load: lane by lane) */
HS_ALWAYS_INLINE vf vf_load_masked(const float *p, vmask m) {
  const unsigned b = vmask_bits(m);
  return wasm_f32x4_make(b & 1 ? p[0] : 0.0f, b & 2 ? p[1] : 0.0f, b & 4 ? p[2] : 0.0f,
                         b & 8 ? p[3] : 0.0f);
}
HS_ALWAYS_INLINE vf vf_load_masked_or(const float *p, vmask m, vf fill) {
  return vf_select(m, vf_load_masked(p, m), fill);
}

/* p * 2^k, k the integer in the low mantissa bits of k_biased (k + 1.5 *
 * 2^23, the magic-bias rounding of the rr2 exp): k << 23 added to p's bits,
 * exact while the result's exponent field stays in [1, 254]. */
HS_ALWAYS_INLINE vf vf_exp2_bits(vf p, vf k_biased) {
  return wasm_i32x4_add(p, wasm_i32x4_shl(k_biased, 23));
}
HS_ALWAYS_INLINE vf vf_exp2_unless_lt(vf x, vf cut, vf p, vf kb, vf k) {
  (void)k;
  return vf_select(vf_cmpgt(cut, x), vf_zero(), vf_exp2_bits(p, kb));
}

/* int32 lanes (positions), wrapping as on x86 */
typedef v128_t vi;
HS_ALWAYS_INLINE vi vi_iota(int32_t base) {
  return wasm_i32x4_add(wasm_i32x4_splat(base), wasm_i32x4_make(0, 1, 2, 3));
}
HS_ALWAYS_INLINE vi vi_set1(int32_t x) { return wasm_i32x4_splat(x); }
HS_ALWAYS_INLINE vi vi_add(vi a, vi b) { return wasm_i32x4_add(a, b); }
HS_ALWAYS_INLINE vf vf_from_vi(vi a) { return wasm_f32x4_convert_i32x4(a); }

#define VF_REGS 16
HS_ALWAYS_INLINE vf vf_mul_flush(vf e, vf thr, vf r) {
  return wasm_f32x4_mul(wasm_v128_andnot(e, wasm_f32x4_lt(e, thr)), r);
}
typedef v128_t vfd;
HS_ALWAYS_INLINE vfd vfd_zero(void) { return wasm_f64x2_splat(0.0); }
HS_ALWAYS_INLINE vfd vfd_add(vfd s, vf a) {
  s = wasm_f64x2_add(s, wasm_f64x2_promote_low_f32x4(a));
  return wasm_f64x2_add(s, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(a, a, 2, 3, 0, 1)));
}
HS_ALWAYS_INLINE double vfd_hsum(vfd s) {
  return wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
}

#endif
