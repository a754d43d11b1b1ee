/* SPDX-License-Identifier: MIT */
/* Formula -> transformer.
 *
 * The formula DAG is lowered to a circuit of three kinds of node, each of
 * which owns one coordinate of the residual stream holding exactly 0 or 1
 * at every position i >= 1 and exactly 0 at BOS (i = 0):
 *   - embedded: atoms, true, false, position features (no layer);
 *   - gates: Boolean functions of 0/1 inputs, one feed-forward sublayer
 *     with one or two ReLU units each;
 *   - heads: "the rightmost j <= i (or < i) where sel holds" or "the
 *     leftmost j >= i (or > i) where sel holds", reading one coordinate
 *     there; one attention sublayer, then a rounding gate in the
 *     feed-forward sublayer of the same layer.
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
 * looks. U is the mirror image.
 *
 * Each construction's score and error bound are stated next to the code
 * that builds it (head_scores). Gates are exact in float arithmetic: all
 * inputs are 0/1 and all weights small integers or halves. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "compile/compile.h"

static const char *const mode_names[HS_MODE_COUNT_] = {"hard", "pe", "temp",
                                                       "fixed", "rel"};
const char *hs_mode_name(hs_mode m) {
  return (unsigned)m < HS_MODE_COUNT_ ? mode_names[m] : "?";
}
int hs_mode_parse(const char *s) {
  for (int i = 0; i < HS_MODE_COUNT_; i++)
    if (s && strcmp(s, mode_names[i]) == 0) return i;
  return -1;
}

/* ------------------------------------------------------------ the circuit */

typedef enum { C_ATOM, C_TRUE, C_FALSE, C_PF, C_GATE, C_HEAD, C_COUNT, C_SIGN } ckind;
typedef enum {
  G_NOT, G_AND, G_OR, G_IMPLIES, G_IFF,
  G_NONBOS, /* a feature, forced to 0 at BOS */
  G_FIRST,  /* [i = 1] from the 1/(i+1) feature */
} gkind;

typedef struct cnode {
  ckind kind;
  gkind g;
  int a, b;        /* inputs (circuit ids), -1 if absent */
  uint8_t sym;     /* C_ATOM */
  hs_pf_kind pf;   /* C_PF */
  int64_t k, r;
  int right;       /* C_HEAD: 1 = rightmost (past), 0 = leftmost (future) */
  hs_mask mask;
  int sel, val;    /* C_HEAD: selector (-1: every position), value read */
  int32_t fnode;   /* formula node this stands for, or -1 */
  int coord, scratch;
  int ready;       /* sublayer after which coord is final; -1 = embedded */
  int attn_at, ffn_at; /* sublayers holding its head / its ReLU units */
  /* C_COUNT: attention over the past (right = 1: j <= i), the future
   * (right = 0: j >= i) or every position (right = 2), plus BOS, reading
   * val, or the BOS indicator when val < 0; uniform (k = 0: #/D with D the
   * number of visible keys) or BOS-weighted (k = 1: #/(n+1), see
   * fill_aux_head). C_SIGN: [u > 0] for u = sum coef[t] x[ins[t]] with ins
   * counts and the BOS reader a; fnode and k (the variant) identify it. */
  int nin;
  int *ins;
  double *coef;
} cnode;

typedef struct builder {
  const hs_formula *f;
  hs_compile_opts o;
  cnode *c;
  int n, cap;
  int *memo; /* formula node -> circuit id */
  /* positional feature coordinates, allocated on first use */
  int pf_coord[HS_PF_COUNT_];
  struct { int64_t k, r; int coord; } *mods;
  int nmods;
  int d;
  hs_error *err;
  int oom;
} builder;

static int cnode_eq(const cnode *x, const cnode *y) {
  if (x->kind == C_SIGN || y->kind == C_SIGN)
    return x->kind == y->kind && x->fnode == y->fnode && x->k == y->k;
  return x->kind == y->kind && x->g == y->g && x->a == y->a && x->b == y->b &&
         x->sym == y->sym && x->pf == y->pf && x->k == y->k && x->r == y->r &&
         x->right == y->right && x->mask == y->mask && x->sel == y->sel &&
         x->val == y->val;
}

/* Adds a node unless an equal one exists (sharing), returns its id. */
static int add(builder *B, cnode n) {
  for (int i = 0; i < B->n; i++)
    if (cnode_eq(&B->c[i], &n)) {
      if (B->c[i].fnode < 0) B->c[i].fnode = n.fnode;
      return i;
    }
  if (B->n == B->cap) {
    int cap = B->cap ? 2 * B->cap : 64;
    cnode *c = realloc(B->c, (size_t)cap * sizeof *c);
    if (!c) { B->oom = 1; return 0; }
    B->c = c;
    B->cap = cap;
  }
  n.coord = n.scratch = -1;
  B->c[B->n] = n;
  return B->n++;
}

static cnode blank(ckind k, int32_t fnode) {
  cnode n;
  memset(&n, 0, sizeof n);
  n.kind = k;
  n.a = n.b = n.sel = n.val = -1;
  n.fnode = fnode;
  return n;
}

static int gate(builder *B, gkind g, int a, int b, int32_t fnode) {
  cnode n = blank(C_GATE, fnode);
  n.g = g;
  n.a = a;
  n.b = b;
  return add(B, n);
}

static int head(builder *B, int right, hs_mask mask, int sel, int val,
                int32_t fnode) {
  cnode n = blank(C_HEAD, fnode);
  n.right = right;
  n.mask = mask;
  n.sel = sel;
  n.val = val;
  return add(B, n);
}

static int pf_node(builder *B, hs_pf_kind kind, int64_t k, int64_t r,
                   int32_t fnode) {
  cnode n = blank(C_PF, fnode);
  n.pf = kind;
  n.k = k;
  n.r = r;
  return add(B, n);
}

static int count_node(builder *B, int past, int val, int common) {
  cnode n = blank(C_COUNT, -1);
  n.right = past;
  n.val = val;
  n.k = common;
  return add(B, n);
}

