/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
