/* SPDX-License-Identifier: MIT */
/* The B-RASP front end (internal): Boolean RASP of Yang, Chiang and
 * Angluin, "Masked hard-attention transformers recognize exactly the
 * star-free languages" (2024). The language is docs/LANGUAGE.md, section
 * "B-RASP programs": a program is one statement per line, each defining a
 * Boolean vector over positions from tokens, Boolean operations and
 * leftmost / rightmost attention. Like every front end (src/lang/lang.h)
 * it has a parser, a direct interpreter (the ground truth) and a lowering
 * into the circuit that hs_compile turns into a transformer. */
#ifndef HS_BRASP_H
#define HS_BRASP_H

#include <stddef.h>
#include <stdint.h>

#include "lang/lang.h"
#include "lang/ltl/formula.h"

typedef struct hs_brasp hs_brasp;
/* Parse a B-RASP program; tokens it names are added to v (src/lang/lang.h).
 * NULL with err filled (msg with "at line L, column C", err->line,
 * err->column). */
hs_brasp *hs_brasp_parse(const char *text, size_t len, hs_vocab *v,
                         hs_error *err);
int hs_brasp_nstmts(const hs_brasp *p);                 /* named statements, in order */
const char *hs_brasp_stmt_name(const hs_brasp *p, int k);
/* The direct interpreter (the ground truth): every statement's 0/1 value at
 * positions 1..n of the token-byte string w, into vals[k * n + (i-1)];
 * returns 0, -1 on allocation failure. The program's value is its last
 * statement. */
int hs_brasp_eval_all(const hs_brasp *p, const uint8_t *w, size_t n,
                      int64_t *vals);
/* The lowering into the circuit (lower.c), named by a line for the
 * model's metadata; the circuit's root is the last statement. NULL with err filled. */
hs_prebuilt *hs_brasp_lower(const hs_brasp *p, hs_error *err);
void hs_brasp_free(hs_brasp *p);

#endif
