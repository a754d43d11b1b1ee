/* SPDX-License-Identifier: MIT */
/* Simulating a given hard-attention model with softmax attention.
 *
 * THE TEMPERATURE LAW. At one query, let M be the maximal score, gamma the
 * smallest gap between M and any non-maximal score, and m >= 1 the number
 * of maximal positions among the at most n + 1 visible keys (BOS
 * included). Softmax at temperature tau gives each non-maximal key a
 * weight at most e^{-gamma/tau} / m, so the weight off the maximal
 * positions is at most (n + 1 - m) e^{-gamma/tau} / m < (n+1) e^{-gamma/tau},
 * and the weight on the maximal positions is spread EVENLY over them. With
 *     tau = gamma / (mu + ln(n + 1))
 * that bound is (n+1) e^{-mu} / (n+1) = e^{-mu} per head, at every n.
 * gamma is the smallest gap over every hard head, query and string seen
 * (hs_run_opts.want_gaps); one tau serves every head, since a smaller
 * gamma only makes a head's own bound smaller. When no hard head ever saw
 * two distinct scores (gamma infinite: every head uniform, or the strings
 * too short) softmax is exactly uniform at any temperature, and tau = 1.
 *
 * BREAKING TIES BY POSITION. Even spreading is the average-hard rule, so a
 * tied average-hard head is simulated as it is; a unique-hard head with
 * two maximal positions picks one of them, which softmax cannot. Such a
 * head (tied on the inputs) gets a position term first: delta * j/n added
 * to the score of key j for rightmost, -delta * j/n for leftmost. The
 * hard head still picks the same key j0, now as a unique maximum: with M
 * the maximal score and gamma the head's gap, the chosen key scores
 * M + delta j0/n, every other maximal key at most M + delta (j0 - 1)/n,
 * every non-maximal key at most M - gamma + delta (mirrored for
 * leftmost), so its gap becomes
 *     gamma' >= min(delta / n, gamma - delta) = gamma / (2n)   (delta = gamma/2)
 * (delta = 1 and gamma' >= 1/n when the head never saw two distinct
 * scores), and the temperature law applies to gamma'. The term is one
 * more query/key dimension, q = +-delta times a constant-1 feature and
 * k = the i/n feature, held in two coordinates appended to the residual
 * stream. The hard run it is compared with is the model as given.
 *
 * The weight error e^{-mu} also moves later layers' scores a little; the
 * models meant for simulation round attention outputs back to 0/1 in the
 * feed-forward layer before anything reads them, and the measured
 * per-layer deviation reports what actually happened. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/model.h"

const char *hs_head_class_name(hs_head_class c) {
  switch (c) {
    case HS_HEAD_SOFT: return "softmax";
    case HS_HEAD_UNIFORM: return "uniform";
    case HS_HEAD_TIELESS: return "tieless";
    case HS_HEAD_TIED: return "tied";
  }
  return "?";
}

/* Head h counted over all layers, the order of hs_run_result.head_stats. */
static const hs_head *head_at(const hs_model *m, int h) {
  for (int l = 0; l < m->nlayers; l++) {
    if (h < m->layers[l].nheads) return &m->layers[l].heads[h];
    h -= m->layers[l].nheads;
  }
  return NULL;
}

void hs_head_stats_init(hs_head_stats *acc, int nheads) {
  for (int h = 0; h < nheads; h++)
    acc[h] = (hs_head_stats){.gap = INFINITY, .tied = 0, .nonuniform = 0};
}

void hs_head_stats_merge(hs_head_stats *acc, const hs_head_stats *run,
                         int nheads) {
  for (int h = 0; h < nheads; h++) {
    if (run[h].gap < acc[h].gap) acc[h].gap = run[h].gap;
    acc[h].tied |= run[h].tied;
    acc[h].nonuniform |= run[h].nonuniform;
  }
}

hs_head_class hs_head_classify(const hs_model *m, int h,
                               const hs_head_stats *st) {
  const hs_head *H = head_at(m, h);
  if (!H || H->kind == HS_ATTN_SOFTMAX) return HS_HEAD_SOFT;
  /* uniform first: a head whose scores are all equal is tied too (when a
   * query sees two keys), but softmax reproduces it exactly if it is
   * average-hard; hs_head_tied_unique flags the unique-hard case */
  if (!st[h].nonuniform) return HS_HEAD_UNIFORM;
  return st[h].tied ? HS_HEAD_TIED : HS_HEAD_TIELESS;
}

