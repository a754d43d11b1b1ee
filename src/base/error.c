/* SPDX-License-Identifier: MIT */
#include "base/error.h"

#include <stdio.h>
#include <string.h>

void hs_cut_whole(char *msg, size_t cap) {
  size_t n = strlen(msg);
  if (n + 1 < cap) return;
  /* cut at the last space that leaves room for " ...": never inside a word */
  size_t at = cap > 5 ? cap - 5 : 0;
  while (at > 0 && msg[at] != ' ') at--;
  memcpy(msg + at, " ...", 5);
}

int hs_verrorf(hs_error *e, hs_errcode code, const char *fmt, va_list ap) {
  if (!e) return -1;
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  hs_cut_whole(e->msg, sizeof e->msg);
  e->code = code;
  e->line = e->column = 0;
  e->limit = HS_LIMIT_NONE;
  return -1;
}

int hs_error_limit(hs_error *e, hs_limit_id which) {
  if (e) e->limit = which;
  return -1;
}

int hs_errorf(hs_error *e, hs_errcode code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_verrorf(e, code, fmt, ap);
  va_end(ap);
  return -1;
}

int hs_error_at(hs_error *e, hs_errcode code, int line, int column,
                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hs_verrorf(e, code, fmt, ap);
  va_end(ap);
  if (e) {
    e->line = line;
    e->column = column;
  }
  return -1;
}

void hs_error_clear(hs_error *e) {
  if (!e) return;
  e->msg[0] = 0;
  e->code = HS_OK;
  e->line = e->column = 0;
  e->limit = HS_LIMIT_NONE;
}

const char *hs_strerror(hs_errcode code) {
  switch (code) {
  case HS_OK: return "no error";
  case HS_ERR_PARSE: return "syntax error";
  case HS_ERR_UNSUPPORTED: return "not supported";
  case HS_ERR_ARG: return "invalid argument";
  case HS_ERR_LIMIT: return "input limit exceeded";
  case HS_ERR_NOMEM: return "out of memory";
  case HS_ERR_IO: return "input/output error";
  case HS_ERR_FORMAT: return "invalid model file";
  case HS_ERR_ISA: return "instruction set not available";
  default: return "unknown error code";
  }
}
