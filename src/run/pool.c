/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* sched_getcpu */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A slot's states in its low two bits (slot[k] = 4 * gen + state): open
 * for the run gen, taken by its worker, done (by the worker, or taken
 * and run by the caller). The caller opens the slot and closes it; a
 * worker takes it only with a compare-exchange from open, so a worker
 * that wakes after the caller closed it, or several runs later, runs
 * nothing stale. */
enum { HS_SLOT_OPEN, HS_SLOT_TAKEN, HS_SLOT_DONE };

/* The core this thread runs on, -1 where that is not known. */
static int hs_cpu(void) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  return sched_getcpu();
#else
  return -1;
#endif
}

/* Waits until the pool's generation differs from seen or it stops:
 * spins, then sleeps on go. A worker that finds itself on the caller's
 * core sleeps at once: spinning there only delays the caller, and a
 * spinning thread is never placed again, while a sleeping one is, on an
 * idle core, when it is woken (measured: a worker started on the
 * caller's core stayed there through a whole bench point, 1.0x one
 * thread on a S b at n = 4096, on an otherwise idle machine). */
static void hs_pool_await(hs_pool *p, unsigned long seen) {
  for (int s = 0; s < HS_POOL_SPIN && atomic_load(&p->gen) == seen &&
                  !atomic_load(&p->stop); s++) {
    int c;
    if ((s & 63) == 62 && (c = hs_cpu()) >= 0 && c == atomic_load(&p->caller_cpu)) break;
    hs_pause(s);
  }
  if (atomic_load(&p->gen) == seen && !atomic_load(&p->stop)) {
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1);
    while (atomic_load(&p->gen) == seen && !atomic_load(&p->stop))
      pthread_cond_wait(&p->go, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
  }
}

