/* SPDX-License-Identifier: MIT */
/* hardsoft simulate: run a hard-attention model file exactly, measure the
 * score gap gamma of its hard heads on the inputs, replace every hard head
 * by softmax at tau = gamma / (mu + ln(n+1)) (weight off the maximal
 * positions <= (n+1) e^{-gamma/tau} = e^{-mu} per head; the law and its
 * proof are at the top of src/run/simulate.c), run that too, and compare the
 * two layer by layer. The library does the work (hs_simulate); this file
 * gathers the strings and prints. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hardsoft/kernels.h"
#include "cli/cli.h"

static const char *const simulate_usage =
    "usage: hardsoft simulate MODEL [OPTIONS] [--] [STRING...]\n"
    "Simulates a hard-attention model file (unique-hard leftmost/rightmost or\n"
    "average-hard heads; softmax heads are kept) with softmax attention:\n"
    "  1. runs the hard model exactly and measures gamma, the smallest gap\n"
    "     between a maximal score and a non-maximal one over every hard head,\n"
    "     query and string, and whether each head was uniform (all scores\n"
    "     equal at every query), tieless (a unique maximum everywhere) or tied;\n"
    "  2. picks tau = gamma / (mu + ln(n+1)), n the longest string, which\n"
    "     bounds the weight off the maximal positions by (n+1) e^(-gamma/tau)\n"
    "     = e^(-mu) per head (gamma infinite: any tau works, tau = 1);\n"
    "  3. runs the model with every hard head made softmax at tau and prints\n"
    "     each layer's largest |softmax - hard| over positions 0..n and\n"
    "     coordinates, and how many decisions (output bits) agree.\n"
    "Softmax spreads the weight evenly over tied maxima, the average-hard rule.\n"
    "A unique-hard head seen with tied maxima first gets a position term\n"
    "+-delta*j/n on its scores (delta = half its gap): the same choice, now a\n"
    "unique maximum with gap >= gamma/(2n); gamma is then measured again.\n"
    "Strings: the STRINGs, else standard input one per line, else (with\n"
    "--alphabet) random strings, one group per length, each with its own gamma\n"
    "and tau. A model with a vocabulary (a compiled program) reads each STRING\n"
    "as space-separated tokens, as run does. Exit 0 when every decision agrees,\n"
    "1 when one does not, 2 on errors (a model without hard heads is one).\n"
    "  --scale MU        the bound e^(-mu) per head (mu > 0, default 4)\n"
    "  --gamma auto|G    the gap to use instead of the measured one (default auto)\n"
    "  --precision f32|f64   working precision of both runs (f32)\n"
    "  --isa @ISAS@   kernels (default: HARDSOFT_ISA, else\n"
    "                    the best; wasm128 only in the WebAssembly build)\n"
    "  --tokens          read STRINGs as space-separated tokens for any model\n"
    "  --unknown U       error (default) or other: a token the vocabulary does\n"
    "                    not name is refused, or read as one symbol no token names\n"
    "  --alphabet SYMS   random strings over these bytes (e.g. ab) instead of STRINGs\n"
    "  --lengths L1,...  their lengths (default 100,1000)\n"
    "  --samples K       strings per length (default 3; odd-numbered ones draw one\n"
    "                    symbol 90% of the time, for long runs)\n"
    "  --seed S          random seed (default 1)\n"
    "  --csv             print one CSV row per group of strings instead:\n"
    "                    model,n,strings,positions,precision,mu,gamma,\n"
    "                    gamma_measured,tau,bound,attn_error,max_deviation,\n"
    "                    layer_deviations,agree_fraction,heads_hard,heads_uniform,\n"
    "                    heads_tieless,heads_tied,heads_tied_unique,gamma_before,\n"
    "                    heads_tiebroken,cpu,build,commit,date\n"
    "                    (layer_deviations: one per layer, separated by ';')\n"
    "  --header          with --csv: print the header line first\n"
    "  --json            one JSON document instead: the model and per group of\n"
    "                    strings gamma, tau, bound, each head's class and gap,\n"
    "                    each layer's deviation, the agreement\n"
    "  --max-time S      refuse when the runs are predicted to take more than S\n"
    "                    seconds (a prediction past 5 s is printed)\n"
    "  --quiet           no prediction line and no progress on standard error\n";

#define CSV_HEADER                                                            \
  "model,n,strings,positions,precision,mu,gamma,gamma_measured,tau,bound,"    \
  "attn_error,max_deviation,layer_deviations,agree_fraction,heads_hard,"      \
  "heads_uniform,heads_tieless,heads_tied,heads_tied_unique,gamma_before,"    \
  "heads_tiebroken" CLI_META_HEADER

typedef struct strs {
  uint8_t **s;
  size_t *n, count, cap;
} strs;

static void strs_clear(strs *v) {
  for (size_t i = 0; i < v->count; i++) free(v->s[i]);
  v->count = 0;
}

static void strs_free(strs *v) {
  strs_clear(v);
  free(v->s);
  free(v->n);
}

static int strs_push(strs *v, const uint8_t *s, size_t n) {
  if (v->count == v->cap) {
    size_t cap = v->cap ? 2 * v->cap : 16;
    uint8_t **ns = realloc(v->s, cap * sizeof *ns);
    if (ns) v->s = ns;
    size_t *nn = realloc(v->n, cap * sizeof *nn);
    if (nn) v->n = nn;
    if (!ns || !nn) return cli_error("out of memory reading the strings");
    v->cap = cap;
  }
  uint8_t *c = malloc(n ? n : 1);
  if (!c) return cli_error("out of memory for a string of %zu symbols", n);
  if (n) memcpy(c, s, n);
  v->s[v->count] = c;
  v->n[v->count++] = n;
  return 0;
}

static int collect(const uint8_t *s, size_t n, void *ctx) { return strs_push(ctx, s, n); }

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* K random strings of length n over the alphabet: even-numbered ones
 * uniform, odd-numbered ones favour one symbol (90%), as `check` does. */
