/* SPDX-License-Identifier: MIT */
/* The tree of a parsed regular expression (internal; the language is
 * docs/LANGUAGE.md, "Regular expressions"). Symbols are the tokens of the
 * program's vocabulary (src/lang/lang.h), numbered in the order they are
 * first named: a symbol set is a bitmap over those numbers, resolved
 * against the whole alphabet (every symbol the expression names plus
 * --alphabet) only when the automaton is built, so `.` and `[^a]` mean
 * the same wherever they stand. */
#ifndef HS_REGEX_AST_H
#define HS_REGEX_AST_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "lang/lang.h"

typedef enum rx_op {
  RX_EPS,  /* the empty string: () */
  RX_SET,  /* one symbol of a set: a, "tok", ., [ab], [^ab], [] (none) */
  RX_CAT,  /* a b (the parser builds chains left-deep: a is the chain) */
  RX_ALT,  /* a | b (left-deep) */
  RX_AND,  /* a & b, intersection (left-deep) */
  RX_NOT,  /* ~a, complement within the alphabet's strings */
  RX_STAR, RX_PLUS, RX_OPT,
  RX_REP   /* a{lo}, a{lo,}, a{lo,hi} (hi = -1: unbounded) */
} rx_op;

typedef struct rx_set {
  uint64_t bits[4]; /* symbol numbers named */
  uint8_t neg;      /* [^...]: every alphabet symbol but those */
  uint8_t any;      /* .: every alphabet symbol */
} rx_set;

typedef struct rx_node {
  rx_op op;
  int32_t a, b;     /* children, -1 when absent */
  int32_t lo, hi;   /* RX_REP */
  int32_t set;      /* RX_SET: index into sets */
  int32_t height;   /* recursion levels the builders need below it: one
                       per operator, none along a chain's left spine */
  int line, col;    /* where the construct starts */
} rx_node;

typedef struct rx_ast {
  rx_node *nd;
  int32_t n, cap;
  rx_set *sets;
  int32_t nsets, capsets;
  int32_t root;
} rx_ast;

/* The widest repetition count ({m,n} with n at most this). */
#define RX_MAX_REP 1000
/* The most tree nodes an expression may have (about one per symbol and
 * operator of the text). */
#define RX_MAX_NODES (1 << 20)

/* Parse text[0..len) into t, its symbols into v (parse.c). 0, or -1 with
 * err filled ("<what> at line L, column C"); t is then freed. */
int rx_parse(const char *text, size_t len, hs_vocab *v, rx_ast *t, hs_error *err);
/* The --alphabet text (symbols as in a class, without brackets) into v.
 * 0, or -1 with err filled ("--alphabet: <what> at column C"). */
int rx_parse_alphabet(const char *text, hs_vocab *v, hs_error *err);
void rx_ast_free(rx_ast *t);

#endif
