/* SPDX-License-Identifier: MIT */
/* hardsoft eval / run / check / compile / info. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hardsoft/kernels.h"
#include "cli/cli.h"

#define COMMON_RUN_OPTS \
  "  --precision f32|f64   working precision of the forward pass (f32)\n" \
  "  --threads N   split each layer's rows among N threads (default: the\n" \
  "                machine's cores; the output is the same for every N)\n" \
  "  --max-memory MIB   refuse a string whose run would need more (default:\n" \
  "                80% of the memory available)\n" \
  "  --isa @ISAS@   kernels to use (default:\n" \
  "                HARDSOFT_ISA, else the best; each ISA only in a build for\n" \
  "                its target: 'hardsoft info' lists what this one runs)\n" \
  "  --max-time S  refuse a run predicted to take more than S seconds (a\n" \
  "                prediction past 5 s is printed on standard error)\n" \
  "  --quiet       no prediction line and no progress on standard error\n" \
  "                (progress shows only when standard error is a terminal)\n"
#define PROG_OPTS \
  "  -f FILE       read the formula or program from FILE (- : standard input)\n" \
  "  --lang L      ltl, crasp, brasp or regex (default: by FILE's extension,\n" \
  "                .cr and .crasp are crasp, .brasp brasp, .re regex, else ltl)\n" \
  "  --alphabet S  a regular expression's symbols beyond those it names,\n" \
  "                written as in a class (abc, a-z, \"<p>\"): what ., [^...]\n" \
  "                and ~ range over\n" \
  "  --tokens      each string is a whitespace-separated list of tokens, one\n" \
  "                output per token (always so for programs and expressions)\n" \
  UNKNOWN_OPT
#define UNKNOWN_OPT \
  "  --unknown U   error (default): a token the vocabulary does not name is\n" \
  "                refused; other: read it as one symbol no token names (and\n" \
  "                no warning for bytes no atom of a formula names)\n"
/* what an input string is, said first in eval --help and run --help */
#define INPUT_RULES \
  "A formula reads one byte per position: an atom is true where its byte is,\n" \
  "and a byte no atom names makes every atom false (a warning says so, unless\n" \
  "--unknown other). A program, and a model with a vocabulary, reads\n" \
  "whitespace-separated tokens: a token it does not name is an error, unless\n" \
  "--unknown other reads it as one symbol no token names.\n"
#define MODE_OPTS \
  "  --mode M      hard, pe, temp, fixed or rel (default temp)\n" \
  "  --scale MU    the scale mu > 0 of pe, temp, fixed and rel (default 4)\n" \
  "  --sign S      counting comparisons' sign: layernorm (default, exact) or\n" \
  "                temp (softmax at tau = 1/(mu n ln(n+1)), exact for mu > 12)\n"

/* ---------------------------------------------------------------- output */

typedef struct run_ctx {
  const cli_opts *o;
  const char *text;    /* the program's line, NULL for a model file */
  const hs_model *m;
  hs_runner *run;
  char *line;
  size_t cap;
  const hs_program *program; /* the program's own interpreter for truth mode */
  int tokens;             /* inputs are token lists */
  hs_run_opts ro;   /* the runner's options (for cli_predict) */
  cli_progress prog;
  cJSON *json;      /* --json: the results array, printed at the end */
} run_ctx;

static int print_bits(run_ctx *c, const uint8_t *bits, size_t n) {
  if (c->o->last) {
    if (n) putchar(bits[n - 1] ? '1' : '0');
    putchar('\n');
    return 0;
  }
  if (n + 2 > c->cap) {
    char *p = realloc(c->line, n + 2);
    if (!p) return cli_error("out of memory for a string of %zu symbols", n);
    c->line = p;
    c->cap = n + 2;
  }
  for (size_t i = 0; i < n; i++) c->line[i] = bits[i] ? '1' : '0';
  c->line[n] = '\n';
  fwrite(c->line, 1, n + 1, stdout);
  return 0;
}

static int run_bytes(run_ctx *c, const uint8_t *s, size_t n);

/* One input line: as tokens (--tokens, programs) or as bytes. */
static int run_one(const uint8_t *s, size_t n, void *ctx) {
  run_ctx *c = ctx;
  if (!c->tokens) {
    cli_warn_unnamed(c->o, c->program, c->m, s, n);
    return run_bytes(c, s, n);
  }
  uint8_t *w;
  size_t len;
  if (cli_as_tokens(c->o, c->program, c->m, s, n, &w, &len)) return HS_EXIT_ERROR;
  cli_warn_unnamed(c->o, c->program, c->m, w, len);
  int rc = run_bytes(c, w, len);
  free(w);
  return rc;
}

