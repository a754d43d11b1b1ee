/* SPDX-License-Identifier: MIT */
/* The C-RASP front end (internal): a parser, a direct interpreter (the
 * ground truth of every C-RASP model) and a lowering straight into the
 * circuit (src/circuit/). The language is docs/LANGUAGE.md, "C-RASP
 * programs". Every front end has this shape (src/lang/brasp/brasp.h too),
 * so src/lang/program.c plugs each in with one case. */
#ifndef HS_CRASP_H
#define HS_CRASP_H

#include <stddef.h>
#include <stdint.h>

#include "hardsoft.h"
#include "lang/lang.h"

typedef struct hs_crasp hs_crasp;

/* Parse text[0..len) (NUL bytes are errors). Every token the program
 * names ("tok") is added to v, which the caller owns and frees. NULL on
 * error, err filled: one line, "<what> at line L, column C", with
 * err->line and err->column set. */
hs_crasp *hs_crasp_parse(const char *text, size_t len, hs_vocab *v,
                         hs_error *err);
/* The value of every statement at every position of w[0..n) (token
 * bytes of the vocabulary): vals[k * n + i] for statement k, position i
 * (0-based, as the reference interpreter numbers them); Booleans are 0/1.
 * Integers are 64-bit, every sum, difference and product checked: 0, or -1
 * with err filled (out of memory, n >= 2^31, or a value of statement k at
 * position i that leaves them, named). */
int hs_crasp_eval_all(const hs_crasp *p, const uint8_t *w, size_t n,
                      int64_t *vals, hs_error *err);
/* Statements (assignments; imports are not statements), in order; the
 * last one is the program's value and is Boolean. */
int hs_crasp_nstmts(const hs_crasp *p);
const char *hs_crasp_stmt_name(const hs_crasp *p, int k);
/* The program lowered into the circuit (lower.c), named by a line for the
 * model's metadata, which hs_program_compile compiles. v is the vocabulary the parser filled, for the atoms' names.
 * NULL with err filled (line of the statement whose case split is too
 * large, or out of memory). */
hs_prebuilt *hs_crasp_lower(const hs_crasp *p, const hs_vocab *v, hs_error *err);
void hs_crasp_free(hs_crasp *p);

/* The largest number of comparison cases one statement may lower to. */
#define HS_CRASP_MAX_CASES 4096

#endif
