/* SPDX-License-Identifier: MIT */
/* Counting comparisons on their way into the circuit, the same for every
 * front end (internal; src/lang/ltl/lower.c and src/lang/crasp/lower.c):
 * sum_t coef[t] #_t + c REL 0 over counts #_t >= 0 is reduced by the gcd of
 * its coefficients, folded when no string can make it change, checked
 * against what float32 weights hold, and signed (hs_circuit_sign_of). */
#ifndef HS_LANG_COMPARE_H
#define HS_LANG_COMPARE_H

#include <stdint.h>

#include "circuit/circuit.h"
#include "lang/ltl/formula.h"

/* What a comparison is after hs_cmp_reduce: true or false at every
 * position of every string, or kept. */
typedef enum hs_cmp_fate { HS_CMP_FALSE = 0, HS_CMP_TRUE = 1, HS_CMP_KEEP = 2 } hs_cmp_fate;

/* Reduces sum coef[t] #_t + *c REL 0 (nt >= 0 terms, no coefficient 0) in
 * place: every coefficient divided by their gcd g, the constant by g
 * rounded the way that keeps the integer comparison's truth (floor or
 * ceiling by the relation; = is false and != true when g does not divide
 * it); then folded to a constant when the relation holds, or fails, for
 * every value the counts can take. *g gets the gcd (1 when nothing was
 * reduced). */
hs_cmp_fate hs_cmp_reduce(int64_t *coef, int nt, int64_t *c, hs_rel *rel, int64_t *g);

/* 0 when the model's float32 weights hold the reduced comparison exactly
 * (every coefficient a float, |c| <= 2^23 - 1 so that c +- 1/2 is one);
 * else -1 with err naming `what` (the comparison or its statement, at
 * most 100 bytes of it), the constant or coefficient as written (c0: the
 * constant before the reduction by g) and, when g > 1, as reduced, and
 * the limit. */
int hs_cmp_fits(const int64_t *coef, int nt, int64_t c, int64_t c0, int64_t g,
                const char *what, hs_error *err);

/* The circuit node of the reduced comparison sum coef[t] cnt[t] + c REL 0:
 * one sign (> 0, >= 0, < 0, <= 0) or two (= : >= and <=; != : > or <),
 * identified by src; r is the count carrying the constant (1/D). */
int hs_cmp_signs(hs_circuit *C, int32_t src, hs_rel rel, int r, int nt, const int *cnt,
                 const int64_t *coef, int64_t c);

/* text (a comparison's print) cut to fit max bytes: at the last space
 * before the cut, with " ..." after it; into buf (room for max + 1). */
void hs_cmp_abbrev(const char *text, char *buf, size_t max);

#endif
