/* SPDX-License-Identifier: MIT */
/* The forward pass of a model over one string, row by row on the
 * dispatched kernels: memory is O(n d), never O(n^2). */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/model.h"
#include "hardsoft/kernels.h"

/* x rounded to nearest even with an 11-bit (f16: 5-bit exponent, max
 * 65504, subnormals below 2^-14) or 8-bit (bf16: float's exponent)
 * significand. */
static double hs_round_score(double x, hs_score_round r) {
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

/* A pool of worker threads, one per runner: started on first use and kept
 * until hs_runner_free, so that each layer's two parallel phases
 * (projections, rows) cost a wake-up instead of a thread creation each
 * (~20-50 us per creation and join on the 2-core machine, against ~1.3 ms
 * for a whole two-thread pass of a S b at n = 4096). hs_pool_run(p, T, fn, arg) runs
 * fn(arg, k) for k = 0..T-1, k = 0 on the caller, and returns when all
 * have; a worker that could not be created is stood in for by the
 * caller, so every k runs exactly once whatever happens. */
#define HS_POOL_MAX 64
/* Waits spin this many pause instructions (~0.1-0.3 ms) before sleeping
 * on the condition variable: a pass's phases follow each other within
 * tens of microseconds, and a futex wake-up on this 2-core VM costs about
 * as much (measured: a S b, 2 threads, n = 1024: 214 us against 263 us on
 * one thread, ~80 us of it waking and waiting). */
#define HS_POOL_SPIN 8192
typedef struct hs_pool {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  pthread_t tid[HS_POOL_MAX];
  int started;           /* workers 1..started exist */
  atomic_ulong gen;      /* bumped by every run, after fn, arg and T */
  atomic_int pending;    /* workers still in the current run */
  atomic_int stop;
  int T;
  void (*fn)(void *, int);
  void *arg;
} hs_pool;

/* One step of a spin: a pause, and every 64th step a yield, so that a
 * spinning thread gives its core to the thread it waits for when the
 * machine has fewer free cores than threads (measured: depth-4 at
 * n = 4096 on 2 threads with another process busy took longer than one
 * thread when the waits only paused). */
static inline void hs_pause(int s) {
  if ((s & 63) == 63) {
    sched_yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void *hs_pool_worker(void *arg) {
  /* the pool, this worker's k, and the generation before its first run
   * (passed in: the run that created it bumps gen right after) */
  hs_pool *p = ((void **)arg)[0];
  int k = (int)(intptr_t)((void **)arg)[1];
  unsigned long seen = (unsigned long)(uintptr_t)((void **)arg)[2];
  free(arg);
  for (;;) {
    for (int s = 0; s < HS_POOL_SPIN && atomic_load(&p->gen) == seen &&
                    !atomic_load(&p->stop); s++)
      hs_pause(s);
    if (atomic_load(&p->gen) == seen && !atomic_load(&p->stop)) {
      pthread_mutex_lock(&p->mu);
      while (atomic_load(&p->gen) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->go, &p->mu);
      pthread_mutex_unlock(&p->mu);
    }
    if (atomic_load(&p->stop)) break;
    seen = atomic_load(&p->gen);
    /* written before gen was bumped; not rewritten before pending is 0 */
    if (k < p->T) p->fn(p->arg, k);
    if (atomic_fetch_sub(&p->pending, 1) == 1) {
      pthread_mutex_lock(&p->mu);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->mu);
    }
  }
  return NULL;
}

static void hs_pool_init(hs_pool *p) {
  memset(p, 0, sizeof *p);
  atomic_init(&p->gen, 0);
  atomic_init(&p->pending, 0);
  atomic_init(&p->stop, 0);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
}

static void hs_pool_run(hs_pool *p, int T, void (*fn)(void *, int), void *arg) {
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  if (T < 1) T = 1;
  /* start the missing workers; each first waits for the bump below */
  pthread_mutex_lock(&p->mu);
  while (p->started < T - 1) {
    void **a = malloc(3 * sizeof(void *));
    if (!a) break;
    a[0] = p;
    a[1] = (void *)(intptr_t)(p->started + 1);
    a[2] = (void *)(uintptr_t)atomic_load(&p->gen);
    if (pthread_create(&p->tid[p->started + 1], NULL, hs_pool_worker, a) != 0) {
      free(a);
      break;
    }
    p->started++;
  }
  int W = p->started; /* every started worker wakes; those with k >= T idle */
  p->fn = fn, p->arg = arg, p->T = T;
  atomic_store(&p->pending, W);
  atomic_fetch_add(&p->gen, 1);
  if (W > 0) pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  fn(arg, 0);
  for (int k = W + 1; k < T; k++) fn(arg, k); /* workers that do not exist */
  for (int s = 0; s < HS_POOL_SPIN && atomic_load(&p->pending) > 0; s++) hs_pause(s);
  if (atomic_load(&p->pending) > 0) {
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->pending) > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
  }
}

static void hs_pool_end(hs_pool *p) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  for (int k = 1; k <= p->started; k++) pthread_join(p->tid[k], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
}

/* HS_TWO_PASS: hs_run_opts.skip (the two-pass kernel and exact tile
 * skipping) exists for f32 only; f64 always runs the online kernel. */
#define REAL float
#define SFX f32
#define FMA_R fmaf
#define HS_TWO_PASS 1
#include "forward-impl.h"
#undef REAL
#undef SFX
#undef FMA_R
#undef HS_TWO_PASS
#define REAL double
#define SFX f64
#define FMA_R fma
#define HS_TWO_PASS 0
#include "forward-impl.h"
#undef REAL
#undef SFX
#undef FMA_R
#undef HS_TWO_PASS

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
