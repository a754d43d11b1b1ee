/* SPDX-License-Identifier: MIT */
/* Formula DAG utilities: node equality and interning (hash-consing),
 * printing in the concrete syntax, and small queries used by the compiler.
 *
 * Interning contract. Two nodes are equal when they have the same op and
 * the same *relevant* fields for that op (an atom compares sym only, @mod
 * compares k and r, a comparison compares rel, c and its terms, ...). A
 * stored node always has its irrelevant fields canonicalised (children -1,
 * numbers 0, terms NULL), so callers may pass nodes with garbage in fields
 * their op does not use. Every front end interns through the formula's
 * own hash index (hs_formula_find / hs_formula_add). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/ltl/formula.h"

/* Internal helpers shared with parse.c (declared there too). */
int hs_node_equal_(const hs_node *x, const hs_node *y);
uint64_t hs_node_hash_(const hs_node *n);
int32_t hs_formula_push_(hs_formula *f, const hs_node *n);

static int op_arity(hs_fop op) {
  switch (op) {
  case HS_F_NOT: case HS_F_NEXT: case HS_F_YESTERDAY: case HS_F_EVENTUALLY:
  case HS_F_ALWAYS: case HS_F_ONCE: case HS_F_HISTORICALLY:
    return 1;
  case HS_F_AND: case HS_F_OR: case HS_F_IMPLIES: case HS_F_IFF:
  case HS_F_UNTIL: case HS_F_SINCE:
    return 2;
  default:
    return 0;
  }
}

int hs_node_equal_(const hs_node *x, const hs_node *y) {
  if (x->op != y->op) return 0;
  switch (x->op) {
  case HS_F_ATOM: return x->sym == y->sym;
  case HS_F_MOD: return x->k == y->k && x->r == y->r;
  case HS_F_CMP:
    if (x->rel != y->rel || x->c != y->c || x->nterms != y->nterms) return 0;
    for (int32_t t = 0; t < x->nterms; t++) {
      const hs_count_term *p = &x->terms[t], *q = &y->terms[t];
      if (p->coef != q->coef || !p->past != !q->past || p->arg != q->arg)
        return 0;
    }
    return 1;
  default: {
    int ar = op_arity(x->op);
    if (ar >= 1 && x->a != y->a) return 0;
    if (ar >= 2 && x->b != y->b) return 0;
    return 1;
  }
  }
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 29);
}

/* Hash over exactly the fields hs_node_equal_ compares. */
uint64_t hs_node_hash_(const hs_node *n) {
  uint64_t h = mix(0x1234567u, (uint64_t)n->op);
  switch (n->op) {
  case HS_F_ATOM: return mix(h, n->sym);
  case HS_F_MOD: return mix(mix(h, (uint64_t)n->k), (uint64_t)n->r);
  case HS_F_CMP:
    h = mix(mix(mix(h, (uint64_t)n->rel), (uint64_t)n->c), (uint64_t)n->nterms);
    for (int32_t t = 0; t < n->nterms; t++)
      h = mix(mix(mix(h, (uint64_t)n->terms[t].coef), (uint64_t)!!n->terms[t].past),
              (uint64_t)(uint32_t)n->terms[t].arg);
    return h;
  default: {
    int ar = op_arity(n->op);
    if (ar >= 1) h = mix(h, (uint64_t)(uint32_t)n->a);
    if (ar >= 2) h = mix(h, (uint64_t)(uint32_t)n->b);
    return h;
  }
  }
}

/* Whether n may be appended to f: a known op, and children that already
 * exist (so index order stays topological). */
static int node_valid(const hs_formula *f, const hs_node *n) {
  if ((int)n->op < 0 || n->op >= HS_F_COUNT_) return 0;
  int ar = op_arity(n->op);
  if (ar >= 1 && (n->a < 0 || n->a >= f->count)) return 0;
  if (ar >= 2 && (n->b < 0 || n->b >= f->count)) return 0;
  if (n->op == HS_F_CMP) {
    if (n->nterms < 0 || (n->nterms > 0 && !n->terms)) return 0;
    if ((int)n->rel < HS_REL_LT || n->rel > HS_REL_GT) return 0;
    for (int32_t t = 0; t < n->nterms; t++)
      if (n->terms[t].arg < 0 || n->terms[t].arg >= f->count) return 0;
  }
  return 1;
}

