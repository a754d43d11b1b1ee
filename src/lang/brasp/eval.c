/* SPDX-License-Identifier: MIT */
/* The B-RASP interpreter: the ground truth the lowering and the compiled
 * models are checked against, so it follows the definition literally
 * (docs/LANGUAGE.md, "B-RASP programs"). Statements are computed in
 * order, one row of n values each; an attention statement at query i
 * walks the positions its mask allows from the left (leftmost) or the
 * right (rightmost), stops at the first j whose score S(i, j) is 1 and
 * takes V(i, j) there, or D(i) when no allowed j scores 1: O(n^2) per
 * attention statement at worst. A score that reads only key-side vectors
 * is computed once per key, with the nearest scoring key to each position
 * (`nearest`), which makes such a statement O(n). */
#include <stdlib.h>
#include <string.h>

#include "lang/brasp/ast.h"

typedef struct ctx {
  const hs_brasp *p;
  const uint8_t *w;
  size_t n;
  const int64_t *vals;
} ctx;

/* Expression e with the query at position i and the key at j (1-based;
 * j is 0 outside attention, where no key-side read occurs). */
static int ev(const ctx *c, int32_t e, size_t i, size_t j) {
  const br_expr *x = &c->p->ex[e];
  size_t pos = x->side == BR_SIDE_J ? j : i;
  switch (x->op) {
  case BR_CONST: return x->val;
  case BR_REF: return c->vals[(size_t)x->ref * c->n + pos - 1] != 0;
  case BR_TOK: return c->w[pos - 1] == x->byte;
  case BR_NOT: return !ev(c, x->a, i, j);
  case BR_AND: return ev(c, x->a, i, j) && ev(c, x->b, i, j);
  case BR_OR: return ev(c, x->a, i, j) || ev(c, x->b, i, j);
  }
  return 0;
}

/* Whether e reads a vector at the query position. */
static int reads_query(const hs_brasp *p, int32_t e) {
  const br_expr *x = &p->ex[e];
  switch (x->op) {
  case BR_REF: case BR_TOK: return x->side == BR_SIDE_I;
  case BR_NOT: return reads_query(p, x->a);
  case BR_AND: case BR_OR: return reads_query(p, x->a) || reads_query(p, x->b);
  default: return 0;
  }
}

/* The keys the mask allows for query i: lo..hi (1-based, empty when
 * lo > hi). */
static void allowed(br_mask m, size_t i, size_t n, size_t *lo, size_t *hi) {
  *lo = 1;
  *hi = n;
  switch (m) {
  case BR_MASK_LT: *hi = i - 1; break;
  case BR_MASK_LE: *hi = i; break;
  case BR_MASK_GT: *lo = i + 1; break;
  case BR_MASK_GE: *lo = i; break;
  case BR_MASK_NONE: break;
  }
}

/* A score that reads only the key: s(j) for every j, then near[j] = the
 * largest j' <= j with s(j') (rightmost) or the smallest j' >= j
 * (leftmost), 0 when none; the chosen key for the allowed range lo..hi is
 * near[hi] (when >= lo) or near[lo] (when <= hi). O(n) instead of a scan
 * per query. */
static size_t *nearest(const ctx *c, const br_stmt *st) {
  size_t n = c->n, *near = malloc((n + 2) * sizeof *near);
  if (!near) return NULL;
  near[0] = near[n + 1] = 0;
  if (st->rightmost)
    for (size_t j = 1; j <= n; j++) near[j] = ev(c, st->s, 1, j) ? j : near[j - 1];
  else
    for (size_t j = n; j >= 1; j--) near[j] = ev(c, st->s, 1, j) ? j : near[j + 1];
  return near;
}

static int attend(const ctx *c, const br_stmt *st, int64_t *out) {
  size_t n = c->n, *near = NULL;
  int key_only = !reads_query(c->p, st->s);
  if (key_only && !(near = nearest(c, st))) return -1;
  for (size_t i = 1; i <= n; i++) {
    size_t lo, hi, found = 0;
    allowed(st->mask, i, n, &lo, &hi);
    if (key_only && lo <= hi) {
      size_t j = near[st->rightmost ? hi : lo];
      found = j >= lo && j <= hi ? j : 0;
    }
    for (size_t t = 0; !key_only && lo <= hi && t <= hi - lo; t++) {
      size_t j = st->rightmost ? hi - t : lo + t;
      if (ev(c, st->s, i, j)) { found = j; break; }
    }
    out[i - 1] = found ? ev(c, st->v, i, found) : ev(c, st->d, i, 0);
  }
  free(near);
  return 0;
}

int hs_brasp_eval_all(const hs_brasp *p, const uint8_t *w, size_t n,
                      int64_t *vals) {
  if (!p || (n && (!w || !vals))) return -1;
  ctx c = {p, w, n, vals};
  for (int k = 0; k < p->n && n; k++) {
    const br_stmt *st = &p->st[k];
    int64_t *out = vals + (size_t)k * n;
    if (st->attn) {
      if (attend(&c, st, out)) return -1;
    } else {
      for (size_t i = 1; i <= n; i++) out[i - 1] = ev(&c, st->e, i, 0);
    }
  }
  return 0;
}
