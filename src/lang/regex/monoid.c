/* SPDX-License-Identifier: MIT */
/* The class of a regular language from its transition monoid (monoid.h).
 *
 * The automaton is minimal, so its transition monoid M is the syntactic
 * monoid of the language, and with eta: A* -> M the map from words:
 *  - star-free iff M is aperiodic (Schützenberger 1965; McNaughton and
 *    Papert 1971: = first-order logic FO[<]; Kamp 1968: = LTL): every m
 *    has m^K = m^(K+1). For a transformation m of n states, that is: the
 *    functional graph of m has no cycle longer than 1, and K is its
 *    longest tail, so each element costs O(n);
 *  - definable in FO[<, MOD] (first-order logic with the predicates
 *    i mod d = r) iff eta is quasi-aperiodic (Barrington, Compton,
 *    Straubing and Thérien 1992): with the stable length s, the least
 *    s >= 1 with eta(A^s) = eta(A^2s), the semigroup eta(A^s) holds no
 *    group but trivial ones. eta(A^(k s)) = eta(A^s) for every k >= 1,
 *    so an element of eta(A^s) that is not aperiodic puts its whole
 *    cyclic group there, and quasi-aperiodic is: every element of
 *    eta(A^s) is aperiodic. s is found as Floyd's cycle finder finds
 *    the first i with E_i = E_2i on E_1 = eta(A), E_(i+1) = E_i eta(A).
 * The witness of a group is checkable on words: an element eta(u) that is
 * not aperiodic moves some state q around a cycle of length L > 1;
 * x takes the start to q, z tells q from q u, so x u^k z is in the
 * language iff pattern[k mod p] for the least period p > 1 of
 * pattern (p divides L). For RX_NEITHER, |u| is a multiple of s: no
 * predicate on positions mod anything sees the count of u's.
 *
 * Limits: RX_MAX_MONOID elements and RX_MAX_CELLS element-states for the
 * monoid, the same cells for the search of u (elements times residues),
 * 2^16 steps of the stable-length search; past one the class is
 * RX_UNKNOWN with the reason, and the expression still runs by its
 * automaton. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/regex/monoid.h"

void rx_monoid_free(rx_monoid *M) {
  free(M->map);
  free(M->right);
  free(M->parent);
  free(M->sym);
  memset(M, 0, sizeof *M);
}

static uint64_t hash_map(const int32_t *x, int32_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t i = 0; i < n; i++) h = (h ^ (uint32_t)x[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

/* Room for cap elements (tables grown, the hash table rebuilt). */
static int monoid_grow(rx_monoid *M, int32_t cap, int32_t **slot, size_t *nslot) {
  size_t n = (size_t)M->n, k = (size_t)M->k;
  int32_t *map = realloc(M->map, (size_t)cap * n * sizeof *map);
  if (map) M->map = map;
  int32_t *right = realloc(M->right, (size_t)cap * k * sizeof *right);
  if (right) M->right = right;
  int32_t *parent = realloc(M->parent, (size_t)cap * sizeof *parent);
  if (parent) M->parent = parent;
  int32_t *sym = realloc(M->sym, (size_t)cap * sizeof *sym);
  if (sym) M->sym = sym;
  size_t ns = 256;
  while (ns < (size_t)cap * 2) ns *= 2;
  int32_t *s = calloc(ns, sizeof *s);
  if (!map || !right || !parent || !sym || !s) {
    free(s);
    return -1;
  }
  for (int32_t m = 0; m < M->size; m++) {
    size_t h = hash_map(M->map + (size_t)m * n, M->n) & (ns - 1);
    while (s[h]) h = (h + 1) & (ns - 1);
    s[h] = m + 1;
  }
  free(*slot);
  *slot = s;
  *nslot = ns;
  return 0;
}

/* The element whose map is x, added when new (-1 out of memory, -2 past
 * the limits). */