static int random_group(strs *v, const char *alpha, size_t n, int k,
                        uint64_t *seed) {
  size_t na = strlen(alpha);
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) return cli_error("out of memory for a string of %zu symbols", n);
  for (int t = 0; t < k; t++) {
    size_t fav = t % 2 ? (size_t)(splitmix(seed) % na) : na;
    for (size_t i = 0; i < n; i++) {
      uint64_t r = splitmix(seed);
      buf[i] = (uint8_t)(fav < na && r % 10 != 0 ? alpha[fav] : alpha[(r >> 8) % na]);
    }
    if (strs_push(v, buf, n)) {
      free(buf);
      return HS_EXIT_ERROR;
    }
  }
  free(buf);
  return 0;
}

typedef struct sim_cfg {
  const cli_opts *o;
  const char *path, *name; /* name: the file's base name, for CSV rows */
  const char *alphabet;    /* NULL: strings given */
  int csv;
  int tokens;              /* --tokens: STRINGs are token lists */
  double gamma;            /* 0: measure */
  int shown_model;         /* the "model:" line is printed once, with the
                              first result, so errors leave stdout empty */
  cJSON *groups;           /* --json: one object per group, printed at the end */
} sim_cfg;

/* A layer/head label for head h counted over all layers. */
static hs_head_info head_of(const hs_model *m, int h, int *layer, int *idx) {
  hs_head_info H = {0};
  for (int l = 0, nh; (nh = hs_model_layer_nheads(m, l)) >= 0; l++) {
    if (h < nh) {
      *layer = l, *idx = h;
      hs_model_head_info(m, l, h, &H);
      return H;
    }
    h -= nh;
  }
  return H;
}

