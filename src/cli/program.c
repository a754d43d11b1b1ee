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

/* The hint a parse error of text in lang gets, into hint (""  when none):
 * the language it parses in instead (hs_lang_other), or how lang spells
 * an operator it holds. Kept apart from the library's message, which it
 * follows on the line, so that neither is cut. */
static void explain(const char *text, size_t len, hs_lang lang, char *hint, size_t cap) {
  int l = hs_lang_other(text, len, lang);
  hint[0] = 0;
  if (l >= 0)
    snprintf(hint, cap, " (it parses as %s: add --lang %s)", prose_name((hs_lang)l),
             hs_lang_name((hs_lang)l));
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings && !hint[0]; i++)
    if (spellings[i].lang == lang && has_token(text, len, spellings[i].wrong))
      snprintf(hint, cap, " (%s writes %s as '%s', not '%s')", prose_name(lang),
               spellings[i].what, spellings[i].right, spellings[i].wrong);
}

static hs_program *parse_explained(const char *text, size_t len, hs_lang lang,
                                   const char *alphabet, hs_error *e, char *hint,
                                   size_t cap) {
  hs_program *p = lang == HS_LANG_REGEX ? hs_program_parse_regex(text, len, alphabet, e)
                                        : hs_program_parse(text, len, lang, e);
  hint[0] = 0;
  if (!p && !(lang == HS_LANG_REGEX && e->code != HS_ERR_PARSE))
    explain(text, len, lang, hint, cap);
  return p;
}

hs_program *cli_program_text(const char *text, size_t len, hs_lang lang,
                             const char *where) {
  return cli_program_text_in(text, len, lang, NULL, where);
}

hs_program *cli_program_text_in(const char *text, size_t len, hs_lang lang,
                                const char *alphabet, const char *where) {
  hs_error e;
  char hint[200];
  hs_program *p = parse_explained(text, len, lang, alphabet, &e, hint, sizeof hint);
  if (!p) {
    if (where) cli_error("%s: %s%s", where, cli_msg(&e), hint);
    else cli_error("%s%s", cli_msg(&e), hint);
  }
  return p;
}

/* Whether path names a regular file. */
static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Refuses (1, said) a FILE in a format no formula or program is: a model
 * file says what runs it. */
static int not_a_program(const char *file) {
  const char *kind = strcmp(file, "-") ? hs_file_kind(file) : NULL;
  if (!kind || !strcmp(kind, "text")) return 0;
  if (!strncmp(kind, "a model file", 12))
    return cli_error("%s: this file is %s, not a formula or program: run it with "
                     "'hardsoft run %s'", file, kind, file), 1;
  return cli_error("%s: this file is %s, not a formula or program", file, kind), 1;
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
    char hint[200];
    hs_program *p = parse_explained(a, strlen(a), lang, o->alphabet, &e, hint, sizeof hint);
    const char *kind = !p && is_file(a) ? hs_file_kind(a) : NULL;
    if (kind && !strncmp(kind, "a model file", 12))
      cli_error("%s; '%s' is %s: run it with 'hardsoft run %s'", cli_msg(&e), a, kind, a);
    else if (!p && is_file(a))
      cli_error("%s%s; '%s' is a file: read the program from it with -f %s", cli_msg(&e), hint, a,
                a);
    else if (!p)
      cli_error("%s%s", cli_msg(&e), hint);
    return p;
  }
  *skip = 0;
  if (not_a_program(file)) return NULL;
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

const char *cli_lowered(const cli_opts *o, const hs_program *p) {
  hs_error e;
  if (!p) return NULL;
  if (hs_program_lowered(p, &e) == 0) return hs_program_text(p);
  if (o->file) cli_error("%s: %s", strcmp(o->file, "-") ? o->file : "standard input", cli_msg(&e));
  else cli_error("%s", cli_msg(&e));
  return NULL;
}

/* What to do with a file of this kind instead of loading it as a model. */
static const char *model_advice(const char *kind) {
  if (!strcmp(kind, "text"))
    return ": a formula or program in a file is read with 'hardsoft eval -f FILE'";
  if (!strcmp(kind, "an ONNX graph"))
    return ": hardsoft runs the .safetensors files 'hardsoft compile -o' writes; run an "
           "ONNX graph with ONNX Runtime";
  if (!strcmp(kind, "gzip-compressed")) return ": decompress it first (gunzip)";
  return "";
}