/* [u > 0] for u = (sigma T + delta) / D, T = sum coef #(arg) + c the
 * comparison's integer, D = i + 1 (past), n - i + 2 (future) or n + 1
 * (mixed, see lower_cmp):
 * variant 0: T - 1/2 (T > 0), 1: T + 1/2 (T >= 0), 2: -T - 1/2 (T < 0),
 * 3: -T + 1/2 (T <= 0). Never 0, and |u| >= 1 / (2 D). */
static int sign_node(builder *B, int32_t id, int variant, const int *cnt,
                     int r) {
  const hs_node *x = &B->f->nodes[id];
  cnode n = blank(C_SIGN, id);
  n.k = variant;
  n.a = r;
  int at = add(B, n);
  if (B->oom || B->c[at].ins) return at;
  double sg = variant < 2 ? 1 : -1, delta = variant % 2 == 0 ? -0.5 : 0.5;
  cnode *s = &B->c[at];
  s->nin = x->nterms + 1;
  s->ins = malloc((size_t)s->nin * sizeof *s->ins);
  s->coef = malloc((size_t)s->nin * sizeof *s->coef);
  if (!s->ins || !s->coef) { B->oom = 1; return at; }
  for (int t = 0; t < x->nterms; t++) {
    s->ins[t] = cnt[t];
    s->coef[t] = sg * (double)x->terms[t].coef;
  }
  s->ins[x->nterms] = r; /* r = 1/D carries the constant */
  s->coef[x->nterms] = sg * (double)x->c + delta;
  return at;
}

static int lower(builder *B, int32_t id);

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
 * bound both sign methods are built for. */
static int lower_cmp(builder *B, int32_t id) {
  const hs_node *x = &B->f->nodes[id];
  int past = x->nterms ? x->terms[0].past : 1, mixed = 0;
  for (int t = 1; t < x->nterms; t++) mixed |= x->terms[t].past != past;
  if (mixed && B->o.mode == HS_MODE_FIXED) {
    hs_errorf(B->err, HS_ERR_UNSUPPORTED, "comparisons mixing #< and #> are not available "
             "in mode fixed: they need a BOS weight growing like n, which "
             "bounded scores at a constant temperature cannot give (use pe, "
             "temp or hard)");
    return -1;
  }
  if (x->nterms == 0)
    return add(B, blank(hs_rel_holds(x->rel, x->c) ? C_TRUE : C_FALSE, id));
  int *cnt = malloc((size_t)x->nterms * sizeof *cnt);
  if (!cnt) { B->oom = 1; return 0; }
  for (int t = 0; t < x->nterms; t++) {
    int a = lower(B, x->terms[t].arg);
    if (a < 0) { free(cnt); return -1; }
    cnt[t] = mixed ? count_node(B, x->terms[t].past, a, 1)
                   : count_node(B, past, a, 0);
  }
  int r = count_node(B, mixed ? 2 : past, -1, 0), out;
  if (B->o.sign == HS_SIGN_TEMP) add(B, blank(C_TRUE, -1)); /* keys, values */
  switch (x->rel) {
    case HS_REL_GT: out = sign_node(B, id, 0, cnt, r); break;
    case HS_REL_GE: out = sign_node(B, id, 1, cnt, r); break;
    case HS_REL_LT: out = sign_node(B, id, 2, cnt, r); break;
    case HS_REL_LE: out = sign_node(B, id, 3, cnt, r); break;
    case HS_REL_EQ:
      out = gate(B, G_AND, sign_node(B, id, 1, cnt, r), sign_node(B, id, 3, cnt, r), id);
      break;
    default:
      out = gate(B, G_OR, sign_node(B, id, 0, cnt, r), sign_node(B, id, 2, cnt, r), id);
      break;
  }
  free(cnt);
  return out;
}

static int lower_node(builder *B, int32_t id) {
  const hs_node *x = &B->f->nodes[id];
  int a = -1, b = -1;
  if (x->a >= 0 && x->op != HS_F_CMP && (a = lower(B, x->a)) < 0) return -1;
  if (x->b >= 0 && x->op != HS_F_CMP && (b = lower(B, x->b)) < 0) return -1;
  cnode n;
  switch (x->op) {
    case HS_F_FALSE: return add(B, blank(C_FALSE, id));
    case HS_F_TRUE: return add(B, blank(C_TRUE, id));
    case HS_F_ATOM:
      n = blank(C_ATOM, id);
      n.sym = x->sym;
      return add(B, n);
    case HS_F_FIRST:
      return gate(B, G_FIRST, pf_node(B, HS_PF_INV_I1, 0, 0, -1), -1, id);
    case HS_F_LAST:
      return gate(B, G_NONBOS, pf_node(B, HS_PF_LAST, 0, 0, -1), -1, id);
    case HS_F_MOD:
      return gate(B, G_NONBOS, pf_node(B, HS_PF_MOD, x->k, x->r, -1), -1, id);
    case HS_F_NOT: return gate(B, G_NOT, a, -1, id);
    case HS_F_AND: return gate(B, G_AND, a, b, id);
    case HS_F_OR: return gate(B, G_OR, a, b, id);
    case HS_F_IMPLIES: return gate(B, G_IMPLIES, a, b, id);
    case HS_F_IFF: return gate(B, G_IFF, a, b, id);
    case HS_F_NEXT: return head(B, 0, HS_MASK_GT, -1, a, id);
    case HS_F_YESTERDAY: return head(B, 1, HS_MASK_LT, -1, a, id);
    case HS_F_EVENTUALLY: return head(B, 0, HS_MASK_GE, a, a, id);
    case HS_F_ONCE: return head(B, 1, HS_MASK_LE, a, a, id);
    case HS_F_ALWAYS: {
      int na = gate(B, G_NOT, a, -1, -1);
      return gate(B, G_NOT, head(B, 0, HS_MASK_GE, na, na, -1), -1, id);
    }
    case HS_F_HISTORICALLY: {
      int na = gate(B, G_NOT, a, -1, -1);
      return gate(B, G_NOT, head(B, 1, HS_MASK_LE, na, na, -1), -1, id);
    }
    case HS_F_UNTIL:
      return head(B, 0, HS_MASK_GE, gate(B, G_IMPLIES, a, b, -1), b, id);
    case HS_F_SINCE:
      return head(B, 1, HS_MASK_LE, gate(B, G_IMPLIES, a, b, -1), b, id);
    case HS_F_CMP: return lower_cmp(B, id);
    default: break;
  }
  hs_errorf(B->err, HS_ERR_ARG, "internal error: unknown formula node %d",
           (int)x->op);
  return -1;
}