static void print_csv(const sim_cfg *c, const hs_model *m, const hs_sim_result *r) {
  int cnt[4] = {0}, hard = 0, tu = 0;
  for (int h = 0; h < r->nheads; h++) {
    hs_head_class k = hs_head_classify(m, h, r->heads);
    cnt[k]++;
    hard += k != HS_HEAD_SOFT;
    tu += hs_head_tied_unique(m, h, r->heads);
  }
  double maxdev = 0;
  for (int l = 0; l < r->nlayers; l++)
    if (r->deviation[l] > maxdev) maxdev = r->deviation[l];
  printf("\"%s\",%zu,%zu,%zu,%s,%g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", c->name, r->n,
         r->strings, r->positions, c->o->prec == HS_PREC_F64 ? "f64" : "f32",
         c->o->scale, r->gamma, r->gamma_measured, r->tau, r->bound, r->attn_error,
         maxdev);
  for (int l = 0; l < r->nlayers; l++) printf("%s%.6g", l ? ";" : "", r->deviation[l]);
  printf(",%.9g,%d,%d,%d,%d,%d,%.6g,%d",
         r->positions ? (double)r->agree / (double)r->positions : 1.0, hard,
         cnt[HS_HEAD_UNIFORM], cnt[HS_HEAD_TIELESS], cnt[HS_HEAD_TIED], tu,
         r->gamma_before, r->ties_broken);
  cli_meta_columns(stdout);
  putchar('\n');
}

/* simulate's text: each head's class and gap on the hard run. */
static void print_heads(const sim_cfg *c, const hs_model *m, const hs_sim_result *r) {
  printf("heads (measured on the hard run):\n");
  for (int h = 0; h < r->nheads; h++) {
    int l, k;
    hs_head_info H = head_of(m, h, &l, &k);
    hs_head_class cls = hs_head_classify(m, h, r->heads);
    printf("  layer %d head %d %s, mask %s: ", l, k, H.kind,
           H.mask);
    const hs_head_stats *st = &r->heads[h];
    switch (cls) {
      case HS_HEAD_SOFT: printf("softmax, kept as it is\n"); continue;
      case HS_HEAD_UNIFORM:
        printf("uniform (all scores equal at every query)");
        break;
      case HS_HEAD_TIELESS:
        printf("tieless, smallest gap %.6g", st->gap);
        break;
      case HS_HEAD_TIED:
        printf("tied, smallest gap %.6g", st->gap);
        break;
    }
    if (hs_head_tied_unique(m, h, r->heads_before))
      printf(" (tied unique-hard before, smallest gap %.6g: ties broken by a "
             "position term)", r->heads_before[h].gap);
    if (hs_head_tied_unique(m, h, r->heads)) {
      printf(" -- WARNING: unique-hard with tied maxima; softmax averages them, "
             "so this head is not simulated\n");
      fprintf(stderr, "hardsoft: warning: %s: layer %d head %d (%s) had tied maximal "
              "scores; softmax averages tied maxima, so it does not simulate a "
              "unique-hard head\n", c->path, l, k, H.kind);
    } else if (cls == HS_HEAD_TIED) {
      printf(" (average-hard: softmax averages the tied maxima too)\n");
    } else {
      putchar('\n');
    }
  }
}

/* simulate's text: gamma, the temperature it gives, and the bound. */
static void print_gamma(const sim_cfg *c, const hs_sim_result *r) {
  double mu = c->o->scale;
  if (isinf(r->gamma_measured))
    printf("gamma: inf (no hard head ever saw two distinct scores: softmax "
           "weights are exactly uniform at any temperature)\n");
  else
    printf("gamma: %.6g (smallest gap between a maximal and a non-maximal score, "
           "over every hard head and query)\n", r->gamma_measured);
  if (c->gamma > 0) printf("gamma used: %.6g (--gamma)\n", r->gamma);
  if (isinf(r->gamma)) {
    printf("temperature: tau = 1 (gamma is infinite: any tau works)\n");
  } else {
    printf("temperature: tau = gamma / (mu + ln(n+1)) = %.6g / (%g + ln %zu) = %.6g\n",
           r->gamma, mu, r->n + 1, r->tau);
  }
  if (isinf(r->gamma_measured))
    printf("bound: no weight off the maximal positions (every score equal); "
           "measured weight off the hard choice: %.3g\n", r->attn_error);
  else if (c->gamma > 0)
    printf("bound: weight off the maximal positions <= (n+1) e^(-gamma/tau) = %.3g "
           "per head for the measured gamma; measured weight off the hard choice: "
           "%.3g\n", r->bound, r->attn_error);
  else
    printf("bound: weight off the maximal positions <= (n+1) e^(-gamma/tau) = "
           "e^(-mu) = %.3g per head; measured weight off the hard choice: %.3g\n",
           r->bound, r->attn_error);
}

