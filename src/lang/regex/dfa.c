/* SPDX-License-Identifier: MIT */
/* Regular expression -> minimal complete automaton (dfa.h).
 *
 * The expression becomes one Thompson automaton with empty moves, which
 * the subset construction determinizes and Hopcroft's algorithm
 * minimizes, once. The two operators automata with empty moves lack,
 * complement and intersection, are built on deterministic automata: the
 * operand's minimal automaton (built the same way, recursively), then
 * its complement (accepting states swapped: the automaton is complete)
 * or the product of the operands, minimized and embedded back as a
 * fragment (its dead state left out). A fragment an {m,n} copies is
 * built once per copy; the automaton of a ~ or & under it once.
 *
 * Sizes: the Thompson automaton has at most two states per symbol and
 * operator of the text times the repetition counts; every automaton the
 * subset construction or a product makes is held to RX_MAX_STATES
 * states, and all constructions of one expression together to
 * RX_MAX_WORK steps, so a blow-up (the subset construction is
 * exponential at worst, (a|b)*a(a|b){20} has 2^21 states) is refused in
 * one line naming where, not run out of memory. */
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "lang/regex/dfa.h"

#define RX_MAX_NFA (1 << 22)

typedef struct nfa {
  int32_t n;
  int32_t ne, ecap;
  int32_t *efrom, *eto, *elab; /* elab: -1 an empty move, else a label */
  uint64_t (*lab)[4];
  int32_t nlab, labcap;
} nfa;

typedef struct ctx {
  const rx_ast *t;
  int k;
  int64_t work;
  int failed;
  hs_error *err;
  rx_dfa *memo; /* per node: the automaton of a ~ or & chain, once built */
} ctx;

static int fail_at(ctx *c, int32_t node, hs_errcode code, const char *what) {
  if (c->failed) return -1;
  c->failed = 1;
  const rx_node *x = node >= 0 ? &c->t->nd[node] : NULL;
  return hs_text_error(c->err, code, x ? x->line : 1, x ? x->col : 1, "%s", what);
}

static int oom(ctx *c) { return fail_at(c, -1, HS_ERR_NOMEM, "out of memory building the automaton"); }

static int spend(ctx *c, int64_t steps, int32_t node) {
  c->work += steps;
  if (c->work <= RX_MAX_WORK) return 0;
  return fail_at(c, node, HS_ERR_LIMIT, "expression too costly to build an automaton for "
                 "(more than 2^28 steps; its automaton blows up)");
}

void rx_dfa_free(rx_dfa *d) {
  free(d->next);
  free(d->acc);
  memset(d, 0, sizeof *d);
}

static int dfa_alloc(rx_dfa *d, int32_t n, int32_t k) {
  d->n = n;
  d->k = k;
  d->next = malloc((size_t)(n ? n : 1) * (size_t)(k ? k : 1) * sizeof *d->next);
  d->acc = calloc((size_t)(n ? n : 1), 1);
  if (d->next && d->acc) return 0;
  rx_dfa_free(d);
  return -1;
}

/* ------------------------------------------------------------------ NFA */

static int32_t new_state(ctx *c, nfa *a, int32_t node) {
  if (a->n >= RX_MAX_NFA)
    return fail_at(c, node, HS_ERR_LIMIT, "expression too large (more than 2^22 "
                   "automaton states; lower the repetition counts)");
  if (spend(c, 1, node)) return -1;
  return a->n++;
}

static int add_edge(ctx *c, nfa *a, int32_t from, int32_t to, int32_t lab) {
  if (a->ne == a->ecap) {
    int32_t cap = a->ecap ? a->ecap * 2 : 256;
    if (a->ecap >= RX_MAX_NFA * 2)
      return fail_at(c, -1, HS_ERR_LIMIT, "expression too large (more than 2^23 "
                     "automaton moves)");
    int32_t *f = realloc(a->efrom, (size_t)cap * sizeof *f);
    if (f) a->efrom = f;
    int32_t *t = realloc(a->eto, (size_t)cap * sizeof *t);
    if (t) a->eto = t;
    int32_t *l = realloc(a->elab, (size_t)cap * sizeof *l);
    if (l) a->elab = l;
    if (!f || !t || !l) return oom(c);
    a->ecap = cap;
  }
  a->efrom[a->ne] = from;
  a->eto[a->ne] = to;
  a->elab[a->ne++] = lab;
  return 0;
}

