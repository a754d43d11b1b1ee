/* SPDX-License-Identifier: MIT */
/* f32 hard attention row (unique-hard leftmost / rightmost, average-hard),
 * AVX2+FMA: the scores of the online row kernel (attn-f32-blocks-avx2.h,
 * 8 keys per step), no exp; the block logic is attn-f32-hard-run.h. */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-blocks-avx2.h"

#include "attn-f32-online-avx2.h"

#define HB_KERNEL hs_f32_attn_hard_ukernel__avx2
#define hb_hmax vf_hmax
#include "attn-f32-hard-run.h"

static void hb_scan(const float *sb, size_t nb, float bm, size_t *cnt,
                    size_t *first, size_t *last, float *below) {
  const __m256 vb = _mm256_set1_ps(bm), ninf = _mm256_set1_ps(-INFINITY);
  __m256 lo = ninf;
  size_t c = 0, f = 0, l = 0;
  for (size_t g = 0; g < nb; g += 8) {
    __m256 s = _mm256_load_ps(sb + g);
    /* lanes past nb hold -inf: below anything but a -inf maximum, and
     * masked off the ties */
    lo = _mm256_max_ps(_mm256_blendv_ps(ninf, s, _mm256_cmp_ps(s, vb, _CMP_LT_OQ)), lo);
    unsigned m = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(s, vb, _CMP_EQ_OQ));
    if (nb - g < 8) m &= (1u << (nb - g)) - 1;
    hb_ties(m, g, &c, &f, &l);
  }
  *cnt = c;
  *first = f;
  *last = l;
  *below = vf_hmax(lo);
}
