/* SPDX-License-Identifier: MIT */
/* Lowering a C-RASP program straight into the circuit (src/circuit/): its
 * Booleans become gates, heads and atoms, its counts the circuit's counts
 * and its comparisons the circuit's signs; no formula in between. The
 * circuit is built once, when the program is read, and every compile
 * starts from a copy (hs_prebuilt).
 *
 * Positions. The reference interpreter numbers positions from 0, the
 * circuit from 1: position i of the program is position i + 1 there.
 *   "tok"           the atom of the token's byte (src/lang/lang.h)
 *   # b             the count of j <= i where b holds: the same set of
 *                   positions in either numbering
 *   #[predK] b      b at i - K, 0 before: K heads "rightmost j < i",
 *                   each reading the one before
 *   pos_modK_R      i mod K = R (from 0) is the feature i mod K = (R + 1)
 *                   mod K (from 1)
 *   Boolean statements are shared nodes (the circuit hash-conses them),
 *   count statements are inlined where they are used.
 *
 * Counts. Every count expression e is lowered to a case split: pieces
 * (g_1, L_1) .. (g_m, L_m) with guards g_k (circuit nodes, exactly one
 * true at each position) and linear forms L_k = sum_t a_t #(b_t) + c,
 * such that e = L_k wherever g_k holds:
 *   integer c                  (true, c)
 *   # b                        (true, #(b))
 *   #[predK] b                 (b[i-K], 1), (!b[i-K], 0)
 *   x + y, x - y               (gx & gy, Lx +- Ly) over every pair
 *   k * x                      (gx, k Lx)
 *   min(x, y)                  (gx & gy & Lx - Ly <= 0, Lx),
 *                              (gx & gy & !(Lx - Ly <= 0), Ly); max with >=
 *   x if b else y              (b & gx, Lx) and (!b & gy, Ly)
 * (pieces with equal linear forms are merged, their guards or-ed; a guard
 * folded to false is dropped). A comparison x REL y is then
 *   OR over the pairs of (gx & gy & (Lx - Ly REL 0)),
 * each Lx - Ly REL 0 one comparison (like terms merged, the first
 * coefficient made positive, constant ones folded): a uniform head per
 * count (#/D exactly, D = i + 1), one reading the BOS indicator (1/D), and
 * the signs of src/circuit/weights.c; equal comparisons share them. Every
 * coefficient and constant stays below 2^32 in magnitude (the parser's
 * bounds, ast.h). The number of pieces multiplies with each min, max, if
 * and #[pred] combined in one comparison; more than HS_CRASP_MAX_CASES
 * pieces or comparison cases in one statement is an error naming the
 * statement, never a silent blow-up.
 *
 * Names. Every node gets a source label in the program's words (statement
 * names, "tok", #(...)), which the model's coordinates and heads show. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/names.h"
#include "base/text.h"
#include "circuit/circuit.h"
#include "lang/compare.h"
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
  const hs_vocab *v;
  hs_prebuilt *B;
  hs_names cmps;      /* a comparison's key (rel, c, terms) -> its label */
  char **keys;        /* the keys cmps points at */
  int32_t nkeys, capkeys;
  int32_t *bnode;     /* [nnodes]: circuit node of a Boolean AST node */
  pieces *pc;         /* [nnodes]: pieces of a count AST node */
  int32_t T, F;
  const cr_stmt *stmt;
  hs_error *err;
  int failed;
} lower;

static int fail(lower *L, hs_errcode code, const char *fmt, const char *name) {
  if (L->failed) return -1;
  L->failed = 1;
  if (L->stmt) return hs_text_error(L->err, code, L->stmt->line, L->stmt->col, fmt, name);
  return hs_errorf(L->err, code, fmt, name);
}

static int oom(lower *L) { return fail(L, HS_ERR_NOMEM, "out of memory%s", ""); }

/* The current statement's name for a message: whole up to 40 bytes, else
 * its first 36 and "...", so that the reason after it fits whole. */
static const char *stmt_name(const lower *L) {
  static _Thread_local char buf[48];
  const char *s = L->stmt ? L->stmt->name : "?";
  if (strlen(s) <= 40) return s;
  snprintf(buf, sizeof buf, "%.36s...", s);
  return buf;
}

/* ------------------------------------------------------ circuit nodes */

static const char *label(const lower *L, int32_t id) { return hs_prebuilt_name(L->B, id); }