static int run_bytes(run_ctx *c, const uint8_t *s, size_t n) {
  char msg[256];
  hs_error he;
  if (c->o->trace && c->program && cli_trace(c->program, s, n)) return HS_EXIT_ERROR;
  if (!c->m) {
    uint8_t *out = malloc(n ? n : 1);
    if (!out) return cli_error("out of memory evaluating a string of %zu symbols", n);
    if (hs_program_truth(c->program, s, n, out, &he) != 0) {
      free(out);
      return cli_error("%s", he.msg);
    }
    int rc = c->json ? cli_json_result(c->json, c->o, s, n, out, NULL)
                     : print_bits(c, out, n);
    free(out);
    return rc;
  }
  hs_run_result r;
  if (cli_check_memory(c->o, c->m, n) != 0) return HS_EXIT_ERROR;
  snprintf(msg, sizeof msg, "n = %zu", n);
  if (cli_predict(c->o, c->m, &c->ro, n, 1, msg) != 0) return HS_EXIT_ERROR;
  cli_warn_unproven(c->o, c->m, n);
  cli_progress_start(&c->prog, c->o, "rows");
  int fail = hs_runner_run(c->run, s, n, &r, &he);
  cli_progress_end(&c->prog);
  if (fail) return cli_error("%s", he.msg);
  int rc = c->json ? cli_json_result(c->json, c->o, s, n, r.bits, r.values)
                   : print_bits(c, r.bits, n);
  hs_run_result_free(&r);
  return rc;
}

static hs_model *compile_or_report(const hs_program *p, const cli_opts *o) {
  hs_error he;
  if (!cli_lowered(o, p)) return NULL;
  hs_compile_opts co = {.mode = (hs_mode)o->mode, .scale = o->scale, .sign = o->sign};
  hs_model *m = hs_program_compile(p, &co, &he);
  if (!m) cli_error("%s", he.msg);
  return m;
}

static void cli_free(cli_opts *o) { free(o->args); }

/* Runs every string through m (or the logic when m is NULL) and prints;
 * the strings start at positional argument `skip`. */
static int run_strings(const cli_opts *o, const hs_program *p,
                       const hs_model *m, int skip) {
  hs_error he;
  run_ctx c = {o, p ? hs_program_text(p) : NULL, m, NULL, NULL, 0, p,
               p ? cli_tokens_default(o, p) : (o->tokens || (m && hs_model_vocab_size(m) > 0)),
               {0}, {0}, NULL};
  hs_run_opts ro = {.precision = o->prec, .kernels = o->kt, .last_only = o->last,
                    .threads = o->threads};
  c.ro = ro;
  /* the runner reports rows only when someone will see them */
  cli_progress_start(&c.prog, o, "rows");
  if (c.prog.on) ro.progress = cli_progress_rows, ro.progress_ctx = &c.prog;
  if (m && !(c.run = hs_runner_new(m, &ro, &he)))
    return cli_error("%s", he.msg);
  cJSON *doc = NULL;
  if (o->json) {
    doc = cli_json_run_header(o, c.text, m);
    c.json = doc ? cJSON_AddArrayToObject(doc, "results") : NULL;
    if (!c.json) {
      hs_runner_free(c.run);
      cJSON_Delete(doc);
      return cli_error("out of memory");
    }
  }
  int rc = cli_each_string(o, skip, run_one, &c);
  if (rc == 0 && doc) rc = cli_json_print(doc);
  cJSON_Delete(doc);
  hs_runner_free(c.run);
  free(c.line);
  return rc;
}

/* ---------------------------------------------------------------- eval */

static const char *const eval_usage =
    "usage: hardsoft eval FORMULA [OPTIONS] [--] [STRING...]\n"
    "       hardsoft eval -f FILE [OPTIONS] [--] [STRING...]\n"
    "Prints one line per string, one character 0 or 1 per position (an empty\n"
    "line for the empty string). With no strings, reads them from standard\n"
    "input, one per line.\n"
    INPUT_RULES
    MODE_OPTS
    "                (--mode truth evaluates the logic directly)\n"
    COMMON_RUN_OPTS
    "  --last        print only the decision at the last position\n"
    PROG_OPTS
    "  --trace       before each string's line, every statement's value at\n"
    "                every position (the program's own interpreter)\n"
    "  --json        one JSON document: formula, mode, and per string its\n"
    "                input, n, bits and (from a model) the output values\n";

int cmd_eval(int argc, char **argv) {
  cli_opts o;
  int rc = cli_parse(argc, argv, 2, O_MODE | O_SCALE | O_SIGN | O_PREC | O_ISA | O_LAST | O_THREADS | O_MAXMEM |
                         O_PROG | O_TRACE | O_MAXTIME | O_QUIET | O_JSON | O_UNKNOWN,
                     eval_usage, &o);
  if (rc) { cli_free(&o); return rc == 1 ? 0 : rc; }
  if (o.nargs < 1 && !o.file) {
    cli_free(&o);
    return cli_error("eval: missing FORMULA (see 'hardsoft eval --help')");
  }
  if (o.file && !strcmp(o.file, "-") && o.nargs == 0) {
    cli_free(&o);
    return cli_error("eval: -f - reads the program from standard input; give "
                     "the strings as arguments");
  }
  /* `hardsoft eval a S b` evaluates the formula a on the strings S and b:
   * a string that is an operator of the language was almost surely meant
   * as part of the formula */
  static const char *const ops[] = {"U", "S", "X", "Y", "F", "G", "O", "H", "!", "&",
                                    "|", "->", "<->", "(", ")"};
  for (int i = 1; i < o.nargs && !o.file && o.lang <= HS_LANG_LTL; i++)
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
      if (!strcmp(o.args[i], ops[k])) {
        char all[256];
        size_t at = 0;
        for (int j = 0; j < o.nargs && at < sizeof all; j++)
          at += (size_t)snprintf(all + at, sizeof all - at, "%s%s", j ? " " : "", o.args[j]);
        fprintf(stderr, "hardsoft: hint: the input string '%s' is an operator of the "
                "formula language; to evaluate one formula, quote it whole: "
                "hardsoft eval '%s'\n", o.args[i], all);
        i = o.nargs;
        break;
      }
  int skip;
  hs_program *p = cli_program(&o, o.file, &skip);
  hs_model *m = NULL;
  rc = HS_EXIT_ERROR;
  if (p && (o.mode == HS_MODE_TRUTH ||
            (m = compile_or_report(p, &o))))
    rc = run_strings(&o, p, m, skip);
  hs_model_free(m);
  hs_program_free(p);
  cli_free(&o);
  return rc;
}

