/* SPDX-License-Identifier: MIT */
/* The f64 vocabulary (vec-f64-<isa>.h, included before this) under the
 * f32 one's names: vf_* taken by the vd_* ones and HS_VF_T the element
 * type, so that an algorithm written over vf (gemm-panel-impl.h,
 * dot-impl.h, gemv-impl.h) is the f64 kernel too, not a second copy. */
#ifndef HS_VEC_F64_AS_VF_H
#define HS_VEC_F64_AS_VF_H

#define HS_VF_T double
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
#define vmask vdmask
#define vmask_first vdmask_first
#define vf_load_masked vd_load_masked
#define vf_hsum vd_hsum
#define vf_hsum4 vd_hsum4

#endif
