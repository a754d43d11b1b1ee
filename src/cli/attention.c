/* SPDX-License-Identifier: MIT */
/* hardsoft attention: a picture of the attention weights over one string.
 * The library computes the weights (hs_attention); this file writes them
 * as JSON into a temporary file and runs the drawing script of the Python
 * package (src/python/hardsoft/plot.py, installed under
 * PREFIX/lib/python3/dist-packages/hardsoft/) with /usr/bin/python3 and
 * matplotlib. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

#define PIC_MAX_N 256 /* a heatmap of more keys is not readable */
#define PIC_MAX_SCALES 16

static const char *const attention_usage =
    "usage: hardsoft attention (FORMULA | -f FILE | --model FILE) STRING (--png OUT | --svg OUT) [OPTIONS]\n"
    "Draws the attention weights of every head over STRING (at most 256\n"
    "symbols): one heatmap per layer and head, query i down, key j across\n"
    "(BOS first), the hard target each head is or stands in for marked.\n"
    "Needs /usr/bin/python3 with matplotlib ($HARDSOFT_PYTHON: another python).\n"
    "  --mode M      hard, pe, temp, fixed or rel (default temp)\n"
    "  --scale MU    the scale mu > 0 (default 4)\n"
    "  --scales L    draw each head at every mu of the list (e.g. 1,2,4,8) side\n"
    "                by side: softmax sharpening into hard attention\n"
    "  --sign S      counting comparisons' sign: layernorm (default) or temp\n"
    "  --model FILE  a saved model instead of a FORMULA (its own mode and mu)\n"
    "  -f FILE, --lang L   the formula or program in a file (see eval --help);\n"
    "                a program's STRING is one argument of space-separated tokens\n"
    "  --unknown U   error (default) or other: a token the vocabulary does not\n"
    "                name is refused, or read as one symbol no token names\n"
    "  --layer L     only layer L;  --head H  only head H of each layer\n"
    "  --precision f32|f64   working precision of the forward pass (f32)\n"
    "  --isa @ISAS@   kernels (default: HARDSOFT_ISA, else the best)\n"
    "  --threads N   threads of the forward pass (the weights are the same)\n"
    "  --png OUT | --svg OUT   the picture to write (atomically)\n";

typedef struct pic_opts {
  const char *out, *model;
  double scales[PIC_MAX_SCALES];
  int nscales, layer, head, svg;
} pic_opts;

static int pic_number(const char *opt, const char *v, int *out) {
  uint64_t x;
  if (cli_whole(opt, v, &x)) return HS_EXIT_ERROR;
  *out = (int)x;
  return 0;
}

static int pic_scales(const char *v, pic_opts *p) {
  char buf[1024];
  if (!*v || strlen(v) >= sizeof buf) return cli_error("--scales needs a list of scales");
  if (cli_list("--scales", v)) return HS_EXIT_ERROR;
  strcpy(buf, v);
  p->nscales = 0;
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (p->nscales == PIC_MAX_SCALES)
      return cli_error("--scales: at most %d scales", PIC_MAX_SCALES);
    if (cli_real("--scales", tok, &p->scales[p->nscales++])) return HS_EXIT_ERROR;
  }
  if (p->nscales == 0) return cli_error("--scales needs a list of scales");
  return 0;
}

/* Takes this command's own options out of argv (before "--"); the rest
 * goes to cli_parse. */