/* ---------------------------------------------------------------- run */

static const char *const run_usage =
    "usage: hardsoft run FILE [OPTIONS] [--] [STRING...]\n"
    "Runs a saved model (safetensors) like eval.\n"
    INPUT_RULES
    COMMON_RUN_OPTS
    "  --last        print only the decision at the last position\n"
    "  --tokens      each string is a whitespace-separated list of tokens of the\n"
    "                model's vocabulary (the default for a model compiled from a\n"
    "                program); without a vocabulary a one-byte token is its byte\n"
    UNKNOWN_OPT
    "  --json        one JSON document, as eval --json\n";

int cmd_run(int argc, char **argv) {
  cli_opts o;
  int rc = cli_parse(argc, argv, 2, O_PREC | O_ISA | O_LAST | O_THREADS | O_MAXMEM | O_PROG |
                     O_MAXTIME | O_QUIET | O_JSON | O_UNKNOWN, run_usage, &o);
  if (rc) { cli_free(&o); return rc == 1 ? 0 : rc; }
  if (o.file || o.lang >= 0 || o.alphabet) {
    cli_free(&o);
    return cli_error("run: -f, --lang and --alphabet are for programs; run takes a model FILE");
  }
  if (o.nargs < 1) {
    cli_free(&o);
    return cli_error("run: missing FILE (see 'hardsoft run --help')");
  }
  hs_model *m = cli_model_load("run", o.args[0]);
  rc = m ? run_strings(&o, NULL, m, 1) : HS_EXIT_ERROR;
  hs_model_free(m);
  cli_free(&o);
  return rc;
}

/* ---------------------------------------------------------------- compile */

static const char *const compile_usage =
    "usage: hardsoft compile FORMULA [OPTIONS] (-o FILE | --print)\n"
    "       hardsoft compile -f FILE [OPTIONS] (-o FILE | --print)\n"
    "Compiles the formula into a transformer; -o writes it as safetensors,\n"
    "--print describes it (layers, heads, widths, temperature law, bound).\n"
    "A program's vocabulary is saved in the model (hardsoft run reads it).\n"
    MODE_OPTS
    "  -f FILE, --lang L, --alphabet S   the formula or program in a file (see\n"
    "                eval --help)\n"
    "  -o FILE       write the model (atomically: FILE appears complete or not at all)\n"
    "                (FILE ending in .onnx: an ONNX graph, docs/ONNX.md)\n"
    "  --print       describe the model on standard output\n"
    "  --json        with --print: the description as one JSON document (mode,\n"
    "                scale, layers and heads with kind, mask, dk, dv, tau law,\n"
    "                bound, smallest exact mu, coordinates)\n"
    "  --explain     what the front end found first: for a regular expression\n"
    "                its automaton, monoid, class with a witness, and the size\n"
    "                of the construction (alone: also the model's size, and\n"
    "                exit 0 when the expression is refused)\n";

/* The text is the library's (hs_model_describe), so the CLI and the
 * Python package print the same description. */
int cli_describe_model(FILE *f, const hs_model *m) {
  size_t n = hs_model_describe(m, NULL, 0);
  char *buf = malloc(n + 1);
  if (!buf) return cli_error("out of memory describing the model");
  hs_model_describe(m, buf, n + 1);
  fputs(buf, f);
  free(buf);
  return 0;
}

/* compile --explain: the front end's findings, and alone (no -o, no
 * --print) the model's size, or the refusal as part of the answer. */
static int explain(const cli_opts *o, const hs_program *p) {
  size_t n = hs_program_explain(p, NULL, 0);
  char *buf = malloc(n + 1);
  if (!buf) return cli_error("out of memory");
  hs_program_explain(p, buf, n + 1);
  if (n == 0) printf("language: %s (nothing to explain beyond compile --print)\n",
                     hs_lang_name(hs_program_lang(p)));
  fputs(buf, stdout);
  free(buf);
  if (o->out || o->print) return 0;
  hs_error he;
  hs_compile_opts co = {.mode = (hs_mode)o->mode, .scale = o->scale, .sign = o->sign};
  hs_model *m = hs_program_compile(p, &co, &he);
  if (m) {
    hs_model_info i;
    hs_model_get_info(m, &i);
    printf("model (mode %s): %d layers, %d heads, width %d\n", i.mode, i.nlayers,
           i.nheads, i.d);
  } else if (he.code != HS_ERR_UNSUPPORTED) {
    return cli_error("%s", he.msg);
  }
  hs_model_free(m);
  return 0;
}

