/* SPDX-License-Identifier: MIT */
/* hardsoft bench: sweeps formulas x modes x scales x ISAs x precisions x
 * lengths, timing the forward pass, checking it against the logic, and
 * writing one CSV row per point (the contract is in bench_usage). Peers
 * (torch, numpy, openblas) run as separate programs on the same model file
 * and the same string, and report in the same rows. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"

static const char *const bench_usage =
    "usage: hardsoft bench [OPTIONS]\n"
    "Times the forward pass over a sweep and checks every point against the\n"
    "logic. Lists are comma-separated.\n"
    "  --formula F        a formula (repeatable); default: --formulas\n"
    "  --formulas FILE    one formula per line, # comments (default: the suite's\n"
    "                     bench/formulas.txt, installed or in the source tree)\n"
    "  -f FILE            a formula or program in a file (repeatable, beside\n"
    "                     --formula); the formula column is FILE. Programs read\n"
    "                     random strings of their tokens plus one other token\n"
    "  --lang L           the language of every -f FILE (default: by extension)\n"
    "  --modes LIST       hard,pe,temp,fixed,rel (default pe,temp)\n"
    "  --scales LIST      values of mu (default 4)\n"
    "  --lengths LIST     string lengths n (default 256,1024,4096)\n"
    "  --isas LIST        @ISAS@ and the peers torch,numpy,\n"
    "                     openblas and ort (ONNX Runtime in node on the\n"
    "                     exported graph, f32 only: its f64 points are left out)\n"
    "                     (default: every ISA this CPU runs)\n"
    "  --precisions LIST  f32,f64 (default f32)\n"
    "  --threads LIST     threads splitting the query rows (default 1; peers\n"
    "                     always run one thread)\n"
    "  --repeat R         timed runs per point (default 5), after one warm-up\n"
    "  --sign S           counting comparisons: layernorm (default) or temp\n"
    "  --skip LIST        auto (default), online, on, off; each value is a point.\n"
    "                     on,off: softmax rows on the two-pass kernel with\n"
    "                     exact tile skipping (on) or without (off, the same\n"
    "                     bits); online: the one-pass online kernel; auto: per\n"
    "                     head, on where its cost estimated from sampled\n"
    "                     rows is below online's, else online; uniform heads\n"
    "                     (counts) by prefix sums, O(n). Hard heads\n"
    "                     with exact scores skip under auto and on (the same\n"
    "                     bits as off and online). Also rows, tiles: the online\n"
    "                     kernel forced one row per call or 4 rows per tile\n"
    "                     call on softmax heads (hs_run_opts.attn_tile; skip\n"
    "                     column online-rows / online-tiles, the same bits)\n"
    "  --error-max-n N    measure attention error only up to this n (default 4096;\n"
    "                     it costs a second pass over the keys each row's kernel\n"
    "                     read, none for heads run by prefix sums)\n"
    "  --seed S           seed of the random strings (default 1)\n"
    "  --csv FILE         write the CSV here (default: standard output)\n"
    "  --md FILE          also write a Markdown table: a line saying where it\n"
    "                     comes from (CPU, CPUs, compiler, commit, date, repeats),\n"
    "                     then the CSV's main columns,\n"
    "                     peak memory in B, KiB or MiB, and two speed-ups: the\n"
    "                     scalar row's median over this one (same point, other\n"
    "                     ISA) and the 1-thread row's (same point, threads 1);\n"
    "                     - where the sweep has no such row\n"
    "  --latex FILE       also write that table for LaTeX (booktabs), the line\n"
    "                     in a note row below it\n"
    "  --quick            a short default sweep (a S b and one depth-3 formula,\n"
    "                     n = 256,1024, repeat 3)\n"
    "  --quiet            no progress on standard error (shown only when it is\n"
    "                     a terminal: points done, rate, time left)\n"
    "CSV columns: formula,mode,scale,isa,precision,threads,n,seconds_median,\n"
    "seconds_min,seconds_max,positions_per_s,peak_bytes,agree_fraction,\n"
    "max_attn_error (nan where not measured), then repeat,sign,skip,\n"
    "skipped_fraction,version,cpu,cores,memory_bytes,kernel,build,commit,date\n"
    "(sign: how counting comparisons get their sign; skip: auto, online, on or\n"
    "off; skipped_fraction: key tiles left out over the rows on the two-pass\n"
    "kernel, nan for online and peers; version: hardsoft's, or what a peer\n"
    "reports of itself, e.g. its PyTorch and NumPy versions).\n"
    "  --phases           time the pass by phase; adds the columns phase_gemm_s,\n"
    "                     phase_bounds_s, phase_search_s, phase_attn_s,\n"
    "                     phase_finish_s, phase_wait_s, phase_prefix_s (the\n"
    "                     prefix sums of uniform heads) at the end (seconds,\n"
    "                     median over the repeats, each the mean over the\n"
    "                     threads: they add up to about seconds_median; nan\n"
    "                     for peers; hs_run_result.phase_s says what each is),\n"
    "                     then attn_keys, attn_segments: the keys the softmax\n"
    "                     kernels took and the runs of consecutive keys they\n"
    "                     came in (hs_run_result.attn_keys; nan for peers)\n";

#define MAXL 64
typedef struct bench_opts {
  const char *formulas[MAXL];
  int nformulas;
  const char *progs[MAXL]; /* -f FILE */
  int nprogs, lang;
  int modes[MAXL], nmodes;
  double scales[MAXL];
  int nscales;
  size_t lengths[MAXL];
  int nlengths;
  char isas[MAXL][16];
  int nisas;
  hs_precision precs[2];
  int nprecs;
  int threads[MAXL], nthreads;
  int skips[4], nskips; /* hs_skip values; none given: HS_SKIP_AUTO */
  int phases;           /* --phases */
  int repeat;
  hs_sign sign;
  size_t error_max_n;
  uint64_t seed;
  const char *csv, *md, *latex, *file;
  char default_file[4096]; /* the suite's formulas (suite_file) */
  int quiet;
} bench_opts;

