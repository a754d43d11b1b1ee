/* SPDX-License-Identifier: MIT */
/* Programs on the command line: -f FILE (- for standard input), --lang,
 * --tokens and the input strings as token lists. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* The whole of path ("-": standard input), refused past the
 * --max-formula-len limit before it is read whole. */
static char *read_all(const char *path, size_t *len) {
  size_t limit = hs_get_limits().max_formula_len, cap = 4096, n = 0;
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return cli_error("%s: %s", path, strerror(errno)), NULL;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n > limit) {
      cli_error("%s: program too long (more than %zu bytes; --max-formula-len "
                "raises the limit)", path, limit);
      free(buf);
      buf = NULL;
      break;
    }
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) free(buf);
    buf = nb;
    cap *= 2;
  }
  if (buf && ferror(f)) {
    cli_error("%s: read error", path);
    free(buf);
    buf = NULL;
  } else if (!buf && n <= limit) {
    cli_error("%s: out of memory", path);
  }
  if (f != stdin) fclose(f);
  *len = n;
  return buf;
}

/* How another notation's operator is spelled in lang: the hint a parse
 * error gets when the text holds `wrong` as a token of its own. */
static const struct {
  hs_lang lang;
  const char *wrong, *right, *what;
} spellings[] = {
    {HS_LANG_LTL, "<=>", "<->", "iff"},  {HS_LANG_LTL, "=>", "->", "implies"},
    {HS_LANG_LTL, "&&", "&", "and"},     {HS_LANG_LTL, "||", "|", "or"},
    {HS_LANG_LTL, "until", "U", "until"}, {HS_LANG_LTL, "since", "S", "since"},
    {HS_LANG_LTL, "and", "&", "and"},    {HS_LANG_LTL, "or", "|", "or"},
    {HS_LANG_LTL, "not", "!", "not"},    {HS_LANG_LTL, "next", "X", "next"},
    {HS_LANG_BRASP, "&&", "&", "and"},   {HS_LANG_BRASP, "||", "|", "or"},
    {HS_LANG_CRASP, "&", "&&", "and"},   {HS_LANG_CRASP, "|", "||", "or"},
};

static int word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

/* Whether text[0..len) holds tok as a token of its own, outside quotes:
 * a word not inside a longer word, an operator not inside a longer run of
 * operator characters (so '&' is not found in '&&', nor '=>' in '<=>'). */
static int has_token(const char *text, size_t len, const char *tok) {
  size_t k = strlen(tok);
  int word = word_char(tok[0]);
  char quote = 0;
  for (size_t i = 0; i + k <= len; i++) {
    char c = text[i];
    if (quote) { if (c == quote) quote = 0; continue; }
    if (c == '"' || c == '\'') { quote = c; continue; }
    if (memcmp(text + i, tok, k) != 0) continue;
    char before = i ? text[i - 1] : ' ', after = i + k < len ? text[i + k] : ' ';
    int glued = word ? word_char(before) || word_char(after)
                     : (before && strchr("&|<=>-!", before)) || (after && strchr("&|<=>-!", after));
    if (!glued) return 1;
  }
  return 0;
}

static const char *prose_name(hs_lang lang) {
  return lang == HS_LANG_LTL     ? "a formula"
         : lang == HS_LANG_CRASP ? "C-RASP"
         : lang == HS_LANG_BRASP ? "B-RASP"
                                 : "a regular expression";
}

/* A formula that fails to parse but holds an operator only regular
 * expressions have ((aa)*, [ab]+, a{2}) was meant as one. */
static int looks_regex(const char *text, size_t len) {
  hs_error e;
  if (!memchr(text, '*', len) && !memchr(text, '+', len) && !memchr(text, '[', len) &&
      !memchr(text, '{', len) && !memchr(text, '?', len))
    return 0;
  hs_program *p = hs_program_parse(text, len, HS_LANG_REGEX, &e);
  hs_program_free(p);
  return p != NULL;
}

