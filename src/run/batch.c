/* SPDX-License-Identifier: MIT */
/* Many strings through one model in one call (include/hardsoft.h,
 * hs_forward_batch): the weights are converted once, as hs_runner does,
 * and the answers are laid end to end so a binding reads them as two flat
 * arrays and the lengths it passed. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hardsoft.h"

static int batch_fail(hs_error *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->column = err->line = 0;
  }
  return -1;
}

int hs_forward_batch(const hs_model *m, size_t count, const uint8_t *const *w,
                     const size_t *len, const hs_run_opts *o, uint8_t *bits,
                     double *values, hs_error *err) {
  if (!m || (count && (!w || !len)))
    return batch_fail(err, "hs_forward_batch: no model or no strings");
  hs_run_opts def;
  if (!o) {
    memset(&def, 0, sizeof def);
    o = &def;
  }
  hs_error e = {{0}, 0, 0};
  hs_runner *r = hs_runner_new(m, o, e.msg, sizeof e.msg);
  if (!r) return batch_fail(err, "%s", e.msg);
  size_t off = 0;
  for (size_t k = 0; k < count; k++) {
    hs_run_result res;
    if (len[k] && !w[k]) {
      hs_runner_free(r);
      return batch_fail(err, "string %zu: no bytes for %zu symbols", k, len[k]);
    }
    if (hs_runner_run(r, w[k], len[k], &res, e.msg, sizeof e.msg) != 0) {
      hs_runner_free(r);
      return batch_fail(err, "string %zu: %s", k, e.msg);
    }
    if (bits && len[k]) memcpy(bits + off, res.bits, len[k]);
    if (values && len[k]) memcpy(values + off, res.values, len[k] * sizeof *values);
    off += len[k];
    hs_run_result_free(&res);
  }
  hs_runner_free(r);
  return 0;
}