static void *hs_pool_worker(void *arg) {
  /* the pool, this worker's k, and the generation before its first run
   * (passed in: the run that created it bumps gen right after) */
  hs_pool *p = ((void **)arg)[0];
  int k = (int)(intptr_t)((void **)arg)[1];
  unsigned long seen = (unsigned long)(uintptr_t)((void **)arg)[2];
  free(arg);
  for (;;) {
    hs_pool_await(p, seen);
    if (atomic_load(&p->stop)) break;
    seen = atomic_load(&p->gen);
    uint_fast64_t open = 4 * (uint_fast64_t)seen + HS_SLOT_OPEN;
    if (!atomic_compare_exchange_strong(&p->slot[k].v, &open, open + HS_SLOT_TAKEN))
      continue; /* closed by the caller, not opened (k >= T, a warm-up) */
    /* fn and arg were written before the slot was opened, and stay until
     * it is done */
    p->fn(p->arg, k);
    atomic_store(&p->slot[k].v, open + HS_SLOT_DONE);
    if (atomic_load(&p->waiting)) {
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
  atomic_init(&p->stop, 0);
  atomic_init(&p->sleepers, 0);
  atomic_init(&p->waiting, 0);
  atomic_init(&p->caller_cpu, -1);
  for (int k = 0; k < HS_POOL_MAX; k++) atomic_init(&p->slot[k].v, HS_SLOT_DONE);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
}

/* Bumps the generation after the slots are set, and wakes the sleepers. */
static void hs_pool_bump(hs_pool *p) {
  atomic_fetch_add(&p->gen, 1);
  if (atomic_load(&p->sleepers) > 0) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
  }
}

void hs_pool_warm(hs_pool *p) {
  if (atomic_load(&p->sleepers) > 0) hs_pool_bump(p);
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
  pthread_mutex_unlock(&p->mu);
  int W = p->started < T - 1 ? p->started : T - 1; /* workers with a slot */
  atomic_store(&p->caller_cpu, hs_cpu());
  uint_fast64_t open = 4 * ((uint_fast64_t)atomic_load(&p->gen) + 1);
  p->fn = fn, p->arg = arg;
  for (int k = 1; k <= W; k++) atomic_store(&p->slot[k].v, open + HS_SLOT_OPEN);
  if (W > 0) hs_pool_bump(p);
  fn(arg, 0);
  for (int k = W + 1; k < T; k++) fn(arg, k); /* workers that do not exist */
  for (int k = 1; k <= W; k++) {
    uint_fast64_t o = open + HS_SLOT_OPEN;
    if (atomic_compare_exchange_strong(&p->slot[k].v, &o, open + HS_SLOT_DONE))
      fn(arg, k); /* its worker has not come */
  }
  for (int k = 1; k <= W; k++) {
    for (int s = 0; s < HS_POOL_SPIN && atomic_load(&p->slot[k].v) != open + HS_SLOT_DONE; s++)
      hs_pause(s);
    if (atomic_load(&p->slot[k].v) == open + HS_SLOT_DONE) continue;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->waiting, 1);
    while (atomic_load(&p->slot[k].v) != open + HS_SLOT_DONE)
      pthread_cond_wait(&p->done, &p->mu);
    atomic_store(&p->waiting, 0);
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

void hs_demote(const void *p, size_t bytes) {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
  const char *a = (const char *)((uintptr_t)p & ~(uintptr_t)63), *e = (const char *)p + bytes;
  /* cldemote (%rax), spelled as bytes for assemblers that predate it */
  for (; a < e; a += 64) __asm__ volatile(".byte 0x0f, 0x1c, 0x00" : : "a"(a) : "memory");
#else
  (void)p, (void)bytes;
#endif
}

int hs_demote_pays(size_t bytes) {
  /* read once: glibc answers with CPUID, a trap to the hypervisor in a VM */
  static atomic_long l2 = 0;
  long c = atomic_load_explicit(&l2, memory_order_relaxed);
  if (c == 0) {
    c = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
    c = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (c <= 0) c = 2L << 20;
    atomic_store_explicit(&l2, c, memory_order_relaxed);
  }
  return bytes >= (size_t)c / 4;
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

/* The run a thread takes from the front of a range of r chunks: a quarter
 * of what is left, so that the runs shrink towards the end and the last one
 * taken ends near the others', and at most max. */
static uint64_t hs_split_run(uint64_t r, uint64_t max) {
  return (r + 3) / 4 < max ? (r + 3) / 4 : max;
}

uint64_t hs_split_take(hs_split *s, int k, uint64_t max, uint64_t *first) {
  const uint64_t lo = 0xffffffffu;
  for (;;) {
    uint64_t v = atomic_load(&s->r[k].fe), f = v >> 32, e = v & lo;
    if (f < e) {
      uint64_t m = hs_split_run(e - f, max);
      if (atomic_compare_exchange_weak(&s->r[k].fe, &v, (f + m) << 32 | e)) {
        *first = f;
        return m;
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
    uint64_t m = hs_split_run(we - mid, max);
    atomic_store(&s->r[k].fe, (mid + m) << 32 | we);
    *first = mid;
    return m;
  }
}

int hs_split_next(hs_split *s, int k, uint64_t *chunk) {
  return hs_split_take(s, k, 1, chunk) > 0;
}

/* One hs_pool_ranges call: its chunks, handed out by split. */
typedef struct hs_ranges {
  hs_split split;
  size_t n, c;
  uint64_t run; /* chunks a thread takes from its own part at a time */
  hs_range_fn fn;
  void *ctx;
  uint64_t *ticks;
} hs_ranges;

static void hs_range_task(void *arg, int k) {
  hs_ranges *A = arg;
  uint64_t t0 = A->ticks ? hs_ticks() : 0, f, m;
  while ((m = hs_split_take(&A->split, k, A->run, &f)) > 0) {
    size_t lo = (size_t)f * A->c, hi = (size_t)(f + m) * A->c;
    A->fn(A->ctx, k, lo, hi < A->n ? hi : A->n);
  }
  if (A->ticks) A->ticks[k] = hs_ticks() - t0;
}

void hs_pool_ranges(hs_pool *p, int T, size_t n, size_t c, hs_range_fn fn,
                    void *ctx, uint64_t *ticks) {
  if (T > HS_POOL_MAX) T = HS_POOL_MAX;
  if (T < 1) T = 1;
  if (c == 0) c = 1;
  uint64_t N = (n + c - 1) / c, t0 = ticks ? hs_ticks() : 0;
  if (T == 1 || N < 2) {
    if (n > 0) fn(ctx, 0, 0, n);
    if (ticks) ticks[0] = hs_ticks() - t0;
    return;
  }
  hs_ranges *A = aligned_alloc(HS_SPLIT_LINE, sizeof *A);
  if (!A || !hs_split_init(&A->split, N, T)) {
    /* no memory for the split, or chunks past 32 bits: one thread */
    free(A);
    fn(ctx, 0, 0, n);
    if (ticks) ticks[0] = hs_ticks() - t0;
    return;
  }
  /* at most an eighth of a part at a time: few calls, and a late
   * thread's part still mostly left for the others to take */
  uint64_t run = N / ((uint64_t)T * 8);
  A->n = n, A->c = c, A->run = run ? run : 1, A->fn = fn, A->ctx = ctx, A->ticks = ticks;
  hs_pool_run(p, T, hs_range_task, A);
  free(A);
}
