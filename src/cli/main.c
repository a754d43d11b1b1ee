/* SPDX-License-Identifier: MIT */
/* hardsoft: the command line. Dispatch, option parsing, shared helpers. */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef HS_BUILD_COMMIT /* the Makefile passes the commit it builds */
#define HS_BUILD_COMMIT "unknown"
#endif
#ifndef HS_BUILD_FLAGS /* and the flags it compiles with */
#define HS_BUILD_FLAGS "flags unknown"
#endif
#ifdef __clang__
#define HS_COMPILER "clang " __clang_version__
#else
#define HS_COMPILER "gcc " __VERSION__
#endif

static const char *const top_usage =
    "usage: hardsoft COMMAND [OPTIONS] [--] [ARGS...]\n"
    "\n"
    "A FORMULA (LTL with counting) is given inline, or with -f FILE a formula,\n"
    "a C-RASP or B-RASP program or a regular expression is read from FILE\n"
    "(- : standard input; the language by its extension, .cr/.crasp, .brasp or\n"
    ".re, or --lang ltl|crasp|brasp|regex; --tokens: strings are token lists,\n"
    "as always for programs).\n"
    "\n"
    "commands:\n"
    "  eval FORMULA|-f FILE [STRING...]   print each position's truth value (0/1)\n"
    "  check FORMULA|-f FILE      compare a compiled model with the logic\n"
    "  compile FORMULA|-f FILE -o FILE    write the model as safetensors (--print:\n"
    "                             describe it)\n"
    "  run FILE [STRING...]       like eval, for a saved model\n"
    "  info                       CPU, instruction sets and chosen kernels\n"
    "  bench                      time and check the forward pass over a sweep (CSV;\n"
    "                             --md, --latex: tables)\n"
    "  boundary FORMULA|-f FILE   largest exact n on adversarial strings\n"
    "  simulate FILE [STRING...]  run a hard-attention model file with softmax at a\n"
    "                             temperature from its score gap, and compare\n"
    "  attention FORMULA|-f FILE STRING --png OUT   picture of the attention weights\n"
    "  export FILE -o FILE.onnx   write a saved model as an ONNX graph\n"
    "\n"
    "'hardsoft --version' prints the version and the commit it was built from;\n"
    "'hardsoft --options' every numeric option and its range.\n"
    "Every command also takes the input limits --max-formula-len BYTES (16 MiB),\n"
    "--max-depth N (10000 nesting levels), --max-header-mib MIB (64) and\n"
    "--max-tensors N (65536).\n"
    "A run predicted to take over 5 s says so on standard error; --max-time S\n"
    "refuses one predicted to take longer, --quiet silences the prediction and\n"
    "the progress; --json gives eval, run, check, compile --print and simulate\n"
    "output as one JSON document.\n"
    "'hardsoft COMMAND --help' describes each command. Exit status: 0 ok,\n"
    "1 a check found a disagreement, 2 a usage, input or file error.\n";

const char *cli_msg(hs_error *e) {
  /* hs_limit_id -> the hs_limits field the message names, the option */
  static const char *const lim[][2] = {
      [HS_LIMIT_MAX_FORMULA_LEN] = {"max_formula_len", "max-formula-len"},
      [HS_LIMIT_MAX_DEPTH] = {"max_depth", "max-depth"},
      [HS_LIMIT_MAX_HEADER_MIB] = {"max_header_mib", "max-header-mib"},
      [HS_LIMIT_MAX_TENSORS] = {"max_tensors", "max-tensors"}};
  if (e->limit <= HS_LIMIT_NONE || e->limit > HS_LIMIT_MAX_TENSORS) return e->msg;
  char tag[48], hint[48];
  snprintf(tag, sizeof tag, "(limit %s)", lim[e->limit][0]);
  snprintf(hint, sizeof hint, "(--%s raises it)", lim[e->limit][1]);
  e->limit = HS_LIMIT_NONE;
  char *at = strstr(e->msg, tag);
  size_t a = strlen(tag), b = strlen(hint), n = strlen(e->msg);
  if (at && n - a + b < sizeof e->msg) {
    memmove(at + b, at + a, n - (size_t)(at - e->msg) - a + 1);
    memcpy(at, hint, b);
  }
  return e->msg;
}

int cli_error(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "hardsoft: error: %s\n", msg);
  return HS_EXIT_ERROR;
}