static void print_text(sim_cfg *c, const hs_model *m, const hs_sim_result *r,
                       const strs *v) {
  const cli_opts *o = c->o;
  if (!c->shown_model) {
    int hard = 0;
    for (int h = 0; h < r->nheads; h++)
      hard += hs_head_classify(m, h, r->heads) != HS_HEAD_SOFT;
    hs_model_info mi;
    hs_model_get_info(m, &mi);
    printf("model: %s (d = %d, %d layer(s), %d head(s): %d hard, %d softmax)\n",
           c->path, mi.d, mi.nlayers, r->nheads, hard, r->nheads - hard);
    c->shown_model = 1;
  } else {
    putchar('\n');
  }
  if (c->alphabet)
    printf("strings: %zu random over '%s' of length %zu (seed %llu)", r->strings,
           c->alphabet, r->n, (unsigned long long)o->seed);
  else
    printf("strings: %zu (longest n = %zu)", r->strings, r->n);
  printf("; positions: %zu; precision %s, isa %s\n", r->positions,
         o->prec == HS_PREC_F64 ? "f64" : "f32", hs_isa_name(o->kt->isa));
  print_heads(c, m, r);
  if (r->ties_broken)
    printf("ties: %d unique-hard head(s) had tied maxima; each got delta*j/n "
           "(delta = its gap/2, or 1) added to its scores, same choice, gap >= "
           "gamma/(2n); gamma before: %.6g\n", r->ties_broken, r->gamma_before);
  print_gamma(c, r);
  for (int l = 0; l < r->nlayers; l++)
    printf("layer %d: max |softmax - hard| = %.3g\n", l, r->deviation[l]);
  printf("decisions: %zu/%zu agree", r->agree, r->positions);
  if (r->agree < r->positions)
    printf("; first disagreement: string %zu (length %zu), position %zu%s%.*s",
           r->bad_string + 1, v->n[r->bad_string], r->bad_pos,
           v->n[r->bad_string] <= 40 ? ": " : "",
           v->n[r->bad_string] <= 40 ? (int)v->n[r->bad_string] : 0,
           (const char *)v->s[r->bad_string]);
  putchar('\n');
}

static const char *const class_names[] = {"softmax", "uniform", "tieless", "tied"};

