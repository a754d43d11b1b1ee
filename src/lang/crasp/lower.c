/* SPDX-License-Identifier: MIT */
/* Lowering a C-RASP program to the LTL formula DAG (src/lang/ltl/formula.h),
 * from which the circuit (src/circuit/) builds every mode unchanged.
 *
 * Positions. The reference interpreter numbers positions from 0, the DAG
 * from 1: position i of the program is position i + 1 of the formula.
 *   "tok"           the atom of the token's byte (src/lang/lang.h)
 *   # b             #<(b): the count of j <= i where b holds, the same set
 *                   of positions in either numbering
 *   #[predK] b      b at i - K, 0 before: the 0/1 indicator Y^K b
 *                   (K nested Y, false at the first K positions)
 *   pos_modK_R      i mod K = R (from 0) is @mod(K, (R + 1) mod K) (from 1)
 *   Boolean statements are shared DAG nodes (the DAG hash-conses them),
 *   count statements are inlined where they are used.
 *
 * Counts. Every count expression e is lowered to a case split: pieces
 * (g_1, L_1) .. (g_m, L_m) with guards g_k (DAG nodes, exactly one true at
 * each position) and linear forms L_k = sum_t a_t #<(b_t) + c, such that
 * e = L_k wherever g_k holds:
 *   integer c                  (true, c)
 *   # b                        (true, #<(b))
 *   #[predK] b                 (Y^K b, 1), (!Y^K b, 0)
 *   x + y, x - y               (gx & gy, Lx +- Ly) over every pair
 *   k * x                      (gx, k Lx)
 *   min(x, y)                  (gx & gy & Lx - Ly <= 0, Lx),
 *                              (gx & gy & !(Lx - Ly <= 0), Ly); max with >=
 *   x if b else y              (b & gx, Lx) and (!b & gy, Ly)
 * (pieces with equal linear forms are merged, their guards or-ed; a guard
 * folded to false is dropped). A comparison x REL y is then
 *   OR over the pairs of (gx & gy & (Lx - Ly REL 0)),
 * each Lx - Ly REL 0 one counting comparison node (sum a_t #<(b_t) + c REL
 * 0, like terms merged, constant ones folded). This is exact: at each
 * position exactly one pair's guards hold and there x - y = Lx - Ly. Every
 * coefficient and constant stays below 2^32 in magnitude (the parser's
 * bounds, ast.h), inside the DAG's limits. The number of pieces multiplies
 * with each min, max, if and #[pred] combined in one comparison; more than
 * HS_CRASP_MAX_CASES pieces or comparison cases in one statement is an
 * error naming the statement, never a silent blow-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "lang/crasp/ast.h"
#include "lang/ltl/formula.h"


#define STR_(x) #x
#define STR(x) STR_(x)
#define CASES_TEXT STR(HS_CRASP_MAX_CASES)

typedef struct lterm { int32_t arg; int64_t coef; } lterm;
typedef struct piece {
  int32_t guard;
  int64_t c;
  int32_t nt;
  lterm *t;
  uint64_t h; /* of (c, t): pieces are merged by linear form */
} piece;
typedef struct pieces { piece *v; int32_t n, cap; } pieces;

typedef struct lower {
  const hs_crasp *p;
  hs_formula *f;
  int32_t *depth;     /* [node]: syntax-tree depth of the DAG node */
  int32_t depcap;
  int32_t *bnode;     /* [nnodes]: DAG node of a Boolean AST node */
  pieces *pc;         /* [nnodes]: pieces of a count AST node */
  int32_t T, F;
  const cr_stmt *stmt;
  hs_error *err;
  int failed;
} lower;

static int fail(lower *L, const char *fmt, const char *name) {
  if (L->failed) return -1;
  L->failed = 1;
  hs_errcode code = strstr(fmt, "out of memory") ? HS_ERR_NOMEM : HS_ERR_UNSUPPORTED;
  if (L->stmt) return hs_text_error(L->err, code, L->stmt->line, L->stmt->col, fmt, name);
  return hs_errorf(L->err, code, fmt, name);
}

static int oom(lower *L) { return fail(L, "out of memory%s", ""); }

/* ------------------------------------------------------ DAG construction */