static int32_t add_label(ctx *c, nfa *a, const uint64_t bits[4]) {
  if (a->nlab == a->labcap) {
    int32_t cap = a->labcap ? a->labcap * 2 : 64;
    void *l = realloc(a->lab, (size_t)cap * sizeof *a->lab);
    if (!l) return oom(c);
    a->lab = l;
    a->labcap = cap;
  }
  memcpy(a->lab[a->nlab], bits, sizeof a->lab[0]);
  return a->nlab++;
}

static void nfa_free(nfa *a) {
  free(a->efrom);
  free(a->eto);
  free(a->elab);
  free(a->lab);
  memset(a, 0, sizeof *a);
}

/* The symbols of a set over the whole alphabet. */
static void resolve(const ctx *c, const rx_set *s, uint64_t out[4]) {
  for (int w = 0; w < 4; w++) {
    uint64_t all = c->k >= 64 * (w + 1) ? ~0ull
                   : c->k > 64 * w ? (1ull << (c->k - 64 * w)) - 1 : 0;
    out[w] = s->any ? all : s->neg ? all & ~s->bits[w] : s->bits[w] & all;
  }
}

/* ------------------------------------------------- subset construction */

/* The subsets found so far (each a sorted list of NFA states), indexed by
 * a hash table, and the automaton under construction. */
typedef struct subsets {
  int32_t *pool;
  int64_t npool, cappool;
  int64_t *off;
  int32_t *len;
  int32_t n, cap;
  int32_t *slot; /* index + 1, 0 empty */
  size_t nslot;
  int32_t *next; /* [cap][k] */
  uint8_t *acc;
} subsets;

static uint64_t hash_ints(const int32_t *x, int32_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t i = 0; i < n; i++) h = (h ^ (uint32_t)x[i]) * 1099511628211ull;
  return h ^ (h >> 31);
}

static int subsets_grow(subsets *S, int k) {
  int32_t cap = S->cap ? S->cap * 2 : 64;
  int64_t *off = realloc(S->off, (size_t)cap * sizeof *off);
  if (off) S->off = off;
  int32_t *len = realloc(S->len, (size_t)cap * sizeof *len);
  if (len) S->len = len;
  int32_t *next = realloc(S->next, (size_t)cap * (size_t)(k ? k : 1) * sizeof *next);
  if (next) S->next = next;
  uint8_t *acc = realloc(S->acc, (size_t)cap);
  if (acc) S->acc = acc;
  if (!off || !len || !next || !acc) return -1;
  S->cap = cap;
  size_t ns = S->nslot ? S->nslot : 128;
  while (ns < (size_t)cap * 2) ns *= 2;
  if (ns == S->nslot) return 0;
  int32_t *slot = calloc(ns, sizeof *slot);
  if (!slot) return -1;
  for (int32_t i = 0; i < S->n; i++) {
    size_t h = hash_ints(S->pool + S->off[i], S->len[i]) & (ns - 1);
    while (slot[h]) h = (h + 1) & (ns - 1);
    slot[h] = i + 1;
  }
  free(S->slot);
  S->slot = slot;
  S->nslot = ns;
  return 0;
}

/* The index of the sorted set x[0..n), added when new; -1 out of memory,
 * -2 past the state limit. */
static int32_t subsets_find(subsets *S, const int32_t *x, int32_t n, int k) {
  if (S->n == S->cap && subsets_grow(S, k)) return -1;
  size_t h = hash_ints(x, n) & (S->nslot - 1);
  for (; S->slot[h]; h = (h + 1) & (S->nslot - 1)) {
    int32_t i = S->slot[h] - 1;
    if (S->len[i] == n && !memcmp(S->pool + S->off[i], x, (size_t)n * sizeof *x)) return i;
  }
  if (S->n == RX_MAX_STATES) return -2;
  if (S->npool + n > S->cappool) {
    int64_t cap = S->cappool ? S->cappool : 1024;
    while (cap < S->npool + n) cap *= 2;
    int32_t *p = realloc(S->pool, (size_t)cap * sizeof *p);
    if (!p) return -1;
    S->pool = p;
    S->cappool = cap;
  }
  memcpy(S->pool + S->npool, x, (size_t)n * sizeof *x);
  S->off[S->n] = S->npool;
  S->len[S->n] = n;
  S->npool += n;
  S->slot[h] = S->n + 1;
  return S->n++;
}

