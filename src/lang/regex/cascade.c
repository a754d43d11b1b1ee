/* SPDX-License-Identifier: MIT */
/* Aperiodic automaton -> circuit: the holonomy decomposition (Eilenberg
 * 1976; Egri-Nagy and Nehaniv 2015) of the automaton into a cascade of
 * reset automata, each level read by one "last reset" head, as in the
 * proof that masked hard attention recognizes the star-free languages
 * (Yang, Chiang and Angluin 2024). Exact at every length: no part of the
 * circuit depends on n.
 *
 * Image sets. I holds Q, every image Q·u (u a word) and every
 * singleton; P·a is in I for P in I. P is below R (subduction, P <= R)
 * when P ⊆ R·u for some word u, equivalent when both ways (then
 * |P| = |R| and P = R·u). The height h(P) is 0 for a singleton, else 1 +
 * the largest height strictly below P; the tiles of P are the maximal
 * sets of I strictly inside P (they cover P, and lie strictly below it).
 * A class (sets equivalent to each other) has a representative R; the
 * map beta_P: R -> P of any word with R·u = P is the same for all such
 * u, because the monoid is aperiodic: a word mapping a set onto itself
 * is the identity on it.
 *
 * The cascade. After a prefix, the state q is encoded by a chain
 * Q = C_H ⊃ ... ⊃ {q}, each set a tile of the one before, heights
 * strictly falling; level h's coordinate is the tile chosen at the
 * chain's set P of height h, as a tile of rep(P) (through beta_P^-1).
 * Reading a maps chain C to the images E·a (the old sets E in order);
 * the new chain keeps Q and, for each run of equal images D = E·a
 * followed by a smaller D' = E'·a (E' the tile after E, the last E of
 * the run): if D is equivalent to E, the tile of D is D' and the
 * coordinate at level h(D) = h(E) is unchanged (beta commutes with a);
 * else the chain goes down from D to D' through choose(P, D'), the first
 * tile of P containing D', and each such step resets level h(P) to that
 * tile: a value fixed by (a, E, E'), sets at heights above h(P) (a reset
 * at h needs h(E) > h: were h(E) = h(D), D would be equivalent to E).
 * Below Q·a likewise from Q (resets by the letter alone). So each level
 * is an identity-reset automaton whose resets read only the letter and
 * the levels above at i - 1: the cascade. The state after the empty
 * prefix is the chain down to the start state (each level's initial
 * value).
 *
 * The circuit, per level h from the top, values v (class, tile):
 *   reset_v(i)  = OR over (a, E, E' in the chain at i-1 giving v) of
 *                 a(i) ∧ in_E(i-1) ∧ L(h(E)) = (E, E')(i-1),
 *                 or a(i) ∧ [i = 1] for the pairs of the initial chain,
 *                 or a(i) for the resets below Q;
 *   L_h = v (i) = the last j <= i with a reset at h, reading reset_v(j)
 *                 (one head; position 1 counts as a reset to the
 *                 initial value when nothing else resets h there);
 *   in_T(i)     = OR over P with T a tile of P of in_P(i) ∧ L(h(P)) = (P,T),
 *                 in_Q = true;
 * and the values at i - 1 come from the same heads with the mask j < i
 * (one layer, not a Y after the head). The output is OR of in_T ∧ ...
 * over the pairs (P, T) with T inside the accepting states and P not:
 * the first chain set inside them; the levels below it are not built.
 *
 * Size. With H levels, V values in all and |I| sets, the circuit has 2V
 * heads, at most |I| (in) + 2·(pairs) gates for the chain and one term
 * per (letter, pair, reset) for the resets, the ORs as balanced trees;
 * its depth is about 4 layers a level. H <= |I| <= |M| + |Q| (|M| the
 * monoid), and |I| is held to RX_MAX_SETS, the circuit to RX_MAX_CIRCUIT
 * nodes and the depth limit: past them the expression is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/regex/cascade.h"

typedef struct hol {
  int32_t n, W, L;        /* states, words per set, letters */
  int32_t *lsym;          /* [K]: the letter of each symbol */
  int32_t *lmap;          /* [L][n]: the letter's map */
  uint64_t *set;          /* [cap][W] */
  int32_t nsets, cap, SW; /* SW: words of a bitset over the sets */
  int32_t *slot;
  size_t nslot;
  int32_t *img;           /* [nsets][L]: P·a */
  int32_t *size;
  uint64_t *sub, *sup, *le; /* [nsets][SW]: P ⊆ S, R ⊆ S, P <= R by row */
  int32_t *cls, *rep, *h, *beta; /* beta: [nsets][n] */
  int32_t *toff, *tile;   /* the tiles of P: tile[toff[P] .. toff[P+1]) */
} hol;

static void hol_free(hol *H) {
  free(H->lsym); free(H->lmap); free(H->set); free(H->slot); free(H->img);
  free(H->size); free(H->sub); free(H->sup); free(H->le); free(H->cls);
  free(H->rep); free(H->h); free(H->beta); free(H->toff); free(H->tile);
}

static const uint64_t *S_(const hol *H, int32_t i) { return H->set + (size_t)i * (size_t)H->W; }
static int has(const uint64_t *b, int32_t i) { return b[i >> 6] >> (i & 63) & 1; }
static void put(uint64_t *b, int32_t i) { b[i >> 6] |= 1ull << (i & 63); }

static uint64_t hash_set(const uint64_t *s, int32_t W) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int32_t i = 0; i < W; i++) h = (h ^ s[i]) * 0xBF58476D1CE4E5B9ull, h ^= h >> 31;
  return h;
}

