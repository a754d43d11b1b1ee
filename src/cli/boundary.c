/* SPDX-License-Identifier: MIT */
/* hardsoft boundary: the largest n at which a compiled model is still
 * exact on adversarial strings, per mode, scale and precision (docs/LANGUAGE.md, "Precision").
 *
 * Adversarial strings: y^n with one x at an edge position (1, 2, 3, n-2,
 * n-1 or n), for every ordered pair of distinct symbols (the formula's
 * alphabet plus one symbol no atom names), checked at those same edge
 * positions. For one-operator formulas these put the
 * attended position as far from the query as the string allows (the
 * witness of S, O or Y at the far left of the last position, of U, F or X
 * at the far right of the first), or make the one position that Y or X
 * must read next to an edge differ from all its competitors (X at n-2
 * reads n-1 against n, where the scores are largest). Only the edge
 * positions are computed in the last layer, so a one-layer model costs
 * O(n) per string.
 *
 * Search: doubling n = 1, 2, 4, ... up to --max-n (each step also tries
 * n - 1 and n + 1: powers of two are often exactly representable where
 * their neighbours are not) until a string fails, then bisection between
 * the last exact and the first failing length.
 * Exactness need not be monotone in n; the result is the boundary that
 * this search finds, and "> N" when nothing failed up to N. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* The CSV columns, for --header and --help alike. */
#define BOUNDARY_COLUMNS \
  "formula,mode,scale,precision,largest_exact_n,first_failing_n,real_bound_n" \
  CLI_META_HEADER

static const char *const boundary_usage =
    "usage: hardsoft boundary FORMULA [OPTIONS]\n"
    "Finds the largest n at which the model is exact on adversarial strings\n"
    "(by doubling, then bisection) and prints one CSV row with the columns\n"
    BOUNDARY_COLUMNS "\n"
    "(largest_exact_n is '>N' when nothing failed up to --max-n; real_bound_n is\n"
    "where exact arithmetic stops guaranteeing exactness: inf for pe and temp at\n"
    "mu >= ln 7, floor(mu / ln 7) for fixed).\n"
    "  --mode M        hard, pe, temp, fixed or rel (default temp)\n"
    "  --scale MU      default 4\n"
    "  --sign S        layernorm or temp (counting comparisons)\n"
    "  --precision P   f64, f32, f16, bf16, f16s or bf16s: f16/bf16 store the\n"
    "                  queries, keys and values in that format (products,\n"
    "                  softmax and sums in f32, as inference engines do);\n"
    "                  f16s/bf16s round the scores q.k to it instead (what\n"
    "                  f16/bf16 meant before)\n"
    "  --max-n N       largest length tried (default 1048576)\n"
    "  --isa ISA       kernels (default: HARDSOFT_ISA, else the best)\n"
    "  --header        print the CSV header line first\n"
    "  -f FILE, --lang L   the formula or program in a file (see eval --help);\n"
    "                  the formula column is then FILE\n"
    "  --max-time S    refuse when the doubling search is predicted to take more\n"
    "                  than S seconds (a prediction past 5 s is printed)\n"
    "  --quiet         no prediction line and no progress on standard error\n";

typedef struct bnd {
  const hs_program *p;
  hs_runner *run;
  uint8_t sym[257];
  int k;
  cli_progress prog;  /* lengths tried */
  uint64_t tried, total;
} bnd;

/* 1 if the model is right at positions 1 and n of every adversarial
 * string of length n, 0 if not, -1 on error. */
static int exact_at(bnd *b, size_t n) {
  uint8_t *s = malloc(n), *truth = malloc(n);
  char msg[256];
  hs_error he;
  int ok = 1;
  snprintf(msg, sizeof msg, "n = %zu", n);
  if (b->tried >= b->total) b->total = b->tried + 1;
  cli_progress_show(&b->prog, b->tried++, b->total, msg);
  if (!s || !truth) ok = -1;
  for (int x = 0; x < b->k && ok == 1; x++)
    for (int y = 0; y < b->k && ok == 1; y++) {
      if (x == y && n > 1) continue;
      for (int shape = 0; shape < 6 && ok == 1; shape++) {
        size_t at[6] = {0, 1, 2, n - 3, n - 2, n - 1};
        if (at[shape] >= n) continue;
        memset(s, b->sym[y], n);
        s[at[shape]] = b->sym[x];
        hs_run_result r;
        if (hs_program_truth(b->p, s, n, truth, &he) != 0 ||
            hs_runner_run(b->run, s, n, &r, &he) != 0) {
          ok = -1;
          break;
        }
        for (int q = 0; q < 6; q++)
          if (at[q] < n && r.bits[at[q]] != truth[at[q]]) ok = 0;
        hs_run_result_free(&r);
      }
    }
  free(s);
  free(truth);
  if (ok < 0) cli_error("out of memory at n = %zu", n);
  return ok;
}