static void subsets_free(subsets *S) {
  free(S->pool);
  free(S->off);
  free(S->len);
  free(S->slot);
  free(S->next);
  free(S->acc);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The NFA's moves by source state (CSR) and the scratch the construction
 * needs: a mark per state, a closure stack, per-symbol target buckets. */
typedef struct walk {
  int32_t *off, *edge, *mark, *stack, *bucket, *boff;
  int32_t stamp;
} walk;

static void walk_free(walk *w) {
  free(w->off);
  free(w->edge);
  free(w->mark);
  free(w->stack);
  free(w->bucket);
  free(w->boff);
}

static int walk_init(walk *w, const nfa *a, int k) {
  memset(w, 0, sizeof *w);
  w->off = calloc((size_t)a->n + 1, sizeof *w->off);
  w->edge = malloc((size_t)(a->ne ? a->ne : 1) * sizeof *w->edge);
  w->mark = calloc((size_t)a->n + 1, sizeof *w->mark);
  w->stack = malloc(((size_t)a->n * 2 + 2) * sizeof *w->stack);
  w->boff = calloc((size_t)k + 2, sizeof *w->boff);
  if (!w->off || !w->edge || !w->mark || !w->stack || !w->boff) return -1;
  for (int32_t e = 0; e < a->ne; e++) w->off[a->efrom[e] + 1]++;
  for (int32_t i = 0; i < a->n; i++) w->off[i + 1] += w->off[i];
  int32_t *fill = malloc(((size_t)a->n + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, w->off, ((size_t)a->n + 1) * sizeof *fill);
  for (int32_t e = 0; e < a->ne; e++) w->edge[fill[a->efrom[e]]++] = e;
  free(fill);
  return 0;
}

/* The closure under empty moves of x[0..n) into w->stack[0..), sorted;
 * returns its size. */
static int32_t closure(walk *w, const nfa *a, const int32_t *x, int32_t n, int64_t *steps) {
  int32_t *out = w->stack, top = 0, m = 0;
  w->stamp++;
  /* the output grows from the front, the work list from the back */
  int32_t *todo = w->stack + a->n;
  for (int32_t i = 0; i < n; i++)
    if (w->mark[x[i]] != w->stamp) w->mark[x[i]] = w->stamp, todo[top++] = x[i];
  while (top) {
    int32_t s = todo[--top];
    out[m++] = s;
    for (int32_t j = w->off[s]; j < w->off[s + 1]; j++) {
      int32_t e = w->edge[j], t = a->eto[e];
      if (a->elab[e] < 0 && w->mark[t] != w->stamp) w->mark[t] = w->stamp, todo[top++] = t;
    }
  }
  *steps += m;
  qsort(out, (size_t)m, sizeof *out, cmp_i32);
  return m;
}

/* The targets of subset i's labelled moves, bucketed by symbol. */
static int bucket_moves(walk *w, const nfa *a, const subsets *S, int32_t i, int k,
                        int64_t *steps) {
  const int32_t *x = S->pool + S->off[i];
  memset(w->boff, 0, ((size_t)k + 2) * sizeof *w->boff);
  int64_t total = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t t = 0; t < S->len[i]; t++)
      for (int32_t j = w->off[x[t]]; j < w->off[x[t] + 1]; j++) {
        int32_t e = w->edge[j];
        if (a->elab[e] < 0) continue;
        for (int q = 0; q < 4; q++)
          for (uint64_t b = a->lab[a->elab[e]][q]; b; b &= b - 1) {
            int c = q * 64 + __builtin_ctzll(b);
            if (pass == 0) w->boff[c + 2]++, total++;
            else w->bucket[w->boff[c + 1]++] = a->eto[e];
          }
      }
    if (pass == 0) {
      for (int c = 0; c < k; c++) w->boff[c + 2] += w->boff[c + 1];
      free(w->bucket);
      if (!(w->bucket = malloc((size_t)(total ? total : 1) * sizeof *w->bucket))) return -1;
    }
  }
  *steps += total;
  return 0;
}

/* The subset construction from start (accepting: the subsets holding
 * end); the automaton is complete (the empty subset is a state when some
 * move needs it). */
