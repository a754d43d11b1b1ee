/* SPDX-License-Identifier: MIT */
/* The hard attention row, written once over the vector vocabulary and
 * the ISA's score blocks (internal). A kernel file includes one
 * vec-f32-<isa>.h, defines BLK, includes its attn-f32-blocks-<isa>.h
 * (qd_init, block_scores; block_scores_dk when it defines HS_BLOCKS_DK,
 * attn-f32-blocks-run.h), then this header, and defines its symbol by
 * HS_DEFINE_F32_ATTN_HARD(name).
 *
 * Per block of BLK keys: the scores (q unscaled: qd_init at inv_tau = 1,
 * which is exact), their maximum bm (one horizontal max), then one of two
 * things.
 *   bm below the running maximum: bm may raise the best score below it,
 *     and the block is done: no compare per key, no value read. This is
 *     almost every block of a since/until head past its first witness.
 *   bm at or above it: hb_scan finds, in one pass, how many keys score bm,
 *     the first and last of them, and the best score below bm; the pick
 *     (and for average, the sum of the values at bm) follows.
 * The result is exactly what the scalar kernel gives for the same scores:
 * the maximum, the ties and the best score below are order-free.
 * Contiguous keys with dk in {1, 2, 4} (the bound search's leaves) take
 * block_scores_dk, the same scores without the general dispatch. */
#ifndef HS_ATTN_F32_HARD_RUN_H
#define HS_ATTN_F32_HARD_RUN_H

#include <math.h>
#include <string.h>

/* Fold the tie mask m of the group starting at key g (bit i: key g + i
 * scores the maximum) into the count, first and last. */
static inline void hb_ties(unsigned m, size_t g, size_t *c, size_t *f, size_t *l) {
  if (!m) return;
  if (*c == 0) *f = g + (size_t)__builtin_ctz(m);
  *l = g + 31 - (size_t)__builtin_clz(m);
  *c += (size_t)__builtin_popcount(m);
}

/* Keys of sb[0..nb) at bm: how many, the first and the last; and the
 * largest score below bm (-inf when none). Lanes past nb hold -inf: below
 * anything but a -inf maximum, and masked off the ties. */
static void hb_scan(const float *sb, size_t nb, float bm, size_t *cnt,
                    size_t *first, size_t *last, float *below) {
  const vf vb = vf_set1(bm), ninf = vf_set1(-INFINITY);
  vf lo = ninf;
  size_t c = 0, f = 0, l = 0;
  for (size_t g = 0; g < nb; g += VF_LANES) {
    const vf s = vf_loadu(sb + g);
    lo = vf_max(vf_select(vf_cmplt(s, vb), s, ninf), lo);
    unsigned m = vmask_bits(vf_cmpeq(s, vb));
    if (nb - g < VF_LANES) m &= (1u << (nb - g)) - 1;
    hb_ties(m, g, &c, &f, &l);
  }
  *cnt = c;
  *first = f;
  *last = l;
  *below = vf_hmax(lo);
}

#ifndef HS_BLOCKS_DK
#define block_scores_dk(nb, k, qd, sb, DK, bias, slope, p0) vf_zero()
#endif

HS_ALWAYS_INLINE void hb_run(
    size_t n, size_t dk, size_t dv, const float *q, const float *k, size_t ldk,
    const float *v, size_t ldv, size_t base, hs_hard_rule rule, hs_f32_hard *st,
    float *acc, const int DK) {
  qdesc qd;
  qd_init(&qd, dk, q, 1.0f);
  _Alignas(64) float sb[BLK];
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    float bm = vf_hmax(DK ? block_scores_dk(nb, k + j0 * DK, &qd, sb, DK, 0, 0.0f, 0)
                          : block_scores(nb, k + j0 * ldk, ldk, &qd, sb, dk));
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

#ifdef HS_BLOCKS_DK
#define HB_DK_PATHS(...)                                        \
  if (ldk == dk && (dk == 1 || dk == 2 || dk == 4)) {           \
    if (dk == 1) hb_run(__VA_ARGS__, 1);                        \
    else if (dk == 2) hb_run(__VA_ARGS__, 2);                   \
    else hb_run(__VA_ARGS__, 4);                                \
    return;                                                     \
  }
#else
#define HB_DK_PATHS(...)
#endif

#define HS_DEFINE_F32_ATTN_HARD(name)                                        \
  void name(size_t n, size_t dk, size_t dv, const float *q, const float *k,  \
            size_t ldk, const float *v, size_t ldv, size_t base,             \
            hs_hard_rule rule, hs_f32_hard *st, float *acc) {                \
    if (n == 0) return;                                                      \
    HB_DK_PATHS(n, dk, dv, q, k, ldk, v, ldv, base, rule, st, acc)           \
    hb_run(n, dk, dv, q, k, ldk, v, ldv, base, rule, st, acc, 0);            \
  }

#endif