/* A parse error of text in lang, made helpful in one line: the language
 * it parses in instead, or how lang spells an operator it holds. */
static void explain(const char *text, size_t len, hs_lang lang, hs_error *e) {
  char hint[200] = "";
  for (int l = HS_LANG_LTL; l <= HS_LANG_BRASP && !hint[0]; l++) {
    hs_error e2;
    hs_program *p = l == (int)lang ? NULL : hs_program_parse(text, len, (hs_lang)l, &e2);
    if (p)
      snprintf(hint, sizeof hint, " (it parses as %s: add --lang %s)",
               prose_name((hs_lang)l), hs_lang_name((hs_lang)l));
    hs_program_free(p);
  }
  if (!hint[0] && lang == HS_LANG_LTL && looks_regex(text, len))
    snprintf(hint, sizeof hint, " (it parses as %s: add --lang regex)",
             prose_name(HS_LANG_REGEX));
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings && !hint[0]; i++)
    if (spellings[i].lang == lang && has_token(text, len, spellings[i].wrong))
      snprintf(hint, sizeof hint, " (%s writes %s as '%s', not '%s')",
               prose_name(lang),
               spellings[i].what, spellings[i].right, spellings[i].wrong);
  size_t n = strlen(e->msg);
  snprintf(e->msg + n, sizeof e->msg - n, "%s", hint);
}

static hs_program *parse_explained(const char *text, size_t len, hs_lang lang,
                                   const char *alphabet, hs_error *e) {
  hs_program *p = lang == HS_LANG_REGEX ? hs_program_parse_regex(text, len, alphabet, e)
                                        : hs_program_parse(text, len, lang, e);
  if (!p && !(lang == HS_LANG_REGEX && e->code != HS_ERR_PARSE)) explain(text, len, lang, e);
  return p;
}

hs_program *cli_program_text(const char *text, size_t len, hs_lang lang,
                             const char *where) {
  return cli_program_text_in(text, len, lang, NULL, where);
}

hs_program *cli_program_text_in(const char *text, size_t len, hs_lang lang,
                                const char *alphabet, const char *where) {
  hs_error e;
  hs_program *p = parse_explained(text, len, lang, alphabet, &e);
  if (!p) {
    if (where) cli_error("%s: %s", where, e.msg);
    else cli_error("%s", e.msg);
  }
  return p;
}

/* Whether path names a regular file. */
static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

hs_program *cli_program(const cli_opts *o, const char *file, int *skip) {
  if (!file) {
    *skip = 1;
    if (o->nargs < 1) return NULL;
    const char *a = o->args[0];
    hs_lang lang = o->lang >= 0 ? (hs_lang)o->lang : HS_LANG_LTL;
    hs_error e;
    if (o->alphabet && lang != HS_LANG_REGEX)
      return cli_error("--alphabet is for regular expressions (--lang regex)"), NULL;
    hs_program *p = parse_explained(a, strlen(a), lang, o->alphabet, &e);
    if (!p && is_file(a))
      cli_error("%s; '%s' is a file: read the program from it with -f %s", e.msg, a, a);
    else if (!p)
      cli_error("%s", e.msg);
    return p;
  }
  *skip = 0;
  size_t len;
  char *text = read_all(file, &len);
  if (!text) return NULL;
  hs_lang lang = o->lang >= 0 ? (hs_lang)o->lang : hs_lang_from_path(file);
  if (o->alphabet && lang != HS_LANG_REGEX) {
    free(text);
    return cli_error("--alphabet is for regular expressions (--lang regex)"), NULL;
  }
  hs_program *p = cli_program_text_in(text, len, lang, o->alphabet,
                                      strcmp(file, "-") ? file : "standard input");
  free(text);
  return p;
}

/* What a file's first bytes say it is, for a model file that does not
 * load: the formats people keep weights in, and what to do instead. */
