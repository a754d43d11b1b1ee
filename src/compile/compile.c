/* SPDX-License-Identifier: MIT */
/* hs_compile, the pipeline from a formula or program to a model, one
 * stage a call, each result named:
 *
 *   lower        the source -> circuit nodes, root the output
 *                (src/lang/ltl/lower.c; C-RASP, B-RASP and regular
 *                expressions built theirs when read, hs_prebuilt, which
 *                hs_program_compile hands to hs_compile_circuit)
 *   check        comparisons exact and logits finite in float32 (check.c)
 *   coordinates  a residual-stream coordinate per node (schedule.c)
 *   schedule     the sublayer of each node, hence nlayers (schedule.c)
 *   weights      the embedding and the positional features (assemble.c)
 *   layers       each layer's heads and ReLU units (assemble.c, weights.c)
 *   describe     the bound in words, the names (assemble.c)
 *
 * From lower on nothing knows which language the model came from
 * (src/circuit/). */
#include <math.h>

#include "base/error.h"
#include "circuit/circuit.h"
#include "lang/ltl/lower.h"

/* A circuit its front end built when the program was read: a copy under
 * these options (the temperature sign reads its keys and values off the
 * constant 1). */
static int from_prebuilt(hs_circuit *C, const hs_prebuilt *P, const hs_compile_opts *o,
                         hs_error *err) {
  if (hs_circuit_copy(C, &P->C, o) == 0) {
    int signs = 0;
    for (int i = 0; i < C->n; i++) signs |= C->c[i].kind == HS_C_SIGN;
    if (signs && o->sign == HS_SIGN_TEMP) hs_circuit_add(C, hs_cnode_blank(HS_C_TRUE, -1));
    if (!C->oom) return P->root;
  }
  return hs_errorf(err, HS_ERR_NOMEM, "out of memory while compiling");
}

/* The options as hs_compile takes them; -1 with err filled when not. */
static int refuse(const hs_compile_opts *o, hs_error *err) {
  if ((unsigned)o->mode >= HS_MODE_COUNT_) return hs_errorf(err, HS_ERR_ARG, "unknown mode");
  if (o->mode != HS_MODE_HARD && !(o->scale > 0 && isfinite(o->scale)))
    return hs_errorf(err, HS_ERR_ARG, "--scale must be a positive number (got %g)", o->scale);
  return 0;
}

hs_model *hs_circuit_assemble(hs_circuit *C, int root, hs_error *err) {
  hs_model *m = NULL;
  if (hs_circuit_coords(C) == 0) {
    int nlayers = hs_circuit_schedule(C);
    m = hs_circuit_embedding(C, nlayers);
    int failed = !m;
    for (int l = 0; !failed && l < nlayers; l++) failed = hs_circuit_layer(C, m, l) != 0;
    if (failed || C->oom || hs_circuit_describe(C, m, root) != 0) {
      hs_model_free(m);
      m = NULL;
    }
  }
  if (!m) hs_errorf(err, HS_ERR_NOMEM, "out of memory while compiling");
  return m;
}

/* The stages after lower, on circuit C with output node root (-1: lower
 * failed, err filled); frees C. */
static hs_model *lowered(hs_circuit *C, int root, hs_error *err) {
  hs_model *m = NULL;
  if (root >= 0 && hs_circuit_check(C, err) == 0) m = hs_circuit_assemble(C, root, err);
  hs_circuit_free(C);
  return m;
}

hs_model *hs_compile(const hs_formula *f, const hs_compile_opts *o, hs_error *err) {
  if (!f || !o) {
    hs_errorf(err, HS_ERR_ARG, "hs_compile: NULL argument (a program is compiled by "
              "hs_program_compile)");
    return NULL;
  }
  if (refuse(o, err) != 0) return NULL;
  hs_circuit C;
  hs_circuit_init(&C, o);
  return lowered(&C, hs_ltl_lower(&C, f, err), err);
}

hs_model *hs_compile_circuit(const hs_prebuilt *P, const hs_compile_opts *o, hs_error *err) {
  if (refuse(o, err) != 0) return NULL;
  hs_circuit C;
  hs_circuit_init(&C, o);
  return lowered(&C, from_prebuilt(&C, P, o, err), err);
}