static int32_t intern(lower *L, const hs_node *n) {
  if (L->failed) return -1;
  int32_t found = hs_formula_find(L->f, n);
  if (found != -1) return found >= 0 ? found : oom(L);
  /* The compiler and the printer walk the DAG recursively: a lowered
   * formula stays within the depth limit LTL formulas have (a long chain
   * of && is as deep as it is long). */
  int32_t d = 0;
  if (n->a >= 0 && L->depth[n->a] > d) d = L->depth[n->a];
  if (n->b >= 0 && L->depth[n->b] > d) d = L->depth[n->b];
  for (int32_t t = 0; n->op == HS_F_CMP && t < n->nterms; t++)
    if (L->depth[n->terms[t].arg] > d) d = L->depth[n->terms[t].arg];
  if (d + 1 > hs_get_limits().max_depth)
    return fail(L, "statement '%s' lowers to a formula nested too deeply "
                "(a chain of k && or || is k deep; --max-depth raises the "
                "limit)", L->stmt ? L->stmt->name : "?");
  if (L->f->count == L->depcap) {
    int32_t cap = L->depcap ? 2 * L->depcap : 256;
    int32_t *nd = realloc(L->depth, (size_t)cap * sizeof *nd);
    if (!nd) return oom(L);
    L->depth = nd;
    L->depcap = cap;
  }
  int32_t id = hs_formula_add(L->f, n);
  if (id < 0) return oom(L);
  L->depth[id] = d + 1;
  return id;
}

static int32_t mk(lower *L, hs_fop op, int32_t a, int32_t b) {
  hs_node n;
  memset(&n, 0, sizeof n);
  n.op = op;
  n.a = a;
  n.b = b;
  return intern(L, &n);
}

static int32_t mk_not(lower *L, int32_t a) {
  if (a < 0) return -1;
  if (a == L->T) return L->F;
  if (a == L->F) return L->T;
  if (L->f->nodes[a].op == HS_F_NOT) return L->f->nodes[a].a;
  return mk(L, HS_F_NOT, a, -1);
}

static int32_t mk_and(lower *L, int32_t a, int32_t b) {
  if (a < 0 || b < 0) return -1;
  if (a == L->F || b == L->F) return L->F;
  if (a == L->T || a == b) return b;
  if (b == L->T) return a;
  return mk(L, HS_F_AND, a, b);
}

static int32_t mk_or(lower *L, int32_t a, int32_t b) {
  if (a < 0 || b < 0) return -1;
  if (a == L->T || b == L->T) return L->T;
  if (a == L->F || a == b) return b;
  if (b == L->F) return a;
  return mk(L, HS_F_OR, a, b);
}

static int cmp_term(const void *x, const void *y) {
  const lterm *a = x, *b = y;
  return (a->arg > b->arg) - (a->arg < b->arg);
}

/* Sort by argument, merge like terms, drop zeros: the canonical form. */
static void normalise(piece *q) {
  if (q->nt > 1) qsort(q->t, (size_t)q->nt, sizeof *q->t, cmp_term);
  int32_t m = 0;
  for (int32_t k = 0; k < q->nt; k++) {
    if (m && q->t[m - 1].arg == q->t[k].arg) q->t[m - 1].coef += q->t[k].coef;
    else q->t[m++] = q->t[k];
  }
  int32_t kept = 0;
  for (int32_t k = 0; k < m; k++)
    if (q->t[k].coef) q->t[kept++] = q->t[k];
  q->nt = kept;
}

/* The node of  L REL 0  (L normalised). */
static int32_t mk_cmp(lower *L, const piece *q, int rel) {
  static const int flip[] = {HS_REL_GT, HS_REL_GE, HS_REL_EQ, HS_REL_NE,
                             HS_REL_LE, HS_REL_LT};
  if (q->nt == 0) return hs_rel_holds((hs_rel)rel, q->c) ? L->T : L->F;
  int s = q->t[0].coef < 0 ? -1 : 1; /* first coefficient positive */
  hs_count_term *t = malloc((size_t)q->nt * sizeof *t);
  if (!t) return oom(L);
  for (int32_t k = 0; k < q->nt; k++)
    t[k] = (hs_count_term){s * q->t[k].coef, 1, q->t[k].arg};
  hs_node n;
  memset(&n, 0, sizeof n);
  n.op = HS_F_CMP;
  n.a = n.b = -1;
  n.rel = (hs_rel)(s < 0 ? flip[rel] : rel);
  n.c = s * q->c;
  n.nterms = q->nt;
  n.terms = t;
  int32_t id = intern(L, &n);
  free(t);
  return id;
}

