/* SPDX-License-Identifier: MIT */
/* Ground truth: the direct semantics of docs/LANGUAGE.md §3 on finite strings, one
 * linear sweep per node. Everything the transformer computes is checked
 * against this, so it stays as literal as the semantics table allows:
 * positions 1..n are stored at 0..n-1, X is false at n, Y is false at 1,
 * U and S are the usual recurrences
 *   (φ U ψ)_i = ψ_i ∨ (φ_i ∧ (φ U ψ)_{i+1}),  (φ U ψ)_{n+1} = false
 *   (φ S ψ)_i = ψ_i ∨ (φ_i ∧ (φ S ψ)_{i-1}),  (φ S ψ)_0     = false
 * which unfold to the ∃j ∀k readings of the table. Counting comparisons sum
 * coef * count in 128 bits: the parser keeps sum |coef| and |c| below 2^63,
 * and a count is at most n < 2^64, so the sum cannot overflow.
 *
 * The empty string (n = 0) has no positions: hs_truth_eval writes nothing
 * and returns 0, hs_truth_eval_all returns a 1-byte allocation (not NULL,
 * which means failure) that the caller frees as usual. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "lang/ltl/formula.h"

/* A comparison: #<(φ) at i = φ-count over 1..i (running), #>(φ) at i =
 * the total minus the count over 1..i-1. */
static int eval_cmp(const hs_node *nd, size_t n, const uint8_t *vals, uint8_t *o) {
  int32_t T = nd->nterms;
  uint64_t *run = calloc(T ? (size_t)T * 2 : 1, sizeof *run);
  if (!run) return -1;
  uint64_t *tot = run + T;
  for (int32_t t = 0; t < T; t++) {
    const uint8_t *v = vals + (size_t)nd->terms[t].arg * n;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    tot[t] = s;
  }
  for (size_t i = 0; i < n; i++) {
    hs_i128 sum = nd->c;
    for (int32_t t = 0; t < T; t++) {
      uint8_t vi = vals[(size_t)nd->terms[t].arg * n + i];
      uint64_t before = run[t];          /* count over 1..i-1 */
      run[t] += vi;
      uint64_t cnt = nd->terms[t].past ? run[t] : tot[t] - before;
      sum += (hs_i128)nd->terms[t].coef * (hs_i128)cnt;
    }
    o[i] = (uint8_t)hs_rel_holds(nd->rel, sum);
  }
  free(run);
  return 0;
}

/* i mod k = r with i from 1; k < 1 (only from a hand-built node) or r
 * outside [0, k) never holds. */
static void eval_mod(const hs_node *nd, size_t n, uint8_t *o) {
  if (nd->k < 1 || nd->r < 0 || nd->r >= nd->k) {
    memset(o, 0, n);
    return;
  }
  uint64_t k = (uint64_t)nd->k, r = (uint64_t)nd->r, m = 1 % k;
  for (size_t i = 0; i < n; i++) { /* m = (i+1) mod k, incrementally */
    o[i] = m == r;
    if (++m == k) m = 0;
  }
}

