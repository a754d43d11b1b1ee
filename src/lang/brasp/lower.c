/* SPDX-License-Identifier: MIT */
/* Lowering B-RASP to LTL (docs/LANGUAGE.md, "B-RASP programs"). B-RASP
 * with masks has exactly the power of LTL (both define the star-free
 * languages, Yang, Chiang and Angluin 2024); this is the direction
 * program -> formula, one formula Φ_k per statement k, each true at i iff
 * statement k is 1 at i.
 *
 * A token vector is an atom, a Boolean operation the same connective of
 * the Φ it reads. An attention statement
 *     P(i) = leftmost/rightmost j in mask(i) with S(i,j) : V(i,j), else D(i)
 * first splits S and V over the assignments α of the m query-side
 * vectors q_1..q_m they read (at most BR_MAX_QUERY): with q := α, S and
 * V read only the key, so they are formulas s_α, v_α evaluated at j, and
 *     Φ_P = OR_α ( AND_k [Φ_{q_k} = α_k] ) ∧ R(s_α, v_α, D)
 * (built as a Shannon expansion q_1 ? R|q_1=1 : R|q_1=0, ... that skips a
 * split whose two halves are the same node). With s, v key-side formulas,
 * "first" f = s ∧ v ∧ ¬Y O s (the leftmost s, carrying v) and "last"
 * l = s ∧ v ∧ ¬X F s (the rightmost s, carrying v):
 *
 *   rightmost j <= i:  (¬s S (s ∧ v))            ∨ (¬O s ∧ D)
 *   rightmost j <  i:  Y(¬s S (s ∧ v))           ∨ (¬Y O s ∧ D)
 *   rightmost j >= i:  F l                       ∨ (¬F s ∧ D)
 *   rightmost j >  i:  X F l                     ∨ (¬X F s ∧ D)
 *   rightmost (none):  F l ∨ (¬F s ∧ ((¬s S (s ∧ v)) ∨ (¬O s ∧ D)))
 *   leftmost  j <= i:  O f                       ∨ (¬O s ∧ D)
 *   leftmost  j <  i:  Y O f                     ∨ (¬Y O s ∧ D)
 *   leftmost  j >= i:  (¬s U (s ∧ v))            ∨ (¬F s ∧ D)
 *   leftmost  j >  i:  X(¬s U (s ∧ v))           ∨ (¬X F s ∧ D)
 *   leftmost  (none):  O f ∨ (¬O s ∧ ((¬s U (s ∧ v)) ∨ (¬F s ∧ D)))
 *
 * Why: ¬s S (s ∧ v) holds at i iff some j <= i has s ∧ v and no k in
 * (j, i] has s, i.e. the rightmost s at or before i exists and carries v;
 * Y shifts that to j < i. The rightmost s at or after i is the last s of
 * the whole string, provided that lies at or after i: F l. Mirror images
 * give the leftmost cases. Without a mask the rightmost j is the last s
 * after i if there is one (F s), else the rightmost s up to i; the
 * leftmost likewise. Each case's "no allowed j has s" is the negation of
 * its existence formula (O s, Y O s, F s, X F s, or both sides).
 *
 * Every temporal operator here is a since/until/once/eventually of a
 * key-side formula: the circuit (src/circuit/) turns each into one attention head plus
 * a rounding feed-forward layer, in every mode with that mode's guarantee
 * (docs/LANGUAGE.md §5); in pe/temp/rel the head's weight off the hard
 * target is at most S/(1+S), S = 2e^{-μ}/(1-e^{-μ}).
 *
 * Nodes are hash-consed (so a statement read many times is one node) and
 * constants are folded (¬¬a = a, a ∧ false = false, O false = false,
 * false S b = b, ...: every fold is an identity of the semantics, so the
 * formula stays equal to the program). Limits: BR_MAX_QUERY query-side
 * vectors per attention, BR_MAX_NODES nodes, BR_MAX_WORK expression visits
 * (the 2^m cases each re-read S and V), and a formula tree depth of
 * hs_get_limits().max_depth (the compiler and printer recurse over it). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "lang/brasp/ast.h"


/* The model grows like 2^m in width: m = 10 compiles in about 2 s and
 * 0.5 GB, m = 11 takes several GB and m = 12 did not fit in 24 GB. */