/* --json: one group's result, the fields of print_text. */
static int json_group(sim_cfg *c, const hs_model *m, const hs_sim_result *r,
                      const strs *v) {
  cJSON *g = cJSON_CreateObject(), *heads = cJSON_CreateArray(), *dev = cJSON_CreateArray();
  if (!g || !heads || !dev) {
    cJSON_Delete(g), cJSON_Delete(heads), cJSON_Delete(dev);
    return cli_error("out of memory writing JSON");
  }
  if (c->alphabet) cJSON_AddStringToObject(g, "alphabet", c->alphabet);
  cJSON_AddNumberToObject(g, "strings", (double)r->strings);
  cJSON_AddNumberToObject(g, "n", (double)r->n);
  cJSON_AddNumberToObject(g, "positions", (double)r->positions);
  cJSON_AddStringToObject(g, "precision", c->o->prec == HS_PREC_F64 ? "f64" : "f32");
  cJSON_AddStringToObject(g, "isa", hs_isa_name(c->o->kt->isa));
  cli_json_num(g, "mu", c->o->scale);
  for (int h = 0; h < r->nheads; h++) {
    int l = 0, k = 0;
    hs_head_info H = head_of(m, h, &l, &k);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "layer", l);
    cJSON_AddNumberToObject(o, "head", k);
    cJSON_AddStringToObject(o, "kind", H.kind);
    cJSON_AddStringToObject(o, "mask", H.mask);
    cJSON_AddStringToObject(o, "class", class_names[hs_head_classify(m, h, r->heads)]);
    cli_json_num(o, "gap", r->heads[h].gap);
    cJSON_AddBoolToObject(o, "ties_broken", hs_head_tied_unique(m, h, r->heads_before));
    cJSON_AddBoolToObject(o, "not_simulated", hs_head_tied_unique(m, h, r->heads));
    cJSON_AddItemToArray(heads, o);
  }
  cJSON_AddItemToObject(g, "heads", heads);
  cJSON_AddNumberToObject(g, "ties_broken", r->ties_broken);
  cli_json_num(g, "gamma_before", r->gamma_before);
  cli_json_num(g, "gamma_measured", r->gamma_measured);
  cli_json_num(g, "gamma", r->gamma);
  cJSON_AddBoolToObject(g, "gamma_given", c->gamma > 0);
  cli_json_num(g, "tau", r->tau);
  cli_json_num(g, "bound", r->bound);
  cli_json_num(g, "attn_error", r->attn_error);
  for (int l = 0; l < r->nlayers; l++) {
    double x = r->deviation[l];
    cJSON_AddItemToArray(dev, isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateString("nan"));
  }
  cJSON_AddItemToObject(g, "layer_deviations", dev);
  cJSON_AddNumberToObject(g, "agree", (double)r->agree);
  cJSON_AddNumberToObject(g, "agreement", r->positions ? (double)r->agree / (double)r->positions : 1.0);
  if (r->agree < r->positions) {
    cJSON *d = cJSON_AddObjectToObject(g, "first_disagreement");
    size_t n = v->n[r->bad_string];
    cJSON_AddNumberToObject(d, "string", (double)(r->bad_string + 1));
    cJSON_AddNumberToObject(d, "length", (double)n);
    cJSON_AddNumberToObject(d, "position", (double)r->bad_pos);
    if (n <= 40) cJSON_AddItemToObject(d, "input", cli_json_text(v->s[r->bad_string], n));
  }
  cJSON_AddItemToArray(c->groups, g);
  return 0;
}

/* Simulate one group of strings and print it; 0, HS_EXIT_DISAGREE or
 * HS_EXIT_ERROR. */
static int simulate_group(sim_cfg *c, const hs_model *m, const strs *v) {
  char msg[512];
  hs_error he;
  hs_sim_opts so = {.scale = c->o->scale, .gamma = c->gamma,
                    .precision = c->o->prec, .kernels = c->o->kt};
  hs_sim_result r;
  /* hs_simulate runs each string about four times: the hard model for
   * gamma (again after breaking ties), then both models keeping layers */
  double *passes = malloc((v->count ? v->count : 1) * sizeof *passes);
  if (!passes) return cli_error("out of memory");
  for (size_t i = 0; i < v->count; i++) passes[i] = 4, cli_warn_unproven(c->o, m, v->n[i]);
  hs_run_opts ro = {.precision = c->o->prec, .kernels = c->o->kt, .want_gaps = 1};
  snprintf(msg, sizeof msg, "%zu string%s", v->count, v->count == 1 ? "" : "s");
  int bad = v->count > 0 && v->count <= INT32_MAX &&
            cli_predict_many(c->o, m, &ro, (int)v->count, v->n, passes, msg);
  free(passes);
  if (bad) return HS_EXIT_ERROR;
  cli_progress prog;
  cli_progress_start(&prog, c->o, "passes");
  if (prog.on) so.progress = cli_progress_rows, so.progress_ctx = &prog;
  bad = hs_simulate(m, v->count, (const uint8_t *const *)v->s, v->n, &so, &r, &he) != 0;
  cli_progress_end(&prog);
  if (bad) return cli_error("%s: %s", c->path, he.msg);
  int rc = 0;
  if (c->groups) rc = json_group(c, m, &r, v);
  else if (c->csv) print_csv(c, m, &r);
  else print_text(c, m, &r, v);
  if (rc == 0) rc = r.agree == r.positions ? 0 : HS_EXIT_DISAGREE;
  hs_sim_result_free(&r);
  return rc;
}

