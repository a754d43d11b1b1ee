/* SPDX-License-Identifier: MIT */
/* The formula front end's lowering into the circuit (lower.c). */
#ifndef HS_LTL_LOWER_H
#define HS_LTL_LOWER_H

#include "circuit/circuit.h"
#include "lang/ltl/formula.h"

/* Adds f's root and everything it needs to C (whose options say the mode
 * and sign method); returns the root's circuit id, or -1 with err filled
 * (a construct the mode cannot compile, out of memory). */
int hs_ltl_lower(hs_circuit *C, const hs_formula *f, hs_error *err);

#endif