/* Append a canonical copy of n (no search). -1 on allocation failure or
 * an invalid node. */
int32_t hs_formula_push_(hs_formula *f, const hs_node *n) {
  if (!node_valid(f, n)) return -1;
  if (f->count == INT32_MAX) return -1;
  if (f->count == f->cap) {
    int32_t cap = f->cap < 16 ? 16 : (f->cap > INT32_MAX / 2 ? INT32_MAX : f->cap * 2);
    hs_node *nn = realloc(f->nodes, (size_t)cap * sizeof *nn);
    if (!nn) return -1;
    f->nodes = nn;
    f->cap = cap;
  }
  hs_node m;
  memset(&m, 0, sizeof m);
  m.op = n->op;
  m.a = m.b = -1;
  int ar = op_arity(n->op);
  if (ar >= 1) m.a = n->a;
  if (ar >= 2) m.b = n->b;
  if (n->op == HS_F_ATOM) m.sym = n->sym;
  if (n->op == HS_F_MOD) { m.k = n->k; m.r = n->r; }
  if (n->op == HS_F_CMP) {
    m.rel = n->rel;
    m.c = n->c;
    m.nterms = n->nterms;
    if (n->nterms > 0) {
      m.terms = malloc((size_t)n->nterms * sizeof *m.terms);
      if (!m.terms) return -1;
      for (int32_t t = 0; t < n->nterms; t++) {
        m.terms[t] = n->terms[t];
        m.terms[t].past = !!n->terms[t].past;
      }
    }
  }
  f->nodes[f->count] = m;
  return f->count++;
}

/* Keeps the index at most half full, rebuilt from every node. */
static int grow_index(hs_formula *f) {
  size_t cap = f->tabcap ? f->tabcap * 2 : 64;
  while (((size_t)f->count + 1) * 2 > cap) cap *= 2;
  uint32_t *tab = calloc(cap, sizeof *tab);
  if (!tab) return -1;
  for (int32_t i = 0; i < f->count; i++) {
    size_t h = (size_t)hs_node_hash_(&f->nodes[i]) & (cap - 1);
    while (tab[h]) h = (h + 1) & (cap - 1);
    tab[h] = (uint32_t)i + 1;
  }
  free(f->tab);
  f->tab = tab;
  f->tabcap = cap;
  return 0;
}

/* The slot of a node equal to n, or the empty one where n goes. */
static size_t index_slot(const hs_formula *f, const hs_node *n) {
  size_t mask = f->tabcap - 1, h = (size_t)hs_node_hash_(n) & mask;
  while (f->tab[h] && !hs_node_equal_(&f->nodes[f->tab[h] - 1], n)) h = (h + 1) & mask;
  return h;
}

int32_t hs_formula_find(hs_formula *f, const hs_node *n) {
  if (((size_t)f->count + 1) * 2 > f->tabcap && grow_index(f)) return -2;
  return (int32_t)f->tab[index_slot(f, n)] - 1;
}

int32_t hs_formula_add(hs_formula *f, const hs_node *n) {
  if (((size_t)f->count + 1) * 2 > f->tabcap && grow_index(f)) return -1;
  int32_t id = hs_formula_push_(f, n);
  if (id >= 0) f->tab[index_slot(f, &f->nodes[id])] = (uint32_t)id + 1;
  return id;
}

void hs_formula_drop_index(hs_formula *f) {
  free(f->tab);
  f->tab = NULL;
  f->tabcap = 0;
}

int32_t hs_formula_intern(hs_formula *f, const hs_node *n) {
  if (!f || !n || !node_valid(f, n)) return -1;
  int32_t id = hs_formula_find(f, n);
  return id == -1 ? hs_formula_add(f, n) : id < 0 ? -1 : id;
}