int cmd_compile(int argc, char **argv) {
  cli_opts o;
  hs_error he;
  int rc = cli_parse(argc, argv, 2,
                     O_MODE | O_SCALE | O_SIGN | O_OUT | O_PRINT | O_PROG | O_JSON | O_EXPLAIN,
                     compile_usage, &o);
  if (rc) { cli_free(&o); return rc == 1 ? 0 : rc; }
  if (o.explain && !o.out && !o.print && o.nargs == (o.file ? 0 : 1) && o.mode != HS_MODE_TRUTH) {
    int skip;
    hs_program *p = cli_program(&o, o.file, &skip);
    rc = p ? explain(&o, p) : HS_EXIT_ERROR;
    hs_program_free(p);
    cli_free(&o);
    return rc;
  }
  if (o.nargs != (o.file ? 0 : 1) || (!o.out && !o.print)) {
    cli_free(&o);
    return cli_error("compile: expected one FORMULA and -o FILE or --print "
                     "(see 'hardsoft compile --help')");
  }
  if (o.mode == HS_MODE_TRUTH) {
    cli_free(&o);
    return cli_error("compile: --mode truth has no model; choose hard, pe, "
                     "temp, fixed or rel");
  }
  if (o.json && !o.print) {
    cli_free(&o);
    return cli_error("compile: --json describes the model, so it needs --print");
  }
  int skip;
  hs_program *p = cli_program(&o, o.file, &skip);
  if (p && o.explain && !o.json) explain(&o, p);
  hs_model *m = p ? compile_or_report(p, &o) : NULL;
  rc = m ? 0 : HS_EXIT_ERROR;
  if (m && hs_model_set_vocab(m, p, &he) != 0) rc = cli_error("%s", he.msg);
  if (m && rc == 0 && o.out && cli_is_onnx_path(o.out)) {
    if (hs_model_save_onnx(m, o.out, &he) != 0)
      rc = cli_error("%s: %s", o.out, he.msg);
  } else if (m && rc == 0 && o.out && hs_model_save(m, o.out, &he) != 0)
    rc = cli_error("%s: %s", o.out, he.msg);
  if (m && rc == 0 && o.print && o.json) {
    cJSON *doc = cli_json_model(m);
    rc = doc ? cli_json_print(doc) : cli_error("out of memory");
    cJSON_Delete(doc);
  } else if (m && rc == 0 && o.print) {
    rc = cli_describe_model(stdout, m);
  }
  hs_model_free(m);
  hs_program_free(p);
  cli_free(&o);
  return rc;
}

/* ---------------------------------------------------------------- check */

static const char *const check_usage =
    "usage: hardsoft check FORMULA [OPTIONS]\n"
    "       hardsoft check -f FILE [OPTIONS]\n"
    "Compares the compiled model with the logic at every position of every\n"
    "string up to --max-len over the formula's alphabet plus one symbol no atom\n"
    "names, and of --samples random strings at each of --lengths. Exit 1 on any\n"
    "disagreement. A program is compared with its own interpreter, on strings\n"
    "of its tokens plus one token it does not name. Random strings are uniform\n"
    "or favour one symbol; for counting models, two in four walk near balance\n"
    "between two symbols (docs/CHOICES.md).\n"
    MODE_OPTS
    "  -f FILE, --lang L, --alphabet S   the formula or program in a file (see\n"
    "                eval --help)\n"
    COMMON_RUN_OPTS
    "  --max-len N       exhaustive up to this length (default 6, at most 16)\n"
    "  --lengths L1,...  lengths of the random strings (default 100,1000)\n"
    "  --samples K       random strings per length (default 3)\n"
    "  --seed S          random seed (default 1)\n"
    "  --max-time S      also stops between strings once S seconds have passed\n"
    "  --error-max-n N   measure the attention error only on strings up to N\n"
    "                    symbols (default 4096); it costs up to tens of times\n"
    "                    the pass on rows the kernel takes whole, little on\n"
    "                    rows that skip tiles, nothing on uniform heads\n"
    "  --json            one JSON document: the counts, agreement, largest\n"
    "                    attention error, bound and first disagreements\n";

typedef struct check_ctx {
  const cli_opts *o;
  const hs_program *p;
  const char *text; /* the program's line */
  const hs_model *m;
  hs_runner *run, *run_fast; /* with the attention error; without (longer
                                strings than --error-max-n) */
  uint64_t positions, agree, strings;
  double max_err;
  int shown;
  int tokens; /* a program's symbols are token bytes, not text */
  cJSON *dis;          /* --json: the first disagreements */
  cli_progress prog;   /* strings checked of `total` */
  uint64_t total;
  int li;              /* the random strings' length index (-1: exhaustive) */
  uint64_t held[64], seen[64]; /* per length: positions where the logic
                                  holds, positions */
  double t0;           /* the start, for --max-time */
  int ties[64];        /* tie strings at each of --lengths (hs_model_tie_string) */
  uint64_t nties;
} check_ctx;