static char *split_next(char **p) {
  char *s = *p, *c;
  if (!s || !*s) return NULL;
  if ((c = strchr(s, ','))) { *c = 0; *p = c + 1; } else *p = s + strlen(s);
  return s;
}

/* Parses a comma list with `one` into out; returns count or -1. */
static int parse_list(const char *opt, const char *v, int max,
                      int (*one)(const char *opt, const char *tok, int k, void *out),
                      void *out) {
  char buf[1024], *p = buf, *tok;
  int k = 0;
  if (strlen(v) >= sizeof buf || !*v) return cli_error("%s: bad list '%s'", opt, v), -1;
  if (cli_list(opt, v)) return -1;
  strcpy(buf, v);
  while ((tok = split_next(&p))) {
    if (k == max) return cli_error("%s: at most %d values", opt, max), -1;
    if (one(opt, tok, k++, out)) return -1;
  }
  return k;
}

static int one_mode(const char *opt, const char *t, int k, void *out) {
  int m = hs_mode_parse(t);
  if (m < 0) return cli_error("%s: '%s' is not a mode (hard, pe, temp, fixed, rel)", opt, t);
  ((int *)out)[k] = m;
  return 0;
}
/* the numbers of a list: each checked against its option's range
 * (src/cli/options.c) */
static int one_scale(const char *opt, const char *t, int k, void *out) {
  return cli_real(opt, t, &((double *)out)[k]) ? -1 : 0;
}
static int one_len(const char *opt, const char *t, int k, void *out) {
  uint64_t v;
  if (cli_whole(opt, t, &v)) return -1;
  ((size_t *)out)[k] = (size_t)v;
  return 0;
}
static int one_thread(const char *opt, const char *t, int k, void *out) {
  uint64_t v;
  if (cli_whole(opt, t, &v)) return -1;
  ((int *)out)[k] = (int)v;
  return 0;
}
static int is_peer(const char *s) {
  return !strcmp(s, "torch") || !strcmp(s, "numpy") || !strcmp(s, "openblas") ||
         !strcmp(s, "ort");
}
static int one_isa(const char *opt, const char *t, int k, void *out) {
  int isa = hs_isa_parse(t);
  char names[128];
  cli_isa_names(names, sizeof names, ", ", ", ");
  if (isa < 0 && !is_peer(t))
    return cli_error("%s: '%s' is not %s, torch, numpy, openblas or ort", opt, t, names);
  if (isa >= 0 && !hs_isa_supported((hs_isa)isa))
    return cli_error("%s: this CPU cannot run %s", opt, t);
  snprintf(((char(*)[16])out)[k], 16, "%s", t);
  return 0;
}
static int one_prec(const char *opt, const char *t, int k, void *out) {
  if (strcmp(t, "f32") && strcmp(t, "f64"))
    return cli_error("%s: '%s' is not f32 or f64", opt, t);
  ((hs_precision *)out)[k] = t[1] == '6' ? HS_PREC_F64 : HS_PREC_F32;
  return 0;
}

/* --skip values beyond hs_skip: the online kernel with
 * hs_run_opts.attn_tile forced to -1 (rows) or 1 (tiles) */
#define SKIP_ROWS 4
#define SKIP_TILES 5

static int one_skip(const char *opt, const char *t, int k, void *out) {
  int v = !strcmp(t, "on") ? HS_SKIP_ON : !strcmp(t, "off") ? HS_SKIP_OFF
        : !strcmp(t, "auto") ? HS_SKIP_AUTO : !strcmp(t, "online") ? HS_SKIP_ONLINE
        : !strcmp(t, "rows") ? SKIP_ROWS : !strcmp(t, "tiles") ? SKIP_TILES : -1;
  if (v < 0)
    return cli_error("%s: '%s' is not auto, online, on, off, rows or tiles", opt, t);
  ((int *)out)[k] = v;
  return 0;
}

static int suite_file(const char *rel, char *path, size_t len);