static int32_t monoid_find(rx_monoid *M, const int32_t *x, int32_t *cap, int32_t **slot,
                           size_t *nslot) {
  size_t n = (size_t)M->n;
  size_t h = hash_map(x, M->n) & (*nslot - 1);
  for (; (*slot)[h]; h = (h + 1) & (*nslot - 1))
    if (!memcmp(M->map + (size_t)((*slot)[h] - 1) * n, x, n * sizeof *x))
      return (*slot)[h] - 1;
  if (M->size == RX_MAX_MONOID || (int64_t)(M->size + 1) * M->n > RX_MAX_CELLS) return -2;
  if (M->size == *cap) {
    int32_t more = *cap * 2;
    if ((int64_t)more * M->n > RX_MAX_CELLS) more = (int32_t)(RX_MAX_CELLS / M->n) + 1;
    if (monoid_grow(M, more, slot, nslot)) return -1;
    *cap = more;
    return monoid_find(M, x, cap, slot, nslot);
  }
  memcpy(M->map + (size_t)M->size * n, x, n * sizeof *x);
  (*slot)[h] = M->size + 1;
  return M->size++;
}

int rx_monoid_build(const rx_dfa *d, rx_monoid *M, char *why, size_t whylen) {
  memset(M, 0, sizeof *M);
  M->n = d->n;
  M->k = d->k;
  int32_t cap = 64, *slot = NULL, *x = malloc((size_t)d->n * sizeof *x);
  size_t nslot = 0;
  int rc = !x || monoid_grow(M, cap, &slot, &nslot) ? -1 : 0;
  for (int32_t q = 0; !rc && q < d->n; q++) x[q] = q;
  if (!rc && monoid_find(M, x, &cap, &slot, &nslot) < 0) rc = -1;
  if (!rc) M->parent[0] = -1, M->sym[0] = -1;
  for (int32_t m = 0; !rc && m < M->size; m++) {
    for (int32_t c = 0; c < d->k && !rc; c++) {
      const int32_t *mm = M->map + (size_t)m * (size_t)d->n;
      for (int32_t q = 0; q < d->n; q++) x[q] = d->next[(size_t)mm[q] * (size_t)d->k + (size_t)c];
      int32_t before = M->size, e = monoid_find(M, x, &cap, &slot, &nslot);
      if (e == -2) {
        snprintf(why, whylen, "the transition monoid has more than %d elements (or %lld "
                 "element-states)", RX_MAX_MONOID, (long long)RX_MAX_CELLS);
        rc = 1;
      } else if (e < 0) {
        rc = -1;
      } else {
        M->right[(size_t)m * (size_t)d->k + (size_t)c] = e;
        if (e == before) M->parent[e] = m, M->sym[e] = c;
      }
    }
  }
  free(x);
  free(slot);
  if (rc) rx_monoid_free(M);
  return rc;
}

/* ------------------------------------------------------------ elements */

/* Element m's functional graph: its longest tail (how many steps every
 * state needs to reach a cycle), and one state on a cycle longer than
 * 1 (-1 when m is aperiodic) with that cycle's length. col is scratch of
 * n entries. */
static int32_t tails(const rx_monoid *M, int32_t m, int32_t *col, int32_t *cyc_state,
                     int32_t *cyc_len) {
  const int32_t *f = M->map + (size_t)m * (size_t)M->n;
  int32_t n = M->n, longest = 0;
  *cyc_state = -1;
  *cyc_len = 1;
  /* col: 0 unseen; on the current walk -(step+1); done: tail length + 1 */
  for (int32_t q = 0; q < n; q++) col[q] = 0;
  for (int32_t s = 0; s < n; s++) {
    if (col[s]) continue;
    int32_t q = s, step = 0;
    while (!col[q]) col[q] = -(++step), q = f[q];
    int32_t base;
    if (col[q] < 0) { /* a new cycle, entered at q */
      int32_t len = step + col[q] + 1, r = q;
      if (len > 1 && *cyc_state < 0) *cyc_state = q, *cyc_len = len;
      for (int32_t i = 0; i < len; i++, r = f[r]) col[r] = 1;
      base = 0;
    } else {
      base = col[q] - 1;
    }
    /* the walk's states off the cycle, farthest first */
    int32_t len = 0;
    for (int32_t r = s; col[r] < 0; r = f[r]) len++;
    for (int32_t r = s, i = 0; col[r] < 0; r = f[r], i++) col[r] = base + len - i + 1;
    if (base + len > longest) longest = base + len;
  }
  return longest;
}