static int pic_take(int *argc, char **argv, pic_opts *p) {
  int out = 2;
  for (int i = 2; i < *argc; i++) {
    const char *a = argv[i];
    int known = !strcmp(a, "--png") || !strcmp(a, "--svg") || !strcmp(a, "--scales") ||
                !strcmp(a, "--model") || !strcmp(a, "--layer") || !strcmp(a, "--head");
    if (!strcmp(a, "--")) {
      while (i < *argc) argv[out++] = argv[i++];
      break;
    }
    if (!known) { argv[out++] = argv[i]; continue; }
    if (i + 1 >= *argc || !argv[i + 1][0]) return cli_error("%s needs a value", a);
    const char *v = argv[++i];
    if (!strcmp(a, "--png") || !strcmp(a, "--svg")) {
      if (p->out) return cli_error("attention: give one of --png and --svg, once");
      p->out = v;
      p->svg = !strcmp(a, "--svg");
    } else if (!strcmp(a, "--scales")) {
      if (pic_scales(v, p)) return HS_EXIT_ERROR;
    } else if (!strcmp(a, "--model")) {
      p->model = v;
    } else if (pic_number(a, v, !strcmp(a, "--layer") ? &p->layer : &p->head)) {
      return HS_EXIT_ERROR;
    }
  }
  *argc = out;
  argv[out] = NULL;
  return 0;
}

