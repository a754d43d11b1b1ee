/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/phase.h"
#include "run/pool.h"

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

void hs_pool_init(hs_pool *p) {
  memset(p, 0, sizeof *p);
  atomic_init(&p->gen, 0);
  atomic_init(&p->pending, 0);
  atomic_init(&p->stop, 0);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
}

void hs_pool_run(hs_pool *p, int T, void (*fn)(void *, int), void *arg) {
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

void hs_pool_end(hs_pool *p) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  for (int k = 1; k <= p->started; k++) pthread_join(p->tid[k], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
}

int hs_split_init(hs_split *s, uint64_t N, int T) {
  if (T < 1) T = 1;
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  s->T = T;
  if (N >= (uint64_t)1 << 32) return 0;
  for (int k = 0; k < T; k++) {
    size_t a, b;
    hs_part_range((size_t)N, T, k, 1, &a, &b);
    atomic_init(&s->r[k].fe, (uint64_t)a << 32 | (uint64_t)b);
  }
  return 1;
}

int hs_split_next(hs_split *s, int k, uint64_t *chunk) {
  const uint64_t lo = 0xffffffffu;
  for (;;) {
    uint64_t v = atomic_load(&s->r[k].fe), f = v >> 32, e = v & lo;
    if (f < e) {
      if (atomic_compare_exchange_weak(&s->r[k].fe, &v, (f + 1) << 32 | e)) {
        *chunk = f;
        return 1;
      }
      continue;
    }
    /* own range empty: the back half of the fullest other range. Only its
     * owner stores into an empty range, so no other thread changes ours
     * meanwhile; a chunk leaves a range once, so a word never takes a
     * value it had before (no ABA). */
    int best = -1;
    uint64_t most = 0, bv = 0;
    for (int j = 0; j < s->T; j++) {
      uint64_t w = atomic_load(&s->r[j].fe), wf = w >> 32, we = w & lo;
      if (j != k && we > wf && we - wf > most) best = j, most = we - wf, bv = w;
    }
    if (best < 0) return 0;
    uint64_t wf = bv >> 32, we = bv & lo, mid = wf + (we - wf) / 2;
    if (!atomic_compare_exchange_strong(&s->r[best].fe, &bv, wf << 32 | mid)) continue;
    atomic_store(&s->r[k].fe, (mid + 1) << 32 | we);
    *chunk = mid;
    return 1;
  }
}

typedef struct hs_ranges {
  size_t n, c;
  int T;
  hs_range_fn fn;
  void *ctx;
  uint64_t *ticks;
} hs_ranges;

static void hs_range_task(void *arg, int k) {
  hs_ranges *A = arg;
  size_t lo, hi;
  uint64_t t0 = A->ticks ? hs_ticks() : 0;
  hs_part_range(A->n, A->T, k, A->c, &lo, &hi);
  if (lo < hi) A->fn(A->ctx, k, lo, hi);
  if (A->ticks) A->ticks[k] = hs_ticks() - t0;
}

void hs_pool_ranges(hs_pool *p, int T, size_t n, size_t c, hs_range_fn fn,
                    void *ctx, uint64_t *ticks) {
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  if (T < 1) T = 1;
  hs_ranges A = {n, c ? c : 1, T, fn, ctx, ticks};
  if (T == 1) hs_range_task(&A, 0);
  else hs_pool_run(p, T, hs_range_task, &A);
}
