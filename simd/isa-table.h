/* SPDX-License-Identifier: MIT */
/* The instruction sets, in one table (internal): a row per value of hs_isa
 * (include/hardsoft.h), in that order,
 *   X(ID, name, detect)
 * ID names HS_ISA_<ID> and the kernel catalogue's rows (kernels.inc);
 * name is what hs_isa_name returns, --isa and HARDSOFT_ISA take and every
 * per-ISA list prints (the CLI's help and errors, the completion, the
 * tests' reports and the benchmark's row names all read it from there);
 * detect says, once per process (isa.c), whether this CPU and OS run it.
 * HS_BUILT_<ID>(x) is x where this build compiles the ISA's kernels and
 * nothing elsewhere: dispatch.c fills only those rows, isa.c evaluates
 * only those detections, and an ISA not built is never supported.
 * A new ISA is a row here, a value of hs_isa, its guard below and its
 * detection in isa.c. */
#ifndef HS_ISA_TABLE_H
#define HS_ISA_TABLE_H

#define HS_ISA_TABLE(X)                 \
  X(SCALAR, "scalar", 1)                \
  X(AVX2, "avx2", hs_detect_avx2())     \
  X(AVX512, "avx512", hs_detect_avx512()) \
  X(WASM128, "wasm128", 1)              \
  X(NEON, "neon", 1)

/* the AVX kernels where the compiler targets x86 (the Makefile builds
 * the -avx2 and -avx512f files only then); SIMD128 in a WebAssembly build
 * with -msimd128; NEON in every aarch64 build (Advanced SIMD is part of
 * the architecture); scalar everywhere */
#define HS_BUILT_SCALAR(x) x
#if defined(__x86_64__) || defined(__i386__)
#define HS_BUILT_AVX2(x) x
#define HS_BUILT_AVX512(x) x
#else
#define HS_BUILT_AVX2(x)
#define HS_BUILT_AVX512(x)
#endif
#ifdef __wasm_simd128__
#define HS_BUILT_WASM128(x) x
#else
#define HS_BUILT_WASM128(x)
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#define HS_BUILT_NEON(x) x
#else
#define HS_BUILT_NEON(x)
#endif

#endif
