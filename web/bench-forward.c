/* SPDX-License-Identifier: MIT */
/* One forward pass timed the same way natively and in WebAssembly under
 * node (make bench-web builds this file both ways), so the rows compare
 * the browser's vector unit with the CPU's on the same model and string.
 *
 *   bench-forward TARGET ISA MODE MU N REPEAT FORMULA
 *
 * ISA: scalar, avx2, avx512 or wasm128 (the kernels the library runs: a
 * native build has the first three as the CPU allows, the plain wasm build
 * scalar only, the SIMD128 wasm build scalar and wasm128). The string: N symbols over the formula's alphabet
 * plus one other byte, from a fixed linear congruential sequence, so every
 * build reads the same one. Prints one CSV row:
 * target,isa,formula,mode,scale,n,repeat,seconds_median,seconds_min,
 * positions_per_s,agree (1 when every decision matches the logic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hardsoft.h"

#define WARMUP_S 0.3

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int die(const char *what, const hs_error *e) {
  fprintf(stderr, "bench-forward: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  return 2;
}

/* N symbols over the alphabet of f plus one byte it does not name. */
static uint8_t *make_string(const hs_formula *f, size_t n) {
  uint8_t set[256], sym[257];
  int k = 0;
  hs_formula_alphabet(f, set);
  for (int b = 0; b < 256; b++)
    if (set[b]) sym[k++] = (uint8_t)b;
  sym[k++] = set['#'] ? '_' : '#';
  uint8_t *w = malloc(n ? n : 1);
  uint32_t x = 12345;
  for (size_t i = 0; w && i < n; i++) {
    x = x * 1664525u + 1013904223u;
    w[i] = sym[(x >> 16) % (uint32_t)k];
  }
  return w;
}

int main(int argc, char **argv) {
  if (argc != 8)
    return fprintf(stderr, "usage: bench-forward TARGET ISA MODE MU N REPEAT FORMULA\n"), 2;
  const char *target = argv[1], *isa = argv[2], *mode = argv[3], *text = argv[7];
  double mu = atof(argv[4]);
  size_t n = (size_t)atol(argv[5]);
  int repeat = atoi(argv[6]);
  hs_error e;
  int i = hs_isa_parse(isa), md = hs_mode_parse(mode);
  const hs_kernels *kt = i < 0 ? NULL : hs_kernels_for((hs_isa)i);
  if (!kt) return die("this CPU cannot run that ISA", NULL);
  if (md < 0 || repeat < 1 || repeat > 1000) return die("bad mode or repeat", NULL);
  hs_formula *f = hs_formula_parse(text, &e);
  if (!f) return die("formula", &e);
  hs_compile_opts co = {.mode = (hs_mode)md, .scale = mu};
  hs_model *m = hs_compile(f, &co, &e);
  if (!m) return die("compile", &e);
  uint8_t *w = make_string(f, n), *truth = malloc(n ? n : 1);
  if (!w || !truth || hs_truth_eval(f, hs_formula_root(f), w, n, truth, &e) != 0)
    return die("string", &e);
  hs_run_opts o = {.kernels = kt, .threads = 1};
  hs_runner *r = hs_runner_new(m, &o, &e);
  if (!r) return die("runner", &e);
  double *t = malloc(sizeof *t * (size_t)repeat);
  int agree = 1;
  /* k < 0: warm-up, at least one run and 0.3 s, long enough for a wasm
   * engine's optimizing tier to replace its baseline code */
  double warm = now() + WARMUP_S;
  for (int k = -1; t && k < repeat; k++) {
    hs_run_result res;
    double t0 = now();
    if (hs_runner_run(r, w, n, &res, &e) != 0) return die("run", &e);
    if (k >= 0) t[k] = now() - t0;
    else if (now() < warm) k--;
    agree &= memcmp(res.bits, truth, n) == 0;
    hs_run_result_free(&res);
  }
  if (!t) return die("out of memory", NULL);
  qsort(t, (size_t)repeat, sizeof *t, cmp);
  double med = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
  printf("%s,%s,\"%s\",%s,%g,%zu,%d,%.6g,%.6g,%.6g,%d\n", target, isa, text, mode, mu, n,
         repeat, med, t[0], (double)n / med, agree);
  free(t);
  hs_runner_free(r);
  free(truth);
  free(w);
  hs_model_free(m);
  hs_formula_free(f);
  return agree ? 0 : 1;
}
