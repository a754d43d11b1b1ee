/* SPDX-License-Identifier: MIT */
/* Reading a program's text, one way for every front end: a cursor that
 * knows the line and column of every byte it passes, and errors at a
 * place in the text, "<what> at line L, column C" with L and C 1-based
 * (also stored in the hs_error's line and column for callers that point
 * at the place). */
#ifndef HS_BASE_TEXT_H
#define HS_BASE_TEXT_H

#include <stdarg.h>
#include <stddef.h>

#include "base/error.h"

int hs_text_verror(hs_error *e, hs_errcode code, int line, int column,
                   const char *fmt, va_list ap);
int hs_text_error(hs_error *e, hs_errcode code, int line, int column,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A place in the text: byte offset, 1-based line and byte column. */
typedef struct hs_textpos { size_t pos; int line, column; } hs_textpos;

/* A text being read. A one-line text (a formula) counts columns from its
 * first byte whatever newlines it holds, and its errors name only the
 * column, which the message words itself ("... at column N (hint)"); a
 * program counts lines. The first error is kept: later failures, from
 * callers unwinding, change nothing. */
typedef struct hs_cursor {
  const char *s;
  size_t n, pos;     /* the text, its length, the next byte */
  size_t line_start; /* offset of the current line's first byte */
  int line;
  int lines;         /* 1: a program of lines, 0: a one-line text */
  hs_error *err;
  int failed;
} hs_cursor;

void hs_cursor_init(hs_cursor *c, const char *s, size_t n, int lines,
                    hs_error *err);
/* The byte k ahead of the cursor, or -1 past the end. */
static inline int hs_cursor_peek(const hs_cursor *c, size_t k) {
  return c->pos + k < c->n ? (unsigned char)c->s[c->pos + k] : -1;
}
/* Moves k bytes on (at most to the end), counting the lines passed. */
void hs_cursor_advance(hs_cursor *c, size_t k);
/* Skips the bytes of `space` and comments: each of the NULL-terminated
 * `comments` (NULL: none) opens one that runs up to, not over, the next
 * newline (a newline ends a statement in the line-based languages). */
void hs_cursor_skip(hs_cursor *c, const char *space, const char *const *comments);
/* The place of the cursor, and of byte pos of its current line. */
hs_textpos hs_cursor_here(const hs_cursor *c);
hs_textpos hs_cursor_at(const hs_cursor *c, size_t pos);
/* Fails at `at` (keeping the first failure); returns -1. */
int hs_cursor_fail(hs_cursor *c, hs_errcode code, hs_textpos at,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int hs_cursor_vfail(hs_cursor *c, hs_errcode code, hs_textpos at,
                    const char *fmt, va_list ap);

#endif