static int bench_parse(int argc, char **argv, bench_opts *b) {
  memset(b, 0, sizeof *b);
  b->modes[0] = HS_MODE_PE, b->modes[1] = HS_MODE_TEMP, b->nmodes = 2;
  b->scales[0] = 4, b->nscales = 1;
  b->lengths[0] = 256, b->lengths[1] = 1024, b->lengths[2] = 4096, b->nlengths = 3;
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (hs_isa_supported((hs_isa)i))
      snprintf(b->isas[b->nisas++], 16, "%s", hs_isa_name((hs_isa)i));
  b->precs[0] = HS_PREC_F32, b->nprecs = 1;
  b->threads[0] = 1, b->nthreads = 1;
  b->skips[0] = HS_SKIP_AUTO, b->nskips = 1;
  b->repeat = 5;
  b->error_max_n = 4096;
  b->seed = 1;
  if (suite_file("bench/formulas.txt", b->default_file, sizeof b->default_file) != 0)
    snprintf(b->default_file, sizeof b->default_file, "bench/formulas.txt");
  b->file = b->default_file;
  b->lang = -1;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : "";
    int n = 0;
#define IS(name) (strcmp(a, name) == 0 && (++i, 1))
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      cli_put_usage(bench_usage, stdout);
      return 1;
    } else if (strcmp(a, "--quiet") == 0) {
      b->quiet = 1;
    } else if (strcmp(a, "--phases") == 0) {
      b->phases = 1;
    } else if (strcmp(a, "--quick") == 0) {
      b->formulas[0] = "a S b";
      b->formulas[1] = "G (a -> (b U c)) & O (X a)";
      b->nformulas = 2;
      b->lengths[0] = 256, b->lengths[1] = 1024, b->nlengths = 2;
      b->repeat = 3;
    } else if (IS("--formula")) {
      if (b->nformulas == MAXL) return cli_error("--formula: at most %d", MAXL);
      b->formulas[b->nformulas++] = v;
    } else if (IS("--formulas")) { b->file = v;
    } else if (IS("-f")) {
      if (b->nprogs == MAXL) return cli_error("-f: at most %d", MAXL);
      b->progs[b->nprogs++] = v;
    } else if (IS("--lang")) {
      if ((b->lang = hs_lang_parse(v)) < 0)
        return cli_error("--lang '%s' is not a language (expected ltl, crasp or brasp)", v);
    } else if (IS("--modes")) { n = b->nmodes = parse_list(a, v, MAXL, one_mode, b->modes);
    } else if (IS("--scales")) { n = b->nscales = parse_list(a, v, MAXL, one_scale, b->scales);
    } else if (IS("--lengths")) { n = b->nlengths = parse_list(a, v, MAXL, one_len, b->lengths);
    } else if (IS("--isas")) { n = b->nisas = parse_list(a, v, MAXL, one_isa, b->isas);
    } else if (IS("--precisions")) { n = b->nprecs = parse_list(a, v, 2, one_prec, b->precs);
    } else if (IS("--threads")) { n = b->nthreads = parse_list(a, v, MAXL, one_thread, b->threads);
    } else if (IS("--skip")) { n = b->nskips = parse_list(a, v, 4, one_skip, b->skips);
    } else if (IS("--repeat")) {
      uint64_t r;
      if (cli_whole("--repeat", v, &r)) return 2;
      b->repeat = (int)r;
    } else if (IS("--error-max-n")) { if (one_len(a, v, 0, &b->error_max_n)) return 2;
    } else if (IS("--seed")) {
      uint64_t s;
      if (cli_whole("--seed", v, &s)) return 2;
      b->seed = s;
    } else if (IS("--sign")) {
      if (!strcmp(v, "temp")) b->sign = HS_SIGN_TEMP;
      else if (!strcmp(v, "layernorm")) b->sign = HS_SIGN_LAYERNORM;
      else return cli_error("--sign '%s' is not layernorm or temp", v);
    } else if (IS("--csv")) { b->csv = v;
    } else if (IS("--md")) { b->md = v;
    } else if (IS("--latex")) { b->latex = v;
    } else {
      return cli_error("bench: unknown option '%s' (see 'hardsoft bench --help')", a);
    }
#undef IS
    if (n < 0) return 2;
    if (i >= argc) return cli_error("%s needs a value", a);
  }
  return 0;
}

/* ------------------------------------------------------------- a point */

typedef struct point {
  const char *formula, *mode, *isa;
  double scale;
  hs_precision prec;
  int threads;
  size_t n;
  double med, min, max, agree, err;
  size_t peak;
  int skip;         /* hs_skip */
  double skipped;   /* fraction of key tiles left out (nan: online, peer) */
  char version[192]; /* a peer's own report of its version ("": hardsoft) */
  double phase[HS_PHASE_COUNT]; /* --phases: medians (nan: peers) */
  double keys, segs; /* --phases: hs_run_result.attn_keys, attn_segments */
} point;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void summarize(point *p, double *secs, int r) {
  qsort(secs, (size_t)r, sizeof *secs, cmp_double);
  p->min = secs[0];
  p->max = secs[r - 1];
  p->med = r % 2 ? secs[r / 2] : 0.5 * (secs[r / 2 - 1] + secs[r / 2]);
}

static double agreement(const uint8_t *bits, const uint8_t *truth, size_t n) {
  size_t ok = 0;
  for (size_t i = 0; i < n; i++) ok += bits[i] == truth[i];
  return n ? (double)ok / (double)n : 1.0;
}

/* hardsoft's own forward pass on one ISA. */
static int time_hardsoft(const bench_opts *b, const hs_model *m, hs_isa isa,
                         const uint8_t *s, const uint8_t *truth, point *p) {
  hs_error he;
  double secs[1000], ph[HS_PHASE_COUNT][1000];
  hs_run_opts ro = {.precision = p->prec, .kernels = hs_kernels_for(isa),
                    .threads = p->threads, .phases = b->phases,
                    .skip = p->skip >= SKIP_ROWS ? HS_SKIP_ONLINE : (hs_skip)p->skip,
                    .attn_tile = p->skip == SKIP_ROWS ? -1 : p->skip == SKIP_TILES ? 1 : 0};
  hs_runner *r = hs_runner_new(m, &ro, &he);
  if (!r) return cli_error("%s", he.msg);
  hs_run_result res;
  int rc = 0;
  for (int k = -1; k < b->repeat && rc == 0; k++) {
    double t0 = now();
    rc = hs_runner_run(r, s, p->n, &res, &he);
    if (rc) break;
    if (k >= 0) {
      secs[k] = now() - t0;
      for (int f = 0; f < HS_PHASE_COUNT; f++) ph[f][k] = res.phase_s[f];
    } else {
      p->agree = agreement(res.bits, truth, p->n), p->peak = res.peak_bytes;
      p->keys = (double)res.attn_keys, p->segs = (double)res.attn_segments;
      p->skipped = p->skip == HS_SKIP_ONLINE || p->skip >= SKIP_ROWS || res.tiles_total == 0
                       ? NAN : (double)res.tiles_skipped / (double)res.tiles_total;
    }
    hs_run_result_free(&res);
  }
  hs_runner_free(r);
  if (rc) return cli_error("%s", he.msg);
  for (int f = 0; f < HS_PHASE_COUNT && b->phases; f++) {
    point q;
    summarize(&q, ph[f], b->repeat);
    p->phase[f] = q.med;
  }
  summarize(p, secs, b->repeat);
  p->err = NAN;
  ro.phases = 0;
  if (p->n <= b->error_max_n) {
    ro.want_attn_error = 1;
    if (hs_forward(m, s, p->n, &ro, &res, &he)) return cli_error("%s", he.msg);
    p->err = 0;
    for (int l = 0; hs_model_layer_nheads(m, l) >= 0; l++)
      if (res.attn_error[l] > p->err) p->err = res.attn_error[l];
    hs_run_result_free(&res);
  }
  return 0;
}