static int parse_lengths(const char *s, cli_opts *o) {
  char buf[1024];
  if (strlen(s) >= sizeof buf) return cli_error("--lengths: list too long");
  if (cli_list("--lengths", s)) return HS_EXIT_ERROR;
  strcpy(buf, s);
  o->nlengths = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    uint64_t v;
    if (o->nlengths == 64) return cli_error("--lengths: at most 64 lengths");
    if (cli_whole("--lengths", tok, &v)) return HS_EXIT_ERROR;
    o->lengths[o->nlengths++] = (size_t)v;
  }
  return 0;
}

void cli_isa_names(char *buf, size_t len, const char *sep, const char *last) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < HS_ISA_COUNT && at < len; i++) {
    const char *join = i == 0 ? "" : i + 1 < HS_ISA_COUNT ? sep : last;
    int w = snprintf(buf + at, len - at, "%s%s", join, hs_isa_name((hs_isa)i));
    if (w > 0) at += (size_t)w;
  }
}

void cli_put_usage(const char *usage, FILE *f) {
  char isas[128];
  cli_isa_names(isas, sizeof isas, "|", "|");
  for (const char *at; (at = strstr(usage, "@ISAS@")); usage = at + 6) {
    fwrite(usage, 1, (size_t)(at - usage), f);
    fputs(isas, f);
  }
  fputs(usage, f);
}

static int set_isa(const char *s, cli_opts *o) {
  int isa = hs_isa_parse(s);
  char names[128];
  cli_isa_names(names, sizeof names, ", ", " or ");
  if (isa < 0)
    return cli_error("--isa '%s' is not an instruction set (expected %s)", s, names);
  if (!hs_isa_supported((hs_isa)isa))
    return cli_error("--isa %s: this CPU or OS cannot run %s (best supported: "
                     "%s)", s, s, hs_isa_name(hs_isa_best()));
  o->kt = hs_kernels_for((hs_isa)isa);
  return 0;
}

/* 80% of MemAvailable (/proc/meminfo), else of the physical pages the
 * system reports free, else 1 GiB. */
static size_t default_max_mem(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  unsigned long long kb = 0;
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  double bytes = (double)kb * 1024;
  if (bytes <= 0) {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    bytes = pages > 0 && size > 0 ? (double)pages * (double)size : 1073741824.0;
  }
  bytes *= 0.8;
  return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX / 2;
}

void cli_warn_unproven(const cli_opts *o, const hs_model *m, size_t n) {
  static int warned;
  char why[512];
  if (!warned && m && hs_model_unproven(m, n, o->prec, why, sizeof why))
    warned = fprintf(stderr, "hardsoft: warning: %s\n", why) > 0;
}

int cli_check_memory(const cli_opts *o, const hs_model *m, size_t n) {
  size_t need = hs_model_run_bytes(m, n, o->prec, o->threads);
  if (need <= o->max_mem) return 0;
  return cli_error("a string of %zu symbols needs %.0f MiB for this model, more "
                   "than the limit of %.0f MiB (--max-memory MIB; default: 80%% "
                   "of the memory available)", n, (double)need / 1048576.0,
                   (double)o->max_mem / 1048576.0);
}

/* One option that takes a value: "--name VALUE" or "--name=VALUE". */
static const char *value_of(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=') return argv[*i] + n + 1;
  if (strcmp(argv[*i], name) != 0) return NULL;
  if (*i + 1 >= argc) return "";
  return argv[++*i];
}

/* The argument being parsed (argv[*i]) and the options the command takes;
 * an option's parser returns 0 (taken), an exit status (an error, said),
 * or NOT_MINE. */
typedef struct argp {
  int argc;
  char **argv;
  int *i;
  unsigned allowed;
  const char *bare; /* an option given without its value */
} argp;
#define NOT_MINE (-1)

/* The value of argv[*i] when it is the option name and the command takes
 * it; NULL otherwise, and NULL with P->bare set when the value is missing
 * or empty (cli_parse says so). */
static const char *takes(argp *P, unsigned flag, const char *name) {
  if (!(P->allowed & flag)) return NULL;
  const char *v = value_of(P->argc, P->argv, P->i, name);
  if (v && !*v) {
    P->bare = name;
    return NULL;
  }
  return v;
}

/* The model and how it runs: --mode, --scale, --sign, --precision, --isa,
 * --threads, --max-memory; NOT_MINE when the option is none of them. */