/* The index of set s, added when new: -1 out of memory, -2 past
 * RX_MAX_SETS. */
static int32_t find_set(hol *H, const uint64_t *s) {
  size_t h = hash_set(s, H->W) & (H->nslot - 1);
  for (; H->slot[h]; h = (h + 1) & (H->nslot - 1))
    if (!memcmp(S_(H, H->slot[h] - 1), s, (size_t)H->W * sizeof *s)) return H->slot[h] - 1;
  if (H->nsets == RX_MAX_SETS) return -2;
  if (H->nsets == H->cap) return -1; /* sized for RX_MAX_SETS up front */
  memcpy(H->set + (size_t)H->nsets * (size_t)H->W, s, (size_t)H->W * sizeof *s);
  H->slot[h] = H->nsets + 1;
  return H->nsets++;
}

/* Symbols with the same map are one letter. */
static int letters(hol *H, const rx_dfa *d) {
  H->lsym = malloc((size_t)d->k * sizeof *H->lsym);
  H->lmap = malloc((size_t)d->k * (size_t)d->n * sizeof *H->lmap);
  if (!H->lsym || !H->lmap) return -1;
  H->L = 0;
  for (int32_t s = 0; s < d->k; s++) {
    int32_t *m = H->lmap + (size_t)H->L * (size_t)d->n;
    for (int32_t q = 0; q < d->n; q++) m[q] = d->next[(size_t)q * (size_t)d->k + (size_t)s];
    int32_t l = 0;
    while (l < H->L && memcmp(H->lmap + (size_t)l * (size_t)d->n, m, (size_t)d->n * sizeof *m)) l++;
    H->lsym[s] = l;
    if (l == H->L) H->L++;
  }
  return 0;
}

static void image(const hol *H, const uint64_t *P, int32_t l, uint64_t *out) {
  const int32_t *m = H->lmap + (size_t)l * (size_t)H->n;
  memset(out, 0, (size_t)H->W * sizeof *out);
  for (int32_t q = 0; q < H->n; q++)
    if (has(P, q)) put(out, m[q]);
}

/* I: Q, its images, the singletons; img[][] on all of them. 0, -1 out of
 * memory, 1 past RX_MAX_SETS. */
static int image_sets(hol *H) {
  H->cap = RX_MAX_SETS;
  H->nslot = 2 * RX_MAX_SETS;
  H->set = calloc((size_t)H->cap * (size_t)H->W, sizeof *H->set);
  H->slot = calloc(H->nslot, sizeof *H->slot);
  H->img = malloc((size_t)H->cap * (size_t)H->L * sizeof *H->img);
  uint64_t *t = calloc((size_t)H->W, sizeof *t);
  int rc = H->set && H->slot && H->img && t ? 0 : -1;
  for (int32_t q = 0; !rc && q < H->n; q++) put(t, q);
  if (!rc && find_set(H, t) < 0) rc = -1;
  for (int pass = 0; pass < 2 && !rc; pass++) {
    if (pass == 1) /* the singletons, then the images of everything */
      for (int32_t q = 0; q < H->n && !rc; q++) {
        memset(t, 0, (size_t)H->W * sizeof *t);
        put(t, q);
        int32_t r = find_set(H, t);
        rc = r == -2 ? 1 : r < 0 ? -1 : 0;
      }
    for (int32_t i = 0; i < H->nsets && !rc; i++)
      for (int32_t l = 0; l < H->L && !rc; l++) {
        image(H, S_(H, i), l, t);
        int32_t r = find_set(H, t);
        if (r < 0) rc = r == -2 ? 1 : -1;
        else H->img[(size_t)i * (size_t)H->L + (size_t)l] = r;
      }
  }
  free(t);
  return rc;
}

static int subset_of(const hol *H, int32_t p, int32_t s) {
  const uint64_t *a = S_(H, p), *b = S_(H, s);
  for (int32_t w = 0; w < H->W; w++)
    if (a[w] & ~b[w]) return 0;
  return 1;
}

/* sub, sup and le: for R, le[R] = the union of sub[S] over the sets S
 * of R's orbit (R·u for every word u). */
static int subduction(hol *H) {
  int32_t N = H->nsets, SW = H->SW = (N + 63) / 64;
  size_t rows = (size_t)N * (size_t)SW;
  H->sub = calloc(rows, sizeof *H->sub);
  H->sup = calloc(rows, sizeof *H->sup);
  H->le = calloc(rows, sizeof *H->le);
  H->size = malloc((size_t)N * sizeof *H->size);
  int32_t *queue = malloc((size_t)N * sizeof *queue);
  uint8_t *seen = malloc((size_t)N);
  if (!H->sub || !H->sup || !H->le || !H->size || !queue || !seen) {
    free(queue);
    free(seen);
    return -1;
  }
  for (int32_t p = 0; p < N; p++) {
    H->size[p] = 0;
    for (int32_t w = 0; w < H->W; w++) H->size[p] += __builtin_popcountll(S_(H, p)[w]);
    for (int32_t s = 0; s < N; s++)
      if (subset_of(H, p, s)) put(H->sub + (size_t)s * SW, p), put(H->sup + (size_t)p * SW, s);
  }
  for (int32_t r = 0; r < N; r++) {
    int32_t head = 0, tail = 0;
    memset(seen, 0, (size_t)N);
    queue[tail++] = r, seen[r] = 1;
    uint64_t *row = H->le + (size_t)r * SW;
    while (head < tail) {
      int32_t s = queue[head++];
      for (int32_t w = 0; w < SW; w++) row[w] |= H->sub[(size_t)s * SW + (size_t)w];
      for (int32_t l = 0; l < H->L; l++) {
        int32_t t = H->img[(size_t)s * (size_t)H->L + (size_t)l];
        if (!seen[t]) seen[t] = 1, queue[tail++] = t;
      }
    }
  }
  free(queue);
  free(seen);
  return 0;
}

