/* SPDX-License-Identifier: MIT */
#include "base/text.h"

#include <stdio.h>
#include <string.h>

int hs_text_verror(hs_error *e, hs_errcode code, int line, int column,
                   const char *fmt, va_list ap) {
  /* the place is appended after the message is cut to leave room for it */
  char what[200];
  vsnprintf(what, sizeof what, fmt, ap);
  hs_cut_whole(what, sizeof what);
  return hs_error_at(e, code, line, column, "%s at line %d, column %d", what,
                     line, column);
}

int hs_text_error(hs_error *e, hs_errcode code, int line, int column,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_text_verror(e, code, line, column, fmt, ap);
  va_end(ap);
  return -1;
}

void hs_cursor_init(hs_cursor *c, const char *s, size_t n, int lines,
                    hs_error *err) {
  memset(c, 0, sizeof *c);
  c->s = s;
  c->n = s ? n : 0;
  c->line = 1;
  c->lines = lines;
  c->err = err;
}

void hs_cursor_advance(hs_cursor *c, size_t k) {
  size_t end = k < c->n - c->pos ? c->pos + k : c->n;
  for (; c->pos < end; c->pos++)
    if (c->lines && c->s[c->pos] == '\n') {
      c->line++;
      c->line_start = c->pos + 1;
    }
}

static size_t comment_at(const hs_cursor *c, const char *const *comments) {
  for (; comments && *comments; comments++) {
    size_t l = strlen(*comments);
    if (l <= c->n - c->pos && !memcmp(c->s + c->pos, *comments, l)) return l;
  }
  return 0;
}

void hs_cursor_skip(hs_cursor *c, const char *space, const char *const *comments) {
  for (;;) {
    int b = hs_cursor_peek(c, 0);
    if (b > 0 && strchr(space, b)) {
      hs_cursor_advance(c, 1);
    } else if (b > 0 && comment_at(c, comments)) {
      while (c->pos < c->n && c->s[c->pos] != '\n') c->pos++;
    } else {
      return;
    }
  }
}

hs_textpos hs_cursor_at(const hs_cursor *c, size_t pos) {
  return (hs_textpos){pos, c->lines ? c->line : 0, (int)(pos - c->line_start) + 1};
}

hs_textpos hs_cursor_here(const hs_cursor *c) { return hs_cursor_at(c, c->pos); }

int hs_cursor_vfail(hs_cursor *c, hs_errcode code, hs_textpos at,
                    const char *fmt, va_list ap) {
  if (c->failed) return -1;
  c->failed = 1;
  if (c->lines) return hs_text_verror(c->err, code, at.line, at.column, fmt, ap);
  char what[sizeof c->err->msg];
  vsnprintf(what, sizeof what, fmt, ap);
  return hs_error_at(c->err, code, 0, at.column, "%s", what);
}

int hs_cursor_fail(hs_cursor *c, hs_errcode code, hs_textpos at,
                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_cursor_vfail(c, code, at, fmt, ap);
  va_end(ap);
  return -1;
}
