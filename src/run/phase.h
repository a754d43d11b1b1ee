/* SPDX-License-Identifier: MIT */
/* Phase clocks of the forward pass (hs_run_opts.phases): each thread's
 * work is a sequence of phases, and hs_ph_to ends the current one and
 * starts the next with one clock read. Off (on == 0), every call is a
 * test of one flag. Ticks are the time-stamp counter on x86 (a fenced
 * read costs little beside ~20 ns for clock_gettime) and nanoseconds elsewhere; the
 * pass converts them to seconds by its own wall time. */
#ifndef HS_RUN_PHASE_H
#define HS_RUN_PHASE_H
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "hardsoft.h"

/* A phase past the public ones: time a thread spent inside a pool run
 * whose parts keep their own clocks (not reported; WAIT is derived). */
#define HS_PH_REGION HS_PHASE_COUNT

typedef struct hs_phclock {
  int on, cur;
  uint64_t last;
  uint64_t t[HS_PHASE_COUNT + 1];
} hs_phclock;

/* lfence first: rdtsc alone reads the counter as soon as it issues, while
 * the phase before it may still have work in flight, so a kernel's tail
 * was counted to the phase after it (measured: AVX-512's row finishing,
 * the same code as scalar's, took 0.092 against 0.049 ms at a S b, n =
 * 4096; 0.051 with the fence, the total unchanged within the noise). */
static inline uint64_t hs_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
#ifdef __SSE2__
  _mm_lfence();
#endif
  return __rdtsc();
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static inline void hs_ph_start(hs_phclock *c, int on, int ph) {
  c->on = on, c->cur = ph;
  for (int k = 0; k <= HS_PHASE_COUNT; k++) c->t[k] = 0;
  c->last = on ? hs_ticks() : 0;
}

static inline void hs_ph_to(hs_phclock *c, int ph) {
  if (!c->on) return;
  uint64_t now = hs_ticks();
  c->t[c->cur] += now - c->last;
  c->last = now, c->cur = ph;
}

/* Ends c's current phase and adds its work phases to sum. */
static inline void hs_ph_merge(hs_phclock *c, uint64_t *sum) {
  hs_ph_to(c, HS_PHASE_WAIT);
  for (int k = 0; k < HS_PHASE_COUNT; k++)
    if (k != HS_PHASE_WAIT) sum[k] += c->t[k];
}

/* One row in 32 has its search timed (hs_run_result.phase_s): chosen by a
 * hash of the row, so the sample does not follow the 64-key tiles. */
static inline int hs_ph_sampled(size_t i) {
  return ((uint32_t)i * 2654435761u) >> 27 == 0;
}

/* The search's share of the attention phase, estimated from the sampled
 * rows: sampled ticks over sampled rows, times every row that searched. */
typedef struct hs_phsample {
  uint64_t ticks, sampled, rows;
} hs_phsample;
#endif