static int le(const hol *H, int32_t p, int32_t r) { return has(H->le + (size_t)r * (size_t)H->SW, p); }
static int equiv(const hol *H, int32_t p, int32_t r) { return le(H, p, r) && le(H, r, p); }

/* Classes, their representatives (the first set of each) and beta: the
 * map of a word taking rep(P) onto P, found breadth-first from the rep. */
static int classes(hol *H) {
  int32_t N = H->nsets, n = H->n;
  H->cls = malloc((size_t)N * sizeof *H->cls);
  H->rep = malloc((size_t)N * sizeof *H->rep);
  H->beta = malloc((size_t)N * (size_t)n * sizeof *H->beta);
  int32_t *queue = malloc((size_t)N * sizeof *queue);
  uint8_t *seen = malloc((size_t)N);
  int rc = H->cls && H->rep && H->beta && queue && seen ? 0 : -1;
  for (int32_t p = 0; !rc && p < N; p++) H->cls[p] = -1;
  for (int32_t r = 0; !rc && r < N; r++) {
    if (H->cls[r] >= 0) continue;
    int32_t head = 0, tail = 0, *b = H->beta + (size_t)r * (size_t)n;
    memset(seen, 0, (size_t)N);
    for (int32_t q = 0; q < n; q++) b[q] = q;
    queue[tail++] = r, seen[r] = 1;
    H->cls[r] = r, H->rep[r] = r;
    while (head < tail) {
      int32_t s = queue[head++];
      for (int32_t l = 0; l < H->L; l++) {
        int32_t t = H->img[(size_t)s * (size_t)H->L + (size_t)l];
        if (seen[t] || !equiv(H, t, r)) continue;
        seen[t] = 1, queue[tail++] = t;
        H->cls[t] = r, H->rep[t] = r;
        const int32_t *m = H->lmap + (size_t)l * (size_t)n, *bs = H->beta + (size_t)s * (size_t)n;
        for (int32_t q = 0; q < n; q++) H->beta[(size_t)t * (size_t)n + (size_t)q] = m[bs[q]];
      }
    }
  }
  free(queue);
  free(seen);
  return rc;
}

static int32_t height(hol *H, int32_t p) {
  if (H->h[p] >= 0) return H->h[p];
  int32_t best = 0;
  if (H->size[p] > 1)
    for (int32_t r = 0; r < H->nsets; r++)
      if (H->cls[r] != H->cls[p] && le(H, r, p)) {
        int32_t x = height(H, r) + 1;
        if (x > best) best = x;
      }
  for (int32_t r = 0; r < H->nsets; r++) /* the whole class at once */
    if (H->cls[r] == H->cls[p]) H->h[r] = best;
  return best;
}

static int heights_and_tiles(hol *H) {
  int32_t N = H->nsets, SW = H->SW;
  H->h = malloc((size_t)N * sizeof *H->h);
  H->toff = calloc((size_t)N + 1, sizeof *H->toff);
  H->tile = malloc((size_t)N * (size_t)N * sizeof *H->tile);
  if (!H->h || !H->toff || !H->tile) return -1;
  for (int32_t p = 0; p < N; p++) H->h[p] = -1;
  for (int32_t p = 0; p < N; p++) height(H, p);
  int32_t m = 0;
  for (int32_t p = 0; p < N; p++) {
    H->toff[p] = m;
    if (H->size[p] < 2) continue;
    const uint64_t *cand = H->sub + (size_t)p * SW;
    for (int32_t r = 0; r < N; r++) {
      if (r == p || !has(cand, r)) continue;
      int maximal = 1;
      for (int32_t w = 0; w < SW && maximal; w++) {
        uint64_t above = cand[w] & H->sup[(size_t)r * SW + (size_t)w];
        if (w == r >> 6) above &= ~(1ull << (r & 63));
        if (w == p >> 6) above &= ~(1ull << (p & 63));
        maximal = !above;
      }
      if (maximal) H->tile[m++] = r;
    }
  }
  H->toff[N] = m;
  return 0;
}

/* The tile slot of p (the first in set order) whose tile contains s. */
static int32_t choose(const hol *H, int32_t p, int32_t s) {
  for (int32_t i = H->toff[p]; i < H->toff[p + 1]; i++)
    if (has(H->sub + (size_t)H->tile[i] * (size_t)H->SW, s)) return i;
  return -1;
}

/* The chain from `from` down to `to` through choose: the tile slots of
 * its steps into slots[]; returns how many. */
static int32_t down(const hol *H, int32_t from, int32_t to, int32_t *slots) {
  int32_t m = 0;
  for (int32_t x = from; x != to && x >= 0; x = H->tile[slots[m - 1]])
    if ((slots[m++] = choose(H, x, to)) < 0) return m - 1;
  return m;
}

/* The resets reading letter l after the chain pair (p, tile slot j), or
 * below Q when j < 0: the slots of the chain's new steps (none when the
 * images are equal or when l maps p onto an equivalent set: a carry). */
