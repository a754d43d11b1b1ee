/* SPDX-License-Identifier: MIT */
/* Lowering B-RASP into the circuit (docs/LANGUAGE.md, "B-RASP programs").
 * B-RASP with masks has exactly the power of LTL (both define the
 * star-free languages, Yang, Chiang and Angluin 2024); this is the
 * direction program -> formula, one formula Φ_k per statement k, each true
 * at i iff statement k is 1 at i, built as circuit nodes (src/circuit/):
 * the formula operators become the heads src/lang/ltl/lower.c gives them
 * (O p: rightmost j <= i where p, reading p; p S q: rightmost j <= i where
 * p -> q, reading q; Y, X, F, U alike), built once when the program is
 * read (hs_prebuilt) and named in the program's words.
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
 * h_M(x) the head "rightmost (or leftmost) j M i where s holds, reading
 * x", "first" f = s ∧ v ∧ ¬Y O s (the leftmost s, carrying v) and "last"
 * l = s ∧ v ∧ ¬X F s (the rightmost s, carrying v):
 *
 *   rightmost j <= i:  h_<=(s ∧ v)               ∨ (¬O s ∧ D)
 *   rightmost j <  i:  h_<(s ∧ v)                ∨ (¬h_<(s) ∧ D)
 *   rightmost j >= i:  F l                       ∨ (¬F s ∧ D)
 *   rightmost j >  i:  X F l                     ∨ (¬X F s ∧ D)
 *   rightmost (none):  F l ∨ (¬F s ∧ (rightmost j <= i))
 *   leftmost  j <= i:  O f                       ∨ (¬O s ∧ D)
 *   leftmost  j <  i:  Y O f                     ∨ (¬Y O s ∧ D)
 *   leftmost  j >= i:  h_>=(s ∧ v)               ∨ (¬F s ∧ D)
 *   leftmost  j >  i:  h_>(s ∧ v)                ∨ (¬h_>(s) ∧ D)
 *   leftmost  (none):  O f ∨ (¬O s ∧ (leftmost j >= i))
 *
 * (O s = h_<=(s) and F s = h_>=(s) are those heads too.) Why: the rows
 * with h are the attention itself, for the nearest s on one side: the
 * head reads s ∧ v, which is 0 wherever s is, so when no allowed j has s
 * the position it falls back to reads 0 too, and h(s) says whether one
 * has. The rightmost s at or after i is the last s of the whole string,
 * provided that lies at or after i: F l; X shifts that to j > i, and the
 * mirror images give the leftmost s at or before i. Without a mask the
 * rightmost j is the last s after i if there is one (F s), else the
 * rightmost s up to i; the leftmost likewise. The farthest s needs F / O
 * of l or f because the relative-bias mode's heads cannot select it
 * directly (their bias prefers the nearest key); the nearest needs two
 * heads, where the since/until form this replaced needed two (j <= i) or
 * four (j < i: Y of S and of O) and a selector s -> (s ∧ v) a layer or
 * two later than s: never a larger model.
 *
 * Every head reads a key-side formula: the circuit turns each into one
 * attention head plus a rounding feed-forward layer, in every mode with
 * that mode's guarantee (docs/LANGUAGE.md §5); in pe/temp/rel the head's
 * weight off the hard target is at most S/(1+S), S = 2e^{-μ}/(1-e^{-μ}).
 *
 * Nodes are hash-consed (so a statement read many times is one node) and
 * constants are folded (¬¬a = a, a ∧ false = false, O false = false,
 * no j has false, ...: every fold is an identity of the semantics, so the
 * circuit stays equal to the program). Limits: BR_MAX_QUERY query-side
 * vectors per attention, BR_MAX_NODES circuit nodes, BR_MAX_WORK
 * expression visits (the 2^m cases each re-read S and V), and a depth of
 * hs_get_limits().max_depth (a chain of k operators is k deep, and so
 * many layers). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "circuit/circuit.h"
#include "lang/brasp/ast.h"
#include "lang/ltl/formula.h"


/* The model grows like 2^m in width: m = 10 compiles in about 2 s and
 * 0.5 GB, m = 11 takes several GB and m = 12 did not fit in 24 GB. */
