/* SPDX-License-Identifier: MIT */
/* LTL (with counting) -> circuit: the formula front end's lowering. Every
 * formula node becomes circuit nodes (hs_circuit_*), memoized, so a shared
 * subformula is lowered once; the circuit names a node after the formula
 * node it stands for (src = the node's index).
 *
 * All temporal operators reduce to heads:
 *   Y p   = rightmost j <  i, any,        reads p   (BOS if none: 0)
 *   p S q = rightmost j <= i with p -> q, reads q
 *   O p   = rightmost j <= i with p,      reads p
 *   X p   = leftmost  j >  i, any,        reads p
 *   p U q = leftmost  j >= i with p -> q, reads q
 *   F p   = leftmost  j >= i with p,      reads p
 *   H p = !O!p,  G p = !F!p.
 * Why "p -> q" (= q | !p) selects the right witness for S: let j be the
 * rightmost position <= i where q | !p holds. If q holds at j, p holds on
 * (j, i] (no !p there) and p S q is true. If not, !p & !q at j, so any
 * q-witness lies left of j and p fails at j in between: false. If no such
 * j exists, q never holds: false, and the head reads q = 0 wherever it
 * looks. U is the mirror image. */
#include <stdlib.h>

#include "lang/compare.h"
#include "lang/ltl/lower.h"

typedef struct lw {
  hs_circuit *C;
  const hs_formula *f;
  int *memo;       /* formula node -> circuit id, -1: not yet */
  hs_error *err;
} lw;

static int lower(lw *L, int32_t id);

/* A comparison sum coef #(arg) + c REL 0: one uniform head per count
 * (output #/D exactly: equal scores give equal weights under softmax as
 * well), one reading the BOS indicator (output 1/D), then signs.
 *
 * Mixed comparisons (#< and #> terms together) cannot use those heads: the
 * past counts come out over i + 1, the future ones over n - i + 2, and no
 * linear map (a ReLU layer) recovers the sign of their integer combination
 * from two fractions with different denominators. So every count of a
 * mixed comparison is taken over the common denominator n + 1 instead, by
 * giving BOS the missing weight (fill_aux_head), and the constant by a
 * uniform head over all n + 1 positions reading the BOS indicator. The
 * sign then sees u = (sigma T + delta)/(n + 1), |u| >= 1/(2(n+1)): the same
 * bound both sign methods are built for. Every comparison is first reduced
 * by its coefficients' gcd and folded when no string can change it
 * (src/lang/compare.c). */
static int lower_cmp(lw *L, int32_t id) {
  const hs_node *x = &L->f->nodes[id];
  int past = x->nterms ? x->terms[0].past : 1, mixed = 0;
  for (int t = 1; t < x->nterms; t++) mixed |= x->terms[t].past != past;
  int64_t *coef = malloc((size_t)(x->nterms ? x->nterms : 1) * sizeof *coef), c = x->c, g;
  int *cnt = malloc((size_t)(x->nterms ? x->nterms : 1) * sizeof *cnt);
  if (!coef || !cnt) {
    free(coef), free(cnt);
    L->C->oom = 1;
    return 0;
  }
  for (int t = 0; t < x->nterms; t++) coef[t] = x->terms[t].coef;
  hs_rel rel = x->rel;
  hs_cmp_fate fate = hs_cmp_reduce(coef, x->nterms, &c, &rel, &g);
  int out = -1, signs = 0;
  if (fate != HS_CMP_KEEP) {
    out = hs_circuit_add(L->C, hs_cnode_blank(fate == HS_CMP_TRUE ? HS_C_TRUE : HS_C_FALSE, id));
  } else if (mixed && L->C->o.mode == HS_MODE_FIXED) {
    hs_errorf(L->err, HS_ERR_UNSUPPORTED, "comparisons mixing #< and #> are not available "
             "in mode fixed: they need a BOS weight growing like n, which "
             "bounded scores at a constant temperature cannot give (use pe, "
             "temp or hard)");
  } else {
    char what[128];
    hs_formula_print(L->f, id, what, sizeof what);
    signs = hs_cmp_fits(coef, x->nterms, c, x->c, g, what, L->err) == 0;
  }
  for (int t = 0; signs && t < x->nterms; t++) {
    int a = lower(L, x->terms[t].arg);
    if (a < 0) signs = 0;
    else cnt[t] = mixed ? hs_circuit_count(L->C, x->terms[t].past, a, 1)
                        : hs_circuit_count(L->C, past, a, 0);
  }
  if (signs) {
    int r = hs_circuit_count(L->C, mixed ? 2 : past, -1, 0);
    if (L->C->o.sign == HS_SIGN_TEMP) hs_circuit_add(L->C, hs_cnode_blank(HS_C_TRUE, -1)); /* keys, values */
    out = hs_cmp_signs(L->C, id, rel, r, x->nterms, cnt, coef, c);
  }
  free(coef);
  free(cnt);
  return out;
}

