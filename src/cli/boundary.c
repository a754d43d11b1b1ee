/* SPDX-License-Identifier: MIT */
/* hardsoft boundary: the largest n at which a compiled model is still
 * exact on adversarial strings, per mode, scale and precision (docs/LANGUAGE.md, "Precision").
 *
 * Adversarial strings: y^n with one x at an edge position (1, 2, 3, n-2,
 * n-1 or n), for every ordered pair of distinct symbols (the formula's
 * alphabet plus one symbol no atom names), checked at those same edge
 * positions; and for each counting comparison the strings on which it
 * ties exactly at the last position (hs_model_tie_string: only the sign's
 * half unit decides there, which the one-x strings never make). For one-operator formulas these put the
 * attended position as far from the query as the string allows (the
 * witness of S, O or Y at the far left of the last position, of U, F or X
 * at the far right of the first), or make the one position that Y or X
 * must read next to an edge differ from all its competitors (X at n-2
 * reads n-1 against n, where the scores are largest). Only the edge
 * positions are computed from the last layer with heads on (edges_only),
 * so a model whose heads are all in one layer costs O(n) per string.
 *
 * Search: doubling n = 1, 2, 4, ... up to --max-n (each step also tries
 * n - 1 and n + 1: powers of two are often exactly representable where
 * their neighbours are not) until a string fails, then bisection between
 * the last exact and the first failing length.
 * Exactness need not be monotone in n; the result is the boundary that
 * this search finds, and "> N" when nothing failed up to N.
 *
 * The strings of one length are independent: --threads runners, one per
 * thread, take them in order from a shared counter, and the length's
 * answer is that of the first string (in the order above) that is not
 * exact, as if they ran one after another: a thread stops taking strings
 * only past the first failure found so far, so every string before it
 * has run. Each runner is single-threaded: whole strings in parallel
 * need no barrier per layer, and a run's serial parts overlap. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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
    "  --threads N     strings checked at once, one per thread (default: the\n"
    "                  machine's cores; the answer is the same for every N)\n"
    "  --header        print the CSV header line first\n"
    "  -f FILE, --lang L   the formula or program in a file (see eval --help);\n"
    "                  the formula column is then FILE\n"
    "  --max-time S    refuse when the doubling search is predicted to take more\n"
    "                  than S seconds (a prediction past 5 s is printed)\n"
    "  --quiet         no prediction line and no progress on standard error\n";

/* The adversarial strings of one length, in the order they are checked:
 * x at position at[shape] of y^n, or (tie >= 0) that tie string. */
typedef struct bstr {
  int x, y, shape, tie;
} bstr;
#define BND_TIES 8

typedef struct bnd bnd;
typedef struct bwork {
  bnd *b;
  int k;
} bwork;

struct bnd {
  const hs_program *p;
  const hs_model *m;
  int ties;          /* tie families (at most BND_TIES) */
  int T;             /* runners, one per thread */
  hs_runner **run;
  uint8_t sym[257];
  int k;
  cli_progress prog; /* lengths tried */
  uint64_t tried, total;
  /* the length being checked (exact_at) */
  size_t n;
  bstr *str;
  int nstr;
  signed char *res;  /* per string: 1 exact, 0 not, -1 an error */
  hs_error *err;     /* per string, when -1 */
  atomic_int next;   /* the next string to take */
  atomic_int first;  /* the first string found not exact (nstr: none) */
  pthread_t *tid;
  bwork *w;
};

/* The edge positions of length n (the x of a string, and where it is
 * checked): 0, 1, 2, n - 3, n - 2, n - 1; those >= n (short strings, the
 * subtractions wrapping) are not positions. */
#define BND_EDGES 6
static void edge_positions(size_t n, size_t at[BND_EDGES]) {
  const size_t e[BND_EDGES] = {0, 1, 2, n - 3, n - 2, n - 1};
  memcpy(at, e, sizeof e);
}

/* String i of length n into s and whether the model is right at its edge
 * positions: 1, 0, or -1 with *he filled. */