void hs_formula_free(hs_formula *f) {
  if (!f) return;
  for (int32_t i = 0; i < f->count; i++) free(f->nodes[i].terms);
  free(f->nodes);
  free(f->text);
  free(f->tab);
  free(f);
}

/* ------------------------------------------------------------- printing */

/* snprintf-style writer: counts every byte, stores what fits, keeps the
 * buffer NUL-terminated. */
typedef struct pbuf {
  char *buf;
  size_t len, pos;
  int cosmetic; /* add the parentheses that are for readers only */
} pbuf;

static void put(pbuf *p, const char *s) {
  for (; *s; s++, p->pos++)
    if (p->pos + 1 < p->len) p->buf[p->pos] = *s;
}

static void put_i64(pbuf *p, int64_t v) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  put(p, tmp);
}

/* Precedence levels, loosest first, as in docs/LANGUAGE.md. */
enum { L_IFF = 1, L_IMP, L_OR, L_AND, L_US, L_PREFIX, L_PRIMARY };

static int level(hs_fop op) {
  switch (op) {
  case HS_F_IFF: return L_IFF;
  case HS_F_IMPLIES: return L_IMP;
  case HS_F_OR: return L_OR;
  case HS_F_AND: return L_AND;
  case HS_F_UNTIL: case HS_F_SINCE: return L_US;
  case HS_F_NOT: case HS_F_NEXT: case HS_F_YESTERDAY: case HS_F_EVENTUALLY:
  case HS_F_ALWAYS: case HS_F_ONCE: case HS_F_HISTORICALLY: return L_PREFIX;
  default: return L_PRIMARY;
  }
}

static void print_node(pbuf *p, const hs_formula *f, int32_t id, int need);

/* Print a child that must bind at least as tightly as `need`; in_bool: the
 * parent is & | -> or <->. */
static void print_child(pbuf *p, const hs_formula *f, int32_t id, int need,
                        int in_bool) {
  if (id < 0 || id >= f->count) { put(p, "<bad node>"); return; }
  int paren = level(f->nodes[id].op) < need;
  /* A comparison under a prefix operator is legal bare (`!#<(a) > 0`)
   * but reads badly; parenthesise it. */
  if (f->nodes[id].op == HS_F_CMP && need == L_PREFIX && p->cosmetic) paren = 1;
  /* U and S bind tighter than & | -> <-> here but looser in some other
   * tools; parenthesise them as operands of those so the output reads the
   * same to all. (Chains `a U b U c` stay bare: parentheses cost nesting
   * levels, and a printed formula must parse back within the limit.) */
  if (level(f->nodes[id].op) == L_US && in_bool && p->cosmetic) paren = 1;
  if (paren) put(p, "(");
  print_node(p, f, id, need);
  if (paren) put(p, ")");
}

static void print_atom(pbuf *p, uint8_t c) {
  char tmp[8];
  if (c >= 'a' && c <= 'z') {
    tmp[0] = (char)c; tmp[1] = 0;
  } else if (c >= 0x20 && c <= 0x7e && c != '\'' && c != '\\') {
    tmp[0] = '\''; tmp[1] = (char)c; tmp[2] = '\''; tmp[3] = 0;
  } else {
    /* Not expressible in the language (only a compiler-built node can hold
     * such a byte); printed recognisably, and the parser rejects it. */
    snprintf(tmp, sizeof tmp, "'\\x%02x'", c);
  }
  put(p, tmp);
}