#define BR_MAX_QUERY 10
#define BR_MAX_NODES (1 << 18)
#define BR_MAX_WORK (1 << 26)

typedef struct lw {
  const hs_brasp *p;
  hs_prebuilt *B;
  int32_t *phi;     /* per statement */
  int32_t F, T;     /* the constants */
  const br_stmt *cur;
  int32_t q[BR_MAX_QUERY]; /* query-side vectors: statement k, or -1-byte */
  uint8_t alpha[BR_MAX_QUERY];
  int nq, maxdepth, failed;
  int64_t work;     /* lower_expr visits */
  hs_error *err;
} lw;

static int fail(lw *l, hs_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(lw *l, hs_errcode code, const char *fmt, ...) {
  if (l->failed) return -1;
  l->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  int line = l->cur ? l->cur->line : 0, col = l->cur ? l->cur->column : 0;
  hs_text_verror(l->err, code, line, col, fmt, ap);
  va_end(ap);
  return -1;
}

/* Adds n, named by fmt when new; -1 after an error. */
static int32_t add(lw *l, hs_cnode n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int32_t add(lw *l, hs_cnode n, const char *fmt, ...) {
  if (l->failed) return -1;
  int d;
  va_list ap;
  va_start(ap, fmt);
  int32_t id = hs_prebuilt_vadd(l->B, n, &d, fmt, ap);
  va_end(ap);
  if (id < 0) return fail(l, HS_ERR_NOMEM, "out of memory");
  if (l->B->C.n > BR_MAX_NODES)
    return fail(l, HS_ERR_UNSUPPORTED, "program too large to lower (more than %d circuit nodes)", BR_MAX_NODES);
  if (d > l->maxdepth)
    return fail(l, HS_ERR_UNSUPPORTED, "program nests too deeply to lower (circuit depth above %d)", l->maxdepth);
  return id;
}

static int32_t gate(lw *l, hs_gkind g, int32_t a, int32_t b) {
  static const char *const op[] = {[HS_G_AND] = "&", [HS_G_OR] = "|"};
  char x[208], y[208];
  if (a < 0 || (g != HS_G_NOT && b < 0)) return -1;
  hs_cnode n = hs_cnode_blank(HS_C_GATE, -1);
  n.g = g;
  n.a = a;
  n.b = b;
  if (g == HS_G_NOT) return add(l, n, "!%s", hs_prebuilt_operand(l->B, a, x, sizeof x));
  return add(l, n, "%s %s %s", hs_prebuilt_operand(l->B, a, x, sizeof x), op[g],
             hs_prebuilt_operand(l->B, b, y, sizeof y));
}

/* "rightmost (right = 1) / leftmost j MASK i where sel (-1: any
 * position), reading val", named `what`. */
static int32_t head(lw *l, int right, hs_mask mask, int32_t sel, int32_t val,
                    const char *what) {
  if (l->failed || val < 0) return -1;
  hs_cnode n = hs_cnode_blank(HS_C_HEAD, -1);
  n.right = right;
  n.mask = mask;
  n.sel = sel;
  n.val = val;
  return add(l, n, "%s", what);
}

/* A formula operator over circuit nodes (Y, X, F and O as the heads
 * src/lang/ltl/lower.c makes of them), named as the formula prints. */
static int32_t mk_node(lw *l, hs_fop op, int32_t a, int32_t b, uint8_t sym) {
  int binary = op == HS_F_AND || op == HS_F_OR;
  int unary = op >= HS_F_NOT && !binary;
  if (l->failed || ((unary || binary) && a < 0) || (binary && b < 0)) return -1;
  char x[208] = "", t[220];
  const char *A = a >= 0 ? hs_prebuilt_operand(l->B, a, x, sizeof x) : "";
  hs_cnode n;
  switch (op) {
  case HS_F_FALSE: return add(l, hs_cnode_blank(HS_C_FALSE, -1), "false");
  case HS_F_TRUE: return add(l, hs_cnode_blank(HS_C_TRUE, -1), "true");
  case HS_F_ATOM:
    n = hs_cnode_blank(HS_C_ATOM, -1);
    n.sym = sym;
    if (sym > 0x20 && sym < 0x7f && sym != '"' && sym != '\\')
      return add(l, n, "token \"%c\"", sym);
    return add(l, n, "token 0x%02x", sym);
  case HS_F_NOT: return gate(l, HS_G_NOT, a, -1);
  case HS_F_AND: return gate(l, HS_G_AND, a, b);
  case HS_F_OR: return gate(l, HS_G_OR, a, b);
  case HS_F_NEXT: snprintf(t, sizeof t, "X %s", A); return head(l, 0, HS_MASK_GT, -1, a, t);
  case HS_F_YESTERDAY: snprintf(t, sizeof t, "Y %s", A); return head(l, 1, HS_MASK_LT, -1, a, t);
  case HS_F_EVENTUALLY: snprintf(t, sizeof t, "F %s", A); return head(l, 0, HS_MASK_GE, a, a, t);
  case HS_F_ONCE: snprintf(t, sizeof t, "O %s", A); return head(l, 1, HS_MASK_LE, a, a, t);
  default: return fail(l, HS_ERR_UNSUPPORTED, "internal error: operator %d", (int)op);
  }
}

static int32_t mk_not(lw *l, int32_t a) {
  if (a < 0) return -1;
  if (a == l->T) return l->F;
  if (a == l->F) return l->T;
  const hs_cnode *x = &l->B->C.c[a];
  if (x->kind == HS_C_GATE && x->g == HS_G_NOT) return x->a;
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
    return fail(l, HS_ERR_UNSUPPORTED, "program too large to lower (more than %d expression visits)",
                BR_MAX_WORK);
  switch (x->op) {
  case BR_CONST: return x->val ? l->T : l->F;
  case BR_REF: case BR_TOK:
    if (key && x->side == BR_SIDE_I) {
      for (int k = 0; k < l->nq; k++)
        if (l->q[k] == qkey(x)) return l->alpha[k] ? l->T : l->F;
      return fail(l, HS_ERR_UNSUPPORTED, "internal error: unlisted query-side vector");
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
      return fail(l, HS_ERR_UNSUPPORTED, "attention reads more than %d query-side vectors in its "
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

/* The nearest s on the side mask allows (rightmost: j < i or j <= i,
 * leftmost: j > i or j >= i) as one head reading s ∧ v and one reading s,
 * else d (the direct heads of the top comment). */
static int32_t attn_direct(lw *l, int right, br_mask mask, int32_t s, int32_t v,
                           int32_t d) {
  static const hs_mask hm[] = {[BR_MASK_LE] = HS_MASK_LE, [BR_MASK_LT] = HS_MASK_LT,
                               [BR_MASK_GE] = HS_MASK_GE, [BR_MASK_GT] = HS_MASK_GT};
  static const char *const mtext[] = {[BR_MASK_LE] = "<=", [BR_MASK_LT] = "<",
                                      [BR_MASK_GE] = ">=", [BR_MASK_GT] = ">"};
  hs_mask m = hm[mask];
  if (s == l->F) return d;               /* no j has s */
  int32_t sv = mk_and(l, s, v);
  if (s == l->T && (m == HS_MASK_LE || m == HS_MASK_GE)) return sv; /* j = i */
  if (sv < 0) return -1;
  char x[208], y[208], t[440];
  snprintf(t, sizeof t, "%s j %s i where %s", right ? "rightmost" : "leftmost",
           mtext[mask], hs_prebuilt_operand(l->B, s, x, sizeof x));
  int32_t some = m == HS_MASK_LE ? mk_temp(l, HS_F_ONCE, s)
                 : m == HS_MASK_GE ? mk_temp(l, HS_F_EVENTUALLY, s)
                                   : head(l, right, m, s, s, t);
  snprintf(t + strlen(t), sizeof t - strlen(t), ", reading %s",
           hs_prebuilt_operand(l->B, sv, y, sizeof y));
  int32_t val = sv == l->F ? l->F : head(l, right, m, s, sv, t);
  return mk_or(l, val, mk_and(l, mk_not(l, some), d));
}

/* R(s, v, d) of the table at the top, for one statement's mask and side:
 * the nearest side by its direct heads, the farthest by F / O of the last /
 * first s (rightmost j >= i: F l, l = s ∧ v ∧ ¬X F s). */
static int32_t attn_case(lw *l, const br_stmt *st, int32_t s, int32_t v,
                         int32_t d) {
  int right = st->rightmost;
  if (s < 0 || v < 0 || d < 0) return -1;
  if (right ? st->mask == BR_MASK_LE || st->mask == BR_MASK_LT
            : st->mask == BR_MASK_GE || st->mask == BR_MASK_GT)
    return attn_direct(l, right, st->mask, s, v, d);
  int32_t sv = mk_and(l, s, v);
  int32_t Os = mk_temp(l, HS_F_ONCE, s), Fs = mk_temp(l, HS_F_EVENTUALLY, s), far;
  if (right) /* F of the last s, carrying v */
    far = mk_temp(l, HS_F_EVENTUALLY, mk_and(l, sv, mk_not(l, mk_temp(l, HS_F_NEXT, Fs))));
  else       /* O of the first s */
    far = mk_temp(l, HS_F_ONCE, mk_and(l, sv, mk_not(l, mk_temp(l, HS_F_YESTERDAY, Os))));
  switch (st->mask) {
  case BR_MASK_GE: return mk_or(l, far, mk_and(l, mk_not(l, Fs), d));
  case BR_MASK_GT:
    return mk_or(l, mk_temp(l, HS_F_NEXT, far),
                 mk_and(l, mk_not(l, mk_temp(l, HS_F_NEXT, Fs)), d));
  case BR_MASK_LE: return mk_or(l, far, mk_and(l, mk_not(l, Os), d));
  case BR_MASK_LT:
    return mk_or(l, mk_temp(l, HS_F_YESTERDAY, far),
                 mk_and(l, mk_not(l, mk_temp(l, HS_F_YESTERDAY, Os)), d));
  default: /* no mask: the farthest on the side that wins ties, else the
            * nearest on the other */
    return mk_or(l, far, mk_and(l, mk_not(l, right ? Fs : Os),
                                attn_direct(l, right, right ? BR_MASK_LE : BR_MASK_GE,
                                            s, v, d)));
  }
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

/* The statements' circuit, only what the last one needs, named by a line
 * for the model's metadata. */
static hs_prebuilt *finish(lw *l) {
  const char *root = l->p->st[l->p->n - 1].name;
  size_t len = strlen(root) + 32;
  hs_prebuilt *B = l->B;
  B->root = l->phi[l->p->n - 1];
  l->cur = NULL;
  if (!(B->text = malloc(len)) || hs_circuit_keep(&B->C, &B->root)) {
    fail(l, HS_ERR_NOMEM, "out of memory");
    return NULL;
  }
  snprintf(B->text, len, "B-RASP program, root %s", root);
  B->C.source = B->text;
  l->B = NULL;
  return B;
}

hs_prebuilt *hs_brasp_lower(const hs_brasp *p, hs_error *err) {
  hs_error dummy;
  lw l;
  memset(&l, 0, sizeof l);
  l.err = err ? err : &dummy;
  memset(l.err, 0, sizeof *l.err);
  if (!p || p->n == 0) { fail(&l, HS_ERR_UNSUPPORTED, "no program"); return NULL; }
  l.p = p;
  l.maxdepth = hs_get_limits().max_depth;
  l.B = hs_prebuilt_new();
  l.phi = malloc((size_t)p->n * sizeof *l.phi);
  if (!l.B || !l.phi) fail(&l, HS_ERR_NOMEM, "out of memory");
  l.F = mk_node(&l, HS_F_FALSE, -1, -1, 0);
  l.T = mk_node(&l, HS_F_TRUE, -1, -1, 0);
  for (int k = 0; k < p->n && !l.failed; k++) {
    l.cur = &p->st[k];
    int32_t before = l.B->C.n;
    l.phi[k] = lower_stmt(&l, l.cur);
    if (!l.failed && hs_prebuilt_rename(l.B, l.phi[k], before, l.cur->name))
      fail(&l, HS_ERR_NOMEM, "out of memory");
  }
  hs_prebuilt *f = l.failed ? NULL : finish(&l);
  free(l.phi);
  hs_prebuilt_free(l.B);
  return f;
}