static int determinize(ctx *c, const nfa *a, int32_t start, int32_t end, int32_t node,
                       rx_dfa *out) {
  int k = c->k;
  subsets S;
  walk w;
  memset(&S, 0, sizeof S);
  int rc = walk_init(&w, a, k) ? oom(c) : 0;
  int64_t steps = 0;
  int32_t m = rc ? 0 : closure(&w, a, &start, 1, &steps);
  if (!rc && subsets_find(&S, w.stack, m, k) < 0) rc = oom(c);
  for (int32_t i = 0; !rc && i < S.n; i++) {
    steps = 0;
    if (bucket_moves(&w, a, &S, i, k, &steps)) { rc = oom(c); break; }
    for (int sym = 0; sym < k && !rc; sym++) {
      m = closure(&w, a, w.bucket + w.boff[sym], w.boff[sym + 1] - w.boff[sym], &steps);
      int32_t j = subsets_find(&S, w.stack, m, k);
      if (j == -2)
        rc = fail_at(c, node, HS_ERR_LIMIT, "automaton too large (more than 65536 states) "
                     "for the expression");
      else if (j < 0) rc = oom(c);
      else S.next[(size_t)i * (size_t)k + (size_t)sym] = j;
    }
    const int32_t *x = S.pool + S.off[i];
    S.acc[i] = bsearch(&end, x, (size_t)S.len[i], sizeof *x, cmp_i32) != NULL;
    if (!rc) rc = spend(c, steps + k, node);
  }
  if (!rc) {
    out->n = S.n;
    out->k = k;
    out->next = S.next;
    out->acc = S.acc;
    S.next = NULL;
    S.acc = NULL;
  }
  subsets_free(&S);
  walk_free(&w);
  return rc;
}

/* ---------------------------------------------------------- minimizing */

/* Hopcroft's partition refinement: blocks are ranges of elem[], a
 * block's marked states gathered at its front; the work list holds
 * (block, symbol) splitters, the smaller half added on a split. */
typedef struct part {
  int32_t *elem, *loc, *blk, *first, *end, *nmark, *touched, *inv, *ioff, *stack, *tmp;
  uint8_t *inw;
  int32_t nblk, ntouched, top;
} part;

static void part_free(part *P) {
  free(P->elem); free(P->loc); free(P->blk); free(P->first); free(P->end);
  free(P->nmark); free(P->touched); free(P->inv); free(P->ioff); free(P->stack);
  free(P->tmp); free(P->inw);
}

static void push(part *P, int32_t b, int sym, int k) {
  P->inw[(size_t)b * (size_t)k + (size_t)sym] = 1;
  P->stack[2 * P->top] = b;
  P->stack[2 * P->top++ + 1] = sym;
}

static void mark(part *P, int32_t p) {
  int32_t b = P->blk[p], i = P->loc[p], j = P->first[b] + P->nmark[b];
  if (i < j) return;
  int32_t q = P->elem[j];
  P->elem[j] = p, P->loc[p] = j;
  P->elem[i] = q, P->loc[q] = i;
  if (P->nmark[b]++ == 0) P->touched[P->ntouched++] = b;
}

/* Splits every touched block into its marked and unmarked states. */
static void split(part *P, int k) {
  for (int32_t t = 0; t < P->ntouched; t++) {
    int32_t y = P->touched[t], m = P->nmark[y];
    P->nmark[y] = 0;
    if (m == P->end[y] - P->first[y]) continue;
    int32_t z = P->nblk++;
    P->first[z] = P->first[y];
    P->end[z] = P->first[y] + m;
    P->first[y] += m;
    P->nmark[z] = 0;
    for (int32_t i = P->first[z]; i < P->end[z]; i++) P->blk[P->elem[i]] = z;
    int smaller = m <= P->end[y] - P->first[y] ? z : y;
    for (int sym = 0; sym < k; sym++)
      push(P, P->inw[(size_t)y * (size_t)k + (size_t)sym] ? z : smaller, sym, k);
  }
  P->ntouched = 0;
}

