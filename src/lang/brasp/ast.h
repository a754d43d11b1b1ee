/* SPDX-License-Identifier: MIT */
/* The parsed form of a B-RASP program (internal to src/lang/brasp): what
 * parse.c builds and eval.c and lower.c read. */
#ifndef HS_BRASP_AST_H
#define HS_BRASP_AST_H

#include <stdint.h>

#include "lang/brasp/brasp.h"

typedef enum br_eop {
  BR_CONST, /* val */
  BR_REF,   /* statement `ref` at the side's position */
  BR_TOK,   /* [w_pos = byte] at the side's position */
  BR_NOT, BR_AND, BR_OR
} br_eop;

/* Which position a vector is read at: the query i or the key j. Outside
 * attention operations everything is at i. */
enum { BR_SIDE_I = 0, BR_SIDE_J = 1 };

/* Parenthesis / ! nesting and expression-tree depth limit: the parser,
 * interpreter and lowering recurse over expressions. */
#define BR_MAX_NEST 1000

/* One expression node; children have smaller indices (a tree, built
 * bottom-up by the parser). */
typedef struct br_expr {
  br_eop op;
  uint8_t side, val, byte;
  int32_t a, b; /* children, -1 when absent */
  int32_t ref;  /* statement index (BR_REF) */
  int32_t depth; /* of the subtree (a leaf is 1), at most BR_MAX_NEST */
} br_expr;

typedef enum br_mask { BR_MASK_NONE, BR_MASK_LT, BR_MASK_LE, BR_MASK_GT,
                       BR_MASK_GE } br_mask;

typedef struct br_stmt {
  char *name;
  int line, column;    /* of the name */
  int attn;            /* 0: position-wise `e`; 1: attention s ? v : d */
  int rightmost;       /* attention: 1 = rightmost, 0 = leftmost */
  br_mask mask;
  int32_t e, s, v, d;  /* expression roots */
} br_stmt;

struct hs_brasp {
  br_stmt *st;
  int n, cap;
  br_expr *ex;
  int32_t nex, excap;
};

#endif