static void print_node(pbuf *p, const hs_formula *f, int32_t id, int need) {
  (void)need;
  const hs_node *n = &f->nodes[id];
  static const char *const prefix[] = {
    [HS_F_NOT] = "!", [HS_F_NEXT] = "X ", [HS_F_YESTERDAY] = "Y ",
    [HS_F_EVENTUALLY] = "F ", [HS_F_ALWAYS] = "G ", [HS_F_ONCE] = "O ",
    [HS_F_HISTORICALLY] = "H "};
  static const char *const rels[] = {"<", "<=", "=", "!=", ">=", ">"};
  switch (n->op) {
  case HS_F_FALSE: put(p, "false"); break;
  case HS_F_TRUE: put(p, "true"); break;
  case HS_F_ATOM: print_atom(p, n->sym); break;
  case HS_F_FIRST: put(p, "@first"); break;
  case HS_F_LAST: put(p, "@last"); break;
  case HS_F_MOD:
    put(p, "@mod("); put_i64(p, n->k); put(p, ","); put_i64(p, n->r); put(p, ")");
    break;
  case HS_F_NOT: case HS_F_NEXT: case HS_F_YESTERDAY: case HS_F_EVENTUALLY:
  case HS_F_ALWAYS: case HS_F_ONCE: case HS_F_HISTORICALLY:
    put(p, prefix[n->op]);
    print_child(p, f, n->a, L_PREFIX, 0);
    break;
  case HS_F_IFF: /* left associative */
    print_child(p, f, n->a, L_IFF, 1); put(p, " <-> "); print_child(p, f, n->b, L_IMP, 1);
    break;
  case HS_F_IMPLIES: /* right associative */
    print_child(p, f, n->a, L_OR, 1); put(p, " -> "); print_child(p, f, n->b, L_IMP, 1);
    break;
  case HS_F_OR:
    print_child(p, f, n->a, L_OR, 1); put(p, " | "); print_child(p, f, n->b, L_AND, 1);
    break;
  case HS_F_AND:
    print_child(p, f, n->a, L_AND, 1); put(p, " & "); print_child(p, f, n->b, L_US, 1);
    break;
  case HS_F_UNTIL: case HS_F_SINCE: /* right associative, one level */
    print_child(p, f, n->a, L_PREFIX, 0);
    put(p, n->op == HS_F_UNTIL ? " U " : " S ");
    print_child(p, f, n->b, L_US, 0);
    break;
  case HS_F_CMP: {
    /* sum coef*count + c REL 0, e.g. `#<(a) - 2*#>(b) + 3 >= 0`. */
    for (int32_t t = 0; t < n->nterms; t++) {
      int64_t k = n->terms[t].coef;
      /* magnitude as unsigned so INT64_MIN from a compiler-built node
       * cannot overflow */
      uint64_t mag = k < 0 ? 0 - (uint64_t)k : (uint64_t)k;
      if (t == 0) { if (k < 0) put(p, "-"); }
      else put(p, k < 0 ? " - " : " + ");
      if (mag != 1) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%llu*", (unsigned long long)mag);
        put(p, tmp);
      }
      put(p, n->terms[t].past ? "#<(" : "#>(");
      print_child(p, f, n->terms[t].arg, 0, 0);
      put(p, ")");
    }
    if (n->nterms == 0) put_i64(p, n->c);
    else if (n->c != 0) {
      uint64_t mag = n->c < 0 ? 0 - (uint64_t)n->c : (uint64_t)n->c;
      char tmp[32];
      snprintf(tmp, sizeof tmp, "%s%llu", n->c < 0 ? " - " : " + ",
               (unsigned long long)mag);
      put(p, tmp);
    }
    put(p, " ");
    put(p, (int)n->rel >= 0 && n->rel <= HS_REL_GT ? rels[n->rel] : "?");
    put(p, " 0");
    break;
  }
  default: put(p, "<bad op>"); break;
  }
}


/* Syntax-tree depth of node id (a leaf is 1), iteratively; -1 when out of
 * memory. */
