/* SPDX-License-Identifier: MIT */
/* Formulas as a DAG (internal). The parser hash-conses every node, so a
 * repeated subformula is one node and is computed once by the evaluator
 * and by the compiler. Children always have smaller indices than their
 * parents: iterating nodes in index order is a topological order. */
#ifndef HS_FORMULA_H
#define HS_FORMULA_H

#include <stddef.h>
#include <stdint.h>

#include "hardsoft.h"

typedef enum hs_fop {
  HS_F_FALSE, HS_F_TRUE,
  HS_F_ATOM,                 /* sym */
  HS_F_FIRST, HS_F_LAST,     /* @first, @last */
  HS_F_MOD,                  /* @mod(k, r): i mod k = r */
  HS_F_NOT, HS_F_AND, HS_F_OR, HS_F_IMPLIES, HS_F_IFF,
  HS_F_NEXT, HS_F_YESTERDAY, /* X, Y */
  HS_F_EVENTUALLY, HS_F_ALWAYS, HS_F_ONCE, HS_F_HISTORICALLY, /* F G O H */
  HS_F_UNTIL, HS_F_SINCE,    /* a U b, a S b: a = left, b = right */
  HS_F_CMP,                  /* sum_t coef_t * count_t + c  REL  0 */
  HS_F_COUNT_
} hs_fop;

typedef enum hs_rel { HS_REL_LT, HS_REL_LE, HS_REL_EQ, HS_REL_NE,
                      HS_REL_GE, HS_REL_GT } hs_rel;

/* Whether v REL 0 holds. v is a 128-bit integer: the parser and the
 * ground truth sum int64 coefficients times counts in it without
 * overflow. */
__extension__ typedef __int128 hs_i128;
static inline int hs_rel_holds(hs_rel r, hs_i128 v) {
  switch (r) {
  case HS_REL_LT: return v < 0;
  case HS_REL_LE: return v <= 0;
  case HS_REL_EQ: return v == 0;
  case HS_REL_NE: return v != 0;
  case HS_REL_GE: return v >= 0;
  case HS_REL_GT: return v > 0;
  default: return 0;
  }
}

/* One counting factor of a comparison: coef * #<(arg) (past = 1) or
 * coef * #>(arg) (past = 0). */
typedef struct hs_count_term { int64_t coef; int past; int32_t arg; } hs_count_term;

typedef struct hs_node {
  hs_fop op;
  int32_t a, b;       /* children (node indices), -1 when absent */
  uint8_t sym;        /* HS_F_ATOM */
  int64_t k, r;       /* HS_F_MOD */
  hs_rel rel;         /* HS_F_CMP: (left - right) REL 0, normalised as */
  int64_t c;          /*   sum terms[t].coef * count + c  REL  0         */
  int32_t nterms;     /* like counts merged; zero coefficients dropped */
  hs_count_term *terms;
} hs_node;

typedef struct hs_formula {
  hs_node *nodes;
  int32_t count, cap;
  int32_t root;
  char *text;          /* the source text, as given */
  uint32_t *tab;       /* intern index: node + 1, 0 = empty; built on the
                          first hs_formula_find, dropped by a compaction */
  size_t tabcap;
} hs_formula;


/* Intern a node (hash-consing): returns the index of an equal node or a
 * new one; -1 on allocation failure. terms are copied. The one interning
 * path of every front end: those that check a new node before adding it
 * (depth limits) call its two halves, hs_formula_find then
 * hs_formula_add. */
int32_t hs_formula_intern(hs_formula *f, const hs_node *n);
/* The index of a node equal to n; -1 when there is none, -2 when out of
 * memory (the index could not grow). */
int32_t hs_formula_find(hs_formula *f, const hs_node *n);
/* Append n, which hs_formula_find just did not find, and index it; its
 * index, or -1 (out of memory, an invalid node). */
int32_t hs_formula_add(hs_formula *f, const hs_node *n);
/* Forget the index after nodes were renumbered (it is rebuilt when next
 * needed). */
void hs_formula_drop_index(hs_formula *f);
/* Print node `id` in the concrete syntax (fully parenthesised where
 * needed) into buf; returns the length that would have been written. */
size_t hs_formula_print(const hs_formula *f, int32_t id, char *buf, size_t len);
/* Which features the formula uses (for "not supported yet" errors). */
int hs_formula_has_op(const hs_formula *f, hs_fop op);
/* Nesting depth of temporal operators (0 for a Boolean formula). */
int hs_formula_temporal_depth(const hs_formula *f, int32_t id);

/* Every node at once: vals[node * n + (i-1)]; caller frees with free(). */
uint8_t *hs_truth_eval_all(const hs_formula *f, const uint8_t *w, size_t n);

#endif
