/* SPDX-License-Identifier: MIT */
/* The syntax tree of a C-RASP program (internal to src/lang/crasp). Nodes
 * live in one array; a node's children always have smaller indices, and
 * the nodes of statement k are the range [stmt.first, stmt.root], so the
 * interpreter and the lowering walk each statement in index order. */
#ifndef HS_CRASP_AST_H
#define HS_CRASP_AST_H

#include <stdint.h>

#include "lang/crasp/crasp.h"

typedef enum cr_kind {
  /* Booleans */
  CR_TOK,   /* "tok": the token byte is v */
  CR_TRUE, CR_FALSE,
  CR_BVAR,  /* a Boolean statement: var */
  CR_MODP,  /* an imported unary predicate: i mod k == r (i from 0) */
  CR_NOT, CR_AND, CR_OR,
  CR_CMP,   /* a REL b, rel an hs_rel */
  /* counts */
  CR_INT,   /* v */
  CR_CVAR,  /* a count statement: var */
  CR_COUNT, /* # a: positions j <= i where a holds */
  CR_SHIFT, /* #[predK] a: a at i - v (0 for i < v) */
  CR_ADD, CR_SUB,
  CR_MUL,   /* v * a */
  CR_MIN, CR_MAX,
  CR_IF     /* a if b else c */
} cr_kind;

typedef struct cr_node {
  cr_kind k;
  int32_t a, b, c; /* children, -1 when absent */
  int64_t v;
  int64_t mk, mr;  /* CR_MODP */
  int32_t var;     /* CR_BVAR, CR_CVAR: statement index */
  int rel;         /* CR_CMP */
  int is_bool;
  int line, col;
  /* |value| <= amul * n + add at every position of a string of n tokens
   * (counts only), each saturated at CR_BOUND_MAX: below it, values fit in
   * int64 for n < 2^31 and the lowering's linear forms in its integers;
   * at it, the lowering refuses the statement, and the interpreter runs it
   * checking every sum and product (src/lang/crasp/eval.c). */
  int64_t amul, add;
} cr_node;

#define CR_BOUND_MAX ((int64_t)1 << 31)

typedef struct cr_stmt {
  char *name;
  int32_t first, root;
  int is_bool;
  int line, col;
} cr_stmt;

struct hs_crasp {
  cr_node *nodes;
  int32_t nnodes, capnodes;
  cr_stmt *stmts;
  int32_t nstmts, capstmts;
};

#endif