static int check_string(bnd *b, hs_runner *run, int i, uint8_t *s, uint8_t *truth,
                        hs_error *he) {
  size_t n = b->n, at[BND_EDGES];
  edge_positions(n, at);
  const bstr *t = &b->str[i];
  if (t->tie >= 0 && !hs_model_tie_string(b->m, t->tie, n, s)) return 1; /* too short */
  if (t->tie < 0) {
    memset(s, b->sym[t->y], n);
    s[at[t->shape]] = b->sym[t->x];
  }
  hs_run_result r;
  if (hs_program_truth(b->p, s, n, truth, he) != 0 ||
      hs_runner_run(run, s, n, &r, he) != 0)
    return -1;
  int ok = 1;
  for (int q = 0; q < BND_EDGES; q++)
    if (at[q] < n && r.bits[at[q]] != truth[at[q]]) ok = 0;
  hs_run_result_free(&r);
  return ok;
}

/* One thread's strings: taken in order until none is left or every one
 * left comes after a string already found not exact. */
static void *check_strings(void *arg) {
  bwork *w = arg;
  bnd *b = w->b;
  uint8_t *s = malloc(b->n), *truth = malloc(b->n);
  for (int i; (i = atomic_fetch_add(&b->next, 1)) < b->nstr;) {
    if (i > atomic_load(&b->first)) break;
    int e = -1;
    if (s && truth) e = check_string(b, b->run[w->k], i, s, truth, &b->err[i]);
    else snprintf(b->err[i].msg, sizeof b->err[i].msg, "out of memory at n = %zu", b->n);
    b->res[i] = (signed char)e;
    if (e == 1) continue;
    /* first = min(first, i) */
    for (int f = atomic_load(&b->first); i < f;)
      if (atomic_compare_exchange_weak(&b->first, &f, i)) break;
  }
  free(s);
  free(truth);
  return NULL;
}

/* 1 if the model is right at its edge positions on every adversarial
 * string of length n, 0 if not, -1 on an error (reported). */
