/* SPDX-License-Identifier: MIT */
/* f64 fused attention row, AVX-512F, online softmax, rr2-p11 exp
 * (f64-exp-rr2-p11.h: Cody-Waite with two ln2 constants, degree-11
 * polynomial, <= 2 ULP, +0 below ln(2^-1022)): the algorithm, its error
 * bound and special values are in f64-attn-row-online-rr2-p11-impl.h,
 * 8 keys per register, blocks of 512 keys. Contiguous keys of dk 1, 2, 4
 * are scored 8 keys per step (block_scores_contig), others 4 keys per
 * 256-bit register as on AVX2 (block_scores). */
#include <immintrin.h>
#include <math.h>

#include "vec-f64-avx512f.h"
#include "f64-exp-rr2-p11.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f64-blocks-avx2.h"
#include "attn-f64-blocks-avx512f.h"

#define ONLINE_EXP(x) hs_f64_vexp(x)
#define ONLINE_SCORES_CONTIG block_scores_contig_max
#include "f64-attn-row-online-rr2-p11-impl.h"

HS_DEFINE_F64_ATTN_ROW_ONLINE(hs_f64_attn_row_ukernel__avx512f_online_rr2_p11)