/* A JSON string: bytes >= 0x80 as \u00XX (the string's symbols are bytes). */
static void json_str(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void json_matrix(FILE *f, const double *w, size_t np) {
  fputc('[', f);
  for (size_t i = 0; i < np; i++) {
    fputs(i ? ",[" : "[", f);
    for (size_t j = 0; j < np; j++)
      fprintf(f, isfinite(w[i * np + j]) ? "%s%.6g" : "%sNaN", j ? "," : "", w[i * np + j]);
    fputc(']', f);
  }
  fputc(']', f);
}

typedef struct pic_layer { double *w, *hard; } pic_layer;

/* One panel: head h of layer l of model m (weights already computed). */
static void json_panel(FILE *f, const hs_model *m, int l, int h,
                       const pic_layer *L, size_t np) {
  hs_head_info hi;
  hs_model_info mi;
  hs_model_head_info(m, l, h, &hi);
  hs_model_get_info(m, &mi);
  fprintf(f, "{\"layer\":%d,\"head\":%d,\"kind\":\"%s\",\"target\":\"%s\","
          "\"mask\":\"%s\",\"mode\":", l, h, hi.kind, hi.target, hi.mask);
  json_str(f, mi.mode, strlen(mi.mode));
  fprintf(f, ",\"scale\":%.17g,\"weights\":", mi.scale);
  json_matrix(f, L->w + (size_t)h * np * np, np);
  fputs(",\"hard\":", f);
  json_matrix(f, L->hard + (size_t)h * np * np, np);
  fputc('}', f);
}

/* ,"bits":"0101...": the model's decision at each position, which the
 * picture prints under the string. 0, or exit 2 (said). */
static int json_bits(FILE *f, const hs_model *m, const hs_run_opts *ro,
                     const uint8_t *w, size_t n) {
  hs_run_result res;
  hs_error he;
  if (hs_forward(m, w, n, ro, &res, &he)) return cli_error("attention: %s", he.msg);
  fputs(",\"bits\":\"", f);
  for (size_t i = 0; i < n; i++) fputc(res.bits[i] ? '1' : '0', f);
  fputc('"', f);
  hs_run_result_free(&res);
  return 0;
}

/* The weights of every layer of the nm models, then the JSON: a row per
 * (layer, head) that --layer / --head keep, a panel per model. */
static int pic_write(FILE *f, hs_model **ms, int nm, const pic_opts *p,
                     const cli_opts *o, const uint8_t *w, size_t n) {
  size_t np = n + 1;
  hs_model_info mi;
  hs_model_get_info(ms[0], &mi);
  int nl = mi.nlayers, rows = 0, rc = 0;
  pic_layer *L = calloc((size_t)nm * (size_t)(nl ? nl : 1), sizeof *L);
  hs_run_opts ro = {.precision = o->prec, .kernels = o->kt, .threads = o->threads};
  hs_error he;
  if (!L) return cli_error("out of memory");
  for (int k = 0; k < nm && rc == 0; k++)
    for (int l = 0; l < nl && rc == 0; l++) {
      pic_layer *x = &L[k * nl + l];
      size_t nh = (size_t)hs_model_layer_nheads(ms[k], l), cells = (nh ? nh : 1) * np * np;
      x->w = malloc(cells * sizeof(double));
      x->hard = malloc(cells * sizeof(double));
      if (!x->w || !x->hard) rc = cli_error("out of memory");
      else if (hs_attention(ms[k], w, n, &ro, l, x->w, x->hard, NULL, &he))
        rc = cli_error("attention: %s", he.msg);
    }
  fputs("{\"string\":", f);
  json_str(f, (const char *)w, n);
  fputs(",\"formula\":", f);
  if (mi.formula) json_str(f, mi.formula, strlen(mi.formula));
  else fputs("null", f);
  if (rc == 0) rc = json_bits(f, ms[0], &ro, w, n);
  fputs(",\"panels\":[", f);
  for (int l = 0; l < nl && rc == 0; l++)
    for (int h = 0; h < hs_model_layer_nheads(ms[0], l); h++) {
      if ((p->layer >= 0 && l != p->layer) || (p->head >= 0 && h != p->head)) continue;
      fputs(rows++ ? ",[" : "[", f);
      for (int k = 0; k < nm; k++) {
        if (k) fputc(',', f);
        json_panel(f, ms[k], l, h, &L[k * nl + l], np);
      }
      fputc(']', f);
    }
  fputs("]}\n", f);
  if (rc == 0 && rows == 0)
    rc = p->layer >= 0 || p->head >= 0
             ? cli_error("attention: no head matches --layer %d --head %d (the model "
                         "has %d layers)", p->layer, p->head, nl)
             : cli_error("attention: the model has no attention heads to draw");
  for (int k = 0; k < nm * nl; k++) free(L[k].w), free(L[k].hard);
  free(L);
  return rc;
}

/* The drawing script: $HARDSOFT_PLOT, else beside the executable in the
 * checkout (build/../src/python) or the prefix (bin/../lib/python3). */
static int find_plot(char *path, size_t len) {
  const char *env = getenv("HARDSOFT_PLOT");
  if (env && *env) return snprintf(path, len, "%s", env) < (int)len ? 0 : -1;
  char exe[4096];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (k <= 0) return -1;
  exe[k] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return -1;
  *slash = 0;
  static const char *const rel[] = {"/../src/python/hardsoft/plot.py",
                                    "/../lib/python3/dist-packages/hardsoft/plot.py"};
  for (size_t i = 0; i < sizeof rel / sizeof *rel; i++)
    if (snprintf(path, len, "%s%s", exe, rel[i]) < (int)len && access(path, R_OK) == 0)
      return 0;
  return -1;
}

/* Runs python plot.py --data JSON --out OUT; the script reports its own
 * errors in one line. */
static int pic_draw(const char *json, const char *out) {
  char plot[4200];
  if (find_plot(plot, sizeof plot) != 0)
    return cli_error("attention: cannot find the drawing script hardsoft/plot.py "
                     "beside the program (set HARDSOFT_PLOT to its path)");
  const char *py = getenv("HARDSOFT_PYTHON");
  if (!py || !*py) py = "/usr/bin/python3";
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return cli_error("attention: cannot start %s", py);
  if (pid == 0) {
    execl(py, py, plot, "--data", json, "--out", out, (char *)NULL);
    cli_error("attention: cannot run %s: %s (drawing needs python3 with matplotlib)",
              py, strerror(errno));
    _exit(HS_EXIT_ERROR);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return cli_error("attention: waiting for %s failed", py);
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  if (WIFEXITED(st) && WEXITSTATUS(st) == HS_EXIT_ERROR) return HS_EXIT_ERROR;
  return cli_error("attention: %s %s failed (exit %d)", py, plot,
                   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* The models to draw: the file, or the formula at each scale. */
static int pic_models(const pic_opts *p, const cli_opts *o, hs_model **ms, int *nm) {
  hs_error he;
  *nm = 0;
  if (p->model) {
    if (p->nscales) return cli_error("attention: --scales needs a FORMULA (a model file has its own mu)");
    if (!(ms[0] = cli_model_load("attention", p->model))) return HS_EXIT_ERROR;
    *nm = 1;
    return 0;
  }
  if (o->mode == HS_MODE_TRUTH) return cli_error("attention: --mode truth has no attention");
  int skip;
  hs_program *prog = cli_program(o, o->file, &skip);
  if (!cli_lowered(o, prog)) {
    hs_program_free(prog);
    return HS_EXIT_ERROR;
  }
  int rc = 0;
  for (int k = 0; k < (p->nscales ? p->nscales : 1) && rc == 0; k++) {
    hs_compile_opts co = {.mode = (hs_mode)o->mode, .sign = o->sign,
                          .scale = p->nscales ? p->scales[k] : o->scale};
    if ((ms[k] = hs_program_compile(prog, &co, &he))) ++*nm;
    else rc = cli_error("%s", he.msg);
    if (ms[k] && hs_model_set_vocab(ms[k], prog, &he) != 0) rc = cli_error("%s", he.msg);
  }
  hs_program_free(prog);
  return rc;
}

int cmd_attention(int argc, char **argv) {
  pic_opts p = {.layer = -1, .head = -1};
  cli_opts o;
  int rc = pic_take(&argc, argv, &p);
  if (rc) return rc;
  rc = cli_parse(argc, argv, 2, O_MODE | O_SCALE | O_SIGN | O_PREC | O_ISA | O_THREADS | O_PROG |
                 O_UNKNOWN, attention_usage, &o);
  if (rc) { free(o.args); return rc == 1 ? 0 : rc; }
  int want = p.model || o.file ? 1 : 2;
  hs_model *ms[PIC_MAX_SCALES] = {0};
  int nm = 0;
  if (o.nargs != want)
    rc = cli_error("attention: expected %s and one STRING, got %d argument%s (see "
                   "'hardsoft attention --help')",
                   p.model ? "--model FILE" : o.file ? "-f FILE" : "FORMULA",
                   o.nargs, o.nargs == 1 ? "" : "s");
  else if (!p.out)
    rc = cli_error("attention: expected --png OUT or --svg OUT");
  else if (strlen(o.args[want - 1]) > PIC_MAX_N)
    rc = cli_error("attention: a string of %zu symbols is too long for a picture "
                   "(at most %d)", strlen(o.args[want - 1]), PIC_MAX_N);
  else
    rc = pic_models(&p, &o, ms, &nm);
  if (rc == 0) {
    const char *dir = getenv("TMPDIR");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/hardsoft-attention-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    const char *s = o.args[want - 1];
    uint8_t *w = NULL;
    size_t n = strlen(s);
    /* a model with a vocabulary reads its STRING as tokens */
    if (nm > 0 && hs_model_vocab_size(ms[0]) > 0 &&
        cli_as_tokens(&o, NULL, ms[0], (const uint8_t *)s, n, &w, &n))
      rc = HS_EXIT_ERROR;
    if (rc == 0 && nm > 0) cli_warn_unnamed(&o, NULL, ms[0], w ? w : (const uint8_t *)s, n);
    for (int k = 0; rc == 0 && k < nm; k++) cli_warn_unproven(&o, ms[k], n);
    if (rc) {
      /* said */
    } else if (!f) rc = cli_error("attention: cannot create a temporary file in %s", dir ? dir : "/tmp");
    else rc = pic_write(f, ms, nm, &p, &o, w ? w : (const uint8_t *)s, n);
    free(w);
    if (f && fclose(f) != 0 && rc == 0) rc = cli_error("attention: writing %s failed", tmp);
    if (rc == 0) rc = pic_draw(tmp, p.out);
    if (fd >= 0) unlink(tmp);
  }
  for (int k = 0; k < nm; k++) hs_model_free(ms[k]);
  free(o.args);
  return rc;
}
