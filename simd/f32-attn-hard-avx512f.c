/* SPDX-License-Identifier: MIT */
/* f32 hard attention row (unique-hard leftmost / rightmost, average-hard),
 * AVX-512F: the scores of the online row kernel (attn-f32-blocks-avx512f.h,
 * 16 keys per step), no exp; the block logic is attn-f32-hard-run.h. */
#include <immintrin.h>
#include <math.h>

#include "attn-f32-exp.h"
#include "ukernels.h"

#define BLK 512
#include "attn-f32-blocks-avx512f.h"

#include "attn-f32-online-avx512f.h"

#define HB_KERNEL hs_f32_attn_hard_ukernel__avx512f
#define hb_hmax _mm512_reduce_max_ps
#include "attn-f32-hard-run.h"

static void hb_scan(const float *sb, size_t nb, float bm, size_t *cnt,
                    size_t *first, size_t *last, float *below) {
  const __m512 vb = _mm512_set1_ps(bm), ninf = _mm512_set1_ps(-INFINITY);
  __m512 lo = ninf;
  size_t c = 0, f = 0, l = 0;
  for (size_t g = 0; g < nb; g += 16) {
    __m512 s = _mm512_load_ps(sb + g);
    /* lanes past nb hold -inf: below anything but a -inf maximum, and
     * masked off the ties */
    lo = _mm512_mask_max_ps(lo, _mm512_cmp_ps_mask(s, vb, _CMP_LT_OQ), s, lo);
    unsigned m = (unsigned)_mm512_cmp_ps_mask(s, vb, _CMP_EQ_OQ);
    if (nb - g < 16) m &= (1u << (nb - g)) - 1;
    hb_ties(m, g, &c, &f, &l);
  }
  *cnt = c;
  *first = f;
  *last = l;
  *below = _mm512_reduce_max_ps(lo);
}