/* ------------------------------------------------------------ pieces */

static void pieces_free(pieces *P) {
  for (int32_t k = 0; k < P->n; k++) free(P->v[k].t);
  free(P->v);
  memset(P, 0, sizeof *P);
}

static int too_many(lower *L) {
  return fail(L, "statement '%s' lowers to more than " CASES_TEXT
              " comparison cases (min, max, if and #[pred] multiply them; "
              "split it into Boolean statements)", L->stmt->name);
}

/* out = a + sign * b (b may be NULL), normalised; out->t is allocated. */
static int linear(lower *L, const piece *a, const piece *b, int64_t sign,
                  piece *out) {
  int32_t nt = a->nt + (b ? b->nt : 0);
  *out = (piece){L->T, a->c + (b ? sign * b->c : 0), nt, NULL, 0};
  if (nt && !(out->t = malloc((size_t)nt * sizeof *out->t))) return oom(L);
  for (int32_t k = 0; k < a->nt; k++) out->t[k] = a->t[k];
  for (int32_t k = 0; b && k < b->nt; k++)
    out->t[a->nt + k] = (lterm){b->t[k].arg, sign * b->t[k].coef};
  normalise(out);
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)out->c;
  for (int32_t k = 0; k < out->nt; k++)
    h = (h ^ ((uint64_t)(uint32_t)out->t[k].arg << 32 ^ (uint64_t)out->t[k].coef)) *
        0x100000001b3ull;
  out->h = h;
  return 0;
}

/* Append (guard, a + sign * b) (b may be NULL); guard false: nothing. */
static int add_piece(lower *L, pieces *P, int32_t guard, const piece *a,
                     const piece *b, int64_t sign) {
  if (guard < 0) return -1;
  if (guard == L->F) return 0;
  piece q;
  if (linear(L, a, b, sign, &q)) return -1;
  q.guard = guard;
  /* equal linear forms share one piece, guards or-ed */
  for (int32_t k = 0; k < P->n; k++) {
    piece *r = &P->v[k];
    if (r->h == q.h && r->c == q.c && r->nt == q.nt &&
        (q.nt == 0 || memcmp(r->t, q.t, (size_t)q.nt * sizeof *q.t) == 0)) {
      free(q.t);
      r->guard = mk_or(L, r->guard, guard);
      return r->guard < 0 ? -1 : 0;
    }
  }
  if (P->n >= HS_CRASP_MAX_CASES) { free(q.t); return too_many(L); }
  if (P->n == P->cap) {
    int32_t cap = P->cap ? P->cap * 2 : 4;
    piece *nv = realloc(P->v, (size_t)cap * sizeof *nv);
    if (!nv) { free(q.t); return oom(L); }
    P->v = nv;
    P->cap = cap;
  }
  P->v[P->n++] = q;
  return 0;
}

static int single(lower *L, pieces *P, int32_t guard, int64_t c, int32_t arg) {
  lterm t = {arg, 1};
  piece q = {L->T, c, arg >= 0 ? 1 : 0, &t, 0};
  return add_piece(L, P, guard, &q, NULL, 0);
}

/* x op y over every pair of pieces. op: '+', '-', 'm' (min), 'M' (max). */
static int combine(lower *L, const pieces *X, const pieces *Y, int op,
                   pieces *out) {
  if ((int64_t)X->n * Y->n > HS_CRASP_MAX_CASES) return too_many(L);
  for (int32_t i = 0; i < X->n; i++)
    for (int32_t j = 0; j < Y->n; j++) {
      const piece *a = &X->v[i], *b = &Y->v[j];
      int32_t g = mk_and(L, a->guard, b->guard);
      if (op == '+' || op == '-') {
        if (add_piece(L, out, g, a, b, op == '+' ? 1 : -1)) return -1;
        continue;
      }
      piece d;
      if (linear(L, a, b, -1, &d)) return -1;
      int32_t le = mk_cmp(L, &d, op == 'm' ? HS_REL_LE : HS_REL_GE);
      free(d.t);
      if (add_piece(L, out, mk_and(L, g, le), a, NULL, 0) ||
          add_piece(L, out, mk_and(L, g, mk_not(L, le)), b, NULL, 0))
        return -1;
    }
  return 0;
}

