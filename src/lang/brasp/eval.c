/* SPDX-License-Identifier: MIT */
/* The B-RASP interpreter: the ground truth the lowering and the compiled
 * models are checked against, so it follows the definition literally
 * (docs/LANGUAGE.md, "B-RASP programs"). Statements are computed in
 * order, one row of n values each; an attention statement at query i
 * walks the positions its mask allows from the left (leftmost) or the
 * right (rightmost), stops at the first j whose score S(i, j) is 1 and
 * takes V(i, j) there, or D(i) when no allowed j scores 1: O(n^2) per
 * attention statement at worst.
 * A score and value that read only key-side vectors are computed once per
 * key into a row first (the same values, read instead of recomputed). */
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

static int attend(const ctx *c, const br_stmt *st, int64_t *out) {
  size_t n = c->n;
  /* key-only score and value: one row each (index j-1), else NULL */
  uint8_t *row = NULL;
  if (!reads_query(c->p, st->s) && !reads_query(c->p, st->v)) {
    row = malloc(2 * n);
    if (!row) return -1;
    for (size_t j = 1; j <= n; j++) {
      row[j - 1] = (uint8_t)ev(c, st->s, 1, j);
      row[n + j - 1] = (uint8_t)ev(c, st->v, 1, j);
    }
  }
  for (size_t i = 1; i <= n; i++) {
    size_t lo, hi, found = 0;
    allowed(st->mask, i, n, &lo, &hi);
    for (size_t t = 0; lo <= hi && t <= hi - lo; t++) {
      size_t j = st->rightmost ? hi - t : lo + t;
      if (row ? row[j - 1] : ev(c, st->s, i, j)) { found = j; break; }
    }
    if (found)
      out[i - 1] = row ? row[n + found - 1] : ev(c, st->v, i, found);
    else
      out[i - 1] = ev(c, st->d, i, 0);
  }
  free(row);
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