/* ------------------------------------------------------------- data */

/* What bench reads besides its options (the default formulas, the peer
 * programs) lives in one folder with the source tree's layout: the
 * installed PREFIX/share/hardsoft beside PREFIX/bin/hardsoft, else the
 * source tree above the build directory of this executable, else the
 * current directory. *path is root/rel. 0, or -1 when no root has it. */
static int suite_file(const char *rel, char *path, size_t len) {
  char exe[4096];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[k > 0 ? k : 0] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  const char *roots[] = {"/../share/hardsoft/", "/../"};
  for (int i = 0; slash && i < 2; i++) {
    snprintf(path, len, "%s%s%s", exe, roots[i], rel);
    if (access(path, R_OK) == 0) return 0;
  }
  snprintf(path, len, "%s", rel);
  return access(path, R_OK) == 0 ? 0 : -1;
}

/* The folder of this executable, with its trailing slash. */
static void exe_dir(char *buf, size_t len) {
  ssize_t k = readlink("/proc/self/exe", buf, len - 1);
  buf[k > 0 ? k : 0] = 0;
  char *slash = strrchr(buf, '/');
  if (slash) slash[1] = 0;
}

/* Where the peer programs live: $HARDSOFT_PEERS, else bench/peers of the
 * data folder (suite_file). */
static void peers_dir(char *buf, size_t len) {
  const char *env = getenv("HARDSOFT_PEERS");
  if (env && *env) { snprintf(buf, len, "%s", env); return; }
  suite_file("bench/peers", buf, len);
}

/* The onnxruntime-node package the ort peer loads: $HARDSOFT_ORT_NODE,
 * else the one make installs into the build directory of this executable,
 * else node/node_modules/onnxruntime-node of the data folder. */
static int ort_package(char *buf, size_t len) {
  const char *env = getenv("HARDSOFT_ORT_NODE");
  if (env && *env) {
    snprintf(buf, len, "%s", env);
    return access(buf, R_OK);
  }
  char dir[3000]; /* leaves room in buf's 4096 for the package's path */
  exe_dir(dir, sizeof dir);
  snprintf(buf, len, "%snode/node_modules/onnxruntime-node", dir);
  if (access(buf, R_OK) == 0) return 0;
  return suite_file("node/node_modules/onnxruntime-node", buf, len);
}

/* Whether a program is on PATH. */
static int on_path(const char *prog) {
  const char *path = getenv("PATH");
  char buf[4096];
  for (const char *p = path ? path : ""; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
    if (n && access(buf, X_OK) == 0) return 1;
    p += n + (p[n] == ':');
  }
  return 0;
}

/* The ort peer's command: the model exported beside model_path (.onnx),
 * run by tests/onnx/ort-run.js of the data folder ($HARDSOFT_ORT_RUN
 * replaces it) with onnxruntime-node (ort_package). What is missing is
 * said in one line with how to get it. */
static int ort_command(const bench_opts *b, const char *model_path,
                       const char *input_path, char *cmd, size_t len) {
  char onnx[4096], pkg[4096], ortopt[4200] = "";
  hs_error he;
  const char *js = getenv("HARDSOFT_ORT_RUN");
  char jsbuf[4200];
  if (!on_path("node"))
    return cli_error("bench: the ort peer needs node, which is not on PATH "
                     "(apt-get install nodejs)");
  int have = ort_package(pkg, sizeof pkg) == 0;
  if (have) snprintf(ortopt, sizeof ortopt, "--ort '%s' ", pkg);
  if (!js || !*js) {
    if (!have)
      return cli_error("bench: the ort peer needs onnxruntime-node: run 'make "
                       "build/node/node_modules/onnxruntime-node' in the source "
                       "tree, or 'npm install onnxruntime-node' and set "
                       "HARDSOFT_ORT_NODE to its node_modules/onnxruntime-node");
    if (suite_file("tests/onnx/ort-run.js", jsbuf, sizeof jsbuf))
      return cli_error("bench: the ort peer's tests/onnx/ort-run.js is neither "
                       "installed nor in a source tree (set HARDSOFT_ORT_RUN)");
    js = jsbuf;
  }
  snprintf(onnx, sizeof onnx, "%s.onnx", model_path);
  hs_model *m = hs_model_load(model_path, &he);
  int rc = !m || hs_model_save_onnx(m, onnx, &he);
  hs_model_free(m);
  if (rc) return cli_error("bench: ort: %s", he.msg);
  int w = snprintf(cmd, len, "node '%s' %s--time %d --input '%s' '%s'", js, ortopt,
                   b->repeat, input_path, onnx);
  return w < 0 || (size_t)w >= len ? cli_error("bench: ort: paths too long") : 0;
}

/* The last non-empty line of a peer's standard error (its one-line
 * reason), or "" when it said nothing. */
static void last_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  char line[512];
  buf[0] = 0;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (line[0]) snprintf(buf, len, "%s", line);
  }
  if (f) fclose(f);
}

/* A peer: runs as a child on the model file and string file, prints one
 * JSON line {"seconds": [...], "peak_bytes": N, "bits": "0101..."}. */
