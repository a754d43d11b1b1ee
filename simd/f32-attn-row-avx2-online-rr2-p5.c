/* SPDX-License-Identifier: MIT */
/* f32 fused attention row, AVX2+FMA, online softmax, rr2-p5 exp.
 *
 * Error bound (u = 2^-24): each score s_j = (q . k_j) * inv_tau carries
 *   |ds_j| <= (ceil(dk/4) + 3) u sum_c |q_c k_jc| |inv_tau|   (chunked FMA,
 * 2-level add tree, the scaling); each weight e_j = exp(s_j - max) then has
 * relative error <= |ds_j| + |ds_max| + 3 u (subtraction, 2-ULP exp); the
 * sums are blocked (512 keys: at most 64 adds per lane, 3 to fold lanes,
 * then a running total per lane), so
 *   |sum - sum*| <= (max_j rel(e_j) + (n/512 + 70) u) sum_j e_j,
 *   |acc_c - acc*_c| <= (max_j rel(e_j) + (n/512 + 70) u) sum_j e_j |v_jc|,
 * to first order. tests/test-f32-attn-row.c checks exactly this bound.
 *
 * Layout of the work: keys are walked in blocks of 512 (long enough that
 * the per-block max, branch and lane folds cost little per key). Per block
 *   1. scores of 8 keys at a time. Contiguous keys with dk in {1, 2, 4}
 *      (the small heads compiled models use): 8*dk floats are dk plain
 *      loads, times q repeated with period dk, then log2(dk) even/odd
 *      shuffle+add levels (dots8_contig_kx). Contiguous keys with dk = 8:
 *      whole rows j and j+4 blended and lane-swapped into one register,
 *      one multiply and one FMA per two keys (dots8_k8). Otherwise
 *      128-bit chunks of two
 *      key rows (j, j+4) are paired in one register and multiplied by q's
 *      chunk duplicated in both halves, so the first level of the
 *      horizontal reduction is done by the loads; two shuffle+add levels
 *      finish 8 dot products into one vector [s_0 .. s_7];
 *   2. the block's maximum; only if it exceeds the running maximum are the
 *      running sum and accumulator rescaled, once per block;
 *   3. e = exp(s - max) for the block, summed blockwise;
 *   4. dv == 1 with contiguous values: fused into 3, acc += e * v lane-wise
 *      (one FMA per 8 keys, weights never stored); contiguous values
 *      with dv in {2, 4, 8}: each group's 8 weights loaded once and spread
 *      over the value rows by permutes (block_values_vg); otherwise
 *      acc += sum_j e_j v_j with 8 independent accumulators per 8 columns
 *      (one broadcast load per weight). Either way a lane sums at most 64
 *      products per block.
 * The only buffers are two 512-float blocks on the stack.
 *
 * Why 512 and not 128: the weights of a block wait for its max (a
 * horizontal max, a compare and a branch), and the exp chains of its last
 * group are not overlapped with the next block's scores; per block that
 * costs about as much as a hundred keys. Measured on a S b rows (dk = 2,
 * dv = 1, n = 4096): 0.41 ns/key at 128, 0.37 at 512.
 *
 * Where the time goes at dk = dv = 8, n = 4096 (keys and values in L2;
 * the AMD EPYC of results/, loops timed alone): scores 0.30 ns/key, exp
 * 0.25, values 0.20, about 20 cycles per 8 keys. Neither roofline binds
 * (bench/kernels.cc: read_bw at 256 KiB allows ~2.5e9 keys/s, fma_tp / 3
 * FMA-pipe operations per key ~2.2e9); the loops are bound by their count
 * of vector operations: per 8 keys the scores take 8 multiplies/FMAs plus
 * 18 shuffles, blends and adds for the horizontal sums, the exp 17, the
 * values 8 FMAs plus 12 permutes and blends. Fusing the exp into the
 * value loop (weights never stored) measured slower, also software-
 * pipelined: the constants and 8 accumulators no longer fit 16 registers.
 *
 * Special values: -inf scores contribute exactly 0; a block whose scores
 * are all -inf while the running max is still -inf leaves the state
 * unchanged (max = -inf, sum = 0). A +inf score becomes the max and takes
 * weight 1 (others 0), the limit of softmax. A NaN score is ignored by the
 * max but makes its weight NaN, so sum and acc become NaN (also when every
 * other score is -inf). */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-online-avx2.h"

/* The bias variant's error bound is the one above for the biased scores,
 * with |ds_j| one rounding larger. */
HS_DEFINE_F32_ATTN_ROW_ONLINE_BLOCKED(
    hs_f32_attn_row_ukernel__avx2_online_rr2_p5,
    hs_f32_attn_row_bias_ukernel__avx2_online_rr2_p5)
