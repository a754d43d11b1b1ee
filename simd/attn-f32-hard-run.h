/* SPDX-License-Identifier: MIT */
/* The hard attention row, written once over the AVX2 / AVX-512 score
 * blocks (internal). Include after attn-f32-blocks-*.h and
 * attn-f32-online-*.h (for the score setup, orow_init at inv_tau = 1,
 * which is exact), having defined
 *   HB_KERNEL          the function's name,
 *   hb_hmax(vec)       the horizontal max of block_scores' result;
 * then define hb_scan (below), vectorized per ISA.
 *
 * Per block of BLK keys: the scores, their maximum bm (one horizontal max),
 * then one of two things.
 *   bm below the running maximum: bm may raise the best score below it,
 *     and the block is done: no compare per key, no value read. This is
 *     almost every block of a since/until head past its first witness.
 *   bm at or above it: hb_scan finds, in one pass, how many keys score bm,
 *     the first and last of them, and the best score below bm; the pick
 *     (and for average, the sum of the values at bm) follows.
 * The result is exactly what the scalar kernel gives for the same scores:
 * the maximum, the ties and the best score below are order-free. */
#ifndef HS_ATTN_F32_HARD_RUN_H
#define HS_ATTN_F32_HARD_RUN_H

#include <string.h>

/* Keys of sb[0..nb) at bm: how many, the first and the last; and the
 * largest score below bm (-inf when none). Defined by the ISA's file. */
static void hb_scan(const float *sb, size_t nb, float bm, size_t *cnt,
                    size_t *first, size_t *last, float *below);

/* Fold the tie mask m of the group starting at key g (bit i: key g + i
 * scores the maximum) into the count, first and last. */
static inline void hb_ties(unsigned m, size_t g, size_t *c, size_t *f, size_t *l) {
  if (!m) return;
  if (*c == 0) *f = g + (size_t)__builtin_ctz(m);
  *l = g + 31 - (size_t)__builtin_clz(m);
  *c += (size_t)__builtin_popcount(m);
}

void HB_KERNEL(size_t n, size_t dk, size_t dv, const float *q, const float *k,
               size_t ldk, const float *v, size_t ldv, size_t base,
               hs_hard_rule rule, hs_f32_hard *st, float *acc) {
  if (n == 0) return;
  orow o;
  hs_f32_online none = {-INFINITY, 0};
  float zero[HS_ATTN_MAX_D] = {0};
  orow_init(&o, q, dk, dv, ldv, 1.0f, &none, zero);
  _Alignas(64) float sb[BLK];
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    float bm = hb_hmax(block_scores(nb, k + j0 * ldk, ldk, &o.qd, sb, dk));
    if (bm < st->best) {
      if (bm > st->second) st->second = bm;
      continue;
    }
    size_t cnt, first, last;
    float below;
    hb_scan(sb, nb, bm, &cnt, &first, &last, &below);
    if (cnt == 0) continue; /* every score of the block NaN */
    const float *vb = v + j0 * ldv;
    int fresh = bm > st->best || st->cnt == 0;
    if (fresh) {
      /* the old maximum is now the best score below */
      st->second = st->best > below ? st->best : below;
      st->best = bm;
      st->cnt = 0;
      if (rule == HS_HARD_AVG) memset(acc, 0, dv * sizeof *acc);
    } else if (below > st->second) {
      st->second = below;
    }
    st->cnt += cnt;
    if (rule == HS_HARD_AVG) {
      for (size_t j = first; j <= last; j++)
        if (sb[j] == bm)
          for (size_t c = 0; c < dv; c++) acc[c] += vb[j * ldv + c];
    } else if (fresh || rule == HS_HARD_RIGHT) {
      size_t j = rule == HS_HARD_LEFT ? first : last;
      st->pick = base + j0 + j;
      memcpy(acc, vb + j * ldv, dv * sizeof *acc);
    }
  }
}

#endif