static int model_option(argp *P, cli_opts *o) {
  const char *v;
  uint64_t u;
  if ((v = takes(P, O_MODE, "--mode"))) {
    if (strcmp(v, "truth") == 0) o->mode = HS_MODE_TRUTH;
    else if ((o->mode = hs_mode_parse(v)) < 0)
      return cli_error("--mode '%s' is not a mode (expected hard, pe, temp, "
                       "fixed, rel%s)", v, strcmp(o->cmd, "eval") ? "" : " or truth");
  } else if ((v = takes(P, O_SCALE, "--scale"))) {
    if (cli_real("--scale", v, &o->scale)) return HS_EXIT_ERROR;
  } else if ((v = takes(P, O_SIGN, "--sign"))) {
    if (strcmp(v, "layernorm") == 0) o->sign = HS_SIGN_LAYERNORM;
    else if (strcmp(v, "temp") == 0) o->sign = HS_SIGN_TEMP;
    else return cli_error("--sign '%s' is not layernorm or temp", v);
  } else if ((v = takes(P, O_PREC, "--precision"))) {
    if (strcmp(v, "f32") == 0) o->prec = HS_PREC_F32;
    else if (strcmp(v, "f64") == 0) o->prec = HS_PREC_F64;
    else return cli_error("--precision '%s' is not f32 or f64", v);
  } else if ((v = takes(P, O_ISA, "--isa"))) {
    if (set_isa(v, o)) return HS_EXIT_ERROR;
  } else if ((v = takes(P, O_THREADS, "--threads"))) {
    if (cli_whole("--threads", v, &u)) return HS_EXIT_ERROR;
    o->threads = (int)u;
  } else if ((v = takes(P, O_MAXMEM, "--max-memory"))) {
    if (cli_whole("--max-memory", v, &u)) return HS_EXIT_ERROR;
    o->max_mem = (size_t)u * 1048576;
  } else {
    return NOT_MINE;
  }
  return 0;
}

/* The sweeps of check and bench: --max-len, --lengths, --samples, --seed,
 * --error-max-n; NOT_MINE when the option is none of them. */
static int sweep_option(argp *P, cli_opts *o) {
  const char *v;
  uint64_t u;
  if ((v = takes(P, O_MAXLEN, "--max-len"))) {
    if (cli_whole("--max-len", v, &u)) return HS_EXIT_ERROR;
    o->max_len = (int)u;
  } else if ((v = takes(P, O_LENGTHS, "--lengths"))) {
    if (parse_lengths(v, o)) return HS_EXIT_ERROR;
  } else if ((v = takes(P, O_SAMPLES, "--samples"))) {
    if (cli_whole("--samples", v, &u)) return HS_EXIT_ERROR;
    o->samples = (int)u;
  } else if ((v = takes(P, O_SEED, "--seed"))) {
    if (cli_whole("--seed", v, &o->seed)) return HS_EXIT_ERROR;
  } else if ((v = takes(P, O_ERRMAXN, "--error-max-n"))) {
    if (cli_whole("--error-max-n", v, &u)) return HS_EXIT_ERROR;
    o->error_max_n = (size_t)u;
  } else {
    return NOT_MINE;
  }
  return 0;
}

/* Input, output and what is shown: -o, -f, --lang, --tokens, --trace,
 * --print, --last, --max-time, --quiet, --json, --unknown; NOT_MINE when
 * the option is none of them. */
static int io_option(argp *P, cli_opts *o) {
  const char *v;
  if ((v = takes(P, O_OUT, "-o"))) {
    o->out = v;
  } else if ((v = takes(P, O_PROG, "-f"))) {
    if (o->file) return cli_error("-f given twice ('%s' and '%s')", o->file, v);
    o->file = v;
  } else if ((v = takes(P, O_PROG, "--lang"))) {
    if ((o->lang = hs_lang_parse(v)) < 0)
      return cli_error("--lang '%s' is not a language (expected ltl, crasp, brasp or regex)", v);
  } else if ((v = takes(P, O_PROG, "--alphabet"))) {
    o->alphabet = v;
  } else if ((P->allowed & O_EXPLAIN) && strcmp(P->argv[*P->i], "--explain") == 0) {
    o->explain = 1;
  } else if ((P->allowed & O_PROG) && strcmp(P->argv[*P->i], "--tokens") == 0) {
    o->tokens = 1;
  } else if ((P->allowed & O_TRACE) && strcmp(P->argv[*P->i], "--trace") == 0) {
    o->trace = 1;
  } else if ((P->allowed & O_PRINT) && strcmp(P->argv[*P->i], "--print") == 0) {
    o->print = 1;
  } else if ((P->allowed & O_LAST) && strcmp(P->argv[*P->i], "--last") == 0) {
    o->last = 1;
  } else if ((v = takes(P, O_MAXTIME, "--max-time"))) {
    if (cli_real("--max-time", v, &o->max_time)) return HS_EXIT_ERROR;
  } else if ((P->allowed & O_QUIET) && strcmp(P->argv[*P->i], "--quiet") == 0) {
    o->quiet = 1;
  } else if ((P->allowed & O_JSON) && strcmp(P->argv[*P->i], "--json") == 0) {
    o->json = 1;
  } else if ((v = takes(P, O_UNKNOWN, "--unknown"))) {
    if (strcmp(v, "error") == 0) o->unknown = HS_UNKNOWN_ERROR;
    else if (strcmp(v, "other") == 0) o->unknown = HS_UNKNOWN_OTHER;
    else return cli_error("--unknown '%s' is not error or other", v);
  } else {
    return NOT_MINE;
  }
  return 0;
}

