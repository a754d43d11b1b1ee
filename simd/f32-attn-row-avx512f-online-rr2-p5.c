/* SPDX-License-Identifier: MIT */
/* f32 fused attention row, AVX-512F, online softmax, rr2-p5 exp.
 *
 * Error bound (u = 2^-24), as for the AVX2 kernel: each score
 * s_j = (q*inv_tau) . k_j carries
 *   |ds_j| <= (ceil(dk/4) + 4) u sum_c |q_c k_jc inv_tau|
 * (inv_tau folded into q, chunked FMA, 2-level add tree); each weight
 * e_j = exp(s_j - max) has relative error <= |ds_j| + |ds_max| + 3 u; the
 * sums are blocked (512 keys: at most 32 adds per lane, 4 to fold lanes,
 * then a running total per lane), so
 *   |sum - sum*|     <= (max_j rel(e_j) + (n/512 + 40) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/512 + 40) u) sum_j e_j |v_jc|
 * to first order (checked by tests/test-f32-attn-row.c).
 *
 * Work per block of 512 keys (long enough that the per-block max, branch
 * and lane folds cost little per key):
 *   1. scores 16 keys at a time. Contiguous keys with dk in {1, 2, 4, 8}
 *      (the heads compiled models use): the 16*dk floats are dk plain
 *      loads, times q repeated with period dk, then log2(dk) levels of
 *      pairsum (two full-width permutes + add), which keep key order.
 *      Otherwise register x_i (i < 4) holds, in 128-bit lane l, a 4-float
 *      chunk of key 4l+i (the loads do the first level of the horizontal
 *      reduction), times q's chunk in every lane; two in-lane shuffle+add
 *      levels give [s_0 .. s_15] in order;
 *   2. the block max; sum and acc are rescaled only when it grows;
 *   3. e = exp(s - max);
 *   4. dv == 1 with contiguous values: fused into 3, acc += e * v lane-wise
 *      (one FMA per 16 keys, weights never stored); dv <= 8: two keys per
 *      register ([v_j | v_j+1] times [e_j.. | e_j+1..], the weight pair
 *      made by one permute), so one FMA serves two keys; larger dv: 16
 *      columns per register, 4 accumulators.
 *
 * (512, not 128: the weights of a block wait for its max, and the last exp
 * chains of a block are not overlapped with the next block's scores;
 * measured on a S b rows, dk = 2, dv = 1, n = 4096: 0.25 ns/key at 128,
 * 0.20 at 512.)
 *
 * Special values as in the AVX2 kernel: -inf scores add 0; all -inf leaves
 * max = -inf, sum = 0; a +inf score takes weight 1, the others 0; a NaN
 * score makes sum and acc NaN. */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-online-avx512f.h"

/* The bias variant's error bound is the one above for the biased scores,
 * with |ds_j| one rounding larger. */
HS_DEFINE_F32_ATTN_ROW_ONLINE_BLOCKED(
    hs_f32_attn_row_ukernel__avx512f_online_rr2_p5,
    hs_f32_attn_row_bias_ukernel__avx512f_online_rr2_p5)
