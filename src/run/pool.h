/* SPDX-License-Identifier: MIT */
/* The forward pass's thread pool (pool.c). */
#ifndef HS_RUN_POOL_H
#define HS_RUN_POOL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A pool of worker threads, one per runner: started on first use and kept
 * until hs_runner_free, so that each layer's two parallel phases
 * (projections, rows) cost a wake-up instead of a thread creation each
 * (~20-50 us per creation and join on the 2-core machine, against ~1.3 ms
 * for a whole two-thread pass of a S b at n = 4096). hs_pool_run(p, T, fn, arg) runs
 * fn(arg, k) for k = 0..T-1, k = 0 on the caller, and returns when all
 * have. Each k > 0 is a slot that one thread takes: its worker, or the
 * caller once fn(arg, 0) has returned and the worker has not yet come (a
 * worker still waking from sleep, or whose core runs another process,
 * would otherwise hold up the caller with nothing left to do: with the
 * work handed out by hs_split, fn(arg, k) taken by the caller finds it
 * all done). A worker that could not be created is stood in for the same
 * way, so every k runs exactly once whatever happens. */
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
  atomic_ulong gen;      /* bumped by every run, after fn, arg and the slots */
  atomic_int stop;
  atomic_int sleepers;   /* workers asleep on go (changed under mu) */
  atomic_int waiting;    /* the caller asleep on done (changed under mu) */
  atomic_int caller_cpu; /* the caller's core at its last run, -1: unknown */
  void (*fn)(void *, int);
  void *arg;
  /* worker k's slot: 4 * gen + HS_SLOT_*, on a line of its own */
  struct {
    _Alignas(128) atomic_uint_fast64_t v;
  } slot[HS_POOL_MAX];
} hs_pool;

void hs_pool_init(hs_pool *p);
void hs_pool_run(hs_pool *p, int T, void (*fn)(void *, int), void *arg);
/* Wakes the workers asleep (if any), without work, so that they spin
 * again: the start of a pass calls it before its serial set-up, so that
 * its first parallel phase does not wait on a wake-up. */
void hs_pool_warm(hs_pool *p);
void hs_pool_end(hs_pool *p);

/* Part k of T of the items [0, n) in chunks of c: the same contiguous
 * range [*lo, *hi) for every phase of a pass that splits the positions
 * (embedding, projections, rows, outputs), so that a thread reads back
 * mostly what it wrote itself, from its own core's cache. */
static inline void hs_part_range(size_t n, int T, int k, size_t c, size_t *lo,
                                 size_t *hi) {
  size_t N = (n + c - 1) / c, a = N * (size_t)k / (size_t)T,
         b = N * (size_t)(k + 1) / (size_t)T;
  *lo = a * c < n ? a * c : n;
  *hi = b * c < n ? b * c : n;
}

/* fn(ctx, k, lo, hi) over [0, n) in chunks of c on T threads of the
 * pool, handed out by hs_split: thread k starts with part k
 * (hs_part_range, the same for every call) and takes runs of several
 * chunks at a time, then what is left of the others' parts, so that a
 * thread that comes late takes less. Calls for one k may be several and
 * never overlap; ticks[k], when ticks is not NULL, gets slot k's time in
 * hs_ticks. */
typedef void (*hs_range_fn)(void *ctx, int k, size_t lo, size_t hi);
void hs_pool_ranges(hs_pool *p, int T, size_t n, size_t c, hs_range_fn fn,
                    void *ctx, uint64_t *ticks);

/* The lines of [p, p + bytes) pushed from this core's private caches to
 * the cache the cores share (x86's CLDEMOTE: a hint, executed as a no-op
 * by CPUs without it; nothing on other targets). For data one thread
 * writes and the other then reads: a line left modified in the writer's
 * L2 costs the reader a transfer from that core, dearer than a hit in
 * the shared cache. */
void hs_demote(const void *p, size_t bytes);
/* Whether a pass whose residual stream takes `bytes` demotes what its
 * threads share (FN(proj_range)): from a quarter of this core's L2 on
 * (sysconf; 2 MiB where unknown), below which the pass's lines stay in
 * both cores' L2 anyway. */
int hs_demote_pays(size_t bytes);

/* Chunks [0, N) handed out to T threads: thread k takes those of its own
 * range (hs_part_range) front to back, and once it is empty the back half
 * of the fullest other one, which it then takes front to back too. Every
 * chunk goes to exactly one thread; consecutive chunks mostly go to the
 * same thread in order (state a thread keeps from row to row, the bounds
 * cache, stays current), and rows of uneven cost still end together. A
 * range is (first << 32 | end) in one word, on a line of its own. */
#define HS_SPLIT_LINE 128 /* two lines: the adjacent-line prefetcher */
typedef struct hs_split {
  struct {
    _Alignas(HS_SPLIT_LINE) atomic_uint_fast64_t fe;
  } r[HS_POOL_MAX];
  int T;
} hs_split;

/* 0 when N chunks do not fit the 32-bit halves (never for a string that
 * fits in memory: 2^32 chunks of rows); the caller then runs one thread. */
int hs_split_init(hs_split *s, uint64_t N, int T);
/* Thread k's next chunk into *chunk: 1, or 0 when none is left. */
int hs_split_next(hs_split *s, int k, uint64_t *chunk);
/* Thread k's next run of consecutive chunks: a quarter of what is left
 * of its range, at least 1 and at most max (max >= 1); *first and the
 * count, 0 when none is left. */
uint64_t hs_split_take(hs_split *s, int k, uint64_t max, uint64_t *first);
#endif