/* ------------------------------------------------------------ nodes */

static int32_t shift(lower *L, int32_t b, int64_t k) {
  for (int64_t s = 0; s < k && b >= 0; s++) b = mk(L, HS_F_YESTERDAY, b, -1);
  return b;
}

static int32_t lower_cmp(lower *L, const cr_node *x) {
  const pieces *X = &L->pc[x->a], *Y = &L->pc[x->b];
  if ((int64_t)X->n * Y->n > HS_CRASP_MAX_CASES) return too_many(L);
  int32_t r = L->F;
  for (int32_t i = 0; i < X->n && r >= 0; i++)
    for (int32_t j = 0; j < Y->n && r >= 0; j++) {
      piece d;
      if (linear(L, &X->v[i], &Y->v[j], -1, &d)) return -1;
      int32_t c = mk_cmp(L, &d, x->rel);
      free(d.t);
      r = mk_or(L, r, mk_and(L, mk_and(L, X->v[i].guard, Y->v[j].guard), c));
    }
  return r;
}

static int32_t lower_bool(lower *L, const cr_node *x) {
  hs_node n;
  memset(&n, 0, sizeof n);
  switch (x->k) {
  case CR_TOK:
    n.op = HS_F_ATOM;
    n.sym = (uint8_t)x->v;
    return intern(L, &n);
  case CR_TRUE: return L->T;
  case CR_FALSE: return L->F;
  case CR_BVAR: return L->bnode[L->p->stmts[x->var].root];
  case CR_MODP:
    n.op = HS_F_MOD;
    n.k = x->mk;
    n.r = (x->mr + 1) % x->mk;
    return x->mk == 1 ? L->T : intern(L, &n);
  case CR_NOT: return mk_not(L, L->bnode[x->a]);
  case CR_AND: return mk_and(L, L->bnode[x->a], L->bnode[x->b]);
  case CR_OR: return mk_or(L, L->bnode[x->a], L->bnode[x->b]);
  case CR_CMP: return lower_cmp(L, x);
  default: return fail(L, "internal error: %s is not Boolean", "node");
  }
}

static int copy_pieces(lower *L, const pieces *X, int32_t guard, int64_t k,
                       pieces *out) {
  for (int32_t i = 0; i < X->n; i++) {
    piece q = X->v[i];
    lterm *t = q.nt ? malloc((size_t)q.nt * sizeof *t) : NULL;
    if (q.nt && !t) return oom(L);
    for (int32_t s = 0; s < q.nt; s++) t[s] = (lterm){q.t[s].arg, k * q.t[s].coef};
    piece r = {L->T, k * q.c, q.nt, t, 0};
    int rc = add_piece(L, out, mk_and(L, guard, q.guard), &r, NULL, 0);
    free(t);
    if (rc) return -1;
  }
  return 0;
}

static int lower_count(lower *L, const cr_node *x, pieces *out) {
  int32_t b;
  switch (x->k) {
  case CR_INT: return single(L, out, L->T, x->v, -1);
  case CR_CVAR: return copy_pieces(L, &L->pc[L->p->stmts[x->var].root], L->T, 1, out);
  case CR_COUNT: return single(L, out, L->T, 0, L->bnode[x->a]);
  case CR_SHIFT:
    if ((b = shift(L, L->bnode[x->a], x->v)) < 0) return -1;
    return single(L, out, b, 1, -1) || single(L, out, mk_not(L, b), 0, -1) ? -1 : 0;
  case CR_ADD: return combine(L, &L->pc[x->a], &L->pc[x->b], '+', out);
  case CR_SUB: return combine(L, &L->pc[x->a], &L->pc[x->b], '-', out);
  case CR_MIN: return combine(L, &L->pc[x->a], &L->pc[x->b], 'm', out);
  case CR_MAX: return combine(L, &L->pc[x->a], &L->pc[x->b], 'M', out);
  case CR_MUL: return copy_pieces(L, &L->pc[x->a], L->T, x->v, out);
  case CR_IF:
    b = L->bnode[x->b];
    return copy_pieces(L, &L->pc[x->a], b, 1, out) ||
           copy_pieces(L, &L->pc[x->c], mk_not(L, b), 1, out) ? -1 : 0;
  default: return fail(L, "internal error: %s is not a count", "node");
  }
}

