/* SPDX-License-Identifier: MIT */
/* Errors at a place in a program's text, one form for every front end:
 * "<what> at line L, column C" with L and C 1-based, also stored in the
 * hs_error's line and column for callers that point at the place. */
#ifndef HS_BASE_TEXT_H
#define HS_BASE_TEXT_H

#include <stdarg.h>

#include "base/error.h"

int hs_text_verror(hs_error *e, hs_errcode code, int line, int column,
                   const char *fmt, va_list ap);
int hs_text_error(hs_error *e, hs_errcode code, int line, int column,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