static const char *operand(const lower *L, int32_t id, char *buf, size_t len) {
  return hs_prebuilt_operand(L->B, id, buf, len);
}

/* Adds n (shared when it exists); a new node gets the label fmt. A chain
 * of k && or || is k deep: the circuit is held to --max-depth like a
 * formula, which keeps a model's layers within it. */
static int32_t add(lower *L, hs_cnode n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int32_t add(lower *L, hs_cnode n, const char *fmt, ...) {
  if (L->failed) return -1;
  int d;
  va_list ap;
  va_start(ap, fmt);
  int32_t id = hs_prebuilt_vadd(L->B, n, &d, fmt, ap);
  va_end(ap);
  if (id < 0) return oom(L);
  if (d > hs_get_limits().max_depth) {
    fail(L, HS_ERR_UNSUPPORTED, "statement '%s' lowers to a circuit nested too deeply (a chain "
         "of k && or || is k deep) (limit max_depth)", stmt_name(L));
    return hs_error_limit(L->err, HS_LIMIT_MAX_DEPTH);
  }
  return id;
}

static int32_t gate(lower *L, hs_gkind g, int32_t a, int32_t b) {
  char x[208], y[208];
  hs_cnode n = hs_cnode_blank(HS_C_GATE, -1);
  n.g = g;
  n.a = a;
  n.b = b;
  if (g == HS_G_NOT) return add(L, n, "!%s", operand(L, a, x, sizeof x));
  return add(L, n, "%s %s %s", operand(L, a, x, sizeof x), g == HS_G_AND ? "&&" : "||",
             operand(L, b, y, sizeof y));
}

static int32_t mk_not(lower *L, int32_t a) {
  if (a < 0) return -1;
  if (a == L->T) return L->F;
  if (a == L->F) return L->T;
  const hs_cnode *x = &L->B->C.c[a];
  if (x->kind == HS_C_GATE && x->g == HS_G_NOT) return x->a;
  return gate(L, HS_G_NOT, a, -1);
}

static int32_t mk_and(lower *L, int32_t a, int32_t b) {
  if (a < 0 || b < 0) return -1;
  if (a == L->F || b == L->F) return L->F;
  if (a == L->T || a == b) return b;
  if (b == L->T) return a;
  return gate(L, HS_G_AND, a, b);
}

static int32_t mk_or(lower *L, int32_t a, int32_t b) {
  if (a < 0 || b < 0) return -1;
  if (a == L->T || b == L->T) return L->T;
  if (a == L->F || a == b) return b;
  if (b == L->F) return a;
  return gate(L, HS_G_OR, a, b);
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

/* The label "2*#(b) - #(c) + 1 > 0" of a comparison, written into buf. */
static void cmp_text(const lower *L, const lterm *t, int32_t nt, int64_t c, int rel,
                     char *buf, size_t len) {
  static const char *const rels[] = {"<", "<=", "==", "!=", ">=", ">"};
  size_t o = 0;
  for (int32_t k = 0; k < nt && o < len; k++) {
    int64_t a = t[k].coef < 0 ? -t[k].coef : t[k].coef;
    const char *sg = k == 0 ? (t[k].coef < 0 ? "-" : "") : (t[k].coef < 0 ? " - " : " + ");
    if (a == 1) o += (size_t)snprintf(buf + o, len - o, "%s#(%s)", sg, label(L, t[k].arg));
    else o += (size_t)snprintf(buf + o, len - o, "%s%lld*#(%s)", sg, (long long)a, label(L, t[k].arg));
  }
  if (o < len && c) o += (size_t)snprintf(buf + o, len - o, " %c %lld", c < 0 ? '-' : '+',
                                          (long long)(c < 0 ? -c : c));
  if (o < len) snprintf(buf + o, len - o, " %s 0", rels[rel]);
}

/* The source of the comparison sum t + c REL 0: one per distinct
 * comparison (a key of rel, c and the terms' nodes), so that equal
 * comparisons share their signs, which the circuit identifies by source. */
static int32_t cmp_src(lower *L, const lterm *t, int32_t nt, int64_t c, int rel) {
  size_t cap = 48 + 48 * (size_t)nt, o;
  char *key = malloc(cap);
  if (!key || L->nkeys == L->capkeys) {
    int32_t nc = L->capkeys ? 2 * L->capkeys : 16;
    char **k = key ? realloc(L->keys, (size_t)nc * sizeof *k) : NULL;
    if (!k) { free(key); return oom(L); }
    L->keys = k;
    L->capkeys = nc;
  }
  o = (size_t)snprintf(key, cap, "%d %lld", rel, (long long)c);
  for (int32_t k = 0; k < nt; k++)
    o += (size_t)snprintf(key + o, cap - o, " %d:%lld", (int)t[k].arg, (long long)t[k].coef);
  int32_t src = hs_names_find(&L->cmps, key, o, -1);
  if (src >= 0) { free(key); return src; }
  char text[200];
  cmp_text(L, t, nt, c, rel, text, sizeof text);
  src = hs_prebuilt_label(L->B, "%s", text);
  L->keys[L->nkeys++] = key;
  if (src < 0 || hs_names_add(&L->cmps, key, o, src)) return oom(L);
  return src;
}

/* The node of  q REL 0  (q normalised): reduced by the gcd and folded when
 * no string can change it (src/lang/compare.c), else a count per term and
 * 1/D, then the signs the relation needs. */
static int32_t mk_cmp(lower *L, const piece *q, int rel) {
  static const int flip[] = {HS_REL_GT, HS_REL_GE, HS_REL_EQ, HS_REL_NE,
                             HS_REL_LE, HS_REL_LT};
  int s = q->nt && q->t[0].coef < 0 ? -1 : 1; /* first coefficient positive */
  size_t nt = (size_t)(q->nt ? q->nt : 1);
  lterm *t = malloc(nt * sizeof *t);
  int *cnt = malloc(nt * sizeof *cnt);
  int64_t *coef = malloc(nt * sizeof *coef), c = s * q->c, g;
  int32_t out = -1, src = -1;
  hs_circuit *C = &L->B->C;
  hs_rel r = (hs_rel)(s < 0 ? flip[rel] : rel);
  if (!t || !cnt || !coef) {
    free(t), free(cnt), free(coef);
    return oom(L);
  }
  for (int32_t k = 0; k < q->nt; k++) coef[k] = s * q->t[k].coef;
  hs_cmp_fate fate = hs_cmp_reduce(coef, q->nt, &c, &r, &g);
  if (fate != HS_CMP_KEEP) {
    out = fate == HS_CMP_TRUE ? L->T : L->F;
  } else {
    char what[96];
    snprintf(what, sizeof what, "statement '%s', a comparison", stmt_name(L));
    for (int32_t k = 0; k < q->nt; k++) {
      t[k] = (lterm){q->t[k].arg, coef[k]};
      cnt[k] = hs_circuit_count(C, 1, t[k].arg, 0);
    }
    hs_error e;
    if (hs_cmp_fits(coef, q->nt, c, s * q->c, g, what, &e)) fail(L, e.code, "%s", e.msg);
    else src = cmp_src(L, t, q->nt, c, r);
  }
  if (src >= 0) {
    out = hs_cmp_signs(C, src, r, hs_circuit_count(C, 1, -1, 0), q->nt, cnt, coef, c);
    if (C->oom) out = oom(L);
  }
  free(t);
  free(cnt);
  free(coef);
  return out;
}

/* ------------------------------------------------------------ pieces */

static void pieces_free(pieces *P) {
  for (int32_t k = 0; k < P->n; k++) free(P->v[k].t);
  free(P->v);
  memset(P, 0, sizeof *P);
}

static int too_many(lower *L) {
  return fail(L, HS_ERR_UNSUPPORTED, "statement '%s' lowers to more than " CASES_TEXT
              " comparison cases (min, max, if and #[pred] multiply them; "
              "split it into Boolean statements)", stmt_name(L));
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

/* b at i - k: k heads "rightmost j < i", each reading the one before. */
static int32_t shift(lower *L, int32_t b, int64_t k) {
  const char *base = b >= 0 ? label(L, b) : "";
  char x[208];
  if (b >= 0) base = operand(L, b, x, sizeof x);
  for (int64_t s = 1; s <= k && b >= 0 && b != L->F; s++) {
    hs_cnode n = hs_cnode_blank(HS_C_HEAD, -1);
    n.right = 1;
    n.mask = HS_MASK_LT;
    n.val = b;
    b = add(L, n, "%s[i-%lld]", base, (long long)s);
  }
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

/* The atom of a token byte, named as the program writes the token. */
static int32_t token(lower *L, uint8_t byte) {
  const char *tok = "?";
  for (int k = 0; k < L->v->n; k++)
    if (L->v->byte[k] == byte) tok = L->v->tok[k];
  hs_cnode n = hs_cnode_blank(HS_C_ATOM, -1);
  n.sym = byte;
  return add(L, n, "\"%s\"", tok);
}

/* i mod k = r, positions from 0. */
static int32_t modp(lower *L, int64_t k, int64_t r) {
  if (k == 1) return L->T;
  hs_cnode n = hs_cnode_blank(HS_C_GATE, -1);
  n.g = HS_G_NONBOS;
  n.a = hs_circuit_pf(&L->B->C, HS_PF_MOD, k, (r + 1) % k, -1);
  return add(L, n, "pos_mod%lld_%lld", (long long)k, (long long)r);
}

static int32_t lower_bool(lower *L, const cr_node *x) {
  switch (x->k) {
  case CR_TOK: return token(L, (uint8_t)x->v);
  case CR_TRUE: return L->T;
  case CR_FALSE: return L->F;
  case CR_BVAR: return L->bnode[L->p->stmts[x->var].root];
  case CR_MODP: return modp(L, x->mk, x->mr);
  case CR_NOT: return mk_not(L, L->bnode[x->a]);
  case CR_AND: return mk_and(L, L->bnode[x->a], L->bnode[x->b]);
  case CR_OR: return mk_or(L, L->bnode[x->a], L->bnode[x->b]);
  case CR_CMP: return lower_cmp(L, x);
  default: return fail(L, HS_ERR_UNSUPPORTED, "internal error: %s is not Boolean", "node");
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
  if (x->amul >= CR_BOUND_MAX || x->add >= CR_BOUND_MAX)
    return fail(L, HS_ERR_UNSUPPORTED, "statement '%.64s' has a count bounded only by A*n + B with A or B "
                "at least 2^31, past the lowering's integers (the interpreter runs it)",
                stmt_name(L));
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
  default: return fail(L, HS_ERR_UNSUPPORTED, "internal error: %s is not a count", "node");
  }
}

static int lower_stmts(lower *L) {
  const hs_crasp *p = L->p;
  for (int32_t k = 0; k < p->nstmts && !L->failed; k++) {
    L->stmt = &p->stmts[k];
    int32_t before = L->B->C.n;
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
    if (L->stmt->is_bool && hs_prebuilt_rename(L->B, L->bnode[L->stmt->root], before,
                                               L->stmt->name))
      return oom(L);
  }
  return L->failed ? -1 : 0;
}

/* The program's circuit, only what its value needs, named by a line for
 * the model's metadata. */
static hs_prebuilt *finish(lower *L) {
  const hs_crasp *p = L->p;
  hs_prebuilt *B = L->B;
  char text[160];
  snprintf(text, sizeof text, "C-RASP program (%d statements, value %.64s)",
           (int)p->nstmts, p->stmts[p->nstmts - 1].name);
  B->root = L->bnode[p->stmts[p->nstmts - 1].root];
  L->stmt = NULL;
  if (!(B->text = hs_cstrdup(text)) || hs_circuit_keep(&B->C, &B->root)) {
    oom(L);
    return NULL;
  }
  B->C.source = B->text;
  L->B = NULL;
  return B;
}

hs_prebuilt *hs_crasp_lower(const hs_crasp *p, const hs_vocab *v, hs_error *err) {
  hs_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  lower Lw;
  memset(&Lw, 0, sizeof Lw);
  lower *L = &Lw;
  L->p = p;
  L->v = v;
  L->err = err;
  if (!p || p->nstmts == 0) {
    fail(L, HS_ERR_UNSUPPORTED, "no program%s", "");
    return NULL;
  }
  L->B = hs_prebuilt_new();
  L->bnode = calloc((size_t)p->nnodes, sizeof *L->bnode);
  L->pc = calloc((size_t)p->nnodes, sizeof *L->pc);
  hs_prebuilt *f = NULL;
  if (!L->B || !L->bnode || !L->pc) {
    oom(L);
  } else {
    L->F = add(L, hs_cnode_blank(HS_C_FALSE, -1), "false");
    L->T = add(L, hs_cnode_blank(HS_C_TRUE, -1), "true");
    if (lower_stmts(L) == 0) f = finish(L);
  }
  for (int32_t id = 0; L->pc && id < p->nnodes; id++) pieces_free(&L->pc[id]);
  free(L->pc);
  free(L->bnode);
  for (int32_t k = 0; k < L->nkeys; k++) free(L->keys[k]);
  free(L->keys);
  hs_names_free(&L->cmps);
  hs_prebuilt_free(L->B);
  return f;
}