static int lower(builder *B, int32_t id) {
  if (B->memo[id] >= 0) return B->memo[id];
  int c = lower_node(B, id);
  if (B->oom) {
    hs_errorf(B->err, HS_ERR_NOMEM, "out of memory while compiling");
    return -1;
  }
  return B->memo[id] = c;
}

/* ------------------------------------------------------ coordinates */

static int new_coord(builder *B) { return B->d++; }

static int feature(builder *B, hs_pf_kind kind, int64_t k, int64_t r) {
  if (kind != HS_PF_MOD) {
    if (B->pf_coord[kind] < 0) B->pf_coord[kind] = new_coord(B);
    return B->pf_coord[kind];
  }
  for (int i = 0; i < B->nmods; i++)
    if (B->mods[i].k == k && B->mods[i].r == r) return B->mods[i].coord;
  void *p = realloc(B->mods, (size_t)(B->nmods + 1) * sizeof *B->mods);
  if (!p) { B->oom = 1; return 0; }
  B->mods = p;
  B->mods[B->nmods].k = k;
  B->mods[B->nmods].r = r;
  return B->mods[B->nmods++].coord = new_coord(B);
}

static int maxi(int a, int b) { return a > b ? a : b; }

/* Sublayer schedule: sublayer 2l is layer l's attention, 2l+1 its
 * feed-forward. A gate runs in the first feed-forward sublayer after its
 * inputs are final; a head's attention in the first attention sublayer
 * after its selector and value are final, its rounding right after. A
 * count is final right after its attention (no rounding: it holds #/D). */
static int first_ffn(int r) { return (r + 1) | 1; }
static int first_attn(int r) { return (r + 2) & ~1; }

static void schedule(builder *B) {
  for (int i = 0; i < B->n; i++) {
    cnode *n = &B->c[i];
    int r = -1;
    n->attn_at = n->ffn_at = -1;
    switch (n->kind) {
      case C_GATE:
        r = B->c[n->a].ready;
        if (n->b >= 0) r = maxi(r, B->c[n->b].ready);
        n->ready = n->ffn_at = first_ffn(r);
        break;
      case C_HEAD:
        r = B->c[n->val].ready;
        if (n->sel >= 0) r = maxi(r, B->c[n->sel].ready);
        n->attn_at = first_attn(r);
        n->ready = n->ffn_at = n->attn_at + 1;
        break;
      case C_COUNT:
        r = n->val >= 0 ? B->c[n->val].ready : -1;
        n->ready = n->attn_at = first_attn(r);
        break;
      case C_SIGN:
        for (int t = 0; t < n->nin; t++) r = maxi(r, B->c[n->ins[t]].ready);
        if (B->o.sign == HS_SIGN_TEMP) {
          n->attn_at = first_attn(r);
          n->ready = n->ffn_at = n->attn_at + 1;
        } else {
          n->ready = n->ffn_at = first_ffn(r);
        }
        break;
      default: n->ready = -1;
    }
  }
}

/* ------------------------------------------------------ weights */

typedef struct unit { int in[3]; float w[3]; float bias, out; } unit;

/* The ReLU units of a gate: out_coord += sum_u out_u * ReLU(w_u . x + b_u).
 * Inputs are 0/1 at i >= 1 and 0 at BOS; every unit is exact in float.
 * Returns the number of units (<= 2). */
static int gate_units(const builder *B, const cnode *n, unit u[2]) {
  int a = n->a >= 0 ? B->c[n->a].coord : -1;
  int b = n->b >= 0 ? B->c[n->b].coord : -1;
  int bos = B->pf_coord[HS_PF_BOS];
  memset(u, 0, 2 * sizeof *u);
  for (int i = 0; i < 2; i++) u[i].in[0] = u[i].in[1] = u[i].in[2] = -1;
#define U(i, c0, w0, c1, w1, c2, w2, bb, oo)                              \
  (u[i].in[0] = (c0), u[i].w[0] = (w0), u[i].in[1] = (c1), u[i].w[1] = (w1), \
   u[i].in[2] = (c2), u[i].w[2] = (w2), u[i].bias = (bb), u[i].out = (oo))
  switch (n->g) {
    case G_NOT: /* 1 - a, and 0 at BOS */
      U(0, a, -1, bos, -1, -1, 0, 1, 1);
      return 1;
    case G_AND: /* ReLU(a + b - 1) */
      U(0, a, 1, b, 1, -1, 0, -1, 1);
      return 1;
    case G_OR: /* ReLU(a + b) - ReLU(a + b - 1) */
      U(0, a, 1, b, 1, -1, 0, 0, 1);
      U(1, a, 1, b, 1, -1, 0, -1, -1);
      return 2;
    case G_IMPLIES: /* ReLU(1 - a + b - bos) - ReLU(b - a) */
      U(0, a, -1, b, 1, bos, -1, 1, 1);
      U(1, a, -1, b, 1, -1, 0, 0, -1);
      return 2;
    case G_IFF: /* ReLU(1 - a - b - bos) + ReLU(a + b - 1) */
      U(0, a, -1, b, -1, bos, -1, 1, 1);
      U(1, a, 1, b, 1, -1, 0, -1, 1);
      return 2;
    case G_NONBOS: /* a feature in {0,1} that may be 1 at BOS */
      U(0, a, 1, bos, -1, -1, 0, 0, 1);
      return 1;
    case G_FIRST: /* x = 1/(i+1): 12x - 5 is 1 at i = 1, <= -1 at i >= 2,
                     7 at BOS (cancelled by -7 bos) */
      U(0, a, 12, bos, -7, -1, 0, -5, 1);
      return 1;
  }
#undef U
  return 0;
}

