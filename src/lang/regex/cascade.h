/* SPDX-License-Identifier: MIT */
/* An aperiodic automaton as a circuit: the holonomy cascade of reset
 * levels, each level one "last reset before or at i" head (internal,
 * cascade.c). */
#ifndef HS_REGEX_CASCADE_H
#define HS_REGEX_CASCADE_H

#include <stddef.h>
#include <stdint.h>

#include "circuit/circuit.h"
#include "lang/lang.h"
#include "lang/regex/dfa.h"

/* The most image sets, and circuit nodes, a construction may have. */
#define RX_MAX_SETS 1024
#define RX_MAX_CIRCUIT (1 << 18)

typedef struct rx_cascade_info {
  int32_t sets;    /* image sets (with the singletons) */
  int32_t classes; /* their classes under subduction */
  int32_t levels;  /* the cascade's height: reset levels */
  int32_t letters; /* symbols with distinct actions */
  int32_t nodes, heads; /* the circuit the output needs */
} rx_cascade_info;

/* The circuit of d, whose transition monoid is aperiodic, into P (from
 * hs_prebuilt_new), the output node in *root: 1 at position i iff d
 * accepts the prefix w1..wi. Symbol s of d reads base symbol s / mod at
 * the positions i with i mod mod = s % mod (mod = 1: at every position);
 * base symbols 0 .. v->n - 1 are the vocabulary's tokens, v->n every
 * other token. 0; 1 past a limit (why says which); -1 out of memory. */
int rx_cascade(const rx_dfa *d, const hs_vocab *v, int32_t mod, hs_prebuilt *P,
               int32_t *root, rx_cascade_info *info, char *why, size_t whylen);

/* The automaton over symbols (c, r) = c * s + r that reads c at a
 * position i with i mod s = r and d's run on the c's, and rejects for
 * good when a position's r is wrong (so on every string it is read on,
 * it accepts what d does); minimized. 0, -1 out of memory, 1 too large. */
int rx_tagged(const rx_dfa *d, int32_t s, rx_dfa *out);

#endif