/* Keep the nodes reachable from the root, in index order (children still
 * precede parents). */
static int compact(lower *L, int32_t *root) {
  hs_formula *f = L->f;
  int32_t *map = calloc((size_t)f->count + 1, sizeof *map);
  if (!map) return oom(L);
  map[*root] = 1;
  for (int32_t i = f->count - 1; i >= 0; i--) {
    const hs_node *n = &f->nodes[i];
    if (!map[i]) continue;
    if (n->a >= 0) map[n->a] = 1;
    if (n->b >= 0) map[n->b] = 1;
    for (int32_t t = 0; t < n->nterms; t++) map[n->terms[t].arg] = 1;
  }
  int32_t m = 0;
  for (int32_t i = 0; i < f->count; i++) {
    if (!map[i]) { free(f->nodes[i].terms); continue; }
    hs_node n = f->nodes[i];
    if (n.a >= 0) n.a = map[n.a] - 1;
    if (n.b >= 0) n.b = map[n.b] - 1;
    for (int32_t t = 0; t < n.nterms; t++) n.terms[t].arg = map[n.terms[t].arg] - 1;
    f->nodes[m] = n;
    map[i] = ++m;
  }
  *root = map[*root] - 1;
  f->count = m;
  hs_formula_drop_index(f);
  free(map);
  return 0;
}

static int lower_stmts(lower *L) {
  const hs_crasp *p = L->p;
  for (int32_t k = 0; k < p->nstmts && !L->failed; k++) {
    L->stmt = &p->stmts[k];
    for (int32_t id = L->stmt->first; id <= L->stmt->root; id++) {
      const cr_node *x = &p->nodes[id];
      if (x->is_bool) {
        if ((L->bnode[id] = lower_bool(L, x)) < 0) return -1;
      } else if (lower_count(L, x, &L->pc[id])) {
        return -1;
      }
      /* children are used once (a tree): free their pieces now */
      if (x->a >= 0 && !p->nodes[x->a].is_bool) pieces_free(&L->pc[x->a]);
      if (x->b >= 0 && !p->nodes[x->b].is_bool) pieces_free(&L->pc[x->b]);
      if (x->c >= 0 && !p->nodes[x->c].is_bool) pieces_free(&L->pc[x->c]);
    }
  }
  return L->failed ? -1 : 0;
}

hs_formula *hs_crasp_lower(const hs_crasp *p, hs_error *err) {
  hs_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  lower Lw;
  memset(&Lw, 0, sizeof Lw);
  lower *L = &Lw;
  L->p = p;
  L->err = err;
  if (!p || p->nstmts == 0) {
    fail(L, "no program%s", "");
    return NULL;
  }
  L->f = calloc(1, sizeof *L->f);
  L->bnode = calloc((size_t)p->nnodes, sizeof *L->bnode);
  L->pc = calloc((size_t)p->nnodes, sizeof *L->pc);
  int32_t root = -1;
  if (!L->f || !L->bnode || !L->pc) {
    oom(L);
  } else {
    L->f->root = -1;
    L->F = mk(L, HS_F_FALSE, -1, -1);
    L->T = mk(L, HS_F_TRUE, -1, -1);
    if (lower_stmts(L) == 0) {
      root = L->bnode[p->stmts[p->nstmts - 1].root];
      char text[160];
      snprintf(text, sizeof text, "C-RASP program (%d statements, value %.64s)",
               (int)p->nstmts, p->stmts[p->nstmts - 1].name);
      L->stmt = NULL;
      if (compact(L, &root) == 0 && !(L->f->text = strdup(text))) oom(L);
    }
  }
  for (int32_t id = 0; L->pc && id < p->nnodes; id++) pieces_free(&L->pc[id]);
  free(L->pc);
  free(L->bnode);
  free(L->depth);
  if (L->failed) {
    hs_formula_free(L->f);
    return NULL;
  }
  L->f->root = root;
  return L->f;
}