static int check_one(const uint8_t *s, size_t n, void *ctx) {
  check_ctx *c = ctx;
  char msg[256];
  hs_error he;
  uint8_t *truth = malloc(n ? n : 1);
  if (!truth || hs_program_truth(c->p, s, n, truth, &he) != 0) {
    free(truth);
    return cli_error("out of memory checking a string of %zu symbols", n);
  }
  hs_run_result r;
  cli_warn_unproven(c->o, c->m, n);
  if (cli_check_memory(c->o, c->m, n) != 0) {
    free(truth);
    return HS_EXIT_ERROR;
  }
  int err = n <= c->o->error_max_n;
  if (hs_runner_run(err ? c->run : c->run_fast, s, n, &r, &he) != 0) {
    free(truth);
    return cli_error("%s", he.msg);
  }
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++)
    if (r.bits[i] != truth[i] && bad++ == 0) first = i;
  for (size_t i = 0; c->li >= 0 && i < n; i++) c->held[c->li] += truth[i];
  if (c->li >= 0) c->seen[c->li] += n;
  for (int l = 0; err && hs_model_layer_nheads(c->m, l) >= 0; l++)
    if (r.attn_error[l] > c->max_err) c->max_err = r.attn_error[l];
  c->positions += n;
  c->agree += n - bad;
  c->strings++;
  snprintf(msg, sizeof msg, "n = %zu", n);
  cli_progress_show(&c->prog, c->strings, c->total, msg);
  if (bad && c->dis && c->shown++ < 3) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "length", (double)n);
    cJSON_AddNumberToObject(d, "position", (double)(first + 1));
    cJSON_AddNumberToObject(d, "model", r.bits[first]);
    cJSON_AddNumberToObject(d, "logic", truth[first]);
    cli_json_num(d, "value", r.values[first]);
    if (n <= 40) cJSON_AddItemToObject(d, "string", cli_json_text(s, n));
    cJSON_AddItemToArray(c->dis, d);
  } else if (bad && !c->dis && c->shown++ < 3)
    printf("disagreement: length %zu, position %zu: model %d, logic %d (value "
           "%.6g)%s%.*s\n", n, first + 1, r.bits[first], truth[first],
           r.values[first], n <= 40 && !c->tokens ? ", string " : "",
           n <= 40 && !c->tokens ? (int)n : 0, (const char *)s);
  hs_run_result_free(&r);
  free(truth);
  /* a prediction can be off (it is an order of magnitude): stop between
   * strings once the time is spent */
  if (c->o->max_time > 0 && cli_now() - c->t0 > c->o->max_time) {
    cli_progress_end(&c->prog);
    return cli_error("check: stopped after %llu of %llu strings, past --max-time %g s",
                     (unsigned long long)c->strings, (unsigned long long)c->total,
                     c->o->max_time);
  }
  return 0;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Symbols: the formula's alphabet plus one byte no atom names; for a
 * program, its tokens' bytes plus the byte of every other token. */
static int check_symbols(const hs_program *p, uint8_t sym[257]) {
  uint8_t set[256];
  int k = 0;
  if (hs_program_lang(p) != HS_LANG_LTL) {
    for (; k < hs_program_vocab_size(p); k++) sym[k] = (uint8_t)hs_program_token_byte(p, k);
    sym[k++] = (uint8_t)hs_program_other_byte(p);
    return k;
  }
  hs_program_alphabet(p, set);
  for (int b = 0; b < 256; b++)
    if (set[b]) sym[k++] = (uint8_t)b;
  const char *other = "#_.xyz0123456789";
  for (const char *p = other; *p; p++)
    if (!set[(uint8_t)*p]) { sym[k++] = (uint8_t)*p; break; }
  return k;
}

/* The longest string checked of at most `cap` symbols. */
static size_t check_longest(const cli_opts *o, size_t cap) {
  size_t longest = (size_t)o->max_len <= cap ? (size_t)o->max_len : 0;
  for (int i = 0; i < o->nlengths; i++)
    if (o->lengths[i] > longest && o->lengths[i] <= cap) longest = o->lengths[i];
  return longest;
}

/* How many tie strings of length n m has (hs_model_tie_string), at most
 * CHECK_TIES: strings where a counting comparison's integer is 0 and only
 * the sign's half unit decides, which random strings almost never make
 * for large coefficients. */
#define CHECK_TIES 8
static int tie_families(const hs_model *m, size_t n) {
  uint8_t *s = malloc(n ? n : 1);
  int k = 0;
  while (s && k < CHECK_TIES && hs_model_tie_string(m, k, n, s)) k++;
  free(s);
  return k;
}

/* The strings to check, their predicted time (said or refused before
 * any output), and the progress over them. */
static int check_plan(check_ctx *c, int k) {
  const cli_opts *o = c->o;
  double total = 0;
  for (int L = 0; L <= o->max_len; L++) total += pow(k, L);
  if (total > 5e6)
    return cli_error("check: %.3g strings up to length %d over %d symbols is "
                     "too many; lower --max-len", total, o->max_len, k);
  size_t ns[64 + 17];
  double times[64 + 17];
  int np = 0;
  for (int L = 0; L <= o->max_len; L++) ns[np] = (size_t)L, times[np++] = pow(k, L);
  c->nties = 0;
  for (int li = 0; li < o->nlengths; li++) {
    c->ties[li] = tie_families(c->m, o->lengths[li]);
    c->nties += (uint64_t)c->ties[li];
    ns[np] = o->lengths[li], times[np++] = o->samples + c->ties[li];
  }
  c->total = (uint64_t)total + (uint64_t)o->samples * (uint64_t)o->nlengths + c->nties;
  char what[96];
  snprintf(what, sizeof what, "%llu string%s", (unsigned long long)c->total,
           c->total == 1 ? "" : "s");
  /* timed as the longest strings run: with the attention error or not */
  hs_run_opts ro = {.precision = o->prec, .kernels = o->kt,
                    .want_attn_error = check_longest(o, SIZE_MAX) <= o->error_max_n,
                    .threads = o->threads};
  if (cli_predict_many(o, c->m, &ro, np, ns, times, what)) return HS_EXIT_ERROR;
  cli_progress_start(&c->prog, o, "strings");
  return 0;
}