static int time_peer(const bench_opts *b, const char *model_path,
                     const char *input_path, const uint8_t *truth, point *p) {
  char dir[4096], cmd[8192], rep[16], errpath[4096], why[512], *line = NULL;
  size_t cap = 0;
  const char *py = getenv("PYTHON");
  peers_dir(dir, sizeof dir);
  snprintf(rep, sizeof rep, "%d", b->repeat);
  const char *prec = p->prec == HS_PREC_F64 ? "f64" : "f32";
  if (!strcmp(p->isa, "ort")) {
    if (ort_command(b, model_path, input_path, cmd, sizeof cmd)) return HS_EXIT_ERROR;
  } else if (!strcmp(p->isa, "openblas")) {
    char exe[4096];
    exe_dir(exe, sizeof exe);
    snprintf(cmd, sizeof cmd, "'%shs-peer-openblas' '%s' --time %s --precision %s --input '%s'",
             exe, model_path, rep, prec, input_path);
  } else {
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/forward.py' '%s' --time %s --precision %s --input '%s'%s",
             py && *py ? py : "/usr/bin/python3", dir, model_path, rep, prec,
             input_path, strcmp(p->isa, "torch") ? "" : " --torch");
  }
  /* the peer's standard error is kept apart: on failure its last line
   * (its own one-line reason) is said, not a stack trace */
  snprintf(errpath, sizeof errpath, "%s.stderr", input_path);
  size_t used = strlen(cmd);
  snprintf(cmd + used, sizeof cmd - used, " 2>'%s'", errpath);
  FILE *f = popen(cmd, "r");
  if (!f) return cli_error("bench: cannot start peer %s", p->isa);
  ssize_t got = getline(&line, &cap, f);
  int st = pclose(f);
  cmd[used] = 0;
  last_line(errpath, why, sizeof why);
  unlink(errpath);
  if (got <= 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    free(line);
    if (why[0]) return cli_error("bench: peer %s failed: %s", p->isa, why);
    return cli_error("bench: peer %s failed (command: %s)", p->isa, cmd);
  }
  cJSON *j = cJSON_Parse(line);
  free(line);
  cJSON *secs = cJSON_GetObjectItem(j, "seconds");
  cJSON *bits = cJSON_GetObjectItem(j, "bits");
  cJSON *peak = cJSON_GetObjectItem(j, "peak_bytes");
  int ns = cJSON_GetArraySize(secs);
  if (!j || !cJSON_IsArray(secs) || ns < 1 || ns > 1000 || !cJSON_IsString(bits) ||
      strlen(bits->valuestring) != p->n) {
    cJSON_Delete(j);
    return cli_error("bench: peer %s printed a malformed report", p->isa);
  }
  double t[1000];
  for (int k = 0; k < ns; k++) t[k] = cJSON_GetArrayItem(secs, k)->valuedouble;
  summarize(p, t, ns);
  size_t ok = 0;
  for (size_t i = 0; i < p->n; i++) ok += (bits->valuestring[i] == '1') == truth[i];
  p->agree = p->n ? (double)ok / (double)p->n : 1;
  p->peak = cJSON_IsNumber(peak) ? (size_t)peak->valuedouble : 0;
  cJSON *ver = cJSON_GetObjectItem(j, "version");
  snprintf(p->version, sizeof p->version, "%s",
           cJSON_IsString(ver) ? ver->valuestring : "version not reported");
  for (char *c = p->version; *c; c++)
    if ((unsigned char)*c < 0x20) *c = ' '; /* one CSV line per row */
  p->err = NAN;
  cJSON_Delete(j);
  return 0;
}

/* ------------------------------------------------------------- output */

#define PHASE_COLUMNS \
  ",phase_gemm_s,phase_bounds_s,phase_search_s,phase_attn_s,phase_finish_s,phase_wait_s," \
  "phase_prefix_s,attn_keys,attn_segments"

static void csv_header(FILE *f, int phases) {
  fputs("formula,mode,scale,isa,precision,threads,n,seconds_median,seconds_min,"
        "seconds_max,positions_per_s,peak_bytes,agree_fraction,max_attn_error,"
        "repeat,sign,skip,skipped_fraction,version" CLI_META_HEADER, f);
  fputs(phases ? PHASE_COLUMNS "\n" : "\n", f);
}

static void csv_quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static const char *skip_name(int skip) {
  return skip == HS_SKIP_ON ? "on" : skip == HS_SKIP_OFF ? "off"
       : skip == HS_SKIP_AUTO ? "auto" : skip == SKIP_ROWS ? "online-rows"
       : skip == SKIP_TILES ? "online-tiles" : "online";
}

static void csv_row(FILE *f, const point *p, int repeat, hs_sign sign, int phases) {
  csv_quoted(f, p->formula);
  fprintf(f, ",%s,%g,%s,%s,%d,%zu,%.6e,%.6e,%.6e,%.6e,%zu,%.6f,%.3e", p->mode,
          p->scale, p->isa, p->prec == HS_PREC_F64 ? "f64" : "f32", p->threads,
          p->n, p->med, p->min, p->max, p->med > 0 ? (double)p->n / p->med : 0,
          p->peak, p->agree, p->err);
  fprintf(f, ",%d,%s", repeat, sign == HS_SIGN_TEMP ? "temp" : "layernorm");
  fprintf(f, ",%s,%.6f", skip_name(p->skip), p->skipped);
  fputc(',', f);
  if (p->version[0]) {
    csv_quoted(f, p->version);
  } else {
    char v[64];
    snprintf(v, sizeof v, "hardsoft %s", hs_version());
    csv_quoted(f, v);
  }
  cli_meta_columns(f);
  for (int k = 0; phases && k < HS_PHASE_COUNT; k++) fprintf(f, ",%.6e", p->phase[k]);
  if (phases) fprintf(f, ",%.0f,%.0f", p->keys, p->segs);
  fputc('\n', f);
}

/* ------------------------------------------------------------- tables */

/* The points of the sweep, kept for the tables --md and --latex write at
 * the end (their speed-up columns compare rows with each other). */
typedef struct table { point *p; int n, cap; } table;

static int table_add(table *t, const point *p) {
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    point *np = realloc(t->p, (size_t)cap * sizeof *np);
    if (!np) return cli_error("out of memory");
    t->p = np, t->cap = cap;
  }
  t->p[t->n++] = *p;
  return 0;
}

/* The median of the row that is p but for its ISA (scalar) or its thread
 * count (1), or 0 when the sweep has no such row. Peers run one thread
 * without skip options: against scalar they compare with its first row
 * of the same point. */