/* Options only simulate takes are stripped here before the shared parser
 * sees the rest (as `boundary` does); everything after "--" is a STRING. */
static int strip_own(int argc, char **argv, char **rest, int *nrest,
                     sim_cfg *c, int *header, int *random_opts) {
  int only = 0;
  *nrest = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    if (i < 2 || only) { rest[(*nrest)++] = argv[i]; continue; }
    if (strcmp(a, "--") == 0) { only = 1; rest[(*nrest)++] = argv[i]; continue; }
    if (strcmp(a, "--csv") == 0) { c->csv = 1; continue; }
    if (strcmp(a, "--header") == 0) { *header = 1; continue; }
    if (strcmp(a, "--tokens") == 0) { c->tokens = 1; continue; }
    for (const char *p = "--lengths\0--samples\0--seed\0"; *p; p += strlen(p) + 1)
      if (strncmp(a, p, strlen(p)) == 0 && (a[strlen(p)] == 0 || a[strlen(p)] == '='))
        *random_opts = 1;
    int is_gamma = strncmp(a, "--gamma", 7) == 0 && (a[7] == 0 || a[7] == '=');
    int is_alpha = strncmp(a, "--alphabet", 10) == 0 && (a[10] == 0 || a[10] == '=');
    if (!is_gamma && !is_alpha) { rest[(*nrest)++] = argv[i]; continue; }
    const char *name = is_gamma ? "--gamma" : "--alphabet";
    size_t nl = strlen(name);
    if (a[nl] == '=') v = a + nl + 1;
    else if (i + 1 < argc) v = argv[++i];
    if (!v || !*v) return cli_error("%s needs a value", name);
    if (is_alpha) {
      c->alphabet = v;
      continue;
    }
    if (strcmp(v, "auto") == 0) {
      c->gamma = 0;
      continue;
    }
    if (cli_real("--gamma", v, &c->gamma)) return HS_EXIT_ERROR;
  }
  rest[*nrest] = NULL;
  return 0;
}

/* The combinations simulate refuses, as its one-line message, or NULL. */
static const char *usage_error(const sim_cfg *c, const cli_opts *o, int header,
                               int random_opts) {
  if (o->nargs < 1) return "simulate: missing MODEL (see 'hardsoft simulate --help')";
  if (c->alphabet && o->nargs > 1) return "simulate: give STRINGs or --alphabet, not both";
  if (random_opts && !c->alphabet)
    return "simulate: --lengths, --samples and --seed make random strings and need --alphabet";
  if (header && !c->csv) return "simulate: --header goes with --csv";
  if (o->json && c->csv) return "simulate: --json and --csv are two formats; give one";
  return NULL;
}

/* The model's hard heads (unique- or average-hard kinds). */
static int hard_heads(const hs_model *m) {
  int hard = 0;
  hs_head_info H;
  for (int l = 0, nh; (nh = hs_model_layer_nheads(m, l)) >= 0; l++)
    for (int h = 0; h < nh; h++)
      hard += hs_model_head_info(m, l, h, &H) == 0 && strcmp(H.kind, "softmax") != 0;
  return hard;
}

/* A model with a vocabulary (a compiled program), or --tokens, reads each
 * STRING as space-separated tokens, as run and attention do. */
static int as_tokens(const cli_opts *o, const hs_model *m, strs *v) {
  for (size_t i = 0; i < v->count; i++) {
    uint8_t *w;
    size_t len;
    if (cli_as_tokens(o, NULL, m, v->s[i], v->n[i], &w, &len)) return HS_EXIT_ERROR;
    free(v->s[i]);
    v->s[i] = w;
    v->n[i] = len;
  }
  return 0;
}

