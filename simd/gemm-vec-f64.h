/* SPDX-License-Identifier: MIT */
/* gemm-panel-impl.h over an f64 vocabulary (vec-f64-<isa>.h, included
 * before this): its vf_* names taken by the vd_* ones, so the f64 gemm is
 * the f32 one's algorithm, not a second copy. */
#ifndef HS_GEMM_VEC_F64_H
#define HS_GEMM_VEC_F64_H

#define HS_GEMM_T double
#define vf vd
#define VF_LANES VD_LANES
#define vf_zero vd_zero
#define vf_set1 vd_set1
#define vf_loadu vd_loadu
#define vf_storeu vd_storeu
#define vf_load_tail vd_load_tail
#define vf_store_tail vd_store_tail
#define vf_add vd_add
#define vf_max vd_max
#define vf_fma vd_fma

#endif