#define BR_MAX_QUERY 10
#define BR_MAX_NODES (1 << 18)
#define BR_MAX_WORK (1 << 26)

typedef struct lw {
  const hs_brasp *p;
  hs_formula *f;
  int32_t *depth;   /* tree depth per node */
  size_t depcap;
  int32_t *phi;     /* per statement */
  int32_t F, T;     /* the constants */
  const br_stmt *cur;
  int32_t q[BR_MAX_QUERY]; /* query-side vectors: statement k, or -1-byte */
  uint8_t alpha[BR_MAX_QUERY];
  int nq, maxdepth, failed;
  int64_t work;     /* lower_expr visits */
  hs_error *err;
} lw;

static int fail(lw *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(lw *l, const char *fmt, ...) {
  if (l->failed) return -1;
  l->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  int line = l->cur ? l->cur->line : 0, col = l->cur ? l->cur->column : 0;
  hs_text_verror(l->err, strstr(fmt, "out of memory") ? HS_ERR_NOMEM : HS_ERR_UNSUPPORTED,
                 line, col, fmt, ap);
  va_end(ap);
  return -1;
}

/* Room in depth[] for one more node. */
static int grow_depth(lw *l) {
  if ((size_t)l->f->count < l->depcap) return 0;
  size_t cap = l->depcap ? l->depcap * 2 : 512;
  int32_t *d = realloc(l->depth, cap * sizeof *d);
  if (!d) return -1;
  l->depth = d;
  l->depcap = cap;
  return 0;
}

/* Intern (op, a, b[, sym]); -1 after an error. */
static int32_t mk_node(lw *l, hs_fop op, int32_t a, int32_t b, uint8_t sym) {
  int binary = op == HS_F_AND || op == HS_F_OR || op == HS_F_SINCE || op == HS_F_UNTIL;
  int unary = op >= HS_F_NOT && !binary;
  if (l->failed || ((unary || binary) && a < 0) || (binary && b < 0)) return -1;
  hs_node n;
  memset(&n, 0, sizeof n);
  n.op = op;
  n.a = a;
  n.b = b;
  n.sym = sym;
  int32_t found = hs_formula_find(l->f, &n);
  if (found != -1) return found >= 0 ? found : fail(l, "out of memory");
  if (l->f->count >= BR_MAX_NODES)
    return fail(l, "program too large to lower (more than %d formula nodes)", BR_MAX_NODES);
  int32_t d = 0;
  if (a >= 0) d = l->depth[a];
  if (b >= 0 && l->depth[b] > d) d = l->depth[b];
  if (d + 1 > l->maxdepth)
    return fail(l, "program nests too deeply to lower (formula depth above %d)", l->maxdepth);
  int32_t id = grow_depth(l) ? -1 : hs_formula_add(l->f, &n);
  if (id < 0) return fail(l, "out of memory");
  l->depth[id] = d + 1;
  return id;
}

static hs_fop op_of(const lw *l, int32_t x) { return l->f->nodes[x].op; }

static int32_t mk_not(lw *l, int32_t a) {
  if (a < 0) return -1;
  if (a == l->T) return l->F;
  if (a == l->F) return l->T;
  if (op_of(l, a) == HS_F_NOT) return l->f->nodes[a].a;
  return mk_node(l, HS_F_NOT, a, -1, 0);
}

static int32_t mk_and(lw *l, int32_t a, int32_t b) {
  if (a < 0 || b < 0) return -1;
  if (a == l->F || b == l->F) return l->F;
  if (a == l->T) return b;
  if (b == l->T || a == b) return a;
  return mk_node(l, HS_F_AND, a, b, 0);
}

static int32_t mk_or(lw *l, int32_t a, int32_t b) {
  if (a < 0 || b < 0) return -1;
  if (a == l->T || b == l->T) return l->T;
  if (a == l->F) return b;
  if (b == l->F || a == b) return a;
  return mk_node(l, HS_F_OR, a, b, 0);
}

/* X, Y, F, O of a: false stays false; F and O keep true. */
static int32_t mk_temp(lw *l, hs_fop op, int32_t a) {
  if (a < 0) return -1;
  if (a == l->F) return l->F;
  if (a == l->T && (op == HS_F_EVENTUALLY || op == HS_F_ONCE)) return l->T;
  return mk_node(l, op, a, -1, 0);
}

/* a S b or a U b: nothing to reach when b is false; b alone when a is. */
static int32_t mk_since(lw *l, hs_fop op, int32_t a, int32_t b) {
  if (a < 0 || b < 0) return -1;
  if (b == l->F) return l->F;
  if (a == l->F) return b;
  return mk_node(l, op, a, b, 0);
}

/* ------------------------------------------------------- expressions */

/* The formula of a vector read at its own position: Φ of a statement, or
 * the token's atom. */
static int32_t vec(lw *l, const br_expr *x) {
  return x->op == BR_REF ? l->phi[x->ref] : mk_node(l, HS_F_ATOM, -1, -1, x->byte);
}

static int32_t qkey(const br_expr *x) {
  return x->op == BR_REF ? x->ref : -1 - (int32_t)x->byte;
}

/* Expression e as a formula. Query-side reads become the constants of
 * l->alpha inside a score or value (key = 1), and are read in place in a
 * position-wise statement or a default (where every read is at i). */
static int32_t lower_expr(lw *l, int32_t e, int key) {
  const br_expr *x = &l->p->ex[e];
  /* 2^m cases re-read S and V: bound the total work, not only the nodes */
  if (++l->work > BR_MAX_WORK)
    return fail(l, "program too large to lower (more than %d expression visits)",
                BR_MAX_WORK);
  switch (x->op) {
  case BR_CONST: return x->val ? l->T : l->F;
  case BR_REF: case BR_TOK:
    if (key && x->side == BR_SIDE_I) {
      for (int k = 0; k < l->nq; k++)
        if (l->q[k] == qkey(x)) return l->alpha[k] ? l->T : l->F;
      return fail(l, "internal error: unlisted query-side vector");
    }
    return vec(l, x);
  case BR_NOT: return mk_not(l, lower_expr(l, x->a, key));
  case BR_AND: {
    int32_t a = lower_expr(l, x->a, key);
    return mk_and(l, a, lower_expr(l, x->b, key));
  }
  case BR_OR: {
    int32_t a = lower_expr(l, x->a, key);
    return mk_or(l, a, lower_expr(l, x->b, key));
  }
  }
  return -1;
}

/* List the query-side vectors e reads into l->q. */
static int collect_query(lw *l, int32_t e) {
  const br_expr *x = &l->p->ex[e];
  switch (x->op) {
  case BR_REF: case BR_TOK:
    if (x->side != BR_SIDE_I) return 0;
    for (int k = 0; k < l->nq; k++)
      if (l->q[k] == qkey(x)) return 0;
    if (l->nq == BR_MAX_QUERY)
      return fail(l, "attention reads more than %d query-side vectors in its "
                  "score and value (its model grows like 2^m: split the "
                  "attention)", BR_MAX_QUERY);
    l->q[l->nq++] = qkey(x);
    return 0;
  case BR_NOT: return collect_query(l, x->a);
  case BR_AND: case BR_OR:
    return collect_query(l, x->a) ? -1 : collect_query(l, x->b);
  default: return 0;
  }
}

/* ------------------------------------------------------- attention */

/* R(s, v, d) of the table at the top, for one statement's mask and side. */
static int32_t attn_case(lw *l, const br_stmt *st, int32_t s, int32_t v,
                         int32_t d) {
  int32_t sv = mk_and(l, s, v), ns = mk_not(l, s);
  int32_t Os = mk_temp(l, HS_F_ONCE, s), Fs = mk_temp(l, HS_F_EVENTUALLY, s);
  /* the key-side formula each direction needs, in the same order as
   * always (nodes are interned as they are made) */
  int32_t past, fut;
  if (st->rightmost) {
    past = mk_since(l, HS_F_SINCE, ns, sv);                  /* j <= i */
    int32_t last = mk_and(l, sv, mk_not(l, mk_temp(l, HS_F_NEXT, Fs)));
    fut = mk_temp(l, HS_F_EVENTUALLY, last);                 /* j >= i */
  } else {
    fut = mk_since(l, HS_F_UNTIL, ns, sv);                   /* j >= i */
    int32_t first = mk_and(l, sv, mk_not(l, mk_temp(l, HS_F_YESTERDAY, Os)));
    past = mk_temp(l, HS_F_ONCE, first);                     /* j <= i */
  }
  switch (st->mask) {
  case BR_MASK_LE: return mk_or(l, past, mk_and(l, mk_not(l, Os), d));
  case BR_MASK_LT:
    return mk_or(l, mk_temp(l, HS_F_YESTERDAY, past),
                 mk_and(l, mk_not(l, mk_temp(l, HS_F_YESTERDAY, Os)), d));
  case BR_MASK_GE: return mk_or(l, fut, mk_and(l, mk_not(l, Fs), d));
  case BR_MASK_GT:
    return mk_or(l, mk_temp(l, HS_F_NEXT, fut),
                 mk_and(l, mk_not(l, mk_temp(l, HS_F_NEXT, Fs)), d));
  case BR_MASK_NONE:
    /* no mask: the side that wins the tie rule is tried first */
    if (st->rightmost)
      return mk_or(l, fut, mk_and(l, mk_not(l, Fs),
                                  mk_or(l, past, mk_and(l, mk_not(l, Os), d))));
    return mk_or(l, past, mk_and(l, mk_not(l, Os),
                                 mk_or(l, fut, mk_and(l, mk_not(l, Fs), d))));
  }
  return -1;
}

/* The Shannon expansion over query-side vectors k.. (the top comment). */
static int32_t expand(lw *l, const br_stmt *st, int k, int32_t d) {
  if (l->failed) return -1;
  if (k == l->nq) {
    int32_t s = lower_expr(l, st->s, 1);
    return attn_case(l, st, s, lower_expr(l, st->v, 1), d);
  }
  l->alpha[k] = 1;
  int32_t r1 = expand(l, st, k + 1, d);
  l->alpha[k] = 0;
  int32_t r0 = expand(l, st, k + 1, d);
  if (r1 < 0 || r0 < 0) return -1;
  if (r1 == r0) return r1;
  int32_t q = l->q[k] >= 0 ? l->phi[l->q[k]]
                           : mk_node(l, HS_F_ATOM, -1, -1, (uint8_t)(-1 - l->q[k]));
  return mk_or(l, mk_and(l, q, r1), mk_and(l, mk_not(l, q), r0));
}

static int32_t lower_stmt(lw *l, const br_stmt *st) {
  if (!st->attn) return lower_expr(l, st->e, 0);
  l->nq = 0;
  if (collect_query(l, st->s) || collect_query(l, st->v)) return -1;
  return expand(l, st, 0, lower_expr(l, st->d, 0));
}

hs_formula *hs_brasp_lower(const hs_brasp *p, hs_error *err) {
  hs_error dummy;
  lw l;
  memset(&l, 0, sizeof l);
  l.err = err ? err : &dummy;
  memset(l.err, 0, sizeof *l.err);
  if (!p || p->n == 0) { fail(&l, "no program"); return NULL; }
  l.p = p;
  l.maxdepth = hs_get_limits().max_depth;
  l.f = calloc(1, sizeof *l.f);
  l.phi = malloc((size_t)p->n * sizeof *l.phi);
  if (!l.f || !l.phi) fail(&l, "out of memory");
  l.F = mk_node(&l, HS_F_FALSE, -1, -1, 0);
  l.T = mk_node(&l, HS_F_TRUE, -1, -1, 0);
  for (int k = 0; k < p->n && !l.failed; k++) {
    l.cur = &p->st[k];
    l.phi[k] = lower_stmt(&l, l.cur);
  }
  if (!l.failed) {
    const char *root = p->st[p->n - 1].name;
    size_t len = strlen(root) + 32;
    l.f->text = malloc(len);
    if (!l.f->text) fail(&l, "out of memory");
    else snprintf(l.f->text, len, "B-RASP program, root %s", root);
    l.f->root = l.phi[p->n - 1];
  }
  free(l.depth);
  free(l.phi);
  if (l.failed) {
    hs_formula_free(l.f);
    return NULL;
  }
  return l.f;
}