/* --alphabet: a group of random strings at each length; the worst exit
 * status of the groups. */
static int random_groups(sim_cfg *c, const hs_model *m, strs *v, int header) {
  const cli_opts *o = c->o;
  uint64_t seed = o->seed;
  if (c->csv && header) printf(CSV_HEADER "\n");
  int worst = 0;
  for (int li = 0; li < o->nlengths && worst != HS_EXIT_ERROR; li++) {
    strs_clear(v);
    if (random_group(v, c->alphabet, o->lengths[li], o->samples, &seed)) {
      worst = HS_EXIT_ERROR;
      break;
    }
    int g = simulate_group(c, m, v);
    if (g > worst) worst = g;
  }
  return worst;
}

int cmd_simulate(int argc, char **argv) {
  sim_cfg c = {0};
  int header = 0, random_opts = 0, nrest = 0;
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  if (!rest) return cli_error("out of memory");
  int rc = strip_own(argc, argv, rest, &nrest, &c, &header, &random_opts);
  if (rc) { free(rest); return rc; }
  cli_opts o;
  rc = cli_parse(nrest, rest, 2, O_SCALE | O_PREC | O_ISA | O_LENGTHS | O_SAMPLES | O_SEED |
                                     O_MAXTIME | O_QUIET | O_JSON | O_UNKNOWN,
                 simulate_usage, &o);
  if (rc) { free(o.args); free(rest); return rc == 1 ? 0 : rc; }
  c.o = &o;
  const char *err = usage_error(&c, &o, header, random_opts);
  if (err) {
    free(o.args);
    free(rest);
    return cli_error("%s", err);
  }
  c.path = o.args[0];
  const char *base = strrchr(c.path, '/');
  base = base ? base + 1 : c.path;
  char name[256];
  snprintf(name, sizeof name, "%s", base);
  size_t bl = strlen(name), sl = strlen(".safetensors");
  if (bl > sl && strcmp(name + bl - sl, ".safetensors") == 0) name[bl - sl] = 0;
  c.name = name;

  hs_model *m = cli_model_load("simulate", c.path);
  strs v = {0};
  cJSON *doc = o.json ? cJSON_CreateObject() : NULL;
  if (doc) {
    cJSON_AddStringToObject(doc, "model", c.path);
    if (m) {
      hs_model_info mi;
      hs_model_get_info(m, &mi);
      cJSON_AddNumberToObject(doc, "d", mi.d);
      cJSON_AddNumberToObject(doc, "layers", mi.nlayers);
      cJSON_AddNumberToObject(doc, "heads", hs_model_nheads(m));
    }
    c.groups = cJSON_AddArrayToObject(doc, "groups");
  }
  if (!m) {
    rc = HS_EXIT_ERROR;
  } else if (hard_heads(m) == 0) {
    rc = cli_error("%s: nothing to simulate: the model has no hard attention head "
                   "(simulate replaces hard heads by softmax)", c.path);
  } else if (c.tokens && c.alphabet) {
    rc = cli_error("simulate: --tokens reads given STRINGs; --alphabet draws symbols");
  } else if (!c.alphabet) {
    rc = cli_each_string(&o, 1, collect, &v);
    if (rc == 0 && (c.tokens || hs_model_vocab_size(m) > 0)) rc = as_tokens(&o, m, &v);
    for (size_t i = 0; rc == 0 && i < v.count; i++) cli_warn_unnamed(&o, NULL, m, v.s[i], v.n[i]);
    if (rc == 0) {
      if (c.csv && header) printf(CSV_HEADER "\n");
      rc = simulate_group(&c, m, &v);
    }
  } else {
    rc = random_groups(&c, m, &v, header);
  }
  if (doc && (rc == 0 || rc == HS_EXIT_DISAGREE)) {
    int prc = cli_json_print(doc);
    if (prc) rc = prc;
  }
  cJSON_Delete(doc);
  strs_free(&v);
  hs_model_free(m);
  free(o.args);
  free(rest);
  return rc;
}
