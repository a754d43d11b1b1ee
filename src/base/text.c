/* SPDX-License-Identifier: MIT */
#include "base/text.h"

#include <stdio.h>

int hs_text_verror(hs_error *e, hs_errcode code, int line, int column,
                   const char *fmt, va_list ap) {
  /* the place is appended after the message is cut to leave room for it */
  char what[200];
  vsnprintf(what, sizeof what, fmt, ap);
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