/* Rounding after a head: a in [0,1] within 1/4 of 0 or 1 becomes exactly
 * 0 or 1: ReLU(2a - 1/2) - ReLU(2a - 3/2). For a > 3/4 both arguments are
 * computed exactly in float (2a - 1/2 in [1, 3/2] and 2a - 3/2 in [0, 1/2]
 * keep every bit of 2a), so the difference is exactly 1. BOS: -2 bos. */
static int round_units(const builder *B, const cnode *n, unit u[2]) {
  int bos = B->pf_coord[HS_PF_BOS];
  memset(u, 0, 2 * sizeof *u);
  for (int i = 0; i < 2; i++) {
    u[i].in[0] = n->scratch;
    u[i].w[0] = 2;
    u[i].in[1] = bos;
    u[i].w[1] = -2;
    u[i].in[2] = -1;
  }
  u[0].bias = -0.5f;
  u[0].out = 1;
  u[1].bias = -1.5f;
  u[1].out = -1;
  return 2;
}

/* One term of an attention score: (wq * x_i[qc]) * (wk * x_j[kc]). */
typedef struct term { int qc; float wq; int kc; float wk; } term;

/* The scores of a head, per mode. Write s_j for the selector (1 where it
 * holds, 0 elsewhere and at BOS) and t for the hard target: the rightmost
 * visible j with s_j = 1 (since family) or the leftmost (until family);
 * when no visible j has s_j = 1, the rightmost / leftmost visible j.
 *
 *   hard  : score s_j (until family: also -2 [j = 0], so BOS never wins a
 *           tie as the leftmost); unique hard attention, ties broken
 *           rightmost / leftmost. Exact.
 *   pe    : tau = 1, score mu*j + mu*n*s_j (since) or
 *           -mu*j + mu*n*s_j - 2*mu*n*[j = 0] (until), from the unbounded
 *           features i and n.
 *   temp  : tau = 1/(mu n), score j/n + s_j or -j/n + s_j - 2[j = 0] from
 *           the bounded feature i/n; after dividing by tau the scores are
 *           exactly those of pe.
 *   fixed : tau = 1/mu, the scores of temp: scaled scores mu*j/n + mu*s_j.
 *   rel   : content q.k = s_j - 1 (0 or -1: q = [1, 1], k = [s_j, -1]) at
 *           tau = 1/(mu n), plus the head's relative bias -mu |i - j|
 *           (hs_head.bias_slope = mu, added after tau; BOS sits at
 *           position 0 for the since family, n + 1 for until): logits
 *             s_j = 1:  -mu |i - j|            (0 at the query itself)
 *             s_j = 0:  -mu n - mu |i - j|     (BOS included: s_0 = 0).
 *           Without a selector (Y, X) the content is 0 and the bias alone
 *           ranks the keys (BOS the farthest). Queries and keys hold only
 *           0 and +-1, so they are exact in f16 and bf16; the deciding
 *           logits are small integers times mu near the query, and the
 *           far ones are exact integers times mu in f32 up to 2^24.
 *
 * Bound (pe, temp). Every competitor's scaled score is below the target's
 * by a positive multiple of mu, and no multiple occurs more than twice
 * (once among positions with s = 1, once among those with s = 0: both sets
 * have pairwise distinct positions, so distinct scores). Hence
 *   S = sum_{j != t} e^{score_j - score_t} <= 2 e^{-mu} / (1 - e^{-mu}),
 * and the weight off t is S/(1+S) < 1/4 exactly when S < 1/3, which holds
 * for every n once mu >= ln 7 ~= 1.946 (the cruder S < 1/4 needs ln 9).
 * The value read is then within S/(1+S) of v_t, and the rounding gate
 * restores it exactly. fixed: the multiples are of mu/n instead, so the
 * same holds only while n <= mu / ln 7.
 * rel: every logit is -mu times a non-negative integer, r_j = |i - j| if
 * s_j = 1, n + |i - j| if s_j = 0 (BOS: |i - j| = i or n + 1 - i), and
 * the target has the smallest: an s = 1 target has r_t = |i - t| < |i - j|
 * for every other s = 1 key (t is the nearest) and r_t <= n - 1 < n <= r_j
 * for every s = 0 key; when no s = 1 key is visible the target is the
 * nearest visible key, r_t = n + |i - t|, again the smallest. Within each
 * class (s = 1 / s = 0, BOS in the s = 0 one) the keys have distinct
 * distances |i - j| on one side of i, hence distinct r_j: the same two
 * geometric series, S <= 2 e^{-mu} / (1 - e^{-mu}) at every n, exact for
 * mu >= ln 7. */
static int head_scores(const builder *B, const cnode *n, term t[3]) {
  int one = B->pf_coord[HS_PF_ONE], bos = B->pf_coord[HS_PF_BOS];
  int sel = n->sel >= 0 ? B->c[n->sel].coord : -1;
  float mu = (float)B->o.scale;
  int k = 0;
  switch (B->o.mode) {
    case HS_MODE_HARD:
      if (sel >= 0) t[k++] = (term){one, 1, sel, 1};
      if (!n->right) t[k++] = (term){one, 1, bos, -2};
      if (k == 0) t[k++] = (term){one, 0, one, 0}; /* all scores equal */
      return k;
    case HS_MODE_PE: {
      int pi = B->pf_coord[HS_PF_I], pn = B->pf_coord[HS_PF_N];
      t[k++] = (term){one, mu, pi, n->right ? 1.0f : -1.0f};
      if (sel >= 0) t[k++] = (term){pn, mu, sel, 1};
      if (!n->right) t[k++] = (term){pn, mu, bos, -2};
      return k;
    }
    case HS_MODE_TEMP:
    case HS_MODE_FIXED: {
      int pin = B->pf_coord[HS_PF_I_OVER_N];
      t[k++] = (term){one, 1, pin, n->right ? 1.0f : -1.0f};
      if (sel >= 0) t[k++] = (term){one, 1, sel, 1};
      if (!n->right) t[k++] = (term){one, 1, bos, -2};
      return k;
    }
    case HS_MODE_REL:
      if (sel >= 0) {
        t[k++] = (term){one, 1, sel, 1};
        t[k++] = (term){one, 1, one, -1};
      } else {
        t[k++] = (term){one, 0, one, 0}; /* content 0: the bias decides */
      }
      return k;
    default: return 0;
  }
}