static void set_defaults(cli_opts *o, char **argv, int first) {
  memset(o, 0, sizeof *o);
  o->cmd = argv[first - 1];
  o->mode = HS_MODE_TEMP;
  o->scale = 4;
  o->max_len = 6;
  o->samples = 3;
  o->seed = 1;
  o->lengths[0] = 100;
  o->lengths[1] = 1000;
  o->nlengths = 2;
  o->error_max_n = 4096;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  o->threads = cores > 0 && cores <= 256 ? (int)cores : 1;
  o->max_mem = default_max_mem();
  o->lang = -1;
}

int cli_parse(int argc, char **argv, int first, unsigned allowed,
              const char *usage, cli_opts *o) {
  hs_error err;
  set_defaults(o, argv, first);
  o->kt = hs_kernels_default(&err);
  o->args = calloc((size_t)argc + 1, sizeof(char *));
  if (!o->args) return cli_error("out of memory");
  int only_args = 0;
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (only_args || a[0] != '-' || a[1] == 0) {
      o->args[o->nargs++] = argv[i];
      continue;
    }
    if (strcmp(a, "--") == 0) { only_args = 1; continue; }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      cli_put_usage(usage, stdout);
      return 1;
    }
    argp P = {argc, argv, &i, allowed, NULL};
    int rc = model_option(&P, o);
    if (rc == NOT_MINE) rc = sweep_option(&P, o);
    if (rc == NOT_MINE) rc = io_option(&P, o);
    if (rc == NOT_MINE && P.bare) return cli_error("%s needs a value", P.bare);
    if (rc == NOT_MINE)
      return cli_error("%s: unknown option '%s' (see 'hardsoft %s --help')",
                       o->cmd, a, o->cmd);
    if (rc) return rc;
  }
  if (!o->kt) return cli_error("%s", err.msg);
  return 0;
}

static void csv_field(FILE *f, const char *s) {
  fputs(",\"", f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    if (*s != '\n') fputc(*s, f);
  }
  fputc('"', f);
}

void cli_meta_columns(FILE *f) {
  /* read once: a sweep writes thousands of rows from one thread */
  static char cpu[320], kernel[256];
  char date[32];
  if (!cpu[0]) cli_cpu_model(cpu, sizeof cpu);
  if (!kernel[0]) cli_kernel(kernel, sizeof kernel);
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  csv_field(f, cpu);
  fprintf(f, ",%ld,%llu", cli_cpu_count(), cli_mem_bytes());
  csv_field(f, kernel);
  csv_field(f, cli_build());
  csv_field(f, cli_commit());
  csv_field(f, date);
}

const char *cli_build(void) {
  const char *build = getenv("HARDSOFT_BUILD");
  return build && *build ? build : HS_COMPILER "; " HS_BUILD_FLAGS;
}

const char *cli_commit(void) {
  const char *commit = getenv("HARDSOFT_COMMIT");
  return commit && *commit ? commit : HS_BUILD_COMMIT;
}

hs_formula *cli_formula(const char *text) {
  hs_error e;
  memset(&e, 0, sizeof e);
  hs_formula *f = hs_formula_parse(text, &e);
  if (!f) cli_error("%s", cli_msg(&e));
  return f;
}

int cli_each_string(const cli_opts *o, int skip, cli_string_fn fn, void *ctx) {
  if (o->nargs > skip) {
    for (int i = skip; i < o->nargs; i++) {
      int rc = fn((const uint8_t *)o->args[i], strlen(o->args[i]), ctx);
      if (rc) return rc;
    }
    return 0;
  }
  char *line = NULL;
  size_t cap = 0, n = 0, lineno = 1;
  int rc = 0, c;
  /* byte by byte into a growing buffer, so an endless line stops at the
   * limit instead of exhausting memory */
  while (rc == 0 && (c = getc_unlocked(stdin)) != EOF) {
    if (c == '\n') {
      if (n && line[n - 1] == '\r') n--;
      rc = fn((const uint8_t *)(line ? line : ""), n, ctx);
      n = 0;
      lineno++;
      continue;
    }
    if (n >= o->max_mem) {
      rc = cli_error("line %zu of standard input is longer than the limit of "
                     "%zu bytes (--max-memory MIB)", lineno, o->max_mem);
      break;
    }
    if (n == cap) {
      size_t ncap = cap ? 2 * cap : 4096;
      char *p = realloc(line, ncap);
      if (!p) { rc = cli_error("out of memory reading line %zu", lineno); break; }
      line = p;
      cap = ncap;
    }
    line[n++] = (char)c;
  }
  if (rc == 0 && n > 0) { /* a last line without its newline */
    if (line[n - 1] == '\r') n--;
    rc = fn((const uint8_t *)line, n, ctx);
  }
  if (rc == 0 && ferror(stdin)) rc = cli_error("reading standard input failed");
  free(line);
  return rc;
}

