/* SPDX-License-Identifier: MIT */
/* The compiler's check between lowering and the schedule: what the
 * circuit asks of float32 weights and logits, refused with the reason
 * before any layer is built. */
#include <float.h>
#include <math.h>

#include "circuit/circuit.h"

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

int hs_circuit_check(const hs_circuit *C, hs_error *err) {
  if (check_coefficients(C, err) != 0) return -1;
  double lim = max_safe_scale(C);
  if (lim > 0 && C->o.scale > lim) {
    const char *why = C->o.mode == HS_MODE_REL ? "the relative bias slope is kept within 2^20"
                      : C->o.mode == HS_MODE_FIXED ? "its scores would overflow float32"
                      : "its scores would overflow float32 within n <= 2^23";
    return hs_errorf(err, HS_ERR_ARG, "--scale %g is too large for mode %s: %s; the largest "
                     "safe mu is %.4g", C->o.scale, hs_mode_name(C->o.mode), why, lim);
  }
  return 0;
}