/* ----------------------------------------------------------- the class */

/* The word of element m (its BFS path from the identity) into a new
 * array; -1 out of memory. */
static int word_of(const rx_monoid *M, int32_t m, int32_t **w, int32_t *n) {
  int32_t len = 0;
  for (int32_t e = m; M->parent[e] >= 0; e = M->parent[e]) len++;
  *w = malloc((size_t)(len ? len : 1) * sizeof **w);
  if (!*w) return -1;
  *n = len;
  for (int32_t e = m; M->parent[e] >= 0; e = M->parent[e]) (*w)[--len] = M->sym[e];
  return 0;
}

typedef struct bitset { uint64_t *w; int32_t n; } bitset;

static void step_set(const rx_monoid *M, const uint64_t *from, uint64_t *to) {
  size_t words = ((size_t)M->size + 63) / 64;
  memset(to, 0, words * sizeof *to);
  for (int32_t m = 0; m < M->size; m++)
    if (from[m >> 6] >> (m & 63) & 1)
      for (int32_t c = 0; c < M->k; c++) {
        int32_t e = M->right[(size_t)m * (size_t)M->k + (size_t)c];
        to[e >> 6] |= 1ull << (e & 63);
      }
}

/* The stable length (Floyd: the first i with E_i = E_2i) and E_s into
 * es; 0 past the step limit, -1 out of memory. */
static int32_t stable_length(const rx_monoid *M, uint64_t *es) {
  size_t words = ((size_t)M->size + 63) / 64, bytes = words * sizeof(uint64_t);
  uint64_t *hare = malloc(bytes), *tmp = malloc(bytes), *id = calloc(words, sizeof *id);
  int32_t i = 1;
  if (!hare || !tmp || !id) i = -1;
  if (i > 0) {
    id[0] = 1; /* the identity is element 0 */
    step_set(M, id, es);
    step_set(M, es, hare);
  }
  while (i > 0 && memcmp(es, hare, bytes)) {
    if (i == 1 << 16 || (int64_t)i * M->size * M->k > ((int64_t)1 << 30)) { i = 0; break; }
    step_set(M, es, tmp);
    memcpy(es, tmp, bytes);
    step_set(M, hare, tmp);
    step_set(M, tmp, hare);
    i++;
  }
  free(hare);
  free(tmp);
  free(id);
  return i;
}

/* A shortest word u with |u| a positive multiple of s whose element is
 * not aperiodic (aper[m] = 0): breadth-first over (element, |u| mod s).
 * Its element, or -2 when none / past the limit, -1 out of memory. */
static int32_t group_word(const rx_monoid *M, const uint8_t *aper, int32_t s, int32_t **u,
                          int32_t *nu) {
  int64_t cells = (int64_t)M->size * s;
  if (cells > ((int64_t)1 << 22)) return -2;
  int32_t *from = malloc((size_t)cells * sizeof *from), *queue = malloc((size_t)cells * sizeof *queue);
  int32_t found = -2, head = 0, tail = 0;
  if (!from || !queue) found = -1;
  for (int64_t i = 0; found == -2 && i < cells; i++) from[i] = -1;
  if (found == -2) queue[tail++] = 0, from[0] = 0;
  while (found == -2 && head < tail) {
    int32_t node = queue[head++], m = node / s, r = node % s;
    for (int32_t c = 0; c < M->k && found == -2; c++) {
      int32_t e = M->right[(size_t)m * (size_t)M->k + (size_t)c], t = e * s + (r + 1) % s;
      if (from[t] >= 0) continue;
      from[t] = node * M->k + c; /* predecessor and symbol */
      queue[tail++] = t;
      if ((r + 1) % s == 0 && !aper[e]) found = t;
    }
  }
  if (found >= 0) {
    int32_t len = 0;
    for (int32_t t = found; t != 0; t = from[t] / M->k) len++;
    *u = malloc((size_t)len * sizeof **u);
    if (!*u) found = -1;
    *nu = len;
    for (int32_t t = found; *u && t != 0; t = from[t] / M->k) (*u)[--len] = from[t] % M->k;
    if (*u) found /= s;
  }
  free(from);
  free(queue);
  return found;
}