/* Evaluate node `id` into o[0..n), its children's rows already in vals. */
static int eval_node(const hs_formula *f, int32_t id, const uint8_t *w,
                     size_t n, uint8_t *vals) {
  const hs_node *nd = &f->nodes[id];
  uint8_t *o = vals + (size_t)id * n;
  const uint8_t *a = nd->a >= 0 ? vals + (size_t)nd->a * n : NULL;
  const uint8_t *b = nd->b >= 0 ? vals + (size_t)nd->b * n : NULL;
  size_t i;
  uint8_t acc;
  switch (nd->op) {
  case HS_F_FALSE: memset(o, 0, n); break;
  case HS_F_TRUE: memset(o, 1, n); break;
  case HS_F_ATOM:
    /* a byte no atom names simply equals no sym: every atom false there */
    for (i = 0; i < n; i++) o[i] = w[i] == nd->sym;
    break;
  case HS_F_FIRST: memset(o, 0, n); o[0] = 1; break;
  case HS_F_LAST: memset(o, 0, n); o[n - 1] = 1; break;
  case HS_F_MOD: eval_mod(nd, n, o); break;
  case HS_F_NOT: for (i = 0; i < n; i++) o[i] = !a[i]; break;
  case HS_F_AND: for (i = 0; i < n; i++) o[i] = a[i] & b[i]; break;
  case HS_F_OR: for (i = 0; i < n; i++) o[i] = a[i] | b[i]; break;
  case HS_F_IMPLIES: for (i = 0; i < n; i++) o[i] = (uint8_t)(!a[i]) | b[i]; break;
  case HS_F_IFF: for (i = 0; i < n; i++) o[i] = a[i] == b[i]; break;
  case HS_F_NEXT:
    for (i = 0; i + 1 < n; i++) o[i] = a[i + 1];
    o[n - 1] = 0;
    break;
  case HS_F_YESTERDAY:
    for (i = n - 1; i > 0; i--) o[i] = a[i - 1];
    o[0] = 0;
    break;
  case HS_F_EVENTUALLY:
    for (acc = 0, i = n; i-- > 0;) o[i] = acc |= a[i];
    break;
  case HS_F_ALWAYS:
    for (acc = 1, i = n; i-- > 0;) o[i] = acc &= a[i];
    break;
  case HS_F_ONCE:
    for (acc = 0, i = 0; i < n; i++) o[i] = acc |= a[i];
    break;
  case HS_F_HISTORICALLY:
    for (acc = 1, i = 0; i < n; i++) o[i] = acc &= a[i];
    break;
  case HS_F_UNTIL:
    for (acc = 0, i = n; i-- > 0;) o[i] = acc = b[i] | (a[i] & acc);
    break;
  case HS_F_SINCE:
    for (acc = 0, i = 0; i < n; i++) o[i] = acc = b[i] | (a[i] & acc);
    break;
  case HS_F_CMP: return eval_cmp(nd, n, vals, o);
  default: memset(o, 0, n); break;
  }
  return 0;
}

/* Rows 0..last of the node values, evaluating only nodes reachable from
 * `last` when only_reachable (the rest stay zero). */
static uint8_t *eval_upto(const hs_formula *f, int32_t last, const uint8_t *w,
                          size_t n, int only_reachable) {
  size_t rows = (size_t)last + 1, bytes;
  if (__builtin_mul_overflow(rows, n, &bytes)) return NULL;
  uint8_t *vals = malloc(bytes ? bytes : 1);
  if (!vals) return NULL;
  if (n == 0) return vals; /* no positions: nothing to compute */
  uint8_t *need = NULL;
  if (only_reachable) {
    need = calloc(rows, 1);
    if (!need) { free(vals); return NULL; }
    need[last] = 1;
    for (int32_t i = last; i >= 0; i--) {
      if (!need[i]) continue;
      const hs_node *nd = &f->nodes[i];
      if (nd->a >= 0) need[nd->a] = 1;
      if (nd->b >= 0) need[nd->b] = 1;
      for (int32_t t = 0; t < nd->nterms; t++) need[nd->terms[t].arg] = 1;
    }
  }
  for (int32_t i = 0; i <= last; i++) {
    if (need && !need[i]) { memset(vals + (size_t)i * n, 0, n); continue; }
    if (eval_node(f, i, w, n, vals)) { free(need); free(vals); return NULL; }
  }
  free(need);
  return vals;
}

uint8_t *hs_truth_eval_all(const hs_formula *f, const uint8_t *w, size_t n) {
  if (!f || (n && !w)) return NULL;
  if (f->count == 0) return malloc(1);
  return eval_upto(f, f->count - 1, w, n, 0);
}

int hs_truth_eval(const hs_formula *f, int32_t id, const uint8_t *w, size_t n,
                  uint8_t *out, hs_error *err) {
  if (!f || id < 0 || id >= f->count)
    return hs_errorf(err, HS_ERR_ARG,
                     "hs_truth_eval: no node %d in the formula", (int)id);
  if (n == 0) return 0;
  if (!w || !out)
    return hs_errorf(err, HS_ERR_ARG, "hs_truth_eval: NULL argument");
  uint8_t *vals = eval_upto(f, id, w, n, 1);
  if (!vals)
    return hs_errorf(err, HS_ERR_NOMEM,
                     "out of memory evaluating the formula on %zu symbols", n);
  memcpy(out, vals + (size_t)id * n, n);
  free(vals);
  return 0;
}