/* Whether the model counts: a C-RASP program, or a formula with #< / #>. */
static int check_counts(const check_ctx *c) {
  if (hs_program_lang(c->p) == HS_LANG_CRASP) return 1;
  const char *t = c->text;
  return t && (strstr(t, "#<") || strstr(t, "#>"));
}

/* A walk near balance: symbols x = sym[0] and y = sym[1] keep d = #x - #y
 * within [lo, 3] (lo = -3: it crosses 0 both ways; lo = 0: it returns to
 * 0 and never goes below), one step in four another symbol (the rest of
 * sym, when there is a rest). Counting comparisons of two counts (#x >
 * #y, #x = #y, a prefix never below 0) then hold at some positions and
 * fail at others at every length, where uniform strings drift apart by
 * about sqrt(n) and settle the comparison early. */
static void check_walk(uint64_t *seed, uint8_t *s, size_t n, const uint8_t *sym, int k,
                       int lo) {
  int d = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = splitmix(seed);
    if (k > 2 && r % 4 == 0) {
      s[i] = sym[2 + (r >> 8) % (uint64_t)(k - 2)];
      continue;
    }
    int up = d == 3 ? 0 : d == lo ? 1 : (int)(r >> 40 & 1);
    s[i] = up ? sym[0] : sym[1];
    d += up ? 1 : -1;
  }
}

/* Random string t of a length: half uniform, half favouring one symbol
 * (90%), which makes long runs and distant witnesses; for a model that
 * counts, strings 0 and 1 of each four are walks near balance
 * (check_walk: crossing it, then never below it) over two of the named
 * symbols (k - 1 of them, the last symbol names none), the pair moving
 * with t / 4. */
static void check_random(const check_ctx *c, uint64_t *seed, uint8_t *s, size_t n,
                         const uint8_t *sym, int k, int t) {
  int named = k - 1;
  if (check_counts(c) && named >= 2 && t % 4 < 2) {
    uint8_t w[257];
    int p0 = t / 4 % named, p1 = (p0 + 1) % named, m = 2;
    w[0] = sym[p0], w[1] = sym[p1];
    for (int i = 0; i < k; i++)
      if (i != p0 && i != p1) w[m++] = sym[i];
    check_walk(seed, s, n, w, k, t % 4 == 0 ? -3 : 0);
    return;
  }
  int fav = t % 2 ? (int)(splitmix(seed) % (uint64_t)k) : -1;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = splitmix(seed);
    s[i] = fav >= 0 && r % 10 != 0 ? sym[fav] : sym[(r >> 8) % (uint64_t)k];
  }
}

static int check_run(check_ctx *c, const uint8_t *sym, int k) {
  const cli_opts *o = c->o;
  uint8_t s[17];
  for (int L = 0; L <= o->max_len; L++) {
    int idx[17] = {0};
    for (;;) {
      for (int i = 0; i < L; i++) s[i] = sym[idx[i]];
      int rc = check_one(s, (size_t)L, c);
      if (rc) return rc;
      int i = 0;
      while (i < L && ++idx[i] == k) idx[i++] = 0;
      if (i == L) break;
    }
  }
  uint64_t seed = o->seed;
  for (int li = 0; li < o->nlengths; li++) {
    size_t n = o->lengths[li];
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return cli_error("out of memory for a string of %zu symbols", n);
    c->li = li;
    for (int t = 0; t < o->samples; t++) {
      check_random(c, &seed, buf, n, sym, k, t);
      int rc = check_one(buf, n, c);
      if (rc) { free(buf); return rc; }
    }
    c->li = -1; /* "logic true at random positions" counts the random strings only */
    for (int k = 0; k < c->ties[li]; k++) {
      int rc = hs_model_tie_string(c->m, k, n, buf) ? check_one(buf, n, c) : 0;
      if (rc) { free(buf); return rc; }
    }
    free(buf);
  }
  return 0;
}

