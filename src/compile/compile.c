/* SPDX-License-Identifier: MIT */
/* hs_compile, the pipeline from a formula to a model:
 *
 *   formula --lower--> circuit --coords, schedule--> sublayers
 *           --weights, assemble--> hs_model
 *
 * The front end (src/lang/ltl/lower.c; C-RASP and B-RASP programs arrive
 * here as formulas) adds the circuit's nodes; from there on nothing knows
 * which language the model came from (src/circuit/). */
#include <math.h>

#include "base/error.h"
#include "circuit/circuit.h"
#include "lang/ltl/lower.h"

hs_model *hs_compile(const hs_formula *f, const hs_compile_opts *o,
                     hs_error *err) {
  if ((unsigned)o->mode >= HS_MODE_COUNT_) {
    hs_errorf(err, HS_ERR_ARG, "unknown mode");
    return NULL;
  }
  if (o->mode != HS_MODE_HARD && !(o->scale > 0 && isfinite(o->scale))) {
    hs_errorf(err, HS_ERR_ARG, "--scale must be a positive number (got %g)", o->scale);
    return NULL;
  }
  hs_circuit C;
  hs_circuit_init(&C, o);
  hs_model *m = NULL;
  int root = hs_ltl_lower(&C, f, err);
  if (root >= 0 && !(m = hs_circuit_assemble(&C, root)))
    hs_errorf(err, HS_ERR_NOMEM, "out of memory while compiling");
  hs_circuit_free(&C);
  return m;
}
