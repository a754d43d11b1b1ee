/* SPDX-License-Identifier: MIT */
/* Counting comparisons before the circuit signs them (src/lang/compare.h).
 *
 * Why reduce. The sign of sum c_t #_t + c is decided from the counts as
 * fractions #_t / D, and the rounding it must survive grows with n times
 * the sum of |c_t| (src/model/region.c): dividing every coefficient by
 * their gcd g keeps the comparison and shrinks that sum g times, so
 * 10000*#<(a) > 10000*#<(b) is exactly as exact as #<(a) > #<(b). The
 * integer S = sum (c_t / g) #_t makes the constant's rounding exact:
 *   g S + c >  0  <=>  S + ceil(c/g)  >  0      g S + c <  0  <=>  S + floor(c/g) <  0
 *   g S + c >= 0  <=>  S + floor(c/g) >= 0      g S + c <= 0  <=>  S + ceil(c/g)  <= 0
 * (an integer above -c/g is above floor(-c/g) = -ceil(c/g), and so on),
 * and g S + c = 0 needs g | c.
 *
 * Why fold. Counts are >= 0 and unbounded, so with every coefficient
 * positive the left side takes values in [c, inf) (in (-inf, c] with every
 * one negative): a relation true (or false) on that whole range holds (or
 * fails) at every position of every string, whatever the counts are.
 * #<(a) > -10000000 is true; it needs no sign, and no constant the
 * weights cannot hold. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "lang/compare.h"

static int64_t gcd64(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t r = x % y;
    x = y;
    y = r;
  }
  return (int64_t)x;
}

static int64_t floor_div(int64_t a, int64_t g) {
  int64_t q = a / g;
  return a % g != 0 && a < 0 ? q - 1 : q;
}

static int64_t ceil_div(int64_t a, int64_t g) {
  int64_t q = a / g;
  return a % g != 0 && a > 0 ? q + 1 : q;
}

/* Whether rel holds (1), fails (0) for every value of the left side in
 * [c, inf) (pos) or (-inf, c] (neg), or neither (-1). */
static int fold(int pos, int neg, int64_t c, hs_rel rel) {
  if (pos) {
    if ((rel == HS_REL_GT && c > 0) || (rel == HS_REL_GE && c >= 0) || (rel == HS_REL_NE && c > 0))
      return 1;
    if ((rel == HS_REL_LT && c >= 0) || (rel == HS_REL_LE && c > 0) || (rel == HS_REL_EQ && c > 0))
      return 0;
  }
  if (neg) {
    if ((rel == HS_REL_LT && c < 0) || (rel == HS_REL_LE && c <= 0) || (rel == HS_REL_NE && c < 0))
      return 1;
    if ((rel == HS_REL_GT && c <= 0) || (rel == HS_REL_GE && c < 0) || (rel == HS_REL_EQ && c < 0))
      return 0;
  }
  return -1;
}

hs_cmp_fate hs_cmp_reduce(int64_t *coef, int nt, int64_t *c, hs_rel *rel, int64_t *g) {
  *g = 1;
  if (nt == 0) return hs_rel_holds(*rel, *c) ? HS_CMP_TRUE : HS_CMP_FALSE;
  int64_t d = 0;
  int pos = 1, neg = 1;
  for (int t = 0; t < nt; t++) {
    d = gcd64(d, coef[t]);
    pos &= coef[t] > 0;
    neg &= coef[t] < 0;
  }
  if (d > 1) {
    if ((*rel == HS_REL_EQ || *rel == HS_REL_NE) && *c % d != 0)
      return *rel == HS_REL_NE ? HS_CMP_TRUE : HS_CMP_FALSE;
    for (int t = 0; t < nt; t++) coef[t] /= d;
    int up = *rel == HS_REL_GT || *rel == HS_REL_LE;
    *c = up ? ceil_div(*c, d) : floor_div(*c, d);
    *g = d;
  }
  int k = fold(pos, neg, *c, *rel);
  return k < 0 ? HS_CMP_KEEP : k ? HS_CMP_TRUE : HS_CMP_FALSE;
}

/* Whether the integer v is a float32 exactly. */
static int f32_exact(int64_t v) {
  float f = (float)v;
  return fabsf(f) < 0x1p62f && (int64_t)f == v;
}

int hs_cmp_fits(const int64_t *coef, int nt, int64_t c, int64_t c0, int64_t g,
                const char *what, hs_error *err) {
  char name[104], after[96] = "";
  hs_cmp_abbrev(what, name, 100);
  for (int t = 0; t < nt; t++) {
    if (f32_exact(coef[t])) continue;
    if (g > 1) snprintf(after, sizeof after, " (%lld after dividing by the gcd %lld)",
                        (long long)coef[t], (long long)g);
    return hs_errorf(err, HS_ERR_UNSUPPORTED, "%s: the coefficient %lld%s is not exact in "
                     "the model's float32 weights (every integer up to 2^24 = 16777216 is)",
                     name, (long long)(coef[t] * g), after);
  }
  if (c >= -8388607 && c <= 8388607) return 0;
  /* named as written: its magnitude (the side it stands on sets its sign) */
  if (g > 1) snprintf(after, sizeof after, " (%lld after dividing by the gcd %lld)",
                      (long long)(c < 0 ? -c : c), (long long)g);
  return hs_errorf(err, HS_ERR_UNSUPPORTED, "%s: the constant %lld%s is beyond what the "
                   "model's float32 weights hold beside the sign's half (|constant| <= "
                   "2^23 - 1 = 8388607)", name, (long long)(c0 < 0 ? -c0 : c0), after);
}

int hs_cmp_signs(hs_circuit *C, int32_t src, hs_rel rel, int r, int nt, const int *cnt,
                 const int64_t *coef, int64_t c) {
  switch (rel) {
  case HS_REL_GT: return hs_circuit_sign_of(C, src, 0, r, nt, cnt, coef, c);
  case HS_REL_GE: return hs_circuit_sign_of(C, src, 1, r, nt, cnt, coef, c);
  case HS_REL_LT: return hs_circuit_sign_of(C, src, 2, r, nt, cnt, coef, c);
  case HS_REL_LE: return hs_circuit_sign_of(C, src, 3, r, nt, cnt, coef, c);
  default: {
    int eq = rel == HS_REL_EQ;
    int x = hs_circuit_sign_of(C, src, eq ? 1 : 0, r, nt, cnt, coef, c);
    int y = hs_circuit_sign_of(C, src, eq ? 3 : 2, r, nt, cnt, coef, c);
    return hs_circuit_gate(C, eq ? HS_G_AND : HS_G_OR, x, y, src);
  }
  }
}

void hs_cmp_abbrev(const char *text, char *buf, size_t max) {
  size_t n = strlen(text);
  if (n <= max) {
    memcpy(buf, text, n + 1);
    return;
  }
  size_t cut = max - 4;
  while (cut > 0 && text[cut] != ' ') cut--;
  if (cut == 0) cut = max - 4;
  memcpy(buf, text, cut);
  memcpy(buf + cut, " ...", 5);
}
