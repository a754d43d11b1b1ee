/* SPDX-License-Identifier: MIT */
/* The library's one way to fail: fill an hs_error (code, message, line and
 * column) and return -1 or NULL. Every fallible public call takes an
 * hs_error * (NULL when the caller does not want the message); internal
 * functions pass the same pointer down, so the innermost failure names
 * what went wrong and the callers only forward it. */
#ifndef HS_BASE_ERROR_H
#define HS_BASE_ERROR_H

#include <stdarg.h>

#include "hardsoft.h"

/* Fills e (when non-NULL) with code and the printf-style message, line and
 * column 0; returns -1. */
int hs_errorf(hs_error *e, hs_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int hs_verrorf(hs_error *e, hs_errcode code, const char *fmt, va_list ap);
/* A message msg that filled its buffer of cap bytes (so it was probably
 * cut) cut again at a space, with " ..." after it: a message is never cut
 * inside a word. hs_verrorf applies it to every message. */
void hs_cut_whole(char *msg, size_t cap);
/* The same at a place in a text (1-based line and column; 0: none). */
int hs_error_at(hs_error *e, hs_errcode code, int line, int column,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Marks e (when non-NULL), just filled, as an input past limit `which`
 * (hs_error.limit); returns -1. Every other fill sets HS_LIMIT_NONE. */
int hs_error_limit(hs_error *e, hs_limit_id which);
/* An empty report (code HS_OK), for calls that succeed. */
void hs_error_clear(hs_error *e);

#endif