/* check --json: what the text says, as fields; 0, 1 on a disagreement. */
static int check_json(cJSON *doc, check_ctx *c, const uint8_t *sym, int k) {
  const cli_opts *o = c->o;
  cJSON_AddStringToObject(doc, "formula", c->text);
  cJSON_AddStringToObject(doc, "mode", hs_mode_name((hs_mode)o->mode));
  if (o->mode != HS_MODE_HARD) cli_json_num(doc, "scale", o->scale);
  cJSON_AddStringToObject(doc, "precision", o->prec == HS_PREC_F64 ? "f64" : "f32");
  cJSON_AddStringToObject(doc, "isa", hs_isa_name(o->kt->isa));
  cJSON_AddItemToObject(doc, "symbols", cli_json_text(sym, (size_t)k));
  cJSON_AddNumberToObject(doc, "max_len", o->max_len);
  cJSON_AddNumberToObject(doc, "samples", o->samples);
  cJSON_AddNumberToObject(doc, "tie_strings", (double)c->nties);
  cJSON *ls = cJSON_AddArrayToObject(doc, "lengths");
  cJSON *held = cJSON_AddArrayToObject(doc, "logic_true");
  size_t longest = check_longest(o, o->error_max_n);
  for (int i = 0; i < o->nlengths; i++) {
    cJSON_AddItemToArray(ls, cJSON_CreateNumber((double)o->lengths[i]));
    cJSON_AddItemToArray(held, cJSON_CreateNumber((double)c->held[i]));
  }
  cJSON_AddNumberToObject(doc, "error_max_n", (double)o->error_max_n);
  cJSON_AddNumberToObject(doc, "strings", (double)c->strings);
  cJSON_AddNumberToObject(doc, "positions", (double)c->positions);
  cJSON_AddNumberToObject(doc, "agree", (double)c->agree);
  cJSON_AddNumberToObject(doc, "agreement", c->positions ? (double)c->agree / (double)c->positions : 1.0);
  cli_json_num(doc, "max_attn_error", longest ? c->max_err : NAN); /* null: none */
  cli_json_num(doc, "bound", hs_model_bound_at(c->m, longest));
  cJSON_AddNumberToObject(doc, "bound_n", (double)longest);
  cJSON_AddItemToObject(doc, "disagreements", c->dis);
  int rc = cli_json_print(doc);
  if (rc) return rc;
  return c->agree == c->positions ? 0 : HS_EXIT_DISAGREE;
}

/* check's text: what is checked, before the strings run. */
static void print_check_header(const check_ctx *c, const uint8_t *sym, int k) {
  if (c->tokens) printf("program: %s (%s)\nmode: %s", c->o->file ? c->o->file : "(argument)",
                       hs_lang_name(hs_program_lang(c->p)), hs_mode_name((hs_mode)c->o->mode));
  else printf("formula: %s\nmode: %s", c->text, hs_mode_name((hs_mode)c->o->mode));
  if (c->o->mode != HS_MODE_HARD) printf(" (scale mu = %g)", c->o->scale);
  printf(", precision %s, isa %s\n", c->o->prec == HS_PREC_F64 ? "f64" : "f32",
         hs_isa_name(c->o->kt->isa));
  if (c->tokens) {
    printf("tokens:");
    for (int t = 0; t < hs_program_vocab_size(c->p); t++) printf(" %s", hs_program_token(c->p, t));
    printf(" and one token the program does not name\n");
  } else {
    printf("symbols: %.*s (the last names no atom)\n", k, (const char *)sym);
  }
}

/* check's text: the counts and the worst attention error; 0, or
 * HS_EXIT_DISAGREE. */
static int print_check_summary(const check_ctx *c) {
  printf("strings: %llu (every string up to length %d; %d random at each of",
         (unsigned long long)c->strings, c->o->max_len, c->o->samples);
  for (int i = 0; i < c->o->nlengths; i++)
    printf("%s%zu", i ? "," : " ", c->o->lengths[i]);
  if (c->nties)
    printf("; %llu where a counting comparison ties", (unsigned long long)c->nties);
  printf(")\npositions checked: %llu\nagreement: %llu/%llu (%.6f%%)\n",
         (unsigned long long)c->positions, (unsigned long long)c->agree,
         (unsigned long long)c->positions,
         c->positions ? 100.0 * (double)c->agree / (double)c->positions : 100.0);
  for (int i = 0; c->o->samples && i < c->o->nlengths; i++)
    printf("%s%llu/%llu (n = %zu)%s", i ? ", " : "logic true at random positions: ",
           (unsigned long long)c->held[i], (unsigned long long)c->seen[i],
           c->o->lengths[i], i + 1 < c->o->nlengths ? "" : "\n");
  size_t longest = check_longest(c->o, c->o->error_max_n);
  if (longest == 0) {
    printf("largest attention error: not measured (every string is longer than "
           "--error-max-n %zu)\n", c->o->error_max_n);
    return c->agree == c->positions ? 0 : HS_EXIT_DISAGREE;
  }
  printf("largest attention error: %.3g (", c->max_err);
  if (check_longest(c->o, SIZE_MAX) > longest)
    printf("on the strings up to n = %zu, --error-max-n; ", longest);
  printf("the construction's bound for n <= %zu: %.3g)\n", longest,
         hs_model_bound_at(c->m, longest));
  /* the rounding gates absorb any attention error below 1/4, so such a
   * disagreement comes from elsewhere: never leave a small error beside it
   * unexplained */
  if (c->agree != c->positions && c->max_err < 0.25)
    printf("the disagreements do not come from attention weights (every error is "
           "below the 1/4 the rounding absorbs): finite-precision rounding decided "
           "them; see the exact region in 'hardsoft compile --print'\n");
  return c->agree == c->positions ? 0 : HS_EXIT_DISAGREE;
}