/* The options only boundary takes (its --precision also names f16 and
 * bf16), taken out of argv before the shared parser sees the rest. */
typedef struct bnd_opts {
  hs_score_round rnd, qkv;
  hs_precision prec;
  const char *pname;
  size_t max_n;
  int header;
} bnd_opts;

static int strip_opts(int argc, char **argv, char **args, int *na, bnd_opts *bo) {
  for (int i = 0; i < argc; i++) {
    if (i >= 2 && strcmp(argv[i], "--precision") == 0 && i + 1 < argc) {
      bo->pname = argv[++i];
      if (hs_precision_parse(bo->pname, &bo->prec, &bo->rnd, &bo->qkv) != 0)
        return cli_error("--precision '%s' is not f64, f32, f16, bf16, f16s or "
                         "bf16s", bo->pname);
      continue;
    }
    if (i >= 2 && strcmp(argv[i], "--max-n") == 0 && i + 1 < argc) {
      char *e;
      unsigned long long v = strtoull(argv[++i], &e, 10);
      if (*e || v < 1 || v > (1ull << 30) || argv[i][0] == '-')
        return cli_error("--max-n expects 1 to 2^30, got '%s'", argv[i]);
      bo->max_n = (size_t)v;
      continue;
    }
    if (i >= 2 && strcmp(argv[i], "--header") == 0) { bo->header = 1; continue; }
    args[(*na)++] = argv[i];
  }
  return 0;
}

/* The symbols the adversarial strings are made of: a program's tokens'
 * bytes and that of every other token, or a formula's atoms and '#'. */
static void alphabet(bnd *b, const hs_program *p, const hs_formula *f) {
  uint8_t set[256];
  if (hs_program_lang(p) != HS_LANG_LTL) {
    for (; b->k < hs_program_vocab_size(p); b->k++)
      b->sym[b->k] = (uint8_t)hs_program_token_byte(p, b->k);
    b->sym[b->k++] = (uint8_t)hs_program_other_byte(p);
  } else {
    hs_formula_alphabet(f, set);
    for (int c = 0; c < 256; c++)
      if (set[c]) b->sym[b->k++] = (uint8_t)c;
    b->sym[b->k++] = '#';
  }
}

/* Doubling (n = 2^q - 1, 2^q, 2^q + 1) up to max_n, then bisection between
 * the last good and the first bad length; returns exact_at's last answer
 * (-1: an error). */
static int search(bnd *b, size_t max_n, size_t *good, size_t *bad) {
  size_t n = 0;
  int e = 1;
  for (size_t p = 1; p <= max_n && e == 1; p *= 2)
    for (n = p > 1 ? p - 1 : p; n <= p + 1 && n <= max_n; n++) {
      if ((e = exact_at(b, n)) != 1) break;
      *good = n;
    }
  if (e != 0) return e;
  *bad = n;
  b->total = b->tried;
  for (size_t w = *bad - *good; w > 1; w = (w + 1) / 2) b->total++;
  while (*bad - *good > 1 && e >= 0) {
    size_t mid = *good + (*bad - *good) / 2;
    if ((e = exact_at(b, mid)) == 1) *good = mid;
    else if (e == 0) *bad = mid;
  }
  return e;
}

static void print_row(const cli_opts *o, const bnd_opts *bo, const hs_formula *f,
                      size_t good, size_t bad) {
  char real[32];
  double max_n = hs_mode_exact_max_n((hs_mode)o->mode, o->scale);
  if (o->mode == HS_MODE_FIXED)
    snprintf(real, sizeof real, "%.0f", max_n);
  else if (isinf(max_n))
    snprintf(real, sizeof real, "inf");
  else
    snprintf(real, sizeof real, "none");
  if (bo->header)
    puts(BOUNDARY_COLUMNS);
  printf("\"%s\",%s,%g,%s,", o->file ? o->file : hs_formula_text(f),
         hs_mode_name((hs_mode)o->mode), o->mode == HS_MODE_HARD ? 0 : o->scale,
         bo->pname);
  if (bad) printf("%zu,%zu,%s", good, bad, real);
  else printf(">%zu,,%s", good, real);
  cli_meta_columns(stdout);
  putchar('\n');
}