static double reference(const table *t, const point *p, int by_threads) {
  for (int i = 0; i < t->n; i++) {
    const point *q = &t->p[i];
    int isa_ok = by_threads ? !strcmp(q->isa, p->isa) : !strcmp(q->isa, "scalar");
    int thr_ok = by_threads ? q->threads == 1 : q->threads == p->threads;
    int skip_ok = q->skip == p->skip || (!by_threads && hs_isa_parse(p->isa) < 0);
    if (isa_ok && thr_ok && skip_ok && q->formula == p->formula &&
        !strcmp(q->mode, p->mode) && q->scale == p->scale && q->prec == p->prec &&
        q->n == p->n)
      return q->med;
  }
  return 0;
}

/* The columns of both tables, and each row's cells as plain text. */
enum { NCOL = 15 };
static const char *const col_md[NCOL] = {
    "formula", "mode", "mu", "isa", "precision", "threads", "skip", "n",
    "ms (median)", "positions/s", "peak memory", "agree", "max attn error",
    "speed-up vs scalar", "speed-up vs 1 thread"};
static const char *const col_tex[NCOL] = {
    "formula", "mode", "$\\mu$", "ISA", "precision", "threads", "skip", "$n$",
    "ms (median)", "positions/s", "peak memory", "agree", "max.\\ attn.\\ error",
    "$\\times$ scalar", "$\\times$ 1 thread"};
static const char col_align[NCOL + 1] = "llllllllrrrrrrr";

static void peak_text(size_t bytes, char *buf, size_t len) {
  if (bytes >= 1048576) snprintf(buf, len, "%.1f MiB", (double)bytes / 1048576.0);
  else if (bytes >= 1024) snprintf(buf, len, "%.1f KiB", (double)bytes / 1024.0);
  else snprintf(buf, len, "%zu B", bytes);
}

static void row_cells(const table *t, const point *p, char cell[NCOL][200]) {
  snprintf(cell[0], 200, "%s", p->formula);
  snprintf(cell[1], 200, "%s", p->mode);
  snprintf(cell[2], 200, "%g", p->scale);
  snprintf(cell[3], 200, "%s", p->isa);
  snprintf(cell[4], 200, "%s", p->prec == HS_PREC_F64 ? "f64" : "f32");
  snprintf(cell[5], 200, "%d", p->threads);
  snprintf(cell[6], 200, "%s", skip_name(p->skip));
  snprintf(cell[7], 200, "%zu", p->n);
  snprintf(cell[8], 200, "%.4g", p->med * 1e3);
  snprintf(cell[9], 200, "%.3g", p->med > 0 ? (double)p->n / p->med : 0);
  peak_text(p->peak, cell[10], 200);
  snprintf(cell[11], 200, "%.4f", p->agree);
  snprintf(cell[12], 200, "%.2g", p->err);
  for (int k = 0; k < 2; k++) {
    double ref = reference(t, p, k);
    if (ref > 0 && p->med > 0) snprintf(cell[13 + k], 200, "%.2f", ref / p->med);
    else snprintf(cell[13 + k], 200, "-");
  }
}

static void md_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputc('\\', f);
    fputc(*s, f);
  }
}

/* Text in LaTeX: its special characters spelled so any document with
 * booktabs typesets them (< and > too, which OT1 fonts misprint). */
static void tex_text(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': case '%': case '$': case '#': case '_': case '{': case '}':
      fputc('\\', f), fputc(*s, f); break;
    case '~': fputs("\\textasciitilde{}", f); break;
    case '^': fputs("\\textasciicircum{}", f); break;
    case '\\': fputs("\\textbackslash{}", f); break;
    case '<': fputs("\\textless{}", f); break;
    case '>': fputs("\\textgreater{}", f); break;
    case '|': fputs("\\textbar{}", f); break;
    default: fputc(*s, f);
    }
  }
}

/* How a table is spelled: the text before a row (before the header row),
 * around the formula, between cells and after a row, the escaping of a
 * cell, and what stands for a missing value. */
typedef struct dialect {
  const char *open, *head_open, *code0, *code1, *sep, *end, *missing;
  void (*text)(FILE *, const char *);
} dialect;

static void table_body(FILE *f, const table *t, const dialect *d) {
  fputs(d->head_open, f);
  for (int c = 0; c < NCOL; c++)
    fprintf(f, "%s%s", c ? d->sep : "", d->text == md_text ? col_md[c] : col_tex[c]);
  fputs(d->end, f);
  if (d->text == md_text) {
    for (int c = 0; c < NCOL; c++) fputs(col_align[c] == 'r' ? "|---:" : "|---", f);
    fputs("|\n", f);
  } else {
    fputs("\\midrule\n", f);
  }
  for (int i = 0; i < t->n; i++) {
    char cell[NCOL][200];
    row_cells(t, &t->p[i], cell);
    fprintf(f, "%s%s", d->open, d->code0);
    d->text(f, cell[0]);
    fputs(d->code1, f);
    for (int c = 1; c < NCOL; c++) {
      fputs(d->sep, f);
      if (!strcmp(cell[c], "-")) fputs(d->missing, f);
      else d->text(f, cell[c]);
    }
    fputs(d->end, f);
  }
}

/* Both tables say where their numbers come from: the provenance line
 * (src/cli/provenance.c) above the Markdown table; below the LaTeX
 * tabular, its short form as a note row a paper prints with the table,
 * the whole line in a comment. */
static void write_md(FILE *f, const table *t, int repeat) {
  static const dialect md = {"| ", "| ", "`", "`", " | ", " |\n", "-", md_text};
  char prov[1024];
  cli_provenance_line(prov, sizeof prov, repeat, 1);
  md_text(f, prov);
  fputs(".\n\n", f);
  table_body(f, t, &md);
}

/* A booktabs tabular with the columns of the Markdown table, for a paper
 * to \input unchanged (\usepackage{booktabs}). */
