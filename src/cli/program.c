/* SPDX-License-Identifier: MIT */
/* Programs on the command line: -f FILE (- for standard input), --lang,
 * --tokens and the input strings as token lists. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

hs_program *cli_program_text(const char *text, size_t len, hs_lang lang,
                             const char *where) {
  hs_error e;
  hs_program *p = hs_program_parse(text, len, lang, &e);
  if (!p) {
    if (where) cli_error("%s: %s", where, e.msg);
    else cli_error("%s", e.msg);
  }
  return p;
}

hs_program *cli_program(const cli_opts *o, const char *file, int *skip) {
  if (!file) {
    *skip = 1;
    if (o->nargs < 1) return NULL;
    hs_lang lang = o->lang >= 0 ? (hs_lang)o->lang : HS_LANG_LTL;
    return cli_program_text(o->args[0], strlen(o->args[0]), lang, NULL);
  }
  *skip = 0;
  size_t len;
  char *text = read_all(file, &len);
  if (!text) return NULL;
  hs_lang lang = o->lang >= 0 ? (hs_lang)o->lang : hs_lang_from_path(file);
  hs_program *p = cli_program_text(text, len, lang,
                                   strcmp(file, "-") ? file : "standard input");
  free(text);
  return p;
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
