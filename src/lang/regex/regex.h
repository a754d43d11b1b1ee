/* SPDX-License-Identifier: MIT */
/* The regular-expression front end (internal; docs/LANGUAGE.md, "Regular
 * expressions"). Like every front end (src/lang/lang.h) it is a parser, a
 * direct interpreter and a lowering; here the interpreter is the minimal
 * automaton of the expression, and the lowering places the language in
 * the theory's classes through its transition monoid first:
 *
 *   parse.c    text -> tree (ast.h), tokens into the program's vocabulary
 *   dfa.c      tree -> minimal complete automaton (dfa.h)
 *   monoid.c   automaton -> transition monoid, class and witness (monoid.h)
 *   cascade.c  aperiodic automaton -> circuit (a cascade of reset levels)
 *   regex.c    the pieces in a row, the explanation, the interpreter
 *
 * The model's output at position i is 1 iff the prefix w1..wi is in the
 * language; a symbol outside the alphabet (a token the expression and
 * --alphabet do not name) puts that prefix and every longer one out. */
#ifndef HS_REGEX_H
#define HS_REGEX_H

#include <stddef.h>
#include <stdint.h>

#include "lang/lang.h"
#include "lang/ltl/formula.h"

typedef struct hs_regex hs_regex;

/* Parse text[0..len) and build its automaton; alphabet (NULL: none) is
 * the --alphabet text, symbols written as in a class without brackets
 * ("abc", "a-z", "\"<p>\" x"). Tokens go into v. NULL with err filled:
 * "<what> at line L, column C" (err->line, err->column), or "--alphabet:
 * <what> at column C", or a limit of the construction. */
hs_regex *hs_regex_parse(const char *text, size_t len, const char *alphabet,
                         hs_vocab *v, hs_error *err);
/* The interpreter: vals[0*n + i] the automaton's state after w1..w(i+1),
 * vals[1*n + i] 1 iff that prefix is in the language. 0, or -1 on bad
 * arguments. */
int hs_regex_eval_all(const hs_regex *r, const uint8_t *w, size_t n, int64_t *vals);
/* The lowering: the class decides. A star-free language becomes a
 * circuit in *out, a quasi-aperiodic one a circuit over @mod position
 * features; for any other (or one past the construction's limits) *out
 * is NULL and hs_regex_refusal says why, the one line hs_program_compile
 * reports. 0, or -1 only when out of memory (err filled). */
int hs_regex_lower(hs_regex *r, hs_prebuilt **out, hs_error *err);
/* Why the lowering built nothing, one line; NULL when it built a circuit
 * (or has not run). */
const char *hs_regex_refusal(const hs_regex *r);
/* The expression as given. */
const char *hs_regex_text(const hs_regex *r);
/* What the front end found: automaton and monoid sizes, the class with
 * its witness, and the size of the construction once lowered. snprintf
 * style: the length the whole text needs. */
size_t hs_regex_explain(const hs_regex *r, char *buf, size_t len);
void hs_regex_free(hs_regex *r);

#endif
