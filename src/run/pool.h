/* SPDX-License-Identifier: MIT */
/* The forward pass's thread pool (pool.c). */
#ifndef HS_RUN_POOL_H
#define HS_RUN_POOL_H
#include <pthread.h>
#include <stdatomic.h>

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

void hs_pool_init(hs_pool *p);
void hs_pool_run(hs_pool *p, int T, void (*fn)(void *, int), void *arg);
void hs_pool_end(hs_pool *p);
#endif
