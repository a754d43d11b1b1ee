/* SPDX-License-Identifier: MIT */
/* How long a forward pass will take, predicted from timed small passes
 * (hs_run_cost_measure in include/hardsoft.h states the method and its
 * accuracy).
 *
 * A pass costs per layer O(n d (heads' dk + dv) + n d hidden) for the
 * projections and feed-forward and O(n^2 dk) for the attention rows (each
 * of the n + 1 rows scores up to n + 2 keys), so its time is close to
 * t(n) = a n + b n^2. Timing the model itself, with the caller's kernels,
 * precision and threads, measures a and b with every constant that a
 * formula from the layout would miss (kernel speed, cache effects, tile
 * skipping at that length). Two lengths N and 2N give
 *     b = (t(2N) - 2 t(N)) / (2 N^2),   a = (t(N) - b N^2) / N,
 * and N grows until the quadratic part is visible in t(2N) / t(N) (above
 * 3, where it is 2 for a linear pass and 4 for a quadratic one), so that b
 * is not the difference of two noisy near-equal numbers.
 *
 * With tile skipping (skip auto or on, the default) rows leave out the
 * keys whose weights are exactly +0, and a pass over a long string is
 * near-linear, while short strings stay on the dense path (auto skips a
 * head only where its bounds pay, from n ~ 1024). A quadratic ratio below
 * SKIP_FROM_N is then the dense path's and says nothing about the long
 * run, so the lengths grow past it before one is taken as quadratic.
 * Heads whose keys take a few values (every count) take prefix sums, and
 * heads that select by position a recurrence, at every length, which the
 * timed passes include like the rest. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "model/model.h"
#include "run/rows.h"

static double clock_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* Best of two passes over s[0..n), in the process's CPU seconds divided
 * by the threads (the pool's waiting threads spin, so they count as
 * busy): what the pass takes on a machine with T free cores. Wall time
 * would fold in whatever else the machine runs meanwhile, which on a
 * shared machine moved predictions by a factor of 6 between two calls.
 * A negative value on failure. */
static double time_pass(hs_runner *r, const uint8_t *s, size_t n, int threads,
                        hs_error *err) {
  double best = -1;
  for (int k = 0; k < 2; k++) {
    hs_run_result res;
    double t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (hs_runner_run(r, s, n, &res, err) != 0) return -1;
    double t = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0) / threads;
    hs_run_result_free(&res);
    if (best < 0 || t < best) best = t;
  }
  return best;
}

/* Whether some layer scores every row against every key: one with heads
 * that computes every row (not one of the last layers of a last_only /
 * edges_only run, hs_sparse_from, which compute at most six rows).
 * Without one the pass is linear in n, and a timing ratio above 2
 * (caches filling as n grows) must not be read as an n^2 term:
 * extrapolated 10^4 times, it made a 2 s run 44 s. */
static int quadratic(const hs_model *m, const hs_run_opts *o) {
  int sparse = hs_sparse_from(m, o);
  for (int l = 0; l < m->nlayers && l < sparse; l++)
    if (m->layers[l].nheads > 0) return 1;
  return 0;
}

int hs_run_cost_measure(const hs_model *m, const hs_run_opts *o, size_t n_target,
                        hs_run_cost *cost, hs_error *err) {
  enum { N_MAX = 65536, SKIP_FROM_N = 2048 };
  /* the longer calibration string stays within 1/16 of the run's and the
   * calibration within 0.5 s, so that it costs a fraction of the run
   * (about 2% of a quadratic one, 40% of a linear one, which is fast),
   * and grows with n (the closer to n, the shorter the extrapolation) */
  size_t n_cap = n_target / 16 > 512 ? n_target / 16 : 512;
  double t_start = now_s();
  hs_run_opts ro = *o;
  ro.progress = NULL;
  ro.progress_ctx = NULL;
  memset(cost, 0, sizeof *cost);
  uint8_t *s = malloc(2 * N_MAX);
  hs_runner *r = s ? hs_runner_new(m, &ro, err) : NULL;
  if (!r) {
    free(s);
    if (!s) hs_errorf(err, HS_ERR_NOMEM, "out of memory calibrating");
    return -1;
  }
  /* a fixed mixture of letters and one byte no formula names often */
  uint32_t x = 12345;
  for (size_t i = 0; i < 2 * N_MAX; i++) {
    x = x * 1103515245u + 12345u;
    s[i] = (uint8_t)"abcd#"[(x >> 16) % 5];
  }
  size_t N = 256;
  double t1 = 0, t2 = 0;
  int T = o->threads > 1 ? o->threads : 1;
  int may_skip = o->skip == HS_SKIP_AUTO || o->skip == HS_SKIP_ON;
  for (;;) {
    t1 = time_pass(r, s, N, T, err);
    t2 = t1 < 0 ? -1 : time_pass(r, s, 2 * N, T, err);
    if (t1 < 0 || t2 < 0) {
      hs_runner_free(r);
      free(s);
      return -1;
    }
    int seen = !quadratic(m, o) || (t2 >= 3 * t1 && (!may_skip || N >= SKIP_FROM_N));
    if ((t2 >= 0.02 && seen) || t2 >= 0.2 || N >= N_MAX ||
        4 * N > n_cap ||
        now_s() - t_start > 0.5)
      break;
    N *= 2;
  }
  /* a ratio between 2.3 and 3.5 is a quadratic part or noise: a third
   * length, 4N, settles it (t(4N) / t(2N) then decides, from the longer
   * pair). Measured: C-RASP copy4 (skipping shift heads, linear from
   * N = 4096) read 2.4 at N = 32768 on a busy machine and was predicted
   * at 19 s for a 1.5 s pass at n = 2^20. */
  if (quadratic(m, o) && t2 >= 2.3 * t1 && t2 < 3.5 * t1 && 4 * N <= 2 * N_MAX &&
      4 * N <= n_target) {
    double t4 = time_pass(r, s, 4 * N, T, err);
    if (t4 < 0) {
      hs_runner_free(r);
      free(s);
      return -1;
    }
    N *= 2, t1 = t2, t2 = t4;
  }
  double n = (double)N;
  double b = (t2 - 2 * t1) / (2 * n * n), a = (t1 - b * n * n) / n;
  /* a ratio near 2 is a linear pass plus noise; extrapolated a thousand
   * times, the noise alone would make a large n^2 term */
  if (b < 0 || t2 < 2.3 * t1 || !quadratic(m, o)) b = 0, a = t2 / (2 * n);
  if (a < 0) a = 0, b = t2 / (4 * n * n); /* all quadratic */
  cost->per_pos = a;
  cost->per_pair = b;
  cost->calib_n = 2 * N;
  hs_runner_free(r);
  free(s);
  return 0;
}

double hs_run_cost_at(const hs_run_cost *c, size_t n) {
  double x = (double)n;
  return c->per_pos * x + c->per_pair * x * x;
}

double hs_model_run_seconds(const hs_model *m, size_t n, hs_precision prec,
                            const hs_kernels *kt, int threads, hs_error *err) {
  hs_run_opts o = {.precision = prec, .kernels = kt, .threads = threads};
  hs_run_cost c;
  if (hs_run_cost_measure(m, &o, n, &c, err) != 0) return -1;
  return hs_run_cost_at(&c, n);
}