int hs_head_tied_unique(const hs_model *m, int h, const hs_head_stats *st) {
  const hs_head *H = head_at(m, h);
  return H && (H->kind == HS_ATTN_HARD_LEFT || H->kind == HS_ATTN_HARD_RIGHT) &&
         st[h].tied;
}

double hs_sim_gamma(const hs_model *m, const hs_head_stats *st) {
  double g = INFINITY;
  int nh = hs_model_nheads(m);
  for (int h = 0; h < nh; h++)
    if (head_at(m, h)->kind != HS_ATTN_SOFTMAX && st[h].gap < g) g = st[h].gap;
  return g;
}

/* tau = gamma / (mu + ln(n+1)): weight off the maximal positions <=
 * (n+1) e^{-gamma/tau} = e^{-mu} per head (see the top of this file). */
double hs_sim_tau(double gamma, double mu, size_t n) {
  if (!(gamma > 0) || !(mu > 0) || !isfinite(mu)) return 0;
  if (isinf(gamma)) return 1; /* every score equal: any tau is exact */
  double tau = gamma / (mu + log((double)n + 1));
  return tau > 0 && isfinite(tau) ? tau : 0;
}

hs_model *hs_simulate_soft_model(const hs_model *hard, double tau, hs_error *err) {
  if (!hard || !(tau > 0) || !isfinite(tau)) {
    hs_errorf(err, HS_ERR_ARG, "no softmax model at tau = %g: tau must be positive and finite", tau);
    return NULL;
  }
  hs_model *m = hs_model_clone(hard);
  if (!m) {
    hs_errorf(err, HS_ERR_NOMEM, "out of memory copying the model");
    return NULL;
  }
  for (int l = 0; l < m->nlayers; l++)
    for (int h = 0; h < m->layers[l].nheads; h++) {
      hs_head *H = &m->layers[l].heads[h];
      if (H->kind == HS_ATTN_SOFTMAX) continue;
      H->target = H->kind; /* attention error is measured against it */
      H->kind = HS_ATTN_SOFTMAX;
      H->tau_law = HS_TAU_CONST;
      H->tau_c = tau;
    }
  char desc[200];
  snprintf(desc, sizeof desc,
           "softmax at tau = %.6g standing in for the hard heads: weight off "
           "the maximal positions <= (n+1) e^(-gamma/tau)", tau);
  char *mode = malloc(sizeof "custom"), *bd = malloc(strlen(desc) + 1);
  if (!mode || !bd) {
    free(mode);
    free(bd);
    hs_model_free(m);
    hs_errorf(err, HS_ERR_NOMEM, "out of memory copying the model");
    return NULL;
  }
  memcpy(mode, "custom", sizeof "custom");
  memcpy(bd, desc, strlen(desc) + 1);
  free(m->mode);
  free(m->bound_desc);
  m->mode = mode;
  m->bound_desc = bd;
  return m;
}

/* Head h counted over all layers, to modify. */
static hs_head *head_mut(hs_model *m, int h) {
  return (hs_head *)head_at(m, h);
}

/* One more query/key row: q gains delta at coordinate `one`, k gains 1 at
 * coordinate `pos`. */
static int add_qk_row(hs_head *H, size_t d, int32_t one, int32_t pos, double delta) {
  size_t dk = (size_t)H->dk;
  float *q = realloc(H->wq, (dk + 1) * d * sizeof *q);
  if (q) H->wq = q;
  float *k = realloc(H->wk, (dk + 1) * d * sizeof *k);
  if (k) H->wk = k;
  if (!q || !k) return -1;
  memset(q + dk * d, 0, d * sizeof *q);
  memset(k + dk * d, 0, d * sizeof *k);
  q[dk * d + (size_t)one] = (float)delta;
  k[dk * d + (size_t)pos] = 1;
  H->dk++;
  return 0;
}

hs_model *hs_sim_break_ties(const hs_model *hard, const hs_head_stats *st,
                            int *broken, hs_error *err) {
  *broken = 0;
  hs_model *m = hs_model_clone(hard);
  int32_t one = hard->d, pos = hard->d + 1;
  if (!m || hs_model_widen(m, 2) || hs_model_add_pf(m, HS_PF_ONE, one, 0, 0) ||
      hs_model_add_pf(m, HS_PF_I_OVER_N, pos, 0, 0))
    goto oom;
  if (m->coord_names) {
    m->coord_names[one] = strdup("tie-break: constant 1");
    m->coord_names[pos] = strdup("tie-break: position i/n");
    if (!m->coord_names[one] || !m->coord_names[pos]) goto oom;
  }
  for (int h = 0; h < hs_model_nheads(m); h++) {
    if (!hs_head_tied_unique(hard, h, st)) continue;
    hs_head *H = head_mut(m, h);
    if (H->dk >= HS_ATTN_MAX_D) {
      hs_errorf(err, HS_ERR_ARG, "head %d has dk = %d: no room for the tie-breaking "
               "position term (dk <= %d)", h, H->dk, HS_ATTN_MAX_D);
      hs_model_free(m);
      return NULL;
    }
    /* delta = gamma / 2 (see the top of this file) */
    double delta = isfinite(st[h].gap) ? st[h].gap / 2 : 1;
    if (add_qk_row(H, (size_t)m->d, one, pos, H->kind == HS_ATTN_HARD_LEFT ? -delta : delta))
      goto oom;
    ++*broken;
  }
  return m;
oom:
  hs_errorf(err, HS_ERR_NOMEM, "out of memory breaking the ties of the model");
  hs_model_free(m);
  return NULL;
}

