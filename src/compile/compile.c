/* SPDX-License-Identifier: MIT */
/* hs_compile, the pipeline from a formula to a model:
 *
 *   formula --lower--> circuit --coords, schedule--> sublayers
 *           --weights, assemble--> hs_model
 *
 * The front end adds the circuit's nodes: src/lang/ltl/lower.c for a
 * formula, or a circuit built when the program was read (C-RASP, B-RASP:
 * hs_formula.pre); from there on nothing knows which language the model
 * came from (src/circuit/). */
#include <float.h>
#include <math.h>

#include "base/error.h"
#include "circuit/circuit.h"
#include "lang/ltl/lower.h"

/* Weights are stored as float32: a comparison's coefficients (and its
 * constant, a half-integer after the sign's shift) must be floats exactly,
 * or the model decides a different comparison in every precision. */
static int check_coefficients(const hs_circuit *C, hs_error *err) {
  for (int i = 0; i < C->n; i++) {
    const hs_cnode *n = &C->c[i];
    if (n->kind != HS_C_SIGN) continue;
    for (int t = 0; t < n->nin; t++) {
      if ((double)(float)n->coef[t] == n->coef[t]) continue;
      char name[300];
      hs_circuit_name(C, i, name, sizeof name);
      int constant = t == n->nin - 1;
      hs_errorf(err, HS_ERR_UNSUPPORTED,
                "%s: the %s %.17g is not exact in the model's float32 weights "
                "(coefficients up to 2^24 = 16777216, constants up to 2^23 - 1 = "
                "8388607 in magnitude)", name, constant ? "constant" : "coefficient",
                constant ? fabs(n->coef[t]) - 0.5 : fabs(n->coef[t]));
      return -1;
    }
  }
  return 0;
}

/* The largest mu whose logits stay finite in float32 over the whole f32
 * exact region (n <= 2^23), or 0 when every mu is safe. Logits divided by
 * tau are at most: pe, temp: 3 mu n (the until family's -2 mu n at BOS on
 * top of mu j); rel: mu n of content plus mu (n + 1) of bias, and the
 * saved bias slope is limited to 2^20; fixed: 3 mu; the temperature sign:
 * K mu n ln(n+1) with K = 1 + the sum of |coefficients|. The softmax
 * subtracts two of them, hence the factor 2 on top. */
static double max_safe_scale(const hs_circuit *C) {
  double N = 0x1p23, lim = 0;
  switch (C->o.mode) {
    case HS_MODE_PE:
    case HS_MODE_TEMP: lim = FLT_MAX / (2 * 3 * N); break;
    case HS_MODE_REL: lim = 0x1p20; break;
    case HS_MODE_FIXED: lim = FLT_MAX / (2 * 3); break;
    default: return 0;
  }
  for (int i = 0; i < C->n; i++) {
    const hs_cnode *n = &C->c[i];
    if (n->kind != HS_C_SIGN || C->o.sign != HS_SIGN_TEMP) continue;
    double K = 1, nn = C->o.mode == HS_MODE_FIXED ? 1 : N * log(N + 1);
    for (int t = 0; t < n->nin; t++) K += fabs(n->coef[t]);
    if (FLT_MAX / (2 * K * nn) < lim) lim = FLT_MAX / (2 * K * nn);
  }
  return lim;
}

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

hs_model *hs_compile(const hs_formula *f, const hs_compile_opts *o,
                     hs_error *err) {
  if (!f || !o) {
    hs_errorf(err, HS_ERR_ARG, "hs_compile: no formula (a program whose lowering failed "
              "has none: hs_program_lowered says why)");
    return NULL;
  }
  if ((unsigned)o->mode >= HS_MODE_COUNT_) {
    hs_errorf(err, HS_ERR_ARG, "unknown mode");
    return NULL;
  }
  if (f->refuse) {
    hs_errorf(err, HS_ERR_UNSUPPORTED, "%s", f->refuse);
    return NULL;
  }
  if (o->mode != HS_MODE_HARD && !(o->scale > 0 && isfinite(o->scale))) {
    hs_errorf(err, HS_ERR_ARG, "--scale must be a positive number (got %g)", o->scale);
    return NULL;
  }
  hs_circuit C;
  hs_circuit_init(&C, o);
  hs_model *m = NULL;
  int root = f->pre ? from_prebuilt(&C, f->pre, o, err) : hs_ltl_lower(&C, f, err);
  double lim = root >= 0 ? max_safe_scale(&C) : 0;
  if (root < 0 || check_coefficients(&C, err) != 0) {
    /* err filled */
  } else if (lim > 0 && o->scale > lim) {
    const char *why = o->mode == HS_MODE_REL ? "the relative bias slope is kept within 2^20"
                      : o->mode == HS_MODE_FIXED ? "its scores would overflow float32"
                      : "its scores would overflow float32 within n <= 2^23";
    hs_errorf(err, HS_ERR_ARG, "--scale %g is too large for mode %s: %s; the largest "
              "safe mu is %.4g", o->scale, hs_mode_name(o->mode), why, lim);
  } else if (!(m = hs_circuit_assemble(&C, root))) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory while compiling");
  }
  hs_circuit_free(&C);
  return m;
}