static int part_init(part *P, const rx_dfa *d) {
  int32_t n = d->n, k = d->k;
  size_t nk = (size_t)n * (size_t)(k ? k : 1);
  memset(P, 0, sizeof *P);
  P->elem = malloc((size_t)n * sizeof *P->elem);
  P->loc = malloc((size_t)n * sizeof *P->loc);
  P->blk = malloc((size_t)n * sizeof *P->blk);
  P->first = malloc((size_t)n * sizeof *P->first);
  P->end = malloc((size_t)n * sizeof *P->end);
  P->nmark = calloc((size_t)n, sizeof *P->nmark);
  P->touched = malloc((size_t)n * sizeof *P->touched);
  P->inv = malloc(nk * sizeof *P->inv);
  P->ioff = calloc(nk + 1, sizeof *P->ioff);
  P->stack = malloc(2 * (nk + (size_t)n) * sizeof *P->stack);
  P->tmp = malloc((size_t)n * sizeof *P->tmp);
  P->inw = calloc(nk, 1);
  if (!P->elem || !P->loc || !P->blk || !P->first || !P->end || !P->nmark ||
      !P->touched || !P->inv || !P->ioff || !P->stack || !P->tmp || !P->inw)
    return -1;
  /* predecessors: inv[ioff[sym * n + q] ..] are the p with next(p, sym) = q */
  for (int32_t p = 0; p < n; p++)
    for (int32_t sym = 0; sym < k; sym++)
      P->ioff[(size_t)sym * (size_t)n + (size_t)d->next[(size_t)p * (size_t)k + (size_t)sym] + 1]++;
  for (size_t i = 0; i < nk; i++) P->ioff[i + 1] += P->ioff[i];
  int32_t *fill = malloc((nk + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, P->ioff, (nk + 1) * sizeof *fill);
  for (int32_t p = 0; p < n; p++)
    for (int32_t sym = 0; sym < k; sym++)
      P->inv[fill[(size_t)sym * (size_t)n + (size_t)d->next[(size_t)p * (size_t)k + (size_t)sym]]++] = p;
  free(fill);
  /* the first split: accepting states, then the others */
  int32_t m = 0;
  for (int32_t pass = 1; pass >= 0; pass--)
    for (int32_t q = 0; q < n; q++)
      if (d->acc[q] == pass) P->loc[q] = m, P->elem[m++] = q;
  int32_t nacc = 0;
  for (int32_t q = 0; q < n; q++) nacc += d->acc[q] != 0;
  P->nblk = 0;
  if (nacc) P->first[P->nblk] = 0, P->end[P->nblk++] = nacc;
  if (nacc < n) P->first[P->nblk] = nacc, P->end[P->nblk++] = n;
  for (int32_t b = 0; b < P->nblk; b++)
    for (int32_t i = P->first[b]; i < P->end[b]; i++) P->blk[P->elem[i]] = b;
  int32_t smaller = P->nblk == 2 && n - nacc < nacc ? 1 : 0;
  for (int32_t sym = 0; sym < k; sym++) push(P, smaller, sym, k);
  return 0;
}

/* d renumbered by its blocks (cls[q], ncls of them), states in
 * breadth-first order from the start, symbols in order. */
static int quotient(rx_dfa *d, const int32_t *cls, int32_t ncls) {
  int32_t k = d->k, *order = malloc((size_t)ncls * sizeof *order),
          *num = malloc((size_t)ncls * sizeof *num), *rep = malloc((size_t)ncls * sizeof *rep);
  rx_dfa e;
  memset(&e, 0, sizeof e);
  int rc = !order || !num || !rep || dfa_alloc(&e, ncls, k) ? -1 : 0;
  for (int32_t i = 0; !rc && i < ncls; i++) num[i] = -1;
  for (int32_t q = d->n - 1; !rc && q >= 0; q--) rep[cls[q]] = q;
  int32_t m = 0;
  if (!rc) num[cls[0]] = 0, order[m++] = cls[0];
  for (int32_t i = 0; !rc && i < m; i++) {
    int32_t q = rep[order[i]];
    e.acc[i] = d->acc[q];
    for (int32_t sym = 0; sym < k; sym++) {
      int32_t b = cls[d->next[(size_t)q * (size_t)k + (size_t)sym]];
      if (num[b] < 0) num[b] = m, order[m++] = b;
      e.next[(size_t)i * (size_t)k + (size_t)sym] = num[b];
    }
  }
  free(order);
  free(num);
  free(rep);
  if (rc) return -1;
  e.n = m; /* blocks no state reaches from the start are dropped */
  rx_dfa_free(d);
  *d = e;
  return 0;
}

static int minimize(ctx *c, rx_dfa *d, int32_t node) {
  part P;
  int32_t n = d->n, k = d->k;
  if (part_init(&P, d)) {
    part_free(&P);
    return oom(c);
  }
  int64_t steps = 0;
  while (P.top) {
    P.top--;
    int32_t b = P.stack[2 * P.top], sym = P.stack[2 * P.top + 1], m = 0;
    P.inw[(size_t)b * (size_t)k + (size_t)sym] = 0;
    for (int32_t i = P.first[b]; i < P.end[b]; i++) P.tmp[m++] = P.elem[i];
    for (int32_t i = 0; i < m; i++) {
      size_t at = (size_t)sym * (size_t)n + (size_t)P.tmp[i];
      for (int32_t j = P.ioff[at]; j < P.ioff[at + 1]; j++) mark(&P, P.inv[j]);
      steps += 1 + P.ioff[at + 1] - P.ioff[at];
    }
    split(&P, k);
  }
  int rc = spend(c, steps, node) ? -1 : quotient(d, P.blk, P.nblk) ? oom(c) : 0;
  part_free(&P);
  return rc;
}

/* ---------------------------------------------- complement, intersection */

static void complement(rx_dfa *d) {
  for (int32_t q = 0; q < d->n; q++) d->acc[q] = !d->acc[q];
}

/* The reachable part of x × y, accepting where both do. */
static int intersect(ctx *c, const rx_dfa *x, const rx_dfa *y, int32_t node, rx_dfa *out) {
  int k = c->k;
  subsets S; /* pairs (i, j) as two-element "subsets" */
  memset(&S, 0, sizeof S);
  int32_t pair[2] = {0, 0};
  int rc = subsets_find(&S, pair, 2, k) < 0 ? oom(c) : 0;
  for (int32_t i = 0; !rc && i < S.n; i++) {
    const int32_t *p = S.pool + S.off[i];
    int32_t a = p[0], b = p[1];
    S.acc[i] = x->acc[a] && y->acc[b];
    for (int sym = 0; sym < k && !rc; sym++) {
      pair[0] = x->next[(size_t)a * (size_t)k + (size_t)sym];
      pair[1] = y->next[(size_t)b * (size_t)k + (size_t)sym];
      int32_t j = subsets_find(&S, pair, 2, k);
      if (j == -2)
        rc = fail_at(c, node, HS_ERR_LIMIT, "automaton too large (more than 65536 states) "
                     "for the intersection");
      else if (j < 0) rc = oom(c);
      else S.next[(size_t)i * (size_t)k + (size_t)sym] = j;
    }
    if (!rc) rc = spend(c, k + 1, node);
  }
  if (!rc) {
    *out = (rx_dfa){S.n, k, S.next, S.acc};
    S.next = NULL;
    S.acc = NULL;
  }
  subsets_free(&S);
  return rc;
}

int32_t rx_dead_state(const rx_dfa *d) {
  /* a state of a minimal automaton that is not accepting and that every
   * symbol leaves in place (the one state no accepting state is
   * reachable from) */
  for (int32_t q = 0; q < d->n; q++) {
    if (d->acc[q]) continue;
    int32_t s = 0;
    while (s < d->k && d->next[(size_t)q * (size_t)d->k + (size_t)s] == q) s++;
    if (s == d->k) return q;
  }
  return -1;
}

/* ------------------------------------------------------------- fragments */

static int frag(ctx *c, nfa *a, int32_t node, int32_t *s, int32_t *f);
static int dfa_of(ctx *c, int32_t node, rx_dfa *out);

/* d as a fragment of a: its states but the dead one, one move per
 * (state, target) labelled with the symbols that take it, and an empty
 * move from each accepting state to a new end. */
static int embed(ctx *c, nfa *a, const rx_dfa *d, int32_t node, int32_t *s, int32_t *f) {
  int32_t dead = d->n > 1 || !d->acc[0] ? rx_dead_state(d) : -1, base = a->n, k = d->k;
  for (int32_t q = 0; q < d->n; q++)
    if (new_state(c, a, node) < 0) return -1;
  if ((*f = new_state(c, a, node)) < 0) return -1;
  *s = base;
  for (int32_t q = 0; q < d->n; q++) {
    if (q == dead) continue;
    if (d->acc[q] && add_edge(c, a, base + q, *f, -1)) return -1;
    for (int sym = 0; sym < k; sym++) {
      int32_t t = d->next[(size_t)q * (size_t)k + (size_t)sym], earlier = 0;
      for (int s2 = 0; s2 < sym && !earlier; s2++)
        earlier = d->next[(size_t)q * (size_t)k + (size_t)s2] == t;
      if (t == dead || earlier) continue;
      uint64_t bits[4] = {0, 0, 0, 0};
      for (int s2 = sym; s2 < k; s2++)
        if (d->next[(size_t)q * (size_t)k + (size_t)s2] == t) bits[s2 >> 6] |= 1ull << (s2 & 63);
      int32_t l = add_label(c, a, bits);
      if (l < 0 || add_edge(c, a, base + q, base + t, l) || spend(c, k, node)) return -1;
    }
  }
  return 0;
}

/* The minimal automaton of a chain a & b & ... (left-deep), the
 * operands intersected from the left, each product minimized. */
static int intersect_chain(ctx *c, int32_t node, rx_dfa *out) {
  int32_t nb = 1, y = node;
  for (; c->t->nd[y].op == RX_AND; y = c->t->nd[y].a) nb++;
  int32_t *br = malloc((size_t)nb * sizeof *br);
  if (!br) return oom(c);
  y = node;
  for (int32_t i = nb - 1; i > 0; i--, y = c->t->nd[y].a) br[i] = c->t->nd[y].b;
  br[0] = y;
  int rc = dfa_of(c, br[0], out);
  for (int32_t i = 1; !rc && i < nb; i++) {
    rx_dfa r, p;
    if ((rc = dfa_of(c, br[i], &r))) break;
    rc = intersect(c, out, &r, node, &p);
    rx_dfa_free(&r);
    if (!rc && (rc = minimize(c, &p, node))) rx_dfa_free(&p);
    if (!rc) rx_dfa_free(out), *out = p;
  }
  if (rc) rx_dfa_free(out);
  free(br);
  return rc;
}

/* The automaton of a ~ or of a chain of &, built once per node. */
static int boolean_frag(ctx *c, nfa *a, int32_t node, int32_t *s, int32_t *f) {
  rx_dfa *m = &c->memo[node];
  if (m->n == 0) {
    const rx_node *x = &c->t->nd[node];
    rx_dfa d;
    if (x->op == RX_NOT) {
      if (dfa_of(c, x->a, &d)) return -1;
      complement(&d);
    } else if (intersect_chain(c, node, &d)) {
      return -1;
    }
    if (minimize(c, &d, node)) { rx_dfa_free(&d); return -1; }
    *m = d;
  }
  return embed(c, a, m, node, s, f);
}

static int connect(ctx *c, nfa *a, int32_t from, int32_t to) {
  return add_edge(c, a, from, to, -1);
}

/* A chain a b c ... (left-deep CAT or ALT) as its operands, in order. */
static int32_t *spine(ctx *c, int32_t node, rx_op op, int32_t *nb) {
  int32_t y = node;
  for (*nb = 1; c->t->nd[y].op == op; y = c->t->nd[y].a) ++*nb;
  int32_t *br = malloc((size_t)*nb * sizeof *br);
  if (!br) { oom(c); return NULL; }
  y = node;
  for (int32_t i = *nb - 1; i > 0; i--, y = c->t->nd[y].a) br[i] = c->t->nd[y].b;
  br[0] = y;
  return br;
}

static int chain_frag(ctx *c, nfa *a, int32_t node, int32_t *s, int32_t *f) {
  rx_op op = c->t->nd[node].op;
  int32_t nb, *br = spine(c, node, op, &nb), bs, bf, rc = br ? 0 : -1;
  if (!rc && op == RX_ALT && ((*s = new_state(c, a, node)) < 0 || (*f = new_state(c, a, node)) < 0))
    rc = -1;
  for (int32_t i = 0; !rc && i < nb; i++) {
    if ((rc = frag(c, a, br[i], &bs, &bf))) break;
    if (op == RX_ALT) {
      rc = connect(c, a, *s, bs) || connect(c, a, bf, *f);
    } else {
      if (i == 0) *s = bs;
      else rc = connect(c, a, *f, bs);
      *f = bf;
    }
  }
  free(br);
  return rc ? -1 : 0;
}

/* x*, x+ and x? around the fragment (xs, xf): new ends s and f. */
static int loop_frag(ctx *c, nfa *a, rx_op op, int32_t node, int32_t xs, int32_t xf,
                     int32_t *s, int32_t *f) {
  if ((*s = new_state(c, a, node)) < 0 || (*f = new_state(c, a, node)) < 0) return -1;
  if (connect(c, a, *s, xs) || connect(c, a, xf, *f)) return -1;
  if (op != RX_PLUS && connect(c, a, *s, *f)) return -1;
  if (op != RX_OPT && connect(c, a, xf, xs)) return -1;
  return 0;
}

/* x{lo,hi}: lo copies of x, then hi - lo optional ones (x* for hi = -1). */
static int repeat_frag(ctx *c, nfa *a, int32_t node, int32_t *s, int32_t *f) {
  const rx_node *x = &c->t->nd[node];
  int32_t xs, xf, ls, lf;
  if ((*s = *f = new_state(c, a, node)) < 0) return -1;
  int32_t copies = x->hi < 0 ? x->lo + 1 : x->hi;
  for (int32_t i = 0; i < copies; i++) {
    if (frag(c, a, x->a, &xs, &xf)) return -1;
    if (i >= x->lo) {
      if (loop_frag(c, a, x->hi < 0 ? RX_STAR : RX_OPT, node, xs, xf, &ls, &lf)) return -1;
      xs = ls, xf = lf;
    }
    if (connect(c, a, *f, xs)) return -1;
    *f = xf;
  }
  return 0;
}

static int frag(ctx *c, nfa *a, int32_t node, int32_t *s, int32_t *f) {
  const rx_node *x = &c->t->nd[node];
  switch (x->op) {
  case RX_EPS:
    return (*s = *f = new_state(c, a, node)) < 0 ? -1 : 0;
  case RX_SET: {
    uint64_t bits[4];
    resolve(c, &c->t->sets[x->set], bits);
    if ((*s = new_state(c, a, node)) < 0 || (*f = new_state(c, a, node)) < 0) return -1;
    if (!(bits[0] | bits[1] | bits[2] | bits[3])) return 0;
    int32_t l = add_label(c, a, bits);
    return l < 0 ? -1 : add_edge(c, a, *s, *f, l);
  }
  case RX_CAT: case RX_ALT: return chain_frag(c, a, node, s, f);
  case RX_AND: case RX_NOT: return boolean_frag(c, a, node, s, f);
  case RX_STAR: case RX_PLUS: case RX_OPT: {
    int32_t xs, xf;
    if (frag(c, a, x->a, &xs, &xf)) return -1;
    return loop_frag(c, a, x->op, node, xs, xf, s, f);
  }
  case RX_REP: return repeat_frag(c, a, node, s, f);
  }
  return fail_at(c, node, HS_ERR_PARSE, "internal error: unknown operator");
}

static int dfa_of(ctx *c, int32_t node, rx_dfa *out) {
  nfa a;
  int32_t s, f;
  memset(&a, 0, sizeof a);
  memset(out, 0, sizeof *out);
  int rc = frag(c, &a, node, &s, &f);
  if (!rc) rc = determinize(c, &a, s, f, node, out);
  nfa_free(&a);
  if (!rc && (rc = minimize(c, out, node))) rx_dfa_free(out);
  return rc;
}

int rx_build(const rx_ast *t, int k, rx_dfa *out, hs_error *err) {
  ctx c = {t, k, 0, 0, err, calloc((size_t)t->n, sizeof(rx_dfa))};
  memset(out, 0, sizeof *out);
  int rc = c.memo ? dfa_of(&c, t->root, out) : oom(&c);
  for (int32_t i = 0; c.memo && i < t->n; i++) rx_dfa_free(&c.memo[i]);
  free(c.memo);
  return rc;
}

int rx_minimize(rx_dfa *d) {
  hs_error e;
  ctx c = {NULL, d->k, 0, 0, &e, NULL};
  return minimize(&c, d, -1);
}

int rx_add_other(rx_dfa *d) {
  int32_t k = d->k, dead = rx_dead_state(d), n = d->n + (dead < 0);
  rx_dfa e;
  if (dfa_alloc(&e, n, k + 1)) return -1;
  if (dead < 0) dead = d->n;
  for (int32_t q = 0; q < n; q++) {
    for (int32_t s = 0; s <= k; s++)
      e.next[(size_t)q * (size_t)(k + 1) + (size_t)s] =
          s == k || q == d->n ? dead : d->next[(size_t)q * (size_t)k + (size_t)s];
    e.acc[q] = q < d->n && d->acc[q];
  }
  rx_dfa_free(d);
  *d = e;
  return 0;
}