/* A shortest word from the start to state q into x. */
static int word_to(const rx_dfa *d, int32_t q, int32_t **x, int32_t *nx) {
  int32_t *from = malloc((size_t)d->n * sizeof *from), *queue = malloc((size_t)d->n * sizeof *queue);
  int rc = from && queue ? 0 : -1, head = 0, tail = 0;
  for (int32_t i = 0; !rc && i < d->n; i++) from[i] = -1;
  if (!rc) queue[tail++] = 0, from[0] = 0;
  while (!rc && head < tail && from[q] < 0) {
    int32_t p = queue[head++];
    for (int32_t c = 0; c < d->k; c++) {
      int32_t t = d->next[(size_t)p * (size_t)d->k + (size_t)c];
      if (from[t] < 0) from[t] = p * d->k + c, queue[tail++] = t;
    }
  }
  int32_t len = 0;
  for (int32_t t = q; !rc && t != 0; t = from[t] / d->k) len++;
  *nx = len;
  if (!rc && !(*x = malloc((size_t)(len ? len : 1) * sizeof **x))) rc = -1;
  for (int32_t t = q; !rc && t != 0; t = from[t] / d->k) (*x)[--len] = from[t] % d->k;
  free(from);
  free(queue);
  return rc;
}

/* A shortest word telling p from q (accepted from one only), breadth-
 * first over pairs of states; -1 out of memory or past 2^22 pairs. */
static int word_between(const rx_dfa *d, int32_t p, int32_t q, int32_t **z, int32_t *nz) {
  int32_t cap = 1 << 22, head = 0, tail = 0, found = -1;
  int32_t *a = malloc((size_t)cap * sizeof *a), *b = malloc((size_t)cap * sizeof *b),
          *from = malloc((size_t)cap * sizeof *from);
  size_t ns = (size_t)cap * 2;
  int32_t *slot = calloc(ns, sizeof *slot);
  int rc = a && b && from && slot ? 0 : -1;
  if (!rc) a[0] = p, b[0] = q, from[0] = -1, tail = 1;
  while (!rc && found < 0 && head < tail) {
    int32_t i = head++;
    if (d->acc[a[i]] != d->acc[b[i]]) { found = i; break; }
    for (int32_t c = 0; c < d->k && !rc; c++) {
      int32_t x = d->next[(size_t)a[i] * (size_t)d->k + (size_t)c];
      int32_t y = d->next[(size_t)b[i] * (size_t)d->k + (size_t)c];
      size_t h = (((uint64_t)(uint32_t)x * 0x9E3779B97F4A7C15ull) ^ (uint32_t)y) * 0xBF58476D1CE4E5B9ull >> 7 & (ns - 1);
      int seen = 0;
      for (; slot[h]; h = (h + 1) & (ns - 1))
        if (a[slot[h] - 1] == x && b[slot[h] - 1] == y) { seen = 1; break; }
      if (seen) continue;
      if (tail == cap) { rc = -1; break; }
      a[tail] = x, b[tail] = y, from[tail] = i * d->k + c;
      slot[h] = ++tail;
    }
  }
  if (found < 0) rc = -1;
  int32_t len = 0;
  for (int32_t t = found; !rc && from[t] >= 0; t = from[t] / d->k) len++;
  *nz = len;
  if (!rc && !(*z = malloc((size_t)(len ? len : 1) * sizeof **z))) rc = -1;
  for (int32_t t = found; !rc && from[t] >= 0; t = from[t] / d->k) (*z)[--len] = from[t] % d->k;
  free(a);
  free(b);
  free(from);
  free(slot);
  return rc;
}

static int32_t run_word(const rx_dfa *d, int32_t q, const int32_t *w, int32_t n) {
  for (int32_t i = 0; i < n; i++) q = d->next[(size_t)q * (size_t)d->k + (size_t)w[i]];
  return q;
}

