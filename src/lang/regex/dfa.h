/* SPDX-License-Identifier: MIT */
/* Deterministic automata of regular expressions (internal, dfa.c). */
#ifndef HS_REGEX_DFA_H
#define HS_REGEX_DFA_H

#include <stdint.h>

#include "base/error.h"
#include "lang/regex/ast.h"

/* A complete deterministic automaton over symbols 0..k-1, start state 0:
 * next[q * k + c] is the state after reading c in q. */
typedef struct rx_dfa {
  int32_t n, k;
  int32_t *next;
  uint8_t *acc;
} rx_dfa;

/* The most states an automaton (or the subset construction building
 * one) may have, and the most steps all constructions of one expression
 * may take: past either the expression is refused with one line. */
#define RX_MAX_STATES (1 << 16)
#define RX_MAX_WORK ((int64_t)1 << 28)

/* The minimal complete automaton of t over k symbols (the whole alphabet;
 * sets resolve against it), its states numbered breadth-first from the
 * start (so two equal languages give equal automata). 0, or -1 with err
 * filled (a limit, naming the construct where it was passed). */
int rx_build(const rx_ast *t, int k, rx_dfa *out, hs_error *err);
/* Adds symbol k (every token outside the alphabet), which leads to a
 * rejecting state no symbol leaves, and minimizes: the automaton the
 * model and the interpreter run. 0, or -1 (out of memory). */
int rx_add_other(rx_dfa *d);
/* d minimized in place (Hopcroft), states renumbered breadth-first from
 * the start. 0, or -1 out of memory. */
int rx_minimize(rx_dfa *d);
/* The state no accepting state is reachable from, or -1. */
int32_t rx_dead_state(const rx_dfa *d);
void rx_dfa_free(rx_dfa *d);

#endif
