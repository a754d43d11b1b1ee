/* SPDX-License-Identifier: MIT */
/* Many strings through one model in one call (include/hardsoft.h,
 * hs_forward_batch): the weights are converted once, as hs_runner does,
 * and the answers are laid end to end so a binding reads them as two flat
 * arrays and the lengths it passed. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "hardsoft.h"

int hs_forward_batch(const hs_model *m, size_t count, const uint8_t *const *w,
                     const size_t *len, const hs_run_opts *o, uint8_t *bits,
                     double *values, hs_error *err) {
  if (!m || (count && (!w || !len)))
    return hs_errorf(err, HS_ERR_ARG,
                     "hs_forward_batch: no model or no strings");
  hs_run_opts def;
  if (!o) {
    memset(&def, 0, sizeof def);
    o = &def;
  }
  hs_runner *r = hs_runner_new(m, o, err);
  if (!r) return -1;
  size_t off = 0;
  for (size_t k = 0; k < count; k++) {
    hs_run_result res;
    hs_error e;
    if (len[k] && !w[k]) {
      hs_runner_free(r);
      return hs_errorf(err, HS_ERR_ARG, "string %zu: no bytes for %zu symbols", k, len[k]);
    }
    if (hs_runner_run(r, w[k], len[k], &res, &e) != 0) {
      hs_runner_free(r);
      return hs_errorf(err, e.code, "string %zu: %s", k, e.msg);
    }
    if (bits && len[k]) memcpy(bits + off, res.bits, len[k]);
    if (values && len[k]) memcpy(values + off, res.values, len[k] * sizeof *values);
    off += len[k];
    hs_run_result_free(&res);
  }
  hs_runner_free(r);
  hs_error_clear(err);
  return 0;
}