static double series(double mu) { return 2 * exp(-mu) / -expm1(-mu); }

double hs_bound_at(const char *mode, double scale, size_t n) {
  if (!mode || strcmp(mode, "hard") == 0) return 0;
  double mu = scale;
  if (strcmp(mode, "fixed") == 0) mu = scale / (double)(n ? n : 1);
  if (!(mu > 0)) return 1;
  double S = series(mu);
  return S / (1 + S);
}

/* The weight off target is at most S/(1+S) with S = series(mu): below 1/4
 * (the decision exact) exactly when S < 1/3, i.e. mu >= ln 7; fixed mode
 * has mu / n in place of mu. */
double hs_mode_exact_max_n(hs_mode mode, double scale) {
  if (mode == HS_MODE_HARD) return INFINITY;
  if (mode == HS_MODE_FIXED) return floor(scale / log(7.0));
  return scale >= log(7.0) ? INFINITY : 0;
}

/* ------------------------------------------------------ naming */

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static void cname(const builder *B, int id, char *buf, size_t len) {
  const cnode *n = &B->c[id];
  if (n->fnode >= 0) {
    hs_formula_print(B->f, n->fnode, buf, len);
    return;
  }
  char x[200] = "", y[200] = "";
  if (n->a >= 0) cname(B, n->a, x, sizeof x);
  if (n->b >= 0) cname(B, n->b, y, sizeof y);
  switch (n->kind) {
    case C_GATE:
      if (n->g == G_NOT) snprintf(buf, len, "!(%s)", x);
      else if (n->g == G_IMPLIES) snprintf(buf, len, "(%s) -> (%s)", x, y);
      else snprintf(buf, len, "gate(%s, %s)", x, y);
      return;
    case C_HEAD:
      cname(B, n->val, x, sizeof x);
      snprintf(buf, len, "%s(%s)", n->right ? "O" : "F", x);
      return;
    case C_PF: snprintf(buf, len, "%s", hs_pf_kind_name(n->pf)); return;
    case C_COUNT: {
      const char *den = n->k || n->right == 2 ? "(n+1)"
                        : n->right ? "(i+1)" : "(n-i+2)";
      if (n->val >= 0) cname(B, n->val, x, sizeof x);
      if (n->val >= 0)
        snprintf(buf, len, "#%c(%s) / %s", n->right ? '<' : '>', x, den);
      else
        snprintf(buf, len, "1 / %s", den);
      return;
    }
    default: snprintf(buf, len, "?"); return;
  }
}

static const char *mask_text(hs_mask m) {
  switch (m) {
    case HS_MASK_LE: return "j <= i";
    case HS_MASK_LT: return "j < i";
    case HS_MASK_GE: return "j >= i";
    case HS_MASK_GT: return "j > i";
    default: return "all j";
  }
}

static char *head_desc(const builder *B, const cnode *n) {
  char sel[256] = "any position", val[256], buf[700];
  if (n->sel >= 0) cname(B, n->sel, sel, sizeof sel);
  cname(B, n->val, val, sizeof val);
  snprintf(buf, sizeof buf, "%s %s where %s; reads %s",
           n->right ? "rightmost" : "leftmost", mask_text(n->mask), sel, val);
  return xstrdup(buf);
}

/* ------------------------------------------------------ assembly */

/* The feature whose value is the BOS score of a BOS-weighted count. */
static hs_pf_kind weight_feature(const builder *B, const cnode *n) {
  int bounded = B->o.mode == HS_MODE_TEMP;
  if (n->right == 1) return bounded ? HS_PF_LN_REST_OVER_N : HS_PF_LN_REST;
  return bounded ? HS_PF_LN_I_OVER_N : HS_PF_LN_I;
}

/* The count heads and the temperature sign head (C_COUNT, C_SIGN with
 * --sign temp).
 *   count: all scores 0, so softmax weights are exactly 1/D over the D
 *     visible keys (j <= i, j >= i or all j, plus BOS) and average-hard
 *     attention is the same: the output is #/D, exact up to one rounding.
 *   BOS-weighted count (k = 1, mixed comparisons): the non-BOS keys score
 *     0 and BOS scores ln w, so BOS weighs as much as w positions and the
 *     denominator is w + (number of non-BOS keys). w = n + 1 - i for the
 *     past (i keys j = 1..i), w = i for the future (n - i + 1 keys
 *     j = i..n): both give exactly n + 1 (at i >= 1; w >= 1 always). The
 *     score is the feature ln(n+1-i) or ln i at tau = 1 (pe; hard mode
 *     too, since average-hard attention cannot weight BOS: these are
 *     softmax heads there), or ln(..)/n at tau = 1/n (temp, bounded
 *     features). The weights are exact by construction, not in a limit,
 *     so no mu is involved. In float, future counts meet BOS (its copy
 *     after n) last, so every key before its block weighs exactly 1;
 *     past counts meet BOS first, so every key weighs the rounded 1/w
 *     and the sums carry that rounding (measured harmless: see README).
 *   sign: q_i = u_i - K [i = 0], k_j = v_j = [j >= 1]; the non-BOS keys
 *     (m of them, 1 <= m <= n) score u_i / tau, BOS 0, so the output
 *     m e^{u/tau} / (1 + m e^{u/tau}) is within (n+1)^{1 - mu/4} of [u > 0]
 *     when tau = 1/(mu n ln(n+1)), since |u| >= 1/(2(n+1)): exact (< 1/4)
 *     at every n >= 1 once mu > 12. Hard mode: average-hard attention,
 *     exact. K keeps BOS's own row negative. */
static double sign_k(const cnode *n) {
  double k = 1;
  for (int t = 0; t < n->nin; t++) k += fabs(n->coef[t]);
  return k;
}

