/* SPDX-License-Identifier: MIT */
/* The direct interpreter of C-RASP programs: the ground truth every
 * compiled C-RASP model is checked against. It follows the reference
 * interpreter (coli-saar/c-rasp, program.py) literally, positions counted
 * from 0:
 *   "tok" at i      w[i] is the token's byte
 *   # b at i        the number of j <= i where b holds
 *   #[predK] b at i b at i - K (the one j <= i with j = i - K), 0 for i < K
 *   pos_modK_R      i mod K = R (pos_even: i mod 2 = 0)
 * and integer arithmetic in int64, every sum, difference and product
 * checked: a program whose counts the parser bounds by amul * n + add
 * with both below 2^31 (src/lang/crasp/ast.h) never leaves int64 for
 * n < 2^31, and one it does not bound (products of large constants) runs
 * until a value leaves it, which is an error naming the statement and the
 * position, not a wrapped number. The lowering has limits of its own
 * (src/lang/crasp/lower.c); the interpreter does not share them. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "lang/crasp/ast.h"
#include "lang/ltl/formula.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int rel_holds(int rel, int64_t a, int64_t b) {
  switch (rel) {
  case HS_REL_LT: return a < b;
  case HS_REL_LE: return a <= b;
  case HS_REL_EQ: return a == b;
  case HS_REL_NE: return a != b;
  case HS_REL_GE: return a >= b;
  default: return a > b;
  }
}

/* The first position at which a checked operation left int64 (or n). */
static size_t arith(cr_kind k, int64_t v, const int64_t *a, const int64_t *b, int64_t *o,
                    size_t n) {
  size_t i = 0;
  switch (k) {
  case CR_ADD: while (i < n && !__builtin_add_overflow(a[i], b[i], &o[i])) i++; break;
  case CR_SUB: while (i < n && !__builtin_sub_overflow(a[i], b[i], &o[i])) i++; break;
  default: while (i < n && !__builtin_mul_overflow(v, a[i], &o[i])) i++; break;
  }
  return i;
}

/* Node id into o[0..n); rows of earlier nodes of the statement in buf
 * (row r - first), rows of earlier statements in vals. The position where
 * a value left int64, or n. */
static size_t eval_node(const hs_crasp *p, int32_t id, int32_t first,
                        const uint8_t *w, size_t n, int64_t *buf,
                        const int64_t *vals) {
  const cr_node *x = &p->nodes[id];
  int64_t *o = buf + (size_t)(id - first) * n;
  const int64_t *a = x->a >= 0 ? buf + (size_t)(x->a - first) * n : NULL;
  const int64_t *b = x->b >= 0 ? buf + (size_t)(x->b - first) * n : NULL;
  const int64_t *c = x->c >= 0 ? buf + (size_t)(x->c - first) * n : NULL;
  int64_t acc = 0;
  size_t i;
  switch (x->k) {
  case CR_TOK: for (i = 0; i < n; i++) o[i] = w[i] == (uint8_t)x->v; break;
  case CR_TRUE: for (i = 0; i < n; i++) o[i] = 1; break;
  case CR_FALSE: for (i = 0; i < n; i++) o[i] = 0; break;
  case CR_BVAR: case CR_CVAR: memcpy(o, vals + (size_t)x->var * n, n * sizeof *o); break;
  case CR_MODP: for (i = 0; i < n; i++) o[i] = (int64_t)(i % (uint64_t)x->mk) == x->mr; break;
  case CR_NOT: for (i = 0; i < n; i++) o[i] = !a[i]; break;
  case CR_AND: for (i = 0; i < n; i++) o[i] = a[i] && b[i]; break;
  case CR_OR: for (i = 0; i < n; i++) o[i] = a[i] || b[i]; break;
  case CR_CMP: for (i = 0; i < n; i++) o[i] = rel_holds(x->rel, a[i], b[i]); break;
  case CR_INT: for (i = 0; i < n; i++) o[i] = x->v; break;
  case CR_COUNT: for (i = 0; i < n; i++) o[i] = acc += a[i] != 0; break;
  case CR_SHIFT:
    for (i = 0; i < n; i++) o[i] = i >= (uint64_t)x->v ? a[i - (size_t)x->v] != 0 : 0;
    break;
  case CR_ADD: case CR_SUB: case CR_MUL: return arith(x->k, x->v, a, b, o, n);
  case CR_MIN: for (i = 0; i < n; i++) o[i] = min64(a[i], b[i]); break;
  case CR_MAX: for (i = 0; i < n; i++) o[i] = max64(a[i], b[i]); break;
  case CR_IF: for (i = 0; i < n; i++) o[i] = b[i] ? a[i] : c[i]; break;
  }
  return n;
}

int hs_crasp_eval_all(const hs_crasp *p, const uint8_t *w, size_t n,
                      int64_t *vals, hs_error *err) {
  if (!p || (n && (!w || !vals)))
    return hs_errorf(err, HS_ERR_ARG, "hs_crasp_eval_all: NULL argument");
  if (n == 0) return 0;
  if (n >= (size_t)1 << 31)
    return hs_errorf(err, HS_ERR_LIMIT, "a string of %zu tokens is "
                     "longer than the C-RASP interpreter takes (2^31 - 1)", n);
  int32_t most = 0;
  for (int32_t k = 0; k < p->nstmts; k++)
    if (p->stmts[k].root - p->stmts[k].first + 1 > most)
      most = p->stmts[k].root - p->stmts[k].first + 1;
  size_t cells;
  int64_t *buf = NULL;
  if (!__builtin_mul_overflow((size_t)most, n, &cells) && cells <= SIZE_MAX / sizeof(int64_t))
    buf = malloc(cells * sizeof *buf); /* one statement's rows at a time */
  if (!buf) return hs_errorf(err, HS_ERR_NOMEM, "out of memory running the program on %zu tokens", n);
  for (int32_t k = 0; k < p->nstmts; k++) {
    const cr_stmt *s = &p->stmts[k];
    for (int32_t id = s->first; id <= s->root; id++) {
      size_t at = eval_node(p, id, s->first, w, n, buf, vals);
      if (at == n) continue;
      free(buf);
      return hs_errorf(err, HS_ERR_LIMIT, "statement '%.64s' leaves 64-bit integers at "
                       "position %zu (the C-RASP interpreter's range)", s->name, at + 1);
    }
    memcpy(vals + (size_t)k * n, buf + (size_t)(s->root - s->first) * n,
           n * sizeof *vals);
  }
  free(buf);
  return 0;
}