static void write_latex(FILE *f, const table *t, int repeat) {
  static const dialect tex = {"", "", "\\texttt{", "}", " & ", " \\\\\n", "--", tex_text};
  char prov[1024];
  cli_provenance_line(prov, sizeof prov, repeat, 1);
  fprintf(f, "%% hardsoft %s bench: %d points\n%% ", hs_version(), t->n);
  for (const char *c = prov; *c; c++) fputc(*c == '\n' ? ' ' : *c, f);
  fprintf(f, "\n\\begin{tabular}{%s}\n\\toprule\n", col_align);
  table_body(f, t, &tex);
  cli_provenance_line(prov, sizeof prov, repeat, 0);
  fprintf(f, "\\bottomrule\n\\multicolumn{%d}{@{}l}{\\footnotesize ", NCOL);
  tex_text(f, prov);
  fputs("}\n\\end{tabular}\n", f);
}

/* Points done of the sweep, on standard error (src/cli/progress.c). */
static cli_progress bench_prog;
static void progress(int done, int total, const point *p) {
  char label[96];
  if (p) snprintf(label, sizeof label, "%.24s %s %s n = %zu", p->formula, p->mode,
                  p->isa, p->n);
  cli_progress_show(&bench_prog, (uint64_t)done, (uint64_t)total, p ? label : NULL);
  if (done == total) cli_progress_end(&bench_prog);
}

/* ------------------------------------------------------------- the sweep */

static int load_formula_file(bench_opts *b, char **store) {
  FILE *f = fopen(b->file, "r");
  if (!f) return cli_error("%s: %s", b->file, strerror(errno));
  char line[2048];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *p = line, *e = line + strlen(line);
    while (e > p && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ')) *--e = 0;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') continue;
    if (b->nformulas == MAXL) {
      fclose(f);
      return cli_error("%s:%d: at most %d formulas", b->file, lineno, MAXL);
    }
    char *dup = strdup(p);
    if (!dup) { fclose(f); return cli_error("out of memory"); }
    store[b->nformulas] = dup;
    b->formulas[b->nformulas++] = dup;
  }
  fclose(f);
  return 0;
}

static void random_string(uint64_t *seed, uint8_t *s, size_t n,
                          const uint8_t *sym, int k) {
  /* symbols uniform with long runs of one favourite (90%) every other
   * block of 64, so S and U witnesses lie both near and far */
  for (size_t i = 0; i < n; i++) {
    uint64_t z = (*seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    s[i] = ((i >> 6) & 1) && z % 10 ? sym[0] : sym[(z >> 8) % (uint64_t)k];
  }
}

/* The symbols of a sweep's random strings: a program's tokens' bytes and
 * that of every other token, or a formula's atoms and '#'; how many. */
static int sweep_symbols(const hs_program *prog, uint8_t sym[257]) {
  uint8_t set[256];
  int k = 0;
  if (hs_program_lang(prog) != HS_LANG_LTL) {
    for (; k < hs_program_vocab_size(prog); k++) sym[k] = (uint8_t)hs_program_token_byte(prog, k);
    sym[k++] = (uint8_t)hs_program_other_byte(prog);
    return k;
  }
  hs_program_alphabet(prog, set);
  for (int c = 0; c < 256; c++)
    if (set[c]) sym[k++] = (uint8_t)c;
  sym[k++] = '#';
  return k;
}

/* One formula or program (text: the label of its CSV rows). */
/* A row past the counting comparisons' exact region measures rounding,
 * not the construction: say so once per model, as boundary does. */
static void note_unproven(const bench_opts *b, const hs_model *m, const char *text) {
  size_t longest = 0;
  for (int li = 0; li < b->nlengths; li++) longest = b->lengths[li] > longest ? b->lengths[li] : longest;
  for (int pi = 0; pi < b->nprecs; pi++) {
    int f64 = b->precs[pi] == HS_PREC_F64;
    double cmax = hs_model_count_max_n(m, f64 ? 53 : 24);
    if (cmax < (double)longest)
      fprintf(stderr, "hardsoft: note: '%s', mode %s: the counting comparisons are proven exact "
              "only up to n = %.0f in %s; the rows past it measure rounding\n", text,
              hs_model_mode(m), cmax, f64 ? "f64" : "f32");
  }
}

static int sweep_program(const bench_opts *b, const hs_program *prog,
                         const char *text, FILE *csv, table *tab, int *done,
                         int total) {
  uint8_t sym[257];
  hs_error le;
  if (hs_program_lowered(prog, &le)) return cli_error("%s: %s", text, cli_msg(&le));
  int k = sweep_symbols(prog, sym);
  char tmpl[] = "/tmp/hardsoft-bench-XXXXXX";
  char *tmpd = mkdtemp(tmpl), model_path[64], input_path[64];
  if (!tmpd) return cli_error("bench: mkdtemp failed");
  snprintf(model_path, sizeof model_path, "%s/model.safetensors", tmpd);
  snprintf(input_path, sizeof input_path, "%s/input.txt", tmpd);
  int rc = 0;
  for (int mi = 0; mi < b->nmodes && !rc; mi++)
    for (int si = 0; si < (b->modes[mi] == HS_MODE_HARD ? 1 : b->nscales) && !rc; si++) {
      hs_error he;
      hs_compile_opts co = {.mode = (hs_mode)b->modes[mi], .scale = b->scales[si],
                            .sign = b->sign};
      hs_model *m = hs_program_compile(prog, &co, &he);
      if (!m) { rc = cli_error("%s: %s", text, he.msg); break; }
      if (hs_model_save(m, model_path, &he)) rc = cli_error("%s", he.msg);
      note_unproven(b, m, text);
      for (int li = 0; li < b->nlengths && !rc; li++) {
        size_t n = b->lengths[li];
        uint8_t *s = malloc(n + 1), *truth = malloc(n + 1);
        uint64_t seed = b->seed;
        if (!s || !truth) rc = cli_error("out of memory for n = %zu", n);
        if (!rc) {
          random_string(&seed, s, n, sym, k);
          rc = hs_program_truth(prog, s, n, truth, &he) ? cli_error("%s", he.msg) : 0;
        }
        FILE *in = rc ? NULL : fopen(input_path, "w");
        if (in) { fwrite(s, 1, n, in); fputc('\n', in); fclose(in); }
        for (int ii = 0; ii < b->nisas && !rc; ii++)
          for (int pi = 0; pi < b->nprecs && !rc; pi++)
            for (int ti = 0; ti < b->nthreads && !rc; ti++)
            for (int ki = 0; ki < b->nskips && !rc; ki++) {
              point p = {text, hs_mode_name(co.mode), b->isas[ii],
                         co.mode == HS_MODE_HARD ? 0 : co.scale, b->precs[pi],
                         b->threads[ti], n, 0, 0, 0, 0, 0, 0, b->skips[ki], NAN, "", {0}, NAN, NAN};
              for (int f = 0; f < HS_PHASE_COUNT; f++) p.phase[f] = NAN;
              int isa = hs_isa_parse(p.isa);
              if (isa < 0) {
                /* peers have no skip option: one row, skip "online";
                 * the ort graph is f32 (docs/ONNX.md) */
                if (ki > 0 || (!strcmp(p.isa, "ort") && p.prec == HS_PREC_F64)) {
                  ++*done;
                  continue;
                }
                p.skip = HS_SKIP_ONLINE;
              }
              progress(*done, total, &p);
              rc = isa >= 0 ? time_hardsoft(b, m, (hs_isa)isa, s, truth, &p)
                            : time_peer(b, model_path, input_path, truth, &p);
              if (rc) break;
              csv_row(csv, &p, b->repeat, b->sign, b->phases);
              fflush(csv);
              if (tab && (rc = table_add(tab, &p))) break;
              ++*done;
            }
        free(s);
        free(truth);
      }
      hs_model_free(m);
    }
  unlink(model_path);
  strcat(model_path, ".onnx"); /* the ort peer's export, if any */
  unlink(model_path);
  unlink(input_path);
  rmdir(tmpd);
  return rc;
}

static int sweep_formula(const bench_opts *b, const char *text, FILE *csv,
                         table *tab, int *done, int total) {
  hs_program *p = cli_program_text(text, strlen(text), HS_LANG_LTL, NULL);
  if (!p) return HS_EXIT_ERROR;
  int rc = sweep_program(b, p, text, csv, tab, done, total);
  hs_program_free(p);
  return rc;
}

static int sweep_file(const bench_opts *b, const char *path, FILE *csv,
                      table *tab, int *done, int total) {
  cli_opts o;
  memset(&o, 0, sizeof o);
  o.lang = b->lang;
  int skip;
  hs_program *p = cli_program(&o, path, &skip);
  if (!p) return HS_EXIT_ERROR;
  int rc = sweep_program(b, p, path, csv, tab, done, total);
  hs_program_free(p);
  return rc;
}

/* Output goes to FILE.tmp and is renamed into place only when complete. */
static FILE *open_tmp(const char *path, char *tmp, size_t len) {
  struct stat st;
  /* a device or pipe (/dev/null, /dev/stdout) is written in place: a
   * rename would replace it with a regular file */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    tmp[0] = 0;
    FILE *f = fopen(path, "w");
    if (!f) cli_error("%s: %s", path, strerror(errno));
    return f;
  }
  snprintf(tmp, len, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) cli_error("%s: %s", path, strerror(errno));
  return f;
}

