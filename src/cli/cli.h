/* SPDX-License-Identifier: MIT */
/* Shared pieces of the command line (internal). */
#ifndef HS_CLI_H
#define HS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "hardsoft.h"
#include "hardsoft/kernels.h"

/* Exit codes: 0 success, 1 a check found a disagreement, 2 usage, input or
 * file error. */
enum { HS_EXIT_OK = 0, HS_EXIT_DISAGREE = 1, HS_EXIT_ERROR = 2 };

/* Options every command may accept; each command says which it takes. */
enum {
  O_MODE = 1 << 0, O_SCALE = 1 << 1, O_PREC = 1 << 2, O_ISA = 1 << 3,
  O_MAXLEN = 1 << 4, O_LENGTHS = 1 << 5, O_SAMPLES = 1 << 6, O_SEED = 1 << 7,
  O_OUT = 1 << 8, O_PRINT = 1 << 9, O_LAST = 1 << 10, O_SIGN = 1 << 11,
  O_THREADS = 1 << 12, O_MAXMEM = 1 << 13,
  O_PROG = 1 << 14,  /* -f FILE, --lang L, --tokens */
  O_TRACE = 1 << 15, /* --trace */
  O_MAXTIME = 1 << 16, O_QUIET = 1 << 17, O_JSON = 1 << 18,
  O_ERRMAXN = 1 << 19, /* --error-max-n N */
  O_UNKNOWN = 1 << 20, /* --unknown error|other */
  O_EXPLAIN = 1 << 21, /* --explain */
};

typedef struct cli_opts {
  const char *cmd;
  int mode; /* hs_mode, or -1 for truth */
  double scale;
  hs_sign sign;
  hs_precision prec;
  const hs_kernels *kt;
  int max_len, samples;
  uint64_t seed;
  size_t lengths[64];
  int nlengths;
  const char *out;
  int print, last;
  int threads; /* rows split among threads (default: online cores) */
  size_t max_mem; /* bytes a run may need (--max-memory; default: 80% of
                     the memory available at start) */
  char **args; /* positional arguments */
  int nargs;
  const char *file; /* -f FILE: the program (or formula) in a file */
  int lang;         /* --lang: hs_lang, or -1 (from the extension) */
  const char *alphabet; /* --alphabet: a regular expression's extra symbols */
  int explain;      /* --explain */
  int tokens;       /* --tokens */
  int trace;        /* --trace */
  double max_time; /* --max-time: refuse a run predicted to take longer (0: none) */
  int quiet;       /* --quiet: no prediction line, no progress */
  int json;        /* --json: one JSON document on standard output */
  size_t error_max_n; /* --error-max-n: longer strings run without the
                         attention error (default 4096) */
  hs_unknown unknown; /* --unknown: what a token the vocabulary does not name is */
} cli_opts;

#define HS_MODE_TRUTH (-1)

/* The numeric options (src/cli/options.c): v as option opt's whole
 * number or real, checked against its range in the table; 0, or
 * HS_EXIT_ERROR after one line naming the range. */
int cli_whole(const char *opt, const char *v, uint64_t *out);
int cli_real(const char *opt, const char *v, double *out);
/* A comma list has no empty item ("4,", ",4", "4,,8"): 0, or the error. */
int cli_list(const char *opt, const char *v);
/* hardsoft --options: one line per numeric option, "NAME whole LO HI" or
 * "NAME real >LO inf". */
void cli_print_options(void);

/* Prints "hardsoft: error: ..." on one line and returns HS_EXIT_ERROR. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* e's message, where it names the input limit it passed (e->limit) said
 * as the option that raises it: "(limit max_depth)" becomes "(--max-depth
 * raises it)". */
const char *cli_msg(hs_error *e);
/* The instruction sets' names (hs_isa_name of every hs_isa) into buf,
 * joined by sep, the last two by last ("scalar, avx2, ... or ..."). */
void cli_isa_names(char *buf, size_t len, const char *sep, const char *last);
/* A command's help text to f, "@ISAS@" in it written as the ISAs' names
 * joined by '|' (the help reads them from the library's table). */