static int64_t tree_depth(const hs_formula *f, int32_t id) {
  int64_t *d = malloc(((size_t)id + 1) * sizeof *d);
  if (!d) return -1;
  for (int32_t i = 0; i <= id; i++) {
    const hs_node *n = &f->nodes[i];
    int64_t m = 0;
    if (n->a >= 0 && n->a < i && d[n->a] > m) m = d[n->a];
    if (n->b >= 0 && n->b < i && d[n->b] > m) m = d[n->b];
    for (int32_t t = 0; t < n->nterms; t++)
      if (n->terms[t].arg >= 0 && n->terms[t].arg < i && d[n->terms[t].arg] > m)
        m = d[n->terms[t].arg];
    d[i] = m + 1;
  }
  int64_t r = d[id];
  free(d);
  return r;
}

size_t hs_formula_print(const hs_formula *f, int32_t id, char *buf, size_t len) {
  pbuf p = {buf, buf ? len : 0, 0, 0};
  if (p.len) p.buf[0] = 0;
  if (!f || id < 0 || id >= f->count) return 0;
  /* A printed formula must parse back, within the parser's nesting limit.
   * The parentheses the grammar requires sit where the parsed text had
   * them too, so they cost no more levels than the text did; the cosmetic
   * ones (U/S as an operand of & | -> <->, a comparison under a prefix
   * operator) are extra, and a chain of them could push a formula that
   * parsed near the limit over it (found by fuzz-parse). Each tree edge
   * costs the parser at most 3 levels (a counting term; a prefix or
   * right-hand operand with parentheses costs 2), so below a tree depth of
   * max_depth / 3 (hs_get_limits) the cosmetic parentheses are always safe; deeper
   * formulas are printed with the required ones only. */
  int64_t depth = tree_depth(f, id);
  p.cosmetic = depth >= 0 && (int64_t)depth * 3 + 1 <= hs_get_limits().max_depth;
  print_node(&p, f, id, 0);
  if (p.len) p.buf[p.pos < p.len ? p.pos : p.len - 1] = 0;
  return p.pos;
}

/* -------------------------------------------------------------- queries */

void hs_formula_alphabet(const hs_formula *f, uint8_t set[256]) {
  memset(set, 0, 256);
  if (!f) return;
  for (int32_t i = 0; i < f->count; i++)
    if (f->nodes[i].op == HS_F_ATOM) set[f->nodes[i].sym] = 1;
}

int hs_formula_has_op(const hs_formula *f, hs_fop op) {
  if (!f) return 0;
  for (int32_t i = 0; i < f->count; i++)
    if (f->nodes[i].op == op) return 1;
  return 0;
}

/* Iterative over indices 0..id (children precede parents), so a deep
 * formula cannot exhaust the stack. Each of X Y F G O H U S and each
 * counting term #< / #> adds one level. -1 for a bad id or no memory. */
int hs_formula_temporal_depth(const hs_formula *f, int32_t id) {
  if (!f || id < 0 || id >= f->count) return -1;
  int *d = malloc(((size_t)id + 1) * sizeof *d);
  if (!d) return -1;
  for (int32_t i = 0; i <= id; i++) {
    const hs_node *n = &f->nodes[i];
    int m = 0;
    switch (n->op) {
    case HS_F_NOT: m = d[n->a]; break;
    case HS_F_AND: case HS_F_OR: case HS_F_IMPLIES: case HS_F_IFF:
      m = d[n->a] > d[n->b] ? d[n->a] : d[n->b];
      break;
    case HS_F_NEXT: case HS_F_YESTERDAY: case HS_F_EVENTUALLY:
    case HS_F_ALWAYS: case HS_F_ONCE: case HS_F_HISTORICALLY:
      m = d[n->a] + 1;
      break;
    case HS_F_UNTIL: case HS_F_SINCE:
      m = (d[n->a] > d[n->b] ? d[n->a] : d[n->b]) + 1;
      break;
    case HS_F_CMP:
      for (int32_t t = 0; t < n->nterms; t++)
        if (d[n->terms[t].arg] + 1 > m) m = d[n->terms[t].arg] + 1;
      break;
    default: break;
    }
    d[i] = m;
  }
  int r = d[id];
  free(d);
  return r;
}

int32_t hs_formula_root(const hs_formula *f) { return f->root; }
const char *hs_formula_text(const hs_formula *f) { return f->text; }