int cmd_check(int argc, char **argv) {
  cli_opts o;
  int rc = cli_parse(argc, argv, 2,
                     O_MODE | O_SCALE | O_SIGN | O_PREC | O_ISA | O_THREADS | O_MAXMEM | O_MAXLEN | O_LENGTHS |
                         O_SAMPLES | O_SEED | O_PROG | O_MAXTIME | O_QUIET | O_JSON | O_ERRMAXN,
                     check_usage, &o);
  if (rc) { cli_free(&o); return rc == 1 ? 0 : rc; }
  if (o.nargs != (o.file ? 0 : 1)) {
    cli_free(&o);
    return cli_error("check: expected one FORMULA (see 'hardsoft check --help')");
  }
  if (o.mode == HS_MODE_TRUTH) {
    cli_free(&o);
    return cli_error("check: --mode truth compares the logic with itself; "
                     "choose hard, pe, temp, fixed or rel");
  }
  int skip;
  hs_program *p = cli_program(&o, o.file, &skip);
  hs_model *m = p ? compile_or_report(p, &o) : NULL;
  rc = HS_EXIT_ERROR;
  if (m) {
    uint8_t sym[257];
    int k = check_symbols(p, sym);
    hs_error he;
    hs_run_opts ro = {.precision = o.prec, .kernels = o.kt, .want_attn_error = 1,
                      .threads = o.threads};
    check_ctx c = {.o = &o, .p = p, .text = hs_program_text(p), .m = m, .run = hs_runner_new(m, &ro, &he),
                   .tokens = hs_program_lang(p) != HS_LANG_LTL, .li = -1,
                   .t0 = cli_now()};
    ro.want_attn_error = 0;
    if (c.run) c.run_fast = hs_runner_new(m, &ro, &he);
    cJSON *doc = o.json ? cJSON_CreateObject() : NULL;
    if (doc) c.dis = cJSON_CreateArray();
    if (!c.run || !c.run_fast || (o.json && !c.dis)) {
      cJSON_Delete(doc);
      cJSON_Delete(c.dis);
      hs_runner_free(c.run);
      hs_runner_free(c.run_fast);
      hs_model_free(m);
      hs_program_free(p);
      cli_free(&o);
      return cli_error("%s", c.run && c.run_fast ? "out of memory" : he.msg);
    }
    rc = check_plan(&c, k);
    if (!doc && rc == 0) print_check_header(&c, sym, k);
    if (rc == 0) rc = check_run(&c, sym, k);
    cli_progress_end(&c.prog);
    if (rc == 0 && doc) {
      rc = check_json(doc, &c, sym, k);
      c.dis = NULL; /* now inside doc */
    } else if (rc == 0) {
      rc = print_check_summary(&c);
    }
    cJSON_Delete(doc);
    cJSON_Delete(c.dis);
    hs_runner_free(c.run);
    hs_runner_free(c.run_fast);
  }
  hs_model_free(m);
  hs_program_free(p);
  cli_free(&o);
  return rc;
}

/* ---------------------------------------------------------------- info */

int cmd_info(int argc, char **argv) {
  cli_opts o;
  char brand[64];
  int rc = cli_parse(argc, argv, 2, O_ISA,
                     "usage: hardsoft info [--isa ISA]\n"
                     "Prints the CPU, the instruction sets it supports, the "
                     "machine's ID (its folder\nresults/machines/ID in make bench) "
                     "and the kernels chosen.\n", &o);
  if (rc) { cli_free(&o); return rc == 1 ? 0 : rc; }
  if (o.nargs > 0) {
    rc = cli_error("info: unexpected argument '%s' (see 'hardsoft info --help')", o.args[0]);
    cli_free(&o);
    return rc;
  }
  char model[320], kernel[256], id[128];
  if (cli_machine_id(id, sizeof id)) {
    cli_free(&o);
    return cli_error("HARDSOFT_MACHINE_ID: '%.100s' is not a folder name (at most 100 of "
                     "letters, digits, '.', '_', '-'; not first '.')",
                     getenv("HARDSOFT_MACHINE_ID"));
  }
  hs_cpu_brand(brand, sizeof brand);
  cli_cpu_model(model, sizeof model);
  cli_kernel(kernel, sizeof kernel);
  /* model name: what the CSV rows' cpu column says */
  printf("cpu: %s\nmodel name: %s\ncores: %ld\nmemory: %llu MiB\nkernel: %s\nsupported:",
         brand[0] ? brand : "unknown", model, cli_cpu_count(), cli_mem_bytes() >> 20, kernel);
  for (int i = 0; i < HS_ISA_COUNT; i++)
    if (hs_isa_supported((hs_isa)i)) printf(" %s", hs_isa_name((hs_isa)i));
  const char *env = getenv("HARDSOFT_ISA");
  printf("\nmachine id: %s\n", id);
  printf("chosen: %s (%s)\n", hs_isa_name(o.kt->isa),
         env && *env ? "HARDSOFT_ISA" : (o.kt != hs_kernels_default(NULL) ? "--isa" : "best supported"));
  printf("flush-to-zero: %s, denormals-are-zero: %s\nkernels:\n",
         hs_ftz_enabled() ? "on" : "off", hs_daz_enabled() ? "on" : "off");
  for (int op = 0; op < HS_OP_COUNT; op++)
    printf("  %-13s %s\n", hs_op_names[op], o.kt->name[op]);
  cli_free(&o);
  return 0;
}