void hs_sim_result_free(hs_sim_result *r) {
  free(r->heads);
  free(r->heads_before);
  free(r->deviation);
  memset(r, 0, sizeof *r);
}

/* hs_sim_opts.progress: one more pass done of *total */
static void sim_tick(const hs_sim_opts *o, uint64_t *done, uint64_t total) {
  ++*done;
  if (o->progress) o->progress(o->progress_ctx, *done, total);
}

/* Merge into st the score gaps of m's hard heads over every string. */
static int measure_gaps(const hs_model *m, size_t count, const uint8_t *const *w,
                        const size_t *len, const hs_sim_opts *o, hs_head_stats *st,
                        uint64_t *done, uint64_t total, hs_error *err) {
  hs_run_opts ho = {.precision = o->precision, .kernels = o->kernels, .want_gaps = 1};
  hs_runner *r = hs_runner_new(m, &ho, err);
  if (!r) return -1;
  int rc = 0;
  for (size_t s = 0; s < count && rc == 0; s++) {
    hs_run_result out;
    rc = hs_runner_run(r, w[s], len[s], &out, err);
    if (rc == 0) {
      hs_head_stats_merge(st, out.head_stats, hs_model_nheads(m));
      hs_run_result_free(&out);
      sim_tick(o, done, total);
    }
  }
  hs_runner_free(r);
  return rc;
}

/* Pass 1: the hard model's score gaps over every string; then again on
 * the model with its ties broken (*tb, kept for pass 2), if a unique-hard
 * head was tied; then gamma, tau and the bound they give. */
static int sim_gaps(const hs_model *hard, size_t count, const uint8_t *const *w,
                    const size_t *len, const hs_sim_opts *o, hs_sim_result *res,
                    hs_model **tb, uint64_t *done, uint64_t *total, hs_error *err) {
  int nh = res->nheads;
  if (measure_gaps(hard, count, w, len, o, res->heads, done, *total, err)) return -1;
  for (size_t s = 0; s < count; s++)
    if (len[s] > res->n) res->n = len[s];
  res->gamma_before = hs_sim_gamma(hard, res->heads);
  memcpy(res->heads_before, res->heads, (size_t)nh * sizeof *res->heads);
  if (!(*tb = hs_sim_break_ties(hard, res->heads_before, &res->ties_broken, err)))
    return -1;
  if (res->ties_broken) {
    hs_head_stats_init(res->heads, nh);
    *total += count;
    if (measure_gaps(*tb, count, w, len, o, res->heads, done, *total, err)) return -1;
  }
  res->gamma_measured = hs_sim_gamma(hard, res->heads);
  res->gamma = o->gamma > 0 ? o->gamma : res->gamma_measured;
  res->tau = hs_sim_tau(res->gamma, o->scale, res->n);
  if (!(res->tau > 0)) {
    return hs_errorf(err, HS_ERR_ARG, "no usable temperature: gamma = %g, mu = %g, n = %zu "
                     "give tau = %g / (%g + ln %zu), which is not a positive number",
                     res->gamma, o->scale, res->n, res->gamma, o->scale, res->n + 1);
  }
  /* the guarantee for the measured gaps, whatever gamma chose tau */
  res->bound = isinf(res->gamma_measured)
                   ? 0
                   : fmin(1, ((double)res->n + 1) * exp(-res->gamma_measured / res->tau));
  return 0;
}

/* String s's hard run a against its softmax run b (keep_layers): the
 * largest deviation per layer over the hard model's d coordinates (the
 * soft model may be wider: the tie-breaking coordinates come last), the
 * attention error, and the decisions. */