static int32_t resets(const hol *H, int32_t l, int32_t p, int32_t j, int32_t *slots) {
  int32_t d = j < 0 ? 0 : H->img[(size_t)p * (size_t)H->L + (size_t)l];
  int32_t dd = H->img[(size_t)(j < 0 ? 0 : H->tile[j]) * (size_t)H->L + (size_t)l];
  if (d == dd || (j >= 0 && H->cls[d] == H->cls[p])) return 0;
  return down(H, d, dd, slots);
}

static int hol_build(hol *H, const rx_dfa *d, char *why, size_t whylen) {
  H->n = d->n;
  H->W = (d->n + 63) / 64;
  int rc = letters(H, d) ? -1 : image_sets(H);
  if (rc == 1)
    snprintf(why, whylen, "the automaton has more than %d image sets (its cascade "
             "would be too large)", RX_MAX_SETS);
  if (!rc) rc = subduction(H) || classes(H) || heights_and_tiles(H) ? -1 : 0;
  return rc;
}

/* --------------------------------------------------------- the circuit */

typedef struct em {
  hs_prebuilt *P;
  int32_t T, F, first;
  int32_t *rdy;     /* per node: the sublayer after which it is final */
  int32_t caprdy;
  int failed;       /* 1 a limit, -1 out of memory */
  char *why;
  size_t whylen;
  int maxdepth;
} em;