static int lower_node(lw *L, int32_t id) {
  const hs_node *x = &L->f->nodes[id];
  int a = -1, b = -1;
  if (x->a >= 0 && x->op != HS_F_CMP && (a = lower(L, x->a)) < 0) return -1;
  if (x->b >= 0 && x->op != HS_F_CMP && (b = lower(L, x->b)) < 0) return -1;
  hs_cnode n;
  switch (x->op) {
    case HS_F_FALSE: return hs_circuit_add(L->C, hs_cnode_blank(HS_C_FALSE, id));
    case HS_F_TRUE: return hs_circuit_add(L->C, hs_cnode_blank(HS_C_TRUE, id));
    case HS_F_ATOM:
      n = hs_cnode_blank(HS_C_ATOM, id);
      n.sym = x->sym;
      return hs_circuit_add(L->C, n);
    case HS_F_FIRST:
      return hs_circuit_gate(L->C, HS_G_FIRST, hs_circuit_pf(L->C, HS_PF_INV_I1, 0, 0, -1), -1, id);
    case HS_F_LAST:
      return hs_circuit_gate(L->C, HS_G_NONBOS, hs_circuit_pf(L->C, HS_PF_LAST, 0, 0, -1), -1, id);
    case HS_F_MOD:
      return hs_circuit_gate(L->C, HS_G_NONBOS, hs_circuit_pf(L->C, HS_PF_MOD, x->k, x->r, -1), -1, id);
    case HS_F_NOT: return hs_circuit_gate(L->C, HS_G_NOT, a, -1, id);
    case HS_F_AND: return hs_circuit_gate(L->C, HS_G_AND, a, b, id);
    case HS_F_OR: return hs_circuit_gate(L->C, HS_G_OR, a, b, id);
    case HS_F_IMPLIES: return hs_circuit_gate(L->C, HS_G_IMPLIES, a, b, id);
    case HS_F_IFF: return hs_circuit_gate(L->C, HS_G_IFF, a, b, id);
    case HS_F_NEXT: return hs_circuit_head(L->C, 0, HS_MASK_GT, -1, a, id);
    case HS_F_YESTERDAY: return hs_circuit_head(L->C, 1, HS_MASK_LT, -1, a, id);
    case HS_F_EVENTUALLY: return hs_circuit_head(L->C, 0, HS_MASK_GE, a, a, id);
    case HS_F_ONCE: return hs_circuit_head(L->C, 1, HS_MASK_LE, a, a, id);
    case HS_F_ALWAYS: {
      int na = hs_circuit_gate(L->C, HS_G_NOT, a, -1, -1);
      return hs_circuit_gate(L->C, HS_G_NOT, hs_circuit_head(L->C, 0, HS_MASK_GE, na, na, -1), -1, id);
    }
    case HS_F_HISTORICALLY: {
      int na = hs_circuit_gate(L->C, HS_G_NOT, a, -1, -1);
      return hs_circuit_gate(L->C, HS_G_NOT, hs_circuit_head(L->C, 1, HS_MASK_LE, na, na, -1), -1, id);
    }
    case HS_F_UNTIL:
      return hs_circuit_head(L->C, 0, HS_MASK_GE, hs_circuit_gate(L->C, HS_G_IMPLIES, a, b, -1), b, id);
    case HS_F_SINCE:
      return hs_circuit_head(L->C, 1, HS_MASK_LE, hs_circuit_gate(L->C, HS_G_IMPLIES, a, b, -1), b, id);
    case HS_F_CMP: return lower_cmp(L, id);
    default: break;
  }
  hs_errorf(L->err, HS_ERR_ARG, "internal error: unknown formula node %d",
           (int)x->op);
  return -1;
}

static int lower(lw *L, int32_t id) {
  if (L->memo[id] >= 0) return L->memo[id];
  int c = lower_node(L, id);
  if (L->C->oom) {
    hs_errorf(L->err, HS_ERR_NOMEM, "out of memory while compiling");
    return -1;
  }
  return L->memo[id] = c;
}

static void name_node(const void *ctx, int32_t src, char *buf, size_t len) {
  hs_formula_print(ctx, src, buf, len);
}

int hs_ltl_lower(hs_circuit *C, const hs_formula *f, hs_error *err) {
  lw L = {C, f, malloc((size_t)(f->count ? f->count : 1) * sizeof(int)), err};
  if (!L.memo) return hs_errorf(err, HS_ERR_NOMEM, "out of memory while compiling");
  for (int i = 0; i < f->count; i++) L.memo[i] = -1;
  C->source = f->text ? f->text : "";
  C->name_src = name_node;
  C->name_ctx = f;
  int root = lower(&L, f->root);
  free(L.memo);
  return root;
}