static void sim_compare(const hs_model *hard, const hs_model *soft, size_t s, size_t n,
                        const hs_run_result *a, const hs_run_result *b,
                        hs_sim_result *res) {
  size_t d = (size_t)hard->d, ds = (size_t)soft->d;
  for (int l = 0; l < hard->nlayers; l++) {
    const double *x = a->layers + (size_t)l * (n + 1) * d;
    const double *y = b->layers + (size_t)l * (n + 1) * ds;
    double dev = res->deviation[l];
    for (size_t i = 0; i <= n; i++)
      for (size_t k = 0; k < d; k++) {
        double e = fabs(x[i * d + k] - y[i * ds + k]);
        if (isnan(e)) e = INFINITY; /* a NaN is as far off as it gets */
        if (e > dev) dev = e;
      }
    res->deviation[l] = dev;
    if (b->attn_error[l] > res->attn_error) res->attn_error = b->attn_error[l];
  }
  for (size_t i = 0; i < n; i++) {
    if (a->bits[i] == b->bits[i]) {
      res->agree++;
    } else if (res->bad_pos == 0) { /* positions are 1-based: 0 = none yet */
      res->bad_string = s;
      res->bad_pos = i + 1;
    }
  }
  res->positions += n;
  res->strings++;
}

/* Pass 2: the hard and the softmax model side by side, layer by layer.
 * The hard run is repeated rather than kept from pass 1, so memory stays
 * O(n d) per layer for one string at a time. */
static int sim_side_by_side(const hs_model *hard, const hs_model *soft, size_t count,
                            const uint8_t *const *w, const size_t *len,
                            const hs_sim_opts *o, hs_sim_result *res, uint64_t *done,
                            uint64_t total, hs_error *err) {
  hs_run_opts ko = {.precision = o->precision, .kernels = o->kernels, .keep_layers = 1};
  hs_run_opts so = ko;
  so.want_attn_error = 1;
  hs_runner *rh = hs_runner_new(hard, &ko, err);
  hs_runner *rs = rh ? hs_runner_new(soft, &so, err) : NULL;
  int rc = rs ? 0 : -1;
  for (size_t s = 0; s < count && rc == 0; s++) {
    hs_run_result a, b;
    if (hs_runner_run(rh, w[s], len[s], &a, err) != 0) {
      rc = -1;
      break;
    }
    sim_tick(o, done, total);
    if (hs_runner_run(rs, w[s], len[s], &b, err) != 0) {
      hs_run_result_free(&a);
      rc = -1;
      break;
    }
    sim_tick(o, done, total);
    sim_compare(hard, soft, s, len[s], &a, &b, res);
    hs_run_result_free(&a);
    hs_run_result_free(&b);
  }
  hs_runner_free(rh);
  hs_runner_free(rs);
  return rc;
}

int hs_simulate(const hs_model *hard, size_t count, const uint8_t *const *w,
                const size_t *len, const hs_sim_opts *o, hs_sim_result *res,
                hs_error *err) {
  memset(res, 0, sizeof *res);
  if (!(o->scale > 0) || !isfinite(o->scale)) {
    hs_errorf(err, HS_ERR_ARG, "the scale mu must be a positive number");
    return -1;
  }
  if (!(o->gamma >= 0) || !isfinite(o->gamma)) {
    hs_errorf(err, HS_ERR_ARG, "gamma must be a positive number (or 0: measure it)");
    return -1;
  }
  int nh = hs_model_nheads(hard), nl = hard->nlayers;
  res->nheads = nh;
  res->nlayers = nl;
  res->heads = calloc((size_t)(nh ? nh : 1), sizeof *res->heads);
  res->heads_before = calloc((size_t)(nh ? nh : 1), sizeof *res->heads_before);
  res->deviation = calloc((size_t)(nl ? nl : 1), sizeof *res->deviation);
  hs_model *soft = NULL, *tb = NULL;
  if (!res->heads || !res->heads_before || !res->deviation) goto oom;
  hs_head_stats_init(res->heads, nh);
  uint64_t done = 0, total = 3 * (uint64_t)count;
  if (sim_gaps(hard, count, w, len, o, res, &tb, &done, &total, err)) goto fail;
  if (!(soft = hs_simulate_soft_model(res->ties_broken ? tb : hard, res->tau, NULL))) goto oom;
  if (sim_side_by_side(hard, soft, count, w, len, o, res, &done, total, err)) goto fail;
  hs_model_free(soft);
  hs_model_free(tb);
  return 0;
oom:
  hs_errorf(err, HS_ERR_NOMEM, "out of memory simulating the model");
fail:
  hs_model_free(soft);
  hs_model_free(tb);
  hs_sim_result_free(res);
  return -1;
}