static const char *file_kind(const char *path) {
  unsigned char b[16] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  const char *dot = strrchr(path, '/') ? strrchr(strrchr(path, '/'), '.') : strrchr(path, '.');
  /* an ONNX ModelProto opens with ir_version (field 1, a small varint)
   * and then producer_name, a graph or an opset (fields 2, 7, 8) */
  int onnx = n >= 3 && b[0] == 0x08 && b[1] >= 1 && b[1] < 0x40 &&
             (b[2] == 0x12 || b[2] == 0x1a || b[2] == 0x3a || b[2] == 0x42);
  if (onnx || (dot && !strcmp(dot, ".onnx")))
    return "an ONNX graph, not a hardsoft model: hardsoft runs the .safetensors "
           "files 'hardsoft compile -o' writes; run an ONNX graph with ONNX Runtime";
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
    return "gzip-compressed: decompress it first (gunzip)";
  if (n >= 4 && !memcmp(b, "PK\3\4", 4))
    return "a zip archive (a PyTorch .pt/.pth checkpoint is one), not a hardsoft "
           "model: hardsoft runs the .safetensors files 'hardsoft compile -o' writes";
  if (n >= 6 && !memcmp(b, "\x93NUMPY", 6))
    return "a NumPy array (.npy), not a hardsoft model";
  if (n >= 4 && !memcmp(b, "GGUF", 4))
    return "a GGUF model (llama.cpp), not a hardsoft model";
  if (n >= 8 && !memcmp(b, "\x89HDF\r\n\x1a\n", 8))
    return "an HDF5 file (Keras .h5?), not a hardsoft model";
  if (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5)
    return "a Python pickle (an older PyTorch checkpoint?), not a hardsoft model";
  size_t text = 0;
  for (size_t i = 0; i < n; i++)
    text += (b[i] >= 0x20 && b[i] < 0x7f) || b[i] == '\n' || b[i] == '\t' || b[i] == '\r';
  if (n > 0 && text == n)
    return "text, not a model: a formula or program in a file is read with "
           "'hardsoft eval -f FILE'";
  return NULL;
}

hs_model *cli_model_load(const char *path, hs_error *e) {
  hs_model *m = hs_model_load(path, e);
  const char *kind = m ? NULL : file_kind(path);
  if (kind) snprintf(e->msg, sizeof e->msg, "this file is %s", kind);
  return m;
}

int cli_tokens_default(const cli_opts *o, const hs_program *p) {
  if (o->tokens) return 1;
  return p && hs_program_lang(p) != HS_LANG_LTL;
}

int cli_as_tokens(const hs_program *p, const hs_model *m, const uint8_t *s,
                  size_t n, uint8_t **buf, size_t *len) {
  uint8_t *b = malloc(n ? n : 1);
  if (!b) return cli_error("out of memory for a string of %zu bytes", n);
  *len = p ? hs_program_tokenize(p, (const char *)s, n, b)
           : hs_model_tokenize(m, (const char *)s, n, b);
  *buf = b;
  return 0;
}

int cli_trace(const hs_program *p, const uint8_t *w, size_t n) {
  int k = hs_program_nstmts(p);
  size_t cells;
  if (__builtin_mul_overflow((size_t)k, n, &cells) || cells > SIZE_MAX / 8)
    return cli_error("out of memory tracing a string of %zu tokens", n);
  int64_t *vals = malloc((cells ? cells : 1) * sizeof *vals);
  if (!vals || hs_program_trace(p, w, n, vals, NULL)) {
    free(vals);
    return cli_error("out of memory tracing a string of %zu tokens", n);
  }
  for (int s = 0; s < k; s++) {
    printf("%s:", hs_program_stmt_name(p, s));
    for (size_t i = 0; i < n; i++) printf(" %lld", (long long)vals[(size_t)s * n + i]);
    putchar('\n');
  }
  free(vals);
  return 0;
}
