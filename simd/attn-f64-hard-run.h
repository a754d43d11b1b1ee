/* SPDX-License-Identifier: MIT */
/* The f64 hard attention row, written once over the ISA's score
 * blocks (internal; the f64 twin of attn-f32-hard-run.h). Include after
 * defining BLK and
 *   HB_KERNEL            the function's name,
 *   hb_q                 a type holding the query in registers,
 * and after declaring, in the ISA's file,
 *   hb_q_init(o, q, dk, ldk)          the query setup (scores are q . k_j:
 *                                     no scaling, nothing rounded twice),
 *   hb_block(o, nb, k, ldk, sb)       the scores of nb <= BLK keys into
 *                                     sb (-inf past nb, up to the scan's
 *                                     group), returning their maximum
 *                                     (NaN skipped; -inf for none);
 * and after including the ISA's f64 vocabulary (vec-f64-<isa>.h), over
 * which hb_scan (below) is written.
 *
 * Per block of BLK keys: the scores, their maximum bm, then one of two
 * things.
 *   bm below the running maximum: bm may raise the best score below it,
 *     and the block is done: no compare per key, no value read (almost
 *     every block of a since/until head past its first witness).
 *   bm at or above it: hb_scan finds, in one pass, how many keys score bm,
 *     the first and last of them, and the best score below bm; the pick
 *     (and for average, the sum of the values at bm) follows.
 * The result is exactly what the scalar kernel gives for the same scores:
 * the maximum, the ties and the best score below are order-free, and the
 * average's values are added in key order as there. */
#ifndef HS_ATTN_F64_HARD_RUN_H
#define HS_ATTN_F64_HARD_RUN_H

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
 * largest score below bm (-inf when none). sb holds -inf past nb up to a
 * whole vector: below anything but a -inf maximum, and masked off the
 * ties. */
static void hb_scan(const double *sb, size_t nb, double bm, size_t *cnt,
                    size_t *first, size_t *last, double *below) {
  const vd vb = vd_set1(bm), ninf = vd_set1(-INFINITY);
  vd lo = ninf;
  size_t c = 0, f = 0, l = 0;
  for (size_t g = 0; g < nb; g += VD_LANES) {
    const vd s = vd_loadu(sb + g);
    lo = vd_max(vd_select(vd_cmpgt(vb, s), s, ninf), lo);
    unsigned m = vdmask_bits(vd_cmpeq(s, vb));
    if (nb - g < VD_LANES) m &= (1u << (nb - g)) - 1;
    hb_ties(m, g, &c, &f, &l);
  }
  *cnt = c;
  *first = f;
  *last = l;
  *below = vd_hmax(lo);
}

void HB_KERNEL(size_t n, size_t dk, size_t dv, const double *q,
               const double *k, size_t ldk, const double *v, size_t ldv,
               size_t base, hs_hard_rule rule, hs_f64_hard *st, double *acc) {
  if (n == 0) return;
  hb_q o;
  hb_q_init(&o, q, dk, ldk);
  _Alignas(64) double sb[BLK];
  for (size_t j0 = 0; j0 < n; j0 += BLK) {
    const size_t nb = n - j0 < BLK ? n - j0 : BLK;
    double bm = hb_block(&o, nb, k + j0 * ldk, ldk, sb);
    if (bm < st->best) {
      if (bm > st->second) st->second = bm;
      continue;
    }
    size_t cnt, first, last;
    double below;
    hb_scan(sb, nb, bm, &cnt, &first, &last, &below);
    if (cnt == 0) continue; /* every score of the block NaN */
    const double *vb = v + j0 * ldv;
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