hs_model *cli_model_load(const char *cmd, const char *path) {
  hs_error e;
  hs_model *m = hs_model_load(path, &e);
  if (m) return m;
  const char *kind = hs_file_kind(path);
  if (kind && strncmp(kind, "a model file", 12))
    return cli_error("%s: %s%s", path, cli_msg(&e), model_advice(kind)), NULL;
  /* a formula or program where the file goes */
  hs_program *p = e.code == HS_ERR_IO && !is_file(path)
                      ? hs_program_parse(path, strlen(path), HS_LANG_LTL, NULL) : NULL;
  hs_program_free(p);
  if (p && !strcmp(cmd, "export"))
    return cli_error("export: '%s' is a formula, not a model file: its ONNX graph is "
                     "written by hardsoft compile '%s' -o FILE.onnx", path, path), NULL;
  if (p)
    return cli_error("%s: '%s' is a formula, not a model file: hardsoft eval '%s' runs it, "
                     "hardsoft compile '%s' -o FILE saves its model", cmd, path, path, path), NULL;
  return cli_error("%s: %s", path, cli_msg(&e)), NULL;
}

int cli_tokens_default(const cli_opts *o, const hs_program *p) {
  if (o->tokens) return 1;
  return p && hs_program_lang(p) != HS_LANG_LTL;
}

int cli_as_tokens(const cli_opts *o, const hs_program *p, const hs_model *m,
                  const uint8_t *s, size_t n, uint8_t **buf, size_t *len) {
  uint8_t *b = malloc(n ? n : 1);
  if (!b) return cli_error("out of memory for a string of %zu bytes", n);
  hs_error e;
  int rc = p ? hs_program_encode(p, (const char *)s, n, o->unknown, b, len, &e)
             : hs_model_encode(m, (const char *)s, n, o->unknown, b, len, &e);
  if (rc) {
    free(b);
    return cli_error("%s (--unknown other reads unknown tokens as one symbol no "
                     "token names)", e.msg);
  }
  *buf = b;
  return 0;
}

void cli_warn_unnamed(const cli_opts *o, const hs_program *p, const hs_model *m,
                      const uint8_t *w, size_t n) {
  static int warned;
  uint8_t set[256];
  if (warned || o->unknown == HS_UNKNOWN_OTHER) return;
  if (p && hs_program_lang(p) != HS_LANG_LTL) return;
  if (!p && (!m || hs_model_vocab_size(m) > 0)) return;
  if (p) hs_program_alphabet(p, set);
  else hs_model_alphabet(m, set);
  size_t i = 0, named = 0;
  for (int b = 0; b < 256; b++) named += set[b];
  while (i < n && set[w[i]]) i++;
  if (i == n || named == 0) return; /* no atom: nothing reads the bytes */
  char sym[8];
  snprintf(sym, sizeof sym, w[i] >= 0x20 && w[i] < 0x7f ? "'%c'" : "\\x%02x", w[i]);
  warned = fprintf(stderr, "hardsoft: warning: no atom of the formula names %s "
                   "(position %zu): every atom is false there (--unknown other "
                   "allows such bytes without this warning)\n", sym, i + 1) > 0;
}

int cli_trace(const hs_program *p, const uint8_t *w, size_t n) {
  int k = hs_program_nstmts(p);
  size_t cells;
  if (__builtin_mul_overflow((size_t)k, n, &cells) || cells > SIZE_MAX / 8)
    return cli_error("out of memory tracing a string of %zu tokens", n);
  int64_t *vals = malloc((cells ? cells : 1) * sizeof *vals);
  hs_error e;
  if (!vals) return cli_error("out of memory tracing a string of %zu tokens", n);
  if (hs_program_trace(p, w, n, vals, &e)) {
    free(vals);
    return cli_error("%s", e.msg);
  }
  for (int s = 0; s < k; s++) {
    printf("%s:", hs_program_stmt_name(p, s));
    for (size_t i = 0; i < n; i++) printf(" %lld", (long long)vals[(size_t)s * n + i]);
    putchar('\n');
  }
  free(vals);
  return 0;
}