static int32_t add(em *e, hs_cnode n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int32_t add(em *e, hs_cnode n, const char *fmt, ...) {
  if (e->failed) return -1;
  int depth;
  va_list ap;
  va_start(ap, fmt);
  int32_t id = hs_prebuilt_vadd(e->P, n, &depth, fmt, ap);
  va_end(ap);
  if (id < 0) { e->failed = -1; return -1; }
  if (e->P->C.n > RX_MAX_CIRCUIT || depth > e->maxdepth) {
    snprintf(e->why, e->whylen, "its circuit would have more than %d nodes or a depth "
             "above %d", RX_MAX_CIRCUIT, e->maxdepth);
    e->failed = 1;
    return -1;
  }
  if (id >= e->caprdy) {
    int32_t cap = e->caprdy ? e->caprdy * 2 : 1024;
    while (cap <= id) cap *= 2;
    int32_t *r = realloc(e->rdy, (size_t)cap * sizeof *r);
    if (!r) { e->failed = -1; return -1; }
    e->rdy = r;
    e->caprdy = cap;
  }
  const hs_cnode *x = &e->P->C.c[id];
  int32_t r = -1;
  if (x->kind == HS_C_GATE) {
    r = e->rdy[x->a];
    if (x->b >= 0 && e->rdy[x->b] > r) r = e->rdy[x->b];
    r = (r + 1) | 1;
  } else if (x->kind == HS_C_HEAD) {
    r = e->rdy[x->val];
    if (x->sel >= 0 && e->rdy[x->sel] > r) r = e->rdy[x->sel];
    r = ((r + 2) & ~1) + 1;
  }
  e->rdy[id] = r;
  return id;
}

/* A gate named after its operands: "!x", "x & y", "x | y". */
static int32_t gate(em *e, hs_gkind g, int32_t a, int32_t b) {
  char x[208], y[208];
  if (a < 0 || (g != HS_G_NOT && b < 0)) return -1;
  hs_cnode n = hs_cnode_blank(HS_C_GATE, -1);
  n.g = g, n.a = a, n.b = b;
  const char *xa = hs_prebuilt_operand(e->P, a, x, sizeof x);
  if (g == HS_G_NOT) return add(e, n, "!%s", xa);
  const char *yb = hs_prebuilt_operand(e->P, b, y, sizeof y);
  return add(e, n, "%s %c %s", xa, g == HS_G_AND ? '&' : '|', yb);
}

static int32_t g_not(em *e, int32_t a) {
  if (a < 0) return -1;
  if (a == e->T || a == e->F) return a == e->T ? e->F : e->T;
  const hs_cnode *x = &e->P->C.c[a];
  if (x->kind == HS_C_GATE && x->g == HS_G_NOT) return x->a;
  return gate(e, HS_G_NOT, a, -1);
}

static int32_t g_bin(em *e, hs_gkind g, int32_t a, int32_t b) {
  int32_t zero = g == HS_G_AND ? e->F : e->T, one = g == HS_G_AND ? e->T : e->F;
  if (a < 0 || b < 0) return -1;
  if (a == zero || b == zero) return zero;
  if (a == one || a == b) return b;
  if (b == one) return a;
  return a < b ? gate(e, g, a, b) : gate(e, g, b, a);
}

static void sift(const em *e, int32_t *x, int32_t n, int32_t i) {
  for (;;) {
    int32_t m = i, l = 2 * i + 1, r = l + 1;
    if (l < n && e->rdy[x[l]] < e->rdy[x[m]]) m = l;
    if (r < n && e->rdy[x[r]] < e->rdy[x[m]]) m = r;
    if (m == i) return;
    int32_t t = x[i];
    x[i] = x[m], x[m] = t, i = m;
  }
}

/* AND or OR of x[0..n) (used as scratch), as a tree that always joins
 * the two inputs final first (a heap on readiness): its depth follows
 * the inputs', not their number. */
static int32_t many(em *e, hs_gkind g, int32_t *x, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (x[i] < 0) return -1;
  if (n == 0) return g == HS_G_AND ? e->T : e->F;
  for (int32_t i = n / 2 - 1; i >= 0; i--) sift(e, x, n, i);
  while (n > 1) {
    int32_t a = x[0];
    x[0] = x[--n];
    sift(e, x, n, 0);
    int32_t c = g_bin(e, g, a, x[0]);
    if (c < 0) return -1;
    x[0] = c;
    sift(e, x, n, 0);
  }
  return x[0];
}

static int32_t and3(em *e, int32_t a, int32_t b, int32_t c) {
  int32_t x[3] = {a, b, c};
  return many(e, HS_G_AND, x, 3);
}

/* "The last j <= i (strict: j < i) where sel, reading val". */
static int32_t last(em *e, int32_t sel, int32_t val, int strict, const char *name) {
  if (sel < 0 || val < 0) return -1;
  if (val == e->F || sel == e->F) return e->F;
  hs_cnode n = hs_cnode_blank(HS_C_HEAD, -1);
  n.right = 1, n.mask = strict ? HS_MASK_LT : HS_MASK_LE, n.sel = sel, n.val = val;
  return add(e, n, "%s%s", name, strict ? " before i" : "");
}

/* Growing lists of node ids, one per index. */
typedef struct lists { int32_t **v, *n, *cap; } lists;

static int lists_init(lists *l, int32_t count) {
  l->v = calloc((size_t)count + 1, sizeof *l->v);
  l->n = calloc((size_t)count + 1, sizeof *l->n);
  l->cap = calloc((size_t)count + 1, sizeof *l->cap);
  return l->v && l->n && l->cap ? 0 : -1;
}

static void lists_free(lists *l, int32_t count) {
  for (int32_t i = 0; l->v && i < count; i++) free(l->v[i]);
  free(l->v);
  free(l->n);
  free(l->cap);
}

static int push_id(em *e, lists *l, int32_t i, int32_t id) {
  if (id < 0) return -1;
  if (id == e->F) return 0;
  if (l->n[i] == l->cap[i]) {
    int32_t cap = l->cap[i] ? l->cap[i] * 2 : 4, *v = realloc(l->v[i], (size_t)cap * sizeof *v);
    if (!v) { e->failed = -1; return -1; }
    l->v[i] = v, l->cap[i] = cap;
  }
  l->v[i][l->n[i]++] = id;
  return 0;
}

static int32_t lookup_set(const hol *H, const uint64_t *s) {
  size_t h = hash_set(s, H->W) & (H->nslot - 1);
  for (; H->slot[h]; h = (h + 1) & (H->nslot - 1))
    if (!memcmp(S_(H, H->slot[h] - 1), s, (size_t)H->W * sizeof *s)) return H->slot[h] - 1;
  return -1;
}

static int set_text(const hol *H, int32_t p, char *buf, size_t len) {
  size_t o = 0;
  buf[o++] = '{';
  for (int32_t q = 0; q < H->n && o + 12 < len; q++)
    if (has(S_(H, p), q)) o += (size_t)snprintf(buf + o, len - o, "%s%d", buf[o - 1] == '{' ? "" : ",", q);
  snprintf(buf + o, len - o, "}");
  return 0;
}

/* The cascade's values: vid[slot] for the tile slot of P (slot in
 * toff[P] ..), numbered per class representative's tiles; vlev the
 * level of each. Returns the number of values, -1 out of memory. */
static int32_t values(const hol *H, int32_t *vid, int32_t *vlev) {
  int32_t nv = 0, *base = malloc((size_t)H->nsets * sizeof *base);
  uint64_t *t = calloc((size_t)H->W, sizeof *t);
  if (!base || !t) { free(base); free(t); return -1; }
  for (int32_t r = 0; r < H->nsets; r++)
    if (H->rep[r] == r) {
      base[r] = nv;
      for (int32_t j = H->toff[r]; j < H->toff[r + 1]; j++) vlev[nv++] = H->h[r];
    }
  for (int32_t p = 0; p < H->nsets; p++) {
    int32_t r = H->rep[p];
    const int32_t *b = H->beta + (size_t)p * (size_t)H->n;
    for (int32_t j = H->toff[p]; j < H->toff[p + 1]; j++) {
      memset(t, 0, (size_t)H->W * sizeof *t);
      for (int32_t q = 0; q < H->n; q++)
        if (has(S_(H, r), q) && has(S_(H, H->tile[j]), b[q])) put(t, q);
      int32_t back = lookup_set(H, t), i = H->toff[r];
      while (i < H->toff[r + 1] && H->tile[i] != back) i++;
      if (i == H->toff[r + 1]) nv = -2; /* beta maps tiles onto tiles: never */
      vid[j] = base[r] + (i - H->toff[r]);
    }
  }
  free(base);
  free(t);
  return nv;
}

/* Everything the emission of one cascade keeps. */
typedef struct cas {
  em E;
  hol H;
  const rx_dfa *d;
  int32_t *symf;         /* [K]: the symbol's node */
  uint8_t *pick;         /* [K] scratch: the symbols of a letter set */
  int32_t *tmp;          /* [K] scratch */
  int32_t *vid, *vlev, nv;
  int32_t *Lv, *Ls;      /* [nv]: level = v at i, at i - 1 */
  int32_t *init;         /* [levels + 1]: the initial value, -1 none */
  uint8_t *c0;           /* [tile slots]: on the initial chain */
  uint8_t *r1;           /* [levels + 1][L]: resets level at i = 1 */
  uint8_t *top;          /* [levels + 1][L]: resets level anywhere (below Q) */
  uint8_t *mark, *seen;  /* [nv][L], [nv] scratch: letters per value */
  int32_t *vs;           /* [nv] scratch: the values one pair resets */
  int32_t *slots, *scratch;
  lists terms, in, yin, acc; /* per value; per set; per set; one list */
} cas;

static int32_t base_letter(cas *c, const hs_vocab *v, int32_t sym, int32_t *atoms) {
  em *e = &c->E;
  if (sym < v->n) {
    hs_cnode n = hs_cnode_blank(HS_C_ATOM, -1);
    n.sym = v->byte[sym];
    return add(e, n, "token \"%s\"", v->tok[sym]);
  }
  for (int32_t t = 0; t < v->n; t++) {
    hs_cnode n = hs_cnode_blank(HS_C_ATOM, -1);
    n.sym = v->byte[t];
    atoms[t] = add(e, n, "token \"%s\"", v->tok[t]);
  }
  int32_t named = many(e, HS_G_OR, atoms, v->n), before = e->P->C.n;
  int32_t other = g_not(e, named);
  if (other >= 0 && hs_prebuilt_rename(e->P, other, before, "other token")) e->failed = -1;
  return other;
}

/* Each symbol's node: its token (or the other token) at the positions
 * of its residue. */
static int letters_of(cas *c, const hs_vocab *v, int32_t mod) {
  em *e = &c->E;
  int32_t k = c->d->k, *atoms = malloc(((size_t)v->n + 1) * sizeof *atoms);
  c->symf = malloc((size_t)k * sizeof *c->symf);
  c->pick = malloc((size_t)k);
  c->tmp = malloc((size_t)k * sizeof *c->tmp);
  int rc = atoms && c->symf && c->pick && c->tmp ? 0 : -1;
  for (int32_t s = 0; !rc && s < k; s++) {
    int32_t f = base_letter(c, v, s / mod, atoms);
    if (mod > 1) {
      hs_cnode pf = hs_cnode_blank(HS_C_PF, -1);
      pf.pf = HS_PF_MOD, pf.k = mod, pf.r = s % mod;
      int32_t feat = add(e, pf, "[i mod %d = %d]", mod, s % mod);
      hs_cnode g = hs_cnode_blank(HS_C_GATE, -1);
      g.g = HS_G_NONBOS, g.a = feat;
      f = g_bin(e, HS_G_AND, f, feat < 0 ? -1 : add(e, g, "@mod(%d,%d)", mod, s % mod));
    }
    c->symf[s] = f;
  }
  free(atoms);
  return rc || e->failed ? -1 : 0;
}

/* The node of a set of letters (in[l] != 0): exactly one symbol holds at
 * each position, so it is the OR of its symbols or the NOT of the OR of
 * the others, whichever is final first (the other token, a NOT itself,
 * is often better named by its complement). */
static int32_t letter_set(cas *c, const uint8_t *in) {
  em *e = &c->E;
  int32_t k = c->d->k, m = 0, mc = 0;
  for (int32_t s = 0; s < k; s++) c->pick[s] = in[c->H.lsym[s]] != 0;
  for (int32_t s = 0; s < k; s++)
    if (c->pick[s]) c->tmp[m++] = c->symf[s];
  int32_t yes = many(e, HS_G_OR, c->tmp, m);
  for (int32_t s = 0; s < k; s++)
    if (!c->pick[s]) c->tmp[mc++] = c->symf[s];
  int32_t no = g_not(e, many(e, HS_G_OR, c->tmp, mc));
  if (yes < 0 || no < 0) return -1;
  return e->rdy[no] < e->rdy[yes] ? no : yes;
}

static int all_in(const hol *H, int32_t p, const uint8_t *acc) {
  for (int32_t q = 0; q < H->n; q++)
    if (has(S_(H, p), q) && !acc[q]) return 0;
  return 1;
}

/* The reset terms the pair (p, slot j) adds below it: for each value v,
 * the letters resetting to v ∧ the pair at i - 1 (yin: p in the chain
 * at i - 1, and Ls its value), and the same letters ∧ [i = 1] on the
 * initial chain. j < 0: below Q, the letters alone. */
static int pair_resets(cas *c, int32_t p, int32_t j, int32_t yin, int32_t ls) {
  em *e = &c->E;
  int32_t L = c->H.L, nv = 0, *vs = c->vs;
  for (int32_t l = 0; l < L; l++) {
    int32_t m = resets(&c->H, l, p, j, c->slots);
    for (int32_t i = 0; i < m; i++) {
      int32_t v = c->vid[c->slots[i]];
      if (j < 0) c->top[(size_t)c->vlev[v] * (size_t)L + (size_t)l] = 1;
      if (!c->mark[(size_t)v * (size_t)L + (size_t)l]++ && !c->seen[v]++) vs[nv++] = v;
    }
  }
  for (int32_t i = 0; i < nv && !e->failed; i++) {
    int32_t v = vs[i];
    uint8_t *in = c->mark + (size_t)v * (size_t)L;
    int32_t set = letter_set(c, in);
    int32_t now = j < 0 ? set : and3(e, set, yin, ls);
    int32_t first = j >= 0 && c->c0[j] ? g_bin(e, HS_G_AND, set, e->first) : e->F;
    if (push_id(e, &c->terms, v, now) || push_id(e, &c->terms, v, first)) break;
    memset(in, 0, (size_t)L);
    c->seen[v] = 0;
  }
  return e->failed ? -1 : 0;
}

/* Level h's heads: every value's "last reset" head, at i and at i - 1.
 * Position 1 is a reset of every level: to the initial value when no
 * letter resets the level there. */
static int level_heads(cas *c, int32_t h) {
  em *e = &c->E;
  int32_t nall = 1, *all;
  for (int32_t v = 0; v < c->nv; v++)
    if (c->vlev[v] == h) nall += c->terms.n[v];
  if (!(all = malloc((size_t)(nall + c->H.L) * sizeof *all))) return -1;
  uint8_t *kept = c->r1 + (size_t)h * (size_t)c->H.L; /* the letters not resetting h */
  for (int32_t l = 0; l < c->H.L; l++) kept[l] = !kept[l];
  int32_t keep = g_bin(e, HS_G_AND, e->first, letter_set(c, kept));
  int32_t init = c->init[h], m = 0;
  all[m++] = e->first;
  for (int32_t v = 0; v < c->nv; v++)
    if (c->vlev[v] == h) {
      if (init < 0) init = v;
      for (int32_t t = 0; t < c->terms.n[v]; t++) all[m++] = c->terms.v[v][t];
    }
  int32_t sel = many(e, HS_G_OR, all, m), always = 1;
  for (int32_t l = 0; l < c->H.L; l++) always &= c->top[(size_t)h * (size_t)c->H.L + (size_t)l];
  for (int32_t v = 0; v < c->nv && !e->failed; v++) {
    if (c->vlev[v] != h) continue;
    if (v == init && push_id(e, &c->terms, v, keep)) break;
    char name[64];
    snprintf(name, sizeof name, "level %d = value %d", h, v);
    m = 0;
    for (int32_t t = 0; t < c->terms.n[v]; t++) all[m++] = c->terms.v[v][t];
    int32_t val = many(e, HS_G_OR, all, m);
    /* every letter resets the level: its value is the reset's, at i */
    c->Lv[v] = always ? val : last(e, sel, val, 0, name);
    c->Ls[v] = last(e, always ? e->T : sel, val, 1, name);
  }
  free(all);
  return e->failed ? -1 : 0;
}

static int32_t or_named(cas *c, lists *l, int32_t p, const char *what) {
  em *e = &c->E;
  int32_t before = e->P->C.n, x = many(e, HS_G_OR, l->v[p], l->n[p]);
  char set[160], name[200];
  set_text(&c->H, p, set, sizeof set);
  snprintf(name, sizeof name, "%s%s", set, what);
  if (x >= 0 && hs_prebuilt_rename(e->P, x, before, name)) e->failed = -1;
  return x;
}

/* The chain below the sets of height h: which tile each is in, now and
 * at i - 1, the resets that reads, and the output's pairs. */
static int level_sets(cas *c, int32_t h) {
  em *e = &c->E;
  hol *H = &c->H;
  for (int32_t p = 0; p < H->nsets && !e->failed; p++) {
    if (H->h[p] != h || H->size[p] < 2) continue;
    int32_t in = p == 0 ? e->T : or_named(c, &c->in, p, " in the chain");
    int32_t yin = p == 0 ? e->T : or_named(c, &c->yin, p, " in the chain at i-1");
    if (in == e->F && yin == e->F) continue;
    for (int32_t j = H->toff[p]; j < H->toff[p + 1] && !e->failed; j++) {
      int32_t t = H->tile[j], v = c->vid[j];
      int32_t pair = g_bin(e, HS_G_AND, in, c->Lv[v]), ypair = g_bin(e, HS_G_AND, yin, c->Ls[v]);
      if (push_id(e, &c->in, t, pair) || push_id(e, &c->yin, t, ypair)) break;
      if (all_in(H, t, c->d->acc) && !all_in(H, p, c->d->acc) && push_id(e, &c->acc, 0, pair))
        break;
      if (pair_resets(c, p, j, yin, c->Ls[v])) break;
    }
  }
  return e->failed ? -1 : 0;
}

/* The initial chain (down from Q to the start state), each level's
 * value on it, and the letters that reset each level at i = 1: below Q,
 * or after a pair of the initial chain. */
static int initial(cas *c) {
  hol *H = &c->H;
  int32_t levels = H->h[0], ntile = H->toff[H->nsets];
  uint64_t *t = calloc((size_t)H->W, sizeof *t);
  c->init = malloc(((size_t)levels + 1) * sizeof *c->init);
  c->c0 = calloc((size_t)ntile + 1, 1);
  c->r1 = calloc(((size_t)levels + 1) * (size_t)H->L, 1);
  c->top = calloc(((size_t)levels + 1) * (size_t)H->L, 1);
  if (!t || !c->init || !c->c0 || !c->r1 || !c->top) { free(t); return -1; }
  for (int32_t h = 0; h <= levels; h++) c->init[h] = -1;
  put(t, 0);
  int32_t q0 = lookup_set(H, t), m = down(H, 0, q0, c->slots);
  free(t);
  for (int32_t i = 0; i < m; i++) {
    c->c0[c->slots[i]] = 1;
    c->init[c->vlev[c->vid[c->slots[i]]]] = c->vid[c->slots[i]];
  }
  for (int32_t j = -1, p = 0; j < ntile; j++) {
    while (j >= 0 && H->toff[p + 1] <= j) p++; /* the set whose tile slot j is */
    if (j >= 0 && !c->c0[j]) continue;
    for (int32_t l = 0; l < H->L; l++) {
      int32_t r = resets(H, l, p, j, c->slots);
      for (int32_t i = 0; i < r; i++)
        c->r1[(size_t)c->vlev[c->vid[c->slots[i]]] * (size_t)H->L + (size_t)l] = 1;
    }
  }
  return 0;
}

static int cas_alloc(cas *c) {
  hol *H = &c->H;
  int32_t ntile = H->toff[H->nsets];
  c->vid = malloc(((size_t)ntile + 1) * sizeof *c->vid);
  c->vlev = malloc(((size_t)ntile + 1) * sizeof *c->vlev);
  c->Lv = malloc(((size_t)ntile + 1) * sizeof *c->Lv);
  c->Ls = malloc(((size_t)ntile + 1) * sizeof *c->Ls);
  c->slots = malloc(((size_t)H->nsets + 1) * sizeof *c->slots);
  if (!c->vid || !c->vlev || !c->Lv || !c->Ls || !c->slots) return -1;
  if ((c->nv = values(H, c->vid, c->vlev)) < 0) return -1;
  c->mark = calloc((size_t)c->nv * (size_t)H->L + 1, 1);
  c->seen = calloc((size_t)c->nv + 1, 1);
  c->vs = malloc(((size_t)c->nv + 1) * sizeof *c->vs);
  if (!c->mark || !c->seen || !c->vs) return -1;
  if (lists_init(&c->terms, c->nv) || lists_init(&c->in, H->nsets) ||
      lists_init(&c->yin, H->nsets) || lists_init(&c->acc, 1))
    return -1;
  return initial(c);
}

static void cas_free(cas *c) {
  lists_free(&c->terms, c->nv);
  lists_free(&c->in, c->H.nsets);
  lists_free(&c->yin, c->H.nsets);
  lists_free(&c->acc, 1);
  free(c->symf); free(c->pick); free(c->tmp); free(c->mark); free(c->seen); free(c->vs); free(c->vid); free(c->vlev); free(c->Lv); free(c->Ls);
  free(c->init); free(c->c0); free(c->r1); free(c->top); free(c->slots); free(c->E.rdy);
  hol_free(&c->H);
}

static int32_t emit(cas *c, const hs_vocab *v, int32_t mod) {
  em *e = &c->E;
  e->F = add(e, hs_cnode_blank(HS_C_FALSE, -1), "false");
  e->T = add(e, hs_cnode_blank(HS_C_TRUE, -1), "true");
  hs_cnode pf = hs_cnode_blank(HS_C_PF, -1), g = hs_cnode_blank(HS_C_GATE, -1);
  pf.pf = HS_PF_INV_I1;
  g.g = HS_G_FIRST;
  g.a = add(e, pf, "1/(i+1)");
  e->first = g.a < 0 ? -1 : add(e, g, "i = 1");
  if (e->first < 0 || letters_of(c, v, mod) || pair_resets(c, 0, -1, e->T, e->T)) return -1;
  for (int32_t h = c->H.h[0]; h >= 1; h--)
    if (level_heads(c, h) || level_sets(c, h)) return -1;
  if (all_in(&c->H, 0, c->d->acc)) return e->T;
  int32_t before = e->P->C.n, root = many(e, HS_G_OR, c->acc.v[0], c->acc.n[0]);
  if (root >= 0 && hs_prebuilt_rename(e->P, root, before, "accept")) return -1;
  return root;
}

int rx_cascade(const rx_dfa *d, const hs_vocab *v, int32_t mod, hs_prebuilt *P,
               int32_t *root, rx_cascade_info *info, char *why, size_t whylen) {
  cas c;
  memset(&c, 0, sizeof c);
  c.d = d;
  c.E.P = P;
  c.E.why = why;
  c.E.whylen = whylen;
  c.E.maxdepth = hs_get_limits().max_depth;
  int rc = hol_build(&c.H, d, why, whylen);
  if (!rc) rc = cas_alloc(&c) ? -1 : 0;
  if (!rc && (*root = emit(&c, v, mod)) < 0) rc = c.E.failed > 0 ? 1 : -1;
  if (!rc && hs_circuit_keep(&P->C, root)) rc = -1;
  if (!rc) {
    memset(info, 0, sizeof *info);
    info->sets = c.H.nsets;
    for (int32_t p = 0; p < c.H.nsets; p++) info->classes += c.H.rep[p] == p;
    info->levels = c.H.h[0];
    info->letters = c.H.L;
    info->nodes = P->C.n;
    for (int32_t i = 0; i < P->C.n; i++) info->heads += P->C.c[i].kind == HS_C_HEAD;
  }
  cas_free(&c);
  return rc;
}

int rx_tagged(const rx_dfa *d, int32_t s, rx_dfa *out) {
  int64_t n = (int64_t)d->n * s + 1, k = (int64_t)d->k * s;
  if (n > RX_MAX_STATES || n * k > ((int64_t)1 << 24)) return 1;
  out->n = (int32_t)n;
  out->k = (int32_t)k;
  out->next = malloc((size_t)(n * k) * sizeof *out->next);
  out->acc = calloc((size_t)n, 1);
  if (!out->next || !out->acc) { rx_dfa_free(out); return -1; }
  int32_t sink = (int32_t)n - 1;
  for (int32_t i = 0; i < out->n; i++) {
    int32_t q = i / s, t = i % s;
    out->acc[i] = i != sink && d->acc[q];
    for (int32_t sym = 0; sym < out->k; sym++) {
      int32_t c = sym / s, r = sym % s;
      out->next[(size_t)i * (size_t)k + (size_t)sym] =
          i == sink || r != (t + 1) % s ? sink : d->next[(size_t)q * (size_t)d->k + (size_t)c] * s + r;
    }
  }
  return rx_minimize(out) ? -1 : 0;
}
