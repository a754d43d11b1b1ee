/* SPDX-License-Identifier: MIT */
/* Opens the f32 / f64 template: define REAL_F32 to 1 (REAL = float) or 0
 * (REAL = double), include this, then the template's files, then
 * real-end.h, which takes back every name defined here. Inside:
 *   REAL, FMA_R        the working type and its fused multiply-add;
 *   FN(name)           name_f32 / name_f64, for the template's own names;
 *   KOP(kt, op)        the kernel table's f32_op / f64_op;
 *   ONLINE, HARD       the kernels' online-softmax and hard-row states;
 *   REAL_F32           1 where the f32-only kernels exist: the bias rows
 *                      of relative-position heads and the 4-row tiles. */
#ifndef REAL_F32
#error "define REAL_F32 (1: float, 0: double) before real-begin.h"
#endif
#if REAL_F32
#define REAL float
#define SFX f32
#define FMA_R fmaf
#else
#define REAL double
#define SFX f64
#define FMA_R fma
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, CAT(_, SFX))
#define KOP(kt, op) ((kt)->CAT(SFX, CAT(_, op)))
#define ONLINE CAT(CAT(hs_, SFX), _online)
#define HARD CAT(CAT(hs_, SFX), _hard)