void cli_put_usage(const char *usage, FILE *f);
/* Parses argv[first..argc) into o; `allowed` is a mask of O_* flags.
 * Returns 0, 1 if --help was printed, or HS_EXIT_ERROR after printing. */
int cli_parse(int argc, char **argv, int first, unsigned allowed,
              const char *usage, cli_opts *o);
/* Parses a formula, printing the error with its column. */
hs_formula *cli_formula(const char *text);

/* Once per command, on standard error: the answer at length n is outside
 * what the construction proves exact (hs_model_unproven: mu below the
 * model's smallest exact mu, fixed past n = mu / ln 7, counting
 * comparisons past their exact region in the --precision, absolute
 * positions in f32 past 2^23). It still runs. */
void cli_warn_unproven(const cli_opts *o, const hs_model *m, size_t n);

/* Refuses (one line, exit 2) a run that would need more than --max-memory.
 * Returns 0 when it fits. */
int cli_check_memory(const cli_opts *o, const hs_model *m, size_t n);

/* Strings: from the positional arguments after `skip`, or from stdin, one
 * per line (a line longer than --max-memory bytes is refused before it is
 * read whole). Calls fn(s, n, ctx) for each; stops on the first non-zero. */
typedef int (*cli_string_fn)(const uint8_t *s, size_t n, void *ctx);
int cli_each_string(const cli_opts *o, int skip, cli_string_fn fn, void *ctx);

/* Programs (src/cli/program.c). The program of -f FILE (file non-NULL;
 * *skip = 0) or of the first positional argument (*skip = 1), in --lang
 * or the language of the file's extension; NULL after printing the error
 * (prefixed by the file name). */
hs_program *cli_program(const cli_opts *o, const char *file, int *skip);
/* p's line (hs_program_text) when it has a lowering for
 * hs_program_compile, or NULL after printing (one line, the file first
 * when there is one) why its lowering failed: a program the interpreter
 * runs may still not compile (hs_program_lowered). */
const char *cli_lowered(const cli_opts *o, const hs_program *p);
hs_program *cli_program_text(const char *text, size_t len, hs_lang lang,
                             const char *where);
/* hs_model_load for command cmd, or NULL after one line saying why: a
 * file in another format (ONNX, gzip, zip, NumPy, GGUF, HDF5, pickle,
 * text) named as such (hs_file_kind) with what to use instead, a formula
 * given where the file goes with the command that takes it. */
hs_model *cli_model_load(const char *cmd, const char *path);
/* The same with a regular expression's --alphabet (NULL: none). */
hs_program *cli_program_text_in(const char *text, size_t len, hs_lang lang,
                                const char *alphabet, const char *where);
/* Whether input strings are token lists: --tokens, and always for C-RASP
 * and B-RASP programs. */
int cli_tokens_default(const cli_opts *o, const hs_program *p);
/* s[0..n) as tokens of p (or of m's vocabulary when p is NULL) into a new
 * buffer *buf of *len bytes; an unknown token is refused (one line naming
 * it, exit 2) unless --unknown other. 0 or exit 2. */
int cli_as_tokens(const cli_opts *o, const hs_program *p, const hs_model *m,
                  const uint8_t *s, size_t n, uint8_t **buf, size_t *len);
/* A formula reads bytes: once per command, a warning on standard error
 * when w[0..n) holds a byte no atom of p's formula (or of m, when p is
 * NULL) names, unless --unknown other. Nothing for a program or a model
 * with a vocabulary, whose tokens cli_as_tokens checked. */
void cli_warn_unnamed(const cli_opts *o, const hs_program *p, const hs_model *m,
                      const uint8_t *w, size_t n);
/* Every statement's values at every position, one line per statement. */
int cli_trace(const hs_program *p, const uint8_t *w, size_t n);
/* Long runs (src/cli/progress.c). cli_predict: for a string of n symbols
 * run `passes` times through m with ro, predicts the time (calibrating
 * once per model, only when n >= 4096 or --max-time is set), refuses it
 * past --max-time (one line, exit 2) and says "hardsoft: about T, M for
 * WHAT" on standard error past 5 s unless --quiet. 0 when it may run. */