static int finish(FILE *f, const char *tmp, const char *path, int rc) {
  if (!f) return rc;
  if (fclose(f) != 0 && rc == 0) rc = cli_error("%s: write failed", path);
  if (!tmp[0]) return rc; /* written in place */
  if (rc == 0 && rename(tmp, path) != 0) rc = cli_error("%s: %s", path, strerror(errno));
  if (rc) unlink(tmp);
  return rc;
}

int cmd_bench(int argc, char **argv) {
  bench_opts b;
  char *store[MAXL] = {0};
  int rc = bench_parse(argc, argv, &b);
  if (rc) return rc == 1 ? 0 : rc;
  if (b.nformulas == 0 && b.nprogs == 0 && (rc = load_formula_file(&b, store))) goto out;
  int total = 0;
  for (int i = 0; i < b.nmodes; i++)
    total += (b.modes[i] == HS_MODE_HARD ? 1 : b.nscales);
  total *= (b.nformulas + b.nprogs) * b.nlengths * b.nisas * b.nprecs * b.nthreads * b.nskips;
  char csv_tmp[4096], md_tmp[4096], tex_tmp[4096];
  table tab = {0};
  /* every output opened first: one that cannot be written stops the
   * sweep before it starts */
  FILE *csv = b.csv ? open_tmp(b.csv, csv_tmp, sizeof csv_tmp) : stdout;
  FILE *md = b.md ? open_tmp(b.md, md_tmp, sizeof md_tmp) : NULL;
  FILE *tex = b.latex ? open_tmp(b.latex, tex_tmp, sizeof tex_tmp) : NULL;
  if (!csv || (b.md && !md) || (b.latex && !tex)) {
    rc = HS_EXIT_ERROR;
  } else {
    csv_header(csv, b.phases);
    int done = 0;
    cli_progress_start(&bench_prog, NULL, "points");
    if (b.quiet) bench_prog.on = 0;
    table *tp = md || tex ? &tab : NULL;
    for (int i = 0; i < b.nformulas && rc == 0; i++)
      rc = sweep_formula(&b, b.formulas[i], csv, tp, &done, total);
    for (int i = 0; i < b.nprogs && rc == 0; i++)
      rc = sweep_file(&b, b.progs[i], csv, tp, &done, total);
    if (rc == 0) progress(total, total, NULL);
    cli_progress_end(&bench_prog);
    if (rc == 0 && md) write_md(md, &tab, b.repeat);
    if (rc == 0 && tex) write_latex(tex, &tab, b.repeat);
  }
  if (b.csv) rc = finish(csv, csv_tmp, b.csv, rc);
  rc = finish(md, md_tmp, b.md, rc);
  rc = finish(tex, tex_tmp, b.latex, rc);
  free(tab.p);
out:
  for (int i = 0; i < MAXL; i++) free(store[i]);
  return rc;
}