static int fill_aux_head(const builder *B, const cnode *n, hs_head *H, int d) {
  int sign = n->kind == C_SIGN;
  H->dk = 1;
  H->dv = 1;
  int weighted = !sign && n->k == 1;
  H->mask = sign || n->right == 1 ? HS_MASK_LE
            : n->right == 2       ? HS_MASK_NONE
                                  : HS_MASK_GE;
  H->target = weighted ? HS_ATTN_SOFTMAX : HS_ATTN_HARD_AVG;
  H->kind = B->o.mode == HS_MODE_HARD && !weighted ? HS_ATTN_HARD_AVG
                                                   : HS_ATTN_SOFTMAX;
  H->tau_law = HS_TAU_CONST;
  H->tau_c = 1;
  if (weighted && B->o.mode == HS_MODE_TEMP) H->tau_law = HS_TAU_INV_N;
  if (sign && B->o.mode == HS_MODE_FIXED) H->tau_c = 1.0 / B->o.scale;
  if (sign && (B->o.mode == HS_MODE_PE || B->o.mode == HS_MODE_TEMP ||
               B->o.mode == HS_MODE_REL)) {
    H->tau_law = HS_TAU_INV_NLOGN;
    H->tau_c = 1.0 / B->o.scale;
  }
  H->wq = calloc((size_t)d, sizeof(float));
  H->wk = calloc((size_t)d, sizeof(float));
  H->wv = calloc((size_t)d, sizeof(float));
  H->wo = calloc((size_t)d, sizeof(float));
  char name[300], buf[400];
  cname(B, (int)(n - B->c), name, sizeof name);
  if (sign) snprintf(buf, sizeof buf, "sign of %s: BOS against j >= 1", name);
  else if (weighted)
    snprintf(buf, sizeof buf, "uniform over %s, BOS weighing %s: reads the "
             "count / (n+1)", mask_text(H->mask), n->right ? "n+1-i" : "i");
  else if (n->val < 0)
    snprintf(buf, sizeof buf, "uniform over %s: 1/%s", mask_text(H->mask),
             n->right == 2 ? "(n+1)" : "D");
  else
    snprintf(buf, sizeof buf, "uniform over %s: reads the count / D", mask_text(H->mask));
  H->desc = xstrdup(buf);
  if (!H->wq || !H->wk || !H->wv || !H->wo || !H->desc) return -1;
  int bos = B->pf_coord[HS_PF_BOS];
  if (sign) {
    int one = -1;
    for (int i = 0; i < B->n; i++)
      if (B->c[i].kind == C_TRUE) one = B->c[i].coord;
    for (int t = 0; t < n->nin; t++)
      H->wq[B->c[n->ins[t]].coord] += (float)n->coef[t];
    H->wq[bos] += (float)-sign_k(n);
    H->wk[one] = 1;
    H->wv[one] = 1;
    H->wo[n->scratch] = 1;
  } else {
    if (weighted) {
      H->wq[B->pf_coord[weight_feature(B, n)]] = 1;
      H->wk[bos] = 1;
    }
    H->wv[n->val >= 0 ? B->c[n->val].coord : bos] = 1;
    H->wo[n->coord] = 1;
  }
  return 0;
}

/* The LN sign (--sign layernorm): two normalized pairs [u - K bos, -(...)]
 * with gains 2 and biases -1/2, -3/2 on the first unit: ReLU(2 s - 1/2) -
 * ReLU(2 s - 3/2) for s = +-1 (up to the rounding of sqrt(u^2)) is exactly
 * 1 or 0, as in the rounding gate. Exact in every mode; u != 0 always. */
static void ln_sign_units(const builder *B, const cnode *n, hs_layer *L,
                          int pair, int nu, int d) {
  int bos = B->pf_coord[HS_PF_BOS];
  for (int p = 0; p < 2; p++) {
    int h0 = 2 * (pair + p), h1 = h0 + 1;
    for (int t = 0; t < n->nin; t++) {
      float c = (float)n->coef[t];
      L->w1[(size_t)h0 * d + B->c[n->ins[t]].coord] += c;
      L->w1[(size_t)h1 * d + B->c[n->ins[t]].coord] -= c;
    }
    L->w1[(size_t)h0 * d + bos] += (float)-sign_k(n);
    L->w1[(size_t)h1 * d + bos] += (float)sign_k(n);
    L->ln_g[h0] = 2;
    L->ln_b[h0] = p == 0 ? -0.5f : -1.5f;
    L->w2[(size_t)n->coord * nu + h0] = p == 0 ? 1 : -1;
  }
}

static int fill_head(const builder *B, const cnode *n, hs_head *H, int d);

static int build_layer(builder *B, hs_model *m, int l) {
  hs_layer *L = &m->layers[l];
  int d = m->d, nh = 0, nu = 0, lnp = 0;
  unit u[2];
  for (int i = 0; i < B->n; i++) {
    const cnode *n = &B->c[i];
    if (n->attn_at == 2 * l) nh++;
    if (n->ffn_at != 2 * l + 1) continue;
    if (n->kind == C_GATE) nu += gate_units(B, n, u);
    else if (n->kind == C_HEAD || n->scratch >= 0) nu += 2;
    else lnp += 2, nu += 4; /* layer-norm sign */
  }
  L->nheads = nh;
  L->heads = calloc((size_t)(nh ? nh : 1), sizeof *L->heads);
  L->hidden = nu;
  L->w1 = calloc((size_t)nu * d + 1, sizeof(float));
  L->b1 = calloc((size_t)nu + 1, sizeof(float));
  L->w2 = calloc((size_t)d * nu + 1, sizeof(float));
  L->b2 = calloc((size_t)d, sizeof(float));
  L->ln_pairs = lnp;
  L->ln_g = calloc((size_t)(2 * lnp + 1), sizeof(float));
  L->ln_b = calloc((size_t)(2 * lnp + 1), sizeof(float));
  if (!L->heads || !L->w1 || !L->b1 || !L->w2 || !L->b2 || !L->ln_g || !L->ln_b)
    return -1;
  int h = 0, hu = 2 * lnp, pair = 0;
  for (int i = 0; i < B->n; i++) {
    const cnode *n = &B->c[i];
    if (n->attn_at == 2 * l) {
      hs_head *H = &L->heads[h++];
      if (n->kind == C_HEAD ? fill_head(B, n, H, d) : fill_aux_head(B, n, H, d))
        return -1;
    }
    if (n->ffn_at != 2 * l + 1) continue;
    int k = 0;
    if (n->kind == C_GATE) k = gate_units(B, n, u);
    else if (n->kind == C_HEAD || n->scratch >= 0) k = round_units(B, n, u);
    else ln_sign_units(B, n, L, pair, nu, d), pair += 2;
    for (int j = 0; j < k; j++, hu++) {
      for (int c = 0; c < 3; c++)
        if (u[j].in[c] >= 0) L->w1[(size_t)hu * d + u[j].in[c]] += u[j].w[c];
      L->b1[hu] = u[j].bias;
      L->w2[(size_t)n->coord * nu + hu] = u[j].out;
    }
  }
  return 0;
}