/* The search on a compiled model: 0, or HS_EXIT_ERROR (reported). */
static int run_search(const cli_opts *o, const bnd_opts *bo, const hs_program *p,
                      const hs_formula *f, const hs_model *m) {
  hs_error he;
  hs_run_opts ro = {.precision = bo->prec, .kernels = o->kt, .edges_only = 1,
                    .score_round = bo->rnd, .qkv_round = bo->qkv};
  bnd b = {p, hs_runner_new(m, &ro, &he), {0}, 0, {0}, 0, 0};
  if (!b.run) return cli_error("%s", he.msg);
  /* large counting coefficients end the exact region before the search
   * does: say so before its answer (float16 storage rounds sooner still) */
  double cmax = hs_model_count_max_n(m, bo->prec == HS_PREC_F64 ? 53 : 24);
  if (cmax < (double)bo->max_n)
    fprintf(stderr, "hardsoft: note: the counting comparisons' coefficients keep "
            "the sign exact only up to n = %.0f in %s; beyond it the search "
            "measures rounding\n", cmax, bo->prec == HS_PREC_F64 ? "f64" : "f32");
  alphabet(&b, p, f);
  /* the doubling search's lengths, each run on k^2 * 6 strings at most
   * (bisection adds at most log2 of the last step more) */
  size_t ns[96];
  double times[96];
  int nn = 0;
  for (size_t q = 1; q <= bo->max_n && nn < 93; q *= 2)
    for (size_t n = q > 1 ? q - 1 : q; n <= q + 1 && n <= bo->max_n; n++)
      ns[nn] = n, times[nn++] = 6.0 * b.k * b.k;
  b.total = (uint64_t)nn;
  int rc = HS_EXIT_ERROR;
  if (!cli_predict_many(o, m, &ro, nn, ns, times, "the doubling search")) {
    cli_progress_start(&b.prog, o, "lengths");
    size_t good = 0, bad = 0;
    int e = search(&b, bo->max_n, &good, &bad);
    cli_progress_end(&b.prog);
    if (e >= 0) print_row(o, bo, f, good, bad), rc = 0;
  }
  hs_runner_free(b.run);
  return rc;
}

int cmd_boundary(int argc, char **argv) {
  bnd_opts bo = {HS_ROUND_NONE, HS_ROUND_NONE, HS_PREC_F32, "f32", 1u << 20, 0};
  char **args = calloc((size_t)argc + 1, sizeof *args);
  int na = 0;
  if (!args) return cli_error("out of memory");
  int rc = strip_opts(argc, argv, args, &na, &bo);
  if (rc) {
    free(args);
    return rc;
  }
  cli_opts o;
  rc = cli_parse(na, args, 2, O_MODE | O_SCALE | O_SIGN | O_ISA | O_PROG | O_MAXTIME | O_QUIET,
                 boundary_usage, &o);
  if (rc) { free(o.args); free(args); return rc == 1 ? 0 : rc; }
  if (o.nargs != (o.file ? 0 : 1) || o.mode == HS_MODE_TRUTH) {
    free(o.args);
    free(args);
    return cli_error("boundary: expected one FORMULA and a mode hard, pe, temp, "
                     "fixed or rel (see 'hardsoft boundary --help')");
  }
  int skip;
  hs_program *p = cli_program(&o, o.file, &skip);
  const hs_formula *f = p ? hs_program_formula(p) : NULL;
  hs_error he;
  hs_compile_opts co = {.mode = (hs_mode)o.mode, .scale = o.scale, .sign = o.sign};
  hs_model *m = f ? hs_compile(f, &co, &he) : NULL;
  rc = HS_EXIT_ERROR;
  if (f && !m) cli_error("%s", he.msg);
  if (m) rc = run_search(&o, &bo, p, f, m);
  hs_model_free(m);
  hs_program_free(p);
  free(o.args);
  free(args);
  return rc;
}
