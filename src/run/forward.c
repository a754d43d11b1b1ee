/* SPDX-License-Identifier: MIT */
/* The forward pass of a model over one string, row by row on the
 * dispatched kernels: memory is O(n d), never O(n^2). */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "base/error.h"
#include "model/model.h"
#include "hardsoft/kernels.h"
#include "run/buffers.h"
#include "run/phase.h"
#include "run/pool.h"
#include "run/round-bits.h"
#include "run/rows.h"

/* x rounded to nearest even with an 11-bit (f16: 5-bit exponent, max
 * 65504, subnormals below 2^-14) or 8-bit (bf16: float's exponent)
 * significand. */
static double hs_round_score(double x, hs_score_round r) {
  double y;
  if (hs_round_bits(x, r, &y)) return y;
  if (r == HS_ROUND_NONE || !isfinite(x) || x == 0) return x;
  int bits = r == HS_ROUND_F16 ? 11 : 8, e;
  frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
  if (r == HS_ROUND_F16) {
    if (e < -13) e = -13; /* subnormal f16: fixed spacing 2^-24 */
    if (fabs(x) >= 65520.0) return copysign(INFINITY, x);
  } else {
    float f = (float)x; /* bf16 rounds from the float value */
    x = f;
  }
  double q = ldexp(1.0, e - bits); /* spacing of the format near x */
  return nearbyint(x / q) * q;
}

int hs_precision_parse(const char *name, hs_precision *prec,
                       hs_score_round *score_round, hs_score_round *qkv_round) {
  static const struct { const char *name; hs_precision p; hs_score_round s, q; } t[] = {
      {"f64", HS_PREC_F64, HS_ROUND_NONE, HS_ROUND_NONE},
      {"f32", HS_PREC_F32, HS_ROUND_NONE, HS_ROUND_NONE},
      {"f16s", HS_PREC_F32, HS_ROUND_F16, HS_ROUND_NONE},
      {"bf16s", HS_PREC_F32, HS_ROUND_BF16, HS_ROUND_NONE},
      {"f16", HS_PREC_F32, HS_ROUND_NONE, HS_ROUND_F16},
      {"bf16", HS_PREC_F32, HS_ROUND_NONE, HS_ROUND_BF16},
  };
  for (size_t k = 0; name && k < sizeof t / sizeof t[0]; k++)
    if (strcmp(name, t[k].name) == 0) {
      *prec = t[k].p, *score_round = t[k].s, *qkv_round = t[k].q;
      return 0;
    }
  return -1;
}

/* The pass, once per working precision. */
#define REAL_F32 1
#include "real-begin.h"
#include "forward-impl.h"
#include "real-end.h"
#define REAL_F32 0
#include "real-begin.h"
#include "forward-impl.h"
#include "real-end.h"

struct hs_runner {
  const hs_model *m;
  hs_run_opts o;
  wts_f32 w32;
  wts_f64 w64;
  hs_pool pool;
};

void hs_run_result_free(hs_run_result *r) {
  free(r->bits);
  free(r->values);
  free(r->attn_error);
  free(r->layers);
  free(r->head_stats);
  memset(r, 0, sizeof *r);
}

void hs_runner_free(hs_runner *r) {
  if (!r) return;
  hs_pool_end(&r->pool);
  if (r->o.precision == HS_PREC_F64) wts_free_f64(&r->w64, r->m);
  else wts_free_f32(&r->w32, r->m);
  free(r);
}

hs_runner *hs_runner_new(const hs_model *m, const hs_run_opts *o, hs_error *err) {
  static const hs_run_opts defaults; /* all zero: f32, AUTO, one thread */
  if (!o) o = &defaults;
  hs_runner *r = calloc(1, sizeof *r);
  if (!r) goto oom;
  r->m = m;
  r->o = *o;
  hs_pool_init(&r->pool);
  if (!r->o.kernels) r->o.kernels = hs_kernels_default(NULL);
  if (!r->o.kernels) r->o.kernels = hs_kernels_for(HS_ISA_SCALAR);
  if ((o->precision == HS_PREC_F64 ? wts_make_f64(&r->w64, m)
                                   : wts_make_f32(&r->w32, m)) == 0)
    return r;
oom:
  hs_runner_free(r);
  hs_errorf(err, HS_ERR_NOMEM, "out of memory preparing the model's weights");
  return NULL;
}

int hs_runner_run(hs_runner *r, const uint8_t *w, size_t n, hs_run_result *res,
                  hs_error *err) {
  const hs_model *m = r->m;
  memset(res, 0, sizeof *res);
  res->bits = calloc(n ? n : 1, 1);
  res->values = calloc(n ? n : 1, sizeof(double));
  if (r->o.want_attn_error)
    res->attn_error = calloc((size_t)(m->nlayers ? m->nlayers : 1), sizeof(double));
  int nh = 0;
  for (int l = 0; l < m->nlayers; l++) nh += m->layers[l].nheads;
  if (r->o.keep_layers) {
    size_t per = (n + 1) * (size_t)m->d;
    if ((size_t)m->nlayers > 0 && per > SIZE_MAX / sizeof(double) / (size_t)m->nlayers)
      goto oom;
    res->layers = malloc((size_t)(m->nlayers ? m->nlayers : 1) * per * sizeof(double));
    if (!res->layers) goto oom;
  }
  if (r->o.want_gaps) {
    res->head_stats = calloc((size_t)(nh ? nh : 1), sizeof *res->head_stats);
    if (!res->head_stats) goto oom;
    for (int h = 0; h < nh; h++) res->head_stats[h].gap = INFINITY;
  }
  int rc = -1;
  /* relative-bias heads take key positions as int32 (the kernels' d0 + j) */
  for (int l = 0; l < m->nlayers && n > ((size_t)1 << 31) - 4; l++)
    for (int h = 0; h < m->layers[l].nheads; h++)
      if (m->layers[l].heads[h].bias_slope != 0) {
        hs_run_result_free(res);
        hs_errorf(err, HS_ERR_LIMIT, "a string of %zu symbols is too long for a model "
                 "with relative positions (at most 2^31 - 4)", n);
        return -1;
      }
  if (res->bits && res->values && (!r->o.want_attn_error || res->attn_error))
    rc = r->o.precision == HS_PREC_F64
             ? forward_f64(m, &r->w64, w, n, &r->o, r->o.kernels, &r->pool, res)
             : forward_f32(m, &r->w32, w, n, &r->o, r->o.kernels, &r->pool, res);
  if (rc == 0) return 0;
oom:
  hs_run_result_free(res);
  hs_errorf(err, HS_ERR_NOMEM, "out of memory running the model on a string of %zu symbols", n);
  return -1;
}

int hs_forward(const hs_model *m, const uint8_t *w, size_t n,
               const hs_run_opts *o, hs_run_result *res, hs_error *err) {
  memset(res, 0, sizeof *res);
  hs_runner *r = hs_runner_new(m, o, err);
  if (!r) return -1;
  int rc = hs_runner_run(r, w, n, res, err);
  hs_runner_free(r);
  return rc;
}