/* The limits every command takes (before any "--"); they are removed from
 * argv before the command parses its own options. Returns 0 or exit 2. */
static int take_limits(int *argc, char **argv) {
  hs_limits l = hs_get_limits();
  int out = 2;
  for (int i = 2; i < *argc; i++) {
    const char *a = argv[i];
    uint64_t v;
    if (strcmp(a, "--") == 0) {
      while (i < *argc) argv[out++] = argv[i++];
      break;
    }
    int is_len = !strcmp(a, "--max-formula-len"), is_depth = !strcmp(a, "--max-depth");
    int is_hdr = !strcmp(a, "--max-header-mib"), is_ten = !strcmp(a, "--max-tensors");
    if (!(is_len || is_depth || is_hdr || is_ten)) {
      argv[out++] = argv[i];
      continue;
    }
    if (i + 1 >= *argc) return cli_error("%s needs a value", a);
    if (cli_whole(a, argv[++i], &v)) return HS_EXIT_ERROR;
    if (is_len) l.max_formula_len = (size_t)v;
    if (is_depth) l.max_depth = (int)v;
    if (is_hdr) l.max_header = (size_t)v << 20;
    if (is_ten) l.max_tensors = (size_t)v;
  }
  *argc = out;
  argv[out] = NULL;
  hs_set_limits(&l);
  return 0;
}

typedef struct cmd_call { int (*fn)(int, char **); int argc; char **argv; int rc; } cmd_call;
static void *run_cmd(void *arg) {
  cmd_call *c = arg;
  c->rc = c->fn(c->argc, c->argv);
  return NULL;
}

/* Recursive walks over a formula (parse, print, compile) take about 4 KiB
 * of stack per nesting level at worst: a raised --max-depth runs the
 * command on a thread with a stack sized for it, never into an overflow. */
static int call_cmd(int (*fn)(int, char **), int argc, char **argv) {
  cmd_call c = {fn, argc, argv, 0};
  int depth = hs_get_limits().max_depth;
  if (depth <= HS_DEFAULT_DEPTH) return fn(argc, argv);
  pthread_attr_t at;
  pthread_t t;
  size_t stack = ((size_t)8 << 20) + (size_t)depth * 4096;
  if (pthread_attr_init(&at) != 0 || pthread_attr_setstacksize(&at, stack) != 0 ||
      pthread_create(&t, &at, run_cmd, &c) != 0)
    return cli_error("--max-depth %d needs a %zu MiB stack that could not be "
                     "had", depth, stack >> 20);
  pthread_join(t, NULL);
  pthread_attr_destroy(&at);
  return c.rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(top_usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? HS_EXIT_ERROR : 0;
  }
  if (strcmp(argv[1], "--options") == 0) { /* the numeric options and their ranges */
    cli_print_options();
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    if (argc > 2) return cli_error("--version takes no arguments, got '%s'", argv[2]);
    printf("hardsoft %s (commit %s)\n", hs_version(), HS_BUILD_COMMIT);
    return 0;
  }
  static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
      {"eval", cmd_eval}, {"run", cmd_run}, {"check", cmd_check},
      {"compile", cmd_compile}, {"info", cmd_info}, {"bench", cmd_bench},
      {"boundary", cmd_boundary}, {"simulate", cmd_simulate},
      {"attention", cmd_attention},
      {"export", cmd_export},
  };
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
    if (strcmp(argv[1], cmds[i].name) == 0) {
      int rc = take_limits(&argc, argv);
      if (rc == 0) rc = call_cmd(cmds[i].fn, argc, argv);
      if (fflush(stdout) != 0 && rc == 0) rc = cli_error("writing output failed");
      return rc;
    }
  return cli_error("unknown command '%s' (expected eval, check, compile, run, "
                   "info, bench, boundary, simulate, attention or export)", argv[1]);
}