int cli_predict(const cli_opts *o, const hs_model *m, const hs_run_opts *ro,
                size_t n, double passes, const char *what);
/* The same for several runs at once: passes[i] runs over n[i] symbols
 * (the memory said is the largest one's). */
int cli_predict_many(const cli_opts *o, const hs_model *m, const hs_run_opts *ro,
                     int k, const size_t *n, const double *passes, const char *what);
/* cli_predict_many for `copies` runs held at once (one per thread): the
 * memory said is that many of the largest run. */
int cli_predict_runs(const cli_opts *o, const hs_model *m, const hs_run_opts *ro,
                     int k, const size_t *n, const double *passes, int copies,
                     const char *what);
double cli_now(void);
const char *cli_duration(double seconds, char *buf, size_t len);
/* Progress on standard error, carriage-return updates of one line: on when
 * stderr is a terminal and not --quiet (HARDSOFT_PROGRESS=1 forces it on
 * from the first update, for tests; =0 off). */
typedef struct cli_progress {
  int on, force, width;
  const char *unit;
  double t0, last;
} cli_progress;
void cli_progress_start(cli_progress *p, const cli_opts *o, const char *unit);
void cli_progress_show(cli_progress *p, uint64_t done, uint64_t total,
                       const char *label);
void cli_progress_end(cli_progress *p); /* clears the line */
/* hs_run_opts.progress (and hs_sim_opts.progress) for a cli_progress */
void cli_progress_rows(void *ctx, uint64_t done, uint64_t total);

/* --json (src/cli/json.c). Non-finite numbers become "inf", "-inf", "nan". */
typedef struct cJSON cJSON;
cJSON *cli_json_num(cJSON *o, const char *key, double v);
cJSON *cli_json_text(const uint8_t *s, size_t n); /* bad UTF-8 and NUL as '?' */
int cli_json_print(cJSON *doc); /* one line on stdout; 0 or exit 2 */
cJSON *cli_json_run_header(const cli_opts *o, const char *text, const hs_model *m);
int cli_json_result(cJSON *arr, const cli_opts *o, const uint8_t *s, size_t n,
                    const uint8_t *bits, const double *values);
cJSON *cli_json_model(const hs_model *m);

int cmd_eval(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_boundary(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_attention(int argc, char **argv);
int cmd_export(int argc, char **argv);
/* Whether path ends in ".onnx" (compile -o writes ONNX then). */
int cli_is_onnx_path(const char *path);

/* The provenance columns appended to every CSV row: cpu (/proc/cpuinfo's
 * model name, family, model, stepping), cores (logical CPUs online),
 * memory_bytes (MemTotal), kernel (uname), build (compiler and flags:
 * $HARDSOFT_BUILD, else those this binary was built with), commit
 * ($HARDSOFT_COMMIT, else the commit it was built from, +dirty with local
 * changes) and the UTC date. */
#define CLI_META_HEADER ",cpu,cores,memory_bytes,kernel,build,commit,date"
void cli_meta_columns(FILE *f);
/* The compiler and flags, and the commit, those columns hold. */
const char *cli_build(void);
const char *cli_commit(void);
/* One line of it for a table's reader (bench --md/--latex): CPU, logical
 * CPUs, compiler, commit, date and the repeats each time is the median
 * of; full adds the machine ID, the flags and the time of day. */
void cli_provenance_line(char *buf, size_t len, int repeat, int full);
/* The parts of it (src/cli/provenance.c). */
void cli_cpu_model(char *buf, size_t len);
long cli_cpu_count(void);
unsigned long long cli_mem_bytes(void);
void cli_kernel(char *buf, size_t len);
/* results/machines/ID: vendor, family, model, stepping, widest ISA
 * (HARDSOFT_MACHINE_ID overrides; -1 when that is not a folder name). */
int cli_machine_id(char *buf, size_t len);

/* Writes a person's description of a model to f; 0, or the exit status
 * of an error said (out of memory). */
int cli_describe_model(FILE *f, const hs_model *m);

#endif