/* A temporal head (C_HEAD): scores from head_scores, reads val, writes the
 * scratch coordinate that its rounding gate reads. */
static int fill_head(const builder *B, const cnode *n, hs_head *H, int d) {
  term t[3];
  int dk = head_scores(B, n, t);
  H->dk = dk;
  H->dv = 1;
  H->mask = n->mask;
  H->target = n->right ? HS_ATTN_HARD_RIGHT : HS_ATTN_HARD_LEFT;
  H->kind = B->o.mode == HS_MODE_HARD ? H->target : HS_ATTN_SOFTMAX;
  H->tau_law = B->o.mode == HS_MODE_TEMP || B->o.mode == HS_MODE_REL
                   ? HS_TAU_INV_N
                   : HS_TAU_CONST;
  H->tau_c = B->o.mode == HS_MODE_PE || B->o.mode == HS_MODE_HARD
                 ? 1.0
                 : 1.0 / B->o.scale;
  if (B->o.mode == HS_MODE_REL) {
    /* mu as the float the kernels multiply by, and the content's
     * temperature from that same value (head_scores' bound uses it) */
    H->bias_slope = (float)B->o.scale;
    H->tau_c = 1.0 / (double)H->bias_slope;
  }
  H->wq = calloc((size_t)dk * d, sizeof(float));
  H->wk = calloc((size_t)dk * d, sizeof(float));
  H->wv = calloc((size_t)d, sizeof(float));
  H->wo = calloc((size_t)d, sizeof(float));
  H->desc = head_desc(B, n);
  if (!H->wq || !H->wk || !H->wv || !H->wo || !H->desc) return -1;
  for (int q = 0; q < dk; q++) {
    H->wq[(size_t)q * d + t[q].qc] = t[q].wq;
    H->wk[(size_t)q * d + t[q].kc] = t[q].wk;
  }
  H->wv[B->c[n->val].coord] = 1;
  H->wo[n->scratch] = 1;
  return 0;
}

static int build_model(builder *B, hs_model **out) {
  /* coordinates: features first, then every circuit node, heads with a
   * scratch coordinate for the raw attention output */
  feature(B, HS_PF_ONE, 0, 0);
  feature(B, HS_PF_BOS, 0, 0);
  int nheads_total = 0;
  for (int i = 0; i < B->n; i++) nheads_total += B->c[i].kind == C_HEAD;
  if (B->o.sign == HS_SIGN_TEMP)
    for (int i = 0; i < B->n; i++)
      if (B->c[i].kind == C_SIGN) B->c[i].scratch = -2; /* wants one */
  if (nheads_total > 0) {
    if (B->o.mode == HS_MODE_PE) {
      feature(B, HS_PF_I, 0, 0);
      feature(B, HS_PF_N, 0, 0);
    } else if (B->o.mode != HS_MODE_HARD && B->o.mode != HS_MODE_REL) {
      feature(B, HS_PF_I_OVER_N, 0, 0);
    }
  }
  for (int i = 0; i < B->n; i++)
    if (B->c[i].kind == C_COUNT && B->c[i].k == 1)
      feature(B, weight_feature(B, &B->c[i]), 0, 0);
  for (int i = 0; i < B->n; i++) {
    cnode *n = &B->c[i];
    if (n->kind == C_PF) n->coord = feature(B, n->pf, n->k, n->r);
    else n->coord = new_coord(B);
    if (n->kind == C_HEAD || n->scratch == -2) n->scratch = new_coord(B);
  }
  if (B->oom) return -1;
  schedule(B);
  int last = -1;
  for (int i = 0; i < B->n; i++) last = maxi(last, B->c[i].ready);
  int nlayers = last < 0 ? 0 : last / 2 + 1;

  hs_model *m = hs_model_new(B->d, nlayers);
  if (!m) return -1;
  *out = m;
  int d = B->d;
  /* embedding: atoms and true are 1 on their symbols, everything 0 at BOS */
  for (int i = 0; i < B->n; i++) {
    const cnode *n = &B->c[i];
    for (int s = 0; s < 256; s++)
      if (n->kind == C_TRUE || (n->kind == C_ATOM && n->sym == s))
        m->embed[(size_t)s * d + n->coord] = 1;
  }
  int npf = 0;
  for (int k = 0; k < HS_PF_COUNT_; k++) npf += B->pf_coord[k] >= 0;
  npf += B->nmods;
  m->pf = calloc((size_t)npf, sizeof *m->pf);
  if (!m->pf) return -1;
  for (int k = 0; k < HS_PF_COUNT_; k++)
    if (B->pf_coord[k] >= 0 && k != HS_PF_MOD)
      m->pf[m->npf++] = (hs_posfeat){(hs_pf_kind)k, B->pf_coord[k], 0, 0};
  for (int k = 0; k < B->nmods; k++)
    m->pf[m->npf++] =
        (hs_posfeat){HS_PF_MOD, B->mods[k].coord, B->mods[k].k, B->mods[k].r};

  for (int l = 0; l < nlayers; l++)
    if (build_layer(B, m, l) != 0) return -1;
  return 0;
}

/* (n+1)^{1 - mu/4}: the temperature sign's weight off [u > 0], n >= 1. */
static double sign_bound(double mu, size_t n) {
  double b = pow((double)(n ? n : 1) + 1, 1 - mu / 4);
  return b < 1 ? b : 1;
}

