/* SPDX-License-Identifier: MIT */
/* The attention-error bounds as queries, for a mode and scale or for a
 * model (compiled, or loaded: read from its mode, scale and heads): the
 * largest weight a head may put off its hard target. The constructions
 * they bound, and why the bounds hold, are in src/circuit/weights.c. */
#include <math.h>

#include "model/model.h"

static double series(double mu) { return 2 * exp(-mu) / -expm1(-mu); }

double hs_bound_at(hs_mode mode, double scale, size_t n) {
  if (mode == HS_MODE_HARD) return 0;
  double mu = scale;
  if (mode == HS_MODE_FIXED) mu = scale / (double)(n ? n : 1);
  if (!(mu > 0)) return 1;
  double S = series(mu);
  return S / (1 + S);
}

/* The weight off target is at most S/(1+S) with S = series(mu): below 1/4
 * (the decision exact) exactly when S < 1/3, i.e. mu >= ln 7; fixed mode
 * has mu / n in place of mu. */
double hs_mode_exact_max_n(hs_mode mode, double scale) {
  if (mode == HS_MODE_HARD) return INFINITY;
  if (mode == HS_MODE_FIXED) return floor(scale / log(7.0));
  return scale >= log(7.0) ? INFINITY : 0;
}

/* (n+1)^{1 - mu/4}: the temperature sign's weight off [u > 0], n >= 1. */
double hs_sign_bound(double mu, size_t n) {
  double b = pow((double)(n ? n : 1) + 1, 1 - mu / 4);
  return b < 1 ? b : 1;
}

int hs_model_has_temp_sign(const hs_model *m) {
  for (int l = 0; l < m->nlayers; l++)
    for (int h = 0; h < m->layers[l].nheads; h++)
      if (m->layers[l].heads[h].tau_law == HS_TAU_INV_NLOGN) return 1;
  return 0;
}

double hs_model_bound_at(const hs_model *m, size_t n) {
  /* the temporal bound grows with n (fixed) or is constant; the sign's
   * shrinks, so its worst length is n = 1 */
  int mode = m->mode ? hs_mode_parse(m->mode) : HS_MODE_HARD;
  /* a mode this library does not name (a model file from elsewhere):
   * bounded like pe, as the construction of every soft mode but fixed */
  double b = hs_bound_at(mode < 0 ? HS_MODE_PE : (hs_mode)mode, m->scale, n);
  if (mode != HS_MODE_HARD && hs_model_has_temp_sign(m)) {
    double s = hs_sign_bound(m->scale, 1);
    if (s > b) b = s;
  }
  return b;
}