/* x, z and the pattern for the element of u (not aperiodic). */
static int witness(const rx_dfa *d, const rx_monoid *M, int32_t m, rx_class *c) {
  int32_t *col = malloc((size_t)d->n * sizeof *col), q, len;
  if (!col) return -1;
  tails(M, m, col, &q, &len);
  free(col);
  int32_t qu = M->map[(size_t)m * (size_t)d->n + (size_t)q];
  if (word_to(d, q, &c->x, &c->nx) || word_between(d, q, qu, &c->z, &c->nz)) return -1;
  uint8_t *b = malloc((size_t)len);
  if (!b) return -1;
  for (int32_t j = 0, s = q; j < len; j++, s = M->map[(size_t)m * (size_t)d->n + (size_t)s])
    b[j] = d->acc[run_word(d, s, c->z, c->nz)];
  int32_t p = 1;
  for (;; p++) {
    if (len % p) continue;
    int32_t j = 0;
    while (j < len && b[j] == b[(j + p) % len]) j++;
    if (j == len) break;
  }
  c->period = p;
  c->pattern = b;
  return 0;
}

void rx_class_free(rx_class *c) {
  free(c->x);
  free(c->u);
  free(c->z);
  free(c->pattern);
  memset(c, 0, sizeof *c);
}

/* Each element's aperiodicity into aper[]; the first that is not (-1:
 * none), the index K into c. */
static int32_t elements(const rx_monoid *M, uint8_t *aper, rx_class *c) {
  int32_t *col = malloc((size_t)M->n * sizeof *col), first = -1, q, len;
  if (!col) return -2;
  c->index = 1;
  for (int32_t m = 0; m < M->size; m++) {
    int32_t t = tails(M, m, col, &q, &len);
    aper[m] = q < 0;
    if (q >= 0 && first < 0) first = m;
    if (q < 0 && t > c->index) c->index = t;
  }
  free(col);
  return first;
}

static int classify_monoid(const rx_dfa *d, const rx_monoid *M, rx_class *c) {
  size_t words = ((size_t)M->size + 63) / 64;
  uint8_t *aper = malloc((size_t)M->size);
  uint64_t *es = malloc(words * sizeof *es);
  int rc = aper && es ? 0 : -1;
  int32_t first = rc ? -2 : elements(M, aper, c), m = -1;
  if (first == -2) rc = -1;
  if (!rc && first >= 0 && (c->stable = stable_length(M, es)) < 0) rc = -1;
  for (int32_t e = 0; !rc && c->stable > 0 && e < M->size; e++)
    if (es[e >> 6] >> (e & 63) & 1) {
      c->stable_size++;
      if (!aper[e]) m = e;
    }
  if (rc || first < 0) {
    c->cls = RX_STAR_FREE;
  } else if (c->stable == 0) {
    c->cls = RX_UNKNOWN;
    snprintf(c->why, sizeof c->why, "no stable length within 65536 steps");
  } else if (m < 0) {
    c->cls = RX_QUASI_APERIODIC;
    if (word_of(M, first, &c->u, &c->nu) || witness(d, M, first, c)) rc = -1;
    /* the least modulus: d = s always works (eta(A^(k s)) = eta(A^s)) */
    for (c->modulus = 1; !rc && c->modulus < c->stable; c->modulus++) {
      int32_t *u = NULL, nu, e = group_word(M, aper, c->modulus, &u, &nu);
      free(u);
      if (e == -1) rc = -1;
      if (e == -2) break; /* no group at multiples of this d */
    }
  } else {
    c->cls = RX_NEITHER;
    m = group_word(M, aper, c->stable, &c->u, &c->nu);
    if (m == -2) {
      c->cls = RX_UNKNOWN;
      snprintf(c->why, sizeof c->why, "a group in eta(A^%d), but its witness is past the "
               "search limit", c->stable);
    } else if (m < 0 || witness(d, M, m, c)) {
      rc = -1;
    }
  }
  free(aper);
  free(es);
  return rc;
}

int rx_classify(const rx_dfa *d, rx_class *c) {
  rx_monoid M;
  memset(c, 0, sizeof *c);
  int r = rx_monoid_build(d, &M, c->why, sizeof c->why);
  if (r < 0) return -1;
  if (r > 0) {
    c->cls = RX_UNKNOWN;
    return 0;
  }
  c->size = M.size;
  int rc = classify_monoid(d, &M, c);
  rx_monoid_free(&M);
  if (rc) rx_class_free(c);
  return rc;
}