static int exact_at(bnd *b, size_t n) {
  char msg[256];
  snprintf(msg, sizeof msg, "n = %zu", n);
  if (b->tried >= b->total) b->total = b->tried + 1;
  cli_progress_show(&b->prog, b->tried++, b->total, msg);
  size_t at[BND_EDGES];
  edge_positions(n, at);
  b->n = n, b->nstr = 0;
  for (int x = 0; x < b->k; x++)
    for (int y = 0; y < b->k; y++) {
      if (x == y && n > 1) continue;
      for (int shape = 0; shape < BND_EDGES; shape++)
        if (at[shape] < n) b->str[b->nstr++] = (bstr){x, y, shape, -1};
    }
  for (int k = 0; k < b->ties; k++) b->str[b->nstr++] = (bstr){0, 0, 0, k};
  atomic_store(&b->next, 0);
  atomic_store(&b->first, b->nstr);
  int T = b->T < b->nstr ? b->T : b->nstr, started = 1;
  for (int k = 0; k < T; k++) b->w[k] = (bwork){b, k};
  /* a thread that cannot be started leaves its strings to the others */
  for (; started < T; started++)
    if (pthread_create(&b->tid[started], NULL, check_strings, &b->w[started]) != 0) break;
  if (T > 0) check_strings(&b->w[0]);
  for (int k = 1; k < started; k++) pthread_join(b->tid[k], NULL);
  int f = atomic_load(&b->first);
  if (f == b->nstr) return 1;
  if (b->res[f] < 0) cli_error("%s", b->err[f].msg);
  return b->res[f];
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
      uint64_t v;
      if (cli_whole("--max-n", argv[++i], &v)) return HS_EXIT_ERROR;
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
static void alphabet(bnd *b, const hs_program *p) {
  uint8_t set[256];
  if (hs_program_lang(p) != HS_LANG_LTL) {
    for (; b->k < hs_program_vocab_size(p); b->k++)
      b->sym[b->k] = (uint8_t)hs_program_token_byte(p, b->k);
    b->sym[b->k++] = (uint8_t)hs_program_other_byte(p);
  } else {
    hs_program_alphabet(p, set);
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

static void print_row(const cli_opts *o, const bnd_opts *bo, const char *text,
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
  printf("\"%s\",%s,%g,%s,", o->file ? o->file : text,
         hs_mode_name((hs_mode)o->mode), o->mode == HS_MODE_HARD ? 0 : o->scale,
         bo->pname);
  if (bad) printf("%zu,%zu,%s", good, bad, real);
  else printf(">%zu,,%s", good, real);
  cli_meta_columns(stdout);
  putchar('\n');
}

static void bnd_free(bnd *b) {
  for (int k = 0; b->run && k < b->T; k++) hs_runner_free(b->run[k]);
  free(b->run);
  free(b->str);
  free(b->res);
  free(b->err);
  free(b->tid);
  free(b->w);
}

/* The search on a compiled model: 0, or HS_EXIT_ERROR (reported). */
static int run_search(const cli_opts *o, const bnd_opts *bo, const hs_program *p,
                      const char *text, const hs_model *m) {
  hs_error he;
  /* one runner per thread, each on one thread (the strings go in
   * parallel, not the rows) */
  hs_run_opts ro = {.precision = bo->prec, .kernels = o->kt, .edges_only = 1,
                    .score_round = bo->rnd, .qkv_round = bo->qkv, .threads = 1};
  bnd b = {.p = p, .m = m, .T = o->threads > 1 ? o->threads : 1};
  alphabet(&b, p);
  size_t tn = bo->max_n < ((size_t)1 << 20) ? bo->max_n : (size_t)1 << 20;
  uint8_t *ts = malloc(tn);
  while (ts && b.ties < BND_TIES && hs_model_tie_string(m, b.ties, tn, ts)) b.ties++;
  free(ts);
  int maxstr = BND_EDGES * b.k * b.k + b.ties;
  b.run = calloc((size_t)b.T, sizeof *b.run);
  b.str = malloc((size_t)maxstr * sizeof *b.str);
  b.res = malloc((size_t)maxstr);
  b.err = malloc((size_t)maxstr * sizeof *b.err);
  b.tid = malloc((size_t)b.T * sizeof *b.tid);
  b.w = malloc((size_t)b.T * sizeof *b.w);
  if (!b.run || !b.str || !b.res || !b.err || !b.tid || !b.w) {
    bnd_free(&b);
    return cli_error("out of memory");
  }
  for (int k = 0; k < b.T; k++)
    if (!(b.run[k] = hs_runner_new(m, &ro, &he))) {
      bnd_free(&b);
      return cli_error("%s", he.msg);
    }
  /* the counting comparisons' exact region can end before the search
   * does: say so before its answer (float16 storage rounds sooner still) */
  double cmax = hs_model_count_max_n(m, bo->prec == HS_PREC_F64 ? 53 : 24);
  if (cmax < (double)bo->max_n)
    fprintf(stderr, "hardsoft: note: the counting comparisons are proven exact only up "
            "to n = %.0f in %s; beyond it the search measures rounding\n", cmax,
            bo->prec == HS_PREC_F64 ? "f64" : "f32");
  /* the doubling search's lengths, each k^2 * 6 strings at most on T
   * threads, one pass each (bisection adds at most log2 of the last step
   * more), and T runs held at once */
  size_t ns[96];
  double times[96];
  int nn = 0, rounds = (maxstr + b.T - 1) / b.T;
  for (size_t q = 1; q <= bo->max_n && nn < 93; q *= 2)
    for (size_t n = q > 1 ? q - 1 : q; n <= q + 1 && n <= bo->max_n; n++)
      ns[nn] = n, times[nn++] = rounds;
  b.total = (uint64_t)nn;
  int rc = HS_EXIT_ERROR;
  cli_opts po = *o; /* each run is on one thread */
  po.threads = 1;
  if (!cli_predict_runs(&po, m, &ro, nn, ns, times, b.T < maxstr ? b.T : maxstr,
                        "the doubling search")) {
    cli_progress_start(&b.prog, o, "lengths");
    size_t good = 0, bad = 0;
    int e = search(&b, bo->max_n, &good, &bad);
    cli_progress_end(&b.prog);
    if (e >= 0) print_row(o, bo, text, good, bad), rc = 0;
  }
  bnd_free(&b);
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
  rc = cli_parse(na, args, 2, O_MODE | O_SCALE | O_SIGN | O_ISA | O_THREADS | O_PROG | O_MAXTIME | O_QUIET,
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
  const char *text = cli_lowered(&o, p);
  hs_error he;
  hs_compile_opts co = {.mode = (hs_mode)o.mode, .scale = o.scale, .sign = o.sign};
  hs_model *m = text ? hs_program_compile(p, &co, &he) : NULL;
  rc = HS_EXIT_ERROR;
  if (text && !m) cli_error("%s", he.msg);
  if (m) rc = run_search(&o, &bo, p, text, m);
  hs_model_free(m);
  hs_program_free(p);
  free(o.args);
  free(args);
  return rc;
}