static int has_temp_sign(const hs_model *m) {
  for (int l = 0; l < m->nlayers; l++)
    for (int h = 0; h < m->layers[l].nheads; h++)
      if (m->layers[l].heads[h].tau_law == HS_TAU_INV_NLOGN) return 1;
  return 0;
}

double hs_model_bound_at(const hs_model *m, size_t n) {
  /* the temporal bound grows with n (fixed) or is constant; the sign's
   * shrinks, so its worst length is n = 1 */
  double b = hs_bound_at(m->mode, m->scale, n);
  if (m->mode && strcmp(m->mode, "hard") && has_temp_sign(m)) {
    double s = sign_bound(m->scale, 1);
    if (s > b) b = s;
  }
  return b;
}

static void describe(builder *B, hs_model *m, int root) {
  m->out_coord = B->c[root].coord;
  m->formula = xstrdup(B->f->text ? B->f->text : "");
  m->mode = xstrdup(hs_mode_name(B->o.mode));
  m->scale = B->o.mode == HS_MODE_HARD ? 0 : B->o.scale;
  int heads = 0;
  for (int l = 0; l < m->nlayers; l++) heads += m->layers[l].nheads;
  char buf[1024];
  double ln7 = log(7.0);
  if (B->o.mode == HS_MODE_HARD || heads == 0) {
    m->bound = 0;
    m->min_scale = 0;
    snprintf(buf, sizeof buf,
             heads ? "hard attention: exact, no bound needed"
                   : "no attention: exact");
  } else if (B->o.mode == HS_MODE_FIXED) {
    m->bound = hs_bound_at("fixed", B->o.scale, 1);
    m->min_scale = -1;
    snprintf(buf, sizeof buf,
             "weight off target <= S/(1+S), S = 2e^{-mu/n}/(1-e^{-mu/n}); "
             "< 1/4 only while n <= mu/ln 7 = %.1f: no constant mu is exact "
             "at every length",
             B->o.scale / ln7);
  } else {
    double mu = B->o.mode == HS_MODE_REL ? (double)(float)B->o.scale : B->o.scale;
    m->bound = hs_bound_at("pe", mu, 1);
    m->min_scale = ln7;
    snprintf(buf, sizeof buf,
             "weight off target <= S/(1+S), S = 2e^{-mu}/(1-e^{-mu}) = %.3g "
             "at every n; exact (< 1/4) for mu >= ln 7 = 1.946",
             m->bound);
    if (B->o.mode == HS_MODE_REL) {
      size_t at = strlen(buf);
      snprintf(buf + at, sizeof buf - at,
               " (rel: logits -mu r_j, r_j = |i - j| + n [s_j = 0], the "
               "target's r the smallest, distinct within s = 1 and s = 0; "
               "bias slope %g per position, content at tau = 1/(mu n))",
               mu);
    }
  }
  if (has_temp_sign(m) && B->o.mode != HS_MODE_FIXED) {
    size_t at = strlen(buf);
    snprintf(buf + at, sizeof buf - at,
             "; counting signs by softmax at tau = 1/(mu n ln(n+1)): weight "
             "off the sign <= (n+1)^{1-mu/4} = %.3g at n = 1, exact for mu > 12",
             sign_bound(B->o.scale, 1));
    if (m->bound < sign_bound(B->o.scale, 1)) m->bound = sign_bound(B->o.scale, 1);
    if (m->min_scale < 12) m->min_scale = 12;
  }
  m->bound_desc = xstrdup(buf);
  m->coord_names = calloc((size_t)m->d, sizeof *m->coord_names);
  if (!m->coord_names) return;
  for (int k = 0; k < m->npf; k++) {
    const hs_posfeat *p = &m->pf[k];
    if (p->kind == HS_PF_MOD)
      snprintf(buf, sizeof buf, "feature [i mod %lld = %lld]", (long long)p->k,
               (long long)p->r);
    else
      snprintf(buf, sizeof buf, "feature %s", hs_pf_kind_name(p->kind));
    m->coord_names[p->coord] = xstrdup(buf);
  }
  for (int i = 0; i < B->n; i++) {
    const cnode *n = &B->c[i];
    char nm[400];
    cname(B, i, nm, sizeof nm);
    if (n->kind != C_PF) m->coord_names[n->coord] = xstrdup(nm);
    if (n->scratch >= 0) {
      snprintf(buf, sizeof buf, "attention output for %s", nm);
      m->coord_names[n->scratch] = xstrdup(buf);
    }
  }
}

hs_model *hs_compile(const hs_formula *f, const hs_compile_opts *o,
                     hs_error *err) {
  builder B;
  memset(&B, 0, sizeof B);
  B.f = f;
  B.o = *o;
  B.err = err;
  for (int k = 0; k < HS_PF_COUNT_; k++) B.pf_coord[k] = -1;
  hs_model *m = NULL;
  if ((unsigned)o->mode >= HS_MODE_COUNT_) {
    hs_errorf(err, HS_ERR_ARG, "unknown mode");
    return NULL;
  }
  if (o->mode != HS_MODE_HARD && !(o->scale > 0 && isfinite(o->scale))) {
    hs_errorf(err, HS_ERR_ARG, "--scale must be a positive number (got %g)", o->scale);
    return NULL;
  }
  B.memo = malloc((size_t)(f->count ? f->count : 1) * sizeof *B.memo);
  if (!B.memo) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory while compiling");
    return NULL;
  }
  for (int i = 0; i < f->count; i++) B.memo[i] = -1;
  int root = lower(&B, f->root);
  if (root >= 0) {
    if (build_model(&B, &m) == 0 && !B.oom) {
      describe(&B, m, root);
    } else {
      hs_errorf(err, HS_ERR_NOMEM, "out of memory while compiling");
      hs_model_free(m);
      m = NULL;
    }
  }
  free(B.memo);
  for (int i = 0; i < B.n; i++) {
    free(B.c[i].ins);
    free(B.c[i].coef);
  }
  free(B.c);
  free(B.mods);
  return m;
}
