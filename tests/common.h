/* SPDX-License-Identifier: MIT */
/* Shared test helpers (header-only): cmocka includes, a seeded RNG, ULP
 * distance, and a loop over the ISAs this CPU runs. A kernel whose ISA the
 * CPU lacks is not run, and not counted as passed either: the program
 * names every such ISA on a line "[ NOT RUN  ] ISA: ..." when it exits,
 * which tests/run.sh adds to its summary. */
#ifndef HS_TEST_COMMON_H
#define HS_TEST_COMMON_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hardsoft.h"
#include "hardsoft/kernels.h"

/* splitmix64: deterministic across platforms */
typedef struct { uint64_t s; } hs_rng;
static inline uint64_t hs_rng_next(hs_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* uniform in [lo, hi) */
static inline double hs_rng_uniform(hs_rng *r, double lo, double hi) {
  return lo + (hi - lo) * ((hs_rng_next(r) >> 11) * 0x1.0p-53);
}

/* distance in units in the last place between two floats (same sign
 * assumed for finite values); 0 when both NaN or bitwise equal. */
static inline double hs_ulp_f32(float got, double want) {
  if (isnan(got) && isnan(want)) return 0;
  if (isnan(got) || isnan(want)) return INFINITY;
  float w = (float)want; /* a reference beyond float's range is +-inf here */
  if (isinf(w) || isinf(got)) return got == w ? 0 : INFINITY;
  double ulp = nextafterf(fabsf(w), INFINITY) - fabsf(w);
  if (w == 0) ulp = 0x1p-149;
  return fabs((double)got - want) / ulp;
}

static unsigned hs_test_not_run_; /* bit i: ISA i was skipped here */

static inline void hs_test_report_not_run_(void) {
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (hs_test_not_run_ & (1u << i))
      printf("[ NOT RUN  ] %s: this CPU lacks it; its kernels were not tested\n",
             hs_isa_name((hs_isa)i));
  fflush(stdout);
}

/* The kernel table of ISA i, or NULL (recorded for the report) when the
 * CPU lacks it. HS_TEST_WITHOUT_ISA=NAME makes this process treat the ISA
 * NAME as missing, so the report itself is tested on any machine. */
static inline const hs_kernels *hs_test_kernels_(int i) {
  const hs_kernels *kt = hs_kernels_for((hs_isa)i);
  const char *off = getenv("HS_TEST_WITHOUT_ISA");
  if (kt && off && strcmp(off, hs_isa_name((hs_isa)i)) == 0) kt = NULL;
  if (!kt) {
    if (!hs_test_not_run_) atexit(hs_test_report_not_run_);
    hs_test_not_run_ |= 1u << i;
  }
  return kt;
}

static void hs_test_skipped_(void **state) {
  (void)state;
  skip();
}
/* HS_TEST_ONLY=NAME[,NAME...]: this program runs only the tests of those
 * names and reports every other one skipped (never passed). make
 * check-aarch64 runs the forward-pass programs' comparisons of ISAs this
 * way, the rest of them being hours under emulation. */
static inline void hs_test_only(struct CMUnitTest *t, size_t n) {
  const char *only = getenv("HS_TEST_ONLY");
  if (!only || !*only) return;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(t[i].name);
    int keep = 0;
    for (const char *p = only;;) {
      const size_t w = strcspn(p, ",");
      keep |= w == len && strncmp(p, t[i].name, len) == 0;
      if (!p[w]) break;
      p += w + 1;
    }
    if (!keep) t[i].test_func = hs_test_skipped_;
  }
}

/* Run body once per ISA this CPU supports, with `kt` the kernel table. */
#define HS_FOR_EACH_ISA(kt)                                              \
  for (int hs_isa_i_ = 0; hs_isa_i_ < HS_ISA_COUNT; hs_isa_i_++)         \
    for (const hs_kernels *kt = hs_test_kernels_(hs_isa_i_); kt;         \
         kt = NULL)

/* 64-byte aligned buffer plus `off` floats, so tests can hit unaligned
 * starts deliberately. */
static inline void *hs_test_alloc(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes + 128) != 0) abort();
  memset(p, 0, bytes + 128);
  return p;
}

/* Segments of keys 0..n-1 for the two-pass kernels, one per 64 keys
 * from key `first` (the forward pass's tiles when first is a multiple of
 * 64; arbitrary cuts otherwise): (start, length) pairs into seg, which
 * has room for n / 64 + 2; returns how many. */
static inline size_t tile_segs(size_t n, size_t first, size_t *seg) {
  size_t ns = 0;
  for (size_t j = 0; j < n;) {
    size_t end = ((first + j) / 64 + 1) * 64 - first;
    if (end > n) end = n;
    seg[2 * ns] = j, seg[2 * ns + 1] = end - j, ns++;
    j = end;
  }
  return ns;
}

/* The skipping path's shape: tile_segs' segments with the first and the
 * last kept and each other one kept with probability 1/2. Returns the
 * count kept. */
static inline size_t some_tiles(hs_rng *r, size_t n, size_t first, size_t *seg) {
  size_t ns = tile_segs(n, first, seg), kept = 0;
  for (size_t t = 0; t < ns; t++)
    if (t == 0 || t + 1 == ns || hs_rng_uniform(r, 0, 1) < 0.5)
      seg[2 * kept] = seg[2 * t], seg[2 * kept + 1] = seg[2 * t + 1], kept++;
  return kept;
}

/* A kernel input: with zeros, 60% of the time one of -1, -0, +0, 0.5, 1
 * (signed zeros and exact values), else uniform in [-3, 3]. Exact in
 * float too. */
static inline double hs_pick(hs_rng *r, int zeros) {
  static const double z[] = {-1.0, -0.0, 0.0, 0.5, 1.0};
  double u = hs_rng_uniform(r, 0, 1);
  if (zeros && u < 0.6) return z[(int)(u / 0.6 * 5) % 5];
  return hs_rng_uniform(r, -3, 3);
}

/* The segments seg (ns pairs) into out, each cut at up to 3 random
 * points, or (join) with touching segments made one: the same keys in
 * other segments, for the kernels whose bits must not depend on the cut.
 * Returns the count; out has room for 4 ns pairs. */
static inline size_t recut(hs_rng *r, size_t ns, const size_t *seg, int join, size_t *out) {
  size_t m = 0;
  for (size_t t = 0; t < ns; t++) {
    size_t s0 = seg[2 * t], e0 = s0 + seg[2 * t + 1];
    if (join && m > 0 && out[2 * m - 2] + out[2 * m - 1] == s0) {
      out[2 * m - 1] += e0 - s0;
      continue;
    }
    for (int c = join ? 3 : (int)hs_rng_uniform(r, 0, 4); c > 0 && e0 - s0 > 1; c--) {
      size_t cut = s0 + 1 + (size_t)hs_rng_uniform(r, 0, (double)(e0 - s0 - 1));
      if (cut >= e0) break;
      out[2 * m] = s0, out[2 * m + 1] = cut - s0, m++;
      s0 = cut;
    }
    out[2 * m] = s0, out[2 * m + 1] = e0 - s0, m++;
  }
  return m;
}


/* The whole file at path, NUL-terminated (the test fails when it cannot
 * be read). */
static inline char *hs_test_read_text(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) fail_msg("cannot open %s", path);
  fseek(fp, 0, SEEK_END);
  long len = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *s = malloc((size_t)len + 1);
  assert_true(s && fread(s, 1, (size_t)len, fp) == (size_t)len);
  s[len] = 0;
  fclose(fp);
  return s;
}

#endif
