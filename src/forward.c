/* The forward pass of a model over one string, row by row on the
 * dispatched kernels: memory is O(n d), never O(n^2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define REAL float
#define SFX f32
#include "forward-impl.h"
#undef REAL
#undef SFX
#define REAL double
#define SFX f64
#include "forward-impl.h"
#undef REAL
#undef SFX

void hs_run_result_free(hs_run_result *r) {
  free(r->bits);
  free(r->values);
  free(r->attn_error);
  memset(r, 0, sizeof *r);
}

int hs_forward(const hs_model *m, const uint8_t *w, size_t n,
               const hs_run_opts *o, hs_run_result *res, char *msg,
               size_t len) {
  const hs_kernels *kt = o->kernels ? o->kernels : hs_kernels_default(NULL);
  if (!kt) kt = hs_kernels_for(HS_ISA_SCALAR);
  memset(res, 0, sizeof *res);
  res->bits = malloc(n ? n : 1);
  res->values = malloc((n ? n : 1) * sizeof(double));
  if (o->want_attn_error)
    res->attn_error = calloc((size_t)(m->nlayers ? m->nlayers : 1), sizeof(double));
  int rc = -1;
  if (res->bits && res->values && (!o->want_attn_error || res->attn_error))
    rc = o->precision == HS_PREC_F64 ? forward_f64(m, w, n, o, kt, res)
                                     : forward_f32(m, w, n, o, kt, res);
  if (rc != 0) {
    hs_run_result_free(res);
    snprintf(msg, len, "out of memory running the model on a string of %zu symbols", n);
  }
  return rc;
}
